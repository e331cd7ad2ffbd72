//! Lore importer plugin for dbt: turns a dbt `manifest.json` into a relational model.
//!
//! Format `dbt-manifest`. Every database and schema the imported nodes live in becomes a
//! `Database` and a `Schema`; models, seeds, snapshots and sources become `Table`s or
//! `View`s under their schema, with their documented columns as `Column`s; tags become
//! labels and `depends_on` becomes `lineage` from each upstream node to its downstream
//! node. See the crate's README for the whole mapping and the native id scheme.
//!
//! Column lineage: the compiled SQL of each imported model and snapshot (`compiled_code`,
//! present after `dbt compile`, `run` or `build`) is read with `lore-sql-lineage` in the
//! dialect of the manifest's adapter, knowing the documented columns of the upstream
//! nodes under their `relation_name`s. Each DIRECT source of an output column becomes
//! `lineage` from the upstream node's column to the node's column, named by how it is
//! computed: [`COLUMN_LINEAGE_IDENTITY`] (`dbt sql (DIRECT/IDENTITY)`),
//! [`COLUMN_LINEAGE_TRANSFORMATION`] or [`COLUMN_LINEAGE_AGGREGATION`]. INDIRECT uses
//! (joins, filters, grouping...) are stood for by the node-level edge. Ephemeral models
//! are CTEs (`__dbt__cte__<name>`) of the compiled SQL and are looked through. Only
//! documented columns are objects, so only they are linked; everything that cannot be
//! linked (undocumented output or upstream columns, unresolved references, SQL that does
//! not parse, tables that are no upstream node) is a warning of the operation log naming
//! the node.

mod manifest;
mod sql;

use std::collections::{BTreeSet, HashMap, HashSet};

use lore_importer_kit::lineage::{column_edge_name, direct_columns, lineage_relationship};
use lore_plugin_sdk::{
    About, Attribute, Error, Format, Importer, Label, Level, Model, Object, Output, Request,
};
use lore_sql_lineage::{Dialect, StatementKind, TableName};
use serde_json::json;

use crate::manifest::{Checked, Column, Node};

/// The format's name.
pub const FORMAT: &str = "dbt-manifest";
/// The profile of the model's objects.
pub const PROFILE: &str = "RDBMS Relational Database (Database)";
/// The model's name when neither `modelName` nor the manifest names one.
pub const DEFAULT_MODEL_NAME: &str = "dbt project";

/// Custom attributes the importer writes (all `String`).
pub const RESOURCE_TYPE: &str = "dbt Resource Type";
pub const MATERIALIZATION: &str = "dbt Materialization";
pub const PACKAGE: &str = "dbt Package";
pub const FILE: &str = "dbt File";
pub const TESTS: &str = "dbt Tests";

/// Lineage names: from a source, and from a model, seed or snapshot.
pub const LINEAGE_FROM_SOURCE: &str = "dbt source";
pub const LINEAGE_FROM_REF: &str = "dbt ref";

/// Column lineage names, from a column of an upstream node to a column of the node whose
/// compiled SQL computes it, by how (OpenLineage's DIRECT transformation subtypes): the
/// names [`lore_importer_kit::lineage::column_edge_name`] gives after [`COLUMN_LINEAGE`].
pub const COLUMN_LINEAGE_IDENTITY: &str = "dbt sql (DIRECT/IDENTITY)";
pub const COLUMN_LINEAGE_TRANSFORMATION: &str = "dbt sql (DIRECT/TRANSFORMATION)";
pub const COLUMN_LINEAGE_AGGREGATION: &str = "dbt sql (DIRECT/AGGREGATION)";
/// What the column lineage names start with.
pub const COLUMN_LINEAGE: &str = "dbt sql";

/// Progress is reported every this many nodes.
const PROGRESS_EVERY: u64 = 500;

/// The dbt importer.
#[derive(Debug)]
pub struct DbtImporter;

