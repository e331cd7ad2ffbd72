//! The browser's session: a cookie that holds the same API key a client gets from
//! `POST /auth/login`, so logout, the idle and absolute timeouts and disabled users apply
//! alike; and the CSRF check every state-changing request passes.
//!
//! Every UI route needs a session except those of [`PUBLIC_UI_ROUTES`]: the layer
//! [`require_session`] authenticates the cookie before the handler runs and leaves a
//! [`Session`] in the request; without one a page redirects to the login form.

use axum::body::Body;
use axum::extract::{FromRequestParts, MatchedPath, Request, State};
use axum::http::header::{CONTENT_TYPE, COOKIE, HOST, LOCATION, ORIGIN, SET_COOKIE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use lore_core::auth::Caller;
use sha2::{Digest, Sha256};

use super::UiConfig;
use crate::AppState;
use crate::extract::CallUser;

/// The cookie that carries the session's key.
pub const SESSION_COOKIE: &str = "lore_session";
/// The cookie of the login form's CSRF token (before there is a session).
pub const LOGIN_CSRF_COOKIE: &str = "lore_login_csrf";
/// The form field and the header (htmx sends it on every request) of the CSRF token.
pub const CSRF_FIELD: &str = "csrf";
pub const CSRF_HEADER: &str = "x-csrf-token";

/// The UI routes a browser may open without a session, as `(method, route)`.
pub const PUBLIC_UI_ROUTES: &[(&str, &str)] = &[
    ("GET", "/ui/login"),
    ("POST", "/ui/login"),
    ("GET", "/ui/static/{file}"),
    ("GET", "/ui/oidc/start"),
    ("GET", "/ui/oidc/callback"),
];

/// The signed-in browser of a request: who, and the token its forms must carry.
#[derive(Debug, Clone)]
pub struct Session {
    pub caller: Caller,
    pub csrf: String,
    /// The key in the cookie, for logout.
    pub(super) key: String,
}

impl<S: Send + Sync> FromRequestParts<S> for Session {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Session>()
            .cloned()
            .ok_or_else(|| StatusCode::UNAUTHORIZED.into_response())
    }
}

/// The CSRF token of a session: derived from its key, which only the browser holding
/// the cookie knows, so a page of another site cannot compute it.
pub fn csrf_token(key: &str) -> String {
    let digest = Sha256::digest(format!("lore-ui-csrf\0{key}").as_bytes());
    URL_SAFE_NO_PAD.encode(&digest[..18])
}

/// A value of a cookie of the request.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.trim())
        .filter(|v| !v.is_empty())
}

/// A `Set-Cookie` value: HttpOnly, SameSite=Lax, whole site, Secure when the browser
/// reached Lore over HTTPS; `None` as the value clears the cookie.
pub fn set_cookie(
    config: &UiConfig,
    headers: &HeaderMap,
    name: &str,
    value: Option<&str>,
) -> HeaderValue {
    let secure = if config.is_https(headers) {
        "; Secure"
    } else {
        ""
    };
    let text = match value {
        Some(value) => format!("{name}={value}; Path=/; HttpOnly; SameSite=Lax{secure}"),
        None => format!("{name}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0{secure}"),
    };
    HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static(""))
}

fn is_public(method: &Method, route: &str) -> bool {
    let method = if method == Method::HEAD {
        "GET"
    } else {
        method.as_str()
    };
    PUBLIC_UI_ROUTES
        .iter()
        .any(|&(m, r)| m == method && r == route)
}

/// Whether the request came from a page of this site: an `Origin` header, when the
/// browser sent one, must name the host the request went to, `server.public_url`, or
/// (behind a trusted proxy) the host in `X-Forwarded-Host`.
fn same_origin(config: &UiConfig, headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(ORIGIN).and_then(|v| v.to_str().ok()) else {
        return true;
    };
    let origin = origin.trim_end_matches('/');
    if config
        .public_url
        .as_deref()
        .is_some_and(|public| public.eq_ignore_ascii_case(origin))
    {
        return true;
    }
    let Some((_, host_of_origin)) = origin.split_once("://") else {
        return false;
    };
    let named = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|host| host.trim().eq_ignore_ascii_case(host_of_origin))
    };
    named(HOST.as_str()) || (config.trust_forwarded_for && named(X_FORWARDED_HOST))
}

const X_FORWARDED_HOST: &str = "x-forwarded-host";

/// The layer on every UI route: a public route passes; any other needs a valid session
/// cookie (else the login form, or 401 for htmx and non-GET requests), and a request
/// that changes anything needs the session's CSRF token, in the `X-CSRF-Token` header,
/// the `csrf` form field or (for uploads) the `csrf` query parameter.
pub async fn require_session(State(state): State<AppState>, req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
        .unwrap_or_default();
    let unsafe_method = !matches!(*req.method(), Method::GET | Method::HEAD);
    if unsafe_method && !same_origin(&state.ui, req.headers()) {
        return super::page::refused("This form came from another site, so Lore ignored it.");
    }
    if is_public(req.method(), &route) {
        return next.run(req).await;
    }
    let key = cookie(req.headers(), SESSION_COOKIE).map(str::to_owned);
    let caller = match &key {
        Some(key) => state.catalog.authenticate(key).await.ok(),
        None => None,
    };
    let (Some(key), Some(caller)) = (key, caller) else {
        return to_login(&state.ui, &req);
    };
    let session = Session {
        csrf: csrf_token(&key),
        caller,
        key,
    };
    let req = if unsafe_method {
        match checked_csrf(req, &session.csrf).await {
            Ok(req) => req,
            Err(response) => return response,
        }
    } else {
        req
    };
    let user = CallUser(session.caller.name().to_owned());
    let (mut parts, body) = req.into_parts();
    parts.extensions.insert(session);
    let mut response = next.run(Request::from_parts(parts, body)).await;
    response.extensions_mut().insert(user);
    response
}

