//! The storage contract. Backends implement [`Store`]; the [`Catalog`](crate::Catalog)
//! is its only caller.
//!
//! # Roles
//! [`Store`] is the sum of six role traits, each a part of the catalog and its callers:
//! - [`StoreBase`]: the backend's name, a health check, ids, snapshots and the write path
//!   ([`StoreBase::apply`], [`StoreBase::begin`]).
//! - [`ObjectStore`]: objects with what hangs on them, lineage, and MQL plans.
//! - [`DefinitionStore`]: the meta model and governance definitions added at run time.
//! - [`AccessStore`]: users, groups and grants.
//! - [`SessionStore`]: the caller of an API key, sessions and failed logins.
//! - [`RecordStore`]: what users and processes keep beside the catalog's objects, one
//!   role per concern of the [`Catalog`](crate::Catalog) (`records.rs`):
//!   [`ObjectRecords`] (documents), [`SearchRecords`] (worksheets), [`LineageRecords`]
//!   (OpenLineage events and runs), [`GovernanceRecords`] (curation),
//!   [`OperationRecords`] (operations, import settings and attachments, the system log)
//!   and [`NotificationRecords`] (notifications and their deliveries). Identity keeps
//!   its records in [`AccessStore`] and [`SessionStore`].
//!
//! A backend implements every role; the blanket implementation makes it a `Store`, so
//! `Arc<dyn Store>` carries them all, and a call on a `dyn Store` needs no import. A call
//! on a concrete store (`MemoryStore`, `SqlStore`) needs its role in scope:
//! `use lore_core::store::prelude::*;` brings them all. A store that wraps another (a
//! test double) forwards the roles it does not change with
//! [`delegate_store!`](crate::delegate_store).
//!
//! # Contract
//! - Every method is atomic. [`StoreBase::begin`] opens a [`WriteTx`] that takes writes in
//!   chunks and lands them all on [`WriteTx::commit`] or none of them (an error, or
//!   dropping the transaction, rolls back): after an error, reads see the store as it
//!   was. [`StoreBase::apply`] writes one [`Batch`] the same way.
//! - Reads return objects in the order each method names, so every backend answers alike.
//! - Ids come from [`StoreBase::reserve_ids`]; the store never invents ids on its own.
//! - Only hashes of API keys are stored ([`Session::key_hash`]).

mod delegate;
mod records;

pub use records::{
    GovernanceRecords, HistoryRecords, LineageRecords, NotificationRecords, ObjectRecords,
    OperationRecords, RecordStore, SearchRecords,
};

use async_trait::async_trait;

use crate::error::{Error, Result};
use crate::id::{ObjectId, REPOSITORY_MODEL};
use crate::model::*;
use crate::mql::plan::{Facet, Page, Plan, ValueCount};

/// One write of a [`Batch`].
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// Inserts the object or replaces the one with the same id. Names are unique among
    /// the repository objects of one parent (or the root): another repository object of
    /// the same parent and name is a CONFLICT. A parent in another id space than the
    /// object's is refused with INVALID_PARAMETER.
    PutObject(Object),
    /// Deletes an object and everything that hangs on it (attributes, edges to and from
    /// it, tags, classifications, labels, profiling, curation, grants on it). Children are not
    /// followed: delete them first, or use [`Op::ClearModel`].
    DeleteObject(ObjectId),
    /// Deletes every model object of the model number and everything hanging on them,
    /// keeping the model's repository object. The repository id space
    /// ([`REPOSITORY_MODEL`](crate::id::REPOSITORY_MODEL)) is refused with INVALID_PARAMETER.
    ClearModel(i64),
    /// Sets the value of an attribute on an object, replacing an earlier value.
    SetAttribute(AttributeValue),
    RemoveAttribute {
        object: ObjectId,
        attribute: String,
    },
    /// Adds an edge; adding an existing edge is a no-op.
    AddEdge(Edge),
    RemoveEdge(Edge),
    /// Adds a tag; adding an existing tag is a no-op.
    AddTag(Tag),
    RemoveTag(Tag),
    /// Sets the status of a data class on an object, replacing an earlier status.
    SetClassification(Classification),
    RemoveClassification {
        object: ObjectId,
        data_class: String,
    },
    /// Sets the status of a sensitivity label on an object, replacing an earlier status.
    SetLabelAssignment(LabelAssignment),
    RemoveLabelAssignment {
        object: ObjectId,
        label: String,
    },
    /// Replaces the profiling and sampling results of an object (both `None` removes them).
    SetProfiling(Profiling),
    /// Records the fingerprint a re-import compares an existing object by, replacing the
    /// one it had. Prints are a cache: any later write to the object or to what hangs on
    /// it (attributes, edges from it, tags, classifications, label assignments,
    /// profiling), and deleting it or the target of an edge from it, forgets its print;
    /// a store may forget prints at any time.
    SetImportPrint(ImportPrint),
    /// Inserts or replaces the attribute type of that name (names are unique among
    /// stored attribute types).
    PutAttributeType(AttributeType),
    /// Inserts or replaces the object type of that name (profile and name).
    PutObjectType(ObjectType),
    /// Inserts or replaces the data class of that name.
    PutDataClass(DataClass),
    /// Inserts or replaces the sensitivity label of that name.
    PutSensitivityLabel(SensitivityLabel),
    /// Inserts or replaces a user (by id); user names are unique, case-insensitively.
    PutUser(User),
    /// Deletes the user with their sessions, memberships, the grants they hold, their
    /// worksheets, their documents, their curation and their notifications;
    /// deleting an absent user is a no-op.
    DeleteUser(ObjectId),
    /// Inserts or replaces a group (by id); group names are unique, case-insensitively.
    PutGroup(Group),
    /// Deletes the group with its memberships and the grants it holds; deleting an
    /// absent group is a no-op.
    DeleteGroup(ObjectId),
    /// Adds a user to a group; adding an existing member, or to an absent group or an
    /// absent user, is a no-op.
    AddMember(Membership),
    /// Removes a user from a group; removing a non-member is a no-op.
    RemoveMember(Membership),
    /// Inserts or replaces a role (by name).
    PutRole(Role),
    /// Deletes the role of that name with every grant of it; deleting an absent role is
    /// a no-op.
    DeleteRole(String),
    /// Adds a grant; adding an existing grant is a no-op.
    AddGrant(Grant),
    RemoveGrant(Grant),
    /// Inserts a worksheet or replaces the one with the same id. Names are unique among
    /// one owner's worksheets, compared case-insensitively ([`Worksheet::name_key`]):
    /// another worksheet of the same owner and name is a CONFLICT.
    PutWorksheet(Worksheet),
    /// Deletes the worksheet of that id; deleting an absent one is a no-op.
    DeleteWorksheet(ObjectId),
    /// Inserts the notification or replaces the one with the same id.
    PutNotification(Notification),
    /// Inserts the delivery or replaces the one with the same id.
    PutDelivery(Delivery),
    /// Replaces the delivery of that id if the outbox still holds it (the outcome of an
    /// attempt); a no-op when it is gone (a restore emptied the outbox meanwhile).
    UpdateDelivery(Delivery),
    /// Inserts the curation entry or replaces the one with the same id.
    PutCuration(Curation),
    /// Deletes the curation entry of that id; deleting an absent one is a no-op.
    DeleteCuration(i64),
    /// Inserts or replaces the document of that kind, owner and name.
    PutDocument(Document),
    /// Deletes the document of that kind, owner and name; deleting an absent one is a
    /// no-op.
    DeleteDocument {
        kind: DocumentKind,
        owner: Option<ObjectId>,
        name: String,
    },
    /// Inserts an operation with its id, or replaces the one with that id (a restore;
    /// a new operation takes its id from [`OperationRecords::insert_operation`]).
    PutOperation(Operation),
    /// Writes a line of an operation's log, replacing the line of the same number.
    PutOperationLogLine {
        operation: i64,
        line: OperationLogLine,
    },
    /// Sets a model's import settings, replacing those it had.
    PutImportSettings(ImportSettings),
    /// Attaches a file to an object, replacing the object's attachment of the same name.
    PutAttachment(Attachment),
    /// Stores an OpenLineage event, once: when an event of the same
    /// [`digest`](LineageEvent::digest) is stored, nothing changes (not its run either).
    /// Otherwise the event is kept and, when it is a run event (`run_id` and `event_type`
    /// both set), merged into its run ([`LineageRun::merge`], the run created with
    /// [`LineageRun::of`] when it has none yet), atomically: several processes applying
    /// events of one run at once leave it as one of them applying them all would.
    /// Events and runs hang on no object or user.
    PutLineageEvent(LineageEvent),
    /// Writes a run as given, replacing the stored run of its id (a restore: a run
    /// outlives its purged events, so it cannot be rebuilt from them). Events put after
    /// it merge into it as into any run: an event it already reflects changes nothing.
    PutLineageRun(LineageRun),
    /// Sets the next id [`StoreBase::reserve_ids`] gives in an id space. Only a restore
    /// moves a sequence back, after [`Op::ClearAll`].
    SetIdSequence {
        space: i64,
        next: i64,
    },
    /// Records the version of a model an import makes, numbered after the model's last
    /// one, at this transaction's revision ([`HistoryRecords::model_versions`]). Counts
    /// below 0 are refused with INVALID_PARAMETER.
    PutModelVersion(ModelVersionCounts),
    /// Empties the store for a restore: every object and what hangs on it, the stored
    /// meta model and governance definitions, users, groups, memberships, grants,
    /// sessions, login failures, worksheets, notifications, deliveries, curation, documents,
    /// operations with their logs, import settings, attachments, lineage events and runs,
    /// and id sequences. The system log stays; the meta model version moves on.
    ClearAll,
    /// A restore's part of a backup's history, after [`Op::ClearAll`] and the rows it
    /// restores: see [`RestoredHistory`].
    RestoreHistory(RestoredHistory),
}

