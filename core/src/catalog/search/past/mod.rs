//! MQL as of a version, read as today's answer and a difference.
//!
//! Reading whole tables as they were (`asOf` in the store's own statements) costs
//! seconds at a million objects, as no index of today's rows serves the past. But what
//! a version held differs from today only in the objects changed since, which history
//! finds by their stamps ([`kept`]), and those are few after a harvest of 1% changes.
//! So a query as of a version is answered as:
//!
//! - the **affected** objects: the changed ones, and those whose answer reads a changed
//!   one (the children of a changed parent a `Parent.` test reads, the parents of a
//!   changed child, the subtrees of a moved object under a scope): each tested in memory
//!   as it was then and as it is now ([`facts`]), with the same evaluator the memory
//!   backend runs ([`crate::mql::eval`]);
//! - **everything else** is as it was, so today's statements answer for it: a count is
//!   today's count less the affected objects that pass now plus those that passed then;
//!   a page is today's page of the unaffected objects merged, in the plan's order, with
//!   the affected ones that passed then; value counts likewise.
//!
//! Each answer holds only if the catalog did not move while it was read: the newest
//! revision is read again after today's statements, and a write in between has the
//! answer worked out again. Profiling, which is not kept, is read as it is now, as the
//! store's statements read it. A query as of a version with more than
//! [`kept::MOST_CHANGED`] objects changed since goes to the store's statements as before.

mod facts;
mod kept;

use std::cmp::Ordering;
use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use self::facts::{Loaded, Misses, Moment};
pub(crate) use self::kept::KeptPasts;
use self::kept::{CHUNK, MOST_CHANGED, Past, images};
use super::Search;
use super::execute::{is_profiling, mentions_profiling};
use crate::error::Result;
use crate::id::ObjectId;
use crate::mql::eval::{self, Facts, Row, SortValues, compare_lits, compare_sorted, sort_values};
use crate::mql::plan::{Cond, Facet, Field, Lit, Page, Plan, Relation, ValueCount};

/// How many times an answer is worked out again when the catalog moved while it was
/// read, before the store's statements answer instead.
const TRIES: usize = 3;
/// How many rounds of reading what the tests reached (a level of ancestors each).
const ROUNDS: usize = 32;
/// At most this many lists of children read for one query.
const MOST_CHILD_LISTS: usize = 1_000;

/// A step from an object to the objects a condition reads of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Step {
    Parent,
    Children,
    /// Every ancestor, for a scope's subtrees.
    Ancestors,
}

/// The objects a condition reads from an object: along the steps, and what it tests
/// there when that is a test of the object alone.
#[derive(Debug)]
struct Path {
    steps: Vec<Step>,
    local: Option<Cond>,
}

/// Every path a condition reads along, after `prefix`.
fn paths(cond: &Cond, prefix: &[Step], out: &mut Vec<Path>) {
    match cond {
        Cond::And(items) | Cond::Or(items) => {
            for item in items {
                paths(item, prefix, out);
            }
        }
        Cond::Not(inner) => paths(inner, prefix, out),
        Cond::Related(relation @ (Relation::Parent | Relation::Children), inner) => {
            let step = match relation {
                Relation::Parent => Step::Parent,
                _ => Step::Children,
            };
            let steps = [prefix, &[step]].concat();
            out.push(Path {
                steps: steps.clone(),
                local: is_local(inner).then(|| (**inner).clone()),
            });
            paths(inner, &steps, out);
        }
        Cond::Within(within) if !within.subtrees.is_empty() => out.push(Path {
            steps: [prefix, &[Step::Ancestors]].concat(),
            local: None,
        }),
        _ => {}
    }
}

/// Whether a condition tests the object alone (its own rows and the definitions).
fn is_local(cond: &Cond) -> bool {
    match cond {
        Cond::And(items) | Cond::Or(items) => items.iter().all(is_local),
        Cond::Not(inner) => is_local(inner),
        Cond::Related(Relation::Parent | Relation::Children, _) => false,
        Cond::Within(within) => within.subtrees.is_empty(),
        _ => true,
    }
}

