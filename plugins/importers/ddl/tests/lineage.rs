//! Lineage from the statements of a script that move data: views, `CREATE TABLE ... AS`,
//! `INSERT ... SELECT`, `MERGE` and `UPDATE`, between the tables and views it imports.

use std::collections::BTreeSet;
use std::path::PathBuf;

use lore_importer_ddl::DdlImporter;
use lore_plugin_sdk::Level;
use lore_plugin_sdk::testing::{self, Outcome};
use serde_json::{Value, json};

/// Imports a script (written to a temporary directory) and checks what Lore would refuse.
fn import(sql: &str, parameters: Value) -> Outcome {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path: PathBuf = dir.path().join("script.sql");
    std::fs::write(&path, sql).expect("the script is written");
    let outcome =
        testing::run::<DdlImporter>(&testing::request("sql-ddl", Some(&path), parameters));
    if let Err(refused) = outcome.check() {
        panic!("Lore would refuse the import: {refused}");
    }
    outcome
}

/// `(name, source, target)` of every lineage relationship; none is sent twice.
fn lineage(outcome: &Outcome) -> BTreeSet<(String, String, String)> {
    let all: Vec<_> = outcome
        .relationships()
        .filter(|r| r.kind == "lineage")
        .map(|r| {
            (
                r.name.clone(),
                r.source_native_id.clone(),
                r.target_native_id.clone(),
            )
        })
        .collect();
    let set: BTreeSet<_> = all.iter().cloned().collect();
    assert_eq!(set.len(), all.len(), "a relationship sent twice: {all:?}");
    set
}

fn edge(name: &str, source: &str, target: &str) -> (String, String, String) {
    (name.to_owned(), source.to_owned(), target.to_owned())
}

const SHOP: &str = "\
CREATE TABLE orders (id int PRIMARY KEY, customer_id int, amount numeric, status text);
CREATE TABLE customers (id int PRIMARY KEY, name text, country text);
CREATE TABLE audit (id int, what text, n int);
CREATE VIEW sales_v AS
    SELECT c.name, sum(o.amount) AS total, count(*) AS orders
    FROM orders o JOIN customers c ON c.id = o.customer_id
    GROUP BY c.name;
CREATE VIEW everyone AS SELECT * FROM customers;
CREATE MATERIALIZED VIEW big AS SELECT id, amount * 2 AS doubled FROM orders WHERE amount > 100
WITH NO DATA;
CREATE TABLE paid AS SELECT id, status FROM orders WHERE status = 'paid';
INSERT INTO audit (what, id) SELECT status, id FROM orders;
INSERT INTO audit SELECT e.id, e.kind, 1 FROM ext.events e;
MERGE INTO customers c USING orders o ON c.id = o.customer_id
    WHEN MATCHED THEN UPDATE SET name = o.status;
UPDATE audit a SET what = o.status, n = a.n + 1 FROM orders o WHERE o.id = a.id;
CREATE VIEW broken AS SELECT id, x FROM orders;
INSERT INTO audit VALUES (1, 'none', 0);
";

#[test]
fn statements_that_move_data_give_table_and_column_lineage() {
    let outcome = import(SHOP, json!({}));
    let id = |sub: &str, source: &str, target: &str| {
        edge(&format!("{sub} (DIRECT/IDENTITY)"), source, target)
    };
    assert_eq!(
        lineage(&outcome),
        BTreeSet::from([
            // A view with a join and an aggregate: the join columns only through the tables.
            edge("sql view", "public.orders", "public.sales_v"),
            edge("sql view", "public.customers", "public.sales_v"),
            id("sql view", "public.customers.name", "public.sales_v.name"),
            edge(
                "sql view (DIRECT/AGGREGATION)",
                "public.orders.amount",
                "public.sales_v.total"
            ),
            // `*` expanded over the columns of the table the script created.
            edge("sql view", "public.customers", "public.everyone"),
            id("sql view", "public.customers.id", "public.everyone.id"),
            id("sql view", "public.customers.name", "public.everyone.name"),
            id(
                "sql view",
                "public.customers.country",
                "public.everyone.country"
            ),
            // A materialized view, its `WITH NO DATA` read with it.
            edge("sql materialized view", "public.orders", "public.big"),
            id("sql materialized view", "public.orders.id", "public.big.id"),
            edge(
                "sql materialized view (DIRECT/TRANSFORMATION)",
                "public.orders.amount",
                "public.big.doubled"
            ),
            // CREATE TABLE ... AS SELECT.
            edge("sql create table as", "public.orders", "public.paid"),
            id("sql create table as", "public.orders.id", "public.paid.id"),
            id(
                "sql create table as",
                "public.orders.status",
                "public.paid.status"
            ),
            // INSERT ... SELECT with a column list; the one from ext.events is not linked.
            edge("sql insert", "public.orders", "public.audit"),
            id("sql insert", "public.orders.status", "public.audit.what"),
            id("sql insert", "public.orders.id", "public.audit.id"),
            // MERGE and UPDATE ... FROM; what a table takes from itself is no lineage.
            edge("sql merge", "public.orders", "public.customers"),
            id("sql merge", "public.orders.status", "public.customers.name"),
            edge("sql update", "public.orders", "public.audit"),
            id("sql update", "public.orders.status", "public.audit.what"),
            // The view with a column of no table keeps the lineage it has.
            edge("sql view", "public.orders", "public.broken"),
            id("sql view", "public.orders.id", "public.broken.id"),
        ])
    );
    assert_eq!(
        outcome.log_lines(Level::Warn),
        [
            "line 13 (INSERT INTO audit): table 'ext.events' is not in the script",
            "line 17 (CREATE VIEW broken): column 'x' is in none of the tables read (orders)",
        ]
    );
    // INSERT ... SELECT, MERGE and UPDATE are modelled by their lineage; an INSERT of
    // VALUES is still skipped.
    let info = outcome.log_lines(Level::Info);
    assert_eq!(
        info[0],
        "skipped 1 statement the importer does not model: INSERT (1)"
    );
    assert_eq!(
        info[1],
        "script.sql (PostgreSQL): 13 statements; 1 schema, 4 tables, 4 views, 22 columns, \
         2 primary keys, 0 foreign keys, 0 relationships, 0 indexes, \
         23 lineage relationships"
    );
}

