//! How many OpenLineage events the real server accepts per second over HTTP, against
//! the same server answering a POST of the same body without its store (an unknown
//! path) in the same run.
//!
//! ```text
//! cargo bench -p lore-server --bench openlineage
//! ```
//!
//! For SQLite (a file in a temporary directory) and PostgreSQL (a fresh database on
//! `LORE_TEST_POSTGRES_URL`, dropped afterwards; skipped when unreachable), the bench
//! starts `lore serve` from this build as a child process and runs
//! `LORE_BENCH_CONNECTIONS` (default 4) keep-alive connections for `LORE_BENCH_SECONDS`
//! (default 10) each, posting:
//!
//! - the ceiling: a RunEvent to an unknown path (404 from the router, no store);
//! - `POST /api/v1/lineage`, one new event per request (a START, then the run's
//!   COMPLETE: every event a write of the event and of its run);
//! - the same events again (each answered `repeated`: a read, no write);
//! - `POST /api/v1/lineage/batch`, `LORE_BENCH_BATCH` (default 100) new events per
//!   request.
//!
//! It prints events per second, request latency p50, p99 and max, errors, and the
//! server's resident memory after each phase (flat: nothing is kept in memory per
//! event). Nothing here asserts a speed.
//!
//! With `LORE_BENCH_LARGEST=N` it runs instead, on SQLite only, the largest event the
//! default bounds allow (`[openlineage]`: 1,000 inputs × 100 outputs, 100,000 edges)
//! posted `N` times on one connection, each time a new run of the same job whose
//! inputs alternate between two sets of 1,000 tables: every post replaces all 100,000
//! of the job's edges (removes them and adds the others). It prints each post's time
//! and the server's resident memory after it, then its peak (VmHWM):
//!
//! ```text
//! LORE_BENCH_LARGEST=12 cargo bench -p lore-server --bench openlineage
//! ```

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use bytes::Bytes;
use hdrhistogram::Histogram;
use http_body_util::{BodyExt, Full};
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

fn main() -> BenchResult<()> {
    if let Some(posts) = std::env::var("LORE_BENCH_LARGEST")
        .ok()
        .and_then(|v| v.parse::<usize>().ok())
    {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()?;
        return runtime.block_on(largest(posts.max(1)));
    }
    let seconds = env_number("LORE_BENCH_SECONDS", 10)?.max(1);
    let connections = env_number("LORE_BENCH_CONNECTIONS", 4)?.max(1);
    let batch = env_number("LORE_BENCH_BATCH", 100)?.clamp(1, 1_000);
    // One thread for the load generator: the server gets the other cores.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run(Duration::from_secs(seconds as u64), connections, batch))
}

fn env_number(name: &str, default: usize) -> BenchResult<usize> {
    Ok(env_list(name, &[default])?
        .first()
        .copied()
        .unwrap_or(default))
}

/// What one phase measured.
struct Phase {
    name: &'static str,
    /// Events per request.
    per: usize,
    /// The fewest requests one connection made (a phase repeating this one's events
    /// cycles through that many).
    fewest: u64,
    events: u64,
    requests: u64,
    errors: u64,
    elapsed: Duration,
    latency: Histogram<u64>,
    /// The server's resident memory (VmRSS) after the phase.
    rss_kib: Option<u64>,
}

impl Phase {
    fn per_second(&self) -> f64 {
        self.events as f64 / self.elapsed.as_secs_f64()
    }

    fn ms_at(&self, quantile: f64) -> f64 {
        self.latency.value_at_quantile(quantile) as f64 / 1000.0
    }
}

/// The body of request `n` of worker `worker` in a phase: one event, or `batch` of
/// them. Run ids are made of the phase's seed, the worker and the number, so a phase
/// that repeats another's seed posts the very same events.
fn event(seed: u64, worker: usize, n: u64) -> String {
    // A version 4 UUID's shape: run `n / 2`, START for even `n`, its COMPLETE for odd.
    let run = n / 2;
    let (kind, second) = if n.is_multiple_of(2) {
        ("START", 0)
    } else {
        ("COMPLETE", 30)
    };
    format!(
        r#"{{"eventType":"{kind}","eventTime":"2026-11-27T10:{:02}:{second:02}Z","producer":"https://example.com/lore-bench","schemaURL":"https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent","run":{{"runId":"{seed:08x}-{worker:04x}-4000-8000-{run:012x}","facets":{{}}}},"job":{{"namespace":"bench","name":"job_{}"}},"inputs":[{{"namespace":"postgres://db:5432","name":"shop.public.orders_{}"}}],"outputs":[{{"namespace":"postgres://db:5432","name":"shop.public.daily_{}"}}]}}"#,
        run % 60,
        run % 1_000,
        run % 1_000,
        run % 1_000,
    )
}

/// One phase: what it posts and what a right answer is.
struct Plan {
    name: &'static str,
    path: &'static str,
    /// The events' seed: a phase with another's seed posts the same events.
    seed: u64,
    /// Events per request (a batch when more than 1).
    per: usize,
    /// Cycle through this many requests per connection (repeating a phase's events).
    cycle: Option<u64>,
    expect: &'static [StatusCode],
}

