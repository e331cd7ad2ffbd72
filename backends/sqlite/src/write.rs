//! Writes: batches in one transaction, id reservations and sessions.

use lore_core::model::*;
use lore_core::store::{Batch, Op};
use lore_core::{Error, ObjectId, Result};
use rusqlite::{Connection, OptionalExtension, Params, TransactionBehavior, params};

use crate::read::name_key;
use crate::sql::{Context, is_unique_violation, millis, to_json};

/// Runs one statement; on failure the error says what was being written.
fn run(
    conn: &Connection,
    sql: &str,
    params: impl Params,
    what: impl FnOnce() -> String,
) -> Result<usize> {
    conn.prepare_cached(sql)
        .and_then(|mut stmt| stmt.execute(params))
        .map_err(|e| Error::storage(&what(), e))
}

/// Runs one statement whose only expected failure is a clash with a unique key; that
/// clash becomes a conflict with the message `clash` gives.
fn run_unique(
    conn: &Connection,
    sql: &str,
    params: impl Params,
    what: impl FnOnce() -> String,
    clash: impl FnOnce(&str) -> String,
) -> Result<usize> {
    conn.prepare_cached(sql)
        .and_then(|mut stmt| stmt.execute(params))
        .map_err(|e| {
            if is_unique_violation(&e) {
                Error::conflict(clash(&e.to_string()))
            } else {
                Error::storage(&what(), e)
            }
        })
}

/// Applies the whole batch in one transaction; any error rolls it all back.
pub(crate) fn apply(conn: &mut Connection, batch: &Batch) -> Result<()> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .ctx("starting a write")?;
    for op in &batch.ops {
        apply_op(&tx, op)?;
    }
    tx.commit().ctx("committing a batch")
}

