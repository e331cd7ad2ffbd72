//! [`SqlStore`]: the whole [`Store`] over any [`Driver`], written once for SQLite and
//! PostgreSQL. Each role trait of the store is implemented in a file of its own under
//! `store/`; this one holds the store, its migrations and the reads and writes the roles
//! share.
//!
//! [`Store`]: lore_core::Store

mod access;
mod base;
mod definitions;
mod history;
mod objects;
mod records;
mod sessions;

use std::sync::Arc;
use std::sync::atomic::AtomicU64;

use lore_core::model::*;
use lore_core::{Error, ObjectId, Result};

use crate::driver::{DbError, Driver, DriverSnapshot, DriverTx, Outcome, Stmt};
use crate::read;
use crate::value::{Row, SqlValue};
use crate::write::{Context, Pending, write_error};
use crate::{MIGRATIONS, Migration, pending};

/// A [`Store`](lore_core::Store) over a SQL database reached through the driver `D`.
#[derive(Debug)]
pub struct SqlStore<D: Driver> {
    driver: Arc<D>,
    /// Set on a store that reads one snapshot
    /// ([`StoreBase::snapshot`](lore_core::store::StoreBase::snapshot)): every read goes
    /// to it, and writes are refused.
    snapshot: Option<Arc<D::Snapshot>>,
    /// Write transactions begun, shared by the clones (when to compact the tallies).
    writes: Arc<AtomicU64>,
    /// The keys PostgreSQL chose lately, shared by the clones (see
    /// [`crate::planning::KeyMemo`]).
    pub(crate) key_memo: Arc<crate::planning::KeyMemo>,
    /// The objects of recent text searches, shared by the clones (see [`crate::hits`]).
    pub(crate) hit_cache: Arc<crate::hits::HitCache>,
    /// The search index, shared by the clones (see [`crate::mirror`]).
    pub(crate) mirror: Arc<crate::mirror::Mirror>,
    /// The entity reads kept, shared by the clones (see [`crate::entities`]).
    pub(crate) entities: Arc<crate::entities::KeptEntities>,
}

impl<D: Driver> Clone for SqlStore<D> {
    fn clone(&self) -> Self {
        Self {
            driver: Arc::clone(&self.driver),
            snapshot: self.snapshot.clone(),
            writes: Arc::clone(&self.writes),
            key_memo: Arc::clone(&self.key_memo),
            hit_cache: Arc::clone(&self.hit_cache),
            mirror: Arc::clone(&self.mirror),
            entities: Arc::clone(&self.entities),
        }
    }
}

impl<D: Driver> SqlStore<D> {
    /// Connects to the database (`SqliteStore::open(path)`, `PostgresStore::open(url)`)
    /// and brings its schema up to date; see [`SqlStore::new`].
    pub async fn open(options: impl Into<D::Options>) -> Result<Self> {
        Self::new(D::connect(options.into()).await?).await
    }

    /// A store over the driver's database, after bringing its schema up to date (see
    /// [`MIGRATIONS`]); a database newer than this binary is refused.
    pub async fn new(driver: D) -> Result<Self> {
        let store = Self {
            driver: Arc::new(driver),
            snapshot: None,
            writes: Arc::default(),
            key_memo: Arc::default(),
            hit_cache: Arc::default(),
            mirror: Arc::default(),
            entities: Arc::default(),
        };
        store.migrate(MIGRATIONS).await?;
        Ok(store)
    }

    pub fn driver(&self) -> &D {
        &self.driver
    }

    /// Applies the pending migrations, each in its own write transaction that first
    /// reads the recorded version, so processes starting together migrate once.
    async fn migrate(&self, migrations: &'static [Migration]) -> Result<()> {
        let failed = |context: &str| {
            let context = context.to_owned();
            move |e: DbError| Error::storage(&context, e.cause)
        };
        loop {
            let mut tx = self
                .driver
                .begin()
                .await
                .map_err(failed("starting a migration"))?;
            let mut check = Vec::new();
            if let Some(lock) = D::DIALECT.migration_lock() {
                check.push(Stmt::query(lock, Vec::new()));
            }
            check.push(Stmt::exec(
                "CREATE TABLE IF NOT EXISTS lore_schema (version BIGINT PRIMARY KEY, name TEXT NOT NULL, applied_at BIGINT NOT NULL)",
                Vec::new(),
            ));
            check.push(Stmt::query(
                "SELECT COALESCE(MAX(version), 0) FROM lore_schema",
                Vec::new(),
            ));
            let mut outcomes = tx
                .run(check)
                .await
                .map_err(failed("reading the schema version"))?;
            let current = match outcomes.pop().and_then(|o| o.rows.into_iter().next()) {
                Some(row) => row.int(0, "lore_schema")?,
                None => 0,
            };
            let Some(migration) = pending(migrations, current)?.first() else {
                tx.commit()
                    .await
                    .map_err(failed("ending the migration check"))?;
                return Ok(());
            };
            let context = format!(
                "applying migration {} ({})",
                migration.version, migration.name
            );
            tx.run(vec![
                Stmt::Script(D::DIALECT.schema(migration.sql).into()),
                Stmt::exec(
                    "INSERT INTO lore_schema (version, name, applied_at) VALUES ($1, $2, $3)",
                    vec![
                        migration.version.into(),
                        migration.name.into(),
                        now().into(),
                    ],
                ),
            ])
            .await
            .map_err(failed(&context))?;
            tx.commit().await.map_err(failed(&context))?;
            tracing::info!(
                backend = D::DIALECT.name(),
                version = migration.version,
                name = migration.name,
                "applied migration"
            );
        }
    }

