use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::Timestamp;
use crate::id::ObjectId;

/// The kind of a directed edge between two objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum EdgeKind {
    /// A custom relationship of the meta model (e.g. `Is Defined By`); `name` says which.
    CustomRelationship,
    /// A semantic link between two objects (e.g. a column to the term that defines it).
    SemanticLink,
    /// An entity relationship between two classifiers; `name` is the relationship's name.
    EntityRelationship,
    /// A reference between glossary terms; `name` is the [`ReferenceType`].
    TermReference,
    /// A connection between two models (stitching); `name` is the connection's name.
    ModelConnection,
    /// A configuration (or version) includes a model.
    ConfigurationContent,
    /// Data lineage from source to target; `name` holds the operation.
    Lineage,
}

impl EdgeKind {
    pub const ALL: [EdgeKind; 7] = [
        Self::CustomRelationship,
        Self::SemanticLink,
        Self::EntityRelationship,
        Self::TermReference,
        Self::ModelConnection,
        Self::ConfigurationContent,
        Self::Lineage,
    ];
    /// The stable name stored in databases and archives.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::CustomRelationship => "custom_relationship",
            Self::SemanticLink => "semantic_link",
            Self::EntityRelationship => "entity_relationship",
            Self::TermReference => "term_reference",
            Self::ModelConnection => "model_connection",
            Self::ConfigurationContent => "configuration_content",
            Self::Lineage => "lineage",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// A directed, named edge between two objects. The store keeps one edge per kind, ends
/// and name ([`Edge::same_place`]); adding one that is there already keeps the stored one,
/// origin included.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Edge {
    pub kind: EdgeKind,
    pub source: ObjectId,
    pub target: ObjectId,
    pub name: String,
    /// What made the edge and keeps it up to date, when that is not a person: the
    /// OpenLineage job (`namespace/name`) whose events set it. Only that writer replaces
    /// or removes it by this field; `None` for every other edge.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

impl Edge {
    /// Whether the two are the same edge of the store (kind, ends and name), whatever
    /// their origins.
    pub fn same_place(&self, other: &Edge) -> bool {
        (self.kind, self.source, self.target, &self.name)
            == (other.kind, other.source, other.target, &other.name)
    }
}

/// How far a lineage walk goes (`ObjectStore::lineage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LineageBounds {
    /// The most edges between the starting object and an edge's far end.
    pub depth: u32,
    /// The most edges followed from one object: the first by the other end, then name.
    pub fan_out: u32,
    /// The most edges answered.
    pub limit: u32,
}

/// What a lineage walk found: each edge with its depth (1 for an edge of the starting
/// object), by depth, then source, target and name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LineageWalk {
    pub edges: Vec<(Edge, u32)>,
    /// Whether the walk was cut: more edges than the limit, or more steps than
    /// [`LINEAGE_WALK_BUDGET`].
    pub truncated: bool,
}

/// The most (object, depth) steps one lineage walk takes; past it the walk is cut (and
/// which edges it found may differ between backends).
pub const LINEAGE_WALK_BUDGET: u64 = 200_000;

/// The type of a reference between glossary terms.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ReferenceType {
    Synonym,
    #[serde(rename = "See Also")]
    SeeAlso,
    /// Was `More General`.
    Specializes,
    /// Was `More Specific`.
    Generalizes,
    #[serde(rename = "Possible Value")]
    PossibleValue,
    #[serde(rename = "Possible Value Of")]
    PossibleValueOf,
}

impl ReferenceType {
    pub const ALL: [ReferenceType; 6] = [
        Self::Synonym,
        Self::SeeAlso,
        Self::Specializes,
        Self::Generalizes,
        Self::PossibleValue,
        Self::PossibleValueOf,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Synonym => "Synonym",
            Self::SeeAlso => "See Also",
            Self::Specializes => "Specializes",
            Self::Generalizes => "Generalizes",
            Self::PossibleValue => "Possible Value",
            Self::PossibleValueOf => "Possible Value Of",
        }
    }
    /// Reads a reference type, accepting the renamed values `More General` and `More Specific`.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "More General" => Some(Self::Specializes),
            "More Specific" => Some(Self::Generalizes),
            _ => Self::ALL
                .into_iter()
                .find(|r| r.as_str().eq_ignore_ascii_case(s)),
        }
    }
}

/// A string-valued tag on an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum TagKind {
    Label,
    Collection,
}

impl TagKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Label => "label",
            Self::Collection => "collection",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        [Self::Label, Self::Collection]
            .into_iter()
            .find(|k| k.as_str() == s)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Tag {
    pub object: ObjectId,
    pub kind: TagKind,
    pub value: String,
}

