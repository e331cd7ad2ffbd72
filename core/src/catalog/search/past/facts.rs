//! What a plan reads at one moment, for the objects a query as of a version tests
//! itself: the changed objects' images then (or now), and every other object as it is
//! now, which is as it was (nothing of it changed since). Unchanged objects are read as
//! the tests reach them: a test that asks for one not read yet records a miss
//! ([`Misses`]), the caller reads what was missed and tests again.

use std::cell::{OnceCell, RefCell};
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;

use super::kept::{Image, Images, Past};
use crate::id::ObjectId;
use crate::model::{
    ClassificationStatus, CurationKind, DataClass, Edge, EdgeKind, Object, Profiling,
    SensitivityLabel, TagKind, Value,
};
use crate::mql::eval::Facts;

/// Where an object's children are listed: (model, stored parent's object number).
pub(super) type ChildKey = (i64, Option<i64>);

/// The objects a query read as they are now, beside the changed ones, and what every
/// moment reads as it is now: definitions and curation.
#[derive(Debug, Default)]
pub(super) struct Loaded {
    pub images: Images,
    /// Objects read without what hangs on them (a test read only their columns so far).
    pub bare: HashMap<ObjectId, Object>,
    /// Objects read and not found: gone now (an edge's far end deleted since).
    pub absent: HashSet<ObjectId>,
    /// The children of each key now, by id.
    pub children: HashMap<ChildKey, Vec<ObjectId>>,
    /// The curation of the objects read (when the plan reads curation): kind and user's
    /// name.
    pub curation: HashMap<ObjectId, Vec<(CurationKind, String)>>,
    /// The objects whose curation was read.
    pub curated: HashSet<ObjectId>,
    /// The profiling of the objects read, when the plan reads it: as it is now.
    pub profiling: HashMap<ObjectId, Profiling>,
    /// The names of the curators met, `None` for a user gone.
    pub users: HashMap<ObjectId, Option<String>>,
    pub data_classes: BTreeMap<String, DataClass>,
    pub sensitivity_labels: BTreeMap<String, SensitivityLabel>,
}

/// What tests asked for that was not read yet.
#[derive(Debug, Default)]
pub(super) struct Misses {
    pub objects: BTreeSet<ObjectId>,
    /// Objects read bare whose attribute values, tags, edges... a test asked for.
    pub details: BTreeSet<ObjectId>,
    pub children: BTreeSet<ChildKey>,
}

impl Misses {
    pub fn is_empty(&self) -> bool {
        self.objects.is_empty() && self.details.is_empty() && self.children.is_empty()
    }

    pub fn add(&mut self, other: Misses) {
        self.objects.extend(other.objects);
        self.details.extend(other.details);
        self.children.extend(other.children);
    }
}

/// The catalog at one moment, as far as it was read.
pub(super) struct Moment<'a> {
    changed: &'a HashSet<ObjectId>,
    /// The changed objects' images at the moment (absent: none then).
    images: &'a Images,
    /// The edges to the changed objects, when the images hold only those from them.
    incoming: Option<&'a HashMap<ObjectId, Vec<Edge>>>,
    loaded: &'a Loaded,
    misses: RefCell<Misses>,
    /// The changed objects by their stored parent at the moment.
    by_parent: OnceCell<HashMap<ChildKey, Vec<ObjectId>>>,
}

impl<'a> Moment<'a> {
    /// The catalog as of the past's version.
    pub fn then(past: &'a Past, loaded: &'a Loaded) -> Self {
        Self::new(past, &past.then, Some(&past.then_incoming), loaded)
    }

    /// The catalog now (as of the past's newest revision).
    pub fn now(past: &'a Past, loaded: &'a Loaded) -> Self {
        Self::new(past, &past.now, None, loaded)
    }

    fn new(
        past: &'a Past,
        images: &'a Images,
        incoming: Option<&'a HashMap<ObjectId, Vec<Edge>>>,
        loaded: &'a Loaded,
    ) -> Self {
        Self {
            changed: &past.changed,
            images,
            incoming,
            loaded,
            misses: RefCell::default(),
            by_parent: OnceCell::new(),
        }
    }

    pub fn misses(self) -> Misses {
        self.misses.into_inner()
    }

