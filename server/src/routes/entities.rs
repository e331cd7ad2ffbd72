//! Browse: reading objects.

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::response::IntoResponse;
use axum::response::Response;
use lore_core::catalog::{AsOf, MqlQuery};
use lore_core::catalog::{PageRequest, mql_version};
use lore_core::mql::QueryFields;
use lore_core::{Error, ObjectRef};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::AppState;
use crate::error::{ApiError, ApiResult, ok};
use crate::extract::{Authenticated, CallUser, JsonBody, KeyToCheck, Params};

/// How to read an entity, or the entities related to one.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct EntityReadParams {
    /// MQL SELECT list; when present the MQL entity format is asked for.
    pub select: Option<String>,
    /// MQL version (current 3).
    pub mql_version: Option<String>,
    /// Read the entity as it was then: an RFC 3339 time or a version id (see
    /// `GET /history/objects/{objectId}`). Not with `select`.
    pub as_of: Option<String>,
}

/// Reads one object (model object, repository object) by id, stable id or repository
/// path: in the legacy entity format, or with `select` in the MQL entity format (one
/// attribute per SELECT item).
#[utoipa::path(get, path = "/entities/{objectId}", tag = "Browse", security(("api_key" = ["ViewMetadata"])),
    params(("objectId" = String, Path, description = "Object id (`447_16`, `-1_4`), stable id, or URL-encoded repository path"), EntityReadParams),
    responses((status = 200, description = "The entity"), (status = 400, description = "A malformed id, select or asOf, or an asOf not kept"), (status = 404, description = "No such object")))]
///
/// The gate leaves this route's key to the handler ([`crate::gate::SELF_CHECKED_ROUTES`]):
/// a plain read by id checks it in the same store read as the object. Anything else
/// (a `select`, or input that does not parse) checks the key first, so a bad key
/// answers 401 before bad input answers 400, as on every route.
pub async fn get_entity(
    State(state): State<AppState>,
    KeyToCheck(key): KeyToCheck,
    object_id: Result<Path<String>, PathRejection>,
    params: Result<Params<EntityReadParams>, ApiError>,
) -> ApiResult<Response> {
    let plain = match (&object_id, &params) {
        (Ok(Path(id)), Ok(Params(p))) if p.select.is_none() && p.as_of.is_none() => {
            mql_version(p.mql_version.as_deref())
                .and_then(|_| ObjectRef::parse(id))
                .ok()
        }
        _ => None,
    };
    if let Some(reference) = plain {
        let (caller, entity) = state
            .catalog
            .objects()
            .get_entity_by_key(&key, &reference)
            .await?;
        return Ok(called_by(&caller, ok(entity)));
    }
    let caller = state.catalog.identity().authenticate(&key).await?;
    let response = match (object_id, params) {
        (Err(rejection), _) => rejection.into_response(),
        (_, Err(e)) => return Err(e),
        (Ok(Path(object_id)), Ok(Params(params))) => {
            let version = mql_version(params.mql_version.as_deref())?;
            let reference = ObjectRef::parse(&object_id)?;
            let as_of = params.as_of.as_deref().map(AsOf::parse).transpose()?;
            match (params.select.as_deref(), as_of) {
                (Some(_), Some(_)) => {
                    return Err(Error::invalid(
                        "asOf reads the legacy entity format: leave out select, or asOf",
                    )
                    .into());
                }
                (None, Some(as_of)) => ok(state
                    .catalog
                    .history()
                    .get_entity_as_of(&caller, &reference, as_of)
                    .await?),
                (Some(select), None) => ok(state
                    .catalog
                    .search()
                    .get_entity_selected(&caller, &reference, select, version)
                    .await?),
                (None, None) => ok(state
                    .catalog
                    .objects()
                    .get_entity(&caller, &reference)
                    .await?),
            }
        }
    };
    Ok(called_by(&caller, response))
}

/// The response with its caller's name for the call log, as the gate puts it on the
/// responses of the routes it checks.
fn called_by(caller: &lore_core::auth::Caller, mut response: Response) -> Response {
    response
        .extensions_mut()
        .insert(CallUser(caller.name().to_owned()));
    response
}

/// The clauses of an MQL query, without the SELECT, FROM, WHERE and ORDER BY keywords:
/// the query parameters of validateMQLQuery and the body of upgradeMQLQuery.
#[derive(Debug, Deserialize, IntoParams, ToSchema)]
#[into_params(parameter_in = Query)]
pub struct QueryInput {
    /// The SELECT list, e.g. `Name, "Object Type"`.
    pub select: Option<String>,
    /// The from id (repository path, object id or stable id).
    pub from: Option<String>,
    /// Scope filters on the from id, e.g. `Model = WHERE (Name = 'Sales')`.
    pub scope: Option<String>,
    /// The WHERE filters.
    #[serde(rename = "where")]
    pub filter: Option<String>,
    /// Sort keys: `Name asc`, `Name desc`, `Relevance`, `"Updated Date"`.
    pub orderby: Option<String>,
    /// The CONTEXT clause: the path or id of a content or version of a configuration.
    pub context: Option<String>,
    /// MQL version, 1 to 3 (current 3; a number or a string); below 3 accepts the
    /// deprecated names and marks.
    #[serde(rename = "mqlVersion")]
    #[param(value_type = Option<String>)]
    #[schema(value_type = Option<String>)]
    pub mql_version: Option<serde_json::Value>,
    /// validateMQLQuery only: also answer how the query runs (the plan, and on the SQL
    /// backends the statement and the database's plan).
    #[param(value_type = Option<bool>)]
    #[schema(value_type = Option<bool>)]
    pub explain: Option<serde_json::Value>,
    /// Run the query on the catalog as it was then: an RFC 3339 time or a version id
    /// (see `GET /history/models/{modelId}/versions`; a number or a string). Today's
    /// sight applies. Not for upgradeMQLQuery, which runs nothing.
    #[serde(rename = "asOf")]
    #[param(value_type = Option<String>)]
    #[schema(value_type = Option<String>)]
    pub as_of: Option<serde_json::Value>,
}

