//! Import settings of models, attachments and import operations: `importModel`,
//! `attachments`, `startImport`, `listOperations`, `downloadOperationLog` and
//! `downloadModelAttachment`.

use std::io::Read;

use axum::extract::{Path, Request, State};
use axum::http::HeaderMap;
use axum::http::header::{ACCEPT, CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use lore_core::catalog::ImportModelRequest;
use lore_core::model::{
    AttachmentInfo, ImportSettings, Object, Operation, OperationFilter, OperationLogLine,
    OperationState,
};
use lore_core::{Error, ErrorCode, ObjectRef};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use utoipa::{IntoParams, ToSchema};

use super::configuration::optional_ref;
use crate::AppState;
use crate::error::{ApiError, ApiResult, ok};
use crate::extract::{Authenticated, JsonBody, Params, body_bytes, optional_json};
use crate::upload::{ANY_FILE, spool_file};

/// Largest attachment, in bytes (and never above `server.max_upload_mib`): attachments
/// live in the database.
pub const MAX_ATTACHMENT_BYTES: usize = 256 << 20;

/// The importers of this server (a Lore extension): `{importers: [{name, version,
/// description, origin, formats: [{name, description, file, parameters}]}], failed:
/// [{library, reason}]}`. `failed` lists configured plugins that did not load, for
/// administrators only. `format` is what `PUT /repository/importModel` selects.
#[utoipa::path(get, path = "/repository/importers", tag = "Repository", security(("api_key" = ["ViewMetadata"])),
    responses((status = 200, description = "The importers")))]
pub async fn list_importers(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
) -> ApiResult<Response> {
    let (importers, administrator) = state.catalog.operations().importers(&caller)?;
    let listed: Vec<Value> = importers
        .all()
        .iter()
        .map(|i| {
            let about = i.about();
            json!({
                "name": about.name,
                "version": about.version,
                "description": about.description,
                "origin": i.origin(),
                "formats": about.formats,
            })
        })
        .collect();
    let failed: Vec<Value> = if administrator {
        importers
            .failures()
            .iter()
            .map(|(library, reason)| json!({"library": library, "reason": reason}))
            .collect()
    } else {
        Vec::new()
    };
    Ok(ok(json!({"importers": listed, "failed": failed})))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ModelParams {
    /// The model (id or path).
    pub model_id: Option<String>,
}

/// A model's import settings: `{modelId, modelName, format, parameters, attachment,
/// attachments, updatedAt, updatedBy}`.
fn settings_json(
    model: &Object,
    settings: &ImportSettings,
    attachments: &[AttachmentInfo],
) -> Value {
    json!({
        "modelId": model.id.to_string(),
        "modelName": model.name,
        "format": settings.format,
        "parameters": settings.parameters,
        "attachment": settings.attachment,
        "attachments": attachments.iter().map(attachment_json).collect::<Vec<_>>(),
        "updatedAt": settings.updated_at,
        "updatedBy": settings.updated_by,
    })
}

fn attachment_json(info: &AttachmentInfo) -> Value {
    json!({
        "objectId": info.object.to_string(),
        "name": info.name,
        "mediaType": info.media_type,
        "size": info.size,
        "sha256": info.sha256,
        "createdAt": info.created_at,
        "createdBy": info.created_by,
    })
}

/// A model's import settings: the importer's format, its parameters and the attachment
/// it reads. They may hold credentials, so reading them needs Import on the model.
#[utoipa::path(get, path = "/repository/importModel", tag = "Repository", security(("api_key" = ["Import"])), params(ModelParams),
    responses((status = 200, description = "`{modelId, modelName, format, parameters, attachment, attachments, updatedAt, updatedBy}`"),
        (status = 404, description = "No such model, or it has no import settings")))]
pub async fn get_import_model(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<ModelParams>,
) -> ApiResult<Response> {
    let model =
        optional_ref(params.model_id.as_deref())?.ok_or_else(|| Error::missing("modelId"))?;
    let (model, settings) = state
        .catalog
        .operations()
        .import_settings(&caller, &model)
        .await?;
    let attachments = state
        .catalog
        .operations()
        .attachments(&caller, &ObjectRef::Id(model.id))
        .await?;
    Ok(ok(settings_json(&model, &settings, &attachments)))
}

