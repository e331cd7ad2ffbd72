//! The web UI's browser tests: Debian's Chromium, headless, driven through chromedriver
//! (WebDriver, by fantoccini) against a Lore this process starts.
//!
//! Without `chromium` and `chromedriver` the tests print why and pass, except under
//! `CI=true`, where they fail (`.ci/run` installs them). `LORE_CHROMIUM` and
//! `LORE_CHROMEDRIVER` name other binaries. Screenshots go to `target/ui-screenshots/`.
//!
//! Every screen is also checked for the UI's browser protections
//! ([`Browser::check_protections`], run before each [`Browser::goto`] and when a case
//! ends): every answer under `/ui/` the browser received (pages, redirects, htmx
//! fragments, downloads, static files) carries the headers, and Chromium reported no
//! Content Security Policy violation, neither to a `securitypolicyviolation` listener
//! put into every document before its own scripts run nor in its console.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use fantoccini::elements::Element;
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;
use serde_json::{Value, json};

/// How long a test waits for an element to appear.
const WAIT: Duration = Duration::from_secs(15);

/// The vendored axe-core, checked against `ui/SHA256SUMS` before use.
const AXE: &str = include_str!("../ui/axe-4.14.1.min.js");

/// The UI's Content Security Policy, as `docs/security.md` states it.
pub const UI_POLICY: &str = "default-src 'self'; frame-ancestors 'none'; object-src 'none'; \
                             base-uri 'none'; form-action 'self'";

/// The headers every answer under `/ui/` carries.
pub const UI_HEADERS: &[(&str, &str)] = &[
    ("content-security-policy", UI_POLICY),
    ("x-frame-options", "DENY"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "same-origin"),
];

/// Put into every document before its own scripts (through the DevTools protocol):
/// each `securitypolicyviolation` is kept in the tab's `sessionStorage`, which outlives
/// the page, until [`Browser::check_protections`] reads it.
const VIOLATION_LISTENER: &str = r#"
document.addEventListener("securitypolicyviolation", function (e) {
  try {
    var kept = JSON.parse(sessionStorage.getItem("loreCspViolations") || "[]");
    kept.push(e.violatedDirective + " blocked " + (e.blockedURI || "inline") + " at " + e.documentURI
      + (e.sample ? " (" + e.sample + ")" : ""));
    sessionStorage.setItem("loreCspViolations", JSON.stringify(kept));
  } catch (_) {}
}, true);
"#;

/// Chromium and chromedriver, when both are installed.
pub fn installed() -> Option<(PathBuf, PathBuf)> {
    let find = |env: &str, names: &[&str]| -> Option<PathBuf> {
        if let Some(path) = std::env::var_os(env) {
            return Some(PathBuf::from(path));
        }
        let dirs = std::env::var_os("PATH")?;
        std::env::split_paths(&dirs)
            .flat_map(|dir| names.iter().map(move |n| dir.join(n)))
            .find(|p| p.is_file())
    };
    let chromium = find(
        "LORE_CHROMIUM",
        &["chromium", "chromium-browser", "google-chrome"],
    )?;
    let driver = find("LORE_CHROMEDRIVER", &["chromedriver"])?;
    Some((chromium, driver))
}

/// Whether a missing browser fails the run instead of skipping it.
pub fn required() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// Where screenshots go: `<target>/ui-screenshots/`.
pub fn screenshot_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("ui-screenshots")
}

/// A headless Chromium on its own chromedriver, stopped when dropped.
pub struct Browser {
    pub client: Client,
    driver: Child,
    /// `http://127.0.0.1:port/session/id` of chromedriver, for the commands fantoccini
    /// does not have (logs, the DevTools protocol).
    session_url: String,
    /// UI answers whose headers were checked so far.
    pub checked_answers: usize,
    /// `http://127.0.0.1:port` of the Lore under test.
    pub origin: String,
    /// Prefix of this test's screenshots (`sqlite-search`).
    name: String,
    shots: usize,
}

impl std::fmt::Debug for Browser {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Browser")
            .field("origin", &self.origin)
            .finish()
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        let _ = self.driver.kill();
        let _ = self.driver.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free local port")
}

