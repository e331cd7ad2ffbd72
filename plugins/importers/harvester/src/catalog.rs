//! What a database's catalog holds, the same for every engine, and the native ids its
//! objects get.

use std::collections::{HashMap, HashSet};

use serde_json::{Number, Value};

/// A database's catalog, as far as it is harvested.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Catalog {
    pub database: Database,
    pub schemas: Vec<Schema>,
    /// The schemas an unqualified table name in a view's definition is looked for in,
    /// in order (PostgreSQL: the session's `current_schemas(false)`; SQLite: `main`).
    pub search_path: Vec<String>,
    /// What could not be read, for the log.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Database {
    pub name: String,
    /// e.g. `PostgreSQL 16.2`.
    pub version: String,
    pub description: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Schema {
    pub name: String,
    pub description: Option<String>,
    pub tables: Vec<Table>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum TableKind {
    #[default]
    Table,
    View,
}

impl TableKind {
    /// The object type of the RDBMS profile.
    pub fn object_type(self) -> &'static str {
        match self {
            Self::Table => "Table",
            Self::View => "View",
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Table {
    pub name: String,
    pub kind: TableKind,
    pub description: Option<String>,
    /// A view's query.
    pub definition: Option<String>,
    /// A view's whole `CREATE VIEW` statement, when the database keeps it (SQLite); its
    /// lineage is derived from it rather than from [`Table::definition`].
    pub create_statement: Option<String>,
    /// A materialized view (PostgreSQL).
    pub materialized: bool,
    pub row_count: Option<i64>,
    pub columns: Vec<Column>,
    pub primary_key: Option<Key>,
    pub foreign_keys: Vec<ForeignKey>,
    pub indexes: Vec<Index>,
    /// Whether profiling reads its rows: stored tables only, not views (whose query may be
    /// costly) or foreign tables.
    pub profiled: bool,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Column {
    pub name: String,
    pub data_type: Option<String>,
    pub nullable: bool,
    pub default: Option<String>,
    pub description: Option<String>,
    /// The declared length of a character type.
    pub length: Option<i64>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Key {
    pub name: String,
    pub columns: Vec<String>,
    pub description: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ForeignKey {
    pub name: String,
    pub columns: Vec<String>,
    pub referenced_schema: String,
    pub referenced_table: String,
    /// Empty when the key names no columns (SQLite: the referenced primary key).
    pub referenced_columns: Vec<String>,
    pub description: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Index {
    pub name: String,
    /// Column names, or expressions.
    pub columns: Vec<String>,
    pub unique: bool,
    pub description: Option<String>,
}

/// One value of a sampled row.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    /// A number, as the database writes it.
    Number(String),
    Boolean(bool),
    Text(String),
}

impl Cell {
    /// The value as the profiler reads it.
    pub fn text(&self) -> Option<&str> {
        match self {
            Self::Null => None,
            Self::Number(text) | Self::Text(text) => Some(text),
            Self::Boolean(true) => Some("true"),
            Self::Boolean(false) => Some("false"),
        }
    }

    /// The value in a data sample: numbers and booleans as JSON's, long text cut.
    pub fn json(&self) -> Value {
        match self {
            Self::Null => Value::Null,
            Self::Boolean(b) => Value::Bool(*b),
            Self::Number(text) => text
                .parse::<i64>()
                .ok()
                .map(Number::from)
                .or_else(|| text.parse::<f64>().ok().and_then(Number::from_f64))
                .map_or_else(|| Value::String(text.clone()), Value::Number),
            Self::Text(text) => lore_importer_kit::profile::sample_value(Some(text)),
        }
    }
}

/// The native ids of a catalog's objects: lower-cased qualified names without the
/// database, `public.orders.id`, stable across harvests so a re-import updates the model
/// in place.
///
/// - A name is lower-cased unless a sibling differs from it only by case (PostgreSQL's
///   quoted identifiers): then both keep their spelling, `sales.Tag` and `sales.tag`.
/// - A name holding `.` or `"` is quoted: `public."odd.name"`.
/// - Columns, keys and indexes share their table's namespace; should two objects still
///   want the same id (a column and a constraint of one name), the later one gets its
///   type appended: `public.orders.id#primary-key`. The database's id is its name, or
///   `<name>#database` when a schema has that name.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    pub database: String,
    pub schemas: Vec<SchemaIds>,
    /// Table ids by schema and table name, for the targets of foreign keys.
    pub by_name: HashMap<(String, String), String>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct SchemaIds {
    pub id: String,
    pub tables: Vec<TableIds>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct TableIds {
    pub id: String,
    pub columns: Vec<String>,
    pub primary_key: Option<String>,
    pub foreign_keys: Vec<String>,
    pub indexes: Vec<String>,
}

impl Layout {
    pub fn of(catalog: &Catalog) -> Self {
        let mut ids = Claimed::default();
        let mut by_name = HashMap::new();
        let schema_parts = parts(
            &catalog
                .schemas
                .iter()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>(),
        );
        let schemas = catalog
            .schemas
            .iter()
            .zip(schema_parts)
            .map(|(schema, part)| {
                let id = ids.claim(part, "Schema");
                let table_parts = parts(
                    &schema
                        .tables
                        .iter()
                        .map(|t| t.name.as_str())
                        .collect::<Vec<_>>(),
                );
                let tables = schema
                    .tables
                    .iter()
                    .zip(table_parts)
                    .map(|(table, part)| {
                        let table_ids = table_ids(&mut ids, &id, table, &part);
                        by_name.insert(
                            (schema.name.clone(), table.name.clone()),
                            table_ids.id.clone(),
                        );
                        table_ids
                    })
                    .collect();
                SchemaIds { id, tables }
            })
            .collect();
        // Last: should a schema be named like the database, the one database yields.
        let database = ids.claim(
            parts(&[catalog.database.name.as_str()])
                .into_iter()
                .next()
                .unwrap_or_default(),
            "Database",
        );
        Self {
            database,
            schemas,
            by_name,
        }
    }
}

fn table_ids(ids: &mut Claimed, schema_id: &str, table: &Table, part: &str) -> TableIds {
    let id = ids.claim(format!("{schema_id}.{part}"), table.kind.object_type());
    // Columns, then the keys and indexes: one namespace, in this order of precedence.
    let mut names: Vec<&str> = table.columns.iter().map(|c| c.name.as_str()).collect();
    let members = names.len();
    names.extend(table.primary_key.iter().map(|k| k.name.as_str()));
    names.extend(table.foreign_keys.iter().map(|k| k.name.as_str()));
    names.extend(table.indexes.iter().map(|i| i.name.as_str()));
    let mut member_parts = parts(&names).into_iter();
    let mut claim = |ids: &mut Claimed, object_type: &str| {
        let part = member_parts.next().unwrap_or_default();
        ids.claim(format!("{id}.{part}"), object_type)
    };
    let columns = (0..members).map(|_| claim(ids, "Column")).collect();
    let primary_key = table
        .primary_key
        .as_ref()
        .map(|_| claim(ids, "Primary Key"));
    let foreign_keys = table
        .foreign_keys
        .iter()
        .map(|_| claim(ids, "Foreign Key"))
        .collect();
    let indexes = table.indexes.iter().map(|_| claim(ids, "Index")).collect();
    TableIds {
        id,
        columns,
        primary_key,
        foreign_keys,
        indexes,
    }
}

/// The id parts of sibling names: lower-cased unless two differ only by case, quoted when
/// they hold `.` or `"`.
fn parts(names: &[&str]) -> Vec<String> {
    let mut spellings: HashMap<String, HashSet<&str>> = HashMap::new();
    for name in names {
        spellings
            .entry(name.to_lowercase())
            .or_default()
            .insert(name);
    }
    names
        .iter()
        .map(|name| {
            let lower = name.to_lowercase();
            let part = if spellings.get(&lower).is_some_and(|s| s.len() > 1) {
                (*name).to_owned()
            } else {
                lower
            };
            if part.contains(['.', '"']) {
                format!("\"{}\"", part.replace('"', "\"\""))
            } else {
                part
            }
        })
        .collect()
}

/// The ids given so far.
#[derive(Debug, Default)]
struct Claimed(HashSet<String>);

impl Claimed {
    /// `wanted`, or when it is taken, `wanted#<object type>` (then `...2`, `...3`).
    fn claim(&mut self, wanted: String, object_type: &str) -> String {
        if self.0.insert(wanted.clone()) {
            return wanted;
        }
        let base = format!("{wanted}#{}", object_type.to_lowercase().replace(' ', "-"));
        let mut id = base.clone();
        let mut n = 2;
        while !self.0.insert(id.clone()) {
            id = format!("{base}{n}");
            n += 1;
        }
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(name: &str, columns: &[&str]) -> Table {
        Table {
            name: name.into(),
            columns: columns
                .iter()
                .map(|c| Column {
                    name: (*c).into(),
                    ..Column::default()
                })
                .collect(),
            ..Table::default()
        }
    }

    #[test]
    fn ids_are_lower_cased_qualified_names() {
        let mut orders = table("Orders", &["ID", "Customer_ID"]);
        orders.primary_key = Some(Key {
            name: "orders_pkey".into(),
            ..Key::default()
        });
        let catalog = Catalog {
            database: Database {
                name: "Shop".into(),
                ..Database::default()
            },
            schemas: vec![Schema {
                name: "Public".into(),
                tables: vec![orders, table("odd.name", &["x"])],
                ..Schema::default()
            }],
            ..Catalog::default()
        };
        let layout = Layout::of(&catalog);
        assert_eq!(layout.database, "shop");
        assert_eq!(layout.schemas[0].id, "public");
        let orders = &layout.schemas[0].tables[0];
        assert_eq!(orders.id, "public.orders");
        assert_eq!(
            orders.columns,
            vec!["public.orders.id", "public.orders.customer_id"]
        );
        assert_eq!(
            orders.primary_key.as_deref(),
            Some("public.orders.orders_pkey")
        );
        assert_eq!(
            layout.schemas[0].tables[1].columns,
            vec!["public.\"odd.name\".x"]
        );
        assert_eq!(
            layout
                .by_name
                .get(&("Public".to_owned(), "Orders".to_owned())),
            Some(&"public.orders".to_owned())
        );
    }

    #[test]
    fn collisions_keep_ids_unique() {
        let mut tag = table("tag", &["id"]);
        tag.primary_key = Some(Key {
            name: "id".into(),
            ..Key::default()
        });
        let catalog = Catalog {
            database: Database {
                name: "sales".into(),
                ..Database::default()
            },
            schemas: vec![Schema {
                name: "sales".into(),
                tables: vec![table("Tag", &["a"]), tag],
                ..Schema::default()
            }],
            ..Catalog::default()
        };
        let layout = Layout::of(&catalog);
        assert_eq!(layout.database, "sales#database");
        assert_eq!(layout.schemas[0].id, "sales");
        let tables = &layout.schemas[0].tables;
        assert_eq!(tables[0].id, "sales.Tag");
        assert_eq!(tables[1].id, "sales.tag");
        assert_eq!(tables[1].columns, vec!["sales.tag.id"]);
        assert_eq!(
            tables[1].primary_key.as_deref(),
            Some("sales.tag.id#primary-key")
        );
    }

    #[test]
    fn cells_as_text_and_json() {
        assert_eq!(Cell::Number("12.50".into()).text(), Some("12.50"));
        assert_eq!(Cell::Number("12.50".into()).json(), serde_json::json!(12.5));
        assert_eq!(Cell::Number("42".into()).json(), serde_json::json!(42));
        assert_eq!(Cell::Number("NaN".into()).json(), serde_json::json!("NaN"));
        assert_eq!(Cell::Boolean(true).text(), Some("true"));
        assert_eq!(Cell::Boolean(false).json(), serde_json::json!(false));
        assert_eq!(Cell::Null.text(), None);
        assert_eq!(Cell::Text("x".into()).json(), serde_json::json!("x"));
    }
}
