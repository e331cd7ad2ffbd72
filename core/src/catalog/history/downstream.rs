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
/// The most objects the walk reads the edges of, and reaches; past it, what lies
/// further is not reached (and the operation's log says so).
pub const MOST_DOWNSTREAM: usize = 2_000;
/// The most lineage edges followed from one object.
const MOST_FAN_OUT: usize = 1_000;
/// The most watchers told of one import.
const MOST_WATCHERS: usize = 1_000;
/// Changed objects, and affected ones, a message names before it says "and N more".
const NAMED: usize = 5;

/// What an import's breaking changes reach downstream, as the import's caller may see it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DownstreamReport {
    /// Objects of the model changed in a breaking way.
    pub breaking: usize,
    /// Their names with their reasons, for the operation's log.
    pub named: Vec<String>,
    /// Objects downstream of them the import's caller may see (through objects they may
    /// see), in how many models.
    pub affected: usize,
    pub models: usize,
    /// Watchers told.
    pub notified: usize,
    /// Whether more objects changed than a compare works out, or the walk stopped at
    /// [`MOST_DOWNSTREAM`] objects: there may be more than is said.
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

/// The lineage downstream of the changed objects, as it was: each object's targets.
pub(super) struct Walk {
    pub(super) start: BTreeSet<ObjectId>,
    pub(super) targets: BTreeMap<ObjectId, Vec<ObjectId>>,
    pub(super) truncated: bool,
}