impl QueryInput {
    fn fields(&self) -> QueryFields<'_> {
        QueryFields {
            select: self.select.as_deref().unwrap_or_default(),
            from: self.from.as_deref(),
            scope: self.scope.as_deref(),
            context: self.context.as_deref(),
            filter: self.filter.as_deref(),
            order_by: self.orderby.as_deref(),
        }
    }

    /// Whether `explain` asks for the plan: true or false, as a boolean or text. Only
    /// validateMQLQuery explains; the others check it and go on.
    pub(crate) fn explain(&self) -> Result<bool, Error> {
        match &self.explain {
            None | Some(serde_json::Value::Null) => Ok(false),
            Some(serde_json::Value::Bool(b)) => Ok(*b),
            Some(serde_json::Value::String(s)) if s.eq_ignore_ascii_case("true") => Ok(true),
            Some(serde_json::Value::String(s)) if s.eq_ignore_ascii_case("false") => Ok(false),
            Some(other) => Err(Error::invalid(format!(
                "explain '{other}' is not true or false"
            ))),
        }
    }

    /// The moment asked for (`asOf`), if any.
    pub(crate) fn as_of(&self) -> Result<Option<AsOf>, Error> {
        match &self.as_of {
            None | Some(serde_json::Value::Null) => Ok(None),
            Some(serde_json::Value::String(text)) => Ok(Some(AsOf::parse(text)?)),
            Some(serde_json::Value::Number(n)) => Ok(Some(AsOf::parse(&n.to_string())?)),
            Some(other) => Err(Error::invalid(format!(
                "asOf {other} is neither an RFC 3339 time nor a version id"
            ))),
        }
    }

    /// The MQL version asked for (current when absent).
    pub(crate) fn version(&self) -> Result<u32, Error> {
        match &self.mql_version {
            None | Some(serde_json::Value::Null) => mql_version(None),
            Some(serde_json::Value::String(text)) => mql_version(Some(text)),
            Some(other) => mql_version(Some(&other.to_string())),
        }
    }
}

/// Validates an MQL query: 200 with the query in current syntax and warnings about what
/// may surprise when it runs (unknown attributes or ids), or 400 naming what is wrong
/// (a syntax error with its line and column, an operator the attribute does not take).
#[utoipa::path(get, path = "/entities/validateMQLQuery", tag = "Browse", security(("api_key" = ["ViewMetadata"])),
    params(QueryInput),
    responses((status = 200, description = "{valid, query, warnings}"), (status = 400, description = "The query is not valid MQL")))]
pub async fn validate_mql_query(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<QueryInput>,
) -> ApiResult<Response> {
    let version = params.version()?;
    let explain = params.explain()?;
    Ok(ok(state
        .catalog
        .search()
        .as_of(params.as_of()?)
        .validate_query(&caller, MqlQuery::text(&params.fields(), version), explain)
        .await?))
}

/// Rewrites a query of an earlier MQL version (`mqlVersion` 1 or 2: notation marks,
/// earlier attribute names, removed filter words) in current syntax, clause by clause,
/// with warnings for what has no current equivalent.
#[utoipa::path(post, path = "/entities/upgradeMQLQuery", tag = "Browse", security(("api_key" = ["ViewMetadata"])),
    request_body = QueryInput,
    responses((status = 200, description = "{select, from, scope, where, orderby, context, mqlVersion, warnings}"), (status = 400, description = "The query is not valid MQL of its version")))]
pub async fn upgrade_mql_query(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    JsonBody(body): JsonBody<QueryInput>,
) -> ApiResult<Response> {
    let version = body.version()?;
    body.explain()?;
    if body.as_of.is_some() {
        return Err(Error::invalid(
            "upgradeMQLQuery rewrites a query without running it: asOf does not apply",
        )
        .into());
    }
    Ok(ok(state
        .catalog
        .search()
        .upgrade_query(&caller, &body.fields(), version)
        .await?))
}

/// Counts the objects an MQL query finds.
#[utoipa::path(get, path = "/entities/countMQLQuery", tag = "Browse", security(("api_key" = ["ViewMetadata"])),
    params(QueryInput),
    responses((status = 200, description = "The number of objects"), (status = 400, description = "The query is not valid MQL")))]
