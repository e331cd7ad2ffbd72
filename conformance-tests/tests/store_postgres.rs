//! The `Store` contract against PostgreSQL: one test per case, each on a fresh database
//! dropped afterwards (what only PostgreSQL shows is in `postgres_only.rs`).
//!
//! Cases skip when PostgreSQL is not reachable (and fail under `CI=true`); see
//! `lore_conformance::postgres`.

use std::sync::Arc;

use lore_backend_postgres::PostgresStore;
use lore_conformance::Backend;
use lore_conformance::postgres::TestDatabase;

fn main() -> std::process::ExitCode {
    lore_conformance::store_suite(|| async {
        let db = TestDatabase::create().await?;
        let store = PostgresStore::open(&db.url)
            .await
            .expect("connecting to the test database");
        Some(Backend::new(Arc::new(store)).keep(db))
    })
}
