//! Writes: each `Op` becomes statements, the same text on every dialect. Object,
//! attribute value, edge and tag rows are buffered and sent through the driver's bulk
//! path, so a model import of thousands of ops costs a few round trips.
//!
//! Buffering keeps a transaction's meaning: each table's writes keep their order (a
//! remove flushes its table's buffer first), writes to different tables commute (there
//! are no foreign keys), and a delete of objects flushes every buffer before it runs.
//! Import prints are the exception: triggers forget a print when its object changes, so
//! prints are buffered apart and sent in op order with everything else (any other op
//! sends the buffered prints first, a print sends the other buffers first).
//!
//! The ops of each domain become statements in a submodule: objects, what hangs on them
//! and the definitions they use in `objects`, users and their access in `access`, what
//! users keep and the server's own records in `content`, OpenLineage events in
//! `lineage`. The bulk tables are in
//! `tables`, the error of a failed write in `error`.

mod access;
mod content;
mod error;
mod history;
mod lineage;
mod objects;
mod tables;

use std::borrow::Cow;
use std::collections::HashSet;

use lore_core::model::{Author, ModelVersionCounts};
use lore_core::store::{ObjectsChanged, Op};
use lore_core::{Error, ObjectId, Result};

use crate::dialect::Dialect;
use crate::driver::{Stmt, Table};
use crate::value::SqlValue;

pub use access::user_name_key;
pub(crate) use content::{operation_params, owner_key};
pub use error::write_error;
pub use tables::{ATTRIBUTE_VALUES, OBJECTS, TAGS};
use tables::{CLEARED_TABLES, EDGES, IMPORT_PRINTS, NEW_ATTRIBUTE_VALUES, NEW_OBJECTS};

/// Rows buffered per table before they are sent, bounding the size of one statement.
pub const BULK_ROWS: usize = 10_000;

/// A transaction that changed the objects of more models than this moves the version
/// of all models (migration 28) instead of one statement per model.
const MOST_MODEL_VERSIONS: usize = 16;

/// A transaction that changed more objects than this records "everything" in the
/// journal of changes (migration 32) instead of a row per object.
pub(crate) const MOST_CHANGES: usize = 1_000;

/// Versions whose changes the journal keeps (migration 32).
pub(crate) const KEPT_CHANGES: i64 = 1_000;

/// Journal rows per statement.
const CHANGES_PER_STATEMENT: usize = 200;

/// What a statement was doing, for its error.
#[derive(Debug)]
pub struct Context {
    pub what: Cow<'static, str>,
    /// The conflict message when the statement clashes with a unique key.
    pub on_unique: Option<String>,
}

impl Context {
    pub(crate) fn of(what: impl Into<Cow<'static, str>>) -> Self {
        Self {
            what: what.into(),
            on_unique: None,
        }
    }
}

/// Statements ready to send, with what each one does.
#[derive(Debug, Default)]
pub struct Pending {
    pub stmts: Vec<Stmt>,
    pub contexts: Vec<Context>,
}

impl Pending {
    pub fn push(&mut self, stmt: Stmt, context: Context) {
        self.stmts.push(stmt);
        self.contexts.push(context);
    }
    pub fn is_empty(&self) -> bool {
        self.stmts.is_empty()
    }
}

