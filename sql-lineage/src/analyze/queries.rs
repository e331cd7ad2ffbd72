//! Queries: set operations, SELECT, VALUES, ordering, FROM, joins and table factors.

use super::*;

impl Analyzer<'_> {
    pub(super) fn query(&mut self, q: &Query, parent: &Scope) -> Vec<Col> {
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

    pub(super) fn set_expr(
        &mut self,
        body: &SetExpr,
        scope: &Scope,
        order_by: Option<&OrderBy>,
    ) -> Vec<Col> {
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

    pub(super) fn values(&mut self, v: &Values, scope: &Scope) -> Vec<Col> {
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

    pub(super) fn order_by(&mut self, ob: &OrderBy, scope: &Scope) {
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
    pub(super) fn by_item(&mut self, e: &Expr, kind: T, scope: &Scope, mode: Mode) {
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

    pub(super) fn indirect_deps(&mut self, deps: &Deps, kind: T) {
        for d in deps {
            self.indirect.insert(SourceColumn {
                table: d.table.clone(),
                column: d.column.clone(),
                transformation: kind,
            });
        }
    }

    pub(super) fn indirect_expr(&mut self, e: &Expr, kind: T, scope: &Scope, mode: Mode) {
        let mut acc = Acc::default();
        self.expr(e, kind, scope, mode, &mut acc);
        self.indirect.extend(acc.deps);
    }

    pub(super) fn select(
        &mut self,
        s: &Select,
        parent: &Scope,
        order_by: Option<&OrderBy>,
    ) -> Vec<Col> {
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

    pub(super) fn select_item(&mut self, item: &SelectItem, scope: &Scope) -> Vec<Col> {
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

    pub(super) fn value_expr(&mut self, e: &Expr, scope: &Scope) -> (Deps, bool) {
        let mut acc = Acc::default();
        self.expr(e, T::Identity, scope, Mode::AliasAfter, &mut acc);
        (acc.deps, !acc.incomplete)
    }

    /// The columns `*` stands for in one relation.
    pub(super) fn expand(
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

    pub(super) fn table_with_joins(&mut self, twj: &TableWithJoins, scope: &mut Scope) {
        self.table_factor(&twj.relation, scope);
        self.joins(&twj.joins, scope);
    }

    pub(super) fn joins(&mut self, joins: &[Join], scope: &mut Scope) {
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
    pub(super) fn using(&mut self, names: &[String], scope: &mut Scope) {
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

    pub(super) fn table_factor(&mut self, tf: &TableFactor, scope: &mut Scope) {
        match tf {
            TableFactor::Table {
                name, alias, args, ..
            } => match args {
                Some(args) => self.table_valued_function(name, alias.as_ref(), args, scope),
                None => self.named_table(name, alias.as_ref(), scope),
            },
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
                push_untraced(scope, label, what);
            }
            TableFactor::SemanticView { name, alias, .. } => {
                let table = table_name(name, self.dialect);
                self.tables.insert(table.clone());
                let label = alias
                    .as_ref()
                    .map(|a| self.ident(&a.name))
                    .unwrap_or_else(|| table.to_string());
                push_untraced(scope, label, "semantic view");
            }
            TableFactor::UnpivotExpr { .. } => {
                self.unresolved("an UNPIVOT expression is not traced".to_string());
            }
        }
    }

    /// `FROM f(args) [AS x (a, b)]`: a relation computed from the arguments.
    fn table_valued_function(
        &mut self,
        name: &ObjectName,
        alias: Option<&TableAlias>,
        args: &TableFunctionArgs,
        scope: &mut Scope,
    ) {
        let table = table_name(name, self.dialect);
        let alias_name = alias.map(|a| self.ident(&a.name));
        let alias_cols = alias.map_or(&[][..], |a| a.columns.as_slice());
        let mut acc = Acc::default();
        for a in &args.args {
            self.function_arg(a, T::Transformation, scope, Mode::Plain, &mut acc);
        }
        let label = alias_name.unwrap_or_else(|| table.0.last().cloned().unwrap_or_default());
        self.push_opaque(scope, Some(label), acc.deps, alias_cols);
    }

    /// `FROM name [AS x (a, b)]`: a CTE of the query or of an enclosing one, else a table
    /// or view of the database.
    fn named_table(&mut self, name: &ObjectName, alias: Option<&TableAlias>, scope: &mut Scope) {
        let table = table_name(name, self.dialect);
        let alias_name = alias.map(|a| self.ident(&a.name));
        let alias_cols = alias.map_or(&[][..], |a| a.columns.as_slice());
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
            let mut cols = self.base_columns(&table, known.as_deref(), alias_cols);
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

    /// The columns of a table of the database, for its alias to rename: the known ones,
    /// else as many unknown ones as the alias names (an unresolved reference).
    fn base_columns(
        &mut self,
        table: &TableName,
        known: Option<&[String]>,
        alias_cols: &[TableAliasColumnDef],
    ) -> Vec<Col> {
        match known {
            Some(k) => k
                .iter()
                .map(|n| Col {
                    name: n.clone(),
                    deps: single(table, n),
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
        }
    }

    /// A relation whose columns are computed from `deps` (a table function, UNNEST...);
    /// with alias columns, exactly those.
    pub(super) fn push_opaque(
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
}

/// A relation whose columns are not traced (`what` it is: `PIVOT`, `semantic view`...):
/// a reference through it is unresolved, and says why.
fn push_untraced(scope: &mut Scope, label: String, what: &str) {
    scope.rels.push(Rel {
        alias: Some(label.clone()),
        label: label.clone(),
        kind: RelKind::Opaque {
            deps: Deps::new(),
            note: Some(format!("the columns of {what} '{label}' are not traced")),
        },
    });
}
