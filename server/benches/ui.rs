//! How fast the web UI's screens come back, next to the API call each screen is built
//! from, on the same server; and the lineage graph of 2,000 objects.
//!
//! ```text
//! cargo bench -p lore-server --bench ui
//! ```
//!
//! For each size of `LORE_BENCH_SIZES` (default 100,000 and 1,000,000 objects) and each
//! backend (SQLite in a temporary directory; PostgreSQL on a fresh database of
//! `LORE_TEST_POSTGRES_URL`, skipped when unreachable), the bench starts `lore serve`
//! from this build, imports the synthetic model, waits until the server has read its
//! search index again (the import changed everything; it prints how long that took),
//! and requests each screen of [`screens`]
//! `LORE_BENCH_RUNS` times (default 15, after 2 unmeasured runs) with the session cookie
//! (which holds an API key, so the bench logs in through the API), then the API call the
//! screen is built from as many times. The time is the whole request over loopback: the
//! server's time plus a local round trip. Then it imports a lineage graph of
//! `LORE_BENCH_LINEAGE` tables (default 2,000) within five edges downstream of one table
//! and requests that table's lineage page with every object drawn (`depth=5`, `all=1`:
//! read from the store, laid out, written as SVG), next to the getOperations call it
//! reads. It prints p50 and p95 of each. Screens marked `restricted` are asked by a user
//! who holds only the object role Viewer (View Metadata) on the imported model, not
//! globally: a caller whose sight is that model. Nothing here asserts a speed. Before each
//! request a folder is created (not measured), so no request is answered from what the
//! server kept of an earlier one (the search hit cache). `LORE_BENCH_BACKENDS=sqlite`
//! (or `postgres`) runs one backend; `LORE_BENCH_KEEP=1` keeps the SQLite databases.

use std::fmt::Write as _;
use std::io::Write as _;
use std::time::{Duration, Instant};

#[path = "support/archive.rs"]
#[allow(dead_code, reason = "the row count is for the import bench")]
mod archive;
#[path = "../../conformance-tests/benches/common/model.rs"]
#[allow(dead_code, reason = "the in-memory model is for the import benches")]
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

use archive::write_archive;
use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{CONTENT_TYPE, COOKIE, HOST};
use hyper::{Request, StatusCode};
use lore_core::ObjectId;
use postgres::TestDatabase;
use server::{BASE, BenchResult, LoreServer, Storage, env_list, mb, vm_kib};

/// Unmeasured runs before the measured ones.
const WARM_UP: usize = 2;

/// A request: a page of the UI, or an API call.
#[derive(Debug, Clone)]
enum Call {
    Page(String),
    Get(String),
    Post(String, String),
}

/// A screen, and the API call it is built from.
struct Screen {
    name: &'static str,
    page: Call,
    api: Call,
    api_name: &'static str,
    /// Asked by a user who holds only the object role Viewer (View Metadata) on the
    /// model, not the administrator: a caller whose sight is the model.
    restricted: bool,
}

