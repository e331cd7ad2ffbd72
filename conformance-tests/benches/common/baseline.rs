//! The hand-written SQL baseline of the import benchmarks, shared by the import bench of
//! `lore-conformance` and the HTTP import bench of `lore-server` (which include this file
//! with `#[path]`, beside `model.rs` as the sibling module `model`).
//!
//! [`baseline_rows`] builds the rows Lore writes for an archive, as a hand-written
//! importer would; [`sqlite_insert`] and [`postgres_insert`] write them in one
//! transaction into a database whose schema Lore's migrations made: one prepared
//! `INSERT` per table run row by row on SQLite, one `INSERT ... SELECT * FROM UNNEST(...)`
//! per table on PostgreSQL.

use std::collections::HashMap;

use lore_core::ObjectId;
use lore_core::archive::ModelArchive;
use lore_core::id::{REPOSITORY_MODEL, stable_id};
use lore_core::model::{
    AttributeKind, DATABASE_PROFILE, MODEL_PROFILE_ATTRIBUTE, ObjectKind, REPOSITORY_PROFILE,
    SystemType, Timestamp, ValueType,
};
use sqlx::{Connection, PgConnection};

use super::model::CUSTOM_ATTRIBUTE;

type BenchResult<T> = std::result::Result<T, Box<dyn std::error::Error + Send + Sync>>;

/// The rows Lore writes for the archive, built by hand as a hand-written importer would.
#[derive(Debug)]
pub struct Rows<'a> {
    pub objects: Vec<ObjectRow<'a>>,
    pub attributes: Vec<AttributeRow<'a>>,
    pub edges: Vec<EdgeRow<'a>>,
    pub tags: Vec<TagRow<'a>>,
}

#[derive(Debug)]
pub struct ObjectRow<'a> {
    pub model: i64,
    pub object: i64,
    pub kind: &'static str,
    pub parent: Option<i64>,
    pub profile: &'static str,
    pub type_name: &'a str,
    pub system_type: &'static str,
    pub name: &'a str,
    pub physical_name: Option<&'a str>,
    pub native_id: Option<&'a str>,
    pub stable_id: Option<String>,
    pub description: Option<&'a str>,
    pub business_name: Option<&'a str>,
    pub business_description: Option<&'a str>,
    pub data_type: Option<&'a str>,
    pub external_url: Option<&'a str>,
    pub hide_data: bool,
    pub workflow_state: Option<&'a str>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub updated_by: ObjectId,
}

#[derive(Debug)]
pub struct AttributeRow<'a> {
    pub model: i64,
    pub object: i64,
    pub attribute: &'a str,
    pub kind: &'static str,
    pub text: Option<&'a str>,
    pub integer: Option<i64>,
    pub double: Option<f64>,
    pub boolean: Option<bool>,
}

#[derive(Debug)]
pub struct EdgeRow<'a> {
    pub kind: &'static str,
    pub source_model: i64,
    pub source_object: i64,
    pub target_model: i64,
    pub target_object: i64,
    pub name: &'a str,
}

#[derive(Debug)]
pub struct TagRow<'a> {
    pub model: i64,
    pub object: i64,
    pub kind: &'static str,
    pub value: &'a str,
}

/// The system type of the database object types the synthetic model uses.
pub fn system_type(object_type: &str) -> BenchResult<SystemType> {
    Ok(match object_type {
        "Database" => SystemType::Model,
        "Schema" => SystemType::Schema,
        "Table" => SystemType::Classifier,
        "Column" => SystemType::Feature,
        other => return Err(format!("the baseline does not know object type {other}").into()),
    })
}

