//! What only the PostgreSQL store shows, each test on a fresh database (the shared Store
//! contract runs in `store_postgres.rs`): migrations, several processes over one
//! database, what the database cannot hold, and values changed behind the store's back.
//!
//! Tests skip when PostgreSQL is not reachable (and fail under `CI=true`); see
//! `lore_conformance::postgres`.

use std::collections::BTreeSet;
use std::sync::Arc;

use lore_backend_postgres::PostgresStore;
use lore_conformance::postgres::TestDatabase;
use lore_core::id::REPOSITORY_MODEL;
use lore_core::model::*;
use lore_core::store::prelude::*;
use lore_core::store::{Batch, Op};
use lore_core::{ErrorCode, ObjectId};
use sqlx::{Connection, PgConnection};

/// A fresh database and a store over it, or `None` when PostgreSQL is not reachable.
async fn fresh() -> Option<(TestDatabase, PostgresStore)> {
    let db = TestDatabase::create().await?;
    let store = match PostgresStore::open(&db.url).await {
        Ok(store) => store,
        Err(err) => panic!("connecting to a fresh database: {err}"),
    };
    Some((db, store))
}

/// A raw connection to the test database, to look behind the store.
async fn raw(db: &TestDatabase) -> PgConnection {
    match PgConnection::connect(&db.url).await {
        Ok(connection) => connection,
        Err(err) => panic!("connecting to {}: {err}", db.name),
    }
}

fn folder(object: i64, name: &str) -> Object {
    Object::new(
        ObjectId::repository(object),
        ObjectKind::Folder,
        TypeName::new(REPOSITORY_PROFILE, ObjectKind::Folder.as_str()),
        SystemType::Namespace,
        name,
    )
}

async fn apply(store: &PostgresStore, ops: Vec<Op>) {
    if let Err(err) = store.apply(Batch::from(ops)).await {
        panic!("apply failed: {err}");
    }
}

#[tokio::test]
async fn migrations_run_once_and_are_recorded() {
    let Some(db) = TestDatabase::create().await else {
        return;
    };
    // Several processes starting together: the advisory lock lets one migrate.
    let starts = (0..4).map(|_| {
        let url = db.url.clone();
        async move { PostgresStore::open(&url).await.map(|_| ()) }
    });
    for started in join_all(starts).await {
        if let Err(err) = started {
            panic!("a concurrent start failed: {err}");
        }
    }
    let mut conn = raw(&db).await;
    let read = "SELECT version, name, applied_at FROM lore_schema ORDER BY version";
    let recorded: Vec<(i64, String, i64)> = sqlx::query_as(read)
        .fetch_all(&mut conn)
        .await
        .unwrap_or_else(|e| panic!("reading lore_schema: {e}"));
    let versions: Vec<i64> = recorded.iter().map(|r| r.0).collect();
    assert!(!versions.is_empty(), "migrations are recorded");
    assert_eq!(
        versions,
        lore_backend_sql::MIGRATIONS
            .iter()
            .map(|m| m.version)
            .collect::<Vec<_>>(),
        "each migration is recorded once, in order"
    );

    // A later start finds nothing to do.
    if let Err(err) = PostgresStore::open(&db.url).await {
        panic!("a second start failed: {err}");
    }
    let again: Vec<(i64, String, i64)> = sqlx::query_as(read)
        .fetch_all(&mut conn)
        .await
        .unwrap_or_else(|e| panic!("reading lore_schema: {e}"));
    assert_eq!(again, recorded, "a second start applies nothing");
}

#[tokio::test]
async fn a_newer_schema_is_refused() {
    let Some((db, store)) = fresh().await else {
        return;
    };
    store.driver().close().await;
    let mut conn = raw(&db).await;
    sqlx::query(
        "INSERT INTO lore_schema (version, name, applied_at) VALUES (999, 'from the future', 0)",
    )
    .execute(&mut conn)
    .await
    .unwrap_or_else(|e| panic!("recording a newer version: {e}"));
    match PostgresStore::open(&db.url).await {
        Ok(_) => panic!("a database at a newer schema version was used"),
        Err(err) => {
            assert_eq!(err.code, ErrorCode::ServerError);
            assert!(
                err.message.contains("999") && err.message.contains("newer"),
                "unclear refusal: {err}"
            );
        }
    }
}

