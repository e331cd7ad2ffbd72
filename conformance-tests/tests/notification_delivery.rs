//! Delivery of notifications beyond the API (spec 6): each event is POSTed to every
//! configured webhook, signed with HMAC-SHA256 and retried with back-off until it is
//! taken, and e-mailed over SMTP to each notified user with an address; the outbox is in
//! the store, so what was not delivered when Lore stopped goes out after a restart.
//! Against a real local webhook receiver and SMTP sink ([`lore_conformance::sinks`]).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use lore_backend_postgres::PostgresStore;
use lore_backend_sqlite::SqliteStore;
use lore_conformance::notify::{change, watched_model};
use lore_conformance::postgres::TestDatabase;
use lore_conformance::sinks::{SmtpSink, WebhookReceiver};
use lore_conformance::{Backend, Target};
use lore_core::model::DeliveryState;
use lore_server::Settings;
use lore_server::config::{SmtpSettings, WebhookSettings};
use lore_server::delivery::signature;
use serde_json::{Value, json};

const SECRET: &str = "webhook-secret-of-the-tests";

/// Fast retries and polling, a webhook at `url` and, with a port, the SMTP sink.
fn configure(settings: &mut Settings, url: &str, smtp: Option<u16>, max_attempts: u32) {
    let n = &mut settings.notifications;
    n.webhooks = vec![WebhookSettings {
        name: "ops".into(),
        url: url.into(),
        secret: Some(SECRET.into()),
        secret_file: None,
    }];
    n.smtp = smtp.map(|port| SmtpSettings {
        host: "127.0.0.1".into(),
        port: Some(port),
        from: "Lore <lore@example.com>".into(),
        username: None,
        password: None,
        tls: "none".into(),
    });
    n.retry_initial = "100ms".into();
    n.retry_max = "400ms".into();
    n.poll_interval = "50ms".into();
    n.timeout = "5s".into();
    n.max_attempts = max_attempts;
}

async fn sqlite(path: &Path) -> Backend {
    Backend::new(Arc::new(
        SqliteStore::open(path).await.expect("opening SQLite"),
    ))
}

async fn deliveries(t: &Target, state: Option<&str>) -> Vec<Value> {
    let query: Vec<(&str, &str)> = state.map(|s| vec![("state", s)]).unwrap_or_default();
    t.get_q("/admin/notificationDeliveries", &query)
        .await
        .ok_array()
        .to_vec()
}

/// The stores the delivery runs over: a reopenable one (its path or URL) of each backend.
enum Kind {
    Memory,
    Sqlite,
    Postgres,
}

/// A store of the kind and what reopens it: the SQLite file's directory, or the
/// PostgreSQL database; `None` when PostgreSQL is unreachable.
async fn store_of(kind: Kind) -> Option<(Backend, Reopen)> {
    match kind {
        Kind::Memory => Some((
            Backend::new(Arc::new(lore_backend_memory::MemoryStore::new())),
            Reopen::Nothing,
        )),
        Kind::Sqlite => {
            let dir = tempfile::tempdir().expect("a temporary directory");
            let backend = sqlite(&dir.path().join("lore.db")).await;
            Some((backend, Reopen::Sqlite(dir)))
        }
        Kind::Postgres => {
            let Some(db) = TestDatabase::create().await else {
                eprintln!("skipping PostgreSQL: no database server reachable");
                return None;
            };
            let store = PostgresStore::open(&db.url).await.expect("PostgreSQL");
            Some((Backend::new(Arc::new(store)), Reopen::Postgres(db)))
        }
    }
}

/// How to open the same store again after the server over it stopped.
enum Reopen {
    Nothing,
    Sqlite(tempfile::TempDir),
    Postgres(TestDatabase),
}