/// The rows of the archive as model `model` (the repository object `-1_<model>`) created
/// by `user`. The archive lists parents before children, so ids are handed out in
/// archive order, as Lore does for this archive.
pub fn baseline_rows(archive: &ModelArchive, model: i64, user: ObjectId) -> BenchResult<Rows<'_>> {
    let now = lore_core::model::now();
    let model_id = ObjectId::repository(model);
    let mut objects = Vec::with_capacity(archive.objects.len() + 1);
    objects.push(ObjectRow {
        model: REPOSITORY_MODEL,
        object: model,
        kind: ObjectKind::Model.as_str(),
        parent: None,
        profile: REPOSITORY_PROFILE,
        type_name: ObjectKind::Model.as_str(),
        system_type: SystemType::Model.as_str(),
        name: &archive.model.name,
        physical_name: None,
        native_id: None,
        stable_id: None,
        description: Some(&archive.model.description),
        business_name: None,
        business_description: None,
        data_type: None,
        external_url: None,
        hide_data: false,
        workflow_state: None,
        created_at: now,
        updated_at: now,
        updated_by: user,
    });
    // Numbered as Lore numbers them: in the order of the archive's objects.csv, which
    // `Objects::import_archive` writes sorted by native id.
    let mut order: Vec<&str> = archive
        .objects
        .iter()
        .map(|o| o.native_id.as_str())
        .collect();
    order.sort_unstable();
    let ids: HashMap<&str, i64> = order
        .into_iter()
        .enumerate()
        .map(|(i, native)| (native, i as i64 + 1))
        .collect();
    for o in &archive.objects {
        let id = *ids.get(o.native_id.as_str()).ok_or("no id")?;
        let parent = match &o.parent_native_id {
            Some(p) => Some(*ids.get(p.as_str()).ok_or("parent after child")?),
            None => None,
        };
        objects.push(ObjectRow {
            model,
            object: id,
            kind: ObjectKind::ModelObject.as_str(),
            parent,
            profile: DATABASE_PROFILE,
            type_name: &o.object_type,
            system_type: system_type(&o.object_type)?.as_str(),
            name: &o.name,
            physical_name: o.physical_name.as_deref(),
            native_id: Some(&o.native_id),
            stable_id: Some(stable_id(model, &o.native_id)),
            description: o.description.as_deref(),
            business_name: o.business_name.as_deref(),
            business_description: o.business_description.as_deref(),
            data_type: o.data_type.as_deref(),
            external_url: o.external_url.as_deref(),
            hide_data: o.hide_data,
            workflow_state: o.workflow_state.as_deref(),
            created_at: now,
            updated_at: now,
            updated_by: user,
        });
    }
    let id = |native: &str| -> BenchResult<i64> {
        ids.get(native)
            .copied()
            .ok_or_else(|| format!("unknown object {native}").into())
    };
    let mut attributes = Vec::with_capacity(archive.attributes.len() + 1);
    attributes.push(AttributeRow {
        model: model_id.model,
        object: model_id.object,
        attribute: MODEL_PROFILE_ATTRIBUTE,
        kind: "text",
        text: Some(&archive.model.profile),
        integer: None,
        double: None,
        boolean: None,
    });
    for a in &archive.attributes {
        let mut row = AttributeRow {
            model,
            object: id(&a.native_id)?,
            attribute: &a.attribute,
            kind: "text",
            text: None,
            integer: None,
            double: None,
            boolean: None,
        };
        match a.value_type {
            ValueType::String => row.text = Some(&a.value),
            ValueType::Integer => {
                row.kind = "integer";
                row.integer = Some(a.value.parse()?);
            }
            ValueType::Double => {
                row.kind = "double";
                row.double = Some(a.value.parse()?);
            }
            ValueType::Boolean => {
                row.kind = "boolean";
                row.boolean = Some(a.value.parse()?);
            }
            other => {
                return Err(
                    format!("the baseline does not write {} values", other.as_str()).into(),
                );
            }
        }
        attributes.push(row);
    }
    let mut edges = Vec::with_capacity(archive.relationships.len());
    for r in &archive.relationships {
        edges.push(EdgeRow {
            kind: r.kind.as_str(),
            source_model: model,
            source_object: id(&r.source_native_id)?,
            target_model: model,
            target_object: id(&r.target_native_id)?,
            name: &r.name,
        });
    }
    let mut tags = Vec::with_capacity(archive.tags.len());
    for t in &archive.tags {
        tags.push(TagRow {
            model,
            object: id(&t.native_id)?,
            kind: t.kind.as_str(),
            value: &t.value,
        });
    }
    Ok(Rows {
        objects,
        attributes,
        edges,
        tags,
    })
}

