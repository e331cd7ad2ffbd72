//! The MQL compiler: a [`Plan`] becomes one SQL statement for a page or a count, in
//! either dialect. Its meaning is the reference evaluator's
//! ([`lore_core::mql::eval`]); the cross-backend test compares the two.
//!
//! Every condition compiles to an expression that is never NULL, so `NOT` means what
//! the evaluator means: a test on a nullable column says `col IS NOT NULL AND ...`, and
//! what hangs on an object (tags, attribute values, classifications, profiling) is
//! tested with `(model_id, object_id) IN (SELECT ...)` over its own table, which the
//! database runs once, on that table's indexes.
//!
//! Where the dialects spell something differently, a [`Dialect`] method spells it. The
//! compiler itself decides by dialect only what depends on each database's indexes and
//! planner: SQLite's text index ([`indexed_searches`], [`TextIndex`]), the narrowing of
//! `CONTAINS` by PostgreSQL's trigram indexes, and the shape of a condition on children.

use lore_core::model::{ClassificationStatus, ObjectKind};
use lore_core::mql::plan::{
    ClassStatuses, Column, Cond, Facet, Field, FieldType, LabelSet, Lit, Page, Plan, ProfilingPart,
    Relation, Test, Within, search_form,
};

use crate::dialect::Dialect;
use crate::value::SqlValue;

pub mod hits;
pub mod tags;
pub mod tally;

/// A statement and its parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct Compiled {
    pub sql: String,
    pub params: Vec<SqlValue>,
}

/// Which [`Cond::Search`]es a statement finds through SQLite's text index
/// (`objects_search`, FTS5 trigrams of the search forms of Name and Physical Name,
/// migration 19) before it tests them. PostgreSQL's planner chooses for itself between
/// its trigram indexes of the same forms and a scan.
#[derive(Debug, Clone, PartialEq)]
pub enum TextIndex {
    /// Every search the index can serve: right for counts and facets, which read every
    /// object that passes.
    Always,
    /// Only these (from [`indexed_searches`]). For a page, a term that many objects
    /// contain is better tested while the objects are read in order: the page fills
    /// after a few rows, where the index would hand over all of them to be sorted.
    Only(Vec<Search>),
}

/// A search the text indexes can serve: its columns and the search form looked up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Search {
    pub columns: Vec<Column>,
    /// A text search's term (already a search form), or the search form of the text of
    /// `CONTAINS`: every object the exact test passes holds it in the search form of
    /// one of the columns (the search form of a part of a text is a part of the text's
    /// search form).
    pub form: String,
}

impl Search {
    /// The FTS5 query of the search: its form as one phrase, in its columns. The trigram
    /// tokenizer finds the rows holding it as a substring (and folds case for all of
    /// Unicode, a superset of MQL's A–Z), so the index finds every object the exact test
    /// passes, and few more.
    pub fn fts_query(&self) -> String {
        self.fts_query_of(&self.form)
    }

    /// The FTS5 query of a part of the search's form (a [`SearchKeys`] key, or one of
    /// its trigrams), in the search's columns: it finds every object the whole form
    /// finds, and more.
    pub fn fts_query_of(&self, part: &str) -> String {
        let columns: Vec<&str> = self.columns.iter().filter_map(|c| fts_column(*c)).collect();
        format!(
            "{{{}}} : \"{}\"",
            columns.join(" "),
            part.replace('"', "\"\"")
        )
    }

    /// The distinct trigrams of the form, in the order they first occur.
    pub fn trigrams(&self) -> Vec<String> {
        let chars: Vec<char> = self.form.chars().collect();
        let mut out: Vec<String> = Vec::new();
        for window in chars.windows(3) {
            let trigram: String = window.iter().collect();
            if !out.contains(&trigram) {
                out.push(trigram);
            }
        }
        out
    }
}

/// Parts of searches' forms that SQLite's text index looks up in their place
/// (`SqlStore::search_keys` chooses them): one trigram of the form, when the index
/// lists it for far fewer objects than the form's other trigrams. FTS5 reads a
/// phrase by walking the list of each of its trigrams: `column 7` walks five lists
/// of 960,000 objects (`col`, `olu`, ...) to find 40,000, where `n 7` alone lists the
/// 40,000. The exact test follows the lookup, so the answer is the same.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SearchKeys(pub Vec<(Search, String)>);

/// No keys: every search looked up by its whole form.
pub static NO_KEYS: SearchKeys = SearchKeys(Vec::new());

impl SearchKeys {
    fn of(&self, search: &Search) -> Option<&str> {
        self.0
            .iter()
            .find(|(s, _)| s == search)
            .map(|(_, key)| key.as_str())
    }
}

/// A column's name in SQLite's text index, if it is indexed.
fn fts_column(column: Column) -> Option<&'static str> {
    match column {
        Column::Name => Some("name"),
        Column::PhysicalName => Some("physical_name"),
        _ => None,
    }
}

/// The search the text indexes can serve, if any: all its columns indexed and a form of
/// at least three characters (a trigram). `term`: the text is a text search's term;
/// otherwise the text of `CONTAINS`.
fn indexable(columns: &[Column], text: &str, term: bool) -> Option<Search> {
    let form = if term {
        text.to_owned()
    } else {
        search_form(text)
    };
    (form.chars().count() >= 3 && columns.iter().all(|c| fts_column(*c).is_some())).then(|| {
        Search {
            columns: columns.to_vec(),
            form,
        }
    })
}

/// The searches of the plan that SQLite's text index can serve (none on PostgreSQL),
/// each once.
pub fn indexed_searches(plan: &Plan, dialect: Dialect) -> Vec<Search> {
    fn walk(cond: &Cond, out: &mut Vec<Search>) {
        let found = match cond {
            Cond::And(items) | Cond::Or(items) => {
                items.iter().for_each(|c| walk(c, out));
                None
            }
            Cond::Not(inner) | Cond::Related(_, inner) => {
                walk(inner, out);
                None
            }
            Cond::Search { columns, text } => indexable(columns, text, true),
            Cond::Test(Field::Column(column), Test::Contains(text)) => {
                indexable(&[*column], text, false)
            }
            _ => None,
        };
        if let Some(search) = found
            && !out.contains(&search)
        {
            out.push(search);
        }
    }
    let mut out = Vec::new();
    if dialect == Dialect::Sqlite {
        walk(&plan.condition(), &mut out);
    }
    out
}

/// The plan's searches PostgreSQL's trigram index serves, each once.
pub fn trigram_searches(plan: &Plan) -> Vec<Search> {
    let mut out = Vec::new();
    for cond in required_searches(plan) {
        if let Cond::Search { columns, text } = &cond
            && let Some(search) = indexable(columns, text, true)
            && !out.contains(&search)
        {
            out.push(search);
        }
    }
    out
}

