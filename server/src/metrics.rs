//! What an operator watches: `GET /metrics` in the Prometheus text format (version 0.0.4),
//! through `prometheus-client`, one registry per server and no global state.
//!
//! Counted as things happen: the calls of the HTTP API and the web UI (by method, route
//! template and status), the statements of the SQL store (reported by its driver), failed
//! notification deliveries. Read at each scrape: the store's connections, the operations
//! running and the deliveries waiting in the store, the operations this process ended,
//! the system log entries dropped and the plugin hosts that crashed.
//!
//! Nobody reads it unless configured (`[metrics]`): a listener of its own
//! (`metrics.listen`), and/or a bearer token (`metrics.token`) with which the main
//! listener serves it too. Otherwise `/metrics` is an unknown path like any other.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use lore_backend_sql::{Access, Driver, PoolUse, SqlStore, StatementObserver};
use lore_core::ErrorCode;
use lore_core::ServerCatalog;
use lore_core::model::OperationState;
use lore_plugin_host::{Crash, Crashes};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::encoding::prometheus_text;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use sha2::{Digest, Sha256};

use crate::error::ApiError;
use crate::system_log::Recorder;

/// The path metrics are served at.
pub const PATH: &str = "/metrics";
/// The route label of a call no route matched (an unknown path, a wrong method).
pub const UNMATCHED: &str = "unmatched";
/// The most running operations and pending deliveries a scrape counts.
pub const BACKLOG_CAP: usize = 10_000;

