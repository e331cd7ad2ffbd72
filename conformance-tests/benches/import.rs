//! How fast a model import lands in each backend, and how fast it reads back, against a
//! baseline in the same run: hand-written SQL writing (and reading) the same rows into a
//! fresh database of the same schema.
//!
//! ```text
//! cargo bench -p lore-conformance --bench import
//! ```
//!
//! - Lore import: `Objects::import_archive` of a synthetic database model (schemas,
//!   tables, columns; attribute values, labels, collections and relationships), built in
//!   memory once, into a fresh store per repetition, by an administrator.
//! - Store::apply alone: the ops that import sends, built beforehand the same way, applied
//!   to another fresh store; the rest of the import time is the catalog's.
//! - SQL baseline: the same rows (objects, attribute values, edges, tags, the custom
//!   attribute type) inserted in one transaction into a second fresh database whose
//!   schema the backend's migrations made: prepared statements on SQLite, one `UNNEST`
//!   insert per table on PostgreSQL. Building the rows from the archive is timed too.
//!   Outside the timings, the rows are checked to match Lore's (SQLite: row for row;
//!   PostgreSQL: counts per table).
//! - Lore export: `Objects::model_archive` of the imported model; Store reads alone: the
//!   `model_objects` and `details` calls it makes. SQL SELECT: one query per table of the
//!   same rows, decoded into Rust values.
//!
//! Each figure is the best of `LORE_BENCH_REPS` (default 3) runs. `LORE_BENCH_SIZES`
//! (default `1000,10000,50000`) sets the object counts. PostgreSQL is the server of
//! `LORE_TEST_POSTGRES_URL` (see `lore_conformance::postgres`); without one it is skipped.
//! Nothing here asserts a speed.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use lore_backend_memory::MemoryStore;
use lore_backend_postgres::PostgresStore;
use lore_backend_sqlite::SqliteStore;
use lore_conformance::postgres::TestDatabase;
use lore_core::archive::ModelArchive;
use lore_core::auth::Caller;
use lore_core::catalog::{CatalogConfig, ExportOptions, ImportOptions};
use lore_core::id::stable_id;
use lore_core::model::{
    ADMINISTRATOR_USER, AttributeKind, AttributeType, AttributeValue, DATABASE_PROFILE, Edge,
    MODEL_PROFILE_ATTRIBUTE, Object, ObjectKind, REPOSITORY_PROFILE, SystemType, Tag, TypeName,
    Value, ValueType,
};
use lore_core::store::{Batch, Op, Scope};
use lore_core::{Catalog, ObjectId, ObjectRef, Store};
use sqlx::{Connection, PgConnection, Row};

#[path = "common/baseline.rs"]
mod baseline;
#[path = "common/model.rs"]
mod model;

use baseline::{baseline_rows, postgres_insert, sqlite_insert, system_type};
use model::{CUSTOM_ATTRIBUTE, synthetic_archive};

type BenchResult<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

const PASSWORD: &str = "bench-password";

fn main() -> BenchResult<()> {
    let sizes = env_list("LORE_BENCH_SIZES", &[1_000, 10_000, 50_000])?;
    let reps = env_list("LORE_BENCH_REPS", &[3])?
        .first()
        .copied()
        .unwrap_or(3)
        .max(1);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run(&sizes, reps))
}

/// Reads a comma-separated list of numbers from the environment.
fn env_list(name: &str, default: &[usize]) -> BenchResult<Vec<usize>> {
    match std::env::var(name) {
        Err(_) => Ok(default.to_vec()),
        Ok(text) => text
            .split(',')
            .map(|n| n.trim().replace('_', "").parse::<usize>())
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{name}: {e}").into()),
    }
}

