//! Lore importer plugin that harvests a live database's catalog (format `database`):
//! PostgreSQL or SQLite, into an `RDBMS Relational Database (Database)` model — the
//! database, its schemas, tables and views, their columns, primary keys, foreign keys
//! (and the entity relationships they make) and indexes, with comments as descriptions —
//! and, with `profile`, the data profile and sample of every table column, made by
//! [`lore_importer_kit::profile`].
//!
//! Each view and materialized view also gets `lineage` relationships, derived from its
//! definition (PostgreSQL's `pg_get_viewdef`, SQLite's `CREATE VIEW` statement) by
//! [`lore_sql_lineage`] against the harvested tables' columns: `sql view` /
//! `sql materialized view` from each harvested table or view it reads, and the same name
//! followed by the transformation (`sql view (DIRECT/IDENTITY)`) from each source column
//! to each view column DIRECTly computed from it. What cannot be resolved or linked is a
//! warning naming the view.

pub mod catalog;
mod lineage;
mod postgres;
mod sqlite;
pub mod url;

use lore_importer_kit::profile::{ColumnProfiler, data_sample, profiling_date};
use lore_plugin_sdk::{
    About, Attribute, Error, Format, Importer, Level, Model, Object, Output, Profiling,
    Relationship, Request,
};
use serde_json::{Value, json};

use catalog::{Catalog, Cell, Layout, Table, TableIds, TableKind};
use url::{DatabaseUrl, Engine};

/// The format this plugin imports.
pub const FORMAT: &str = "database";
/// The profile of the models it makes.
pub const MODEL_PROFILE: &str = "RDBMS Relational Database (Database)";

/// Rows read per table when profiling, unless `sampleRows` says otherwise.
const DEFAULT_SAMPLE_ROWS: u64 = 1_000;
/// Rows in the data samples of tables and columns (of the rows read).
pub const SAMPLE_ROWS: usize = 20;

/// The database harvester.
#[derive(Debug)]
pub struct Harvester;

impl Importer for Harvester {
    fn about() -> About {
        About::new("harvester", env!("CARGO_PKG_VERSION"))
            .description(
                "Harvests the catalog of a live PostgreSQL or SQLite database, with the \
                 lineage of its views",
            )
            .format(
                Format::new(
                    FORMAT,
                    "A live database: schemas, tables, views, columns, keys and indexes",
                )
                .without_file()
                .parameters(json!({
                    "type": "object",
                    "properties": {
                        "url": {
                            "type": "string",
                            "format": "uri",
                            "description": "postgres://user:password@host:port/database, or sqlite:///absolute/path.db or sqlite:relative.db"
                        },
                        "schemas": {
                            "type": "string",
                            "description": "Comma-separated names of the schemas to harvest; all but the system schemas by default"
                        },
                        "profile": {
                            "type": "boolean",
                            "description": "Whether to read rows of every table and profile and sample its columns",
                            "default": false
                        },
                        "sampleRows": {
                            "type": "integer",
                            "description": "Rows read per table when profiling",
                            "default": DEFAULT_SAMPLE_ROWS
                        },
                        "modelName": {
                            "type": "string",
                            "description": "The model's name; the database's name by default"
                        }
                    },
                    "required": ["url"]
                })),
            )
    }

    fn import(request: &Request, out: &mut Output<'_>) -> Result<(), Error> {
        let options = Options::of(request)?;
        match &options.url.engine {
            Engine::Postgres => harvest(postgres::Postgres::connect(&options.url)?, &options, out),
            Engine::Sqlite(path) => harvest(sqlite::Sqlite::open(path)?, &options, out),
        }
    }
}

lore_plugin_sdk::export_importer!(Harvester);

/// A database the harvester reads.
trait Source {
    /// The catalog of the schemas asked for: all but the system schemas for `None`.
    fn catalog(&mut self, schemas: Option<&[String]>) -> Result<Catalog, Error>;

    /// Up to `limit` rows of a table, with its columns in order.
    fn sample(&mut self, schema: &str, table: &Table, limit: u64) -> Result<Vec<Vec<Cell>>, Error>;

    /// Ends the session.
    fn close(self)
    where
        Self: Sized,
    {
    }
}

/// The parameters of an import.
#[derive(Debug, Clone)]
struct Options {
    url: DatabaseUrl,
    schemas: Option<Vec<String>>,
    profile: bool,
    sample_rows: u64,
    model_name: Option<String>,
}

