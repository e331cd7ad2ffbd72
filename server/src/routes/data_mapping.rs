//! Data mapping scripts: the lineage between two models as an editable text script
//! (`docs/data-mapping-script.md`).

use std::io::Read;

use axum::extract::{Request, State};
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use lore_core::Error;
use serde::Deserialize;
use utoipa::IntoParams;

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, Params};
use crate::upload::{MAPPING_SCRIPT, spool_upload};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ExportScriptParams {
    /// The model the data flows from (id or repository path).
    pub source_model_id: Option<String>,
    /// The model it flows to; the source model when absent (lineage inside one model).
    pub target_model_id: Option<String>,
}

fn present(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

/// Exports the data mapping from one model to another (the lineage from the objects of
/// one to those of the other, with its transformation logic) as a script that
/// importScript takes back after editing (View Metadata on both models).
#[utoipa::path(post, path = "/dataMapping/exportScript", tag = "Data Mapping", security(("api_key" = ["ViewMetadata"])),
    params(ExportScriptParams),
    responses((status = 200, description = "The script", content_type = "text/plain"),
        (status = 400, description = "No sourceModelId, or an id that is no model"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without View Metadata on a model"),
        (status = 404, description = "No such model")))]
pub async fn export_script(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<ExportScriptParams>,
) -> ApiResult<Response> {
    let source = present(params.source_model_id.as_deref())
        .ok_or_else(|| Error::missing("sourceModelId"))?;
    let target = present(params.target_model_id.as_deref()).unwrap_or(source);
    let script = state
        .catalog
        .lineage()
        .export_mapping_script(&caller, source, target)
        .await?;
    Ok((
        [
            (CONTENT_TYPE, "text/plain; charset=utf-8"),
            (
                CONTENT_DISPOSITION,
                "attachment; filename=\"data-mapping.txt\"",
            ),
        ],
        script,
    )
        .into_response())
}

/// Deprecated: answered as POST /dataMapping/exportScript, whose output can be edited and
/// imported by POST /dataMapping/importScript.
#[utoipa::path(post, path = "/dataMapping/exportExcel", tag = "Data Mapping", security(("api_key" = ["ViewMetadata"])),
    params(ExportScriptParams),
    responses((status = 200, description = "As POST /dataMapping/exportScript", content_type = "text/plain"),
        (status = 400, description = "No sourceModelId, or an id that is no model"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without View Metadata on a model"),
        (status = 404, description = "No such model")))]
#[deprecated]
pub async fn export_excel(
    state: State<AppState>,
    caller: Authenticated,
    params: Params<ExportScriptParams>,
) -> ApiResult<Response> {
    export_script(state, caller, params).await
}

/// Imports a data mapping script: the mapping between the two models it names becomes
/// the script's, all or nothing (Edit Metadata on both models). A bad line refuses the
/// script with its line number.
#[utoipa::path(post, path = "/dataMapping/importScript", tag = "Data Mapping", security(("api_key" = ["EditMetadata"])),
    request_body(content = String, content_type = "text/plain", description = "The script, raw or as a multipart file"),
    responses((status = 200, description = "`{mappings, added, removed, unchanged}`"),
        (status = 400, description = "Not a script, or a line naming what the models do not hold"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without Edit Metadata on a model"),
        (status = 404, description = "No such model"),
        (status = 413, description = "Larger than server.max_upload_mib"), (status = 415, description = "Not text or multipart")))]
pub async fn import_script(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    request: Request,
) -> ApiResult<Response> {
    let (mut file, _) = spool_upload(request, &state, &MAPPING_SCRIPT).await?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| Error::internal(format!("cannot read the spooled upload: {e}")))?;
    Ok(ok(state
        .catalog
        .lineage()
        .import_mapping_script(&caller, &bytes)
        .await?))
}