/// Every field a condition tests.
fn fields<'c>(cond: &'c Cond, out: &mut Vec<&'c Field>) {
    match cond {
        Cond::And(items) | Cond::Or(items) => items.iter().for_each(|c| fields(c, out)),
        Cond::Not(inner) | Cond::Related(_, inner) => fields(inner, out),
        Cond::Test(field, _) | Cond::Has(field) => out.push(field),
        _ => {}
    }
}

/// The fields the plan and the facets read: its conditions, sort keys and facets.
fn read_fields<'p>(plan: &'p Plan, condition: &'p Cond, facets: &'p [Facet]) -> Vec<&'p Field> {
    let mut read = Vec::new();
    fields(condition, &mut read);
    read.extend(plan.order.iter().map(|k| &k.field));
    for facet in facets {
        read.push(&facet.field);
        fields(&facet.hidden, &mut read);
    }
    read
}

/// A query as of a version, worked out for the objects whose answer may differ from
/// today's.
struct Difference {
    past: Arc<Past>,
    /// The affected objects, by id.
    affected: Vec<ObjectId>,
    /// The affected objects that passed then, in the plan's order.
    then: Vec<(SortValues, ObjectId)>,
    /// The affected objects that pass now, in the plan's order.
    now: Vec<(SortValues, ObjectId)>,
    /// Each facet's values among the affected objects that passed then, and that pass
    /// now: every value.
    then_counts: Vec<Vec<ValueCount>>,
    now_counts: Vec<Vec<ValueCount>>,
    loaded: Loaded,
    curation: bool,
}