impl Browser {
    /// Starts chromedriver and a Chromium session; `None` (with a message) when they
    /// are not installed and the run does not require them.
    pub async fn open(origin: &str, name: &str) -> Option<Browser> {
        let Some((chromium, chromedriver)) = installed() else {
            assert!(
                !required(),
                "chromium and chromedriver are not installed, and CI=true requires the browser tests \
                 (apt-get install -y --no-install-recommends chromium chromium-driver fonts-dejavu-core)"
            );
            eprintln!(
                "skipped: chromium and chromedriver are not installed \
                 (apt-get install -y --no-install-recommends chromium chromium-driver fonts-dejavu-core)"
            );
            return None;
        };
        let port = free_port();
        let driver = Command::new(&chromedriver)
            .arg(format!("--port={port}"))
            .arg("--allowed-ips=127.0.0.1")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", chromedriver.display()));
        let url = format!("http://127.0.0.1:{port}");
        let mut capabilities = serde_json::Map::new();
        capabilities.insert(
            "goog:chromeOptions".into(),
            json!({
                "binary": chromium,
                "args": [
                    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                    "--window-size=1280,900", "--lang=en-US", "--no-first-run",
                ],
                // The network events (with each answer's headers) for the checks.
                "perfLoggingPrefs": { "enableNetwork": true, "enablePage": false },
            }),
        );
        capabilities.insert(
            "goog:loggingPrefs".into(),
            json!({ "performance": "ALL", "browser": "ALL" }),
        );
        let mut last = String::new();
        let mut browser = None;
        for _ in 0..100 {
            match ClientBuilder::new(HttpConnector::new())
                .capabilities(capabilities.clone())
                .connect(&url)
                .await
            {
                Ok(client) => {
                    browser = Some(client);
                    break;
                }
                Err(e) => {
                    last = e.to_string();
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        }
        let client = browser.unwrap_or_else(|| panic!("cannot start a Chromium session: {last}"));
        let session = client
            .session_id()
            .await
            .expect("the WebDriver session's id")
            .expect("a WebDriver session");
        let browser = Browser {
            client,
            driver,
            session_url: format!("{url}/session/{session}"),
            checked_answers: 0,
            origin: origin.trim_end_matches('/').to_owned(),
            name: name.to_owned(),
            shots: 0,
        };
        browser
            .devtools(
                "Page.addScriptToEvaluateOnNewDocument",
                json!({ "source": VIOLATION_LISTENER }),
            )
            .await;
        Some(browser)
    }

    /// A command of chromedriver's own, answered by its `value`.
    async fn driver_command(&self, path: &str, body: Value) -> Value {
        let answer = reqwest::Client::new()
            .post(format!("{}/{path}", self.session_url))
            .json(&body)
            .send()
            .await
            .unwrap_or_else(|e| panic!("chromedriver {path}: {e}"));
        let status = answer.status();
        let value: Value = answer
            .json()
            .await
            .unwrap_or_else(|e| panic!("chromedriver {path}: {e}"));
        assert!(status.is_success(), "chromedriver {path}: {value}");
        value["value"].clone()
    }

    /// A command of the DevTools protocol, on the current tab.
    pub async fn devtools(&self, command: &str, params: Value) -> Value {
        self.driver_command(
            "goog/cdp/execute",
            json!({ "cmd": command, "params": params }),
        )
        .await
    }

    /// The entries of one of Chromium's logs (`browser`, `performance`) since the last
    /// read.
    async fn log(&self, kind: &str) -> Vec<Value> {
        match self.driver_command("se/log", json!({ "type": kind })).await {
            Value::Array(entries) => entries,
            other => panic!("the {kind} log is not a list: {other}"),
        }
    }

    /// What breaks the UI's browser protections since the last check: an answer under
    /// `/ui/` without one of [`UI_HEADERS`] (or `Cache-Control: no-store`, except a
    /// static file, which must not have it), or a Content Security Policy violation
    /// Chromium reported. Counts the answers checked in [`Browser::checked_answers`].
    pub async fn protection_failures(&mut self) -> Vec<String> {
        let mut failures = Vec::new();
        let ui = format!("{}/ui", self.origin);
        for entry in self.log("performance").await {
            let Some(message) = entry["message"]
                .as_str()
                .and_then(|m| serde_json::from_str::<Value>(m).ok())
            else {
                continue;
            };
            let event = &message["message"];
            let response = match event["method"].as_str() {
                Some("Network.responseReceived") => &event["params"]["response"],
                // A redirect's answer comes with the request it leads to.
                Some("Network.requestWillBeSent") => &event["params"]["redirectResponse"],
                _ => continue,
            };
            let Some(url) = response["url"].as_str() else {
                continue;
            };
            let path = match url.strip_prefix(&ui) {
                Some(rest) if rest.is_empty() || rest.starts_with('/') => &url[self.origin.len()..],
                _ => continue,
            };
            self.checked_answers += 1;
            let header = |name: &str| -> Option<String> {
                response["headers"].as_object().and_then(|headers| {
                    headers
                        .iter()
                        .find(|(n, _)| n.eq_ignore_ascii_case(name))
                        .and_then(|(_, v)| v.as_str())
                        .map(str::to_owned)
                })
            };
            let status = response["status"].as_u64().unwrap_or_default();
            for (name, value) in UI_HEADERS {
                if header(name).as_deref() != Some(*value) {
                    failures.push(format!(
                        "{status} {path}: {name} is {:?}, not {value:?}",
                        header(name)
                    ));
                }
            }
            let cache = header("cache-control").unwrap_or_default();
            let static_file = path.starts_with("/ui/static/") && status == 200;
            if static_file == (cache == "no-store") {
                failures.push(format!(
                    "{status} {path}: cache-control is {cache:?} (no-store {})",
                    if static_file {
                        "only off static files"
                    } else {
                        "wanted"
                    }
                ));
            }
        }
        for entry in self.log("browser").await {
            let text = entry["message"].as_str().unwrap_or_default();
            if text.contains("Content Security Policy") {
                failures.push(format!("console: {text}"));
            }
        }
        let kept = self
            .client
            .execute(
                "try {
                   const kept = sessionStorage.getItem('loreCspViolations');
                   sessionStorage.removeItem('loreCspViolations');
                   return JSON.parse(kept || '[]');
                 } catch (e) { return []; }",
                Vec::new(),
            )
            .await
            .unwrap_or_default();
        for violation in kept.as_array().into_iter().flatten() {
            failures.push(format!(
                "securitypolicyviolation: {}",
                violation.as_str().unwrap_or_default()
            ));
        }
        failures
    }

    /// Fails the case when [`Browser::protection_failures`] finds anything.
    pub async fn check_protections(&mut self) {
        let failures = self.protection_failures().await;
        assert!(
            failures.is_empty(),
            "the UI's browser protections failed (before leaving {}):\n{}",
            self.at().await,
            failures.join("\n")
        );
    }

    /// Opens a path of the Lore under test, after checking the protections of what the
    /// browser saw since the last check.
    pub async fn goto(&mut self, path: &str) {
        let url = format!("{}{path}", self.origin);
        self.goto_url(&url).await;
    }

    /// Opens any address, after checking the protections of what the browser saw since
    /// the last check.
    pub async fn goto_url(&mut self, url: &str) {
        self.check_protections().await;
        self.client
            .goto(url)
            .await
            .unwrap_or_else(|e| panic!("cannot open {url}: {e}"));
    }

    /// The path and query the browser is at.
    pub async fn at(&self) -> String {
        let url = self.client.current_url().await.expect("the current URL");
        match url.query() {
            Some(q) => format!("{}?{q}", url.path()),
            None => url.path().to_owned(),
        }
    }

    /// The element a CSS selector finds, waiting for it to appear.
    pub async fn find(&self, css: &str) -> Element {
        match self
            .client
            .wait()
            .at_most(WAIT)
            .for_element(Locator::Css(css))
            .await
        {
            Ok(element) => element,
            Err(e) => {
                let page = self.client.source().await.unwrap_or_default();
                panic!(
                    "no element {css} at {} within {WAIT:?}: {e}\n--- page ---\n{}",
                    self.at().await,
                    excerpt(&page)
                )
            }
        }
    }

    /// Every element the selector finds now.
    pub async fn all(&self, css: &str) -> Vec<Element> {
        self.client
            .find_all(Locator::Css(css))
            .await
            .unwrap_or_default()
    }

    /// The text of the element a selector finds.
    pub async fn text(&self, css: &str) -> String {
        self.find(css)
            .await
            .text()
            .await
            .expect("an element's text")
    }

    /// Waits until `probe` (a JavaScript expression) is true.
    pub async fn wait_until(&self, what: &str, probe: &str) {
        let script = format!("return !!({probe});");
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let done = self
                .client
                .execute(&script, Vec::new())
                .await
                .ok()
                .and_then(|v| v.as_bool())
                .unwrap_or(false);
            if done {
                return;
            }
            if tokio::time::Instant::now() > deadline {
                let page = self.client.source().await.unwrap_or_default();
                panic!(
                    "{what}: not within {WAIT:?} at {}\n--- page ---\n{}",
                    self.at().await,
                    excerpt(&page)
                );
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The page's HTML as the browser has it now.
    pub async fn source(&self) -> String {
        self.client.source().await.expect("the page source")
    }

    /// Fetches a path of the Lore under test from the page (with the browser's
    /// cookies): the answer as it came, its body byte for byte (as text). Its headers
    /// reach [`Browser::check_protections`] like a page's.
    pub async fn fetch(&self, path: &str) -> Fetched {
        let answer = self
            .client
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 fetch(arguments[0], { credentials: 'same-origin' })
                   .then(r => r.text().then(body => done({
                     status: r.status, redirected: r.redirected, url: r.url,
                     type: r.headers.get('content-type') || '',
                     disposition: r.headers.get('content-disposition') || '',
                     body: body })))
                   .catch(e => done({ status: 0, redirected: false, url: '', type: '',
                     disposition: '', body: 'fetch failed: ' + e }));",
                vec![json!(path)],
            )
            .await
            .unwrap_or_else(|e| panic!("fetching {path}: {e}"));
        let text = |name: &str| answer[name].as_str().unwrap_or_default().to_owned();
        Fetched {
            path: path.to_owned(),
            status: answer["status"].as_u64().unwrap_or_default() as u16,
            redirected: answer["redirected"].as_bool().unwrap_or(true),
            content_type: text("type"),
            disposition: text("disposition"),
            body: text("body"),
        }
    }

    /// Runs a script and answers its value.
    pub async fn run(&self, script: &str) -> Value {
        self.client
            .execute(script, Vec::new())
            .await
            .unwrap_or_else(|e| panic!("the script failed: {e}\n{script}"))
    }

    /// Saves a screenshot as `target/ui-screenshots/<test>-<n>-<what>.png`.
    pub async fn shot(&mut self, what: &str) {
        self.shots += 1;
        let png = self.client.screenshot().await.expect("a screenshot");
        let dir = screenshot_dir();
        std::fs::create_dir_all(&dir).expect("the screenshot directory");
        let file = dir.join(format!("{}-{:02}-{what}.png", self.name, self.shots));
        std::fs::write(&file, png).expect("writing a screenshot");
    }

    /// Logs in through the password form (the one on screen, else a new one).
    pub async fn login(&mut self, user: &str, password: &str) {
        if !self.at().await.starts_with("/ui/login") {
            self.goto("/ui/login").await;
        }
        let field = self.find("#user").await;
        field.clear().await.expect("clearing the user field");
        field.send_keys(user).await.expect("typing the user");
        self.find("#password")
            .await
            .send_keys(password)
            .await
            .expect("typing the password");
        // Marks this document, so the wait below ends only once the form's answer
        // replaced it: a `goto` right after must not race the submission.
        self.run("window.loreLoginPending = true;").await;
        self.find("#login-button")
            .await
            .click()
            .await
            .expect("pressing Log in");
        self.wait_until(
            "the answer to the login form",
            "!window.loreLoginPending && document.readyState === 'complete'",
        )
        .await;
    }

    /// The serious and critical violations axe-core finds on the page, one line each.
    pub async fn accessibility_violations(&self) -> Vec<String> {
        self.run(AXE).await;
        let answer = self
            .client
            .execute_async(
                "const done = arguments[arguments.length - 1];
                 axe.run(document, { resultTypes: ['violations'] })
                    .then(r => done(r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help,
                        nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5) }))))
                    .catch(e => done([{ id: 'axe-error', impact: 'critical', help: String(e), nodes: [] }]));",
                Vec::new(),
            )
            .await
            .expect("running axe-core");
        answer
            .as_array()
            .into_iter()
            .flatten()
            .filter(|v| matches!(v["impact"].as_str(), Some("serious" | "critical")))
            .map(|v| {
                format!(
                    "{} ({}): {} at {}",
                    v["id"], v["impact"], v["help"], v["nodes"]
                )
            })
            .collect()
    }

    /// Checks the protections of what the browser saw last, and that at least one UI
    /// answer was checked in the whole case; then ends the session.
    pub async fn finish(mut self) {
        self.check_protections().await;
        assert!(
            self.checked_answers > 0,
            "no answer of the UI reached the protection checks"
        );
        self.close().await;
    }

    /// Ends the session.
    pub async fn close(self) {
        let _ = self.client.clone().close().await;
    }
}

