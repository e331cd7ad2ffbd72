//! The walk over a statement's syntax tree that resolves its columns.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::rc::Rc;

use sqlparser::ast::{
    AccessExpr, Assignment, AssignmentTarget, Distinct, Expr, Function, FunctionArg,
    FunctionArgExpr, FunctionArgumentClause, FunctionArguments, GroupByExpr, GroupByWithModifier,
    Ident, InTarget, Join, JoinConstraint, JoinOperator, MergeAction, MergeInsertKind,
    MergeUpdateKind, NamedWindowDefinition, NamedWindowExpr, ObjectName, ObjectNamePart, OrderBy,
    OrderByKind, Query, Select, SelectItem, SelectItemQualifiedWildcardKind, SetExpr,
    SetQuantifier, Statement, Subscript, TableAliasColumnDef, TableFactor, TableObject,
    TableWithJoins, UpdateTableFromKind, Value, Values, WildcardAdditionalOptions, WindowSpec,
    WindowType,
};

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

    // ----- statements -----

    fn insert(mut self, ins: &sqlparser::ast::Insert, line: usize) -> StatementLineage {
        let root = Scope::default();
        let target = match &ins.table {
            TableObject::TableName(n) => Some(table_name(n, self.dialect)),
            TableObject::TableFunction(f) => Some(table_name(&f.name, self.dialect)),
            TableObject::TableQuery(_) => None,
        };
        let mut cols = match &ins.source {
            Some(q) => self.query(q, &root),
            None => {
                let mut out = Vec::new();
                for a in &ins.assignments {
                    self.assignment(a, &root, &mut out);
                }
                return self.finish(StatementKind::Insert, line, target, out);
            }
        };
        let names: Vec<String> = if !ins.columns.is_empty() {
            ins.columns
                .iter()
                .filter_map(|o| o.0.last().map(|p| self.ident(part_ident(p))))
                .collect()
        } else if let Some(known) = target.as_ref().and_then(|t| self.known.columns(t)) {
            if cols.len() > known.len() {
                self.unresolved(format!(
                    "the INSERT's query gives {} columns but table '{}' has {}",
                    cols.len(),
                    target.as_ref().map(ToString::to_string).unwrap_or_default(),
                    known.len()
                ));
            }
            known.into_iter().take(cols.len()).collect()
        } else {
            Vec::new()
        };
        if !ins.columns.is_empty() {
            self.name_columns(&mut cols, &names, "the INSERT");
        } else {
            for (c, n) in cols.iter_mut().zip(&names) {
                c.name = n.clone();
            }
        }
        self.finish(StatementKind::Insert, line, target, cols)
    }

    /// Registers the target of an UPDATE or MERGE as a relation, without counting it
    /// as read (it is, where its columns are used).
    fn target_rel(&mut self, tf: &TableFactor, scope: &mut Scope) -> Option<TableName> {
        match tf {
            TableFactor::Table { name, alias, .. } => {
                let table = table_name(name, self.dialect);
                let known = self.known.columns(&table);
                scope.rels.push(Rel {
                    alias: alias.as_ref().map(|a| self.ident(&a.name)),
                    label: alias
                        .as_ref()
                        .map_or_else(|| table.to_string(), |a| self.ident(&a.name)),
                    kind: RelKind::Base {
                        table: table.clone(),
                        known,
                    },
                });
                Some(table)
            }
            other => {
                self.table_factor(other, scope);
                None
            }
        }
    }

    fn merge(mut self, m: &sqlparser::ast::Merge, line: usize) -> StatementLineage {
        let root = Scope::default();
        let mut scope = Scope::child(&root);
        let target = self.target_rel(&m.table, &mut scope);
        let target_rels = scope.rels.len();
        self.table_factor(&m.source, &mut scope);
        self.indirect_expr(&m.on, T::Join, &scope, Mode::Plain);
        let mut out: Vec<Col> = Vec::new();
        for clause in &m.clauses {
            if let Some(p) = &clause.predicate {
                self.indirect_expr(p, T::Filter, &scope, Mode::Plain);
            }
            match &clause.action {
                MergeAction::Update(u) => {
                    for p in [&u.update_predicate, &u.delete_predicate]
                        .into_iter()
                        .flatten()
                    {
                        self.indirect_expr(p, T::Filter, &scope, Mode::Plain);
                    }
                    match &u.kind {
                        MergeUpdateKind::Set(assignments) => {
                            for a in assignments {
                                self.assignment(a, &scope, &mut out);
                            }
                        }
                        MergeUpdateKind::Wildcard => self.merge_star(&scope, target_rels, &mut out),
                    }
                }
                MergeAction::Insert(ins) => {
                    if let Some(p) = &ins.insert_predicate {
                        self.indirect_expr(p, T::Filter, &scope, Mode::Plain);
                    }
                    match &ins.kind {
                        MergeInsertKind::Values(v) => {
                            let names: Vec<String> = if !ins.columns.is_empty() {
                                ins.columns
                                    .iter()
                                    .filter_map(|o| o.0.last().map(|p| self.ident(part_ident(p))))
                                    .collect()
                            } else {
                                target
                                    .as_ref()
                                    .and_then(|t| self.known.columns(t))
                                    .unwrap_or_default()
                            };
                            let values = self.values(v, &scope);
                            if names.len() < values.len() {
                                self.unresolved(format!(
                                    "the MERGE's INSERT gives {} values for {} named columns",
                                    values.len(),
                                    names.len()
                                ));
                            }
                            for (name, c) in names.iter().zip(values) {
                                add_col(&mut out, name, c.deps, c.complete);
                            }
                        }
                        MergeInsertKind::Row | MergeInsertKind::Wildcard => {
                            self.merge_star(&scope, target_rels, &mut out)
                        }
                    }
                }
                MergeAction::Delete { .. } | MergeAction::DoNothing { .. } => {}
            }
        }
        self.finish(StatementKind::Merge, line, target, out)
    }

    /// `UPDATE *` / `INSERT *` of a MERGE: every source column to the same-named target one.
    fn merge_star(&mut self, scope: &Scope, target_rels: usize, out: &mut Vec<Col>) {
        let mut cols = Vec::new();
        for rel in scope.rels.iter().skip(target_rels) {
            cols.extend(self.expand(rel, None, scope));
        }
        for c in cols {
            add_col(out, &c.name, c.deps, c.complete);
        }
    }

    fn update(mut self, u: &sqlparser::ast::Update, line: usize) -> StatementLineage {
        let root = Scope::default();
        let mut scope = Scope::child(&root);
        let target = self.target_rel(&u.table.relation, &mut scope);
        self.joins(&u.table.joins, &mut scope);
        if let Some(from) = &u.from {
            let (UpdateTableFromKind::BeforeSet(v) | UpdateTableFromKind::AfterSet(v)) = from;
            for twj in v {
                self.table_with_joins(twj, &mut scope);
            }
        }
        if let Some(w) = &u.selection {
            self.indirect_expr(w, T::Filter, &scope, Mode::Plain);
        }
        let mut out = Vec::new();
        for a in &u.assignments {
            self.assignment(a, &scope, &mut out);
        }
        self.finish(StatementKind::Update, line, target, out)
    }

    /// `SET col = expr` (or `(a, b) = (x, y)` / `= (SELECT ...)`).
    fn assignment(&mut self, a: &Assignment, scope: &Scope, out: &mut Vec<Col>) {
        let name_of = |o: &ObjectName| o.0.last().map(|p| self.ident(part_ident(p)));
        match &a.target {
            AssignmentTarget::ColumnName(o) => {
                let Some(name) = name_of(o) else { return };
                let mut acc = Acc::default();
                self.expr(&a.value, T::Identity, scope, Mode::Plain, &mut acc);
                add_col(out, &name, acc.deps, !acc.incomplete);
            }
            AssignmentTarget::Tuple(targets) => {
                let names: Vec<String> = targets.iter().filter_map(name_of).collect();
                let values: Vec<Col> = match &a.value {
                    Expr::Tuple(v) => v
                        .iter()
                        .map(|e| {
                            let mut acc = Acc::default();
                            self.expr(e, T::Identity, scope, Mode::Plain, &mut acc);
                            Col {
                                name: String::new(),
                                deps: acc.deps,
                                complete: !acc.incomplete,
                            }
                        })
                        .collect(),
                    Expr::Subquery(q) => self.query(q, scope),
                    other => {
                        let mut acc = Acc::default();
                        self.expr(other, T::Identity, scope, Mode::Plain, &mut acc);
                        vec![
                            Col {
                                name: String::new(),
                                deps: acc.deps,
                                complete: !acc.incomplete,
                            };
                            names.len()
                        ]
                    }
                };
                for (n, c) in names.iter().zip(values) {
                    add_col(out, n, c.deps, c.complete);
                }
            }
        }
    }

    // ----- queries -----

    fn query(&mut self, q: &Query, parent: &Scope) -> Vec<Col> {
        if self.depth >= MAX_DEPTH {
            self.too_deep(None);
            return Vec::new();
        }
        self.depth += 1;
        let mut scope = Scope::child(parent);
        if let Some(with) = &q.with {
            for cte in &with.cte_tables {
                let name = self.ident(&cte.alias.name);
                let cols = match (with.recursive, cte.query.body.as_ref(), &cte.query.with) {
                    (
                        true,
                        SetExpr::SetOperation {
                            left,
                            right,
                            set_quantifier,
                            ..
                        },
                        None,
                    ) => {
                        // The seed first; then the recursive branch, which sees the seed.
                        let mut seed = self.set_expr(left, &scope, None);
                        rename(self.dialect, &mut seed, &cte.alias.columns);
                        scope.ctes.push((name.clone(), Rc::new(seed.clone())));
                        let rest = self.set_expr(right, &scope, None);
                        scope.ctes.pop();
                        combine(&mut seed, rest, is_by_name(*set_quantifier));
                        seed
                    }
                    _ => self.query(&cte.query, &scope),
                };
                let mut cols = cols;
                rename(self.dialect, &mut cols, &cte.alias.columns);
                scope.ctes.push((name, Rc::new(cols)));
            }
        }
        let cols = self.set_expr(&q.body, &scope, q.order_by.as_ref());
        self.depth -= 1;
        cols
    }

    fn set_expr(&mut self, body: &SetExpr, scope: &Scope, order_by: Option<&OrderBy>) -> Vec<Col> {
        let cols = match body {
            SetExpr::Select(s) => return self.select(s, scope, order_by),
            SetExpr::Query(q) => self.query(q, scope),
            SetExpr::SetOperation { .. } => {
                // Flattened without recursion: a chain of UNIONs is as deep as it is long.
                let mut leaves = Vec::new();
                let mut by_name = false;
                let mut stack = vec![body];
                while let Some(x) = stack.pop() {
                    match x {
                        SetExpr::SetOperation {
                            left,
                            right,
                            set_quantifier,
                            ..
                        } => {
                            by_name |= is_by_name(*set_quantifier);
                            stack.push(right);
                            stack.push(left);
                        }
                        leaf => leaves.push(leaf),
                    }
                }
                let mut out: Option<Vec<Col>> = None;
                for leaf in leaves {
                    let cols = self.set_expr(leaf, scope, None);
                    match &mut out {
                        None => out = Some(cols),
                        Some(o) => combine(o, cols, by_name),
                    }
                }
                out.unwrap_or_default()
            }
            SetExpr::Values(v) => self.values(v, scope),
            SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Merge(_) => {
                self.unresolved(
                    "a data-modifying statement inside a query is not traced".to_string(),
                );
                Vec::new()
            }
            SetExpr::Table(t) => {
                let parts: Vec<String> = [&t.schema_name, &t.table_name]
                    .into_iter()
                    .flatten()
                    .map(|i| self.ident(i))
                    .collect();
                if parts.is_empty() {
                    return Vec::new();
                }
                let table = TableName(parts);
                self.tables.insert(table.clone());
                let rel = Rel {
                    alias: None,
                    label: table.to_string(),
                    kind: RelKind::Base {
                        known: self.known.columns(&table),
                        table,
                    },
                };
                self.expand(&rel, None, scope)
            }
        };
        if let Some(ob) = order_by {
            // ORDER BY of a set operation or a parenthesized query: by output column.
            let mut s = Scope::child(scope);
            s.aliases = cols.clone();
            self.order_by(ob, &s);
        }
        cols
    }

    fn values(&mut self, v: &Values, scope: &Scope) -> Vec<Col> {
        let width = v.rows.iter().map(|r| r.len()).max().unwrap_or(0);
        let mut cols: Vec<Col> = (0..width)
            .map(|i| Col {
                name: format!("column{}", i + 1),
                deps: Deps::new(),
                complete: true,
            })
            .collect();
        for row in &v.rows {
            for (c, e) in cols.iter_mut().zip(row.iter()) {
                if matches!(e, Expr::Value(_)) {
                    continue;
                }
                let mut acc = Acc::default();
                self.expr(e, T::Identity, scope, Mode::Plain, &mut acc);
                c.deps.extend(acc.deps);
                c.complete &= !acc.incomplete;
            }
        }
        cols
    }

    fn order_by(&mut self, ob: &OrderBy, scope: &Scope) {
        match &ob.kind {
            OrderByKind::All(_) => {
                let deps: Vec<Deps> = scope.aliases.iter().map(|c| c.deps.clone()).collect();
                for d in deps {
                    self.indirect_deps(&d, T::Sort);
                }
            }
            OrderByKind::Expressions(exprs) => {
                for o in exprs {
                    self.by_item(&o.expr, T::Sort, scope, Mode::AliasFirst);
                }
            }
        }
    }

    /// A GROUP BY or ORDER BY item: an ordinal names an output column.
    fn by_item(&mut self, e: &Expr, kind: T, scope: &Scope, mode: Mode) {
        if let Some(n) = as_ordinal(e) {
            match n.checked_sub(1).and_then(|i| scope.aliases.get(i)) {
                Some(c) => {
                    let d = c.deps.clone();
                    self.indirect_deps(&d, kind);
                }
                None => self.unresolved(format!("position {n} is not an output column")),
            }
            return;
        }
        self.indirect_expr(e, kind, scope, mode);
    }

    fn indirect_deps(&mut self, deps: &Deps, kind: T) {
        for d in deps {
            self.indirect.insert(SourceColumn {
                table: d.table.clone(),
                column: d.column.clone(),
                transformation: kind,
            });
        }
    }

    fn indirect_expr(&mut self, e: &Expr, kind: T, scope: &Scope, mode: Mode) {
        let mut acc = Acc::default();
        self.expr(e, kind, scope, mode, &mut acc);
        self.indirect.extend(acc.deps);
    }

    fn select(&mut self, s: &Select, parent: &Scope, order_by: Option<&OrderBy>) -> Vec<Col> {
        let mut scope = Scope::child(parent);
        for twj in &s.from {
            self.table_with_joins(twj, &mut scope);
        }
        for NamedWindowDefinition(name, w) in &s.named_window {
            let spec = match w {
                NamedWindowExpr::WindowSpec(spec) => Some(spec.clone()),
                NamedWindowExpr::NamedWindow(other) => {
                    find_window(&scope, &self.ident(other)).cloned()
                }
            };
            if let Some(spec) = spec {
                scope.windows.push((self.ident(name), spec));
            }
        }
        for item in &s.projection {
            let cols = self.select_item(item, &scope);
            scope.aliases.extend(cols);
        }
        for e in [&s.prewhere, &s.selection].into_iter().flatten() {
            self.indirect_expr(e, T::Filter, &scope, Mode::AliasAfter);
        }
        match &s.group_by {
            GroupByExpr::Expressions(exprs, modifiers) => {
                for e in exprs {
                    self.by_item(e, T::GroupBy, &scope, Mode::AliasAfter);
                }
                for m in modifiers {
                    if let GroupByWithModifier::GroupingSets(e) = m {
                        self.indirect_expr(e, T::GroupBy, &scope, Mode::AliasAfter);
                    }
                }
            }
            GroupByExpr::All(_) => {
                // GROUP BY ALL: by every output column that is not an aggregate.
                let deps: Vec<Deps> = scope
                    .aliases
                    .iter()
                    .filter(|c| !c.deps.iter().any(|d| d.transformation == T::Aggregation))
                    .map(|c| c.deps.clone())
                    .collect();
                for d in deps {
                    let direct: Deps = d
                        .into_iter()
                        .filter(|x| !x.transformation.is_indirect())
                        .collect();
                    self.indirect_deps(&direct, T::GroupBy);
                }
            }
        }
        for e in [&s.having, &s.qualify].into_iter().flatten() {
            self.indirect_expr(e, T::Filter, &scope, Mode::AliasAfter);
        }
        if let Some(Distinct::On(exprs)) = &s.distinct {
            for e in exprs {
                self.by_item(e, T::GroupBy, &scope, Mode::AliasFirst);
            }
        }
        for e in s.cluster_by.iter().chain(&s.distribute_by) {
            self.indirect_expr(e, T::Sort, &scope, Mode::AliasFirst);
        }
        for o in &s.sort_by {
            self.by_item(&o.expr, T::Sort, &scope, Mode::AliasFirst);
        }
        if let Some(ob) = order_by {
            self.order_by(ob, &scope);
        }
        std::mem::take(&mut scope.aliases)
    }

    fn select_item(&mut self, item: &SelectItem, scope: &Scope) -> Vec<Col> {
        match item {
            SelectItem::UnnamedExpr(e) => {
                let (deps, complete) = self.value_expr(e, scope);
                let name = match e {
                    Expr::Identifier(i) => self.ident(i),
                    Expr::CompoundIdentifier(ids) => {
                        ids.last().map(|i| self.ident(i)).unwrap_or_default()
                    }
                    other => other.to_string(),
                };
                vec![Col {
                    name,
                    deps,
                    complete,
                }]
            }
            SelectItem::ExprWithAlias { expr, alias } => {
                let (deps, complete) = self.value_expr(expr, scope);
                vec![Col {
                    name: self.ident(alias),
                    deps,
                    complete,
                }]
            }
            SelectItem::ExprWithAliases { expr, aliases } => {
                let (deps, complete) = self.value_expr(expr, scope);
                aliases
                    .iter()
                    .map(|a| Col {
                        name: self.ident(a),
                        deps: deps.clone(),
                        complete,
                    })
                    .collect()
            }
            SelectItem::QualifiedWildcard(kind, opts) => match kind {
                SelectItemQualifiedWildcardKind::ObjectName(o) => {
                    let parts: Vec<String> =
                        o.0.iter().map(|p| self.ident(part_ident(p))).collect();
                    match find_rel(scope, &parts) {
                        Some(rel) => self.expand(rel, Some(opts), scope),
                        None => {
                            self.unresolved(format!(
                                "'{}.*' names no table of the FROM clause",
                                parts.join(".")
                            ));
                            Vec::new()
                        }
                    }
                }
                SelectItemQualifiedWildcardKind::Expr(e) => {
                    self.unresolved(format!("the columns of '{e}.*' are not traced"));
                    Vec::new()
                }
            },
            SelectItem::Wildcard(opts) => {
                let mut out = Vec::new();
                for rel in &scope.rels {
                    out.extend(self.expand(rel, Some(opts), scope));
                }
                out
            }
        }
    }

    fn value_expr(&mut self, e: &Expr, scope: &Scope) -> (Deps, bool) {
        let mut acc = Acc::default();
        self.expr(e, T::Identity, scope, Mode::AliasAfter, &mut acc);
        (acc.deps, !acc.incomplete)
    }

    /// The columns `*` stands for in one relation.
    fn expand(
        &mut self,
        rel: &Rel,
        opts: Option<&WildcardAdditionalOptions>,
        scope: &Scope,
    ) -> Vec<Col> {
        let mut cols: Vec<Col> = match &rel.kind {
            RelKind::Base {
                table,
                known: Some(known),
            } => known
                .iter()
                .map(|n| Col {
                    name: n.clone(),
                    deps: single(table, n),
                    complete: true,
                })
                .collect(),
            RelKind::Base { table, known: None } => {
                self.unresolved(format!(
                    "'*' of table '{table}' whose columns are not known"
                ));
                return Vec::new();
            }
            RelKind::Derived(cols) => cols.as_ref().clone(),
            RelKind::Opaque { .. } => {
                self.unresolved(format!(
                    "'*' of '{}' whose columns are not known",
                    rel.label
                ));
                return Vec::new();
            }
        };
        let Some(opts) = opts else { return cols };
        let mut excluded: Vec<String> = Vec::new();
        if let Some(ex) = &opts.opt_exclude {
            let names: Vec<&ObjectName> = match ex {
                sqlparser::ast::ExcludeSelectItem::Single(o) => vec![o],
                sqlparser::ast::ExcludeSelectItem::Multiple(v) => v.iter().collect(),
            };
            excluded.extend(
                names
                    .into_iter()
                    .filter_map(|o| o.0.last().map(|p| self.ident(part_ident(p)))),
            );
        }
        if let Some(ex) = &opts.opt_except {
            excluded.push(self.ident(&ex.first_element));
            excluded.extend(ex.additional_elements.iter().map(|i| self.ident(i)));
        }
        cols.retain(|c| !excluded.iter().any(|x| same(x, &c.name)));
        if let Some(rep) = &opts.opt_replace {
            for item in &rep.items {
                let name = self.ident(&item.column_name);
                let (deps, complete) = self.value_expr(&item.expr, scope);
                if let Some(c) = cols.iter_mut().find(|c| same(&c.name, &name)) {
                    c.deps = deps;
                    c.complete = complete;
                }
            }
        }
        if let Some(ren) = &opts.opt_rename {
            let pairs: Vec<&sqlparser::ast::IdentWithAlias> = match ren {
                sqlparser::ast::RenameSelectItem::Single(p) => vec![p],
                sqlparser::ast::RenameSelectItem::Multiple(v) => v.iter().collect(),
            };
            for p in pairs {
                let from = self.ident(&p.ident);
                if let Some(c) = cols.iter_mut().find(|c| same(&c.name, &from)) {
                    c.name = self.dialect.ident(&p.alias);
                }
            }
        }
        cols
    }

    // ----- FROM -----

    fn table_with_joins(&mut self, twj: &TableWithJoins, scope: &mut Scope) {
        self.table_factor(&twj.relation, scope);
        self.joins(&twj.joins, scope);
    }

    fn joins(&mut self, joins: &[Join], scope: &mut Scope) {
        for j in joins {
            self.table_factor(&j.relation, scope);
            let constraint = match &j.join_operator {
                JoinOperator::Join(c)
                | JoinOperator::Inner(c)
                | JoinOperator::Left(c)
                | JoinOperator::LeftOuter(c)
                | JoinOperator::Right(c)
                | JoinOperator::RightOuter(c)
                | JoinOperator::FullOuter(c)
                | JoinOperator::CrossJoin(c)
                | JoinOperator::Semi(c)
                | JoinOperator::LeftSemi(c)
                | JoinOperator::RightSemi(c)
                | JoinOperator::Anti(c)
                | JoinOperator::LeftAnti(c)
                | JoinOperator::RightAnti(c)
                | JoinOperator::StraightJoin(c) => Some(c),
                JoinOperator::AsOf {
                    match_condition,
                    constraint,
                } => {
                    self.indirect_expr(match_condition, T::Join, scope, Mode::Plain);
                    Some(constraint)
                }
                JoinOperator::CrossApply
                | JoinOperator::OuterApply
                | JoinOperator::ArrayJoin
                | JoinOperator::LeftArrayJoin
                | JoinOperator::InnerArrayJoin => None,
            };
            match constraint {
                Some(JoinConstraint::On(e)) => self.indirect_expr(e, T::Join, scope, Mode::Plain),
                Some(JoinConstraint::Using(names) | JoinConstraint::UsingAlias(names, _)) => {
                    let names: Vec<String> = names
                        .iter()
                        .filter_map(|o| o.0.last().map(|p| self.ident(part_ident(p))))
                        .collect();
                    self.using(&names, scope);
                }
                Some(JoinConstraint::Natural) => {
                    // The columns both sides have, where both sides' columns are known.
                    let Some((right, left)) = scope.rels.split_last() else {
                        continue;
                    };
                    let right_cols = known_names(right);
                    let left_cols: Vec<String> = left.iter().flat_map(known_names).collect();
                    let common: Vec<String> = right_cols
                        .into_iter()
                        .filter(|c| left_cols.iter().any(|l| same(l, c)))
                        .collect();
                    self.using(&common, scope);
                }
                Some(JoinConstraint::None) | None => {}
            }
        }
    }

    /// `JOIN ... USING (cols)`: each column of the right relation and of the left side.
    fn using(&mut self, names: &[String], scope: &mut Scope) {
        for name in names {
            let Some((right, left)) = scope.rels.split_last() else {
                return;
            };
            let mut deps = Deps::new();
            match lookup_rel(right, name) {
                Lookup::Definite(d, _) | Lookup::Maybe(d, None) => deps.extend(d),
                _ => {}
            }
            let mut definite = false;
            let mut maybe = Vec::new();
            for rel in left {
                match lookup_rel(rel, name) {
                    Lookup::Definite(d, _) => {
                        definite = true;
                        deps.extend(d);
                    }
                    Lookup::Maybe(d, None) => maybe.push(d),
                    _ => {}
                }
            }
            if !definite && maybe.len() == 1 {
                deps.extend(maybe.into_iter().flatten());
            }
            self.indirect_deps(&deps, T::Join);
            scope.using.push(name.clone());
        }
    }

    fn table_factor(&mut self, tf: &TableFactor, scope: &mut Scope) {
        match tf {
            TableFactor::Table {
                name, alias, args, ..
            } => {
                let table = table_name(name, self.dialect);
                let alias_name = alias.as_ref().map(|a| self.ident(&a.name));
                let alias_cols: &[TableAliasColumnDef] =
                    alias.as_ref().map_or(&[], |a| a.columns.as_slice());
                if let Some(args) = args {
                    // A table-valued function.
                    let mut acc = Acc::default();
                    for a in &args.args {
                        self.function_arg(a, T::Transformation, scope, Mode::Plain, &mut acc);
                    }
                    let label = alias_name
                        .clone()
                        .unwrap_or_else(|| table.0.last().cloned().unwrap_or_default());
                    self.push_opaque(scope, Some(label), acc.deps, alias_cols);
                    return;
                }
                if let [only] = table.0.as_slice()
                    && let Some(cols) = find_cte(scope, only)
                {
                    let cols = if alias_cols.is_empty() {
                        cols
                    } else {
                        let mut c = cols.as_ref().clone();
                        rename(self.dialect, &mut c, alias_cols);
                        Rc::new(c)
                    };
                    let alias = alias_name.unwrap_or_else(|| only.clone());
                    scope.rels.push(Rel {
                        label: alias.clone(),
                        alias: Some(alias),
                        kind: RelKind::Derived(cols),
                    });
                    return;
                }
                self.tables.insert(table.clone());
                let known = self.known.columns(&table);
                let label = alias_name.clone().unwrap_or_else(|| table.to_string());
                if !alias_cols.is_empty() {
                    // `FROM t AS x (a, b)` renames t's columns.
                    let mut cols: Vec<Col> = match &known {
                        Some(k) => k
                            .iter()
                            .map(|n| Col {
                                name: n.clone(),
                                deps: single(&table, n),
                                complete: true,
                            })
                            .collect(),
                        None => {
                            self.unresolved(format!(
                                "the columns of table '{table}', renamed by its alias, are not known"
                            ));
                            alias_cols
                                .iter()
                                .map(|_| Col {
                                    name: String::new(),
                                    deps: Deps::new(),
                                    complete: false,
                                })
                                .collect()
                        }
                    };
                    rename(self.dialect, &mut cols, alias_cols);
                    scope.rels.push(Rel {
                        alias: Some(label.clone()),
                        label,
                        kind: RelKind::Derived(Rc::new(cols)),
                    });
                    return;
                }
                scope.rels.push(Rel {
                    alias: alias_name,
                    label,
                    kind: RelKind::Base { table, known },
                });
            }
            TableFactor::Derived {
                subquery, alias, ..
            } => {
                let mut cols = self.query(subquery, scope);
                let alias_name = alias.as_ref().map(|a| self.ident(&a.name));
                if let Some(a) = alias {
                    rename(self.dialect, &mut cols, &a.columns);
                }
                scope.rels.push(Rel {
                    label: alias_name.clone().unwrap_or_else(|| "subquery".to_string()),
                    alias: alias_name,
                    kind: RelKind::Derived(Rc::new(cols)),
                });
            }
            TableFactor::TableFunction { expr, alias } => {
                let mut acc = Acc::default();
                self.expr(expr, T::Transformation, scope, Mode::Plain, &mut acc);
                let label = alias.as_ref().map(|a| self.ident(&a.name));
                let cols = alias.as_ref().map_or(&[][..], |a| a.columns.as_slice());
                self.push_opaque(scope, label, acc.deps, cols);
            }
            TableFactor::Function {
                name, args, alias, ..
            } => {
                let mut acc = Acc::default();
                for a in args {
                    self.function_arg(a, T::Transformation, scope, Mode::Plain, &mut acc);
                }
                let label = alias
                    .as_ref()
                    .map(|a| self.ident(&a.name))
                    .or_else(|| name.0.last().map(|p| self.ident(part_ident(p))));
                let cols = alias.as_ref().map_or(&[][..], |a| a.columns.as_slice());
                self.push_opaque(scope, label, acc.deps, cols);
            }
            TableFactor::UNNEST {
                alias, array_exprs, ..
            } => {
                let mut acc = Acc::default();
                for e in array_exprs {
                    self.expr(e, T::Transformation, scope, Mode::Plain, &mut acc);
                }
                let label = alias
                    .as_ref()
                    .map(|a| self.ident(&a.name))
                    .or_else(|| Some("unnest".to_string()));
                let cols = alias.as_ref().map_or(&[][..], |a| a.columns.as_slice());
                self.push_opaque(scope, label, acc.deps, cols);
            }
            TableFactor::JsonTable {
                json_expr, alias, ..
            }
            | TableFactor::OpenJsonTable {
                json_expr, alias, ..
            } => {
                let mut acc = Acc::default();
                self.expr(json_expr, T::Transformation, scope, Mode::Plain, &mut acc);
                let label = alias.as_ref().map(|a| self.ident(&a.name));
                let cols = alias.as_ref().map_or(&[][..], |a| a.columns.as_slice());
                self.push_opaque(scope, label, acc.deps, cols);
            }
            TableFactor::XmlTable {
                row_expression,
                alias,
                ..
            } => {
                let mut acc = Acc::default();
                self.expr(
                    row_expression,
                    T::Transformation,
                    scope,
                    Mode::Plain,
                    &mut acc,
                );
                let label = alias.as_ref().map(|a| self.ident(&a.name));
                let cols = alias.as_ref().map_or(&[][..], |a| a.columns.as_slice());
                self.push_opaque(scope, label, acc.deps, cols);
            }
            TableFactor::NestedJoin {
                table_with_joins, ..
            } => self.table_with_joins(table_with_joins, scope),
            TableFactor::Pivot { table, alias, .. }
            | TableFactor::Unpivot { table, alias, .. }
            | TableFactor::MatchRecognize { table, alias, .. } => {
                let what = match tf {
                    TableFactor::Pivot { .. } => "PIVOT",
                    TableFactor::Unpivot { .. } => "UNPIVOT",
                    _ => "MATCH_RECOGNIZE",
                };
                let before = scope.rels.len();
                self.table_factor(table, scope);
                scope.rels.truncate(before);
                let label = alias
                    .as_ref()
                    .map(|a| self.ident(&a.name))
                    .unwrap_or_else(|| what.to_lowercase());
                scope.rels.push(Rel {
                    alias: Some(label.clone()),
                    label: label.clone(),
                    kind: RelKind::Opaque {
                        deps: Deps::new(),
                        note: Some(format!("the columns of {what} '{label}' are not traced")),
                    },
                });
            }
            TableFactor::SemanticView { name, alias, .. } => {
                let table = table_name(name, self.dialect);
                self.tables.insert(table.clone());
                let label = alias
                    .as_ref()
                    .map(|a| self.ident(&a.name))
                    .unwrap_or_else(|| table.to_string());
                scope.rels.push(Rel {
                    alias: Some(label.clone()),
                    label: label.clone(),
                    kind: RelKind::Opaque {
                        deps: Deps::new(),
                        note: Some(format!(
                            "the columns of semantic view '{label}' are not traced"
                        )),
                    },
                });
            }
            TableFactor::UnpivotExpr { .. } => {
                self.unresolved("an UNPIVOT expression is not traced".to_string());
            }
        }
    }

    /// A relation whose columns are computed from `deps` (a table function, UNNEST...);
    /// with alias columns, exactly those.
    fn push_opaque(
        &mut self,
        scope: &mut Scope,
        label: Option<String>,
        deps: Deps,
        alias_cols: &[TableAliasColumnDef],
    ) {
        let mut composed = Acc::default();
        composed.add(&deps, T::Transformation);
        let kind = if alias_cols.is_empty() {
            RelKind::Opaque {
                deps: composed.deps,
                note: None,
            }
        } else {
            RelKind::Derived(Rc::new(
                alias_cols
                    .iter()
                    .map(|c| Col {
                        name: self.ident(&c.name),
                        deps: composed.deps.clone(),
                        complete: true,
                    })
                    .collect(),
            ))
        };
        scope.rels.push(Rel {
            alias: label.clone(),
            label: label.unwrap_or_else(|| "function".to_string()),
            kind,
        });
    }

    // ----- expressions -----

    fn expr(&mut self, e: &Expr, ctx: T, scope: &Scope, mode: Mode, acc: &mut Acc) {
        if self.depth >= MAX_DEPTH {
            self.too_deep(Some(acc));
            return;
        }
        self.depth += 1;
        self.expr_inner(e, ctx, scope, mode, acc);
        self.depth -= 1;
    }

    fn expr_inner(&mut self, e: &Expr, ctx: T, scope: &Scope, mode: Mode, acc: &mut Acc) {
        let tr = T::compose(ctx, T::Transformation);
        match e {
            Expr::Identifier(i) => {
                let name = self.ident(i);
                self.column(&[name], ctx, scope, mode, acc);
            }
            Expr::CompoundIdentifier(ids) => {
                let parts: Vec<String> = ids.iter().map(|i| self.ident(i)).collect();
                self.column(&parts, ctx, scope, mode, acc);
            }
            Expr::CompoundFieldAccess { root, access_chain } => {
                self.expr(root, tr, scope, mode, acc);
                for a in access_chain {
                    if let AccessExpr::Subscript(s) = a {
                        self.subscript(s, tr, scope, mode, acc);
                    }
                }
            }
            Expr::JsonAccess { value, .. } => self.expr(value, tr, scope, mode, acc),
            Expr::IsFalse(x)
            | Expr::IsNotFalse(x)
            | Expr::IsTrue(x)
            | Expr::IsNotTrue(x)
            | Expr::IsNull(x)
            | Expr::IsNotNull(x)
            | Expr::IsUnknown(x)
            | Expr::IsNotUnknown(x)
            | Expr::UnaryOp { expr: x, .. }
            | Expr::Cast { expr: x, .. }
            | Expr::Convert { expr: x, .. }
            | Expr::Extract { expr: x, .. }
            | Expr::Ceil { expr: x, .. }
            | Expr::Floor { expr: x, .. }
            | Expr::Collate { expr: x, .. }
            | Expr::IsJson { expr: x, .. }
            | Expr::IsNormalized { expr: x, .. }
            | Expr::Named { expr: x, .. } => self.expr(x, tr, scope, mode, acc),
            Expr::IsDistinctFrom(a, b)
            | Expr::IsNotDistinctFrom(a, b)
            | Expr::AtTimeZone {
                timestamp: a,
                time_zone: b,
            }
            | Expr::Position { expr: a, r#in: b }
            | Expr::Like {
                expr: a,
                pattern: b,
                ..
            }
            | Expr::ILike {
                expr: a,
                pattern: b,
                ..
            }
            | Expr::SimilarTo {
                expr: a,
                pattern: b,
                ..
            }
            | Expr::RLike {
                expr: a,
                pattern: b,
                ..
            }
            | Expr::AnyOp {
                left: a, right: b, ..
            }
            | Expr::AllOp {
                left: a, right: b, ..
            } => {
                self.expr(a, tr, scope, mode, acc);
                self.expr(b, tr, scope, mode, acc);
            }
            Expr::MemberOf(m) => {
                self.expr(&m.value, tr, scope, mode, acc);
                self.expr(&m.array, tr, scope, mode, acc);
            }
            Expr::In { expr, target, .. } => {
                self.expr(expr, tr, scope, mode, acc);
                match target {
                    InTarget::List(list) => {
                        for x in list {
                            self.expr(x, tr, scope, mode, acc);
                        }
                    }
                    InTarget::Subquery(q) => self.subquery_value(q, tr, scope, acc),
                    InTarget::Unnest(x) => self.expr(x, tr, scope, mode, acc),
                    InTarget::Table { name, .. } => {
                        self.tables.insert(table_name(name, self.dialect));
                    }
                }
            }
            Expr::Between {
                expr, low, high, ..
            } => {
                for x in [expr, low, high] {
                    self.expr(x, tr, scope, mode, acc);
                }
            }
            Expr::BinaryOp { .. } => {
                // Iteratively: a chain `a + b + c ...` is as deep as it is long.
                let mut stack = vec![e];
                while let Some(x) = stack.pop() {
                    match x {
                        Expr::BinaryOp { left, right, .. } => {
                            stack.push(right);
                            stack.push(left);
                        }
                        other => self.expr(other, tr, scope, mode, acc),
                    }
                }
            }
            Expr::Substring {
                expr,
                substring_from,
                substring_for,
                ..
            } => {
                self.expr(expr, tr, scope, mode, acc);
                for x in [substring_from, substring_for].into_iter().flatten() {
                    self.expr(x, tr, scope, mode, acc);
                }
            }
            Expr::Trim {
                expr,
                trim_what,
                trim_characters,
                ..
            } => {
                self.expr(expr, tr, scope, mode, acc);
                if let Some(x) = trim_what {
                    self.expr(x, tr, scope, mode, acc);
                }
                for x in trim_characters.iter().flatten() {
                    self.expr(x, tr, scope, mode, acc);
                }
            }
            Expr::Overlay {
                expr,
                overlay_what,
                overlay_from,
                overlay_for,
            } => {
                for x in [expr, overlay_what, overlay_from] {
                    self.expr(x, tr, scope, mode, acc);
                }
                if let Some(x) = overlay_for {
                    self.expr(x, tr, scope, mode, acc);
                }
            }
            Expr::Nested(x) | Expr::OuterJoin(x) | Expr::Prior(x) => {
                self.expr(x, ctx, scope, mode, acc)
            }
            Expr::Prefixed { value, .. } => self.expr(value, ctx, scope, mode, acc),
            Expr::Value(_) | Expr::TypedString(_) => {}
            Expr::Function(f) => self.function(f, ctx, scope, mode, acc),
            Expr::Case {
                operand,
                conditions,
                else_result,
                ..
            } => {
                let cond = T::compose(ctx, T::Conditional);
                if let Some(o) = operand {
                    self.expr(o, cond, scope, mode, acc);
                }
                for w in conditions {
                    self.expr(&w.condition, cond, scope, mode, acc);
                    self.expr(&w.result, tr, scope, mode, acc);
                }
                if let Some(x) = else_result {
                    self.expr(x, tr, scope, mode, acc);
                }
            }
            Expr::Exists { subquery, .. } => {
                // The rows it finds decide the value; its own filters are indirect sources.
                let _ = self.query(subquery, scope);
            }
            Expr::Subquery(q) => self.subquery_value(q, ctx, scope, acc),
            Expr::GroupingSets(sets) | Expr::Cube(sets) | Expr::Rollup(sets) => {
                for x in sets.iter().flatten() {
                    self.expr(x, ctx, scope, mode, acc);
                }
            }
            Expr::Tuple(v) | Expr::Struct { values: v, .. } => {
                for x in v {
                    self.expr(x, tr, scope, mode, acc);
                }
            }
            Expr::Array(a) => {
                for x in &a.elem {
                    self.expr(x, tr, scope, mode, acc);
                }
            }
            Expr::Dictionary(fields) => {
                for f in fields {
                    self.expr(&f.value, tr, scope, mode, acc);
                }
            }
            Expr::Map(m) => {
                for entry in &m.entries {
                    self.expr(&entry.key, tr, scope, mode, acc);
                    self.expr(&entry.value, tr, scope, mode, acc);
                }
            }
            Expr::Interval(iv) => self.expr(&iv.value, tr, scope, mode, acc),
            Expr::MatchAgainst { columns, .. } => {
                for c in columns {
                    let parts: Vec<String> =
                        c.0.iter().map(|p| self.ident(part_ident(p))).collect();
                    self.column(&parts, tr, scope, mode, acc);
                }
            }
            Expr::Wildcard(_) | Expr::QualifiedWildcard(..) => {}
            Expr::Lambda(l) => {
                let before = self.lambda.len();
                for p in l.params.iter() {
                    let name = self.ident(&p.name);
                    self.lambda.push(name);
                }
                self.expr(&l.body, tr, scope, mode, acc);
                self.lambda.truncate(before);
            }
        }
    }

    fn subscript(&mut self, s: &Subscript, ctx: T, scope: &Scope, mode: Mode, acc: &mut Acc) {
        match s {
            Subscript::Index { index } => self.expr(index, ctx, scope, mode, acc),
            Subscript::Slice {
                lower_bound,
                upper_bound,
                stride,
            } => {
                for x in [lower_bound, upper_bound, stride].into_iter().flatten() {
                    self.expr(x, ctx, scope, mode, acc);
                }
            }
        }
    }

    /// A subquery used as a value: its output columns, as used in `ctx`.
    fn subquery_value(&mut self, q: &Query, ctx: T, scope: &Scope, acc: &mut Acc) {
        for c in self.query(q, scope) {
            acc.add(&c.deps, ctx);
            if !c.complete {
                acc.incomplete = true;
            }
        }
    }

    fn function(&mut self, f: &Function, ctx: T, scope: &Scope, mode: Mode, acc: &mut Acc) {
        let name = f
            .name
            .0
            .last()
            .map(|p| part_ident(p).value.to_lowercase())
            .unwrap_or_default();
        let distinct =
            matches!(&f.args, FunctionArguments::List(l) if l.duplicate_treatment.is_some());
        let aggregate = AGGREGATES.binary_search(&name.as_str()).is_ok()
            || !f.within_group.is_empty()
            || f.filter.is_some()
            || distinct;
        let arg_ctx = T::compose(
            ctx,
            if aggregate {
                T::Aggregation
            } else {
                T::Transformation
            },
        );
        for args in [&f.parameters, &f.args] {
            match args {
                FunctionArguments::None => {}
                FunctionArguments::Subquery(q) => self.subquery_value(q, arg_ctx, scope, acc),
                FunctionArguments::List(list) => {
                    for a in &list.args {
                        let arg = match a {
                            FunctionArg::Named { arg, .. }
                            | FunctionArg::ExprNamed { arg, .. }
                            | FunctionArg::Unnamed(arg) => arg,
                        };
                        match arg {
                            FunctionArgExpr::QualifiedWildcard(o) if !aggregate => {
                                // to_json(t.*): the whole row.
                                let parts: Vec<String> =
                                    o.0.iter().map(|p| self.ident(part_ident(p))).collect();
                                if let Some(rel) = find_rel(scope, &parts) {
                                    let deps = rel_deps(rel);
                                    acc.add(&deps, arg_ctx);
                                }
                            }
                            _ => self.function_arg(a, arg_ctx, scope, mode, acc),
                        }
                    }
                    for c in &list.clauses {
                        match c {
                            FunctionArgumentClause::Where(e) => {
                                self.expr(e, T::compose(ctx, T::Filter), scope, mode, acc)
                            }
                            FunctionArgumentClause::OrderBy(v) => {
                                for o in v {
                                    self.expr(&o.expr, T::compose(ctx, T::Sort), scope, mode, acc);
                                }
                            }
                            FunctionArgumentClause::Having(h) => {
                                self.expr(&h.1, arg_ctx, scope, mode, acc)
                            }
                            _ => {}
                        }
                    }
                }
            }
        }
        for o in &f.within_group {
            self.expr(&o.expr, arg_ctx, scope, mode, acc);
        }
        if let Some(x) = &f.filter {
            self.expr(x, T::compose(ctx, T::Filter), scope, mode, acc);
        }
        match &f.over {
            Some(WindowType::WindowSpec(spec)) => self.window(spec, ctx, scope, acc, 0),
            Some(WindowType::NamedWindow(w)) => match find_window(scope, &self.ident(w)) {
                Some(spec) => self.window(spec, ctx, scope, acc, 0),
                None => self.unresolved(format!("window '{}' is not defined", self.ident(w))),
            },
            None => {}
        }
    }

    fn function_arg(&mut self, a: &FunctionArg, ctx: T, scope: &Scope, mode: Mode, acc: &mut Acc) {
        let arg = match a {
            FunctionArg::Named { arg, .. }
            | FunctionArg::ExprNamed { arg, .. }
            | FunctionArg::Unnamed(arg) => arg,
        };
        match arg {
            FunctionArgExpr::Expr(Expr::Identifier(i))
                if i.quote_style.is_none()
                    && DATE_PARTS
                        .binary_search(&i.value.to_lowercase().as_str())
                        .is_ok()
                    && !self.visible(scope, &self.ident(i)) =>
            {
                // DATEADD(day, ...): a date part, not a column.
            }
            FunctionArgExpr::Expr(e) => self.expr(e, ctx, scope, mode, acc),
            FunctionArgExpr::QualifiedWildcard(_)
            | FunctionArgExpr::Wildcard
            | FunctionArgExpr::WildcardWithOptions(_) => {}
        }
    }

    /// A window's PARTITION BY and ORDER BY: Window sources of the value and of the rows.
    fn window(&mut self, spec: &WindowSpec, ctx: T, scope: &Scope, acc: &mut Acc, hops: usize) {
        let wctx = T::compose(ctx, T::Window);
        let mut w = Acc::default();
        for e in &spec.partition_by {
            self.expr(e, wctx, scope, Mode::Plain, &mut w);
        }
        for o in &spec.order_by {
            self.expr(&o.expr, wctx, scope, Mode::Plain, &mut w);
        }
        if let Some(base) = &spec.window_name
            && hops < 8
            && let Some(b) = find_window(scope, &self.ident(base))
        {
            self.window(b, ctx, scope, &mut w, hops + 1);
        }
        if !ctx.is_indirect() {
            self.indirect.extend(w.deps.iter().cloned());
        }
        acc.deps.extend(w.deps);
        acc.incomplete |= w.incomplete;
    }

    /// Whether a bare name is known to be a column (of a relation whose columns are
    /// known, or an output alias).
    fn visible(&self, scope: &Scope, name: &str) -> bool {
        let mut s = Some(scope);
        while let Some(sc) = s {
            if sc.aliases.iter().any(|c| same(&c.name, name))
                || sc
                    .rels
                    .iter()
                    .any(|r| matches!(lookup_rel(r, name), Lookup::Definite(..)))
            {
                return true;
            }
            s = sc.parent;
        }
        false
    }

    /// Resolves a column reference (`c`, `t.c`, `s.t.c`) and adds its sources.
    fn column(&mut self, parts: &[String], ctx: T, scope: &Scope, mode: Mode, acc: &mut Acc) {
        let Some((col, qual)) = parts.split_last() else {
            return;
        };
        if qual.is_empty() {
            if self.lambda.iter().any(|p| same(p, col)) {
                return;
            }
            if mode == Mode::AliasFirst
                && let Some(c) = scope.aliases.iter().find(|c| same(&c.name, col))
            {
                acc.add(&c.deps, ctx);
                acc.incomplete |= !c.complete;
                return;
            }
            if self.found(find_unqualified(scope, col), ctx, acc) {
                return;
            }
            if mode == Mode::AliasAfter
                && let Some(c) = scope.aliases.iter().find(|c| same(&c.name, col))
            {
                acc.add(&c.deps, ctx);
                acc.incomplete |= !c.complete;
                return;
            }
            let mut s = scope.parent;
            while let Some(sc) = s {
                if self.found(find_unqualified(sc, col), ctx, acc) {
                    return;
                }
                s = sc.parent;
            }
            // A relation's name used as a value: its whole row (BigQuery `SELECT t FROM t`).
            if let Some(rel) = find_rel(scope, parts) {
                acc.add(&rel_deps(rel), T::compose(ctx, T::Transformation));
                return;
            }
            let labels = scope_labels(scope);
            acc.incomplete = true;
            if labels.is_empty() {
                self.unresolved(format!("column '{col}' has no table to come from"));
            } else {
                self.unresolved(format!(
                    "column '{col}' is in none of the tables read ({})",
                    labels.join(", ")
                ));
            }
            return;
        }
        if let Some(rel) = find_rel(scope, qual) {
            match lookup_rel(rel, col) {
                Lookup::Definite(d, complete) => {
                    acc.add(&d, ctx);
                    acc.incomplete |= !complete;
                }
                Lookup::Maybe(d, note) => {
                    acc.add(&d, ctx);
                    if let Some(n) = note {
                        acc.incomplete = true;
                        self.unresolved(n);
                    }
                }
                Lookup::No => {
                    acc.incomplete = true;
                    self.unresolved(format!("column '{col}' is not a column of '{}'", rel.label));
                }
            }
            return;
        }
        // A field of a composite column: `t.col.field` or `col.field`.
        for k in (1..qual.len()).rev() {
            if let Some(rel) = find_rel(scope, &parts[..k])
                && let Lookup::Definite(d, _) | Lookup::Maybe(d, None) = lookup_rel(rel, &parts[k])
            {
                acc.add(&d, T::compose(ctx, T::Transformation));
                return;
            }
        }
        let mut s = Some(scope);
        while let Some(sc) = s {
            if let Found::One(d, _, None) = find_unqualified(sc, &parts[0]) {
                acc.add(&d, T::compose(ctx, T::Transformation));
                return;
            }
            s = sc.parent;
        }
        acc.incomplete = true;
        self.unresolved(format!(
            "table '{}' (in '{}') is not in the FROM clause",
            qual.join("."),
            parts.join(".")
        ));
    }

    /// Adds what an unqualified lookup found; false if it found nothing.
    fn found(&mut self, f: Found, ctx: T, acc: &mut Acc) -> bool {
        match f {
            Found::One(d, complete, note) => {
                acc.add(&d, ctx);
                acc.incomplete |= !complete;
                if let Some(n) = note {
                    acc.incomplete = true;
                    self.unresolved(n);
                }
                true
            }
            Found::Ambiguous(message) => {
                acc.incomplete = true;
                self.unresolved(message);
                true
            }
            Found::None => false,
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
