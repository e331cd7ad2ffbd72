//! Roles and grants: the twelve endpoints of spec section 4.6 under `/admin/grants`, and
//! Lore's own `/admin/roles` to read and define roles (the spec shows none). Who may call
//! what is in `lore_core::catalog::grants`; `docs/roles.md` documents the capabilities.

use axum::extract::{Path, Request, State};
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use lore_core::catalog::{Grantee, GranteeKind, GranteeRef, RoleDefinition, RoleGrant};
use lore_core::model::{Capability, Role};
use lore_core::{Error, ObjectRef};
use serde_json::{Value, json};
use std::io::Read;
use utoipa::{IntoParams, ToSchema};

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, JsonBody, Params, flag};
use crate::upload::{ROLES_CSV, spool_upload};

fn grantee_json(grantee: &Grantee) -> Value {
    json!({
        "id": grantee.id.to_string(),
        "name": grantee.name,
        "type": grantee.kind.as_str(),
    })
}

fn role_json(role: &Role) -> Value {
    json!({
        "name": role.name,
        "description": role.description,
        "global": role.global,
        "builtIn": Role::is_builtin(&role.name),
        "capabilities": role.capabilities,
    })
}

fn grants_json(grants: &[RoleGrant]) -> Value {
    grants
        .iter()
        .map(|g| {
            json!({
                "grantee": grantee_json(&g.grantee),
                "role": g.role.name,
                "capabilities": g.role.capabilities,
                "objectId": g.object.map(|o| o.to_string()),
                "via": g.via.as_ref().map(grantee_json),
                "inherited": g.inherited,
            })
        })
        .collect()
}

fn grantee_ref(grantee: Option<String>, kind: Option<&str>) -> ApiResult<Option<GranteeRef>> {
    let kind = kind
        .filter(|k| !k.trim().is_empty())
        .map(GranteeKind::parse)
        .transpose()?;
    Ok(grantee
        .filter(|g| !g.trim().is_empty())
        .map(|reference| GranteeRef { reference, kind }))
}

fn required_grantee(grantee: Option<String>, kind: Option<&str>) -> ApiResult<GranteeRef> {
    grantee_ref(grantee, kind)?.ok_or_else(|| Error::missing("grantee").into())
}

fn object_ref(id: &str) -> ApiResult<ObjectRef> {
    Ok(ObjectRef::parse(id)?)
}

/// Whose roles a read is about.
#[derive(Debug, serde::Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct GranteeParams {
    /// A user or group, by id (e.g. `-1_3`) or name; the caller when absent.
    pub grantee: Option<String>,
    /// `USER` or `GROUP`, where a user and a group share the name.
    pub grantee_type: Option<String>,
}

/// Which role a grantee list is about.
#[derive(Debug, serde::Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RoleParams {
    /// A role name; all roles when absent.
    pub role: Option<String>,
}

/// A grant or revocation.
#[derive(Debug, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GrantBody {
    /// A user or group, by id (e.g. `-1_3`) or name.
    pub grantee: Option<String>,
    /// `USER` or `GROUP`, where a user and a group share the name.
    pub grantee_type: Option<String>,
    /// The role name.
    pub role: Option<String>,
    /// Several role names (grantGlobalRoles).
    pub roles: Option<Vec<String>>,
}

/// The global roles of a user (granted to them or through their enabled groups, `via`)
/// or a group: oneself, or anyone with ManageRoles.
#[utoipa::path(get, path = "/admin/grants/getGlobalRoles", tag = "Roles", security(("api_key" = [])),
    params(GranteeParams),
    responses((status = 200, description = "An array of `{grantee, role, capabilities, objectId: null, via, inherited}`"),
        (status = 400, description = "A bad granteeType, or a name of both a user and a group"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Another grantee without ManageRoles"), (status = 404, description = "No such user or group")))]
pub async fn get_global_roles(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<GranteeParams>,
) -> ApiResult<Response> {
    let grantee = grantee_ref(params.grantee, params.grantee_type.as_deref())?;
    let roles = state
        .catalog
        .identity()
        .global_roles(&caller, grantee.as_ref())
        .await?;
    Ok(ok(grants_json(&roles)))
}

/// The users and groups holding global roles (or one role), by role then name
/// (ManageRoles).
#[utoipa::path(get, path = "/admin/grants/getGlobalGrantees", tag = "Roles", security(("api_key" = ["ManageRoles"])),
    params(RoleParams),
    responses((status = 200, description = "An array of `{grantee, role, capabilities, objectId: null, via: null, inherited: false}`"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without ManageRoles"),
        (status = 404, description = "No such role")))]
pub async fn get_global_grantees(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<RoleParams>,
) -> ApiResult<Response> {
    let grants = state
        .catalog
        .identity()
        .global_grantees(&caller, params.role.as_deref().filter(|r| !r.is_empty()))
        .await?;
    Ok(ok(grants_json(&grants)))
}

/// Grants global roles (`roles`, or one `role`) to a user or group; roles already held
/// stay (ManageRoles, and without Administer only roles within one's own capabilities).
#[utoipa::path(put, path = "/admin/grants/grantGlobalRoles", tag = "Roles", security(("api_key" = ["ManageRoles"])),
    request_body = GrantBody,
    responses((status = 200, description = "The grantee's global roles"),
        (status = 400, description = "No grantee or role, or an object role"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without ManageRoles, or a role with capabilities the caller lacks"),
        (status = 404, description = "No such user, group or role")))]
