//! The reads of a memory store's state: the reference MQL evaluator's facts, the scans of
//! the indexes behind objects, details, edges, groups and grants, the lineage walk and the
//! principal of a session.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::ops::Bound;

use lore_core::id::ObjectId;
use lore_core::model::{
    AttributeValue, Classification, ClassificationStatus, CurationKind, DataClass, Edge, EdgeKind,
    Grant, LINEAGE_WALK_BUDGET, LabelAssignment, LineageBounds, LineageWalk, Object, Profiling,
    SensitivityLabel, Tag, TagKind, Timestamp, Value,
};
use lore_core::mql::eval::Facts;
use lore_core::store::{Details, Principal, SessionCheck};

use crate::state::{EdgeKey, MIN_ID, State, first_of};

/// The reference evaluator reads the state directly.
impl Facts for State {
    fn curators(&self, id: ObjectId, kind: CurationKind) -> Vec<&str> {
        self.curation_by_object
            .range((id, i64::MIN)..=(id, i64::MAX))
            .filter_map(|(_, entry)| self.curation.get(entry))
            .filter(|c| c.kind == kind)
            .filter_map(|c| self.users.get(&c.user).map(|u| u.name.as_str()))
            .collect()
    }

    fn object(&self, id: ObjectId) -> Option<&Object> {
        self.objects.get(&id)
    }

    fn children_of(&self, model: i64, parent: Option<i64>) -> Vec<&Object> {
        let parent = parent.map(|p| ObjectId::new(model, p));
        self.children
            .range((model, parent, String::new(), MIN_ID)..)
            .take_while(|(m, p, _, _)| *m == model && *p == parent)
            .filter_map(|(_, _, _, id)| self.objects.get(id))
            .collect()
    }

    fn attribute(&self, id: ObjectId, name: &str) -> Option<&Value> {
        self.attributes.get(&(id, name.to_owned()))
    }

    fn tags(&self, id: ObjectId, kind: TagKind) -> Vec<&str> {
        let start = Tag {
            object: id,
            kind,
            value: String::new(),
        };
        self.tags
            .range(start..)
            .take_while(|t| t.object == id && t.kind == kind)
            .map(|t| t.value.as_str())
            .collect()
    }

    fn classifications(&self, id: ObjectId) -> Vec<(&str, ClassificationStatus)> {
        self.classifications
            .range((id, String::new())..)
            .take_while(|((o, _), _)| *o == id)
            .map(|((_, name), status)| (name.as_str(), *status))
            .collect()
    }

    fn data_class(&self, name: &str) -> Option<&DataClass> {
        self.data_classes.get(name)
    }

    fn label_assignments(&self, id: ObjectId) -> Vec<(&str, ClassificationStatus)> {
        self.labels
            .range((id, String::new())..)
            .take_while(|((o, _), _)| *o == id)
            .map(|((_, name), status)| (name.as_str(), *status))
            .collect()
    }

    fn sensitivity_label(&self, name: &str) -> Option<&SensitivityLabel> {
        self.sensitivity_labels.get(name)
    }

    fn profiling(&self, id: ObjectId) -> Option<&Profiling> {
        self.profiling.get(&id)
    }

    fn edge_names(&self, id: ObjectId, kind: EdgeKind, outgoing: bool) -> Vec<&str> {
        let index = if outgoing {
            &self.edges_out
        } else {
            &self.edges_in
        };
        index
            .range((id, kind, MIN_ID, String::new())..)
            .take_while(|(o, k, _, _)| *o == id && *k == kind)
            .map(|(_, _, _, name)| name.as_str())
            .collect()
    }
}

impl State {
    pub(crate) fn model_range(&self, model: i64) -> impl Iterator<Item = &Object> {
        self.objects
            .range(first_of(model)..=ObjectId::new(model, i64::MAX))
            .map(|(_, o)| o)
    }