impl Importer for DbtImporter {
    fn about() -> About {
        About::new("dbt", env!("CARGO_PKG_VERSION"))
            .description(
                "Imports dbt projects from their manifest.json: models, seeds, snapshots and \
                 sources with their columns, tags and lineage, and column lineage from the \
                 compiled SQL",
            )
            .format(
                Format::new(
                    FORMAT,
                    "A dbt manifest.json (target/manifest.json after dbt parse, compile or run)",
                )
                .parameters(json!({
                    "type": "object",
                    "properties": {
                        "modelName": {
                            "type": "string",
                            "description": "Name of the model; default: the dbt project's \
                                            name (metadata.project_name)"
                        },
                        "includeTests": {
                            "type": "boolean",
                            "default": false,
                            "description": "Record the dbt tests of each model, seed, snapshot, \
                                            source and column in its 'dbt Tests' attribute"
                        },
                        "includeEphemeral": {
                            "type": "boolean",
                            "default": false,
                            "description": "Import ephemeral models as views; by default they \
                                            are left out and lineage passes through them"
                        }
                    }
                })),
            )
    }

    fn import(request: &Request, out: &mut Output<'_>) -> Result<(), Error> {
        let options = Options::of(request);
        let manifest = manifest::read(request.require_file()?)?;
        Run::new(&manifest, &options, out).run()?;
        out.flush()
    }
}

lore_plugin_sdk::export_importer!(DbtImporter);

/// The parameters of an import.
#[derive(Debug)]
struct Options<'r> {
    model_name: Option<&'r str>,
    include_tests: bool,
    include_ephemeral: bool,
}

impl<'r> Options<'r> {
    fn of(request: &'r Request) -> Self {
        Self {
            model_name: request.text("modelName").filter(|n| !n.trim().is_empty()),
            include_tests: request.flag("includeTests"),
            include_ephemeral: request.flag("includeEphemeral"),
        }
    }
}

/// The kinds of node that become tables or views.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Model,
    Seed,
    Snapshot,
    Source,
}

/// What becomes of a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    /// An object of this type.
    Object(Kind, &'static str),
    /// An ephemeral model left out: lineage passes through it.
    Ephemeral,
    /// A test: at most an entry of its node's `dbt Tests`.
    Test,
    /// Anything else (analyses, operations...): left out.
    Other,
}

impl Role {
    fn of(node: &Node, source: bool, include_ephemeral: bool) -> Self {
        if source {
            return Self::Object(Kind::Source, "Table");
        }
        match node.resource_type.as_str() {
            "model" => match node.materialized() {
                Some("view" | "materialized_view") => Self::Object(Kind::Model, "View"),
                Some("ephemeral") if include_ephemeral => Self::Object(Kind::Model, "View"),
                Some("ephemeral") => Self::Ephemeral,
                _ => Self::Object(Kind::Model, "Table"),
            },
            "seed" => Self::Object(Kind::Seed, "Table"),
            "snapshot" => Self::Object(Kind::Snapshot, "Table"),
            "test" => Self::Test,
            _ => Self::Other,
        }
    }
}

/// A test of a node, or of one of its columns.
#[derive(Debug, Clone, Copy)]
struct TestRef<'m> {
    name: &'m str,
    column: Option<&'m str>,
}

/// How many of what were imported or left out.
#[derive(Debug, Default)]
struct Counts {
    models: u64,
    seeds: u64,
    snapshots: u64,
    sources: u64,
    columns: u64,
    lineage: u64,
    column_lineage: u64,
    /// Models and snapshots whose compiled SQL was read.
    sql_read: u64,
    tests: u64,
    ephemeral: u64,
    other: u64,
}

/// One import: the manifest, what has been sent, and where.
struct Run<'m, 'o, 'a> {
    manifest: &'m Checked,
    options: &'m Options<'m>,
    out: &'o mut Output<'a>,
    /// The dialect of the manifest's adapter, to read compiled SQL with.
    dialect: Dialect,
    /// Every node and source by unique id, with what becomes of it.
    index: HashMap<&'m str, (&'m Node, Role)>,
    /// The tests of each node (with `includeTests`), taken when the node is sent.
    tests: HashMap<&'m str, Vec<TestRef<'m>>>,
    /// Native ids sent: each is sent once, and references point only to them.
    sent: HashSet<String>,
    databases: HashMap<&'m str, String>,
    schemas: HashMap<(Option<&'m str>, &'m str), String>,
    counts: Counts,
}

