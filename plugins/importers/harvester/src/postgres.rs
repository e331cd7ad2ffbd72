//! PostgreSQL: the catalog from `pg_catalog` (`pg_namespace`, `pg_class`, `pg_attribute`,
//! `pg_constraint`, `pg_index`, with `obj_description` and `col_description` for
//! comments). `pg_catalog` rather than `information_schema`: it shows every object, not
//! only those the user holds privileges on, and keeps constraints apart that share a
//! name within a schema. The session is read-only.

use std::collections::HashMap;
use std::str::FromStr;
use std::time::Duration;

use lore_plugin_sdk::Error;
use sqlx::postgres::{PgConnectOptions, PgConnection, PgRow};
use sqlx::{AssertSqlSafe, ConnectOptions, Connection, Row};
use tokio::runtime::Runtime;

use crate::Source;
use crate::catalog::{
    Catalog, Cell, Column, Database, ForeignKey, Index, Key, Schema, Table, TableKind,
};
use crate::url::DatabaseUrl;

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);

/// How a column's values are shown in data samples, by its type's category.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ValueKind {
    Number,
    Boolean,
    Text,
}

impl ValueKind {
    /// From `pg_type.typcategory`.
    fn of(category: &str) -> Self {
        match category {
            "N" => Self::Number,
            "B" => Self::Boolean,
            _ => Self::Text,
        }
    }

    fn cell(self, text: Option<String>) -> Cell {
        match (self, text) {
            (_, None) => Cell::Null,
            (Self::Number, Some(text)) => Cell::Number(text),
            (Self::Boolean, Some(text)) if text == "true" || text == "false" => {
                Cell::Boolean(text == "true")
            }
            (_, Some(text)) => Cell::Text(text),
        }
    }
}

#[derive(Debug)]
pub struct Postgres {
    runtime: Runtime,
    connection: PgConnection,
    url: DatabaseUrl,
    /// The value kinds of the columns of each table read, by schema and table.
    kinds: HashMap<(String, String), Vec<ValueKind>>,
}

impl Postgres {
    pub fn connect(url: &DatabaseUrl) -> Result<Self, Error> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| Error::new(format!("cannot start the database client: {e}")))?;
        let options = PgConnectOptions::from_str(url.as_str())
            .map_err(|e| Error::new(url.scrub(&format!("bad database URL {}: {e}", url.masked()))))?
            .application_name("lore-importer-harvester");
        let connection = runtime
            .block_on(async {
                let connection = tokio::time::timeout(CONNECT_TIMEOUT, options.connect()).await;
                let mut connection = match connection {
                    Ok(connected) => connected?,
                    Err(_) => return Ok(None),
                };
                sqlx::raw_sql(
                    "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY; \
                     SET statement_timeout = '5min'",
                )
                .execute(&mut connection)
                .await?;
                Ok::<_, sqlx::Error>(Some(connection))
            })
            .map_err(|e| {
                Error::new(url.scrub(&format!("cannot connect to {}: {e}", url.masked())))
            })?
            .ok_or_else(|| {
                Error::new(format!(
                    "cannot connect to {}: no answer within {} s",
                    url.masked(),
                    CONNECT_TIMEOUT.as_secs()
                ))
            })?;
        Ok(Self {
            runtime,
            connection,
            url: url.clone(),
            kinds: HashMap::new(),
        })
    }

    fn error(&self, what: &str, e: sqlx::Error) -> Error {
        Error::new(
            self.url
                .scrub(&format!("cannot read {what} of {}: {e}", self.url.masked())),
        )
    }

    /// Runs a catalog query; `$1`, when given, is the schemas read.
    fn fetch<T>(
        &mut self,
        what: &str,
        sql: &'static str,
        schemas: Option<&[String]>,
    ) -> Result<Vec<T>, Error>
    where
        T: for<'r> sqlx::FromRow<'r, PgRow> + Send + Unpin,
    {
        let mut query = sqlx::query_as::<_, T>(sql);
        if let Some(schemas) = schemas {
            query = query.bind(schemas.to_vec());
        }
        let result = self.runtime.block_on(query.fetch_all(&mut self.connection));
        result.map_err(|e| self.error(what, e))
    }
}

