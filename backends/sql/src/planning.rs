//! How a page of an MQL query is read: the statement, and the few bounded counts that
//! choose its plan where the database's statistics cannot.
//!
//! A page reads the objects that pass in the order asked and stops at its last row. That
//! is right when many objects pass; when few do, finding them first and sorting them is
//! right, and neither database can always tell which from its statistics:
//!
//! - SQLite (its text index): a term's trigram index serves a page when few objects
//!   contain the term; the objects a restricted caller sees are found first when they
//!   are few.
//! - PostgreSQL: a text search's index serves a page when the search passes few objects.
//! - SQLite (labels): a page starts from the list of a label's objects when they are
//!   few, and tests a common label per object as it reads them in order.
//! - SQLite (types): a page in "Updated Date" order of a common type reads
//!   `objects_updated` and tests the type (the tallies say how common it is).
//!
//! - Both (a common term): a page in name order of a term many objects hold reads at
//!   most a bounded number of objects in order first, as the term's objects may all
//!   come late; a page it does not fill is read through the text index.
//!
//! "Few" is one bound for all of them, from the catalog's size and the rows the page
//! needs, asked once per page and only when a probe is needed.

use std::time::{Duration, Instant};

use lore_core::Result;
use lore_core::model::TagKind;
use lore_core::mql::plan::{Column, Cond, Field, Lit, Page, Plan, Relation, Test, fold};

use crate::compile::{self, Compiled, Search};
use crate::dialect::Dialect;
use crate::driver::{Driver, Stmt};
use crate::store::SqlStore;
use crate::value::SqlValue;

/// How a page is read: its statement, and a cheaper one to try first.
pub(crate) struct PageStatement {
    /// The statement of the page.
    pub statement: Compiled,
    /// A statement to try first: when it answers a full page, that is the page
    /// ([`compile::PageChoices::scan`]).
    pub first_try: Option<Compiled>,
}

impl From<Compiled> for PageStatement {
    fn from(statement: Compiled) -> Self {
        Self {
            statement,
            first_try: None,
        }
    }
}

impl<D: Driver> SqlStore<D> {
    /// The statement of a page of a plan as of a version ([`Plan::as_of`]): no probes
    /// (they count today's rows), every text search tested on each object, the
    /// versioned tables read as they were (`as_of.rs`).
    pub(crate) fn page_as_of(&self, plan: &Plan, page: Page) -> compile::Compiled {
        let compiled = compile::page(
            plan,
            D::DIALECT,
            page,
            &compile::TextIndex::Only(Vec::new()),
            &compile::NO_KEYS,
            compile::PageChoices::default(),
        );
        crate::as_of::compiled_as_of(compiled, D::DIALECT, plan.as_of)
    }

    /// The statement of a page, its plan chosen by the probes its dialect needs.
    pub(crate) async fn page_statement(&self, plan: &Plan, page: Page) -> Result<PageStatement> {
        if let Some(compiled) = compile::tags::page(plan, D::DIALECT, page) {
            return Ok(compiled.into());
        }
        // What this database cannot tell from its statistics.
        let probes = D::DIALECT.planning();
        let searches = compile::indexed_searches(plan, D::DIALECT);
        let restricted =
            probes.restricted_first && !matches!(plan.visibility, Cond::True | Cond::False);
        let required = if probes.required_searches {
            compile::required_searches(plan)
        } else {
            Vec::new()
        };
        let types = broad_type_order(plan).filter(|_| probes.type_order);
        // The children of named objects are few, whatever their type: found by their
        // parent, with the type tested on them. Without statistics (a new or small
        // database) SQLite's planner reads every object of the type instead.
        let children_first = D::DIALECT == Dialect::Sqlite && children_of_named(&plan.filter);
        let tags = if probes.required_tags {
            required_tags(plan)
        } else {
            Vec::new()
        };
        if searches.is_empty()
            && !restricted
            && required.is_empty()
            && types.is_none()
            && tags.is_empty()
        {
            let index = compile::TextIndex::Only(Vec::new());
            let choices = compile::PageChoices {
                tags_per_object: probes.required_tags,
                types_unindexed: children_first,
                ..Default::default()
            };
            let keys = &compile::NO_KEYS;
            return Ok(compile::page(plan, D::DIALECT, page, &index, keys, choices).into());
        }
        let objects = self.catalog_objects().await?;
        let cap = probe_cap(objects, page);
        let types_unindexed = children_first
            || match types {
                Some(types) => self.of_types(&types).await? > cap,
                None => false,
            };
        let tags_per_object = probes.required_tags && !self.any_few_tags(&tags, cap).await?;
        let chosen = self.text_index(searches.clone(), cap).await?;
        let (keys, density) = if D::DIALECT == Dialect::Postgres {
            (self.word_keys_of(plan, Some(objects)).await?, None)
        } else {
            self.keys_of(searches.clone()).await?
        };
        let common_term = chosen.len() < searches.len();
        let index = compile::TextIndex::Only(chosen);
        let (few_required, spread) = self.any_few(&required, cap, objects).await?;
        let density = density.or(spread);
        let filter_first = (restricted
            && self
                .few(&plan.visibility, cap, "what the caller sees")
                .await?)
            || few_required;
        let choices = compile::PageChoices {
            filter_first,
            types_unindexed,
            tags_per_object,
            scan: None,
        };
        // A term too common for the text index is tested on the objects as they are
        // read in name order (and PostgreSQL's planner may choose that for a common
        // term), which fills a page after about `cap` objects when the term's objects
        // are spread over the order. When they all come late (`column_7` after 600,000
        // other columns) that read would go on for most of the catalog: it stops after
        // four times `cap`, and a page it did not fill is read through the text index
        // instead (every object holding the term, sorted).
        let common = common_term || (!required.is_empty() && !few_required);
        if common && !filter_first && name_order(plan) {
            let first_try = compile::page(
                plan,
                D::DIALECT,
                page,
                &index,
                &keys,
                compile::PageChoices {
                    scan: Some(scan_bound(cap, page, density)),
                    ..choices
                },
            );
            let (index, choices) = if common_term {
                (compile::TextIndex::Only(searches), choices)
            } else {
                let choices = compile::PageChoices {
                    filter_first: true,
                    ..choices
                };
                (index, choices)
            };
            return Ok(PageStatement {
                statement: compile::page(plan, D::DIALECT, page, &index, &keys, choices),
                first_try: Some(first_try),
            });
        }
        Ok(compile::page(plan, D::DIALECT, page, &index, &keys, choices).into())
    }

