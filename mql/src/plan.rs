//! The plan of a validated query: which objects it keeps, in what order. Every backend
//! runs the same plan; the memory backend evaluates it with [`super::eval`], which
//! defines its meaning, and the SQL backends compile it to one statement.
//!
//! A plan speaks the storage's words, not MQL's: a filter on `"Data Classifications"`
//! is a condition on the classifications of the object, `Parent.Name` a condition on the
//! parent object. The meaning of multi-valued filters (spec 2.12) is settled while
//! lowering ([`super::lower`]), so a backend only evaluates [`Cond`]s:
//!
//! - [`Cond::Test`] holds when *some* value of the field passes the test; a field without
//!   values passes nothing;
//! - [`Cond::Has`] holds when the field has a value;
//! - [`Cond::Related`] holds when *some* related object (or data class) satisfies the
//!   inner condition, evaluated on that related object.
//!
//! Text compares case-insensitively for the ASCII letters A–Z and exactly otherwise, on
//! every backend: [`Lit::Text`] holds folded text ([`fold`]) and the field's text is
//! folded before it is compared (except [`Column::StableId`], which is exact).

use lore_model::id::ObjectId;
use lore_model::{ClassificationStatus, CurationKind, EdgeKind, ObjectKind, TagKind};

/// Folds text the way every MQL text comparison does: ASCII letters to lower case, every
/// other character as it is. SQLite's `lower()` does the same, and PostgreSQL's `lower()`
/// in the C collation (see the SQL dialect).
pub fn fold(text: &str) -> String {
    text.to_ascii_lowercase()
}

/// The characters that break words in search text and in the text it searches, as the
/// vendor's search syntax defines them: the space and `_ : . [ ] ( )`. A search phrase
/// `customer id` finds `2023_CUSTOMER_ID`, `Customer:ID` and `Customer[id]`.
pub const WORD_BREAKERS: &[char] = &[' ', '_', ':', '.', '[', ']', '(', ')'];

/// The character [`search_form`] marks spaces with while it collapses runs of them.
pub const SEARCH_MARK: char = '\u{1}';

/// Text as a search compares it ([`Cond::Search`]): folded ([`fold`]), each word breaker
/// ([`WORD_BREAKERS`]) a space, and each run of spaces one space.
///
/// The SQL backends compute the same with `replace()`, so the steps are theirs: each
/// breaker becomes a space, each space a space and a [`SEARCH_MARK`], then every mark
/// followed by a space goes, then every mark left. Text holding the mark itself comes out
/// the same on every backend, as every step is the same.
pub fn search_form(text: &str) -> String {
    let spaced: String = fold(text)
        .chars()
        .map(|c| if WORD_BREAKERS.contains(&c) { ' ' } else { c })
        .collect();
    let mark = SEARCH_MARK.to_string();
    spaced
        .replace(' ', &format!(" {mark}"))
        .replace(&format!("{mark} "), "")
        .replace(SEARCH_MARK, "")
}

/// A search term in the form [`Cond::Search`] holds: [`search_form`] without the spaces
/// at its ends; empty when the term is only word breakers.
pub fn search_term(text: &str) -> String {
    search_form(text).trim_matches(' ').to_owned()
}

/// The words of a search term ([`search_term`]) a trigram index can look up: those of
/// at least three characters. Each lies within the searched text, folded, of any object
/// the search finds, so an index of the folded text finds them all.
pub fn indexed_words(term: &str) -> Vec<&str> {
    term.split(' ').filter(|w| w.chars().count() >= 3).collect()
}

/// A runnable query: the objects satisfying `filter` (and `visibility`), in `order`.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct Plan {
    /// The conditions of FROM, the scope filters and WHERE, together.
    pub filter: Cond,
    /// What the caller may see. The security layer puts its condition here; every
    /// backend applies it in the same statement as the filter, so pages and counts only
    /// ever cover visible objects.
    pub visibility: Cond,
    /// The sort keys; objects with equal keys come in id order, descending when the
    /// last key is (newest first by "Updated Date", then the newest ids): so one index
    /// ending in the ids, read backwards, serves a descending order whole.
    pub order: Vec<SortKey>,
    /// The catalog version the plan reads the objects as of (a kept revision, see
    /// `HistoryRecords`): the objects and what hangs on them as they were then. `None`:
    /// as they are now.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub as_of: Option<i64>,
}

