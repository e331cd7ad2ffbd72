//! Lowering: a validated query becomes a [`Plan`]. Here the spec's meaning of each
//! attribute, operator and value is settled once for every backend:
//!
//! - a positive operator (`=`, `<`, `STARTS WITH`, `= ANY`, ...) holds when some value
//!   passes; a NOT operator (`!=`, `NOT CONTAINS`, `!= ANY`) when no value passes the
//!   positive test, which includes an empty multi-valued attribute; a single-valued
//!   attribute must have a value for any operator but [NOT] EXISTS (spec 2.12: such a
//!   filter never returns an object that lacks the attribute);
//! - `= ALL` holds when every listed value is among the values (of all related objects
//!   together, spec 2.12.5), `!= ALL` when one is missing;
//! - positive filters ANDed on the same related object type must hold on the same
//!   related object (spec 2.12.6);
//! - dates are intervals: a date is its day, a datetime its second, `TODAY` and
//!   `YESTERDAY` their day, `LAST n DAYS` the time since; `=` means within, `BEFORE`
//!   before the start, `AFTER` after the end, `BETWEEN a AND b` from a's start to b's end;
//! - a number compared with an integer attribute is compared exactly (`= 2.5` finds
//!   nothing, `< 2.5` is `<= 2`).
//!
//! What lowering cannot know without the store (the models of a content name, the
//! objects where a user holds a role) comes in [`Lookups`], which the catalog fills
//! beforehand from [`Needs`].

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::ast::{Expr, Filter, Op, OrderKey, Path, Query, Subject, TimeUnit, Value};
use super::catalog::Shape;
use super::plan::{
    ClassStatuses, Column, Cond, DateGap, Facet, Field, FieldType, LabelSet, Lit, Plan,
    ProfilingPart, Relation, SortKey, Statistic, Test, fold, search_term,
};
use super::resolve::{Property, Resolved, resolve};
use super::search::{Presence, SearchKind, parse_search_text, parse_semantic_text};
use lore_model::id::ObjectId;
use lore_model::{
    AttributeKind, ClassificationStatus, CurationKind, EdgeKind, MetaModel, TagKind, ValueType,
};

const MICROS_PER_SECOND: i64 = 1_000_000;
const MICROS_PER_DAY: i64 = 86_400 * MICROS_PER_SECOND;

/// What lowering needs from the store, named by the query.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Needs {
    /// Content names of `content` filters, as written.
    pub contents: BTreeSet<String>,
    /// For each role of an `ExpandedMembersOfRole` filter, the principal names of its
    /// values (`None` for `ME`).
    pub roles: BTreeMap<String, BTreeSet<Option<String>>>,
    /// Whether a filter tests My Workflow Tasks.
    pub workflow_tasks: bool,
}

/// What the store said about the names a query uses.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Lookups {
    /// The time of the query, UTC microseconds (TODAY, LAST n DAYS).
    pub now: i64,
    /// The objects the FROM clause and its scope filters select.
    pub source: Cond,
    /// The models of each known content name (keys folded).
    pub contents: HashMap<String, Vec<i64>>,
    /// The roles that exist, with where each principal holds them.
    pub roles: HashMap<String, RoleHolders>,
    /// The caller's user name, the value of ME.
    pub me: Option<String>,
    /// For each workflow action (folded), the objects where the caller may take it now.
    pub workflow_tasks: HashMap<String, Cond>,
}

/// The attribute whose values are the caller's workflow actions on an object.
const MY_WORKFLOW_TASKS: &str = "My Workflow Tasks";

fn is_my_workflow_tasks(path: &super::ast::Path) -> bool {
    path.0.len() == 1 && path.0[0].text == MY_WORKFLOW_TASKS
}

/// Where the principals of a query hold one role.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RoleHolders {
    /// The objects where anyone holds the role (for [NOT] EXISTS).
    pub anyone: Cond,
    /// The objects where each known principal holds it, directly or through a group
    /// (keys: folded name; `None` for the caller).
    pub by_principal: HashMap<Option<String>, Cond>,
}

/// The names of `query` that lowering will look up.
pub fn needs(query: &Query) -> Needs {
    let mut needs = Needs::default();
    let mut visit = |filter: &Filter| match &filter.subject {
        Subject::Content => {
            for value in filter.op.values() {
                needs.contents.insert(text_of(value));
            }
        }
        Subject::Attribute(path) if is_my_workflow_tasks(path) => needs.workflow_tasks = true,
        Subject::ExpandedMembersOfRole(role) => {
            let names = needs.roles.entry(role.clone()).or_default();
            for value in filter.op.values() {
                names.insert(match value {
                    Value::Me => None,
                    other => Some(text_of(other)),
                });
            }
        }
        _ => {}
    };
    if let Some(scope) = query.from.as_ref().and_then(|f| f.scope.as_ref()) {
        walk(scope, &mut visit);
    }
    if let Some(filter) = &query.filter {
        walk(filter, &mut visit);
    }
    needs
}

fn walk(expr: &Expr, visit: &mut impl FnMut(&Filter)) {
    match expr {
        Expr::And(items) | Expr::Or(items) => items.iter().for_each(|e| walk(e, visit)),
        Expr::Filter(filter) => {
            if let Op::EqWhere(inner) = &filter.op {
                walk(inner, visit);
            }
            visit(filter);
        }
    }
}

