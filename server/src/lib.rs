//! The Lore server: the axum application over a [`Catalog`], its configuration, backend
//! wiring, OpenAPI document and API explorer.

pub mod cli_admin;
pub mod cli_backup;
pub mod cli_history;
pub mod cli_import;
pub mod cli_query;
pub mod config;
pub mod delivery;
mod error;
mod explorer;
mod extract;
pub mod first_admin;
mod gate;
pub mod metrics;
mod middleware;
pub mod oauth;
pub mod plugins;
mod routes;
pub mod system_log;
mod text_table;
mod ui;
mod upload;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use lore_core::catalog::{Bootstrap, CatalogConfig, DeliveryConfig};
use lore_core::{Catalog, ServerCatalog, Store};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

pub use config::Settings;
pub use gate::{PUBLIC_ROUTES, is_public};
pub use metrics::Metrics;
pub use routes::deprecated::DEPRECATED_METHODS;
pub use routes::removed::REMOVED_METHODS;
pub use ui::{PUBLIC_UI_ROUTES, exposed_without_https};

/// What every handler can reach.
#[derive(Debug, Clone)]
pub struct AppState {
    pub catalog: Catalog,
    /// OAuth 2.0 login (`[auth.oauth2]`); `None` when it is not enabled.
    pub oauth2: Option<Arc<oauth::OAuth2Login>>,
    /// Largest model archive upload, in bytes (`server.max_upload_mib`).
    pub max_upload_bytes: usize,
    /// Largest request body, in bytes (`server.max_body_mib`); a gzip body must not
    /// inflate to more either.
    pub max_body_bytes: usize,
    /// The web UI's settings (shared: the state is cloned for every request).
    pub ui: Arc<ui::UiConfig>,
}

/// Opens the store the settings name, running its migrations.
pub async fn open_store(settings: &Settings) -> Result<Arc<dyn Store>, lore_core::Error> {
    open_store_measured(settings, None).await
}

/// [`open_store`], the statements and connections of a SQL store reported to `metrics`.
pub async fn open_store_measured(
    settings: &Settings,
    metrics: Option<&Metrics>,
) -> Result<Arc<dyn Store>, lore_core::Error> {
    let storage = &settings.storage;
    Ok(match storage.backend.as_str() {
        "memory" => Arc::new(lore_backend_memory::MemoryStore::new()),
        #[cfg(feature = "sqlite")]
        "sqlite" => {
            let store = lore_backend_sqlite::SqliteStore::open(storage.path.as_path()).await?;
            if let Some(metrics) = metrics {
                metrics.watch_store(&store);
            }
            Arc::new(store)
        }
        #[cfg(feature = "postgres")]
        "postgres" => {
            let url = storage
                .url
                .as_deref()
                .ok_or_else(|| lore_core::Error::internal("storage.url is not set"))?;
            let store = lore_backend_postgres::PostgresStore::open(url).await?;
            if let Some(metrics) = metrics {
                metrics.watch_store(&store);
            }
            Arc::new(store)
        }
        #[cfg(not(feature = "sqlite"))]
        "sqlite" => return Err(missing_feature("sqlite")),
        #[cfg(not(feature = "postgres"))]
        "postgres" => return Err(missing_feature("postgres")),
        other => {
            return Err(lore_core::Error::internal(format!(
                "storage.backend '{other}' is unknown"
            )));
        }
    })
}

#[allow(dead_code)]
fn missing_feature(backend: &str) -> lore_core::Error {
    lore_core::Error::internal(format!(
        "this lore was built without the '{backend}' backend; rebuild with `cargo build --features {backend}`"
    ))
}

/// The catalog over a store, configured from the settings, with the built-in importer
/// only ([`spawn`] adds the plugins).
pub fn catalog(
    store: Arc<dyn Store>,
    settings: &Settings,
) -> Result<ServerCatalog, config::ConfigError> {
    Ok(ServerCatalog::new(store, catalog_config(settings)?))
}