impl Plan {
    /// The filter and the visibility condition as one condition.
    pub fn condition(&self) -> Cond {
        match (&self.filter, &self.visibility) {
            (f, Cond::True) => f.clone(),
            (Cond::True, v) => v.clone(),
            (f, v) => Cond::And(vec![f.clone(), v.clone()]),
        }
    }
}

/// Which rows of an ordered result: `offset` rows skipped, at most `limit` rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Page {
    pub offset: u64,
    pub limit: u64,
}

/// An ORDER BY key. Objects without a value sort after those with one, whatever the
/// direction.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct SortKey {
    pub field: Field,
    pub descending: bool,
}

/// A condition on an object (or, inside [`Cond::Related`] over data classes, on a data
/// class).
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub enum Cond {
    #[default]
    True,
    False,
    And(Vec<Cond>),
    Or(Vec<Cond>),
    Not(Box<Cond>),
    /// Some value of the field passes the test.
    Test(Field, Test),
    /// The field has at least one value.
    Has(Field),
    /// Some of the columns contains the text in its [`search_form`]; the text is a
    /// [`search_term`], never empty: a term of a `text` search. Its own condition so
    /// that a backend can find the objects through a text index (of the words of the
    /// term, [`indexed_words`]) before it tests them.
    Search {
        columns: Vec<Column>,
        text: String,
    },
    /// Some related object satisfies the condition.
    Related(Relation, Box<Cond>),
    /// The object is one of these.
    Ids(Vec<ObjectId>),
    /// The object is of one of these kinds.
    Kinds(Vec<ObjectKind>),
    /// The object lies in the scope: a selected model, an object of one, or an object at
    /// or below one of the subtree roots.
    Within(Within),
    /// The object has an edge of the kind (and name, when given) in that direction.
    Edge {
        kind: EdgeKind,
        name: Option<String>,
        outgoing: bool,
    },
    /// The object's data is hidden: its Hide Data flag, or a matched or approved data
    /// class or sensitivity label that hides data.
    DataHidden,
}

impl Cond {
    /// `a AND b`, simplified when either is a constant.
    pub fn and(items: Vec<Cond>) -> Cond {
        let mut kept = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Cond::True => {}
                Cond::False => return Cond::False,
                other => kept.push(other),
            }
        }
        match kept.len() {
            0 => Cond::True,
            1 => kept.pop().unwrap_or(Cond::True),
            _ => Cond::And(kept),
        }
    }

    /// `a OR b`, simplified when either is a constant.
    pub fn or(items: Vec<Cond>) -> Cond {
        let mut kept = Vec::with_capacity(items.len());
        for item in items {
            match item {
                Cond::False => {}
                Cond::True => return Cond::True,
                other => kept.push(other),
            }
        }
        match kept.len() {
            0 => Cond::False,
            1 => kept.pop().unwrap_or(Cond::False),
            _ => Cond::Or(kept),
        }
    }

    /// `NOT c`, simplified for constants and double negation.
    #[allow(clippy::should_implement_trait)]
    pub fn not(c: Cond) -> Cond {
        match c {
            Cond::True => Cond::False,
            Cond::False => Cond::True,
            Cond::Not(inner) => *inner,
            other => Cond::Not(Box::new(other)),
        }
    }
}

/// Objects in scope: the selected models (their repository objects and every object of
/// them) and the subtrees of model objects (the root and everything below it).
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize)]
pub struct Within {
    /// Model numbers (the object number of each model's repository object).
    pub models: Vec<i64>,
    /// Model objects whose subtree is in scope.
    pub subtrees: Vec<ObjectId>,
}

/// The objects related to an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Relation {
    /// The parent: the parent object, the model of a top-level model object, the folder
    /// of a repository object.
    Parent,
    /// The objects whose parent it is.
    Children,
    /// The data classes of the object's classifications with one of these statuses.
    DataClasses(ClassStatuses),
}

impl Relation {
    /// Whether an object may have more than one related object.
    pub fn is_multi_valued(self) -> bool {
        !matches!(self, Relation::Parent)
    }
}

/// A set of classification statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum ClassStatuses {
    /// Matched or approved: the object's data classes.
    Current,
    Only(ClassificationStatus),
}

impl ClassStatuses {
    pub fn contains(self, status: ClassificationStatus) -> bool {
        match self {
            Self::Current => matches!(
                status,
                ClassificationStatus::Matched | ClassificationStatus::Approved
            ),
            Self::Only(s) => s == status,
        }
    }

