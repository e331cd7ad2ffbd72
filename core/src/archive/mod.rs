//! The model archive: a zip of CSV files that carries one whole model. `docs/model-archive.md`
//! documents the format; [`read`] checks an upload against it and [`write`] produces it
//! deterministically (same model, same bytes).
//!
//! Objects refer to each other by native id, never by database id, so an archive can be
//! imported into any store and exported again unchanged.

pub(crate) mod read;
mod write;

pub use read::spec;
pub use read::{ArchiveReader, read};
pub use write::write;

use serde::{Deserialize, Serialize};

use crate::model::{ClassificationStatus, DataProfile, DataSample, EdgeKind, TagKind, ValueType};

/// The format version written to `model.csv`; readers refuse versions they do not know.
pub const FORMAT_VERSION: u32 = 1;

/// Bounds that protect the server from hostile archives.
#[derive(Debug, Clone, Copy)]
pub struct ArchiveLimits {
    /// Most entries an archive may hold.
    pub max_entries: usize,
    /// Most bytes one entry may inflate to.
    pub max_entry_size: u64,
    /// Most bytes all entries together may inflate to.
    pub max_total_size: u64,
    /// Highest inflated/compressed ratio of an entry larger than 1 MiB inflated.
    pub max_ratio: u64,
}

impl Default for ArchiveLimits {
    fn default() -> Self {
        Self {
            max_entries: 64,
            max_entry_size: 256 << 20,
            max_total_size: 512 << 20,
            max_ratio: 200,
        }
    }
}

/// A whole model as the archive carries it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelArchive {
    pub model: ArchiveModel,
    pub objects: Vec<ArchiveObject>,
    pub attributes: Vec<ArchiveAttribute>,
    pub relationships: Vec<ArchiveRelationship>,
    pub tags: Vec<ArchiveTag>,
    pub classifications: Vec<ArchiveClassification>,
    pub sensitivity_labels: Vec<ArchiveLabel>,
    /// Written only when profiling export is asked for.
    pub profiling: Vec<ArchiveProfiling>,
    pub connections: Vec<ArchiveConnection>,
}

/// `model.csv`: the model itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveModel {
    pub name: String,
    /// The profile of the model's objects, e.g. `RDBMS Relational Database (Database)`.
    pub profile: String,
    pub description: String,
}

/// `objects.csv`: one row per model object. The same row a plugin sends as an object
/// record, so the two cannot drift apart.
pub use lore_plugin_sdk::Object as ArchiveObject;

/// `attributes.csv`: custom attribute, profile attribute and UDP values.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveAttribute {
    pub native_id: String,
    pub attribute: String,
    pub value_type: ValueType,
    /// The value as text, in [`Value::to_text`](crate::model::Value::to_text) form.
    pub value: String,
}

/// `relationships.csv`: edges between two objects of the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveRelationship {
    pub kind: EdgeKind,
    /// Relationship name, or the reference type of a term reference.
    pub name: String,
    pub source_native_id: String,
    pub target_native_id: String,
}

/// `labels.csv`: labels and collections.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveTag {
    pub native_id: String,
    pub kind: TagKind,
    pub value: String,
}

/// `classifications.csv`: data classes on objects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveClassification {
    pub native_id: String,
    pub data_class: String,
    pub status: ClassificationStatus,
}

/// `sensitivity_labels.csv`: sensitivity labels on objects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveLabel {
    pub native_id: String,
    pub label: String,
    pub status: ClassificationStatus,
}

/// `profiling.csv`: profiling and sampling results, as JSON cells.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ArchiveProfiling {
    pub native_id: String,
    pub data_profile: Option<DataProfile>,
    pub data_sample: Option<DataSample>,
}

/// `connections.csv`: connections of this model to other models of the repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ArchiveConnection {
    pub name: String,
    /// The repository path of the connected model, e.g. `/Sales/Warehouse`.
    pub target_model: String,
}
