//! Importer plugins and import operations: `importers`, `importModel`, attachments,
//! `startImport`, `listOperations`, `downloadOperationLog` and
//! `downloadModelAttachment`, on a server with the suite's plugins configured
//! ([`Needs::Plugins`](super::Needs::Plugins)).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use reqwest::Method;
use serde_json::{Value, json};

use super::denied::send_as;
use crate::harness::{
    Resp, Sample, Target, assert_error, encode_segment, first_difference, sample_archive, unique,
    unzip,
};

const IMPORT_MODEL: &str = "/repository/importModel";
const DOWNLOAD_ATTACHMENT: &str = "/operations/repositoryImport/downloadModelAttachment";

/// A sample input of one of the importer crates.
fn sample(path: &str) -> Vec<u8> {
    let full = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../plugins/importers")
        .join(path);
    std::fs::read(&full).unwrap_or_else(|e| panic!("reading {}: {e}", full.display()))
}

/// Creates a model set to import `format` with `parameters`; answers its id.
async fn model_for(t: &Target, format: &str, parameters: Value) -> String {
    let (folder, _) = t.unique_folder("imports").await;
    let resp = t
        .put(
            IMPORT_MODEL,
            &[],
            &json!({"folderId": folder, "modelName": unique("Imported"), "format": format, "parameters": parameters}),
        )
        .await;
    resp.ok()["modelId"].as_str().expect("modelId").to_owned()
}

/// Attaches `content` as `name` to an object (raw body).
async fn attach(t: &Target, object: &str, name: &str, content: Vec<u8>) -> Resp {
    let request = t
        .call(
            Method::POST,
            &format!("/repository/attachments/{}", encode_segment(object)),
        )
        .await
        .query(&[("name", name)])
        .header("Content-Type", "application/octet-stream")
        .body(content);
    t.send(request).await
}

/// Starts the import of a model; answers the operation id.
async fn start(t: &Target, model: &str) -> i64 {
    let resp = t
        .post(
            &format!("/operations/startImport/{}", encode_segment(model)),
            &[],
            &json!({}),
        )
        .await;
    resp.ok()
        .as_i64()
        .unwrap_or_else(|| panic!("an operation id: {}", resp.describe()))
}