/// The relation kinds read: tables, partitioned tables, views, materialized views and
/// foreign tables (not partitions: their parent stands for them).
macro_rules! relations {
    () => {
        "c.relkind IN ('r', 'p', 'v', 'm', 'f') AND NOT c.relispartition"
    };
}

#[derive(sqlx::FromRow)]
struct DatabaseRow {
    name: String,
    version: String,
    description: Option<String>,
}

#[derive(sqlx::FromRow)]
struct SearchPathRow {
    schemas: Vec<String>,
}

#[derive(sqlx::FromRow)]
struct SchemaRow {
    name: String,
    description: Option<String>,
}

#[derive(sqlx::FromRow)]
struct RelationRow {
    schema: String,
    name: String,
    kind: String,
    description: Option<String>,
    definition: Option<String>,
    row_count: Option<i64>,
}

#[derive(sqlx::FromRow)]
struct ColumnRow {
    schema: String,
    relation: String,
    name: String,
    data_type: String,
    nullable: bool,
    default_value: Option<String>,
    description: Option<String>,
    length: Option<i32>,
    category: String,
}

#[derive(sqlx::FromRow)]
struct ConstraintRow {
    schema: String,
    relation: String,
    name: String,
    kind: String,
    columns: Vec<String>,
    referenced_schema: Option<String>,
    referenced_relation: Option<String>,
    referenced_columns: Vec<String>,
    description: Option<String>,
}

#[derive(sqlx::FromRow)]
struct IndexRow {
    schema: String,
    relation: String,
    name: String,
    is_unique: bool,
    columns: Vec<String>,
    description: Option<String>,
}

const DATABASE: &str = "\
SELECT current_database()::text AS name, current_setting('server_version') AS version,
       shobj_description(d.oid, 'pg_database') AS description
FROM pg_database d WHERE d.datname = current_database()";

const SEARCH_PATH: &str = "SELECT current_schemas(false)::text[] AS schemas";

const SCHEMAS: &str = "\
SELECT n.nspname::text AS name, obj_description(n.oid, 'pg_namespace') AS description
FROM pg_namespace n
WHERE n.nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
  AND n.nspname NOT LIKE 'pg\\_temp\\_%' AND n.nspname NOT LIKE 'pg\\_toast\\_temp\\_%'
ORDER BY 1";

const RELATIONS: &str = concat!(
    "\
SELECT n.nspname::text AS schema, c.relname::text AS name, c.relkind::text AS kind,
       obj_description(c.oid, 'pg_class') AS description,
       CASE WHEN c.relkind IN ('v', 'm') THEN pg_get_viewdef(c.oid, true) END AS definition,
       CASE WHEN c.relkind IN ('r', 'p', 'f') AND c.reltuples >= 0
            THEN c.reltuples::int8 END AS row_count
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE ",
    relations!(),
    " AND n.nspname::text = ANY($1)
ORDER BY 1, 2"
);

const COLUMNS: &str = concat!(
    "\
SELECT n.nspname::text AS schema, c.relname::text AS relation, a.attname::text AS name,
       format_type(a.atttypid, a.atttypmod) AS data_type, NOT a.attnotnull AS nullable,
       pg_get_expr(d.adbin, d.adrelid) AS default_value,
       col_description(c.oid, a.attnum) AS description,
       CASE WHEN a.atttypid IN (1042, 1043) AND a.atttypmod > 4
            THEN a.atttypmod - 4 END AS length,
       t.typcategory::text AS category
FROM pg_attribute a
JOIN pg_class c ON c.oid = a.attrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
JOIN pg_type t ON t.oid = a.atttypid
LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
WHERE a.attnum > 0 AND NOT a.attisdropped AND ",
    relations!(),
    " AND n.nspname::text = ANY($1)
ORDER BY 1, 2, a.attnum"
);

