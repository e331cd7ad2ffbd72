//! Reads: the statements, and rows back into domain types. A value the database holds
//! but Lore never writes (an unknown enum name, a NULL where a value belongs, JSON of the
//! wrong shape) is an internal error naming the table.

use lore_core::model::*;
use lore_core::{Error, ObjectId, Result};

use crate::value::Row;

/// The columns [`object`] reads, in order.
macro_rules! object_columns {
    () => {
        "model_id, object_id, kind, parent, profile, type_name, system_type, name, physical_name, \
         native_id, stable_id, description, business_name, business_description, data_type, \
         external_url, hide_data, workflow_state, created_at, updated_at, updated_by_model, \
         updated_by_object"
    };
}
pub(crate) use object_columns;

/// The columns [`user`] reads, in order.
macro_rules! user_columns {
    () => {
        "model_id, object_id, name, full_name, email, description, password_hash, enabled, created_at, \
         external_issuer, external_subject"
    };
}
pub(crate) use user_columns;

/// The columns [`group`] reads, in order.
macro_rules! group_columns {
    () => {
        "model_id, object_id, name, description, enabled, created_at"
    };
}
pub(crate) use group_columns;

/// The columns [`worksheet`] reads, in order.
macro_rules! worksheet_columns {
    () => {
        "model_id, object_id, name, owner_model, owner_object, description, select_list, from_id, \
         scope, filter, order_by, context, mql_version, created_at, updated_at"
    };
}
pub(crate) use worksheet_columns;

pub(crate) fn object(mut row: Row) -> Result<Object> {
    const T: &str = "objects";
    let model = row.int(0, T)?;
    let updated_by = match (row.opt_int(20, T)?, row.opt_int(21, T)?) {
        (Some(m), Some(o)) => Some(ObjectId::new(m, o)),
        _ => None,
    };
    Ok(Object {
        id: ObjectId::new(model, row.int(1, T)?),
        kind: row.parse(2, T, "object kind", ObjectKind::parse)?,
        parent: row.opt_int(3, T)?.map(|p| ObjectId::new(model, p)),
        object_type: TypeName::new(row.text(4, T)?, row.text(5, T)?),
        system_type: row.parse(6, T, "system type", SystemType::parse)?,
        name: row.text(7, T)?,
        physical_name: row.opt_text(8, T)?,
        native_id: row.opt_text(9, T)?,
        stable_id: row.opt_text(10, T)?,
        description: row.opt_text(11, T)?,
        business_name: row.opt_text(12, T)?,
        business_description: row.opt_text(13, T)?,
        data_type: row.opt_text(14, T)?,
        external_url: row.opt_text(15, T)?,
        hide_data: row.bool(16, T)?,
        workflow_state: row.opt_text(17, T)?,
        created_at: row.timestamp(18, T)?,
        updated_at: row.timestamp(19, T)?,
        updated_by,
    })
}

/// A row of `model_id, object_id, native_id, parent, created_at, mask, print`.
pub(crate) fn printed_object(mut row: Row) -> Result<PrintedObject> {
    const T: &str = "import_prints";
    let model = row.int(0, T)?;
    let print = match (row.opt_int(5, T)?, row.opt_int(6, T)?) {
        // The print's bits were stored as a signed integer.
        (Some(mask), Some(print)) => u32::try_from(mask).ok().map(|m| (m, print as u64)),
        _ => None,
    };
    Ok(PrintedObject {
        id: ObjectId::new(model, row.int(1, T)?),
        native_id: row.opt_text(2, T)?,
        parent: row.opt_int(3, T)?.map(|p| ObjectId::new(model, p)),
        created_at: row.timestamp(4, T)?,
        print,
    })
}

pub(crate) fn attribute(mut row: Row) -> Result<AttributeValue> {
    const T: &str = "attribute_values";
    let kind = row.text(3, T)?;
    let value = match kind.as_str() {
        "text" => Value::Text(row.text(4, T)?),
        "integer" => Value::Integer(row.int(5, T)?),
        "double" => Value::Double(row.real(6, T)?),
        "boolean" => Value::Boolean(row.bool(7, T)?),
        "datetime" => Value::DateTime(row.timestamp(8, T)?),
        other => {
            return Err(Error::internal(format!(
                "table {T} holds '{other}', which is not a known value kind"
            )));
        }
    };
    Ok(AttributeValue {
        object: ObjectId::new(row.int(0, T)?, row.int(1, T)?),
        attribute: row.text(2, T)?,
        value,
    })
}

