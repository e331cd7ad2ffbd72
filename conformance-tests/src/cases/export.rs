//! POST /repository/model/export: parameters in the query or a JSON body, profiling,
//! object selections, and the export → import → export round trip.

use std::collections::BTreeSet;

use reqwest::Method;
use reqwest::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use serde_json::{Value, json};

use crate::harness::{
    Imported, Resp, Sample, Target, assert_error, cell, csv_rows, unique, unzip, zip_map,
};

async fn export_body(t: &Target, body: &Value) -> Resp {
    t.send(
        t.call(Method::POST, "/repository/model/export")
            .await
            .json(body),
    )
    .await
}

/// Checks an archive answer and returns its files.
#[track_caller]
fn archive(resp: &Resp) -> std::collections::BTreeMap<String, Vec<u8>> {
    assert_eq!(resp.status, 200, "{}", resp.describe());
    assert_eq!(
        resp.content_type(),
        "application/x-download",
        "{}",
        resp.describe()
    );
    let disposition = resp
        .headers
        .get(CONTENT_DISPOSITION)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    assert!(
        disposition.starts_with("attachment"),
        "Content-Disposition: {disposition}"
    );
    unzip(&resp.bytes)
}

fn native_ids(files: &std::collections::BTreeMap<String, Vec<u8>>) -> BTreeSet<String> {
    csv_rows(&files["objects.csv"])
        .iter()
        .map(|r| cell(r, "native_id").to_owned())
        .collect()
}

pub async fn export_model_id_in_query_and_body(t: &Target) {
    let sample = Sample::load();
    let imported = t.import_sample().await;
    let by_query = t.export(&imported.model_id, &[]).await;
    let files = archive(&by_query);
    let model = csv_rows(&files["model.csv"]);
    assert_eq!(model.len(), 1, "model.csv has one row");
    assert_eq!(cell(&model[0], "name"), imported.model_name);
    assert_eq!(cell(&model[0], "profile"), sample.profile);
    let expected: BTreeSet<String> = sample
        .objects
        .iter()
        .map(|o| cell(o, "native_id").to_owned())
        .collect();
    assert_eq!(
        native_ids(&files),
        expected,
        "every object of the model is exported"
    );
    assert!(
        !files.contains_key("profiling.csv"),
        "no profiling.csv unless asked for"
    );
    for file in files.keys() {
        assert!(
            file.ends_with(".csv") && !file.contains('/'),
            "a flat archive of CSV files: {file}"
        );
    }

    // The same archive whichever way the model is named.
    for body in [
        json!({"modelId": imported.model_id}),
        json!({"modelId": imported.path}),
    ] {
        let by_body = export_body(t, &body).await;
        archive(&by_body);
        assert_eq!(by_body.bytes, by_query.bytes, "body {body}");
    }
    let by_path = t.export(&imported.path, &[]).await;
    assert_eq!(by_path.bytes, by_query.bytes);
    // The query wins over the body.
    let other = t.import_sample().await;
    let resp = t
        .send(
            t.call(Method::POST, "/repository/model/export")
                .await
                .query(&[("modelId", imported.model_id.as_str())])
                .json(&json!({"modelId": other.model_id})),
        )
        .await;
    assert_eq!(resp.bytes, by_query.bytes, "modelId of the query wins");
    // Exporting twice gives the same bytes.
    let again = t.export(&imported.model_id, &[]).await;
    assert_eq!(again.bytes, by_query.bytes, "exports are deterministic");
}

/// The sample's profiling.csv, or one made up for its first object.
fn profiling_csv(sample: &Sample) -> Vec<u8> {
    if let Some(data) = sample
        .files
        .get("profiling.csv")
        .filter(|d| !csv_rows(d).is_empty())
    {
        return data.clone();
    }
    let first = cell(&sample.objects[0], "native_id").to_owned();
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer
        .write_record(["native_id", "data_profile", "data_sample"])
        .expect("a header");
    writer
        .write_record([
            first.as_str(),
            r#"{"totalProfiledRows":10,"statistics":{"DistinctRows":7}}"#,
            r#"{"header":["a"],"samples":[[1],[2]]}"#,
        ])
        .expect("a row");
    writer.into_inner().expect("a CSV")
}

