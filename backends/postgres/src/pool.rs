//! The connections of one process to PostgreSQL.
//!
//! sqlx's own pool sends a `Sync` and waits for the server's answer each time a
//! connection comes back (and, by default, before it is handed out): on a read of one
//! statement that is two round trips more than the statement itself, a third of an entity
//! read's time on this machine. This pool hands out a connection and takes it back as it
//! is, and instead trusts what a use of it shows:
//!
//! - a connection whose use ended normally, or in an error the database answered (a
//!   unique key clash, a serialization failure), goes back to the pool;
//! - a connection that broke (the server restarted, an administrator ended it, the
//!   network failed) is closed, and so is every idle one: they most likely broke the same
//!   way, and the next caller connects afresh;
//! - a connection whose use was abandoned half-way (the caller's future was dropped) is
//!   closed: what it was in the middle of is unknown;
//! - an uncommitted transaction is rolled back before its connection is reused (sqlx
//!   queues the `ROLLBACK`, sent ahead of the next statement).
//!
//! A caller waits at most [`ACQUIRE_TIMEOUT`] for a free connection and [`CONNECT_TIMEOUT`]
//! for a new one; either failing is the database being unavailable, answered at once
//! rather than after retries.

use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use lore_backend_sql::{DbError, DbErrorKind};
use sqlx::postgres::{PgConnectOptions, PgConnection, PgTransactionManager};
use sqlx::{Connection, SqlSafeStr};
use sqlx_core::transaction::TransactionManager;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How long a caller waits for a free connection before the database counts as
/// unavailable (every connection busy).
pub const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(15);
/// How long opening a connection may take.
pub const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);

/// A bounded pool of connections, cheap to clone.
#[derive(Clone)]
pub struct Pool {
    inner: Arc<Inner>,
}

struct Inner {
    options: PgConnectOptions,
    max: u32,
    /// One permit per connection that may be open.
    permits: Arc<Semaphore>,
    idle: Mutex<Vec<PgConnection>>,
    /// Connections open, idle or leased.
    open: AtomicU32,
    closed: AtomicBool,
}

impl Pool {
    /// A pool of at most `max` connections; opens one now, so a wrong URL or an
    /// unreachable server fails here.
    pub async fn connect(options: PgConnectOptions, max: u32) -> Result<Self, sqlx::Error> {
        let pool = Self {
            inner: Arc::new(Inner {
                options,
                max,
                permits: Arc::new(Semaphore::new(max as usize)),
                idle: Mutex::new(Vec::new()),
                open: AtomicU32::new(0),
                closed: AtomicBool::new(false),
            }),
        };
        let first = pool.open_connection().await?;
        pool.inner.open.fetch_add(1, Ordering::Relaxed);
        pool.idle().push(first);
        Ok(pool)
    }

    /// A connection: an idle one, or a new one when none is idle.
    pub async fn acquire(&self) -> Result<Lease, DbError> {
        let permit = self.permit().await?;
        let idle = self.idle().pop();
        let (conn, reused) = match idle {
            Some(conn) => (conn, true),
            None => (self.open_counted().await?, false),
        };
        Ok(self.lease(conn, permit, reused))
    }

    /// A new connection, for a second try after a reused one turned out broken.
    pub async fn acquire_new(&self) -> Result<Lease, DbError> {
        let permit = self.permit().await?;
        let conn = self.open_counted().await?;
        Ok(self.lease(conn, permit, false))
    }

    /// Closes the idle connections; later acquisitions fail.
    pub async fn close(&self) {
        self.inner.closed.store(true, Ordering::Relaxed);
        self.inner.permits.close();
        let idle: Vec<PgConnection> = std::mem::take(&mut *self.idle());
        for conn in idle {
            self.inner.open.fetch_sub(1, Ordering::Relaxed);
            let _ = conn.close().await;
        }
    }

    /// (idle, open, max) connections.
    pub fn usage(&self) -> (u32, u32, u32) {
        let idle = self.idle().len() as u32;
        (
            idle,
            self.inner.open.load(Ordering::Relaxed),
            self.inner.max,
        )
    }

    fn idle(&self) -> std::sync::MutexGuard<'_, Vec<PgConnection>> {
        // A panic while holding the lock leaves a list of connections, still valid.
        self.inner
            .idle
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    async fn permit(&self) -> Result<OwnedSemaphorePermit, DbError> {
        match tokio::time::timeout(
            ACQUIRE_TIMEOUT,
            Arc::clone(&self.inner.permits).acquire_owned(),
        )
        .await
        {
            Ok(Ok(permit)) => Ok(permit),
            Ok(Err(_closed)) => Err(DbError::new(
                DbErrorKind::Unavailable {
                    reason: "the server is shutting down",
                },
                "the connection pool is closed",
            )),
            Err(_elapsed) => Err(DbError::new(
                DbErrorKind::Unavailable {
                    reason: "every connection to it is busy",
                },
                format!(
                    "no PostgreSQL connection became free within {} s",
                    ACQUIRE_TIMEOUT.as_secs()
                ),
            )),
        }
    }

