//! Dashboards (each user's own definitions, imported and exported as JSON files) and the
//! license record.

use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use serde_json::{Value, json};

use super::denied::send_as;
use crate::harness::{Resp, Target, assert_error, unique};

const IMPORT: &str = "/repository/dashboard/import";
const EXPORT: &str = "/repository/dashboard/export";
const LICENSE: &str = "/License/updateLicense";

fn dashboard(name: &str) -> Value {
    json!({
        "name": name,
        "description": "Where the sales data stands",
        "widgets": [
            {"type": "worksheet", "worksheet": "Tables without owner", "position": [0, 0]},
            {"type": "chart", "query": {"select": "Name", "where": "\"Has Data Lineage\" = true"}},
        ],
        "layout": {"columns": 2},
    })
}

async fn import_as(
    t: &Target,
    key: &str,
    body: &[u8],
    content_type: &str,
    query: &[(&str, &str)],
) -> Resp {
    t.send(
        t.anon(Method::POST, IMPORT)
            .header("api-key", key)
            .header(CONTENT_TYPE, content_type)
            .query(query)
            .body(body.to_vec()),
    )
    .await
}

/// A definition imported (raw and multipart), exported as the same JSON, replaced only
/// when asked, and private to its owner.
pub async fn dashboards_import_export_round_trip(t: &Target) {
    let key = t.key().await;
    let name = unique("Sales overview");
    let definition = dashboard(&name);
    let body = serde_json::to_vec(&definition).expect("JSON");
    let resp = import_as(t, &key, &body, "application/json", &[]).await;
    assert_eq!(
        resp.ok(),
        &json!({"name": name, "widgets": 2, "replaced": false})
    );
    let resp = send_as(t, &key, Method::POST, EXPORT, &[("name", &name)], None).await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    assert!(resp.content_type().starts_with("application/json"));
    assert!(
        resp.headers
            .get("content-disposition")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("attachment") && v.ends_with(".json\"")),
        "a file: {:?}",
        resp.headers.get("content-disposition")
    );
    let exported: Value = serde_json::from_slice(&resp.bytes).expect("the export is JSON");
    assert_eq!(
        exported, definition,
        "the export is the definition imported"
    );

    // The same name again: refused unless replace=true.
    let resp = import_as(t, &key, &body, "application/json", &[]).await;
    assert_error(&resp, 409, "CONFLICT");
    let mut changed = definition.clone();
    changed["widgets"] = json!([{"type": "text", "text": "hello"}]);
    let resp = import_as(
        t,
        &key,
        &serde_json::to_vec(&changed).expect("JSON"),
        "application/json",
        &[("replace", "true")],
    )
    .await;
    assert_eq!(resp.ok()["replaced"], json!(true));
    assert_eq!(resp.ok()["widgets"], json!(1));

    // Multipart, the name given by parameter.
    let renamed = unique("Copy");
    let form = reqwest::multipart::Form::new().part(
        "file",
        reqwest::multipart::Part::bytes(body.clone())
            .file_name("dashboard.json")
            .mime_str("application/json")
            .expect("a media type"),
    );
    let resp = t
        .send(
            t.anon(Method::POST, IMPORT)
                .header("api-key", &key)
                .query(&[("name", renamed.as_str())])
                .multipart(form),
        )
        .await;
    assert_eq!(resp.ok()["name"], json!(renamed));
    let resp = send_as(t, &key, Method::POST, EXPORT, &[("name", &renamed)], None).await;
    let exported: Value = serde_json::from_slice(&resp.bytes).expect("JSON");
    assert_eq!(exported["name"], json!(renamed));
    assert_eq!(exported["layout"], definition["layout"]);

    // Another user has dashboards of their own only.
    let other = t.key_with_roles(&["Metadata Viewer"]).await;
    let resp = send_as(t, &other, Method::POST, EXPORT, &[("name", &name)], None).await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = import_as(t, &other, &body, "application/json", &[]).await;
    assert_eq!(
        resp.ok()["replaced"],
        json!(false),
        "the same name, another owner"
    );
}

