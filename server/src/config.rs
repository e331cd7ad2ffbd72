//! Configuration: built-in defaults < `lore.toml` < environment (`LORE__SECTION__KEY`).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;

/// Everything `lore serve` can be configured with.
#[derive(Debug, Clone, Deserialize)]
pub struct Settings {
    pub server: ServerSettings,
    pub storage: StorageSettings,
    pub auth: AuthSettings,
    pub log: LogSettings,
    /// Importer plugins: `[[plugins]] path = "..."`, one table each.
    #[serde(default)]
    pub plugins: Vec<PluginSettings>,
    /// How plugin hosts run: `[plugin_host]`.
    #[serde(default)]
    pub plugin_host: PluginHostSettings,
    /// Background operations: `[operations]`.
    #[serde(default)]
    pub operations: OperationSettings,
    /// Where notifications go beyond the API: `[notifications]`.
    #[serde(default)]
    pub notifications: NotificationSettings,
    /// Who may read `GET /metrics`: `[metrics]`.
    #[serde(default)]
    pub metrics: MetricsSettings,
    /// OpenLineage intake: `[openlineage]`.
    #[serde(default)]
    pub openlineage: OpenLineageSettings,
    /// What history is kept: `[history]`.
    #[serde(default)]
    pub history: HistorySettings,
}

/// What history is kept (`docs/history.md`); purged every hour, and by `lore history
/// purge`. Both 0 (the default): everything is kept.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HistorySettings {
    /// Keep the history of the last this many days; 0: no rule of days.
    pub keep_days: u64,
    /// Never forget the history of any of a model's this many newest versions; 0: no
    /// rule of versions.
    pub keep_versions: u64,
    /// Keep the history of curation (endorsements, certifications, comments, warnings,
    /// watches) and grants of the last this many days; 0 (the default): all of it,
    /// whatever the rules above forget of the models.
    pub keep_curation_days: u64,
}

/// OpenLineage intake (`POST /api/v1/lineage`).
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OpenLineageSettings {
    /// How many days the raw events are kept (the runs they describe stay); 0 keeps them.
    pub retention_days: u64,
    /// The most `inputs` one event may name.
    pub max_inputs: usize,
    /// The most `outputs` one event may name.
    pub max_outputs: usize,
    /// The most lineage edges one event may set (table and column edges).
    pub max_edges: usize,
    /// The most fields one `schema` facet may hold, nested fields counted.
    pub max_schema_fields: usize,
    /// How far ahead of the server's clock an `eventTime` may be, e.g. `10m`.
    pub max_clock_skew: String,
}

impl Default for OpenLineageSettings {
    fn default() -> Self {
        let limits = lore_core::openlineage::EventLimits::default();
        Self {
            retention_days: 90,
            max_inputs: limits.max_inputs,
            max_outputs: limits.max_outputs,
            max_edges: limits.max_edges,
            max_schema_fields: limits.max_schema_fields,
            max_clock_skew: "10m".to_owned(),
        }
    }
}

impl OpenLineageSettings {
    /// The bounds on one event, checked.
    pub fn limits(&self) -> Result<lore_core::openlineage::EventLimits, ConfigError> {
        let max_clock_skew = parse_duration(&self.max_clock_skew).ok_or_else(|| {
            ConfigError(format!(
                "openlineage.max_clock_skew '{}' is not a duration like 10m, 1h or 90s",
                self.max_clock_skew
            ))
        })?;
        for (key, value) in [
            ("max_inputs", self.max_inputs),
            ("max_outputs", self.max_outputs),
            ("max_edges", self.max_edges),
            ("max_schema_fields", self.max_schema_fields),
        ] {
            if value == 0 {
                return Err(ConfigError(format!(
                    "openlineage.{key} is 0: no event could pass it"
                )));
            }
        }
        Ok(lore_core::openlineage::EventLimits {
            max_inputs: self.max_inputs,
            max_outputs: self.max_outputs,
            max_edges: self.max_edges,
            max_schema_fields: self.max_schema_fields,
            max_clock_skew,
        })
    }
}

/// Where `GET /metrics` (the Prometheus text format) is served; nowhere by default.
#[derive(Clone, Default, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct MetricsSettings {
    /// A listener of its own serving only `GET /metrics`, e.g. `127.0.0.1:9480` (an
    /// address only the scraper reaches).
    pub listen: Option<String>,
    /// A bearer token: with it `GET /metrics` is served on `server.listen` too, to
    /// requests with `Authorization: Bearer <token>` (and the `listen` one asks for it).
    /// At least 16 characters; or `LORE__METRICS__TOKEN_FILE`.
    pub token: Option<String>,
}

impl std::fmt::Debug for MetricsSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MetricsSettings")
            .field("listen", &self.listen)
            .field("token", &self.token.as_ref().map(|_| "***"))
            .finish()
    }
}

impl MetricsSettings {
    /// Checks the token's length and the listen address's shape.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if let Some(token) = &self.token
            && token.chars().count() < 16
        {
            return Err(ConfigError(
                "metrics.token must have at least 16 characters".into(),
            ));
        }
        if let Some(listen) = &self.listen
            && listen.trim().is_empty()
        {
            return Err(ConfigError(
                "metrics.listen must be an address and port, e.g. 127.0.0.1:9480".into(),
            ));
        }
        Ok(())
    }
}

/// Delivery of notifications (spec 6): signed webhooks and e-mail, retried with back-off
/// from an outbox in the store.
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct NotificationSettings {
    /// `[[notifications.webhooks]]`: each notification event is POSTed to each.
    pub webhooks: Vec<WebhookSettings>,
    /// `[notifications.smtp]`: notified users with an e-mail address get one.
    pub smtp: Option<SmtpSettings>,
    /// The wait before the first retry of a failed delivery; each further retry waits
    /// twice as long, up to `retry_max`.
    pub retry_initial: String,
    pub retry_max: String,
    /// Attempts before a delivery is given up (it stays in the outbox, FAILED).
    pub max_attempts: u32,
    /// How often the sender looks for due deliveries.
    pub poll_interval: String,
    /// The time limit of one attempt.
    pub timeout: String,
}