/// Turns the ops of one transaction into statements.
#[derive(Debug)]
pub struct Writer {
    dialect: Dialect,
    /// Who makes the transaction, recorded with its revision (migration 34).
    author: Author,
    /// The transaction's history stamp: the `valid_from` of the rows it writes
    /// (migration 34).
    stamp: i64,
    objects: Vec<Vec<SqlValue>>,
    attributes: Vec<Vec<SqlValue>>,
    edges: Vec<Vec<SqlValue>>,
    tags: Vec<Vec<SqlValue>>,
    prints: Vec<Vec<SqlValue>>,
    /// Objects whose prints go because attribute values, tags or edges were added to
    /// them (no trigger forgets prints on those inserts: see migration 20).
    forget: Vec<ObjectId>,
    meta_changed: bool,
    /// An op changed what a principal is made of ([`Op::changes_access`]).
    access_changed: bool,
    /// An op was written: the catalog's version moves (migration 26).
    catalog_changed: bool,
    /// The models whose objects ops changed ([`Op::objects_changed`]): their versions
    /// move (migration 28); `None` for all of them.
    models_changed: Option<std::collections::BTreeSet<i64>>,
    /// The objects whose search row ops changed ([`search_row_changes`]), for the
    /// journal (migration 32); `None` for everything.
    objects_changed: Option<std::collections::BTreeSet<ObjectId>>,
    /// Journal rows written as the transaction went, under version -1, wait for the
    /// version the transaction moves the catalog to.
    changes_waiting: bool,
    /// The journal says "everything" for this transaction.
    changed_everything: bool,
    pending: Pending,
    /// Rows sent through the bulk path so far.
    bulk_rows: usize,
    /// Objects and attribute values from here on are new ([`Writer::expect_new_rows`]).
    new_rows: bool,
    /// The models of the new objects whose narrow rows wait for the end of the
    /// transaction ([`Dialect::narrow_rows_at_end`]).
    narrow_later: std::collections::BTreeSet<i64>,
    /// The models model objects were written to: what hangs on their objects, written
    /// before them, is placed at the end of the transaction (migration 31); `None` for
    /// every model.
    placing: Option<std::collections::BTreeSet<i64>>,
    /// Model versions to record at the end, under the catalog version's lock, so two
    /// imports of one model number theirs one after the other (migration 35).
    model_versions: Vec<ModelVersionCounts>,
}

impl Writer {
    /// A writer of statements in the dialect, for a transaction of `author` whose
    /// history stamp is `stamp` ([`Dialect::history_stamp`]).
    pub fn new(dialect: Dialect, author: Author, stamp: i64) -> Self {
        Self {
            dialect,
            author,
            stamp,
            model_versions: Vec::new(),
            objects: Vec::new(),
            attributes: Vec::new(),
            edges: Vec::new(),
            tags: Vec::new(),
            prints: Vec::new(),
            forget: Vec::new(),
            meta_changed: false,
            access_changed: false,
            catalog_changed: false,
            models_changed: Some(std::collections::BTreeSet::new()),
            objects_changed: Some(std::collections::BTreeSet::new()),
            changes_waiting: false,
            changed_everything: false,
            pending: Pending::default(),
            bulk_rows: 0,
            new_rows: false,
            narrow_later: std::collections::BTreeSet::new(),
            placing: Some(std::collections::BTreeSet::new()),
        }
    }

