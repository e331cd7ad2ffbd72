//! SQLite: the catalog from `sqlite_master` and the `pragma_table_info`,
//! `pragma_foreign_key_list`, `pragma_index_list` and `pragma_index_info` functions. One
//! schema, `main`; the database is opened read-only.

use std::path::{Path, PathBuf};

use lore_plugin_sdk::Error;
use rusqlite::types::ValueRef;
use rusqlite::{Connection, OpenFlags};

use crate::Source;
use crate::catalog::{
    Catalog, Cell, Column, Database, ForeignKey, Index, Key, Schema, Table, TableKind,
};

/// SQLite's one schema.
const MAIN: &str = "main";

#[derive(Debug)]
pub struct Sqlite {
    connection: Connection,
    path: PathBuf,
}

impl Sqlite {
    pub fn open(path: &Path) -> Result<Self, Error> {
        if !path.is_file() {
            return Err(Error::new(format!(
                "cannot open SQLite database {}: no such file",
                path.display()
            )));
        }
        let connection = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| {
            Error::new(format!(
                "cannot open SQLite database {}: {e}",
                path.display()
            ))
        })?;
        let sqlite = Self {
            connection,
            path: path.to_owned(),
        };
        // Reading the schema table checks that the file is a database.
        sqlite
            .connection
            .query_row("SELECT count(*) FROM sqlite_master", [], |row| {
                row.get::<_, i64>(0)
            })
            .map_err(|e| sqlite.error(e))?;
        Ok(sqlite)
    }

    fn error(&self, e: rusqlite::Error) -> Error {
        Error::new(format!(
            "cannot read SQLite database {}: {e}",
            self.path.display()
        ))
    }

    /// One table or view with its columns, keys and indexes; what cannot be read is noted
    /// in `warnings`.
    fn table(
        &self,
        kind: &str,
        name: String,
        sql: Option<String>,
        warnings: &mut Vec<String>,
    ) -> Result<Table, Error> {
        let is_virtual = sql.as_deref().is_some_and(|s| {
            s.trim_start()
                .to_ascii_uppercase()
                .starts_with("CREATE VIRTUAL")
        });
        let mut table = Table {
            kind: if kind == "view" {
                TableKind::View
            } else {
                TableKind::Table
            },
            definition: if kind == "view" {
                sql.as_deref().map(view_query)
            } else {
                None
            },
            create_statement: if kind == "view" { sql.clone() } else { None },
            profiled: kind == "table" && !is_virtual,
            ..Table::default()
        };

        let mut primary_key: Vec<(i64, String)> = Vec::new();
        match self.columns(&name) {
            Ok(columns) => {
                for (column, pk) in columns {
                    if pk > 0 {
                        primary_key.push((pk, column.name.clone()));
                    }
                    table.columns.push(column);
                }
            }
            Err(e) => {
                warnings.push(format!("the columns of {name} cannot be read: {e}"));
                table.profiled = false;
            }
        }
        primary_key.sort();
        if !primary_key.is_empty() {
            let columns: Vec<String> = primary_key.into_iter().map(|(_, c)| c).collect();
            // An INTEGER PRIMARY KEY is the rowid: never null, whatever the pragma says.
            if let [only] = columns.as_slice()
                && let Some(rowid) = table.columns.iter_mut().find(|c| {
                    c.name == *only
                        && c.data_type
                            .as_deref()
                            .is_some_and(|t| t.eq_ignore_ascii_case("INTEGER"))
                })
            {
                rowid.nullable = false;
            }
            table.primary_key = Some(Key {
                name: format!("{name}_pkey"),
                description: Some(format!("Primary key on {}", columns.join(", "))),
                columns,
            });
        }
        if table.kind == TableKind::Table {
            table.foreign_keys = self.foreign_keys(&name).map_err(|e| self.error(e))?;
            table.indexes = self.indexes(&name).map_err(|e| self.error(e))?;
            if !is_virtual {
                match self.connection.query_row(
                    &format!("SELECT count(*) FROM {}", quote(&name)),
                    [],
                    |row| row.get::<_, i64>(0),
                ) {
                    Ok(count) => table.row_count = Some(count),
                    Err(e) => warnings.push(format!("the rows of {name} cannot be counted: {e}")),
                }
            }
        }
        table.name = name;
        Ok(table)
    }

    /// The columns of a table or view, each with its place in the primary key (0: none).
    fn columns(&self, table: &str) -> rusqlite::Result<Vec<(Column, i64)>> {
        let mut statement = self.connection.prepare(
            "SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?1) ORDER BY cid",
        )?;
        statement
            .query_map([table], |row| {
                let data_type: Option<String> = row.get(1)?;
                let data_type = data_type
                    .map(|t| t.trim().to_owned())
                    .filter(|t| !t.is_empty());
                Ok((
                    Column {
                        name: row.get(0)?,
                        length: data_type.as_deref().and_then(declared_length),
                        data_type,
                        nullable: row.get::<_, i64>(2)? == 0,
                        default: row.get(3)?,
                        description: None,
                    },
                    row.get(4)?,
                ))
            })?
            .collect()
    }

    fn foreign_keys(&self, table: &str) -> rusqlite::Result<Vec<ForeignKey>> {
        let mut statement = self.connection.prepare(
            "SELECT id, \"table\", \"from\", \"to\" FROM pragma_foreign_key_list(?1) ORDER BY id, seq",
        )?;
        let rows = statement.query_map([table], |row| {
            Ok((
                row.get::<_, i64>(0)?,
                row.get::<_, String>(1)?,
                row.get::<_, String>(2)?,
                row.get::<_, Option<String>>(3)?,
            ))
        })?;
        let mut keys: Vec<(i64, ForeignKey)> = Vec::new();
        for row in rows {
            let (id, referenced, from, to) = row?;
            if keys.last().is_none_or(|(last, _)| *last != id) {
                keys.push((
                    id,
                    ForeignKey {
                        referenced_schema: MAIN.to_owned(),
                        referenced_table: referenced,
                        ..ForeignKey::default()
                    },
                ));
            }
            if let Some((_, key)) = keys.last_mut() {
                key.columns.push(from);
                key.referenced_columns.extend(to);
            }
        }
        // SQLite keeps no constraint names: PostgreSQL's default ones stand in.
        let mut keys: Vec<ForeignKey> = keys
            .into_iter()
            .map(|(_, mut key)| {
                key.name = format!("{table}_{}_fkey", key.columns.join("_"));
                key
            })
            .collect();
        keys.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(keys)
    }

    fn indexes(&self, table: &str) -> rusqlite::Result<Vec<Index>> {
        let mut statement = self
            .connection
            .prepare("SELECT name, \"unique\", origin FROM pragma_index_list(?1) ORDER BY name")?;
        let listed = statement
            .query_map([table], |row| {
                Ok((
                    row.get::<_, String>(0)?,
                    row.get::<_, i64>(1)? != 0,
                    row.get::<_, String>(2)?,
                ))
            })?
            .collect::<rusqlite::Result<Vec<_>>>()?;
        let mut columns = self
            .connection
            .prepare("SELECT name FROM pragma_index_info(?1) ORDER BY seqno")?;
        let mut indexes = Vec::new();
        for (name, unique, origin) in listed {
            if origin == "pk" {
                continue; // the primary key's own index
            }
            let columns = columns
                .query_map([&name], |row| row.get::<_, Option<String>>(0))?
                .map(|c| c.map(|c| c.unwrap_or_else(|| "<expression>".to_owned())))
                .collect::<rusqlite::Result<Vec<_>>>()?;
            indexes.push(Index {
                name,
                columns,
                unique,
                description: None,
            });
        }
        Ok(indexes)
    }
}

