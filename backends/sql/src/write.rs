//! Writes: each `Op` becomes statements, the same text on every dialect. Object,
//! attribute value, edge and tag rows are buffered and sent through the driver's bulk
//! path, so a model import of thousands of ops costs a few round trips.
//!
//! Buffering keeps a transaction's meaning: each table's writes keep their order (a
//! remove flushes its table's buffer first), writes to different tables commute (there
//! are no foreign keys), and a delete of objects flushes every buffer before it runs.

use std::borrow::Cow;
use std::collections::HashSet;

use lore_core::id::REPOSITORY_MODEL;
use lore_core::model::*;
use lore_core::store::Op;
use lore_core::{Error, ObjectId, Result};

use crate::driver::{DbError, DbErrorKind, Stmt, Table};
use crate::value::{ColType, SqlValue};

/// Rows buffered per table before they are sent, bounding the size of one statement.
pub const BULK_ROWS: usize = 10_000;

use ColType::{Bool, Int, Real, Text};

const OBJECT_COLUMNS: &[(&str, ColType)] = &[
    ("model_id", Int),
    ("object_id", Int),
    ("kind", Text),
    ("parent", Int),
    ("profile", Text),
    ("type_name", Text),
    ("system_type", Text),
    ("name", Text),
    ("physical_name", Text),
    ("native_id", Text),
    ("stable_id", Text),
    ("description", Text),
    ("business_name", Text),
    ("business_description", Text),
    ("data_type", Text),
    ("external_url", Text),
    ("hide_data", Bool),
    ("workflow_state", Text),
    ("created_at", Int),
    ("updated_at", Int),
    ("updated_by_model", Int),
    ("updated_by_object", Int),
];

pub static OBJECTS: Table = Table {
    name: "objects",
    columns: OBJECT_COLUMNS,
    on_conflict: "ON CONFLICT (model_id, object_id) DO UPDATE SET kind = excluded.kind, \
        parent = excluded.parent, profile = excluded.profile, type_name = excluded.type_name, \
        system_type = excluded.system_type, name = excluded.name, \
        physical_name = excluded.physical_name, native_id = excluded.native_id, \
        stable_id = excluded.stable_id, description = excluded.description, \
        business_name = excluded.business_name, business_description = excluded.business_description, \
        data_type = excluded.data_type, external_url = excluded.external_url, \
        hide_data = excluded.hide_data, workflow_state = excluded.workflow_state, \
        created_at = excluded.created_at, updated_at = excluded.updated_at, \
        updated_by_model = excluded.updated_by_model, updated_by_object = excluded.updated_by_object",
};

const ATTRIBUTE_VALUE_COLUMNS: &[(&str, ColType)] = &[
    ("model_id", Int),
    ("object_id", Int),
    ("attribute", Text),
    ("value_kind", Text),
    ("text_value", Text),
    ("integer_value", Int),
    ("double_value", Real),
    ("boolean_value", Bool),
    ("datetime_value", Int),
];

pub static ATTRIBUTE_VALUES: Table = Table {
    name: "attribute_values",
    columns: ATTRIBUTE_VALUE_COLUMNS,
    on_conflict: "ON CONFLICT (model_id, object_id, attribute) DO UPDATE SET \
        value_kind = excluded.value_kind, text_value = excluded.text_value, \
        integer_value = excluded.integer_value, double_value = excluded.double_value, \
        boolean_value = excluded.boolean_value, datetime_value = excluded.datetime_value",
};

/// [`OBJECTS`] and [`ATTRIBUTE_VALUES`] for rows promised new
/// ([`Writer::expect_new_rows`]): plain inserts, which a clash fails.
static NEW_OBJECTS: Table = Table {
    name: "objects",
    columns: OBJECT_COLUMNS,
    on_conflict: "",
};
static NEW_ATTRIBUTE_VALUES: Table = Table {
    name: "attribute_values",
    columns: ATTRIBUTE_VALUE_COLUMNS,
    on_conflict: "",
};

pub static EDGES: Table = Table {
    name: "edges",
    columns: &[
        ("source_model", Int),
        ("source_object", Int),
        ("kind", Text),
        ("target_model", Int),
        ("target_object", Int),
        ("name", Text),
    ],
    on_conflict: "ON CONFLICT DO NOTHING",
};

pub static TAGS: Table = Table {
    name: "tags",
    columns: &[
        ("model_id", Int),
        ("object_id", Int),
        ("kind", Text),
        ("value", Text),
    ],
    on_conflict: "ON CONFLICT DO NOTHING",
};

/// The tables that hang on an object through (model_id, object_id).
const HANGING_TABLES: [&str; 9] = [
    "attribute_values",
    "tags",
    "classifications",
    "label_assignments",
    "profiling",
    "grants",
    "import_settings",
    "attachments",
    "curation",
];

