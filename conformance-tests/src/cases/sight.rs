//! What a caller cannot see does not exist for them, on every route: a test generated
//! from the OpenAPI document Lore serves.
//!
//! For every operation and every parameter that names an object (by id, stable id or
//! repository path: [`OBJECT_PARAMETERS`], in the path, the query or a body field of
//! [`BODIES`]), two callers — one who sees one model, one with no rights — send the
//! request twice: naming an object of a model they cannot see, and naming nothing.
//! The two answers must be byte-equal once the name is swapped, and no answer may carry
//! a name of the hidden model. `tests/coverage.rs` fails when a route gains a
//! parameter that looks like an object's name but is in neither [`OBJECT_PARAMETERS`]
//! nor [`NOT_OBJECTS`], so a new route cannot slip past this case.

use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use serde_json::{Value, json};

use super::groups::{key_of, new_user};
use crate::harness::{Imported, Resp, Target, encode_segment};

/// How a parameter names an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    /// An object reference: an id, a stable id or a repository path.
    Reference,
    /// A repository path (MQL FROM, a browse path).
    Path,
    /// A comma-separated list of object ids.
    Ids,
}

/// Parameter names (path, query or body field) that name an object, and how.
pub const OBJECT_PARAMETERS: &[(&str, Naming)] = &[
    ("objectId", Naming::Reference),
    ("startingId", Naming::Reference),
    ("termId", Naming::Reference),
    ("contentId", Naming::Reference),
    ("modelId", Naming::Reference),
    ("sourceModelId", Naming::Reference),
    ("targetModelId", Naming::Reference),
    ("sourceObjectId", Naming::Reference),
    ("targetObjectId", Naming::Reference),
    ("folderId", Naming::Reference),
    ("parentId", Naming::Reference),
    ("configurationId", Naming::Reference),
    ("glossaryId", Naming::Reference),
    ("context", Naming::Reference),
    ("id", Naming::Reference),
    ("from", Naming::Path),
    ("repositoryPath", Naming::Path),
    ("objectIds", Naming::Ids),
];

/// Parameters that look like an object's name but are not one, with the routes they
/// are on (`*` for every route).
pub const NOT_OBJECTS: &[(&str, &str, &str)] = &[
    ("*", "*", "worksheetId"),
    ("*", "*", "userId"),
    ("*", "*", "groupId"),
    ("*", "*", "userGroupId"),
    ("*", "*", "notificationId"),
    ("*", "*", "operationId"),
    ("*", "*", "nameOrId"),
    ("*", "*", "roleName"),
    // A path within the glossary named by glossaryId, which the case tests.
    ("*", "*", "termPath"),
    ("*", "*", "categoryPath"),
    // The system log's time range and request path.
    ("GET", "/admin/systemLog", "from"),
    ("GET", "/admin/systemLog", "path"),
    // The id of a user or group (UpdateUserBody, UpdateGroupBody).
    ("PUT", "/admin/users", "id"),
    ("PUT", "/admin/groups", "id"),
    // The id of a comment or tag on an object the path names.
    ("DELETE", "/curation/{objectId}", "id"),
    // Upgrading a query rewrites its text and resolves nothing.
    ("POST", "/entities/upgradeMQLQuery", "context"),
    // The worksheet to run; its FROM is tested through countWorksheet's query.
    ("POST", "/entities/executeWorksheet", "worksheetId"),
];

/// Whether a parameter's name looks like it names an object: what the coverage test
/// requires [`OBJECT_PARAMETERS`] or [`NOT_OBJECTS`] to classify.
pub fn looks_like_an_object(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    lower == "id"
        || lower == "from"
        || lower == "context"
        || lower == "path"
        || lower.ends_with("id")
        || lower.ends_with("ids")
        || lower.ends_with("path")
}