impl Default for NotificationSettings {
    fn default() -> Self {
        Self {
            webhooks: Vec::new(),
            smtp: None,
            retry_initial: "10s".into(),
            retry_max: "1h".into(),
            max_attempts: 12,
            poll_interval: "2s".into(),
            timeout: "10s".into(),
        }
    }
}

/// One webhook: notification events are POSTed to `url` as JSON, signed with HMAC-SHA256
/// under `secret` (`X-Lore-Signature: sha256=<hex>` over `<X-Lore-Timestamp>.<body>`).
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebhookSettings {
    /// A name unique among the webhooks; the outbox refers to the webhook by it.
    pub name: String,
    /// An http(s) URL.
    pub url: String,
    /// The signing secret, at least 16 characters; or `secret_file`, a file holding it.
    pub secret: Option<String>,
    pub secret_file: Option<PathBuf>,
}

impl std::fmt::Debug for WebhookSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookSettings")
            .field("name", &self.name)
            .field("url", &self.url)
            .field("secret", &self.secret.as_ref().map(|_| "***"))
            .field("secret_file", &self.secret_file)
            .finish()
    }
}

impl WebhookSettings {
    /// The signing secret, read from `secret_file` when that is given.
    pub fn secret(&self) -> Result<String, ConfigError> {
        let secret = match (&self.secret, &self.secret_file) {
            (Some(_), Some(_)) => {
                return Err(ConfigError(format!(
                    "notifications.webhooks '{}': set secret or secret_file, not both",
                    self.name
                )));
            }
            (Some(secret), None) => secret.clone(),
            (None, Some(path)) => std::fs::read_to_string(path)
                .map(|s| s.trim_end_matches(['\r', '\n']).to_owned())
                .map_err(|e| {
                    ConfigError(format!(
                        "notifications.webhooks '{}': cannot read secret_file {}: {e}",
                        self.name,
                        path.display()
                    ))
                })?,
            (None, None) => {
                return Err(ConfigError(format!(
                    "notifications.webhooks '{}' needs a secret (or secret_file) to sign with",
                    self.name
                )));
            }
        };
        if secret.chars().count() < 16 {
            return Err(ConfigError(format!(
                "notifications.webhooks '{}': the secret must have at least 16 characters",
                self.name
            )));
        }
        Ok(secret)
    }
}

/// The SMTP server notification e-mails go through.
#[derive(Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SmtpSettings {
    pub host: String,
    /// 587 for `starttls`, 465 for `tls`, 25 for `none` when unset.
    pub port: Option<u16>,
    /// The sender address, e.g. `Lore <lore@example.com>`.
    pub from: String,
    pub username: Option<String>,
    /// Or `LORE__NOTIFICATIONS__SMTP__PASSWORD_FILE`.
    pub password: Option<String>,
    /// `starttls` (default), `tls` (implicit TLS) or `none` (plain text: only for a relay
    /// on the same machine or network).
    #[serde(default = "default_smtp_tls")]
    pub tls: String,
}

fn default_smtp_tls() -> String {
    "starttls".into()
}

impl std::fmt::Debug for SmtpSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SmtpSettings")
            .field("host", &self.host)
            .field("port", &self.port)
            .field("from", &self.from)
            .field("username", &self.username)
            .field("password", &self.password.as_ref().map(|_| "***"))
            .field("tls", &self.tls)
            .finish()
    }
}

/// The timing of notification delivery, read from `[notifications]`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DeliveryTiming {
    pub retry_initial: Duration,
    pub retry_max: Duration,
    pub poll_interval: Duration,
    pub timeout: Duration,
}

impl NotificationSettings {
    /// The durations, checked.
    pub fn timing(&self) -> Result<DeliveryTiming, ConfigError> {
        let read = |name: &str, text: &str| {
            parse_duration(text).ok_or_else(|| {
                ConfigError(format!(
                    "notifications.{name} '{text}' is not a duration like 10s, 5m or 1h"
                ))
            })
        };
        Ok(DeliveryTiming {
            retry_initial: read("retry_initial", &self.retry_initial)?,
            retry_max: read("retry_max", &self.retry_max)?,
            poll_interval: read("poll_interval", &self.poll_interval)?,
            timeout: read("timeout", &self.timeout)?,
        })
    }

    /// Checks the section: durations, attempts, unique webhook names with http(s) URLs
    /// and secrets, an SMTP server with a sender and a known TLS mode.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let timing = self.timing()?;
        if timing.retry_max < timing.retry_initial {
            return Err(ConfigError(
                "notifications.retry_max must not be below notifications.retry_initial".into(),
            ));
        }
        if self.max_attempts == 0 {
            return Err(ConfigError(
                "notifications.max_attempts must be at least 1".into(),
            ));
        }
        let mut names = std::collections::HashSet::new();
        for webhook in &self.webhooks {
            if webhook.name.trim().is_empty() || !names.insert(webhook.name.as_str()) {
                return Err(ConfigError(format!(
                    "notifications.webhooks: each needs a name of its own ('{}')",
                    webhook.name
                )));
            }
            if !(webhook.url.starts_with("https://") || webhook.url.starts_with("http://")) {
                return Err(ConfigError(format!(
                    "notifications.webhooks '{}': url '{}' must be an http(s) URL",
                    webhook.name, webhook.url
                )));
            }
            webhook.secret()?;
        }
        if let Some(smtp) = &self.smtp {
            if smtp.host.trim().is_empty() {
                return Err(ConfigError("notifications.smtp.host must be set".into()));
            }
            if !smtp.from.contains('@') {
                return Err(ConfigError(format!(
                    "notifications.smtp.from '{}' must be an e-mail address",
                    smtp.from
                )));
            }
            if !["starttls", "tls", "none"].contains(&smtp.tls.as_str()) {
                return Err(ConfigError(format!(
                    "notifications.smtp.tls '{}' is unknown; use starttls, tls or none",
                    smtp.tls
                )));
            }
            if smtp.username.is_some() != smtp.password.is_some() {
                return Err(ConfigError(
                    "notifications.smtp.username and notifications.smtp.password must be set together".into(),
                ));
            }
        }
        Ok(())
    }
}

