//! Runs the dbt importer over the sample manifest and over small hand-made ones, the way
//! the plugin host does, and checks what it sends.

use std::collections::{BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use lore_importer_dbt::DbtImporter;
use lore_plugin_sdk::testing::{self, Outcome};
use lore_plugin_sdk::{Importer, Level, Record};
use serde_json::{Value, json};

fn sample() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/manifest.json")
}

/// What these tests read of an import, beyond [`Outcome`]'s own helpers.
trait DbtOutcome {
    /// The (name, type) of the children of `parent`, in the order sent.
    fn child_names(&self, parent: &str) -> Vec<(&str, &str)>;
    /// A String attribute's value.
    fn text(&self, id: &str, name: &str) -> Option<&str>;
    /// (native id, value) of every value of an attribute.
    fn attributes_named(&self, name: &str) -> BTreeSet<(String, String)>;
    /// (native id, value) of every label (tags are labels, never collections).
    fn tags(&self) -> BTreeSet<(&str, &str)>;
    /// (name, source, target) of every node-level lineage edge (`dbt ref`, `dbt source`).
    fn lineage(&self) -> BTreeSet<(&str, &str, &str)>;
    /// (name, source, target) of every column-level lineage edge (`dbt sql (...)`).
    fn column_lineage(&self) -> BTreeSet<(&str, &str, &str)>;
    /// What Lore would refuse ([`Outcome::check`]), and what the importer never sends:
    /// records other than the model, objects, attributes, labels and lineage; values
    /// other than String, Integer and Boolean; a label or an edge twice; an edge from an
    /// object to itself.
    fn check_integrity(&self);
}

impl DbtOutcome for Outcome {
    fn child_names(&self, parent: &str) -> Vec<(&str, &str)> {
        self.children(parent)
            .map(|o| (o.name.as_str(), o.object_type.as_str()))
            .collect()
    }

    fn text(&self, id: &str, name: &str) -> Option<&str> {
        self.attribute(id, name).map(|(kind, value)| {
            assert_eq!(kind, "String", "{name} of {id}");
            value
        })
    }

    fn attributes_named(&self, name: &str) -> BTreeSet<(String, String)> {
        self.records
            .iter()
            .filter_map(|r| match r {
                Record::Attribute(a) if a.attribute == name => {
                    Some((a.native_id.clone(), a.value.clone()))
                }
                _ => None,
            })
            .collect()
    }

    fn tags(&self) -> BTreeSet<(&str, &str)> {
        self.labels()
            .map(|l| {
                assert_eq!(l.kind, "label");
                (l.native_id.as_str(), l.value.as_str())
            })
            .collect()
    }

    fn lineage(&self) -> BTreeSet<(&str, &str, &str)> {
        edges(self)
            .filter(|(name, ..)| !name.starts_with("dbt sql"))
            .collect()
    }

    fn column_lineage(&self) -> BTreeSet<(&str, &str, &str)> {
        edges(self)
            .filter(|(name, ..)| name.starts_with("dbt sql"))
            .collect()
    }

    fn check_integrity(&self) {
        if let Err(refused) = self.check() {
            panic!("Lore would refuse the import: {refused}");
        }
        let mut labels = HashSet::new();
        let mut edges = HashSet::new();
        for r in &self.records {
            match r {
                Record::Attribute(a) => assert!(
                    ["String", "Integer", "Boolean"].contains(&a.value_type.as_str()),
                    "{a:?}"
                ),
                Record::Label(l) => {
                    assert!(labels.insert((&l.native_id, &l.value)), "duplicate {l:?}");
                }
                Record::Relationship(rel) => {
                    assert_ne!(rel.source_native_id, rel.target_native_id);
                    assert!(
                        edges.insert((
                            &rel.kind,
                            &rel.name,
                            &rel.source_native_id,
                            &rel.target_native_id
                        )),
                        "duplicate {rel:?}"
                    );
                }
                Record::Model(_) | Record::Object(_) => {}
                other => panic!("unexpected record {other:?}"),
            }
        }
    }
}

/// (name, source, target) of every relationship, all of them lineage.
fn edges(sent: &Outcome) -> impl Iterator<Item = (&str, &str, &str)> {
    sent.relationships().map(|rel| {
        assert_eq!(rel.kind, "lineage");
        (
            rel.name.as_str(),
            rel.source_native_id.as_str(),
            rel.target_native_id.as_str(),
        )
    })
}

/// Runs an import as the host does.
fn import(file: Option<&Path>, parameters: Value) -> Outcome {
    testing::run::<DbtImporter>(&testing::request("dbt-manifest", file, parameters))
}

fn import_sample(parameters: Value) -> Outcome {
    let sent = import(Some(&sample()), parameters);
    sent.check_integrity();
    sent
}

/// A manifest file in a fresh temporary directory, removed on drop.
struct TempManifest(PathBuf);

