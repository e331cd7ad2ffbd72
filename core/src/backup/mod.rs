//! The backup: one zip of JSON-lines files that carries the whole repository (objects
//! with what hangs on them, the meta model, governance definitions, users with their
//! password hashes, groups, grants, worksheets, documents, curation, notifications,
//! operations with their logs, import settings, attachments, OpenLineage runs and
//! events, and id sequences), so a
//! backup taken on one backend restores into any other. `docs/backup.md` documents the
//! format.
//!
//! [`write`] streams a store into a backup page by page; [`read`] checks a backup and
//! turns it into the ops that rebuild a store, chunk by chunk. Neither holds the whole
//! repository in memory.

mod read;
mod write;

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub use read::{BackupReader, RestorePlan, backup_history, plan_restore};
pub use write::{BackupOptions, BackupSummary, write_backup};

use crate::id::ObjectId;
use crate::model::{
    AttachmentInfo, Classification, ClassificationStatus, Curation, DataProfile, DataSample, Edge,
    EdgeKind, Grant, LabelAssignment, Object, ObjectHistory, Operation, OperationLogLine, Tag,
    TagKind, Timestamp, User, Value, Versioned,
};

/// What `backup.json` says the file is.
pub const FORMAT_NAME: &str = "lore-backup";
/// The format version written; readers refuse versions they do not know.
pub const FORMAT_VERSION: u32 = 1;
/// The manifest's file name.
pub const MANIFEST: &str = "backup.json";

/// The data files of the format, in the order a restore reads them (definitions before
/// what refers to them). Each is JSON lines: one record per line.
pub mod files {
    pub const ATTRIBUTE_TYPES: &str = "attribute_types.jsonl";
    pub const OBJECT_TYPES: &str = "object_types.jsonl";
    pub const DATA_CLASSES: &str = "data_classes.jsonl";
    pub const SENSITIVITY_LABELS: &str = "sensitivity_labels.jsonl";
    pub const ROLES: &str = "roles.jsonl";
    pub const USERS: &str = "users.jsonl";
    pub const GROUPS: &str = "groups.jsonl";
    pub const MEMBERSHIPS: &str = "memberships.jsonl";
    pub const OBJECTS: &str = "objects.jsonl";
    pub const GRANTS: &str = "grants.jsonl";
    pub const WORKSHEETS: &str = "worksheets.jsonl";
    pub const DOCUMENTS: &str = "documents.jsonl";
    pub const CURATION: &str = "curation.jsonl";
    pub const NOTIFICATIONS: &str = "notifications.jsonl";
    pub const OPERATIONS: &str = "operations.jsonl";
    pub const IMPORT_SETTINGS: &str = "import_settings.jsonl";
    pub const ATTACHMENTS: &str = "attachments.jsonl";
    pub const LINEAGE_RUNS: &str = "lineage_runs.jsonl";
    pub const LINEAGE_EVENTS: &str = "lineage_events.jsonl";
    pub const ID_SEQUENCES: &str = "id_sequences.jsonl";
    pub const REVISIONS: &str = "revisions.jsonl";
    pub const MODEL_VERSIONS: &str = "model_versions.jsonl";
    pub const HISTORY: &str = "history.jsonl";

    /// Every data file, in restore order. A backup may lack a file (one taken before
    /// the file was added, such as the lineage files): it restores as one without
    /// records.
    pub const ALL: [&str; 23] = [
        ATTRIBUTE_TYPES,
        OBJECT_TYPES,
        DATA_CLASSES,
        SENSITIVITY_LABELS,
        ROLES,
        USERS,
        GROUPS,
        MEMBERSHIPS,
        OBJECTS,
        GRANTS,
        WORKSHEETS,
        DOCUMENTS,
        CURATION,
        NOTIFICATIONS,
        OPERATIONS,
        IMPORT_SETTINGS,
        ATTACHMENTS,
        LINEAGE_RUNS,
        LINEAGE_EVENTS,
        ID_SEQUENCES,
        REVISIONS,
        MODEL_VERSIONS,
        HISTORY,
    ];
}

