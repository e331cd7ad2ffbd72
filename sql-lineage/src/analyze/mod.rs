//! The walk over a statement's syntax tree that resolves its columns.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::rc::Rc;

use sqlparser::ast::{
    AccessExpr, Assignment, AssignmentTarget, Distinct, Expr, Function, FunctionArg,
    FunctionArgExpr, FunctionArgumentClause, FunctionArguments, GroupByExpr, GroupByWithModifier,
    Ident, InTarget, Join, JoinConstraint, JoinOperator, MergeAction, MergeInsertKind,
    MergeUpdateKind, NamedWindowDefinition, NamedWindowExpr, ObjectName, ObjectNamePart, OrderBy,
    OrderByKind, Query, Select, SelectItem, SelectItemQualifiedWildcardKind, SetExpr,
    SetQuantifier, Statement, Subscript, TableAlias, TableAliasColumnDef, TableFactor,
    TableFunctionArgs, TableObject, TableWithJoins, UpdateTableFromKind, Value, Values,
    WildcardAdditionalOptions, WindowSpec, WindowType,
};

mod exprs;
mod queries;
mod statements;

use crate::{
    ColumnLineage, Dialect, KnownColumns, SourceColumn, StatementKind, StatementLineage, TableName,
    Transformation as T,
};

/// How deep the walk goes into nested expressions and queries before it gives up on a
/// branch (sqlparser already refuses nesting past its own limit of 50 while parsing;
/// chains of binary operators and set operations are walked iteratively).
const MAX_DEPTH: usize = 200;

type Deps = BTreeSet<SourceColumn>;

/// An output column of a query, as the walk sees it.
#[derive(Debug, Clone)]
struct Col {
    name: String,
    deps: Deps,
    /// False when some reference in its expression could not be resolved.
    complete: bool,
}

/// What an expression's walk gathers.
#[derive(Debug, Default)]
struct Acc {
    deps: Deps,
    incomplete: bool,
}

impl Acc {
    /// Adds `deps`, as used in context `ctx`.
    fn add(&mut self, deps: &Deps, ctx: T) {
        for d in deps {
            self.deps.insert(SourceColumn {
                table: d.table.clone(),
                column: d.column.clone(),
                transformation: T::compose(ctx, d.transformation),
            });
        }
    }
}

#[derive(Debug)]
enum RelKind {
    /// A table or view of the database.
    Base {
        table: TableName,
        known: Option<Vec<String>>,
    },
    /// A CTE or a subquery: its columns are known.
    Derived(Rc<Vec<Col>>),
    /// A table function, UNNEST...: any column may come from it, computed from `deps`;
    /// with a note, references through it are unresolved and the note says why.
    Opaque { deps: Deps, note: Option<String> },
}

/// A relation of a FROM clause.
#[derive(Debug)]
struct Rel {
    alias: Option<String>,
    kind: RelKind,
    /// How messages name it.
    label: String,
}

/// The names visible at one level of a query.
#[derive(Debug, Default)]
struct Scope<'p> {
    parent: Option<&'p Scope<'p>>,
    ctes: Vec<(String, Rc<Vec<Col>>)>,
    rels: Vec<Rel>,
    /// The select list's output columns so far (for references to output aliases).
    aliases: Vec<Col>,
    /// Columns joined with USING (an unqualified one is in several relations by design).
    using: Vec<String>,
    windows: Vec<(String, WindowSpec)>,
}

impl<'p> Scope<'p> {
    fn child(parent: &'p Scope<'p>) -> Scope<'p> {
        Scope {
            parent: Some(parent),
            ..Scope::default()
        }
    }
}

/// Whether output-column aliases may resolve a bare name, and before or after the
/// FROM clause's columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Plain,
    AliasAfter,
    AliasFirst,
}

enum Lookup {
    Definite(Deps, bool),
    Maybe(Deps, Option<String>),
    No,
}

enum Found {
    One(Deps, bool, Option<String>),
    Ambiguous(String),
    None,
}

fn same(a: &str, b: &str) -> bool {
    a == b || a.eq_ignore_ascii_case(b)
}

fn single(table: &TableName, column: &str) -> Deps {
    let mut d = Deps::new();
    d.insert(SourceColumn {
        table: table.clone(),
        column: column.to_string(),
        transformation: T::Identity,
    });
    d
}