    /// Adds one (prepared) op.
    pub fn op(&mut self, op: Op) -> Result<()> {
        if !self.prints.is_empty() && !matches!(op, Op::SetImportPrint(_)) {
            self.flush_prints();
        }
        self.access_changed |= op.changes_access();
        self.catalog_changed = true;
        match (op.objects_changed(), &mut self.models_changed) {
            (ObjectsChanged::None, _) | (_, None) => {}
            (ObjectsChanged::Models(models), Some(changed)) => {
                changed.extend(models);
                if changed.len() > MOST_MODEL_VERSIONS {
                    self.models_changed = None;
                }
            }
            (ObjectsChanged::All, Some(_)) => self.models_changed = None,
        }
        self.note_changes(&op);
        match op {
            // Objects, what hangs on them and the definitions they use: write/objects.rs.
            Op::PutObject(object) => {
                self.placing_in(object.id.model);
                self.put_object(object)
            }
            Op::DeleteObject(id) => self.delete_object(id),
            Op::ClearModel(model) => self.clear_model(model),
            Op::SetAttribute(value) => self.set_attribute(value),
            Op::RemoveAttribute { object, attribute } => self.remove_attribute(object, attribute),
            Op::AddEdge(edge) => self.add_edge(edge),
            Op::RemoveEdge(edge) => self.remove_edge(edge),
            Op::AddTag(tag) => self.add_tag(tag),
            Op::RemoveTag(tag) => self.remove_tag(tag),
            Op::SetClassification(c) => self.set_classification(c),
            Op::RemoveClassification { object, data_class } => {
                self.remove_classification(object, data_class)
            }
            Op::SetLabelAssignment(l) => self.set_label_assignment(l),
            Op::RemoveLabelAssignment { object, label } => {
                self.remove_label_assignment(object, label)
            }
            Op::SetProfiling(p) => self.set_profiling(p)?,
            Op::SetImportPrint(p) => self.set_import_print(p),
            Op::PutModelVersion(counts) => self.model_versions.push(counts),
            Op::PutAttributeType(t) => self.put_attribute_type(t),
            Op::PutObjectType(t) => self.put_object_type(t)?,
            Op::PutDataClass(c) => self.put_data_class(c)?,
            Op::PutSensitivityLabel(l) => self.put_sensitivity_label(l),
            // Users, groups, memberships, roles and grants: write/access.rs.
            Op::PutUser(u) => self.put_user(u),
            Op::DeleteUser(id) => self.delete_user(id),
            Op::PutGroup(g) => self.put_group(g),
            Op::DeleteGroup(id) => self.delete_group(id),
            Op::AddMember(m) => self.add_member(m),
            Op::RemoveMember(m) => self.remove_member(m),
            Op::PutRole(role) => self.put_role(role)?,
            Op::DeleteRole(name) => self.delete_role(name),
            Op::AddGrant(g) => self.add_grant(g),
            Op::RemoveGrant(g) => self.remove_grant(g),
            // Worksheets, notifications, curation, documents, deliveries, operations with
            // their logs, import settings and attachments: write/content.rs.
            Op::PutWorksheet(w) => self.put_worksheet(w),
            Op::DeleteWorksheet(id) => self.delete_worksheet(id),
            Op::PutNotification(n) => self.put_notification(n),
            Op::PutCuration(c) => self.put_curation(c),
            Op::DeleteCuration(id) => self.delete_curation(id),
            Op::PutDocument(d) => self.put_document(d)?,
            Op::DeleteDocument { kind, owner, name } => self.delete_document(kind, owner, name),
            Op::PutDelivery(d) => self.put_delivery(d)?,
            Op::UpdateDelivery(d) => self.update_delivery(d)?,
            Op::PutOperation(operation) => self.put_operation(operation)?,
            Op::PutOperationLogLine { operation, line } => {
                self.put_operation_log_line(operation, line)
            }
            Op::PutImportSettings(settings) => self.put_import_settings(settings)?,
            Op::PutAttachment(attachment) => self.put_attachment(attachment),
            // OpenLineage events and their runs: write/lineage.rs.
            Op::PutLineageEvent(event) => self.put_lineage_event(event),
            Op::PutLineageRun(run) => self.put_lineage_run(run),
            // The whole store: here.
            Op::SetIdSequence { space, next } => self.set_id_sequence(space, next),
            Op::ClearAll => self.clear_all(),
            Op::RestoreHistory(history) => self.restore_history(history),
        }
        Ok(())
    }

    fn set_id_sequence(&mut self, space: i64, next: i64) {
        self.exec(
            "INSERT INTO id_sequences (model, next_id) VALUES ($1, $2) \
             ON CONFLICT (model) DO UPDATE SET next_id = excluded.next_id",
            vec![space.into(), next.into()],
            format!("setting the id sequence of id space {space}"),
        );
    }

    fn clear_all(&mut self) {
        // Buffered rows were written before the clear.
        self.flush();
        // The history goes with everything else, and the rows deleted leave none.
        let (pause, resume) = self.dialect.history_pause(self.stamp);
        self.exec(pause, Vec::new(), "pausing the history");
        for table in CLEARED_TABLES {
            self.exec(table.1, Vec::new(), format!("emptying table {}", table.0));
        }
        self.pending.push(
            Stmt::exec(resume, Vec::new()),
            Context::of("resuming the history"),
        );
        self.meta_changed = true;
    }