    /// Whether the store reads one snapshot ([`StoreBase::snapshot`](lore_core::store::StoreBase::snapshot)).
    pub(crate) fn reads_snapshot(&self) -> bool {
        self.snapshot.is_some()
    }

    /// Refuses a write to a store that reads a snapshot.
    fn writable(&self) -> Result<()> {
        match self.snapshot {
            None => Ok(()),
            Some(_) => Err(Error::internal(
                "a snapshot of the store is read-only: write to the store itself",
            )),
        }
    }

    /// Runs read statements on one snapshot (the store's own, when it has one).
    pub(crate) async fn read(&self, queries: Vec<Stmt>, context: &str) -> Result<Vec<Outcome>> {
        let read = match &self.snapshot {
            Some(snapshot) => snapshot.read(queries).await,
            None => self.driver.read(queries).await,
        };
        read.map_err(|e| read_error(e, context))
    }

    /// Runs one statement that reads a handful of rows by key ([`Driver::read_short`])
    /// and returns its rows.
    pub(crate) async fn short_rows(&self, query: Stmt, context: &str) -> Result<Vec<Row>> {
        if self.snapshot.is_some() {
            return self.rows_of(query, context).await;
        }
        let mut outcomes = self
            .driver
            .read_short(query)
            .await
            .map_err(|e| read_error(e, context))?;
        Ok(outcomes.pop().map(|o| o.rows).unwrap_or_default())
    }

    /// Runs one statement and returns its rows.
    pub(crate) async fn rows_of(&self, query: Stmt, context: &str) -> Result<Vec<Row>> {
        let mut outcomes = self.read(vec![query], context).await?;
        Ok(outcomes.pop().map(|o| o.rows).unwrap_or_default())
    }

    /// Runs a statement answering one number (0 when it answers no row).
    pub(crate) async fn number(&self, query: Stmt, context: &str) -> Result<i64> {
        let rows = self.rows_of(query, context).await?;
        Ok(rows
            .first()
            .map(|r| r.int(0, context))
            .transpose()?
            .unwrap_or(0))
    }

    /// Runs one query and returns its rows.
    async fn rows(
        &self,
        sql: &'static str,
        params: Vec<SqlValue>,
        context: &str,
    ) -> Result<Vec<Row>> {
        let mut outcomes = self.read(vec![Stmt::query(sql, params)], context).await?;
        Ok(outcomes.pop().map(|o| o.rows).unwrap_or_default())
    }

    /// Runs statements in a write transaction of their own.
    async fn write_now(&self, pending: Pending) -> Result<Vec<Outcome>> {
        self.writable()?;
        let mut tx = self
            .driver
            .begin()
            .await
            .map_err(|e| write_error(e, &pending.contexts))?;
        let Pending { stmts, contexts } = pending;
        let outcomes = tx.run(stmts).await.map_err(|e| write_error(e, &contexts))?;
        tx.commit().await.map_err(|e| {
            let statement = contexts.len().saturating_sub(1);
            write_error(DbError { statement, ..e }, &contexts)
        })?;
        Ok(outcomes)
    }

    async fn write_one(&self, sql: &'static str, params: Vec<SqlValue>, what: &str) -> Result<u64> {
        let mut pending = Pending::default();
        pending.push(
            Stmt::exec(sql, params),
            Context {
                what: what.to_owned().into(),
                on_unique: None,
            },
        );
        Ok(self
            .write_now(pending)
            .await?
            .first()
            .map_or(0, |o| o.affected))
    }

    async fn objects(&self, sql: &'static str, params: Vec<SqlValue>) -> Result<Vec<Object>> {
        read::all(self.rows(sql, params, "objects").await?, read::object)
    }

    async fn one_object(&self, sql: &'static str, params: Vec<SqlValue>) -> Result<Option<Object>> {
        read::first(self.rows(sql, params, "objects").await?, read::object)
    }
}

/// A JSON array of `[model, object]` pairs, the parameter of [`Dialect::id_pairs`](crate::Dialect::id_pairs).
fn id_pairs(ids: &[ObjectId]) -> SqlValue {
    let mut pairs: Vec<[i64; 2]> = ids.iter().map(|id| [id.model, id.object]).collect();
    pairs.sort_unstable();
    pairs.dedup();
    SqlValue::Text(serde_json::to_string(&pairs).ok())
}

/// The error of a failed read of `context`.
pub(crate) fn read_error(e: DbError, context: &str) -> Error {
    write_error(
        e,
        &[Context {
            what: format!("reading {context}").into(),
            on_unique: None,
        }],
    )
}
