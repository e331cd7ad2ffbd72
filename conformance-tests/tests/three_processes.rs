//! Three Lore servers over one PostgreSQL database, as behind a load balancer, under a
//! mixed load spread across them at once: reads, curation, model imports that notify a
//! watcher, background import operations, and logins and logouts. Nothing is lost (every
//! comment is there), each notification is delivered once (three senders share one
//! outbox), each operation runs once and succeeds (no other server's sweeper fails it), and
//! a key logged out on one server is refused on all of them.
//!
//! Each server has its own store and connection pool and its own background tasks, as a
//! process would; they share nothing but the database.

use std::sync::Arc;
use std::time::{Duration, Instant};

use lore_backend_postgres::PostgresStore;
use lore_conformance::Target;
use lore_conformance::cases::configure_plugins;
use lore_conformance::harness::{encode_segment, unique};
use lore_conformance::notify::{change, watched_model};
use lore_conformance::postgres::TestDatabase;
use lore_conformance::sinks::WebhookReceiver;
use lore_server::config::WebhookSettings;
use reqwest::Method;
use serde_json::{Value, json};

/// Reads, comments and logins each server takes in the mixed load.
const ROUNDS: usize = 12;

async fn server(db: &TestDatabase, webhook: &str) -> Target {
    let store = PostgresStore::open(&db.url)
        .await
        .expect("connecting to the test database");
    Target::spawn_with(Arc::new(store), |settings| {
        configure_plugins(settings);
        let n = &mut settings.notifications;
        n.webhooks = vec![WebhookSettings {
            name: "ops".into(),
            url: webhook.into(),
            secret: Some("webhook-secret-of-the-tests".into()),
            secret_file: None,
        }];
        n.poll_interval = "20ms".into();
    })
    .await
}

async fn send_as(t: &Target, key: &str, method: Method, path: &str, body: Option<Value>) -> u16 {
    let mut request = t.client.request(method, t.url(path)).header("api-key", key);
    if let Some(body) = body {
        request = request.json(&body);
    }
    let resp = t.send(request).await;
    assert!(
        resp.status == 200 || resp.status == 401,
        "{path}: {}",
        resp.describe()
    );
    resp.status
}

/// Starts a background import of a new model on `t`; answers the model and operation.
async fn start_import(t: &Target) -> (String, i64) {
    let (folder, _) = t.unique_folder("imports").await;
    let model = t
        .put(
            "/repository/importModel",
            &[],
            &json!({"folderId": folder, "modelName": unique("Background"), "format": "misbehave", "parameters": {"objects": 10}}),
        )
        .await;
    let model = model.ok()["modelId"].as_str().expect("modelId").to_owned();
    let started = t
        .post(
            &format!("/operations/startImport/{}", encode_segment(&model)),
            &[],
            &json!({}),
        )
        .await;
    let id = started.ok().as_i64().expect("an operation id");
    (model, id)
}

/// The operation as `t` lists it once it no longer runs.
async fn ended(t: &Target, model: &str, id: i64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let resp = t
            .get_q("/operations/listOperations", &[("modelId", model)])
            .await;
        let listed: Vec<&Value> = resp.ok_array().iter().filter(|o| o["id"] == id).collect();
        assert_eq!(listed.len(), 1, "operation {id} is listed once");
        if listed[0]["state"] != "RUNNING" {
            return listed[0].clone();
        }
        assert!(Instant::now() < deadline, "operation {id} still runs");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_servers_over_one_postgres_under_a_mixed_load() {
    let Some(db) = TestDatabase::create().await else {
        return;
    };
    let receiver = WebhookReceiver::start(Vec::new()).await;
    let servers = [
        server(&db, &receiver.url).await,
        server(&db, &receiver.url).await,
        server(&db, &receiver.url).await,
    ];
    let on = |i: usize| &servers[i % servers.len()];
    let admin = servers[0].key().await;
    let (model, _watcher) = watched_model(&servers[0]).await;
    let table = servers[1]
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({"select": "Name", "from": model, "where": "\"Object Type\" = 'Table'", "legacyEntityFormat": true}),
        )
        .await;
    let table = table.ok_array()[0]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("a table of the model: {}", table.describe()))
        .to_owned();

    let reads = async {
        for i in 0..ROUNDS {
            for path in [
                format!("/entities/{}", encode_segment(&model)),
                "/configuration/listModels".to_owned(),
            ] {
                let status = send_as(on(i), &admin, Method::GET, &path, None).await;
                assert_eq!(status, 200, "a read on server {}", i % 3);
            }
        }
    };
    let comments = async {
        for i in 0..ROUNDS {
            let status = send_as(
                on(i + 1),
                &admin,
                Method::POST,
                &format!("/curation/{}", encode_segment(&table)),
                Some(json!({"kind": "comment", "text": format!("comment {i}")})),
            )
            .await;
            assert_eq!(status, 200, "comment {i}");
        }
    };
    let imports = async {
        // Each server changes the watched model once: three notifications.
        for i in 0..3 {
            change(on(i), &model, &format!("Changed by server {i}.")).await;
        }
    };
    let operations = async {
        let mut started = Vec::new();
        for i in 0..3 {
            started.push((i, start_import(on(i)).await));
        }
        started
    };
    let sessions = async {
        for i in 0..ROUNDS {
            let key = on(i).login().await;
            let path = "/types/listProfiles";
            assert_eq!(
                send_as(on(i + 1), &key, Method::GET, path, None).await,
                200,
                "a key from server {} on server {}",
                i % 3,
                (i + 1) % 3
            );
            let logout = send_as(on(i + 2), &key, Method::POST, "/auth/logout", None).await;
            assert_eq!(logout, 200);
            for j in 0..3 {
                assert_eq!(
                    send_as(on(j), &key, Method::GET, path, None).await,
                    401,
                    "a key logged out on server {} is refused on server {j}",
                    (i + 2) % 3
                );
            }
        }
    };
    let ((), (), (), started, ()) = tokio::join!(reads, comments, imports, operations, sessions);

    // Nothing lost: every comment, read on each server.
    for t in &servers {
        let resp = t
            .get(&format!("/curation/{}", encode_segment(&table)))
            .await;
        let comments = resp.ok()["comments"].as_array().map_or(0, |c| c.len());
        assert_eq!(comments, ROUNDS, "{}", resp.describe());
    }
    // Each operation ran once, where it was started, and succeeded.
    for (i, (model, id)) in started {
        for t in &servers {
            let operation = ended(t, &model, id).await;
            assert_eq!(operation["state"], "SUCCEEDED", "server {i}: {operation}");
            assert_eq!(operation["result"]["added"], 11, "{operation}");
        }
    }
    // Each notification delivered once, though three servers send from one outbox.
    let received = receiver.wait_for(3, Duration::from_secs(30)).await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    let received = receiver.received().len().max(received.len());
    assert_eq!(received, 3, "three changes, three webhook calls");
    let mut ids: Vec<String> = receiver
        .received()
        .iter()
        .map(|r| r.header("x-lore-delivery").to_owned())
        .collect();
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 3, "three distinct deliveries");
    drop(servers);
    drop(db);
}
