//! Worksheets: saving, listing, reading and deleting queries (`/worksheets`), and running
//! them with POST /entities/executeWorksheet and GET /entities/countWorksheet over the
//! sample model. A worksheet belongs to the user who saved it; others do not see it.

use reqwest::Method;
use serde_json::{Value, json};

use super::denied::{Call, send_as};
use super::execute::names;
use crate::harness::{Resp, Target, assert_error, unique};

const WORKSHEETS: &str = "/worksheets";
const EXECUTE: &str = "/entities/executeWorksheet";
const COUNT: &str = "/entities/countWorksheet";
/// The sample's PII columns: 5 objects.
const PII: &str = "\"Object Type\" = 'Column' AND Labels = 'PII'";
/// Their names in `Name desc` order.
const PII_DESC: [&str; 5] = ["last_name", "full_name", "first_name", "email", "email"];

/// Query parameters of a call.
type Query<'a> = Vec<(&'a str, &'a str)>;
/// A refused executeWorksheet: query parameters, JSON body, status, errorCode and a word
/// the message holds.
type Refusal<'a> = (Query<'a>, Option<Value>, u16, &'a str, &'a str);

/// `/worksheets/{id}`.
fn by_id(id: &str) -> String {
    format!("{WORKSHEETS}/{id}")
}

/// The `id` of a worksheet answer.
#[track_caller]
fn id_of(resp: &Resp) -> String {
    resp.ok()["id"]
        .as_str()
        .unwrap_or_else(|| panic!("a worksheet id: {}", resp.describe()))
        .to_owned()
}

