//! The API routes, one module per endpoint group. Each handler parses its input, calls
//! one `Catalog` method and wraps the result in the envelope.

pub mod admin;
pub mod aliases;
pub mod auth;
pub mod backup;
pub mod configuration;
pub mod curation;
pub mod data_mapping;
pub mod deprecated;
pub mod documents;
pub mod entities;
pub mod governance;
pub mod grants;
pub mod groups;
pub mod health;
pub mod history;
pub mod imports;
pub mod lineage;
pub mod meta_model;
pub mod notifications;
pub mod openapi;
pub mod openlineage;
pub mod operations;
pub mod relationships;
pub mod removed;
pub mod repository;
pub mod semantics;
pub mod types;
pub mod users;
pub mod worksheets;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::{Method, Uri};
use axum::response::IntoResponse;
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
        (name = "Types"), (name = "Operation"), (name = "Worksheets"), (name = "Users"), (name = "Roles"),
        (name = "Governance"), (name = "Glossary"), (name = "Semantic Mapping"), (name = "Data Model"), (name = "Lineage"), (name = "Data Mapping"), (name = "Curation"), (name = "Notifications"), (name = "License"),
        (name = "Administration"), (name = "History"),
        (name = "Removed")
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

/// The API routes (relative to the base path) and their OpenAPI document, as JSON.
pub fn api() -> (Router<AppState>, serde_json::Value) {
    let router = OpenApiRouter::with_openapi(ApiDoc::openapi())
        .routes(routes!(auth::login))
        .routes(routes!(auth::login_plain_text))
        .routes(routes!(auth::login_oauth2))
        .routes(routes!(auth::logout))
        .routes(routes!(entities::get_entity))
        .merge(history_routes())
        .routes(routes!(entities::validate_mql_query))
        .routes(routes!(entities::upgrade_mql_query))
        .routes(routes!(entities::count_mql_query))
        .routes(routes!(entities::execute_mql_query))
        .routes(routes!(entities::get_attribute_value_counts))
        .routes(routes!(relationships::get_relationships))
        .routes(routes!(relationships::count_relationships))
        .routes(routes!(worksheets::execute_worksheet))
        .routes(routes!(worksheets::count_worksheet))
        .routes(routes!(
            worksheets::create_worksheet,
            worksheets::list_worksheets
        ))
        .routes(routes!(
            worksheets::get_worksheet,
            worksheets::delete_worksheet
        ))
        .routes(routes!(
            users::update_user,
            users::create_user,
            users::list_users
        ))
        .routes(routes!(users::get_user, users::delete_user))
        .routes(routes!(users::link_identity, users::unlink_identity))
        .routes(routes!(
            groups::list_groups,
            groups::create_group,
            groups::update_group
        ))
        .routes(routes!(groups::get_group, groups::delete_group))
        .routes(routes!(groups::add_members))
        .routes(routes!(groups::remove_member))
        .routes(routes!(grants::get_global_roles))
        .routes(routes!(grants::get_global_grantees))
        .routes(routes!(grants::grant_global_roles))
        .routes(routes!(grants::revoke_global_role))
        .routes(routes!(grants::get_object_roles))
        .routes(routes!(grants::get_object_grantees))
        .routes(routes!(grants::grant_object_role))
        .routes(routes!(grants::revoke_object_role))
        .routes(routes!(grants::export_global_roles_csv))
        .routes(routes!(grants::export_object_roles_csv))
        .routes(routes!(governance::list_data_classes))
        .routes(routes!(
            governance::get_data_class,
            governance::put_data_class
        ))
        .routes(routes!(
            governance::list_sensitivity_labels,
            governance::put_sensitivity_label
        ))
        .routes(routes!(
            governance::get_object_labels,
            governance::put_object_label
        ))
        .routes(routes!(
            governance::get_data_profiling,
            governance::put_data_profiling,
            governance::post_data_profiling_upper
        ))
        .routes(routes!(
            governance::get_data_profiling_lower,
            governance::put_data_profiling_lower,
            governance::post_data_profiling
        ))
        .routes(routes!(grants::list_roles, grants::put_role))
        .routes(routes!(grants::delete_role))
        .merge(
            OpenApiRouter::new()
                .routes(routes!(grants::import_global_roles_csv))
                .routes(routes!(grants::import_object_roles_csv))
                .layer(DefaultBodyLimit::disable()),
        )
        .routes(routes!(repository::get_context))
        .routes(routes!(repository::create_folder))
        .merge(
            // Uploads have their own limit (`server.max_upload_mib`), applied as they spool.
            OpenApiRouter::new()
                .routes(routes!(repository::import_model))
                .routes(routes!(imports::attach_file))
                .routes(routes!(meta_model::import_xml))
                .routes(routes!(documents::import_dashboard))
                .routes(routes!(data_mapping::import_script))
                .routes(routes!(backup::restore))
                .layer(DefaultBodyLimit::disable()),
        )
        .routes(routes!(
            imports::get_import_model,
            imports::put_import_model
        ))
        .routes(routes!(imports::list_importers))
        .routes(routes!(imports::download_model_attachment))
        .routes(routes!(imports::start_import))
        .routes(routes!(imports::list_operations))
        .routes(routes!(imports::download_operation_log))
        .routes(routes!(repository::export_model))
        .routes(routes!(backup::backup))
        .routes(routes!(configuration::list_models))
        .routes(routes!(configuration::list_connected_models))
        .routes(routes!(types::list_object_types))
        .routes(routes!(types::list_attribute_types))
        .routes(routes!(types::list_group_types))
        .routes(routes!(types::list_profiles))
        .routes(routes!(types::list_categories))
        .routes(routes!(operations::repository_browse))
        .routes(routes!(admin::system_log))
        .routes(routes!(
            semantics::add_semantic_link,
            semantics::remove_semantic_link
        ))
        .routes(routes!(
            semantics::add_entity_relationship,
            semantics::remove_entity_relationship
        ))
        .routes(routes!(repository::set_attributes))
        .routes(routes!(meta_model::export_xml))
        .routes(routes!(semantics::put_term))
        .routes(routes!(semantics::classify))
        .routes(routes!(semantics::unclassify))
        .routes(routes!(semantics::term_reports))
        .routes(routes!(lineage::get_operations))
        .routes(routes!(documents::export_dashboard))
        .routes(routes!(documents::update_license))
        .routes(routes!(data_mapping::export_script))
        .routes(routes!(
            curation::get_curation,
            curation::add_curation,
            curation::remove_curation
        ))
        .routes(routes!(curation::workflow_transition))
        .routes(routes!(notifications::list_notifications))
        .routes(routes!(notifications::mark_notification))
        .routes(routes!(notifications::list_deliveries));
    let router = deprecated_routes(router);
    let (router, mut openapi) = router.split_for_parts();
    let router = router.layer(axum::middleware::from_fn(deprecated::mark));
    // The 405 answer is set by `app`, after the key gate, so that a wrong method answers
    // 405 with or without a key.
    let router = removed::register(router, &mut openapi);
    (router, completed(openapi))
}