impl Reopen {
    async fn open(&self) -> Backend {
        match self {
            Reopen::Nothing => panic!("a memory store does not outlive its server"),
            Reopen::Sqlite(dir) => sqlite(&dir.path().join("lore.db")).await,
            Reopen::Postgres(db) => Backend::new(Arc::new(
                PostgresStore::open(&db.url).await.expect("PostgreSQL"),
            )),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_are_signed_and_retried_and_users_are_emailed_memory() {
    signed_retried_and_emailed(Kind::Memory).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_are_signed_and_retried_and_users_are_emailed_sqlite() {
    signed_retried_and_emailed(Kind::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn webhooks_are_signed_and_retried_and_users_are_emailed_postgres() {
    signed_retried_and_emailed(Kind::Postgres).await;
}

async fn signed_retried_and_emailed(kind: Kind) {
    let Some((backend, _keep)) = store_of(kind).await else {
        return;
    };
    // The receiver fails twice before it takes the event.
    let receiver = WebhookReceiver::start(vec![500, 503]).await;
    let sink = SmtpSink::start().await;
    let (url, port) = (receiver.url.clone(), sink.port);
    let t = Target::spawn_backend(backend, |s| configure(s, &url, Some(port), 5)).await;
    let (model, watcher) = watched_model(&t).await;
    change(&t, &model, "Staff.").await;

    let received = receiver.wait_for(3, Duration::from_secs(20)).await;
    assert_eq!(
        received.len(),
        3,
        "two failures, then the delivery: {received:?}"
    );
    let id = received[0].header("x-lore-delivery").to_owned();
    for request in &received {
        assert_eq!(request.method, "POST");
        assert_eq!(request.path, "/hook");
        assert_eq!(request.header("content-type"), "application/json");
        assert_eq!(request.header("x-lore-event"), "MODEL_CHANGED");
        assert_eq!(
            request.header("x-lore-delivery"),
            id,
            "every retry carries the delivery's id"
        );
        let expected = signature(SECRET, request.header("x-lore-timestamp"), &request.body);
        assert_eq!(
            request.header("x-lore-signature"),
            format!("sha256={expected}"),
            "the body is signed with HMAC-SHA256 over the timestamp and the body"
        );
        assert_ne!(
            signature(
                "another secret of 16+",
                request.header("x-lore-timestamp"),
                &request.body
            ),
            expected
        );
    }
    let event: Value = serde_json::from_slice(&received[2].body).expect("a JSON body");
    assert_eq!(event["event"], json!("MODEL_CHANGED"));
    assert_eq!(event["modelId"], json!(model));
    assert_eq!(event["recipients"], json!([watcher]));
    assert!(event["message"].as_str().is_some_and(|m| !m.is_empty()));

    let mails = sink.wait_for(1, Duration::from_secs(20)).await;
    assert_eq!(mails[0].to, vec![format!("{watcher}@example.com")]);
    assert_eq!(mails[0].from, "lore@example.com");
    assert!(
        mails[0].data.contains("Subject: [Lore]"),
        "the subject names Lore: {}",
        mails[0].data
    );

    // The outbox shows both delivered, the webhook after three attempts.
    let mut listed = Vec::new();
    for _ in 0..100 {
        listed = deliveries(&t, Some("DELIVERED")).await;
        if listed.len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let webhook = listed
        .iter()
        .find(|d| d["channel"] == "webhook")
        .unwrap_or_else(|| panic!("the webhook delivery is listed: {listed:?}"));
    assert_eq!(webhook["id"].to_string(), id);
    assert_eq!(webhook["attempts"], json!(3));
    assert_eq!(webhook["target"], json!("ops"));
    assert_eq!(webhook["event"], json!("MODEL_CHANGED"));
    let email = listed
        .iter()
        .find(|d| d["channel"] == "email")
        .unwrap_or_else(|| panic!("the e-mail delivery is listed: {listed:?}"));
    assert_eq!(email["attempts"], json!(1));
    assert_eq!(email["target"], json!(format!("{watcher}@example.com")));
    t.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_outbox_survives_a_restart_sqlite() {
    survives_a_restart(Kind::Sqlite).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_outbox_survives_a_restart_postgres() {
    survives_a_restart(Kind::Postgres).await;
}

async fn survives_a_restart(kind: Kind) {
    let Some((backend, reopen)) = store_of(kind).await else {
        return;
    };
    // A port where nothing listens yet.
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
        listener.local_addr().expect("an address").port()
    };
    let url = format!("http://127.0.0.1:{port}/hook");
    let t = Target::spawn_backend(backend, |s| configure(s, &url, None, 100)).await;
    let (model, _) = watched_model(&t).await;
    change(&t, &model, "Staff.").await;
    let store = t.store().expect("a local store").clone();
    let mut tried = None;
    for _ in 0..200 {
        let pending = store
            .deliveries(Some(DeliveryState::Pending), 10)
            .await
            .expect("the outbox");
        if let Some(d) = pending.into_iter().find(|d| d.attempts >= 1) {
            tried = Some(d);
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    let tried = tried.expect("the delivery was tried and failed");
    assert!(
        !tried.last_error.is_empty(),
        "the failure is recorded: {tried:?}"
    );
    t.shutdown().await;
    drop(store);

    // Lore again over the same store, the receiver up now.
    let receiver = WebhookReceiver::start_on(port, Vec::new()).await;
    let t = Target::spawn_backend(reopen.open().await, |s| configure(s, &url, None, 100)).await;
    let received = receiver.wait_for(1, Duration::from_secs(20)).await;
    assert_eq!(received[0].header("x-lore-delivery"), tried.id.to_string());
    let event: Value = serde_json::from_slice(&received[0].body).expect("JSON");
    assert_eq!(event["modelId"], json!(model));
    t.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_delivery_is_given_up_after_its_last_attempt() {
    let receiver = WebhookReceiver::start(vec![500; 10]).await;
    let dir = tempfile::tempdir().expect("a temporary directory");
    let url = receiver.url.clone();
    let t = Target::spawn_backend(sqlite(&dir.path().join("lore.db")).await, |s| {
        configure(s, &url, None, 2)
    })
    .await;
    let (model, _) = watched_model(&t).await;
    change(&t, &model, "Staff.").await;
    let mut failed = Vec::new();
    for _ in 0..200 {
        failed = deliveries(&t, Some("FAILED")).await;
        if !failed.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    assert_eq!(failed.len(), 1, "given up: {failed:?}");
    assert_eq!(failed[0]["attempts"], json!(2));
    assert!(
        failed[0]["lastError"]
            .as_str()
            .is_some_and(|e| e.contains("500")),
        "the last error says why: {failed:?}"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(receiver.received().len(), 2, "no attempt after the last");
    t.shutdown().await;
}
