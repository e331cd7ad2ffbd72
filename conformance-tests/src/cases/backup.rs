//! Backup and restore of the whole repository: `POST /repository/backup` and `POST
//! /repository/restore`.

use std::collections::BTreeMap;

use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use serde_json::{Value, json};

use super::denied::send_as;
use crate::harness::{Resp, Target, assert_error, encode_segment, unzip, zip_files};

const BACKUP: &str = "/repository/backup";
const RESTORE: &str = "/repository/restore";
const MANIFEST: &str = "backup.json";

async fn backup(t: &Target, key: &str, query: &[(&str, &str)]) -> Resp {
    send_as(t, key, Method::POST, BACKUP, query, None).await
}

async fn restore(t: &Target, key: &str, body: Vec<u8>, content_type: &str) -> Resp {
    t.send(
        t.anon(Method::POST, RESTORE)
            .header("api-key", key)
            .header(CONTENT_TYPE, content_type)
            .body(body),
    )
    .await
}

/// The data files of a backup: every file but the manifest (which tells when and
/// where it was taken).
fn data_files(bytes: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let mut files = unzip(bytes);
    files.remove(MANIFEST);
    files
}

fn manifest(bytes: &[u8]) -> Value {
    let files = unzip(bytes);
    let text = files.get(MANIFEST).expect("a backup holds backup.json");
    serde_json::from_slice(text).expect("backup.json is JSON")
}

/// The records of one data file.
fn records(bytes: &[u8], file: &str) -> Vec<Value> {
    let files = unzip(bytes);
    let text = files.get(file).map(Vec::as_slice).unwrap_or_default();
    text.split(|b| *b == b'\n')
        .filter(|line| !line.is_empty())
        .map(|line| serde_json::from_slice(line).expect("each line is a JSON record"))
        .collect()
}

async fn context(t: &Target, key: &str, object: &str) -> Resp {
    send_as(
        t,
        key,
        Method::GET,
        "/repository/getContext",
        &[("objectId", object)],
        None,
    )
    .await
}

/// A backup restored over later changes brings the repository back as it was (the
/// later changes gone, every session ended), and a backup of the restored repository
/// holds the same data. Without model contents only repository objects are backed up;
/// the deprecated `backupAllVersions` answers the same with a Deprecation header.
pub async fn backup_and_restore_round_trip(t: &Target) {
    let sample = t.import_sample().await;
    let key = t.key().await;
    let watch = format!("/curation/{}", encode_segment(&sample.model_id));
    send_as(
        t,
        &key,
        Method::POST,
        &watch,
        &[],
        Some(json!({"kind": "watch"})),
    )
    .await
    .ok();
    let viewer = t.key_with_roles(&["Metadata Viewer"]).await;

    let first = backup(t, &key, &[]).await;
    assert_eq!(first.status, 200, "{}", first.describe());
    assert_eq!(first.content_type(), "application/x-download");
    let disposition = first
        .headers
        .get("content-disposition")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    assert!(
        disposition.contains("lore-backup-") && disposition.contains(".zip"),
        "a backup downloads as lore-backup-<time>.zip: {disposition}"
    );
    let about = manifest(&first.bytes);
    assert_eq!(about["format"], json!("lore-backup"));
    assert_eq!(about["version"], json!(1));
    assert_eq!(about["modelContents"], json!(true));
    let objects = records(&first.bytes, "objects.jsonl");
    assert_eq!(
        about["records"]["objects.jsonl"],
        json!(objects.len()),
        "the manifest counts the records"
    );
    assert!(
        objects
            .iter()
            .any(|r| r["object"]["id"] == json!(sample.model_id)),
        "the model is backed up"
    );
    for part in [
        "attributes",
        "edges",
        "tags",
        "classifications",
        "labels",
        "profile",
    ] {
        assert!(
            objects.iter().any(|r| !r[part].is_null()),
            "objects carry their {part}"
        );
    }
    assert!(
        !records(&first.bytes, "curation.jsonl").is_empty(),
        "curation is backed up"
    );
    let users = records(&first.bytes, "users.jsonl");
    assert!(users.len() >= 2, "every user is backed up: {users:?}");
    assert!(
        users.iter().all(|u| u["password_hash"].is_string()),
        "users keep their password hashes"
    );

    // Changes after the backup, which the restore takes back.
    let (later, _) = t.unique_folder("after-backup").await;
    let resp = restore(t, &key, first.bytes.clone(), "application/zip").await;
    let result = resp.ok().clone();
    assert_eq!(result["records"]["objects.jsonl"], json!(objects.len()));
    assert_eq!(result["modelContents"], json!(true));
    assert_eq!(result["backend"], about["backend"]);
    for old in [&key, &viewer] {
        let resp = context(t, old, &sample.model_id).await;
        assert_error(&resp, 401, "AUTHENTICATION_ERROR");
    }
    let key = t.login().await;
    assert_error(&context(t, &key, &later).await, 404, "OBJECT_NOT_FOUND");
    context(t, &key, &sample.model_id).await.ok();

    let second = backup(t, &key, &[]).await;
    assert_eq!(second.status, 200, "{}", second.describe());
    let (mut before, mut after) = (data_files(&first.bytes), data_files(&second.bytes));
    // The revisions of the backup, then the restore's own and those after it.
    let (kept, now) = (
        before.remove("revisions.jsonl").unwrap_or_default(),
        after.remove("revisions.jsonl").unwrap_or_default(),
    );
    assert!(
        !kept.is_empty() && now.starts_with(&kept) && now.len() > kept.len(),
        "the restore brings back the backup's revisions and adds its own"
    );
    assert!(
        before == after,
        "a backup of the restored repository holds the same data, its history too"
    );
    // What the restore took back is gone from history too.
    let path = format!(
        "/history/objects/{}",
        crate::harness::encode_segment(&later)
    );
    let resp = super::denied::send_as(t, &key, reqwest::Method::GET, &path, &[], None).await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");

    let slim = backup(t, &key, &[("backupCachedModels", "false")]).await;
    assert_eq!(slim.status, 200, "{}", slim.describe());
    assert_eq!(manifest(&slim.bytes)["modelContents"], json!(false));
    let repository = records(&slim.bytes, "objects.jsonl");
    assert!(
        !repository.is_empty()
            && repository.len() < objects.len()
            && repository.iter().all(|r| r["object"]["id"]
                .as_str()
                .is_some_and(|id| id.starts_with("-1_"))),
        "without model contents only repository objects are backed up"
    );
    let old = backup(t, &key, &[("backupAllVersions", "false")]).await;
    assert_eq!(old.status, 200, "{}", old.describe());
    assert_eq!(
        old.headers.get("deprecation").and_then(|v| v.to_str().ok()),
        Some("true")
    );
    let link = old
        .headers
        .get("link")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    assert!(
        link.contains("backupCachedModels=false") && link.contains("successor-version"),
        "the Link names the new parameter: {link}"
    );
    assert!(data_files(&old.bytes) == data_files(&slim.bytes));

    // The backup as the file part of a multipart form.
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(slim.bytes.clone()).file_name("backup.zip"),
    );
    let resp = t
        .send(
            t.anon(Method::POST, RESTORE)
                .header("api-key", &key)
                .multipart(form),
        )
        .await;
    assert_eq!(resp.ok()["modelContents"], json!(false));
    let key = t.login().await;
    let resp = send_as(
        t,
        &key,
        Method::POST,
        "/entities/executeMQLQuery",
        &[],
        Some(json!({"select": "Name", "from": sample.model_id})),
    )
    .await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
}

