//! The web UI's browser protections, over HTTP against the whole application: the
//! headers on every kind of UI answer (page, 404 and 405 pages, login, redirect, CSV,
//! htmx fragment, static file), `__Host-` cookies over HTTPS, no CSRF token from the
//! address, messages on a page that only Lore's code chose, and every kind of form the
//! router takes refusing a post from another site (`Origin` or `Referer`), without its
//! CSRF token and with a wrong one.

#![allow(clippy::unwrap_used)]
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::http::{HeaderMap, Method, Request, StatusCode};
use lore_backend_memory::MemoryStore;
use lore_server::Settings;
use tower::ServiceExt;

const PASSWORD: &str = "Administrator-password-1";
const POLICY: &str = "default-src 'self'; frame-ancestors 'none'; object-src 'none'; \
                      base-uri 'none'; form-action 'self'";

struct Answer {
    status: StatusCode,
    headers: HeaderMap,
    body: String,
}

impl Answer {
    fn header(&self, name: &str) -> &str {
        self.headers
            .get(name)
            .map(|v| v.to_str().unwrap())
            .unwrap_or_default()
    }

    /// The `Set-Cookie` values, whole.
    fn set_cookies(&self) -> Vec<String> {
        self.headers
            .get_all("set-cookie")
            .iter()
            .map(|v| v.to_str().unwrap().to_owned())
            .collect()
    }

    /// The value a `Set-Cookie` of this answer gives `name`.
    fn cookie(&self, name: &str) -> Option<String> {
        self.set_cookies().iter().find_map(|c| {
            let (pair, _) = c.split_once(';').unwrap_or((c, ""));
            let (n, v) = pair.split_once('=')?;
            (n == name && !v.is_empty()).then(|| v.to_owned())
        })
    }

    /// The browser protections, and `no-store` unless `cached`.
    fn assert_protected(&self, what: &str, cached: bool) {
        assert_eq!(self.header("content-security-policy"), POLICY, "{what}");
        assert_eq!(self.header("x-frame-options"), "DENY", "{what}");
        assert_eq!(self.header("x-content-type-options"), "nosniff", "{what}");
        assert_eq!(self.header("referrer-policy"), "same-origin", "{what}");
        if cached {
            assert!(
                self.header("cache-control").contains("max-age="),
                "{what}: {}",
                self.header("cache-control")
            );
        } else {
            assert_eq!(self.header("cache-control"), "no-store", "{what}");
        }
    }
}

struct Ui {
    app: Router,
    /// `Cookie` header of the browser.
    cookies: Vec<(String, String)>,
}

impl Ui {
    async fn start(configure: impl FnOnce(&mut Settings)) -> Self {
        let mut settings = Settings::default();
        configure(&mut settings);
        let server = lore_server::catalog(Arc::new(MemoryStore::new()), &settings).unwrap();
        let catalog = server.catalog();
        catalog.identity().bootstrap(Some(PASSWORD)).await.unwrap();
        let app = lore_server::app(catalog, &settings).unwrap();
        Self {
            app,
            cookies: Vec::new(),
        }
    }

    async fn call(&mut self, method: Method, path: &str, form: Option<&str>) -> Answer {
        self.call_with(method, path, form, &[]).await
    }

    /// A request with more headers (`Host`, `Origin`, `Referer`, `api-key`).
    async fn call_with(
        &mut self,
        method: Method,
        path: &str,
        form: Option<&str>,
        headers: &[(&str, &str)],
    ) -> Answer {
        let mut request = Request::builder().method(method).uri(path);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        if !self.cookies.is_empty() {
            let jar: Vec<String> = self
                .cookies
                .iter()
                .map(|(n, v)| format!("{n}={v}"))
                .collect();
            request = request.header("cookie", jar.join("; "));
        }
        let body = match form {
            Some(form) => {
                if !headers
                    .iter()
                    .any(|(n, _)| n.eq_ignore_ascii_case("content-type"))
                {
                    request = request.header("content-type", "application/x-www-form-urlencoded");
                }
                Body::from(form.to_owned())
            }
            None => Body::empty(),
        };
        let response = self
            .app
            .clone()
            .oneshot(request.body(body).unwrap())
            .await
            .unwrap();
        let status = response.status();
        let headers = response.headers().clone();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        let answer = Answer {
            status,
            headers,
            body: String::from_utf8_lossy(&bytes).into_owned(),
        };
        // Keep what the answer set, drop what it cleared.
        for set in answer.set_cookies() {
            let pair = set.split(';').next().unwrap();
            let (name, value) = pair.split_once('=').unwrap();
            self.cookies.retain(|(n, _)| n != name);
            if !value.is_empty() {
                self.cookies.push((name.to_owned(), value.to_owned()));
            }
        }
        answer
    }

