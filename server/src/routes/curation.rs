//! Social curation and workflow (Lore's extensions: the spec shows no endpoints for what
//! MQL's Endorsed By, Certified By, Commented By, Warned By, Watchers, Workflow State and
//! My Workflow Tasks read).

use axum::extract::{Path, State};
use axum::response::Response;
use lore_core::Error;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, JsonBody, Params};

/// The curation of an object: who endorsed, certified, commented on, warned about and
/// watches it, its workflow state and the workflow actions the caller may take (View
/// Metadata on it).
#[utoipa::path(get, path = "/curation/{objectId}", tag = "Curation", security(("api_key" = ["ViewMetadata"])),
    params(("objectId" = String, Path, description = "The object: id, stable id or path")),
    responses((status = 200, description = "`{objectId, endorsedBy, certifiedBy, comments: [{id, kind, user, text, at}], warnings, watchers, workflowState, myWorkflowTasks}`"),
        (status = 400, description = "A malformed id"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without View Metadata on the object"), (status = 404, description = "No such object")))]
pub async fn get_curation(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object): Path<String>,
) -> ApiResult<Response> {
    Ok(ok(state
        .catalog
        .governance()
        .object_curation(&caller, &object)
        .await?))
}

/// What the caller says of an object.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CurationBody {
    /// `endorsement`, `certification`, `comment`, `warning` or `watch`.
    pub kind: Option<String>,
    /// The comment or warning (at most 10,000 characters); none for the others.
    pub text: Option<String>,
}

/// Endorses, certifies, comments on, warns about or watches an object. Endorsing,
/// certifying and watching twice is a no-op. Certifying and warning need Curate on the
/// object, the others View Metadata. Answers the object's curation.
#[utoipa::path(post, path = "/curation/{objectId}", tag = "Curation", security(("api_key" = ["ViewMetadata"])),
    params(("objectId" = String, Path, description = "The object: id, stable id or path")),
    request_body = CurationBody,
    responses((status = 200, description = "The object's curation, as GET answers it"),
        (status = 400, description = "An unknown kind, a comment or warning without text, text on another kind"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without the capability the kind needs"),
        (status = 404, description = "No such object")))]
pub async fn add_curation(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object): Path<String>,
    JsonBody(body): JsonBody<CurationBody>,
) -> ApiResult<Response> {
    let kind = body.kind.ok_or_else(|| Error::missing("kind"))?;
    Ok(ok(state
        .catalog
        .governance()
        .add_curation(&caller, &object, &kind, body.text.as_deref())
        .await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct RemoveCurationParams {
    /// Removes the caller's `endorsement`, `certification` or `watch`.
    pub kind: Option<String>,
    /// Removes the comment or warning of that id.
    pub id: Option<String>,
}

/// Removes the caller's endorsement, certification or watch (`kind`), or a comment or
/// warning by id (the author's own; anyone's with Curate). Answers the object's curation.
#[utoipa::path(delete, path = "/curation/{objectId}", tag = "Curation", security(("api_key" = ["ViewMetadata"])),
    params(("objectId" = String, Path, description = "The object: id, stable id or path"), RemoveCurationParams),
    responses((status = 200, description = "The object's curation"),
        (status = 400, description = "Neither kind nor id, or a malformed one"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without the capability it needs"),
        (status = 404, description = "No such object, or nothing of that kind or id on it")))]
pub async fn remove_curation(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object): Path<String>,
    Params(params): Params<RemoveCurationParams>,
) -> ApiResult<Response> {
    let id = match params
        .id
        .as_deref()
        .map(str::trim)
        .filter(|i| !i.is_empty())
    {
        None => None,
        Some(text) => Some(
            text.parse::<i64>()
                .map_err(|_| Error::invalid(format!("id '{text}' is not a curation entry id")))?,
        ),
    };
    Ok(ok(state
        .catalog
        .governance()
        .remove_curation(&caller, &object, params.kind.as_deref(), id)
        .await?))
}

/// A workflow action.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct WorkflowBody {
    /// `Submit for Approval` (Edit Metadata), `Start Review`, `Approve`, `Discard`, `Mark
    /// for Deprecation`, `Deprecate` (Curate).
    pub action: Option<String>,
}

/// Moves an object through the workflow: Draft → Submit for Approval → Pending Approval →
/// Start Review → Under Review → Approve → Approved → Mark for Deprecation → Pending
/// Deprecation → Deprecate → Deprecated (→ Submit for Approval); Discard sends a pending
/// or reviewed object back to Draft. Answers the object's curation.
#[utoipa::path(post, path = "/workflow/{objectId}", tag = "Curation", security(("api_key" = ["EditMetadata"])),
    params(("objectId" = String, Path, description = "The object: id, stable id or path")),
    request_body = WorkflowBody,
    responses((status = 200, description = "The object's curation, with its new workflow state"),
        (status = 400, description = "No action, or an unknown one"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without the capability the action needs"), (status = 404, description = "No such object"),
        (status = 409, description = "The action does not apply in the object's state")))]
pub async fn workflow_transition(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object): Path<String>,
    JsonBody(body): JsonBody<WorkflowBody>,
) -> ApiResult<Response> {
    let action = body.action.ok_or_else(|| Error::missing("action"))?;
    Ok(ok(state
        .catalog
        .governance()
        .workflow_transition(&caller, &object, &action)
        .await?))
}
