//! The memory store's own checks: rollback keeps every index consistent, and large
//! batches stay fast. The full contract is in `lore-conformance`.

use std::time::Instant;

use lore_backend_memory::MemoryStore;
use lore_core::model::{
    AttributeValue, Edge, EdgeKind, Grant, Object, ObjectKind, Session, SystemType, Tag, TagKind,
    TypeName, User, Value,
};
use lore_core::store::{Batch, Op, Scope, Store};
use lore_core::{ErrorCode, ObjectId};

fn object(id: ObjectId, parent: Option<ObjectId>, name: &str) -> Object {
    let kind = if id.is_repository() {
        ObjectKind::Folder
    } else {
        ObjectKind::ModelObject
    };
    let mut o = Object::new(
        id,
        kind,
        TypeName::new("P", "T"),
        SystemType::Classifier,
        name,
    );
    o.parent = parent;
    if !id.is_repository() {
        o.stable_id = Some(format!("s{}_{}", id.model, id.object));
    }
    o
}

fn user(id: i64, name: &str) -> User {
    User {
        id: ObjectId::repository(id),
        name: name.into(),
        full_name: String::new(),
        email: String::new(),
        description: String::new(),
        password_hash: None,
        enabled: true,
        created_at: lore_core::model::now(),
    }
}

#[tokio::test]
async fn failed_batch_restores_objects_and_indexes() {
    let store = MemoryStore::new();
    let a = ObjectId::new(5, 1);
    let b = ObjectId::new(5, 2);
    let mut batch = Batch::new();
    batch.push(Op::PutObject(object(a, None, "a")));
    batch.push(Op::PutObject(object(b, Some(a), "b")));
    batch.push(Op::SetAttribute(AttributeValue {
        object: b,
        attribute: "x".into(),
        value: Value::Integer(1),
    }));
    batch.push(Op::AddEdge(Edge {
        kind: EdgeKind::Lineage,
        source: a,
        target: b,
        name: "l".into(),
    }));
    batch.push(Op::AddTag(Tag {
        object: b,
        kind: TagKind::Collection,
        value: "c".into(),
    }));
    batch.push(Op::AddGrant(Grant {
        grantee: ObjectId::repository(9),
        role: "r".into(),
        object: Some(b),
    }));
    batch.push(Op::PutUser(user(9, "Ann")));
    store.apply(batch).await.expect("first batch");
    let before = store.details(Scope::Model(5)).await.expect("details");

    // Rename, re-parent, delete and clear, then fail on a duplicate user name.
    let mut renamed = object(b, None, "renamed");
    renamed.stable_id = Some("other".into());
    let mut batch = Batch::new();
    batch.push(Op::PutObject(renamed));
    batch.push(Op::DeleteObject(a));
    batch.push(Op::ClearModel(5));
    batch.push(Op::PutUser(user(9, "Bob")));
    batch.push(Op::PutObject(object(ObjectId::new(5, 3), None, "new")));
    batch.push(Op::PutUser(user(10, "BOB")));
    let err = store
        .apply(batch)
        .await
        .expect_err("duplicate user name must fail");
    assert_eq!(err.code, ErrorCode::Conflict);

    assert_eq!(
        store.details(Scope::Model(5)).await.expect("details"),
        before
    );
    let children = store.children(5, Some(a)).await.expect("children");
    assert_eq!(
        children.iter().map(|o| o.name.as_str()).collect::<Vec<_>>(),
        ["b"]
    );
    assert!(
        store
            .child_by_name(5, None, "renamed")
            .await
            .expect("child")
            .is_none()
    );
    assert!(
        store
            .child_by_name(5, None, "new")
            .await
            .expect("child")
            .is_none()
    );
    assert!(
        store
            .object_by_stable_id("other")
            .await
            .expect("stable")
            .is_none()
    );
    assert_eq!(
        store
            .object_by_stable_id("s5_2")
            .await
            .expect("stable")
            .map(|o| o.id),
        Some(b)
    );
    assert_eq!(
        store
            .objects_of_kind(ObjectKind::ModelObject)
            .await
            .expect("kind")
            .len(),
        2
    );
    assert_eq!(
        store.user_by_name("ann").await.expect("user").map(|u| u.id),
        Some(ObjectId::repository(9))
    );
    assert!(store.user_by_name("bob").await.expect("user").is_none());
    assert_eq!(
        store
            .grants_of(ObjectId::repository(9))
            .await
            .expect("grants")
            .len(),
        1
    );
}

