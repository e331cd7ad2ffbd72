//! The validator: checks a parsed query against the spec's rules and the meta model.
//!
//! What makes a query wrong is an error (INVALID_PARAMETER) that names the item and the
//! rule: an operator the attribute does not take (spec 2.2–2.4, 2.7, 2.12), an
//! object-valued attribute or custom relationship with anything but [NOT] EXISTS or
//! under an OR (2.3, 8), a relationship in a filter (2.1), a sort key that cannot be
//! sorted, `Relevance` beside other keys, a value of the wrong form (`ME` where no user
//! is meant, `LAST n DAYS` with another operator than `=`), notation marks without
//! `mqlVersion` below 3. What runs but may surprise (spec 7: unknown attributes, earlier
//! names under version 3) is a warning that says why.

use super::ast::{Expr, Filter, Name, Op, OrderKey, Path, Query, SelectItem, Subject, Value};
use super::catalog::{self, OpKind, OpSet, Replacement, Shape};
use super::resolve::{Property, Resolved, resolve};
use super::upgrade::upgrade;
use lore_model::error::{Error, Result};
use lore_model::{AttributeKind, MetaModel, ValueType};

/// The current MQL version.
pub const CURRENT_VERSION: u32 = 3;
/// The most filters a query (WHERE and scope together) may hold.
pub const MAX_FILTERS: usize = 500;
/// The most values one ANY or ALL list may hold.
pub const MAX_LIST_VALUES: usize = 1_000;
/// The most values all the lists of a query may hold together.
pub const MAX_QUERY_VALUES: usize = 10_000;
/// The most terms the search text of one `text` filter may hold.
pub const MAX_SEARCH_TERMS: usize = 32;

/// A SELECT item with what it refers to.
#[derive(Debug, Clone, PartialEq)]
pub enum Selected<'m> {
    /// An attribute; `None` when no attribute has the name (its value is empty).
    Attribute {
        path: Path,
        resolved: Option<Resolved<'m>>,
    },
    MembersOfRole(String),
    Count(String),
}

/// A query that passed validation, with what its names refer to and its warnings.
#[derive(Debug, Clone, PartialEq)]
pub struct Validated<'m> {
    /// The query that was validated, in current syntax (an earlier version's query
    /// upgraded).
    pub query: Query,
    pub select: Vec<Selected<'m>>,
    pub warnings: Vec<String>,
}

/// Validates `query` for MQL version `version` against the meta model. A query of an
/// earlier version is upgraded to current syntax first ([`upgrade`]) and validated as
/// that.
pub fn validate<'m>(query: &Query, meta: &'m MetaModel, version: u32) -> Result<Validated<'m>> {
    if let Some((single, written)) = single_quoted(query) {
        let mut validated = validate(&single, meta, version)?;
        validated
            .warnings
            .insert(0, double_quote_warning(&written, &single));
        return Ok(validated);
    }
    if version < CURRENT_VERSION {
        let (upgraded, mut warnings) = upgrade(query, meta);
        let mut validated = validate(&upgraded, meta, CURRENT_VERSION)?;
        warnings.append(&mut validated.warnings);
        validated.warnings = warnings;
        return Ok(validated);
    }
    let mut v = Validator {
        meta,
        warnings: Vec::new(),
        filters: 0,
        values: 0,
        after_search: false,
        restricted: false,
    };
    let mut select = Vec::new();
    for item in &query.select {
        select.push(match item {
            SelectItem::Attribute(path) => {
                let resolved = v.resolve(path, "SELECT")?;
                Selected::Attribute {
                    path: path.clone(),
                    resolved,
                }
            }
            SelectItem::MembersOfRole(role) => Selected::MembersOfRole(role.clone()),
            SelectItem::Count(relationship) => Selected::Count(relationship.clone()),
        });
    }
    if let Some(scope) = query.from.as_ref().and_then(|f| f.scope.as_ref()) {
        v.expr(scope, false, true)?;
    }
    if let Some(filter) = &query.filter {
        v.expr(filter, false, false)?;
    }
    v.order_by(&query.order_by)?;
    if v.after_search && !v.restricted {
        v.warnings.push(
            "a filter evaluated after the search (spec 2.12) runs over every object in scope; \
             add a restrictive filter such as category or content"
                .to_owned(),
        );
    }
    Ok(Validated {
        query: query.clone(),
        select,
        warnings: v.warnings,
    })
}