impl Options {
    fn of(request: &Request) -> Result<Self, Error> {
        let url = request
            .text("url")
            .filter(|u| !u.trim().is_empty())
            .ok_or_else(|| Error::new("'url' is required: the database to harvest"))?;
        let schemas: Vec<String> = request
            .text("schemas")
            .unwrap_or_default()
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect();
        let profile = match request.parameters.get("profile") {
            None | Some(Value::Null) => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(Error::new(format!(
                    "'profile' must be a boolean, not {other}"
                )));
            }
        };
        let sample_rows = match request.parameters.get("sampleRows") {
            None | Some(Value::Null) => DEFAULT_SAMPLE_ROWS,
            Some(value) => value.as_u64().ok_or_else(|| {
                Error::new(format!(
                    "'sampleRows' must be a non-negative integer, not {value}"
                ))
            })?,
        };
        Ok(Self {
            url: DatabaseUrl::parse(url)?,
            schemas: (!schemas.is_empty()).then_some(schemas),
            profile,
            sample_rows,
            model_name: request
                .text("modelName")
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_owned),
        })
    }
}

/// The schemas of `available` named in `wanted` (case-insensitively), in the order of
/// `available`; all of them when nothing is wanted. A wanted schema that does not exist
/// is an error.
fn select_schemas(available: &[String], wanted: Option<&[String]>) -> Result<Vec<String>, Error> {
    let Some(wanted) = wanted else {
        return Ok(available.to_vec());
    };
    let missing: Vec<&str> = wanted
        .iter()
        .filter(|w| !available.iter().any(|a| a.eq_ignore_ascii_case(w)))
        .map(String::as_str)
        .collect();
    if !missing.is_empty() {
        return Err(Error::new(format!(
            "no schema {} in the database; its schemas are {}",
            missing
                .iter()
                .map(|m| format!("'{m}'"))
                .collect::<Vec<_>>()
                .join(", "),
            if available.is_empty() {
                "none".to_owned()
            } else {
                available.join(", ")
            }
        )));
    }
    Ok(available
        .iter()
        .filter(|a| wanted.iter().any(|w| a.eq_ignore_ascii_case(w)))
        .cloned()
        .collect())
}

/// What was sent, for the summary.
#[derive(Debug, Default)]
struct Counts {
    schemas: usize,
    tables: usize,
    views: usize,
    columns: usize,
    primary_keys: usize,
    foreign_keys: usize,
    indexes: usize,
    /// `lineage` relationships of the views, between tables and between columns.
    lineage: usize,
    profiled: usize,
}

fn harvest<S: Source>(mut source: S, options: &Options, out: &mut Output<'_>) -> Result<(), Error> {
    let masked = options.url.masked();
    out.log(Level::Info, format!("harvesting {masked}"))?;
    let catalog = source.catalog(options.schemas.as_deref())?;
    for warning in &catalog.warnings {
        out.log(Level::Warn, warning.clone())?;
    }
    let layout = Layout::of(&catalog);
    let mut counts = send_catalog(&catalog, &layout, options, out)?;
    let dialect = match options.url.engine {
        Engine::Postgres => lore_sql_lineage::Dialect::Postgres,
        Engine::Sqlite(_) => lore_sql_lineage::Dialect::Sqlite,
    };
    let lineage = lineage::derive(&catalog, &layout, dialect);
    for warning in lineage.warnings {
        out.log(Level::Warn, warning)?;
    }
    for relationship in lineage.relationships {
        out.relationship(relationship)?;
        counts.lineage += 1;
    }
    if options.profile {
        counts.profiled = send_profiling(&mut source, &catalog, &layout, options, out)?;
    }
    source.close();
    out.log(
        Level::Info,
        format!(
            "harvested {masked}: {} schemas, {} tables, {} views, {} columns, {} primary keys, \
             {} foreign keys, {} indexes, {} lineage relationships{}",
            counts.schemas,
            counts.tables,
            counts.views,
            counts.columns,
            counts.primary_keys,
            counts.foreign_keys,
            counts.indexes,
            counts.lineage,
            if options.profile {
                format!(
                    "; {} tables profiled ({} rows each at most)",
                    counts.profiled, options.sample_rows
                )
            } else {
                String::new()
            }
        ),
    )
}

