//! The writes of a memory store: a batch applies its ops one by one straight into the
//! state, recording how to undo each change, and rolls back on the first failure; the
//! writes outside the state (operations, settings, attachments, id sequences) follow once
//! every op has succeeded.

use std::collections::BTreeSet;
use std::ops::Bound;

use lore_core::error::{Error, Result};
use lore_core::id::{ObjectId, REPOSITORY_MODEL};
use lore_core::model::{
    Attachment, AttributeType, AttributeValue, Classification, ClassificationStatus, Curation,
    DataClass, Delivery, Document, Edge, Grant, Group, ImportSettings, LabelAssignment, Membership,
    Notification, Object, ObjectType, Operation, OperationLogLine, Profiling, Role,
    SensitivityLabel, Tag, TypeName, User, Value, Worksheet,
};
use lore_core::store::{Batch, Details, Op, prepare};

use crate::state::{DocumentKey, MIN_ID, State, first_of, set_entry, user_key};
use crate::{MemoryStore, Operations};

/// How to take back one change of a batch.
#[derive(Debug)]
enum Undo {
    Object(ObjectId, Option<Object>),
    Attribute(ObjectId, String, Option<Value>),
    Edge(Edge, bool),
    Tag(Tag, bool),
    Classification(ObjectId, String, Option<ClassificationStatus>),
    Label(ObjectId, String, Option<ClassificationStatus>),
    Profiling(ObjectId, Option<Profiling>),
    AttributeType(String, Option<AttributeType>),
    ObjectType(TypeName, Option<ObjectType>),
    DataClass(String, Option<DataClass>),
    SensitivityLabel(String, Option<SensitivityLabel>),
    Role(String, Option<Role>),
    User(ObjectId, Option<User>),
    Group(ObjectId, Option<Group>),
    Member(Membership, bool),
    Grant(Grant, bool),
    Worksheet(ObjectId, Option<Worksheet>),
    Document(DocumentKey, Option<Document>),
    Curation(i64, Option<Curation>),
    Notification(i64, Option<Notification>),
    Delivery(i64, Option<Delivery>),
    /// The whole state before [`Op::ClearAll`].
    Everything(Box<State>),
}

/// A write outside [`State`] (operations, import settings, attachments, id sequences),
/// made only once every op of its batch has succeeded.
#[derive(Debug)]
enum Deferred {
    ClearAll,
    Sequence(i64, i64),
    Operation(Operation),
    LogLine(i64, OperationLogLine),
    Settings(ImportSettings),
    Attachment(Attachment),
}

impl State {
    fn undo(&mut self, undo: Undo) {
        match undo {
            Undo::Everything(old) => *self = *old,
            Undo::Delivery(id, old) => {
                set_entry(&mut self.deliveries, id, old);
            }
            Undo::Object(id, old) => {
                self.set_object(id, old);
            }
            Undo::Attribute(object, name, old) => {
                self.set_attribute(object, name, old);
            }
            Undo::Edge(edge, was) => {
                self.set_edge(edge, was);
            }
            Undo::Tag(tag, was) => {
                self.set_tag(tag, was);
            }
            Undo::Classification(object, name, old) => {
                set_entry(&mut self.classifications, (object, name), old);
            }
            Undo::Label(object, name, old) => {
                set_entry(&mut self.labels, (object, name), old);
            }
            Undo::Profiling(object, old) => {
                set_entry(&mut self.profiling, object, old);
            }
            Undo::AttributeType(key, old) => {
                set_entry(&mut self.attribute_types, key, old);
            }
            Undo::ObjectType(key, old) => {
                set_entry(&mut self.object_types, key, old);
            }
            Undo::DataClass(name, old) => {
                set_entry(&mut self.data_classes, name, old);
            }
            Undo::SensitivityLabel(name, old) => {
                set_entry(&mut self.sensitivity_labels, name, old);
            }
            Undo::Role(name, old) => {
                set_entry(&mut self.roles, name, old);
            }
            Undo::User(id, old) => {
                self.set_user(id, old);
            }
            Undo::Group(id, old) => {
                self.set_group(id, old);
            }
            Undo::Member(m, was) => {
                self.set_member(m, was);
            }
            Undo::Grant(grant, was) => {
                self.set_grant(grant, was);
            }
            Undo::Worksheet(id, old) => {
                self.set_worksheet(id, old);
            }
            Undo::Document(key, old) => {
                set_entry(&mut self.documents, key, old);
            }
            Undo::Curation(id, old) => {
                self.set_curation(id, old);
            }
            Undo::Notification(id, old) => {
                set_entry(&mut self.notifications, id, old);
            }
        }
    }
}

