//! History: an object's changes, newest first; a model's versions; two states of a
//! model compared (`asOf` on the entity read is in `entities.rs`).

use axum::extract::{Path, State};
use axum::response::Response;
use lore_core::catalog::AsOf;
use lore_core::{Error, ObjectRef};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, Params};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct HistoryParams {
    /// Only changes made before this version: the `nextBefore` of the page before.
    pub before: Option<String>,
    /// Changes on the page, 1 to 500 (default 50); the last version on a page is whole.
    pub limit: Option<String>,
}

/// A whole number a query parameter holds.
fn number<T: std::str::FromStr>(name: &str, text: Option<&str>) -> Result<Option<T>, Error> {
    text.map(|t| {
        t.trim().parse().map_err(|_| {
            let shown: String = t.chars().take(32).collect();
            Error::invalid(format!("{name} must be a whole number, not '{shown}'"))
        })
    })
    .transpose()
}

/// An object's changes, newest first: each with its version, time, author (`source`,
/// `user`, `operationId`), kind (`created`, `deleted`, `moved`, `attribute`, `label`,
/// `collection`, `dataClass`, `sensitivityLabel`, `edge`, `curation`, `grant`), name,
/// and old and new values. Grants are listed to who may manage the object's roles. A
/// deleted object's history is read by its id.
#[utoipa::path(get, path = "/history/objects/{objectId}", tag = "History", security(("api_key" = ["ViewMetadata"])),
    params(("objectId" = String, Path, description = "Object id (`447_16`), stable id, or URL-encoded repository path"), HistoryParams),
    responses((status = 200, description = "`{objectId, changes, nextBefore, truncated}`"), (status = 400, description = "A malformed id, before or limit"), (status = 404, description = "No such object")))]
pub async fn object_history(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object_id): Path<String>,
    Params(params): Params<HistoryParams>,
) -> ApiResult<Response> {
    let reference = ObjectRef::parse(&object_id)?;
    let before = number("before", params.before.as_deref())?;
    let limit = number("limit", params.limit.as_deref())?;
    Ok(ok(state
        .catalog
        .history()
        .object_changes(&caller, &reference, before, limit)
        .await?))
}

/// The breaking changes upstream that reach the object, newest first: each re-import of
/// a model that broke objects the object's lineage reads from (through objects the
/// caller sees, as the lineage was before the import), with the model, the version it
/// made, when, how many objects broke and the first of them with their reasons. The
/// newest 20 announcements are kept.
#[utoipa::path(get, path = "/history/objects/{objectId}/upstream", tag = "History", security(("api_key" = ["ViewMetadata"])),
    params(("objectId" = String, Path, description = "Object id (`447_16`), stable id, or URL-encoded repository path")),
    responses((status = 200, description = "`{objectId, upstream: [{modelId, modelName, version, at, breaking, changes}]}`"), (status = 400, description = "A malformed id"), (status = 404, description = "No such object")))]
pub async fn upstream_changes(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object_id): Path<String>,
) -> ApiResult<Response> {
    let reference = ObjectRef::parse(&object_id)?;
    Ok(ok(state
        .catalog
        .history()
        .upstream_changes(&caller, &reference)
        .await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct PinParams {
    /// The moment to pin at: an RFC 3339 time or a version id; now when absent.
    pub as_of: Option<String>,
}

/// A configuration version's pin: the catalog version it reads its models as of (none:
/// live, its models now), and each of its models with the number and id of the version
/// the pin selects (the model's newest version at the pin).
#[utoipa::path(get, path = "/history/configurations/{configurationId}/pin", tag = "History", security(("api_key" = ["ViewMetadata"])),
    params(("configurationId" = String, Path, description = "Configuration version id (`-1_12`), stable id, or URL-encoded repository path")),
    responses((status = 200, description = "`{configurationId, version, at, models: [{modelId, name, number, versionId}]}`"),
        (status = 400, description = "A malformed id, or an object that is not a configuration version"), (status = 404, description = "No such configuration version")))]
pub async fn configuration_pin(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(configuration_id): Path<String>,
) -> ApiResult<Response> {
    let reference = ObjectRef::parse(&configuration_id)?;
    Ok(ok(state
        .catalog
        .history()
        .configuration_pin(&caller, &reference)
        .await?))
}

/// Pins a configuration version at a moment (`asOf`: a time or a version; now when
/// absent): a query FROM it then reads each of its models at the newest version it had
/// at that moment. Replaces an earlier pin. ManageRepository on the configuration version.
#[utoipa::path(put, path = "/history/configurations/{configurationId}/pin", tag = "History", security(("api_key" = ["ManageRepository"])),
    params(("configurationId" = String, Path, description = "Configuration version id (`-1_12`), stable id, or URL-encoded repository path"), PinParams),
    responses((status = 200, description = "The pin, as GET answers it"),
        (status = 400, description = "A malformed id or asOf, an asOf not kept, or an object that is not a configuration version"),
        (status = 403, description = "The caller may not manage the configuration version"), (status = 404, description = "No such configuration version")))]