/// The body of `PUT /repository/importModel`.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ImportModelBody {
    /// The model (id or path); when absent, a new empty model named `modelName` is
    /// created in `folderId` (the root when absent).
    pub model_id: Option<String>,
    pub folder_id: Option<String>,
    pub model_name: Option<String>,
    /// The importer's format, e.g. `dbt-manifest` (see `lore plugins`).
    pub format: String,
    /// The importer's parameters, checked against its schema.
    #[serde(default)]
    pub parameters: Map<String, Value>,
    /// The model's attachment the importer reads; the newest when absent.
    pub attachment: Option<String>,
}

/// Sets how `startImport` imports a model (creating the model when the body names a
/// folder and a name instead): the format, its parameters (checked against the
/// importer's schema) and the attachment it reads.
#[utoipa::path(put, path = "/repository/importModel", tag = "Repository", security(("api_key" = ["Import"])),
    request_body(content = ImportModelBody),
    responses((status = 200, description = "The settings, as GET answers them"), (status = 400, description = "Unknown format or bad parameters"),
        (status = 404, description = "No such model or folder"), (status = 409, description = "A new model's name is taken")))]
pub async fn put_import_model(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    JsonBody(body): JsonBody<ImportModelBody>,
) -> ApiResult<Response> {
    let request = ImportModelRequest {
        model: optional_ref(body.model_id.as_deref())?,
        folder: optional_ref(body.folder_id.as_deref())?,
        name: body.model_name,
        format: body.format,
        parameters: body.parameters,
        attachment: body.attachment.filter(|a| !a.trim().is_empty()),
    };
    let (model, settings) = state
        .catalog
        .operations()
        .set_import_settings(&caller, request)
        .await?;
    let attachments = state
        .catalog
        .operations()
        .attachments(&caller, &ObjectRef::Id(model.id))
        .await?;
    Ok(ok(settings_json(&model, &settings, &attachments)))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct AttachParams {
    /// The file's name; the multipart part's file name when absent.
    pub name: Option<String>,
}

/// Attaches a file (the raw body, or the file part of a multipart form) to an object,
/// replacing its attachment of the same name; e.g. the source a model's importer reads.
/// Up to 256 MiB. Needs Edit Metadata on the object.
#[utoipa::path(post, path = "/repository/attachments/{objectId}", tag = "Repository", security(("api_key" = ["EditMetadata"])),
    params(("objectId" = String, Path, description = "The object"), AttachParams),
    request_body(content = Vec<u8>, content_type = "application/octet-stream", description = "The file"),
    responses((status = 200, description = "`{objectId, name, mediaType, size, sha256, createdAt, createdBy}`"),
        (status = 400, description = "No name or a bad one"), (status = 404, description = "No such object"), (status = 413, description = "Too large")))]
pub async fn attach_file(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object_id): Path<String>,
    Params(params): Params<AttachParams>,
    req: Request,
) -> ApiResult<Response> {
    let object = ObjectRef::parse(&object_id)?;
    let limit = MAX_ATTACHMENT_BYTES.min(state.max_upload_bytes);
    let mut spooled = spool_file(req, &state, &ANY_FILE, limit).await?;
    let name = params
        .name
        .filter(|n| !n.trim().is_empty())
        .or(spooled.file_name.take())
        .ok_or_else(|| Error::missing("name (or a multipart file name)"))?;
    let mut content = Vec::with_capacity(usize::try_from(spooled.size).unwrap_or(0));
    spooled
        .file
        .read_to_end(&mut content)
        .map_err(|e| Error::internal(format!("cannot read the spooled upload: {e}")))?;
    let media_type = if spooled.media_type.is_empty() {
        "application/octet-stream".to_owned()
    } else {
        spooled.media_type
    };
    let info = state
        .catalog
        .operations()
        .attach(&caller, &object, &name, &media_type, content)
        .await?;
    Ok(ok(attachment_json(&info)))
}

#[derive(Debug, Default, Deserialize, IntoParams, ToSchema)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentParams {
    /// The object (id or path) the file is attached to; `modelId` is read too.
    pub object_id: Option<String>,
    pub model_id: Option<String>,
    /// The attachment's name; the newest attachment when absent.
    pub name: Option<String>,
}

