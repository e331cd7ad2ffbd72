//! How fast the real server imports a large model over HTTP, and how much memory it takes
//! to do so, against hand-written SQL writing the same rows in the same run; then how long
//! re-importing the same archive takes, unchanged and with 1% of its objects edited.
//!
//! ```text
//! cargo bench -p lore-server --bench http_import
//! ```
//!
//! For each size of `LORE_BENCH_SIZES` (default `100000,1000000` objects), the synthetic
//! model (`conformance-tests/benches/common/model.rs`, the model of the import bench) is
//! streamed to a zip file on disk, once as it is and once with every 100th object's
//! description edited. Then, for SQLite (a file in a temporary directory) and PostgreSQL
//! (a fresh database on `LORE_TEST_POSTGRES_URL`, dropped afterwards; skipped when
//! unreachable), a fresh `lore serve` child process of this build:
//!
//! - imports the archive as a new model with `POST /repository/model/import` (the zip as
//!   the raw body, streamed from disk): wall time from the first byte sent to the answer,
//!   objects/s, and the server's peak resident memory during the import (`VmHWM` of
//!   `/proc/<pid>/status`, reset before each import through `/proc/<pid>/clear_refs`, and
//!   the largest `VmRSS` sampled every 50 ms);
//! - re-imports the same archive into that model (`modelId`), then the edited one,
//!   printing the answer's `added`/`updated`/`removed`/`unchanged` counts where it has
//!   them;
//! - then re-imports the plain and the edited archive in turn, `LORE_BENCH_REIMPORTS`
//!   times (default 10), each changing 1% of the objects, and prints the database's size
//!   after the first import and after them all, with the rows its history keeps
//!   (`docs/history.md`): SQLite's file with its WAL, PostgreSQL's
//!   `pg_database_size` after a `VACUUM` (what a live database settles at);
//! - then compares versions of the model (`GET /history/models/{id}/compare`, 5 runs
//!   each, the median): the first import against the edited re-import (1% of the
//!   objects changed), and the first import against the last re-import (the same 1%,
//!   changed back and forth in between); the versions listing is the floor it is set
//!   against (a request of the same server reading one small table).
//!
//! - on a fresh server over a fresh database (SQLite file, PostgreSQL database), imports
//!   the same archive as a new model through the plugin path: the
//!   fixture plugin `lore-plugin-archive-reader` (built here with `cargo build --release`)
//!   reads the archive in a plugin host and sends its rows as records, which Lore lands
//!   like an upload (`PUT /repository/importModel`, the archive attached, then
//!   `POST /operations/startImport`): wall time from startImport to the operation's end,
//!   Lore's peak memory as above and the plugin host's largest VmRSS sampled every 50 ms.
//!
//! With the server stopped, the SQL baseline of the import bench writes the same rows in
//! one transaction into a fresh database of Lore's schema (SQLite: prepared `INSERT`s;
//! PostgreSQL: one `UNNEST` insert per table), starting from the model in memory; building
//! the rows is timed, generating the model is not. Nothing here asserts a speed.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use lore_backend_postgres::PostgresStore;
use lore_backend_sqlite::SqliteStore;
use lore_core::ObjectId;
use sqlx::{Connection, PgConnection};

#[path = "support/archive.rs"]
mod archive;
#[path = "../../conformance-tests/benches/common/baseline.rs"]
mod baseline;
#[path = "../../conformance-tests/benches/common/model.rs"]
mod model;
#[path = "../../conformance-tests/src/postgres.rs"]
#[allow(
    unused_imports,
    dead_code,
    reason = "its unit tests and the rest of it are for lore-conformance"
)]
mod postgres;
#[path = "support/server.rs"]
mod server;

use archive::{ArchiveFile, write_archive};
use postgres::TestDatabase;
use server::{BenchResult, LoreServer, Storage, env_list, mb, vm_kib};

fn main() -> BenchResult<()> {
    let sizes = env_list("LORE_BENCH_SIZES", &[100_000, 1_000_000])?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run(&sizes))
}

/// One import through HTTP.
#[derive(Debug)]
struct Import {
    wall: Duration,
    /// The `result` of the answer.
    result: serde_json::Value,
    /// VmHWM after the import, in KiB: the peak since the reset before it (or since the
    /// server started, when the reset failed).
    peak_kib: Option<u64>,
    /// The largest VmRSS sampled during the import, in KiB.
    sampled_kib: Option<u64>,
    /// Whether VmHWM was reset before the import.
    reset: bool,
}