/// The query with its double-quoted values (`Name = "orders"`, as the vendor's pages
/// write them) in single quotes, and those values; `None` when it has none.
pub fn single_quoted(query: &Query) -> Option<(Query, Vec<String>)> {
    fn unquote(expr: &mut Expr, written: &mut Vec<String>) {
        match expr {
            Expr::And(items) | Expr::Or(items) => {
                items.iter_mut().for_each(|e| unquote(e, written))
            }
            Expr::Filter(filter) => {
                if let Op::EqWhere(inner) = &mut filter.op {
                    unquote(inner, written);
                }
                for value in filter.op.values_mut() {
                    if let Value::DoubleQuoted(text) = value {
                        let text = std::mem::take(text);
                        written.push(text.clone());
                        *value = Value::Text(text);
                    }
                }
            }
        }
    }
    let mut single = query.clone();
    let mut written = Vec::new();
    if let Some(scope) = single.from.as_mut().and_then(|f| f.scope.as_mut()) {
        unquote(scope, &mut written);
    }
    if let Some(filter) = single.filter.as_mut() {
        unquote(filter, &mut written);
    }
    (!written.is_empty()).then_some((single, written))
}

/// The warning for double-quoted values: MQL writes values in single quotes; here is the
/// whole query so written (a single quote inside a value doubled).
fn double_quote_warning(written: &[String], single: &Query) -> String {
    let shown: Vec<String> = written
        .iter()
        .map(|text| format!("\"{}\"", text.replace('"', "\"\"")))
        .collect();
    let (values, were) = if written.len() == 1 {
        ("the value", "was")
    } else {
        ("the values", "were")
    };
    format!(
        "{values} {} {were} written in double quotes, which MQL keeps for attribute names, and {were} read as text; \
         write values in single quotes: {single}",
        shown.join(", ")
    )
}

struct Validator<'m> {
    meta: &'m MetaModel,
    warnings: Vec<String>,
    /// Filters seen so far (at most [`MAX_FILTERS`]).
    filters: usize,
    /// List values seen so far (at most [`MAX_QUERY_VALUES`]).
    values: usize,
    /// A filter on an attribute evaluated after the search was seen.
    after_search: bool,
    /// A category or content filter restricts the search.
    restricted: bool,
}

/// A path as written, for messages.
fn shown(path: &Path) -> String {
    path.to_string()
}

/// The operator of a filter without its values.
fn op_kind(op: &Op) -> Option<OpKind> {
    Some(match op {
        Op::Eq(_) => OpKind::Eq,
        Op::Ne(_) => OpKind::Ne,
        Op::Lt(_) => OpKind::Lt,
        Op::Le(_) => OpKind::Le,
        Op::Gt(_) => OpKind::Gt,
        Op::Ge(_) => OpKind::Ge,
        Op::EqAny(_) => OpKind::EqAny,
        Op::NeAny(_) => OpKind::NeAny,
        Op::EqAll(_) => OpKind::EqAll,
        Op::NeAll(_) => OpKind::NeAll,
        Op::Exists => OpKind::Exists,
        Op::NotExists => OpKind::NotExists,
        Op::StartsWith { not: false, .. } => OpKind::StartsWith,
        Op::StartsWith { not: true, .. } => OpKind::NotStartsWith,
        Op::EndsWith { not: false, .. } => OpKind::EndsWith,
        Op::EndsWith { not: true, .. } => OpKind::NotEndsWith,
        Op::Contains { not: false, .. } => OpKind::Contains,
        Op::Contains { not: true, .. } => OpKind::NotContains,
        Op::Before(_) => OpKind::Before,
        Op::After(_) => OpKind::After,
        // NOT BETWEEN applies wherever BETWEEN does.
        Op::Between(..) | Op::NotBetween(..) => OpKind::Between,
        Op::EqWhere(_) => return None,
    })
}

