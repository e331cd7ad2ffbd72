//! The web UI: server-rendered pages on the same [`Catalog`](lore_core::Catalog) as the
//! REST API, in the same binary, under `/ui/` (`/` leads there). Templates are checked at
//! compile time (askama); htmx (vendored, embedded) adds partial updates; every page that
//! only reads works without JavaScript, and every screen and tab has its own URL.
//!
//! The UI calls only the catalog's public methods, as the API's handlers do: search,
//! sight and curation have one implementation.

mod admin;
mod assets;
mod browse;
mod curation;
pub(crate) mod download;
mod history;
mod lineage;
pub mod lineage_graph;
mod login;
mod object;
mod page;
mod protect;
mod query;
mod search;
mod session;
mod worksheets;

use axum::Router;
use axum::http::HeaderMap;
use axum::response::Redirect;
use axum::routing::{get, post};

pub use protect::browser_protections;
pub use session::PUBLIC_UI_ROUTES;

use crate::AppState;

/// What the UI needs of the settings.
#[derive(Debug, Clone, Default)]
pub struct UiConfig {
    /// `server.trust_forwarded_for`: a proxy's `X-Forwarded-Proto` tells whether the
    /// browser used HTTPS.
    pub trust_forwarded_for: bool,
    /// `server.public_url` starts with `https://`: cookies are always Secure.
    pub always_https: bool,
    /// `server.public_url`, where the provider sends the browser back after sign-in.
    pub public_url: Option<String>,
}

impl UiConfig {
    pub fn from_settings(settings: &crate::Settings) -> Self {
        Self {
            trust_forwarded_for: settings.server.trust_forwarded_for,
            always_https: settings
                .server
                .public_url
                .as_deref()
                .is_some_and(|u| u.starts_with("https://")),
            public_url: settings
                .server
                .public_url
                .as_deref()
                .map(|u| u.trim_end_matches('/').to_owned())
                .filter(|u| !u.is_empty()),
        }
    }

    /// Whether the browser reached Lore over HTTPS (Lore itself serves plain HTTP; TLS
    /// ends at a proxy in front of it).
    pub fn is_https(&self, headers: &HeaderMap) -> bool {
        self.always_https
            || (self.trust_forwarded_for
                && headers
                    .get("x-forwarded-proto")
                    .and_then(|v| v.to_str().ok())
                    .is_some_and(|v| v.trim().eq_ignore_ascii_case("https")))
    }
}

/// Whether the UI is served where other machines reach it (`listen` is not a loopback
/// address) while `server.public_url` does not say browsers come over HTTPS: then
/// session cookies and passwords cross the network in clear unless a proxy in front
/// says otherwise, and `lore serve` warns at start.
pub fn exposed_without_https(listen: std::net::SocketAddr, public_url: Option<&str>) -> bool {
    let https = public_url.is_some_and(|u| {
        u.trim()
            .get(..8)
            .is_some_and(|scheme| scheme.eq_ignore_ascii_case("https://"))
    });
    !listen.ip().is_loopback() && !https
}

/// The UI's routes, each behind the session layer. An unknown path under `/ui/` gets
/// the UI's 404 page ([`is_ui_path`]).
pub fn router(state: AppState) -> Router<AppState> {
    Router::new()
        .route("/ui/", get(search::page))
        .route("/ui/search.csv", get(search::csv))
        .route("/ui/search/validate", get(search::validate))
        .route("/ui/login", get(login::form).post(login::submit))
        .route("/ui/logout", get(login::logout_form).post(login::logout))
        .route("/ui/oidc/start", get(login::oidc_start))
        .route("/ui/oidc/callback", get(login::oidc_callback))
        .route("/ui/browse", get(browse::root))
        .route("/ui/browse/{id}", get(browse::node))
        .route("/ui/objects/{id}", get(object::overview))
        .route("/ui/objects/{id}/{tab}", get(object::tab))
        .route("/ui/objects/{id}/lineage.csv", get(lineage::csv))
        .route("/ui/objects/{id}/summary", get(object::summary))
        .route("/ui/objects/{id}/curation", post(curation::curate))
        .route("/ui/objects/{id}/workflow", post(curation::workflow))
        .route("/ui/objects/{id}/labels", post(curation::label))
        .route("/ui/objects/{id}/classes", post(curation::data_class))
        .route("/ui/objects/{id}/tags", post(curation::tag))
        .route("/ui/objects/{id}/terms", post(curation::term))
        .route(
            "/ui/objects/{id}/edit",
            get(curation::edit_form).post(curation::edit_save),
        )
        .route("/ui/preview", post(curation::preview))
        .route(
            "/ui/objects/{id}/access",
            get(object::access).post(admin::grant_object),
        )
        .route(
            "/ui/admin",
            get(|| async { Redirect::to("/ui/admin/users") }),
        )
        .route(
            "/ui/admin/users",
            get(admin::users).post(admin::create_user),
        )
        .route("/ui/admin/users/enabled", post(admin::enable_user))
        .route("/ui/admin/users/identity", post(admin::link_identity))
        .route(
            "/ui/admin/groups",
            get(admin::groups).post(admin::create_group),
        )
        .route(
            "/ui/admin/roles",
            get(admin::roles).post(admin::grant_global),
        )
        .route(
            "/ui/admin/operations",
            get(admin::operations).post(admin::start_import),
        )
        .route("/ui/admin/operations/{id}", get(admin::operation))
        .route("/ui/admin/log", get(admin::system_log))
        .route("/ui/admin/deliveries", get(admin::deliveries))
        .route("/ui/glossary", get(object::glossary_index))
        .route(
            "/ui/worksheets",
            get(worksheets::list).post(worksheets::save),
        )
        .route("/ui/worksheets/delete", post(worksheets::delete))
        .route("/ui/terms/suggest", get(curation::suggest_terms))
        .route("/ui/static/{file}", get(assets::file))
        .route_layer(axum::middleware::from_fn_with_state(
            state,
            session::require_session,
        ))
        .route("/ui", get(|| async { Redirect::to("/ui/") }))
}

/// Whether a path is the UI's (its errors are pages, not the API's envelope).
pub fn is_ui_path(path: &str) -> bool {
    path == "/ui" || path.starts_with("/ui/")
}

/// The UI's page for a path under `/ui/` that names nothing.
pub fn not_found() -> axum::response::Response {
    page::not_found_page()
}

/// The UI's page for a method a path under `/ui/` does not take.
pub fn method_not_allowed() -> axum::response::Response {
    page::message(
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        "Nothing here",
        "This address does not take that kind of request.",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_non_loopback_address_without_https_is_exposed() {
        let any = "0.0.0.0:11480".parse().unwrap();
        let lan = "10.1.2.3:11480".parse().unwrap();
        let local = "127.0.0.1:11480".parse().unwrap();
        let local6 = "[::1]:11480".parse().unwrap();
        assert!(exposed_without_https(any, None));
        assert!(exposed_without_https(lan, None));
        assert!(exposed_without_https(any, Some("http://lore.example.com")));
        assert!(exposed_without_https(any, Some("")));
        assert!(!exposed_without_https(
            any,
            Some("https://lore.example.com")
        ));
        assert!(!exposed_without_https(
            lan,
            Some("HTTPS://lore.example.com/")
        ));
        assert!(!exposed_without_https(local, None));
        assert!(!exposed_without_https(local6, Some("http://x")));
    }
}
