//! Write transactions: chunks, commits, rollbacks, and what readers see meanwhile.

use super::*;

/// Writes `chunks` in one transaction and commits it.
pub(super) async fn commit_chunks(store: &dyn Store, chunks: Vec<Vec<Op>>, what: &str) {
    let mut tx = ok(store.begin(lore_core::model::Author::system()).await, what);
    for chunk in chunks {
        ok(tx.write(chunk).await, what);
    }
    ok(tx.commit().await, what);
}

pub(super) async fn begin_lands_every_chunk_on_commit(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model_id, model) = new_model(store, "Tx Model").await;
    let o = ids(store, model, 2).await;
    let r = ids(store, REPOSITORY_MODEL, 2).await;
    let folder = repository_object(r[0].object, ObjectKind::Folder, None, "Tx Folder");
    let mut renamed = folder.clone();
    renamed.name = "Tx Folder Renamed".into();
    let table = model_object(model, o[0].object, None, "table");
    let column = model_object(model, o[1].object, Some(o[0]), "column");

    let mut tx = ok(
        store.begin(lore_core::model::Author::system()).await,
        "begin",
    );
    ok(
        tx.write(vec![
            Op::PutObject(folder.clone()),
            Op::PutUser(user(r[1].object, "Tx User")),
        ])
        .await,
        "write of a first chunk",
    );
    ok(
        tx.write(vec![
            Op::PutObject(table.clone()),
            Op::PutObject(column.clone()),
            Op::SetAttribute(attr(o[1], "A", Value::Integer(1))),
        ])
        .await,
        "write of a second chunk whose objects hang on the first's",
    );
    ok(
        tx.write(vec![
            Op::PutObject(renamed.clone()),
            Op::SetAttribute(attr(o[1], "A", Value::Integer(2))),
            Op::AddEdge(edge(EdgeKind::Lineage, o[0], model_id, "e")),
        ])
        .await,
        "write of a third chunk replacing what the first two wrote",
    );
    assert_eq!(
        ok(store.object(folder.id).await, "object"),
        None,
        "reads outside an open transaction do not see its writes"
    );
    assert_eq!(
        ok(store.user_count().await, "user_count"),
        0,
        "reads outside an open transaction do not see its users"
    );
    ok(tx.commit().await, "commit");

    assert_eq!(
        ok(store.object(folder.id).await, "object"),
        Some(renamed),
        "every chunk lands on commit, later chunks over earlier ones"
    );
    assert_eq!(
        ok(store.user_by_name("tx user").await, "user_by_name").map(|u| u.id),
        Some(r[1]),
        "the first chunk's user landed"
    );
    assert_eq!(
        ok(store.model_objects(model).await, "model_objects"),
        vec![table, column],
        "the second chunk's objects landed"
    );
    let read = details(store, &o, "details").await;
    assert_eq!(
        read.attributes,
        vec![attr(o[1], "A", Value::Integer(2))],
        "a later chunk replaces an earlier chunk's value"
    );
    assert_eq!(
        read.edges,
        vec![edge(EdgeKind::Lineage, o[0], model_id, "e")],
        "the third chunk's edge landed"
    );
    commit_chunks(store, vec![], "committing a transaction without writes").await;
}

pub(super) async fn begin_dropped_uncommitted_leaves_store_unchanged(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model_id, model) = new_model(store, "Dropped Tx Model").await;
    let o = ids(store, model, 2).await;
    let kept = model_object(model, o[0].object, None, "kept");
    apply(
        store,
        vec![
            Op::PutObject(kept.clone()),
            Op::SetAttribute(attr(o[0], "A", Value::Integer(1))),
        ],
        "setting up",
    )
    .await;
    let before = ok(store.details(Scope::Model(model)).await, "details");

    let mut tx = ok(
        store.begin(lore_core::model::Author::system()).await,
        "begin",
    );
    let mut changed = kept.clone();
    changed.name = "changed".into();
    ok(
        tx.write(vec![
            Op::PutObject(changed),
            Op::PutObject(model_object(model, o[1].object, None, "new")),
        ])
        .await,
        "write",
    );
    ok(
        tx.write(vec![
            Op::SetAttribute(attr(o[0], "A", Value::Integer(2))),
            Op::AddTag(tag(o[0], TagKind::Label, "t")),
            Op::PutUser(user(1, "Dropped")),
            Op::DeleteObject(model_id),
        ])
        .await,
        "write",
    );
    drop(tx);

    assert_eq!(
        ok(store.model_objects(model).await, "model_objects"),
        vec![kept],
        "a dropped transaction adds and replaces no objects"
    );
    assert_eq!(
        ok(store.details(Scope::Model(model)).await, "details"),
        before,
        "a dropped transaction changes nothing that hangs on objects"
    );
    assert_eq!(
        ok(store.user_count().await, "user_count"),
        0,
        "a dropped transaction adds no users"
    );
    assert!(
        ok(store.object(model_id).await, "object").is_some(),
        "a dropped transaction deletes nothing"
    );

    commit_chunks(
        store,
        vec![vec![Op::PutUser(user(1, "After"))]],
        "a transaction after a dropped one",
    )
    .await;
    assert_eq!(
        ok(store.user_count().await, "user_count"),
        1,
        "a transaction after a dropped one commits"
    );
}