/// `backup.json`: what the backup is and holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Manifest {
    /// Always [`FORMAT_NAME`].
    pub format: String,
    pub version: u32,
    pub created_at: Timestamp,
    /// The Lore release that wrote it.
    pub lore_version: String,
    /// The backend it was taken from: `memory`, `sqlite`, `postgres`.
    pub backend: String,
    /// Whether the contents of models are in it (`backupCachedModels`); without them a
    /// restore brings back the repository tree with empty models.
    pub model_contents: bool,
    /// The records of each data file.
    pub records: BTreeMap<String, u64>,
    /// The history the backup carries (`revisions.jsonl`, `model_versions.jsonl`,
    /// `history.jsonl`); absent in a backup without it (one taken before backups
    /// carried history, or without the contents of models).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<HistoryExtent>,
}

/// The revisions a backup's history spans: the oldest that can be read and the newest.
/// Every version its records name is at most `newest`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HistoryExtent {
    pub oldest: i64,
    pub newest: i64,
}

/// A model version in `model_versions.jsonl`: the model's `number`-th, made by the
/// revision `version`, with its counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelVersionRecord {
    pub version: i64,
    pub number: i64,
    #[serde(flatten)]
    pub counts: crate::model::ModelVersionCounts,
}

/// A line of `history.jsonl`: every image kept of one object's rows and of what hangs
/// on it, each with the versions it was current in (`to` absent: current when the
/// backup was taken); or, with no `object`, of the grants of server-wide roles.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HistoryRecord {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object: Option<ObjectId>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub objects: Vec<Versioned<Object>>,
    /// Of the object's attribute values, typed as `objects.jsonl` types them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<Versioned<AttributeRecord>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edges: Vec<Versioned<Edge>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<Versioned<Tag>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classifications: Vec<Versioned<Classification>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<Versioned<LabelAssignment>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub curation: Vec<Versioned<Curation>>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grants: Vec<Versioned<Grant>>,
}

/// Images in the order every backend writes them: by their versions, then as their rows
/// read in JSON (the stores order rows of one version differently).
fn ordered<T: Serialize>(images: Vec<Versioned<T>>) -> Vec<Versioned<T>> {
    let mut keyed: Vec<((i64, i64, String), Versioned<T>)> = images
        .into_iter()
        .map(|i| {
            let row = serde_json::to_string(&i.row).unwrap_or_default();
            ((i.from, i.to.unwrap_or(i64::MAX), row), i)
        })
        .collect();
    keyed.sort_by(|a, b| a.0.cmp(&b.0));
    keyed.into_iter().map(|(_, i)| i).collect()
}

impl HistoryRecord {
    /// The record of an object's history (`None` for the server's grants).
    pub fn of(object: Option<ObjectId>, history: ObjectHistory) -> Self {
        let attributes = history
            .attributes
            .into_iter()
            .map(|i| Versioned {
                from: i.from,
                to: i.to,
                row: AttributeRecord {
                    name: i.row.attribute,
                    value: i.row.value.into(),
                },
            })
            .collect();
        Self {
            object,
            objects: ordered(history.objects),
            attributes: ordered(attributes),
            edges: ordered(history.edges),
            tags: ordered(history.tags),
            classifications: ordered(history.classifications),
            labels: ordered(history.labels),
            curation: ordered(history.curation),
            grants: ordered(history.grants),
        }
    }

    /// Whether it holds no image.
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty()
            && self.attributes.is_empty()
            && self.edges.is_empty()
            && self.tags.is_empty()
            && self.classifications.is_empty()
            && self.labels.is_empty()
            && self.curation.is_empty()
            && self.grants.is_empty()
    }
}

/// Bounds that protect a restore from hostile backups. The records are streamed, so a
/// backup may be far larger than memory; these bound what one line and the whole
/// inflated backup may cost.
#[derive(Debug, Clone, Copy)]
pub struct BackupLimits {
    /// Most bytes one line (one record) may hold: an attachment is one line.
    pub max_line_bytes: u64,
    /// Most bytes all files together may inflate to, whatever the backup's size.
    pub max_total_bytes: u64,
    /// Beyond `min_total_bytes`, the inflated bytes may be at most this many times the
    /// size of the backup file.
    pub max_ratio: u64,
    /// Inflating this much is fine whatever the ratio.
    pub min_total_bytes: u64,
}