fn part_ident(p: &ObjectNamePart) -> &Ident {
    match p {
        ObjectNamePart::Identifier(i) => i,
        ObjectNamePart::Function(f) => &f.name,
    }
}

/// A table name as the dialect stores it.
pub(crate) fn table_name(name: &ObjectName, dialect: Dialect) -> TableName {
    TableName(
        name.0
            .iter()
            .map(|p| dialect.ident(part_ident(p)))
            .collect(),
    )
}

fn as_ordinal(e: &Expr) -> Option<usize> {
    match e {
        Expr::Value(v) => match &v.value {
            Value::Number(n, _) => n.to_string().parse().ok(),
            _ => None,
        },
        _ => None,
    }
}

/// Functions that aggregate their arguments (lower case).
const AGGREGATES: &[&str] = &[
    "any_value",
    "approx_count_distinct",
    "approx_distinct",
    "approx_percentile",
    "approx_quantiles",
    "approx_top_count",
    "arg_max",
    "arg_min",
    "argmax",
    "argmin",
    "array_agg",
    "avg",
    "bit_and",
    "bit_or",
    "bit_xor",
    "bitand_agg",
    "bitor_agg",
    "bool_and",
    "bool_or",
    "booland_agg",
    "boolor_agg",
    "checksum_agg",
    "collect_list",
    "collect_set",
    "corr",
    "count",
    "count_big",
    "count_if",
    "countif",
    "covar_pop",
    "covar_samp",
    "every",
    "favg",
    "first",
    "fsum",
    "group_concat",
    "grouping",
    "histogram",
    "json_agg",
    "json_arrayagg",
    "json_object_agg",
    "json_objectagg",
    "jsonb_agg",
    "jsonb_object_agg",
    "kurtosis",
    "last",
    "list",
    "listagg",
    "logical_and",
    "logical_or",
    "max",
    "max_by",
    "median",
    "min",
    "min_by",
    "mode",
    "object_agg",
    "percentile_cont",
    "percentile_disc",
    "product",
    "regr_avgx",
    "regr_avgy",
    "regr_count",
    "regr_intercept",
    "regr_r2",
    "regr_slope",
    "regr_sxx",
    "regr_sxy",
    "regr_syy",
    "skewness",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "string_agg",
    "sum",
    "var_pop",
    "var_samp",
    "variance",
    "xmlagg",
];

/// Date and time parts that some functions take as a bare word (`DATEADD(day, 1, d)`).
const DATE_PARTS: &[&str] = &[
    "century",
    "d",
    "date",
    "day",
    "dayofweek",
    "dayofyear",
    "days",
    "dd",
    "decade",
    "dow",
    "doy",
    "dw",
    "dy",
    "epoch",
    "hh",
    "hour",
    "hours",
    "isodow",
    "isoweek",
    "isoyear",
    "mi",
    "microsecond",
    "microseconds",
    "millennium",
    "millisecond",
    "milliseconds",
    "minute",
    "minutes",
    "mm",
    "mon",
    "month",
    "months",
    "ms",
    "n",
    "nanosecond",
    "ns",
    "qq",
    "quarter",
    "s",
    "second",
    "seconds",
    "ss",
    "time",
    "us",
    "week",
    "weekday",
    "weeks",
    "wk",
    "ww",
    "year",
    "years",
    "yy",
    "yyyy",
];

struct Analyzer<'k> {
    dialect: Dialect,
    known: &'k dyn KnownColumns,
    tables: BTreeSet<TableName>,
    indirect: BTreeSet<SourceColumn>,
    unresolved: Vec<String>,
    seen: HashSet<String>,
    depth: usize,
    lambda: Vec<String>,
}

