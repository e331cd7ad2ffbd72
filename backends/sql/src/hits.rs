//! The objects a text search found, kept for the calls that follow it.
//!
//! A search page asks three things of one search: a page of its objects, their count,
//! and the values of a few facets among them. Each finds the search's objects again: a
//! term a twenty-fourth of a 1,000,000-object catalog holds is 40,000 rows to read three
//! times. The first call that reads them all (a count, the facets, or a page whose first
//! try in name order came up short) keeps them here — ids, Name, type, data type and
//! model, in name order — and the others are answered from memory. Their labels too:
//! SQLite reads them in the same statement; PostgreSQL, where a probe of the tags' key
//! per object (30–35 ms for 40,000) would double what a lone page pays, reads them by
//! the kept ids when a Labels facet first asks ([`Dialect::labels_with_hits`]).
//!
//! [`Dialect::labels_with_hits`]: crate::Dialect::labels_with_hits
//!
//! What is kept is the answer of the database at one state of the catalog, and it
//! answers only while the catalog is in that state: each entry holds the catalog's
//! version (migration 26), read in the same snapshot as its objects, and is used only
//! while the version read before each use equals it. The version moves in every write
//! transaction of the catalog (the writer's last statement), and not with what the
//! server writes for itself (the system log, sessions, the outbox). So a write, here or
//! in another process over the same database, is seen by the next call exactly as
//! without the cache.
//!
//! Only plans the narrow `object_search` table answers are kept (a required text search,
//! a caller who sees everything, conditions on the narrow columns only): the entry's key
//! is the plan's filter. A search that finds more than [`MOST_HITS`] objects is kept as
//! "too many" (its statements answer it, as before), so it is read at most once per
//! state.

use std::cmp::Reverse;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use lore_core::model::{ObjectKind, TagKind};
use lore_core::mql::plan::{Column, Cond, Facet, Field, Lit, Page, Plan, ValueCount};
use lore_core::{ObjectId, Result};

use crate::compile;
use crate::driver::{Driver, Stmt};
use crate::store::SqlStore;
use crate::value::{Row, SqlValue};

/// At most this many objects in one entry: a fill reads one more at most.
pub(crate) const MOST_HITS: usize = 100_000;
/// At most this many objects in all entries together (about 100 bytes each, with the
/// name): 20 MB.
const ALL_HITS: usize = 200_000;
/// At most this many entries.
const ENTRIES: usize = 16;

/// The kept searches, most recently used last.
#[derive(Debug, Default)]
pub(crate) struct HitCache(Mutex<Vec<Entry>>);

#[derive(Debug)]
struct Entry {
    filter: Cond,
    version: i64,
    /// `None`: more than [`MOST_HITS`] objects.
    hits: Option<Arc<Hits>>,
}

impl Entry {
    fn size(&self) -> usize {
        self.hits.as_ref().map_or(0, |h| h.objects.len())
    }
}

impl HitCache {
    /// What is kept of the filter's search at this version: `Some(None)` when it found
    /// too many objects to keep.
    fn get(&self, filter: &Cond, version: i64) -> Option<Option<Arc<Hits>>> {
        let mut entries = self.0.lock().unwrap_or_else(|e| e.into_inner());
        let at = entries
            .iter()
            .position(|e| e.version == version && e.filter == *filter)?;
        let entry = entries.remove(at);
        let hits = entry.hits.clone();
        entries.push(entry);
        Some(hits)
    }

    fn put(&self, filter: Cond, version: i64, hits: Option<Arc<Hits>>) {
        let mut entries = self.0.lock().unwrap_or_else(|e| e.into_inner());
        // An entry of another version never answers again (versions only move on).
        entries.retain(|e| e.version == version && e.filter != filter);
        entries.push(Entry {
            filter,
            version,
            hits,
        });
        while entries.len() > ENTRIES
            || (entries.len() > 1 && entries.iter().map(Entry::size).sum::<usize>() > ALL_HITS)
        {
            entries.remove(0);
        }
    }
}

/// The objects of one search, in name order (Name, then ids: the order of a page).
#[derive(Debug)]
pub(crate) struct Hits {
    objects: Vec<Hit>,
    /// The catalog's version they were read at.
    version: i64,
    /// Each object's labels (distinct), by position, once a Labels facet asked for them
    /// ([`SqlStore::keep_labels`]).
    labels: OnceLock<Vec<Vec<Arc<str>>>>,
}

#[derive(Debug)]
struct Hit {
    id: ObjectId,
    name: Box<str>,
    type_name: Option<Arc<str>>,
    data_type: Option<Arc<str>>,
    /// The model number (`"Model Id"`): a model's own, a model object's model's, none
    /// for the repository's objects.
    model: Option<i64>,
}