/// How the case treats a parameter of a route: `Some` naming, or `None` when it names
/// no object.
pub fn naming(method: &str, path: &str, parameter: &str) -> Option<Naming> {
    let excluded = NOT_OBJECTS.iter().any(|(m, p, name)| {
        *name == parameter && (*m == "*" || *m == method) && (*p == "*" || *p == path)
    });
    if excluded {
        return None;
    }
    OBJECT_PARAMETERS
        .iter()
        .find(|(name, _)| *name == parameter)
        .map(|(_, naming)| *naming)
}

/// Request bodies that carry an object's name, `"{ref}"` standing for it; other routes
/// with a body get [`default_body`].
pub const BODIES: &[(&str, &str, &str)] = &[
    (
        "POST",
        "/entities/executeMQLQuery",
        r#"{"select": "Name", "from": "{ref}"}"#,
    ),
    (
        "POST",
        "/entities/getInferredSemanticObjects",
        r#"{"select": "Name", "from": "{ref}"}"#,
    ),
    (
        "POST",
        "/entities/getAttributeValueCounts",
        r#"{"select": "\"Object Type\"", "from": "{ref}"}"#,
    ),
    (
        "POST",
        "/entities/getAttributeDistinctValueCounts",
        r#"{"select": "\"Object Type\"", "from": "{ref}"}"#,
    ),
    (
        "POST",
        "/entities/upgradeMQLQuery",
        r#"{"select": "Name", "from": "{ref}"}"#,
    ),
    (
        "POST",
        "/repository/createFolder",
        r#"{"name": "sight", "parentId": "{ref}"}"#,
    ),
    (
        "PUT",
        "/repository/setAttributes",
        r#"{"id": "{ref}", "values": [{"attributeType": {"name": "Description"}, "value": "x"}]}"#,
    ),
    (
        "PUT",
        "/repository/setCustomAttributes",
        r#"{"id": "{ref}", "values": [{"attributeType": {"name": "Description"}, "value": "x"}]}"#,
    ),
    (
        "PUT",
        "/repository/importModel",
        r#"{"format": "lore-csv-zip", "modelId": "{ref}"}"#,
    ),
    (
        "PUT",
        "/repository/importModel",
        r#"{"format": "lore-csv-zip", "folderId": "{ref}", "modelName": "sight"}"#,
    ),
    (
        "POST",
        "/operations/repositoryImport/downloadModelAttachment",
        r#"{"objectId": "{ref}", "name": "a.csv"}"#,
    ),
    (
        "POST",
        "/operations/repositoryImport/downloadModelAttachment",
        r#"{"modelId": "{ref}", "name": "a.csv"}"#,
    ),
    (
        "POST",
        "/repository/model/export",
        r#"{"modelId": "{ref}"}"#,
    ),
    (
        "POST",
        "/repository/model/export",
        r#"{"modelId": "{own_model}", "objectIds": ["{ref}"]}"#,
    ),
    (
        "POST",
        "/repository/databaseDocumentation/exportCSV",
        r#"{"modelId": "{ref}"}"#,
    ),
    (
        "POST",
        "/repository/databaseDocumentation/exportCSV",
        r#"{"modelId": "{own_model}", "objectIds": ["{ref}"]}"#,
    ),
    (
        "POST",
        "/repository/semanticMapping/exportCSV",
        r#"{"modelId": "{ref}"}"#,
    ),
    (
        "POST",
        "/repository/semanticMapping/exportCSV",
        r#"{"modelId": "{own_model}", "objectIds": ["{ref}"]}"#,
    ),
    (
        "POST",
        "/operations/glossary/exportAndDownloadCSV",
        r#"{"modelId": "{ref}"}"#,
    ),
    (
        "POST",
        "/operations/glossary/exportAndDownloadCSV",
        r#"{"modelId": "{own_model}", "objectIds": ["{ref}"]}"#,
    ),
    (
        "POST",
        "/dataMapping/importScript",
        "SOURCE MODEL '{ref}';\nTARGET MODEL '{own_model}';\n",
    ),
    (
        "POST",
        "/dataMapping/importScript",
        "SOURCE MODEL '{own_model}';\nTARGET MODEL '{ref}';\n",
    ),
    (
        "POST",
        "/admin/grants/importObjectRolesCSV",
        "objectId,objectPath,grantee,granteeType,role\n{ref},,{user},USER,Viewer\n",
    ),
];

