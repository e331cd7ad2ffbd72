//! The harness of the HTTP suite: a [`Target`] (a running Lore and its administrator's
//! credentials), request helpers that return a [`Resp`], envelope assertions, and the
//! sample model as an in-memory archive.
//!
//! Cases never depend on each other and never on the state of the server beyond what
//! they create themselves under [`unique`] names, so the same case runs against a fresh
//! store and against a remote server that already holds data.

use std::any::Any;
use std::collections::BTreeMap;
use std::io::{Cursor, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use lore_core::Store;
use lore_server::{RunningServer, Settings};
use rand::Rng;
use reqwest::Method;
use reqwest::header::{CONTENT_TYPE, HeaderMap};
use serde_json::{Value, json};
use tokio::sync::OnceCell;

/// The administrator every local target is started with.
pub const ADMIN_USER: &str = "Administrator";
/// The administrator's password on local targets.
pub const ADMIN_PASSWORD: &str = "conformance-Secret-1";

/// A store to run the suite on, with whatever must live as long as it (a temporary
/// directory, a test database). The guards are dropped after the server stops.
pub struct Backend {
    pub store: Arc<dyn Store>,
    guards: Vec<Box<dyn Any + Send + Sync>>,
}

impl std::fmt::Debug for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Backend")
            .field("store", &self.store)
            .field("guards", &self.guards.len())
            .finish()
    }
}

impl Backend {
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self {
            store,
            guards: Vec::new(),
        }
    }

    /// Keeps `guard` alive until the target is dropped (after its server has stopped).
    pub fn keep(mut self, guard: impl Any + Send + Sync) -> Self {
        self.guards.push(Box::new(guard));
        self
    }
}

/// What a backend factory of [`http_suite`](crate::http_suite) may return: a store, a
/// [`Backend`], or an `Option` of either (`None` skips the case, e.g. when PostgreSQL is
/// unreachable).
pub trait IntoBackend {
    fn into_backend(self) -> Option<Backend>;
}

impl IntoBackend for Backend {
    fn into_backend(self) -> Option<Backend> {
        Some(self)
    }
}

impl IntoBackend for Arc<dyn Store> {
    fn into_backend(self) -> Option<Backend> {
        Some(Backend::new(self))
    }
}

impl<T: IntoBackend> IntoBackend for Option<T> {
    fn into_backend(self) -> Option<Backend> {
        self.and_then(IntoBackend::into_backend)
    }
}

/// A running Lore and the credentials of an administrator.
pub struct Target {
    /// `http://host:port/MM/rest/v1`: the base path included, no trailing slash.
    pub base_url: String,
    pub user: String,
    pub password: String,
    pub client: reqwest::Client,
    /// The backend name for messages (`memory`, `sqlite`, `postgres`, `remote`).
    pub backend: String,
    remote: bool,
    key: OnceCell<String>,
    /// The store under a local server, to create what no endpoint creates yet (users
    /// with fewer rights, grants, edges from other models); `None` on remote targets.
    store: Option<Arc<dyn Store>>,
    server: Option<RunningServer>,
    guards: Vec<Box<dyn Any + Send + Sync>>,
    /// The OpenID provider the server's `[auth.oauth2]` points at, for the OAuth 2.0 cases.
    oauth2: Option<crate::oauth_provider::Provider>,
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Target")
            .field("base_url", &self.base_url)
            .field("user", &self.user)
            .field("backend", &self.backend)
            .field("remote", &self.remote)
            .finish_non_exhaustive()
    }
}

impl Drop for Target {
    fn drop(&mut self) {
        // The server first, then what the store needs (a directory, a database).
        drop(self.server.take());
        self.guards.clear();
    }
}

fn client() -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(Duration::from_secs(300))
        .build()
        .expect("building the HTTP client")
}

