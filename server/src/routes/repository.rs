//! Repository endpoints: context, folders, model import and export.

use std::io::BufReader;

use axum::extract::{Request, State};
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use lore_core::catalog::{AsOf, AttributeSetting, ExportOptions, FolderRequest, ImportOptions};
use lore_core::{Error, ObjectRef};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use super::configuration::optional_ref;
use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, JsonBody, Params, body_bytes, flag, optional_json};
use crate::upload::{MODEL_ARCHIVE, spool_upload};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ContextParams {
    /// The object (id, stable id or repository path).
    pub object_id: Option<String>,
    /// Read it as it was then: an RFC 3339 time or a version id (see
    /// `GET /history/models/{modelId}/versions`). Today's sight applies.
    pub as_of: Option<String>,
}

/// The context of an object: its ancestors from the repository root down, each as
/// `{id, name, objectType}`.
#[utoipa::path(get, path = "/repository/getContext", tag = "Repository", security(("api_key" = ["ViewMetadata"])), params(ContextParams),
    responses((status = 200, description = "Array of embedded entities, root first"), (status = 404, description = "No such object")))]
pub async fn get_context(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<ContextParams>,
) -> ApiResult<Response> {
    let object =
        optional_ref(params.object_id.as_deref())?.ok_or_else(|| Error::missing("objectId"))?;
    if let Some(as_of) = params.as_of.as_deref() {
        return Ok(ok(state
            .catalog
            .history()
            .get_context_as_of(&caller, &object, AsOf::parse(as_of)?)
            .await?));
    }
    Ok(ok(state
        .catalog
        .objects()
        .get_context(&caller, &object)
        .await?))
}

/// What createFolder takes.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct CreateFolderBody {
    /// Parent folder or configuration (id or path); the root when absent.
    parent_id: Option<String>,
    name: String,
    description: Option<String>,
    /// `Folder` (default), `Configuration` or `Configuration Version`.
    object_type: Option<String>,
}

/// Creates a folder, configuration or configuration version.
#[utoipa::path(post, path = "/repository/createFolder", tag = "Repository", security(("api_key" = ["ManageRepository"])), request_body = CreateFolderBody,
    responses((status = 200, description = "The new object (legacy entity)"), (status = 409, description = "The name is taken"), (status = 400, description = "Bad input")))]
pub async fn create_folder(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    JsonBody(body): JsonBody<FolderRequest>,
) -> ApiResult<Response> {
    Ok(ok(state
        .catalog
        .objects()
        .create_folder(&caller, &body)
        .await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ImportParams {
    /// Re-import into this existing model (id or path): objects are matched by native
    /// id; new ones are added, changed ones updated in place, vanished ones deleted.
    pub model_id: Option<String>,
    /// Folder of the new model (id or path); the root when absent.
    pub folder_id: Option<String>,
    /// Name of the new model; the archive's model name when absent.
    pub model_name: Option<String>,
    /// Add the model to this configuration (id or path).
    pub configuration_id: Option<String>,
}

/// Imports a model from a zip of CSV files (see docs/model-archive.md), sent as the raw
/// body (`application/zip`) or as the file part of `multipart/form-data`, up to
/// `server.max_upload_mib`. The upload is spooled to a temporary file and read entry by
/// entry. Nothing is written unless the whole archive is valid; a re-import (`modelId`)
/// writes only what changed.
#[utoipa::path(post, path = "/repository/model/import", tag = "Repository", security(("api_key" = ["Import"])), params(ImportParams),
    request_body(content = Vec<u8>, content_type = "application/zip", description = "The model archive"),
    responses((status = 200, description = "`{modelId, modelName, created, objectCount, added, updated, removed, unchanged}`"), (status = 400, description = "Invalid archive"),
        (status = 413, description = "Archive too large"), (status = 415, description = "Not a zip or multipart upload")))]
pub async fn import_model(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<ImportParams>,
    req: Request,
) -> ApiResult<Response> {
    let (content, size) = spool_upload(req, &state, &MODEL_ARCHIVE).await?;
    if size == 0 {
        return Err(Error::missing("the model archive (request body)").into());
    }
    let options = ImportOptions {
        model: optional_ref(params.model_id.as_deref())?,
        folder: optional_ref(params.folder_id.as_deref())?,
        name: params.model_name.filter(|n| !n.trim().is_empty()),
        configuration: optional_ref(params.configuration_id.as_deref())?,
        operation: None,
    };
    Ok(ok(state
        .catalog
        .objects()
        .import_model_from(&caller, BufReader::new(content), &options)
        .await?))
}

/// What model export takes, as query parameters or a JSON body.
#[derive(Debug, Default, Deserialize, IntoParams, ToSchema)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ExportParams {
    /// The model (id or path), or a model object to export alone.
    pub model_id: Option<String>,
    /// `true` includes data profiling and sampling results.
    #[serde(default, deserialize_with = "string_or_bool")]
    pub export_data_profiling_and_sampling: Option<String>,
    /// Export only these objects (e.g. terms) and their descendants; comma-separated in
    /// the query, an array in a JSON body.
    #[serde(default, deserialize_with = "list_or_csv")]
    pub object_ids: Option<Vec<String>>,
}

/// Exports a model as a zip of CSV files (`application/x-download`).
#[utoipa::path(post, path = "/repository/model/export", tag = "Repository", security(("api_key" = ["ViewMetadata"])), params(ExportParams),
    request_body(content = ExportParams, description = "The same fields as the query parameters (optional)"),
    responses((status = 200, description = "The archive", content_type = "application/x-download"), (status = 404, description = "No such model")))]
