//! The importer contract: the built-in importer and plugins turn a source into a model
//! archive file (`docs/model-archive.md`), which the catalog checks and lands in one
//! write transaction. Importers never touch the store.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

pub use lore_plugin_sdk::{About, FileUse, Format, Level, Progress};
use serde_json::{Map, Value};

use crate::archive::ArchiveLimits;
use crate::error::{Error, Result};

/// One import asked of an importer.
#[derive(Debug, Clone)]
pub struct ImportJob {
    /// One of the importer's format names.
    pub format: String,
    /// The file to read (an upload or a model's attachment), when the format reads one.
    pub file: Option<PathBuf>,
    /// The parameters, already checked against the format's schema.
    pub parameters: Map<String, Value>,
    /// A directory the importer may write its archive into; removed after the import.
    pub work_dir: PathBuf,
}

/// A model archive an importer produced.
#[derive(Debug, Clone)]
pub struct Produced {
    pub path: PathBuf,
    /// The bounds to read it with: an upload's are the server's archive limits; what a
    /// plugin host wrote was bounded when it was written.
    pub limits: ArchiveLimits,
}

/// Where an importer reports while it runs: the operation's log and progress.
pub trait ImportEvents: Send {
    fn log(&mut self, level: Level, message: &str);
    fn progress(&mut self, progress: &Progress);
}

/// Events nobody reads.
#[derive(Debug, Default)]
pub struct NoEvents;

impl ImportEvents for NoEvents {
    fn log(&mut self, _: Level, _: &str) {}
    fn progress(&mut self, _: &Progress) {}
}

/// An importer of one or more formats.
#[async_trait::async_trait]
pub trait Importer: Send + Sync + std::fmt::Debug {
    /// Its name, version and formats.
    fn about(&self) -> &About;
    /// Where it comes from: `built-in`, or the path of a plugin library.
    fn origin(&self) -> &str;
    /// Produces the model archive of `job`. A failure writes nothing.
    async fn produce(&self, job: &ImportJob, events: &mut dyn ImportEvents) -> Result<Produced>;
}

/// The format of the built-in importer.
pub const ZIP_CSV_FORMAT: &str = "lore-csv-zip";

/// The built-in importer of Lore's own format: a zip of CSV files. Its "production" is the
/// upload itself, read with the server's archive limits.
#[derive(Debug, Clone)]
pub struct ZipCsvImporter {
    limits: ArchiveLimits,
    about: About,
}

impl ZipCsvImporter {
    pub fn new(limits: ArchiveLimits) -> Self {
        Self {
            limits,
            about: About::new("lore", env!("CARGO_PKG_VERSION"))
                .description("Lore's built-in importer")
                .format(Format::new(
                    ZIP_CSV_FORMAT,
                    "A model archive: a zip of CSV files (docs/model-archive.md)",
                )),
        }
    }
}

#[async_trait::async_trait]
impl Importer for ZipCsvImporter {
    fn about(&self) -> &About {
        &self.about
    }

    fn origin(&self) -> &str {
        "built-in"
    }

    async fn produce(&self, job: &ImportJob, _: &mut dyn ImportEvents) -> Result<Produced> {
        let path = job
            .file
            .clone()
            .ok_or_else(|| Error::invalid(format!("format '{ZIP_CSV_FORMAT}' needs a file")))?;
        Ok(Produced {
            path,
            limits: self.limits,
        })
    }
}

/// The importers of a server, by format name.
#[derive(Debug, Clone, Default)]
pub struct Importers {
    by_format: BTreeMap<String, Arc<dyn Importer>>,
    all: Vec<Arc<dyn Importer>>,
    /// Configured plugins that did not load: (library, why).
    failed: Vec<(String, String)>,
}

impl Importers {
    /// The built-in importer alone.
    pub fn builtin(limits: ArchiveLimits) -> Self {
        let mut importers = Self::default();
        let zip: Arc<dyn Importer> = Arc::new(ZipCsvImporter::new(limits));
        for format in &zip.about().formats {
            importers.by_format.insert(format.name.clone(), zip.clone());
        }
        importers.all.push(zip);
        importers
    }