/// One import through the plugin path.
#[derive(Debug)]
struct PluginImport {
    /// Attaching the archive to the model.
    attach: Duration,
    /// From startImport to the operation's end.
    wall: Duration,
    /// Of `wall`, the plugin's part: from the operation's first log line to the plugin
    /// host's end (the rest lands the archive it wrote).
    produce: Duration,
    lore_peak_kib: Option<u64>,
    host_sampled_kib: Option<u64>,
}

/// The figures of one backend and size.
#[derive(Debug)]
struct Line {
    backend: &'static str,
    objects: usize,
    rows: usize,
    zip_bytes: u64,
    fresh: Import,
    unchanged: Import,
    edited: Import,
    plugin: PluginImport,
    baseline: Duration,
    history: HistoryGrowth,
}

/// What the alternating re-imports cost and kept.
#[derive(Debug)]
struct HistoryGrowth {
    reimports: usize,
    /// Their mean wall time.
    mean: Duration,
    /// The database's size right after the first import and after every re-import.
    size_fresh: u64,
    size_after: u64,
    /// Rows of the `_history` tables after every re-import.
    kept_rows: u64,
    /// Compares: the first version against the second (1% changed), against the last;
    /// the versions listing as the floor; and the objects the first compare found.
    compare_one: Duration,
    compare_all: Duration,
    versions_floor: Duration,
    compared_objects: u64,
}