/// The lineage of one statement, or None if it moves no data.
pub(crate) fn statement(
    stmt: &Statement,
    line: usize,
    dialect: Dialect,
    known: &dyn KnownColumns,
) -> Option<StatementLineage> {
    let mut a = Analyzer::new(dialect, known);
    let root = Scope::default();
    match stmt {
        Statement::Query(q) => {
            let into = match q.body.as_ref() {
                SetExpr::Select(s) => s.into.as_ref(),
                _ => None,
            };
            let target = into
                .and_then(|i| i.targets.first())
                .and_then(|e| a.expr_table(e));
            let kind = if target.is_some() {
                StatementKind::CreateTableAs
            } else {
                StatementKind::Select
            };
            let cols = a.query(q, &root);
            Some(a.finish(kind, line, target, cols))
        }
        Statement::CreateView(cv) => {
            let kind = if cv.materialized {
                StatementKind::CreateMaterializedView
            } else {
                StatementKind::CreateView
            };
            let mut cols = a.query(&cv.query, &root);
            let names: Vec<String> = cv.columns.iter().map(|c| dialect.ident(&c.name)).collect();
            a.name_columns(&mut cols, &names, "the view");
            Some(a.finish(kind, line, Some(table_name(&cv.name, dialect)), cols))
        }
        Statement::CreateTable(ct) => {
            let q = ct.query.as_ref()?;
            let mut cols = a.query(q, &root);
            let names: Vec<String> = ct.columns.iter().map(|c| dialect.ident(&c.name)).collect();
            a.name_columns(&mut cols, &names, "the table");
            Some(a.finish(
                StatementKind::CreateTableAs,
                line,
                Some(table_name(&ct.name, dialect)),
                cols,
            ))
        }
        Statement::Insert(ins) => Some(a.insert(ins, line)),
        Statement::Merge(m) => Some(a.merge(m, line)),
        Statement::Update(u) => Some(a.update(u, line)),
        _ => None,
    }
}

/// Whether [`statement`] gives lineage for this statement.
pub(crate) fn moves_data(stmt: &Statement) -> bool {
    match stmt {
        Statement::Query(_)
        | Statement::CreateView(_)
        | Statement::Insert(_)
        | Statement::Merge(_)
        | Statement::Update(_) => true,
        Statement::CreateTable(ct) => ct.query.is_some(),
        _ => false,
    }
}

/// The lineage of a query written to `target` as `kind`.
pub(crate) fn query_statement(
    q: &Query,
    line: usize,
    dialect: Dialect,
    known: &dyn KnownColumns,
    target: Option<TableName>,
    kind: StatementKind,
) -> StatementLineage {
    let mut a = Analyzer::new(dialect, known);
    let root = Scope::default();
    let cols = a.query(q, &root);
    a.finish(kind, line, target, cols)
}

/// The names of a query's output columns.
pub(crate) fn query_output_names(
    q: &Query,
    dialect: Dialect,
    known: &dyn KnownColumns,
) -> Vec<String> {
    let mut a = Analyzer::new(dialect, known);
    let root = Scope::default();
    a.query(q, &root).into_iter().map(|c| c.name).collect()
}

/// A column's sources: DIRECT ones first (one per column, the strongest), then the
/// INDIRECT ones, each part sorted by table and column.
fn order_sources(deps: Deps) -> Vec<SourceColumn> {
    let mut direct: BTreeMap<(TableName, String), T> = BTreeMap::new();
    let mut indirect = Vec::new();
    for d in deps {
        if d.transformation.is_indirect() {
            indirect.push(d);
        } else {
            let e = direct
                .entry((d.table, d.column))
                .or_insert(d.transformation);
            *e = (*e).max(d.transformation);
        }
    }
    let mut out: Vec<SourceColumn> = direct
        .into_iter()
        .map(|((table, column), transformation)| SourceColumn {
            table,
            column,
            transformation,
        })
        .collect();
    out.extend(indirect);
    out
}

impl<'k> Analyzer<'k> {
    fn new(dialect: Dialect, known: &'k dyn KnownColumns) -> Self {
        Analyzer {
            dialect,
            known,
            tables: BTreeSet::new(),
            indirect: BTreeSet::new(),
            unresolved: Vec::new(),
            seen: HashSet::new(),
            depth: 0,
            lambda: Vec::new(),
        }
    }

    fn ident(&self, i: &Ident) -> String {
        self.dialect.ident(i)
    }

    fn unresolved(&mut self, message: String) {
        if self.seen.insert(message.clone()) {
            self.unresolved.push(message);
        }
    }

    fn too_deep(&mut self, acc: Option<&mut Acc>) {
        self.unresolved(format!(
            "the statement is nested more than {MAX_DEPTH} levels deep; the deeper parts are not traced"
        ));
        if let Some(acc) = acc {
            acc.incomplete = true;
        }
    }

