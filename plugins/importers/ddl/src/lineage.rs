//! Lineage between the tables and views of a script, from its statements that move data
//! (`CREATE [MATERIALIZED] VIEW`, `CREATE TABLE ... AS`, `INSERT ... SELECT`, `MERGE`,
//! `UPDATE`), derived by [`lore_sql_lineage`].
//!
//! Each such statement, as the importer parsed it, is written out again and analysed
//! once the whole script is read, against the columns of the tables and views the script
//! creates (for `*` and unqualified column names). It gives a `lineage` relationship from
//! each table or view it reads to the one it writes (`sql view`, `sql materialized view`,
//! `sql create table as`, `sql insert`, `sql merge`, `sql update`) and one from each source
//! column to each target column it is DIRECTly computed from, named the same followed by
//! the transformation: `sql view (DIRECT/AGGREGATION)`. INDIRECT sources (joins, filters,
//! grouping) get no column relationship: the table relationship stands for them.
//!
//! What cannot be resolved or linked is a warning naming the statement's line.

use std::collections::HashSet;

use lore_importer_kit::lineage::{
    Derived, DirectColumn, Found, defines_target, direct_columns, statement_edge_name,
};
use lore_sql_lineage::{self as sql, KnownColumns, StatementKind, StatementLineage, TableName};
use sqlparser::ast::{SetExpr, Statement};

use crate::catalog::{Catalog, Column, Relation};
use crate::names::{Dialect, Name, QualifiedName, member_id, relation_id};

/// A statement of the script that moves data, kept to derive its lineage once the whole
/// script is read.
#[derive(Debug)]
pub struct DataStatement {
    /// The line the statement starts on.
    line: usize,
    /// The statement as sqlparser writes it.
    sql: String,
}

impl DataStatement {
    /// The statement, if it moves data from tables: a view, `CREATE TABLE ... AS`, an
    /// `INSERT` of a query (not of `VALUES`), `MERGE` or `UPDATE`.
    pub fn of(statement: &Statement, line: usize) -> Option<Self> {
        let moves_data = match statement {
            Statement::CreateView(_) | Statement::Merge(_) | Statement::Update(_) => true,
            Statement::CreateTable(table) => table.query.is_some(),
            Statement::Insert(insert) => insert
                .source
                .as_ref()
                .is_some_and(|query| !matches!(*query.body, SetExpr::Values(_))),
            _ => false,
        };
        moves_data.then(|| Self {
            line,
            sql: statement.to_string(),
        })
    }
}

/// The lineage of the statements, between the tables and views of the catalog: the
/// relationships of each statement, its warnings naming its line.
pub fn derive(catalog: &Catalog, statements: &[DataStatement]) -> Derived {
    let tables = Tables { catalog };
    let dialect = match catalog.naming.dialect {
        Dialect::Postgres => sql::Dialect::Postgres,
        Dialect::Sqlite => sql::Dialect::Sqlite,
        Dialect::Generic => sql::Dialect::Generic,
    };
    let mut derive = Derivation {
        tables,
        derived: Derived::default(),
        warned: HashSet::new(),
    };
    for statement in statements {
        let lineage = sql::lineage(&statement.sql, dialect, &derive.tables);
        for problem in &lineage.problems {
            derive.derived.warnings.push(format!(
                "line {} (`{}`): no lineage is derived, the statement as the SQL parser \
                 writes it cannot be read again: {}",
                statement.line, problem.start, problem.message
            ));
        }
        for found in &lineage.statements {
            derive.statement(statement.line, found);
        }
    }
    derive.derived
}

/// The tables and views of the script, found by the names statements give them.
struct Tables<'a> {
    catalog: &'a Catalog,
}

impl<'a> Tables<'a> {
    /// The key a name part is compared by: PostgreSQL's names exactly (the analysis folds
    /// them as PostgreSQL does), the others' case-insensitively.
    fn key(&self, part: &str) -> String {
        match self.catalog.naming.dialect {
            Dialect::Postgres => part.to_owned(),
            Dialect::Sqlite | Dialect::Generic => part.to_lowercase(),
        }
    }

    fn exact(&self, schema: &str, name: &str) -> Option<&'a Relation> {
        self.catalog.relation(&QualifiedName {
            schema: Name::exact(schema.to_owned()),
            name: Name::exact(name.to_owned()),
        })
    }

    /// The table or view a name stands for: `schema.table` (a database qualifier is
    /// ignored, as the importer ignores it), or a bare name in the default schema, else in
    /// the one schema that has it.
    fn find(&self, table: &TableName) -> Found<&'a Relation> {
        let keys: Vec<String> = table.0.iter().map(|part| self.key(part)).collect();
        match keys.as_slice() {
            [] => Found::None,
            [name] => {
                if let Some(relation) = self.exact(&self.catalog.naming.default_schema.key, name) {
                    return Found::One(relation);
                }
                Found::of(
                    self.catalog
                        .relations
                        .iter()
                        .filter(|r| r.name.name.key == *name)
                        .collect(),
                )
            }
            [.., schema, name] => self.exact(schema, name).map_or(Found::None, Found::One),
        }
    }

    fn column<'r>(&self, relation: &'r Relation, name: &str) -> Option<&'r Column> {
        relation.column(&self.key(name))
    }
}

impl KnownColumns for Tables<'_> {
    fn columns(&self, table: &TableName) -> Option<Vec<String>> {
        match self.find(table) {
            Found::One(relation) if !relation.columns.is_empty() => Some(
                relation
                    .columns
                    .iter()
                    .map(|c| c.name.display.clone())
                    .collect(),
            ),
            _ => None,
        }
    }
}

