//! Import prints ([`Op::SetImportPrint`]): a print stays until its object, or what hangs
//! on it, changes, and is read back page by page with what a re-import matches objects
//! by. The SQL backends forget prints in triggers (migration 20), the memory backend in
//! its writes; a re-import that trusted a print its object outlived would leave a
//! changed object as it is.

use std::collections::BTreeMap;
use std::sync::Arc;

use lore_core::id::ObjectId;
use lore_core::model::*;
use lore_core::store::{Op, Store};

use super::{apply, ids, model_object, new_model, ok};

const MASK: u32 = 0x1_003f;

fn print(object: ObjectId, n: u64) -> Op {
    Op::SetImportPrint(ImportPrint {
        object,
        mask: MASK,
        // The high bit set: the whole 64 bits must come back.
        print: u64::MAX - n,
    })
}

/// Every object of the model with its print, read in pages of 3.
async fn prints(store: &dyn Store, model: i64) -> BTreeMap<ObjectId, Option<(u32, u64)>> {
    let mut seen = BTreeMap::new();
    let mut after = None;
    loop {
        let page = ok(
            store.model_prints_page(model, after, 3).await,
            "model_prints_page",
        );
        assert!(page.len() <= 3, "a page holds at most `limit` objects");
        let Some(last) = page.last() else { break };
        after = Some(last.id.object);
        for object in page {
            assert!(
                seen.insert(object.id, object.print).is_none(),
                "each object once"
            );
        }
    }
    seen
}

fn edge(source: ObjectId, target: ObjectId) -> Edge {
    Edge {
        kind: EdgeKind::Lineage,
        source,
        target,
        name: String::new(),
        origin: None,
    }
}