/// An answer [`Browser::fetch`] got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    pub path: String,
    pub status: u16,
    /// Whether the answer came after a redirect (to the login form, say).
    pub redirected: bool,
    pub content_type: String,
    pub disposition: String,
    pub body: String,
}

/// A site of another origin (`http://127.0.0.1:<its own port>`: the same site as the
/// Lore under test, which makes SameSite cookies go along, but another origin), serving
/// `/frame`, a page that frames a Lore address and, as a control, a page of a third
/// origin (`http://localhost:<port>/plain`) that sets no protections. Stops when dropped.
#[derive(Debug)]
pub struct AnotherSite {
    port: u16,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for AnotherSite {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl AnotherSite {
    /// Serves a page that frames `framed` (a full address).
    pub async fn start(framed: &str) -> AnotherSite {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port for the other site");
        let port = listener.local_addr().expect("its address").port();
        let frame_page = format!(
            "<!doctype html><html lang=\"en\"><head><title>Another site</title></head><body>\
             <iframe id=\"framed\" title=\"framed\" src=\"{framed}\" \
               onload=\"window.framesLoaded = (window.framesLoaded || 0) + 1\"></iframe>\
             <iframe id=\"control\" title=\"control\" src=\"http://localhost:{port}/plain\" \
               onload=\"window.framesLoaded = (window.framesLoaded || 0) + 1\"></iframe>\
             </body></html>"
        );
        let task = tokio::spawn(async move {
            use tokio::io::{AsyncReadExt, AsyncWriteExt};
            loop {
                let Ok((mut stream, _)) = listener.accept().await else {
                    return;
                };
                let frame_page = frame_page.clone();
                tokio::spawn(async move {
                    let mut request = Vec::new();
                    let mut buffer = [0u8; 2048];
                    while !request.windows(4).any(|w| w == b"\r\n\r\n") {
                        match stream.read(&mut buffer).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => request.extend_from_slice(&buffer[..n]),
                        }
                    }
                    let line = String::from_utf8_lossy(&request);
                    let path = line.split_whitespace().nth(1).unwrap_or("/").to_owned();
                    let (status, body) = match path.as_str() {
                        "/frame" => ("200 OK", frame_page),
                        "/plain" => (
                            "200 OK",
                            "<!doctype html><html lang=\"en\"><head><title>Plain</title></head>\
                             <body><p id=\"plain\">A page of a third origin</p></body></html>"
                                .to_owned(),
                        ),
                        _ => ("404 Not Found", String::new()),
                    };
                    let answer = format!(
                        "HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\n\
                         Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                        body.len()
                    );
                    let _ = stream.write_all(answer.as_bytes()).await;
                    let _ = stream.shutdown().await;
                });
            }
        });
        AnotherSite { port, task }
    }

    /// The framing page's address.
    pub fn frame_url(&self) -> String {
        format!("http://127.0.0.1:{}/frame", self.port)
    }
}

fn excerpt(page: &str) -> String {
    let body = page.find("<main").map_or(page, |at| &page[at..]);
    body.chars().take(3000).collect()
}

#[cfg(test)]
mod tests {
    use sha2::{Digest, Sha256};

    #[test]
    fn axe_matches_its_checksum() {
        let sums = include_str!("../ui/SHA256SUMS");
        let (sum, name) = sums.trim().split_once("  ").expect("sha256sum format");
        assert_eq!(name, "axe-4.14.1.min.js");
        let actual: String = Sha256::digest(super::AXE.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(actual, sum);
    }
}
