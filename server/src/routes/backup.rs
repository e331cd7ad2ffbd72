//! Backup and restore of the whole repository: `POST /repository/backup` and `POST
//! /repository/restore` (docs/backup.md has the format).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::body::{Body, Bytes, HttpBody};
use axum::extract::{Request, State};
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_LENGTH, CONTENT_TYPE};
use axum::http::{HeaderValue, Uri};
use axum::response::{IntoResponse, Response};
use http_body::Frame;
use lore_core::Error;
use lore_core::backup::{BackupOptions, Manifest};
use lore_core::model::Capability;
use serde::Deserialize;
use serde_json::json;
use utoipa::IntoParams;

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, Params, flag};
use crate::upload::{BACKUP, spool_upload};

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct BackupParams {
    /// `false` leaves the contents of models out (objects and what hangs on them): the
    /// repository tree, meta model, users, roles and settings only. Default `true`.
    pub backup_cached_models: Option<String>,
    /// Deprecated name of `backupCachedModels` (release 11.0).
    pub backup_all_versions: Option<String>,
}

/// Backs up the whole repository to a zip file (`application/x-download`): objects with
/// what hangs on them, the meta model, data classes, labels, roles, users (with password
/// hashes), groups, grants, worksheets, documents, curation, notifications, operations,
/// import settings, attachments and id sequences. For administrators. The backup is
/// written to a temporary file and streamed from there; it restores into any backend.
#[utoipa::path(post, path = "/repository/backup", tag = "Repository", security(("api_key" = ["Administer"])), params(BackupParams),
    responses((status = 200, description = "The backup", content_type = "application/x-download"),
        (status = 400, description = "Bad parameter"), (status = 403, description = "Not an administrator")))]
pub async fn backup(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<BackupParams>,
    uri: Uri,
) -> ApiResult<Response> {
    let deprecated = params.backup_all_versions.is_some();
    let contents = match (
        params.backup_cached_models.as_deref(),
        params.backup_all_versions.as_deref(),
    ) {
        (Some(value), _) => flag(Some(value), "backupCachedModels")?,
        (None, Some(value)) => flag(Some(value), "backupAllVersions")?,
        (None, None) => true,
    };
    let file = tempfile::tempfile().map_err(|e| {
        Error::internal(format!(
            "cannot create a temporary file for the backup: {e}"
        ))
    })?;
    let (mut file, manifest) = state
        .catalog
        .operations()
        .backup(
            &caller,
            file,
            BackupOptions {
                model_contents: contents,
            },
        )
        .await?;
    let size = file
        .seek(SeekFrom::End(0))
        .and_then(|size| file.seek(SeekFrom::Start(0)).map(|_| size))
        .map_err(|e| Error::internal(format!("cannot read the backup back: {e}")))?;
    let name = format!(
        "lore-backup-{}.zip",
        manifest.created_at.format("%Y%m%dT%H%M%SZ")
    );
    let mut response = (
        [
            (CONTENT_TYPE, "application/x-download".to_owned()),
            (
                CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
            (CONTENT_LENGTH, size.to_string()),
        ],
        Body::new(FileBody::new(file)),
    )
        .into_response();
    if deprecated {
        let headers = response.headers_mut();
        headers.insert("deprecation", HeaderValue::from_static("true"));
        let successor = format!(
            "<{}?backupCachedModels={contents}>; rel=\"successor-version\"",
            uri.path()
        );
        if let Ok(link) = HeaderValue::from_str(&successor) {
            headers.insert("link", link);
        }
    }
    Ok(response)
}

/// Restores the repository from a backup (a zip written by `POST /repository/backup`
/// or `lore backup`), sent as the raw body or the file part of a multipart form, up to
/// `server.max_upload_mib`. Everything the server holds but its system log is replaced,
/// all at once or, when the backup is refused, not at all. For administrators. Every
/// session ends with it, the caller's too: log in again as a user of the backup.
/// Answers `{createdAt, backend, loreVersion, modelContents, records}`.
#[utoipa::path(post, path = "/repository/restore", tag = "Repository", security(("api_key" = ["Administer"])),
    request_body(content = Vec<u8>, content_type = "application/zip", description = "The backup"),
    responses((status = 200, description = "What was restored"), (status = 400, description = "Not a valid backup"),
        (status = 403, description = "Not an administrator"), (status = 409, description = "An operation is running"),
        (status = 413, description = "Backup too large"), (status = 415, description = "Not a zip or multipart upload")))]
pub async fn restore(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    req: Request,
) -> ApiResult<Response> {
    // Refused before a stranger's upload is spooled.
    caller.require(Capability::Administer)?;
    let (file, size) = spool_upload(req, &state, &BACKUP).await?;
    if size == 0 {
        return Err(Error::missing("the backup (request body)").into());
    }
    let plan = state.catalog.operations().restore(&caller, file).await?;
    Ok(ok(restored_json(&plan.manifest, &plan.records)))
}

/// The answer of a restore.
fn restored_json(
    manifest: &Manifest,
    records: &std::collections::BTreeMap<String, u64>,
) -> serde_json::Value {
    json!({
        "createdAt": manifest.created_at,
        "backend": manifest.backend,
        "loreVersion": manifest.lore_version,
        "modelContents": manifest.model_contents,
        "records": records,
    })
}

/// A response body read from a file in chunks.
struct FileBody {
    file: File,
    done: bool,
}

impl FileBody {
    /// Bytes read per frame.
    const CHUNK: usize = 64 << 10;

    fn new(file: File) -> Self {
        Self { file, done: false }
    }
}

impl HttpBody for FileBody {
    type Data = Bytes;
    type Error = std::io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        if self.done {
            return Poll::Ready(None);
        }
        // A local temporary file: its reads do not wait on anything worth a thread.
        let mut chunk = vec![0; Self::CHUNK];
        match self.file.read(&mut chunk) {
            Ok(0) => {
                self.done = true;
                Poll::Ready(None)
            }
            Ok(n) => {
                chunk.truncate(n);
                Poll::Ready(Some(Ok(Frame::data(Bytes::from(chunk)))))
            }
            Err(e) => {
                self.done = true;
                Poll::Ready(Some(Err(e)))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.done
    }
}
