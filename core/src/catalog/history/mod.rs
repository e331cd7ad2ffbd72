//! History: what an object was, and what changed on it, by whom and when.
//!
//! Every write transaction of the store is a revision (its version, time and
//! [`Author`]); the rows of objects and of what hangs on them that a revision replaced
//! or removed are kept with the versions they were current in
//! ([`HistoryRecords`](crate::store::HistoryRecords)). This concern reads them for a
//! caller: an object's changes, newest first ([`History::object_changes`]), and an entity
//! as of a time or a version ([`History::get_entity_as_of`]).
//!
//! Sight is today's: an object the caller cannot see now has no history for them (the
//! same "not found" as a name that matches nothing), and a change of an edge whose other
//! end they cannot see is left out. A version or time the store does not keep is refused
//! with INVALID_PARAMETER saying why, never answered with today's state.

mod browse;
mod changes;
mod compare;
mod configurations;
mod downstream;
mod upstream;

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;
use serde_json::{Value as Json, json};

use super::Catalog;
use super::governance::curation::user_json;
use super::visibility::{not_found, require_view_somewhere};
use crate::auth::Caller;
use crate::error::{Error, Result};
use crate::id::{ObjectId, ObjectRef};
use crate::model::{Author, ObjectHistory, Revision, Timestamp, format_micros};
use crate::wire::Entity;

pub use changes::Change;
pub use compare::{CompareCounts, Comparison, Diff, ModelVersions, ObjectDiff, VersionView};
pub use configurations::{ConfigurationPin, PIN_ATTRIBUTE, PinnedModel};
pub use upstream::{UpstreamChange, UpstreamChanges};

/// The most images of each kind of row read for an object's history: the changes of an
/// object edited more often than this are cut to its newest ones (and say so).
pub const MAX_HISTORY_IMAGES: usize = 10_000;
/// Changes on one page of an object's history, when the caller asks for none.
pub const DEFAULT_CHANGES: usize = 50;
/// The most changes a caller may ask for on one page.
pub const MAX_CHANGES: usize = 500;

/// The history concern: see the module documentation.
#[derive(Debug, Clone, Copy)]
pub struct History<'c> {
    catalog: &'c Catalog,
}

impl Catalog {
    /// History: an object's changes and entities as of a time or a version.
    pub fn history(&self) -> History<'_> {
        History { catalog: self }
    }
}

impl std::ops::Deref for History<'_> {
    type Target = Catalog;
    fn deref(&self) -> &Catalog {
        self.catalog
    }
}

/// A moment of the catalog a caller asks for: a time, or a version (the catalog's
/// version after a write transaction, as `GET /history/objects/{objectId}` names them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AsOf {
    Version(i64),
    Time(Timestamp),
}

impl AsOf {
    /// An `asOf` as a client wrote it: an RFC 3339 time or a version id.
    pub fn parse(text: &str) -> Result<Self> {
        let text = text.trim();
        if !text.is_empty() && text.len() <= 19 && text.bytes().all(|b| b.is_ascii_digit()) {
            return text
                .parse()
                .map(Self::Version)
                .map_err(|_| Error::invalid(format!("asOf version {text} is out of range")));
        }
        match chrono::DateTime::parse_from_rfc3339(text) {
            Ok(time) => Ok(Self::Time(crate::model::micros(time.to_utc()))),
            Err(_) => {
                let shown: String = text.chars().take(64).collect();
                Err(Error::invalid(format!(
                    "asOf '{shown}' is neither an RFC 3339 time (such as 2026-11-29T10:00:00Z) \
                     nor a version id (such as 42)"
                )))
            }
        }
    }
}

/// A page of an object's changes, newest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectChanges {
    pub object_id: String,
    pub changes: Vec<Change>,
    /// Pass as `before` for the next page; absent on the last one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_before: Option<i64>,
    /// The history kept of this object was cut to its newest images
    /// ([`MAX_HISTORY_IMAGES`]): older changes are not listed.
    pub truncated: bool,
}

/// A page of the changes of server-wide roles, newest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GrantChanges {
    pub changes: Vec<Change>,
    /// Pass as `before` for the next page; absent on the last one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_before: Option<i64>,
    /// The history kept was cut to its newest images: older changes are not listed.
    pub truncated: bool,
}

/// The changes before the version `before` (all, without), newest first: at least
/// `limit` and whole versions (the last one on the page is never split), and the
/// `before` of the next page when there is one.
fn page_of(mut all: Vec<Change>, before: Option<i64>, limit: usize) -> (Vec<Change>, Option<i64>) {
    all.retain(|c| before.is_none_or(|b| c.version < b));
    all.sort_by_key(|c| std::cmp::Reverse(c.version));
    let mut page: Vec<Change> = Vec::new();
    for change in all {
        if page.len() >= limit && page.last().is_some_and(|l| l.version != change.version) {
            let next = page.last().map(|l| l.version);
            return (page, next);
        }
        page.push(change);
    }
    (page, None)
}

