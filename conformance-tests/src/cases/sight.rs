//! What a caller cannot see does not exist for them, on every route: a test generated
//! from the OpenAPI document Lore serves.
//!
//! For every operation and every parameter that names an object (by id, stable id or
//! repository path: [`OBJECT_PARAMETERS`], in the path, the query or a body field of
//! [`BODIES`]), three callers — one who sees one model, one who may write in one
//! (every capability an object role holds, on its folder), one with no rights — send
//! the request twice: naming an object of a model they cannot see (the model, a column,
//! its path, its folder; a term where a term is named), and naming nothing. The two
//! answers must be byte-equal once the name is swapped, and no answer may carry a name
//! of the hidden model.
//!
//! Each probe is shown to reach the object lookup: the writer sends it naming its own
//! object of the same kind, and that answer must differ from the answer about a missing
//! one (a probe refused by validation or a capability check before the lookup answers
//! both alike) and be no 5xx; and on at least one of its own objects the probe must
//! succeed, unless [`NEVER_DONE`] says why it cannot.
//!
//! `tests/coverage.rs` fails when a route gains a parameter or a JSON body field that
//! looks like an object's name but is in neither [`OBJECT_PARAMETERS`] nor
//! [`NOT_OBJECTS`], so a new route cannot slip past this case.

use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use serde_json::{Value, json};

use super::groups::{key_of, new_user};
use crate::harness::{Imported, Resp, Target, encode_segment, unique};

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
    // A compare's ends are versions or times.
    ("GET", "/history/models/{modelId}/compare", "from"),
    ("GET", "/admin/systemLog", "path"),
    // The id of a user or group (UpdateUserBody, UpdateGroupBody).
    ("PUT", "/admin/users", "id"),
    ("PUT", "/admin/groups", "id"),
    // The id of a comment or tag on an object the path names.
    ("DELETE", "/curation/{objectId}", "id"),
    // Upgrading a query rewrites its text and resolves nothing.
    ("POST", "/entities/upgradeMQLQuery", "context"),
    ("POST", "/entities/upgradeMQLQuery", "from"),
    // Unclassifying reads termId only (without it, every term); the glossary and term
    // path it shares with classify are not read.
    ("PUT", "/entities/glossary/unclassify", "glossaryId"),
    (
        "PUT",
        "/entities/glossary/unclassify/{objectId}",
        "glossaryId",
    ),
    // The worksheet to run; its FROM is tested through countWorksheet's query.
    ("POST", "/entities/executeWorksheet", "worksheetId"),
    // A data class's id is its name; data classes are the server's, not objects of
    // the repository, and every user with View Metadata sees them all.
    ("*", "/repository/dataClasses/{objectId}", "objectId"),
    ("*", "/repository/semanticTypes/{objectId}", "objectId"),
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

/// Words a field's name starts or ends with when it may name an object.
const OBJECT_WORDS: [&str; 14] = [
    "object",
    "model",
    "target",
    "source",
    "parent",
    "term",
    "folder",
    "glossary",
    "configuration",
    "context",
    "entity",
    "anchor",
    "table",
    "column",
];

/// Whether a JSON body field's name looks like it names an object (an id, a path, a
/// reference): what the coverage test requires [`OBJECT_PARAMETERS`] (with a body
/// template in [`BODIES`]), [`NOT_OBJECTS`] or [`NOT_OBJECT_FIELDS`] to classify.
pub fn field_looks_like_an_object(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    looks_like_an_object(name)
        || lower.ends_with("ref")
        || lower.ends_with("refs")
        || lower.ends_with("paths")
        || OBJECT_WORDS
            .iter()
            .any(|word| lower.starts_with(word) || lower.ends_with(word))
}

