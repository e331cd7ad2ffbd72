//! Worksheets: queries saved under a name (`/worksheets`, Lore's own management routes)
//! and the spec's `POST /entities/executeWorksheet` and `GET /entities/countWorksheet`,
//! which run one.

use axum::extract::{Path, Request, State};
use axum::response::Response;
use lore_core::catalog::{NewWorksheet, PageRequest, WorksheetRef};
use lore_core::model::SavedQuery;
use lore_core::{Error, ObjectId};
use serde::Deserialize;
use serde_json::Value;
use utoipa::{IntoParams, ToSchema};

use super::entities::{QueryInput, whole_number};
use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, JsonBody, Params, body_bytes, flag, optional_json};

/// What saving a worksheet takes: a name, a description and the clauses of its query as
/// executeMQLQuery takes them.
#[derive(Debug, Deserialize, ToSchema)]
pub struct CreateWorksheetBody {
    /// Unique among the caller's worksheets, compared case-insensitively; at most 256
    /// characters.
    pub name: Option<String>,
    pub description: Option<String>,
    #[serde(flatten)]
    pub query: QueryInput,
}

/// Saves a query as a worksheet of the caller. The query is validated first: one that
/// is not valid MQL is refused with the validator's message (400).
#[utoipa::path(post, path = "/worksheets", tag = "Worksheets", security(("api_key" = ["ViewMetadata"])),
    request_body = CreateWorksheetBody,
    responses((status = 200, description = "The worksheet: `{id, name, ownerId, description, select, from, scope, where, orderby, context, mqlVersion, createdAt, updatedAt}`"),
        (status = 400, description = "No name, or the query is not valid MQL"), (status = 409, description = "The caller already has a worksheet of that name")))]
pub async fn create_worksheet(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    JsonBody(body): JsonBody<CreateWorksheetBody>,
) -> ApiResult<Response> {
    let mql_version = body.query.version()?;
    let query = body.query;
    let new = NewWorksheet {
        name: body.name.unwrap_or_default(),
        description: body.description.unwrap_or_default(),
        query: SavedQuery {
            select: query.select.unwrap_or_default(),
            from: query.from,
            scope: query.scope,
            filter: query.filter,
            order_by: query.orderby,
            context: query.context,
            mql_version,
        },
    };
    Ok(ok(state
        .catalog
        .search()
        .create_worksheet(&caller, new)
        .await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListParams {
    /// `true` lists every user's worksheets (administrators only).
    pub all: Option<String>,
}

/// Lists the caller's worksheets by name; with `all=true` an administrator lists every
/// user's.
#[utoipa::path(get, path = "/worksheets", tag = "Worksheets", security(("api_key" = ["ViewMetadata"])),
    params(ListParams),
    responses((status = 200, description = "An array of worksheets"), (status = 400, description = "`all` is not true or false"),
        (status = 403, description = "`all=true` from a caller who is no administrator")))]
pub async fn list_worksheets(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<ListParams>,
) -> ApiResult<Response> {
    let everyone = flag(params.all.as_deref(), "all")?;
    Ok(ok(state
        .catalog
        .search()
        .list_worksheets(&caller, everyone)
        .await?))
}

/// A worksheet id, or INVALID_PARAMETER naming the parameter.
fn worksheet_id(text: &str) -> Result<ObjectId, Error> {
    text.trim().parse().map_err(|_| {
        Error::invalid(format!(
            "worksheetId '{text}' is not a worksheet id of the form -1_<n>"
        ))
    })
}

/// Reads one worksheet of the caller (any user's for an administrator).
#[utoipa::path(get, path = "/worksheets/{worksheetId}", tag = "Worksheets", security(("api_key" = ["ViewMetadata"])),
    params(("worksheetId" = String, Path, description = "The worksheet id, e.g. `-1_12`")),
    responses((status = 200, description = "The worksheet"), (status = 400, description = "Not a worksheet id"),
        (status = 404, description = "No such worksheet, or another user's")))]
pub async fn get_worksheet(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let worksheet = WorksheetRef::Id(worksheet_id(&id)?);
    Ok(ok(state
        .catalog
        .search()
        .get_worksheet(&caller, &worksheet)
        .await?))
}

/// Deletes a worksheet of the caller (any user's for an administrator).
#[utoipa::path(delete, path = "/worksheets/{worksheetId}", tag = "Worksheets", security(("api_key" = ["ViewMetadata"])),
    params(("worksheetId" = String, Path, description = "The worksheet id, e.g. `-1_12`")),
    responses((status = 200, description = "Deleted; `result` is \"\""), (status = 400, description = "Not a worksheet id"),
        (status = 404, description = "No such worksheet, or another user's")))]
