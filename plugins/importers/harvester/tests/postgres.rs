//! Harvesting a PostgreSQL database made for the test on the local server
//! (`postgres://postgres@127.0.0.1:5432`, trust authentication). Without a server the
//! tests are skipped with a note, unless `CI` is set: then they fail.

mod common;

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use common::{Harvest, edge, harvest};
use lore_plugin_sdk::testing::Outcome;
use lore_plugin_sdk::{Level, Relationship};
use serde_json::json;
use sqlx::postgres::PgConnection;
use sqlx::{AssertSqlSafe, Connection};
use tokio::runtime::Runtime;

const ADMIN: &str = "postgres://postgres@127.0.0.1:5432/postgres";

const SHOP: &str = "
COMMENT ON DATABASE \"$DB\" IS 'Harvest test';
CREATE SCHEMA sales;
COMMENT ON SCHEMA sales IS 'Customers and their orders';
CREATE SCHEMA hr;
CREATE TABLE hr.employee (id int PRIMARY KEY, name varchar(80) NOT NULL);
CREATE TABLE sales.customer (
    id serial PRIMARY KEY,
    name varchar(100) NOT NULL,
    email text UNIQUE,
    account_manager int REFERENCES hr.employee (id)
);
COMMENT ON TABLE sales.customer IS 'One row per customer';
COMMENT ON COLUMN sales.customer.email IS 'Contact address';
CREATE TABLE sales.orders (
    order_id bigint PRIMARY KEY,
    customer_id int NOT NULL,
    amount numeric(10, 2),
    paid boolean DEFAULT false,
    placed date,
    CONSTRAINT fk_orders_customer FOREIGN KEY (customer_id) REFERENCES sales.customer (id)
);
COMMENT ON CONSTRAINT fk_orders_customer ON sales.orders IS 'Who ordered';
CREATE INDEX orders_placed_idx ON sales.orders (placed);
CREATE VIEW sales.big_orders AS SELECT order_id, amount FROM sales.orders WHERE amount > 100;
CREATE TABLE sales.\"Tag\" (x int);
CREATE TABLE sales.tag (y int);
CREATE TABLE sales.\"Audit_Log\" (id int);
INSERT INTO hr.employee VALUES (1, 'Eve');
INSERT INTO sales.customer (name, email, account_manager) VALUES
    ('Ada', 'ada@example.com', 1), ('Bob', NULL, NULL), ('Cy', 'cy@example.com', 1);
INSERT INTO sales.orders VALUES
    (1, 1, 10.50, false, '2024-01-02'),
    (2, 1, 200.00, true, '2024-01-03'),
    (3, 2, 30.25, true, NULL),
    (4, 3, NULL, false, '2024-02-01');
ANALYZE;
";

/// A database of its own for one test, dropped when the test ends (passed or not).
struct TestDatabase {
    name: String,
    runtime: Runtime,
}

impl TestDatabase {
    /// Creates the database and runs `ddl` in it (`$DB` is its name); `None` when there is
    /// no server to create it on and `CI` is not set.
    fn create(ddl: &str) -> Option<Self> {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("a runtime");
        let mut admin = match runtime.block_on(PgConnection::connect(ADMIN)) {
            Ok(admin) => admin,
            Err(e) if std::env::var_os("CI").is_some() => {
                panic!("PostgreSQL at {ADMIN} is unreachable: {e}")
            }
            Err(e) => {
                eprintln!(
                    "note: skipped, PostgreSQL at {ADMIN} is unreachable ({e}); set CI to fail instead"
                );
                return None;
            }
        };
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let name = format!(
            "lore_harvest_{}_{nanos}_{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        );
        runtime
            .block_on(
                sqlx::raw_sql(AssertSqlSafe(format!("CREATE DATABASE {name}"))).execute(&mut admin),
            )
            .expect("create the test database");
        let _ = runtime.block_on(admin.close());
        let database = Self { name, runtime };
        let mut connection = database
            .runtime
            .block_on(PgConnection::connect(&database.url()))
            .expect("connect to the test database");
        database
            .runtime
            .block_on(
                sqlx::raw_sql(AssertSqlSafe(ddl.replace("$DB", &database.name)))
                    .execute(&mut connection),
            )
            .expect("fill the test database");
        let _ = database.runtime.block_on(connection.close());
        Some(database)
    }

    fn url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:5432/{}", self.name)
    }