#[tokio::test]
async fn connection_errors_name_the_host_but_not_the_password() {
    let err = match PostgresStore::open("postgres://lore:s3cr3t-pw@127.0.0.1:1/lore").await {
        Ok(_) => panic!("connected to a closed port"),
        Err(err) => err,
    };
    assert!(
        err.message.contains("127.0.0.1:1"),
        "the error names the host: {err}"
    );
    assert!(
        !err.message.contains("s3cr3t-pw"),
        "the error leaks the password: {err}"
    );
    let err = match PostgresStore::open("not a url").await {
        Ok(_) => panic!("connected with a bad URL"),
        Err(err) => err,
    };
    assert!(err.message.contains("URL"), "a bad URL is named: {err}");
}

#[tokio::test]
async fn reserve_ids_never_repeats_across_stores() {
    let Some((db, first)) = fresh().await else {
        return;
    };
    let second = PostgresStore::open(&db.url)
        .await
        .unwrap_or_else(|e| panic!("second store: {e}"));
    assert_eq!(
        first.reserve_ids(42, 0).await.ok(),
        Some(1),
        "a new id space starts at 1"
    );
    let stores: Vec<Arc<dyn Store>> = vec![Arc::new(first), Arc::new(second)];
    let mut tasks = Vec::new();
    for task in 0..16u64 {
        let store = stores[(task % 2) as usize].clone();
        tasks.push(tokio::spawn(async move {
            let mut ranges = Vec::new();
            for round in 0..10u64 {
                let count = 1 + (task + round) % 4;
                match store.reserve_ids(42, count).await {
                    Ok(first) => ranges.push((first, count)),
                    Err(err) => panic!("reserve_ids: {err}"),
                }
            }
            ranges
        }));
    }
    let mut taken = BTreeSet::new();
    let mut total = 0;
    for task in tasks {
        let ranges = task.await.unwrap_or_else(|e| panic!("a task failed: {e}"));
        for (first, count) in ranges {
            for id in first..first + count as i64 {
                assert!(taken.insert(id), "id {id} was handed out twice");
            }
            total += count as i64;
        }
    }
    assert_eq!(
        taken,
        (1..=total).collect(),
        "reservations are consecutive from 1 without gaps"
    );
    assert_eq!(
        stores[0].reserve_ids(REPOSITORY_MODEL, 2).await.ok(),
        Some(1),
        "id spaces are independent"
    );
}

#[tokio::test]
async fn stores_over_one_database_share_sessions() {
    let Some((db, a)) = fresh().await else { return };
    let b = PostgresStore::open(&db.url)
        .await
        .unwrap_or_else(|e| panic!("second store: {e}"));
    let now = now();
    let session = Session {
        key_hash: "shared-hash".into(),
        user: ObjectId::repository(1),
        created_at: now,
        expires_at: now + chrono::Duration::minutes(30),
        last_seen_at: now,
    };
    a.put_session(session.clone())
        .await
        .unwrap_or_else(|e| panic!("put_session: {e}"));
    assert_eq!(
        b.session("shared-hash", now).await.ok(),
        Some(Some(session)),
        "another process sees the session"
    );
    b.delete_session("shared-hash")
        .await
        .unwrap_or_else(|e| panic!("delete_session: {e}"));
    assert_eq!(
        a.session("shared-hash", now).await.ok(),
        Some(None),
        "a logout elsewhere ends the session here"
    );
}

#[tokio::test]
async fn unknown_database_values_are_internal_errors() {
    let Some((db, store)) = fresh().await else {
        return;
    };
    apply(&store, vec![Op::PutObject(folder(1, "f"))]).await;
    let mut conn = raw(&db).await;
    sqlx::query("UPDATE objects SET kind = 'Spaceship'")
        .execute(&mut conn)
        .await
        .unwrap_or_else(|e| panic!("corrupting a kind: {e}"));
    // The store's own read of a row it cannot understand.
    #[allow(clippy::disallowed_methods)]
    let read = store.object(ObjectId::repository(1)).await;
    match read {
        Ok(object) => panic!("an unknown kind was read: {object:?}"),
        Err(err) => {
            assert_eq!(err.code, ErrorCode::ServerError);
            assert!(
                err.message.contains("objects") && err.message.contains("Spaceship"),
                "{err}"
            );
        }
    }
}

