//! The database's faults, as an operator meets them.
//!
//! - PostgreSQL goes away under a load of reads and writes (every connection of the
//!   database ended, new ones refused) and comes back: while it is gone every call answers
//!   503 `SERVICE_UNAVAILABLE` with `Retry-After` (never a 500, never a hang), Lore
//!   recovers by itself, every write it acknowledged is there afterwards, and `/metrics`
//!   counted the 503s.
//! - PostgreSQL does not answer (a lock held elsewhere, with the deployment's
//!   `statement_timeout` in the URL): the call answers 503 once the bound has passed,
//!   and the next one works when the database answers again.
//! - SQLite's disk fills up (a small tmpfs, mounted when the tests run as root): the write
//!   that does not fit answers 503 saying so, nothing of it lands, reads go on, and writes
//!   work again once there is room.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use lore_backend_postgres::PostgresStore;
use lore_backend_sqlite::SqliteStore;
use lore_conformance::harness::{Resp, unique};
use lore_conformance::postgres::TestDatabase;
use lore_conformance::scrape::{scrape, sum};
use lore_conformance::{Backend, Target};
use lore_core::error::RETRY_AFTER_SECONDS;
use lore_server::Metrics;
use serde_json::json;
use sqlx::Connection;

/// No call may take longer than this, whatever the database does.
const LONGEST_CALL: Duration = Duration::from_secs(10);

/// Checks an answer is the database-unavailable envelope with `Retry-After`.
fn assert_unavailable(resp: &Resp, what: &str) {
    assert_eq!(resp.status, 503, "{what}: {}", resp.describe());
    assert_eq!(
        resp.json["error"]["errorCode"],
        json!("SERVICE_UNAVAILABLE"),
        "{what}: {}",
        resp.describe()
    );
    assert_eq!(
        resp.json["error"]["retryAfter"],
        json!(RETRY_AFTER_SECONDS),
        "{what}: {}",
        resp.describe()
    );
    let header = resp
        .headers
        .get("retry-after")
        .and_then(|v| v.to_str().ok());
    assert_eq!(
        header,
        Some(RETRY_AFTER_SECONDS.to_string().as_str()),
        "{what}: Retry-After"
    );
    let message = resp.json["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("the database is unavailable while "),
        "{what}: {message}"
    );
}

async fn create_folder(t: &Target, key: &str, name: &str, description: &str) -> Resp {
    t.send(
        t.client
            .post(t.url("/repository/createFolder"))
            .header("api-key", key)
            .json(&json!({ "name": name, "description": description })),
    )
    .await
}

async fn read(t: &Target, key: &str, id: &str) -> Resp {
    t.send(
        t.client
            .get(t.url(&format!("/entities/{id}")))
            .header("api-key", key),
    )
    .await
}

/// One call of the load.
struct Call {
    started: Instant,
    elapsed: Duration,
    /// The folder a write created, when it answered 200: (name, id).
    created: Option<(String, String)>,
    resp: Resp,
}