    fn harvest(&self, parameters: serde_json::Value) -> Outcome {
        let mut parameters = parameters;
        parameters["url"] = json!(self.url());
        harvest(parameters)
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        let drop = format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name);
        let dropped = self.runtime.block_on(async {
            let mut admin = PgConnection::connect(ADMIN).await?;
            sqlx::raw_sql(AssertSqlSafe(drop))
                .execute(&mut admin)
                .await?;
            admin.close().await
        });
        if let Err(e) = dropped {
            eprintln!("could not drop the test database {}: {e}", self.name);
        }
    }
}

fn pair(id: &str, parent: &str) -> (String, Option<String>) {
    (id.to_owned(), Some(parent.to_owned()))
}

#[test]
fn the_catalog_becomes_a_database_model() {
    let Some(db) = TestDatabase::create(SHOP) else {
        return;
    };
    let sent = db.harvest(json!({}));
    let name = db.name.as_str();

    shop_objects(&sent, name);
    shop_columns(&sent);
    shop_keys_relationships_and_indexes(&sent);
    shop_row_estimates_and_view(&sent);
    shop_view_lineage(&sent);

    assert_eq!(sent.profilings().count(), 0);
    assert_eq!(
        sent.logs.last().map(|l| (l.level, l.message.clone())),
        Some((
            Level::Info,
            format!(
                "harvested {}: 3 schemas, 6 tables, 1 views, 16 columns, 3 primary keys, \
                 2 foreign keys, 2 indexes, 3 lineage relationships",
                db.url()
            )
        ))
    );

    // The same database, the same ids.
    assert_eq!(db.harvest(json!({})).ids(), sent.ids());
}

/// The model, the database, its schemas, tables and views, with their comments.
fn shop_objects(sent: &Outcome, name: &str) {
    let model = sent.model().expect("a model");
    assert_eq!(model.name, name);
    assert_eq!(model.profile, "RDBMS Relational Database (Database)");
    assert_eq!(model.description, "Harvest test");

    assert_eq!(sent.tree("Database"), vec![(name.to_owned(), None)]);
    assert_eq!(
        sent.object(name).description.as_deref(),
        Some("Harvest test")
    );
    let (_, version) = sent.attribute(name, "Database Version").expect("a version");
    assert!(version.starts_with("PostgreSQL "), "{version}");
    assert_eq!(
        sent.tree("Schema"),
        vec![pair("hr", name), pair("public", name), pair("sales", name)]
    );
    assert_eq!(
        sent.object("sales").description.as_deref(),
        Some("Customers and their orders")
    );
    // Lower-cased ids, but a name that differs from a sibling only by case keeps it.
    assert_eq!(
        sent.tree("Table"),
        vec![
            pair("hr.employee", "hr"),
            pair("sales.Tag", "sales"),
            pair("sales.audit_log", "sales"),
            pair("sales.customer", "sales"),
            pair("sales.orders", "sales"),
            pair("sales.tag", "sales"),
        ]
    );
    assert_eq!(sent.object("sales.audit_log").name, "Audit_Log");
    assert_eq!(sent.object("sales.Tag.x").name, "x");
    assert_eq!(sent.object("sales.tag.y").name, "y");
    assert_eq!(sent.tree("View"), vec![pair("sales.big_orders", "sales")]);
    assert_eq!(
        sent.object("sales.customer").description.as_deref(),
        Some("One row per customer")
    );
}

