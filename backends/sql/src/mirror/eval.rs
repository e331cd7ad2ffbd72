//! Which plans the search index answers ([`supports`], [`counts`]), and how: a plan's
//! condition tested on the kept entries ([`find`]), a facet counted over the entries
//! found ([`value_counts`]). Tests mean what [`lore_core::mql::eval`] (the reference
//! evaluator, which the SQL compiler is held to) says they mean: text folded, compared
//! byte-wise.

use std::borrow::Cow;
use std::cmp::Reverse;
use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use lore_core::ObjectId;
use lore_core::model::{CurationKind, ObjectKind, TagKind};
use lore_core::mql::eval::passes;
use lore_core::mql::plan::{
    ClassStatuses, Column, Cond, Facet, Field, LabelSet, Lit, Plan, Relation, Test, ValueCount,
    fold,
};
use memchr::memmem;

use super::segment::{CERTIFIED, DESCRIBED, ENDORSED, Entry, NONE, Segment, WARNED};
use super::{Found, Index};

/// A text search run on an index: whether it reads Name's form, Physical Name's, and
/// the term.
pub(crate) type TermKey = (bool, bool, String);

/// Whether the index can test every condition of the plan.
pub(crate) fn supports(plan: &Plan) -> bool {
    testable(&plan.filter) && testable(&plan.visibility)
}

/// Whether the condition holds a text search: what the index is for. Without one the
/// statements answer from the database's own indexes and tallies, faster than a scan
/// of every kept object.
pub(crate) fn searches(cond: &Cond) -> bool {
    match cond {
        Cond::Search { .. } => true,
        Cond::And(items) | Cond::Or(items) => items.iter().any(searches),
        Cond::Not(inner) => searches(inner),
        _ => false,
    }
}

/// The entries of a segment whose forms hold a term: in order, and as a bit per entry.
#[derive(Debug)]
pub(crate) struct Term {
    rows: Vec<u32>,
    bits: Vec<u64>,
}

impl Term {
    fn holds(&self, at: u32) -> bool {
        self.bits
            .get(at as usize / 64)
            .is_some_and(|bits| bits & (1 << (at % 64)) != 0)
    }
}

fn testable(cond: &Cond) -> bool {
    match cond {
        Cond::True | Cond::False | Cond::Ids(_) | Cond::Kinds(_) => true,
        Cond::And(items) | Cond::Or(items) => items.iter().all(testable),
        Cond::Not(inner) => testable(inner),
        Cond::Search { columns, text } => {
            !columns.is_empty()
                && !text.is_empty()
                && !text.contains(['\0', '\u{1}'])
                && columns
                    .iter()
                    .all(|c| matches!(c, Column::Name | Column::PhysicalName))
        }
        Cond::Test(field, _) => text_field(field).is_some() || *field == MODEL,
        Cond::Has(field) => text_field(field).is_some() || *field == MODEL || flag(field).is_some(),
        Cond::Related(Relation::DataClasses(_), inner) => class_testable(inner),
        Cond::Related(..) | Cond::Edge { .. } | Cond::DataHidden => false,
        Cond::Within(within) => within.subtrees.is_empty(),
    }
}

fn class_testable(cond: &Cond) -> bool {
    match cond {
        Cond::True | Cond::False => true,
        Cond::And(items) | Cond::Or(items) => items.iter().all(class_testable),
        Cond::Not(inner) => class_testable(inner),
        Cond::Test(Field::ClassName, _) | Cond::Has(Field::ClassName) => true,
        _ => false,
    }
}

const MODEL: Field = Field::Column(Column::ModelNumber);

/// The text fields an entry keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TextField {
    Name,
    Type,
    DataType,
    Labels,
    TopLabel,
}

fn text_field(field: &Field) -> Option<TextField> {
    Some(match field {
        Field::Column(Column::Name) => TextField::Name,
        Field::Column(Column::TypeName) => TextField::Type,
        Field::Column(Column::DataType) => TextField::DataType,
        Field::Tags(TagKind::Label) => TextField::Labels,
        Field::Labels(LabelSet::Top) => TextField::TopLabel,
        _ => return None,
    })
}