/// What a restore brings back of a backup's history, in the transaction that restores
/// it. The backup's revisions keep their versions, all below the restore's own:
/// [`RestoredHistory::Advance`] comes first, right after [`Op::ClearAll`], the rest after
/// the rows the restore writes.
#[derive(Debug, Clone, PartialEq)]
pub enum RestoredHistory {
    /// The catalog's version moves to this one when it is below, so the restoring
    /// transaction is numbered after every revision it brings back. Taken back with
    /// the transaction, as everything in it.
    Advance(i64),
    /// A revision of the backup.
    Revision(Revision),
    /// A model version, at the revision of that version.
    ModelVersion {
        version: i64,
        number: i64,
        counts: ModelVersionCounts,
    },
    /// Every image of one object's rows (or of server-wide grants): those replaced are
    /// kept as they were; a row current in the backup (`to` none) is one the restore
    /// wrote, and is current since its `from`, as in the backup.
    Images(Box<ObjectHistory>),
    /// The oldest revision that can be read: the backup's.
    Floor(i64),
}

impl Op {
    /// Whether the op changes what a [`Principal`] is made of (users, groups,
    /// memberships, roles, grants, or everything): a backend moves the access version of
    /// [`SessionCheck`] in the transaction that applies it.
    pub fn changes_access(&self) -> bool {
        matches!(
            self,
            Op::PutUser(_)
                | Op::DeleteUser(_)
                | Op::PutGroup(_)
                | Op::DeleteGroup(_)
                | Op::AddMember(_)
                | Op::RemoveMember(_)
                | Op::PutRole(_)
                | Op::DeleteRole(_)
                | Op::AddGrant(_)
                | Op::RemoveGrant(_)
                | Op::ClearAll
        )
    }

    /// Whose objects the op changes, as [`ObjectStore::entity_read`] and
    /// [`ObjectStore::details`] read them (the object row, its attribute values, edges,
    /// tags, classifications, label assignments and profiling): a store that keeps
    /// what it read moves a version of these models in the transaction that applies the
    /// op. Deleting an object takes the edges into it from objects of any model, so it
    /// changes all of them; the meta model, import prints and everything outside the
    /// objects change none.
    pub fn objects_changed(&self) -> ObjectsChanged {
        let one = |id: &ObjectId| ObjectsChanged::Models([id.model, id.model]);
        match self {
            Op::PutObject(object) => one(&object.id),
            Op::SetAttribute(AttributeValue { object, .. })
            | Op::RemoveAttribute { object, .. }
            | Op::AddTag(Tag { object, .. })
            | Op::RemoveTag(Tag { object, .. })
            | Op::SetClassification(Classification { object, .. })
            | Op::RemoveClassification { object, .. }
            | Op::SetLabelAssignment(LabelAssignment { object, .. })
            | Op::RemoveLabelAssignment { object, .. }
            | Op::SetProfiling(Profiling { object, .. }) => one(object),
            Op::AddEdge(edge) | Op::RemoveEdge(edge) => {
                ObjectsChanged::Models([edge.source.model, edge.target.model])
            }
            Op::DeleteObject(_) | Op::ClearModel(_) | Op::ClearAll => ObjectsChanged::All,
            Op::SetImportPrint(_)
            | Op::PutAttributeType(_)
            | Op::PutObjectType(_)
            | Op::PutDataClass(_)
            | Op::PutSensitivityLabel(_)
            | Op::PutUser(_)
            | Op::DeleteUser(_)
            | Op::PutGroup(_)
            | Op::DeleteGroup(_)
            | Op::AddMember(_)
            | Op::RemoveMember(_)
            | Op::PutRole(_)
            | Op::DeleteRole(_)
            | Op::AddGrant(_)
            | Op::RemoveGrant(_)
            | Op::PutWorksheet(_)
            | Op::DeleteWorksheet(_)
            | Op::PutNotification(_)
            | Op::PutDelivery(_)
            | Op::UpdateDelivery(_)
            | Op::PutCuration(_)
            | Op::DeleteCuration(_)
            | Op::PutDocument(_)
            | Op::DeleteDocument { .. }
            | Op::PutOperation(_)
            | Op::PutOperationLogLine { .. }
            | Op::PutImportSettings(_)
            | Op::PutAttachment(_)
            | Op::PutLineageEvent(_)
            | Op::PutLineageRun(_)
            | Op::SetIdSequence { .. }
            | Op::PutModelVersion(_)
            | Op::RestoreHistory(_) => ObjectsChanged::None,
        }
    }
}