impl Source for Sqlite {
    fn catalog(&mut self, schemas: Option<&[String]>) -> Result<Catalog, Error> {
        let selected = crate::select_schemas(&[MAIN.to_owned()], schemas)?;
        let name = self
            .path
            .file_stem()
            .map_or_else(|| "sqlite".to_owned(), |s| s.to_string_lossy().into_owned());
        let mut catalog = Catalog {
            database: Database {
                name,
                version: format!("SQLite {}", rusqlite::version()),
                description: None,
            },
            ..Catalog::default()
        };
        if selected.is_empty() {
            return Ok(catalog);
        }
        let entries = {
            let mut statement = self
                .connection
                .prepare(
                    "SELECT type, name, sql FROM sqlite_master \
                     WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' \
                     ORDER BY name",
                )
                .map_err(|e| self.error(e))?;
            statement
                .query_map([], |row| {
                    Ok((
                        row.get::<_, String>(0)?,
                        row.get::<_, String>(1)?,
                        row.get::<_, Option<String>>(2)?,
                    ))
                })
                .and_then(Iterator::collect::<rusqlite::Result<Vec<_>>>)
                .map_err(|e| self.error(e))?
        };
        let mut tables = Vec::with_capacity(entries.len());
        for (kind, name, sql) in entries {
            tables.push(self.table(&kind, name, sql, &mut catalog.warnings)?);
        }
        resolve_references(&mut tables);
        catalog.search_path = vec![MAIN.to_owned()];
        catalog.schemas = vec![Schema {
            name: MAIN.to_owned(),
            description: None,
            tables,
        }];
        Ok(catalog)
    }

