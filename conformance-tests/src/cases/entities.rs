//! GET /entities/{objectId}: by id, stable id and repository path, in the legacy format.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::harness::{Imported, Sample, Target, assert_error, cell, encode_segment, unique};

/// The attribute of that name in an entity's attributes: (type, value).
fn attribute<'a>(entity: &'a Value, name: &str) -> Option<(&'a str, &'a Value)> {
    entity["attributes"]
        .as_array()?
        .iter()
        .find(|a| a["attributeType"]["name"] == json!(name))
        .map(|a| {
            (
                a["attributeType"]["type"].as_str().unwrap_or_default(),
                &a["value"],
            )
        })
}

/// The repository path of a sample object inside an imported model.
fn path_of(sample: &Sample, imported: &Imported, native_id: &str) -> String {
    format!("{}/{}", imported.path, sample.names_to(native_id).join("/"))
}

/// The qualified names of every object type, from listObjectTypes.
async fn known_types(t: &Target) -> Vec<String> {
    let resp = t.get("/types/listObjectTypes").await;
    resp.ok_array()
        .iter()
        .filter_map(|o| o["name"].as_str().map(str::to_owned))
        .collect()
}

/// The qualified object type the server should give a sample row.
fn expected_type(sample: &Sample, row: &BTreeMap<String, String>, known: &[String]) -> String {
    let text = cell(row, "object_type");
    let in_profile = format!("{}.{text}", sample.profile);
    if known.contains(&in_profile) {
        return in_profile;
    }
    if known.iter().any(|k| k == text) {
        return text.to_owned();
    }
    let suffix = format!(".{text}");
    let matching: Vec<&String> = known.iter().filter(|k| k.ends_with(&suffix)).collect();
    match matching.as_slice() {
        [only] => (*only).clone(),
        _ => in_profile,
    }
}

pub async fn entity_by_id_stable_id_and_path(t: &Target) {
    let sample = Sample::load();
    let imported = t.import_sample().await;
    let mut checked = 0;
    for row in &sample.objects {
        let native = cell(row, "native_id");
        if !sample.path_is_unique(native) {
            continue;
        }
        let path = path_of(&sample, &imported, native);
        let by_path = t.entity(&path).await;
        let entity = by_path.ok().clone();
        let id = entity["id"].as_str().expect("id").to_owned();
        let model_number = imported.model_id.trim_start_matches("-1_");
        assert_eq!(
            id.split_once('_').map(|(m, _)| m),
            Some(model_number),
            "a model object's id is <model>_<object>: {entity}"
        );
        let by_id = t.entity(&id).await;
        assert_eq!(by_id.ok(), &entity, "by id {id} and by path {path}");
        let (_, stable) =
            attribute(&entity, "Object Stable Id").expect("an Object Stable Id attribute");
        let stable = stable.as_str().expect("a stable id is text").to_owned();
        assert!(
            stable
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_'),
            "stable ids are URL-safe Base64: {stable}"
        );
        let by_stable = t.entity(&stable).await;
        assert_eq!(by_stable.ok(), &entity, "by stable id {stable}");
        checked += 1;
    }
    assert!(checked > 0, "the sample has objects with unambiguous paths");
    // The model itself, by id and by path.
    let resp = t.entity(&imported.model_id).await;
    let model = resp.ok().clone();
    assert_eq!(model["name"], json!(imported.model_name));
    assert_eq!(model["objectType"]["displayName"], json!("Model"));
    assert_eq!(model["parentId"], json!(imported.folder_id));
    assert_eq!(t.entity(&imported.path).await.ok(), &model);
}

