//! Lineage reads at depth 20 over a graph that OpenLineage events made, through the
//! real server over HTTP, against the same server answering without its store (an
//! unknown path) in the same run.
//!
//! ```text
//! cargo bench -p lore-server --bench lineage_graph
//! ```
//!
//! For SQLite (a file in a temporary directory) and PostgreSQL (a fresh database on
//! `LORE_TEST_POSTGRES_URL`, dropped afterwards; skipped when unreachable), the bench
//! starts `lore serve` from this build as a child process and:
//!
//! 1. builds the graph by posting `LORE_BENCH_JOBS` (default 100,000) RunEvents to
//!    `/api/v1/lineage/batch` in batches of 1,000 on one connection: 20 layers of jobs;
//!    job `i` of layer `l` reads datasets `i` and `(7i + 1) mod w` of layer `l - 1` and
//!    writes dataset `i` of layer `l` (`w` = jobs / 20), each dataset with two columns
//!    and column lineage — so every event is mapped (objects, table and column edges);
//! 2. for `LORE_BENCH_SECONDS` (default 10) on `LORE_BENCH_CONNECTIONS` (default 2)
//!    keep-alive connections, asks `GET /lineage/getOperations/{id}` with `depth=20`:
//!    upstream from datasets of the last layer, downstream from the first, and both
//!    ways from the middle one (the default fan-out 100 and limit 1,000: the walk is cut
//!    by the limit, as a client's would be);
//! 3. the ceiling: the same requests to an unknown path.
//!
//! It prints the build's events per second, each read's p50, p99 and max, and the
//! server's resident memory. Nothing here asserts a speed. `LORE_BENCH_KEEP=1` keeps
//! the SQLite database (its directory is printed) to look into afterwards;
//! `LORE_BENCH_BACKENDS=postgres` (or `sqlite`) runs one backend.

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Empty, Full};
use hyper::header::{CONTENT_TYPE, HOST};
use hyper::{Request, StatusCode};

#[path = "../../conformance-tests/src/postgres.rs"]
#[allow(
    unused_imports,
    dead_code,
    reason = "its unit tests and the rest of it are for lore-conformance"
)]
mod postgres;
#[path = "support/server.rs"]
#[allow(dead_code, reason = "the import helpers are for the other benches")]
mod server;

use postgres::TestDatabase;
use server::{BenchResult, LoreServer, Storage, connect, env_list, mb, vm_kib};

const LAYERS: u64 = 20;
const BATCH: u64 = 1_000;
const NAMESPACE: &str = "postgres://bench-graph:5432";
const MODEL_PATH: &str = "/OpenLineage/bench-graph:5432 (postgres)/lake";

fn main() -> BenchResult<()> {
    let number = |name: &str, default: usize| -> BenchResult<usize> {
        Ok(env_list(name, &[default])?
            .first()
            .copied()
            .unwrap_or(default))
    };
    let jobs = number("LORE_BENCH_JOBS", 100_000)?.max(LAYERS as usize) as u64;
    let seconds = number("LORE_BENCH_SECONDS", 10)?.max(1) as u64;
    let connections = number("LORE_BENCH_CONNECTIONS", 2)?.max(1);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run(jobs, Duration::from_secs(seconds), connections))
}

/// The RunEvent of job `i` of layer `layer` (1-based).
fn event(layer: u64, i: u64, width: u64) -> String {
    let dataset = |l: u64, n: u64| format!("lake.layer{l:02}.d{n}");
    let (a, b) = (
        dataset(layer - 1, i),
        dataset(layer - 1, (7 * i + 1) % width),
    );
    let out = dataset(layer, i);
    let input = |name: &str| {
        format!(
            r#"{{"namespace":"{NAMESPACE}","name":"{name}","facets":{{"schema":{{"_producer":"https://example.com/lore-bench","_schemaURL":"https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet","fields":[{{"name":"id","type":"bigint"}},{{"name":"amount","type":"numeric"}}]}}}}}}"#
        )
    };
    let field = |from: &str, column: &str, subtype: &str| {
        format!(
            r#"{{"namespace":"{NAMESPACE}","name":"{from}","field":"{column}","transformations":[{{"type":"DIRECT","subtype":"{subtype}"}}]}}"#
        )
    };
    let lineage = format!(
        r#"{{"_producer":"https://example.com/lore-bench","_schemaURL":"https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet","fields":{{"id":{{"inputFields":[{}]}},"amount":{{"inputFields":[{},{}]}}}}}}"#,
        field(&a, "id", "IDENTITY"),
        field(&a, "amount", "AGGREGATION"),
        field(&b, "amount", "AGGREGATION"),
    );
    let output = format!(
        r#"{{"namespace":"{NAMESPACE}","name":"{out}","facets":{{"columnLineage":{lineage}}}}}"#
    );
    let run = layer * 1_000_000 + i;
    format!(
        r#"{{"eventType":"COMPLETE","eventTime":"2026-11-27T10:00:00Z","producer":"https://example.com/lore-bench","schemaURL":"https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent","run":{{"runId":"00000000-0000-4000-8000-{run:012x}","facets":{{}}}},"job":{{"namespace":"bench-graph","name":"job_{layer:02}_{i}"}},"inputs":[{},{}],"outputs":[{output}]}}"#,
        input(&a),
        input(&b),
    )
}

