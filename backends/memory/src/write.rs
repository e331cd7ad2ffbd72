//! The writes of a memory store: a batch applies its ops one by one straight into the
//! state, recording how to undo each change, and rolls back on the first failure; the
//! writes outside the state (operations, settings, attachments, id sequences) follow once
//! every op has succeeded.

mod access;
mod content;
mod lineage;
mod objects;

use lore_core::error::Result;
use lore_core::id::ObjectId;
use lore_core::model::{
    Attachment, AttributeType, AttributeValue, Classification, ClassificationStatus, Curation,
    DataClass, Delivery, Document, Edge, Grant, Group, ImportSettings, LabelAssignment, LineageRun,
    Membership, Notification, Object, ObjectType, Operation, OperationLogLine, Profiling, Role,
    SensitivityLabel, Tag, TypeName, User, Value, Worksheet,
};
use lore_core::model::{Author, Revision};
use lore_core::store::{Batch, Op, prepare};

use crate::history::{Image, RowKey};
use std::collections::HashSet;

use crate::state::{DocumentKey, State, set_entry};
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
    Print(ObjectId, Option<(u32, u64)>),
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
    /// A lineage event the batch stored (by digest): none was stored before.
    LineageEvent(String),
    LineageRun(String, Option<LineageRun>),
    /// A model version the batch recorded (the last one).
    ModelVersion,
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
            Undo::Print(object, old) => {
                set_entry(&mut self.prints, object, old);
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
            Undo::ModelVersion => {
                self.history.model_versions.pop();
            }
            Undo::LineageEvent(digest) => {
                self.set_lineage_event(digest, None);
            }
            Undo::LineageRun(run_id, old) => {
                set_entry(&mut self.lineage_runs, run_id, old);
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
    /// A restore's history, recorded with the batch's revision.
    restored: Vec<lore_core::store::RestoredHistory>,
}

impl Tx<'_> {
    fn rollback(mut self) {
        while let Some(undo) = self.undo.pop() {
            self.state.undo(undo);
        }
    }

    fn apply(&mut self, op: Op) -> Result<()> {
        // Not taken back with a failed batch: the version may move without a change.
        if op.changes_access() {
            self.state.access_version += 1;
        }
        match op {
            // Objects, what hangs on them and the definitions they use: objects.rs.
            Op::PutObject(object) => self.put_object(object)?,
            Op::DeleteObject(id) => self.delete_object(id),
            Op::ClearModel(model) => self.clear_model(model),
            Op::SetAttribute(AttributeValue {
                object,
                attribute,
                value,
            }) => self.set_attribute(object, attribute, value),
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
            Op::SetProfiling(profiling) => self.set_profiling(profiling),
            Op::SetImportPrint(print) => self.set_import_print(print),
            Op::PutAttributeType(attribute_type) => self.put_attribute_type(attribute_type),
            Op::PutObjectType(object_type) => self.put_object_type(object_type),
            Op::PutDataClass(class) => self.put_data_class(class),
            Op::PutSensitivityLabel(label) => self.put_sensitivity_label(label),
            // Users, groups, memberships, roles and grants: access.rs.
            Op::PutUser(user) => self.put_user(user)?,
            Op::DeleteUser(id) => self.delete_user(id),
            Op::PutGroup(group) => self.put_group(group)?,
            Op::DeleteGroup(id) => self.delete_group(id),
            Op::AddMember(m) => self.add_member(m),
            Op::RemoveMember(m) => self.member(m, false),
            Op::PutRole(role) => self.put_role(role),
            Op::DeleteRole(name) => self.delete_role(name),
            Op::AddGrant(grant) => self.grant(grant, true),
            Op::RemoveGrant(grant) => self.grant(grant, false),
            // Worksheets, notifications, curation, documents, deliveries: content.rs.
            Op::PutWorksheet(worksheet) => self.put_worksheet(worksheet)?,
            Op::DeleteWorksheet(id) => self.delete_worksheet(id),
            Op::PutNotification(notification) => self.put_notification(notification),
            Op::PutCuration(entry) => self.put_curation(entry),
            Op::DeleteCuration(id) => self.remove_curation(id),
            Op::PutDocument(document) => self.put_document(document),
            Op::DeleteDocument { kind, owner, name } => self.delete_document(kind, owner, name),
            Op::PutDelivery(delivery) => self.put_delivery(delivery),
            Op::UpdateDelivery(delivery) => self.update_delivery(delivery),
            // OpenLineage events and their runs: lineage.rs.
            Op::PutLineageEvent(event) => self.put_lineage_event(event),
            Op::PutLineageRun(run) => self.put_lineage_run(run),
            // Outside the state, once every op of the batch has succeeded.
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
            Op::ClearAll => self.clear_all(),
            Op::RestoreHistory(lore_core::store::RestoredHistory::Advance(version)) => {
                // Taken back with the batch: a restore's ClearAll keeps the whole state.
                let history = &mut self.state.history;
                history.version = history.version.max(version);
            }
            Op::RestoreHistory(history) => self.restored.push(history),
            Op::PutModelVersion(counts) => {
                let history = &mut self.state.history;
                let number = history
                    .model_versions
                    .iter()
                    .rev()
                    .find(|v| v.counts.model == counts.model)
                    .map_or(0, |v| v.number)
                    + 1;
                history.model_versions.push(crate::history::KeptVersion {
                    version: history.version + 1,
                    number,
                    counts,
                });
                self.undo.push(Undo::ModelVersion);
            }
        }
        Ok(())
    }

    /// Empties the state (its undo keeps the whole old state) and, once the batch has
    /// succeeded, the operations and the id sequences.
    fn clear_all(&mut self) {
        let old = std::mem::take(self.state);
        self.state.meta_version = old.meta_version + 1;
        self.state.access_version = old.access_version + 1;
        // The history goes with everything else; versions go on from where they were.
        self.state.history.version = old.history.version;
        self.state.history.revisions.clear();
        self.undo.push(Undo::Everything(Box::new(old)));
        self.deferred.push(Deferred::ClearAll);
    }
}

