//! The reference evaluator: what a [`Plan`] means, over any [`Facts`] about the
//! catalog. The memory backend runs plans with it; the SQL compiler must give the same
//! answers (the cross-backend test holds it to that).

use std::borrow::Cow;
use std::cmp::Ordering;

use super::plan::{
    Cond, Facet, Field, LabelSet, Lit, Page, Plan, ProfilingPart, Relation, SortKey, Statistic,
    Test, ValueCount, Within, fold, search_form,
};
use lore_model::id::ObjectId;
use lore_model::{
    ClassificationStatus, CurationKind, DataClass, EdgeKind, Object, ObjectKind, Profiling,
    SensitivityLabel, TagKind, Value,
};

/// What the evaluator reads about the catalog.
pub trait Facts {
    fn object(&self, id: ObjectId) -> Option<&Object>;
    /// The objects whose stored parent is `parent` within `model` (`None`: top level).
    fn children_of(&self, model: i64, parent: Option<i64>) -> Vec<&Object>;
    fn attribute(&self, id: ObjectId, name: &str) -> Option<&Value>;
    fn tags(&self, id: ObjectId, kind: TagKind) -> Vec<&str>;
    fn classifications(&self, id: ObjectId) -> Vec<(&str, ClassificationStatus)>;
    fn data_class(&self, name: &str) -> Option<&DataClass>;
    fn label_assignments(&self, id: ObjectId) -> Vec<(&str, ClassificationStatus)>;
    fn sensitivity_label(&self, name: &str) -> Option<&SensitivityLabel>;
    fn profiling(&self, id: ObjectId) -> Option<&Profiling>;
    /// The names of the object's edges of the kind, in that direction.
    fn edge_names(&self, id: ObjectId, kind: EdgeKind, outgoing: bool) -> Vec<&str>;
    /// The names of the users with curation of the kind on the object, one per entry.
    /// Facts that serve no social attribute have none.
    fn curators(&self, _id: ObjectId, _kind: CurationKind) -> Vec<&str> {
        Vec::new()
    }
}

/// The parent of an object as MQL sees it: its stored parent, the model of a top-level
/// model object.
pub fn parent_id(object: &Object) -> Option<ObjectId> {
    match object.parent {
        Some(parent) => Some(parent),
        None if object.kind == ObjectKind::ModelObject => {
            Some(ObjectId::repository(object.id.model))
        }
        None => None,
    }
}

/// The children of an object as MQL sees them: a model's top-level objects are its
/// children.
pub fn children<'f>(facts: &'f dyn Facts, object: &Object) -> Vec<&'f Object> {
    if object.kind == ObjectKind::Model {
        facts.children_of(object.id.content_model(), None)
    } else {
        facts.children_of(object.id.model, Some(object.id.object))
    }
}

/// The ids of the objects among `candidates` that satisfy the plan, sorted by its keys
/// (then by id), the page cut out.
pub fn run<'f>(
    plan: &Plan,
    facts: &'f dyn Facts,
    candidates: impl Iterator<Item = &'f Object>,
    page: Option<Page>,
) -> Vec<ObjectId> {
    let condition = plan.condition();
    let mut hits: Vec<&Object> = candidates
        .filter(|o| holds(&condition, facts, Row::Object(o)))
        .collect();
    hits.sort_by(|a, b| compare_rows(&plan.order, facts, a, b));
    let ids = hits.into_iter().map(|o| o.id);
    match page {
        Some(page) => ids
            .skip(usize::try_from(page.offset).unwrap_or(usize::MAX))
            .take(usize::try_from(page.limit).unwrap_or(usize::MAX))
            .collect(),
        None => ids.collect(),
    }
}