/// Posts every job's event; returns (events, elapsed, refused).
async fn build(
    addr: SocketAddr,
    key: &str,
    jobs: u64,
    pid: u32,
) -> BenchResult<(u64, Duration, u64)> {
    let width = jobs / LAYERS;
    let mut sender = connect::<Full<Bytes>>(addr).await?;
    let started = Instant::now();
    let mut events = Vec::with_capacity(BATCH as usize);
    let (mut posted, mut refused) = (0u64, 0u64);
    let all: Vec<(u64, u64)> = (1..=LAYERS)
        .flat_map(|l| (0..width).map(move |i| (l, i)))
        .collect();
    for chunk in all.chunks(BATCH as usize) {
        events.clear();
        events.extend(chunk.iter().map(|(l, i)| event(*l, *i, width)));
        let request = Request::post("/api/v1/lineage/batch")
            .header(HOST, addr.to_string())
            .header(hyper::header::AUTHORIZATION, format!("Bearer {key}"))
            .header(CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(format!("[{}]", events.join(",")))))?;
        let response = sender.send_request(request).await?;
        let status = response.status();
        let body = response.into_body().collect().await?.to_bytes();
        if status != StatusCode::OK {
            return Err(format!(
                "batch answered {status}: {}",
                String::from_utf8_lossy(&body)
            )
            .into());
        }
        refused += String::from_utf8_lossy(&body)
            .matches("\"refused\"")
            .count() as u64;
        posted += chunk.len() as u64;
        if posted % 10_000 == 0 {
            // Memory as the graph grows: flat but for the database's caches.
            println!(
                "  {posted} events, {:.0}/s, RSS {}",
                posted as f64 / started.elapsed().as_secs_f64(),
                mb(vm_kib(pid, "VmRSS"))
            );
        }
    }
    Ok((posted, started.elapsed(), refused))
}

/// A read: its name and the paths it cycles through.
struct Read {
    name: &'static str,
    paths: Vec<String>,
}

fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn reads(jobs: u64) -> Vec<Read> {
    let width = jobs / LAYERS;
    let picks: Vec<u64> = (0..50).map(|n| (n * 7919 + 13) % width).collect();
    let path = |layer: u64, i: u64, direction: &str| {
        format!(
            "/MM/rest/v1/lineage/getOperations/{}?direction={direction}&depth=20",
            encode(&format!("{MODEL_PATH}/layer{layer:02}/d{i}"))
        )
    };
    vec![
        Read {
            name: "ceiling: GET an unknown path",
            paths: picks
                .iter()
                .map(|i| format!("/MM/rest/v1/no-such-path/{i}"))
                .collect(),
        },
        Read {
            name: "upstream, depth 20, from the last layer",
            paths: picks.iter().map(|i| path(LAYERS, *i, "upstream")).collect(),
        },
        Read {
            name: "downstream, depth 20, from the first layer",
            paths: picks.iter().map(|i| path(0, *i, "downstream")).collect(),
        },
        Read {
            name: "both ways, depth 20, from the middle layer",
            paths: picks.iter().map(|i| path(LAYERS / 2, *i, "both")).collect(),
        },
    ]
}

struct Measured {
    requests: u64,
    errors: u64,
    operations: u64,
    latency: Histogram<u64>,
    elapsed: Duration,
}