pub async fn entity_fields_match_sample(t: &Target) {
    let sample = Sample::load();
    let known = known_types(t).await;
    let imported = t.import_sample().await;
    let attributes = sample.rows("attributes.csv");
    let relationships = sample.rows("relationships.csv");
    let labels = sample.rows("labels.csv");
    let classifications = sample.rows("classifications.csv");

    // Ids by native id, for parents and terms.
    let mut ids: BTreeMap<String, String> = BTreeMap::new();
    let mut entities: BTreeMap<String, Value> = BTreeMap::new();
    for row in &sample.objects {
        let native = cell(row, "native_id").to_owned();
        if !sample.path_is_unique(&native) {
            continue;
        }
        let resp = t.entity(&path_of(&sample, &imported, &native)).await;
        let entity = resp.ok().clone();
        ids.insert(
            native.clone(),
            entity["id"].as_str().expect("id").to_owned(),
        );
        entities.insert(native, entity);
    }
    assert!(!entities.is_empty());

    for (native, entity) in &entities {
        let row = sample.object(native).expect("a sample row");
        let context = format!("object '{native}': {entity}");
        // id, name, objectType, entityType.
        assert_eq!(entity["name"], json!(cell(row, "name")), "{context}");
        let qualified = expected_type(&sample, row, &known);
        let display = qualified
            .rsplit_once('.')
            .map(|(_, n)| n)
            .unwrap_or_default();
        assert_eq!(
            entity["objectType"],
            json!({"name": qualified, "displayName": display}),
            "{context}"
        );
        assert_eq!(entity["entityType"], entity["objectType"], "{context}");
        // parentId: the parent object, or the model for a top-level object.
        let parent = cell(row, "parent_native_id");
        let expected_parent = if parent.is_empty() {
            Some(imported.model_id.clone())
        } else {
            ids.get(parent).cloned()
        };
        if let Some(p) = expected_parent {
            assert_eq!(entity["parentId"], json!(p), "{context}");
        }
        // System attributes from objects.csv's columns.
        let system = [
            ("Name", "name"),
            ("Native Id", "native_id"),
            ("Physical Name", "physical_name"),
            ("Description", "description"),
            ("Business Name", "business_name"),
            ("Business Description", "business_description"),
            ("Data Type", "data_type"),
            ("External Url", "external_url"),
            ("Workflow State", "workflow_state"),
        ];
        for (attribute_name, column) in system {
            let value = cell(row, column);
            let found = attribute(entity, attribute_name);
            if value.is_empty() {
                assert!(
                    found.is_none_or(|(_, v)| v.is_null() || v == &json!("")),
                    "{attribute_name} of {context}"
                );
            } else {
                let (kind, found) =
                    found.unwrap_or_else(|| panic!("no {attribute_name} in {context}"));
                assert_eq!(kind, "SYSTEM_ATTRIBUTE", "{attribute_name} of {context}");
                assert_eq!(found, &json!(value), "{attribute_name} of {context}");
            }
        }
        assert_eq!(
            attribute(entity, "Object Id").map(|(_, v)| v),
            Some(&entity["id"]),
            "{context}"
        );
        for a in entity["attributes"].as_array().expect("attributes") {
            let t = &a["attributeType"];
            assert!(
                t["name"].is_string() && t["displayName"].is_string() && t["type"].is_string(),
                "attributeType {{name, displayName, type}}: {a}"
            );
        }
        // Custom and profile attributes from attributes.csv.
        for a in attributes.iter().filter(|a| cell(a, "native_id") == native) {
            let name = cell(a, "attribute");
            let (kind, value) = attribute(entity, name)
                .unwrap_or_else(|| panic!("no attribute '{name}' in {context}"));
            assert!(
                ["CUSTOM_ATTRIBUTE", "ATTRIBUTE", "UDP"].contains(&kind),
                "attribute '{name}' has type {kind} in {context}"
            );
            let text = cell(a, "value");
            match cell(a, "value_type").to_ascii_lowercase().as_str() {
                "integer" => assert_eq!(
                    value.as_i64(),
                    text.trim().parse::<i64>().ok(),
                    "{name} of {context}"
                ),
                "double" => assert_eq!(
                    value.as_f64(),
                    text.trim().parse::<f64>().ok(),
                    "{name} of {context}"
                ),
                "boolean" => assert_eq!(
                    value.as_bool(),
                    Some(text.trim().eq_ignore_ascii_case("true")),
                    "{name} of {context}"
                ),
                "date" | "datetime" => assert!(
                    value
                        .as_str()
                        .is_some_and(|v| v.starts_with(&text.trim()[..10.min(text.trim().len())])),
                    "{name} of {context}"
                ),
                _ => assert_eq!(value, &json!(text), "{name} of {context}"),
            }
        }
        // labels: the label tags of labels.csv.
        let mut expected_labels: Vec<&str> = labels
            .iter()
            .filter(|l| {
                cell(l, "native_id") == native && cell(l, "kind").eq_ignore_ascii_case("label")
            })
            .map(|l| cell(l, "value"))
            .collect();
        expected_labels.sort_unstable();
        let mut found_labels: Vec<&str> = entity["labels"]
            .as_array()
            .expect("labels is an array")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        found_labels.sort_unstable();
        assert_eq!(found_labels, expected_labels, "labels of {context}");
        // dataClassifications (== semanticTypes): matched and approved data classes.
        let mut expected_classes: Vec<&str> = classifications
            .iter()
            .filter(|c| cell(c, "native_id") == native)
            .filter(|c| {
                ["MATCHED", "APPROVED"].contains(&cell(c, "status").to_ascii_uppercase().as_str())
            })
            .map(|c| cell(c, "data_class"))
            .collect();
        expected_classes.sort_unstable();
        let mut found_classes: Vec<&str> = entity["dataClassifications"]
            .as_array()
            .expect("dataClassifications is an array")
            .iter()
            .filter_map(Value::as_str)
            .collect();
        found_classes.sort_unstable();
        assert_eq!(
            found_classes, expected_classes,
            "dataClassifications of {context}"
        );
        assert_eq!(
            entity["semanticTypes"], entity["dataClassifications"],
            "{context}"
        );
        // terms / term: the objects that define it.
        let expected_terms: BTreeSet<&str> = relationships
            .iter()
            .filter(|r| cell(r, "source_native_id") == native)
            .filter(|r| {
                let kind = cell(r, "kind").to_ascii_lowercase();
                kind == "semantic_link"
                    || (kind == "custom_relationship" && cell(r, "name") == "Is Defined By")
            })
            .map(|r| cell(r, "target_native_id"))
            .collect();
        let terms = entity["terms"].as_array().expect("terms is an array");
        let found_terms: BTreeSet<String> = terms
            .iter()
            .map(|term| {
                assert!(
                    term["id"].is_string()
                        && term["name"].is_string()
                        && term["objectType"]["name"].is_string(),
                    "a term is an embedded entity: {term}"
                );
                term["id"].as_str().unwrap_or_default().to_owned()
            })
            .collect();
        let expected_ids: BTreeSet<String> = expected_terms
            .iter()
            .filter_map(|n| ids.get(*n).cloned())
            .collect();
        if expected_ids.len() == expected_terms.len() {
            assert_eq!(found_terms, expected_ids, "terms of {context}");
        }
        if terms.is_empty() {
            assert!(entity["term"].is_null(), "no term without terms: {context}");
        } else {
            let names: Vec<&str> = terms.iter().filter_map(|t| t["name"].as_str()).collect();
            assert!(
                entity["term"].as_str().is_some_and(|t| names.contains(&t)),
                "term is one of terms' names: {context}"
            );
        }
    }
}

