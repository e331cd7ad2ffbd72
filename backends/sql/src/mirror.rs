//! The search index: what a text search and the search page's facets read of every
//! object, kept in memory by each process and answered from there.
//!
//! A broad term (`column_1`, one object in two of a 1,000,000-object catalog) or a short
//! one (`7`, which no word index serves) finds hundreds of thousands of objects, and the
//! search page asks ten things of them: their count, a page, the exact names, five facets
//! and four status counts. The database finds them again for each, in seconds. Here they
//! are found by one scan of the objects' search forms laid end to end in one buffer
//! ([`memchr::memmem`]), a few milliseconds for 1,000,000 objects, and counted in memory.
//!
//! **What is kept** of each object ([`segment`]): its id, kind, name, search forms
//! (Name's and Physical Name's, [`search_form`](lore_core::mql::plan::search_form)), type
//! and data type, labels, data classes with their statuses, top sensitivity label, and
//! whether it is certified, endorsed, warned and described: about 90 bytes an object. Conditions on anything else, and facets of
//! anything else, are answered by the database as before ([`supports`]).
//!
//! **Kept in step by the journal of changes** (migration 32): every write transaction
//! of the catalog moves its version and lists the objects it changed under it. Before
//! each use the catalog's version is read; when it moved, the objects changed since the
//! index's version are read again (one snapshot) and merged in. A change the journal
//! lists as "everything" (a big import, a model cleared, a restore), or more changes
//! than [`MOST_MERGED`], or an index older than the journal's memory, has the index read
//! whole again in the background while the database answers. A write by another process
//! over the same database is seen by the next call exactly as one by this process.
//!
//! The index is only used for plans whose every condition it can test
//! ([`eval::supports`]), so an answer is the database's answer: the differential tests
//! (`conformance-tests/tests/mql_cross_backend.rs`) hold it to that.

mod eval;
mod segment;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use lore_core::model::TagKind;
use lore_core::mql::plan::{Cond, Facet, Page, Plan, ValueCount};
use lore_core::{ObjectId, Result};

use crate::driver::{Driver, DriverSnapshot, Stmt};
use crate::store::SqlStore;
use crate::value::{Row, SqlValue};

pub(crate) use eval::{counts, most_first};
use segment::{Draft, Segment};

/// Objects read per statement while the index is read whole.
const CHUNK: i64 = 50_000;
/// At most this many objects are kept; a larger catalog is searched by the database.
const MOST_OBJECTS: usize = 5_000_000;
/// At most this many changed objects are merged in by the call that finds them; more
/// have the index read whole again (in the background).
const MOST_MERGED: usize = 20_000;
/// Answers kept for the calls of one page (count, page, facets of one search).
const ANSWERS: usize = 16;
/// At most this many objects changed since the index was read whole; more have it read
/// whole again (in the background).
const MOST_FRESH: usize = 50_000;

/// The index at one version of the catalog: the base, less its entries changed since,
/// and the fresh entries of the objects changed since.
#[derive(Debug)]
pub(crate) struct Index {
    version: i64,
    base: Arc<Segment>,
    /// The base's entries that changed (replaced in `fresh`, or gone): a bit per
    /// position.
    stale: Arc<Vec<u64>>,
    fresh: Arc<Segment>,
}

impl Index {
    fn is_stale(&self, at: u32) -> bool {
        self.stale
            .get(at as usize / 64)
            .is_some_and(|bits| bits & (1 << (at % 64)) != 0)
    }
}

/// The objects a plan finds on one index: the base's and the fresh part's entries, each
/// in name order.
#[derive(Debug)]
pub(crate) struct Found {
    index: Arc<Index>,
    base: Vec<u32>,
    fresh: Vec<u32>,
}

impl Found {
    pub(crate) fn count(&self) -> u64 {
        (self.base.len() + self.fresh.len()) as u64
    }

