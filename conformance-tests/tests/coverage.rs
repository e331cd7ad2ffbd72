//! Endpoint coverage: every (method, path) of the OpenAPI document Lore serves has a
//! Normal and a BadInput case in the suite, every route the document says needs a
//! capability (the scopes of its `api_key` security: globally, or on the object the
//! call touches) has a Denied case, and no case claims a route the document does not
//! have, or Denied on a route that needs no key. (Routes any logged-in user may call are
//! denied to callers without a key by `every_gated_route_needs_a_key`; those that let a
//! user act on themselves and need a capability for others claim Denied where a case
//! tests the others.)

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use lore_backend_memory::MemoryStore;
use lore_conformance::{Kind, Target, cases};

/// Gated routes every logged-in user may call, on nothing but themselves.
const LOGIN_ONLY: [(&str, &str); 4] = [
    ("POST", "/auth/logout"),
    ("GET", "/admin/roles"),
    // Each user's own notifications.
    ("GET", "/notifications"),
    ("PUT", "/notifications/{notificationId}"),
];

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_has_its_cases() {
    let target = Target::spawn(Arc::new(MemoryStore::new())).await;
    let resp = target
        .send(target.anon(reqwest::Method::GET, "/openapi.json"))
        .await;
    assert_eq!(resp.status, 200, "GET /openapi.json: {}", resp.describe());
    let paths = resp.json["paths"]
        .as_object()
        .expect("the document has paths");
    let mut routes: BTreeSet<(String, String)> = BTreeSet::new();
    // Routes that need a capability, with the capabilities the document names.
    let mut needs: BTreeMap<(String, String), Vec<String>> = BTreeMap::new();
    // Routes that need a key, and the removed methods among them.
    let mut gated: BTreeSet<(String, String)> = BTreeSet::new();
    let mut removed: BTreeSet<(String, String)> = BTreeSet::new();
    for (path, item) in paths {
        for method in METHODS {
            let Some(operation) = item.get(method) else {
                continue;
            };
            let route = (method.to_uppercase(), path.clone());
            let capabilities: Vec<String> = operation["security"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|requirement| requirement["api_key"].as_array())
                .flatten()
                .filter_map(|scope| scope.as_str().map(str::to_owned))
                .collect();
            if operation.get("security").is_some() {
                gated.insert(route.clone());
            }
            if operation["deprecated"] == serde_json::json!(true)
                && operation["responses"].get("410").is_some()
            {
                removed.insert(route.clone());
            }
            if !capabilities.is_empty() {
                needs.insert(route.clone(), capabilities);
            }
            routes.insert(route);
        }
    }
    assert!(
        !needs.is_empty(),
        "the document names the capabilities routes need"
    );
    assert!(!routes.is_empty(), "the document lists routes");

    let mut covered: BTreeMap<(String, String), BTreeSet<Kind>> = BTreeMap::new();
    let mut unknown = Vec::new();
    for case in cases::cases() {
        for (method, path, kind) in &case.covers {
            let route = ((*method).to_owned(), (*path).to_owned());
            if !routes.contains(&route) {
                unknown.push(format!("{} claims {method} {path}", case.name));
            }
            if *kind == Kind::Denied && !gated.contains(&route) {
                unknown.push(format!(
                    "{} claims Denied on {method} {path}, which needs no key",
                    case.name
                ));
            }
            covered.entry(route).or_default().insert(*kind);
        }
    }
    let mut missing = Vec::new();
    for route in &routes {
        let kinds = covered.get(route).cloned().unwrap_or_default();
        for kind in [Kind::Normal, Kind::BadInput] {
            if !kinds.contains(&kind) {
                missing.push(format!("{} {} has no {kind:?} case", route.0, route.1));
            }
        }
        if let Some(capabilities) = needs.get(route)
            && !kinds.contains(&Kind::Denied)
        {
            missing.push(format!(
                "{} {} needs {capabilities:?} and has no Denied case",
                route.0, route.1
            ));
        }
    }
    // Every other gated route has a Denied case too, except those any logged-in user
    // may call and the removed methods, which answer 410 to everyone.
    for route in &gated {
        let login_only = LOGIN_ONLY.contains(&(route.0.as_str(), route.1.as_str()));
        if !login_only
            && !removed.contains(route)
            && !covered
                .get(route)
                .is_some_and(|k| k.contains(&Kind::Denied))
        {
            missing.push(format!(
                "{} {} needs a key and has no Denied case (or belongs in LOGIN_ONLY)",
                route.0, route.1
            ));
        }
    }
    target.shutdown().await;
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "endpoint coverage is incomplete:\n{}\n{}",
        missing.join("\n"),
        unknown.join("\n")
    );
}

#[test]
fn case_names_are_unique() {
    let names = cases::names();
    let distinct: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        names.len(),
        "duplicate case names in {names:?}"
    );
}

