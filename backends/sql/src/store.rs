//! [`SqlStore`]: the whole [`Store`] over any [`Driver`], written once for SQLite and
//! PostgreSQL.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use async_trait::async_trait;
use lore_core::model::*;
use lore_core::mql::plan::{Facet, FieldType, Lit, Page, Plan, ValueCount};
use lore_core::store::{
    AccessStore, Batch, DefinitionStore, Details, Explanation, GrantsOn, ObjectStore, Op,
    Principal, RecordStore, Scope, SessionStore, StoreBase, WriteTx, micros, prepare,
    prepare_log_entry, prepare_log_line, prepare_operation, prepare_session,
};
use lore_core::{Error, ObjectId, Result, Store};

use crate::compile;
use crate::dialect::Dialect;
use crate::driver::Table;
use crate::driver::{DbError, Driver, DriverSnapshot, DriverTx, Outcome, Stmt};
use crate::read::{self, group_columns, object_columns, user_columns, worksheet_columns};
use crate::union::{Part, split, union_all};
use crate::value::ColType;
use crate::value::{Row, SqlValue};
use crate::write::{self, Context, Pending, Writer, operation_params, user_name_key, write_error};
use crate::{MIGRATIONS, Migration, pending};

/// A [`Store`] over a SQL database reached through the driver `D`.
#[derive(Debug)]
pub struct SqlStore<D: Driver> {
    driver: Arc<D>,
    /// Set on a store that reads one snapshot ([`StoreBase::snapshot`]): every read goes to
    /// it, and writes are refused.
    snapshot: Option<Arc<D::Snapshot>>,
    /// Write transactions begun, shared by the clones (when to compact the tallies).
    writes: Arc<AtomicU64>,
}

impl<D: Driver> Clone for SqlStore<D> {
    fn clone(&self) -> Self {
        Self {
            driver: Arc::clone(&self.driver),
            snapshot: self.snapshot.clone(),
            writes: Arc::clone(&self.writes),
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
        read.map_err(|e| {
            write_error(
                e,
                &[Context {
                    what: format!("reading {context}").into(),
                    on_unique: None,
                }],
            )
        })
    }

    /// Runs one statement and returns its rows.
    async fn rows_of(&self, query: Stmt, context: &str) -> Result<Vec<Row>> {
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

/// A write transaction of the shared store over the driver's.
struct SqlWriteTx<'a, D: Driver> {
    driver: &'a D,
    tx: D::Tx,
    writer: Writer,
    /// The store's write transactions begun before this one.
    commits: u64,
}

/// Brings the planner's statistics up to date after a large write, so the next reads
/// use the indexes, and compacts the tallies. The write has landed; a failure here is
/// only logged.
async fn refresh_statistics<D: Driver>(driver: &D) {
    let refreshed = async {
        let mut tx = driver.begin().await?;
        tx.run(vec![Stmt::Script(D::DIALECT.after_bulk_write().into())])
            .await?;
        tx.commit().await
    };
    if let Err(e) = refreshed.await {
        tracing::warn!(error = %e.cause, "refreshing the planner statistics failed");
    }
    compact_tallies(driver).await;
}

/// Write transactions between two compactions of the tallies after small writes: each
/// adds at most a few rows of differences per object type it touched.
const COMPACT_EVERY: u64 = 256;

/// Folds the tallies' rows of differences ([`Dialect::compact_tallies`]) in a
/// transaction of its own. A failure is only logged: the tallies stay right, only
/// longer to sum.
async fn compact_tallies<D: Driver>(driver: &D) {
    let Some(sql) = D::DIALECT.compact_tallies() else {
        return;
    };
    let compacted = async {
        let mut tx = driver.begin().await?;
        tx.run(vec![Stmt::exec(sql, Vec::new())]).await?;
        tx.commit().await
    };
    if let Err(e) = compacted.await {
        tracing::warn!(error = %e.cause, "compacting the tallies failed");
    }
}

impl<D: Driver> SqlWriteTx<'_, D> {
    async fn send(&mut self, pending: Pending) -> Result<()> {
        if pending.is_empty() {
            return Ok(());
        }
        let Pending { stmts, contexts } = pending;
        self.tx
            .run(stmts)
            .await
            .map_err(|e| write_error(e, &contexts))?;
        Ok(())
    }
}

#[async_trait]
impl<D: Driver> WriteTx for SqlWriteTx<'_, D> {
    async fn write(&mut self, ops: Vec<Op>) -> Result<()> {
        for mut op in ops {
            prepare(&mut op)?;
            self.writer.op(op)?;
        }
        let ready = self.writer.take();
        self.send(ready).await
    }

    fn expect_new_rows(&mut self) {
        self.writer.expect_new_rows();
    }

    async fn commit(mut self: Box<Self>) -> Result<()> {
        let rest = self.writer.finish();
        self.send(rest).await?;
        let Self {
            driver,
            tx,
            writer,
            commits,
        } = *self;
        tx.commit().await.map_err(|e| {
            write_error(
                e,
                &[Context {
                    what: "committing".into(),
                    on_unique: None,
                }],
            )
        })?;
        if writer.bulk_rows() >= write::BULK_ROWS {
            refresh_statistics(driver).await;
        } else if commits % COMPACT_EVERY == COMPACT_EVERY - 1 {
            compact_tallies(driver).await;
        }
        Ok(())
    }
}

/// A JSON array of `[model, object]` pairs, the parameter of [`Dialect::id_pairs`](crate::Dialect::id_pairs).
fn id_pairs(ids: &[ObjectId]) -> SqlValue {
    let mut pairs: Vec<[i64; 2]> = ids.iter().map(|id| [id.model, id.object]).collect();
    pairs.sort_unstable();
    pairs.dedup();
    SqlValue::Text(serde_json::to_string(&pairs).ok())
}

/// The objects of the keys.
fn objects_part<D: Driver>(keys: Keys) -> Part {
    Part {
        columns: write::OBJECTS.columns,
        from: format!("FROM objects t {}", keys.join::<D>()),
    }
}

/// Which objects a union read covers, as its statement names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keys {
    /// `$1`: a JSON array of id pairs ([`id_pairs`]).
    Pairs,
    /// One object: `$1` its model, `$2` its number. Plain index lookups, cheaper to run
    /// than the pairs' JSON (an entity read).
    One,
    /// `$1`: a model, all its objects.
    Model,
}

impl Keys {
    /// What follows `FROM <table> t` to keep the rows of the keys.
    fn join<D: Driver>(self) -> String {
        match self {
            Self::Pairs => format!(
                "JOIN ({}) s ON s.model_id = t.model_id AND s.object_id = t.object_id",
                D::DIALECT.id_pairs(1)
            ),
            Self::One => "WHERE t.model_id = $1 AND t.object_id = $2".to_owned(),
            Self::Model => "WHERE t.model_id = $1".to_owned(),
        }
    }

    /// The edges leaving (`end` "source") or reaching ("target") the keys.
    fn edges<D: Driver>(self, end: &str) -> String {
        match self {
            Self::Pairs => format!(
                "({}) s JOIN edges e ON e.{end}_model = s.model_id AND e.{end}_object = s.object_id",
                D::DIALECT.id_pairs(1)
            ),
            Self::One => format!("edges e WHERE e.{end}_model = $1 AND e.{end}_object = $2"),
            Self::Model => format!("edges e WHERE e.{end}_model = $1"),
        }
    }

    /// The parameters of a union read of `ids` with these keys.
    fn params(self, ids: &[ObjectId]) -> Vec<SqlValue> {
        match (self, ids) {
            (Self::One, [id]) => vec![id.model.into(), id.object.into()],
            _ => vec![id_pairs(ids)],
        }
    }

    /// The keys naming `ids`.
    fn of(ids: &[ObjectId]) -> Self {
        if ids.len() == 1 {
            Self::One
        } else {
            Self::Pairs
        }
    }
}

use crate::value::ColType::{Int, Text};

const EDGE_PART: &[(&str, ColType)] = &[
    ("kind", Text),
    ("source_model", Int),
    ("source_object", Int),
    ("target_model", Int),
    ("target_object", Int),
    ("name", Text),
];
const CLASSIFICATION_PART: &[(&str, ColType)] = &[
    ("model_id", Int),
    ("object_id", Int),
    ("data_class", Text),
    ("status", Text),
];
const LABEL_PART: &[(&str, ColType)] = &[
    ("model_id", Int),
    ("object_id", Int),
    ("label", Text),
    ("status", Text),
];
const PROFILING_PART: &[(&str, ColType)] = &[
    ("model_id", Int),
    ("object_id", Int),
    ("profile", Text),
    ("sample", Text),
];