#[test]
fn only_the_kept_definition_of_a_view_has_lineage() {
    let outcome = import(
        "CREATE TABLE a (x int);\n\
         CREATE TABLE b (y int);\n\
         CREATE VIEW v AS SELECT x FROM a;\n\
         CREATE OR REPLACE VIEW v AS SELECT y AS x FROM b;\n\
         CREATE VIEW w AS SELECT x FROM a;\n\
         CREATE VIEW w AS SELECT y FROM b;\n",
        json!({}),
    );
    assert_eq!(
        lineage(&outcome),
        BTreeSet::from([
            edge("sql view", "public.b", "public.v"),
            edge("sql view (DIRECT/IDENTITY)", "public.b.y", "public.v.x"),
            // The second CREATE VIEW w is left out (with the importer's warning).
            edge("sql view", "public.a", "public.w"),
            edge("sql view (DIRECT/IDENTITY)", "public.a.x", "public.w.x"),
        ])
    );
    assert_eq!(
        outcome.log_lines(Level::Warn),
        [
            "CREATE VIEW public.w: a table or view of that name exists already; \
          the first definition is kept"
        ]
    );
}

#[test]
fn table_names_resolve_by_their_trailing_parts() {
    let outcome = import(
        "CREATE SCHEMA sales;\n\
         CREATE SCHEMA hr;\n\
         CREATE TABLE sales.orders (id int, \"Total\" numeric);\n\
         CREATE TABLE sales.people (id int);\n\
         CREATE TABLE hr.people (id int);\n\
         CREATE TABLE public.notes (body text);\n\
         -- A database qualifier is ignored; an unqualified name found in one schema only.\n\
         CREATE VIEW sales.totals AS SELECT \"Total\" AS total FROM shop.sales.orders;\n\
         CREATE VIEW sales.ids AS SELECT id FROM orders;\n\
         -- In two schemas and not in the default one: not linked.\n\
         CREATE VIEW sales.who AS SELECT p.id FROM people p;\n\
         -- The target is not in the script.\n\
         INSERT INTO archive.notes SELECT body FROM notes;\n\
         -- Quoted names keep their case: \"Orders\" is not orders.\n\
         CREATE TABLE sales.copy AS SELECT * FROM sales.\"Orders\";\n",
        json!({}),
    );
    assert_eq!(
        lineage(&outcome),
        BTreeSet::from([
            edge("sql view", "sales.orders", "sales.totals"),
            edge(
                "sql view (DIRECT/IDENTITY)",
                "sales.orders.Total",
                "sales.totals.total"
            ),
            edge("sql view", "sales.orders", "sales.ids"),
            edge(
                "sql view (DIRECT/IDENTITY)",
                "sales.orders.id",
                "sales.ids.id"
            ),
        ])
    );
    assert_eq!(
        outcome.log_lines(Level::Warn),
        [
            "sales.copy: the columns * takes from sales.\"Orders\" are not known from the \
             script; they are left out",
            "line 11 (CREATE VIEW sales.who): table 'people' could be any of sales.people, \
             hr.people; it is not linked",
            "line 13 (INSERT INTO archive.notes): table 'archive.notes' it writes is not in \
             the script; no lineage is made",
            "line 15 (CREATE TABLE sales.copy AS): '*' of table 'sales.Orders' whose columns \
             are not known",
            "line 15 (CREATE TABLE sales.copy AS): table 'sales.Orders' is not in the script",
        ]
    );
}

#[test]
fn sqlite_names_compare_case_insensitively() {
    let outcome = import(
        "CREATE TABLE Artists (ArtistId INTEGER PRIMARY KEY, Name TEXT);\n\
         CREATE TABLE Names (Label TEXT);\n\
         INSERT INTO names SELECT upper(NAME) FROM artists;\n\
         CREATE VIEW Loud AS SELECT a.* FROM ARTISTS a;\n",
        json!({"dialect": "sqlite"}),
    );
    assert_eq!(
        lineage(&outcome),
        BTreeSet::from([
            edge("sql insert", "main.artists", "main.names"),
            edge(
                "sql insert (DIRECT/TRANSFORMATION)",
                "main.artists.name",
                "main.names.label"
            ),
            edge("sql view", "main.artists", "main.loud"),
            edge(
                "sql view (DIRECT/IDENTITY)",
                "main.artists.artistid",
                "main.loud.artistid"
            ),
            edge(
                "sql view (DIRECT/IDENTITY)",
                "main.artists.name",
                "main.loud.name"
            ),
        ])
    );
    assert_eq!(outcome.log_lines(Level::Warn), Vec::<&str>::new());
}
