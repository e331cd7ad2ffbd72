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

/// Objects read now with what hangs on them, the changed ones among `ids` replaced by
/// their images then.
fn replaced_then(
    (mut objects, mut details): (Vec<Object>, Details),
    ids: &[ObjectId],
    past: &Past,
) -> (Vec<Object>, Details) {
    let changed: HashSet<ObjectId> = ids
        .iter()
        .filter(|id| past.changed.contains(id))
        .copied()
        .collect();
    if changed.is_empty() {
        return (objects, details);
    }
    objects.retain(|o| !changed.contains(&o.id));
    details.attributes.retain(|a| !changed.contains(&a.object));
    details.tags.retain(|t| !changed.contains(&t.object));
    details
        .classifications
        .retain(|c| !changed.contains(&c.object));
    details.labels.retain(|l| !changed.contains(&l.object));
    details
        .edges
        .retain(|e| !changed.contains(&e.source) && !changed.contains(&e.target));
    details
        .profiling
        .retain(|p| !changed.contains(&p.object) || past.then.contains_key(&p.object));
    for id in &changed {
        if let Some(image) = past.then.get(id) {
            objects.push(image.object.clone());
            details.attributes.extend(image.attributes.iter().cloned());
            details.tags.extend(image.tags.iter().cloned());
            details
                .classifications
                .extend(image.classifications.iter().cloned());
            details.labels.extend(image.labels.iter().cloned());
            details.edges.extend(image.outgoing.iter().cloned());
            if let Some(incoming) = past.then_incoming.get(id) {
                details.edges.extend(incoming.iter().cloned());
            }
        }
    }
    objects.sort_by_key(|o| o.id);
    details.sort();
    (objects, details)
}

/// An image as an entity read answers it: the object, and what hangs on it with the
/// edges from it only.
fn image_read(image: &Image, id: ObjectId) -> (Option<Object>, Details) {
    let details = Details {
        attributes: image.attributes.clone(),
        edges: image
            .outgoing
            .iter()
            .filter(|e| e.source == id)
            .cloned()
            .collect(),
        tags: image.tags.clone(),
        classifications: image.classifications.clone(),
        labels: image.labels.clone(),
        profiling: Vec::new(),
    };
    (Some(image.object.clone()), details)
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
    /// The changed objects then, with the edges from them (`incoming` empty).
    pub then: Images,
    /// The edges to each changed object then: those from objects unchanged since (as
    /// they are now), and those from changed ones as they were.
    pub then_incoming: HashMap<ObjectId, Vec<Edge>>,
    pub now: Images,
}

/// The edges to each changed object as of the version, from what is kept of the changed
/// objects then and now: an edge from an unchanged object is as it is now (an edge added,
/// removed or changed since changed its source), one from a changed object is among its
/// edges then.
fn incoming_then(
    changed: &HashSet<ObjectId>,
    then: &Images,
    now: &Images,
) -> HashMap<ObjectId, Vec<Edge>> {
    let mut incoming: HashMap<ObjectId, Vec<Edge>> = HashMap::new();
    for id in changed {
        let from_unchanged = now
            .get(id)
            .into_iter()
            .flat_map(|image| image.incoming.iter())
            .filter(|e| !changed.contains(&e.source));
        for edge in from_unchanged {
            incoming.entry(*id).or_default().push(edge.clone());
        }
    }
    for image in then.values() {
        for edge in image
            .outgoing
            .iter()
            .filter(|e| changed.contains(&e.target))
        {
            incoming.entry(edge.target).or_default().push(edge.clone());
        }
    }
    for edges in incoming.values_mut() {
        edges.sort();
        edges.dedup();
    }
    incoming
}

/// The kept [`Past`]s, most recently used last, and the versions being read in the
/// background.
#[derive(Debug, Default)]
pub(crate) struct KeptPasts(Mutex<Vec<Arc<Past>>>, Mutex<HashSet<i64>>);

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
        let clock = std::time::Instant::now();
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
            // Each object's own images, through the keys of the kept tables: the edges
            // to it are worked out below from both ends' images.
            for (object, details) in self.store.entities_as_of(chunk, version).await? {
                if let Some(object) = object {
                    then.extend(images(vec![object], details));
                }
            }
        }
        for chunk in delta.chunks(CHUNK) {
            for id in chunk {
                now.remove(id);
            }
            let (objects, details) = self.stored_with_details(chunk).await?;
            now.extend(images(objects, details));
        }
        tracing::debug!(
            version,
            after,
            read = delta.len(),
            changed = changed.len(),
            elapsed_ms = clock.elapsed().as_secs_f64() * 1e3,
            "what changed since a version, read"
        );
        let then_incoming = incoming_then(&changed, &then, &now);
        let past = Arc::new(Past {
            version,
            oldest: span.oldest,
            through: span.newest,
            changed,
            then,
            then_incoming,
            now,
        });
        self.pasts.keep(Arc::clone(&past));
        Ok(Some(past))
    }

    /// What [`HistoryRecords::entity_as_of`](crate::store::HistoryRecords) answers of
    /// an object at a kept version, from the objects changed since it when they are kept
    /// ([`Catalog::past`]): its image then if it changed, else as it is now (nothing of it
    /// changed). When they are not kept yet, the store answers, and they are read in the
    /// background for the reads that follow.
    pub(crate) async fn entity_then(
        &self,
        id: ObjectId,
        version: i64,
    ) -> Result<(Option<Object>, Details)> {
        if self.pasts.get(version).is_none() {
            self.read_past_later(version);
            return self.store.entity_as_of(id, version).await;
        }
        if let Some(past) = self.past(version).await? {
            let read = match past.changed.contains(&id) {
                true => past.then.get(&id).map(|image| image_read(image, id)),
                false => {
                    let (objects, details) = self.stored_with_details(&[id]).await?;
                    images(objects, details).get(&id).map(|i| image_read(i, id))
                }
            };
            if self.still_at(&past).await? {
                return Ok(read.unwrap_or_default());
            }
        }
        self.store.entity_as_of(id, version).await
    }

    /// What [`HistoryRecords::objects_with_details_as_of`](crate::store::HistoryRecords)
    /// answers, from the objects changed since the version when they are kept: the
    /// changed ones as they were, the others as they are now (profiling, not kept, now for
    /// all). When they are not kept, the store answers.
    pub(crate) async fn objects_then(
        &self,
        ids: &[ObjectId],
        version: i64,
    ) -> Result<(Vec<Object>, Details)> {
        if self.pasts.get(version).is_some()
            && let Some(past) = self.past(version).await?
        {
            let read = self.stored_with_details(ids).await?;
            if self.still_at(&past).await? {
                return Ok(replaced_then(read, ids, &past));
            }
        }
        self.store.objects_with_details_as_of(ids, version).await
    }

    /// Reads what changed since the version in the background, once at a time.
    fn read_past_later(&self, version: i64) {
        {
            let mut reading = self.pasts.1.lock().unwrap_or_else(PoisonError::into_inner);
            if !reading.insert(version) {
                return;
            }
        }
        let catalog = self.clone();
        tokio::spawn(async move {
            if let Err(e) = catalog.past(version).await {
                tracing::warn!(error = %e, version, "reading what changed since a version");
            }
            let mut reading = catalog
                .pasts
                .1
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            reading.remove(&version);
        });
    }

    /// Whether the catalog is still at the revision the entry was read through: the
    /// check that today's statements read the state the entry describes.
    pub(super) async fn still_at(&self, past: &Past) -> Result<bool> {
        Ok(self.store.history_span().await?.newest == past.through)
    }
}