impl<'m, 'o, 'a> Run<'m, 'o, 'a> {
    fn new(manifest: &'m Checked, options: &'m Options<'m>, out: &'o mut Output<'a>) -> Self {
        let sources = manifest.sources.iter().map(|n| (n, true));
        let index = manifest
            .nodes
            .iter()
            .map(|n| (n, false))
            .chain(sources)
            .map(|((id, node), source)| {
                (
                    id,
                    (node, Role::of(node, source, options.include_ephemeral)),
                )
            })
            .collect();
        let adapter = manifest.metadata.adapter_type.as_deref();
        Self {
            manifest,
            options,
            out,
            dialect: Dialect::from_name(adapter.unwrap_or_default()),
            index,
            tests: HashMap::new(),
            sent: HashSet::new(),
            databases: HashMap::new(),
            schemas: HashMap::new(),
            counts: Counts::default(),
        }
    }

    fn run(mut self) -> Result<(), Error> {
        let metadata = &self.manifest.metadata;
        let project = metadata.project_name.as_deref().filter(|p| !p.is_empty());
        let name = self
            .options
            .model_name
            .or(project)
            .unwrap_or(DEFAULT_MODEL_NAME);
        self.out
            .model(Model::new(name, PROFILE).description(self.model_description(project)))?;

        self.gather_tests();
        let total = (self.manifest.nodes.len() + self.manifest.sources.len()) as u64;
        let mut done = 0;
        self.out.progress(0, Some(total), "nodes")?;
        let manifest = self.manifest;
        for (id, _) in manifest.nodes.iter().chain(manifest.sources.iter()) {
            self.node(id)?;
            done += 1;
            if done % PROGRESS_EVERY == 0 {
                self.out.progress(done, Some(total), "nodes")?;
            }
        }
        self.lineage()?;
        self.out.progress(total, Some(total), "nodes")?;

        let c = &self.counts;
        let tests = if self.options.include_tests {
            format!("{} recorded in '{TESTS}'", plural(c.tests, "test"))
        } else {
            format!("{} left out", plural(c.tests, "test"))
        };
        let project = project.map(|p| format!(" of '{p}'")).unwrap_or_default();
        let version = metadata
            .dbt_version
            .as_deref()
            .map(|v| format!(" (dbt {v})"))
            .unwrap_or_default();
        let sql = match c.models + c.snapshots {
            0 => String::new(),
            total => format!(
                " (from the compiled SQL of {} of {total} models and snapshots)",
                c.sql_read
            ),
        };
        let summary = format!(
            "dbt manifest{project}{version}: imported {}, {}, {}, {}, {}, {}, {}{sql}; {tests}; \
             {} and {} left out",
            plural(c.models, "model"),
            plural(c.seeds, "seed"),
            plural(c.snapshots, "snapshot"),
            plural(c.sources, "source"),
            plural(c.columns, "column"),
            plural(c.lineage, "lineage edge"),
            plural(c.column_lineage, "column lineage edge"),
            plural(c.ephemeral, "ephemeral model"),
            plural(c.other, "other node"),
        );
        self.out.log(Level::Info, summary)
    }

    fn model_description(&self, project: Option<&str>) -> String {
        let metadata = &self.manifest.metadata;
        let mut about = Vec::new();
        if let Some(version) = &metadata.dbt_version {
            about.push(format!("dbt {version}"));
        }
        if let Some(adapter) = &metadata.adapter_type {
            about.push(format!("adapter {adapter}"));
        }
        if let Some(generated) = &metadata.generated_at {
            about.push(format!("generated {generated}"));
        }
        let project = project.map_or_else(
            || "a dbt project".to_owned(),
            |p| format!("dbt project '{p}'"),
        );
        if about.is_empty() {
            format!("The manifest of {project}.")
        } else {
            format!("The manifest of {project} ({}).", about.join(", "))
        }
    }

