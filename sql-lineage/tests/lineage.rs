//! The lineage rules, one test (or a few) each, through the public API.

use lore_sql_lineage::{
    ColumnLineage, Dialect, KnownColumns, Lineage, NoColumns, Schema, SourceColumn, StatementKind,
    StatementLineage, TableName, Transformation as T, lineage, query_lineage, schema_from_ddl,
};

fn t(name: &str) -> TableName {
    TableName::new(name.split('.'))
}

fn src(table: &str, column: &str, transformation: T) -> SourceColumn {
    SourceColumn {
        table: t(table),
        column: column.to_string(),
        transformation,
    }
}

fn col(name: &str, sources: Vec<SourceColumn>) -> ColumnLineage {
    ColumnLineage {
        column: name.to_string(),
        sources,
        complete: true,
    }
}

fn shop() -> Schema {
    schema_from_ddl(
        "CREATE TABLE public.orders (id int, customer_id int, amount numeric, status text, currency text);
         CREATE TABLE public.customers (id int, name text, country text);
         CREATE TABLE public.rates (currency text, rate numeric);
         CREATE TABLE public.staging (id int, name text);",
        Dialect::Postgres,
    )
}

/// The only statement of a script, which must have no problems.
fn one(sql: &str, dialect: Dialect, known: &dyn KnownColumns) -> StatementLineage {
    let Lineage {
        mut statements,
        problems,
    } = lineage(sql, dialect, known);
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(statements.len(), 1, "{statements:#?}");
    statements.remove(0)
}

fn pg(sql: &str) -> StatementLineage {
    one(sql, Dialect::Postgres, &shop())
}