pub(crate) const EDGE_COLUMNS: &str =
    "e.kind, e.source_model, e.source_object, e.target_model, e.target_object, e.name, e.origin";

pub(crate) fn edge(mut row: Row) -> Result<Edge> {
    const T: &str = "edges";
    Ok(Edge {
        kind: row.parse(0, T, "edge kind", EdgeKind::parse)?,
        source: ObjectId::new(row.int(1, T)?, row.int(2, T)?),
        target: ObjectId::new(row.int(3, T)?, row.int(4, T)?),
        name: row.text(5, T)?,
        origin: row.opt_text(6, T)?,
    })
}

pub(crate) fn tag(mut row: Row) -> Result<Tag> {
    const T: &str = "tags";
    Ok(Tag {
        object: ObjectId::new(row.int(0, T)?, row.int(1, T)?),
        kind: row.parse(2, T, "tag kind", TagKind::parse)?,
        value: row.text(3, T)?,
    })
}

pub(crate) fn classification(mut row: Row) -> Result<Classification> {
    const T: &str = "classifications";
    Ok(Classification {
        object: ObjectId::new(row.int(0, T)?, row.int(1, T)?),
        data_class: row.text(2, T)?,
        status: row.parse(3, T, "classification status", ClassificationStatus::parse)?,
    })
}

pub(crate) fn label(mut row: Row) -> Result<LabelAssignment> {
    const T: &str = "label_assignments";
    Ok(LabelAssignment {
        object: ObjectId::new(row.int(0, T)?, row.int(1, T)?),
        label: row.text(2, T)?,
        status: row.parse(3, T, "label status", ClassificationStatus::parse)?,
    })
}

pub(crate) fn profiling(mut row: Row) -> Result<Profiling> {
    const T: &str = "profiling";
    Ok(Profiling {
        object: ObjectId::new(row.int(0, T)?, row.int(1, T)?),
        profile: row.json(2, T, "data profile")?,
        sample: row.json(3, T, "data sample")?,
    })
}

pub(crate) fn attribute_type(mut row: Row) -> Result<AttributeType> {
    const T: &str = "attribute_types";
    Ok(AttributeType {
        name: row.text(0, T)?,
        display_name: row.text(1, T)?,
        kind: row.parse(2, T, "attribute kind", AttributeKind::parse)?,
        value_type: row.parse(3, T, "value type", ValueType::parse)?,
        profile: row.opt_text(4, T)?,
        group: row.text(5, T)?,
        description: row.text(6, T)?,
    })
}

pub(crate) fn object_type(mut row: Row) -> Result<ObjectType> {
    const T: &str = "object_types";
    Ok(ObjectType {
        name: TypeName::new(row.text(0, T)?, row.text(1, T)?),
        display_name: row.text(2, T)?,
        system_type: row.parse(3, T, "system type", SystemType::parse)?,
        category: row.text(4, T)?,
        attributes: row
            .json(5, T, "object type attributes")?
            .unwrap_or_default(),
    })
}

pub(crate) fn data_class(mut row: Row) -> Result<DataClass> {
    const T: &str = "data_classes";
    Ok(DataClass {
        name: row.text(0, T)?,
        description: row.text(1, T)?,
        hide_data: row.bool(2, T)?,
        definition: row.json(3, T, "data class definition")?.unwrap_or_default(),
    })
}

pub(crate) fn sensitivity_label(mut row: Row) -> Result<SensitivityLabel> {
    const T: &str = "sensitivity_labels";
    Ok(SensitivityLabel {
        name: row.text(0, T)?,
        position: row.int(1, T)?,
        description: row.text(2, T)?,
        foreground_color: row.text(3, T)?,
        background_color: row.text(4, T)?,
        hide_data: row.bool(5, T)?,
    })
}

pub(crate) fn role(mut row: Row) -> Result<Role> {
    const T: &str = "roles";
    Ok(Role {
        name: row.text(0, T)?,
        description: row.text(1, T)?,
        global: row.bool(2, T)?,
        capabilities: row.json(3, T, "capability list")?.unwrap_or_default(),
    })
}