    /// Files the tests under the nodes they test (with `includeTests`) and counts them.
    fn gather_tests(&mut self) {
        let manifest = self.manifest;
        for (_, node) in manifest.nodes.iter() {
            if node.resource_type != "test" {
                continue;
            }
            self.counts.tests += 1;
            if !self.options.include_tests {
                continue;
            }
            let test = TestRef {
                name: node
                    .test_metadata
                    .as_ref()
                    .and_then(|t| t.name.as_deref())
                    .unwrap_or(&node.name),
                column: node.column_name.as_deref().filter(|c| !c.is_empty()),
            };
            let targets = match &node.attached_node {
                Some(attached) => std::slice::from_ref(attached),
                None => node.depends_on.nodes.as_slice(),
            };
            for target in targets {
                self.tests.entry(target.as_str()).or_default().push(test);
            }
        }
    }

    /// Claims a native id; false (with a warning) when it was sent already.
    fn claim(&mut self, id: &str) -> Result<bool, Error> {
        if self.sent.insert(id.to_owned()) {
            return Ok(true);
        }
        self.out.log(
            Level::Warn,
            format!("'{id}' appears twice in the manifest; the second is left out"),
        )?;
        Ok(false)
    }

    /// Sends a node or source (with its columns) if it becomes an object.
    fn node(&mut self, id: &'m str) -> Result<(), Error> {
        let Some(&(node, role)) = self.index.get(id) else {
            return Ok(());
        };
        let (kind, object_type) = match role {
            Role::Object(kind, object_type) => (kind, object_type),
            Role::Ephemeral => {
                self.counts.ephemeral += 1;
                return Ok(());
            }
            Role::Test => return Ok(()),
            Role::Other => {
                self.counts.other += 1;
                return Ok(());
            }
        };
        if !self.claim(id)? {
            return Ok(());
        }
        let parent = self.container(node)?;
        let mut object = Object::new(id, object_type, display_name(id, node));
        object.parent_native_id = parent;
        object.description = non_empty(node.description.as_deref()).map(str::to_owned);
        object.physical_name = physical_name(node, kind).map(str::to_owned);
        self.out.object(object)?;

        let resource_type = if kind == Kind::Source {
            "source"
        } else {
            &node.resource_type
        };
        self.text(id, RESOURCE_TYPE, Some(resource_type))?;
        if kind != Kind::Source {
            self.text(id, MATERIALIZATION, node.materialized())?;
        }
        self.text(id, PACKAGE, node.package_name.as_deref())?;
        self.text(id, FILE, node.original_file_path.as_deref())?;
        if object_type == "View" {
            let statement = non_empty(node.compiled_code.as_deref())
                .or_else(|| non_empty(node.raw_code.as_deref()));
            self.text(id, "View Statement", statement)?;
        }
        self.labels(id, &node.tags)?;

        let mut tests = self.tests.remove(id).unwrap_or_default();
        let mut position = 0;
        for (name, column) in node.columns.iter() {
            let column_id = format!("{id}.{name}");
            if self.claim(&column_id)? {
                position += 1;
                let column_tests = take_column_tests(&mut tests, name, node);
                self.column(id, column_id, name, column, position, column_tests)?;
            }
        }
        let node_tests = tests.iter().map(|t| match t.column {
            Some(column) => format!("{}({column})", t.name),
            None => t.name.to_owned(),
        });
        self.tests_attribute(id, node_tests.collect())?;

        let count = match kind {
            Kind::Model => &mut self.counts.models,
            Kind::Seed => &mut self.counts.seeds,
            Kind::Snapshot => &mut self.counts.snapshots,
            Kind::Source => &mut self.counts.sources,
        };
        *count += 1;
        Ok(())
    }

