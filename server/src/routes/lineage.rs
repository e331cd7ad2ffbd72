//! Lineage: the operations along the data flow of an object.

use axum::extract::{Path, State};
use axum::response::Response;
use lore_core::catalog::{AsOf, LineageRequest};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, Params};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct LineageParams {
    /// `upstream`, `downstream` or `both` (default).
    pub direction: Option<String>,
    /// How many edges away from the starting object, 1 to 20 (default 5).
    pub depth: Option<String>,
    /// How many edges are followed from each object, 1 to 1,000 (default 100).
    pub fan_out: Option<String>,
    /// How many operations each direction answers, 1 to 10,000 (default 1,000).
    pub limit: Option<String>,
    /// Walk the lineage as it was then: an RFC 3339 time or a version id (see
    /// `GET /history/objects/{objectId}`).
    pub as_of: Option<String>,
}

/// The operations along the data flow of an object: upstream (what feeds it) and
/// downstream (what it feeds), each with its transformation logic and depth, walked
/// inside the database within the bounds given (View Metadata on the object; only
/// objects the caller sees, reached through objects they see).
#[utoipa::path(get, path = "/lineage/getOperations/{startingId}", tag = "Lineage", security(("api_key" = ["ViewMetadata"])),
    params(("startingId" = String, Path, description = "The starting object: id, stable id or path"), LineageParams),
    responses((status = 200, description = "`{startingObject, operations: [{direction, depth, source, target, operation}], truncated, depth, fanOut, limit}`"),
        (status = 400, description = "A bound out of range, an unknown direction, a malformed asOf or an asOf not kept"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without View Metadata on the object"),
        (status = 404, description = "No such object")))]
pub async fn get_operations(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(start): Path<String>,
    Params(params): Params<LineageParams>,
) -> ApiResult<Response> {
    let as_of = params.as_of.as_deref().map(AsOf::parse).transpose()?;
    let request = LineageRequest {
        direction: params.direction,
        depth: params.depth,
        fan_out: params.fan_out,
        limit: params.limit,
    };
    if let Some(as_of) = as_of {
        return Ok(ok(state
            .catalog
            .lineage()
            .lineage_operations_as_of(&caller, &start, &request, as_of)
            .await?));
    }
    Ok(ok(state
        .catalog
        .lineage()
        .lineage_operations(&caller, &start, &request)
        .await?))
}