pub async fn grant_global_roles(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    JsonBody(body): JsonBody<GrantBody>,
) -> ApiResult<Response> {
    let grantee = required_grantee(body.grantee, body.grantee_type.as_deref())?;
    let mut roles = body.roles.unwrap_or_default();
    roles.extend(body.role);
    let held = state
        .catalog
        .identity()
        .grant_global_roles(&caller, &grantee, &roles)
        .await?;
    Ok(ok(grants_json(&held)))
}

/// Revokes a global role from a user or group (ManageRoles). No revocation may leave
/// the server without an enabled administrator.
#[utoipa::path(put, path = "/admin/grants/revokeGlobalRole", tag = "Roles", security(("api_key" = ["ManageRoles"])),
    request_body = GrantBody,
    responses((status = 200, description = "Revoked; `result` is \"\""),
        (status = 400, description = "No grantee or role, or the last administrator would go"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without ManageRoles"), (status = 404, description = "No such user, group or role, or not held")))]
pub async fn revoke_global_role(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    JsonBody(body): JsonBody<GrantBody>,
) -> ApiResult<Response> {
    let grantee = required_grantee(body.grantee, body.grantee_type.as_deref())?;
    let role = body.role.ok_or_else(|| Error::missing("role"))?;
    state
        .catalog
        .identity()
        .revoke_global_role(&caller, &grantee, &role)
        .await?;
    Ok(ok(""))
}

/// The object roles a user (directly or through their enabled groups) or group holds
/// on an object, including those inherited from its ancestors (`inherited`): oneself,
/// or anyone with ManageRoles on the object.
#[utoipa::path(get, path = "/admin/grants/getObjectRoles/{objectId}", tag = "Roles", security(("api_key" = [])),
    params(("objectId" = String, Path, description = "The object: id, stable id or repository path"), GranteeParams),
    responses((status = 200, description = "An array of `{grantee, role, capabilities, objectId, via, inherited}`"),
        (status = 400, description = "A bad identifier or granteeType"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Another grantee without ManageRoles on the object"),
        (status = 404, description = "No such object, user or group")))]
pub async fn get_object_roles(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object): Path<String>,
    Params(params): Params<GranteeParams>,
) -> ApiResult<Response> {
    let grantee = grantee_ref(params.grantee, params.grantee_type.as_deref())?;
    let roles = state
        .catalog
        .identity()
        .object_roles(&caller, &object_ref(&object)?, grantee.as_ref())
        .await?;
    Ok(ok(grants_json(&roles)))
}

/// The users and groups holding object roles (or one role) on an object, including
/// grants on its ancestors, nearest first (ManageRoles on the object).
#[utoipa::path(get, path = "/admin/grants/getObjectGrantees/{objectId}", tag = "Roles", security(("api_key" = ["ManageRoles"])),
    params(("objectId" = String, Path, description = "The object: id, stable id or repository path"), RoleParams),
    responses((status = 200, description = "An array of `{grantee, role, capabilities, objectId, via: null, inherited}`"),
        (status = 400, description = "A bad identifier"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without ManageRoles on the object"), (status = 404, description = "No such object or role")))]
pub async fn get_object_grantees(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object): Path<String>,
    Params(params): Params<RoleParams>,
) -> ApiResult<Response> {
    let grants = state
        .catalog
        .identity()
        .object_grantees(
            &caller,
            &object_ref(&object)?,
            params.role.as_deref().filter(|r| !r.is_empty()),
        )
        .await?;
    Ok(ok(grants_json(&grants)))
}

/// Grants an object role on a repository object (folder, model, ...) to a user or group;
/// the model's objects and the folder's subtree inherit it (ManageRoles on the object,
/// and without Administer only roles within one's own capabilities there).
#[utoipa::path(put, path = "/admin/grants/grantObjectRole/{objectId}", tag = "Roles", security(("api_key" = ["ManageRoles"])),
    params(("objectId" = String, Path, description = "A repository object: id or repository path")),
    request_body = GrantBody,
    responses((status = 200, description = "The grantee's roles on the object"),
        (status = 400, description = "No grantee or role, a global role, or a model object"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without ManageRoles on the object, or a role with capabilities the caller lacks there"),
        (status = 404, description = "No such object, user, group or role")))]
