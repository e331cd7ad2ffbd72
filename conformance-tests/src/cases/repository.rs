//! POST /repository/createFolder and GET /repository/getContext.

use serde_json::{Value, json};

use crate::harness::{Sample, Target, assert_error, cell, unique};

/// Checks the legacy entity of a repository object.
#[track_caller]
fn assert_repository_entity(entity: &Value, name: &str, kind: &str, parent: Option<&str>) {
    let id = entity["id"].as_str().expect("id");
    assert!(
        id.starts_with("-1_"),
        "repository objects have ids -1_<n>: {entity}"
    );
    assert_eq!(entity["name"], json!(name), "{entity}");
    assert_eq!(
        entity["objectType"],
        json!({"name": format!("Repository.{kind}"), "displayName": kind}),
        "{entity}"
    );
    assert_eq!(entity["entityType"], entity["objectType"], "{entity}");
    match parent {
        Some(p) => assert_eq!(entity["parentId"], json!(p), "{entity}"),
        None => assert!(
            entity["parentId"].is_null(),
            "no parent at the root: {entity}"
        ),
    }
    assert!(entity["attributes"].is_array(), "{entity}");
    assert!(entity["labels"].is_array(), "{entity}");
}

fn attribute<'a>(entity: &'a Value, name: &str) -> Option<&'a Value> {
    entity["attributes"]
        .as_array()?
        .iter()
        .find(|a| a["attributeType"]["name"] == json!(name))
        .map(|a| &a["value"])
}

pub async fn create_folder_root_and_nested(t: &Target) {
    let name = unique("root");
    let resp = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": name, "description": "made by the conformance suite"}),
        )
        .await;
    let root = resp.ok().clone();
    assert_repository_entity(&root, &name, "Folder", None);
    assert_eq!(
        attribute(&root, "Description"),
        Some(&json!("made by the conformance suite")),
        "{root}"
    );
    let root_id = root["id"].as_str().expect("id").to_owned();

    // Nested by parent id, then by parent path; the default object type is Folder.
    let child = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": "Child", "parentId": root_id, "objectType": "Folder"}),
        )
        .await;
    let child = child.ok().clone();
    assert_repository_entity(&child, "Child", "Folder", Some(&root_id));
    let child_id = child["id"].as_str().expect("id").to_owned();
    assert_ne!(child_id, root_id);
    let grandchild = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": "Grand Child", "parentId": format!("/{name}/Child")}),
        )
        .await;
    let grandchild = grandchild.ok().clone();
    assert_repository_entity(&grandchild, "Grand Child", "Folder", Some(&child_id));

    // The same name is fine in another folder; parentId "/" is the root.
    let other = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": "Child", "parentId": format!("/{name}/Child")}),
        )
        .await;
    other.ok();
    let top = unique("top");
    let resp = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": top, "parentId": "/"}),
        )
        .await;
    assert_repository_entity(resp.ok(), &top, "Folder", None);

    // What createFolder answered is what GET /entities answers, by id and by path.
    let by_id = t.entity(&child_id).await;
    assert_eq!(by_id.ok(), &child);
    let by_path = t.entity(&format!("/{name}/Child")).await;
    assert_eq!(by_path.ok(), &child);
    let grand_id = grandchild["id"].as_str().expect("id");
    let resp = t.entity(grand_id).await;
    assert_eq!(resp.ok()["name"], json!("Grand Child"));
}