pub async fn export_with_profiling(t: &Target) {
    let sample = Sample::load();
    let profiling = profiling_csv(&sample);
    let (folder_id, _) = t.unique_folder("profiling").await;
    let name = unique("Profiled");
    let resp = t
        .import(
            zip_map(&sample.with_file("profiling.csv", Some(profiling.clone()))),
            &[("folderId", &folder_id), ("modelName", &name)],
        )
        .await;
    let model_id = resp.ok()["modelId"].as_str().expect("modelId").to_owned();

    let without = t.export(&model_id, &[]).await;
    assert!(
        !archive(&without).contains_key("profiling.csv"),
        "no profiling.csv by default"
    );
    let false_ = t
        .export(&model_id, &[("exportDataProfilingAndSampling", "false")])
        .await;
    assert_eq!(false_.bytes, without.bytes);

    let with = t
        .export(&model_id, &[("exportDataProfilingAndSampling", "true")])
        .await;
    let files = archive(&with);
    let exported = files
        .get("profiling.csv")
        .expect("profiling.csv with exportDataProfilingAndSampling=true");
    let natives = |data: &[u8]| -> BTreeSet<String> {
        csv_rows(data)
            .iter()
            .map(|r| cell(r, "native_id").to_owned())
            .collect()
    };
    assert_eq!(
        natives(exported),
        natives(&profiling),
        "every profiled object"
    );
    // Everything else is as without profiling.
    let mut rest = files.clone();
    rest.remove("profiling.csv");
    assert_eq!(rest, archive(&without));
    // The flag in a JSON body, as a boolean or a string.
    for body in [
        json!({"modelId": model_id, "exportDataProfilingAndSampling": true}),
        json!({"modelId": model_id, "exportDataProfilingAndSampling": "true"}),
    ] {
        let resp = export_body(t, &body).await;
        assert_eq!(resp.bytes, with.bytes, "body {body}");
    }
    let resp = export_body(
        t,
        &json!({"modelId": model_id, "exportDataProfilingAndSampling": false}),
    )
    .await;
    assert_eq!(resp.bytes, without.bytes);
    // And the profiling survives an import of the export.
    let (again_folder, _) = t.unique_folder("profiling-again").await;
    let resp = t
        .import(
            with.bytes.clone(),
            &[("folderId", &again_folder), ("modelName", &name)],
        )
        .await;
    let again = resp.ok()["modelId"].as_str().expect("modelId").to_owned();
    let resp = t
        .export(&again, &[("exportDataProfilingAndSampling", "true")])
        .await;
    assert_eq!(archive(&resp).get("profiling.csv"), Some(exported));
}

/// A sample object with an unambiguous path and the most descendants (preferring one
/// that is not the whole model), with its descendants.
fn subtree(sample: &Sample) -> (String, BTreeSet<String>) {
    let total = sample.objects.len();
    sample
        .objects
        .iter()
        .map(|row| cell(row, "native_id"))
        .filter(|native| sample.path_is_unique(native))
        .map(|native| {
            let mut keep = BTreeSet::from([native.to_owned()]);
            loop {
                let before = keep.len();
                for o in &sample.objects {
                    if keep.contains(cell(o, "parent_native_id")) {
                        keep.insert(cell(o, "native_id").to_owned());
                    }
                }
                if keep.len() == before {
                    break;
                }
            }
            (native.to_owned(), keep)
        })
        .max_by_key(|(_, keep)| (keep.len() < total, keep.len()))
        .expect("the sample has objects")
}

async fn object_id(t: &Target, sample: &Sample, imported: &Imported, native: &str) -> String {
    let path = format!("{}/{}", imported.path, sample.names_to(native).join("/"));
    let resp = t.entity(&path).await;
    resp.ok()["id"].as_str().expect("id").to_owned()
}

pub async fn export_object_ids_restricts(t: &Target) {
    let sample = Sample::load();
    let imported = t.import_sample().await;
    let (root, keep) = subtree(&sample);
    let id = object_id(t, &sample, &imported, &root).await;

    let by_query = t.export(&imported.model_id, &[("objectIds", &id)]).await;
    let files = archive(&by_query);
    assert_eq!(
        native_ids(&files),
        keep,
        "the object and its descendants only"
    );
    let by_body = export_body(t, &json!({"modelId": imported.model_id, "objectIds": [id]})).await;
    assert_eq!(by_body.bytes, by_query.bytes, "objectIds as a JSON array");
    // Exporting a model object alone (modelId = the object) is the same selection.
    let by_object = t.export(&id, &[]).await;
    assert_eq!(
        by_object.bytes, by_query.bytes,
        "modelId naming a model object"
    );

    // Two objects, comma-separated, one of them by stable id.
    let other = sample
        .objects
        .iter()
        .map(|o| cell(o, "native_id"))
        .find(|n| !keep.contains(*n) && sample.path_is_unique(n));
    if let Some(other) = other {
        let other_id = object_id(t, &sample, &imported, other).await;
        let entity = t.entity(&other_id).await;
        let stable = entity.ok()["attributes"]
            .as_array()
            .and_then(|a| {
                a.iter()
                    .find(|a| a["attributeType"]["name"] == json!("Object Stable Id"))
            })
            .and_then(|a| a["value"].as_str())
            .expect("a stable id")
            .to_owned();
        let resp = t
            .export(
                &imported.model_id,
                &[("objectIds", &format!("{id}, {stable}"))],
            )
            .await;
        let natives = native_ids(&archive(&resp));
        assert!(
            natives.is_superset(&keep) && natives.contains(other),
            "{natives:?}"
        );
    }
    // An empty selection is no selection.
    let resp = t.export(&imported.model_id, &[("objectIds", "")]).await;
    assert_eq!(native_ids(&archive(&resp)).len(), sample.objects.len());
}

