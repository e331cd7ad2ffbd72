//! The PostgreSQL driver of Lore's shared SQL store ([`lore_backend_sql::SqlStore`]),
//! over an sqlx connection pool.
//!
//! Any number of Lore processes may share one database: sessions live in it, ids are
//! reserved with one atomic upsert, every write is one transaction, and migrations run
//! under an advisory lock so processes starting together migrate once. Bulk writes go
//! through one `INSERT ... SELECT * FROM UNNEST(...)` per table and chunk.

use std::fmt;
use std::str::FromStr;

use async_trait::async_trait;
use futures_util::TryStreamExt;
use lore_backend_sql::{
    Access, ColType, DbError, DbErrorKind, Dialect, Driver, DriverSnapshot, DriverTx, Observed,
    Outcome, PoolUse, Row, SqlStore, SqlValue, StatementObserver, Stmt, Table,
};
use lore_core::{Error, Result};
use sqlx::postgres::{PgArguments, PgConnectOptions, PgRow};
use sqlx::{
    AssertSqlSafe, Column, Decode, PgConnection, Postgres as Pg, Row as _, TypeInfo, ValueRef,
};

mod pool;

use pool::{Lease, Pool};

/// A [`Store`](lore_core::Store) over a PostgreSQL database. `PostgresStore::open(url)`
/// connects to the database at `url` (`postgres://user:password@host:port/database`) and
/// applies the migrations it lacks; a database whose schema is newer than this binary
/// knows is refused.
pub type PostgresStore = SqlStore<Postgres>;

/// How many connections one process keeps open at most.
const MAX_CONNECTIONS: u32 = 16;

async fn connect(url: &str) -> Result<Postgres> {
    let options = PgConnectOptions::from_str(url)
        .map_err(|e| Error::internal(format!("invalid PostgreSQL URL: {e}")))?
        // Lore's statements take milliseconds: compiling a plan the planner thinks
        // costly (a broad search's 40,000 index probes) took 5–10 ms on every execution
        // (a compiled plan is never kept), more than it saved.
        .options([("jit", "off")]);
    let target = describe_target(&options);
    let pool = Pool::connect(options, MAX_CONNECTIONS)
        .await
        .map_err(|e| Error::internal(format!("cannot connect to PostgreSQL at {target}: {e}")))?;
    tracing::info!(database = %target, "connected to PostgreSQL");
    Ok(Postgres {
        pool,
        target,
        observed: Observed::default(),
    })
}

/// The connection pool of a store.
#[derive(Clone)]
pub struct Postgres {
    pool: Pool,
    /// `host:port/database`, for messages; never the password.
    target: String,
    /// Told of every statement (the server's metrics).
    observed: Observed,
}

impl fmt::Debug for Postgres {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Postgres")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl Postgres {
    /// Closes every connection of the pool; later calls fail.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// Runs reads on a leased connection: one statement alone, several in one snapshot.
    async fn read_on(
        &self,
        lease: &mut Lease,
        queries: Vec<Stmt>,
    ) -> Result<Vec<Outcome>, DbError> {
        if queries.len() == 1 {
            return run_all(lease, queries, &self.observed, Access::Read).await;
        }
        lease.begin(SNAPSHOT).await.map_err(classify)?;
        let outcomes = run_all(lease, queries, &self.observed, Access::Read).await?;
        lease.commit().await.map_err(classify)?;
        Ok(outcomes)
    }
}

/// Begins a transaction that reads one snapshot and writes nothing.
const SNAPSHOT: &str = "BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY";

/// `host:port/database` (or the socket path) of connect options, without credentials.
fn describe_target(options: &PgConnectOptions) -> String {
    let database = options.get_database().unwrap_or(options.get_username());
    match options.get_socket() {
        Some(socket) => format!("{}/{database}", socket.display()),
        None => format!("{}:{}/{database}", options.get_host(), options.get_port()),
    }
}

#[async_trait]
impl Driver for Postgres {
    type Tx = PgTx;
    type Snapshot = PgSnapshot;
    type Options = String;
    const DIALECT: Dialect = Dialect::Postgres;

    async fn connect(url: String) -> Result<Self> {
        connect(&url).await
    }

    async fn read(&self, queries: Vec<Stmt>) -> Result<Vec<Outcome>, DbError> {
        let mut lease = self.pool.acquire().await?;
        if !lease.reused {
            return self.read_on(&mut lease, queries).await;
        }
        // A connection that waited in the pool may have been ended meanwhile (a restart
        // of the server, a failover): a read on it is tried once more on a new
        // connection. One that went unanswered is not (that would double the wait).
        let again = queries.clone();
        match self.read_on(&mut lease, queries).await {
            Err(e) if lease.found_ended() => {
                drop(lease);
                tracing::info!(error = %e.cause, "a pooled PostgreSQL connection had broken; reading on a new one");
                let mut lease = self.pool.acquire_new().await?;
                self.read_on(&mut lease, again).await
            }
            read => read,
        }
    }