/// The values of a facet among the objects that satisfy the plan: each object counts
/// once per distinct value; most frequent first, then by value; at most `limit`.
pub fn value_counts<'f>(
    plan: &Plan,
    facts: &'f dyn Facts,
    candidates: impl Iterator<Item = &'f Object>,
    facet: &Facet,
    limit: u64,
) -> Vec<ValueCount> {
    let condition = plan.condition();
    let mut counts: Vec<(Lit, u64)> = Vec::new();
    for object in candidates.filter(|o| holds(&condition, facts, Row::Object(o))) {
        let rows: Vec<Row<'f>> = match facet.relation {
            None => vec![Row::Object(object)],
            Some(Relation::Parent) => parent_id(object)
                .and_then(|id| facts.object(id))
                .map(Row::Object)
                .into_iter()
                .collect(),
            Some(Relation::Children) => children(facts, object)
                .into_iter()
                .map(Row::Object)
                .collect(),
            Some(Relation::DataClasses(statuses)) => facts
                .classifications(object.id)
                .into_iter()
                .filter(|(_, s)| statuses.contains(*s))
                .filter_map(|(name, _)| facts.data_class(name))
                .map(Row::DataClass)
                .collect(),
        };
        let mut distinct: Vec<Lit> = Vec::new();
        for row in rows {
            if facet.hidden != Cond::False
                && matches!(row, Row::Object(_))
                && holds(&facet.hidden, facts, row)
            {
                continue;
            }
            for value in raw_values(&facet.field, facts, row) {
                let lit = match (value, facet.gap) {
                    (Val::Time(t), Some(gap)) => Lit::Text(gap.label(t)),
                    (Val::Text(t), _) => Lit::Text(t.into_owned()),
                    (Val::Integer(i), _) => Lit::Integer(i),
                    (Val::Double(d), _) => Lit::Double(d),
                    (Val::Boolean(b), _) => Lit::Boolean(b),
                    (Val::Time(t), None) => Lit::Time(t),
                };
                if !distinct.contains(&lit) {
                    distinct.push(lit);
                }
            }
        }
        for lit in distinct {
            match counts.iter_mut().find(|(l, _)| *l == lit) {
                Some((_, n)) => *n += 1,
                None => counts.push((lit, 1)),
            }
        }
    }
    counts.sort_by(|(a, n), (b, m)| m.cmp(n).then_with(|| compare_lits(a, b)));
    counts
        .into_iter()
        .take(usize::try_from(limit).unwrap_or(usize::MAX))
        .map(|(value, count)| ValueCount { value, count })
        .collect()
}

/// The order of two literals of one field, as the SQL stores order them.
pub fn compare_lits(a: &Lit, b: &Lit) -> Ordering {
    let val = |l: &Lit| match l {
        Lit::Text(t) => Val::Text(Cow::Owned(t.clone())),
        Lit::Integer(i) => Val::Integer(*i),
        Lit::Double(d) => Val::Double(*d),
        Lit::Boolean(b) => Val::Boolean(*b),
        Lit::Time(t) => Val::Time(*t),
    };
    compare_values(&val(a), &val(b))
}

fn compare_rows(keys: &[SortKey], facts: &dyn Facts, a: &Object, b: &Object) -> Ordering {
    for key in keys {
        let ordering = compare_key(
            key,
            sort_value(&key.field, facts, a).as_ref(),
            sort_value(&key.field, facts, b).as_ref(),
        );
        if ordering != Ordering::Equal {
            return ordering;
        }
    }
    compare_ids(keys, a.id, b.id)
}

/// The order of two values of one sort key: objects without a value last, whatever the
/// direction.
fn compare_key(key: &SortKey, a: Option<&Val<'_>>, b: Option<&Val<'_>>) -> Ordering {
    match (a, b) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => Ordering::Greater,
        (Some(_), None) => Ordering::Less,
        (Some(x), Some(y)) => {
            let o = compare_values(x, y);
            if key.descending { o.reverse() } else { o }
        }
    }
}

/// Ties in id order, in the direction of the last key (see `Plan::order`).
fn compare_ids(keys: &[SortKey], a: ObjectId, b: ObjectId) -> Ordering {
    match keys.last() {
        Some(key) if key.descending => b.cmp(&a),
        _ => a.cmp(&b),
    }
}

/// What an object sorts by under a plan's keys, owned: so objects read from different
/// [`Facts`] (the catalog now and as of a version) can be put in one order.
pub type SortValues = Vec<Option<Val<'static>>>;

/// The values the object sorts by under the keys ([`run`]'s order).
pub fn sort_values(keys: &[SortKey], facts: &dyn Facts, object: &Object) -> SortValues {
    keys.iter()
        .map(|key| sort_value(&key.field, facts, object).map(Val::into_owned))
        .collect()
}