const CONSTRAINTS: &str = "\
SELECT n.nspname::text AS schema, c.relname::text AS relation, con.conname::text AS name,
       con.contype::text AS kind,
       ARRAY(SELECT a.attname::text
             FROM unnest(con.conkey) WITH ORDINALITY AS k(attnum, ord)
             JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.attnum
             ORDER BY k.ord) AS columns,
       fn.nspname::text AS referenced_schema, fc.relname::text AS referenced_relation,
       ARRAY(SELECT a.attname::text
             FROM unnest(con.confkey) WITH ORDINALITY AS k(attnum, ord)
             JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.attnum
             ORDER BY k.ord) AS referenced_columns,
       obj_description(con.oid, 'pg_constraint') AS description
FROM pg_constraint con
JOIN pg_class c ON c.oid = con.conrelid
JOIN pg_namespace n ON n.oid = c.relnamespace
LEFT JOIN pg_class fc ON fc.oid = con.confrelid
LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace
WHERE con.contype IN ('p', 'f') AND con.conparentid = 0 AND n.nspname::text = ANY($1)
ORDER BY 1, 2, 3";

const INDEXES: &str = "\
SELECT n.nspname::text AS schema, t.relname::text AS relation, i.relname::text AS name,
       ix.indisunique AS is_unique,
       ARRAY(SELECT pg_get_indexdef(ix.indexrelid, k, true)
             FROM generate_series(1, ix.indnkeyatts) AS k ORDER BY k) AS columns,
       obj_description(i.oid, 'pg_class') AS description
FROM pg_index ix
JOIN pg_class i ON i.oid = ix.indexrelid
JOIN pg_class t ON t.oid = ix.indrelid
JOIN pg_namespace n ON n.oid = t.relnamespace
WHERE NOT ix.indisprimary AND NOT t.relispartition AND n.nspname::text = ANY($1)
ORDER BY 1, 2, 3";