    async fn open_counted(&self) -> Result<PgConnection, DbError> {
        let conn = self.open_connection().await.map_err(|e| {
            DbError::new(
                DbErrorKind::Unavailable {
                    reason: "it cannot be reached",
                },
                e,
            )
        })?;
        self.inner.open.fetch_add(1, Ordering::Relaxed);
        Ok(conn)
    }

    async fn open_connection(&self) -> Result<PgConnection, sqlx::Error> {
        match tokio::time::timeout(
            CONNECT_TIMEOUT,
            PgConnection::connect_with(&self.inner.options),
        )
        .await
        {
            Ok(connected) => connected,
            Err(_elapsed) => Err(sqlx::Error::PoolTimedOut),
        }
    }

    fn lease(&self, conn: PgConnection, permit: OwnedSemaphorePermit, reused: bool) -> Lease {
        Lease {
            conn: Some(conn),
            pool: self.clone(),
            _permit: permit,
            reused,
            state: State::Busy,
        }
    }

    /// Takes a connection back, or closes it.
    fn put_back(&self, mut conn: PgConnection, state: State) {
        let keep = !self.inner.closed.load(Ordering::Relaxed)
            && match state {
                State::Clean => true,
                State::InTransaction => {
                    // Sent ahead of the connection's next statement.
                    PgTransactionManager::start_rollback(&mut conn);
                    true
                }
                State::Busy => false,
                State::Broken | State::Unanswered => {
                    self.drop_idle();
                    false
                }
            };
        if keep {
            self.idle().push(conn);
            return;
        }
        self.inner.open.fetch_sub(1, Ordering::Relaxed);
        // Say goodbye to the server when a runtime is there to do it; dropping the
        // socket is enough otherwise.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = conn.close().await;
            });
        }
    }

    /// Closes every idle connection (after one broke).
    fn drop_idle(&self) {
        let idle: Vec<PgConnection> = std::mem::take(&mut *self.idle());
        for conn in idle {
            self.inner.open.fetch_sub(1, Ordering::Relaxed);
            drop(conn);
        }
    }
}

/// How a leased connection is left.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Used, or in use, with no ending seen: closed when dropped like this.
    Busy,
    /// Ready for the next statement.
    Clean,
    /// Inside a transaction nothing will commit: rolled back, then reused.
    InTransaction,
    /// Broken: closed, and the idle connections with it.
    Broken,
    /// A statement went unanswered for too long: closed like a broken one.
    Unanswered,
}

/// A connection out of the pool, going back (or closed) when dropped, as its use left it.
pub struct Lease {
    conn: Option<PgConnection>,
    pool: Pool,
    _permit: OwnedSemaphorePermit,
    /// Whether it was idle in the pool before (it may have broken meanwhile).
    pub reused: bool,
    state: State,
}

impl std::fmt::Debug for Lease {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lease")
            .field("reused", &self.reused)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}

impl Lease {
    pub fn conn(&mut self) -> &mut PgConnection {
        // Only `Drop` takes it out.
        self.conn.as_mut().expect("a lease holds its connection")
    }

    /// Whether the last use found the connection ended: by the server (a restart, a
    /// failover, an administrator), or lost on the way; not one that went unanswered.
    pub fn found_ended(&self) -> bool {
        self.state == State::Broken
    }

    /// Records how the last use ended: `Ok`, or an error of the statement (the database's
    /// answer, a value that did not decode), leaves the connection ready; an error of
    /// the connection broke it.
    pub fn settle<T>(&mut self, result: &Result<T, sqlx::Error>) {
        self.state = match result {
            Err(sqlx::Error::Io(io)) if io.kind() == std::io::ErrorKind::TimedOut => {
                State::Unanswered
            }
            Err(e) if is_connection_error(e) => State::Broken,
            _ if PgTransactionManager::get_transaction_depth(self.conn()) > 0 => {
                State::InTransaction
            }
            _ => State::Clean,
        };
    }

    /// Begins a transaction with `statement` (`BEGIN ...`), in one round trip.
    pub async fn begin(&mut self, statement: &'static str) -> Result<(), sqlx::Error> {
        let begun = PgTransactionManager::begin(self.conn(), Some(statement.into_sql_str())).await;
        self.settle(&begun);
        begun
    }

    pub async fn commit(&mut self) -> Result<(), sqlx::Error> {
        self.state = State::Busy;
        let committed = PgTransactionManager::commit(self.conn()).await;
        self.settle(&committed);
        committed
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        if let Some(conn) = self.conn.take() {
            self.pool.put_back(conn, self.state);
        }
    }
}

/// Whether an error is the connection's, not the statement's: worth one more try on a
/// new connection when nothing was written.
pub fn is_connection_error(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::WorkerCrashed
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed => true,
        sqlx::Error::Database(db) => db.code().is_some_and(|c| is_connection_state(&c)),
        _ => false,
    }
}

/// SQLSTATEs of a connection the server ended or cannot serve: class 08 (connection
/// exception), 57P01–57P03 (an administrator's or a crash's shutdown, starting up), 53300
/// (too many connections).
pub fn is_connection_state(code: &str) -> bool {
    code.starts_with("08") || matches!(code, "57P01" | "57P02" | "57P03" | "53300")
}