/// A value as text, as written (numbers as their text, dates as `YYYY-MM-DD`).
fn text_of(value: &Value) -> String {
    match value {
        Value::Text(t) | Value::DoubleQuoted(t) | Value::Bare(t) => t.clone(),
        Value::Number { text, .. } => text.clone(),
        Value::Date(d) => d.to_string(),
        Value::Me => "ME".to_owned(),
        Value::Today => "TODAY".to_owned(),
        Value::Yesterday => "YESTERDAY".to_owned(),
        Value::Last { n, unit } => format!("LAST {n} {unit:?}").to_uppercase(),
    }
}

/// Lowers a query that passed validation (in current syntax) to a plan. Warnings say
/// what ran differently than written (a sort key that cannot sort in the store).
pub fn lower(query: &Query, meta: &MetaModel, lookups: &Lookups) -> (Plan, Vec<String>) {
    let lowering = Lowering {
        meta,
        lookups,
        warnings: Vec::new(),
    };
    lowering.run(query)
}

/// Lowers scope filters: the condition on models that FROM's scope filters set.
pub fn lower_scope(expr: &Expr, meta: &MetaModel, lookups: &Lookups) -> Cond {
    let mut lowering = Lowering {
        meta,
        lookups,
        warnings: Vec::new(),
    };
    lowering.expr(expr)
}

/// The facet of a path for `getAttributeValueCounts`: a field of the objects or of their
/// related objects. `Err` says why the path cannot be counted.
pub fn facet(path: &Path, meta: &MetaModel, gap: Option<DateGap>) -> Result<Facet, String> {
    let lookups = Lookups::default();
    let mut lowering = Lowering {
        meta,
        lookups: &lookups,
        warnings: Vec::new(),
    };
    let target = lowering
        .target(path)
        .ok_or_else(|| format!("'{path}' is not an attribute (names are case-sensitive)"))?;
    let (relation, field) = match target {
        Target::Field(field) => (None, field),
        Target::Related(relation, inner) => match *inner {
            Target::Field(field) => (Some(relation), field),
            _ => return Err(format!("the values of {path} cannot be counted")),
        },
        _ => return Err(format!("the values of {path} cannot be counted")),
    };
    let gap = match field.ty() {
        FieldType::Time => Some(gap.unwrap_or(DateGap::Day)),
        _ => None,
    };
    Ok(Facet {
        relation,
        field,
        gap,
        hidden: Cond::False,
    })
}

struct Lowering<'a> {
    meta: &'a MetaModel,
    lookups: &'a Lookups,
    warnings: Vec<String>,
}

/// What a filter's subject reads, and how operators apply to it.
#[derive(Debug, Clone)]
enum Target {
    /// A field of the object.
    Field(Field),
    /// The values of the related objects.
    Related(Relation, Box<Target>),
    /// The object's id (`Object Id`).
    Id,
    /// A boolean that a condition computes; it always has a value.
    Flag(Cond),
    /// A value Lore does not store yet: always this value, or none (multi-valued when
    /// the flag is set).
    Constant(Option<Lit>, bool),
    /// An object-valued attribute: [NOT] EXISTS only.
    Existence(Cond),
}

impl Target {
    fn multi(&self) -> bool {
        match self {
            Target::Field(f) => f.is_multi_valued(),
            Target::Related(r, inner) => r.is_multi_valued() || inner.multi(),
            Target::Id | Target::Flag(_) | Target::Existence(_) => false,
            Target::Constant(_, multi) => *multi,
        }
    }

    fn ty(&self) -> FieldType {
        match self {
            Target::Field(f) => f.ty(),
            Target::Related(_, inner) => inner.ty(),
            Target::Id => FieldType::ExactText,
            Target::Flag(_) => FieldType::Boolean,
            Target::Constant(Some(Lit::Integer(_)), _) => FieldType::Integer,
            Target::Constant(Some(Lit::Boolean(_)), _) => FieldType::Boolean,
            Target::Constant(..) | Target::Existence(_) => FieldType::Text,
        }
    }

    /// Some value passes the test.
    fn any(&self, test: Test) -> Cond {
        match self {
            Target::Field(f) => Cond::Test(f.clone(), test),
            Target::Related(r, inner) => related(*r, inner.any(test)),
            Target::Id => {
                let ids = match test {
                    Test::Eq(lit) => vec![lit],
                    Test::In(lits) => lits,
                    _ => Vec::new(),
                };
                let ids: Vec<ObjectId> = ids
                    .iter()
                    .filter_map(|l| match l {
                        Lit::Text(t) => t.parse().ok(),
                        _ => None,
                    })
                    .collect();
                if ids.is_empty() {
                    Cond::False
                } else {
                    Cond::Ids(ids)
                }
            }
            Target::Flag(c) => {
                let wanted: Vec<bool> = match test {
                    Test::Eq(Lit::Boolean(b)) => vec![b],
                    Test::In(lits) => lits
                        .iter()
                        .filter_map(|l| match l {
                            Lit::Boolean(b) => Some(*b),
                            _ => None,
                        })
                        .collect(),
                    _ => Vec::new(),
                };
                let yes = wanted.contains(&true);
                let no = wanted.contains(&false);
                match (yes, no) {
                    (true, true) => Cond::True,
                    (true, false) => c.clone(),
                    (false, true) => Cond::not(c.clone()),
                    (false, false) => Cond::False,
                }
            }
            Target::Constant(Some(lit), _) => {
                if super::eval::passes(lit, &test) {
                    Cond::True
                } else {
                    Cond::False
                }
            }
            Target::Constant(None, _) | Target::Existence(_) => Cond::False,
        }
    }

    /// The target has a value.
    fn has(&self) -> Cond {
        match self {
            Target::Field(f) => Cond::Has(f.clone()),
            Target::Related(r, inner) => related(*r, inner.has()),
            Target::Id | Target::Flag(_) => Cond::True,
            Target::Constant(value, _) => {
                if value.is_some() {
                    Cond::True
                } else {
                    Cond::False
                }
            }
            Target::Existence(c) => c.clone(),
        }
    }