/// The JSON body of a route whose body names no object, enough to get past parsing.
fn default_body(method: &str, path: &str, user: &str) -> Value {
    match (method, path) {
        (_, p) if p.starts_with("/admin/grants/") => json!({"grantee": user, "role": "Viewer"}),
        ("POST", "/curation/{objectId}") => json!({"kind": "comment", "text": "seen?"}),
        ("POST", "/workflow/{objectId}") => json!({"action": "submit"}),
        ("PUT", "/repository/sensitivityLabels/{objectId}") => json!({"label": "Confidential"}),
        ("POST", "/entities/executeMQLQuery" | "/entities/getInferredSemanticObjects") => {
            json!({"select": "Name"})
        }
        _ => json!({}),
    }
}

/// Query parameters a route needs besides the object, so the call gets as far as
/// resolving it.
fn default_query(path: &str) -> Vec<(&'static str, String)> {
    match path {
        "/entities/countMQLQuery" | "/entities/validateMQLQuery" => {
            vec![("select", "Name".to_owned())]
        }
        "/dataModel/entityRelationship"
        | "/repository/createRelationship"
        | "/semanticMapping/semanticLink" => vec![("name", "Is Defined By".to_owned())],
        "/repository/attachments/{objectId}" => vec![("name", "a.txt".to_owned())],
        "/entities/glossary" => vec![("termPath", "Sight".to_owned())],
        _ => Vec::new(),
    }
}

/// The objects one caller sees (`own`) and does not see (`hidden`).
struct World {
    own: Imported,
    own_column: String,
    hidden: Imported,
    hidden_column: String,
    hidden_folder: String,
    user: String,
}

/// The id of the sample's `orders` table in a model.
async fn orders_of(t: &Target, model: &Imported) -> String {
    let resp = t
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({"select": "\"Object Id\"", "from": model.path, "where": "Name = 'orders'"}),
        )
        .await;
    resp.ok_array()[0]["attributes"][0]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("the id of orders: {}", resp.describe()))
        .to_owned()
}

/// A value naming nothing, shaped like `hidden`.
fn missing_like(hidden: &str, world: &World) -> String {
    if hidden.starts_with('/') {
        return hidden.replace(&world.hidden.model_name, MISSING_NAME);
    }
    match hidden.split_once('_') {
        Some(("-1", _)) => "-1_987654321".to_owned(),
        Some((_, object)) => format!("987654321_{object}"),
        None => "987654321".to_owned(),
    }
}

const MISSING_NAME: &str = "NoSuchModel-5e1f";

/// One request of the case: where the reference goes.
#[derive(Debug, Clone)]
struct Probe {
    method: String,
    path: String,
    parameter: String,
    naming: Naming,
    /// In the path, the query, or the body template.
    place: Place,
    /// The route's other query parameters that name objects, given the caller's own.
    companions: Vec<String>,
    content_type: String,
}

