//! Users: the spec's `PUT /admin/users`, and Lore's own routes beside it to create,
//! list, read and delete users (the spec shows none; a user of such a server expects
//! them).

use axum::extract::{Path, State};
use axum::response::Response;
use lore_core::catalog::{NewUser, UserUpdate, requested_link};
use lore_core::model::{ExternalLink, User};
use serde_json::{Value, json};
use utoipa::{IntoParams, ToSchema};

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, JsonBody, Params, flag};

/// A user as the API shows it: never the password hash.
pub(crate) fn user_json(user: &User) -> Value {
    json!({
        "id": user.id.to_string(),
        "name": user.name,
        "fullName": user.full_name,
        "email": user.email,
        "description": user.description,
        "enabled": user.enabled,
        "passwordLogin": user.password_hash.is_some(),
        "createdAt": user.created_at,
        "externalIdentity": identity_json(user.external.as_ref()),
    })
}

/// How a user is linked to an identity provider's account: `{issuer, subject}`,
/// `{atNextSignIn: true}`, or null.
fn identity_json(link: Option<&ExternalLink>) -> Value {
    match link {
        Some(ExternalLink::Subject { issuer, subject }) => {
            json!({ "issuer": issuer, "subject": subject })
        }
        Some(ExternalLink::AtNextSignIn) => json!({ "atNextSignIn": true }),
        None => Value::Null,
    }
}

/// What linking a user to an identity provider's account takes: the provider's
/// `issuer` (default: `auth.oauth2.issuer`) and the account's `subject` (the tokens'
/// `iss` and `sub`), or `atNextSignIn: true`.
#[derive(Debug, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LinkIdentityBody {
    /// The provider, exactly as its tokens' `iss` claim; default the configured issuer.
    pub issuer: Option<String>,
    /// The account at the provider, exactly as its tokens' `sub` claim.
    pub subject: Option<String>,
    /// Instead of a subject: link the user at their next sign-in whose name claim is
    /// the user's name, character for character (only for a user without a password).
    pub at_next_sign_in: Option<bool>,
}

/// Links a user to an identity provider's account: later sign-ins with that issuer and
/// subject are this user, whatever name the token carries (Administer capability).
#[utoipa::path(put, path = "/admin/users/{userId}/identity", tag = "Users", security(("api_key" = ["Administer"])),
    params(("userId" = String, Path, description = "The user's id (e.g. `-1_3`) or name")),
    request_body = LinkIdentityBody,
    responses((status = 200, description = "The user, with `externalIdentity`"),
        (status = 400, description = "No subject, both a subject and atNextSignIn, no issuer and none configured, or atNextSignIn for a user with a password"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without the Administer capability"),
        (status = 404, description = "No such user"), (status = 409, description = "Another user is linked to that identity")))]
pub async fn link_identity(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(id): Path<String>,
    JsonBody(body): JsonBody<LinkIdentityBody>,
) -> ApiResult<Response> {
    let link = requested_link(
        body.subject,
        body.issuer,
        body.at_next_sign_in == Some(true),
        state.oauth2.as_ref().map(|o| o.issuer()),
    )?;
    let user = state
        .catalog
        .identity()
        .link_identity(&caller, &id, Some(link))
        .await?;
    Ok(ok(user_json(&user)))
}

/// Unlinks a user from their identity provider's account: sign-ins of that account no
/// longer find them (Administer capability).
#[utoipa::path(delete, path = "/admin/users/{userId}/identity", tag = "Users", security(("api_key" = ["Administer"])),
    params(("userId" = String, Path, description = "The user's id (e.g. `-1_3`) or name")),
    responses((status = 200, description = "The user, with `externalIdentity` null"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without the Administer capability"),
        (status = 404, description = "No such user")))]
pub async fn unlink_identity(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let user = state
        .catalog
        .identity()
        .link_identity(&caller, &id, None)
        .await?;
    Ok(ok(user_json(&user)))
}

/// What creating a user takes.
#[derive(Debug, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreateUserBody {
    /// Unique case-insensitively; no leading or trailing spaces, at most 255 characters.
    pub name: Option<String>,
    pub full_name: Option<String>,
    pub email: Option<String>,
    pub description: Option<String>,
    /// At least 8 characters; without one the user cannot log in with a password.
    pub password: Option<String>,
    /// Default true.
    pub enabled: Option<bool>,
}