/// Columns: types, positions, nullability, defaults, lengths, comments.
fn shop_columns(sent: &Outcome) {
    let types: Vec<(String, Option<String>)> =
        ["order_id", "customer_id", "amount", "paid", "placed"]
            .iter()
            .map(|c| {
                let id = format!("sales.orders.{c}");
                (id.clone(), sent.object(&id).data_type.clone())
            })
            .collect();
    assert_eq!(
        types,
        vec![
            (
                "sales.orders.order_id".to_owned(),
                Some("bigint".to_owned())
            ),
            (
                "sales.orders.customer_id".to_owned(),
                Some("integer".to_owned())
            ),
            (
                "sales.orders.amount".to_owned(),
                Some("numeric(10,2)".to_owned())
            ),
            ("sales.orders.paid".to_owned(), Some("boolean".to_owned())),
            ("sales.orders.placed".to_owned(), Some("date".to_owned())),
        ]
    );
    assert_eq!(
        sent.attribute("sales.orders.amount", "Position"),
        Some(("Integer", "3"))
    );
    assert_eq!(
        sent.attribute("sales.orders.amount", "Nullable"),
        Some(("Boolean", "true"))
    );
    assert_eq!(
        sent.attribute("sales.orders.customer_id", "Nullable"),
        Some(("Boolean", "false"))
    );
    assert_eq!(
        sent.attribute("sales.orders.paid", "Default Value"),
        Some(("String", "false"))
    );
    assert_eq!(
        sent.attribute("sales.customer.id", "Default Value"),
        Some(("String", "nextval('sales.customer_id_seq'::regclass)"))
    );
    assert_eq!(
        sent.object("sales.customer.name").data_type.as_deref(),
        Some("character varying(100)")
    );
    assert_eq!(
        sent.attribute("sales.customer.name", "Length"),
        Some(("Integer", "100"))
    );
    assert_eq!(
        sent.object("sales.customer.email").description.as_deref(),
        Some("Contact address")
    );
}

/// Keys, relationships, indexes.
fn shop_keys_relationships_and_indexes(sent: &Outcome) {
    assert_eq!(
        sent.tree("Primary Key"),
        vec![
            pair("hr.employee.employee_pkey", "hr.employee"),
            pair("sales.customer.customer_pkey", "sales.customer"),
            pair("sales.orders.orders_pkey", "sales.orders"),
        ]
    );
    assert_eq!(
        sent.object("sales.orders.orders_pkey")
            .description
            .as_deref(),
        Some("Primary key on order_id")
    );
    assert_eq!(
        sent.tree("Foreign Key"),
        vec![
            pair(
                "sales.customer.customer_account_manager_fkey",
                "sales.customer"
            ),
            pair("sales.orders.fk_orders_customer", "sales.orders"),
        ]
    );
    assert_eq!(
        sent.object("sales.orders.fk_orders_customer")
            .description
            .as_deref(),
        Some("Who ordered")
    );
    assert_eq!(
        sent.object("sales.customer.customer_account_manager_fkey")
            .description
            .as_deref(),
        Some("account_manager references hr.employee (id)")
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
                "customer_account_manager_fkey",
                "sales.customer",
                "hr.employee"
            ),
            &Relationship::new(
                "entity_relationship",
                "fk_orders_customer",
                "sales.orders",
                "sales.customer"
            ),
        ]
    );
    assert_eq!(
        sent.tree("Index"),
        vec![
            pair("sales.customer.customer_email_key", "sales.customer"),
            pair("sales.orders.orders_placed_idx", "sales.orders"),
        ]
    );
    assert_eq!(
        sent.object("sales.customer.customer_email_key")
            .description
            .as_deref(),
        Some("Unique index on email")
    );
}

