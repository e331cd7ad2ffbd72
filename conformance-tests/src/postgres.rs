//! Fresh PostgreSQL databases for test runs.
//!
//! [`TestDatabase::create`] makes a database with a unique name on the server named by
//! `LORE_TEST_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`) and
//! drops it when the value is dropped, unless `LORE_TEST_KEEP_DB` is set.
//!
//! Without a reachable server the tests skip, except under `CI=true`, where a missing
//! PostgreSQL is a failure rather than a silent pass.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use sqlx::{Connection, PgConnection};

/// The server used when `LORE_TEST_POSTGRES_URL` is not set.
pub const DEFAULT_ADMIN_URL: &str = "postgres://postgres@127.0.0.1:5432/postgres";

/// A database created for one test, dropped with this value.
#[derive(Debug)]
pub struct TestDatabase {
    /// The URL of the new database, for `PostgresStore::connect` or a server configuration.
    pub url: String,
    /// The database's name.
    pub name: String,
    /// The URL of the server's maintenance database, used to create and drop.
    admin_url: String,
}

impl TestDatabase {
    /// Creates a database with a unique name, or returns `None` (after saying so on
    /// stderr) when PostgreSQL cannot be reached. Under `CI=true` an unreachable
    /// PostgreSQL panics instead.
    pub async fn create() -> Option<TestDatabase> {
        let admin_url = std::env::var("LORE_TEST_POSTGRES_URL")
            .unwrap_or_else(|_| DEFAULT_ADMIN_URL.to_owned());
        let mut admin = match PgConnection::connect(&admin_url).await {
            Ok(connection) => connection,
            Err(err) => {
                let shown = without_password(&admin_url);
                if std::env::var("CI").as_deref() == Ok("true") {
                    panic!(
                        "PostgreSQL is required under CI=true: cannot connect to {shown}: {err}"
                    );
                }
                eprintln!("skipping: PostgreSQL not reachable at {shown}: {err}");
                return None;
            }
        };
        let name = unique_name();
        let create = format!("CREATE DATABASE \"{name}\"");
        if let Err(err) = sqlx::raw_sql(sqlx::AssertSqlSafe(create))
            .execute(&mut admin)
            .await
        {
            panic!(
                "cannot create test database {name} on {}: {err}",
                without_password(&admin_url)
            );
        }
        let _ = admin.close().await;
        Some(TestDatabase {
            url: database_url(&admin_url, &name),
            name,
            admin_url,
        })
    }
}

impl TestDatabase {
    /// A connection to the server's maintenance database, to act on this one from
    /// outside (end its connections, refuse new ones).
    pub async fn admin(&self) -> PgConnection {
        PgConnection::connect(&self.admin_url)
            .await
            .unwrap_or_else(|e| panic!("connecting to {}: {e}", without_password(&self.admin_url)))
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        if std::env::var_os("LORE_TEST_KEEP_DB").is_some() {
            eprintln!("keeping test database {}", without_password(&self.url));
            return;
        }
        // Drop runs inside the test's runtime, which cannot block on itself: use a thread
        // with its own runtime.
        let admin_url = self.admin_url.clone();
        let name = self.name.clone();
        let dropped = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| e.to_string())?;
            runtime.block_on(async {
                let mut admin = PgConnection::connect(&admin_url)
                    .await
                    .map_err(|e| e.to_string())?;
                let drop = format!("DROP DATABASE IF EXISTS \"{name}\" WITH (FORCE)");
                sqlx::raw_sql(sqlx::AssertSqlSafe(drop))
                    .execute(&mut admin)
                    .await
                    .map_err(|e| e.to_string())?;
                let _ = admin.close().await;
                Ok::<(), String>(())
            })
        })
        .join();
        match dropped {
            Ok(Ok(())) => {}
            Ok(Err(err)) => eprintln!("cannot drop test database {}: {err}", self.name),
            Err(_) => eprintln!(
                "cannot drop test database {}: the dropping thread panicked",
                self.name
            ),
        }
    }
}

/// `lore_test_<pid>_<time>_<counter>`: unique across processes and within one.
fn unique_name() -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    format!("lore_test_{}_{:x}_{count}", std::process::id(), nanos)
}

/// The URL with its path (the database) replaced by `database`, keeping any query.
fn database_url(url: &str, database: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (url, None),
    };
    let authority_start = base.find("://").map_or(0, |i| i + 3);
    let server = match base[authority_start..].find('/') {
        Some(slash) => &base[..authority_start + slash],
        None => base,
    };
    match query {
        Some(query) => format!("{server}/{database}?{query}"),
        None => format!("{server}/{database}"),
    }
}

/// The URL with any password replaced by `***`, for messages.
fn without_password(url: &str) -> String {
    let Some(scheme_end) = url.find("://").map(|i| i + 3) else {
        return url.to_owned();
    };
    let rest = &url[scheme_end..];
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let Some(at) = rest[..authority_end].rfind('@') else {
        return url.to_owned();
    };
    match rest[..at].split_once(':') {
        Some((user, _password)) => format!("{}{user}:***{}", &url[..scheme_end], &rest[at..]),
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn database_url_replaces_the_database() {
        assert_eq!(
            database_url("postgres://u@h:5432/postgres", "x"),
            "postgres://u@h:5432/x"
        );
        assert_eq!(
            database_url("postgres://u@h:5432", "x"),
            "postgres://u@h:5432/x"
        );
        assert_eq!(
            database_url("postgres://u:p@h/db?sslmode=disable", "x"),
            "postgres://u:p@h/x?sslmode=disable"
        );
    }

    #[test]
    fn passwords_are_hidden() {
        assert_eq!(
            without_password("postgres://u:secret@h:5432/db"),
            "postgres://u:***@h:5432/db"
        );
        assert_eq!(without_password("postgres://u@h/db"), "postgres://u@h/db");
    }

    #[test]
    fn names_are_unique() {
        assert_ne!(unique_name(), unique_name());
    }
}