    /// The parts of the plan's searches SQLite's text index looks up in their place
    /// (see [`compile::SearchKeys`]); none on PostgreSQL.
    pub(crate) async fn search_keys(&self, plan: &Plan) -> Result<compile::SearchKeys> {
        if D::DIALECT == Dialect::Postgres {
            return self.word_keys_of(plan, None).await;
        }
        let (keys, _) = self
            .keys_of(compile::indexed_searches(plan, D::DIALECT))
            .await?;
        Ok(keys)
    }

    /// PostgreSQL's keys: for each search the plan requires, a sample of about
    /// [`SAMPLE`] objects tells the share each word of its term ([`compile::word_keys`])
    /// is in; when the others are in ten times more, the rarest is looked up in the
    /// index in place of the term (`column 7`: `" 7"` is in 4% of the objects,
    /// `"column "` in 96%, and the index reads one list of 44,000 objects instead of
    /// five of a million), then the term is tested exactly. `objects`: the catalog's
    /// size, when the caller has it (read here only when a search must be sampled).
    async fn word_keys_of(
        &self,
        plan: &Plan,
        mut objects: Option<f64>,
    ) -> Result<compile::SearchKeys> {
        let mut keys = Vec::new();
        for search in compile::trigram_searches(plan) {
            if let Some(key) = self.key_memo.get(&search.form) {
                if let Some(key) = key {
                    keys.push((search, key));
                }
                continue;
            }
            let words = compile::word_keys(&search.form);
            if words.len() < 2 {
                continue;
            }
            let objects = match objects {
                Some(n) => n,
                None => *objects.insert(self.catalog_objects().await?),
            };
            let mut params = vec![SqlValue::Real(Some(sample_percent(objects)))];
            let mut counts = Vec::new();
            for word in &words {
                params.push(SqlValue::Text(Some(D::DIALECT.contains_operand(word))));
                counts.push(format!(
                    "COUNT(*) FILTER (WHERE o.form LIKE ${})",
                    params.len()
                ));
            }
            let sql = format!(
                "SELECT {} FROM object_search o TABLESAMPLE SYSTEM (CAST($1 AS REAL)) REPEATABLE (1)",
                counts.join(", ")
            );
            let rows = self
                .rows_of(Stmt::query(sql, params), "a text search")
                .await?;
            let Some(row) = rows.first() else {
                continue;
            };
            let mut shares = Vec::with_capacity(words.len());
            for i in 0..words.len() {
                shares.push(row.int(i, "a text search")? as f64);
            }
            let total: f64 = shares.iter().sum();
            let Some((rarest, &fewest)) =
                shares.iter().enumerate().min_by(|a, b| a.1.total_cmp(b.1))
            else {
                continue;
            };
            let key =
                (total - fewest >= WORD_KEY_GAIN * fewest.max(1.0)).then(|| words[rarest].clone());
            self.key_memo.put(&search.form, key.clone());
            if let Some(key) = key {
                keys.push((search, key));
            }
        }
        Ok(compile::SearchKeys(keys))
    }

