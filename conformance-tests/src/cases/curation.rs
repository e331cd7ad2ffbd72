//! Social curation and workflow: `GET|POST|DELETE /curation/{objectId}` and `POST
//! /workflow/{objectId}` (Lore's extensions), and what MQL reads of them.

use reqwest::Method;
use serde_json::{Value, json};

use super::denied::send_as;
use crate::harness::{Resp, Target, assert_error, encode_segment};

fn path(object: &str) -> String {
    format!("/curation/{}", encode_segment(object))
}

fn workflow(object: &str) -> String {
    format!("/workflow/{}", encode_segment(object))
}

fn names(list: &Value) -> Vec<String> {
    list.as_array()
        .expect("a list")
        .iter()
        .map(|u| u["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

async fn table(t: &Target) -> (String, String) {
    let imported = t.import_sample().await;
    let table = t
        .entity(&format!("{}/Sales DB/sales/customer", imported.path))
        .await;
    (
        imported.model_id,
        table.ok()["id"].as_str().expect("id").to_owned(),
    )
}

async fn count(t: &Target, model: &str, filter: &str) -> u64 {
    let resp = t
        .get_q(
            "/entities/countMQLQuery",
            &[("select", "Name"), ("from", model), ("where", filter)],
        )
        .await;
    resp.ok()
        .as_u64()
        .unwrap_or_else(|| panic!("{filter}: {}", resp.describe()))
}

/// Each kind of curation added (endorsing twice is one endorsement), read back with who
/// said it, and removed: one's own by kind, a comment by id, another user's comment by a
/// curator.
pub async fn curation_endorse_certify_comment_warn_watch(t: &Target) {
    let (model, object) = table(t).await;
    let key = t.key().await;
    let add = |key: String, body: Value| {
        let object = object.clone();
        async move { send_as(t, &key, Method::POST, &path(&object), &[], Some(body)).await }
    };
    for body in [
        json!({"kind": "endorsement"}),
        json!({"kind": "endorsement"}),
        json!({"kind": "certification"}),
        json!({"kind": "comment", "text": "Matches the billing system."}),
        json!({"kind": "warning", "text": "Stale since the CRM migration"}),
        json!({"kind": "watch"}),
    ] {
        add(key.clone(), body).await.ok();
    }
    let viewer = t.key_with_roles(&["Metadata Viewer"]).await;
    add(viewer.clone(), json!({"kind": "endorsement"}))
        .await
        .ok();
    let resp = add(
        viewer.clone(),
        json!({"kind": "comment", "text": "Where is the country?"}),
    )
    .await;
    let curation = resp.ok().clone();
    assert_eq!(curation["endorsedBy"].as_array().map(Vec::len), Some(2));
    assert_eq!(names(&curation["certifiedBy"]), vec![t.user.clone()]);
    assert_eq!(names(&curation["watchers"]), vec![t.user.clone()]);
    let comments = curation["comments"].as_array().expect("comments");
    assert_eq!(comments.len(), 2);
    assert_eq!(comments[0]["text"], json!("Matches the billing system."));
    assert!(comments[0]["at"].as_str().is_some_and(|a| a.ends_with('Z')));
    assert_eq!(
        curation["warnings"][0]["text"],
        json!("Stale since the CRM migration")
    );
    assert_eq!(curation["workflowState"], json!("Draft"));
    assert_eq!(curation["myWorkflowTasks"], json!([]), "the viewer's: none");
    let resp = t.get(&path(&object)).await;
    let mut mine = resp.ok().clone();
    assert_eq!(mine["myWorkflowTasks"], json!(["Submit for Approval"]));
    mine["myWorkflowTasks"] = json!([]);
    assert_eq!(mine, curation, "GET answers the same curation");

    // MQL reads the same: in filters (ME is the caller) and in SELECT.
    for (filter, expected) in [
        ("\"Endorsed By\" = ME", 1),
        ("\"Endorsement Count\" = 2", 1),
        ("Certified = true", 1),
        ("\"Certified By\" = ME AND Watchers = ME", 1),
        ("\"Warned By\" = ME AND \"Warning Count\" = 1", 1),
        ("\"Comment Count\" >= 2 AND \"Commented By\" EXISTS", 1),
        ("\"Endorsed By\" NOT EXISTS", 0),
    ] {
        // The table, not the glossary term named Customer.
        let full = format!("\"Object Type\" = 'Table' AND Name = 'customer' AND ({filter})");
        let found = count(t, &model, &full).await;
        assert_eq!(found, expected, "{filter}");
    }
    let resp = t
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({"select": "Name, \"Endorsed By\", \"Comment Count\", Certified, Watchers",
                    "from": model, "where": "\"Object Type\" = 'Table' AND Name = 'customer'"}),
        )
        .await;
    let values: Vec<Value> = resp.ok_array()[0]["attributes"]
        .as_array()
        .expect("attributes")
        .iter()
        .map(|a| a["value"].clone())
        .collect();
    assert_eq!(values[0], json!("customer"));
    assert_eq!(
        values[1].as_array().map(Vec::len),
        Some(2),
        "{:?}",
        values[1]
    );
    assert_eq!(values[2], json!(2));
    assert_eq!(values[3], json!(true));
    assert_eq!(names(&values[4]), vec![t.user.clone()]);

    // Removing: the viewer's own endorsement by kind, their comment by id; a curator
    // removes anyone's comment.
    let theirs = comments[1]["id"].as_i64().expect("an id").to_string();
    let resp = send_as(
        t,
        &viewer,
        Method::DELETE,
        &path(&object),
        &[("kind", "endorsement")],
        None,
    )
    .await;
    assert_eq!(resp.ok()["endorsedBy"].as_array().map(Vec::len), Some(1));
    let resp = t.delete(&path(&object), &[("id", &theirs)]).await;
    assert_eq!(resp.ok()["comments"].as_array().map(Vec::len), Some(1));
    let resp = t.delete(&path(&object), &[("kind", "watch")]).await;
    assert_eq!(resp.ok()["watchers"], json!([]));
}

/// An object moves through the workflow; the entity's Workflow State and MQL follow.
pub async fn workflow_moves_through_its_states(t: &Target) {
    let (model, object) = table(t).await;
    let step = |action: &'static str| {
        let object = object.clone();
        async move {
            t.post(&workflow(&object), &[], &json!({"action": action}))
                .await
        }
    };
    let table = "\"Object Type\" = 'Table' AND Name = 'customer' AND ";
    let tasks = |filter: &'static str| {
        let model = model.clone();
        async move { count(t, &model, &format!("{table}{filter}")).await }
    };
    assert_eq!(
        tasks("\"My Workflow Tasks\" = 'Submit for Approval'").await,
        1,
        "a Draft object"
    );
    let resp = step("Submit for Approval").await;
    assert_eq!(resp.ok()["workflowState"], json!("Pending Approval"));
    assert_eq!(
        resp.ok()["myWorkflowTasks"],
        json!(["Start Review", "Discard"])
    );
    assert_eq!(tasks("\"My Workflow Tasks\" = 'start review'").await, 1);
    assert_eq!(
        tasks("\"My Workflow Tasks\" = ALL ('Start Review', 'Discard')").await,
        1
    );
    assert_eq!(tasks("\"My Workflow Tasks\" = 'Approve'").await, 0);
    assert_eq!(tasks("\"My Workflow Tasks\" NOT EXISTS").await, 0);
    let viewer = t.key_with_roles(&["Metadata Viewer"]).await;
    let filter = format!("{table}\"My Workflow Tasks\" EXISTS");
    let resp = send_as(
        t,
        &viewer,
        Method::GET,
        "/entities/countMQLQuery",
        &[
            ("select", "Name"),
            ("from", model.as_str()),
            ("where", filter.as_str()),
        ],
        None,
    )
    .await;
    assert_eq!(resp.ok(), &json!(0), "a viewer has no tasks");
    let resp = t
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({"select": "\"My Workflow Tasks\"", "from": model,
                    "where": "\"Object Type\" = 'Table' AND Name = 'customer'"}),
        )
        .await;
    assert_eq!(
        resp.ok_array()[0]["attributes"][0]["value"],
        json!(["Start Review", "Discard"])
    );
    let resp = step("Discard").await;
    assert_eq!(resp.ok()["workflowState"], json!("Draft"));
    for (action, state) in [
        ("Submit for Approval", "Pending Approval"),
        ("start review", "Under Review"),
        ("Approve", "Approved"),
    ] {
        let resp = step(action).await;
        assert_eq!(resp.ok()["workflowState"], json!(state), "{action}");
    }
    let entity = t.entity(&object).await;
    let state = entity.ok()["attributes"]
        .as_array()
        .expect("attributes")
        .iter()
        .find(|a| a["attributeType"]["name"] == json!("Workflow State"))
        .map(|a| a["value"].clone());
    assert_eq!(state, Some(json!("Approved")));
    assert_eq!(count(t, &model, "\"Workflow State\" = 'Approved'").await, 1);
    for (action, state) in [
        ("Mark for Deprecation", "Pending Deprecation"),
        ("Deprecate", "Deprecated"),
        ("Submit for Approval", "Pending Approval"),
    ] {
        let resp = step(action).await;
        assert_eq!(resp.ok()["workflowState"], json!(state), "{action}");
    }
}