impl Target {
    /// Starts Lore on a free local port over `store`, with the default settings.
    pub async fn spawn(store: Arc<dyn Store>) -> Target {
        Self::spawn_with(store, |_| {}).await
    }

    /// Starts Lore over `store` with the default settings changed by `adjust`.
    pub async fn spawn_with(store: Arc<dyn Store>, adjust: impl FnOnce(&mut Settings)) -> Target {
        Self::spawn_backend(Backend::new(store), adjust).await
    }

    /// Starts Lore over a backend, keeping its guards alive.
    pub async fn spawn_backend(backend: Backend, adjust: impl FnOnce(&mut Settings)) -> Target {
        Self::spawn_measured(backend, lore_server::Metrics::new(), adjust).await
    }

    /// [`Target::spawn_backend`], counting in `metrics` (which may watch the store's
    /// statements: [`lore_server::Metrics::watch_store`]).
    pub async fn spawn_measured(
        backend: Backend,
        metrics: lore_server::Metrics,
        adjust: impl FnOnce(&mut Settings),
    ) -> Target {
        let mut settings = Settings::default();
        settings.server.listen = "127.0.0.1:0".into();
        adjust(&mut settings);
        let name = backend.store.backend().to_owned();
        let store = backend.store.clone();
        let (server, _bootstrap) =
            lore_server::spawn_measured(backend.store, &settings, Some(ADMIN_PASSWORD), metrics)
                .await
                .expect("starting the Lore server");
        Target {
            base_url: server.base_url.clone(),
            user: ADMIN_USER.into(),
            password: ADMIN_PASSWORD.into(),
            client: client(),
            backend: name,
            remote: false,
            key: OnceCell::new(),
            store: Some(store),
            server: Some(server),
            guards: backend.guards,
            oauth2: None,
        }
    }

    /// A Lore running elsewhere; `base_url` includes the base path.
    pub fn remote(base_url: &str, user: &str, password: &str) -> Target {
        Target {
            base_url: base_url.trim_end_matches('/').to_owned(),
            user: user.into(),
            password: password.into(),
            client: client(),
            backend: "remote".into(),
            remote: true,
            key: OnceCell::new(),
            store: None,
            server: None,
            guards: Vec::new(),
            oauth2: None,
        }
    }

    /// The remote target of `LORE_CONFORMANCE_URL`, `LORE_CONFORMANCE_USER` and
    /// `LORE_CONFORMANCE_PASSWORD`, or `None` when they are not all set.
    pub fn remote_from_env() -> Option<Target> {
        let url = std::env::var("LORE_CONFORMANCE_URL").ok()?;
        let user = std::env::var("LORE_CONFORMANCE_USER").ok()?;
        let password = std::env::var("LORE_CONFORMANCE_PASSWORD").ok()?;
        Some(Self::remote(&url, &user, &password))
    }

    /// Keeps the OpenID provider the server was configured with, for [`Target::provider`].
    pub fn with_provider(mut self, provider: crate::oauth_provider::Provider) -> Self {
        self.oauth2 = Some(provider);
        self
    }

    /// The OpenID provider of an OAuth 2.0 case; panics on targets started without one.
    pub fn provider(&self) -> &crate::oauth_provider::Provider {
        self.oauth2
            .as_ref()
            .expect("this case needs a target started with an OpenID provider")
    }

    /// The store under a local server; `None` for a remote target.
    pub fn store(&self) -> Option<&Arc<dyn Store>> {
        self.store.as_ref()
    }

    /// Whether the target is a server the suite did not start (and shares with others).
    pub fn is_remote(&self) -> bool {
        self.remote
    }

    /// Stops a local server and waits for it; a remote target is left alone.
    /// The local server, `None` on a remote target.
    pub fn server(&self) -> Option<&RunningServer> {
        self.server.as_ref()
    }

    pub async fn shutdown(mut self) {
        if let Some(server) = self.server.take() {
            server.stop().await;
        }
    }

