//! Deprecated methods answered by the method that replaced them (spec 9): the CSV
//! exports and import of models, the distinct value counts and the inferred semantic
//! objects. [`super::deprecated`] marks their answers.

use axum::extract::{Request, State};
use axum::response::Response;

use super::entities::{
    ExecuteInput, ExecuteParams, ValueCountsInput, execute_mql_query, get_attribute_value_counts,
};
use super::repository::{ExportParams, ImportParams, export_model, import_model};
use crate::AppState;
use crate::error::ApiResult;
use crate::extract::{Authenticated, JsonBody, Params};

/// Deprecated (11.1): `POST /repository/model/export`, which it answers.
#[utoipa::path(post, path = "/repository/semanticMapping/exportCSV", tag = "Repository", security(("api_key" = ["ViewMetadata"])), params(ExportParams),
    request_body(content = ExportParams, description = "As POST /repository/model/export"),
    responses((status = 200, description = "As POST /repository/model/export", content_type = "application/x-download"),
        (status = 400, description = "No modelId"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without View Metadata"), (status = 404, description = "No such model")))]
#[deprecated]
pub async fn semantic_mapping_export_csv(
    state: State<AppState>,
    caller: Authenticated,
    params: Params<ExportParams>,
    request: Request,
) -> ApiResult<Response> {
    export_model(state, caller, params, request).await
}

/// Deprecated (11.1): `POST /repository/model/export`, which it answers.
#[utoipa::path(post, path = "/operations/glossary/exportAndDownloadCSV", tag = "Repository", security(("api_key" = ["ViewMetadata"])), params(ExportParams),
    request_body(content = ExportParams, description = "As POST /repository/model/export"),
    responses((status = 200, description = "As POST /repository/model/export", content_type = "application/x-download"),
        (status = 400, description = "No modelId"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without View Metadata"), (status = 404, description = "No such model")))]
#[deprecated]
pub async fn glossary_export_and_download_csv(
    state: State<AppState>,
    caller: Authenticated,
    params: Params<ExportParams>,
    request: Request,
) -> ApiResult<Response> {
    export_model(state, caller, params, request).await
}

/// Deprecated (11.0): `POST /repository/model/export`, which it answers.
#[utoipa::path(post, path = "/repository/databaseDocumentation/exportCSV", tag = "Repository", security(("api_key" = ["ViewMetadata"])), params(ExportParams),
    request_body(content = ExportParams, description = "As POST /repository/model/export"),
    responses((status = 200, description = "As POST /repository/model/export", content_type = "application/x-download"),
        (status = 400, description = "No modelId"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without View Metadata"), (status = 404, description = "No such model")))]
#[deprecated]
pub async fn database_documentation_export_csv(
    state: State<AppState>,
    caller: Authenticated,
    params: Params<ExportParams>,
    request: Request,
) -> ApiResult<Response> {
    export_model(state, caller, params, request).await
}

/// Deprecated (11.1): `POST /repository/model/import`, which it answers.
#[utoipa::path(post, path = "/repository/semanticMapping/importCSV", tag = "Repository", security(("api_key" = ["Import"])), params(ImportParams),
    request_body(content = Vec<u8>, content_type = "application/zip", description = "The model archive"),
    responses((status = 200, description = "As POST /repository/model/import"), (status = 400, description = "Invalid archive"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without Import"),
        (status = 413, description = "Archive too large"), (status = 415, description = "Not a zip or multipart upload")))]
#[deprecated]
pub async fn semantic_mapping_import_csv(
    state: State<AppState>,
    caller: Authenticated,
    params: Params<ImportParams>,
    request: Request,
) -> ApiResult<Response> {
    import_model(state, caller, params, request).await
}

/// Deprecated (11.0): `POST /entities/getAttributeValueCounts`, which it answers.
#[utoipa::path(post, path = "/entities/getAttributeDistinctValueCounts", tag = "Browse", security(("api_key" = ["ViewMetadata"])),
    request_body = ValueCountsInput,
    responses((status = 200, description = "As POST /entities/getAttributeValueCounts"),
        (status = 400, description = "The query is not valid MQL, or dateRangeGap or limit is wrong"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without View Metadata")))]
#[deprecated]
pub async fn get_attribute_distinct_value_counts(
    state: State<AppState>,
    caller: Authenticated,
    body: JsonBody<ValueCountsInput>,
) -> ApiResult<Response> {
    get_attribute_value_counts(state, caller, body).await
}

/// The Inferred Documentation attribute, as a SELECT item.
const INFERRED: &str = "\"Inferred Documentation\"";

/// Deprecated (11.0): `POST /entities/executeMQLQuery` with the Inferred Documentation
/// attribute, which it answers: the query's SELECT list (`Name` when absent) with
/// Inferred Documentation added.
#[utoipa::path(post, path = "/entities/getInferredSemanticObjects", tag = "Browse", security(("api_key" = ["ViewMetadata"])),
    params(ExecuteParams),
    request_body = ExecuteInput,
    responses((status = 200, description = "As POST /entities/executeMQLQuery"),
        (status = 400, description = "The query is not valid MQL, or the page is out of range"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without View Metadata")))]
#[deprecated]
pub async fn get_inferred_semantic_objects(
    state: State<AppState>,
    caller: Authenticated,
    params: Params<ExecuteParams>,
    JsonBody(mut body): JsonBody<ExecuteInput>,
) -> ApiResult<Response> {
    let select = match body.query.select.as_deref().map(str::trim) {
        None => format!("Name, {INFERRED}"),
        // An empty list is refused as executeMQLQuery refuses it.
        Some("") => String::new(),
        Some(select) if select.contains(INFERRED) => select.to_owned(),
        Some(select) => format!("{select}, {INFERRED}"),
    };
    body.query.select = Some(select);
    execute_mql_query(state, caller, params, JsonBody(body)).await
}