impl History<'_> {
    /// The kept revision a caller's `asOf` names: the version itself, or the newest
    /// revision at or before the time. A version not made yet, a time in the future and
    /// either older than the history kept are INVALID_PARAMETER.
    pub async fn revision_of(&self, as_of: AsOf) -> Result<Revision> {
        let span = self.store.history_span().await?;
        let kept = || {
            format!(
                "the history kept begins at {} (version {})",
                format_micros(&span.oldest.at),
                span.oldest.version
            )
        };
        let found = match as_of {
            AsOf::Version(version) => {
                if version > span.newest.version {
                    return Err(Error::invalid(format!(
                        "asOf version {version} has not been made yet: the newest is {}",
                        span.newest.version
                    )));
                }
                if version < span.oldest.version {
                    return Err(Error::invalid(format!(
                        "asOf version {version} is older than the history kept: {}",
                        kept()
                    )));
                }
                self.store.revision(version).await?
            }
            AsOf::Time(at) => {
                if at > crate::model::now() {
                    return Err(Error::invalid(format!(
                        "asOf {} is in the future",
                        format_micros(&at)
                    )));
                }
                if at < span.oldest.at {
                    return Err(Error::invalid(format!(
                        "asOf {} is older than the history kept: {}",
                        format_micros(&at),
                        kept()
                    )));
                }
                self.store.revision_at(at).await?
            }
        };
        found.ok_or_else(|| Error::invalid(format!("asOf names no kept version: {}", kept())))
    }

    /// The id of the object a caller asks the history of, if they may see it: an object
    /// that exists now is found as every read finds it; one deleted since (by id only) is
    /// judged by its last image, with today's sight.
    async fn target(&self, caller: &Caller, reference: &ObjectRef) -> Result<ObjectId> {
        require_view_somewhere(caller)?;
        match self.find(caller, reference).await {
            Ok(object) => return Ok(object.id),
            Err(e) if e.code != crate::ErrorCode::ObjectNotFound => return Err(e),
            Err(_) => {}
        }
        let ObjectRef::Id(id) = reference else {
            return Err(not_found(reference));
        };
        let last = self.store.object_history(*id, 1).await?.objects.pop();
        match last {
            // Deleted since: judged by what it was last.
            Some(image) if image.to.is_some() => {
                let object = self.shown(caller, reference, Some(image.row), None).await?;
                Ok(object.id)
            }
            // It exists, and `find` said the caller may not see it; or it never did.
            _ => Err(not_found(reference)),
        }
    }

    /// The object as it was at the revision `asOf` names, and that revision's version, if
    /// the caller may see it now and it existed then.
    pub(crate) async fn object_as_of(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
        as_of: AsOf,
    ) -> Result<(crate::model::Object, i64)> {
        let id = self.target(caller, reference).await?;
        let version = self.revision_of(as_of).await?.version;
        match self.store.entity_as_of(id, version).await?.0 {
            Some(object) => Ok((object, version)),
            None => Err(not_found(reference)),
        }
    }

    /// `GET /entities/{objectId}?asOf=`: the entity as it was at the revision `asOf`
    /// names, with today's sight; an object that did not exist then is not found.
    pub async fn get_entity_as_of(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
        as_of: AsOf,
    ) -> Result<Entity> {
        let id = self.target(caller, reference).await?;
        let revision = self.revision_of(as_of).await?;
        let (object, details) = self.entity_then(id, revision.version).await?;
        let object = object.ok_or_else(|| not_found(reference))?;
        let meta = self.meta_model_for(caller).await?;
        self.entity_with(&object, &details, &meta).await
    }

    /// `GET /relationships/{objectId}?asOf=`: the objects related to the object by an
    /// edge either way at the revision `asOf` names, as they were then, by name; those
    /// the caller cannot see now are left out. An object that did not exist then is not
    /// found.
    pub async fn relationships_as_of(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
        as_of: AsOf,
    ) -> Result<Vec<Entity>> {
        let (version, related) = self.related_as_of(caller, reference, as_of).await?;
        let meta = self.meta_model_for(caller).await?;
        let mut found = Vec::with_capacity(related.len());
        for id in related {
            if let (Some(object), details) = self.store.entity_as_of(id, version).await? {
                found.push((object, details));
            }
        }
        found.sort_by(|(a, _), (b, _)| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        let mut entities = Vec::with_capacity(found.len());
        for (object, details) in &found {
            entities.push(self.entity_with(object, details, &meta).await?);
        }
        Ok(entities)
    }

    /// `GET /relationships/count/{objectId}?asOf=`: how many objects
    /// [`History::relationships_as_of`] answers.
    pub async fn count_relationships_as_of(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
        as_of: AsOf,
    ) -> Result<u64> {
        Ok(self
            .relationships_as_of(caller, reference, as_of)
            .await?
            .len() as u64)
    }

    /// The version `asOf` names and the ids of the objects related to the object then
    /// that the caller may see now.
    async fn related_as_of(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
        as_of: AsOf,
    ) -> Result<(i64, Vec<ObjectId>)> {
        let id = self.target(caller, reference).await?;
        let version = self.revision_of(as_of).await?.version;
        if self.store.entity_as_of(id, version).await?.0.is_none() {
            return Err(not_found(reference));
        }
        let sight = self.sight(caller).await?;
        let related: BTreeSet<ObjectId> = self
            .store
            .edges_as_of(id, version)
            .await?
            .into_iter()
            .map(|e| if e.source == id { e.target } else { e.source })
            .filter(|other| *other != id && sight.sees_id(*other))
            .collect();
        Ok((version, related.into_iter().collect()))
    }

    /// `GET /history/objects/{objectId}`: the object's changes, newest first, at most
    /// `limit` (whole versions: the last one on a page is never split), before the
    /// version `before` when given.
    pub async fn object_changes(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
        before: Option<i64>,
        limit: Option<usize>,
    ) -> Result<ObjectChanges> {
        let limit = page_limit(limit, DEFAULT_CHANGES, MAX_CHANGES)?;
        let id = self.target(caller, reference).await?;
        let history = self.store.object_history(id, MAX_HISTORY_IMAGES).await?;
        let truncated = history.truncated;
        let mut all = changes::of(&history);
        // Edges and moves whose other end the caller cannot see now are left out; the
        // roles granted on the object only to who may manage them, as the grants are.
        let sight = self.sight(caller).await?;
        let capabilities = self.capabilities_on(caller, id).await?;
        let sees_grants = capabilities.contains(&crate::model::Capability::ManageRoles);
        all.retain(|c| match c.kind {
            "edge" | "moved" => c.others.iter().all(|o| sight.sees_id(*o)),
            "grant" => sees_grants,
            _ => true,
        });
        // The text of a comment or warning taken down is its author's and the curators'
        // to read again, no one else's.
        if !capabilities.contains(&crate::model::Capability::Curate) {
            let me = caller.user().to_string();
            for c in &mut all {
                if c.kind == "curation"
                    && c.new.is_null()
                    && c.old["userId"].as_str() != Some(me.as_str())
                    && let Some(old) = c.old.as_object_mut()
                {
                    old.remove("text");
                }
            }
        }
        let (mut page, next_before) = page_of(all, before, limit);
        self.describe(&mut page).await?;
        Ok(ObjectChanges {
            object_id: id.to_string(),
            changes: page,
            next_before,
            truncated,
        })
    }

    /// `GET /history/grants`: the grants and revocations of server-wide roles, newest
    /// first, paged as [`History::object_changes`] pages (ManageRoles globally). The
    /// roles granted on an object are in that object's changes.
    pub async fn server_grant_changes(
        &self,
        caller: &Caller,
        before: Option<i64>,
        limit: Option<usize>,
    ) -> Result<GrantChanges> {
        caller.require(crate::model::Capability::ManageRoles)?;
        let limit = page_limit(limit, DEFAULT_CHANGES, MAX_CHANGES)?;
        let (grants, truncated) = self.store.server_grant_history(MAX_HISTORY_IMAGES).await?;
        let history = ObjectHistory {
            grants,
            truncated,
            ..ObjectHistory::default()
        };
        let (mut page, next_before) = page_of(changes::of(&history), before, limit);
        self.describe(&mut page).await?;
        Ok(GrantChanges {
            changes: page,
            next_before,
            truncated,
        })
    }

    /// Gives each change the time and author of its revision.
    async fn describe(&self, changes: &mut [Change]) -> Result<()> {
        let versions: Vec<i64> = changes
            .iter()
            .map(|c| c.version)
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect();
        let revisions: HashMap<i64, Revision> = self
            .store
            .revisions(&versions)
            .await?
            .into_iter()
            .map(|r| (r.version, r))
            .collect();
        let mut users = HashMap::new();
        for revision in revisions.values() {
            if let Some(user) = revision.author.user
                && !users.contains_key(&user)
            {
                let found = self.store.user(user).await?;
                users.insert(user, user_json(found.as_ref(), user));
            }
        }
        for change in changes {
            if let Some(revision) = revisions.get(&change.version) {
                change.at = Some(format_micros(&revision.at));
                change.author = author_json(&revision.author, &users);
            }
        }
        Ok(())
    }
}

/// A page's `limit` as a caller asked for it: 1 to `most`, `default` when absent.
fn page_limit(limit: Option<usize>, default: usize, most: usize) -> Result<usize> {
    match limit {
        None => Ok(default),
        Some(0) => Err(Error::invalid("limit must be at least 1")),
        Some(n) if n > most => Err(Error::invalid(format!(
            "limit must be at most {most}, not {n}"
        ))),
        Some(n) => Ok(n),
    }
}

/// An author as a change shows it: its source, user and operation.
fn author_json(author: &Author, users: &HashMap<ObjectId, Json>) -> Json {
    json!({
        "source": author.source.as_str(),
        "user": author.user.and_then(|u| users.get(&u).cloned()),
        "operationId": author.operation,
    })
}
