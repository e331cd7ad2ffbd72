//! The entity reads a process keeps, so that reading an entity again costs a check of
//! one number instead of the object with everything hanging on it.
//!
//! `GET /entities/{id}` reads an object, its attribute values, the edges from it, its
//! tags and classifications: one statement of five index lookups (six with the key's
//! check), which on PostgreSQL costs about twice the executor time of a statement that
//! reads two rows by key (`pgbench`, 8 clients: 8,200–9,200 against 16,000–18,000 per
//! second). What is kept is the read of one object with the version of its model
//! (migration 28) read in the same statement. The version moves in every write
//! transaction that changes the model's objects or what hangs on them, in the same
//! transaction, and a version is never given twice; so while the model's version read
//! now equals the kept one, the kept read is what a read now would answer. A later read
//! of the object reads that version alone (with the key's check, when asked), and the
//! whole entity only when it moved. A write by any process over the same database is
//! seen by the next read everywhere, as without the cache.
//!
//! Kept: objects that exist (a missing one is read each time), weighed by about the
//! memory they take, at most [`KEPT_BYTES`] in all; the coldest go first.

use lore_core::ObjectId;
use lore_core::model::{AttributeValue, Classification, Edge, Object, Tag, Value};
use lore_core::store::Details;
use quick_cache::Weighter;
use quick_cache::sync::Cache;
use std::sync::Arc;

/// The bytes of kept reads, as [`weight`] counts them.
pub(crate) const KEPT_BYTES: u64 = 16 << 20;

/// One object's entity read, at a version of its model.
#[derive(Debug)]
pub(crate) struct KeptEntity {
    pub version: i64,
    pub object: Object,
    pub details: Details,
    bytes: u64,
}

impl KeptEntity {
    pub fn new(version: i64, object: Object, details: Details) -> Self {
        let bytes = weight(&object, &details);
        Self {
            version,
            object,
            details,
            bytes,
        }
    }
}

#[derive(Debug, Clone, Copy)]
struct Bytes;

impl Weighter<ObjectId, Arc<KeptEntity>> for Bytes {
    fn weight(&self, _: &ObjectId, kept: &Arc<KeptEntity>) -> u64 {
        kept.bytes
    }
}

/// The kept entity reads of a store and its clones.
#[derive(Debug)]
pub(crate) struct KeptEntities(Cache<ObjectId, Arc<KeptEntity>, Bytes>);

impl Default for KeptEntities {
    fn default() -> Self {
        // About 2 KB an entity: an object with a few attribute values and tags.
        Self(Cache::with_weighter(
            (KEPT_BYTES / 2048) as usize,
            KEPT_BYTES,
            Bytes,
        ))
    }
}

impl KeptEntities {
    pub fn get(&self, id: &ObjectId) -> Option<Arc<KeptEntity>> {
        self.0.get(id)
    }

    pub fn keep(&self, kept: KeptEntity) {
        self.0.insert(kept.object.id, Arc::new(kept));
    }

    pub fn forget(&self, id: &ObjectId) {
        self.0.remove(id);
    }
}

/// About what a kept read holds in memory: its structs, and each text with what the
/// allocator adds to it.
fn weight(object: &Object, details: &Details) -> u64 {
    use std::mem::size_of;
    const ALLOCATION: usize = 16;
    let text = |t: &str| {
        if t.is_empty() {
            0
        } else {
            t.len() + ALLOCATION
        }
    };
    let maybe = |t: &Option<String>| t.as_deref().map_or(0, text);
    let object_bytes = size_of::<KeptEntity>()
        + ALLOCATION
        + text(&object.name)
        + text(&object.object_type.name)
        + text(&object.object_type.profile)
        + [
            &object.physical_name,
            &object.native_id,
            &object.stable_id,
            &object.description,
            &object.business_name,
            &object.business_description,
            &object.data_type,
            &object.external_url,
            &object.workflow_state,
        ]
        .into_iter()
        .map(maybe)
        .sum::<usize>();
    let rows = |count: usize, size: usize| {
        if count == 0 {
            0
        } else {
            count * size + ALLOCATION
        }
    };
    let attributes = rows(details.attributes.len(), size_of::<AttributeValue>())
        + details
            .attributes
            .iter()
            .map(|a| {
                text(&a.attribute)
                    + match &a.value {
                        Value::Text(t) => text(t),
                        _ => 0,
                    }
            })
            .sum::<usize>();
    let edges = rows(details.edges.len(), size_of::<Edge>())
        + details.edges.iter().map(|e| text(&e.name)).sum::<usize>();
    let tags = rows(details.tags.len(), size_of::<Tag>())
        + details.tags.iter().map(|t| text(&t.value)).sum::<usize>();
    let classes = rows(details.classifications.len(), size_of::<Classification>())
        + details
            .classifications
            .iter()
            .map(|c| text(&c.data_class))
            .sum::<usize>();
    (object_bytes + attributes + edges + tags + classes) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_core::model::{ObjectKind, SystemType, TypeName};

    fn object(n: i64, description: usize) -> Object {
        let mut o = Object::new(
            ObjectId::new(5, n),
            ObjectKind::ModelObject,
            TypeName::new("ER", "Table"),
            SystemType::Classifier,
            "customer",
        );
        o.description = Some("d".repeat(description));
        o
    }

    #[test]
    fn a_kept_read_weighs_its_text() {
        let small = KeptEntity::new(1, object(1, 0), Details::default());
        let mut details = Details::default();
        details.attributes.push(AttributeValue {
            object: ObjectId::new(5, 1),
            attribute: "Comment".into(),
            value: Value::Text("c".repeat(1000)),
        });
        let large = KeptEntity::new(1, object(1, 5000), details);
        assert!(small.bytes < 1024, "{}", small.bytes);
        assert!(large.bytes > 6000, "{}", large.bytes);
    }

    #[test]
    fn kept_reads_stay_within_their_bytes() {
        let kept = KeptEntities::default();
        // 100 KB each: at most about 160 of 1,000 stay.
        for n in 0..1000 {
            kept.keep(KeptEntity::new(1, object(n, 100_000), Details::default()));
        }
        assert!(kept.0.weight() <= KEPT_BYTES, "{}", kept.0.weight());
        assert!(kept.0.len() <= 170, "{}", kept.0.len());
        let id = ObjectId::new(5, 999);
        kept.forget(&id);
        assert!(kept.get(&id).is_none());
    }
}