    /// Waits until the system log holds the calls answered so far: a local server
    /// writes them at once; a remote one within its flush interval (1s by default).
    pub async fn flush_system_log(&self) {
        match &self.server {
            Some(server) => server.flush_system_log().await,
            None => tokio::time::sleep(Duration::from_millis(2500)).await,
        }
    }

    /// The base path of the target (`/MM/rest/v1`), as the system log records paths.
    pub fn base_path(&self) -> String {
        let url = reqwest::Url::parse(&self.base_url).expect("the base URL is a URL");
        url.path().trim_end_matches('/').to_owned()
    }

    /// `scheme://host:port` of the target, without the base path.
    pub fn origin(&self) -> String {
        let url = reqwest::Url::parse(&self.base_url).expect("the base URL is a URL");
        url.origin().ascii_serialization()
    }

    /// The full URL of a path relative to the base path.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base_url)
    }

    // ---- requests

    /// A request to `path` (relative to the base path), without a key.
    pub fn anon(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        self.client.request(method, self.url(path))
    }

    /// A request to `path` with the administrator's key in the `api-key` header.
    pub async fn call(&self, method: Method, path: &str) -> reqwest::RequestBuilder {
        let key = self.key().await;
        self.anon(method, path).header("api-key", key)
    }

    /// Sends a request and reads the whole response.
    pub async fn send(&self, request: reqwest::RequestBuilder) -> Resp {
        let response = request.send().await.expect("sending the request");
        Resp::read(response).await
    }

    pub async fn get(&self, path: &str) -> Resp {
        self.get_q(path, &[]).await
    }

    /// GET with query parameters (URL-encoded by the client).
    pub async fn get_q(&self, path: &str, query: &[(&str, &str)]) -> Resp {
        let request = self.call(Method::GET, path).await.query(query);
        self.send(request).await
    }

    /// POST with a JSON body.
    pub async fn post(&self, path: &str, query: &[(&str, &str)], body: &Value) -> Resp {
        let request = self.call(Method::POST, path).await.query(query).json(body);
        self.send(request).await
    }

    /// PUT with a JSON body.
    pub async fn put(&self, path: &str, query: &[(&str, &str)], body: &Value) -> Resp {
        let request = self.call(Method::PUT, path).await.query(query).json(body);
        self.send(request).await
    }

    pub async fn delete(&self, path: &str, query: &[(&str, &str)]) -> Resp {
        let request = self.call(Method::DELETE, path).await.query(query);
        self.send(request).await
    }

    /// Sends a request over a bare connection (`Connection: close`), writing the body
    /// from another thread while the answer is read, so a server that answers before it
    /// has read the whole body (413) is heard rather than seen as a broken pipe.
    pub async fn send_raw(
        &self,
        method: &str,
        path: &str,
        headers: &[(&str, &str)],
        body: Vec<u8>,
    ) -> Resp {
        let url = reqwest::Url::parse(&self.url(path)).expect("a URL");
        let host = url.host_str().expect("a host").to_owned();
        let port = url.port_or_known_default().expect("a port");
        let mut head = format!(
            "{method} {} HTTP/1.1\r\nHost: {host}:{port}\r\nConnection: close\r\nContent-Length: {}\r\n",
            match url.query() {
                Some(q) => format!("{}?{q}", url.path()),
                None => url.path().to_owned(),
            },
            body.len()
        );
        for (name, value) in headers {
            head.push_str(&format!("{name}: {value}\r\n"));
        }
        head.push_str("\r\n");
        let raw = tokio::task::spawn_blocking(move || {
            use std::io::Read;
            let mut stream =
                std::net::TcpStream::connect((host.as_str(), port)).expect("connecting");
            stream
                .set_read_timeout(Some(Duration::from_secs(120)))
                .expect("a read timeout");
            let mut writer = stream.try_clone().expect("cloning the connection");
            let sender = std::thread::spawn(move || {
                // The server may stop reading early; a failed write is expected then.
                let _ = writer.write_all(head.as_bytes());
                let _ = writer.write_all(&body);
            });
            let mut raw = Vec::new();
            let _ = stream.read_to_end(&mut raw);
            let _ = sender.join();
            raw
        })
        .await
        .expect("the raw request");
        Resp::parse_raw(&raw)
    }

    // ---- authentication

    /// Logs in as the administrator (a new session each time) and returns the key read
    /// from `result.token`.
    pub async fn login(&self) -> String {
        let resp = self
            .send(
                self.anon(Method::POST, "/auth/login")
                    .json(&json!({"user": self.user, "password": self.password})),
            )
            .await;
        let result = resp.ok();
        result["token"]
            .as_str()
            .filter(|k| !k.is_empty())
            .unwrap_or_else(|| panic!("login answered no result.token: {}", resp.describe()))
            .to_owned()
    }

    /// The key this target's requests use, from one login.
    pub async fn key(&self) -> String {
        self.key.get_or_init(|| self.login()).await.clone()
    }

    /// Logs in as a new user (under a unique name) that holds only the given built-in
    /// global roles (none at all for `&[]`), and returns its key. The user is created
    /// and granted its roles through the API (`POST /admin/users`,
    /// `PUT /admin/grants/grantGlobalRoles`), so this works on a remote target too.
    pub async fn key_with_roles(&self, roles: &[&str]) -> String {
        self.user_with_roles(roles).await.1
    }

    /// [`Target::key_with_roles`], answering the new user's name with the key.
    pub async fn user_with_roles(&self, roles: &[&str]) -> (String, String) {
        use lore_core::model::Role;

        for role in roles {
            assert!(
                Role::builtin().iter().any(|r| r.name == *role && r.global),
                "'{role}' is no built-in global role"
            );
        }
        let name = unique("conformance-user");
        let password = unique("Password");
        let resp = self
            .post(
                "/admin/users",
                &[],
                &json!({
                    "name": name, "password": password,
                    "description": format!("conformance user with roles {roles:?}"),
                }),
            )
            .await;
        resp.ok();
        if !roles.is_empty() {
            self.put(
                "/admin/grants/grantGlobalRoles",
                &[],
                &json!({"grantee": name, "granteeType": "USER", "roles": roles}),
            )
            .await
            .ok();
        }
        let resp = self
            .send(
                self.anon(Method::POST, "/auth/login")
                    .json(&json!({"user": name, "password": password})),
            )
            .await;
        let key = resp.ok()["token"].as_str().map(str::to_owned);
        let key =
            key.unwrap_or_else(|| panic!("login answered no result.token: {}", resp.describe()));
        (name, key)
    }

    // ---- repository helpers

    /// Creates a folder (or configuration, or version) and returns its id.
    pub async fn create(&self, parent: Option<&str>, name: &str, object_type: &str) -> String {
        let mut body = json!({"name": name, "objectType": object_type});
        if let Some(parent) = parent {
            body["parentId"] = json!(parent);
        }
        let resp = self.post("/repository/createFolder", &[], &body).await;
        let id = resp.ok()["id"].as_str().map(str::to_owned);
        id.unwrap_or_else(|| panic!("createFolder answered no id: {}", resp.describe()))
    }

    /// Creates a folder under a unique name at the repository root; returns (id, name).
    pub async fn unique_folder(&self, prefix: &str) -> (String, String) {
        let name = unique(prefix);
        (self.create(None, &name, "Folder").await, name)
    }

    /// Imports an archive (raw `application/zip` body) with the given query parameters.
    pub async fn import(&self, archive: Vec<u8>, query: &[(&str, &str)]) -> Resp {
        let request = self
            .call(Method::POST, "/repository/model/import")
            .await
            .query(query)
            .header(CONTENT_TYPE, "application/zip")
            .body(archive);
        self.send(request).await
    }

    /// Imports the sample model under a unique name into a new unique folder; returns
    /// the summary and the folder's name.
    pub async fn import_sample(&self) -> Imported {
        self.import_archive(sample_archive(), "sample-folder", "Sample")
            .await
    }

    /// Imports a model archive into a new unique folder (named after `folder`) as a
    /// model with a unique name (after `model`).
    pub async fn import_archive(&self, archive: Vec<u8>, folder: &str, model: &str) -> Imported {
        let (folder_id, folder) = self.unique_folder(folder).await;
        let name = unique(model);
        let resp = self
            .import(archive, &[("folderId", &folder_id), ("modelName", &name)])
            .await;
        let summary = resp.ok().clone();
        Imported {
            model_id: summary["modelId"]
                .as_str()
                .expect("modelId in the import summary")
                .to_owned(),
            model_name: name.clone(),
            folder_id,
            path: format!("/{folder}/{name}"),
            summary,
        }
    }

    /// Exports a model (modelId in the query); answers the response.
    pub async fn export(&self, model: &str, query: &[(&str, &str)]) -> Resp {
        let mut all = vec![("modelId", model)];
        all.extend_from_slice(query);
        let request = self
            .call(Method::POST, "/repository/model/export")
            .await
            .query(&all);
        self.send(request).await
    }

    /// GET /entities/{id}, the id percent-encoded as one path segment.
    pub async fn entity(&self, id: &str) -> Resp {
        self.get(&format!("/entities/{}", encode_segment(id))).await
    }

    /// The repository as seen from the outside: every model (id and name) and the tree.
    pub async fn snapshot(&self) -> Value {
        let models = self.get("/configuration/listModels").await;
        let mut models: Vec<(String, String)> = models
            .ok()
            .as_array()
            .expect("listModels answers an array")
            .iter()
            .map(|m| {
                (
                    m["id"].as_str().unwrap_or_default().to_owned(),
                    m["name"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect();
        models.sort();
        let tree = self.get("/operations/repositoryBrowse").await;
        json!({"models": models, "tree": tree.ok().clone()})
    }
}

/// A model the sample archive was imported as.
#[derive(Debug, Clone)]
pub struct Imported {
    pub model_id: String,
    pub model_name: String,
    pub folder_id: String,
    /// The repository path of the model, `/<folder>/<model>`.
    pub path: String,
    /// The import summary (`result` of the import).
    pub summary: Value,
}

/// A response, read whole.
#[derive(Debug, Clone)]
pub struct Resp {
    pub status: u16,
    pub headers: HeaderMap,
    pub bytes: Vec<u8>,
    /// The body as JSON, or `Value::Null` when it is not JSON.
    pub json: Value,
}

impl Resp {
    async fn read(response: reqwest::Response) -> Resp {
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let bytes = response
            .bytes()
            .await
            .expect("reading the response body")
            .to_vec();
        let json = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
        Resp {
            status,
            headers,
            bytes,
            json,
        }
    }

    /// Reads a raw HTTP/1.1 answer (Content-Length, chunked, or until close).
    fn parse_raw(raw: &[u8]) -> Resp {
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .unwrap_or_else(|| panic!("no HTTP answer: {:?}", String::from_utf8_lossy(raw)));
        let head = String::from_utf8_lossy(&raw[..split]).into_owned();
        let mut rest = raw[split + 4..].to_vec();
        let mut lines = head.split("\r\n");
        let status: u16 = lines
            .next()
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|s| s.parse().ok())
            .unwrap_or_else(|| panic!("no status line in {head}"));
        let mut headers = HeaderMap::new();
        for line in lines {
            let Some((name, value)) = line.split_once(':') else {
                continue;
            };
            if let (Ok(n), Ok(v)) = (
                reqwest::header::HeaderName::from_bytes(name.trim().as_bytes()),
                reqwest::header::HeaderValue::from_str(value.trim()),
            ) {
                headers.append(n, v);
            }
        }
        let chunked = headers
            .get(reqwest::header::TRANSFER_ENCODING)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.contains("chunked"));
        if chunked {
            let mut body = Vec::new();
            let mut at = 0;
            while let Some(end) = rest[at..].windows(2).position(|w| w == b"\r\n") {
                let size_text = String::from_utf8_lossy(&rest[at..at + end]).into_owned();
                let size =
                    usize::from_str_radix(size_text.split(';').next().unwrap_or("0").trim(), 16)
                        .unwrap_or(0);
                at += end + 2;
                if size == 0 || at + size > rest.len() {
                    break;
                }
                body.extend_from_slice(&rest[at..at + size]);
                at += size + 2;
            }
            rest = body;
        } else if let Some(length) = headers
            .get(reqwest::header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<usize>().ok())
        {
            rest.truncate(length);
        }
        let json = serde_json::from_slice(&rest).unwrap_or(Value::Null);
        Resp {
            status,
            headers,
            bytes: rest,
            json,
        }
    }

    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.bytes).into_owned()
    }

    pub fn content_type(&self) -> String {
        self.headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_owned()
    }

    /// Status and (the start of) the body, for failure messages.
    pub fn describe(&self) -> String {
        let text = self.text();
        let shown: String = text.chars().take(600).collect();
        format!("status {}, body {shown}", self.status)
    }

    /// Asserts a 200 answer in the envelope without error, and returns `result`.
    #[track_caller]
    pub fn ok(&self) -> &Value {
        assert_eq!(self.status, 200, "expected 200: {}", self.describe());
        assert!(
            self.content_type().starts_with("application/json"),
            "expected a JSON envelope: {} (content type '{}')",
            self.describe(),
            self.content_type()
        );
        assert!(
            self.json.get("error").is_none_or(Value::is_null),
            "a success must carry no error: {}",
            self.describe()
        );
        self.json
            .get("result")
            .unwrap_or_else(|| panic!("the envelope has no result: {}", self.describe()))
    }

    /// `ok()` as an array.
    #[track_caller]
    pub fn ok_array(&self) -> &Vec<Value> {
        let result = self.ok();
        result
            .as_array()
            .unwrap_or_else(|| panic!("expected an array result: {}", self.describe()))
    }

    /// The error message of an error envelope.
    pub fn message(&self) -> String {
        self.json["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

/// Asserts an error in the envelope: the status, `result == ""`, `error.errorCode` and a
/// non-empty `error.message`.
#[track_caller]
pub fn assert_error(resp: &Resp, status: u16, code: &str) {
    assert_eq!(
        resp.status,
        status,
        "expected status {status} ({code}): {}",
        resp.describe()
    );
    assert!(
        resp.content_type().starts_with("application/json"),
        "an error must be a JSON envelope: {} (content type '{}')",
        resp.describe(),
        resp.content_type()
    );
    assert_eq!(
        resp.json["result"],
        json!(""),
        "result must be \"\" on failure: {}",
        resp.describe()
    );
    assert_eq!(
        resp.json["error"]["errorCode"],
        json!(code),
        "wrong errorCode: {}",
        resp.describe()
    );
    assert!(
        !resp.message().trim().is_empty(),
        "error.message must not be empty: {}",
        resp.describe()
    );
}

/// Asserts that the answer about a hidden object is the answer about a name that matches
/// nothing: the same status, headers that matter and body, byte for byte, once the
/// missing name in the second answer is replaced by the hidden one.
#[track_caller]
pub fn assert_same_as_missing(
    hidden: &Resp,
    hidden_name: &str,
    missing: &Resp,
    missing_name: &str,
) {
    assert_ne!(
        hidden.status,
        200,
        "a hidden object must not be served: {}",
        hidden.describe()
    );
    let expected = missing.text().replace(missing_name, hidden_name);
    assert_eq!(
        (hidden.status, hidden.content_type(), hidden.text()),
        (missing.status, missing.content_type(), expected),
        "the answer for the hidden '{hidden_name}' differs from the one for the missing \
         '{missing_name}'"
    );
}

/// A name no other case (and no earlier run against a remote server) uses.
pub fn unique(name: &str) -> String {
    let suffix: u64 = rand::rng().random();
    format!("{name}-{suffix:016x}")
}

/// Percent-encodes one path segment (everything but unreserved characters).
pub fn encode_segment(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

// ---------------------------------------------------------------------------------------
// The sample model and archives

/// The directory of the sample model's CSV files.
pub fn sample_dir() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../examples/sample-model"
    ))
}