/// JSON body fields (by their place in the body: `a.b`, `list[].c`) that look like an
/// object's name but are none, with the reason.
pub const NOT_OBJECT_FIELDS: &[(&str, &str, &str, &str)] = &[
    (
        "POST",
        "/repository/createFolder",
        "objectType",
        "the kind of object to create: Folder, Configuration or Configuration Version",
    ),
    (
        "PUT",
        "/repository/importModel",
        "modelName",
        "the name of the model to create",
    ),
    (
        "POST",
        "/worksheets",
        "from",
        "saved as the query's text and checked as MQL only; resolved under the runner's \
         sight when the worksheet runs (countWorksheet's FROM is probed)",
    ),
    (
        "POST",
        "/worksheets",
        "context",
        "saved as the query's text, as `from`",
    ),
];

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
        "/entities/executeMQLQuery",
        r#"{"select": "Name", "from": "{own_path}", "context": "{ref}"}"#,
    ),
    (
        "POST",
        "/entities/getInferredSemanticObjects",
        r#"{"select": "Name", "from": "{own_path}", "context": "{ref}"}"#,
    ),
    (
        "POST",
        "/entities/getAttributeValueCounts",
        r#"{"select": "\"Object Type\"", "from": "{own_path}", "context": "{ref}"}"#,
    ),
    (
        "POST",
        "/entities/getAttributeDistinctValueCounts",
        r#"{"select": "\"Object Type\"", "from": "{own_path}", "context": "{ref}"}"#,
    ),
    // A term's reference to another term (glossaryId and termPath in the query).
    (
        "POST",
        "/entities/glossary",
        r#"{"references": [{"referenceType": "See Also", "termId": "{ref}"}]}"#,
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
        r#"{"format": "lore-csv-zip", "folderId": "{ref}", "modelName": "{name}"}"#,
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
        ("POST", "/workflow/{objectId}") => json!({"action": "Submit for Approval"}),
        (_, "/entities/DataProfiling/{objectId}" | "/entities/Dataprofiling/{objectId}") => {
            // Setting what is already set changes nothing and is refused as empty.
            json!({"dataSample": null})
        }
        ("PUT", "/repository/sensitivityLabels/{objectId}") => json!({"label": "Confidential"}),
        ("POST", "/entities/executeMQLQuery" | "/entities/getInferredSemanticObjects") => {
            json!({"select": "Name"})
        }
        _ => json!({}),
    }
}

/// Query parameters a route needs besides the object, so the call gets as far as
/// resolving it.
fn default_query(method: &str, path: &str) -> Vec<(&'static str, String)> {
    match path {
        // Removing the caller's watch, which `prepare` sets.
        "/curation/{objectId}" if method == "DELETE" => vec![("kind", "watch".to_owned())],
        "/entities/countMQLQuery" | "/entities/validateMQLQuery" => {
            vec![("select", "Name".to_owned())]
        }
        "/dataModel/entityRelationship"
        | "/repository/createRelationship"
        | "/semanticMapping/semanticLink" => vec![("name", "Is Defined By".to_owned())],
        "/repository/attachments/{objectId}" => vec![("name", "a.txt".to_owned())],
        "/entities/glossary" => vec![("termPath", "Sight".to_owned())],
        // Now: within the history kept, and not in the future.
        "/history/models/{modelId}/compare" => vec![(
            "from",
            lore_core::model::format_micros(&lore_core::model::now()),
        )],
        _ => Vec::new(),
    }
}

/// Parameters of a route that are alternatives to `parameter` (left out when it is
/// tested: the route would read them first), and what the route needs with it.
fn alternatives(
    path: &str,
    parameter: &str,
) -> (&'static [&'static str], Vec<(&'static str, String)>) {
    let classify = path.starts_with("/entities/glossary/classify");
    let import = [
        "/repository/model/import",
        "/repository/semanticMapping/importCSV",
    ];
    match (path, parameter) {
        ("/operations/repositoryImport/downloadModelAttachment", _) => {
            (&["objectId", "modelId"], vec![("name", "a.csv".to_owned())])
        }
        // A term by path in a glossary, instead of by id.
        (_, "glossaryId") if classify => (&["termId"], vec![("termPath", "Sight".to_owned())]),
        (_, "modelId") if import.contains(&path) => (&["folderId", "configurationId"], Vec::new()),
        // A new model, under a name no sibling holds (a taken one answers 409 first).
        (_, "folderId") if import.contains(&path) => (
            &["modelId", "configurationId"],
            vec![("modelName", unique("sight"))],
        ),
        _ if import.contains(&path) => (&["modelId"], vec![("modelName", unique("sight"))]),
        _ => (&[], Vec::new()),
    }
}

