//! Behaviour of the SQLite store that the shared contract suite does not reach: files,
//! migrations, rollback and concurrency.

use std::collections::BTreeSet;
use std::sync::Arc;

use lore_backend_sqlite::SqliteStore;
use lore_core::model::*;
use lore_core::store::{Batch, Op, Scope};
use lore_core::{ErrorCode, ObjectId, Result, Store};

fn folder(object: i64, name: &str) -> Object {
    Object::new(
        ObjectId::repository(object),
        ObjectKind::Folder,
        TypeName::new(REPOSITORY_PROFILE, "Folder"),
        SystemType::Namespace,
        name,
    )
}

fn column(model: i64, object: i64, parent: Option<i64>, name: &str) -> Object {
    let mut o = Object::new(
        ObjectId::new(model, object),
        ObjectKind::ModelObject,
        TypeName::new(DATABASE_PROFILE, "Column"),
        SystemType::Feature,
        name,
    );
    o.parent = parent.map(|p| ObjectId::new(model, p));
    o.native_id = Some(format!("native-{object}"));
    o.stable_id = Some(lore_core::id::stable_id(model, &format!("native-{object}")));
    o
}

fn user(object: i64, name: &str) -> User {
    User {
        id: ObjectId::repository(object),
        name: name.to_owned(),
        full_name: format!("{name} Full"),
        email: format!("{name}@example.com"),
        description: String::new(),
        password_hash: Some("$argon2id$fake".to_owned()),
        enabled: true,
        created_at: now(),
    }
}

fn at(ms: i64) -> Timestamp {
    Timestamp::from_timestamp_millis(ms).unwrap_or_default()
}

fn values(object: ObjectId) -> Vec<AttributeValue> {
    let value = |attribute: &str, value: Value| AttributeValue {
        object,
        attribute: attribute.to_owned(),
        value,
    };
    vec![
        value("Default Value", Value::Text("n/a".to_owned())),
        value("Length", Value::Integer(i64::MAX)),
        value("Nullable", Value::Boolean(false)),
        value("Ratio", Value::Double(3.0)),
        value("Reviewed", Value::DateTime(at(1_700_000_000_123))),
        value("Score", Value::Double(0.1)),
    ]
}

#[tokio::test]
async fn a_failed_batch_leaves_nothing_behind() -> Result<()> {
    let store = lore_backend_sqlite::open_temporary().await?;
    let mut batch = Batch::new();
    batch
        .push(Op::PutObject(folder(1, "Finance")))
        .push(Op::PutUser(user(2, "alice")))
        .push(Op::PutUser(user(3, "ALICE")));
    let err = store.apply(batch).await.err();
    let err = err.map(|e| (e.code, e.message));
    assert_eq!(
        err,
        Some((
            ErrorCode::Conflict,
            "a user named 'ALICE' already exists".to_owned()
        ))
    );
    assert_eq!(store.object(ObjectId::repository(1)).await?, None);
    assert_eq!(store.user_count().await?, 0);

    // A later batch still works on the same connection.
    store
        .apply(vec![Op::PutUser(user(2, "alice"))].into())
        .await?;
    assert_eq!(
        store.user_by_name("ALICE").await?.map(|u| u.id),
        Some(ObjectId::repository(2))
    );
    Ok(())
}

#[tokio::test]
async fn a_clashing_stable_id_is_a_conflict() -> Result<()> {
    let store = lore_backend_sqlite::open_temporary().await?;
    let a = column(7, 1, None, "A");
    let mut b = column(7, 2, None, "B");
    b.stable_id = a.stable_id.clone();
    let err = store
        .apply(vec![Op::PutObject(a), Op::PutObject(b)].into())
        .await
        .err();
    assert_eq!(err.map(|e| e.code), Some(ErrorCode::Conflict));
    assert!(store.model_objects(7).await?.is_empty());
    Ok(())
}

#[tokio::test]
async fn a_parent_in_another_id_space_is_refused() -> Result<()> {
    let store = lore_backend_sqlite::open_temporary().await?;
    let mut o = column(7, 1, None, "A");
    o.parent = Some(ObjectId::new(8, 1));
    let err = store.apply(vec![Op::PutObject(o)].into()).await.err();
    assert_eq!(err.map(|e| e.code), Some(ErrorCode::InvalidParameter));
    Ok(())
}

#[tokio::test]
async fn reserved_ids_never_repeat() -> Result<()> {
    let store = Arc::new(lore_backend_sqlite::open_temporary().await?);
    assert_eq!(store.reserve_ids(5, 3).await?, 1);
    assert_eq!(store.reserve_ids(5, 2).await?, 4);
    assert_eq!(store.reserve_ids(6, 1).await?, 1);

    let mut tasks = Vec::new();
    for i in 0..16_u64 {
        let store = Arc::clone(&store);
        tasks.push(tokio::spawn(async move {
            let count = i % 4 + 1;
            store
                .reserve_ids(5, count)
                .await
                .map(|first| (first, count))
        }));
    }
    let mut seen = BTreeSet::from([1, 2, 3, 4, 5]);
    for task in tasks {
        let (first, count) = task
            .await
            .map_err(|e| lore_core::Error::internal(e.to_string()))??;
        for id in first..first + count as i64 {
            assert!(seen.insert(id), "id {id} was handed out twice");
        }
    }
    // Every id up to the highest was handed out exactly once.
    assert_eq!(seen.len() as i64, seen.last().copied().unwrap_or(0));
    Ok(())
}