/// The parts of a search form PostgreSQL's trigram index can look up in its place: each
/// word with the word breaks the form surely has around it (`" 7"` and `"column "` of
/// `column 7`), when pg_trgm draws a trigram from it (two spaces pad a word's start and
/// one its end, so `" 7"` gives `"  7"`, `"7 "` nothing). None for a single word, or a
/// form holding other than ASCII letters, digits and spaces (pg_trgm's words).
pub fn word_keys(form: &str) -> Vec<String> {
    if !form
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == ' ')
    {
        return Vec::new();
    }
    let words: Vec<&str> = form.split(' ').collect();
    if words.len() < 2 {
        return Vec::new();
    }
    let last = words.len() - 1;
    let mut keys = Vec::new();
    for (i, word) in words.iter().enumerate() {
        let (start, end) = (i > 0, i < last);
        if word.is_empty() || word.len() + 2 * usize::from(start) + usize::from(end) < 3 {
            continue;
        }
        let key = format!(
            "{}{word}{}",
            if start { " " } else { "" },
            if end { " " } else { "" }
        );
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys
}

/// The text searches every object of the plan passes (those at the top of its AND) that
/// an index can serve: on PostgreSQL, a page whose search few objects pass finds them
/// through the search's index and sorts them ([`PageChoices::filter_first`]).
pub fn required_searches(plan: &Plan) -> Vec<Cond> {
    fn walk(cond: &Cond, out: &mut Vec<Cond>) {
        match cond {
            Cond::And(items) => items.iter().for_each(|c| walk(c, out)),
            Cond::Search { columns, text } if indexable(columns, text, true).is_some() => {
                out.push(cond.clone());
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(&plan.condition(), &mut out);
    out
}

/// How a page's statement is shaped, where the database cannot choose for itself (see
/// `planning.rs`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PageChoices {
    /// The sort keys are kept from any index (`+` before them on SQLite, an expression on
    /// PostgreSQL), so the database finds the few objects that pass through the
    /// condition's indexes and sorts them, instead of reading a sort index in order and
    /// testing every object on the way; see [`bounded_count`].
    pub filter_first: bool,
    /// The tests of the object type are kept from the type's index (SQLite): for a type
    /// many objects have, in an order another index holds ("Updated Date"), reading that
    /// index and testing the type finds a page after a few rows, where the type's index
    /// would hand over all of them to be sorted. Also for the children of named objects,
    /// found by their parent whatever their type.
    pub types_unindexed: bool,
    /// Tags are tested with `EXISTS` per object (SQLite): SQLite builds the list of an
    /// `IN` whole before its first row, every object of a common label for a page whose
    /// other conditions pick five objects, where the probes stop with the page. A label
    /// few objects have is better as the list the page starts from.
    pub tags_per_object: bool,
    /// The page reads at most this many objects of its order, then tests them: a first
    /// try at a page whose term is too common for the text index, when the objects
    /// holding it may all come late in the order. A full page from it is the page;
    /// otherwise the page is read again through the text index.
    pub scan: Option<i64>,
}

/// The statement of a page of the plan's objects: `(model_id, object_id)` rows in order.
pub fn page(
    plan: &Plan,
    dialect: Dialect,
    page: Page,
    index: &TextIndex,
    keys: &SearchKeys,
    choices: PageChoices,
) -> Compiled {
    on_table(plan, choices.scan.is_none(), |narrow| {
        page_on(plan, dialect, page, index, keys, choices, narrow)
    })
}

/// [`page`] on the narrow table or on `objects`; with the SQL that reads the objects.
fn page_on(
    plan: &Plan,
    dialect: Dialect,
    page: Page,
    index: &TextIndex,
    keys: &SearchKeys,
    choices: PageChoices,
    narrow: bool,
) -> (Compiled, Vec<String>) {
    let mut c = Compiler::new(dialect, index);
    c.keys = keys;
    c.narrow = narrow;
    c.as_of = plan.as_of.is_some();
    c.scan = choices.scan.is_some();
    c.types_unindexed = choices.types_unindexed && dialect == Dialect::Sqlite;
    c.tags_per_object = choices.tags_per_object && dialect == Dialect::Sqlite;
    let filter_first = choices.filter_first;
    let condition = c.cond(&plan.condition(), Row::Object("o"));
    let mut order = Vec::new();
    for key in &plan.order {
        let (value, nullable) = c.sort_value(&key.field, "o");
        let value = if filter_first {
            dialect.unindexed_sort_key(&value, key.field.ty())
        } else {
            value
        };
        let direction = if key.descending { "DESC" } else { "ASC" };
        // NULLS LAST only where a NULL can occur: on a NOT NULL column it would keep
        // SQLite from reading the column's index in order.
        let nulls = if nullable { " NULLS LAST" } else { "" };
        order.push(format!("{value} {direction}{nulls}"));
    }
    // Ties in id order, in the direction of the last key: an index ending in the ids
    // serves `Updated Date DESC` read backwards.
    let ties = match plan.order.last() {
        Some(key) if key.descending => " DESC",
        _ => "",
    };
    order.push(format!("o.model_id{ties}"));
    order.push(format!("o.object_id{ties}"));
    let order = order.join(", ");
    let from = match choices.scan {
        Some(scan) => {
            let scan = c.param(SqlValue::Int(Some(scan)));
            let all = dialect.all_object_columns("o");
            format!("(SELECT {all} FROM objects o ORDER BY {order} LIMIT {scan}) o")
        }
        None if narrow => "object_search o".to_owned(),
        None => "objects o".to_owned(),
    };
    let limit = c.param(SqlValue::Int(Some(clamp(page.limit))));
    let offset = c.param(SqlValue::Int(Some(clamp(page.offset))));
    let sql = format!(
        "SELECT o.model_id, o.object_id FROM {from} WHERE {condition} ORDER BY {order} LIMIT {limit} OFFSET {offset}"
    );
    let compiled = Compiled {
        sql,
        params: c.params,
    };
    (compiled, vec![condition, order])
}

/// The statement that counts the objects satisfying `cond`, stopping after `cap + 1`:
/// a cheap way to learn whether a condition is selective. A text search is counted on
/// the narrow table, which it reads alone.
pub fn bounded_count(cond: &Cond, dialect: Dialect, cap: i64) -> Compiled {
    let mut c = Compiler::new(dialect, &TextIndex::Always);
    c.narrow = matches!(cond, Cond::Search { .. });
    let condition = c.cond(cond, Row::Object("o"));
    let limit = c.param(SqlValue::Int(Some(cap.saturating_add(1))));
    let table = table_of(c.narrow);
    Compiled {
        sql: format!(
            "SELECT COUNT(*) FROM (SELECT 1 FROM {table} o WHERE {condition} LIMIT {limit}) n"
        ),
        params: c.params,
    }
}

/// The share of a sample of the objects that passes a text search (PostgreSQL): rows
/// of (objects sampled, objects passing), from about `percent` of the narrow table's
/// pages picked at random (the same ones each time).
pub fn sampled_share(cond: &Cond, dialect: Dialect, percent: f64) -> Option<Compiled> {
    if dialect != Dialect::Postgres || !matches!(cond, Cond::Search { .. }) {
        return None;
    }
    let mut c = Compiler::new(dialect, &TextIndex::Always);
    c.narrow = true;
    let condition = c.cond(cond, Row::Object("o"));
    let percent = c.param(SqlValue::Real(Some(percent)));
    Some(Compiled {
        sql: format!(
            "SELECT COUNT(*), COUNT(*) FILTER (WHERE {condition}) \
             FROM object_search o TABLESAMPLE SYSTEM (CAST({percent} AS REAL)) REPEATABLE (1)"
        ),
        params: c.params,
    })
}

/// The statement that counts the plan's objects: one row, one column.
pub fn count(plan: &Plan, dialect: Dialect, keys: &SearchKeys) -> Compiled {
    on_table(plan, true, |narrow| {
        let mut c = Compiler::new(dialect, &TextIndex::Always);
        c.keys = keys;
        c.narrow = narrow;
        c.as_of = plan.as_of.is_some();
        let condition = c.cond(&plan.condition(), Row::Object("o"));
        let table = table_of(narrow);
        let compiled = Compiled {
            sql: format!("SELECT COUNT(*) FROM {table} o WHERE {condition}"),
            params: c.params,
        };
        (compiled, vec![condition])
    })
}

/// The columns of `object_search` (migration 25): what the count, facets and page of a
/// text search read of the objects it finds, in a narrow row per object (under the
/// object's rowid on SQLite).
const NARROW_COLUMNS: &[&str] = &[
    "rowid",
    "model_id",
    "object_id",
    "kind",
    "name",
    "physical_name",
    "type_name",
    "data_type",
    "form",
];

/// A statement about the plan's objects `o`, read from the narrow `object_search`
/// (migration 25) when it can be (`may_narrow`, and see below), else from `objects`.
/// `build` compiles it on either (`true`: the narrow table), with the SQL in which it
/// reads the objects.
///
/// The narrow table serves when the plan requires a text search (its index gives the
/// objects: SQLite's FTS5 table by rowid, PostgreSQL's trigram index of the narrow
/// table itself), the caller sees everything (a restricted caller's objects are found
/// by model, which only `objects` indexes), and the statement reads no other column of
/// the objects. A broad term's 40,000 objects are then read from a third of the pages.
fn on_table(
    plan: &Plan,
    may_narrow: bool,
    build: impl Fn(bool) -> (Compiled, Vec<String>),
) -> Compiled {
    // The narrow table holds today's objects only.
    if may_narrow
        && plan.as_of.is_none()
        && matches!(plan.visibility, Cond::True)
        && !required_searches(plan).is_empty()
    {
        let (compiled, reads) = build(true);
        let columns = reads.iter().flat_map(|sql| columns_of(sql, "o"));
        if columns.into_iter().all(|c| NARROW_COLUMNS.contains(&c)) {
            return compiled;
        }
    }
    build(false).0
}

/// The table [`on_table`] reads.
fn table_of(narrow: bool) -> &'static str {
    if narrow { "object_search" } else { "objects" }
}

/// The columns of the row `alias` that `sql` names (`alias.column`, the alias not part
/// of a longer name); `*` for `alias.*`.
fn columns_of<'s>(sql: &'s str, alias: &str) -> Vec<&'s str> {
    let word = |c: char| c.is_ascii_alphanumeric() || c == '_';
    let prefix = format!("{alias}.");
    sql.match_indices(prefix.as_str())
        .filter(|(at, _)| {
            !sql[..*at]
                .chars()
                .next_back()
                .is_some_and(|c| word(c) || c == '.' || c == '"')
        })
        .map(|(at, _)| {
            let rest = &sql[at + prefix.len()..];
            match rest.find(|c: char| !word(c)).unwrap_or(rest.len()) {
                0 => &rest[..rest.len().min(1)],
                end => &rest[..end],
            }
        })
        .collect()
}