    /// A page in name order (`descending`: Name, then ids, descending): the two parts
    /// merged.
    pub(crate) fn page(&self, page: Page, descending: bool) -> Vec<ObjectId> {
        let offset = usize::try_from(page.offset).unwrap_or(usize::MAX);
        let limit = usize::try_from(page.limit).unwrap_or(usize::MAX);
        let (base, fresh) = (&*self.index.base, &*self.index.fresh);
        let mut a = keys_in_order(base, &self.base, descending);
        let mut b = keys_in_order(fresh, &self.fresh, descending);
        let (mut next_a, mut next_b) = (a.next(), b.next());
        let mut ids = Vec::new();
        let mut skipped = 0;
        while ids.len() < limit {
            let take_a = match (next_a, next_b) {
                (Some(x), Some(y)) => (x < y) != descending,
                (Some(_), None) => true,
                (None, Some(_)) => false,
                (None, None) => break,
            };
            let entry = if take_a {
                let e = next_a;
                next_a = a.next();
                e
            } else {
                let e = next_b;
                next_b = b.next();
                e
            };
            if skipped < offset {
                skipped += 1;
            } else if let Some((_, id)) = entry {
                ids.push(id);
            }
        }
        ids
    }

    /// Each facet's values among the objects, most first, then by value; `None` for a
    /// facet the index does not keep ([`eval::counts`]).
    pub(crate) fn value_counts(
        &self,
        facets: &[Facet],
        limit: u64,
    ) -> Vec<Option<Vec<ValueCount>>> {
        eval::value_counts(&self.index, [&self.base, &self.fresh], facets, limit)
    }
}

/// What a store's search index holds ([`SqlStore::search_index_state`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchIndexState {
    /// The objects it holds (0 until it is first read).
    pub objects: u64,
    /// Whether it is being read whole (the database answers searches meanwhile).
    pub reading: bool,
}