/// An entity as it was at two versions ([`HistoryRecords::entities_at_both`]).
pub type EntityPair = ((Option<Object>, Details), (Option<Object>, Details));

/// Whose objects an [`Op`] changes ([`Op::objects_changed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ObjectsChanged {
    None,
    /// The objects of these models (an edge's two ends; one model twice otherwise).
    Models([i64; 2]),
    /// The objects of any model.
    All,
}

/// What an entity read would have answered at `version`, from the object's history
/// ([`HistoryRecords::entity_as_of`]): the images current then, in the order
/// [`Details`] keeps.
pub fn entity_at(history: ObjectHistory, version: i64) -> (Option<Object>, Details) {
    fn at<T>(images: Vec<Versioned<T>>, version: i64) -> Vec<T> {
        images
            .into_iter()
            .filter(|i| i.current_at(version))
            .map(|i| i.row)
            .collect()
    }
    let object = at(history.objects, version).pop();
    let mut details = Details {
        attributes: at(history.attributes, version),
        edges: at(history.edges, version),
        tags: at(history.tags, version),
        classifications: at(history.classifications, version),
        labels: at(history.labels, version),
        profiling: Vec::new(),
    };
    details.sort();
    (object, details)
}

impl Details {
    /// Puts each list in the order `Details` keeps (edges without repeats).
    pub fn sort(&mut self) {
        self.attributes
            .sort_by(|a, b| (a.object, &a.attribute).cmp(&(b.object, &b.attribute)));
        self.edges.sort();
        self.edges.dedup();
        self.tags.sort();
        self.classifications
            .sort_by(|a, b| (a.object, &a.data_class).cmp(&(b.object, &b.data_class)));
        self.labels
            .sort_by(|a, b| (a.object, &a.label).cmp(&(b.object, &b.label)));
    }
}

/// Brings an op into the form every backend stores, so all of them answer alike:
/// timestamps are cut to whole microseconds (UTC), and text holding the NUL character or
/// a NaN number is refused with INVALID_PARAMETER. So are the ops that break the id
/// spaces: an object with an id in the wrong id space or a parent in another one, and
/// clearing the repository's id space ([`Op::ClearModel`]). Every backend runs each op
/// through this before it writes.
pub fn prepare(op: &mut Op) -> Result<()> {
    match op {
        Op::PutObject(o) => prepare_object(o)?,
        Op::ClearModel(model) => {
            if *model == REPOSITORY_MODEL {
                return Err(Error::invalid(
                    "the repository's id space is not a model and cannot be cleared",
                ));
            }
        }
        Op::SetAttribute(a) => prepare_attribute(a)?,
        Op::RemoveAttribute { attribute, .. } => text(attribute, &|| "an attribute name".into())?,
        Op::AddEdge(e) | Op::RemoveEdge(e) => text(&e.name, &|| "an edge name".into())?,
        Op::AddTag(t) | Op::RemoveTag(t) => {
            text(&t.value, &|| format!("a {} name", t.kind.as_str()))?
        }
        Op::SetClassification(c) => text(&c.data_class, &|| "a data class name".into())?,
        Op::RemoveClassification { data_class, .. } => {
            text(data_class, &|| "a data class name".into())?
        }
        Op::SetLabelAssignment(l) => text(&l.label, &|| "a sensitivity label name".into())?,
        Op::RemoveLabelAssignment { label, .. } => {
            text(label, &|| "a sensitivity label name".into())?
        }
        Op::PutAttributeType(t) => {
            let what = || format!("attribute type '{}'", t.name);
            for field in [&t.name, &t.display_name, &t.group, &t.description] {
                text(field, &what)?;
            }
            text(t.profile.as_deref().unwrap_or_default(), &what)?;
        }
        Op::PutNotification(n) => {
            n.at = micros(n.at);
            text(&n.message, &|| format!("notification {}", n.id))?;
        }
        Op::PutCuration(c) => {
            c.at = micros(c.at);
            text(&c.text, &|| format!("{} {}", c.kind.as_str(), c.id))?;
        }
        Op::PutDocument(d) => {
            d.updated_at = micros(d.updated_at);
            let what = || format!("{} '{}'", d.kind.as_str(), d.name);
            text(&d.name, &what)?;
            json(&d.body, &what)?;
        }
        Op::DeleteDocument { name, .. } => text(name, &|| "a document name".into())?,
        Op::PutObjectType(t) => prepare_object_type(t)?,
        Op::PutDataClass(c) => {
            let what = || format!("data class '{}'", c.name);
            text(&c.name, &what)?;
            text(&c.description, &what)?;
            json(&c.definition, &what)?;
        }
        Op::PutSensitivityLabel(l) => prepare_sensitivity_label(l)?,
        Op::PutUser(u) => {
            u.created_at = micros(u.created_at);
            let what = || format!("user {}", u.id);
            for field in [&u.name, &u.full_name, &u.email, &u.description] {
                text(field, &what)?;
            }
        }
        Op::PutGroup(g) => {
            g.created_at = micros(g.created_at);
            let what = || format!("group {}", g.id);
            text(&g.name, &what)?;
            text(&g.description, &what)?;
        }
        Op::PutRole(r) => {
            let what = || format!("role '{}'", r.name);
            text(&r.name, &what)?;
            text(&r.description, &what)?;
        }
        Op::AddGrant(g) | Op::RemoveGrant(g) => text(&g.role, &|| "a role name".into())?,
        Op::SetProfiling(p) => {
            let what = || format!("the profiling of {}", p.object);
            json(&p.profile, &what)?;
            json(&p.sample, &what)?;
        }
        Op::PutWorksheet(w) => prepare_worksheet(w)?,
        Op::PutOperation(operation) => prepare_operation(operation)?,
        Op::PutDelivery(d) | Op::UpdateDelivery(d) => prepare_delivery(d)?,
        Op::PutOperationLogLine { line, .. } => prepare_log_line(line),
        Op::PutImportSettings(settings) => prepare_import_settings(settings)?,
        Op::PutAttachment(attachment) => prepare_attachment(attachment)?,
        Op::PutLineageEvent(event) => prepare_lineage_event(event)?,
        Op::PutLineageRun(run) => prepare_lineage_run(run)?,
        Op::PutModelVersion(counts) => {
            let ModelVersionCounts {
                objects,
                added,
                changed,
                removed,
                ..
            } = *counts;
            if objects.min(added).min(changed).min(removed) < 0 {
                return Err(Error::invalid(format!(
                    "the counts of a version of model {} must not be negative",
                    counts.model
                )));
            }
        }
        Op::SetIdSequence { space, next } => {
            if *next < 1 {
                return Err(Error::invalid(format!(
                    "the next id of id space {space} must be at least 1, not {next}"
                )));
            }
        }
        Op::RestoreHistory(history) => prepare_restored_history(history)?,
        Op::DeleteObject(_)
        | Op::SetImportPrint(_)
        | Op::ClearAll
        | Op::DeleteWorksheet(_)
        | Op::DeleteCuration(_)
        | Op::DeleteUser(_)
        | Op::DeleteGroup(_)
        | Op::DeleteRole(_)
        | Op::AddMember(_)
        | Op::RemoveMember(_) => {}
    }
    Ok(())
}

