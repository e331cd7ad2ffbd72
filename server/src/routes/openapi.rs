//! What every operation of the OpenAPI document shares, filled in once rather than on
//! each route: the ResponseObject envelope on every answer, the statuses any route of
//! its kind can answer (bad input, a missing key, a missing capability, an unknown
//! object, a body too large or of the wrong type), its path parameters, and the other
//! media types an upload takes.

use serde_json::{Map, Value, json};

/// The name of the envelope schema in `components.schemas`.
const ENVELOPE: &str = "ResponseObject";

const METHODS: [&str; 5] = ["get", "put", "post", "delete", "patch"];

/// The path parameters that name an object.
const OBJECT_IDENTIFIERS: [&str; 3] = ["objectId", "termId", "startingId"];

/// Query parameters that name an object: a route with one answers 404 for an object
/// that does not exist (or that the caller cannot see).
const OBJECT_QUERY_PARAMETERS: [&str; 17] = [
    "objectId",
    "startingId",
    "termId",
    "contentId",
    "modelId",
    "sourceModelId",
    "targetModelId",
    "sourceObjectId",
    "targetObjectId",
    "folderId",
    "parentId",
    "configurationId",
    "glossaryId",
    "context",
    "from",
    "repositoryPath",
    "objectIds",
];

/// Request bodies that name an object (MQL's FROM, a parent, a model to export).
const OBJECT_BODIES: [&str; 10] = [
    "ExecuteInput",
    "ValueCountsInput",
    "QueryInput",
    "CreateFolderBody",
    "CreateWorksheetBody",
    "ExecuteWorksheetInput",
    "SetAttributesBody",
    "ImportModelBody",
    "AttachmentParams",
    "ExportParams",
];

/// Whether the operation names an object in its query or body (the system log's
/// `from` is a time).
fn names_an_object(path: &str, operation: &Map<String, Value>) -> bool {
    let in_query = operation
        .get("parameters")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|p| p["in"] == "query")
        .filter_map(|p| p["name"].as_str())
        .any(|name| OBJECT_QUERY_PARAMETERS.contains(&name));
    let content = &operation.get("requestBody").unwrap_or(&Value::Null)["content"];
    let in_body = content["text/csv"].is_object()
        || content["application/json"]["schema"]["$ref"]
            .as_str()
            .and_then(|r| r.rsplit('/').next())
            .is_some_and(|name| OBJECT_BODIES.contains(&name));
    path != "/admin/systemLog" && (in_query || in_body)
}

/// Routes whose `{objectId}` is a name, not an object identifier.
const NAMED_BY_NAME: [&str; 2] = ["/repository/dataClasses/", "/repository/semanticTypes/"];

/// An object identifier (`ObjectRef::parse`): a repository path (`/...`, URL-encoded in
/// the path), or an object id (`447_16`, `-1_4`) or stable id (URL-safe Base64).
const OBJECT_IDENTIFIER_PATTERN: &str = "^\\s*(/.*|[A-Za-z0-9_=-]+)\\s*$";

/// Completes the document (see the module documentation).
pub fn complete(doc: &mut Value) {
    doc["components"]["schemas"][ENVELOPE] = envelope_schema();
    let Some(paths) = doc.get_mut("paths").and_then(Value::as_object_mut) else {
        return;
    };
    for (path, item) in paths.iter_mut() {
        let names = path_parameters(path);
        for method in METHODS {
            if let Some(operation) = item.get_mut(method).and_then(Value::as_object_mut) {
                complete_operation(path, &names, operation);
            }
        }
    }
}