    fn sample(
        &mut self,
        _schema: &str,
        table: &Table,
        limit: u64,
    ) -> Result<Vec<Vec<Cell>>, Error> {
        let columns: Vec<String> = table.columns.iter().map(|c| quote(&c.name)).collect();
        let sql = format!(
            "SELECT {} FROM {} LIMIT ?1",
            columns.join(", "),
            quote(&table.name)
        );
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let read = || -> rusqlite::Result<Vec<Vec<Cell>>> {
            let mut statement = self.connection.prepare(&sql)?;
            let mut rows = statement.query([limit])?;
            let mut sampled = Vec::new();
            while let Some(row) = rows.next()? {
                let cells = (0..columns.len())
                    .map(|i| row.get_ref(i).map(cell))
                    .collect::<rusqlite::Result<Vec<_>>>()?;
                sampled.push(cells);
            }
            Ok(sampled)
        };
        read().map_err(|e| self.error(e))
    }
}

/// A value read from SQLite, whatever its column's declared type.
fn cell(value: ValueRef<'_>) -> Cell {
    match value {
        ValueRef::Null => Cell::Null,
        ValueRef::Integer(i) => Cell::Number(i.to_string()),
        ValueRef::Real(f) => Cell::Number(format!("{f:?}")),
        ValueRef::Text(bytes) => Cell::Text(String::from_utf8_lossy(bytes).into_owned()),
        ValueRef::Blob(bytes) => Cell::Text(format!("<blob: {} bytes>", bytes.len())),
    }
}

/// Foreign keys name their table as written in the DDL, in any case, and may leave out
/// the referenced columns (then the referenced table's primary key): both are resolved
/// against the tables read.
fn resolve_references(tables: &mut [Table]) {
    let targets: Vec<(String, Vec<String>)> = tables
        .iter()
        .map(|t| {
            (
                t.name.clone(),
                t.primary_key
                    .as_ref()
                    .map(|k| k.columns.clone())
                    .unwrap_or_default(),
            )
        })
        .collect();
    for table in tables.iter_mut() {
        for key in &mut table.foreign_keys {
            if let Some((name, primary_key)) = targets
                .iter()
                .find(|(name, _)| name.eq_ignore_ascii_case(&key.referenced_table))
            {
                key.referenced_table.clone_from(name);
                if key.referenced_columns.is_empty() {
                    key.referenced_columns.clone_from(primary_key);
                }
            }
        }
    }
}

/// An identifier quoted for SQLite.
fn quote(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// The length of a declared character type: 100 for `VARCHAR(100)`.
fn declared_length(data_type: &str) -> Option<i64> {
    let upper = data_type.to_ascii_uppercase();
    if !["CHAR", "TEXT", "CLOB"].iter().any(|t| upper.contains(t)) {
        return None;
    }
    let (_, inner) = data_type.split_once('(')?;
    inner.split([')', ',']).next()?.trim().parse().ok()
}

/// The query of a `CREATE VIEW ... AS <query>` statement: what follows its first `AS`
/// outside quotes.
fn view_query(sql: &str) -> String {
    let bytes = sql.as_bytes();
    let word = |b: u8| b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
    let mut quote: Option<u8> = None;
    for (i, &b) in bytes.iter().enumerate() {
        if let Some(q) = quote {
            if b == q {
                quote = None;
            }
            continue;
        }
        match b {
            b'"' | b'\'' | b'`' => quote = Some(b),
            b'[' => quote = Some(b']'),
            b'a' | b'A'
                if bytes
                    .get(i + 1)
                    .is_some_and(|n| n.eq_ignore_ascii_case(&b's'))
                    && (i == 0 || !word(bytes[i - 1]))
                    && bytes.get(i + 2).is_none_or(|n| !word(*n)) =>
            {
                return sql[i + 2..].trim().to_owned();
            }
            _ => {}
        }
    }
    sql.trim().to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn view_queries_follow_the_first_as() {
        assert_eq!(
            view_query("CREATE VIEW v AS SELECT a AS b FROM t"),
            "SELECT a AS b FROM t"
        );
        assert_eq!(
            view_query("create view \"has as\" (x) as\n  select 1"),
            "select 1"
        );
        assert_eq!(view_query("CREATE VIEW [as] AS SELECT 2"), "SELECT 2");
        assert_eq!(view_query("CREATE VIEW alias_v AS SELECT 3"), "SELECT 3");
    }

    #[test]
    fn lengths_of_character_types() {
        assert_eq!(declared_length("VARCHAR(100)"), Some(100));
        assert_eq!(declared_length("character varying( 20 )"), Some(20));
        assert_eq!(declared_length("NUMERIC(10,2)"), None);
        assert_eq!(declared_length("TEXT"), None);
    }
}