struct Derivation<'a> {
    tables: Tables<'a>,
    derived: Derived,
    warned: HashSet<String>,
}

impl<'a> Derivation<'a> {
    fn warn(&mut self, line: usize, label: &str, what: impl std::fmt::Display) {
        let warning = format!("line {line} ({label}): {what}");
        if self.warned.insert(warning.clone()) {
            self.derived.warnings.push(warning);
        }
    }

    /// The relationships of one statement, and warnings for what is left unlinked.
    fn statement(&mut self, line: usize, lineage: &StatementLineage) {
        let label = label(lineage);
        let Some(target) = self.target(line, &label, lineage) else {
            return;
        };
        // A view or table defined again: only the definition the importer kept counts
        // (the last `CREATE OR REPLACE VIEW`; a second `CREATE` is left out with a warning).
        if defines_target(lineage.kind) && target.line != line {
            return;
        }
        for unresolved in &lineage.unresolved {
            self.warn(line, &label, unresolved);
        }

        let base = statement_edge_name(lineage.kind);
        let target_id = relation_id(&target.name);
        let sources = self.source_tables(line, &label, base, lineage, &target_id);

        // The columns of a view or table made by the statement are its output, in order;
        // when their numbers differ (a `*` the importer could not expand), names decide.
        let by_position =
            defines_target(lineage.kind) && lineage.columns.len() == target.columns.len();
        for direct in direct_columns(lineage) {
            let found = if by_position {
                target
                    .columns
                    .iter()
                    .find(|c| usize::try_from(c.position) == Ok(direct.index + 1))
                    .or_else(|| target.columns.get(direct.index))
            } else {
                self.tables.column(target, &direct.column.column)
            };
            let Some(target_column) = found else {
                self.warn(
                    line,
                    &label,
                    format_args!(
                        "column '{}' is not a column of {} in the script; its lineage is not linked",
                        direct.column.column, target.name
                    ),
                );
                continue;
            };
            let target_column_id = member_id(&target_id, "", &target_column.name);
            self.columns(line, &label, base, &direct, &sources, &target_column_id);
        }
    }

    /// The table or view the statement writes, if the script has it; else a warning.
    fn target(
        &mut self,
        line: usize,
        label: &str,
        lineage: &StatementLineage,
    ) -> Option<&'a Relation> {
        let Some(target_name) = &lineage.target else {
            self.warn(line, label, "it writes no table; no lineage is made");
            return None;
        };
        match self.tables.find(target_name) {
            Found::One(target) => Some(target),
            Found::None => {
                self.warn(
                    line,
                    label,
                    format_args!(
                        "table '{target_name}' it writes is not in the script; no lineage is made"
                    ),
                );
                None
            }
            Found::Several(found) => {
                self.warn(
                    line,
                    label,
                    format_args!(
                        "table '{target_name}' it writes could be any of {}; no lineage is made",
                        names(&found)
                    ),
                );
                None
            }
        }
    }

    /// The table-level relationships of a statement, from each table or view it reads
    /// that the script has (warnings for the others); those tables, by the statement's
    /// names for them.
    fn source_tables<'l>(
        &mut self,
        line: usize,
        label: &str,
        base: &str,
        lineage: &'l StatementLineage,
        target_id: &str,
    ) -> Vec<(&'l TableName, &'a Relation)> {
        let mut sources = Vec::new();
        for table in &lineage.sources {
            match self.tables.find(table) {
                Found::One(source) => {
                    sources.push((table, source));
                    self.derived
                        .table_edge(base, &relation_id(&source.name), target_id);
                }
                Found::None => self.warn(
                    line,
                    label,
                    format_args!("table '{table}' is not in the script"),
                ),
                Found::Several(found) => self.warn(
                    line,
                    label,
                    format_args!(
                        "table '{table}' could be any of {}; it is not linked",
                        names(&found)
                    ),
                ),
            }
        }
        sources
    }

    /// The column-level relationships of one target column.
    fn columns(
        &mut self,
        line: usize,
        label: &str,
        base: &str,
        column: &DirectColumn<'_>,
        sources: &[(&TableName, &Relation)],
        target_id: &str,
    ) {
        for source in &column.sources {
            // A source table that is not linked is warned about once, above.
            let Some((_, relation)) = sources.iter().find(|(t, _)| **t == source.table) else {
                continue;
            };
            let Some(source_column) = self.tables.column(relation, &source.column) else {
                self.warn(
                    line,
                    label,
                    format_args!(
                        "column '{}' is not a column of {} in the script; it is not linked",
                        source.column, relation.name
                    ),
                );
                continue;
            };
            let source_id = member_id(&relation_id(&relation.name), "", &source_column.name);
            self.derived
                .column_edge(base, source.transformation, &source_id, target_id);
        }
    }
}

/// How warnings name a statement: `CREATE VIEW sales_v`, `INSERT INTO audit`.
fn label(lineage: &StatementLineage) -> String {
    let written = lineage
        .target
        .as_ref()
        .map_or_else(String::new, ToString::to_string);
    match lineage.kind {
        StatementKind::CreateView => format!("CREATE VIEW {written}"),
        StatementKind::CreateMaterializedView => format!("CREATE MATERIALIZED VIEW {written}"),
        StatementKind::CreateTableAs => format!("CREATE TABLE {written} AS"),
        StatementKind::Insert => format!("INSERT INTO {written}"),
        StatementKind::Merge => format!("MERGE INTO {written}"),
        StatementKind::Update => format!("UPDATE {written}"),
        StatementKind::Select => "SELECT".to_owned(),
    }
}

fn names(relations: &[&Relation]) -> String {
    relations
        .iter()
        .map(|r| r.name.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