/// An object of the catalog, its physical name the name in the database.
fn new_object(id: &str, parent: Option<&str>, object_type: &str, name: &str) -> Object {
    let object = Object::new(id, object_type, name).physical_name(name);
    match parent {
        Some(parent) => object.parent(parent),
        None => object,
    }
}

/// Sends the model and every object of the catalog.
fn send_catalog(
    catalog: &Catalog,
    layout: &Layout,
    options: &Options,
    out: &mut Output<'_>,
) -> Result<Counts, Error> {
    let database = &catalog.database;
    let mut model = Model::new(
        options
            .model_name
            .clone()
            .unwrap_or_else(|| database.name.clone()),
        MODEL_PROFILE,
    );
    if let Some(description) = &database.description {
        model = model.description(description.clone());
    }
    out.model(model)?;
    let mut db = new_object(&layout.database, None, "Database", &database.name);
    db.description = database.description.clone();
    out.object(db)?;
    out.attribute(Attribute::text(
        &layout.database,
        "Database Version",
        &database.version,
    ))?;

    let mut counts = Counts::default();
    let total: usize = catalog.schemas.iter().map(|s| s.tables.len()).sum();
    let mut done = 0;
    for (schema, schema_ids) in catalog.schemas.iter().zip(&layout.schemas) {
        let mut object = new_object(
            &schema_ids.id,
            Some(&layout.database),
            "Schema",
            &schema.name,
        );
        object.description = schema.description.clone();
        out.object(object)?;
        counts.schemas += 1;
        for (table, ids) in schema.tables.iter().zip(&schema_ids.tables) {
            send_table(table, ids, &schema_ids.id, layout, &mut counts, out)?;
            done += 1;
            out.progress(done, Some(total as u64), "tables")?;
        }
    }
    Ok(counts)
}

fn send_table(
    table: &Table,
    ids: &TableIds,
    schema_id: &str,
    layout: &Layout,
    counts: &mut Counts,
    out: &mut Output<'_>,
) -> Result<(), Error> {
    let mut object = new_object(
        &ids.id,
        Some(schema_id),
        table.kind.object_type(),
        &table.name,
    );
    object.description = table.description.clone();
    out.object(object)?;
    match table.kind {
        TableKind::Table => counts.tables += 1,
        TableKind::View => counts.views += 1,
    }
    if let Some(rows) = table.row_count {
        out.attribute(Attribute::integer(&ids.id, "Row Count", rows))?;
    }
    if let Some(definition) = &table.definition {
        out.attribute(Attribute::text(&ids.id, "View Statement", definition))?;
    }

    for (position, (column, id)) in table.columns.iter().zip(&ids.columns).enumerate() {
        let mut object = new_object(id, Some(&ids.id), "Column", &column.name);
        object.description = column.description.clone();
        object.data_type = column.data_type.clone();
        out.object(object)?;
        out.attribute(Attribute::integer(
            id,
            "Position",
            i64::try_from(position + 1).unwrap_or(i64::MAX),
        ))?;
        out.attribute(Attribute::boolean(id, "Nullable", column.nullable))?;
        if let Some(default) = &column.default {
            out.attribute(Attribute::text(id, "Default Value", default))?;
        }
        if let Some(length) = column.length {
            out.attribute(Attribute::integer(id, "Length", length))?;
        }
        counts.columns += 1;
    }

    if let (Some(key), Some(id)) = (&table.primary_key, &ids.primary_key) {
        let mut object = new_object(id, Some(&ids.id), "Primary Key", &key.name);
        object.description = key.description.clone();
        out.object(object)?;
        counts.primary_keys += 1;
    }

    for (key, id) in table.foreign_keys.iter().zip(&ids.foreign_keys) {
        let referenced = if key.referenced_columns.is_empty() {
            format!("{}.{}", key.referenced_schema, key.referenced_table)
        } else {
            format!(
                "{}.{} ({})",
                key.referenced_schema,
                key.referenced_table,
                key.referenced_columns.join(", ")
            )
        };
        let mut object = new_object(id, Some(&ids.id), "Foreign Key", &key.name);
        object.description = Some(
            key.description
                .clone()
                .unwrap_or_else(|| format!("{} references {referenced}", key.columns.join(", "))),
        );
        out.object(object)?;
        counts.foreign_keys += 1;
        match layout
            .by_name
            .get(&(key.referenced_schema.clone(), key.referenced_table.clone()))
        {
            Some(target) => out.relationship(Relationship::new(
                "entity_relationship",
                &key.name,
                &ids.id,
                target,
            ))?,
            None => out.log(
                Level::Warn,
                format!(
                    "foreign key {} of {}: {referenced} is not harvested; no relationship is made",
                    key.name, table.name
                ),
            )?,
        }
    }

    for (index, id) in table.indexes.iter().zip(&ids.indexes) {
        let mut object = new_object(id, Some(&ids.id), "Index", &index.name);
        object.description = Some(index.description.clone().unwrap_or_else(|| {
            format!(
                "{} on {}",
                if index.unique {
                    "Unique index"
                } else {
                    "Index"
                },
                index.columns.join(", ")
            )
        }));
        out.object(object)?;
        counts.indexes += 1;
    }
    Ok(())
}