/// What a filter subject is for the operator and value rules.
#[derive(Debug, Clone, Copy)]
struct Rules {
    operators: OpSet,
    /// Object-valued or a custom relationship: [NOT] EXISTS only, under AND only.
    existence_only: bool,
    /// Evaluated after the search: under AND only.
    after_search: bool,
    /// Values are user or group names (`ME` allowed).
    principals: bool,
    /// What the values must be.
    values: Values,
}

/// The values an attribute compares with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Values {
    Any,
    /// Numbers, written without quotes (quoted numbers are taken too).
    Numbers,
    /// Dates and datetimes, TODAY, YESTERDAY, LAST n DAYS|HOURS|MINUTES.
    Dates,
    /// `true` or `false`.
    Booleans,
}

impl Values {
    fn of_shape(shape: Shape) -> Self {
        match shape {
            Shape::Integer | Shape::Long | Shape::Double => Self::Numbers,
            Shape::DateTime => Self::Dates,
            Shape::Boolean => Self::Booleans,
            _ => Self::Any,
        }
    }

    fn of_type(value_type: ValueType) -> Self {
        match value_type {
            ValueType::Integer | ValueType::Double => Self::Numbers,
            ValueType::Date | ValueType::DateTime => Self::Dates,
            ValueType::Boolean => Self::Booleans,
            ValueType::String | ValueType::Object => Self::Any,
        }
    }

    /// What `value` should have been, or `None` when it is one of these values.
    fn refuses(self, value: &Value) -> Option<&'static str> {
        let text = match value {
            Value::Text(text) | Value::Bare(text) => Some(text.trim()),
            _ => None,
        };
        let (fits, expected) = match self {
            Self::Any => (true, ""),
            Self::Numbers => (
                matches!(value, Value::Number { .. })
                    || text.is_some_and(|t| t.parse::<f64>().is_ok_and(f64::is_finite)),
                "a number",
            ),
            Self::Dates => (
                matches!(value, Value::Today | Value::Yesterday | Value::Last { .. })
                    || value.date_time().is_some(),
                "a date ('YYYY-MM-DD' or 'YYYY-MM-DD hh:mm:ss' in UTC), TODAY, YESTERDAY or LAST n DAYS|HOURS|MINUTES",
            ),
            Self::Booleans => (
                text.is_some_and(|t| {
                    t.eq_ignore_ascii_case("true") || t.eq_ignore_ascii_case("false")
                }),
                "true or false",
            ),
        };
        (!fits).then_some(expected)
    }
}