impl Walk {
    /// The objects a reader reaches from the start through objects they see (a path
    /// through an object they cannot see tells them nothing), without the start.
    pub(super) fn reached(&self, sees: impl Fn(ObjectId) -> bool) -> BTreeSet<ObjectId> {
        let mut reached = BTreeSet::new();
        let mut level: Vec<ObjectId> = self.start.iter().copied().collect();
        for _ in 0..DOWNSTREAM_DEPTH {
            let mut next = Vec::new();
            for node in level {
                for target in self.targets.get(&node).into_iter().flatten() {
                    if !self.start.contains(target) && sees(*target) && reached.insert(*target) {
                        next.push(*target);
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            level = next;
        }
        reached
    }
}

impl History<'_> {
    /// After an import that made the model's version `to`, against the state `from`
    /// just before it: the breaking changes between them, the objects downstream of the
    /// changed ones, and a notification to each watcher of those. Best effort: what
    /// fails is logged, and the import stands.
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
        // The state before is gone when the history was purged up to the import.
        if from < self.store.history_span().await?.oldest.version {
            return Ok(DownstreamReport::default());
        }
        let (found, cut) = self.differences(model, from, to).await?;
        let breaking: Vec<&Found> = found.iter().filter(|f| !f.reasons.is_empty()).collect();
        let mut report = DownstreamReport {
            breaking: breaking.len(),
            named: breaking
                .iter()
                .map(|f| format!("{} ({})", f.name, f.reasons.join(", ")))
                .collect(),
            truncated: cut,
            ..DownstreamReport::default()
        };
        if breaking.is_empty() {
            return Ok(report);
        }
        let walk = self
            .walk_downstream(breaking.iter().map(|f| f.id).collect(), from)
            .await?;
        report.truncated |= walk.truncated;
        let all = walk.reached(|_| true);
        // What still exists: an object removed since affects no one now.
        let ids: Vec<ObjectId> = all.into_iter().collect();
        let exists: BTreeSet<ObjectId> = self
            .stored_objects(&ids)
            .await?
            .into_iter()
            .map(|o| o.id)
            .collect();
        let seen = self.sight(caller).await?;
        let visible = walk.reached(|o| seen.sees_id(o));
        let affected: Vec<ObjectId> = visible.intersection(&exists).copied().collect();
        report.affected = affected.len();
        report.models = affected
            .iter()
            .map(|o| model_of(*o))
            .collect::<BTreeSet<_>>()
            .len();
        // The pages of what it reaches say it too; the watchers are told whatever
        // becomes of that.
        if !exists.is_empty()
            && let Err(e) = self
                .keep_announcement(
                    caller,
                    (model, model_name),
                    to,
                    (report.breaking, &report.named),
                    &walk,
                )
                .await
        {
            tracing::warn!(error = %e, %model, "cannot keep the announcement of breaking changes");
        }

        // The watchers of each object reached, and of its model.
        let mut models: BTreeSet<ObjectId> = BTreeSet::new();
        let mut watched: BTreeMap<ObjectId, BTreeSet<ObjectId>> = BTreeMap::new();
        let reached: Vec<ObjectId> = exists.iter().copied().collect();
        for chunk in reached.chunks(500) {
            for curation in self.store.curation_of(chunk).await? {
                if curation.kind == CurationKind::Watch {
                    watched
                        .entry(curation.user)
                        .or_default()
                        .insert(curation.object);
                }
            }
            models.extend(chunk.iter().map(|o| model_of(*o)));
        }
        let models: Vec<ObjectId> = models.into_iter().collect();
        for chunk in models.chunks(500) {
            for curation in self.store.curation_of(chunk).await? {
                if curation.kind == CurationKind::Watch {
                    // A model's watcher watches what of it was reached.
                    let of_model = exists
                        .iter()
                        .filter(|o| model_of(**o) == curation.object)
                        .copied();
                    watched.entry(curation.user).or_default().extend(of_model);
                }
            }
        }
        watched.remove(&caller.user());
        if watched.len() > MOST_WATCHERS {
            report.truncated = true;
        }
        let names: BTreeMap<ObjectId, String> = self
            .stored_objects(&reached)
            .await?
            .into_iter()
            .map(|o| (o.id, format!("'{}'", o.name)))
            .collect();
        let upstream = format!(
            "model '{model_name}' was re-imported with {} breaking change{}: {}",
            report.breaking,
            if report.breaking == 1 { "" } else { "s" },
            listed(&report.named)
        );
        // One notification per distinct message, to every watcher it is for.
        let mut messages: BTreeMap<(ObjectId, String), Vec<ObjectId>> = BTreeMap::new();
        for (user, objects) in watched.into_iter().take(MOST_WATCHERS) {
            let Some(reader) = self.reader_of(user).await? else {
                continue;
            };
            let Ok(sight) = self.sight(&reader).await else {
                continue;
            };
            // A reader who cannot see the changed model is told nothing of it.
            if !sight.sees_id(model) {
                continue;
            }
            let theirs = walk.reached(|o| sight.sees_id(o));
            let named: Vec<String> = objects
                .iter()
                .filter(|o| theirs.contains(o))
                .filter_map(|o| names.get(o).cloned())
                .collect();
            let Some(first) = objects.iter().find(|o| theirs.contains(o)) else {
                continue;
            };
            let message = format!(
                "{upstream}; downstream of them, you watch {}",
                listed(&named)
            );
            messages
                .entry((model_of(*first), message))
                .or_default()
                .push(user);
        }
        for ((about, message), users) in messages {
            self.notify(&users, NotificationKind::UpstreamChanged, about, &message)
                .await?;
            report.notified += users.len();
        }
        Ok(report)
    }

    /// The lineage edges current at `version` downstream of `start`, at most
    /// [`DOWNSTREAM_DEPTH`] steps away, [`MOST_FAN_OUT`] edges from an object and
    /// [`MOST_DOWNSTREAM`] objects read.
    async fn walk_downstream(&self, start: BTreeSet<ObjectId>, version: i64) -> Result<Walk> {
        let mut seen: BTreeSet<ObjectId> = start.clone();
        let mut level: Vec<ObjectId> = start.iter().copied().collect();
        let mut targets: BTreeMap<ObjectId, Vec<ObjectId>> = BTreeMap::new();
        let mut truncated = false;
        'walk: for _ in 0..DOWNSTREAM_DEPTH {
            let mut next = Vec::new();
            for node in level {
                if targets.len() >= MOST_DOWNSTREAM {
                    truncated = true;
                    break 'walk;
                }
                let out: Vec<ObjectId> = self
                    .store
                    .edges_as_of(node, version)
                    .await?
                    .into_iter()
                    .filter(|e| e.kind == EdgeKind::Lineage && e.source == node)
                    .map(|e| e.target)
                    .take(MOST_FAN_OUT)
                    .collect();
                for target in &out {
                    if seen.len() < MOST_DOWNSTREAM + start.len() && seen.insert(*target) {
                        next.push(*target);
                    } else if !seen.contains(target) {
                        truncated = true;
                    }
                }
                targets.insert(node, out);
            }
            if next.is_empty() {
                break;
            }
            level = next;
        }
        // Edges to objects never read are kept only where the object was reached.
        for out in targets.values_mut() {
            out.retain(|t| seen.contains(t));
        }
        Ok(Walk {
            start,
            targets,
            truncated,
        })
    }
}