/// Every table [`Op::ClearAll`] empties, with its statement: all but the system log and
/// the schema's own bookkeeping.
const CLEARED_TABLES: [(&str, &str); 28] = [
    ("objects", "DELETE FROM objects"),
    ("attribute_values", "DELETE FROM attribute_values"),
    ("edges", "DELETE FROM edges"),
    ("tags", "DELETE FROM tags"),
    ("classifications", "DELETE FROM classifications"),
    ("label_assignments", "DELETE FROM label_assignments"),
    ("profiling", "DELETE FROM profiling"),
    ("attribute_types", "DELETE FROM attribute_types"),
    ("object_types", "DELETE FROM object_types"),
    ("data_classes", "DELETE FROM data_classes"),
    ("sensitivity_labels", "DELETE FROM sensitivity_labels"),
    ("roles", "DELETE FROM roles"),
    ("users", "DELETE FROM users"),
    ("user_groups", "DELETE FROM user_groups"),
    ("group_members", "DELETE FROM group_members"),
    ("grants", "DELETE FROM grants"),
    ("sessions", "DELETE FROM sessions"),
    ("login_failures", "DELETE FROM login_failures"),
    ("worksheets", "DELETE FROM worksheets"),
    ("notifications", "DELETE FROM notifications"),
    ("deliveries", "DELETE FROM deliveries"),
    ("curation", "DELETE FROM curation"),
    ("documents", "DELETE FROM documents"),
    ("operations", "DELETE FROM operations"),
    ("operation_log", "DELETE FROM operation_log"),
    ("import_settings", "DELETE FROM import_settings"),
    ("attachments", "DELETE FROM attachments"),
    ("id_sequences", "DELETE FROM id_sequences"),
];

/// The parameters `$1`..`$8` of an operation's row, without its id: kind, state, model,
/// started by and at, heartbeat, detail.
pub(crate) fn operation_params(operation: &Operation) -> Result<Vec<SqlValue>> {
    let detail = to_json(&operation.detail, "an operation's detail")?;
    Ok(vec![
        operation.kind.as_str().into(),
        operation.state.as_str().into(),
        operation.model.map(|m| m.model).into(),
        operation.model.map(|m| m.object).into(),
        operation.started_by.as_str().into(),
        operation.started_at.into(),
        operation.heartbeat_at.into(),
        detail.into(),
    ])
}

/// The parameters `$1`..`$10` of a delivery's row: id, channel, target, payload, state,
/// attempts, next attempt, last error, created and updated.
fn delivery_params(d: Delivery) -> Result<Vec<SqlValue>> {
    let payload = to_json(&d.payload, "a delivery's payload")?;
    Ok(vec![
        d.id.into(),
        d.channel.as_str().into(),
        d.target.into(),
        payload.into(),
        d.state.as_str().into(),
        i64::from(d.attempts).into(),
        d.next_attempt_at.into(),
        d.last_error.into(),
        d.created_at.into(),
        d.updated_at.into(),
    ])
}

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
#[derive(Debug, Default)]
pub struct Writer {
    objects: Vec<Vec<SqlValue>>,
    attributes: Vec<Vec<SqlValue>>,
    edges: Vec<Vec<SqlValue>>,
    tags: Vec<Vec<SqlValue>>,
    meta_changed: bool,
    pending: Pending,
    /// Rows sent through the bulk path so far.
    bulk_rows: usize,
    /// Objects and attribute values from here on are new ([`Writer::expect_new_rows`]).
    new_rows: bool,
}

