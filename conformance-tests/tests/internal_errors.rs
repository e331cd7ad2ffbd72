//! An internal failure helps without telling: the client gets a fixed message with a
//! reference; the server's log has that reference with the whole cause chain. Made real
//! by taking a table away from under a running server on SQLite.

use std::io::Write;
use std::sync::{Arc, Mutex};

use lore_backend_sqlite::SqliteStore;
use lore_conformance::harness::assert_error;
use lore_conformance::{Backend, Target};

/// Everything the server logged, for the one test of this binary.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl Write for Log {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Log {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap_or_else(|e| e.into_inner())).into_owned()
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_internal_failure_is_logged_whole_and_answered_with_a_reference() {
    let log = Log::default();
    let writer = log.clone();
    tracing_subscriber::fmt()
        .with_writer(move || writer.clone())
        .with_ansi(false)
        .init();

    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("lore.db");
    let store = SqliteStore::open(&path)
        .await
        .expect("opening the SQLite store");
    let t = Target::spawn_backend(Backend::new(Arc::new(store)), |_| {}).await;
    let resp = t.get("/worksheets").await;
    resp.ok();

    // The database loses a table behind the server's back.
    rusqlite::Connection::open(&path)
        .expect("opening the database")
        .execute_batch("DROP TABLE worksheets")
        .expect("dropping the table");

    let resp = t.get("/worksheets").await;
    assert_error(&resp, 500, "SERVER_ERROR");
    let message = resp.message();
    let reference = message
        .strip_prefix("internal error (reference ")
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("a fixed message with a reference: {message}"));
    for secret in [
        "worksheets",
        "no such table",
        "storage",
        "lore.db",
        "SELECT",
    ] {
        assert!(
            !message.contains(secret),
            "the client reads '{secret}': {message}"
        );
    }
    let dir_text = dir.path().display().to_string();
    assert!(!message.contains(&dir_text), "{message}");

    let logged = log.text();
    let line = logged
        .lines()
        .find(|l| l.contains(reference))
        .unwrap_or_else(|| panic!("no log line holds reference {reference}:\n{logged}"));
    assert!(
        line.contains("no such table") && line.contains("SERVER_ERROR"),
        "the log line has the whole cause chain: {line}"
    );
    t.shutdown().await;
}