/// The figures of one backend and size.
#[derive(Debug)]
struct Line {
    backend: &'static str,
    objects: usize,
    rows: usize,
    /// `Objects::import_archive`.
    import: Duration,
    /// `Store::apply` of the same ops, built beforehand, on another fresh store.
    apply: Duration,
    baseline_import: Option<Duration>,
    /// `Objects::model_archive`.
    export: Duration,
    /// `Store::model_objects` and `Store::details` of the model, the reads of the export.
    store_read: Duration,
    baseline_read: Option<Duration>,
}

async fn run(sizes: &[usize], reps: usize) -> BenchResult<()> {
    let started = Instant::now();
    println!("Lore import benchmark: best of {reps} per figure");
    let mut lines = Vec::new();
    let mut postgres_reachable = true;
    for &n in sizes {
        let archive = synthetic_archive(n);
        let rows = row_count(&archive);
        // Op is as large as its largest variant (an Object), so this is what the
        // batch of the import holds in memory before the store sees it.
        let ops = rows + 1;
        println!(
            "{n} objects: {} attribute values, {} edges, {} tags ({rows} rows); \
             the import's batch: {ops} ops of {} bytes ({:.1} MB)",
            archive.attributes.len(),
            archive.relationships.len(),
            archive.tags.len(),
            size_of::<Op>(),
            (ops * size_of::<Op>()) as f64 / 1e6
        );
        lines.push(bench_memory(&archive, reps).await?);
        lines.push(bench_sqlite(&archive, reps).await?);
        if postgres_reachable {
            match bench_postgres(&archive, reps).await? {
                Some(line) => lines.push(line),
                None => {
                    println!("postgres: skipped (PostgreSQL not reachable, see stderr)");
                    postgres_reachable = false;
                }
            }
        }
    }
    println!();
    print_tables(&lines);
    println!();
    println!("total time {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// Objects, attribute values, edges and tags of the archive, plus the model object and its
/// profile attribute that the import adds.
fn row_count(archive: &ModelArchive) -> usize {
    archive.objects.len()
        + archive.attributes.len()
        + archive.relationships.len()
        + archive.tags.len()
        + 2
}

fn print_tables(lines: &[Line]) {
    let dash = || "-".to_owned();
    println!("Import (write the model):");
    println!();
    println!(
        "| backend  | objects |    rows | Lore import | objects/s | Store::apply alone | SQL baseline | Lore/SQL |"
    );
    println!(
        "|----------|--------:|--------:|------------:|----------:|-------------------:|-------------:|---------:|"
    );
    for l in lines {
        println!(
            "| {:<8} | {:>7} | {:>7} | {:>11} | {:>9.0} | {:>18} | {:>12} | {:>8} |",
            l.backend,
            l.objects,
            l.rows,
            ms(l.import),
            l.objects as f64 / l.import.as_secs_f64(),
            ms(l.apply),
            l.baseline_import.map_or_else(dash, ms),
            l.baseline_import.map_or_else(dash, |b| ratio(l.import, b)),
        );
    }
    println!();
    println!("Export (read the model back):");
    println!();
    println!(
        "| backend  | objects | Lore model_archive | objects/s | Store reads alone | SQL SELECT | Lore/SQL |"
    );
    println!(
        "|----------|--------:|-------------------:|----------:|------------------:|-----------:|---------:|"
    );
    for l in lines {
        println!(
            "| {:<8} | {:>7} | {:>18} | {:>9.0} | {:>17} | {:>10} | {:>8} |",
            l.backend,
            l.objects,
            ms(l.export),
            l.objects as f64 / l.export.as_secs_f64(),
            ms(l.store_read),
            l.baseline_read.map_or_else(dash, ms),
            l.baseline_read.map_or_else(dash, |b| ratio(l.export, b)),
        );
    }
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

fn ratio(lore: Duration, baseline: Duration) -> String {
    format!("{:.2}x", lore.as_secs_f64() / baseline.as_secs_f64())
}

/// Keeps the shorter of two times.
fn keep_best(best: &mut Duration, elapsed: Duration) {
    *best = (*best).min(elapsed);
}

// ---- Lore

/// A catalog over the store with a logged-in administrator.
async fn catalog(store: Arc<dyn Store>) -> BenchResult<(Catalog, Caller)> {
    let catalog = Catalog::new(store, CatalogConfig::default());
    catalog.identity().bootstrap(Some(PASSWORD)).await?;
    let key = catalog
        .identity()
        .login(ADMINISTRATOR_USER, PASSWORD, false)
        .await?;
    let caller = catalog.identity().authenticate(&key).await?;
    Ok((catalog, caller))
}

/// What the Lore side of one repetition measured.
#[derive(Debug)]
struct LoreRun {
    catalog: Catalog,
    /// The store under `catalog`, for the reads that bypass it.
    store: Arc<dyn Store>,
    caller: Caller,
    model: ObjectId,
    user: ObjectId,
    import: Duration,
    apply: Duration,
}

/// Imports the archive through the catalog of store `a` (from a copy made before the
/// clock starts), then applies the same ops straight to store `b`. Both are fresh.
async fn lore_run(
    a: Arc<dyn Store>,
    b: &dyn Store,
    archive: &ModelArchive,
) -> BenchResult<LoreRun> {
    let (catalog, caller) = catalog(a.clone()).await?;
    let copy = archive.clone();
    let start = Instant::now();
    let summary = catalog
        .objects()
        .import_archive(&caller, copy, &ImportOptions::default())
        .await?;
    let import = start.elapsed();
    let model: ObjectId = summary.model_id.parse()?;

    let batch = lore_batch(archive, model.content_model(), caller.user())?;
    let start = Instant::now();
    b.apply(batch).await?;
    let apply = start.elapsed();
    Ok(LoreRun {
        catalog,
        store: a,
        user: caller.user(),
        caller,
        model,
        import,
        apply,
    })
}

/// The ops `Objects::import_archive` sends for the archive as a new model, built the same
/// way (ids in archive order, which is parents first here).
fn lore_batch(archive: &ModelArchive, model: i64, user: ObjectId) -> BenchResult<Batch> {
    let now = lore_core::model::now();
    let mut batch = Batch::new();
    batch.push(Op::PutAttributeType(AttributeType {
        name: CUSTOM_ATTRIBUTE.to_owned(),
        display_name: CUSTOM_ATTRIBUTE.to_owned(),
        kind: AttributeKind::Custom,
        value_type: ValueType::String,
        profile: None,
        group: "Custom Attributes".to_owned(),
        description: String::new(),
    }));
    let model_id = ObjectId::repository(model);
    let mut model_object = Object::new(
        model_id,
        ObjectKind::Model,
        TypeName::new(REPOSITORY_PROFILE, ObjectKind::Model.as_str()),
        SystemType::Model,
        archive.model.name.clone(),
    );
    model_object.description = Some(archive.model.description.clone());
    model_object.updated_by = Some(user);
    batch.push(Op::PutObject(model_object));
    batch.push(Op::SetAttribute(AttributeValue {
        object: model_id,
        attribute: MODEL_PROFILE_ATTRIBUTE.to_owned(),
        value: Value::Text(archive.model.profile.clone()),
    }));
    // Numbered as Lore numbers them: in the order of the archive's objects.csv, which
    // `Objects::import_archive` writes sorted by native id.
    let mut order: Vec<&str> = archive
        .objects
        .iter()
        .map(|r| r.native_id.as_str())
        .collect();
    order.sort_unstable();
    let ids: HashMap<&str, ObjectId> = order
        .into_iter()
        .enumerate()
        .map(|(i, native)| (native, ObjectId::new(model, i as i64 + 1)))
        .collect();
    for row in &archive.objects {
        let id = *ids.get(row.native_id.as_str()).ok_or("no id")?;
        let mut object = Object::new(
            id,
            ObjectKind::ModelObject,
            TypeName::new(DATABASE_PROFILE, row.object_type.clone()),
            system_type(&row.object_type)?,
            row.name.clone(),
        );
        object.parent = match &row.parent_native_id {
            Some(p) => Some(*ids.get(p.as_str()).ok_or("parent after child")?),
            None => None,
        };
        object.native_id = Some(row.native_id.clone());
        object.stable_id = Some(stable_id(model, &row.native_id));
        object.physical_name = row.physical_name.clone();
        object.description = row.description.clone();
        object.business_name = row.business_name.clone();
        object.business_description = row.business_description.clone();
        object.data_type = row.data_type.clone();
        object.external_url = row.external_url.clone();
        object.hide_data = row.hide_data;
        object.workflow_state = row.workflow_state.clone();
        object.created_at = now;
        object.updated_at = now;
        object.updated_by = Some(user);
        batch.push(Op::PutObject(object));
    }
    let id = |native: &str| -> BenchResult<ObjectId> {
        ids.get(native)
            .copied()
            .ok_or_else(|| format!("unknown object {native}").into())
    };
    for a in &archive.attributes {
        batch.push(Op::SetAttribute(AttributeValue {
            object: id(&a.native_id)?,
            attribute: a.attribute.clone(),
            value: Value::parse(a.value_type, &a.value).ok_or("bad value")?,
        }));
    }
    for r in &archive.relationships {
        batch.push(Op::AddEdge(Edge {
            kind: r.kind,
            source: id(&r.source_native_id)?,
            target: id(&r.target_native_id)?,
            name: r.name.clone(),
            origin: None,
        }));
    }
    for t in &archive.tags {
        batch.push(Op::AddTag(Tag {
            object: id(&t.native_id)?,
            kind: t.kind,
            value: t.value.clone(),
        }));
    }
    Ok(batch)
}

/// Reads the model back as archive rows (the export path), then with only the store
/// reads that path makes; returns both times.
async fn lore_reads(run: &LoreRun, objects: usize) -> BenchResult<(Duration, Duration)> {
    let model = run.model;
    let start = Instant::now();
    let archive = run
        .catalog
        .objects()
        .model_archive(
            &run.caller,
            &ObjectRef::Id(model),
            &ExportOptions::default(),
        )
        .await?;
    let export = start.elapsed();
    if archive.objects.len() != objects {
        return Err(format!(
            "the export has {} objects instead of {objects}",
            archive.objects.len()
        )
        .into());
    }
    drop(archive);

    let store = &run.store;
    let start = Instant::now();
    let read = store.model_objects(model.content_model()).await?;
    let details = store.details(Scope::Model(model.content_model())).await?;
    let store_read = start.elapsed();
    if read.len() != objects || details.attributes.is_empty() {
        return Err("the store read back too little".into());
    }
    Ok((export, store_read))
}

/// The best times of the reads of `lore_reads`.
#[derive(Debug)]
struct Reads {
    export: Duration,
    store: Duration,
}

impl Reads {
    fn new() -> Self {
        Self {
            export: Duration::MAX,
            store: Duration::MAX,
        }
    }

    async fn run(&mut self, run: &LoreRun, objects: usize) -> BenchResult<()> {
        let (export, store) = lore_reads(run, objects).await?;
        keep_best(&mut self.export, export);
        keep_best(&mut self.store, store);
        Ok(())
    }
}

async fn bench_memory(archive: &ModelArchive, reps: usize) -> BenchResult<Line> {
    eprintln!("memory ...");
    let n = archive.objects.len();
    let mut last = None;
    let mut import = Duration::MAX;
    let mut apply = Duration::MAX;
    for _ in 0..reps {
        drop(last.take());
        let run = lore_run(Arc::new(MemoryStore::new()), &MemoryStore::new(), archive).await?;
        keep_best(&mut import, run.import);
        keep_best(&mut apply, run.apply);
        last = Some(run);
    }
    let run = last.ok_or("no import ran")?;
    let mut reads = Reads::new();
    for _ in 0..reps {
        reads.run(&run, n).await?;
    }
    Ok(Line {
        backend: "memory",
        objects: n,
        rows: row_count(archive),
        import,
        apply,
        baseline_import: None,
        export: reads.export,
        store_read: reads.store,
        baseline_read: None,
    })
}

/// An object row as the baseline reads it back: every column.
#[derive(Debug)]
#[expect(dead_code, reason = "rows are read back to be timed, not inspected")]
struct ObjectBack {
    model_id: i64,
    object_id: i64,
    kind: String,
    parent: Option<i64>,
    profile: String,
    type_name: String,
    system_type: String,
    name: String,
    physical_name: Option<String>,
    native_id: Option<String>,
    stable_id: Option<String>,
    description: Option<String>,
    business_name: Option<String>,
    business_description: Option<String>,
    data_type: Option<String>,
    external_url: Option<String>,
    hide_data: bool,
    workflow_state: Option<String>,
    created_at: i64,
    updated_at: i64,
    updated_by_model: Option<i64>,
    updated_by: Option<i64>,
}

/// model, object, attribute, value kind, text value, integer value.
type AttributeBack = (i64, i64, String, String, Option<String>, Option<i64>);
/// kind, source model, source object, target model, target object, name.
type EdgeBack = (String, i64, i64, i64, i64, String);
/// model, object, kind, value.
type TagBack = (i64, i64, String, String);

/// What the baseline reads back: the model's rows of each table.
#[derive(Debug, Default)]
struct ReadBack {
    objects: Vec<ObjectBack>,
    attributes: Vec<AttributeBack>,
    edges: Vec<EdgeBack>,
    tags: Vec<TagBack>,
}

impl ReadBack {
    fn objects(&self) -> usize {
        self.objects.len()
    }
}

// ---- SQLite

async fn bench_sqlite(archive: &ModelArchive, reps: usize) -> BenchResult<Line> {
    eprintln!("sqlite ...");
    let n = archive.objects.len();
    let mut last = None;
    let mut import = Duration::MAX;
    let mut apply = Duration::MAX;
    let mut baseline_import = Duration::MAX;
    for _ in 0..reps {
        drop(last.take());
        let dir = tempfile::tempdir()?;
        let lore_path = dir.path().join("lore.db");
        let run = lore_run(
            Arc::new(SqliteStore::open(&lore_path).await?),
            &SqliteStore::open(&dir.path().join("apply.db")).await?,
            archive,
        )
        .await?;
        keep_best(&mut import, run.import);
        keep_best(&mut apply, run.apply);

        let baseline_path = dir.path().join("baseline.db");
        drop(SqliteStore::open(&baseline_path).await?);
        let mut conn = rusqlite::Connection::open(&baseline_path)?;
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        let start = Instant::now();
        let rows = baseline_rows(archive, run.model.content_model(), run.user)?;
        sqlite_insert(&mut conn, &rows)?;
        keep_best(&mut baseline_import, start.elapsed());
        drop(rows);

        check_sqlite(&lore_path, &baseline_path)?;
        last = Some((dir, run, conn));
    }
    let (_dir, run, conn) = last.ok_or("no import ran")?;
    let mut reads = Reads::new();
    let mut baseline_read = Duration::MAX;
    for _ in 0..reps {
        reads.run(&run, n).await?;
        let start = Instant::now();
        let back = sqlite_read(&conn, run.model.content_model())?;
        keep_best(&mut baseline_read, start.elapsed());
        if back.objects() != n {
            return Err(format!("the baseline read {} objects", back.objects()).into());
        }
    }
    Ok(Line {
        backend: "sqlite",
        objects: n,
        rows: row_count(archive),
        import,
        apply,
        baseline_import: Some(baseline_import),
        export: reads.export,
        store_read: reads.store,
        baseline_read: Some(baseline_read),
    })
}

/// Reads the model's rows back with one `SELECT` per table.
fn sqlite_read(conn: &rusqlite::Connection, model: i64) -> BenchResult<ReadBack> {
    let mut back = ReadBack::default();
    let mut stmt = conn.prepare_cached(
        "SELECT model_id, object_id, kind, parent, profile, type_name, system_type, name, physical_name, \
         native_id, stable_id, description, business_name, business_description, data_type, external_url, \
         hide_data, workflow_state, created_at, updated_at, updated_by_model, updated_by_object \
         FROM objects WHERE model_id = ?1 ORDER BY object_id",
    )?;
    let mut rows = stmt.query([model])?;
    while let Some(r) = rows.next()? {
        back.objects.push(ObjectBack {
            model_id: r.get(0)?,
            object_id: r.get(1)?,
            kind: r.get(2)?,
            parent: r.get(3)?,
            profile: r.get(4)?,
            type_name: r.get(5)?,
            system_type: r.get(6)?,
            name: r.get(7)?,
            physical_name: r.get(8)?,
            native_id: r.get(9)?,
            stable_id: r.get(10)?,
            description: r.get(11)?,
            business_name: r.get(12)?,
            business_description: r.get(13)?,
            data_type: r.get(14)?,
            external_url: r.get(15)?,
            hide_data: r.get(16)?,
            workflow_state: r.get(17)?,
            created_at: r.get(18)?,
            updated_at: r.get(19)?,
            updated_by_model: r.get(20)?,
            updated_by: r.get(21)?,
        });
    }
    let mut stmt = conn.prepare_cached(
        "SELECT model_id, object_id, attribute, value_kind, text_value, integer_value \
         FROM attribute_values WHERE model_id = ?1",
    )?;
    let mut rows = stmt.query([model])?;
    while let Some(r) = rows.next()? {
        back.attributes.push((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
        ));
    }
    let mut stmt = conn.prepare_cached(
        "SELECT kind, source_model, source_object, target_model, target_object, name \
         FROM edges WHERE source_model = ?1",
    )?;
    let mut rows = stmt.query([model])?;
    while let Some(r) = rows.next()? {
        back.edges.push((
            r.get(0)?,
            r.get(1)?,
            r.get(2)?,
            r.get(3)?,
            r.get(4)?,
            r.get(5)?,
        ));
    }
    let mut stmt = conn
        .prepare_cached("SELECT model_id, object_id, kind, value FROM tags WHERE model_id = ?1")?;
    let mut rows = stmt.query([model])?;
    while let Some(r) = rows.next()? {
        back.tags.push((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?));
    }
    Ok(back)
}

/// The query that lists rows of one database missing from the other; every one of them
/// must be empty for the baseline to have written what Lore wrote.
const SQLITE_DIFFERENCES: [&str; 5] = [
    "SELECT model_id, object_id, kind, parent, profile, type_name, system_type, name, physical_name, \
     native_id, stable_id, description, data_type, hide_data, updated_by_model, updated_by_object FROM {a}.objects \
     EXCEPT SELECT model_id, object_id, kind, parent, profile, type_name, system_type, name, physical_name, \
     native_id, stable_id, description, data_type, hide_data, updated_by_model, updated_by_object FROM {b}.objects",
    "SELECT * FROM {a}.attribute_values EXCEPT SELECT * FROM {b}.attribute_values",
    "SELECT * FROM {a}.edges EXCEPT SELECT * FROM {b}.edges",
    "SELECT * FROM {a}.tags EXCEPT SELECT * FROM {b}.tags",
    "SELECT * FROM {a}.attribute_types EXCEPT SELECT * FROM {b}.attribute_types",
];

/// Checks (outside the timings) that Lore and the baseline wrote the same model rows.
fn check_sqlite(lore: &Path, baseline: &Path) -> BenchResult<()> {
    let conn = rusqlite::Connection::open(lore)?;
    conn.execute(
        "ATTACH DATABASE ?1 AS baseline",
        [baseline.to_string_lossy()],
    )?;
    for query in SQLITE_DIFFERENCES {
        for (a, b) in [("main", "baseline"), ("baseline", "main")] {
            let sql = query.replace("{a}", a).replace("{b}", b);
            // The repository objects differ (the baseline has no users' model).
            let sql = if sql.contains(".objects") {
                format!(
                    "SELECT count(*) FROM ({sql}) WHERE kind = '{}'",
                    ObjectKind::ModelObject.as_str()
                )
            } else {
                format!("SELECT count(*) FROM ({sql})")
            };
            let missing: i64 = conn.query_row(&sql, [], |r| r.get(0))?;
            if missing != 0 {
                return Err(format!("{missing} rows differ: {sql}").into());
            }
        }
    }
    Ok(())
}

// ---- PostgreSQL

/// A fresh PostgreSQL database with the schema of the backend's migrations, and a Lore
/// store on it.
async fn postgres_store() -> BenchResult<(PostgresStore, TestDatabase)> {
    let database = TestDatabase::create().await.ok_or("PostgreSQL went away")?;
    let store = PostgresStore::open(&database.url).await?;
    Ok((store, database))
}

async fn bench_postgres(archive: &ModelArchive, reps: usize) -> BenchResult<Option<Line>> {
    eprintln!("postgres ...");
    let n = archive.objects.len();
    // Probe once, so an unreachable server skips instead of failing in the loop.
    if TestDatabase::create().await.is_none() {
        return Ok(None);
    }
    let mut last: Option<(
        PostgresStore,
        TestDatabase,
        LoreRun,
        PgConnection,
        TestDatabase,
    )> = None;
    let mut import = Duration::MAX;
    let mut apply = Duration::MAX;
    let mut baseline_import = Duration::MAX;
    for _ in 0..reps {
        if let Some((store, _, _, conn, _)) = last.take() {
            store.driver().close().await;
            conn.close().await?;
        }
        let (store, database) = postgres_store().await?;
        let (apply_store, apply_database) = postgres_store().await?;
        let run = lore_run(Arc::new(store.clone()), &apply_store, archive).await?;
        keep_best(&mut import, run.import);
        keep_best(&mut apply, run.apply);
        apply_store.driver().close().await;
        drop(apply_database);

        let (baseline_store, baseline) = postgres_store().await?;
        baseline_store.driver().close().await;
        let mut conn = PgConnection::connect(&baseline.url).await?;
        let start = Instant::now();
        let rows = baseline_rows(archive, run.model.content_model(), run.user)?;
        postgres_insert(&mut conn, &rows).await?;
        keep_best(&mut baseline_import, start.elapsed());
        drop(rows);

        check_postgres(&database.url, &mut conn).await?;
        last = Some((store, database, run, conn, baseline));
    }
    let (store, _database, run, mut conn, _baseline) = last.ok_or("no import ran")?;
    let mut reads = Reads::new();
    let mut baseline_read = Duration::MAX;
    for _ in 0..reps {
        reads.run(&run, n).await?;
        let start = Instant::now();
        let back = postgres_read(&mut conn, run.model.content_model()).await?;
        keep_best(&mut baseline_read, start.elapsed());
        if back.objects() != n {
            return Err(format!("the baseline read {} objects", back.objects()).into());
        }
    }
    store.driver().close().await;
    conn.close().await?;
    Ok(Some(Line {
        backend: "postgres",
        objects: n,
        rows: row_count(archive),
        import,
        apply,
        baseline_import: Some(baseline_import),
        export: reads.export,
        store_read: reads.store,
        baseline_read: Some(baseline_read),
    }))
}

/// Reads the model's rows back with one `SELECT` per table.
async fn postgres_read(conn: &mut PgConnection, model: i64) -> BenchResult<ReadBack> {
    let mut back = ReadBack::default();
    let rows = sqlx::query(
        "SELECT model_id, object_id, kind, parent, profile, type_name, system_type, name, physical_name, \
         native_id, stable_id, description, business_name, business_description, data_type, external_url, \
         hide_data, workflow_state, created_at, updated_at, updated_by_model, updated_by_object \
         FROM objects WHERE model_id = $1 ORDER BY object_id",
    )
    .bind(model)
    .fetch_all(&mut *conn)
    .await?;
    for r in &rows {
        back.objects.push(ObjectBack {
            model_id: r.try_get(0)?,
            object_id: r.try_get(1)?,
            kind: r.try_get(2)?,
            parent: r.try_get(3)?,
            profile: r.try_get(4)?,
            type_name: r.try_get(5)?,
            system_type: r.try_get(6)?,
            name: r.try_get(7)?,
            physical_name: r.try_get(8)?,
            native_id: r.try_get(9)?,
            stable_id: r.try_get(10)?,
            description: r.try_get(11)?,
            business_name: r.try_get(12)?,
            business_description: r.try_get(13)?,
            data_type: r.try_get(14)?,
            external_url: r.try_get(15)?,
            hide_data: r.try_get(16)?,
            workflow_state: r.try_get(17)?,
            created_at: r.try_get(18)?,
            updated_at: r.try_get(19)?,
            updated_by_model: r.try_get(20)?,
            updated_by: r.try_get(21)?,
        });
    }
    let rows = sqlx::query(
        "SELECT model_id, object_id, attribute, value_kind, text_value, integer_value \
         FROM attribute_values WHERE model_id = $1",
    )
    .bind(model)
    .fetch_all(&mut *conn)
    .await?;
    for r in &rows {
        back.attributes.push((
            r.try_get(0)?,
            r.try_get(1)?,
            r.try_get(2)?,
            r.try_get(3)?,
            r.try_get(4)?,
            r.try_get(5)?,
        ));
    }
    let rows = sqlx::query(
        "SELECT kind, source_model, source_object, target_model, target_object, name \
         FROM edges WHERE source_model = $1",
    )
    .bind(model)
    .fetch_all(&mut *conn)
    .await?;
    for r in &rows {
        back.edges.push((
            r.try_get(0)?,
            r.try_get(1)?,
            r.try_get(2)?,
            r.try_get(3)?,
            r.try_get(4)?,
            r.try_get(5)?,
        ));
    }
    let rows = sqlx::query("SELECT model_id, object_id, kind, value FROM tags WHERE model_id = $1")
        .bind(model)
        .fetch_all(&mut *conn)
        .await?;
    for r in &rows {
        back.tags
            .push((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?));
    }
    Ok(back)
}

/// Checks (outside the timings) that both databases hold as many rows of each table.
async fn check_postgres(lore_url: &str, baseline: &mut PgConnection) -> BenchResult<()> {
    const COUNTS: &str = "SELECT (SELECT count(*) FROM objects WHERE kind = 'Model Object'), \
         (SELECT count(*) FROM attribute_values), (SELECT count(*) FROM edges), \
         (SELECT count(*) FROM tags), (SELECT count(*) FROM attribute_types)";
    let mut lore = PgConnection::connect(lore_url).await?;
    let counts = |r: &sqlx::postgres::PgRow| -> BenchResult<[i64; 5]> {
        Ok([
            r.try_get(0)?,
            r.try_get(1)?,
            r.try_get(2)?,
            r.try_get(3)?,
            r.try_get(4)?,
        ])
    };
    let mine = counts(&sqlx::query(COUNTS).fetch_one(&mut lore).await?)?;
    let theirs = counts(&sqlx::query(COUNTS).fetch_one(&mut *baseline).await?)?;
    lore.close().await?;
    if mine != theirs {
        return Err(format!("row counts differ: Lore {mine:?}, baseline {theirs:?}").into());
    }
    Ok(())
}