/// A batch being applied: the state, how to take back what it changed so far, and the
/// writes outside the state it makes when it succeeds.
struct Tx<'a> {
    state: &'a mut State,
    undo: Vec<Undo>,
    deferred: Vec<Deferred>,
}

impl Tx<'_> {
    fn rollback(mut self) {
        while let Some(undo) = self.undo.pop() {
            self.state.undo(undo);
        }
    }

    fn apply(&mut self, op: Op) -> Result<()> {
        match op {
            Op::PutObject(object) => self.put_object(object)?,
            Op::DeleteObject(id) => self.delete_object(id),
            Op::ClearModel(model) => {
                if model == REPOSITORY_MODEL {
                    return Err(Error::invalid(
                        "cannot clear the repository id space: only a model's objects can be cleared",
                    ));
                }
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
            Op::SetAttribute(AttributeValue {
                object,
                attribute,
                value,
            }) => {
                let old = self
                    .state
                    .set_attribute(object, attribute.clone(), Some(value));
                self.undo.push(Undo::Attribute(object, attribute, old));
            }
            Op::RemoveAttribute { object, attribute } => self.remove_attribute(object, attribute),
            Op::AddEdge(edge) => self.edge(edge, true),
            Op::RemoveEdge(edge) => self.edge(edge, false),
            Op::AddTag(tag) => self.tag(tag, true),
            Op::RemoveTag(tag) => self.tag(tag, false),
            Op::SetClassification(Classification {
                object,
                data_class,
                status,
            }) => self.classification(object, data_class, Some(status)),
            Op::RemoveClassification { object, data_class } => {
                self.classification(object, data_class, None)
            }
            Op::SetLabelAssignment(LabelAssignment {
                object,
                label,
                status,
            }) => self.label(object, label, Some(status)),
            Op::RemoveLabelAssignment { object, label } => self.label(object, label, None),
            Op::SetProfiling(profiling) => {
                let object = profiling.object;
                let value = (profiling.profile.is_some() || profiling.sample.is_some())
                    .then_some(profiling);
                self.profiling(object, value);
            }
            Op::PutAttributeType(attribute_type) => {
                self.state.meta_version += 1;
                let key = attribute_type.name.clone();
                let old = set_entry(
                    &mut self.state.attribute_types,
                    key.clone(),
                    Some(attribute_type),
                );
                self.undo.push(Undo::AttributeType(key, old));
            }
            Op::PutObjectType(object_type) => {
                self.state.meta_version += 1;
                let key = object_type.name.clone();
                let old = set_entry(&mut self.state.object_types, key.clone(), Some(object_type));
                self.undo.push(Undo::ObjectType(key, old));
            }
            Op::PutDataClass(class) => {
                self.state.meta_version += 1;
                let name = class.name.clone();
                let old = set_entry(&mut self.state.data_classes, name.clone(), Some(class));
                self.undo.push(Undo::DataClass(name, old));
            }
            Op::PutSensitivityLabel(label) => {
                self.state.meta_version += 1;
                let name = label.name.clone();
                let old = set_entry(
                    &mut self.state.sensitivity_labels,
                    name.clone(),
                    Some(label),
                );
                self.undo.push(Undo::SensitivityLabel(name, old));
            }
            Op::PutUser(user) => {
                if let Some(other) = self.state.user_names.get(&user_key(&user.name))
                    && *other != user.id
                {
                    return Err(Error::conflict(format!(
                        "a user named '{}' already exists",
                        user.name
                    )));
                }
                let id = user.id;
                let old = self.state.set_user(id, Some(user));
                self.undo.push(Undo::User(id, old));
            }
            Op::DeleteUser(id) => {
                self.revoke_all(id);
                let groups: Vec<ObjectId> = self.state.group_ids_of(id).collect();
                for group in groups {
                    self.member(Membership { group, user: id }, false);
                }
                let owned: Vec<ObjectId> = self
                    .state
                    .worksheets
                    .values()
                    .filter(|w| w.owner == id)
                    .map(|w| w.id)
                    .collect();
                for worksheet in owned {
                    let old = self.state.set_worksheet(worksheet, None);
                    self.undo.push(Undo::Worksheet(worksheet, old));
                }
                let curation: Vec<i64> = self
                    .state
                    .curation
                    .values()
                    .filter(|c| c.user == id)
                    .map(|c| c.id)
                    .collect();
                for entry in curation {
                    self.remove_curation(entry);
                }
                let notifications: Vec<i64> = self
                    .state
                    .notifications
                    .values()
                    .filter(|n| n.user == id)
                    .map(|n| n.id)
                    .collect();
                for notification in notifications {
                    let old = set_entry(&mut self.state.notifications, notification, None);
                    self.undo.push(Undo::Notification(notification, old));
                }
                let documents: Vec<DocumentKey> = self
                    .state
                    .documents
                    .keys()
                    .filter(|(_, owner, _)| *owner == Some(id))
                    .cloned()
                    .collect();
                for key in documents {
                    let old = set_entry(&mut self.state.documents, key.clone(), None);
                    self.undo.push(Undo::Document(key, old));
                }
                // Sessions need no undo: without the user they authenticate nobody, and
                // a user id is never reused.
                self.state.sessions.retain(|_, s| s.user != id);
                let old = self.state.set_user(id, None);
                if old.is_some() {
                    self.undo.push(Undo::User(id, old));
                }
            }
            Op::PutGroup(group) => {
                if let Some(other) = self.state.group_names.get(&user_key(&group.name))
                    && *other != group.id
                {
                    return Err(Error::conflict(format!(
                        "a group named '{}' already exists",
                        group.name
                    )));
                }
                let id = group.id;
                let old = self.state.set_group(id, Some(group));
                self.undo.push(Undo::Group(id, old));
            }
            Op::DeleteGroup(id) => {
                self.revoke_all(id);
                let members: Vec<Membership> = self
                    .state
                    .members
                    .range(
                        Membership {
                            group: id,
                            user: MIN_ID,
                        }..,
                    )
                    .take_while(|m| m.group == id)
                    .copied()
                    .collect();
                for m in members {
                    self.member(m, false);
                }
                let old = self.state.set_group(id, None);
                if old.is_some() {
                    self.undo.push(Undo::Group(id, old));
                }
            }
            Op::AddMember(m) => {
                if self.state.groups.contains_key(&m.group)
                    && self.state.users.contains_key(&m.user)
                {
                    self.member(m, true);
                }
            }
            Op::RemoveMember(m) => self.member(m, false),
            Op::PutRole(role) => {
                self.state.meta_version += 1;
                let name = role.name.clone();
                let old = set_entry(&mut self.state.roles, name.clone(), Some(role));
                self.undo.push(Undo::Role(name, old));
            }
            Op::DeleteRole(name) => {
                self.state.meta_version += 1;
                let granted: Vec<Grant> = self
                    .state
                    .grants
                    .iter()
                    .filter(|g| g.role == name)
                    .cloned()
                    .collect();
                for grant in granted {
                    self.grant(grant, false);
                }
                let old = set_entry(&mut self.state.roles, name.clone(), None);
                if old.is_some() {
                    self.undo.push(Undo::Role(name, old));
                }
            }
            Op::AddGrant(grant) => self.grant(grant, true),
            Op::RemoveGrant(grant) => self.grant(grant, false),
            Op::PutWorksheet(worksheet) => {
                let key = (worksheet.owner, Worksheet::name_key(&worksheet.name));
                if let Some(other) = self.state.worksheet_names.get(&key)
                    && *other != worksheet.id
                {
                    return Err(Error::conflict(format!(
                        "a worksheet named '{}' already exists",
                        worksheet.name
                    )));
                }
                let id = worksheet.id;
                let old = self.state.set_worksheet(id, Some(worksheet));
                self.undo.push(Undo::Worksheet(id, old));
            }
            Op::DeleteWorksheet(id) => {
                let old = self.state.set_worksheet(id, None);
                if old.is_some() {
                    self.undo.push(Undo::Worksheet(id, old));
                }
            }
            Op::PutNotification(notification) => {
                let id = notification.id;
                let old = set_entry(&mut self.state.notifications, id, Some(notification));
                self.undo.push(Undo::Notification(id, old));
            }
            Op::PutCuration(entry) => {
                let id = entry.id;
                let old = self.state.set_curation(id, Some(entry));
                self.undo.push(Undo::Curation(id, old));
            }
            Op::DeleteCuration(id) => self.remove_curation(id),
            Op::PutDocument(document) => {
                let key = (document.kind, document.owner, document.name.clone());
                let old = set_entry(&mut self.state.documents, key.clone(), Some(document));
                self.undo.push(Undo::Document(key, old));
            }
            Op::DeleteDocument { kind, owner, name } => {
                let key = (kind, owner, name);
                let old = set_entry(&mut self.state.documents, key.clone(), None);
                if old.is_some() {
                    self.undo.push(Undo::Document(key, old));
                }
            }
            Op::PutDelivery(delivery) => {
                let id = delivery.id;
                let old = self.state.deliveries.insert(id, delivery);
                self.undo.push(Undo::Delivery(id, old));
            }
            Op::UpdateDelivery(delivery) => {
                let id = delivery.id;
                if let Some(slot) = self.state.deliveries.get_mut(&id) {
                    let old = std::mem::replace(slot, delivery);
                    self.undo.push(Undo::Delivery(id, Some(old)));
                }
            }
            Op::PutOperation(operation) => self.deferred.push(Deferred::Operation(operation)),
            Op::PutOperationLogLine { operation, line } => {
                self.deferred.push(Deferred::LogLine(operation, line));
            }
            Op::PutImportSettings(settings) => self.deferred.push(Deferred::Settings(settings)),
            Op::PutAttachment(attachment) => {
                self.deferred.push(Deferred::Attachment(attachment));
            }
            Op::SetIdSequence { space, next } => {
                self.deferred.push(Deferred::Sequence(space, next));
            }
            Op::ClearAll => {
                let old = std::mem::take(self.state);
                self.state.meta_version = old.meta_version + 1;
                self.undo.push(Undo::Everything(Box::new(old)));
                self.deferred.push(Deferred::ClearAll);
            }
        }
        Ok(())
    }

    fn put_object(&mut self, object: Object) -> Result<()> {
        if let Some(parent) = object.parent
            && parent.model != object.id.model
        {
            return Err(Error::invalid(format!(
                "object {} cannot have parent {parent}: the parent is in another model",
                object.id
            )));
        }
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
        let old = self.state.set_object(id, Some(object));
        self.undo.push(Undo::Object(id, old));
        Ok(())
    }

    fn delete_object(&mut self, id: ObjectId) {
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

    fn remove_curation(&mut self, id: i64) {
        let old = self.state.set_curation(id, None);
        if old.is_some() {
            self.undo.push(Undo::Curation(id, old));
        }
    }

    fn remove_details(&mut self, details: Details) {
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

    fn remove_attribute(&mut self, object: ObjectId, attribute: String) {
        let old = self.state.set_attribute(object, attribute.clone(), None);
        if old.is_some() {
            self.undo.push(Undo::Attribute(object, attribute, old));
        }
    }

    fn edge(&mut self, edge: Edge, present: bool) {
        let was = self.state.set_edge(edge.clone(), present);
        if was != present {
            self.undo.push(Undo::Edge(edge, was));
        }
    }

    fn tag(&mut self, tag: Tag, present: bool) {
        let was = self.state.set_tag(tag.clone(), present);
        if was != present {
            self.undo.push(Undo::Tag(tag, was));
        }
    }

    fn member(&mut self, m: Membership, present: bool) {
        let was = self.state.set_member(m, present);
        if was != present {
            self.undo.push(Undo::Member(m, was));
        }
    }

    /// Revokes every grant the grantee holds.
    fn revoke_all(&mut self, grantee: ObjectId) {
        let held: Vec<Grant> = self.state.grants_held(grantee).cloned().collect();
        for grant in held {
            self.grant(grant, false);
        }
    }

    fn grant(&mut self, grant: Grant, present: bool) {
        let was = self.state.set_grant(grant.clone(), present);
        if was != present {
            self.undo.push(Undo::Grant(grant, was));
        }
    }

    fn classification(
        &mut self,
        object: ObjectId,
        data_class: String,
        status: Option<ClassificationStatus>,
    ) {
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

    fn label(&mut self, object: ObjectId, label: String, status: Option<ClassificationStatus>) {
        let old = set_entry(&mut self.state.labels, (object, label.clone()), status);
        if old != status {
            self.undo.push(Undo::Label(object, label, old));
        }
    }

    fn profiling(&mut self, object: ObjectId, profiling: Option<Profiling>) {
        let removing = profiling.is_none();
        let old = set_entry(&mut self.state.profiling, object, profiling);
        if !(removing && old.is_none()) {
            self.undo.push(Undo::Profiling(object, old));
        }
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

impl MemoryStore {
    /// Applies a batch ([`Store::apply`](lore_core::store::Store::apply)): its ops in order
    /// on the locked state, all taken back if one fails, then the writes outside the state.
    pub(crate) fn apply_batch(&self, batch: Batch) -> Result<()> {
        let mut state = self.write()?;
        let mut tx = Tx {
            state: &mut state,
            undo: Vec::new(),
            deferred: Vec::new(),
        };
        for mut op in batch.ops {
            if let Err(e) = prepare(&mut op).and_then(|()| tx.apply(op)) {
                tx.rollback();
                return Err(e);
            }
        }
        if tx.deferred.is_empty() {
            return Ok(());
        }
        // Taken while the state is still locked, so readers see the batch whole.
        let mut ops = self.ops_mut()?;
        let mut sequences = self.sequences()?;
        for write in tx.deferred {
            match write {
                Deferred::ClearAll => {
                    *ops = Operations::default();
                    sequences.clear();
                }
                Deferred::Sequence(space, next) => {
                    sequences.insert(space, next);
                }
                Deferred::Operation(operation) => {
                    ops.operations.insert(operation.id, operation);
                }
                Deferred::LogLine(operation, line) => {
                    let log = ops.logs.entry(operation).or_default();
                    log.retain(|l| l.seq != line.seq);
                    log.push(line);
                    log.sort_by_key(|l| l.seq);
                }
                Deferred::Settings(settings) => {
                    ops.settings.insert(settings.model, settings);
                }
                Deferred::Attachment(attachment) => {
                    ops.attachments
                        .entry(attachment.info.object)
                        .or_default()
                        .insert(attachment.info.name.clone(), attachment);
                }
            }
        }
        Ok(())
    }
}