impl Default for BackupLimits {
    fn default() -> Self {
        Self {
            max_line_bytes: 512 << 20,
            max_total_bytes: 1 << 40,
            max_ratio: 100,
            min_total_bytes: 1 << 30,
        }
    }
}

/// A user with their password hash (which the API never shows).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserRecord {
    #[serde(flatten)]
    pub user: User,
    /// The argon2id PHC string, or none for accounts without a password.
    pub password_hash: Option<String>,
    /// Written (`true`) for each user without a password by every Lore that links users
    /// by issuer and subject ([`User::external`]); absent in older backups, whose users
    /// without a password are restored to be linked at their next sign-in, as migration
    /// 29 does. A user with a password is never linked by name, so theirs is left out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub links_by_subject: Option<bool>,
}

impl From<User> for UserRecord {
    fn from(mut user: User) -> Self {
        let password_hash = user.password_hash.take();
        Self {
            user,
            links_by_subject: password_hash.is_none().then_some(true),
            password_hash,
        }
    }
}

impl From<UserRecord> for User {
    fn from(record: UserRecord) -> Self {
        let external = match record.user.external {
            None if record.links_by_subject != Some(true) && record.password_hash.is_none() => {
                Some(crate::model::ExternalLink::AtNextSignIn)
            }
            external => external,
        };
        Self {
            password_hash: record.password_hash,
            external,
            ..record.user
        }
    }
}

/// An object with everything that hangs on it: its attribute values, outgoing edges,
/// tags, data classes, sensitivity labels, profiling and sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ObjectRecord {
    pub object: Object,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attributes: Vec<AttributeRecord>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub edges: Vec<EdgeRecord>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<TagRecord>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub classifications: Vec<StatusRecord>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<StatusRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub profile: Option<DataProfile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<DataSample>,
}

/// An attribute value keyed by its type (`{"name": "Owner", "text": "Ann"}`), so text
/// that reads like a date stays text.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttributeRecord {
    pub name: String,
    #[serde(flatten)]
    pub value: TypedValue,
}

/// A [`Value`] keyed by its type.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TypedValue {
    Boolean(bool),
    Integer(i64),
    Double(f64),
    Datetime(Timestamp),
    Text(String),
}

impl From<Value> for TypedValue {
    fn from(value: Value) -> Self {
        match value {
            Value::Boolean(b) => Self::Boolean(b),
            Value::Integer(i) => Self::Integer(i),
            Value::Double(d) => Self::Double(d),
            Value::DateTime(t) => Self::Datetime(t),
            Value::Text(s) => Self::Text(s),
        }
    }
}

impl From<TypedValue> for Value {
    fn from(value: TypedValue) -> Self {
        match value {
            TypedValue::Boolean(b) => Self::Boolean(b),
            TypedValue::Integer(i) => Self::Integer(i),
            TypedValue::Double(d) => Self::Double(d),
            TypedValue::Datetime(t) => Self::DateTime(t),
            TypedValue::Text(s) => Self::Text(s),
        }
    }
}

/// An edge from the object of its record.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct EdgeRecord {
    pub kind: EdgeKind,
    pub target: ObjectId,
    pub name: String,
    /// The OpenLineage job that made it ([`crate::model::Edge::origin`]); absent in
    /// backups of Lore before edges had one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<String>,
}

/// A tag of the object of its record.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TagRecord {
    pub kind: TagKind,
    pub value: String,
}

/// A data class or sensitivity label of the object of its record, with its status.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct StatusRecord {
    pub name: String,
    pub status: ClassificationStatus,
}

/// An operation with its log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OperationRecord {
    #[serde(flatten)]
    pub operation: Operation,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub log: Vec<OperationLogLine>,
}

/// An attached file, its content in Base64.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttachmentRecord {
    /// The file's object, name, media type, `size` and `sha256` (hex, checked on restore),
    /// and when and by whom it was attached.
    #[serde(flatten)]
    pub info: AttachmentInfo,
    pub content: String,
}

/// The next id of an id space.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct IdSequenceRecord {
    pub space: i64,
    pub next: i64,
}