/// What `PUT /admin/users` takes: the user by `id` or `name`; absent fields stay.
#[derive(Debug, serde::Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UpdateUserBody {
    /// The user's id, e.g. `-1_3`.
    pub id: Option<String>,
    /// The user's name, instead of id.
    pub name: Option<String>,
    /// A new name (administrators only).
    pub new_name: Option<String>,
    pub full_name: Option<String>,
    pub email: Option<String>,
    pub description: Option<String>,
    /// Administrators only; disabling ends the user's sessions at once.
    pub enabled: Option<bool>,
    /// A new password (at least 8 characters).
    pub password: Option<String>,
    /// Required to change one's own password; an administrator resetting another
    /// user's password does not give it (and the user's sessions end).
    pub old_password: Option<String>,
}

/// Updates a user: anyone themselves (full name, e-mail, description, password with the
/// old password), an administrator anyone (also name, enabled, and a password reset
/// without the old one).
#[utoipa::path(put, path = "/admin/users", tag = "Users", security(("api_key" = [])),
    request_body = UpdateUserBody,
    responses((status = 200, description = "The user: `{id, name, fullName, email, description, enabled, passwordLogin, createdAt, externalIdentity}`"),
        (status = 400, description = "No id or name, a bad field, or a wrong oldPassword"),
        (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Another user's change without the Administer capability"),
        (status = 404, description = "No such user"), (status = 409, description = "The new name is taken")))]
pub async fn update_user(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    JsonBody(body): JsonBody<UpdateUserBody>,
) -> ApiResult<Response> {
    let update = UserUpdate {
        id: body.id,
        name: body.name,
        new_name: body.new_name,
        full_name: body.full_name,
        email: body.email,
        description: body.description,
        enabled: body.enabled,
        password: body.password,
        old_password: body.old_password,
    };
    let user = state
        .catalog
        .identity()
        .update_user(&caller, update)
        .await?;
    Ok(ok(user_json(&user)))
}

/// Creates a user (Administer capability).
#[utoipa::path(post, path = "/admin/users", tag = "Users", security(("api_key" = ["Administer"])),
    request_body = CreateUserBody,
    responses((status = 200, description = "The new user"), (status = 400, description = "No name, a bad name or a short password"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without the Administer capability"),
        (status = 409, description = "A user of that name exists")))]
pub async fn create_user(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    JsonBody(body): JsonBody<CreateUserBody>,
) -> ApiResult<Response> {
    let new = NewUser {
        name: body.name,
        full_name: body.full_name,
        email: body.email,
        description: body.description,
        password: body.password,
        enabled: body.enabled,
    };
    let user = state.catalog.identity().create_user(&caller, new).await?;
    Ok(ok(user_json(&user)))
}

/// Which users the list shows.
#[derive(Debug, serde::Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListUsersParams {
    /// `true`: only enabled users; `false`: only disabled ones; absent: all.
    pub enabled: Option<String>,
}

/// Every user, sorted by name (Administer capability).
#[utoipa::path(get, path = "/admin/users", tag = "Users", security(("api_key" = ["Administer"])),
    params(ListUsersParams),
    responses((status = 400, description = "enabled is not true or false"), (status = 200, description = "An array of users"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without the Administer capability")))]
pub async fn list_users(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<ListUsersParams>,
) -> ApiResult<Response> {
    let enabled = match params.enabled.as_deref() {
        Some(value) => Some(flag(Some(value), "enabled")?),
        None => None,
    };
    let users = state.catalog.identity().list_users(&caller).await?;
    Ok(ok(users
        .iter()
        .filter(|u| enabled.is_none_or(|e| u.enabled == e))
        .map(user_json)
        .collect::<Vec<_>>()))
}

/// A user by id or name: oneself, or anyone with the Administer capability.
#[utoipa::path(get, path = "/admin/users/{userId}", tag = "Users", security(("api_key" = [])),
    params(("userId" = String, Path, description = "The user's id (e.g. `-1_3`) or name")),
    responses((status = 200, description = "The user"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Another user without the Administer capability"), (status = 404, description = "No such user")))]
pub async fn get_user(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let user = state.catalog.identity().get_user(&caller, &id).await?;
    Ok(ok(user_json(&user)))
}

/// Deletes a user with their sessions, grants and worksheets (Administer capability;
/// not oneself, not the last enabled administrator).
#[utoipa::path(delete, path = "/admin/users/{userId}", tag = "Users", security(("api_key" = ["Administer"])),
    params(("userId" = String, Path, description = "The user's id (e.g. `-1_3`) or name")),
    responses((status = 200, description = "Deleted; `result` is \"\""), (status = 400, description = "Oneself or the last administrator"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without the Administer capability"),
        (status = 404, description = "No such user")))]
pub async fn delete_user(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    state.catalog.identity().delete_user(&caller, &id).await?;
    Ok(ok(""))
}