impl Tx<'_> {
    /// The batch's revision, and the images of the kept rows it changed (as they were
    /// before it): what the undo log holds first for each row, after the last clear.
    fn record(&mut self, author: Author) {
        let version = self.state.history.version + 1;
        let start = self
            .undo
            .iter()
            .rposition(|u| matches!(u, Undo::Everything(_)))
            .map_or(0, |i| i + 1);
        let mut seen = HashSet::new();
        let mut changes = Vec::new();
        for undo in &self.undo[start..] {
            let (key, old) = match undo {
                Undo::Object(id, old) => (
                    RowKey::Object(*id),
                    old.clone().map(|o| Image::Object(Box::new(o))),
                ),
                Undo::Attribute(object, attribute, old) => (
                    RowKey::Attribute(*object, attribute.clone()),
                    old.clone().map(|value| {
                        Image::Attribute(AttributeValue {
                            object: *object,
                            attribute: attribute.clone(),
                            value,
                        })
                    }),
                ),
                Undo::Edge(edge, was) => (
                    RowKey::Edge(edge.source, edge.kind, edge.target, edge.name.clone()),
                    was.then(|| Image::Edge(edge.clone())),
                ),
                Undo::Tag(tag, was) => (
                    RowKey::Tag(tag.clone()),
                    was.then(|| Image::Tag(tag.clone())),
                ),
                Undo::Classification(object, data_class, old) => (
                    RowKey::Classification(*object, data_class.clone()),
                    old.map(|status| {
                        Image::Classification(Classification {
                            object: *object,
                            data_class: data_class.clone(),
                            status,
                        })
                    }),
                ),
                Undo::Label(object, label, old) => (
                    RowKey::Label(*object, label.clone()),
                    old.map(|status| {
                        Image::Label(LabelAssignment {
                            object: *object,
                            label: label.clone(),
                            status,
                        })
                    }),
                ),
                _ => continue,
            };
            if seen.insert(key.clone()) {
                changes.push((key, old));
            }
        }
        for (key, old) in changes {
            let now = self.state.image(&key);
            if now != old {
                let exists = now.is_some();
                self.state.history.changed(key, old, exists, version);
            }
        }
        // Curation and grants: the first image the undo log holds of each.
        let mut curation = HashSet::new();
        let mut grants = HashSet::new();
        for undo in &self.undo[start..] {
            match undo {
                Undo::Curation(id, old) if curation.insert(*id) => {
                    let now = self.state.curation.get(id);
                    if now != old.as_ref() {
                        let now = now.is_some();
                        let social = &mut self.state.history.social;
                        social.curation(*id, old.clone(), now, version);
                    }
                }
                Undo::Grant(grant, was) if grants.insert(grant.clone()) => {
                    let now = self.state.grants.contains(grant);
                    if now != *was {
                        let social = &mut self.state.history.social;
                        social.grant(grant.clone(), now, version);
                    }
                }
                _ => {}
            }
        }
        for restored in std::mem::take(&mut self.restored) {
            for key in self.state.history.restore(restored) {
                // A row the backup says is current but the restore did not write.
                if self.state.image(&key).is_none() {
                    self.state.history.since.remove(&key);
                }
            }
        }
        let history = &mut self.state.history;
        history.version = version;
        history.revisions.insert(
            version,
            Revision {
                version,
                at: lore_core::model::now(),
                author,
            },
        );
    }
}

impl MemoryStore {
    /// Applies a batch ([`StoreBase::apply`](lore_core::store::StoreBase::apply)): its ops in order
    /// on the locked state, all taken back if one fails, then the writes outside the state.
    pub(crate) fn apply_batch(&self, batch: Batch) -> Result<()> {
        let mut state = self.write()?;
        let mut tx = Tx {
            state: &mut state,
            undo: Vec::new(),
            deferred: Vec::new(),
            restored: Vec::new(),
        };
        if batch.ops.is_empty() {
            return Ok(());
        }
        for mut op in batch.ops {
            if let Err(e) = prepare(&mut op).and_then(|()| tx.apply(op)) {
                tx.rollback();
                return Err(e);
            }
        }
        tx.record(batch.author);
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