/// Calls back to back until `stop`: a write (a new folder), then a read of `known`.
async fn load(t: Arc<Target>, key: String, known: String, stop: Arc<AtomicBool>) -> Vec<Call> {
    let mut calls = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let name = unique("fault");
        let started = Instant::now();
        let resp = create_folder(&t, &key, &name, "").await;
        let created = (resp.status == 200).then(|| {
            let id = resp.ok()["id"].as_str().expect("a folder id").to_owned();
            (name, id)
        });
        calls.push(Call {
            started,
            elapsed: started.elapsed(),
            created,
            resp,
        });
        let started = Instant::now();
        let resp = read(&t, &key, &known).await;
        calls.push(Call {
            started,
            elapsed: started.elapsed(),
            created: None,
            resp,
        });
    }
    calls
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_going_away_and_coming_back() {
    let Some(db) = TestDatabase::create().await else {
        return;
    };
    let store = PostgresStore::open(&db.url)
        .await
        .expect("connecting to the test database");
    let metrics = Metrics::new();
    metrics.watch_store(&store);
    let t = Target::spawn_measured(Backend::new(Arc::new(store)), metrics, |settings| {
        settings.metrics.listen = Some("127.0.0.1:0".into());
    })
    .await;
    let metrics_url = format!(
        "http://{}/metrics",
        t.server()
            .and_then(|s| s.metrics_addr)
            .expect("metrics.listen is served")
    );
    let key = t.login().await;
    let known = create_folder(&t, &key, &unique("known"), "read all along").await;
    let known = known.ok()["id"].as_str().expect("a folder id").to_owned();

    let t = Arc::new(t);
    let stop = Arc::new(AtomicBool::new(false));
    let workers: Vec<_> = (0..3)
        .map(|_| {
            tokio::spawn(load(
                Arc::clone(&t),
                key.clone(),
                known.clone(),
                Arc::clone(&stop),
            ))
        })
        .collect();

    let mut admin = db.admin().await;
    let name = &db.name;
    tokio::time::sleep(Duration::from_secs(1)).await;
    // The database goes away: new connections refused, every open one ended.
    let gone = Instant::now();
    for sql in [
        format!("ALTER DATABASE \"{name}\" ALLOW_CONNECTIONS false"),
        format!("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'"),
    ] {
        sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
            .execute(&mut admin)
            .await
            .expect("taking the database away");
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    let back = Instant::now();
    sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
        "ALTER DATABASE \"{name}\" ALLOW_CONNECTIONS true"
    )))
    .execute(&mut admin)
    .await
    .expect("bringing the database back");
    tokio::time::sleep(Duration::from_secs(4)).await;
    stop.store(true, Ordering::Relaxed);
    let mut calls = Vec::new();
    for worker in workers {
        calls.extend(worker.await.expect("a load worker"));
    }

    let mut unavailable = 0;
    for call in &calls {
        assert!(
            call.elapsed < LONGEST_CALL,
            "a call took {:?}: {}",
            call.elapsed,
            call.resp.describe()
        );
        match call.resp.status {
            200 => {}
            503 => {
                unavailable += 1;
                assert_unavailable(&call.resp, "a call while the database was away");
            }
            _ => panic!(
                "a call answered neither 200 nor 503: {}",
                call.resp.describe()
            ),
        }
    }
    eprintln!(
        "{} calls: {} answered 503 while the database was away, the slowest took {:?}",
        calls.len(),
        unavailable,
        calls.iter().map(|c| c.elapsed).max().unwrap_or_default()
    );
    let during =
        |c: &&Call| c.started > gone + Duration::from_millis(200) && c.started + c.elapsed < back;
    assert!(
        calls.iter().filter(during).count() > 0,
        "calls ran while the database was away"
    );
    assert!(
        calls.iter().filter(during).all(|c| c.resp.status == 503),
        "every call while the database was away answered 503"
    );
    // Recovered by itself: every call a second after the database came back succeeded.
    let late: Vec<&Call> = calls
        .iter()
        .filter(|c| c.started > back + Duration::from_secs(1))
        .collect();
    assert!(!late.is_empty(), "calls ran after the database came back");
    for call in late {
        assert_eq!(
            call.resp.status,
            200,
            "after the database came back: {}",
            call.resp.describe()
        );
    }
    // Nothing acknowledged was lost.
    let acknowledged: Vec<&(String, String)> =
        calls.iter().filter_map(|c| c.created.as_ref()).collect();
    assert!(!acknowledged.is_empty(), "writes were acknowledged");
    for (name, id) in acknowledged {
        let resp = read(&t, &key, id).await;
        assert_eq!(
            resp.status,
            200,
            "acknowledged folder {name}: {}",
            resp.describe()
        );
        assert_eq!(resp.ok()["name"], json!(name));
    }
    // What an operator saw.
    let (status, _, text) = scrape(&metrics_url, None).await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(
        sum(&text, "lore_http_requests_total", &[("status", "503")]),
        f64::from(unavailable),
        "the metrics count every 503: {text}"
    );
    drop(admin);
    drop(t);
    drop(db);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_that_does_not_answer_in_time() {
    let Some(db) = TestDatabase::create().await else {
        return;
    };
    // The deployment's bound on a statement, on the server's side.
    let url = format!("{}?options=-c%20statement_timeout%3D1000", db.url);
    let store = PostgresStore::open(&url)
        .await
        .expect("connecting to the test database");
    let t = Target::spawn(Arc::new(store)).await;
    let key = t.login().await;
    let folder = create_folder(&t, &key, &unique("held"), "").await;
    let folder = folder.ok()["id"].as_str().expect("a folder id").to_owned();

    // Another client holds the objects table: reads of it wait for the lock.
    let mut holder = sqlx::PgConnection::connect(&db.url)
        .await
        .expect("a second connection");
    sqlx::raw_sql("BEGIN; LOCK TABLE objects IN ACCESS EXCLUSIVE MODE")
        .execute(&mut holder)
        .await
        .expect("locking the objects table");
    let started = Instant::now();
    let resp = read(&t, &key, &folder).await;
    let waited = started.elapsed();
    assert_unavailable(&resp, "a read the database did not answer in time");
    let message = resp.json["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("it did not answer in time"), "{message}");
    assert!(
        waited < Duration::from_secs(5),
        "answered after the statement's bound, not after the lock: {waited:?}"
    );

    sqlx::raw_sql("COMMIT")
        .execute(&mut holder)
        .await
        .expect("releasing the lock");
    let resp = read(&t, &key, &folder).await;
    assert_eq!(
        resp.status,
        200,
        "once the lock is gone: {}",
        resp.describe()
    );
    drop(holder);
    drop(t);
    drop(db);
}

/// A tmpfs of a few MiB mounted on a temporary directory, unmounted when dropped.
struct SmallDisk {
    dir: tempfile::TempDir,
}

impl SmallDisk {
    /// Mounts it, or `None` when this process may not mount (not root).
    fn mount(mib: u32) -> Option<SmallDisk> {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let mounted = std::process::Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={mib}m"), "tmpfs"])
            .arg(dir.path())
            .output();
        match mounted {
            Ok(out) if out.status.success() => Some(SmallDisk { dir }),
            Ok(out) => {
                eprintln!(
                    "cannot mount a tmpfs: {}",
                    String::from_utf8_lossy(&out.stderr).trim()
                );
                None
            }
            Err(e) => {
                eprintln!("cannot run mount: {e}");
                None
            }
        }
    }

    fn resize(&self, mib: u32) {
        let status = std::process::Command::new("mount")
            .args(["-o", &format!("remount,size={mib}m")])
            .arg(self.dir.path())
            .status()
            .expect("running mount");
        assert!(status.success(), "resizing the tmpfs");
    }
}

impl Drop for SmallDisk {
    fn drop(&mut self) {
        let _ = std::process::Command::new("umount")
            .arg("-l")
            .arg(self.dir.path())
            .status();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_on_a_full_disk() {
    let Some(disk) = SmallDisk::mount(8) else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "under CI=true the full-disk test must run: it mounts a tmpfs, as root"
        );
        eprintln!("skipping: the full-disk test mounts a tmpfs and needs root");
        return;
    };
    let store = SqliteStore::open(&disk.dir.path().join("lore.db"))
        .await
        .expect("opening the store");
    let t = Target::spawn(Arc::new(store)).await;
    let key = t.login().await;
    let kept = create_folder(&t, &key, "kept", "written before the disk filled").await;
    let kept = kept.ok()["id"].as_str().expect("a folder id").to_owned();

    // Folders with 256 KiB descriptions until one does not fit.
    let description = "x".repeat(256 * 1024);
    let mut refused = None;
    for i in 0..200 {
        let name = format!("filler {i}");
        let resp = create_folder(&t, &key, &name, &description).await;
        match resp.status {
            200 => {}
            503 => {
                refused = Some((name, resp));
                break;
            }
            _ => panic!("writing {name}: {}", resp.describe()),
        }
    }
    let (name, resp) = refused.expect("the disk filled up within 200 folders");
    assert_unavailable(&resp, "the write that did not fit");
    let message = resp.json["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("the disk holding it is full"), "{message}");

    // Nothing of it landed; reads go on.
    let path = t
        .send(
            t.client
                .get(t.url(&format!("/entities/{}", urlencode(&format!("/{name}")))))
                .header("api-key", &key),
        )
        .await;
    assert_eq!(path.status, 404, "the refused folder: {}", path.describe());
    let resp = read(&t, &key, &kept).await;
    assert_eq!(
        resp.status,
        200,
        "a read on a full disk: {}",
        resp.describe()
    );
    let listed = t
        .send(
            t.client
                .get(t.url("/configuration/listModels"))
                .header("api-key", &key),
        )
        .await;
    assert_eq!(listed.status, 200, "{}", listed.describe());

    // With room again, the same write works.
    disk.resize(64);
    let resp = create_folder(&t, &key, &name, &description).await;
    assert_eq!(resp.status, 200, "after the disk grew: {}", resp.describe());
    drop(t);
    drop(disk);
}

/// Percent-encodes a path segment.
fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}