    /// The statuses, in a fixed order.
    pub fn statuses(self) -> Vec<ClassificationStatus> {
        match self {
            Self::Current => vec![
                ClassificationStatus::Matched,
                ClassificationStatus::Approved,
            ],
            Self::Only(s) => vec![s],
        }
    }
}

/// A value of an object (or data class) that conditions test and keys sort.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum Field {
    /// A column of the object.
    Column(Column),
    /// The object's tags of a kind (labels, collections): several texts.
    Tags(TagKind),
    /// The names of the object's sensitivity labels.
    Labels(LabelSet),
    /// The value of a custom attribute, profile attribute or UDP.
    Attribute { name: String, ty: FieldType },
    /// A statistic of the object's data profile.
    Statistic(Statistic),
    /// The inferred data types of the object's data profile: several texts.
    InferredDataTypes,
    /// Part of the profiling of the object, for [NOT] EXISTS only.
    Profiling(ProfilingPart),
    /// The name of a data class (inside [`Relation::DataClasses`]).
    ClassName,
    /// The description of a data class (inside [`Relation::DataClasses`]).
    ClassDescription,
    /// How many custom relationships of the name start at the object.
    RelationshipCount(String),
    /// The names of the users who curated the object so (Endorsed By, Watchers, ...).
    Curators(CurationKind),
    /// How many curation entries of the kind the object has (Comment Count, ...).
    CurationCount(CurationKind),
}

/// The type of a field's values, which says how literals compare with them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum FieldType {
    /// Text compared folded.
    Text,
    /// Text compared exactly (stable ids).
    ExactText,
    Integer,
    Double,
    Boolean,
    /// UTC microseconds.
    Time,
}

impl Field {
    /// The type of the field's values.
    pub fn ty(&self) -> FieldType {
        match self {
            Field::Column(c) => c.ty(),
            Field::Attribute { ty, .. } => *ty,
            Field::Statistic(s) => s.ty(),
            Field::RelationshipCount(_) | Field::CurationCount(_) => FieldType::Integer,
            Field::Tags(_)
            | Field::Labels(_)
            | Field::InferredDataTypes
            | Field::Profiling(_)
            | Field::ClassName
            | Field::ClassDescription
            | Field::Curators(_) => FieldType::Text,
        }
    }

    /// Whether an object may have more than one value of it.
    pub fn is_multi_valued(&self) -> bool {
        matches!(
            self,
            Field::Tags(_)
                | Field::InferredDataTypes
                | Field::Curators(_)
                | Field::Labels(LabelSet::Matched | LabelSet::Rejected)
        )
    }
}

/// The columns of an object that MQL filters and sorts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Column {
    Name,
    PhysicalName,
    NativeId,
    Description,
    BusinessName,
    BusinessDescription,
    DataType,
    ExternalUrl,
    WorkflowState,
    /// The object type's name (`Table`).
    TypeName,
    /// The object type's profile.
    Profile,
    /// The object type as `<profile>.<name>`.
    TypeId,
    SystemType,
    StableId,
    /// The model number of a model or of a model object; none for other repository
    /// objects.
    ModelNumber,
    HideData,
    UpdatedAt,
}

impl Column {
    pub fn ty(self) -> FieldType {
        match self {
            Column::StableId => FieldType::ExactText,
            Column::ModelNumber => FieldType::Integer,
            Column::HideData => FieldType::Boolean,
            Column::UpdatedAt => FieldType::Time,
            _ => FieldType::Text,
        }
    }
}

/// Which sensitivity labels of an object.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum LabelSet {
    /// The most restrictive (highest position, then first name) among the approved and
    /// matched labels: one value.
    Top,
    /// The most restrictive approved label: one value.
    TopApproved,
    Matched,
    Rejected,
}

/// A statistic of a data profile (spec 2.7).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum Statistic {
    Distinct,
    Duplicate,
    Valid,
    Empty,
    Invalid,
    Min,
    Max,
    Mean,
    Variance,
    Median,
    LowerQuantile,
    UpperQuantile,
    AvgLength,
    MinLength,
    MaxLength,
}

