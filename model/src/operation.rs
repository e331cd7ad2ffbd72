//! Operations (imports run in the background, with their logs), the import settings of
//! models and the files attached to objects.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::Timestamp;
use crate::id::ObjectId;

/// Where an operation is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum OperationState {
    Running,
    Succeeded,
    Failed,
}

impl OperationState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Running => "RUNNING",
            Self::Succeeded => "SUCCEEDED",
            Self::Failed => "FAILED",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Self::Running, Self::Succeeded, Self::Failed]
            .into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(text.trim()))
    }
}

/// How far a running operation has come.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OperationProgress {
    /// What the operation is doing, e.g. `running the importer`, `writing the model`.
    pub phase: String,
    pub done: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total: Option<u64>,
    /// What `done` counts, e.g. `objects`.
    pub unit: String,
}

/// What an operation does and how it went, beyond the columns filters need.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OperationDetail {
    /// The importer's format.
    pub format: String,
    pub progress: OperationProgress,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub finished_at: Option<Timestamp>,
    /// Why it failed, or a one-line summary of what it did.
    pub message: String,
    /// The import summary of a successful import.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
}

/// The id space of operations
/// (`StoreBase::reserve_ids`).
pub const OPERATION_IDS: i64 = -4;

/// One operation: an import started through `startImport`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Operation {
    /// Given by the store when the operation is inserted.
    pub id: i64,
    /// `import`.
    pub kind: String,
    pub state: OperationState,
    /// The model it imports into.
    pub model: Option<ObjectId>,
    /// The name of the user who started it.
    pub started_by: String,
    pub started_at: Timestamp,
    /// Renewed while it runs; a running operation whose heartbeat is old lost its Lore
    /// process and is marked failed.
    pub heartbeat_at: Timestamp,
    pub detail: OperationDetail,
}

/// Which operations a listing covers, newest first.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct OperationFilter {
    pub model: Option<ObjectId>,
    pub state: Option<OperationState>,
    /// Only those started by this user.
    pub started_by: Option<String>,
    pub limit: usize,
}

impl OperationFilter {
    /// Whether the operation passes: the reference every backend answers like.
    pub fn matches(&self, operation: &Operation) -> bool {
        self.model.is_none_or(|m| operation.model == Some(m))
            && self.state.is_none_or(|s| operation.state == s)
            && self
                .started_by
                .as_ref()
                .is_none_or(|u| *u == operation.started_by)
    }
}

/// A line of an operation's log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OperationLogLine {
    /// Its number in the log, from 1.
    pub seq: i64,
    pub at: Timestamp,
    /// `INFO`, `WARN` or `ERROR`.
    pub level: String,
    pub message: String,
}

/// How a model is imported by `startImport`: its importer's format and parameters, and
/// the attachment it reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ImportSettings {
    pub model: ObjectId,
    pub format: String,
    pub parameters: Map<String, Value>,
    /// The name of the model's attachment the importer reads; the newest attachment
    /// when unset.
    pub attachment: Option<String>,
    pub updated_at: Timestamp,
    pub updated_by: String,
}

/// What is known of an attached file, without its content.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttachmentInfo {
    pub object: ObjectId,
    /// The file name, unique per object.
    pub name: String,
    pub media_type: String,
    pub size: u64,
    /// Hex SHA-256 of the content.
    pub sha256: String,
    pub created_at: Timestamp,
    pub created_by: String,
}

/// A file attached to an object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Attachment {
    pub info: AttachmentInfo,
    pub content: Vec<u8>,
}