/// Call latency buckets, in seconds: 1 ms to 10 s.
const HTTP_BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];
/// Statement latency buckets, in seconds: 100 µs to 5 s.
const STATEMENT_BUCKETS: [f64; 13] = [
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0, 5.0,
];

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct HttpLabels {
    method: &'static str,
    route: String,
    status: u16,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StatementLabels {
    backend: &'static str,
    kind: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ChannelLabels {
    channel: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct PoolLabels {
    backend: &'static str,
    state: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct BackendLabels {
    backend: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct StateLabels {
    state: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ReasonLabels {
    reason: &'static str,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct VersionLabels {
    version: &'static str,
}

type Histograms<L> = Family<L, Histogram, fn() -> Histogram>;
/// Reads a store's connections.
type PoolProbe = Box<dyn Fn() -> PoolUse + Send + Sync>;
type IndexProbe = Box<dyn Fn() -> lore_backend_sql::SearchIndexState + Send + Sync>;

/// The metrics of one server; clones share them.
#[derive(Clone, Debug)]
pub struct Metrics(Arc<Inner>);

#[derive(Debug)]
struct Inner {
    /// What is counted as it happens.
    registry: Registry,
    requests: Family<HttpLabels, Counter>,
    durations: Histograms<HttpLabels>,
    statements: Histograms<StatementLabels>,
    delivery_failures: Family<ChannelLabels, Counter>,
    deliveries_given_up: Family<ChannelLabels, Counter>,
    plugin_crashes: Crashes,
    /// What is read at each scrape.
    sources: Mutex<Sources>,
}

/// Where a scrape reads the values it does not count itself.
#[derive(Default)]
struct Sources {
    /// The backend's name and how to read its connections.
    pool: Option<(&'static str, PoolProbe)>,
    /// How to read the search index's state (objects kept, being read).
    index: Option<IndexProbe>,
    recorder: Option<Recorder>,
    catalog: Option<ServerCatalog>,
}

impl std::fmt::Debug for Sources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sources")
            .field("pool", &self.pool.as_ref().map(|(backend, _)| backend))
            .field("recorder", &self.recorder.is_some())
            .field("catalog", &self.catalog.is_some())
            .finish()
    }
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let requests = Family::<HttpLabels, Counter>::default();
        registry.register(
            "lore_http_requests",
            "Calls answered, by method, route template and status",
            requests.clone(),
        );
        let durations: Histograms<HttpLabels> =
            Family::new_with_constructor(|| Histogram::new(HTTP_BUCKETS));
        registry.register(
            "lore_http_request_duration_seconds",
            "How long calls took to answer, by method, route template and status",
            durations.clone(),
        );
        let statements: Histograms<StatementLabels> =
            Family::new_with_constructor(|| Histogram::new(STATEMENT_BUCKETS));
        registry.register(
            "lore_store_statement_duration_seconds",
            "How long the store's statements took, by backend and kind (read: outside a write transaction; write: in one, its commit included)",
            statements.clone(),
        );
        let delivery_failures = Family::<ChannelLabels, Counter>::default();
        registry.register(
            "lore_delivery_failures",
            "Failed attempts at delivering a notification, by channel",
            delivery_failures.clone(),
        );
        let deliveries_given_up = Family::<ChannelLabels, Counter>::default();
        registry.register(
            "lore_deliveries_given_up",
            "Notification deliveries given up after their last attempt, by channel",
            deliveries_given_up.clone(),
        );
        for channel in ["webhook", "email"] {
            let labels = ChannelLabels { channel };
            delivery_failures.get_or_create(&labels).inc_by(0);
            deliveries_given_up.get_or_create(&labels).inc_by(0);
        }
        let build = Family::<VersionLabels, Gauge>::default();
        build
            .get_or_create(&VersionLabels {
                version: env!("CARGO_PKG_VERSION"),
            })
            .set(1);
        registry.register("lore_build_info", "The version of Lore running", build);
        Self(Arc::new(Inner {
            registry,
            requests,
            durations,
            statements,
            delivery_failures,
            deliveries_given_up,
            plugin_crashes: Crashes::default(),
            sources: Mutex::new(Sources::default()),
        }))
    }

    fn sources(&self) -> std::sync::MutexGuard<'_, Sources> {
        self.0
            .sources
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts the statements of a SQL store from now on, and reads its connections at
    /// each scrape. The metrics keep a handle on the store.
    pub fn watch_store<D: Driver>(&self, store: &SqlStore<D>) {
        let backend = lore_core::store::StoreBase::backend(store);
        store.driver().observe(Arc::new(StatementMetrics {
            backend,
            statements: self.0.statements.clone(),
        }));
        let probed = store.clone();
        self.sources().pool = Some((backend, Box::new(move || probed.driver().pool_use())));
        let store = store.clone();
        self.sources().index = Some(Box::new(move || store.search_index_state()));
    }

    /// Reads at each scrape what waits in the store and what this process ended.
    pub fn watch_catalog(&self, catalog: ServerCatalog) {
        self.sources().catalog = Some(catalog);
    }

    /// Reads at each scrape the system log entries dropped.
    pub fn watch_system_log(&self, recorder: Recorder) {
        self.sources().recorder = Some(recorder);
    }

    /// Where the plugin hosts count their crashes.
    pub fn plugin_crashes(&self) -> Crashes {
        self.0.plugin_crashes.clone()
    }

    /// Counts an answered call.
    pub fn call(&self, method: &Method, route: Option<&str>, status: u16, elapsed: Duration) {
        let labels = HttpLabels {
            method: method_label(method),
            route: route.unwrap_or(UNMATCHED).to_owned(),
            status,
        };
        self.0.requests.get_or_create(&labels).inc();
        self.0
            .durations
            .get_or_create(&labels)
            .observe(elapsed.as_secs_f64());
    }

    /// Counts a failed delivery attempt on `channel` (`webhook`, `email`), and whether
    /// it was the last one.
    pub fn delivery_failed(&self, channel: &'static str, given_up: bool) {
        let labels = ChannelLabels { channel };
        self.0.delivery_failures.get_or_create(&labels).inc();
        if given_up {
            self.0.deliveries_given_up.get_or_create(&labels).inc();
        }
    }

    /// The metrics in the Prometheus text format.
    pub async fn render(&self) -> String {
        let (catalog, dropped, pool, index) = {
            let sources = self.sources();
            (
                sources.catalog.clone(),
                sources.recorder.as_ref().map(Recorder::dropped_total),
                sources
                    .pool
                    .as_ref()
                    .map(|(backend, read)| (*backend, read())),
                sources.index.as_ref().map(|read| read()),
            )
        };
        let backlog = match &catalog {
            Some(catalog) => match catalog.backlog(BACKLOG_CAP).await {
                Ok(backlog) => Some(backlog),
                Err(e) => {
                    tracing::warn!(error = %e, "metrics: cannot read the operations and the outbox");
                    None
                }
            },
            None => None,
        };

        // What a scrape reads, in a registry of its own.
        let mut now = Registry::default();
        if let Some((backend, pool)) = pool {
            let connections = Family::<PoolLabels, Gauge>::default();
            for (state, value) in [("idle", pool.idle), ("in_use", pool.in_use)] {
                connections
                    .get_or_create(&PoolLabels { backend, state })
                    .set(gauge(value));
            }
            now.register(
                "lore_store_pool_connections",
                "The store's open connections, by state",
                connections,
            );
            let max = Family::<BackendLabels, Gauge>::default();
            max.get_or_create(&BackendLabels { backend })
                .set(gauge(pool.max));
            now.register(
                "lore_store_pool_max_connections",
                "The most connections the store opens",
                max,
            );
        }
        if let Some(index) = index {
            let objects = Gauge::<i64>::default();
            objects.set(gauge(index.objects));
            now.register(
                "lore_search_index_objects",
                "Objects in this process's search index (0 until it is first read)",
                objects,
            );
            let reading = Gauge::<i64>::default();
            reading.set(i64::from(index.reading));
            now.register(
                "lore_search_index_reading",
                "1 while this process reads its search index whole (the database answers searches meanwhile)",
                reading,
            );
        }
        if let Some(backlog) = backlog {
            let operations = Family::<StateLabels, Gauge>::default();
            operations
                .get_or_create(&StateLabels { state: "running" })
                .set(gauge(backlog.running_operations));
            now.register(
                "lore_import_operations",
                "Import operations in the store by state, in every process over it (running only; counted up to 10000)",
                operations,
            );
            let depth = Gauge::<i64>::default();
            depth.set(gauge(backlog.pending_deliveries));
            now.register(
                "lore_outbox_depth",
                "Notification deliveries pending in the outbox, in every process over the store (counted up to 10000)",
                depth,
            );
        }
        if let Some(catalog) = &catalog {
            let ended = Family::<StateLabels, Counter>::default();
            let counts = &catalog.config().operations_ended;
            for (state, of) in [
                ("succeeded", OperationState::Succeeded),
                ("failed", OperationState::Failed),
            ] {
                ended
                    .get_or_create(&StateLabels { state })
                    .inc_by(counts.get(of));
            }
            now.register(
                "lore_import_operations_ended",
                "Import operations this process ended, by state (interrupted ones it marked failed included)",
                ended,
            );
        }
        if let Some(dropped) = dropped {
            let counter = Counter::<u64>::default();
            counter.inc_by(dropped);
            now.register(
                "lore_system_log_dropped",
                "System log entries dropped because the queue was full or writing failed",
                counter,
            );
        }
        let crashes = Family::<ReasonLabels, Counter>::default();
        for crash in Crash::ALL {
            crashes
                .get_or_create(&ReasonLabels {
                    reason: crash.as_str(),
                })
                .inc_by(self.0.plugin_crashes.get(crash));
        }
        now.register(
            "lore_plugin_host_crashes",
            "Plugin hosts that ended without a result or a failure of their own, by reason",
            crashes,
        );

        let mut text = String::new();
        // Writing to a String fails only on a label the types rule out.
        if let Err(e) = prometheus_text::encode(&mut text, &self.0.registry)
            .and_then(|()| prometheus_text::encode(&mut text, &now))
        {
            tracing::error!(error = %e, "metrics: cannot encode");
        }
        text
    }
}

fn gauge(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// A method as a label: the standard ones, any other as `other` (a client may send any).
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::DELETE => "DELETE",
        Method::PATCH => "PATCH",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

/// Reports a driver's statements to the histogram.
#[derive(Debug)]
struct StatementMetrics {
    backend: &'static str,
    statements: Histograms<StatementLabels>,
}

impl StatementObserver for StatementMetrics {
    fn statement(&self, access: Access, elapsed: Duration) {
        let kind = match access {
            Access::Read => "read",
            Access::Write => "write",
        };
        self.statements
            .get_or_create(&StatementLabels {
                backend: self.backend,
                kind,
            })
            .observe(elapsed.as_secs_f64());
    }
}

/// The route template a call matched, handed from the router to the call layer.
#[derive(Debug, Clone)]
pub struct Route(pub String);

/// A route layer: notes the matched route template on the response, for the call layer
/// outside the router, which sees no [`MatchedPath`].
pub async fn note_route(req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|m| Route(m.as_str().to_owned()));
    let mut response = next.run(req).await;
    if let Some(route) = route {
        response.extensions_mut().insert(route);
    }
    response
}

/// Who may read the metrics: anyone who reaches the listener, or only with the token.
#[derive(Debug, Clone)]
pub struct Exposure {
    pub metrics: Metrics,
    /// The SHA-256 of `metrics.token`, when one is set.
    token: Option<[u8; 32]>,
}

impl Exposure {
    pub fn new(metrics: Metrics, token: Option<&str>) -> Self {
        Self {
            metrics,
            token: token.map(|t| Sha256::digest(t.as_bytes()).into()),
        }
    }

    /// Whether the request carries the token (always, when none is set). Compares
    /// digests of equal length in constant time.
    fn admits(&self, headers: &HeaderMap) -> bool {
        let Some(expected) = &self.token else {
            return true;
        };
        let Some(given) = crate::extract::bearer(headers) else {
            return false;
        };
        let given: [u8; 32] = Sha256::digest(given.as_bytes()).into();
        given
            .iter()
            .zip(expected)
            .fold(0u8, |differ, (a, b)| differ | (a ^ b))
            == 0
    }
}

/// `GET /metrics`: the text, or 401 without the token.
pub async fn serve(State(exposure): State<Exposure>, headers: HeaderMap) -> Response {
    if !exposure.admits(&headers) {
        let mut refused = ApiError::new(
            ErrorCode::AuthenticationError,
            "GET /metrics needs the metrics token: Authorization: Bearer <metrics.token>",
        )
        .into_response();
        refused
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        return refused;
    }
    let text = exposure.metrics.render().await;
    (
        [(
            header::CONTENT_TYPE,
            HeaderValue::from_static(prometheus_text::CONTENT_TYPE),
        )],
        text,
    )
        .into_response()
}

/// The router of `metrics.listen`: `GET /metrics` and nothing else.
pub fn listener_router(exposure: Exposure) -> axum::Router {
    axum::Router::new()
        .route(PATH, axum::routing::get(serve))
        .fallback(crate::routes::not_found)
        .method_not_allowed_fallback(crate::routes::method_not_allowed)
        .with_state(exposure)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calls_are_counted_by_route_template() {
        let metrics = Metrics::new();
        metrics.call(
            &Method::GET,
            Some("/MM/rest/v1/repository/{objectId}"),
            200,
            Duration::from_millis(3),
        );
        metrics.call(
            &Method::from_bytes(b"BREW").unwrap_or_default(),
            None,
            404,
            Duration::ZERO,
        );
        metrics.delivery_failed("webhook", true);
        let text = futures_lite(metrics.render());
        assert!(
            text.contains(
                "lore_http_requests_total{method=\"GET\",route=\"/MM/rest/v1/repository/{objectId}\",status=\"200\"} 1"
            ),
            "{text}"
        );
        assert!(text.contains(
            "lore_http_request_duration_seconds_bucket{le=\"0.005\",method=\"GET\",route=\"/MM/rest/v1/repository/{objectId}\",status=\"200\"} 1"
        ) || text.contains("lore_http_request_duration_seconds_bucket{method=\"GET\",route=\"/MM/rest/v1/repository/{objectId}\",status=\"200\",le=\"0.005\"} 1"),
            "{text}");
        assert!(
            text.contains(
                "lore_http_requests_total{method=\"other\",route=\"unmatched\",status=\"404\"} 1"
            ),
            "{text}"
        );
        assert!(text.contains("lore_delivery_failures_total{channel=\"webhook\"} 1"));
        assert!(text.contains("lore_delivery_failures_total{channel=\"email\"} 0"));
        assert!(text.contains("lore_plugin_host_crashes_total{reason=\"signal\"} 0"));
        assert!(text.contains("# TYPE lore_http_request_duration_seconds histogram"));
    }

    #[test]
    fn the_token_is_compared_whole() {
        let exposure = Exposure::new(Metrics::new(), Some("0123456789abcdef"));
        let with = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::AUTHORIZATION, HeaderValue::from_str(value).unwrap());
            headers
        };
        assert!(exposure.admits(&with("Bearer 0123456789abcdef")));
        assert!(!exposure.admits(&with("Bearer 0123456789abcde")));
        assert!(!exposure.admits(&with("Basic 0123456789abcdef")));
        assert!(!exposure.admits(&HeaderMap::new()));
        assert!(Exposure::new(Metrics::new(), None).admits(&HeaderMap::new()));
    }

    /// Runs a future that never waits (no catalog to read).
    fn futures_lite<F: std::future::Future>(future: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .map(|rt| rt.block_on(future))
            .unwrap_or_else(|e| panic!("a runtime: {e}"))
    }
}
