//! Reads: rows back into domain types, in the orders the `Store` contract names.

use lore_core::model::*;
use lore_core::store::{Details, Scope};
use lore_core::{ObjectId, Result};
use rusqlite::{Connection, Params, Row, params, params_from_iter};

use crate::sql::{Context, col, json, millis, parse, timestamp};

/// The columns of `objects` in the order [`read_object`] reads them.
const OBJECT_COLUMNS: &str = "model_id, object_id, kind, parent, profile, type_name, system_type, name, \
     physical_name, native_id, stable_id, description, business_name, business_description, data_type, \
     external_url, hide_data, workflow_state, created_at, updated_at, updated_by_model, updated_by";

/// Runs a query and reads every row with `read`.
fn query<T>(
    conn: &Connection,
    sql: &str,
    params: impl Params,
    table: &str,
    read: impl Fn(&Row<'_>) -> Result<T>,
) -> Result<Vec<T>> {
    let context = format!("reading {table}");
    let mut stmt = conn.prepare_cached(sql).ctx(&context)?;
    let mut rows = stmt.query(params).ctx(&context)?;
    let mut out = Vec::new();
    while let Some(row) = rows.next().ctx(&context)? {
        out.push(read(row)?);
    }
    Ok(out)
}

/// Runs a query that returns at most one row of interest.
fn query_one<T>(
    conn: &Connection,
    sql: &str,
    params: impl Params,
    table: &str,
    read: impl Fn(&Row<'_>) -> Result<T>,
) -> Result<Option<T>> {
    let context = format!("reading {table}");
    let mut stmt = conn.prepare_cached(sql).ctx(&context)?;
    let mut rows = stmt.query(params).ctx(&context)?;
    rows.next().ctx(&context)?.map(read).transpose()
}

fn read_object(row: &Row<'_>) -> Result<Object> {
    const T: &str = "objects";
    let model: i64 = col(row, 0, T)?;
    let kind: String = col(row, 2, T)?;
    let system_type: String = col(row, 6, T)?;
    let updated_by_model: Option<i64> = col(row, 20, T)?;
    let updated_by: Option<i64> = col(row, 21, T)?;
    Ok(Object {
        id: ObjectId::new(model, col(row, 1, T)?),
        kind: parse(&kind, T, "object kind", ObjectKind::parse)?,
        parent: col::<Option<i64>>(row, 3, T)?.map(|p| ObjectId::new(model, p)),
        object_type: TypeName::new(col::<String>(row, 4, T)?, col::<String>(row, 5, T)?),
        system_type: parse(&system_type, T, "system type", SystemType::parse)?,
        name: col(row, 7, T)?,
        physical_name: col(row, 8, T)?,
        native_id: col(row, 9, T)?,
        stable_id: col(row, 10, T)?,
        description: col(row, 11, T)?,
        business_name: col(row, 12, T)?,
        business_description: col(row, 13, T)?,
        data_type: col(row, 14, T)?,
        external_url: col(row, 15, T)?,
        hide_data: col(row, 16, T)?,
        workflow_state: col(row, 17, T)?,
        created_at: timestamp(col(row, 18, T)?, T)?,
        updated_at: timestamp(col(row, 19, T)?, T)?,
        updated_by: updated_by_model
            .zip(updated_by)
            .map(|(m, o)| ObjectId::new(m, o)),
    })
}

pub(crate) fn object(conn: &Connection, id: ObjectId) -> Result<Option<Object>> {
    let sql =
        format!("SELECT {OBJECT_COLUMNS} FROM objects WHERE model_id = ?1 AND object_id = ?2");
    query_one(
        conn,
        &sql,
        params![id.model, id.object],
        "objects",
        read_object,
    )
}

pub(crate) fn object_by_stable_id(conn: &Connection, stable_id: &str) -> Result<Option<Object>> {
    let sql = format!("SELECT {OBJECT_COLUMNS} FROM objects WHERE stable_id = ?1");
    query_one(conn, &sql, params![stable_id], "objects", read_object)
}

/// The object number of `parent` when it lies in the id space of `model`; `Err(())`
/// when it lies elsewhere, so that nothing can be its child in `model`.
fn parent_in(model: i64, parent: Option<ObjectId>) -> Result<Option<i64>, ()> {
    match parent {
        Some(p) if p.model != model => Err(()),
        Some(p) => Ok(Some(p.object)),
        None => Ok(None),
    }
}

pub(crate) fn child_by_name(
    conn: &Connection,
    model: i64,
    parent: Option<ObjectId>,
    name: &str,
) -> Result<Option<Object>> {
    let Ok(parent) = parent_in(model, parent) else {
        return Ok(None);
    };
    let sql = format!(
        "SELECT {OBJECT_COLUMNS} FROM objects WHERE model_id = ?1 AND parent IS ?2 AND name = ?3 \
         ORDER BY object_id LIMIT 1"
    );
    query_one(
        conn,
        &sql,
        params![model, parent, name],
        "objects",
        read_object,
    )
}

pub(crate) fn children(
    conn: &Connection,
    model: i64,
    parent: Option<ObjectId>,
) -> Result<Vec<Object>> {
    let Ok(parent) = parent_in(model, parent) else {
        return Ok(Vec::new());
    };
    let sql = format!(
        "SELECT {OBJECT_COLUMNS} FROM objects WHERE model_id = ?1 AND parent IS ?2 ORDER BY name, object_id"
    );
    query(conn, &sql, params![model, parent], "objects", read_object)
}

pub(crate) fn model_objects(conn: &Connection, model: i64) -> Result<Vec<Object>> {
    let sql =
        format!("SELECT {OBJECT_COLUMNS} FROM objects WHERE model_id = ?1 ORDER BY object_id");
    query(conn, &sql, params![model], "objects", read_object)
}

pub(crate) fn objects_of_kind(conn: &Connection, kind: ObjectKind) -> Result<Vec<Object>> {
    let sql = format!(
        "SELECT {OBJECT_COLUMNS} FROM objects WHERE kind = ?1 ORDER BY name, model_id, object_id"
    );
    query(conn, &sql, params![kind.as_str()], "objects", read_object)
}

// ---- details

fn read_attribute(row: &Row<'_>) -> Result<AttributeValue> {
    const T: &str = "attribute_values";
    let kind: String = col(row, 3, T)?;
    let value = match kind.as_str() {
        "text" => Value::Text(col(row, 4, T)?),
        "integer" => Value::Integer(col(row, 5, T)?),
        "double" => Value::Double(col(row, 6, T)?),
        "boolean" => Value::Boolean(col(row, 7, T)?),
        "datetime" => Value::DateTime(timestamp(col(row, 8, T)?, T)?),
        other => {
            return Err(lore_core::Error::internal(format!(
                "table {T} holds '{other}', which is not a known value kind"
            )));
        }
    };
    Ok(AttributeValue {
        object: ObjectId::new(col(row, 0, T)?, col(row, 1, T)?),
        attribute: col(row, 2, T)?,
        value,
    })
}

fn read_edge(row: &Row<'_>) -> Result<Edge> {
    const T: &str = "edges";
    let kind: String = col(row, 0, T)?;
    Ok(Edge {
        kind: parse(&kind, T, "edge kind", EdgeKind::parse)?,
        source: ObjectId::new(col(row, 1, T)?, col(row, 2, T)?),
        target: ObjectId::new(col(row, 3, T)?, col(row, 4, T)?),
        name: col(row, 5, T)?,
    })
}

fn read_tag(row: &Row<'_>) -> Result<Tag> {
    const T: &str = "tags";
    let kind: String = col(row, 2, T)?;
    Ok(Tag {
        object: ObjectId::new(col(row, 0, T)?, col(row, 1, T)?),
        kind: parse(&kind, T, "tag kind", TagKind::parse)?,
        value: col(row, 3, T)?,
    })
}

fn read_classification(row: &Row<'_>) -> Result<Classification> {
    const T: &str = "classifications";
    let status: String = col(row, 3, T)?;
    Ok(Classification {
        object: ObjectId::new(col(row, 0, T)?, col(row, 1, T)?),
        data_class: col(row, 2, T)?,
        status: parse(
            &status,
            T,
            "classification status",
            ClassificationStatus::parse,
        )?,
    })
}

fn read_label(row: &Row<'_>) -> Result<LabelAssignment> {
    const T: &str = "label_assignments";
    let status: String = col(row, 3, T)?;
    Ok(LabelAssignment {
        object: ObjectId::new(col(row, 0, T)?, col(row, 1, T)?),
        label: col(row, 2, T)?,
        status: parse(&status, T, "label status", ClassificationStatus::parse)?,
    })
}

fn read_profiling(row: &Row<'_>) -> Result<Profiling> {
    const T: &str = "profiling";
    let profile: Option<String> = col(row, 2, T)?;
    let sample: Option<String> = col(row, 3, T)?;
    Ok(Profiling {
        object: ObjectId::new(col(row, 0, T)?, col(row, 1, T)?),
        profile: profile.map(|p| json(&p, T, "data profile")).transpose()?,
        sample: sample.map(|s| json(&s, T, "data sample")).transpose()?,
    })
}

const EDGE_COLUMNS: &str =
    "e.kind, e.source_model, e.source_object, e.target_model, e.target_object, e.name";

/// Creates the temporary table that holds the ids of a `Scope::Objects` read; it lives
/// as long as the connection.
pub(crate) fn create_scope_table(conn: &Connection) -> Result<()> {
    conn.execute_batch(
        "CREATE TEMP TABLE IF NOT EXISTS scope_ids (
             model_id  INTEGER NOT NULL,
             object_id INTEGER NOT NULL,
             PRIMARY KEY (model_id, object_id)
         ) WITHOUT ROWID",
    )
    .ctx("creating the scope table")
}

/// What hangs on the objects in scope. The ids of `Scope::Objects` go through a
/// temporary table, so any number of them costs one join per table.
pub(crate) fn details(conn: &mut Connection, scope: &Scope) -> Result<Details> {
    // One transaction: every list comes from the same snapshot, and the temporary rows
    // vanish when it rolls back on drop.
    let tx = conn.transaction().ctx("starting a read")?;
    let (filter, args, edges_sql) = match scope {
        Scope::Objects(ids) => {
            {
                let mut insert = tx
                    .prepare_cached("INSERT OR IGNORE INTO temp.scope_ids (model_id, object_id) VALUES (?1, ?2)")
                    .ctx("filling the scope table")?;
                for id in ids {
                    insert
                        .execute(params![id.model, id.object])
                        .ctx("filling the scope table")?;
                }
            }
            (
                "JOIN temp.scope_ids s ON s.model_id = t.model_id AND s.object_id = t.object_id",
                Vec::new(),
                format!(
                    "SELECT {EDGE_COLUMNS} FROM temp.scope_ids s \
                         JOIN edges e ON e.source_model = s.model_id AND e.source_object = s.object_id \
                     UNION \
                     SELECT {EDGE_COLUMNS} FROM temp.scope_ids s \
                         JOIN edges e ON e.target_model = s.model_id AND e.target_object = s.object_id"
                ),
            )
        }
        Scope::Model(model) => (
            "WHERE t.model_id = ?1",
            vec![*model],
            format!(
                "SELECT {EDGE_COLUMNS} FROM edges e WHERE e.source_model = ?1 \
                 UNION \
                 SELECT {EDGE_COLUMNS} FROM edges e WHERE e.target_model = ?1"
            ),
        ),
    };
    let scoped = |columns: &str, table: &str| format!("SELECT {columns} FROM {table} t {filter}");

    let mut attributes = query(
        &tx,
        &scoped(
            "t.model_id, t.object_id, t.attribute, t.value_kind, t.text_value, t.integer_value, \
             t.double_value, t.boolean_value, t.datetime_value",
            "attribute_values",
        ),
        params_from_iter(&args),
        "attribute_values",
        read_attribute,
    )?;
    attributes.sort_by(|a, b| (a.object, &a.attribute).cmp(&(b.object, &b.attribute)));

    let mut edges = query(&tx, &edges_sql, params_from_iter(&args), "edges", read_edge)?;
    edges.sort();

    let mut tags = query(
        &tx,
        &scoped("t.model_id, t.object_id, t.kind, t.value", "tags"),
        params_from_iter(&args),
        "tags",
        read_tag,
    )?;
    tags.sort();

    let mut classifications = query(
        &tx,
        &scoped(
            "t.model_id, t.object_id, t.data_class, t.status",
            "classifications",
        ),
        params_from_iter(&args),
        "classifications",
        read_classification,
    )?;
    classifications.sort();

    let mut labels = query(
        &tx,
        &scoped(
            "t.model_id, t.object_id, t.label, t.status",
            "label_assignments",
        ),
        params_from_iter(&args),
        "label_assignments",
        read_label,
    )?;
    labels.sort();

    let mut profiling = query(
        &tx,
        &scoped("t.model_id, t.object_id, t.profile, t.sample", "profiling"),
        params_from_iter(&args),
        "profiling",
        read_profiling,
    )?;
    profiling.sort_by_key(|p| p.object);

    Ok(Details {
        attributes,
        edges,
        tags,
        classifications,
        labels,
        profiling,
    })
}

pub(crate) fn edges(
    conn: &Connection,
    kind: EdgeKind,
    object: ObjectId,
    incoming: bool,
) -> Result<Vec<Edge>> {
    let sql = if incoming {
        format!(
            "SELECT {EDGE_COLUMNS} FROM edges e WHERE e.target_model = ?1 AND e.target_object = ?2 AND e.kind = ?3"
        )
    } else {
        format!(
            "SELECT {EDGE_COLUMNS} FROM edges e WHERE e.source_model = ?1 AND e.source_object = ?2 AND e.kind = ?3"
        )
    };
    let mut edges = query(
        conn,
        &sql,
        params![object.model, object.object, kind.as_str()],
        "edges",
        read_edge,
    )?;
    edges.sort();
    Ok(edges)
}

// ---- meta model and governance definitions

pub(crate) fn attribute_types(conn: &Connection) -> Result<Vec<AttributeType>> {
    const T: &str = "attribute_types";
    query(
        conn,
        "SELECT name, display_name, kind, value_type, profile, group_name, description \
         FROM attribute_types ORDER BY name",
        [],
        T,
        |row| {
            let kind: String = col(row, 2, T)?;
            let value_type: String = col(row, 3, T)?;
            Ok(AttributeType {
                name: col(row, 0, T)?,
                display_name: col(row, 1, T)?,
                kind: parse(&kind, T, "attribute kind", AttributeKind::parse)?,
                value_type: parse(&value_type, T, "value type", ValueType::parse)?,
                profile: col(row, 4, T)?,
                group: col(row, 5, T)?,
                description: col(row, 6, T)?,
            })
        },
    )
}

pub(crate) fn data_classes(conn: &Connection) -> Result<Vec<DataClass>> {
    const T: &str = "data_classes";
    query(
        conn,
        "SELECT name, description, hide_data, definition FROM data_classes ORDER BY name",
        [],
        T,
        |row| {
            let definition: String = col(row, 3, T)?;
            Ok(DataClass {
                name: col(row, 0, T)?,
                description: col(row, 1, T)?,
                hide_data: col(row, 2, T)?,
                definition: json(&definition, T, "data class definition")?,
            })
        },
    )
}

pub(crate) fn sensitivity_labels(conn: &Connection) -> Result<Vec<SensitivityLabel>> {
    const T: &str = "sensitivity_labels";
    query(
        conn,
        "SELECT name, position, description, foreground_color, background_color, hide_data \
         FROM sensitivity_labels ORDER BY name",
        [],
        T,
        |row| {
            Ok(SensitivityLabel {
                name: col(row, 0, T)?,
                position: col(row, 1, T)?,
                description: col(row, 2, T)?,
                foreground_color: col(row, 3, T)?,
                background_color: col(row, 4, T)?,
                hide_data: col(row, 5, T)?,
            })
        },
    )
}

pub(crate) fn roles(conn: &Connection) -> Result<Vec<Role>> {
    const T: &str = "roles";
    query(
        conn,
        "SELECT name, description, global, capabilities FROM roles ORDER BY name",
        [],
        T,
        |row| {
            let capabilities: String = col(row, 3, T)?;
            Ok(Role {
                name: col(row, 0, T)?,
                description: col(row, 1, T)?,
                global: col(row, 2, T)?,
                capabilities: json(&capabilities, T, "capability list")?,
            })
        },
    )
}

// ---- users, grants and sessions

const USER_COLUMNS: &str =
    "model_id, object_id, name, full_name, email, description, password_hash, enabled, created_at";

fn read_user(row: &Row<'_>) -> Result<User> {
    const T: &str = "users";
    Ok(User {
        id: ObjectId::new(col(row, 0, T)?, col(row, 1, T)?),
        name: col(row, 2, T)?,
        full_name: col(row, 3, T)?,
        email: col(row, 4, T)?,
        description: col(row, 5, T)?,
        password_hash: col(row, 6, T)?,
        enabled: col(row, 7, T)?,
        created_at: timestamp(col(row, 8, T)?, T)?,
    })
}

/// The key user names are compared by: case does not matter.
pub(crate) fn name_key(name: &str) -> String {
    name.to_lowercase()
}

pub(crate) fn user(conn: &Connection, id: ObjectId) -> Result<Option<User>> {
    let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE model_id = ?1 AND object_id = ?2");
    query_one(conn, &sql, params![id.model, id.object], "users", read_user)
}

pub(crate) fn user_by_name(conn: &Connection, name: &str) -> Result<Option<User>> {
    let sql = format!("SELECT {USER_COLUMNS} FROM users WHERE name_key = ?1");
    query_one(conn, &sql, params![name_key(name)], "users", read_user)
}

pub(crate) fn user_count(conn: &Connection) -> Result<u64> {
    let count: i64 = conn
        .query_row("SELECT count(*) FROM users", [], |row| row.get(0))
        .ctx("counting users")?;
    Ok(u64::try_from(count).unwrap_or(0))
}

pub(crate) fn grants_of(conn: &Connection, grantee: ObjectId) -> Result<Vec<Grant>> {
    const T: &str = "grants";
    let mut grants = query(
        conn,
        "SELECT grantee_model, grantee, role, object_model, object_id FROM grants \
         WHERE grantee_model = ?1 AND grantee = ?2",
        params![grantee.model, grantee.object],
        T,
        |row| {
            let object_model: Option<i64> = col(row, 3, T)?;
            let object: Option<i64> = col(row, 4, T)?;
            Ok(Grant {
                grantee: ObjectId::new(col(row, 0, T)?, col(row, 1, T)?),
                role: col(row, 2, T)?,
                object: object_model.zip(object).map(|(m, o)| ObjectId::new(m, o)),
            })
        },
    )?;
    grants.sort();
    Ok(grants)
}

pub(crate) fn session(
    conn: &Connection,
    key_hash: &str,
    now: Timestamp,
) -> Result<Option<Session>> {
    const T: &str = "sessions";
    query_one(
        conn,
        "SELECT key_hash, user_model, user_id, created_at, expires_at FROM sessions \
         WHERE key_hash = ?1 AND expires_at > ?2",
        params![key_hash, millis(&now)],
        T,
        |row| {
            Ok(Session {
                key_hash: col(row, 0, T)?,
                user: ObjectId::new(col(row, 1, T)?, col(row, 2, T)?),
                created_at: timestamp(col(row, 3, T)?, T)?,
                expires_at: timestamp(col(row, 4, T)?, T)?,
            })
        },
    )
}