/// Posts for `duration` on `connections` connections.
async fn phase(
    addr: SocketAddr,
    key: &str,
    plan: Plan,
    connections: usize,
    duration: Duration,
    pid: u32,
) -> BenchResult<Phase> {
    let Plan {
        name,
        path,
        seed,
        per,
        cycle,
        expect,
    } = plan;
    let deadline = Instant::now() + duration;
    let start = Instant::now();
    let mut tasks = Vec::new();
    for worker in 0..connections {
        let key = key.to_owned();
        let mut sender = connect::<Full<Bytes>>(addr).await?;
        tasks.push(tokio::spawn(async move {
            let mut latency = Histogram::<u64>::new_with_bounds(1, 60_000_000, 3)?;
            let (mut requests, mut errors, mut n) = (0u64, 0u64, 0u64);
            while Instant::now() < deadline {
                if cycle.is_some_and(|c| n >= c) {
                    n = 0;
                }
                let body = if per == 1 {
                    n += 1;
                    event(seed, worker, n)
                } else {
                    let events: Vec<String> = (0..per)
                        .map(|_| {
                            n += 1;
                            event(seed, worker, n)
                        })
                        .collect();
                    format!("[{}]", events.join(","))
                };
                let request = Request::post(path)
                    .header(HOST, addr.to_string())
                    .header(hyper::header::AUTHORIZATION, format!("Bearer {key}"))
                    .header(CONTENT_TYPE, "application/json")
                    .body(Full::new(Bytes::from(body)))?;
                let sent = Instant::now();
                let response = sender.send_request(request).await?;
                let status = response.status();
                response.into_body().collect().await?;
                latency.record(sent.elapsed().as_micros().max(1) as u64)?;
                requests += 1;
                if !expect.contains(&status) {
                    errors += 1;
                }
            }
            BenchResult::Ok((latency, requests, errors))
        }));
    }
    let mut report = Phase {
        name,
        per,
        fewest: u64::MAX,
        events: 0,
        requests: 0,
        errors: 0,
        elapsed: Duration::ZERO,
        latency: Histogram::new_with_bounds(1, 60_000_000, 3)?,
        rss_kib: None,
    };
    for task in tasks {
        let (latency, requests, errors) = task.await??;
        report.latency.add(&latency)?;
        report.requests += requests;
        report.fewest = report.fewest.min(requests);
        report.errors += errors;
    }
    report.elapsed = start.elapsed();
    report.events = report.requests * per as u64;
    report.rss_kib = vm_kib(pid, "VmRSS");
    Ok(report)
}

async fn bench(
    storage: &Storage,
    dir: &std::path::Path,
    duration: Duration,
    connections: usize,
    batch: usize,
) -> BenchResult<Vec<Phase>> {
    let backend = storage.backend();
    eprintln!("{backend}: starting lore serve ...");
    let server = LoreServer::start(storage, dir)?;
    let (addr, pid) = (server.addr, server.pid());
    let key = server::login(addr).await?;
    let at_start = vm_kib(pid, "VmRSS");
    let run = |plan: Plan| {
        let key = key.clone();
        async move {
            eprintln!("{backend}: {} for {} s ...", plan.name, duration.as_secs());
            phase(addr, &key, plan, connections, duration, pid).await
        }
    };
    let ceiling = run(Plan {
        name: "ceiling: POST to an unknown path",
        path: "/api/v1/no-such-path",
        seed: 1,
        per: 1,
        cycle: None,
        expect: &[StatusCode::NOT_FOUND],
    })
    .await?;
    let single = run(Plan {
        name: "one new event per request",
        path: "/api/v1/lineage",
        seed: 2,
        per: 1,
        cycle: None,
        expect: &[StatusCode::CREATED],
    })
    .await?;
    let repeated = run(Plan {
        name: "the same events again (repeated)",
        path: "/api/v1/lineage",
        seed: 2,
        per: 1,
        cycle: Some(single.fewest),
        expect: &[StatusCode::OK],
    })
    .await?;
    let batches = run(Plan {
        name: "a batch of new events per request",
        path: "/api/v1/lineage/batch",
        seed: 3,
        per: batch,
        cycle: None,
        expect: &[StatusCode::OK],
    })
    .await?;
    let mut phases = vec![ceiling, single, repeated, batches];
    if let Some(first) = phases.first_mut() {
        first.rss_kib = first.rss_kib.or(at_start);
    }
    println!(
        "{backend}: the server's resident memory at start {}, peak (VmHWM) {}",
        mb(at_start),
        mb(vm_kib(pid, "VmHWM"))
    );
    if let Some(log) = Some(server.log_tail()).filter(|l| l.contains("ERROR")) {
        eprintln!("{backend}: the server logged errors:\n{log}");
    }
    Ok(phases)
}