async fn run(sizes: &[usize]) -> BenchResult<()> {
    let started = Instant::now();
    println!("Lore HTTP import benchmark");
    let plugin = build_plugin()?;
    let mut lines = Vec::new();
    let mut postgres_reachable = true;
    for &n in sizes {
        let dir = tempfile::tempdir()?;
        let clock = Instant::now();
        let archive = write_archive(&dir.path().join("model.zip"), n, false)?;
        let edited = write_archive(&dir.path().join("edited.zip"), n, true)?;
        println!(
            "{n} objects: {} attribute values, {} relationships, {} tags ({} rows); \
             archive {:.2} MB, edited archive {:.2} MB, both written in {:.1} s",
            archive.attributes,
            archive.relationships,
            archive.tags,
            archive.rows(),
            archive.bytes as f64 / 1e6,
            edited.bytes as f64 / 1e6,
            clock.elapsed().as_secs_f64()
        );

        let sqlite_dir = tempfile::tempdir()?;
        let storage = Storage::Sqlite(sqlite_dir.path().join("lore.db"));
        lines.push(bench(&storage, sqlite_dir.path(), &archive, &edited, &plugin).await?);
        drop(sqlite_dir);

        if postgres_reachable {
            match TestDatabase::create().await {
                Some(database) => {
                    let storage = Storage::Postgres(database.url.clone());
                    lines.push(bench(&storage, dir.path(), &archive, &edited, &plugin).await?);
                    drop(database);
                }
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

/// Imports and re-imports on a fresh server over `storage`, then runs the baseline.
async fn bench(
    storage: &Storage,
    dir: &Path,
    archive: &ArchiveFile,
    edited: &ArchiveFile,
    plugin: &Path,
) -> BenchResult<Line> {
    let backend = storage.backend();
    let n = archive.objects;
    // The server's working directory: its lore.toml configures the plugin.
    std::fs::write(
        dir.join("lore.toml"),
        format!("[[plugins]]\npath = \"{}\"\n", plugin.display()),
    )?;
    eprintln!("{backend} {n}: starting lore serve ...");
    let server = LoreServer::start(storage, dir)?;
    let key = server::login(server.addr).await?;

    eprintln!("{backend} {n}: import ...");
    let fresh = import(&server, &key, &archive.path, None).await?;
    let model_id = fresh.result["modelId"]
        .as_str()
        .ok_or("the import answered no modelId")?
        .to_owned();
    let objects = fresh.result["objectCount"].as_u64();
    if objects != Some(n as u64) {
        return Err(format!("the import answered objectCount {objects:?}, not {n}").into());
    }
    eprintln!("{}", imported_line(&server));
    let size_fresh = database_size(storage).await?;
    eprintln!("{backend} {n}: re-import, unchanged ...");
    let unchanged = import(&server, &key, &archive.path, Some(&model_id)).await?;
    eprintln!("{}", imported_line(&server));
    eprintln!("{backend} {n}: re-import, 1% edited ...");
    let edited_import = import(&server, &key, &edited.path, Some(&model_id)).await?;
    eprintln!("{}", imported_line(&server));
    let history = history_growth(storage, &server, &key, &model_id, [archive, edited]).await?;
    let history = HistoryGrowth {
        size_fresh,
        ..history
    };
    let edited = edited_import;
    // A fresh server on a fresh database, as for the first import: time and memory are
    // comparable (a database already holding the model would make every insert dearer).
    drop(server);
    let (fresh_storage, _database) = match storage {
        Storage::Sqlite(_) => (Storage::Sqlite(dir.join("plugin.db")), None),
        Storage::Postgres(_) => {
            let database = TestDatabase::create().await.ok_or("PostgreSQL went away")?;
            (Storage::Postgres(database.url.clone()), Some(database))
        }
    };
    let server = LoreServer::start(&fresh_storage, dir)?;
    let key = server::login(server.addr).await?;
    eprintln!("{backend} {n}: import through the plugin ...");
    let plugin = plugin_import(&server, &key, &archive.path, n)
        .await
        .map_err(|e| format!("{e}\nthe server's log:\n{}", server.log_tail()))?;
    eprintln!("{}", imported_line(&server));
    drop(server);

    eprintln!("{backend} {n}: SQL baseline ...");
    let model: ObjectId = model_id.parse()?;
    let baseline = baseline(storage, n, model.content_model()).await?;
    Ok(Line {
        backend,
        objects: n,
        rows: archive.rows(),
        zip_bytes: archive.bytes,
        fresh,
        unchanged,
        edited,
        plugin,
        baseline,
        history,
    })
}

/// Re-imports the plain and the edited archive in turn into the model (which holds the
/// edited one), each changing 1% of its objects back or forth, and measures what the
/// database keeps after them: with the edited re-import before them, `reimports + 1`
/// changes of 1% since the first import.
async fn history_growth(
    storage: &Storage,
    server: &LoreServer,
    key: &str,
    model_id: &str,
    [plain, edited]: [&ArchiveFile; 2],
) -> BenchResult<HistoryGrowth> {
    let reimports = env_list("LORE_BENCH_REIMPORTS", &[10])?
        .first()
        .copied()
        .unwrap_or(10);
    let mut total = Duration::ZERO;
    for i in 0..reimports {
        let archive = if i % 2 == 0 { plain } else { edited };
        let n = archive.objects;
        eprintln!(
            "{} {n}: re-import {} of {reimports}, 1% changed ...",
            storage.backend(),
            i + 1
        );
        let done = import(server, key, &archive.path, Some(model_id)).await?;
        total += done.wall;
    }
    let size_after = database_size(storage).await?;
    let kept_rows = history_rows(storage).await?;
    eprintln!("{} {}: compares ...", storage.backend(), plain.objects);
    let path = format!("/history/models/{model_id}/versions");
    let (versions_floor, listed) = median_call(server, key, &path).await?;
    let versions = listed["versions"]
        .as_array()
        .ok_or("the versions listing holds no versions")?;
    let id = |at: usize| -> BenchResult<String> {
        Ok(versions
            .get(at)
            .and_then(|v| v["id"].as_str())
            .ok_or("too few versions")?
            .to_owned())
    };
    // Newest first: the first import is the last listed.
    let n = versions.len();
    if n < 2 {
        return Err(format!("the model has {n} versions, not the two a compare needs").into());
    }
    let (first, second, last) = (id(n - 1)?, id(n - 2)?, id(0)?);
    let compare =
        |to: &str| format!("/history/models/{model_id}/compare?from={first}&to={to}&limit=10");
    let (compare_one, found) = median_call(server, key, &compare(&second)).await?;
    let (compare_all, _) = median_call(server, key, &compare(&last)).await?;
    let counts = &found["counts"];
    let compared_objects = ["added", "removed", "changed", "moved"]
        .iter()
        .map(|c| counts[c].as_u64().unwrap_or(0))
        .sum();
    Ok(HistoryGrowth {
        reimports,
        mean: total / reimports.max(1) as u32,
        size_fresh: 0,
        size_after,
        kept_rows,
        compare_one,
        compare_all,
        versions_floor,
        compared_objects,
    })
}

/// The median wall time of 5 GETs of `path`, and the last answer's `result`.
async fn median_call(
    server: &LoreServer,
    key: &str,
    path: &str,
) -> BenchResult<(Duration, serde_json::Value)> {
    let mut times = Vec::new();
    let mut answer = serde_json::Value::Null;
    for _ in 0..5 {
        let clock = Instant::now();
        answer = server::json_call(server.addr, key, "GET", path, None).await?;
        times.push(clock.elapsed());
    }
    times.sort();
    Ok((times[times.len() / 2], answer))
}

/// The tables the history keeps (migration 34).
const HISTORY_TABLES: [&str; 6] = [
    "objects_history",
    "attribute_values_history",
    "edges_history",
    "tags_history",
    "classifications_history",
    "label_assignments_history",
];

/// The database's size on disk: SQLite's file and its WAL after a checkpoint;
/// PostgreSQL's database after a `VACUUM`.
async fn database_size(storage: &Storage) -> BenchResult<u64> {
    match storage {
        Storage::Sqlite(path) => {
            let conn = rusqlite::Connection::open(path)?;
            conn.query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
            drop(conn);
            let wal = path.with_extension("db-wal");
            let size = |p: &Path| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0);
            Ok(size(path) + size(&wal))
        }
        Storage::Postgres(url) => {
            let mut conn = PgConnection::connect(url).await?;
            sqlx::raw_sql("VACUUM").execute(&mut conn).await?;
            let size: i64 = sqlx::query_scalar("SELECT pg_database_size(current_database())")
                .fetch_one(&mut conn)
                .await?;
            Ok(size as u64)
        }
    }
}

/// The rows the history tables hold.
async fn history_rows(storage: &Storage) -> BenchResult<u64> {
    let sql = HISTORY_TABLES
        .map(|t| format!("(SELECT COUNT(*) FROM {t})"))
        .join(" + ");
    let sql = format!("SELECT {sql}");
    match storage {
        Storage::Sqlite(path) => {
            let conn = rusqlite::Connection::open(path)?;
            let rows: i64 = conn.query_row(&sql, [], |r| r.get(0))?;
            Ok(rows as u64)
        }
        Storage::Postgres(url) => {
            let mut conn = PgConnection::connect(url).await?;
            let rows: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                .fetch_one(&mut conn)
                .await?;
            Ok(rows as u64)
        }
    }
}

/// The server's last `model imported` (or `re-imported unchanged`) log line: where an
/// import's time went.
fn imported_line(server: &LoreServer) -> String {
    server
        .log_tail()
        .lines()
        .rev()
        .find(|l| l.contains("model imported") || l.contains("model re-imported unchanged"))
        .unwrap_or("(no 'model imported' line)")
        .to_owned()
}

/// Builds the archive-reader plugin in release; answers its library.
fn build_plugin() -> BenchResult<std::path::PathBuf> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| env!("CARGO").to_owned());
    let output = std::process::Command::new(cargo)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "build",
            "--release",
            "-p",
            "lore-plugin-archive-reader",
            "--message-format=json-render-diagnostics",
        ])
        .output()?;
    if !output.status.success() {
        return Err(format!(
            "building the plugin failed: {}",
            String::from_utf8_lossy(&output.stderr)
        )
        .into());
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|m| {
            m["reason"] == "compiler-artifact"
                && m["target"]["name"] == "lore_plugin_archive_reader"
        })
        .flat_map(|m| m["filenames"].as_array().cloned().unwrap_or_default())
        .filter_map(|f| f.as_str().map(std::path::PathBuf::from))
        .find(|f| f.to_string_lossy().ends_with(std::env::consts::DLL_SUFFIX))
        .ok_or_else(|| "the build produced no plugin library".into())
}

