//! The SQLite driver of Lore's shared SQL store ([`lore_backend_sql::SqlStore`]): one
//! database file in WAL mode through rusqlite with a bundled SQLite.
//!
//! rusqlite is synchronous, so every call runs on tokio's blocking pool. One writer
//! connection takes the writes, one transaction at a time (`BEGIN IMMEDIATE`, so several
//! processes on one file wait for each other instead of failing halfway); a pool of
//! read-only connections answers reads from the last committed state while a write
//! transaction is open.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use lore_backend_sql::{
    Access, DbError, DbErrorKind, Dialect, Driver, DriverSnapshot, DriverTx, Observed, Outcome,
    PoolUse, Row, SqlStore, SqlValue, StatementObserver, Stmt, Table, in_order,
};
use lore_core::mql::plan::search_form;
use lore_core::{Error, Result};
use rusqlite::functions::FunctionFlags;
use rusqlite::types::{ToSqlOutput, ValueRef};
use rusqlite::{Connection, OpenFlags, ToSql};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// A [`Store`](lore_core::Store) over one SQLite database. `SqliteStore::open(path)`
/// opens (creating it and its parent directories if needed) the database at `path`,
/// switches it to WAL mode and applies pending migrations.
pub type SqliteStore = SqlStore<Sqlite>;

/// How long a statement waits for another process's write lock before failing.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Read connections kept open at most; reads beyond that wait for a free one.
const READERS: usize = 8;

/// Opens a fresh database in a temporary directory that is removed with the store; for
/// tests and benchmarks.
pub async fn open_temporary() -> Result<SqliteStore> {
    let dir =
        tempfile::tempdir().map_err(|e| Error::storage("creating a temporary directory", e))?;
    let path = dir.path().join("lore.db");
    SqlStore::new(Sqlite::open(&path, Some(dir))?).await
}

/// The SQLite connections of a store: one writer and a pool of readers.
#[derive(Debug)]
pub struct Sqlite {
    path: PathBuf,
    writer: Arc<Mutex<Connection>>,
    /// One write transaction at a time.
    write_gate: Arc<Semaphore>,
    idle_readers: Arc<Mutex<Vec<Connection>>>,
    read_gate: Arc<Semaphore>,
    /// Told of every statement (the server's metrics).
    observed: Observed,
    /// The temporary directory of [`open_temporary`], removed on drop.
    _temporary: Option<tempfile::TempDir>,
}

impl Sqlite {
    fn open(path: &Path, temporary: Option<tempfile::TempDir>) -> Result<Self> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|e| {
                Error::storage(&format!("creating the directory {}", dir.display()), e)
            })?;
        }
        let opening = format!("opening the database {}", path.display());
        let writer = Connection::open(path).map_err(|e| Error::storage(&opening, e))?;
        let mode: String = writer
            .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
            .map_err(|e| Error::storage("switching to WAL mode", e))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(Error::internal(format!(
                "the database {} cannot use WAL mode (journal mode is '{mode}')",
                path.display()
            )));
        }
        configure(&writer).map_err(|e| Error::storage(&opening, e))?;
        Ok(Self {
            path: path.to_owned(),
            writer: Arc::new(Mutex::new(writer)),
            write_gate: Arc::new(Semaphore::new(1)),
            idle_readers: Arc::new(Mutex::new(Vec::new())),
            read_gate: Arc::new(Semaphore::new(READERS)),
            observed: Observed::default(),
            _temporary: temporary,
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn open_reader(path: &Path) -> rusqlite::Result<Connection> {
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )?;
        configure(&conn)?;
        Ok(conn)
    }
}