#[cfg(test)]
mod user_record_tests {
    use super::*;
    use crate::model::ExternalLink;

    const OLD: &str = r#"{"id":"-1_1","name":"a","full_name":"","email":"","description":"","enabled":true,"created_at":"2026-01-01T00:00:00Z","password_hash":null}"#;

    fn read(line: &str) -> User {
        User::from(serde_json::from_str::<UserRecord>(line).expect("a user record"))
    }

    #[test]
    fn users_of_older_backups_without_a_password_are_linked_at_their_next_sign_in() {
        assert_eq!(read(OLD).external, Some(ExternalLink::AtNextSignIn));
        let with_password = OLD.replace(
            r#""password_hash":null"#,
            r#""password_hash":"$argon2id$x""#,
        );
        assert_eq!(read(&with_password).external, None);
    }

    #[test]
    fn links_round_trip_through_a_record() {
        let mut user = read(OLD);
        for external in [
            None,
            Some(ExternalLink::AtNextSignIn),
            Some(ExternalLink::Subject {
                issuer: "https://idp.example/".into(),
                subject: "s-1".into(),
            }),
        ] {
            user.external = external;
            let line = serde_json::to_string(&UserRecord::from(user.clone())).expect("JSON");
            assert_eq!(read(&line), user, "{line}");
        }
    }
}

#[cfg(test)]
mod lineage_record_tests {
    use crate::model::{LineageEvent, LineageEventKind, LineageRun, RunState};

    /// A line of `lineage_runs.jsonl` as backups have been written since the file was
    /// added.
    const RUN_LINE: &str = r#"{"runId":"r","jobNamespace":"ns","jobName":"j","state":"FAIL","stateAt":"1970-01-01T00:00:05.000005Z","startedAt":"1970-01-01T00:00:01.000005Z","endedAt":"1970-01-01T00:00:05.000005Z","errorMessage":"boom","errorAt":null}"#;

    #[test]
    fn a_lineage_run_is_written_as_backups_always_wrote_it() {
        let t = |s: i64| chrono::DateTime::from_timestamp(s, 5_000).expect("a time");
        let run = LineageRun {
            run_id: "r".to_owned(),
            job_namespace: "ns".to_owned(),
            job_name: "j".to_owned(),
            state: RunState::Fail,
            state_at: t(5),
            started_at: Some(t(1)),
            ended_at: Some(t(5)),
            error_message: Some("boom".to_owned()),
            error_at: None,
        };
        assert_eq!(serde_json::to_string(&run).expect("JSON"), RUN_LINE);
        let read: LineageRun = serde_json::from_str(RUN_LINE).expect("a run");
        assert_eq!(read, run);
    }

    /// A line of `lineage_events.jsonl` as backups have been written since the file was
    /// added.
    const LINE: &str = r#"{"digest":"d1","kind":"run","eventTime":"2026-01-01T00:00:00.000001Z","receivedAt":"2026-01-01T00:00:01Z","receivedFrom":"pipeline","runId":"r","eventType":"COMPLETE","jobNamespace":"ns","jobName":"job","errorMessage":null,"body":"{\"eventType\":\"COMPLETE\"}"}"#;

    fn event() -> LineageEvent {
        LineageEvent {
            digest: "d1".to_owned(),
            kind: LineageEventKind::Run,
            event_time: chrono::DateTime::from_timestamp(1_767_225_600, 1_000).expect("a time"),
            received_at: chrono::DateTime::from_timestamp(1_767_225_601, 0).expect("a time"),
            received_from: "pipeline".to_owned(),
            run_id: Some("r".to_owned()),
            event_type: Some(RunState::Complete),
            job_namespace: Some("ns".to_owned()),
            job_name: Some("job".to_owned()),
            error_message: None,
            body: r#"{"eventType":"COMPLETE"}"#.to_owned(),
        }
    }

    #[test]
    fn a_lineage_event_is_written_as_backups_always_wrote_it() {
        assert_eq!(serde_json::to_string(&event()).expect("JSON"), LINE);
        let read: LineageEvent = serde_json::from_str(LINE).expect("an event");
        assert_eq!(read, event());
    }
}