/// The six parts of a details read, in the order [`decode_details`] takes them.
fn details_parts<D: Driver>(keys: Keys) -> Vec<Part> {
    let join = keys.join::<D>();
    let (from_sources, from_targets) = (keys.edges::<D>("source"), keys.edges::<D>("target"));
    let part = |columns, table: &str| Part {
        columns,
        from: format!("FROM {table} t {join}"),
    };
    vec![
        part(write::ATTRIBUTE_VALUES.columns, "attribute_values"),
        Part {
            columns: EDGE_PART,
            from: format!(
                "FROM (SELECT {cols} FROM {from_sources} UNION SELECT {cols} FROM {from_targets}) t",
                cols = read::EDGE_COLUMNS
            ),
        },
        part(write::TAGS.columns, "tags"),
        part(CLASSIFICATION_PART, "classifications"),
        part(LABEL_PART, "label_assignments"),
        part(PROFILING_PART, "profiling"),
    ]
}

/// A union read of objects by id, built once per dialect: its parts and its statement.
struct Union {
    parts: Vec<Part>,
    sql: String,
}

/// The union reads of objects by id, built once per dialect: what hangs on them, and the
/// objects with what hangs on them, each by a list of ids ([`Keys::Pairs`]) and by one
/// ([`Keys::One`]).
struct Unions {
    details: [Union; 2],
    with_objects: [Union; 2],
}

impl Unions {
    fn details(&self, keys: Keys) -> &Union {
        &self.details[usize::from(keys == Keys::One)]
    }

    fn with_objects(&self, keys: Keys) -> &Union {
        &self.with_objects[usize::from(keys == Keys::One)]
    }
}

fn object_unions<D: Driver>() -> &'static Unions {
    static BUILT: [OnceLock<Unions>; 2] = [const { OnceLock::new() }; 2];
    BUILT[D::DIALECT as usize].get_or_init(|| {
        let union = |parts: Vec<Part>| Union {
            sql: union_all(&parts),
            parts,
        };
        let with_objects = |keys: Keys| {
            let mut parts = details_parts::<D>(keys);
            parts.insert(0, objects_part::<D>(keys));
            union(parts)
        };
        Unions {
            details: [Keys::Pairs, Keys::One].map(|keys| union(details_parts::<D>(keys))),
            with_objects: [with_objects(Keys::Pairs), with_objects(Keys::One)],
        }
    })
}

/// The rows of [`details_parts`], sorted as the contract names.
fn decode_details(mut results: impl Iterator<Item = Vec<Row>>) -> Result<Details> {
    let mut next = || results.next().unwrap_or_default();
    let mut attributes = read::all(next(), read::attribute)?;
    attributes.sort_by(|a, b| (a.object, &a.attribute).cmp(&(b.object, &b.attribute)));
    let mut edges = read::all(next(), read::edge)?;
    edges.sort();
    let mut tags = read::all(next(), read::tag)?;
    tags.sort();
    let mut classifications = read::all(next(), read::classification)?;
    classifications.sort();
    let mut labels = read::all(next(), read::label)?;
    labels.sort();
    let mut profiling = read::all(next(), read::profiling)?;
    profiling.sort_by_key(|p| p.object);
    Ok(Details {
        attributes,
        edges,
        tags,
        classifications,
        labels,
        profiling,
    })
}

/// The system log as the bulk path writes it (`id` is the database's own).
static SYSTEM_LOG: Table = Table {
    name: "system_log",
    columns: &[
        ("at", ColType::Int),
        ("user_name", ColType::Text),
        ("address", ColType::Text),
        ("method", ColType::Text),
        ("path", ColType::Text),
        ("status", ColType::Int),
        ("duration_ms", ColType::Int),
        ("size", ColType::Int),
    ],
    on_conflict: "",
};

/// The columns of a system log read, in [`SYSTEM_LOG`]'s order.
const SYSTEM_LOG_COLUMNS: &str = "at, user_name, address, method, path, status, duration_ms, size";

/// The `WHERE` clause of a system log filter and its parameters (numbered from 1).
fn log_filter(filter: &SystemLogFilter) -> (String, Vec<SqlValue>) {
    let mut conditions = Vec::new();
    let mut params: Vec<SqlValue> = Vec::new();
    let param = |value: SqlValue, params: &mut Vec<SqlValue>| {
        params.push(value);
        params.len()
    };
    if let Some(user) = &filter.user {
        let n = param(user.as_str().into(), &mut params);
        conditions.push(format!("user_name = ${n}"));
    }
    if let Some(method) = &filter.method {
        let n = param(method.as_str().into(), &mut params);
        conditions.push(format!("method = ${n}"));
    }
    if let Some(prefix) = &filter.path_prefix {
        // A range the path index serves (paths are ASCII, so no path that starts with
        // the prefix sorts after prefix + U+10FFFF), then the exact test.
        let n = param(prefix.as_str().into(), &mut params);
        let end = param(format!("{prefix}\u{10FFFF}").into(), &mut params);
        conditions.push(format!(
            "path >= ${n} AND path < ${end} AND substr(path, 1, length(${n})) = ${n}"
        ));
    }
    if let Some(status) = filter.status {
        let n = param(i64::from(status).into(), &mut params);
        conditions.push(format!("status = ${n}"));
    }
    if let Some(from) = filter.from {
        let n = param(from.into(), &mut params);
        conditions.push(format!("at >= ${n}"));
    }
    if let Some(to) = filter.to {
        let n = param(to.into(), &mut params);
        conditions.push(format!("at <= ${n}"));
    }
    if conditions.is_empty() {
        (String::new(), params)
    } else {
        (format!(" WHERE {}", conditions.join(" AND ")), params)
    }
}

/// The columns of an operation read, in [`operation`]'s order.
const OPERATION_COLUMNS: &str =
    "id, kind, state, model_id, object_id, started_by, started_at, heartbeat_at, detail";

fn operation(mut row: Row) -> Result<Operation> {
    const TABLE: &str = "operations";
    let state = row.text(2, TABLE)?;
    let model = match (row.opt_int(3, TABLE)?, row.opt_int(4, TABLE)?) {
        (Some(model), Some(object)) => Some(ObjectId::new(model, object)),
        _ => None,
    };
    let detail = row.text(8, TABLE)?;
    Ok(Operation {
        id: row.int(0, TABLE)?,
        kind: row.text(1, TABLE)?,
        state: OperationState::parse(&state).ok_or_else(|| {
            Error::internal(format!("table {TABLE} holds the unknown state '{state}'"))
        })?,
        model,
        started_by: row.text(5, TABLE)?,
        started_at: row.timestamp(6, TABLE)?,
        heartbeat_at: row.timestamp(7, TABLE)?,
        detail: serde_json::from_str(&detail).map_err(|e| {
            Error::internal(format!(
                "table {TABLE} holds a detail that does not read: {e}"
            ))
        })?,
    })
}

/// The parameters of an operation's columns after `id`, in [`OPERATION_COLUMNS`] order.
const ATTACHMENT_INFO_COLUMNS: &str =
    "model_id, object_id, name, media_type, size, sha256, created_at, created_by";

fn attachment_info(mut row: Row) -> Result<AttachmentInfo> {
    const TABLE: &str = "attachments";
    Ok(AttachmentInfo {
        object: ObjectId::new(row.int(0, TABLE)?, row.int(1, TABLE)?),
        name: row.text(2, TABLE)?,
        media_type: row.text(3, TABLE)?,
        size: u64::try_from(row.int(4, TABLE)?).unwrap_or(0),
        sha256: row.text(5, TABLE)?,
        created_at: row.timestamp(6, TABLE)?,
        created_by: row.text(7, TABLE)?,
    })
}

/// A system log entry from a row of [`SYSTEM_LOG_COLUMNS`].
fn log_entry(mut row: Row) -> Result<SystemLogEntry> {
    const TABLE: &str = "system_log";
    let unsigned =
        |row: &Row, i: usize| -> Result<u64> { Ok(u64::try_from(row.int(i, TABLE)?).unwrap_or(0)) };
    Ok(SystemLogEntry {
        time: row.timestamp(0, TABLE)?,
        user: row.text(1, TABLE)?,
        address: row.text(2, TABLE)?,
        method: row.text(3, TABLE)?,
        path: row.text(4, TABLE)?,
        status: u16::try_from(row.int(5, TABLE)?).unwrap_or(0),
        duration_ms: unsigned(&row, 6)?,
        size: unsigned(&row, 7)?,
    })
}