/// The sample model's files: name to content, sorted by name.
pub fn sample_files() -> BTreeMap<String, Vec<u8>> {
    let dir = sample_dir();
    let entries = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading the sample model {}: {e}", dir.display()));
    let mut files = BTreeMap::new();
    for entry in entries {
        let path = entry.expect("listing the sample model").path();
        if path.extension().is_some_and(|e| e == "csv") {
            let name = path
                .file_name()
                .and_then(|n| n.to_str())
                .expect("a file name")
                .to_owned();
            let data =
                std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            files.insert(name, data);
        }
    }
    assert!(
        files.contains_key("model.csv") && files.contains_key("objects.csv"),
        "the sample model {} lacks model.csv or objects.csv",
        dir.display()
    );
    files
}

/// The sample model as a zip archive, built in memory.
pub fn sample_archive() -> Vec<u8> {
    zip_files(
        sample_files()
            .iter()
            .map(|(name, data)| (name.as_str(), data.as_slice())),
    )
}

/// A zip archive (deflated) of the given entries, in the given order.
pub fn zip_files<'a>(files: impl IntoIterator<Item = (&'a str, &'a [u8])>) -> Vec<u8> {
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated);
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, data) in files {
        zip.start_file(name, options).expect("starting a zip entry");
        zip.write_all(data).expect("writing a zip entry");
    }
    zip.finish().expect("finishing the zip").into_inner()
}