pub(super) async fn new_rows_land_as_written_and_a_clash_lands_nothing(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "New Rows Model").await;
    let o = ids(store, model, 3).await;
    let mut table = model_object(model, o[0].object, None, "table");
    // What a bulk path must carry as it is (PostgreSQL copies new rows as text).
    table.description = Some("a tab\there, a line\nthere, a backslash \\N and \\.".into());
    let column = model_object(model, o[1].object, Some(o[0]), "column");
    let values = vec![
        attr(o[1], "A", Value::Integer(1)),
        attr(o[1], "B", Value::Text("b\tc\r\n\\".into())),
        attr(o[1], "C", Value::Double(-0.1)),
    ];
    let mut tx = ok(
        store.begin(lore_core::model::Author::system()).await,
        "begin",
    );
    tx.expect_new_rows();
    let mut ops = vec![Op::PutObject(table.clone()), Op::PutObject(column.clone())];
    ops.extend(values.iter().cloned().map(Op::SetAttribute));
    ops.push(Op::AddTag(Tag {
        object: o[1],
        kind: TagKind::Label,
        value: "PII".into(),
    }));
    ok(tx.write(ops).await, "write of new rows");
    ok(tx.commit().await, "commit of new rows");
    assert_eq!(
        ok(store.model_objects(model).await, "model_objects"),
        vec![table.clone(), column.clone()],
        "objects promised new land as written"
    );
    assert_eq!(
        details(store, &o, "details").await.attributes,
        values,
        "attribute values promised new land as written"
    );
    // Found by a text search, with their labels (PostgreSQL writes their narrow rows at
    // the end of the transaction, migration 27).
    for (term, labels) in [("column", vec![("PII", 1)]), ("table", vec![])] {
        use lore_core::mql::plan::{Column, Cond, Facet, Field, Lit, Plan};
        let plan = Plan {
            filter: Cond::Search {
                columns: vec![Column::Name],
                text: term.into(),
            },
            visibility: Cond::True,
            order: Vec::new(),
            as_of: None,
        };
        assert_eq!(ok(store.count(&plan).await, "count"), 1, "{term}");
        let facet = Facet {
            relation: None,
            field: Field::Tags(TagKind::Label),
            gap: None,
            hidden: Cond::False,
        };
        let counts = ok(
            store.value_counts(&plan, &[facet], 10).await,
            "value_counts",
        );
        let counts: Vec<(Lit, u64)> = counts[0]
            .iter()
            .map(|c| (c.value.clone(), c.count))
            .collect();
        let labels: Vec<(Lit, u64)> = labels
            .into_iter()
            .map(|(l, n)| (Lit::Text(l.into()), n))
            .collect();
        assert_eq!(
            counts, labels,
            "the labels of the new objects found by '{term}'"
        );
    }

    // A broken promise: the table exists. A store may fail the transaction (then
    // nothing of it lands) or write as `write` would.
    let mut renamed = table.clone();
    renamed.name = "renamed".into();
    let extra = model_object(model, o[2].object, None, "extra");
    let mut tx = ok(
        store.begin(lore_core::model::Author::system()).await,
        "begin",
    );
    tx.expect_new_rows();
    let outcome = match tx
        .write(vec![
            Op::PutObject(extra.clone()),
            Op::PutObject(renamed.clone()),
        ])
        .await
    {
        Ok(()) => tx.commit().await,
        Err(err) => {
            drop(tx);
            Err(err)
        }
    };
    let expected = match outcome {
        Err(err) => {
            assert_eq!(
                err.code,
                ErrorCode::Conflict,
                "a row promised new that exists is a conflict: {err:?}"
            );
            vec![table, column]
        }
        Ok(()) => vec![renamed, column, extra],
    };
    assert_eq!(
        ok(store.model_objects(model).await, "model_objects"),
        expected,
        "a transaction with a clashing new row lands whole or not at all"
    );
}

pub(super) async fn begin_failing_chunk_lands_nothing(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model_id, model) = new_model(store, "Failing Tx Model").await;
    let o = ids(store, model, 1).await;
    let r = ids(store, REPOSITORY_MODEL, 4).await;
    let taken = repository_object(r[0].object, ObjectKind::Folder, None, "Taken");
    apply(store, vec![Op::PutObject(taken.clone())], "setting up").await;

    let mut tx = ok(
        store.begin(lore_core::model::Author::system()).await,
        "begin",
    );
    ok(
        tx.write(vec![
            Op::PutObject(repository_object(
                r[1].object,
                ObjectKind::Folder,
                None,
                "Fresh",
            )),
            Op::PutUser(user(r[2].object, "Early")),
            Op::PutObject(model_object(model, o[0].object, None, "table")),
            Op::SetAttribute(attr(model_id, "A", Value::Integer(1))),
        ])
        .await,
        "write of a good first chunk",
    );
    let clash = vec![Op::PutObject(repository_object(
        r[3].object,
        ObjectKind::Folder,
        None,
        "Taken",
    ))];
    let outcome = match tx.write(clash).await {
        Ok(()) => tx.commit().await,
        Err(err) => {
            drop(tx);
            Err(err)
        }
    };
    fails(
        outcome,
        ErrorCode::Conflict,
        "a transaction whose second chunk puts a repository name twice under the root",
    );

    assert_eq!(
        ok(store.object(r[1]).await, "object"),
        None,
        "nothing of the earlier chunk lands: no folder"
    );
    assert_eq!(
        ok(store.user_count().await, "user_count"),
        0,
        "nothing of the earlier chunk lands: no user"
    );
    assert!(
        ok(store.model_objects(model).await, "model_objects").is_empty(),
        "nothing of the earlier chunk lands: no model object"
    );
    assert!(
        details(store, &[model_id], "details")
            .await
            .attributes
            .is_empty(),
        "nothing of the earlier chunk lands: no attribute"
    );
    assert_eq!(
        ok(
            store.child_by_name(REPOSITORY_MODEL, None, "Taken").await,
            "child_by_name"
        ),
        Some(taken),
        "the clashing name still finds the object that had it"
    );
}