/// Every parameter that names an object — in the path, the query or a JSON body's
/// schema — is probed by the generated sight case (`cases/sight.rs`): a new route
/// with such a parameter fails here until the case knows how to name an object there
/// (or `NOT_OBJECTS` says why it names none). The document's parameters are where the
/// routes read them: `in: path` exactly for the names in the path template.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_object_parameter_has_a_sight_probe() {
    use lore_conformance::cases::sight::{
        BODIES, NOT_OBJECT_FIELDS, field_looks_like_an_object, looks_like_an_object, names_field,
        naming,
    };
    let mut seen_fields: BTreeSet<(String, String, String)> = BTreeSet::new();
    let target = Target::spawn(Arc::new(MemoryStore::new())).await;
    let doc = target
        .send(target.anon(reqwest::Method::GET, "/openapi.json"))
        .await
        .json;
    target.shutdown().await;
    let schemas = &doc["components"]["schemas"];
    let mut unprobed = Vec::new();
    for (path, item) in doc["paths"].as_object().expect("the document has paths") {
        for method in METHODS {
            let Some(operation) = item.get(method) else {
                continue;
            };
            let method = method.to_uppercase();
            for parameter in operation["parameters"].as_array().into_iter().flatten() {
                let name = parameter["name"].as_str().unwrap_or_default();
                let in_template = path.contains(&format!("{{{name}}}"));
                if (parameter["in"] == "path") != in_template {
                    unprobed.push(format!(
                        "{method} {path}: '{name}' is documented in {} but read from {}",
                        parameter["in"],
                        if in_template { "the path" } else { "the query" }
                    ));
                }
                if looks_like_an_object(name) && naming(&method, path, name).is_none() {
                    let listed =
                        lore_conformance::cases::sight::NOT_OBJECTS
                            .iter()
                            .any(|(m, p, n)| {
                                *n == name
                                    && (*m == "*" || *m == method)
                                    && (*p == "*" || p == path)
                            });
                    if !listed {
                        unprobed.push(format!("{method} {path}: parameter '{name}'"));
                    }
                }
            }
            // Fields of a JSON body (nested ones too) that name an object need a body
            // template; those that look like an object's name and are none are listed.
            let body = &operation["requestBody"]["content"]["application/json"]["schema"];
            let templates: Vec<&str> = BODIES
                .iter()
                .filter(|(m, p, _)| *m == method && p == path)
                .map(|(_, _, t)| *t)
                .collect();
            let mut fields = Vec::new();
            body_fields(schemas, body, "", &mut fields, 0);
            for (at, field) in fields {
                seen_fields.insert((method.clone(), path.clone(), at.clone()));
                let listed = NOT_OBJECT_FIELDS
                    .iter()
                    .any(|(m, p, f, _)| *m == method && p == path && *f == at)
                    || lore_conformance::cases::sight::NOT_OBJECTS
                        .iter()
                        .any(|(m, p, n)| {
                            *n == field && (*m == "*" || *m == method) && (*p == "*" || p == path)
                        });
                if listed {
                    continue;
                }
                if naming(&method, path, &field).is_some() {
                    if !templates.iter().any(|t| names_field(t, &field)) {
                        unprobed.push(format!("{method} {path}: body field '{at}'"));
                    }
                } else if field_looks_like_an_object(&field) {
                    unprobed.push(format!(
                        "{method} {path}: body field '{at}' looks like it names an object"
                    ));
                }
            }
        }
    }
    for (m, p, f, _) in NOT_OBJECT_FIELDS {
        if !seen_fields.contains(&((*m).to_owned(), (*p).to_owned(), (*f).to_owned())) {
            unprobed.push(format!(
                "NOT_OBJECT_FIELDS lists {m} {p} '{f}', which the document's bodies do not have"
            ));
        }
    }
    assert!(
        unprobed.is_empty(),
        "the sight case does not probe these (add them to OBJECT_PARAMETERS and BODIES in \
         conformance-tests/src/cases/sight.rs, or to NOT_OBJECTS with the reason):\n{}",
        unprobed.join("\n")
    );
}

/// The fields of a JSON body schema, nested ones named by their place
/// (`references[].termId`), each with its own name: through `$ref`, `properties`,
/// `items`, `allOf`, `anyOf` and `oneOf`.
fn body_fields(
    schemas: &serde_json::Value,
    schema: &serde_json::Value,
    at: &str,
    out: &mut Vec<(String, String)>,
    depth: usize,
) {
    if depth > 8 {
        return;
    }
    if let Some(name) = schema["$ref"].as_str().and_then(|r| r.rsplit('/').next()) {
        body_fields(schemas, &schemas[name], at, out, depth + 1);
        return;
    }
    for (field, inner) in schema["properties"].as_object().into_iter().flatten() {
        let place = if at.is_empty() {
            field.clone()
        } else {
            format!("{at}.{field}")
        };
        out.push((place.clone(), field.clone()));
        body_fields(schemas, inner, &place, out, depth + 1);
    }
    if schema.get("items").is_some() {
        body_fields(
            schemas,
            &schema["items"],
            &format!("{at}[]"),
            out,
            depth + 1,
        );
    }
    for key in ["allOf", "anyOf", "oneOf"] {
        for inner in schema[key].as_array().into_iter().flatten() {
            body_fields(schemas, inner, at, out, depth + 1);
        }
    }
}