async fn measure(
    addr: SocketAddr,
    key: &str,
    read: &Read,
    connections: usize,
    duration: Duration,
) -> BenchResult<Measured> {
    let deadline = Instant::now() + duration;
    let started = Instant::now();
    let mut tasks = Vec::new();
    for worker in 0..connections {
        let key = key.to_owned();
        let paths = read.paths.clone();
        let expect_found = !read.name.starts_with("ceiling");
        let mut sender = connect::<Empty<Bytes>>(addr).await?;
        tasks.push(tokio::spawn(async move {
            let mut latency = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)?;
            let (mut requests, mut errors, mut operations) = (0u64, 0u64, 0u64);
            let mut n = worker;
            while Instant::now() < deadline {
                let request = Request::get(paths[n % paths.len()].as_str())
                    .header(HOST, addr.to_string())
                    .header("api-key", &key)
                    .body(Empty::<Bytes>::new())?;
                n += 1;
                let sent = Instant::now();
                let response = sender.send_request(request).await?;
                let status = response.status();
                let body = response.into_body().collect().await?.to_bytes();
                latency.record(sent.elapsed().as_micros().max(1) as u64)?;
                requests += 1;
                let right = if expect_found {
                    status == StatusCode::OK
                } else {
                    status == StatusCode::NOT_FOUND
                };
                if !right {
                    errors += 1;
                } else if expect_found {
                    operations += memchr_count(&body, b"\"direction\"");
                }
            }
            BenchResult::Ok((latency, requests, errors, operations))
        }));
    }
    let mut measured = Measured {
        requests: 0,
        errors: 0,
        operations: 0,
        latency: Histogram::new_with_bounds(1, 60_000_000, 3)?,
        elapsed: Duration::ZERO,
    };
    for task in tasks {
        let (latency, requests, errors, operations) = task.await??;
        measured.latency.add(&latency)?;
        measured.requests += requests;
        measured.errors += errors;
        measured.operations += operations;
    }
    measured.elapsed = started.elapsed();
    Ok(measured)
}

fn memchr_count(haystack: &[u8], needle: &[u8]) -> u64 {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count() as u64
}

async fn bench(
    storage: &Storage,
    dir: &std::path::Path,
    jobs: u64,
    duration: Duration,
    connections: usize,
) -> BenchResult<()> {
    let backend = storage.backend();
    eprintln!("{backend}: starting lore serve ...");
    let server = LoreServer::start(storage, dir)?;
    let (addr, pid) = (server.addr, server.pid());
    let key = server::login(addr).await?;
    eprintln!("{backend}: building the graph of {jobs} jobs ...");
    let (events, elapsed, refused) = build(addr, &key, jobs, pid).await?;
    println!(
        "{backend}: built {events} jobs' events in {:.1} s ({:.0} events/s mapped), {refused} refused; RSS {}",
        elapsed.as_secs_f64(),
        events as f64 / elapsed.as_secs_f64(),
        mb(vm_kib(pid, "VmRSS")),
    );
    println!();
    println!(
        "| backend | read | requests | req/s | operations per answer | p50 ms | p99 ms | max ms | errors |"
    );
    println!("|---|---|--:|--:|--:|--:|--:|--:|--:|");
    for read in reads(jobs) {
        eprintln!("{backend}: {} for {} s ...", read.name, duration.as_secs());
        let m = measure(addr, &key, &read, connections, duration).await?;
        println!(
            "| {backend} | {} | {} | {:.0} | {:.0} | {:.2} | {:.2} | {:.2} | {} |",
            read.name,
            m.requests,
            m.requests as f64 / m.elapsed.as_secs_f64(),
            m.operations as f64 / m.requests.max(1) as f64,
            m.latency.value_at_quantile(0.5) as f64 / 1000.0,
            m.latency.value_at_quantile(0.99) as f64 / 1000.0,
            m.latency.max() as f64 / 1000.0,
            m.errors,
        );
    }
    println!(
        "{backend}: the server's resident memory after the reads {}, peak (VmHWM) {}",
        mb(vm_kib(pid, "VmRSS")),
        mb(vm_kib(pid, "VmHWM"))
    );
    if let Some(log) = Some(server.log_tail()).filter(|l| l.contains("ERROR")) {
        eprintln!("{backend}: the server logged errors:\n{log}");
    }
    Ok(())
}

async fn run(jobs: u64, duration: Duration, connections: usize) -> BenchResult<()> {
    let started = Instant::now();
    println!(
        "Lineage at depth 20 over {jobs} jobs in {LAYERS} layers: {connections} connections, {} s per read",
        duration.as_secs()
    );
    let backends =
        std::env::var("LORE_BENCH_BACKENDS").unwrap_or_else(|_| "sqlite,postgres".into());
    if backends.contains("sqlite") {
        let sqlite_dir = tempfile::tempdir()?;
        let storage = Storage::Sqlite(sqlite_dir.path().join("lore.db"));
        bench(&storage, sqlite_dir.path(), jobs, duration, connections).await?;
        if std::env::var_os("LORE_BENCH_KEEP").is_some() {
            println!(
                "sqlite: the database is kept in {}",
                sqlite_dir.keep().display()
            );
        }
    }
    if !backends.contains("postgres") {
        println!("total time {:.1} s", started.elapsed().as_secs_f64());
        return Ok(());
    }
    match TestDatabase::create().await {
        Some(database) => {
            let dir = tempfile::tempdir()?;
            let storage = Storage::Postgres(database.url.clone());
            bench(&storage, dir.path(), jobs, duration, connections).await?;
            drop(database);
        }
        None => println!("postgres: skipped (PostgreSQL not reachable, see stderr)"),
    }
    println!("total time {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}