impl TempManifest {
    fn new(name: &str, content: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("lore-dbt-{}-{name}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("manifest.json");
        std::fs::write(&path, content).expect("write manifest");
        Self(path)
    }

    fn json(name: &str, manifest: &Value) -> Self {
        Self::new(name, &manifest.to_string())
    }
}

impl Drop for TempManifest {
    fn drop(&mut self) {
        if let Some(dir) = self.0.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

fn error_of(file: Option<&Path>) -> String {
    import(file, json!({})).error()
}

const CUSTOMERS: &str = "model.jaffle_shop.customers";
const ORDERS: &str = "model.jaffle_shop.orders";
const STG_CUSTOMERS: &str = "model.jaffle_shop.stg_customers";
const STG_ORDERS: &str = "model.jaffle_shop.stg_orders";
const STG_PAYMENTS: &str = "model.jaffle_shop.stg_payments";
const RAW_PAYMENTS: &str = "seed.jaffle_shop.raw_payments";
const SNAPSHOT: &str = "snapshot.jaffle_shop.orders_snapshot";
const SRC_CUSTOMERS: &str = "source.jaffle_shop.jaffle_shop.customers";
const SRC_ORDERS: &str = "source.jaffle_shop.jaffle_shop.orders";

#[test]
fn about_names_the_format_and_its_parameters() {
    let about = DbtImporter::about();
    assert_eq!(about.name, "dbt");
    assert_eq!(about.formats.len(), 1);
    let format = &about.formats[0];
    assert_eq!(format.name, "dbt-manifest");
    assert_eq!(format.file, lore_plugin_sdk::FileUse::Required);
    let properties = &format.parameters["properties"];
    assert_eq!(properties["modelName"]["type"], "string");
    assert_eq!(properties["includeTests"]["type"], "boolean");
    assert_eq!(properties["includeEphemeral"]["type"], "boolean");
    assert!(format.parameters.get("required").is_none());
}

#[test]
fn the_model_is_named_after_the_project() {
    let sent = import_sample(json!({}));
    let model = sent.model().expect("a model record");
    assert_eq!(model.name, "jaffle_shop");
    assert_eq!(model.profile, "RDBMS Relational Database (Database)");
    assert_eq!(
        model.description,
        "The manifest of dbt project 'jaffle_shop' (dbt 1.8.2, adapter postgres, \
         generated 2024-06-12T08:15:42.512946Z)."
    );
}

#[test]
fn databases_schemas_and_relations_form_the_tree() {
    let sent = import_sample(json!({}));
    let tree: Vec<(&str, &str, Option<&str>)> = sent
        .objects()
        .filter(|o| o.object_type != "Column")
        .map(|o| {
            (
                o.native_id.as_str(),
                o.object_type.as_str(),
                o.parent_native_id.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        tree,
        [
            ("database:analytics", "Database", None),
            (
                "schema:analytics.dbt_jaffle",
                "Schema",
                Some("database:analytics")
            ),
            (RAW_PAYMENTS, "Table", Some("schema:analytics.dbt_jaffle")),
            (
                "schema:analytics.dbt_jaffle_staging",
                "Schema",
                Some("database:analytics")
            ),
            (
                STG_CUSTOMERS,
                "View",
                Some("schema:analytics.dbt_jaffle_staging")
            ),
            (
                STG_ORDERS,
                "View",
                Some("schema:analytics.dbt_jaffle_staging")
            ),
            (
                "schema:analytics.dbt_jaffle_marts",
                "Schema",
                Some("database:analytics")
            ),
            (
                CUSTOMERS,
                "Table",
                Some("schema:analytics.dbt_jaffle_marts")
            ),
            (ORDERS, "Table", Some("schema:analytics.dbt_jaffle_marts")),
            (
                "schema:analytics.snapshots",
                "Schema",
                Some("database:analytics")
            ),
            (SNAPSHOT, "Table", Some("schema:analytics.snapshots")),
            ("database:raw", "Database", None),
            ("schema:raw.jaffle_shop", "Schema", Some("database:raw")),
            (SRC_CUSTOMERS, "Table", Some("schema:raw.jaffle_shop")),
            (SRC_ORDERS, "Table", Some("schema:raw.jaffle_shop")),
        ]
    );
    assert_eq!(sent.object("database:raw").name, "raw");
    assert_eq!(
        sent.object("schema:analytics.dbt_jaffle_marts").name,
        "dbt_jaffle_marts"
    );
    // The tests' audit schema holds nothing imported, so it is not there.
    assert!(!sent.objects().any(|o| o.name.contains("test__audit")));
    assert_eq!(
        sent.objects().filter(|o| o.object_type == "Column").count(),
        30
    );
}

#[test]
fn the_customers_model_is_a_table_with_its_columns_in_order() {
    let sent = import_sample(json!({}));
    let customers = sent.object(CUSTOMERS);
    assert_eq!(customers.name, "customers");
    assert_eq!(customers.physical_name.as_deref(), Some("customers"));
    assert_eq!(
        customers.description.as_deref(),
        Some("One row per customer, with their first and latest order and lifetime value.")
    );
    assert_eq!(sent.text(CUSTOMERS, "dbt Resource Type"), Some("model"));
    assert_eq!(sent.text(CUSTOMERS, "dbt Materialization"), Some("table"));
    assert_eq!(sent.text(CUSTOMERS, "dbt Package"), Some("jaffle_shop"));
    assert_eq!(
        sent.text(CUSTOMERS, "dbt File"),
        Some("models/marts/customers.sql")
    );
    assert_eq!(sent.attribute(CUSTOMERS, "View Statement"), None);

    let columns = sent.child_names(CUSTOMERS);
    let names: Vec<&str> = columns.iter().map(|(name, _)| *name).collect();
    assert_eq!(
        names,
        [
            "customer_id",
            "first_name",
            "last_name",
            "first_order",
            "most_recent_order",
            "number_of_orders",
            "customer_lifetime_value"
        ]
    );
    assert!(columns.iter().all(|(_, kind)| *kind == "Column"));
    for (n, name) in names.iter().enumerate() {
        let id = format!("{CUSTOMERS}.{name}");
        let position = (n + 1).to_string();
        assert_eq!(
            sent.attribute(&id, "Position"),
            Some(("Integer", position.as_str()))
        );
    }

    let id = sent.object("model.jaffle_shop.customers.customer_id");
    assert_eq!(id.data_type.as_deref(), Some("integer"));
    assert_eq!(
        id.description.as_deref(),
        Some("Unique identifier of a customer")
    );
    assert_eq!(id.physical_name, None);
    // A primary_key constraint: not nullable. Columns without constraints say nothing.
    assert_eq!(
        sent.attribute("model.jaffle_shop.customers.customer_id", "Nullable"),
        Some(("Boolean", "false"))
    );
    assert_eq!(
        sent.attribute("model.jaffle_shop.customers.first_name", "Nullable"),
        None
    );
    let ltv = sent.object("model.jaffle_shop.customers.customer_lifetime_value");
    assert_eq!(ltv.data_type.as_deref(), Some("numeric"));
    // An empty description is no description.
    let orders = sent.object("model.jaffle_shop.customers.number_of_orders");
    assert_eq!(orders.description, None);
    assert_eq!(orders.data_type.as_deref(), Some("bigint"));
}

#[test]
fn views_carry_their_statement_and_other_nodes_their_relation_names() {
    let sent = import_sample(json!({}));
    // Compiled SQL when the manifest has it, the raw (Jinja) SQL otherwise.
    assert_eq!(
        sent.text(STG_CUSTOMERS, "View Statement"),
        Some(
            "select\n    id as customer_id,\n    first_name,\n    last_name\nfrom \
             \"raw\".\"jaffle_shop\".\"raw_customers\""
        )
    );
    let raw = sent.text(STG_ORDERS, "View Statement").expect("raw code");
    assert!(
        raw.ends_with("from {{ source('jaffle_shop', 'orders') }}"),
        "{raw}"
    );
    assert_eq!(sent.text(STG_ORDERS, "dbt Materialization"), Some("view"));
    assert_eq!(
        sent.attribute("model.jaffle_shop.stg_customers.customer_id", "Nullable"),
        Some(("Boolean", "false"))
    );

    // An alias is the physical name; an incremental model is a table.
    let orders = sent.object(ORDERS);
    assert_eq!(orders.name, "orders");
    assert_eq!(orders.physical_name.as_deref(), Some("fct_orders"));
    assert_eq!(
        sent.text(ORDERS, "dbt Materialization"),
        Some("incremental")
    );

    // A source: its identifier is the physical name; no materialization.
    let source = sent.object(SRC_CUSTOMERS);
    assert_eq!(source.name, "customers");
    assert_eq!(source.physical_name.as_deref(), Some("raw_customers"));
    assert_eq!(
        source.description.as_deref(),
        Some("Customers as the application stores them.")
    );
    assert_eq!(
        sent.text(SRC_CUSTOMERS, "dbt Resource Type"),
        Some("source")
    );
    assert_eq!(sent.text(SRC_CUSTOMERS, "dbt Materialization"), None);
    assert_eq!(
        sent.text(SRC_CUSTOMERS, "dbt File"),
        Some("models/staging/sources.yml")
    );
    let first_name = sent.object("source.jaffle_shop.jaffle_shop.customers.first_name");
    assert_eq!(first_name.data_type.as_deref(), Some("varchar(100)"));
    assert_eq!(first_name.description, None);

    assert_eq!(sent.text(RAW_PAYMENTS, "dbt Resource Type"), Some("seed"));
    assert_eq!(sent.text(RAW_PAYMENTS, "dbt Materialization"), Some("seed"));
    assert_eq!(sent.text(SNAPSHOT, "dbt Resource Type"), Some("snapshot"));
    assert_eq!(
        sent.object(SNAPSHOT).physical_name.as_deref(),
        Some("orders_snapshot")
    );
    assert_eq!(sent.children(SNAPSHOT).count(), 0);

    // A column without a data type has none.
    assert_eq!(
        sent.object("model.jaffle_shop.stg_orders.status").data_type,
        None
    );
}

#[test]
fn ephemeral_models_and_tests_are_left_out_by_default() {
    let sent = import_sample(json!({}));
    assert!(!sent.has_object(STG_PAYMENTS));
    assert!(
        !sent
            .objects()
            .any(|o| o.native_id.starts_with(STG_PAYMENTS))
    );
    assert!(!sent.objects().any(|o| o.native_id.starts_with("test.")));
    assert!(sent.attributes_named("dbt Tests").is_empty());
}

#[test]
fn lineage_follows_depends_on_through_ephemeral_models() {
    let sent = import_sample(json!({}));
    assert_eq!(
        sent.lineage(),
        BTreeSet::from([
            ("dbt source", SRC_CUSTOMERS, STG_CUSTOMERS),
            ("dbt source", SRC_ORDERS, STG_ORDERS),
            ("dbt source", SRC_ORDERS, SNAPSHOT),
            ("dbt ref", STG_CUSTOMERS, CUSTOMERS),
            ("dbt ref", STG_ORDERS, CUSTOMERS),
            ("dbt ref", STG_ORDERS, ORDERS),
            // stg_payments is ephemeral: its upstream seed feeds its downstream models.
            ("dbt ref", RAW_PAYMENTS, CUSTOMERS),
            ("dbt ref", RAW_PAYMENTS, ORDERS),
        ])
    );
}

#[test]
fn tags_become_labels() {
    let sent = import_sample(json!({}));
    assert_eq!(
        sent.tags(),
        BTreeSet::from([
            (STG_CUSTOMERS, "staging"),
            ("model.jaffle_shop.stg_customers.first_name", "pii"),
            ("model.jaffle_shop.stg_customers.last_name", "pii"),
            (STG_ORDERS, "staging"),
            (CUSTOMERS, "marts"),
            ("model.jaffle_shop.customers.first_name", "pii"),
            ("model.jaffle_shop.customers.last_name", "pii"),
            (
                "model.jaffle_shop.customers.customer_lifetime_value",
                "finance"
            ),
            // ["marts", "finance", "marts"]: each once.
            (ORDERS, "marts"),
            (ORDERS, "finance"),
            ("model.jaffle_shop.orders.amount", "finance"),
            (SRC_CUSTOMERS, "raw"),
            ("source.jaffle_shop.jaffle_shop.customers.first_name", "pii"),
            ("source.jaffle_shop.jaffle_shop.customers.last_name", "pii"),
            (SRC_ORDERS, "raw"),
        ])
    );
}

#[test]
fn progress_and_a_summary_are_reported() {
    let sent = import_sample(json!({}));
    let progress: Vec<(u64, Option<u64>, &str)> = sent
        .progress
        .iter()
        .map(|p| (p.done, p.total, p.unit.as_str()))
        .collect();
    assert_eq!(progress, [(0, Some(12), "nodes"), (12, Some(12), "nodes")]);
    assert_eq!(
        sent.log_lines(Level::Info),
        [
            "dbt manifest of 'jaffle_shop' (dbt 1.8.2): imported 4 models, 1 seed, \
             1 snapshot, 2 sources, 30 columns, 8 lineage edges, 3 column lineage edges \
             (from the compiled SQL of 1 of 5 models and snapshots); 3 tests left out; \
             1 ephemeral model and 0 other nodes left out"
        ]
    );
    assert!(sent.logs.iter().all(|l| l.level == Level::Info));
}

#[test]
fn model_name_overrides_the_project_name() {
    let sent = import_sample(json!({"modelName": "Jaffle Shop (prod)"}));
    let names: Vec<&str> = sent
        .records
        .iter()
        .filter_map(|r| match r {
            Record::Model(m) => Some(m.name.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(names, ["Jaffle Shop (prod)"]);
    // A blank name is no name.
    let sent = import_sample(json!({"modelName": "  "}));
    assert!(
        sent.records.contains(&Record::Model(
            lore_plugin_sdk::Model::new("jaffle_shop", "RDBMS Relational Database (Database)")
                .description(
                    "The manifest of dbt project 'jaffle_shop' (dbt 1.8.2, adapter postgres, \
                 generated 2024-06-12T08:15:42.512946Z)."
                )
        ))
    );
}

#[test]
fn include_tests_records_them_on_what_they_test() {
    let sent = import_sample(json!({"includeTests": true}));
    let own = |id: &str, value: &str| (id.to_owned(), value.to_owned());
    assert_eq!(
        sent.attributes_named("dbt Tests"),
        BTreeSet::from([
            own("model.jaffle_shop.customers.customer_id", "unique"),
            own("model.jaffle_shop.orders.status", "accepted_values"),
            // A singular test names no column: it is the model's.
            own(ORDERS, "assert_total_payment_amount_is_positive"),
        ])
    );
    // Still no objects for tests, and the rest is unchanged.
    assert!(!sent.objects().any(|o| o.native_id.starts_with("test.")));
    assert_eq!(
        sent.objects().count(),
        import_sample(json!({})).objects().count()
    );
    assert!(sent.log_lines(Level::Info)[0].contains("3 tests recorded in 'dbt Tests'"));
}

#[test]
fn include_ephemeral_imports_them_as_views() {
    let sent = import_sample(json!({"includeEphemeral": true}));
    let payments = sent.object(STG_PAYMENTS);
    assert_eq!(payments.object_type, "View");
    assert_eq!(
        payments.parent_native_id.as_deref(),
        Some("schema:analytics.dbt_jaffle_staging")
    );
    // An ephemeral model is no relation of the database.
    assert_eq!(payments.physical_name, None);
    assert_eq!(
        sent.text(STG_PAYMENTS, "dbt Materialization"),
        Some("ephemeral")
    );
    assert!(
        sent.text(STG_PAYMENTS, "View Statement")
            .is_some_and(|s| s.contains("amount / 100"))
    );
    assert_eq!(
        sent.child_names(STG_PAYMENTS),
        [("payment_id", "Column"), ("amount", "Column")]
    );
    let lineage = sent.lineage();
    assert!(lineage.contains(&("dbt ref", RAW_PAYMENTS, STG_PAYMENTS)));
    assert!(lineage.contains(&("dbt ref", STG_PAYMENTS, CUSTOMERS)));
    assert!(lineage.contains(&("dbt ref", STG_PAYMENTS, ORDERS)));
    assert!(!lineage.contains(&("dbt ref", RAW_PAYMENTS, CUSTOMERS)));
    assert_eq!(lineage.len(), 9);
    assert!(sent.log_lines(Level::Info)[0].contains("imported 5 models"));
}

/// A node of a hand-made manifest.
fn node(resource_type: &str, name: &str, materialized: &str, depends_on: &[&str]) -> Value {
    json!({
        "resource_type": resource_type,
        "name": name,
        "database": "db",
        "schema": "main",
        "config": {"materialized": materialized},
        "depends_on": {"nodes": depends_on},
    })
}

#[test]
fn odd_but_valid_manifests_import() {
    let mut versioned = node("model", "dim", "table", &[]);
    versioned["version"] = json!(2);
    let mut nulls = node("model", "nulls", "table", &["model.p.gone", "model.p.eph2"]);
    for field in ["description", "tags", "columns", "alias", "package_name"] {
        nulls[field] = Value::Null;
    }
    let mut no_database = node("seed", "lookup", "seed", &[]);
    no_database["database"] = Value::Null;
    no_database["columns"] = json!({"code": {"name": "code"}, "CODE": {"name": "CODE"}});
    let manifest = json!({
        "metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/manifest/v7.json"},
        "nodes": {
            "model.p.dim.v2": versioned,
            "model.p.nulls": nulls,
            "seed.p.lookup": no_database,
            // Two ephemeral models in a cycle lead nowhere but must not hang.
            "model.p.eph1": node("model", "eph1", "ephemeral", &["model.p.eph2", "seed.p.lookup"]),
            "model.p.eph2": node("model", "eph2", "ephemeral", &["model.p.eph1"]),
            "analysis.p.report": node("analysis", "report", "view", &["model.p.nulls"]),
        }
    });
    let file = TempManifest::json("odd", &manifest);
    let sent = import(Some(&file.0), json!({}));
    sent.check_integrity();

    let Some(Record::Model(model)) = sent.records.first() else {
        panic!("the model comes first");
    };
    assert_eq!(model.name, "dbt project");
    assert_eq!(model.description, "The manifest of a dbt project.");

    assert_eq!(sent.object("model.p.dim.v2").name, "dim_v2");
    assert_eq!(
        sent.object("model.p.dim.v2").physical_name.as_deref(),
        Some("dim")
    );
    let nulls = sent.object("model.p.nulls");
    assert_eq!(nulls.description, None);
    assert_eq!(nulls.object_type, "Table");
    assert_eq!(sent.children("model.p.nulls").count(), 0);
    // A schema without a database is top-level; column names differing in case are two.
    assert_eq!(sent.object("schema:main").parent_native_id, None);
    assert_eq!(
        sent.object("seed.p.lookup").parent_native_id.as_deref(),
        Some("schema:main")
    );
    let mut columns = sent.child_names("seed.p.lookup");
    columns.sort_unstable();
    assert_eq!(columns, [("CODE", "Column"), ("code", "Column")]);
    // Lineage through two ephemeral models; the missing upstream is skipped.
    assert_eq!(
        sent.lineage(),
        BTreeSet::from([("dbt ref", "seed.p.lookup", "model.p.nulls")])
    );
    assert!(!sent.has_object("analysis.p.report"));
    assert_eq!(
        sent.log_lines(Level::Info),
        [
            "dbt manifest: imported 2 models, 1 seed, 0 snapshots, 0 sources, 2 columns, \
             1 lineage edge, 0 column lineage edges (from the compiled SQL of 0 of 2 models \
             and snapshots); 0 tests left out; 2 ephemeral models and 1 other node left out"
        ]
    );
}

#[test]
fn large_manifests_stream_in_chunks_with_progress() {
    let mut nodes = serde_json::Map::new();
    for n in 0..1_200 {
        let upstream = if n == 0 {
            vec![]
        } else {
            vec![format!("model.big.m{}", n - 1)]
        };
        nodes.insert(
            format!("model.big.m{n}"),
            json!({
                "resource_type": "model", "name": format!("m{n}"), "database": "db",
                "schema": format!("s{}", n % 7), "config": {"materialized": "table"},
                "depends_on": {"nodes": upstream},
                "columns": {"a": {"data_type": "int"}, "b": {}, "c": {"tags": ["x"]}},
            }),
        );
    }
    let manifest = json!({"metadata": {"project_name": "big"}, "nodes": nodes, "sources": {}});
    let file = TempManifest::json("big", &manifest);
    let sent = import(Some(&file.0), json!({}));
    sent.check_integrity();
    assert!(sent.chunks > 1, "{} chunks", sent.chunks);
    // 1 database, 7 schemas, 1200 tables, 3600 columns.
    assert_eq!(sent.objects().count(), 1 + 7 + 1_200 + 3_600);
    assert_eq!(sent.lineage().len(), 1_199);
    let done: Vec<u64> = sent.progress.iter().map(|p| p.done).collect();
    assert_eq!(done, [0, 500, 1_000, 1_200]);
    assert!(sent.progress.iter().all(|p| p.total == Some(1_200)));
}

#[test]
fn a_missing_file_is_an_error() {
    let path = sample().with_file_name("no-such-manifest.json");
    let message = error_of(Some(&path));
    assert!(
        message.starts_with(&format!(
            "cannot read the dbt manifest '{}': ",
            path.display()
        )),
        "{message}"
    );
    assert_eq!(error_of(None), "format 'dbt-manifest' needs a file");
}

#[test]
fn a_file_that_is_not_json_is_an_error() {
    let file = TempManifest::new("not-json", "{\n  \"metadata\": {},\n  nodes: {}\n}");
    let message = error_of(Some(&file.0));
    assert_eq!(
        message,
        format!(
            "'{}' is not a valid dbt manifest: key must be a string at line 3 column 3",
            file.0.display()
        )
    );
    let file = TempManifest::new("array", "[1, 2]");
    let message = error_of(Some(&file.0));
    assert!(
        message.contains("is not a valid dbt manifest: invalid type"),
        "{message}"
    );
}

#[test]
fn json_that_is_no_manifest_is_an_error() {
    let no_nodes = TempManifest::json("no-nodes", &json!({"metadata": {}, "sources": {}}));
    assert_eq!(
        error_of(Some(&no_nodes.0)),
        format!(
            "'{}' is not a dbt manifest: it has no 'nodes'",
            no_nodes.0.display()
        )
    );
    let no_metadata = TempManifest::json("no-metadata", &json!({"nodes": {}}));
    assert_eq!(
        error_of(Some(&no_metadata.0)),
        format!(
            "'{}' is not a dbt manifest: it has no 'metadata'",
            no_metadata.0.display()
        )
    );
    let catalog = TempManifest::json(
        "catalog",
        &json!({
            "metadata": {"dbt_schema_version": "https://schemas.getdbt.com/dbt/catalog/v1.json"},
            "nodes": {"model.p.m": {"metadata": {"type": "BASE TABLE"}, "columns": {}, "unique_id": "model.p.m"}},
            "sources": {}
        }),
    );
    let message = error_of(Some(&catalog.0));
    assert!(
        message.contains(
            "is not a dbt manifest: its metadata.dbt_schema_version is \
             'https://schemas.getdbt.com/dbt/catalog/v1.json'"
        ),
        "{message}"
    );
    let wrong_shape = TempManifest::json("wrong-shape", &json!({"metadata": {}, "nodes": []}));
    let message = error_of(Some(&wrong_shape.0));
    assert!(
        message.contains(
            "is not a valid dbt manifest: invalid type: sequence, expected a JSON object"
        ),
        "{message}"
    );
}

#[test]
fn tests_attach_to_the_column_they_name() {
    let test = |name: &str, attached: Option<&str>, column: Option<&str>, depends: &[&str]| {
        json!({
            "resource_type": "test", "name": format!("{name}_x"),
            "test_metadata": {"name": name, "kwargs": {}},
            "attached_node": attached, "column_name": column,
            "depends_on": {"nodes": depends},
        })
    };
    let mut lookup = node("seed", "lookup", "seed", &[]);
    lookup["columns"] = json!({"CODE": {}, "code": {}, "label": {}});
    let manifest = json!({
        "metadata": {"project_name": "p"},
        "nodes": {
            "seed.p.lookup": lookup,
            "model.p.m": node("model", "m", "view", &["seed.p.lookup"]),
            "test.p.a": test("not_null", Some("seed.p.lookup"), Some("CODE"), &[]),
            "test.p.b": test("unique", Some("seed.p.lookup"), Some("\"code\""), &[]),
            "test.p.c": test("not_null", Some("seed.p.lookup"), Some("LABEL"), &[]),
            "test.p.d": test("accepted_values", Some("seed.p.lookup"), Some("gone"), &[]),
            "test.p.e": test("unique", Some("seed.p.lookup"), Some("code"), &[]),
            // Singular: no attached node, on everything it depends on.
            "test.p.f": json!({"resource_type": "test", "name": "both_agree",
                "depends_on": {"nodes": ["seed.p.lookup", "model.p.m", "model.p.gone"]}}),
        }
    });
    let file = TempManifest::json("tests", &manifest);
    let sent = import(Some(&file.0), json!({"includeTests": true}));
    sent.check_integrity();
    let own = |id: &str, value: &str| (id.to_owned(), value.to_owned());
    assert_eq!(
        sent.attributes_named("dbt Tests"),
        BTreeSet::from([
            own("seed.p.lookup.CODE", "not_null"),
            // Two unique tests on one column: named once.
            own("seed.p.lookup.code", "unique"),
            own("seed.p.lookup.label", "not_null"),
            own("seed.p.lookup", "accepted_values(gone), both_agree"),
            own("model.p.m", "both_agree"),
        ])
    );
    assert!(sent.log_lines(Level::Info)[0].contains("6 tests recorded in 'dbt Tests'"));
}

fn compiled_manifest() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/compiled_manifest.json")
}

const IDENTITY: &str = lore_importer_dbt::COLUMN_LINEAGE_IDENTITY;
const TRANSFORMATION: &str = lore_importer_dbt::COLUMN_LINEAGE_TRANSFORMATION;
const AGGREGATION: &str = lore_importer_dbt::COLUMN_LINEAGE_AGGREGATION;

#[test]
fn column_lineage_names_say_how() {
    assert_eq!(IDENTITY, "dbt sql (DIRECT/IDENTITY)");
    assert_eq!(TRANSFORMATION, "dbt sql (DIRECT/TRANSFORMATION)");
    assert_eq!(AGGREGATION, "dbt sql (DIRECT/AGGREGATION)");
}

#[test]
fn the_samples_compiled_sql_gives_column_lineage() {
    // Only stg_customers has compiled SQL in the sample (the others as after `dbt parse`).
    let sent = import_sample(json!({}));
    let src = |c: &str| format!("{SRC_CUSTOMERS}.{c}");
    let stg = |c: &str| format!("{STG_CUSTOMERS}.{c}");
    let (id, customer_id) = (src("id"), stg("customer_id"));
    let (first, stg_first) = (src("first_name"), stg("first_name"));
    let (last, stg_last) = (src("last_name"), stg("last_name"));
    assert_eq!(
        sent.column_lineage(),
        BTreeSet::from([
            (IDENTITY, id.as_str(), customer_id.as_str()),
            (IDENTITY, first.as_str(), stg_first.as_str()),
            (IDENTITY, last.as_str(), stg_last.as_str()),
        ])
    );
    assert!(sent.log_lines(Level::Warn).is_empty());
}

#[test]
fn compiled_sql_gives_column_lineage_to_documented_columns() {
    let sent = import(Some(&compiled_manifest()), json!({}));
    sent.check_integrity();
    let edge = |name, from: &str, to: &str| (name, from.to_owned(), to.to_owned());
    let column_lineage: BTreeSet<(&str, String, String)> = sent
        .column_lineage()
        .into_iter()
        .map(|(name, from, to)| edge(name, from, to))
        .collect();
    assert_eq!(
        column_lineage,
        BTreeSet::from([
            // Staging: renames are identities, lower(email) a transformation.
            edge(
                IDENTITY,
                "source.shop.raw.customers.id",
                "model.shop.stg_customers.customer_id"
            ),
            edge(
                IDENTITY,
                "source.shop.raw.customers.name",
                "model.shop.stg_customers.customer_name"
            ),
            edge(
                TRANSFORMATION,
                "source.shop.raw.customers.email",
                "model.shop.stg_customers.email"
            ),
            // A join of a model and an ephemeral one (inlined as __dbt__cte__stg_orders),
            // with aggregates: the ephemeral model is looked through to its source.
            edge(
                IDENTITY,
                "model.shop.stg_customers.customer_id",
                "model.shop.customer_orders.customer_id"
            ),
            edge(
                IDENTITY,
                "model.shop.stg_customers.customer_name",
                "model.shop.customer_orders.customer_name"
            ),
            edge(
                AGGREGATION,
                "source.shop.raw.orders.id",
                "model.shop.customer_orders.order_count"
            ),
            // sum(amount_cents / 100.0): the strongest transformation wins.
            edge(
                AGGREGATION,
                "source.shop.raw.orders.amount_cents",
                "model.shop.customer_orders.lifetime_value"
            ),
            edge(
                IDENTITY,
                "model.shop.customer_orders.customer_id",
                "model.shop.customer_segments.customer_id"
            ),
            edge(
                TRANSFORMATION,
                "model.shop.customer_orders.lifetime_value",
                "model.shop.customer_segments.lifetime_value_cents"
            ),
        ])
    );
    // The join, filter and grouping columns (INDIRECT) are stood for by the model edges.
    assert_eq!(
        sent.lineage(),
        BTreeSet::from([
            (
                "dbt source",
                "source.shop.raw.customers",
                "model.shop.stg_customers"
            ),
            (
                "dbt ref",
                "model.shop.stg_customers",
                "model.shop.customer_orders"
            ),
            (
                "dbt source",
                "source.shop.raw.orders",
                "model.shop.customer_orders"
            ),
            (
                "dbt ref",
                "model.shop.customer_orders",
                "model.shop.customer_segments"
            ),
            (
                "dbt source",
                "source.shop.raw.events",
                "model.shop.daily_events"
            ),
            ("dbt ref", "model.shop.stg_customers", "model.shop.broken"),
        ])
    );
    assert_eq!(
        sent.log_lines(Level::Warn),
        [
            "model.shop.customer_orders: the model does not document column \
             'first_order_at', so it gets no column lineage",
            "model.shop.customer_segments: column 'loyalty_tier' is in none of the tables \
             read (analytics.marts.customer_orders)",
            "model.shop.daily_events: lineage from columns \
             'source.shop.raw.events.occurred_at', 'source.shop.raw.events.user_id' is left \
             out: the upstream nodes do not document them",
            "model.shop.broken: the compiled SQL could not be read: Expected: an expression, \
             found: , at Line: 1, Column: 20",
        ]
    );
    assert_eq!(
        sent.log_lines(Level::Info),
        [
            "dbt manifest of 'shop' (dbt 1.8.2): imported 5 models, 0 seeds, 0 snapshots, \
             3 sources, 22 columns, 6 lineage edges, 9 column lineage edges (from the \
             compiled SQL of 4 of 5 models and snapshots); 0 tests left out; 1 ephemeral \
             model and 0 other nodes left out"
        ]
    );
}

#[test]
fn column_lineage_looks_through_ephemeral_models_even_when_imported() {
    let sent = import(
        Some(&compiled_manifest()),
        json!({"includeEphemeral": true}),
    );
    sent.check_integrity();
    let lineage = sent.column_lineage();
    // stg_orders, imported as a view, has lineage of its own...
    for (name, from, to) in [
        (IDENTITY, "id", "order_id"),
        (IDENTITY, "customer_id", "customer_id"),
        (TRANSFORMATION, "amount_cents", "amount"),
    ] {
        let from = format!("source.shop.raw.orders.{from}");
        let to = format!("model.shop.stg_orders.{to}");
        assert!(
            lineage.contains(&(name, from.as_str(), to.as_str())),
            "{name} {from} {to}"
        );
    }
    // ...but the SQL of customer_orders inlines it, so its columns come from the source.
    assert!(lineage.contains(&(
        AGGREGATION,
        "source.shop.raw.orders.amount_cents",
        "model.shop.customer_orders.lifetime_value"
    )));
    assert!(
        !lineage
            .iter()
            .any(|(_, from, _)| from.starts_with("model.shop.stg_orders"))
    );
    assert_eq!(lineage.len(), 12);
    assert!(sent.log_lines(Level::Warn).contains(
        &"model.shop.stg_orders: the model does not document columns 'ordered_at', \
          'status', so they get no column lineage"
    ));
}

#[test]
fn column_lineage_follows_the_adapters_names() {
    // Snowflake folds unquoted names to upper case; the YAML documents them in any case.
    // An old manifest's `compiled_sql` counts as `compiled_code`.
    let mut raw = node("source", "customers", "", &[]);
    raw["database"] = json!("raw");
    raw["schema"] = json!("shop");
    raw["identifier"] = json!("customers");
    raw["relation_name"] = json!("raw.shop.customers");
    raw["columns"] = json!({"ID": {}, "name": {}, "score": {}});
    let mut stg = node("model", "stg", "incremental", &["source.p.raw.customers"]);
    stg["relation_name"] = json!("db.main.stg");
    stg["columns"] = json!({"CUSTOMER_ID": {}, "customer_name": {}, "legacy_score": {}});
    stg["compiled_sql"] = json!(
        "select c.id as customer_id, c.Name as customer_name, l.score as legacy_score\n\
         from RAW.SHOP.CUSTOMERS as c\n\
         left join raw.other.legacy as l on l.id = c.id\n\
         where c.id > (select max(customer_id) from db.main.stg)"
    );
    let manifest = json!({
        "metadata": {"project_name": "p", "adapter_type": "snowflake"},
        "nodes": {"model.p.stg": stg},
        "sources": {"source.p.raw.customers": raw},
    });
    let file = TempManifest::json("snowflake", &manifest);
    let sent = import(Some(&file.0), json!({}));
    sent.check_integrity();
    assert_eq!(
        sent.column_lineage(),
        BTreeSet::from([
            (
                IDENTITY,
                "source.p.raw.customers.ID",
                "model.p.stg.CUSTOMER_ID"
            ),
            (
                IDENTITY,
                "source.p.raw.customers.name",
                "model.p.stg.customer_name"
            ),
        ])
    );
    // A table the model does not depend on (not a ref or source) is said, not linked;
    // the incremental model reading itself is no lineage.
    assert_eq!(
        sent.log_lines(Level::Warn),
        [
            "model.p.stg: 'RAW.OTHER.LEGACY' is read by the compiled SQL but is no node the \
             model depends on; lineage from its columns is left out"
        ]
    );
}
