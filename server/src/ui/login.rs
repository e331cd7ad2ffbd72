//! Signing in and out: the password form (through the same login as `POST /auth/login`,
//! so the login throttle applies) and logout.

use askama::Template;
use axum::Form;
use axum::extract::{Query, State};
use axum::http::header::{LOCATION, SET_COOKIE};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::page::{self, rendered};
use super::session::{self, LOGIN_CSRF_COOKIE, SESSION_COOKIE, Session};
use crate::AppState;
use crate::extract::ClientAddr;

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage<'a> {
    assets: &'a str,
    csrf: &'a str,
    next: &'a str,
    user: &'a str,
    error: Option<&'a str>,
    /// The OpenID Connect button, when single sign-on is configured.
    oidc: bool,
}

#[derive(Debug, Deserialize)]
pub struct NextParam {
    next: Option<String>,
    error: Option<String>,
}

/// Only a path of this site: never an address elsewhere (`//host`, `https://...`).
pub fn safe_next(next: Option<&str>) -> &str {
    match next {
        Some(n) if n.starts_with("/ui/") && !n.starts_with("//") && !n.contains('\\') => n,
        _ => "/ui/",
    }
}

fn login_page(
    state: &AppState,
    headers: &HeaderMap,
    status: StatusCode,
    next: &str,
    user: &str,
    error: Option<&str>,
) -> Response {
    // A fresh token per form, in a cookie and in the form (double submit): another site
    // cannot log a browser into an account of its choosing.
    let csrf = lore_core::auth::new_api_key();
    let mut response = rendered(
        status,
        &LoginPage {
            assets: super::assets::VERSION.as_str(),
            csrf: &csrf,
            next,
            user,
            error,
            oidc: state.ui.oidc.is_some(),
        },
    );
    response.headers_mut().append(
        SET_COOKIE,
        session::set_cookie(&state.ui, headers, LOGIN_CSRF_COOKIE, Some(&csrf)),
    );
    response
}

/// `GET /ui/login`.
pub async fn form(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(params): Query<NextParam>,
) -> Response {
    let next = safe_next(params.next.as_deref());
    login_page(
        &state,
        &headers,
        StatusCode::OK,
        next,
        "",
        params.error.as_deref(),
    )
}

#[derive(Debug, Deserialize)]
pub struct LoginForm {
    user: String,
    password: String,
    csrf: String,
    next: Option<String>,
}

/// `POST /ui/login`: on success the session cookie and a redirect to where the browser
/// was going; else the form again with the API's message.
pub async fn submit(
    State(state): State<AppState>,
    ClientAddr(address): ClientAddr,
    headers: HeaderMap,
    Form(form): Form<LoginForm>,
) -> Response {
    let next = safe_next(form.next.as_deref()).to_owned();
    if session::cookie(&headers, LOGIN_CSRF_COOKIE) != Some(form.csrf.as_str()) {
        return login_page(
            &state,
            &headers,
            StatusCode::FORBIDDEN,
            &next,
            &form.user,
            Some("The login form expired. Try again."),
        );
    }
    let address = address.map(|a| a.to_string());
    match state
        .catalog
        .login_from(form.user.trim(), &form.password, false, address.as_deref())
        .await
    {
        Ok(key) => signed_in(&state, &headers, &key, &next),
        Err(e) => {
            let e = e.for_client();
            let status =
                StatusCode::from_u16(e.code.http_status()).unwrap_or(StatusCode::UNAUTHORIZED);
            login_page(
                &state,
                &headers,
                status,
                &next,
                &form.user,
                Some(&e.message),
            )
        }
    }
}

/// The answer that starts a session: the cookie, and on to `next`.
pub fn signed_in(state: &AppState, headers: &HeaderMap, key: &str, next: &str) -> Response {
    let mut response = (StatusCode::SEE_OTHER, [(LOCATION, next.to_owned())]).into_response();
    let cookies = response.headers_mut();
    cookies.append(
        SET_COOKIE,
        session::set_cookie(&state.ui, headers, SESSION_COOKIE, Some(key)),
    );
    cookies.append(
        SET_COOKIE,
        session::set_cookie(&state.ui, headers, LOGIN_CSRF_COOKIE, None),
    );
    response
}

/// `POST /ui/logout`: ends the session (its key stops working for the API too).
pub async fn logout(
    State(state): State<AppState>,
    headers: HeaderMap,
    session: Session,
) -> Response {
    if let Err(e) = state.catalog.logout(&session.key).await {
        return page::PageError(e).into_response();
    }
    let mut response = (
        StatusCode::SEE_OTHER,
        [(LOCATION, "/ui/login?error=You%20are%20logged%20out.")],
    )
        .into_response();
    response.headers_mut().append(
        SET_COOKIE,
        session::set_cookie(&state.ui, &headers, SESSION_COOKIE, None),
    );
    response
}