/// The entries of a zip archive: name to content.
pub fn unzip(bytes: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let mut zip = zip::ZipArchive::new(Cursor::new(bytes))
        .unwrap_or_else(|e| panic!("the answer is not a zip archive: {e}"));
    let mut files = BTreeMap::new();
    for index in 0..zip.len() {
        let mut file = zip.by_index(index).expect("reading a zip entry");
        let mut data = Vec::new();
        std::io::Read::read_to_end(&mut file, &mut data).expect("inflating a zip entry");
        files.insert(file.name().to_owned(), data);
    }
    files
}

/// The rows of a CSV file as header-to-cell maps.
pub fn csv_rows(data: &[u8]) -> Vec<BTreeMap<String, String>> {
    let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .from_reader(data);
    let headers: Vec<String> = reader
        .headers()
        .expect("a CSV header")
        .iter()
        .map(|h| h.trim().to_ascii_lowercase())
        .collect();
    reader
        .records()
        .map(|record| {
            let record = record.expect("a CSV record");
            headers
                .iter()
                .cloned()
                .zip(record.iter().map(str::to_owned))
                .collect()
        })
        .collect()
}

/// The sample model's content, read from its CSV files, to check answers against.
#[derive(Debug, Clone)]
pub struct Sample {
    pub files: BTreeMap<String, Vec<u8>>,
    pub name: String,
    pub profile: String,
    pub objects: Vec<BTreeMap<String, String>>,
}

