//! The `url` parameter: which database to harvest, and how to show its URL without the
//! password.

use std::path::PathBuf;

use lore_plugin_sdk::Error;

/// The database engines the harvester reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Engine {
    /// `postgres://...` or `postgresql://...`, passed to the driver as written.
    Postgres,
    /// `sqlite:///abs/path.db`, `sqlite://relative.db` or `sqlite:relative.db`.
    Sqlite(PathBuf),
}

/// A database URL: the engine, and what must never be shown of it.
#[derive(Clone, PartialEq, Eq)]
pub struct DatabaseUrl {
    raw: String,
    pub engine: Engine,
    /// The password, as written and percent-decoded, when the URL has one.
    secrets: Vec<String>,
}

/// No password in debug output either.
impl std::fmt::Debug for DatabaseUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DatabaseUrl")
            .field("url", &self.masked())
            .field("engine", &self.engine)
            .finish()
    }
}

impl DatabaseUrl {
    pub fn parse(raw: &str) -> Result<Self, Error> {
        let raw = raw.trim();
        let scheme = raw.split_once(':').map(|(s, _)| s.to_ascii_lowercase());
        let engine = match scheme.as_deref() {
            Some("postgres" | "postgresql") if raw.contains("://") => Engine::Postgres,
            Some("sqlite") => {
                let rest = &raw["sqlite:".len()..];
                let rest = rest.strip_prefix("//").unwrap_or(rest);
                let path = rest.split(['?', '#']).next().unwrap_or_default();
                if path.is_empty() {
                    return Err(Error::new(format!(
                        "database URL '{raw}' names no file: write sqlite:///absolute/path.db or sqlite:relative.db"
                    )));
                }
                Engine::Sqlite(PathBuf::from(path))
            }
            _ => {
                return Err(Error::new(format!(
                    "unsupported database URL '{}': the harvester reads postgres://, \
                     postgresql:// and sqlite: URLs",
                    mask(raw)
                )));
            }
        };
        let secrets = password(raw)
            .into_iter()
            .flat_map(|p| {
                let decoded = percent_decode(&p);
                [p, decoded]
            })
            .filter(|p| !p.is_empty())
            .collect();
        Ok(Self {
            raw: raw.to_owned(),
            engine,
            secrets,
        })
    }

    /// The URL as written, password included: for the driver only.
    pub fn as_str(&self) -> &str {
        &self.raw
    }

    /// The URL with its password replaced by `***`.
    pub fn masked(&self) -> String {
        mask(&self.raw)
    }

    /// `text` (an error message of the driver, say) with every occurrence of the
    /// password replaced by `***`.
    pub fn scrub(&self, text: &str) -> String {
        self.secrets.iter().fold(text.to_owned(), |text, secret| {
            text.replace(secret.as_str(), "***")
        })
    }
}

/// The parts of a URL: where the authority (`user:password@host:port`) is.
fn authority(url: &str) -> Option<(usize, usize)> {
    let start = url.find("://")? + 3;
    let end = url[start..]
        .find(['/', '?', '#'])
        .map_or(url.len(), |at| start + at);
    Some((start, end))
}

/// The password of a URL: after the user name, or a `password` query parameter.
fn password(url: &str) -> Option<String> {
    if let Some((start, end)) = authority(url) {
        let authority = &url[start..end];
        if let Some(at) = authority.rfind('@')
            && let Some((_, password)) = authority[..at].split_once(':')
        {
            return Some(password.to_owned());
        }
    }
    let query = url.split_once('?')?.1;
    query
        .split(['&', '#'])
        .filter_map(|pair| pair.split_once('='))
        .find(|(key, _)| key.eq_ignore_ascii_case("password"))
        .map(|(_, value)| value.to_owned())
}

