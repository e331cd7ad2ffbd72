//! Operations survive a restart of Lore, and one interrupted by a crash is marked failed,
//! never left running: the real `lore` executable over SQLite and PostgreSQL, killed
//! with SIGKILL in the middle of an import and started again on the same database.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use lore_conformance::plugins::built;
use lore_conformance::postgres::TestDatabase;
use serde_json::{Value, json};

const PASSWORD: &str = "restart-Secret-1";

/// A `lore serve` child process and its base URL.
struct Lore {
    child: Child,
    base: String,
    client: reqwest::Client,
    key: String,
}

impl Drop for Lore {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// Starts `lore serve` over the storage section given, the misbehaving plugin configured.
async fn start(dir: &Path, storage: &str) -> Lore {
    let built = built();
    let port = free_port();
    let config = dir.join(format!("lore-{port}.toml"));
    std::fs::write(
        &config,
        format!(
            "[server]\nlisten = \"127.0.0.1:{port}\"\n\n{storage}\n\n[operations]\nheartbeat = \"250ms\"\nstale_after = \"2s\"\n\n[[plugins]]\npath = \"{}\"\ntimeout = \"10m\"\n",
            built.library("lore-plugin-misbehaving").display()
        ),
    )
    .expect("writing the configuration");
    let child = Command::new(&built.lore)
        .args(["serve", "--config"])
        .arg(&config)
        .env("LORE_ADMIN_PASSWORD", PASSWORD)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting lore");
    let base = format!("http://127.0.0.1:{port}/MM/rest/v1");
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    let key = loop {
        let login = client
            .post(format!("{base}/auth/loginPlainText"))
            .json(&json!({"user": "Administrator", "password": PASSWORD}))
            .send()
            .await;
        if let Ok(response) = login
            && response.status().is_success()
        {
            break response.text().await.expect("a key");
        }
        assert!(Instant::now() < deadline, "lore did not start");
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    Lore {
        child,
        base,
        client,
        key,
    }
}

impl Lore {
    async fn call(&self, method: reqwest::Method, path: &str, body: Option<Value>) -> Value {
        let mut request = self
            .client
            .request(method, format!("{}{path}", self.base))
            .header("api-key", &self.key);
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.expect("a response");
        let status = response.status();
        let value: Value = response.json().await.expect("a JSON answer");
        assert!(status.is_success(), "{path}: {status} {value}");
        value["result"].clone()
    }

    async fn operations(&self) -> Vec<Value> {
        self.call(reqwest::Method::GET, "/operations/listOperations", None)
            .await
            .as_array()
            .cloned()
            .unwrap_or_default()
    }

    /// Sets the model's behaviour and starts an import; answers the operation id.
    async fn import(&self, behaviour: &str) -> i64 {
        self.call(
            reqwest::Method::PUT,
            "/repository/importModel",
            Some(json!({"modelId": "/Restarted", "format": "misbehave", "parameters": {"behaviour": behaviour, "objects": 20}})),
        )
        .await;
        self.call(
            reqwest::Method::POST,
            "/operations/startImport/%2FRestarted",
            Some(json!({})),
        )
        .await
        .as_i64()
        .expect("an operation id")
    }

    /// Waits until the operation is in `state`; answers it.
    async fn wait_for(&self, id: i64, state: &str) -> Value {
        let deadline = Instant::now() + Duration::from_secs(60);
        loop {
            let found = self.operations().await.into_iter().find(|o| o["id"] == id);
            if let Some(operation) = found
                && operation["state"] == state
            {
                return operation;
            }
            assert!(
                Instant::now() < deadline,
                "operation {id} never became {state}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

async fn crash_and_restart(storage: &str) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let storage = storage.replace("{dir}", &dir.path().display().to_string());
    let first = start(dir.path(), &storage).await;
    first
        .call(
            reqwest::Method::PUT,
            "/repository/importModel",
            Some(json!({"modelName": "Restarted", "format": "misbehave"})),
        )
        .await;
    let done = first.import("ok").await;
    first.wait_for(done, "SUCCEEDED").await;
    let hanging = first.import("hang").await;
    first.wait_for(hanging, "RUNNING").await;
    // A crash: no shutdown, no last write.
    drop(first);

    let second = start(dir.path(), &storage).await;
    let failed = second.wait_for(hanging, "FAILED").await;
    let message = failed["message"].as_str().unwrap_or_default();
    assert!(
        message.starts_with("interrupted: the Lore process running it stopped"),
        "{failed}"
    );
    let kept = second.wait_for(done, "SUCCEEDED").await;
    assert_eq!(kept["result"]["objectCount"], 21, "{kept}");
    // The restarted server imports again.
    let again = second.import("ok").await;
    let again = second.wait_for(again, "SUCCEEDED").await;
    assert_eq!(again["result"]["unchanged"], 21, "{again}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_operations_survive_a_crash() {
    crash_and_restart("[storage]\nbackend = \"sqlite\"\npath = \"{dir}/lore.db\"").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_operations_survive_a_crash() {
    let Some(database) = TestDatabase::create().await else {
        return;
    };
    crash_and_restart(&format!(
        "[storage]\nbackend = \"postgres\"\nurl = \"{}\"",
        database.url
    ))
    .await;
}

/// The plugin hosts of a crashed Lore end on their own: none of the hanging imports of
/// the tests above is left running once its Lore is gone.
#[test]
fn plugin_hosts_do_not_outlive_their_lore() {
    let built = built();
    let mut host = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "echo '{{\"format\":\"misbehave\",\"parameters\":{{\"behaviour\":\"hang\"}}}}' | '{}' plugin-host --memory-mib 256 import '{}' --output /dev/null --max-output-mib 1 & echo $!; wait",
            built.lore.display(),
            built.library("lore-plugin-misbehaving").display()
        ))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starting a shell");
    // The shell plays Lore: it prints the host's pid, then is killed.
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(host.stdout.take().expect("stdout")),
        &mut line,
    )
    .expect("the host's pid");
    let pid: u32 = line.trim().parse().expect("a pid");
    std::thread::sleep(Duration::from_millis(500));
    host.kill().expect("killing the shell");
    let _ = host.wait();
    let alive = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .map(|stat| !stat.contains(") Z "))
            .unwrap_or(false)
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    while alive(pid) {
        assert!(
            Instant::now() < deadline,
            "plugin host {pid} outlived its parent by 10 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}