/// Waits until the operation has ended; answers it as listOperations shows it.
async fn finished(t: &Target, model: &str, id: i64) -> Value {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let resp = t
            .get_q("/operations/listOperations", &[("modelId", model)])
            .await;
        let operation = resp
            .ok_array()
            .iter()
            .find(|o| o["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("operation {id} is not listed: {}", resp.describe()));
        if operation["state"] != "RUNNING" {
            return operation;
        }
        assert!(
            Instant::now() < deadline,
            "operation {id} still runs after 120 s: {operation}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Runs one import of a model to its end.
async fn run(t: &Target, model: &str) -> Value {
    let id = start(t, model).await;
    finished(t, model, id).await
}

/// The text log of an operation.
async fn log_of(t: &Target, id: i64) -> String {
    let resp = t
        .send(
            t.call(
                Method::POST,
                &format!("/operations/downloadOperationLog/{id}"),
            )
            .await,
        )
        .await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    assert!(
        resp.content_type().starts_with("text/plain"),
        "{}",
        resp.describe()
    );
    resp.text()
}

/// How many objects a model holds (a query FROM a model also finds the model itself).
async fn object_count(t: &Target, model: &str) -> i64 {
    let resp = t
        .get_q(
            "/entities/countMQLQuery",
            &[("select", "Name"), ("from", model)],
        )
        .await;
    let found = resp
        .ok()
        .as_i64()
        .unwrap_or_else(|| panic!("a count: {}", resp.describe()));
    found - 1
}

pub async fn importers_and_import_settings(t: &Target) {
    // The importers: the built-in one, every plugin that loaded, and the one that did not.
    let resp = t.get("/repository/importers").await;
    let listed = resp.ok();
    let formats: Vec<&str> = listed["importers"]
        .as_array()
        .expect("importers")
        .iter()
        .flat_map(|i| i["formats"].as_array().into_iter().flatten())
        .filter_map(|f| f["name"].as_str())
        .collect();
    for format in [
        "lore-csv-zip",
        "misbehave",
        "dbt-manifest",
        "sql-ddl",
        "csv-file",
        "database",
    ] {
        assert!(formats.contains(&format), "format {format} in {formats:?}");
    }
    let failed = listed["failed"].as_array().expect("failed");
    assert_eq!(failed.len(), 1, "{failed:?}");
    let reason = failed[0]["reason"].as_str().unwrap_or_default();
    assert!(
        reason.contains("plugin ABI version 999") && reason.contains("loads version 1"),
        "{reason}"
    );

    // A new model with its settings, then read back and changed.
    let (folder, folder_name) = t.unique_folder("settings").await;
    let name = unique("Generated");
    let resp = t
        .put(
            IMPORT_MODEL,
            &[],
            &json!({"folderId": folder, "modelName": name, "format": "misbehave",
                    "parameters": {"behaviour": "ok", "objects": 4}}),
        )
        .await;
    let set = resp.ok().clone();
    let model = set["modelId"].as_str().expect("modelId").to_owned();
    assert_eq!(set["modelName"], name);
    assert_eq!(set["format"], "misbehave");
    assert_eq!(set["parameters"], json!({"behaviour": "ok", "objects": 4}));
    let by_path = format!("/{folder_name}/{name}");
    let read = t.get_q(IMPORT_MODEL, &[("modelId", &by_path)]).await;
    assert_eq!(read.ok()["modelId"], model);
    assert_eq!(read.ok()["parameters"], set["parameters"]);
    let entity = t.entity(&model).await;
    assert_eq!(entity.ok()["name"], name, "the model exists, empty");

    let changed = t
        .put(
            IMPORT_MODEL,
            &[],
            &json!({"modelId": model, "format": "misbehave", "parameters": {"objects": 2}, "attachment": "input.txt"}),
        )
        .await;
    assert_eq!(changed.ok()["parameters"], json!({"objects": 2}));
    assert_eq!(changed.ok()["attachment"], "input.txt");
}

pub async fn import_settings_bad_input(t: &Target) {
    let model = model_for(t, "misbehave", json!({})).await;
    let cases = [
        (
            json!({"modelId": model, "format": "no-such"}),
            400,
            "no importer reads format 'no-such'",
        ),
        (
            json!({"modelId": model, "format": "misbehave", "parameters": {"colour": 1}}),
            400,
            "unknown parameter 'colour'",
        ),
        (
            json!({"modelId": model, "format": "misbehave", "parameters": {"objects": "many"}}),
            400,
            "'objects' must be of type integer",
        ),
        (
            json!({"modelId": model, "format": "misbehave", "parameters": {"behaviour": "dance"}}),
            400,
            "must be one of",
        ),
        (
            json!({"modelId": model, "format": "database", "parameters": {}}),
            400,
            "'url' is required",
        ),
        (json!({"format": "misbehave"}), 400, "modelName"),
        (
            json!({"modelId": "/no/such/model", "format": "misbehave"}),
            404,
            "",
        ),
        (
            json!({"modelId": model, "modelName": "x", "format": "misbehave"}),
            400,
            "cannot be combined",
        ),
        (
            json!({"modelId": model, "format": "misbehave", "attachment": "../etc/passwd"}),
            400,
            "plain file name",
        ),
    ];
    for (body, status, words) in cases {
        let resp = t.put(IMPORT_MODEL, &[], &body).await;
        assert_eq!(resp.status, status, "{body}: {}", resp.describe());
        assert!(
            resp.message().contains(words),
            "{body}: {}",
            resp.describe()
        );
    }
    let (folder, _) = t.unique_folder("settings").await;
    let taken = unique("Taken");
    for expected in [200, 409] {
        let resp = t
            .put(
                IMPORT_MODEL,
                &[],
                &json!({"folderId": folder, "modelName": taken, "format": "misbehave"}),
            )
            .await;
        assert_eq!(resp.status, expected, "{}", resp.describe());
    }
    assert_error(
        &t.get(IMPORT_MODEL).await,
        400,
        "REQUIRED_PARAMETER_NOT_SPECIFIED",
    );
    let (folder_only, _) = t.unique_folder("no-settings").await;
    let resp = t.get_q(IMPORT_MODEL, &[("modelId", &folder_only)]).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    // A model imported from an archive has no import settings.
    let imported = t.import_sample().await;
    let resp = t
        .get_q(IMPORT_MODEL, &[("modelId", &imported.model_id)])
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    assert!(
        resp.message().contains("has no import settings"),
        "{}",
        resp.describe()
    );
}

pub async fn attachments_upload_and_download(t: &Target) {
    let model = model_for(t, "misbehave", json!({})).await;
    let resp = attach(t, &model, "first.txt", b"one".to_vec()).await;
    let info = resp.ok();
    assert_eq!(info["name"], "first.txt");
    assert_eq!(info["size"], 3);
    assert_eq!(
        info["sha256"],
        "7692c3ad3540bb803c020b3aee66cd8887123234ea0c6e7143c0add73ff431ed"
    );
    // Multipart, its file name taken; then the newest is what a download without a name gets.
    tokio::time::sleep(Duration::from_millis(5)).await;
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(b"{\"two\": 2}".to_vec())
            .file_name("second.json")
            .mime_str("application/json")
            .expect("a media type"),
    );
    let request = t
        .call(Method::POST, &format!("/repository/attachments/{model}"))
        .await
        .multipart(form);
    let resp = t.send(request).await;
    assert_eq!(resp.ok()["mediaType"], "application/json");

    let download = |query: Vec<(&'static str, String)>, accept: &'static str| async move {
        let request = t
            .call(Method::POST, DOWNLOAD_ATTACHMENT)
            .await
            .query(&query)
            .header("Accept", accept);
        t.send(request).await
    };
    let newest = download(vec![("objectId", model.clone())], "application/x-download").await;
    assert_eq!(newest.status, 200, "{}", newest.describe());
    assert_eq!(newest.content_type(), "application/x-download");
    assert_eq!(newest.text(), "{\"two\": 2}");
    let named = download(
        vec![("objectId", model.clone()), ("name", "first.txt".into())],
        "*/*",
    )
    .await;
    assert_eq!(named.text(), "one");
    // The body may name them too.
    let request = t
        .call(Method::POST, DOWNLOAD_ATTACHMENT)
        .await
        .header("Accept", "application/x-download")
        .json(&json!({"modelId": model, "name": "first.txt"}));
    assert_eq!(t.send(request).await.text(), "one");
    // Replacing keeps one attachment of a name.
    attach(t, &model, "first.txt", b"uno".to_vec()).await.ok();
    let settings = t.get_q(IMPORT_MODEL, &[("modelId", &model)]).await;
    let names: Vec<&str> = settings.ok()["attachments"]
        .as_array()
        .expect("attachments")
        .iter()
        .filter_map(|a| a["name"].as_str())
        .collect();
    assert_eq!(names, ["first.txt", "second.json"], "newest first");
}

pub async fn attachments_bad_input(t: &Target) {
    let model = model_for(t, "misbehave", json!({})).await;
    // No name.
    let request = t
        .call(Method::POST, &format!("/repository/attachments/{model}"))
        .await
        .body(b"x".to_vec());
    assert_error(
        &t.send(request).await,
        400,
        "REQUIRED_PARAMETER_NOT_SPECIFIED",
    );
    assert_error(
        &attach(t, &model, "../up.txt", b"x".to_vec()).await,
        400,
        "INVALID_PARAMETER",
    );
    assert_error(
        &attach(t, "/no/such/object", "a.txt", b"x".to_vec()).await,
        404,
        "INVALID_REPOSITORY_PATH",
    );
    attach(t, &model, "a.txt", b"x".to_vec()).await.ok();

    let request = t
        .call(Method::POST, DOWNLOAD_ATTACHMENT)
        .await
        .query(&[("objectId", model.as_str()), ("name", "missing.txt")])
        .header("Accept", "application/x-download");
    let resp = t.send(request).await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    assert!(
        resp.content_type().starts_with("application/json"),
        "errors are JSON"
    );
    let request = t
        .call(Method::POST, DOWNLOAD_ATTACHMENT)
        .await
        .query(&[("objectId", model.as_str())])
        .header("Accept", "application/json");
    assert_error(&t.send(request).await, 406, "NOT_ACCEPTABLE");
    let request = t
        .call(Method::POST, DOWNLOAD_ATTACHMENT)
        .await
        .header("Accept", "application/x-download");
    assert_error(
        &t.send(request).await,
        400,
        "REQUIRED_PARAMETER_NOT_SPECIFIED",
    );
}

pub async fn start_import_runs_in_the_background(t: &Target) {
    let model = model_for(
        t,
        "misbehave",
        json!({"behaviour": "chatter", "objects": 40}),
    )
    .await;
    let id = start(t, &model).await;
    let operation = finished(t, &model, id).await;
    assert_eq!(operation["state"], "SUCCEEDED", "{operation}");
    assert_eq!(operation["type"], "import");
    assert_eq!(operation["format"], "misbehave");
    assert_eq!(operation["startedBy"], t.user);
    assert_eq!(operation["result"]["objectCount"], 41);
    assert_eq!(operation["result"]["added"], 41);
    assert!(operation["finishedAt"].is_string(), "{operation}");
    assert_eq!(object_count(t, &model).await, 41);

    let log = log_of(t, id).await;
    for words in [
        "INFO  importer 'misbehaving'",
        "INFO  behaving: chatter",
        "INFO  plugin output: a line a plugin printed to stdout",
        "WARN  plugin stderr: a line a plugin printed to stderr",
        "INFO  imported 41 objects",
    ] {
        assert!(log.contains(words), "'{words}' in the log:\n{log}");
    }
    // The log as JSON when only JSON is accepted.
    let request = t
        .call(
            Method::POST,
            &format!("/operations/downloadOperationLog/{id}"),
        )
        .await
        .header("Accept", "application/json");
    let resp = t.send(request).await;
    let lines = resp.ok()["lines"].as_array().expect("lines").clone();
    assert_eq!(lines[0]["seq"], 1);
    assert_eq!(resp.ok()["operation"]["id"], id);

    // Again: nothing changed, nothing written; then fewer objects.
    let again = run(t, &model).await;
    assert_eq!(again["result"]["unchanged"], 41, "{again}");
    t.put(
        IMPORT_MODEL,
        &[],
        &json!({"modelId": model, "format": "misbehave", "parameters": {"objects": 10}}),
    )
    .await
    .ok();
    let fewer = run(t, &model).await;
    assert_eq!(fewer["result"]["removed"], 30, "{fewer}");
    assert_eq!(object_count(t, &model).await, 11);

    // Newest first, filtered by state.
    let resp = t
        .get_q(
            "/operations/listOperations",
            &[("modelId", &model), ("state", "succeeded"), ("limit", "2")],
        )
        .await;
    let ids: Vec<i64> = resp
        .ok_array()
        .iter()
        .filter_map(|o| o["id"].as_i64())
        .collect();
    assert_eq!(ids.len(), 2);
    assert!(ids[0] > ids[1], "newest first: {ids:?}");
}

pub async fn start_import_bad_input(t: &Target) {
    // A model without import settings, a folder, nothing at all.
    let imported = t.import_sample().await;
    let resp = t
        .post(
            &format!("/operations/startImport/{}", imported.model_id),
            &[],
            &json!({}),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    assert!(
        resp.message().contains("has no import settings"),
        "{}",
        resp.describe()
    );
    let (folder, _) = t.unique_folder("not-a-model").await;
    let resp = t
        .post(
            &format!("/operations/startImport/{folder}"),
            &[],
            &json!({}),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .post(
            &format!("/operations/startImport/{}", encode_segment("/no/such")),
            &[],
            &json!({}),
        )
        .await;
    assert_eq!(resp.status, 404, "{}", resp.describe());
    // A format that reads a file, and no file attached.
    let model = model_for(t, "dbt-manifest", json!({})).await;
    let resp = t
        .post(&format!("/operations/startImport/{model}"), &[], &json!({}))
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    assert!(
        resp.message().contains("has no attachment"),
        "{}",
        resp.describe()
    );

    let resp = t
        .get_q("/operations/listOperations", &[("state", "DANCING")])
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .get_q("/operations/listOperations", &[("limit", "0")])
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    for limit in ["abc", "1001", "-1", "2.5"] {
        let resp = t
            .get_q("/operations/listOperations", &[("limit", limit)])
            .await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    let resp = t
        .get_q("/operations/listOperations", &[("modelId", "/no/such")])
        .await;
    assert_eq!(resp.status, 404, "{}", resp.describe());
    let resp = t
        .send(
            t.call(Method::POST, "/operations/downloadOperationLog/999999999")
                .await,
        )
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t
        .send(
            t.call(Method::POST, "/operations/downloadOperationLog/twelve")
                .await,
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
}

/// Every way a plugin can fail ends as a failed operation with a readable message; no
/// object is written, and the server goes on serving.
pub async fn broken_plugins_fail_cleanly(t: &Target) {
    let cases = [
        ("error", "the source is unreachable (asked to fail)"),
        ("panic", "the plugin panicked: asked to panic"),
        ("abort", "killed by signal 6 (SIGABRT"),
        (
            "segfault",
            "killed by signal 11 (the plugin crashed on a bad memory access)",
        ),
        ("flood", "the plugin ran out of its memory limit (512 MiB"),
        ("garbage", "the plugin sent malformed records"),
        ("dangling", "dangling parent 'nowhere' of 'child'"),
        (
            "hang",
            "the plugin did not finish within 5 s and was stopped",
        ),
    ];
    // All at once, a model each: the server runs them side by side.
    let mut started = Vec::new();
    for (behaviour, _) in &cases {
        let model = model_for(
            t,
            "misbehave",
            json!({"behaviour": behaviour, "objects": 5}),
        )
        .await;
        let id = start(t, &model).await;
        started.push((model, id));
    }
    // A second import of a model while one runs is refused.
    let hanging = started[7].0.clone();
    let resp = t
        .post(
            &format!("/operations/startImport/{hanging}"),
            &[],
            &json!({}),
        )
        .await;
    assert_error(&resp, 409, "CONFLICT");
    assert!(
        resp.message().contains("is being imported by operation"),
        "{}",
        resp.describe()
    );
    for ((behaviour, words), (model, id)) in cases.iter().zip(&started) {
        let operation = finished(t, model, *id).await;
        assert_eq!(operation["state"], "FAILED", "{behaviour}: {operation}");
        let message = operation["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(words),
            "{behaviour}: '{words}' in '{message}'"
        );
        let log = log_of(t, *id).await;
        assert!(
            log.contains(&format!("ERROR {message}")),
            "{behaviour}: {log}"
        );
        assert_eq!(
            object_count(t, model).await,
            0,
            "{behaviour}: a failed import writes nothing"
        );
    }
    // The metadata managers (here the administrator, who also started them) are
    // notified of each failure (spec 6).
    let resp = t
        .get_q("/notifications", &[("unread", "true"), ("limit", "1000")])
        .await;
    let failed: Vec<&str> = resp
        .ok_array()
        .iter()
        .filter(|n| n["kind"] == json!("IMPORT_FAILED"))
        .filter_map(|n| n["objectId"].as_str())
        .collect();
    for (behaviour, (model, _)) in cases.iter().map(|(b, _)| b).zip(&started) {
        assert!(
            failed.contains(&model.as_str()),
            "{behaviour}: a notification of the failed import of {model}: {failed:?}"
        );
    }
    let model = started[0].0.clone();
    let health = t
        .send(t.client.get(format!("{}/healthz", t.origin())))
        .await;
    assert_eq!(health.status, 200, "{}", health.describe());
    // What an operator would have seen at GET /metrics (a local server's own).
    if let Some(server) = t.server() {
        let text = server.metrics.render().await;
        let lines = [
            "lore_plugin_host_crashes_total{reason=\"signal\"} 2",
            "lore_plugin_host_crashes_total{reason=\"out_of_memory\"} 1",
            "lore_plugin_host_crashes_total{reason=\"timeout\"} 1",
            "lore_plugin_host_crashes_total{reason=\"exit\"} 0",
            "lore_import_operations_ended_total{state=\"failed\"} 8",
            "lore_import_operations{state=\"running\"} 0",
        ];
        for line in lines {
            assert!(
                text.lines().any(|l| l == line),
                "{line} in the metrics:\n{text}"
            );
        }
    }
    // The server still imports.
    t.put(
        IMPORT_MODEL,
        &[],
        &json!({"modelId": model, "format": "misbehave", "parameters": {"objects": 3}}),
    )
    .await
    .ok();
    assert_eq!(run(t, &model).await["state"], "SUCCEEDED");
}

pub async fn import_routes_deny_callers_without_rights(t: &Target) {
    let model = model_for(t, "misbehave", json!({})).await;
    attach(t, &model, "a.txt", b"x".to_vec()).await.ok();
    let id = start(t, &model).await;
    finished(t, &model, id).await;
    let viewer = t.key_with_roles(&["Metadata Viewer"]).await;
    let nobody = t.key_with_roles(&[]).await;
    let denied = |resp: Resp, what: &str| {
        assert_error(&resp, 403, "PERMISSION_DENIED");
        assert!(!what.is_empty());
    };
    denied(
        send_as(
            t,
            &viewer,
            Method::GET,
            IMPORT_MODEL,
            &[("modelId", &model)],
            None,
        )
        .await,
        "GET importModel",
    );
    denied(
        send_as(
            t,
            &viewer,
            Method::PUT,
            IMPORT_MODEL,
            &[],
            Some(json!({"modelId": model, "format": "misbehave"})),
        )
        .await,
        "PUT importModel",
    );
    denied(
        send_as(
            t,
            &viewer,
            Method::POST,
            &format!("/operations/startImport/{model}"),
            &[],
            Some(json!({})),
        )
        .await,
        "startImport",
    );
    let request = t
        .anon(Method::POST, &format!("/repository/attachments/{model}"))
        .header("api-key", &viewer)
        .query(&[("name", "b.txt")])
        .body(b"y".to_vec());
    denied(t.send(request).await, "attachments");
    denied(
        send_as(
            t,
            &nobody,
            Method::GET,
            "/operations/listOperations",
            &[],
            None,
        )
        .await,
        "listOperations",
    );
    denied(
        send_as(
            t,
            &nobody,
            Method::POST,
            &format!("/operations/downloadOperationLog/{id}"),
            &[],
            None,
        )
        .await,
        "downloadOperationLog",
    );
    denied(
        send_as(t, &nobody, Method::GET, "/repository/importers", &[], None).await,
        "importers",
    );
    denied(
        send_as(
            t,
            &nobody,
            Method::POST,
            DOWNLOAD_ATTACHMENT,
            &[("objectId", &model)],
            None,
        )
        .await,
        "downloadModelAttachment",
    );
    // An attachment is source content: seeing the model is not enough to read it.
    denied(
        send_as(
            t,
            &viewer,
            Method::POST,
            DOWNLOAD_ATTACHMENT,
            &[("objectId", &model)],
            None,
        )
        .await,
        "downloadModelAttachment without View Data",
    );
    let (user, name) = super::groups::new_user(t, "data-viewer").await;
    t.put(
        &format!("/admin/grants/grantObjectRole/{model}"),
        &[],
        &json!({"grantee": user, "role": "Data Viewer"}),
    )
    .await
    .ok();
    let data_viewer = super::groups::key_of(t, &name).await;
    let resp = send_as(
        t,
        &data_viewer,
        Method::POST,
        DOWNLOAD_ATTACHMENT,
        &[("objectId", &model)],
        None,
    )
    .await;
    assert_eq!(resp.status, 200, "with View Data: {}", resp.describe());
    // A viewer does not see the administrator's operations.
    let resp = send_as(
        t,
        &viewer,
        Method::GET,
        "/operations/listOperations",
        &[],
        None,
    )
    .await;
    assert_eq!(resp.ok_array().len(), 0, "{}", resp.describe());
    let resp = send_as(
        t,
        &viewer,
        Method::POST,
        &format!("/operations/downloadOperationLog/{id}"),
        &[],
        None,
    )
    .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
}

/// The same archive through the plugin path (a plugin that reads it and sends its rows)
/// and through the built-in importer lands the same model: their exports are equal.
pub async fn plugin_path_lands_what_the_builtin_importer_lands(t: &Target) {
    let sample = Sample::load();
    let (builtin_folder, _) = t.unique_folder("builtin").await;
    let resp = t
        .import(sample_archive(), &[("folderId", &builtin_folder)])
        .await;
    let builtin = resp.ok()["modelId"].as_str().expect("modelId").to_owned();

    let (plugin_folder, _) = t.unique_folder("plugin").await;
    let resp = t
        .put(
            IMPORT_MODEL,
            &[],
            &json!({"folderId": plugin_folder, "modelName": sample.name, "format": "lore-csv-zip-plugin"}),
        )
        .await;
    let plugin = resp.ok()["modelId"].as_str().expect("modelId").to_owned();
    attach(t, &plugin, "sample.zip", sample_archive())
        .await
        .ok();
    let operation = run(t, &plugin).await;
    assert_eq!(operation["state"], "SUCCEEDED", "{operation}");
    assert_eq!(operation["result"]["objectCount"], sample.objects.len());

    let query = [("exportDataProfilingAndSampling", "true")];
    let expected = t.export(&builtin, &query).await;
    let found = t.export(&plugin, &query).await;
    assert_eq!(found.status, 200, "{}", found.describe());
    if found.bytes != expected.bytes {
        let (expected, found) = (unzip(&expected.bytes), unzip(&found.bytes));
        panic!(
            "the plugin path lands another model than the built-in importer: {}",
            first_difference(&expected, &found)
        );
    }
}

/// Sets a new model to `format`, attaches `file` when given, imports it; answers the
/// model and the finished operation.
pub(crate) async fn import_through(
    t: &Target,
    format: &str,
    parameters: Value,
    file: Option<(&str, Vec<u8>)>,
) -> (String, Value) {
    let model = model_for(t, format, parameters).await;
    if let Some((name, content)) = file {
        attach(t, &model, name, content).await.ok();
    }
    let operation = run(t, &model).await;
    assert_eq!(operation["state"], "SUCCEEDED", "{format}: {operation}");
    (model, operation)
}

/// MQL: how many objects of a type a model holds.
async fn count_of(t: &Target, model: &str, object_type: &str) -> i64 {
    let filter = format!("\"Object Type\" = '{object_type}'");
    let resp = t
        .get_q(
            "/entities/countMQLQuery",
            &[("select", "Name"), ("from", model), ("where", &filter)],
        )
        .await;
    resp.ok()
        .as_i64()
        .unwrap_or_else(|| panic!("a count: {}", resp.describe()))
}

/// The four importers of the repository, loaded from configuration, import their
/// samples through startImport.
pub async fn real_importers_import_their_samples(t: &Target) {
    // dbt: models, sources, seeds and columns; lineage from depends_on.
    let (dbt, operation) = import_through(
        t,
        "dbt-manifest",
        json!({"modelName": "jaffle"}),
        Some(("manifest.json", sample("dbt/samples/manifest.json"))),
    )
    .await;
    assert!(
        operation["result"]["objectCount"].as_i64() > Some(30),
        "{operation}"
    );
    assert!(count_of(t, &dbt, "Column").await >= 30);
    assert_eq!(count_of(t, &dbt, "Database").await, 2, "analytics and raw");
    let customers = "\"Object Type\" = 'Table' AND Name = 'customers'";
    let resp = t
        .get_q(
            "/entities/countMQLQuery",
            &[("select", "Name"), ("from", &dbt), ("where", customers)],
        )
        .await;
    assert_eq!(
        resp.ok(),
        &json!(2),
        "the model and the source: {}",
        resp.describe()
    );

    // SQL DDL: schemas, tables, views, columns, keys.
    let (ddl, operation) = import_through(
        t,
        "sql-ddl",
        json!({"dialect": "postgres"}),
        Some(("postgres.sql", sample("ddl/samples/postgres.sql"))),
    )
    .await;
    assert_eq!(operation["result"]["objectCount"], 61, "{operation}");
    assert_eq!(count_of(t, &ddl, "Foreign Key").await, 6);
    assert_eq!(count_of(t, &ddl, "View").await, 1, "sales.order_totals");

    // A CSV file, profiled.
    let (csv, operation) = import_through(
        t,
        "csv-file",
        json!({"sampleRows": 5}),
        Some(("orders.csv", sample("flatfile/samples/orders.csv"))),
    )
    .await;
    assert_eq!(
        operation["result"]["objectCount"], 6,
        "a file and its five fields"
    );
    let resp = t
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({"select": "Name, \"Data Profiling\".\"Distinct\"", "from": csv,
                    "where": "Name = 'status'"}),
        )
        .await;
    let found = resp.ok_array();
    assert_eq!(found.len(), 1, "{}", resp.describe());

    // A live SQLite database, harvested, then harvested again: curation stays.
    let dir = tempfile::tempdir().expect("a directory");
    let db = dir.path().join("shop.db");
    {
        let conn = rusqlite::Connection::open(&db).expect("a database");
        conn.execute_batch(
            "CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
             CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER REFERENCES customers(id), total REAL);
             INSERT INTO customers VALUES (1, 'Ada'), (2, 'Alan');
             INSERT INTO orders VALUES (1, 1, 9.5);",
        )
        .expect("a schema");
    }
    let url = format!("sqlite://{}", db.display());
    let (harvested, operation) =
        import_through(t, "database", json!({"url": url, "profile": true}), None).await;
    let objects = operation["result"]["objectCount"]
        .as_i64()
        .expect("objectCount");
    assert_eq!(count_of(t, &harvested, "Table").await, 2);
    assert_eq!(count_of(t, &harvested, "Foreign Key").await, 1);
    // Curation: a sensitivity label approved on the customers table.
    let label = unique("Restricted");
    t.put(
        "/repository/sensitivityLabels/",
        &[],
        &json!({"name": label, "position": 50}),
    )
    .await
    .ok();
    let filter = "\"Object Type\" = 'Table' AND Name = 'customers'";
    let resp = t
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({"select": "Name", "from": harvested, "where": filter, "legacyEntityFormat": true}),
        )
        .await;
    let table = resp.ok_array()[0]["id"].as_str().expect("an id").to_owned();
    let labelled = format!("/repository/sensitivityLabels/{table}");
    t.put(
        &labelled,
        &[],
        &json!({"label": label, "status": "APPROVED"}),
    )
    .await
    .ok();
    // Harvest again after the database grew a table: the table is added, the label stays.
    {
        let conn = rusqlite::Connection::open(&db).expect("the database");
        conn.execute_batch("CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT);")
            .expect("a table");
    }
    let again = run(t, &harvested).await;
    assert_eq!(again["state"], "SUCCEEDED", "{again}");
    assert_eq!(
        again["result"]["added"], 4,
        "notes, its two columns and its key: {again}"
    );
    assert_eq!(again["result"]["removed"], 0, "{again}");
    assert_eq!(again["result"]["objectCount"], objects + 4, "{again}");
    let resp = t.get(&labelled).await;
    assert_eq!(
        resp.ok()["sensitivityLabel"],
        json!(label),
        "{}",
        resp.describe()
    );
}
