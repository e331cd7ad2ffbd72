//! Harvesting a SQLite database made for the test.

mod common;

use std::path::{Path, PathBuf};

use common::{Harvest, edge, run};
use lore_importer_harvester::MODEL_PROFILE;
use lore_plugin_sdk::testing::Outcome;
use lore_plugin_sdk::{Level, Model, Progress, Relationship};
use serde_json::json;

const SHOP: &str = "
CREATE TABLE customer (
    id INTEGER PRIMARY KEY,
    name VARCHAR(100) NOT NULL,
    email TEXT UNIQUE,
    created DATE DEFAULT '2024-01-01'
);
CREATE TABLE Orders (
    id INTEGER PRIMARY KEY,
    customer_id INTEGER NOT NULL REFERENCES Customer (id),
    amount NUMERIC(10,2),
    status TEXT DEFAULT 'open'
);
CREATE TABLE order_item (
    order_id INTEGER NOT NULL,
    line_no INTEGER NOT NULL,
    product TEXT,
    qty INTEGER,
    PRIMARY KEY (order_id, line_no),
    FOREIGN KEY (order_id) REFERENCES orders
);
CREATE INDEX orders_status_idx ON Orders (status);
CREATE VIEW big_orders AS SELECT id, amount FROM Orders WHERE amount > 100;
INSERT INTO customer VALUES
    (1, 'Ada', 'ada@example.com', '2024-01-01'),
    (2, 'Bob', NULL, '2024-02-01'),
    (3, 'Cy', 'cy@example.com', '2024-03-01');
INSERT INTO Orders VALUES
    (1, 1, 10.5, 'open'),
    (2, 1, 200, 'shipped'),
    (3, 2, 30.25, 'open'),
    (4, 3, NULL, 'open');
INSERT INTO order_item VALUES (1, 1, 'pen', 2), (1, 2, 'ink', 1), (2, 1, 'desk', 1);
";

/// `shop.db` in a temporary directory, made of [`SHOP`].
fn shop(dir: &tempfile::TempDir) -> PathBuf {
    let path = dir.path().join("shop.db");
    let connection = rusqlite::Connection::open(&path).expect("create the database");
    connection.execute_batch(SHOP).expect("fill the database");
    path
}

fn url(path: &Path) -> String {
    format!("sqlite://{}", path.display())
}

fn harvest(path: &Path, parameters: serde_json::Value) -> Outcome {
    let mut parameters = parameters;
    parameters["url"] = json!(url(path));
    common::harvest(parameters)
}

fn pair(id: &str, parent: &str) -> (String, Option<String>) {
    (id.to_owned(), Some(parent.to_owned()))
}

#[test]
fn the_catalog_becomes_a_database_model() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = shop(&dir);
    let sent = harvest(&path, json!({}));

    shop_objects(&sent);
    shop_columns(&sent);
    shop_keys_and_indexes(&sent);
    shop_row_counts_and_view(&sent);

    // Nothing is profiled unless asked.
    assert_eq!(sent.profilings().count(), 0);
    assert_eq!(
        sent.progress.last(),
        Some(&Progress {
            done: 4,
            total: Some(4),
            unit: "tables".into()
        })
    );
    let summary = sent.logs.last().expect("a summary");
    assert_eq!(summary.level, Level::Info);
    assert_eq!(
        summary.message,
        format!(
            "harvested {}: 1 schemas, 3 tables, 1 views, 14 columns, 3 primary keys, \
             2 foreign keys, 2 indexes, 3 lineage relationships",
            url(&path)
        )
    );
}

/// The database, its schema, tables and views, and how many objects there are.
fn shop_objects(sent: &Outcome) {
    assert_eq!(sent.model(), Some(&Model::new("shop", MODEL_PROFILE)));

    assert_eq!(sent.tree("Database"), vec![("shop".to_owned(), None)]);
    let (value_type, version) = sent
        .attribute("shop", "Database Version")
        .expect("a version");
    assert_eq!(value_type, "String");
    assert!(version.starts_with("SQLite 3."), "{version}");
    assert_eq!(sent.tree("Schema"), vec![pair("main", "shop")]);
    assert_eq!(
        sent.tree("Table"),
        vec![
            pair("main.customer", "main"),
            pair("main.order_item", "main"),
            pair("main.orders", "main"),
        ]
    );
    assert_eq!(sent.tree("View"), vec![pair("main.big_orders", "main")]);
    assert_eq!(sent.object("main.orders").name, "Orders");
    assert_eq!(
        sent.tree("Column")
            .into_iter()
            .filter(|(_, parent)| parent.as_deref() == Some("main.orders"))
            .map(|(id, _)| id)
            .collect::<Vec<_>>(),
        vec![
            "main.orders.amount",
            "main.orders.customer_id",
            "main.orders.id",
            "main.orders.status",
        ]
    );
    assert_eq!(
        sent.objects().count(),
        1 + 1 + 4 + 4 + 4 + 4 + 2 + 3 + 2 + 2
    );
}

