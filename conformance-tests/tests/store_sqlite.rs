//! The `Store` contract against SQLite: one test per case, each on a fresh database
//! file (so WAL mode is in play) in a temporary directory kept until the case is done.

use std::sync::Arc;

use lore_backend_sqlite::SqliteStore;
use lore_conformance::Backend;

fn main() -> std::process::ExitCode {
    lore_conformance::store_suite(|| async {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = SqliteStore::open(&dir.path().join("lore.db"))
            .await
            .expect("opening the SQLite store");
        Backend::new(Arc::new(store)).keep(dir)
    })
}