fn complete_operation(path: &str, names: &[String], operation: &mut Map<String, Value>) {
    let gated = operation.contains_key("security");
    let removed = operation.get("deprecated") == Some(&json!(true))
        && operation["responses"].get("410").is_some();
    // A removed method answers 410 whatever its parameters; a data class's `objectId`
    // is its name.
    let identifiers = !removed && !NAMED_BY_NAME.iter().any(|p| path.starts_with(p));
    declare_path_parameters(names, identifiers, operation);
    let has_body = operation.contains_key("requestBody");
    if let Some(body) = operation
        .get_mut("requestBody")
        .and_then(|b| b.get_mut("content"))
        .and_then(Value::as_object_mut)
    {
        add_upload_media_types(body);
    }
    let mut statuses: Vec<&str> = Vec::new();
    if !removed {
        statuses.push("400");
        if !names.is_empty() || names_an_object(path, operation) {
            statuses.push("404");
        }
        if has_body {
            statuses.extend(["413", "415"]);
        }
        if path.starts_with("/auth/login") {
            statuses.push("429");
        }
    }
    if gated {
        statuses.extend(["401", "403"]);
    }
    let responses = operation
        .entry("responses")
        .or_insert_with(|| json!({}))
        .as_object_mut();
    let Some(responses) = responses else { return };
    for status in statuses {
        responses
            .entry(status)
            .or_insert_with(|| json!({"description": default_description(status)}));
    }
    for (status, response) in responses.iter_mut() {
        let Some(response) = response.as_object_mut() else {
            continue;
        };
        // Answers that name their own media type (a CSV file, a zip) keep it.
        if response.contains_key("content") {
            continue;
        }
        let result = if status.starts_with('2') {
            json!({})
        } else {
            json!({"type": "string", "enum": [""]})
        };
        response.insert(
            "content".into(),
            json!({"application/json": {"schema": {
                "allOf": [{"$ref": format!("#/components/schemas/{ENVELOPE}")}],
                "properties": {"result": result},
            }}}),
        );
    }
}

/// The names of the `{parameters}` of a path template.
fn path_parameters(path: &str) -> Vec<String> {
    path.split('/')
        .filter_map(|segment| segment.strip_prefix('{')?.strip_suffix('}'))
        .map(str::to_owned)
        .collect()
}

/// Declares each path parameter the operation does not declare yet (the removed
/// methods, and routes whose annotations leave one out).
fn declare_path_parameters(
    names: &[String],
    identifiers: bool,
    operation: &mut Map<String, Value>,
) {
    let parameters = operation.entry("parameters").or_insert_with(|| json!([]));
    let Some(parameters) = parameters.as_array_mut() else {
        return;
    };
    for name in names {
        let declared = parameters
            .iter()
            .any(|p| p["in"] == json!("path") && p["name"] == json!(name));
        if !declared {
            parameters.push(json!({
                "name": name,
                "in": "path",
                "required": true,
                "description": parameter_description(name),
                "schema": {"type": "string", "minLength": 1},
            }));
        }
    }
    // Every path parameter is a non-empty string (an empty segment is another route),
    // and an object identifier has one of its three shapes.
    for parameter in parameters.iter_mut() {
        let identifier = identifiers
            && parameter["name"]
                .as_str()
                .is_some_and(|n| OBJECT_IDENTIFIERS.contains(&n));
        if parameter["in"] == json!("path")
            && let Some(schema) = parameter.get_mut("schema").and_then(Value::as_object_mut)
            && schema.get("type") == Some(&json!("string"))
        {
            schema.entry("minLength").or_insert(json!(1));
            if identifier {
                schema
                    .entry("pattern")
                    .or_insert(json!(OBJECT_IDENTIFIER_PATTERN));
            }
        }
    }
    if parameters.is_empty() {
        operation.remove("parameters");
    }
}

fn parameter_description(name: &str) -> &'static str {
    match name {
        "objectId" | "termId" | "startingId" => {
            "An object id (`447_16`, `-1_4`), stable id, or URL-encoded repository path"
        }
        "userId" | "userGroupId" => "A user's (or group's) id, e.g. `-1_3`, or name",
        "groupId" => "A group's id, e.g. `-1_7`, or name",
        "worksheetId" => "A worksheet's id, e.g. `-1_12`",
        "operationId" => "An operation's id",
        "roleName" => "A role's name",
        "nameOrId" => "A name or an id",
        _ => "A path parameter",
    }
}

