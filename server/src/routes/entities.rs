//! Browse: reading objects.

use axum::extract::{Path, State};
use axum::response::Response;
use lore_core::{Error, ObjectRef};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, Params};

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct EntityParams {
    /// MQL SELECT list; when present the MQL entity format is asked for.
    pub select: Option<String>,
    /// MQL version (current 3).
    pub mql_version: Option<String>,
}

/// Reads one object (model object, repository object) by id or stable id, in the
/// legacy entity format.
#[utoipa::path(get, path = "/entities/{objectId}", tag = "Browse", security(("api_key" = ["ViewMetadata"])),
    params(("objectId" = String, Path, description = "Object id (`447_16`, `-1_4`), stable id, or URL-encoded repository path"), EntityParams),
    responses((status = 200, description = "The entity"), (status = 404, description = "No such object")))]
pub async fn get_entity(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object_id): Path<String>,
    Params(params): Params<EntityParams>,
) -> ApiResult<Response> {
    if let Some(version) = params.mql_version.as_deref() {
        version
            .trim()
            .parse::<u32>()
            .map_err(|_| Error::invalid(format!("mqlVersion '{version}' is not a number")))?;
    }
    if params.select.is_some() {
        return Err(Error::unsupported(
            "the select parameter (MQL entity format) is not available in this release; omit it for the legacy format",
        )
        .into());
    }
    let reference = ObjectRef::parse(&object_id)?;
    Ok(ok(state.catalog.get_entity(&caller, &reference).await?))
}
