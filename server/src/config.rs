//! Configuration: built-in defaults < `lore.toml` < environment (`LORE__SECTION__KEY`).

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
}

#[derive(Debug, Clone, Deserialize)]
pub struct LogSettings {
    /// `text` or `json`.
    pub format: String,
    /// A tracing filter such as `info` or `lore_server=debug,info`.
    pub level: String,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            server: ServerSettings {
                listen: "127.0.0.1:11480".into(),
                base_path: "/MM/rest/v1".into(),
                max_body_mib: 64,
                max_upload_mib: 1024,
            },
            storage: StorageSettings {
                backend: "sqlite".into(),
                path: "lore-data/lore.db".into(),
                url: None,
            },
            auth: AuthSettings {
                login_timeout: "12h".into(),
                idle_timeout: "30m".into(),
            },
            log: LogSettings {
                format: "text".into(),
                level: "info".into(),
            },
        }
    }
}

/// A configuration problem, said in words a user can act on.
#[derive(Debug, thiserror::Error)]
#[error("configuration: {0}")]
pub struct ConfigError(pub String);

impl Settings {
    /// Loads the layers: defaults, then the file (`path`, or `lore.toml` in the working
    /// directory when it exists), then `LORE__SECTION__KEY` environment variables.
    pub fn load(path: Option<&Path>) -> Result<Self, ConfigError> {
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
            .map_err(|e| ConfigError(e.to_string()))?;
        builder = match path {
            Some(p) => builder.add_source(config::File::from(p).required(true)),
            None => builder.add_source(config::File::with_name("lore.toml").required(false)),
        };
        builder = builder.add_source(
            config::Environment::with_prefix("LORE")
                .prefix_separator("__")
                .separator("__")
                .try_parsing(true),
        );
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
        if self.server.max_body_mib == 0 {
            return Err(ConfigError("server.max_body_mib must be at least 1".into()));
        }
        if self.server.max_upload_mib == 0 {
            return Err(ConfigError(
                "server.max_upload_mib must be at least 1".into(),
            ));
        }
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

    pub fn max_body_bytes(&self) -> usize {
        usize::try_from(self.server.max_body_mib.saturating_mul(1 << 20)).unwrap_or(usize::MAX)
    }

    pub fn max_upload_bytes(&self) -> usize {
        usize::try_from(self.server.max_upload_mib.saturating_mul(1 << 20)).unwrap_or(usize::MAX)
    }
}

/// Reads `90s`, `30m`, `8h`, `1d` or a bare number of seconds.
pub fn parse_duration(text: &str) -> Option<Duration> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let number: u64 = number.parse().ok()?;
    let seconds = match unit.trim() {
        "" | "s" => number,
        "m" => number.checked_mul(60)?,
        "h" => number.checked_mul(3600)?,
        "d" => number.checked_mul(86_400)?,
        _ => return None,
    };
    (seconds > 0).then(|| Duration::from_secs(seconds))
}

/// Replaces the password of a URL with `***` for logs.
pub fn mask_password(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let credentials = &url[scheme + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
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
    }
}