pub async fn export_model(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(query): Params<ExportParams>,
    req: Request,
) -> ApiResult<Response> {
    let body: ExportParams = optional_json(&body_bytes(req, &state).await?)?.unwrap_or_default();
    let model_id = query.model_id.or(body.model_id);
    let model = optional_ref(model_id.as_deref())?.ok_or_else(|| Error::missing("modelId"))?;
    let profiling = query
        .export_data_profiling_and_sampling
        .or(body.export_data_profiling_and_sampling);
    let objects = match query.object_ids.or(body.object_ids) {
        Some(ids) if !ids.is_empty() => Some(
            ids.iter()
                .map(|id| ObjectRef::parse(id))
                .collect::<Result<Vec<_>, _>>()?,
        ),
        _ => None,
    };
    let options = ExportOptions {
        include_profiling: flag(profiling.as_deref(), "exportDataProfilingAndSampling")?,
        objects,
    };
    let bytes = state
        .catalog
        .objects()
        .export_model(&caller, &model, &options)
        .await?;
    let file_name = "model.zip";
    Ok((
        [
            (CONTENT_TYPE, "application/x-download".to_owned()),
            (
                CONTENT_DISPOSITION,
                format!("attachment; filename=\"{file_name}\""),
            ),
        ],
        bytes,
    )
        .into_response())
}

fn string_or_bool<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    Ok(match Option::<serde_json::Value>::deserialize(d)? {
        None | Some(serde_json::Value::Null) => None,
        Some(serde_json::Value::Bool(b)) => Some(b.to_string()),
        Some(serde_json::Value::String(s)) => Some(s),
        Some(other) => Some(other.to_string()),
    })
}

fn list_or_csv<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum ListOrCsv {
        List(Vec<String>),
        Csv(String),
    }
    Ok(Option::<ListOrCsv>::deserialize(d)?.map(|v| match v {
        ListOrCsv::List(list) => list,
        ListOrCsv::Csv(text) => text
            .split(',')
            .map(|s| s.trim().to_owned())
            .filter(|s| !s.is_empty())
            .collect(),
    }))
}

/// What setAttributes takes (COMPAT: the body real clients send).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SetAttributesBody {
    /// The object: id, stable id or repository path.
    pub id: Option<String>,
    /// The values to set; `null` or `""` removes a value.
    pub values: Option<Vec<AttributeValueBody>>,
    /// Why; accepted and not stored.
    #[allow(dead_code, reason = "clients send it; Lore keeps no edit comments")]
    pub comment: Option<String>,
}

/// One value of setAttributes.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AttributeValueBody {
    pub attribute_type: AttributeTypeBody,
    #[serde(default)]
    #[schema(value_type = Object)]
    pub value: serde_json::Value,
}

/// The attribute a value is for.
#[derive(Debug, Deserialize, ToSchema)]
pub struct AttributeTypeBody {
    pub name: Option<String>,
    /// `CUSTOM_ATTRIBUTE`, `SYSTEM_ATTRIBUTE`, `ATTRIBUTE` or `UDP`; absent: any kind.
    #[serde(rename = "type")]
    pub kind: Option<String>,
}

/// Sets attribute values on an object: custom attributes, profile attributes and UDPs of
/// its type, and the system attributes Description, Business Name, Business Description,
/// External Url and Hide Data (Edit Metadata on the object). All values are checked
/// before any is written. Answers the object as a legacy entity.
#[utoipa::path(put, path = "/repository/setAttributes", tag = "Repository", security(("api_key" = ["EditMetadata"])),
    request_body = SetAttributesBody,
    responses((status = 200, description = "The object (legacy entity)"),
        (status = 400, description = "No id or values, an attribute the object does not carry, a read-only system attribute, or a value of the wrong type"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without Edit Metadata on the object"),
        (status = 404, description = "No such object")))]
pub async fn set_attributes(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    JsonBody(body): JsonBody<SetAttributesBody>,
) -> ApiResult<Response> {
    let object = body
        .id
        .as_deref()
        .filter(|id| !id.trim().is_empty())
        .ok_or_else(|| Error::missing("id"))?;
    let settings = body
        .values
        .ok_or_else(|| Error::missing("values"))?
        .into_iter()
        .map(|v| AttributeSetting {
            name: v.attribute_type.name.unwrap_or_default(),
            kind: v.attribute_type.kind,
            value: v.value,
        })
        .collect::<Vec<_>>();
    Ok(ok(state
        .catalog
        .objects()
        .set_attributes(&caller, object, &settings)
        .await?))
}

/// Deprecated: `PUT /repository/setAttributes`, which it answers (same body).
#[utoipa::path(put, path = "/repository/setCustomAttributes", tag = "Repository", security(("api_key" = ["EditMetadata"])),
    request_body = SetAttributesBody,
    responses((status = 200, description = "As PUT /repository/setAttributes"),
        (status = 400, description = "As PUT /repository/setAttributes"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without Edit Metadata on the object"),
        (status = 404, description = "No such object")))]
#[deprecated]
pub async fn set_custom_attributes(
    state: State<AppState>,
    caller: Authenticated,
    body: JsonBody<SetAttributesBody>,
) -> ApiResult<Response> {
    set_attributes(state, caller, body).await
}