/// Background operations (imports started by `startImport`).
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct OperationSettings {
    /// How often a running operation records its progress and renews its heartbeat.
    pub heartbeat: String,
    /// A running operation without a heartbeat for this long lost its Lore process (a
    /// crash, a restart) and is marked failed. Keep it well above `heartbeat`.
    pub stale_after: String,
}

impl Default for OperationSettings {
    fn default() -> Self {
        Self {
            heartbeat: "2s".into(),
            stale_after: "60s".into(),
        }
    }
}

/// One importer plugin library.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginSettings {
    /// The shared library (`.so`, `.dylib`, `.dll`), absolute or relative to the working
    /// directory.
    pub path: PathBuf,
    /// This plugin's time limit per import, instead of `plugin_host.timeout`.
    pub timeout: Option<String>,
    /// This plugin's memory limit in MiB, instead of `plugin_host.memory_mib`.
    pub memory_mib: Option<u64>,
}

/// The child processes imports run in (`lore plugin-host`).
#[derive(Debug, Clone, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PluginHostSettings {
    /// The `lore` executable to start as the plugin host; this one when unset.
    pub program: Option<PathBuf>,
    /// An import running longer is stopped and fails, e.g. `30m`, `2h`.
    pub timeout: String,
    /// Address-space limit of a plugin host, in MiB.
    pub memory_mib: u64,
    /// Most MiB of records one import may send.
    pub max_output_mib: u64,
    /// Where importers' URL parameters may point, e.g. `["postgres://warehouse:5432",
    /// "sqlite:/srv/data"]` (a server and its databases; the files below a directory).
    /// Empty: anywhere but Lore's own database, which no importer may read.
    pub allowed_urls: Vec<String>,
}