/// The screens at one model: `model` is the model's id, `table` a table in its middle.
fn screens(model: ObjectId, table: ObjectId) -> Vec<Screen> {
    let execute = |body: serde_json::Value| {
        Call::Post(format!("{BASE}/entities/executeMQLQuery"), body.to_string())
    };
    let search_select = "Name, \"Object Type\", \"Object Id\", Context, Description, \"Physical Name\", Labels, \"Sensitivity Label\", Certified, \"Endorsement Count\", \"Warning Count\"";
    // A search screen and the first page of its query, in relevance order.
    let search_as = |name, page: &str, filter: &str, restricted| Screen {
        name,
        page: Call::Page(page.into()),
        api: execute(serde_json::json!({
            "select": search_select, "where": filter,
            "orderby": "Relevance", "pageSize": 25,
        })),
        api_name: "executeMQLQuery (its first page)",
        restricted,
    };
    let search = |name, page: &str, filter: &str| search_as(name, page, filter, false);
    let everything = |name, restricted| Screen {
        name,
        page: Call::Page("/ui/".into()),
        api: execute(serde_json::json!({
            "select": search_select, "orderby": "Name", "pageSize": 25,
        })),
        api_name: "executeMQLQuery (its first page)",
        restricted,
    };
    vec![
        search("search: text", "/ui/?q=table_150", "text = 'table_150'"),
        search(
            "search: text + type facet",
            "/ui/?q=table_150&type=Table",
            "text = 'table_150' AND \"Object Type\" = 'Table'",
        ),
        search(
            "search: broad term (1 in 24)",
            "/ui/?q=column_7",
            "text = 'column_7'",
        ),
        // Broad terms: `column_1` is in 44% of the objects (column_1 and column_10 to
        // column_19 of every table), `7` in 9% (one character: no text index serves it).
        search(
            "search: broad term (1 in 2)",
            "/ui/?q=column_1",
            "text = 'column_1'",
        ),
        search("search: broad term (1 in 11)", "/ui/?q=7", "text = '7'"),
        search_as(
            "search: broad term (1 in 2), object role",
            "/ui/?q=column_1",
            "text = 'column_1'",
            true,
        ),
        search_as(
            "search: broad term (1 in 11), object role",
            "/ui/?q=7",
            "text = '7'",
            true,
        ),
        everything("search: everything (no text)", false),
        everything("search: everything (no text), object role", true),
        Screen {
            name: "browse: repository",
            page: Call::Page("/ui/browse".into()),
            api: Call::Get(format!(
                "{BASE}/operations/repositoryBrowse?repositoryPath=%2F"
            )),
            api_name: "repositoryBrowse",
            restricted: false,
        },
        Screen {
            name: "browse: a model's top level",
            page: Call::Page(format!("/ui/browse/{model}")),
            api: execute(serde_json::json!({
                "select": "Name, \"Object Type\", \"Object Id\", \"Object Stable Id\"",
                "where": format!("Parent.\"Object Id\" = '{model}'"),
                "orderby": "Name", "pageSize": 200,
            })),
            api_name: "executeMQLQuery (the level)",
            restricted: false,
        },
        Screen {
            name: "object: overview",
            page: Call::Page(format!("/ui/objects/{table}")),
            api: Call::Get(format!("{BASE}/entities/{table}")),
            api_name: "GET /entities/{id}",
            restricted: false,
        },
        Screen {
            name: "object: children",
            page: Call::Page(format!("/ui/objects/{table}/children")),
            api: execute(serde_json::json!({
                "select": "Name, \"Object Type\", \"Object Id\", \"Object Stable Id\"",
                "where": format!("Parent.\"Object Id\" = '{table}'"),
                "orderby": "Name", "pageSize": 200,
            })),
            api_name: "executeMQLQuery (the children)",
            restricted: false,
        },
        Screen {
            name: "object: lineage (one hop)",
            page: Call::Page(format!("/ui/objects/{table}/lineage")),
            api: Call::Get(format!(
                "{BASE}/lineage/getOperations/{table}?depth=2&fanOut=1000&limit=10000"
            )),
            api_name: "getOperations depth 2",
            restricted: false,
        },
        Screen {
            name: "glossary",
            page: Call::Page("/ui/glossary".into()),
            api: execute(serde_json::json!({
                "select": "Name, \"Object Type\", \"Object Id\", Context, Description",
                "where": "\"Object Type\" = 'Term'", "orderby": "Name", "pageSize": 50,
            })),
            api_name: "executeMQLQuery (terms)",
            restricted: false,
        },
        Screen {
            name: "administration: operations",
            page: Call::Page("/ui/admin/operations".into()),
            api: Call::Get(format!("{BASE}/operations/listOperations")),
            api_name: "listOperations",
            restricted: false,
        },
    ]
}

/// Sends a request with the key (as the API's header, or as the UI's session cookie);
/// answers the body, refusing anything but 200.
async fn send(addr: std::net::SocketAddr, key: &str, call: &Call) -> BenchResult<Bytes> {
    let request = match call {
        Call::Page(path) => Request::get(path.as_str())
            .header(HOST, addr.to_string())
            .header(COOKIE, format!("lore_session={key}"))
            .body(Full::new(Bytes::new()))?,
        Call::Get(path) => Request::get(path.as_str())
            .header(HOST, addr.to_string())
            .header("api-key", key)
            .body(Full::new(Bytes::new()))?,
        Call::Post(path, body) => Request::post(path.as_str())
            .header(HOST, addr.to_string())
            .header("api-key", key)
            .header(CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body.clone())))?,
    };
    let (status, body) = server::call(addr, request).await?;
    if status != StatusCode::OK {
        return Err(format!(
            "{call:?}: {status} {}",
            String::from_utf8_lossy(&body[..body.len().min(2000)])
        )
        .into());
    }
    Ok(body)
}

