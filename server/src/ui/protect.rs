//! What a browser is told on every answer under `/ui/`: load scripts and styles only
//! from Lore, never show these pages in another site's frame, do not guess media types,
//! send no address to other sites, and keep no copy of a page or a download. The static
//! files (`/ui/static/`) are the only answers a browser may cache.
//!
//! The layer wraps the whole application, so the UI's 404 and 405 pages, the session
//! layer's redirects to the login form and its refusals carry the headers too.

use axum::extract::Request;
use axum::http::header::CACHE_CONTROL;
use axum::http::{HeaderName, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::Response;

/// The UI's content security policy: everything from Lore itself (no inline script or
/// style, no `eval`), no plugins, no `<base>`, forms only to Lore, and no framing.
pub const POLICY: &str = "default-src 'self'; frame-ancestors 'none'; object-src 'none'; \
                          base-uri 'none'; form-action 'self'";

/// The headers every UI answer carries, as `(name, value)`; `Cache-Control: no-store`
/// besides, except on a static file.
pub const HEADERS: &[(&str, &str)] = &[
    ("content-security-policy", POLICY),
    ("x-frame-options", "DENY"),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "same-origin"),
];

/// Where the static files are served; the only UI answers a browser may keep.
const STATIC: &str = "/ui/static/";

/// The layer: adds the headers to every answer of a path under `/ui/`, whoever made it.
pub async fn browser_protections(req: Request, next: Next) -> Response {
    let path = req.uri().path().to_owned();
    let mut response = next.run(req).await;
    if super::is_ui_path(&path) {
        protect(&path, &mut response);
    }
    response
}

fn protect(path: &str, response: &mut Response) {
    let status = response.status();
    let headers = response.headers_mut();
    for (name, value) in HEADERS {
        headers.insert(
            HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
    // A static file keeps its own long-lived caching; anything else under the path
    // (a name that is not a file) is an ordinary page.
    if !(path.starts_with(STATIC) && status == StatusCode::OK) {
        headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::response::IntoResponse;

    #[test]
    fn the_listed_headers_are_the_ones_set() {
        let mut response = (StatusCode::OK, "x").into_response();
        protect("/ui/", &mut response);
        for (name, value) in HEADERS {
            assert_eq!(response.headers()[*name], *value, "{name}");
        }
        assert_eq!(response.headers()[CACHE_CONTROL], "no-store");
    }

    #[test]
    fn only_a_served_static_file_keeps_its_caching() {
        let cached = || {
            (
                StatusCode::OK,
                [(CACHE_CONTROL, "public, max-age=31536000, immutable")],
                "x",
            )
                .into_response()
        };
        let mut file = cached();
        protect("/ui/static/lore.css", &mut file);
        assert_eq!(
            file.headers()[CACHE_CONTROL],
            "public, max-age=31536000, immutable"
        );
        assert_eq!(file.headers()["x-frame-options"], "DENY");

        let mut missing = (StatusCode::NOT_FOUND, "x").into_response();
        protect("/ui/static/nothing.js", &mut missing);
        assert_eq!(missing.headers()[CACHE_CONTROL], "no-store");

        // A page that sets its own caching is overruled.
        let mut page = cached();
        protect("/ui/search.csv", &mut page);
        assert_eq!(page.headers()[CACHE_CONTROL], "no-store");
    }
}