impl Hits {
    /// The rows of [`compile::hits::objects`]; `None` when they hold more than [`MOST_HITS`]
    /// objects.
    /// (`with_labels`: the rows hold the objects' labels too, [`compile::hits::objects`].)
    fn from_rows(rows: Vec<Row>, version: i64, with_labels: bool) -> Result<Option<Self>> {
        const WHAT: &str = "a search's objects";
        // Types and data types repeat: one allocation per distinct value.
        let mut texts: HashMap<String, Arc<str>> = HashMap::new();
        let mut intern = |text: Option<String>| {
            text.map(|t| Arc::clone(texts.entry(t).or_insert_with_key(|t| Arc::from(t.as_str()))))
        };
        let mut objects = Vec::with_capacity(rows.len());
        let mut labels = Vec::new();
        for mut row in rows {
            let id = ObjectId::new(row.int(0, WHAT)?, row.int(1, WHAT)?);
            let Some(name) = row.opt_text(2, WHAT)? else {
                // A label row: (model_id, object_id, NULL, ..., label).
                let label = row.opt_text(6, WHAT)?;
                labels.push(Row(vec![
                    SqlValue::Int(Some(id.model)),
                    SqlValue::Int(Some(id.object)),
                    SqlValue::Text(label),
                ]));
                continue;
            };
            let kind = row.opt_text(5, WHAT)?;
            let model = if kind.as_deref() == Some(ObjectKind::Model.as_str()) {
                Some(id.object)
            } else {
                Some(id.model).filter(|m| *m != -1)
            };
            objects.push(Hit {
                id,
                name: name.into_boxed_str(),
                type_name: intern(row.opt_text(3, WHAT)?),
                data_type: intern(row.opt_text(4, WHAT)?),
                model,
            });
        }
        if objects.len() > MOST_HITS {
            return Ok(None);
        }
        objects.sort_unstable_by(|a, b| (&a.name, a.id).cmp(&(&b.name, b.id)));
        let hits = Self {
            objects,
            version,
            labels: OnceLock::new(),
        };
        if with_labels {
            hits.set_labels(labels)?;
        }
        Ok(Some(hits))
    }

    pub(crate) fn count(&self) -> u64 {
        self.objects.len() as u64
    }

    /// A page in name order (`descending`: Name, then ids, descending).
    pub(crate) fn page(&self, page: Page, descending: bool) -> Vec<ObjectId> {
        let offset = usize::try_from(page.offset).unwrap_or(usize::MAX);
        let limit = usize::try_from(page.limit).unwrap_or(usize::MAX);
        let ids = |h: &Hit| h.id;
        if descending {
            let rows = self.objects.iter().rev().skip(offset).take(limit);
            rows.map(ids).collect()
        } else {
            let rows = self.objects.iter().skip(offset).take(limit);
            rows.map(ids).collect()
        }
    }

    /// Whether kept objects can hold the facet's values (Labels once they are read).
    pub(crate) fn counts(facet: &Facet) -> bool {
        facet.relation.is_none()
            && facet.gap.is_none()
            && facet.hidden == Cond::False
            && matches!(
                facet.field,
                Field::Column(
                    Column::Name | Column::TypeName | Column::DataType | Column::ModelNumber
                ) | Field::Tags(TagKind::Label)
            )
    }

    /// Whether the facet is the objects' labels.
    pub(crate) fn is_labels(facet: &Facet) -> bool {
        Self::counts(facet) && facet.field == Field::Tags(TagKind::Label)
    }

    /// Whether these kept objects hold the facet's values now.
    pub(crate) fn holds(&self, facet: &Facet) -> bool {
        Self::counts(facet) && (!Self::is_labels(facet) || self.labels.get().is_some())
    }

    /// The ids of the objects.
    fn ids(&self) -> Vec<ObjectId> {
        self.objects.iter().map(|h| h.id).collect()
    }

    /// Takes the rows (model_id, object_id, label) of the objects' labels.
    fn set_labels(&self, rows: Vec<Row>) -> Result<()> {
        const WHAT: &str = "a search's labels";
        let at: HashMap<ObjectId, usize> = self
            .objects
            .iter()
            .enumerate()
            .map(|(i, h)| (h.id, i))
            .collect();
        let mut texts: HashMap<String, Arc<str>> = HashMap::new();
        let mut labels: Vec<Vec<Arc<str>>> = vec![Vec::new(); self.objects.len()];
        for mut row in rows {
            let id = ObjectId::new(row.int(0, WHAT)?, row.int(1, WHAT)?);
            let (Some(&i), Some(label)) = (at.get(&id), row.opt_text(2, WHAT)?) else {
                continue;
            };
            let label = Arc::clone(
                texts
                    .entry(label)
                    .or_insert_with_key(|t| Arc::from(t.as_str())),
            );
            if !labels[i].contains(&label) {
                labels[i].push(label);
            }
        }
        // Another call may have read them meanwhile: the same labels.
        let _ = self.labels.set(labels);
        Ok(())
    }