pub async fn grant_object_role(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object): Path<String>,
    JsonBody(body): JsonBody<GrantBody>,
) -> ApiResult<Response> {
    let grantee = required_grantee(body.grantee, body.grantee_type.as_deref())?;
    let role = body.role.ok_or_else(|| Error::missing("role"))?;
    let held = state
        .catalog
        .identity()
        .grant_object_role(&caller, &object_ref(&object)?, &grantee, &role)
        .await?;
    Ok(ok(grants_json(&held)))
}

/// Revokes an object role granted on the object itself (ManageRoles on the object).
#[utoipa::path(put, path = "/admin/grants/revokeObjectRole/{objectId}", tag = "Roles", security(("api_key" = ["ManageRoles"])),
    params(("objectId" = String, Path, description = "A repository object: id or repository path")),
    request_body = GrantBody,
    responses((status = 200, description = "Revoked; `result` is \"\""),
        (status = 400, description = "No grantee or role"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without ManageRoles on the object"),
        (status = 404, description = "No such object, user, group or role, or no such grant on the object")))]
pub async fn revoke_object_role(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object): Path<String>,
    JsonBody(body): JsonBody<GrantBody>,
) -> ApiResult<Response> {
    let grantee = required_grantee(body.grantee, body.grantee_type.as_deref())?;
    let role = body.role.ok_or_else(|| Error::missing("role"))?;
    state
        .catalog
        .identity()
        .revoke_object_role(&caller, &object_ref(&object)?, &grantee, &role)
        .await?;
    Ok(ok(""))
}

/// How a CSV import treats grants the file does not list.
#[derive(Debug, serde::Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct CsvImportParams {
    /// `true`: revoke the grants of that kind the file does not list; default `false`
    /// (only add).
    pub replace: Option<String>,
}

async fn read_csv_upload(req: Request, state: &AppState) -> ApiResult<Vec<u8>> {
    let (mut file, _) = spool_upload(req, state, &ROLES_CSV).await?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| Error::internal(format!("cannot read the spooled upload: {e}")))?;
    Ok(bytes)
}

fn csv_download(bytes: Vec<u8>, file_name: &str) -> Response {
    (
        [
            (CONTENT_TYPE, "text/csv; charset=utf-8".to_owned()),
            (
                CONTENT_DISPOSITION,
                format!("attachment; filename=\"{file_name}\""),
            ),
        ],
        bytes,
    )
        .into_response()
}

/// Grants the global roles a CSV file lists: header `grantee,granteeType,role`
/// (`granteeType` optional). All or nothing: a bad line refuses the file, and the error
/// names every bad line (ManageRoles).
#[utoipa::path(post, path = "/admin/grants/importGlobalRolesCSV", tag = "Roles", security(("api_key" = ["ManageRoles"])),
    params(CsvImportParams),
    request_body(content = String, content_type = "text/csv", description = "The grants, e.g. `grantee,granteeType,role` then `ann,USER,Metadata Viewer`"),
    responses((status = 200, description = "`{lines, added, unchanged, removed}`"),
        (status = 400, description = "A bad file; the message names the bad lines"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without ManageRoles, or a role with capabilities the caller lacks"),
        (status = 413, description = "Larger than server.max_upload_mib"), (status = 415, description = "Not CSV or multipart")))]
pub async fn import_global_roles_csv(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<CsvImportParams>,
    req: Request,
) -> ApiResult<Response> {
    let replace = flag(params.replace.as_deref(), "replace")?;
    let bytes = read_csv_upload(req, &state).await?;
    let summary = state
        .catalog
        .identity()
        .import_global_roles_csv(&caller, &bytes, replace)
        .await?;
    Ok(ok(summary))
}