pub async fn create_configuration_and_version(t: &Target) {
    let (folder_id, folder) = t.unique_folder("configs").await;
    let name = unique("Configuration");
    let resp = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": name, "parentId": folder_id, "objectType": "Configuration"}),
        )
        .await;
    let configuration = resp.ok().clone();
    assert_repository_entity(&configuration, &name, "Configuration", Some(&folder_id));
    let configuration_id = configuration["id"].as_str().expect("id").to_owned();

    let resp = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": "v1", "parentId": configuration_id, "objectType": "Configuration Version"}),
        )
        .await;
    assert_repository_entity(
        resp.ok(),
        "v1",
        "Configuration Version",
        Some(&configuration_id),
    );
    let resp = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": "v2", "parentId": format!("/{folder}/{name}"), "objectType": "Configuration Version"}),
        )
        .await;
    assert_repository_entity(
        resp.ok(),
        "v2",
        "Configuration Version",
        Some(&configuration_id),
    );

    // A configuration at the repository root.
    let root_configuration = unique("RootConfiguration");
    let resp = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": root_configuration, "objectType": "Configuration"}),
        )
        .await;
    assert_repository_entity(resp.ok(), &root_configuration, "Configuration", None);

    // The new objects are in the repository tree.
    let resp = t
        .get_q(
            "/operations/repositoryBrowse",
            &[("repositoryPath", &format!("/{folder}"))],
        )
        .await;
    let tree = resp.ok();
    assert_eq!(
        tree,
        &json!({"links": [{
            "objectName": name, "id": configuration_id, "objectType": "Configuration",
            "links": [
                {"objectName": "v1", "id": tree["links"][0]["links"][0]["id"], "objectType": "Configuration Version", "links": []},
                {"objectName": "v2", "id": tree["links"][0]["links"][1]["id"], "objectType": "Configuration Version", "links": []},
            ]
        }]}),
    );
}

pub async fn create_folder_duplicate_is_409(t: &Target) {
    let (folder_id, folder) = t.unique_folder("dup").await;
    let resp = t
        .post("/repository/createFolder", &[], &json!({"name": folder}))
        .await;
    assert_error(&resp, 409, "CONFLICT");
    t.create(Some(&folder_id), "Same", "Folder").await;
    for object_type in ["Folder", "Configuration"] {
        let resp = t
            .post(
                "/repository/createFolder",
                &[],
                &json!({"name": "Same", "parentId": folder_id, "objectType": object_type}),
            )
            .await;
        assert_error(&resp, 409, "CONFLICT");
    }
    // Only one "Same" exists afterwards.
    let resp = t
        .get_q(
            "/operations/repositoryBrowse",
            &[("repositoryPath", &format!("/{folder}"))],
        )
        .await;
    assert_eq!(
        resp.ok()["links"].as_array().map(Vec::len),
        Some(1),
        "{}",
        resp.describe()
    );
}

pub async fn create_folder_bad_input(t: &Target) {
    let (folder_id, folder) = t.unique_folder("bad").await;
    for body in [
        json!({"name": ""}),
        json!({"name": "   "}),
        json!({"parentId": folder_id}),
        json!({}),
        // Body keys are case-sensitive: `Name` is not `name`.
        json!({"Name": "x", "parentId": folder_id}),
    ] {
        let resp = t.post("/repository/createFolder", &[], &body).await;
        assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    }
    for body in [
        json!({"name": "a/b", "parentId": folder_id}),
        json!({"name": "x", "parentId": folder_id, "objectType": "Model"}),
        json!({"name": "x", "parentId": folder_id, "objectType": "Table"}),
        json!({"name": "x", "parentId": folder_id, "objectType": "Model Object"}),
    ] {
        let resp = t.post("/repository/createFolder", &[], &body).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    let resp = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": "x", "parentId": "not an id!"}),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    // A body that is not JSON.
    let resp = t
        .send(
            t.call(reqwest::Method::POST, "/repository/createFolder")
                .await
                .header(reqwest::header::CONTENT_TYPE, "text/plain")
                .body(format!(
                    "{{\"name\": \"x\", \"parentId\": \"{folder_id}\"}}"
                )),
        )
        .await;
    assert_error(&resp, 415, "UNSUPPORTED_MEDIA_TYPE");
    // Without a key nothing is created.
    let resp = t
        .send(
            t.anon(reqwest::Method::POST, "/repository/createFolder")
                .json(&json!({"name": "nokey", "parentId": folder_id})),
        )
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
    let resp = t
        .get_q(
            "/operations/repositoryBrowse",
            &[("repositoryPath", &format!("/{folder}"))],
        )
        .await;
    assert_eq!(
        resp.ok(),
        &json!({"links": []}),
        "refused calls create nothing"
    );
}

pub async fn create_folder_unknown_parent_is_404(t: &Target) {
    let resp = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": "x", "parentId": "-1_999999999"}),
        )
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": "x", "parentId": format!("/{}", unique("missing"))}),
        )
        .await;
    assert_error(&resp, 404, "INVALID_REPOSITORY_PATH");
    let (_, folder) = t.unique_folder("parent").await;
    let resp = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": "x", "parentId": format!("/{folder}/missing/deeper")}),
        )
        .await;
    assert_error(&resp, 404, "INVALID_REPOSITORY_PATH");
}