    /// The facet's values among the objects and how many objects hold each, most
    /// first, then by value (byte-wise): as [`compile::value_counts`] answers. `None`
    /// for a facet the kept objects do not hold ([`Hits::counts`]).
    pub(crate) fn value_counts(&self, facet: &Facet, limit: u64) -> Option<Vec<ValueCount>> {
        if !self.holds(facet) {
            return None;
        }
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        if facet.field == Field::Column(Column::ModelNumber) {
            let mut counts: HashMap<i64, u64> = HashMap::new();
            for model in self.objects.iter().filter_map(|h| h.model) {
                *counts.entry(model).or_default() += 1;
            }
            let mut counts: Vec<(i64, u64)> = counts.into_iter().collect();
            counts.sort_unstable_by_key(|&(value, n)| (Reverse(n), value));
            return Some(
                counts
                    .into_iter()
                    .take(limit)
                    .map(|(value, count)| ValueCount {
                        value: Lit::Integer(value),
                        count,
                    })
                    .collect(),
            );
        }
        let mut counts: HashMap<&str, u64> = HashMap::new();
        if Self::is_labels(facet) {
            for labels in self.labels.get().into_iter().flatten() {
                for label in labels {
                    *counts.entry(label).or_default() += 1;
                }
            }
        }
        for hit in self.objects.iter().filter(|_| !Self::is_labels(facet)) {
            let values: &[Arc<str>] = match facet.field {
                Field::Column(Column::Name) => {
                    *counts.entry(&hit.name).or_default() += 1;
                    continue;
                }
                Field::Column(Column::TypeName) => hit.type_name.as_slice(),
                _ => hit.data_type.as_slice(),
            };
            for value in values {
                *counts.entry(value).or_default() += 1;
            }
        }
        let mut counts: Vec<(&str, u64)> = counts.into_iter().collect();
        counts.sort_unstable_by_key(|&(value, n)| (Reverse(n), value));
        Some(
            counts
                .into_iter()
                .take(limit)
                .map(|(value, count)| ValueCount {
                    value: Lit::Text(value.to_owned()),
                    count,
                })
                .collect(),
        )
    }
}

/// What the cache says of a plan's search.
pub(crate) enum Kept {
    /// Its objects.
    Hits(Arc<Hits>),
    /// Not kept at the catalog's version (read it with [`SqlStore::keep_hits`]).
    Missing,
    /// Not a plan the cache serves, or too many objects to keep: ask the statements.
    No,
}

/// The catalog's version (migration 26): it moves with every write transaction of the
/// catalog, in that transaction.
const CATALOG_VERSION: &str = "SELECT version FROM versions WHERE name = 'catalog'";

impl<D: Driver> SqlStore<D> {
    /// The kept objects of the plan's search, if the cache serves the plan.
    pub(crate) async fn kept_hits(&self, plan: &Plan) -> Result<Kept> {
        if self.reads_snapshot() || !compile::hits::keeps(plan, D::DIALECT) {
            return Ok(Kept::No);
        }
        let rows = self
            .short_rows(
                Stmt::query(CATALOG_VERSION, Vec::new()),
                "the catalog version",
            )
            .await?;
        let version = version_of(rows)?;
        Ok(match self.hit_cache.get(&plan.filter, version) {
            Some(Some(hits)) => Kept::Hits(hits),
            Some(None) => Kept::No,
            None => Kept::Missing,
        })
    }

    /// Reads every object of the plan's search (a plan [`Self::kept_hits`] found
    /// missing), with the catalog's version in the same snapshot, and keeps them;
    /// `None` when they are too many.
    pub(crate) async fn keep_hits(&self, plan: &Plan) -> Result<Option<Arc<Hits>>> {
        let keys = self.search_keys(plan).await?;
        let most = MOST_HITS as u64 + 1;
        let Some(compiled) = compile::hits::objects(plan, D::DIALECT, &keys, most) else {
            return Ok(None);
        };
        let reads = vec![
            Stmt::query(CATALOG_VERSION, Vec::new()),
            Stmt::query(compiled.sql, compiled.params),
        ];
        let mut outcomes = self.read(reads, "a search's objects").await?.into_iter();
        let version = version_of(outcomes.next().map(|o| o.rows).unwrap_or_default())?;
        let rows = outcomes.next().map(|o| o.rows).unwrap_or_default();
        let with_labels = D::DIALECT.labels_with_hits();
        let hits = Hits::from_rows(rows, version, with_labels)?.map(Arc::new);
        self.hit_cache
            .put(plan.filter.clone(), version, hits.clone());
        Ok(hits)
    }