    /// Everything hanging on the objects `ids`; edges go to `edges` to be sorted once.
    pub(crate) fn collect_details(
        &self,
        ids: &BTreeSet<ObjectId>,
        details: &mut Details,
        edges: &mut BTreeSet<Edge>,
    ) {
        for &id in ids {
            details.attributes.extend(
                self.attributes
                    .range((id, String::new())..)
                    .take_while(|((o, _), _)| *o == id)
                    .map(|((object, attribute), value)| AttributeValue {
                        object: *object,
                        attribute: attribute.clone(),
                        value: value.clone(),
                    }),
            );
            edges.extend(self.edges_from(id, None, false));
            edges.extend(self.edges_from(id, None, true));
            details.tags.extend(
                self.tags
                    .range(
                        Tag {
                            object: id,
                            kind: TagKind::Label,
                            value: String::new(),
                        }..,
                    )
                    .take_while(|t| t.object == id)
                    .cloned(),
            );
            details.classifications.extend(
                self.classifications
                    .range((id, String::new())..)
                    .take_while(|((o, _), _)| *o == id)
                    .map(|((object, data_class), status)| Classification {
                        object: *object,
                        data_class: data_class.clone(),
                        status: *status,
                    }),
            );
            details.labels.extend(
                self.labels
                    .range((id, String::new())..)
                    .take_while(|((o, _), _)| *o == id)
                    .map(|((object, label), status)| LabelAssignment {
                        object: *object,
                        label: label.clone(),
                        status: *status,
                    }),
            );
            details.profiling.extend(self.profiling.get(&id).cloned());
        }
    }

    /// Everything hanging on the ids of a model, whether or not the objects exist.
    /// The objects of the ids that exist, sorted by id.
    pub(crate) fn objects_of(&self, ids: &[ObjectId]) -> Vec<Object> {
        let ids: BTreeSet<&ObjectId> = ids.iter().collect();
        ids.into_iter()
            .filter_map(|id| self.objects.get(id))
            .cloned()
            .collect()
    }

    pub(crate) fn objects_details(&self, ids: &[ObjectId]) -> Details {
        let ids: BTreeSet<ObjectId> = ids.iter().copied().collect();
        let mut details = Details::default();
        let mut edges = BTreeSet::new();
        self.collect_details(&ids, &mut details, &mut edges);
        details.edges = edges.into_iter().collect();
        details
    }

    pub(crate) fn model_details(&self, model: i64) -> Details {
        let start = first_of(model);
        let in_model = |id: &ObjectId| id.model == model;
        let attributes = self
            .attributes
            .range((start, String::new())..)
            .take_while(|((o, _), _)| in_model(o))
            .map(|((object, attribute), value)| AttributeValue {
                object: *object,
                attribute: attribute.clone(),
                value: value.clone(),
            })
            .collect();
        let mut edges: BTreeSet<Edge> = BTreeSet::new();
        for (index, incoming) in [(&self.edges_out, false), (&self.edges_in, true)] {
            edges.extend(
                index
                    .range((
                        Bound::Included((
                            start,
                            EdgeKind::CustomRelationship,
                            MIN_ID,
                            String::new(),
                        )),
                        Bound::Unbounded,
                    ))
                    .take_while(|k| in_model(&k.0))
                    .map(|k| edge_of(&self.edge_origins, k, incoming)),
            );
        }
        let tags = self
            .tags
            .range(
                Tag {
                    object: start,
                    kind: TagKind::Label,
                    value: String::new(),
                }..,
            )
            .take_while(|t| in_model(&t.object))
            .cloned()
            .collect();
        let classifications = self
            .classifications
            .range((start, String::new())..)
            .take_while(|((o, _), _)| in_model(o))
            .map(|((object, data_class), status)| Classification {
                object: *object,
                data_class: data_class.clone(),
                status: *status,
            })
            .collect();
        let labels = self
            .labels
            .range((start, String::new())..)
            .take_while(|((o, _), _)| in_model(o))
            .map(|((object, label), status)| LabelAssignment {
                object: *object,
                label: label.clone(),
                status: *status,
            })
            .collect();
        let profiling = self
            .profiling
            .range(start..)
            .take_while(|(o, _)| in_model(o))
            .map(|(_, p)| p.clone())
            .collect();
        Details {
            attributes,
            edges: edges.into_iter().collect(),
            tags,
            classifications,
            labels,
            profiling,
        }
    }

    /// Edges of `object` (outgoing, or incoming), of one kind or all, in `Edge` order
    /// for a fixed kind and end.
    pub(crate) fn edges_from(
        &self,
        object: ObjectId,
        kind: Option<EdgeKind>,
        incoming: bool,
    ) -> Vec<Edge> {
        let index = if incoming {
            &self.edges_in
        } else {
            &self.edges_out
        };
        let start = (
            object,
            kind.unwrap_or(EdgeKind::CustomRelationship),
            MIN_ID,
            String::new(),
        );
        index
            .range((Bound::Included(start), Bound::Unbounded))
            .take_while(|k| k.0 == object && kind.is_none_or(|kind| k.1 == kind))
            .map(|k| edge_of(&self.edge_origins, k, incoming))
            .collect()
    }