    async fn get(&mut self, path: &str) -> Answer {
        self.call(Method::GET, path, None).await
    }

    async fn post(&mut self, path: &str, form: &str) -> Answer {
        self.call(Method::POST, path, Some(form)).await
    }

    /// Logs in through the form; answers the redirect.
    async fn login(&mut self) -> Answer {
        let form = self.get("/ui/login").await;
        form.assert_protected("the login form", false);
        let csrf = hidden(&form.body, "csrf");
        self.post(
            "/ui/login",
            &format!("user=Administrator&password={PASSWORD}&csrf={csrf}&next=%2Fui%2F"),
        )
        .await
    }

    fn cookie(&self, name: &str) -> Option<&str> {
        self.cookies
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The value of a hidden form field of a page.
fn hidden(page: &str, name: &str) -> String {
    let marker = format!("name=\"{name}\" value=\"");
    let at = page
        .find(&marker)
        .unwrap_or_else(|| panic!("no {name} in {page}"))
        + marker.len();
    page[at..].split('"').next().unwrap().to_owned()
}

#[tokio::test]
async fn every_kind_of_ui_answer_carries_the_headers() {
    let mut ui = Ui::start(|_| {}).await;
    let signed_in = ui.login().await;
    assert_eq!(signed_in.status, StatusCode::SEE_OTHER);
    assert!(ui.cookie("lore_session").is_some());
    signed_in.assert_protected("the login's redirect", false);

    let page = ui.get("/ui/").await;
    assert_eq!(page.status, StatusCode::OK);
    page.assert_protected("the search page", false);
    assert!(
        !page.body.contains(" style="),
        "no inline style on the page"
    );
    assert!(
        page.body.contains(r#""includeIndicatorStyles":false"#)
            && page.body.contains(r#""allowEval":false"#),
        "htmx is told to inject no style and evaluate nothing"
    );

    let missing = ui.get("/ui/no-such-screen").await;
    assert_eq!(missing.status, StatusCode::NOT_FOUND);
    assert!(missing.header("content-type").starts_with("text/html"));
    missing.assert_protected("the UI's 404 page", false);

    let wrong_method = ui.call(Method::PUT, "/ui/glossary", None).await;
    assert_eq!(wrong_method.status, StatusCode::METHOD_NOT_ALLOWED);
    wrong_method.assert_protected("the UI's 405 page", false);

    let csv = ui.get("/ui/search.csv?q=").await;
    assert_eq!(csv.status, StatusCode::OK);
    assert!(csv.header("content-type").starts_with("text/csv"));
    csv.assert_protected("search.csv", false);

    let fragment = ui
        .call(Method::GET, "/ui/search/validate?mql=SELECT+x", None)
        .await;
    fragment.assert_protected("an htmx fragment", false);

    let redirect = ui.get("/ui/admin").await;
    assert!(redirect.status.is_redirection());
    redirect.assert_protected("a redirect", false);

    let css = ui.get("/ui/static/lore.css").await;
    assert_eq!(css.status, StatusCode::OK);
    css.assert_protected("a static file", true);
    let no_file = ui.get("/ui/static/nothing.js").await;
    assert_eq!(no_file.status, StatusCode::NOT_FOUND);
    no_file.assert_protected("a static name that is no file", false);

    // Signed out: the session layer's redirect to the login form.
    let mut stranger = Ui::start(|_| {}).await;
    let to_login = stranger.get("/ui/glossary").await;
    assert_eq!(to_login.status, StatusCode::SEE_OTHER);
    assert!(to_login.header("location").starts_with("/ui/login"));
    to_login.assert_protected("the redirect to the login form", false);

    // The API is not a UI answer.
    let api = stranger.get("/healthz").await;
    assert!(api.header("content-security-policy").is_empty());
}

#[tokio::test]
async fn cookies_are_host_only_and_secure_over_https() {
    let mut ui = Ui::start(|s| s.server.public_url = Some("https://lore.example.com".into())).await;
    let signed_in = ui.login().await;
    assert_eq!(
        signed_in.status,
        StatusCode::SEE_OTHER,
        "{}",
        signed_in.body
    );
    let session = signed_in
        .set_cookies()
        .into_iter()
        .find(|c| c.starts_with("__Host-lore_session="))
        .expect("a __Host- session cookie");
    assert!(session.ends_with("; Secure"), "{session}");
    assert!(session.contains("; Path=/;") && !session.contains("Domain"));
    assert!(ui.cookie("lore_session").is_none());
    assert_eq!(ui.get("/ui/").await.status, StatusCode::OK);

    // A cookie without the prefix (which a sibling host could set) is no session.
    let key = ui.cookie("__Host-lore_session").unwrap().to_owned();
    ui.cookies = vec![("lore_session".into(), key)];
    assert_eq!(ui.get("/ui/").await.status, StatusCode::SEE_OTHER);

    // Over plain HTTP the names stay bare: a __Host- cookie must be Secure.
    let mut plain = Ui::start(|_| {}).await;
    let signed_in = plain.login().await;
    assert!(
        signed_in
            .set_cookies()
            .iter()
            .all(|c| !c.contains("__Host-") && !c.contains("Secure")),
        "{:?}",
        signed_in.set_cookies()
    );
}

#[tokio::test]
async fn no_csrf_token_is_taken_from_the_address() {
    let mut ui = Ui::start(|_| {}).await;
    ui.login().await;
    let page = ui.get("/ui/admin/groups").await;
    let csrf = hidden(&page.body, "csrf");
    let in_query = ui
        .post(&format!("/ui/admin/groups?csrf={csrf}"), "name=from-query")
        .await;
    assert_eq!(in_query.status, StatusCode::FORBIDDEN);
    in_query.assert_protected("the CSRF refusal", false);
    let in_form = ui
        .post("/ui/admin/groups", &format!("name=from-form&csrf={csrf}"))
        .await;
    assert_eq!(in_form.status, StatusCode::SEE_OTHER);
    let groups = ui.get("/ui/admin/groups").await.body;
    assert!(groups.contains("from-form") && !groups.contains("from-query"));
}

#[tokio::test]
async fn a_page_shows_only_messages_lore_chose() {
    let mut ui = Ui::start(|_| {}).await;
    ui.login().await;
    let csrf = hidden(&ui.get("/ui/admin/groups").await.body, "csrf");

    // The outcome travels in a sealed cookie, not the address.
    let created = ui
        .post("/ui/admin/groups", &format!("name=analysts&csrf={csrf}"))
        .await;
    assert_eq!(created.status, StatusCode::SEE_OTHER);
    assert_eq!(created.header("location"), "/ui/admin/groups");
    let flash = created.cookie("lore_flash").expect("a flash cookie");
    assert!(!flash.contains("analysts"), "sealed, not plain: {flash}");
    let set = created
        .set_cookies()
        .into_iter()
        .find(|c| c.starts_with("lore_flash="))
        .unwrap();
    assert!(
        set.contains("HttpOnly") && set.contains("Max-Age=60"),
        "{set}"
    );

    // Another page leaves it for its own.
    let elsewhere = ui.get("/ui/admin/users").await;
    assert!(!elsewhere.body.contains("flash-done"));
    assert!(ui.cookie("lore_flash").is_some());

    let shown = ui.get("/ui/admin/groups").await;
    assert!(
        shown
            .body
            .contains(r#"id="flash-done">group analysts created<"#),
        "{}",
        shown.body
    );
    assert!(
        ui.cookie("lore_flash").is_none(),
        "shown once, then cleared"
    );
    assert!(!ui.get("/ui/admin/groups").await.body.contains("flash-done"));

    // A failure says why, the same way.
    let again = ui
        .post("/ui/admin/groups", &format!("name=analysts&csrf={csrf}"))
        .await;
    assert_eq!(again.header("location"), "/ui/admin/groups");
    let failed = ui.get("/ui/admin/groups").await;
    assert!(
        failed.body.contains(r#"id="flash-error""#),
        "{}",
        failed.body
    );

    // An attacker's link puts nothing on the page.
    let planted = "Your account is locked. Call 555-0100";
    for path in [
        "/ui/admin/groups?done=Your+account+is+locked.+Call+555-0100",
        "/ui/admin/groups?error=Your+account+is+locked.+Call+555-0100",
        "/ui/worksheets?done=Your+account+is+locked.+Call+555-0100",
    ] {
        let page = ui.get(path).await;
        assert_eq!(page.status, StatusCode::OK, "{path}");
        assert!(!page.body.contains(planted), "{path}");
        assert!(!page.body.contains("flash-"), "{path}");
    }

    // Nor does a flash cookie this session did not seal.
    let created = ui
        .post("/ui/admin/groups", &format!("name=stewards&csrf={csrf}"))
        .await;
    let genuine = created.cookie("lore_flash").unwrap();
    let (payload, tag) = genuine.rsplit_once('.').unwrap();
    let mut parts: Vec<&str> = payload.split('.').collect();
    let text = base64_url(planted);
    parts[3] = &text;
    ui.cookies.retain(|(n, _)| n != "lore_flash");
    ui.cookies
        .push(("lore_flash".into(), format!("{}.{tag}", parts.join("."))));
    let page = ui.get("/ui/admin/groups").await;
    assert!(!page.body.contains(planted) && !page.body.contains("flash-"));
    assert!(ui.cookie("lore_flash").is_none(), "a bad flash is cleared");
    // ... or that another session sealed.
    let mut other = Ui::start(|_| {}).await;
    other.login().await;
    other.cookies.push(("lore_flash".into(), genuine.clone()));
    assert!(
        !other
            .get("/ui/admin/groups")
            .await
            .body
            .contains("stewards created")
    );
}

#[tokio::test]
async fn the_providers_error_text_is_not_shown() {
    let mut ui = Ui::start(|_| {}).await;
    ui.cookies
        .push(("lore_oidc".into(), "state.nonce.verifier.%2Fui%2F".into()));
    let answer = ui
        .get(
            "/ui/oidc/callback?error=access_denied\
             &error_description=Your+account+is+locked.+Call+555-0100",
        )
        .await;
    assert_eq!(answer.status, StatusCode::UNAUTHORIZED);
    answer.assert_protected("the sign-in's refusal", false);
    assert!(
        answer
            .body
            .contains("The identity provider did not sign you in.")
    );
    assert!(!answer.body.contains("555-0100") && !answer.body.contains("access_denied"));
}

fn base64_url(text: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(text)
}

/// Every route of the UI that takes a request changing something (a POST, or any other
/// method but GET), read from the router's source, so that a new form route without a
/// case below fails [`every_form_refuses_another_site_and_a_missing_or_wrong_token`].
fn form_routes() -> std::collections::BTreeSet<String> {
    let source = include_str!("../src/ui/mod.rs");
    let router = &source[source.find("pub fn router(").unwrap()..];
    let router = &router[..router.find("\n}\n").unwrap()];
    let mut routes = std::collections::BTreeSet::new();
    for call in router.split(".route(").skip(1) {
        let path = call.trim_start().strip_prefix('"').unwrap();
        let path = &path[..path.find('"').unwrap()];
        let handlers = &call[call.find('"').unwrap() + path.len() + 2..];
        for other in ["put(", "patch(", "delete(", "any(", "on(", "MethodFilter"] {
            assert!(
                !handlers.contains(other),
                "{path}: a routing call this test does not read ({other}); add it here"
            );
        }
        assert!(
            handlers.contains("get(") || handlers.contains("post("),
            "{path}: no get( or post( in {handlers:?}"
        );
        if handlers.contains("post(") {
            routes.insert(path.to_owned());
        }
    }
    assert!(routes.len() > 10, "the router was read: {routes:?}");
    routes
}

/// The page and the text that show a form's change (the page `""`: the form's answer).
type Shown = Option<(&'static str, &'static str)>;

/// Each kind of form the UI posts: its route, a form that the handler takes (without
/// the token) and, when the change shows somewhere, the page and the text that show it.
/// `{id}` is a folder's id. Logout comes last: it ends the session.
const FORMS: &[(&str, &str, Shown)] = &[
    ("/ui/objects/{id}/curation", "op=add&kind=endorsement", None),
    ("/ui/objects/{id}/workflow", "action=Publish", None),
    (
        "/ui/objects/{id}/labels",
        "label=Confidential&status=PROPOSED",
        None,
    ),
    (
        "/ui/objects/{id}/classes",
        "label=Email+Address&status=PROPOSED",
        None,
    ),
    (
        "/ui/objects/{id}/tags",
        "op=add&label=csrf-tag",
        Some(("/ui/objects/{id}", "csrf-tag")),
    ),
    ("/ui/objects/{id}/terms", "op=add&term=no-such-term", None),
    (
        "/ui/objects/{id}/edit",
        "description=csrf+description",
        Some(("/ui/objects/{id}", "csrf description")),
    ),
    (
        "/ui/preview",
        "description=**csrf+preview**",
        Some(("", "<strong>csrf preview</strong>")),
    ),
    (
        "/ui/objects/{id}/access",
        "grantee=csrf-user&kind=USER&role=Viewer",
        None,
    ),
    (
        "/ui/admin/users",
        "name=csrf-user&password=A-long-enough-password-1",
        Some(("/ui/admin/users", "csrf-user")),
    ),
    (
        "/ui/admin/users/enabled",
        "name=csrf-user&enabled=false",
        None,
    ),
    (
        "/ui/admin/users/identity",
        "name=csrf-user&op=link&subject=csrf-subject&issuer=https%3A%2F%2Fidp.example",
        Some(("/ui/admin/users", "csrf-subject")),
    ),
    (
        "/ui/admin/groups",
        "name=csrf-group",
        Some(("/ui/admin/groups", "csrf-group")),
    ),
    (
        "/ui/admin/roles",
        "grantee=csrf-group&kind=GROUP&role=Metadata+Viewer",
        None,
    ),
    ("/ui/admin/operations", "model=no-such-model", None),
    (
        "/ui/worksheets",
        "name=csrf-sheet&mql=SELECT+Name+WHERE+Name+%3D+%27x%27",
        Some(("/ui/worksheets", "csrf-sheet")),
    ),
    ("/ui/worksheets/delete", "id=1", None),
    ("/ui/logout", "", Some(("/ui/", "signed-in-user"))),
];

const HOST: &str = "lore.test";
const SAME_ORIGIN: &str = "http://lore.test";

/// The token a post carries.
enum Token {
    /// The session's (or the login form's) own.
    Right,
    Missing,
    Wrong(String),
}

/// A post that did not come from a page of this Lore: how, the header that tells
/// (besides `Host`), and its token.
struct Refusal {
    how: &'static str,
    header: Option<(&'static str, String)>,
    token: Token,
}

fn refused_posts(other_session: &str) -> Vec<Refusal> {
    let refusal = |how, header: Option<(&'static str, &str)>, token| Refusal {
        how,
        header: header.map(|(n, v)| (n, v.to_owned())),
        token,
    };
    let same = Some(("origin", SAME_ORIGIN));
    vec![
        refusal(
            "another site's Origin",
            Some(("origin", "https://evil.example")),
            Token::Right,
        ),
        refusal(
            "another port's Origin",
            Some(("origin", "http://lore.test:8080")),
            Token::Right,
        ),
        refusal(
            "an opaque Origin (a sandboxed frame)",
            Some(("origin", "null")),
            Token::Right,
        ),
        refusal(
            "another site's Referer, no Origin",
            Some(("referer", "https://evil.example/page?x=1")),
            Token::Right,
        ),
        refusal("no token", same, Token::Missing),
        refusal("no token, no Origin", None, Token::Missing),
        refusal("a wrong token", same, Token::Wrong("0".repeat(64))),
        refusal(
            "another session's token",
            Some(("referer", "http://lore.test/ui/")),
            Token::Wrong(other_session.to_owned()),
        ),
    ]
}

impl Refusal {
    /// The form with the token this post carries (`token`: the right one).
    fn form(&self, form: &str, token: &str) -> String {
        let token = match &self.token {
            Token::Right => Some(token),
            Token::Missing => None,
            Token::Wrong(t) => Some(t.as_str()),
        };
        match token {
            Some(token) if form.is_empty() => format!("csrf={token}"),
            Some(token) => format!("{form}&csrf={token}"),
            None => form.to_owned(),
        }
    }

    /// `Host`, and the header that tells.
    fn headers(&self) -> Vec<(&str, &str)> {
        let mut all = vec![("host", HOST)];
        all.extend(self.header.as_ref().map(|(n, v)| (*n, v.as_str())));
        all
    }
}

/// The form with the right token.
fn with_token(form: &str, token: &str) -> String {
    Refusal {
        how: "",
        header: None,
        token: Token::Right,
    }
    .form(form, token)
}

#[tokio::test]
async fn every_form_refuses_another_site_and_a_missing_or_wrong_token() {
    let cased: std::collections::BTreeSet<String> = FORMS
        .iter()
        .map(|(route, _, _)| (*route).to_owned())
        .chain(["/ui/login".to_owned()])
        .collect();
    assert_eq!(
        cased,
        form_routes(),
        "every form route of the UI's router has a case here (FORMS; /ui/login below)"
    );

    let mut ui = Ui::start(|_| {}).await;
    ui.login().await;
    let token = hidden(&ui.get("/ui/admin/groups").await.body, "csrf");
    let key = ui.cookie("lore_session").unwrap().to_owned();
    let folder = ui
        .call_with(
            Method::POST,
            "/MM/rest/v1/repository/createFolder",
            Some(r#"{"name": "csrf-folder"}"#),
            &[("content-type", "application/json"), ("api-key", &key)],
        )
        .await;
    assert_eq!(folder.status, StatusCode::OK, "{}", folder.body);
    let folder: serde_json::Value = serde_json::from_str(&folder.body).unwrap();
    let id = folder["result"]["id"]
        .as_str()
        .or(folder["id"].as_str())
        .unwrap()
        .to_owned();
    let mut other = Ui::start(|_| {}).await;
    other.login().await;
    let other_token = hidden(&other.get("/ui/admin/groups").await.body, "csrf");
    assert_ne!(other_token, token);

    for (route, form, shown) in FORMS {
        let path = route.replace("{id}", &id);
        let shown = shown.map(|(page, text)| (page.replace("{id}", &id), text));
        for refusal in refused_posts(&other_token) {
            let how = refusal.how;
            let body = refusal.form(form, &token);
            let answer = ui
                .call_with(Method::POST, &path, Some(&body), &refusal.headers())
                .await;
            assert_eq!(
                answer.status,
                StatusCode::FORBIDDEN,
                "{route} with {how}: {}",
                answer.body
            );
            assert!(
                answer.body.contains("Not allowed")
                    && (answer.body.contains("came from another site")
                        || answer.body.contains("did not come from Lore")),
                "{route} with {how}: the refusal says why: {}",
                answer.body
            );
            answer.assert_protected(&format!("{route} refused"), false);
            assert!(
                answer.set_cookies().is_empty(),
                "{route} with {how}: {:?}",
                answer.set_cookies()
            );
            if let Some((page, text)) = &shown {
                let seen = if page.is_empty() {
                    answer.body.clone()
                } else {
                    ui.get(page).await.body
                };
                if *route == "/ui/logout" {
                    assert!(seen.contains(text), "{route} with {how}: still signed in");
                } else {
                    assert!(!seen.contains(text), "{route} with {how} changed {page}");
                }
            }
        }
        // The same form from a page of this Lore, with the token, reaches its handler.
        let body = with_token(form, &token);
        let answer = ui
            .call_with(
                Method::POST,
                &path,
                Some(&body),
                &[("host", HOST), ("origin", SAME_ORIGIN)],
            )
            .await;
        assert!(
            answer.status.is_success() || answer.status.is_redirection(),
            "{route} from Lore's own page: {} {}",
            answer.status,
            answer.body
        );
        if let Some((page, text)) = &shown {
            let seen = if page.is_empty() {
                answer.body.clone()
            } else {
                ui.get(page).await.body
            };
            if *route == "/ui/logout" {
                assert!(!seen.contains(text), "{route}: signed out");
            } else {
                assert!(seen.contains(text), "{route} changed {page}: {seen}");
            }
        }
    }

    // The login form: its token is the one of the login cookie.
    let mut stranger = Ui::start(|_| {}).await;
    let form = format!("user=Administrator&password={PASSWORD}&next=%2Fui%2F");
    for refusal in refused_posts(&other_token) {
        let how = refusal.how;
        // A refused form gets a new one (a new token): each post has a fresh one.
        let login_token = hidden(&stranger.get("/ui/login").await.body, "csrf");
        let body = refusal.form(&form, &login_token);
        let answer = stranger
            .call_with(Method::POST, "/ui/login", Some(&body), &refusal.headers())
            .await;
        assert_eq!(
            answer.status,
            StatusCode::FORBIDDEN,
            "/ui/login with {how}: {}",
            answer.body
        );
        let why = if matches!(refusal.token, Token::Right) {
            "came from another site"
        } else {
            "The login form expired"
        };
        assert!(
            answer.body.contains(why),
            "/ui/login with {how}: {}",
            answer.body
        );
        answer.assert_protected("/ui/login refused", false);
        assert!(
            stranger.cookie("lore_session").is_none(),
            "/ui/login with {how} signed in"
        );
    }
    let login_token = hidden(&stranger.get("/ui/login").await.body, "csrf");
    let answer = stranger
        .call_with(
            Method::POST,
            "/ui/login",
            Some(&with_token(&form, &login_token)),
            &[("host", HOST), ("origin", SAME_ORIGIN)],
        )
        .await;
    assert_eq!(answer.status, StatusCode::SEE_OTHER, "{}", answer.body);
    assert!(stranger.cookie("lore_session").is_some());
}