async fn run(duration: Duration, connections: usize, batch: usize) -> BenchResult<()> {
    let started = Instant::now();
    println!(
        "OpenLineage intake: {connections} connections, {} s per phase, batches of {batch}",
        duration.as_secs()
    );
    let mut lines: Vec<(&'static str, Vec<Phase>)> = Vec::new();
    let sqlite_dir = tempfile::tempdir()?;
    let storage = Storage::Sqlite(sqlite_dir.path().join("lore.db"));
    lines.push((
        "sqlite",
        bench(&storage, sqlite_dir.path(), duration, connections, batch).await?,
    ));
    drop(sqlite_dir);
    match TestDatabase::create().await {
        Some(database) => {
            let dir = tempfile::tempdir()?;
            let storage = Storage::Postgres(database.url.clone());
            lines.push((
                "postgres",
                bench(&storage, dir.path(), duration, connections, batch).await?,
            ));
            drop(database);
        }
        None => println!("postgres: skipped (PostgreSQL not reachable, see stderr)"),
    }
    println!();
    println!(
        "| backend | phase | events | events/s | share of ceiling | p50 ms | p99 ms | max ms | errors | RSS after |"
    );
    println!("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|");
    for (backend, phases) in &lines {
        let ceiling = phases.first().map(Phase::per_second).unwrap_or(1.0);
        for p in phases {
            println!(
                "| {backend} | {} | {} | {:.0} | {} | {:.2} | {:.2} | {:.2} | {} | {} |",
                p.name,
                p.events,
                p.per_second(),
                if p.per == 1 {
                    format!("{:.0}%", 100.0 * p.per_second() / ceiling)
                } else {
                    "—".to_owned()
                },
                p.ms_at(0.5),
                p.ms_at(0.99),
                p.latency.max() as f64 / 1000.0,
                p.errors,
                mb(p.rss_kib),
            );
        }
    }
    println!("total time {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// The largest event the default bounds allow, post `n`: 1,000 inputs (set `n % 2`) ×
/// 100 outputs of one job, a new run each time.
fn largest_event(n: usize) -> String {
    let set = n % 2;
    let inputs: Vec<String> = (0..1_000)
        .map(|i| {
            format!(r#"{{"namespace":"postgres://bench:5432","name":"shop.public.in_{set}_{i}"}}"#)
        })
        .collect();
    let outputs: Vec<String> = (0..100)
        .map(|j| format!(r#"{{"namespace":"postgres://bench:5432","name":"shop.mart.out_{j}"}}"#))
        .collect();
    format!(
        r#"{{"eventType":"COMPLETE","eventTime":"2026-11-27T00:{:02}:{:02}Z","producer":"https://example.com/lore-bench","schemaURL":"https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent","run":{{"runId":"00000000-0000-4000-8000-{n:012x}"}},"job":{{"namespace":"bench","name":"largest"}},"inputs":[{}],"outputs":[{}]}}"#,
        (n / 60) % 60,
        n % 60,
        inputs.join(","),
        outputs.join(",")
    )
}

/// Posts the largest allowed event `posts` times (SQLite) and prints the server's
/// memory after each.
async fn largest(posts: usize) -> BenchResult<()> {
    let dir = tempfile::tempdir()?;
    let storage = Storage::Sqlite(dir.path().join("lore.db"));
    eprintln!("sqlite: starting lore serve ...");
    let server = LoreServer::start(&storage, dir.path())?;
    let (addr, pid) = (server.addr, server.pid());
    let key = server::login(addr).await?;
    let mut sender = connect::<Full<Bytes>>(addr).await?;
    println!(
        "the largest allowed event (1,000 inputs x 100 outputs, 100,000 edges, {} bytes) posted {posts} times, SQLite",
        largest_event(0).len()
    );
    println!("resident memory at start: {}", mb(vm_kib(pid, "VmRSS")));
    println!();
    println!("| post | status | seconds | RSS after |");
    println!("|--:|--:|--:|--:|");
    for n in 0..posts {
        let request = Request::post("/api/v1/lineage")
            .header(HOST, addr.to_string())
            .header(hyper::header::AUTHORIZATION, format!("Bearer {key}"))
            .header(CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(largest_event(n))))?;
        let sent = Instant::now();
        let response = sender.send_request(request).await?;
        let status = response.status();
        let body = response.into_body().collect().await?.to_bytes();
        if status != StatusCode::CREATED {
            eprintln!(
                "post {}: {status} {}",
                n + 1,
                String::from_utf8_lossy(&body)
            );
        }
        println!(
            "| {} | {} | {:.2} | {} |",
            n + 1,
            status.as_u16(),
            sent.elapsed().as_secs_f64(),
            mb(vm_kib(pid, "VmRSS"))
        );
    }
    println!("peak resident memory (VmHWM): {}", mb(vm_kib(pid, "VmHWM")));
    if let Some(log) = Some(server.log_tail()).filter(|l| l.contains("ERROR")) {
        eprintln!("the server logged errors:\n{log}");
    }
    Ok(())
}
