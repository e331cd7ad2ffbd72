//! The objects a text search found, kept for the calls that follow it.
//!
//! A search page asks three things of one search: a page of its objects, their count,
//! and the values of a few facets among them. Each finds the search's objects again: a
//! term a twenty-fourth of a 1,000,000-object catalog holds is 40,000 rows to read three
//! times. The first call that reads them all (a count, the facets, or a page whose first
//! try in name order came up short) keeps them here — ids, Name, type, data type and
//! model, in name order — and the others are answered from memory. Their labels too,
//! read in the same statement: on PostgreSQL from the narrow row (migration 27), where a
//! probe of the tags' key per object cost 30–35 ms for 40,000; on SQLite through that
//! key, which costs little in the process.
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

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use lore_core::model::{ObjectKind, TagKind};
use lore_core::mql::plan::{Column, Cond, Facet, Field, Lit, Page, Plan, ValueCount};
use lore_core::{ObjectId, Result};

use crate::compile;
use crate::driver::{Driver, Stmt};
use crate::mirror::most_first;
use crate::store::SqlStore;
use crate::value::Row;

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
    /// Its labels, distinct.
    labels: Box<[Arc<str>]>,
}

impl Hits {
    /// The rows of [`compile::hits::objects`]; `None` when they hold more than [`MOST_HITS`]
    /// objects.
    fn from_rows(rows: Vec<Row>) -> Result<Option<Self>> {
        const WHAT: &str = "a search's objects";
        // Types, data types and labels repeat: one allocation per distinct value.
        let mut texts: HashMap<String, Arc<str>> = HashMap::new();
        let mut intern = |text: String| {
            Arc::clone(
                texts
                    .entry(text)
                    .or_insert_with_key(|t| Arc::from(t.as_str())),
            )
        };
        let mut objects = Vec::with_capacity(rows.len());
        // Labels in rows of their own (SQLite), by object.
        let mut label_rows: HashMap<ObjectId, Vec<Arc<str>>> = HashMap::new();
        for mut row in rows {
            let id = ObjectId::new(row.int(0, WHAT)?, row.int(1, WHAT)?);
            let Some(name) = row.opt_text(2, WHAT)? else {
                // A label row (SQLite): (model_id, object_id, NULL, ..., label).
                if let Some(label) = row.opt_text(6, WHAT)? {
                    label_rows.entry(id).or_default().push(intern(label));
                }
                continue;
            };
            // The narrow row's labels (PostgreSQL): a JSON array.
            let labels = match row.opt_text(6, WHAT)? {
                Some(list) => {
                    let list: Vec<String> = serde_json::from_str(&list).map_err(|e| {
                        lore_core::Error::internal(format!(
                            "the narrow row of {id} holds labels that are not a JSON array of text: {e}"
                        ))
                    })?;
                    distinct(list.into_iter().map(&mut intern).collect())
                }
                None => Box::default(),
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
                type_name: row.opt_text(3, WHAT)?.map(&mut intern),
                data_type: row.opt_text(4, WHAT)?.map(&mut intern),
                model,
                labels,
            });
        }
        if objects.len() > MOST_HITS {
            return Ok(None);
        }
        if !label_rows.is_empty() {
            for hit in &mut objects {
                if let Some(labels) = label_rows.remove(&hit.id) {
                    hit.labels = distinct(labels);
                }
            }
        }
        objects.sort_unstable_by(|a, b| (&a.name, a.id).cmp(&(&b.name, b.id)));
        Ok(Some(Self { objects }))
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

    /// Whether kept objects hold the facet's values.
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
    fn is_labels(facet: &Facet) -> bool {
        Self::counts(facet) && facet.field == Field::Tags(TagKind::Label)
    }

