//! Lineage of the harvested views, derived from their definitions by
//! [`lore_sql_lineage`]: a `lineage` relationship from each harvested table or view a view
//! reads to the view (`sql view`, `sql materialized view`), and one from each source
//! column to each view column DIRECTly computed from it, named the same followed by the
//! transformation (`sql view (DIRECT/AGGREGATION)`). INDIRECT sources (joins, filters,
//! grouping) get no column relationship: the table relationship stands for them.
//!
//! PostgreSQL's definitions (`pg_get_viewdef`) are read as PostgreSQL queries, SQLite's
//! (`sqlite_master.sql`, the whole `CREATE VIEW`) as SQLite statements, against the
//! columns of the harvested tables and views. A bare table name is looked for in the
//! schemas of the search path, then in the view's own schema. What cannot be resolved
//! or linked is a warning naming the view.

use std::collections::{HashMap, HashSet};

use lore_importer_kit::lineage::{Derived, Found, direct_columns, statement_edge_name};
use lore_sql_lineage::{
    self as sql, Dialect, KnownColumns, StatementKind, StatementLineage, TableName,
};

use crate::catalog::{Catalog, Layout, Table, TableIds, TableKind};

/// A harvested table or view, with its schema and ids.
#[derive(Clone, Copy)]
struct Harvested<'a> {
    schema: &'a str,
    table: &'a Table,
    ids: &'a TableIds,
}

impl Harvested<'_> {
    fn label(&self) -> String {
        format!("{}.{}", self.schema, self.table.name)
    }
}

/// The harvested tables and views, found by the names a definition gives them.
struct Tables<'a> {
    /// PostgreSQL compares names exactly (the analysis folds them as PostgreSQL does);
    /// SQLite case-insensitively.
    exact: bool,
    search_path: &'a [String],
    by_schema: HashMap<String, Vec<Harvested<'a>>>,
}

impl<'a> Tables<'a> {
    fn new(catalog: &'a Catalog, layout: &'a Layout, exact: bool) -> Self {
        let mut by_schema: HashMap<String, Vec<Harvested<'a>>> = HashMap::new();
        for (schema, schema_ids) in catalog.schemas.iter().zip(&layout.schemas) {
            let tables = by_schema.entry(schema.name.clone()).or_default();
            for (table, ids) in schema.tables.iter().zip(&schema_ids.tables) {
                tables.push(Harvested {
                    schema: &schema.name,
                    table,
                    ids,
                });
            }
        }
        Self {
            exact,
            search_path: &catalog.search_path,
            by_schema,
        }
    }

    fn same(&self, a: &str, b: &str) -> bool {
        a == b || (!self.exact && a.eq_ignore_ascii_case(b))
    }

    /// The tables of a name in one schema: the exact spelling first, then (SQLite) any case.
    fn in_schema(&self, schema: &str, name: &str) -> Vec<Harvested<'a>> {
        let mut found: Vec<Harvested<'a>> = self
            .by_schema
            .iter()
            .filter(|(s, _)| self.same(s, schema))
            .flat_map(|(_, tables)| tables.iter().copied())
            .filter(|h| self.same(&h.table.name, name))
            .collect();
        if found.len() > 1
            && let Some(exact) = found
                .iter()
                .find(|h| h.schema == schema && h.table.name == name)
        {
            found = vec![*exact];
        }
        found
    }

    /// What a name in the definition of a view of `schema` stands for: `schema.table` (a
    /// database qualifier is ignored), or a bare name in the first schema of the search
    /// path, then the view's schema, that has it.
    fn find(&self, table: &TableName, schema: &str) -> Found<Harvested<'a>> {
        match table.0.as_slice() {
            [] => Found::None,
            [name] => {
                let schemas = self.search_path.iter().map(String::as_str).chain([schema]);
                for candidate in schemas {
                    let found = self.in_schema(candidate, name);
                    if !found.is_empty() {
                        return Found::of(found);
                    }
                }
                Found::None
            }
            [.., schema, name] => Found::of(self.in_schema(schema, name)),
        }
    }

    fn column<'t>(&self, harvested: &Harvested<'t>, name: &str) -> Option<&'t str> {
        let columns = &harvested.table.columns;
        let at = columns
            .iter()
            .position(|c| c.name == name)
            .or_else(|| columns.iter().position(|c| self.same(&c.name, name)))?;
        harvested.ids.columns.get(at).map(String::as_str)
    }
}

/// The columns known to the definition of a view of one schema.
struct Known<'t, 'a> {
    tables: &'t Tables<'a>,
    schema: &'t str,
}

impl KnownColumns for Known<'_, '_> {
    fn columns(&self, table: &TableName) -> Option<Vec<String>> {
        match self.tables.find(table, self.schema) {
            Found::One(h) if !h.table.columns.is_empty() => {
                Some(h.table.columns.iter().map(|c| c.name.clone()).collect())
            }
            _ => None,
        }
    }
}

