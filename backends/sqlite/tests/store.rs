//! Behaviour only the SQLite store has: a database file that reopens with its data, and
//! migrations that refuse a newer schema. The Store contract (atomicity, ordering,
//! sessions, concurrency, ...) is checked on every backend by `lore-conformance`
//! (`tests/store_sqlite.rs`, on a fresh file per case).

// The store's own reads, checked after a reopen and a migration.
#![allow(clippy::disallowed_methods)]

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
        external: None,
    }
}

/// Takes the database back to before migration 34 (history): migration 35 first, then
/// its triggers, tables and columns go.
fn undo_migration_34(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    undo_migration_35(conn)?;
    for table in [
        "objects",
        "attribute_values",
        "edges",
        "tags",
        "classifications",
        "label_assignments",
    ] {
        conn.execute_batch(&format!(
            "DROP TRIGGER {table}_history_update; DROP TRIGGER {table}_history_delete;
             DROP TABLE {table}_history; ALTER TABLE {table} DROP COLUMN valid_from;"
        ))?;
    }
    conn.execute_batch(
        "DROP TABLE catalog_versions; DELETE FROM versions WHERE name = 'history_stamp';",
    )
}

/// Takes the database back to before migration 35 (model versions, and the indexes of
/// the rows each revision wrote), and 38 (the history of curation and grants) and 36
/// (the floor of the history) first.
fn undo_migration_35(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    for table in ["curation", "grants"] {
        conn.execute_batch(&format!(
            "DROP TRIGGER IF EXISTS {table}_history_update; DROP TRIGGER {table}_history_delete;
             DROP TABLE {table}_history; ALTER TABLE {table} DROP COLUMN valid_from;"
        ))?;
    }
    conn.execute_batch(
        "DELETE FROM versions WHERE name = 'history_floor'; DROP TABLE import_versions;",
    )?;
    for table in [
        "objects",
        "attribute_values",
        "edges",
        "tags",
        "classifications",
        "label_assignments",
    ] {
        conn.execute_batch(&format!(
            "DROP INDEX {table}_from; DROP INDEX {table}_history_from;"
        ))?;
    }
    Ok(())
}