/// The highest version a restored history may name: far beyond what a store reaches,
/// and exact as a JSON number in every client.
pub const MOST_RESTORED_VERSION: i64 = 1 << 40;

/// A restore's history as every backend stores it (see [`prepare`]): its rows as their
/// ops' are; versions not below 0 and each image current in at least one.
fn prepare_restored_history(history: &mut RestoredHistory) -> Result<()> {
    fn interval<T>(image: &Versioned<T>, what: &str) -> Result<()> {
        if image.from < 0 || image.to.is_some_and(|to| to <= image.from) {
            return Err(Error::invalid(format!(
                "an image of {what} must be current from a version (0 or above) up to a \
                 later one, not from {} to {:?}",
                image.from, image.to
            )));
        }
        Ok(())
    }
    match history {
        RestoredHistory::Revision(revision) => {
            revision.at = micros(revision.at);
            if revision.version < 0 {
                return Err(Error::invalid(format!(
                    "a revision's version must not be negative, not {}",
                    revision.version
                )));
            }
        }
        RestoredHistory::ModelVersion {
            version,
            number,
            counts,
        } => {
            prepare(&mut Op::PutModelVersion(*counts))?;
            if *version < 0 || *number < 1 {
                return Err(Error::invalid(format!(
                    "a version of model {} must be numbered from 1 at a version not below 0, \
                     not {number} at {version}",
                    counts.model
                )));
            }
        }
        RestoredHistory::Images(images) => {
            for image in &mut images.objects {
                interval(image, "an object")?;
                prepare_object(&mut image.row)?;
            }
            for image in &mut images.attributes {
                interval(image, "an attribute value")?;
                prepare_attribute(&mut image.row)?;
            }
            for image in &images.edges {
                interval(image, "an edge")?;
                text(&image.row.name, &|| "an edge name".into())?;
            }
            for image in &images.tags {
                interval(image, "a tag")?;
                text(&image.row.value, &|| "a tag".into())?;
            }
            for image in &images.classifications {
                interval(image, "a data class")?;
                text(&image.row.data_class, &|| "a data class name".into())?;
            }
            for image in &images.labels {
                interval(image, "a sensitivity label")?;
                text(&image.row.label, &|| "a sensitivity label name".into())?;
            }
            for image in &mut images.curation {
                interval(image, "a curation entry")?;
                image.row.at = micros(image.row.at);
                text(&image.row.text, &|| {
                    format!("curation entry {}", image.row.id)
                })?;
            }
            for image in &images.grants {
                interval(image, "a grant")?;
                text(&image.row.role, &|| "a role name".into())?;
            }
        }
        RestoredHistory::Advance(version) => {
            if !(0..=MOST_RESTORED_VERSION).contains(version) {
                return Err(Error::invalid(format!(
                    "a restored history may run up to version {MOST_RESTORED_VERSION}, not {version}"
                )));
            }
        }
        RestoredHistory::Floor(floor) => {
            if *floor < 0 {
                return Err(Error::invalid(format!(
                    "the oldest readable version must not be negative, not {floor}"
                )));
            }
        }
    }
    Ok(())
}

/// An object as every backend stores it (see [`prepare`]).
fn prepare_object(o: &mut crate::model::Object) -> Result<()> {
    o.created_at = micros(o.created_at);
    o.updated_at = micros(o.updated_at);
    let what = || format!("object {}", o.id);
    // Model objects live in their model's id space, everything else in the
    // repository's: counts rely on it (the SQL backends' tallies).
    if o.id.is_repository() == (o.kind == crate::model::ObjectKind::ModelObject) {
        return Err(Error::invalid(format!(
            "{} is a {} and cannot have an id {} the repository's id space",
            what(),
            o.kind.as_str(),
            if o.id.is_repository() {
                "in"
            } else {
                "outside"
            }
        )));
    }
    text(&o.name, &what)?;
    text(&o.object_type.profile, &what)?;
    text(&o.object_type.name, &what)?;
    for field in [
        &o.physical_name,
        &o.native_id,
        &o.stable_id,
        &o.description,
        &o.business_name,
        &o.business_description,
        &o.data_type,
        &o.external_url,
        &o.workflow_state,
    ] {
        text(field.as_deref().unwrap_or_default(), &what)?;
    }
    if let Some(parent) = o.parent.filter(|p| p.model != o.id.model) {
        return Err(Error::invalid(format!(
            "object {} cannot have {parent} as its parent: a parent lies in the same id space as its child",
            o.id
        )));
    }
    Ok(())
}

/// An attribute value as every backend stores it (see [`prepare`]).
fn prepare_attribute(a: &mut AttributeValue) -> Result<()> {
    let what = || format!("attribute '{}' of {}", a.attribute, a.object);
    text(&a.attribute, &what)?;
    match &mut a.value {
        Value::Text(t) => text(t, &what)?,
        Value::Double(d) if d.is_nan() => {
            return Err(Error::invalid(format!("{} cannot be NaN", what())));
        }
        Value::DateTime(t) => *t = micros(*t),
        _ => {}
    }
    Ok(())
}

/// A worksheet as every backend stores it (see [`prepare`]).
fn prepare_worksheet(w: &mut Worksheet) -> Result<()> {
    w.created_at = micros(w.created_at);
    w.updated_at = micros(w.updated_at);
    let what = || format!("worksheet {}", w.id);
    let q = &w.query;
    for field in [&w.name, &w.description, &q.select] {
        text(field, &what)?;
    }
    for field in [&q.from, &q.scope, &q.filter, &q.order_by, &q.context] {
        text(field.as_deref().unwrap_or_default(), &what)?;
    }
    Ok(())
}

/// A delivery as every backend stores it (see [`prepare`]).
fn prepare_delivery(d: &mut Delivery) -> Result<()> {
    d.next_attempt_at = micros(d.next_attempt_at);
    d.created_at = micros(d.created_at);
    d.updated_at = micros(d.updated_at);
    no_nul(&mut d.last_error);
    let what = || format!("delivery {}", d.id);
    text(&d.target, &what)?;
    json(&d.payload, &what)?;
    Ok(())
}

/// An object type as every backend stores it (see [`prepare`]).
fn prepare_object_type(t: &mut ObjectType) -> Result<()> {
    let what = || format!("object type '{}'", t.name.qualified());
    for field in [&t.name.profile, &t.name.name, &t.display_name, &t.category] {
        text(field, &what)?;
    }
    for attribute in &t.attributes {
        text(attribute, &what)?;
    }
    Ok(())
}

/// A sensitivity label as every backend stores it (see [`prepare`]).
fn prepare_sensitivity_label(l: &mut SensitivityLabel) -> Result<()> {
    let what = || format!("sensitivity label '{}'", l.name);
    for field in [
        &l.name,
        &l.description,
        &l.foreground_color,
        &l.background_color,
    ] {
        text(field, &what)?;
    }
    Ok(())
}