pub async fn delete_worksheet(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let worksheet = WorksheetRef::Id(worksheet_id(&id)?);
    state
        .catalog
        .search()
        .delete_worksheet(&caller, &worksheet)
        .await?;
    Ok(ok(""))
}

/// The worksheet a request names: `worksheetId` or `name` (one of the caller's), not both.
fn worksheet_ref(id: Option<String>, name: Option<String>) -> Result<WorksheetRef, Error> {
    let id = id.filter(|t| !t.trim().is_empty());
    let name = name.filter(|t| !t.trim().is_empty());
    match (id, name) {
        (Some(_), Some(_)) => Err(Error::invalid(
            "name the worksheet by worksheetId or by name, not both",
        )),
        (Some(id), None) => Ok(WorksheetRef::Id(worksheet_id(&id)?)),
        (None, Some(name)) => Ok(WorksheetRef::Name(name.trim().to_owned())),
        (None, None) => Err(Error::missing("worksheetId (or name)")),
    }
}

/// Which worksheet countWorksheet counts.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct WorksheetParams {
    /// The worksheet id, e.g. `-1_12`.
    pub worksheet_id: Option<String>,
    /// Instead of worksheetId: the name of one of the caller's worksheets (any case).
    pub name: Option<String>,
}

/// What executeWorksheet takes, as query parameters or in a JSON body (the body's
/// fields first): the worksheet, the page and the entity format.
#[derive(Debug, Default, Deserialize, IntoParams, ToSchema)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ExecuteWorksheetInput {
    /// The worksheet id, e.g. `-1_12`.
    pub worksheet_id: Option<String>,
    /// Instead of worksheetId: the name of one of the caller's worksheets (any case).
    pub name: Option<String>,
    /// Rows per page, 1 to 10,000 (default 20).
    #[param(value_type = Option<i64>)]
    #[schema(value_type = Option<i64>)]
    pub page_size: Option<Value>,
    /// The page, from 1 (default 1).
    #[param(value_type = Option<i64>)]
    #[schema(value_type = Option<i64>)]
    pub page_number: Option<Value>,
    /// Deprecated: answer entities in the legacy format.
    #[param(value_type = Option<bool>)]
    #[schema(value_type = Option<bool>)]
    pub legacy_entity_format: Option<Value>,
}

/// A boolean from JSON or a query parameter (`true`/`false`, any case; absent is false).
fn boolean(value: Option<&Value>, name: &str) -> ApiResult<bool> {
    match value {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(Value::String(text)) => flag(Some(text), name),
        Some(other) => flag(Some(&other.to_string()), name),
    }
}

/// Runs a worksheet's query: one page of the objects it finds, in the MQL entity format
/// (one attribute per SELECT item), or in the legacy format with `legacyEntityFormat`.
#[utoipa::path(post, path = "/entities/executeWorksheet", tag = "Worksheets", security(("api_key" = ["ViewMetadata"])),
    params(ExecuteWorksheetInput),
    request_body(content = ExecuteWorksheetInput, description = "The same fields as the query parameters (optional)"),
    responses((status = 200, description = "An array of entities"),
        (status = 400, description = "No worksheet named, a bad page, or a saved query no longer valid"),
        (status = 404, description = "No such worksheet, or another user's")))]
pub async fn execute_worksheet(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(query): Params<ExecuteWorksheetInput>,
    req: Request,
) -> ApiResult<Response> {
    let body: ExecuteWorksheetInput =
        optional_json(&body_bytes(req, &state).await?)?.unwrap_or_default();
    let worksheet = worksheet_ref(
        body.worksheet_id.or(query.worksheet_id),
        body.name.or(query.name),
    )?;
    let page = PageRequest {
        size: whole_number("pageSize", body.page_size.or(query.page_size).as_ref())?,
        number: whole_number(
            "pageNumber",
            body.page_number.or(query.page_number).as_ref(),
        )?,
    };
    let legacy = boolean(
        body.legacy_entity_format
            .or(query.legacy_entity_format)
            .as_ref(),
        "legacyEntityFormat",
    )?;
    Ok(ok(state
        .catalog
        .search()
        .execute_worksheet(&caller, &worksheet, page, legacy)
        .await?))
}

/// Counts the objects a worksheet's query finds.
#[utoipa::path(get, path = "/entities/countWorksheet", tag = "Worksheets", security(("api_key" = ["ViewMetadata"])),
    params(WorksheetParams),
    responses((status = 200, description = "The number of objects"),
        (status = 400, description = "No worksheet named, or a saved query no longer valid"),
        (status = 404, description = "No such worksheet, or another user's")))]
pub async fn count_worksheet(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<WorksheetParams>,
) -> ApiResult<Response> {
    let worksheet = worksheet_ref(params.worksheet_id, params.name)?;
    Ok(ok(state
        .catalog
        .search()
        .count_worksheet(&caller, &worksheet)
        .await?))
}
