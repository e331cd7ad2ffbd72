//! The web UI in Chromium, on SQLite and PostgreSQL: every screen, the sight rule on
//! every screen and download by page source (for a viewer of another model and a user
//! without rights), axe-core on every screen as the administrator and as a user who is
//! none (`lore_conformance::ui_cases`). One case on one backend: `-- sqlite::<case>`.
//! Without Chromium and chromedriver the cases print why and pass, except under
//! `CI=true`.

use std::sync::Arc;

use lore_backend_postgres::PostgresStore;
use lore_backend_sqlite::SqliteStore;
use lore_conformance::Backend;
use lore_conformance::postgres::TestDatabase;

async fn backend(name: &'static str) -> Option<Backend> {
    match name {
        "sqlite" => {
            let dir = tempfile::tempdir().expect("a temporary directory");
            let store = SqliteStore::open(&dir.path().join("lore.db"))
                .await
                .expect("opening the SQLite store");
            Some(Backend::new(Arc::new(store)).keep(dir))
        }
        _ => {
            let db = TestDatabase::create().await?;
            let store = PostgresStore::open(&db.url)
                .await
                .expect("connecting to the test database");
            Some(Backend::new(Arc::new(store)).keep(db))
        }
    }
}

fn main() -> std::process::ExitCode {
    lore_conformance::ui_cases::suite(&["sqlite", "postgres"], backend)
}