/// The flag of a field the index keeps only whether it has a value.
fn flag(field: &Field) -> Option<u8> {
    Some(match field {
        Field::Column(Column::Description) => DESCRIBED,
        Field::Curators(CurationKind::Certification) => CERTIFIED,
        Field::Curators(CurationKind::Endorsement) => ENDORSED,
        Field::Curators(CurationKind::Warning) => WARNED,
        _ => return None,
    })
}

/// Whether the index counts the facet's values.
pub(crate) fn counts(facet: &Facet) -> bool {
    facet.gap.is_none()
        && facet.hidden == Cond::False
        && match (&facet.relation, &facet.field) {
            (None, field) => text_field(field).is_some() || *field == MODEL,
            (Some(Relation::DataClasses(_)), Field::ClassName) => true,
            _ => false,
        }
}

/// A condition made ready for an index: texts tested once per distinct text, searches
/// run.
enum Ready {
    Const(bool),
    And(Vec<Ready>),
    Or(Vec<Ready>),
    Not(Box<Ready>),
    /// The entries a search found.
    Found(Arc<Term>),
    /// Name passes the test (folded).
    Name(Test),
    /// Some value of the field passes: by the index's text number.
    Texts(TextField, Vec<bool>),
    /// The field has a value.
    HasText(TextField),
    Model(Test),
    HasModel,
    Flag(u8),
    /// Some classification of one of the statuses, of a class whose name passes.
    Classes(ClassStatuses, Vec<bool>),
    Ids(HashSet<ObjectId>),
    Kinds(Vec<ObjectKind>),
    Models(Vec<i64>),
}

fn ready(index: &Segment, cond: &Cond) -> Ready {
    match cond {
        Cond::True => Ready::Const(true),
        Cond::False => Ready::Const(false),
        Cond::And(items) => Ready::And(items.iter().map(|c| ready(index, c)).collect()),
        Cond::Or(items) => Ready::Or(items.iter().map(|c| ready(index, c)).collect()),
        Cond::Not(inner) => Ready::Not(Box::new(ready(index, inner))),
        Cond::Search { columns, text } => {
            let key = (
                columns.contains(&Column::Name),
                columns.contains(&Column::PhysicalName),
                text.clone(),
            );
            Ready::Found(search(index, key))
        }
        Cond::Test(field, test) if *field == MODEL => Ready::Model(test.clone()),
        Cond::Has(field) if *field == MODEL => Ready::HasModel,
        Cond::Test(field, test) => match text_field(field) {
            Some(TextField::Name) => Ready::Name(test.clone()),
            Some(field) => Ready::Texts(field, passing(index, |t| passes_text(t, test))),
            None => Ready::Const(false),
        },
        Cond::Has(field) => match (text_field(field), flag(field)) {
            (Some(field), _) => Ready::HasText(field),
            (None, Some(flag)) => Ready::Flag(flag),
            (None, None) => Ready::Const(false),
        },
        Cond::Related(Relation::DataClasses(statuses), inner) => {
            Ready::Classes(*statuses, passing(index, |t| class_holds(inner, t)))
        }
        Cond::Ids(ids) => Ready::Ids(ids.iter().copied().collect()),
        Cond::Kinds(kinds) => Ready::Kinds(kinds.clone()),
        Cond::Within(within) => Ready::Models(within.models.clone()),
        // Not testable ([`supports`]): never reached.
        Cond::Related(..) | Cond::Edge { .. } | Cond::DataHidden => Ready::Const(false),
    }
}

/// For each of the index's texts (folded), whether it passes.
fn passing(index: &Segment, pass: impl Fn(&str) -> bool) -> Vec<bool> {
    index.texts.folded.iter().map(|t| pass(t)).collect()
}

fn passes_text(folded: &str, test: &Test) -> bool {
    passes(&Lit::Text(folded.to_owned()), test)
}