    /// No value passes the test; a single-valued target must have a value.
    fn none(&self, test: Test) -> Cond {
        let not = Cond::not(self.any(test));
        if self.multi() {
            not
        } else {
            Cond::and(vec![self.has(), not])
        }
    }
}

fn related(relation: Relation, inner: Cond) -> Cond {
    match inner {
        Cond::False => Cond::False,
        inner => Cond::Related(relation, Box::new(inner)),
    }
}

/// How a comparison reads its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cmp {
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
}

impl Lowering<'_> {
    fn run(mut self, query: &Query) -> (Plan, Vec<String>) {
        let filter = match &query.filter {
            Some(expr) => self.expr(expr),
            None => Cond::True,
        };
        let order = self.order(query);
        let plan = Plan {
            filter: Cond::and(vec![self.lookups.source.clone(), filter]),
            visibility: Cond::True,
            order,
            as_of: None,
        };
        (plan, self.warnings)
    }

    fn expr(&mut self, expr: &Expr) -> Cond {
        match expr {
            Expr::Or(items) => Cond::or(items.iter().map(|e| self.expr(e)).collect()),
            Expr::And(items) => {
                // Spec 2.12.6: positive filters on a related object type's properties,
                // ANDed (at any depth of parentheses), hold on the same related object.
                let mut filters = Vec::new();
                flatten_and(items, &mut filters);
                let mut groupable = Vec::new();
                let mut others = Vec::new();
                for e in filters {
                    let cond = self.expr(e);
                    match e {
                        Expr::Filter(f) if is_groupable(f) => groupable.push(cond),
                        _ => others.push(cond),
                    }
                }
                let mut all = group_related(groupable);
                all.append(&mut others);
                Cond::and(all)
            }
            Expr::Filter(filter) => self.filter(filter),
        }
    }

    fn filter(&mut self, filter: &Filter) -> Cond {
        let Filter { subject, op } = filter;
        match subject {
            Subject::Attribute(path) => {
                if let Op::EqWhere(inner) = op {
                    // `Model = WHERE (...)`: the inner filters apply to the models.
                    let _ = path;
                    return self.expr(inner);
                }
                if is_my_workflow_tasks(path) {
                    return self.workflow_tasks(op);
                }
                match self.target(path) {
                    Some(target) => self.apply(&target, op),
                    None => match op {
                        Op::NotExists => Cond::True,
                        _ => Cond::False,
                    },
                }
            }
            Subject::Text { within, semantic } => match op {
                Op::Eq(value) if *semantic => self.semantic(&text_of(value), within),
                Op::Eq(value) => self.text(parse_search_text(&text_of(value)), within),
                _ => Cond::False,
            },
            Subject::Category => {
                let categories: Vec<String> = op.values().into_iter().map(text_of).collect();
                self.category(&categories)
            }
            Subject::Content => self.content(op),
            Subject::ExpandedMembersOfRole(role) => self.members(role, op),
            Subject::Count(relationship) => {
                let target = Target::Field(Field::RelationshipCount(relationship.clone()));
                self.apply(&target, op)
            }
        }
    }

    /// The condition of an operator on a target.
    fn apply(&mut self, target: &Target, op: &Op) -> Cond {
        let ty = target.ty();
        match op {
            Op::Exists => target.has(),
            Op::NotExists => Cond::not(target.has()),
            Op::Eq(v) => self.compare(target, Cmp::Eq, v),
            Op::Lt(v) => self.compare(target, Cmp::Lt, v),
            Op::Le(v) => self.compare(target, Cmp::Le, v),
            Op::Gt(v) => self.compare(target, Cmp::Gt, v),
            Op::Ge(v) => self.compare(target, Cmp::Ge, v),
            Op::Before(v) => self.compare(target, Cmp::Lt, v),
            Op::After(v) => self.compare(target, Cmp::Gt, v),
            Op::Ne(v) => match self.equality(ty, v) {
                Some(test) => target.none(test),
                None if target.multi() => Cond::True,
                None => target.has(),
            },
            Op::EqAny(list) if ty == FieldType::Time => Cond::or(
                list.iter()
                    .filter_map(|v| self.equality(ty, v))
                    .map(|test| target.any(test))
                    .collect(),
            ),
            Op::NeAny(list) if ty == FieldType::Time => {
                let any = Cond::or(
                    list.iter()
                        .filter_map(|v| self.equality(ty, v))
                        .map(|test| target.any(test))
                        .collect(),
                );
                if target.multi() {
                    Cond::not(any)
                } else {
                    Cond::and(vec![target.has(), Cond::not(any)])
                }
            }
            Op::EqAny(list) => match self.any_of(ty, list) {
                Some(test) => target.any(test),
                None => Cond::False,
            },
            Op::NeAny(list) => match self.any_of(ty, list) {
                Some(test) => target.none(test),
                None if target.multi() => Cond::True,
                None => target.has(),
            },
            Op::EqAll(list) => Cond::and(
                list.iter()
                    .map(|v| match self.equality(ty, v) {
                        Some(test) => target.any(test),
                        None => Cond::False,
                    })
                    .collect(),
            ),
            Op::NeAll(list) => {
                let all = Cond::and(
                    list.iter()
                        .map(|v| match self.equality(ty, v) {
                            Some(test) => target.any(test),
                            None => Cond::False,
                        })
                        .collect(),
                );
                let not = Cond::not(all);
                if target.multi() {
                    not
                } else {
                    Cond::and(vec![target.has(), not])
                }
            }
            Op::StartsWith { not, value } => {
                self.text_test(target, *not, Test::StartsWith(fold(&text_of(value))))
            }
            Op::EndsWith { not, value } => {
                self.text_test(target, *not, Test::EndsWith(fold(&text_of(value))))
            }
            Op::Contains { not, value } => {
                self.text_test(target, *not, Test::Contains(fold(&text_of(value))))
            }
            Op::Between(a, b) => match self.between(ty, a, b) {
                Some(test) => target.any(test),
                None => Cond::False,
            },
            // A NOT operator: no value is between the bounds, as `!=` (spec 2.12).
            Op::NotBetween(a, b) => match self.between(ty, a, b) {
                Some(test) => target.none(test),
                None if target.multi() => Cond::True,
                None => target.has(),
            },
            Op::EqWhere(inner) => self.expr(inner),
        }
    }

    /// The test of `BETWEEN a AND b` (inclusive: from a's start to b's end), `None`
    /// when no value of the type can be between them.
    fn between(&self, ty: FieldType, a: &Value, b: &Value) -> Option<Test> {
        let low = self.bound(ty, a, Cmp::Ge);
        let high = self.bound(ty, b, Cmp::Le);
        match (low, high) {
            (Some(Bound::Never), _) | (_, Some(Bound::Never)) | (None, _) | (_, None) => None,
            (Some(low), Some(high)) => Some(Test::Range {
                low: low.into_lit(),
                high: high.into_lit(),
            }),
        }
    }

    fn text_test(&self, target: &Target, not: bool, test: Test) -> Cond {
        if !matches!(target.ty(), FieldType::Text | FieldType::ExactText) {
            // A number, boolean or date never starts with, ends with or contains text.
            return match (not, target.multi()) {
                (false, _) => Cond::False,
                (true, true) => Cond::True,
                (true, false) => target.has(),
            };
        }
        if not {
            target.none(test)
        } else {
            target.any(test)
        }
    }

    /// ME as the caller's name; any other value as it is.
    fn me<'v>(&self, value: &'v Value) -> std::borrow::Cow<'v, Value> {
        match (value, &self.lookups.me) {
            (Value::Me, Some(me)) => std::borrow::Cow::Owned(Value::Text(me.clone())),
            _ => std::borrow::Cow::Borrowed(value),
        }
    }

    /// The test of `= value`, `None` when no value of the type can equal it.
    fn equality(&self, ty: FieldType, value: &Value) -> Option<Test> {
        let value = &*self.me(value);
        match ty {
            FieldType::Time => match self.bound(ty, value, Cmp::Eq)? {
                Bound::Range(low, high) => Some(Test::Range { low, high }),
                _ => None,
            },
            _ => literal(ty, value).map(Test::Eq),
        }
    }

    fn any_of(&self, ty: FieldType, values: &[Value]) -> Option<Test> {
        let lits: Vec<Lit> = values
            .iter()
            .filter_map(|v| literal(ty, &self.me(v)))
            .collect();
        match lits.len() {
            0 => None,
            1 => lits.into_iter().next().map(Test::Eq),
            _ => Some(Test::In(lits)),
        }
    }

    fn compare(&mut self, target: &Target, cmp: Cmp, value: &Value) -> Cond {
        let ty = target.ty();
        if cmp == Cmp::Eq {
            return match self.equality(ty, value) {
                Some(test) => target.any(test),
                None => Cond::False,
            };
        }
        match self.bound(ty, value, cmp) {
            None | Some(Bound::Never) => Cond::False,
            Some(Bound::Always) => target.has(),
            Some(bound) => {
                let (low, high) = match bound {
                    Bound::Range(low, high) => (low, high),
                    _ => (None, None),
                };
                target.any(Test::Range { low, high })
            }
        }
    }

    /// The bound a comparison puts on a field of the type.
    fn bound(&self, ty: FieldType, value: &Value, cmp: Cmp) -> Option<Bound> {
        match ty {
            FieldType::Time => {
                let (start, end) = self.interval(value)?;
                Some(match cmp {
                    Cmp::Eq => Bound::Range(
                        Some((Lit::Time(start), true)),
                        end.map(|e| (Lit::Time(e), false)),
                    ),
                    Cmp::Lt => Bound::Range(None, Some((Lit::Time(start), false))),
                    Cmp::Le => match end {
                        Some(end) => Bound::Range(None, Some((Lit::Time(end), false))),
                        None => Bound::Always,
                    },
                    Cmp::Gt => match end {
                        Some(end) => Bound::Range(Some((Lit::Time(end), true)), None),
                        None => Bound::Never,
                    },
                    Cmp::Ge => Bound::Range(Some((Lit::Time(start), true)), None),
                })
            }
            FieldType::Integer => {
                let x = number(value)?;
                let floor = x.floor();
                let ceil = x.ceil();
                let int = |f: f64| Lit::Integer(f as i64);
                Some(match cmp {
                    Cmp::Eq if floor == x => {
                        Bound::Range(Some((int(x), true)), Some((int(x), true)))
                    }
                    Cmp::Eq => Bound::Never,
                    Cmp::Lt => Bound::Range(None, Some((int(ceil), false))),
                    Cmp::Le => Bound::Range(None, Some((int(floor), true))),
                    Cmp::Gt => Bound::Range(Some((int(floor), false)), None),
                    Cmp::Ge => Bound::Range(Some((int(ceil), true)), None),
                })
            }
            FieldType::Double => {
                let x = Lit::Double(number(value)?);
                Some(match cmp {
                    Cmp::Eq => Bound::Range(Some((x.clone(), true)), Some((x, true))),
                    Cmp::Lt => Bound::Range(None, Some((x, false))),
                    Cmp::Le => Bound::Range(None, Some((x, true))),
                    Cmp::Gt => Bound::Range(Some((x, false)), None),
                    Cmp::Ge => Bound::Range(Some((x, true)), None),
                })
            }
            _ => {
                let x = literal(ty, value)?;
                Some(match cmp {
                    Cmp::Eq => Bound::Range(Some((x.clone(), true)), Some((x, true))),
                    Cmp::Lt => Bound::Range(None, Some((x, false))),
                    Cmp::Le => Bound::Range(None, Some((x, true))),
                    Cmp::Gt => Bound::Range(Some((x, false)), None),
                    Cmp::Ge => Bound::Range(Some((x, true)), None),
                })
            }
        }
    }

    /// The time a date value covers: its start and its end (exclusive), no end for
    /// `LAST n ...` (until now and after).
    fn interval(&self, value: &Value) -> Option<(i64, Option<i64>)> {
        let day_of = |t: i64| t.div_euclid(MICROS_PER_DAY) * MICROS_PER_DAY;
        let today = day_of(self.lookups.now);
        Some(match value {
            Value::Today => (today, Some(today + MICROS_PER_DAY)),
            Value::Yesterday => (today - MICROS_PER_DAY, Some(today)),
            Value::Last { n, unit } => {
                let unit = match unit {
                    TimeUnit::Days => MICROS_PER_DAY,
                    TimeUnit::Hours => 3600 * MICROS_PER_SECOND,
                    TimeUnit::Minutes => 60 * MICROS_PER_SECOND,
                };
                (
                    self.lookups
                        .now
                        .saturating_sub(i64::from(*n).saturating_mul(unit)),
                    None,
                )
            }
            Value::Date(_) => {
                let start = value.date_time()?.and_utc().timestamp_micros();
                (start, Some(start + MICROS_PER_DAY))
            }
            Value::Text(text) | Value::DoubleQuoted(text) => {
                let start = value.date_time()?.and_utc().timestamp_micros();
                let width = if text.trim().len() > 10 {
                    MICROS_PER_SECOND
                } else {
                    MICROS_PER_DAY
                };
                (start, Some(start + width))
            }
            _ => return None,
        })
    }

    /// What an attribute path reads, `None` when it names nothing (a warning of the
    /// validator said so).
    fn target(&mut self, path: &Path) -> Option<Target> {
        let names: Vec<&str> = path.0.iter().map(|n| n.text.as_str()).collect();
        let resolved = resolve(&names, self.meta).ok()?;
        Some(match resolved {
            Resolved::System(a) => system_target(a.name, a.shape),
            Resolved::Profiling(a) => profiling_target(a.name),
            Resolved::Meta { attribute, .. } => {
                meta_target(attribute.kind, &attribute.name, attribute.value_type)
            }
            Resolved::Related { related, property } => {
                let relation = match related.name {
                    "Parent" => Relation::Parent,
                    "Children" => Relation::Children,
                    "Data Classifications" => Relation::DataClasses(ClassStatuses::Current),
                    "Data Classifications Approved" => {
                        Relation::DataClasses(ClassStatuses::Only(ClassificationStatus::Approved))
                    }
                    "Data Classifications Matched" => {
                        Relation::DataClasses(ClassStatuses::Only(ClassificationStatus::Matched))
                    }
                    "Data Classifications Rejected" => {
                        Relation::DataClasses(ClassStatuses::Only(ClassificationStatus::Rejected))
                    }
                    // The inferred origins are not computed: no related objects.
                    _ => return Some(Target::Constant(None, true)),
                };
                let inner = match property {
                    Property::System(a) => system_target(a.name, a.shape),
                    Property::Profiling(a) => profiling_target(a.name),
                    Property::Meta(attribute) => {
                        meta_target(attribute.kind, &attribute.name, attribute.value_type)
                    }
                    Property::DataClass("Description") => Target::Field(Field::ClassDescription),
                    Property::DataClass(_) => Target::Field(Field::ClassName),
                };
                Target::Related(relation, Box::new(inner))
            }
        })
    }

    /// `semantic_search_text`: its reserved words select object types, as a category
    /// filter would; the rest of the phrase is search text.
    fn semantic(&mut self, text: &str, within: &[String]) -> Cond {
        let (types, terms) = parse_semantic_text(text);
        let text = self.text(terms, within);
        if types.is_empty() {
            return text;
        }
        let lits: Vec<Lit> = self
            .meta
            .object_types
            .iter()
            .filter(|t| {
                types
                    .iter()
                    .any(|name| t.name.name.eq_ignore_ascii_case(name))
            })
            .map(|t| Lit::Text(fold(&t.name.qualified())))
            .collect();
        if lits.is_empty() {
            self.warnings.push(format!(
                "semantic_search_text: no object type is a {}; the filter matches nothing",
                types.join(" or ")
            ));
            return Cond::False;
        }
        Cond::and(vec![
            Cond::Test(Field::Column(Column::TypeId), Test::In(lits)),
            text,
        ])
    }

    fn text(&mut self, terms: Vec<super::search::SearchTerm>, within: &[String]) -> Cond {
        let fields = search_fields(within);
        if terms.is_empty() {
            return Cond::True;
        }
        let mut required = Vec::new();
        let mut optional = Vec::new();
        let mut excluded = Vec::new();
        // A term matches across word breakers: both it and the searched text are in
        // their search form (see `plan::search_form`).
        let contains = |text: &str, fields: &[Column]| {
            let text = search_term(text);
            if text.is_empty() || fields.is_empty() {
                // As CONTAINS '': any value passes.
                return Cond::or(
                    fields
                        .iter()
                        .map(|f| Cond::Has(Field::Column(*f)))
                        .collect(),
                );
            }
            Cond::Search {
                columns: fields.to_vec(),
                text,
            }
        };
        for term in terms {
            let matches = match &term.kind {
                // A term of word breakers only is no term.
                SearchKind::Word(text) | SearchKind::Phrase(text) | SearchKind::Prefix(text)
                    if search_term(text).is_empty() =>
                {
                    continue;
                }
                SearchKind::Word(text) | SearchKind::Phrase(text) | SearchKind::Prefix(text) => {
                    contains(text, &fields)
                }
                // The whole name, exactly (folded): of the searched name columns.
                SearchKind::ExactName(name) => Cond::or(
                    fields
                        .iter()
                        .map(|c| Cond::Test(Field::Column(*c), Test::Eq(Lit::Text(fold(name)))))
                        .collect(),
                ),
                SearchKind::ParentChild { parent, child } => Cond::and(vec![
                    contains(child, &fields),
                    Cond::Related(
                        Relation::Parent,
                        Box::new(contains(parent, &[Column::Name, Column::PhysicalName])),
                    ),
                ]),
            };
            match term.presence {
                Presence::Required => required.push(matches),
                Presence::Optional => optional.push(matches),
                Presence::Excluded => excluded.push(Cond::not(matches)),
            }
        }
        if required.is_empty() && optional.is_empty() && excluded.is_empty() {
            return Cond::True;
        }
        let mut all = required;
        if !optional.is_empty() {
            all.push(Cond::or(optional));
        }
        all.extend(excluded);
        Cond::and(all)
    }

    fn category(&mut self, categories: &[String]) -> Cond {
        let wanted: Vec<String> = categories.iter().map(|c| fold(c)).collect();
        let mut types = Vec::new();
        for t in &self.meta.object_types {
            if wanted.contains(&fold(&t.category)) {
                types.push(Lit::Text(fold(&t.name.qualified())));
            }
        }
        if types.is_empty() {
            self.warnings.push(format!(
                "no object type has the category {}; the filter matches nothing",
                categories.join(", ")
            ));
            return Cond::False;
        }
        Cond::Test(Field::Column(Column::TypeId), Test::In(types))
    }

    fn content(&mut self, op: &Op) -> Cond {
        let models = |values: &[&Value]| -> Vec<i64> {
            let mut models: Vec<i64> = values
                .iter()
                .filter_map(|v| self.lookups.contents.get(&fold(&text_of(v))))
                .flatten()
                .copied()
                .collect();
            models.sort_unstable();
            models.dedup();
            models
        };
        let within = |models: Vec<i64>| {
            if models.is_empty() {
                Cond::False
            } else {
                Cond::Within(super::plan::Within {
                    models,
                    subtrees: Vec::new(),
                })
            }
        };
        let values = op.values();
        match op {
            Op::Eq(_) | Op::EqAny(_) => within(models(&values)),
            Op::Ne(_) | Op::NeAny(_) => Cond::not(within(models(&values))),
            _ => Cond::False,
        }
    }

    fn members(&mut self, role: &str, op: &Op) -> Cond {
        // An undefined role evaluates to false (spec 7).
        let Some(holders) = self.lookups.roles.get(role) else {
            return Cond::False;
        };
        let of = |value: &Value| -> Cond {
            let key = match value {
                Value::Me => None,
                other => Some(fold(&text_of(other))),
            };
            holders
                .by_principal
                .get(&key)
                .cloned()
                .unwrap_or(Cond::False)
        };
        let values = op.values();
        match op {
            Op::Exists => holders.anyone.clone(),
            Op::NotExists => Cond::not(holders.anyone.clone()),
            Op::Eq(_) | Op::EqAny(_) => Cond::or(values.into_iter().map(of).collect()),
            Op::Ne(_) | Op::NeAny(_) => Cond::not(Cond::or(values.into_iter().map(of).collect())),
            Op::EqAll(_) => Cond::and(values.into_iter().map(of).collect()),
            Op::NeAll(_) => Cond::not(Cond::and(values.into_iter().map(of).collect())),
            _ => Cond::False,
        }
    }

    /// My Workflow Tasks: an action is among an object's values where the caller may
    /// take it there now; an unknown action never is.
    fn workflow_tasks(&mut self, op: &Op) -> Cond {
        let tasks = &self.lookups.workflow_tasks;
        let of = |value: &Value| -> Cond {
            tasks
                .get(&fold(&text_of(value)))
                .cloned()
                .unwrap_or(Cond::False)
        };
        let any = || Cond::or(tasks.values().cloned().collect());
        let values = op.values();
        match op {
            Op::Exists => any(),
            Op::NotExists => Cond::not(any()),
            Op::Eq(_) | Op::EqAny(_) => Cond::or(values.into_iter().map(of).collect()),
            Op::Ne(_) | Op::NeAny(_) => Cond::not(Cond::or(values.into_iter().map(of).collect())),
            Op::EqAll(_) => Cond::and(values.into_iter().map(of).collect()),
            Op::NeAll(_) => Cond::not(Cond::and(values.into_iter().map(of).collect())),
            _ => Cond::False,
        }
    }

    fn order(&mut self, query: &Query) -> Vec<SortKey> {
        let mut keys = Vec::new();
        for key in &query.order_by {
            let OrderKey::Attribute { path, direction } = key else {
                continue;
            };
            let Some(target) = self.target(path) else {
                continue;
            };
            let descending = match direction {
                Some(d) => *d == super::ast::Direction::Desc,
                // "Updated Date" sorts newest first.
                None => matches!(target, Target::Field(Field::Column(Column::UpdatedAt))),
            };
            match target {
                Target::Field(field) if !field.is_multi_valued() => {
                    keys.push(SortKey { field, descending })
                }
                _ => self.warnings.push(format!(
                    "ORDER BY {path}: the store cannot sort on it; the key is left out"
                )),
            }
        }
        if keys.is_empty() {
            keys.push(SortKey {
                field: Field::Column(Column::Name),
                descending: false,
            });
        }
        keys
    }
}

