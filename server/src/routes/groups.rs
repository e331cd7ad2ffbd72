//! Groups: `GET /admin/groups` (named by COMPAT.md) and Lore's own routes beside it to
//! create, change, read and delete groups and to manage their members.

use axum::extract::{Path, State};
use axum::response::Response;
use lore_core::catalog::{GroupDetails, GroupUpdate, NewGroup};
use lore_core::model::Group;
use serde_json::{Value, json};
use utoipa::{IntoParams, ToSchema};

use super::users::user_json;
use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, JsonBody, Params, flag};

fn group_json(group: &Group) -> Value {
    json!({
        "id": group.id.to_string(),
        "name": group.name,
        "description": group.description,
        "enabled": group.enabled,
        "createdAt": group.created_at,
    })
}

fn details_json(details: &GroupDetails) -> Value {
    let mut value = group_json(&details.group);
    value["members"] = details.members.iter().map(user_json).collect();
    value
}

/// What creating a group takes.
#[derive(Debug, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateGroupBody {
    /// Unique among groups case-insensitively; no leading or trailing spaces, at most
    /// 255 characters.
    pub name: Option<String>,
    pub description: Option<String>,
    /// Default true. The roles of a disabled group hold for nobody.
    pub enabled: Option<bool>,
    /// Users (ids such as `-1_3`, or names) to add.
    #[serde(default)]
    pub members: Vec<String>,
}

/// What `PUT /admin/groups` takes: the group by `id` or `name`; absent fields stay.
#[derive(Debug, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateGroupBody {
    /// The group's id, e.g. `-1_7`.
    pub id: Option<String>,
    /// The group's name, instead of id.
    pub name: Option<String>,
    pub new_name: Option<String>,
    pub description: Option<String>,
    pub enabled: Option<bool>,
    /// Replaces the members (user ids or names) when given.
    pub members: Option<Vec<String>>,
}

/// Users to add to a group.
#[derive(Debug, serde::Deserialize, ToSchema)]
pub struct MembersBody {
    /// User ids (e.g. `-1_3`) or names.
    #[serde(default)]
    pub users: Vec<String>,
}

/// Which groups the list shows.
#[derive(Debug, serde::Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListGroupsParams {
    /// `true`: only enabled groups; `false`: only disabled ones; absent: all.
    pub enabled: Option<String>,
    /// Only the groups of this user (id or name); a user may list their own groups.
    pub member: Option<String>,
}

/// The groups, sorted by name (Administer capability, or `member` naming oneself).
#[utoipa::path(get, path = "/admin/groups", tag = "Users", security(("api_key" = [])),
    params(ListGroupsParams),
    responses((status = 200, description = "An array of groups `{id, name, description, enabled, createdAt}`"),
        (status = 400, description = "enabled is not true or false"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without the Administer capability, unless member names the caller"),
        (status = 404, description = "member names no user")))]
pub async fn list_groups(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<ListGroupsParams>,
) -> ApiResult<Response> {
    let enabled = match params.enabled.as_deref() {
        Some(value) => Some(flag(Some(value), "enabled")?),
        None => None,
    };
    let groups = state
        .catalog
        .identity()
        .list_groups(&caller, params.member.as_deref())
        .await?;
    Ok(ok(groups
        .iter()
        .filter(|g| enabled.is_none_or(|e| g.enabled == e))
        .map(group_json)
        .collect::<Vec<_>>()))
}

/// Creates a group, with members if given (Administer capability).
#[utoipa::path(post, path = "/admin/groups", tag = "Users", security(("api_key" = ["Administer"])),
    request_body = CreateGroupBody,
    responses((status = 200, description = "The new group with its `members`"), (status = 400, description = "No name or a bad name"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without the Administer capability"),
        (status = 404, description = "A member names no user"), (status = 409, description = "A group of that name exists")))]
