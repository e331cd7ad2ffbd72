//! The memory store's own check: large batches stay fast, without copying the store.
//! The Store contract (atomicity, ordering, sessions, ...) is checked on every backend
//! by `lore-conformance` (`tests/store_memory.rs`).

use std::time::Instant;

use lore_backend_memory::MemoryStore;
use lore_core::ObjectId;
use lore_core::model::{
    AttributeValue, Edge, EdgeKind, Object, ObjectKind, SystemType, TypeName, Value,
};
use lore_core::store::prelude::*;
use lore_core::store::{Batch, Op};

fn object(id: ObjectId, parent: Option<ObjectId>, name: &str) -> Object {
    let kind = if id.is_repository() {
        ObjectKind::Folder
    } else {
        ObjectKind::ModelObject
    };
    let mut o = Object::new(
        id,
        kind,
        TypeName::new("P", "T"),
        SystemType::Classifier,
        name,
    );
    o.parent = parent;
    if !id.is_repository() {
        o.stable_id = Some(format!("s{}_{}", id.model, id.object));
    }
    o
}

/// Importing 10k objects (with attributes and edges) into a store of 100k objects, and
/// clearing that model again, must not copy the store.
#[tokio::test]
async fn large_batches_stay_fast() {
    let store = MemoryStore::new();
    let batch_of = |model: i64, count: i64| -> Batch {
        let mut batch = Batch::new();
        for i in 1..=count {
            let id = ObjectId::new(model, i);
            let parent = (i > 1).then(|| ObjectId::new(model, 1 + (i - 2) / 50));
            batch.push(Op::PutObject(object(id, parent, &format!("o{i}"))));
            batch.push(Op::SetAttribute(AttributeValue {
                object: id,
                attribute: "a".into(),
                value: Value::Integer(i),
            }));
            if let Some(parent) = parent {
                batch.push(Op::AddEdge(Edge {
                    kind: EdgeKind::Lineage,
                    source: parent,
                    target: id,
                    name: String::new(),
                    origin: None,
                }));
            }
        }
        batch
    };
    for model in 1..=10 {
        store.apply(batch_of(model, 10_000)).await.expect("fill");
    }
    let started = Instant::now();
    store.apply(batch_of(11, 10_000)).await.expect("import");
    let import = started.elapsed();
    let started = Instant::now();
    store
        .apply(vec![Op::ClearModel(11)].into())
        .await
        .expect("clear");
    let clear = started.elapsed();
    assert!(store.model_objects(11).await.expect("objects").is_empty());
    assert_eq!(
        store.model_objects(10).await.expect("objects").len(),
        10_000
    );
    // Generous bounds for debug builds on a slow machine; a whole-state copy is far slower.
    assert!(
        import.as_secs_f64() < 2.0,
        "importing 10k objects took {import:?}"
    );
    assert!(
        clear.as_secs_f64() < 2.0,
        "clearing 10k objects took {clear:?}"
    );
}