    fn finish(
        mut self,
        kind: StatementKind,
        line: usize,
        target: Option<TableName>,
        cols: Vec<Col>,
    ) -> StatementLineage {
        let columns: Vec<ColumnLineage> = cols
            .into_iter()
            .map(|c| ColumnLineage {
                column: c.name,
                sources: order_sources(c.deps),
                complete: c.complete,
            })
            .collect();
        for c in &columns {
            for s in &c.sources {
                self.tables.insert(s.table.clone());
            }
        }
        for s in &self.indirect {
            self.tables.insert(s.table.clone());
        }
        StatementLineage {
            kind,
            line,
            target,
            sources: self.tables.into_iter().collect(),
            columns,
            indirect: self.indirect.into_iter().collect(),
            unresolved: self.unresolved,
        }
    }

    /// Renames output columns by a target's column list (CREATE VIEW v (a, b) AS ...).
    fn name_columns(&mut self, cols: &mut Vec<Col>, names: &[String], what: &str) {
        if names.is_empty() {
            return;
        }
        if names.len() != cols.len() {
            self.unresolved(format!(
                "{what} names {} columns but its query gives {}",
                names.len(),
                cols.len()
            ));
        }
        cols.truncate(names.len());
        for (c, n) in cols.iter_mut().zip(names) {
            c.name = n.clone();
        }
    }

    fn expr_table(&self, e: &Expr) -> Option<TableName> {
        match e {
            Expr::Identifier(i) => Some(TableName(vec![self.ident(i)])),
            Expr::CompoundIdentifier(ids) => {
                Some(TableName(ids.iter().map(|i| self.ident(i)).collect()))
            }
            _ => None,
        }
    }
}

fn is_by_name(q: SetQuantifier) -> bool {
    matches!(
        q,
        SetQuantifier::ByName | SetQuantifier::AllByName | SetQuantifier::DistinctByName
    )
}

/// Output column i of a set operation draws from column i of every branch (or the
/// same-named one, for UNION BY NAME).
fn combine(into: &mut Vec<Col>, other: Vec<Col>, by_name: bool) {
    if by_name {
        for c in other {
            add_col(into, &c.name, c.deps, c.complete);
        }
    } else {
        for (a, b) in into.iter_mut().zip(other) {
            a.deps.extend(b.deps);
            a.complete &= b.complete;
        }
    }
}

/// Adds sources to the output column of that name, or a new one.
fn add_col(out: &mut Vec<Col>, name: &str, deps: Deps, complete: bool) {
    match out.iter_mut().find(|c| same(&c.name, name)) {
        Some(c) => {
            c.deps.extend(deps);
            c.complete &= complete;
        }
        None => out.push(Col {
            name: name.to_string(),
            deps,
            complete,
        }),
    }
}

fn rename(dialect: Dialect, cols: &mut [Col], names: &[TableAliasColumnDef]) {
    for (c, n) in cols.iter_mut().zip(names) {
        c.name = dialect.ident(&n.name);
    }
}

fn known_names(rel: &Rel) -> Vec<String> {
    match &rel.kind {
        RelKind::Base { known: Some(k), .. } => k.clone(),
        RelKind::Derived(cols) => cols.iter().map(|c| c.name.clone()).collect(),
        _ => Vec::new(),
    }
}

/// Every source of a relation's columns (a whole-row reference).
fn rel_deps(rel: &Rel) -> Deps {
    match &rel.kind {
        RelKind::Base {
            table,
            known: Some(k),
        } => k.iter().flat_map(|c| single(table, c)).collect(),
        RelKind::Base { known: None, .. } => Deps::new(),
        RelKind::Derived(cols) => cols.iter().flat_map(|c| c.deps.iter().cloned()).collect(),
        RelKind::Opaque { deps, .. } => deps.clone(),
    }
}

fn lookup_rel(rel: &Rel, name: &str) -> Lookup {
    match &rel.kind {
        RelKind::Base {
            table,
            known: Some(cols),
        } => match cols.iter().find(|c| same(c, name)) {
            Some(c) => Lookup::Definite(single(table, c), true),
            None => Lookup::No,
        },
        RelKind::Base { table, known: None } => Lookup::Maybe(single(table, name), None),
        RelKind::Derived(cols) => match cols.iter().find(|c| same(&c.name, name)) {
            Some(c) => Lookup::Definite(c.deps.clone(), c.complete),
            None => Lookup::No,
        },
        RelKind::Opaque { deps, note } => Lookup::Maybe(deps.clone(), note.clone()),
    }
}

