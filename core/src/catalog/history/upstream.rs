//! Breaking changes on the pages of what they reach: each announcement downstream
//! ([`super::downstream`]) is kept as a document — the changed model and version, what
//! broke, and the lineage walked as it was — so an object downstream says, to each
//! reader, the breaking changes upstream of it that reach it through objects they see,
//! as a watcher is told. The newest [`KEPT`] announcements are kept.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::History;
use super::downstream::Walk;
use crate::auth::Caller;
use crate::error::Result;
use crate::id::{ObjectId, ObjectRef};
use crate::model::{Document, DocumentKind, Timestamp, format_micros};
use crate::store::Op;

/// How many announcements are kept (the newest).
pub const KEPT: usize = 20;
/// The most lineage edges an announcement keeps of its walk, so every object page that
/// reads the kept announcements reads little: past it, objects further down are not
/// told (their watchers were).
const MOST_EDGES: usize = 5_000;
/// The document that lists the kept announcements, newest first.
const LIST: &str = "announcements";

/// An announcement as kept.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Announcement {
    model: ObjectId,
    model_name: String,
    version: i64,
    at: Timestamp,
    breaking: usize,
    /// The first breaking changes, as `"salary (type changed)"`.
    named: Vec<String>,
    start: BTreeSet<ObjectId>,
    targets: Vec<(ObjectId, Vec<ObjectId>)>,
}

/// A breaking change upstream of an object, as one reader may read of it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UpstreamChange {
    pub model_id: String,
    pub model_name: String,
    /// The version the import made (its catalog version, as `asOf` takes it).
    pub version: i64,
    pub at: String,
    /// How many objects broke, and the first of them with their reasons.
    pub breaking: usize,
    pub changes: Vec<String>,
}

/// The breaking changes upstream of an object, newest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UpstreamChanges {
    pub object_id: String,
    pub upstream: Vec<UpstreamChange>,
}

/// The walk's edges nearest its start first (breadth first), at most [`MOST_EDGES`].
fn nearest_edges(walk: &Walk) -> Vec<(ObjectId, Vec<ObjectId>)> {
    let mut left = MOST_EDGES;
    let mut kept = Vec::new();
    let mut seen: BTreeSet<ObjectId> = walk.start.clone();
    let mut level: Vec<ObjectId> = walk.start.iter().copied().collect();
    while !level.is_empty() && left > 0 {
        let mut next = Vec::new();
        for node in level {
            let Some(targets) = walk.targets.get(&node) else {
                continue;
            };
            let some: Vec<ObjectId> = targets.iter().take(left).copied().collect();
            left -= some.len();
            next.extend(some.iter().filter(|t| seen.insert(**t)).copied());
            kept.push((node, some));
            if left == 0 {
                break;
            }
        }
        level = next;
    }
    kept
}

fn name_of(model: ObjectId, version: i64) -> String {
    format!("{model}@{version}")
}

impl History<'_> {
    /// Keeps an announcement, and forgets those past the newest [`KEPT`].
    pub(super) async fn keep_announcement(
        &self,
        caller: &Caller,
        (model, model_name): (ObjectId, &str),
        version: i64,
        (breaking, named): (usize, &[String]),
        walk: &Walk,
    ) -> Result<()> {
        let announcement = Announcement {
            model,
            model_name: model_name.to_owned(),
            version,
            at: crate::model::now(),
            breaking,
            named: named.iter().take(20).cloned().collect(),
            start: walk.start.clone(),
            targets: nearest_edges(walk),
        };
        let name = name_of(model, version);
        let mut list = self.announcements().await?;
        list.retain(|n| *n != name);
        list.insert(0, name.clone());
        let gone = list.split_off(list.len().min(KEPT));
        let document = |name: String, body: serde_json::Value| {
            Op::PutDocument(Document {
                kind: DocumentKind::Announcement,
                owner: None,
                name,
                body,
                updated_at: crate::model::now(),
                updated_by: Some(caller.user()),
            })
        };
        let mut ops = vec![
            document(
                name,
                serde_json::to_value(&announcement).map_err(|e| {
                    crate::error::Error::internal(format!("an announcement as JSON: {e}"))
                })?,
            ),
            document(LIST.to_owned(), serde_json::json!(list)),
        ];
        ops.extend(gone.into_iter().map(|name| Op::DeleteDocument {
            kind: DocumentKind::Announcement,
            owner: None,
            name,
        }));
        self.write(caller.author(), ops).await
    }

    /// The names of the kept announcements, newest first.
    async fn announcements(&self) -> Result<Vec<String>> {
        let list = self
            .store
            .document(DocumentKind::Announcement, None, LIST)
            .await?;
        Ok(list
            .and_then(|d| serde_json::from_value(d.body).ok())
            .unwrap_or_default())
    }

    /// `GET /history/objects/{objectId}/upstream`: the breaking changes upstream that
    /// reach the object, newest first, as the caller may read of them: only of a model
    /// they see, reaching it through objects they see (the lineage as it was before the
    /// change), as its watchers are told.
    pub async fn upstream_changes(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
    ) -> Result<UpstreamChanges> {
        let object = self.find(caller, reference).await?.id;
        let sight = self.sight(caller).await?;
        let mut upstream = Vec::new();
        for name in self.announcements().await? {
            let Some(document) = self
                .store
                .document(DocumentKind::Announcement, None, &name)
                .await?
            else {
                continue;
            };
            let Ok(a) = serde_json::from_value::<Announcement>(document.body) else {
                continue;
            };
            if !sight.sees_id(a.model) {
                continue;
            }
            let walk = Walk {
                start: a.start,
                targets: a.targets.into_iter().collect::<BTreeMap<_, _>>(),
                truncated: false,
            };
            if !walk.reached(|o| sight.sees_id(o)).contains(&object) {
                continue;
            }
            upstream.push(UpstreamChange {
                model_id: a.model.to_string(),
                model_name: a.model_name,
                version: a.version,
                at: format_micros(&a.at),
                breaking: a.breaking,
                changes: a.named,
            });
        }
        Ok(UpstreamChanges {
            object_id: object.to_string(),
            upstream,
        })
    }
}