    /// The facet's values among the objects and how many objects hold each, most
    /// first, then by value (byte-wise): as [`compile::value_counts`] answers. `None`
    /// for a facet the kept objects do not hold ([`Hits::counts`]).
    pub(crate) fn value_counts(&self, facet: &Facet, limit: u64) -> Option<Vec<ValueCount>> {
        if !Self::counts(facet) {
            return None;
        }
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        if facet.field == Field::Column(Column::ModelNumber) {
            let mut counts: HashMap<i64, u64> = HashMap::new();
            for model in self.objects.iter().filter_map(|h| h.model) {
                *counts.entry(model).or_default() += 1;
            }
            return Some(most_first(counts, limit, Lit::Integer));
        }
        let mut counts: HashMap<&str, u64> = HashMap::new();
        if Self::is_labels(facet) {
            for hit in &self.objects {
                for label in &hit.labels {
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
        Some(most_first(counts, limit, |value| {
            Lit::Text(value.to_owned())
        }))
    }
}

/// The labels without repeats (the same label twice counts once).
fn distinct(mut labels: Vec<Arc<str>>) -> Box<[Arc<str>]> {
    labels.sort_unstable();
    labels.dedup();
    labels.into_boxed_slice()
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
        let hits = Hits::from_rows(rows)?.map(Arc::new);
        self.hit_cache
            .put(plan.filter.clone(), version, hits.clone());
        Ok(hits)
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
    use crate::value::SqlValue;

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
            SqlValue::Text(None),
        ])
    }

    /// A row of one label of an object, as SQLite reads them beside the objects.
    fn label_row(model: i64, object: i64, label: &str) -> Row {
        Row(vec![
            SqlValue::Int(Some(model)),
            SqlValue::Int(Some(object)),
            SqlValue::Text(None),
            SqlValue::Text(None),
            SqlValue::Text(None),
            SqlValue::Text(None),
            SqlValue::Text(Some(label.to_owned())),
        ])
    }

    /// An object's row with the labels of its narrow row, as PostgreSQL reads them.
    fn with_labels(mut row: Row, labels: &str) -> Row {
        row.0[6] = SqlValue::Text(Some(labels.to_owned()));
        row
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
            label_row(5, 1, "PII"),
            hit_row(5, 1, "b", "Column", None),
            hit_row(4, 9, "a", "Table", None),
            label_row(5, 3, "PII"),
            hit_row(5, 2, "B", "Column", Some("VARCHAR")),
            hit_row(-1, 4, "c", "Database", None),
            hit_row(-1, 8, "d", "Folder", None),
            label_row(5, 1, "Gold"),
            label_row(5, 1, "PII"),
            label_row(7, 7, "not a hit"),
        ];
        Hits::from_rows(rows).unwrap().unwrap()
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
    fn labels_come_as_rows_of_their_own_or_in_the_narrow_row() {
        let labels = facet(Field::Tags(TagKind::Label));
        let counted = |rows| {
            let hits = Hits::from_rows(rows).unwrap().unwrap();
            let counts = hits.value_counts(&labels, 10).unwrap();
            let counts: Vec<(String, u64)> = counts
                .into_iter()
                .map(|c| match c.value {
                    Lit::Text(t) => (t, c.count),
                    other => panic!("{other:?}"),
                })
                .collect();
            (hits.count(), counts)
        };
        let expected = (2, vec![("PII".to_owned(), 2), ("Gold \"1\"".to_owned(), 1)]);
        // SQLite: a row per label, anywhere among the objects' rows.
        let rows = vec![
            label_row(5, 1, "PII"),
            hit_row(5, 1, "b", "Column", None),
            hit_row(5, 2, "a", "Column", None),
            label_row(5, 1, "Gold \"1\""),
            label_row(5, 2, "PII"),
        ];
        assert_eq!(counted(rows), expected, "label rows are not objects");
        // PostgreSQL: the narrow row's JSON array.
        let rows = vec![
            with_labels(
                hit_row(5, 1, "b", "Column", None),
                r#"["Gold \"1\"", "PII"]"#,
            ),
            with_labels(hit_row(5, 2, "a", "Column", None), r#"["PII"]"#),
        ];
        assert_eq!(counted(rows), expected);
        let none = vec![hit_row(5, 2, "a", "Column", None)];
        assert_eq!(counted(none), (1, Vec::new()), "no labels: none counted");
        let broken = vec![with_labels(hit_row(5, 2, "a", "Column", None), "PII")];
        assert!(Hits::from_rows(broken).is_err());
    }

    #[test]
    fn too_many_objects_are_not_kept() {
        let rows = (0..=MOST_HITS as i64)
            .map(|i| hit_row(1, i, "x", "Column", None))
            .collect();
        assert!(Hits::from_rows(rows).unwrap().is_none());
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