/// History: an object's changes, a model's versions, two states of a model compared.
fn history_routes() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(history::object_history))
        .routes(routes!(history::grant_history))
        .routes(routes!(history::upstream_changes))
        .routes(routes!(
            history::configuration_pin,
            history::pin_configuration,
            history::unpin_configuration
        ))
        .routes(routes!(history::model_versions))
        .routes(routes!(history::compare))
}

/// The document as JSON with what every operation shares filled in
/// ([`openapi::complete`]).
fn completed(document: OpenApiDoc) -> serde_json::Value {
    let mut value = match serde_json::to_value(&document) {
        Ok(value) => value,
        Err(e) => {
            tracing::error!(error = %e, "cannot write the OpenAPI document as JSON");
            return serde_json::Value::Null;
        }
    };
    openapi::complete(&mut value);
    value
}

/// The deprecated routes that still work, answering as their replacements.
#[allow(deprecated, reason = "registering them is what keeps them working")]
fn deprecated_routes(router: OpenApiRouter<AppState>) -> OpenApiRouter<AppState> {
    router
        .merge(
            OpenApiRouter::new()
                .routes(routes!(aliases::semantic_mapping_import_csv))
                .layer(DefaultBodyLimit::disable()),
        )
        .routes(routes!(types::list_entity_types))
        .routes(routes!(semantics::classify_deprecated))
        .routes(routes!(semantics::unclassify_deprecated))
        .routes(routes!(semantics::create_relationship))
        .routes(routes!(repository::set_custom_attributes))
        .routes(routes!(meta_model::custom_attribute))
        .routes(routes!(data_mapping::export_excel))
        .routes(routes!(aliases::semantic_mapping_export_csv))
        .routes(routes!(aliases::glossary_export_and_download_csv))
        .routes(routes!(aliases::database_documentation_export_csv))
        .routes(routes!(aliases::get_attribute_distinct_value_counts))
        .routes(routes!(aliases::get_inferred_semantic_objects))
        .routes(routes!(governance::list_semantic_types))
        .routes(routes!(
            governance::get_semantic_type,
            governance::put_semantic_type
        ))
}

pub async fn not_found(method: Method, uri: Uri) -> axum::response::Response {
    if crate::ui::is_ui_path(uri.path()) {
        return crate::ui::not_found();
    }
    ApiError::new(
        ErrorCode::NotFound,
        format!(
            "no endpoint {method} {}; paths are case-sensitive",
            uri.path()
        ),
    )
    .into_response()
}

pub async fn method_not_allowed(method: Method, uri: Uri) -> axum::response::Response {
    if crate::ui::is_ui_path(uri.path()) {
        return crate::ui::method_not_allowed();
    }
    ApiError::new(
        ErrorCode::MethodNotAllowed,
        format!("{} does not accept {method}", uri.path()),
    )
    .into_response()
}

#[cfg(test)]
mod tests {
    use lore_core::model::Capability;

    use crate::gate::{BASE, is_public};

    /// The document says what the gate does: a public route declares no security, every
    /// other one the `api_key` scheme, its scopes naming the capabilities the call needs,
    /// globally or on the object it touches (none: a login is enough, or the call acts
    /// on the caller themselves).
    #[test]
    #[allow(clippy::unwrap_used)]
    fn the_document_declares_the_key_every_gated_route_needs() {
        let (_, doc) = super::api();
        let mut checked = 0;
        for (path, item) in doc["paths"].as_object().unwrap() {
            for (method, operation) in item.as_object().unwrap() {
                let Some(security) = operation.get("security") else {
                    assert!(
                        is_public(method, &format!("{BASE}{path}")),
                        "{method} {path} is off the public list and must declare api_key"
                    );
                    checked += 1;
                    continue;
                };
                assert!(
                    !is_public(method, &format!("{BASE}{path}")),
                    "{method} {path} is public and must declare no security"
                );
                let scopes = security[0]["api_key"].as_array().unwrap_or_else(|| {
                    panic!("{method} {path}: security names the api_key scheme: {security}")
                });
                for scope in scopes {
                    serde_json::from_value::<Capability>(scope.clone()).unwrap_or_else(|e| {
                        panic!("{method} {path}: scope {scope} is no capability: {e}")
                    });
                }
                checked += 1;
            }
        }
        assert!(checked > 20, "only {checked} operations");
    }
}