/// A condition on a data class, of its (folded) name.
fn class_holds(cond: &Cond, name: &str) -> bool {
    match cond {
        Cond::True | Cond::Has(Field::ClassName) => true,
        Cond::And(items) => items.iter().all(|c| class_holds(c, name)),
        Cond::Or(items) => items.iter().any(|c| class_holds(c, name)),
        Cond::Not(inner) => !class_holds(inner, name),
        Cond::Test(Field::ClassName, test) => passes_text(name, test),
        _ => false,
    }
}

impl Ready {
    /// Whether the segment's entry at `at` satisfies the condition.
    fn holds(&self, segment: &Segment, at: u32) -> bool {
        self.holds_on(segment, &segment.entries[at as usize], at)
    }

    /// [`Ready::holds`] of the entry at `at`, read once by the caller.
    fn holds_on(&self, segment: &Segment, entry: &Entry, at: u32) -> bool {
        match self {
            Ready::Const(b) => *b,
            Ready::And(items) => items.iter().all(|c| c.holds_on(segment, entry, at)),
            Ready::Or(items) => items.iter().any(|c| c.holds_on(segment, entry, at)),
            Ready::Not(inner) => !inner.holds_on(segment, entry, at),
            Ready::Found(term) => term.holds(at),
            Ready::Name(test) => {
                let name = segment.name(at);
                match test {
                    // A folded literal has no upper case (folding is ASCII): equal to the
                    // folded name exactly when equal to the name, ignoring ASCII case.
                    Test::Eq(Lit::Text(text)) => name.eq_ignore_ascii_case(text),
                    Test::In(lits) => lits.iter().any(|lit| match lit {
                        Lit::Text(text) => name.eq_ignore_ascii_case(text),
                        _ => false,
                    }),
                    _ => passes_text(&fold(name), test),
                }
            }
            Ready::Texts(field, pass) => {
                let yes = |n: u32| n != NONE && pass.get(n as usize).copied().unwrap_or(false);
                match field {
                    TextField::Name => false,
                    TextField::Type => yes(entry.type_name),
                    TextField::DataType => yes(entry.data_type),
                    TextField::TopLabel => yes(entry.top_label),
                    TextField::Labels => segment.labels(entry).iter().any(|&n| yes(n)),
                }
            }
            Ready::HasText(field) => match field {
                TextField::Name | TextField::Type => true,
                TextField::DataType => entry.data_type != NONE,
                TextField::TopLabel => entry.top_label != NONE,
                TextField::Labels => !segment.labels(entry).is_empty(),
            },
            Ready::Model(test) => entry
                .model_number()
                .is_some_and(|m| passes(&Lit::Integer(m), test)),
            Ready::HasModel => entry.model_number().is_some(),
            Ready::Flag(flag) => entry.flags & flag != 0,
            Ready::Classes(statuses, pass) => {
                segment.classes(entry).iter().any(|&(class, status)| {
                    statuses.contains(status) && pass.get(class as usize).copied().unwrap_or(false)
                })
            }
            Ready::Ids(ids) => ids.contains(&entry.id),
            Ready::Kinds(kinds) => kinds.contains(&entry.kind),
            Ready::Models(models) => entry.model_number().is_some_and(|m| models.contains(&m)),
        }
    }

    /// The smallest list of entries (sorted) every entry satisfying the condition is
    /// in: a search it requires, or the objects it names.
    fn candidates(&self, segment: &Segment) -> Option<Cow<'_, [u32]>> {
        match self {
            Ready::Found(term) => Some(Cow::Borrowed(term.rows.as_slice())),
            Ready::Ids(ids) => {
                let mut rows: Vec<u32> =
                    ids.iter().filter_map(|&id| segment.position(id)).collect();
                rows.sort_unstable();
                Some(Cow::Owned(rows))
            }
            Ready::And(items) => items
                .iter()
                .filter_map(|c| c.candidates(segment))
                .min_by_key(|rows| rows.len()),
            _ => None,
        }
    }
}

/// The objects satisfying the condition: in each part of the index, in name order.
pub(crate) fn find(index: &Arc<Index>, cond: &Cond) -> Found {
    let base = found_in(&index.base, cond, |at| !index.is_stale(at));
    let fresh = found_in(&index.fresh, cond, |_| true);
    Found {
        index: Arc::clone(index),
        base,
        fresh,
    }
}

