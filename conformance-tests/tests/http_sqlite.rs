//! The HTTP suite against SQLite: a fresh database file in a temporary directory per
//! case, the directory kept until the server has stopped.

use std::sync::Arc;

use lore_backend_sqlite::SqliteStore;
use lore_conformance::Backend;

fn main() -> std::process::ExitCode {
    lore_conformance::http_suite(|| async {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let store = SqliteStore::open(&dir.path().join("lore.db"))
            .await
            .expect("opening the SQLite store");
        Backend::new(Arc::new(store)).keep(dir)
    })
}
