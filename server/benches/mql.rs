//! How fast the real server answers MQL queries, next to the same queries written by
//! hand in SQL on the same database.
//!
//! ```text
//! cargo bench -p lore-server --bench mql
//! ```
//!
//! For each size of `LORE_BENCH_SIZES` (default 100,000 and 1,000,000 objects) and each
//! backend (SQLite in a temporary directory; PostgreSQL on a fresh database of
//! `LORE_TEST_POSTGRES_URL`, skipped when unreachable), the bench starts `lore serve`
//! from this build, imports the synthetic model, then runs each query of [`CASES`]
//! `LORE_BENCH_RUNS` times (default 15, after 2 unmeasured runs) over HTTP, one at a
//! time, and then its hand-written SQL as many times on a connection of its own to the
//! same database. It prints p50 and p95 of both, their ratio, the targets, and the
//! server's peak memory. Nothing here asserts a speed.
//!
//! Before each run a folder is created (not measured): the commit ends what the server
//! kept of an earlier run's search (its hit cache answers only at the data's state it
//! read), so every run measures the query as someone asking it for the first time. The
//! cases start once the server has read its search index again after the imports. `LORE_BENCH_CASES` (names, or
//! parts of them, comma separated) runs only those queries.
//!
//! `LORE_BENCH_BACKENDS` (`sqlite`, `postgres` or both, comma separated; both by default)
//! picks the backends.
//!
//! With `LORE_BENCH_AS_OF=1` the bench then re-imports the model with 1% of its objects
//! edited and runs every query again as of the model's first version (`asOf` in the
//! body or the query), `LORE_BENCH_AS_OF_RUNS` times (default 5), and prints them next
//! to the same query answered today on the same server (issue 40's target: < 200 ms p50
//! at 1,000,000 objects).

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

use archive::{ArchiveFile, write_archive};
use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{CONTENT_TYPE, HOST};
use hyper::{Request, StatusCode};
use lore_core::ObjectId;
use postgres::TestDatabase;
use server::{BASE, BenchResult, LoreServer, Storage, env_list, mb, vm_kib};
use sqlx::{Connection, PgConnection};

/// Unmeasured runs before the measured ones.
const WARM_UP: usize = 2;