    /// Adds an importer; refused when one of its formats is taken already.
    pub fn add(&mut self, importer: Arc<dyn Importer>) -> Result<()> {
        for format in &importer.about().formats {
            if let Some(other) = self.by_format.get(&format.name) {
                return Err(Error::invalid(format!(
                    "format '{}' of {} is imported by {} already",
                    format.name,
                    importer.origin(),
                    other.origin()
                )));
            }
        }
        for format in &importer.about().formats {
            self.by_format.insert(format.name.clone(), importer.clone());
        }
        self.all.push(importer);
        Ok(())
    }

    /// The importer of a format and the format itself.
    pub fn get(&self, format: &str) -> Result<(&Arc<dyn Importer>, &Format)> {
        let importer = self.by_format.get(format).ok_or_else(|| {
            Error::invalid(format!(
                "no importer reads format '{format}'; the formats are {}",
                self.by_format
                    .keys()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(", ")
            ))
        })?;
        let described = importer
            .about()
            .formats
            .iter()
            .find(|f| f.name == format)
            .ok_or_else(|| Error::internal(format!("format '{format}' lost its description")))?;
        Ok((importer, described))
    }

    /// Every importer, in the order added.
    pub fn all(&self) -> &[Arc<dyn Importer>] {
        &self.all
    }

    /// Records a configured plugin that did not load.
    pub fn add_failure(&mut self, library: String, reason: String) {
        self.failed.push((library, reason));
    }

    /// The configured plugins that did not load: (library, why).
    pub fn failures(&self) -> &[(String, String)] {
        &self.failed
    }
}

/// Checks parameters against a format's JSON Schema: the subset importers use — an object
/// of `properties` with `type` (string, integer, number, boolean), `enum` and `required`;
/// parameters the schema does not name are refused unless `additionalProperties` is true.
pub fn check_parameters(format: &Format, parameters: &Map<String, Value>) -> Result<()> {
    let schema = &format.parameters;
    let properties = schema.get("properties").and_then(Value::as_object);
    let bad =
        |message: String| Error::invalid(format!("parameters of '{}': {message}", format.name));
    for required in schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
    {
        if parameters.get(required).is_none_or(Value::is_null) {
            return Err(bad(format!("'{required}' is required")));
        }
    }
    let open = schema
        .get("additionalProperties")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    for (name, value) in parameters {
        let Some(property) = properties.and_then(|p| p.get(name)) else {
            if open {
                continue;
            }
            let known: Vec<&str> = properties
                .map(|p| p.keys().map(String::as_str).collect())
                .unwrap_or_default();
            return Err(bad(format!(
                "unknown parameter '{name}'; the parameters are {}",
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )));
        };
        if value.is_null() {
            continue;
        }
        if let Some(kind) = property.get("type").and_then(Value::as_str) {
            let fits = match kind {
                "string" => value.is_string(),
                "integer" => value.is_i64() || value.is_u64(),
                "number" => value.is_number(),
                "boolean" => value.is_boolean(),
                "array" => value.is_array(),
                "object" => value.is_object(),
                _ => true,
            };
            if !fits {
                return Err(bad(format!("'{name}' must be of type {kind}, not {value}")));
            }
        }
        if let Some(choices) = property.get("enum").and_then(Value::as_array)
            && !choices.contains(value)
        {
            return Err(bad(format!(
                "'{name}' must be one of {}, not {value}",
                choices
                    .iter()
                    .map(Value::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )));
        }
    }
    Ok(())
}

/// Where an importer's URL parameters (those its schema marks `"format": "uri"`) may
/// point: never at Lore's own database, and, when `allowed` is set, only inside it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reach {
    /// The locations importers may reach (`postgres://warehouse:5432`, a database on a
    /// server; `sqlite:/srv/data`, the files below a directory); empty: any but
    /// `refused`.
    pub allowed: Vec<String>,
    /// The locations no importer may reach: Lore's own database.
    pub refused: Vec<String>,
}

