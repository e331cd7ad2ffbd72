//! Relationships: the objects related to an object.

use axum::extract::{Path, State};
use axum::response::Response;
use lore_core::ObjectRef;
use lore_core::catalog::mql_version;

use lore_core::Error;
use lore_core::catalog::AsOf;

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, Params};
use crate::routes::entities::EntityReadParams;

/// The `asOf` of a read in the legacy format: refused with `select`.
fn as_of(params: &EntityReadParams) -> Result<Option<AsOf>, Error> {
    let as_of = params.as_of.as_deref().map(AsOf::parse).transpose()?;
    if as_of.is_some() && params.select.is_some() {
        return Err(Error::invalid(
            "asOf reads the legacy entity format: leave out select, or asOf",
        ));
    }
    Ok(as_of)
}

/// The objects related to an object by an edge of any kind, either way, each once, by
/// name: in the legacy entity format, or with `select` in the MQL entity format.
#[utoipa::path(get, path = "/relationships/{objectId}", tag = "Browse", security(("api_key" = ["ViewMetadata"])),
    params(("objectId" = String, Path, description = "Object id (`447_16`), stable id, or URL-encoded repository path"), EntityReadParams),
    responses((status = 200, description = "An array of entities"), (status = 400, description = "A malformed id, SELECT list or asOf, or an asOf not kept"), (status = 404, description = "No such object")))]
pub async fn get_relationships(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object_id): Path<String>,
    Params(params): Params<EntityReadParams>,
) -> ApiResult<Response> {
    let version = mql_version(params.mql_version.as_deref())?;
    let reference = ObjectRef::parse(&object_id)?;
    if let Some(as_of) = as_of(&params)? {
        return Ok(ok(state
            .catalog
            .history()
            .relationships_as_of(&caller, &reference, as_of)
            .await?));
    }
    Ok(ok(state
        .catalog
        .search()
        .relationships(&caller, &reference, params.select.as_deref(), version)
        .await?))
}

/// How many objects `GET /relationships/{objectId}` answers.
#[utoipa::path(get, path = "/relationships/count/{objectId}", tag = "Browse", security(("api_key" = ["ViewMetadata"])),
    params(("objectId" = String, Path, description = "Object id (`447_16`), stable id, or URL-encoded repository path"), EntityReadParams),
    responses((status = 200, description = "The number of related objects"), (status = 400, description = "A malformed id, mqlVersion or asOf, or an asOf not kept"), (status = 404, description = "No such object")))]
pub async fn count_relationships(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object_id): Path<String>,
    Params(params): Params<EntityReadParams>,
) -> ApiResult<Response> {
    let version = mql_version(params.mql_version.as_deref())?;
    let reference = ObjectRef::parse(&object_id)?;
    if let Some(as_of) = as_of(&params)? {
        return Ok(ok(state
            .catalog
            .history()
            .count_relationships_as_of(&caller, &reference, as_of)
            .await?));
    }
    Ok(ok(state
        .catalog
        .search()
        .count_relationships(&caller, &reference, version)
        .await?))
}