    /// For each search, one statement samples the index's list of each of its trigrams:
    /// the first `KEY_SAMPLE` objects listed, in rowid order. A trigram listed fewer
    /// times is that rare; otherwise the rowid its sample ends at says how densely it is
    /// listed (rowids follow the order objects were written in, so a term's objects are
    /// spread over them about as they are over the catalog). Looking up the rarest
    /// trigram instead of the whole form saves reading the others' lists (a step per
    /// object listed) at the cost of testing each object the rarest lists (a row read,
    /// some forty steps): worth it when the others list forty times more.
    ///
    /// Also the share of the catalog the rarest trigram of the rarest search lists: at
    /// most that share of the objects holds that search's term.
    async fn keys_of(&self, searches: Vec<Search>) -> Result<(compile::SearchKeys, Option<f64>)> {
        let mut keys = Vec::new();
        let mut density: Option<f64> = None;
        for search in searches {
            let trigrams = search.trigrams();
            if trigrams.len() < 2 {
                continue;
            }
            let mut parts: Vec<String> = (1..=trigrams.len())
                .map(|i| {
                    format!(
                        "SELECT {i}, COUNT(*), MAX(rowid) FROM (SELECT rowid FROM objects_search \
                         WHERE objects_search MATCH ${i} ORDER BY rowid LIMIT {KEY_SAMPLE})"
                    )
                })
                .collect();
            parts.push("SELECT 0, 0, MAX(rowid) FROM objects".to_owned());
            let params = trigrams
                .iter()
                .map(|t| SqlValue::Text(Some(search.fts_query_of(t))))
                .collect();
            let rows = self
                .rows_of(
                    Stmt::query(parts.join(" UNION ALL "), params),
                    "a text search",
                )
                .await?;
            let mut last = 0;
            let mut samples = vec![(0, 0); trigrams.len()];
            for row in &rows {
                let at = row.int(0, "a text search")?;
                let listed = row.int(1, "a text search")?;
                let end = row.opt_int(2, "a text search")?.unwrap_or(0);
                match usize::try_from(at) {
                    Ok(0) => last = end,
                    Ok(i) if i <= samples.len() => samples[i - 1] = (listed, end),
                    _ => {}
                }
            }
            let listed: Vec<f64> = samples
                .iter()
                .map(|&(n, end)| estimated_listed(n, end, last))
                .collect();
            let total: f64 = listed.iter().sum();
            let Some((rarest, &fewest)) =
                listed.iter().enumerate().min_by(|a, b| a.1.total_cmp(b.1))
            else {
                continue;
            };
            if last > 0 {
                let share = fewest / last as f64;
                density = Some(density.map_or(share, |d| d.min(share)));
            }
            if total - fewest >= KEY_GAIN * fewest {
                keys.push((search, trigrams[rarest].clone()));
            }
        }
        Ok((compile::SearchKeys(keys), density))
    }

    /// Whether one of the tags every object of a page must have is on few objects (one
    /// bounded count of `tags_order` each): then the page starts from its list.
    async fn any_few_tags(&self, tags: &[(TagKind, String)], cap: i64) -> Result<bool> {
        for (kind, value) in tags {
            let probe = Stmt::query(
                "SELECT COUNT(*) FROM (SELECT 1 FROM tags WHERE kind = $1 AND value_fold = $2 \
                 AND fold_first LIMIT $3) n",
                vec![
                    kind.as_str().into(),
                    value.as_str().into(),
                    SqlValue::Int(Some(cap + 1)),
                ],
            );
            if self.number(probe, "a label").await? <= cap {
                return Ok(true);
            }
        }
        Ok(false)
    }

    /// How many model objects have one of the (folded) types, from the tallies.
    async fn of_types(&self, types: &[String]) -> Result<i64> {
        let marks: Vec<String> = (1..=types.len()).map(|i| format!("${i}")).collect();
        let sql = format!(
            "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM object_tallies WHERE {} IN ({})",
            D::DIALECT.fold("type_name"),
            marks.join(", ")
        );
        let params = types
            .iter()
            .map(|t| SqlValue::Text(Some(t.clone())))
            .collect();
        self.number(Stmt::query(sql, params), "the objects of a type")
            .await
    }