/// A bound a comparison puts on values.
enum Bound {
    Range(Option<(Lit, bool)>, Option<(Lit, bool)>),
    /// Every value passes.
    Always,
    /// No value passes.
    Never,
}

impl Bound {
    /// The bound as one side of a BETWEEN range (its lower side for a `>=` bound, its
    /// upper for `<=`).
    fn into_lit(self) -> Option<(Lit, bool)> {
        match self {
            Bound::Range(low, None) => low,
            Bound::Range(None, high) => high,
            _ => None,
        }
    }
}

/// The number a value stands for.
fn number(value: &Value) -> Option<f64> {
    match value {
        Value::Number { value, .. } => Some(*value),
        Value::Text(t) | Value::DoubleQuoted(t) | Value::Bare(t) => {
            t.trim().parse::<f64>().ok().filter(|v| v.is_finite())
        }
        _ => None,
    }
}

/// A value as a literal of the type; `None` when none of the type can equal it.
fn literal(ty: FieldType, value: &Value) -> Option<Lit> {
    match ty {
        FieldType::Text => Some(Lit::Text(fold(&text_of(value)))),
        FieldType::ExactText => Some(Lit::Text(text_of(value))),
        FieldType::Integer => {
            let x = number(value)?;
            (x.fract() == 0.0 && x.abs() < 9.2e18).then_some(Lit::Integer(x as i64))
        }
        FieldType::Double => number(value).map(Lit::Double),
        FieldType::Boolean => match fold(text_of(value).trim()).as_str() {
            "true" => Some(Lit::Boolean(true)),
            "false" => Some(Lit::Boolean(false)),
            _ => None,
        },
        FieldType::Time => value
            .date_time()
            .map(|t| Lit::Time(t.and_utc().timestamp_micros())),
    }
}