impl Search<'_> {
    /// The ids of a page of the plan's objects: as of its version by difference when it
    /// can, else by the store.
    pub(super) async fn query_at(&self, plan: &Plan, page: Page) -> Result<Vec<ObjectId>> {
        for _ in 0..TRIES {
            let Some(difference) = self.difference(plan, &[]).await? else {
                break;
            };
            let ids = self.merged_page(plan, page, &difference).await?;
            if self.still_at(&difference.past).await? {
                return Ok(ids);
            }
        }
        self.store.query(plan, page).await
    }

    /// How many objects the plan finds, as [`Search::query_at`] reads them.
    pub(super) async fn count_at(&self, plan: &Plan) -> Result<u64> {
        for _ in 0..TRIES {
            let Some(difference) = self.difference(plan, &[]).await? else {
                break;
            };
            let today = self.store.count(&today(plan)).await?;
            if self.still_at(&difference.past).await? {
                let then = difference.then.len() as u64;
                return Ok((today + then).saturating_sub(difference.now.len() as u64));
            }
        }
        self.store.count(plan).await
    }

    /// The values of the facets among the plan's objects, as [`Search::query_at`] reads
    /// them.
    pub(super) async fn value_counts_at(
        &self,
        plan: &Plan,
        facets: &[Facet],
        limit: u64,
    ) -> Result<Vec<Vec<ValueCount>>> {
        for _ in 0..TRIES {
            let Some(difference) = self.difference(plan, facets).await? else {
                break;
            };
            // Enough of today's values that a value the difference raises into the
            // first `limit` is among them, or all of them.
            let touched = difference
                .then_counts
                .iter()
                .zip(&difference.now_counts)
                .map(|(a, b)| (a.len() + b.len()) as u64)
                .max()
                .unwrap_or(0);
            let asked = limit.saturating_add(touched);
            let today = self.store.value_counts(&today(plan), facets, asked).await?;
            if !self.still_at(&difference.past).await? {
                continue;
            }
            let merged: Option<Vec<Vec<ValueCount>>> = today
                .iter()
                .zip(difference.then_counts.iter().zip(&difference.now_counts))
                .map(|(today, (then, now))| adjust(today, then, now, asked, limit))
                .collect();
            match merged {
                Some(merged) => return Ok(merged),
                None => break,
            }
        }
        self.store.value_counts(plan, facets, limit).await
    }

    /// The difference of a plan as of its version from today, if it can be worked out.
    async fn difference(&self, plan: &Plan, facets: &[Facet]) -> Result<Option<Difference>> {
        if plan.as_of.is_none() {
            return Ok(None);
        }
        let clock = std::time::Instant::now();
        let found = self.difference_of(plan, facets).await?;
        tracing::debug!(
            elapsed_ms = clock.elapsed().as_secs_f64() * 1e3,
            affected = found.as_ref().map(|d| d.affected.len()),
            then = found.as_ref().map(|d| d.then.len()),
            "a query as of a version worked out by difference"
        );
        Ok(found)
    }

    async fn difference_of(&self, plan: &Plan, facets: &[Facet]) -> Result<Option<Difference>> {
        let Some(version) = plan.as_of else {
            return Ok(None);
        };
        let condition = plan.condition();
        let read = read_fields(plan, &condition, facets);
        let profiling = read.iter().any(|f| is_profiling(f)) || mentions_profiling(&condition);
        let curation = read
            .iter()
            .any(|f| matches!(f, Field::Curators(_) | Field::CurationCount(_)));
        let Some(past) = self.past(version).await? else {
            return Ok(None);
        };
        let mut loaded = Loaded {
            data_classes: self
                .store
                .data_classes()
                .await?
                .into_iter()
                .map(|d| (d.name.clone(), d))
                .collect(),
            sensitivity_labels: self
                .store
                .sensitivity_labels()
                .await?
                .into_iter()
                .map(|l| (l.name.clone(), l))
                .collect(),
            ..Default::default()
        };
        // What the tests of the changed objects read as it is now, before they are
        // tested for what reads them ([`flipped`]).
        let changed: Vec<ObjectId> = past.changed.iter().copied().collect();
        if curation {
            self.read_curation(&mut loaded, &changed).await?;
        }
        if profiling {
            // Not kept: as it is now, then too; read again for each query, as a write
            // of profiling changes no kept row.
            self.read_profiling(&mut loaded, &changed).await?;
        }
        let Some(affected) = self.affected(&past, &condition, facets, &loaded).await? else {
            return Ok(None);
        };
        if curation {
            self.read_curation(&mut loaded, &affected).await?;
        }
        let unchanged: BTreeSet<ObjectId> = affected
            .iter()
            .filter(|id| !past.changed.contains(id))
            .copied()
            .collect();
        let mut misses = Misses {
            objects: unchanged,
            ..Default::default()
        };
        for _ in 0..ROUNDS {
            if misses.children.len() > MOST_CHILD_LISTS {
                return Ok(None);
            }
            self.read_missed(&mut loaded, misses, curation, profiling)
                .await?;
            let (tested, missed) = test(plan, &condition, facets, &past, &loaded, &affected);
            if missed.is_empty() {
                let (then, now, then_counts, now_counts) = tested;
                return Ok(Some(Difference {
                    past,
                    affected,
                    then,
                    now,
                    then_counts,
                    now_counts,
                    loaded,
                    curation,
                }));
            }
            misses = missed;
        }
        Ok(None)
    }

    /// The objects whose answer may differ then and now: the changed ones, and those
    /// whose conditions or facets read a changed one. `None`: too many.
    async fn affected(
        &self,
        past: &Past,
        condition: &Cond,
        facets: &[Facet],
        loaded: &Loaded,
    ) -> Result<Option<Vec<ObjectId>>> {
        let mut all = Vec::new();
        paths(condition, &[], &mut all);
        for facet in facets {
            let step = match facet.relation {
                Some(Relation::Parent) => Some(Step::Parent),
                Some(Relation::Children) => Some(Step::Children),
                _ => None,
            };
            let prefix: Vec<Step> = step.into_iter().collect();
            if !prefix.is_empty() {
                all.push(Path {
                    steps: prefix.clone(),
                    local: None,
                });
            }
            paths(&facet.hidden, &prefix, &mut all);
        }
        let mut affected: BTreeSet<ObjectId> = past.changed.iter().copied().collect();
        for path in &all {
            let mut reached: BTreeSet<ObjectId> = match (path.steps.last(), &path.local) {
                (Some(Step::Ancestors), _) => moved(past),
                // Only a changed object whose test flips changes what reads it.
                (_, Some(local)) => flipped(past, local, loaded),
                _ => past.changed.iter().copied().collect(),
            };
            for step in path.steps.iter().rev() {
                if *step == Step::Children {
                    // A parent's children are others then than now where one moved,
                    // came or went, whatever its test answers.
                    reached.extend(moved(past));
                }
                if reached.is_empty() {
                    break;
                }
                reached = match step {
                    Step::Parent => self.children_now(&reached, 1).await?,
                    Step::Ancestors => self.children_now(&reached, usize::MAX).await?,
                    Step::Children => self.parents(past, &reached).await?,
                };
                affected.extend(reached.iter().copied());
                if affected.len() > 2 * MOST_CHANGED {
                    return Ok(None);
                }
            }
        }
        Ok(Some(affected.into_iter().collect()))
    }

    /// The objects at most `depth` levels below these, now (as MQL's `Parent` sees
    /// them: a model's top-level objects under the model).
    async fn children_now(
        &self,
        ids: &BTreeSet<ObjectId>,
        depth: usize,
    ) -> Result<BTreeSet<ObjectId>> {
        let mut found = BTreeSet::new();
        let mut level: Vec<ObjectId> = ids.iter().copied().collect();
        for _ in 0..depth {
            if level.is_empty() || found.len() > 2 * MOST_CHANGED {
                break;
            }
            let plan = Plan {
                filter: Cond::Related(Relation::Parent, Box::new(Cond::Ids(level))),
                ..Default::default()
            };
            let all = Page {
                offset: 0,
                limit: (2 * MOST_CHANGED + 1) as u64,
            };
            let children = self.store.query(&plan, all).await?;
            level = children
                .into_iter()
                .filter(|id| found.insert(*id))
                .collect();
        }
        Ok(found)
    }

    /// The parents of these objects, then and now.
    async fn parents(&self, past: &Past, ids: &BTreeSet<ObjectId>) -> Result<BTreeSet<ObjectId>> {
        let mut found = BTreeSet::new();
        let mut unchanged = Vec::new();
        for id in ids {
            if past.changed.contains(id) {
                for images in [&past.then, &past.now] {
                    found.extend(images.get(id).and_then(|i| eval::parent_id(&i.object)));
                }
            } else {
                unchanged.push(*id);
            }
        }
        for chunk in unchanged.chunks(CHUNK) {
            let objects = self.stored_objects(chunk).await?;
            found.extend(objects.iter().filter_map(eval::parent_id));
        }
        Ok(found)
    }

    /// Reads what the tests missed: objects as they are now, lists of children.
    async fn read_missed(
        &self,
        loaded: &mut Loaded,
        misses: Misses,
        curation: bool,
        profiling: bool,
    ) -> Result<()> {
        // Objects first bare: most tests read a column (a parent's name).
        let objects: Vec<ObjectId> = misses
            .objects
            .into_iter()
            .filter(|id| {
                !loaded.images.contains_key(id)
                    && !loaded.bare.contains_key(id)
                    && !loaded.absent.contains(id)
            })
            .collect();
        for chunk in objects.chunks(CHUNK) {
            let found = self.stored_objects(chunk).await?;
            let found: HashMap<ObjectId, _> = found.into_iter().map(|o| (o.id, o)).collect();
            for id in chunk {
                if !found.contains_key(id) {
                    loaded.absent.insert(*id);
                }
            }
            loaded.bare.extend(found);
            if curation {
                self.read_curation(loaded, chunk).await?;
            }
        }
        let detailed: Vec<ObjectId> = misses
            .details
            .into_iter()
            .filter(|id| !loaded.images.contains_key(id))
            .collect();
        for chunk in detailed.chunks(CHUNK) {
            let (found, mut details) = self.stored_with_details(chunk).await?;
            if profiling {
                let read = std::mem::take(&mut details.profiling);
                loaded
                    .profiling
                    .extend(read.into_iter().map(|p| (p.object, p)));
            }
            loaded.images.extend(images(found, details));
            for id in chunk {
                if !loaded.images.contains_key(id) {
                    loaded.absent.insert(*id);
                }
            }
        }
        for (model, parent) in misses.children {
            let children = self
                .store
                .children(model, parent.map(|p| ObjectId::new(model, p)))
                .await?;
            loaded
                .children
                .insert((model, parent), children.iter().map(|c| c.id).collect());
        }
        Ok(())
    }

    /// The profiling of these objects now.
    async fn read_profiling(&self, loaded: &mut Loaded, ids: &[ObjectId]) -> Result<()> {
        for chunk in ids.chunks(CHUNK) {
            let (_, details) = self.stored_with_details(chunk).await?;
            let read = details.profiling.into_iter().map(|p| (p.object, p));
            loaded.profiling.extend(read);
        }
        Ok(())
    }

    /// The curation of these objects now, with its users' names.
    async fn read_curation(&self, loaded: &mut Loaded, ids: &[ObjectId]) -> Result<()> {
        let unread: Vec<ObjectId> = ids
            .iter()
            .filter(|id| loaded.curated.insert(**id))
            .copied()
            .collect();
        for chunk in unread.chunks(CHUNK) {
            for entry in self.store.curation_of(chunk).await? {
                let name = match loaded.users.get(&entry.user) {
                    Some(name) => name.clone(),
                    None => {
                        let name = self.store.user(entry.user).await?.map(|u| u.name);
                        loaded.users.insert(entry.user, name.clone());
                        name
                    }
                };
                if let Some(name) = name {
                    loaded
                        .curation
                        .entry(entry.object)
                        .or_default()
                        .push((entry.kind, name));
                }
            }
        }
        Ok(())
    }

    /// A page of the plan as of its version: today's objects less the affected ones,
    /// merged in order with the affected ones that passed then.
    async fn merged_page(
        &self,
        plan: &Plan,
        page: Page,
        difference: &Difference,
    ) -> Result<Vec<ObjectId>> {
        let then = &difference.then;
        let end = page.offset.saturating_add(page.limit);
        let clock = std::time::Instant::now();
        // The unaffected objects of the page lie at most `then.len()` places before it.
        let mut low = page.offset.saturating_sub(then.len() as u64);
        let (mut window, mut keys) = self.unaffected(plan, low, end, difference).await?;
        if window.is_empty() && low > 0 {
            // Fewer unaffected objects than `low`: all of them, to place the rest.
            low = 0;
            (window, keys) = self.unaffected(plan, 0, end, difference).await?;
        }
        tracing::debug!(
            window = window.len(),
            elapsed_ms = clock.elapsed().as_secs_f64() * 1e3,
            "today's objects around a page as of a version"
        );
        let order = &plan.order;
        let before = |p: &(SortValues, ObjectId), w: usize| {
            compare_sorted(order, (&p.0, p.1), (&keys[w], window[w])) == Ordering::Less
        };
        // From the window's first object, whose place is `low` and the affected objects
        // before it (those before it lie before the page when `low` is above 0).
        let mut j = match window.is_empty() || low == 0 {
            true => 0,
            false => then.partition_point(|p| before(p, 0)),
        };
        let mut position = low + j as u64;
        let mut i = 0;
        let mut ids = Vec::new();
        while position < end && (i < window.len() || j < then.len()) {
            let id = if j < then.len() && (i >= window.len() || before(&then[j], i)) {
                j += 1;
                then[j - 1].1
            } else {
                i += 1;
                window[i - 1]
            };
            if position >= page.offset {
                ids.push(id);
            }
            position += 1;
        }
        Ok(ids)
    }

    /// The unaffected objects at places `low..end` among today's objects less the
    /// affected ones, in order, with what they sort by. Read by today's statement of a
    /// page (so as fast as today's page) from place `low` on, and further for as many
    /// affected objects as it met, each one's place among the unaffected its place today
    /// less the affected ones that pass now before it.
    async fn unaffected(
        &self,
        plan: &Plan,
        low: u64,
        end: u64,
        difference: &Difference,
    ) -> Result<(Vec<ObjectId>, Vec<SortValues>)> {
        let passing = &difference.now;
        let affected: std::collections::HashSet<ObjectId> =
            difference.affected.iter().copied().collect();
        let order = &plan.order;
        let mut window = Vec::new();
        let mut sorts = Vec::new();
        let mut page = Page {
            offset: low,
            limit: end - low,
        };
        // The place of the last unaffected object read.
        let mut last = None;
        while page.limit > 0 {
            let read = self.store.query(&today(plan), page).await?;
            let exhausted = (read.len() as u64) < page.limit;
            let keys = self.window_keys(plan, &read, difference).await?;
            let mut skipped = 0u64;
            for (i, (id, key)) in read.into_iter().zip(keys).enumerate() {
                if affected.contains(&id) {
                    skipped += 1;
                    continue;
                }
                let before = passing.partition_point(|n| {
                    compare_sorted(order, (&n.0, n.1), (&key, id)) == Ordering::Less
                });
                let place = (page.offset + i as u64).saturating_sub(before as u64);
                last = Some(place);
                if (low..end).contains(&place) {
                    window.push(id);
                    sorts.push(key);
                }
            }
            if exhausted {
                break;
            }
            // The places up to `end` not reached yet, read further: twice as many as the
            // affected ones met, which keep coming where they gather (the newest, first
            // by "Updated Date", often are).
            let missing = end.saturating_sub(last.map_or(low, |l| l + 1));
            page = Page {
                offset: page.offset + page.limit,
                limit: match missing {
                    0 => 0,
                    missing => missing.max(skipped.saturating_mul(2)),
                },
            };
        }
        Ok((window, sorts))
    }

    /// What the window's objects (unaffected: as they were) sort by.
    async fn window_keys(
        &self,
        plan: &Plan,
        window: &[ObjectId],
        difference: &Difference,
    ) -> Result<Vec<SortValues>> {
        if plan.order.is_empty() {
            return Ok(vec![Vec::new(); window.len()]);
        }
        let mut loaded = Loaded {
            data_classes: difference.loaded.data_classes.clone(),
            sensitivity_labels: difference.loaded.sensitivity_labels.clone(),
            ..Default::default()
        };
        let columns = plan
            .order
            .iter()
            .all(|k| matches!(k.field, Field::Column(_)));
        for chunk in window.chunks(CHUNK) {
            if columns {
                let objects = self.stored_objects(chunk).await?;
                loaded
                    .images
                    .extend(images(objects, crate::store::Details::default()));
            } else {
                let (objects, mut details) = self.stored_with_details(chunk).await?;
                let read = std::mem::take(&mut details.profiling);
                loaded
                    .profiling
                    .extend(read.into_iter().map(|p| (p.object, p)));
                loaded.images.extend(images(objects, details));
            }
        }
        if difference.curation {
            self.read_curation(&mut loaded, window).await?;
        }
        let now = Moment::now(&difference.past, &loaded);
        Ok(window
            .iter()
            .map(|id| match now.object(*id) {
                Some(object) => sort_values(&plan.order, &now, object),
                None => Vec::new(),
            })
            .collect())
    }
}