#[async_trait]
impl<D: Driver> StoreBase for SqlStore<D> {
    fn backend(&self) -> &'static str {
        D::DIALECT.name()
    }

    async fn ping(&self) -> Result<()> {
        self.rows("SELECT 1", Vec::new(), "nothing (a ping)")
            .await?;
        Ok(())
    }

    async fn reserve_ids(&self, model: i64, count: u64) -> Result<i64> {
        let count = i64::try_from(count)
            .ok()
            .filter(|c| *c < i64::MAX)
            .ok_or_else(|| Error::invalid(format!("cannot reserve {count} ids at once")))?;
        let mut pending = Pending::default();
        pending.push(
            Stmt::query(
                "INSERT INTO id_sequences (model, next_id) VALUES ($1, 1 + $2) \
                 ON CONFLICT (model) DO UPDATE SET next_id = id_sequences.next_id + $2 \
                 WHERE id_sequences.next_id <= 9223372036854775807 - $2 \
                 RETURNING next_id - $2",
                vec![model.into(), count.into()],
            ),
            Context {
                what: format!("reserving ids of id space {model}").into(),
                on_unique: None,
            },
        );
        let outcomes = self.write_now(pending).await?;
        match outcomes
            .into_iter()
            .next()
            .and_then(|o| o.rows.into_iter().next())
        {
            Some(row) => row.int(0, "id_sequences"),
            None => Err(Error::invalid(format!(
                "cannot reserve {count} more ids in the id space of model {model}"
            ))),
        }
    }

    async fn snapshot(&self) -> Result<Arc<dyn Store>> {
        let snapshot = self.driver.snapshot().await.map_err(|e| {
            write_error(
                e,
                &[Context {
                    what: "opening a snapshot".into(),
                    on_unique: None,
                }],
            )
        })?;
        Ok(Arc::new(Self {
            driver: Arc::clone(&self.driver),
            snapshot: Some(Arc::new(snapshot)),
            writes: Arc::clone(&self.writes),
        }))
    }

    async fn id_sequences(&self) -> Result<Vec<(i64, i64)>> {
        let rows = self
            .rows(
                "SELECT model, next_id FROM id_sequences ORDER BY model",
                Vec::new(),
                "id_sequences",
            )
            .await?;
        read::all(rows, |row| {
            Ok((row.int(0, "id_sequences")?, row.int(1, "id_sequences")?))
        })
    }

    async fn apply(&self, batch: Batch) -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let mut tx = self.begin().await?;
        tx.write(batch.ops).await?;
        tx.commit().await
    }

    async fn begin(&self) -> Result<Box<dyn WriteTx + '_>> {
        self.writable()?;
        let tx = self.driver.begin().await.map_err(|e| {
            write_error(
                e,
                &[Context {
                    what: "starting a write".into(),
                    on_unique: None,
                }],
            )
        })?;
        Ok(Box::new(SqlWriteTx {
            driver: self.driver.as_ref(),
            tx,
            writer: Writer::default(),
            commits: self.writes.fetch_add(1, Ordering::Relaxed),
        }))
    }
}

#[async_trait]
impl<D: Driver> ObjectStore for SqlStore<D> {
    async fn object(&self, id: ObjectId) -> Result<Option<Object>> {
        self.one_object(
            concat!(
                "SELECT ",
                object_columns!(),
                " FROM objects WHERE model_id = $1 AND object_id = $2"
            ),
            vec![id.model.into(), id.object.into()],
        )
        .await
    }

    async fn object_by_stable_id(&self, stable_id: &str) -> Result<Option<Object>> {
        self.one_object(
            concat!(
                "SELECT ",
                object_columns!(),
                " FROM objects WHERE stable_id = $1"
            ),
            vec![stable_id.into()],
        )
        .await
    }

    async fn child_by_name(
        &self,
        model: i64,
        parent: Option<ObjectId>,
        name: &str,
    ) -> Result<Option<Object>> {
        // a parent is always in the id space of its children
        if parent.is_some_and(|p| p.model != model) {
            return Ok(None);
        }
        self.one_object(
            concat!(
                "SELECT ",
                object_columns!(),
                " FROM objects WHERE model_id = $1 AND parent IS NOT DISTINCT FROM $2 AND name = $3 \
                 ORDER BY object_id LIMIT 1"
            ),
            vec![model.into(), parent.map(|p| p.object).into(), name.into()],
        )
        .await
    }

    async fn children(&self, model: i64, parent: Option<ObjectId>) -> Result<Vec<Object>> {
        if parent.is_some_and(|p| p.model != model) {
            return Ok(Vec::new());
        }
        self.objects(
            concat!(
                "SELECT ",
                object_columns!(),
                " FROM objects WHERE model_id = $1 AND parent IS NOT DISTINCT FROM $2 ORDER BY name, object_id"
            ),
            vec![model.into(), parent.map(|p| p.object).into()],
        )
        .await
    }

    async fn model_objects(&self, model: i64) -> Result<Vec<Object>> {
        self.objects(
            concat!(
                "SELECT ",
                object_columns!(),
                " FROM objects WHERE model_id = $1 ORDER BY object_id"
            ),
            vec![model.into()],
        )
        .await
    }

    async fn model_objects_page(
        &self,
        model: i64,
        after: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Object>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.objects(
            concat!(
                "SELECT ",
                object_columns!(),
                " FROM objects WHERE model_id = $1 AND object_id > $2 ORDER BY object_id LIMIT $3"
            ),
            vec![model.into(), after.unwrap_or(i64::MIN).into(), limit.into()],
        )
        .await
    }