/// The statement that counts the values of a facet among the plan's objects: rows of
/// (value, count), most frequent first, then by value.
pub fn value_counts(
    plan: &Plan,
    dialect: Dialect,
    keys: &SearchKeys,
    facet: &Facet,
    limit: u64,
) -> Compiled {
    let mut c = Compiler::new(dialect, &TextIndex::Always);
    c.keys = keys;
    c.as_of = plan.as_of.is_some();
    let condition = c.cond(&plan.condition(), Row::Object("o"));
    let sql = c.facet_counts("objects o", &condition, false, facet, limit);
    Compiled {
        sql,
        params: c.params,
    }
}

/// The statement that counts the values of several facets among the plan's objects,
/// finding the objects once (a text search, the caller's sight) for all of them: rows
/// of (facet's position, count, then one value column per facet, that facet's value in
/// its own column and NULL in the others), by facet, then as [`value_counts`] orders
/// them.
pub fn facets_counts(
    plan: &Plan,
    dialect: Dialect,
    keys: &SearchKeys,
    facets: &[&Facet],
    limit: u64,
) -> Compiled {
    on_table(plan, true, |narrow| {
        facets_counts_on(plan, dialect, keys, facets, limit, narrow)
    })
}

/// [`facets_counts`] on the narrow table or on `objects`; with the SQL that reads the
/// objects.
fn facets_counts_on(
    plan: &Plan,
    dialect: Dialect,
    keys: &SearchKeys,
    facets: &[&Facet],
    limit: u64,
    narrow: bool,
) -> (Compiled, Vec<String>) {
    let mut c = Compiler::new(dialect, &TextIndex::Always);
    c.keys = keys;
    c.narrow = narrow;
    c.as_of = plan.as_of.is_some();
    let condition = c.cond(&plan.condition(), Row::Object("o"));
    let all = dialect.all_object_columns("o");
    let values: Vec<String> = (0..facets.len()).map(|i| format!("v{i}")).collect();
    let mut parts = Vec::with_capacity(facets.len());
    let mut counted = Vec::with_capacity(facets.len());
    for facet in facets {
        counted.push(c.facet_counts("hits o", "1 = 1", true, facet, limit));
    }
    let table = table_of(narrow);
    // The hits keep the columns the facets read, and the ids (a wide row copied 40,000
    // times is most of a broad term's facets).
    let mut kept = vec!["model_id", "object_id"];
    for column in counted.iter().flat_map(|sql| columns_of(sql, "o")) {
        if !kept.contains(&column) {
            kept.push(column);
        }
    }
    let all = if kept.contains(&"*") {
        all
    } else {
        kept.iter()
            .map(|c| format!("o.{c} AS {c}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    for (i, counts) in counted.iter().enumerate() {
        let columns: Vec<String> = values
            .iter()
            .enumerate()
            .map(|(j, name)| {
                if i == j {
                    format!("v AS {name}")
                } else {
                    // PostgreSQL matches a UNION's types pair by pair, left to right.
                    let facet = facets[j];
                    let ty = facet.gap.map_or(facet.field.ty(), |_| FieldType::Text);
                    format!("{} AS {name}", dialect.null_of(ty))
                }
            })
            .collect();
        // The rank in the facet's own order, before the UNION mixes its types and
        // collations.
        parts.push(format!(
            "SELECT {i} AS f, ROW_NUMBER() OVER (ORDER BY n DESC, v) AS r, n, {} FROM ({counts}) x{i}",
            columns.join(", ")
        ));
    }
    let compiled = Compiled {
        sql: format!(
            "WITH hits AS MATERIALIZED (SELECT {all} FROM {table} o WHERE {condition}) \
             SELECT f, n, {values} FROM ({parts}) counted ORDER BY f, r",
            values = values.join(", "),
            parts = parts.join(" UNION ALL "),
        ),
        params: c.params,
    };
    counted.push(condition);
    (compiled, counted)
}

impl Compiler<'_> {
    /// The statement that counts the values of a facet among the objects `o` of `from`
    /// that pass `condition`: rows of (value, count), most frequent first, then by value.
    /// `per_object`: the objects are few (a statement's hits), so rows of other tables
    /// are read for each of them rather than joined whole.
    fn facet_counts(
        &mut self,
        from: &str,
        condition: &str,
        per_object: bool,
        facet: &Facet,
        limit: u64,
    ) -> String {
        let rows = self.facet_rows(from, condition, per_object, facet);
        let limit = self.param(SqlValue::Int(Some(clamp(limit))));
        format!("{rows} ORDER BY n DESC, v LIMIT {limit}")
    }

    /// [`Self::facet_counts`] unordered and whole: rows of (value `v`, count `n`).
    fn facet_rows(
        &mut self,
        from: &str,
        condition: &str,
        per_object: bool,
        facet: &Facet,
    ) -> String {
        let c = self;
        let dialect = c.dialect;
        let (join, row) = match facet.relation {
        None => (String::new(), Row::Object("o")),
        Some(Relation::Parent) => (
            "JOIN objects r ON r.model_id = CASE WHEN o.parent IS NULL THEN -1 ELSE o.model_id END \
             AND r.object_id = COALESCE(o.parent, o.model_id) AND (o.parent IS NOT NULL OR o.model_id <> -1)"
                .to_owned(),
            Row::Object("r"),
        ),
        Some(Relation::Children) => {
            let model = c.text(ObjectKind::Model.as_str());
            (
                format!(
                    "JOIN objects r ON ((o.kind <> {model} AND r.model_id = o.model_id AND r.parent = o.object_id) \
                     OR (o.kind = {model} AND r.model_id = o.object_id AND r.parent IS NULL))"
                ),
                Row::Object("r"),
            )
        }
        Some(Relation::DataClasses(statuses)) => {
            let statuses = c.statuses(statuses);
            (
                format!(
                    "JOIN classifications rc ON rc.model_id = o.model_id AND rc.object_id = o.object_id \
                     AND rc.status IN ({statuses}) JOIN data_classes r ON r.name = rc.data_class"
                ),
                Row::DataClass("r"),
            )
        }
    };
        // One row per object and value: an object's own column, or its parent's, comes
        // once per object; children, data classes and multi-valued fields may repeat.
        let mut one_per_object = matches!(facet.relation, None | Some(Relation::Parent));
        let (join, value) = match c.source(&facet.field, row) {
            None => (join, "NULL".to_owned()),
            Some(Source::Expr { sql, .. }) => (join, sql),
            Some(Source::Rows {
                key, from, value, ..
            }) => {
                let Row::Object(r) = row else {
                    return "SELECT NULL AS v, 0 AS n WHERE 1 = 0".to_owned();
                };
                one_per_object = false;
                let rows = format!(
                    "SELECT {} AS model_id, {} AS object_id, {value} AS v FROM {from}",
                    key.0, key.1
                );
                let rows = if per_object {
                    dialect.join_rows_per_object(&rows, r)
                } else {
                    format!(
                        "JOIN ({rows}) fv ON fv.model_id = {r}.model_id AND fv.object_id = {r}.object_id"
                    )
                };
                (format!("{join} {rows}"), "fv.v".to_owned())
            }
        };
        let value = match facet.gap {
            Some(gap) => dialect.date_label(&value, gap),
            None => value,
        };
        let hidden = match (&facet.hidden, row) {
            (Cond::False, _) | (_, Row::DataClass(_)) => String::new(),
            (hidden, Row::Object(_)) => format!(" AND ({}) IS NOT TRUE", c.cond(hidden, row)),
        };
        let rows = if one_per_object {
            format!("{value} AS v")
        } else {
            format!("DISTINCT o.model_id, o.object_id, {value} AS v")
        };
        format!(
            "SELECT v, COUNT(*) AS n FROM (SELECT {rows} \
         FROM {from} {join} WHERE ({condition}) AND {value} IS NOT NULL{hidden}) x \
         GROUP BY v"
        )
    }
}

fn clamp(n: u64) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
}