/// Row estimates of analyzed tables; a view's query.
fn shop_row_estimates_and_view(sent: &Outcome) {
    assert_eq!(
        sent.attribute("sales.customer", "Row Count"),
        Some(("Integer", "3"))
    );
    assert_eq!(
        sent.attribute("sales.orders", "Row Count"),
        Some(("Integer", "4"))
    );
    let (_, statement) = sent
        .attribute("sales.big_orders", "View Statement")
        .expect("a view statement");
    // PostgreSQL's own spelling, which qualifies columns before version 16.
    assert!(statement.starts_with("SELECT "), "{statement}");
    assert!(statement.contains("order_id,"), "{statement}");
    assert!(statement.contains("FROM sales.orders"), "{statement}");
    assert!(statement.contains("amount > 100::numeric"), "{statement}");
}

/// The view's lineage, from its definition; nothing is left unlinked.
fn shop_view_lineage(sent: &Outcome) {
    assert_eq!(
        sent.lineage(),
        vec![
            edge("sql view", "sales.orders", "sales.big_orders"),
            edge(
                "sql view (DIRECT/IDENTITY)",
                "sales.orders.amount",
                "sales.big_orders.amount"
            ),
            edge(
                "sql view (DIRECT/IDENTITY)",
                "sales.orders.order_id",
                "sales.big_orders.order_id"
            ),
        ]
    );
    assert_eq!(sent.lines(Level::Warn), Vec::<String>::new());
}

#[test]
fn schemas_filter_and_profiling() {
    let Some(db) = TestDatabase::create(SHOP) else {
        return;
    };
    let sent = db.harvest(json!({"schemas": "sales", "profile": true}));
    assert_eq!(sent.tree("Schema"), vec![pair("sales", &db.name)]);
    assert!(sent.ids().iter().all(|id| !id.starts_with("hr")));
    // The key to a schema not harvested stays; its relationship cannot be made.
    assert!(
        sent.ids()
            .contains("sales.customer.customer_account_manager_fkey")
    );
    assert_eq!(
        sent.relationships()
            .filter(|r| r.kind == "entity_relationship")
            .count(),
        1
    );
    assert!(sent.logs.iter().any(|l| l.level == Level::Warn
        && l.message
            == "foreign key customer_account_manager_fkey of customer: hr.employee (id) is \
                not harvested; no relationship is made"));

    let amount = sent.data_profile("sales.orders.amount");
    assert_eq!(amount["totalProfiledRows"], 4);
    assert_eq!(amount["inferredDataTypes"], json!({"DECIMAL": 3}));
    assert_eq!(amount["patterns"], json!({"99.99": 2, "999.99": 1}));
    let s = &amount["statistics"];
    assert_eq!(s["EmptyRows"], 1);
    assert_eq!(s["min"], 10.5);
    assert_eq!(s["max"], 200.0);
    assert_eq!(s["mean"], 80.25);
    assert_eq!(
        sent.data_sample("sales.orders.amount")["samples"],
        json!([[10.5], [200.0], [30.25], [null]])
    );
    assert_eq!(
        sent.data_profile("sales.orders.paid")["inferredDataTypes"],
        json!({"BOOLEAN": 4})
    );
    assert_eq!(
        sent.data_sample("sales.orders.paid")["samples"],
        json!([[false], [true], [true], [false]])
    );
    assert_eq!(
        sent.data_profile("sales.orders.placed")["inferredDataTypes"],
        json!({"DATE": 3})
    );
    let email = sent.data_profile("sales.customer.email");
    assert_eq!(email["statistics"]["DistinctRows"], 2);
    assert_eq!(email["statistics"]["EmptyRows"], 1);
    assert_eq!(
        sent.data_sample("sales.orders"),
        &json!({
            "header": ["order_id", "customer_id", "amount", "paid", "placed"],
            "samples": [[1, 1, 10.5, false, "2024-01-02"], [2, 1, 200.0, true, "2024-01-03"],
                        [3, 2, 30.25, true, null], [4, 3, null, false, "2024-02-01"]]
        })
    );
    // Views are not read.
    assert!(
        sent.profilings()
            .all(|p| !p.native_id.starts_with("sales.big_orders"))
    );
    // Five tables and their twelve columns.
    assert_eq!(sent.profilings().count(), 5 + 12);

    // sampleRows bounds the rows read.
    let sent = db.harvest(json!({"schemas": "sales", "profile": true, "sampleRows": 3}));
    assert_eq!(
        sent.data_profile("sales.orders.amount")["totalProfiledRows"],
        3
    );
    assert_eq!(
        sent.data_sample("sales.orders")["samples"]
            .as_array()
            .map(Vec::len),
        Some(3)
    );
}

