//! Queries built in code: what the web UI, the CLI and the catalog's own calls ask, as a
//! typed [`Query`] rather than MQL text put together with `format!` and parsed back.
//!
//! ```
//! use lore_mql::build::{Attr, all, search_text};
//! use lore_mql::Query;
//!
//! let query = Query::select([Attr::NAME, Attr::OBJECT_TYPE])
//!     .filter(all([search_text("orders"), Attr::OBJECT_TYPE.any(["Table", "View"])]))
//!     .order_by(Attr::NAME);
//! assert_eq!(
//!     query.to_string(),
//!     "SELECT Name, \"Object Type\" WHERE text = 'orders' AND \"Object Type\" = ANY ('Table', 'View') ORDER BY Name"
//! );
//! ```
//!
//! A built query is validated like a parsed one (its names resolve against the meta
//! model), and its text ([`Query`]'s `Display`) is what a user may copy into the API.

use crate::ast::{
    Expr, Filter, Name, Op, OrderKey, Path, Query, SelectItem, SourceId, Subject, Value,
};

/// A system attribute of the spec (mql.md section 2.4), named once: the SELECT items,
/// filters and ORDER BY keys of built queries, and the key by which an answer's values are
/// read (each answer attribute carries the name as its display name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Attr(&'static str);

impl Attr {
    pub const NAME: Attr = Attr("Name");
    pub const OBJECT_TYPE: Attr = Attr("Object Type");
    pub const OBJECT_ID: Attr = Attr("Object Id");
    pub const OBJECT_STABLE_ID: Attr = Attr("Object Stable Id");
    pub const MODEL_ID: Attr = Attr("Model Id");
    pub const CONTEXT: Attr = Attr("Context");
    pub const DESCRIPTION: Attr = Attr("Description");
    pub const PHYSICAL_NAME: Attr = Attr("Physical Name");
    pub const LABELS: Attr = Attr("Labels");
    pub const DATA_CLASSIFICATIONS: Attr = Attr("Data Classifications");
    pub const SENSITIVITY_LABEL: Attr = Attr("Sensitivity Label");
    pub const CERTIFIED: Attr = Attr("Certified");
    pub const ENDORSED_BY: Attr = Attr("Endorsed By");
    pub const ENDORSEMENT_COUNT: Attr = Attr("Endorsement Count");
    pub const WARNED_BY: Attr = Attr("Warned By");
    pub const WARNING_COUNT: Attr = Attr("Warning Count");
    pub const HAS_DATA_LINEAGE: Attr = Attr("Has Data Lineage");
    pub const HAS_DATA_IMPACT: Attr = Attr("Has Data Impact");
    pub const UPDATED_DATE: Attr = Attr("Updated Date");
    pub const UPDATED_BY: Attr = Attr("Updated By");

    /// The attribute's name, as the spec writes it and answers carry it.
    pub const fn name(self) -> &'static str {
        self.0
    }

    /// The attribute of the object itself.
    pub fn field(self) -> Field {
        Field(Path(vec![Name::plain(self.0)]))
    }

    /// The attribute of the object's parent (`Parent."Object Id"`).
    pub fn of_parent(self) -> Field {
        Field(Path(vec![Name::plain("Parent"), Name::plain(self.0)]))
    }

    /// `<attribute> = <value>`.
    pub fn eq(self, value: impl Into<Value>) -> Expr {
        self.field().eq(value)
    }

    /// `<attribute> = <value>` for one value, `= ANY (...)` for more.
    pub fn any<V: Into<Value>>(self, values: impl IntoIterator<Item = V>) -> Expr {
        self.field().any(values)
    }

    /// `<attribute> EXISTS`.
    pub fn exists(self) -> Expr {
        self.field().exists()
    }
}

/// What a filter tests: an attribute of the object or of a related object.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Field(Path);

impl Field {
    /// `<field> = <value>`.
    pub fn eq(self, value: impl Into<Value>) -> Expr {
        filter(Subject::Attribute(self.0), Op::Eq(value.into()))
    }

    /// `<field> = <value>` for one value, `= ANY (...)` for more.
    pub fn any<V: Into<Value>>(self, values: impl IntoIterator<Item = V>) -> Expr {
        let mut values: Vec<Value> = values.into_iter().map(Into::into).collect();
        let op = if values.len() == 1 {
            Op::Eq(values.remove(0))
        } else {
            Op::EqAny(values)
        };
        filter(Subject::Attribute(self.0), op)
    }

    /// `<field> EXISTS`.
    pub fn exists(self) -> Expr {
        filter(Subject::Attribute(self.0), Op::Exists)
    }
}

fn filter(subject: Subject, op: Op) -> Expr {
    Expr::Filter(Filter { subject, op })
}

/// `text = '<search text>'`: the search of spec section 2.12 ([`crate::search`]).
pub fn search_text(text: &str) -> Expr {
    filter(
        Subject::Text {
            semantic: false,
            within: Vec::new(),
        },
        Op::Eq(Value::Text(text.to_owned())),
    )
}

/// The conditions that must all hold: `None` for none, the one itself for one.
pub fn all(conditions: impl IntoIterator<Item = Expr>) -> Option<Expr> {
    let mut conditions: Vec<Expr> = conditions.into_iter().collect();
    match conditions.len() {
        0 => None,
        1 => conditions.pop(),
        _ => Some(Expr::And(conditions)),
    }
}

/// A query's clauses as text ([`Query::clause_texts`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClauseTexts {
    pub select: String,
    pub from: Option<String>,
    pub context: Option<String>,
    pub filter: Option<String>,
    pub order_by: Option<String>,
}

