//! A user's own notifications (spec 6): of changes to the models they watch, and, for
//! metadata managers, of failed imports.

use axum::extract::{Path, State};
use axum::response::Response;
use lore_core::Error;
use lore_core::model::{DeliveryState, format_datetime};
use serde::Deserialize;
use serde_json::{Value, json};
use utoipa::{IntoParams, ToSchema};

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, JsonBody, Params, flag};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct NotificationParams {
    /// Only unread ones (`true`/`false`, default false).
    pub unread: Option<String>,
    /// At most this many, 1 to 1,000 (default 100).
    pub limit: Option<String>,
}

/// The caller's notifications, newest first: `MODEL_CHANGED` for models they watch
/// (`POST /curation/{objectId}` with kind `watch`), `IMPORT_FAILED` for metadata managers
/// (a global role with Import) and the user who started the import, `UPSTREAM_CHANGED`
/// for the watchers of objects downstream (by lineage) of a re-import's breaking changes.
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
    let limit = limit_of(params.limit.as_deref())?;
    Ok(ok(state
        .catalog
        .notifications()
        .my_notifications(&caller, unread, limit)
        .await?))
}

/// The limit parameter: a whole number, checked by the catalog.
fn limit_of(limit: Option<&str>) -> Result<Option<u32>, Error> {
    match limit.map(str::trim).filter(|l| !l.is_empty()) {
        None => Ok(None),
        Some(text) => text.parse::<u32>().map(Some).map_err(|_| {
            Error::invalid(format!(
                "limit '{text}' is not a whole number from 1 to 1000"
            ))
        }),
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryParams {
    /// Only deliveries in this state: `PENDING`, `DELIVERED` or `FAILED`.
    pub state: Option<String>,
    /// At most this many, 1 to 1,000 (default 100).
    pub limit: Option<String>,
}

/// The outbox of notifications, newest first, for administrators (a Lore extension):
/// each event on its way to a webhook or an e-mail address, with its attempts, when it is
/// due and why the last attempt failed. `FAILED` ones were given up after
/// `notifications.max_attempts`.
#[utoipa::path(get, path = "/admin/notificationDeliveries", tag = "Notifications", security(("api_key" = ["Administer"])),
    params(DeliveryParams),
    responses((status = 200, description = "An array of `{id, channel, target, event, message, state, attempts, nextAttemptAt, lastError, createdAt, updatedAt}`"),
        (status = 400, description = "A bad state or limit"), (status = 403, description = "Not an administrator")))]
pub async fn list_deliveries(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<DeliveryParams>,
) -> ApiResult<Response> {
    let wanted = match params
        .state
        .as_deref()
        .map(str::trim)
        .filter(|s| !s.is_empty())
    {
        None => None,
        Some(text) => Some(
            DeliveryState::parse(&text.to_ascii_uppercase()).ok_or_else(|| {
                Error::invalid(format!(
                    "state '{text}' is not one of PENDING, DELIVERED, FAILED"
                ))
            })?,
        ),
    };
    let limit = limit_of(params.limit.as_deref())?;
    let deliveries = state
        .catalog
        .notifications()
        .list_deliveries(&caller, wanted, limit)
        .await?;
    let listed: Vec<Value> = deliveries
        .iter()
        .map(|d| {
            json!({
                "id": d.id,
                "channel": d.channel.as_str(),
                "target": d.target,
                "event": d.payload.get("event").cloned().unwrap_or(Value::Null),
                "message": d.payload.get("message").or_else(|| d.payload.get("subject")).cloned().unwrap_or(Value::Null),
                "state": d.state.as_str(),
                "attempts": d.attempts,
                "nextAttemptAt": format_datetime(&d.next_attempt_at),
                "lastError": d.last_error,
                "createdAt": format_datetime(&d.created_at),
                "updatedAt": format_datetime(&d.updated_at),
            })
        })
        .collect();
    Ok(ok(listed))
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
        .notifications()
        .mark_notification(&caller, id, read)
        .await?))
}
