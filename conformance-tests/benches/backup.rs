//! How long a backup and a restore of a large repository take in each SQL backend, and
//! how much memory they take, against baselines in the same run on the same database:
//! for the backup, reading the same pages of objects and what hangs on them without
//! writing anything; for the restore, writing the same rows through one write
//! transaction (the bulk load that made the repository).
//!
//! ```text
//! cargo bench -p lore-conformance --bench backup
//! ```
//!
//! The repository: one model of `LORE_BENCH_OBJECTS` (default 1,000,000) objects, each with
//! two attribute values, every tenth with a tag and an edge, and one user. The backup is
//! taken on SQLite and restored into a fresh SQLite file and (with a server at
//! `LORE_TEST_POSTGRES_URL` or the local one) a fresh PostgreSQL database. Peak memory is
//! the growth of the process's peak resident set (VmHWM, reset before each step), which
//! a streaming backup and restore keep flat whatever the repository's size. Nothing
//! here asserts a speed.

use std::io::Seek;
use std::sync::Arc;
use std::time::{Duration, Instant};

use lore_backend_postgres::PostgresStore;
use lore_backend_sqlite::SqliteStore;
use lore_conformance::postgres::TestDatabase;
use lore_core::backup::BackupOptions;
use lore_core::catalog::CatalogConfig;
use lore_core::id::REPOSITORY_MODEL;
use lore_core::model::{
    AttributeValue, Edge, EdgeKind, Object, ObjectKind, SystemType, Tag, TagKind, TypeName, User,
    Value,
};
use lore_core::store::{Op, Scope};
use lore_core::{ObjectId, ServerCatalog as Catalog, Store};

/// A backend's name, the store restored into and the store of its baseline.
type Pair = (&'static str, Arc<dyn Store>, Arc<dyn Store>);

type BenchResult<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

const MODEL: i64 = 2;
/// Rows written per chunk, as a restore does.
const CHUNK: usize = 2000;

fn main() -> BenchResult<()> {
    let objects: i64 = std::env::var("LORE_BENCH_OBJECTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run(objects))
}

/// The ops that build the repository, in chunks.
fn chunks(objects: i64) -> impl Iterator<Item = Vec<Op>> {
    let now = lore_core::model::now();
    let head = vec![
        Op::PutUser(User {
            id: ObjectId::repository(1),
            name: "Administrator".into(),
            full_name: "Administrator".into(),
            email: String::new(),
            description: String::new(),
            password_hash: None,
            enabled: true,
            created_at: now,
            external: None,
        }),
        Op::PutObject(Object::new(
            ObjectId::repository(MODEL),
            ObjectKind::Model,
            TypeName::new("Repository", "Model"),
            SystemType::Model,
            "Warehouse",
        )),
        Op::SetIdSequence {
            space: REPOSITORY_MODEL,
            next: MODEL + 1,
        },
        Op::SetIdSequence {
            space: MODEL,
            next: objects + 1,
        },
    ];
    let per_chunk = (CHUNK / 4) as i64;
    std::iter::once(head).chain((0..(objects + per_chunk - 1) / per_chunk).map(move |c| {
        let mut ops = Vec::with_capacity(CHUNK);
        for n in c * per_chunk + 1..=((c + 1) * per_chunk).min(objects) {
            let id = ObjectId::new(MODEL, n);
            let mut object = Object::new(
                id,
                ObjectKind::ModelObject,
                TypeName::new("RDBMS", "Column"),
                SystemType::Content,
                format!("column_{n}"),
            );
            object.native_id = Some(format!("c{n}"));
            object.created_at = now;
            object.updated_at = now;
            ops.push(Op::PutObject(object));
            ops.push(Op::SetAttribute(AttributeValue {
                object: id,
                attribute: "Owner".into(),
                value: Value::Text(format!("team {}", n % 97)),
            }));
            ops.push(Op::SetAttribute(AttributeValue {
                object: id,
                attribute: "Rows".into(),
                value: Value::Integer(n * 17),
            }));
            if n % 10 == 0 {
                ops.push(Op::AddTag(Tag {
                    object: id,
                    kind: TagKind::Label,
                    value: "PII".into(),
                }));
                ops.push(Op::AddEdge(Edge {
                    kind: EdgeKind::Lineage,
                    source: id,
                    target: ObjectId::new(MODEL, n - 9),
                    name: "copy".into(),
                    origin: None,
                }));
            }
        }
        ops
    }))
}

/// Writes the repository through one write transaction: the restore's baseline.
async fn load(store: &dyn Store, objects: i64) -> BenchResult<Duration> {
    let started = Instant::now();
    let mut tx = store.begin(lore_core::model::Author::system()).await?;
    for ops in chunks(objects) {
        tx.write(ops).await?;
    }
    tx.commit().await?;
    Ok(started.elapsed())
}

/// Reads what a backup reads, page by page, and writes nothing: the backup's baseline.
async fn read_all(store: &dyn Store) -> BenchResult<(Duration, usize)> {
    let started = Instant::now();
    let mut after = None;
    let mut rows = 0;
    loop {
        let page = store.model_objects_page(MODEL, after, 1000).await?;
        let Some(last) = page.last() else { break };
        after = Some(last.id.object);
        let ids: Vec<ObjectId> = page.iter().map(|o| o.id).collect();
        let details = store.details(Scope::Objects(ids)).await?;
        rows += page.len() + details.attributes.len() + details.edges.len() + details.tags.len();
    }
    Ok((started.elapsed(), rows))
}

/// A figure of `/proc/self/status` in MiB: `VmHWM` (the peak resident set) or `VmRSS`.
fn status_mib(field: &str) -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .and_then(|l| l.split_whitespace().nth(1).map(str::to_owned))
        })
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(0.0, |kb| kb / 1024.0)
}