    async fn model_prints_page(
        &self,
        model: i64,
        after: Option<i64>,
        limit: usize,
    ) -> Result<Vec<PrintedObject>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self
            .rows(
                "SELECT o.model_id, o.object_id, o.native_id, o.parent, o.created_at, p.mask, \
                 p.print FROM objects o LEFT JOIN import_prints p \
                 ON p.model_id = o.model_id AND p.object_id = o.object_id \
                 WHERE o.model_id = $1 AND o.object_id > $2 ORDER BY o.object_id LIMIT $3",
                vec![model.into(), after.unwrap_or(i64::MIN).into(), limit.into()],
                "import prints",
            )
            .await?;
        read::all(rows, read::printed_object)
    }

    async fn objects_of_kind(&self, kind: ObjectKind) -> Result<Vec<Object>> {
        // Only model objects live outside the repository's id space (core's `prepare`):
        // the others are found in its range of the key.
        let sql = if kind == ObjectKind::ModelObject {
            concat!(
                "SELECT ",
                object_columns!(),
                " FROM objects WHERE model_id <> -1 ORDER BY name, model_id, object_id"
            )
        } else {
            concat!(
                "SELECT ",
                object_columns!(),
                " FROM objects WHERE model_id = -1 AND kind = $1 ORDER BY name, model_id, object_id"
            )
        };
        let params = if kind == ObjectKind::ModelObject {
            Vec::new()
        } else {
            vec![kind.as_str().into()]
        };
        self.objects(sql, params).await
    }

    async fn query(&self, plan: &Plan, page: Page) -> Result<Vec<ObjectId>> {
        let compiled = self.page_statement(plan, page).await?;
        let rows = self
            .rows_of(Stmt::query(compiled.sql, compiled.params), "a query")
            .await?;
        rows.iter()
            .map(|row| {
                Ok(ObjectId::new(
                    row.int(0, "objects")?,
                    row.int(1, "objects")?,
                ))
            })
            .collect()
    }

    async fn count(&self, plan: &Plan) -> Result<u64> {
        let compiled = compile::tally::count(plan, D::DIALECT)
            .unwrap_or_else(|| compile::count(plan, D::DIALECT));
        let n = self
            .number(Stmt::query(compiled.sql, compiled.params), "a count")
            .await?;
        Ok(n.max(0) as u64)
    }

    async fn value_counts(
        &self,
        plan: &Plan,
        facet: &Facet,
        limit: u64,
    ) -> Result<Vec<ValueCount>> {
        let compiled = compile::tally::value_counts(plan, D::DIALECT, facet, limit)
            .unwrap_or_else(|| compile::value_counts(plan, D::DIALECT, facet, limit));
        let rows = self
            .rows_of(Stmt::query(compiled.sql, compiled.params), "value counts")
            .await?;
        let mut counts = Vec::with_capacity(rows.len());
        for mut row in rows {
            let count = row.int(1, "value counts")?.max(0) as u64;
            let value = match (facet.gap, facet.field.ty()) {
                (Some(_), _) | (None, FieldType::Text | FieldType::ExactText) => {
                    Lit::Text(row.text(0, "value counts")?)
                }
                (None, FieldType::Integer) => Lit::Integer(row.int(0, "value counts")?),
                (None, FieldType::Double) => Lit::Double(row.real(0, "value counts")?),
                (None, FieldType::Boolean) => Lit::Boolean(row.bool(0, "value counts")?),
                (None, FieldType::Time) => Lit::Time(row.int(0, "value counts")?),
            };
            counts.push(ValueCount { value, count });
        }
        Ok(counts)
    }

    async fn explain(&self, plan: &Plan, page: Page) -> Result<Option<Explanation>> {
        let compiled = self.page_statement(plan, page).await?;
        let explain = D::DIALECT.explain(&compiled.sql);
        let rows = self
            .rows_of(Stmt::query(explain, compiled.params), "a query plan")
            .await?;
        let mut lines = Vec::new();
        for mut row in rows {
            // SQLite: (id, parent, notused, detail); PostgreSQL: one line of text.
            let last = row.0.len().saturating_sub(1);
            lines.push(row.text(last, "query plan")?);
        }
        Ok(Some(Explanation {
            sql: compiled.sql,
            database_plan: lines,
        }))
    }

    async fn objects(&self, ids: &[ObjectId]) -> Result<Vec<Object>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let keys = Keys::of(ids);
        let part = objects_part::<D>(keys);
        let rows = self
            .rows_of(Stmt::query(part.query(), keys.params(ids)), "objects")
            .await?;
        let mut objects = read::all(rows, read::object)?;
        objects.sort_by_key(|o| o.id);
        Ok(objects)
    }

    async fn details(&self, scope: Scope) -> Result<Details> {
        let rows = match scope {
            Scope::Model(model) => {
                // A whole model: one query per part (in one snapshot), each row as narrow
                // as its table.
                let queries = details_parts::<D>(Keys::Model)
                    .iter()
                    .map(|p| Stmt::query(p.query(), vec![model.into()]))
                    .collect();
                self.read(queries, "the details of a model")
                    .await?
                    .into_iter()
                    .map(|o| o.rows)
                    .collect()
            }
            Scope::Objects(ids) => {
                let keys = Keys::of(&ids);
                let union = object_unions::<D>().details(keys);
                let rows = self
                    .rows_of(
                        Stmt::query(union.sql.as_str(), keys.params(&ids)),
                        "the details of objects",
                    )
                    .await?;
                split(&union.parts, rows)?
            }
        };
        decode_details(rows.into_iter())
    }

    async fn objects_with_details(&self, ids: &[ObjectId]) -> Result<(Vec<Object>, Details)> {
        let keys = Keys::of(ids);
        let union = object_unions::<D>().with_objects(keys);
        let rows = self
            .rows_of(
                Stmt::query(union.sql.as_str(), keys.params(ids)),
                "objects and their details",
            )
            .await?;
        let mut rows = split(&union.parts, rows)?.into_iter();
        let mut objects = read::all(rows.next().unwrap_or_default(), read::object)?;
        objects.sort_by_key(|o| o.id);
        Ok((objects, decode_details(rows)?))
    }

    async fn edges(&self, kind: EdgeKind, object: ObjectId, incoming: bool) -> Result<Vec<Edge>> {
        let sql = if incoming {
            "SELECT e.kind, e.source_model, e.source_object, e.target_model, e.target_object, e.name FROM edges e \
             WHERE e.target_model = $1 AND e.target_object = $2 AND e.kind = $3"
        } else {
            "SELECT e.kind, e.source_model, e.source_object, e.target_model, e.target_object, e.name FROM edges e \
             WHERE e.source_model = $1 AND e.source_object = $2 AND e.kind = $3"
        };
        let rows = self
            .rows(
                sql,
                vec![
                    object.model.into(),
                    object.object.into(),
                    kind.as_str().into(),
                ],
                "edges",
            )
            .await?;
        let mut edges = read::all(rows, read::edge)?;
        edges.sort();
        Ok(edges)
    }

    async fn lineage(
        &self,
        start: ObjectId,
        downstream: bool,
        bounds: LineageBounds,
    ) -> Result<LineageWalk> {
        let sql = lineage_sql(D::DIALECT, downstream);
        let budget = i64::try_from(LINEAGE_WALK_BUDGET).unwrap_or(i64::MAX);
        let rows = self
            .rows_of(
                Stmt::query(
                    sql,
                    vec![
                        start.model.into(),
                        start.object.into(),
                        EdgeKind::Lineage.as_str().into(),
                        i64::from(bounds.depth).into(),
                        i64::from(bounds.fan_out).into(),
                        (budget + 1).into(),
                        (i64::from(bounds.limit) + 1).into(),
                    ],
                ),
                "lineage",
            )
            .await?;
        let mut truncated = false;
        let mut edges = Vec::with_capacity(rows.len());
        for row in rows {
            let depth = row.int(6, "edges")?;
            truncated |= row.int(7, "edges")? > budget;
            let depth = u32::try_from(depth)
                .map_err(|_| Error::internal(format!("a lineage walk answered depth {depth}")))?;
            edges.push((read::edge(row)?, depth));
        }
        if edges.len() > bounds.limit as usize {
            truncated = true;
            edges.truncate(bounds.limit as usize);
        }
        Ok(LineageWalk { edges, truncated })
    }
}

#[async_trait]
impl<D: Driver> DefinitionStore for SqlStore<D> {
    async fn attribute_types(&self) -> Result<Vec<AttributeType>> {
        let rows = self
            .rows(
                "SELECT name, display_name, kind, value_type, profile, group_name, description \
                 FROM attribute_types ORDER BY name",
                Vec::new(),
                "attribute types",
            )
            .await?;
        read::all(rows, read::attribute_type)
    }

    async fn object_types(&self) -> Result<Vec<ObjectType>> {
        let rows = self
            .rows(
                "SELECT profile, name, display_name, system_type, category, attributes \
                 FROM object_types ORDER BY profile, name",
                Vec::new(),
                "object types",
            )
            .await?;
        read::all(rows, read::object_type)
    }

    async fn data_classes(&self) -> Result<Vec<DataClass>> {
        let rows = self
            .rows(
                "SELECT name, description, hide_data, definition FROM data_classes ORDER BY name",
                Vec::new(),
                "data classes",
            )
            .await?;
        read::all(rows, read::data_class)
    }

    async fn sensitivity_labels(&self) -> Result<Vec<SensitivityLabel>> {
        let rows = self
            .rows(
                "SELECT name, position, description, foreground_color, background_color, hide_data \
                 FROM sensitivity_labels ORDER BY name",
                Vec::new(),
                "sensitivity labels",
            )
            .await?;
        read::all(rows, read::sensitivity_label)
    }

    async fn roles(&self) -> Result<Vec<Role>> {
        let rows = self
            .rows(
                "SELECT name, description, global, capabilities FROM roles ORDER BY name",
                Vec::new(),
                "roles",
            )
            .await?;
        read::all(rows, read::role)
    }

    async fn meta_version(&self) -> Result<i64> {
        let rows = self
            .rows(
                "SELECT version FROM versions WHERE name = 'meta'",
                Vec::new(),
                "versions",
            )
            .await?;
        rows.first().map_or(Ok(0), |row| row.int(0, "versions"))
    }
}

#[async_trait]
impl<D: Driver> AccessStore for SqlStore<D> {
    async fn user(&self, id: ObjectId) -> Result<Option<User>> {
        let rows = self
            .rows(
                concat!(
                    "SELECT ",
                    user_columns!(),
                    " FROM users WHERE model_id = $1 AND object_id = $2"
                ),
                vec![id.model.into(), id.object.into()],
                "users",
            )
            .await?;
        read::first(rows, read::user)
    }

