//! History: `GET /history/objects/{objectId}` (an object's changes, newest first, with
//! their authors) and `GET /entities/{objectId}?asOf=` (an entity as it was).

use serde_json::{Value, json};

use super::denied::send_as;
use super::import::{column, with_objects};
use crate::harness::{Target, assert_error, encode_segment, sample_archive};

/// The value of an attribute in a legacy entity.
fn attribute(entity: &Value, name: &str) -> Option<Value> {
    entity["attributes"]
        .as_array()
        .expect("attributes")
        .iter()
        .find(|a| a["attributeType"]["name"] == json!(name))
        .map(|a| a["value"].clone())
}

/// A table of a freshly imported sample: its id.
async fn table(t: &Target) -> String {
    let imported = t.import_sample().await;
    let path = format!("{}/Sales DB/sales/customer", imported.path);
    let entity = t.entity(&path).await.ok().clone();
    entity["id"].as_str().expect("an id").to_owned()
}

async fn set_description(t: &Target, id: &str, description: &str) {
    t.put(
        "/repository/setAttributes",
        &[],
        &json!({"id": id, "values": [{
            "attributeType": {"type": "SYSTEM_ATTRIBUTE", "name": "Description"},
            "value": description,
        }, {
            "attributeType": {"type": "CUSTOM_ATTRIBUTE", "name": "Security Level"},
            "value": description,
        }]}),
    )
    .await
    .ok();
}

fn history_path(id: &str) -> String {
    format!("/history/objects/{}", encode_segment(id))
}

/// Two edits of a table are listed newest first, each change with its version, time,
/// author and old and new values; the entity reads as it was before each, by version and
/// by time; an import shows as the object's creation by the import.
pub async fn an_objects_changes_are_listed_and_read_as_of(t: &Target) {
    let id = table(t).await;
    let before = t.entity(&id).await.ok().clone();
    set_description(t, &id, "first").await;
    let between = lore_core::model::format_datetime(&lore_core::model::now());
    // Times are kept to the microsecond: the next write is surely later.
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    set_description(t, &id, "second").await;

    let resp = t.get(&history_path(&id)).await;
    let page = resp.ok();
    assert_eq!(page["objectId"], json!(id));
    assert_eq!(page["truncated"], json!(false));
    let changes = page["changes"].as_array().expect("changes");
    let described: Vec<&Value> = changes
        .iter()
        .filter(|c| c["kind"] == json!("attribute") && c["name"] == json!("Description"))
        .collect();
    assert!(described.len() >= 2, "both edits are listed: {page}");
    let (newest, older) = (described[0], described[1]);
    assert_eq!(newest["old"], json!("first"), "{newest}");
    assert_eq!(newest["new"], json!("second"), "{newest}");
    assert_eq!(older["new"], json!("first"), "{older}");
    assert_eq!(
        older["old"],
        attribute(&before, "Description").unwrap_or(Value::Null)
    );
    let (v_second, v_first) = (
        newest["version"].as_i64().expect("a version"),
        older["version"].as_i64().expect("a version"),
    );
    assert!(v_second > v_first, "newest first: {page}");
    assert_eq!(newest["author"]["source"], json!("user"), "{newest}");
    assert_eq!(
        newest["author"]["user"]["name"],
        json!("Administrator"),
        "the author is the user who made the change: {newest}"
    );
    assert!(
        newest["at"].as_str().is_some_and(|a| a.ends_with('Z')),
        "{newest}"
    );
    let custom = changes
        .iter()
        .find(|c| c["name"] == json!("Security Level") && c["new"] == json!("second"))
        .unwrap_or_else(|| panic!("a custom attribute's change is listed: {page}"));
    assert_eq!(custom["old"], json!("first"));
    let created = changes.iter().find(|c| c["kind"] == json!("created"));
    if let Some(created) = created {
        assert_eq!(created["author"]["source"], json!("import"), "{created}");
        assert_eq!(created["new"]["name"], json!("customer"), "{created}");
    }

    // As of the version before the second edit, and of a time between them.
    let version = (v_second - 1).to_string();
    let entity = format!("/entities/{}", encode_segment(&id));
    let then = t.get_q(&entity, &[("asOf", &version)]).await;
    let then = then.ok().clone();
    assert_eq!(
        attribute(&then, "Description"),
        Some(json!("first")),
        "{then}"
    );
    assert_eq!(attribute(&then, "Security Level"), Some(json!("first")));
    assert_eq!(then["id"], json!(id));
    let at_time = t
        .get_q(
            &format!("/entities/{}", encode_segment(&id)),
            &[("asOf", between.as_str())],
        )
        .await;
    assert_eq!(
        attribute(at_time.ok(), "Description"),
        Some(json!("first")),
        "as of a time between the edits"
    );
    let original = t
        .get_q(
            &format!("/entities/{}", encode_segment(&id)),
            &[("asOf", &(v_first - 1).to_string())],
        )
        .await;
    assert_eq!(
        attribute(original.ok(), "Description"),
        attribute(&before, "Description"),
        "as of before the first edit"
    );

    // Paged: one version per page here, whole.
    let first_page = t.get_q(&history_path(&id), &[("limit", "1")]).await;
    let first_page = first_page.ok().clone();
    let next = first_page["nextBefore"].as_i64().expect("a next page");
    assert_eq!(next, v_second, "{first_page}");
    assert!(
        first_page["changes"]
            .as_array()
            .expect("changes")
            .iter()
            .all(|c| c["version"] == json!(v_second)),
        "a page holds its last version whole: {first_page}"
    );
    let second_page = t
        .get_q(
            &history_path(&id),
            &[("limit", "1"), ("before", &next.to_string())],
        )
        .await;
    let second_page = second_page.ok().clone();
    assert!(
        second_page["changes"]
            .as_array()
            .expect("changes")
            .iter()
            .all(|c| c["version"] == json!(v_first)),
        "the next page goes on before it: {second_page}"
    );
}