impl<'m> Validator<'m> {
    /// Resolves a path; an unknown name is a warning (spec 7), answering `None`.
    fn resolve(&mut self, path: &Path, clause: &str) -> Result<Option<Resolved<'m>>> {
        let names = self.names(path)?;
        let parts: Vec<&str> = names.iter().map(String::as_str).collect();
        match resolve(&parts, self.meta) {
            Ok(resolved) => Ok(Some(resolved)),
            Err(unresolved) => {
                self.warnings
                    .push(format!("{clause}: {unresolved}; it matches nothing"));
                Ok(None)
            }
        }
    }

    /// The names of a path in current syntax: notation marks are refused, earlier names
    /// warned about (an earlier version's query comes here upgraded).
    fn names(&mut self, path: &Path) -> Result<Vec<String>> {
        let mut names = Vec::with_capacity(path.0.len());
        for Name { text, marks, .. } in &path.0 {
            if marks.is_some() {
                return Err(Error::invalid(format!(
                    "the notation marks around '{text}' are MQL version 1 syntax; drop them, or pass mqlVersion=1"
                )));
            }
            names.push(text.clone());
        }
        if let [only] = names.as_slice()
            && let Some(replacement) = catalog::earlier_name(only)
        {
            let current = match replacement {
                Replacement::Attribute(name) | Replacement::Grantees(name) => name,
                Replacement::Term => "Term Documentation",
                Replacement::InferredDocumentation => "Inferred Documentation",
                Replacement::Stewards => {
                    "MembersOfRole('Steward') or ExpandedMembersOfRole('Steward')"
                }
            };
            self.warnings.push(format!(
                "'{only}' is a name of MQL version 2 and earlier; with mqlVersion=3 write {current}"
            ));
        }
        Ok(names)
    }

    /// Checks a condition; `under_or` when an OR is above it, `scope` in scope filters.
    fn expr(&mut self, expr: &Expr, under_or: bool, scope: bool) -> Result<()> {
        match expr {
            Expr::And(items) => items.iter().try_for_each(|e| self.expr(e, under_or, scope)),
            Expr::Or(items) => items.iter().try_for_each(|e| self.expr(e, true, scope)),
            Expr::Filter(filter) => self.filter(filter, under_or, scope),
        }
    }

    fn filter(&mut self, filter: &Filter, under_or: bool, scope: bool) -> Result<()> {
        let Filter { subject, op } = filter;
        self.filters += 1;
        if self.filters > MAX_FILTERS {
            return Err(Error::invalid(format!(
                "the query holds more than {MAX_FILTERS} filters; split it, or use ANY lists"
            )));
        }
        if let Op::EqAny(list) | Op::NeAny(list) | Op::EqAll(list) | Op::NeAll(list) = op {
            if list.len() > MAX_LIST_VALUES {
                return Err(Error::invalid(format!(
                    "a list of {} values is longer than the {MAX_LIST_VALUES} one filter may hold",
                    list.len()
                )));
            }
            self.values += list.len();
            if self.values > MAX_QUERY_VALUES {
                return Err(Error::invalid(format!(
                    "the lists of the query hold more than {MAX_QUERY_VALUES} values together"
                )));
            }
        }
        if let (Subject::Text { .. }, Op::Eq(Value::Text(text))) = (subject, op) {
            let terms = super::search::parse_search_text(text).len();
            if terms > MAX_SEARCH_TERMS {
                return Err(Error::invalid(format!(
                    "the search text holds {terms} terms; at most {MAX_SEARCH_TERMS} are searched for"
                )));
            }
        }
        if matches!(subject, Subject::Category | Subject::Content) && !under_or {
            self.restricted = true;
        }
        if let Op::EqWhere(inner) = op {
            if !scope {
                return Err(Error::invalid(
                    "'= WHERE (...)' is a scope filter (Model = WHERE (...)); it belongs in the scope of FROM",
                ));
            }
            return self.expr(inner, under_or, scope);
        }
        let Some(kind) = op_kind(op) else {
            return Ok(());
        };
        let (what, rules) = match subject {
            Subject::Attribute(path) => {
                let what = shown(path);
                match self.attribute_rules(path, kind)? {
                    Some(rules) => (what, rules),
                    None => return Ok(()),
                }
            }
            Subject::Text { within, semantic } => {
                let name = if *semantic {
                    "semantic_search_text"
                } else {
                    "text"
                };
                for property in within {
                    if !catalog::WITHIN
                        .iter()
                        .any(|w| w.eq_ignore_ascii_case(property))
                    {
                        return Err(Error::invalid(format!(
                            "{name} WITHIN '{property}': the properties are {}",
                            catalog::WITHIN.join(", ")
                        )));
                    }
                }
                (name.to_owned(), plain(OpSet::of(&[OpKind::Eq])))
            }
            Subject::Category => (
                "category".to_owned(),
                plain(OpSet::of(&[OpKind::Eq, OpKind::EqAny])),
            ),
            Subject::Content => (
                "content".to_owned(),
                plain(OpSet::of(&[
                    OpKind::Eq,
                    OpKind::Ne,
                    OpKind::EqAny,
                    OpKind::NeAny,
                ])),
            ),
            Subject::ExpandedMembersOfRole(role) => (
                format!("ExpandedMembersOfRole('{role}')"),
                Rules {
                    principals: true,
                    ..plain(catalog::M)
                },
            ),
            Subject::Count(relationship) => (
                format!("Count('{relationship}')"),
                Rules {
                    values: Values::Numbers,
                    ..plain(catalog::N)
                },
            ),
        };
        if !rules.operators.contains(kind) {
            let operator = match op {
                Op::NotBetween(..) => "NOT BETWEEN",
                _ => op_text(kind),
            };
            return Err(Error::invalid(format!(
                "{what} does not take the operator {operator}"
            )));
        }
        if rules.existence_only && under_or {
            return Err(Error::invalid(format!(
                "{what} can only be tested with [NOT] EXISTS ANDed with the other filters, not under OR"
            )));
        }
        if rules.after_search {
            if under_or {
                return Err(Error::invalid(format!(
                    "{what} is evaluated after the search (spec 2.12): AND it with the other filters, do not OR it"
                )));
            }
            self.after_search = true;
        }
        for value in op.values() {
            match value {
                Value::Me if !rules.principals => {
                    return Err(Error::invalid(format!(
                        "ME stands for the caller and is a value of user filters only, not of {what}"
                    )));
                }
                Value::Today | Value::Yesterday | Value::Last { .. }
                    if rules.values != Values::Dates =>
                {
                    return Err(Error::invalid(format!(
                        "{what} is not a date; TODAY, YESTERDAY and LAST ... are values of date filters"
                    )));
                }
                Value::Last { .. } if kind != OpKind::Eq => {
                    return Err(Error::invalid(format!(
                        "LAST ... can only be used with = (in {what})"
                    )));
                }
                _ => {}
            }
            if let Some(expected) = rules.values.refuses(value) {
                return Err(Error::invalid(format!(
                    "{what} takes {expected}; {value} is not one"
                )));
            }
        }
        Ok(())
    }

    /// The rules of an attribute filter, `None` when the attribute is unknown (a
    /// warning says what the filter then matches).
    fn attribute_rules(&mut self, path: &Path, kind: OpKind) -> Result<Option<Rules>> {
        let what = shown(path);
        let Some(resolved) = self.resolve_for_filter(path)? else {
            let matches = match kind {
                OpKind::NotExists => "every object",
                _ => "no object",
            };
            self.warnings
                .push(format!("the filter on {what} matches {matches}"));
            return Ok(None);
        };
        // A related object type evaluated after the search (the inferred origins) makes
        // its properties so too; slow attributes are worth a warning (spec 8.5).
        let related = (path.0.len() > 1)
            .then(|| catalog::system_attribute(&path.0[0].text))
            .flatten();
        let own = match resolved {
            Found::System(a) => Some(a),
            _ => None,
        };
        if related.or(own).is_some_and(|a| a.slow) {
            self.warnings.push(format!(
                "{what} is marked as slow (spec 8.5); the query may take long"
            ));
        }
        let related_after_search = related.is_some_and(|a| a.after_search);
        let rules = self.rules_of(resolved, &what)?;
        Ok(Some(Rules {
            after_search: rules.after_search || related_after_search,
            ..rules
        }))
    }

    /// The rules of a resolved filter subject.
    fn rules_of(&mut self, resolved: Found, what: &str) -> Result<Rules> {
        Ok(match resolved {
            Found::System(attribute) => Rules {
                operators: attribute.operators,
                existence_only: attribute.shape.is_object_valued(),
                after_search: attribute.after_search,
                principals: attribute.takes_principals,
                values: Values::of_shape(attribute.shape),
            },
            Found::Profiling(attribute) => Rules {
                values: Values::of_shape(attribute.shape),
                ..plain(attribute.operators)
            },
            Found::Meta(kind, value_type) => match kind {
                AttributeKind::CustomRelationship => Rules {
                    existence_only: true,
                    ..plain(catalog::E)
                },
                AttributeKind::ProfileRelationship => {
                    return Err(Error::invalid(format!(
                        "{what} is a relationship; relationships can only be selected, not filtered on"
                    )));
                }
                AttributeKind::Udp => plain(catalog::UDP),
                _ => Rules {
                    values: Values::of_type(value_type),
                    ..plain(catalog::CUSTOM)
                },
            },
            Found::DataClass => plain(catalog::S),
        })
    }

    /// What a filter's path refers to, reduced to what the rules need.
    fn resolve_for_filter(&mut self, path: &Path) -> Result<Option<Found>> {
        let Some(resolved) = self.resolve(path, "WHERE")? else {
            return Ok(None);
        };
        Ok(Some(match resolved {
            Resolved::System(a) => Found::System(a),
            Resolved::Profiling(a) => Found::Profiling(a),
            Resolved::Meta { attribute, .. } => Found::Meta(attribute.kind, attribute.value_type),
            Resolved::Related { property, .. } => match property {
                Property::System(a) => Found::System(a),
                Property::Profiling(a) => Found::Profiling(a),
                Property::Meta(attribute) => Found::Meta(attribute.kind, attribute.value_type),
                Property::DataClass(_) => Found::DataClass,
            },
        }))
    }

    fn order_by(&mut self, keys: &[OrderKey]) -> Result<()> {
        if keys.len() > 1 && keys.iter().any(|k| matches!(k, OrderKey::Relevance)) {
            return Err(Error::invalid(
                "ORDER BY Relevance cannot be combined with other sort keys",
            ));
        }
        for key in keys {
            let OrderKey::Attribute { path, .. } = key else {
                continue;
            };
            let what = shown(path);
            let sortable = match self.resolve_for_filter(path)? {
                None => continue,
                Some(Found::System(a)) => a.shape.is_sortable(),
                Some(Found::Profiling(a)) => a.shape.is_sortable(),
                Some(Found::Meta(kind, value_type)) => {
                    !matches!(
                        kind,
                        AttributeKind::CustomRelationship | AttributeKind::ProfileRelationship
                    ) && value_type != ValueType::Object
                }
                Some(Found::DataClass) => true,
            };
            if !sortable {
                return Err(Error::invalid(format!(
                    "ORDER BY {what}: its values are arrays or objects, which cannot be sorted"
                )));
            }
        }
        Ok(())
    }
}