/// The order of two objects by their [`sort_values`], then by id: [`run`]'s order.
pub fn compare_sorted(
    keys: &[SortKey],
    (a, a_id): (&SortValues, ObjectId),
    (b, b_id): (&SortValues, ObjectId),
) -> Ordering {
    for (i, key) in keys.iter().enumerate() {
        let ordering = compare_key(
            key,
            a.get(i).and_then(Option::as_ref),
            b.get(i).and_then(Option::as_ref),
        );
        if ordering != Ordering::Equal {
            return ordering;
        }
    }
    compare_ids(keys, a_id, b_id)
}

fn sort_value<'f>(field: &Field, facts: &'f dyn Facts, object: &'f Object) -> Option<Val<'f>> {
    raw_values(field, facts, Row::Object(object))
        .into_iter()
        .next()
}

/// A value read from the catalog.
#[derive(Debug, Clone, PartialEq)]
pub enum Val<'a> {
    Text(Cow<'a, str>),
    Integer(i64),
    Double(f64),
    Boolean(bool),
    Time(i64),
}

impl Val<'_> {
    /// The value, owning its text.
    pub fn into_owned(self) -> Val<'static> {
        match self {
            Val::Text(t) => Val::Text(Cow::Owned(t.into_owned())),
            Val::Integer(i) => Val::Integer(i),
            Val::Double(d) => Val::Double(d),
            Val::Boolean(b) => Val::Boolean(b),
            Val::Time(t) => Val::Time(t),
        }
    }
}

/// The order of two values of one field: text byte-wise, numbers numerically.
pub fn compare_values(a: &Val<'_>, b: &Val<'_>) -> Ordering {
    match (a, b) {
        (Val::Text(x), Val::Text(y)) => x.as_bytes().cmp(y.as_bytes()),
        (Val::Boolean(x), Val::Boolean(y)) => x.cmp(y),
        (Val::Time(x), Val::Time(y)) => x.cmp(y),
        (x, y) => match (number(x), number(y)) {
            (Some(x), Some(y)) => x.partial_cmp(&y).unwrap_or(Ordering::Equal),
            _ => Ordering::Equal,
        },
    }
}

fn number(v: &Val<'_>) -> Option<f64> {
    match v {
        Val::Integer(i) => Some(*i as f64),
        Val::Double(d) => Some(*d),
        _ => None,
    }
}

