//! The MQL syntax tree: what a query says, before any attribute is resolved.
//!
//! The tree keeps the query's words as written (names keep their case and whether they
//! were quoted); deciding what a name refers to and whether an operator applies to it
//! is the validator's job. [`std::fmt::Display`] writes a tree back in current MQL
//! syntax: keywords in upper case, names quoted when they need it or were quoted, the
//! deprecated notation marks dropped.

use std::fmt::{self, Display, Formatter, Write};

use chrono::NaiveDate;

/// The words of spec section 2.13 that must be quoted when used as names or values.
pub const RESERVED_WORDS: &[&str] = &[
    "after",
    "all",
    "and",
    "any",
    "before",
    "between",
    "category",
    "contains",
    "content",
    "day",
    "days",
    "ends",
    "exists",
    "expandedMembersOfRole",
    "hour",
    "hours",
    "last",
    "me",
    "membersOfRole",
    "minute",
    "minutes",
    "not",
    "or",
    "semantic_search_text",
    "starts",
    "text",
    "today",
    "with",
    "within",
    "yesterday",
];

/// Whether `word` is a reserved word, compared without regard to case.
pub fn is_reserved(word: &str) -> bool {
    RESERVED_WORDS.iter().any(|r| r.eq_ignore_ascii_case(word))
}

/// A whole query: the SELECT list, the FROM clause, CONTEXT, WHERE and ORDER BY.
///
/// The query endpoints carry the clauses as separate fields, so every clause but the
/// SELECT list may be absent.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    /// The SELECT list, in order; never empty when parsed.
    pub select: Vec<SelectItem>,
    /// The FROM clause.
    pub from: Option<FromClause>,
    /// The CONTEXT clause: where inferred business names and descriptions are looked up.
    pub context: Option<SourceId>,
    /// The WHERE clause.
    pub filter: Option<Expr>,
    /// The ORDER BY keys, in order; empty for the default order.
    pub order_by: Vec<OrderKey>,
}

/// The deprecated notation mark around a name in MQL version 1.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Notation {
    /// `#Name#`: a system attribute.
    System,
    /// `[Name]`: a profile attribute.
    Profile,
    /// `{Name}`: a custom attribute.
    Custom,
    /// `<Name>`: a user-defined property.
    Udp,
}

/// One part of a path: an attribute, profile or related object type name.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Name {
    /// The name as written, without quotes or marks, case kept.
    pub text: String,
    /// Whether it was written in double quotes.
    pub quoted: bool,
    /// The deprecated notation mark it was written with, if any.
    pub marks: Option<Notation>,
}

impl Name {
    /// A name written without quotes or marks.
    pub fn plain(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            quoted: false,
            marks: None,
        }
    }

    /// A name written in double quotes.
    pub fn quoted(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            quoted: true,
            marks: None,
        }
    }

    /// Whether current syntax needs double quotes around the name: it is empty, holds a
    /// character other than a letter, digit or underscore, starts with a digit, or is a
    /// reserved word.
    pub fn needs_quotes(text: &str) -> bool {
        let mut chars = text.chars();
        match chars.next() {
            None => true,
            Some(first) if !(first.is_alphabetic() || first == '_') => true,
            Some(_) => !chars.all(is_word_char) || is_reserved(text),
        }
    }
}

/// Whether `c` may appear in an unquoted name or word.
pub(crate) fn is_word_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// An attribute path: one name (`Name`), or a qualifier and a name
/// (`Parent."Object Type"`, `"Data Profiling".Max`, `"Data Modeling (Business)"."Data Type"`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Path(pub Vec<Name>);

impl Path {
    /// A one-part path of a plain name.
    pub fn name(text: impl Into<String>) -> Self {
        Self(vec![Name::plain(text)])
    }
}

/// An item of the SELECT list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SelectItem {
    /// An attribute, relationship or related object property.
    Attribute(Path),
    /// `MembersOfRole('<role>')`.
    MembersOfRole(String),
    /// `Count('<relationship>')`.
    Count(String),
}

/// A from id or context: a repository path, an object id or a stable id, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceId {
    /// The id or path, case kept.
    pub text: String,
    /// Whether it was written in quotes.
    pub quoted: bool,
}

impl SourceId {
    /// An id written without quotes.
    pub fn plain(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            quoted: false,
        }
    }
}

/// The FROM clause: the from id and its optional scope filters.
#[derive(Debug, Clone, PartialEq)]
pub struct FromClause {
    /// The from id.
    pub id: SourceId,
    /// The scope filters that select the models of the source.
    pub scope: Option<Expr>,
}

/// A WHERE or scope condition.
///
/// The tree keeps the grouping the query wrote: `a AND (b AND c)` is an `And` holding
/// an `And`, so that writing it back gives the same text.
#[derive(Debug, Clone, PartialEq)]
pub enum Expr {
    /// Two or more conditions that must all hold.
    And(Vec<Expr>),
    /// Two or more conditions of which one must hold.
    Or(Vec<Expr>),
    /// One filter.
    Filter(Filter),
}