    fn column(
        &mut self,
        parent: &str,
        id: String,
        name: &str,
        column: &Column,
        position: i64,
        tests: Vec<String>,
    ) -> Result<(), Error> {
        let mut object = Object::new(id.as_str(), "Column", name).parent(parent);
        object.description = non_empty(column.description.as_deref()).map(str::to_owned);
        object.data_type = non_empty(column.data_type.as_deref()).map(str::to_owned);
        self.out.object(object)?;
        self.out
            .attribute(Attribute::integer(id.as_str(), "Position", position))?;
        if column.not_null() {
            self.out
                .attribute(Attribute::boolean(id.as_str(), "Nullable", false))?;
        }
        self.labels(&id, &column.tags)?;
        self.tests_attribute(&id, tests)?;
        self.counts.columns += 1;
        Ok(())
    }

    /// The parent of a node's object: its schema, else its database, else none. Sends
    /// the database and schema the first time they are seen.
    fn container(&mut self, node: &'m Node) -> Result<Option<String>, Error> {
        let database = non_empty(node.database.as_deref());
        let schema = non_empty(node.schema.as_deref());
        let database_id = match database {
            Some(database) => Some(self.database(database)?),
            None => None,
        };
        let Some(schema) = schema else {
            return Ok(database_id);
        };
        if let Some(id) = self.schemas.get(&(database, schema)) {
            return Ok(Some(id.clone()));
        }
        let id = match database {
            Some(database) => format!("schema:{database}.{schema}"),
            None => format!("schema:{schema}"),
        };
        if self.claim(&id)? {
            let mut object = Object::new(id.as_str(), "Schema", schema);
            object.parent_native_id = database_id;
            self.out.object(object)?;
        }
        self.schemas.insert((database, schema), id.clone());
        Ok(Some(id))
    }

    fn database(&mut self, database: &'m str) -> Result<String, Error> {
        if let Some(id) = self.databases.get(database) {
            return Ok(id.clone());
        }
        let id = format!("database:{database}");
        if self.claim(&id)? {
            self.out
                .object(Object::new(id.as_str(), "Database", database))?;
        }
        self.databases.insert(database, id.clone());
        Ok(id)
    }

    /// A `String` attribute, unless the value is absent or empty.
    fn text(&mut self, id: &str, attribute: &str, value: Option<&str>) -> Result<(), Error> {
        match non_empty(value) {
            Some(value) => self.out.attribute(Attribute::text(id, attribute, value)),
            None => Ok(()),
        }
    }

    /// The distinct, non-empty tags as labels.
    fn labels(&mut self, id: &str, tags: &[String]) -> Result<(), Error> {
        let mut seen = HashSet::new();
        for tag in tags {
            if !tag.trim().is_empty() && seen.insert(tag) {
                self.out.label(Label::label(id, tag.as_str()))?;
            }
        }
        Ok(())
    }

    /// The `dbt Tests` attribute: the distinct test names, sorted.
    fn tests_attribute(&mut self, id: &str, mut tests: Vec<String>) -> Result<(), Error> {
        if tests.is_empty() {
            return Ok(());
        }
        tests.sort();
        tests.dedup();
        self.out
            .attribute(Attribute::text(id, TESTS, tests.join(", ")))
    }

    /// Sends `lineage` from each imported node's upstream nodes to it. An upstream node
    /// left out as ephemeral is looked through: its own upstream nodes count instead.
    fn lineage(&mut self) -> Result<(), Error> {
        let mut upstream = Vec::new();
        let mut visited = HashSet::new();
        let manifest = self.manifest;
        for (id, node) in manifest.nodes.iter() {
            let Some((_, Role::Object(kind, _))) = self.index.get(id) else {
                continue;
            };
            if *kind == Kind::Source || !self.sent.contains(id) {
                continue;
            }
            upstream.clear();
            visited.clear();
            visited.insert(id);
            let mut stack: Vec<&str> = node
                .depends_on
                .nodes
                .iter()
                .rev()
                .map(String::as_str)
                .collect();
            while let Some(up) = stack.pop() {
                if !visited.insert(up) {
                    continue;
                }
                match self.index.get(up) {
                    Some(&(_, Role::Object(kind, _))) => upstream.push((up, kind)),
                    Some(&(node, Role::Ephemeral)) => {
                        stack.extend(node.depends_on.nodes.iter().rev().map(String::as_str));
                    }
                    _ => {}
                }
            }
            for &(up, kind) in &upstream {
                if !self.sent.contains(up) {
                    continue;
                }
                let name = if kind == Kind::Source {
                    LINEAGE_FROM_SOURCE
                } else {
                    LINEAGE_FROM_REF
                };
                self.out.relationship(lineage_relationship(name, up, id))?;
                self.counts.lineage += 1;
            }
            if *kind != Kind::Seed {
                self.column_lineage(id, node)?;
            }
        }
        Ok(())
    }