pub async fn create_version_outside_configuration_is_400(t: &Target) {
    let (folder_id, _) = t.unique_folder("versions").await;
    let resp = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": unique("v"), "objectType": "Configuration Version"}),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": "v", "parentId": folder_id, "objectType": "Configuration Version"}),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    // Nothing goes into a configuration but versions, and nothing into a version.
    let configuration = t.create(Some(&folder_id), "C", "Configuration").await;
    for object_type in ["Folder", "Configuration"] {
        let resp = t
            .post(
                "/repository/createFolder",
                &[],
                &json!({"name": "x", "parentId": configuration, "objectType": object_type}),
            )
            .await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    let version = t
        .create(Some(&configuration), "v1", "Configuration Version")
        .await;
    let resp = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": "v2", "parentId": version, "objectType": "Configuration Version"}),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    // Nor into a model or one of its objects.
    let imported = t.import_sample().await;
    let resp = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": "x", "parentId": imported.model_id}),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
}

/// The ids and names of a getContext answer, checking each element's shape.
fn context_chain(result: &Value) -> Vec<(String, String, String)> {
    result
        .as_array()
        .expect("getContext answers an array")
        .iter()
        .map(|e| {
            let mut keys: Vec<&str> = e
                .as_object()
                .expect("an object")
                .keys()
                .map(String::as_str)
                .collect();
            keys.sort_unstable();
            assert_eq!(
                keys,
                ["id", "name", "objectType"],
                "an embedded entity: {e}"
            );
            assert!(
                e["objectType"]["name"].is_string() && e["objectType"]["displayName"].is_string(),
                "{e}"
            );
            (
                e["id"].as_str().expect("id").to_owned(),
                e["name"].as_str().expect("name").to_owned(),
                e["objectType"]["displayName"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            )
        })
        .collect()
}

pub async fn get_context_of_folders(t: &Target) {
    let (a_id, a) = t.unique_folder("ctx").await;
    let b_id = t.create(Some(&a_id), "B", "Folder").await;
    let c_id = t.create(Some(&b_id), "C", "Configuration").await;
    let v_id = t.create(Some(&c_id), "V", "Configuration Version").await;

    let resp = t
        .get_q("/repository/getContext", &[("objectId", &v_id)])
        .await;
    assert_eq!(
        context_chain(resp.ok()),
        vec![
            (a_id.clone(), a.clone(), "Folder".to_owned()),
            (b_id.clone(), "B".to_owned(), "Folder".to_owned()),
            (c_id.clone(), "C".to_owned(), "Configuration".to_owned()),
        ],
        "ancestors, root first"
    );
    let resp = t
        .get_q(
            "/repository/getContext",
            &[("objectId", &format!("/{a}/B"))],
        )
        .await;
    assert_eq!(
        context_chain(resp.ok()),
        vec![(a_id.clone(), a.clone(), "Folder".to_owned())]
    );
    // A root folder has no ancestors.
    let resp = t
        .get_q("/repository/getContext", &[("objectId", &a_id)])
        .await;
    assert_eq!(resp.ok(), &json!([]));
}

pub async fn get_context_of_model_object(t: &Target) {
    let sample = Sample::load();
    let (outer_id, outer) = t.unique_folder("ctx-model").await;
    let inner_id = t.create(Some(&outer_id), "Inner", "Folder").await;
    let name = unique("Sample");
    let resp = t
        .import(
            crate::harness::sample_archive(),
            &[("folderId", &inner_id), ("modelName", &name)],
        )
        .await;
    let model_id = resp.ok()["modelId"].as_str().expect("modelId").to_owned();
    let model_path = format!("/{outer}/Inner/{name}");

    // The model's own context: its folders.
    let resp = t
        .get_q("/repository/getContext", &[("objectId", &model_id)])
        .await;
    let ids: Vec<String> = context_chain(resp.ok()).into_iter().map(|c| c.0).collect();
    assert_eq!(ids, vec![outer_id.clone(), inner_id.clone()]);

    // The deepest object whose path is unambiguous: its context runs through the
    // folders, the model, then its parents inside the model.
    let deepest = sample
        .objects
        .iter()
        .map(|o| cell(o, "native_id"))
        .filter(|id| sample.path_is_unique(id))
        .max_by_key(|id| sample.names_to(id).len())
        .expect("the sample has objects");
    let names = sample.names_to(deepest);
    let path = format!("{model_path}/{}", names.join("/"));
    let entity = t.entity(&path).await;
    let object_id = entity.ok()["id"].as_str().expect("id").to_owned();
    let stable = entity.ok()["attributes"]
        .as_array()
        .and_then(|a| {
            a.iter()
                .find(|a| a["attributeType"]["name"] == json!("Object Stable Id"))
        })
        .and_then(|a| a["value"].as_str())
        .expect("an Object Stable Id")
        .to_owned();
    for reference in [object_id.as_str(), path.as_str(), stable.as_str()] {
        let resp = t
            .get_q("/repository/getContext", &[("objectId", reference)])
            .await;
        let chain = context_chain(resp.ok());
        let chain_names: Vec<&str> = chain.iter().map(|c| c.1.as_str()).collect();
        let mut expected: Vec<&str> = vec![outer.as_str(), "Inner", name.as_str()];
        expected.extend(names[..names.len() - 1].iter().map(String::as_str));
        assert_eq!(chain_names, expected, "context of {reference}");
        assert_eq!(chain[0].0, outer_id);
        assert_eq!(chain[2].0, model_id);
        assert_eq!(chain[2].2, "Model");
        for (id, _, _) in &chain[3..] {
            assert!(
                !id.starts_with("-1_"),
                "model objects have the model's number: {chain:?}"
            );
        }
    }
}

pub async fn get_context_bad_input(t: &Target) {
    let resp = t.get("/repository/getContext").await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let resp = t.get_q("/repository/getContext", &[("objectId", "")]).await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let resp = t
        .get_q("/repository/getContext", &[("objectId", "-1_999999999")])
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t
        .get_q(
            "/repository/getContext",
            &[("objectId", &format!("/{}", unique("nowhere")))],
        )
        .await;
    assert_error(&resp, 404, "INVALID_REPOSITORY_PATH");
    let resp = t
        .get_q("/repository/getContext", &[("objectId", "what is this?")])
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .send(
            t.anon(reqwest::Method::GET, "/repository/getContext")
                .query(&[("objectId", "-1_1")]),
        )
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
}

pub async fn create_folder_concurrent_duplicates_conflict(t: &Target) {
    // Names are unique among siblings even when the same folder is created by many
    // clients at once: one wins, the others get 409.
    let (parent, parent_name) = t.unique_folder("race").await;
    for round in 0..3 {
        let name = format!("Same-{round}");
        let requests = (0..12).map(|_| {
            let body = json!({"name": name, "parentId": parent});
            async move { t.post("/repository/createFolder", &[], &body).await }
        });
        let answers = futures_join_all(requests).await;
        let created = answers.iter().filter(|r| r.status == 200).count();
        for resp in answers.iter().filter(|r| r.status != 200) {
            assert_error(resp, 409, "CONFLICT");
        }
        let tree = t
            .get_q(
                "/operations/repositoryBrowse",
                &[("repositoryPath", &format!("/{parent_name}"))],
            )
            .await;
        let same = tree.ok()["links"]
            .as_array()
            .expect("links")
            .iter()
            .filter(|l| l["objectName"] == json!(name))
            .count();
        assert_eq!(
            (created, same),
            (1, 1),
            "12 concurrent createFolder calls for '{name}': {created} succeeded and the folder holds {same} objects of that name"
        );
    }
}

/// Runs the futures concurrently (on the current task) and collects their outputs.
pub(crate) async fn futures_join_all<F: std::future::Future>(
    futures: impl IntoIterator<Item = F>,
) -> Vec<F::Output> {
    let mut set = Vec::new();
    for f in futures {
        set.push(Box::pin(f));
    }
    let mut outputs: Vec<Option<F::Output>> = set.iter().map(|_| None).collect();
    std::future::poll_fn(|cx| {
        let mut pending = false;
        for (f, out) in set.iter_mut().zip(outputs.iter_mut()) {
            if out.is_none() {
                match f.as_mut().poll(cx) {
                    std::task::Poll::Ready(v) => *out = Some(v),
                    std::task::Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            std::task::Poll::Pending
        } else {
            std::task::Poll::Ready(())
        }
    })
    .await;
    outputs
        .into_iter()
        .map(|o| o.expect("every future finished"))
        .collect()
}