pub async fn import_prints_are_forgotten_when_their_object_changes(store: Arc<dyn Store>) {
    let store = &*store;
    let (_, model) = new_model(store, "printed").await;
    let (_, other_model) = new_model(store, "other").await;
    let o = ids(store, model, 16).await;
    let target = o[12];
    let far = ids(store, other_model, 1).await[0];

    // Sixteen objects, each with an attribute; edges to `target` from 3 and 9, from
    // `target` to 11, and from 13 to an object of another model.
    let mut ops = Vec::new();
    for (n, id) in o.iter().enumerate() {
        let mut object = model_object(model, id.object, None, &format!("o{n}"));
        object.created_at = super::at(1_700_000_000_123 + n as i64);
        if n == 1 {
            object.parent = Some(o[0]);
        }
        ops.push(Op::PutObject(object));
        ops.push(Op::SetAttribute(AttributeValue {
            object: *id,
            attribute: "Row Count".into(),
            value: Value::Integer(n as i64),
        }));
    }
    ops.push(Op::PutObject(model_object(
        other_model,
        far.object,
        None,
        "far",
    )));
    ops.push(Op::AddEdge(edge(o[3], target)));
    ops.push(Op::AddEdge(edge(o[9], target)));
    ops.push(Op::AddEdge(edge(target, o[11])));
    ops.push(Op::AddEdge(edge(o[13], far)));
    ops.push(Op::AddTag(Tag {
        object: o[4],
        kind: TagKind::Label,
        value: "PII".into(),
    }));
    apply(store, ops, "writing the objects").await;
    let none = prints(store, model).await;
    assert_eq!(none.len(), 16, "every object of the model, none other");
    assert!(none.values().all(Option::is_none), "no print yet: {none:?}");

    // Each print is read back whole, with what a re-import matches by.
    let ops = o
        .iter()
        .enumerate()
        .map(|(n, id)| print(*id, n as u64))
        .collect();
    apply(store, ops, "storing prints").await;
    let page = ok(
        store.model_prints_page(model, None, 2).await,
        "the first page",
    );
    assert_eq!(page.len(), 2);
    assert_eq!(page[1].id, o[1]);
    assert_eq!(
        page[1].native_id.as_deref(),
        Some(&*format!("native.{}", o[1].object))
    );
    assert_eq!(page[1].parent, Some(o[0]));
    assert_eq!(page[1].created_at, super::at(1_700_000_000_124));
    assert_eq!(page[1].print, Some((MASK, u64::MAX - 1)));
    let all = prints(store, model).await;
    for (n, id) in o.iter().enumerate() {
        assert_eq!(
            all[id],
            Some((MASK, u64::MAX - n as u64)),
            "the print of o{n}"
        );
    }

    // One change per object, each a different kind of write.
    let mut edited = model_object(model, o[8].object, None, "o8");
    edited.description = Some("edited".into());
    let writes = vec![
        (
            0,
            "an attribute set",
            Op::SetAttribute(AttributeValue {
                object: o[0],
                attribute: "Row Count".into(),
                value: Value::Integer(100),
            }),
        ),
        (
            1,
            "an attribute removed",
            Op::RemoveAttribute {
                object: o[1],
                attribute: "Row Count".into(),
            },
        ),
        (2, "an edge added from it", Op::AddEdge(edge(o[2], o[10]))),
        (
            3,
            "an edge from it removed",
            Op::RemoveEdge(edge(o[3], target)),
        ),
        (
            4,
            "a tag removed",
            Op::RemoveTag(Tag {
                object: o[4],
                kind: TagKind::Label,
                value: "PII".into(),
            }),
        ),
        (
            5,
            "a classification set",
            Op::SetClassification(Classification {
                object: o[5],
                data_class: "Email".into(),
                status: ClassificationStatus::Approved,
            }),
        ),
        (
            6,
            "a sensitivity label set",
            Op::SetLabelAssignment(LabelAssignment {
                object: o[6],
                label: "Secret".into(),
                status: ClassificationStatus::Approved,
            }),
        ),
        (
            7,
            "profiling set",
            Op::SetProfiling(Profiling {
                object: o[7],
                profile: Some(DataProfile::default()),
                sample: None,
            }),
        ),
        (8, "the object updated", Op::PutObject(edited)),
        (
            14,
            "an attribute added",
            Op::SetAttribute(AttributeValue {
                object: o[14],
                attribute: "Owner".into(),
                value: Value::Text("someone".into()),
            }),
        ),
        (
            15,
            "a tag added",
            Op::AddTag(Tag {
                object: o[15],
                kind: TagKind::Collection,
                value: "Finance".into(),
            }),
        ),
    ];
    let mut changed = Vec::new();
    for (n, what, op) in writes {
        apply(store, vec![op], what).await;
        changed.push(n);
        let now = prints(store, model).await;
        assert_eq!(now[&o[n]], None, "{what} forgets the print of o{n}");
        for k in (0..16).filter(|k| !changed.contains(k)) {
            assert!(
                now[&o[k]].is_some(),
                "{what} on o{n} keeps the print of o{k}"
            );
        }
    }

    // Deleting the target of an edge takes the edge, and the print of its source; the
    // target of an edge from the deleted object keeps its print.
    apply(store, vec![Op::DeleteObject(target)], "deleting the target").await;
    let now = prints(store, model).await;
    assert!(!now.contains_key(&target), "the deleted object is gone");
    assert_eq!(
        now[&o[9]], None,
        "the source of an edge to a deleted object"
    );
    assert!(
        now[&o[11]].is_some(),
        "the target of its edge keeps its print"
    );
    assert!(now[&o[10]].is_some(), "an unrelated object keeps its print");

    // Writes on an object of another model leave this model's prints, even one with an
    // edge to it; deleting that object forgets the print of the edge's source.
    apply(
        store,
        vec![Op::SetAttribute(AttributeValue {
            object: far,
            attribute: "Row Count".into(),
            value: Value::Integer(1),
        })],
        "a write in another model",
    )
    .await;
    assert!(prints(store, model).await[&o[13]].is_some());
    apply(
        store,
        vec![Op::DeleteObject(far)],
        "deleting the far target",
    )
    .await;
    assert_eq!(prints(store, model).await[&o[13]], None);

    // Inside one batch, op order counts: a print before a change is forgotten, one after
    // it kept.
    apply(
        store,
        vec![
            print(o[10], 1),
            Op::AddTag(Tag {
                object: o[10],
                kind: TagKind::Label,
                value: "late".into(),
            }),
            Op::AddTag(Tag {
                object: o[11],
                kind: TagKind::Label,
                value: "early".into(),
            }),
            print(o[11], 2),
        ],
        "a print before and a print after a change",
    )
    .await;
    let now = prints(store, model).await;
    assert_eq!(now[&o[10]], None, "the print written before the tag");
    assert_eq!(
        now[&o[11]],
        Some((MASK, u64::MAX - 2)),
        "the print written after"
    );

    // Clearing the model forgets every print: objects put again under the same ids
    // have none.
    apply(store, vec![Op::ClearModel(model)], "clearing the model").await;
    assert!(prints(store, model).await.is_empty());
    apply(
        store,
        vec![Op::PutObject(model_object(
            model,
            o[11].object,
            None,
            "again",
        ))],
        "the object again",
    )
    .await;
    assert_eq!(prints(store, model).await[&o[11]], None);
}
