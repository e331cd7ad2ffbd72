//! The layer around every call: the envelope for errors no handler produced (unknown
//! routes, wrong methods, oversized bodies) and the one-line call log.

use std::time::Instant;

use axum::body::HttpBody;
use axum::extract::Request;
use axum::http::header::CONTENT_TYPE;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use lore_core::ErrorCode;

use crate::error::{ApiError, code_for_status};
use crate::extract::CallUser;

pub async fn envelope_and_log(mut req: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = req.method().clone();
    let path = req.uri().path().to_owned();
    let user = CallUser::default();
    req.extensions_mut().insert(user.clone());

    let mut response = next.run(req).await;
    let status = response.status();
    let is_json = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if (status.is_client_error() || status.is_server_error()) && !is_json {
        let code = code_for_status(status);
        let message = match code {
            ErrorCode::NotFound => format!("no endpoint {method} {path}; paths are case-sensitive"),
            ErrorCode::MethodNotAllowed => format!("{path} does not accept {method}"),
            ErrorCode::PayloadTooLarge => {
                "the request body is larger than the server accepts".to_owned()
            }
            ErrorCode::UnsupportedMediaType => {
                "the request body has a media type this endpoint does not accept".to_owned()
            }
            _ => format!("the request failed with status {status}"),
        };
        let mut enveloped = ApiError::new(code, message).into_response();
        *enveloped.status_mut() = status;
        response = enveloped;
    }

    let size = response.body().size_hint().exact().unwrap_or(0);
    let user = user
        .0
        .lock()
        .ok()
        .and_then(|u| u.clone())
        .unwrap_or_else(|| "-".to_owned());
    tracing::info!(
        target: "lore::call",
        "user={user} ms={} size={size} status={} {method} {path}",
        started.elapsed().as_millis(),
        status.as_u16(),
    );
    response
}