fn catalog_config(settings: &Settings) -> Result<CatalogConfig, config::ConfigError> {
    let (operation_heartbeat, operation_stale_after) = settings.operation_timing()?;
    let notifications = &settings.notifications;
    let timing = notifications.timing()?;
    Ok(CatalogConfig {
        login_timeout: settings.login_timeout()?,
        idle_timeout: settings.idle_timeout()?,
        operation_heartbeat,
        operation_stale_after,
        delivery: DeliveryConfig {
            webhooks: notifications
                .webhooks
                .iter()
                .map(|w| w.name.clone())
                .collect(),
            email: notifications.smtp.is_some(),
            retry_initial: timing.retry_initial,
            retry_max: timing.retry_max,
            max_attempts: notifications.max_attempts,
        },
        import_reach: import_reach(settings),
        lineage_limits: settings.openlineage.limits()?,
        ..CatalogConfig::default()
    })
}

/// Where importers may reach: the configured locations, never Lore's own database.
fn import_reach(settings: &Settings) -> lore_core::import::Reach {
    let storage = &settings.storage;
    let own = match storage.backend.as_str() {
        "sqlite" => Some(format!("sqlite:{}", storage.path.display())),
        "postgres" => storage.url.clone(),
        _ => None,
    };
    lore_core::import::Reach {
        allowed: settings.plugin_host.allowed_urls.clone(),
        refused: own.into_iter().collect(),
    }
}

/// The whole application: the API under the base path, `/healthz`, the OpenAPI document
/// and the API explorer. Every response, errors included, is in the envelope. Every
/// route off [`PUBLIC_ROUTES`] answers 401 without a valid key before its handler runs;
/// unknown paths (404) and wrong methods (405) answer the same with or without a key.
///
/// Calls go to the tracing log only; [`spawn`] also records them in the system log.
/// Fails when `[auth.oauth2]` is enabled but invalid.
pub fn app(catalog: Catalog, settings: &Settings) -> Result<Router, config::ConfigError> {
    app_recording(catalog, settings, None, None)
}

/// [`app`], recording every call in the system log through `recorder` and counting it
/// in `metrics`. With `metrics.token` set, `GET /metrics` serves `metrics` to requests
/// with that bearer token; otherwise `/metrics` is an unknown path here.
pub fn app_recording(
    catalog: Catalog,
    settings: &Settings,
    recorder: Option<system_log::Recorder>,
    metrics: Option<Metrics>,
) -> Result<Router, config::ConfigError> {
    let call_log = middleware::CallLog {
        recorder,
        trust_forwarded_for: settings.server.trust_forwarded_for,
        metrics: metrics.clone(),
    };
    let base = settings.server.base_path.clone();
    let oauth2 =
        oauth::OAuth2Login::from_settings(&settings.auth.oauth2, catalog.clone())?.map(Arc::new);
    let (api, openapi) = routes::api();
    let gate = gate::Gate::new(catalog.clone(), &base);
    let state = AppState {
        catalog: catalog.clone(),
        oauth2,
        max_upload_bytes: settings.max_upload_bytes(),
        max_body_bytes: settings.max_body_bytes(),
        ui: Arc::new(ui::UiConfig::from_settings(settings)),
    };
    let mut router = Router::new()
        .nest(&base, api)
        .route("/healthz", axum::routing::get(routes::health::healthz))
        // OpenLineage clients post where Marquez listens (see docs/openlineage.md).
        .route(
            "/api/v1/lineage",
            axum::routing::post(routes::openlineage::post_event),
        )
        .route(
            "/api/v1/lineage/batch",
            axum::routing::post(routes::openlineage::post_batch),
        )
        .route(
            "/api/v1/namespaces/{namespace}/jobs/{job}/runs",
            axum::routing::get(routes::openlineage::job_runs),
        )
        .route(
            "/api/v1/jobs/runs/{runId}",
            axum::routing::get(routes::openlineage::run),
        )
        .merge(explorer::router(&base, openapi));
    // Public to the gate: the route asks for its own token.
    if let (Some(metrics), Some(token)) = (&metrics, &settings.metrics.token) {
        let exposure = metrics::Exposure::new(metrics.clone(), Some(token));
        router = router.route(
            metrics::PATH,
            axum::routing::get(metrics::serve).with_state(exposure),
        );
    }
    Ok(router
        .route_layer(axum::middleware::from_fn_with_state(
            gate,
            gate::require_key,
        ))
        // The web UI has its own gate: a session cookie, or the login page.
        .merge(ui::router(state.clone()))
        // The route template of every call, for the metrics.
        .route_layer(axum::middleware::from_fn(metrics::note_route))
        .fallback(routes::not_found)
        // After the gate: it replaces the gated default 405 answer of every route, so an
        // unknown path (404) or a wrong method (405) answers the same with or without a key.
        .method_not_allowed_fallback(routes::method_not_allowed)
        .layer(axum::middleware::from_fn_with_state(
            call_log,
            middleware::envelope_and_log,
        ))
        .layer(DefaultBodyLimit::max(settings.max_body_bytes()))
        // Outermost: every answer under /ui/, whoever made it, carries the UI's headers.
        .layer(axum::middleware::from_fn(ui::browser_protections))
        .with_state(state))
}

