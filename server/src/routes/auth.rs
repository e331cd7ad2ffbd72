//! Login and logout.

use axum::extract::{Request, State};
use axum::response::{IntoResponse, Response};
use lore_core::Error;
use serde::Deserialize;
use serde_json::json;
use utoipa::{IntoParams, ToSchema};

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, ClientAddr, JsonBody, Params, api_key, body_bytes};

/// Credentials of a password login.
#[derive(Debug, Deserialize, ToSchema)]
pub struct LoginRequest {
    /// The user name (case-insensitive).
    #[serde(alias = "username", alias = "userName")]
    pub user: Option<String>,
    pub password: Option<String>,
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct LoginParams {
    /// `true` ends the user's other sessions.
    pub force_login: Option<String>,
}

async fn key_for(
    state: &AppState,
    peer: ClientAddr,
    params: &LoginParams,
    body: LoginRequest,
) -> ApiResult<String> {
    let user = body.user.ok_or_else(|| Error::missing("user"))?;
    let password = body.password.ok_or_else(|| Error::missing("password"))?;
    let force = crate::extract::flag(params.force_login.as_deref(), "forceLogin")?;
    // Failed logins are throttled per client address (see `ClientAddr`).
    let address = peer.0.map(|ip| ip.to_string());
    Ok(state
        .catalog
        .identity()
        .login_from(&user, &password, force, address.as_deref())
        .await?)
}

/// Logs in; `result.token` holds the API key.
#[utoipa::path(post, path = "/auth/login", tag = "Authentication", params(LoginParams), request_body = LoginRequest,
    responses((status = 200, description = "`{\"result\": {\"token\": \"<key>\"}}`"), (status = 401, description = "Wrong user name or password"),
        (status = 429, description = "Too many failed logins for this user name from this address, or from this address")))]
pub async fn login(
    State(state): State<AppState>,
    peer: ClientAddr,
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
    peer: ClientAddr,
    Params(params): Params<LoginParams>,
    JsonBody(body): JsonBody<LoginRequest>,
) -> ApiResult<Response> {
    let key = key_for(&state, peer, &params, body).await?;
    Ok(key.into_response())
}

/// An OAuth 2.0 access token to log in with; it may come in the `Authorization: Bearer`
/// header instead (the body wins when both are sent).
#[derive(Debug, Default, Deserialize, ToSchema)]
pub struct OAuth2LoginRequest {
    /// The access token: a JWT, or an opaque token the provider introspects.
    #[serde(alias = "accessToken", alias = "access_token")]
    pub token: Option<String>,
}

/// The token of an OAuth 2.0 login: from the JSON body (`token`, `accessToken` or
/// `access_token`), else from `Authorization: Bearer`.
fn bearer_token(headers: &axum::http::HeaderMap, body: &[u8]) -> ApiResult<Option<String>> {
    let from_body = if body.iter().all(u8::is_ascii_whitespace) {
        None
    } else {
        serde_json::from_slice::<OAuth2LoginRequest>(body)
            .map_err(|e| Error::invalid(format!("the request body is not valid: {e}")))?
            .token
    };
    let from_header = crate::extract::bearer(headers).map(str::to_owned);
    Ok(from_body
        .filter(|t| !t.trim().is_empty())
        .or(from_header)
        .filter(|t| !t.trim().is_empty()))
}

/// Logs in with an OAuth 2.0 / OpenID Connect access token (JSON body `token`,
/// `accessToken` or `access_token`, or `Authorization: Bearer`); `result.token` holds the
/// API key. 400 OPERATION_NOT_SUPPORTED when `[auth.oauth2]` is not enabled.
#[utoipa::path(post, path = "/auth/loginOAuth2", tag = "Authentication", params(LoginParams), request_body = OAuth2LoginRequest,
    responses((status = 200, description = "`{\"result\": {\"token\": \"<key>\"}}`"),
        (status = 400, description = "No token, or OAuth 2.0 login is not configured"),
        (status = 401, description = "The token is refused: expired, not yet valid, wrong issuer or audience, bad signature, unknown key, inactive, no subject or user claim, no user linked to the identity, or a disabled user"),
        (status = 429, description = "Too many failed logins from this address")))]
pub async fn login_oauth2(
    State(state): State<AppState>,
    peer: ClientAddr,
    Params(params): Params<LoginParams>,
    req: Request,
) -> ApiResult<Response> {
    let oauth2 = state.oauth2.clone().ok_or_else(|| {
        Error::unsupported(
            "OAuth 2.0 login is not configured on this server (enable [auth.oauth2]); log in with POST /auth/login",
        )
    })?;
    let force = crate::extract::flag(params.force_login.as_deref(), "forceLogin")?;
    let headers = req.headers().clone();
    let body = body_bytes(req, &state).await?;
    let token = bearer_token(&headers, &body)?.ok_or_else(|| Error::missing("token"))?;
    let key = state
        .catalog
        .identity()
        .login_external(
            oauth2.as_ref(),
            &token,
            force,
            peer.0.map(|ip| ip.to_string()).as_deref(),
        )
        .await?;
    tracing::info!("logged in with OAuth 2.0");
    Ok(ok(json!({ "token": key })))
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
    state.catalog.identity().logout(key).await?;
    Ok(ok(""))
}