/// What a resolved filter subject is, for the rules.
#[derive(Debug, Clone, Copy)]
enum Found {
    System(&'static catalog::SystemAttribute),
    Profiling(&'static catalog::ProfilingAttribute),
    Meta(AttributeKind, ValueType),
    DataClass,
}

fn plain(operators: OpSet) -> Rules {
    Rules {
        operators,
        existence_only: false,
        after_search: false,
        principals: false,
        values: Values::Any,
    }
}

/// An operator as written in MQL.
fn op_text(kind: OpKind) -> &'static str {
    match kind {
        OpKind::Eq => "=",
        OpKind::Ne => "!=",
        OpKind::EqAny => "= ANY",
        OpKind::NeAny => "!= ANY",
        OpKind::EqAll => "= ALL",
        OpKind::NeAll => "!= ALL",
        OpKind::Exists => "EXISTS",
        OpKind::NotExists => "NOT EXISTS",
        OpKind::StartsWith => "STARTS WITH",
        OpKind::NotStartsWith => "NOT STARTS WITH",
        OpKind::EndsWith => "ENDS WITH",
        OpKind::NotEndsWith => "NOT ENDS WITH",
        OpKind::Contains => "CONTAINS",
        OpKind::NotContains => "NOT CONTAINS",
        OpKind::Lt => "<",
        OpKind::Le => "<=",
        OpKind::Gt => ">",
        OpKind::Ge => ">=",
        OpKind::Between => "BETWEEN",
        OpKind::Before => "BEFORE",
        OpKind::After => "AFTER",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{QueryFields, parse_fields};

    fn check(
        select: &str,
        filter: Option<&str>,
        order_by: Option<&str>,
        version: u32,
    ) -> Result<Vec<String>> {
        let meta = MetaModel::builtin();
        let query = parse_fields(&QueryFields {
            select,
            from: Some("/Repository (Model = WHERE (Name = 'Sales'))"),
            filter,
            order_by,
            ..QueryFields::default()
        })?;
        validate(&query, &meta, version).map(|v| v.warnings)
    }

    fn filter(text: &str) -> Result<Vec<String>> {
        check("Name", Some(text), None, CURRENT_VERSION)
    }

    fn refused(text: &str, says: &str) {
        match filter(text) {
            Err(e) => assert!(
                e.message.contains(says),
                "{text}: '{}' should say '{says}'",
                e.message
            ),
            Ok(w) => panic!("{text} should be refused, validated with warnings {w:?}"),
        }
    }

    fn accepted(text: &str) {
        if let Err(e) = filter(text) {
            panic!("{text} should validate: {}", e.message);
        }
    }

    #[test]
    fn operators_follow_each_attributes_set() {
        accepted("Name STARTS WITH 'a' AND Description NOT CONTAINS 'b'");
        accepted("\"Comment Count\" >= 3 AND \"Model Id\" != ANY (1, 2)");
        accepted("Labels = ALL ('PII', 'Gold') OR \"Hide Data\" = 'true'");
        refused("Name < 'a'", "does not take the operator <");
        refused("Labels CONTAINS 'P'", "does not take the operator CONTAINS");
        refused(
            "\"Object Type\" EXISTS",
            "does not take the operator EXISTS",
        );
        refused("Parent != 'x'", "does not take the operator !=");
    }

    #[test]
    fn object_valued_attributes_and_custom_relationships_only_test_existence_under_and() {
        accepted("\"Data Profiling\" EXISTS AND Name = 'a'");
        accepted("\"Is Defined By\" NOT EXISTS");
        refused("\"Data Profiling\" EXISTS OR Name = 'a'", "not under OR");
        refused("Context = 'x'", "does not take the operator =");
        refused("\"Is Defined By\" = 'x'", "does not take the operator =");
        refused(
            "Name = 'a' OR (\"Is Defined By\" EXISTS AND Name = 'b')",
            "not under OR",
        );
    }

    #[test]
    fn data_profiling_and_related_properties() {
        accepted(
            "\"Data Profiling\".Max > 3 AND \"Data Profiling\".\"Inferred Data Types\" = ALL ('a')",
        );
        refused(
            "\"Data Profiling\".Max STARTS WITH '1'",
            "does not take the operator STARTS WITH",
        );
        refused(
            "\"Data Profiling\".Max = ALL (1, 2)",
            "does not take the operator = ALL",
        );
        accepted("Parent.\"Object Type\" = 'Table' AND Children.Name STARTS WITH 'c'");
        accepted("\"Data Classifications\".Name = 'City'");
    }

    #[test]
    fn value_forms_fit_their_attribute() {
        accepted("\"Endorsed By\" = ME AND ExpandedMembersOfRole('Steward') = ANY (ME, 'ann')");
        refused("Name = ME", "ME stands for the caller");
        accepted("\"Updated Date\" = LAST 7 DAYS");
        accepted("\"Updated Date\" BETWEEN YESTERDAY AND TODAY");
        refused("\"Updated Date\" BEFORE LAST 7 DAYS", "only be used with =");
        refused("Name = TODAY", "is not a date");
        accepted("\"Updated Date\" BETWEEN 2024-01-01 AND '2024-06-30 12:00:00'");
        refused("\"Updated Date\" AFTER 'last week'", "takes a date");
        accepted(
            "\"Comment Count\" > 2 AND \"Data Profiling\".Mean <= '3.5' AND \"Row Count\" > 10",
        );
        refused(
            "\"Comment Count\" > 'many'",
            "takes a number; 'many' is not one",
        );
        refused("\"Data Profiling\".Max BETWEEN 1 AND 'x'", "takes a number");
        accepted("\"Hide Data\" = 'TRUE' AND Certified != false");
        refused("\"Hide Data\" = 'yes'", "takes true or false");
    }

    #[test]
    fn search_category_content_and_scope() {
        accepted("text = 'customer' WITHIN (Name, Description) AND category = ANY ('Database')");
        refused("text != 'customer'", "does not take the operator !=");
        refused(
            "text = 'x' WITHIN (Owner)",
            "the properties are Name, Physical Name, Description, Others",
        );
        refused("category != 'x'", "does not take the operator !=");
        refused("Model = WHERE (Name = 'x')", "belongs in the scope of FROM");
    }

    #[test]
    fn unknown_names_run_with_a_warning() {
        let warnings = filter("Nope = 'x'").unwrap();
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("'Nope' is not an attribute")),
            "{warnings:?}"
        );
        assert!(
            warnings.iter().any(|w| w.contains("matches no object")),
            "{warnings:?}"
        );
        let warnings = filter("Nope NOT EXISTS").unwrap();
        assert!(
            warnings.iter().any(|w| w.contains("matches every object")),
            "{warnings:?}"
        );
        let warnings = check("Name, Nope", None, None, CURRENT_VERSION).unwrap();
        assert!(
            warnings.iter().any(|w| w.starts_with("SELECT: 'Nope'")),
            "{warnings:?}"
        );
    }