impl Writer {
    /// Adds one (prepared) op.
    pub fn op(&mut self, op: Op) -> Result<()> {
        match op {
            Op::PutObject(object) => {
                if let Some(parent) = object.parent.filter(|p| p.model != object.id.model) {
                    return Err(Error::invalid(format!(
                        "object {} cannot have {parent} as its parent: a parent lies in the same id space as its child",
                        object.id
                    )));
                }
                self.objects.push(object_row(object));
                if self.objects.len() >= BULK_ROWS {
                    self.flush_objects();
                }
            }
            Op::DeleteObject(id) => {
                self.flush();
                self.delete_object(id);
            }
            Op::ClearModel(model) => {
                if model == REPOSITORY_MODEL {
                    return Err(Error::invalid(
                        "the repository's id space is not a model and cannot be cleared",
                    ));
                }
                self.flush();
                self.clear_model(model);
            }
            Op::SetAttribute(value) => {
                self.attributes.push(attribute_row(value));
                if self.attributes.len() >= BULK_ROWS {
                    self.flush_attributes();
                }
            }
            Op::RemoveAttribute { object, attribute } => {
                self.flush_attributes();
                let what = format!("removing attribute '{attribute}' of {object}");
                self.exec(
                    "DELETE FROM attribute_values WHERE model_id = $1 AND object_id = $2 AND attribute = $3",
                    vec![object.model.into(), object.object.into(), attribute.into()],
                    what,
                );
            }
            Op::AddEdge(edge) => {
                self.edges.push(edge_row(edge));
                if self.edges.len() >= BULK_ROWS {
                    self.flush_edges();
                }
            }
            Op::RemoveEdge(edge) => {
                self.flush_edges();
                let what = format!(
                    "removing a {} edge from {} to {}",
                    edge.kind.as_str(),
                    edge.source,
                    edge.target
                );
                self.exec(
                    "DELETE FROM edges WHERE source_model = $1 AND source_object = $2 AND kind = $3 \
                     AND target_model = $4 AND target_object = $5 AND name = $6",
                    edge_row(edge),
                    what,
                );
            }
            Op::AddTag(tag) => {
                self.tags.push(tag_row(tag));
                if self.tags.len() >= BULK_ROWS {
                    self.flush_tags();
                }
            }
            Op::RemoveTag(tag) => {
                self.flush_tags();
                let what = format!(
                    "removing {} '{}' from {}",
                    tag.kind.as_str(),
                    tag.value,
                    tag.object
                );
                self.exec(
                    "DELETE FROM tags WHERE model_id = $1 AND object_id = $2 AND kind = $3 AND value = $4",
                    tag_row(tag),
                    what,
                );
            }
            Op::SetClassification(c) => {
                let what = format!("classifying {} as '{}'", c.object, c.data_class);
                self.exec(
                    "INSERT INTO classifications (model_id, object_id, data_class, status) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (model_id, object_id, data_class) DO UPDATE SET status = excluded.status",
                    vec![
                        c.object.model.into(),
                        c.object.object.into(),
                        c.data_class.into(),
                        c.status.as_str().into(),
                    ],
                    what,
                );
            }
            Op::RemoveClassification { object, data_class } => {
                let what = format!("removing data class '{data_class}' from {object}");
                self.exec(
                    "DELETE FROM classifications WHERE model_id = $1 AND object_id = $2 AND data_class = $3",
                    vec![object.model.into(), object.object.into(), data_class.into()],
                    what,
                );
            }
            Op::SetLabelAssignment(l) => {
                let what = format!("labelling {} as '{}'", l.object, l.label);
                self.exec(
                    "INSERT INTO label_assignments (model_id, object_id, label, status) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (model_id, object_id, label) DO UPDATE SET status = excluded.status",
                    vec![
                        l.object.model.into(),
                        l.object.object.into(),
                        l.label.into(),
                        l.status.as_str().into(),
                    ],
                    what,
                );
            }
            Op::RemoveLabelAssignment { object, label } => {
                let what = format!("removing sensitivity label '{label}' from {object}");
                self.exec(
                    "DELETE FROM label_assignments WHERE model_id = $1 AND object_id = $2 AND label = $3",
                    vec![object.model.into(), object.object.into(), label.into()],
                    what,
                );
            }
            Op::SetProfiling(p) => self.set_profiling(p)?,
            Op::PutAttributeType(t) => {
                self.meta_changed = true;
                let what = format!("writing attribute type '{}'", t.name);
                self.exec(
                    "INSERT INTO attribute_types (name, display_name, kind, value_type, profile, group_name, description) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7) \
                     ON CONFLICT (name) DO UPDATE SET display_name = excluded.display_name, kind = excluded.kind, \
                     value_type = excluded.value_type, profile = excluded.profile, \
                     group_name = excluded.group_name, description = excluded.description",
                    vec![
                        t.name.into(),
                        t.display_name.into(),
                        t.kind.as_str().into(),
                        t.value_type.as_str().into(),
                        t.profile.into(),
                        t.group.into(),
                        t.description.into(),
                    ],
                    what,
                );
            }
            Op::PutObjectType(t) => {
                self.meta_changed = true;
                let attributes = to_json(&t.attributes, "an object type's attributes")?;
                let what = format!("writing object type '{}'", t.name.qualified());
                self.exec(
                    "INSERT INTO object_types (profile, name, display_name, system_type, category, attributes) \
                     VALUES ($1, $2, $3, $4, $5, $6) \
                     ON CONFLICT (profile, name) DO UPDATE SET display_name = excluded.display_name, \
                     system_type = excluded.system_type, category = excluded.category, \
                     attributes = excluded.attributes",
                    vec![
                        t.name.profile.into(),
                        t.name.name.into(),
                        t.display_name.into(),
                        t.system_type.as_str().into(),
                        t.category.into(),
                        attributes.into(),
                    ],
                    what,
                );
            }
            Op::PutDataClass(c) => {
                self.meta_changed = true;
                let definition = to_json(&c.definition, "a data class definition")?;
                let what = format!("writing data class '{}'", c.name);
                self.exec(
                    "INSERT INTO data_classes (name, description, hide_data, definition) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (name) DO UPDATE SET description = excluded.description, \
                     hide_data = excluded.hide_data, definition = excluded.definition",
                    vec![
                        c.name.into(),
                        c.description.into(),
                        c.hide_data.into(),
                        definition.into(),
                    ],
                    what,
                );
            }
            Op::PutSensitivityLabel(l) => {
                self.meta_changed = true;
                let what = format!("writing sensitivity label '{}'", l.name);
                self.exec(
                    "INSERT INTO sensitivity_labels (name, position, description, foreground_color, background_color, hide_data) \
                     VALUES ($1, $2, $3, $4, $5, $6) \
                     ON CONFLICT (name) DO UPDATE SET position = excluded.position, description = excluded.description, \
                     foreground_color = excluded.foreground_color, background_color = excluded.background_color, \
                     hide_data = excluded.hide_data",
                    vec![
                        l.name.into(),
                        l.position.into(),
                        l.description.into(),
                        l.foreground_color.into(),
                        l.background_color.into(),
                        l.hide_data.into(),
                    ],
                    what,
                );
            }
            Op::PutUser(u) => {
                let context = Context {
                    what: format!("writing user {}", u.id).into(),
                    on_unique: Some(format!("a user named '{}' already exists", u.name)),
                };
                let name_key = user_name_key(&u.name);
                self.pending.push(
                    Stmt::exec(
                        "INSERT INTO users (model_id, object_id, name, name_key, full_name, email, description, \
                         password_hash, enabled, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
                         ON CONFLICT (model_id, object_id) DO UPDATE SET name = excluded.name, \
                         name_key = excluded.name_key, full_name = excluded.full_name, email = excluded.email, \
                         description = excluded.description, password_hash = excluded.password_hash, \
                         enabled = excluded.enabled, created_at = excluded.created_at",
                        vec![
                            u.id.model.into(),
                            u.id.object.into(),
                            u.name.into(),
                            name_key.into(),
                            u.full_name.into(),
                            u.email.into(),
                            u.description.into(),
                            u.password_hash.into(),
                            u.enabled.into(),
                            u.created_at.into(),
                        ],
                    ),
                    context,
                );
            }
            Op::PutGroup(g) => {
                let context = Context {
                    what: format!("writing group {}", g.id).into(),
                    on_unique: Some(format!("a group named '{}' already exists", g.name)),
                };
                let name_key = user_name_key(&g.name);
                self.pending.push(
                    Stmt::exec(
                        "INSERT INTO user_groups (model_id, object_id, name, name_key, description, enabled, created_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7) \
                         ON CONFLICT (model_id, object_id) DO UPDATE SET name = excluded.name, \
                         name_key = excluded.name_key, description = excluded.description, \
                         enabled = excluded.enabled, created_at = excluded.created_at",
                        vec![
                            g.id.model.into(),
                            g.id.object.into(),
                            g.name.into(),
                            name_key.into(),
                            g.description.into(),
                            g.enabled.into(),
                            g.created_at.into(),
                        ],
                    ),
                    context,
                );
            }
            Op::DeleteGroup(id) => {
                for (sql, what) in [
                    (
                        "DELETE FROM group_members WHERE group_model = $1 AND group_object = $2",
                        "removing the members of group",
                    ),
                    (
                        "DELETE FROM grants WHERE grantee_model = $1 AND grantee_object = $2",
                        "revoking the roles of group",
                    ),
                    (
                        "DELETE FROM user_groups WHERE model_id = $1 AND object_id = $2",
                        "deleting group",
                    ),
                ] {
                    self.exec(
                        sql,
                        vec![id.model.into(), id.object.into()],
                        format!("{what} {id}"),
                    );
                }
            }
            Op::AddMember(m) => self.exec(
                "INSERT INTO group_members (group_model, group_object, user_model, user_object) \
                 SELECT $1, $2, $3, $4 \
                 WHERE EXISTS (SELECT 1 FROM user_groups WHERE model_id = $1 AND object_id = $2) \
                 AND EXISTS (SELECT 1 FROM users WHERE model_id = $3 AND object_id = $4) \
                 ON CONFLICT DO NOTHING",
                membership_row(m),
                format!("adding user {} to group {}", m.user, m.group),
            ),
            Op::RemoveMember(m) => self.exec(
                "DELETE FROM group_members WHERE group_model = $1 AND group_object = $2 \
                 AND user_model = $3 AND user_object = $4",
                membership_row(m),
                format!("removing user {} from group {}", m.user, m.group),
            ),
            Op::PutRole(role) => {
                self.meta_changed = true;
                let capabilities = to_json(&role.capabilities, "a capability list")?;
                let what = format!("writing role '{}'", role.name);
                self.exec(
                    "INSERT INTO roles (name, description, global, capabilities) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (name) DO UPDATE SET description = excluded.description, \
                     global = excluded.global, capabilities = excluded.capabilities",
                    vec![
                        role.name.into(),
                        role.description.into(),
                        role.global.into(),
                        capabilities.into(),
                    ],
                    what,
                );
            }
            Op::DeleteRole(name) => {
                self.meta_changed = true;
                for (sql, what) in [
                    (
                        "DELETE FROM grants WHERE role = $1",
                        "revoking every grant of role",
                    ),
                    ("DELETE FROM roles WHERE name = $1", "deleting role"),
                ] {
                    self.exec(sql, vec![name.clone().into()], format!("{what} '{name}'"));
                }
            }
            Op::AddGrant(g) => {
                let what = format!("granting role '{}' to {}", g.role, g.grantee);
                self.exec(
                    "INSERT INTO grants (grantee_model, grantee_object, role, model_id, object_id) \
                     VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
                    grant_row(g),
                    what,
                );
            }
            Op::RemoveGrant(g) => {
                let what = format!("revoking role '{}' from {}", g.role, g.grantee);
                self.exec(
                    "DELETE FROM grants WHERE grantee_model = $1 AND grantee_object = $2 AND role = $3 \
                     AND model_id IS NOT DISTINCT FROM $4 AND object_id IS NOT DISTINCT FROM $5",
                    grant_row(g),
                    what,
                );
            }
            Op::PutWorksheet(w) => {
                let context = Context {
                    what: format!("writing worksheet {}", w.id).into(),
                    on_unique: Some(format!("a worksheet named '{}' already exists", w.name)),
                };
                let name_key = Worksheet::name_key(&w.name);
                let q = w.query;
                self.pending.push(
                    Stmt::exec(
                        "INSERT INTO worksheets (model_id, object_id, name, name_key, owner_model, owner_object, \
                         description, select_list, from_id, scope, filter, order_by, context, mql_version, \
                         created_at, updated_at) \
                         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) \
                         ON CONFLICT (model_id, object_id) DO UPDATE SET name = excluded.name, \
                         name_key = excluded.name_key, owner_model = excluded.owner_model, \
                         owner_object = excluded.owner_object, description = excluded.description, \
                         select_list = excluded.select_list, from_id = excluded.from_id, scope = excluded.scope, \
                         filter = excluded.filter, order_by = excluded.order_by, context = excluded.context, \
                         mql_version = excluded.mql_version, created_at = excluded.created_at, \
                         updated_at = excluded.updated_at",
                        vec![
                            w.id.model.into(),
                            w.id.object.into(),
                            w.name.into(),
                            name_key.into(),
                            w.owner.model.into(),
                            w.owner.object.into(),
                            w.description.into(),
                            q.select.into(),
                            q.from.into(),
                            q.scope.into(),
                            q.filter.into(),
                            q.order_by.into(),
                            q.context.into(),
                            i64::from(q.mql_version).into(),
                            w.created_at.into(),
                            w.updated_at.into(),
                        ],
                    ),
                    context,
                );
            }
            Op::DeleteUser(id) => {
                for (sql, what) in [
                    (
                        "DELETE FROM sessions WHERE user_model = $1 AND user_object = $2",
                        "deleting the sessions of user",
                    ),
                    (
                        "DELETE FROM grants WHERE grantee_model = $1 AND grantee_object = $2",
                        "revoking the roles of user",
                    ),
                    (
                        "DELETE FROM group_members WHERE user_model = $1 AND user_object = $2",
                        "removing from their groups user",
                    ),
                    (
                        "DELETE FROM worksheets WHERE owner_model = $1 AND owner_object = $2",
                        "deleting the worksheets of user",
                    ),
                    (
                        "DELETE FROM documents WHERE owner_model = $1 AND owner_object = $2",
                        "deleting the documents of user",
                    ),
                    (
                        "DELETE FROM curation WHERE user_model = $1 AND user_object = $2",
                        "deleting the curation of user",
                    ),
                    (
                        "DELETE FROM notifications WHERE user_model = $1 AND user_object = $2",
                        "deleting the notifications of user",
                    ),
                    (
                        "DELETE FROM users WHERE model_id = $1 AND object_id = $2",
                        "deleting user",
                    ),
                ] {
                    self.exec(
                        sql,
                        vec![id.model.into(), id.object.into()],
                        format!("{what} {id}"),
                    );
                }
            }
            Op::DeleteWorksheet(id) => self.exec(
                "DELETE FROM worksheets WHERE model_id = $1 AND object_id = $2",
                vec![id.model.into(), id.object.into()],
                format!("deleting worksheet {id}"),
            ),
            Op::PutNotification(n) => {
                let what = format!("writing notification {}", n.id);
                self.exec(
                    "INSERT INTO notifications (id, user_model, user_object, kind, model_id, object_id, message, at, is_read) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
                     ON CONFLICT (id) DO UPDATE SET user_model = excluded.user_model, user_object = excluded.user_object, \
                     kind = excluded.kind, model_id = excluded.model_id, object_id = excluded.object_id, \
                     message = excluded.message, at = excluded.at, is_read = excluded.is_read",
                    vec![
                        n.id.into(),
                        n.user.model.into(),
                        n.user.object.into(),
                        n.kind.as_str().into(),
                        n.object.model.into(),
                        n.object.object.into(),
                        n.message.into(),
                        n.at.into(),
                        n.read.into(),
                    ],
                    what,
                );
            }
            Op::PutCuration(c) => {
                let what = format!("writing {} {}", c.kind.as_str(), c.id);
                self.exec(
                    "INSERT INTO curation (id, model_id, object_id, kind, user_model, user_object, body, at) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
                     ON CONFLICT (id) DO UPDATE SET model_id = excluded.model_id, object_id = excluded.object_id, \
                     kind = excluded.kind, user_model = excluded.user_model, user_object = excluded.user_object, \
                     body = excluded.body, at = excluded.at",
                    vec![
                        c.id.into(),
                        c.object.model.into(),
                        c.object.object.into(),
                        c.kind.as_str().into(),
                        c.user.model.into(),
                        c.user.object.into(),
                        c.text.into(),
                        c.at.into(),
                    ],
                    what,
                );
            }
            Op::DeleteCuration(id) => self.exec(
                "DELETE FROM curation WHERE id = $1",
                vec![id.into()],
                format!("deleting curation entry {id}"),
            ),
            Op::PutDocument(d) => {
                let body = to_json(&d.body, "a document")?;
                let (owner_model, owner_object) = owner_key(d.owner);
                let what = format!("writing {} '{}'", d.kind.as_str(), d.name);
                self.exec(
                    "INSERT INTO documents (kind, owner_model, owner_object, name, body, updated_at, \
                     updated_by_model, updated_by_object) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
                     ON CONFLICT (kind, owner_model, owner_object, name) DO UPDATE SET body = excluded.body, \
                     updated_at = excluded.updated_at, updated_by_model = excluded.updated_by_model, \
                     updated_by_object = excluded.updated_by_object",
                    vec![
                        d.kind.as_str().into(),
                        owner_model.into(),
                        owner_object.into(),
                        d.name.into(),
                        body.into(),
                        d.updated_at.into(),
                        d.updated_by.map(|u| u.model).into(),
                        d.updated_by.map(|u| u.object).into(),
                    ],
                    what,
                );
            }
            Op::DeleteDocument { kind, owner, name } => {
                let (owner_model, owner_object) = owner_key(owner);
                let what = format!("deleting {} '{name}'", kind.as_str());
                self.exec(
                    "DELETE FROM documents WHERE kind = $1 AND owner_model = $2 AND owner_object = $3 AND name = $4",
                    vec![
                        kind.as_str().into(),
                        owner_model.into(),
                        owner_object.into(),
                        name.into(),
                    ],
                    what,
                );
            }
            Op::PutDelivery(d) => {
                let what = format!("writing delivery {}", d.id);
                self.exec(
                    "INSERT INTO deliveries (id, channel, target, payload, state, attempts, next_attempt_at, \
                     last_error, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
                     ON CONFLICT (id) DO UPDATE SET channel = excluded.channel, target = excluded.target, \
                     payload = excluded.payload, state = excluded.state, attempts = excluded.attempts, \
                     next_attempt_at = excluded.next_attempt_at, last_error = excluded.last_error, \
                     created_at = excluded.created_at, updated_at = excluded.updated_at",
                    delivery_params(d)?,
                    what,
                );
            }
            Op::UpdateDelivery(d) => {
                let what = format!("recording an attempt at delivery {}", d.id);
                self.exec(
                    "UPDATE deliveries SET channel = $2, target = $3, payload = $4, state = $5, \
                     attempts = $6, next_attempt_at = $7, last_error = $8, created_at = $9, \
                     updated_at = $10 WHERE id = $1",
                    delivery_params(d)?,
                    what,
                );
            }
            Op::PutOperation(operation) => {
                let what = format!("writing operation {}", operation.id);
                let mut params = vec![SqlValue::from(operation.id)];
                params.extend(operation_params(&operation)?);
                self.exec(
                    "INSERT INTO operations (id, kind, state, model_id, object_id, started_by, started_at, \
                     heartbeat_at, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
                     ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, state = excluded.state, \
                     model_id = excluded.model_id, object_id = excluded.object_id, \
                     started_by = excluded.started_by, started_at = excluded.started_at, \
                     heartbeat_at = excluded.heartbeat_at, detail = excluded.detail",
                    params,
                    what,
                );
            }
            Op::PutOperationLogLine { operation, line } => {
                let what = format!(
                    "writing line {} of the log of operation {operation}",
                    line.seq
                );
                self.exec(
                    "INSERT INTO operation_log (operation_id, seq, at, level, message) \
                     VALUES ($1, $2, $3, $4, $5) ON CONFLICT (operation_id, seq) DO UPDATE SET \
                     at = excluded.at, level = excluded.level, message = excluded.message",
                    vec![
                        operation.into(),
                        line.seq.into(),
                        line.at.into(),
                        line.level.into(),
                        line.message.into(),
                    ],
                    what,
                );
            }
            Op::PutImportSettings(settings) => {
                let parameters = to_json(&settings.parameters, "import parameters")?;
                let what = format!("writing the import settings of {}", settings.model);
                self.exec(
                    "INSERT INTO import_settings (model_id, object_id, format, parameters, attachment, \
                     updated_at, updated_by) VALUES ($1, $2, $3, $4, $5, $6, $7) \
                     ON CONFLICT (model_id, object_id) DO UPDATE SET format = excluded.format, \
                     parameters = excluded.parameters, attachment = excluded.attachment, \
                     updated_at = excluded.updated_at, updated_by = excluded.updated_by",
                    vec![
                        settings.model.model.into(),
                        settings.model.object.into(),
                        settings.format.into(),
                        parameters.into(),
                        settings.attachment.into(),
                        settings.updated_at.into(),
                        settings.updated_by.into(),
                    ],
                    what,
                );
            }
            Op::PutAttachment(Attachment { info, content }) => {
                use base64::Engine;
                let what = format!("attaching '{}' to {}", info.name, info.object);
                self.exec(
                    "INSERT INTO attachments (model_id, object_id, name, media_type, size, sha256, \
                     created_at, created_by, content) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
                     ON CONFLICT (model_id, object_id, name) DO UPDATE SET media_type = excluded.media_type, \
                     size = excluded.size, sha256 = excluded.sha256, created_at = excluded.created_at, \
                     created_by = excluded.created_by, content = excluded.content",
                    vec![
                        info.object.model.into(),
                        info.object.object.into(),
                        info.name.into(),
                        info.media_type.into(),
                        i64::try_from(info.size).unwrap_or(i64::MAX).into(),
                        info.sha256.into(),
                        info.created_at.into(),
                        info.created_by.into(),
                        base64::engine::general_purpose::STANDARD
                            .encode(&content)
                            .into(),
                    ],
                    what,
                );
            }
            Op::SetIdSequence { space, next } => self.exec(
                "INSERT INTO id_sequences (model, next_id) VALUES ($1, $2) \
                 ON CONFLICT (model) DO UPDATE SET next_id = excluded.next_id",
                vec![space.into(), next.into()],
                format!("setting the id sequence of id space {space}"),
            ),
            Op::ClearAll => {
                // Buffered rows were written before the clear.
                self.flush();
                for table in CLEARED_TABLES {
                    self.exec(table.1, Vec::new(), format!("emptying table {}", table.0));
                }
                self.meta_changed = true;
            }
        }
        Ok(())
    }