pub async fn export_import_export_is_byte_identical(t: &Target) {
    let sample = Sample::load();
    let (first_folder, _) = t.unique_folder("roundtrip-1").await;
    let resp = t
        .import(
            crate::harness::sample_archive(),
            &[("folderId", &first_folder)],
        )
        .await;
    let first = resp.ok()["modelId"].as_str().expect("modelId").to_owned();
    let first_export = t
        .export(&first, &[("exportDataProfilingAndSampling", "true")])
        .await;
    archive(&first_export);

    // Into a new model of the same name elsewhere.
    let (second_folder, _) = t.unique_folder("roundtrip-2").await;
    let resp = t
        .import(first_export.bytes.clone(), &[("folderId", &second_folder)])
        .await;
    assert_eq!(resp.ok()["modelName"], json!(sample.name));
    let second = resp.ok()["modelId"].as_str().expect("modelId").to_owned();
    let second_export = t
        .export(&second, &[("exportDataProfilingAndSampling", "true")])
        .await;
    assert_eq!(
        second_export.bytes, first_export.bytes,
        "export → import → export is byte-identical"
    );

    // Into the same model again.
    let resp = t
        .import(second_export.bytes.clone(), &[("modelId", &second)])
        .await;
    assert_eq!(resp.ok()["created"], json!(false));
    let third_export = t
        .export(&second, &[("exportDataProfilingAndSampling", "true")])
        .await;
    assert_eq!(
        third_export.bytes, first_export.bytes,
        "re-import → export is byte-identical"
    );
}

pub async fn export_unknown_model_is_404(t: &Target) {
    let resp = t.export("-1_999999999", &[]).await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = export_body(t, &json!({"modelId": "-1_999999999"})).await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t.export(&format!("/{}", unique("missing")), &[]).await;
    assert_error(&resp, 404, "INVALID_REPOSITORY_PATH");
    let imported = t.import_sample().await;
    let resp = t
        .export(&imported.model_id, &[("objectIds", "999999999_1")])
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
}

pub async fn export_bad_input(t: &Target) {
    let resp = t
        .send(t.call(Method::POST, "/repository/model/export").await)
        .await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let resp = export_body(t, &json!({})).await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let resp = export_body(t, &json!({"modelId": ""})).await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let (folder_id, _) = t.unique_folder("not-a-model").await;
    let resp = t.export(&folder_id, &[]).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t.export("not an id!", &[]).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let imported = t.import_sample().await;
    let resp = t
        .export(
            &imported.model_id,
            &[("exportDataProfilingAndSampling", "sometimes")],
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .export(&imported.model_id, &[("objectIds", "what?")])
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    // An object of another model, and a repository object, are not objects of this one.
    let other = t.import_sample().await;
    let resp = t
        .export(&imported.model_id, &[("objectIds", &folder_id)])
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let sample = Sample::load();
    let native = sample
        .objects
        .iter()
        .map(|o| cell(o, "native_id"))
        .find(|n| sample.path_is_unique(n))
        .expect("an object");
    let foreign = object_id(t, &sample, &other, native).await;
    let resp = t
        .export(&imported.model_id, &[("objectIds", &foreign)])
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = export_body(t, &json!({"modelId": imported.model_id, "objectIds": 5})).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .send(
            t.call(Method::POST, "/repository/model/export")
                .await
                .header(CONTENT_TYPE, "application/json")
                .body("{\"modelId\": \"-1_1\""),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .send(
            t.anon(Method::POST, "/repository/model/export")
                .query(&[("modelId", imported.model_id.as_str())]),
        )
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
}