#[derive(Debug, Clone)]
enum Place {
    Path,
    Query,
    Body(&'static str),
}

/// Every probe the document calls for.
fn probes(doc: &Value) -> Vec<Probe> {
    let mut out = Vec::new();
    let paths = doc["paths"].as_object().expect("the document has paths");
    for (path, item) in paths {
        let Some(item) = item.as_object() else {
            continue;
        };
        for (method, operation) in item {
            let method = method.to_uppercase();
            if !["GET", "PUT", "POST", "DELETE"].contains(&method.as_str())
                || operation["responses"].get("410").is_some()
                || operation.get("security").is_none()
            {
                continue;
            }
            let content_type = operation["requestBody"]["content"]
                .as_object()
                .and_then(|c| c.keys().next().cloned())
                .unwrap_or_default();
            let parameters: Vec<&Value> = operation["parameters"]
                .as_array()
                .into_iter()
                .flatten()
                .collect();
            let in_query = |except: &str| -> Vec<String> {
                parameters
                    .iter()
                    .filter(|p| p["in"] == "query")
                    .filter_map(|p| p["name"].as_str())
                    .filter(|name| *name != except && naming(&method, path, name).is_some())
                    .map(str::to_owned)
                    .collect()
            };
            for parameter in &parameters {
                let name = parameter["name"].as_str().unwrap_or_default();
                if let Some(naming) = naming(&method, path, name) {
                    out.push(Probe {
                        method: method.clone(),
                        path: path.clone(),
                        parameter: name.to_owned(),
                        naming,
                        place: if parameter["in"] == "path" {
                            Place::Path
                        } else {
                            Place::Query
                        },
                        companions: in_query(name),
                        content_type: content_type.clone(),
                    });
                }
            }
            for (m, p, template) in BODIES {
                if *m == method && p == path {
                    let parameter = BODY_PARAMETERS
                        .iter()
                        .find(|name| names_field(template, name))
                        .copied()
                        .unwrap_or("objectId");
                    out.push(Probe {
                        method: method.clone(),
                        path: path.clone(),
                        parameter: parameter.to_owned(),
                        naming: naming(&method, path, parameter).unwrap_or(Naming::Reference),
                        place: Place::Body(template),
                        companions: in_query(""),
                        content_type: content_type.clone(),
                    });
                }
            }
        }
    }
    out
}

const BODY_PARAMETERS: [&str; 7] = [
    "from",
    "parentId",
    "id",
    "modelId",
    "folderId",
    "objectId",
    "objectIds",
];

/// Whether a body template puts the reference in `field`.
pub fn names_field(template: &str, field: &str) -> bool {
    template.contains(&format!("\"{field}\": \"{{ref}}\""))
        || template.contains(&format!("\"{field}\": [\"{{ref}}\"]"))
}

/// The values a probe tries for the hidden object.
fn hidden_values(probe: &Probe, world: &World) -> Vec<String> {
    match probe.naming {
        Naming::Path => vec![world.hidden.path.clone()],
        Naming::Ids => vec![world.hidden_column.clone()],
        Naming::Reference => vec![
            world.hidden.model_id.clone(),
            world.hidden_column.clone(),
            world.hidden.path.clone(),
        ],
    }
}

/// The caller's own value for a parameter the probe does not test, so the call gets as
/// far as the tested one.
fn own_value(parameter: &str, world: &World) -> String {
    match naming("*", "*", parameter) {
        Some(Naming::Path) => world.own.path.clone(),
        _ if parameter.to_ascii_lowercase().contains("model") || parameter == "contentId" => {
            world.own.model_id.clone()
        }
        _ => world.own_column.clone(),
    }
}

async fn send_probe(t: &Target, key: &str, probe: &Probe, value: &str, world: &World) -> Resp {
    let mut path = probe.path.clone();
    let mut query: Vec<(String, String)> = default_query(&probe.path)
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v))
        .collect();
    // Every path parameter: the tested one gets the value, the others the caller's own.
    while let Some(start) = path.find('{') {
        let end = path[start..].find('}').map_or(path.len(), |e| start + e);
        let name = path[start + 1..end].to_owned();
        let filled = if name == probe.parameter && matches!(probe.place, Place::Path) {
            value.to_owned()
        } else {
            own_value(&name, world)
        };
        path.replace_range(start..=end, &encode_segment(&filled));
    }
    if matches!(probe.place, Place::Query) {
        query.push((probe.parameter.clone(), value.to_owned()));
    }
    for companion in &probe.companions {
        // The MQL context and alternatives to a term (glossaryId) stay unset.
        if !["context", "glossaryId", "objectIds"].contains(&companion.as_str()) {
            query.push((companion.clone(), own_value(companion, world)));
        }
    }
    let method = Method::from_bytes(probe.method.as_bytes()).expect("a method");
    let mut request = t.anon(method, &path).header("api-key", key).query(&query);
    request = match probe.place {
        Place::Body(template) => {
            let text = template
                .replace("{ref}", value)
                .replace("{user}", &world.user)
                .replace("{own_model}", &world.own.model_id);
            let content_type = if probe.content_type.is_empty() {
                "application/json"
            } else {
                probe.content_type.as_str()
            };
            request.header(CONTENT_TYPE, content_type).body(text)
        }
        _ if probe.content_type == "application/json" => {
            request.json(&default_body(&probe.method, &probe.path, &world.user))
        }
        _ if probe.content_type.is_empty() => request,
        _ => request
            .header(CONTENT_TYPE, probe.content_type.as_str())
            .body("x"),
    };
    t.send(request).await
}