impl Default for PluginHostSettings {
    fn default() -> Self {
        Self {
            program: None,
            timeout: "1h".into(),
            memory_mib: 4096,
            max_output_mib: 8192,
            allowed_urls: Vec::new(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct ServerSettings {
    /// Address and port to listen on.
    pub listen: String,
    /// Path prefix of every API route.
    pub base_path: String,
    /// Largest accepted request body, in MiB (model archive uploads excepted).
    pub max_body_mib: u64,
    /// Largest accepted model archive upload, in MiB; spooled to a temporary file.
    pub max_upload_mib: u64,
    /// Whether the last address of `X-Forwarded-For` (the one the proxy in front added)
    /// is the client's, for the system log and login throttling; otherwise the peer's
    /// address is.
    pub trust_forwarded_for: bool,
    /// The address browsers reach Lore at (`https://lore.example.com`), when a proxy in
    /// front of it ends TLS: with `https://` the web UI's cookies are always Secure, and
    /// OpenID Connect sign-in returns here.
    #[serde(default)]
    pub public_url: Option<String>,
}

/// Which store to use and where it keeps its data.
#[derive(Clone, Deserialize)]
pub struct StorageSettings {
    /// `sqlite`, `postgres` or `memory`.
    pub backend: String,
    /// The SQLite database file.
    pub path: PathBuf,
    /// The PostgreSQL URL.
    pub url: Option<String>,
}

impl std::fmt::Debug for StorageSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StorageSettings")
            .field("backend", &self.backend)
            .field("path", &self.path)
            .field("url", &self.url.as_deref().map(mask_password))
            .finish()
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct AuthSettings {
    /// How long an API key stays valid after login however much it is used, e.g.
    /// `30m`, `8h`, `1d`, `90s`.
    pub login_timeout: String,
    /// How long an API key stays valid without being used.
    pub idle_timeout: String,
    /// OAuth 2.0 / OpenID Connect login (`POST /auth/loginOAuth2`); off unless enabled.
    #[serde(default)]
    pub oauth2: OAuth2Settings,
}

/// The `[auth.oauth2]` section: login with access tokens of an OpenID provider.
/// Password login stays on beside it.
#[derive(Clone, Deserialize)]
#[serde(default)]
pub struct OAuth2Settings {
    pub enabled: bool,
    /// The provider's issuer URL; discovery reads `<issuer>/.well-known/openid-configuration`,
    /// and tokens must carry exactly this `iss`.
    pub issuer: Option<String>,
    /// The audience tokens must name in `aud` (required when enabled).
    pub audience: Option<String>,
    /// The claim that holds the Lore user name; a token without it is refused.
    pub user_claim: String,
    /// The claim that holds the user's provider groups.
    pub groups_claim: String,
    /// Provider group (claim value) to Lore group name; unmapped values are ignored.
    pub groups: BTreeMap<String, String>,
    /// Whether the first login of an unknown user creates the account (enabled, no
    /// password, no roles); otherwise such a login is refused.
    pub create_users: bool,
    /// Whether a first sign-in links the one account that is not yet linked and has the
    /// token's e-mail address, when the provider says it verified it (`email_verified`).
    /// Off: an administrator links existing accounts (`PUT /admin/users/{id}/identity`).
    pub link_verified_email: bool,
    /// Client credentials for the introspection endpoint (RFC 7662), for opaque tokens.
    pub introspection_client_id: Option<String>,
    pub introspection_client_secret: Option<String>,
    /// Clock skew allowed on `exp` and `nbf`, e.g. `60s`, `2m` or `0`.
    pub leeway: String,
    /// Signature algorithms accepted: asymmetric ones only (RS*, PS*, ES*, EdDSA).
    pub algorithms: Vec<String>,
    /// The web UI's OpenID Connect sign-in (authorization code with PKCE): Lore's client
    /// id at the provider. Unset: the login page offers the password form only.
    pub client_id: Option<String>,
    /// The client secret, for providers that require one of a confidential client.
    pub client_secret: Option<String>,
    /// The scopes the sign-in asks for.
    pub scopes: String,
}

impl Default for OAuth2Settings {
    fn default() -> Self {
        Self {
            enabled: false,
            issuer: None,
            audience: None,
            user_claim: "preferred_username".into(),
            groups_claim: "groups".into(),
            groups: BTreeMap::new(),
            create_users: false,
            link_verified_email: false,
            introspection_client_id: None,
            introspection_client_secret: None,
            leeway: "60s".into(),
            algorithms: vec!["RS256".into(), "ES256".into()],
            client_id: None,
            client_secret: None,
            scopes: "openid profile email".into(),
        }
    }
}

impl std::fmt::Debug for OAuth2Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OAuth2Settings")
            .field("enabled", &self.enabled)
            .field("issuer", &self.issuer)
            .field("audience", &self.audience)
            .field("user_claim", &self.user_claim)
            .field("groups_claim", &self.groups_claim)
            .field("groups", &self.groups)
            .field("create_users", &self.create_users)
            .field("link_verified_email", &self.link_verified_email)
            .field("introspection_client_id", &self.introspection_client_id)
            .field(
                "introspection_client_secret",
                &self.introspection_client_secret.as_ref().map(|_| "***"),
            )
            .field("leeway", &self.leeway)
            .field("algorithms", &self.algorithms)
            .field("client_id", &self.client_id)
            .field("client_secret", &self.client_secret.as_ref().map(|_| "***"))
            .field("scopes", &self.scopes)
            .finish()
    }
}

/// Algorithms `auth.oauth2.algorithms` may name: asymmetric only, so a provider's public
/// key can never be used as an HMAC secret, and never `none`.
pub const OAUTH2_ALGORITHMS: &[&str] = &[
    "RS256", "RS384", "RS512", "PS256", "PS384", "PS512", "ES256", "ES384", "EdDSA",
];

impl OAuth2Settings {
    /// The leeway on `exp` and `nbf`.
    pub fn leeway(&self) -> Result<Duration, ConfigError> {
        let text = self.leeway.trim();
        if text.trim_end_matches('s') == "0" {
            return Ok(Duration::ZERO);
        }
        parse_duration(text).ok_or_else(|| {
            ConfigError(format!(
                "auth.oauth2.leeway '{}' is not a duration like 60s, 2m or 0",
                self.leeway
            ))
        })
    }

    /// Checks an enabled section: issuer and audience set, the issuer a URL, the
    /// algorithms known and asymmetric, the introspection credentials complete.
    pub fn validate(&self) -> Result<(), ConfigError> {
        if !self.enabled {
            return Ok(());
        }
        let issuer = self.issuer.as_deref().map(str::trim).unwrap_or_default();
        if issuer.is_empty() {
            return Err(ConfigError(
                "auth.oauth2.issuer must be set when auth.oauth2.enabled = true (the provider's issuer URL)".into(),
            ));
        }
        if !(issuer.starts_with("https://") || issuer.starts_with("http://")) {
            return Err(ConfigError(format!(
                "auth.oauth2.issuer '{issuer}' must be an http(s) URL"
            )));
        }
        if self.audience.as_deref().is_none_or(|a| a.trim().is_empty()) {
            return Err(ConfigError(
                "auth.oauth2.audience must be set when auth.oauth2.enabled = true (the aud tokens must name)".into(),
            ));
        }
        if self.user_claim.trim().is_empty() {
            return Err(ConfigError(
                "auth.oauth2.user_claim must not be empty".into(),
            ));
        }
        if self.algorithms.is_empty() {
            return Err(ConfigError(
                "auth.oauth2.algorithms must name at least one algorithm, e.g. [\"RS256\"]".into(),
            ));
        }
        for algorithm in &self.algorithms {
            if !OAUTH2_ALGORITHMS.contains(&algorithm.as_str()) {
                return Err(ConfigError(format!(
                    "auth.oauth2.algorithms: '{algorithm}' is not accepted; use asymmetric ones: {}",
                    OAUTH2_ALGORITHMS.join(", ")
                )));
            }
        }
        if self.introspection_client_id.is_some() != self.introspection_client_secret.is_some() {
            return Err(ConfigError(
                "auth.oauth2.introspection_client_id and auth.oauth2.introspection_client_secret must be set together".into(),
            ));
        }
        self.leeway()?;
        Ok(())
    }
}

#[derive(Debug, Clone, Deserialize)]
pub struct LogSettings {
    /// `text` or `json`.
    pub format: String,
    /// A tracing filter such as `info` or `lore_server=debug,info`.
    pub level: String,
    /// How many days system log entries are kept; 0 keeps them.
    pub retention_days: u64,
    /// How long a system log entry may wait before its batch is written (`1s`, `200ms`).
    pub flush_interval: String,
    /// How many system log entries may wait to be written; more are dropped and counted.
    pub queue_capacity: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            server: ServerSettings {
                listen: "127.0.0.1:11480".into(),
                base_path: "/MM/rest/v1".into(),
                max_body_mib: 64,
                max_upload_mib: 1024,
                trust_forwarded_for: false,
                public_url: None,
            },
            storage: StorageSettings {
                backend: "sqlite".into(),
                path: "lore-data/lore.db".into(),
                url: None,
            },
            auth: AuthSettings {
                login_timeout: "12h".into(),
                idle_timeout: "30m".into(),
                oauth2: OAuth2Settings::default(),
            },
            log: LogSettings {
                format: "text".into(),
                level: "info".into(),
                retention_days: 30,
                flush_interval: "1s".into(),
                queue_capacity: 10_000,
            },
            plugins: Vec::new(),
            plugin_host: PluginHostSettings::default(),
            operations: OperationSettings::default(),
            openlineage: OpenLineageSettings::default(),
            history: HistorySettings::default(),
            notifications: NotificationSettings::default(),
            metrics: MetricsSettings::default(),
        }
    }
}

