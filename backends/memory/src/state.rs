//! The state of a memory store: the catalog in ordered maps and sets, with the indexes
//! the reads need, and the primitives that set one entry and keep those indexes.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Bound;

use lore_core::id::ObjectId;
use lore_core::model::{
    AttributeType, ClassificationStatus, Curation, DataClass, Delivery, Document, DocumentKind,
    Edge, EdgeKind, Grant, Group, LineageEvent, LineageRun, LoginFailures, Membership,
    Notification, Object, ObjectKind, ObjectType, Profiling, Role, SensitivityLabel, Session, Tag,
    Timestamp, TypeName, User, Value, Worksheet,
};

/// The smallest id of a model's id space, to start range scans.
pub(crate) const fn first_of(model: i64) -> ObjectId {
    ObjectId::new(model, i64::MIN)
}

/// The smallest object id, to start range scans over one parent's children.
pub(crate) const MIN_ID: ObjectId = ObjectId::new(i64::MIN, i64::MIN);

/// The smallest grant, to start range scans over one object's grants.
pub(crate) const MIN_GRANT: Grant = Grant {
    grantee: MIN_ID,
    role: String::new(),
    object: None,
};

/// An edge as the outgoing index keys it: source, kind, target, name.
pub(crate) type EdgeKey = (ObjectId, EdgeKind, ObjectId, String);

/// The identity of a document: kind, owner, name.
pub(crate) type DocumentKey = (DocumentKind, Option<ObjectId>, String);

/// An entry of the children index: model, parent, name, id.
type ChildKey = (i64, Option<ObjectId>, String, ObjectId);

/// The whole catalog in memory, with the indexes the reads need.
#[derive(Debug, Default, Clone)]
pub(crate) struct State {
    pub(crate) objects: BTreeMap<ObjectId, Object>,
    /// (model, parent, name, id) of every object: children and child-by-name lookups.
    pub(crate) children: BTreeSet<ChildKey>,
    pub(crate) by_stable_id: HashMap<String, ObjectId>,
    /// (name, id) of the objects of each kind.
    pub(crate) by_kind: HashMap<ObjectKind, BTreeSet<(String, ObjectId)>>,
    pub(crate) attributes: BTreeMap<(ObjectId, String), Value>,
    /// Edges keyed (source, kind, target, name).
    pub(crate) edges_out: BTreeSet<EdgeKey>,
    /// The same edges keyed (target, kind, source, name).
    pub(crate) edges_in: BTreeSet<EdgeKey>,
    /// The origin of each edge that has one ([`Edge::origin`]), by its outgoing key.
    pub(crate) edge_origins: HashMap<EdgeKey, String>,
    pub(crate) tags: BTreeSet<Tag>,
    pub(crate) classifications: BTreeMap<(ObjectId, String), ClassificationStatus>,
    pub(crate) labels: BTreeMap<(ObjectId, String), ClassificationStatus>,
    pub(crate) profiling: BTreeMap<ObjectId, Profiling>,
    /// Import prints (mask, print) by object; every write to an object or what hangs
    /// on it forgets its print.
    pub(crate) prints: BTreeMap<ObjectId, (u32, u64)>,
    /// Attribute types by name (names are unique among stored attribute types).
    pub(crate) attribute_types: BTreeMap<String, AttributeType>,
    /// Object types by (profile, name).
    pub(crate) object_types: BTreeMap<TypeName, ObjectType>,
    pub(crate) data_classes: BTreeMap<String, DataClass>,
    pub(crate) sensitivity_labels: BTreeMap<String, SensitivityLabel>,
    pub(crate) roles: BTreeMap<String, Role>,
    pub(crate) users: BTreeMap<ObjectId, User>,
    /// Lowercased user name to user id.
    pub(crate) user_names: HashMap<String, ObjectId>,
    pub(crate) groups: BTreeMap<ObjectId, Group>,
    /// Lowercased group name to group id.
    pub(crate) group_names: HashMap<String, ObjectId>,
    /// Memberships by group, then user.
    pub(crate) members: BTreeSet<Membership>,
    /// The same memberships as (user, group).
    pub(crate) member_of: BTreeSet<(ObjectId, ObjectId)>,
    pub(crate) grants: BTreeSet<Grant>,
    /// (object, grant) of every grant on an object.
    pub(crate) grants_on: BTreeSet<(ObjectId, Grant)>,
    pub(crate) sessions: HashMap<String, Session>,
    pub(crate) login_failures: HashMap<String, LoginFailures>,
    pub(crate) worksheets: BTreeMap<ObjectId, Worksheet>,
    /// (owner, name, id) of every worksheet: an owner's worksheets in name order.
    pub(crate) worksheets_by_owner: BTreeSet<(ObjectId, String, ObjectId)>,
    /// (owner, name key) to worksheet id: names unique per owner, case-insensitively.
    pub(crate) worksheet_names: HashMap<(ObjectId, String), ObjectId>,
    /// Notifications by id.
    pub(crate) notifications: BTreeMap<i64, Notification>,
    /// The outbox of notifications, by id.
    pub(crate) deliveries: BTreeMap<i64, Delivery>,
    /// Curation entries by id, and their (object, id) keys.
    pub(crate) curation: BTreeMap<i64, Curation>,
    pub(crate) curation_by_object: BTreeSet<(ObjectId, i64)>,
    /// Documents by (kind, owner, name).
    pub(crate) documents: BTreeMap<DocumentKey, Document>,
    /// OpenLineage events by digest.
    pub(crate) lineage_events: BTreeMap<String, LineageEvent>,
    /// (run id, event time, digest) of every event with a run id: a run's events in order.
    pub(crate) lineage_events_by_run: BTreeSet<(String, Timestamp, String)>,
    /// Runs by id.
    pub(crate) lineage_runs: BTreeMap<String, LineageRun>,
    /// Moves with every write of attribute types, data classes, labels and roles.
    pub(crate) meta_version: i64,
    /// Moves with every op that [changes access](lore_core::store::Op::changes_access).
    pub(crate) access_version: i64,
    /// The revisions and the replaced images of the kept tables.
    pub(crate) history: crate::history::History,
}