fn configure(conn: &Connection) -> rusqlite::Result<()> {
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    conn.set_prepared_statement_cache_capacity(128);
    // The exact test of a text search (`Dialect::search_form_contains`): MQL's own
    // search form, computed in Rust. The same form in SQL (ten nested `replace`s per
    // column, which the text index's triggers still use) cost 0.9 µs per object, a
    // third of testing the 40,000 objects a common term finds.
    conn.create_scalar_function(
        "lore_search_form",
        1,
        FunctionFlags::SQLITE_UTF8
            | FunctionFlags::SQLITE_DETERMINISTIC
            | FunctionFlags::SQLITE_INNOCUOUS,
        |ctx| {
            Ok(match ctx.get_raw(0) {
                ValueRef::Text(text) => Some(search_form(&String::from_utf8_lossy(text))),
                ValueRef::Null => None,
                _ => Some(search_form(&ctx.get::<String>(0)?)),
            })
        },
    )?;
    Ok(())
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while the lock was held leaves no transaction behind that a later user
    // would inherit (a write transaction rolls back on drop of its SqliteTx), so the
    // connection is still good to use.
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `f` on tokio's blocking pool.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, DbError> + Send + 'static,
) -> Result<T, DbError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| DbError::new(DbErrorKind::Other, format!("a sqlite task failed: {e}")))?
}

#[async_trait]
impl Driver for Sqlite {
    type Tx = SqliteTx;
    type Snapshot = SqliteSnapshot;
    type Options = PathBuf;
    const DIALECT: Dialect = Dialect::Sqlite;

    async fn connect(path: PathBuf) -> Result<Self> {
        Self::open(&path, None)
    }

    async fn read(&self, queries: Vec<Stmt>) -> Result<Vec<Outcome>, DbError> {
        let permit = Arc::clone(&self.read_gate)
            .acquire_owned()
            .await
            .map_err(|e| DbError::new(DbErrorKind::Other, e))?;
        let idle = Arc::clone(&self.idle_readers);
        let path = self.path.clone();
        let observed = self.observed.clone();
        blocking(move || {
            let reused = lock(&idle).pop();
            let conn = match reused {
                Some(conn) => conn,
                None => Sqlite::open_reader(&path).map_err(classify)?,
            };
            // Several queries read one snapshot: a read transaction.
            let snapshot = queries.len() > 1;
            let result = if snapshot {
                conn.execute_batch("BEGIN")
                    .map_err(classify)
                    .and_then(|()| run_all(&conn, queries, &observed, Access::Read))
            } else {
                run_all(&conn, queries, &observed, Access::Read)
            };
            if snapshot && !conn.is_autocommit() {
                let _ = conn.execute_batch("COMMIT");
            }
            lock(&idle).push(conn);
            drop(permit);
            result
        })
        .await
    }

    /// On the calling thread when a reader is free at once (an index lookup takes
    /// microseconds, less than the hand-off to the blocking pool and back); otherwise,
    /// and for a reader to open, as [`Driver::read`].
    async fn read_short(&self, query: Stmt) -> Result<Vec<Outcome>, DbError> {
        let idle = lock(&self.idle_readers).pop();
        let permit = Arc::clone(&self.read_gate).try_acquire_owned();
        match (idle, permit) {
            (Some(conn), Ok(permit)) => {
                let result = run_all(&conn, vec![query], &self.observed, Access::Read);
                lock(&self.idle_readers).push(conn);
                drop(permit);
                result
            }
            (idle, _) => {
                if let Some(conn) = idle {
                    lock(&self.idle_readers).push(conn);
                }
                self.read(vec![query]).await
            }
        }
    }

    async fn snapshot(&self) -> Result<SqliteSnapshot, DbError> {
        let permit = Arc::clone(&self.read_gate)
            .acquire_owned()
            .await
            .map_err(|e| DbError::new(DbErrorKind::Other, e))?;
        let idle = Arc::clone(&self.idle_readers);
        let path = self.path.clone();
        let conn = blocking(move || {
            let reused = lock(&idle).pop();
            let conn = match reused {
                Some(conn) => conn,
                None => Sqlite::open_reader(&path).map_err(classify)?,
            };
            // A deferred transaction takes its snapshot at its first read: read now.
            conn.execute_batch("BEGIN; SELECT COUNT(*) FROM lore_schema;")
                .map_err(classify)?;
            Ok(conn)
        })
        .await?;
        Ok(SqliteSnapshot {
            conn: Arc::new(Mutex::new(Some(conn))),
            idle: Arc::clone(&self.idle_readers),
            permit: Some(permit),
            observed: self.observed.clone(),
        })
    }

