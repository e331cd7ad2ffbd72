//! Governance: data classes (and the deprecated `semanticTypes` paths that answer as
//! them), sensitivity labels, and the data profiling of an object (both spellings the
//! spec uses: `DataProfiling` and `Dataprofiling`).

use axum::extract::{Path, Request, State};
use axum::response::Response;
use lore_core::catalog::{
    DataClassUpdate, LabelDefinition, ObjectLabels, ProfilingRecord, ProfilingUpdate,
};
use lore_core::model::{
    ClassificationStatus, DataClass, DataProfile, DataSample, SensitivityLabel,
};
use lore_core::{Error, ObjectRef};
use serde_json::{Map, Value, json};
use utoipa::{IntoParams, ToSchema};

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, JsonBody, Params, body_bytes, flag, optional_json};

fn data_class_json(class: &DataClass) -> Value {
    json!({
        // Data classes are named, not numbered: the name is their id.
        "id": class.name,
        "name": class.name,
        "description": class.description,
        "hideData": class.hide_data,
        "definition": class.definition,
    })
}

fn label_json(label: &SensitivityLabel) -> Value {
    json!({
        "id": label.name,
        "name": label.name,
        "position": label.position,
        "description": label.description,
        "foregroundColor": label.foreground_color,
        "backgroundColor": label.background_color,
        "hideData": label.hide_data,
    })
}

fn object_labels_json(labels: &ObjectLabels) -> Value {
    json!({
        "objectId": labels.object.to_string(),
        "sensitivityLabel": labels.current.as_ref().map(|l| l.name.clone()),
        "labels": labels.assignments.iter().map(|a| json!({
            "label": a.label,
            "status": a.status,
        })).collect::<Vec<_>>(),
    })
}

fn profiling_json(record: &ProfilingRecord) -> Value {
    json!({
        "objectId": record.object.to_string(),
        "dataProfile": record.profile,
        "dataSample": record.sample,
        "hideData": record.hide_data,
        "dataHidden": record.hidden,
        "sensitivityLabel": record.sensitivity_label,
    })
}

fn object_ref(id: &str) -> ApiResult<ObjectRef> {
    Ok(ObjectRef::parse(id)?)
}

// ---- data classes

/// Every data class, by name (View Metadata).
#[utoipa::path(get, path = "/repository/dataClasses/", tag = "Governance", security(("api_key" = ["ViewMetadata"])),
    responses((status = 200, description = "An array of `{id, name, description, hideData, definition}` (a data class's id is its name)"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without View Metadata")))]
pub async fn list_data_classes(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
) -> ApiResult<Response> {
    let classes = state.catalog.governance().data_classes(&caller).await?;
    Ok(ok(classes.iter().map(data_class_json).collect::<Vec<_>>()))
}

/// A data class by id (its name) (View Metadata).
#[utoipa::path(get, path = "/repository/dataClasses/{objectId}", tag = "Governance", security(("api_key" = ["ViewMetadata"])),
    params(("objectId" = String, Path, description = "The data class's id: its name")),
    responses((status = 200, description = "`{id, name, description, hideData, definition}`"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without View Metadata"),
        (status = 404, description = "No such data class")))]
pub async fn get_data_class(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(name): Path<String>,
) -> ApiResult<Response> {
    let class = state
        .catalog
        .governance()
        .data_class(&caller, &name)
        .await?;
    Ok(ok(data_class_json(&class)))
}

/// What a data class write takes; absent fields stay.
#[derive(Debug, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DataClassBody {
    pub description: Option<String>,
    /// Hide the profiled data of objects of this class from users without View Data.
    pub hide_data: Option<bool>,
    /// The detection rules, kept as given.
    pub definition: Option<Value>,
}