/// The lineage of every view of the catalog, its warnings naming their view. `dialect` is
/// the database's: PostgreSQL's definitions are queries, SQLite's whole `CREATE VIEW`
/// statements.
pub fn derive(catalog: &Catalog, layout: &Layout, dialect: Dialect) -> Derived {
    let tables = Tables::new(catalog, layout, dialect != Dialect::Sqlite);
    let mut derivation = Derivation {
        tables: &tables,
        derived: Derived::default(),
    };
    for (schema, schema_ids) in catalog.schemas.iter().zip(&layout.schemas) {
        for (table, ids) in schema.tables.iter().zip(&schema_ids.tables) {
            if table.kind != TableKind::View {
                continue;
            }
            let view = Harvested {
                schema: &schema.name,
                table,
                ids,
            };
            derivation.view(view, dialect);
        }
    }
    derivation.derived
}

struct Derivation<'t, 'a> {
    tables: &'t Tables<'a>,
    derived: Derived,
}

impl<'a> Derivation<'_, 'a> {
    fn warn(&mut self, view: &Harvested<'_>, what: impl std::fmt::Display) {
        self.derived
            .warnings
            .push(format!("view {}: {what}", view.label()));
    }

    fn view(&mut self, view: Harvested<'_>, dialect: Dialect) {
        let known = Known {
            tables: self.tables,
            schema: view.schema,
        };
        let kind = if view.table.materialized {
            StatementKind::CreateMaterializedView
        } else {
            StatementKind::CreateView
        };
        let lineage = match (&view.table.create_statement, &view.table.definition) {
            (Some(statement), _) => {
                let mut found = sql::lineage(statement, dialect, &known);
                match (found.problems.pop(), found.statements.pop()) {
                    (None, Some(lineage)) if found.statements.is_empty() => Ok(lineage),
                    (Some(problem), _) => Err(format!(
                        "its definition cannot be read (line {}): {}",
                        problem.line, problem.message
                    )),
                    _ => Err("its definition is not one CREATE VIEW statement".to_owned()),
                }
            }
            (None, Some(query)) => {
                let target = TableName::new([view.schema, view.table.name.as_str()]);
                sql::query_lineage(query, dialect, &known, Some(target), kind).map_err(|p| {
                    format!(
                        "its definition cannot be read (line {}): {}",
                        p.line, p.message
                    )
                })
            }
            (None, None) => Err("its definition is not known".to_owned()),
        };
        match lineage {
            Ok(lineage) => self.link(view, kind, &lineage),
            Err(warning) => self.warn(&view, format_args!("{warning}; it has no lineage")),
        }
    }

    fn link(&mut self, view: Harvested<'_>, kind: StatementKind, lineage: &StatementLineage) {
        let base = statement_edge_name(kind);
        for unresolved in &lineage.unresolved {
            self.warn(&view, unresolved);
        }
        let sources = self.source_tables(view, base, lineage);

        if view.table.columns.is_empty() {
            if lineage.columns.iter().any(|c| !c.sources.is_empty()) {
                self.warn(
                    &view,
                    "its columns are not known; the lineage of its columns is not linked",
                );
            }
            return;
        }
        // The view's columns are its query's output, in order; should their numbers
        // differ, names decide.
        let by_position = lineage.columns.len() == view.table.columns.len();
        let mut warned = HashSet::new();
        for direct in direct_columns(lineage) {
            let target = if by_position {
                view.ids.columns.get(direct.index).map(String::as_str)
            } else {
                self.tables.column(&view, &direct.column.column)
            };
            let Some(target) = target else {
                self.warn(
                    &view,
                    format_args!(
                        "column '{}' of its query is not a column of the view; \
                         its lineage is not linked",
                        direct.column.column
                    ),
                );
                continue;
            };
            for source in direct.sources {
                // A table that is not linked is warned about once, above.
                let Some((_, harvested)) = sources.iter().find(|(t, _)| **t == source.table) else {
                    continue;
                };
                let Some(source_id) = self.tables.column(harvested, &source.column) else {
                    if warned.insert((harvested.label(), source.column.clone())) {
                        self.warn(
                            &view,
                            format_args!(
                                "column '{}' is not a column of {}; it is not linked",
                                source.column,
                                harvested.label()
                            ),
                        );
                    }
                    continue;
                };
                self.derived
                    .column_edge(base, source.transformation, source_id, target);
            }
        }
    }

    /// The table-level relationships of a view, from each harvested table or view it
    /// reads (warnings for the others); those tables, by the definition's names for them.
    fn source_tables<'l>(
        &mut self,
        view: Harvested<'_>,
        base: &str,
        lineage: &'l StatementLineage,
    ) -> Vec<(&'l TableName, Harvested<'a>)> {
        let mut sources = Vec::new();
        for table in &lineage.sources {
            match self.tables.find(table, view.schema) {
                Found::One(source) => {
                    sources.push((table, source));
                    self.derived.table_edge(base, &source.ids.id, &view.ids.id);
                }
                Found::None => self.warn(
                    &view,
                    format_args!("table '{table}' is not harvested; it is not linked"),
                ),
                Found::Several(found) => self.warn(
                    &view,
                    format_args!(
                        "table '{table}' could be any of {}; it is not linked",
                        found
                            .iter()
                            .map(Harvested::label)
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ),
            }
        }
        sources
    }
}
