//! The API explorer is served from the binary: its page with the login form and the
//! Swagger UI assets it loads, with no network.

#![allow(clippy::unwrap_used)]
use std::sync::Arc;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use lore_backend_memory::MemoryStore;
use lore_server::Settings;
use tower::ServiceExt;

async fn get(path: &str) -> (StatusCode, String, Vec<u8>) {
    let settings = Settings::default();
    let catalog = lore_server::catalog(Arc::new(MemoryStore::new()), &settings).unwrap();
    let app = lore_server::app(catalog.catalog(), &settings).expect("a valid configuration");
    let response = app
        .oneshot(Request::get(path).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let content_type = response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().unwrap_or_default().to_owned())
        .unwrap_or_default();
    let body = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, content_type, body.to_vec())
}

#[tokio::test]
async fn explorer_page_has_a_login_form_that_sets_the_key_header() {
    let (status, content_type, body) = get("/explorer").await;
    assert_eq!(status, StatusCode::OK);
    assert!(content_type.starts_with("text/html"), "{content_type}");
    let page = String::from_utf8(body).unwrap();
    for needle in [
        r#"<form id="login">"#,
        r#"id="password""#,
        ">Login</button>",
        "/MM/rest/v1/auth/login",
        r#"req.headers["api-key"] = key"#,
        "/MM/rest/v1/openapi.json",
        "/swagger-ui/swagger-ui-bundle.js",
    ] {
        assert!(page.contains(needle), "the explorer page lacks {needle}");
    }
}

#[tokio::test]
async fn swagger_ui_assets_are_vendored() {
    for asset in [
        "/swagger-ui/swagger-ui-bundle.js",
        "/swagger-ui/swagger-ui.css",
    ] {
        let (status, _, body) = get(asset).await;
        assert_eq!(status, StatusCode::OK, "{asset}");
        assert!(body.len() > 10_000, "{asset} is served from the binary");
    }
    let (status, content_type, body) = get("/MM/rest/v1/openapi.json").await;
    assert_eq!(status, StatusCode::OK);
    assert!(content_type.starts_with("application/json"));
    let doc: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(doc["servers"][0]["url"], "/MM/rest/v1");
    assert!(doc["components"]["securitySchemes"]["api_key"].is_object());
}
