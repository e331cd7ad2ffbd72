//! Uploads: a file sent as the raw request body or as the file part of a multipart form,
//! spooled to a temporary file under the upload limit (`server.max_upload_mib`).

use std::fs::File;
use std::io::{Seek, SeekFrom, Write};

use axum::body::Body;
use axum::extract::{FromRequest, Multipart, Request};
use axum::http::header::CONTENT_TYPE;
use http_body_util::{BodyExt, LengthLimitError, Limited};
use lore_core::{Error, ErrorCode};

use crate::AppState;
use crate::error::{ApiError, ApiResult, code_for_status};

/// What an upload holds: the media types a raw body may have (the empty one, no
/// Content-Type, first; the usual one second) and what to call it in messages.
#[derive(Debug)]
pub struct Upload {
    pub media_types: &'static [&'static str],
    pub what: &'static str,
}

/// A model archive: a zip file.
pub const MODEL_ARCHIVE: Upload = Upload {
    media_types: &[
        "",
        "application/zip",
        "application/octet-stream",
        "application/x-zip-compressed",
        "application/x-download",
    ],
    what: "the model archive",
};

/// A backup: a zip file.
pub const BACKUP: Upload = Upload {
    media_types: MODEL_ARCHIVE.media_types,
    what: "the backup",
};

/// A CSV file of role grants.
pub const ROLES_CSV: Upload = Upload {
    media_types: &[
        "",
        "text/csv",
        "application/csv",
        "text/plain",
        "application/octet-stream",
        "application/vnd.ms-excel",
    ],
    what: "the CSV file",
};

/// A dashboard definition: a JSON file.
pub const DASHBOARD_JSON: Upload = Upload {
    media_types: &[
        "",
        "application/json",
        "text/plain",
        "application/octet-stream",
    ],
    what: "the dashboard definition",
};

/// A data mapping script: text.
pub const MAPPING_SCRIPT: Upload = Upload {
    media_types: &[
        "",
        "text/plain",
        "application/sql",
        "text/x-sql",
        "application/octet-stream",
    ],
    what: "the data mapping script",
};

/// A meta model XML file.
pub const META_MODEL_XML: Upload = Upload {
    media_types: &[
        "",
        "application/xml",
        "text/xml",
        "text/plain",
        "application/octet-stream",
    ],
    what: "the meta model XML file",
};

/// Any file (an attachment): every media type is taken as it is.
pub const ANY_FILE: Upload = Upload {
    media_types: &["*", "application/octet-stream"],
    what: "the file",
};

/// An upload spooled to a temporary file.
#[derive(Debug)]
pub struct Spooled {
    pub file: File,
    pub size: u64,
    /// The file name a multipart part gave.
    pub file_name: Option<String>,
    /// The media type of the body or of the multipart part; empty when none was given.
    pub media_type: String,
}

/// The uploaded file (the raw body, or the first file part of a multipart form)
/// spooled to an anonymous temporary file, rewound, and its size. The upload may not
/// exceed `server.max_upload_mib` (413); the file goes away when it is dropped.
pub async fn spool_upload(req: Request, state: &AppState, kind: &Upload) -> ApiResult<(File, u64)> {
    let spooled = spool_file(req, state, kind, state.max_upload_bytes).await?;
    Ok((spooled.file, spooled.size))
}

/// [`spool_upload`] under a given limit, with what the upload said of itself.
pub async fn spool_file(
    req: Request,
    state: &AppState,
    kind: &Upload,
    limit: usize,
) -> ApiResult<Spooled> {
    let req = req.map(|body| Body::new(Limited::new(body, limit)));
    let content_type = req
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_ascii_lowercase();
    let mut spool = Spool::new(limit, kind.what)?;
    if content_type.starts_with("multipart/form-data") {
        let form_error = |what: &str, e: axum::extract::multipart::MultipartError| {
            ApiError::new(
                code_for_status(e.status()),
                format!("cannot read {what}: {}", e.body_text()),
            )
        };
        let mut form = Multipart::from_request(req, state).await.map_err(|e| {
            ApiError::new(
                code_for_status(e.status()),
                format!("cannot read the multipart form: {}", e.body_text()),
            )
        })?;
        while let Some(mut field) = form
            .next_field()
            .await
            .map_err(|e| form_error("the multipart form", e))?
        {
            if field.file_name().is_some() || field.name() == Some("file") {
                let file_name = field.file_name().map(str::to_owned);
                let media_type = field.content_type().unwrap_or_default().to_owned();
                while let Some(chunk) = field
                    .chunk()
                    .await
                    .map_err(|e| form_error("the uploaded file", e))?
                {
                    spool.write(&chunk)?;
                }
                return spool.finish(file_name, media_type);
            }
        }
        return Err(
            Error::missing(&format!("file (a multipart part holding {})", kind.what)).into(),
        );
    }
    let media_type = content_type
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_owned();
    if !kind
        .media_types
        .iter()
        .any(|t| *t == "*" || media_type == *t)
    {
        return Err(ApiError::new(
            ErrorCode::UnsupportedMediaType,
            format!(
                "upload {} as {} or multipart/form-data, not '{content_type}'",
                kind.what, kind.media_types[1]
            ),
        ));
    }
    let mut body = req.into_body();
    while let Some(frame) = body.frame().await {
        let frame = frame.map_err(|e| {
            let e = e.into_inner();
            if is_too_large(e.as_ref()) {
                spool.too_large()
            } else {
                ApiError::new(
                    ErrorCode::InvalidParameter,
                    format!("cannot read the request body: {e}"),
                )
            }
        })?;
        if let Ok(data) = frame.into_data() {
            spool.write(&data)?;
        }
    }
    spool.finish(None, media_type)
}

/// An upload on its way to a temporary file.
struct Spool {
    file: File,
    size: u64,
    limit: usize,
    what: &'static str,
}

impl Spool {
    fn new(limit: usize, what: &'static str) -> ApiResult<Self> {
        let file = tempfile::tempfile().map_err(|e| {
            Error::internal(format!(
                "cannot create a temporary file for the upload: {e}"
            ))
        })?;
        Ok(Self {
            file,
            size: 0,
            limit,
            what,
        })
    }

    fn write(&mut self, data: &[u8]) -> ApiResult<()> {
        self.size += data.len() as u64;
        if self.size > self.limit as u64 {
            return Err(self.too_large());
        }
        self.file
            .write_all(data)
            .map_err(|e| Error::internal(format!("cannot spool the upload: {e}")).into())
    }

    fn too_large(&self) -> ApiError {
        ApiError::new(
            ErrorCode::PayloadTooLarge,
            format!(
                "{} is larger than the server accepts ({} MiB)",
                self.what,
                self.limit >> 20
            ),
        )
    }

    fn finish(mut self, file_name: Option<String>, media_type: String) -> ApiResult<Spooled> {
        self.file
            .seek(SeekFrom::Start(0))
            .map_err(|e| Error::internal(format!("cannot read the spooled upload: {e}")))?;
        Ok(Spooled {
            file: self.file,
            size: self.size,
            file_name,
            media_type,
        })
    }
}

/// Whether a body error is the upload limit being passed.
fn is_too_large(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut current = Some(error);
    while let Some(e) = current {
        if e.is::<LengthLimitError>() {
            return true;
        }
        current = e.source();
    }
    false
}
