//! Methods deprecated in releases 11.0 and 11.1 (spec section 9): they keep working,
//! answering as their replacements do, and every answer says so with a `Deprecation:
//! true` header and a `Link` to the successor (RFC 8288 `rel="successor-version"`).
//!
//! One table drives both: [`mark`] adds the headers to whatever route of the table
//! answered, so a deprecated handler is only the call of its replacement.

use axum::extract::{MatchedPath, Request};
use axum::http::HeaderValue;
use axum::middleware::Next;
use axum::response::Response;

/// `(method, path, replacement)` of every deprecated method that still works. The
/// replacement is `METHOD /path`; a `{param}` of the replacement takes the value of the
/// same parameter of the call.
pub const DEPRECATED_METHODS: &[(&str, &str, &str)] = &[
    (
        "POST",
        "/repository/semanticMapping/exportCSV",
        "POST /repository/model/export",
    ),
    (
        "POST",
        "/repository/semanticMapping/importCSV",
        "POST /repository/model/import",
    ),
    (
        "POST",
        "/operations/glossary/exportAndDownloadCSV",
        "POST /repository/model/export",
    ),
    (
        "POST",
        "/repository/databaseDocumentation/exportCSV",
        "POST /repository/model/export",
    ),
    (
        "POST",
        "/entities/getAttributeDistinctValueCounts",
        "POST /entities/getAttributeValueCounts",
    ),
    (
        "POST",
        "/entities/getInferredSemanticObjects",
        "POST /entities/executeMQLQuery",
    ),
    (
        "GET",
        "/repository/semanticTypes",
        "GET /repository/dataClasses/",
    ),
    (
        "GET",
        "/repository/semanticTypes/{objectId}",
        "GET /repository/dataClasses/{objectId}",
    ),
    (
        "PUT",
        "/repository/semanticTypes/{objectId}",
        "PUT /repository/dataClasses/{objectId}",
    ),
    (
        "GET",
        "/types/listEntityTypes",
        "GET /types/listObjectTypes",
    ),
    (
        "PUT",
        "/entities/glossary/classify",
        "POST /semanticMapping/semanticLink",
    ),
    (
        "PUT",
        "/entities/glossary/unclassify",
        "DELETE /semanticMapping/semanticLink",
    ),
    (
        "POST",
        "/repository/createRelationship",
        "POST /dataModel/entityRelationship",
    ),
    (
        "PUT",
        "/repository/setCustomAttributes",
        "PUT /repository/setAttributes",
    ),
    (
        "POST",
        "/dataMapping/exportExcel",
        "POST /dataMapping/exportScript",
    ),
    (
        "GET",
        "/repository/customAttributes/{nameOrId}",
        "POST /repository/metaModel/exportXML",
    ),
];

/// The deprecated method a route is, by the template it matched (`{base}{path}`; every
/// path starts at a segment, so a suffix match is a match of whole segments).
fn deprecated(
    method: &str,
    template: &str,
) -> Option<&'static (&'static str, &'static str, &'static str)> {
    DEPRECATED_METHODS
        .iter()
        .find(|(m, path, _)| *m == method && template.ends_with(path))
}

/// Adds `Deprecation` and `Link` to the answer of a deprecated route.
pub async fn mark(matched: Option<MatchedPath>, request: Request, next: Next) -> Response {
    let found = matched
        .as_ref()
        .and_then(|m| deprecated(request.method().as_str(), m.as_str()));
    let Some(&(_, path, replacement)) = found else {
        return next.run(request).await;
    };
    let link = successor(request.uri().path(), path, replacement);
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert("deprecation", HeaderValue::from_static("true"));
    if let Ok(link) = HeaderValue::from_str(&format!("<{link}>; rel=\"successor-version\"")) {
        headers.insert("link", link);
    }
    response
}

/// The successor's URL path for a call of `called` (a concrete path ending in the
/// template `path`): the call's base path, then the replacement's path with the call's
/// parameter values.
fn successor(called: &str, path: &str, replacement: &str) -> String {
    let target = replacement.split_once(' ').map_or(replacement, |(_, p)| p);
    // Both start with '/': the template's segments are those after its first.
    let template: Vec<&str> = path.split('/').skip(1).collect();
    let segments: Vec<&str> = called.split('/').collect();
    let base_len = segments.len().saturating_sub(template.len());
    let base = segments[..base_len].join("/");
    let values: Vec<(&str, &str)> = template
        .iter()
        .zip(&segments[base_len..])
        .filter(|(t, _)| t.starts_with('{'))
        .map(|(t, v)| (*t, *v))
        .collect();
    let mut target = target.to_owned();
    for (name, value) in values {
        target = target.replace(name, value);
    }
    format!("{base}{target}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_route_by_its_template_under_any_base() {
        assert!(deprecated("GET", "/MM/rest/v1/repository/semanticTypes").is_some());
        assert!(deprecated("GET", "/repository/semanticTypes").is_some());
        assert!(deprecated("PUT", "/repository/semanticTypes").is_none());
        assert!(deprecated("GET", "/MM/rest/v1/repository/dataClasses/").is_none());
        assert!(deprecated("PUT", "/MM/rest/v1/entities/glossary/classify/{objectId}").is_none());
    }

    #[test]
    fn the_successor_keeps_the_base_and_the_parameters() {
        assert_eq!(
            successor(
                "/MM/rest/v1/repository/semanticTypes/City",
                "/repository/semanticTypes/{objectId}",
                "PUT /repository/dataClasses/{objectId}"
            ),
            "/MM/rest/v1/repository/dataClasses/City"
        );
        assert_eq!(
            successor(
                "/entities/glossary/classify",
                "/entities/glossary/classify",
                "POST /semanticMapping/semanticLink"
            ),
            "/semanticMapping/semanticLink"
        );
    }

    /// The table and the OpenAPI document agree: every deprecated method is in the
    /// document marked deprecated, and every operation marked deprecated there is
    /// either in the table or a removed method.
    #[test]
    #[allow(clippy::unwrap_used)]
    fn the_table_is_the_document() {
        let (_, doc) = super::super::api();
        let removed = super::super::removed::REMOVED_METHODS;
        for &(method, path, _) in DEPRECATED_METHODS {
            let operation = &doc["paths"][path][method.to_lowercase()];
            assert_eq!(
                operation["deprecated"],
                serde_json::json!(true),
                "{method} {path} is in the document, marked deprecated"
            );
        }
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                if operation["deprecated"] != serde_json::json!(true) {
                    continue;
                }
                let method = method.to_uppercase();
                let listed = DEPRECATED_METHODS
                    .iter()
                    .chain(removed)
                    .any(|(m, p, _)| *m == method && p == path);
                assert!(
                    listed,
                    "{method} {path} is marked deprecated but in no table"
                );
            }
        }
    }
}