pub async fn pin_configuration(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(configuration_id): Path<String>,
    Params(params): Params<PinParams>,
) -> ApiResult<Response> {
    let reference = ObjectRef::parse(&configuration_id)?;
    let as_of = params.as_of.as_deref().map(AsOf::parse).transpose()?;
    Ok(ok(state
        .catalog
        .history()
        .pin_configuration(&caller, &reference, as_of)
        .await?))
}

/// Unpins a configuration version: its models as they are now again. ManageRepository
/// on the configuration version.
#[utoipa::path(delete, path = "/history/configurations/{configurationId}/pin", tag = "History", security(("api_key" = ["ManageRepository"])),
    params(("configurationId" = String, Path, description = "Configuration version id (`-1_12`), stable id, or URL-encoded repository path")),
    responses((status = 200, description = "The pin, as GET answers it (no version)"),
        (status = 400, description = "A malformed id, or an object that is not a configuration version"),
        (status = 403, description = "The caller may not manage the configuration version"), (status = 404, description = "No such configuration version")))]
pub async fn unpin_configuration(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(configuration_id): Path<String>,
) -> ApiResult<Response> {
    let reference = ObjectRef::parse(&configuration_id)?;
    Ok(ok(state
        .catalog
        .history()
        .unpin_configuration(&caller, &reference)
        .await?))
}

/// The grants and revocations of server-wide roles, newest first (ManageRoles): each a
/// change of kind `grant` with its version, time, author, the role as `name`, and
/// `{granteeId}` as its new value (granted) or old value (revoked). Paged as an object's
/// changes. The roles granted on an object are in that object's changes.
#[utoipa::path(get, path = "/history/grants", tag = "History", security(("api_key" = ["ManageRoles"])),
    params(HistoryParams),
    responses((status = 200, description = "`{changes, nextBefore, truncated}`"), (status = 400, description = "A malformed before or limit"), (status = 403, description = "The caller may not manage roles")))]
pub async fn grant_history(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<HistoryParams>,
) -> ApiResult<Response> {
    let before = number("before", params.before.as_deref())?;
    let limit = number("limit", params.limit.as_deref())?;
    Ok(ok(state
        .catalog
        .history()
        .server_grant_changes(&caller, before, limit)
        .await?))
}

/// A model's versions, newest first: each import or harvest that changed the model made
/// one. Paged by `limit` (1 to 1,000, default 100) and `before` (the `nextBefore` of the
/// page before). Each has its `id` (the catalog version it committed as: pass it as `asOf` or to
/// a compare), its `number` among the model's versions, its time, author and operation,
/// and the counts of the model's objects after it and of those it added, changed and
/// removed.
#[utoipa::path(get, path = "/history/models/{modelId}/versions", tag = "History", security(("api_key" = ["ViewMetadata"])),
    params(("modelId" = String, Path, description = "Model id (`-1_447`), stable id, or URL-encoded repository path"), VersionsParams),
    responses((status = 200, description = "`{modelId, versions: [{id, number, at, author, operationId, objects, added, changed, removed}], nextBefore}`"),
        (status = 400, description = "A malformed id, before or limit, or an object that is not a model"), (status = 404, description = "No such model")))]
