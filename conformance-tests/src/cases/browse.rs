//! GET /operations/repositoryBrowse.

use serde_json::{Value, json};

use crate::harness::{Target, assert_error, sample_archive, unique};

/// Checks every node's shape, recursively.
#[track_caller]
fn check_shape(node: &Value) {
    let links = node["links"]
        .as_array()
        .unwrap_or_else(|| panic!("links is an array: {node}"));
    for link in links {
        let fields: Vec<&String> = link
            .as_object()
            .expect("a node is an object")
            .keys()
            .collect();
        let mut fields: Vec<&str> = fields.iter().map(|s| s.as_str()).collect();
        fields.sort_unstable();
        assert_eq!(
            fields,
            vec!["id", "links", "objectName", "objectType"],
            "{link}"
        );
        assert!(
            link["id"].as_str().is_some_and(|id| id.starts_with("-1_")),
            "{link}"
        );
        check_shape(link);
    }
}

/// A tree of (name, type, children) without ids, for comparisons.
fn outline(node: &Value) -> Vec<Value> {
    node["links"]
        .as_array()
        .map(|links| {
            links
                .iter()
                .map(|l| json!([l["objectName"], l["objectType"], outline(l)]))
                .collect()
        })
        .unwrap_or_default()
}

/// Builds `/<top>` holding: Sub (folder) with a model, and Config (configuration) with
/// a version. Returns the top folder's name and the model's name.
async fn build(t: &Target) -> (String, String, Vec<(String, String)>) {
    let (top_id, top) = t.unique_folder("browse").await;
    let sub = t.create(Some(&top_id), "Sub", "Folder").await;
    let configuration = t.create(Some(&top_id), "Config", "Configuration").await;
    let version = t
        .create(Some(&configuration), "v1", "Configuration Version")
        .await;
    let empty = t.create(Some(&top_id), "Empty", "Folder").await;
    let model = unique("Model");
    let resp = t
        .import(
            sample_archive(),
            &[("folderId", &sub), ("modelName", &model)],
        )
        .await;
    let model_id = resp.ok()["modelId"].as_str().expect("modelId").to_owned();
    let ids = vec![
        (top.clone(), top_id),
        ("Sub".to_owned(), sub),
        ("Config".to_owned(), configuration),
        ("v1".to_owned(), version),
        ("Empty".to_owned(), empty),
        (model.clone(), model_id),
    ];
    (top, model, ids)
}

pub async fn repository_browse_tree(t: &Target) {
    let (top, model, ids) = build(t).await;
    let id = |name: &str| {
        ids.iter()
            .find(|(n, _)| n == name)
            .map(|(_, i)| i.clone())
            .expect("an id")
    };
    let resp = t
        .get_q(
            "/operations/repositoryBrowse",
            &[("repositoryPath", &format!("/{top}"))],
        )
        .await;
    let tree = resp.ok().clone();
    check_shape(&tree);
    // Children sorted by name; models are leaves (their objects are not listed).
    assert_eq!(
        tree,
        json!({"links": [
            {"objectName": "Config", "id": id("Config"), "objectType": "Configuration", "links": [
                {"objectName": "v1", "id": id("v1"), "objectType": "Configuration Version", "links": []},
            ]},
            {"objectName": "Empty", "id": id("Empty"), "objectType": "Folder", "links": []},
            {"objectName": "Sub", "id": id("Sub"), "objectType": "Folder", "links": [
                {"objectName": model, "id": id(&model), "objectType": "Model", "links": []},
            ]},
        ]})
    );
    // The whole repository holds our folder with the same subtree.
    for query in [
        vec![],
        vec![("repositoryPath", "/")],
        vec![("repositoryPath", "")],
    ] {
        let resp = t.get_q("/operations/repositoryBrowse", &query).await;
        let root = resp.ok();
        check_shape(root);
        let ours = root["links"]
            .as_array()
            .expect("links")
            .iter()
            .find(|l| l["objectName"] == json!(top))
            .unwrap_or_else(|| panic!("the root lists {top}"));
        assert_eq!(ours["id"], json!(id(&top)));
        assert_eq!(ours["objectType"], json!("Folder"));
        assert_eq!(ours["links"], tree["links"]);
    }
    // A deeper start, with a trailing slash.
    let resp = t
        .get_q(
            "/operations/repositoryBrowse",
            &[("repositoryPath", &format!("/{top}/Sub/"))],
        )
        .await;
    assert_eq!(outline(resp.ok()), vec![json!([model, "Model", []])]);
}

pub async fn repository_browse_filters(t: &Target) {
    let (top, model, _) = build(t).await;
    let path = format!("/{top}");
    let browse = |types: &'static str| {
        let path = path.clone();
        async move {
            let resp = t
                .get_q(
                    "/operations/repositoryBrowse",
                    &[("repositoryPath", &path), ("objectTypes", types)],
                )
                .await;
            let tree = resp.ok().clone();
            check_shape(&tree);
            outline(&tree)
        }
    };
    // Only what was asked for, and the folders that lead to it.
    assert_eq!(
        browse("Configuration").await,
        vec![json!(["Config", "Configuration", []])]
    );
    assert_eq!(
        browse("Model").await,
        vec![json!(["Sub", "Folder", [[model, "Model", []]]])]
    );
    assert_eq!(
        browse("Configuration Version").await,
        vec![json!([
            "Config",
            "Configuration",
            [["v1", "Configuration Version", []]]
        ])]
    );
    assert_eq!(
        browse("Folder").await,
        vec![json!(["Empty", "Folder", []]), json!(["Sub", "Folder", []])]
    );
    assert_eq!(
        browse("Configuration, Model").await,
        vec![
            json!(["Config", "Configuration", []]),
            json!(["Sub", "Folder", [[model, "Model", []]]]),
        ]
    );
    // Kind names are case-insensitive; an empty filter keeps everything.
    assert_eq!(browse("configuration").await, browse("Configuration").await);
    assert_eq!(
        browse("").await,
        browse("Folder,Configuration,Configuration Version,Model").await
    );
}

pub async fn repository_browse_bad_input(t: &Target) {
    for types in ["Table", "Configuration,Nothing", "Model Object"] {
        let resp = t
            .get_q("/operations/repositoryBrowse", &[("objectTypes", types)])
            .await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    let resp = t
        .get_q(
            "/operations/repositoryBrowse",
            &[("repositoryPath", &format!("/{}", unique("missing")))],
        )
        .await;
    assert_error(&resp, 404, "INVALID_REPOSITORY_PATH");
    let (_, folder) = t.unique_folder("browse-bad").await;
    for path in [
        format!("/{folder}/missing"),
        format!("/{folder}//x"),
        folder.clone(),
    ] {
        let resp = t
            .get_q("/operations/repositoryBrowse", &[("repositoryPath", &path)])
            .await;
        assert_error(&resp, 404, "INVALID_REPOSITORY_PATH");
    }
    // A model is not a folder: browsing into it is refused, not an empty tree.
    let model = unique("browse-model");
    let resp = t
        .import(
            sample_archive(),
            &[("folderId", &format!("/{folder}")), ("modelName", &model)],
        )
        .await;
    assert_eq!(resp.status, 200, "import for browse: {}", resp.json);
    let resp = t
        .get_q(
            "/operations/repositoryBrowse",
            &[("repositoryPath", &format!("/{folder}/{model}"))],
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .send(t.anon(reqwest::Method::GET, "/operations/repositoryBrowse"))
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
}