/// Creates or changes a data class (Manage Meta Model).
#[utoipa::path(put, path = "/repository/dataClasses/{objectId}", tag = "Governance", security(("api_key" = ["ManageMetaModel"])),
    params(("objectId" = String, Path, description = "The data class's id: its name")),
    request_body = DataClassBody,
    responses((status = 200, description = "The data class"), (status = 400, description = "A bad name or body"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without Manage Meta Model")))]
pub async fn put_data_class(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(name): Path<String>,
    JsonBody(body): JsonBody<DataClassBody>,
) -> ApiResult<Response> {
    let update = DataClassUpdate {
        description: body.description,
        hide_data: body.hide_data,
        definition: body.definition,
    };
    let class = state
        .catalog
        .governance()
        .put_data_class(&caller, &name, update)
        .await?;
    Ok(ok(data_class_json(&class)))
}

/// Deprecated: `GET /repository/dataClasses/`.
#[utoipa::path(get, path = "/repository/semanticTypes", tag = "Governance", security(("api_key" = ["ViewMetadata"])),
    responses((status = 200, description = "As GET /repository/dataClasses/"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without View Metadata")))]
#[deprecated]
pub async fn list_semantic_types(
    state: State<AppState>,
    caller: Authenticated,
) -> ApiResult<Response> {
    list_data_classes(state, caller).await
}

/// Deprecated: `GET /repository/dataClasses/{objectId}`.
#[utoipa::path(get, path = "/repository/semanticTypes/{objectId}", tag = "Governance", security(("api_key" = ["ViewMetadata"])),
    params(("objectId" = String, Path, description = "The data class's id: its name")),
    responses((status = 200, description = "As GET /repository/dataClasses/{objectId}"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without View Metadata"),
        (status = 404, description = "No such data class")))]
#[deprecated]
pub async fn get_semantic_type(
    state: State<AppState>,
    caller: Authenticated,
    name: Path<String>,
) -> ApiResult<Response> {
    get_data_class(state, caller, name).await
}

/// Deprecated: `PUT /repository/dataClasses/{objectId}`.
#[utoipa::path(put, path = "/repository/semanticTypes/{objectId}", tag = "Governance", security(("api_key" = ["ManageMetaModel"])),
    params(("objectId" = String, Path, description = "The data class's id: its name")),
    request_body = DataClassBody,
    responses((status = 200, description = "As PUT /repository/dataClasses/{objectId}"), (status = 400, description = "A bad name or body"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without Manage Meta Model")))]
#[deprecated]
pub async fn put_semantic_type(
    state: State<AppState>,
    caller: Authenticated,
    name: Path<String>,
    body: JsonBody<DataClassBody>,
) -> ApiResult<Response> {
    put_data_class(state, caller, name, body).await
}

// ---- sensitivity labels

/// Every sensitivity label definition, by name (View Metadata).
#[utoipa::path(get, path = "/repository/sensitivityLabels/", tag = "Governance", security(("api_key" = ["ViewMetadata"])),
    responses((status = 200, description = "An array of `{id, name, position, description, foregroundColor, backgroundColor, hideData}`; a higher position is more restrictive"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without View Metadata")))]
pub async fn list_sensitivity_labels(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
) -> ApiResult<Response> {
    let labels = state
        .catalog
        .governance()
        .sensitivity_labels(&caller)
        .await?;
    Ok(ok(labels.iter().map(label_json).collect::<Vec<_>>()))
}

/// A sensitivity label definition; absent fields stay.
#[derive(Debug, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LabelDefinitionBody {
    pub name: Option<String>,
    /// Higher is more restrictive.
    pub position: Option<i64>,
    pub description: Option<String>,
    pub foreground_color: Option<String>,
    pub background_color: Option<String>,
    /// Hide the profiled data of labelled objects from users without View Data.
    pub hide_data: Option<bool>,
}

/// Creates or changes a sensitivity label definition (Manage Meta Model; Lore's own,
/// beside the spec's list).
#[utoipa::path(put, path = "/repository/sensitivityLabels/", tag = "Governance", security(("api_key" = ["ManageMetaModel"])),
    request_body = LabelDefinitionBody,
    responses((status = 200, description = "The label definition"), (status = 400, description = "No name or a bad body"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without Manage Meta Model")))]
pub async fn put_sensitivity_label(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    JsonBody(body): JsonBody<LabelDefinitionBody>,
) -> ApiResult<Response> {
    let definition = LabelDefinition {
        name: body.name,
        position: body.position,
        description: body.description,
        foreground_color: body.foreground_color,
        background_color: body.background_color,
        hide_data: body.hide_data,
    };
    let label = state
        .catalog
        .governance()
        .put_sensitivity_label(&caller, definition)
        .await?;
    Ok(ok(label_json(&label)))
}

/// The sensitivity labels of an object with their status, and its Sensitivity Label
/// (the most restrictive matched or approved one) (View Metadata on the object).
#[utoipa::path(get, path = "/repository/sensitivityLabels/{objectId}", tag = "Governance", security(("api_key" = ["ViewMetadata"])),
    params(("objectId" = String, Path, description = "The object: id, stable id or URL-encoded repository path")),
    responses((status = 200, description = "`{objectId, sensitivityLabel, labels: [{label, status}]}`"),
        (status = 400, description = "A bad identifier"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without View Metadata on the object"), (status = 404, description = "No such object")))]
pub async fn get_object_labels(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object): Path<String>,
) -> ApiResult<Response> {
    let labels = state
        .catalog
        .governance()
        .object_labels(&caller, &object_ref(&object)?)
        .await?;
    Ok(ok(object_labels_json(&labels)))
}

/// A label's status on an object.
#[derive(Debug, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ObjectLabelBody {
    /// The label's name (also `sensitivityLabel`).
    #[serde(alias = "sensitivityLabel")]
    pub label: Option<String>,
    /// PROPOSED (Edit Metadata on the object), APPROVED or REJECTED (Curate on it).
    pub status: Option<String>,
}

/// Proposes, approves or rejects a sensitivity label on an object.
#[utoipa::path(put, path = "/repository/sensitivityLabels/{objectId}", tag = "Governance", security(("api_key" = ["EditMetadata"])),
    params(("objectId" = String, Path, description = "The object: id, stable id or URL-encoded repository path")),
    request_body = ObjectLabelBody,
    responses((status = 200, description = "The object's labels, as GET answers them"),
        (status = 400, description = "No label, or a status other than PROPOSED, APPROVED, REJECTED"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without Edit Metadata (propose) or Curate (approve, reject) on the object"),
        (status = 404, description = "No such object or label")))]
pub async fn put_object_label(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object): Path<String>,
    JsonBody(body): JsonBody<ObjectLabelBody>,
) -> ApiResult<Response> {
    let label = body
        .label
        .filter(|l| !l.trim().is_empty())
        .ok_or_else(|| Error::missing("label"))?;
    let status = match body.status.as_deref().map(str::trim) {
        None | Some("") => ClassificationStatus::Proposed,
        Some(text) => match text.to_ascii_uppercase().as_str() {
            "PROPOSED" => ClassificationStatus::Proposed,
            "APPROVED" => ClassificationStatus::Approved,
            "REJECTED" => ClassificationStatus::Rejected,
            "MATCHED" => ClassificationStatus::Matched,
            _ => {
                return Err(Error::invalid(format!(
                    "status '{text}' is not PROPOSED, APPROVED or REJECTED"
                ))
                .into());
            }
        },
    };
    let labels = state
        .catalog
        .governance()
        .set_object_label(&caller, &object_ref(&object)?, &label, status)
        .await?;
    Ok(ok(object_labels_json(&labels)))
}

// ---- data profiling

/// What a profiling write takes in the query (the body may carry the same).
#[derive(Debug, serde::Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ProfilingParams {
    /// Proposes this sensitivity label for the object.
    pub sensitivity_label: Option<String>,
    /// Deprecated (use sensitivityLabel): sets the object's Hide Data attribute.
    pub hide_data: Option<String>,
}

/// A profiling write. Each part present replaces the stored one (`null` removes it);
/// absent parts stay. The deprecated fields `totalSemanticTypeRows`,
/// `invalidSemanticTypeValues` and `inferredSemanticTypes` are ignored.
#[derive(Debug, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
#[allow(
    dead_code,
    reason = "documents the body, which the handler reads field by field"
)]
pub struct ProfilingBody {
    #[schema(value_type = Option<Object>)]
    pub data_profile: Option<Value>,
    #[schema(value_type = Option<Object>)]
    pub data_sample: Option<Value>,
    pub sensitivity_label: Option<String>,
    /// Deprecated: use sensitivityLabel.
    pub hide_data: Option<bool>,
}

/// The profiling of a model object: its data profile and sample (left out, with
/// `dataHidden`, when its data is hidden from the caller), Hide Data and its Sensitivity
/// Label (View Metadata on the object).
#[utoipa::path(get, path = "/entities/DataProfiling/{objectId}", tag = "Browse", security(("api_key" = ["ViewMetadata"])),
    params(("objectId" = String, Path, description = "The object: id, stable id or URL-encoded repository path")),
    responses((status = 200, description = "`{objectId, dataProfile, dataSample, hideData, dataHidden, sensitivityLabel}`"),
        (status = 400, description = "A bad identifier"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without View Metadata on the object"), (status = 404, description = "No such object")))]
pub async fn get_data_profiling(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object): Path<String>,
) -> ApiResult<Response> {
    let record = state
        .catalog
        .governance()
        .data_profiling(&caller, &object_ref(&object)?)
        .await?;
    Ok(ok(profiling_json(&record)))
}

/// The same as `GET /entities/DataProfiling/{objectId}` (the spec spells it both ways).
#[utoipa::path(get, path = "/entities/Dataprofiling/{objectId}", tag = "Browse", security(("api_key" = ["ViewMetadata"])),
    params(("objectId" = String, Path, description = "The object: id, stable id or URL-encoded repository path")),
    responses((status = 200, description = "As GET /entities/DataProfiling/{objectId}"),
        (status = 400, description = "A bad identifier"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without View Metadata on the object"), (status = 404, description = "No such object")))]
pub async fn get_data_profiling_lower(
    state: State<AppState>,
    caller: Authenticated,
    object: Path<String>,
) -> ApiResult<Response> {
    get_data_profiling(state, caller, object).await
}

async fn write_profiling(
    state: AppState,
    caller: lore_core::auth::Caller,
    object: String,
    params: ProfilingParams,
    req: Request,
) -> ApiResult<Response> {
    let bytes = body_bytes(req, &state).await?;
    let body: Option<Map<String, Value>> = optional_json(&bytes)?;
    let body = body.unwrap_or_default();
    let part = |name: &str| -> ApiResult<Option<Option<Value>>> {
        Ok(match body.get(name) {
            None => None,
            Some(Value::Null) => Some(None),
            Some(value) => Some(Some(value.clone())),
        })
    };
    let profile = match part("dataProfile")? {
        None => None,
        Some(None) => Some(None),
        Some(Some(value)) => Some(Some(
            serde_json::from_value::<DataProfile>(value)
                .map_err(|e| Error::invalid(format!("dataProfile is not a DataProfile: {e}")))?,
        )),
    };
    let sample = match part("dataSample")? {
        None => None,
        Some(None) => Some(None),
        Some(Some(value)) => Some(Some(
            serde_json::from_value::<DataSample>(value)
                .map_err(|e| Error::invalid(format!("dataSample is not a DataSample: {e}")))?,
        )),
    };
    let label = params.sensitivity_label.or_else(|| {
        body.get("sensitivityLabel")
            .and_then(Value::as_str)
            .map(str::to_owned)
    });
    let hide_data = match (params.hide_data.as_deref(), body.get("hideData")) {
        (Some(text), _) => Some(flag(Some(text), "hideData")?),
        (None, Some(Value::Bool(b))) => Some(*b),
        (None, Some(Value::Null) | None) => None,
        (None, Some(other)) => {
            return Err(
                Error::invalid(format!("hideData must be true or false, not {other}")).into(),
            );
        }
    };
    let update = ProfilingUpdate {
        profile,
        sample,
        sensitivity_label: label.filter(|l| !l.trim().is_empty()),
        hide_data,
    };
    let record = state
        .catalog
        .governance()
        .put_data_profiling(&caller, &object_ref(&object)?, update)
        .await?;
    Ok(ok(profiling_json(&record)))
}

/// Writes the profiling of a model object; `sensitivityLabel` proposes a label, the
/// deprecated `hideData` sets its Hide Data attribute (Edit Metadata on the object).
#[utoipa::path(put, path = "/entities/DataProfiling/{objectId}", tag = "Browse", security(("api_key" = ["EditMetadata"])),
    params(("objectId" = String, Path, description = "A model object: id, stable id or URL-encoded repository path"), ProfilingParams),
    request_body = ProfilingBody,
    responses((status = 200, description = "The profiling record, as GET answers it"),
        (status = 400, description = "Nothing to write, a malformed profile or sample, or a repository object"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without Edit Metadata on the object"),
        (status = 404, description = "No such object or label")))]
pub async fn put_data_profiling(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object): Path<String>,
    Params(params): Params<ProfilingParams>,
    req: Request,
) -> ApiResult<Response> {
    write_profiling(state, caller, object, params, req).await
}

/// The same as `PUT /entities/DataProfiling/{objectId}`, as the spec's
/// `POST /entities/Dataprofiling/{objectId}` (with `sensitivityLabel`).
#[utoipa::path(post, path = "/entities/Dataprofiling/{objectId}", tag = "Browse", security(("api_key" = ["EditMetadata"])),
    params(("objectId" = String, Path, description = "A model object: id, stable id or URL-encoded repository path"), ProfilingParams),
    request_body = ProfilingBody,
    responses((status = 200, description = "The profiling record"),
        (status = 400, description = "Nothing to write, a malformed profile or sample, or a repository object"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without Edit Metadata on the object"),
        (status = 404, description = "No such object or label")))]
pub async fn post_data_profiling(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object): Path<String>,
    Params(params): Params<ProfilingParams>,
    req: Request,
) -> ApiResult<Response> {
    write_profiling(state, caller, object, params, req).await
}

/// The same as `POST /entities/Dataprofiling/{objectId}`, in the other spelling.
#[utoipa::path(post, path = "/entities/DataProfiling/{objectId}", tag = "Browse", security(("api_key" = ["EditMetadata"])),
    params(("objectId" = String, Path, description = "A model object: id, stable id or URL-encoded repository path"), ProfilingParams),
    request_body = ProfilingBody,
    responses((status = 200, description = "The profiling record"),
        (status = 400, description = "Nothing to write, a malformed profile or sample, or a repository object"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without Edit Metadata on the object"),
        (status = 404, description = "No such object or label")))]
pub async fn post_data_profiling_upper(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object): Path<String>,
    Params(params): Params<ProfilingParams>,
    req: Request,
) -> ApiResult<Response> {
    write_profiling(state, caller, object, params, req).await
}

/// The same as `PUT /entities/DataProfiling/{objectId}`, in the other spelling.
#[utoipa::path(put, path = "/entities/Dataprofiling/{objectId}", tag = "Browse", security(("api_key" = ["EditMetadata"])),
    params(("objectId" = String, Path, description = "A model object: id, stable id or URL-encoded repository path"), ProfilingParams),
    request_body = ProfilingBody,
    responses((status = 200, description = "The profiling record"),
        (status = 400, description = "Nothing to write, a malformed profile or sample, or a repository object"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without Edit Metadata on the object"),
        (status = 404, description = "No such object or label")))]
pub async fn put_data_profiling_lower(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object): Path<String>,
    Params(params): Params<ProfilingParams>,
    req: Request,
) -> ApiResult<Response> {
    write_profiling(state, caller, object, params, req).await
}