/// A configuration problem, said in words a user can act on.
#[derive(Debug, thiserror::Error)]
#[error("configuration: {0}")]
pub struct ConfigError(pub String);

impl Settings {
    /// Loads the layers: defaults, then the file (`path`, or `lore.toml` in the working
    /// directory when it exists), then `LORE__SECTION__KEY` environment variables, where
    /// `LORE__SECTION__KEY_FILE` names a file holding the value (see [`file_values`]).
    pub fn load(path: Option<&Path>) -> Result<Self, ConfigError> {
        Self::load_with_env(path, std::env::vars().collect())
    }

    /// [`Settings::load`] over the given environment variables.
    pub fn load_with_env(
        path: Option<&Path>,
        env: HashMap<String, String>,
    ) -> Result<Self, ConfigError> {
        let from_files = file_values(&env)?;
        let defaults = Settings::default();
        let mut builder = config::Config::builder()
            .set_default("server.listen", defaults.server.listen)
            .and_then(|b| b.set_default("server.base_path", defaults.server.base_path))
            .and_then(|b| b.set_default("server.max_body_mib", defaults.server.max_body_mib))
            .and_then(|b| b.set_default("server.max_upload_mib", defaults.server.max_upload_mib))
            .and_then(|b| b.set_default("storage.backend", defaults.storage.backend))
            .and_then(|b| {
                b.set_default(
                    "storage.path",
                    defaults.storage.path.to_string_lossy().into_owned(),
                )
            })
            .and_then(|b| b.set_default("auth.login_timeout", defaults.auth.login_timeout))
            .and_then(|b| b.set_default("auth.idle_timeout", defaults.auth.idle_timeout))
            .and_then(|b| b.set_default("log.format", defaults.log.format))
            .and_then(|b| b.set_default("log.level", defaults.log.level))
            .and_then(|b| b.set_default("log.retention_days", defaults.log.retention_days))
            .and_then(|b| b.set_default("log.flush_interval", defaults.log.flush_interval))
            .and_then(|b| b.set_default("log.queue_capacity", defaults.log.queue_capacity as u64))
            .and_then(|b| {
                b.set_default(
                    "server.trust_forwarded_for",
                    defaults.server.trust_forwarded_for,
                )
            })
            .map_err(|e| ConfigError(e.to_string()))?;
        builder = match path {
            Some(p) => builder.add_source(config::File::from(p).required(true)),
            None => builder.add_source(config::File::with_name("lore.toml").required(false)),
        };
        builder = builder.add_source(
            config::Environment::with_prefix("LORE")
                .prefix_separator("__")
                .separator("__")
                .try_parsing(true)
                .source(Some(env.into_iter().collect())),
        );
        for (key, value) in from_files {
            builder = builder
                .set_override(key, value)
                .map_err(|e| ConfigError(e.to_string()))?;
        }
        let settings: Settings = builder
            .build()
            .and_then(|c| c.try_deserialize())
            .map_err(|e| ConfigError(e.to_string()))?;
        settings.validate()?;
        Ok(settings)
    }