const VIEWS: &str = "
CREATE SCHEMA sales;
CREATE SCHEMA hr;
CREATE TABLE public.rates (currency text, rate numeric);
CREATE TABLE sales.orders (id int, customer_id int, amount numeric, currency text, status text);
CREATE TABLE sales.customers (id int, name text);
CREATE TABLE hr.staff (id int, name text);
-- A join of three tables with an aggregate; `rates` is found on the search path.
CREATE VIEW sales.revenue AS
    SELECT c.name AS customer, sum(o.amount * r.rate) AS total
    FROM sales.orders o
    JOIN sales.customers c ON c.id = o.customer_id
    JOIN rates r ON r.currency = o.currency
    WHERE o.status = 'paid'
    GROUP BY c.name;
-- `*`, which PostgreSQL expands in the view's definition.
CREATE VIEW sales.everyone AS SELECT * FROM sales.customers;
CREATE MATERIALIZED VIEW sales.daily AS
    SELECT status, count(*) AS n, max(amount) AS top FROM sales.orders GROUP BY status;
-- Over a table of a schema the harvest leaves out.
CREATE VIEW sales.people AS
    SELECT name FROM sales.customers UNION SELECT name FROM hr.staff;
";

#[test]
fn views_get_lineage_from_their_definitions() {
    let Some(db) = TestDatabase::create(VIEWS) else {
        return;
    };
    let sent = db.harvest(json!({"schemas": "sales,public"}));
    assert_eq!(
        sent.lineage(),
        vec![
            edge("sql materialized view", "sales.orders", "sales.daily"),
            edge(
                "sql materialized view (DIRECT/AGGREGATION)",
                "sales.orders.amount",
                "sales.daily.top"
            ),
            edge(
                "sql materialized view (DIRECT/IDENTITY)",
                "sales.orders.status",
                "sales.daily.status"
            ),
            edge("sql view", "public.rates", "sales.revenue"),
            edge("sql view", "sales.customers", "sales.everyone"),
            edge("sql view", "sales.customers", "sales.people"),
            edge("sql view", "sales.customers", "sales.revenue"),
            edge("sql view", "sales.orders", "sales.revenue"),
            edge(
                "sql view (DIRECT/AGGREGATION)",
                "public.rates.rate",
                "sales.revenue.total"
            ),
            edge(
                "sql view (DIRECT/AGGREGATION)",
                "sales.orders.amount",
                "sales.revenue.total"
            ),
            edge(
                "sql view (DIRECT/IDENTITY)",
                "sales.customers.id",
                "sales.everyone.id"
            ),
            edge(
                "sql view (DIRECT/IDENTITY)",
                "sales.customers.name",
                "sales.everyone.name"
            ),
            edge(
                "sql view (DIRECT/IDENTITY)",
                "sales.customers.name",
                "sales.people.name"
            ),
            edge(
                "sql view (DIRECT/IDENTITY)",
                "sales.customers.name",
                "sales.revenue.customer"
            ),
        ]
    );
    assert_eq!(
        sent.lines(Level::Warn),
        ["view sales.people: table 'hr.staff' is not harvested; it is not linked"]
    );
    let summary = &sent.logs.last().expect("a summary").message;
    assert!(
        summary.ends_with("0 indexes, 14 lineage relationships"),
        "{summary}"
    );
}