/// A zip or CSV upload is also taken as `application/octet-stream` and as the file
/// part of `multipart/form-data`.
fn add_upload_media_types(content: &mut Map<String, Value>) {
    let uploads = ["application/zip", "text/csv"];
    if !uploads.iter().any(|t| content.contains_key(*t)) {
        return;
    }
    content
        .entry("application/octet-stream")
        .or_insert_with(|| json!({"schema": {"type": "string", "format": "binary"}}));
    content.entry("multipart/form-data").or_insert_with(|| {
        json!({"schema": {
            "type": "object",
            "required": ["file"],
            "properties": {"file": {"type": "string", "format": "binary"}},
        }})
    });
}

fn default_description(status: &str) -> &'static str {
    match status {
        "400" => {
            "Bad input (INVALID_PARAMETER, REQUIRED_PARAMETER_NOT_SPECIFIED, or a more specific code); the message says what was wrong"
        }
        "401" => "AUTHENTICATION_ERROR: the key is missing, invalid or expired",
        "403" => {
            "PERMISSION_DENIED: the caller lacks the capability the call needs on what it touches"
        }
        "404" => "OBJECT_NOT_FOUND or INVALID_REPOSITORY_PATH: nothing has that identifier",
        "413" => "PAYLOAD_TOO_LARGE: the body is larger than the server accepts",
        "415" => "UNSUPPORTED_MEDIA_TYPE: the body's Content-Type is not one the route takes",
        "429" => {
            "TOO_MANY_LOGIN_ATTEMPTS: failed logins are throttled; the message says how long to wait"
        }
        "503" => {
            "SERVICE_UNAVAILABLE: the database is unreachable or cannot take the write; nothing was applied; retry after `Retry-After` seconds"
        }
        _ => "See the envelope's error",
    }
}

fn envelope_schema() -> Value {
    json!({
        "type": "object",
        "description": "Every answer: `result` on success, `error` on failure.",
        "properties": {
            "result": {"description": "The answer; an empty string on failure"},
            "error": {
                "type": "object",
                "required": ["errorCode", "message"],
                "properties": {
                    "errorCode": {"type": "string", "description": "A stable code, e.g. OBJECT_NOT_FOUND"},
                    "message": {"type": "string", "description": "What was wrong, for people"},
                    "retryAfter": {"type": "integer", "description": "Seconds to wait before trying again (also the Retry-After header); only when the database is unavailable"},
                },
            },
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_parameters_are_read_from_the_template() {
        assert_eq!(
            path_parameters("/admin/grants/{objectId}/{userGroupId}"),
            ["objectId", "userGroupId"]
        );
        assert!(path_parameters("/admin/users").is_empty());
    }

    #[test]
    fn operations_gain_parameters_statuses_and_the_envelope() {
        let mut doc = json!({"paths": {"/x/{objectId}": {"put": {
            "security": [{"api_key": []}],
            "requestBody": {"content": {"text/csv": {"schema": {"type": "string"}}}},
            "responses": {"200": {"description": "ok"}},
        }}}});
        complete(&mut doc);
        let op = &doc["paths"]["/x/{objectId}"]["put"];
        assert_eq!(op["parameters"][0]["name"], json!("objectId"));
        let pattern = op["parameters"][0]["schema"]["pattern"]
            .as_str()
            .unwrap_or("");
        assert_eq!(pattern, OBJECT_IDENTIFIER_PATTERN);
        for status in ["200", "400", "401", "403", "404", "413", "415"] {
            assert!(
                op["responses"][status]["content"]["application/json"].is_object(),
                "{status}: {op}"
            );
        }
        assert!(op["requestBody"]["content"]["multipart/form-data"].is_object());
        assert!(doc["components"]["schemas"][ENVELOPE].is_object());
    }
}