    async fn begin(&self) -> Result<SqliteTx, DbError> {
        let permit = Arc::clone(&self.write_gate)
            .acquire_owned()
            .await
            .map_err(|e| DbError::new(DbErrorKind::Other, e))?;
        let writer = Arc::clone(&self.writer);
        let mut tx = SqliteTx {
            writer: Arc::clone(&self.writer),
            permit: Some(permit),
            open: false,
            observed: self.observed.clone(),
        };
        blocking(move || {
            lock(&writer)
                .execute_batch("BEGIN IMMEDIATE")
                .map_err(classify)
        })
        .await?;
        tx.open = true;
        Ok(tx)
    }

    fn observe(&self, observer: Arc<dyn StatementObserver>) {
        self.observed.set(observer);
    }

    /// The read connections and the writer.
    fn pool_use(&self) -> PoolUse {
        let idle_readers = lock(&self.idle_readers).len() as u64;
        let busy_readers = READERS.saturating_sub(self.read_gate.available_permits()) as u64;
        let writing = u64::from(self.write_gate.available_permits() == 0);
        PoolUse {
            idle: idle_readers + (1 - writing),
            in_use: busy_readers + writing,
            max: READERS as u64 + 1,
        }
    }
}

/// A read transaction held open on a read connection of its own: SQLite's WAL keeps the
/// snapshot its first read took until it ends, while writers go on. Dropping it ends the
/// transaction and gives the connection back to the pool.
#[derive(Debug)]
pub struct SqliteSnapshot {
    conn: Arc<Mutex<Option<Connection>>>,
    idle: Arc<Mutex<Vec<Connection>>>,
    /// A place among the readers, held while the snapshot lives.
    permit: Option<OwnedSemaphorePermit>,
    observed: Observed,
}

#[async_trait]
impl DriverSnapshot for SqliteSnapshot {
    async fn read(&self, queries: Vec<Stmt>) -> Result<Vec<Outcome>, DbError> {
        let conn = Arc::clone(&self.conn);
        let observed = self.observed.clone();
        blocking(move || match lock(&conn).as_ref() {
            Some(conn) => run_all(conn, queries, &observed, Access::Read),
            None => Err(DbError::new(DbErrorKind::Other, "the snapshot has ended")),
        })
        .await
    }
}

impl Drop for SqliteSnapshot {
    fn drop(&mut self) {
        let conn = lock(&self.conn).take();
        let idle = Arc::clone(&self.idle);
        let permit = self.permit.take();
        let end = move || {
            if let Some(conn) = conn {
                // Ending a read transaction writes nothing.
                if !conn.is_autocommit() && conn.execute_batch("COMMIT").is_err() {
                    return;
                }
                lock(&idle).push(conn);
            }
            drop(permit);
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(end)),
            Err(_) => end(),
        }
    }
}

/// The write transaction on the writer connection; dropping it uncommitted rolls back.
#[derive(Debug)]
pub struct SqliteTx {
    writer: Arc<Mutex<Connection>>,
    /// Held until the transaction has ended, so the next one starts after it.
    permit: Option<OwnedSemaphorePermit>,
    open: bool,
    observed: Observed,
}

#[async_trait]
impl DriverTx for SqliteTx {
    async fn run(&mut self, stmts: Vec<Stmt>) -> Result<Vec<Outcome>, DbError> {
        let writer = Arc::clone(&self.writer);
        let observed = self.observed.clone();
        blocking(move || run_all(&lock(&writer), stmts, &observed, Access::Write)).await
    }

    async fn commit(mut self) -> Result<(), DbError> {
        let writer = Arc::clone(&self.writer);
        let observed = self.observed.clone();
        blocking(move || {
            observed.time(Access::Write, || {
                lock(&writer).execute_batch("COMMIT").map_err(classify)
            })
        })
        .await?;
        self.open = false;
        Ok(())
    }
}

impl Drop for SqliteTx {
    fn drop(&mut self) {
        let permit = self.permit.take();
        if !self.open {
            return;
        }
        let writer = Arc::clone(&self.writer);
        let rollback = move || {
            let conn = lock(&writer);
            if !conn.is_autocommit()
                && let Err(e) = conn.execute_batch("ROLLBACK")
            {
                tracing::error!(error = %e, "rolling back a sqlite write failed");
            }
            drop(permit);
        };
        match tokio::runtime::Handle::try_current() {
            Ok(runtime) => drop(runtime.spawn_blocking(rollback)),
            Err(_) => rollback(),
        }
    }
}