    /// The ids of the groups the user belongs to.
    pub(crate) fn group_ids_of(&self, user: ObjectId) -> impl Iterator<Item = ObjectId> + '_ {
        self.member_of
            .range((user, MIN_ID)..)
            .take_while(move |(u, _)| *u == user)
            .map(|(_, g)| *g)
    }

    /// The grants the grantee holds itself.
    pub(crate) fn grants_held(&self, grantee: ObjectId) -> impl Iterator<Item = &Grant> + '_ {
        let start = Grant {
            grantee,
            role: String::new(),
            object: None,
        };
        self.grants
            .range(start..)
            .take_while(move |g| g.grantee == grantee)
    }

    /// [`ObjectStore::lineage`](lore_core::store::ObjectStore::lineage): the lineage edges
    /// within `bounds` of `start`, downstream or upstream, each with its depth.
    pub(crate) fn lineage(
        &self,
        start: ObjectId,
        downstream: bool,
        bounds: LineageBounds,
    ) -> LineageWalk {
        let follow = |node: ObjectId| {
            self.edges_from(node, Some(EdgeKind::Lineage), !downstream)
                .into_iter()
                .take(bounds.fan_out as usize)
        };
        let far = |e: &Edge| if downstream { e.target } else { e.source };
        let mut nearest: BTreeMap<ObjectId, u32> = BTreeMap::from([(start, 0)]);
        let mut level: BTreeSet<ObjectId> = BTreeSet::from([start]);
        let mut steps: u64 = 1;
        for depth in 1..=bounds.depth {
            let next: BTreeSet<ObjectId> = level
                .iter()
                .flat_map(|node| follow(*node).map(|e| far(&e)).collect::<Vec<_>>())
                .collect();
            steps += next.len() as u64;
            for node in &next {
                nearest.entry(*node).or_insert(depth);
            }
            level = next;
            if level.is_empty() {
                break;
            }
        }
        let mut edges: Vec<(Edge, u32)> = nearest
            .iter()
            .filter(|(_, depth)| **depth < bounds.depth)
            .flat_map(|(node, depth)| follow(*node).map(|e| (e, depth + 1)).collect::<Vec<_>>())
            .collect();
        edges.sort_by(|(a, da), (b, db)| {
            da.cmp(db)
                .then(a.source.cmp(&b.source))
                .then(a.target.cmp(&b.target))
                .then(a.name.cmp(&b.name))
        });
        let truncated = steps > LINEAGE_WALK_BUDGET || edges.len() > bounds.limit as usize;
        edges.truncate(bounds.limit as usize);
        LineageWalk { edges, truncated }
    }

    /// [`SessionStore::principal`](lore_core::store::SessionStore::principal): the live
    /// session of `key_hash`, its user, the grants of the user and of its enabled groups,
    /// and the roles they name.
    pub(crate) fn principal(&self, key_hash: &str, now: Timestamp) -> Option<Principal> {
        let session = self.sessions.get(key_hash).filter(|s| s.expires_at > now)?;
        let user = self.users.get(&session.user)?;
        let mut grants: Vec<Grant> = self.grants_held(user.id).cloned().collect();
        for group in self.group_ids_of(user.id) {
            if self.groups.get(&group).is_some_and(|g| g.enabled) {
                grants.extend(self.grants_held(group).cloned());
            }
        }
        grants.sort();
        let names: BTreeSet<&str> = grants.iter().map(|g| g.role.as_str()).collect();
        let roles = names
            .into_iter()
            .filter_map(|name| self.roles.get(name))
            .cloned()
            .collect();
        Some(Principal {
            session: session.clone(),
            user: user.clone(),
            grants,
            roles,
            meta_version: self.meta_version,
            access_version: self.access_version,
        })
    }

    /// [`SessionStore::session_check`](lore_core::store::SessionStore::session_check).
    pub(crate) fn session_check(&self, key_hash: &str, now: Timestamp) -> Option<SessionCheck> {
        let session = self.sessions.get(key_hash).filter(|s| s.expires_at > now)?;
        Some(SessionCheck {
            session: session.clone(),
            access_version: self.access_version,
            meta_version: self.meta_version,
        })
    }
}

/// Rebuilds an edge from a key of the outgoing or incoming index.
fn edge_of(origins: &HashMap<EdgeKey, String>, key: &EdgeKey, incoming: bool) -> Edge {
    let (a, kind, b, name) = key;
    let (source, target) = if incoming { (*b, *a) } else { (*a, *b) };
    let origin = if origins.is_empty() {
        None
    } else {
        origins.get(&(source, *kind, target, name.clone())).cloned()
    };
    Edge {
        kind: *kind,
        source,
        target,
        name: name.clone(),
        origin,
    }
}