fn apply_op(conn: &Connection, op: &Op) -> Result<()> {
    match op {
        Op::PutObject(object) => put_object(conn, object),
        Op::DeleteObject(id) => delete_object(conn, *id),
        Op::ClearModel(model) => clear_model(conn, *model),
        Op::SetAttribute(value) => set_attribute(conn, value),
        Op::RemoveAttribute { object, attribute } => {
            run(
                conn,
                "DELETE FROM attribute_values WHERE model_id = ?1 AND object_id = ?2 AND attribute = ?3",
                params![object.model, object.object, attribute],
                || format!("removing attribute '{attribute}' of {object}"),
            )?;
            Ok(())
        }
        Op::AddEdge(edge) => {
            run(
                conn,
                "INSERT OR IGNORE INTO edges (source_model, source_object, kind, target_model, target_object, name) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                edge_params(edge),
                || {
                    format!(
                        "adding a {} edge from {} to {}",
                        edge.kind.as_str(),
                        edge.source,
                        edge.target
                    )
                },
            )?;
            Ok(())
        }
        Op::RemoveEdge(edge) => {
            run(
                conn,
                "DELETE FROM edges WHERE source_model = ?1 AND source_object = ?2 AND kind = ?3 \
                 AND target_model = ?4 AND target_object = ?5 AND name = ?6",
                edge_params(edge),
                || {
                    format!(
                        "removing a {} edge from {} to {}",
                        edge.kind.as_str(),
                        edge.source,
                        edge.target
                    )
                },
            )?;
            Ok(())
        }
        Op::AddTag(tag) => {
            run(
                conn,
                "INSERT OR IGNORE INTO tags (model_id, object_id, kind, value) VALUES (?1, ?2, ?3, ?4)",
                params![
                    tag.object.model,
                    tag.object.object,
                    tag.kind.as_str(),
                    tag.value
                ],
                || {
                    format!(
                        "adding {} '{}' to {}",
                        tag.kind.as_str(),
                        tag.value,
                        tag.object
                    )
                },
            )?;
            Ok(())
        }
        Op::RemoveTag(tag) => {
            run(
                conn,
                "DELETE FROM tags WHERE model_id = ?1 AND object_id = ?2 AND kind = ?3 AND value = ?4",
                params![
                    tag.object.model,
                    tag.object.object,
                    tag.kind.as_str(),
                    tag.value
                ],
                || {
                    format!(
                        "removing {} '{}' from {}",
                        tag.kind.as_str(),
                        tag.value,
                        tag.object
                    )
                },
            )?;
            Ok(())
        }
        Op::SetClassification(c) => {
            run(
                conn,
                "INSERT INTO classifications (model_id, object_id, data_class, status) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT (model_id, object_id, data_class) DO UPDATE SET status = excluded.status",
                params![
                    c.object.model,
                    c.object.object,
                    c.data_class,
                    c.status.as_str()
                ],
                || format!("classifying {} as '{}'", c.object, c.data_class),
            )?;
            Ok(())
        }
        Op::RemoveClassification { object, data_class } => {
            run(
                conn,
                "DELETE FROM classifications WHERE model_id = ?1 AND object_id = ?2 AND data_class = ?3",
                params![object.model, object.object, data_class],
                || format!("removing data class '{data_class}' from {object}"),
            )?;
            Ok(())
        }
        Op::SetLabelAssignment(l) => {
            run(
                conn,
                "INSERT INTO label_assignments (model_id, object_id, label, status) VALUES (?1, ?2, ?3, ?4) \
                 ON CONFLICT (model_id, object_id, label) DO UPDATE SET status = excluded.status",
                params![l.object.model, l.object.object, l.label, l.status.as_str()],
                || format!("labelling {} as '{}'", l.object, l.label),
            )?;
            Ok(())
        }
        Op::RemoveLabelAssignment { object, label } => {
            run(
                conn,
                "DELETE FROM label_assignments WHERE model_id = ?1 AND object_id = ?2 AND label = ?3",
                params![object.model, object.object, label],
                || format!("removing sensitivity label '{label}' from {object}"),
            )?;
            Ok(())
        }
        Op::SetProfiling(p) => set_profiling(conn, p),
        Op::PutAttributeType(t) => {
            run(
                conn,
                "INSERT OR REPLACE INTO attribute_types \
                 (name, display_name, kind, value_type, profile, group_name, description) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![
                    t.name,
                    t.display_name,
                    t.kind.as_str(),
                    t.value_type.as_str(),
                    t.profile,
                    t.group,
                    t.description
                ],
                || format!("writing attribute type '{}'", t.name),
            )?;
            Ok(())
        }
        Op::PutDataClass(c) => {
            let definition = to_json(&c.definition, "a data class definition")?;
            run(
                conn,
                "INSERT OR REPLACE INTO data_classes (name, description, hide_data, definition) \
                 VALUES (?1, ?2, ?3, ?4)",
                params![c.name, c.description, c.hide_data, definition],
                || format!("writing data class '{}'", c.name),
            )?;
            Ok(())
        }
        Op::PutSensitivityLabel(l) => {
            run(
                conn,
                "INSERT OR REPLACE INTO sensitivity_labels \
                 (name, position, description, foreground_color, background_color, hide_data) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    l.name,
                    l.position,
                    l.description,
                    l.foreground_color,
                    l.background_color,
                    l.hide_data
                ],
                || format!("writing sensitivity label '{}'", l.name),
            )?;
            Ok(())
        }
        Op::PutUser(user) => put_user(conn, user),
        Op::PutRole(role) => {
            let capabilities = to_json(&role.capabilities, "a capability list")?;
            run(
                conn,
                "INSERT OR REPLACE INTO roles (name, description, global, capabilities) VALUES (?1, ?2, ?3, ?4)",
                params![role.name, role.description, role.global, capabilities],
                || format!("writing role '{}'", role.name),
            )?;
            Ok(())
        }
        Op::AddGrant(g) => {
            run(
                conn,
                "INSERT OR IGNORE INTO grants (grantee_model, grantee, role, object_model, object_id) \
                 VALUES (?1, ?2, ?3, ?4, ?5)",
                grant_params(g),
                || format!("granting role '{}' to {}", g.role, g.grantee),
            )?;
            Ok(())
        }
        Op::RemoveGrant(g) => {
            run(
                conn,
                "DELETE FROM grants WHERE grantee_model = ?1 AND grantee = ?2 AND role = ?3 \
                 AND object_model IS ?4 AND object_id IS ?5",
                grant_params(g),
                || format!("revoking role '{}' from {}", g.role, g.grantee),
            )?;
            Ok(())
        }
    }
}

fn edge_params(edge: &Edge) -> impl Params + '_ {
    (
        edge.source.model,
        edge.source.object,
        edge.kind.as_str(),
        edge.target.model,
        edge.target.object,
        &edge.name,
    )
}

fn grant_params(g: &Grant) -> impl Params + '_ {
    (
        g.grantee.model,
        g.grantee.object,
        &g.role,
        g.object.map(|o| o.model),
        g.object.map(|o| o.object),
    )
}

