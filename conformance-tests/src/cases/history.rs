//! History: `GET /history/objects/{objectId}` (an object's changes, newest first, with
//! their authors) and `GET /entities/{objectId}?asOf=` (an entity as it was).

use serde_json::{Value, json};

use super::denied::send_as;
use super::history_browse::tree_ids;
use super::import::{column, rewrite_csv, with_objects};
use crate::harness::{Sample, Target, assert_error, encode_segment, sample_archive, zip_map};

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
pub(crate) async fn table(t: &Target) -> String {
    let imported = t.import_sample().await;
    let path = format!("{}/Sales DB/sales/customer", imported.path);
    let entity = t.entity(&path).await.ok().clone();
    entity["id"].as_str().expect("an id").to_owned()
}

pub(crate) async fn set_description(t: &Target, id: &str, description: &str) {
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

pub(crate) fn history_path(id: &str) -> String {
    format!("/history/objects/{}", encode_segment(id))
}

/// Two edits of a table are listed newest first, each change with its version, time,
/// author and old and new values; the entity reads as it was before each, by version and
/// by time; an import shows as the object's creation by the import.
pub async fn an_objects_changes_are_listed_and_read_as_of(t: &Target) {
    let id = table(t).await;
    let before = t.entity(&id).await.ok().clone();
    set_description(t, &id, "first").await;
    let between = lore_core::model::format_micros(&lore_core::model::now());
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
    let resp = t
        .get_q(
            &format!("/relationships/count/{}", encode_segment(&id)),
            &[("asOf", "yesterday")],
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
}

/// A user without View Metadata reads no history; a user who cannot see the model gets
/// what a missing object gets.
pub async fn history_without_view_metadata_is_denied(t: &Target) {
    let id = table(t).await;
    let key = t.key_with_roles(&[]).await;
    // A model's id is its repository object's: `-1_<the number its objects carry>`.
    let number = id.split('_').next().expect("a model number");
    let model = format!("-1_{number}");
    for (path, query) in [
        (versions_path(&model), vec![]),
        (compare_path(&model), vec![("from", "1")]),
    ] {
        let resp = send_as(t, &key, reqwest::Method::GET, &path, &query, None).await;
        assert_error(&resp, 403, "PERMISSION_DENIED");
    }
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

/// The sample archive a harvest later finds changed: `hire_date` dropped, `salary`'s
/// type changed, `first_name` renamed, `email` made not null (breaking); `city`
/// widened, the table `customer` described anew, a column `phone` added (not breaking).
pub(crate) fn changed_sample() -> Vec<u8> {
    zip_map(&changed_files())
}

/// The files of [`changed_sample`].
fn changed_files() -> std::collections::BTreeMap<String, Vec<u8>> {
    const GONE: &str = "salesdb.hr.employee.hire_date";
    let sample = Sample::load();
    let objects = rewrite_csv(&sample.files["objects.csv"], |header, rows| {
        let (native, name, physical, data_type, description) = (
            column(header, "native_id"),
            column(header, "name"),
            column(header, "physical_name"),
            column(header, "data_type"),
            column(header, "description"),
        );
        rows.retain(|r| r[native] != GONE);
        let mut phone = None;
        for row in rows.iter_mut() {
            row.resize(header.len(), String::new());
            match row[native].as_str() {
                "salesdb.sales.customer.city" => row[data_type] = "VARCHAR(120)".into(),
                "salesdb.hr.employee.salary" => row[data_type] = "INTEGER".into(),
                "salesdb.sales.customer.first_name" => {
                    row[name] = "given_name".into();
                    row[physical] = "given_name".into();
                }
                "salesdb.sales.customer" => row[description] = "Every customer.".into(),
                "salesdb.sales.customer.last_name" => {
                    let mut new = row.clone();
                    new[native] = "salesdb.sales.customer.phone".into();
                    new[name] = "phone".into();
                    new[physical] = "phone".into();
                    new[data_type] = "VARCHAR(20)".into();
                    phone = Some(new);
                }
                _ => {}
            }
        }
        rows.extend(phone);
    });
    let attributes = rewrite_csv(&sample.files["attributes.csv"], |header, rows| {
        let (native, name, value) = (
            column(header, "native_id"),
            column(header, "attribute"),
            column(header, "value"),
        );
        rows.retain(|r| r[native] != GONE);
        for row in rows.iter_mut() {
            if row[native] == "salesdb.sales.customer.email" && row[name] == "Nullable" {
                row[value] = "false".into();
            }
        }
    });
    let files = sample.with_file("objects.csv", Some(objects));
    let mut files = files;
    files.insert("attributes.csv".into(), attributes);
    for (name, data) in files.iter_mut() {
        if name != "objects.csv" && name != "attributes.csv" {
            *data = rewrite_csv(data, |header, rows| {
                if let Some(native) = header.iter().position(|h| h == "native_id") {
                    rows.retain(|r| r.get(native).is_none_or(|n| n != GONE));
                }
            });
        }
    }
    files
}

/// The files with a lineage edge from `salary` to `orders.total_amount` added.
fn with_lineage(
    mut files: std::collections::BTreeMap<String, Vec<u8>>,
) -> std::collections::BTreeMap<String, Vec<u8>> {
    let relationships = rewrite_csv(&files["relationships.csv"], |_, rows| {
        rows.push(
            [
                "lineage",
                "load_total",
                "salesdb.hr.employee.salary",
                "salesdb.sales.orders.total_amount",
            ]
            .map(str::to_owned)
            .to_vec(),
        );
    });
    files.insert("relationships.csv".into(), relationships);
    files
}

fn versions_path(model: &str) -> String {
    format!("/history/models/{}/versions", encode_segment(model))
}

fn compare_path(model: &str) -> String {
    format!("/history/models/{}/compare", encode_segment(model))
}

/// The objects of a compare by name: (change, breaking, reasons).
fn by_name(compared: &Value) -> std::collections::BTreeMap<String, (String, bool, Value)> {
    compared["objects"]
        .as_array()
        .expect("objects")
        .iter()
        .map(|o| {
            (
                o["name"].as_str().expect("a name").to_owned(),
                (
                    o["change"].as_str().expect("a change").to_owned(),
                    o["breaking"].as_bool().expect("breaking"),
                    o["reasons"].clone(),
                ),
            )
        })
        .collect()
}

/// Each import that changes a model makes a version (an unchanged one none), listed
/// with its counts; two versions compare as the objects added, removed and changed, each
/// change classified breaking or not, breaking ones first, either way round, by version
/// or by time, and as a CSV file; a version's id reads the model as of it.
pub async fn a_models_versions_are_listed_and_compared(t: &Target) {
    let imported = t.import_sample().await;
    let model = imported.model_id.clone();
    t.import(sample_archive(), &[("modelId", &model)])
        .await
        .ok();
    let first_name = t
        .entity(&format!(
            "{}/Sales DB/sales/customer/first_name",
            imported.path
        ))
        .await
        .ok()["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let summary = t.import(changed_sample(), &[("modelId", &model)]).await;
    let summary = summary.ok().clone();
    assert_eq!(
        (&summary["added"], &summary["updated"], &summary["removed"]),
        (&json!(1), &json!(5), &json!(1)),
        "{summary}"
    );

    let listed = t.get(&versions_path(&model)).await.ok().clone();
    assert_eq!(listed["modelId"], json!(model));
    let versions = listed["versions"].as_array().expect("versions").clone();
    assert_eq!(
        versions.len(),
        2,
        "the first import and the changed one; the unchanged one made none: {listed}"
    );
    let (v2, v1) = (&versions[0], &versions[1]);
    assert_eq!(
        (&v1["number"], &v2["number"]),
        (&json!(1), &json!(2)),
        "newest first: {listed}"
    );
    let page = t.get_q(&versions_path(&model), &[("limit", "1")]).await;
    let page = page.ok();
    assert_eq!(page["versions"].as_array().map(Vec::len), Some(1));
    assert_eq!(page["nextBefore"], json!(2), "{page}");
    let older = t
        .get_q(&versions_path(&model), &[("limit", "1"), ("before", "2")])
        .await;
    assert_eq!(older.ok()["versions"][0]["number"], json!(1));
    let objects = Sample::load().objects.len();
    assert_eq!(
        (&v1["objects"], &v1["added"], &v1["changed"], &v1["removed"]),
        (&json!(objects), &json!(objects), &json!(0), &json!(0)),
        "{v1}"
    );
    assert_eq!(
        (&v2["objects"], &v2["added"], &v2["changed"], &v2["removed"]),
        (&json!(objects), &json!(1), &json!(5), &json!(1)),
        "{v2}"
    );
    assert_eq!(v2["author"]["source"], json!("import"), "{v2}");
    assert_eq!(v2["author"]["user"]["name"], json!("Administrator"), "{v2}");
    let (id1, id2) = (
        v1["id"].as_str().expect("an id").to_owned(),
        v2["id"].as_str().expect("an id").to_owned(),
    );

    let compared = t
        .get_q(&compare_path(&model), &[("from", &id1), ("to", &id2)])
        .await;
    let compared = compared.ok().clone();
    assert_eq!(
        compared["counts"],
        json!({"added": 1, "removed": 1, "changed": 5, "moved": 0, "breaking": 4}),
        "{compared}"
    );
    assert_eq!(compared["from"]["version"].to_string(), id1);
    assert_eq!(compared["truncated"], json!(false));
    let found = by_name(&compared);
    let expect = |name: &str, change: &str, breaking: bool, reasons: Value| {
        assert_eq!(
            found.get(name),
            Some(&(change.to_owned(), breaking, reasons)),
            "{name}: {compared}"
        );
    };
    expect("hire_date", "removed", true, json!(["removed"]));
    expect("salary", "changed", true, json!(["type changed"]));
    expect("given_name", "changed", true, json!(["renamed"]));
    expect("email", "changed", true, json!(["made not null"]));
    expect("city", "changed", false, json!([]));
    expect("customer", "changed", false, json!([]));
    expect("phone", "added", false, json!([]));
    let listed = compared["objects"].as_array().expect("objects");
    assert!(
        listed[..4].iter().all(|o| o["breaking"] == json!(true)),
        "breaking changes first: {compared}"
    );
    let salary = listed
        .iter()
        .find(|o| o["name"] == json!("salary"))
        .expect("salary");
    assert_eq!(
        salary["changes"],
        json!([{"kind": "attribute", "name": "Data Type", "old": "NUMERIC(10,2)", "new": "INTEGER", "breaking": true}]),
        "{salary}"
    );

    // The other way round, by time, and up to now.
    let back = t
        .get_q(&compare_path(&model), &[("from", &id2), ("to", &id1)])
        .await;
    let back = by_name(back.ok());
    assert_eq!(back["hire_date"].0, "added");
    assert_eq!(
        back["phone"],
        ("removed".to_owned(), true, json!(["removed"]))
    );
    let (at1, at2) = (
        v1["at"].as_str().expect("a time"),
        v2["at"].as_str().expect("a time"),
    );
    let by_time = t
        .get_q(&compare_path(&model), &[("from", at1), ("to", at2)])
        .await;
    assert_eq!(by_time.ok()["counts"], compared["counts"]);
    let to_now = t.get_q(&compare_path(&model), &[("from", &id1)]).await;
    assert_eq!(
        to_now.ok()["counts"],
        compared["counts"],
        "to: the newest version"
    );
    let same = t
        .get_q(&compare_path(&model), &[("from", &id2), ("to", &id2)])
        .await;
    assert_eq!(same.ok()["objects"], json!([]), "a version against itself");
    let one = t
        .get_q(&compare_path(&model), &[("from", &id1), ("limit", "1")])
        .await;
    let one = one.ok();
    assert_eq!(one["objects"].as_array().map(Vec::len), Some(1));
    assert_eq!(one["truncated"], json!(true), "{one}");
    assert_eq!(
        one["counts"], compared["counts"],
        "the counts are of every object"
    );

    let csv = t
        .get_q(
            &compare_path(&model),
            &[("from", &id1), ("to", &id2), ("format", "csv")],
        )
        .await;
    assert_eq!(csv.status, 200, "{}", csv.describe());
    assert!(
        csv.headers["content-type"]
            .to_str()
            .is_ok_and(|c| c.starts_with("text/csv")),
        "{:?}",
        csv.headers
    );
    let text = String::from_utf8(csv.bytes.clone()).expect("UTF-8");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some(
            "objectId,name,objectType,change,breaking,reasons,kind,attribute,old,new,changeBreaking"
        )
    );
    assert!(
        text.lines()
            .any(|l| l.contains(",salary,") && l.contains("NUMERIC(10,2)")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.contains(",hire_date,") && l.contains(",removed,"))
    );

    // A version's id reads the model as of it.
    let then = t
        .get_q(
            &format!("/entities/{}", encode_segment(&first_name)),
            &[("asOf", &id1)],
        )
        .await;
    assert_eq!(then.ok()["name"], json!("first_name"));
    let now = t.entity(&first_name).await;
    assert_eq!(now.ok()["name"], json!("given_name"));
}

/// A compare without `from`, or with an end, limit or format that is not one, is refused
/// with what was wrong; an object that is not a model has no versions; a model that is
/// not there is not found.
pub async fn model_history_bad_input_is_refused(t: &Target) {
    let imported = t.import_sample().await;
    let model = imported.model_id.clone();
    let path = compare_path(&model);
    for (query, says) in [
        (vec![], "from is required"),
        (vec![("from", "yesterday")], "neither an RFC 3339 time"),
        (
            vec![("from", "1"), ("to", "soon")],
            "neither an RFC 3339 time",
        ),
        (vec![("from", "2999-01-01T00:00:00Z")], "in the future"),
        (vec![("from", "999999999999")], "has not been made yet"),
        (vec![("from", "1"), ("limit", "0")], "limit"),
        (vec![("from", "1"), ("limit", "10001")], "limit"),
        (vec![("from", "1"), ("limit", "many")], "limit"),
        (vec![("from", "1"), ("format", "xml")], "format"),
    ] {
        let resp = t.get_q(&path, &query).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
        let message = resp.json["error"]["message"].as_str().unwrap_or_default();
        assert!(message.contains(says), "{query:?}: {message}");
    }
    let table = t
        .entity(&format!("{}/Sales DB/sales/customer", imported.path))
        .await
        .ok()["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    for resp in [
        t.get(&versions_path(&table)).await,
        t.get_q(&compare_path(&table), &[("from", "1")]).await,
        t.get_q(&versions_path(&model), &[("limit", "0")]).await,
        t.get_q(&versions_path(&model), &[("limit", "1001")]).await,
        t.get_q(&versions_path(&model), &[("before", "soon")]).await,
    ] {
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    for resp in [
        t.get(&versions_path("-1_999999999")).await,
        t.get_q(&compare_path("-1_999999999"), &[("from", "1")])
            .await,
    ] {
        assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    }
}

/// A re-import with breaking changes says so in its answer, and the watchers of what lies
/// downstream of a changed object (by lineage, as it was before) are told what changed
/// and what they watch that it reaches; a re-import without breaking changes tells them
/// nothing.
pub async fn breaking_changes_are_announced_downstream(t: &Target) {
    let sample = Sample::load();
    let imported = t
        .import_archive(
            zip_map(&with_lineage(sample.files.clone())),
            "downstream",
            "Upstream",
        )
        .await;
    let model = imported.model_id.clone();
    let total = t
        .entity(&format!(
            "{}/Sales DB/sales/orders/total_amount",
            imported.path
        ))
        .await
        .ok()["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    let watcher = t.key_with_roles(&["Metadata Viewer"]).await;
    send_as(
        t,
        &watcher,
        reqwest::Method::POST,
        &format!("/curation/{}", encode_segment(&total)),
        &[],
        Some(json!({"kind": "watch"})),
    )
    .await
    .ok();
    let upstream = |key: String| async move {
        let resp = send_as(t, &key, reqwest::Method::GET, "/notifications", &[], None).await;
        resp.ok_array()
            .iter()
            .filter(|n| n["kind"] == json!("UPSTREAM_CHANGED"))
            .cloned()
            .collect::<Vec<Value>>()
    };

    // Only a description changed: nothing breaks.
    let described = with_lineage(sample.with_file(
        "objects.csv",
        Some(rewrite_csv(&sample.files["objects.csv"], |header, rows| {
            let (native, description) =
                (column(header, "native_id"), column(header, "description"));
            for row in rows.iter_mut() {
                if row[native] == "salesdb.hr.employee.salary" {
                    row[description] = "Pay.".into();
                }
            }
        })),
    ));
    let summary = t.import(zip_map(&described), &[("modelId", &model)]).await;
    assert_eq!(summary.ok()["breaking"], json!(0), "{}", summary.describe());
    assert!(upstream(watcher.clone()).await.is_empty(), "nothing broke");

    let summary = t
        .import(
            zip_map(&with_lineage(changed_files())),
            &[("modelId", &model)],
        )
        .await;
    let summary = summary.ok().clone();
    assert_eq!(summary["breaking"], json!(4), "{summary}");
    assert_eq!(
        summary["downstream"],
        json!(1),
        "total_amount, from salary: {summary}"
    );
    let named = summary["breakingChanges"]
        .as_array()
        .expect("breakingChanges");
    assert!(named.contains(&json!("salary (type changed)")), "{summary}");
    let told = upstream(watcher.clone()).await;
    assert_eq!(told.len(), 1, "{told:?}");
    let message = told[0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("salary (type changed)") && message.contains("'total_amount'"),
        "what changed and what they watch: {message}"
    );
    assert_eq!(told[0]["objectId"], json!(model));
    // The one who imported is not told of their own change.
    assert!(upstream(t.key().await).await.is_empty());

    // The page of what it reaches says it too, to whoever reads it.
    let path = format!("/history/objects/{}/upstream", encode_segment(&total));
    for key in [t.key().await, watcher.clone()] {
        let resp = send_as(t, &key, reqwest::Method::GET, &path, &[], None).await;
        let said = resp.ok()["upstream"].as_array().expect("upstream").clone();
        assert_eq!(said.len(), 1, "{}", resp.describe());
        assert_eq!(said[0]["modelId"], json!(model));
        assert_eq!(said[0]["breaking"], json!(4));
        assert!(
            said[0]["changes"]
                .as_array()
                .is_some_and(|c| c.contains(&json!("salary (type changed)"))),
            "{said:?}"
        );
        assert!(said[0]["version"].is_i64() && said[0]["at"].is_string());
    }
    // What is not downstream of them hears nothing.
    let salary = t
        .entity(&format!("{}/Sales DB/hr/employee/salary", imported.path))
        .await;
    if let Some(id) = salary.json["id"].as_str() {
        let resp = t
            .get(&format!("/history/objects/{}/upstream", encode_segment(id)))
            .await;
        assert_eq!(resp.ok()["upstream"], json!([]), "{}", resp.describe());
    }
}

/// A model with lineage from `salary` to `orders.total_amount`, re-imported with breaking
/// changes (`salary`'s type among them): the id of `total_amount`, which they reach.
pub(crate) async fn broken_downstream(t: &Target) -> String {
    let sample = Sample::load();
    let imported = t
        .import_archive(
            zip_map(&with_lineage(sample.files.clone())),
            "downstream",
            "Upstream",
        )
        .await;
    let total = t
        .entity(&format!(
            "{}/Sales DB/sales/orders/total_amount",
            imported.path
        ))
        .await
        .ok()["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    t.import(
        zip_map(&with_lineage(changed_files())),
        &[("modelId", &imported.model_id)],
    )
    .await
    .ok();
    total
}

/// The breaking changes upstream of an object: a missing or malformed object is refused
/// as any object read refuses it; one the caller cannot see is missing to them.
pub async fn upstream_changes_bad_input_is_refused(t: &Target) {
    let missing = t.get("/history/objects/999999_1/upstream").await;
    assert_error(&missing, 404, "OBJECT_NOT_FOUND");
    let resp = t.get("/history/objects/not%20an%20id/upstream").await;
    assert!(matches!(resp.status, 400 | 404), "{}", resp.describe());
    let hidden = t.import_sample().await;
    let key = t.key_with_roles(&[]).await;
    let resp = send_as(
        t,
        &key,
        reqwest::Method::GET,
        &format!(
            "/history/objects/{}/upstream",
            encode_segment(&hidden.model_id)
        ),
        &[],
        None,
    )
    .await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
}

pub(crate) const EXECUTE: &str = "/entities/executeMQLQuery";

/// MQL as of a model's first version: executeMQLQuery, countMQLQuery,
/// getAttributeValueCounts and validateMQLQuery's explain read the model as it was (a
/// removed column found with its parent, a renamed one by its old name, an added one
/// absent, a type as it was), with a text search among them; without `asOf`, today's.
pub async fn mql_queries_are_read_as_of(t: &Target) {
    let imported = t.import_sample().await;
    let model = imported.model_id.clone();
    t.import(changed_sample(), &[("modelId", &model)])
        .await
        .ok();
    let listed = t.get(&versions_path(&model)).await.ok().clone();
    let v1 = listed["versions"][1]["id"]
        .as_str()
        .unwrap_or_else(|| panic!("two versions: {listed}"))
        .to_owned();
    let from = imported.path.as_str();
    let columns = "Name = ANY ('hire_date', 'first_name', 'given_name', 'phone', 'city')";
    let query = |filter: &str, as_of: Option<&str>| {
        let mut body = json!({
            "select": "Name, \"Data Type\", Parent.Name",
            "from": from,
            "where": filter,
            "orderby": "Name asc",
        });
        if let Some(as_of) = as_of {
            body["asOf"] = json!(as_of);
        }
        body
    };
    let names = |resp: &crate::harness::Resp| super::execute::names(resp);
    let now = t.post(EXECUTE, &[], &query(columns, None)).await;
    assert_eq!(
        names(&now),
        ["city", "given_name", "phone"],
        "{}",
        now.describe()
    );
    let then = t.post(EXECUTE, &[], &query(columns, Some(&v1))).await;
    assert_eq!(
        names(&then),
        ["city", "first_name", "hire_date"],
        "{}",
        then.describe()
    );
    let rows = then.ok_array();
    assert_eq!(rows[0]["attributes"][1]["value"], json!("VARCHAR(80)"));
    assert_eq!(
        rows[2]["attributes"][2]["value"],
        json!("employee"),
        "a removed column's parent as it was: {}",
        then.describe()
    );
    // A version id as a JSON number, and a time, name the same moment.
    let v1_number: i64 = v1.parse().expect("a version id");
    let by_number = t
        .post(EXECUTE, &[], &{
            let mut body = query(columns, None);
            body["asOf"] = json!(v1_number);
            body
        })
        .await;
    assert_eq!(names(&by_number), names(&then));
    let at = listed["versions"][1]["at"]
        .as_str()
        .expect("a time")
        .to_owned();
    let by_time = t.post(EXECUTE, &[], &query(columns, Some(&at))).await;
    assert_eq!(names(&by_time), names(&then), "{}", by_time.describe());
    // FROM the model's first version, by path and by id, reads the same.
    for versioned in [format!("{from}@1"), format!("{model}@1")] {
        let mut body = query(columns, None);
        body["from"] = json!(versioned);
        let resp = t.post(EXECUTE, &[], &body).await;
        assert_eq!(
            names(&resp),
            names(&then),
            "FROM {versioned}: {}",
            resp.describe()
        );
    }
    let mut latest = query(columns, None);
    latest["from"] = json!(format!("{from}@2"));
    let resp = t.post(EXECUTE, &[], &latest).await;
    assert_eq!(
        names(&resp),
        names(&now),
        "the newest version is today's model"
    );
    // A text search as of then finds the removed column.
    let hire = t
        .post(EXECUTE, &[], &query("text = 'hire'", Some(&v1)))
        .await;
    assert_eq!(names(&hire), ["hire_date"], "{}", hire.describe());
    let hire_now = t.post(EXECUTE, &[], &query("text = 'hire'", None)).await;
    assert!(names(&hire_now).is_empty(), "{}", hire_now.describe());

    let count = |as_of: Option<&str>| {
        let mut params = vec![
            ("select", "Name".to_owned()),
            ("from", from.to_owned()),
            ("where", "\"Object Type\" = 'Column'".to_owned()),
        ];
        if let Some(as_of) = as_of {
            params.push(("asOf", as_of.to_owned()));
        }
        async move {
            let params: Vec<(&str, &str)> = params.iter().map(|(k, v)| (*k, v.as_str())).collect();
            let resp = t.get_q("/entities/countMQLQuery", &params).await;
            resp.ok().as_u64().expect("a count")
        }
    };
    let columns_then = count(Some(&v1)).await;
    assert_eq!(
        count(None).await,
        columns_then,
        "one column gone, one added"
    );
    let dated = t
        .get_q(
            "/entities/countMQLQuery",
            &[
                ("select", "Name"),
                ("from", from),
                ("where", "Name = 'phone'"),
                ("asOf", &v1),
            ],
        )
        .await;
    assert_eq!(dated.ok(), &json!(0), "phone was added later");

    let counted = t
        .post(
            "/entities/getAttributeValueCounts",
            &[],
            &json!({"select": "\"Data Type\"", "from": from, "where": "Name = ANY ('city', 'salary')", "asOf": v1}),
        )
        .await;
    let values = counted.ok_array()[0]["values"].clone();
    assert!(
        values.as_array().is_some_and(|v| v
            .iter()
            .all(|c| c["value"] != json!("INTEGER") && c["value"] != json!("VARCHAR(120)"))),
        "the types as they were: {values}"
    );
    assert!(
        values
            .as_array()
            .is_some_and(|v| v.iter().any(|c| c["value"] == json!("VARCHAR(80)"))),
        "{values}"
    );

    let explained = t
        .get_q(
            "/entities/validateMQLQuery",
            &[
                ("select", "Name"),
                ("from", from),
                ("where", "Name = 'hire_date'"),
                ("explain", "true"),
                ("asOf", &v1),
            ],
        )
        .await;
    let explained = explained.ok();
    assert_eq!(
        explained["explain"]["plan"]["as_of"].to_string(),
        v1,
        "{explained}"
    );
}

/// An `asOf` of a query that is not a time or a version, in the future, not made yet or
/// of the wrong type is refused with INVALID_PARAMETER, never answered with today's.
pub async fn mql_as_of_bad_input_is_refused(t: &Target) {
    let imported = t.import_sample().await;
    let from = imported.path.as_str();
    for bad in [
        json!("yesterday"),
        json!("2999-01-01T00:00:00Z"),
        json!("999999999999"),
        json!(true),
        json!("-1"),
    ] {
        let resp = t
            .post(
                EXECUTE,
                &[],
                &json!({"select": "Name", "from": from, "asOf": bad}),
            )
            .await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
        let resp = t
            .post(
                "/entities/getAttributeValueCounts",
                &[],
                &json!({"select": "Name", "from": from, "asOf": bad}),
            )
            .await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    let resp = t
        .get_q(
            "/entities/countMQLQuery",
            &[
                ("select", "Name"),
                ("from", from),
                ("asOf", "1999-01-01T00:00:00Z"),
            ],
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");

    // validateMQLQuery checks asOf as the query would run it; upgradeMQLQuery runs
    // nothing and refuses it.
    let resp = t
        .get_q(
            "/entities/validateMQLQuery",
            &[("select", "Name"), ("from", from), ("asOf", "yesterday")],
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .post(
            "/entities/upgradeMQLQuery",
            &[],
            &json!({"select": "Name", "from": from, "asOf": "1"}),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");

    // FROM a model's version: one it never had, a folder's, and with asOf too.
    let folder = format!("/{}", from.split('/').nth(1).expect("a folder"));
    for (from, as_of) in [
        (format!("{from}@7"), None),
        (format!("{folder}@1"), None),
        (format!("{from}@1"), Some("1")),
    ] {
        let mut body = json!({"select": "Name", "from": from});
        if let Some(as_of) = as_of {
            body["asOf"] = json!(as_of);
        }
        let resp = t.post(EXECUTE, &[], &body).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    // A model the caller cannot name is not found, versioned or not.
    let resp = t
        .post(
            EXECUTE,
            &[],
            &json!({"select": "Name", "from": "/nofolder/nomodel@1"}),
        )
        .await;
    assert_eq!(resp.status, 404, "{}", resp.describe());
}

/// As of a time, a user reads with today's sight: a query without FROM finds only the
/// model they see, FROM a model they cannot see (or its version) answers as a path that
/// names nothing, and the browse calls leave it out.
pub async fn as_of_reads_keep_todays_sight(t: &Target) {
    use super::groups::{key_of, new_user};
    use crate::harness::assert_same_as_missing;
    const MISSING_NAME: &str = "NoSuchModel-9a2e";
    let hidden = t.import_sample().await;
    let seen = t.import_sample().await;
    let before = lore_core::model::format_micros(&lore_core::model::now());
    let (user, name) = new_user(t, "asof").await;
    t.put(
        &format!("/admin/grants/grantObjectRole/{}", seen.model_id),
        &[],
        &json!({"grantee": user, "role": "Data Viewer"}),
    )
    .await
    .ok();
    let key = key_of(t, &name).await;
    let post = |path: &'static str, body: Value| {
        let key = key.clone();
        async move { send_as(t, &key, reqwest::Method::POST, path, &[], Some(body)).await }
    };
    let models_of = |resp: &crate::harness::Resp| {
        resp.ok_array()
            .iter()
            .map(|e| e["attributes"][0]["value"].to_string())
            .collect::<std::collections::BTreeSet<_>>()
    };
    let all = json!({"select": "\"Model Id\"", "pageSize": 1000, "asOf": before});
    let resp = post(EXECUTE, all).await;
    let models = models_of(&resp);
    assert_eq!(
        models,
        std::collections::BTreeSet::from([seen
            .model_id
            .rsplit('_')
            .next()
            .unwrap_or_default()
            .to_owned()]),
        "only the model they see: {}",
        resp.describe()
    );
    let missing_path = hidden.path.replace(&hidden.model_name, MISSING_NAME);
    for (from, missing) in [
        (hidden.path.clone(), missing_path.clone()),
        (format!("{}@1", hidden.path), format!("{missing_path}@1")),
    ] {
        let hidden_resp = post(
            EXECUTE,
            json!({"select": "Name", "from": from, "asOf": before}),
        )
        .await;
        let missing_resp = post(
            EXECUTE,
            json!({"select": "Name", "from": missing, "asOf": before}),
        )
        .await;
        assert_same_as_missing(
            &hidden_resp,
            &hidden.model_name,
            &missing_resp,
            MISSING_NAME,
        );
    }
    let listed = send_as(
        t,
        &key,
        reqwest::Method::GET,
        "/configuration/listModels",
        &[("asOf", &before)],
        None,
    )
    .await;
    let ids: Vec<&str> = listed
        .ok_array()
        .iter()
        .filter_map(|m| m["id"].as_str())
        .collect();
    assert_eq!(ids, [seen.model_id.as_str()], "{}", listed.describe());
    let browsed = send_as(
        t,
        &key,
        reqwest::Method::GET,
        "/operations/repositoryBrowse",
        &[("repositoryPath", "/"), ("asOf", &before)],
        None,
    )
    .await;
    let mut ids = Vec::new();
    tree_ids(&browsed.ok()["links"], &mut ids);
    assert!(
        !ids.contains(&hidden.model_id) && !ids.contains(&hidden.folder_id),
        "{ids:?}"
    );
    let context = |id: String| {
        let key = key.clone();
        let before = before.clone();
        async move {
            send_as(
                t,
                &key,
                reqwest::Method::GET,
                "/repository/getContext",
                &[("objectId", &id), ("asOf", &before)],
                None,
            )
            .await
        }
    };
    let hidden_resp = context(hidden.model_id.clone()).await;
    let missing_resp = context("-1_987654321".to_owned()).await;
    assert_same_as_missing(
        &hidden_resp,
        &hidden.model_id,
        &missing_resp,
        "-1_987654321",
    );
    // A path through a folder they cannot see answers as one that names nothing, the
    // model at its end included (the seen model sits in a folder they do not see).
    let folder = |path: &str| path.split('/').nth(1).expect("a folder").to_owned();
    for path in [
        format!("/{}", folder(&hidden.path)),
        seen.path.clone(),
        format!("/{}", folder(&seen.path)),
    ] {
        let resp = send_as(
            t,
            &key,
            reqwest::Method::GET,
            "/operations/repositoryBrowse",
            &[("repositoryPath", &path), ("asOf", &before)],
            None,
        )
        .await;
        assert_error(&resp, 404, "INVALID_REPOSITORY_PATH");
        assert!(
            !resp.text().contains(&hidden.model_name),
            "{}",
            resp.describe()
        );
    }

    // The folder above their model, which they cannot see, is not named as its parent,
    // now or then.
    let hidden_folder = seen.path.split('/').nth(1).expect("a folder").to_owned();
    for as_of in [None, Some(before.clone())] {
        let mut body = json!({"select": "Name, Parent", "where": "\"Object Type\" = 'Model'"});
        if let Some(as_of) = as_of {
            body["asOf"] = json!(as_of);
        }
        let resp = post(EXECUTE, body).await;
        assert_eq!(resp.ok_array().len(), 1, "{}", resp.describe());
        assert!(!resp.text().contains(&hidden_folder), "{}", resp.describe());
    }

    // Profiling is not kept: as of a version, a caller whose data is hidden somewhere
    // may not filter or count by it (whether data was hidden is judged then).
    let profiled = "\"Data Profiling\".Distinct = 7";
    let resp = send_as(
        t,
        &key,
        reqwest::Method::GET,
        "/entities/countMQLQuery",
        &[("select", "Name"), ("where", profiled), ("asOf", &before)],
        None,
    )
    .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = post(
        "/entities/getAttributeValueCounts",
        json!({"select": "\"Data Profiling\".Distinct", "asOf": before}),
    )
    .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    // Without asOf, and for the administrator as of then, it runs.
    send_as(
        t,
        &key,
        reqwest::Method::GET,
        "/entities/countMQLQuery",
        &[("select", "Name"), ("where", profiled)],
        None,
    )
    .await
    .ok();
    t.get_q(
        "/entities/countMQLQuery",
        &[("select", "Name"), ("where", profiled), ("asOf", &before)],
    )
    .await
    .ok();
}
