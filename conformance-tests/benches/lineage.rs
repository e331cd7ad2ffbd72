//! How fast `Store::lineage` walks a graph of a million lineage edges in each backend,
//! against a baseline in the same run on the same database: the walk a client would
//! write by hand, one indexed `SELECT` of an object's edges per object it reaches
//! (breadth first, with the same depth and fan-out bounds), and a single such `SELECT`
//! (the floor of any walk).
//!
//! ```text
//! cargo bench -p lore-conformance --bench lineage
//! ```
//!
//! The graph: `LORE_BENCH_EDGES` (default 1,000,000) lineage edges in ten layers of
//! objects, each object feeding five objects of the next layer (a data pipeline). Walks
//! start from 40 objects: 20 of the first layer (downstream) and 20 of the last
//! (upstream), depth 5, fan-out 100, limit 10,000 (the walk reaches about 3,900 edges).
//! Figures are the median and the slowest walk. PostgreSQL is the server of
//! `LORE_TEST_POSTGRES_URL`; without one it is skipped. Nothing here asserts a speed.

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use lore_backend_memory::MemoryStore;
use lore_backend_postgres::PostgresStore;
use lore_backend_sqlite::SqliteStore;
use lore_conformance::postgres::TestDatabase;
use lore_core::ObjectId;
use lore_core::model::{Edge, EdgeKind, LineageBounds};
use lore_core::store::Op;
use lore_core::store::prelude::*;
use sqlx::{Connection, PgConnection, Row};

type BenchResult<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

const LAYERS: i64 = 10;
const FEEDS: i64 = 5;
const MODEL: i64 = 7;
const BOUNDS: LineageBounds = LineageBounds {
    depth: 5,
    fan_out: 100,
    limit: 10_000,
};

fn main() -> BenchResult<()> {
    let edges: i64 = std::env::var("LORE_BENCH_EDGES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1_000_000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run(edges))
}

/// The objects of one layer.
fn layer_size(edges: i64) -> i64 {
    (edges / ((LAYERS - 1) * FEEDS)).max(1)
}

fn node(layer: i64, index: i64, size: i64) -> ObjectId {
    ObjectId::new(MODEL, layer * size + index + 1)
}

/// Every edge: object `j` of layer `l` feeds five objects of layer `l + 1`, spread by a
/// multiplicative hash so that walks fan out instead of running in parallel lines.
fn graph(edges: i64) -> Vec<Edge> {
    let size = layer_size(edges);
    let mut all = Vec::with_capacity(((LAYERS - 1) * size * FEEDS) as usize);
    for layer in 0..LAYERS - 1 {
        for j in 0..size {
            for k in 0..FEEDS {
                let target = (j * 7 + k * 7919 + (j * k) % 13) % size;
                all.push(Edge {
                    kind: EdgeKind::Lineage,
                    source: node(layer, j, size),
                    target: node(layer + 1, target, size),
                    name: format!("INSERT INTO t{} SELECT ... /* step {k} */", layer + 1),
                    origin: None,
                });
            }
        }
    }
    all.sort();
    all.dedup();
    all
}

/// The starting objects: (object, downstream).
fn starts(edges: i64) -> Vec<(ObjectId, bool)> {
    let size = layer_size(edges);
    (0..20)
        .map(|i| (node(0, (i * 997) % size, size), true))
        .chain((0..20).map(|i| (node(LAYERS - 1, (i * 991) % size, size), false)))
        .collect()
}

async fn load(store: &dyn Store, edges: &[Edge]) -> BenchResult<Duration> {
    let start = Instant::now();
    let mut tx = store.begin(lore_core::model::Author::system()).await?;
    tx.expect_new_rows();
    for chunk in edges.chunks(20_000) {
        tx.write(chunk.iter().cloned().map(Op::AddEdge).collect())
            .await?;
    }
    tx.commit().await?;
    Ok(start.elapsed())
}

struct Figures {
    median: Duration,
    slowest: Duration,
    edges: usize,
}

fn figures(mut times: Vec<Duration>, edges: usize) -> Figures {
    times.sort();
    Figures {
        median: times[times.len() / 2],
        slowest: times[times.len() - 1],
        edges,
    }
}

async fn lore_walks(store: &dyn Store, starts: &[(ObjectId, bool)]) -> BenchResult<Figures> {
    // One untimed round warms the caches.
    for &(start, downstream) in starts {
        store.lineage(start, downstream, BOUNDS).await?;
    }
    let mut times = Vec::new();
    let mut found = 0;
    for &(start, downstream) in starts {
        let t = Instant::now();
        let walk = store.lineage(start, downstream, BOUNDS).await?;
        times.push(t.elapsed());
        found += walk.edges.len();
    }
    Ok(figures(times, found / starts.len()))
}

/// The hand-written walk: breadth first, one query of an object's first `fan_out` edges
/// per object and depth, the way `Store::lineage` defines it.
async fn by_hand<F, Fut>(
    starts: &[(ObjectId, bool)],
    mut edges_of: F,
) -> BenchResult<(Figures, Figures)>
where
    F: FnMut(ObjectId, bool) -> Fut,
    Fut: std::future::Future<Output = BenchResult<Vec<ObjectId>>>,
{
    let mut walks = Vec::new();
    let mut single = Vec::new();
    let mut found = 0;
    for round in 0..2 {
        for &(start, downstream) in starts {
            let t = Instant::now();
            let mut level = BTreeSet::from([start]);
            let mut seen_edges = 0;
            for _ in 0..BOUNDS.depth {
                let mut next = BTreeSet::new();
                for object in &level {
                    let far = edges_of(*object, downstream).await?;
                    seen_edges += far.len();
                    next.extend(far);
                }
                level = next;
            }
            let elapsed = t.elapsed();
            let t = Instant::now();
            edges_of(start, downstream).await?;
            if round == 1 {
                walks.push(elapsed);
                single.push(t.elapsed());
                found += seen_edges;
            }
        }
    }
    let n = starts.len();
    Ok((figures(walks, found / n), figures(single, FEEDS as usize)))
}

fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1000.0)
}

