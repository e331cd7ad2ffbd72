//! `GET /metrics` as an operator sees it: a server with `[metrics]` configured serves
//! the Prometheus text format, where the calls made show up under their route template
//! and status, and the store's statements and connections under its backend; the token
//! is asked for on the main listener; unconfigured, `/metrics` is an unknown path.

use std::sync::Arc;

use lore_backend_memory::MemoryStore;
use lore_backend_postgres::PostgresStore;
use lore_backend_sqlite::SqliteStore;
use lore_conformance::harness::Resp;
use lore_conformance::postgres::TestDatabase;
use lore_conformance::scrape::{must, sample, scrape};
use lore_conformance::{Backend, Target};
use lore_server::Metrics;

const TOKEN: &str = "metrics-token-0123456789";
const LIST_MODELS: &str = "/MM/rest/v1/configuration/listModels";

fn metrics_url(t: &Target) -> String {
    let addr = t
        .server()
        .and_then(|s| s.metrics_addr)
        .expect("metrics.listen is served");
    format!("http://{addr}/metrics")
}

/// Calls, an import and a scrape on a server whose metrics watch the store.
async fn operator_sees_calls_and_statements(backend: Backend, metrics: Metrics, name: &str) {
    let t = Target::spawn_measured(backend, metrics, |settings| {
        settings.metrics.listen = Some("127.0.0.1:0".into());
    })
    .await;
    let url = metrics_url(&t);
    let (status, content_type, before) = scrape(&url, None).await;
    assert_eq!(status, 200, "{before}");
    assert!(
        content_type.starts_with("text/plain; version=0.0.4"),
        "{content_type}"
    );
    let listed_before = sample(
        &before,
        "lore_http_requests_total",
        &[("route", LIST_MODELS), ("status", "200")],
    )
    .unwrap_or(0.0);

    for _ in 0..3 {
        let resp = t.get("/configuration/listModels").await;
        assert_eq!(resp.status, 200, "{}", resp.describe());
    }
    t.import_sample().await;
    let resp = t.get("/no/such/route").await;
    assert_eq!(resp.status, 404, "{}", resp.describe());

    let (status, _, text) = scrape(&url, None).await;
    assert_eq!(status, 200, "{text}");
    let labels = [("method", "GET"), ("route", LIST_MODELS), ("status", "200")];
    assert_eq!(
        must(&text, "lore_http_requests_total", &labels) - listed_before,
        3.0,
        "three listModels calls"
    );
    assert!(must(&text, "lore_http_request_duration_seconds_count", &labels) >= 3.0);
    assert!(
        must(
            &text,
            "lore_http_request_duration_seconds_bucket",
            &[("route", LIST_MODELS), ("le", "+Inf")]
        ) >= 3.0
    );
    assert!(
        !text.contains("/no/such/route"),
        "raw paths never become labels"
    );
    assert!(
        must(
            &text,
            "lore_http_requests_total",
            &[("route", "unmatched"), ("status", "404")]
        ) >= 1.0
    );
    assert_eq!(
        must(
            &text,
            "lore_http_requests_total",
            &[
                ("method", "POST"),
                ("route", "/MM/rest/v1/repository/model/import"),
                ("status", "200")
            ]
        ),
        1.0
    );
    for kind in ["read", "write"] {
        let count = must(
            &text,
            "lore_store_statement_duration_seconds_count",
            &[("backend", name), ("kind", kind)],
        );
        assert!(count > 0.0, "{kind} statements were timed: {count}");
    }
    let max = must(
        &text,
        "lore_store_pool_max_connections",
        &[("backend", name)],
    );
    let idle = must(
        &text,
        "lore_store_pool_connections",
        &[("backend", name), ("state", "idle")],
    );
    let in_use = must(
        &text,
        "lore_store_pool_connections",
        &[("backend", name), ("state", "in_use")],
    );
    assert!(
        max > 0.0 && idle + in_use <= max,
        "{idle} + {in_use} <= {max}"
    );
    assert_eq!(
        must(&text, "lore_import_operations", &[("state", "running")]),
        0.0
    );
    assert_eq!(must(&text, "lore_outbox_depth", &[]), 0.0);

    // The search index: read by the first text search (`lore serve` reads it at start),
    // in the background; then it holds every object.
    let objects = t.get("/entities/countMQLQuery?select=Name").await;
    let objects = objects.ok().as_f64().expect("a count");
    t.get("/entities/countMQLQuery?select=Name&where=text%20%3D%20%27a%27")
        .await
        .ok();
    let mut text = text;
    for _ in 0..200 {
        let reading = must(&text, "lore_search_index_reading", &[]);
        let held = must(&text, "lore_search_index_objects", &[]);
        if reading == 0.0 && held > 0.0 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        text = scrape(&url, None).await.2;
    }
    assert_eq!(must(&text, "lore_search_index_reading", &[]), 0.0, "{text}");
    // Every object MQL finds (models and model objects), and the repository's folders.
    let held = must(&text, "lore_search_index_objects", &[]);
    assert!(
        held >= objects,
        "{held} objects held, {objects} found by MQL"
    );
    assert_eq!(must(&text, "lore_system_log_dropped_total", &[]), 0.0);
    assert_eq!(
        must(
            &text,
            "lore_plugin_host_crashes_total",
            &[("reason", "signal")]
        ),
        0.0
    );
    assert_eq!(
        must(
            &text,
            "lore_delivery_failures_total",
            &[("channel", "webhook")]
        ),
        0.0
    );

    // The listener of its own serves nothing else; the main one no metrics (no token).
    let (status, _, _) = scrape(&url.replace("/metrics", "/healthz"), None).await;
    assert_eq!(status, 404);
    let resp = t
        .send(t.client.get(format!("{}/metrics", t.origin())))
        .await;
    assert_eq!(resp.status, 404, "{}", resp.describe());
    t.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_sees_calls_and_statements_on_sqlite() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = SqliteStore::open(&dir.path().join("lore.db"))
        .await
        .expect("opening the SQLite store");
    let metrics = Metrics::new();
    metrics.watch_store(&store);
    let backend = Backend::new(Arc::new(store)).keep(dir);
    operator_sees_calls_and_statements(backend, metrics, "sqlite").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_operator_sees_calls_and_statements_on_postgres() {
    let Some(db) = TestDatabase::create().await else {
        return;
    };
    let store = PostgresStore::open(&db.url)
        .await
        .expect("connecting to the test database");
    let metrics = Metrics::new();
    metrics.watch_store(&store);
    let backend = Backend::new(Arc::new(store)).keep(db);
    operator_sees_calls_and_statements(backend, metrics, "postgres").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_main_listener_asks_for_the_token() {
    let t = Target::spawn_with(Arc::new(MemoryStore::new()), |settings| {
        settings.metrics.token = Some(TOKEN.into());
    })
    .await;
    assert!(t.server().and_then(|s| s.metrics_addr).is_none());
    let url = format!("{}/metrics", t.origin());
    for token in [None, Some("metrics-token-012345678"), Some("wrong")] {
        let (status, _, body) = scrape(&url, token).await;
        assert_eq!(status, 401, "{token:?}: {body}");
        assert!(body.contains("AUTHENTICATION_ERROR"), "{body}");
    }
    // An API key is no metrics token.
    let key = t.key().await;
    let resp = t
        .send(t.client.get(&url).header("api-key", key.as_str()))
        .await;
    assert_eq!(resp.status, 401, "{}", resp.describe());

    let (status, content_type, text) = scrape(&url, Some(TOKEN)).await;
    assert_eq!(status, 200, "{text}");
    assert!(content_type.starts_with("text/plain; version=0.0.4"));
    assert_eq!(
        must(
            &text,
            "lore_http_requests_total",
            &[("method", "GET"), ("route", "/metrics"), ("status", "401")]
        ),
        4.0,
        "the refused scrapes were counted"
    );
    assert!(
        sample(&text, "lore_store_statement_duration_seconds_count", &[]).is_none(),
        "the memory store runs no statements"
    );
    assert_eq!(must(&text, "lore_build_info", &[]), 1.0);
    t.shutdown().await;
}

/// Unconfigured, `/metrics` answers what any unknown path answers, with a key or not.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_are_not_served_unless_configured() {
    let t = Target::spawn(Arc::new(MemoryStore::new())).await;
    assert!(t.server().and_then(|s| s.metrics_addr).is_none());
    let unknown = |path: &str| t.client.get(format!("{}{path}", t.origin()));
    let code = |resp: &Resp| resp.json["error"]["errorCode"].clone();
    let metrics = t.send(unknown("/metrics")).await;
    let other = t.send(unknown("/metricz")).await;
    assert_eq!(metrics.status, 404, "{}", metrics.describe());
    assert_eq!(code(&metrics), code(&other));
    let (status, _, _) = scrape(&format!("{}/metrics", t.origin()), Some(TOKEN)).await;
    assert_eq!(status, 404);
    let key = t.key().await;
    let with_key = t
        .send(unknown("/metrics").header("api-key", key.as_str()))
        .await;
    assert_eq!(with_key.status, 404, "{}", with_key.describe());
    t.shutdown().await;
}