    /// The object with what hangs on it; `None` (and a miss) for an object read bare.
    fn image(&self, id: ObjectId) -> Option<&'a Arc<Image>> {
        if self.changed.contains(&id) {
            return self.images.get(&id);
        }
        let found = self.loaded.images.get(&id);
        if found.is_none() {
            let mut misses = self.misses.borrow_mut();
            if self.loaded.bare.contains_key(&id) {
                misses.details.insert(id);
            } else if !self.loaded.absent.contains(&id) {
                misses.objects.insert(id);
            }
        }
        found
    }

    fn changed_by_parent(&self) -> &HashMap<ChildKey, Vec<ObjectId>> {
        self.by_parent.get_or_init(|| {
            let mut by_parent: HashMap<ChildKey, Vec<ObjectId>> = HashMap::new();
            for image in self.images.values() {
                let object = &image.object;
                by_parent
                    .entry(child_key_of(object))
                    .or_default()
                    .push(object.id);
            }
            by_parent
        })
    }
}

/// The key of the list an object is one of the children in.
fn child_key_of(object: &Object) -> ChildKey {
    (object.id.model, object.parent.map(|p| p.object))
}

impl Facts for Moment<'_> {
    fn object(&self, id: ObjectId) -> Option<&Object> {
        if self.changed.contains(&id) {
            return self.images.get(&id).map(|i| &i.object);
        }
        if let Some(image) = self.loaded.images.get(&id) {
            return Some(&image.object);
        }
        let found = self.loaded.bare.get(&id);
        if found.is_none() && !self.loaded.absent.contains(&id) {
            self.misses.borrow_mut().objects.insert(id);
        }
        found
    }

    fn children_of(&self, model: i64, parent: Option<i64>) -> Vec<&Object> {
        let key = (model, parent);
        let Some(now) = self.loaded.children.get(&key) else {
            self.misses.borrow_mut().children.insert(key);
            return Vec::new();
        };
        // Unchanged children are where they were; changed ones where they were then.
        let unchanged = now.iter().filter(|id| !self.changed.contains(id));
        let changed = self.changed_by_parent().get(&key).into_iter().flatten();
        unchanged
            .chain(changed)
            .filter_map(|id| self.object(*id))
            .collect()
    }

    fn attribute(&self, id: ObjectId, name: &str) -> Option<&Value> {
        self.image(id)?
            .attributes
            .iter()
            .find(|a| a.attribute == name)
            .map(|a| &a.value)
    }

    fn tags(&self, id: ObjectId, kind: TagKind) -> Vec<&str> {
        self.image(id)
            .into_iter()
            .flat_map(|i| i.tags.iter())
            .filter(|t| t.kind == kind)
            .map(|t| t.value.as_str())
            .collect()
    }

    fn classifications(&self, id: ObjectId) -> Vec<(&str, ClassificationStatus)> {
        self.image(id)
            .into_iter()
            .flat_map(|i| i.classifications.iter())
            .map(|c| (c.data_class.as_str(), c.status))
            .collect()
    }

    fn data_class(&self, name: &str) -> Option<&DataClass> {
        self.loaded.data_classes.get(name)
    }

    fn label_assignments(&self, id: ObjectId) -> Vec<(&str, ClassificationStatus)> {
        self.image(id)
            .into_iter()
            .flat_map(|i| i.labels.iter())
            .map(|l| (l.label.as_str(), l.status))
            .collect()
    }

    fn sensitivity_label(&self, name: &str) -> Option<&SensitivityLabel> {
        self.loaded.sensitivity_labels.get(name)
    }

    fn profiling(&self, id: ObjectId) -> Option<&Profiling> {
        if !self.changed.contains(&id) {
            // Read with what hangs on the object.
            self.image(id)?;
        }
        self.loaded.profiling.get(&id)
    }

    fn edge_names(&self, id: ObjectId, kind: EdgeKind, outgoing: bool) -> Vec<&str> {
        if !outgoing && let Some(incoming) = self.incoming.filter(|_| self.changed.contains(&id)) {
            return incoming
                .get(&id)
                .into_iter()
                .flatten()
                .filter(|e| e.kind == kind)
                .map(|e| e.name.as_str())
                .collect();
        }
        self.image(id)
            .into_iter()
            .flat_map(|i| if outgoing { &i.outgoing } else { &i.incoming })
            .filter(|e| e.kind == kind)
            .map(|e| e.name.as_str())
            .collect()
    }

    fn curators(&self, id: ObjectId, kind: CurationKind) -> Vec<&str> {
        self.loaded
            .curation
            .get(&id)
            .into_iter()
            .flatten()
            .filter(|(k, _)| *k == kind)
            .map(|(_, name)| name.as_str())
            .collect()
    }
}