/// A session as every backend stores it (see [`prepare`]).
pub fn prepare_session(session: &mut Session) -> Result<()> {
    session.created_at = micros(session.created_at);
    session.expires_at = micros(session.expires_at);
    session.last_seen_at = micros(session.last_seen_at);
    text(&session.key_hash, &|| "a session key".into())
}

/// A system log entry as every backend stores it (see [`prepare`]): the time cut to
/// microseconds, the NUL character (which no backend stores) replaced, and the path and
/// address cut to [`MAX_LOGGED_CHARS`] characters. An entry is never refused: a call
/// is recorded whatever its path.
pub fn prepare_log_entry(entry: &mut SystemLogEntry) {
    entry.time = micros(entry.time);
    for field in [
        &mut entry.user,
        &mut entry.address,
        &mut entry.method,
        &mut entry.path,
    ] {
        if field.contains('\0') {
            *field = field.replace('\0', "\u{FFFD}");
        }
        if let Some((cut, _)) = field.char_indices().nth(MAX_LOGGED_CHARS) {
            field.truncate(cut);
        }
    }
}

/// The longest text of a system log entry that is kept.
pub const MAX_LOGGED_CHARS: usize = 2048;

pub use crate::model::micros;

/// Replaces the NUL character, which no backend stores, in text Lore keeps whatever it
/// holds (a plugin's words).
fn no_nul(text: &mut String) {
    if text.contains('\0') {
        *text = text.replace('\0', "\u{FFFD}");
    }
}

/// An operation as every backend stores it: timestamps cut to microseconds, the NUL
/// character replaced in its words.
pub fn prepare_operation(operation: &mut Operation) -> Result<()> {
    operation.started_at = micros(operation.started_at);
    operation.heartbeat_at = micros(operation.heartbeat_at);
    let detail = &mut operation.detail;
    detail.finished_at = detail.finished_at.map(micros);
    for field in [
        &mut operation.kind,
        &mut operation.started_by,
        &mut detail.format,
        &mut detail.message,
        &mut detail.progress.phase,
        &mut detail.progress.unit,
    ] {
        no_nul(field);
    }
    json(&operation.detail, &|| format!("operation {}", operation.id))
}

/// A log line as every backend stores it (see [`prepare_operation`]).
pub fn prepare_log_line(line: &mut OperationLogLine) {
    line.at = micros(line.at);
    no_nul(&mut line.level);
    no_nul(&mut line.message);
}

/// Import settings as every backend stores them: NUL refused, the time cut.
pub fn prepare_import_settings(settings: &mut ImportSettings) -> Result<()> {
    settings.updated_at = micros(settings.updated_at);
    let what = || format!("the import settings of {}", settings.model);
    text(&settings.format, &what)?;
    text(settings.attachment.as_deref().unwrap_or_default(), &what)?;
    json(&settings.parameters, &what)
}

/// An attachment as every backend stores it: NUL refused in its names, the time cut.
pub fn prepare_attachment(attachment: &mut Attachment) -> Result<()> {
    let info = &mut attachment.info;
    info.created_at = micros(info.created_at);
    let what = || format!("an attachment of {}", info.object);
    for field in [&info.name, &info.media_type, &info.sha256, &info.created_by] {
        text(field, &what)?;
    }
    Ok(())
}

/// A lineage event as every backend stores it: its times cut to microseconds, NUL
/// refused in its names and body (replaced in the producer's error message), and an
/// event time far enough from 1970 that a run's state key (its microseconds times 8
/// plus [`RunState::rank`], see the SQL backends) stays a 64-bit number.
pub fn prepare_lineage_event(event: &mut LineageEvent) -> Result<()> {
    event.event_time = micros(event.event_time);
    event.received_at = micros(event.received_at);
    let what = || format!("lineage event {}", event.digest);
    for field in [&event.digest, &event.received_from, &event.body] {
        text(field, &what)?;
    }
    for field in [&event.run_id, &event.job_namespace, &event.job_name] {
        text(field.as_deref().unwrap_or_default(), &what)?;
    }
    if let Some(message) = &mut event.error_message {
        no_nul(message);
    }
    if lineage_state_key(event.event_time, RunState::Fail).is_none() {
        return Err(Error::invalid(format!(
            "the event time {} of {} is out of range",
            event.event_time,
            what()
        )));
    }
    Ok(())
}

/// A lineage run as every backend stores it (see [`prepare_lineage_event`]): its times
/// cut to microseconds, NUL refused in its names (replaced in the error message), and a
/// state time whose state key stays a 64-bit number.
pub fn prepare_lineage_run(run: &mut LineageRun) -> Result<()> {
    run.state_at = micros(run.state_at);
    run.started_at = run.started_at.map(micros);
    run.ended_at = run.ended_at.map(micros);
    run.error_at = run.error_at.map(micros);
    let what = || format!("lineage run {}", run.run_id);
    for field in [&run.run_id, &run.job_namespace, &run.job_name] {
        text(field, &what)?;
    }
    if let Some(message) = &mut run.error_message {
        no_nul(message);
    }
    if lineage_state_key(run.state_at, RunState::Fail).is_none() {
        return Err(Error::invalid(format!(
            "the state time {} of {} is out of range",
            run.state_at,
            what()
        )));
    }
    Ok(())
}

/// The order of a run's transitions as one number: its event time in microseconds times
/// 8 plus the state's [`RunState::rank`] (`None` for [`RunState::Other`], no
/// transition, or a time out of range), which orders like [`LineageRun::state_key`].
pub fn lineage_state_key(at: Timestamp, state: RunState) -> Option<i64> {
    if state == RunState::Other {
        return None;
    }
    at.timestamp_micros()
        .checked_mul(8)?
        .checked_add(state.rank())
}

/// Refuses JSON whose text holds the NUL character (written `\\u0000`).
fn json<T: serde::Serialize>(value: &T, what: &dyn Fn() -> String) -> Result<()> {
    let text = serde_json::to_string(value)
        .map_err(|e| Error::invalid(format!("{} cannot be written as JSON: {e}", what())))?;
    if text.contains("\\u0000") {
        return Err(Error::invalid(format!(
            "{} holds the NUL character (\\0), which Lore does not store",
            what()
        )));
    }
    Ok(())
}

fn text(value: &str, what: &dyn Fn() -> String) -> Result<()> {
    if value.contains('\0') {
        return Err(Error::invalid(format!(
            "{} holds the NUL character (\\0), which Lore does not store",
            what()
        )));
    }
    Ok(())
}

/// Writes that land together or not at all, and who makes them: the store records the
/// author with the transaction's revision ([`HistoryRecords`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Batch {
    pub ops: Vec<Op>,
    pub author: Author,
}

impl Batch {
    /// An empty batch of the server itself ([`Author::system`]).
    pub fn new() -> Self {
        Self::default()
    }
    /// The ops, written by `author`.
    pub fn by(author: Author, ops: Vec<Op>) -> Self {
        Self { ops, author }
    }
    pub fn push(&mut self, op: Op) -> &mut Self {
        self.ops.push(op);
        self
    }
    pub fn len(&self) -> usize {
        self.ops.len()
    }
    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }
}

