//! Statements as of a kept version: the same statements that read the catalog now,
//! under a `WITH` whose common table expressions stand in for the six versioned tables
//! (migration 34), each the current rows written by then and the kept rows whose
//! interval holds it. A name in a statement finds the nearest common table expression
//! of that name before a table, so a statement compiled for today (an MQL plan, the read
//! of objects with their details) reads the past unchanged.
//!
//! What is not versioned is read as it is now: definitions, users, curation, profiling.
//! The statements must not read what only stands for today's rows: the narrow
//! `object_search` table and SQLite's `objects_search` index, the tallies, the kept
//! search hits and the mirror. The compiler's as-of mode ([`crate::compile`]) keeps off
//! them.
//!
//! A stamp is a version on SQLite; on PostgreSQL it is a transaction's own negative
//! number, which `catalog_versions` maps to the version it committed as, so a row is
//! current at `v` when its `valid_from` is no stamp of a revision after `v`, and a kept
//! row also when its `valid_to` is one.

use crate::compile::Compiled;
use crate::dialect::Dialect;
use crate::read::object_columns;

/// The versioned tables and their columns, as the statements read them.
const TABLES: [(&str, &str); 6] = [
    ("objects", object_columns!()),
    (
        "attribute_values",
        "model_id, object_id, attribute, value_kind, text_value, integer_value, \
         double_value, boolean_value, datetime_value",
    ),
    (
        "edges",
        "source_model, source_object, kind, target_model, target_object, name, origin",
    ),
    ("tags", "model_id, object_id, kind, value"),
    ("classifications", "model_id, object_id, data_class, status"),
    ("label_assignments", "model_id, object_id, label, status"),
];

/// The statement `sql` (a `SELECT`, or a `WITH` of its own) reading the versioned
/// tables as they were at `version`. The version is a number, written into the text.
pub(crate) fn read_as_of(sql: &str, dialect: Dialect, version: i64) -> String {
    let tables = TABLES
        .iter()
        .map(|(table, columns)| table_as_of(table, columns, dialect, version))
        .collect::<Vec<_>>()
        .join(", ");
    match sql.strip_prefix("WITH ") {
        // Its own expressions after ours, which they may read.
        Some(rest) if !rest.starts_with("RECURSIVE ") => format!("WITH {tables}, {rest}"),
        _ => format!("WITH {tables} {sql}"),
    }
}

/// A compiled statement as of `version` ([`read_as_of`]); as it is without one.
pub(crate) fn compiled_as_of(
    compiled: Compiled,
    dialect: Dialect,
    version: Option<i64>,
) -> Compiled {
    match version {
        Some(version) => Compiled {
            sql: read_as_of(&compiled.sql, dialect, version),
            params: compiled.params,
        },
        None => compiled,
    }
}

/// The common table expression that stands for `table` at `version`.
fn table_as_of(table: &str, columns: &str, dialect: Dialect, version: i64) -> String {
    // SQLite takes an unqualified name inside an expression of the same name for the
    // expression itself (a recursion); a name qualified by its schema is the table.
    // PostgreSQL's expressions are not recursive without RECURSIVE: the name inside is
    // the table.
    let (schema, after) = match dialect {
        Dialect::Sqlite => ("main.", format!("{version}")),
        Dialect::Postgres => (
            "",
            format!("(SELECT c.stamp FROM catalog_versions c WHERE c.version > {version})"),
        ),
    };
    let (current, kept) = match dialect {
        Dialect::Sqlite => (
            format!("t.valid_from <= {after}"),
            format!("t.valid_from <= {after} AND t.valid_to > {after}"),
        ),
        Dialect::Postgres => (
            format!("t.valid_from NOT IN {after}"),
            format!("t.valid_from NOT IN {after} AND t.valid_to IN {after}"),
        ),
    };
    // SQLite's rowid, which the text search and the parent chains of its statements
    // name: a current row's own, a kept row's negated (never one of the current ones).
    let (rowid, kept_rowid) = match (dialect, table) {
        (Dialect::Sqlite, "objects") => ("t.rowid AS rowid, ", "-t.rowid AS rowid, "),
        _ => ("", ""),
    };
    // `valid_from` too: the reads of objects with their details answer it.
    let rows = if table == "tags" {
        // What the writer keeps on a tag (migration 21) that statements test: its folded
        // value (stored on a current row, which its index serves; folded here for a kept
        // one) and whether it is the first of the object's tags that fold alike, which
        // only narrows a test on the folded value to one row of each such group: every
        // row passes it here, which changes no answer (all rows of a group fold alike).
        // The object's folded type and name serve only the tags' own statements, which
        // as of a version are not used.
        let truth = match dialect {
            Dialect::Sqlite => "1",
            Dialect::Postgres => "TRUE",
        };
        let fold = dialect.fold("t.value");
        let rest = format!(
            "CAST(NULL AS TEXT) AS type_fold, CAST(NULL AS TEXT) AS object_name, \
             {truth} AS fold_first"
        );
        format!(
            "SELECT {columns}, valid_from, t.value_fold AS value_fold, {rest} \
             FROM {schema}{table} t WHERE {current} \
             UNION ALL SELECT {columns}, valid_from, {fold} AS value_fold, {rest} \
             FROM {schema}{table}_history t WHERE {kept}"
        )
    } else {
        format!(
            "SELECT {rowid}{columns}, valid_from FROM {schema}{table} t WHERE {current} \
             UNION ALL SELECT {kept_rowid}{columns}, valid_from FROM {schema}{table}_history t \
             WHERE {kept}"
        )
    };
    format!("{table} AS NOT MATERIALIZED ({rows})")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_statement_reads_the_tables_as_of_the_version() {
        let sql = read_as_of("SELECT o.model_id FROM objects o", Dialect::Sqlite, 7);
        assert!(sql.starts_with("WITH objects AS NOT MATERIALIZED (SELECT t.rowid AS rowid"));
        assert!(sql.contains("FROM main.objects t WHERE t.valid_from <= 7 UNION ALL"));
        assert!(
            sql.contains("FROM main.objects_history t WHERE t.valid_from <= 7 AND t.valid_to > 7")
        );
        assert!(sql.ends_with(") SELECT o.model_id FROM objects o"), "{sql}");
        let pg = read_as_of(
            "WITH hits AS MATERIALIZED (SELECT 1) SELECT 2",
            Dialect::Postgres,
            7,
        );
        assert!(pg.contains("NOT IN (SELECT c.stamp FROM catalog_versions c WHERE c.version > 7)"));
        assert!(
            pg.contains(", hits AS MATERIALIZED (SELECT 1) SELECT 2"),
            "{pg}"
        );
        assert!(!pg.contains("rowid"));
    }
}
