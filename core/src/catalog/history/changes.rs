//! An object's changes, worked out from the images its history keeps: where two images
//! of a row follow each other the row changed; where one ends with none after it, the row
//! was removed; where one begins with none before it, it was added.

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;
use serde_json::{Value as Json, json};

use crate::id::ObjectId;
use crate::model::{Object, ObjectHistory, TagKind, Versioned};

/// One change of an object, or of something on it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Change {
    /// The version the change was made in.
    pub version: i64,
    /// When (RFC 3339).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// Who: `source` (user, import, openlineage, data-mapping, propagation, restore,
    /// system), `user` and `operationId` where there are.
    pub author: Json,
    /// `created`, `deleted`, `moved`, `attribute`, `label`, `collection`, `dataClass`,
    /// `sensitivityLabel`, `edge`, `curation` (an endorsement, certification, comment,
    /// warning or watch) or `grant` (a role on the object).
    pub kind: &'static str,
    /// The attribute, label, collection, data class or sensitivity label; the edge's
    /// kind; the curation's kind (`endorsement`, `certification`, `comment`, `warning`,
    /// `watch`); the role granted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The value before (null: there was none).
    pub old: Json,
    /// The value after (null: there is none).
    pub new: Json,
    /// The other ends of a changed edge, or the parents of a move: the caller must see
    /// them all for the change to be listed.
    #[serde(skip)]
    pub(crate) others: Vec<ObjectId>,
}

impl Change {
    fn new(version: i64, kind: &'static str, name: Option<String>, old: Json, new: Json) -> Self {
        Self {
            version,
            at: None,
            author: Json::Null,
            kind,
            name,
            old,
            new,
            others: Vec::new(),
        }
    }
}