impl Sample {
    pub fn load() -> Sample {
        let files = sample_files();
        let model = csv_rows(&files["model.csv"]);
        let model = model.first().expect("model.csv has a data row").clone();
        let objects = csv_rows(&files["objects.csv"]);
        Sample {
            name: model.get("name").cloned().unwrap_or_default(),
            profile: model.get("profile").cloned().unwrap_or_default(),
            objects,
            files,
        }
    }

    /// The rows of one file (empty when the sample has no such file).
    pub fn rows(&self, file: &str) -> Vec<BTreeMap<String, String>> {
        self.files
            .get(file)
            .map(|data| csv_rows(data))
            .unwrap_or_default()
    }

    pub fn object(&self, native_id: &str) -> Option<&BTreeMap<String, String>> {
        self.objects
            .iter()
            .find(|o| cell(o, "native_id") == native_id)
    }

    /// The names from the model's top level down to the object.
    pub fn names_to(&self, native_id: &str) -> Vec<String> {
        let mut names = Vec::new();
        let mut next = Some(native_id.to_owned());
        while let Some(id) = next {
            let Some(row) = self.object(&id) else { break };
            names.push(cell(row, "name").to_owned());
            next = Some(cell(row, "parent_native_id").to_owned()).filter(|p| !p.is_empty());
            if names.len() > self.objects.len() {
                break;
            }
        }
        names.reverse();
        names
    }