/// Downloads a file attached to an object. The Accept header must name
/// `application/x-download` (or `application/octet-stream`, `*/*`): the file comes as
/// `application/x-download`, an error as JSON. An Accept header that names neither is
/// answered 406.
#[utoipa::path(post, path = "/operations/repositoryImport/downloadModelAttachment", tag = "Operation", security(("api_key" = ["ViewMetadata"])),
    params(AttachmentParams),
    request_body(content = AttachmentParams, description = "The same fields as the query parameters (optional)"),
    responses((status = 200, description = "The file", content_type = "application/x-download"),
        (status = 404, description = "No such object or attachment"), (status = 406, description = "Accept names no download type")))]
pub async fn download_model_attachment(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(query): Params<AttachmentParams>,
    headers: HeaderMap,
    req: Request,
) -> ApiResult<Response> {
    require_download_accept(&headers)?;
    let body: AttachmentParams =
        optional_json(&body_bytes(req, &state).await?)?.unwrap_or_default();
    let object = query
        .object_id
        .or(query.model_id)
        .or(body.object_id)
        .or(body.model_id);
    let object = optional_ref(object.as_deref())?.ok_or_else(|| Error::missing("objectId"))?;
    let name = query.name.or(body.name).filter(|n| !n.trim().is_empty());
    let attachment = state
        .catalog
        .operations()
        .attachment(&caller, &object, name.as_deref())
        .await?;
    Ok((
        [
            (CONTENT_TYPE, "application/x-download".to_owned()),
            (
                CONTENT_DISPOSITION,
                format!(
                    "attachment; filename=\"{}\"",
                    attachment.info.name.replace(['"', '\r', '\n'], "_")
                ),
            ),
        ],
        attachment.content,
    )
        .into_response())
}

/// Refuses a request whose Accept header names no type a download answers in.
fn require_download_accept(headers: &HeaderMap) -> ApiResult<()> {
    let Some(accept) = headers.get(ACCEPT).and_then(|v| v.to_str().ok()) else {
        return Ok(());
    };
    let names = accept
        .split(',')
        .map(|t| {
            t.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
        .any(|t| {
            matches!(
                t.as_str(),
                "application/x-download" | "application/octet-stream" | "application/*" | "*/*"
            )
        });
    if names {
        Ok(())
    } else {
        Err(ApiError::new(
            ErrorCode::NotAcceptable,
            format!(
                "the Accept header '{accept}' names no type this download answers in; send Accept: application/x-download"
            ),
        ))
    }
}

/// An operation as the API shows it.
fn operation_json(operation: &Operation) -> Value {
    json!({
        "id": operation.id,
        "type": operation.kind,
        "state": operation.state.as_str(),
        "modelId": operation.model.map(|m| m.to_string()),
        "format": operation.detail.format,
        "startedBy": operation.started_by,
        "startedAt": operation.started_at,
        "heartbeatAt": operation.heartbeat_at,
        "finishedAt": operation.detail.finished_at,
        "progress": operation.detail.progress,
        "message": operation.detail.message,
        "result": operation.detail.result,
    })
}

/// Starts the import of a model with its import settings (`PUT
/// /repository/importModel`) and answers the operation's id at once; the import runs in
/// the background. Follow it with `listOperations` and `downloadOperationLog`. Nothing
/// is written unless the importer completes and its model passes the checks of a model
/// archive; a re-import keeps curation.
#[utoipa::path(post, path = "/operations/startImport/{contentId}", tag = "Operation", security(("api_key" = ["Import"])),
    params(("contentId" = String, Path, description = "The model (id or path)")),
    request_body(content = Object, description = "`{}`"),
    responses((status = 200, description = "The operation's id"), (status = 400, description = "No import settings, or a file is missing"),
        (status = 404, description = "No such model")))]
