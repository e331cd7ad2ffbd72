//! GET /configuration/listModels and GET /configurations/listConnectedModels.

use serde_json::{Value, json};

use crate::harness::{Sample, Target, assert_error, sample_archive, unique, zip_map};

/// (id, name) of every entity of a list answer, checking the legacy shape.
fn listed(result: &[Value]) -> Vec<(String, String)> {
    result
        .iter()
        .map(|m| {
            assert_eq!(
                m["objectType"]["displayName"],
                json!("Model"),
                "a model entity: {m}"
            );
            assert_eq!(m["entityType"], m["objectType"], "{m}");
            assert!(m["attributes"].is_array(), "{m}");
            (
                m["id"].as_str().expect("id").to_owned(),
                m["name"].as_str().expect("name").to_owned(),
            )
        })
        .collect()
}

pub async fn list_models_all_and_by_configuration(t: &Target) {
    let (folder_id, folder) = t.unique_folder("models").await;
    let configuration = t.create(Some(&folder_id), "Config", "Configuration").await;
    let version = t
        .create(Some(&configuration), "v1", "Configuration Version")
        .await;
    let empty = t.create(Some(&folder_id), "Empty", "Configuration").await;

    // Imported with configurationId by id, by path, and into a version.
    let a = unique("A");
    let b = unique("B");
    let c = unique("C");
    let d = unique("D");
    let imports = [
        (a.clone(), configuration.clone()),
        (b.clone(), format!("/{folder}/Config")),
        (c.clone(), version.clone()),
    ];
    let mut ids = std::collections::BTreeMap::new();
    for (name, configuration_id) in &imports {
        let resp = t
            .import(
                sample_archive(),
                &[
                    ("folderId", &folder_id),
                    ("modelName", name),
                    ("configurationId", configuration_id),
                ],
            )
            .await;
        let summary = resp.ok();
        ids.insert(
            name.clone(),
            summary["modelId"].as_str().expect("modelId").to_owned(),
        );
    }
    let resp = t
        .import(
            sample_archive(),
            &[("folderId", &folder_id), ("modelName", &d)],
        )
        .await;
    ids.insert(
        d.clone(),
        resp.ok()["modelId"].as_str().expect("modelId").to_owned(),
    );

    // All models: every one of ours is there (a remote server may hold more).
    let resp = t.get("/configuration/listModels").await;
    let all = listed(resp.ok_array());
    for (name, id) in &ids {
        assert!(
            all.contains(&(id.clone(), name.clone())),
            "listModels lists {name} ({id}): {all:?}"
        );
    }
    // An empty configurationId is no filter.
    let resp = t
        .get_q("/configuration/listModels", &[("configurationId", "")])
        .await;
    let unfiltered = listed(resp.ok_array());
    for entry in &all {
        assert!(unfiltered.contains(entry));
    }

    // By configuration: exactly its models, by id or path.
    let mut expected = vec![(ids[&a].clone(), a.clone()), (ids[&b].clone(), b.clone())];
    expected.sort_by(|x, y| x.1.cmp(&y.1).then(x.0.cmp(&y.0)));
    for reference in [configuration.clone(), format!("/{folder}/Config")] {
        let resp = t
            .get_q(
                "/configuration/listModels",
                &[("configurationId", &reference)],
            )
            .await;
        let mut found = listed(resp.ok_array());
        found.sort_by(|x, y| x.1.cmp(&y.1).then(x.0.cmp(&y.0)));
        assert_eq!(found, expected, "models of configuration {reference}");
    }
    let resp = t
        .get_q(
            "/configuration/listModels",
            &[("configurationId", &version)],
        )
        .await;
    assert_eq!(listed(resp.ok_array()), vec![(ids[&c].clone(), c.clone())]);
    let resp = t
        .get_q("/configuration/listModels", &[("configurationId", &empty)])
        .await;
    assert_eq!(resp.ok(), &json!([]));

    // The entity of a listed model is the entity GET /entities answers.
    let resp = t
        .get_q(
            "/configuration/listModels",
            &[("configurationId", &version)],
        )
        .await;
    let listed_entity = resp.ok_array()[0].clone();
    let resp = t.entity(&ids[&c]).await;
    assert_eq!(resp.ok(), &listed_entity);
}