pub async fn model_versions(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(model_id): Path<String>,
    Params(params): Params<VersionsParams>,
) -> ApiResult<Response> {
    let reference = ObjectRef::parse(&model_id)?;
    let before = number("before", params.before.as_deref())?;
    let limit = number("limit", params.limit.as_deref())?;
    Ok(ok(state
        .catalog
        .history()
        .model_versions(&caller, &reference, before, limit)
        .await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct VersionsParams {
    /// Only versions numbered below this: the `nextBefore` of the page before.
    pub before: Option<String>,
    /// Versions on the page, 1 to 1,000 (default 100).
    pub limit: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct CompareParams {
    /// One end: a version id (from `/history/models/{modelId}/versions`, or any catalog
    /// version) or an RFC 3339 time.
    pub from: Option<String>,
    /// The other end, as `from`; the newest version when absent.
    pub to: Option<String>,
    /// Objects listed, 1 to 10,000 (default 1,000), breaking ones first; the counts are
    /// of every object.
    pub limit: Option<String>,
    /// `json` (default) or `csv`: a row per change.
    pub format: Option<String>,
}

/// A model as of `from` against as of `to`: the objects added, removed, changed and
/// moved, each with its changes (`kind`, `name`, `old`, `new`), and each change marked
/// `breaking` (a table or column removed, renamed or moved, a type changed other than
/// widened, a column made not null, a key changed) or not, with the object's `reasons`.
/// Breaking objects come first. `format=csv` answers the same as a CSV file, a row per
/// change.
#[utoipa::path(get, path = "/history/models/{modelId}/compare", tag = "History", security(("api_key" = ["ViewMetadata"])),
    params(("modelId" = String, Path, description = "Model id (`-1_447`), stable id, or URL-encoded repository path"), CompareParams),
    responses((status = 200, description = "`{modelId, from, to, counts: {added, removed, changed, moved, breaking}, objects: [{objectId, name, objectType, change, breaking, reasons, changes}], truncated}`, or the CSV file"),
        (status = 400, description = "A missing or malformed from, a malformed to, limit or format, a version not kept, or an object that is not a model"),
        (status = 404, description = "No such model")))]
pub async fn compare(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(model_id): Path<String>,
    Params(params): Params<CompareParams>,
) -> ApiResult<Response> {
    let reference = ObjectRef::parse(&model_id)?;
    let from = params
        .from
        .as_deref()
        .ok_or_else(|| Error::invalid("from is required: a version id or an RFC 3339 time"))
        .and_then(AsOf::parse)?;
    let to = params.to.as_deref().map(AsOf::parse).transpose()?;
    let limit = number("limit", params.limit.as_deref())?;
    let csv = match params.format.as_deref().map(str::trim) {
        None | Some("json") => false,
        Some("csv") => true,
        Some(other) => {
            let shown: String = other.chars().take(32).collect();
            return Err(
                Error::invalid(format!("format must be json or csv, not '{shown}'")).into(),
            );
        }
    };
    let comparison = state
        .catalog
        .history()
        .compare(&caller, &reference, from, to, limit)
        .await?;
    if !csv {
        return Ok(ok(comparison));
    }
    let mut file = crate::ui::download::Csv::new("compare.csv");
    file.row([
        "objectId",
        "name",
        "objectType",
        "change",
        "breaking",
        "reasons",
        "kind",
        "attribute",
        "old",
        "new",
        "changeBreaking",
    ])?;
    let text = |value: &serde_json::Value| match value {
        serde_json::Value::Null => String::new(),
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    for object in &comparison.objects {
        let head = [
            object.object_id.clone(),
            object.name.clone(),
            object.object_type.clone(),
            object.change.to_owned(),
            object.breaking.to_string(),
            object.reasons.join("; "),
        ];
        if object.changes.is_empty() {
            file.row(head.iter().map(String::as_str).chain(["", "", "", "", ""]))?;
        }
        for change in &object.changes {
            let tail = [
                change.kind.to_owned(),
                change.name.clone().unwrap_or_default(),
                text(&change.old),
                text(&change.new),
                change.breaking.to_string(),
            ];
            file.row(head.iter().chain(tail.iter()).map(String::as_str))?;
        }
    }
    Ok(file.into_response()?)
}