    /// The statements ready to send; partly filled bulk buffers wait for more rows.
    pub fn take(&mut self) -> Pending {
        std::mem::take(&mut self.pending)
    }

    /// Every remaining statement, at the end of the transaction.
    pub fn finish(&mut self) -> Pending {
        self.flush();
        if std::mem::take(&mut self.meta_changed) {
            self.exec(
                "UPDATE versions SET version = version + 1 WHERE name = 'meta'",
                Vec::new(),
                "moving the meta model version",
            );
        }
        self.take()
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
    }

    /// From here on, objects and attribute values are inserted without looking for a
    /// row to update (see `WriteTx::expect_new_rows`).
    pub fn expect_new_rows(&mut self) {
        self.flush();
        self.new_rows = true;
    }

    fn flush_objects(&mut self) {
        let rows = std::mem::take(&mut self.objects);
        if self.new_rows {
            self.bulk(&NEW_OBJECTS, rows, "storing new objects");
        } else {
            // One upsert statement must not touch a row twice: the last write of each
            // object wins, as it would written one by one.
            self.bulk(&OBJECTS, last_wins(rows, 2), "storing objects");
        }
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
        let rows = std::mem::take(&mut self.tags);
        self.bulk(&TAGS, rows, "adding tags");
    }

    /// Rows sent through the bulk path so far.
    pub fn bulk_rows(&self) -> usize {
        self.bulk_rows
    }