/// Every route that names an object, on every backend: a hidden object answers exactly
/// like a missing one, for a caller who sees another model and for one with no rights,
/// and no answer names the hidden model or its folder.
pub async fn hidden_objects_answer_like_missing_ones(t: &Target) {
    let own = t.import_sample().await;
    let hidden = t.import_sample().await;
    let (viewer, viewer_name) = new_user(t, "sight-viewer").await;
    let (_, nobody_name) = new_user(t, "sight-nobody").await;
    t.put(
        &format!("/admin/grants/grantObjectRole/{}", own.model_id),
        &[],
        &json!({"grantee": viewer, "role": "Viewer"}),
    )
    .await
    .ok();
    let world = World {
        own_column: orders_of(t, &own).await,
        hidden_column: orders_of(t, &hidden).await,
        hidden_folder: hidden
            .path
            .trim_start_matches('/')
            .split('/')
            .next()
            .unwrap_or_default()
            .to_owned(),
        own,
        hidden,
        user: viewer.clone(),
    };
    let doc = t.send(t.anon(Method::GET, "/openapi.json")).await.json;
    let probes = probes(&doc);
    assert!(
        probes.len() > 50,
        "the document names objects on many routes"
    );
    let callers = [
        ("a viewer of another model", key_of(t, &viewer_name).await),
        ("a user without rights", key_of(t, &nobody_name).await),
    ];
    let secrets = [world.hidden.model_name.clone(), world.hidden_folder.clone()];
    let mut failures = Vec::new();
    // How often each answer came, for the log of the run.
    let mut answers: std::collections::BTreeMap<String, usize> = Default::default();
    for probe in &probes {
        for hidden_value in hidden_values(probe, &world) {
            let missing_value = missing_like(&hidden_value, &world);
            for (who, key) in &callers {
                let seen = send_probe(t, key, probe, &hidden_value, &world).await;
                let none = send_probe(t, key, probe, &missing_value, &world).await;
                let expected = none
                    .text()
                    .replace(&missing_value, &hidden_value)
                    .replace(MISSING_NAME, &world.hidden.model_name);
                let what = format!(
                    "{} {} with {}={hidden_value} as {who}",
                    probe.method, probe.path, probe.parameter
                );
                let code = seen.json["error"]["errorCode"].as_str().unwrap_or("-");
                *answers
                    .entry(format!("{} {code}", seen.status))
                    .or_default() += 1;
                if std::env::var_os("LORE_SIGHT_TRACE").is_some() {
                    eprintln!("{what} -> {}", seen.describe());
                }
                if (seen.status, seen.text()) != (none.status, expected.clone()) {
                    failures.push(format!(
                        "{what}: hidden answers {} {}, missing answers {} {}",
                        seen.status,
                        seen.text(),
                        none.status,
                        expected
                    ));
                }
                for secret in &secrets {
                    if !hidden_value.contains(secret.as_str())
                        && seen.text().contains(secret.as_str())
                    {
                        failures.push(format!(
                            "{what}: the answer names '{secret}': {}",
                            seen.text()
                        ));
                    }
                }
            }
        }
    }
    eprintln!(
        "{} probes; the hidden objects were answered: {answers:?}",
        probes.len()
    );
    assert!(
        failures.is_empty(),
        "{} answers tell a hidden object from a missing one:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The administrator, who sees the model, is answered about it.
    let resp = t.entity(&world.hidden.model_id).await;
    assert_eq!(resp.ok()["name"], json!(world.hidden.model_name));
}