    /// Which of the plan's searches a page finds through SQLite's text index: those
    /// that few enough objects contain. Reading the index costs about one step per
    /// object found (all of them, then sorted); testing objects as they are read in
    /// order costs about `objects × needed / found` steps for the `needed` rows of the
    /// page. So the index serves a search found in fewer than `√(objects × needed)`
    /// objects, which one bounded count of the index tells.
    async fn text_index(&self, searches: Vec<Search>, cap: i64) -> Result<Vec<Search>> {
        if searches.is_empty() {
            return Ok(Vec::new());
        }
        let probes = searches
            .iter()
            .map(|search| {
                Stmt::query(
                    "SELECT COUNT(*) FROM (SELECT 1 FROM objects_search WHERE objects_search MATCH $1 LIMIT $2)",
                    vec![
                        SqlValue::Text(Some(search.fts_query())),
                        SqlValue::Int(Some(cap + 1)),
                    ],
                )
            })
            .collect();
        let outcomes = self.read(probes, "a text search").await?;
        let mut chosen = Vec::new();
        for (search, outcome) in searches.into_iter().zip(outcomes) {
            let found = outcome
                .rows
                .first()
                .map(|r| r.int(0, "objects"))
                .transpose()?;
            if found.unwrap_or(0) <= cap {
                chosen.push(search);
            }
        }
        Ok(chosen)
    }

    /// How many objects the catalog holds (from the tallies), at least 1.
    async fn catalog_objects(&self) -> Result<f64> {
        let size = Stmt::query(D::DIALECT.catalog_size(), Vec::new());
        Ok(self.number(size, "the size of the catalog").await?.max(1) as f64)
    }

    /// Whether at most `cap` objects pass `cond`: one bounded count. A SQLite page finds
    /// the objects a restricted caller sees first, and sorts them, when they are few:
    /// SQLite's statistics know how many objects a model has on average, not that the one
    /// a restricted caller sees is small. (PostgreSQL's statistics see it for themselves.)
    async fn few(&self, cond: &Cond, cap: i64, what: &str) -> Result<bool> {
        let compiled = compile::bounded_count(cond, D::DIALECT, cap);
        let found = self
            .number(Stmt::query(compiled.sql, compiled.params), what)
            .await?;
        Ok(found <= cap)
    }

    /// Whether a PostgreSQL page should find its objects through a text search's index
    /// and sort them, rather than read a sort order's index and test each object: when
    /// one of the searches it requires passes few objects. PostgreSQL's planner takes the
    /// objects a term finds for spread evenly over the order; when they come late
    /// (`table_15` after a million `column_...` in name order), reading the order's index
    /// tests every object before them.
    ///
    /// A sample of some 10,000 objects answers first (the share of the objects each
    /// search passes): a search it finds in four times fewer objects than the bound is
    /// few, one it finds in four times more is not, and only one in between is counted.
    /// Also, when none is few, about the share of the objects the rarest of them holds.
    async fn any_few(
        &self,
        searches: &[Cond],
        cap: i64,
        objects: f64,
    ) -> Result<(bool, Option<f64>)> {
        let mut density: Option<f64> = None;
        for search in searches {
            let share = self.sampled_share(search, objects).await?;
            let bound = cap as f64;
            let few = match share.map(|s| s * objects) {
                Some(found) if found * 4.0 <= bound => true,
                Some(found) if found >= bound * 4.0 => false,
                _ => self.few(search, cap, "a text search").await?,
            };
            if few {
                return Ok((true, None));
            }
            if let Some(share) = share {
                density = Some(density.map_or(share, |d| d.min(share)));
            }
        }
        Ok((false, density))
    }

    /// The share of about [`SAMPLE`] of the catalog's objects that passes a text search
    /// (PostgreSQL; `None` elsewhere).
    async fn sampled_share(&self, search: &Cond, objects: f64) -> Result<Option<f64>> {
        let percent = sample_percent(objects);
        let Some(sample) = compile::sampled_share(search, D::DIALECT, percent) else {
            return Ok(None);
        };
        let rows = self
            .rows_of(Stmt::query(sample.sql, sample.params), "a text search")
            .await?;
        let Some(row) = rows.first() else {
            return Ok(None);
        };
        let sampled = row.int(0, "a text search")?;
        let passed = row.int(1, "a text search")?;
        Ok((sampled > 0).then(|| passed as f64 / sampled as f64))
    }
}

/// The keys [`SqlStore::word_keys_of`] chose in the last minute, by search form, so the
/// calls of one search (its page, facets and count) sample once. A key chooses how the
/// index is read, never what a search finds (the term is tested exactly after it), so
/// one a minute old is as right as a new one.
#[derive(Debug, Default)]
pub(crate) struct KeyMemo(
    std::sync::Mutex<std::collections::HashMap<String, (Instant, Option<String>)>>,
);

