//! The one mapping from `lore_core::Error` to an HTTP response in the envelope.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use lore_core::wire::ResponseObject;
use lore_core::{Error, ErrorCode};

/// An error on its way to the client.
#[derive(Debug)]
pub struct ApiError(pub Error);

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        Self(e)
    }
}

impl ApiError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self(Error::new(code, message))
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.0.code.http_status())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        // An internal failure is logged whole and answered with a reference only.
        let error = self.0.for_client();
        let mut response = (status, Json(ResponseObject::failure(&error))).into_response();
        if let Some(seconds) = error.retry_after() {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, seconds.into());
        }
        response
    }
}

/// The result of a handler.
pub type ApiResult<T> = Result<T, ApiError>;

/// `{"result": value}` with 200.
pub fn ok<T: serde::Serialize>(value: T) -> Response {
    Json(ResponseObject::ok(value)).into_response()
}

/// The error code for a status a layer (not a handler) produced.
pub fn code_for_status(status: StatusCode) -> ErrorCode {
    match status {
        StatusCode::NOT_FOUND => ErrorCode::NotFound,
        StatusCode::METHOD_NOT_ALLOWED => ErrorCode::MethodNotAllowed,
        StatusCode::PAYLOAD_TOO_LARGE => ErrorCode::PayloadTooLarge,
        StatusCode::UNSUPPORTED_MEDIA_TYPE => ErrorCode::UnsupportedMediaType,
        StatusCode::UNAUTHORIZED => ErrorCode::AuthenticationError,
        s if s.is_client_error() => ErrorCode::InvalidParameter,
        _ => ErrorCode::ServerError,
    }
}