    /// Whether every object on the way to this one has a name unique among its siblings,
    /// so its repository path names it alone.
    pub fn path_is_unique(&self, native_id: &str) -> bool {
        let mut next = Some(native_id.to_owned());
        while let Some(id) = next {
            let Some(row) = self.object(&id) else {
                return false;
            };
            let parent = cell(row, "parent_native_id");
            let same = self
                .objects
                .iter()
                .filter(|o| {
                    cell(o, "parent_native_id") == parent && cell(o, "name") == cell(row, "name")
                })
                .count();
            if same != 1 {
                return false;
            }
            next = Some(parent.to_owned()).filter(|p| !p.is_empty());
        }
        true
    }

    /// The qualified object type of a row: as written when it is one of `known` (the
    /// qualified names listObjectTypes answers), else `<model profile>.<type>`.
    pub fn qualified_type(&self, row: &BTreeMap<String, String>, known: &[String]) -> String {
        let text = cell(row, "object_type");
        if known.iter().any(|k| k == text) {
            text.to_owned()
        } else {
            format!("{}.{text}", self.profile)
        }
    }

    /// The sample's files with one replaced (or added); `None` removes it.
    pub fn with_file(&self, name: &str, data: Option<Vec<u8>>) -> BTreeMap<String, Vec<u8>> {
        let mut files = self.files.clone();
        match data {
            Some(d) => files.insert(name.to_owned(), d),
            None => files.remove(name),
        };
        files
    }
}

