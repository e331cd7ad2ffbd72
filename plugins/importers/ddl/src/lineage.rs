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

use lore_plugin_sdk::Relationship;
use lore_sql_lineage::{
    self as sql, ColumnLineage, KnownColumns, StatementKind, StatementLineage, TableName,
};
use sqlparser::ast::{SetExpr, Statement};

use crate::catalog::{Catalog, Column, Relation};
use crate::names::{Dialect, Name, QualifiedName, member_id, relation_id};

/// The relationship kind lineage is sent as.
const LINEAGE: &str = "lineage";

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

/// The lineage of a script's statements.
#[derive(Debug, Default)]
pub struct Derived {
    /// Table-level relationships first for each statement, then column-level ones; no
    /// relationship twice.
    pub relationships: Vec<Relationship>,
    /// How many of them are between tables (the rest are between columns).
    pub between_tables: usize,
    /// What could not be resolved or linked, each naming the statement's line.
    pub warnings: Vec<String>,
}

/// The name of a statement's table-level relationships.
pub fn relationship_name(kind: StatementKind) -> &'static str {
    match kind {
        StatementKind::CreateView => "sql view",
        StatementKind::CreateMaterializedView => "sql materialized view",
        StatementKind::CreateTableAs => "sql create table as",
        StatementKind::Insert => "sql insert",
        StatementKind::Merge => "sql merge",
        StatementKind::Update => "sql update",
        StatementKind::Select => "sql select",
    }
}

/// The lineage of the statements, between the tables and views of the catalog.
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
        sent: HashSet::new(),
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

