//! The meta model: object types, attribute types, groups, profiles, categories.

use axum::extract::State;
use axum::response::Response;
use serde::Deserialize;
use serde_json::json;
use utoipa::IntoParams;

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, Params, flag};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ObjectTypesParams {
    /// Only object types of this profile.
    pub profile_name: Option<String>,
    /// `true` adds each type's attribute types.
    pub include_attributes: Option<String>,
}

/// Lists object types.
#[utoipa::path(get, path = "/types/listObjectTypes", tag = "Types", security(("api_key" = ["ViewMetadata"])), params(ObjectTypesParams),
    responses((status = 200, description = "Array of object types"), (status = 404, description = "Unknown profile")))]
pub async fn list_object_types(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<ObjectTypesParams>,
) -> ApiResult<Response> {
    let include = flag(params.include_attributes.as_deref(), "includeAttributes")?;
    Ok(ok(state
        .catalog
        .objects()
        .list_object_types(&caller, params.profile_name.as_deref(), include)
        .await?))
}

/// Deprecated name of listObjectTypes: `[{"entityTypes": [...]}]`.
#[utoipa::path(get, path = "/types/listEntityTypes", tag = "Types", security(("api_key" = ["ViewMetadata"])), params(ObjectTypesParams),
    responses((status = 200, description = "`[{\"entityTypes\": [...]}]`"), (status = 404, description = "Unknown profile")))]
#[deprecated]
pub async fn list_entity_types(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<ObjectTypesParams>,
) -> ApiResult<Response> {
    let include = flag(params.include_attributes.as_deref(), "includeAttributes")?;
    let types = state
        .catalog
        .objects()
        .list_object_types(&caller, params.profile_name.as_deref(), include)
        .await?;
    Ok(ok(json!([{ "entityTypes": types }])))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ObjectTypeParam {
    /// An object type, `<profile>.<type>` or an unambiguous bare name.
    pub object_type: Option<String>,
    /// The name before release 11.0 (`objectType` wins when both are given).
    pub entity_type: Option<String>,
}

impl ObjectTypeParam {
    fn value(&self) -> Option<&str> {
        self.object_type
            .as_deref()
            .or(self.entity_type.as_deref())
            .filter(|v| !v.trim().is_empty())
    }
}

/// Lists attribute types, of all objects or of one object type.
#[utoipa::path(get, path = "/types/listAttributeTypes", tag = "Types", security(("api_key" = ["ViewMetadata"])), params(ObjectTypeParam),
    responses((status = 200, description = "Array of attribute types"), (status = 404, description = "Unknown object type")))]
pub async fn list_attribute_types(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<ObjectTypeParam>,
) -> ApiResult<Response> {
    Ok(ok(state
        .catalog
        .objects()
        .list_attribute_types(&caller, params.value())
        .await?))
}

/// Lists attribute groups with their attribute types.
#[utoipa::path(get, path = "/types/listGroupTypes", tag = "Types", security(("api_key" = ["ViewMetadata"])), params(ObjectTypeParam),
    responses((status = 200, description = "Array of groups"), (status = 404, description = "Unknown object type")))]
pub async fn list_group_types(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<ObjectTypeParam>,
) -> ApiResult<Response> {
    Ok(ok(state
        .catalog
        .objects()
        .list_group_types(&caller, params.value())
        .await?))
}

/// Lists profile names.
#[utoipa::path(get, path = "/types/listProfiles", tag = "Types", security(("api_key" = ["ViewMetadata"])),
    responses((status = 200, description = "Array of profile names"), (status = 401, description = "Missing or invalid key")))]
pub async fn list_profiles(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
) -> ApiResult<Response> {
    Ok(ok(state.catalog.objects().list_profiles(&caller).await?))
}

/// Lists search categories.
#[utoipa::path(get, path = "/types/listCategories", tag = "Types", security(("api_key" = ["ViewMetadata"])),
    responses((status = 200, description = "Array of category names"), (status = 401, description = "Missing or invalid key")))]
pub async fn list_categories(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
) -> ApiResult<Response> {
    Ok(ok(state.catalog.objects().list_categories(&caller).await?))
}