    fn bulk(&mut self, table: &'static Table, rows: Vec<Vec<SqlValue>>, what: &'static str) {
        self.bulk_rows += rows.len();
        if !rows.is_empty() {
            self.pending
                .push(Stmt::Insert { table, rows }, Context::of(what));
        }
    }

    /// Deletes one object and everything hanging on it.
    fn delete_object(&mut self, id: ObjectId) {
        let key = || vec![SqlValue::from(id.model), id.object.into()];
        for table in HANGING_TABLES {
            self.pending.push(
                Stmt::exec(
                    format!("DELETE FROM {table} WHERE model_id = $1 AND object_id = $2"),
                    key(),
                ),
                Context::of(format!("deleting object {id}")),
            );
        }
        for (sql, what) in [
            (
                "DELETE FROM edges WHERE source_model = $1 AND source_object = $2",
                "deleting the edges from",
            ),
            (
                "DELETE FROM edges WHERE target_model = $1 AND target_object = $2",
                "deleting the edges to",
            ),
            (
                "DELETE FROM objects WHERE model_id = $1 AND object_id = $2",
                "deleting object",
            ),
        ] {
            self.pending
                .push(Stmt::exec(sql, key()), Context::of(format!("{what} {id}")));
        }
    }

    /// Deletes every object of the model number and everything hanging on them.
    fn clear_model(&mut self, model: i64) {
        for table in HANGING_TABLES {
            self.pending.push(
                Stmt::exec(
                    format!("DELETE FROM {table} WHERE model_id = $1"),
                    vec![model.into()],
                ),
                Context::of(format!("clearing model {model}")),
            );
        }
        for sql in [
            "DELETE FROM edges WHERE source_model = $1",
            "DELETE FROM edges WHERE target_model = $1",
            "DELETE FROM objects WHERE model_id = $1",
        ] {
            self.pending.push(
                Stmt::exec(sql, vec![model.into()]),
                Context::of(format!("clearing model {model}")),
            );
        }
    }

