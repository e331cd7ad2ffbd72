//! What the caller knows about tables' columns.

use std::collections::HashMap;

use sqlparser::ast::{AlterTableOperation, Statement};

use crate::{Dialect, TableName, analyze, script};

/// What the caller knows about tables: their columns, in order, for `*` expansion and
/// for resolving unqualified column names. Lookup matches on the trailing parts (a
/// query's `orders` finds a known `shop.public.orders` when that is the only one ending so).
pub trait KnownColumns {
    /// The columns of `table`, in order, if known.
    fn columns(&self, table: &TableName) -> Option<Vec<String>>;
}

/// A simple in-memory [`KnownColumns`].
#[derive(Debug, Clone, Default)]
pub struct Schema {
    tables: Vec<(TableName, Vec<String>)>,
    /// Lower-cased last name part -> indexes into `tables`.
    by_last: HashMap<String, Vec<usize>>,
}

impl Schema {
    /// An empty schema.
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds a table (or replaces the columns of one already added under the same name).
    pub fn add_table(&mut self, table: TableName, columns: Vec<String>) {
        if let Some(entry) = self.tables.iter_mut().find(|(t, _)| *t == table) {
            entry.1 = columns;
            return;
        }
        let key = table.0.last().map(|s| s.to_lowercase()).unwrap_or_default();
        self.by_last.entry(key).or_default().push(self.tables.len());
        self.tables.push((table, columns));
    }

    /// The tables known, in the order added.
    pub fn tables(&self) -> impl Iterator<Item = (&TableName, &[String])> {
        self.tables.iter().map(|(t, c)| (t, c.as_slice()))
    }

    /// How many tables are known.
    pub fn len(&self) -> usize {
        self.tables.len()
    }

    /// Whether no table is known.
    pub fn is_empty(&self) -> bool {
        self.tables.is_empty()
    }

    fn find(&self, table: &TableName) -> Option<usize> {
        let key = table.0.last()?.to_lowercase();
        let candidates = self.by_last.get(&key)?;
        if let Some(&i) = candidates.iter().find(|&&i| self.tables[i].0 == *table) {
            return Some(i);
        }
        // One name ends with the other: `orders` and `shop.public.orders`.
        let suffix = |exact: bool| -> Vec<usize> {
            candidates
                .iter()
                .copied()
                .filter(|&i| {
                    let known = &self.tables[i].0.0;
                    let (short, long) = if known.len() <= table.0.len() {
                        (known, &table.0)
                    } else {
                        (&table.0, known)
                    };
                    long[long.len() - short.len()..]
                        .iter()
                        .zip(short)
                        .all(|(a, b)| {
                            if exact {
                                a == b
                            } else {
                                a.eq_ignore_ascii_case(b)
                            }
                        })
                })
                .collect()
        };
        for exact in [true, false] {
            if let [i] = suffix(exact)[..] {
                return Some(i);
            }
        }
        None
    }
}

impl KnownColumns for Schema {
    fn columns(&self, table: &TableName) -> Option<Vec<String>> {
        self.find(table).map(|i| self.tables[i].1.clone())
    }
}

/// Knows nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct NoColumns;

impl KnownColumns for NoColumns {
    fn columns(&self, _table: &TableName) -> Option<Vec<String>> {
        None
    }
}

/// The tables and views a DDL script creates, with their columns: `CREATE TABLE` (its
/// column list, or the output of its `AS` query), `CREATE [MATERIALIZED] VIEW` (its
/// column list or its query's output names, resolved against what came before) and
/// `ALTER TABLE ... ADD COLUMN`. Statements that do not parse are skipped.
pub fn schema_from_ddl(sql: &str, dialect: Dialect) -> Schema {
    let mut schema = Schema::new();
    for located in script::parse_script(sql, dialect).statements {
        match &located.statement {
            Statement::CreateTable(ct) => {
                let name = analyze::table_name(&ct.name, dialect);
                let columns: Vec<String> = if !ct.columns.is_empty() {
                    ct.columns.iter().map(|c| dialect.ident(&c.name)).collect()
                } else if let Some(q) = &ct.query {
                    analyze::query_output_names(q, dialect, &schema)
                } else {
                    continue;
                };
                schema.add_table(name, columns);
            }
            Statement::CreateView(cv) => {
                let name = analyze::table_name(&cv.name, dialect);
                let columns = if !cv.columns.is_empty() {
                    cv.columns.iter().map(|c| dialect.ident(&c.name)).collect()
                } else {
                    analyze::query_output_names(&cv.query, dialect, &schema)
                };
                schema.add_table(name, columns);
            }
            Statement::AlterTable(at) => {
                let name = analyze::table_name(&at.name, dialect);
                let Some(i) = schema.find(&name) else {
                    continue;
                };
                for op in &at.operations {
                    if let AlterTableOperation::AddColumn { column_def, .. } = op {
                        let column = dialect.ident(&column_def.name);
                        let cols = &mut schema.tables[i].1;
                        if !cols.contains(&column) {
                            cols.push(column);
                        }
                    }
                }
            }
            _ => {}
        }
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(parts: &[&str]) -> TableName {
        TableName::new(parts.iter().copied())
    }

    #[test]
    fn lookup_matches_trailing_parts() {
        let mut s = Schema::new();
        s.add_table(t(&["shop", "public", "orders"]), vec!["id".into()]);
        s.add_table(t(&["shop", "public", "items"]), vec!["sku".into()]);
        s.add_table(t(&["other", "items"]), vec!["x".into()]);
        assert_eq!(s.columns(&t(&["orders"])), Some(vec!["id".to_string()]));
        assert_eq!(
            s.columns(&t(&["public", "orders"])),
            Some(vec!["id".to_string()])
        );
        assert_eq!(s.columns(&t(&["ORDERS"])), Some(vec!["id".to_string()]));
        // Two tables end in `items`: ambiguous unless qualified.
        assert_eq!(s.columns(&t(&["items"])), None);
        assert_eq!(
            s.columns(&t(&["other", "items"])),
            Some(vec!["x".to_string()])
        );
        assert_eq!(s.columns(&t(&["nope"])), None);
        assert_eq!(NoColumns.columns(&t(&["orders"])), None);
    }

    #[test]
    fn ddl_builds_a_schema() {
        let s = schema_from_ddl(
            "CREATE TABLE public.orders (id int PRIMARY KEY, Customer_Id int, \"Total\" numeric);\n\
             ALTER TABLE public.orders ADD COLUMN note text;\n\
             CREATE VIEW big AS SELECT id, \"Total\" AS t FROM orders WHERE \"Total\" > 10;\n\
             CREATE TABLE copy AS SELECT * FROM orders;\n\
             GRANT SELECT ON orders TO bob;",
            Dialect::Postgres,
        );
        let cols = |n: &[&str]| s.columns(&t(n)).unwrap_or_default();
        assert_eq!(cols(&["orders"]), ["id", "customer_id", "Total", "note"]);
        assert_eq!(cols(&["big"]), ["id", "t"]);
        assert_eq!(cols(&["copy"]), ["id", "customer_id", "Total", "note"]);
        assert_eq!(s.len(), 3);
    }
}
