//! Configuration versions that select model versions: `GET|PUT|DELETE
//! /history/configurations/{configurationId}/pin` and MQL FROM a pinned version.

use serde_json::{Value, json};

use super::denied::send_as;
use super::history::{EXECUTE, changed_sample};
use crate::harness::{Target, assert_error, encode_segment};

fn pin_path(configuration: &str) -> String {
    format!(
        "/history/configurations/{}/pin",
        encode_segment(configuration)
    )
}

/// A configuration version pinned at a moment selects each of its models' newest version
/// then: its pin lists them, a query FROM it reads them as they were (a column a later
/// import removed is found), unpinned it reads them now; asOf with a pinned FROM is two
/// moments.
pub async fn configuration_versions_select_model_versions(t: &Target) {
    let (folder, _) = t.unique_folder("pinned").await;
    let configuration = t.create(Some(&folder), "Config", "Configuration").await;
    let version = t
        .create(Some(&configuration), "v1", "Configuration Version")
        .await;
    let name = crate::harness::unique("Pinned");
    let summary = t
        .import(
            crate::harness::sample_archive(),
            &[
                ("folderId", &folder),
                ("modelName", &name),
                ("configurationId", &version),
            ],
        )
        .await;
    let model = summary.ok()["modelId"]
        .as_str()
        .expect("modelId")
        .to_owned();
    let pinned = t.put(&pin_path(&version), &[], &json!({})).await;
    let pinned = pinned.ok().clone();
    let pin = pinned["version"].as_i64().expect("a pinned version");
    assert_eq!(pinned["models"][0]["modelId"], json!(model), "{pinned}");
    assert_eq!(pinned["models"][0]["number"], json!(1), "{pinned}");
    // The model moves on: hire_date is dropped.
    t.import(changed_sample(), &[("modelId", &model)])
        .await
        .ok();
    let read = t.get(&pin_path(&version)).await.ok().clone();
    assert_eq!(read["version"], json!(pin));
    assert_eq!(
        read["models"][0]["number"],
        json!(1),
        "still version 1: {read}"
    );

    let hire_date = json!({"select": "Name", "from": version, "where": "Name = 'hire_date'"});
    let resp = t.post(EXECUTE, &[], &hire_date).await;
    assert_eq!(resp.ok_array().len(), 1, "as pinned: {}", resp.describe());
    let mut both = hire_date.clone();
    both["asOf"] = json!(pin);
    let resp = t.post(EXECUTE, &[], &both).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");

    // Pinned at another moment by a version id, then live again.
    let later = t.put(&pin_path(&version), &[], &json!({})).await;
    let repinned = t
        .send(
            t.call(reqwest::Method::PUT, &pin_path(&version))
                .await
                .query(&[("asOf", pin.to_string())]),
        )
        .await;
    assert_eq!(repinned.ok()["version"], json!(pin));
    later.ok();
    let live = t.delete(&pin_path(&version), &[]).await.ok().clone();
    assert_eq!(live["version"], Value::Null);
    assert_eq!(
        live["models"][0]["number"],
        json!(2),
        "live: the newest: {live}"
    );
    let resp = t.post(EXECUTE, &[], &hire_date).await;
    assert!(resp.ok_array().is_empty(), "live: {}", resp.describe());
}

/// Pins: an object that is not a configuration version, a moment that is not kept or
/// not a moment, a missing object and a caller who may not manage it are refused.
pub async fn configuration_pin_bad_input_is_refused(t: &Target) {
    let (folder, _) = t.unique_folder("pin-bad").await;
    let configuration = t.create(Some(&folder), "Config", "Configuration").await;
    let version = t
        .create(Some(&configuration), "v1", "Configuration Version")
        .await;
    for path in [pin_path(&folder), pin_path(&configuration)] {
        let resp = t.get(&path).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
        let resp = t.put(&path, &[], &json!({})).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    for as_of in ["yesterday", "2999-01-01T00:00:00Z", "999999999999"] {
        let resp = t
            .send(
                t.call(reqwest::Method::PUT, &pin_path(&version))
                    .await
                    .query(&[("asOf", as_of)]),
            )
            .await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    assert_error(
        &t.get(&pin_path("-1_999999999")).await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert_error(
        &t.delete(&pin_path("-1_999999999"), &[]).await,
        404,
        "OBJECT_NOT_FOUND",
    );
    // The pin is no attribute to set by hand.
    let resp = t
        .put(
            "/repository/setAttributes",
            &[],
            &json!({"id": version, "values": [{
                "attributeType": {"type": "CUSTOM_ATTRIBUTE", "name": "Pinned Version"},
                "value": 1,
            }]}),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let viewer = t.key_with_roles(&["Metadata Viewer"]).await;
    for method in [reqwest::Method::PUT, reqwest::Method::DELETE] {
        let resp = send_as(t, &viewer, method, &pin_path(&version), &[], None).await;
        assert_error(&resp, 403, "PERMISSION_DENIED");
    }
    let resp = send_as(
        t,
        &viewer,
        reqwest::Method::GET,
        &pin_path(&version),
        &[],
        None,
    )
    .await;
    assert_eq!(resp.ok()["version"], Value::Null);
    let nobody = t.key_with_roles(&[]).await;
    let resp = send_as(
        t,
        &nobody,
        reqwest::Method::GET,
        &pin_path(&version),
        &[],
        None,
    )
    .await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
}
