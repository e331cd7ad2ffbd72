//! What a driver (rusqlite, sqlx) provides to the shared store: statements run in a
//! transaction or a read snapshot, and its errors sorted into portable kinds.

use std::borrow::Cow;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use lore_core::error::Cause;

use crate::dialect::Dialect;
use crate::value::{ColType, Row, SqlValue};

/// A table written through a driver's bulk path: the columns in order, with their types,
/// and what happens on a clash with an existing row.
#[derive(Debug)]
pub struct Table {
    pub name: &'static str,
    pub columns: &'static [(&'static str, ColType)],
    /// `ON CONFLICT ...`, appended to the insert.
    pub on_conflict: &'static str,
    /// Columns the database fills for each row: a name and an expression of the row `v`
    /// (its columns by name) and of what `join` brings, `{fold}` standing for
    /// [`Dialect::fold`]'s function. Empty for most tables.
    pub derived: &'static [(&'static str, &'static str)],
    /// Joined to the rows `v` for `derived`, e.g. `LEFT JOIN objects o ON ...`.
    pub join: &'static str,
}

impl Table {
    /// The insert of a table with [`Table::derived`] columns, its rows read from
    /// `source`, a row source with the alias `v` whose columns are named as the table's.
    pub fn derived_insert(&self, dialect: Dialect, source: &str) -> String {
        let own: Vec<String> = self.columns.iter().map(|(c, _)| format!("v.{c}")).collect();
        let names: Vec<&str> = self.derived.iter().map(|(name, _)| *name).collect();
        let fold = dialect.fold_function();
        let values: Vec<String> = self
            .derived
            .iter()
            .map(|(_, expr)| expr.replace("{fold}", fold))
            .collect();
        // `WHERE true`: SQLite reads an ON CONFLICT after a bare join as its ON.
        format!(
            "INSERT INTO {} ({}, {}) SELECT {}, {} FROM {source} {} WHERE true {}",
            self.name,
            self.column_list(),
            names.join(", "),
            own.join(", "),
            values.join(", "),
            self.join,
            self.on_conflict
        )
    }

    /// The column names, comma separated.
    pub fn column_list(&self) -> String {
        let names: Vec<&str> = self.columns.iter().map(|(name, _)| *name).collect();
        names.join(", ")
    }

    /// The index of a column.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.columns.iter().position(|(n, _)| *n == name)
    }
}

/// One statement for a driver to run. Parameters are written `$1`, `$2`, ... in every
/// dialect (the SQLite driver renumbers them).
#[derive(Debug, Clone)]
pub enum Stmt {
    /// A statement with parameters; `returns_rows` asks for its rows (a SELECT or a
    /// RETURNING clause).
    Exec {
        sql: Cow<'static, str>,
        params: Vec<SqlValue>,
        returns_rows: bool,
    },
    /// Rows into one table, through the driver's bulk path.
    Insert {
        table: &'static Table,
        rows: Vec<Vec<SqlValue>>,
    },
    /// Several statements without parameters (a migration).
    Script(Cow<'static, str>),
}

impl Stmt {
    pub fn exec(sql: impl Into<Cow<'static, str>>, params: Vec<SqlValue>) -> Self {
        Self::Exec {
            sql: sql.into(),
            params,
            returns_rows: false,
        }
    }
    pub fn query(sql: impl Into<Cow<'static, str>>, params: Vec<SqlValue>) -> Self {
        Self::Exec {
            sql: sql.into(),
            params,
            returns_rows: true,
        }
    }
}

/// What one statement did.
#[derive(Debug, Default)]
pub struct Outcome {
    pub affected: u64,
    pub rows: Vec<Row>,
}

/// The portable kind of a driver error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DbErrorKind {
    /// A unique or primary key clashed; `constraint` names the index or its columns,
    /// `detail` the clashing value when the database says it.
    Unique {
        constraint: String,
        detail: Option<String>,
    },
    ForeignKey,
    /// A serialization failure, deadlock or busy database: the transaction was rolled
    /// back and may succeed if tried again.
    Retryable,
    /// A number out of the column's range.
    OutOfRange,
    /// Text or a value the database cannot hold.
    InvalidValue,
    /// The database cannot be reached (refused, restarting, the connection lost) or
    /// cannot take the write (its disk full); `reason` says which, for the client.
    /// Nothing of the statement was applied, unless a commit's answer was lost.
    Unavailable {
        reason: &'static str,
    },
    Other,
}