/// Takes the database at `path` back to before migration 31 (the value tallies, placed
/// rows and described objects): its triggers, table, indexes and columns go, and
/// `object_tallies` is made again as migration 16 made it; migration 32 (the journal of
/// changes) goes first. Tests that undo an earlier migration run this first: 31 and 32
/// are applied again with it.
fn undo_migration_31(conn: &rusqlite::Connection) -> rusqlite::Result<()> {
    undo_migration_34(conn)?;
    conn.execute_batch(
        "DROP TABLE catalog_changes; DELETE FROM versions WHERE name = 'catalog_changes';",
    )?;
    for table in [
        "tags",
        "classifications",
        "labels",
        "sensitivity",
        "curation",
    ] {
        for event in ["insert", "delete", "update"] {
            conn.execute_batch(&format!("DROP TRIGGER value_tallies_{table}_{event};"))?;
        }
    }
    conn.execute_batch(
        "DROP TABLE value_tallies;
         DROP INDEX classifications_unplaced; DROP INDEX label_assignments_unplaced;
         DROP INDEX curation_unplaced; DROP INDEX curation_unplaced_user;
         ALTER TABLE classifications DROP COLUMN placed;
         ALTER TABLE label_assignments DROP COLUMN placed;
         ALTER TABLE curation DROP COLUMN placed;
         DROP TRIGGER object_tallies_insert; DROP TRIGGER object_tallies_delete;
         DROP TRIGGER object_tallies_update; DROP TABLE object_tallies;",
    )?;
    let tallies = lore_backend_sql::MIGRATIONS
        .iter()
        .find(|m| m.version == 16)
        .map(|m| lore_backend_sql::Dialect::Sqlite.schema(m.sql))
        .unwrap_or_default();
    conn.execute_batch(&tallies)?;
    conn.execute_batch("DELETE FROM lore_schema WHERE version >= 31;")
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

/// Migration 21 on a database written before it: tags get their folded value, their
/// object's type and name and the mark of the first of each group folding alike, and
/// the objects' import prints stay. The database before it is made by undoing the
/// migration on a fresh one and writing rows as version 20 wrote them.
#[tokio::test]
async fn tags_written_before_migration_21_are_ordered_after_it() -> Result<()> {
    let internal = |e: rusqlite::Error| lore_core::Error::internal(e.to_string());
    let dir = tempfile::tempdir().map_err(|e| lore_core::Error::internal(e.to_string()))?;
    let path = dir.path().join("lore.db");
    let store = SqliteStore::open(&path).await?;
    store
        .apply(Batch::from(vec![
            Op::PutObject(column(2, 1, None, "b")),
            Op::PutObject(column(2, 2, None, "a")),
        ]))
        .await?;
    drop(store);
    let conn = rusqlite::Connection::open(&path).map_err(internal)?;
    undo_migration_31(&conn).map_err(internal)?;
    conn.execute_batch(
        "DROP INDEX tags_order; DROP TRIGGER tags_follow_object; DROP TRIGGER tags_fold_first;
         ALTER TABLE tags DROP COLUMN value_fold; ALTER TABLE tags DROP COLUMN type_fold;
         ALTER TABLE tags DROP COLUMN object_name; ALTER TABLE tags DROP COLUMN fold_first;
         CREATE INDEX tags_value ON tags (kind, value);
         DELETE FROM versions WHERE name IN ('access', 'catalog');
         DROP TABLE lineage_events; DROP TABLE lineage_runs;
         DROP TRIGGER object_search_insert; DROP TRIGGER object_search_delete;
         DROP TRIGGER object_search_update; DROP TABLE object_search; DROP TABLE model_versions;
         DROP INDEX users_external; ALTER TABLE users DROP COLUMN external_issuer;
         ALTER TABLE users DROP COLUMN external_subject; ALTER TABLE edges DROP COLUMN origin;
         DELETE FROM lore_schema WHERE version >= 21;
         INSERT INTO tags VALUES (2, 1, 'label', 'PII'), (2, 1, 'label', 'pii'),
             (2, 1, 'label', 'Gold'), (2, 2, 'label', 'Pii'), (2, 3, 'label', 'x');
         INSERT INTO import_prints VALUES (2, 1, 1, 42);",
    )
    .map_err(internal)?;
    drop(conn);
    drop(SqliteStore::open(&path).await?);
    let conn = rusqlite::Connection::open(&path).map_err(internal)?;
    let mut statement = conn
        .prepare(
            "SELECT object_id, value, value_fold, type_fold, object_name, fold_first FROM tags \
             ORDER BY object_id, value",
        )
        .map_err(internal)?;
    type Tagged = (i64, String, String, Option<String>, Option<String>, bool);
    let rows: Vec<Tagged> = statement
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })
        .map_err(internal)?
        .collect::<rusqlite::Result<_>>()
        .map_err(internal)?;
    let row = |o: i64, v: &str, f: &str, t: Option<&str>, n: Option<&str>, first: bool| {
        (
            o,
            v.to_owned(),
            f.to_owned(),
            t.map(str::to_owned),
            n.map(str::to_owned),
            first,
        )
    };
    assert_eq!(
        rows,
        vec![
            row(1, "Gold", "gold", Some("column"), Some("b"), true),
            row(1, "PII", "pii", Some("column"), Some("b"), true),
            row(1, "pii", "pii", Some("column"), Some("b"), false),
            row(2, "Pii", "pii", Some("column"), Some("a"), true),
            // No object 3: no type or name until it is written.
            row(3, "x", "x", None, None, true),
        ]
    );
    let prints: i64 = conn
        .query_row("SELECT COUNT(*) FROM import_prints", [], |r| r.get(0))
        .map_err(internal)?;
    assert_eq!(prints, 1, "filling the columns changes no object");
    Ok(())
}

/// Migration 29 on a database written before it: the users without a password (made at
/// a first OAuth 2.0 sign-in, when a sign-in took whichever account its name claim
/// named) are to be linked at their next sign-in; users with a password are not linked.
#[tokio::test]
async fn users_without_a_password_before_migration_29_are_linked_at_their_next_sign_in()
-> Result<()> {
    let internal = |e: rusqlite::Error| lore_core::Error::internal(e.to_string());
    let dir = tempfile::tempdir().map_err(|e| lore_core::Error::internal(e.to_string()))?;
    let path = dir.path().join("lore.db");
    let store = SqliteStore::open(&path).await?;
    let mut without_password = user(1, "oidc-user");
    without_password.password_hash = None;
    store
        .apply(Batch::from(vec![
            Op::PutUser(without_password),
            Op::PutUser(user(2, "ann")),
        ]))
        .await?;
    drop(store);
    let conn = rusqlite::Connection::open(&path).map_err(internal)?;
    undo_migration_31(&conn).map_err(internal)?;
    conn.execute_batch(
        "DROP INDEX users_external; ALTER TABLE users DROP COLUMN external_issuer;
         ALTER TABLE users DROP COLUMN external_subject; ALTER TABLE edges DROP COLUMN origin;
         DELETE FROM lore_schema WHERE version >= 29;",
    )
    .map_err(internal)?;
    drop(conn);
    let store = SqliteStore::open(&path).await?;
    assert_eq!(
        store
            .user(ObjectId::repository(1))
            .await?
            .and_then(|u| u.external),
        Some(ExternalLink::AtNextSignIn)
    );
    assert_eq!(
        store
            .user(ObjectId::repository(2))
            .await?
            .and_then(|u| u.external),
        None
    );
    Ok(())
}