fn put_object(conn: &Connection, o: &Object) -> Result<()> {
    if let Some(parent) = o.parent.filter(|p| p.model != o.id.model) {
        return Err(Error::invalid(format!(
            "object {} cannot have {parent} as its parent: a parent lies in the same id space as its child",
            o.id
        )));
    }
    run_unique(
        conn,
        "INSERT INTO objects (model_id, object_id, kind, parent, profile, type_name, system_type, name, \
             physical_name, native_id, stable_id, description, business_name, business_description, data_type, \
             external_url, hide_data, workflow_state, created_at, updated_at, updated_by_model, updated_by) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22) \
         ON CONFLICT (model_id, object_id) DO UPDATE SET \
             kind = excluded.kind, parent = excluded.parent, profile = excluded.profile, \
             type_name = excluded.type_name, system_type = excluded.system_type, name = excluded.name, \
             physical_name = excluded.physical_name, native_id = excluded.native_id, \
             stable_id = excluded.stable_id, description = excluded.description, \
             business_name = excluded.business_name, business_description = excluded.business_description, \
             data_type = excluded.data_type, external_url = excluded.external_url, \
             hide_data = excluded.hide_data, workflow_state = excluded.workflow_state, \
             created_at = excluded.created_at, updated_at = excluded.updated_at, \
             updated_by_model = excluded.updated_by_model, updated_by = excluded.updated_by",
        params![
            o.id.model,
            o.id.object,
            o.kind.as_str(),
            o.parent.map(|p| p.object),
            o.object_type.profile,
            o.object_type.name,
            o.system_type.as_str(),
            o.name,
            o.physical_name,
            o.native_id,
            o.stable_id,
            o.description,
            o.business_name,
            o.business_description,
            o.data_type,
            o.external_url,
            o.hide_data,
            o.workflow_state,
            millis(&o.created_at),
            millis(&o.updated_at),
            o.updated_by.map(|u| u.model),
            o.updated_by.map(|u| u.object),
        ],
        || format!("writing object {}", o.id),
        |violation| {
            if violation.contains("objects_repository_name") {
                format!("an object named '{}' already exists there", o.name)
            } else {
                format!(
                    "an object with stable id '{}' already exists",
                    o.stable_id.as_deref().unwrap_or_default()
                )
            }
        },
    )?;
    Ok(())
}

/// The tables that hang on one object through (model_id, object_id).
const HANGING_TABLES: [&str; 5] = [
    "attribute_values",
    "tags",
    "classifications",
    "label_assignments",
    "profiling",
];

fn delete_object(conn: &Connection, id: ObjectId) -> Result<()> {
    let what = || format!("deleting object {id}");
    run(
        conn,
        "DELETE FROM objects WHERE model_id = ?1 AND object_id = ?2",
        params![id.model, id.object],
        what,
    )?;
    for table in HANGING_TABLES {
        let sql = format!("DELETE FROM {table} WHERE model_id = ?1 AND object_id = ?2");
        run(conn, &sql, params![id.model, id.object], what)?;
    }
    run(
        conn,
        "DELETE FROM edges WHERE (source_model = ?1 AND source_object = ?2) OR (target_model = ?1 AND target_object = ?2)",
        params![id.model, id.object],
        what,
    )?;
    run(
        conn,
        "DELETE FROM grants WHERE object_model = ?1 AND object_id = ?2",
        params![id.model, id.object],
        what,
    )?;
    Ok(())
}

fn clear_model(conn: &Connection, model: i64) -> Result<()> {
    if model == lore_core::id::REPOSITORY_MODEL {
        return Err(Error::invalid(
            "the repository's id space is not a model and cannot be cleared",
        ));
    }
    let what = || format!("clearing model {model}");
    run(
        conn,
        "DELETE FROM objects WHERE model_id = ?1",
        params![model],
        what,
    )?;
    for table in HANGING_TABLES {
        run(
            conn,
            &format!("DELETE FROM {table} WHERE model_id = ?1"),
            params![model],
            what,
        )?;
    }
    run(
        conn,
        "DELETE FROM edges WHERE source_model = ?1",
        params![model],
        what,
    )?;
    run(
        conn,
        "DELETE FROM edges WHERE target_model = ?1",
        params![model],
        what,
    )?;
    run(
        conn,
        "DELETE FROM grants WHERE object_model = ?1",
        params![model],
        what,
    )?;
    Ok(())
}

fn set_attribute(conn: &Connection, a: &AttributeValue) -> Result<()> {
    let (kind, text, integer, double, boolean, datetime) = match &a.value {
        Value::Text(s) => ("text", Some(s.as_str()), None, None, None, None),
        Value::Integer(i) => ("integer", None, Some(*i), None, None, None),
        Value::Double(d) if d.is_nan() => {
            return Err(Error::invalid(format!(
                "attribute '{}' of {} cannot be NaN",
                a.attribute, a.object
            )));
        }
        Value::Double(d) => ("double", None, None, Some(*d), None, None),
        Value::Boolean(b) => ("boolean", None, None, None, Some(*b), None),
        Value::DateTime(t) => ("datetime", None, None, None, None, Some(millis(t))),
    };
    run(
        conn,
        "INSERT INTO attribute_values (model_id, object_id, attribute, value_kind, text_value, integer_value, \
             double_value, boolean_value, datetime_value) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9) \
         ON CONFLICT (model_id, object_id, attribute) DO UPDATE SET \
             value_kind = excluded.value_kind, text_value = excluded.text_value, \
             integer_value = excluded.integer_value, double_value = excluded.double_value, \
             boolean_value = excluded.boolean_value, datetime_value = excluded.datetime_value",
        params![
            a.object.model,
            a.object.object,
            a.attribute,
            kind,
            text,
            integer,
            double,
            boolean,
            datetime
        ],
        || format!("setting attribute '{}' of {}", a.attribute, a.object),
    )?;
    Ok(())
}