impl Reach {
    /// Checks every URL parameter of a format against the reach.
    pub fn check(&self, format: &Format, parameters: &Map<String, Value>) -> Result<()> {
        let properties = format
            .parameters
            .get("properties")
            .and_then(Value::as_object);
        for (name, property) in properties.into_iter().flatten() {
            if property.get("format").and_then(Value::as_str) != Some("uri") {
                continue;
            }
            let Some(url) = parameters.get(name).and_then(Value::as_str) else {
                continue;
            };
            let at = location(url);
            if self.refused.iter().any(|own| location(own) == at) {
                return Err(Error::invalid(format!(
                    "parameters of '{}': '{name}' names Lore's own database, which no importer \
                     may read",
                    format.name
                )));
            }
            let inside = |allowed: &String| {
                let allowed = location(allowed);
                let allowed = allowed.trim_end_matches('/');
                at == allowed || at.starts_with(&format!("{allowed}/"))
            };
            if !self.allowed.is_empty() && !self.allowed.iter().any(inside) {
                return Err(Error::invalid(format!(
                    "parameters of '{}': '{name}' is outside what this server's importers may \
                     reach (plugin_host.allowed_urls)",
                    format.name
                )));
            }
        }
        Ok(())
    }
}

/// A URL as a comparable location: the scheme lower-cased (`postgresql` as `postgres`);
/// a SQLite path made absolute and resolved (from the working directory, as the plugin
/// host resolves it); a server's credentials and query dropped, its host lower-cased
/// (the loopback names as `localhost`) and its port explicit.
pub fn location(url: &str) -> String {
    let url = url.trim();
    let Some((scheme, rest)) = url.split_once(':') else {
        return url.to_owned();
    };
    let scheme = match scheme.to_ascii_lowercase().as_str() {
        "postgresql" => "postgres".to_owned(),
        other => other.to_owned(),
    };
    let rest = rest.split(['?', '#']).next().unwrap_or_default();
    if scheme == "sqlite" {
        let path = rest.strip_prefix("//").unwrap_or(rest);
        let path = std::env::current_dir()
            .map(|dir| dir.join(path))
            .unwrap_or_else(|_| PathBuf::from(path));
        // `..` lexically first, so a file that does not exist cannot climb out; then
        // the links of one that does.
        let mut lexical = PathBuf::new();
        for component in path.components() {
            match component {
                std::path::Component::ParentDir => {
                    lexical.pop();
                }
                std::path::Component::CurDir => {}
                other => lexical.push(other),
            }
        }
        let absolute = std::fs::canonicalize(&lexical).unwrap_or(lexical);
        return format!("sqlite:{}", absolute.display());
    }
    let Some(rest) = rest.strip_prefix("//") else {
        return format!("{scheme}:{rest}");
    };
    let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host, port) = match host_port.rsplit_once(':') {
        Some((host, port)) if !host.is_empty() && !port.contains(']') => (host, port.to_owned()),
        _ => (
            host_port,
            match scheme.as_str() {
                "postgres" => "5432".to_owned(),
                "mysql" | "mariadb" => "3306".to_owned(),
                "https" => "443".to_owned(),
                "http" => "80".to_owned(),
                _ => String::new(),
            },
        ),
    };
    let host = match host.to_ascii_lowercase().as_str() {
        "127.0.0.1" | "::1" | "[::1]" | "localhost" | "" => "localhost".to_owned(),
        other => other.to_owned(),
    };
    format!("{scheme}://{host}:{port}/{path}")
        .trim_end_matches('/')
        .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn harvester() -> Format {
        Format::new("harvester", "").parameters(serde_json::json!({
            "type": "object",
            "properties": {"url": {"type": "string", "format": "uri"}, "name": {"type": "string"}}
        }))
    }

    fn with_url(url: &str) -> Map<String, Value> {
        params(serde_json::json!({"url": url, "name": "postgres://own/lore"}))
    }

    #[test]
    fn locations_compare_what_a_url_reaches() {
        assert_eq!(
            location("postgresql://lore:secret@127.0.0.1/lore?sslmode=disable"),
            "postgres://localhost:5432/lore"
        );
        assert_eq!(
            location("postgres://DB.example:6432/x"),
            "postgres://db.example:6432/x"
        );
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let file = dir.path().join("lore.db");
        std::fs::write(&file, b"").unwrap_or_else(|e| panic!("{e}"));
        let canonical = std::fs::canonicalize(&file).unwrap_or_else(|e| panic!("{e}"));
        let expected = format!("sqlite:{}", canonical.display());
        assert_eq!(location(&format!("sqlite://{}", file.display())), expected);
        let dotted = dir.path().join(".").join("lore.db");
        assert_eq!(
            location(&format!("sqlite:{}?mode=ro", dotted.display())),
            expected
        );
    }

    #[test]
    fn no_importer_reaches_lores_own_database() {
        let reach = Reach {
            allowed: Vec::new(),
            refused: vec!["postgres://lore:pw@localhost:5432/lore".into()],
        };
        let refused = reach
            .check(&harvester(), &with_url("postgresql://other@127.0.0.1/lore"))
            .unwrap_err();
        assert!(refused.message.contains("Lore's own database"), "{refused}");
        assert!(
            reach
                .check(&harvester(), &with_url("postgres://localhost/sales"))
                .is_ok()
        );
        // A parameter the schema does not mark as a URL is not a location.
        let reach = Reach {
            allowed: Vec::new(),
            refused: vec!["postgres://own/lore".into()],
        };
        assert!(
            reach
                .check(&harvester(), &with_url("postgres://elsewhere/x"))
                .is_ok()
        );
    }

    #[test]
    fn allowed_locations_bound_the_reach() {
        let reach = Reach {
            allowed: vec!["postgres://warehouse".into(), "sqlite:/srv/data/".into()],
            refused: Vec::new(),
        };
        for inside in [
            "postgres://warehouse/sales",
            "postgresql://u:p@WAREHOUSE:5432/hr",
            "sqlite:///srv/data/a.db",
        ] {
            assert!(
                reach.check(&harvester(), &with_url(inside)).is_ok(),
                "{inside}"
            );
        }
        for outside in [
            "postgres://warehouse:6543/sales",
            "postgres://elsewhere/sales",
            "sqlite:///srv/database.db",
            "sqlite:///srv/data/../secret.db",
        ] {
            let refused = reach.check(&harvester(), &with_url(outside)).unwrap_err();
            assert!(refused.message.contains("outside"), "{outside}: {refused}");
        }
    }
    use serde_json::json;

    fn format() -> Format {
        Format::new("f", "").parameters(json!({
            "type": "object",
            "properties": {
                "url": {"type": "string"},
                "rows": {"type": "integer"},
                "dialect": {"type": "string", "enum": ["postgres", "sqlite"]}
            },
            "required": ["url"]
        }))
    }

    fn params(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn parameters_are_checked_against_the_schema() {
        let f = format();
        assert!(check_parameters(&f, &params(json!({"url": "x", "rows": 3}))).is_ok());
        let message = |v: Value| check_parameters(&f, &params(v)).unwrap_err().to_string();
        assert!(message(json!({})).contains("'url' is required"));
        assert!(
            message(json!({"url": "x", "rows": "3"})).contains("'rows' must be of type integer")
        );
        assert!(
            message(json!({"url": "x", "dialect": "oracle"}))
                .contains("must be one of \"postgres\", \"sqlite\"")
        );
        assert!(
            message(json!({"url": "x", "colour": 1}))
                .contains("unknown parameter 'colour'; the parameters are dialect, rows, url")
        );
    }

    #[test]
    fn a_format_belongs_to_one_importer() {
        let mut importers = Importers::default();
        importers
            .add(Arc::new(ZipCsvImporter::new(ArchiveLimits::default())))
            .expect("first");
        let again = importers
            .add(Arc::new(ZipCsvImporter::new(ArchiveLimits::default())))
            .unwrap_err();
        assert!(
            again
                .to_string()
                .contains("format 'lore-csv-zip' of built-in is imported by built-in already")
        );
        assert!(
            importers
                .get("dbt")
                .unwrap_err()
                .to_string()
                .contains("the formats are lore-csv-zip")
        );
    }
}