/// The ids of a list of worksheets.
#[track_caller]
fn ids_of(resp: &Resp) -> Vec<String> {
    resp.ok_array()
        .iter()
        .map(|w| w["id"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// POST /entities/executeWorksheet with query parameters only, no body.
async fn execute_q(t: &Target, query: &[(&str, &str)]) -> Resp {
    let request = t.call(Method::POST, EXECUTE).await.query(query);
    t.send(request).await
}

/// A worksheet is saved with its clauses, listed among the caller's, read back by id
/// and deleted; afterwards it is gone.
pub async fn worksheets_save_list_get_and_delete(t: &Target) {
    let name = unique("PII columns");
    let from = format!("/{}", unique("no-such-folder"));
    let resp = t
        .post(
            WORKSHEETS,
            &[],
            &json!({"name": name, "description": "Columns labelled PII", "select": "Name, \"Object Type\"",
                "from": from, "where": PII, "orderby": "Name desc", "mqlVersion": "3"}),
        )
        .await;
    let saved = resp.ok().clone();
    let id = id_of(&resp);
    assert!(id.starts_with("-1_"), "a worksheet id is -1_<n>: {id}");
    for (field, value) in [
        ("name", json!(name)),
        ("description", json!("Columns labelled PII")),
        ("select", json!("Name, \"Object Type\"")),
        ("from", json!(from)),
        ("scope", Value::Null),
        ("where", json!(PII)),
        ("orderby", json!("Name desc")),
        ("context", Value::Null),
        ("mqlVersion", json!(3)),
    ] {
        assert_eq!(saved[field], value, "field {field} of {saved}");
    }
    assert!(
        saved["ownerId"]
            .as_str()
            .is_some_and(|o| o.starts_with("-1_"))
    );
    assert!(saved["createdAt"].is_string() && saved["updatedAt"].is_string());

    let list = t.get(WORKSHEETS).await;
    let listed: Vec<&Value> = list
        .ok_array()
        .iter()
        .filter(|w| w["id"] == json!(id))
        .collect();
    assert_eq!(listed, [&saved], "the list holds the worksheet as saved");

    let resp = t.get(&by_id(&id)).await;
    assert_eq!(resp.ok(), &saved, "a worksheet reads back as saved");

    let resp = t.delete(&by_id(&id), &[]).await;
    assert_eq!(resp.ok(), &json!(""), "{}", resp.describe());
    let resp = t.get(&by_id(&id)).await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let list = t.get(WORKSHEETS).await;
    assert!(
        !ids_of(&list).contains(&id),
        "a deleted worksheet is not listed"
    );
    let resp = t.delete(&by_id(&id), &[]).await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    // Its name is free again.
    let resp = t
        .post(WORKSHEETS, &[], &json!({"name": name, "select": "Name"}))
        .await;
    resp.ok();
    t.delete(&by_id(&id_of(&resp)), &[]).await.ok();
}

/// Running a worksheet answers what executeMQLQuery answers for its clauses: by id or
/// by name (any case), with pages and the legacy format from query parameters or a
/// JSON body; countWorksheet counts the same objects.
pub async fn execute_worksheet_runs_the_saved_query(t: &Target) {
    let imported = t.import_sample().await;
    let from = imported.path.as_str();
    let name = unique("Sample PII");
    let clauses = json!({"select": "Name, \"Object Type\"", "from": from, "where": PII, "orderby": "Name desc"});
    let mut body = clauses.clone();
    body["name"] = json!(name);
    let id = id_of(&t.post(WORKSHEETS, &[], &body).await);
    let (id, name) = (id.as_str(), name.as_str());

    let resp = execute_q(t, &[("worksheetId", id)]).await;
    assert_eq!(names(&resp), PII_DESC, "{}", resp.describe());
    let direct = t.post("/entities/executeMQLQuery", &[], &clauses).await;
    assert_eq!(
        resp.ok(),
        direct.ok(),
        "a worksheet answers what executeMQLQuery answers for its clauses"
    );
    assert_eq!(
        resp.ok_array()[0]["attributes"][1]["value"],
        json!("Column")
    );

    // By name, in another case, with the page in the body (1-based).
    let resp = t
        .post(
            EXECUTE,
            &[],
            &json!({"name": name.to_uppercase(), "pageSize": 2, "pageNumber": 2}),
        )
        .await;
    assert_eq!(names(&resp), ["first_name", "email"], "{}", resp.describe());
    // The page as query parameters.
    let resp = execute_q(
        t,
        &[("worksheetId", id), ("pageSize", "3"), ("pageNumber", "2")],
    )
    .await;
    assert_eq!(names(&resp), ["email", "email"], "{}", resp.describe());
    // The body's fields come before the query parameters'.
    let resp = t
        .post(
            EXECUTE,
            &[("pageSize", "1")],
            &json!({"worksheetId": id, "pageSize": "4"}),
        )
        .await;
    assert_eq!(names(&resp), PII_DESC[..4], "{}", resp.describe());

    let resp = t
        .post(
            EXECUTE,
            &[],
            &json!({"worksheetId": id, "legacyEntityFormat": true, "pageSize": 1}),
        )
        .await;
    let entities = resp.ok_array();
    assert_eq!(entities.len(), 1, "{}", resp.describe());
    assert_eq!(entities[0]["name"], json!("last_name"));
    assert!(entities[0]["id"].as_str().is_some_and(|i| i.contains('_')));
    let resp = execute_q(t, &[("name", name), ("legacyEntityFormat", "TRUE")]).await;
    assert_eq!(resp.ok_array().len(), 5, "{}", resp.describe());
    assert_eq!(resp.ok_array()[4]["name"], json!("email"));

    for query in [[("worksheetId", id)], [("name", name)]] {
        let resp = t.get_q(COUNT, &query).await;
        assert_eq!(resp.ok(), &json!(5), "{}", resp.describe());
    }
    let resp = t
        .get_q(
            "/entities/countMQLQuery",
            &[("select", "Name"), ("from", from), ("where", PII)],
        )
        .await;
    assert_eq!(resp.ok(), &json!(5), "{}", resp.describe());
    t.delete(&by_id(id), &[]).await.ok();
}

/// Saving refuses what makes no worksheet: no name, a name too long or taken (in any
/// case), a query that is not valid MQL (with the validator's message), a bad
/// mqlVersion or body. Nothing is saved.
pub async fn create_worksheet_refuses_bad_input(t: &Target) {
    let name = unique("Refusals");
    let refused = [
        (
            json!({"select": "Name"}),
            400,
            "REQUIRED_PARAMETER_NOT_SPECIFIED",
            "name",
        ),
        (
            json!({"name": "   ", "select": "Name"}),
            400,
            "REQUIRED_PARAMETER_NOT_SPECIFIED",
            "name",
        ),
        (
            json!({"name": "x".repeat(257), "select": "Name"}),
            400,
            "INVALID_PARAMETER",
            "256",
        ),
        (
            json!({"name": name}),
            400,
            "REQUIRED_PARAMETER_NOT_SPECIFIED",
            "select",
        ),
        (
            json!({"name": name, "select": "Name", "where": "Name = "}),
            400,
            "INVALID_PARAMETER",
            "line 1",
        ),
        (
            json!({"name": name, "select": "Name", "where": "Labels > 3"}),
            400,
            "INVALID_PARAMETER",
            "Labels",
        ),
        (
            json!({"name": name, "select": "Name", "scope": "Name = 'x'"}),
            400,
            "INVALID_PARAMETER",
            "from",
        ),
        (
            json!({"name": name, "select": "Name", "mqlVersion": 9}),
            400,
            "INVALID_PARAMETER",
            "mqlVersion",
        ),
        (
            json!({"name": name, "select": "Name", "description": "a\u{0}b"}),
            400,
            "INVALID_PARAMETER",
            "NUL",
        ),
        (
            json!({"name": [name], "select": "Name"}),
            400,
            "INVALID_PARAMETER",
            "body",
        ),
        (json!("not an object"), 400, "INVALID_PARAMETER", "body"),
    ];
    for (body, status, code, says) in refused {
        let resp = t.post(WORKSHEETS, &[], &body).await;
        assert_error(&resp, status, code);
        assert!(
            resp.message().contains(says),
            "the message of {body} names {says}: {}",
            resp.describe()
        );
    }
    let list = t.get(WORKSHEETS).await;
    assert!(
        !list.ok_array().iter().any(|w| w["name"] == json!(name)),
        "a refused worksheet is not saved"
    );

    let saved = t
        .post(WORKSHEETS, &[], &json!({"name": name, "select": "Name"}))
        .await;
    let id = id_of(&saved);
    let resp = t
        .post(
            WORKSHEETS,
            &[],
            &json!({"name": format!(" {} ", name.to_lowercase()), "select": "Name, Description"}),
        )
        .await;
    assert_error(&resp, 409, "CONFLICT");
    assert!(
        resp.message().contains("already exists"),
        "{}",
        resp.describe()
    );
    let list = t.get(WORKSHEETS).await;
    assert_eq!(
        list.ok_array()
            .iter()
            .filter(|w| w["name"].as_str().map(str::to_lowercase) == Some(name.to_lowercase()))
            .count(),
        1,
        "a clashing name saves nothing"
    );
    assert_eq!(t.get(&by_id(&id)).await.ok()["select"], json!("Name"));
    t.delete(&by_id(&id), &[]).await.ok();
}

/// Listing, reading and deleting refuse a bad flag or id (400) and an unknown
/// worksheet (404).
pub async fn worksheet_routes_refuse_bad_ids(t: &Target) {
    let resp = t.get_q(WORKSHEETS, &[("all", "maybe")]).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    assert!(resp.message().contains("all"), "{}", resp.describe());
    for bad in ["not-an-id", "1_-2", "-1_x"] {
        let resp = t.get(&by_id(bad)).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
        assert!(
            resp.message().contains("worksheetId"),
            "{}",
            resp.describe()
        );
        let resp = t.delete(&by_id(bad), &[]).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    // An id that is no worksheet: an unused number, and a folder's id.
    let (folder, _) = t.unique_folder("not-a-worksheet").await;
    for unknown in ["-1_999999999999", folder.as_str()] {
        let resp = t.get(&by_id(unknown)).await;
        assert_error(&resp, 404, "OBJECT_NOT_FOUND");
        let resp = t.delete(&by_id(unknown), &[]).await;
        assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    }
    let resp = t.entity(&folder).await;
    resp.ok();
}

/// executeWorksheet and countWorksheet need one worksheet, named once and known, and a
/// page in range.
pub async fn execute_worksheet_refuses_bad_input(t: &Target) {
    let name = unique("Bad runs");
    let id = id_of(
        &t.post(WORKSHEETS, &[], &json!({"name": name, "select": "Name"}))
            .await,
    );
    let (id, name) = (id.as_str(), name.as_str());
    let refused: [Refusal<'_>; 12] = [
        (
            vec![],
            None,
            400,
            "REQUIRED_PARAMETER_NOT_SPECIFIED",
            "worksheetId",
        ),
        (
            vec![],
            Some(json!({})),
            400,
            "REQUIRED_PARAMETER_NOT_SPECIFIED",
            "worksheetId",
        ),
        (
            vec![("worksheetId", id), ("name", name)],
            None,
            400,
            "INVALID_PARAMETER",
            "not both",
        ),
        (
            vec![("name", name)],
            Some(json!({"worksheetId": id})),
            400,
            "INVALID_PARAMETER",
            "not both",
        ),
        (
            vec![("worksheetId", "twelve")],
            None,
            400,
            "INVALID_PARAMETER",
            "worksheetId",
        ),
        (
            vec![("worksheetId", "-1_999999999999")],
            None,
            404,
            "OBJECT_NOT_FOUND",
            "-1_999999999999",
        ),
        (
            vec![("name", "no such worksheet")],
            None,
            404,
            "OBJECT_NOT_FOUND",
            "no such worksheet",
        ),
        (
            vec![("worksheetId", id), ("pageSize", "0")],
            None,
            400,
            "INVALID_PARAMETER",
            "pageSize",
        ),
        (
            vec![],
            Some(json!({"worksheetId": id, "pageSize": 100_000})),
            400,
            "INVALID_PARAMETER",
            "pageSize",
        ),
        (
            vec![],
            Some(json!({"worksheetId": id, "pageNumber": "two"})),
            400,
            "INVALID_PARAMETER",
            "pageNumber",
        ),
        (
            vec![("worksheetId", id), ("legacyEntityFormat", "maybe")],
            None,
            400,
            "INVALID_PARAMETER",
            "legacyEntityFormat",
        ),
        (
            vec![("worksheetId", id)],
            Some(json!("not an object")),
            400,
            "INVALID_PARAMETER",
            "JSON",
        ),
    ];
    for (query, body, status, code, says) in refused {
        let mut request = t.call(Method::POST, EXECUTE).await.query(&query);
        if let Some(body) = &body {
            request = request.json(body);
        }
        let resp = t.send(request).await;
        assert_error(&resp, status, code);
        assert!(
            resp.message().contains(says),
            "executeWorksheet with {query:?} and {body:?} names {says}: {}",
            resp.describe()
        );
    }
    let refused: [(Query<'_>, u16, &str); 5] = [
        (vec![], 400, "REQUIRED_PARAMETER_NOT_SPECIFIED"),
        (
            vec![("worksheetId", id), ("name", name)],
            400,
            "INVALID_PARAMETER",
        ),
        (vec![("worksheetId", "-1")], 400, "INVALID_PARAMETER"),
        (
            vec![("worksheetId", "-1_999999999999")],
            404,
            "OBJECT_NOT_FOUND",
        ),
        (vec![("name", "no such worksheet")], 404, "OBJECT_NOT_FOUND"),
    ];
    for (query, status, code) in refused {
        let resp = t.get_q(COUNT, &query).await;
        assert_error(&resp, status, code);
    }
    t.delete(&by_id(id), &[]).await.ok();
}

/// Two users keep their worksheets apart: each lists only their own, the same name in
/// both is no clash, and one user's worksheet is absent (404) to the other for every
/// route, by id and by name. An administrator reads, lists (`all=true`) and deletes
/// anyone's; `all=true` is refused to anyone else.
pub async fn worksheets_of_other_users_are_not_visible(t: &Target) {
    let ann = t.key_with_roles(&["Metadata Viewer"]).await;
    let bob = t.key_with_roles(&["Metadata Viewer"]).await;
    let imported = t.import_sample().await;
    let from = imported.path.as_str();
    let name = unique("Mine");
    let save = |key: &str, name: String, filter: &str| {
        let body = json!({"name": name, "select": "Name", "from": from, "where": filter, "orderby": "Name desc"});
        let key = key.to_owned();
        async move { send_as(t, &key, Method::POST, WORKSHEETS, &[], Some(body)).await }
    };
    let anns = id_of(&save(&ann, name.clone(), PII).await);
    let bobs = id_of(&save(&bob, name.to_uppercase(), "Name = 'orders'").await);

    for (key, own, other) in [(&ann, &anns, bobs.as_str()), (&bob, &bobs, anns.as_str())] {
        let resp = send_as(t, key, Method::GET, WORKSHEETS, &[], None).await;
        assert_eq!(
            ids_of(&resp),
            std::slice::from_ref(own),
            "each user lists only their own"
        );
        let resp = send_as(t, key, Method::GET, &by_id(own), &[], None).await;
        resp.ok();
        let resp = send_as(t, key, Method::GET, &by_id(other), &[], None).await;
        assert_error(&resp, 404, "OBJECT_NOT_FOUND");
        let resp = send_as(
            t,
            key,
            Method::POST,
            EXECUTE,
            &[("worksheetId", other)],
            None,
        )
        .await;
        assert_error(&resp, 404, "OBJECT_NOT_FOUND");
        let resp = send_as(t, key, Method::GET, COUNT, &[("worksheetId", other)], None).await;
        assert_error(&resp, 404, "OBJECT_NOT_FOUND");
        let resp = send_as(t, key, Method::DELETE, &by_id(other), &[], None).await;
        assert_error(&resp, 404, "OBJECT_NOT_FOUND");
        let resp = send_as(t, key, Method::GET, WORKSHEETS, &[("all", "true")], None).await;
        assert_error(&resp, 403, "PERMISSION_DENIED");
    }
    // The same name finds each user's own.
    let resp = send_as(t, &ann, Method::POST, EXECUTE, &[("name", &name)], None).await;
    assert_eq!(names(&resp), PII_DESC, "{}", resp.describe());
    let resp = send_as(t, &bob, Method::POST, EXECUTE, &[("name", &name)], None).await;
    assert_eq!(names(&resp), ["orders"], "{}", resp.describe());
    let resp = send_as(t, &bob, Method::GET, COUNT, &[("name", &name)], None).await;
    assert_eq!(resp.ok(), &json!(1), "{}", resp.describe());
    // The administrator does not find them by name (names are per user) ...
    let resp = t.get_q(COUNT, &[("name", &name)]).await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    // ... but reads, runs, lists and deletes anyone's.
    assert_eq!(t.get(&by_id(&anns)).await.ok()["where"], json!(PII));
    let resp = t.get_q(COUNT, &[("worksheetId", anns.as_str())]).await;
    assert_eq!(resp.ok(), &json!(5), "{}", resp.describe());
    let all = t.get_q(WORKSHEETS, &[("all", "true")]).await;
    let all = ids_of(&all);
    assert!(all.contains(&anns) && all.contains(&bobs), "{all:?}");
    assert!(!ids_of(&t.get(WORKSHEETS).await).contains(&anns));
    t.delete(&by_id(&bobs), &[]).await.ok();
    let resp = send_as(t, &bob, Method::GET, WORKSHEETS, &[], None).await;
    assert!(resp.ok_array().is_empty(), "{}", resp.describe());
    // Ann's own delete.
    let resp = send_as(t, &ann, Method::DELETE, &by_id(&anns), &[], None).await;
    assert_eq!(resp.ok(), &json!(""), "{}", resp.describe());
    assert_error(&t.get(&by_id(&anns)).await, 404, "OBJECT_NOT_FOUND");
}

/// A user with no roles is logged in but may not save, list, read, delete or run
/// worksheets: 403 on every route, with input that works for the administrator, and
/// nothing changes.
pub async fn worksheets_without_view_metadata_are_denied(t: &Target) {
    let key = t.key_with_roles(&[]).await;
    let name = unique("Denied");
    let id = id_of(
        &t.post(WORKSHEETS, &[], &json!({"name": name, "select": "Name"}))
            .await,
    );
    let id = id.as_str();
    let item = by_id(id);
    let denied_name = unique("Denied");
    let calls: [Call<'_>; 7] = [
        (
            Method::POST,
            WORKSHEETS,
            vec![],
            Some(json!({"name": denied_name, "select": "Name"})),
        ),
        (Method::GET, WORKSHEETS, vec![], None),
        (Method::GET, item.as_str(), vec![], None),
        (Method::DELETE, item.as_str(), vec![], None),
        (Method::POST, EXECUTE, vec![("worksheetId", id)], None),
        (
            Method::POST,
            EXECUTE,
            vec![],
            Some(json!({"name": "anything"})),
        ),
        (Method::GET, COUNT, vec![("worksheetId", id)], None),
    ];
    for (method, path, query, body) in calls {
        let resp = send_as(t, &key, method.clone(), path, &query, body).await;
        assert_error(&resp, 403, "PERMISSION_DENIED");
        assert!(
            resp.message().contains("ViewMetadata"),
            "{method} {path}: {}",
            resp.describe()
        );
    }
    assert_eq!(
        t.get(&item).await.ok()["name"],
        json!(name),
        "a denied delete deletes nothing"
    );
    let resp = t.get_q(COUNT, &[("worksheetId", id)]).await;
    resp.ok();
    let all = t.get_q(WORKSHEETS, &[("all", "true")]).await;
    assert!(
        !all.ok_array()
            .iter()
            .any(|w| w["name"] == json!(denied_name)),
        "a denied save saves nothing"
    );
    t.delete(&item, &[]).await.ok();
}