/// The plan as of now.
fn today(plan: &Plan) -> Plan {
    Plan {
        as_of: None,
        ..plan.clone()
    }
}

/// The changed objects whose place in the tree changed (or that came or went).
fn moved(past: &Past) -> BTreeSet<ObjectId> {
    past.changed
        .iter()
        .filter(|id| {
            let parent = |images: &kept::Images| images.get(id).map(|i| i.object.parent);
            parent(&past.then) != parent(&past.now)
        })
        .copied()
        .collect()
}

/// The changed objects for which a test of the object alone answered differently then
/// and now.
fn flipped(past: &Past, local: &Cond, loaded: &Loaded) -> BTreeSet<ObjectId> {
    let then = Moment::then(past, loaded);
    let now = Moment::now(past, loaded);
    let passes = |moment: &Moment<'_>, id: ObjectId| {
        moment
            .object(id)
            .is_some_and(|o| eval::holds(local, moment, Row::Object(o)))
    };
    past.changed
        .iter()
        .filter(|id| passes(&then, **id) != passes(&now, **id))
        .copied()
        .collect()
}

/// What the tests of the affected objects found: those that passed then (sorted, with
/// what they sort by), how many pass now, and each facet's values among them then and
/// now; and what they missed.
type Tested = (
    Vec<(SortValues, ObjectId)>,
    Vec<(SortValues, ObjectId)>,
    Vec<Vec<ValueCount>>,
    Vec<Vec<ValueCount>>,
);