    fn set_profiling(&mut self, p: Profiling) -> Result<()> {
        let what = format!("writing the profiling of {}", p.object);
        if p.profile.is_none() && p.sample.is_none() {
            self.exec(
                "DELETE FROM profiling WHERE model_id = $1 AND object_id = $2",
                vec![p.object.model.into(), p.object.object.into()],
                what,
            );
            return Ok(());
        }
        let profile = p
            .profile
            .as_ref()
            .map(|v| to_json(v, "a data profile"))
            .transpose()?;
        let sample = p
            .sample
            .as_ref()
            .map(|v| to_json(v, "a data sample"))
            .transpose()?;
        self.exec(
            "INSERT INTO profiling (model_id, object_id, profile, sample) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (model_id, object_id) DO UPDATE SET profile = excluded.profile, sample = excluded.sample",
            vec![
                p.object.model.into(),
                p.object.object.into(),
                profile.into(),
                sample.into(),
            ],
            what,
        );
        Ok(())
    }
}

fn object_row(o: Object) -> Vec<SqlValue> {
    vec![
        o.id.model.into(),
        o.id.object.into(),
        o.kind.as_str().into(),
        o.parent.map(|p| p.object).into(),
        o.object_type.profile.into(),
        o.object_type.name.into(),
        o.system_type.as_str().into(),
        o.name.into(),
        o.physical_name.into(),
        o.native_id.into(),
        o.stable_id.into(),
        o.description.into(),
        o.business_name.into(),
        o.business_description.into(),
        o.data_type.into(),
        o.external_url.into(),
        o.hide_data.into(),
        o.workflow_state.into(),
        o.created_at.into(),
        o.updated_at.into(),
        o.updated_by.map(|u| u.model).into(),
        o.updated_by.map(|u| u.object).into(),
    ]
}