    /// Reads the labels of kept objects, if the catalog is still at their version
    /// (else they stay unread, and a Labels facet is counted by its statement): one
    /// probe of the tags' key per object, their ids a parameter.
    pub(crate) async fn keep_labels(&self, hits: &Hits) -> Result<()> {
        if hits.labels.get().is_some() {
            return Ok(());
        }
        let reads = vec![
            Stmt::query(CATALOG_VERSION, Vec::new()),
            Stmt::query(
                compile::hits::labels_of(D::DIALECT),
                compile::hits::labels_of_params(D::DIALECT, &hits.ids()),
            ),
        ];
        let mut outcomes = self.read(reads, "a search's labels").await?.into_iter();
        let version = version_of(outcomes.next().map(|o| o.rows).unwrap_or_default())?;
        if version == hits.version {
            hits.set_labels(outcomes.next().map(|o| o.rows).unwrap_or_default())?;
        }
        Ok(())
    }

    /// The plan's search's objects, kept or read now; `None` when the cache does not
    /// serve the plan.
    pub(crate) async fn hits(&self, plan: &Plan) -> Result<Option<Arc<Hits>>> {
        match self.kept_hits(plan).await? {
            Kept::Hits(hits) => Ok(Some(hits)),
            Kept::Missing => self.keep_hits(plan).await,
            Kept::No => Ok(None),
        }
    }
}