#[tokio::test]
async fn values_round_trip_exactly() -> Result<()> {
    let store = lore_backend_sqlite::open_temporary().await?;
    let id = ObjectId::new(9, 1);
    let ops: Vec<Op> = values(id).into_iter().rev().map(Op::SetAttribute).collect();
    store.apply(ops.into()).await?;
    let details = store.details(Scope::Objects(vec![id])).await?;
    assert_eq!(details.attributes, values(id));
    Ok(())
}

#[tokio::test]
async fn delete_and_clear_remove_what_hangs_on_objects() -> Result<()> {
    let store = lore_backend_sqlite::open_temporary().await?;
    let model = folder(9, "Model");
    let a = column(9, 1, None, "A");
    let b = column(9, 2, Some(1), "B");
    let other = column(10, 1, None, "Other");
    let edge = |source: ObjectId, target: ObjectId| Edge {
        kind: EdgeKind::SemanticLink,
        source,
        target,
        name: "defines".to_owned(),
    };
    let mut batch = Batch::new();
    for o in [&model, &a, &b, &other] {
        batch.push(Op::PutObject(o.clone()));
        batch.push(Op::SetAttribute(AttributeValue {
            object: o.id,
            attribute: "Note".to_owned(),
            value: Value::Text(o.name.clone()),
        }));
        batch.push(Op::AddTag(Tag {
            object: o.id,
            kind: TagKind::Label,
            value: "pii".to_owned(),
        }));
        batch.push(Op::SetClassification(Classification {
            object: o.id,
            data_class: "Email".to_owned(),
            status: ClassificationStatus::Matched,
        }));
        batch.push(Op::SetLabelAssignment(LabelAssignment {
            object: o.id,
            label: "Secret".to_owned(),
            status: ClassificationStatus::Approved,
        }));
        batch.push(Op::SetProfiling(Profiling {
            object: o.id,
            profile: Some(DataProfile {
                total_profiled_rows: Some(10),
                ..Default::default()
            }),
            sample: None,
        }));
        batch.push(Op::AddGrant(Grant {
            grantee: ObjectId::repository(50),
            role: "Steward".to_owned(),
            object: Some(o.id),
        }));
    }
    batch.push(Op::AddEdge(edge(a.id, other.id)));
    batch.push(Op::AddEdge(edge(other.id, b.id)));
    batch.push(Op::AddEdge(edge(model.id, other.id)));
    store.apply(batch).await?;

    let in_model = store.details(Scope::Model(9)).await?;
    assert_eq!(in_model.attributes.len(), 2);
    assert_eq!(
        in_model.edges,
        vec![edge(a.id, other.id), edge(other.id, b.id)]
    );
    assert_eq!(store.grants_of(ObjectId::repository(50)).await?.len(), 4);

    store.apply(vec![Op::DeleteObject(a.id)].into()).await?;
    assert_eq!(store.object(a.id).await?, None);
    let left = store.details(Scope::Objects(vec![a.id])).await?;
    assert_eq!(left, Default::default());
    // Children are not followed.
    assert_eq!(
        store.object(b.id).await?.map(|o| o.parent),
        Some(Some(a.id))
    );

    store.apply(vec![Op::ClearModel(9)].into()).await?;
    assert!(store.model_objects(9).await?.is_empty());
    assert_eq!(store.details(Scope::Model(9)).await?, Default::default());
    assert_eq!(store.grants_of(ObjectId::repository(50)).await?.len(), 2);
    // The model's repository object and the other model are untouched.
    assert!(store.object(model.id).await?.is_some());
    let rest = store
        .details(Scope::Objects(vec![model.id, other.id]))
        .await?;
    assert_eq!(rest.attributes.len(), 2);
    assert_eq!(rest.edges, vec![edge(model.id, other.id)]);
    assert_eq!(rest.profiling.len(), 2);
    Ok(())
}

#[tokio::test]
async fn details_take_many_ids() -> Result<()> {
    let store = lore_backend_sqlite::open_temporary().await?;
    let mut batch = Batch::new();
    let ids: Vec<ObjectId> = (1..=5000).map(|i| ObjectId::new(3, i)).collect();
    for id in &ids {
        batch.push(Op::SetAttribute(AttributeValue {
            object: *id,
            attribute: "Position".to_owned(),
            value: Value::Integer(id.object),
        }));
    }
    store.apply(batch).await?;
    let details = store
        .details(Scope::Objects(ids.iter().rev().copied().collect()))
        .await?;
    assert_eq!(details.attributes.len(), ids.len());
    assert!(
        details
            .attributes
            .windows(2)
            .all(|w| w[0].object < w[1].object)
    );
    // The scope of one call does not leak into the next.
    let one = store.details(Scope::Objects(vec![ids[0]])).await?;
    assert_eq!(one.attributes.len(), 1);
    Ok(())
}