    async fn begin(&self) -> Result<PgTx, DbError> {
        let mut lease = self.pool.acquire().await?;
        lease.begin("BEGIN").await.map_err(classify)?;
        Ok(PgTx {
            lease,
            observed: self.observed.clone(),
        })
    }

    async fn snapshot(&self) -> Result<PgSnapshot, DbError> {
        let mut lease = self.pool.acquire().await?;
        lease.begin(SNAPSHOT).await.map_err(classify)?;
        // The snapshot is taken at the transaction's first query: take it now.
        let taken = sqlx::query("SELECT 1").execute(lease.conn()).await;
        lease.settle(&taken);
        taken.map_err(classify)?;
        Ok(PgSnapshot {
            lease: tokio::sync::Mutex::new(lease),
            observed: self.observed.clone(),
        })
    }

    fn observe(&self, observer: std::sync::Arc<dyn StatementObserver>) {
        self.observed.set(observer);
    }

    fn pool_use(&self) -> PoolUse {
        let (idle, open, max) = self.pool.usage();
        PoolUse {
            idle: u64::from(idle),
            in_use: u64::from(open.saturating_sub(idle)),
            max: u64::from(max),
        }
    }
}

/// A `REPEATABLE READ, READ ONLY` transaction held open for a series of reads; rolled
/// back when it is dropped.
#[derive(Debug)]
pub struct PgSnapshot {
    lease: tokio::sync::Mutex<Lease>,
    observed: Observed,
}

#[async_trait]
impl DriverSnapshot for PgSnapshot {
    async fn read(&self, queries: Vec<Stmt>) -> Result<Vec<Outcome>, DbError> {
        let mut lease = self.lease.lock().await;
        run_all(&mut lease, queries, &self.observed, Access::Read).await
    }
}

/// A write transaction; rolled back when dropped uncommitted.
#[derive(Debug)]
pub struct PgTx {
    lease: Lease,
    observed: Observed,
}

#[async_trait]
impl DriverTx for PgTx {
    async fn run(&mut self, stmts: Vec<Stmt>) -> Result<Vec<Outcome>, DbError> {
        run_all(&mut self.lease, stmts, &self.observed, Access::Write).await
    }

    async fn commit(mut self) -> Result<(), DbError> {
        let started = std::time::Instant::now();
        let committed = self.lease.commit().await.map_err(classify);
        self.observed.report(Access::Write, started);
        committed
    }
}

/// The longest a statement may wait for its answer before the database counts as not
/// answering and its connection is closed: without it a network that drops packets
/// without a reset would hold a call for as long as TCP keeps trying. A deployment wants
/// a tighter bound on the server's side: `options=-c statement_timeout=...` in the URL
/// (a statement it cancels is answered like this one).
const STATEMENT_LIMIT: std::time::Duration = std::time::Duration::from_secs(60);

/// Runs the statements in order, each reported to `observed`.
async fn run_all(
    lease: &mut Lease,
    stmts: Vec<Stmt>,
    observed: &Observed,
    access: Access,
) -> Result<Vec<Outcome>, DbError> {
    let mut outcomes = Vec::with_capacity(stmts.len());
    for (i, stmt) in stmts.into_iter().enumerate() {
        let started = std::time::Instant::now();
        let ran = match stmt {
            // Migrations and ANALYZE take as long as the data makes them.
            Stmt::Script(_) => run_one(lease.conn(), stmt).await,
            _ => tokio::time::timeout(STATEMENT_LIMIT, run_one(lease.conn(), stmt))
                .await
                .unwrap_or_else(|_elapsed| {
                    Err(sqlx::Error::Io(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        format!(
                            "PostgreSQL did not answer a statement within {} s",
                            STATEMENT_LIMIT.as_secs()
                        ),
                    )))
                }),
        };
        lease.settle(&ran);
        observed.report(access, started);
        match ran {
            Ok(outcome) => outcomes.push(outcome),
            Err(e) => {
                let mut e = classify(e);
                e.statement = i;
                return Err(e);
            }
        }
    }
    Ok(outcomes)
}

type PgQuery<'q> = sqlx::query::Query<'q, Pg, PgArguments>;