pub async fn list_models_bad_configuration(t: &Target) {
    let resp = t
        .get_q(
            "/configuration/listModels",
            &[("configurationId", "-1_999999999")],
        )
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t
        .get_q(
            "/configuration/listModels",
            &[("configurationId", &format!("/{}", unique("none")))],
        )
        .await;
    assert_error(&resp, 404, "INVALID_REPOSITORY_PATH");
    let (folder_id, _) = t.unique_folder("not-a-configuration").await;
    let resp = t
        .get_q(
            "/configuration/listModels",
            &[("configurationId", &folder_id)],
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .get_q(
            "/configuration/listModels",
            &[("configurationId", "no such thing!")],
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
}

/// The sample archive with a connections.csv pointing at the given model paths.
fn connected_archive(targets: &[(&str, &str)]) -> Vec<u8> {
    let sample = Sample::load();
    let mut csv = String::from("name,target_model\n");
    for (name, path) in targets {
        csv.push_str(&format!("{name},\"{path}\"\n"));
    }
    zip_map(&sample.with_file("connections.csv", Some(csv.into_bytes())))
}

pub async fn list_connected_models(t: &Target) {
    let first = t.import_sample().await;
    let second = t.import_sample().await;
    let configuration_name = unique("Config");
    let configuration = t.create(None, &configuration_name, "Configuration").await;
    // A model connected to both, imported into the configuration.
    let (folder_id, _) = t.unique_folder("connected").await;
    let name = unique("Connected");
    let resp = t
        .import(
            connected_archive(&[("Stitch", &first.path), ("Other", &second.path)]),
            &[
                ("folderId", &folder_id),
                ("modelName", &name),
                ("configurationId", &configuration),
            ],
        )
        .await;
    let connected = resp.ok()["modelId"].as_str().expect("modelId").to_owned();

    // From the connecting model: both targets, sorted by name.
    let resp = t
        .get_q(
            "/configurations/listConnectedModels",
            &[("modelId", &connected)],
        )
        .await;
    let mut expected = vec![
        (first.model_id.clone(), first.model_name.clone()),
        (second.model_id.clone(), second.model_name.clone()),
    ];
    expected.sort_by(|x, y| x.1.cmp(&y.1));
    assert_eq!(listed(resp.ok_array()), expected);
    // From a target (the connection read the other way), by id and by path.
    for reference in [first.model_id.clone(), first.path.clone()] {
        let resp = t
            .get_q(
                "/configurations/listConnectedModels",
                &[("modelId", &reference)],
            )
            .await;
        assert_eq!(
            listed(resp.ok_array()),
            vec![(connected.clone(), name.clone())]
        );
    }
    // Restricted to a configuration: only the connecting model is in it.
    let resp = t
        .get_q(
            "/configurations/listConnectedModels",
            &[
                ("modelId", &first.model_id),
                ("configurationId", &configuration),
            ],
        )
        .await;
    assert_eq!(
        listed(resp.ok_array()),
        vec![(connected.clone(), name.clone())]
    );
    let resp = t
        .get_q(
            "/configurations/listConnectedModels",
            &[
                ("modelId", &connected),
                ("configurationId", &format!("/{configuration_name}")),
            ],
        )
        .await;
    assert_eq!(resp.ok(), &json!([]));
    // A model without connections.
    let lonely = t.import_sample().await;
    let resp = t
        .get_q(
            "/configurations/listConnectedModels",
            &[("modelId", &lonely.model_id)],
        )
        .await;
    assert_eq!(resp.ok(), &json!([]));
    // The connection survives in the export.
    let resp = t.export(&connected, &[]).await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    let files = crate::harness::unzip(&resp.bytes);
    let connections = String::from_utf8_lossy(
        files
            .get("connections.csv")
            .expect("connections.csv is exported"),
    )
    .into_owned();
    assert!(
        connections.contains(&first.path) && connections.contains(&second.path),
        "{connections}"
    );
}

pub async fn list_connected_models_bad_input(t: &Target) {
    let resp = t.get("/configurations/listConnectedModels").await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let resp = t
        .get_q("/configurations/listConnectedModels", &[("modelId", "")])
        .await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let resp = t
        .get_q(
            "/configurations/listConnectedModels",
            &[("modelId", "-1_999999999")],
        )
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let (folder_id, _) = t.unique_folder("not-a-model").await;
    let resp = t
        .get_q(
            "/configurations/listConnectedModels",
            &[("modelId", &folder_id)],
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .get_q(
            "/configurations/listConnectedModels",
            &[("modelId", "what?")],
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let imported = t.import_sample().await;
    let resp = t
        .get_q(
            "/configurations/listConnectedModels",
            &[
                ("modelId", &imported.model_id),
                ("configurationId", "-1_999999999"),
            ],
        )
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    // An archive whose connection points nowhere is refused as a whole.
    let before = t
        .get_q(
            "/operations/repositoryBrowse",
            &[(
                "repositoryPath",
                &format!("/{}", folder_id_name(t, &folder_id).await),
            )],
        )
        .await;
    let resp = t
        .import(
            connected_archive(&[("Nowhere", &format!("/{}", unique("missing")))]),
            &[("folderId", &folder_id), ("modelName", &unique("Dangling"))],
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let after = t
        .get_q(
            "/operations/repositoryBrowse",
            &[(
                "repositoryPath",
                &format!("/{}", folder_id_name(t, &folder_id).await),
            )],
        )
        .await;
    assert_eq!(before.ok(), after.ok(), "a refused import writes nothing");
}

/// The name of a root folder.
async fn folder_id_name(t: &Target, id: &str) -> String {
    let resp = t.entity(id).await;
    resp.ok()["name"].as_str().expect("name").to_owned()
}