/// A new model imported from the archive through the plugin path.
async fn plugin_import(
    server: &LoreServer,
    key: &str,
    archive: &Path,
    n: usize,
) -> BenchResult<PluginImport> {
    let addr = server.addr;
    let settings = server::json_call(
        addr,
        key,
        "PUT",
        "/repository/importModel",
        Some(serde_json::json!({"modelName": format!("plugin-{n}"), "format": "lore-csv-zip-plugin"})),
    )
    .await?;
    let model = settings["modelId"]
        .as_str()
        .ok_or("importModel answered no modelId")?
        .to_owned();
    let clock = Instant::now();
    server::attach(addr, key, &model, "model.zip", archive).await?;
    let attach = clock.elapsed();

    let pid = server.pid();
    let _ = std::fs::write(format!("/proc/{pid}/clear_refs"), "5");
    let host = Sampler::start_children(pid);
    let clock = Instant::now();
    let id = server::json_call(
        addr,
        key,
        "POST",
        &format!("/operations/startImport/{model}"),
        Some(serde_json::json!({})),
    )
    .await?;
    let operation = loop {
        let listed = server::json_call(
            addr,
            key,
            "GET",
            &format!("/operations/listOperations?modelId={model}"),
            None,
        )
        .await?;
        let operation = listed
            .as_array()
            .and_then(|all| all.iter().find(|o| o["id"] == id).cloned())
            .ok_or("the operation is not listed")?;
        if operation["state"] != "RUNNING" {
            break operation;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let wall = clock.elapsed();
    let host_sampled_kib = host.stop();
    if operation["state"] != "SUCCEEDED" || operation["result"]["objectCount"] != n {
        return Err(format!("the plugin import did not succeed: {operation}").into());
    }
    let log = server::json_call(
        addr,
        key,
        "POST",
        &format!("/operations/downloadOperationLog/{id}"),
        None,
    )
    .await?;
    let at = |line: &serde_json::Value| {
        line["at"]
            .as_str()
            .and_then(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
    };
    let lines = log["lines"].as_array().cloned().unwrap_or_default();
    let first = lines.first().and_then(at);
    let sent = lines
        .iter()
        .find(|l| {
            l["message"]
                .as_str()
                .is_some_and(|m| m.contains("objects in"))
        })
        .and_then(at);
    let produce = match (first, sent) {
        (Some(first), Some(sent)) => (sent - first).to_std().unwrap_or_default(),
        _ => Duration::ZERO,
    };
    Ok(PluginImport {
        attach,
        wall,
        produce,
        lore_peak_kib: vm_kib(pid, "VmHWM"),
        host_sampled_kib,
    })
}

/// One timed `POST /repository/model/import`, with the server's memory watched.
async fn import(
    server: &LoreServer,
    key: &str,
    archive: &Path,
    model_id: Option<&str>,
) -> BenchResult<Import> {
    let pid = server.pid();
    // Writing 5 to clear_refs resets the peak resident set size (VmHWM).
    let reset = std::fs::write(format!("/proc/{pid}/clear_refs"), "5").is_ok();
    let sampler = Sampler::start(pid);
    let clock = Instant::now();
    let into = model_id.map_or(server::ImportInto::New, server::ImportInto::Model);
    let result = server::import(server.addr, key, archive, into).await;
    let wall = clock.elapsed();
    let sampled_kib = sampler.stop();
    let result = result.map_err(|e| format!("{e}\nthe server's log:\n{}", server.log_tail()))?;
    Ok(Import {
        wall,
        result,
        peak_kib: vm_kib(pid, "VmHWM"),
        sampled_kib,
        reset,
    })
}

/// Samples a process's VmRSS every 50 ms on a thread of its own, keeping the largest.
#[derive(Debug)]
struct Sampler {
    stop: Arc<AtomicBool>,
    thread: JoinHandle<Option<u64>>,
}

impl Sampler {
    fn start(pid: u32) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut max = None;
            loop {
                max = max.max(vm_kib(pid, "VmRSS"));
                if flag.load(Ordering::Relaxed) {
                    return max;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        Sampler { stop, thread }
    }

    /// Samples the summed VmRSS of the children of `parent` (its plugin hosts).
    fn start_children(parent: u32) -> Sampler {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut max = None;
            loop {
                let sum: u64 = children(parent)
                    .into_iter()
                    .filter_map(|pid| vm_kib(pid, "VmRSS"))
                    .sum();
                if sum > 0 {
                    max = max.max(Some(sum));
                }
                if flag.load(Ordering::Relaxed) {
                    return max;
                }
                std::thread::sleep(Duration::from_millis(50));
            }
        });
        Sampler { stop, thread }
    }

    fn stop(self) -> Option<u64> {
        self.stop.store(true, Ordering::Relaxed);
        self.thread.join().ok().flatten()
    }
}

/// The processes whose parent is `parent`.
fn children(parent: u32) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
                // pid (comm) state ppid ...: the comm may hold spaces, so after the ')'.
                stat.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse::<u32>().ok())
                    == Some(parent)
            })
        })
        .collect()
}

