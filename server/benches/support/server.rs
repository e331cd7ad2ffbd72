//! The `lore` server as a child process of a benchmark, and the HTTP calls the benchmarks
//! make to it outside the load generator: login, model import.
//!
//! The binary is the one cargo built for this bench run (`CARGO_BIN_EXE_lore`, the release
//! profile under `cargo bench`), so the server's memory and CPU are its own process's;
//! `LORE_BENCH_BINARY=path/to/lore` runs another build's under the same bench (an A/B of
//! two commits: copy the first build's `target/release/lore` aside, build the second).

use std::fs::File;
use std::io::Read;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::process::{Child, Command, Stdio};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use http_body_util::{BodyExt, Full};
use hyper::client::conn::http1::{self, SendRequest};
use hyper::header::{CONTENT_LENGTH, CONTENT_TYPE, HOST};
use hyper::{Request, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;

pub type BenchResult<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// The administrator's password, given to the server with `LORE_ADMIN_PASSWORD`.
pub const PASSWORD: &str = "bench-password";
/// The API's base path (the server's default).
pub const BASE: &str = "/MM/rest/v1";
/// The largest request body the server accepts in the benches, in MiB (the default 64
/// is too small for a model of a million objects).
const MAX_BODY_MIB: u64 = 4096;

/// Where the server keeps its data.
#[derive(Debug, Clone)]
pub enum Storage {
    /// A SQLite file (its folder exists).
    Sqlite(PathBuf),
    /// A PostgreSQL database URL.
    Postgres(String),
}

impl Storage {
    pub fn backend(&self) -> &'static str {
        match self {
            Storage::Sqlite(_) => "sqlite",
            Storage::Postgres(_) => "postgres",
        }
    }
}

/// A running `lore serve` child process, killed when dropped.
#[derive(Debug)]
pub struct LoreServer {
    child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    log: PathBuf,
}