    #[test]
    fn earlier_versions_take_earlier_names_and_marks() {
        assert!(
            check("Name", Some("#Name# = 'x'"), None, 1)
                .unwrap()
                .is_empty()
        );
        let refusal = check("Name", Some("#Name# = 'x'"), None, CURRENT_VERSION).unwrap_err();
        assert!(
            refusal.message.contains("mqlVersion=1"),
            "{}",
            refusal.message
        );
        assert!(
            check("Name", Some("\"Semantic Types\" = 'City'"), None, 2)
                .unwrap()
                .is_empty()
        );
        let warnings = filter("\"Semantic Types\" = 'City'").unwrap();
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("write Data Classifications")),
            "{warnings:?}"
        );
        assert!(
            check("Stewards", Some("Stewards = 'ann'"), None, 2)
                .unwrap()
                .is_empty()
        );
        let warnings = filter("Stewards = 'ann'").unwrap();
        assert!(
            warnings
                .iter()
                .any(|w| w.contains("ExpandedMembersOfRole('Steward')")),
            "{warnings:?}"
        );
    }

    #[test]
    fn sort_keys_must_be_sortable() {
        assert!(check("Name", None, Some("\"Updated Date\""), CURRENT_VERSION).is_ok());
        assert!(
            check(
                "Name",
                None,
                Some("Name desc, \"Comment Count\" asc"),
                CURRENT_VERSION
            )
            .is_ok()
        );
        let refusal = check("Name", None, Some("Labels"), CURRENT_VERSION).unwrap_err();
        assert!(
            refusal.message.contains("cannot be sorted"),
            "{}",
            refusal.message
        );
        let refusal = check("Name", None, Some("Relevance, Name"), CURRENT_VERSION).unwrap_err();
        assert!(
            refusal.message.contains("Relevance cannot be combined"),
            "{}",
            refusal.message
        );
    }

    #[test]
    fn filters_evaluated_after_the_search_are_anded_only() {
        let warnings = filter("\"My Workflow Tasks\" = 'Approve' AND category = 'Database'")
            .unwrap_or_else(|e| panic!("{}", e.message));
        assert!(warnings.is_empty(), "{warnings:?}");
        let warnings = filter("\"Workflow Assignees\" = ME AND Name = 'x'")
            .unwrap_or_else(|e| panic!("{}", e.message));
        assert!(
            warnings.iter().any(|w| w.contains("restrictive filter")),
            "{warnings:?}"
        );
        refused(
            "\"My Workflow Tasks\" = 'Approve' OR Name = 'x'",
            "evaluated after the search",
        );
        refused(
            "Name = 'x' OR \"Business Name Inferred Origin\".Name = 'y'",
            "evaluated after the search",
        );
        let warnings = filter("\"Inferred Documentation\" EXISTS AND content = 'Sales'")
            .unwrap_or_else(|e| panic!("{}", e.message));
        assert!(warnings.iter().any(|w| w.contains("slow")), "{warnings:?}");
    }

    #[test]
    fn limits_on_filters_and_lists() {
        let values: Vec<String> = (0..=MAX_LIST_VALUES).map(|i| format!("'{i}'")).collect();
        refused(
            &format!("Name = ANY ({})", values.join(", ")),
            "values is longer than",
        );
        let filters: Vec<String> = (0..=MAX_FILTERS).map(|i| format!("Name = '{i}'")).collect();
        refused(&filters.join(" OR "), "more than 500 filters");
        accepted(&filters[..MAX_FILTERS - 10].join(" OR "));
    }
}