/// Tests the affected objects as they were then and as they are now.
fn test(
    plan: &Plan,
    condition: &Cond,
    facets: &[Facet],
    past: &Past,
    loaded: &Loaded,
    affected: &[ObjectId],
) -> (Tested, Misses) {
    let then = Moment::then(past, loaded);
    let now = Moment::now(past, loaded);
    let tested = {
        let passing = |moment: &Moment<'_>| -> Vec<ObjectId> {
            affected
                .iter()
                .filter(|id| {
                    moment
                        .object(**id)
                        .is_some_and(|o| eval::holds(condition, moment, Row::Object(o)))
                })
                .copied()
                .collect()
        };
        let passed = passing(&then);
        let passes = passing(&now);
        let sorted = |moment: &Moment<'_>, ids: &[ObjectId]| {
            let mut sorted: Vec<(SortValues, ObjectId)> = ids
                .iter()
                .filter_map(|id| moment.object(*id))
                .map(|o| (sort_values(&plan.order, moment, o), o.id))
                .collect();
            sorted.sort_by(|a, b| compare_sorted(&plan.order, (&a.0, a.1), (&b.0, b.1)));
            sorted
        };
        let counts = |moment: &Moment<'_>, ids: &[ObjectId]| -> Vec<Vec<ValueCount>> {
            facets
                .iter()
                .map(|facet| {
                    let objects = ids.iter().filter_map(|id| moment.object(*id));
                    eval::value_counts(&Plan::default(), moment, objects, facet, u64::MAX)
                })
                .collect()
        };
        let then_counts = counts(&then, &passed);
        let now_counts = counts(&now, &passes);
        (
            sorted(&then, &passed),
            sorted(&now, &passes),
            then_counts,
            now_counts,
        )
    };
    let mut misses = then.misses();
    misses.add(now.misses());
    (tested, misses)
}

