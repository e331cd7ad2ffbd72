//! A watched model and its changes, for the tests of notifications.

use reqwest::Method;
use serde_json::json;

use crate::Target;
use crate::harness::{encode_segment, sample_files, unique, zip_map};

/// A user with an e-mail address who watches a freshly imported model; answers the model
/// id and the user's name.
pub async fn watched_model(t: &Target) -> (String, String) {
    let imported = t.import_sample().await;
    let name = unique("watcher");
    let password = unique("Password");
    t.post(
        "/admin/users",
        &[],
        &json!({"name": name, "password": password, "email": format!("{name}@example.com")}),
    )
    .await
    .ok();
    t.put(
        "/admin/grants/grantGlobalRoles",
        &[],
        &json!({"grantee": name, "granteeType": "USER", "roles": ["Metadata Viewer"]}),
    )
    .await
    .ok();
    let resp = t
        .send(
            t.anon(Method::POST, "/auth/login")
                .json(&json!({"user": name, "password": password})),
        )
        .await;
    let key = resp.ok()["token"].as_str().expect("a key").to_owned();
    let resp = t
        .send(
            t.anon(
                Method::POST,
                &format!("/curation/{}", encode_segment(&imported.model_id)),
            )
            .header("api-key", key)
            .json(&json!({"kind": "watch"})),
        )
        .await;
    resp.ok();
    (imported.model_id, name)
}

/// Re-imports the model with the description of the employee table changed to
/// `description`: its watchers are notified.
pub async fn change(t: &Target, model: &str, description: &str) {
    let resp = t
        .import(changed_archive(description), &[("modelId", model)])
        .await;
    assert_eq!(resp.ok()["updated"], json!(1), "{}", resp.describe());
}

/// The sample archive with one object's description (the employee table's) changed.
pub fn changed_archive(description: &str) -> Vec<u8> {
    let mut files = sample_files();
    let objects = String::from_utf8(files["objects.csv"].clone()).expect("UTF-8");
    files.insert(
        "objects.csv".into(),
        objects
            .replace(
                "Employees of the sales organisation.,Employee",
                &format!("{description},Employee"),
            )
            .into_bytes(),
    );
    zip_map(&files)
}