impl Source for Postgres {
    fn catalog(&mut self, schemas: Option<&[String]>) -> Result<Catalog, Error> {
        let database = self
            .fetch::<DatabaseRow>("the database", DATABASE, None)?
            .into_iter()
            .next()
            .map(|row| Database {
                name: row.name,
                version: format!("PostgreSQL {}", row.version),
                description: row.description,
            })
            .unwrap_or_default();
        let all = self.fetch::<SchemaRow>("the schemas", SCHEMAS, None)?;
        let names: Vec<String> = all.iter().map(|s| s.name.clone()).collect();
        let selected = crate::select_schemas(&names, schemas)?;
        let selected = Some(selected.as_slice());

        // Tables and views, then what hangs on them, found by schema and name.
        let mut tables: Vec<(String, Table)> = Vec::new();
        let mut index: HashMap<(String, String), usize> = HashMap::new();
        for row in self.fetch::<RelationRow>("the tables", RELATIONS, selected)? {
            index.insert((row.schema.clone(), row.name.clone()), tables.len());
            let view = matches!(row.kind.as_str(), "v" | "m");
            tables.push((
                row.schema,
                Table {
                    name: row.name,
                    kind: if view {
                        TableKind::View
                    } else {
                        TableKind::Table
                    },
                    description: row.description,
                    definition: row.definition.map(|d| d.trim().to_owned()),
                    materialized: row.kind == "m",
                    row_count: row.row_count,
                    profiled: matches!(row.kind.as_str(), "r" | "p"),
                    ..Table::default()
                },
            ));
        }
        let find = |schema: &str, relation: &str| {
            index
                .get(&(schema.to_owned(), relation.to_owned()))
                .copied()
        };

        for row in self.fetch::<ColumnRow>("the columns", COLUMNS, selected)? {
            let Some(at) = find(&row.schema, &row.relation) else {
                continue;
            };
            tables[at].1.columns.push(Column {
                name: row.name,
                data_type: Some(row.data_type),
                nullable: row.nullable,
                default: row.default_value,
                description: row.description,
                length: row.length.map(i64::from),
            });
            self.kinds
                .entry((row.schema, row.relation))
                .or_default()
                .push(ValueKind::of(&row.category));
        }

        for row in self.fetch::<ConstraintRow>("the keys", CONSTRAINTS, selected)? {
            let Some(at) = find(&row.schema, &row.relation) else {
                continue;
            };
            let table = &mut tables[at].1;
            match (
                row.kind.as_str(),
                row.referenced_schema,
                row.referenced_relation,
            ) {
                ("p", _, _) => {
                    table.primary_key = Some(Key {
                        description: row
                            .description
                            .or_else(|| Some(format!("Primary key on {}", row.columns.join(", ")))),
                        name: row.name,
                        columns: row.columns,
                    });
                }
                ("f", Some(referenced_schema), Some(referenced_table)) => {
                    table.foreign_keys.push(ForeignKey {
                        name: row.name,
                        columns: row.columns,
                        referenced_schema,
                        referenced_table,
                        referenced_columns: row.referenced_columns,
                        description: row.description,
                    });
                }
                _ => {}
            }
        }

        for row in self.fetch::<IndexRow>("the indexes", INDEXES, selected)? {
            if let Some(at) = find(&row.schema, &row.relation) {
                tables[at].1.indexes.push(Index {
                    name: row.name,
                    columns: row.columns,
                    unique: row.is_unique,
                    description: row.description,
                });
            }
        }

        let mut by_schema: HashMap<String, Vec<Table>> = HashMap::new();
        for (schema, table) in tables {
            by_schema.entry(schema).or_default().push(table);
        }
        let schemas = all
            .into_iter()
            .filter(|s| selected.is_some_and(|selected| selected.contains(&s.name)))
            .map(|s| Schema {
                tables: by_schema.remove(&s.name).unwrap_or_default(),
                name: s.name,
                description: s.description,
            })
            .collect();
        // pg_get_viewdef qualifies a table only when this session's search path would not
        // find it by its bare name.
        let search_path = self
            .fetch::<SearchPathRow>("the search path", SEARCH_PATH, None)?
            .into_iter()
            .next()
            .map(|row| row.schemas)
            .unwrap_or_default();
        Ok(Catalog {
            database,
            schemas,
            search_path,
            warnings: Vec::new(),
        })
    }

    fn sample(&mut self, schema: &str, table: &Table, limit: u64) -> Result<Vec<Vec<Cell>>, Error> {
        let kinds = self
            .kinds
            .get(&(schema.to_owned(), table.name.clone()))
            .cloned()
            .unwrap_or_default();
        let columns: Vec<String> = table
            .columns
            .iter()
            .map(|c| format!("{}::text", quote(&c.name)))
            .collect();
        let sql = format!(
            "SELECT {} FROM {}.{} LIMIT $1",
            columns.join(", "),
            quote(schema),
            quote(&table.name)
        );
        let query = sqlx::query(AssertSqlSafe(sql)).bind(i64::try_from(limit).unwrap_or(i64::MAX));
        let result = self.runtime.block_on(query.fetch_all(&mut self.connection));
        let what = format!("the rows of {schema}.{}", table.name);
        let rows = result.map_err(|e| self.error(&what, e))?;
        rows.iter()
            .map(|row| {
                (0..columns.len())
                    .map(|i| {
                        let text: Option<String> =
                            row.try_get(i).map_err(|e| self.error(&what, e))?;
                        let kind = kinds.get(i).copied().unwrap_or(ValueKind::Text);
                        Ok(kind.cell(text))
                    })
                    .collect()
            })
            .collect()
    }

    fn close(self) {
        let Self {
            runtime,
            connection,
            ..
        } = self;
        // A polite goodbye; the socket closes either way.
        let _ = runtime.block_on(connection.close());
    }
}

/// An identifier quoted for PostgreSQL.
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}