/// What a condition is evaluated on.
#[derive(Debug, Clone, Copy)]
pub enum Row<'a> {
    Object(&'a Object),
    DataClass(&'a DataClass),
}

/// Whether the condition holds for the row.
pub fn holds(cond: &Cond, facts: &dyn Facts, row: Row<'_>) -> bool {
    match cond {
        Cond::True => true,
        Cond::False => false,
        Cond::And(items) => items.iter().all(|c| holds(c, facts, row)),
        Cond::Or(items) => items.iter().any(|c| holds(c, facts, row)),
        Cond::Not(inner) => !holds(inner, facts, row),
        Cond::Test(field, test) => values(field, facts, row)
            .iter()
            .any(|v| passes_val(v, test)),
        Cond::Has(field) => !values(field, facts, row).is_empty(),
        Cond::Search { columns, text } => columns.iter().any(|c| {
            values(&Field::Column(*c), facts, row)
                .iter()
                .any(|v| match v {
                    Val::Text(value) => search_form(value).contains(text.as_str()),
                    _ => false,
                })
        }),
        Cond::Related(relation, inner) => {
            let Row::Object(object) = row else {
                return false;
            };
            match relation {
                Relation::Parent => parent_id(object)
                    .and_then(|id| facts.object(id))
                    .is_some_and(|p| holds(inner, facts, Row::Object(p))),
                Relation::Children => children(facts, object)
                    .into_iter()
                    .any(|c| holds(inner, facts, Row::Object(c))),
                Relation::DataClasses(statuses) => facts
                    .classifications(object.id)
                    .into_iter()
                    .filter(|(_, status)| statuses.contains(*status))
                    .filter_map(|(name, _)| facts.data_class(name))
                    .any(|d| holds(inner, facts, Row::DataClass(d))),
            }
        }
        Cond::Ids(ids) => matches!(row, Row::Object(o) if ids.contains(&o.id)),
        Cond::Kinds(kinds) => matches!(row, Row::Object(o) if kinds.contains(&o.kind)),
        Cond::Within(within) => match row {
            Row::Object(o) => is_within(within, facts, o),
            Row::DataClass(_) => false,
        },
        Cond::Edge {
            kind,
            name,
            outgoing,
        } => match row {
            Row::Object(o) => facts
                .edge_names(o.id, *kind, *outgoing)
                .iter()
                .any(|n| name.as_deref().is_none_or(|want| want == *n)),
            Row::DataClass(_) => false,
        },
        Cond::DataHidden => match row {
            Row::Object(o) => data_hidden(facts, o),
            Row::DataClass(_) => false,
        },
    }
}

fn is_within(within: &Within, facts: &dyn Facts, object: &Object) -> bool {
    let model = match object.kind {
        ObjectKind::Model => Some(object.id.content_model()),
        ObjectKind::ModelObject => Some(object.id.model),
        _ => None,
    };
    if model.is_some_and(|m| within.models.contains(&m)) {
        return true;
    }
    if within.subtrees.is_empty() || object.kind != ObjectKind::ModelObject {
        return false;
    }
    // Up the model's own tree: the roots are model objects of the same model.
    let mut next = Some(object);
    let mut steps = 0usize;
    while let Some(o) = next {
        if within.subtrees.contains(&o.id) {
            return true;
        }
        steps += 1;
        if steps > 100_000 {
            return false;
        }
        next = o
            .parent
            .and_then(|p| facts.object(ObjectId::new(o.id.model, p.object)));
    }
    false
}

/// Whether the object's data is hidden: its own flag, or a matched or approved data
/// class or sensitivity label that hides data.
pub fn data_hidden(facts: &dyn Facts, object: &Object) -> bool {
    let current = |s: ClassificationStatus| {
        matches!(
            s,
            ClassificationStatus::Matched | ClassificationStatus::Approved
        )
    };
    object.hide_data
        || facts
            .classifications(object.id)
            .into_iter()
            .filter(|(_, s)| current(*s))
            .any(|(name, _)| facts.data_class(name).is_some_and(|d| d.hide_data))
        || facts
            .label_assignments(object.id)
            .into_iter()
            .filter(|(_, s)| current(*s))
            .any(|(name, _)| facts.sensitivity_label(name).is_some_and(|l| l.hide_data))
}

/// Whether a literal passes a test (for values Lore does not store, known at planning).
pub fn passes(lit: &Lit, test: &Test) -> bool {
    let val = match lit {
        Lit::Text(t) => Val::Text(Cow::Borrowed(t.as_str())),
        Lit::Integer(i) => Val::Integer(*i),
        Lit::Double(d) => Val::Double(*d),
        Lit::Boolean(b) => Val::Boolean(*b),
        Lit::Time(t) => Val::Time(*t),
    };
    passes_val(&val, test)
}

/// Whether a value passes a test; text compares folded.
fn passes_val(value: &Val<'_>, test: &Test) -> bool {
    match test {
        Test::Eq(lit) => equals(value, lit),
        Test::In(lits) => lits.iter().any(|l| equals(value, l)),
        Test::Range { low, high } => {
            low.as_ref().is_none_or(|(l, inclusive)| {
                order(value, l)
                    .is_some_and(|o| o == Ordering::Greater || (*inclusive && o == Ordering::Equal))
            }) && high.as_ref().is_none_or(|(h, inclusive)| {
                order(value, h)
                    .is_some_and(|o| o == Ordering::Less || (*inclusive && o == Ordering::Equal))
            })
        }
        Test::StartsWith(s) => text(value).is_some_and(|t| t.starts_with(s.as_str())),
        Test::EndsWith(s) => text(value).is_some_and(|t| t.ends_with(s.as_str())),
        Test::Contains(s) => text(value).is_some_and(|t| t.contains(s.as_str())),
    }
}

fn text<'v>(value: &'v Val<'_>) -> Option<&'v str> {
    match value {
        Val::Text(t) => Some(t),
        _ => None,
    }
}

fn equals(value: &Val<'_>, lit: &Lit) -> bool {
    order(value, lit) == Some(Ordering::Equal)
}

/// The order of a value against a literal; text compares folded (a literal of an exact
/// text field is not folded, and is compared as it is).
fn order(value: &Val<'_>, lit: &Lit) -> Option<Ordering> {
    match (value, lit) {
        (Val::Text(v), Lit::Text(l)) => {
            // Literals of folded fields are folded already; folding the value is then
            // the comparison. An exact field's literal holds upper case too, and its
            // values never compare folded (see `values`).
            Some(v.as_bytes().cmp(l.as_bytes()))
        }
        (Val::Boolean(v), Lit::Boolean(l)) => Some(v.cmp(l)),
        (Val::Time(v), Lit::Time(l)) => Some(v.cmp(l)),
        (Val::Integer(v), Lit::Integer(l)) => Some(v.cmp(l)),
        (Val::Integer(v), Lit::Double(l)) => (*v as f64).partial_cmp(l),
        (Val::Double(v), Lit::Double(l)) => v.partial_cmp(l),
        (Val::Double(v), Lit::Integer(l)) => v.partial_cmp(&(*l as f64)),
        _ => None,
    }
}

/// The values of a field for a row, as tests see them: text of folded fields folded.
fn values<'f>(field: &Field, facts: &'f dyn Facts, row: Row<'f>) -> Vec<Val<'f>> {
    let raw = raw_values(field, facts, row);
    if field.ty() == super::plan::FieldType::Text {
        raw.into_iter()
            .map(|v| match v {
                Val::Text(t) => Val::Text(Cow::Owned(fold(&t))),
                other => other,
            })
            .collect()
    } else {
        raw
    }
}

/// The values of a field for a row, as stored (what SELECT shows and ORDER BY sorts).
pub fn raw_values<'f>(field: &Field, facts: &'f dyn Facts, row: Row<'f>) -> Vec<Val<'f>> {
    let object = match row {
        Row::Object(o) => o,
        Row::DataClass(d) => {
            return match field {
                Field::ClassName => vec![Val::Text(Cow::Borrowed(d.name.as_str()))],
                Field::ClassDescription => vec![Val::Text(Cow::Borrowed(d.description.as_str()))],
                _ => Vec::new(),
            };
        }
    };
    let text = |t: &'f Option<String>| -> Vec<Val<'f>> {
        t.as_deref()
            .map(|t| Val::Text(Cow::Borrowed(t)))
            .into_iter()
            .collect()
    };
    let borrowed = |t: &'f str| vec![Val::Text(Cow::Borrowed(t))];
    use super::plan::Column as C;
    match field {
        Field::Column(column) => match column {
            C::Name => borrowed(&object.name),
            C::PhysicalName => text(&object.physical_name),
            C::NativeId => text(&object.native_id),
            C::Description => text(&object.description),
            C::BusinessName => text(&object.business_name),
            C::BusinessDescription => text(&object.business_description),
            C::DataType => text(&object.data_type),
            C::ExternalUrl => text(&object.external_url),
            C::WorkflowState => text(&object.workflow_state),
            C::TypeName => borrowed(&object.object_type.name),
            C::Profile => borrowed(&object.object_type.profile),
            C::TypeId => vec![Val::Text(Cow::Owned(format!(
                "{}.{}",
                object.object_type.profile, object.object_type.name
            )))],
            C::SystemType => borrowed(object.system_type.as_str()),
            C::StableId => text(&object.stable_id),
            C::ModelNumber => object
                .model_number()
                .map(Val::Integer)
                .into_iter()
                .collect(),
            C::HideData => vec![Val::Boolean(object.hide_data)],
            C::UpdatedAt => vec![Val::Time(object.updated_at.timestamp_micros())],
        },
        Field::Tags(kind) => facts
            .tags(object.id, *kind)
            .into_iter()
            .map(|t| Val::Text(Cow::Borrowed(t)))
            .collect(),
        Field::Labels(set) => labels(facts, object.id, *set)
            .into_iter()
            .map(|t| Val::Text(Cow::Borrowed(t)))
            .collect(),
        Field::Attribute { name, .. } => match facts.attribute(object.id, name) {
            None => Vec::new(),
            Some(Value::Text(t)) => borrowed(t),
            Some(Value::Integer(i)) => vec![Val::Integer(*i)],
            Some(Value::Double(d)) => vec![Val::Double(*d)],
            Some(Value::Boolean(b)) => vec![Val::Boolean(*b)],
            Some(Value::DateTime(t)) => vec![Val::Time(t.timestamp_micros())],
        },
        Field::Statistic(statistic) => facts
            .profiling(object.id)
            .and_then(|p| p.profile.as_ref())
            .and_then(|p| statistic_value(&p.statistics, *statistic))
            .into_iter()
            .collect(),
        Field::InferredDataTypes => facts
            .profiling(object.id)
            .and_then(|p| p.profile.as_ref())
            .map(|p| {
                p.inferred_data_types
                    .keys()
                    .map(|k| Val::Text(Cow::Borrowed(k.as_str())))
                    .collect()
            })
            .unwrap_or_default(),
        Field::Profiling(part) => {
            let profiling = facts.profiling(object.id);
            let present = match part {
                ProfilingPart::Profile => profiling.is_some_and(|p| p.profile.is_some()),
                ProfilingPart::Sample => profiling.is_some_and(|p| p.sample.is_some()),
                ProfilingPart::Histogram => profiling
                    .and_then(|p| p.profile.as_ref())
                    .is_some_and(|p| !p.histogram.is_empty()),
                ProfilingPart::Statistics => {
                    profiling.and_then(|p| p.profile.as_ref()).is_some_and(|p| {
                        serde_json::to_value(&p.statistics)
                            .ok()
                            .and_then(|v| v.as_object().map(|m| !m.is_empty()))
                            .unwrap_or(false)
                    })
                }
            };
            if present {
                vec![Val::Boolean(true)]
            } else {
                Vec::new()
            }
        }
        Field::ClassName | Field::ClassDescription => Vec::new(),
        Field::Curators(kind) => {
            let mut names = facts.curators(object.id, *kind);
            names.sort_unstable();
            names.dedup();
            names
                .into_iter()
                .map(|n| Val::Text(Cow::Borrowed(n)))
                .collect()
        }
        Field::CurationCount(kind) => {
            vec![Val::Integer(facts.curators(object.id, *kind).len() as i64)]
        }
        Field::RelationshipCount(name) => {
            let count = facts
                .edge_names(object.id, EdgeKind::CustomRelationship, true)
                .iter()
                .filter(|n| **n == name.as_str())
                .count();
            vec![Val::Integer(count as i64)]
        }
    }
}

fn statistic_value(
    s: &lore_model::ProfileStatistics,
    statistic: Statistic,
) -> Option<Val<'static>> {
    let int = |v: Option<i64>| v.map(Val::Integer);
    let double = |v: Option<f64>| v.map(Val::Double);
    match statistic {
        Statistic::Distinct => int(s.distinct_rows),
        Statistic::Duplicate => int(s.duplicate_rows),
        Statistic::Valid => int(s.valid_rows),
        Statistic::Empty => int(s.empty_rows),
        Statistic::Invalid => int(s.invalid_rows),
        Statistic::Min => double(s.min),
        Statistic::Max => double(s.max),
        Statistic::Mean => double(s.mean),
        Statistic::Variance => double(s.variance),
        Statistic::Median => double(s.median),
        Statistic::LowerQuantile => double(s.lower_quantile),
        Statistic::UpperQuantile => double(s.upper_quantile),
        Statistic::AvgLength => double(s.avg_length),
        Statistic::MinLength => int(s.min_length),
        Statistic::MaxLength => int(s.max_length),
    }
}