/// The row a condition is compiled on: an object or a data class, by alias.
#[derive(Debug, Clone, Copy)]
enum Row<'a> {
    Object(&'a str),
    DataClass(&'a str),
}

/// Where a field's values come from.
enum Source {
    /// An expression of the row; `nullable` when it may be NULL.
    Expr { sql: String, nullable: bool },
    /// Rows of another table: `SELECT model_id, object_id` of the objects whose values
    /// pass, with `value` the value column and `from` the rest after `FROM`.
    Rows {
        key: (String, String),
        from: String,
        value: String,
        /// The value folded as MQL compares text, where the table holds it so (and
        /// indexes it), and the rows that suffice to test it on: tags' `value_fold`,
        /// on the first tag of each group folding alike (migration 21).
        folded: Option<(String, String)>,
    },
}

struct Compiler<'i> {
    dialect: Dialect,
    index: &'i TextIndex,
    /// See [`SearchKeys`].
    keys: &'i SearchKeys,
    params: Vec<SqlValue>,
    aliases: usize,
    /// Test what hangs on an object with `EXISTS` per object, not `IN` over the whole
    /// table: for conditions only a few objects are tested on (the repository's, in the
    /// tally and tag statements), where reading every tag of a label once would cost
    /// more than all the probes.
    per_object: bool,
    /// See [`PageChoices`].
    types_unindexed: bool,
    tags_per_object: bool,
    /// The statement reads the objects `o` from the narrow `object_search` (see
    /// [`on_table`]): a text search tests their `form`. Otherwise PostgreSQL finds the
    /// objects through the narrow table's index, unless `scan`.
    narrow: bool,
    /// The statement tests a bounded number of objects `o` read in order
    /// ([`PageChoices::scan`]): PostgreSQL tests a text search on their names.
    scan: bool,
    /// The statement reads the catalog as of a version ([`Plan::as_of`], see
    /// `as_of.rs`): a text search is tested on each object, as no text index holds the
    /// past.
    as_of: bool,
}

impl<'i> Compiler<'i> {
    fn new(dialect: Dialect, index: &'i TextIndex) -> Self {
        Self {
            dialect,
            index,
            keys: &NO_KEYS,
            params: Vec::new(),
            aliases: 0,
            per_object: false,
            types_unindexed: false,
            tags_per_object: false,
            narrow: false,
            scan: false,
            as_of: false,
        }
    }

