//! Methods removed in release 11.0: they answer 410 METHOD_REMOVED naming their
//! replacement, so an old client learns what to call instead. The removed GET logins are
//! public (their callers have no key yet); every other removed method wants a valid key
//! first, like any route off the public list.

use axum::Router;
use axum::routing::{MethodFilter, on};
use lore_core::ErrorCode;
use utoipa::openapi::OpenApi;
use utoipa::openapi::path::{HttpMethod, OperationBuilder, PathItem};
use utoipa::openapi::response::ResponseBuilder;
use utoipa::openapi::security::SecurityRequirement;

use crate::AppState;
use crate::error::ApiError;

/// `(method, path, replacement)` of every removed method.
pub const REMOVED_METHODS: &[(&str, &str, &str)] = &[
    ("GET", "/auth/login", "POST /auth/login"),
    ("GET", "/auth/loginPlainText", "POST /auth/loginPlainText"),
    ("GET", "/auth/loginOAuth2", "POST /auth/loginOAuth2"),
    ("POST", "/entities", "POST /entities/executeMQLQuery"),
    (
        "POST",
        "/entities/countEntities",
        "GET /entities/countMQLQuery",
    ),
    (
        "GET",
        "/repository/getModelImportParameters",
        "GET /repository/importModel",
    ),
    (
        "GET",
        "/repository/getDataParameters",
        "GET /repository/importModel",
    ),
    (
        "PUT",
        "/repository/setModelImportParameters",
        "PUT /repository/importModel",
    ),
    (
        "PUT",
        "/repository/setDataParameters",
        "PUT /repository/importModel",
    ),
    (
        "POST",
        "/operations/repositoryExport/attachFile",
        "POST /repository/attachments/{objectId}",
    ),
    ("POST", "/search/entity", "POST /entities/executeMQLQuery"),
    ("POST", "/entities/getAttributeStatistics", "none"),
    ("POST", "/entities/getAttributeStatisticsCount", "none"),
    (
        "GET",
        "/admin/grants/{objectId}",
        "GET /admin/grants/getObjectRoles/{objectId}",
    ),
    (
        "PUT",
        "/admin/grants/{objectId}/{userGroupId}",
        "PUT /admin/grants/grantObjectRole/{objectId} and PUT /admin/grants/revokeObjectRole/{objectId}",
    ),
    (
        "GET",
        "/admin/stewards/{objectId}",
        "GET /admin/grants/getObjectGrantees/{objectId}",
    ),
    (
        "PUT",
        "/admin/stewards/{objectId}",
        "PUT /admin/grants/grantObjectRole/{objectId} and revokeObjectRole",
    ),
];

fn filter_and_method(method: &str) -> (MethodFilter, HttpMethod) {
    match method {
        "GET" => (MethodFilter::GET, HttpMethod::Get),
        "PUT" => (MethodFilter::PUT, HttpMethod::Put),
        "DELETE" => (MethodFilter::DELETE, HttpMethod::Delete),
        _ => (MethodFilter::POST, HttpMethod::Post),
    }
}

/// Adds the removed methods to the router and the OpenAPI document (as deprecated).
pub fn register(mut router: Router<AppState>, openapi: &mut OpenApi) -> Router<AppState> {
    for &(method, path, replacement) in REMOVED_METHODS {
        let (filter, http_method) = filter_and_method(method);
        let message = if replacement == "none" {
            format!("{method} {path} was removed in release 11.0 and has no replacement")
        } else {
            format!("{method} {path} was removed in release 11.0; use {replacement}")
        };
        router = router.route(
            path,
            on(filter, move || async move {
                ApiError::new(ErrorCode::MethodRemoved, message)
            }),
        );
        let mut operation = OperationBuilder::new()
            .tag("Removed")
            .summary(Some(format!("Removed in 11.0; use {replacement}")))
            .deprecated(Some(utoipa::openapi::Deprecated::True))
            .response(
                "410",
                ResponseBuilder::new().description("METHOD_REMOVED, naming the replacement"),
            );
        // Like any route off the public list, a removed one wants a key first (any
        // user's: the answer is the same for all).
        if !crate::gate::is_public(method, &format!("{}{path}", crate::gate::BASE)) {
            operation = operation
                .security(SecurityRequirement::new("api_key", Vec::<String>::new()))
                .response(
                    "401",
                    ResponseBuilder::new().description("Missing or invalid key"),
                );
        }
        let operation = operation.build();
        match openapi.paths.paths.get_mut(path) {
            Some(item) => item.merge_operations(PathItem::new(http_method, operation)),
            None => {
                openapi
                    .paths
                    .paths
                    .insert(path.to_owned(), PathItem::new(http_method, operation));
            }
        }
    }
    router
}