/// Today's value counts (the first `asked`) with the difference applied: the first
/// `limit` values as of the version, or `None` when a value outside today's first
/// `asked` could be among them (its count today unknown).
fn adjust(
    today: &[ValueCount],
    then: &[ValueCount],
    now: &[ValueCount],
    asked: u64,
    limit: u64,
) -> Option<Vec<ValueCount>> {
    let complete = (today.len() as u64) < asked;
    let key = |value: &Lit| format!("{value:?}");
    let mut counts: HashMap<String, (Lit, i64)> = today
        .iter()
        .map(|c| (key(&c.value), (c.value.clone(), c.count as i64)))
        .collect();
    let mut delta: HashMap<String, (Lit, i64)> = HashMap::new();
    for (list, sign) in [(then, 1), (now, -1)] {
        for c in list {
            let entry = delta
                .entry(key(&c.value))
                .or_insert_with(|| (c.value.clone(), 0));
            entry.1 += sign * c.count as i64;
        }
    }
    for (k, (value, d)) in delta {
        match counts.get_mut(&k) {
            Some(entry) => entry.1 += d,
            None if complete => {
                counts.insert(k, (value, d));
            }
            None if d > 0 => return None,
            None => {}
        }
    }
    let mut list: Vec<ValueCount> = counts
        .into_values()
        .filter(|(_, n)| *n > 0)
        .map(|(value, n)| ValueCount {
            value,
            count: n as u64,
        })
        .collect();
    list.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| compare_lits(&a.value, &b.value))
    });
    list.truncate(usize::try_from(limit).unwrap_or(usize::MAX));
    Some(list)
}

impl crate::catalog::Catalog {
    /// A page, the count and the value counts of a plan (with its `as_of`), each worked
    /// out by difference where it can, and whether it could: the entry of the
    /// cross-backend test that holds these answers to the store's own statements. Not
    /// part of the API.
    #[doc(hidden)]
    pub async fn plan_answers(
        &self,
        plan: &Plan,
        page: Page,
        facets: &[Facet],
        limit: u64,
    ) -> Result<(Vec<ObjectId>, u64, Vec<Vec<ValueCount>>, bool)> {
        let search = self.search();
        let by_difference = search.difference(plan, facets).await?.is_some();
        Ok((
            search.query_at(plan, page).await?,
            search.count_at(plan).await?,
            search.value_counts_at(plan, facets, limit).await?,
            by_difference,
        ))
    }
}