    /// The transaction's revision (migration 34), after the catalog's version moved.
    /// The revision of this transaction, after the catalog's version moved (under its
    /// row's lock): its time is never before the revision before it's, so the newest
    /// revision at a time is the one a reader at that time could have seen last.
    fn record_revision(&mut self) {
        let author = self.author;
        let sql = match self.dialect {
            Dialect::Sqlite => {
                "INSERT INTO catalog_versions (version, stamp, at, source, user_model, user_object, operation) \
                 SELECT version, $1, MAX($2, COALESCE((SELECT MAX(at) FROM catalog_versions), 0)), \
                 $3, $4, $5, $6 FROM versions WHERE name = 'catalog'"
            }
            Dialect::Postgres => {
                "INSERT INTO catalog_versions (version, stamp, at, source, user_model, user_object, operation) \
                 SELECT version, $1, GREATEST($2, COALESCE((SELECT MAX(at) FROM catalog_versions), 0)), \
                 $3, $4, $5, $6 FROM versions WHERE name = 'catalog'"
            }
        };
        self.exec(
            sql,
            vec![
                self.stamp.into(),
                lore_core::model::now().into(),
                author.source.as_str().into(),
                author.user.map(|u| u.model).into(),
                author.user.map(|u| u.object).into(),
                author.operation.into(),
            ],
            "recording the revision",
        );
    }

    /// A model version at this transaction's stamp, numbered after the model's last: at
    /// the end of the transaction, once the catalog version's row is locked.
    fn put_model_version(&mut self, counts: ModelVersionCounts) {
        self.exec(
            "INSERT INTO import_versions (model_id, number, stamp, objects, added, changed, removed) \
             SELECT $1, COALESCE(MAX(number), 0) + 1, $2, $3, $4, $5, $6 \
             FROM import_versions WHERE model_id = $1",
            vec![
                counts.model.into(),
                self.stamp.into(),
                counts.objects.into(),
                counts.added.into(),
                counts.changed.into(),
                counts.removed.into(),
            ],
            format!("recording a version of model {}", counts.model),
        );
    }

    /// The statements ready to send; partly filled bulk buffers wait for more rows.
    pub fn take(&mut self) -> Pending {
        std::mem::take(&mut self.pending)
    }

    /// Every remaining statement, at the end of the transaction.
    pub fn finish(&mut self) -> Pending {
        self.flush();
        self.write_narrow_rows();
        self.place_rows();
        if std::mem::take(&mut self.meta_changed) {
            self.exec(
                "UPDATE versions SET version = version + 1 WHERE name = 'meta'",
                Vec::new(),
                "moving the meta model version",
            );
        }
        if std::mem::take(&mut self.access_changed) {
            self.exec(
                "UPDATE versions SET version = version + 1 WHERE name = 'access'",
                Vec::new(),
                "moving the access version",
            );
        }
        if std::mem::take(&mut self.catalog_changed) {
            self.exec(
                "UPDATE versions SET version = version + 1 WHERE name = 'catalog'",
                Vec::new(),
                "moving the catalog version",
            );
            self.journal_changes();
            self.record_revision();
            for counts in std::mem::take(&mut self.model_versions) {
                self.put_model_version(counts);
            }
        }
        // After the catalog version moved: the models take its new value.
        let changed = self.models_changed.replace(Default::default());
        let models = match changed {
            Some(models) => models.into_iter().collect(),
            None => vec![crate::ALL_MODELS],
        };
        for model in models {
            self.exec(
                "INSERT INTO model_versions (model_id, version) \
                 SELECT $1, version FROM versions WHERE name = 'catalog' \
                 ON CONFLICT (model_id) DO UPDATE SET version = excluded.version",
                vec![model.into()],
                format!("moving the version of model {model}"),
            );
        }
        self.take()
    }