/// A filter: what is tested and how.
#[derive(Debug, Clone, PartialEq)]
pub struct Filter {
    /// What is tested.
    pub subject: Subject,
    /// The operator and its values.
    pub op: Op,
}

/// The left side of a filter.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    /// An attribute, related object property or data profiling attribute.
    Attribute(Path),
    /// `text` (or `semantic_search_text` when `semantic`), with its WITHIN properties
    /// as written (empty when there is no WITHIN).
    Text { semantic: bool, within: Vec<String> },
    /// `category`.
    Category,
    /// `content`.
    Content,
    /// `ExpandedMembersOfRole('<role>')`.
    ExpandedMembersOfRole(String),
    /// `Count('<relationship>')`.
    Count(String),
}

/// An operator with its values.
#[derive(Debug, Clone, PartialEq)]
pub enum Op {
    /// `= v`
    Eq(Value),
    /// `!= v` or `<> v`
    Ne(Value),
    /// `< v`
    Lt(Value),
    /// `<= v`
    Le(Value),
    /// `> v`
    Gt(Value),
    /// `>= v`
    Ge(Value),
    /// `= ANY (v, ...)`
    EqAny(Vec<Value>),
    /// `!= ANY (v, ...)`
    NeAny(Vec<Value>),
    /// `= ALL (v, ...)`
    EqAll(Vec<Value>),
    /// `!= ALL (v, ...)`
    NeAll(Vec<Value>),
    /// `EXISTS`
    Exists,
    /// `NOT EXISTS`
    NotExists,
    /// `[NOT] STARTS WITH v`
    StartsWith { not: bool, value: Value },
    /// `[NOT] ENDS WITH v`
    EndsWith { not: bool, value: Value },
    /// `[NOT] CONTAINS v`
    Contains { not: bool, value: Value },
    /// `BEFORE v`
    Before(Value),
    /// `AFTER v`
    After(Value),
    /// `BETWEEN v1 AND v2`
    Between(Value, Value),
    /// `NOT BETWEEN v1 AND v2`: the negation of BETWEEN, a NOT operator (spec 2.12's
    /// multi-valued rule 2).
    NotBetween(Value, Value),
    /// `= WHERE (...)`: the scope form `Model = WHERE (...)`.
    EqWhere(Box<Expr>),
}

/// The unit of `LAST <n> <unit>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TimeUnit {
    Days,
    Hours,
    Minutes,
}

/// A filter value.
///
/// A quoted value stays text, even when it looks like a date or a datetime: what it
/// means depends on the attribute, which the validator knows (see [`Value::date_time`]).
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A value in single quotes, with `''` turned into `'`.
    Text(String),
    /// A value in double quotes, with `""` turned into `"`, as the vendor's pages write
    /// some values (`Name = "orders"`). The validator reads it as [`Value::Text`] and
    /// warns; it is written back in single quotes.
    DoubleQuoted(String),
    /// A number as written (`-200`, `3.123456E30`) and its value.
    Number { text: String, value: f64 },
    /// An unquoted date, `2014-10-26`.
    Date(NaiveDate),
    /// `ME`
    Me,
    /// `TODAY`
    Today,
    /// `YESTERDAY`
    Yesterday,
    /// `LAST <n> DAYS`, `HOURS` or `MINUTES`.
    Last { n: u32, unit: TimeUnit },
    /// An unquoted word that is no keyword, e.g. `City` or `true`.
    Bare(String),
}

impl Op {
    /// The values the operator compares with, in order.
    pub fn values(&self) -> Vec<&Value> {
        match self {
            Op::Eq(v)
            | Op::Ne(v)
            | Op::Lt(v)
            | Op::Le(v)
            | Op::Gt(v)
            | Op::Ge(v)
            | Op::Before(v)
            | Op::After(v)
            | Op::StartsWith { value: v, .. }
            | Op::EndsWith { value: v, .. }
            | Op::Contains { value: v, .. } => vec![v],
            Op::EqAny(list) | Op::NeAny(list) | Op::EqAll(list) | Op::NeAll(list) => {
                list.iter().collect()
            }
            Op::Between(a, b) | Op::NotBetween(a, b) => vec![a, b],
            Op::Exists | Op::NotExists | Op::EqWhere(_) => Vec::new(),
        }
    }
}

