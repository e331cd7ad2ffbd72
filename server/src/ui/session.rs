//! The browser's session: a cookie that holds the same API key a client gets from
//! `POST /auth/login`, so logout, the idle and absolute timeouts and disabled users apply
//! alike; the CSRF check every state-changing request passes; and the message a form's
//! answer leaves for the next page ([`Flash`]).
//!
//! Over HTTPS every cookie's name starts with `__Host-` (the browser then keeps it only
//! when it is Secure, for this host and the whole site, so no sibling host can set it),
//! and is Secure; over plain HTTP the names are the bare ones.
//!
//! Every UI route needs a session except those of [`PUBLIC_UI_ROUTES`]: the layer
//! [`require_session`] authenticates the cookie before the handler runs and leaves a
//! [`Session`] in the request; without one a page redirects to the login form.

use axum::body::Body;
use axum::extract::{FromRequestParts, MatchedPath, Request, State};
use axum::http::header::{CONTENT_TYPE, COOKIE, HOST, LOCATION, ORIGIN, REFERER, SET_COOKIE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hmac::{Hmac, Mac};
use lore_core::auth::Caller;
use sha2::{Digest, Sha256};

use super::UiConfig;
use crate::AppState;
use crate::extract::CallUser;

/// The cookie that carries the session's key.
pub const SESSION_COOKIE: &str = "lore_session";
/// The cookie of the login form's CSRF token (before there is a session).
pub const LOGIN_CSRF_COOKIE: &str = "lore_login_csrf";
/// The cookie of a form's outcome, for the page its answer leads to ([`Flash`]).
pub const FLASH_COOKIE: &str = "lore_flash";
/// The prefix of every cookie's name over HTTPS.
pub const HOST_PREFIX: &str = "__Host-";
/// How long a flash waits for its page, in seconds.
const FLASH_SECONDS: i64 = 60;
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

/// The signed-in browser of a request: who, the token its forms must carry, and the
/// outcome of the form that led here.
#[derive(Debug, Clone)]
pub struct Session {
    pub caller: Caller,
    pub csrf: String,
    /// The key in the cookie, for logout.
    pub(super) key: String,
    /// The message left for this page by the answer to a form, checked.
    pub(super) flash: Option<Flash>,
}

impl Session {
    /// What the form that led here did, to show as a notice.
    pub fn done(&self) -> Option<String> {
        self.flash
            .as_ref()
            .filter(|f| !f.failed)
            .map(|f| f.text.clone())
    }

    /// Why the form that led here failed, to show as an error.
    pub fn failed(&self) -> Option<String> {
        self.flash
            .as_ref()
            .filter(|f| f.failed)
            .map(|f| f.text.clone())
    }
}

/// The outcome of a form, for the page its answer redirects to (`page::returned`): the
/// text is chosen by Lore's code when the form is handled, never read from an address,
/// so a link cannot put words on a Lore page.
///
/// It travels in a cookie that lives a minute, sealed by an HMAC keyed by the session's
/// key (which only this browser holds), and the session layer shows it only on the page
/// it names, once: a cookie another host set, an old one or another session's is
/// ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Flash {
    /// The path of the page it is for.
    pub to: String,
    /// An error rather than a notice.
    pub failed: bool,
    /// At most 300 characters.
    pub text: String,
}

type FlashMac = Hmac<Sha256>;

impl Flash {
    pub fn new(to: &str, failed: bool, text: &str) -> Self {
        Self {
            to: to.to_owned(),
            failed,
            text: text.chars().take(300).collect(),
        }
    }

    fn mac(key: &str, payload: &str) -> FlashMac {
        let mut mac = FlashMac::new_from_slice(key.as_bytes())
            .unwrap_or_else(|_| unreachable!("HMAC takes a key of any length"));
        mac.update(b"lore-ui-flash\0");
        mac.update(payload.as_bytes());
        mac
    }

