//! Curation and grants kept as history: `GET /history/objects/{objectId}`'s `curation`
//! and `grant` changes, and `GET /history/grants`.

use serde_json::{Value, json};

use super::denied::send_as;
use super::history::{history_path, table};
use crate::harness::{Target, assert_error, encode_segment};

/// The changes of one kind in an object's history, oldest first: `(name, old, new)`.
async fn changes_of_kind(t: &Target, key: Option<&str>, id: &str, kind: &str) -> Vec<Value> {
    let path = history_path(id);
    let resp = match key {
        Some(key) => send_as(t, key, reqwest::Method::GET, &path, &[], None).await,
        None => t.get(&path).await,
    };
    let mut found: Vec<Value> = resp.ok()["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .filter(|c| c["kind"] == json!(kind))
        .map(|c| json!([c["name"], c["old"], c["new"]]))
        .collect();
    found.reverse();
    found
}

/// Curation (a comment written, edited... removed; an endorsement) is in the curated
/// object's history for whoever sees the object; a role granted and revoked on a folder
/// is in the folder's history only for who may manage its roles; server-wide roles are
/// in `GET /history/grants`, for role managers only.
pub async fn curation_and_grants_are_kept_in_history(t: &Target) {
    let id = table(t).await;
    let curation = format!("/curation/{}", encode_segment(&id));
    t.post(&curation, &[], &json!({"kind": "endorsement"}))
        .await
        .ok();
    let resp = t
        .post(
            &curation,
            &[],
            &json!({"kind": "comment", "text": "Matches billing."}),
        )
        .await;
    let written = &resp.ok()["comments"][0];
    let comment = written["id"]
        .as_i64()
        .unwrap_or_else(|| panic!("a comment id: {}", resp.describe()))
        .to_string();
    let user = json!({"userId": written["user"]["id"]});
    t.delete(&curation, &[("id", &comment)]).await.ok();
    let mut commented = user.clone();
    commented["text"] = json!("Matches billing.");
    assert_eq!(
        changes_of_kind(t, None, &id, "curation").await,
        vec![
            json!(["endorsement", null, user]),
            json!(["comment", null, commented]),
            json!(["comment", commented, null]),
        ],
        "each act of curation, with who and what"
    );
    // A viewer sees the curation of what they see, but not the text of a comment taken
    // down: that is its author's and the curators'.
    let viewer = t.key_with_roles(&["Metadata Viewer"]).await;
    assert_eq!(
        changes_of_kind(t, Some(&viewer), &id, "curation").await,
        vec![
            json!(["endorsement", null, user]),
            json!(["comment", null, commented]),
            json!(["comment", user, null]),
        ]
    );

    let (folder, _) = t.unique_folder("Granted History").await;
    let (grantee, grantee_key) = t.user_with_roles(&["Metadata Viewer"]).await;
    let grants = "/admin/grants";
    let body = json!({"grantee": grantee, "role": "Steward"});
    t.put(&format!("{grants}/grantObjectRole/{folder}"), &[], &body)
        .await
        .ok();
    t.put(&format!("{grants}/revokeObjectRole/{folder}"), &[], &body)
        .await
        .ok();
    let changes = changes_of_kind(t, None, &folder, "grant").await;
    assert_eq!(changes.len(), 2, "granted, then revoked: {changes:?}");
    assert_eq!(changes[0][0], json!("Steward"));
    assert!(changes[0][1].is_null() && changes[1][2].is_null());
    let grantee_id = changes[0][2]["granteeId"].clone();
    assert!(grantee_id.is_string(), "{changes:?}");
    assert_eq!(changes[1][1]["granteeId"], grantee_id);
    assert!(
        changes_of_kind(t, Some(&grantee_key), &folder, "grant")
            .await
            .is_empty(),
        "who may not manage the folder's roles reads none of its grants"
    );

    // The grantee's global role is a server-wide grant.
    let resp = t.get_q("/history/grants", &[("limit", "500")]).await;
    let listed = resp.ok()["changes"].as_array().expect("changes").clone();
    assert!(
        listed.iter().any(|c| c["kind"] == json!("grant")
            && c["name"] == json!("Metadata Viewer")
            && c["new"]["granteeId"] == grantee_id
            && c["author"]["source"] == json!("user")),
        "{listed:?}"
    );
    let resp = send_as(
        t,
        &grantee_key,
        reqwest::Method::GET,
        "/history/grants",
        &[],
        None,
    )
    .await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
    for query in [[("limit", "0")], [("limit", "501")], [("before", "soon")]] {
        let resp = t.get_q("/history/grants", &query).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
}

/// MQL as of a moment reads curation as it is now on objects as they were, through a
/// parent that changed since: a column's comment count beside its table's description
/// then, and the columns of a table endorsed now whose description then matched.
pub async fn curation_is_read_with_objects_as_of(t: &Target) {
    let imported = t.import_sample().await;
    let from = imported.path.as_str();
    let table_path = format!("{from}/Sales DB/sales/customer");
    let table_id = t.entity(&table_path).await.ok()["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let query = |filter: &str, as_of: Option<&str>| {
        let mut body =
            json!({"select": "Name", "from": from, "where": filter, "orderby": "Name asc"});
        if let Some(as_of) = as_of {
            body["asOf"] = json!(as_of);
        }
        body
    };
    let names = |resp: &crate::harness::Resp| super::execute::names(resp);
    let columns = names(
        &t.post(
            super::history::EXECUTE,
            &[],
            &query("Parent.Name = 'customer'", None),
        )
        .await,
    );
    let column = columns.first().expect("the table's columns").clone();
    let column_id = t.entity(&format!("{table_path}/{column}")).await.ok()["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    t.post(
        &format!("/curation/{}", encode_segment(&column_id)),
        &[],
        &json!({"kind": "comment", "text": "Checked."}),
    )
    .await
    .ok();
    t.post(
        &format!("/curation/{}", encode_segment(&table_id)),
        &[],
        &json!({"kind": "endorsement"}),
    )
    .await
    .ok();
    super::history::set_description(t, &table_id, "before").await;
    let at = lore_core::model::format_micros(&lore_core::model::now());
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    super::history::set_description(t, &table_id, "after").await;

    let run = |filter: &'static str, as_of: Option<String>| async move {
        let resp = t
            .post(
                super::history::EXECUTE,
                &[],
                &query(filter, as_of.as_deref()),
            )
            .await;
        names(&resp)
    };
    let commented = "\"Comment Count\" = 1 AND Parent.Description = 'before'";
    assert_eq!(run(commented, Some(at.clone())).await, vec![column]);
    assert!(
        run(commented, None).await.is_empty(),
        "the table is 'after' now"
    );
    let endorsed = "Parent.\"Endorsed By\" EXISTS AND Parent.Description = 'before'";
    assert_eq!(run(endorsed, Some(at.clone())).await, columns);
    assert!(run(endorsed, None).await.is_empty());
}