/// Inserts the rows with prepared statements in one `BEGIN IMMEDIATE` transaction.
pub fn sqlite_insert(conn: &mut rusqlite::Connection, rows: &Rows<'_>) -> BenchResult<()> {
    use rusqlite::params;
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    tx.execute(
        "INSERT INTO attribute_types (name, display_name, kind, value_type, profile, group_name, description) \
         VALUES (?1, ?1, ?2, ?3, NULL, 'Custom Attributes', '')",
        params![
            CUSTOM_ATTRIBUTE,
            AttributeKind::Custom.as_str(),
            ValueType::String.as_str()
        ],
    )?;
    {
        let mut stmt = tx.prepare(
            "INSERT INTO objects (model_id, object_id, kind, parent, profile, type_name, system_type, name, \
             physical_name, native_id, stable_id, description, business_name, business_description, data_type, \
             external_url, hide_data, workflow_state, created_at, updated_at, updated_by_model, updated_by_object) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22)",
        )?;
        for o in &rows.objects {
            stmt.execute(params![
                o.model,
                o.object,
                o.kind,
                o.parent,
                o.profile,
                o.type_name,
                o.system_type,
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
                o.created_at.timestamp_micros(),
                o.updated_at.timestamp_micros(),
                o.updated_by.model,
                o.updated_by.object,
            ])?;
        }
    }
    {
        let mut stmt = tx.prepare(
            "INSERT INTO attribute_values (model_id, object_id, attribute, value_kind, text_value, \
             integer_value, double_value, boolean_value) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        )?;
        for a in &rows.attributes {
            stmt.execute(params![
                a.model,
                a.object,
                a.attribute,
                a.kind,
                a.text,
                a.integer,
                a.double,
                a.boolean
            ])?;
        }
    }
    {
        let mut stmt = tx.prepare(
            "INSERT INTO edges (source_model, source_object, kind, target_model, target_object, name) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?;
        for e in &rows.edges {
            stmt.execute(params![
                e.source_model,
                e.source_object,
                e.kind,
                e.target_model,
                e.target_object,
                e.name
            ])?;
        }
    }
    {
        let mut stmt = tx.prepare(
            "INSERT INTO tags (model_id, object_id, kind, value) VALUES (?1, ?2, ?3, ?4)",
        )?;
        for t in &rows.tags {
            stmt.execute(params![t.model, t.object, t.kind, t.value])?;
        }
    }
    tx.commit()?;
    Ok(())
}

/// One field of every row, as an array to bind.
fn col<'r, T, C>(rows: &'r [T], field: impl Fn(&'r T) -> C) -> Vec<C> {
    rows.iter().map(field).collect()
}

/// Inserts the rows with one `UNNEST` statement per table, in one transaction.
pub async fn postgres_insert(conn: &mut PgConnection, rows: &Rows<'_>) -> BenchResult<()> {
    let mut tx = conn.begin().await?;
    sqlx::query(
        "INSERT INTO attribute_types (name, display_name, kind, value_type, profile, group_name, description) \
         VALUES ($1, $1, $2, $3, NULL, 'Custom Attributes', '')",
    )
    .bind(CUSTOM_ATTRIBUTE)
    .bind(AttributeKind::Custom.as_str())
    .bind(ValueType::String.as_str())
    .execute(&mut *tx)
    .await?;
    let o = &rows.objects;
    sqlx::query(
        "INSERT INTO objects (model_id, object_id, kind, parent, profile, type_name, system_type, name, \
         physical_name, native_id, stable_id, description, business_name, business_description, data_type, \
         external_url, hide_data, workflow_state, created_at, updated_at, updated_by_model, updated_by_object) \
         SELECT * FROM UNNEST($1::BIGINT[], $2::BIGINT[], $3::TEXT[], $4::BIGINT[], $5::TEXT[], $6::TEXT[], \
         $7::TEXT[], $8::TEXT[], $9::TEXT[], $10::TEXT[], $11::TEXT[], $12::TEXT[], $13::TEXT[], $14::TEXT[], \
         $15::TEXT[], $16::TEXT[], $17::BOOLEAN[], $18::TEXT[], $19::BIGINT[], $20::BIGINT[], \
         $21::BIGINT[], $22::BIGINT[])",
    )
    .bind(col(o, |r| r.model))
    .bind(col(o, |r| r.object))
    .bind(col(o, |r| r.kind))
    .bind(col(o, |r| r.parent))
    .bind(col(o, |r| r.profile))
    .bind(col(o, |r| r.type_name))
    .bind(col(o, |r| r.system_type))
    .bind(col(o, |r| r.name))
    .bind(col(o, |r| r.physical_name))
    .bind(col(o, |r| r.native_id))
    .bind(col(o, |r| r.stable_id.as_deref()))
    .bind(col(o, |r| r.description))
    .bind(col(o, |r| r.business_name))
    .bind(col(o, |r| r.business_description))
    .bind(col(o, |r| r.data_type))
    .bind(col(o, |r| r.external_url))
    .bind(col(o, |r| r.hide_data))
    .bind(col(o, |r| r.workflow_state))
    .bind(col(o, |r| r.created_at.timestamp_micros()))
    .bind(col(o, |r| r.updated_at.timestamp_micros()))
    .bind(col(o, |r| r.updated_by.model))
    .bind(col(o, |r| r.updated_by.object))
    .execute(&mut *tx)
    .await?;
    let a = &rows.attributes;
    sqlx::query(
        "INSERT INTO attribute_values (model_id, object_id, attribute, value_kind, text_value, integer_value, \
         double_value, boolean_value) \
         SELECT * FROM UNNEST($1::BIGINT[], $2::BIGINT[], $3::TEXT[], $4::TEXT[], $5::TEXT[], $6::BIGINT[], \
         $7::DOUBLE PRECISION[], $8::BOOLEAN[])",
    )
    .bind(col(a, |r| r.model))
    .bind(col(a, |r| r.object))
    .bind(col(a, |r| r.attribute))
    .bind(col(a, |r| r.kind))
    .bind(col(a, |r| r.text))
    .bind(col(a, |r| r.integer))
    .bind(col(a, |r| r.double))
    .bind(col(a, |r| r.boolean))
    .execute(&mut *tx)
    .await?;
    let e = &rows.edges;
    sqlx::query(
        "INSERT INTO edges (kind, source_model, source_object, target_model, target_object, name) \
         SELECT * FROM UNNEST($1::TEXT[], $2::BIGINT[], $3::BIGINT[], $4::BIGINT[], $5::BIGINT[], $6::TEXT[])",
    )
    .bind(col(e, |r| r.kind))
    .bind(col(e, |r| r.source_model))
    .bind(col(e, |r| r.source_object))
    .bind(col(e, |r| r.target_model))
    .bind(col(e, |r| r.target_object))
    .bind(col(e, |r| r.name))
    .execute(&mut *tx)
    .await?;
    let t = &rows.tags;
    sqlx::query(
        "INSERT INTO tags (model_id, object_id, kind, value) \
         SELECT * FROM UNNEST($1::BIGINT[], $2::BIGINT[], $3::TEXT[], $4::TEXT[])",
    )
    .bind(col(t, |r| r.model))
    .bind(col(t, |r| r.object))
    .bind(col(t, |r| r.kind))
    .bind(col(t, |r| r.value))
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}