    async fn user_by_name(&self, name: &str) -> Result<Option<User>> {
        let rows = self
            .rows(
                concat!(
                    "SELECT ",
                    user_columns!(),
                    " FROM users WHERE name_key = $1"
                ),
                vec![user_name_key(name).into()],
                "users",
            )
            .await?;
        read::first(rows, read::user)
    }

    async fn user_count(&self) -> Result<u64> {
        let rows = self
            .rows("SELECT COUNT(*) FROM users", Vec::new(), "users")
            .await?;
        let count = rows
            .first()
            .map(|r| r.int(0, "users"))
            .transpose()?
            .unwrap_or(0);
        Ok(u64::try_from(count).unwrap_or(0))
    }

    async fn users(&self) -> Result<Vec<User>> {
        let rows = self
            .rows(
                concat!(
                    "SELECT ",
                    user_columns!(),
                    " FROM users ORDER BY name_key, model_id, object_id"
                ),
                Vec::new(),
                "users",
            )
            .await?;
        read::all(rows, read::user)
    }

    async fn group(&self, id: ObjectId) -> Result<Option<Group>> {
        let rows = self
            .rows(
                concat!(
                    "SELECT ",
                    group_columns!(),
                    " FROM user_groups WHERE model_id = $1 AND object_id = $2"
                ),
                vec![id.model.into(), id.object.into()],
                "groups",
            )
            .await?;
        read::first(rows, read::group)
    }

    async fn group_by_name(&self, name: &str) -> Result<Option<Group>> {
        let rows = self
            .rows(
                concat!(
                    "SELECT ",
                    group_columns!(),
                    " FROM user_groups WHERE name_key = $1"
                ),
                vec![user_name_key(name).into()],
                "groups",
            )
            .await?;
        read::first(rows, read::group)
    }

    async fn groups(&self) -> Result<Vec<Group>> {
        let rows = self
            .rows(
                concat!(
                    "SELECT ",
                    group_columns!(),
                    " FROM user_groups ORDER BY name_key, model_id, object_id"
                ),
                Vec::new(),
                "groups",
            )
            .await?;
        read::all(rows, read::group)
    }

    async fn members(&self, group: ObjectId) -> Result<Vec<User>> {
        let rows = self
            .rows(
                "SELECT u.model_id, u.object_id, u.name, u.full_name, u.email, u.description, \
                 u.password_hash, u.enabled, u.created_at FROM group_members m \
                 JOIN users u ON u.model_id = m.user_model AND u.object_id = m.user_object \
                 WHERE m.group_model = $1 AND m.group_object = $2 \
                 ORDER BY u.name_key, u.model_id, u.object_id",
                vec![group.model.into(), group.object.into()],
                "group members",
            )
            .await?;
        read::all(rows, read::user)
    }

    async fn groups_of(&self, user: ObjectId) -> Result<Vec<Group>> {
        let rows = self
            .rows(
                "SELECT g.model_id, g.object_id, g.name, g.description, g.enabled, g.created_at \
                 FROM group_members m \
                 JOIN user_groups g ON g.model_id = m.group_model AND g.object_id = m.group_object \
                 WHERE m.user_model = $1 AND m.user_object = $2 \
                 ORDER BY g.name_key, g.model_id, g.object_id",
                vec![user.model.into(), user.object.into()],
                "groups",
            )
            .await?;
        read::all(rows, read::group)
    }

    async fn grants_on(&self, on: GrantsOn) -> Result<Vec<Grant>> {
        macro_rules! select {
            ($filter:literal) => {
                concat!(
                    "SELECT grantee_model, grantee_object, role, model_id, object_id FROM grants WHERE ",
                    $filter
                )
            };
        }
        let (sql, params) = match on {
            GrantsOn::Server => (select!("model_id IS NULL"), Vec::new()),
            GrantsOn::Object(o) => (
                select!("model_id = $1 AND object_id = $2"),
                vec![o.model.into(), o.object.into()],
            ),
            GrantsOn::AnyObject => (select!("model_id IS NOT NULL"), Vec::new()),
        };
        let mut grants = read::all(self.rows(sql, params, "grants").await?, read::grant)?;
        grants.sort();
        Ok(grants)
    }

    async fn grants_of_role(&self, role: &str) -> Result<Vec<Grant>> {
        let rows = self
            .rows(
                "SELECT grantee_model, grantee_object, role, model_id, object_id FROM grants WHERE role = $1",
                vec![role.into()],
                "grants",
            )
            .await?;
        let mut grants = read::all(rows, read::grant)?;
        grants.sort();
        Ok(grants)
    }

    async fn grants_of(&self, grantee: ObjectId) -> Result<Vec<Grant>> {
        let rows = self
            .rows(
                "SELECT grantee_model, grantee_object, role, model_id, object_id FROM grants \
                 WHERE grantee_model = $1 AND grantee_object = $2",
                vec![grantee.model.into(), grantee.object.into()],
                "grants",
            )
            .await?;
        let mut grants = read::all(rows, read::grant)?;
        grants.sort();
        Ok(grants)
    }
}

#[async_trait]
impl<D: Driver> SessionStore for SqlStore<D> {
    async fn principal(&self, key_hash: &str, now: Timestamp) -> Result<Option<Principal>> {
        // One statement, one row per grant: the session and user repeat on each. The
        // user's own grants, then (UNION ALL) those of their enabled groups, each part
        // reading the grants by grantee through their index.
        let rows = self
            .rows(
                "SELECT s.key_hash, s.user_model, s.user_object, s.created_at, s.expires_at, s.last_seen_at, \
                     u.model_id, u.object_id, u.name, u.full_name, u.email, u.description, u.password_hash, \
                     u.enabled, u.created_at, \
                     g.grantee_model, g.grantee_object, g.role, g.model_id, g.object_id, \
                     r.name, r.description, r.global, r.capabilities, \
                     (SELECT version FROM versions WHERE name = 'meta') \
                     FROM sessions s \
                     JOIN users u ON u.model_id = s.user_model AND u.object_id = s.user_object \
                     LEFT JOIN grants g ON g.grantee_model = s.user_model AND g.grantee_object = s.user_object \
                     LEFT JOIN roles r ON r.name = g.role \
                     WHERE s.key_hash = $1 AND s.expires_at > $2 \
                     UNION ALL \
                     SELECT s.key_hash, s.user_model, s.user_object, s.created_at, s.expires_at, s.last_seen_at, \
                     u.model_id, u.object_id, u.name, u.full_name, u.email, u.description, u.password_hash, \
                     u.enabled, u.created_at, \
                     g.grantee_model, g.grantee_object, g.role, g.model_id, g.object_id, \
                     r.name, r.description, r.global, r.capabilities, \
                     (SELECT version FROM versions WHERE name = 'meta') \
                     FROM sessions s \
                     JOIN users u ON u.model_id = s.user_model AND u.object_id = s.user_object \
                     JOIN group_members m ON m.user_model = s.user_model AND m.user_object = s.user_object \
                     JOIN user_groups ug ON ug.model_id = m.group_model AND ug.object_id = m.group_object \
                     JOIN grants g ON g.grantee_model = m.group_model AND g.grantee_object = m.group_object \
                     LEFT JOIN roles r ON r.name = g.role \
                     WHERE s.key_hash = $1 AND s.expires_at > $2 AND ug.enabled",
                vec![key_hash.into(), now.into()],
                "the caller of a session",
            )
            .await?;
        let Some(first) = rows.first() else {
            return Ok(None);
        };
        let session = read::session(first.columns(0..6))?;
        let user = read::user(first.columns(6..15))?;
        let meta_version = first.opt_int(24, "versions")?.unwrap_or(0);
        let mut grants = Vec::new();
        let mut roles: Vec<Role> = Vec::new();
        for row in &rows {
            if row.opt_int(15, "grants")?.is_none() {
                continue;
            }
            grants.push(read::grant(row.columns(15..20))?);
            // a grant of a role that is not stored joins no role
            if !matches!(row.0.get(20), None | Some(SqlValue::Null)) {
                let role = read::role(row.columns(20..24))?;
                if !roles.iter().any(|r| r.name == role.name) {
                    roles.push(role);
                }
            }
        }
        grants.sort();
        roles.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(Some(Principal {
            session,
            user,
            grants,
            roles,
            meta_version,
        }))
    }

