//! The PostgreSQL driver of Lore's shared SQL store ([`lore_backend_sql::SqlStore`]),
//! over an sqlx connection pool.
//!
//! Any number of Lore processes may share one database: sessions live in it, ids are
//! reserved with one atomic upsert, every write is one transaction, and migrations run
//! under an advisory lock so processes starting together migrate once. Bulk writes go
//! through one `INSERT ... SELECT * FROM UNNEST(...)` per table and chunk.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use lore_backend_sql::{
    Access, ColType, DbError, DbErrorKind, Dialect, Driver, DriverSnapshot, DriverTx, Observed,
    Outcome, PoolUse, Row, SqlStore, SqlValue, StatementObserver, Stmt, Table,
};
use lore_core::{Error, Result};
use sqlx::postgres::{PgArguments, PgConnectOptions, PgPool, PgPoolOptions, PgRow};
use sqlx::{AssertSqlSafe, Column, PgConnection, Postgres as Pg, Row as _, TypeInfo, ValueRef};

/// A [`Store`](lore_core::Store) over a PostgreSQL database. `PostgresStore::open(url)`
/// connects to the database at `url` (`postgres://user:password@host:port/database`) and
/// applies the migrations it lacks; a database whose schema is newer than this binary
/// knows is refused.
pub type PostgresStore = SqlStore<Postgres>;

/// How many connections one process keeps open at most.
const MAX_CONNECTIONS: u32 = 16;
/// How long a caller waits for a free connection (or a new one) before failing.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(15);

async fn connect(url: &str) -> Result<Postgres> {
    let options = PgConnectOptions::from_str(url)
        .map_err(|e| Error::internal(format!("invalid PostgreSQL URL: {e}")))?;
    let target = describe_target(&options);
    let pool = PgPoolOptions::new()
        .max_connections(MAX_CONNECTIONS)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        .connect_with(options)
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
    pool: PgPool,
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
}

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
        let mut conn = self.pool.acquire().await.map_err(classify)?;
        if queries.len() == 1 {
            return run_all(&mut conn, queries, &self.observed, Access::Read).await;
        }
        // Several queries read one snapshot.
        let mut tx = sqlx::Connection::begin(&mut *conn)
            .await
            .map_err(classify)?;
        read_only(&mut tx).await?;
        let outcomes = run_all(&mut tx, queries, &self.observed, Access::Read).await?;
        tx.commit().await.map_err(classify)?;
        Ok(outcomes)
    }

    async fn begin(&self) -> Result<PgTx, DbError> {
        Ok(PgTx {
            tx: self.pool.begin().await.map_err(classify)?,
            observed: self.observed.clone(),
        })
    }

    async fn snapshot(&self) -> Result<PgSnapshot, DbError> {
        let mut tx = self.pool.begin().await.map_err(classify)?;
        read_only(&mut tx).await?;
        // The snapshot is taken at the transaction's first query: take it now.
        sqlx::query("SELECT 1")
            .execute(&mut *tx)
            .await
            .map_err(classify)?;
        Ok(PgSnapshot {
            tx: tokio::sync::Mutex::new(tx),
            observed: self.observed.clone(),
        })
    }

    fn observe(&self, observer: std::sync::Arc<dyn StatementObserver>) {
        self.observed.set(observer);
    }

    fn pool_use(&self) -> PoolUse {
        let open = u64::from(self.pool.size());
        let idle = self.pool.num_idle() as u64;
        PoolUse {
            idle,
            in_use: open.saturating_sub(idle),
            max: u64::from(MAX_CONNECTIONS),
        }
    }
}

/// Makes a transaction that has run nothing yet read one snapshot and write nothing.
async fn read_only(tx: &mut PgConnection) -> Result<(), DbError> {
    sqlx::query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        .execute(tx)
        .await
        .map(|_| ())
        .map_err(classify)
}

/// A `REPEATABLE READ, READ ONLY` transaction held open for a series of reads; sqlx
/// rolls it back when it is dropped.
#[derive(Debug)]
pub struct PgSnapshot {
    tx: tokio::sync::Mutex<sqlx::Transaction<'static, Pg>>,
    observed: Observed,
}

#[async_trait]
impl DriverSnapshot for PgSnapshot {
    async fn read(&self, queries: Vec<Stmt>) -> Result<Vec<Outcome>, DbError> {
        let mut tx = self.tx.lock().await;
        run_all(&mut tx, queries, &self.observed, Access::Read).await
    }
}

/// A write transaction; sqlx rolls it back when dropped uncommitted.
#[derive(Debug)]
pub struct PgTx {
    tx: sqlx::Transaction<'static, Pg>,
    observed: Observed,
}

#[async_trait]
impl DriverTx for PgTx {
    async fn run(&mut self, stmts: Vec<Stmt>) -> Result<Vec<Outcome>, DbError> {
        run_all(&mut self.tx, stmts, &self.observed, Access::Write).await
    }

    async fn commit(self) -> Result<(), DbError> {
        let started = std::time::Instant::now();
        let committed = self.tx.commit().await.map_err(classify);
        self.observed.report(Access::Write, started);
        committed
    }
}

/// Runs the statements in order, each reported to `observed`.
async fn run_all(
    conn: &mut PgConnection,
    stmts: Vec<Stmt>,
    observed: &Observed,
    access: Access,
) -> Result<Vec<Outcome>, DbError> {
    let mut outcomes = Vec::with_capacity(stmts.len());
    for (i, stmt) in stmts.into_iter().enumerate() {
        let started = std::time::Instant::now();
        let ran = run_one(conn, stmt).await;
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
                let rows = query.fetch_all(&mut *conn).await?;
                let rows = rows.iter().map(row).collect::<Result<Vec<_>, _>>()?;
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
    let sql = format!(
        "INSERT INTO {} ({}) SELECT * FROM UNNEST({}) {}",
        table.name,
        table.column_list(),
        arrays.join(", "),
        table.on_conflict
    );
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

/// A result row as values, by the type of each column.
fn row(pg: &PgRow) -> Result<Row, sqlx::Error> {
    let mut values = Vec::with_capacity(pg.columns().len());
    for (i, column) in pg.columns().iter().enumerate() {
        if pg.try_get_raw(i)?.is_null() {
            values.push(SqlValue::Null);
            continue;
        }
        values.push(match column.type_info().name() {
            "INT8" => SqlValue::Int(Some(pg.try_get::<i64, _>(i)?)),
            "INT4" => SqlValue::Int(Some(i64::from(pg.try_get::<i32, _>(i)?))),
            "INT2" => SqlValue::Int(Some(i64::from(pg.try_get::<i16, _>(i)?))),
            "FLOAT8" => SqlValue::Real(Some(pg.try_get::<f64, _>(i)?)),
            "FLOAT4" => SqlValue::Real(Some(f64::from(pg.try_get::<f32, _>(i)?))),
            "BOOL" => SqlValue::Bool(Some(pg.try_get::<bool, _>(i)?)),
            "VOID" => SqlValue::Null,
            _ => SqlValue::Text(Some(pg.try_get::<String, _>(i)?)),
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
            _ => DbErrorKind::Other,
        },
        sqlx::Error::PoolTimedOut => DbErrorKind::Retryable,
        _ => DbErrorKind::Other,
    };
    DbError::new(kind, e)
}