/// The objects one caller sees (`own`) and does not see (`hidden`).
struct World {
    own: Imported,
    own_column: String,
    /// A glossary term of the own model (the sample is its own glossary).
    own_term: String,
    hidden: Imported,
    hidden_term: String,
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

/// The id of the sample's glossary term `Customer` in a model.
async fn term_of(t: &Target, model: &Imported) -> String {
    let resp = t.entity(&format!("{}/Customer", model.path)).await;
    resp.ok()["id"]
        .as_str()
        .unwrap_or_else(|| panic!("the term Customer: {}", resp.describe()))
        .to_owned()
}

/// A value naming nothing, shaped like `hidden`.
fn missing_like(hidden: &str, world: &World) -> String {
    if hidden.starts_with('/') {
        return hidden.replace(name_in(hidden, world), MISSING_NAME);
    }
    match hidden.split_once('_') {
        Some(("-1", _)) => "-1_987654321".to_owned(),
        Some((_, object)) => format!("987654321_{object}"),
        None => "987654321".to_owned(),
    }
}

const MISSING_NAME: &str = "NoSuchModel-5e1f";

/// The hidden name a hidden path ends with: its model's, or its folder's.
fn name_in<'a>(hidden: &str, world: &'a World) -> &'a str {
    if hidden.ends_with(&world.hidden.model_name) {
        &world.hidden.model_name
    } else {
        &world.hidden_folder
    }
}

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

impl Probe {
    /// The probe as the case's messages name it.
    fn label(&self) -> String {
        let place = match self.place {
            Place::Path => "path",
            Place::Query => "query",
            Place::Body(_) => "body",
        };
        format!(
            "{} {} {} (in the {place})",
            self.method, self.path, self.parameter
        )
    }
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
                        // The body names what the call needs; a query parameter of
                        // the same name would win over the body's field.
                        companions: Vec::new(),
                        content_type: content_type.clone(),
                    });
                }
            }
        }
    }
    out
}

const BODY_PARAMETERS: [&str; 9] = [
    "from",
    "context",
    "termId",
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
        Naming::Path => vec![
            world.hidden.path.clone(),
            format!("/{}", world.hidden_folder),
        ],
        Naming::Ids => vec![world.hidden_column.clone()],
        Naming::Reference => {
            let mut values = vec![
                world.hidden.model_id.clone(),
                world.hidden_column.clone(),
                world.hidden.path.clone(),
                world.hidden.folder_id.clone(),
            ];
            if probe.parameter == "termId" || probe.parameter == "targetObjectId" {
                values.push(world.hidden_term.clone());
            }
            values
        }
    }
}

/// The caller's own value for a parameter the probe does not test, so the call gets as
/// far as the tested one.
fn own_value(parameter: &str, world: &World) -> String {
    match naming("*", "*", parameter) {
        Some(Naming::Path) => world.own.path.clone(),
        _ if parameter == "termId" || parameter == "targetObjectId" => world.own_term.clone(),
        _ if parameter == "folderId" || parameter == "parentId" => world.own.folder_id.clone(),
        _ if parameter.to_ascii_lowercase().contains("model")
            || parameter == "contentId"
            || parameter == "glossaryId" =>
        {
            world.own.model_id.clone()
        }
        _ => world.own_column.clone(),
    }
}