pub(crate) fn user_key(name: &str) -> String {
    name.to_lowercase()
}

impl State {
    /// At most `limit` objects of the model number whose object number is above `after`
    /// (from the first with `None`), by id.
    pub(crate) fn model_page(
        &self,
        model: i64,
        after: Option<i64>,
        limit: usize,
    ) -> impl Iterator<Item = &Object> + '_ {
        let first = match after {
            Some(after) => Bound::Excluded(ObjectId::new(model, after)),
            None => Bound::Included(first_of(model)),
        };
        self.objects
            .range((first, Bound::Included(ObjectId::new(model, i64::MAX))))
            .take(limit)
            .map(|(_, o)| o)
    }

    // ---- primitives: each sets one entry, keeps the indexes and returns the old entry

    pub(crate) fn set_object(&mut self, id: ObjectId, object: Option<Object>) -> Option<Object> {
        let old = match object {
            Some(object) => self.objects.insert(id, object),
            None => self.objects.remove(&id),
        };
        if let Some(old) = &old {
            self.children
                .remove(&(old.id.model, old.parent, old.name.clone(), old.id));
            if let Some(stable) = &old.stable_id
                && self.by_stable_id.get(stable) == Some(&old.id)
            {
                self.by_stable_id.remove(stable);
            }
            if let Some(set) = self.by_kind.get_mut(&old.kind) {
                set.remove(&(old.name.clone(), old.id));
            }
        }
        if let Some(new) = self.objects.get(&id) {
            self.children
                .insert((new.id.model, new.parent, new.name.clone(), new.id));
            if let Some(stable) = &new.stable_id {
                self.by_stable_id.insert(stable.clone(), new.id);
            }
            self.by_kind
                .entry(new.kind)
                .or_default()
                .insert((new.name.clone(), new.id));
        }
        old
    }

    pub(crate) fn set_attribute(
        &mut self,
        object: ObjectId,
        name: String,
        value: Option<Value>,
    ) -> Option<Value> {
        match value {
            Some(value) => self.attributes.insert((object, name), value),
            None => self.attributes.remove(&(object, name)),
        }
    }

    /// Adds or removes an edge; answers whether it was there. An edge added where one of
    /// the same kind, ends and name is keeps the stored one's origin.
    pub(crate) fn set_edge(&mut self, edge: Edge, present: bool) -> bool {
        let out = (edge.source, edge.kind, edge.target, edge.name);
        let inc = (out.2, out.1, out.0, out.3.clone());
        if present {
            self.edges_in.insert(inc);
            let new = self.edges_out.insert(out.clone());
            if new && let Some(origin) = edge.origin {
                self.edge_origins.insert(out, origin);
            }
            !new
        } else {
            self.edges_in.remove(&inc);
            self.edge_origins.remove(&out);
            self.edges_out.remove(&out)
        }
    }

    /// The origin of the stored edge of the same kind, ends and name.
    pub(crate) fn edge_origin(&self, edge: &Edge) -> Option<String> {
        self.edge_origins
            .get(&(edge.source, edge.kind, edge.target, edge.name.clone()))
            .cloned()
    }

    pub(crate) fn set_tag(&mut self, tag: Tag, present: bool) -> bool {
        if present {
            !self.tags.insert(tag)
        } else {
            self.tags.remove(&tag)
        }
    }

    pub(crate) fn set_grant(&mut self, grant: Grant, present: bool) -> bool {
        if let Some(object) = grant.object {
            if present {
                self.grants_on.insert((object, grant.clone()));
            } else {
                self.grants_on.remove(&(object, grant.clone()));
            }
        }
        if present {
            !self.grants.insert(grant)
        } else {
            self.grants.remove(&grant)
        }
    }

    pub(crate) fn set_user(&mut self, id: ObjectId, user: Option<User>) -> Option<User> {
        let old = match user {
            Some(user) => self.users.insert(id, user),
            None => self.users.remove(&id),
        };
        if let Some(old) = &old {
            let key = user_key(&old.name);
            if self.user_names.get(&key) == Some(&id) {
                self.user_names.remove(&key);
            }
        }
        if let Some(new) = self.users.get(&id) {
            self.user_names.insert(user_key(&new.name), id);
        }
        old
    }

    pub(crate) fn set_group(&mut self, id: ObjectId, group: Option<Group>) -> Option<Group> {
        let old = match group {
            Some(group) => self.groups.insert(id, group),
            None => self.groups.remove(&id),
        };
        if let Some(old) = &old {
            let key = user_key(&old.name);
            if self.group_names.get(&key) == Some(&id) {
                self.group_names.remove(&key);
            }
        }
        if let Some(new) = self.groups.get(&id) {
            self.group_names.insert(user_key(&new.name), id);
        }
        old
    }

    /// Sets whether the membership exists; returns whether it did.
    pub(crate) fn set_member(&mut self, m: Membership, present: bool) -> bool {
        if present {
            self.member_of.insert((m.user, m.group));
            !self.members.insert(m)
        } else {
            self.member_of.remove(&(m.user, m.group));
            self.members.remove(&m)
        }
    }

    /// Sets or removes a curation entry, keeping the by-object index; answers the old one.
    pub(crate) fn set_curation(&mut self, id: i64, entry: Option<Curation>) -> Option<Curation> {
        let old = match entry {
            Some(entry) => {
                self.curation_by_object.insert((entry.object, id));
                self.curation.insert(id, entry)
            }
            None => self.curation.remove(&id),
        };
        if let Some(old) = &old
            && self
                .curation
                .get(&id)
                .is_none_or(|now| now.object != old.object)
        {
            self.curation_by_object.remove(&(old.object, id));
        }
        old
    }

    /// Sets or removes the lineage event of a digest, keeping the by-run index; answers
    /// the old one.
    pub(crate) fn set_lineage_event(
        &mut self,
        digest: String,
        event: Option<LineageEvent>,
    ) -> Option<LineageEvent> {
        let by_run = |e: &LineageEvent| {
            e.run_id
                .clone()
                .map(|run| (run, e.event_time, e.digest.clone()))
        };
        if let Some(key) = event.as_ref().and_then(by_run) {
            self.lineage_events_by_run.insert(key);
        }
        let old = set_entry(&mut self.lineage_events, digest, event);
        if let Some(key) = old.as_ref().and_then(by_run)
            && self
                .lineage_events
                .get(&key.2)
                .and_then(by_run)
                .is_none_or(|now| now != key)
        {
            self.lineage_events_by_run.remove(&key);
        }
        old
    }

    pub(crate) fn set_worksheet(
        &mut self,
        id: ObjectId,
        worksheet: Option<Worksheet>,
    ) -> Option<Worksheet> {
        let old = match worksheet {
            Some(worksheet) => self.worksheets.insert(id, worksheet),
            None => self.worksheets.remove(&id),
        };
        if let Some(old) = &old {
            self.worksheets_by_owner
                .remove(&(old.owner, old.name.clone(), id));
            let key = (old.owner, Worksheet::name_key(&old.name));
            if self.worksheet_names.get(&key) == Some(&id) {
                self.worksheet_names.remove(&key);
            }
        }
        if let Some(new) = self.worksheets.get(&id) {
            self.worksheets_by_owner
                .insert((new.owner, new.name.clone(), id));
            self.worksheet_names
                .insert((new.owner, Worksheet::name_key(&new.name)), id);
        }
        old
    }
}

