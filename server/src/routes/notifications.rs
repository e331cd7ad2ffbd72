//! A user's own notifications (spec 6): of changes to the models they watch, and, for
//! metadata managers, of failed imports.

use axum::extract::{Path, State};
use axum::response::Response;
use lore_core::Error;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, JsonBody, Params, flag};

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct NotificationParams {
    /// Only unread ones (`true`/`false`, default false).
    pub unread: Option<String>,
    /// At most this many, 1 to 1,000 (default 100).
    pub limit: Option<String>,
}

/// The caller's notifications, newest first: `MODEL_CHANGED` for models they watch
/// (`POST /curation/{objectId}` with kind `watch`), `IMPORT_FAILED` for metadata managers
/// (a global role with Import) and the user who started the import.
#[utoipa::path(get, path = "/notifications", tag = "Notifications", security(("api_key" = [])),
    params(NotificationParams),
    responses((status = 200, description = "An array of `{id, kind, objectId, message, at, read}`"),
        (status = 400, description = "A bad unread or limit"), (status = 401, description = "Missing or invalid key")))]
pub async fn list_notifications(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<NotificationParams>,
) -> ApiResult<Response> {
    let unread = flag(params.unread.as_deref(), "unread")?;
    let limit = match params
        .limit
        .as_deref()
        .map(str::trim)
        .filter(|l| !l.is_empty())
    {
        None => None,
        Some(text) => Some(text.parse::<u32>().map_err(|_| {
            Error::invalid(format!(
                "limit '{text}' is not a whole number from 1 to 1000"
            ))
        })?),
    };
    Ok(ok(state
        .catalog
        .my_notifications(&caller, unread, limit)
        .await?))
}

/// Marks a notification read or unread.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NotificationBody {
    pub read: Option<bool>,
}

/// Marks one of the caller's notifications read (or unread).
#[utoipa::path(put, path = "/notifications/{notificationId}", tag = "Notifications", security(("api_key" = [])),
    params(("notificationId" = String, Path, description = "The notification's id")),
    request_body = NotificationBody,
    responses((status = 200, description = "The notification"),
        (status = 400, description = "No read, or a malformed id"), (status = 401, description = "Missing or invalid key"),
        (status = 404, description = "No such notification of the caller")))]
pub async fn mark_notification(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<NotificationBody>,
) -> ApiResult<Response> {
    let id: i64 = id
        .trim()
        .parse()
        .map_err(|_| Error::invalid(format!("notification id '{id}' is not a number")))?;
    let read = body.read.ok_or_else(|| Error::missing("read"))?;
    Ok(ok(state
        .catalog
        .mark_notification(&caller, id, read)
        .await?))
}
