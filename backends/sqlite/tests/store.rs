//! Behaviour only the SQLite store has: a database file that reopens with its data, and
//! migrations that refuse a newer schema. The Store contract (atomicity, ordering,
//! sessions, concurrency, ...) is checked on every backend by `lore-conformance`
//! (`tests/store_sqlite.rs`, on a fresh file per case).

use lore_backend_sqlite::SqliteStore;
use lore_core::model::*;
use lore_core::store::prelude::*;
use lore_core::store::{Batch, Op, Scope};
use lore_core::{ObjectId, Result};

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