impl Statistic {
    /// The statistic of a data profiling attribute's name.
    pub fn of(name: &str) -> Option<Self> {
        Some(match name {
            "Distinct" => Self::Distinct,
            "Duplicate" => Self::Duplicate,
            "Valid" => Self::Valid,
            "Empty" => Self::Empty,
            "Invalid" => Self::Invalid,
            "Min" => Self::Min,
            "Max" => Self::Max,
            "Mean" => Self::Mean,
            "Variance" => Self::Variance,
            "Median" => Self::Median,
            "Lower Quantile" => Self::LowerQuantile,
            "Upper Quantile" => Self::UpperQuantile,
            "Avg Length" => Self::AvgLength,
            "Min Length" => Self::MinLength,
            "Max Length" => Self::MaxLength,
            _ => return None,
        })
    }

    /// The key of the statistic in the stored profile's `statistics` object.
    pub fn key(self) -> &'static str {
        match self {
            Self::Distinct => "DistinctRows",
            Self::Duplicate => "DuplicateRows",
            Self::Valid => "ValidRows",
            Self::Empty => "EmptyRows",
            Self::Invalid => "InvalidRows",
            Self::Min => "min",
            Self::Max => "max",
            Self::Mean => "mean",
            Self::Variance => "variance",
            Self::Median => "median",
            Self::LowerQuantile => "lowerQuantile",
            Self::UpperQuantile => "upperQuantile",
            Self::AvgLength => "avgLength",
            Self::MinLength => "minLength",
            Self::MaxLength => "maxLength",
        }
    }

    pub fn ty(self) -> FieldType {
        match self {
            Self::Distinct
            | Self::Duplicate
            | Self::Valid
            | Self::Empty
            | Self::Invalid
            | Self::MinLength
            | Self::MaxLength => FieldType::Integer,
            _ => FieldType::Double,
        }
    }
}

/// A part of an object's profiling, tested for presence.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum ProfilingPart {
    /// `Data Profiling`: a data profile.
    Profile,
    /// `Data Sampling`: a data sample.
    Sample,
    /// `Column Histogram`: a profile with histogram buckets.
    Histogram,
    /// `Column Statistics`: a profile with statistics.
    Statistics,
}

/// A test of one value.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum Test {
    Eq(Lit),
    In(Vec<Lit>),
    /// Between the bounds; a bound is inclusive when its flag is set.
    Range {
        low: Option<(Lit, bool)>,
        high: Option<(Lit, bool)>,
    },
    /// Folded text starting with (ending with, containing) the folded text.
    StartsWith(String),
    EndsWith(String),
    Contains(String),
}

/// A literal of the field's type: folded text for [`FieldType::Text`].
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub enum Lit {
    Text(String),
    Integer(i64),
    Double(f64),
    Boolean(bool),
    /// UTC microseconds.
    Time(i64),
}

/// What `getAttributeValueCounts` counts: the values of a field of the objects (or of
/// their related objects), each object counted once per distinct value.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Facet {
    pub relation: Option<Relation>,
    pub field: Field,
    /// For time fields: the buckets values are counted in (their label is the value).
    pub gap: Option<DateGap>,
    /// Leave out the values of objects that satisfy this condition: profiling results of
    /// objects whose data is hidden from the caller. `Cond::False` keeps every value.
    pub hidden: Cond,
}

/// The width of the buckets date values are counted in (`dateRangeGap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum DateGap {
    Year,
    Month,
    Day,
    Hour,
}

impl DateGap {
    /// The gap of a `dateRangeGap` value (case-insensitive).
    pub fn parse(text: &str) -> Option<Self> {
        Some(match text.trim().to_ascii_uppercase().as_str() {
            "YEAR" => Self::Year,
            "MONTH" => Self::Month,
            "DAY" => Self::Day,
            "HOUR" => Self::Hour,
            _ => return None,
        })
    }

    /// The label of the bucket of a time (UTC microseconds): `2026`, `2026-06`,
    /// `2026-06-15`, `2026-06-15 12:00`.
    pub fn label(self, micros: i64) -> String {
        let seconds = micros.div_euclid(1_000_000);
        let t = chrono::DateTime::from_timestamp(seconds, 0).unwrap_or_default();
        t.format(self.format()).to_string()
    }

    /// The strftime format of a bucket label.
    pub fn format(self) -> &'static str {
        match self {
            Self::Year => "%Y",
            Self::Month => "%Y-%m",
            Self::Day => "%Y-%m-%d",
            Self::Hour => "%Y-%m-%d %H:00",
        }
    }
}

/// One counted value of a facet.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct ValueCount {
    /// The value as stored (text as written, not folded), or a date bucket's label.
    pub value: Lit,
    pub count: u64,
}
