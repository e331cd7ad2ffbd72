//! OpenLineage intake where its clients post (`POST /api/v1/lineage`, the path Marquez
//! serves), a batch of events with an answer for each, and the runs the events describe
//! (`docs/openlineage.md`). Outside the API's base path and its OpenAPI document: these
//! are OpenLineage's paths, not the REST API's. The key comes in the `api-key` header
//! or as `Authorization: Bearer <key>` (the gate's `BEARER_ROUTES`).

use axum::extract::{Path, Request, State};
use axum::http::StatusCode;
use axum::http::header::CONTENT_ENCODING;
use axum::response::{IntoResponse, Response};
use lore_core::wire::ResponseObject;
use lore_core::{Error, openlineage};
use serde::Deserialize;
use serde_json::Value;

use crate::AppState;
use crate::error::{ApiError, ApiResult, ok};
use crate::extract::{Authenticated, Params, body_bytes};

/// The body's JSON, inflated first when it came with `Content-Encoding: gzip`.
async fn body_json(state: &AppState, req: Request) -> ApiResult<Value> {
    let encoding = req
        .headers()
        .get(CONTENT_ENCODING)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_ascii_lowercase());
    let gzip = match encoding.as_deref() {
        None | Some("" | "identity") => false,
        Some("gzip" | "x-gzip") => true,
        Some(other) => {
            return Err(ApiError::new(
                lore_core::ErrorCode::UnsupportedMediaType,
                format!("Content-Encoding `{other}` is not read here: send gzip or nothing"),
            ));
        }
    };
    let bytes = body_bytes(req, state).await?;
    Ok(openlineage::body_json(&bytes, gzip, state.max_body_bytes)?)
}

/// `POST /api/v1/lineage`: one RunEvent, DatasetEvent or JobEvent. 201 with `{status:
/// accepted, digest}` when kept, 200 with `{status: repeated, digest}` when it was
/// kept before (nothing changes); 400 naming what is wrong with an event that is not
/// one or passes a bound of `[openlineage]` (nothing written); 403 without `EmitLineage`,
/// or without Edit Metadata on a model outside `/OpenLineage` it would set lineage into.
pub async fn post_event(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    req: Request,
) -> ApiResult<Response> {
    let event = body_json(&state, req).await?;
    let answer = state
        .catalog
        .lineage()
        .accept_lineage_event(&caller, &event)
        .await?;
    let status = if answer.status == "accepted" {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    Ok((status, axum::Json(ResponseObject::ok(answer))).into_response())
}

/// `POST /api/v1/lineage/batch`: a JSON array of events (at most 1,000). 200 with one
/// answer per event, in order (`accepted`, `repeated`, or `refused` with `errorCode`
/// and `message`); the events kept are written together.
pub async fn post_batch(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    req: Request,
) -> ApiResult<Response> {
    let body = body_json(&state, req).await?;
    let Value::Array(events) = body else {
        return Err(Error::invalid("a batch is a JSON array of OpenLineage events").into());
    };
    Ok(ok(state
        .catalog
        .lineage()
        .accept_lineage_batch(&caller, &events)
        .await?))
}

#[derive(Debug, Deserialize)]
pub struct RunsParams {
    /// How many runs, newest first: 1 to 1,000 (default 100).
    pub limit: Option<String>,
}

/// `GET /api/v1/namespaces/{namespace}/jobs/{job}/runs`: the job's runs, newest first.
pub async fn job_runs(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path((namespace, job)): Path<(String, String)>,
    Params(params): Params<RunsParams>,
) -> ApiResult<Response> {
    let runs = state
        .catalog
        .lineage()
        .lineage_runs(&caller, &namespace, &job, params.limit.as_deref())
        .await?;
    Ok(ok(serde_json::json!({ "runs": runs })))
}

/// `GET /api/v1/jobs/runs/{runId}`: one run.
pub async fn run(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(run_id): Path<String>,
) -> ApiResult<Response> {
    Ok(ok(state
        .catalog
        .lineage()
        .lineage_run(&caller, &run_id)
        .await?))
}