pub(crate) fn user(mut row: Row) -> Result<User> {
    const T: &str = "users";
    Ok(User {
        id: ObjectId::new(row.int(0, T)?, row.int(1, T)?),
        name: row.text(2, T)?,
        full_name: row.text(3, T)?,
        email: row.text(4, T)?,
        description: row.text(5, T)?,
        password_hash: row.opt_text(6, T)?,
        enabled: row.bool(7, T)?,
        created_at: row.timestamp(8, T)?,
        external: match (row.opt_text(9, T)?, row.opt_text(10, T)?) {
            (Some(issuer), Some(subject)) if !subject.is_empty() => {
                Some(ExternalLink::Subject { issuer, subject })
            }
            (Some(_), Some(_)) => Some(ExternalLink::AtNextSignIn),
            _ => None,
        },
    })
}

pub(crate) fn group(mut row: Row) -> Result<Group> {
    const T: &str = "user_groups";
    Ok(Group {
        id: ObjectId::new(row.int(0, T)?, row.int(1, T)?),
        name: row.text(2, T)?,
        description: row.text(3, T)?,
        enabled: row.bool(4, T)?,
        created_at: row.timestamp(5, T)?,
    })
}

pub(crate) fn grant(mut row: Row) -> Result<Grant> {
    const T: &str = "grants";
    let object = match (row.opt_int(3, T)?, row.opt_int(4, T)?) {
        (Some(m), Some(o)) => Some(ObjectId::new(m, o)),
        _ => None,
    };
    Ok(Grant {
        grantee: ObjectId::new(row.int(0, T)?, row.int(1, T)?),
        role: row.text(2, T)?,
        object,
    })
}

pub(crate) fn session(mut row: Row) -> Result<Session> {
    const T: &str = "sessions";
    Ok(Session {
        key_hash: row.text(0, T)?,
        user: ObjectId::new(row.int(1, T)?, row.int(2, T)?),
        created_at: row.timestamp(3, T)?,
        expires_at: row.timestamp(4, T)?,
        last_seen_at: row.timestamp(5, T)?,
    })
}

pub(crate) fn login_failures(mut row: Row) -> Result<LoginFailures> {
    const T: &str = "login_failures";
    Ok(LoginFailures {
        subject: row.text(0, T)?,
        failures: u32::try_from(row.int(1, T)?.max(0)).unwrap_or(u32::MAX),
        last_at: row.timestamp(2, T)?,
    })
}

pub(crate) fn worksheet(mut row: Row) -> Result<Worksheet> {
    const T: &str = "worksheets";
    let version = row.int(12, T)?;
    let mql_version = u32::try_from(version).map_err(|_| {
        Error::internal(format!(
            "table {T} holds MQL version {version}, which is out of range"
        ))
    })?;
    Ok(Worksheet {
        id: ObjectId::new(row.int(0, T)?, row.int(1, T)?),
        name: row.text(2, T)?,
        owner: ObjectId::new(row.int(3, T)?, row.int(4, T)?),
        description: row.text(5, T)?,
        query: SavedQuery {
            select: row.text(6, T)?,
            from: row.opt_text(7, T)?,
            scope: row.opt_text(8, T)?,
            filter: row.opt_text(9, T)?,
            order_by: row.opt_text(10, T)?,
            context: row.opt_text(11, T)?,
            mql_version,
        },
        created_at: row.timestamp(13, T)?,
        updated_at: row.timestamp(14, T)?,
    })
}

pub(crate) fn notification(mut row: Row) -> Result<Notification> {
    const T: &str = "notifications";
    Ok(Notification {
        id: row.int(0, T)?,
        user: ObjectId::new(row.int(1, T)?, row.int(2, T)?),
        kind: row.parse(3, T, "notification kind", NotificationKind::parse)?,
        object: ObjectId::new(row.int(4, T)?, row.int(5, T)?),
        message: row.text(6, T)?,
        at: row.timestamp(7, T)?,
        read: row.bool(8, T)?,
    })
}

/// The columns [`delivery`] reads, in order.
pub(crate) const DELIVERY_COLUMNS: &str = "id, channel, target, payload, state, attempts, next_attempt_at, \
     last_error, created_at, updated_at";

pub(crate) fn delivery(mut row: Row) -> Result<Delivery> {
    const T: &str = "deliveries";
    let channel = row.text(1, T)?;
    let payload = row.text(3, T)?;
    let state = row.text(4, T)?;
    Ok(Delivery {
        id: row.int(0, T)?,
        channel: DeliveryChannel::parse(&channel).ok_or_else(|| {
            Error::internal(format!("table {T} holds an unknown channel '{channel}'"))
        })?,
        target: row.text(2, T)?,
        payload: serde_json::from_str(&payload).map_err(|e| {
            Error::internal(format!("table {T} holds a payload that does not read: {e}"))
        })?,
        state: DeliveryState::parse(&state).ok_or_else(|| {
            Error::internal(format!("table {T} holds an unknown state '{state}'"))
        })?,
        attempts: u32::try_from(row.int(5, T)?).unwrap_or(u32::MAX),
        next_attempt_at: row.timestamp(6, T)?,
        last_error: row.text(7, T)?,
        created_at: row.timestamp(8, T)?,
        updated_at: row.timestamp(9, T)?,
    })
}