    /// Notes the objects whose search row the op changes, for the journal.
    fn note_changes(&mut self, op: &Op) {
        let Some(changed) = &mut self.objects_changed else {
            return;
        };
        match search_row_changes(op) {
            SearchRowChanges::None => {}
            SearchRowChanges::Object(id) => {
                changed.insert(id);
                if changed.len() > MOST_CHANGES {
                    self.objects_changed = None;
                }
            }
            SearchRowChanges::Curation(id, object) => {
                if let Some(object) = object {
                    changed.insert(object);
                }
                // The object the entry is on now (it may move to another).
                self.exec(
                    "INSERT INTO catalog_changes (version, model_id, object_id) \
                     SELECT -1, model_id, object_id FROM curation WHERE id = $1",
                    vec![id.into()],
                    format!("noting the object of curation entry {id}"),
                );
                self.changes_waiting = true;
            }
            SearchRowChanges::User(user) => {
                // A user made now makes the entries written before them count.
                self.exec(
                    "INSERT INTO catalog_changes (version, model_id, object_id) \
                     SELECT -1, c.model_id, c.object_id FROM curation c \
                     WHERE c.user_model = $1 AND c.user_object = $2 AND NOT EXISTS \
                     (SELECT 1 FROM users u WHERE u.model_id = $1 AND u.object_id = $2)",
                    vec![user.model.into(), user.object.into()],
                    format!("noting the objects user {user} curated"),
                );
                self.changes_waiting = true;
            }
            SearchRowChanges::All => self.objects_changed = None,
        }
    }

    /// The journal's rows for this transaction, after the catalog's version moved
    /// (migration 32), and the journal cut to [`KEPT_CHANGES`] versions.
    fn journal_changes(&mut self) {
        match self.objects_changed.replace(Default::default()) {
            None => {
                self.changed_everything = true;
                self.exec(
                    "INSERT INTO catalog_changes (version, model_id, object_id) \
                 SELECT version, NULL, NULL FROM versions WHERE name = 'catalog'",
                    Vec::new(),
                    "noting a change of everything",
                );
            }
            Some(objects) => {
                let objects: Vec<ObjectId> = objects.into_iter().collect();
                for chunk in objects.chunks(CHANGES_PER_STATEMENT) {
                    let mut params = Vec::with_capacity(chunk.len() * 2);
                    let mut rows = Vec::with_capacity(chunk.len());
                    for id in chunk {
                        rows.push(format!("(${}, ${})", params.len() + 1, params.len() + 2));
                        params.push(id.model.into());
                        params.push(id.object.into());
                    }
                    let sql = format!(
                        "INSERT INTO catalog_changes (version, model_id, object_id) \
                         SELECT v.version, c.column1, c.column2 FROM versions v, (VALUES {}) AS c \
                         WHERE v.name = 'catalog'",
                        rows.join(", ")
                    );
                    self.pending.push(
                        Stmt::exec(sql, params),
                        Context::of("noting the changed objects"),
                    );
                }
            }
        }
        if std::mem::take(&mut self.changes_waiting) {
            self.exec(
                "UPDATE catalog_changes SET version = \
                 (SELECT version FROM versions WHERE name = 'catalog') WHERE version = -1",
                Vec::new(),
                "numbering the noted changes",
            );
        }
        let oldest =
            format!("(SELECT v.version FROM versions v WHERE v.name = 'catalog') - {KEPT_CHANGES}");
        self.pending.push(
            Stmt::exec(
                format!("DELETE FROM catalog_changes WHERE version <= {oldest}"),
                Vec::new(),
            ),
            Context::of("forgetting old changes"),
        );
        self.pending.push(
            Stmt::exec(
                format!(
                    "UPDATE versions SET version = {oldest} \
                     WHERE name = 'catalog_changes' AND version < {oldest}"
                ),
                Vec::new(),
            ),
            Context::of("moving the oldest change kept"),
        );
    }

    fn exec(
        &mut self,
        sql: &'static str,
        params: Vec<SqlValue>,
        what: impl Into<Cow<'static, str>>,
    ) {
        self.pending
            .push(Stmt::exec(sql, params), Context::of(what));
    }