/// The hand-written SQL baseline: the same rows written in one transaction into a fresh
/// database of Lore's schema, as model `model`.
async fn baseline(storage: &Storage, n: usize, model: i64) -> BenchResult<Duration> {
    let archive = model::synthetic_archive(n);
    // Who the rows say updated them; no row refers to a user's row.
    let user = ObjectId::repository(1);
    match storage {
        Storage::Sqlite(_) => {
            let dir = tempfile::tempdir()?;
            let path = dir.path().join("baseline.db");
            drop(SqliteStore::open(&path).await?);
            let mut conn = rusqlite::Connection::open(&path)?;
            conn.pragma_update(None, "synchronous", "NORMAL")?;
            let clock = Instant::now();
            let rows = baseline::baseline_rows(&archive, model, user)?;
            baseline::sqlite_insert(&mut conn, &rows)?;
            Ok(clock.elapsed())
        }
        Storage::Postgres(_) => {
            let database = TestDatabase::create().await.ok_or("PostgreSQL went away")?;
            PostgresStore::open(&database.url)
                .await?
                .driver()
                .close()
                .await;
            let mut conn = PgConnection::connect(&database.url).await?;
            let clock = Instant::now();
            let rows = baseline::baseline_rows(&archive, model, user)?;
            baseline::postgres_insert(&mut conn, &rows).await?;
            let elapsed = clock.elapsed();
            conn.close().await?;
            Ok(elapsed)
        }
    }
}

