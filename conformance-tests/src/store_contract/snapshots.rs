//! Snapshots: a read-only view that later writes do not change.

use super::*;

pub(super) async fn a_snapshot_reads_one_moment_and_refuses_writes(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model, number) = new_model(store, "snapshot").await;
    let kept = model_object(number, 1, None, "kept");
    let gone = model_object(number, 2, None, "gone later");
    let ann = user(60, "ann");
    apply(
        store,
        vec![
            Op::PutObject(kept.clone()),
            Op::PutObject(gone.clone()),
            Op::SetAttribute(attr(kept.id, "Owner", Value::Text("before".into()))),
            Op::PutUser(ann.clone()),
        ],
        "the state before",
    )
    .await;
    let next = ok(store.reserve_ids(number, 1).await, "reserve_ids") + 1;
    let snapshot = ok(store.snapshot().await, "snapshot");

    // Writes after the snapshot was taken.
    let added = model_object(number, 3, None, "added later");
    apply(
        store,
        vec![
            Op::PutObject(added.clone()),
            Op::DeleteObject(gone.id),
            Op::SetAttribute(attr(kept.id, "Owner", Value::Text("after".into()))),
            Op::DeleteUser(ann.id),
        ],
        "the writes after",
    )
    .await;
    ok(store.reserve_ids(number, 5).await, "reserve_ids after");

    let page = ok(
        snapshot.model_objects_page(number, None, 10).await,
        "model_objects_page of the snapshot",
    );
    assert_eq!(
        id_list(&page),
        vec![kept.id, gone.id],
        "the snapshot holds the objects as they were"
    );
    assert_eq!(
        details(snapshot.as_ref(), &[kept.id], "details of the snapshot")
            .await
            .attributes,
        vec![attr(kept.id, "Owner", Value::Text("before".into()))],
        "and their values as they were"
    );
    assert_eq!(
        ok(snapshot.user(ann.id).await, "user").map(|u| u.name),
        Some("ann".into())
    );
    assert!(
        ok(snapshot.id_sequences().await, "id_sequences").contains(&(number, next)),
        "and the id sequences as they were"
    );
    assert!(ok(snapshot.object(model).await, "object").is_some());

    fails(
        snapshot
            .apply(Batch::from(vec![Op::DeleteObject(kept.id)]))
            .await,
        ErrorCode::ServerError,
        "a write to a snapshot",
    );
    assert!(
        snapshot.reserve_ids(number, 1).await.is_err(),
        "a snapshot gives no ids"
    );
    let refused = match snapshot.begin(lore_core::model::Author::system()).await {
        Err(_) => true,
        Ok(mut tx) => {
            let written = tx.write(vec![Op::DeleteObject(kept.id)]).await;
            written.is_err() || tx.commit().await.is_err()
        }
    };
    assert!(
        refused,
        "a write transaction of a snapshot fails, at its start or its commit"
    );
    drop(snapshot);

    let live = ok(
        store.model_objects_page(number, None, 10).await,
        "live page",
    );
    assert_eq!(
        id_list(&live),
        vec![kept.id, added.id],
        "the store moved on"
    );
    assert_eq!(
        ok(store.object(kept.id).await, "object").map(|o| o.name),
        Some("kept".into())
    );
    apply(
        store,
        vec![Op::DeleteObject(kept.id)],
        "a write after the snapshot ended",
    )
    .await;
}