impl LoreServer {
    /// Starts `lore serve` on a free port of 127.0.0.1 over `storage`, with `dir` as its
    /// working directory (so no `lore.toml` of the caller's is read) and its log in
    /// `dir/lore-<backend>.log`; returns once it listens. Configuration is by environment:
    /// a `LORE__...` variable of the caller's that these do not set (the log level, for
    /// example) reaches the server too.
    pub fn start(storage: &Storage, dir: &Path) -> BenchResult<LoreServer> {
        let log = dir.join(format!("lore-{}.log", storage.backend()));
        let out = File::create(&log)?;
        // `LORE_BENCH_BINARY`: another build's `lore` under the same bench, for an A/B.
        let binary = std::env::var_os("LORE_BENCH_BINARY")
            .unwrap_or_else(|| env!("CARGO_BIN_EXE_lore").into());
        let mut command = Command::new(binary);
        command
            .arg("serve")
            .current_dir(dir)
            .stdin(Stdio::null())
            .stdout(out.try_clone()?)
            .stderr(out)
            .env("NO_COLOR", "1")
            .env("LORE_ADMIN_PASSWORD", PASSWORD)
            .env("LORE__SERVER__LISTEN", "127.0.0.1:0")
            .env("LORE__SERVER__BASE_PATH", BASE)
            .env("LORE__SERVER__MAX_BODY_MIB", MAX_BODY_MIB.to_string())
            .env("LORE__AUTH__LOGIN_TIMEOUT", "1d")
            .env("LORE__STORAGE__BACKEND", storage.backend());
        match storage {
            Storage::Sqlite(path) => command.env("LORE__STORAGE__PATH", path),
            Storage::Postgres(url) => command.env("LORE__STORAGE__URL", url),
        };
        let child = command.spawn()?;
        let mut server = LoreServer {
            child,
            addr: SocketAddr::from(([127, 0, 0, 1], 0)),
            log,
        };
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            if let Some(addr) = listening_address(&std::fs::read_to_string(&server.log)?) {
                server.addr = addr;
                return Ok(server);
            }
            if let Some(status) = server.child.try_wait()? {
                return Err(format!("lore serve exited ({status}):\n{}", server.log_tail()).into());
            }
            if Instant::now() > deadline {
                return Err(format!(
                    "lore serve did not listen within 120 s:\n{}",
                    server.log_tail()
                )
                .into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The server's process id, for `/proc/<pid>/status`.
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Waits until the server's log says its search index holds at least `objects`
    /// objects (`search index read objects=… seconds=…`: after an import of many, the
    /// server reads it again in the background); answers the seconds that read took.
    #[allow(dead_code, reason = "not every bench searches")]
    pub fn search_index_read(&self, objects: usize) -> BenchResult<f64> {
        let deadline = Instant::now() + Duration::from_secs(300);
        loop {
            let log = std::fs::read_to_string(&self.log)?;
            for line in log.lines().filter(|l| l.contains("search index read")) {
                let field = |name: &str| {
                    line.split_whitespace()
                        .find_map(|word| word.strip_prefix(name))
                        .and_then(|v| v.parse::<f64>().ok())
                };
                if let (Some(read), Some(seconds)) = (field("objects="), field("seconds="))
                    && read >= objects as f64
                {
                    return Ok(seconds);
                }
            }
            if Instant::now() > deadline {
                return Err("the search index was not read within 300 s".into());
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// The last lines of the server's log, for error messages.
    pub fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(&self.log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }
}

impl Drop for LoreServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The address of the line `listening on http://<addr><base path> ...` of the log.
fn listening_address(log: &str) -> Option<SocketAddr> {
    let start = log.find("listening on http://")? + "listening on http://".len();
    let rest = &log[start..];
    let end = rest.find(['/', ' ', '\n'])?;
    rest[..end].parse().ok()
}

/// An HTTP/1.1 keep-alive connection to `addr`, whose driver runs as a task.
pub async fn connect<B>(addr: SocketAddr) -> BenchResult<SendRequest<B>>
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let stream = TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let (sender, connection) = http1::handshake(TokioIo::new(stream)).await?;
    tokio::spawn(async move {
        let _ = connection.await;
    });
    Ok(sender)
}

/// Sends one request on a new connection; returns the status and the whole body.
pub async fn call<B>(addr: SocketAddr, request: Request<B>) -> BenchResult<(StatusCode, Bytes)>
where
    B: Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let mut sender = connect(addr).await?;
    let response = sender.send_request(request).await?;
    let status = response.status();
    let body = response.into_body().collect().await?.to_bytes();
    Ok((status, body))
}

/// Logs in as the administrator; returns the API key.
pub async fn login(addr: SocketAddr) -> BenchResult<String> {
    let body = serde_json::json!({ "user": "Administrator", "password": PASSWORD }).to_string();
    let request = Request::post(format!("{BASE}/auth/loginPlainText"))
        .header(HOST, addr.to_string())
        .header(CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(body)))?;
    let (status, body) = call(addr, request).await?;
    if status != StatusCode::OK {
        return Err(format!("login: {status} {}", String::from_utf8_lossy(&body)).into());
    }
    Ok(String::from_utf8(body.to_vec())?.trim().to_owned())
}

/// Creates a folder of this name: a commit between two runs of a query, so that the
/// later run is not answered from what the server kept of the earlier one (the search
/// hit cache answers only at the data's state it read).
#[allow(dead_code, reason = "not every bench repeats queries")]
pub async fn commit_between_runs(addr: SocketAddr, key: &str, name: &str) -> BenchResult<()> {
    let folder = serde_json::json!({"name": name, "objectType": "Folder"});
    json_call(addr, key, "POST", "/repository/createFolder", Some(folder)).await?;
    Ok(())
}

/// A JSON call; answers the `result` of the envelope, or the error with the answer.
#[allow(dead_code, reason = "not every bench calls the API with JSON")]
pub async fn json_call(
    addr: SocketAddr,
    key: &str,
    method: &str,
    path: &str,
    body: Option<serde_json::Value>,
) -> BenchResult<serde_json::Value> {
    let request = Request::builder()
        .method(method)
        .uri(format!("{BASE}{path}"))
        .header(HOST, addr.to_string())
        .header("api-key", key)
        .header(CONTENT_TYPE, "application/json")
        .header(hyper::header::ACCEPT, "application/json")
        .body(Full::new(Bytes::from(
            body.map(|b| b.to_string()).unwrap_or_default(),
        )))?;
    let (status, body) = call(addr, request).await?;
    let answer: serde_json::Value = serde_json::from_slice(&body)
        .map_err(|e| format!("{method} {path}: {status}, not JSON ({e})"))?;
    if status != StatusCode::OK {
        return Err(format!("{method} {path}: {status} {answer}").into());
    }
    Ok(answer["result"].clone())
}

/// `POST /repository/attachments/{object}?name=...` of a file, streamed from disk.
#[allow(dead_code, reason = "only the import bench uses it")]
pub async fn attach(
    addr: SocketAddr,
    key: &str,
    object: &str,
    name: &str,
    file: &Path,
) -> BenchResult<()> {
    let body = FileBody::open(file)?;
    let request = Request::post(format!(
        "{BASE}/repository/attachments/{object}?name={name}"
    ))
    .header(HOST, addr.to_string())
    .header("api-key", key)
    .header(CONTENT_TYPE, "application/octet-stream")
    .header(CONTENT_LENGTH, body.remaining)
    .body(body)?;
    let (status, body) = call(addr, request).await?;
    if status != StatusCode::OK {
        return Err(format!("attach: {status} {}", String::from_utf8_lossy(&body)).into());
    }
    Ok(())
}

/// Creates a user (named `restricted`) who holds only the object role `role` on
/// `object`, and logs them in: a caller who sees part of the catalog.
#[allow(dead_code, reason = "the import bench does not use it")]
pub async fn key_with_object_role(
    addr: SocketAddr,
    admin: &str,
    object: &str,
    role: &str,
) -> BenchResult<String> {
    let send = |method: &str, path: &str, body: serde_json::Value| {
        Request::builder()
            .method(method)
            .uri(format!("{BASE}{path}"))
            .header(HOST, addr.to_string())
            .header("api-key", admin)
            .header(CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body.to_string())))
    };
    let password = "restricted-password";
    for request in [
        send(
            "POST",
            "/admin/users",
            serde_json::json!({"name": "restricted", "password": password}),
        )?,
        send(
            "PUT",
            &format!("/admin/grants/grantObjectRole/{object}"),
            serde_json::json!({"grantee": "restricted", "role": role}),
        )?,
    ] {
        let (status, body) = call(addr, request).await?;
        if status != StatusCode::OK {
            return Err(format!("{status} {}", String::from_utf8_lossy(&body)).into());
        }
    }
    let request = Request::post(format!("{BASE}/auth/loginPlainText"))
        .header(HOST, addr.to_string())
        .header(CONTENT_TYPE, "application/json")
        .body(Full::new(Bytes::from(
            serde_json::json!({"user": "restricted", "password": password}).to_string(),
        )))?;
    let (status, body) = call(addr, request).await?;
    if status != StatusCode::OK {
        return Err(format!("the restricted user's login: {status}").into());
    }
    Ok(String::from_utf8(body.to_vec())?.trim().to_owned())
}

/// Where [`import`] lands a model.
#[derive(Debug, Clone, Copy)]
#[allow(dead_code, reason = "each bench uses the variants it needs")]
pub enum ImportInto<'a> {
    /// A new model named as in the archive.
    New,
    /// A new model of this name.
    Named(&'a str),
    /// A re-import into the model of this id.
    Model(&'a str),
}

/// `POST /repository/model/import` of the zip file at `archive` as the raw body, streamed
/// from disk. Returns the `result` of the answer.
pub async fn import(
    addr: SocketAddr,
    key: &str,
    archive: &Path,
    into: ImportInto<'_>,
) -> BenchResult<serde_json::Value> {
    let body = FileBody::open(archive)?;
    let uri = match into {
        ImportInto::New => format!("{BASE}/repository/model/import"),
        ImportInto::Named(name) => format!("{BASE}/repository/model/import?modelName={name}"),
        ImportInto::Model(id) => format!("{BASE}/repository/model/import?modelId={id}"),
    };
    let request = Request::post(uri)
        .header(HOST, addr.to_string())
        .header("api-key", key)
        .header(CONTENT_TYPE, "application/zip")
        .header(CONTENT_LENGTH, body.remaining)
        .body(body)?;
    let (status, body) = call(addr, request).await?;
    let answer: serde_json::Value = serde_json::from_slice(&body).map_err(|e| {
        format!(
            "import: {status}, not JSON ({e}): {}",
            String::from_utf8_lossy(&body)
        )
    })?;
    if status != StatusCode::OK {
        return Err(format!("import: {status} {answer}").into());
    }
    Ok(answer["result"].clone())
}

/// A request body read from a file in chunks as hyper asks for them.
#[derive(Debug)]
pub struct FileBody {
    file: File,
    remaining: u64,
}

impl FileBody {
    const CHUNK: u64 = 256 * 1024;

    pub fn open(path: &Path) -> BenchResult<FileBody> {
        let file = File::open(path)?;
        let remaining = file.metadata()?.len();
        Ok(FileBody { file, remaining })
    }
}

impl Body for FileBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        _: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
        let this = self.get_mut();
        if this.remaining == 0 {
            return Poll::Ready(None);
        }
        // A blocking read of a local file: fine for a benchmark's client.
        let mut chunk = vec![0; this.remaining.min(Self::CHUNK) as usize];
        let read = match this.file.read(&mut chunk) {
            Ok(0) => Err(std::io::ErrorKind::UnexpectedEof.into()),
            Ok(read) => Ok(read),
            Err(e) => Err(e),
        };
        Poll::Ready(Some(read.map(|read| {
            chunk.truncate(read);
            this.remaining -= read as u64;
            Frame::data(Bytes::from(chunk))
        })))
    }

    fn is_end_stream(&self) -> bool {
        self.remaining == 0
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact(self.remaining)
    }
}

/// Reads a comma-separated list of numbers from the environment (`_` allowed in them).
pub fn env_list(name: &str, default: &[usize]) -> BenchResult<Vec<usize>> {
    match std::env::var(name) {
        Err(_) => Ok(default.to_vec()),
        Ok(text) => text
            .split(',')
            .map(|n| n.trim().replace('_', "").parse::<usize>())
            .collect::<Result<_, _>>()
            .map_err(|e| format!("{name}: {e}").into()),
    }
}

/// A `kB` line of `/proc/<pid>/status` (`VmRSS`, `VmHWM`) in KiB, where there is one.
pub fn vm_kib(pid: u32, field: &str) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    line[field.len()..]
        .trim_start_matches(':')
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}

/// KiB as MB for the tables, or `-` where the figure could not be read.
pub fn mb(kib: Option<u64>) -> String {
    kib.map_or_else(
        || "-".to_owned(),
        |k| format!("{:.0} MB", k as f64 * 1024.0 / 1e6),
    )
}