/// The items of an AND, with the items of nested ANDs in their place.
fn flatten_and<'e>(items: &'e [Expr], out: &mut Vec<&'e Expr>) {
    for item in items {
        match item {
            Expr::And(inner) => flatten_and(inner, out),
            other => out.push(other),
        }
    }
}

/// Whether a filter takes part in spec 2.12.6's "same related object": a positive
/// operator on a property of a related object type (`Children.Name = 'x'`). The bare
/// attribute (`Children = 'x'`, `"Data Classifications" = 'City'`) is a multi-valued
/// attribute like any other, and a NOT filter holds when no related object passes.
fn is_groupable(filter: &Filter) -> bool {
    let Subject::Attribute(path) = &filter.subject else {
        return false;
    };
    path.0.len() == 2
        && super::catalog::related_type(&path.0[0].text).is_some()
        && matches!(
            filter.op,
            Op::Eq(_)
                | Op::Lt(_)
                | Op::Le(_)
                | Op::Gt(_)
                | Op::Ge(_)
                | Op::EqAny(_)
                | Op::Exists
                | Op::StartsWith { not: false, .. }
                | Op::EndsWith { not: false, .. }
                | Op::Contains { not: false, .. }
                | Op::Before(_)
                | Op::After(_)
                | Op::Between(..)
        )
}