pub(crate) fn curation(mut row: Row) -> Result<Curation> {
    const T: &str = "curation";
    Ok(Curation {
        id: row.int(0, T)?,
        object: ObjectId::new(row.int(1, T)?, row.int(2, T)?),
        kind: row.parse(3, T, "curation kind", CurationKind::parse)?,
        user: ObjectId::new(row.int(4, T)?, row.int(5, T)?),
        text: row.text(6, T)?,
        at: row.timestamp(7, T)?,
    })
}

pub(crate) fn document(mut row: Row) -> Result<Document> {
    const T: &str = "documents";
    let owner = match (row.int(1, T)?, row.int(2, T)?) {
        (crate::NO_OWNER, crate::NO_OWNER) => None,
        (model, object) => Some(ObjectId::new(model, object)),
    };
    let updated_by = match (row.opt_int(6, T)?, row.opt_int(7, T)?) {
        (Some(model), Some(object)) => Some(ObjectId::new(model, object)),
        _ => None,
    };
    Ok(Document {
        kind: row.parse(0, T, "document kind", DocumentKind::parse)?,
        owner,
        name: row.text(3, T)?,
        body: row.json(4, T, "document body")?.unwrap_or_default(),
        updated_at: row.timestamp(5, T)?,
        updated_by,
    })
}

/// The columns [`lineage_event`] reads, in order.
pub(crate) const LINEAGE_EVENT_COLUMNS: &str = "digest, kind, event_time, received_at, received_from, \
     run_id, event_type, job_namespace, job_name, error_message, body";

pub(crate) fn lineage_event(mut row: Row) -> Result<LineageEvent> {
    const T: &str = "lineage_events";
    let event_type = match row.opt_text(6, T)? {
        Some(text) => Some(RunState::parse(&text).ok_or_else(|| {
            Error::internal(format!(
                "table {T} holds '{text}', which is not a known run state"
            ))
        })?),
        None => None,
    };
    Ok(LineageEvent {
        digest: row.text(0, T)?,
        kind: row.parse(1, T, "lineage event kind", LineageEventKind::parse)?,
        event_time: row.timestamp(2, T)?,
        received_at: row.timestamp(3, T)?,
        received_from: row.text(4, T)?,
        run_id: row.opt_text(5, T)?,
        event_type,
        job_namespace: row.opt_text(7, T)?,
        job_name: row.opt_text(8, T)?,
        error_message: row.opt_text(9, T)?,
        body: row.text(10, T)?,
    })
}

/// The columns [`lineage_run`] reads, in order.
pub(crate) const LINEAGE_RUN_COLUMNS: &str = "run_id, job_namespace, job_name, state, state_at, \
     started_at, ended_at, error_message, error_at";

pub(crate) fn lineage_run(mut row: Row) -> Result<LineageRun> {
    const T: &str = "lineage_runs";
    let time = |row: &Row, i: usize| -> Result<Option<Timestamp>> {
        row.opt_int(i, T)?.map(|_| row.timestamp(i, T)).transpose()
    };
    Ok(LineageRun {
        run_id: row.text(0, T)?,
        job_namespace: row.text(1, T)?,
        job_name: row.text(2, T)?,
        state: row.parse(3, T, "run state", RunState::parse)?,
        state_at: row.timestamp(4, T)?,
        started_at: time(&row, 5)?,
        ended_at: time(&row, 6)?,
        error_message: row.opt_text(7, T)?,
        error_at: time(&row, 8)?,
    })
}

/// Decodes every row.
pub(crate) fn all<T>(rows: Vec<Row>, decode: fn(Row) -> Result<T>) -> Result<Vec<T>> {
    rows.into_iter().map(decode).collect()
}

/// Decodes the first row, if any.
pub(crate) fn first<T>(rows: Vec<Row>, decode: fn(Row) -> Result<T>) -> Result<Option<T>> {
    rows.into_iter().next().map(decode).transpose()
}