/// Columns: declared type, position, nullability, default, length.
fn shop_columns(sent: &Outcome) {
    let name = sent.object("main.customer.name");
    assert_eq!(name.data_type.as_deref(), Some("VARCHAR(100)"));
    assert_eq!(name.physical_name.as_deref(), Some("name"));
    assert_eq!(
        sent.attribute("main.customer.name", "Position"),
        Some(("Integer", "2"))
    );
    assert_eq!(
        sent.attribute("main.customer.name", "Nullable"),
        Some(("Boolean", "false"))
    );
    assert_eq!(
        sent.attribute("main.customer.name", "Length"),
        Some(("Integer", "100"))
    );
    assert_eq!(
        sent.attribute("main.customer.email", "Nullable"),
        Some(("Boolean", "true"))
    );
    assert_eq!(sent.attribute("main.customer.email", "Length"), None);
    assert_eq!(
        sent.attribute("main.customer.created", "Default Value"),
        Some(("String", "'2024-01-01'"))
    );
    // The rowid alias is never null.
    assert_eq!(
        sent.attribute("main.customer.id", "Nullable"),
        Some(("Boolean", "false"))
    );
    assert_eq!(
        sent.attribute("main.order_item.qty", "Position"),
        Some(("Integer", "4"))
    );
}

/// Keys and indexes, and the entity relationships of the foreign keys.
fn shop_keys_and_indexes(sent: &Outcome) {
    assert_eq!(
        sent.tree("Primary Key"),
        vec![
            pair("main.customer.customer_pkey", "main.customer"),
            pair("main.order_item.order_item_pkey", "main.order_item"),
            pair("main.orders.orders_pkey", "main.orders"),
        ]
    );
    assert_eq!(
        sent.object("main.order_item.order_item_pkey")
            .description
            .as_deref(),
        Some("Primary key on order_id, line_no")
    );
    assert_eq!(
        sent.tree("Foreign Key"),
        vec![
            pair(
                "main.order_item.order_item_order_id_fkey",
                "main.order_item"
            ),
            pair("main.orders.orders_customer_id_fkey", "main.orders"),
        ]
    );
    assert_eq!(
        sent.object("main.orders.orders_customer_id_fkey")
            .description
            .as_deref(),
        Some("customer_id references main.customer (id)")
    );
    // No referenced column: the referenced table's primary key.
    assert_eq!(
        sent.object("main.order_item.order_item_order_id_fkey")
            .description
            .as_deref(),
        Some("order_id references main.Orders (id)")
    );
    let mut relationships: Vec<&Relationship> = sent
        .relationships()
        .filter(|r| r.kind == "entity_relationship")
        .collect();
    relationships.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(
        relationships,
        vec![
            &Relationship::new(
                "entity_relationship",
                "Orders_customer_id_fkey",
                "main.orders",
                "main.customer"
            ),
            &Relationship::new(
                "entity_relationship",
                "order_item_order_id_fkey",
                "main.order_item",
                "main.orders"
            ),
        ]
    );
    assert_eq!(
        sent.tree("Index"),
        vec![
            pair("main.customer.sqlite_autoindex_customer_1", "main.customer"),
            pair("main.orders.orders_status_idx", "main.orders"),
        ]
    );
    assert_eq!(
        sent.object("main.customer.sqlite_autoindex_customer_1")
            .description
            .as_deref(),
        Some("Unique index on email")
    );
    assert_eq!(
        sent.object("main.orders.orders_status_idx")
            .description
            .as_deref(),
        Some("Index on status")
    );
}

