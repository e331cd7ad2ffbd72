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
    notice: Option<&'a str>,
    /// The OpenID Connect button, when single sign-on is configured.
    oidc: bool,
}

#[derive(Debug, Deserialize)]
pub struct NextParam {
    next: Option<String>,
    /// Set after logging out.
    out: Option<String>,
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
    login_page_with(state, headers, status, next, user, error, false)
}

fn login_page_with(
    state: &AppState,
    headers: &HeaderMap,
    status: StatusCode,
    next: &str,
    user: &str,
    error: Option<&str>,
    notice: bool,
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
            notice: notice.then_some("You are logged out."),
            oidc: state.oauth2.as_ref().is_some_and(|o| o.offers_sign_in()),
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
    login_page_with(
        &state,
        &headers,
        StatusCode::OK,
        next,
        "",
        None,
        params.out.is_some(),
    )
}

#[derive(Debug, Deserialize)]
pub struct LoginForm {
    user: String,
    password: String,
    /// Missing is refused like wrong (a 403 page, not the form extractor's 422).
    #[serde(default)]
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
    if session::read_cookie(&state.ui, &headers, LOGIN_CSRF_COOKIE) != Some(form.csrf.as_str()) {
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
        .identity()
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

#[derive(Template)]
#[template(path = "logout.html")]
struct LogoutPage {
    chrome: super::page::Chrome,
}

/// `GET /ui/logout`: a button that logs out (from pages without the menu).
pub async fn logout_form(session: Session) -> Response {
    page::html(&LogoutPage {
        chrome: super::page::Chrome::new(&session, ""),
    })
}

/// `POST /ui/logout`: ends the session (its key stops working for the API too).
pub async fn logout(
    State(state): State<AppState>,
    headers: HeaderMap,
    session: Session,
) -> Response {
    if let Err(e) = state.catalog.identity().logout(&session.key).await {
        return page::PageError(e).into_response();
    }
    let mut response = (StatusCode::SEE_OTHER, [(LOCATION, "/ui/login?out=1")]).into_response();
    response.headers_mut().append(
        SET_COOKIE,
        session::set_cookie(&state.ui, &headers, SESSION_COOKIE, None),
    );
    response
}

/// The cookie that carries a sign-in in progress: state, nonce, PKCE verifier and where
/// to go afterwards.
const OIDC_COOKIE: &str = "lore_oidc";

/// Where the provider sends the browser back: `server.public_url`, else this request's
/// own host.
fn callback_url(state: &AppState, headers: &HeaderMap) -> String {
    let base = state.ui.public_url.clone().unwrap_or_else(|| {
        let host = headers
            .get(axum::http::header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("127.0.0.1");
        let scheme = if state.ui.is_https(headers) {
            "https"
        } else {
            "http"
        };
        format!("{scheme}://{host}")
    });
    format!("{base}/ui/oidc/callback")
}

/// `GET /ui/oidc/start?next=...`: off to the provider (authorization code with PKCE).
pub async fn oidc_start(
    State(state): State<AppState>,
    headers: HeaderMap,
    Query(params): Query<NextParam>,
) -> Response {
    let next = safe_next(params.next.as_deref()).to_owned();
    let Some(login) = state.oauth2.clone().filter(|o| o.offers_sign_in()) else {
        return page::not_found_page();
    };
    let sign_in_state = lore_core::auth::new_api_key();
    let nonce = lore_core::auth::new_api_key();
    let verifier = format!(
        "{}{}",
        lore_core::auth::new_api_key(),
        lore_core::auth::new_api_key()
    );
    let challenge = {
        use base64::Engine as _;
        use sha2::{Digest, Sha256};
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
    };
    let url = match login
        .authorization_url(
            &callback_url(&state, &headers),
            &sign_in_state,
            &nonce,
            &challenge,
        )
        .await
    {
        Ok(url) => url,
        Err(e) => {
            let e = e.for_client();
            return login_page(
                &state,
                &headers,
                StatusCode::BAD_GATEWAY,
                &next,
                "",
                Some(&e.message),
            );
        }
    };
    let carried = format!(
        "{sign_in_state}.{nonce}.{verifier}.{}",
        page::url_encode(&next)
    );
    let mut response = (StatusCode::SEE_OTHER, [(LOCATION, url)]).into_response();
    response.headers_mut().append(
        SET_COOKIE,
        session::set_cookie(&state.ui, &headers, OIDC_COOKIE, Some(&carried)),
    );
    response
}

/// What the login page says when the provider answered with an error, whatever it said.
const PROVIDER_REFUSED: &str =
    "The identity provider did not sign you in. Try again, or ask your administrator.";

#[derive(Debug, Deserialize)]
pub struct CallbackParams {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    error_description: Option<String>,
}

/// `GET /ui/oidc/callback`: the provider's answer; with the right state, the code is
/// exchanged, the ID token checked (signature, issuer, audience, time, nonce) and the
/// user logged in as `POST /auth/loginOAuth2` would (groups mapped, accounts created
/// when configured).
pub async fn oidc_callback(
    State(state): State<AppState>,
    ClientAddr(address): ClientAddr,
    headers: HeaderMap,
    Query(params): Query<CallbackParams>,
) -> Response {
    let carried = session::read_cookie(&state.ui, &headers, OIDC_COOKIE)
        .unwrap_or_default()
        .to_owned();
    let mut parts = carried.splitn(4, '.');
    let (Some(expected), Some(nonce), Some(verifier), Some(next)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return login_page(
            &state,
            &headers,
            StatusCode::BAD_REQUEST,
            "/ui/",
            "",
            Some("The sign-in expired or was not started here. Try again."),
        );
    };
    let next = serde_urlencoded::from_str::<Vec<(String, String)>>(&format!("n={next}"))
        .ok()
        .and_then(|v| v.into_iter().next())
        .map(|(_, v)| v)
        .unwrap_or_default();
    let next = safe_next(Some(&next)).to_owned();
    let refuse = |message: &str| {
        let mut response = login_page(
            &state,
            &headers,
            StatusCode::UNAUTHORIZED,
            &next,
            "",
            Some(message),
        );
        response.headers_mut().append(
            SET_COOKIE,
            session::set_cookie(&state.ui, &headers, OIDC_COOKIE, None),
        );
        response
    };
    // The provider's words stay in the log: a link to this address could carry any
    // text, and a Lore page shows only Lore's.
    if let Some(error) = &params.error {
        tracing::warn!(
            error = %error.chars().take(200).collect::<String>(),
            description = %params
                .error_description
                .as_deref()
                .unwrap_or_default()
                .chars()
                .take(500)
                .collect::<String>(),
            "the identity provider refused a sign-in"
        );
        return refuse(PROVIDER_REFUSED);
    }
    if params.state.as_deref() != Some(expected) {
        return refuse("The sign-in answer does not belong to this browser's sign-in. Try again.");
    }
    let (Some(code), Some(login)) = (params.code.as_deref(), state.oauth2.clone()) else {
        return refuse("The provider sent no code back.");
    };
    let redirect = callback_url(&state, &headers);
    let key = match login.id_token_for_code(code, &redirect, verifier).await {
        Ok(id_token) => {
            let checked = crate::oauth::IdToken {
                login: &login,
                nonce,
            };
            state
                .catalog
                .identity()
                .login_external(
                    &checked,
                    &id_token,
                    false,
                    address.map(|ip| ip.to_string()).as_deref(),
                )
                .await
        }
        Err(e) => Err(e),
    };
    match key {
        Ok(key) => {
            let mut response = signed_in(&state, &headers, &key, &next);
            response.headers_mut().append(
                SET_COOKIE,
                session::set_cookie(&state.ui, &headers, OIDC_COOKIE, None),
            );
            response
        }
        Err(e) => refuse(&e.for_client().message),
    }
}