/// How a query reaches the server.
#[derive(Debug, Clone, Copy)]
enum Call {
    /// `GET /entities/countMQLQuery` without FROM or WHERE.
    CountAll,
    /// `POST /entities/executeMQLQuery` with this body (`{from}` is the model).
    Execute(&'static str),
    /// `GET /entities/countMQLQuery` with this `where` (empty: none).
    Count(&'static str),
    /// `POST /entities/getAttributeValueCounts` with this body.
    Facets(&'static str),
    /// These calls one after the other, as one user action (the search page's mix).
    Mix(&'static [Call]),
}

/// One query of the bench: the MQL call, and the SQL a developer would write for the
/// same answer (`{m}` is the model number; text in SQLite's words: `lower` becomes
/// `lore_fold` and `instr` `strpos` on PostgreSQL).
struct Case {
    name: &'static str,
    /// Run as a user who sees only a small model of 10 objects through an object role
    /// (`{s}` in the SQL is its model number): what such a user pays must not grow with
    /// the objects they cannot see.
    restricted: bool,
    /// Selective queries and deep pages have the 50 ms target at 1,000,000 objects.
    selective: bool,
    call: Call,
    sql: &'static str,
    /// The SQL on PostgreSQL where it is not `sql` with the functions renamed.
    postgres: Option<&'static str>,
}

/// What the search page asks when someone types a term: the first page of results, the
/// facets of what was found (three attributes in one call) and the total.
macro_rules! search_page {
    ($term:literal) => {
        &[
            Call::Execute(concat!(
                r#"{"select": "Name, \"Object Type\"", "from": "{from}", "where": "text = '"#,
                $term,
                r#"'"}"#
            )),
            Call::Facets(concat!(
                r#"{"select": "\"Object Type\", \"Data Type\", Labels", "from": "{from}", "where": "text = '"#,
                $term,
                r#"'"}"#
            )),
            Call::Count(concat!("text = '", $term, "'")),
        ]
    };
}

/// The search page for a term 2,220 objects hold.
const SEARCH_PAGE: &[Call] = search_page!("table_15");

/// The same with a term that a twenty-fourth of the objects contain.
const SEARCH_PAGE_BROAD: &[Call] = search_page!("column_7");

/// The same with a term that 44% of the objects contain (column_1, column_10 to 19).
const SEARCH_PAGE_HALF: &[Call] = search_page!("column_1");

/// What the search page asks before any text is typed: the first page by name, the
/// five facets in one call, the total and the four status counts.
const SEARCH_PAGE_NO_TEXT: &[Call] = &[
    Call::Execute(r#"{"select": "Name, \"Object Type\"", "from": "{from}", "orderby": "Name"}"#),
    Call::Facets(
        r#"{"select": "\"Object Type\", \"Model Id\", Labels, \"Data Classifications\", \"Sensitivity Label\"", "from": "{from}"}"#,
    ),
    Call::Count(""),
    Call::Count("Certified = true"),
    Call::Count("\"Endorsed By\" EXISTS"),
    Call::Count("\"Warned By\" EXISTS"),
    Call::Count("Description EXISTS"),
];

/// The search page's mix by hand: the page, the three facets and the count, each a
/// statement testing the term on the folded Name and Physical Name.
macro_rules! search_page_sql {
    ($term:literal) => {
        concat!(
            "SELECT model_id, object_id, name FROM objects WHERE model_id = {m} \
             AND (instr(lower(name), '", $term, "') > 0 OR instr(lower(physical_name), '", $term, "') > 0) \
             ORDER BY name, model_id, object_id LIMIT 20; \
             SELECT type_name, COUNT(*) AS n FROM objects WHERE model_id = {m} \
             AND (instr(lower(name), '", $term, "') > 0 OR instr(lower(physical_name), '", $term, "') > 0) \
             GROUP BY type_name ORDER BY n DESC LIMIT 100; \
             SELECT data_type, COUNT(*) AS n FROM objects WHERE model_id = {m} AND data_type IS NOT NULL \
             AND (instr(lower(name), '", $term, "') > 0 OR instr(lower(physical_name), '", $term, "') > 0) \
             GROUP BY data_type ORDER BY n DESC LIMIT 100; \
             SELECT t.value, COUNT(*) AS n FROM objects o JOIN tags t ON t.model_id = o.model_id \
             AND t.object_id = o.object_id AND t.kind = 'label' WHERE o.model_id = {m} \
             AND (instr(lower(o.name), '", $term, "') > 0 OR instr(lower(o.physical_name), '", $term, "') > 0) \
             GROUP BY t.value ORDER BY n DESC LIMIT 100; \
             SELECT COUNT(*) FROM objects WHERE model_id = {m} \
             AND (instr(lower(name), '", $term, "') > 0 OR instr(lower(physical_name), '", $term, "') > 0)"
        )
    };
}

const CASES: &[Case] = &[
    Case {
        restricted: false,
        name: "name = (1 object)",
        selective: true,
        postgres: None,
        call: Call::Execute(
            r#"{"select": "Name, \"Object Type\"", "from": "{from}", "where": "Name = 'table_150_7'"}"#,
        ),
        // table_150_7 exists from 100,000 objects on.
        sql: "SELECT model_id, object_id, name, type_name FROM objects \
              WHERE model_id = {m} AND lower(name) = 'table_150_7' \
              ORDER BY name, model_id, object_id LIMIT 20",
    },
    Case {
        restricted: false,
        name: "Parent.Name = (24)",
        selective: true,
        postgres: None,
        call: Call::Execute(
            r#"{"select": "Name", "from": "{from}", "where": "Parent.Name = 'table_150_7'"}"#,
        ),
        sql: "SELECT c.model_id, c.object_id, c.name FROM objects c \
              JOIN objects p ON p.model_id = c.model_id AND p.object_id = c.parent \
              WHERE c.model_id = {m} AND lower(p.name) = 'table_150_7' \
              ORDER BY c.name, c.model_id, c.object_id LIMIT 20",
    },
    Case {
        restricted: false,
        name: "Labels AND Parent.Name (5)",
        selective: true,
        postgres: None,
        call: Call::Execute(
            r#"{"select": "Name, Labels", "from": "{from}", "where": "Labels = 'PII' AND Parent.Name = 'table_150_7'"}"#,
        ),
        sql: "SELECT c.model_id, c.object_id, c.name FROM objects c \
              JOIN objects p ON p.model_id = c.model_id AND p.object_id = c.parent \
              WHERE c.model_id = {m} AND lower(p.name) = 'table_150_7' \
              AND EXISTS (SELECT 1 FROM tags t WHERE t.model_id = c.model_id AND t.object_id = c.object_id \
              AND t.kind = 'label' AND lower(t.value) = 'pii') \
              ORDER BY c.name, c.model_id, c.object_id LIMIT 20",
    },
    Case {
        restricted: false,
        name: "Has Data Lineage AND Parent.Name",
        selective: true,
        postgres: None,
        call: Call::Execute(
            r#"{"select": "Name", "from": "{from}", "where": "\"Has Data Lineage\" = true AND Parent.Name = 'table_150_7'"}"#,
        ),
        sql: "SELECT c.model_id, c.object_id, c.name FROM objects c \
              JOIN objects p ON p.model_id = c.model_id AND p.object_id = c.parent \
              WHERE c.model_id = {m} AND lower(p.name) = 'table_150_7' \
              AND EXISTS (SELECT 1 FROM edges e WHERE e.target_model = c.model_id AND e.target_object = c.object_id \
              AND e.kind = 'lineage') \
              ORDER BY c.name, c.model_id, c.object_id LIMIT 20",
    },
    Case {
        restricted: false,
        name: "text = (search)",
        selective: true,
        postgres: Some(
            "SELECT model_id, object_id, name FROM objects WHERE model_id = {m} \
             AND (lore_search_form(name) LIKE '%table 150 7%' OR lore_search_form(physical_name) LIKE '%table 150 7%') \
             ORDER BY name, model_id, object_id LIMIT 20",
        ),
        call: Call::Execute(
            r#"{"select": "Name", "from": "{from}", "where": "text = 'table_150_7'"}"#,
        ),
        // Through the text indexes of the search forms, as the MQL statement: FTS5 on
        // SQLite, trigram indexes on PostgreSQL (migration 19).
        sql: "SELECT model_id, object_id, name FROM objects WHERE rowid IN \
              (SELECT rowid FROM objects_search WHERE objects_search MATCH '{name physical_name} : \"table 150 7\"') \
              AND model_id = {m} \
              AND (instr(lower(name), 'table_150_7') > 0 OR instr(lower(physical_name), 'table_150_7') > 0) \
              ORDER BY name, model_id, object_id LIMIT 20",
    },
    Case {
        restricted: false,
        name: "\"Row Count\" = (page 1)",
        selective: false,
        postgres: None,
        call: Call::Execute(
            r#"{"select": "Name, \"Row Count\"", "from": "{from}", "where": "\"Row Count\" = 20000"}"#,
        ),
        sql: "SELECT o.model_id, o.object_id, o.name FROM objects o \
              WHERE o.model_id = {m} AND EXISTS (SELECT 1 FROM attribute_values a \
              WHERE a.model_id = o.model_id AND a.object_id = o.object_id AND a.attribute = 'Row Count' \
              AND a.integer_value = 20000) ORDER BY o.name, o.model_id, o.object_id LIMIT 20",
    },
    Case {
        restricted: false,
        name: "Object Type AND Labels (page 1)",
        selective: false,
        postgres: None,
        call: Call::Execute(
            r#"{"select": "Name", "from": "{from}", "where": "\"Object Type\" = 'Column' AND Labels = 'PII'"}"#,
        ),
        sql: "SELECT o.model_id, o.object_id, o.name FROM objects o WHERE o.model_id = {m} \
              AND lower(o.type_name) = 'column' AND EXISTS (SELECT 1 FROM tags t \
              WHERE t.model_id = o.model_id AND t.object_id = o.object_id AND t.kind = 'label' \
              AND lower(t.value) = 'pii') ORDER BY o.name, o.model_id, o.object_id LIMIT 20",
    },
    Case {
        restricted: false,
        name: "Object Type AND Labels (page 1,000)",
        selective: true,
        postgres: None,
        call: Call::Execute(
            r#"{"select": "Name", "from": "{from}", "where": "\"Object Type\" = 'Column' AND Labels = 'PII'", "pageNumber": 1000}"#,
        ),
        sql: "SELECT o.model_id, o.object_id, o.name FROM objects o WHERE o.model_id = {m} \
              AND lower(o.type_name) = 'column' AND EXISTS (SELECT 1 FROM tags t \
              WHERE t.model_id = o.model_id AND t.object_id = o.object_id AND t.kind = 'label' \
              AND lower(t.value) = 'pii') ORDER BY o.name, o.model_id, o.object_id LIMIT 20 OFFSET 19980",
    },
    Case {
        restricted: false,
        name: "everything by name (page 1,000)",
        selective: true,
        postgres: None,
        call: Call::Execute(r#"{"select": "Name", "from": "{from}", "pageNumber": 1000}"#),
        sql: "SELECT model_id, object_id, name FROM objects WHERE model_id = {m} \
              ORDER BY name, model_id, object_id LIMIT 20 OFFSET 19980",
    },
    Case {
        restricted: false,
        name: "tables by \"Updated Date\" (page 1)",
        selective: false,
        postgres: None,
        call: Call::Execute(
            r#"{"select": "Name, \"Updated Date\"", "from": "{from}", "where": "\"Object Type\" = 'Table'", "orderby": "\"Updated Date\""}"#,
        ),
        sql: "SELECT model_id, object_id, name, updated_at FROM objects WHERE model_id = {m} \
              AND lower(type_name) = 'table' ORDER BY updated_at DESC, model_id DESC, object_id DESC LIMIT 20",
    },
    Case {
        restricted: false,
        name: "count: Object Type = Column",
        selective: false,
        postgres: None,
        call: Call::Count("\"Object Type\" = 'Column'"),
        sql: "SELECT COUNT(*) FROM objects WHERE model_id = {m} AND lower(type_name) = 'column'",
    },
    Case {
        restricted: false,
        name: "count: Labels != PII (NOT)",
        selective: false,
        postgres: None,
        call: Call::Count("\"Object Type\" = 'Column' AND Labels != 'PII'"),
        sql: "SELECT COUNT(*) FROM objects o WHERE o.model_id = {m} AND lower(o.type_name) = 'column' \
              AND NOT EXISTS (SELECT 1 FROM tags t WHERE t.model_id = o.model_id \
              AND t.object_id = o.object_id AND t.kind = 'label' AND lower(t.value) = 'pii')",
    },
    Case {
        restricted: false,
        name: "count: everything",
        selective: false,
        postgres: None,
        call: Call::Count(""),
        sql: "SELECT COUNT(*) FROM objects WHERE model_id = {m}",
    },
    Case {
        restricted: false,
        name: "count: \"Data Owner\" = (custom)",
        selective: false,
        postgres: None,
        call: Call::Count("\"Data Owner\" = 'team-3'"),
        sql: "SELECT COUNT(*) FROM attribute_values a WHERE a.model_id = {m} \
              AND a.attribute = 'Data Owner' AND lower(a.text_value) = 'team-3'",
    },
    Case {
        restricted: false,
        name: "facets: Data Type of columns",
        selective: false,
        postgres: None,
        call: Call::Facets(
            r#"{"select": "\"Data Type\"", "from": "{from}", "where": "\"Object Type\" = 'Column'"}"#,
        ),
        sql: "SELECT data_type, COUNT(*) AS n FROM objects WHERE model_id = {m} \
              AND lower(type_name) = 'column' AND data_type IS NOT NULL \
              GROUP BY data_type ORDER BY n DESC, data_type LIMIT 100",
    },
    Case {
        restricted: false,
        name: "search page: text + 3 facets + count",
        selective: false,
        postgres: None,
        call: Call::Mix(SEARCH_PAGE),
        sql: search_page_sql!("table_15"),
    },
    Case {
        restricted: false,
        name: "text = broad term (page 1, alone)",
        selective: false,
        postgres: None,
        call: Call::Execute(
            r#"{"select": "Name, \"Object Type\"", "from": "{from}", "where": "text = 'column_7'"}"#,
        ),
        sql: "SELECT model_id, object_id, name FROM objects WHERE model_id = {m} \
              AND (instr(lower(name), 'column_7') > 0 OR instr(lower(physical_name), 'column_7') > 0) \
              ORDER BY name, model_id, object_id LIMIT 20",
    },
    Case {
        restricted: false,
        name: "search page, broad term (1 in 24)",
        selective: false,
        postgres: None,
        call: Call::Mix(SEARCH_PAGE_BROAD),
        sql: search_page_sql!("column_7"),
    },
    Case {
        restricted: false,
        name: "search page, broad term (1 in 2)",
        selective: false,
        postgres: None,
        call: Call::Mix(SEARCH_PAGE_HALF),
        sql: search_page_sql!("column_1"),
    },
    Case {
        restricted: false,
        name: "search page, no text (page + 5 facets + 5 counts)",
        selective: false,
        postgres: None,
        call: Call::Mix(SEARCH_PAGE_NO_TEXT),
        sql: "SELECT model_id, object_id, name FROM objects WHERE model_id = {m} \
              ORDER BY name, model_id, object_id LIMIT 20; \
              SELECT type_name, COUNT(*) AS n FROM objects WHERE model_id = {m} \
              GROUP BY type_name ORDER BY n DESC LIMIT 100; \
              SELECT value, COUNT(*) AS n FROM tags WHERE model_id = {m} AND kind = 'label' \
              GROUP BY value ORDER BY n DESC LIMIT 100; \
              SELECT data_class, COUNT(*) AS n FROM classifications WHERE model_id = {m} \
              AND status IN ('MATCHED', 'APPROVED') GROUP BY data_class ORDER BY n DESC LIMIT 100; \
              SELECT label, COUNT(*) AS n FROM label_assignments WHERE model_id = {m} \
              AND status IN ('MATCHED', 'APPROVED') GROUP BY label ORDER BY n DESC LIMIT 100; \
              SELECT COUNT(*) FROM objects WHERE model_id = {m}; \
              SELECT COUNT(DISTINCT object_id) FROM curation WHERE model_id = {m} AND kind = 'certification'; \
              SELECT COUNT(DISTINCT object_id) FROM curation WHERE model_id = {m} AND kind = 'endorsement'; \
              SELECT COUNT(DISTINCT object_id) FROM curation WHERE model_id = {m} AND kind = 'warning'; \
              SELECT COUNT(*) FROM objects WHERE model_id = {m} AND description IS NOT NULL",
    },
    Case {
        restricted: true,
        name: "restricted: everything by name (10 visible)",
        selective: true,
        postgres: None,
        call: Call::Execute(r#"{"select": "Name"}"#),
        sql: "SELECT model_id, object_id, name FROM objects WHERE model_id = {s} \
              OR (model_id = -1 AND object_id = {s}) ORDER BY name, model_id, object_id LIMIT 20",
    },
    Case {
        restricted: true,
        name: "restricted: Object Type = Column (10 visible)",
        selective: true,
        postgres: None,
        call: Call::Execute(r#"{"select": "Name", "where": "\"Object Type\" = 'Column'"}"#),
        sql: "SELECT model_id, object_id, name FROM objects WHERE model_id = {s} \
              AND lower(type_name) = 'column' ORDER BY name, model_id, object_id LIMIT 20",
    },
    Case {
        restricted: true,
        name: "restricted: count everything (10 visible)",
        selective: true,
        postgres: None,
        call: Call::CountAll,
        sql: "SELECT COUNT(*) FROM objects WHERE model_id = {s} OR (model_id = -1 AND object_id = {s})",
    },
];

fn main() -> BenchResult<()> {
    let sizes = env_list("LORE_BENCH_SIZES", &[100_000, 1_000_000])?;
    let runs = env_list("LORE_BENCH_RUNS", &[15])?
        .first()
        .copied()
        .unwrap_or(15)
        .max(1);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(run(&sizes, runs))
}

/// The timings of one query on one backend and size.
struct Line {
    backend: &'static str,
    objects: usize,
    case: &'static Case,
    mql: Vec<Duration>,
    sql: Vec<Duration>,
}

/// The timings of one query as of the first version, and of it today, on one backend
/// and size.
struct AsOfLine {
    backend: &'static str,
    objects: usize,
    case: &'static Case,
    as_of: Vec<Duration>,
    today: Vec<Duration>,
    /// Why the query failed as of the version (a timeout), when it did.
    failed: Option<String>,
}

/// The peak memory of one server.
struct Peak {
    backend: &'static str,
    objects: usize,
    kib: Option<u64>,
    import: Duration,
}

async fn run(sizes: &[usize], runs: usize) -> BenchResult<()> {
    let started = Instant::now();
    let mut lines = Vec::new();
    let mut as_of_lines = Vec::new();
    let mut peaks = Vec::new();
    let as_of_runs = match std::env::var("LORE_BENCH_AS_OF").as_deref() {
        Ok("1") | Ok("true") => Some(
            env_list("LORE_BENCH_AS_OF_RUNS", &[5])?
                .first()
                .copied()
                .unwrap_or(5)
                .max(1),
        ),
        _ => None,
    };
    for &n in sizes {
        let dir = tempfile::tempdir()?;
        let archive = write_archive(&dir.path().join("model.zip"), n, false)?;
        eprintln!(
            "{n} objects: archive of {:.1} MB",
            archive.bytes as f64 / 1e6
        );
        let edited = match as_of_runs {
            Some(runs) => Some((
                write_archive(&dir.path().join("edited.zip"), n, true)?,
                runs,
            )),
            None => None,
        };
        let mut out = Out {
            lines: &mut lines,
            as_of: &mut as_of_lines,
            peaks: &mut peaks,
        };

        if wanted_backend("sqlite") {
            let sqlite_dir = tempfile::tempdir()?;
            let storage = Storage::Sqlite(sqlite_dir.path().join("lore.db"));
            bench(
                &storage,
                sqlite_dir.path(),
                &archive,
                edited.as_ref(),
                runs,
                &mut out,
            )
            .await?;
            keep_or_drop(sqlite_dir);
        }
        if !wanted_backend("postgres") {
            continue;
        }
        match TestDatabase::create().await {
            Some(database) => {
                let storage = Storage::Postgres(database.url.clone());
                bench(
                    &storage,
                    dir.path(),
                    &archive,
                    edited.as_ref(),
                    runs,
                    &mut out,
                )
                .await?;
                drop(database);
            }
            None => eprintln!("postgres: skipped (PostgreSQL not reachable)"),
        }
    }
    print_table(&lines, runs);
    if let Some(runs) = as_of_runs {
        print_as_of_table(&as_of_lines, runs);
    }
    println!();
    for p in &peaks {
        println!(
            "{} at {} objects: import {:.1} s; the server's peak resident memory (VmHWM, import included) {} (target under 200 MB on SQLite at 1,000,000)",
            p.backend,
            p.objects,
            p.import.as_secs_f64(),
            mb(p.kib)
        );
    }
    println!("total time {:.1} s", started.elapsed().as_secs_f64());
    Ok(())
}

/// The server a bench runs against: its address, backend, the administrator's key, the
/// restricted user's and the big model.
struct Served<'a> {
    addr: std::net::SocketAddr,
    backend: &'static str,
    key: &'a str,
    restricted: &'a str,
    model: ObjectId,
}

/// Whether `LORE_BENCH_BACKENDS` (both when unset) names the backend.
fn wanted_backend(backend: &str) -> bool {
    match std::env::var("LORE_BENCH_BACKENDS") {
        Ok(list) if !list.trim().is_empty() => list.split(',').any(|b| b.trim() == backend),
        _ => true,
    }
}

/// Where [`bench`] puts its figures.
struct Out<'a> {
    lines: &'a mut Vec<Line>,
    as_of: &'a mut Vec<AsOfLine>,
    peaks: &'a mut Vec<Peak>,
}

async fn bench(
    storage: &Storage,
    dir: &std::path::Path,
    archive: &ArchiveFile,
    edited: Option<&(ArchiveFile, usize)>,
    runs: usize,
    out: &mut Out<'_>,
) -> BenchResult<()> {
    let backend = storage.backend();
    eprintln!("{backend}: starting lore serve ...");
    let server = LoreServer::start(storage, dir)?;
    let addr = server.addr;
    let key = server::login(addr).await?;
    let clock = Instant::now();
    let result = server::import(addr, &key, &archive.path, server::ImportInto::New).await?;
    let import = clock.elapsed();
    let model: ObjectId = result["modelId"]
        .as_str()
        .ok_or("the import answered no modelId")?
        .parse()?;
    let m = model.content_model();
    eprintln!(
        "{backend}: imported {} objects in {:.1} s",
        archive.objects,
        import.as_secs_f64()
    );
    // A model of 10 objects, and a user who sees only it.
    let small_archive = write_archive(&dir.join("small.zip"), 10, false)?;
    let small = server::import(
        addr,
        &key,
        &small_archive.path,
        server::ImportInto::Named("small"),
    )
    .await?;
    let small: ObjectId = small["modelId"]
        .as_str()
        .ok_or("the import answered no modelId")?
        .parse()?;
    let restricted = server::key_with_object_role(addr, &key, &small.to_string(), "Viewer").await?;
    // The import changed everything: the server reads its search index again, in the
    // background (the database answers searches meanwhile); the cases run once it is read.
    let clock = Instant::now();
    let read = server.search_index_read(archive.objects)?;
    eprintln!(
        "{backend}: search index ready {:.1} s after the imports (read in {read:.1} s)",
        clock.elapsed().as_secs_f64()
    );
    let mut baseline = Baseline::connect(storage).await?;
    // `LORE_BENCH_CASES=Labels,Updated`: only the cases whose names contain one of these.
    let only = std::env::var("LORE_BENCH_CASES").unwrap_or_default();
    let wanted = |case: &Case| {
        only.is_empty() || only.split(',').any(|part| case.name.contains(part.trim()))
    };
    let admin = key.clone();
    for (n, case) in CASES.iter().enumerate().filter(|(_, c)| wanted(c)) {
        let key = if case.restricted { &restricted } else { &key };
        let mut mql = Vec::with_capacity(runs);
        for i in 0..WARM_UP + runs {
            server::commit_between_runs(addr, &admin, &format!("bench run {n}.{i}")).await?;
            let clock = Instant::now();
            let answer = query(addr, key, case.call, &model.to_string(), None).await?;
            if i >= WARM_UP {
                mql.push(clock.elapsed());
            }
            if i == 0 {
                eprintln!("{backend} {}: {}", case.name, summary(&answer));
            }
        }
        let sql_text = match (&baseline, case.postgres) {
            (Baseline::Postgres(_), Some(sql)) => sql,
            _ => case.sql,
        }
        .replace("{m}", &m.to_string())
        .replace("{s}", &small.content_model().to_string());
        let mut sql = Vec::with_capacity(runs);
        for i in 0..WARM_UP + runs {
            let clock = Instant::now();
            let rows = baseline.run(&sql_text).await?;
            if i >= WARM_UP {
                sql.push(clock.elapsed());
            }
            if i == 0 {
                eprintln!("{backend} {} (SQL): {rows} rows", case.name);
            }
        }
        out.lines.push(Line {
            backend,
            objects: archive.objects,
            case,
            mql,
            sql,
        });
    }
    if let Some((edited, as_of_runs)) = edited {
        let on = Served {
            addr,
            backend,
            key: &key,
            restricted: &restricted,
            model,
        };
        as_of_cases(&on, edited, *as_of_runs, out).await?;
    }
    out.peaks.push(Peak {
        backend,
        objects: archive.objects,
        kib: vm_kib(server.pid(), "VmHWM"),
        import,
    });
    baseline.close().await;
    drop(server);
    Ok(())
}

/// Re-imports the model with 1% edited, then runs each case as of the model's first
/// version: the figures next to today's of the same case.
async fn as_of_cases(
    on: &Served<'_>,
    edited: &ArchiveFile,
    runs: usize,
    out: &mut Out<'_>,
) -> BenchResult<()> {
    let (addr, backend, key, model) = (on.addr, on.backend, on.key, on.model);
    let request = Request::get(format!("{BASE}/history/models/{model}/versions"))
        .header(HOST, addr.to_string())
        .header("api-key", key)
        .body(Full::new(Bytes::new()))?;
    let (_, body) = server::call(addr, request).await?;
    let listed: serde_json::Value = serde_json::from_slice(&body)?;
    let first = listed["result"]["versions"]
        .as_array()
        .and_then(|v| v.last())
        .and_then(|v| v["id"].as_str())
        .ok_or_else(|| format!("no version of the model: {listed}"))?
        .to_owned();
    let clock = Instant::now();
    let result = server::import(
        addr,
        key,
        &edited.path,
        server::ImportInto::Model(&model.to_string()),
    )
    .await?;
    eprintln!(
        "{backend}: re-imported with 1% edited in {:.1} s: {}",
        clock.elapsed().as_secs_f64(),
        result["updated"]
    );
    let only = std::env::var("LORE_BENCH_CASES").unwrap_or_default();
    for (n, case) in CASES.iter().enumerate() {
        if !(only.is_empty() || only.split(',').any(|part| case.name.contains(part.trim()))) {
            continue;
        }
        let caller = if case.restricted { on.restricted } else { key };
        let mut times = Vec::with_capacity(runs);
        let mut failed = None;
        // One unmeasured run first.
        for i in 0..1 + runs {
            server::commit_between_runs(addr, key, &format!("bench as-of run {n}.{i}")).await?;
            let clock = Instant::now();
            let answer =
                match query(addr, caller, case.call, &model.to_string(), Some(&first)).await {
                    Ok(answer) => answer,
                    Err(e) => {
                        eprintln!("{backend} {} as of {first}: failed: {e}", case.name);
                        failed = Some(e.to_string());
                        break;
                    }
                };
            if i >= 1 {
                times.push(clock.elapsed());
            }
            if i == 0 {
                eprintln!(
                    "{backend} {} as of {first}: {}",
                    case.name,
                    summary(&answer)
                );
            }
        }
        let today = out
            .lines
            .iter()
            .rev()
            .find(|l| l.backend == backend && std::ptr::eq(l.case, case))
            .map(|l| l.mql.clone())
            .unwrap_or_default();
        out.as_of.push(AsOfLine {
            backend,
            objects: edited.objects,
            case,
            as_of: times,
            today,
            failed,
        });
    }
    Ok(())
}

/// A short description of an answer, to show the query found what it should.
fn summary(answer: &serde_json::Value) -> String {
    match answer {
        serde_json::Value::Array(items) => {
            let first = items
                .first()
                .and_then(|e| e["attributes"][0]["value"].as_str().map(str::to_owned))
                .or_else(|| items.first().map(|e| e["values"].to_string()))
                .unwrap_or_default();
            format!("{} items, first {first}", items.len())
        }
        other => other.to_string(),
    }
}

/// Sends the query; answers the `result` of the envelope.
async fn query(
    addr: std::net::SocketAddr,
    key: &str,
    call: Call,
    model: &str,
    as_of: Option<&str>,
) -> BenchResult<serde_json::Value> {
    if let Call::Mix(calls) = call {
        let mut answers = Vec::with_capacity(calls.len());
        for call in calls {
            answers.push(Box::pin(query(addr, key, *call, model, as_of)).await?);
        }
        return Ok(serde_json::Value::Array(answers));
    }
    let as_of_param = as_of.map_or(String::new(), |v| format!("&asOf={v}"));
    let from = ObjectId::repository(model.parse::<ObjectId>()?.content_model()).to_string();
    let request = match call {
        Call::Mix(_) => return Err("a mix is sent call by call".into()),
        Call::Execute(body) | Call::Facets(body) => {
            let path = match call {
                Call::Execute(_) => "executeMQLQuery",
                _ => "getAttributeValueCounts",
            };
            let mut body: serde_json::Value = serde_json::from_str(&body.replace("{from}", &from))?;
            if let Some(as_of) = as_of {
                body["asOf"] = serde_json::json!(as_of);
            }
            Request::post(format!("{BASE}/entities/{path}"))
                .header(HOST, addr.to_string())
                .header("api-key", key)
                .header(CONTENT_TYPE, "application/json")
                .body(Full::new(Bytes::from(body.to_string())))?
        }
        Call::CountAll => Request::get(format!(
            "{BASE}/entities/countMQLQuery?select=Name{as_of_param}"
        ))
        .header(HOST, addr.to_string())
        .header("api-key", key)
        .body(Full::new(Bytes::new()))?,
        Call::Count(filter) => {
            let mut uri =
                format!("{BASE}/entities/countMQLQuery?select=Name&from={from}{as_of_param}");
            if !filter.is_empty() {
                uri.push_str("&where=");
                uri.push_str(&encode(filter));
            }
            Request::get(uri)
                .header(HOST, addr.to_string())
                .header("api-key", key)
                .body(Full::new(Bytes::new()))?
        }
    };
    let (status, body) = server::call(addr, request).await?;
    let answer: serde_json::Value = serde_json::from_slice(&body)?;
    if status != StatusCode::OK {
        return Err(format!("{call:?}: {status} {answer}").into());
    }
    Ok(answer["result"].clone())
}

/// Percent-encodes a query parameter value.
fn encode(text: &str) -> String {
    let mut out = String::new();
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// A connection of its own to the server's database, for the hand-written SQL.
enum Baseline {
    Sqlite(rusqlite::Connection),
    Postgres(PgConnection),
}

impl Baseline {
    async fn connect(storage: &Storage) -> BenchResult<Baseline> {
        Ok(match storage {
            Storage::Sqlite(path) => Baseline::Sqlite(rusqlite::Connection::open_with_flags(
                path,
                rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
            )?),
            Storage::Postgres(url) => Baseline::Postgres(PgConnection::connect(url).await?),
        })
    }

    /// Runs the statements (`;` between them) and reads every row; answers how many.
    async fn run(&mut self, sql: &str) -> BenchResult<usize> {
        let mut n = 0;
        for statement in sql.split(';').map(str::trim).filter(|s| !s.is_empty()) {
            n += self.run_one(statement).await?;
        }
        Ok(n)
    }

    /// Runs one statement and reads every row; answers how many.
    async fn run_one(&mut self, sql: &str) -> BenchResult<usize> {
        match self {
            Baseline::Sqlite(conn) => {
                let mut statement = conn.prepare_cached(sql)?;
                let columns = statement.column_count();
                let mut rows = statement.query([])?;
                let mut n = 0;
                while let Some(row) = rows.next()? {
                    for i in 0..columns {
                        let _ = row.get_ref(i)?;
                    }
                    n += 1;
                }
                Ok(n)
            }
            Baseline::Postgres(conn) => {
                let sql = sql
                    .replace("lower(", "lore_fold(")
                    .replace("instr(", "strpos(");
                let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
                    .fetch_all(&mut *conn)
                    .await?;
                Ok(rows.len())
            }
        }
    }

    async fn close(self) {
        if let Baseline::Postgres(conn) = self {
            let _ = conn.close().await;
        }
    }
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

fn print_table(lines: &[Line], runs: usize) {
    println!();
    println!(
        "MQL over HTTP against hand-written SQL on the same database ({runs} runs each; milliseconds)"
    );
    println!(
        "| backend | objects | query | MQL p50 | MQL p95 | SQL p50 | SQL p95 | p50 ratio | target |"
    );
    println!("|---|---:|---|---:|---:|---:|---:|---:|---|");
    for l in lines {
        let (m50, m95) = (quantile(&l.mql, 0.5), quantile(&l.mql, 0.95));
        let (s50, s95) = (quantile(&l.sql, 0.5), quantile(&l.sql, 0.95));
        let ratio = if s50 > 0.0 { m50 / s50 } else { f64::NAN };
        let mut target = "≤ 1.5× SQL".to_owned();
        if l.objects >= 1_000_000 {
            target.push_str(if l.case.selective {
                ", < 50 ms"
            } else {
                ", < 100 ms"
            });
        }
        println!(
            "| {} | {} | {} | {m50:.2} | {m95:.2} | {s50:.2} | {s95:.2} | {ratio:.2}× | {target} |",
            l.backend, l.objects, l.case.name
        );
    }
}

fn print_as_of_table(lines: &[AsOfLine], runs: usize) {
    println!();
    println!(
        "MQL as of the model's first version (after a re-import with 1% edited) against the same query today, same server ({runs} runs as of; milliseconds)"
    );
    println!(
        "| backend | objects | query | as-of p50 | as-of p95 | today p50 | p50 ratio | target |"
    );
    println!("|---|---:|---|---:|---:|---:|---:|---|");
    for l in lines {
        if let Some(why) = &l.failed {
            let why: String = why.chars().take(120).collect();
            println!(
                "| {} | {} | {} | failed: {why} | | | | < 200 ms at 1,000,000 |",
                l.backend, l.objects, l.case.name
            );
            continue;
        }
        let (a50, a95) = (quantile(&l.as_of, 0.5), quantile(&l.as_of, 0.95));
        let t50 = quantile(&l.today, 0.5);
        let ratio = if t50 > 0.0 { a50 / t50 } else { f64::NAN };
        println!(
            "| {} | {} | {} | {a50:.2} | {a95:.2} | {t50:.2} | {ratio:.2}× | < 200 ms at 1,000,000 |",
            l.backend, l.objects, l.case.name
        );
    }
}

/// Removes the SQLite database's directory, or keeps it (and says where) when
/// `LORE_TEST_KEEP_DB` is set, as the PostgreSQL test database is kept, to look into a
/// plan by hand.
fn keep_or_drop(dir: tempfile::TempDir) {
    if std::env::var_os("LORE_TEST_KEEP_DB").is_some() {
        eprintln!("keeping the SQLite database in {}", dir.keep().display());
    }
}
