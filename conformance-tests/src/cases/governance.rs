//! Governance: data classes (and the deprecated semanticTypes paths), sensitivity labels
//! of objects, data profiling in both spellings, and the three rules that hide profiled
//! data (View Data, the Hide Data attribute, the Hide Data property of data classes).

use std::collections::BTreeMap;

use reqwest::Method;
use serde_json::{Value, json};

use super::denied::send_as;
use super::groups::{key_of, new_user};
use crate::harness::{Sample, Target, assert_error, cell, encode_segment, unique, unzip, zip_map};

const CLASSES: &str = "/repository/dataClasses/";
const LABELS: &str = "/repository/sensitivityLabels/";

/// A model imported from the sample, some of its files replaced.
struct Governed {
    model: String,
    /// The ids of the sample's objects (those with unique paths) by native id.
    ids: BTreeMap<String, String>,
}

async fn import_with(t: &Target, files: &[(&str, Vec<u8>)]) -> Governed {
    let sample = Sample::load();
    let mut archive = sample.files.clone();
    for (name, data) in files {
        archive.insert((*name).to_owned(), data.clone());
    }
    let (folder_id, folder) = t.unique_folder("governed").await;
    let name = unique("Governed");
    let resp = t
        .import(
            zip_map(&archive),
            &[("folderId", &folder_id), ("modelName", &name)],
        )
        .await;
    let model = resp.ok()["modelId"].as_str().expect("modelId").to_owned();
    let path = format!("/{folder}/{name}");
    let mut ids = BTreeMap::new();
    for row in &sample.objects {
        let native = cell(row, "native_id");
        if !sample.path_is_unique(native) {
            continue;
        }
        let full = format!("{path}/{}", sample.names_to(native).join("/"));
        let entity = t.entity(&full).await;
        ids.insert(
            native.to_owned(),
            entity.ok()["id"].as_str().expect("id").to_owned(),
        );
    }
    Governed { model, ids }
}

/// The native ids of the first `n` columns of the sample with unique paths.
fn columns(n: usize) -> Vec<String> {
    let sample = Sample::load();
    sample
        .objects
        .iter()
        .filter(|row| cell(row, "object_type") == "Column")
        .map(|row| cell(row, "native_id").to_owned())
        .filter(|native| sample.path_is_unique(native))
        .take(n)
        .collect()
}

fn csv(header: &[&str], rows: &[Vec<String>]) -> Vec<u8> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(header).expect("a header");
    for row in rows {
        writer.write_record(row).expect("a row");
    }
    writer.into_inner().expect("a CSV")
}

const PROFILE: &str = r#"{"totalProfiledRows":10,"statistics":{"DistinctRows":7}}"#;
const SAMPLE: &str = r#"{"header":["a"],"samples":[[1],[2]]}"#;

pub async fn data_classes_list_read_and_write(t: &Target) {
    t.import_sample().await;
    let resp = t.get(CLASSES).await;
    assert!(
        resp.ok_array()
            .iter()
            .any(|c| c["name"] == json!("Email Address")),
        "{}",
        resp.describe()
    );
    let name = unique("Tax Number");
    let path = format!("{CLASSES}{}", encode_segment(&name));
    let resp = t
        .put(
            &path,
            &[],
            &json!({"description": "National tax ids", "hideData": true, "definition": {"patterns": ["^[0-9]{9}$"]}}),
        )
        .await;
    assert_eq!(resp.ok()["id"], json!(name));
    assert_eq!(resp.ok()["hideData"], json!(true));
    let resp = t.get(&path).await;
    assert_eq!(resp.ok()["description"], json!("National tax ids"));
    assert_eq!(resp.ok()["definition"]["patterns"][0], json!("^[0-9]{9}$"));
    // Absent fields stay.
    let resp = t.put(&path, &[], &json!({"hideData": false})).await;
    assert_eq!(resp.ok()["description"], json!("National tax ids"));
    assert_eq!(resp.ok()["hideData"], json!(false));

    // The deprecated semanticTypes paths answer as dataClasses, marked deprecated.
    let old = format!("/repository/semanticTypes/{}", encode_segment(&name));
    for resp in [
        t.get("/repository/semanticTypes").await,
        t.get(&old).await,
        t.put(&old, &[], &json!({"description": "Tax ids"})).await,
    ] {
        assert_eq!(resp.status, 200, "{}", resp.describe());
        assert_eq!(
            resp.headers
                .get("deprecation")
                .and_then(|v| v.to_str().ok()),
            Some("true"),
            "{}",
            resp.describe()
        );
        let link = resp
            .headers
            .get("link")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default();
        assert!(link.contains("/repository/dataClasses/"), "{link}");
    }
    assert_eq!(t.get(&path).await.ok()["description"], json!("Tax ids"));
}

