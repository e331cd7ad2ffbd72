//! The places where SQLite and PostgreSQL need different SQL text: the schema's words,
//! and each spelling the statements need (the MQL compiler's text tests, JSON reads and
//! date labels among them), one method each. Everything else, schema and statements
//! alike, is written once.

use lore_core::mql::plan::{DateGap, FieldType, SEARCH_MARK, WORD_BREAKERS};

/// A SQL dialect Lore speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Sqlite,
    Postgres,
}

impl Dialect {
    /// The backend's name for logs: `sqlite`, `postgres`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sqlite => "sqlite",
            Self::Postgres => "postgres",
        }
    }

    /// The schema template with this dialect's words filled in: `{text}` is a text
    /// column compared and ordered byte-wise (`COLLATE "C"` on PostgreSQL, SQLite's
    /// default BINARY collation), `{without_rowid}` a table clustered on its key,
    /// `{fold}` the function that folds text as MQL compares it ([`Dialect::fold`]).
    /// Lines starting `--postgres: ` or `--sqlite: ` belong to that dialect only.
    pub fn schema(self, template: &str) -> String {
        let (text, without_rowid) = match self {
            Self::Sqlite => ("TEXT", "WITHOUT ROWID"),
            Self::Postgres => ("TEXT COLLATE \"C\"", ""),
        };
        let (mine, other) = match self {
            Self::Sqlite => ("--sqlite: ", "--postgres: "),
            Self::Postgres => ("--postgres: ", "--sqlite: "),
        };
        template
            .lines()
            .filter(|line| !line.starts_with(other))
            .map(|line| line.strip_prefix(mine).unwrap_or(line))
            .collect::<Vec<_>>()
            .join("\n")
            .replace("{text}", text)
            .replace("{without_rowid}", without_rowid)
            .replace("{fold}", self.fold_function())
    }

    /// The name of the function [`Dialect::fold`] calls.
    pub fn fold_function(self) -> &'static str {
        match self {
            Self::Sqlite => "lower",
            Self::Postgres => "lore_fold",
        }
    }

    /// The expression that folds text as MQL compares it
    /// ([`lore_core::mql::plan::fold`]: ASCII letters lowered, nothing else changed):
    /// SQLite's `lower()` (ASCII only without ICU), PostgreSQL's `lore_fold()` (`lower()`
    /// in the C collation, which folds A–Z only; created by migration 3), both usable in
    /// indexes.
    pub fn fold(self, expr: &str) -> String {
        format!("{}({expr})", self.fold_function())
    }

    /// The last `n` characters of the text `value`: `substr(value, -n)` on SQLite,
    /// `right(value, n)` on PostgreSQL.
    pub fn text_tail(self, value: &str, n: usize) -> String {
        match self {
            Self::Sqlite => format!("substr({value}, -{n})"),
            Self::Postgres => format!("right({value}, {n})"),
        }
    }

    /// The parameter's value with which [`Dialect::contains`] tests for the text `part`:
    /// on SQLite the text itself, on PostgreSQL a `LIKE` pattern of it (`\`, `%` and `_`
    /// escaped, `%` on either side).
    pub fn contains_operand(self, part: &str) -> String {
        match self {
            Self::Sqlite => part.to_owned(),
            Self::Postgres => {
                let escaped = part
                    .replace('\\', "\\\\")
                    .replace('%', "\\%")
                    .replace('_', "\\_");
                format!("%{escaped}%")
            }
        }
    }

    /// The text `value` (not NULL) contains the text the parameter `operand` stands for
    /// (its value from [`Dialect::contains_operand`]): `instr(...) > 0` on SQLite; `LIKE`
    /// on PostgreSQL, which its trigram indexes serve (`strpos` they do not).
    pub fn contains(self, value: &str, operand: &str) -> String {
        match self {
            Self::Sqlite => format!("instr({value}, {operand}) > 0"),
            Self::Postgres => format!("{value} LIKE {operand}"),
        }
    }

    /// The one-character text of the Unicode code point `code`: `char()` on SQLite,
    /// `chr()` on PostgreSQL.
    pub fn character(self, code: u32) -> String {
        match self {
            Self::Sqlite => format!("char({code})"),
            Self::Postgres => format!("chr({code})"),
        }
    }

    /// The expression of the search form of the text `expr`, as
    /// [`lore_core::mql::plan::search_form`] computes it: folded, each word breaker a
    /// space, each space a space and a mark, every mark before a space dropped, then
    /// every mark. The same words in each dialect but for [`Dialect::fold`] and
    /// [`Dialect::character`]; SQLite's text index holds it, PostgreSQL's
    /// `lore_search_form()` is it (migration 19).
    pub fn search_form(self, expr: &str) -> String {
        let mut form = self.fold(expr);
        for breaker in WORD_BREAKERS.iter().filter(|c| **c != ' ') {
            form = format!("replace({form}, '{breaker}', ' ')");
        }
        let mark = self.character(u32::from(SEARCH_MARK));
        format!(
            "replace(replace(replace({form}, ' ', ' ' || {mark}), {mark} || ' ', ''), {mark}, '')"
        )
    }

    /// The text `expr` (NULL only when `nullable`) holds the text of the parameter
    /// `operand` ([`Dialect::contains_operand`]) in its search form, never NULL: SQLite
    /// computes the form with `lore_search_form()`, [`lore_core::mql::plan::search_form`]
    /// itself, which the SQLite driver gives each connection, and tests `expr IS NOT
    /// NULL` first when it is nullable; PostgreSQL always tests it, then reads the form
    /// from its `lore_search_form()` (SQL, migration 19), whose trigram indexes serve
    /// the `LIKE`.
    pub fn search_form_contains(self, expr: &str, nullable: bool, operand: &str) -> String {
        match self {
            Self::Sqlite => {
                let found = self.contains(&format!("lore_search_form({expr})"), operand);
                if nullable {
                    format!("{expr} IS NOT NULL AND {found}")
                } else {
                    found
                }
            }
            Self::Postgres => {
                let found = self.contains(&format!("lore_search_form({expr})"), operand);
                format!("({expr} IS NOT NULL AND {found})")
            }
        }
    }

    /// The sort key `value`, of type `ty`, as an expression that sorts the same but that
    /// no index holds, so the database sorts the few objects a condition's indexes find
    /// instead of reading the key's index in order: `+value` on SQLite; on PostgreSQL
    /// `(value || '')` for text (which keeps its collation), `(value + 0)` for numbers
    /// and times, a boolean as it is.
    pub fn unindexed_sort_key(self, value: &str, ty: FieldType) -> String {
        match (self, ty) {
            (Self::Sqlite, _) => format!("+{value}"),
            (Self::Postgres, FieldType::Boolean) => value.to_owned(),
            (Self::Postgres, FieldType::Text | FieldType::ExactText) => format!("({value} || '')"),
            (Self::Postgres, _) => format!("({value} + 0)"),
        }
    }

    /// How a condition on related objects names the objects it picks, here the tested
    /// row `alias` (the left side of `IN`): SQLite by rowid, which makes it start from the
    /// related side when that is selective (by key it reads the whole name index in order
    /// and tests each object); PostgreSQL by key.
    pub fn related_key(self, alias: &str) -> String {
        match self {
            Self::Sqlite => format!("{alias}.rowid"),
            Self::Postgres => format!("({alias}.model_id, {alias}.object_id)"),
        }
    }

    /// The columns of [`Dialect::related_key`] of the row `alias` in the `SELECT` list of
    /// the objects picked: its rowid on SQLite, its key on PostgreSQL.
    pub fn related_key_columns(self, alias: &str) -> String {
        match self {
            Self::Sqlite => format!("{alias}.rowid"),
            Self::Postgres => format!("{alias}.model_id, {alias}.object_id"),
        }
    }

    /// The label of the date bucket of the time `micros` (UTC microseconds), as
    /// [`DateGap::label`] writes it: `strftime` of its second on SQLite, `to_char` of its
    /// UTC timestamp, ordered byte-wise, on PostgreSQL.
    pub fn date_label(self, micros: &str, gap: DateGap) -> String {
        match self {
            Self::Sqlite => format!(
                "strftime('{}', ({micros} - ((({micros} % 1000000) + 1000000) % 1000000)) / 1000000, 'unixepoch')",
                gap.format()
            ),
            Self::Postgres => {
                let format = match gap {
                    DateGap::Year => "YYYY",
                    DateGap::Month => "YYYY-MM",
                    DateGap::Day => "YYYY-MM-DD",
                    DateGap::Hour => "YYYY-MM-DD HH24:00",
                };
                self.bytewise(&format!(
                    "to_char(to_timestamp(floor({micros} / 1000000.0)) AT TIME ZONE 'UTC', '{format}')"
                ))
            }
        }
    }

    /// A subquery over the parameter `$n`, a JSON array of `[model, object]` pairs, with
    /// the columns `model_id` and `object_id`.
    pub fn id_pairs(self, n: usize) -> String {
        match self {
            Self::Sqlite => format!(
                "SELECT json_extract(value, '$[0]') AS model_id, json_extract(value, '$[1]') AS object_id \
                 FROM json_each(${n})"
            ),
            Self::Postgres => format!(
                "SELECT (e->>0)::BIGINT AS model_id, (e->>1)::BIGINT AS object_id \
                 FROM jsonb_array_elements(${n}::jsonb) e"
            ),
        }
    }

    /// A subquery over the parameter `$n`, a JSON array of integers, with one integer
    /// column: `json_each` on SQLite, `jsonb_array_elements_text` cast to BIGINT on
    /// PostgreSQL.
    pub fn json_integers(self, n: usize) -> String {
        match self {
            Self::Sqlite => format!("SELECT value FROM json_each(${n})"),
            Self::Postgres => format!("SELECT (jsonb_array_elements_text(${n}::jsonb))::BIGINT"),
        }
    }

    /// The number at `object.key` of the JSON text `json`, NULL where there is none:
    /// `json_extract` on SQLite; on PostgreSQL `->>` cast to BIGINT (`integer`) or to
    /// DOUBLE PRECISION.
    pub fn json_number(self, json: &str, object: &str, key: &str, integer: bool) -> String {
        match (self, integer) {
            (Self::Sqlite, _) => format!("json_extract({json}, '$.{object}.{key}')"),
            (Self::Postgres, true) => format!("(({json}::jsonb)->'{object}'->>'{key}')::BIGINT"),
            (Self::Postgres, false) => {
                format!("(({json}::jsonb)->'{object}'->>'{key}')::DOUBLE PRECISION")
            }
        }
    }

    /// A table (after `FROM`) named `alias` of the keys of the object `member` of the JSON
    /// text `json`, in the column `alias.key`: `json_each` on SQLite, `jsonb_object_keys`
    /// on PostgreSQL.
    pub fn json_object_keys(self, json: &str, member: &str, alias: &str) -> String {
        match self {
            Self::Sqlite => format!("json_each({json}, '$.{member}') {alias}"),
            Self::Postgres => {
                format!("jsonb_object_keys(({json}::jsonb)->'{member}') AS {alias}(key)")
            }
        }
    }

    /// The array `member` of the JSON text `json` is there and not empty:
    /// `json_array_length` on SQLite, `jsonb_array_length` on PostgreSQL.
    pub fn json_array_not_empty(self, json: &str, member: &str) -> String {
        match self {
            Self::Sqlite => format!("json_array_length({json}, '$.{member}') > 0"),
            Self::Postgres => format!(
                "jsonb_array_length(COALESCE(({json}::jsonb)->'{member}', '[]'::jsonb)) > 0"
            ),
        }
    }

    /// The object `member` of the JSON text `json` is there and not the empty object `{}`:
    /// `json_extract` on SQLite, `->` on PostgreSQL.
    pub fn json_object_not_empty(self, json: &str, member: &str) -> String {
        match self {
            Self::Sqlite => format!("json_extract({json}, '$.{member}') <> '{{}}'"),
            Self::Postgres => format!("({json}::jsonb)->'{member}' <> '{{}}'::jsonb"),
        }
    }

    /// The text `expr`, of the database's default collation, compared and ordered
    /// byte-wise like every stored text: as it is on SQLite (BINARY), `COLLATE "C"` on
    /// PostgreSQL (what its JSON and date functions answer is in the default collation).
    pub fn bytewise(self, expr: &str) -> String {
        match self {
            Self::Sqlite => expr.to_owned(),
            Self::Postgres => format!("({expr} COLLATE \"C\")"),
        }
    }

    /// The join that keeps its left side outside: SQLite's `CROSS JOIN` (its planner
    /// otherwise may build an automatic index over a whole table on every step of a
    /// recursive walk, as it did for downstream lineage: 300 ms instead of 15 at
    /// 100,000 jobs); PostgreSQL plans joins itself.
    pub fn ordered_join(self) -> &'static str {
        match self {
            Self::Sqlite => "CROSS JOIN",
            Self::Postgres => "JOIN",
        }
    }

    /// Where a recursive walk stops after `limit` rows: the clause that ends the CTE's
    /// recursive step, and the query (`read`, a SELECT of the CTE) that reads it. SQLite
    /// computes a recursive CTE whole unless the CTE itself is limited; PostgreSQL allows
    /// no LIMIT there, but reads the walk only as far as the query asks.
    pub fn recursive_limit(self, read: &str, limit: &str) -> (String, String) {
        match self {
            Self::Sqlite => (format!("LIMIT {limit}"), read.to_owned()),
            Self::Postgres => (String::new(), format!("{read} LIMIT {limit}")),
        }
    }

    /// Every column of the objects row `o` for a subquery that stands in for `objects`,
    /// SQLite's rowid included (its conditions may name it: a text search, a parent's
    /// list).
    pub fn all_object_columns(self, o: &str) -> String {
        match self {
            Self::Sqlite => format!("{o}.rowid AS rowid, {o}.*"),
            Self::Postgres => format!("{o}.*"),
        }
    }

    /// NULL of the type a value of `ty` has in this database: PostgreSQL matches the
    /// types of a `UNION`'s columns pair by pair, left to right, and a bare NULL
    /// meeting another bare NULL is text.
    pub fn null_of(self, ty: FieldType) -> &'static str {
        match (self, ty) {
            (Self::Sqlite, _) => "NULL",
            (Self::Postgres, FieldType::Text | FieldType::ExactText) => "CAST(NULL AS TEXT)",
            (Self::Postgres, FieldType::Integer | FieldType::Time) => "CAST(NULL AS BIGINT)",
            (Self::Postgres, FieldType::Double) => "CAST(NULL AS DOUBLE PRECISION)",
            (Self::Postgres, FieldType::Boolean) => "CAST(NULL AS BOOLEAN)",
        }
    }

    /// The join of the rows `rows` (columns `model_id`, `object_id`, `v`) of each of a
    /// few objects `r`, as `fv`, read through their index per object. PostgreSQL would
    /// hash all of them (every label of the catalog) for a few thousand objects: a
    /// `LATERAL` subquery, kept from being pulled up into a join by `OFFSET 0`. SQLite
    /// may scan them all too, when it takes the objects for many: `CROSS JOIN` keeps its
    /// join order.
    pub fn join_rows_per_object(self, rows: &str, r: &str) -> String {
        match self {
            // CROSS JOIN keeps SQLite's join order: each object's rows by key, never
            // every row of the table probed against the objects (a narrow term's 220
            // hits against every label: 14.6 → 1.8 ms).
            Self::Sqlite => format!(
                "CROSS JOIN ({rows}) fv ON fv.model_id = {r}.model_id AND fv.object_id = {r}.object_id"
            ),
            Self::Postgres => format!(
                "JOIN LATERAL (SELECT s.v FROM ({rows}) s \
                 WHERE s.model_id = {r}.model_id AND s.object_id = {r}.object_id OFFSET 0) fv ON TRUE"
            ),
        }
    }

    /// Whether the narrow rows (migration 25) of a transaction's new objects
    /// ([`Writer::expect_new_rows`](crate::write::Writer::expect_new_rows)) are written
    /// once, at its end, with their labels: PostgreSQL keeps each object's labels in its
    /// narrow row (migration 27), and a narrow row written with its object, before the
    /// object's tags, would be written again for each labelled object (7% of a
    /// 1,000,000-object import, and as many dead rows). SQLite keeps no labels there.
    pub fn narrow_rows_at_end(self) -> Option<&'static NarrowRowsAtEnd> {
        match self {
            Self::Sqlite => None,
            Self::Postgres => Some(&NarrowRowsAtEnd {
                later: "SELECT set_config('lore.narrow_later', 'on', true)",
                // The labels by a probe of the tags' key per object, a plan that does
                // not hang on estimates: the model is new, and the statistics of a
                // join of its objects with their labels grouped counted next to none
                // of them (a nested loop that grouped the labels again for each
                // object took 46 s for 100,000).
                write: "INSERT INTO object_search \
                        SELECT o.model_id, o.object_id, o.kind, o.name, o.physical_name, \
                        o.type_name, o.data_type, lore_search_text(o.name, o.physical_name), \
                        (SELECT json_agg(t.value ORDER BY t.value)::text FROM tags t \
                        WHERE t.model_id = o.model_id AND t.object_id = o.object_id \
                        AND t.kind = 'label') \
                        FROM objects o \
                        WHERE o.model_id = ANY(string_to_array($1, ',')::BIGINT[]) \
                        AND NOT EXISTS (SELECT 1 FROM object_search s \
                        WHERE s.model_id = o.model_id AND s.object_id = o.object_id)",
            }),
        }
    }

    /// What a page's plan needs probed on this database, where its planner's statistics
    /// cannot tell (see `planning.rs`): the store's planning asks this, never the
    /// dialect's name.
    pub fn planning(self) -> Planning {
        match self {
            Self::Sqlite => Planning {
                text_index: true,
                required_searches: false,
                restricted_first: true,
                type_order: true,
                required_tags: true,
            },
            Self::Postgres => Planning {
                text_index: false,
                required_searches: true,
                restricted_first: false,
                type_order: false,
                required_tags: false,
            },
        }
    }

    /// The statement that shows how the database would run the statement `sql`:
    /// `EXPLAIN QUERY PLAN` on SQLite, `EXPLAIN` on PostgreSQL.
    pub fn explain(self, sql: &str) -> String {
        match self {
            Self::Sqlite => format!("EXPLAIN QUERY PLAN {sql}"),
            Self::Postgres => format!("EXPLAIN {sql}"),
        }
    }

    /// The statement that opens a write transaction's history (migration 34) and answers
    /// its stamp. SQLite, one writer at a time: the version the transaction will move the
    /// catalog to, kept in `versions` for the triggers of deletes. PostgreSQL: a negative
    /// number of its own, set as `lore.stamp` for the transaction.
    pub fn history_stamp(self) -> &'static str {
        match self {
            Self::Sqlite => {
                "UPDATE versions SET version = (SELECT v.version + 1 FROM versions v \
                 WHERE v.name = 'catalog') WHERE name = 'history_stamp' RETURNING version"
            }
            Self::Postgres => {
                "SELECT CAST(set_config('lore.stamp', CAST(-nextval('history_stamps') AS TEXT), true) \
                 AS BIGINT)"
            }
        }
    }

    /// The statements that stop the triggers of deletes keeping history rows, and start
    /// them again for the transaction of `stamp` (a restore's clear: migration 34).
    pub fn history_pause(self, stamp: i64) -> (&'static str, String) {
        match self {
            Self::Sqlite => (
                "UPDATE versions SET version = 0 WHERE name = 'history_stamp'",
                format!("UPDATE versions SET version = {stamp} WHERE name = 'history_stamp'"),
            ),
            Self::Postgres => (
                "SELECT set_config('lore.stamp', '0', true)",
                format!("SELECT set_config('lore.stamp', '{stamp}', true)"),
            ),
        }
    }

    /// A statement that makes concurrent migrations from several processes wait for each
    /// other inside the migration's transaction (SQLite's write lock already does).
    pub fn migration_lock(self) -> Option<&'static str> {
        match self {
            Self::Sqlite => None,
            // "LoreSchm" in ASCII
            Self::Postgres => Some("SELECT pg_advisory_xact_lock(5507746648813693037)"),
        }
    }

    /// A statement answering about how many objects the catalog holds, cheaply: the
    /// bound of the probes that choose between reading an order and sorting what a
    /// condition's indexes find. SQLite: the largest rowid; PostgreSQL: the planner's
    /// estimate (0 before the first ANALYZE).
    pub fn catalog_size(self) -> &'static str {
        match self {
            Self::Sqlite => "SELECT COALESCE(MAX(rowid), 0) FROM objects",
            Self::Postgres => {
                "SELECT GREATEST(reltuples, 0)::BIGINT FROM pg_class WHERE oid = 'objects'::regclass"
            }
        }
    }

    /// What to run after a transaction wrote many rows, so the planner's statistics know
    /// the new sizes (a freshly loaded PostgreSQL table has none until autovacuum comes
    /// by, and its plans scan instead of using indexes).
    pub fn after_bulk_write(self) -> &'static str {
        match self {
            // The objects in full (their statistics choose between reading a model's
            // range and reading a sort order's index); the rest as SQLite sees fit.
            Self::Sqlite => "ANALYZE objects; PRAGMA optimize;",
            Self::Postgres => "ANALYZE objects, object_search, attribute_values, edges, tags",
        }
    }

    /// The statements that fold the rows of differences PostgreSQL's tally triggers
    /// append (migrations 16 and 31) into one row per key, dropping keys that count
    /// nothing; run after large writes and now and then after small ones. SQLite's
    /// triggers keep one row per key already, and only the value tallies' keys that
    /// count nothing any more are dropped. Concurrent compactions are safe: each re-adds
    /// only the rows its own DELETE removed.
    pub fn compact_tallies(self) -> &'static [&'static str] {
        match self {
            Self::Sqlite => &["DELETE FROM value_tallies WHERE n = 0"],
            Self::Postgres => &[
                concat!(
                    "WITH spread AS (SELECT model_id, type_name, typed, data_type, described FROM object_tallies ",
                    "GROUP BY model_id, type_name, typed, data_type, described HAVING COUNT(*) > 1 OR SUM(n) = 0), ",
                    "gone AS (DELETE FROM object_tallies t USING spread s WHERE t.model_id = s.model_id ",
                    "AND t.type_name = s.type_name AND t.typed = s.typed AND t.data_type = s.data_type ",
                    "AND t.described = s.described ",
                    "RETURNING t.model_id, t.type_name, t.typed, t.data_type, t.described, t.n) ",
                    "INSERT INTO object_tallies (model_id, type_name, typed, data_type, described, n) ",
                    "SELECT model_id, type_name, typed, data_type, described, SUM(n) FROM gone ",
                    "GROUP BY model_id, type_name, typed, data_type, described HAVING SUM(n) <> 0"
                ),
                concat!(
                    "WITH spread AS (SELECT kind, model_id, value FROM value_tallies ",
                    "GROUP BY kind, model_id, value HAVING COUNT(*) > 1 OR SUM(n) = 0), ",
                    "gone AS (DELETE FROM value_tallies t USING spread s WHERE t.kind = s.kind ",
                    "AND t.model_id = s.model_id AND t.value = s.value ",
                    "RETURNING t.kind, t.model_id, t.value, t.n) ",
                    "INSERT INTO value_tallies (kind, model_id, value, n) ",
                    "SELECT kind, model_id, value, SUM(n) FROM gone ",
                    "GROUP BY kind, model_id, value HAVING SUM(n) <> 0"
                ),
            ],
        }
    }
}

