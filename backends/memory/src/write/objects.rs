//! Writes of objects and what hangs on them (attributes, edges, tags, classifications,
//! label assignments, profiling), and of the definitions they use: attribute types,
//! object types, data classes and sensitivity labels.

use std::collections::BTreeSet;
use std::ops::Bound;

use lore_core::error::{Error, Result};
use lore_core::id::{ObjectId, REPOSITORY_MODEL};
use lore_core::model::{
    AttributeType, ClassificationStatus, DataClass, Edge, Grant, ImportPrint, Object, ObjectType,
    Profiling, SensitivityLabel, Tag, Value,
};
use lore_core::store::Details;

use crate::state::{MIN_ID, first_of, set_entry};

use super::{Tx, Undo};

impl Tx<'_> {
    pub(super) fn put_object(&mut self, object: Object) -> Result<()> {
        if let Some(stable) = &object.stable_id
            && let Some(other) = self.state.by_stable_id.get(stable)
            && *other != object.id
        {
            return Err(Error::conflict(format!(
                "object {} cannot take stable id '{stable}': object {other} has it",
                object.id
            )));
        }
        if object.id.is_repository()
            && let Some((_, _, _, other)) = self
                .state
                .children
                .range((REPOSITORY_MODEL, object.parent, object.name.clone(), MIN_ID)..)
                .take_while(|(m, p, n, _)| {
                    *m == REPOSITORY_MODEL && *p == object.parent && *n == object.name
                })
                .find(|(_, _, _, other)| *other != object.id)
        {
            return Err(Error::conflict(format!(
                "an object named '{}' already exists there ({other})",
                object.name
            )));
        }
        let id = object.id;
        self.forget_print(id);
        let old = self.state.set_object(id, Some(object));
        self.undo.push(Undo::Object(id, old));
        Ok(())
    }

    pub(super) fn delete_object(&mut self, id: ObjectId) {
        self.forget_print(id);
        let old = self.state.set_object(id, None);
        if old.is_some() {
            self.undo.push(Undo::Object(id, old));
        }
        let curation: Vec<i64> = self
            .state
            .curation_by_object
            .range((id, i64::MIN)..=(id, i64::MAX))
            .map(|(_, c)| *c)
            .collect();
        for entry in curation {
            self.remove_curation(entry);
        }
        let mut details = Details::default();
        let mut edges = BTreeSet::new();
        self.state
            .collect_details(&BTreeSet::from([id]), &mut details, &mut edges);
        details.edges = edges.into_iter().collect();
        self.remove_details(details);
        let grants: Vec<Grant> = self
            .state
            .grants_on
            .range((Bound::Included((id, min_grant())), Bound::Unbounded))
            .take_while(|(o, _)| *o == id)
            .map(|(_, g)| g.clone())
            .collect();
        for grant in grants {
            self.grant(grant, false);
        }
    }

    /// Removes every object of a model, and what hangs on its ids (details, curation,
    /// grants) whether or not their objects exist.
    pub(super) fn clear_model(&mut self, model: i64) {
        let ids: Vec<ObjectId> = self.state.model_range(model).map(|o| o.id).collect();
        for id in ids {
            self.delete_object(id);
        }
        // What hangs on ids of the model whose objects are gone (never put).
        let details = self.state.model_details(model);
        self.remove_details(details);
        let curation: Vec<i64> = self
            .state
            .curation_by_object
            .range((first_of(model), i64::MIN)..)
            .take_while(|(o, _)| o.model == model)
            .map(|(_, c)| *c)
            .collect();
        for entry in curation {
            self.remove_curation(entry);
        }
        let printed: Vec<ObjectId> = self
            .state
            .prints
            .range(first_of(model)..=ObjectId::new(model, i64::MAX))
            .map(|(id, _)| *id)
            .collect();
        for id in printed {
            self.forget_print(id);
        }
        let grants: Vec<Grant> = self
            .state
            .grants_on
            .range((
                Bound::Included((first_of(model), min_grant())),
                Bound::Unbounded,
            ))
            .take_while(|(o, _)| o.model == model)
            .map(|(_, g)| g.clone())
            .collect();
        for grant in grants {
            self.grant(grant, false);
        }
    }

    pub(super) fn remove_details(&mut self, details: Details) {
        for a in details.attributes {
            self.remove_attribute(a.object, a.attribute);
        }
        for edge in details.edges {
            self.edge(edge, false);
        }
        for tag in details.tags {
            self.tag(tag, false);
        }
        for c in details.classifications {
            self.classification(c.object, c.data_class, None);
        }
        for l in details.labels {
            self.label(l.object, l.label, None);
        }
        for p in details.profiling {
            self.profiling(p.object, None);
        }
    }

    /// Forgets the import print of an object whose content or details change.
    fn forget_print(&mut self, object: ObjectId) {
        if let Some(old) = self.state.prints.remove(&object) {
            self.undo.push(Undo::Print(object, Some(old)));
        }
    }

    pub(super) fn set_import_print(&mut self, print: ImportPrint) {
        let old = set_entry(
            &mut self.state.prints,
            print.object,
            Some((print.mask, print.print)),
        );
        self.undo.push(Undo::Print(print.object, old));
    }

    pub(super) fn set_attribute(&mut self, object: ObjectId, attribute: String, value: Value) {
        self.forget_print(object);
        let old = self
            .state
            .set_attribute(object, attribute.clone(), Some(value));
        self.undo.push(Undo::Attribute(object, attribute, old));
    }

    pub(super) fn remove_attribute(&mut self, object: ObjectId, attribute: String) {
        self.forget_print(object);
        let old = self.state.set_attribute(object, attribute.clone(), None);
        if old.is_some() {
            self.undo.push(Undo::Attribute(object, attribute, old));
        }
    }

    pub(super) fn edge(&mut self, edge: Edge, present: bool) {
        self.forget_print(edge.source);
        let stored_origin = self.state.edge_origin(&edge);
        let was = self.state.set_edge(edge.clone(), present);
        if was != present {
            // Undoing a removal brings back the edge as it was stored.
            let mut edge = edge;
            if was {
                edge.origin = stored_origin;
            }
            self.undo.push(Undo::Edge(edge, was));
        }
    }

    pub(super) fn tag(&mut self, tag: Tag, present: bool) {
        self.forget_print(tag.object);
        let was = self.state.set_tag(tag.clone(), present);
        if was != present {
            self.undo.push(Undo::Tag(tag, was));
        }
    }

    pub(super) fn classification(
        &mut self,
        object: ObjectId,
        data_class: String,
        status: Option<ClassificationStatus>,
    ) {
        self.forget_print(object);
        let old = set_entry(
            &mut self.state.classifications,
            (object, data_class.clone()),
            status,
        );
        if old != status {
            self.undo
                .push(Undo::Classification(object, data_class, old));
        }
    }

    pub(super) fn label(
        &mut self,
        object: ObjectId,
        label: String,
        status: Option<ClassificationStatus>,
    ) {
        self.forget_print(object);
        let old = set_entry(&mut self.state.labels, (object, label.clone()), status);
        if old != status {
            self.undo.push(Undo::Label(object, label, old));
        }
    }

    pub(super) fn set_profiling(&mut self, profiling: Profiling) {
        let object = profiling.object;
        let value =
            (profiling.profile.is_some() || profiling.sample.is_some()).then_some(profiling);
        self.profiling(object, value);
    }

    pub(super) fn profiling(&mut self, object: ObjectId, profiling: Option<Profiling>) {
        self.forget_print(object);
        let removing = profiling.is_none();
        let old = set_entry(&mut self.state.profiling, object, profiling);
        if !(removing && old.is_none()) {
            self.undo.push(Undo::Profiling(object, old));
        }
    }

    pub(super) fn put_attribute_type(&mut self, attribute_type: AttributeType) {
        self.state.meta_version += 1;
        let key = attribute_type.name.clone();
        let old = set_entry(
            &mut self.state.attribute_types,
            key.clone(),
            Some(attribute_type),
        );
        self.undo.push(Undo::AttributeType(key, old));
    }

    pub(super) fn put_object_type(&mut self, object_type: ObjectType) {
        self.state.meta_version += 1;
        let key = object_type.name.clone();
        let old = set_entry(&mut self.state.object_types, key.clone(), Some(object_type));
        self.undo.push(Undo::ObjectType(key, old));
    }

    pub(super) fn put_data_class(&mut self, class: DataClass) {
        self.state.meta_version += 1;
        let name = class.name.clone();
        let old = set_entry(&mut self.state.data_classes, name.clone(), Some(class));
        self.undo.push(Undo::DataClass(name, old));
    }

    pub(super) fn put_sensitivity_label(&mut self, label: SensitivityLabel) {
        self.state.meta_version += 1;
        let name = label.name.clone();
        let old = set_entry(
            &mut self.state.sensitivity_labels,
            name.clone(),
            Some(label),
        );
        self.undo.push(Undo::SensitivityLabel(name, old));
    }
}

/// The smallest grant, to start range scans of the grants on an object.
fn min_grant() -> Grant {
    Grant {
        grantee: MIN_ID,
        role: String::new(),
        object: None,
    }
}
