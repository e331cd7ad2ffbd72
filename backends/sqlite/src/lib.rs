//! The SQLite [`Store`] of Lore: one database file in WAL mode, through rusqlite with a
//! bundled SQLite.
//!
//! rusqlite is synchronous, so the store keeps one connection behind a mutex and runs
//! every call on tokio's blocking pool. Writes take the write lock up front
//! (`BEGIN IMMEDIATE`), so several processes on one file wait for each other instead of
//! failing halfway.

mod read;
mod schema;
mod sql;
mod write;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use lore_core::model::*;
use lore_core::store::{Batch, Details, Scope};
use lore_core::{Error, ObjectId, Result, Store};
use rusqlite::Connection;

use crate::sql::Context;

/// How long a statement waits for another process's write lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);

/// A [`Store`] over one SQLite database.
#[derive(Debug)]
pub struct SqliteStore {
    conn: Arc<Mutex<Connection>>,
    /// The database file, or `None` for an in-memory database.
    path: Option<PathBuf>,
}

impl SqliteStore {
    /// Opens (creating it and its parent directories if needed) the database at `path`,
    /// switches it to WAL mode and applies pending migrations.
    pub fn open(path: &Path) -> Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| {
                Error::storage(&format!("creating the directory {}", dir.display()), e)
            })?;
        }
        let opening = format!("opening the database {}", path.display());
        let conn = Connection::open(path).ctx(&opening)?;
        let mode: String = conn
            .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
            .ctx("switching to WAL mode")?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(Error::internal(format!(
                "the database {} cannot use WAL mode (journal mode is '{mode}')",
                path.display()
            )));
        }
        conn.pragma_update(None, "synchronous", "NORMAL")
            .ctx("setting synchronous mode")?;
        Self::setup(conn, Some(path.to_owned()))
    }

    /// Opens a fresh in-memory database, for tests; it disappears when the store is dropped.
    pub fn open_in_memory() -> Result<Self> {
        let conn = Connection::open_in_memory().ctx("opening an in-memory database")?;
        Self::setup(conn, None)
    }

    /// The database file, or `None` for an in-memory store.
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }

    fn setup(mut conn: Connection, path: Option<PathBuf>) -> Result<Self> {
        conn.pragma_update(None, "foreign_keys", "ON")
            .ctx("enabling foreign keys")?;
        conn.busy_timeout(BUSY_TIMEOUT)
            .ctx("setting the busy timeout")?;
        conn.set_prepared_statement_cache_capacity(64);
        schema::migrate(&mut conn)?;
        read::create_scope_table(&conn)?;
        Ok(Self {
            conn: Arc::new(Mutex::new(conn)),
            path,
        })
    }

    /// Runs `f` with the connection on tokio's blocking pool.
    async fn call<T, F>(&self, f: F) -> Result<T>
    where
        T: Send + 'static,
        F: FnOnce(&mut Connection) -> Result<T> + Send + 'static,
    {
        let conn = Arc::clone(&self.conn);
        tokio::task::spawn_blocking(move || {
            // A panic while the lock was held leaves no open transaction behind (it rolls
            // back on drop), so the connection is still good to use.
            let mut conn = conn.lock().unwrap_or_else(PoisonError::into_inner);
            f(&mut conn)
        })
        .await
        .map_err(|e| Error::internal(format!("a sqlite task failed: {e}")))?
    }
}

#[async_trait]
impl Store for SqliteStore {
    fn backend(&self) -> &'static str {
        "sqlite"
    }

    async fn ping(&self) -> Result<()> {
        self.call(|conn| {
            conn.query_row("SELECT 1", [], |_| Ok(()))
                .ctx("pinging the database")
        })
        .await
    }

    async fn reserve_ids(&self, model: i64, count: u64) -> Result<i64> {
        self.call(move |conn| write::reserve_ids(conn, model, count))
            .await
    }

    async fn apply(&self, batch: Batch) -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        self.call(move |conn| write::apply(conn, &batch)).await
    }

    async fn object(&self, id: ObjectId) -> Result<Option<Object>> {
        self.call(move |conn| read::object(conn, id)).await
    }

    async fn object_by_stable_id(&self, stable_id: &str) -> Result<Option<Object>> {
        let stable_id = stable_id.to_owned();
        self.call(move |conn| read::object_by_stable_id(conn, &stable_id))
            .await
    }

    async fn child_by_name(
        &self,
        model: i64,
        parent: Option<ObjectId>,
        name: &str,
    ) -> Result<Option<Object>> {
        let name = name.to_owned();
        self.call(move |conn| read::child_by_name(conn, model, parent, &name))
            .await
    }

    async fn children(&self, model: i64, parent: Option<ObjectId>) -> Result<Vec<Object>> {
        self.call(move |conn| read::children(conn, model, parent))
            .await
    }

    async fn model_objects(&self, model: i64) -> Result<Vec<Object>> {
        self.call(move |conn| read::model_objects(conn, model))
            .await
    }

    async fn objects_of_kind(&self, kind: ObjectKind) -> Result<Vec<Object>> {
        self.call(move |conn| read::objects_of_kind(conn, kind))
            .await
    }

    async fn details(&self, scope: Scope) -> Result<Details> {
        self.call(move |conn| read::details(conn, &scope)).await
    }

    async fn edges(&self, kind: EdgeKind, object: ObjectId, incoming: bool) -> Result<Vec<Edge>> {
        self.call(move |conn| read::edges(conn, kind, object, incoming))
            .await
    }

    async fn attribute_types(&self) -> Result<Vec<AttributeType>> {
        self.call(|conn| read::attribute_types(conn)).await
    }

    async fn data_classes(&self) -> Result<Vec<DataClass>> {
        self.call(|conn| read::data_classes(conn)).await
    }

    async fn sensitivity_labels(&self) -> Result<Vec<SensitivityLabel>> {
        self.call(|conn| read::sensitivity_labels(conn)).await
    }

    async fn roles(&self) -> Result<Vec<Role>> {
        self.call(|conn| read::roles(conn)).await
    }

    async fn user(&self, id: ObjectId) -> Result<Option<User>> {
        self.call(move |conn| read::user(conn, id)).await
    }

    async fn user_by_name(&self, name: &str) -> Result<Option<User>> {
        let name = name.to_owned();
        self.call(move |conn| read::user_by_name(conn, &name)).await
    }

    async fn user_count(&self) -> Result<u64> {
        self.call(|conn| read::user_count(conn)).await
    }

    async fn grants_of(&self, grantee: ObjectId) -> Result<Vec<Grant>> {
        self.call(move |conn| read::grants_of(conn, grantee)).await
    }

    async fn put_session(&self, session: Session) -> Result<()> {
        self.call(move |conn| write::put_session(conn, &session))
            .await
    }

    async fn session(&self, key_hash: &str, now: Timestamp) -> Result<Option<Session>> {
        let key_hash = key_hash.to_owned();
        self.call(move |conn| read::session(conn, &key_hash, now))
            .await
    }

    async fn delete_session(&self, key_hash: &str) -> Result<()> {
        let key_hash = key_hash.to_owned();
        self.call(move |conn| write::delete_session(conn, &key_hash))
            .await
    }

    async fn delete_sessions_of(&self, user: ObjectId) -> Result<u64> {
        self.call(move |conn| write::delete_sessions_of(conn, user))
            .await
    }

    async fn purge_sessions(&self, now: Timestamp) -> Result<u64> {
        self.call(move |conn| write::purge_sessions(conn, now))
            .await
    }
}