/// Runs the statements in order on one connection, each reported to `observed`.
fn run_all(
    conn: &Connection,
    stmts: Vec<Stmt>,
    observed: &Observed,
    access: Access,
) -> Result<Vec<Outcome>, DbError> {
    in_order(
        stmts
            .into_iter()
            .map(|stmt| observed.time(access, || run_one(conn, stmt))),
    )
}

fn run_one(conn: &Connection, stmt: Stmt) -> Result<Outcome, DbError> {
    match stmt {
        Stmt::Exec {
            sql,
            params,
            returns_rows,
        } => {
            // `$1`, `$2`, ... are named parameters to SQLite, numbered in order of first
            // appearance: each is bound by its name.
            let mut st = conn.prepare_cached(&sql).map_err(classify)?;
            for (i, value) in params.iter().enumerate() {
                if let Some(at) = st
                    .parameter_index(&format!("${}", i + 1))
                    .map_err(classify)?
                {
                    st.raw_bind_parameter(at, Param(value)).map_err(classify)?;
                }
            }
            if !returns_rows {
                let affected = st.raw_execute().map_err(classify)?;
                return Ok(Outcome {
                    affected: affected as u64,
                    rows: Vec::new(),
                });
            }
            let columns = st.column_count();
            let mut rows = st.raw_query();
            let mut out = Vec::new();
            while let Some(row) = rows.next().map_err(classify)? {
                let mut values = Vec::with_capacity(columns);
                for i in 0..columns {
                    values.push(value(row.get_ref(i).map_err(classify)?)?);
                }
                out.push(Row(values));
            }
            Ok(Outcome {
                affected: out.len() as u64,
                rows: out,
            })
        }
        Stmt::Insert { table, rows } => {
            let affected = insert(conn, table, &rows).map_err(|mut e| {
                e.failed = Some(Box::new(Stmt::Insert { table, rows }));
                e
            })?;
            Ok(Outcome {
                affected,
                rows: Vec::new(),
            })
        }
        Stmt::Script(sql) => {
            conn.execute_batch(&sql).map_err(classify)?;
            Ok(Outcome::default())
        }
    }
}

/// Rows per statement of a bulk insert, at most: one statement per row would cost a
/// statement's overhead per row, and the text index's triggers (migration 5) flush the
/// index at the end of every statement.
const ROWS_PER_INSERT: usize = 500;

/// Inserts the rows, many per statement; answers how many rows changed. When a
/// statement fails (and SQLite has undone it), its rows are tried one by one to name
/// the row at fault.
fn insert(conn: &Connection, table: &Table, rows: &[Vec<SqlValue>]) -> Result<u64, DbError> {
    let columns = table.columns.len().max(1);
    // SQLite allows 32,766 parameters per statement.
    let per_statement = ROWS_PER_INSERT.min(32_766 / columns).max(1);
    let mut affected = 0;
    for (chunk_no, chunk) in rows.chunks(per_statement).enumerate() {
        let first = chunk_no * per_statement;
        match insert_chunk(conn, table, chunk) {
            Ok(n) => affected += n,
            Err(chunk_error) => {
                for (r, row) in chunk.iter().enumerate() {
                    if let Err(mut e) = insert_chunk(conn, table, std::slice::from_ref(row)) {
                        e.row = Some(first + r);
                        return Err(e);
                    }
                }
                let mut e = chunk_error;
                e.row = Some(first);
                return Err(e);
            }
        }
    }
    Ok(affected)
}