pub async fn entity_of_repository_objects(t: &Target) {
    let (folder_id, folder) = t.unique_folder("entity").await;
    let configuration = t.create(Some(&folder_id), "Config", "Configuration").await;
    for (reference, name, kind) in [
        (folder_id.clone(), folder.clone(), "Folder"),
        (format!("/{folder}"), folder.clone(), "Folder"),
        (configuration.clone(), "Config".to_owned(), "Configuration"),
        (
            format!("/{folder}/Config"),
            "Config".to_owned(),
            "Configuration",
        ),
    ] {
        let resp = t.entity(&reference).await;
        let entity = resp.ok();
        assert_eq!(entity["name"], json!(name), "{entity}");
        assert_eq!(
            entity["objectType"]["name"],
            json!(format!("Repository.{kind}")),
            "{entity}"
        );
        assert_eq!(entity["objectType"]["displayName"], json!(kind), "{entity}");
        assert_eq!(entity["entityType"], entity["objectType"], "{entity}");
        for list in [
            "labels",
            "terms",
            "dataClassifications",
            "semanticTypes",
            "attributes",
        ] {
            assert!(entity[list].is_array(), "{list} is an array: {entity}");
        }
    }
}

pub async fn entity_unknown_is_404(t: &Target) {
    for id in ["-1_999999999", "999999999_1", "1_999999999"] {
        let resp = t.entity(id).await;
        assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    }
    // A well-formed stable id no object has.
    let resp = t.entity(&encode_base64(&unique("999999:nothing"))).await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t.entity(&format!("/{}/x", unique("missing"))).await;
    assert_error(&resp, 404, "INVALID_REPOSITORY_PATH");
    // An existing model, but no such object in it.
    let imported = t.import_sample().await;
    let resp = t
        .entity(&format!("{}/{}", imported.path, unique("none")))
        .await;
    assert_error(&resp, 404, "INVALID_REPOSITORY_PATH");
}