#[test]
fn view_with_joins_and_aliases() {
    let l = pg("CREATE VIEW reporting.order_summary AS
        SELECT o.id AS order_id, c.name AS customer, o.amount * 1.2 AS gross, status
        FROM public.orders o
        JOIN customers AS c ON o.customer_id = c.id
        LEFT JOIN rates r ON r.currency = o.currency
        WHERE o.status = 'paid'");
    assert_eq!(l.kind, StatementKind::CreateView);
    assert_eq!(l.line, 1);
    assert_eq!(l.target, Some(t("reporting.order_summary")));
    assert_eq!(
        l.sources,
        vec![t("customers"), t("public.orders"), t("rates")]
    );
    assert_eq!(
        l.columns,
        vec![
            col("order_id", vec![src("public.orders", "id", T::Identity)]),
            col("customer", vec![src("customers", "name", T::Identity)]),
            col(
                "gross",
                vec![src("public.orders", "amount", T::Transformation)]
            ),
            col("status", vec![src("public.orders", "status", T::Identity)]),
        ]
    );
    assert_eq!(
        l.indirect,
        vec![
            src("customers", "id", T::Join),
            src("public.orders", "currency", T::Join),
            src("public.orders", "customer_id", T::Join),
            src("public.orders", "status", T::Filter),
            src("rates", "currency", T::Join),
        ]
    );
    assert!(l.unresolved.is_empty(), "{:?}", l.unresolved);
}

#[test]
fn cte_chain_resolves_to_base_tables() {
    let l = pg("WITH paid AS (SELECT id, customer_id, amount FROM orders WHERE status = 'paid'),
                  per_customer AS (SELECT customer_id AS cid, sum(amount) AS total FROM paid GROUP BY customer_id),
                  named AS (SELECT c.name, p.total FROM per_customer p JOIN customers c ON c.id = p.cid)
             SELECT name, total AS revenue FROM named ORDER BY revenue DESC");
    assert_eq!(l.kind, StatementKind::Select);
    assert_eq!(l.target, None);
    assert_eq!(l.sources, vec![t("customers"), t("orders")]);
    assert_eq!(
        l.columns,
        vec![
            col("name", vec![src("customers", "name", T::Identity)]),
            // Identity of an aggregate is an aggregate.
            col("revenue", vec![src("orders", "amount", T::Aggregation)]),
        ]
    );
    assert_eq!(
        l.indirect,
        vec![
            src("customers", "id", T::Join),
            src("orders", "amount", T::Sort),
            src("orders", "customer_id", T::Join),
            src("orders", "customer_id", T::GroupBy),
            src("orders", "status", T::Filter),
        ]
    );
}

#[test]
fn subquery_in_from_with_alias_and_column_names() {
    let l = pg("SELECT x.k, x.v + 1 AS v1
                FROM (SELECT id, amount FROM orders WHERE currency = 'EUR') AS x (k, v)");
    assert_eq!(
        l.columns,
        vec![
            col("k", vec![src("orders", "id", T::Identity)]),
            col("v1", vec![src("orders", "amount", T::Transformation)]),
        ]
    );
    assert_eq!(l.indirect, vec![src("orders", "currency", T::Filter)]);
}

#[test]
fn union_draws_each_column_from_every_branch() {
    let l = pg("SELECT id, name AS label FROM customers
                UNION ALL SELECT id, status FROM orders
                UNION SELECT 0, 'none'");
    assert_eq!(l.sources, vec![t("customers"), t("orders")]);
    assert_eq!(
        l.columns,
        vec![
            col(
                "id",
                vec![
                    src("customers", "id", T::Identity),
                    src("orders", "id", T::Identity)
                ]
            ),
            col(
                "label",
                vec![
                    src("customers", "name", T::Identity),
                    src("orders", "status", T::Identity)
                ]
            ),
        ]
    );
}

#[test]
fn star_expands_known_tables_ctes_and_says_so_for_unknown_ones() {
    let l = pg("SELECT * FROM customers");
    let names: Vec<&str> = l.columns.iter().map(|c| c.column.as_str()).collect();
    assert_eq!(names, ["id", "name", "country"]);
    assert_eq!(
        l.columns[2].sources,
        vec![src("customers", "country", T::Identity)]
    );

    // Through a CTE, `*` needs no schema.
    let l = one(
        "WITH x AS (SELECT a, b + 1 AS c FROM raw) SELECT * FROM x",
        Dialect::Postgres,
        &NoColumns,
    );
    assert_eq!(
        l.columns,
        vec![
            col("a", vec![src("raw", "a", T::Identity)]),
            col("c", vec![src("raw", "b", T::Transformation)]),
        ]
    );

    // A table whose columns are not known.
    let l = pg("SELECT c.*, m.* FROM customers c JOIN mystery m ON m.customer_id = c.id");
    assert_eq!(l.columns.len(), 3);
    assert_eq!(
        l.unresolved,
        ["'*' of table 'mystery' whose columns are not known"]
    );
    assert_eq!(l.sources, vec![t("customers"), t("mystery")]);
}

#[test]
fn insert_with_and_without_column_list() {
    let l = pg("INSERT INTO customers (name, id) SELECT status, id FROM orders WHERE amount > 0");
    assert_eq!(l.kind, StatementKind::Insert);
    assert_eq!(l.target, Some(t("customers")));
    assert_eq!(l.sources, vec![t("orders")]);
    assert_eq!(
        l.columns,
        vec![
            col("name", vec![src("orders", "status", T::Identity)]),
            col("id", vec![src("orders", "id", T::Identity)]),
        ]
    );

    // No column list: the target's known columns, in order.
    let l = pg("INSERT INTO public.customers SELECT id, upper(status) FROM orders");
    assert_eq!(
        l.columns,
        vec![
            col("id", vec![src("orders", "id", T::Identity)]),
            col("name", vec![src("orders", "status", T::Transformation)]),
        ]
    );

    // Unknown target: the query's own output names.
    let l = pg("INSERT INTO archive.old_orders SELECT id AS order_id, amount FROM orders");
    let names: Vec<&str> = l.columns.iter().map(|c| c.column.as_str()).collect();
    assert_eq!(names, ["order_id", "amount"]);

    // VALUES: target columns without sources.
    let l = pg("INSERT INTO customers (id, name) VALUES (1, 'a'), (2, 'b')");
    assert_eq!(l.columns, vec![col("id", vec![]), col("name", vec![])]);
    assert!(l.sources.is_empty());
}

#[test]
fn create_table_as_select() {
    let l = pg(
        "CREATE TABLE big_orders AS SELECT id, amount, amount > 1000 AS huge FROM orders WHERE amount > 100",
    );
    assert_eq!(l.kind, StatementKind::CreateTableAs);
    assert_eq!(l.target, Some(t("big_orders")));
    assert_eq!(
        l.columns,
        vec![
            col("id", vec![src("orders", "id", T::Identity)]),
            col("amount", vec![src("orders", "amount", T::Identity)]),
            col("huge", vec![src("orders", "amount", T::Transformation)]),
        ]
    );
    assert_eq!(l.indirect, vec![src("orders", "amount", T::Filter)]);

    let l = pg("CREATE MATERIALIZED VIEW mv (k) AS SELECT id FROM orders");
    assert_eq!(l.kind, StatementKind::CreateMaterializedView);
    assert_eq!(
        l.columns,
        vec![col("k", vec![src("orders", "id", T::Identity)])]
    );
}

#[test]
fn merge_takes_columns_from_its_clauses() {
    let l = pg("MERGE INTO customers t USING staging s ON t.id = s.id
                WHEN MATCHED AND s.name IS NOT NULL THEN UPDATE SET name = s.name
                WHEN NOT MATCHED THEN INSERT (id, name) VALUES (s.id, upper(s.name))");
    assert_eq!(l.kind, StatementKind::Merge);
    assert_eq!(l.target, Some(t("customers")));
    assert_eq!(l.sources, vec![t("customers"), t("staging")]);
    assert_eq!(
        l.columns,
        vec![
            // Copied by the UPDATE, transformed by the INSERT: the stronger one.
            col("name", vec![src("staging", "name", T::Transformation)]),
            col("id", vec![src("staging", "id", T::Identity)]),
        ]
    );
    assert_eq!(
        l.indirect,
        vec![
            src("customers", "id", T::Join),
            src("staging", "id", T::Join),
            src("staging", "name", T::Filter),
        ]
    );
}

#[test]
fn update_from() {
    let l = pg(
        "UPDATE orders o SET amount = o.amount * r.rate, currency = 'EUR'
                FROM rates r WHERE r.currency = o.currency",
    );
    assert_eq!(l.kind, StatementKind::Update);
    assert_eq!(l.target, Some(t("orders")));
    assert_eq!(l.sources, vec![t("orders"), t("rates")]);
    assert_eq!(
        l.columns,
        vec![
            col(
                "amount",
                vec![
                    src("orders", "amount", T::Transformation),
                    src("rates", "rate", T::Transformation)
                ]
            ),
            col("currency", vec![]),
        ]
    );
    assert_eq!(
        l.indirect,
        vec![
            src("orders", "currency", T::Filter),
            src("rates", "currency", T::Filter),
        ]
    );
}

#[test]
fn aggregates_case_and_filter() {
    let l = pg("SELECT status, count(*) AS n,
                       sum(CASE WHEN status = 'paid' THEN amount ELSE 0 END) AS paid,
                       max(amount) FILTER (WHERE currency = 'EUR') AS max_eur,
                       CASE WHEN count(*) > 10 THEN 'many' ELSE 'few' END AS size
                FROM orders GROUP BY 1 HAVING sum(amount) > 0 ORDER BY n DESC");
    assert_eq!(
        l.columns,
        vec![
            col("status", vec![src("orders", "status", T::Identity)]),
            // count(*) reads no column: legitimately sourceless.
            col("n", vec![]),
            col(
                "paid",
                vec![
                    src("orders", "amount", T::Aggregation),
                    src("orders", "status", T::Conditional)
                ]
            ),
            col(
                "max_eur",
                vec![
                    src("orders", "amount", T::Aggregation),
                    src("orders", "currency", T::Filter)
                ]
            ),
            col("size", vec![]),
        ]
    );
    assert_eq!(
        l.indirect,
        vec![
            src("orders", "amount", T::Filter),
            src("orders", "status", T::GroupBy),
        ]
    );
    assert_eq!(l.sources, vec![t("orders")]);
}

#[test]
fn window_functions() {
    let l = pg("SELECT id,
                       row_number() OVER (PARTITION BY customer_id ORDER BY amount DESC) AS rn,
                       sum(amount) OVER w AS running,
                       lag(status) OVER w AS previous
                FROM orders WINDOW w AS (PARTITION BY currency ORDER BY id)");
    assert_eq!(
        l.columns,
        vec![
            col("id", vec![src("orders", "id", T::Identity)]),
            col(
                "rn",
                vec![
                    src("orders", "amount", T::Window),
                    src("orders", "customer_id", T::Window)
                ]
            ),
            col(
                "running",
                vec![
                    src("orders", "amount", T::Aggregation),
                    src("orders", "currency", T::Window),
                    src("orders", "id", T::Window)
                ]
            ),
            col(
                "previous",
                vec![
                    src("orders", "status", T::Transformation),
                    src("orders", "currency", T::Window),
                    src("orders", "id", T::Window)
                ]
            ),
        ]
    );
    assert_eq!(
        l.indirect,
        vec![
            src("orders", "amount", T::Window),
            src("orders", "currency", T::Window),
            src("orders", "customer_id", T::Window),
            src("orders", "id", T::Window),
        ]
    );
}

#[test]
fn scalar_and_correlated_subqueries() {
    let l = pg("SELECT o.id,
                       (SELECT max(c.name) FROM customers c WHERE c.id = o.customer_id) AS cname
                FROM orders o
                WHERE EXISTS (SELECT 1 FROM staging s WHERE s.id = o.id)
                  AND o.customer_id IN (SELECT id FROM customers WHERE country = 'NL')");
    assert_eq!(l.sources, vec![t("customers"), t("orders"), t("staging")]);
    assert_eq!(
        l.columns,
        vec![
            col("id", vec![src("orders", "id", T::Identity)]),
            col("cname", vec![src("customers", "name", T::Aggregation)]),
        ]
    );
    assert_eq!(
        l.indirect,
        vec![
            src("customers", "country", T::Filter),
            src("customers", "id", T::Filter),
            src("orders", "customer_id", T::Filter),
            src("orders", "id", T::Filter),
            src("staging", "id", T::Filter),
        ]
    );
}

#[test]
fn recursive_cte_best_effort() {
    let l = pg("WITH RECURSIVE chain (n, cid) AS (
                    SELECT 1, id FROM customers
                    UNION ALL SELECT n + 1, cid FROM chain WHERE n < 10)
                SELECT n, cid FROM chain");
    assert_eq!(l.sources, vec![t("customers")]);
    assert_eq!(
        l.columns,
        vec![
            col("n", vec![]),
            col("cid", vec![src("customers", "id", T::Identity)]),
        ]
    );
    assert!(l.unresolved.is_empty(), "{:?}", l.unresolved);
}

#[test]
fn unqualified_columns_and_unresolved_messages() {
    // One table of unknown columns: its columns are attributed to it, silently.
    let l = one("SELECT a, b FROM t1", Dialect::Postgres, &NoColumns);
    assert_eq!(
        l.columns,
        vec![
            col("a", vec![src("t1", "a", T::Identity)]),
            col("b", vec![src("t1", "b", T::Identity)]),
        ]
    );
    assert!(l.unresolved.is_empty());

    // Several unknown tables: which one is not known.
    let l = one("SELECT a FROM t1, t2", Dialect::Postgres, &NoColumns);
    assert_eq!(
        l.unresolved,
        ["column 'a' could be in any of the tables read (t1, t2), whose columns are not known"]
    );
    assert!(!l.columns[0].complete);
    assert!(l.columns[0].sources.is_empty());

    // Known tables: none has it, or more than one.
    let l = pg("SELECT x FROM orders o JOIN customers c ON o.customer_id = c.id");
    assert_eq!(
        l.unresolved,
        ["column 'x' is in none of the tables read (o, c)"]
    );
    let l = pg("SELECT id FROM orders, customers");
    assert_eq!(
        l.unresolved,
        ["column 'id' is in more than one of the tables read (orders, customers)"]
    );
    // ... unless USING joined them.
    let l = pg("SELECT id, name FROM customers JOIN orders USING (id)");
    assert!(l.unresolved.is_empty(), "{:?}", l.unresolved);
    assert_eq!(
        l.columns[0].sources,
        vec![
            src("customers", "id", T::Identity),
            src("orders", "id", T::Identity)
        ]
    );

    let l = pg("SELECT o.nope, z.id FROM orders o");
    assert_eq!(
        l.unresolved,
        [
            "column 'nope' is not a column of 'o'",
            "table 'z' (in 'z.id') is not in the FROM clause"
        ]
    );

    // A known table among unknown ones: the known one decides.
    let l = pg("SELECT name, extra FROM customers JOIN mystery m ON m.id = customers.id");
    assert_eq!(
        l.columns,
        vec![
            col("name", vec![src("customers", "name", T::Identity)]),
            col("extra", vec![src("mystery", "extra", T::Identity)]),
        ]
    );
}

#[test]
fn output_aliases_in_group_by_order_by_and_select_list() {
    let l = pg(
        "SELECT customer_id AS cid, amount * 2 AS double, double + 1 AS more
                FROM orders GROUP BY cid, 2, 3 ORDER BY more",
    );
    assert_eq!(
        l.columns[2],
        col("more", vec![src("orders", "amount", T::Transformation)])
    );
    assert_eq!(
        l.indirect,
        vec![
            src("orders", "amount", T::GroupBy),
            src("orders", "amount", T::Sort),
            src("orders", "customer_id", T::GroupBy),
        ]
    );
}

#[test]
fn script_with_a_bad_statement_keeps_the_others() {
    let sql = "CREATE VIEW v1 AS SELECT id FROM orders;\n\
               -- the next one is broken\n\
               SELEC oops FROM WHERE;\n\
               \n\
               CREATE VIEW v2 AS\n  SELECT name FROM customers;\n";
    let l = lineage(sql, Dialect::Postgres, &shop());
    assert_eq!(l.problems.len(), 1, "{:?}", l.problems);
    let p = &l.problems[0];
    assert_eq!(p.line, 3);
    assert_eq!(p.start, "SELEC oops FROM WHERE");
    assert!(p.message.contains("SELEC"), "{}", p.message);
    assert!(p.message.contains("Line: 3"), "{}", p.message);
    let got: Vec<(usize, Option<TableName>)> = l
        .statements
        .iter()
        .map(|s| (s.line, s.target.clone()))
        .collect();
    assert_eq!(got, vec![(1, Some(t("v1"))), (5, Some(t("v2")))]);
    assert_eq!(
        l.statements[1].columns,
        vec![col("name", vec![src("customers", "name", T::Identity)])]
    );
}

#[test]
fn statement_lines_when_the_whole_script_parses() {
    let sql = "\n\n  /* head */ INSERT INTO a SELECT id FROM orders;\nINSERT INTO b\nSELECT name FROM customers; CREATE VIEW c AS SELECT 1 AS one";
    let l = lineage(sql, Dialect::Postgres, &shop());
    assert!(l.problems.is_empty(), "{:?}", l.problems);
    let lines: Vec<usize> = l.statements.iter().map(|s| s.line).collect();
    assert_eq!(lines, [3, 4, 5]);
}

#[test]
fn dollar_quoted_bodies_are_not_split() {
    let sql = "CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$\n\
               BEGIN\n  NEW.updated_at := now(); RETURN NEW;\nEND;\n$$;\n\
               CREATE FUNCTION f2() RETURNS int AS $body$ SELECT 1; $body$ LANGUAGE sql;\n\
               THIS IS NOT SQL;\n\
               CREATE VIEW paid AS SELECT id FROM orders WHERE status = 'paid;not a split';\n";
    let l = lineage(sql, Dialect::Postgres, &shop());
    let problem_lines: Vec<usize> = l.problems.iter().map(|p| p.line).collect();
    assert_eq!(problem_lines, [7], "{:?}", l.problems);
    assert_eq!(l.statements.len(), 1);
    assert_eq!(l.statements[0].line, 8);
    assert_eq!(l.statements[0].target, Some(t("paid")));
    assert_eq!(
        l.statements[0].indirect,
        vec![src("orders", "status", T::Filter)]
    );
}

#[test]
fn pg_dump_script_only_the_view_has_lineage() {
    let sql = r#"--
-- PostgreSQL database dump
--
SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SELECT pg_catalog.set_config('search_path', '', false);

CREATE TABLE public.orders (
    id integer NOT NULL,
    customer_id integer,
    amount numeric(12,2)
);

ALTER TABLE public.orders OWNER TO postgres;

CREATE VIEW public.big_orders AS
 SELECT orders.id,
    orders.amount
   FROM public.orders
  WHERE (orders.amount > (100)::numeric);

ALTER TABLE public.big_orders OWNER TO postgres;

ALTER TABLE ONLY public.orders
    ADD CONSTRAINT orders_pkey PRIMARY KEY (id);

COMMENT ON TABLE public.orders IS 'One row per checkout; see docs.';

GRANT SELECT ON TABLE public.big_orders TO reporting;
"#;
    let schema = schema_from_ddl(sql, Dialect::Postgres);
    let l = lineage(sql, Dialect::Postgres, &schema);
    assert!(l.problems.is_empty(), "{:?}", l.problems);
    assert_eq!(l.statements.len(), 1, "{:#?}", l.statements);
    let v = &l.statements[0];
    assert_eq!(v.kind, StatementKind::CreateView);
    assert_eq!(v.line, 16);
    assert_eq!(v.target, Some(t("public.big_orders")));
    assert_eq!(v.sources, vec![t("public.orders")]);
    assert_eq!(
        v.columns,
        vec![
            col("id", vec![src("public.orders", "id", T::Identity)]),
            col("amount", vec![src("public.orders", "amount", T::Identity)]),
        ]
    );
    assert_eq!(v.indirect, vec![src("public.orders", "amount", T::Filter)]);
}

#[test]
fn query_lineage_of_a_compiled_model() {
    let l = query_lineage(
        "-- dbt compiled\nselect customer_id, sum(amount) as lifetime_value\nfrom \"shop\".\"public\".\"orders\"\ngroup by 1",
        Dialect::Postgres,
        &shop(),
        Some(t("analytics.customer_value")),
        StatementKind::CreateTableAs,
    )
    .expect("a query");
    assert_eq!(l.kind, StatementKind::CreateTableAs);
    assert_eq!(l.line, 2);
    assert_eq!(l.target, Some(t("analytics.customer_value")));
    assert_eq!(l.sources, vec![t("shop.public.orders")]);
    assert_eq!(
        l.columns,
        vec![
            col(
                "customer_id",
                vec![src("shop.public.orders", "customer_id", T::Identity)]
            ),
            col(
                "lifetime_value",
                vec![src("shop.public.orders", "amount", T::Aggregation)]
            ),
        ]
    );

    let err = query_lineage(
        "ALTER TABLE orders ADD COLUMN x int",
        Dialect::Postgres,
        &NoColumns,
        None,
        StatementKind::Select,
    )
    .expect_err("not a query");
    assert_eq!(err.message, "statement kind ALTER TABLE has no lineage");
    assert_eq!(err.start, "ALTER TABLE orders ADD COLUMN x int");

    let err = query_lineage(
        "SELECT FROM WHERE",
        Dialect::Postgres,
        &NoColumns,
        None,
        StatementKind::Select,
    )
    .expect_err("does not parse");
    assert_eq!(err.line, 1);
    assert!(
        query_lineage(
            "SELECT 1; SELECT 2",
            Dialect::Postgres,
            &NoColumns,
            None,
            StatementKind::Select
        )
        .is_err()
    );
    assert!(
        query_lineage(
            "  -- nothing\n",
            Dialect::Postgres,
            &NoColumns,
            None,
            StatementKind::Select
        )
        .is_err()
    );
}

#[test]
fn identifiers_follow_the_dialect() {
    let l = one(
        "SELECT o.Id, \"Mixed\" FROM Shop.Orders o",
        Dialect::Snowflake,
        &NoColumns,
    );
    assert_eq!(l.sources, vec![t("SHOP.ORDERS")]);
    assert_eq!(
        l.columns,
        vec![
            col("ID", vec![src("SHOP.ORDERS", "ID", T::Identity)]),
            col("Mixed", vec![src("SHOP.ORDERS", "Mixed", T::Identity)]),
        ]
    );
    let l = one(
        "SELECT Id FROM `proj.ds.Orders`",
        Dialect::BigQuery,
        &NoColumns,
    );
    assert_eq!(l.sources, vec![t("proj.ds.Orders")]);
    assert_eq!(l.columns[0].column, "Id");
    let l = one("SELECT Id FROM Orders", Dialect::Postgres, &NoColumns);
    assert_eq!(l.sources, vec![t("orders")]);
    assert_eq!(l.columns[0].column, "id");
}

#[test]
fn snowflake_forms() {
    let l = one(
        "CREATE TABLE latest AS SELECT id, payload:customer.name::string AS cname
         FROM raw.orders QUALIFY row_number() OVER (PARTITION BY id ORDER BY loaded_at DESC) = 1",
        Dialect::Snowflake,
        &NoColumns,
    );
    assert_eq!(
        l.columns,
        vec![
            col("ID", vec![src("RAW.ORDERS", "ID", T::Identity)]),
            col(
                "CNAME",
                vec![src("RAW.ORDERS", "PAYLOAD", T::Transformation)]
            ),
        ]
    );
    assert_eq!(
        l.indirect,
        vec![
            src("RAW.ORDERS", "ID", T::Filter),
            src("RAW.ORDERS", "LOADED_AT", T::Filter),
        ]
    );
    // DATEADD's first argument is a date part, not a column.
    let l = one(
        "SELECT DATEADD(day, 1, created) AS next_day FROM t",
        Dialect::Snowflake,
        &NoColumns,
    );
    assert_eq!(
        l.columns,
        vec![col(
            "NEXT_DAY",
            vec![src("T", "CREATED", T::Transformation)]
        )]
    );
}

#[test]
fn expressions_are_named_by_their_text() {
    let l = pg("SELECT amount + 1, upper(status) FROM orders");
    let names: Vec<&str> = l.columns.iter().map(|c| c.column.as_str()).collect();
    assert_eq!(names, ["amount + 1", "upper(status)"]);
}

#[test]
fn dialect_names_and_transformation_vocabulary() {
    assert_eq!(Dialect::from_name("PostgreSQL"), Dialect::Postgres);
    assert_eq!(Dialect::from_name("postgres"), Dialect::Postgres);
    assert_eq!(Dialect::from_name("SQL Server"), Dialect::MsSql);
    assert_eq!(Dialect::from_name("BigQuery"), Dialect::BigQuery);
    assert_eq!(Dialect::from_name("duckdb"), Dialect::DuckDb);
    assert_eq!(Dialect::from_name("sqlite"), Dialect::Sqlite);
    assert_eq!(Dialect::from_name("MySQL"), Dialect::MySql);
    assert_eq!(Dialect::from_name("snowflake"), Dialect::Snowflake);
    assert_eq!(Dialect::from_name("redshift"), Dialect::Redshift);
    assert_eq!(Dialect::from_name("oracle"), Dialect::Generic);
    assert_eq!(
        (T::Identity.kind(), T::Identity.subtype()),
        ("DIRECT", "IDENTITY")
    );
    assert_eq!(T::Aggregation.subtype(), "AGGREGATION");
    assert_eq!(
        (T::GroupBy.kind(), T::GroupBy.subtype()),
        ("INDIRECT", "GROUP_BY")
    );
    assert_eq!(
        (T::Conditional.kind(), T::Conditional.subtype()),
        ("INDIRECT", "CONDITIONAL")
    );
}

/// A small deterministic generator (xorshift), so the fuzz inputs are the same each run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[(self.next() % items.len() as u64) as usize]
    }
}

#[test]
fn never_panics_on_odd_input() {
    let fixed = [
        "",
        ";",
        ";;;",
        "'",
        "$$",
        "$a$",
        "/*",
        "--",
        "\"",
        "`",
        "SELECT",
        "SELECT *",
        "SELECT * FROM",
        "SELECT t.* FROM t",
        "SELECT a.b.c.d.e FROM a",
        "SELECT 1 FROM (SELECT) x",
        "WITH RECURSIVE r AS (SELECT * FROM r) SELECT * FROM r",
        "WITH a AS (SELECT * FROM b), b AS (SELECT * FROM a) SELECT * FROM a",
        "INSERT INTO t (a, b, c) SELECT 1",
        "INSERT INTO t SELECT 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 FROM customers",
        "CREATE VIEW v (a, b, c) AS SELECT 1",
        "MERGE INTO t USING s ON 1 = 1 WHEN NOT MATCHED THEN INSERT VALUES (1, 2)",
        "UPDATE t SET (a, b) = (SELECT 1, 2)",
        "SELECT * FROM t PIVOT (sum(x) FOR y IN ('a', 'b')) p",
        "SELECT count(DISTINCT x) OVER w FROM t",
        "SELECT x FROM t ORDER BY 99",
        "SELECT é, \u{a0}x FROM ü",
        "\u{feff}SELECT 1",
    ];
    for sql in fixed {
        for d in [
            Dialect::Generic,
            Dialect::Postgres,
            Dialect::Snowflake,
            Dialect::BigQuery,
            Dialect::MsSql,
        ] {
            let _ = lineage(sql, d, &shop());
            let _ = schema_from_ddl(sql, d);
            let _ = query_lineage(sql, d, &NoColumns, None, StatementKind::Select);
        }
    }
    let words = [
        "SELECT",
        "FROM",
        "WHERE",
        "JOIN",
        "ON",
        "USING",
        "(",
        ")",
        ",",
        "*",
        "a",
        "b.c",
        "t",
        "orders",
        "1",
        "'x'",
        "+",
        "=",
        "AND",
        "OR",
        "CASE",
        "WHEN",
        "THEN",
        "END",
        "WITH",
        "AS",
        "UNION",
        "INSERT",
        "INTO",
        "VALUES",
        "GROUP",
        "BY",
        "ORDER",
        "OVER",
        "PARTITION",
        "sum(",
        "count(*)",
        ";",
        "$$",
        "--",
        "\n",
        "CREATE",
        "VIEW",
        "TABLE",
        "MERGE",
        "UPDATE",
        "SET",
        "EXISTS",
        "IN",
        "LATERAL",
        "RECURSIVE",
        "NOT",
        "NULL",
        "::",
        "[",
        "]",
    ];
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for _ in 0..3000 {
        let len = 1 + (rng.next() % 40) as usize;
        let sql: Vec<&str> = (0..len).map(|_| rng.pick(&words)).collect();
        let sql = sql.join(" ");
        let _ = lineage(&sql, Dialect::Postgres, &shop());
        let _ = lineage(&sql, Dialect::Generic, &NoColumns);
    }
}

#[test]
fn deep_input_is_bounded() {
    // Long operator chains are walked without deep recursion (this test runs on a
    // 2 MiB thread stack).
    let chain = format!("SELECT {}1 AS x FROM orders", "amount + ".repeat(9_000));
    let l = lineage(&chain, Dialect::Postgres, &shop());
    assert!(l.problems.is_empty());
    assert_eq!(
        l.statements[0].columns,
        vec![col("x", vec![src("orders", "amount", T::Transformation)])]
    );

    // Past the bound: a problem, not a crash.
    let longer = format!("SELECT {}1 FROM orders", "1 + ".repeat(30_000));
    let l = lineage(&longer, Dialect::Postgres, &shop());
    assert_eq!(l.problems.len(), 1);
    assert!(
        l.problems[0].message.contains("operators"),
        "{:?}",
        l.problems
    );

    let subscripts = format!("SELECT a{} FROM t", "[1]".repeat(30_000));
    assert_eq!(
        lineage(&subscripts, Dialect::Postgres, &NoColumns)
            .problems
            .len(),
        1
    );

    // Deep nesting: sqlparser's recursion limit.
    let nested = format!(
        "SELECT {}1{} FROM orders",
        "(".repeat(5_000),
        ")".repeat(5_000)
    );
    let l = lineage(&nested, Dialect::Postgres, &shop());
    assert_eq!(l.problems.len(), 1);

    let subqueries = format!(
        "SELECT * FROM {}orders{}",
        "(SELECT * FROM ".repeat(300),
        ") x".repeat(300)
    );
    let l = lineage(&subqueries, Dialect::Postgres, &shop());
    assert_eq!(l.problems.len(), 1);

    // A long UNION chain.
    let unions = vec!["SELECT id FROM orders"; 3_000].join(" UNION ALL ");
    let l = lineage(&unions, Dialect::Postgres, &shop());
    assert!(l.problems.is_empty());
    assert_eq!(
        l.statements[0].columns,
        vec![col("id", vec![src("orders", "id", T::Identity)])]
    );
}