    fn flush(&mut self) {
        self.flush_objects();
        self.flush_attributes();
        self.flush_edges();
        self.flush_tags();
        self.flush_forgotten();
        self.flush_prints();
    }

    /// Forgets the import prints of objects rows were added to.
    pub(super) fn forget_print(&mut self, object: ObjectId) {
        if !self.new_rows {
            self.forget.push(object);
        }
    }

    fn flush_forgotten(&mut self) {
        let mut objects = std::mem::take(&mut self.forget);
        objects.sort_unstable();
        objects.dedup();
        self.per_objects(
            &objects,
            "forgetting the import prints of changed objects",
            |keys| {
                format!("DELETE FROM import_prints WHERE (model_id, object_id) IN (VALUES {keys})")
            },
        );
    }

    /// One statement per 500 of the objects: `sql` of the `VALUES` list of their ids.
    fn per_objects(&mut self, ids: &[ObjectId], what: &'static str, sql: impl Fn(&str) -> String) {
        /// Objects per statement, two parameters each.
        const PER_STATEMENT: usize = 500;
        for chunk in ids.chunks(PER_STATEMENT) {
            let keys: Vec<String> = (0..chunk.len())
                .map(|i| format!("(${}, ${})", 2 * i + 1, 2 * i + 2))
                .collect();
            let params = chunk
                .iter()
                .flat_map(|id| [SqlValue::from(id.model), id.object.into()])
                .collect();
            self.pending
                .push(Stmt::exec(sql(&keys.join(", ")), params), Context::of(what));
        }
    }

    fn flush_prints(&mut self) {
        let rows = std::mem::take(&mut self.prints);
        self.bulk(&IMPORT_PRINTS, last_wins(rows, 2), "storing import prints");
    }

    /// From here on, objects and attribute values are inserted without looking for a
    /// row to update (see `WriteTx::expect_new_rows`).
    pub fn expect_new_rows(&mut self) {
        self.flush();
        self.new_rows = true;
        if let Some(sql) = self.dialect.narrow_rows_at_end() {
            self.exec(sql.later, Vec::new(), "writing narrow rows at the end");
        }
    }

    /// The narrow rows of the new objects, with their labels, once everything else of
    /// the transaction is written ([`Dialect::narrow_rows_at_end`]).
    fn write_narrow_rows(&mut self) {
        let Some(sql) = self.dialect.narrow_rows_at_end() else {
            return;
        };
        if !self.new_rows {
            return;
        }
        let models = std::mem::take(&mut self.narrow_later);
        if !models.is_empty() {
            let list: Vec<String> = models.iter().map(i64::to_string).collect();
            self.exec(
                sql.write,
                vec![list.join(",").into()],
                "writing the new objects' narrow rows",
            );
        }
        // `lore.narrow_later` ends with the transaction.
        self.new_rows = false;
    }

    fn flush_objects(&mut self) {
        let rows = std::mem::take(&mut self.objects);
        if self.new_rows {
            if self.dialect.narrow_rows_at_end().is_some() {
                let mut last = None;
                for row in &rows {
                    if let SqlValue::Int(Some(model)) = row[0]
                        && last != Some(model)
                    {
                        last = Some(model);
                        self.narrow_later.insert(model);
                    }
                }
            }
            self.bulk(&NEW_OBJECTS, rows, "storing new objects");
        } else {
            // One upsert statement must not touch a row twice: the last write of each
            // object wins, as it would written one by one.
            let rows = last_wins(rows, 2);
            let ids: Vec<ObjectId> = rows
                .iter()
                .filter_map(|row| match (&row[0], &row[1]) {
                    (SqlValue::Int(Some(m)), SqlValue::Int(Some(o))) => Some(ObjectId::new(*m, *o)),
                    _ => None,
                })
                .collect();
            self.bulk(&OBJECTS, rows, "storing objects");
            self.fill_tags(&ids);
        }
    }