/// The process's peak resident set in MiB, reset first to the resident set when `reset`
/// (writing 5 to `clear_refs`).
fn peak_mib(reset: bool) -> f64 {
    if reset {
        let _ = std::fs::write("/proc/self/clear_refs", "5");
    }
    status_mib("VmHWM:")
}

fn secs(d: Duration) -> String {
    format!("{:.1} s", d.as_secs_f64())
}

async fn run(objects: i64) -> BenchResult<()> {
    println!("backup and restore of a repository of {objects} objects");
    let dir = tempfile::tempdir()?;
    let source = Arc::new(SqliteStore::open(&dir.path().join("source.db")).await?);
    let loaded = load(source.as_ref(), objects).await?;
    let (read, rows) = read_all(source.as_ref()).await?;
    let catalog = Catalog::new(source.clone(), CatalogConfig::default());
    let operator = catalog.command_line_operator();
    let base = peak_mib(true);
    let resident = status_mib("VmRSS:");
    let started = Instant::now();
    let (file, manifest) = catalog
        .operations()
        .backup(&operator, tempfile::tempfile()?, BackupOptions::default())
        .await?;
    let took = started.elapsed();
    let grew = peak_mib(false) - base;
    let size = file.metadata()?.len();
    println!(
        "| step | backend | Lore | baseline | Lore / baseline | resident before | peak memory growth |\n|---|---|--:|--:|--:|--:|--:|"
    );
    println!(
        "| backup ({} records, {:.0} MiB zip) | SQLite | {} | {} (reading {rows} rows) | {:.1}x | {resident:.0} MiB | {grew:.0} MiB |",
        manifest.records.values().sum::<u64>(),
        size as f64 / (1 << 20) as f64,
        secs(took),
        secs(read),
        took.as_secs_f64() / read.as_secs_f64(),
    );

    // Each target beside a store of the same backend for the bulk-write baseline.
    let restored_dir = tempfile::tempdir()?;
    let mut pairs: Vec<Pair> = vec![(
        "SQLite",
        Arc::new(SqliteStore::open(&restored_dir.path().join("restored.db")).await?),
        Arc::new(SqliteStore::open(&restored_dir.path().join("baseline.db")).await?),
    )];
    let mut databases = Vec::new();
    match (TestDatabase::create().await, TestDatabase::create().await) {
        (Some(restored), Some(baseline)) => {
            pairs.push((
                "PostgreSQL",
                Arc::new(PostgresStore::open(&restored.url).await?),
                Arc::new(PostgresStore::open(&baseline.url).await?),
            ));
            databases.extend([restored, baseline]);
        }
        _ => println!("(PostgreSQL skipped: no database server)"),
    }
    for (name, store, baseline) in &pairs {
        let catalog = Catalog::new(store.clone(), CatalogConfig::default());
        let mut backup = file.try_clone()?;
        backup.rewind()?;
        let base = peak_mib(true);
        let resident = status_mib("VmRSS:");
        let started = Instant::now();
        catalog.operations().restore(&operator, backup).await?;
        let took = started.elapsed();
        let grew = peak_mib(false) - base;
        let bulk = load(baseline.as_ref(), objects).await?;
        println!(
            "| restore | {name} | {} | {} (bulk write of the same rows) | {:.1}x | {resident:.0} MiB | {grew:.0} MiB |",
            secs(took),
            secs(bulk),
            took.as_secs_f64() / bulk.as_secs_f64(),
        );
    }
    println!("(the source was loaded in {})", secs(loaded));
    drop(pairs);
    drop(databases);
    Ok(())
}