/// Times `runs` requests after the warm-up; answers the times and the last body.
/// `admin` commits between the runs; `key` asks.
async fn timed(
    addr: std::net::SocketAddr,
    admin: &str,
    key: &str,
    call: &Call,
    runs: usize,
) -> BenchResult<(Vec<Duration>, Bytes)> {
    let mut times = Vec::with_capacity(runs);
    let mut last = Bytes::new();
    for i in 0..WARM_UP + runs {
        static RUN: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let run = RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        server::commit_between_runs(addr, admin, &format!("bench run {run}")).await?;
        let clock = Instant::now();
        last = send(addr, key, call).await?;
        if i >= WARM_UP {
            times.push(clock.elapsed());
        }
    }
    Ok((times, last))
}

struct Line {
    backend: &'static str,
    objects: usize,
    screen: String,
    page: Vec<Duration>,
    page_bytes: usize,
    api: Vec<Duration>,
    api_name: &'static str,
}

fn quantile(times: &[Duration], q: f64) -> f64 {
    let mut ms: Vec<f64> = times.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    ms.sort_by(|a, b| a.total_cmp(b));
    if ms.is_empty() {
        return 0.0;
    }
    let i = ((ms.len() - 1) as f64 * q).round() as usize;
    ms[i.min(ms.len() - 1)]
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> BenchResult<()> {
    let started = Instant::now();
    let sizes = env_list("LORE_BENCH_SIZES", &[100_000, 1_000_000])?;
    let runs = env_list("LORE_BENCH_RUNS", &[15])?[0];
    let lineage_size = env_list("LORE_BENCH_LINEAGE", &[2_000])?[0];
    let dir = tempfile::tempdir()?;
    let mut lines = Vec::new();
    let mut peaks = Vec::new();
    let mut index_ready = Vec::new();
    for &n in &sizes {
        eprintln!("writing the synthetic model of {n} objects ...");
        let archive = write_archive(&dir.path().join(format!("model-{n}.zip")), n, false)?;
        let table_number = archive.tables[archive.tables.len() / 2];
        for storage in storages(dir.path(), &format!("screens-{n}")).await? {
            let backend = storage.0.backend();
            eprintln!("{backend}: starting lore serve ...");
            let server = LoreServer::start(&storage.0, dir.path())?;
            let addr = server.addr;
            let key = server::login(addr).await?;
            let clock = Instant::now();
            let result = server::import(addr, &key, &archive.path, server::ImportInto::New).await?;
            let model: ObjectId = result["modelId"]
                .as_str()
                .ok_or("the import answered no modelId")?
                .parse()?;
            eprintln!(
                "{backend}: imported {n} objects in {:.1} s",
                clock.elapsed().as_secs_f64()
            );
            // The import changed everything: the server reads its search index again, in
            // the background (the database answers searches meanwhile). Measured from here.
            let clock = Instant::now();
            let read = server.search_index_read(n)?;
            eprintln!(
                "{backend}: search index ready {:.1} s after the import (read in {read:.1} s)",
                clock.elapsed().as_secs_f64()
            );
            index_ready.push((backend, n, clock.elapsed().as_secs_f64(), read));
            let table = ObjectId::new(model.content_model(), table_number);
            let restricted =
                server::key_with_object_role(addr, &key, &model.to_string(), "Viewer").await?;
            for screen in screens(model, table) {
                let who = if screen.restricted { &restricted } else { &key };
                let (page, body) = timed(addr, &key, who, &screen.page, runs).await?;
                let (api, _) = timed(addr, &key, who, &screen.api, runs).await?;
                eprintln!(
                    "{backend} {n} {}: page p50 {:.1} ms ({} bytes), API p50 {:.1} ms",
                    screen.name,
                    quantile(&page, 0.5),
                    body.len(),
                    quantile(&api, 0.5)
                );
                lines.push(Line {
                    backend,
                    objects: n,
                    screen: screen.name.to_owned(),
                    page,
                    page_bytes: body.len(),
                    api,
                    api_name: screen.api_name,
                });
            }
            peaks.push((backend, n, vm_kib(server.pid(), "VmHWM")));
            drop(server);
            drop(storage);
        }
    }

    // The lineage graph of `lineage_size` tables.
    let lineage = write_lineage_archive(&dir.path().join("lineage.zip"), lineage_size)?;
    let mut graph_lines = Vec::new();
    for storage in storages(dir.path(), "lineage").await? {
        let backend = storage.0.backend();
        let server = LoreServer::start(&storage.0, dir.path())?;
        let addr = server.addr;
        let key = server::login(addr).await?;
        let result = server::import(addr, &key, &lineage, server::ImportInto::New).await?;
        let model: ObjectId = result["modelId"]
            .as_str()
            .ok_or("the import answered no modelId")?
            .parse()?;
        // The start is the first table: object 3 (database, schema, then it).
        let start = ObjectId::new(model.content_model(), 3);
        let page = Call::Page(format!(
            "/ui/objects/{start}/lineage?depth=5&direction=downstream&all=1"
        ));
        let api = Call::Get(format!(
            "{BASE}/lineage/getOperations/{start}?direction=downstream&depth=6&fanOut=1000&limit=10000"
        ));
        let (page_times, body) = timed(addr, &key, &key, &page, runs).await?;
        let (api_times, _) = timed(addr, &key, &key, &api, runs).await?;
        let text = String::from_utf8_lossy(&body);
        let shown = text
            .find("id=\"lineage-summary\">")
            .map(|at| {
                text[at + 21..]
                    .split(" objects shown")
                    .next()
                    .unwrap_or_default()
                    .to_owned()
            })
            .unwrap_or_default();
        eprintln!(
            "{backend} lineage: {shown} drawn; page p50 {:.1} ms, API p50 {:.1} ms",
            quantile(&page_times, 0.5),
            quantile(&api_times, 0.5)
        );
        graph_lines.push((backend, shown, page_times, body.len(), api_times));
        drop(server);
        drop(storage);
    }

    println!();
    println!(
        "The web UI's screens next to the API call each is built from ({runs} runs each; milliseconds, whole requests over loopback)"
    );
    println!(
        "| backend | objects | screen | page p50 | page p95 | page KiB | API call | API p50 | API p95 |"
    );
    println!("|---|---:|---|---:|---:|---:|---|---:|---:|");
    for l in &lines {
        println!(
            "| {} | {} | {} | {:.1} | {:.1} | {:.0} | {} | {:.1} | {:.1} |",
            l.backend,
            l.objects,
            l.screen,
            quantile(&l.page, 0.5),
            quantile(&l.page, 0.95),
            l.page_bytes as f64 / 1024.0,
            l.api_name,
            quantile(&l.api, 0.5),
            quantile(&l.api, 0.95)
        );
    }
    println!();
    println!(
        "The lineage page of {lineage_size} tables within 5 edges downstream (depth=5, all=1), next to getOperations depth 6 (milliseconds)"
    );
    println!("| backend | objects drawn | page p50 | page p95 | page KiB | API p50 | API p95 |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for (backend, shown, page, bytes, api) in &graph_lines {
        println!(
            "| {backend} | {shown} | {:.1} | {:.1} | {:.0} | {:.1} | {:.1} |",
            quantile(page, 0.5),
            quantile(page, 0.95),
            *bytes as f64 / 1024.0,
            quantile(api, 0.5),
            quantile(api, 0.95)
        );
    }
    println!();
    for (backend, n, ready, read) in &index_ready {
        println!(
            "{backend} at {n} objects: the search index ready {ready:.1} s after the import (read whole in {read:.1} s)"
        );
    }
    for (backend, n, kib) in &peaks {
        println!(
            "{backend} at {n} objects: the server's peak resident memory (VmHWM, import included) {}",
            mb(*kib)
        );
    }
    println!("total time {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// SQLite in a directory of its own and, when reachable, a fresh PostgreSQL database;
/// each with what must live as long as the server.
async fn storages(
    dir: &std::path::Path,
    name: &str,
) -> BenchResult<Vec<(Storage, Box<dyn std::any::Any>)>> {
    // `LORE_BENCH_BACKENDS=sqlite` (or `postgres`): one backend only.
    let backends =
        std::env::var("LORE_BENCH_BACKENDS").unwrap_or_else(|_| "sqlite,postgres".into());
    let mut all: Vec<(Storage, Box<dyn std::any::Any>)> = Vec::new();
    if backends.contains("sqlite") {
        let path = if std::env::var_os("LORE_BENCH_KEEP").is_some() {
            // Kept for a look afterwards (`lore serve` on it, the `sqlite3` shell).
            let kept = tempfile::tempdir()?.keep();
            eprintln!("sqlite: the database is kept in {}", kept.display());
            (
                kept.join(format!("{name}.db")),
                Box::new(()) as Box<dyn std::any::Any>,
            )
        } else {
            let sqlite_dir = tempfile::tempdir_in(dir)?;
            let path = sqlite_dir.path().join(format!("{name}.db"));
            (path, Box::new(sqlite_dir) as Box<dyn std::any::Any>)
        };
        all.push((Storage::Sqlite(path.0), path.1));
    }
    if backends.contains("postgres") {
        match TestDatabase::create().await {
            Some(database) => {
                all.push((Storage::Postgres(database.url.clone()), Box::new(database)))
            }
            None => eprintln!("postgres: skipped (PostgreSQL not reachable)"),
        }
    }
    Ok(all)
}

/// A model archive of `n` tables in one schema, laid out so that all are within five
/// lineage edges downstream of the first: layers of about 1, 2%, 8%, 15%, 30% and 45%
/// of them, each table fed by one of the layer before (and every third by a second),
/// chosen by a fixed pseudo-random sequence.
fn write_lineage_archive(path: &std::path::Path, n: usize) -> BenchResult<std::path::PathBuf> {
    let shares = [0.0, 0.02, 0.08, 0.15, 0.30, 0.45];
    let mut layers: Vec<Vec<usize>> = Vec::new();
    let mut next = 0;
    for (i, share) in shares.iter().enumerate() {
        let size = if i == 0 {
            1
        } else if i == shares.len() - 1 {
            n.saturating_sub(next).max(1)
        } else {
            ((n as f64) * share).round().max(1.0) as usize
        };
        layers.push((next..next + size).collect());
        next += size;
    }
    let mut objects = String::from("native_id,parent_native_id,object_type,name\n");
    objects.push_str("db,,Database,lineage_db\ndb.s,db,Schema,flows\n");
    for t in 0..next {
        writeln!(objects, "db.s.t{t},db.s,Table,flow_{t:05}")?;
    }
    let mut relationships = String::from("kind,name,source_native_id,target_native_id\n");
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut random = |below: usize| {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        (seed % below as u64) as usize
    };
    for pair in layers.windows(2) {
        let (before, layer) = (&pair[0], &pair[1]);
        for (i, &t) in layer.iter().enumerate() {
            let from = before[random(before.len())];
            writeln!(
                relationships,
                "lineage,INSERT INTO flow_{t:05} SELECT * FROM flow_{from:05},db.s.t{from},db.s.t{t}"
            )?;
            if i % 3 == 0 && before.len() > 1 {
                let other = before[random(before.len())];
                if other != from {
                    writeln!(
                        relationships,
                        "lineage,MERGE INTO flow_{t:05} USING flow_{other:05},db.s.t{other},db.s.t{t}"
                    )?;
                }
            }
        }
    }
    let model = "format_version,name,profile,description\n1,lineage,RDBMS Relational Database (Database),The lineage bench's graph\n";
    let file = std::fs::File::create(path)?;
    let mut zip = zip::ZipWriter::new(file);
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    for (name, text) in [
        ("model.csv", model),
        ("objects.csv", objects.as_str()),
        ("relationships.csv", relationships.as_str()),
    ] {
        zip.start_file(name, options)?;
        zip.write_all(text.as_bytes())?;
    }
    zip.finish()?;
    Ok(path.to_owned())
}