/// An unqualified column among one scope's relations.
fn find_unqualified(scope: &Scope, name: &str) -> Found {
    let mut definite: Vec<(&Rel, Deps, bool)> = Vec::new();
    let mut maybe: Vec<(&Rel, Deps, Option<String>)> = Vec::new();
    for rel in &scope.rels {
        match lookup_rel(rel, name) {
            Lookup::Definite(d, c) => definite.push((rel, d, c)),
            Lookup::Maybe(d, n) => maybe.push((rel, d, n)),
            Lookup::No => {}
        }
    }
    match definite.len() {
        1 => {
            let (_, d, c) = definite.remove(0);
            Found::One(d, c, None)
        }
        0 => match maybe.len() {
            0 => Found::None,
            1 => {
                let (_, d, n) = maybe.remove(0);
                Found::One(d, true, n)
            }
            _ => Found::Ambiguous(format!(
                "column '{name}' could be in any of the tables read ({}), whose columns are not known",
                maybe
                    .iter()
                    .map(|(r, ..)| r.label.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        },
        _ if scope.using.iter().any(|u| same(u, name)) => {
            let mut deps = Deps::new();
            let mut complete = true;
            for (_, d, c) in definite {
                deps.extend(d);
                complete &= c;
            }
            Found::One(deps, complete, None)
        }
        _ => Found::Ambiguous(format!(
            "column '{name}' is in more than one of the tables read ({})",
            definite
                .iter()
                .map(|(r, ..)| r.label.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The relation a qualifier names, in this scope or an enclosing one.
fn find_rel<'s>(scope: &'s Scope<'s>, qual: &[String]) -> Option<&'s Rel> {
    let mut s = Some(scope);
    while let Some(sc) = s {
        if let [only] = qual
            && let Some(r) = sc
                .rels
                .iter()
                .find(|r| r.alias.as_deref().is_some_and(|a| same(a, only)))
        {
            return Some(r);
        }
        let by_table = |aliased: bool| {
            sc.rels.iter().find(|r| match &r.kind {
                RelKind::Base { table, .. } => {
                    r.alias.is_some() == aliased
                        && table.0.len() >= qual.len()
                        && table.0[table.0.len() - qual.len()..]
                            .iter()
                            .zip(qual)
                            .all(|(a, b)| same(a, b))
                }
                _ => false,
            })
        };
        if let Some(r) = by_table(false).or_else(|| by_table(true)) {
            return Some(r);
        }
        s = sc.parent;
    }
    None
}

fn find_cte(scope: &Scope, name: &str) -> Option<Rc<Vec<Col>>> {
    let mut s = Some(scope);
    while let Some(sc) = s {
        if let Some((_, cols)) = sc.ctes.iter().rev().find(|(n, _)| same(n, name)) {
            return Some(Rc::clone(cols));
        }
        s = sc.parent;
    }
    None
}

fn find_window<'s>(scope: &'s Scope<'s>, name: &str) -> Option<&'s WindowSpec> {
    let mut s = Some(scope);
    while let Some(sc) = s {
        if let Some((_, w)) = sc.windows.iter().find(|(n, _)| same(n, name)) {
            return Some(w);
        }
        s = sc.parent;
    }
    None
}

/// How messages name the tables in scope (the nearest level that has any).
fn scope_labels(scope: &Scope) -> Vec<String> {
    let mut s = Some(scope);
    while let Some(sc) = s {
        if !sc.rels.is_empty() {
            return sc.rels.iter().map(|r| r.label.clone()).collect();
        }
        s = sc.parent;
    }
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_lists_are_sorted_for_binary_search() {
        assert!(AGGREGATES.windows(2).all(|w| w[0] < w[1]));
        assert!(DATE_PARTS.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn composition_keeps_the_strongest_direct_and_any_indirect() {
        assert_eq!(T::compose(T::Identity, T::Aggregation), T::Aggregation);
        assert_eq!(
            T::compose(T::Transformation, T::Identity),
            T::Transformation
        );
        assert_eq!(T::compose(T::Identity, T::Conditional), T::Conditional);
        assert_eq!(T::compose(T::Filter, T::Aggregation), T::Filter);
    }
}
