//! History: who made each write transaction of the catalog, and the images of the rows
//! it replaced. Every write transaction moves the catalog's version by one; that version
//! names the transaction (a [`Revision`]) and the state it left. A row of a kept table
//! (objects, attribute values, edges, tags, classifications, sensitivity labels) was
//! current from the version that wrote it up to the one that replaced or removed it
//! ([`Versioned`]), as SQL:2011's system-versioned tables keep theirs.

use serde::{Deserialize, Serialize};

use crate::Timestamp;
use crate::id::ObjectId;
use crate::{AttributeValue, Classification, Curation, Edge, Grant, LabelAssignment, Object, Tag};

/// What kind of writer made a revision.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Source {
    /// The server itself: sign-in bookkeeping, the outbox, a migration, a test.
    #[default]
    System,
    /// A user's own edit, through the REST API or the web UI.
    User,
    /// A model import or harvest (an operation).
    Import,
    /// An OpenLineage event.
    OpenLineage,
    /// A data mapping script.
    DataMapping,
    /// Labels or data classes inherited along lineage.
    Propagation,
    /// A restore of a backup.
    Restore,
}

impl Source {
    pub const ALL: [Source; 7] = [
        Source::System,
        Source::User,
        Source::Import,
        Source::OpenLineage,
        Source::DataMapping,
        Source::Propagation,
        Source::Restore,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Source::System => "system",
            Source::User => "user",
            Source::Import => "import",
            Source::OpenLineage => "openlineage",
            Source::DataMapping => "data-mapping",
            Source::Propagation => "propagation",
            Source::Restore => "restore",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }
}

/// Who made a write transaction: a kind of writer, the user it acted for and the
/// operation it ran in, where there are.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct Author {
    pub source: Source,
    pub user: Option<ObjectId>,
    pub operation: Option<i64>,
}

impl Author {
    /// The server itself, for no user.
    pub const fn system() -> Self {
        Self {
            source: Source::System,
            user: None,
            operation: None,
        }
    }

    /// A user's own edit.
    pub const fn user(user: ObjectId) -> Self {
        Self::by(Source::User, user)
    }

    /// A writer of that kind acting for the user.
    pub const fn by(source: Source, user: ObjectId) -> Self {
        Self {
            source,
            user: Some(user),
            operation: None,
        }
    }

    /// The same author, in that operation.
    pub const fn in_operation(mut self, operation: i64) -> Self {
        self.operation = Some(operation);
        self
    }
}

/// One write transaction of the catalog: the version it moved the catalog to, when it
/// committed and who made it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Revision {
    pub version: i64,
    pub at: Timestamp,
    pub author: Author,
}

/// An image of a row and the versions it was current in: from `from` (the version that
/// wrote it) up to, not including, `to` (the one that replaced or removed it; `None`
/// while it is current). `from` is 0 for a row written before history was kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Versioned<T> {
    pub from: i64,
    pub to: Option<i64>,
    pub row: T,
}

impl<T> Versioned<T> {
    /// Whether the image was the row's at `version`.
    pub fn current_at(&self, version: i64) -> bool {
        self.from <= version && self.to.is_none_or(|to| version < to)
    }
}

/// Every image a store keeps of one object's row and of what hangs on it: its attribute
/// values, tags, classifications, sensitivity labels and the edges from it. Each list
/// is ordered by `from`, then by the row's key.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ObjectHistory {
    pub objects: Vec<Versioned<Object>>,
    pub attributes: Vec<Versioned<AttributeValue>>,
    pub tags: Vec<Versioned<Tag>>,
    pub classifications: Vec<Versioned<Classification>>,
    pub labels: Vec<Versioned<LabelAssignment>>,
    pub edges: Vec<Versioned<Edge>>,
    /// The curation of the object: endorsements, certifications, comments, warnings and
    /// watches.
    pub curation: Vec<Versioned<Curation>>,
    /// The roles granted on the object.
    pub grants: Vec<Versioned<Grant>>,
    /// Whether a list was cut at the store's bound: the oldest images are left out.
    pub truncated: bool,
}

/// What history a store keeps: the revisions from `oldest` to `newest`. A state older
/// than `oldest` cannot be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HistorySpan {
    pub oldest: Revision,
    pub newest: Revision,
}

/// The counts an import records of the model version it makes
/// (the store's `Op::PutModelVersion`): the model (its number, as
/// [`ObjectId::content_model`](crate::id::ObjectId::content_model) gives it), the objects
/// it has after the import, and those the import added, changed and removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelVersionCounts {
    pub model: i64,
    pub objects: i64,
    pub added: i64,
    pub changed: i64,
    pub removed: i64,
}

/// A version of a model: an import or harvest that changed it, numbered from 1 per
/// model, with the revision its transaction committed as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelVersion {
    pub number: i64,
    pub revision: Revision,
    pub counts: ModelVersionCounts,
}