/// Unknown kinds and actions, text where none belongs and none where it must, entries
/// that are not there, and actions that do not apply are refused; nothing changes.
pub async fn curation_and_workflow_bad_input(t: &Target) {
    let (_, object) = table(t).await;
    let long = "x".repeat(10_001);
    let bad: [(Value, u16, &str); 7] = [
        (json!({}), 400, "REQUIRED_PARAMETER_NOT_SPECIFIED"),
        (json!({"kind": "like"}), 400, "INVALID_PARAMETER"),
        (
            json!({"kind": "comment"}),
            400,
            "REQUIRED_PARAMETER_NOT_SPECIFIED",
        ),
        (
            json!({"kind": "comment", "text": "   "}),
            400,
            "REQUIRED_PARAMETER_NOT_SPECIFIED",
        ),
        (
            json!({"kind": "endorsement", "text": "great"}),
            400,
            "INVALID_PARAMETER",
        ),
        (
            json!({"kind": "warning", "text": long}),
            400,
            "INVALID_PARAMETER",
        ),
        (
            json!({"kind": "watch", "colour": "red"}),
            400,
            "INVALID_PARAMETER",
        ),
    ];
    for (body, status, code) in &bad {
        let resp = t.post(&path(&object), &[], body).await;
        assert_error(&resp, *status, code);
    }
    let resp = t
        .post(&path("999999_1"), &[], &json!({"kind": "watch"}))
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t.get(&path("999999_1")).await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t.get("/curation/not%20an%20id%20at%20all%21").await;
    assert_eq!(resp.status, 400, "{}", resp.describe());

    for (query, status, code) in [
        (vec![], 400, "REQUIRED_PARAMETER_NOT_SPECIFIED"),
        (vec![("kind", "comment")], 400, "INVALID_PARAMETER"),
        (vec![("id", "abc")], 400, "INVALID_PARAMETER"),
        (vec![("id", "424242")], 404, "OBJECT_NOT_FOUND"),
        (vec![("kind", "endorsement")], 404, "OBJECT_NOT_FOUND"),
    ] {
        let resp = t.delete(&path(&object), &query).await;
        assert_error(&resp, status, code);
    }
    // A comment of another object is not this object's.
    let (_, other) = table(t).await;
    let resp = t
        .post(
            &path(&other),
            &[],
            &json!({"kind": "comment", "text": "elsewhere"}),
        )
        .await;
    let id = resp.ok()["comments"][0]["id"]
        .as_i64()
        .expect("id")
        .to_string();
    let resp = t.delete(&path(&object), &[("id", &id)]).await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");

    for (body, status, code) in [
        (json!({}), 400, "REQUIRED_PARAMETER_NOT_SPECIFIED"),
        (json!({"action": "Publish"}), 400, "INVALID_PARAMETER"),
        (json!({"action": "Approve"}), 409, "CONFLICT"),
        (
            json!({"action": "Approve", "why": 1}),
            400,
            "INVALID_PARAMETER",
        ),
    ] {
        let resp = t.post(&workflow(&object), &[], &body).await;
        assert_error(&resp, status, code);
    }
    let resp = t.get(&path(&object)).await;
    assert_eq!(resp.ok()["workflowState"], json!("Draft"), "nothing moved");
    assert_eq!(resp.ok()["comments"], json!([]), "nothing was added");
}