/// Row counts of tables; a view's query.
fn shop_row_counts_and_view(sent: &Outcome) {
    assert_eq!(
        sent.attribute("main.customer", "Row Count"),
        Some(("Integer", "3"))
    );
    assert_eq!(
        sent.attribute("main.orders", "Row Count"),
        Some(("Integer", "4"))
    );
    assert_eq!(
        sent.attribute("main.order_item", "Row Count"),
        Some(("Integer", "3"))
    );
    assert_eq!(sent.attribute("main.big_orders", "Row Count"), None);
    assert_eq!(
        sent.attribute("main.big_orders", "View Statement"),
        Some(("String", "SELECT id, amount FROM Orders WHERE amount > 100"))
    );
}

#[test]
fn profiling_reads_the_rows_of_tables() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = shop(&dir);
    let sent = harvest(&path, json!({"profile": true, "modelName": "Shop"}));

    let model = sent.model().expect("a model");
    assert_eq!(model.name, "Shop");

    let amount = sent.data_profile("main.orders.amount");
    assert_eq!(amount["totalProfiledRows"], 4);
    assert_eq!(
        amount["inferredDataTypes"],
        json!({"INTEGER": 1, "DECIMAL": 2})
    );
    let s = &amount["statistics"];
    assert_eq!(s["EmptyRows"], 1);
    assert_eq!(s["DistinctRows"], 3);
    assert_eq!(s["min"], 10.5);
    assert_eq!(s["max"], 200.0);
    assert_eq!(s["mean"], 80.25);
    assert_eq!(s["median"], 30.25);
    assert_eq!(
        sent.data_sample("main.orders.amount"),
        &json!({"header": ["amount"], "samples": [[10.5], [200], [30.25], [null]]})
    );

    let status = sent.data_profile("main.orders.status");
    assert_eq!(status["values"], json!({"open": 3, "shipped": 1}));
    assert_eq!(status["statistics"]["DuplicateRows"], 2);
    let email = sent.data_profile("main.customer.email");
    assert_eq!(email["statistics"]["EmptyRows"], 1);
    assert_eq!(
        email["patterns"],
        json!({"aaa@aaaaaaa.aaa": 1, "aa@aaaaaaa.aaa": 1})
    );
    assert_eq!(
        sent.data_profile("main.customer.created")["inferredDataTypes"],
        json!({"DATE": 3})
    );

    // The table's sample: every column, typed values.
    assert_eq!(
        sent.data_sample("main.orders"),
        &json!({
            "header": ["id", "customer_id", "amount", "status"],
            "samples": [[1, 1, 10.5, "open"], [2, 1, 200, "shipped"],
                        [3, 2, 30.25, "open"], [4, 3, null, "open"]]
        })
    );
    assert!(sent.profiling("main.orders").data_profile.is_none());

    // Views are not read; every table column is profiled.
    assert!(
        sent.profilings()
            .all(|p| !p.native_id.starts_with("main.big_orders"))
    );
    assert_eq!(sent.profilings().count(), 3 + 12);
    assert!(
        sent.logs
            .last()
            .expect("a summary")
            .message
            .ends_with("; 3 tables profiled (1000 rows each at most)")
    );

    // sampleRows bounds the rows read.
    let sent = harvest(&path, json!({"profile": true, "sampleRows": 2}));
    assert_eq!(
        sent.data_profile("main.orders.status")["totalProfiledRows"],
        2
    );
    assert_eq!(
        sent.data_sample("main.orders")["samples"]
            .as_array()
            .map(Vec::len),
        Some(2)
    );
}

#[test]
fn native_ids_are_stable_across_harvests() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = shop(&dir);
    let first = harvest(&path, json!({}));
    let again = harvest(&path, json!({}));
    assert_eq!(first.ids(), again.ids());

    // A changed database keeps the ids of what did not change.
    let connection = rusqlite::Connection::open(&path).expect("open the database");
    connection
        .execute_batch(
            "CREATE TABLE Product_Notes (note TEXT); INSERT INTO customer (name) VALUES ('Di');",
        )
        .expect("change the database");
    drop(connection);
    let changed = harvest(&path, json!({}));
    assert!(first.ids().is_subset(&changed.ids()));
    let added: Vec<String> = changed.ids().difference(&first.ids()).cloned().collect();
    assert_eq!(added, vec!["main.product_notes", "main.product_notes.note"]);
    assert_eq!(
        changed.attribute("main.customer", "Row Count"),
        Some(("Integer", "4"))
    );
}