/// The entries of a segment that are `current` and satisfy the condition, in order.
fn found_in(segment: &Segment, cond: &Cond, current: impl Fn(u32) -> bool) -> Vec<u32> {
    let ready = ready(segment, cond);
    let holds = |&at: &u32| current(at) && ready.holds(segment, at);
    match ready.candidates(segment) {
        Some(candidates) => candidates.iter().copied().filter(holds).collect(),
        None => (0..segment.len() as u32).filter(holds).collect(),
    }
}

/// The entries whose forms hold the term, kept on the index for the calls that follow.
fn search(index: &Segment, key: TermKey) -> Arc<Term> {
    {
        let terms = index.terms.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, rows)) = terms.iter().find(|(k, _)| *k == key) {
            return Arc::clone(rows);
        }
    }
    let (in_name, in_physical, term) = (&key.0, &key.1, key.2.as_bytes());
    let mut rows: Vec<u32> = Vec::new();
    let mut at = 0usize;
    let last = index.starts.len().saturating_sub(1);
    for found in memmem::find_iter(&index.forms, term) {
        while at < last && index.starts[at + 1] as usize <= found {
            at += 1;
        }
        if at >= last || rows.last() == Some(&(at as u32)) {
            continue;
        }
        let start = index.starts[at] as usize;
        // Which form: before the mark, Name's; after it, Physical Name's (a term never
        // holds the mark, so it never spans both).
        let mark = memchr::memchr(1, &index.forms[start..found]).is_some();
        if (*in_name && !mark) || (*in_physical && mark) {
            rows.push(at as u32);
        }
    }
    let mut bits = vec![0u64; index.len().div_ceil(64)];
    for &at in &rows {
        bits[at as usize / 64] |= 1 << (at % 64);
    }
    let term = Arc::new(Term { rows, bits });
    let mut terms = index.terms.lock().unwrap_or_else(|e| e.into_inner());
    terms.push((key, Arc::clone(&term)));
    if terms.len() > 16 {
        terms.remove(0);
    }
    term
}

/// Each facet's values among the objects found, most first, then by value; `None` for a
/// facet the index does not keep ([`counts`]). The facets are counted in one pass over
/// the entries found: a broad term finds hundreds of thousands.
pub(crate) fn value_counts(
    index: &Index,
    rows: [&[u32]; 2],
    facets: &[Facet],
    limit: u64,
) -> Vec<Option<Vec<ValueCount>>> {
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let parts = [(&*index.base, rows[0]), (&*index.fresh, rows[1])];
    let mut totals: Vec<Option<Total>> = facets
        .iter()
        .map(|facet| {
            counts(facet).then(|| {
                if facet.field == MODEL {
                    Total::Models(HashMap::new())
                } else {
                    Total::Texts(HashMap::new())
                }
            })
        })
        .collect();
    for (segment, rows) in parts {
        let mut counters: Vec<Option<Counter>> = facets
            .iter()
            .zip(&totals)
            .map(|(facet, total)| total.as_ref().and_then(|_| Counter::of(segment, facet)))
            .collect();
        let mut distinct = Vec::new();
        for &at in rows {
            let entry = &segment.entries[at as usize];
            for counter in counters.iter_mut().flatten() {
                counter.add(segment, entry, at, &mut distinct);
            }
        }
        for (total, counter) in totals.iter_mut().zip(counters) {
            if let (Some(total), Some(counter)) = (total, counter) {
                counter.into_total(segment, total);
            }
        }
    }
    totals
        .into_iter()
        .map(|total| {
            total.map(|total| match total {
                Total::Models(counted) => most_first(counted, limit, Lit::Integer),
                Total::Texts(counted) => {
                    most_first(counted, limit, |value| Lit::Text(value.to_owned()))
                }
            })
        })
        .collect()
}

/// A facet's counts over the whole index.
enum Total<'s> {
    Models(HashMap<i64, u64>),
    Texts(HashMap<&'s str, u64>),
}