/// Every global grant as CSV, `grantee,granteeType,role` (ManageRoles); importing the
/// file restores them.
#[utoipa::path(post, path = "/admin/grants/exportGlobalRolesCSV", tag = "Roles", security(("api_key" = ["ManageRoles"])),
    responses((status = 200, description = "The CSV file", content_type = "text/csv"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without ManageRoles")))]
pub async fn export_global_roles_csv(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
) -> ApiResult<Response> {
    let bytes = state
        .catalog
        .identity()
        .export_global_roles_csv(&caller)
        .await?;
    Ok(csv_download(bytes, "global-roles.csv"))
}

/// Grants the object roles a CSV file lists: header
/// `objectId,objectPath,grantee,granteeType,role` (the object by id or path). All or
/// nothing: a bad line refuses the file, and the error names every bad line (ManageRoles
/// on each object).
#[utoipa::path(post, path = "/admin/grants/importObjectRolesCSV", tag = "Roles", security(("api_key" = ["ManageRoles"])),
    params(CsvImportParams),
    request_body(content = String, content_type = "text/csv", description = "The grants, e.g. `objectPath,grantee,role` then `/Sales,stewards,Steward`"),
    responses((status = 200, description = "`{lines, added, unchanged, removed}`"),
        (status = 400, description = "A bad file; the message names the bad lines"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without ManageRoles on an object of the file; the message names the lines"),
        (status = 413, description = "Larger than server.max_upload_mib"), (status = 415, description = "Not CSV or multipart")))]
pub async fn import_object_roles_csv(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<CsvImportParams>,
    req: Request,
) -> ApiResult<Response> {
    let replace = flag(params.replace.as_deref(), "replace")?;
    let bytes = read_csv_upload(req, &state).await?;
    let summary = state
        .catalog
        .identity()
        .import_object_roles_csv(&caller, &bytes, replace)
        .await?;
    Ok(ok(summary))
}

/// Which object grants an export covers.
#[derive(Debug, serde::Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ObjectExportParams {
    /// Only the grants on this object and its subtree (id or path); all when absent.
    pub object_id: Option<String>,
}

/// Every object grant (or those under `objectId`) as CSV,
/// `objectId,objectPath,grantee,granteeType,role` (ManageRoles globally, or on
/// `objectId`).
#[utoipa::path(post, path = "/admin/grants/exportObjectRolesCSV", tag = "Roles", security(("api_key" = ["ManageRoles"])),
    params(ObjectExportParams),
    responses((status = 200, description = "The CSV file", content_type = "text/csv"),
        (status = 400, description = "A bad objectId"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without ManageRoles (on objectId)"), (status = 404, description = "No such object")))]
pub async fn export_object_roles_csv(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<ObjectExportParams>,
) -> ApiResult<Response> {
    let object = params
        .object_id
        .as_deref()
        .filter(|o| !o.trim().is_empty())
        .map(object_ref)
        .transpose()?;
    let bytes = state
        .catalog
        .identity()
        .export_object_roles_csv(&caller, object.as_ref())
        .await?;
    Ok(csv_download(bytes, "object-roles.csv"))
}

/// A role to define.
#[derive(Debug, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RoleBody {
    pub name: Option<String>,
    pub description: Option<String>,
    /// `true`: a global role; default `false`, an object role.
    pub global: Option<bool>,
    /// Capability names: Administer, ManageRoles, ManageRepository, Import,
    /// ManageMetaModel, ViewMetadata, EditMetadata, Curate, ViewData.
    #[serde(default)]
    pub capabilities: Vec<String>,
}

/// Every role with its capabilities, and every capability (any logged-in user).
#[utoipa::path(get, path = "/admin/roles", tag = "Roles", security(("api_key" = [])),
    responses((status = 200, description = "`{roles: [{name, description, global, builtIn, capabilities}], capabilities: [...]}`"),
        (status = 401, description = "Missing or invalid key")))]
pub async fn list_roles(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
) -> ApiResult<Response> {
    let roles = state.catalog.identity().roles(&caller).await?;
    Ok(ok(json!({
        "roles": roles.iter().map(role_json).collect::<Vec<_>>(),
        "capabilities": Capability::ALL,
    })))
}

/// Defines or redefines a role that is not built in (ManageRoles; without Administer
/// only with capabilities one holds).
#[utoipa::path(put, path = "/admin/roles", tag = "Roles", security(("api_key" = ["ManageRoles"])),
    request_body = RoleBody,
    responses((status = 200, description = "The role"),
        (status = 400, description = "No name or capabilities, an unknown capability, a built-in role, or a kind change of a granted role"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without ManageRoles, or a capability the caller lacks")))]
pub async fn put_role(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    JsonBody(body): JsonBody<RoleBody>,
) -> ApiResult<Response> {
    let definition = RoleDefinition {
        name: body.name,
        description: body.description,
        global: body.global,
        capabilities: body.capabilities,
    };
    let role = state
        .catalog
        .identity()
        .put_role(&caller, definition)
        .await?;
    Ok(ok(role_json(&role)))
}

/// Deletes a role that is not built in, with every grant of it (ManageRoles).
#[utoipa::path(delete, path = "/admin/roles/{roleName}", tag = "Roles", security(("api_key" = ["ManageRoles"])),
    params(("roleName" = String, Path, description = "The role's name")),
    responses((status = 200, description = "Deleted; `result` is \"\""),
        (status = 400, description = "A built-in role, or the last administrator would go"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without ManageRoles"), (status = 404, description = "No such role")))]
pub async fn delete_role(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(name): Path<String>,
) -> ApiResult<Response> {
    state.catalog.identity().delete_role(&caller, &name).await?;
    Ok(ok(""))
}
