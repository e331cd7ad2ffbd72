//! What changed since a version, kept between queries: the objects a revision after it
//! touched ([`HistoryRecords::objects_changed_after`](crate::store::HistoryRecords)),
//! each as it was then and as it is now.
//!
//! What an object was at a kept version never changes, so an entry only grows: when the
//! catalog moves on, the objects changed since the entry's newest revision are added
//! (their images then read once) and read again as they are now. An entry answers only
//! while the history it was read from stands: its oldest revision the same (a restore or
//! a purge changes it) and its newest still kept as it was.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use crate::catalog::Catalog;
use crate::error::Result;
use crate::id::ObjectId;
use crate::model::{AttributeValue, Classification, Edge, LabelAssignment, Object, Revision, Tag};
use crate::store::Details;

/// More objects changed since a version than this, and a query as of it is read by the
/// store's own statements, which read the whole tables as they were.
pub(super) const MOST_CHANGED: usize = 25_000;
/// Versions kept at once, each with at most [`MOST_CHANGED`] objects twice.
const KEPT: usize = 2;
/// Objects read per store call.
pub(super) const CHUNK: usize = 2_000;

/// An object and what hangs on it, at one moment.
#[derive(Debug)]
pub(super) struct Image {
    pub object: Object,
    pub attributes: Vec<AttributeValue>,
    pub tags: Vec<Tag>,
    pub classifications: Vec<Classification>,
    pub labels: Vec<LabelAssignment>,
    pub outgoing: Vec<Edge>,
    pub incoming: Vec<Edge>,
}

/// Images by object.
pub(super) type Images = HashMap<ObjectId, Arc<Image>>;

/// The objects of one read with what hangs on them, as [`Image`]s.
pub(super) fn images(objects: Vec<Object>, details: Details) -> Images {
    let mut drafts: HashMap<ObjectId, Image> = objects
        .into_iter()
        .map(|object| {
            let image = Image {
                object,
                attributes: Vec::new(),
                tags: Vec::new(),
                classifications: Vec::new(),
                labels: Vec::new(),
                outgoing: Vec::new(),
                incoming: Vec::new(),
            };
            (image.object.id, image)
        })
        .collect();
    for a in details.attributes {
        if let Some(image) = drafts.get_mut(&a.object) {
            image.attributes.push(a);
        }
    }
    for t in details.tags {
        if let Some(image) = drafts.get_mut(&t.object) {
            image.tags.push(t);
        }
    }
    for c in details.classifications {
        if let Some(image) = drafts.get_mut(&c.object) {
            image.classifications.push(c);
        }
    }
    for l in details.labels {
        if let Some(image) = drafts.get_mut(&l.object) {
            image.labels.push(l);
        }
    }
    for e in details.edges {
        if let Some(image) = drafts.get_mut(&e.source) {
            image.outgoing.push(e.clone());
        }
        if let Some(image) = drafts.get_mut(&e.target) {
            image.incoming.push(e);
        }
    }
    drafts
        .into_iter()
        .map(|(id, image)| (id, Arc::new(image)))
        .collect()
}

/// The objects changed after a version: each as it was then (absent: it did not exist)
/// and as it was at `through` (absent: it is gone).
#[derive(Debug)]
pub(super) struct Past {
    pub version: i64,
    /// The oldest revision kept when the entry was read.
    oldest: Revision,
    /// The newest revision whose changes the entry holds.
    pub through: Revision,
    pub changed: HashSet<ObjectId>,
    pub then: Images,
    pub now: Images,
}

/// The kept [`Past`]s, most recently used last.
#[derive(Debug, Default)]
pub(crate) struct KeptPasts(Mutex<Vec<Arc<Past>>>);

impl KeptPasts {
    fn get(&self, version: i64) -> Option<Arc<Past>> {
        let kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        kept.iter().find(|p| p.version == version).cloned()
    }

    fn keep(&self, past: Arc<Past>) {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        kept.retain(|p| p.version != past.version);
        kept.push(past);
        let extra = kept.len().saturating_sub(KEPT);
        kept.drain(..extra);
    }

    fn forget(&self, version: i64) {
        let mut kept = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        kept.retain(|p| p.version != version);
    }
}

impl Catalog {
    /// The objects changed since the kept `version`, up to the newest revision; `None`
    /// when more than [`MOST_CHANGED`] did.
    pub(super) async fn past(&self, version: i64) -> Result<Option<Arc<Past>>> {
        let span = self.store.history_span().await?;
        let kept = self
            .pasts
            .get(version)
            .filter(|p| p.oldest == span.oldest && p.through.version <= span.newest.version);
        let base = match kept {
            Some(kept) if kept.through == span.newest => return Ok(Some(kept)),
            Some(kept)
                if self.store.revision(kept.through.version).await? == Some(kept.through) =>
            {
                Some(kept)
            }
            _ => None,
        };
        let after = base.as_ref().map_or(version, |b| b.through.version);
        let delta = self
            .store
            .objects_changed_after(after, MOST_CHANGED + 1)
            .await?;
        let (mut changed, mut then, mut now) = match &base {
            Some(b) => (b.changed.clone(), b.then.clone(), b.now.clone()),
            None => Default::default(),
        };
        let fresh: Vec<ObjectId> = delta
            .iter()
            .filter(|id| !changed.contains(id))
            .copied()
            .collect();
        changed.extend(delta.iter().copied());
        if changed.len() > MOST_CHANGED {
            self.pasts.forget(version);
            return Ok(None);
        }
        for chunk in fresh.chunks(CHUNK) {
            let (objects, details) = self
                .store
                .objects_with_details_as_of(chunk, version)
                .await?;
            then.extend(images(objects, details));
        }
        for chunk in delta.chunks(CHUNK) {
            for id in chunk {
                now.remove(id);
            }
            let (objects, details) = self.stored_with_details(chunk).await?;
            now.extend(images(objects, details));
        }
        let past = Arc::new(Past {
            version,
            oldest: span.oldest,
            through: span.newest,
            changed,
            then,
            now,
        });
        self.pasts.keep(Arc::clone(&past));
        Ok(Some(past))
    }

    /// Whether the catalog is still at the revision the entry was read through: the
    /// check that today's statements read the state the entry describes.
    pub(super) async fn still_at(&self, past: &Past) -> Result<bool> {
        Ok(self.store.history_span().await?.newest == past.through)
    }
}