/// Reads rows of every stored table and sends the profiles and samples of its columns
/// and the table's sample; answers how many tables were profiled. A table whose rows
/// cannot be read (no privilege, say) is left out with a warning.
fn send_profiling<S: Source>(
    source: &mut S,
    catalog: &Catalog,
    layout: &Layout,
    options: &Options,
    out: &mut Output<'_>,
) -> Result<usize, Error> {
    let date = profiling_date();
    let tables: Vec<(&str, &Table, &TableIds)> = catalog
        .schemas
        .iter()
        .zip(&layout.schemas)
        .flat_map(|(schema, ids)| {
            schema
                .tables
                .iter()
                .zip(&ids.tables)
                .map(move |(table, ids)| (schema.name.as_str(), table, ids))
        })
        .filter(|(_, table, _)| table.profiled && !table.columns.is_empty())
        .collect();
    let total = tables.len() as u64;
    let mut profiled = 0;
    for (done, (schema, table, ids)) in tables.into_iter().enumerate() {
        let rows = match source.sample(schema, table, options.sample_rows) {
            Ok(rows) => rows,
            Err(e) => {
                out.log(
                    Level::Warn,
                    format!("{schema}.{} is not profiled: {e}", table.name),
                )?;
                continue;
            }
        };
        send_table_profiling(table, ids, &rows, &date, out)?;
        profiled += 1;
        out.progress(done as u64 + 1, Some(total), "tables profiled")?;
    }
    Ok(profiled)
}

fn send_table_profiling(
    table: &Table,
    ids: &TableIds,
    rows: &[Vec<Cell>],
    date: &str,
    out: &mut Output<'_>,
) -> Result<(), Error> {
    let header: Vec<String> = table.columns.iter().map(|c| c.name.clone()).collect();
    let sampled = &rows[..rows.len().min(SAMPLE_ROWS)];
    out.profiling(Profiling {
        native_id: ids.id.clone(),
        data_profile: None,
        data_sample: Some(data_sample(
            &header,
            sampled
                .iter()
                .map(|row| row.iter().map(Cell::json).collect())
                .collect(),
        )),
    })?;
    for (i, (name, id)) in header.iter().zip(&ids.columns).enumerate() {
        let mut profiler = ColumnProfiler::new();
        for row in rows {
            profiler.add(row.get(i).and_then(Cell::text));
        }
        let samples = sampled
            .iter()
            .map(|row| vec![row.get(i).map_or(Value::Null, Cell::json)])
            .collect();
        out.profiling(Profiling {
            native_id: id.clone(),
            data_profile: Some(profiler.finish(date)),
            data_sample: Some(data_sample(std::slice::from_ref(name), samples)),
        })?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(list: &[&str]) -> Vec<String> {
        list.iter().map(|s| (*s).to_owned()).collect()
    }

    #[test]
    fn schemas_are_selected_case_insensitively_in_catalog_order() {
        let available = names(&["hr", "public", "sales"]);
        assert_eq!(select_schemas(&available, None).expect("all"), available);
        assert_eq!(
            select_schemas(&available, Some(&names(&["SALES", "hr"]))).expect("two"),
            names(&["hr", "sales"])
        );
        let error = select_schemas(&available, Some(&names(&["sales", "crm", "x"])))
            .expect_err("unknown schemas");
        assert_eq!(
            error.0,
            "no schema 'crm', 'x' in the database; its schemas are hr, public, sales"
        );
    }
}