    /// Checks values the types cannot: the base path shape, the timeout, the backend name.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let base = &self.server.base_path;
        if !base.starts_with('/') || base.ends_with('/') || base.len() < 2 {
            return Err(ConfigError(format!(
                "server.base_path '{base}' must start with '/' and not end with '/', e.g. /MM/rest/v1"
            )));
        }
        self.login_timeout()?;
        self.idle_timeout()?;
        self.auth.oauth2.validate()?;
        if !["sqlite", "postgres", "memory"].contains(&self.storage.backend.as_str()) {
            return Err(ConfigError(format!(
                "storage.backend '{}' is unknown; use sqlite, postgres or memory",
                self.storage.backend
            )));
        }
        if self.storage.backend == "postgres" && self.storage.url.is_none() {
            return Err(ConfigError(
                "storage.backend = \"postgres\" needs storage.url".into(),
            ));
        }
        self.flush_interval()?;
        if self.log.queue_capacity == 0 {
            return Err(ConfigError("log.queue_capacity must be at least 1".into()));
        }
        if self.server.max_body_mib == 0 {
            return Err(ConfigError("server.max_body_mib must be at least 1".into()));
        }
        for plugin in &self.plugins {
            self.plugin_limits(plugin)?;
        }
        let (heartbeat, stale_after) = self.operation_timing()?;
        if stale_after < heartbeat * 3 {
            return Err(ConfigError(format!(
                "operations.stale_after '{}' must be at least three times operations.heartbeat '{}'",
                self.operations.stale_after, self.operations.heartbeat
            )));
        }
        if self.server.max_upload_mib == 0 {
            return Err(ConfigError(
                "server.max_upload_mib must be at least 1".into(),
            ));
        }
        self.notifications.validate()?;
        self.metrics.validate()?;
        Ok(())
    }

    pub fn login_timeout(&self) -> Result<Duration, ConfigError> {
        parse_duration(&self.auth.login_timeout).ok_or_else(|| {
            ConfigError(format!(
                "auth.login_timeout '{}' is not a duration like 30m, 8h or 90s",
                self.auth.login_timeout
            ))
        })
    }

    pub fn idle_timeout(&self) -> Result<Duration, ConfigError> {
        parse_duration(&self.auth.idle_timeout).ok_or_else(|| {
            ConfigError(format!(
                "auth.idle_timeout '{}' is not a duration like 30m, 8h or 90s",
                self.auth.idle_timeout
            ))
        })
    }

    /// `log.flush_interval` as a duration.
    pub fn flush_interval(&self) -> Result<Duration, ConfigError> {
        parse_duration(&self.log.flush_interval).ok_or_else(|| {
            ConfigError(format!(
                "log.flush_interval '{}' is not a duration like 1s or 200ms",
                self.log.flush_interval
            ))
        })
    }

    /// How long raw OpenLineage events are kept (`openlineage.retention_days`); `None`
    /// keeps them.
    pub fn lineage_event_retention(&self) -> Option<Duration> {
        (self.openlineage.retention_days > 0)
            .then(|| Duration::from_secs(self.openlineage.retention_days.saturating_mul(86_400)))
    }

    /// What history is kept (`history.keep_days`, `history.keep_versions`,
    /// `history.keep_curation_days`); `None` when all are 0, which keeps it all.
    pub fn history_retention(&self) -> Option<(u64, u64, u64)> {
        let HistorySettings {
            keep_days,
            keep_versions,
            keep_curation_days,
        } = self.history;
        (keep_days > 0 || keep_versions > 0 || keep_curation_days > 0).then_some((
            keep_days,
            keep_versions,
            keep_curation_days,
        ))
    }

    /// How long system log entries are kept (`log.retention_days`); `None` keeps them.
    pub fn log_retention(&self) -> Option<Duration> {
        (self.log.retention_days > 0)
            .then(|| Duration::from_secs(self.log.retention_days.saturating_mul(86_400)))
    }

    /// `operations.heartbeat` and `operations.stale_after`.
    pub fn operation_timing(&self) -> Result<(Duration, Duration), ConfigError> {
        let read = |name: &str, text: &str| {
            parse_duration(text).ok_or_else(|| {
                ConfigError(format!(
                    "operations.{name} '{text}' is not a duration like 2s or 1m"
                ))
            })
        };
        Ok((
            read("heartbeat", &self.operations.heartbeat)?,
            read("stale_after", &self.operations.stale_after)?,
        ))
    }

    /// The host settings of one plugin: `[plugin_host]` with the plugin's own limits.
    pub fn plugin_limits(
        &self,
        plugin: &PluginSettings,
    ) -> Result<lore_plugin_host::HostSettings, ConfigError> {
        let host = &self.plugin_host;
        let timeout_text = plugin.timeout.as_deref().unwrap_or(&host.timeout);
        let timeout = parse_duration(timeout_text).ok_or_else(|| {
            ConfigError(format!(
                "the timeout '{timeout_text}' of plugin {} is not a duration like 30m or 2h",
                plugin.path.display()
            ))
        })?;
        let memory_mib = plugin.memory_mib.unwrap_or(host.memory_mib);
        if memory_mib < 64 {
            return Err(ConfigError(format!(
                "the memory limit of plugin {} must be at least 64 MiB",
                plugin.path.display()
            )));
        }
        let program = match &host.program {
            Some(program) => program.clone(),
            None => std::env::current_exe().map_err(|e| {
                ConfigError(format!(
                    "cannot find this lore executable to run plugins with ({e}); set plugin_host.program"
                ))
            })?,
        };
        Ok(lore_plugin_host::HostSettings {
            program,
            timeout,
            memory_mib,
            max_output_mib: host.max_output_mib.max(1),
            crashes: lore_plugin_host::Crashes::default(),
        })
    }

    pub fn max_body_bytes(&self) -> usize {
        usize::try_from(self.server.max_body_mib.saturating_mul(1 << 20)).unwrap_or(usize::MAX)
    }

    pub fn max_upload_bytes(&self) -> usize {
        usize::try_from(self.server.max_upload_mib.saturating_mul(1 << 20)).unwrap_or(usize::MAX)
    }
}

/// Reads `200ms`, `90s`, `30m`, `8h`, `1d` or a bare number of seconds.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().ok()?;
    let seconds = match unit.trim() {
        "ms" => return (number > 0).then(|| Duration::from_millis(number)),
        "" | "s" => number,
        "m" => number.checked_mul(60)?,
        "h" => number.checked_mul(3600)?,
        "d" => number.checked_mul(86_400)?,
        _ => return None,
    };
    (seconds > 0).then(|| Duration::from_secs(seconds))
}

/// The suffix of an environment variable that names a file holding the value of the
/// variable without it.
pub const FILE_SUFFIX: &str = "_FILE";

/// The configuration values given through files: for every `LORE__SECTION__KEY_FILE`,
/// the key `section.key` and the file's content (one trailing newline trimmed), so
/// secrets need not sit in the environment. Setting both `LORE__SECTION__KEY` and
/// `LORE__SECTION__KEY_FILE` is an error naming both; so is a file that cannot be read.
pub fn file_values(env: &HashMap<String, String>) -> Result<Vec<(String, String)>, ConfigError> {
    let mut values = Vec::new();
    let mut names: Vec<&String> = env.keys().collect();
    names.sort();
    for name in names {
        let Some(direct) = name.strip_suffix(FILE_SUFFIX) else {
            continue;
        };
        let Some(path) = direct.strip_prefix("LORE__") else {
            continue;
        };
        let value = value_or_file(env, direct)?.unwrap_or_default();
        let key = path
            .split("__")
            .collect::<Vec<_>>()
            .join(".")
            .to_lowercase();
        values.push((key, value));
    }
    Ok(values)
}

/// The value of the environment variable `name`, or the content of the file that
/// `<name>_FILE` names (one trailing newline trimmed); an error when both are set or
/// the file cannot be read. For secrets such as `LORE_ADMIN_PASSWORD`.
pub fn value_or_file(
    env: &HashMap<String, String>,
    name: &str,
) -> Result<Option<String>, ConfigError> {
    let file_name = format!("{name}{FILE_SUFFIX}");
    match (env.get(name), env.get(&file_name)) {
        (Some(_), Some(_)) => Err(ConfigError(format!(
            "both {name} and {file_name} are set; set one of them"
        ))),
        (Some(value), None) => Ok(Some(value.clone())),
        (None, Some(path)) => {
            let mut value = std::fs::read_to_string(path).map_err(|e| {
                ConfigError(format!("{file_name}: cannot read the file {path}: {e}"))
            })?;
            if value.ends_with('\n') {
                value.pop();
                if value.ends_with('\r') {
                    value.pop();
                }
            }
            Ok(Some(value))
        }
        (None, None) => Ok(None),
    }
}