fn attribute_row(a: AttributeValue) -> Vec<SqlValue> {
    let (kind, text, integer, double, boolean, datetime) = match a.value {
        Value::Text(s) => ("text", Some(s), None, None, None, None),
        Value::Integer(i) => ("integer", None, Some(i), None, None, None),
        Value::Double(d) => ("double", None, None, Some(d), None, None),
        Value::Boolean(b) => ("boolean", None, None, None, Some(b), None),
        Value::DateTime(t) => (
            "datetime",
            None,
            None,
            None,
            None,
            Some(t.timestamp_micros()),
        ),
    };
    vec![
        a.object.model.into(),
        a.object.object.into(),
        a.attribute.into(),
        kind.into(),
        SqlValue::Text(text),
        SqlValue::Int(integer),
        SqlValue::Real(double),
        SqlValue::Bool(boolean),
        SqlValue::Int(datetime),
    ]
}

fn edge_row(e: Edge) -> Vec<SqlValue> {
    vec![
        e.source.model.into(),
        e.source.object.into(),
        e.kind.as_str().into(),
        e.target.model.into(),
        e.target.object.into(),
        e.name.into(),
    ]
}

fn tag_row(t: Tag) -> Vec<SqlValue> {
    vec![
        t.object.model.into(),
        t.object.object.into(),
        t.kind.as_str().into(),
        t.value.into(),
    ]
}