    /// A compiler for conditions tested on a few objects ([`Compiler::per_object`]).
    fn per_object(dialect: Dialect) -> Compiler<'static> {
        Compiler {
            per_object: true,
            ..Compiler::new(dialect, &TextIndex::Always)
        }
    }

    fn param(&mut self, value: SqlValue) -> String {
        self.params.push(value);
        format!("${}", self.params.len())
    }

    fn text(&mut self, text: &str) -> String {
        self.param(SqlValue::Text(Some(text.to_owned())))
    }

    fn alias(&mut self, prefix: &str) -> String {
        self.aliases += 1;
        format!("{prefix}{}", self.aliases)
    }

    /// The expression folded like [`lore_core::mql::plan::fold`]: ASCII letters lowered.
    fn fold(&self, expr: &str) -> String {
        self.dialect.fold(expr)
    }

    fn cond(&mut self, cond: &Cond, row: Row<'_>) -> String {
        match cond {
            Cond::True => "1 = 1".to_owned(),
            Cond::False => "1 = 0".to_owned(),
            Cond::And(items) => self.join(items, " AND ", row),
            Cond::Or(items) => self.join(items, " OR ", row),
            // Every condition is TRUE or FALSE, so this is NOT; SQLite runs
            // `NOT (row value IN (subquery))` as a scan of the subquery per row, and
            // `... IS NOT TRUE` with the subquery's result built once.
            Cond::Not(inner) => format!("({}) IS NOT TRUE", self.cond(inner, row)),
            Cond::Test(Field::Column(column), Test::Contains(text)) => {
                self.search(std::slice::from_ref(column), text, row, false)
            }
            Cond::Test(field @ Field::Column(Column::TypeName), test) if self.types_unindexed => {
                format!("+({})", self.test(field, Some(test), row))
            }
            Cond::Test(field, test) => self.test(field, Some(test), row),
            Cond::Has(field) => self.test(field, None, row),
            Cond::Search { columns, text } => self.search(columns, text, row, true),
            Cond::Related(relation, inner) => self.related(*relation, inner, row),
            Cond::Ids(ids) => {
                let (Row::Object(o), false) = (row, ids.is_empty()) else {
                    return "1 = 0".to_owned();
                };
                // One IN list per model: flat, however many ids.
                let mut by_model: std::collections::BTreeMap<i64, Vec<i64>> = Default::default();
                for id in ids {
                    by_model.entry(id.model).or_default().push(id.object);
                }
                let parts: Vec<String> = by_model
                    .into_iter()
                    .map(|(model, objects)| {
                        let m = self.param(SqlValue::Int(Some(model)));
                        let list = self.int_list(&objects);
                        format!("({o}.model_id = {m} AND {o}.object_id IN ({list}))")
                    })
                    .collect();
                format!("({})", parts.join(" OR "))
            }
            Cond::Kinds(kinds) => {
                let Row::Object(o) = row else {
                    return "1 = 0".to_owned();
                };
                let list: Vec<String> = kinds.iter().map(|k| self.text(k.as_str())).collect();
                format!("{o}.kind IN ({})", list.join(", "))
            }
            Cond::Within(within) => match row {
                Row::Object(o) => self.within(within, o),
                Row::DataClass(_) => "1 = 0".to_owned(),
            },
            Cond::Edge {
                kind,
                name,
                outgoing,
            } => {
                let Row::Object(o) = row else {
                    return "1 = 0".to_owned();
                };
                let e = self.alias("e");
                let (this, _) = if *outgoing {
                    ("source", "target")
                } else {
                    ("target", "source")
                };
                let kind = self.text(kind.as_str());
                let name = match name {
                    Some(n) => format!(" AND {e}.name = {}", self.text(n)),
                    None => String::new(),
                };
                format!(
                    "EXISTS (SELECT 1 FROM edges {e} WHERE {e}.{this}_model = {o}.model_id AND {e}.{this}_object = {o}.object_id AND {e}.kind = {kind}{name})"
                )
            }
            Cond::DataHidden => {
                let Row::Object(o) = row else {
                    return "1 = 0".to_owned();
                };
                let (c, d, l, s) = (
                    self.alias("c"),
                    self.alias("d"),
                    self.alias("l"),
                    self.alias("s"),
                );
                let matched = self.text(ClassificationStatus::Matched.as_str());
                let approved = self.text(ClassificationStatus::Approved.as_str());
                format!(
                    "({o}.hide_data \
                     OR EXISTS (SELECT 1 FROM classifications {c} JOIN data_classes {d} ON {d}.name = {c}.data_class \
                     WHERE {c}.model_id = {o}.model_id AND {c}.object_id = {o}.object_id AND {c}.status IN ({matched}, {approved}) AND {d}.hide_data) \
                     OR EXISTS (SELECT 1 FROM label_assignments {l} JOIN sensitivity_labels {s} ON {s}.name = {l}.label \
                     WHERE {l}.model_id = {o}.model_id AND {l}.object_id = {o}.object_id AND {l}.status IN ({matched}, {approved}) AND {s}.hide_data))"
                )
            }
        }
    }

    fn join(&mut self, items: &[Cond], with: &str, row: Row<'_>) -> String {
        let parts: Vec<String> = items
            .iter()
            .map(|c| format!("({})", self.cond(c, row)))
            .collect();
        parts.join(with)
    }

    fn within(&mut self, within: &Within, o: &str) -> String {
        let mut parts = Vec::new();
        if !within.models.is_empty() {
            let models = self.int_list(&within.models);
            let model = self.text(ObjectKind::Model.as_str());
            parts.push(format!("{o}.model_id IN ({models})"));
            parts.push(format!(
                "({o}.model_id = -1 AND {o}.kind = {model} AND {o}.object_id IN ({models}))"
            ));
        }
        if !within.subtrees.is_empty() {
            let pairs: Vec<[i64; 2]> = within
                .subtrees
                .iter()
                .map(|r| [r.model, r.object])
                .collect();
            let json = serde_json::to_string(&pairs).unwrap_or_else(|_| "[]".to_owned());
            self.params.push(SqlValue::Text(Some(json)));
            let roots = self.dialect.id_pairs(self.params.len());
            let (sub, c) = (self.alias("sub"), self.alias("c"));
            // UNION, not UNION ALL: a cycle in stored parents cannot run forever.
            parts.push(format!(
                "({o}.model_id, {o}.object_id) IN (WITH RECURSIVE {sub}(model_id, object_id) AS \
                 (SELECT model_id, object_id FROM ({roots}) r UNION SELECT {c}.model_id, {c}.object_id FROM objects {c} \
                 JOIN {sub} ON {c}.model_id = {sub}.model_id AND {c}.parent = {sub}.object_id) \
                 SELECT model_id, object_id FROM {sub})"
            ));
        }
        if parts.is_empty() {
            return "1 = 0".to_owned();
        }
        format!("({})", parts.join(" OR "))
    }

    /// A list of integers as parameters (or, when long, one JSON parameter).
    fn int_list(&mut self, values: &[i64]) -> String {
        if values.len() <= 100 {
            let params: Vec<String> = values
                .iter()
                .map(|v| self.param(SqlValue::Int(Some(*v))))
                .collect();
            return params.join(", ");
        }
        let json = serde_json::to_string(values).unwrap_or_else(|_| "[]".to_owned());
        self.params.push(SqlValue::Text(Some(json)));
        self.dialect.json_integers(self.params.len())
    }

    fn related(&mut self, relation: Relation, inner: &Cond, row: Row<'_>) -> String {
        let Row::Object(o) = row else {
            return "1 = 0".to_owned();
        };
        match relation {
            // Both as one IN over the objects whose related objects pass, so the
            // database can start from the related objects (a selective name) or from
            // the objects, as it costs least ([`Dialect::related_key`]).
            Relation::Parent => {
                let (c1, p1, c2, p2) = (
                    self.alias("c"),
                    self.alias("p"),
                    self.alias("c"),
                    self.alias("p"),
                );
                let inner1 = self.cond(inner, Row::Object(&p1));
                let inner2 = self.cond(inner, Row::Object(&p2));
                let key = self.dialect.related_key(o);
                let c1_key = self.dialect.related_key_columns(&c1);
                let c2_key = self.dialect.related_key_columns(&c2);
                format!(
                    "{key} IN (\
                     SELECT {c1_key} FROM objects {c1} WHERE ({c1}.model_id, {c1}.parent) IN \
                     (SELECT {p1}.model_id, {p1}.object_id FROM objects {p1} WHERE {inner1}) \
                     UNION ALL SELECT {c2_key} FROM objects {c2} \
                     WHERE {c2}.parent IS NULL AND {c2}.model_id <> -1 AND {c2}.model_id IN \
                     (SELECT {p2}.object_id FROM objects {p2} WHERE {p2}.model_id = -1 AND {inner2}))"
                )
            }
            Relation::Children => {
                let (ch1, ch2, m) = (self.alias("ch"), self.alias("ch"), self.alias("m"));
                let inner1 = self.cond(inner, Row::Object(&ch1));
                let inner2 = self.cond(inner, Row::Object(&ch2));
                let model = self.text(ObjectKind::Model.as_str());
                // A model's children are its top-level objects, not repository objects.
                let parents = format!(
                    "SELECT {ch1}.model_id, {ch1}.parent FROM objects {ch1} WHERE {ch1}.parent IS NOT NULL AND ({inner1}) \
                     AND ({ch1}.model_id <> -1 OR {ch1}.parent NOT IN \
                     (SELECT {m}.object_id FROM objects {m} WHERE {m}.model_id = -1 AND {m}.kind = {model}))"
                );
                // The top-level objects that pass, whose model's repository object is
                // the parent.
                let top = format!(
                    "FROM objects {ch2} WHERE {ch2}.parent IS NULL AND {ch2}.model_id <> -1 AND ({inner2})"
                );
                match self.dialect {
                    Dialect::Postgres => format!(
                        "({o}.model_id, {o}.object_id) IN ({parents} UNION ALL SELECT -1, {ch2}.model_id {top})"
                    ),
                    Dialect::Sqlite => {
                        let (k1, k2) = (self.alias("k"), self.alias("k"));
                        format!(
                            "{o}.rowid IN (SELECT {k1}.rowid FROM objects {k1} WHERE ({k1}.model_id, {k1}.object_id) IN ({parents}) \
                             UNION ALL SELECT {k2}.rowid FROM objects {k2} WHERE {k2}.model_id = -1 AND {k2}.object_id IN \
                             (SELECT {ch2}.model_id {top}))"
                        )
                    }
                }
            }
            Relation::DataClasses(statuses) => {
                let (c, d) = (self.alias("c"), self.alias("d"));
                let statuses = self.statuses(statuses);
                let inner = self.cond(inner, Row::DataClass(&d));
                let from = format!(
                    "classifications {c} JOIN data_classes {d} ON {d}.name = {c}.data_class \
                     WHERE {c}.status IN ({statuses}) AND ({inner})"
                );
                format!(
                    "({o}.model_id, {o}.object_id) IN (SELECT {c}.model_id, {c}.object_id FROM {from})"
                )
            }
        }
    }

    /// Some of the columns contains the text: in its search form for a text search
    /// (`search_form`), as it is for `CONTAINS`. Tested on each column, after a first
    /// narrowing by the text indexes where they serve it: SQLite's when [`TextIndex`]
    /// says so; PostgreSQL's index of both columns' search forms, joined
    /// (`lore_search_text()`, migration 23), always (its planner chooses between the
    /// index and a scan).
    fn search(
        &mut self,
        columns: &[Column],
        text: &str,
        row: Row<'_>,
        search_form: bool,
    ) -> String {
        if self.as_of {
            return self.search_exactly(columns, text, row, search_form);
        }
        let candidate = indexable(columns, text, search_form);
        // A term in the search form of Name or Physical Name is in their joined forms
        // (the narrow table's `form`, migration 25), and only then.
        let both = search_form
            && [Column::Name, Column::PhysicalName]
                .iter()
                .all(|c| columns.contains(c));
        if let (Some(search), Dialect::Postgres, Row::Object(o)) = (&candidate, self.dialect, row) {
            // The index is the narrow table's: its own row is tested, so is an object
            // read in order; other objects are found through it by key. A key (a word of
            // the term far rarer than the others) is looked up in the index in its
            // place, and the term tested exactly after it.
            let in_order = self.scan && o == "o";
            let key = self
                .keys
                .of(search)
                .filter(|_| !in_order)
                .map(str::to_owned);
            let test = |c: &mut Self, form: &str| match &key {
                Some(key) => {
                    let key = c.text(&c.dialect.contains_operand(key));
                    let term = c.text(&search.form);
                    format!("{form} LIKE {key} AND strpos({form}, {term}) > 0")
                }
                None => {
                    let operand = c.text(&c.dialect.contains_operand(&search.form));
                    c.dialect.contains(form, &operand)
                }
            };
            let found = if self.narrow && o == "o" {
                test(self, "o.form")
            } else if in_order {
                test(self, "lore_search_text(o.name, o.physical_name)")
            } else {
                let n = self.alias("s");
                let found = test(self, &format!("{n}.form"));
                format!(
                    "({o}.model_id, {o}.object_id) IN (SELECT {n}.model_id, {n}.object_id \
                     FROM object_search {n} WHERE {found})"
                )
            };
            if both {
                return found;
            }
            let exact = self.search_exactly(columns, text, row, search_form);
            return format!("{found} AND ({exact})");
        }
        let joined = matches!(row, Row::Object("o")) && self.narrow && both;
        let exact = match &candidate {
            Some(search) if joined && self.dialect == Dialect::Sqlite => {
                let operand = self.text(&self.dialect.contains_operand(&search.form));
                self.dialect.contains("o.form", &operand)
            }
            _ => self.search_exactly(columns, text, row, search_form),
        };
        let (Some(search), Dialect::Sqlite) = (candidate, self.dialect) else {
            return exact;
        };
        let Row::Object(o) = row else {
            return exact;
        };
        let use_index = match self.index {
            TextIndex::Always => true,
            TextIndex::Only(chosen) => chosen.contains(&search),
        };
        if !use_index {
            return exact;
        }
        let query = match self.keys.of(&search) {
            Some(key) => search.fts_query_of(key),
            None => search.fts_query(),
        };
        let query = self.text(&query);
        format!(
            "{o}.rowid IN (SELECT rowid FROM objects_search WHERE objects_search MATCH {query}) AND ({exact})"
        )
    }

    /// Some of the columns contains the text, tested on each (see [`Self::search`]).
    fn search_exactly(
        &mut self,
        columns: &[Column],
        text: &str,
        row: Row<'_>,
        search_form: bool,
    ) -> String {
        let exact: Vec<String> = columns
            .iter()
            .map(|c| {
                let test = if search_form {
                    self.search_column(*c, text, row)
                } else {
                    let contains = Test::Contains(text.to_owned());
                    self.test(&Field::Column(*c), Some(&contains), row)
                };
                format!("({test})")
            })
            .collect();
        if exact.is_empty() {
            "1 = 0".to_owned()
        } else {
            exact.join(" OR ")
        }
    }

    /// The column contains the text (a search term, or the search form of the text of
    /// `CONTAINS`) in its search form ([`lore_core::mql::plan::search_form`]); never
    /// NULL. See [`Dialect::search_form_contains`]; SQLite finds the objects through its
    /// text index first ([`Self::search`]).
    fn search_column(&mut self, column: Column, text: &str, row: Row<'_>) -> String {
        let Some(Source::Expr { sql, nullable }) = self.source(&Field::Column(column), row) else {
            return "1 = 0".to_owned();
        };
        let operand = self.text(&self.dialect.contains_operand(text));
        self.dialect.search_form_contains(&sql, nullable, &operand)
    }

    fn statuses(&mut self, statuses: ClassStatuses) -> String {
        let list: Vec<String> = statuses
            .statuses()
            .into_iter()
            .map(|s| self.text(s.as_str()))
            .collect();
        list.join(", ")
    }

    /// Some value of the field passes the test (`None`: the field has a value).
    fn test(&mut self, field: &Field, test: Option<&Test>, row: Row<'_>) -> String {
        let ty = field.ty();
        match self.source(field, row) {
            None => "1 = 0".to_owned(),
            Some(Source::Expr { sql, nullable }) => {
                let present = nullable.then(|| format!("{sql} IS NOT NULL"));
                let pass = test.map(|t| self.pass(&sql, ty, t));
                match (present, pass) {
                    (Some(p), Some(t)) => format!("{p} AND {t}"),
                    (Some(p), None) => p,
                    (None, Some(t)) => t,
                    (None, None) => "1 = 1".to_owned(),
                }
            }
            Some(Source::Rows {
                key,
                from,
                value,
                folded,
            }) => {
                let Row::Object(o) = row else {
                    return "1 = 0".to_owned();
                };
                let mut present = format!(" AND {value} IS NOT NULL");
                let mut pass = match (test, folded) {
                    // The literals are folded already; the folded value is never NULL.
                    (Some(t), Some((folded, rows))) if ty == FieldType::Text => {
                        present.clear();
                        let pass = self.pass(&folded, FieldType::ExactText, t);
                        format!(" AND {rows} AND {pass}")
                    }
                    (Some(t), _) => format!(" AND {}", self.pass(&value, ty, t)),
                    (None, _) => String::new(),
                };
                if let (Field::Attribute { .. }, Some(t)) = (field, test)
                    && let Some(prefix) = self.text_prefix(&value, ty, t)
                {
                    pass.push_str(" AND ");
                    pass.push_str(&prefix);
                }
                if self.per_object || (self.tags_per_object && matches!(field, Field::Tags(_))) {
                    return format!(
                        "EXISTS (SELECT 1 FROM {from} AND {} = {o}.model_id AND {} = {o}.object_id{present}{pass})",
                        key.0, key.1
                    );
                }
                format!(
                    "({o}.model_id, {o}.object_id) IN (SELECT {}, {} FROM {from}{present}{pass})",
                    key.0, key.1
                )
            }
        }
    }

    /// For an attribute's text compared by equality: the same test on the folded first
    /// 256 characters, which the index `attribute_values_text_fold` (migration 18)
    /// serves. It only narrows: [`Self::pass`] still tests the whole value.
    fn text_prefix(&mut self, value: &str, ty: FieldType, test: &Test) -> Option<String> {
        if ty != FieldType::Text {
            return None;
        }
        let lits = match test {
            Test::Eq(lit) => std::slice::from_ref(lit),
            Test::In(lits) => lits.as_slice(),
            _ => return None,
        };
        let mut list = Vec::with_capacity(lits.len());
        for lit in lits {
            let Lit::Text(text) = lit else { return None };
            list.push(format!("substr({}, 1, 256)", self.text(text)));
        }
        let prefix = self.fold(&format!("substr({value}, 1, 256)"));
        Some(format!("{prefix} IN ({})", list.join(", ")))
    }

    /// The expression that holds when `value` (not NULL) passes the test.
    fn pass(&mut self, value: &str, ty: FieldType, test: &Test) -> String {
        let value = if ty == FieldType::Text {
            self.fold(value)
        } else {
            value.to_owned()
        };
        match test {
            Test::Eq(lit) => format!("{value} = {}", self.lit(lit)),
            Test::In(lits) => {
                let list: Vec<String> = lits.iter().map(|l| self.lit(l)).collect();
                format!("{value} IN ({})", list.join(", "))
            }
            Test::Range { low, high } => {
                let mut parts = Vec::new();
                if let Some((lit, inclusive)) = low {
                    let op = if *inclusive { ">=" } else { ">" };
                    parts.push(format!("{value} {op} {}", self.lit(lit)));
                }
                if let Some((lit, inclusive)) = high {
                    let op = if *inclusive { "<=" } else { "<" };
                    parts.push(format!("{value} {op} {}", self.lit(lit)));
                }
                if parts.is_empty() {
                    "1 = 1".to_owned()
                } else {
                    parts.join(" AND ")
                }
            }
            Test::StartsWith(s) if s.is_empty() => "1 = 1".to_owned(),
            Test::EndsWith(s) if s.is_empty() => "1 = 1".to_owned(),
            Test::Contains(s) if s.is_empty() => "1 = 1".to_owned(),
            Test::StartsWith(s) => {
                let n = s.chars().count();
                format!("substr({value}, 1, {n}) = {}", self.text(s))
            }
            Test::EndsWith(s) => {
                let tail = self.dialect.text_tail(&value, s.chars().count());
                format!("{tail} = {}", self.text(s))
            }
            Test::Contains(s) => {
                let operand = self.text(&self.dialect.contains_operand(s));
                self.dialect.contains(&value, &operand)
            }
        }
    }

    fn lit(&mut self, lit: &Lit) -> String {
        match lit {
            Lit::Text(t) => self.text(t),
            Lit::Integer(i) => self.param(SqlValue::Int(Some(*i))),
            Lit::Double(d) => self.param(SqlValue::Real(Some(*d))),
            Lit::Boolean(b) => self.param(SqlValue::Bool(Some(*b))),
            Lit::Time(t) => self.param(SqlValue::Int(Some(*t))),
        }
    }

    /// The value of a single-valued field to sort on.
    /// The value of a single-valued field to sort on, and whether it may be NULL.
    fn sort_value(&mut self, field: &Field, o: &str) -> (String, bool) {
        match self.source(field, Row::Object(o)) {
            None => ("NULL".to_owned(), true),
            Some(Source::Expr { sql, nullable }) => (sql, nullable),
            Some(Source::Rows {
                key, from, value, ..
            }) => (
                format!(
                    "(SELECT {value} FROM {from} AND {} = {o}.model_id AND {} = {o}.object_id LIMIT 1)",
                    key.0, key.1
                ),
                true,
            ),
        }
    }

    /// Where the field's values come from on the row; `None` when the row has none.
    fn source(&mut self, field: &Field, row: Row<'_>) -> Option<Source> {
        let o = match row {
            Row::Object(o) => o,
            Row::DataClass(d) => {
                return match field {
                    Field::ClassName => Some(expr(format!("{d}.name"), false)),
                    Field::ClassDescription => Some(expr(format!("{d}.description"), false)),
                    _ => None,
                };
            }
        };
        Some(match field {
            Field::Column(column) => self.column(*column, o),
            Field::Tags(kind) => {
                let t = self.alias("t");
                let kind = self.text(kind.as_str());
                Source::Rows {
                    key: (format!("{t}.model_id"), format!("{t}.object_id")),
                    from: format!("tags {t} WHERE {t}.kind = {kind}"),
                    value: format!("{t}.value"),
                    folded: Some((format!("{t}.value_fold"), format!("{t}.fold_first"))),
                }
            }
            Field::Labels(set) => self.labels(set, o),
            Field::Attribute { name, ty } => {
                let a = self.alias("a");
                let column = match ty {
                    FieldType::Text | FieldType::ExactText => "text_value",
                    FieldType::Integer => "integer_value",
                    FieldType::Double => "double_value",
                    FieldType::Boolean => "boolean_value",
                    FieldType::Time => "datetime_value",
                };
                let name = self.text(name);
                rows(
                    &a,
                    format!("attribute_values {a} WHERE {a}.attribute = {name}"),
                    format!("{a}.{column}"),
                )
            }
            Field::Statistic(statistic) => {
                let p = self.alias("p");
                let value = self.dialect.json_number(
                    &format!("{p}.profile"),
                    "statistics",
                    statistic.key(),
                    statistic.ty() == FieldType::Integer,
                );
                rows(&p, format!("profiling {p} WHERE 1 = 1"), value)
            }
            Field::InferredDataTypes => {
                let (p, j) = (self.alias("p"), self.alias("j"));
                let profile = format!("{p}.profile");
                let keys = self
                    .dialect
                    .json_object_keys(&profile, "inferredDataTypes", &j);
                let from = format!("profiling {p}, {keys} WHERE 1 = 1");
                let value = self.dialect.bytewise(&format!("{j}.key"));
                rows(&p, from, value)
            }
            Field::Profiling(part) => {
                let p = self.alias("p");
                let profile = format!("{p}.profile");
                let present = match part {
                    ProfilingPart::Profile => format!("{profile} IS NOT NULL"),
                    ProfilingPart::Sample => format!("{p}.sample IS NOT NULL"),
                    ProfilingPart::Histogram => {
                        self.dialect.json_array_not_empty(&profile, "histogram")
                    }
                    ProfilingPart::Statistics => {
                        self.dialect.json_object_not_empty(&profile, "statistics")
                    }
                };
                rows(&p, format!("profiling {p} WHERE {present}"), "1".to_owned())
            }
            Field::ClassName | Field::ClassDescription => return None,
            Field::Curators(kind) => {
                let (c, u) = (self.alias("c"), self.alias("u"));
                let kind = self.text(kind.as_str());
                rows(
                    &c,
                    format!(
                        "curation {c} JOIN users {u} ON {u}.model_id = {c}.user_model AND {u}.object_id = {c}.user_object WHERE {c}.kind = {kind}"
                    ),
                    format!("{u}.name"),
                )
            }
            Field::CurationCount(kind) => {
                let c = self.alias("c");
                let kind = self.text(kind.as_str());
                expr(
                    format!(
                        "(SELECT COUNT(*) FROM curation {c} WHERE {c}.model_id = {o}.model_id AND {c}.object_id = {o}.object_id AND {c}.kind = {kind})"
                    ),
                    false,
                )
            }
            Field::RelationshipCount(name) => {
                let e = self.alias("e");
                let kind = self.text(lore_core::model::EdgeKind::CustomRelationship.as_str());
                let name = self.text(name);
                expr(
                    format!(
                        "(SELECT COUNT(*) FROM edges {e} WHERE {e}.source_model = {o}.model_id AND {e}.source_object = {o}.object_id AND {e}.kind = {kind} AND {e}.name = {name})"
                    ),
                    false,
                )
            }
        })
    }

    fn column(&mut self, column: Column, o: &str) -> Source {
        let (sql, nullable) = match column {
            Column::Name => (format!("{o}.name"), false),
            Column::PhysicalName => (format!("{o}.physical_name"), true),
            Column::NativeId => (format!("{o}.native_id"), true),
            Column::Description => (format!("{o}.description"), true),
            Column::BusinessName => (format!("{o}.business_name"), true),
            Column::BusinessDescription => (format!("{o}.business_description"), true),
            Column::DataType => (format!("{o}.data_type"), true),
            Column::ExternalUrl => (format!("{o}.external_url"), true),
            Column::WorkflowState => (format!("{o}.workflow_state"), true),
            Column::TypeName => (format!("{o}.type_name"), false),
            Column::Profile => (format!("{o}.profile"), false),
            Column::TypeId => (format!("({o}.profile || '.' || {o}.type_name)"), false),
            Column::SystemType => (format!("{o}.system_type"), false),
            Column::StableId => (format!("{o}.stable_id"), true),
            Column::ModelNumber => {
                let model = self.text(ObjectKind::Model.as_str());
                (
                    format!(
                        "(CASE WHEN {o}.kind = {model} THEN {o}.object_id WHEN {o}.model_id <> -1 THEN {o}.model_id END)"
                    ),
                    true,
                )
            }
            Column::HideData => (format!("{o}.hide_data"), false),
            Column::UpdatedAt => (format!("{o}.updated_at"), false),
        };
        expr(sql, nullable)
    }

    fn labels(&mut self, set: &LabelSet, o: &str) -> Source {
        let statuses: &[ClassificationStatus] = match set {
            LabelSet::Top => &[
                ClassificationStatus::Matched,
                ClassificationStatus::Approved,
            ],
            LabelSet::TopApproved => &[ClassificationStatus::Approved],
            LabelSet::Matched => &[ClassificationStatus::Matched],
            LabelSet::Rejected => &[ClassificationStatus::Rejected],
        };
        let list: Vec<String> = statuses.iter().map(|s| self.text(s.as_str())).collect();
        let list = list.join(", ");
        let l = self.alias("l");
        match set {
            LabelSet::Top | LabelSet::TopApproved => {
                let s = self.alias("s");
                expr(
                    format!(
                        "(SELECT {l}.label FROM label_assignments {l} JOIN sensitivity_labels {s} ON {s}.name = {l}.label \
                         WHERE {l}.model_id = {o}.model_id AND {l}.object_id = {o}.object_id AND {l}.status IN ({list}) \
                         ORDER BY {s}.position DESC, {l}.label ASC LIMIT 1)"
                    ),
                    true,
                )
            }
            LabelSet::Matched | LabelSet::Rejected => rows(
                &l,
                format!("label_assignments {l} WHERE {l}.status IN ({list})"),
                format!("{l}.label"),
            ),
        }
    }
}

fn expr(sql: String, nullable: bool) -> Source {
    Source::Expr { sql, nullable }
}

fn rows(alias: &str, from: String, value: String) -> Source {
    Source::Rows {
        key: (format!("{alias}.model_id"), format!("{alias}.object_id")),
        from,
        value,
        folded: None,
    }
}

#[cfg(test)]
mod tests {
    use super::columns_of;

    #[test]
    fn the_columns_a_statement_reads_of_a_row() {
        let sql = "SELECT o.model_id FROM objects o WHERE lore_search_form(o.name) > 0 \
                   AND no.description = 1 AND x.o.kind = 2 AND o.* AND (o.rowid)";
        assert_eq!(columns_of(sql, "o"), ["model_id", "name", "*", "rowid"]);
    }
}
