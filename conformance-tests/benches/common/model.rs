//! The synthetic database model of the benchmarks, shared by the import bench of
//! `lore-conformance` and the HTTP benches of `lore-server` (which include this file with
//! `#[path]`).
//!
//! A model of exactly `n` objects: one database, then schemas of [`TABLES_PER_SCHEMA`]
//! tables of [`COLUMNS_PER_TABLE`] columns, filled in that order. Columns carry Position
//! and Default Value, tables Row Count and the custom [`CUSTOM_ATTRIBUTE`]; every fifth
//! column is labelled PII, every table is in a collection; each table but a schema's
//! first has a foreign key to the one before, and every fourth column of those tables has
//! a lineage edge from the same column of the table before. Parents come before their
//! children. [`generate`] hands the rows out one by one, so a caller can stream them to a
//! file; [`synthetic_archive`] collects them in memory.

use lore_core::archive::{
    ArchiveAttribute, ArchiveModel, ArchiveObject, ArchiveRelationship, ArchiveTag, ModelArchive,
};
use lore_core::model::{DATABASE_PROFILE, EdgeKind, TagKind, ValueType};

pub const TABLES_PER_SCHEMA: usize = 20;
pub const COLUMNS_PER_TABLE: usize = 24;
/// The custom attribute the archive defines (every other attribute is built in).
pub const CUSTOM_ATTRIBUTE: &str = "Data Owner";
/// In an edited model, one object in this many has its description changed.
pub const EDIT_EVERY: usize = 100;

/// One row of the synthetic model, in the order [`generate`] makes them.
#[derive(Debug)]
pub enum Row {
    Object(ArchiveObject),
    Attribute(ArchiveAttribute),
    Relationship(ArchiveRelationship),
    Tag(ArchiveTag),
}

/// The `model.csv` row of the model of `n` objects.
pub fn model(n: usize) -> ArchiveModel {
    ArchiveModel {
        name: format!("Bench {n}"),
        profile: DATABASE_PROFILE.to_owned(),
        description: "Synthetic model of the import benchmark".to_owned(),
    }
}

/// The model of `n` objects, in memory.
pub fn synthetic_archive(n: usize) -> ModelArchive {
    let mut archive = ModelArchive {
        model: model(n),
        ..Default::default()
    };
    generate(n, false, |row| match row {
        Row::Object(o) => archive.objects.push(o),
        Row::Attribute(a) => archive.attributes.push(a),
        Row::Relationship(r) => archive.relationships.push(r),
        Row::Tag(t) => archive.tags.push(t),
    });
    archive
}

/// Hands the rows of the model of `n` objects to `emit`. With `edited`, the description
/// of every [`EDIT_EVERY`]th object (the last of each run of that many) ends in
/// ` (edited)`, the only difference from the unedited model.
pub fn generate(n: usize, edited: bool, mut emit: impl FnMut(Row)) {
    let mut objects = 0;
    let mut object = |native_id: String,
                      parent: Option<&str>,
                      object_type: &str,
                      name: String,
                      description: Option<String>,
                      data_type: Option<&str>| {
        objects += 1;
        let description = if edited && objects % EDIT_EVERY == 0 {
            Some(format!("{} (edited)", description.unwrap_or_default()))
        } else {
            description
        };
        Row::Object(ArchiveObject {
            native_id,
            parent_native_id: parent.map(str::to_owned),
            object_type: object_type.to_owned(),
            physical_name: Some(name.clone()),
            name,
            description,
            data_type: data_type.map(str::to_owned),
            ..Default::default()
        })
    };
    let attribute = |native_id: &str, attribute: &str, value_type, value: String| {
        Row::Attribute(ArchiveAttribute {
            native_id: native_id.to_owned(),
            attribute: attribute.to_owned(),
            value_type,
            value,
        })
    };
    if n == 0 {
        return;
    }
    let db = "db".to_owned();
    emit(object(
        db.clone(),
        None,
        "Database",
        "warehouse".to_owned(),
        Some("The benchmark's database".to_owned()),
        None,
    ));
    emit(attribute(
        &db,
        "Database Version",
        ValueType::String,
        "PostgreSQL 16".to_owned(),
    ));
    let mut count = 1;
    let mut s = 0;
    'fill: while count < n {
        let schema = format!("{db}.s{s}");
        emit(object(
            schema.clone(),
            Some(&db),
            "Schema",
            format!("schema_{s}"),
            None,
            None,
        ));
        count += 1;
        for t in 0..TABLES_PER_SCHEMA {
            if count >= n {
                break 'fill;
            }
            let table = format!("{schema}.t{t}");
            emit(object(
                table.clone(),
                Some(&schema),
                "Table",
                format!("table_{s}_{t}"),
                Some(format!(
                    "Table {t} of schema {s}, with its {COLUMNS_PER_TABLE} columns"
                )),
                None,
            ));
            count += 1;
            emit(attribute(
                &table,
                "Row Count",
                ValueType::Integer,
                (1000 * (t + 1)).to_string(),
            ));
            emit(attribute(
                &table,
                CUSTOM_ATTRIBUTE,
                ValueType::String,
                format!("team-{}", t % 7),
            ));
            emit(Row::Tag(ArchiveTag {
                native_id: table.clone(),
                kind: TagKind::Collection,
                value: format!("Schema {s} tables"),
            }));
            if t > 0 {
                emit(Row::Relationship(ArchiveRelationship {
                    kind: EdgeKind::EntityRelationship,
                    name: format!("fk_{t}_{}", t - 1),
                    source_native_id: table.clone(),
                    target_native_id: format!("{schema}.t{}", t - 1),
                }));
            }
            for c in 0..COLUMNS_PER_TABLE {
                if count >= n {
                    break 'fill;
                }
                let column = format!("{table}.c{c}");
                emit(object(
                    column.clone(),
                    Some(&table),
                    "Column",
                    format!("column_{c}"),
                    Some(format!("Column {c} of table_{s}_{t}")),
                    Some(if c % 3 == 0 { "INTEGER" } else { "VARCHAR(64)" }),
                ));
                count += 1;
                emit(attribute(
                    &column,
                    "Position",
                    ValueType::Integer,
                    (c + 1).to_string(),
                ));
                emit(attribute(
                    &column,
                    "Default Value",
                    ValueType::String,
                    format!("default {c}"),
                ));
                if c % 5 == 0 {
                    emit(Row::Tag(ArchiveTag {
                        native_id: column.clone(),
                        kind: TagKind::Label,
                        value: "PII".to_owned(),
                    }));
                }
                if t > 0 && c % 4 == 0 {
                    emit(Row::Relationship(ArchiveRelationship {
                        kind: EdgeKind::Lineage,
                        name: "copy".to_owned(),
                        source_native_id: format!("{schema}.t{}.c{c}", t - 1),
                        target_native_id: column,
                    }));
                }
            }
        }
        s += 1;
    }
}