/// A failed statement: its kind, which statement of the list (and which row of a bulk
/// insert, when the driver knows), and the driver's own error.
#[derive(Debug)]
pub struct DbError {
    pub kind: DbErrorKind,
    /// The index of the failed statement in the list passed to the driver.
    pub statement: usize,
    /// The row of a bulk insert that failed.
    pub row: Option<usize>,
    /// The failed statement itself, handed back so its values can be named.
    pub failed: Option<Box<Stmt>>,
    pub cause: Cause,
}

impl DbError {
    pub fn new(kind: DbErrorKind, cause: impl Into<Cause>) -> Self {
        Self {
            kind,
            statement: 0,
            row: None,
            failed: None,
            cause: cause.into(),
        }
    }
}

/// The outcomes of statements run in order, stopping at the first failure, which is
/// numbered with its statement.
pub fn in_order(
    results: impl Iterator<Item = Result<Outcome, DbError>>,
) -> Result<Vec<Outcome>, DbError> {
    let mut outcomes = Vec::new();
    for (i, result) in results.enumerate() {
        match result {
            Ok(outcome) => outcomes.push(outcome),
            Err(mut e) => {
                e.statement = i;
                return Err(e);
            }
        }
    }
    Ok(outcomes)
}

/// A database connection (pool) the shared store runs over.
#[async_trait]
pub trait Driver: Send + Sync + std::fmt::Debug + Sized + 'static {
    type Tx: DriverTx;
    type Snapshot: DriverSnapshot;
    /// Where the database is: a file path, a URL.
    type Options: Send;

    const DIALECT: Dialect;

    /// Opens the connections to the database.
    async fn connect(options: Self::Options) -> lore_core::Result<Self>;

    /// Runs read-only statements (`Stmt::Exec`) against one consistent snapshot of the
    /// last committed state, without waiting for writers.
    async fn read(&self, queries: Vec<Stmt>) -> Result<Vec<Outcome>, DbError>;

    /// [`Driver::read`] of one statement that reads a handful of rows by key (an entity,
    /// a key's check): a driver whose reads block (SQLite) may run it on the calling
    /// thread rather than hand it to another.
    async fn read_short(&self, query: Stmt) -> Result<Vec<Outcome>, DbError> {
        self.read(vec![query]).await
    }

    /// Starts a write transaction; writers wait for each other.
    async fn begin(&self) -> Result<Self::Tx, DbError>;

    /// Opens a read-only transaction on one consistent snapshot of the last committed
    /// state, for a series of reads (a backup). Writers do not wait for it.
    async fn snapshot(&self) -> Result<Self::Snapshot, DbError>;

    /// Reports every statement run from now on to `observer` (the server's metrics); a
    /// driver takes one observer, later ones are ignored.
    fn observe(&self, _observer: Arc<dyn StatementObserver>) {}

    /// How the driver's connections are used now.
    fn pool_use(&self) -> PoolUse {
        PoolUse::default()
    }
}

/// Whether a statement ran outside a write transaction (a read, a snapshot) or in one
/// (its commit included).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Access {
    Read,
    Write,
}

/// Told how long each statement a driver runs took; must not block.
pub trait StatementObserver: Send + Sync + std::fmt::Debug {
    fn statement(&self, access: Access, elapsed: Duration);
}

/// The connections of a driver: open and idle, in use, and the most it opens.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolUse {
    pub idle: u64,
    pub in_use: u64,
    pub max: u64,
}

/// Where a driver keeps its [`StatementObserver`], shared with its transactions.
#[derive(Debug, Clone, Default)]
pub struct Observed(Arc<OnceLock<Arc<dyn StatementObserver>>>);

impl Observed {
    pub fn set(&self, observer: Arc<dyn StatementObserver>) {
        let _ = self.0.set(observer);
    }

    /// Runs `f`, reporting how long it took.
    pub fn time<T>(&self, access: Access, f: impl FnOnce() -> T) -> T {
        let started = Instant::now();
        let result = f();
        self.report(access, started);
        result
    }

    /// Reports a statement that began at `started` and has just ended.
    pub fn report(&self, access: Access, started: Instant) {
        if let Some(observer) = self.0.get() {
            observer.statement(access, started.elapsed());
        }
    }
}

/// An open read-only transaction of a driver, ended when dropped.
#[async_trait]
pub trait DriverSnapshot: Send + Sync + std::fmt::Debug + 'static {
    /// Runs read-only statements on the snapshot.
    async fn read(&self, queries: Vec<Stmt>) -> Result<Vec<Outcome>, DbError>;
}

/// An open write transaction of a driver. Dropping it rolls back.
#[async_trait]
pub trait DriverTx: Send + 'static {
    /// Runs the statements in order; stops at the first failure.
    async fn run(&mut self, stmts: Vec<Stmt>) -> Result<Vec<Outcome>, DbError>;
    async fn commit(self) -> Result<(), DbError>;
}