/// The system attributes a change of the object's row shows, as the entity names them.
fn system_attributes(o: &Object) -> [(&'static str, Json); 11] {
    [
        ("Name", json!(o.name)),
        ("Physical Name", json!(o.physical_name)),
        ("Description", json!(o.description)),
        ("Business Name", json!(o.business_name)),
        ("Business Description", json!(o.business_description)),
        ("Data Type", json!(o.data_type)),
        ("External Url", json!(o.external_url)),
        ("Hide Data", json!(o.hide_data)),
        ("Workflow State", json!(o.workflow_state)),
        ("Object Type", json!(o.object_type.qualified())),
        ("Native Id", json!(o.native_id)),
    ]
}

fn summary(o: &Object) -> Json {
    json!({"name": o.name, "objectType": o.object_type.qualified()})
}

/// Every change the history shows, in no particular order.
pub(super) fn of(history: &ObjectHistory) -> Vec<Change> {
    let mut out = Vec::new();
    let deleted = object_changes(&history.objects, &mut out);
    rows(
        &history.attributes,
        |a| a.attribute.clone(),
        |a| ("attribute", Some(a.attribute.clone()), json!(a.value)),
        &deleted,
        &mut out,
    );
    rows(
        &history.tags,
        |t| (t.kind, t.value.clone()),
        |t| {
            let kind = match t.kind {
                TagKind::Label => "label",
                TagKind::Collection => "collection",
            };
            (kind, Some(t.value.clone()), json!(t.value))
        },
        &deleted,
        &mut out,
    );
    rows(
        &history.classifications,
        |c| c.data_class.clone(),
        |c| {
            (
                "dataClass",
                Some(c.data_class.clone()),
                json!(c.status.as_str()),
            )
        },
        &deleted,
        &mut out,
    );
    rows(
        &history.labels,
        |l| l.label.clone(),
        |l| {
            (
                "sensitivityLabel",
                Some(l.label.clone()),
                json!(l.status.as_str()),
            )
        },
        &deleted,
        &mut out,
    );
    rows(
        &history.curation,
        |c| c.id,
        |c| {
            let mut value = json!({"userId": c.user.to_string()});
            if !c.text.is_empty() {
                value["text"] = json!(c.text);
            }
            ("curation", Some(c.kind.as_str().to_owned()), value)
        },
        &deleted,
        &mut out,
    );
    rows(
        &history.grants,
        |g| (g.grantee, g.role.clone()),
        |g| {
            (
                "grant",
                Some(g.role.clone()),
                json!({"granteeId": g.grantee.to_string()}),
            )
        },
        &deleted,
        &mut out,
    );
    let first_edge = out.len();
    rows(
        &history.edges,
        |e| (e.kind, e.target, e.name.clone()),
        |e| {
            (
                "edge",
                Some(e.kind.as_str().to_owned()),
                json!({"targetId": e.target.to_string(), "name": e.name}),
            )
        },
        &deleted,
        &mut out,
    );
    for change in &mut out[first_edge..] {
        change.others.extend(edge_target(change));
        if change.others.is_empty() {
            // An edge whose end cannot be read is never shown.
            change.others.push(ObjectId::new(i64::MIN, i64::MIN));
        }
    }
    // Cut histories: what came before the newest of the lists' oldest images is not
    // known whole, so nothing before it is listed (an oldest image is no creation).
    if history.truncated {
        let floor = [
            history.objects.first().map(|i| i.from),
            history.attributes.first().map(|i| i.from),
            history.edges.first().map(|i| i.from),
            history.tags.first().map(|i| i.from),
            history.classifications.first().map(|i| i.from),
            history.labels.first().map(|i| i.from),
            history.curation.first().map(|i| i.from),
            history.grants.first().map(|i| i.from),
        ]
        .into_iter()
        .flatten()
        .max()
        .unwrap_or(0);
        out.retain(|c| c.version > floor);
    }
    out
}

/// The other end of an edge change, as its value names it.
fn edge_target(change: &Change) -> Option<ObjectId> {
    let value = if change.new.is_null() {
        &change.old
    } else {
        &change.new
    };
    let text = value.get("targetId")?.as_str()?;
    match crate::id::ObjectRef::parse(text) {
        Ok(crate::id::ObjectRef::Id(id)) => Some(id),
        _ => None,
    }
}

/// The changes of the object's own row; answers the versions it was deleted in.
fn object_changes(images: &[Versioned<Object>], out: &mut Vec<Change>) -> BTreeSet<i64> {
    let mut deleted = BTreeSet::new();
    let mut previous: Option<&Versioned<Object>> = None;
    for image in images {
        match previous {
            Some(p) if p.to == Some(image.from) => {
                if p.row.parent != image.row.parent {
                    let mut moved = Change::new(
                        image.from,
                        "moved",
                        None,
                        json!(p.row.parent.map(|p| p.to_string())),
                        json!(image.row.parent.map(|p| p.to_string())),
                    );
                    moved.others = [p.row.parent, image.row.parent]
                        .into_iter()
                        .flatten()
                        .collect();
                    out.push(moved);
                }
                let before = system_attributes(&p.row);
                for ((name, old), (_, new)) in before.into_iter().zip(system_attributes(&image.row))
                {
                    if old != new {
                        out.push(Change::new(
                            image.from,
                            "attribute",
                            Some(name.to_owned()),
                            old,
                            new,
                        ));
                    }
                }
            }
            _ => {
                if let Some(p) = previous
                    && let Some(to) = p.to
                {
                    deleted.insert(to);
                    out.push(Change::new(
                        to,
                        "deleted",
                        None,
                        summary(&p.row),
                        Json::Null,
                    ));
                }
                if image.from > 0 {
                    out.push(Change::new(
                        image.from,
                        "created",
                        None,
                        Json::Null,
                        summary(&image.row),
                    ));
                }
            }
        }
        previous = Some(image);
    }
    if let Some(p) = previous
        && let Some(to) = p.to
    {
        deleted.insert(to);
        out.push(Change::new(
            to,
            "deleted",
            None,
            summary(&p.row),
            Json::Null,
        ));
    }
    deleted
}

/// The changes of the rows of one kind hanging on the object, by key: a value replaced,
/// a row added or removed. Rows that went with the object's deletion are not listed
/// apart.
fn rows<T, K: Ord>(
    images: &[Versioned<T>],
    key: impl Fn(&T) -> K,
    describe: impl Fn(&T) -> (&'static str, Option<String>, Json),
    deleted: &BTreeSet<i64>,
    out: &mut Vec<Change>,
) {
    let mut by_key: BTreeMap<K, Vec<&Versioned<T>>> = BTreeMap::new();
    for image in images {
        by_key.entry(key(&image.row)).or_default().push(image);
    }
    for images in by_key.values() {
        let mut previous: Option<&Versioned<T>> = None;
        for image in images {
            let (kind, name, value) = describe(&image.row);
            match previous {
                Some(p) if p.to == Some(image.from) => {
                    let (_, _, old) = describe(&p.row);
                    if old != value {
                        out.push(Change::new(image.from, kind, name, old, value));
                    }
                }
                _ => {
                    if let Some(p) = previous
                        && let Some(to) = p.to
                        && !deleted.contains(&to)
                    {
                        let (_, _, old) = describe(&p.row);
                        out.push(Change::new(to, kind, name.clone(), old, Json::Null));
                    }
                    if image.from > 0 {
                        out.push(Change::new(image.from, kind, name, Json::Null, value));
                    }
                }
            }
            previous = Some(image);
        }
        if let Some(p) = previous
            && let Some(to) = p.to
            && !deleted.contains(&to)
        {
            let (kind, name, old) = describe(&p.row);
            out.push(Change::new(to, kind, name, old, Json::Null));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{
        AttributeValue, Edge, EdgeKind, ObjectKind, SystemType, Tag, TypeName, Value,
    };

    fn table(name: &str, parent: Option<ObjectId>) -> Object {
        let mut o = Object::new(
            ObjectId::new(7, 1),
            ObjectKind::ModelObject,
            TypeName::new("Database", "Table"),
            SystemType::Classifier,
            name,
        );
        o.parent = parent;
        o
    }

    fn image<T>(from: i64, to: Option<i64>, row: T) -> Versioned<T> {
        Versioned { from, to, row }
    }

    fn kinds(changes: &[Change]) -> Vec<(i64, &'static str, Option<&str>, Json, Json)> {
        let mut list: Vec<_> = changes
            .iter()
            .map(|c| {
                (
                    c.version,
                    c.kind,
                    c.name.as_deref(),
                    c.old.clone(),
                    c.new.clone(),
                )
            })
            .collect();
        list.sort_by(|a, b| (a.0, a.1, a.2).cmp(&(b.0, b.1, b.2)));
        list
    }

    #[test]
    fn images_become_changes() {
        let id = ObjectId::new(7, 1);
        let folder = Some(ObjectId::new(7, 9));
        let attr = |v: i64| AttributeValue {
            object: id,
            attribute: "Rows".into(),
            value: Value::Integer(v),
        };
        let label = Tag {
            object: id,
            kind: TagKind::Label,
            value: "PII".into(),
        };
        let edge = Edge {
            kind: EdgeKind::Lineage,
            source: id,
            target: ObjectId::new(7, 2),
            name: "load".into(),
            origin: None,
        };
        let history = ObjectHistory {
            objects: vec![
                image(3, Some(5), table("orders", None)),
                image(5, Some(6), table("sales", None)),
                image(6, Some(8), table("sales", folder)),
            ],
            attributes: vec![image(3, Some(4), attr(1)), image(4, Some(8), attr(2))],
            tags: vec![image(4, Some(7), label.clone())],
            edges: vec![image(0, Some(8), edge)],
            ..ObjectHistory::default()
        };
        let changes = of(&history);
        assert_eq!(
            kinds(&changes),
            vec![
                (3, "attribute", Some("Rows"), Json::Null, json!(1)),
                (
                    3,
                    "created",
                    None,
                    Json::Null,
                    json!({"name": "orders", "objectType": "Database.Table"})
                ),
                (4, "attribute", Some("Rows"), json!(1), json!(2)),
                (4, "label", Some("PII"), Json::Null, json!("PII")),
                (
                    5,
                    "attribute",
                    Some("Name"),
                    json!("orders"),
                    json!("sales")
                ),
                (6, "moved", None, Json::Null, json!("7_9")),
                (7, "label", Some("PII"), json!("PII"), Json::Null),
                (
                    8,
                    "deleted",
                    None,
                    json!({"name": "sales", "objectType": "Database.Table"}),
                    Json::Null
                ),
            ],
            "rows that went with the deletion are not listed apart; an edge from before \
             history began has no addition"
        );
        let edge_changes: Vec<&Change> = changes.iter().filter(|c| c.kind == "edge").collect();
        assert!(edge_changes.is_empty(), "{edge_changes:?}");
        let moved = changes.iter().find(|c| c.kind == "moved").expect("a move");
        assert_eq!(
            moved.others,
            vec![ObjectId::new(7, 9)],
            "a move names its parents"
        );
    }

    #[test]
    fn a_cut_history_lists_only_what_follows_its_oldest_images() {
        let history = ObjectHistory {
            objects: vec![
                image(5, Some(6), table("orders", None)),
                image(6, None, table("sales", None)),
            ],
            tags: vec![image(
                3,
                None,
                Tag {
                    object: ObjectId::new(7, 1),
                    kind: TagKind::Label,
                    value: "PII".into(),
                },
            )],
            truncated: true,
            ..ObjectHistory::default()
        };
        assert_eq!(
            kinds(&of(&history)),
            vec![(
                6,
                "attribute",
                Some("Name"),
                json!("orders"),
                json!("sales")
            )],
            "the oldest kept image of a cut history is no creation"
        );
    }
}