fn secs(d: Duration) -> String {
    format!("{:.2} s", d.as_secs_f64())
}

/// The diff counts of a re-import's answer, where it has them: members of the result, or
/// of one object in it.
fn counts(result: &serde_json::Value) -> String {
    let keys = ["added", "updated", "removed", "unchanged"];
    let of = |v: &serde_json::Value| -> Option<String> {
        let found: Option<Vec<String>> = keys
            .iter()
            .map(|k| v[*k].as_u64().map(|n| n.to_string()))
            .collect();
        found.map(|f| f.join("/"))
    };
    of(result)
        .or_else(|| result.as_object()?.values().find_map(of))
        .unwrap_or_else(|| "-".to_owned())
}

/// The peak memory of an import, starred when VmHWM could not be reset before it.
fn peak(import: &Import) -> String {
    let star = if import.reset { "" } else { "*" };
    format!("{}{star}", mb(import.peak_kib))
}

fn print_tables(lines: &[Line]) {
    println!("Import of a new model through HTTP:");
    println!();
    println!(
        "| backend  | objects |     rows |      zip | Lore import | objects/s | SQL baseline | objects/s | Lore/SQL rate | peak RSS | max sampled RSS | target: ≥70% of SQL, < 300 MB |"
    );
    println!(
        "|----------|--------:|---------:|---------:|------------:|----------:|-------------:|----------:|--------------:|---------:|----------------:|-------------------------------|"
    );
    for l in lines {
        let share = l.baseline.as_secs_f64() / l.fresh.wall.as_secs_f64();
        let under = l.fresh.peak_kib.is_some_and(|k| k * 1024 < 300_000_000);
        println!(
            "| {:<8} | {:>7} | {:>8} | {:>5.2} MB | {:>11} | {:>9.0} | {:>12} | {:>9.0} | {:>12.0}% | {:>8} | {:>15} | {:<29} |",
            l.backend,
            l.objects,
            l.rows,
            l.zip_bytes as f64 / 1e6,
            secs(l.fresh.wall),
            l.objects as f64 / l.fresh.wall.as_secs_f64(),
            secs(l.baseline),
            l.objects as f64 / l.baseline.as_secs_f64(),
            share * 100.0,
            peak(&l.fresh),
            mb(l.fresh.sampled_kib),
            if share >= 0.7 && under {
                "met"
            } else {
                "missed"
            },
        );
    }
    println!();
    println!(
        "Import of a new model through a plugin (the same archive, read by a plugin in a plugin host):"
    );
    println!();
    println!(
        "| backend  | objects | built-in import | plugin import | of it, plugin | objects/s | plugin/built-in | SQL baseline | attach | built-in peak RSS | Lore peak RSS | plugin host max RSS | target: within 20% of built-in |"
    );
    println!(
        "|----------|--------:|----------------:|--------------:|--------------:|----------:|----------------:|-------------:|-------:|------------------:|--------------:|--------------------:|--------------------------------|"
    );
    for l in lines {
        let ratio = l.plugin.wall.as_secs_f64() / l.fresh.wall.as_secs_f64();
        println!(
            "| {:<8} | {:>7} | {:>15} | {:>13} | {:>13} | {:>9.0} | {:>14.0}% | {:>12} | {:>6} | {:>17} | {:>13} | {:>19} | {:<30} |",
            l.backend,
            l.objects,
            secs(l.fresh.wall),
            secs(l.plugin.wall),
            secs(l.plugin.produce),
            l.objects as f64 / l.plugin.wall.as_secs_f64(),
            ratio * 100.0,
            secs(l.baseline),
            secs(l.plugin.attach),
            peak(&l.fresh),
            mb(l.plugin.lore_peak_kib),
            mb(l.plugin.host_sampled_kib),
            if ratio <= 1.2 { "met" } else { "missed" },
        );
    }
    println!();
    println!("Re-import into the same model (modelId), after the import above:");
    println!();
    println!(
        "| backend  | objects | new model | unchanged | added/updated/removed/unchanged | peak RSS | 1% edited | added/updated/removed/unchanged | peak RSS |"
    );
    println!(
        "|----------|--------:|----------:|----------:|---------------------------------|---------:|----------:|---------------------------------|---------:|"
    );
    for l in lines {
        println!(
            "| {:<8} | {:>7} | {:>9} | {:>9} | {:<31} | {:>8} | {:>9} | {:<31} | {:>8} |",
            l.backend,
            l.objects,
            secs(l.fresh.wall),
            secs(l.unchanged.wall),
            counts(&l.unchanged.result),
            peak(&l.unchanged),
            secs(l.edited.wall),
            counts(&l.edited.result),
            peak(&l.edited),
        );
    }
    println!();
    println!(
        "peak RSS: the server's VmHWM over the import (reset before it; * where the reset \
         failed and it counts from the server's start). Counts: '-' where the answer has none."
    );
    println!();
    println!(
        "History: the edited re-import above and re-imports of the plain and the edited \
         archive in turn after it, each changing 1% of the objects:"
    );
    println!();
    println!(
        "| backend  | objects | 1% changes | mean re-import | size after import | size after the changes | growth | rows kept | target: ≤ 1.3× |"
    );
    println!(
        "|----------|--------:|-----------:|---------------:|------------------:|----------------------:|-------:|----------:|----------------|"
    );
    for l in lines {
        let h = &l.history;
        let growth = h.size_after as f64 / h.size_fresh.max(1) as f64;
        println!(
            "| {:<8} | {:>7} | {:>10} | {:>14} | {:>14.1} MB | {:>18.1} MB | {:>5.2}× | {:>9} | {:<14} |",
            l.backend,
            l.objects,
            h.reimports + 1,
            secs(h.mean),
            h.size_fresh as f64 / 1e6,
            h.size_after as f64 / 1e6,
            growth,
            h.kept_rows,
            if growth <= 1.3 { "met" } else { "missed" },
        );
    }
    println!();
    println!(
        "Compare (GET /history/models/{{id}}/compare, median of 5): the first import against \
         the edited re-import, and against the last re-import; the versions listing as the floor:"
    );
    println!();
    println!(
        "| backend  | objects | objects that differ | first → second | first → last | versions listing | target: < 1 s |"
    );
    println!(
        "|----------|--------:|--------------------:|---------------:|-------------:|-----------------:|---------------|"
    );
    for l in lines {
        let h = &l.history;
        let worst = h.compare_one.max(h.compare_all);
        println!(
            "| {:<8} | {:>7} | {:>19} | {:>11.0} ms | {:>9.0} ms | {:>13.1} ms | {:<13} |",
            l.backend,
            l.objects,
            h.compared_objects,
            h.compare_one.as_secs_f64() * 1e3,
            h.compare_all.as_secs_f64() * 1e3,
            h.versions_floor.as_secs_f64() * 1e3,
            if worst < Duration::from_secs(1) {
                "met"
            } else {
                "missed"
            },
        );
    }
}
