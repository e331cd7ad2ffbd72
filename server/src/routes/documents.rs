//! Dashboards (a user's dashboard definitions, kept whole) and the license.

use std::io::Read;

use axum::extract::{Request, State};
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use lore_core::Error;
use serde::Deserialize;
use serde_json::Value;
use utoipa::IntoParams;

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, JsonBody, Params, flag};
use crate::upload::{DASHBOARD_JSON, spool_upload};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct DashboardImportParams {
    /// The dashboard's name; the definition's own `name` when absent.
    pub name: Option<String>,
    /// Replace a dashboard of the same name (`true`/`false`, default false).
    pub replace: Option<String>,
}

/// Imports a dashboard definition (a JSON object: `name`, `widgets` — objects with a
/// `type` — and whatever else the definition holds) from a file, as one of the caller's
/// dashboards (View Metadata).
#[utoipa::path(post, path = "/repository/dashboard/import", tag = "Repository", security(("api_key" = ["ViewMetadata"])),
    params(DashboardImportParams),
    request_body(content = Object, content_type = "application/json", description = "The dashboard definition, raw or as a multipart file"),
    responses((status = 200, description = "`{name, widgets, replaced}`"),
        (status = 400, description = "Not JSON, or not a dashboard definition; the message says what"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without View Metadata"),
        (status = 409, description = "A dashboard of that name exists and replace is not set"),
        (status = 413, description = "Larger than server.max_upload_mib"), (status = 415, description = "Not JSON or multipart")))]
pub async fn import_dashboard(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<DashboardImportParams>,
    request: Request,
) -> ApiResult<Response> {
    let replace = flag(params.replace.as_deref(), "replace")?;
    let (mut file, _) = spool_upload(request, &state, &DASHBOARD_JSON).await?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| Error::internal(format!("cannot read the spooled upload: {e}")))?;
    Ok(ok(state
        .catalog
        .objects()
        .import_dashboard(&caller, &bytes, params.name.as_deref(), replace)
        .await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct DashboardExportParams {
    /// The name of one of the caller's dashboards.
    pub name: Option<String>,
}

/// Exports one of the caller's dashboards as a JSON file that import takes back (View
/// Metadata).
#[utoipa::path(post, path = "/repository/dashboard/export", tag = "Repository", security(("api_key" = ["ViewMetadata"])),
    params(DashboardExportParams),
    responses((status = 200, description = "The definition as a file", content_type = "application/json"),
        (status = 400, description = "No name"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without View Metadata"), (status = 404, description = "No such dashboard of the caller")))]
pub async fn export_dashboard(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<DashboardExportParams>,
) -> ApiResult<Response> {
    let name = params
        .name
        .as_deref()
        .filter(|n| !n.trim().is_empty())
        .ok_or_else(|| Error::missing("name"))?;
    let definition = state
        .catalog
        .objects()
        .export_dashboard(&caller, name)
        .await?;
    let file: String = name
        .trim()
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let bytes = serde_json::to_vec_pretty(&definition)
        .map_err(|e| Error::internal(format!("cannot write a dashboard: {e}")))?;
    Ok((
        [
            (CONTENT_TYPE, "application/json".to_owned()),
            (
                CONTENT_DISPOSITION,
                format!("attachment; filename=\"{file}.json\""),
            ),
        ],
        bytes,
    )
        .into_response())
}

/// The license record (documented shape; the handler checks it and answers LICENSE_ERROR
/// for what is wrong).
#[derive(Debug, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code, reason = "the document's schema of the body")]
pub struct LicenseBody {
    /// Who the license is for.
    licensee: String,
    /// When it expires: a date (`YYYY-MM-DD`) or RFC 3339, in the future.
    expires_at: String,
    edition: Option<String>,
    /// At least 1.
    #[schema(minimum = 1)]
    seats: Option<u64>,
    /// The license key; answered masked.
    key: Option<String>,
}

/// Checks and keeps the license record (Administer): `licensee`, `expiresAt` (a future
/// date), optionally `edition`, `seats` and `key`. Answers it with `daysLeft` and the key
/// masked.
#[utoipa::path(post, path = "/License/updateLicense", tag = "License", security(("api_key" = ["Administer"])),
    request_body = LicenseBody,
    responses((status = 200, description = "`{licensee, edition, seats, expiresAt, daysLeft, key, updatedAt}`"),
        (status = 400, description = "Not JSON (INVALID_PARAMETER), or not a valid license (LICENSE_ERROR: a missing or unknown field, a bad date, expired)"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without Administer")))]
pub async fn update_license(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    JsonBody(record): JsonBody<Value>,
) -> ApiResult<Response> {
    Ok(ok(state
        .catalog
        .objects()
        .update_license(&caller, &record)
        .await?))
}