pub async fn create_group(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    JsonBody(body): JsonBody<CreateGroupBody>,
) -> ApiResult<Response> {
    let new = NewGroup {
        name: body.name,
        description: body.description,
        enabled: body.enabled,
        members: body.members,
    };
    let details = state.catalog.identity().create_group(&caller, new).await?;
    Ok(ok(details_json(&details)))
}

/// Changes a group: name, description, enabled, members (Administer capability). No
/// change may leave the server without an enabled administrator.
#[utoipa::path(put, path = "/admin/groups", tag = "Users", security(("api_key" = ["Administer"])),
    request_body = UpdateGroupBody,
    responses((status = 200, description = "The group with its `members`"),
        (status = 400, description = "No id or name, a bad field, or the last administrator would go"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without the Administer capability"),
        (status = 404, description = "No such group or member"), (status = 409, description = "The new name is taken")))]
pub async fn update_group(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    JsonBody(body): JsonBody<UpdateGroupBody>,
) -> ApiResult<Response> {
    let update = GroupUpdate {
        id: body.id,
        name: body.name,
        new_name: body.new_name,
        description: body.description,
        enabled: body.enabled,
        members: body.members,
    };
    let details = state
        .catalog
        .identity()
        .update_group(&caller, update)
        .await?;
    Ok(ok(details_json(&details)))
}

/// A group with its members: any group with the Administer capability, otherwise one
/// the caller belongs to.
#[utoipa::path(get, path = "/admin/groups/{groupId}", tag = "Users", security(("api_key" = [])),
    params(("groupId" = String, Path, description = "The group's id (e.g. `-1_7`) or name")),
    responses((status = 200, description = "The group with its `members`"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Another group without the Administer capability"), (status = 404, description = "No such group")))]
pub async fn get_group(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let details = state.catalog.identity().get_group(&caller, &id).await?;
    Ok(ok(details_json(&details)))
}

/// Deletes a group with its memberships and grants (Administer capability).
#[utoipa::path(delete, path = "/admin/groups/{groupId}", tag = "Users", security(("api_key" = ["Administer"])),
    params(("groupId" = String, Path, description = "The group's id (e.g. `-1_7`) or name")),
    responses((status = 200, description = "Deleted; `result` is \"\""), (status = 400, description = "The last administrator would go"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without the Administer capability"),
        (status = 404, description = "No such group")))]
pub async fn delete_group(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    state.catalog.identity().delete_group(&caller, &id).await?;
    Ok(ok(""))
}

/// Adds users to a group (Administer capability); members already in it stay.
#[utoipa::path(post, path = "/admin/groups/{groupId}/members", tag = "Users", security(("api_key" = ["Administer"])),
    params(("groupId" = String, Path, description = "The group's id (e.g. `-1_7`) or name")),
    request_body = MembersBody,
    responses((status = 200, description = "The group with its `members`"), (status = 400, description = "No users"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without the Administer capability"),
        (status = 404, description = "No such group or user")))]
pub async fn add_members(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<MembersBody>,
) -> ApiResult<Response> {
    let details = state
        .catalog
        .identity()
        .add_members(&caller, &id, &body.users)
        .await?;
    Ok(ok(details_json(&details)))
}

/// Removes a user from a group (Administer capability).
#[utoipa::path(delete, path = "/admin/groups/{groupId}/members/{userId}", tag = "Users", security(("api_key" = ["Administer"])),
    params(("groupId" = String, Path, description = "The group's id (e.g. `-1_7`) or name"),
        ("userId" = String, Path, description = "The user's id (e.g. `-1_3`) or name")),
    responses((status = 200, description = "The group with its `members`"), (status = 400, description = "The last administrator would go"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without the Administer capability"),
        (status = 404, description = "No such group or user, or the user is no member")))]
pub async fn remove_member(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path((id, user)): Path<(String, String)>,
) -> ApiResult<Response> {
    let details = state
        .catalog
        .identity()
        .remove_member(&caller, &id, &user)
        .await?;
    Ok(ok(details_json(&details)))
}