/// Runs the futures concurrently on the test's runtime.
async fn join_all<F>(futures: impl Iterator<Item = F>) -> Vec<F::Output>
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    let handles: Vec<_> = futures.map(tokio::spawn).collect();
    let mut outputs = Vec::new();
    for handle in handles {
        outputs.push(
            handle
                .await
                .unwrap_or_else(|e| panic!("a task failed: {e}")),
        );
    }
    outputs
}

/// Takes the database back to before migration 34 (history): its triggers, functions,
/// tables, sequence and columns go, migration 38's (the history of curation and grants),
/// 36's row and 35's table (model versions) first; its indexes go with the columns.
async fn undo_migration_34(conn: &mut PgConnection) {
    let mut statements = vec![
        "DROP TRIGGER curation_history_update ON curation".to_owned(),
        "DROP FUNCTION lore_curation_history_update()".to_owned(),
    ];
    for table in ["curation", "grants"] {
        statements.push(format!("DROP TRIGGER {table}_history_delete ON {table}"));
        statements.push(format!("DROP FUNCTION lore_{table}_history_delete()"));
        statements.push(format!("DROP TABLE {table}_history"));
        statements.push(format!("ALTER TABLE {table} DROP COLUMN valid_from"));
    }
    statements.extend([
        "DELETE FROM versions WHERE name = 'history_floor'".to_owned(),
        "DROP TABLE import_versions".to_owned(),
        "DROP TABLE catalog_versions".to_owned(),
        "DROP SEQUENCE history_stamps".to_owned(),
    ]);
    for table in [
        "objects",
        "attribute_values",
        "edges",
        "tags",
        "classifications",
        "label_assignments",
    ] {
        for event in ["update", "delete"] {
            statements.push(format!("DROP TRIGGER {table}_history_{event} ON {table}"));
            statements.push(format!("DROP FUNCTION lore_{table}_history_{event}()"));
        }
        statements.push(format!("DROP TABLE {table}_history"));
        statements.push(format!("ALTER TABLE {table} DROP COLUMN valid_from"));
    }
    for statement in statements {
        sqlx::query(sqlx::AssertSqlSafe(statement.as_str()))
            .execute(&mut *conn)
            .await
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
}

/// Takes the database back to before migration 31 (the value tallies, placed rows and
/// described objects): its triggers, functions, table, indexes and columns go, and
/// `object_tallies` is made again as migration 16 made it; migration 32 (the journal of
/// changes) goes first. Tests that undo an earlier migration run this first: 31 and 32
/// are applied again with it.
async fn undo_migration_31(conn: &mut PgConnection) {
    undo_migration_34(conn).await;
    let mut statements = vec![
        "DROP TABLE catalog_changes".to_owned(),
        "DELETE FROM versions WHERE name = 'catalog_changes'".to_owned(),
    ];
    for (trigger, table) in [
        ("tags", "tags"),
        ("classifications", "classifications"),
        ("labels", "label_assignments"),
        ("sensitivity", "sensitivity_labels"),
        ("curation", "curation"),
    ] {
        for event in ["insert", "delete", "update"] {
            statements.push(format!(
                "DROP TRIGGER value_tallies_{trigger}_{event} ON {table}"
            ));
        }
    }
    for function in ["tags", "classes", "labels", "definitions", "curation"] {
        for event in ["inserted", "deleted", "updated"] {
            statements.push(format!(
                "DROP FUNCTION lore_value_tally_{function}_{event}()"
            ));
        }
    }
    for statement in [
        "DROP FUNCTION lore_value_tally_labels(label_assignments[], label_assignments[])",
        "DROP FUNCTION lore_value_tally_definitions(sensitivity_labels[], sensitivity_labels[])",
        "DROP FUNCTION lore_value_tally_curation(curation[], curation[])",
        "DROP TABLE value_tallies",
        "DROP INDEX classifications_unplaced",
        "DROP INDEX label_assignments_unplaced",
        "DROP INDEX curation_unplaced",
        "DROP INDEX curation_unplaced_user",
        "ALTER TABLE classifications DROP COLUMN placed",
        "ALTER TABLE label_assignments DROP COLUMN placed",
        "ALTER TABLE curation DROP COLUMN placed",
        "DROP TRIGGER object_tallies_insert ON objects",
        "DROP TRIGGER object_tallies_delete ON objects",
        "DROP TRIGGER object_tallies_update ON objects",
        "DROP FUNCTION lore_tally_inserted()",
        "DROP FUNCTION lore_tally_deleted()",
        "DROP FUNCTION lore_tally_updated()",
        "DROP TABLE object_tallies",
        "DELETE FROM lore_schema WHERE version >= 31",
    ] {
        statements.push(statement.to_owned());
    }
    for statement in statements {
        sqlx::query(sqlx::AssertSqlSafe(statement.as_str()))
            .execute(&mut *conn)
            .await
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    let tallies = lore_backend_sql::MIGRATIONS
        .iter()
        .find(|m| m.version == 16)
        .map(|m| lore_backend_sql::Dialect::Postgres.schema(m.sql))
        .unwrap_or_default();
    sqlx::raw_sql(sqlx::AssertSqlSafe(tallies))
        .execute(&mut *conn)
        .await
        .unwrap_or_else(|e| panic!("migration 16 again: {e}"));
}

/// Migration 29 on a database written before it: users without a password are to be
/// linked at their next sign-in, users with one are not linked (as on SQLite, in
/// `backends/sqlite/tests/store.rs`). The database before it is made by undoing
/// migrations 29 and 30 on a fresh one.
#[tokio::test]
async fn users_without_a_password_before_migration_29_are_linked_at_their_next_sign_in() {
    let Some((db, store)) = fresh().await else {
        return;
    };
    let user = |object: i64, name: &str, password: Option<&str>| User {
        id: ObjectId::repository(object),
        name: name.to_owned(),
        full_name: String::new(),
        email: String::new(),
        description: String::new(),
        password_hash: password.map(str::to_owned),
        enabled: true,
        created_at: now(),
        external: None,
    };
    apply(
        &store,
        vec![
            Op::PutUser(user(1, "oidc-user", None)),
            Op::PutUser(user(2, "ann", Some("$argon2id$fake"))),
        ],
    )
    .await;
    drop(store);
    let mut conn = raw(&db).await;
    undo_migration_31(&mut conn).await;
    for statement in [
        "DROP INDEX users_external",
        "ALTER TABLE users DROP COLUMN external_issuer",
        "ALTER TABLE users DROP COLUMN external_subject",
        "ALTER TABLE edges DROP COLUMN origin",
        "DELETE FROM lore_schema WHERE version >= 29",
    ] {
        sqlx::query(statement)
            .execute(&mut conn)
            .await
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    let store = PostgresStore::open(&db.url)
        .await
        .unwrap_or_else(|e| panic!("migrating: {e}"));
    let external = async |object: i64| {
        store
            .user(ObjectId::repository(object))
            .await
            .unwrap_or_else(|e| panic!("reading user {object}: {e}"))
            .and_then(|u| u.external)
    };
    assert_eq!(external(1).await, Some(ExternalLink::AtNextSignIn));
    assert_eq!(external(2).await, None);
}

/// Migration 30 on a database written before it: the lineage edges the intake made,
/// told by their job's name as they were then (`ns/job` for a table edge, `ns/job (`
/// and more for a column edge), get their job as origin; an edge of another name between
/// the same objects (a job whose name only starts the same, a data mapping) gets none.
/// The database before it is made by posting an event and undoing migration 30.
#[tokio::test]
async fn intake_edges_written_before_migration_30_get_their_job_as_origin() {
    use lore_core::catalog::CatalogConfig;
    use serde_json::json;

    let Some((db, store)) = fresh().await else {
        return;
    };
    let store: Arc<dyn lore_core::Store> = Arc::new(store);
    let catalog = lore_core::Catalog::new(Arc::clone(&store), CatalogConfig::default());
    catalog
        .identity()
        .bootstrap(Some("a-long-enough-password"))
        .await
        .expect("bootstrap");
    let key = catalog
        .identity()
        .login("Administrator", "a-long-enough-password", false)
        .await
        .expect("login");
    let caller = catalog
        .identity()
        .authenticate(&key)
        .await
        .expect("the administrator");
    let dataset = |name: &str| json!({"namespace": "postgres://db:5432", "name": name});
    let mut output = dataset("shop.public.daily");
    output["facets"]["schema"] = json!({
        "_producer": "https://example.com/producer",
        "_schemaURL": "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet",
        "fields": [{"name": "total", "type": "numeric"}]
    });
    output["facets"]["columnLineage"] = json!({
        "_producer": "https://example.com/producer",
        "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet",
        "fields": {"total": {"inputFields": [{
            "namespace": "postgres://db:5432", "name": "shop.public.orders", "field": "amount",
            "transformations": [{"type": "DIRECT", "subtype": "AGGREGATION"}]
        }]}}
    });
    let event = json!({
        "eventType": "COMPLETE",
        "eventTime": "2026-11-01T00:00:00Z",
        "producer": "https://example.com/producer",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": "0b1c2d3e-4f50-4a61-8b72-93a4b5c6d7e8"},
        "job": {"namespace": "etl", "name": "daily"},
        "inputs": [dataset("shop.public.orders")],
        "outputs": [output]
    });
    let answer = catalog
        .lineage()
        .accept_lineage_event(&caller, &event)
        .await
        .expect("the event");
    assert_eq!(answer.status, "accepted", "{answer:?}");
    let mut conn = raw(&db).await;
    let edges = async |conn: &mut PgConnection| -> Vec<(String, Option<String>)> {
        sqlx::query_as::<_, (String, Option<String>)>(
            "SELECT name, origin FROM edges WHERE kind = 'lineage' ORDER BY name",
        )
        .fetch_all(conn)
        .await
        .unwrap_or_else(|e| panic!("reading the edges: {e}"))
    };
    let made = edges(&mut conn).await;
    let (name, origin) = made.first().expect("the job's table edge").clone();
    assert_eq!(
        (name.as_str(), origin.as_deref()),
        ("etl/daily", Some("etl/daily"))
    );
    // Edges of other names between the same objects, as an older Lore kept them.
    for other in ["etl/daily2", "mapping: orders to daily"] {
        sqlx::query(
            "INSERT INTO edges (kind, source_model, source_object, target_model, target_object, name) \
             SELECT kind, source_model, source_object, target_model, target_object, $1 \
             FROM edges WHERE name = 'etl/daily'",
        )
        .bind(other)
        .execute(&mut conn)
        .await
        .unwrap_or_else(|e| panic!("adding '{other}': {e}"));
    }
    undo_migration_31(&mut conn).await;
    for statement in [
        "ALTER TABLE edges DROP COLUMN origin",
        "DELETE FROM lore_schema WHERE version >= 30",
    ] {
        sqlx::query(statement)
            .execute(&mut conn)
            .await
            .unwrap_or_else(|e| panic!("{statement}: {e}"));
    }
    drop(store);
    drop(catalog);
    drop(
        PostgresStore::open(&db.url)
            .await
            .unwrap_or_else(|e| panic!("migrating: {e}")),
    );
    let after = edges(&mut conn).await;
    let origin_of = |name: &str| {
        after
            .iter()
            .find(|(n, _)| n == name)
            .unwrap_or_else(|| panic!("no edge '{name}' in {after:?}"))
            .1
            .clone()
    };
    assert_eq!(origin_of("etl/daily").as_deref(), Some("etl/daily"));
    assert_eq!(origin_of("etl/daily2"), None, "another job's name");
    assert_eq!(
        origin_of("mapping: orders to daily"),
        None,
        "a data mapping"
    );
    let columns: Vec<_> = after
        .iter()
        .filter(|(name, _)| name.starts_with("etl/daily ("))
        .collect();
    assert!(!columns.is_empty(), "the job's column edge: {after:?}");
    for (name, origin) in columns {
        assert_eq!(origin.as_deref(), Some("etl/daily"), "{name}");
    }
}