#[tokio::test]
async fn reserve_ids_survive_failed_batches() {
    let store = MemoryStore::new();
    assert_eq!(store.reserve_ids(7, 3).await.expect("reserve"), 1);
    let err = store
        .apply(
            vec![Op::PutObject(object(
                ObjectId::new(7, 1),
                Some(ObjectId::new(8, 1)),
                "x",
            ))]
            .into(),
        )
        .await;
    assert_eq!(
        err.expect_err("parent in another model").code,
        ErrorCode::InvalidParameter
    );
    assert_eq!(store.reserve_ids(7, 1).await.expect("reserve"), 4);
    assert!(store.reserve_ids(7, u64::MAX).await.is_err());
    assert_eq!(store.reserve_ids(7, 1).await.expect("reserve"), 5);
}

#[tokio::test]
async fn session_expiry_is_exclusive_of_now() {
    let store = MemoryStore::new();
    let now = lore_core::model::now();
    let user = ObjectId::repository(1);
    store
        .put_session(Session {
            key_hash: "h".into(),
            user,
            created_at: now,
            expires_at: now,
        })
        .await
        .expect("put");
    assert!(
        store.session("h", now).await.expect("get").is_none(),
        "a session expiring now is expired"
    );
    assert_eq!(store.purge_sessions(now).await.expect("purge"), 1);
    let later = now + chrono::Duration::seconds(1);
    store
        .put_session(Session {
            key_hash: "h".into(),
            user,
            created_at: now,
            expires_at: later,
        })
        .await
        .expect("put");
    assert!(store.session("h", now).await.expect("get").is_some());
}

/// Importing 10k objects (with attributes and edges) into a store of 100k objects, and
/// clearing that model again, must not copy the store.
#[tokio::test]
async fn large_batches_stay_fast() {
    let store = MemoryStore::new();
    let batch_of = |model: i64, count: i64| -> Batch {
        let mut batch = Batch::new();
        for i in 1..=count {
            let id = ObjectId::new(model, i);
            let parent = (i > 1).then(|| ObjectId::new(model, 1 + (i - 2) / 50));
            batch.push(Op::PutObject(object(id, parent, &format!("o{i}"))));
            batch.push(Op::SetAttribute(AttributeValue {
                object: id,
                attribute: "a".into(),
                value: Value::Integer(i),
            }));
            if let Some(parent) = parent {
                batch.push(Op::AddEdge(Edge {
                    kind: EdgeKind::Lineage,
                    source: parent,
                    target: id,
                    name: String::new(),
                }));
            }
        }
        batch
    };
    for model in 1..=10 {
        store.apply(batch_of(model, 10_000)).await.expect("fill");
    }
    let started = Instant::now();
    store.apply(batch_of(11, 10_000)).await.expect("import");
    let import = started.elapsed();
    let started = Instant::now();
    store
        .apply(vec![Op::ClearModel(11)].into())
        .await
        .expect("clear");
    let clear = started.elapsed();
    assert!(store.model_objects(11).await.expect("objects").is_empty());
    assert_eq!(
        store.model_objects(10).await.expect("objects").len(),
        10_000
    );
    // Generous bounds for debug builds on a slow machine; a whole-state copy is far slower.
    assert!(
        import.as_secs_f64() < 2.0,
        "importing 10k objects took {import:?}"
    );
    assert!(
        clear.as_secs_f64() < 2.0,
        "clearing 10k objects took {clear:?}"
    );
}
