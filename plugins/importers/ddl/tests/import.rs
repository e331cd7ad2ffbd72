//! The importer run through the SDK's `Output`, on the samples and on small scripts.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use lore_importer_ddl::DdlImporter;
use lore_plugin_sdk::testing::{self, Outcome};
use lore_plugin_sdk::{Error, FileUse, Importer, Level, Output, Record, Request};
use serde_json::{Value, json};

/// What these tests read of an import, beyond [`Outcome`]'s own helpers.
trait DdlOutcome {
    /// `(native_id, object_type)` of the children of an object, in the order sent.
    fn child_types(&self, parent: &str) -> Vec<(&str, &str)>;
    /// `(name, data_type)` of the columns of a table or view, in the order sent.
    fn columns(&self, parent: &str) -> Vec<(&str, Option<&str>)>;
    /// The value of an attribute, whatever its type.
    fn value(&self, native_id: &str, attribute: &str) -> Option<String>;
    /// `(kind, name, source, target)` of every relationship but lineage.
    fn edges(&self) -> BTreeSet<(String, String, String, String)>;
    /// `(name, source, target)` of every `lineage` relationship.
    fn lineage(&self) -> BTreeSet<(String, String, String)>;
    fn native_ids_of_type(&self, object_type: &str) -> Vec<String>;
    /// What Lore would refuse ([`Outcome::check`]), and what the importer never sends:
    /// values other than String, Integer and Boolean; object types other than those of
    /// the relational profile it imports into.
    fn check_references(&self);
}

impl DdlOutcome for Outcome {
    fn child_types(&self, parent: &str) -> Vec<(&str, &str)> {
        self.children(parent)
            .map(|o| (o.native_id.as_str(), o.object_type.as_str()))
            .collect()
    }

    fn columns(&self, parent: &str) -> Vec<(&str, Option<&str>)> {
        self.children(parent)
            .filter(|o| o.object_type == "Column")
            .map(|o| (o.name.as_str(), o.data_type.as_deref()))
            .collect()
    }

    fn value(&self, native_id: &str, attribute: &str) -> Option<String> {
        self.attribute(native_id, attribute)
            .map(|(_, value)| value.to_owned())
    }

    fn edges(&self) -> BTreeSet<(String, String, String, String)> {
        self.relationships()
            .filter(|r| r.kind != "lineage")
            .map(|r| {
                (
                    r.kind.clone(),
                    r.name.clone(),
                    r.source_native_id.clone(),
                    r.target_native_id.clone(),
                )
            })
            .collect()
    }

    fn lineage(&self) -> BTreeSet<(String, String, String)> {
        let all: Vec<_> = self
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
        assert_eq!(set.len(), all.len(), "a lineage relationship sent twice");
        set
    }

    fn native_ids_of_type(&self, object_type: &str) -> Vec<String> {
        self.objects_of_type(object_type)
            .map(|o| o.native_id.clone())
            .collect()
    }

    fn check_references(&self) {
        if let Err(refused) = self.check() {
            panic!("Lore would refuse the import: {refused}");
        }
        for record in &self.records {
            if let Record::Attribute(a) = record {
                assert!(
                    ["String", "Integer", "Boolean"].contains(&a.value_type.as_str()),
                    "unexpected value type {}",
                    a.value_type
                );
            }
        }
        let types = [
            "Schema",
            "Table",
            "View",
            "Column",
            "Primary Key",
            "Foreign Key",
            "Index",
        ];
        for object in self.objects() {
            assert!(
                types.contains(&object.object_type.as_str()),
                "{} has type {}",
                object.native_id,
                object.object_type
            );
        }
    }
}

fn sample(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples")
        .join(name)
}

fn request(file: Option<&Path>, parameters: Value) -> Request {
    testing::request("sql-ddl", file, parameters)
}

/// Runs the importer on a script, as the host does.
fn run(file: &Path, parameters: Value) -> Outcome {
    testing::run::<DdlImporter>(&request(Some(file), parameters))
}

/// Runs the importer on a script that imports, and checks what it sent.
fn import(file: &Path, parameters: Value) -> Outcome {
    let outcome = run(file, parameters);
    outcome.check_references();
    outcome
}

/// A script in a directory of its own, removed when dropped.
struct Script {
    dir: PathBuf,
    path: PathBuf,
}

impl Script {
    fn new(file_name: &str, sql: &str) -> Self {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "lore-importer-ddl-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let path = dir.join(file_name);
        std::fs::write(&path, sql).expect("the script is written");
        Self { dir, path }
    }
}