pub async fn data_classes_bad_input(t: &Target) {
    let nobody = encode_segment(&unique("no class"));
    for path in [
        format!("{CLASSES}{nobody}"),
        format!("/repository/semanticTypes/{nobody}"),
    ] {
        assert_error(&t.get(&path).await, 404, "OBJECT_NOT_FOUND");
    }
    let path = format!("{CLASSES}{}", encode_segment(&unique("Class")));
    // An array is not the object the body is, though serde would read it field by field.
    for body in [
        json!("not an object"),
        json!({"hideData": "yes"}),
        json!([null, null, null]),
    ] {
        assert_error(&t.put(&path, &[], &body).await, 400, "INVALID_PARAMETER");
        assert_error(
            &t.put(
                &path.replace(CLASSES, "/repository/semanticTypes/"),
                &[],
                &body,
            )
            .await,
            400,
            "INVALID_PARAMETER",
        );
    }
    assert_error(
        &t.put(&format!("{CLASSES}%20padded"), &[], &json!({})).await,
        400,
        "INVALID_PARAMETER",
    );
    // The lists need a key.
    for path in [CLASSES, "/repository/semanticTypes", LABELS] {
        let resp = t
            .send(t.anon(Method::GET, path).header("api-key", "nope"))
            .await;
        assert_error(&resp, 401, "AUTHENTICATION_ERROR");
    }
}

