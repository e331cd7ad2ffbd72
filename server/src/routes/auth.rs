//! Login and logout.

use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use lore_core::Error;
use serde::Deserialize;
use serde_json::json;
use utoipa::{IntoParams, ToSchema};

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, JsonBody, Params, PeerAddr, api_key};

/// Credentials of a password login.
#[derive(Debug, Deserialize, ToSchema)]
pub struct LoginRequest {
    /// The user name (case-insensitive).
    #[serde(alias = "username", alias = "userName")]
    pub user: Option<String>,
    pub password: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[serde(rename_all = "camelCase")]
pub struct LoginParams {
    /// `true` ends the user's other sessions.
    pub force_login: Option<String>,
}

async fn key_for(
    state: &AppState,
    peer: PeerAddr,
    params: &LoginParams,
    body: LoginRequest,
) -> ApiResult<String> {
    let user = body.user.ok_or_else(|| Error::missing("user"))?;
    let password = body.password.ok_or_else(|| Error::missing("password"))?;
    let force = crate::extract::flag(params.force_login.as_deref(), "forceLogin")?;
    // Failed logins are throttled per client address (the peer; behind a proxy, the
    // proxy's address).
    let address = peer.0.map(|ip| ip.to_string());
    Ok(state
        .catalog
        .login_from(&user, &password, force, address.as_deref())
        .await?)
}

/// Logs in; `result.token` holds the API key.
#[utoipa::path(post, path = "/auth/login", tag = "Authentication", params(LoginParams), request_body = LoginRequest,
    responses((status = 200, description = "`{\"result\": {\"token\": \"<key>\"}}`"), (status = 401, description = "Wrong user name or password"),
        (status = 429, description = "Too many failed logins for this user name from this address, or from this address")))]
pub async fn login(
    State(state): State<AppState>,
    peer: PeerAddr,
    Params(params): Params<LoginParams>,
    JsonBody(body): JsonBody<LoginRequest>,
) -> ApiResult<Response> {
    let key = key_for(&state, peer, &params, body).await?;
    Ok(ok(json!({ "token": key })))
}

/// Logs in; the response body is the bare API key as text.
#[utoipa::path(post, path = "/auth/loginPlainText", tag = "Authentication", params(LoginParams), request_body = LoginRequest,
    responses((status = 200, description = "The key as text/plain", content_type = "text/plain"), (status = 401, description = "Wrong user name or password"),
        (status = 429, description = "Too many failed logins for this user name from this address, or from this address")))]
pub async fn login_plain_text(
    State(state): State<AppState>,
    peer: PeerAddr,
    Params(params): Params<LoginParams>,
    JsonBody(body): JsonBody<LoginRequest>,
) -> ApiResult<Response> {
    let key = key_for(&state, peer, &params, body).await?;
    Ok(key.into_response())
}

/// Logs out: the key fails afterwards. Any body (none, text, `{}`) is accepted. Needs a
/// valid key, and no capability.
#[utoipa::path(post, path = "/auth/logout", tag = "Authentication", security(("api_key" = [])),
    responses((status = 200, description = "`{\"result\": \"\"}`"), (status = 401, description = "Missing or invalid key")))]
pub async fn logout(
    State(state): State<AppState>,
    Authenticated(_caller): Authenticated,
    req: Request,
) -> ApiResult<Response> {
    let (parts, _body) = req.into_parts();
    let key = api_key(&parts).unwrap_or_default();
    state.catalog.logout(key).await?;
    Ok(ok(""))
}