fn line(backend: &str, load: Duration, lore: &Figures, hand: &Figures, single: &Figures) {
    println!(
        "| {backend} | {:.1} s | {} / {} | {} / {} | {:.0}% | {} | {} / {} |",
        load.as_secs_f64(),
        ms(lore.median),
        ms(lore.slowest),
        ms(hand.median),
        ms(hand.slowest),
        100.0 * lore.median.as_secs_f64() / hand.median.as_secs_f64(),
        lore.edges,
        ms(single.median),
        ms(single.slowest),
    );
}

async fn run(count: i64) -> BenchResult<()> {
    let edges = graph(count);
    let starts = starts(count);
    println!(
        "lineage walks over {} edges, depth {}, fan-out {}, limit {}",
        edges.len(),
        BOUNDS.depth,
        BOUNDS.fan_out,
        BOUNDS.limit
    );
    println!(
        "| backend | load | Lore walk (median / slowest) | hand-written walk (median / slowest) | Lore / hand | edges per walk | one SELECT (median / slowest) |"
    );
    println!("|---|--:|--:|--:|--:|--:|--:|");

    // Memory: the reference walk; its "by hand" walk reads the store's edges.
    let memory = MemoryStore::new();
    let loaded = load(&memory, &edges).await?;
    let lore = lore_walks(&memory, &starts).await?;
    let (hand, single) = by_hand(&starts, |object, downstream| {
        let memory = &memory;
        async move {
            Ok(memory
                .edges(EdgeKind::Lineage, object, !downstream)
                .await?
                .into_iter()
                .take(BOUNDS.fan_out as usize)
                .map(|e| if downstream { e.target } else { e.source })
                .collect())
        }
    })
    .await?;
    line("memory", loaded, &lore, &hand, &single);
    drop(memory);

    // SQLite: the hand-written walk on a second connection to the same file.
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("lineage.db");
    let sqlite = SqliteStore::open(&path).await?;
    let loaded = load(&sqlite, &edges).await?;
    let lore = lore_walks(&sqlite, &starts).await?;
    let conn = std::sync::Mutex::new(rusqlite::Connection::open(&path)?);
    let (hand, single) = by_hand(&starts, |object, downstream| {
        let conn = &conn;
        async move {
            let sql = if downstream {
                "SELECT target_model, target_object FROM edges WHERE source_model = ?1 AND source_object = ?2 \
                 AND kind = 'lineage' ORDER BY target_model, target_object, name LIMIT ?3"
            } else {
                "SELECT source_model, source_object FROM edges WHERE target_model = ?1 AND target_object = ?2 \
                 AND kind = 'lineage' ORDER BY source_model, source_object, name LIMIT ?3"
            };
            let conn = conn.lock().map_err(|_| "a poisoned connection")?;
            let mut statement = conn.prepare_cached(sql)?;
            let rows = statement
                .query_map((object.model, object.object, BOUNDS.fan_out), |row| {
                    Ok(ObjectId::new(row.get(0)?, row.get(1)?))
                })?
                .collect::<Result<Vec<_>, _>>()?;
            Ok(rows)
        }
    })
    .await?;
    line("SQLite", loaded, &lore, &hand, &single);
    drop(sqlite);

    // PostgreSQL.
    let Some(database) = TestDatabase::create().await else {
        println!("(PostgreSQL skipped: not reachable)");
        return Ok(());
    };
    let postgres = PostgresStore::open(&database.url).await?;
    let loaded = load(&postgres, &edges).await?;
    let lore = lore_walks(&postgres, &starts).await?;
    let conn = tokio::sync::Mutex::new(PgConnection::connect(&database.url).await?);
    let (hand, single) = by_hand(&starts, |object, downstream| {
        let conn = &conn;
        async move {
            let sql = if downstream {
                "SELECT target_model, target_object FROM edges WHERE source_model = $1 AND source_object = $2 \
                 AND kind = 'lineage' ORDER BY target_model, target_object, name LIMIT $3"
            } else {
                "SELECT source_model, source_object FROM edges WHERE target_model = $1 AND target_object = $2 \
                 AND kind = 'lineage' ORDER BY source_model, source_object, name LIMIT $3"
            };
            let mut conn = conn.lock().await;
            let rows = sqlx::query(sql)
                .bind(object.model)
                .bind(object.object)
                .bind(i64::from(BOUNDS.fan_out))
                .fetch_all(&mut *conn)
                .await?;
            rows.iter()
                .map(|row| Ok(ObjectId::new(row.try_get(0)?, row.try_get(1)?)))
                .collect()
        }
    })
    .await?;
    line("PostgreSQL", loaded, &lore, &hand, &single);
    postgres.driver().close().await;
    drop(database);
    Ok(())
}