/// A data class: a kind of data (City, Email, ...) that objects are classified with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DataClass {
    pub name: String,
    pub description: String,
    /// Whether profiled data of objects of this class is hidden from users without View Data.
    pub hide_data: bool,
    /// Detection rules as the data class definition holds them (patterns, value lists).
    pub definition: serde_json::Value,
}

/// The status of a data classification or a sensitivity label on an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum ClassificationStatus {
    /// Found by a profiler or a rule, not yet reviewed.
    Matched,
    /// Proposed by a user, not yet reviewed (sensitivity labels).
    Proposed,
    Approved,
    Rejected,
}

impl ClassificationStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Matched => "MATCHED",
            Self::Proposed => "PROPOSED",
            Self::Approved => "APPROVED",
            Self::Rejected => "REJECTED",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::Matched,
            Self::Proposed,
            Self::Approved,
            Self::Rejected,
        ]
        .into_iter()
        .find(|k| k.as_str().eq_ignore_ascii_case(s))
    }
}

/// An object classified with a data class.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Classification {
    pub object: ObjectId,
    pub data_class: String,
    pub status: ClassificationStatus,
}

/// A sensitivity label definition; a lower `position` is less restrictive.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SensitivityLabel {
    pub name: String,
    pub position: i64,
    pub description: String,
    pub foreground_color: String,
    pub background_color: String,
    /// Whether profiled data of labelled objects is hidden from users without View Data.
    pub hide_data: bool,
}

/// A sensitivity label on an object, with its review status.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct LabelAssignment {
    pub object: ObjectId,
    pub label: String,
    pub status: ClassificationStatus,
}

/// Data profiling results of a column or field (MQL's DataProfile shape).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataProfile {
    pub total_profiled_rows: Option<i64>,
    pub profiling_date: Option<Timestamp>,
    #[serde(default)]
    pub statistics: ProfileStatistics,
    #[serde(default)]
    pub inferred_data_types: BTreeMap<String, i64>,
    #[serde(default)]
    pub invalid_data_type_values: Vec<String>,
    #[serde(default)]
    pub patterns: BTreeMap<String, i64>,
    #[serde(default)]
    pub values: BTreeMap<String, i64>,
    #[serde(default)]
    pub histogram: Vec<HistogramBucket>,
}

/// The statistics of a data profile; names follow the DataProfile_Statistics shape.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ProfileStatistics {
    #[serde(rename = "DistinctRows", skip_serializing_if = "Option::is_none")]
    pub distinct_rows: Option<i64>,
    #[serde(rename = "DuplicateRows", skip_serializing_if = "Option::is_none")]
    pub duplicate_rows: Option<i64>,
    #[serde(rename = "ValidRows", skip_serializing_if = "Option::is_none")]
    pub valid_rows: Option<i64>,
    #[serde(rename = "EmptyRows", skip_serializing_if = "Option::is_none")]
    pub empty_rows: Option<i64>,
    #[serde(rename = "InvalidRows", skip_serializing_if = "Option::is_none")]
    pub invalid_rows: Option<i64>,
    #[serde(rename = "min", skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(rename = "max", skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    #[serde(rename = "mean", skip_serializing_if = "Option::is_none")]
    pub mean: Option<f64>,
    #[serde(rename = "variance", skip_serializing_if = "Option::is_none")]
    pub variance: Option<f64>,
    #[serde(rename = "median", skip_serializing_if = "Option::is_none")]
    pub median: Option<f64>,
    #[serde(rename = "lowerQuantile", skip_serializing_if = "Option::is_none")]
    pub lower_quantile: Option<f64>,
    #[serde(rename = "upperQuantile", skip_serializing_if = "Option::is_none")]
    pub upper_quantile: Option<f64>,
    #[serde(rename = "avgLength", skip_serializing_if = "Option::is_none")]
    pub avg_length: Option<f64>,
    #[serde(rename = "minLength", skip_serializing_if = "Option::is_none")]
    pub min_length: Option<i64>,
    #[serde(rename = "maxLength", skip_serializing_if = "Option::is_none")]
    pub max_length: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistogramBucket {
    pub count: i64,
    pub lower: String,
    pub upper: String,
}

/// Sampled rows of a table, file or column (MQL's DataSample shape).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DataSample {
    pub header: Vec<String>,
    pub samples: Vec<Vec<serde_json::Value>>,
}

/// Profiling and sampling results of one object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Profiling {
    pub object: ObjectId,
    pub profile: Option<DataProfile>,
    pub sample: Option<DataSample>,
}