fn set_profiling(conn: &Connection, p: &Profiling) -> Result<()> {
    let what = || format!("writing the profiling of {}", p.object);
    if p.profile.is_none() && p.sample.is_none() {
        run(
            conn,
            "DELETE FROM profiling WHERE model_id = ?1 AND object_id = ?2",
            params![p.object.model, p.object.object],
            what,
        )?;
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
    run(
        conn,
        "INSERT OR REPLACE INTO profiling (model_id, object_id, profile, sample) VALUES (?1, ?2, ?3, ?4)",
        params![p.object.model, p.object.object, profile, sample],
        what,
    )?;
    Ok(())
}

fn put_user(conn: &Connection, u: &User) -> Result<()> {
    run_unique(
        conn,
        "INSERT INTO users (model_id, object_id, name, name_key, full_name, email, description, \
             password_hash, enabled, created_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10) \
         ON CONFLICT (model_id, object_id) DO UPDATE SET \
             name = excluded.name, name_key = excluded.name_key, full_name = excluded.full_name, \
             email = excluded.email, description = excluded.description, \
             password_hash = excluded.password_hash, enabled = excluded.enabled, created_at = excluded.created_at",
        params![
            u.id.model,
            u.id.object,
            u.name,
            name_key(&u.name),
            u.full_name,
            u.email,
            u.description,
            u.password_hash,
            u.enabled,
            millis(&u.created_at),
        ],
        || format!("writing user {}", u.id),
        |_| format!("a user named '{}' already exists", u.name),
    )?;
    Ok(())
}

/// Reserves `count` ids of the id space in one statement, so concurrent callers (and
/// processes) never get the same id.
pub(crate) fn reserve_ids(conn: &Connection, model: i64, count: u64) -> Result<i64> {
    let count = i64::try_from(count)
        .ok()
        .filter(|c| *c < i64::MAX)
        .ok_or_else(|| Error::invalid(format!("cannot reserve {count} ids at once")))?;
    conn.prepare_cached(
        "INSERT INTO id_sequences (model, next_id) VALUES (?1, 1 + ?2) \
         ON CONFLICT (model) DO UPDATE SET next_id = next_id + ?2 WHERE next_id <= 9223372036854775807 - ?2 \
         RETURNING next_id - ?2",
    )
    .and_then(|mut stmt| stmt.query_row(params![model, count], |row| row.get(0)).optional())
    .ctx(&format!("reserving ids of id space {model}"))?
    .ok_or_else(|| Error::internal(format!("id space {model} has no {count} ids left")))
}

pub(crate) fn put_session(conn: &Connection, s: &Session) -> Result<()> {
    run(
        conn,
        "INSERT OR REPLACE INTO sessions (key_hash, user_model, user_id, created_at, expires_at) \
         VALUES (?1, ?2, ?3, ?4, ?5)",
        params![
            s.key_hash,
            s.user.model,
            s.user.object,
            millis(&s.created_at),
            millis(&s.expires_at)
        ],
        || format!("writing a session of {}", s.user),
    )?;
    Ok(())
}

pub(crate) fn delete_session(conn: &Connection, key_hash: &str) -> Result<()> {
    run(
        conn,
        "DELETE FROM sessions WHERE key_hash = ?1",
        params![key_hash],
        || "deleting a session".to_owned(),
    )?;
    Ok(())
}

pub(crate) fn delete_sessions_of(conn: &Connection, user: ObjectId) -> Result<u64> {
    let n = run(
        conn,
        "DELETE FROM sessions WHERE user_model = ?1 AND user_id = ?2",
        params![user.model, user.object],
        || format!("deleting the sessions of {user}"),
    )?;
    Ok(n as u64)
}

/// Removes sessions that have expired at `now`, the ones [`crate::read::session`] no
/// longer returns.
pub(crate) fn purge_sessions(conn: &Connection, now: Timestamp) -> Result<u64> {
    let n = run(
        conn,
        "DELETE FROM sessions WHERE expires_at <= ?1",
        params![millis(&now)],
        || "purging expired sessions".to_owned(),
    )?;
    Ok(n as u64)
}