impl KeyMemo {
    /// How long a choice is kept.
    const KEPT: Duration = Duration::from_secs(60);
    /// At most this many forms; the memo starts over when it is full.
    const FORMS: usize = 1_000;

    fn get(&self, form: &str) -> Option<Option<String>> {
        let memo = self.0.lock().unwrap_or_else(|e| e.into_inner());
        memo.get(form)
            .filter(|(at, _)| at.elapsed() < Self::KEPT)
            .map(|(_, key)| key.clone())
    }

    fn put(&self, form: &str, key: Option<String>) {
        let mut memo = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if memo.len() >= Self::FORMS {
            memo.clear();
        }
        memo.insert(form.to_owned(), (Instant::now(), key));
    }
}

/// How many times more sampled objects the other words of a term must be in than its
/// rarest for the rarest alone to be looked up (PostgreSQL, see
/// [`SqlStore::word_keys_of`]): reading a word's list in the index costs far less per
/// object than testing an object the key finds and the term does not.
const WORD_KEY_GAIN: f64 = 10.0;

/// About how many objects [`SqlStore::any_few`] samples.
const SAMPLE: f64 = 10_000.0;

/// The share of the narrow table's pages that holds about [`SAMPLE`] of `objects`.
fn sample_percent(objects: f64) -> f64 {
    (SAMPLE / objects * 100.0).clamp(0.01, 100.0)
}

/// How many objects a condition may let pass and still be worth finding through its
/// own indexes before sorting: `√(objects × rows the page needs)` (see
/// [`SqlStore::text_index`]).
fn probe_cap(objects: f64, page: Page) -> i64 {
    let needed = page.offset.saturating_add(page.limit) as f64;
    (objects * needed).sqrt().clamp(1_000.0, 1e9) as i64
}

/// How many objects a first try at a page of a common term reads in order
/// ([`compile::PageChoices::scan`]): four times the probes' bound, or, when the text
/// index says about a share `density` of the objects holds the term, four times
/// the objects in which a term spread that densely over the order fills the page (a
/// term whose objects all come late then costs a short read before its objects are
/// found through the index, not a read of four times the bound). Either way a page the
/// first try does not fill is read through the index: the bound costs time, never an
/// answer.
fn scan_bound(cap: i64, page: Page, density: Option<f64>) -> i64 {
    let bound = cap.saturating_mul(4);
    let Some(density) = density.filter(|d| *d > 0.0) else {
        return bound;
    };
    let needed = page.offset.saturating_add(page.limit) as f64;
    let spread = (4.0 * needed / density).min(bound as f64) as i64;
    spread.clamp(1_000.min(bound), bound)
}

/// How many objects of a trigram's list [`SqlStore::keys_of`] samples.
const KEY_SAMPLE: i64 = 200;

/// How many times more objects the other trigrams of a form must list than its rarest
/// for the rarest alone to be looked up (see [`SqlStore::keys_of`]).
const KEY_GAIN: f64 = 40.0;

/// About how many objects the text index lists for a trigram whose first `sampled`
/// (at most [`KEY_SAMPLE`]) end at rowid `end`, of objects up to rowid `last`.
fn estimated_listed(sampled: i64, end: i64, last: i64) -> f64 {
    if sampled < KEY_SAMPLE || end <= 0 {
        sampled as f64
    } else {
        sampled as f64 * (last.max(end) as f64 / end as f64)
    }
}

/// Whether the plan's order is by Name alone, which an index holds (`objects_name_order`,
/// read backwards for descending).
fn name_order(plan: &Plan) -> bool {
    matches!(&plan.order[..], [key] if key.field == Field::Column(Column::Name))
}