fn grant_row(g: Grant) -> Vec<SqlValue> {
    vec![
        g.grantee.model.into(),
        g.grantee.object.into(),
        g.role.into(),
        g.object.map(|o| o.model).into(),
        g.object.map(|o| o.object).into(),
    ]
}

/// The key user names are unique by, case-insensitively (Unicode lowercase).
fn membership_row(m: Membership) -> Vec<SqlValue> {
    vec![
        m.group.model.into(),
        m.group.object.into(),
        m.user.model.into(),
        m.user.object.into(),
    ]
}

pub fn user_name_key(name: &str) -> String {
    name.to_lowercase()
}

fn to_json<T: serde::Serialize>(value: &T, what: &str) -> Result<String> {
    serde_json::to_string(value)
        .map_err(|e| Error::internal(format!("cannot write {what} as JSON: {e}")))
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

/// A failed write as a core error: a clash with a unique key is a conflict that says
/// what clashed, a value the database cannot hold is invalid input, a transient failure
/// is retryable, anything else a storage error. The driver's error stays as the cause.
pub fn write_error(err: DbError, contexts: &[Context]) -> Error {
    let context = contexts.get(err.statement);
    let what = context.map_or("writing", |c| c.what.as_ref());
    let error = match &err.kind {
        DbErrorKind::Unique { constraint, detail } => {
            let message = context
                .and_then(|c| c.on_unique.clone())
                .unwrap_or_else(|| clash_message(&err, constraint, detail.as_deref(), what));
            Error::conflict(message)
        }
        DbErrorKind::ForeignKey => {
            Error::conflict(format!("{what} refers to something that does not exist"))
        }
        DbErrorKind::Retryable => {
            return Error::storage(
                &format!("{what} (the database was busy; try again)"),
                err.cause,
            )
            .retryable();
        }
        DbErrorKind::Unavailable { reason } => {
            return Error::unavailable(what, reason, err.cause);
        }
        DbErrorKind::OutOfRange => Error::invalid(format!("{what}: a number is out of range")),
        DbErrorKind::InvalidValue => {
            Error::invalid(format!("{what}: the database cannot store a value"))
        }
        DbErrorKind::Other => return Error::storage(what, err.cause),
    };
    error.caused_by(err.cause)
}

/// The conflict message of a clash on the objects table, naming the value when the
/// failed row or the database's detail tells it.
fn clash_message(err: &DbError, constraint: &str, detail: Option<&str>, what: &str) -> String {
    let column = |name: &str| -> Option<String> {
        let Some(Stmt::Insert { table, rows }) = err.failed.as_deref() else {
            return None;
        };
        match rows.get(err.row?)?.get(table.column(name)?)? {
            SqlValue::Text(Some(v)) => Some(v.clone()),
            _ => None,
        }
    };
    if constraint.contains("repository_name") {
        match column("name") {
            Some(name) => format!("an object named '{name}' already exists there"),
            None => {
                "a repository object with that name already exists in the same folder".to_owned()
            }
        }
    } else if constraint.contains("stable_id") {
        match column("stable_id").or_else(|| detail.and_then(key_value).map(str::to_owned)) {
            Some(value) => format!("an object with stable id '{value}' already exists"),
            None => "an object with that stable id already exists".to_owned(),
        }
    } else {
        format!("{what} clashes with existing data")
    }
}

/// The key value of a PostgreSQL unique violation's detail,
/// `Key (column)=(value) already exists.`
fn key_value(detail: &str) -> Option<&str> {
    let start = detail.find(")=(")? + 3;
    let end = detail.rfind(") already exists")?;
    detail.get(start..end)
}

/// The key columns of a document's owner ([`crate::NO_OWNER`] for none).
pub(crate) fn owner_key(owner: Option<ObjectId>) -> (i64, i64) {
    owner.map_or((crate::NO_OWNER, crate::NO_OWNER), |o| (o.model, o.object))
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn key_value_reads_the_clashing_value() {
        assert_eq!(
            key_value("Key (stable_id)=(abc) already exists."),
            Some("abc")
        );
        assert_eq!(
            key_value("Key (name_key)=(a)=(b) already exists."),
            Some("a)=(b")
        );
        assert_eq!(key_value("something else"), None);
    }

    #[test]
    fn user_names_compare_case_insensitively() {
        assert_eq!(user_name_key("ÄdMin"), user_name_key("äDmin"));
    }
}
