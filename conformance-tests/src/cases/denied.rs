//! Calls a logged-in user may not make: a caller without the global capability a route
//! needs (the `api_key` scope the OpenAPI document names for the route) gets 403
//! PERMISSION_DENIED, and nothing is written.
//!
//! The users with fewer rights are made through the API (`Target::key_with_roles`), so
//! these cases run against a remote server too.

use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use serde_json::json;

use crate::harness::{Resp, Target, assert_error, encode_segment, sample_archive, unique};

/// Sends `method path` with `key`, query parameters and, for a POST, a JSON body.
pub(crate) async fn send_as(
    t: &Target,
    key: &str,
    method: Method,
    path: &str,
    query: &[(&str, &str)],
    body: Option<serde_json::Value>,
) -> Resp {
    let mut request = t.anon(method, path).header("api-key", key).query(query);
    if let Some(body) = body {
        request = request.json(&body);
    }
    t.send(request).await
}

/// `(method, path, query, JSON body)` of one call.
pub(crate) type Call<'a> = (
    Method,
    &'a str,
    Vec<(&'a str, &'a str)>,
    Option<serde_json::Value>,
);

#[track_caller]
fn assert_denied(resp: &Resp, what: &str) {
    assert_eq!(
        resp.status,
        403,
        "{what} without the capability: {}",
        resp.describe()
    );
    assert_error(resp, 403, "PERMISSION_DENIED");
}

/// A user with no roles at all is logged in, but reads nothing: every route that needs
/// ViewMetadata answers 403, with input that works for the administrator.
pub async fn reads_without_view_metadata_are_denied(t: &Target) {
    let key = t.key_with_roles(&[]).await;
    let imported = t.import_sample().await;
    let model = imported.model_id.as_str();
    let entity = format!("/entities/{}", encode_segment(model));
    let relationships = format!("/relationships/{}", encode_segment(model));
    let relationship_count = format!("/relationships/count/{}", encode_segment(model));
    let calls: [Call<'_>; 14] = [
        (Method::GET, entity.as_str(), vec![], None),
        (
            Method::GET,
            "/entities/validateMQLQuery",
            vec![("select", "Name"), ("from", model)],
            None,
        ),
        (
            Method::POST,
            "/entities/upgradeMQLQuery",
            vec![],
            Some(json!({"select": "#Name#", "mqlVersion": 1})),
        ),
        (
            Method::GET,
            "/entities/countMQLQuery",
            vec![("select", "Name"), ("from", model)],
            None,
        ),
        (
            Method::POST,
            "/entities/executeMQLQuery",
            vec![],
            Some(json!({"select": "Name", "from": model})),
        ),
        (
            Method::POST,
            "/entities/getAttributeValueCounts",
            vec![],
            Some(json!({"select": "Name", "from": model})),
        ),
        (Method::GET, relationships.as_str(), vec![], None),
        (Method::GET, relationship_count.as_str(), vec![], None),
        (
            Method::GET,
            "/repository/getContext",
            vec![("objectId", model)],
            None,
        ),
        (Method::GET, "/configuration/listModels", vec![], None),
        (
            Method::GET,
            "/configurations/listConnectedModels",
            vec![("modelId", model)],
            None,
        ),
        (Method::GET, "/operations/repositoryBrowse", vec![], None),
        (
            Method::POST,
            "/repository/model/export",
            vec![("modelId", model)],
            None,
        ),
        (
            Method::POST,
            "/repository/model/export",
            vec![],
            Some(json!({"modelId": model})),
        ),
    ];
    for (method, path, query, body) in calls {
        let what = format!("{method} {path}");
        // The administrator may: the input is good.
        let mut admin = t.call(method.clone(), path).await.query(&query);
        if let Some(body) = &body {
            admin = admin.json(body);
        }
        let resp = t.send(admin).await;
        assert_eq!(
            resp.status,
            200,
            "{what} as administrator: {}",
            resp.describe()
        );
        let resp = send_as(t, &key, method, path, &query, body).await;
        assert_denied(&resp, &what);
    }
    // A login alone is enough to log out; the key fails afterwards.
    let resp = t
        .send(t.anon(Method::POST, "/auth/logout").header("api-key", &key))
        .await;
    assert_eq!(resp.ok(), &json!(""), "{}", resp.describe());
    let resp = send_as(t, &key, Method::GET, "/configuration/listModels", &[], None).await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
}