/// Replaces the password of a URL with `***` for logs: the one before `@`, and a
/// `password=` query parameter (which PostgreSQL URLs accept too).
pub fn mask_password(url: &str) -> String {
    let masked = match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &url[scheme + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    };
    let Some((address, query)) = masked.split_once('?') else {
        return masked;
    };
    let query: Vec<String> = query
        .split('&')
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if name.eq_ignore_ascii_case("password") => format!("{name}=***"),
            _ => pair.to_owned(),
        })
        .collect();
    format!("{address}?{}", query.join("&"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations() {
        assert_eq!(parse_duration("30m"), Some(Duration::from_secs(1800)));
        assert_eq!(parse_duration("90"), Some(Duration::from_secs(90)));
        assert_eq!(parse_duration("1d"), Some(Duration::from_secs(86400)));
        assert_eq!(parse_duration("0s"), None);
        assert_eq!(parse_duration("soon"), None);
    }

    #[test]
    fn passwords_are_masked() {
        assert_eq!(
            mask_password("postgres://u:secret@h/db"),
            "postgres://u:***@h/db"
        );
        assert_eq!(mask_password("postgres://u@h/db"), "postgres://u@h/db");
        assert_eq!(
            mask_password("postgres://u@h/db?sslmode=require&password=secret"),
            "postgres://u@h/db?sslmode=require&password=***"
        );
    }

    #[test]
    fn file_then_environment_override_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("lore.toml");
        std::fs::write(
            &file,
            "[server]\nlisten = \"127.0.0.1:9999\"\n[storage]\nbackend = \"memory\"\n",
        )
        .unwrap();
        let settings = Settings::load(Some(&file)).unwrap();
        assert_eq!(settings.server.listen, "127.0.0.1:9999");
        assert_eq!(settings.storage.backend, "memory");
        assert_eq!(settings.server.base_path, "/MM/rest/v1");
        assert!(Settings::load(Some(&dir.path().join("missing.toml"))).is_err());
        assert!(!settings.auth.oauth2.enabled);
    }

    #[test]
    fn oauth2_section_reads_with_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("lore.toml");
        std::fs::write(
            &file,
            "[auth.oauth2]\nenabled = true\nissuer = \"https://id.example.org/realms/x\"\n\
             audience = \"lore\"\ncreate_users = true\n\
             [auth.oauth2.groups]\n\"lore-admins\" = \"Administrators\"\n\"Data Stewards\" = \"Stewards\"\n",
        )
        .unwrap();
        let settings = Settings::load(Some(&file)).unwrap();
        let oauth2 = &settings.auth.oauth2;
        assert!(oauth2.enabled && oauth2.create_users);
        assert_eq!(oauth2.audience.as_deref(), Some("lore"));
        assert_eq!(oauth2.user_claim, "preferred_username");
        assert_eq!(oauth2.groups_claim, "groups");
        assert_eq!(oauth2.algorithms, ["RS256", "ES256"]);
        assert_eq!(oauth2.leeway().unwrap(), Duration::from_secs(60));
        assert_eq!(oauth2.groups["lore-admins"], "Administrators");
        assert_eq!(oauth2.groups["Data Stewards"], "Stewards");
    }

    #[test]
    fn oauth2_misconfiguration_names_the_key() {
        let mut settings = Settings::default();
        settings.auth.oauth2.enabled = true;
        let message = |s: &Settings| s.validate().unwrap_err().to_string();
        assert!(message(&settings).contains("auth.oauth2.issuer"));
        settings.auth.oauth2.issuer = Some("https://id.example.org".into());
        assert!(message(&settings).contains("auth.oauth2.audience"));
        settings.auth.oauth2.audience = Some("lore".into());
        settings.validate().unwrap();
        for bad in ["HS256", "none"] {
            settings.auth.oauth2.algorithms = vec![bad.into()];
            assert!(
                message(&settings).contains("auth.oauth2.algorithms"),
                "{bad}"
            );
        }
        settings.auth.oauth2.algorithms = vec!["ES256".into()];
        settings.auth.oauth2.introspection_client_id = Some("lore".into());
        assert!(message(&settings).contains("introspection_client_secret"));
        settings.auth.oauth2.introspection_client_secret = Some("secret".into());
        settings.auth.oauth2.leeway = "soon".into();
        assert!(message(&settings).contains("auth.oauth2.leeway"));
        settings.auth.oauth2.leeway = "0".into();
        settings.validate().unwrap();
        // Disabled, nothing else is checked.
        settings.auth.oauth2.enabled = false;
        settings.auth.oauth2.issuer = None;
        settings.validate().unwrap();
    }

    fn env(pairs: &[(&str, &str)]) -> HashMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    #[test]
    fn secrets_come_from_files_named_by_file_variables() {
        let dir = tempfile::tempdir().unwrap();
        let url_file = dir.path().join("url");
        std::fs::write(&url_file, "postgres://lore:s3cret@db/lore\n").unwrap();
        let password_file = dir.path().join("password");
        std::fs::write(&password_file, "admin-pw\r\n").unwrap();
        let url_path = url_file.to_string_lossy().into_owned();
        let password_path = password_file.to_string_lossy().into_owned();
        let vars = env(&[
            ("LORE__STORAGE__BACKEND", "postgres"),
            ("LORE__STORAGE__URL_FILE", &url_path),
            ("LORE_ADMIN_PASSWORD_FILE", &password_path),
        ]);
        let missing = dir.path().join("missing.toml");
        std::fs::write(&missing, "").unwrap();
        let settings = Settings::load_with_env(Some(&missing), vars.clone()).unwrap();
        assert_eq!(
            settings.storage.url.as_deref(),
            Some("postgres://lore:s3cret@db/lore"),
            "the file's content, its trailing newline trimmed"
        );
        assert_eq!(settings.storage.backend, "postgres");
        assert!(
            !format!("{settings:?}").contains("s3cret"),
            "the settings print the password masked"
        );
        assert_eq!(
            value_or_file(&vars, "LORE_ADMIN_PASSWORD")
                .unwrap()
                .as_deref(),
            Some("admin-pw")
        );
        assert_eq!(value_or_file(&vars, "LORE_NOTHING").unwrap(), None);

        let both = env(&[
            ("LORE__STORAGE__URL", "postgres://x@db/lore"),
            ("LORE__STORAGE__URL_FILE", &url_path),
        ]);
        let e = Settings::load_with_env(Some(&missing), both).unwrap_err();
        assert!(
            e.0.contains("LORE__STORAGE__URL ") && e.0.contains("LORE__STORAGE__URL_FILE"),
            "{e}"
        );
        let both = env(&[
            ("LORE_ADMIN_PASSWORD", "a"),
            ("LORE_ADMIN_PASSWORD_FILE", "b"),
        ]);
        assert!(value_or_file(&both, "LORE_ADMIN_PASSWORD").is_err());
        let unreadable = env(&[("LORE__STORAGE__URL_FILE", "/nonexistent/lore-url")]);
        let e = Settings::load_with_env(Some(&missing), unreadable).unwrap_err();
        assert!(e.0.contains("LORE__STORAGE__URL_FILE"), "{e}");
    }

    #[test]
    fn system_log_settings_have_defaults_and_are_checked() {
        let settings = Settings::default();
        assert_eq!(settings.flush_interval().unwrap(), Duration::from_secs(1));
        assert_eq!(
            settings.log_retention(),
            Some(Duration::from_secs(30 * 86_400))
        );
        assert!(!settings.server.trust_forwarded_for);
        assert_eq!(parse_duration("200ms"), Some(Duration::from_millis(200)));
        let mut keep = Settings::default();
        keep.log.retention_days = 0;
        assert_eq!(keep.log_retention(), None);
        let mut bad = Settings::default();
        bad.log.flush_interval = "often".into();
        assert!(bad.validate().unwrap_err().0.contains("log.flush_interval"));
    }

    #[test]
    fn metrics_are_off_by_default_and_the_token_is_checked() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("lore.toml");
        std::fs::write(&file, "").unwrap();
        let settings = Settings::load_with_env(Some(&file), HashMap::new()).unwrap();
        assert!(settings.metrics.listen.is_none() && settings.metrics.token.is_none());
        std::fs::write(
            &file,
            "[metrics]\nlisten = \"127.0.0.1:9480\"\ntoken = \"0123456789abcdef\"\n",
        )
        .unwrap();
        let settings = Settings::load_with_env(Some(&file), HashMap::new()).unwrap();
        assert_eq!(settings.metrics.listen.as_deref(), Some("127.0.0.1:9480"));
        assert!(!format!("{settings:?}").contains("0123456789abcdef"));
        let short = env(&[("LORE__METRICS__TOKEN", "short")]);
        let e = Settings::load_with_env(Some(&file), short).unwrap_err();
        assert!(e.0.contains("metrics.token"), "{e}");
        std::fs::write(&file, "[metrics]\nport = 9480\n").unwrap();
        assert!(Settings::load_with_env(Some(&file), HashMap::new()).is_err());
    }

    #[test]
    fn notification_settings_are_checked() {
        let webhook = |name: &str, url: &str, secret: &str| WebhookSettings {
            name: name.into(),
            url: url.into(),
            secret: Some(secret.into()),
            secret_file: None,
        };
        let refused = |change: &dyn Fn(&mut NotificationSettings), says: &str| {
            let mut settings = Settings::default();
            change(&mut settings.notifications);
            let error = settings.validate().expect_err(says).0;
            assert!(error.contains(says), "{error} should say {says}");
        };
        let good = || webhook("ops", "https://hooks.example.com/lore", "0123456789abcdef");
        let mut settings = Settings::default();
        settings.notifications.webhooks = vec![good()];
        settings.validate().expect("a good webhook");
        refused(&|n| n.webhooks = vec![good(), good()], "a name of its own");
        refused(
            &|n| n.webhooks = vec![webhook("ops", "ftp://x", "0123456789abcdef")],
            "http(s) URL",
        );
        refused(
            &|n| n.webhooks = vec![webhook("ops", "https://x", "short")],
            "at least 16",
        );
        refused(
            &|n| n.retry_initial = "soon".into(),
            "notifications.retry_initial",
        );
        refused(&|n| n.max_attempts = 0, "max_attempts");
        let smtp = || SmtpSettings {
            host: "mail.example.com".into(),
            port: None,
            from: "lore@example.com".into(),
            username: None,
            password: None,
            tls: "starttls".into(),
        };
        refused(
            &|n| {
                n.smtp = Some(SmtpSettings {
                    tls: "ssl3".into(),
                    ..smtp()
                })
            },
            "notifications.smtp.tls",
        );
        refused(
            &|n| {
                n.smtp = Some(SmtpSettings {
                    from: "nobody".into(),
                    ..smtp()
                })
            },
            "notifications.smtp.from",
        );
        let shown = format!(
            "{:?}",
            SmtpSettings {
                username: Some("lore".into()),
                password: Some("hunter2".into()),
                ..smtp()
            }
        );
        assert!(!shown.contains("hunter2"), "{shown}");
        assert!(!format!("{:?}", good()).contains("0123456789abcdef"));
    }
}
