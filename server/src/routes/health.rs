use axum::extract::State;
use axum::response::Response;

use crate::AppState;
use crate::error::{ApiResult, ok};

/// `GET /healthz`: 200 when the store answers. Public: it needs no key.
pub async fn healthz(State(state): State<AppState>) -> ApiResult<Response> {
    let backend = state.catalog.ping().await?;
    Ok(ok(
        serde_json::json!({ "status": "ok", "backend": backend }),
    ))
}
