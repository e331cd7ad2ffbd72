//! Models of the repository and of configurations.

use axum::extract::State;
use axum::response::Response;
use lore_core::catalog::AsOf;
use lore_core::{Error, ObjectRef};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, Params};

/// Reads an optional identifier parameter; empty counts as absent.
pub(crate) fn optional_ref(value: Option<&str>) -> Result<Option<ObjectRef>, Error> {
    value
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(ObjectRef::parse)
        .transpose()
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ListModelsParams {
    /// A configuration or configuration version (id or path); all models when absent.
    pub configuration_id: Option<String>,
    /// Read it as it was then: an RFC 3339 time or a version id (see
    /// `GET /history/models/{modelId}/versions`). Today's sight applies.
    pub as_of: Option<String>,
}

/// Lists the models of a configuration, or of the whole repository.
#[utoipa::path(get, path = "/configuration/listModels", tag = "Browse", security(("api_key" = ["ViewMetadata"])), params(ListModelsParams),
    responses((status = 200, description = "Array of entities (legacy format)"), (status = 404, description = "No such configuration")))]
pub async fn list_models(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<ListModelsParams>,
) -> ApiResult<Response> {
    let configuration = optional_ref(params.configuration_id.as_deref())?;
    if let Some(as_of) = params.as_of.as_deref() {
        return Ok(ok(state
            .catalog
            .history()
            .list_models_as_of(&caller, configuration.as_ref(), AsOf::parse(as_of)?)
            .await?));
    }
    Ok(ok(state
        .catalog
        .objects()
        .list_models(&caller, configuration.as_ref())
        .await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ConnectedModelsParams {
    /// The model (id or path) whose connections are listed.
    pub model_id: Option<String>,
    /// Only models of this configuration (id or path).
    pub configuration_id: Option<String>,
}

/// Lists the models connected to a model.
#[utoipa::path(get, path = "/configurations/listConnectedModels", tag = "Browse", security(("api_key" = ["ViewMetadata"])), params(ConnectedModelsParams),
    responses((status = 200, description = "Array of entities (legacy format)"), (status = 400, description = "modelId missing or not a model")))]
pub async fn list_connected_models(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<ConnectedModelsParams>,
) -> ApiResult<Response> {
    let model =
        optional_ref(params.model_id.as_deref())?.ok_or_else(|| Error::missing("modelId"))?;
    let configuration = optional_ref(params.configuration_id.as_deref())?;
    Ok(ok(state
        .catalog
        .objects()
        .list_connected_models(&caller, &model, configuration.as_ref())
        .await?))
}