impl Op {
    /// The values the operator compares with, to change them in place (not those of
    /// the scope filters of `= WHERE (...)`).
    pub fn values_mut(&mut self) -> Vec<&mut Value> {
        match self {
            Op::Eq(v)
            | Op::Ne(v)
            | Op::Lt(v)
            | Op::Le(v)
            | Op::Gt(v)
            | Op::Ge(v)
            | Op::Before(v)
            | Op::After(v)
            | Op::StartsWith { value: v, .. }
            | Op::EndsWith { value: v, .. }
            | Op::Contains { value: v, .. } => vec![v],
            Op::EqAny(list) | Op::NeAny(list) | Op::EqAll(list) | Op::NeAll(list) => {
                list.iter_mut().collect()
            }
            Op::Between(a, b) | Op::NotBetween(a, b) => vec![a, b],
            Op::Exists | Op::NotExists | Op::EqWhere(_) => Vec::new(),
        }
    }
}

impl Value {
    /// The value as a datetime when it is an unquoted date (at midnight) or a text in
    /// the form `YYYY-MM-DD` or `YYYY-MM-DD hh:mm:ss`.
    pub fn date_time(&self) -> Option<chrono::NaiveDateTime> {
        match self {
            Self::Date(date) => date.and_hms_opt(0, 0, 0),
            Self::Text(text) | Self::DoubleQuoted(text) => {
                let text = text.trim();
                chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S")
                    .ok()
                    .or_else(|| {
                        NaiveDate::parse_from_str(text, "%Y-%m-%d")
                            .ok()
                            .and_then(|d| d.and_hms_opt(0, 0, 0))
                    })
            }
            _ => None,
        }
    }
}

/// The direction of an ORDER BY key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Direction {
    Asc,
    Desc,
}

/// An ORDER BY key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OrderKey {
    /// `Relevance`.
    Relevance,
    /// An attribute with its direction, `None` when the query gives none (the default
    /// depends on the attribute: `"Updated Date"` sorts newest first).
    Attribute {
        path: Path,
        direction: Option<Direction>,
    },
}

/// Writes `text` between `quote` characters, doubling any `quote` inside.
fn write_quoted(f: &mut Formatter<'_>, text: &str, quote: char) -> fmt::Result {
    f.write_char(quote)?;
    for c in text.chars() {
        if c == quote {
            f.write_char(quote)?;
        }
        f.write_char(c)?;
    }
    f.write_char(quote)
}

/// Writes items separated by `, `.
fn write_list<T: Display>(f: &mut Formatter<'_>, items: &[T]) -> fmt::Result {
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        item.fmt(f)?;
    }
    Ok(())
}

impl Display for Name {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        if self.quoted || Self::needs_quotes(&self.text) {
            write_quoted(f, &self.text, '"')
        } else {
            f.write_str(&self.text)
        }
    }
}

impl Display for Path {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        for (i, name) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_char('.')?;
            }
            name.fmt(f)?;
        }
        Ok(())
    }
}

impl Display for SelectItem {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Attribute(path) => path.fmt(f),
            Self::MembersOfRole(role) => write_call(f, "MembersOfRole", role),
            Self::Count(relationship) => write_call(f, "Count", relationship),
        }
    }
}

/// Writes a function call with its one quoted argument.
fn write_call(f: &mut Formatter<'_>, function: &str, argument: &str) -> fmt::Result {
    f.write_str(function)?;
    f.write_char('(')?;
    write_quoted(f, argument, '\'')?;
    f.write_char(')')
}

impl Display for SourceId {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let plain_is_safe = !self.text.is_empty()
            && !self.text.starts_with(['\'', '"'])
            && !self
                .text
                .chars()
                .any(|c| c.is_whitespace() || matches!(c, '(' | ')' | ','));
        if self.quoted || !plain_is_safe {
            write_quoted(f, &self.text, '\'')
        } else {
            f.write_str(&self.text)
        }
    }
}

impl Display for FromClause {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        self.id.fmt(f)?;
        if let Some(scope) = &self.scope {
            write!(f, " ({scope})")?;
        }
        Ok(())
    }
}

impl Display for Query {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str("SELECT ")?;
        write_list(f, &self.select)?;
        if let Some(from) = &self.from {
            write!(f, " FROM {from}")?;
        }
        if let Some(context) = &self.context {
            write!(f, " CONTEXT {context}")?;
        }
        if let Some(filter) = &self.filter {
            write!(f, " WHERE {filter}")?;
        }
        if !self.order_by.is_empty() {
            f.write_str(" ORDER BY ")?;
            write_list(f, &self.order_by)?;
        }
        Ok(())
    }
}

impl Display for Expr {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Filter(filter) => filter.fmt(f),
            Self::And(parts) => write_joined(f, parts, "AND", |e| !matches!(e, Self::Filter(_))),
            Self::Or(parts) => write_joined(f, parts, "OR", |e| matches!(e, Self::Or(_))),
        }
    }
}