    async fn put_session(&self, mut session: Session) -> Result<()> {
        prepare_session(&mut session)?;
        let what = format!("writing a session of {}", session.user);
        self.write_one(
            "INSERT INTO sessions (key_hash, user_model, user_object, created_at, expires_at, last_seen_at) \
             VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (key_hash) DO UPDATE SET user_model = excluded.user_model, \
             user_object = excluded.user_object, created_at = excluded.created_at, \
             expires_at = excluded.expires_at, last_seen_at = excluded.last_seen_at",
            vec![
                session.key_hash.into(),
                session.user.model.into(),
                session.user.object.into(),
                session.created_at.into(),
                session.expires_at.into(),
                session.last_seen_at.into(),
            ],
            &what,
        )
        .await?;
        Ok(())
    }

    async fn session(&self, key_hash: &str, now: Timestamp) -> Result<Option<Session>> {
        let rows = self
            .rows(
                "SELECT key_hash, user_model, user_object, created_at, expires_at, last_seen_at \
                 FROM sessions WHERE key_hash = $1 AND expires_at > $2",
                vec![key_hash.into(), now.into()],
                "sessions",
            )
            .await?;
        read::first(rows, read::session)
    }

    async fn delete_session(&self, key_hash: &str) -> Result<()> {
        self.write_one(
            "DELETE FROM sessions WHERE key_hash = $1",
            vec![key_hash.into()],
            "deleting a session",
        )
        .await?;
        Ok(())
    }

    async fn delete_sessions_of(&self, user: ObjectId) -> Result<u64> {
        self.write_one(
            "DELETE FROM sessions WHERE user_model = $1 AND user_object = $2",
            vec![user.model.into(), user.object.into()],
            &format!("deleting the sessions of {user}"),
        )
        .await
    }

    async fn purge_sessions(&self, now: Timestamp) -> Result<u64> {
        self.write_one(
            "DELETE FROM sessions WHERE expires_at <= $1",
            vec![now.into()],
            "purging expired sessions",
        )
        .await
    }

    async fn touch_session(&self, key_hash: &str, now: Timestamp) -> Result<()> {
        self.write_one(
            "UPDATE sessions SET last_seen_at = $2 WHERE key_hash = $1",
            vec![key_hash.into(), micros(now).into()],
            "recording the use of a session",
        )
        .await?;
        Ok(())
    }

    async fn login_failures(&self, subjects: &[String]) -> Result<Vec<LoginFailures>> {
        if subjects.is_empty() {
            return Ok(Vec::new());
        }
        let list: Vec<String> = (1..=subjects.len()).map(|i| format!("${i}")).collect();
        let rows = self
            .rows_of(
                Stmt::query(
                    format!(
                        "SELECT subject, failures, last_at FROM login_failures WHERE subject IN ({})",
                        list.join(", ")
                    ),
                    subjects.iter().map(|s| s.as_str().into()).collect(),
                ),
                "failed logins",
            )
            .await?;
        read::all(rows, read::login_failures)
    }

    async fn add_login_failure(
        &self,
        subjects: &[String],
        now: Timestamp,
        restart_before: Timestamp,
    ) -> Result<()> {
        let mut pending = Pending::default();
        for subject in subjects {
            pending.push(
                Stmt::exec(
                    "INSERT INTO login_failures (subject, failures, last_at) VALUES ($1, 1, $2) \
                     ON CONFLICT (subject) DO UPDATE SET last_at = excluded.last_at, failures = \
                     CASE WHEN login_failures.last_at <= $3 THEN 1 ELSE login_failures.failures + 1 END",
                    vec![
                        subject.as_str().into(),
                        micros(now).into(),
                        micros(restart_before).into(),
                    ],
                ),
                Context::of("counting a failed login"),
            );
        }
        self.write_now(pending).await?;
        Ok(())
    }

    async fn clear_login_failures(&self, subjects: &[String]) -> Result<()> {
        let mut pending = Pending::default();
        for subject in subjects {
            pending.push(
                Stmt::exec(
                    "DELETE FROM login_failures WHERE subject = $1",
                    vec![subject.as_str().into()],
                ),
                Context::of("forgetting failed logins"),
            );
        }
        self.write_now(pending).await?;
        Ok(())
    }
}

#[async_trait]
impl<D: Driver> RecordStore for SqlStore<D> {
    async fn notifications(
        &self,
        user: ObjectId,
        unread_only: bool,
        limit: u32,
    ) -> Result<Vec<Notification>> {
        // Unread only: `is_read` must be false; otherwise false or true.
        let sql = "SELECT id, user_model, user_object, kind, model_id, object_id, message, at, is_read \
             FROM notifications WHERE user_model = $1 AND user_object = $2 AND is_read IN ($3, $4) \
             ORDER BY at DESC, id DESC LIMIT $5";
        let rows = self
            .rows(
                sql,
                vec![
                    user.model.into(),
                    user.object.into(),
                    false.into(),
                    (!unread_only).into(),
                    i64::from(limit).into(),
                ],
                "notifications",
            )
            .await?;
        read::all(rows, read::notification)
    }

    async fn claim_deliveries(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        limit: usize,
    ) -> Result<Vec<Delivery>> {
        // A claim that lost a race re-reads the row, which is no longer due, and skips it.
        let mut pending = Pending::default();
        pending.push(
            Stmt::query(
                format!(
                    "UPDATE deliveries SET next_attempt_at = $2 WHERE id IN \
                     (SELECT id FROM deliveries WHERE state = 'PENDING' AND next_attempt_at <= $1 \
                     ORDER BY next_attempt_at, id LIMIT $3) \
                     AND state = 'PENDING' AND next_attempt_at <= $1 RETURNING {}",
                    read::DELIVERY_COLUMNS
                ),
                vec![
                    micros(now).into(),
                    micros(lease_until).into(),
                    i64::try_from(limit).unwrap_or(i64::MAX).into(),
                ],
            ),
            Context::of("claiming due deliveries"),
        );
        let rows = self
            .write_now(pending)
            .await?
            .into_iter()
            .next()
            .map(|o| o.rows)
            .unwrap_or_default();
        let mut claimed = read::all(rows, read::delivery)?;
        // Their due times are all `lease_until` now: the order is the ids'.
        claimed.sort_by_key(|d| d.id);
        Ok(claimed)
    }