    /// Gives the tags written before their object (in this transaction or an earlier
    /// one) the object's type and name (migration 21). A new model's objects come
    /// before their tags ([`Writer::expect_new_rows`]), so only upserts need this.
    fn fill_tags(&mut self, ids: &[ObjectId]) {
        let fold = self.dialect.fold_function();
        self.per_objects(ids, "giving tags their object's type and name", |keys| {
            format!(
                "UPDATE tags SET type_fold = (SELECT {fold}(o.type_name) FROM objects o \
                 WHERE o.model_id = tags.model_id AND o.object_id = tags.object_id), \
                 object_name = (SELECT o.name FROM objects o \
                 WHERE o.model_id = tags.model_id AND o.object_id = tags.object_id) \
                 WHERE type_fold IS NULL AND (model_id, object_id) IN (VALUES {keys})"
            )
        });
    }

    fn flush_attributes(&mut self) {
        let rows = std::mem::take(&mut self.attributes);
        if self.new_rows {
            self.bulk(&NEW_ATTRIBUTE_VALUES, rows, "storing new attribute values");
        } else {
            let rows = last_wins(rows, 3);
            self.bulk(&ATTRIBUTE_VALUES, rows, "storing attribute values");
        }
    }

    fn flush_edges(&mut self) {
        let rows = std::mem::take(&mut self.edges);
        self.bulk(&EDGES, rows, "adding edges");
    }

    fn flush_tags(&mut self) {
        // A tag takes its object's type and name as it is inserted: the object first.
        self.flush_objects();
        let mut rows = std::mem::take(&mut self.tags);
        // Tags of one object whose values fold alike go in statements of their own: each
        // learns whether it is the first of its group from the tags stored before it.
        while !rows.is_empty() {
            let (now, later) = fold_groups_apart(rows);
            self.bulk(&TAGS, now, "adding tags");
            rows = later;
        }
    }

    /// Rows sent through the bulk path so far.
    pub fn bulk_rows(&self) -> usize {
        self.bulk_rows
    }

    /// Whether the journal says "everything" for this transaction (migration 32).
    pub fn changed_everything(&self) -> bool {
        self.changed_everything
    }

    fn bulk(&mut self, table: &'static Table, rows: Vec<Vec<SqlValue>>, what: &'static str) {
        self.bulk_rows += rows.len();
        if !rows.is_empty() {
            self.pending
                .push(Stmt::Insert { table, rows }, Context::of(what));
        }
    }
}

fn to_json<T: serde::Serialize>(value: &T, what: &str) -> Result<String> {
    serde_json::to_string(value)
        .map_err(|e| Error::internal(format!("cannot write {what} as JSON: {e}")))
}

/// Tag rows (object, kind, value) split in two: the first of each object's tags whose
/// values fold alike, and the rest, in order.
fn fold_groups_apart(rows: Vec<Vec<SqlValue>>) -> (Vec<Vec<SqlValue>>, Vec<Vec<SqlValue>>) {
    let text = |v: &SqlValue| match v {
        SqlValue::Text(Some(t)) => t.clone(),
        _ => String::new(),
    };
    let int = |v: &SqlValue| match v {
        SqlValue::Int(Some(i)) => *i,
        _ => 0,
    };
    let mut seen = HashSet::with_capacity(rows.len());
    let (mut now, mut later) = (Vec::with_capacity(rows.len()), Vec::new());
    for row in rows {
        let key = (
            int(&row[0]),
            int(&row[1]),
            text(&row[2]),
            lore_core::mql::plan::fold(&text(&row[3])),
        );
        if seen.insert(key) {
            now.push(row);
        } else {
            later.push(row);
        }
    }
    (now, later)
}