async fn send_probe(t: &Target, key: &str, probe: &Probe, value: &str, world: &World) -> Resp {
    let mut path = probe.path.clone();
    let mut query: Vec<(String, String)> = default_query(&probe.method, &probe.path)
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
    if probe.path == "/entities/glossary" && matches!(probe.place, Place::Body(_)) {
        // The term the body's references hang on, in the caller's own glossary.
        query.push(("glossaryId".to_owned(), world.own.model_id.clone()));
    }
    let (instead, extra) = alternatives(&probe.path, &probe.parameter);
    query.extend(extra.into_iter().map(|(k, v)| (k.to_owned(), v)));
    for companion in &probe.companions {
        // The MQL context, alternatives to a term (glossaryId) and to the tested
        // parameter stay unset.
        if !["context", "glossaryId", "objectIds"].contains(&companion.as_str())
            && !instead.contains(&companion.as_str())
        {
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
                .replace("{own_model}", &world.own.model_id)
                .replace("{own_path}", &world.own.path)
                .replace("{name}", &unique("sight"));
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
        // A model archive, so that the call gets past reading it to the names.
        _ if ["application/zip", "application/octet-stream"]
            .contains(&probe.content_type.as_str()) =>
        {
            request
                .header(CONTENT_TYPE, "application/zip")
                .body(crate::harness::sample_archive())
        }
        _ => request
            .header(CONTENT_TYPE, probe.content_type.as_str())
            .body("x"),
    };
    t.send(request).await
}

/// The object the writer may act on that stands for `hidden` in a probe: the same
/// kind of name (model id, column id or path) of the caller's own model.
fn visible_like(hidden: &str, world: &World) -> String {
    if hidden == world.hidden.model_id {
        world.own.model_id.clone()
    } else if hidden == world.hidden_column {
        world.own_column.clone()
    } else if hidden == world.hidden.path {
        world.own.path.clone()
    } else if hidden == world.hidden.folder_id {
        world.own.folder_id.clone()
    } else if hidden == world.hidden_term {
        world.own_term.clone()
    } else if hidden == format!("/{}", world.hidden_folder) {
        world
            .own
            .path
            .rsplit_once('/')
            .map_or_else(String::new, |(f, _)| f.to_owned())
    } else {
        panic!("no visible counterpart of {hidden}")
    }
}

/// The capabilities of the writer's role, on the folder of its own model: every one
/// an object role can hold.
const WRITER_CAPABILITIES: [&str; 7] = [
    "ViewMetadata",
    "EditMetadata",
    "ManageRepository",
    "Import",
    "Curate",
    "ViewData",
    "ManageRoles",
];

/// Probes that no object of the writer's can make succeed, and why; each still has to
/// answer about the writer's object otherwise than about a missing one.
pub const NEVER_DONE: &[(&str, &str, &str, &str)] = &[
    (
        "GET",
        "/history/configurations/{configurationId}/pin",
        "configurationId",
        "the world has no configuration version; a model or folder is refused by its kind",
    ),
    (
        "PUT",
        "/history/configurations/{configurationId}/pin",
        "configurationId",
        "the world has no configuration version; a model or folder is refused by its kind",
    ),
    (
        "DELETE",
        "/history/configurations/{configurationId}/pin",
        "configurationId",
        "the world has no configuration version; a model or folder is refused by its kind",
    ),
    (
        "GET",
        "/configuration/listModels",
        "configurationId",
        "the world has no configuration; a model or folder is refused by its kind",
    ),
    (
        "POST",
        "/repository/model/import",
        "configurationId",
        "the world has no configuration; a model or folder is refused by its kind",
    ),
    (
        "POST",
        "/repository/semanticMapping/importCSV",
        "configurationId",
        "the world has no configuration; a model or folder is refused by its kind",
    ),
    (
        "POST",
        "/operations/repositoryImport/downloadModelAttachment",
        "objectId",
        "the sample's objects have no attachment; the 404 names the object found",
    ),
    (
        "POST",
        "/operations/repositoryImport/downloadModelAttachment",
        "modelId",
        "the sample's objects have no attachment; the 404 names the object found",
    ),
    (
        "POST",
        "/operations/startImport/{contentId}",
        "contentId",
        "the own model's import settings (lore-csv-zip) read a file no call can give \
         here; the 400 names the model found",
    ),
];

/// Makes what a probe on the writer's own object removes, so that it can succeed:
/// the watch `DELETE /curation` removes, the link or relationship a DELETE removes,
/// the classification unclassify removes. As the writer, on the same object.
async fn prepare(t: &Target, key: &str, probe: &Probe, value: &str, world: &World) {
    if probe.path == "/curation/{objectId}" && probe.method == "DELETE" {
        let path = format!("/curation/{}", encode_segment(value));
        let request = t
            .anon(Method::POST, &path)
            .header("api-key", key)
            .json(&json!({"kind": "watch"}));
        t.send(request).await;
        return;
    }
    let mut making = probe.clone();
    if probe.method == "DELETE" {
        making.method = "POST".to_owned();
    } else if probe.path.starts_with("/entities/glossary/unclassify") {
        making.path = probe.path.replace("unclassify", "classify");
    } else {
        return;
    }
    send_probe(t, key, &making, value, world).await;
}

/// Every route that names an object, on every backend: a hidden object answers exactly
/// like a missing one, for a caller who sees another model, one who may write in
/// another model and one with no rights, and no answer names the hidden model or its
/// folder. Each probe is shown to reach the object lookup: the writer's same probe on
/// its own object answers unlike the missing one, and not with a 5xx.
pub async fn hidden_objects_answer_like_missing_ones(t: &Target) {
    let own = t.import_sample().await;
    let hidden = t.import_sample().await;
    let (viewer, viewer_name) = new_user(t, "sight-viewer").await;
    let (writer, writer_name) = new_user(t, "sight-writer").await;
    let (_, nobody_name) = new_user(t, "sight-nobody").await;
    // The grantee of the grant routes' bodies: none of the callers, so granting and
    // revoking change nobody's sight.
    let (bystander, _) = new_user(t, "sight-bystander").await;
    t.put(
        &format!("/admin/grants/grantObjectRole/{}", own.model_id),
        &[],
        &json!({"grantee": viewer, "role": "Viewer"}),
    )
    .await
    .ok();
    let writer_role = unique("Sight Writer");
    t.put(
        "/admin/roles",
        &[],
        &json!({"name": writer_role, "global": false, "capabilities": WRITER_CAPABILITIES}),
    )
    .await
    .ok();
    t.put(
        &format!("/admin/grants/grantObjectRole/{}", own.folder_id),
        &[],
        &json!({"grantee": writer, "role": writer_role}),
    )
    .await
    .ok();
    let world = World {
        own_term: term_of(t, &own).await,
        hidden_term: term_of(t, &hidden).await,
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
        user: bystander,
    };
    // Import settings on the own model, which GET /repository/importModel answers.
    t.put(
        "/repository/importModel",
        &[],
        &json!({"format": "lore-csv-zip", "modelId": world.own.model_id}),
    )
    .await
    .ok();
    let doc = t.send(t.anon(Method::GET, "/openapi.json")).await.json;
    let probes = probes(&doc);
    assert!(
        probes.len() > 50,
        "the document names objects on many routes"
    );
    let writer_key = key_of(t, &writer_name).await;
    let callers = [
        ("a viewer of another model", key_of(t, &viewer_name).await),
        ("a writer in another model", writer_key.clone()),
        ("a user without rights", key_of(t, &nobody_name).await),
    ];
    let secrets = [world.hidden.model_name.clone(), world.hidden_folder.clone()];
    let mut failures = Vec::new();
    // How often each answer came, for the log of the run.
    let mut answers: std::collections::BTreeMap<String, usize> = Default::default();
    let mut reached: std::collections::BTreeMap<String, usize> = Default::default();
    // The probes served on an object of the writer's.
    let mut done: std::collections::BTreeSet<String> = Default::default();
    let trace = std::env::var_os("LORE_SIGHT_TRACE").is_some();
    for probe in &probes {
        for hidden_value in hidden_values(probe, &world) {
            let missing_value = missing_like(&hidden_value, &world);
            for (who, key) in &callers {
                let seen = send_probe(t, key, probe, &hidden_value, &world).await;
                let none = send_probe(t, key, probe, &missing_value, &world).await;
                let expected = none
                    .text()
                    .replace(&missing_value, &hidden_value)
                    .replace(MISSING_NAME, name_in(&hidden_value, &world));
                let what = format!(
                    "{} {} with {}={hidden_value} as {who}",
                    probe.method, probe.path, probe.parameter
                );
                let code = seen.json["error"]["errorCode"].as_str().unwrap_or("-");
                *answers
                    .entry(format!("{} {code}", seen.status))
                    .or_default() += 1;
                if trace {
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
            // The probe reaches the lookup: the writer's same probe on its own object
            // of the same kind answers otherwise than on a missing one. A probe
            // refused by validation or a capability check before the lookup answers
            // both alike, and proves nothing about hidden objects.
            let visible_value = visible_like(&hidden_value, &world);
            let none = send_probe(t, &writer_key, probe, &missing_value, &world).await;
            prepare(t, &writer_key, probe, &visible_value, &world).await;
            let mine = send_probe(t, &writer_key, probe, &visible_value, &world).await;
            let what = format!(
                "{} {} with {}={visible_value} as the writer, on its own object",
                probe.method, probe.path, probe.parameter
            );
            if trace {
                eprintln!("{what} -> {}", mine.describe());
            }
            let code = mine.json["error"]["errorCode"].as_str().unwrap_or("-");
            *reached
                .entry(format!("{} {code}", mine.status))
                .or_default() += 1;
            let like_missing = none.text().replace(&missing_value, &visible_value).replace(
                MISSING_NAME,
                visible_value.rsplit('/').next().unwrap_or_default(),
            );
            if (200..300).contains(&mine.status) {
                done.insert(probe.label());
            }
            if mine.status >= 500 {
                failures.push(format!("{what}: {}", mine.describe()));
            } else if (mine.status, mine.text()) == (none.status, like_missing) {
                failures.push(format!(
                    "{what}: answers as for a missing object, so the probe never reached \
                     the lookup: {}",
                    mine.describe()
                ));
            }
        }
    }
    // Each probe succeeds on some object of the writer's, or is listed with the reason
    // it cannot (its refusal then names the object found, which the check above holds).
    for probe in &probes {
        let label = probe.label();
        let listed = NEVER_DONE
            .iter()
            .any(|(m, p, n, _)| *m == probe.method && *p == probe.path && *n == probe.parameter);
        match (done.contains(&label), listed) {
            (false, false) => failures.push(format!(
                "{label}: no object of the writer's is served; make the probe succeed \
                 (sight.rs: default_body, default_query, alternatives, prepare) or list it \
                 in NEVER_DONE with the reason"
            )),
            (true, true) => failures.push(format!(
                "{label}: succeeds on the writer's object; take it out of NEVER_DONE"
            )),
            _ => {}
        }
    }
    eprintln!(
        "{} probes, {} served on the writer's objects; the hidden objects were answered: \
         {answers:?}; the writer's own objects: {reached:?}",
        probes.len(),
        done.len()
    );
    assert!(
        failures.is_empty(),
        "{} answers tell a hidden object from a missing one, or never reach the lookup:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // The administrator, who sees the model, is answered about it.
    let resp = t.entity(&world.hidden.model_id).await;
    assert_eq!(resp.ok()["name"], json!(world.hidden.model_name));
}