/// One `INSERT ... VALUES (...), (...) ...` of the rows.
fn insert_chunk(conn: &Connection, table: &Table, rows: &[Vec<SqlValue>]) -> Result<u64, DbError> {
    let columns = table.columns.len();
    let tuples: Vec<String> = (0..rows.len())
        .map(|r| {
            let params: Vec<String> = (1..=columns)
                .map(|c| format!("?{}", r * columns + c))
                .collect();
            format!("({})", params.join(", "))
        })
        .collect();
    let sql = if table.derived.is_empty() {
        format!(
            "INSERT INTO {} ({}) VALUES {} {}",
            table.name,
            table.column_list(),
            tuples.join(", "),
            table.on_conflict
        )
    } else {
        let named: Vec<String> = (1..=columns)
            .zip(table.columns)
            .map(|(i, (name, _))| format!("column{i} AS {name}"))
            .collect();
        let source = format!(
            "(SELECT {} FROM (VALUES {})) v",
            named.join(", "),
            tuples.join(", ")
        );
        table.derived_insert(Dialect::Sqlite, &source)
    };
    let mut st = conn.prepare_cached(&sql).map_err(classify)?;
    for (r, row) in rows.iter().enumerate() {
        for (c, value) in row.iter().enumerate() {
            st.raw_bind_parameter(r * columns + c + 1, Param(value))
                .map_err(classify)?;
        }
    }
    Ok(st.raw_execute().map_err(classify)? as u64)
}

/// A parameter as rusqlite binds it.
struct Param<'a>(&'a SqlValue);

impl ToSql for Param<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        Ok(ToSqlOutput::Borrowed(match self.0 {
            SqlValue::Int(Some(v)) => ValueRef::Integer(*v),
            SqlValue::Real(Some(v)) => ValueRef::Real(*v),
            SqlValue::Text(Some(v)) => ValueRef::Text(v.as_bytes()),
            SqlValue::Bool(Some(v)) => ValueRef::Integer(i64::from(*v)),
            SqlValue::Int(None)
            | SqlValue::Real(None)
            | SqlValue::Text(None)
            | SqlValue::Bool(None)
            | SqlValue::Null => ValueRef::Null,
        }))
    }
}

fn value(v: ValueRef<'_>) -> Result<SqlValue, DbError> {
    Ok(match v {
        ValueRef::Null => SqlValue::Null,
        ValueRef::Integer(i) => SqlValue::Int(Some(i)),
        ValueRef::Real(f) => SqlValue::Real(Some(f)),
        ValueRef::Text(bytes) => match std::str::from_utf8(bytes) {
            Ok(text) => SqlValue::Text(Some(text.to_owned())),
            Err(e) => return Err(DbError::new(DbErrorKind::Other, e)),
        },
        ValueRef::Blob(_) => {
            return Err(DbError::new(
                DbErrorKind::Other,
                "a column holds a blob, which Lore never writes",
            ));
        }
    })
}

/// Sorts a rusqlite error into its portable kind.
fn classify(e: rusqlite::Error) -> DbError {
    use rusqlite::ffi;
    let kind = match &e {
        rusqlite::Error::SqliteFailure(failure, message) => match failure.extended_code {
            ffi::SQLITE_CONSTRAINT_UNIQUE | ffi::SQLITE_CONSTRAINT_PRIMARYKEY => {
                DbErrorKind::Unique {
                    constraint: message.clone().unwrap_or_default(),
                    detail: None,
                }
            }
            ffi::SQLITE_CONSTRAINT_FOREIGNKEY => DbErrorKind::ForeignKey,
            _ => match failure.code {
                rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked => {
                    DbErrorKind::Retryable
                }
                rusqlite::ErrorCode::TooBig => DbErrorKind::InvalidValue,
                // The write was rolled back; reads go on.
                rusqlite::ErrorCode::DiskFull => DbErrorKind::Unavailable {
                    reason: "the disk holding it is full",
                },
                _ => DbErrorKind::Other,
            },
        },
        _ => DbErrorKind::Other,
    };
    DbError::new(kind, e)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_are_bound_by_number_in_any_order() {
        let conn = Connection::open_in_memory().unwrap();
        let stmt = Stmt::query(
            "SELECT $2, $1, $2 || '$1'",
            vec![
                SqlValue::from("a".to_owned()),
                SqlValue::from("b".to_owned()),
            ],
        );
        let outcome = run_one(&conn, stmt).unwrap();
        let row = &outcome.rows[0].0;
        let texts: Vec<_> = row
            .iter()
            .map(|v| match v {
                SqlValue::Text(t) => t.as_deref().unwrap_or("?"),
                _ => "?",
            })
            .collect();
        assert_eq!(texts, ["b", "a", "b$1"]);
    }
}