/// The rows with only the last of each key (the first `key_len` columns) kept, in order.
fn last_wins(rows: Vec<Vec<SqlValue>>, key_len: usize) -> Vec<Vec<SqlValue>> {
    let mut seen: HashSet<Vec<KeyPart<'_>>> = HashSet::with_capacity(rows.len());
    let mut keep: Vec<bool> = rows
        .iter()
        .rev()
        .map(|row| seen.insert(row[..key_len].iter().map(KeyPart::of).collect()))
        .collect();
    drop(seen);
    keep.reverse();
    if keep.iter().all(|k| *k) {
        return rows;
    }
    rows.into_iter()
        .zip(keep)
        .filter_map(|(row, keep)| keep.then_some(row))
        .collect()
}

/// A key column of a buffered row (ids and names only).
#[derive(Hash, PartialEq, Eq)]
enum KeyPart<'a> {
    Int(Option<i64>),
    Text(Option<&'a str>),
    Other,
}

impl<'a> KeyPart<'a> {
    fn of(value: &'a SqlValue) -> Self {
        match value {
            SqlValue::Int(v) => Self::Int(*v),
            SqlValue::Text(v) => Self::Text(v.as_deref()),
            _ => Self::Other,
        }
    }
}

/// Which objects' search rows (what [`crate::mirror`] keeps of them) an op changes.
enum SearchRowChanges {
    None,
    Object(ObjectId),
    /// The object a curation entry is on, read in the transaction (the op holds the
    /// entry's id, or may move it to another object), and the one it is put on.
    Curation(i64, Option<ObjectId>),
    /// The objects a user curated, when the user is new (curation written before its
    /// user counts from then on).
    User(ObjectId),
    All,
}

/// What the op changes of the objects' search rows: their columns, labels, data classes,
/// sensitivity labels and curation; edges, attribute values and profiling are not kept.
fn search_row_changes(op: &Op) -> SearchRowChanges {
    use lore_core::model::{Classification, LabelAssignment, Tag};
    match op {
        Op::PutObject(object) => SearchRowChanges::Object(object.id),
        Op::DeleteObject(id) => SearchRowChanges::Object(*id),
        Op::AddTag(Tag { object, .. })
        | Op::RemoveTag(Tag { object, .. })
        | Op::SetClassification(Classification { object, .. })
        | Op::RemoveClassification { object, .. }
        | Op::SetLabelAssignment(LabelAssignment { object, .. })
        | Op::RemoveLabelAssignment { object, .. } => SearchRowChanges::Object(*object),
        Op::PutCuration(c) => SearchRowChanges::Curation(c.id, Some(c.object)),
        Op::DeleteCuration(id) => SearchRowChanges::Curation(*id, None),
        Op::PutUser(user) => SearchRowChanges::User(user.id),
        // A model's objects, a label's rank, the classes classifications name, a user's
        // curation, everything.
        Op::ClearModel(_)
        | Op::PutSensitivityLabel(_)
        | Op::PutDataClass(_)
        | Op::DeleteUser(_)
        | Op::ClearAll => SearchRowChanges::All,
        _ => SearchRowChanges::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_folding_alike_are_kept_apart() {
        let row = |o: i64, v: &str| {
            vec![
                SqlValue::from(1_i64),
                SqlValue::from(o),
                SqlValue::from("label"),
                SqlValue::from(v),
            ]
        };
        let rows = vec![
            row(1, "PII"),
            row(1, "pii"),
            row(2, "pii"),
            row(1, "Gold"),
            row(1, "PiI"),
        ];
        let (now, later) = fold_groups_apart(rows);
        assert_eq!(now, vec![row(1, "PII"), row(2, "pii"), row(1, "Gold")]);
        assert_eq!(later, vec![row(1, "pii"), row(1, "PiI")]);
    }

    #[test]
    fn last_wins_keeps_the_last_of_each_key_in_order() {
        let row = |k: i64, v: &str| vec![SqlValue::from(k), SqlValue::from(v)];
        let rows = vec![
            row(1, "a"),
            row(2, "b"),
            row(1, "c"),
            row(3, "d"),
            row(2, "e"),
        ];
        assert_eq!(
            last_wins(rows, 1),
            vec![row(1, "c"), row(3, "d"), row(2, "e")]
        );
    }
}
