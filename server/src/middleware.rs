//! The layer around every call: the envelope for errors no handler produced (unknown
//! routes, wrong methods, oversized bodies), the one-line call log and the system log
//! entry of every call.

use std::net::SocketAddr;
use std::time::Instant;

use axum::body::HttpBody;
use axum::extract::{ConnectInfo, Request, State};
use axum::http::header::CONTENT_TYPE;
use axum::http::{HeaderMap, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use lore_core::ErrorCode;
use lore_core::model::SystemLogEntry;

use crate::error::{ApiError, code_for_status};
use crate::extract::CallUser;
use crate::metrics::{Metrics, Route};
use crate::system_log::Recorder;

/// What the call layer needs: where entries go, and whether to believe the
/// `X-Forwarded-For` header of a proxy in front of the server.
#[derive(Debug, Clone, Default)]
pub struct CallLog {
    /// `None`: calls are only written to the tracing log.
    pub recorder: Option<Recorder>,
    /// `server.trust_forwarded_for`.
    pub trust_forwarded_for: bool,
    /// Where calls are counted for `GET /metrics`.
    pub metrics: Option<Metrics>,
}

impl CallLog {
    /// The client's address: when trusted, the last `X-Forwarded-For` address (the one
    /// the proxy in front added; those before it are whatever the client sent), else the
    /// peer's; empty when neither is known.
    fn address(&self, headers: &HeaderMap, peer: Option<SocketAddr>) -> String {
        if self.trust_forwarded_for
            && let Some(last) = headers
                .get_all("x-forwarded-for")
                .iter()
                .filter_map(|v| v.to_str().ok())
                .flat_map(|v| v.split(','))
                .map(str::trim)
                .rfind(|v| !v.is_empty())
        {
            return last.to_owned();
        }
        peer.map(|p| p.ip().to_string()).unwrap_or_default()
    }
}

pub async fn envelope_and_log(
    State(log): State<CallLog>,
    mut req: Request,
    next: Next,
) -> Response {
    let started = Instant::now();
    let time = lore_core::model::now();
    let method = req.method().clone();
    // The path only: the query string may carry keys or passwords.
    let path = req.uri().path().to_owned();
    let peer = req
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .map(|info| info.0);
    let address = log.address(req.headers(), peer);
    req.extensions_mut()
        .insert(crate::extract::ClientAddr(address.parse().ok()));

    let mut response = next.run(req).await;
    let status = response.status();
    // A handler's own answer (JSON, or a page of the web UI) stays as it is.
    let answered = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json") || v.starts_with("text/html"));
    if (status.is_client_error() || status.is_server_error()) && !answered {
        response = enveloped(status, &method, &path, response);
    }

    let size = response.body().size_hint().exact().unwrap_or(0);
    let user = response
        .extensions()
        .get::<CallUser>()
        .map(|u| u.0.clone())
        .unwrap_or_default();
    let elapsed = started.elapsed();
    if let Some(metrics) = &log.metrics {
        let route = response.extensions().get::<Route>().map(|r| r.0.as_str());
        metrics.call(&method, route, status.as_u16(), elapsed);
    }
    let ms = u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX);
    tracing::info!(
        target: "lore::call",
        user = if user.is_empty() { "-" } else { user.as_str() },
        ms,
        size,
        status = status.as_u16(),
        "{method} {path}",
    );
    if let Some(recorder) = &log.recorder {
        recorder.record(SystemLogEntry {
            time,
            user,
            address,
            method: method.as_str().to_owned(),
            path,
            status: status.as_u16(),
            duration_ms: ms,
            size,
        });
    }
    response
}

/// The envelope in place of a layer's plain answer, keeping its status and extensions.
fn enveloped(
    status: axum::http::StatusCode,
    method: &Method,
    path: &str,
    response: Response,
) -> Response {
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
    let (parts, _) = response.into_parts();
    let mut replaced = ApiError::new(code, message).into_response();
    *replaced.status_mut() = status;
    replaced.extensions_mut().extend(parts.extensions);
    replaced
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forwarded_for_counts_only_when_trusted() {
        let mut headers = HeaderMap::new();
        headers.insert("x-forwarded-for", "203.0.113.7, 10.0.0.1".parse().unwrap());
        let peer = Some(SocketAddr::from(([10, 0, 0, 2], 5000)));
        let trusting = CallLog {
            recorder: None,
            trust_forwarded_for: true,
            metrics: None,
        };
        // The proxy appended the address it saw; the first one is the client's word.
        assert_eq!(trusting.address(&headers, peer), "10.0.0.1");
        assert_eq!(CallLog::default().address(&headers, peer), "10.0.0.2");
        assert_eq!(trusting.address(&HeaderMap::new(), peer), "10.0.0.2");
        assert_eq!(CallLog::default().address(&HeaderMap::new(), None), "");
    }
}