    /// The cookie's value: `expires.kind.to.text.mac`, each part URL-safe.
    fn seal(&self, key: &str, now: i64) -> String {
        let payload = format!(
            "{}.{}.{}.{}",
            now + FLASH_SECONDS,
            if self.failed { "e" } else { "d" },
            URL_SAFE_NO_PAD.encode(&self.to),
            URL_SAFE_NO_PAD.encode(&self.text),
        );
        let tag = URL_SAFE_NO_PAD.encode(Self::mac(key, &payload).finalize().into_bytes());
        format!("{payload}.{tag}")
    }

    /// The flash a cookie's value carries, when this session sealed it and it has not
    /// expired.
    fn open(value: &str, key: &str, now: i64) -> Option<Self> {
        let (payload, tag) = value.rsplit_once('.')?;
        let tag = URL_SAFE_NO_PAD.decode(tag).ok()?;
        Self::mac(key, payload).verify_slice(&tag).ok()?;
        let mut parts = payload.split('.');
        let expires: i64 = parts.next()?.parse().ok()?;
        let failed = match parts.next()? {
            "e" => true,
            "d" => false,
            _ => return None,
        };
        let to = String::from_utf8(URL_SAFE_NO_PAD.decode(parts.next()?).ok()?).ok()?;
        let text = String::from_utf8(URL_SAFE_NO_PAD.decode(parts.next()?).ok()?).ok()?;
        if parts.next().is_some() || now > expires || expires > now + FLASH_SECONDS {
            return None;
        }
        Some(Self::new(&to, failed, &text))
    }
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

/// A cookie's name for this request: `__Host-name` when the browser reached Lore over
/// HTTPS, else `name`.
pub fn cookie_name(config: &UiConfig, headers: &HeaderMap, name: &str) -> String {
    if config.is_https(headers) {
        format!("{HOST_PREFIX}{name}")
    } else {
        name.to_owned()
    }
}

/// The value of one of Lore's cookies, under its name for this request
/// ([`cookie_name`]): over HTTPS a cookie without the prefix, which any host of the
/// domain could have set, is not read.
pub fn read_cookie<'a>(config: &UiConfig, headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    cookie(headers, &cookie_name(config, headers, name))
}

/// A value of a cookie of the request, by its exact name.
fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
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

/// A `Set-Cookie` value: HttpOnly, SameSite=Lax, whole site, and when the browser
/// reached Lore over HTTPS Secure and named `__Host-...`; `None` as the value clears
/// the cookie.
pub fn set_cookie(
    config: &UiConfig,
    headers: &HeaderMap,
    name: &str,
    value: Option<&str>,
) -> HeaderValue {
    cookie_for(config, headers, name, value, None)
}