pub async fn start_import(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(content_id): Path<String>,
) -> ApiResult<Response> {
    let model = ObjectRef::parse(&content_id)?;
    let operation = state
        .catalog
        .operations()
        .start_import(&caller, &model)
        .await?;
    Ok(ok(operation.id))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ListOperationsParams {
    /// Only the operations of this model (id or path).
    pub model_id: Option<String>,
    /// `RUNNING`, `SUCCEEDED` or `FAILED`.
    pub state: Option<String>,
    /// At most this many, newest first: 1 to 1000 (default 100).
    pub limit: Option<String>,
}

/// Operations, newest first: `[{id, type, state, modelId, format, startedBy, startedAt,
/// heartbeatAt, finishedAt, progress: {phase, done, total, unit}, message, result}]`.
/// Administrators and repository managers see all; other users those they started.
#[utoipa::path(get, path = "/operations/listOperations", tag = "Operation", security(("api_key" = ["ViewMetadata"])),
    params(ListOperationsParams),
    responses((status = 200, description = "The operations"), (status = 400, description = "Bad state or limit"), (status = 404, description = "No such model")))]
pub async fn list_operations(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<ListOperationsParams>,
) -> ApiResult<Response> {
    let model = match optional_ref(params.model_id.as_deref())? {
        None => None,
        Some(reference) => Some(
            state
                .catalog
                .operations()
                .object_id(&caller, &reference)
                .await?,
        ),
    };
    let wanted_state = match params
        .state
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        None => None,
        Some(text) => Some(OperationState::parse(text).ok_or_else(|| {
            Error::invalid(format!(
                "state '{text}' is not one of RUNNING, SUCCEEDED, FAILED"
            ))
        })?),
    };
    let limit = match params
        .limit
        .as_deref()
        .map(str::trim)
        .filter(|l| !l.is_empty())
    {
        None => 100,
        Some(text) => text
            .parse::<usize>()
            .ok()
            .filter(|l| (1..=lore_core::catalog::MAX_LISTED).contains(l))
            .ok_or_else(|| {
                Error::invalid(format!(
                    "limit '{text}' must be a whole number from 1 to {}",
                    lore_core::catalog::MAX_LISTED
                ))
            })?,
    };
    let operations = state
        .catalog
        .operations()
        .operations(
            &caller,
            OperationFilter {
                model,
                state: wanted_state,
                started_by: None,
                limit,
            },
        )
        .await?;
    Ok(ok(operations
        .iter()
        .map(operation_json)
        .collect::<Vec<_>>()))
}

/// An operation's log as a text file (`text/plain`, one line each: time, level,
/// message), or, when the Accept header names only `application/json`, as `{operation,
/// lines: [{seq, at, level, message}]}` in the envelope.
#[utoipa::path(post, path = "/operations/downloadOperationLog/{operationId}", tag = "Operation", security(("api_key" = ["ViewMetadata"])),
    params(("operationId" = i64, Path, description = "The operation")),
    responses((status = 200, description = "The log", content_type = "text/plain"), (status = 404, description = "No such operation")))]
pub async fn download_operation_log(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(operation_id): Path<String>,
    headers: HeaderMap,
) -> ApiResult<Response> {
    let id: i64 = operation_id
        .trim()
        .parse()
        .map_err(|_| Error::invalid(format!("operationId '{operation_id}' is not a number")))?;
    let (operation, lines) = state
        .catalog
        .operations()
        .operation_log(&caller, id)
        .await?;
    let json_only = headers
        .get(ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|a| {
            a.contains("application/json") && !a.contains("text/") && !a.contains("*/*")
        });
    if json_only {
        return Ok(ok(json!({
            "operation": operation_json(&operation),
            "lines": lines.iter().map(line_json).collect::<Vec<_>>(),
        })));
    }
    let mut text = String::new();
    for line in &lines {
        text.push_str(&format!(
            "{} {:<5} {}\n",
            line.at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
            line.level,
            line.message
        ));
    }
    Ok((
        [
            (CONTENT_TYPE, "text/plain; charset=utf-8".to_owned()),
            (
                CONTENT_DISPOSITION,
                format!("attachment; filename=\"operation-{id}.log\""),
            ),
        ],
        text,
    )
        .into_response())
}

fn line_json(line: &OperationLogLine) -> Value {
    json!({"seq": line.seq, "at": line.at, "level": line.level, "message": line.message})
}