/// The probes a database's pages need, because its planner cannot tell from its
/// statistics ([`Dialect::planning`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Planning {
    /// A term is looked up in the text index only when few objects hold it (SQLite's
    /// FTS5 table, which its planner knows nothing of); a page of a common term that its
    /// bounded read in order did not fill goes through the index.
    pub text_index: bool,
    /// A text search every object must pass is counted: when few objects pass, the page
    /// finds them through its index and sorts them (PostgreSQL takes a term's objects
    /// for spread evenly over an order); a page of a common term that its bounded read
    /// in order did not fill does the same.
    pub required_searches: bool,
    /// The objects a restricted caller sees are counted, and found first when few
    /// (SQLite knows a model's average size, not that the caller's is small).
    pub restricted_first: bool,
    /// A type many objects have, in an order another index holds, is tested on that
    /// index's rows instead of read through the type's index (SQLite).
    pub type_order: bool,
    /// Each label every object must have is counted: a rare one is the list the page
    /// starts from, common ones are tested per object (SQLite builds an `IN` list whole).
    pub required_tags: bool,
}

/// The statements of [`Dialect::narrow_rows_at_end`].
#[derive(Debug)]
pub struct NarrowRowsAtEnd {
    /// From here on, until the transaction ends, the objects' insert trigger writes no
    /// narrow rows (migration 27).
    pub later: &'static str,
    /// The narrow rows the objects of the models `$1` (comma-separated) lack, with
    /// their labels. The setting `later` made ends with the transaction.
    pub write: &'static str,
}