pub async fn sensitivity_labels_define_propose_approve(t: &Target) {
    let (low, high) = (unique("Internal"), unique("Secret"));
    for (name, position) in [(&low, 10), (&high, 90)] {
        let resp = t
            .put(
                LABELS,
                &[],
                &json!({"name": name, "position": position, "foregroundColor": "#fff", "backgroundColor": "#c00"}),
            )
            .await;
        assert_eq!(resp.ok()["position"], json!(position));
    }
    let list = t.get(LABELS).await;
    assert!(list.ok_array().iter().any(|l| l["name"] == json!(high)));

    let ids = import_with(t, &[]).await.ids;
    let column = &ids[&columns(1)[0]];
    let path = format!("{LABELS}{column}");
    let put = |label: &str, status: &str| {
        let body = json!({"label": label, "status": status});
        let path = path.clone();
        async move { t.put(&path, &[], &body).await }
    };
    let resp = put(&low, "PROPOSED").await;
    assert_eq!(
        resp.ok()["sensitivityLabel"],
        Value::Null,
        "a proposal is no label yet"
    );
    let resp = put(&low, "APPROVED").await;
    assert_eq!(resp.ok()["sensitivityLabel"], json!(low));
    let resp = put(&high, "APPROVED").await;
    assert_eq!(
        resp.ok()["sensitivityLabel"],
        json!(high),
        "the most restrictive"
    );
    let resp = put(&high, "REJECTED").await;
    assert_eq!(resp.ok()["sensitivityLabel"], json!(low));
    let resp = t.get(&path).await;
    let statuses: Vec<(String, String)> = resp.ok()["labels"]
        .as_array()
        .expect("labels")
        .iter()
        .map(|l| {
            (
                l["label"].as_str().unwrap_or_default().to_owned(),
                l["status"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert!(
        statuses.contains(&(low.clone(), "APPROVED".to_owned())),
        "{statuses:?}"
    );
    assert!(
        statuses.contains(&(high.clone(), "REJECTED".to_owned())),
        "{statuses:?}"
    );
    // MQL sees the same Sensitivity Label.
    let resp = t
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({"select": "\"Sensitivity Label\"", "where": format!("\"Object Id\" = '{column}'")}),
        )
        .await;
    assert_eq!(
        resp.ok_array()[0]["attributes"][0]["value"]["name"],
        json!(low),
        "{}",
        resp.describe()
    );
}

pub async fn sensitivity_labels_bad_input(t: &Target) {
    let ids = import_with(t, &[]).await.ids;
    let path = format!("{LABELS}{}", ids[&columns(1)[0]]);
    let label = unique("Label");
    t.put(LABELS, &[], &json!({"name": label})).await.ok();
    assert_error(
        &t.put(
            &path,
            &[],
            &json!({"label": unique("none"), "status": "PROPOSED"}),
        )
        .await,
        404,
        "OBJECT_NOT_FOUND",
    );
    for body in [
        json!({"label": label, "status": "MAYBE"}),
        json!({"label": label, "status": "MATCHED"}),
    ] {
        assert_error(&t.put(&path, &[], &body).await, 400, "INVALID_PARAMETER");
    }
    assert_error(
        &t.put(&path, &[], &json!({"status": "APPROVED"})).await,
        400,
        "REQUIRED_PARAMETER_NOT_SPECIFIED",
    );
    assert_error(
        &t.get(&format!("{LABELS}-1_999999999")).await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert_error(
        &t.put(
            &format!("{LABELS}-1_999999999"),
            &[],
            &json!({"label": label}),
        )
        .await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert_error(
        &t.put(LABELS, &[], &json!({"position": 3})).await,
        400,
        "REQUIRED_PARAMETER_NOT_SPECIFIED",
    );
    assert_error(
        &t.put(LABELS, &[], &json!({"name": label, "position": "high"}))
            .await,
        400,
        "INVALID_PARAMETER",
    );
}

pub async fn data_profiling_read_and_write(t: &Target) {
    let ids = import_with(t, &[]).await.ids;
    let cols = columns(2);
    let (a, b) = (&ids[&cols[0]], &ids[&cols[1]]);
    let label = unique("Restricted");
    t.put(LABELS, &[], &json!({"name": label, "position": 50}))
        .await
        .ok();

    let resp = t
        .put(
            &format!("/entities/DataProfiling/{a}"),
            &[],
            &json!({
                "dataProfile": {"totalProfiledRows": 10, "totalSemanticTypeRows": 3, "inferredSemanticTypes": ["x"],
                    "statistics": {"DistinctRows": 7}},
                "dataSample": {"header": ["a"], "samples": [[1], [2]]},
            }),
        )
        .await;
    let record = resp.ok().clone();
    assert_eq!(record["objectId"], json!(a));
    assert_eq!(
        record["dataProfile"]["statistics"]["DistinctRows"],
        json!(7)
    );
    assert_eq!(record["dataSample"]["header"], json!(["a"]));
    assert_eq!(record["dataHidden"], json!(false));
    // The deprecated fields of spec 2.5 are ignored on input and absent on output.
    for field in [
        "totalSemanticTypeRows",
        "invalidSemanticTypeValues",
        "inferredSemanticTypes",
    ] {
        assert!(
            record["dataProfile"].get(field).is_none(),
            "{field}: {record}"
        );
    }
    // Both spellings read the same record.
    for path in [
        format!("/entities/DataProfiling/{a}"),
        format!("/entities/Dataprofiling/{a}"),
    ] {
        assert_eq!(t.get(&path).await.ok(), &record, "{path}");
    }
    // A null part is removed, an absent one kept.
    let resp = t
        .put(
            &format!("/entities/Dataprofiling/{a}"),
            &[],
            &json!({"dataSample": null}),
        )
        .await;
    assert_eq!(resp.ok()["dataSample"], Value::Null);
    assert_eq!(resp.ok()["dataProfile"]["totalProfiledRows"], json!(10));

    // POST proposes a label (query or body), in both spellings.
    let resp = t
        .post(
            &format!("/entities/Dataprofiling/{b}"),
            &[("sensitivityLabel", &label)],
            &json!({"dataProfile": {"totalProfiledRows": 5}}),
        )
        .await;
    assert_eq!(resp.ok()["dataProfile"]["totalProfiledRows"], json!(5));
    let labels = t.get(&format!("{LABELS}{b}")).await;
    assert_eq!(
        labels.ok()["labels"],
        json!([{"label": label, "status": "PROPOSED"}])
    );
    let resp = t
        .post(
            &format!("/entities/DataProfiling/{b}"),
            &[],
            &json!({"hideData": true}),
        )
        .await;
    assert_eq!(
        resp.ok()["hideData"],
        json!(true),
        "the deprecated hideData"
    );
    // Set again to what it is: nothing to change, the record as it is.
    let again = t
        .post(
            &format!("/entities/DataProfiling/{b}"),
            &[],
            &json!({"hideData": true}),
        )
        .await;
    assert_eq!(again.ok()["hideData"], json!(true), "{}", again.describe());
}

pub async fn data_profiling_bad_input(t: &Target) {
    let governed = import_with(t, &[]).await;
    let (model, ids) = (governed.model, governed.ids);
    let a = &ids[&columns(1)[0]];
    for path in [
        format!("/entities/DataProfiling/{a}"),
        format!("/entities/Dataprofiling/{a}"),
    ] {
        for method in [Method::PUT, Method::POST] {
            let send = |body: Value, query: Vec<(&'static str, &'static str)>| {
                let path = path.clone();
                let method = method.clone();
                async move {
                    t.send(t.call(method, &path).await.query(&query).json(&body))
                        .await
                }
            };
            assert_error(
                &send(json!({}), vec![]).await,
                400,
                "REQUIRED_PARAMETER_NOT_SPECIFIED",
            );
            assert_error(
                &send(json!({"dataProfile": {"statistics": "many"}}), vec![]).await,
                400,
                "INVALID_PARAMETER",
            );
            assert_error(
                &send(json!({"hideData": "yes"}), vec![]).await,
                400,
                "INVALID_PARAMETER",
            );
            assert_error(
                &send(json!({}), vec![("hideData", "maybe")]).await,
                400,
                "INVALID_PARAMETER",
            );
            assert_error(
                &send(
                    json!({}),
                    vec![("sensitivityLabel", "no such label at all")],
                )
                .await,
                404,
                "OBJECT_NOT_FOUND",
            );
        }
        assert_error(
            &t.get(&path.replace(a.as_str(), "-1_999999999")).await,
            404,
            "OBJECT_NOT_FOUND",
        );
    }
    // A model is no column.
    let resp = t
        .put(
            &format!("/entities/DataProfiling/{model}"),
            &[],
            &json!({"dataProfile": {"totalProfiledRows": 1}}),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    for path in [
        "/entities/DataProfiling/not%20an%20id!",
        "/entities/Dataprofiling/not%20an%20id!",
    ] {
        assert_error(&t.get(path).await, 400, "INVALID_PARAMETER");
    }
}

/// Users without the capabilities: no writes without Edit Metadata, Curate or Manage Meta
/// Model; no reads without View Metadata.
pub async fn governance_without_capabilities_is_denied(t: &Target) {
    let ids = import_with(t, &[]).await.ids;
    let a = ids[&columns(1)[0]].clone();
    let label = unique("Label");
    t.put(LABELS, &[], &json!({"name": label})).await.ok();
    let viewer = t.key_with_roles(&["Metadata Viewer"]).await;
    let class = encode_segment("Email Address");
    let writes: Vec<(Method, String, Value)> = vec![
        (
            Method::PUT,
            format!("{CLASSES}{class}"),
            json!({"hideData": true}),
        ),
        (
            Method::PUT,
            format!("/repository/semanticTypes/{class}"),
            json!({"hideData": true}),
        ),
        (
            Method::PUT,
            LABELS.to_owned(),
            json!({"name": unique("Mine")}),
        ),
        (Method::PUT, format!("{LABELS}{a}"), json!({"label": label})),
        (
            Method::PUT,
            format!("/entities/DataProfiling/{a}"),
            json!({"dataProfile": {}}),
        ),
        (
            Method::POST,
            format!("/entities/DataProfiling/{a}"),
            json!({"dataProfile": {}}),
        ),
        (
            Method::PUT,
            format!("/entities/Dataprofiling/{a}"),
            json!({"dataProfile": {}}),
        ),
        (
            Method::POST,
            format!("/entities/Dataprofiling/{a}"),
            json!({"dataProfile": {}}),
        ),
    ];
    for (method, path, body) in writes {
        let resp = send_as(t, &viewer, method, &path, &[], Some(body)).await;
        assert_error(&resp, 403, "PERMISSION_DENIED");
    }
    let nobody = t.key_with_roles(&[]).await;
    for path in [
        CLASSES.to_owned(),
        format!("{CLASSES}{class}"),
        "/repository/semanticTypes".to_owned(),
        format!("/repository/semanticTypes/{class}"),
        LABELS.to_owned(),
        format!("{LABELS}{a}"),
        format!("/entities/DataProfiling/{a}"),
        format!("/entities/Dataprofiling/{a}"),
    ] {
        let resp = send_as(t, &nobody, Method::GET, &path, &[], None).await;
        assert_error(&resp, 403, "PERMISSION_DENIED");
    }
    // Proposing needs Edit Metadata; approving Curate, which a Steward has and an
    // editor role without Curate does not.
    let editor = unique("Editor");
    t.put(
        "/admin/roles",
        &[],
        &json!({"name": editor, "global": true, "capabilities": ["ViewMetadata", "EditMetadata"]}),
    )
    .await
    .ok();
    let (user, name) = new_user(t, "editor").await;
    t.put(
        "/admin/grants/grantGlobalRoles",
        &[],
        &json!({"grantee": user, "role": editor}),
    )
    .await
    .ok();
    let key = key_of(t, &name).await;
    let path = format!("{LABELS}{a}");
    let resp = send_as(
        t,
        &key,
        Method::PUT,
        &path,
        &[],
        Some(json!({"label": label, "status": "PROPOSED"})),
    )
    .await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    let resp = send_as(
        t,
        &key,
        Method::PUT,
        &path,
        &[],
        Some(json!({"label": label, "status": "APPROVED"})),
    )
    .await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
}

/// Every combination of the three rules of spec 5.7 — the caller's View Data (none,
/// global, through an object role on the model), the object's Hide Data attribute, a
/// current data class that hides data — decides whether the profiling shows, alike in
/// GET DataProfiling, MQL select, MQL filters, facets and export.
pub async fn hidden_data_follows_view_data_hide_data_and_data_classes(t: &Target) {
    let cols = columns(5);
    let class = unique("Hidden Class");
    // Column 0: nothing hides; 1: Hide Data; 2: a matched hiding class; 3: both;
    // 4: the hiding class only proposed, which hides nothing.
    let rules: [(bool, Option<&str>); 5] = [
        (false, None),
        (true, None),
        (false, Some("MATCHED")),
        (true, Some("APPROVED")),
        (false, Some("PROPOSED")),
    ];
    let classifications: Vec<Vec<String>> = cols
        .iter()
        .zip(rules)
        .filter_map(|(native, (_, status))| {
            status.map(|s| vec![native.clone(), class.clone(), s.to_owned()])
        })
        .collect();
    let profiling: Vec<Vec<String>> = cols
        .iter()
        .map(|native| vec![native.clone(), PROFILE.to_owned(), SAMPLE.to_owned()])
        .collect();
    let governed = import_with(
        t,
        &[
            (
                "classifications.csv",
                csv(&["native_id", "data_class", "status"], &classifications),
            ),
            (
                "profiling.csv",
                csv(&["native_id", "data_profile", "data_sample"], &profiling),
            ),
        ],
    )
    .await;
    // The users below hold roles on the model, not on its folder: to them the model's
    // path names nothing (the folder does not exist for them), its id names it.
    let (model, ids) = (governed.model, governed.ids);
    t.put(
        &format!("{CLASSES}{}", encode_segment(&class)),
        &[],
        &json!({"hideData": true}),
    )
    .await
    .ok();
    for (native, (flag, _)) in cols.iter().zip(rules) {
        if flag {
            t.put(
                &format!("/entities/DataProfiling/{}", ids[native]),
                &[("hideData", "true")],
                &json!({}),
            )
            .await
            .ok();
        }
    }
    let hides: Vec<bool> = rules
        .iter()
        .map(|(flag, status)| *flag || matches!(status, Some("MATCHED" | "APPROVED")))
        .collect();

    // The three callers.
    let none = t.key_with_roles(&["Metadata Viewer"]).await;
    let reader_role = unique("Data Reader");
    t.put(
        "/admin/roles",
        &[],
        &json!({"name": reader_role, "global": true, "capabilities": ["ViewMetadata", "ViewData"]}),
    )
    .await
    .ok();
    let (reader, reader_name) = new_user(t, "reader").await;
    t.put(
        "/admin/grants/grantGlobalRoles",
        &[],
        &json!({"grantee": reader, "role": reader_role}),
    )
    .await
    .ok();
    let global = key_of(t, &reader_name).await;
    let (steward, steward_name) = new_user(t, "steward").await;
    t.put(
        &format!("/admin/grants/grantObjectRole/{model}"),
        &[],
        &json!({"grantee": steward, "role": "Data Viewer"}),
    )
    .await
    .ok();
    let on_object = key_of(t, &steward_name).await;

    for (who, key, views) in [
        ("none", &none, false),
        ("global", &global, true),
        ("object", &on_object, true),
    ] {
        let mut visible_count = 0;
        for (i, native) in cols.iter().enumerate() {
            let id = &ids[native];
            let shown = views || !hides[i];
            if shown {
                visible_count += 1;
            }
            let what = format!("{who}, column {i}");
            // GET DataProfiling
            let resp = send_as(
                t,
                key,
                Method::GET,
                &format!("/entities/DataProfiling/{id}"),
                &[],
                None,
            )
            .await;
            let record = resp.ok();
            assert_eq!(record["dataHidden"], json!(!shown), "{what}: {record}");
            assert_eq!(record["dataProfile"].is_null(), !shown, "{what}: {record}");
            assert_eq!(record["dataSample"].is_null(), !shown, "{what}: {record}");
            // MQL select
            let resp = send_as(
                t,
                key,
                Method::POST,
                "/entities/executeMQLQuery",
                &[],
                Some(json!({"select": "\"Data Profiling\".Distinct", "where": format!("\"Object Id\" = '{id}'")})),
            )
            .await;
            let value = &resp.ok_array()[0]["attributes"][0]["value"];
            assert_eq!(value == &json!(7), shown, "{what}: {}", resp.describe());
            // The entity read with a SELECT.
            let resp = send_as(
                t,
                key,
                Method::GET,
                &format!("/entities/{id}"),
                &[("select", "\"Data Profiling\".Distinct")],
                None,
            )
            .await;
            let value = &resp.ok()["attributes"][0]["value"];
            assert_eq!(
                value == &json!(7),
                shown,
                "{what}, entity: {}",
                resp.describe()
            );
        }
        // MQL filter and count: only the objects whose data shows pass.
        let resp = send_as(
            t,
            key,
            Method::GET,
            "/entities/countMQLQuery",
            &[
                ("select", "Name"),
                ("from", &model),
                ("where", "\"Data Profiling\".Distinct = 7"),
            ],
            None,
        )
        .await;
        assert_eq!(
            resp.ok(),
            &json!(visible_count),
            "{who}: {}",
            resp.describe()
        );
        // Facets count only what shows.
        let resp = send_as(
            t,
            key,
            Method::POST,
            "/entities/getAttributeValueCounts",
            &[],
            Some(json!({"select": "\"Data Profiling\".Distinct", "from": &model})),
        )
        .await;
        let counted: u64 = resp.ok_array()[0]["values"]
            .as_array()
            .expect("values")
            .iter()
            .map(|v| v["count"].as_u64().unwrap_or(0))
            .sum();
        assert_eq!(counted, visible_count, "{who}: {}", resp.describe());
        // Export with profiling.
        let resp = t
            .send(
                t.anon(Method::POST, "/repository/model/export")
                    .header("api-key", key.as_str())
                    .query(&[
                        ("modelId", model.as_str()),
                        ("exportDataProfilingAndSampling", "true"),
                    ]),
            )
            .await;
        assert_eq!(resp.status, 200, "{who}: {}", resp.describe());
        let files = unzip(&resp.bytes);
        let rows = files
            .get("profiling.csv")
            .map(|data| csv::Reader::from_reader(data.as_slice()).records().count())
            .unwrap_or(0);
        assert_eq!(rows as u64, visible_count, "{who}: exported profiling rows");
    }
}
