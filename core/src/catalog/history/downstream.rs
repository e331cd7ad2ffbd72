//! Breaking changes announced downstream: when an import makes a version of a model with
//! breaking changes ([`super::compare`]), the objects downstream of the changed ones
//! (lineage edges as they were before the import, a bounded walk) are the ones it may
//! break, and the watchers of those objects (or of their models) are told what changed
//! and what is affected, each in words that name only what they may see now.

use std::collections::{BTreeMap, BTreeSet};

use super::History;
use super::compare::Found;
use crate::auth::Caller;
use crate::catalog::notifications::model_of;
use crate::error::Result;
use crate::id::ObjectId;
use crate::model::{CurationKind, EdgeKind, NotificationKind};

/// How many lineage steps downstream of a changed object are followed.
pub const DOWNSTREAM_DEPTH: u32 = 5;
/// The most objects the walk reads the edges of; past it, what lies further is not
/// reached (and the operation's log says so).
pub const MOST_DOWNSTREAM: usize = 2_000;
/// Changed objects, and affected ones, a message names before it says "and N more".
const NAMED: usize = 5;

/// What an import's breaking changes reach downstream, as the import's caller may see it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DownstreamReport {
    /// Objects of the model changed in a breaking way.
    pub breaking: usize,
    /// Their names with their reasons, the first few, for the operation's log.
    pub named: Vec<String>,
    /// Objects downstream of them (that the import's caller may see), in how many models.
    pub affected: usize,
    pub models: usize,
    /// Watchers told.
    pub notified: usize,
    /// Whether the walk stopped at [`MOST_DOWNSTREAM`] objects.
    pub truncated: bool,
}

/// "a, b, c and 2 more".
fn listed(names: &[String]) -> String {
    let shown = names
        .iter()
        .take(NAMED)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    match names.len().saturating_sub(NAMED) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

impl History<'_> {
    /// After an import that made version `to` of the model from `from` (the model's
    /// version before): the breaking changes between them, the objects downstream of the
    /// changed ones, and a notification to each watcher of those. Best effort: what fails
    /// is logged, and the import stands.
    pub(crate) async fn warn_downstream(
        &self,
        caller: &Caller,
        model: ObjectId,
        model_name: &str,
        from: i64,
        to: i64,
    ) -> Option<DownstreamReport> {
        match self.downstream(caller, model, model_name, from, to).await {
            Ok(report) => Some(report),
            Err(e) => {
                tracing::warn!(error = %e, %model, "cannot announce breaking changes downstream");
                None
            }
        }
    }

    async fn downstream(
        &self,
        caller: &Caller,
        model: ObjectId,
        model_name: &str,
        from: i64,
        to: i64,
    ) -> Result<DownstreamReport> {
        let (found, _) = self.differences(model, from, to).await?;
        let breaking: Vec<&Found> = found.iter().filter(|f| !f.reasons.is_empty()).collect();
        let mut report = DownstreamReport {
            breaking: breaking.len(),
            named: breaking
                .iter()
                .map(|f| format!("{} ({})", f.name, f.reasons.join(", ")))
                .collect(),
            ..DownstreamReport::default()
        };
        if breaking.is_empty() {
            return Ok(report);
        }
        let changed: BTreeSet<ObjectId> = breaking.iter().map(|f| f.id).collect();
        let (reached, truncated) = self.walk_downstream(&changed, from).await?;
        report.truncated = truncated;
        // What still exists: an object removed since affects no one now.
        let affected = self.stored_objects(&reached).await?;
        let seen = self.sight(caller).await?;
        let visible: Vec<_> = affected.iter().filter(|o| seen.sees(o)).collect();
        report.affected = visible.len();
        report.models = visible
            .iter()
            .map(|o| model_of(o.id))
            .collect::<BTreeSet<_>>()
            .len();

        // The watchers of each affected object, and of its model.
        let mut watched: BTreeMap<ObjectId, BTreeSet<ObjectId>> = BTreeMap::new();
        let mut models: BTreeMap<ObjectId, Vec<ObjectId>> = BTreeMap::new();
        for object in &affected {
            models
                .entry(model_of(object.id))
                .or_default()
                .push(object.id);
        }
        for (on, objects) in &models {
            let mut watchers: Vec<(ObjectId, ObjectId)> = Vec::new();
            for curation in self.store.curation(*on).await? {
                if curation.kind == CurationKind::Watch {
                    watchers.extend(objects.iter().map(|o| (curation.user, *o)));
                }
            }
            for object in objects.iter().filter(|o| *o != on) {
                for curation in self.store.curation(*object).await? {
                    if curation.kind == CurationKind::Watch {
                        watchers.push((curation.user, *object));
                    }
                }
            }
            for (user, object) in watchers {
                if user != caller.user() {
                    watched.entry(user).or_default().insert(object);
                }
            }
        }
        let names: BTreeMap<ObjectId, String> = affected
            .iter()
            .map(|o| (o.id, format!("'{}'", o.name)))
            .collect();
        for (user, objects) in watched {
            let Some(reader) = self.reader_of(user).await? else {
                continue;
            };
            let Ok(sight) = self.sight(&reader).await else {
                continue;
            };
            let theirs: Vec<String> = objects
                .iter()
                .filter(|o| sight.sees_id(**o))
                .filter_map(|o| names.get(o).cloned())
                .collect();
            let Some(first) = objects.iter().find(|o| sight.sees_id(**o)) else {
                continue;
            };
            let upstream = if sight.sees_id(model) {
                format!(
                    "model '{model_name}' was re-imported with {} breaking change{}: {}",
                    report.breaking,
                    if report.breaking == 1 { "" } else { "s" },
                    listed(&report.named)
                )
            } else {
                "a model upstream was re-imported with breaking changes".to_owned()
            };
            let message = format!(
                "{upstream}; downstream of them, you watch {}",
                listed(&theirs)
            );
            self.notify(
                &[user],
                NotificationKind::UpstreamChanged,
                model_of(*first),
                &message,
            )
            .await?;
            report.notified += 1;
        }
        Ok(report)
    }

    /// The objects downstream of `start` by the lineage edges current at `version`, at
    /// most [`DOWNSTREAM_DEPTH`] steps away, without `start`; and whether the walk
    /// stopped at [`MOST_DOWNSTREAM`] objects.
    async fn walk_downstream(
        &self,
        start: &BTreeSet<ObjectId>,
        version: i64,
    ) -> Result<(Vec<ObjectId>, bool)> {
        let mut seen: BTreeSet<ObjectId> = start.clone();
        let mut level: Vec<ObjectId> = start.iter().copied().collect();
        let mut read = 0usize;
        let mut truncated = false;
        for _ in 0..DOWNSTREAM_DEPTH {
            let mut next = Vec::new();
            for node in level {
                if read >= MOST_DOWNSTREAM {
                    truncated = true;
                    break;
                }
                read += 1;
                for edge in self.store.edges_as_of(node, version).await? {
                    if edge.kind == EdgeKind::Lineage
                        && edge.source == node
                        && seen.insert(edge.target)
                    {
                        next.push(edge.target);
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            level = next;
        }
        Ok((
            seen.into_iter().filter(|o| !start.contains(o)).collect(),
            truncated,
        ))
    }
}
