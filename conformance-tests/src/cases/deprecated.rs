//! Methods deprecated in 11.0 and 11.1 (spec section 9): every one of
//! `lore_server::DEPRECATED_METHODS` answers as its replacement does, with `Deprecation:
//! true` and a `Link` to the replacement. One table drives the calls: a method missing
//! from it fails the case.

use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use serde_json::{Value, json};

use super::denied::send_as;
use super::{B, Case, D, N, Needs};
use crate::harness::{
    Imported, Resp, Target, assert_error, encode_segment, sample_archive, unique,
};

fn method(name: &str) -> Method {
    Method::from_bytes(name.as_bytes()).expect("an HTTP method")
}

#[track_caller]
fn assert_marked(resp: &Resp, verb: &str, path: &str, replacement: &str) {
    assert!(
        (200..300).contains(&resp.status),
        "{verb} {path} works: {}",
        resp.describe()
    );
    assert_eq!(
        resp.headers
            .get("deprecation")
            .and_then(|v| v.to_str().ok()),
        Some("true"),
        "{verb} {path} answers Deprecation: true"
    );
    let successor = replacement
        .split_once(' ')
        .map_or(replacement, |(_, p)| p)
        .split('{')
        .next()
        .unwrap_or_default();
    let link = resp
        .headers
        .get("link")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    assert!(
        link.contains(successor) && link.contains("rel=\"successor-version\""),
        "{verb} {path}: the Link names {replacement}: {link}"
    );
}

/// The legacy entity without what changes with every write.
fn steady(entity: &Value) -> Value {
    let mut entity = entity.clone();
    if let Some(attributes) = entity["attributes"].as_array_mut() {
        attributes.retain(|a| a["attributeType"]["name"] != json!("Updated Date"));
    }
    entity
}

/// What the table's calls share: a sample model and the ids they use.
struct Fixture {
    imported: Imported,
    column: String,
    term: String,
    table: String,
    other_table: String,
    class: String,
}

async fn fixture(t: &Target) -> Fixture {
    let imported = t.import_sample().await;
    let id = |path: String| async move {
        t.entity(&path).await.ok()["id"]
            .as_str()
            .expect("id")
            .to_owned()
    };
    let db = format!("{}/Sales DB", imported.path);
    let class = unique("Deprecated Class");
    let resp = t
        .put(
            &format!("/repository/dataClasses/{}", encode_segment(&class)),
            &[],
            &json!({"description": "for the deprecated paths"}),
        )
        .await;
    resp.ok();
    Fixture {
        column: id(format!("{db}/sales/customer/city")).await,
        term: id(format!("{}/Customer", imported.path)).await,
        table: id(format!("{db}/sales/orders")).await,
        other_table: id(format!("{db}/sales/product")).await,
        class,
        imported,
    }
}