/// What a table name of a statement stands for among the tables and views of the script.
enum Found<'a> {
    One(&'a Relation),
    None,
    Several(Vec<&'a Relation>),
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
    fn find(&self, table: &TableName) -> Found<'a> {
        let keys: Vec<String> = table.0.iter().map(|part| self.key(part)).collect();
        match keys.as_slice() {
            [] => Found::None,
            [name] => {
                if let Some(relation) = self.exact(&self.catalog.naming.default_schema.key, name) {
                    return Found::One(relation);
                }
                let mut matching: Vec<&Relation> = self
                    .catalog
                    .relations
                    .iter()
                    .filter(|r| r.name.name.key == *name)
                    .collect();
                match matching.len() {
                    0 => Found::None,
                    1 => Found::One(matching.remove(0)),
                    _ => Found::Several(matching),
                }
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
    sent: HashSet<(String, String, String)>,
    warned: HashSet<String>,
}

impl Derivation<'_> {
    fn warn(&mut self, line: usize, label: &str, what: impl std::fmt::Display) {
        let warning = format!("line {line} ({label}): {what}");
        if self.warned.insert(warning.clone()) {
            self.derived.warnings.push(warning);
        }
    }

    fn relate(&mut self, name: String, source: String, target: String) -> bool {
        // A statement that reads what it writes (UPDATE t SET a = a + 1) is no lineage.
        if source == target
            || !self
                .sent
                .insert((name.clone(), source.clone(), target.clone()))
        {
            return false;
        }
        self.derived
            .relationships
            .push(Relationship::new(LINEAGE, name, source, target));
        true
    }

    /// The relationships of one statement, and warnings for what is left unlinked.
    fn statement(&mut self, line: usize, lineage: &StatementLineage) {
        let written = lineage
            .target
            .as_ref()
            .map_or_else(String::new, ToString::to_string);
        let label = match lineage.kind {
            StatementKind::CreateView => format!("CREATE VIEW {written}"),
            StatementKind::CreateMaterializedView => {
                format!("CREATE MATERIALIZED VIEW {written}")
            }
            StatementKind::CreateTableAs => format!("CREATE TABLE {written} AS"),
            StatementKind::Insert => format!("INSERT INTO {written}"),
            StatementKind::Merge => format!("MERGE INTO {written}"),
            StatementKind::Update => format!("UPDATE {written}"),
            StatementKind::Select => "SELECT".to_owned(),
        };
        let Some(target_name) = &lineage.target else {
            self.warn(line, &label, "it writes no table; no lineage is made");
            return;
        };
        let target = match self.tables.find(target_name) {
            Found::One(target) => target,
            Found::None => {
                self.warn(
                    line,
                    &label,
                    format_args!(
                        "table '{target_name}' it writes is not in the script; no lineage is made"
                    ),
                );
                return;
            }
            Found::Several(found) => {
                self.warn(
                    line,
                    &label,
                    format_args!(
                        "table '{target_name}' it writes could be any of {}; no lineage is made",
                        names(&found)
                    ),
                );
                return;
            }
        };
        // A view or table defined again: only the definition the importer kept counts
        // (the last `CREATE OR REPLACE VIEW`; a second `CREATE` is left out with a warning).
        if matches!(
            lineage.kind,
            StatementKind::CreateView
                | StatementKind::CreateMaterializedView
                | StatementKind::CreateTableAs
        ) && target.line != line
        {
            return;
        }
        for unresolved in &lineage.unresolved {
            self.warn(line, &label, unresolved);
        }

        let base = relationship_name(lineage.kind);
        let target_id = relation_id(&target.name);
        let mut sources: Vec<(&TableName, &Relation)> = Vec::new();
        for table in &lineage.sources {
            match self.tables.find(table) {
                Found::One(source) => {
                    sources.push((table, source));
                    if self.relate(
                        base.to_owned(),
                        relation_id(&source.name),
                        target_id.clone(),
                    ) {
                        self.derived.between_tables += 1;
                    }
                }
                Found::None => self.warn(
                    line,
                    &label,
                    format_args!("table '{table}' is not in the script"),
                ),
                Found::Several(found) => self.warn(
                    line,
                    &label,
                    format_args!(
                        "table '{table}' could be any of {}; it is not linked",
                        names(&found)
                    ),
                ),
            }
        }

        // The columns of a view or table made by the statement are its output, in order;
        // when their numbers differ (a `*` the importer could not expand), names decide.
        let by_position = matches!(
            lineage.kind,
            StatementKind::CreateView
                | StatementKind::CreateMaterializedView
                | StatementKind::CreateTableAs
        ) && lineage.columns.len() == target.columns.len();
        for (i, column) in lineage.columns.iter().enumerate() {
            let direct: Vec<_> = column
                .sources
                .iter()
                .filter(|s| !s.transformation.is_indirect())
                .collect();
            if direct.is_empty() {
                continue;
            }
            let found = if by_position {
                target
                    .columns
                    .iter()
                    .find(|c| usize::try_from(c.position) == Ok(i + 1))
                    .or_else(|| target.columns.get(i))
            } else {
                self.tables.column(target, &column.column)
            };
            let Some(target_column) = found else {
                self.warn(
                    line,
                    &label,
                    format_args!(
                        "column '{}' is not a column of {} in the script; its lineage is not linked",
                        column.column, target.name
                    ),
                );
                continue;
            };
            let target_column_id = member_id(&target_id, "", &target_column.name);
            self.columns(line, &label, base, column, &sources, &target_column_id);
        }
    }

    /// The column-level relationships of one target column.
    fn columns(
        &mut self,
        line: usize,
        label: &str,
        base: &str,
        column: &ColumnLineage,
        sources: &[(&TableName, &Relation)],
        target_id: &str,
    ) {
        for source in column
            .sources
            .iter()
            .filter(|s| !s.transformation.is_indirect())
        {
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
            let name = format!(
                "{base} ({}/{})",
                source.transformation.kind(),
                source.transformation.subtype()
            );
            let source_id = member_id(&relation_id(&relation.name), "", &source_column.name);
            self.relate(name, source_id, target_id.to_owned());
        }
    }
}

fn names(relations: &[&Relation]) -> String {
    relations
        .iter()
        .map(|r| r.name.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}
