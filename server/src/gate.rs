//! The router denies by default: every route answers 401 AUTHENTICATION_ERROR before its
//! handler runs unless the request carries a valid API key, except the routes of one
//! explicit list, [`PUBLIC_ROUTES`].

use std::sync::Arc;

use axum::extract::{MatchedPath, Request, State};
use axum::http::{HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use lore_core::Catalog;

use crate::extract::{CallUser, KEY_HEADERS, api_key, authenticate, bearer, require_api_key};

/// Stands for the configured base path (default `/MM/rest/v1`) in [`PUBLIC_ROUTES`].
pub const BASE: &str = "{base}";

/// Every route a client may call without an API key, as `(method, route)`; [`BASE`]
/// stands for the base path, and a `GET` route answers `HEAD` too. Every other route
/// (API, removed or added later) needs a valid key before its handler runs.
pub const PUBLIC_ROUTES: &[(&str, &str)] = &[
    // The way in: a client has no key before it logs in.
    ("POST", "{base}/auth/login"),
    ("POST", "{base}/auth/loginPlainText"),
    ("POST", "{base}/auth/loginOAuth2"),
    // Login methods removed in 11.0: a client calling them has no key either; they
    // answer 410 naming the POST replacement.
    ("GET", "{base}/auth/login"),
    ("GET", "{base}/auth/loginPlainText"),
    ("GET", "{base}/auth/loginOAuth2"),
    // Health checks of load balancers and orchestrators.
    ("GET", "/healthz"),
    // The OpenAPI document, the API explorer (its login form gets the key) and its assets.
    ("GET", "{base}/openapi.json"),
    ("GET", "/"),
    ("GET", "/explorer"),
    ("GET", "/swagger-ui"),
    ("GET", "/swagger-ui/"),
    ("GET", "/swagger-ui/{*rest}"),
    // Prometheus metrics, only when `metrics.token` is set, and then only to requests
    // with that bearer token (the route checks it): a scraper has no API key.
    ("GET", "/metrics"),
];

/// Routes whose handler checks the key itself, inside its first store read (one
/// statement for the key's check and the object: `Objects::get_entity_by_key`). The gate
/// only requires that such a call carries a key; the handler takes it as a
/// [`KeyToCheck`](crate::extract::KeyToCheck), answers 401 for a key that fails, as the
/// gate does, and puts the caller's name in its response for the call log.
pub const SELF_CHECKED_ROUTES: &[(&str, &str)] = &[("GET", "{base}/entities/{objectId}")];

/// Routes that also take the key as `Authorization: Bearer <key>`, which is how
/// OpenLineage clients (openlineage-python's `api_key` auth) send it.
pub const BEARER_ROUTES: &[(&str, &str)] = &[
    ("POST", "/api/v1/lineage"),
    ("POST", "/api/v1/lineage/batch"),
    ("GET", "/api/v1/namespaces/{namespace}/jobs/{job}/runs"),
    ("GET", "/api/v1/jobs/runs/{runId}"),
];

/// Whether `(method, route)` is on [`PUBLIC_ROUTES`], `route` with [`BASE`] for the base
/// path as the list writes it.
pub fn is_public(method: &str, route: &str) -> bool {
    let method = if method.eq_ignore_ascii_case("HEAD") {
        "GET"
    } else {
        method
    };
    PUBLIC_ROUTES
        .iter()
        .any(|&(m, r)| m.eq_ignore_ascii_case(method) && r == route)
}

/// What the gate needs: the catalog that authenticates, and the public routes with the
/// base path filled in.
#[derive(Debug, Clone)]
pub struct Gate {
    catalog: Catalog,
    public: Arc<[(Method, String)]>,
    self_checked: Arc<[(Method, String)]>,
    bearer: Arc<[(Method, String)]>,
}

impl Gate {
    pub fn new(catalog: Catalog, base: &str) -> Self {
        let routes = |list: &[(&str, &str)]| {
            list.iter()
                .filter_map(|&(method, route)| {
                    let method = Method::from_bytes(method.as_bytes()).ok()?;
                    Some((method, route.replace(BASE, base)))
                })
                .collect()
        };
        Self {
            catalog,
            public: routes(PUBLIC_ROUTES),
            self_checked: routes(SELF_CHECKED_ROUTES),
            bearer: routes(BEARER_ROUTES),
        }
    }

    /// A few routes each: a scan compares them without building a key per request.
    fn lists(list: &[(Method, String)], method: &Method, route: &str) -> bool {
        let method = if method == Method::HEAD {
            &Method::GET
        } else {
            method
        };
        list.iter().any(|(m, r)| m == method && r == route)
    }
}

/// The layer on every route: a public route passes; any other authenticates the key
/// and leaves the [`Caller`](lore_core::auth::Caller) in the request extensions for the
/// [`Authenticated`](crate::extract::Authenticated) extractor, and the user's name in
/// the response extensions for the call log ([`CallUser`]), or answers 401.
pub async fn require_key(State(gate): State<Gate>, req: Request, next: Next) -> Response {
    let (public, self_checked, takes_bearer) = match req.extensions().get::<MatchedPath>() {
        Some(route) => (
            Gate::lists(&gate.public, req.method(), route.as_str()),
            Gate::lists(&gate.self_checked, req.method(), route.as_str()),
            Gate::lists(&gate.bearer, req.method(), route.as_str()),
        ),
        None => (false, false, false),
    };
    if public {
        return next.run(req).await;
    }
    let (mut parts, body) = req.into_parts();
    if takes_bearer && api_key(&parts).is_none() {
        let token = bearer(&parts.headers).and_then(|t| HeaderValue::from_str(t).ok());
        if let Some(token) = token {
            parts.headers.insert(KEY_HEADERS[0], token);
        }
    }
    if self_checked {
        return match require_api_key(&parts) {
            Ok(_) => next.run(Request::from_parts(parts, body)).await,
            Err(e) => e.into_response(),
        };
    }
    match authenticate(&gate.catalog, &parts).await {
        Ok(caller) => {
            let user = CallUser(caller.name().to_owned());
            parts.extensions.insert(caller);
            let mut response = next.run(Request::from_parts(parts, body)).await;
            response.extensions_mut().insert(user);
            response
        }
        Err(e) => e.into_response(),
    }
}