/// The tags (kind and folded value) every object of the plan has: tests by equality at
/// the top of its AND.
fn required_tags(plan: &Plan) -> Vec<(TagKind, String)> {
    fn walk(cond: &Cond, out: &mut Vec<(TagKind, String)>) {
        match cond {
            Cond::And(items) => items.iter().for_each(|c| walk(c, out)),
            Cond::Test(Field::Tags(kind), Test::Eq(Lit::Text(value))) => {
                out.push((*kind, fold(value)));
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(&plan.condition(), &mut out);
    out
}

/// Whether the condition requires the objects to be children of objects it names (a
/// `Parent` relation to ids, at the top of its AND).
fn children_of_named(cond: &Cond) -> bool {
    match cond {
        Cond::And(items) => items.iter().any(children_of_named),
        Cond::Related(Relation::Parent, inner) => matches!(**inner, Cond::Ids(_)),
        _ => false,
    }
}

/// The folded object types a SQLite page in "Updated Date" order requires (a test of the
/// type at the top of its AND), if any: when many objects have them, the page reads
/// `objects_updated` in order and tests the type ([`compile::page`]'s
/// `types_unindexed`). SQLite's planner would find the type's objects through its index
/// and sort them all; it does not count on the page filling early.
fn broad_type_order(plan: &Plan) -> Option<Vec<String>> {
    fn walk(cond: &Cond, out: &mut Vec<String>) {
        match cond {
            Cond::And(items) => items.iter().for_each(|c| walk(c, out)),
            Cond::Test(Field::Column(Column::TypeName), test) => {
                let lits = match test {
                    Test::Eq(lit) => std::slice::from_ref(lit),
                    Test::In(lits) => lits.as_slice(),
                    _ => return,
                };
                out.extend(lits.iter().filter_map(|l| match l {
                    Lit::Text(t) => Some(fold(t)),
                    _ => None,
                }));
            }
            _ => {}
        }
    }
    let first = plan.order.first()?;
    if first.field != Field::Column(Column::UpdatedAt) {
        return None;
    }
    let mut types = Vec::new();
    walk(&plan.condition(), &mut types);
    (!types.is_empty()).then_some(types)
}

#[cfg(test)]
mod tests {
    use lore_core::mql::plan::SortKey;

    use super::*;
    use crate::dialect::Dialect;

    #[test]
    fn the_key_memo_keeps_choices_and_starts_over_when_full() {
        let memo = KeyMemo::default();
        assert_eq!(memo.get("column 7"), None);
        memo.put("column 7", Some(" 7".to_owned()));
        memo.put("table", None);
        assert_eq!(memo.get("column 7"), Some(Some(" 7".to_owned())));
        assert_eq!(memo.get("table"), Some(None), "no key is a choice too");
        for i in 0..KeyMemo::FORMS {
            memo.put(&format!("form {i}"), None);
        }
        assert_eq!(memo.get("column 7"), None, "a full memo starts over");
    }

    #[test]
    fn postgresql_looks_up_a_word_its_index_draws_a_trigram_from() {
        assert_eq!(compile::word_keys("column 7"), ["column ", " 7"]);
        assert_eq!(compile::word_keys("table 15"), ["table ", " 15"]);
        // `"7 "` gives pg_trgm no trigram; a single word, or other characters, no keys.
        assert_eq!(compile::word_keys("7 x column"), [" x ", " column"]);
        assert!(compile::word_keys("column").is_empty());
        assert!(compile::word_keys("a-b c").is_empty());
        // The key is looked up in the index, the term tested exactly after it.
        let search = Search {
            columns: vec![Column::Name, Column::PhysicalName],
            form: "column 7".to_owned(),
        };
        let term = Cond::Search {
            columns: search.columns.clone(),
            text: search.form.clone(),
        };
        let keys = compile::SearchKeys(vec![(search, " 7".to_owned())]);
        let count = compile::count(
            &plan(Field::Column(Column::Name), term),
            Dialect::Postgres,
            &keys,
        );
        assert!(
            count
                .sql
                .contains("o.form LIKE $1 AND strpos(o.form, $2) > 0"),
            "{}",
            count.sql
        );
        assert_eq!(
            count.params,
            [
                SqlValue::Text(Some("% 7%".to_owned())),
                SqlValue::Text(Some("column 7".to_owned()))
            ]
        );
    }

    #[test]
    fn a_first_try_reads_what_a_term_spread_that_densely_needs() {
        let page = Page {
            offset: 0,
            limit: 20,
        };
        assert_eq!(scan_bound(4_472, page, None), 17_888);
        // One object in 25 holds the term: 500 objects fill a page, 2,000 are tried.
        assert_eq!(scan_bound(4_472, page, Some(0.04)), 2_000);
        // Never under 1,000, never over four times the bound.
        assert_eq!(scan_bound(4_472, page, Some(0.5)), 1_000);
        assert_eq!(scan_bound(4_472, page, Some(0.0001)), 17_888);
        assert_eq!(scan_bound(200, page, Some(0.5)), 800);
    }

    #[test]
    fn a_trigram_sampled_whole_is_listed_that_often_else_by_its_density() {
        assert_eq!(estimated_listed(125, 2_990, 3_000), 125.0);
        // 200 listed by rowid 212 of 1,000,000: about 943,000.
        let common = estimated_listed(KEY_SAMPLE, 212, 1_000_000);
        assert!((940_000.0..950_000.0).contains(&common), "{common}");
        assert_eq!(estimated_listed(0, 0, 1_000), 0.0);
    }

    #[test]
    fn a_key_replaces_the_form_in_the_index_lookup_only() {
        let search = Search {
            columns: vec![Column::Name, Column::PhysicalName],
            form: "column 7".to_owned(),
        };
        assert_eq!(
            search.trigrams(),
            ["col", "olu", "lum", "umn", "mn ", "n 7"]
        );
        let term = Cond::Search {
            columns: search.columns.clone(),
            text: search.form.clone(),
        };
        let plan = plan(Field::Column(Column::Name), term);
        let keys = compile::SearchKeys(vec![(search, "n 7".to_owned())]);
        let count = compile::count(&plan, Dialect::Sqlite, &keys);
        assert!(
            count.params.contains(&SqlValue::Text(Some(
                "{name physical_name} : \"n 7\"".to_owned()
            ))),
            "{count:?}"
        );
        assert!(
            count
                .params
                .contains(&SqlValue::Text(Some("column 7".to_owned()))),
            "the exact test: {count:?}"
        );
        let whole = compile::count(&plan, Dialect::Sqlite, &compile::NO_KEYS);
        assert!(
            whole.params.contains(&SqlValue::Text(Some(
                "{name physical_name} : \"column 7\"".to_owned()
            ))),
            "{whole:?}"
        );
    }

    fn plan(order: Field, cond: Cond) -> Plan {
        Plan {
            filter: cond,
            visibility: Cond::True,
            order: vec![SortKey {
                field: order,
                descending: true,
            }],
            as_of: None,
        }
    }

    /// A text search's count, facets and page read the narrow `object_search` when they
    /// read nothing else of the objects and the caller sees everything.
    #[test]
    fn a_text_search_reads_the_narrow_table_when_it_can() {
        let term = Cond::Search {
            columns: vec![Column::Name, Column::PhysicalName],
            text: "column 7".to_owned(),
        };
        let keys = &compile::NO_KEYS;
        let name = Field::Column(Column::Name);
        let searched = plan(name.clone(), term.clone());
        let count = compile::count(&searched, Dialect::Sqlite, keys);
        assert!(
            count.sql.contains("FROM object_search o") && count.sql.contains("instr(o.form, "),
            "{}",
            count.sql
        );
        let count = compile::count(&searched, Dialect::Postgres, keys);
        assert!(
            count.sql.contains("FROM object_search o WHERE") && count.sql.contains("o.form LIKE"),
            "{}",
            count.sql
        );
        let index = compile::TextIndex::Only(Vec::new());
        let page = Page {
            offset: 0,
            limit: 20,
        };
        let choices = compile::PageChoices::default();
        let paged = compile::page(&searched, Dialect::Sqlite, page, &index, keys, choices);
        assert!(paged.sql.contains("FROM object_search o"), "{}", paged.sql);
        // Another column of the objects, a caller who sees less, no search: `objects`.
        let described = Cond::And(vec![
            term.clone(),
            Cond::Test(
                Field::Column(Column::Description),
                Test::Eq(Lit::Text("x".to_owned())),
            ),
        ]);
        let described = plan(name.clone(), described);
        let count = compile::count(&described, Dialect::Sqlite, keys);
        assert!(count.sql.contains("FROM objects o"), "{}", count.sql);
        // PostgreSQL finds the objects through the narrow table's index.
        let count = compile::count(&described, Dialect::Postgres, keys);
        assert!(
            count.sql.contains("FROM objects o WHERE")
                && count
                    .sql
                    .contains("(o.model_id, o.object_id) IN (SELECT s1.model_id")
                && count
                    .sql
                    .contains("FROM object_search s1 WHERE s1.form LIKE"),
            "{}",
            count.sql
        );
        let updated = plan(Field::Column(Column::UpdatedAt), term.clone());
        let paged = compile::page(&updated, Dialect::Sqlite, page, &index, keys, choices);
        assert!(paged.sql.contains("FROM objects o"), "{}", paged.sql);
        let mut restricted = searched.clone();
        restricted.visibility = Cond::False;
        let count = compile::count(&restricted, Dialect::Sqlite, keys);
        assert!(count.sql.contains("FROM objects o"), "{}", count.sql);
        let plain = plan(name, Cond::True);
        let count = compile::count(&plain, Dialect::Sqlite, keys);
        assert!(count.sql.contains("FROM objects o"), "{}", count.sql);
    }

    #[test]
    fn a_type_in_updated_date_order_is_asked_about() {
        let table = Cond::Test(
            Field::Column(Column::TypeName),
            Test::Eq(Lit::Text("Table".to_owned())),
        );
        let updated = Field::Column(Column::UpdatedAt);
        assert_eq!(
            broad_type_order(&plan(
                updated.clone(),
                Cond::And(vec![Cond::True, table.clone()])
            )),
            Some(vec!["table".to_owned()])
        );
        let pii = Cond::Test(
            Field::Tags(TagKind::Label),
            Test::Eq(Lit::Text("PII".to_owned())),
        );
        let both = plan(updated.clone(), Cond::And(vec![table.clone(), pii.clone()]));
        assert_eq!(
            required_tags(&both),
            vec![(TagKind::Label, "pii".to_owned())]
        );
        let not = plan(updated.clone(), Cond::Not(Box::new(pii)));
        assert_eq!(required_tags(&not), Vec::new());
        // Name order: the type's own index holds it.
        assert_eq!(
            broad_type_order(&plan(Field::Column(Column::Name), table.clone())),
            None
        );
        // A type under OR is not required.
        let either = Cond::Or(vec![table, Cond::True]);
        assert_eq!(broad_type_order(&plan(updated.clone(), either)), None);
        // The type test compiles kept from the index.
        let filter = Cond::Test(
            Field::Column(Column::TypeName),
            Test::Eq(Lit::Text("table".to_owned())),
        );
        let index = compile::TextIndex::Only(Vec::new());
        let page = Page {
            offset: 0,
            limit: 20,
        };
        let sql = |unindexed| {
            let choices = compile::PageChoices {
                types_unindexed: unindexed,
                ..Default::default()
            };
            compile::page(
                &plan(updated.clone(), filter.clone()),
                Dialect::Sqlite,
                page,
                &index,
                &compile::NO_KEYS,
                choices,
            )
            .sql
        };
        assert!(
            sql(true).contains("+(lower(o.type_name) = $1)"),
            "{}",
            sql(true)
        );
        assert!(!sql(false).contains("+("), "{}", sql(false));
    }

    /// The children of named objects are found by their parent: a type test beside
    /// that relation does not choose the type's index (SQLite without statistics would).
    #[test]
    fn children_of_named_objects_are_found_by_their_parent() {
        let children = Cond::Related(
            Relation::Parent,
            Box::new(Cond::Ids(vec![lore_core::ObjectId::new(2, 5)])),
        );
        let column = Cond::Test(
            Field::Column(Column::TypeName),
            Test::Eq(Lit::Text("column".into())),
        );
        let nested = Cond::And(vec![
            Cond::Kinds(Vec::new()),
            Cond::And(vec![children.clone(), column.clone()]),
        ]);
        assert!(children_of_named(&nested));
        assert!(children_of_named(&children));
        assert!(!children_of_named(&column));
        let either = Cond::Or(vec![children.clone(), column.clone()]);
        assert!(!children_of_named(&either), "not required");
        let by_test = Cond::Related(Relation::Parent, Box::new(column));
        assert!(!children_of_named(&by_test), "a parent found by a test");
    }

    /// Each database probes what its own planner cannot tell, and nothing else.
    #[test]
    fn each_dialect_probes_what_its_planner_cannot_tell() {
        let sqlite = Dialect::Sqlite.planning();
        let postgres = Dialect::Postgres.planning();
        assert!(sqlite.text_index && !postgres.text_index);
        assert!(postgres.required_searches && !sqlite.required_searches);
        assert!(sqlite.restricted_first && sqlite.type_order && sqlite.required_tags);
        assert!(!postgres.restricted_first && !postgres.type_order && !postgres.required_tags);
    }

    /// A common term's first try reads a bounded number of objects in name order, the
    /// rowid kept for SQLite's text index.
    #[test]
    fn a_bounded_read_in_order_keeps_the_rowid_on_sqlite() {
        let search = Cond::Search {
            columns: vec![Column::Name, Column::PhysicalName],
            text: "column 7".to_owned(),
        };
        let page = Page {
            offset: 0,
            limit: 20,
        };
        let choices = compile::PageChoices {
            scan: Some(4_000),
            ..Default::default()
        };
        let index = compile::TextIndex::Only(Vec::new());
        let plan = plan(Field::Column(Column::Name), search);
        assert!(name_order(&plan));
        let keys = &compile::NO_KEYS;
        let sqlite = compile::page(&plan, Dialect::Sqlite, page, &index, keys, choices).sql;
        assert!(
            sqlite.contains("FROM (SELECT o.rowid AS rowid, o.* FROM objects o ORDER BY o.name"),
            "{sqlite}"
        );
        let postgres = compile::page(&plan, Dialect::Postgres, page, &index, keys, choices).sql;
        assert!(
            postgres.contains("FROM (SELECT o.* FROM objects o ORDER BY o.name"),
            "{postgres}"
        );
    }
}