/// The version in the rows of [`CATALOG_VERSION`].
fn version_of(rows: Vec<Row>) -> Result<i64> {
    match rows.first() {
        Some(row) => row.int(0, "versions"),
        None => Err(lore_core::Error::internal(
            "the catalog version is missing (migration 26)",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit_row(model: i64, object: i64, name: &str, ty: &str, data_type: Option<&str>) -> Row {
        let kind = if ty == "Database" {
            "Model"
        } else {
            "Model Object"
        };
        Row(vec![
            SqlValue::Int(Some(model)),
            SqlValue::Int(Some(object)),
            SqlValue::Text(Some(name.to_owned())),
            SqlValue::Text(Some(ty.to_owned())),
            SqlValue::Text(data_type.map(str::to_owned)),
            SqlValue::Text(Some(kind.to_owned())),
        ])
    }

    fn facet(field: Field) -> Facet {
        Facet {
            relation: None,
            field,
            gap: None,
            hidden: Cond::False,
        }
    }

    fn sample() -> Hits {
        let rows = vec![
            hit_row(5, 3, "b", "Column", Some("INTEGER")),
            hit_row(5, 1, "b", "Column", None),
            hit_row(4, 9, "a", "Table", None),
            hit_row(5, 2, "B", "Column", Some("VARCHAR")),
            hit_row(-1, 4, "c", "Database", None),
            hit_row(-1, 8, "d", "Folder", None),
        ];
        let hits = Hits::from_rows(rows, 1, false).unwrap().unwrap();
        let label = |model, object, label: &str| {
            Row(vec![
                SqlValue::Int(Some(model)),
                SqlValue::Int(Some(object)),
                SqlValue::Text(Some(label.to_owned())),
            ])
        };
        assert!(!hits.holds(&facet(Field::Tags(TagKind::Label))));
        hits.set_labels(vec![
            label(5, 3, "PII"),
            label(5, 1, "PII"),
            label(5, 1, "Gold"),
            label(5, 1, "PII"),
            label(7, 7, "not a hit"),
        ])
        .unwrap();
        hits
    }

    #[test]
    fn pages_come_in_name_then_id_order_either_way() {
        let hits = sample();
        let page = |offset, limit, descending| {
            hits.page(Page { offset, limit }, descending)
                .into_iter()
                .map(|id| (id.model, id.object))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            page(0, 10, false),
            [(5, 2), (4, 9), (5, 1), (5, 3), (-1, 4), (-1, 8)]
        );
        assert_eq!(page(1, 2, false), [(4, 9), (5, 1)]);
        assert_eq!(page(0, 3, true), [(-1, 8), (-1, 4), (5, 3)]);
        assert_eq!(page(9, 2, false), []);
        assert_eq!(hits.count(), 6);
    }

    #[test]
    fn facets_count_most_first_then_by_value_and_skip_missing_values() {
        let hits = sample();
        let counted = |field, limit| {
            hits.value_counts(&facet(field), limit)
                .unwrap()
                .into_iter()
                .map(|c| match c.value {
                    Lit::Text(t) => (t, c.count),
                    other => panic!("{other:?}"),
                })
                .collect::<Vec<_>>()
        };
        let pairs = |p: &[(&str, u64)]| {
            p.iter()
                .map(|(v, n)| ((*v).to_owned(), *n))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            counted(Field::Column(Column::TypeName), 100),
            pairs(&[("Column", 3), ("Database", 1), ("Folder", 1), ("Table", 1)])
        );
        assert_eq!(
            counted(Field::Column(Column::DataType), 100),
            pairs(&[("INTEGER", 1), ("VARCHAR", 1)])
        );
        assert_eq!(counted(Field::Column(Column::Name), 1), pairs(&[("b", 2)]));
        let models = hits
            .value_counts(&facet(Field::Column(Column::ModelNumber)), 10)
            .unwrap();
        assert_eq!(
            models,
            [
                ValueCount {
                    value: Lit::Integer(5),
                    count: 3
                },
                ValueCount {
                    value: Lit::Integer(4),
                    count: 2
                },
            ],
            "a model's number is its own; the repository's other objects have none"
        );
        assert_eq!(
            counted(Field::Tags(TagKind::Label), 100),
            pairs(&[("PII", 2), ("Gold", 1)]),
            "a label counts once per object; labels of other objects not at all"
        );
        assert!(
            hits.value_counts(&facet(Field::Column(Column::Description)), 10)
                .is_none()
        );
    }

    #[test]
    fn labels_read_with_the_objects_are_kept_with_them() {
        let label = |model, object, label: &str| {
            Row(vec![
                SqlValue::Int(Some(model)),
                SqlValue::Int(Some(object)),
                SqlValue::Text(None),
                SqlValue::Text(None),
                SqlValue::Text(None),
                SqlValue::Text(None),
                SqlValue::Text(Some(label.to_owned())),
            ])
        };
        let with_seventh = |mut row: Row| {
            row.0.push(SqlValue::Text(None));
            row
        };
        let rows = vec![
            label(5, 1, "PII"),
            with_seventh(hit_row(5, 1, "b", "Column", None)),
            with_seventh(hit_row(5, 2, "a", "Column", None)),
            label(5, 1, "Gold"),
        ];
        let hits = Hits::from_rows(rows, 1, true).unwrap().unwrap();
        let labels = facet(Field::Tags(TagKind::Label));
        assert!(hits.holds(&labels));
        let counts = hits.value_counts(&labels, 10).unwrap();
        assert_eq!(counts.len(), 2);
        assert!(counts.iter().all(|c| c.count == 1));
        assert_eq!(hits.count(), 2, "label rows are not objects");
        let none = Hits::from_rows(
            vec![with_seventh(hit_row(5, 2, "a", "Column", None))],
            1,
            true,
        )
        .unwrap()
        .unwrap();
        assert!(none.holds(&labels), "no label row: no labels, known");
    }

    #[test]
    fn too_many_objects_are_not_kept() {
        let rows = (0..=MOST_HITS as i64)
            .map(|i| hit_row(1, i, "x", "Column", None))
            .collect();
        assert!(Hits::from_rows(rows, 1, false).unwrap().is_none());
    }

    #[test]
    fn the_cache_answers_only_at_its_version_and_keeps_its_bounds() {
        let cache = HitCache::default();
        let filter = |text: &str| Cond::Search {
            columns: vec![Column::Name],
            text: text.to_owned(),
        };
        let hits = Arc::new(sample());
        cache.put(filter("a"), 1, Some(Arc::clone(&hits)));
        cache.put(filter("b"), 1, None);
        assert!(matches!(cache.get(&filter("a"), 1), Some(Some(_))));
        assert!(matches!(cache.get(&filter("b"), 1), Some(None)));
        assert!(cache.get(&filter("a"), 2).is_none(), "another version");
        cache.put(filter("c"), 2, None);
        assert!(
            cache.get(&filter("a"), 1).is_none(),
            "a new version drops the old entries"
        );
        for i in 0..ENTRIES + 5 {
            cache.put(filter(&format!("t{i}")), 2, Some(Arc::clone(&hits)));
        }
        assert!(
            cache.get(&filter("t0"), 2).is_none(),
            "the oldest goes first"
        );
        assert!(
            cache
                .get(&filter(&format!("t{}", ENTRIES + 4)), 2)
                .is_some()
        );
    }
}