/// Writes `parts` joined by `keyword`, in parentheses where `grouped` says so.
fn write_joined(
    f: &mut Formatter<'_>,
    parts: &[Expr],
    keyword: &str,
    grouped: impl Fn(&Expr) -> bool,
) -> fmt::Result {
    for (i, part) in parts.iter().enumerate() {
        if i > 0 {
            write!(f, " {keyword} ")?;
        }
        if grouped(part) {
            write!(f, "({part})")?;
        } else {
            part.fmt(f)?;
        }
    }
    Ok(())
}

impl Display for Filter {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match &self.subject {
            Subject::Attribute(path) => path.fmt(f)?,
            Subject::Text { semantic, .. } => {
                f.write_str(if *semantic {
                    "semantic_search_text"
                } else {
                    "text"
                })?;
            }
            Subject::Category => f.write_str("category")?,
            Subject::Content => f.write_str("content")?,
            Subject::ExpandedMembersOfRole(role) => write_call(f, "ExpandedMembersOfRole", role)?,
            Subject::Count(relationship) => write_call(f, "Count", relationship)?,
        }
        write!(f, " {}", self.op)?;
        match &self.subject {
            Subject::Text { within, .. } if !within.is_empty() => write_within(f, within),
            _ => Ok(()),
        }
    }
}

/// Writes the WITHIN properties of a text filter.
fn write_within(f: &mut Formatter<'_>, within: &[String]) -> fmt::Result {
    f.write_str(" WITHIN (")?;
    for (i, property) in within.iter().enumerate() {
        if i > 0 {
            f.write_str(", ")?;
        }
        write_quoted(f, property, '\'')?;
    }
    f.write_char(')')
}

impl Display for Op {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        let not = |not: &bool| if *not { "NOT " } else { "" };
        match self {
            Self::Eq(v) => write!(f, "= {v}"),
            Self::Ne(v) => write!(f, "!= {v}"),
            Self::Lt(v) => write!(f, "< {v}"),
            Self::Le(v) => write!(f, "<= {v}"),
            Self::Gt(v) => write!(f, "> {v}"),
            Self::Ge(v) => write!(f, ">= {v}"),
            Self::EqAny(vs) => write_values(f, "= ANY", vs),
            Self::NeAny(vs) => write_values(f, "!= ANY", vs),
            Self::EqAll(vs) => write_values(f, "= ALL", vs),
            Self::NeAll(vs) => write_values(f, "!= ALL", vs),
            Self::Exists => f.write_str("EXISTS"),
            Self::NotExists => f.write_str("NOT EXISTS"),
            Self::StartsWith { not: n, value } => write!(f, "{}STARTS WITH {value}", not(n)),
            Self::EndsWith { not: n, value } => write!(f, "{}ENDS WITH {value}", not(n)),
            Self::Contains { not: n, value } => write!(f, "{}CONTAINS {value}", not(n)),
            Self::Before(v) => write!(f, "BEFORE {v}"),
            Self::After(v) => write!(f, "AFTER {v}"),
            Self::Between(low, high) => write!(f, "BETWEEN {low} AND {high}"),
            Self::NotBetween(low, high) => write!(f, "NOT BETWEEN {low} AND {high}"),
            Self::EqWhere(expr) => write!(f, "= WHERE ({expr})"),
        }
    }
}

/// Writes an operator and its parenthesised value list.
fn write_values(f: &mut Formatter<'_>, operator: &str, values: &[Value]) -> fmt::Result {
    write!(f, "{operator} (")?;
    write_list(f, values)?;
    f.write_char(')')
}

impl Display for TimeUnit {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Days => "DAYS",
            Self::Hours => "HOURS",
            Self::Minutes => "MINUTES",
        })
    }
}

impl Display for Value {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Text(text) | Self::DoubleQuoted(text) => write_quoted(f, text, '\''),
            Self::Number { text, .. } => f.write_str(text),
            Self::Date(date) => write!(f, "{}", date.format("%Y-%m-%d")),
            Self::Me => f.write_str("ME"),
            Self::Today => f.write_str("TODAY"),
            Self::Yesterday => f.write_str("YESTERDAY"),
            Self::Last { n, unit } => write!(f, "LAST {n} {unit}"),
            Self::Bare(word) => f.write_str(word),
        }
    }
}

impl Display for OrderKey {
    fn fmt(&self, f: &mut Formatter<'_>) -> fmt::Result {
        match self {
            Self::Relevance => f.write_str("Relevance"),
            Self::Attribute { path, direction } => {
                match path.0.as_slice() {
                    // An unquoted `Relevance` would read back as the keyword.
                    [name] if !name.quoted && name.text.eq_ignore_ascii_case("relevance") => {
                        write_quoted(f, &name.text, '"')?;
                    }
                    _ => path.fmt(f)?,
                }
                match direction {
                    Some(Direction::Asc) => f.write_str(" ASC"),
                    Some(Direction::Desc) => f.write_str(" DESC"),
                    None => Ok(()),
                }
            }
        }
    }
}