#[test]
fn schemas_and_files_that_are_not_there() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = shop(&dir);
    let sent = harvest(&path, json!({"schemas": "MAIN"}));
    assert_eq!(sent.tree("Schema"), vec![pair("main", "shop")]);

    let error = run(json!({"url": url(&path), "schemas": "main, sales"})).error();
    assert_eq!(
        error,
        "no schema 'sales' in the database; its schemas are main"
    );

    let missing = dir.path().join("missing.db");
    let error = run(json!({"url": url(&missing)})).error();
    assert_eq!(
        error,
        format!(
            "cannot open SQLite database {}: no such file",
            missing.display()
        )
    );

    let text = dir.path().join("notes.txt");
    std::fs::write(
        &text,
        "not a database, but long enough to have a header of sorts......",
    )
    .expect("write a text file");
    let error = run(json!({"url": format!("sqlite:{}", text.display())})).error();
    assert_eq!(
        error,
        format!(
            "cannot read SQLite database {}: file is not a database",
            text.display()
        )
    );
}

#[test]
fn views_get_lineage_from_their_definitions() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("lineage.db");
    let connection = rusqlite::Connection::open(&path).expect("create the database");
    connection
        .execute_batch(
            "CREATE TABLE Customer (Id INTEGER PRIMARY KEY, Name TEXT, country TEXT);
             CREATE TABLE orders (id INTEGER PRIMARY KEY, customer_id INTEGER, amount NUMERIC,
                                  status TEXT);
             -- A join and an aggregate; the view's column list renames the query's columns.
             CREATE VIEW revenue (who, total, n) AS
                 SELECT c.name, sum(o.amount), count(*)
                 FROM orders o JOIN customer c ON c.id = o.customer_id
                 WHERE o.status = 'paid' GROUP BY c.name;
             -- `*` over a harvested table, names in another case than declared.
             CREATE VIEW everyone AS SELECT * FROM CUSTOMER;
             -- A view over a view, and over a table the harvest leaves out.
             CREATE VIEW \"Big Spenders\" AS
                 SELECT upper(who) AS who, total FROM revenue WHERE total > 100;
             CREATE VIEW tables AS SELECT name, sql FROM sqlite_master;
             -- A column of no table: SQLite takes the view, but cannot say its columns.
             CREATE VIEW broken AS SELECT id, nope FROM orders;",
        )
        .expect("fill the database");
    drop(connection);
    let sent = harvest(&path, json!({}));

    assert_eq!(
        sent.lineage(),
        vec![
            edge("sql view", "main.customer", "main.everyone"),
            edge("sql view", "main.customer", "main.revenue"),
            edge("sql view", "main.orders", "main.broken"),
            edge("sql view", "main.orders", "main.revenue"),
            edge("sql view", "main.revenue", "main.big spenders"),
            edge(
                "sql view (DIRECT/AGGREGATION)",
                "main.orders.amount",
                "main.revenue.total"
            ),
            edge(
                "sql view (DIRECT/IDENTITY)",
                "main.customer.country",
                "main.everyone.country"
            ),
            edge(
                "sql view (DIRECT/IDENTITY)",
                "main.customer.id",
                "main.everyone.id"
            ),
            edge(
                "sql view (DIRECT/IDENTITY)",
                "main.customer.name",
                "main.everyone.name"
            ),
            edge(
                "sql view (DIRECT/IDENTITY)",
                "main.customer.name",
                "main.revenue.who"
            ),
            edge(
                "sql view (DIRECT/IDENTITY)",
                "main.revenue.total",
                "main.big spenders.total"
            ),
            edge(
                "sql view (DIRECT/TRANSFORMATION)",
                "main.revenue.who",
                "main.big spenders.who"
            ),
        ]
    );
    let warnings = sent.lines(Level::Warn);
    assert_eq!(
        warnings,
        [
            "the columns of broken cannot be read: no such column: nope",
            "view main.broken: column 'nope' is in none of the tables read (orders)",
            "view main.broken: its columns are not known; the lineage of its columns is \
             not linked",
            "view main.tables: table 'sqlite_master' is not harvested; it is not linked",
        ],
        "{warnings:#?}"
    );
    let summary = &sent.logs.last().expect("a summary").message;
    assert!(
        summary.ends_with("0 indexes, 12 lineage relationships"),
        "{summary}"
    );
}
