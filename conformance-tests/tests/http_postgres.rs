//! The HTTP suite against PostgreSQL: a fresh database per case, dropped afterwards.
//! Without a reachable server every case says so and passes (under `CI=true`,
//! `TestDatabase::create` fails instead).

use std::sync::Arc;

use lore_backend_postgres::PostgresStore;
use lore_conformance::Backend;
use lore_conformance::postgres::TestDatabase;

fn main() -> std::process::ExitCode {
    lore_conformance::http_suite(|| async {
        let db = TestDatabase::create().await?;
        let store = PostgresStore::open(&db.url)
            .await
            .expect("connecting to the test database");
        Some(Backend::new(Arc::new(store)).keep(db))
    })
}