impl From<&str> for Value {
    fn from(text: &str) -> Self {
        Value::Text(text.to_owned())
    }
}

impl From<String> for Value {
    fn from(text: String) -> Self {
        Value::Text(text)
    }
}

impl From<&String> for Value {
    fn from(text: &String) -> Self {
        Value::Text(text.clone())
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Self {
        Value::Number {
            text: n.to_string(),
            value: n as f64,
        }
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Self {
        Value::Bare(if b { "true" } else { "false" }.to_owned())
    }
}

impl From<Attr> for SelectItem {
    fn from(attr: Attr) -> Self {
        SelectItem::Attribute(attr.field().0)
    }
}

impl From<Field> for SelectItem {
    fn from(field: Field) -> Self {
        SelectItem::Attribute(field.0)
    }
}

impl From<Attr> for OrderKey {
    fn from(attr: Attr) -> Self {
        OrderKey::Attribute {
            path: attr.field().0,
            direction: None,
        }
    }
}

impl Query {
    /// A query of these SELECT items over everything the caller sees.
    pub fn select<I: Into<SelectItem>>(items: impl IntoIterator<Item = I>) -> Query {
        Query {
            select: items.into_iter().map(Into::into).collect(),
            from: None,
            context: None,
            filter: None,
            order_by: Vec::new(),
        }
    }

    /// The query with this WHERE condition (none for `None`).
    pub fn filter(mut self, condition: impl Into<Option<Expr>>) -> Query {
        self.filter = condition.into();
        self
    }

    /// The query with one more ORDER BY key.
    pub fn order_by(mut self, key: impl Into<OrderKey>) -> Query {
        self.order_by.push(key.into());
        self
    }

    /// The query with this FROM id (an object id, stable id or repository path).
    pub fn from(mut self, id: &str) -> Query {
        self.from = Some(crate::ast::FromClause {
            id: SourceId::plain(id),
            scope: None,
        });
        self
    }

    /// The clauses as the query endpoints' fields carry them (a saved worksheet), in
    /// current syntax.
    pub fn clause_texts(&self) -> ClauseTexts {
        let listed = |items: Vec<String>| items.join(", ");
        ClauseTexts {
            select: listed(self.select.iter().map(ToString::to_string).collect()),
            from: self.from.as_ref().map(ToString::to_string),
            context: self.context.as_ref().map(ToString::to_string),
            filter: self.filter.as_ref().map(ToString::to_string),
            order_by: (!self.order_by.is_empty())
                .then(|| listed(self.order_by.iter().map(ToString::to_string).collect())),
        }
    }

    /// Whether the SELECT list names the attribute (as written, case aside).
    pub fn selects(&self, attr: Attr) -> bool {
        self.select.iter().any(|item| match item {
            SelectItem::Attribute(Path(names)) => {
                names.len() == 1 && names[0].text.eq_ignore_ascii_case(attr.name())
            }
            _ => false,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::system_attribute;
    use crate::parse::parse_text;

    #[test]
    fn every_attribute_is_a_system_attribute_of_the_spec() {
        for attr in [
            Attr::NAME,
            Attr::OBJECT_TYPE,
            Attr::OBJECT_ID,
            Attr::OBJECT_STABLE_ID,
            Attr::MODEL_ID,
            Attr::CONTEXT,
            Attr::DESCRIPTION,
            Attr::PHYSICAL_NAME,
            Attr::LABELS,
            Attr::DATA_CLASSIFICATIONS,
            Attr::SENSITIVITY_LABEL,
            Attr::CERTIFIED,
            Attr::ENDORSED_BY,
            Attr::ENDORSEMENT_COUNT,
            Attr::WARNED_BY,
            Attr::WARNING_COUNT,
            Attr::HAS_DATA_LINEAGE,
            Attr::HAS_DATA_IMPACT,
            Attr::UPDATED_DATE,
            Attr::UPDATED_BY,
        ] {
            let found = system_attribute(attr.name());
            assert!(found.is_some_and(|a| !a.deprecated), "{}", attr.name());
        }
    }

    #[test]
    fn built_queries_read_back_as_they_were_built() {
        let query = Query::select([Attr::NAME, Attr::OBJECT_ID])
            .filter(all([
                search_text("cust's"),
                Attr::MODEL_ID.any([3]),
                Attr::OBJECT_ID.of_parent().eq("4_1"),
                Attr::CERTIFIED.eq(true),
                Attr::WARNED_BY.exists(),
            ]))
            .order_by(Attr::NAME);
        let text = query.to_string();
        assert_eq!(
            text,
            "SELECT Name, \"Object Id\" WHERE text = 'cust''s' AND \"Model Id\" = 3 AND \
             Parent.\"Object Id\" = '4_1' AND Certified = true AND \"Warned By\" EXISTS \
             ORDER BY Name"
        );
        assert_eq!(parse_text(&text).unwrap().to_string(), text);
        let clauses =
            parse_text("select Name, \"Object Id\" from /Folder where x = 1 order by Name desc")
                .unwrap()
                .clause_texts();
        assert_eq!(clauses.select, "Name, \"Object Id\"");
        assert_eq!(clauses.from.as_deref(), Some("/Folder"));
        assert_eq!(clauses.filter.as_deref(), Some("x = 1"));
        assert_eq!(clauses.order_by.as_deref(), Some("Name DESC"));
        assert_eq!(clauses.context, None);
        assert!(query.selects(Attr::OBJECT_ID) && !query.selects(Attr::CONTEXT));
        assert_eq!(all([]), None);
    }
}