#[track_caller]
fn denied(resp: &Resp, what: &str) {
    assert_eq!(resp.status, 403, "{what}: {}", resp.describe());
    assert_error(resp, 403, "PERMISSION_DENIED");
}

/// Without View Metadata nothing; a Metadata Viewer endorses, comments and watches but
/// neither certifies, warns, removes others' comments nor moves the workflow.
pub async fn curation_and_workflow_denied(t: &Target) {
    let (_, object) = table(t).await;
    let nobody = t.key_with_roles(&[]).await;
    let viewer = t.key_with_roles(&["Metadata Viewer"]).await;
    let curation = path(&object);
    denied(
        &send_as(t, &nobody, Method::GET, &curation, &[], None).await,
        "GET",
    );
    denied(
        &send_as(
            t,
            &nobody,
            Method::POST,
            &curation,
            &[],
            Some(json!({"kind": "watch"})),
        )
        .await,
        "watch",
    );
    denied(
        &send_as(
            t,
            &nobody,
            Method::DELETE,
            &curation,
            &[("kind", "watch")],
            None,
        )
        .await,
        "unwatch",
    );
    for kind in ["certification", "warning"] {
        let mut body = json!({"kind": kind});
        if kind == "warning" {
            body["text"] = json!("no");
        }
        denied(
            &send_as(t, &viewer, Method::POST, &curation, &[], Some(body)).await,
            kind,
        );
    }
    let resp = t
        .post(
            &curation,
            &[],
            &json!({"kind": "comment", "text": "the admin's"}),
        )
        .await;
    let id = resp.ok()["comments"][0]["id"]
        .as_i64()
        .expect("id")
        .to_string();
    denied(
        &send_as(t, &viewer, Method::DELETE, &curation, &[("id", &id)], None).await,
        "removing another's comment",
    );
    denied(
        &send_as(
            t,
            &viewer,
            Method::POST,
            &workflow(&object),
            &[],
            Some(json!({"action": "Submit for Approval"})),
        )
        .await,
        "Submit for Approval",
    );
    let resp = send_as(t, &viewer, Method::GET, &curation, &[], None).await;
    assert_eq!(
        resp.ok()["myWorkflowTasks"],
        json!([]),
        "the viewer has no tasks"
    );
    assert_eq!(resp.ok()["comments"].as_array().map(Vec::len), Some(1));
    assert_eq!(resp.ok()["certifiedBy"], json!([]));
}