    async fn deliveries(
        &self,
        state: Option<DeliveryState>,
        limit: usize,
    ) -> Result<Vec<Delivery>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = match state {
            Some(state) => {
                self.rows_of(
                    Stmt::query(
                        format!(
                            "SELECT {} FROM deliveries WHERE state = $1 ORDER BY id DESC LIMIT $2",
                            read::DELIVERY_COLUMNS
                        ),
                        vec![state.as_str().into(), limit.into()],
                    ),
                    "deliveries",
                )
                .await?
            }
            None => {
                self.rows_of(
                    Stmt::query(
                        format!(
                            "SELECT {} FROM deliveries ORDER BY id DESC LIMIT $1",
                            read::DELIVERY_COLUMNS
                        ),
                        vec![limit.into()],
                    ),
                    "deliveries",
                )
                .await?
            }
        };
        read::all(rows, read::delivery)
    }

    async fn notifications_page(&self, after: i64, limit: usize) -> Result<Vec<Notification>> {
        let rows = self
            .rows(
                "SELECT id, user_model, user_object, kind, model_id, object_id, message, at, is_read \
                 FROM notifications WHERE id > $1 ORDER BY id LIMIT $2",
                vec![after.into(), i64::try_from(limit).unwrap_or(i64::MAX).into()],
                "notifications",
            )
            .await?;
        read::all(rows, read::notification)
    }

    async fn notification(&self, id: i64) -> Result<Option<Notification>> {
        let rows = self
            .rows(
                "SELECT id, user_model, user_object, kind, model_id, object_id, message, at, is_read \
                 FROM notifications WHERE id = $1",
                vec![id.into()],
                "notifications",
            )
            .await?;
        read::first(rows, read::notification)
    }

    async fn curation(&self, object: ObjectId) -> Result<Vec<Curation>> {
        let rows = self
            .rows(
                "SELECT id, model_id, object_id, kind, user_model, user_object, body, at FROM curation \
                 WHERE model_id = $1 AND object_id = $2 ORDER BY kind, at, id",
                vec![object.model.into(), object.object.into()],
                "curation",
            )
            .await?;
        read::all(rows, read::curation)
    }

    async fn curation_of(&self, objects: &[ObjectId]) -> Result<Vec<Curation>> {
        if objects.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT c.id, c.model_id, c.object_id, c.kind, c.user_model, c.user_object, c.body, c.at \
             FROM curation c JOIN ({}) s ON s.model_id = c.model_id AND s.object_id = c.object_id \
             ORDER BY c.model_id, c.object_id, c.kind, c.at, c.id",
            D::DIALECT.id_pairs(1)
        );
        let rows = self
            .rows_of(Stmt::query(sql, vec![id_pairs(objects)]), "curation")
            .await?;
        read::all(rows, read::curation)
    }

    async fn curation_page(&self, after: i64, limit: usize) -> Result<Vec<Curation>> {
        let rows = self
            .rows(
                "SELECT id, model_id, object_id, kind, user_model, user_object, body, at FROM curation \
                 WHERE id > $1 ORDER BY id LIMIT $2",
                vec![after.into(), i64::try_from(limit).unwrap_or(i64::MAX).into()],
                "curation",
            )
            .await?;
        read::all(rows, read::curation)
    }

    async fn curation_entry(&self, id: i64) -> Result<Option<Curation>> {
        let rows = self
            .rows(
                "SELECT id, model_id, object_id, kind, user_model, user_object, body, at FROM curation \
                 WHERE id = $1",
                vec![id.into()],
                "curation",
            )
            .await?;
        read::first(rows, read::curation)
    }

    async fn document(
        &self,
        kind: DocumentKind,
        owner: Option<ObjectId>,
        name: &str,
    ) -> Result<Option<Document>> {
        let (owner_model, owner_object) = crate::write::owner_key(owner);
        let rows = self
            .rows(
                "SELECT kind, owner_model, owner_object, name, body, updated_at, updated_by_model, \
                 updated_by_object FROM documents \
                 WHERE kind = $1 AND owner_model = $2 AND owner_object = $3 AND name = $4",
                vec![
                    kind.as_str().into(),
                    owner_model.into(),
                    owner_object.into(),
                    name.into(),
                ],
                "documents",
            )
            .await?;
        read::first(rows, read::document)
    }

    async fn documents(&self, kind: DocumentKind) -> Result<Vec<Document>> {
        let rows = self
            .rows(
                "SELECT kind, owner_model, owner_object, name, body, updated_at, updated_by_model, \
                 updated_by_object FROM documents WHERE kind = $1 \
                 ORDER BY owner_model, owner_object, name",
                vec![kind.as_str().into()],
                "documents",
            )
            .await?;
        read::all(rows, read::document)
    }

    async fn worksheet(&self, id: ObjectId) -> Result<Option<Worksheet>> {
        let rows = self
            .rows(
                concat!(
                    "SELECT ",
                    worksheet_columns!(),
                    " FROM worksheets WHERE model_id = $1 AND object_id = $2"
                ),
                vec![id.model.into(), id.object.into()],
                "worksheets",
            )
            .await?;
        read::first(rows, read::worksheet)
    }

    async fn worksheet_by_name(&self, owner: ObjectId, name: &str) -> Result<Option<Worksheet>> {
        let rows = self
            .rows(
                concat!(
                    "SELECT ",
                    worksheet_columns!(),
                    " FROM worksheets WHERE owner_model = $1 AND owner_object = $2 AND name_key = $3"
                ),
                vec![
                    owner.model.into(),
                    owner.object.into(),
                    Worksheet::name_key(name).into(),
                ],
                "worksheets",
            )
            .await?;
        read::first(rows, read::worksheet)
    }

    async fn worksheets(&self, owner: Option<ObjectId>) -> Result<Vec<Worksheet>> {
        let rows = match owner {
            Some(owner) => {
                self.rows(
                    concat!(
                        "SELECT ",
                        worksheet_columns!(),
                        " FROM worksheets WHERE owner_model = $1 AND owner_object = $2 \
                         ORDER BY name, model_id, object_id"
                    ),
                    vec![owner.model.into(), owner.object.into()],
                    "worksheets",
                )
                .await?
            }
            None => {
                self.rows(
                    concat!(
                        "SELECT ",
                        worksheet_columns!(),
                        " FROM worksheets ORDER BY name, model_id, object_id"
                    ),
                    Vec::new(),
                    "worksheets",
                )
                .await?
            }
        };
        read::all(rows, read::worksheet)
    }

    async fn append_system_log(&self, entries: Vec<SystemLogEntry>) -> Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let count = entries.len();
        let rows = entries
            .into_iter()
            .map(|mut e| {
                prepare_log_entry(&mut e);
                let clamp = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
                vec![
                    e.time.into(),
                    e.user.into(),
                    e.address.into(),
                    e.method.into(),
                    e.path.into(),
                    i64::from(e.status).into(),
                    clamp(e.duration_ms).into(),
                    clamp(e.size).into(),
                ]
            })
            .collect();
        let mut pending = Pending::default();
        pending.push(
            Stmt::Insert {
                table: &SYSTEM_LOG,
                rows,
            },
            Context {
                what: format!("appending {count} system log entries").into(),
                on_unique: None,
            },
        );
        self.write_now(pending).await?;
        Ok(())
    }

    async fn system_log(
        &self,
        filter: &SystemLogFilter,
        page: Page,
    ) -> Result<Vec<SystemLogEntry>> {
        let (conditions, mut params) = log_filter(filter);
        let limit = params.len() + 1;
        let offset = params.len() + 2;
        params.push(i64::try_from(page.limit).unwrap_or(i64::MAX).into());
        params.push(i64::try_from(page.offset).unwrap_or(i64::MAX).into());
        let sql = format!(
            "SELECT {SYSTEM_LOG_COLUMNS} FROM system_log{conditions} \
             ORDER BY at DESC, id DESC LIMIT ${limit} OFFSET ${offset}"
        );
        let rows = self
            .rows_of(Stmt::query(sql, params), "the system log")
            .await?;
        read::all(rows, log_entry)
    }

    async fn count_system_log(&self, filter: &SystemLogFilter) -> Result<u64> {
        let (conditions, params) = log_filter(filter);
        let sql = format!("SELECT COUNT(*) FROM system_log{conditions}");
        let rows = self
            .rows_of(Stmt::query(sql, params), "the system log")
            .await?;
        let count = rows
            .first()
            .map(|r| r.int(0, "system_log"))
            .transpose()?
            .unwrap_or(0);
        Ok(u64::try_from(count).unwrap_or(0))
    }

    async fn purge_system_log(&self, before: Timestamp) -> Result<u64> {
        self.write_one(
            "DELETE FROM system_log WHERE at < $1",
            vec![before.into()],
            "purging the system log",
        )
        .await
    }

    async fn insert_operation(&self, mut operation: Operation) -> Result<i64> {
        operation.id = self.reserve_ids(OPERATION_IDS, 1).await?;
        let id = operation.id;
        self.apply(Batch::from(vec![Op::PutOperation(operation)]))
            .await?;
        Ok(id)
    }

    async fn update_operation(&self, operation: &Operation) -> Result<()> {
        let mut operation = operation.clone();
        prepare_operation(&mut operation)?;
        let mut params = operation_params(&operation)?;
        params.push(operation.id.into());
        let mut pending = Pending::default();
        pending.push(
            Stmt::exec(
                "UPDATE operations SET kind = $1, state = $2, model_id = $3, object_id = $4, \
                 started_by = $5, started_at = $6, heartbeat_at = $7, detail = $8 WHERE id = $9",
                params,
            ),
            Context::of(format!("updating operation {}", operation.id)),
        );
        let changed = self
            .write_now(pending)
            .await?
            .first()
            .map_or(0, |o| o.affected);
        if changed == 0 {
            return Err(Error::not_found(format!(
                "operation {} does not exist",
                operation.id
            )));
        }
        Ok(())
    }

    async fn operation(&self, id: i64) -> Result<Option<Operation>> {
        let rows = self
            .rows_of(
                Stmt::query(
                    format!("SELECT {OPERATION_COLUMNS} FROM operations WHERE id = $1"),
                    vec![id.into()],
                ),
                "operations",
            )
            .await?;
        read::first(rows, operation)
    }

    async fn operations(&self, filter: &OperationFilter) -> Result<Vec<Operation>> {
        let mut conditions = Vec::new();
        let mut params: Vec<SqlValue> = Vec::new();
        if let Some(model) = filter.model {
            params.push(model.model.into());
            params.push(model.object.into());
            conditions.push(format!(
                "model_id = ${} AND object_id = ${}",
                params.len() - 1,
                params.len()
            ));
        }
        if let Some(state) = filter.state {
            params.push(state.as_str().into());
            conditions.push(format!("state = ${}", params.len()));
        }
        if let Some(user) = &filter.started_by {
            params.push(user.as_str().into());
            conditions.push(format!("started_by = ${}", params.len()));
        }
        params.push(i64::try_from(filter.limit).unwrap_or(i64::MAX).into());
        let conditions = if conditions.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", conditions.join(" AND "))
        };
        let sql = format!(
            "SELECT {OPERATION_COLUMNS} FROM operations{conditions} ORDER BY id DESC LIMIT ${}",
            params.len()
        );
        let rows = self.rows_of(Stmt::query(sql, params), "operations").await?;
        read::all(rows, operation)
    }

    async fn append_operation_log(
        &self,
        operation: i64,
        lines: Vec<OperationLogLine>,
    ) -> Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        let mut pending = Pending::default();
        for mut line in lines {
            prepare_log_line(&mut line);
            pending.push(
                Stmt::exec(
                    "INSERT INTO operation_log (operation_id, seq, at, level, message) \
                     VALUES ($1, $2, $3, $4, $5)",
                    vec![
                        operation.into(),
                        line.seq.into(),
                        line.at.into(),
                        line.level.into(),
                        line.message.into(),
                    ],
                ),
                Context {
                    what: format!("appending to the log of operation {operation}").into(),
                    on_unique: Some(format!(
                        "line {} of the log of operation {operation} exists already",
                        line.seq
                    )),
                },
            );
        }
        self.write_now(pending).await?;
        Ok(())
    }

    async fn operation_log(&self, operation: i64) -> Result<Vec<OperationLogLine>> {
        let rows = self
            .rows_of(
                Stmt::query(
                    "SELECT seq, at, level, message FROM operation_log WHERE operation_id = $1 ORDER BY seq",
                    vec![operation.into()],
                ),
                "operation_log",
            )
            .await?;
        read::all(rows, |mut row| {
            const TABLE: &str = "operation_log";
            Ok(OperationLogLine {
                seq: row.int(0, TABLE)?,
                at: row.timestamp(1, TABLE)?,
                level: row.text(2, TABLE)?,
                message: row.text(3, TABLE)?,
            })
        })
    }

    async fn put_import_settings(&self, settings: ImportSettings) -> Result<()> {
        self.apply(Batch::from(vec![Op::PutImportSettings(settings)]))
            .await
    }

    async fn import_settings(&self, model: ObjectId) -> Result<Option<ImportSettings>> {
        let rows = self
            .rows_of(
                Stmt::query(
                    "SELECT format, parameters, attachment, updated_at, updated_by FROM import_settings \
                     WHERE model_id = $1 AND object_id = $2",
                    vec![model.model.into(), model.object.into()],
                ),
                "import_settings",
            )
            .await?;
        rows.into_iter()
            .next()
            .map(|mut row| {
                const TABLE: &str = "import_settings";
                let parameters = row.text(1, TABLE)?;
                Ok(ImportSettings {
                    model,
                    format: row.text(0, TABLE)?,
                    parameters: serde_json::from_str(&parameters).map_err(|e| {
                        Error::internal(format!(
                            "table {TABLE} holds parameters that do not read: {e}"
                        ))
                    })?,
                    attachment: row.opt_text(2, TABLE)?,
                    updated_at: row.timestamp(3, TABLE)?,
                    updated_by: row.text(4, TABLE)?,
                })
            })
            .transpose()
    }

    async fn put_attachment(&self, attachment: Attachment) -> Result<()> {
        self.apply(Batch::from(vec![Op::PutAttachment(attachment)]))
            .await
    }

    async fn attachment(&self, object: ObjectId, name: Option<&str>) -> Result<Option<Attachment>> {
        let mut params = vec![SqlValue::from(object.model), object.object.into()];
        let which = match name {
            Some(name) => {
                params.push(name.into());
                "AND name = $3"
            }
            None => "ORDER BY created_at DESC, name LIMIT 1",
        };
        let rows = self
            .rows_of(
                Stmt::query(
                    format!(
                        "SELECT {ATTACHMENT_INFO_COLUMNS}, content FROM attachments \
                         WHERE model_id = $1 AND object_id = $2 {which}"
                    ),
                    params,
                ),
                "attachments",
            )
            .await?;
        read::first(rows, |mut row| {
            use base64::Engine;
            let content = row.text(8, "attachments")?;
            let content = base64::engine::general_purpose::STANDARD
                .decode(content)
                .map_err(|e| {
                    Error::internal(format!("an attachment's content does not read: {e}"))
                })?;
            Ok(Attachment {
                info: attachment_info(row)?,
                content,
            })
        })
    }

    async fn attachments(&self, object: ObjectId) -> Result<Vec<AttachmentInfo>> {
        let rows = self
            .rows_of(
                Stmt::query(
                    format!(
                        "SELECT {ATTACHMENT_INFO_COLUMNS} FROM attachments \
                         WHERE model_id = $1 AND object_id = $2 ORDER BY created_at DESC, name"
                    ),
                    vec![object.model.into(), object.object.into()],
                ),
                "attachments",
            )
            .await?;
        read::all(rows, attachment_info)
    }

    async fn all_attachments(&self) -> Result<Vec<AttachmentInfo>> {
        let rows = self
            .rows_of(
                Stmt::query(
                    format!(
                        "SELECT {ATTACHMENT_INFO_COLUMNS} FROM attachments \
                         ORDER BY model_id, object_id, name"
                    ),
                    Vec::new(),
                ),
                "attachments",
            )
            .await?;
        read::all(rows, attachment_info)
    }
}