/// The keys ([`Segment::key`]) of a segment's entries at `rows` (in name order), in
/// that order or the reverse.
fn keys_in_order<'a>(
    segment: &'a Segment,
    rows: &'a [u32],
    descending: bool,
) -> Box<dyn Iterator<Item = (&'a str, ObjectId)> + 'a> {
    let keys = rows.iter().map(move |&at| segment.key(at));
    if descending {
        Box::new(keys.rev())
    } else {
        Box::new(keys)
    }
}

/// The index of one store (shared by its clones) and the answers of its latest plans.
#[derive(Debug, Default)]
pub(crate) struct Mirror {
    current: RwLock<Option<Arc<Index>>>,
    /// One reader of changes at a time.
    merging: tokio::sync::Mutex<()>,
    /// A whole read runs in the background.
    building: Arc<AtomicBool>,
    /// A write of "everything" committed while a whole read ran: it reads once more.
    again: AtomicBool,
    /// The catalog is larger than [`MOST_OBJECTS`]: not kept.
    too_large: AtomicBool,
    answers: Mutex<Vec<(Cond, i64, Arc<Found>)>>,
}

impl Mirror {
    fn current(&self) -> Option<Arc<Index>> {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Keeps the index, unless the one kept is newer (a merge that began before a whole
    /// read may end after it), and forgets the answers of older ones.
    fn set(&self, index: Arc<Index>) {
        let version = index.version;
        {
            let mut current = self.current.write().unwrap_or_else(|e| e.into_inner());
            if current.as_ref().is_some_and(|kept| kept.version > version) {
                return;
            }
            *current = Some(index);
        }
        let mut answers = self.answers.lock().unwrap_or_else(|e| e.into_inner());
        answers.retain(|(_, v, _)| *v >= version);
    }

    /// The catalog is too large to keep: nothing is kept.
    fn give_up(&self) {
        self.too_large.store(true, Ordering::Relaxed);
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = None;
        self.answers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    fn answer(&self, condition: &Cond, version: i64) -> Option<Arc<Found>> {
        let answers = self.answers.lock().unwrap_or_else(|e| e.into_inner());
        answers
            .iter()
            .find(|(c, v, _)| *v == version && c == condition)
            .map(|(_, _, found)| Arc::clone(found))
    }

    fn keep_answer(&self, condition: Cond, version: i64, found: Arc<Found>) {
        let mut answers = self.answers.lock().unwrap_or_else(|e| e.into_inner());
        answers.retain(|(_, v, _)| *v == version);
        answers.push((condition, version, found));
        while answers.len() > ANSWERS {
            answers.remove(0);
        }
    }
}

/// The catalog's version and the journal's oldest kept version (migration 32).
const VERSIONS: &str =
    "SELECT name, version FROM versions WHERE name IN ('catalog', 'catalog_changes')";

impl<D: Driver> SqlStore<D> {
    /// The objects the plan finds, from the search index; `None` when the index does
    /// not serve the plan (a condition it cannot test, not read yet, being read again).
    pub(crate) async fn mirrored(&self, plan: &Plan) -> Result<Option<Arc<Found>>> {
        if self.reads_snapshot() || !eval::searches(&plan.filter) || !eval::supports(plan) {
            return Ok(None);
        }
        let mirror = &self.mirror;
        if mirror.too_large.load(Ordering::Relaxed) {
            return Ok(None);
        }
        let version = self.catalog_version().await?;
        let condition = plan.condition();
        if let Some(found) = mirror.answer(&condition, version) {
            return Ok(Some(found));
        }
        let Some(index) = self.index_at(version).await? else {
            return Ok(None);
        };
        let found = Arc::new(eval::find(&index, &condition));
        mirror.keep_answer(condition, index.version, Arc::clone(&found));
        Ok(Some(found))
    }

    async fn catalog_version(&self) -> Result<i64> {
        let rows = self
            .short_rows(
                Stmt::query(
                    "SELECT version FROM versions WHERE name = 'catalog'",
                    Vec::new(),
                ),
                "the catalog version",
            )
            .await?;
        match rows.first() {
            Some(row) => row.int(0, "versions"),
            None => Err(lore_core::Error::internal(
                "the catalog version is missing (migration 26)",
            )),
        }
    }

    /// The index at the version (or later), merging the changes since the kept one;
    /// `None` when there is none to answer with now (a whole read started or running).
    async fn index_at(&self, version: i64) -> Result<Option<Arc<Index>>> {
        let mirror = &self.mirror;
        if let Some(index) = mirror.current().filter(|i| i.version >= version) {
            return Ok(Some(index));
        }
        if mirror.building.load(Ordering::Acquire) {
            return Ok(None);
        }
        let Some(_merging) = mirror.merging.try_lock().ok() else {
            // Another call is merging: wait for it, then use what it made.
            let _wait = mirror.merging.lock().await;
            return Ok(mirror.current().filter(|i| i.version >= version));
        };
        if let Some(index) = mirror.current().filter(|i| i.version >= version) {
            return Ok(Some(index));
        }
        if let Some(old) = mirror.current()
            && let Some(index) = self.merged(&old).await?
        {
            let index = Arc::new(index);
            mirror.set(Arc::clone(&index));
            return Ok(Some(index));
        }
        self.build_in_background();
        Ok(None)
    }

    /// After a write the journal lists as "everything" (a large import, a model cleared,
    /// a restore): the index, when kept, is read whole again now, in the background,
    /// rather than by the first search after it.
    pub(crate) fn everything_changed(&self) {
        if self.mirror.current().is_some() && !self.mirror.too_large.load(Ordering::Relaxed) {
            // A read running now may have begun before this write: it reads once more.
            self.mirror.again.store(true, Ordering::Release);
            self.build_in_background();
        }
    }

    /// Starts reading the whole index in the background, unless a read runs already.
    pub(crate) fn build_in_background(&self) {
        let building = Arc::clone(&self.mirror.building);
        if building.swap(true, Ordering::AcqRel) {
            return;
        }
        let store = self.clone();
        tokio::spawn(async move {
            loop {
                store.mirror.again.store(false, Ordering::Release);
                if let Err(e) = store.build_index().await {
                    tracing::warn!("reading the search index failed: {}", e.message);
                }
                building.store(false, Ordering::Release);
                // A write of "everything" that committed during the read found it
                // running: read again, unless another read has begun since.
                if !store.mirror.again.load(Ordering::Acquire)
                    || building.swap(true, Ordering::AcqRel)
                {
                    break;
                }
            }
        });
    }

    async fn open_snapshot(&self) -> Result<D::Snapshot> {
        self.driver()
            .snapshot()
            .await
            .map_err(|e| crate::store::read_error(e, "opening a snapshot"))
    }

    /// What the search index holds now, for the server's metrics.
    pub fn search_index_state(&self) -> SearchIndexState {
        let objects = self.mirror.current().map_or(0, |index| {
            let stale: u32 = index.stale.iter().map(|bits| bits.count_ones()).sum();
            (index.base.entries.len() + index.fresh.entries.len()) as u64 - u64::from(stale)
        });
        SearchIndexState {
            objects,
            reading: self.mirror.building.load(Ordering::Acquire),
        }
    }

    /// The catalog version the search index holds, if it has been read (for tests: an
    /// index that follows writes moves with the catalog, one read whole does too).
    pub fn search_index_version(&self) -> Option<i64> {
        self.mirror.current().map(|index| index.version)
    }

    /// Reads the whole index now (one snapshot) and keeps it. Tests and the server's
    /// start use it; searches start it in the background.
    pub async fn build_index(&self) -> Result<()> {
        let started = std::time::Instant::now();
        let snapshot = self.open_snapshot().await?;
        let read = |stmts| read_in(&snapshot, stmts, "reading the search index");
        let mut outcomes = read(vec![Stmt::query(VERSIONS, Vec::new())]).await?;
        let (version, _) = versions(outcomes.pop().map(|o| o.rows).unwrap_or_default())?;
        let mut draft = Draft::default();
        let mut after = (i64::MIN, i64::MIN);
        loop {
            let chunk = read(vec![Stmt::query(
                format!(
                    "{OBJECTS} FROM objects x WHERE (x.model_id, x.object_id) > ($1, $2) \
                     ORDER BY x.model_id, x.object_id LIMIT {CHUNK}"
                ),
                vec![after.0.into(), after.1.into()],
            )])
            .await?
            .pop()
            .map(|o| o.rows)
            .unwrap_or_default();
            let done = (chunk.len() as i64) < CHUNK;
            if let Some(last) = chunk.last() {
                after = (last.int(0, "objects")?, last.int(1, "objects")?);
            }
            if draft.read(chunk)?.is_none() || draft.len() > MOST_OBJECTS {
                self.mirror.give_up();
                return Ok(());
            }
            if done {
                break;
            }
        }
        draft.attach(read(hanging_statements(None)).await?)?;
        let Some(base) = draft.segment() else {
            self.mirror.give_up();
            return Ok(());
        };
        tracing::info!(
            objects = base.entries.len(),
            version,
            seconds = started.elapsed().as_secs_f64(),
            "search index read"
        );
        self.mirror.set(Arc::new(Index {
            version,
            stale: Arc::new(vec![0; base.entries.len().div_ceil(64)]),
            base: Arc::new(base),
            fresh: Arc::new(Segment::empty()),
        }));
        Ok(())
    }

    /// The index with the changes since `old`'s version merged in; `None` when the
    /// journal does not list them object by object, or they are too many.
    async fn merged(&self, old: &Index) -> Result<Option<Index>> {
        let snapshot = self.open_snapshot().await?;
        let read = |stmts| read_in(&snapshot, stmts, "reading changes");
        let since = old.version;
        let mut outcomes = read(vec![
            Stmt::query(VERSIONS, Vec::new()),
            Stmt::query(
                format!(
                    "SELECT model_id, object_id FROM catalog_changes WHERE version > $1 LIMIT {}",
                    MOST_MERGED + 1
                ),
                vec![since.into()],
            ),
        ])
        .await?
        .into_iter();
        let (version, kept_from) = versions(outcomes.next().map(|o| o.rows).unwrap_or_default())?;
        let listed = outcomes.next().map(|o| o.rows).unwrap_or_default();
        if since < kept_from || listed.len() > MOST_MERGED {
            return Ok(None);
        }
        let mut changed = HashSet::with_capacity(listed.len());
        for row in &listed {
            match (
                row.opt_int(0, "catalog_changes")?,
                row.opt_int(1, "catalog_changes")?,
            ) {
                (Some(model), Some(object)) => {
                    changed.insert(ObjectId::new(model, object));
                }
                // Everything changed.
                _ => return Ok(None),
            }
        }
        if changed.is_empty() {
            // Only what the index does not keep changed.
            return Ok(Some(Index {
                version,
                base: Arc::clone(&old.base),
                stale: Arc::clone(&old.stale),
                fresh: Arc::clone(&old.fresh),
            }));
        }
        let (from, joined, params) = rows_of("objects", Some(since));
        let mut statements = vec![Stmt::query(
            format!("{OBJECTS} FROM {from} WHERE {joined}"),
            params,
        )];
        statements.extend(hanging_statements(Some(since)));
        let mut outcomes = read(statements).await?.into_iter();
        let rows = outcomes.next().map(|o| o.rows).unwrap_or_default();
        // The fresh part: its entries that did not change again, and the objects read
        // now (those that still exist).
        let mut fresh = Draft::with_texts(old.fresh.texts.clone());
        if fresh.read(rows)?.is_none() {
            return Ok(None);
        }
        // Attached before the old part's entries join: those have theirs already.
        fresh.attach(outcomes.collect())?;
        for at in 0..old.fresh.len() as u32 {
            // Its texts keep their numbers: the draft's began as the old part's.
            if !changed.contains(&old.fresh.entries[at as usize].id)
                && fresh.keep(&old.fresh, at).is_none()
            {
                return Ok(None);
            }
        }
        if fresh.len() > MOST_FRESH {
            return Ok(None);
        }
        let mut stale = (*old.stale).clone();
        for at in changed.iter().filter_map(|&id| old.base.position(id)) {
            stale[at as usize / 64] |= 1 << (at % 64);
        }
        let Some(fresh) = fresh.segment() else {
            return Ok(None);
        };
        Ok(Some(Index {
            version,
            base: Arc::clone(&old.base),
            stale: Arc::new(stale),
            fresh: Arc::new(fresh),
        }))
    }
}

/// Runs reads on a snapshot.
async fn read_in<S: DriverSnapshot>(
    snapshot: &S,
    stmts: Vec<Stmt>,
    what: &str,
) -> Result<Vec<crate::driver::Outcome>> {
    snapshot
        .read(stmts)
        .await
        .map_err(|e| crate::store::read_error(e, what))
}

/// The columns of an object the index keeps, from `objects`.
const OBJECTS: &str = "SELECT x.model_id, x.object_id, x.kind, x.name, x.physical_name, \
     x.type_name, x.data_type, CASE WHEN x.description IS NOT NULL THEN 1 ELSE 0 END";

/// The objects changed since a version (`$1`), in the journal: the rows of the changed
/// objects are found from them by key (`x`, joined in that order).
const CHANGED: &str = "(SELECT DISTINCT model_id, object_id FROM catalog_changes WHERE version > $1) c \
     CROSS JOIN";

/// `FROM` the table as `x`: all of its rows, or (`since`) those of the objects changed
/// since the version, with the condition that joins them.
fn rows_of(table: &str, since: Option<i64>) -> (String, &'static str, Vec<SqlValue>) {
    match since {
        Some(version) => (
            format!("{CHANGED} {table} x"),
            "x.model_id = c.model_id AND x.object_id = c.object_id",
            vec![version.into()],
        ),
        None => (format!("{table} x"), "1 = 1", Vec::new()),
    }
}

/// The statements that read what hangs on objects (labels, data classes, sensitivity
/// labels, curation): of every object, or of those changed since a version.
fn hanging_statements(since: Option<i64>) -> Vec<Stmt> {
    let label = TagKind::Label.as_str();
    let statement = |table: &str, select: &str, join: &str, condition: &str| {
        let (from, joined, params) = rows_of(table, since);
        Stmt::query(
            format!("SELECT {select} FROM {from} {join} WHERE {joined}{condition}"),
            params,
        )
    };
    vec![
        statement(
            "tags",
            "x.model_id, x.object_id, x.value",
            "",
            &format!(" AND x.kind = '{label}'"),
        ),
        statement(
            "classifications",
            "x.model_id, x.object_id, x.data_class, x.status",
            "JOIN data_classes d ON d.name = x.data_class",
            "",
        ),
        statement(
            "label_assignments",
            "x.model_id, x.object_id, x.label, x.status, s.position",
            "JOIN sensitivity_labels s ON s.name = x.label",
            "",
        ),
        statement(
            "curation",
            "DISTINCT x.model_id, x.object_id, x.kind",
            "JOIN users u ON u.model_id = x.user_model AND u.object_id = x.user_object",
            "",
        ),
    ]
}

/// The catalog's version and the journal's oldest kept one, from [`VERSIONS`].
fn versions(rows: Vec<Row>) -> Result<(i64, i64)> {
    let (mut catalog, mut kept) = (None, None);
    for mut row in rows {
        let name = row.text(0, "versions")?;
        let version = row.int(1, "versions")?;
        match name.as_str() {
            "catalog" => catalog = Some(version),
            _ => kept = Some(version),
        }
    }
    match (catalog, kept) {
        (Some(catalog), Some(kept)) => Ok((catalog, kept)),
        _ => Err(lore_core::Error::internal(
            "the catalog version or the journal of changes is missing (migrations 26, 32)",
        )),
    }
}
