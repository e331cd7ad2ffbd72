//! The API routes, one module per endpoint group. Each handler parses its input, calls
//! one `Catalog` method and wraps the result in the envelope.

pub mod auth;
pub mod configuration;
pub mod entities;
pub mod health;
pub mod operations;
pub mod removed;
pub mod repository;
pub mod types;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{Method, Uri};
use lore_core::ErrorCode;
use utoipa::openapi::OpenApi as OpenApiDoc;
use utoipa::openapi::security::{ApiKey, ApiKeyValue, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::AppState;
use crate::error::ApiError;

#[derive(OpenApi)]
#[openapi(
    info(
        title = "Lore",
        description = "Open metadata management server. Every response is a ResponseObject \
            `{\"result\": ..., \"error\": {\"errorCode\", \"message\"}}`; log in with POST /auth/login \
            and send the key in the `api-key` (or `api_key`) header."
    ),
    modifiers(&KeyHeader),
    tags(
        (name = "Authentication"), (name = "Browse"), (name = "Repository"),
        (name = "Types"), (name = "Operation"), (name = "Removed")
    )
)]
struct ApiDoc;

struct KeyHeader;

impl Modify for KeyHeader {
    fn modify(&self, openapi: &mut OpenApiDoc) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "api_key",
            SecurityScheme::ApiKey(ApiKey::Header(ApiKeyValue::new("api-key"))),
        );
    }
}

/// The API routes (relative to the base path) and their OpenAPI document.
pub fn api() -> (Router<AppState>, OpenApiDoc) {
    let router = OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(auth::login))
        .routes(routes!(auth::login_plain_text))
        .routes(routes!(auth::logout))
        .routes(routes!(entities::get_entity))
        .routes(routes!(repository::get_context))
        .routes(routes!(repository::create_folder))
        .merge(
            // Uploads have their own limit (`server.max_upload_mib`), applied as they spool.
            OpenApiRouter::new()
                .routes(routes!(repository::import_model))
                .layer(DefaultBodyLimit::disable()),
        )
        .routes(routes!(repository::export_model))
        .routes(routes!(configuration::list_models))
        .routes(routes!(configuration::list_connected_models))
        .routes(routes!(types::list_object_types))
        .routes(routes!(types::list_entity_types))
        .routes(routes!(types::list_attribute_types))
        .routes(routes!(types::list_group_types))
        .routes(routes!(types::list_profiles))
        .routes(routes!(types::list_categories))
        .routes(routes!(operations::repository_browse));
    let (router, mut openapi) = router.split_for_parts();
    let router = removed::register(router, &mut openapi);
    (
        router.method_not_allowed_fallback(method_not_allowed),
        openapi,
    )
}

pub async fn not_found(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        ErrorCode::NotFound,
        format!(
            "no endpoint {method} {}; paths are case-sensitive",
            uri.path()
        ),
    )
}

pub async fn method_not_allowed(method: Method, uri: Uri) -> ApiError {
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        format!("{} does not accept {method}", uri.path()),
    )
}