/// A facet's counts over one segment's entries: by the segment's text number (few texts,
/// many entries), by name, or by model.
enum Counter<'s> {
    /// The entry's text (type, data type, top label), its labels, or the names of its
    /// data classes of these statuses (each once).
    Texts(TextField, Vec<u64>),
    Classes(ClassStatuses, Vec<u64>),
    Names(HashMap<&'s str, u64>),
    /// By model number: the last model counted, with its count so far, then the others.
    Models(Option<(i64, u64)>, HashMap<i64, u64>),
}

impl<'s> Counter<'s> {
    fn of(segment: &Segment, facet: &Facet) -> Option<Self> {
        let numbers = || vec![0; segment.texts.texts.len()];
        Some(match (&facet.relation, text_field(&facet.field)) {
            (Some(Relation::DataClasses(statuses)), _) => Counter::Classes(*statuses, numbers()),
            _ if facet.field == MODEL => Counter::Models(None, HashMap::new()),
            (_, Some(TextField::Name)) => Counter::Names(HashMap::new()),
            (_, Some(field)) => Counter::Texts(field, numbers()),
            (_, None) => return None,
        })
    }

    fn add(&mut self, segment: &'s Segment, entry: &Entry, at: u32, distinct: &mut Vec<u32>) {
        let one = |counts: &mut Vec<u64>, n: u32| {
            if let Some(count) = counts.get_mut(n as usize) {
                *count += 1;
            }
        };
        match self {
            Counter::Texts(field, counts) => match field {
                TextField::Type => one(counts, entry.type_name),
                TextField::DataType => one(counts, entry.data_type),
                TextField::TopLabel => one(counts, entry.top_label),
                TextField::Labels => segment.labels(entry).iter().for_each(|&n| one(counts, n)),
                TextField::Name => {}
            },
            Counter::Classes(statuses, counts) => {
                let classes = segment.classes(entry);
                if classes.is_empty() {
                    return;
                }
                distinct.clear();
                distinct.extend(
                    classes
                        .iter()
                        .filter(|(_, s)| statuses.contains(*s))
                        .map(|&(class, _)| class),
                );
                distinct.sort_unstable();
                distinct.dedup();
                distinct.iter().for_each(|&n| one(counts, n));
            }
            Counter::Names(counted) => *counted.entry(segment.name(at)).or_default() += 1,
            Counter::Models(last, counted) => {
                let Some(model) = entry.model_number() else {
                    return;
                };
                match last {
                    Some((m, n)) if *m == model => *n += 1,
                    _ => {
                        if let Some((m, n)) = last.replace((model, 1)) {
                            *counted.entry(m).or_default() += n;
                        }
                    }
                }
            }
        }
    }

    /// Adds the segment's counts to the facet's.
    fn into_total(self, segment: &'s Segment, total: &mut Total<'s>) {
        match (self, total) {
            (Counter::Models(last, counted), Total::Models(total)) => {
                for (model, n) in counted.into_iter().chain(last) {
                    *total.entry(model).or_default() += n;
                }
            }
            (Counter::Names(counted), Total::Texts(total)) => {
                for (name, n) in counted {
                    *total.entry(name).or_default() += n;
                }
            }
            (Counter::Texts(_, counts) | Counter::Classes(_, counts), Total::Texts(total)) => {
                for (n, count) in counts.into_iter().enumerate().filter(|&(_, c)| c > 0) {
                    *total.entry(segment.texts.text(n as u32)).or_default() += count;
                }
            }
            _ => {}
        }
    }
}

/// Counted values as a facet answers them: most first, then by value (byte-wise for
/// text), at most `limit`.
pub(crate) fn most_first<V: Ord + Copy>(
    counted: HashMap<V, u64>,
    limit: usize,
    lit: impl Fn(V) -> Lit,
) -> Vec<ValueCount> {
    let mut counted: Vec<(V, u64)> = counted.into_iter().collect();
    counted.sort_unstable_by_key(|&(value, n)| (Reverse(n), value));
    counted
        .into_iter()
        .take(limit)
        .map(|(value, count)| ValueCount {
            value: lit(value),
            count,
        })
        .collect()
}