    /// Sends `lineage` between columns as the node's compiled SQL computes them: from
    /// each DIRECT source column of an output column (in an upstream node) to the output
    /// column, both as the manifest documents them. What cannot be linked is logged.
    fn column_lineage(&mut self, id: &'m str, node: &'m Node) -> Result<(), Error> {
        let Some(compiled) = non_empty(node.compiled_code.as_deref()) else {
            return Ok(());
        };
        let relations = self.relations_read(id, node);
        let kind = match node.materialized() {
            Some("view") => StatementKind::CreateView,
            Some("materialized_view") => StatementKind::CreateMaterializedView,
            _ => StatementKind::CreateTableAs,
        };
        let target = sql::relation_name(node, false, self.dialect);
        let statement = match lore_sql_lineage::query_lineage(
            compiled,
            self.dialect,
            &relations,
            Some(target),
            kind,
        ) {
            Ok(statement) => statement,
            Err(problem) => {
                return self.out.log(
                    Level::Warn,
                    format!(
                        "{id}: the compiled SQL could not be read: {}",
                        problem.message
                    ),
                );
            }
        };
        self.counts.sql_read += 1;
        for unresolved in &statement.unresolved {
            self.out.log(Level::Warn, format!("{id}: {unresolved}"))?;
        }

        let mut undocumented = Vec::new();
        let mut foreign: BTreeSet<&TableName> = BTreeSet::new();
        let mut not_documented: BTreeSet<String> = BTreeSet::new();
        let mut edges = HashSet::new();
        for output in direct_columns(&statement) {
            let Some(target) = sql::documented(node, &output.column.column) else {
                undocumented.push(output.column.column.as_str());
                continue;
            };
            let target = format!("{id}.{target}");
            for source in output.sources {
                let Some(relation) = relations.find(&source.table) else {
                    foreign.insert(&source.table);
                    continue;
                };
                // An incremental model reading itself; a node that is not imported.
                if relation.is_self || !self.sent.contains(relation.id) {
                    continue;
                }
                let Some(column) = sql::documented(relation.node, &source.column) else {
                    not_documented.insert(format!("{}.{}", relation.id, source.column));
                    continue;
                };
                let from = format!("{}.{column}", relation.id);
                let Some(name) = column_edge_name(COLUMN_LINEAGE, source.transformation) else {
                    continue;
                };
                if !self.sent.contains(&from)
                    || !self.sent.contains(&target)
                    || !edges.insert((from.clone(), target.clone()))
                {
                    continue;
                }
                self.out
                    .relationship(lineage_relationship(name, from, target.as_str()))?;
                self.counts.column_lineage += 1;
            }
        }
        if !undocumented.is_empty() {
            self.out.log(
                Level::Warn,
                format!(
                    "{id}: the {} does not document {}, so {} no column lineage",
                    node.resource_type,
                    quoted_list("column", &undocumented),
                    if undocumented.len() == 1 {
                        "it gets"
                    } else {
                        "they get"
                    },
                ),
            )?;
        }
        for table in foreign {
            self.out.log(
                Level::Warn,
                format!(
                    "{id}: '{table}' is read by the compiled SQL but is no node the model \
                     depends on; lineage from its columns is left out"
                ),
            )?;
        }
        if !not_documented.is_empty() {
            let columns: Vec<&str> = not_documented.iter().map(String::as_str).collect();
            self.out.log(
                Level::Warn,
                format!(
                    "{id}: lineage from {} is left out: the upstream nodes do not document \
                     {}",
                    quoted_list("column", &columns),
                    if columns.len() == 1 { "it" } else { "them" },
                ),
            )?;
        }
        Ok(())
    }

