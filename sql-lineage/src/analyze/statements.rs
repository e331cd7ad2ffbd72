//! The statements that write: INSERT, MERGE, UPDATE and their assignments.

use super::*;

impl Analyzer<'_> {
    pub(super) fn insert(mut self, ins: &sqlparser::ast::Insert, line: usize) -> StatementLineage {
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
    pub(super) fn target_rel(&mut self, tf: &TableFactor, scope: &mut Scope) -> Option<TableName> {
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

    pub(super) fn merge(mut self, m: &sqlparser::ast::Merge, line: usize) -> StatementLineage {
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
    pub(super) fn merge_star(&mut self, scope: &Scope, target_rels: usize, out: &mut Vec<Col>) {
        let mut cols = Vec::new();
        for rel in scope.rels.iter().skip(target_rels) {
            cols.extend(self.expand(rel, None, scope));
        }
        for c in cols {
            add_col(out, &c.name, c.deps, c.complete);
        }
    }

    pub(super) fn update(mut self, u: &sqlparser::ast::Update, line: usize) -> StatementLineage {
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
    pub(super) fn assignment(&mut self, a: &Assignment, scope: &Scope, out: &mut Vec<Col>) {
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
}