/// A cell of a CSV row ("" when absent).
pub fn cell<'a>(row: &'a BTreeMap<String, String>, column: &str) -> &'a str {
    row.get(column).map(String::as_str).unwrap_or_default()
}

/// Zips a map of files.
pub fn zip_map(files: &BTreeMap<String, Vec<u8>>) -> Vec<u8> {
    zip_files(files.iter().map(|(n, d)| (n.as_str(), d.as_slice())))
}

/// The first line in which two archives differ, for messages.
pub fn first_difference(a: &BTreeMap<String, Vec<u8>>, b: &BTreeMap<String, Vec<u8>>) -> String {
    let names: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    for name in names {
        let (x, y) = (a.get(name), b.get(name));
        if x == y {
            continue;
        }
        let (Some(x), Some(y)) = (x, y) else {
            return format!("{name} is only in one of them");
        };
        let (x, y) = (String::from_utf8_lossy(x), String::from_utf8_lossy(y));
        for (i, (l, r)) in x.split('\n').zip(y.split('\n')).enumerate() {
            if l != r {
                return format!("{name} line {}: {l:?} vs {r:?}", i + 1);
            }
        }
        return format!(
            "{name}: {} vs {} lines",
            x.split('\n').count(),
            y.split('\n').count()
        );
    }
    "no difference".to_owned()
}