/// A batch of the server itself ([`Author::system`]): what the catalog writes for a
/// caller names the caller instead ([`Batch::by`]).
impl From<Vec<Op>> for Batch {
    fn from(ops: Vec<Op>) -> Self {
        Self {
            ops,
            author: Author::system(),
        }
    }
}

/// Which objects a details read covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    /// These objects.
    Objects(Vec<ObjectId>),
    /// Every model object of the model number.
    Model(i64),
}

/// What hangs on a set of objects. Each list is sorted (by its derived `Ord`, or by
/// object then attribute name for attributes, by object for profiling).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Details {
    pub attributes: Vec<AttributeValue>,
    /// Edges whose source or target is in scope.
    pub edges: Vec<Edge>,
    pub tags: Vec<Tag>,
    pub classifications: Vec<Classification>,
    pub labels: Vec<LabelAssignment>,
    pub profiling: Vec<Profiling>,
}

/// What [`ObjectStore::entity_read`] answers.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct EntityRead {
    pub object: Option<Object>,
    pub details: Details,
    /// The key's check when one was asked for and its session is live; `None` when none
    /// was asked for, or the session is gone or expired.
    pub check: Option<SessionCheck>,
    /// The version of the repository's objects from the same read, where the store keeps
    /// one: two reads answer the same only if no repository object (a folder, a model,
    /// where one hangs) changed between them, so what was read of the repository's tree
    /// at the first still holds at the second. `None`: read the tree again.
    pub repository_version: Option<i64>,
}

/// A write transaction: writes go in as chunks of [`Op`]s and land together on
/// [`WriteTx::commit`]. Dropping it uncommitted rolls every write back. After a
/// `write` fails the transaction is spent: drop it. Reads outside the transaction see
/// the last committed state until it commits. A backend may report a failed write at
/// the `write` that caused it or only at `commit`.
#[async_trait]
pub trait WriteTx: Send {
    /// Applies the ops in order inside the transaction.
    async fn write(&mut self, ops: Vec<Op>) -> Result<()>;
    /// Promises that the objects and attribute values written from now on are new: no
    /// stored row and no earlier write of the transaction has their keys (the rows of a
    /// new model), and that nothing written from now on hangs on an object with an
    /// import print ([`Op::SetImportPrint`]), and that a tag is written after its
    /// object. A store may then insert them without looking for a row to update, a print
    /// to forget or a tag to complete (the SQL stores' tags carry their object's type
    /// and name); a clash fails the transaction. The default ignores the promise.
    fn expect_new_rows(&mut self) {}
    /// Makes every write of the transaction visible, or fails and keeps none of them.
    async fn commit(self: Box<Self>) -> Result<()>;
}

/// The transaction of stores without a streaming write path: collects the ops and
/// applies them as one batch at commit.
#[derive(Debug)]
struct Buffered<'a, S: ?Sized> {
    store: &'a S,
    ops: Vec<Op>,
    author: Author,
}

#[async_trait]
impl<S: StoreBase + ?Sized> WriteTx for Buffered<'_, S> {
    async fn write(&mut self, mut ops: Vec<Op>) -> Result<()> {
        self.ops.append(&mut ops);
        Ok(())
    }
    async fn commit(self: Box<Self>) -> Result<()> {
        self.store.apply(Batch::by(self.author, self.ops)).await
    }
}

/// How a SQL store runs a plan.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Explanation {
    /// The statement of a page.
    pub sql: String,
    /// The database's plan of it (`EXPLAIN QUERY PLAN`, `EXPLAIN`), one line each.
    pub database_plan: Vec<String>,
}

/// Which grants [`AccessStore::grants_on`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantsOn {
    /// Global grants (no object).
    Server,
    /// The grants on this object (not those on its ancestors).
    Object(ObjectId),
    /// Every grant on an object.
    AnyObject,
}

/// What authenticating an API key needs about its user, read at once.
#[derive(Debug, Clone, PartialEq)]
pub struct Principal {
    pub session: Session,
    pub user: User,
    /// The grants the user holds, directly or through their enabled groups, sorted.
    pub grants: Vec<Grant>,
    /// The stored roles those grants name, sorted by name.
    pub roles: Vec<Role>,
    /// The store's [`DefinitionStore::meta_version`] at the same moment.
    pub meta_version: i64,
    /// The store's access version at the same moment: see [`SessionCheck`].
    pub access_version: i64,
}

/// What a call with a key it has seen before reads to trust what it knew of the key's
/// caller ([`SessionStore::session_check`]): the live session, and the two versions
/// that move with what a [`Principal`] is made of. The access version moves in the
/// same transaction as every write to users, groups, memberships, roles and grants
/// (and [`Op::ClearAll`]); it may move without such a change, never stays on one. So a
/// principal read at access version `v` is still the key's while the check reads `v`,
/// in this process or any other on the same store.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionCheck {
    pub session: Session,
    pub access_version: i64,
    /// The store's [`DefinitionStore::meta_version`] at the same moment.
    pub meta_version: i64,
}

/// Storage of the whole catalog: every role below, so one `dyn Store` answers them all.
/// A backend implements each role trait; the blanket implementation makes it a `Store`.
/// See the module documentation for the roles and the contract.
pub trait Store:
    StoreBase + ObjectStore + DefinitionStore + AccessStore + SessionStore + RecordStore
{
}

impl<T> Store for T where
    T: StoreBase + ObjectStore + DefinitionStore + AccessStore + SessionStore + RecordStore
{
}

/// The roles of a [`Store`] in scope at once: `use lore_core::store::prelude::*;` lets a
/// caller call every store method on a concrete store (a `dyn Store` needs no import).
pub mod prelude {
    pub use super::{
        AccessStore, DefinitionStore, GovernanceRecords, HistoryRecords, LineageRecords,
        NotificationRecords, ObjectRecords, ObjectStore, OperationRecords, RecordStore,
        SearchRecords, SessionStore, Store, StoreBase,
    };
}

/// What every store is, whatever it holds: its name, a health check, ids, snapshots and
/// the write path ([`Batch`]es and [`WriteTx`]s). Used by the import, the backup and
/// every write of the [`Catalog`](crate::Catalog).
#[async_trait]
pub trait StoreBase: Send + Sync + std::fmt::Debug + 'static {
    /// A short name of the backend (`memory`, `sqlite`, `postgres`) for logs.
    fn backend(&self) -> &'static str;

    /// Checks that the store answers; used by `/healthz`.
    async fn ping(&self) -> Result<()>;

    /// Starts readying in the background what the store keeps in memory (the SQL
    /// stores' search index), so that the first calls find it ready; `lore serve` calls
    /// it once at start. Nothing by default.
    fn warm_up(&self) {}

    /// Reserves `count` consecutive ids in the id space of `model` (use
    /// [`REPOSITORY_MODEL`](crate::id::REPOSITORY_MODEL) for repository objects, users and
    /// groups) and returns the first. Reserved ids are never handed out again, even when
    /// the batch that was to use them fails.
    async fn reserve_ids(&self, model: i64, count: u64) -> Result<i64>;
    /// A read-only view of the store as it is now, which writes made afterwards do not
    /// change: every read of it answers from one consistent snapshot (a backup reads
    /// through one). Its writes fail. Writers do not wait for it; keep it only as long
    /// as needed (a SQL database keeps old row versions for it).
    async fn snapshot(&self) -> Result<std::sync::Arc<dyn Store>>;
    /// The next id of every id space that gave ids, by id space: `(space, next)`.
    async fn id_sequences(&self) -> Result<Vec<(i64, i64)>>;

    /// Applies the batch atomically.
    async fn apply(&self, batch: Batch) -> Result<()>;

    /// Opens a write transaction of `author`. Writers wait for each other; readers do
    /// not wait for writers.
    async fn begin(&self, author: Author) -> Result<Box<dyn WriteTx + '_>> {
        Ok(Box::new(Buffered {
            store: self,
            ops: Vec::new(),
            author,
        }))
    }
}