/// The lineage walk of [`ObjectStore::lineage`] as one statement: a recursive walk of (object,
/// depth) steps that follows each object's first `$5` edges (by the far end, then name)
/// up to depth `$4`, at most `$6` steps; then every edge followed from an object reached
/// below depth `$4`, at the smallest depth it was reached, by depth, source, target and
/// name, at most `$7`. Each row ends with the depth and the number of steps walked.
/// The fan-out subquery and the joins use the edges' primary key (downstream) or
/// `edges_target` (upstream).
fn lineage_sql(dialect: Dialect, downstream: bool) -> String {
    // `near` is the end the walk stands on, `far` the end it goes to.
    let (near, far) = if downstream {
        ("source", "target")
    } else {
        ("target", "source")
    };
    // SQLite computes a recursive CTE whole unless the CTE itself is limited;
    // PostgreSQL allows no LIMIT there, but reads the walk only as far as asked.
    let (walk_limit, bounded) = match dialect {
        Dialect::Sqlite => ("LIMIT $6", "SELECT m, o, depth FROM walk"),
        Dialect::Postgres => ("", "SELECT m, o, depth FROM walk LIMIT $6"),
    };
    let first_edges = |alias: &str| {
        format!(
            "(e.{far}_model, e.{far}_object, e.name) IN (\
             SELECT f.{far}_model, f.{far}_object, f.name FROM edges f \
             WHERE f.{near}_model = {alias}.m AND f.{near}_object = {alias}.o AND f.kind = $3 \
             ORDER BY f.{far}_model, f.{far}_object, f.name LIMIT $5)"
        )
    };
    format!(
        "WITH RECURSIVE walk(m, o, depth) AS (\
           SELECT CAST($1 AS BIGINT), CAST($2 AS BIGINT), CAST(0 AS BIGINT) \
           UNION \
           SELECT e.{far}_model, e.{far}_object, w.depth + 1 FROM walk w \
           JOIN edges e ON e.{near}_model = w.m AND e.{near}_object = w.o AND e.kind = $3 \
           WHERE w.depth < $4 AND {walk_edges} {walk_limit}), \
         bounded AS ({bounded}), \
         nodes AS (SELECT m, o, MIN(depth) AS depth FROM bounded GROUP BY m, o) \
         SELECT e.kind, e.source_model, e.source_object, e.target_model, e.target_object, e.name, \
                n.depth + 1, (SELECT COUNT(*) FROM bounded) \
         FROM nodes n \
         JOIN edges e ON e.{near}_model = n.m AND e.{near}_object = n.o AND e.kind = $3 \
         WHERE n.depth < $4 AND {node_edges} \
         ORDER BY n.depth + 1, e.source_model, e.source_object, e.target_model, e.target_object, e.name \
         LIMIT $7",
        walk_edges = first_edges("w"),
        node_edges = first_edges("n"),
    )
}