fn cookie_for(
    config: &UiConfig,
    headers: &HeaderMap,
    name: &str,
    value: Option<&str>,
    max_age: Option<i64>,
) -> HeaderValue {
    let name = cookie_name(config, headers, name);
    let secure = if config.is_https(headers) {
        "; Secure"
    } else {
        ""
    };
    let text = match (value, max_age) {
        (Some(value), None) => format!("{name}={value}; Path=/; HttpOnly; SameSite=Lax{secure}"),
        (Some(value), Some(age)) => {
            format!("{name}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={age}{secure}")
        }
        (None, _) => format!("{name}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0{secure}"),
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
/// (behind a trusted proxy) the host in `X-Forwarded-Host`. Without `Origin`, the
/// origin of a `Referer` must (the UI's pages send one to their own site only).
fn same_origin(config: &UiConfig, headers: &HeaderMap) -> bool {
    let origin = match (headers.get(ORIGIN), headers.get(REFERER)) {
        (Some(origin), _) => origin.to_str().ok().map(str::to_owned),
        (None, Some(referer)) => referer.to_str().ok().and_then(origin_of),
        (None, None) => return true,
    };
    let Some(origin) = origin else {
        return false;
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

/// `scheme://host[:port]` of an absolute URL (a `Referer`).
fn origin_of(url: &str) -> Option<String> {
    let (scheme, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    (!scheme.is_empty() && !authority.is_empty()).then(|| format!("{scheme}://{authority}"))
}

/// The layer on every UI route: a public route passes; any other needs a valid session
/// cookie (else the login form, or 401 for htmx and non-GET requests), and a request
/// that changes anything needs the session's CSRF token, in the `X-CSRF-Token` header
/// or the `csrf` form field (never the address: it would reach logs and `Referer`s).
///
/// A page loaded by the browser (GET, not htmx) gets the [`Flash`] left for its path,
/// which is then cleared; an answer that leaves one (`page::returned`) has it sealed
/// into the cookie here.
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
    let key = read_cookie(&state.ui, req.headers(), SESSION_COOKIE).map(str::to_owned);
    let caller = match &key {
        Some(key) => state.catalog.identity().authenticate(key).await.ok(),
        None => None,
    };
    let (Some(key), Some(caller)) = (key, caller) else {
        return to_login(&state.ui, &req);
    };
    let now = chrono::Utc::now().timestamp();
    let page_load = req.method() == Method::GET && !req.headers().contains_key("hx-request");
    let flash_cookie = read_cookie(&state.ui, req.headers(), FLASH_COOKIE);
    let flash = flash_cookie
        .filter(|_| page_load)
        .and_then(|value| Flash::open(value, &key, now))
        .filter(|f| same_path(&f.to, req.uri().path()));
    // One that is not this session's, or expired, goes at the next page; one for
    // another page waits for it.
    let clear_flash = page_load
        && flash_cookie
            .is_some_and(|value| flash.is_some() || Flash::open(value, &key, now).is_none());
    let session = Session {
        csrf: csrf_token(&key),
        caller,
        key: key.clone(),
        flash,
    };
    let request_headers = req.headers().clone();
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
    if let Some(flash) = response.extensions_mut().remove::<Flash>() {
        response.headers_mut().append(
            SET_COOKIE,
            cookie_for(
                &state.ui,
                &request_headers,
                FLASH_COOKIE,
                Some(&flash.seal(&key, now)),
                Some(FLASH_SECONDS),
            ),
        );
    } else if clear_flash {
        response.headers_mut().append(
            SET_COOKIE,
            set_cookie(&state.ui, &request_headers, FLASH_COOKIE, None),
        );
    }
    response
}

/// Whether two paths name the same page, whatever their percent-encoding.
fn same_path(a: &str, b: &str) -> bool {
    let decoded = |p: &str| url_form_value(format!("p={}", p.replace('+', "%2B")).as_bytes(), "p");
    a == b || decoded(a).is_some_and(|a| Some(a) == decoded(b))
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
    if read_cookie(config, req.headers(), SESSION_COOKIE).is_some() {
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

    fn https() -> (UiConfig, HeaderMap) {
        let config = UiConfig {
            always_https: true,
            ..UiConfig::default()
        };
        (config, HeaderMap::new())
    }

    #[test]
    fn cookies_over_https_are_host_only_and_secure() {
        let (config, headers) = https();
        let set = set_cookie(&config, &headers, SESSION_COOKIE, Some("k"));
        assert_eq!(
            set,
            "__Host-lore_session=k; Path=/; HttpOnly; SameSite=Lax; Secure"
        );
        let cleared = set_cookie(&config, &headers, FLASH_COOKIE, None);
        assert_eq!(
            cleared,
            "__Host-lore_flash=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Secure"
        );
        // Plain HTTP keeps the bare name (a __Host- cookie must be Secure).
        let plain = set_cookie(&UiConfig::default(), &headers, SESSION_COOKIE, Some("k"));
        assert_eq!(plain, "lore_session=k; Path=/; HttpOnly; SameSite=Lax");
        // Behind a trusted proxy the browser's scheme decides.
        let proxied = UiConfig {
            trust_forwarded_for: true,
            ..UiConfig::default()
        };
        let mut forwarded = HeaderMap::new();
        forwarded.insert("x-forwarded-proto", "https".parse().unwrap());
        assert_eq!(
            cookie_name(&proxied, &forwarded, SESSION_COOKIE),
            "__Host-lore_session"
        );
        assert_eq!(
            cookie_name(&UiConfig::default(), &forwarded, SESSION_COOKIE),
            "lore_session"
        );
    }

    #[test]
    fn over_https_only_the_prefixed_cookie_is_read() {
        let (config, _) = https();
        let mut headers = HeaderMap::new();
        // A sibling host can set `lore_session` for the whole domain; not `__Host-`.
        headers.insert(COOKIE, "lore_session=planted".parse().unwrap());
        assert_eq!(read_cookie(&config, &headers, SESSION_COOKIE), None);
        headers.insert(
            COOKIE,
            "lore_session=planted; __Host-lore_session=real"
                .parse()
                .unwrap(),
        );
        assert_eq!(read_cookie(&config, &headers, SESSION_COOKIE), Some("real"));
        assert_eq!(
            read_cookie(&UiConfig::default(), &headers, SESSION_COOKIE),
            Some("planted")
        );
    }

    #[test]
    fn a_flash_opens_only_with_its_key_unchanged_and_in_time() {
        let flash = Flash::new("/ui/admin/users", true, "user x: name taken");
        let sealed = flash.seal("key-1", 1_000);
        assert_eq!(Flash::open(&sealed, "key-1", 1_000), Some(flash.clone()));
        assert_eq!(
            Flash::open(&sealed, "key-1", 1_000 + FLASH_SECONDS),
            Some(flash.clone())
        );
        assert_eq!(Flash::open(&sealed, "key-1", 1_001 + FLASH_SECONDS), None);
        assert_eq!(
            Flash::open(&sealed, "key-2", 1_000),
            None,
            "another session"
        );
        // Any change to what it says breaks the seal.
        let (payload, tag) = sealed.rsplit_once('.').unwrap();
        let mut parts: Vec<String> = payload.split('.').map(str::to_owned).collect();
        parts[3] = URL_SAFE_NO_PAD.encode("Call 555-0100 to restore your account");
        let forged = format!("{}.{tag}", parts.join("."));
        assert_eq!(Flash::open(&forged, "key-1", 1_000), None);
        parts[1] = "d".into();
        assert_eq!(
            Flash::open(&format!("{}.{tag}", parts.join(".")), "key-1", 1_000),
            None
        );
        assert_eq!(Flash::open("", "key-1", 1_000), None);
        assert_eq!(Flash::open("a.b.c.d.e.f", "key-1", 1_000), None);
        // Long texts are cut, so the cookie stays small.
        assert_eq!(Flash::new("/ui/", false, &"x".repeat(1000)).text.len(), 300);
    }

    #[test]
    fn flash_paths_compare_decoded() {
        assert!(same_path("/ui/objects/a%2Fb", "/ui/objects/a%2fb"));
        assert!(same_path("/ui/objects/1", "/ui/objects/1"));
        assert!(same_path("/ui/objects/a%2Bb", "/ui/objects/a+b"));
        assert!(!same_path("/ui/objects/1", "/ui/objects/1/access"));
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

    #[test]
    fn without_origin_the_referer_must_name_the_host() {
        let direct = UiConfig::default();
        let mut headers = HeaderMap::new();
        headers.insert(HOST, "127.0.0.1:11480".parse().unwrap());
        headers.insert(REFERER, "http://127.0.0.1:11480/ui/admin".parse().unwrap());
        assert!(same_origin(&direct, &headers));
        for other in [
            "https://evil.example/ui/admin",
            "http://127.0.0.1:11481/ui/",
            "http://127.0.0.1:11480.evil.example/",
            "not a url",
        ] {
            headers.insert(REFERER, other.parse().unwrap());
            assert!(!same_origin(&direct, &headers), "{other}");
        }
        // An Origin, when there is one, decides.
        headers.insert(ORIGIN, "http://127.0.0.1:11480".parse().unwrap());
        assert!(same_origin(&direct, &headers));
        assert_eq!(
            origin_of("https://a.example:8443/x?y#z").as_deref(),
            Some("https://a.example:8443")
        );
    }
}