/// The repository and model objects with what hangs on them (attributes, edges, tags,
/// classifications, labels, profiling), lineage walks, and MQL plans run inside the store:
/// what browsing, search, lineage and the import read.
#[async_trait]
pub trait ObjectStore: Send + Sync {
    // ---- objects

    async fn object(&self, id: ObjectId) -> Result<Option<Object>>;
    async fn object_by_stable_id(&self, stable_id: &str) -> Result<Option<Object>>;
    /// The child named `name` (exact match) of `parent` inside the id space of `model`;
    /// `parent` `None` means the repository root or the model's top level.
    async fn child_by_name(
        &self,
        model: i64,
        parent: Option<ObjectId>,
        name: &str,
    ) -> Result<Option<Object>>;
    /// The children of `parent` in the id space of `model`, sorted by name then id.
    async fn children(&self, model: i64, parent: Option<ObjectId>) -> Result<Vec<Object>>;
    /// Every model object of the model number, sorted by id.
    async fn model_objects(&self, model: i64) -> Result<Vec<Object>>;
    /// At most `limit` model objects of the model number whose object number is above
    /// `after` (from the first with `None`), sorted by id: a model read page by page.
    async fn model_objects_page(
        &self,
        model: i64,
        after: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Object>>;
    /// At most `limit` model objects of the model number whose object number is above
    /// `after`, sorted by id, with what a re-import matches them by and their import
    /// prints ([`Op::SetImportPrint`]) where the store still has them.
    async fn model_prints_page(
        &self,
        model: i64,
        after: Option<i64>,
        limit: usize,
    ) -> Result<Vec<PrintedObject>>;
    /// Every repository object of the kind, sorted by name then id.
    async fn objects_of_kind(&self, kind: ObjectKind) -> Result<Vec<Object>>;
    /// The version of the repository's objects (folders, configurations, their versions
    /// and models) where the store keeps one: two reads answer the same only if no
    /// repository object changed between them, in this process or another, so what was
    /// read of the repository's tree at the first still holds at the second. `None`: no
    /// version is kept, read the tree again (the default).
    async fn repository_version(&self) -> Result<Option<i64>> {
        Ok(None)
    }
    /// The objects of these ids that exist, sorted by id.
    async fn objects(&self, ids: &[ObjectId]) -> Result<Vec<Object>>;
    /// What hangs on the objects in scope.
    async fn details(&self, scope: Scope) -> Result<Details>;
    /// [`ObjectStore::objects`] and [`ObjectStore::details`] of `Scope::Objects(ids)`
    /// together, from one snapshot: one read where an entity is shown with what hangs on
    /// it.
    async fn objects_with_details(&self, ids: &[ObjectId]) -> Result<(Vec<Object>, Details)>;
    /// What an object's entity (`GET /entities/{objectId}`) shows, in one read: the object
    /// of `id` if it exists, and of what hangs on it the attribute values, the edges
    /// *from* it, the tags and the classifications (label assignments and profiling
    /// left empty). Given a key hash and `now`, also that key's
    /// [`SessionStore::session_check`], from the same snapshot: a caller whose principal
    /// is already known costs no read of its own.
    async fn entity_read(&self, id: ObjectId, key: Option<(&str, Timestamp)>)
    -> Result<EntityRead>;
    /// Edges of the kind whose source (or, with `incoming`, target) is `object`, sorted.
    async fn edges(&self, kind: EdgeKind, object: ObjectId, incoming: bool) -> Result<Vec<Edge>>;
    /// Walks the lineage edges from `start`, breadth first: downstream (from source to
    /// target) or upstream. An object is expanded at each depth it is reached at below
    /// `bounds.depth`, following its first `bounds.fan_out` edges (by the other end, then
    /// name); each edge found is answered once, at the smallest depth of its near end plus
    /// one ([`LineageWalk`]).
    async fn lineage(
        &self,
        start: ObjectId,
        downstream: bool,
        bounds: LineageBounds,
    ) -> Result<LineageWalk>;

    // ---- MQL

    /// The ids of the objects that satisfy the plan, in its order, the page cut out:
    /// one read, run inside the store (see [`crate::mql::plan`]).
    async fn query(&self, plan: &Plan, page: Page) -> Result<Vec<ObjectId>>;
    /// How many objects satisfy the plan.
    async fn count(&self, plan: &Plan) -> Result<u64>;
    /// For each facet, its values among the objects that satisfy the plan, each object
    /// counted once per distinct value: most frequent first, then by value; at most
    /// `limit` (see [`crate::mql::eval::value_counts`]). One call for all the facets of
    /// a request, so a store finds the objects once for them.
    async fn value_counts(
        &self,
        plan: &Plan,
        facets: &[Facet],
        limit: u64,
    ) -> Result<Vec<Vec<ValueCount>>>;
    /// How the store runs the plan: its statement and the database's own plan, for
    /// `validateMQLQuery` with `explain=true`. `None` where there is no statement (the
    /// memory backend evaluates the plan directly).
    async fn explain(&self, plan: &Plan, page: Page) -> Result<Option<Explanation>> {
        let _ = (plan, page);
        Ok(None)
    }
}

/// The meta model and governance definitions added at run time (attribute and object
/// types, data classes, sensitivity labels, roles) and the version that tells a cache of
/// them is stale.
#[async_trait]
pub trait DefinitionStore: Send + Sync {
    /// Attribute types added at run time (built-ins come from [`MetaModel::builtin`]), by name.
    async fn attribute_types(&self) -> Result<Vec<AttributeType>>;
    /// Object types added at run time, by profile then name.
    async fn object_types(&self) -> Result<Vec<ObjectType>>;
    /// Data classes, sorted by name.
    async fn data_classes(&self) -> Result<Vec<DataClass>>;
    /// Sensitivity labels, sorted by name.
    async fn sensitivity_labels(&self) -> Result<Vec<SensitivityLabel>>;
    /// Roles, sorted by name.
    async fn roles(&self) -> Result<Vec<Role>>;
    /// A number that changes with every committed write of attribute types, data
    /// classes, sensitivity labels or roles, so a process can tell when what it cached of
    /// them is stale (another process over the same database may have written them).
    async fn meta_version(&self) -> Result<i64>;
}

/// Who may do what: users, groups, their memberships and the grants they hold. Read by
/// administration and by authorization; written through [`Batch`]es.
#[async_trait]
pub trait AccessStore: Send + Sync {
    async fn user(&self, id: ObjectId) -> Result<Option<User>>;
    /// The user of that name, compared case-insensitively (Unicode lowercase).
    async fn user_by_name(&self, name: &str) -> Result<Option<User>>;
    /// The user linked to an identity provider's account ([`ExternalLink::Subject`]),
    /// compared exactly.
    async fn user_by_external(&self, issuer: &str, subject: &str) -> Result<Option<User>>;
    async fn user_count(&self) -> Result<u64>;
    /// Every user, sorted by name (case-insensitively), then id.
    async fn users(&self) -> Result<Vec<User>>;
    async fn group(&self, id: ObjectId) -> Result<Option<Group>>;
    /// The group of that name, compared case-insensitively (Unicode lowercase).
    async fn group_by_name(&self, name: &str) -> Result<Option<Group>>;
    /// Every group, sorted by name (case-insensitively), then id.
    async fn groups(&self) -> Result<Vec<Group>>;
    /// The members of the group, sorted by name (case-insensitively), then id.
    async fn members(&self, group: ObjectId) -> Result<Vec<User>>;
    /// The groups the user belongs to, sorted by name (case-insensitively), then id.
    async fn groups_of(&self, user: ObjectId) -> Result<Vec<Group>>;
    /// Grants held by the grantee, sorted.
    async fn grants_of(&self, grantee: ObjectId) -> Result<Vec<Grant>>;
    /// The grants on the whole server, on one object, or on any object, sorted.
    async fn grants_on(&self, on: GrantsOn) -> Result<Vec<Grant>>;
    /// Grants of the role (role names compare exactly), sorted.
    async fn grants_of_role(&self, role: &str) -> Result<Vec<Grant>>;
}

/// Authentication's bookkeeping: the caller of an API key ([`SessionStore::principal`]),
/// sessions and the failed-login counters that throttle logins. Written outside batches.
#[async_trait]
pub trait SessionStore: Send + Sync {
    // ---- sessions