pub async fn count_mql_query(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<QueryInput>,
) -> ApiResult<Response> {
    let version = params.version()?;
    params.explain()?;
    Ok(ok(state
        .catalog
        .search()
        .as_of(params.as_of()?)
        .count_query(&caller, MqlQuery::text(&params.fields(), version))
        .await?))
}

/// The body of executeMQLQuery: the query's clauses, the page and the entity format.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExecuteInput {
    #[serde(flatten)]
    pub query: QueryInput,
    /// Rows per page, 1 to 10,000 (default 20).
    #[schema(value_type = Option<i64>)]
    pub page_size: Option<serde_json::Value>,
    /// The page, from 1 (default 1).
    #[schema(value_type = Option<i64>)]
    pub page_number: Option<serde_json::Value>,
    /// Deprecated: answer entities in the legacy format.
    pub legacy_entity_format: Option<bool>,
}

/// What executeMQLQuery also takes as query parameters: CONTEXT (as clients send it)
/// and the page.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ExecuteParams {
    /// The CONTEXT clause: the path or id of a content or version of a configuration.
    pub context: Option<String>,
    /// Rows per page, when the body names none.
    pub page_size: Option<String>,
    /// The page, when the body names none.
    pub page_number: Option<String>,
}

/// A whole number from JSON (a number or a string holding one).
pub(crate) fn whole_number(
    name: &str,
    value: Option<&serde_json::Value>,
) -> Result<Option<i64>, Error> {
    let text = match value {
        None | Some(serde_json::Value::Null) => return Ok(None),
        Some(serde_json::Value::String(s)) => s.trim().to_owned(),
        Some(other) => other.to_string(),
    };
    text.parse::<i64>()
        .map(Some)
        .map_err(|_| Error::invalid(format!("{name} '{text}' is not a whole number")))
}

/// Runs an MQL query: one page of the objects it finds, in the MQL entity format (one
/// attribute per SELECT item), or in the legacy format with `legacyEntityFormat`.
#[utoipa::path(post, path = "/entities/executeMQLQuery", tag = "Browse", security(("api_key" = ["ViewMetadata"])),
    params(ExecuteParams),
    request_body = ExecuteInput,
    responses((status = 200, description = "An array of entities"), (status = 400, description = "The query is not valid MQL, or the page is out of range")))]
pub async fn execute_mql_query(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<ExecuteParams>,
    JsonBody(mut body): JsonBody<ExecuteInput>,
) -> ApiResult<Response> {
    if body.query.context.is_none() {
        body.query.context = params.context;
    }
    let version = body.query.version()?;
    body.query.explain()?;
    let size = match whole_number("pageSize", body.page_size.as_ref())? {
        Some(n) => Some(n),
        None => whole_number(
            "pageSize",
            params.page_size.map(serde_json::Value::String).as_ref(),
        )?,
    };
    let number = match whole_number("pageNumber", body.page_number.as_ref())? {
        Some(n) => Some(n),
        None => whole_number(
            "pageNumber",
            params.page_number.map(serde_json::Value::String).as_ref(),
        )?,
    };
    let page = PageRequest { size, number };
    Ok(ok(state
        .catalog
        .search()
        .as_of(body.query.as_of()?)
        .execute_query(
            &caller,
            MqlQuery::text(&body.query.fields(), version),
            page,
            body.legacy_entity_format.unwrap_or(false),
        )
        .await?))
}

/// The body of getAttributeValueCounts: the query's clauses (SELECT names the
/// attributes to count), the date bucket width and how many values to answer.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ValueCountsInput {
    #[serde(flatten)]
    pub query: QueryInput,
    /// `YEAR`, `MONTH`, `DAY` (the default) or `HOUR`: the buckets of date values.
    pub date_range_gap: Option<String>,
    /// Values per attribute, 1 to 10,000 (default 100), most frequent first.
    #[schema(value_type = Option<i64>)]
    pub limit: Option<serde_json::Value>,
}

/// Counts, for each attribute of the SELECT list, how many of the query's objects have
/// each of its values (facets): `[{attributeType, values: [{value, count}]}]`, most
/// frequent first; dates in buckets of `dateRangeGap`.
#[utoipa::path(post, path = "/entities/getAttributeValueCounts", tag = "Browse", security(("api_key" = ["ViewMetadata"])),
    request_body = ValueCountsInput,
    responses((status = 200, description = "One entry per SELECT item: attributeType and values with counts"), (status = 400, description = "The query is not valid MQL, or dateRangeGap or limit is wrong")))]
pub async fn get_attribute_value_counts(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    JsonBody(body): JsonBody<ValueCountsInput>,
) -> ApiResult<Response> {
    let version = body.query.version()?;
    body.query.explain()?;
    let limit = whole_number("limit", body.limit.as_ref())?;
    Ok(ok(state
        .catalog
        .search()
        .as_of(body.query.as_of()?)
        .attribute_value_counts(
            &caller,
            MqlQuery::text(&body.query.fields(), version),
            body.date_range_gap.as_deref(),
            limit,
        )
        .await?))
}