/// The meta model is metadata too: a user with no roles cannot list types.
pub async fn types_without_view_metadata_are_denied(t: &Target) {
    let key = t.key_with_roles(&[]).await;
    let calls: [(&str, Vec<(&str, &str)>); 7] = [
        ("/types/listObjectTypes", vec![]),
        (
            "/types/listObjectTypes",
            vec![("includeAttributes", "true")],
        ),
        ("/types/listEntityTypes", vec![]),
        ("/types/listAttributeTypes", vec![]),
        ("/types/listGroupTypes", vec![]),
        ("/types/listProfiles", vec![]),
        ("/types/listCategories", vec![]),
    ];
    for (path, query) in calls {
        t.get_q(path, &query).await.ok();
        let resp = send_as(t, &key, Method::GET, path, &query, None).await;
        assert_denied(&resp, &format!("GET {path}"));
    }
}

/// A Metadata Viewer reads, but creates nothing: createFolder and model import answer
/// 403 and leave the repository as it was.
pub async fn writes_without_manage_repository_are_denied(t: &Target) {
    let key = t.key_with_roles(&["Metadata Viewer"]).await;
    // The user is valid and may read.
    let resp = send_as(t, &key, Method::GET, "/types/listProfiles", &[], None).await;
    resp.ok();
    let (folder_id, folder) = t.unique_folder("denied-writes").await;

    for (name, parent) in [
        (unique("Denied"), None),
        (unique("Denied"), Some(&folder_id)),
    ] {
        let mut body = json!({"name": name, "objectType": "Folder"});
        if let Some(parent) = parent {
            body["parentId"] = json!(parent);
        }
        let resp = send_as(
            t,
            &key,
            Method::POST,
            "/repository/createFolder",
            &[],
            Some(body),
        )
        .await;
        assert_denied(&resp, "POST /repository/createFolder");
        let path = match parent {
            None => format!("/{name}"),
            Some(_) => format!("/{folder}/{name}"),
        };
        let resp = t.entity(&path).await;
        assert_eq!(
            resp.status,
            404,
            "a denied createFolder creates nothing: {}",
            resp.describe()
        );
    }

    let model = unique("DeniedModel");
    let resp = t
        .send(
            t.anon(Method::POST, "/repository/model/import")
                .header("api-key", &key)
                .query(&[("folderId", folder_id.as_str()), ("modelName", &model)])
                .header(CONTENT_TYPE, "application/zip")
                .body(sample_archive()),
        )
        .await;
    assert_denied(&resp, "POST /repository/model/import");
    let resp = t.entity(&format!("/{folder}/{model}")).await;
    assert_eq!(
        resp.status,
        404,
        "a denied import creates no model: {}",
        resp.describe()
    );
    let models = t.get("/configuration/listModels").await;
    assert!(
        !models
            .ok_array()
            .iter()
            .any(|m| m["name"].as_str() == Some(model.as_str())),
        "a denied import lists no model"
    );
}

/// Only administrators read the system log: a user who may read and change the
/// repository, but not administer the server, gets 403.
pub async fn system_log_without_administer_is_denied(t: &Target) {
    let key = t
        .key_with_roles(&["Repository Manager", "Metadata Viewer"])
        .await;
    let resp = send_as(t, &key, Method::GET, "/admin/systemLog", &[], None).await;
    assert_denied(&resp, "GET /admin/systemLog");
    // Bad parameters change nothing: the capability is checked first.
    let resp = send_as(
        t,
        &key,
        Method::GET,
        "/admin/systemLog",
        &[("pageSize", "0")],
        None,
    )
    .await;
    assert_denied(&resp, "GET /admin/systemLog with a bad parameter");
}