/// Where a browser without a session goes: a page to the login form (coming back here
/// afterwards), an htmx request or a form post is told to reload through it.
fn to_login(config: &UiConfig, req: &Request) -> Response {
    let back = req
        .uri()
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/ui/");
    let login = format!("/ui/login?next={}", super::page::url_encode(back));
    let mut response = if req.method() == Method::GET && !req.headers().contains_key("hx-request") {
        (StatusCode::SEE_OTHER, [(LOCATION, login)]).into_response()
    } else {
        let mut r = super::page::refused_with(
            StatusCode::UNAUTHORIZED,
            "Your session has ended. Log in again.",
        );
        if let Ok(v) = HeaderValue::from_str(&login) {
            r.headers_mut().insert("hx-redirect", v);
        }
        r
    };
    // A stale cookie goes.
    if cookie(req.headers(), SESSION_COOKIE).is_some() {
        response.headers_mut().append(
            SET_COOKIE,
            set_cookie(config, req.headers(), SESSION_COOKIE, None),
        );
    }
    response
}

/// Largest form body the CSRF check reads (the body itself is limited by the server).
const MAX_FORM_BYTES: usize = 4 * 1024 * 1024;

/// The request again when it carries `token`, else a 403 page.
async fn checked_csrf(req: Request, token: &str) -> Result<Request, Response> {
    let refuse = || {
        super::page::refused_with(
            StatusCode::FORBIDDEN,
            "This form has expired or did not come from Lore. Reload the page and try again.",
        )
    };
    let header = req
        .headers()
        .get(CSRF_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    if header.as_deref() == Some(token) {
        return Ok(req);
    }
    let in_query = req
        .uri()
        .query()
        .is_some_and(|q| url_form_value(q.as_bytes(), CSRF_FIELD).as_deref() == Some(token));
    if in_query {
        return Ok(req);
    }
    let is_form = req
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/x-www-form-urlencoded"));
    if !is_form {
        return Err(refuse());
    }
    let (parts, body) = req.into_parts();
    let bytes = axum::body::to_bytes(body, MAX_FORM_BYTES)
        .await
        .map_err(|_| refuse())?;
    if url_form_value(&bytes, CSRF_FIELD).as_deref() != Some(token) {
        return Err(refuse());
    }
    Ok(Request::from_parts(parts, Body::from(bytes)))
}

/// The first value of `name` in an `application/x-www-form-urlencoded` text.
pub fn url_form_value(form: &[u8], name: &str) -> Option<String> {
    serde_urlencoded::from_bytes::<Vec<(String, String)>>(form)
        .ok()?
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cookies_are_read_by_name() {
        let mut headers = HeaderMap::new();
        headers.insert(COOKIE, "a=1; lore_session=abc; b=2".parse().unwrap());
        assert_eq!(cookie(&headers, SESSION_COOKIE), Some("abc"));
        assert_eq!(cookie(&headers, "c"), None);
    }

    #[test]
    fn csrf_tokens_differ_per_key() {
        assert_ne!(csrf_token("a"), csrf_token("b"));
        assert_eq!(csrf_token("a"), csrf_token("a"));
    }

    #[test]
    fn origin_must_name_the_host() {
        let direct = UiConfig::default();
        let mut headers = HeaderMap::new();
        headers.insert(HOST, "127.0.0.1:11480".parse().unwrap());
        assert!(same_origin(&direct, &headers));
        headers.insert(ORIGIN, "http://127.0.0.1:11480".parse().unwrap());
        assert!(same_origin(&direct, &headers));
        headers.insert(ORIGIN, "https://evil.example".parse().unwrap());
        assert!(!same_origin(&direct, &headers));

        // Behind a proxy that sets its own Host.
        let mut proxied = HeaderMap::new();
        proxied.insert(HOST, "10.0.0.5:11480".parse().unwrap());
        proxied.insert(ORIGIN, "https://lore.example.com".parse().unwrap());
        proxied.insert(X_FORWARDED_HOST, "lore.example.com".parse().unwrap());
        assert!(
            !same_origin(&direct, &proxied),
            "an untrusted forwarded host"
        );
        let trusting = UiConfig {
            trust_forwarded_for: true,
            ..UiConfig::default()
        };
        assert!(same_origin(&trusting, &proxied));
        let public = UiConfig {
            public_url: Some("https://lore.example.com".into()),
            ..UiConfig::default()
        };
        proxied.remove(X_FORWARDED_HOST);
        assert!(same_origin(&public, &proxied));
    }
}
