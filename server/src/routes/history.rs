//! History: an object's changes, newest first (`asOf` on the entity read is in
//! `entities.rs`).

use axum::extract::{Path, State};
use axum::response::Response;
use lore_core::{Error, ObjectRef};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, Params};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct HistoryParams {
    /// Only changes made before this version: the `nextBefore` of the page before.
    pub before: Option<String>,
    /// Changes on the page, 1 to 500 (default 50); the last version on a page is whole.
    pub limit: Option<String>,
}

/// A whole number a query parameter holds.
fn number<T: std::str::FromStr>(name: &str, text: Option<&str>) -> Result<Option<T>, Error> {
    text.map(|t| {
        t.trim().parse().map_err(|_| {
            let shown: String = t.chars().take(32).collect();
            Error::invalid(format!("{name} must be a whole number, not '{shown}'"))
        })
    })
    .transpose()
}

/// An object's changes, newest first: each with its version, time, author (`source`,
/// `user`, `operationId`), kind (`created`, `deleted`, `moved`, `attribute`, `label`,
/// `collection`, `dataClass`, `sensitivityLabel`, `edge`), name, and old and new values.
/// A deleted object's history is read by its id.
#[utoipa::path(get, path = "/history/objects/{objectId}", tag = "History", security(("api_key" = ["ViewMetadata"])),
    params(("objectId" = String, Path, description = "Object id (`447_16`), stable id, or URL-encoded repository path"), HistoryParams),
    responses((status = 200, description = "`{objectId, changes, nextBefore, truncated}`"), (status = 400, description = "A malformed id, before or limit"), (status = 404, description = "No such object")))]
pub async fn object_history(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object_id): Path<String>,
    Params(params): Params<HistoryParams>,
) -> ApiResult<Response> {
    let reference = ObjectRef::parse(&object_id)?;
    let before = number("before", params.before.as_deref())?;
    let limit = number("limit", params.limit.as_deref())?;
    Ok(ok(state
        .catalog
        .history()
        .object_changes(&caller, &reference, before, limit)
        .await?))
}