    /// The session of the key hash (if it exists and has not expired at `now`) with its
    /// user, the grants the user holds directly or through an enabled group, and their
    /// roles: one read.
    async fn principal(&self, key_hash: &str, now: Timestamp) -> Result<Option<Principal>>;
    /// The session of the key hash (if it exists and has not expired at `now`) with the
    /// store's access and meta versions: one small read, for a key whose principal the
    /// caller already holds.
    async fn session_check(&self, key_hash: &str, now: Timestamp) -> Result<Option<SessionCheck>>;

    async fn put_session(&self, session: Session) -> Result<()>;
    /// The session with that key hash, if it exists and has not expired at `now`.
    async fn session(&self, key_hash: &str, now: Timestamp) -> Result<Option<Session>>;
    async fn delete_session(&self, key_hash: &str) -> Result<()>;
    /// Ends every session of the user; returns how many ended.
    async fn delete_sessions_of(&self, user: ObjectId) -> Result<u64>;
    /// Removes sessions expired at `now` (`expires_at <= now`, as [`SessionStore::session`]
    /// sees them); returns how many.
    async fn purge_sessions(&self, now: Timestamp) -> Result<u64>;
    /// Records that the session's key was used at `now` (its `last_seen_at`).
    async fn touch_session(&self, key_hash: &str, now: Timestamp) -> Result<()>;

    // ---- failed logins

    /// The failed-login counters of these subjects, those that exist.
    async fn login_failures(&self, subjects: &[String]) -> Result<Vec<LoginFailures>>;
    /// Counts one failed login against each subject at `now`, atomically (concurrent
    /// failures from several processes all count). A counter whose last failure is at
    /// or before `restart_before` starts again at 1.
    async fn add_login_failure(
        &self,
        subjects: &[String],
        now: Timestamp,
        restart_before: Timestamp,
    ) -> Result<()>;
    /// Forgets the subjects' failed logins.
    async fn clear_login_failures(&self, subjects: &[String]) -> Result<()>;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    fn object(id: ObjectId, kind: ObjectKind, parent: Option<ObjectId>) -> Op {
        let mut object = Object::new(
            id,
            kind,
            TypeName::new("ER", "Table"),
            SystemType::Classifier,
            "o",
        );
        object.parent = parent;
        Op::PutObject(object)
    }

    fn refused(mut op: Op) -> Error {
        match prepare(&mut op) {
            Ok(()) => panic!("{op:?} was not refused"),
            Err(e) => e,
        }
    }

    #[test]
    fn a_parent_lies_in_the_id_space_of_its_child() {
        let model = ObjectId::new(5, 1);
        let e = refused(object(
            model,
            ObjectKind::ModelObject,
            Some(ObjectId::new(6, 1)),
        ));
        assert_eq!(e.code, ErrorCode::InvalidParameter);
        assert_eq!(
            e.message,
            "object 5_1 cannot have 6_1 as its parent: a parent lies in the same id space as its child"
        );
        let in_repository = ObjectId::repository(3);
        let e = refused(object(model, ObjectKind::ModelObject, Some(in_repository)));
        assert_eq!(e.code, ErrorCode::InvalidParameter);
        let e = refused(object(in_repository, ObjectKind::Folder, Some(model)));
        assert_eq!(e.code, ErrorCode::InvalidParameter);
        for mut op in [
            object(model, ObjectKind::ModelObject, Some(ObjectId::new(5, 2))),
            object(model, ObjectKind::ModelObject, None),
            object(
                in_repository,
                ObjectKind::Folder,
                Some(ObjectId::repository(2)),
            ),
        ] {
            prepare(&mut op).expect("a parent in the same id space");
        }
    }

    #[test]
    fn only_a_model_is_cleared() {
        let e = refused(Op::ClearModel(REPOSITORY_MODEL));
        assert_eq!(e.code, ErrorCode::InvalidParameter);
        assert_eq!(
            e.message,
            "the repository's id space is not a model and cannot be cleared"
        );
        prepare(&mut Op::ClearModel(5)).expect("a model's id space");
    }

    #[test]
    fn an_op_changes_the_objects_of_its_models() {
        let (a, b) = (ObjectId::new(5, 1), ObjectId::new(6, 2));
        assert_eq!(
            object(a, ObjectKind::ModelObject, None).objects_changed(),
            ObjectsChanged::Models([5, 5])
        );
        let tag = Tag {
            object: b,
            kind: TagKind::Label,
            value: "PII".into(),
        };
        assert_eq!(
            Op::RemoveTag(tag).objects_changed(),
            ObjectsChanged::Models([6, 6])
        );
        let edge = Edge {
            kind: EdgeKind::Lineage,
            source: a,
            target: b,
            name: "feeds".into(),
            origin: None,
        };
        assert_eq!(
            Op::AddEdge(edge).objects_changed(),
            ObjectsChanged::Models([5, 6]),
            "an edge changes both its ends' models"
        );
        for op in [Op::DeleteObject(b), Op::ClearModel(6), Op::ClearAll] {
            assert_eq!(
                op.objects_changed(),
                ObjectsChanged::All,
                "{op:?} takes edges from objects of any model"
            );
        }
        assert_eq!(
            Op::DeleteRole("Viewer".into()).objects_changed(),
            ObjectsChanged::None
        );
    }
}
