//! Expressions, functions, windows and the columns they name.

use super::*;

impl Analyzer<'_> {
    pub(super) fn expr(&mut self, e: &Expr, ctx: T, scope: &Scope, mode: Mode, acc: &mut Acc) {
        if self.depth >= MAX_DEPTH {
            self.too_deep(Some(acc));
            return;
        }
        self.depth += 1;
        self.expr_inner(e, ctx, scope, mode, acc);
        self.depth -= 1;
    }

    pub(super) fn expr_inner(
        &mut self,
        e: &Expr,
        ctx: T,
        scope: &Scope,
        mode: Mode,
        acc: &mut Acc,
    ) {
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
            Expr::MatchAgainst { columns, .. } => {
                for c in columns {
                    let parts: Vec<String> =
                        c.0.iter().map(|p| self.ident(part_ident(p))).collect();
                    self.column(&parts, tr, scope, mode, acc);
                }
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
            Expr::IsFalse(_)
            | Expr::IsNotFalse(_)
            | Expr::IsTrue(_)
            | Expr::IsNotTrue(_)
            | Expr::IsNull(_)
            | Expr::IsNotNull(_)
            | Expr::IsUnknown(_)
            | Expr::IsNotUnknown(_)
            | Expr::UnaryOp { .. }
            | Expr::Cast { .. }
            | Expr::Convert { .. }
            | Expr::Extract { .. }
            | Expr::Ceil { .. }
            | Expr::Floor { .. }
            | Expr::Collate { .. }
            | Expr::IsJson { .. }
            | Expr::IsNormalized { .. }
            | Expr::Named { .. }
            | Expr::IsDistinctFrom(..)
            | Expr::IsNotDistinctFrom(..)
            | Expr::AtTimeZone { .. }
            | Expr::Like { .. }
            | Expr::ILike { .. }
            | Expr::SimilarTo { .. }
            | Expr::RLike { .. }
            | Expr::AnyOp { .. }
            | Expr::AllOp { .. }
            | Expr::MemberOf(_)
            | Expr::In { .. }
            | Expr::Between { .. }
            | Expr::BinaryOp { .. } => self.operator(e, tr, scope, mode, acc),
            Expr::Substring { .. }
            | Expr::Trim { .. }
            | Expr::Overlay { .. }
            | Expr::Position { .. } => self.keyword_function(e, tr, scope, mode, acc),
            Expr::Tuple(_)
            | Expr::Struct { .. }
            | Expr::Array(_)
            | Expr::Dictionary(_)
            | Expr::Map(_)
            | Expr::Interval(_) => self.constructed(e, tr, scope, mode, acc),
            Expr::Nested(x) | Expr::OuterJoin(x) | Expr::Prior(x) => {
                self.expr(x, ctx, scope, mode, acc)
            }
            Expr::Prefixed { value, .. } => self.expr(value, ctx, scope, mode, acc),
            Expr::Value(_)
            | Expr::TypedString(_)
            | Expr::Wildcard(_)
            | Expr::QualifiedWildcard(..) => {}
            Expr::Function(f) => self.function(f, ctx, scope, mode, acc),
            Expr::Case { .. } => self.case(e, ctx, scope, mode, acc),
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

    /// An operator or a predicate (`-x`, `x IS NULL`, `CAST(x AS t)`, `a LIKE b`,
    /// `a + b`, `x IN (...)`, `x BETWEEN a AND b`...): its operands, each as used in `tr`
    /// (`expr_inner` sends only these forms here).
    fn operator(&mut self, e: &Expr, tr: T, scope: &Scope, mode: Mode, acc: &mut Acc) {
        match e {
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
            _ => {}
        }
    }

    /// A string function SQL writes with keywords (`SUBSTRING(x FROM a FOR b)`,
    /// `TRIM(BOTH c FROM x)`, `OVERLAY(x PLACING y FROM a FOR b)`, `POSITION(a IN b)`):
    /// its arguments, each as used in `tr` (`expr_inner` sends only these forms here).
    fn keyword_function(&mut self, e: &Expr, tr: T, scope: &Scope, mode: Mode, acc: &mut Acc) {
        match e {
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
            Expr::Position { expr, r#in } => {
                self.expr(expr, tr, scope, mode, acc);
                self.expr(r#in, tr, scope, mode, acc);
            }
            _ => {}
        }
    }

    /// A value built from parts (a row, `STRUCT`, `ARRAY`, a dictionary, `MAP`,
    /// `INTERVAL`): its parts, each as used in `tr` (`expr_inner` sends only these forms
    /// here).
    fn constructed(&mut self, e: &Expr, tr: T, scope: &Scope, mode: Mode, acc: &mut Acc) {
        match e {
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
            _ => {}
        }
    }

    /// `CASE [operand] WHEN condition THEN result ... ELSE result END`: the operand and
    /// the conditions decide which branch gives the value (Conditional), the results are
    /// what it is computed from.
    fn case(&mut self, e: &Expr, ctx: T, scope: &Scope, mode: Mode, acc: &mut Acc) {
        let Expr::Case {
            operand,
            conditions,
            else_result,
            ..
        } = e
        else {
            return;
        };
        let tr = T::compose(ctx, T::Transformation);
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

    pub(super) fn subscript(
        &mut self,
        s: &Subscript,
        ctx: T,
        scope: &Scope,
        mode: Mode,
        acc: &mut Acc,
    ) {
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
    pub(super) fn subquery_value(&mut self, q: &Query, ctx: T, scope: &Scope, acc: &mut Acc) {
        for c in self.query(q, scope) {
            acc.add(&c.deps, ctx);
            if !c.complete {
                acc.incomplete = true;
            }
        }
    }

    pub(super) fn function(
        &mut self,
        f: &Function,
        ctx: T,
        scope: &Scope,
        mode: Mode,
        acc: &mut Acc,
    ) {
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

    pub(super) fn function_arg(
        &mut self,
        a: &FunctionArg,
        ctx: T,
        scope: &Scope,
        mode: Mode,
        acc: &mut Acc,
    ) {
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
    pub(super) fn window(
        &mut self,
        spec: &WindowSpec,
        ctx: T,
        scope: &Scope,
        acc: &mut Acc,
        hops: usize,
    ) {
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
    pub(super) fn visible(&self, scope: &Scope, name: &str) -> bool {
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
    pub(super) fn column(
        &mut self,
        parts: &[String],
        ctx: T,
        scope: &Scope,
        mode: Mode,
        acc: &mut Acc,
    ) {
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
    pub(super) fn found(&mut self, f: Found, ctx: T, acc: &mut Acc) -> bool {
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
