//! Notifications (spec 6): watchers of a model are notified of its changes (re-imports
//! and edits), and read their notifications through `GET /notifications`. Failed imports
//! notify metadata managers; `imports::broken_plugins_fail_cleanly` checks that.

use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use serde_json::{Value, json};

use super::denied::send_as;
use crate::harness::{Target, assert_error, encode_segment, sample_files, zip_map};

const LIST: &str = "/notifications";

async fn mine(t: &Target, key: &str, query: &[(&str, &str)]) -> Vec<Value> {
    let resp = send_as(t, key, Method::GET, LIST, query, None).await;
    resp.ok_array().clone()
}

/// A watcher is notified of a re-import that changed the model and of an edit, not of a
/// re-import that changed nothing nor of models they do not watch; the one who made the
/// change is not notified. Notifications read back newest first and can be marked read.
pub async fn watchers_are_notified_of_model_changes(t: &Target) {
    let imported = t.import_sample().await;
    let other = t.import_sample().await;
    let watcher = t.key_with_roles(&["Metadata Viewer"]).await;
    let watch = |model: String| {
        let watcher = watcher.clone();
        async move {
            send_as(
                t,
                &watcher,
                Method::POST,
                &format!("/curation/{}", encode_segment(&model)),
                &[],
                Some(json!({"kind": "watch"})),
            )
            .await
            .ok();
        }
    };
    watch(imported.model_id.clone()).await;
    assert!(
        mine(t, &watcher, &[]).await.is_empty(),
        "nothing happened yet"
    );

    // The same archive again changes nothing: no notification.
    let resp = t
        .import(zip_map(&sample_files()), &[("modelId", &imported.model_id)])
        .await;
    resp.ok();
    assert!(
        mine(t, &watcher, &[]).await.is_empty(),
        "an unchanged re-import"
    );

    // A re-import with a changed description, and an edit.
    let changed = crate::notify::changed_archive("Staff.");
    let resp = t
        .import(changed.clone(), &[("modelId", &imported.model_id)])
        .await;
    assert_eq!(resp.ok()["updated"], json!(1), "{}", resp.describe());
    let table = t
        .entity(&format!("{}/Sales DB/sales/customer", imported.path))
        .await;
    let resp = t
        .put(
            "/repository/setAttributes",
            &[],
            &json!({"id": table.ok()["id"], "values": [
                {"attributeType": {"type": "SYSTEM_ATTRIBUTE", "name": "Description"}, "value": "Buyers."}
            ]}),
        )
        .await;
    resp.ok();
    // A change to a model the watcher does not watch.
    let resp = t.import(changed, &[("modelId", &other.model_id)]).await;
    resp.ok();

    let notifications = mine(t, &watcher, &[]).await;
    assert_eq!(notifications.len(), 2, "{notifications:?}");
    for n in &notifications {
        assert_eq!(n["kind"], json!("MODEL_CHANGED"));
        assert_eq!(n["objectId"], json!(imported.model_id));
        assert_eq!(n["read"], json!(false));
    }
    let newest = notifications[0]["message"].as_str().unwrap_or_default();
    assert!(
        newest.contains("Description") && newest.contains("customer"),
        "{newest}"
    );
    let older = notifications[1]["message"].as_str().unwrap_or_default();
    assert!(
        older.contains("re-imported") && older.contains("1 updated"),
        "{older}"
    );

    // Marked read; the unread ones and the limit.
    let id = notifications[1]["id"].as_i64().expect("an id").to_string();
    let resp = send_as(
        t,
        &watcher,
        Method::PUT,
        &format!("{LIST}/{id}"),
        &[],
        Some(json!({"read": true})),
    )
    .await;
    assert_eq!(resp.ok()["read"], json!(true));
    let unread = mine(t, &watcher, &[("unread", "true")]).await;
    assert_eq!(unread.len(), 1);
    assert_eq!(unread[0]["id"], notifications[0]["id"]);
    assert_eq!(mine(t, &watcher, &[("limit", "1")]).await.len(), 1);
    // The administrator made the changes: nothing for them about this model.
    let key = t.key().await;
    let own: Vec<Value> = mine(t, &key, &[("limit", "1000")])
        .await
        .into_iter()
        .filter(|n| n["objectId"] == json!(imported.model_id))
        .collect();
    assert!(own.is_empty(), "{own:?}");
}

/// Bad parameters and ids are refused; another user's notification is not found.
pub async fn notifications_bad_input(t: &Target) {
    for (name, value) in [
        ("unread", "maybe"),
        ("limit", "0"),
        ("limit", "1001"),
        ("limit", "x"),
    ] {
        let resp = t.get_q(LIST, &[(name, value)]).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    let resp = t
        .put(&format!("{LIST}/abc"), &[], &json!({"read": true}))
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t.put(&format!("{LIST}/1"), &[], &json!({})).await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let resp = t
        .put(&format!("{LIST}/1"), &[], &json!({"read": true, "x": 1}))
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .send(
            t.call(Method::PUT, &format!("{LIST}/1"))
                .await
                .header(CONTENT_TYPE, "application/json")
                .body("{read"),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .put(&format!("{LIST}/987654321"), &[], &json!({"read": true}))
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
}

const DELIVERIES: &str = "/admin/notificationDeliveries";

/// Administrators read the outbox of notifications (here, with nothing configured to
/// deliver to, an empty one), in a state or all; a bad state or limit is
/// INVALID_PARAMETER; others are refused.
pub async fn notification_deliveries_for_administrators(t: &Target) {
    let key = t.key().await;
    for query in [
        vec![],
        vec![("state", "pending")],
        vec![("state", "FAILED"), ("limit", "5")],
    ] {
        let resp = send_as(t, &key, Method::GET, DELIVERIES, &query, None).await;
        let listed = resp.ok_array();
        assert!(
            listed
                .iter()
                .all(|d| d["id"].is_i64() && d["state"].is_string()),
            "{listed:?}"
        );
    }
    for query in [
        vec![("state", "LOST")],
        vec![("limit", "0")],
        vec![("limit", "many")],
    ] {
        let resp = send_as(t, &key, Method::GET, DELIVERIES, &query, None).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    let viewer = t.key_with_roles(&["Metadata Viewer"]).await;
    let resp = send_as(t, &viewer, Method::GET, DELIVERIES, &[], None).await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
}