async fn run_one(conn: &mut PgConnection, stmt: Stmt) -> Result<Outcome, sqlx::Error> {
    match stmt {
        Stmt::Exec {
            sql,
            params,
            returns_rows,
        } => {
            let mut query = sqlx::query(AssertSqlSafe(sql));
            for param in params {
                query = bind(query, param);
            }
            if returns_rows {
                // Each row converted as it arrives, while the server sends the next
                // (a broad term's lone page, 40,000 rows, 82 -> 73 ms p50 at 1,000,000 objects).
                let mut stream = query.fetch(&mut *conn);
                let mut kinds_of = None;
                let mut rows = Vec::new();
                while let Some(pg) = stream.try_next().await? {
                    let kinds = kinds_of.get_or_insert_with(|| kinds(&pg));
                    rows.push(row(&pg, kinds)?);
                }
                Ok(Outcome {
                    affected: rows.len() as u64,
                    rows,
                })
            } else {
                let done = query.execute(&mut *conn).await?;
                Ok(Outcome {
                    affected: done.rows_affected(),
                    rows: Vec::new(),
                })
            }
        }
        Stmt::Insert { table, rows } => {
            let done = unnest(table, rows).execute(&mut *conn).await?;
            Ok(Outcome {
                affected: done.rows_affected(),
                rows: Vec::new(),
            })
        }
        Stmt::Script(sql) => {
            sqlx::raw_sql(AssertSqlSafe(sql))
                .execute(&mut *conn)
                .await?;
            Ok(Outcome::default())
        }
    }
}