/// A file that is no backup, or a backup that is damaged, is refused with
/// INVALID_PARAMETER naming what is wrong, and the repository stays as it was.
pub async fn backup_and_restore_bad_input(t: &Target) {
    let sample = t.import_sample().await;
    let key = t.key().await;
    assert_error(
        &backup(t, &key, &[("backupCachedModels", "maybe")]).await,
        400,
        "INVALID_PARAMETER",
    );
    let good = backup(t, &key, &[]).await;
    assert_eq!(good.status, 200, "{}", good.describe());
    let files = unzip(&good.bytes);
    let rezip = |files: &BTreeMap<String, Vec<u8>>| {
        zip_files(files.iter().map(|(n, d)| (n.as_str(), d.as_slice())))
    };
    let changed = |name: &str, data: Vec<u8>| {
        let mut copy = files.clone();
        copy.insert(name.to_owned(), data);
        rezip(&copy)
    };
    let without = |name: &str| {
        let mut copy = files.clone();
        copy.remove(name);
        rezip(&copy)
    };
    let mut newer = manifest(&good.bytes);
    newer["version"] = json!(99);
    let mut broken_objects = files["objects.jsonl"].clone();
    broken_objects.extend_from_slice(b"{\"object\": 7}\n");
    let broken_line = format!(
        "objects.jsonl line {}",
        broken_objects.iter().filter(|b| **b == b'\n').count()
    );
    let mut dangling = files["grants.jsonl"].clone();
    dangling.extend_from_slice(
        b"{\"grantee\":\"-1_99999\",\"role\":\"Administrator\",\"object\":null}\n",
    );

    let bad: Vec<(&str, Vec<u8>, &str)> = vec![
        ("not a zip", b"PK? no".to_vec(), "not a zip file"),
        ("no manifest", without(MANIFEST), "backup.json is missing"),
        (
            "a newer format",
            changed(MANIFEST, serde_json::to_vec(&newer).expect("JSON")),
            "format version 99",
        ),
        (
            "a file of no backup",
            changed("../evil.txt", b"x".to_vec()),
            "is not a file of the backup format",
        ),
        (
            "a broken record",
            changed("objects.jsonl", broken_objects),
            &broken_line,
        ),
        (
            "a grant of nobody",
            changed("grants.jsonl", dangling),
            "no user or group -1_99999",
        ),
        (
            "no users",
            changed("users.jsonl", Vec::new()),
            "holds no users",
        ),
    ];
    for (what, body, message) in bad {
        let resp = restore(t, &key, body, "application/zip").await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
        let said = resp.message();
        assert!(
            said.contains(message),
            "{what}: the message says '{message}': {said}"
        );
        context(t, &key, &sample.model_id).await.ok();
    }
    let resp = restore(t, &key, Vec::new(), "application/zip").await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let resp = restore(t, &key, good.bytes.clone(), "text/csv").await;
    assert_error(&resp, 415, "UNSUPPORTED_MEDIA_TYPE");
    // Nothing of the refused restores landed: the same data as before.
    let after = backup(t, &key, &[]).await;
    assert!(data_files(&after.bytes) == data_files(&good.bytes));
}

/// Backing up and restoring take an administrator: a backup holds password hashes.
pub async fn backup_and_restore_denied(t: &Target) {
    let viewer = t.key_with_roles(&["Metadata Viewer"]).await;
    assert_error(&backup(t, &viewer, &[]).await, 403, "PERMISSION_DENIED");
    let resp = restore(t, &viewer, b"PK".to_vec(), "application/zip").await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
}
