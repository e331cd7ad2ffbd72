//! A real OpenID provider for the OAuth 2.0 cases: `oauth/provider.mjs` (oauth2-mock-server
//! with a control API), started by the test on a free port.
//!
//! The first start runs `npm ci` in `conformance-tests/oauth/` when `node_modules` is
//! missing, under a file lock so concurrent test processes install once. Without `node`
//! and `npm` the cases skip with a message, except under `CI=true`, where they fail.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::time::Duration;

use lore_server::Settings;
use serde_json::{Value, json};

/// The audience Lore is configured with against the provider.
pub const AUDIENCE: &str = "lore";
/// The introspection client credentials the provider accepts (and Lore is given).
pub const CLIENT_ID: &str = "lore-client";
pub const CLIENT_SECRET: &str = "lore-secret";
/// The group mapping Lore is configured with: provider group to Lore group.
pub const GROUPS: &[(&str, &str)] = &[("lore-admins", "Administrators"), ("stewards", "Stewards")];

/// A running provider, stopped when dropped.
#[derive(Debug)]
pub struct Provider {
    /// The issuer URL, e.g. `http://127.0.0.1:41234`.
    pub issuer: String,
    child: Child,
    stdin: Option<ChildStdin>,
    client: reqwest::Client,
}

fn provider_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/oauth"))
}

fn on_ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

fn tool_present(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// Runs `npm ci` unless `node_modules` is complete, holding `oauth/.npm-install.lock`.
/// Complete means a marker written after `npm ci` succeeded: a package's files appear
/// while `npm ci` still extracts the others, so no file of theirs tells.
fn install() {
    let dir = provider_dir();
    let marker = dir.join("node_modules/.lore-installed");
    let installed = || marker.exists();
    if installed() {
        return;
    }
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(dir.join(".npm-install.lock"))
        .expect("opening the npm install lock file");
    lock.lock().expect("locking the npm install lock file");
    if !installed() {
        let output = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .output()
            .expect("running npm ci");
        assert!(
            output.status.success(),
            "npm ci in {} failed: {}{}",
            dir.display(),
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        std::fs::write(&marker, b"npm ci succeeded\n").expect("marking node_modules complete");
    }
    let _ = lock.unlock();
}

impl Provider {
    /// Starts a provider (installing it first if needed), or `None` after saying why
    /// when node or npm is missing outside CI.
    pub async fn start() -> Option<Provider> {
        if !(tool_present("node") && tool_present("npm")) {
            assert!(
                !on_ci(),
                "node and npm are required under CI=true for the OAuth 2.0 cases"
            );
            eprintln!("skipping: node and npm are needed for the OAuth 2.0 provider");
            return None;
        }
        let (child, stdin, issuer) = tokio::task::spawn_blocking(|| {
            install();
            let mut child = Command::new("node")
                .arg("provider.mjs")
                .current_dir(provider_dir())
                .env("OAUTH_CLIENT_ID", CLIENT_ID)
                .env("OAUTH_CLIENT_SECRET", CLIENT_SECRET)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::inherit())
                .spawn()
                .expect("starting node provider.mjs");
            let stdin = child.stdin.take();
            let stdout = child.stdout.take().expect("the provider's stdout");
            let mut line = String::new();
            BufReader::new(stdout)
                .read_line(&mut line)
                .expect("reading the provider's first line");
            let started: Value = serde_json::from_str(&line).unwrap_or_else(|e| {
                panic!("the provider did not start (first line {line:?}: {e})")
            });
            let issuer = started["issuer"]
                .as_str()
                .expect("the provider names its issuer")
                .to_owned();
            (child, stdin, issuer)
        })
        .await
        .expect("starting the provider");
        Some(Provider {
            issuer,
            child,
            stdin,
            client: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .expect("an HTTP client"),
        })
    }

    /// Points Lore's `[auth.oauth2]` at this provider.
    pub fn configure(&self, settings: &mut Settings, create_users: bool) {
        let oauth2 = &mut settings.auth.oauth2;
        oauth2.enabled = true;
        oauth2.issuer = Some(self.issuer.clone());
        oauth2.audience = Some(AUDIENCE.into());
        oauth2.create_users = create_users;
        oauth2.introspection_client_id = Some(CLIENT_ID.into());
        oauth2.introspection_client_secret = Some(CLIENT_SECRET.into());
        oauth2.groups = GROUPS
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
    }

    async fn control(&self, path: &str, body: Value) -> Value {
        let response = self
            .client
            .post(format!("{}/control/{path}", self.issuer))
            .json(&body)
            .send()
            .await
            .unwrap_or_else(|e| panic!("the provider's /control/{path}: {e}"));
        assert!(
            response.status().is_success(),
            "the provider's /control/{path} answered {}",
            response.status()
        );
        response.json().await.expect("a JSON answer")
    }

    /// A token for `user` (subject [`subject_of`] `user`) with the audience Lore
    /// expects, signed by the published key.
    pub async fn token_for(&self, user: &str) -> String {
        self.token(json!({"preferred_username": user, "aud": AUDIENCE}))
            .await
    }

    /// A token with these claims set on the provider's defaults (iss, iat, exp in an
    /// hour, nbf 10 s ago); a `null` claim is removed.
    pub async fn token(&self, claims: Value) -> String {
        self.token_with(claims, 3600, "issuer").await
    }

    /// A token valid for `expires_in` seconds (negative: expired), signed by `signer`:
    /// `issuer`, `unknown-key` (a key id the JWKS lacks) or `wrong-key` (a foreign key
    /// reusing the published key id).
    pub async fn token_with(&self, mut claims: Value, expires_in: i64, signer: &str) -> String {
        with_subject(&mut claims);
        let answer = self
            .control(
                "token",
                json!({"claims": claims, "expiresIn": expires_in, "signer": signer}),
            )
            .await;
        answer["token"].as_str().expect("a token").to_owned()
    }

    /// Publishes a new signing key and withdraws the old one.
    pub async fn rotate(&self) {
        self.control("rotate", json!({})).await;
    }

    /// An opaque token whose introspection answers `answer` over the defaults (active,
    /// iss, exp in an hour).
    pub async fn opaque(&self, mut answer: Value) -> String {
        with_subject(&mut answer);
        let answer = self.control("opaque", json!({"answer": answer})).await;
        answer["token"].as_str().expect("a token").to_owned()
    }

    /// How often the JWKS was read and tokens introspected.
    pub async fn stats(&self) -> Value {
        self.client
            .get(format!("{}/control/stats", self.issuer))
            .send()
            .await
            .expect("the provider's stats")
            .json()
            .await
            .expect("JSON stats")
    }
}

impl Drop for Provider {
    fn drop(&mut self) {
        // Closing its standard input ends the script; kill it in case it hangs.
        drop(self.stdin.take());
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The subject (`sub`) of the provider's account named `user` in the tokens the tests
/// make, unless a test gives one.
pub fn subject_of(user: &str) -> String {
    format!("subject-of-{user}")
}

/// Claims without a `sub` get the one of their `preferred_username` ([`subject_of`]);
/// `"sub": null` removes it.
fn with_subject(claims: &mut Value) {
    if let Some(map) = claims.as_object_mut()
        && !map.contains_key("sub")
        && let Some(name) = map.get("preferred_username").and_then(Value::as_str)
    {
        let subject = subject_of(name);
        map.insert("sub".to_owned(), Value::String(subject));
    }
}
