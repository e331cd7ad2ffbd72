//! Operation endpoints.

use axum::extract::State;
use axum::response::Response;
use lore_core::Error;
use lore_core::catalog::AsOf;
use lore_core::model::ObjectKind;
use serde::Deserialize;
use serde_json::json;
use utoipa::IntoParams;

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, Params};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct BrowseParams {
    /// Comma-separated kinds to keep: Folder, Configuration, Configuration Version, Model.
    pub object_types: Option<String>,
    /// Where to start; `/` (the default) is the repository root.
    pub repository_path: Option<String>,
    /// Read the tree as it was then: an RFC 3339 time or a version id (see
    /// `GET /history/models/{modelId}/versions`). Today's sight applies.
    pub as_of: Option<String>,
}

/// The repository tree below a path: `{"links": [{"objectName", "id", "objectType", "links"}]}`.
#[utoipa::path(get, path = "/operations/repositoryBrowse", tag = "Operation", security(("api_key" = ["ViewMetadata"])), params(BrowseParams),
    responses((status = 200, description = "The tree"), (status = 404, description = "No such path")))]
pub async fn repository_browse(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<BrowseParams>,
) -> ApiResult<Response> {
    let mut kinds = Vec::new();
    for name in params
        .object_types
        .as_deref()
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|n| !n.is_empty())
    {
        let kind = ObjectKind::parse(name).filter(|k| k.is_repository()).ok_or_else(|| {
            Error::invalid(format!("objectTypes: '{name}' is not one of Folder, Configuration, Configuration Version, Model"))
        })?;
        kinds.push(kind);
    }
    let path = params
        .repository_path
        .as_deref()
        .filter(|p| !p.trim().is_empty())
        .unwrap_or("/");
    let links = match params.as_of.as_deref() {
        Some(as_of) => {
            state
                .catalog
                .history()
                .repository_browse_as_of(&caller, path, &kinds, AsOf::parse(as_of)?)
                .await?
        }
        None => {
            state
                .catalog
                .objects()
                .repository_browse(&caller, path, &kinds)
                .await?
        }
    };
    Ok(ok(json!({ "links": links })))
}
