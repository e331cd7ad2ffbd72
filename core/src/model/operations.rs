use serde::{Deserialize, Serialize};

use super::Timestamp;
use crate::id::ObjectId;

/// The state of a long-running operation (an import, an export, a backup).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum OperationStatus {
    Running,
    Succeeded,
    Failed,
}

/// A long-running operation with its log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Operation {
    pub id: ObjectId,
    pub kind: String,
    pub status: OperationStatus,
    pub user: Option<ObjectId>,
    /// The object it works on, such as the model being imported.
    pub object: Option<ObjectId>,
    pub started_at: Timestamp,
    pub finished_at: Option<Timestamp>,
    pub log: Vec<LogLine>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogLine {
    pub at: Timestamp,
    pub level: String,
    pub message: String,
}

/// One step of data lineage: how a target is derived from its sources.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineageOperation {
    pub id: ObjectId,
    pub name: String,
    pub sources: Vec<ObjectId>,
    pub targets: Vec<ObjectId>,
    /// The transformation logic (an SQL expression, a script fragment).
    pub logic: String,
}

/// A data mapping between a source model and a target model, as script files carry it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataMapping {
    pub id: ObjectId,
    pub name: String,
    pub source_model: ObjectId,
    pub target_model: ObjectId,
    pub operations: Vec<LineageOperation>,
}

/// A dashboard definition, kept as the JSON its import carried.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Dashboard {
    pub id: ObjectId,
    pub name: String,
    pub definition: serde_json::Value,
}

/// A file attached to an object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attachment {
    pub object: ObjectId,
    pub file_name: String,
    pub media_type: String,
    #[serde(skip)]
    pub content: Vec<u8>,
}

/// The installed license.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct License {
    pub licensee: String,
    pub expires_at: Option<Timestamp>,
    pub features: Vec<String>,
}