/// Spec 2.12.6: positive filters on the same related object type, ANDed, must hold on
/// the same related object. Merges the `Related` items of an AND by relation.
fn group_related(items: Vec<Cond>) -> Vec<Cond> {
    let mut out: Vec<Cond> = Vec::with_capacity(items.len());
    for item in items {
        if let Cond::Related(relation, inner) = item {
            if let Some(Cond::Related(_, existing)) = out
                .iter_mut()
                .find(|c| matches!(c, Cond::Related(r, _) if *r == relation))
            {
                let merged = std::mem::replace(existing.as_mut(), Cond::True);
                **existing = Cond::and(vec![merged, *inner]);
                continue;
            }
            out.push(Cond::Related(relation, inner));
        } else {
            out.push(item);
        }
    }
    out
}

/// The columns a `text` filter searches: those of WITHIN, or Name and Physical Name.
fn search_fields(within: &[String]) -> Vec<Column> {
    if within.is_empty() {
        return vec![Column::Name, Column::PhysicalName];
    }
    let mut fields = Vec::new();
    for w in within {
        let columns: &[Column] = match fold(w).as_str() {
            "name" => &[Column::Name],
            "physical name" => &[Column::PhysicalName],
            "description" => &[Column::Description],
            _ => &[
                Column::BusinessName,
                Column::BusinessDescription,
                Column::NativeId,
                Column::DataType,
            ],
        };
        for c in columns {
            if !fields.contains(c) {
                fields.push(*c);
            }
        }
    }
    fields
}