    /// The relations the compiled SQL of a node may read: the node itself, and its
    /// upstream nodes, looking through ephemeral models (dbt inlines them as CTEs named
    /// `__dbt__cte__<name>`, which resolve within the SQL) even when they are imported.
    fn relations_read(&self, id: &'m str, node: &'m Node) -> sql::Relations<'m> {
        let mut relations = sql::Relations::default();
        relations.push(
            sql::relation_name(node, false, self.dialect),
            id,
            node,
            true,
        );
        let mut visited = HashSet::from([id]);
        let mut stack: Vec<&str> = node
            .depends_on
            .nodes
            .iter()
            .rev()
            .map(String::as_str)
            .collect();
        while let Some(up) = stack.pop() {
            if !visited.insert(up) {
                continue;
            }
            let Some(&(up_node, role)) = self.index.get(up) else {
                continue;
            };
            let source = matches!(role, Role::Object(Kind::Source, _));
            if !source && up_node.materialized() == Some("ephemeral") {
                stack.extend(up_node.depends_on.nodes.iter().rev().map(String::as_str));
            } else if matches!(role, Role::Object(..)) {
                let name = sql::relation_name(up_node, source, self.dialect);
                relations.push(name, up, up_node, false);
            }
        }
        relations
    }
}

/// The tests of the column `name`, taken out of `tests`. A test's column matches with
/// quotes stripped, and regardless of case unless another column has its exact name.
fn take_column_tests(tests: &mut Vec<TestRef<'_>>, name: &str, node: &Node) -> Vec<String> {
    let mut taken = Vec::new();
    tests.retain(|t| {
        let Some(column) = t.column.map(|c| c.trim_matches(['"', '`'])) else {
            return true;
        };
        let matches = column == name
            || (column.eq_ignore_ascii_case(name)
                && !node.columns.iter().any(|(other, _)| other == column));
        if matches {
            taken.push(t.name.to_owned());
        }
        !matches
    });
    taken
}

/// `column 'a'`, `columns 'a', 'b'`.
fn quoted_list(what: &str, names: &[&str]) -> String {
    let names: Vec<String> = names.iter().map(|n| format!("'{n}'")).collect();
    if names.len() == 1 {
        format!("{what} {}", names[0])
    } else {
        format!("{what}s {}", names.join(", "))
    }
}

/// `1 model`, `2 models`.
fn plural(n: u64, what: &str) -> String {
    if n == 1 {
        format!("1 {what}")
    } else {
        format!("{n} {what}s")
    }
}

/// A node's name; a versioned model's carries its version (`dim_customers_v2`), as its
/// relation does by default.
fn display_name(id: &str, node: &Node) -> String {
    let name = non_empty(Some(node.name.as_str())).unwrap_or(id);
    match &node.version {
        Some(serde_json::Value::String(v)) if !v.is_empty() => format!("{name}_v{v}"),
        Some(serde_json::Value::Number(v)) => format!("{name}_v{v}"),
        _ => name.to_owned(),
    }
}

/// The relation name in the database: a source's identifier, a node's alias. An
/// ephemeral model has none.
fn physical_name(node: &Node, kind: Kind) -> Option<&str> {
    if node.materialized() == Some("ephemeral") {
        return None;
    }
    let relation = if kind == Kind::Source {
        &node.identifier
    } else {
        &node.alias
    };
    non_empty(relation.as_deref()).or_else(|| non_empty(Some(node.name.as_str())))
}

fn non_empty(text: Option<&str>) -> Option<&str> {
    text.filter(|t| !t.trim().is_empty())
}