fn bind(query: PgQuery<'_>, value: SqlValue) -> PgQuery<'_> {
    match value {
        SqlValue::Int(v) => query.bind(v),
        SqlValue::Real(v) => query.bind(v),
        SqlValue::Text(v) => query.bind(v),
        SqlValue::Bool(v) => query.bind(v),
        SqlValue::Null => query.bind(None::<String>),
    }
}

/// The bulk path: one `INSERT ... SELECT * FROM UNNEST(...)` with a typed array per column.
fn unnest(table: &'static Table, rows: Vec<Vec<SqlValue>>) -> PgQuery<'static> {
    let arrays: Vec<String> = table
        .columns
        .iter()
        .enumerate()
        .map(|(i, (_, ty))| format!("${}::{}[]", i + 1, sql_type(*ty)))
        .collect();
    let sql = if table.derived.is_empty() {
        format!(
            "INSERT INTO {} ({}) SELECT * FROM UNNEST({}) {}",
            table.name,
            table.column_list(),
            arrays.join(", "),
            table.on_conflict
        )
    } else {
        let source = format!(
            "UNNEST({}) AS v({})",
            arrays.join(", "),
            table.column_list()
        );
        table.derived_insert(Dialect::Postgres, &source)
    };
    let mut columns: Vec<Vec<SqlValue>> = table
        .columns
        .iter()
        .map(|_| Vec::with_capacity(rows.len()))
        .collect();
    for row in rows {
        for (column, value) in columns.iter_mut().zip(row) {
            column.push(value);
        }
    }
    let mut query = sqlx::query(AssertSqlSafe(sql));
    for ((_, ty), values) in table.columns.iter().zip(columns) {
        query = match ty {
            ColType::Int => query.bind(collect(values, |v| match v {
                SqlValue::Int(v) => v,
                _ => None,
            })),
            ColType::Real => query.bind(collect(values, |v| match v {
                SqlValue::Real(v) => v,
                _ => None,
            })),
            ColType::Text => query.bind(collect(values, |v| match v {
                SqlValue::Text(v) => v,
                _ => None,
            })),
            ColType::Bool => query.bind(collect(values, |v| match v {
                SqlValue::Bool(v) => v,
                _ => None,
            })),
        };
    }
    query
}

fn collect<T>(values: Vec<SqlValue>, get: fn(SqlValue) -> Option<T>) -> Vec<Option<T>> {
    values.into_iter().map(get).collect()
}

fn sql_type(ty: ColType) -> &'static str {
    match ty {
        ColType::Int => "BIGINT",
        ColType::Real => "DOUBLE PRECISION",
        ColType::Text => "TEXT",
        ColType::Bool => "BOOLEAN",
    }
}

/// How a column of a result is read into a [`SqlValue`].
#[derive(Debug, Clone, Copy)]
enum Kind {
    Int8,
    Int4,
    Int2,
    Float8,
    Float4,
    Bool,
    Void,
    /// A text type: read as its bytes.
    Text,
    /// Any other type: read as text if sqlx finds it compatible, else an error.
    Other,
}

/// The kind of each column of a result, from its first row (every row of a result has
/// the same columns): the type names are compared once per result, not once per value.
fn kinds(pg: &PgRow) -> Vec<Kind> {
    pg.columns()
        .iter()
        .map(|column| match column.type_info().name() {
            "INT8" => Kind::Int8,
            "INT4" => Kind::Int4,
            "INT2" => Kind::Int2,
            "FLOAT8" => Kind::Float8,
            "FLOAT4" => Kind::Float4,
            "BOOL" => Kind::Bool,
            "VOID" => Kind::Void,
            "TEXT" | "VARCHAR" | "BPCHAR" | "NAME" => Kind::Text,
            _ => Kind::Other,
        })
        .collect()
}

/// A row of a result whose columns are of `kinds`. Each value is looked up once and
/// those of the kinds named by type are decoded without sqlx's per-value type check
/// (`kinds` came from the same columns): 40,000 rows of six columns took 17–22 ms with
/// it, and a second lookup per value (`try_get_unchecked`) a tenth of a broad search's
/// fill.
fn row(pg: &PgRow, kinds: &[Kind]) -> Result<Row, sqlx::Error> {
    let mut values = Vec::with_capacity(kinds.len());
    for (i, kind) in kinds.iter().enumerate() {
        let raw = pg.try_get_raw(i)?;
        if raw.is_null() {
            values.push(SqlValue::Null);
            continue;
        }
        let decoded = |source| sqlx::Error::ColumnDecode {
            index: i.to_string(),
            source,
        };
        values.push(match kind {
            Kind::Int8 => SqlValue::Int(Some(i64::decode(raw).map_err(decoded)?)),
            Kind::Int4 => SqlValue::Int(Some(i64::from(i32::decode(raw).map_err(decoded)?))),
            Kind::Int2 => SqlValue::Int(Some(i64::from(i16::decode(raw).map_err(decoded)?))),
            Kind::Float8 => SqlValue::Real(Some(f64::decode(raw).map_err(decoded)?)),
            Kind::Float4 => SqlValue::Real(Some(f64::from(f32::decode(raw).map_err(decoded)?))),
            Kind::Bool => SqlValue::Bool(Some(bool::decode(raw).map_err(decoded)?)),
            Kind::Void => SqlValue::Null,
            Kind::Text => SqlValue::Text(Some(raw.as_str().map_err(decoded)?.to_owned())),
            Kind::Other => SqlValue::Text(Some(pg.try_get::<String, _>(i)?)),
        });
    }
    Ok(Row(values))
}

/// The SQLSTATEs Lore tells apart.
const UNIQUE_VIOLATION: &str = "23505";
const FOREIGN_KEY_VIOLATION: &str = "23503";
const SERIALIZATION_FAILURE: &str = "40001";
const DEADLOCK_DETECTED: &str = "40P01";
const NUMERIC_OUT_OF_RANGE: &str = "22003";
const NUL_IN_TEXT: &str = "22021";
const NUL_IN_JSON: &str = "22P05";
const QUERY_CANCELED: &str = "57014";

/// Sorts an sqlx error into its portable kind.
fn classify(e: sqlx::Error) -> DbError {
    let kind = match &e {
        sqlx::Error::Database(db) => match db.code().as_deref() {
            Some(UNIQUE_VIOLATION) => DbErrorKind::Unique {
                constraint: db.constraint().unwrap_or_default().to_owned(),
                detail: db
                    .try_downcast_ref::<sqlx::postgres::PgDatabaseError>()
                    .and_then(|pg| pg.detail())
                    .map(str::to_owned),
            },
            Some(FOREIGN_KEY_VIOLATION) => DbErrorKind::ForeignKey,
            Some(SERIALIZATION_FAILURE | DEADLOCK_DETECTED) => DbErrorKind::Retryable,
            Some(NUMERIC_OUT_OF_RANGE) => DbErrorKind::OutOfRange,
            Some(NUL_IN_TEXT | NUL_IN_JSON) => DbErrorKind::InvalidValue,
            Some(code) if pool::is_connection_state(code) => DbErrorKind::Unavailable {
                reason: "it is restarting or refuses connections",
            },
            // statement_timeout, or an administrator's pg_cancel_backend.
            Some(QUERY_CANCELED) => DbErrorKind::Unavailable {
                reason: "it did not answer in time",
            },
            _ => DbErrorKind::Other,
        },
        sqlx::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
            DbErrorKind::Unavailable {
                reason: "it did not answer in time",
            }
        }
        e if pool::is_connection_error(e) => DbErrorKind::Unavailable {
            reason: "the connection to it was lost",
        },
        _ => DbErrorKind::Other,
    };
    DbError::new(kind, e)
}
