//! What column-level lineage needs to know about the relations a compiled SQL reads: the
//! name each upstream node goes by in the SQL, its documented columns, and the way back
//! from a table name of the SQL to the node.

use lore_sql_lineage::{Dialect, KnownColumns, TableName};

use crate::manifest::Node;

/// A relation the compiled SQL of a node may read: one of its upstream nodes, or the
/// node itself (an incremental model reads `{{ this }}`).
#[derive(Debug)]
pub struct Relation<'m> {
    pub name: TableName,
    /// The node's unique id.
    pub id: &'m str,
    pub node: &'m Node,
    /// Whether this is the node whose SQL is read.
    pub is_self: bool,
}

/// The relations one compiled SQL may read, as [`KnownColumns`]: an upstream node's
/// columns are the ones the manifest documents (none documented: not known).
#[derive(Debug, Default)]
pub struct Relations<'m> {
    pub relations: Vec<Relation<'m>>,
}

impl<'m> Relations<'m> {
    pub fn push(&mut self, name: TableName, id: &'m str, node: &'m Node, is_self: bool) {
        self.relations.push(Relation {
            name,
            id,
            node,
            is_self,
        });
    }

    /// The relation a table name of the SQL stands for: the one of that name, else the
    /// only one whose name ends with it or that it ends with (`orders` and
    /// `analytics.staging.orders`), first as written, then regardless of case.
    pub fn find(&self, table: &TableName) -> Option<&Relation<'m>> {
        if let Some(r) = self.relations.iter().find(|r| r.name == *table) {
            return Some(r);
        }
        for exact in [true, false] {
            let mut matching = self.relations.iter().filter(|r| {
                let (short, long) = if r.name.0.len() <= table.0.len() {
                    (&r.name.0, &table.0)
                } else {
                    (&table.0, &r.name.0)
                };
                !short.is_empty()
                    && long[long.len() - short.len()..]
                        .iter()
                        .zip(short)
                        .all(|(a, b)| a == b || (!exact && a.eq_ignore_ascii_case(b)))
            });
            if let (Some(only), None) = (matching.next(), matching.next()) {
                return Some(only);
            }
        }
        None
    }
}

impl KnownColumns for Relations<'_> {
    fn columns(&self, table: &TableName) -> Option<Vec<String>> {
        let relation = self.find(table)?;
        if relation.is_self || relation.node.columns.is_empty() {
            return None;
        }
        Some(
            relation
                .node
                .columns
                .iter()
                .map(|(name, _)| name.to_owned())
                .collect(),
        )
    }
}

/// The documented column of `node` a column name of the SQL stands for: the one of that
/// name, else the only one of that name regardless of case.
pub fn documented<'n>(node: &'n Node, column: &str) -> Option<&'n str> {
    let mut same_case = None;
    let mut other_case = Vec::new();
    for (name, _) in node.columns.iter() {
        if name == column {
            same_case = Some(name);
            break;
        }
        if name.eq_ignore_ascii_case(column) {
            other_case.push(name);
        }
    }
    same_case.or(match other_case[..] {
        [only] => Some(only),
        _ => None,
    })
}

/// The name the compiled SQL reads a node by: its `relation_name` split into its parts
/// (e.g. `"analytics"."staging"."orders"`), else its database, schema and alias (a
/// source's identifier), else its name.
pub fn relation_name(node: &Node, source: bool, dialect: Dialect) -> TableName {
    if let Some(parts) = node
        .relation_name
        .as_deref()
        .and_then(|r| split_relation(r, dialect))
    {
        return TableName(parts);
    }
    let relation = if source {
        &node.identifier
    } else {
        &node.alias
    };
    let last = relation
        .as_deref()
        .filter(|r| !r.trim().is_empty())
        .unwrap_or(&node.name);
    let parts = [node.database.as_deref(), node.schema.as_deref(), Some(last)];
    TableName(
        parts
            .into_iter()
            .flatten()
            .filter(|p| !p.trim().is_empty())
            .map(str::to_owned)
            .collect(),
    )
}