pub async fn entity_malformed_is_400(t: &Target) {
    for id in ["not an id!", "a*b", "1_2;drop", "%"] {
        let resp = t.entity(id).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    let resp = t.entity(" ").await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .get_q(&format!("/entities/{}", encode_segment("/a//b")), &[])
        .await;
    assert_error(&resp, 404, "INVALID_REPOSITORY_PATH");
    let (folder_id, _) = t.unique_folder("malformed").await;
    let resp = t
        .get_q(
            &format!("/entities/{folder_id}"),
            &[("mqlVersion", "three")],
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .send(t.anon(reqwest::Method::GET, &format!("/entities/{folder_id}")))
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
}

/// URL-safe Base64 without padding.
fn encode_base64(text: &str) -> String {
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    let bytes = text.as_bytes();
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
        let chars = chunk.len() + 1;
        for i in 0..chars {
            out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
        }
    }
    out
}

pub async fn entity_terms_labels_and_classes(t: &Target) {
    // The city column of the sample gets three defining terms (two semantic links and a
    // custom "Is Defined By" relationship), a label and a collection, and data classes in
    // every status. Zulu is imported before Alpha, so id order is not name order.
    let sample = Sample::load();
    let city = sample
        .objects
        .iter()
        .map(|o| cell(o, "native_id"))
        .find(|n| {
            sample.path_is_unique(n)
                && !cell(sample.object(n).expect("row"), "parent_native_id").is_empty()
        })
        .expect("a sample object inside another")
        .to_owned();
    let customer_term = sample
        .objects
        .iter()
        .find(|o| cell(o, "object_type").ends_with("Term"))
        .map(|o| (cell(o, "native_id").to_owned(), cell(o, "name").to_owned()));
    let objects =
        crate::cases::import::rewrite_csv(&sample.files["objects.csv"], |header, rows| {
            let column = |name: &str| header.iter().position(|h| h == name).expect("a column");
            for (native, name) in [("conformance.zulu", "Zulu"), ("conformance.alpha", "Alpha")] {
                let mut row = vec![String::new(); header.len()];
                row[column("native_id")] = native.to_owned();
                row[column("object_type")] = "Business Glossary.Term".to_owned();
                row[column("name")] = name.to_owned();
                rows.push(row);
            }
        });
    let mut relationships = String::from_utf8(
        sample
            .files
            .get("relationships.csv")
            .cloned()
            .unwrap_or_else(|| b"kind,name,source_native_id,target_native_id\n".to_vec()),
    )
    .expect("UTF-8");
    relationships.push_str(&format!(
        "semantic_link,Is Defined By,{city},conformance.zulu\n"
    ));
    relationships.push_str(&format!(
        "semantic_link,Is Defined By,{city},conformance.alpha\n"
    ));
    if let Some((term, _)) = &customer_term {
        relationships.push_str(&format!(
            "custom_relationship,Is Defined By,{city},{term}\n"
        ));
    }
    // Not a definition: another relationship name.
    relationships.push_str(&format!(
        "custom_relationship,Is Related To,{city},conformance.zulu\n"
    ));
    let mut labels = String::from("native_id,kind,value\n");
    labels.push_str(&format!(
        "{city},label,Geo\n{city},label,Alpha Label\n{city},collection,Things\n"
    ));
    let mut classes = String::from("native_id,data_class,status\n");
    classes.push_str(&format!("{city},City,APPROVED\n{city},Address,MATCHED\n{city},Postal Code,REJECTED\n{city},Region,PROPOSED\n"));
    let mut files = sample.with_file("objects.csv", Some(objects));
    files.insert("relationships.csv".into(), relationships.into_bytes());
    files.insert("labels.csv".into(), labels.into_bytes());
    files.insert("classifications.csv".into(), classes.into_bytes());
    files.remove("sensitivity_labels.csv");
    files.remove("attributes.csv");
    let (folder_id, folder) = t.unique_folder("terms").await;
    let resp = t
        .import(crate::harness::zip_map(&files), &[("folderId", &folder_id)])
        .await;
    resp.ok();
    let model_path = format!("/{folder}/{}", sample.name);
    let path = format!("{model_path}/{}", sample.names_to(&city).join("/"));
    let entity = t.entity(&path).await.ok().clone();

    let mut expected_names = vec!["Alpha", "Zulu"];
    if let Some((_, name)) = &customer_term {
        expected_names.push(name.as_str());
    }
    let mut term_names: Vec<&str> = entity["terms"]
        .as_array()
        .expect("terms")
        .iter()
        .map(|term| term["name"].as_str().expect("a term name"))
        .collect();
    term_names.sort_unstable();
    expected_names.sort_unstable();
    assert_eq!(
        term_names, expected_names,
        "terms: the defining terms only: {entity}"
    );
    for term in entity["terms"].as_array().expect("terms") {
        assert_eq!(
            term["objectType"]["name"],
            json!("Business Glossary.Term"),
            "{term}"
        );
        let by_id = t.entity(term["id"].as_str().expect("id")).await;
        assert_eq!(
            by_id.ok()["name"],
            term["name"],
            "a term's id names the term"
        );
    }
    assert_eq!(
        entity["term"],
        json!(expected_names[0]),
        "term is the first of terms by name: {entity}"
    );
    let mut labels: Vec<&str> = entity["labels"]
        .as_array()
        .expect("labels")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    labels.sort_unstable();
    assert_eq!(
        labels,
        vec!["Alpha Label", "Geo"],
        "labels: label tags, not collections: {entity}"
    );
    let mut classes: Vec<&str> = entity["dataClassifications"]
        .as_array()
        .expect("dataClassifications")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    classes.sort_unstable();
    assert_eq!(
        classes,
        vec!["Address", "City"],
        "matched and approved data classes only: {entity}"
    );
    assert_eq!(entity["semanticTypes"], entity["dataClassifications"]);
}

/// The route checks its key itself, in the same store read as the object
/// (`SELF_CHECKED_ROUTES`): a key it has answered before stops at once when its session
/// ends, and a bad key answers 401 before any bad input answers 400.
pub async fn entity_key_checked_before_anything_else(t: &Target) {
    let (folder_id, _) = t.unique_folder("checked").await;
    let key = t.login().await;
    let as_key = |key: &str, query: &[(&str, &str)]| {
        t.anon(reqwest::Method::GET, &format!("/entities/{folder_id}"))
            .header("api-key", key.to_owned())
            .query(query)
    };
    for _ in 0..2 {
        let resp = t.send(as_key(&key, &[])).await;
        assert_eq!(resp.ok()["id"], json!(folder_id), "{}", resp.describe());
    }
    let resp = t.send(as_key(&key, &[("mqlVersion", "9")])).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .send(
            t.anon(reqwest::Method::POST, "/auth/logout")
                .header("api-key", key.clone()),
        )
        .await;
    resp.ok();
    for query in [
        &[][..],
        &[("mqlVersion", "9")][..],
        &[("select", "Name")][..],
        &[("select", "No Such Thing ((")][..],
    ] {
        for bad in [key.as_str(), "not-a-key"] {
            let resp = t.send(as_key(bad, query)).await;
            assert_error(&resp, 401, "AUTHENTICATION_ERROR");
        }
    }
    let resp = t
        .send(
            t.anon(reqwest::Method::GET, "/entities/not%20an%20id!")
                .header("api-key", "x"),
        )
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
}