pub(crate) fn set_entry<K: Ord, V>(
    map: &mut BTreeMap<K, V>,
    key: K,
    value: Option<V>,
) -> Option<V> {
    match value {
        Some(value) => map.insert(key, value),
        None => map.remove(&key),
    }
}

impl State {
    /// The current image of a row of a kept table, if the row exists.
    pub(crate) fn image(&self, key: &crate::history::RowKey) -> Option<crate::history::Image> {
        use crate::history::{Image, RowKey};
        use lore_core::model::{AttributeValue, Classification, LabelAssignment};
        match key {
            RowKey::Object(id) => self
                .objects
                .get(id)
                .cloned()
                .map(|o| Image::Object(Box::new(o))),
            RowKey::Attribute(object, attribute) => self
                .attributes
                .get(&(*object, attribute.clone()))
                .map(|value| {
                    Image::Attribute(AttributeValue {
                        object: *object,
                        attribute: attribute.clone(),
                        value: value.clone(),
                    })
                }),
            RowKey::Edge(source, kind, target, name) => {
                let key = (*source, *kind, *target, name.clone());
                self.edges_out.contains(&key).then(|| {
                    Image::Edge(Edge {
                        kind: *kind,
                        source: *source,
                        target: *target,
                        name: name.clone(),
                        origin: self.edge_origins.get(&key).cloned(),
                    })
                })
            }
            RowKey::Tag(tag) => self.tags.contains(tag).then(|| Image::Tag(tag.clone())),
            RowKey::Classification(object, data_class) => self
                .classifications
                .get(&(*object, data_class.clone()))
                .map(|status| {
                    Image::Classification(Classification {
                        object: *object,
                        data_class: data_class.clone(),
                        status: *status,
                    })
                }),
            RowKey::Label(object, label) => {
                self.labels.get(&(*object, label.clone())).map(|status| {
                    Image::Label(LabelAssignment {
                        object: *object,
                        label: label.clone(),
                        status: *status,
                    })
                })
            }
        }
    }
}