/// The names of the objects `GET /relationships/{id}` answers, with `query`.
async fn related(t: &Target, id: &str, query: &[(&str, &str)]) -> Vec<String> {
    let resp = t
        .get_q(&format!("/relationships/{}", encode_segment(id)), query)
        .await;
    let mut names: Vec<String> = resp
        .ok_array()
        .iter()
        .filter_map(|e| e["name"].as_str().map(str::to_owned))
        .collect();
    names.sort();
    names
}

/// An entity relationship added and then removed: the relationships as of each version
/// are those of then, listed and counted, while today's are today's.
pub async fn relationships_are_read_as_of(t: &Target) {
    let imported = t.import_sample().await;
    let id_of = |name: &str| format!("{}/Sales DB/sales/{name}", imported.path);
    let customer = t.entity(&id_of("customer")).await.ok()["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let orders = t.entity(&id_of("orders")).await.ok()["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let ends = [
        ("sourceObjectId", customer.as_str()),
        ("targetObjectId", orders.as_str()),
        ("name", "history_test"),
    ];
    let before = related(t, &customer, &[]).await;
    let request = t
        .call(reqwest::Method::POST, "/dataModel/entityRelationship")
        .await;
    t.send(request.query(&ends)).await.ok();
    let with = related(t, &customer, &[]).await;
    let history = t.get(&history_path(&customer)).await;
    let added = history.ok()["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .find(|c| c["kind"] == json!("edge") && c["new"]["name"] == json!("history_test"))
        .unwrap_or_else(|| panic!("the edge's addition is listed: {}", history.ok()))
        .clone();
    assert_eq!(added["new"]["targetId"], json!(orders));
    let v_added = added["version"].as_i64().expect("a version");
    t.delete("/dataModel/entityRelationship", &ends).await.ok();
    assert_eq!(related(t, &customer, &[]).await, before, "removed now");

    let then = (v_added - 1).to_string();
    let at = v_added.to_string();
    assert_eq!(related(t, &customer, &[("asOf", &then)]).await, before);
    assert_eq!(related(t, &customer, &[("asOf", &at)]).await, with);
    let count = t
        .get_q(
            &format!("/relationships/count/{}", encode_segment(&customer)),
            &[("asOf", &at)],
        )
        .await;
    assert_eq!(count.ok(), &json!(with.len()));
    // The other end sees it from its side too.
    let from_orders = related(t, &orders, &[("asOf", &at)]).await;
    assert!(
        from_orders.contains(&"customer".to_owned()),
        "{from_orders:?}"
    );
    let resp = t
        .get_q(
            &format!("/relationships/{}", encode_segment(&customer)),
            &[("asOf", "tomorrow")],
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
}

/// A table a harvest removed keeps its history: read by its id, its creation and its
/// deletion are the import's, and it reads as it was before the deletion; a re-import
/// that changes nothing records nothing.
pub async fn a_removed_objects_history_is_read_by_its_id(t: &Target) {
    let imported = t.import_sample().await;
    let extra = crate::harness::unique("history-extra");
    let archive = with_objects(|header, rows| {
        let mut row = rows[0].clone();
        row.resize(header.len(), String::new());
        row[column(header, "native_id")] = extra.clone();
        if let Some(p) = header
            .iter()
            .position(|h| h.eq_ignore_ascii_case("parent_native_id"))
        {
            row[p] = String::new();
        }
        row[column(header, "name")] = extra.clone();
        rows.push(row);
    });
    t.import(archive, &[("modelId", &imported.model_id)])
        .await
        .ok();
    let added = t.entity(&format!("{}/{extra}", imported.path)).await;
    let added = added.ok()["id"].as_str().expect("an id").to_owned();
    let table = t
        .entity(&format!("{}/Sales DB/sales/customer", imported.path))
        .await;
    let table = table.ok()["id"].as_str().expect("an id").to_owned();
    let kept = t.get(&history_path(&table)).await.ok().clone();

    t.import(sample_archive(), &[("modelId", &imported.model_id)])
        .await
        .ok();
    assert_error(&t.entity(&added).await, 404, "OBJECT_NOT_FOUND");
    let page = t.get(&history_path(&added)).await;
    let changes = page.ok()["changes"].as_array().expect("changes").clone();
    assert_eq!(changes[0]["kind"], json!("deleted"), "{changes:?}");
    assert_eq!(changes[0]["author"]["source"], json!("import"));
    let created = changes.last().expect("a change");
    assert_eq!(created["kind"], json!("created"), "{changes:?}");
    assert_eq!(created["new"]["name"], json!(extra));
    let deleted_at = changes[0]["version"].as_i64().expect("a version");
    let then = t
        .get_q(
            &format!("/entities/{}", encode_segment(&added)),
            &[("asOf", &(deleted_at - 1).to_string())],
        )
        .await;
    assert_eq!(then.ok()["name"], json!(extra), "as of before its removal");
    let now = t
        .get_q(
            &format!("/entities/{}", encode_segment(&added)),
            &[("asOf", &deleted_at.to_string())],
        )
        .await;
    assert_error(&now, 404, "OBJECT_NOT_FOUND");

    // The table was in both archives unchanged: nothing was recorded for it.
    let again = t.get(&history_path(&table)).await;
    assert_eq!(again.ok(), &kept, "an unchanged object has no new change");
}

/// Every `asOf`, `before` and `limit` that is not one is refused with what was wrong,
/// and an object that is not there has no history.
pub async fn history_bad_input_is_refused(t: &Target) {
    let id = table(t).await;
    let entity = format!("/entities/{}", encode_segment(&id));
    for (as_of, says) in [
        ("yesterday", "neither an RFC 3339 time"),
        ("2999-01-01T00:00:00Z", "in the future"),
        ("1970-01-01T00:00:00Z", "older than the history kept"),
        ("999999999999", "has not been made yet"),
        ("99999999999999999999999", "neither an RFC 3339 time"),
    ] {
        let resp = t.get_q(&entity, &[("asOf", as_of)]).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
        let message = resp.json["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "asOf={as_of}: {message}");
    }
    let resp = t.get_q(&entity, &[("asOf", "1"), ("select", "Name")]).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let history = history_path(&id);
    for query in [
        [("limit", "0"), ("before", "10")],
        [("limit", "501"), ("before", "10")],
        [("limit", "ten"), ("before", "10")],
        [("limit", "5"), ("before", "soon")],
    ] {
        let resp = t.get_q(&history, &query).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    for (missing, code) in [
        ("999999_1", "OBJECT_NOT_FOUND"),
        ("/No Such Folder/nothing", "INVALID_REPOSITORY_PATH"),
    ] {
        let resp = t.get(&history_path(missing)).await;
        assert_error(&resp, 404, code);
        let resp = t
            .get_q(
                &format!("/entities/{}", encode_segment(missing)),
                &[("asOf", "2020-01-01T00:00:00Z")],
            )
            .await;
        assert!(
            resp.status == 404 || resp.status == 400,
            "a missing object as of a time: {}",
            resp.describe()
        );
    }
    let resp = t.get(&history_path("not an id")).await;
    assert!(matches!(resp.status, 400 | 404), "{}", resp.describe());
}

/// A user without View Metadata reads no history; a user who cannot see the model gets
/// what a missing object gets.
pub async fn history_without_view_metadata_is_denied(t: &Target) {
    let id = table(t).await;
    let key = t.key_with_roles(&[]).await;
    let resp = send_as(t, &key, reqwest::Method::GET, &history_path(&id), &[], None).await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
    let resp = send_as(
        t,
        &key,
        reqwest::Method::GET,
        &format!("/entities/{}", encode_segment(&id)),
        &[("asOf", "1")],
        None,
    )
    .await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
}