/// Calls a deprecated method and its replacement the same way, checks the deprecated
/// answer is marked and answers what the replacement does.
async fn call(t: &Target, verb: &str, path: &str, f: &Fixture) -> (Resp, Value) {
    let model = f.imported.model_id.as_str();
    let key = t.key().await;
    let send =
        |verb: &str, path: String, query: Vec<(&'static str, String)>, body: Option<Value>| {
            let key = key.clone();
            let verb = method(verb);
            async move {
                let mut request = t.anon(verb, &path).header("api-key", key).query(&query);
                if let Some(body) = body {
                    request = request.json(&body);
                }
                t.send(request).await
            }
        };
    let q = |pairs: &[(&'static str, &str)]| -> Vec<(&'static str, String)> {
        pairs.iter().map(|(k, v)| (*k, (*v).to_owned())).collect()
    };
    match (verb, path) {
        ("GET", "/repository/semanticTypes") => {
            let old = send(verb, path.into(), vec![], None).await;
            let new = send("GET", "/repository/dataClasses/".into(), vec![], None).await;
            (old, new.ok().clone())
        }
        ("GET", "/repository/semanticTypes/{objectId}") => {
            let name = encode_segment(&f.class);
            let old = send(
                verb,
                format!("/repository/semanticTypes/{name}"),
                vec![],
                None,
            )
            .await;
            let new = send(
                "GET",
                format!("/repository/dataClasses/{name}"),
                vec![],
                None,
            )
            .await;
            (old, new.ok().clone())
        }
        ("PUT", "/repository/semanticTypes/{objectId}") => {
            let name = encode_segment(&f.class);
            let body = json!({"description": "changed through the old path"});
            let old = send(
                verb,
                format!("/repository/semanticTypes/{name}"),
                vec![],
                Some(body.clone()),
            )
            .await;
            let new = send(
                "PUT",
                format!("/repository/dataClasses/{name}"),
                vec![],
                Some(body),
            )
            .await;
            (old, new.ok().clone())
        }
        ("GET", "/types/listEntityTypes") => {
            let old = send(verb, path.into(), vec![], None).await;
            let new = send("GET", "/types/listObjectTypes".into(), vec![], None).await;
            (old, json!([{"entityTypes": new.ok()}]))
        }
        ("PUT", "/entities/glossary/classify") => {
            let query = q(&[("objectId", &f.column), ("termId", &f.term)]);
            let old = send(verb, path.into(), query.clone(), Some(json!({}))).await;
            let now = t.entity(&f.column).await;
            (old, now.ok().clone())
        }
        ("PUT", "/entities/glossary/unclassify") => {
            let query = q(&[("objectId", &f.column), ("termId", &f.term)]);
            send(
                "PUT",
                "/entities/glossary/classify".into(),
                query.clone(),
                Some(json!({})),
            )
            .await
            .ok();
            let old = send(verb, path.into(), query, Some(json!({}))).await;
            let now = t.entity(&f.column).await;
            assert_eq!(now.ok()["terms"], json!([]), "unclassified");
            (old, now.ok().clone())
        }
        ("POST", "/repository/createRelationship") => {
            let query = q(&[
                ("sourceObjectId", &f.table),
                ("targetObjectId", &f.other_table),
                ("name", "through the old path"),
            ]);
            let old = send(verb, path.into(), query.clone(), None).await;
            let new = send("POST", "/dataModel/entityRelationship".into(), query, None).await;
            (old, new.ok().clone())
        }
        ("PUT", "/repository/setCustomAttributes") => {
            let body = json!({"id": f.table, "values": [
                {"attributeType": {"type": "CUSTOM_ATTRIBUTE", "name": "Security Level"}, "value": "Secret"}
            ]});
            let old = send(verb, path.into(), vec![], Some(body.clone())).await;
            let new = send(
                "PUT",
                "/repository/setAttributes".into(),
                vec![],
                Some(body),
            )
            .await;
            let expected = steady(new.ok());
            let mut old = old;
            old.json["result"] = steady(&old.json["result"]);
            (old, expected)
        }
        ("GET", "/repository/customAttributes/{nameOrId}") => {
            let old = send(
                verb,
                "/repository/customAttributes/Security%20Level".into(),
                vec![],
                None,
            )
            .await;
            let xml = send(
                "POST",
                "/repository/metaModel/exportXML".into(),
                vec![],
                None,
            )
            .await;
            assert!(
                xml.text().contains("name=\"Security Level\""),
                "the replacement exports the attribute type: {}",
                xml.text()
            );
            let answered = old.json["result"].clone();
            assert_eq!(answered["name"], json!("Security Level"));
            (old, answered)
        }
        ("POST", "/dataMapping/exportExcel") => {
            let query = q(&[("sourceModelId", model)]);
            let old = send(verb, path.into(), query.clone(), None).await;
            let new = send("POST", "/dataMapping/exportScript".into(), query, None).await;
            let expected = json!(new.text());
            let mut old = old;
            old.json = json!({"result": old.text()});
            (old, expected)
        }
        (
            "POST",
            "/repository/semanticMapping/exportCSV"
            | "/operations/glossary/exportAndDownloadCSV"
            | "/repository/databaseDocumentation/exportCSV",
        ) => {
            let query = q(&[("modelId", model)]);
            let old = send(verb, path.into(), query.clone(), None).await;
            let new = send("POST", "/repository/model/export".into(), query, None).await;
            assert_eq!(
                old.bytes, new.bytes,
                "{path} exports what model/export does"
            );
            let mut old = old;
            old.json = json!({"result": old.bytes.len()});
            (old, json!(new.bytes.len()))
        }
        ("POST", "/repository/semanticMapping/importCSV") => {
            let import = |path: &str| {
                let key = key.clone();
                let path = path.to_owned();
                async move {
                    t.send(
                        t.anon(Method::POST, &path)
                            .header("api-key", key)
                            .header(CONTENT_TYPE, "application/zip")
                            .query(&[("modelId", model)])
                            .body(sample_archive()),
                    )
                    .await
                }
            };
            // The first re-import undoes what the calls before changed; the two compared
            // then find the model as the archive has it.
            import("/repository/model/import").await.ok();
            let old = import(path).await;
            let new = import("/repository/model/import").await;
            (old, new.ok().clone())
        }
        ("POST", "/entities/getAttributeDistinctValueCounts") => {
            let body = json!({"select": "\"Object Type\"", "from": model});
            let old = send(verb, path.into(), vec![], Some(body.clone())).await;
            let new = send(
                "POST",
                "/entities/getAttributeValueCounts".into(),
                vec![],
                Some(body),
            )
            .await;
            (old, new.ok().clone())
        }
        ("POST", "/entities/getInferredSemanticObjects") => {
            let old = send(
                verb,
                path.into(),
                vec![],
                Some(
                    json!({"select": "Name", "from": model, "orderby": "Name asc", "pageSize": 5}),
                ),
            )
            .await;
            let new = send(
                "POST",
                "/entities/executeMQLQuery".into(),
                vec![],
                Some(
                    json!({"select": "Name, \"Inferred Documentation\"", "from": model,
                            "orderby": "Name asc", "pageSize": 5}),
                ),
            )
            .await;
            (old, new.ok().clone())
        }
        _ => panic!("{verb} {path} is deprecated but the table of this case has no call for it"),
    }
}

async fn every_deprecated_method(t: &Target) {
    let f = fixture(t).await;
    for &(verb, path, replacement) in lore_server::DEPRECATED_METHODS {
        let (old, expected) = call(t, verb, path, &f).await;
        assert_marked(&old, verb, path, replacement);
        assert_eq!(
            old.json["result"], expected,
            "{verb} {path} answers what {replacement} answers"
        );
    }
}

/// Every deprecated method, called the way its replacement is: the same answer, marked.
pub fn every_deprecated_method_answers_as_its_replacement() -> Case {
    Case {
        name: "every_deprecated_method_answers_as_its_replacement",
        covers: lore_server::DEPRECATED_METHODS
            .iter()
            .map(|&(verb, path, _)| (verb, path, N))
            .collect(),
        needs: Needs::AnyServer,
        run: |t| Box::pin(every_deprecated_method(t)),
    }
}

/// The deprecated methods answered by a replacement of their own (not covered by the
/// cases of the new paths): bad input is refused as the replacement refuses it.
pub async fn deprecated_aliases_bad_input(t: &Target) {
    for path in [
        "/repository/semanticMapping/exportCSV",
        "/operations/glossary/exportAndDownloadCSV",
        "/repository/databaseDocumentation/exportCSV",
    ] {
        let resp = t.post(path, &[], &json!({})).await;
        assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
        let resp = t.post(path, &[("modelId", "999999_1")], &json!({})).await;
        assert_eq!(resp.status, 404, "{path}: {}", resp.describe());
    }
    let resp = t
        .send(
            t.call(Method::POST, "/repository/semanticMapping/importCSV")
                .await
                .header(CONTENT_TYPE, "application/zip")
                .body(b"not a zip".to_vec()),
        )
        .await;
    assert_eq!(resp.status, 400, "{}", resp.describe());
    for path in [
        "/entities/getAttributeDistinctValueCounts",
        "/entities/getInferredSemanticObjects",
    ] {
        let resp = t
            .post(path, &[], &json!({"select": "Name", "where": "Name = = 1"}))
            .await;
        assert_eq!(resp.status, 400, "{path}: {}", resp.describe());
        let resp = t
            .send(
                t.call(Method::POST, path)
                    .await
                    .header(CONTENT_TYPE, "application/json")
                    .body("{not json"),
            )
            .await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
}

/// A user without the capability of the replacement is refused by the deprecated path too.
pub async fn deprecated_aliases_denied(t: &Target) {
    let nobody = t.key_with_roles(&[]).await;
    let viewer = t.key_with_roles(&["Metadata Viewer"]).await;
    for path in [
        "/repository/semanticMapping/exportCSV",
        "/operations/glossary/exportAndDownloadCSV",
        "/repository/databaseDocumentation/exportCSV",
    ] {
        let resp = send_as(t, &nobody, Method::POST, path, &[("modelId", "-1_1")], None).await;
        assert_error(&resp, 403, "PERMISSION_DENIED");
    }
    for path in [
        "/entities/getAttributeDistinctValueCounts",
        "/entities/getInferredSemanticObjects",
    ] {
        let resp = send_as(
            t,
            &nobody,
            Method::POST,
            path,
            &[],
            Some(json!({"select": "Name"})),
        )
        .await;
        assert_error(&resp, 403, "PERMISSION_DENIED");
    }
    let resp = t
        .send(
            t.anon(Method::POST, "/repository/semanticMapping/importCSV")
                .header("api-key", &viewer)
                .header(CONTENT_TYPE, "application/zip")
                .query(&[("folderId", "-1_1"), ("modelName", "denied")])
                .body(sample_archive()),
        )
        .await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
}

/// The routes [`deprecated_aliases_bad_input`] and [`deprecated_aliases_denied`] cover.
pub const ALIASES: [(&str, &str); 6] = [
    ("POST", "/repository/semanticMapping/exportCSV"),
    ("POST", "/operations/glossary/exportAndDownloadCSV"),
    ("POST", "/repository/databaseDocumentation/exportCSV"),
    ("POST", "/repository/semanticMapping/importCSV"),
    ("POST", "/entities/getAttributeDistinctValueCounts"),
    ("POST", "/entities/getInferredSemanticObjects"),
];

/// Bad input on the aliases.
pub fn aliases_bad_input_case() -> Case {
    Case {
        name: "deprecated_aliases_bad_input",
        covers: ALIASES.iter().map(|&(v, p)| (v, p, B)).collect(),
        needs: Needs::AnyServer,
        run: |t| Box::pin(deprecated_aliases_bad_input(t)),
    }
}

/// Denied callers on the aliases.
pub fn aliases_denied_case() -> Case {
    Case {
        name: "deprecated_aliases_denied",
        covers: ALIASES.iter().map(|&(v, p)| (v, p, D)).collect(),
        needs: Needs::AnyServer,
        run: |t| Box::pin(deprecated_aliases_denied(t)),
    }
}