/// The names of an object's sensitivity labels of the set; for the single-valued sets
/// the most restrictive one (highest position, then the first name).
pub fn labels<'f>(facts: &'f dyn Facts, id: ObjectId, set: LabelSet) -> Vec<&'f str> {
    let assignments = facts.label_assignments(id);
    let with = |wanted: &dyn Fn(ClassificationStatus) -> bool| -> Vec<&'f str> {
        assignments
            .iter()
            .filter(|(_, s)| wanted(*s))
            .map(|(name, _)| *name)
            .collect()
    };
    let top = |names: Vec<&'f str>| -> Vec<&'f str> {
        let mut best: Option<(i64, &'f str)> = None;
        for name in names {
            let Some(label) = facts.sensitivity_label(name) else {
                continue;
            };
            let better = match best {
                None => true,
                Some((position, best_name)) => {
                    label.position > position || (label.position == position && name < best_name)
                }
            };
            if better {
                best = Some((label.position, name));
            }
        }
        best.map(|(_, name)| name).into_iter().collect()
    };
    match set {
        LabelSet::Top => top(with(&|s| {
            matches!(
                s,
                ClassificationStatus::Matched | ClassificationStatus::Approved
            )
        })),
        LabelSet::TopApproved => top(with(&|s| s == ClassificationStatus::Approved)),
        LabelSet::Matched => with(&|s| s == ClassificationStatus::Matched),
        LabelSet::Rejected => with(&|s| s == ClassificationStatus::Rejected),
    }
}