fn column(c: Column) -> Target {
    Target::Field(Field::Column(c))
}

/// What a system attribute reads.
fn system_target(name: &str, shape: Shape) -> Target {
    let out = |kind, name: Option<&str>| Cond::Edge {
        kind,
        name: name.map(str::to_owned),
        outgoing: true,
    };
    let incoming = |kind, name: Option<&str>| Cond::Edge {
        kind,
        name: name.map(str::to_owned),
        outgoing: false,
    };
    match name {
        "Name" => column(Column::Name),
        "Physical Name" => column(Column::PhysicalName),
        "Native Id" => column(Column::NativeId),
        "Description" => column(Column::Description),
        "Business Name" => column(Column::BusinessName),
        "Business Description" => column(Column::BusinessDescription),
        "Data Type" => column(Column::DataType),
        "External Url" => column(Column::ExternalUrl),
        "Workflow State" => column(Column::WorkflowState),
        "Object Type" => column(Column::TypeName),
        "Object Profile" => column(Column::Profile),
        "Object Type Id" => column(Column::TypeId),
        "Object System Type" => column(Column::SystemType),
        "Object Stable Id" => column(Column::StableId),
        "Model Id" => column(Column::ModelNumber),
        "Hide Data" => column(Column::HideData),
        "Updated Date" => column(Column::UpdatedAt),
        "Object Id" => Target::Id,
        "Parent" => Target::Related(Relation::Parent, Box::new(column(Column::Name))),
        "Children" => Target::Related(Relation::Children, Box::new(column(Column::Name))),
        "Labels" => Target::Field(Field::Tags(TagKind::Label)),
        "Collections" => Target::Field(Field::Tags(TagKind::Collection)),
        "Data Classifications" => class_names(ClassStatuses::Current),
        "Data Classifications Approved" => {
            class_names(ClassStatuses::Only(ClassificationStatus::Approved))
        }
        "Data Classifications Matched" => {
            class_names(ClassStatuses::Only(ClassificationStatus::Matched))
        }
        "Data Classifications Rejected" => {
            class_names(ClassStatuses::Only(ClassificationStatus::Rejected))
        }
        "Sensitivity Label" => Target::Field(Field::Labels(LabelSet::Top)),
        "Sensitivity Label Approved" => Target::Field(Field::Labels(LabelSet::TopApproved)),
        "Sensitivity Labels Matched" => Target::Field(Field::Labels(LabelSet::Matched)),
        "Sensitivity Labels Rejected" => Target::Field(Field::Labels(LabelSet::Rejected)),
        "Has Data Lineage" => Target::Flag(incoming(EdgeKind::Lineage, None)),
        "Has Data Impact" => Target::Flag(out(EdgeKind::Lineage, None)),
        "Has Semantic Definition" => Target::Flag(Cond::or(vec![
            out(EdgeKind::SemanticLink, None),
            out(EdgeKind::CustomRelationship, Some("Is Defined By")),
        ])),
        "Has Semantic Usage" => Target::Flag(Cond::or(vec![
            incoming(EdgeKind::SemanticLink, None),
            incoming(EdgeKind::CustomRelationship, Some("Is Defined By")),
        ])),
        "Context" => Target::Existence(Cond::Related(Relation::Parent, Box::new(Cond::True))),
        "Data Profiling" => Target::Existence(Cond::Has(Field::Profiling(ProfilingPart::Profile))),
        "Data Sampling" => Target::Existence(Cond::Has(Field::Profiling(ProfilingPart::Sample))),
        "Column Histogram" => {
            Target::Existence(Cond::Has(Field::Profiling(ProfilingPart::Histogram)))
        }
        "Column Statistics" => {
            Target::Existence(Cond::Has(Field::Profiling(ProfilingPart::Statistics)))
        }
        "Endorsed By" => Target::Field(Field::Curators(CurationKind::Endorsement)),
        "Certified By" => Target::Field(Field::Curators(CurationKind::Certification)),
        "Commented By" => Target::Field(Field::Curators(CurationKind::Comment)),
        "Warned By" => Target::Field(Field::Curators(CurationKind::Warning)),
        "Watchers" => Target::Field(Field::Curators(CurationKind::Watch)),
        "Endorsement Count" => Target::Field(Field::CurationCount(CurationKind::Endorsement)),
        "Comment Count" => Target::Field(Field::CurationCount(CurationKind::Comment)),
        "Warning Count" => Target::Field(Field::CurationCount(CurationKind::Warning)),
        "Certified" => Target::Flag(Cond::Has(Field::Curators(CurationKind::Certification))),
        _ => Target::Constant(None, shape.is_multi_valued() || shape.is_object_valued()),
    }
}

fn class_names(statuses: ClassStatuses) -> Target {
    Target::Related(
        Relation::DataClasses(statuses),
        Box::new(Target::Field(Field::ClassName)),
    )
}

fn profiling_target(name: &str) -> Target {
    match Statistic::of(name) {
        Some(statistic) => Target::Field(Field::Statistic(statistic)),
        None if name == "Inferred Data Types" => Target::Field(Field::InferredDataTypes),
        None => Target::Constant(None, false),
    }
}

fn meta_target(kind: AttributeKind, name: &str, value_type: ValueType) -> Target {
    match kind {
        AttributeKind::CustomRelationship | AttributeKind::ProfileRelationship => {
            Target::Existence(Cond::Edge {
                kind: EdgeKind::CustomRelationship,
                name: Some(name.to_owned()),
                outgoing: true,
            })
        }
        _ => Target::Field(Field::Attribute {
            name: name.to_owned(),
            ty: match value_type {
                ValueType::String | ValueType::Object => FieldType::Text,
                ValueType::Integer => FieldType::Integer,
                ValueType::Double => FieldType::Double,
                ValueType::Boolean => FieldType::Boolean,
                ValueType::Date | ValueType::DateTime => FieldType::Time,
            },
        }),
    }
}