/// `"db"."schema"."table"`, `` `project`.`dataset`.`table` ``, `[db].[dbo].[t]` or
/// `DB.SCHEMA.T` into its parts: quoted ones as written, unquoted ones folded to the
/// dialect's case as the SQL's own names are. `None` for a blank or malformed name.
fn split_relation(text: &str, dialect: Dialect) -> Option<Vec<String>> {
    let mut parts = Vec::new();
    let mut chars = text.trim().chars().peekable();
    loop {
        while chars.next_if(|c| c.is_whitespace()).is_some() {}
        let close = match chars.peek() {
            Some('"') => Some('"'),
            Some('`') => Some('`'),
            Some('[') => Some(']'),
            _ => None,
        };
        let mut part = String::new();
        if let Some(close) = close {
            chars.next();
            loop {
                match chars.next()? {
                    c if c == close => {
                        // A doubled quote stands for itself.
                        if chars.next_if_eq(&close).is_some() {
                            part.push(close);
                        } else {
                            break;
                        }
                    }
                    c => part.push(c),
                }
            }
            while chars.next_if(|c| c.is_whitespace()).is_some() {}
        } else {
            while let Some(c) = chars.next_if(|&c| c != '.') {
                part.push(c);
            }
            let trimmed = part.trim();
            if trimmed.is_empty() {
                return None;
            }
            part = fold(trimmed, dialect);
        }
        parts.push(part);
        match chars.next() {
            None => return Some(parts),
            Some('.') => {}
            Some(_) => return None,
        }
    }
}

/// An unquoted identifier as the dialect stores it (as `lore-sql-lineage` folds the
/// names of the SQL).
fn fold(ident: &str, dialect: Dialect) -> String {
    match dialect {
        Dialect::Snowflake => ident.to_uppercase(),
        Dialect::BigQuery | Dialect::MsSql => ident.to_owned(),
        _ => ident.to_lowercase(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str, dialect: Dialect) -> Option<Vec<String>> {
        split_relation(text, dialect)
    }

    fn parts(p: &[&str]) -> Option<Vec<String>> {
        Some(p.iter().map(|s| s.to_string()).collect())
    }

    #[test]
    fn relation_names_split_into_parts() {
        assert_eq!(
            split(r#""analytics"."dbt"."Orders""#, Dialect::Postgres),
            parts(&["analytics", "dbt", "Orders"])
        );
        assert_eq!(
            split("ANALYTICS.dbt.orders", Dialect::Snowflake),
            parts(&["ANALYTICS", "DBT", "ORDERS"])
        );
        assert_eq!(
            split("Analytics . Dbt.orders", Dialect::Postgres),
            parts(&["analytics", "dbt", "orders"])
        );
        assert_eq!(
            split("`my-project`.`shop`.`orders`", Dialect::BigQuery),
            parts(&["my-project", "shop", "orders"])
        );
        assert_eq!(
            split("[db].[dbo].[a.b]", Dialect::MsSql),
            parts(&["db", "dbo", "a.b"])
        );
        assert_eq!(
            split(r#""say ""hi""".t"#, Dialect::Postgres),
            parts(&["say \"hi\"", "t"])
        );
        for bad in ["", "  ", "a..b", "\"open", "\"a\"b", "a."] {
            assert_eq!(split(bad, Dialect::Postgres), None, "{bad}");
        }
    }

    #[test]
    fn table_names_find_their_relation() {
        let node = Node::default();
        let mut relations = Relations::default();
        let t = |p: &[&str]| TableName::new(p.iter().copied());
        relations.push(t(&["db", "staging", "orders"]), "a", &node, false);
        relations.push(t(&["db", "raw", "orders"]), "b", &node, false);
        relations.push(t(&["db", "raw", "Customers"]), "c", &node, false);
        let found = |p: &[&str]| relations.find(&t(p)).map(|r| r.id);
        assert_eq!(found(&["db", "raw", "orders"]), Some("b"));
        assert_eq!(found(&["staging", "orders"]), Some("a"));
        assert_eq!(found(&["orders"]), None, "two end so");
        assert_eq!(found(&["customers"]), Some("c"));
        assert_eq!(found(&["DB", "RAW", "CUSTOMERS"]), Some("c"));
        assert_eq!(found(&["other", "raw", "orders"]), None);
    }
}