#[tokio::test]
async fn children_sort_by_name_then_id() -> Result<()> {
    let store = lore_backend_sqlite::open_temporary().await?;
    let objects = [
        column(4, 3, Some(1), "b"),
        column(4, 2, Some(1), "b"),
        column(4, 4, Some(1), "a"),
    ];
    let mut batch = Batch::new();
    batch.push(Op::PutObject(column(4, 1, None, "root")));
    for o in &objects {
        batch.push(Op::PutObject(o.clone()));
    }
    store.apply(batch).await?;
    let parent = Some(ObjectId::new(4, 1));
    let names: Vec<(String, i64)> = store
        .children(4, parent)
        .await?
        .into_iter()
        .map(|o| (o.name, o.id.object))
        .collect();
    assert_eq!(
        names,
        vec![
            ("a".to_owned(), 4),
            ("b".to_owned(), 2),
            ("b".to_owned(), 3)
        ]
    );
    assert_eq!(
        store
            .child_by_name(4, parent, "b")
            .await?
            .map(|o| o.id.object),
        Some(2)
    );
    assert_eq!(
        store
            .child_by_name(4, None, "root")
            .await?
            .map(|o| o.id.object),
        Some(1)
    );
    assert!(store.children(5, parent).await?.is_empty());
    Ok(())
}

#[tokio::test]
async fn sessions_expire() -> Result<()> {
    let store = lore_backend_sqlite::open_temporary().await?;
    let session = |key: &str, expires: i64| Session {
        key_hash: key.to_owned(),
        user: ObjectId::repository(2),
        created_at: at(1_000),
        expires_at: at(expires),
    };
    store.put_session(session("a", 5_000)).await?;
    store.put_session(session("b", 9_000)).await?;
    assert_eq!(
        store.session("a", at(4_999)).await?,
        Some(session("a", 5_000))
    );
    assert_eq!(store.session("a", at(5_000)).await?, None);
    assert_eq!(store.purge_sessions(at(5_000)).await?, 1);
    assert_eq!(
        store.session("b", at(5_000)).await?.map(|s| s.key_hash),
        Some("b".to_owned())
    );
    assert_eq!(store.delete_sessions_of(ObjectId::repository(2)).await?, 1);
    assert_eq!(store.session("b", at(5_000)).await?, None);
    Ok(())
}

#[tokio::test]
async fn a_file_store_reopens_with_its_data() -> Result<()> {
    let dir = tempfile::tempdir().map_err(|e| lore_core::Error::internal(e.to_string()))?;
    let path = dir.path().join("nested").join("lore.db");
    let a = column(9, 1, None, "A");
    let alice = user(2, "Alice");
    let role = Role::builtin().remove(0);
    {
        let store = SqliteStore::open(&path).await?;
        let mut batch = Batch::new();
        batch
            .push(Op::PutObject(a.clone()))
            .push(Op::PutUser(alice.clone()))
            .push(Op::PutRole(role.clone()));
        for v in values(a.id) {
            batch.push(Op::SetAttribute(v));
        }
        store.apply(batch).await?;
        assert_eq!(store.reserve_ids(9, 10).await?, 1);
    }
    let store = SqliteStore::open(&path).await?;
    assert_eq!(store.object(a.id).await?, Some(a.clone()));
    assert_eq!(
        store
            .object_by_stable_id(a.stable_id.as_deref().unwrap_or_default())
            .await?,
        Some(a.clone())
    );
    assert_eq!(store.user_by_name("alice").await?, Some(alice));
    assert_eq!(store.roles().await?, vec![role]);
    assert_eq!(
        store.details(Scope::Model(9)).await?.attributes,
        values(a.id)
    );
    assert_eq!(store.reserve_ids(9, 1).await?, 11);
    Ok(())
}

#[tokio::test]
async fn a_newer_database_is_refused() -> Result<()> {
    let dir = tempfile::tempdir().map_err(|e| lore_core::Error::internal(e.to_string()))?;
    let path = dir.path().join("lore.db");
    drop(SqliteStore::open(&path).await?);
    let conn =
        rusqlite::Connection::open(&path).map_err(|e| lore_core::Error::internal(e.to_string()))?;
    conn.execute("INSERT INTO lore_schema VALUES (999, 'future', 0)", [])
        .map_err(|e| lore_core::Error::internal(e.to_string()))?;
    drop(conn);
    let err = SqliteStore::open(&path)
        .await
        .err()
        .map(|e| e.message)
        .unwrap_or_default();
    assert!(err.contains("version 999"), "unexpected outcome: {err:?}");
    Ok(())
}