/// A URL with its password (after the user name, or a `password` query parameter)
/// replaced by `***`.
pub fn mask(url: &str) -> String {
    let mut masked = String::with_capacity(url.len());
    let mut rest_from = 0;
    if let Some((start, end)) = authority(url) {
        let authority = &url[start..end];
        masked.push_str(&url[..start]);
        match authority.rfind('@') {
            Some(at) => {
                let userinfo = &authority[..at];
                match userinfo.split_once(':') {
                    Some((user, _)) => {
                        masked.push_str(user);
                        masked.push_str(":***");
                    }
                    None => masked.push_str(userinfo),
                }
                masked.push_str(&authority[at..]);
            }
            None => masked.push_str(authority),
        }
        rest_from = end;
    }
    let rest = &url[rest_from..];
    match rest.split_once('?') {
        Some((path, query)) => {
            masked.push_str(path);
            masked.push('?');
            let (query, fragment) = match query.split_once('#') {
                Some((query, fragment)) => (query, Some(fragment)),
                None => (query, None),
            };
            let pairs: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((key, _)) if key.eq_ignore_ascii_case("password") => format!("{key}=***"),
                    _ => pair.to_owned(),
                })
                .collect();
            masked.push_str(&pairs.join("&"));
            if let Some(fragment) = fragment {
                masked.push('#');
                masked.push_str(fragment);
            }
        }
        None => masked.push_str(rest),
    }
    masked
}

/// `%XX` escapes decoded (invalid ones kept as written).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let escaped = (bytes[i] == b'%')
            .then(|| text.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| u8::from_str_radix(hex, 16).ok());
        match escaped {
            Some(byte) => {
                out.push(byte);
                i += 3;
            }
            None => {
                out.push(bytes[i]);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_are_masked() {
        assert_eq!(
            mask("postgres://lore:s3cret@db.example.com:5432/sales"),
            "postgres://lore:***@db.example.com:5432/sales"
        );
        assert_eq!(
            mask("postgresql://lore:p@ss@host/db?sslmode=require"),
            "postgresql://lore:***@host/db?sslmode=require"
        );
        assert_eq!(
            mask("postgres://host/db?user=lore&password=s3cret&sslmode=disable"),
            "postgres://host/db?user=lore&password=***&sslmode=disable"
        );
        assert_eq!(
            mask("postgres://postgres@127.0.0.1/db"),
            "postgres://postgres@127.0.0.1/db"
        );
        assert_eq!(mask("sqlite:///var/db.sqlite"), "sqlite:///var/db.sqlite");
        assert_eq!(mask("mysql://root:pw@h"), "mysql://root:***@h");
    }

    #[test]
    fn engines_and_paths() {
        let url = DatabaseUrl::parse("postgresql://u:pw@h/db").expect("a PostgreSQL URL");
        assert_eq!(url.engine, Engine::Postgres);
        assert_eq!(url.as_str(), "postgresql://u:pw@h/db");
        for (raw, path) in [
            ("sqlite:///abs/shop.db", "/abs/shop.db"),
            ("sqlite://relative.db", "relative.db"),
            ("sqlite:relative.db?mode=ro", "relative.db"),
            ("SQLite:data/shop.db", "data/shop.db"),
        ] {
            assert_eq!(
                DatabaseUrl::parse(raw).expect("a SQLite URL").engine,
                Engine::Sqlite(PathBuf::from(path)),
                "{raw}"
            );
        }
        let error = DatabaseUrl::parse("mysql://root:hunter2@h/db").expect_err("MySQL");
        assert_eq!(
            error.0,
            "unsupported database URL 'mysql://root:***@h/db': the harvester reads \
             postgres://, postgresql:// and sqlite: URLs"
        );
        assert!(DatabaseUrl::parse("sqlite:").is_err());
        assert!(DatabaseUrl::parse("postgres:db").is_err());
    }

    #[test]
    fn the_password_is_scrubbed_from_messages_as_written_and_decoded() {
        let url = DatabaseUrl::parse("postgres://u:p%40ss@h/db").expect("a URL");
        assert_eq!(
            url.scrub("bad password p%40ss or p@ss"),
            "bad password *** or ***"
        );
        assert!(!format!("{url:?}").contains("p%40ss"));
        let url = DatabaseUrl::parse("postgres://h/db?password=xyz").expect("a URL");
        assert_eq!(url.scrub("xyz!"), "***!");
        let url = DatabaseUrl::parse("postgres://u@h/db").expect("a URL");
        assert_eq!(url.scrub("nothing to hide"), "nothing to hide");
    }
}