/// A server running in this process, stopped when dropped or by [`RunningServer::stop`].
#[derive(Debug)]
pub struct RunningServer {
    pub addr: SocketAddr,
    /// `http://<addr><base_path>`.
    pub base_url: String,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<tokio::task::JoinHandle<()>>,
    recorder: system_log::Recorder,
    /// The system log's writer; dropping it also writes what is queued.
    writer: Option<system_log::Writer>,
    /// Marks failed the operations other processes left running when they stopped.
    sweeper: tokio::task::JoinHandle<()>,
    /// Sends the outbox of notifications.
    sender: tokio::task::JoinHandle<()>,
    /// What `GET /metrics` shows.
    pub metrics: Metrics,
    /// The address of `metrics.listen`, when set.
    pub metrics_addr: Option<SocketAddr>,
    /// Serves `metrics.listen`.
    metrics_task: Option<tokio::task::JoinHandle<()>>,
}

impl RunningServer {
    /// Stops accepting, lets running calls finish, writes the queued system log
    /// entries, and waits.
    pub async fn stop(mut self) {
        self.sweeper.abort();
        self.sender.abort();
        if let Some(task) = self.metrics_task.take() {
            task.abort();
        }
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
        if let Some(writer) = self.writer.take() {
            writer.stop().await;
        }
    }

    /// Writes the system log entries of the calls answered so far, without waiting for
    /// the flush interval.
    pub async fn flush_system_log(&self) {
        self.recorder.flush().await;
    }
}

impl Drop for RunningServer {
    fn drop(&mut self) {
        self.sweeper.abort();
        self.sender.abort();
        if let Some(task) = &self.metrics_task {
            task.abort();
        }
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
    }
}

/// Prepares the store (built-in roles, the first administrator), starts the system
/// log's writer and serves on the configured address (port 0 picks a free one) until
/// stopped.
pub async fn spawn(
    store: Arc<dyn Store>,
    settings: &Settings,
    admin_password: Option<&str>,
) -> Result<(RunningServer, Bootstrap), lore_core::Error> {
    spawn_measured(store, settings, admin_password, Metrics::new()).await
}

