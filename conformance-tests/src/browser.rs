//! The web UI's browser tests: Debian's Chromium, headless, driven through chromedriver
//! (WebDriver, by fantoccini) against a Lore this process starts.
//!
//! Without `chromium` and `chromedriver` the tests print why and pass, except under
//! `CI=true`, where they fail (`.ci/run` installs them). `LORE_CHROMIUM` and
//! `LORE_CHROMEDRIVER` name other binaries. Screenshots go to `target/ui-screenshots/`.

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
            }),
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
        Some(Browser {
            client,
            driver,
            origin: origin.trim_end_matches('/').to_owned(),
            name: name.to_owned(),
            shots: 0,
        })
    }

    /// Opens a path of the Lore under test.
    pub async fn goto(&self, path: &str) {
        self.client
            .goto(&format!("{}{path}", self.origin))
            .await
            .unwrap_or_else(|e| panic!("cannot open {path}: {e}"));
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
    pub async fn login(&self, user: &str, password: &str) {
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

    /// Ends the session.
    pub async fn close(self) {
        let _ = self.client.clone().close().await;
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