/// What is not a dashboard definition is refused with what was wrong; nothing is kept.
pub async fn dashboards_bad_input(t: &Target) {
    let key = t.key().await;
    let name = unique("Broken");
    let long = "x".repeat(201);
    let bad: [(Vec<u8>, &str); 7] = [
        (b"{not json".to_vec(), "not valid JSON"),
        (b"[1, 2]".to_vec(), "JSON object"),
        (
            serde_json::to_vec(&json!({"widgets": []})).expect("JSON"),
            "name",
        ),
        (
            serde_json::to_vec(&json!({"name": 5})).expect("JSON"),
            "name",
        ),
        (
            serde_json::to_vec(&json!({"name": long})).expect("JSON"),
            "200",
        ),
        (
            serde_json::to_vec(&json!({"name": name, "widgets": {}})).expect("JSON"),
            "array",
        ),
        (
            serde_json::to_vec(&json!({"name": name, "widgets": [{"type": "chart"}, {"size": 2}]}))
                .expect("JSON"),
            "widget 2",
        ),
    ];
    for (body, named) in &bad {
        let resp = import_as(t, &key, body, "application/json", &[]).await;
        assert_eq!(resp.status, 400, "{}", resp.describe());
        assert!(
            resp.message().contains(named),
            "the message says {named}: {}",
            resp.message()
        );
    }
    let good = serde_json::to_vec(&dashboard(&name)).expect("JSON");
    let resp = import_as(t, &key, &good, "image/png", &[]).await;
    assert_error(&resp, 415, "UNSUPPORTED_MEDIA_TYPE");
    let resp = import_as(t, &key, &good, "application/json", &[("replace", "maybe")]).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = send_as(t, &key, Method::POST, EXPORT, &[("name", &name)], None).await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = send_as(t, &key, Method::POST, EXPORT, &[], None).await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
}

/// A user without View Metadata has no dashboards; only an administrator sets the
/// license.
pub async fn dashboards_and_license_denied(t: &Target) {
    let nobody = t.key_with_roles(&[]).await;
    let body = serde_json::to_vec(&dashboard(&unique("Denied"))).expect("JSON");
    let resp = import_as(t, &nobody, &body, "application/json", &[]).await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
    let resp = send_as(t, &nobody, Method::POST, EXPORT, &[("name", "x")], None).await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
    let viewer = t
        .key_with_roles(&["Metadata Viewer", "Repository Manager"])
        .await;
    let resp = send_as(
        t,
        &viewer,
        Method::POST,
        LICENSE,
        &[],
        Some(json!({"licensee": "Mallory", "expiresAt": "2999-01-01"})),
    )
    .await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
}

/// The stored license, read from the store when the target is in process.
async fn stored_license(t: &Target) -> Option<Value> {
    let store = t.store()?;
    store
        .document(lore_core::model::DocumentKind::License, None, "license")
        .await
        .expect("the license reads")
        .map(|d| d.body)
}

/// A license record is checked and kept, the key masked in the answer; a record that is
/// no license is LICENSE_ERROR (not JSON at all: INVALID_PARAMETER) and leaves the
/// license as it was.
pub async fn license_update_and_bad_input(t: &Target) {
    let resp = t
        .post(
            LICENSE,
            &[],
            &json!({"licensee": "ACME Data GmbH", "edition": "Enterprise", "seats": 25,
                    "expiresAt": "2999-12-31", "key": "LORE-1234-5678-ABCD"}),
        )
        .await;
    let record = resp.ok().clone();
    assert_eq!(record["licensee"], json!("ACME Data GmbH"));
    assert_eq!(record["edition"], json!("Enterprise"));
    assert_eq!(record["seats"], json!(25));
    assert_eq!(record["expiresAt"], json!("2999-12-31T00:00:00.000Z"));
    assert!(record["daysLeft"].as_i64().is_some_and(|d| d > 300_000));
    assert_eq!(record["key"], json!("***************ABCD"));
    let kept = stored_license(t).await;
    if let Some(kept) = &kept {
        assert_eq!(
            kept["key"],
            json!("LORE-1234-5678-ABCD"),
            "the key is kept whole"
        );
    }

    let bad = [
        (
            json!({"licensee": "ACME", "expiresAt": "2001-01-01"}),
            "expired",
        ),
        (json!({"expiresAt": "2999-01-01"}), "licensee"),
        (json!({"licensee": "ACME"}), "expiresAt"),
        (
            json!({"licensee": "ACME", "expiresAt": "someday"}),
            "someday",
        ),
        (
            json!({"licensee": "ACME", "expiresAt": "2999-01-01", "seats": 0}),
            "seats",
        ),
        (
            json!({"licensee": "ACME", "expiresAt": "2999-01-01", "colour": "red"}),
            "colour",
        ),
        (
            json!({"licensee": "", "expiresAt": "2999-01-01"}),
            "licensee",
        ),
        (json!(["licensee"]), "JSON object"),
    ];
    for (body, named) in bad {
        let resp = t.post(LICENSE, &[], &body).await;
        assert_error(&resp, 400, "LICENSE_ERROR");
        assert!(
            resp.message().contains(named),
            "the message says {named}: {}",
            resp.message()
        );
    }
    let resp = t
        .send(
            t.call(Method::POST, LICENSE)
                .await
                .header(CONTENT_TYPE, "application/json")
                .body("{licensee"),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    assert_eq!(stored_license(t).await, kept, "the license is as it was");
}