/// [`spawn`], counting in `metrics` (to which [`open_store_measured`] or
/// [`Metrics::watch_store`] may have given the store's statements), and serving them
/// where `[metrics]` says.
pub async fn spawn_measured(
    store: Arc<dyn Store>,
    settings: &Settings,
    admin_password: Option<&str>,
    metrics: Metrics,
) -> Result<(RunningServer, Bootstrap), lore_core::Error> {
    let mut config =
        catalog_config(settings).map_err(|e| lore_core::Error::internal(e.to_string()))?;
    // A plugin that does not load is logged and left out; the server starts anyway.
    config.importers =
        plugins::load_importers(settings, config.importers, &metrics.plugin_crashes())
            .await
            .0;
    // The server's own handle stays here; the router gets only the request catalog.
    let server = ServerCatalog::new(store, config);
    let catalog = server.catalog();
    let (recorder, writer) = system_log::start(
        server.clone(),
        system_log::WriterSettings {
            flush_interval: settings
                .flush_interval()
                .map_err(|e| lore_core::Error::internal(e.to_string()))?,
            capacity: settings.log.queue_capacity,
            retention: settings.log_retention(),
            lineage_event_retention: settings.lineage_event_retention(),
            history_retention: settings.history_retention(),
        },
    );
    metrics.watch_catalog(server.clone());
    metrics.watch_system_log(recorder.clone());
    // An invalid `[auth.oauth2]` fails before anything is written.
    let app = app_recording(
        catalog.clone(),
        settings,
        Some(recorder.clone()),
        Some(metrics.clone()),
    )
    .map_err(|e| lore_core::Error::internal(e.to_string()))?;
    let bootstrap = catalog.identity().bootstrap(admin_password).await?;
    let sender = delivery::Sender::new(server.clone(), &settings.notifications)
        .map_err(|e| lore_core::Error::internal(e.to_string()))?
        .with_metrics(metrics.clone());
    let (metrics_addr, metrics_task) = match &settings.metrics.listen {
        None => (None, None),
        Some(listen) => {
            let listener = TcpListener::bind(listen).await.map_err(|e| {
                lore_core::Error::internal(format!(
                    "cannot listen on {listen} (metrics.listen): {e}"
                ))
            })?;
            let addr = listener
                .local_addr()
                .map_err(|e| lore_core::Error::internal(e.to_string()))?;
            let router = metrics::listener_router(metrics::Exposure::new(
                metrics.clone(),
                settings.metrics.token.as_deref(),
            ));
            let task = tokio::spawn(async move {
                if let Err(e) = axum::serve(listener, router).await {
                    tracing::error!(error = %e, "the metrics listener stopped with an error");
                }
            });
            (Some(addr), Some(task))
        }
    };
    let sweeper = tokio::spawn(sweep_operations(server));
    let sender = tokio::spawn(sender.run());
    let listener = TcpListener::bind(&settings.server.listen)
        .await
        .map_err(|e| {
            lore_core::Error::internal(format!("cannot listen on {}: {e}", settings.server.listen))
        })?;
    let addr = listener
        .local_addr()
        .map_err(|e| lore_core::Error::internal(e.to_string()))?;
    let app = app.into_make_service_with_connect_info::<SocketAddr>();
    let (tx, rx) = oneshot::channel::<()>();
    let task = tokio::spawn(async move {
        let shutdown = async move {
            let _ = rx.await;
        };
        if let Err(e) = axum::serve(listener, app)
            .with_graceful_shutdown(shutdown)
            .await
        {
            tracing::error!(error = %e, "server stopped with an error");
        }
    });
    Ok((
        RunningServer {
            addr,
            base_url: format!("http://{addr}{}", settings.server.base_path),
            shutdown: Some(tx),
            task: Some(task),
            recorder,
            writer: Some(writer),
            sweeper,
            sender,
            metrics,
            metrics_addr,
            metrics_task,
        },
        bootstrap,
    ))
}

/// Marks failed, now and then periodically, the running operations whose process
/// stopped renewing their heartbeat (a crash, a restart, another process gone).
async fn sweep_operations(catalog: ServerCatalog) {
    let every =
        (catalog.config().operation_stale_after / 2).max(std::time::Duration::from_millis(100));
    loop {
        match catalog.fail_interrupted_operations().await {
            Ok(0) => {}
            Ok(n) => tracing::warn!("marked {n} interrupted operations failed"),
            Err(e) => tracing::warn!(error = %e, "cannot check for interrupted operations"),
        }
        tokio::time::sleep(every).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_core::import::Format;
    use serde_json::json;

    fn url(value: &str) -> serde_json::Map<String, serde_json::Value> {
        json!({"url": value})
            .as_object()
            .cloned()
            .unwrap_or_default()
    }

    #[test]
    fn importers_never_reach_the_configured_store() {
        let format = Format::new("harvester", "").parameters(json!({
            "type": "object",
            "properties": {"url": {"type": "string", "format": "uri"}}
        }));
        let mut settings = Settings::default();
        settings.storage.backend = "sqlite".into();
        settings.storage.path = "lore-data/lore.db".into();
        let reach = import_reach(&settings);
        for own in [
            "sqlite:lore-data/lore.db",
            "sqlite:./lore-data/../lore-data/lore.db",
        ] {
            let refused = reach.check(&format, &url(own)).unwrap_err();
            assert!(refused.message.contains("own database"), "{own}: {refused}");
        }
        assert!(reach.check(&format, &url("sqlite:other.db")).is_ok());

        settings.storage.backend = "postgres".into();
        settings.storage.url = Some("postgres://lore:secret@localhost/lore".into());
        settings.plugin_host.allowed_urls = vec!["postgres://warehouse".into()];
        let reach = import_reach(&settings);
        let refused = reach
            .check(&format, &url("postgresql://127.0.0.1:5432/lore"))
            .unwrap_err();
        assert!(refused.message.contains("own database"), "{refused}");
        let refused = reach
            .check(&format, &url("postgres://localhost/other"))
            .unwrap_err();
        assert!(refused.message.contains("allowed_urls"), "{refused}");
        assert!(
            reach
                .check(&format, &url("postgres://warehouse/sales"))
                .is_ok()
        );
    }
}