impl Drop for Script {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[test]
fn about_declares_the_format_and_its_parameters() {
    let about = DdlImporter::about();
    assert_eq!(about.name, "ddl");
    assert_eq!(about.formats.len(), 1);
    let format = &about.formats[0];
    assert_eq!(format.name, "sql-ddl");
    assert_eq!(format.file, FileUse::Required);
    let properties = &format.parameters["properties"];
    assert_eq!(
        properties["dialect"]["enum"],
        json!(["postgres", "sqlite", "generic"])
    );
    assert_eq!(properties["dialect"]["default"], "postgres");
    assert_eq!(properties["modelName"]["type"], "string");
    assert_eq!(properties["defaultSchema"]["type"], "string");
    assert!(format.parameters.get("required").is_none());
}

#[test]
fn postgres_sample_gives_the_object_tree() {
    let outcome = import(&sample("postgres.sql"), json!({}));

    let Some(Record::Model(model)) = outcome.records.first() else {
        panic!("the model comes first");
    };
    assert_eq!(model.name, "postgres");
    assert_eq!(model.profile, "RDBMS Relational Database (Database)");

    // Schemas in the order the script names them: CREATE SCHEMA sales, then the default
    // schema of the first unqualified table.
    assert_eq!(outcome.native_ids_of_type("Schema"), ["sales", "public"]);
    assert_eq!(outcome.object("sales").parent_native_id, None);
    assert_eq!(
        outcome.child_types("public"),
        [
            ("public.customers", "Table"),
            ("public.addresses", "Table"),
            ("public.audit_log", "Table"),
        ]
    );
    // `Sales.Shipments` is folded to lower case like every unquoted name.
    assert_eq!(
        outcome.child_types("sales"),
        [
            ("sales.products", "Table"),
            ("sales.orders", "Table"),
            ("sales.order_items", "Table"),
            ("sales.shipments", "Table"),
            ("sales.order_totals", "View"),
        ]
    );
    assert_eq!(outcome.object("sales.shipments").name, "shipments");

    assert_eq!(
        outcome.columns("public.customers"),
        [
            ("id", Some("serial")),
            ("email", Some("VARCHAR(254)")),
            ("full_name", Some("VARCHAR(200)")),
            ("created_at", Some("TIMESTAMP WITH TIME ZONE")),
            ("region_code", Some("CHAR(2)")),
        ]
    );
    assert_eq!(
        outcome.child_types("public.customers"),
        [
            ("public.customers.id", "Column"),
            ("public.customers.email", "Column"),
            ("public.customers.full_name", "Column"),
            ("public.customers.created_at", "Column"),
            ("public.customers.region_code", "Column"),
            ("public.customers.pk:customers_pkey", "Primary Key"),
            ("public.customers.ix:customers_email_key", "Index"),
            ("public.customers.ix:customers_expr_idx", "Index"),
        ]
    );
    // A quoted name keeps its case, in the name and in the native id.
    assert_eq!(
        outcome.columns("public.audit_log"),
        [
            ("id", Some("bigserial")),
            ("EventType", Some("VARCHAR(40)")),
            ("payload", Some("JSONB")),
            ("logged_at", Some("TIMESTAMPTZ")),
        ]
    );
    assert_eq!(
        outcome
            .object("public.audit_log.EventType")
            .parent_native_id
            .as_deref(),
        Some("public.audit_log")
    );
    assert_eq!(
        outcome.columns("sales.order_items"),
        [
            ("order_id", Some("BIGINT")),
            ("line_no", Some("SMALLINT")),
            ("sku", Some("VARCHAR(32)")),
            ("quantity", Some("INTEGER")),
            ("unit_price", Some("NUMERIC(10,2)")),
        ]
    );

    let string = |v: &str| ("String".to_owned(), v.to_owned());
    let integer = |v: i64| ("Integer".to_owned(), v.to_string());
    let boolean = |v: bool| ("Boolean".to_owned(), v.to_string());
    assert_eq!(
        outcome.attributes("public.customers.email"),
        BTreeMap::from([
            ("Position".to_owned(), integer(2)),
            ("Nullable".to_owned(), boolean(false)),
            ("Length".to_owned(), integer(254)),
        ])
    );
    assert_eq!(
        outcome.attributes("public.customers.created_at"),
        BTreeMap::from([
            ("Position".to_owned(), integer(4)),
            ("Nullable".to_owned(), boolean(false)),
            ("Default Value".to_owned(), string("now()")),
        ])
    );
    assert_eq!(
        outcome.attributes("sales.orders.status"),
        BTreeMap::from([
            ("Position".to_owned(), integer(3)),
            ("Nullable".to_owned(), boolean(false)),
            ("Length".to_owned(), integer(20)),
            ("Default Value".to_owned(), string("'open'")),
        ])
    );
    let nullable = |id: &str| outcome.value(id, "Nullable");
    // Primary key columns are not null without saying so; so are serial and identity
    // columns.
    assert_eq!(nullable("public.customers.id").as_deref(), Some("false"));
    assert_eq!(nullable("public.addresses.kind").as_deref(), Some("false"));
    assert_eq!(nullable("sales.products.sku").as_deref(), Some("false"));
    assert_eq!(nullable("sales.orders.id").as_deref(), Some("false"));
    assert_eq!(
        nullable("public.customers.region_code").as_deref(),
        Some("true")
    );
    assert_eq!(
        nullable("public.audit_log.logged_at").as_deref(),
        Some("true")
    );
    assert_eq!(nullable("sales.orders.note").as_deref(), Some("true"));
    assert_eq!(
        outcome
            .value("sales.orders.ordered_at", "Default Value")
            .as_deref(),
        Some("CURRENT_TIMESTAMP")
    );
    assert_eq!(
        outcome
            .value("sales.shipments.id", "Default Value")
            .as_deref(),
        Some("uuid_generate_v4()")
    );
    assert_eq!(outcome.objects().count(), 2 + 8 + 35 + 7 + 6 + 3);
}

#[test]
fn postgres_sample_gives_keys_and_relationships() {
    let outcome = import(&sample("postgres.sql"), json!({}));
    postgres_primary_keys(&outcome);
    postgres_foreign_keys(&outcome);
    postgres_entity_relationships(&outcome);
    postgres_view_lineage(&outcome);
}

/// The primary keys of the PostgreSQL sample, with their columns.
fn postgres_primary_keys(outcome: &Outcome) {
    let key_columns = |id: &str| outcome.value(id, "Key Columns");

    let primary_keys = outcome.native_ids_of_type("Primary Key");
    assert_eq!(
        primary_keys
            .iter()
            .map(|id| (id.as_str(), key_columns(id).unwrap_or_default()))
            .collect::<Vec<_>>(),
        [
            ("public.customers.pk:customers_pkey", "id".to_owned()),
            (
                "public.addresses.pk:addresses_pk",
                "customer_id, kind".to_owned()
            ),
            ("public.audit_log.pk:audit_log_pkey", "id".to_owned()),
            ("sales.products.pk:products_pkey", "sku".to_owned()),
            ("sales.orders.pk:orders_pkey", "id".to_owned()),
            (
                "sales.order_items.pk:order_items_pkey",
                "order_id, line_no".to_owned()
            ),
            ("sales.shipments.pk:shipments_pkey", "id".to_owned()),
        ]
    );
    assert_eq!(
        outcome
            .object("public.addresses.pk:addresses_pk")
            .parent_native_id
            .as_deref(),
        Some("public.addresses")
    );
}

/// The foreign keys of the PostgreSQL sample, with their columns and what they refer to.
fn postgres_foreign_keys(outcome: &Outcome) {
    let key_columns = |id: &str| outcome.value(id, "Key Columns");

    let foreign_key = |id: &str| {
        let object = outcome.object(id);
        assert_eq!(object.object_type, "Foreign Key");
        (
            object.name.clone(),
            object.parent_native_id.clone().unwrap_or_default(),
            key_columns(id).unwrap_or_default(),
            outcome.value(id, "Referenced Table").unwrap_or_default(),
            outcome.value(id, "Referenced Columns").unwrap_or_default(),
        )
    };
    let expected = |name: &str, table: &str, columns: &str, target: &str, target_columns: &str| {
        (
            name.to_owned(),
            table.to_owned(),
            columns.to_owned(),
            target.to_owned(),
            target_columns.to_owned(),
        )
    };
    assert_eq!(outcome.native_ids_of_type("Foreign Key").len(), 6);
    // Inline REFERENCES, named after PostgreSQL's convention.
    assert_eq!(
        foreign_key("public.addresses.fk:addresses_customer_id_fkey"),
        expected(
            "addresses_customer_id_fkey",
            "public.addresses",
            "customer_id",
            "public.customers",
            "id"
        )
    );
    // A table constraint.
    assert_eq!(
        foreign_key("sales.orders.fk:orders_customer_fk"),
        expected(
            "orders_customer_fk",
            "sales.orders",
            "customer_id",
            "public.customers",
            "id"
        )
    );
    // Inline REFERENCES without a column list: the target's primary key.
    assert_eq!(
        foreign_key("sales.order_items.fk:order_items_order_id_fkey"),
        expected(
            "order_items_order_id_fkey",
            "sales.order_items",
            "order_id",
            "sales.orders",
            "id"
        )
    );
    // ALTER TABLE ... ADD CONSTRAINT, also with ONLY.
    assert_eq!(
        foreign_key("sales.order_items.fk:order_items_sku_fkey"),
        expected(
            "order_items_sku_fkey",
            "sales.order_items",
            "sku",
            "sales.products",
            "sku"
        )
    );
    assert_eq!(
        foreign_key("sales.shipments.fk:shipments_order_fk"),
        expected(
            "shipments_order_fk",
            "sales.shipments",
            "order_id",
            "sales.orders",
            "id"
        )
    );
    // To a table the script does not create: the key is kept, the relationship is not.
    assert_eq!(
        foreign_key("sales.shipments.fk:shipments_carrier_fk"),
        expected(
            "shipments_carrier_fk",
            "sales.shipments",
            "carrier",
            "logistics.carriers",
            "code"
        )
    );
    assert_eq!(
        outcome.log_lines(Level::Warn),
        [
            "sales.shipments: foreign key shipments_carrier_fk refers to logistics.carriers, \
          which is not created in the script; it has no relationship"
        ]
    );
}

/// The entity relationships the foreign keys make.
fn postgres_entity_relationships(outcome: &Outcome) {
    let relationship = |name: &str, source: &str, target: &str| {
        (
            "entity_relationship".to_owned(),
            name.to_owned(),
            source.to_owned(),
            target.to_owned(),
        )
    };
    assert_eq!(
        outcome.edges(),
        BTreeSet::from([
            relationship(
                "addresses_customer_id_fkey",
                "public.addresses",
                "public.customers"
            ),
            relationship("orders_customer_fk", "sales.orders", "public.customers"),
            relationship(
                "order_items_order_id_fkey",
                "sales.order_items",
                "sales.orders"
            ),
            relationship(
                "order_items_sku_fkey",
                "sales.order_items",
                "sales.products"
            ),
            relationship("shipments_order_fk", "sales.shipments", "sales.orders"),
        ])
    );
}

/// The view, a join of three tables with an aggregate, has lineage from each table and
/// from the columns its columns are computed of; the join and grouping columns only
/// count through the tables.
fn postgres_view_lineage(outcome: &Outcome) {
    let edge = |name: &str, source: &str, target: &str| {
        (name.to_owned(), source.to_owned(), target.to_owned())
    };
    assert_eq!(
        outcome.lineage(),
        BTreeSet::from([
            edge("sql view", "sales.orders", "sales.order_totals"),
            edge("sql view", "public.customers", "sales.order_totals"),
            edge("sql view", "sales.order_items", "sales.order_totals"),
            edge(
                "sql view (DIRECT/IDENTITY)",
                "sales.orders.id",
                "sales.order_totals.order_id"
            ),
            edge(
                "sql view (DIRECT/IDENTITY)",
                "public.customers.full_name",
                "sales.order_totals.customer"
            ),
            edge(
                "sql view (DIRECT/AGGREGATION)",
                "sales.order_items.quantity",
                "sales.order_totals.total"
            ),
            edge(
                "sql view (DIRECT/AGGREGATION)",
                "sales.order_items.unit_price",
                "sales.order_totals.total"
            ),
            edge(
                "sql view (DIRECT/IDENTITY)",
                "sales.orders.status",
                "sales.order_totals.status"
            ),
        ])
    );
}

#[test]
fn postgres_sample_gives_comments_views_and_indexes() {
    let outcome = import(&sample("postgres.sql"), json!({}));
    let description = |id: &str| outcome.object(id).description.clone();

    assert_eq!(
        description("sales").as_deref(),
        Some("Orders and what is on them.")
    );
    assert_eq!(description("public"), None);
    assert_eq!(
        description("public.customers").as_deref(),
        Some("One row per customer who placed at least one order.")
    );
    assert_eq!(
        description("public.customers.email").as_deref(),
        Some("Contact e-mail address, as entered by the customer.")
    );
    assert_eq!(
        description("sales.orders.status").as_deref(),
        Some("One of open, shipped, cancelled.")
    );
    assert_eq!(
        description("sales.order_totals").as_deref(),
        Some("The value of each order.")
    );
    assert_eq!(
        description("sales.orders.ix:orders_customer_idx").as_deref(),
        Some("Orders of a customer, newest first.")
    );
    assert_eq!(description("sales.orders"), None);

    let view = outcome.object("sales.order_totals");
    assert_eq!(view.object_type, "View");
    assert_eq!(
        outcome.attributes("sales.order_totals"),
        BTreeMap::from([(
            "View Statement".to_owned(),
            (
                "String".to_owned(),
                "SELECT o.id AS order_id, c.full_name AS customer, \
                 sum(i.quantity * i.unit_price) AS total, o.status \
                 FROM sales.orders o JOIN customers c ON c.id = o.customer_id \
                 JOIN sales.order_items i ON i.order_id = o.id \
                 GROUP BY o.id, c.full_name, o.status"
                    .to_owned()
            )
        )])
    );
    // View columns: names from aliases, types from the columns they select.
    assert_eq!(
        outcome.columns("sales.order_totals"),
        [
            ("order_id", Some("BIGINT")),
            ("customer", Some("VARCHAR(200)")),
            ("total", None),
            ("status", Some("VARCHAR(20)")),
        ]
    );
    assert_eq!(
        outcome
            .value("sales.order_totals.status", "Position")
            .as_deref(),
        Some("4")
    );
    assert_eq!(outcome.value("sales.order_totals.status", "Nullable"), None);

    let index = |id: &str| {
        (
            outcome.object(id).name.clone(),
            outcome.value(id, "Key Columns").unwrap_or_default(),
            outcome.value(id, "Unique").unwrap_or_default(),
        )
    };
    let expected = |name: &str, columns: &str, unique: &str| {
        (name.to_owned(), columns.to_owned(), unique.to_owned())
    };
    assert_eq!(
        outcome.native_ids_of_type("Index"),
        [
            "public.customers.ix:customers_email_key",
            "public.customers.ix:customers_expr_idx",
            "sales.orders.ix:orders_customer_idx",
        ]
    );
    assert_eq!(
        index("sales.orders.ix:orders_customer_idx"),
        expected(
            "orders_customer_idx",
            "customer_id, ordered_at DESC",
            "false"
        )
    );
    // A UNIQUE column constraint, and an unnamed expression index.
    assert_eq!(
        index("public.customers.ix:customers_email_key"),
        expected("customers_email_key", "email", "true")
    );
    assert_eq!(
        index("public.customers.ix:customers_expr_idx"),
        expected("customers_expr_idx", "lower(email)", "true")
    );
}

#[test]
fn postgres_sample_logs_skipped_statements_and_a_summary() {
    let outcome = import(&sample("postgres.sql"), json!({}));
    assert_eq!(
        outcome.log_lines(Level::Info),
        [
            "skipped 8 statements the importer does not model: ALTER TABLE (1), \
             CREATE EXTENSION (1), CREATE FUNCTION (1), GRANT (2), INSERT (2), SET (1)",
            "postgres.sql (PostgreSQL): 28 statements; 2 schemas, 7 tables, 1 view, \
             35 columns, 7 primary keys, 6 foreign keys, 5 relationships, 3 indexes, \
             8 lineage relationships",
        ]
    );
    let last = outcome.progress.last().expect("progress");
    assert_eq!(last.unit, "lines");
    assert_eq!(Some(last.done), last.total);
    assert_eq!(last.total, Some(101));
}

#[test]
fn sqlite_sample_keeps_names_and_compares_them_case_insensitively() {
    let outcome = import(&sample("sqlite.sql"), json!({"dialect": "sqlite"}));

    sqlite_tables_and_columns(&outcome);
    sqlite_keys_indexes_and_relationships(&outcome);
    sqlite_view_and_lineage(&outcome);

    // `PRAGMA foreign_keys = ON` is more than sqlparser reads; it is skipped all the same.
    assert_eq!(
        outcome.log_lines(Level::Info),
        [
            "skipped 2 statements the importer does not model: INSERT (1), PRAGMA (1)",
            "sqlite.sql (SQLite): 9 statements; 1 schema, 5 tables, 1 view, 22 columns, \
             5 primary keys, 4 foreign keys, 4 relationships, 1 index, \
             9 lineage relationships",
        ]
    );
    assert!(outcome.log_lines(Level::Warn).is_empty());
}

/// The SQLite sample's schema, tables and view, their names as written, and the columns
/// of a table.
fn sqlite_tables_and_columns(outcome: &Outcome) {
    assert_eq!(outcome.native_ids_of_type("Schema"), ["main"]);
    assert_eq!(
        outcome.child_types("main"),
        [
            ("main.artists", "Table"),
            ("main.albums", "Table"),
            ("main.tracks", "Table"),
            ("main.playlisttrack", "Table"),
            ("main.playlists", "Table"),
            ("main.albumtracks", "View"),
        ]
    );
    assert_eq!(outcome.object("main.playlisttrack").name, "PlaylistTrack");
    // INTEGER PRIMARY KEY AUTOINCREMENT, and a column without a type.
    assert_eq!(
        outcome.columns("main.tracks"),
        [
            ("TrackId", Some("INTEGER")),
            ("Name", Some("TEXT")),
            ("AlbumId", Some("INTEGER")),
            ("Milliseconds", Some("INTEGER")),
            ("UnitPrice", Some("NUMERIC(10,2)")),
            ("Notes", None),
        ]
    );
    assert_eq!(
        outcome.value("main.tracks.trackid", "Nullable").as_deref(),
        Some("false")
    );
    assert_eq!(
        outcome
            .value("main.tracks.unitprice", "Default Value")
            .as_deref(),
        Some("0.99")
    );
    assert_eq!(
        outcome.value("main.artists.name", "Length").as_deref(),
        Some("120")
    );
}

/// Keys and indexes keep their names as written; foreign keys find their targets
/// whatever the case, and make entity relationships.
fn sqlite_keys_indexes_and_relationships(outcome: &Outcome) {
    let pk = outcome.object("main.artists.pk:artists_pkey");
    assert_eq!(pk.name, "Artists_pkey");
    assert_eq!(
        outcome
            .value("main.playlisttrack.pk:playlisttrack_pkey", "Key Columns")
            .as_deref(),
        Some("PlaylistId, TrackId")
    );

    // `REFERENCES artists (artistid)` names the columns as declared.
    let fk = "main.albums.fk:albums_artistid_fkey";
    assert_eq!(outcome.object(fk).name, "Albums_ArtistId_fkey");
    assert_eq!(
        outcome.value(fk, "Referenced Table").as_deref(),
        Some("main.Artists")
    );
    assert_eq!(
        outcome.value(fk, "Referenced Columns").as_deref(),
        Some("ArtistId")
    );
    // `REFERENCES Playlists` is resolved although Playlists is created later.
    assert_eq!(
        outcome
            .value(
                "main.playlisttrack.fk:playlisttrack_playlistid_fkey",
                "Referenced Columns"
            )
            .as_deref(),
        Some("PlaylistId")
    );
    let relationship = |name: &str, source: &str, target: &str| {
        (
            "entity_relationship".to_owned(),
            name.to_owned(),
            source.to_owned(),
            target.to_owned(),
        )
    };
    assert_eq!(
        outcome.edges(),
        BTreeSet::from([
            relationship("Albums_ArtistId_fkey", "main.albums", "main.artists"),
            relationship("Tracks_AlbumId_fkey", "main.tracks", "main.albums"),
            relationship(
                "PlaylistTrack_PlaylistId_fkey",
                "main.playlisttrack",
                "main.playlists"
            ),
            relationship(
                "PlaylistTrack_TrackId_fkey",
                "main.playlisttrack",
                "main.tracks"
            ),
        ])
    );

    let index = outcome.object("main.tracks.ix:ifk_trackalbumid");
    assert_eq!(index.name, "IFK_TrackAlbumId");
    assert_eq!(
        outcome
            .value("main.tracks.ix:ifk_trackalbumid", "Key Columns")
            .as_deref(),
        Some("AlbumId")
    );
}

/// The view, whose `t.*` is expanded, and its lineage.
fn sqlite_view_and_lineage(outcome: &Outcome) {
    // `t.*` is expanded over the columns of Tracks.
    assert_eq!(
        outcome.columns("main.albumtracks"),
        [
            ("Album", Some("NVARCHAR(160)")),
            ("TrackId", Some("INTEGER")),
            ("Name", Some("TEXT")),
            ("AlbumId", Some("INTEGER")),
            ("Milliseconds", Some("INTEGER")),
            ("UnitPrice", Some("NUMERIC(10,2)")),
            ("Notes", None),
        ]
    );
    // Lineage follows the expansion, with the ids' folded names.
    let identity = |source: &str, target: &str| {
        (
            "sql view (DIRECT/IDENTITY)".to_owned(),
            source.to_owned(),
            format!("main.albumtracks.{target}"),
        )
    };
    let view = |source: &str| {
        (
            "sql view".to_owned(),
            source.to_owned(),
            "main.albumtracks".to_owned(),
        )
    };
    assert_eq!(
        outcome.lineage(),
        BTreeSet::from([
            view("main.albums"),
            view("main.tracks"),
            identity("main.albums.title", "album"),
            identity("main.tracks.trackid", "trackid"),
            identity("main.tracks.name", "name"),
            identity("main.tracks.albumid", "albumid"),
            identity("main.tracks.milliseconds", "milliseconds"),
            identity("main.tracks.unitprice", "unitprice"),
            identity("main.tracks.notes", "notes"),
        ])
    );
    assert_eq!(
        outcome
            .value("main.albumtracks", "View Statement")
            .as_deref(),
        Some(
            "SELECT al.Title AS Album, t.* FROM Albums al JOIN Tracks t ON t.AlbumId = al.AlbumId"
        )
    );
}

#[test]
fn model_name_and_default_schema_can_be_given() {
    let outcome = import(
        &sample("postgres.sql"),
        json!({"modelName": "Shop", "defaultSchema": "crm"}),
    );
    let Some(Record::Model(model)) = outcome.records.first() else {
        panic!("the model comes first");
    };
    assert_eq!(model.name, "Shop");
    assert_eq!(outcome.native_ids_of_type("Schema"), ["sales", "crm"]);
    assert!(outcome.has_object("crm.customers.email"));
    assert!(!outcome.has_object("public.customers"));
    // The unqualified REFERENCES follow the default schema ...
    assert!(outcome.edges().contains(&(
        "entity_relationship".to_owned(),
        "addresses_customer_id_fkey".to_owned(),
        "crm.addresses".to_owned(),
        "crm.customers".to_owned(),
    )));
    // ... while `REFERENCES public.customers` now names a table the script does not create.
    assert_eq!(outcome.edges().len(), 4);
    assert_eq!(outcome.log_lines(Level::Warn).len(), 2);
    assert!(
        outcome.log_lines(Level::Warn)[0]
            .starts_with("sales.orders: foreign key orders_customer_fk refers to public.customers")
    );

    // Blank parameters are the defaults.
    let outcome = import(
        &sample("sqlite.sql"),
        json!({"dialect": "sqlite", "modelName": " ", "defaultSchema": ""}),
    );
    let Some(Record::Model(model)) = outcome.records.first() else {
        panic!("the model comes first");
    };
    assert_eq!(model.name, "sqlite");
    assert_eq!(outcome.native_ids_of_type("Schema"), ["main"]);
}

#[test]
fn the_dialect_decides_parsing_and_case_folding() {
    let script = Script::new(
        "mixed.sql",
        "CREATE TABLE \"Mixed\" (Id INTEGER PRIMARY KEY, \"Label\" TEXT);\n\
         CREATE TABLE Other (Ref INTEGER REFERENCES \"Mixed\" (Id));\n",
    );
    let postgres = import(&script.path, json!({"dialect": "postgres"}));
    assert_eq!(
        postgres.native_ids_of_type("Table"),
        ["public.Mixed", "public.other"]
    );
    assert_eq!(
        postgres.native_ids_of_type("Column"),
        ["public.Mixed.id", "public.Mixed.Label", "public.other.ref"]
    );
    assert_eq!(postgres.object("public.Mixed").name, "Mixed");
    assert_eq!(postgres.object("public.other").name, "other");

    let sqlite = import(&script.path, json!({"dialect": "sqlite"}));
    assert_eq!(
        sqlite.native_ids_of_type("Table"),
        ["main.mixed", "main.other"]
    );
    assert_eq!(
        sqlite.columns("main.mixed"),
        [("Id", Some("INTEGER")), ("Label", Some("TEXT"))]
    );
    assert_eq!(sqlite.object("main.other").name, "Other");

    let generic = import(&script.path, json!({"dialect": "generic"}));
    assert_eq!(
        generic.native_ids_of_type("Table"),
        ["public.mixed", "public.other"]
    );
    assert_eq!(generic.edges().len(), 1);

    // A column without a type is SQLite's: the generic dialect does not read it.
    assert!(
        run(&sample("sqlite.sql"), json!({"dialect": "sqlite"}))
            .result
            .is_ok()
    );
    let generic = run(&sample("sqlite.sql"), json!({"dialect": "generic"}));
    let warnings = generic.log_lines(Level::Warn);
    assert!(
        warnings.iter().any(|w| w.ends_with(
            "which the SQL parser cannot read: sql parser error: Expected: a data type name, \
             found: ) at Line: 22, Column: 1"
        )),
        "{warnings:?}"
    );

    let outcome = run(&script.path, json!({"dialect": "oracle"}));
    assert_eq!(
        outcome.error(),
        "unknown dialect 'oracle'; the dialects are postgres, sqlite, generic"
    );
}

#[test]
fn a_statement_the_parser_cannot_read_is_skipped_and_named() {
    let script = Script::new(
        "broken.sql",
        "CREATE TABLE a (id INTEGER);\n\
         \n\
         CREATE TABLE b (id INTEGER,, name TEXT);\n\
         CREATE TABLE c (id INTEGER)\n\
         CREATE TABLE d (id INTEGER);\n\
         CREATE TABLE e (id INTEGER);\n",
    );
    let outcome = import(&script.path, json!({}));
    assert_eq!(
        outcome.native_ids_of_type("Table"),
        ["public.a", "public.c", "public.e"],
        "everything the parser reads lands"
    );
    assert_eq!(
        outcome.log_lines(Level::Warn),
        [
            "line 3: skipped `CREATE TABLE b`, which the SQL parser cannot read: sql parser error: \
             Expected: column name or constraint definition, found: , at Line: 3, Column: 28",
            // Two statements without a semicolon between them: the first is read, the
            // rest up to the semicolon is not.
            "line 5: skipped `CREATE TABLE d`, which the SQL parser cannot read: sql parser error: \
             Expected: end of statement, found: CREATE at Line: 5, Column: 1",
        ]
    );
    assert_eq!(
        outcome.log_lines(Level::Info)[0],
        "skipped 2 statements the SQL parser cannot read (each named in a warning)"
    );

    // A script that is not SQL at all still fails, naming the file and the place.
    let script = Script::new(
        "unterminated.sql",
        "CREATE TABLE a (id INTEGER);\nSELECT 'x;\n",
    );
    let error = run(&script.path, json!({})).error();
    assert!(error.starts_with("unterminated.sql: "), "{error}");
}

/// What `pg_dump --schema-only` writes beside tables: domains, a composite type, an
/// aggregate, functions with `$$` bodies, a trigger, a sequence owned by a column, a
/// partitioned table and a materialized view. What the importer does not model is
/// counted; the tables land.
#[test]
fn a_schema_dump_imports_its_tables_and_counts_the_rest() {
    let script = Script::new(
        "dump.sql",
        r#"SET statement_timeout = 0;
SET client_encoding = 'UTF8';
SELECT pg_catalog.set_config('search_path', '', false);
CREATE DOMAIN public.year AS integer
	CONSTRAINT year_check CHECK (((VALUE >= 1901) AND (VALUE <= 2155)));
CREATE TYPE public.mpaa_rating AS ENUM ('G', 'PG', 'PG-13', 'R', 'NC-17');
CREATE TYPE public.full_name AS (first text, last text);
CREATE FUNCTION public._group_concat(text, text) RETURNS text
    LANGUAGE sql IMMUTABLE
    AS $_$
SELECT CASE
  WHEN $2 IS NULL THEN $1
  WHEN $1 IS NULL THEN $2
  ELSE $1 || ', ' || $2
END
$_$;
CREATE AGGREGATE public.group_concat(text) (
    SFUNC = public._group_concat,
    STYPE = text
);
CREATE FUNCTION public.last_updated() RETURNS trigger
    LANGUAGE plpgsql
    AS $$
BEGIN
    NEW.last_update = CURRENT_TIMESTAMP;
    RETURN NEW;
END $$;
CREATE SEQUENCE public.actor_actor_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;
CREATE TABLE public.actor (
    actor_id integer DEFAULT nextval('public.actor_actor_id_seq'::regclass) NOT NULL,
    first_name text NOT NULL,
    last_name text NOT NULL,
    release_year public.year,
    last_update timestamp with time zone DEFAULT now() NOT NULL
);
ALTER SEQUENCE public.actor_actor_id_seq OWNED BY public.actor.actor_id;
CREATE TABLE public.payment (
    payment_id integer NOT NULL,
    amount numeric(5,2) NOT NULL,
    payment_date timestamp with time zone NOT NULL
)
PARTITION BY RANGE (payment_date);
CREATE MATERIALIZED VIEW public.rental_by_category AS
 SELECT a.first_name,
    count(*) AS total
   FROM public.actor a
  GROUP BY a.first_name
  WITH NO DATA;
ALTER TABLE ONLY public.actor
    ADD CONSTRAINT actor_pkey PRIMARY KEY (actor_id);
CREATE TRIGGER last_updated BEFORE UPDATE ON public.actor FOR EACH ROW EXECUTE FUNCTION public.last_updated();
"#,
    );
    let outcome = import(&script.path, json!({}));
    let tables = outcome.native_ids_of_type("Table");
    assert!(
        tables.contains(&"public.actor".to_owned()),
        "the tables land: {tables:?}"
    );
    assert_eq!(
        outcome.columns("public.actor").len(),
        5,
        "every column of actor"
    );
    for warning in outcome.log_lines(Level::Warn) {
        assert!(
            warning.starts_with("line ") && warning.contains("which the SQL parser cannot read"),
            "{warning}"
        );
    }
    // `ALTER SEQUENCE ... OWNED BY` is counted as not modelled, `WITH NO DATA` is read
    // with its materialized view: nothing is left unread.
    assert_eq!(outcome.log_lines(Level::Warn), Vec::<String>::new());
    assert_eq!(
        outcome.log_lines(Level::Info),
        [
            "skipped 12 statements the importer does not model: ALTER SEQUENCE (1), \
             CREATE AGGREGATE (1), CREATE DOMAIN (1), CREATE FUNCTION (2), CREATE SEQUENCE (1), \
             CREATE TRIGGER (1), CREATE TYPE (2), SELECT (1), SET (2)",
            "dump.sql (PostgreSQL): 16 statements; 1 schema, 2 tables, 1 view, 10 columns, \
             1 primary key, 0 foreign keys, 0 relationships, 0 indexes, \
             2 lineage relationships",
        ]
    );
}

/// SQLite's triggers hold semicolons inside `BEGIN ... END`; one the parser cannot
/// read is skipped whole, and the statements after it land.
#[test]
fn a_trigger_block_is_skipped_whole() {
    let script = Script::new(
        "triggers.sql",
        "CREATE TABLE a (id INTEGER PRIMARY KEY, n INTEGER);\n\
         CREATE TRIGGER a_count AFTER INSERT ON a WHEN new.n > 0 BEGIN \
         UPDATE a SET n = CASE WHEN n > 1 THEN n - 1 ELSE 0 END WHERE id = new.id; \
         DELETE FROM a WHERE n = 0 ??; END;\n\
         CREATE TABLE b (id INTEGER);\n",
    );
    let outcome = import(&script.path, json!({"dialect": "sqlite"}));
    assert_eq!(outcome.native_ids_of_type("Table"), ["main.a", "main.b"]);
    assert!(
        outcome.log_lines(Level::Warn).len() <= 1,
        "one statement, one warning at most: {:?}",
        outcome.log_lines(Level::Warn)
    );
}

#[test]
fn a_missing_file_is_an_error() {
    let missing = std::env::temp_dir().join("lore-importer-ddl-does-not-exist.sql");
    let error = run(&missing, json!({})).error();
    assert!(
        error.starts_with("cannot read lore-importer-ddl-does-not-exist.sql: "),
        "{error}"
    );

    let error = testing::run::<DdlImporter>(&request(None, json!({}))).error();
    assert_eq!(error, "format 'sql-ddl' needs a file");
}

#[test]
fn later_statements_add_to_earlier_ones() {
    let script = Script::new(
        "later.sql",
        "CREATE SCHEMA AUTHORIZATION joe;\n\
         CREATE TABLE joe.parent (id INT NOT NULL, code TEXT);\n\
         CREATE TABLE joe.child (parent_id INT, other_id INT, \"a.b\" TEXT);\n\
         ALTER TABLE joe.parent ADD PRIMARY KEY (id);\n\
         ALTER TABLE joe.parent ADD COLUMN note VARCHAR(10) DEFAULT 'x';\n\
         ALTER TABLE joe.child ADD FOREIGN KEY (parent_id) REFERENCES joe.parent;\n\
         ALTER TABLE joe.child ADD FOREIGN KEY (parent_id) REFERENCES joe.parent (id);\n\
         ALTER TABLE joe.child ADD CONSTRAINT child_check CHECK (other_id > 0);\n\
         CREATE VIEW joe.v (a, b) AS SELECT p.id, p.code::VARCHAR(5) FROM joe.parent p;\n\
         COMMENT ON COLUMN joe.child.\"a.b\" IS 'Dotted.';\n\
         COMMENT ON COLUMN joe.v.b IS 'A code.';\n\
         COMMENT ON TABLE joe.nowhere IS 'Lost.';\n\
         COMMENT ON TABLE joe.parent IS 'Parents.';\n\
         COMMENT ON TABLE joe.parent IS NULL;\n",
    );
    let outcome = import(&script.path, json!({}));

    assert_eq!(outcome.native_ids_of_type("Schema"), ["joe"]);
    assert_eq!(
        outcome.columns("joe.parent"),
        [
            ("id", Some("INT")),
            ("code", Some("TEXT")),
            ("note", Some("VARCHAR(10)")),
        ]
    );
    assert_eq!(
        outcome.value("joe.parent.note", "Position").as_deref(),
        Some("3")
    );
    assert_eq!(
        outcome.value("joe.parent.note", "Default Value").as_deref(),
        Some("'x'")
    );
    assert_eq!(
        outcome
            .value("joe.parent.pk:parent_pkey", "Key Columns")
            .as_deref(),
        Some("id")
    );
    // Two unnamed keys over the same column get PostgreSQL's numbered names.
    assert_eq!(
        outcome.native_ids_of_type("Foreign Key"),
        [
            "joe.child.fk:child_parent_id_fkey",
            "joe.child.fk:child_parent_id_fkey1"
        ]
    );
    assert_eq!(outcome.edges().len(), 2);
    // A name with a dot is quoted in the native id.
    assert_eq!(
        outcome.object("joe.child.\"a.b\"").description.as_deref(),
        Some("Dotted.")
    );
    // CREATE VIEW v (a, b) renames the query's columns; a cast gives a type.
    assert_eq!(
        outcome.columns("joe.v"),
        [("a", Some("INT")), ("b", Some("VARCHAR(5)"))]
    );
    assert_eq!(
        outcome.object("joe.v.b").description.as_deref(),
        Some("A code.")
    );
    // COMMENT ... IS NULL removes the description again.
    assert_eq!(outcome.object("joe.parent").description, None);
    assert_eq!(
        outcome.log_lines(Level::Warn),
        ["COMMENT ON TABLE joe.nowhere: no such table or view in the script"]
    );
    // A CHECK constraint is not modelled, so its ALTER TABLE is skipped.
    assert_eq!(
        outcome.log_lines(Level::Info)[0],
        "skipped 1 statement the importer does not model: ALTER TABLE (1)"
    );
}

#[test]
fn duplicates_are_reported_not_sent_twice() {
    let script = Script::new(
        "dupes.sql",
        "CREATE TABLE t (a INT PRIMARY KEY, b INT, PRIMARY KEY (b));\n\
         CREATE TABLE IF NOT EXISTS t (x INT);\n\
         CREATE TABLE t (y INT);\n\
         CREATE VIEW t AS SELECT 1;\n\
         CREATE TABLE u (a INT, a TEXT);\n\
         CREATE INDEX i ON t (b);\n\
         CREATE INDEX i ON t (a);\n\
         CREATE INDEX j ON missing (a);\n\
         CREATE VIEW w AS SELECT a, a FROM t;\n\
         CREATE VIEW x AS SELECT * FROM elsewhere;\n",
    );
    let outcome = import(&script.path, json!({}));
    assert_eq!(
        outcome.columns("public.t"),
        [("a", Some("INT")), ("b", Some("INT"))]
    );
    assert_eq!(
        outcome
            .value("public.t.pk:t_pkey", "Key Columns")
            .as_deref(),
        Some("a")
    );
    assert_eq!(outcome.columns("public.u"), [("a", Some("INT"))]);
    assert_eq!(outcome.native_ids_of_type("Index"), ["public.t.ix:i"]);
    assert_eq!(outcome.columns("public.w"), [("a", Some("INT"))]);
    // CREATE TABLE IF NOT EXISTS over an existing table is no news.
    assert_eq!(
        outcome.log_lines(Level::Warn),
        [
            "public.t: a second primary key is declared; the first is kept",
            "CREATE TABLE public.t: a table or view of that name exists already; \
             the first definition is kept",
            "CREATE VIEW public.t: a table or view of that name exists already; \
             the first definition is kept",
            "public.u: column a is declared twice; the first declaration is kept",
            "public.t: a second index is named i; it is left out",
            "index j: table public.missing is not created in the script; the index is left out",
            "public.w: column a appears twice in the query; the second is left out",
            "public.x: the columns * takes from elsewhere are not known from the script; \
             they are left out",
            // The lineage of the view says it too.
            "line 10 (CREATE VIEW x): '*' of table 'elsewhere' whose columns are not known",
            "line 10 (CREATE VIEW x): table 'elsewhere' is not in the script",
        ]
    );
}

#[test]
fn create_or_replace_view_replaces_the_view_and_keeps_its_comments() {
    let script = Script::new(
        "replace.sql",
        "CREATE TABLE t (a INT, b TEXT);\n\
         CREATE VIEW v AS SELECT a FROM t;\n\
         COMMENT ON VIEW v IS 'The view.';\n\
         COMMENT ON COLUMN v.a IS 'Column a.';\n\
         CREATE OR REPLACE VIEW v AS SELECT a, b FROM t;\n\
         CREATE OR REPLACE VIEW t AS SELECT 1 AS one;\n",
    );
    let outcome = import(&script.path, json!({}));
    assert_eq!(
        outcome.columns("public.v"),
        [("a", Some("INT")), ("b", Some("TEXT"))]
    );
    assert_eq!(
        outcome.value("public.v", "View Statement").as_deref(),
        Some("SELECT a, b FROM t")
    );
    assert_eq!(
        outcome.object("public.v").description.as_deref(),
        Some("The view.")
    );
    assert_eq!(
        outcome.object("public.v.a").description.as_deref(),
        Some("Column a.")
    );
    // OR REPLACE replaces views, not tables.
    assert_eq!(outcome.object("public.t").object_type, "Table");
    assert_eq!(
        outcome.log_lines(Level::Warn),
        [
            "CREATE VIEW public.t: a table or view of that name exists already; \
          the first definition is kept"
        ]
    );
}

#[test]
fn a_host_that_stops_the_import_stops_it() {
    let mut send = |_: u32, _: &[u8]| false;
    let mut out = Output::new(&mut send);
    let result = DdlImporter::import(&request(Some(&sample("postgres.sql")), json!({})), &mut out);
    assert_eq!(result, Err(Error::new("the host stopped the import")));
}
