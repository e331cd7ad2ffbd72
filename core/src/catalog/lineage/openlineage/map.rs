//! Where OpenLineage events land in the model.
//!
//! - A **dataset** is the object a database harvest made of it when one matches (a
//!   `database` import of the same server and database, by the naming specification's
//!   `postgres://host:port` + `database.schema.table`), else an object of the model
//!   kept for its namespace in the repository folder `OpenLineage`, made as needed:
//!   database, schema and table (or directories and file) with the columns of its
//!   `schema` facet and the description of its `documentation` facet.
//! - A **job** is a `Job` object of its namespace's model (profile Data Pipelines) with
//!   its SQL (`sql` facet) as Transformation Logic, its `jobType` and its description.
//! - An event that names both inputs and outputs sets the job's **lineage** into those
//!   outputs: an edge from each input to each output named after the job
//!   (`namespace/name`), and from the `columnLineage` facet an edge per input column
//!   and transformation, named `namespace/name (TYPE/SUBTYPE): description`. Each edge
//!   carries the job as its origin ([`Edge::origin`]): the job's edges into those
//!   outputs that the event does not name go, and only those, whatever names other
//!   edges have. An event older than the one the job's lineage was last set from (its
//!   Lineage Updated) changes no edge, so the answer does not depend on the order
//!   events arrive in.
//!
//! Objects of harvested models are matched, never made or changed: the harvest owns
//! them; and only in the harvested models the poster sees (for a poster who sees none,
//! the harvest does not exist). Setting lineage into an object outside the models the
//! intake makes (a harvested table or column) needs Edit Metadata on its model, as data
//! mapping does; without it the event is refused, naming what it would have set.
//! Nothing is deleted but the job's own edges.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::auth::Caller;
use crate::catalog::Catalog;
use crate::catalog::visibility::Sight;
use crate::error::{Error, ErrorCode, Result};
use crate::id::{ObjectId, REPOSITORY_MODEL};
use crate::model::Capability;
use crate::model::{
    AttributeValue, DATABASE_PROFILE, Edge, EdgeKind, FILE_PROFILE, MODEL_PROFILE_ATTRIBUTE,
    Object, ObjectKind, PIPELINE_PROFILE, SystemType, Timestamp, TypeName, Value as AttrValue,
};
use crate::openlineage::EventLimits;
use crate::openlineage::naming::{self, Place, Server, Shape};
use crate::store::Op;
use crate::writer::{Made, ModelWriter, ObjectKey};

/// The repository folder of the models OpenLineage events make.
pub const FOLDER: &str = "OpenLineage";
/// How long the list of harvested databases is trusted.
const HARVESTS_FRESH: Duration = Duration::from_secs(60);
/// The job attribute that holds the event time its lineage was last set from.
const LINEAGE_UPDATED: &str = "Lineage Updated";
/// The longest transformation description kept in an edge's name.
const MAX_DESCRIPTION: usize = 200;

/// A database a harvest imported: its server, its name and the model number.
#[derive(Debug, Clone)]
pub(crate) struct Harvested {
    server: Server,
    database: String,
    model: i64,
}

/// The harvested databases, read at most once a minute (at once after this process
/// changed import settings).
#[derive(Debug, Default)]
pub(crate) struct HarvestCache(std::sync::Mutex<Option<(Instant, Arc<Vec<Harvested>>)>>);

impl HarvestCache {
    /// Forgets the list: import settings changed in this process.
    pub(crate) fn clear(&self) {
        *self.0.lock().expect("harvest cache") = None;
    }
}

/// A dataset's object and whether Lore may add to it (not a harvested one).
#[derive(Debug, Clone)]
struct Dataset {
    object: Object,
    shape: Shape,
    owned: bool,
    /// Its name's parts (database, schema, table; or the path), as the event names it.
    parts: Vec<String>,
    /// Its namespace's scheme (`postgres`), which names the SQL dialect.
    scheme: Option<String>,
    /// How a message names it: the event's own words.
    shown: String,
}

/// Maps the events of one write into a [`ModelWriter`] (each event a part of it),
/// reading the store for what exists and remembering what earlier events of the same
/// write made.
pub(super) struct Mapper<'c> {
    catalog: &'c Catalog,
    caller: &'c Caller,
    writer: ModelWriter<'c>,
    /// The harvested models the poster sees (read once): only those are matched.
    harvest_sight: Option<Option<Sight>>,
    harvested: Option<Arc<Vec<Harvested>>>,
    /// What the event's mapping could not do (SQL it could not resolve), for its answer.
    notes: Vec<String>,
    /// The models the intake makes (a namespace's) met so far: lineage into their
    /// objects needs no right beyond posting.
    own_models: HashSet<i64>,
    /// Per other model: whether the poster may set lineage into it (Edit Metadata), or
    /// `None` when it does not see it.
    writable: HashMap<i64, Option<bool>>,
    /// The most edges one event sets, and how many the current event set so far.
    max_edges: usize,
    event_edges: usize,
    /// The edge ops of every event mapped so far.
    edge_ops: usize,
}

fn text<'v>(value: &'v Value, pointer: &str) -> Option<&'v str> {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The job's name in the edges it makes.
pub(crate) fn job_key(namespace: &str, name: &str) -> String {
    format!("{namespace}/{name}")
}

impl<'c> Mapper<'c> {
    pub(super) fn new(catalog: &'c Catalog, caller: &'c Caller, limits: &EventLimits) -> Self {
        Self {
            catalog,
            caller,
            writer: ModelWriter::new(&*catalog.store, caller.user()),
            harvest_sight: None,
            harvested: None,
            notes: Vec::new(),
            own_models: HashSet::new(),
            writable: HashMap::new(),
            max_edges: limits.max_edges,
            event_edges: 0,
            edge_ops: 0,
        }
    }

    /// The ops of every event mapped so far.
    pub(super) fn into_ops(self) -> Vec<Op> {
        self.writer.into_ops()
    }

    /// How many edges the events mapped so far add or remove.
    pub(super) fn edge_ops(&self) -> usize {
        self.edge_ops
    }

    /// Maps one event, adding its ops, and answers what it could not map (notes); an
    /// event whose ops the store would refuse adds none and leaves the mapper as it was.
    pub(super) async fn event(
        &mut self,
        event: &Value,
        event_time: Timestamp,
    ) -> Result<Vec<String>> {
        self.writer.begin_part();
        self.notes.clear();
        self.event_edges = 0;
        let edge_ops_before = self.edge_ops;
        let mapped = self.map(event, event_time).await;
        if mapped.is_err() {
            self.writer.undo_part();
            self.edge_ops = edge_ops_before;
        }
        mapped.map(|()| std::mem::take(&mut self.notes))
    }

    async fn map(&mut self, event: &Value, event_time: Timestamp) -> Result<()> {
        if let Some(dataset) = event.get("dataset") {
            self.dataset(dataset).await?;
            return Ok(());
        }
        // An edge from each input to each output: refused before anything is made.
        let count = |side: &str| {
            event
                .get(side)
                .and_then(Value::as_array)
                .map_or(0, Vec::len)
        };
        // They count toward the bound with the column edges that follow.
        self.count_edges(count("inputs").saturating_mul(count("outputs")))?;
        let job = match (text(event, "/job/namespace"), text(event, "/job/name")) {
            (Some(namespace), Some(name)) => {
                let job = self.job(namespace, name).await?;
                // What the job is (its SQL, type, description) follows event time too.
                if let Some(facets) = event.pointer("/job/facets")
                    && self.newer(&job, event_time).await?
                {
                    self.job_facets(&job, facets)?;
                }
                Some((job_key(namespace, name), job))
            }
            _ => None,
        };
        let mut inputs = Vec::new();
        for input in event
            .get("inputs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(dataset) = self.dataset(input).await? {
                inputs.push(dataset);
            }
        }
        let mut outputs = Vec::new();
        for output in event
            .get("outputs")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(dataset) = self.dataset(output).await? {
                outputs.push((dataset, output));
            }
        }
        let Some((key, job)) = job else {
            return Ok(());
        };
        if inputs.is_empty() || outputs.is_empty() || !self.newer(&job, event_time).await? {
            return Ok(());
        }
        self.set_job_time(&job, event_time)?;
        let sources: BTreeSet<ObjectId> = inputs.iter().map(|d| d.object.id).collect();
        for (output, value) in &outputs {
            let edges = sources
                .iter()
                .filter(|s| **s != output.object.id)
                .map(|s| lineage_edge(*s, output.object.id, key.clone(), &key))
                .collect();
            self.replace(&output.object, &output.shown, &key, edges)
                .await?;
            if let Some(fields) = value
                .pointer("/facets/columnLineage/fields")
                .and_then(Value::as_object)
            {
                self.column_lineage(&key, output, fields).await?;
            } else if let Some(sql) = text(event, "/job/facets/sql/query") {
                let dialect = text(event, "/job/facets/sql/dialect");
                self.sql_lineage(&key, sql, dialect, output, &inputs)
                    .await?;
            }
        }
        Ok(())
    }

    /// Whether an event at `time` is not older than the one the job's lineage was last
    /// set from.
    async fn newer(&mut self, job: &Object, time: Timestamp) -> Result<bool> {
        // The job's attributes only: a job this mapper found, not one a poster named.
        Ok(
            match self.writer.attribute(job.id, LINEAGE_UPDATED).await? {
                Some(AttrValue::DateTime(last)) => time >= *last,
                _ => true,
            },
        )
    }

    fn set_job_time(&mut self, job: &Object, time: Timestamp) -> Result<()> {
        self.writer.set_attribute(AttributeValue {
            object: job.id,
            attribute: LINEAGE_UPDATED.to_owned(),
            value: AttrValue::DateTime(time),
        })
    }

    /// The edges of the column lineage facet into the output's columns.
    async fn column_lineage(
        &mut self,
        key: &str,
        output: &Dataset,
        fields: &serde_json::Map<String, Value>,
    ) -> Result<()> {
        for (field, lineage_of) in fields {
            let Some(target) = self.column(output, field, None).await? else {
                continue;
            };
            let mut edges = BTreeSet::new();
            let mut counted = 0;
            for input in lineage_of
                .get("inputFields")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let (Some(namespace), Some(name), Some(source_field)) = (
                    text(input, "/namespace"),
                    text(input, "/name"),
                    text(input, "/field"),
                ) else {
                    continue;
                };
                let Some(source) = self.dataset_at(namespace, name, None).await? else {
                    continue;
                };
                let Some(source) = self.column(&source, source_field, None).await? else {
                    continue;
                };
                if source.id == target.id {
                    continue;
                }
                let transformations: Vec<&Value> = input
                    .get("transformations")
                    .and_then(Value::as_array)
                    .map(|t| t.iter().collect())
                    .unwrap_or_default();
                if transformations.is_empty() {
                    // The facet's earlier form: one transformation for the output field.
                    let legacy = serde_json::json!({
                        "type": lineage_of.get("transformationType"),
                        "description": lineage_of.get("transformationDescription"),
                    });
                    edges.insert(lineage_edge(
                        source.id,
                        target.id,
                        edge_name(key, &legacy),
                        key,
                    ));
                } else {
                    for t in transformations {
                        edges.insert(lineage_edge(source.id, target.id, edge_name(key, t), key));
                    }
                }
                // Each edge once, as it comes (the set's growth, not its size).
                self.count_edges(edges.len() - counted)?;
                counted = edges.len();
            }
            let shown = format!("column '{field}' of {}", output.shown);
            self.replace(&target, &shown, key, edges).await?;
        }
        Ok(())
    }

    /// The column lineage of an output that has no `columnLineage` facet, read from the
    /// job's SQL: the statement that writes the output (or the one SELECT), each output
    /// column's DIRECT sources among the event's inputs. What cannot be resolved is
    /// noted for the answer.
    async fn sql_lineage(
        &mut self,
        key: &str,
        sql: &str,
        dialect: Option<&str>,
        output: &Dataset,
        inputs: &[Dataset],
    ) -> Result<()> {
        use lore_sql_lineage::{Dialect, Schema, StatementKind, TableName};

        let dialect = Dialect::from_name(dialect.or(output.scheme.as_deref()).unwrap_or(""));
        let mut schema = Schema::new();
        for dataset in inputs.iter().chain(std::iter::once(output)) {
            let columns = self.columns_of(dataset).await?;
            schema.add_table(TableName::new(dataset.parts.iter().cloned()), columns);
        }
        let lineage = lore_sql_lineage::lineage(sql, dialect, &schema);
        for problem in &lineage.problems {
            self.notes.push(format!(
                "{}: the SQL at line {} ({}) could not be read: {}",
                output.parts.join("."),
                problem.line,
                problem.start,
                problem.message
            ));
        }
        let ends_with = |whole: &[String], tail: &[String]| {
            tail.len() <= whole.len()
                && whole[whole.len() - tail.len()..]
                    .iter()
                    .zip(tail)
                    .all(|(a, b)| a.eq_ignore_ascii_case(b))
        };
        let writes_output = |target: &Option<TableName>| {
            target
                .as_ref()
                .is_some_and(|t| !t.0.is_empty() && ends_with(&output.parts, &t.0))
        };
        let mut statements: Vec<_> = lineage
            .statements
            .iter()
            .filter(|s| writes_output(&s.target))
            .collect();
        if statements.is_empty() {
            // A query alone (what Spark and many operators report) writes the output.
            statements = lineage
                .statements
                .iter()
                .filter(|s| s.kind == StatementKind::Select)
                .collect();
            if statements.len() > 1 {
                statements.clear();
            }
        }
        if statements.is_empty() {
            if lineage.problems.is_empty() {
                self.notes.push(format!(
                    "{}: no statement of the job's SQL writes it",
                    output.parts.join(".")
                ));
            }
            return Ok(());
        }
        let mut by_target: std::collections::BTreeMap<ObjectId, (Object, BTreeSet<Edge>)> =
            std::collections::BTreeMap::new();
        for statement in statements {
            for problem in &statement.unresolved {
                self.notes.push(format!(
                    "{} (line {}): {problem}",
                    output.parts.join("."),
                    statement.line
                ));
            }
            for column in &statement.columns {
                let Some(target) = self.existing_column(output, &column.column).await? else {
                    self.notes.push(format!(
                        "{}: column '{}' is not among its known columns",
                        output.parts.join("."),
                        column.column
                    ));
                    continue;
                };
                let edges = &mut by_target
                    .entry(target.id)
                    .or_insert_with(|| (target.clone(), BTreeSet::new()))
                    .1;
                for source in column
                    .sources
                    .iter()
                    .filter(|s| !s.transformation.is_indirect())
                {
                    let Some(input) = inputs.iter().find(|d| ends_with(&d.parts, &source.table.0))
                    else {
                        self.notes.push(format!(
                            "{}.{}: table '{}' is not an input of the event",
                            output.parts.join("."),
                            column.column,
                            source.table
                        ));
                        continue;
                    };
                    let Some(from) = self.existing_column(input, &source.column).await? else {
                        self.notes.push(format!(
                            "{}.{}: column '{}' of '{}' is not among its known columns",
                            output.parts.join("."),
                            column.column,
                            source.column,
                            input.parts.join(".")
                        ));
                        continue;
                    };
                    if from.id != target.id {
                        let name = format!(
                            "{key} ({}/{})",
                            source.transformation.kind(),
                            source.transformation.subtype()
                        );
                        edges.insert(lineage_edge(from.id, target.id, name, key));
                    }
                }
            }
        }
        for (_, (target, edges)) in by_target {
            self.count_edges(edges.len())?;
            let shown = format!("column '{}' of {}", target.name, output.shown);
            self.replace(&target, &shown, key, edges).await?;
        }
        Ok(())
    }

    /// The column of a dataset that SQL names: its exact name, else the one column
    /// whose name differs only in case (SQL folds unquoted names); never made.
    async fn existing_column(&mut self, dataset: &Dataset, name: &str) -> Result<Option<Object>> {
        let table = dataset.object.id;
        self.writer.list(table).await?;
        if let Some(found) = self
            .writer
            .known(&ObjectKey::new(table.model, Some(table), name))
        {
            return Ok(Some(found.clone()));
        }
        let mut alike = self
            .writer
            .known_children(table)
            .filter(|(other, _)| other.eq_ignore_ascii_case(name));
        Ok(match (alike.next(), alike.next()) {
            (Some((_, column)), None) => Some(column.clone()),
            _ => None,
        })
    }

    /// The names of a dataset's columns, in the order they were made.
    async fn columns_of(&mut self, dataset: &Dataset) -> Result<Vec<String>> {
        let table = dataset.object.id;
        self.writer.list(table).await?;
        let mut columns: Vec<&Object> = self
            .writer
            .known_children(table)
            .filter(|(name, _)| !name.is_empty())
            .map(|(_, object)| object)
            .collect();
        columns.sort_by_key(|o| o.id);
        Ok(columns.into_iter().map(|o| o.name.clone()).collect())
    }

    /// Makes the job's lineage edges into `target` exactly `edges`: those it had (its
    /// origin is the job, whatever their names) and `edges` lacks go, the new ones are
    /// added; one that is there already, whoever made it, is left as it is. Outside the
    /// models the intake makes, only with Edit Metadata on the target's model.
    async fn replace(
        &mut self,
        target: &Object,
        shown: &str,
        key: &str,
        edges: BTreeSet<Edge>,
    ) -> Result<()> {
        self.may_set_lineage_into(target, shown).await?;
        let current = self.writer.edges_into(EdgeKind::Lineage, target.id).await?;
        let mine = |e: &Edge| e.origin.as_deref() == Some(key);
        let gone: Vec<Edge> = current
            .iter()
            .filter(|e| mine(e) && !edges.iter().any(|n| n.same_place(e)))
            .cloned()
            .collect();
        let new: Vec<Edge> = edges
            .into_iter()
            .filter(|e| !current.iter().any(|c| c.same_place(e)))
            .collect();
        self.edge_ops += gone.len() + new.len();
        for edge in gone {
            self.writer.remove_edge(edge).await?;
        }
        for edge in new {
            self.writer.add_edge(edge).await?;
        }
        Ok(())
    }

    /// Refuses lineage into an object outside the models the intake makes unless the
    /// poster holds Edit Metadata on its model; an object the poster does not see is
    /// answered as one that does not exist, in the event's own words.
    async fn may_set_lineage_into(&mut self, target: &Object, shown: &str) -> Result<()> {
        let model = target.id.model;
        if self.own_models.contains(&model) {
            return Ok(());
        }
        let allowed = match self.writable.get(&model) {
            Some(allowed) => *allowed,
            None => {
                let allowed = if self.poster_sees(ObjectId::repository(model)).await? {
                    Some(
                        self.caller.has(Capability::EditMetadata)
                            || self
                                .catalog
                                .capabilities_on(self.caller, ObjectId::repository(model))
                                .await?
                                .contains(&Capability::EditMetadata),
                    )
                } else {
                    None
                };
                self.writable.insert(model, allowed);
                allowed
            }
        };
        match allowed {
            Some(true) => Ok(()),
            Some(false) => Err(Error::forbidden(format!(
                "user '{}' may not set lineage into {shown}: it is in model {}, which the \
                 OpenLineage intake did not make, and lineage into it needs Edit Metadata on \
                 that model",
                self.caller.name(),
                ObjectId::repository(model)
            ))),
            None => Err(Error::not_found(format!("{shown} does not exist"))),
        }
    }

    /// Whether the poster sees the object (sight read once per mapper).
    async fn poster_sees(&mut self, id: ObjectId) -> Result<bool> {
        if self.harvest_sight.is_none() {
            let sight = match self.catalog.sight(self.caller).await {
                Ok(sight) => Some(sight),
                Err(e) if e.code == ErrorCode::PermissionDenied => None,
                Err(e) => return Err(e),
            };
            self.harvest_sight = Some(sight);
        }
        Ok(self
            .harvest_sight
            .as_ref()
            .and_then(Option::as_ref)
            .is_some_and(|s| s.sees_id(id)))
    }

    /// Counts edges the event sets, refusing it past the bound.
    fn count_edges(&mut self, more: usize) -> Result<()> {
        self.event_edges = self.event_edges.saturating_add(more);
        if self.event_edges > self.max_edges {
            return Err(self.too_many_edges(self.event_edges));
        }
        Ok(())
    }

    fn too_many_edges(&self, count: usize) -> Error {
        Error::invalid(format!(
            "the event sets {count} lineage edges or more (an edge from each input to each \
             output, and its column edges), more than the {} one event may set \
             (openlineage.max_edges)",
            self.max_edges
        ))
    }

    /// The job's object, made when absent.
    async fn job(&mut self, namespace: &str, name: &str) -> Result<Object> {
        let model = self.namespace_model(namespace, PIPELINE_PROFILE).await?;
        let made = model_object("Job", SystemType::Classifier, name.to_owned());
        Ok(self
            .writer
            .child(ObjectKey::new(model, None, name), Some(made))
            .await?
            .expect("made when absent"))
    }

    /// What the job's facets say of it: description, SQL, type.
    fn job_facets(&mut self, job: &Object, facets: &Value) -> Result<()> {
        if let Some(description) = text(facets, "/documentation/description")
            && job.description.as_deref() != Some(description)
        {
            let mut changed = job.clone();
            changed.description = Some(description.to_owned());
            self.writer.update(changed)?;
        }
        if let Some(sql) = text(facets, "/sql/query") {
            self.writer.set_attribute(AttributeValue {
                object: job.id,
                attribute: "Transformation Logic".to_owned(),
                value: AttrValue::Text(sql.to_owned()),
            })?;
        }
        let job_type: Vec<&str> = ["processingType", "integration", "jobType"]
            .iter()
            .filter_map(|k| text(facets, &format!("/jobType/{k}")))
            .collect();
        if !job_type.is_empty() {
            self.writer.set_attribute(AttributeValue {
                object: job.id,
                attribute: "Job Type".to_owned(),
                value: AttrValue::Text(job_type.join(" ")),
            })?;
        }
        Ok(())
    }

    /// The object of a dataset (`{namespace, name, facets}`) with its facets applied.
    async fn dataset(&mut self, dataset: &Value) -> Result<Option<Dataset>> {
        let (Some(namespace), Some(name)) = (text(dataset, "/namespace"), text(dataset, "/name"))
        else {
            return Ok(None);
        };
        self.dataset_at(namespace, name, dataset.get("facets"))
            .await
    }

    async fn dataset_at(
        &mut self,
        namespace: &str,
        name: &str,
        facets: Option<&Value>,
    ) -> Result<Option<Dataset>> {
        let place = naming::place(namespace, name);
        let shown = format!("dataset '{name}' of namespace '{namespace}'");
        if let Some(mut found) = self.harvested_table(&place).await? {
            found.shown = shown;
            return Ok(Some(found));
        }
        let profile = match place.shape {
            Shape::Relational => DATABASE_PROFILE,
            Shape::Files => FILE_PROFILE,
        };
        let model = self.namespace_model(namespace, profile).await?;
        let last = place.parts.len() - 1;
        let mut parent = None;
        let mut path = String::new();
        for (at, part) in place.parts.iter().enumerate() {
            let (object_type, system_type) = match (place.shape, place.parts.len() - at) {
                (Shape::Relational, 1) => ("Table", SystemType::Classifier),
                (Shape::Relational, 2) => ("Schema", SystemType::Schema),
                (Shape::Relational, _) => ("Database", SystemType::Model),
                (Shape::Files, 1) => ("File", SystemType::Classifier),
                (Shape::Files, _) => ("Directory", SystemType::Namespace),
            };
            let separator = if place.shape == Shape::Relational {
                "."
            } else {
                "/"
            };
            if at > 0 {
                path.push_str(separator);
            }
            path.push_str(part);
            // A container's native id ends with the separator, so it is never a
            // dataset's name.
            let native = if at == last {
                name.to_owned()
            } else {
                format!("{path}{separator}")
            };
            let made = model_object(object_type, system_type, native);
            let object = self
                .writer
                .child(ObjectKey::new(model, parent, part.as_str()), Some(made))
                .await?
                .expect("made when absent");
            parent = Some(object.id);
            if at == last {
                let mut dataset = Dataset {
                    object,
                    shape: place.shape,
                    owned: true,
                    parts: place.parts.clone(),
                    scheme: namespace
                        .split_once("://")
                        .map(|(s, _)| s.to_ascii_lowercase()),
                    shown,
                };
                if let Some(facets) = facets {
                    self.dataset_facets(&mut dataset, facets).await?;
                }
                return Ok(Some(dataset));
            }
        }
        unreachable!("a place has at least one part")
    }

    /// The description and columns a dataset's facets give it.
    async fn dataset_facets(&mut self, dataset: &mut Dataset, facets: &Value) -> Result<()> {
        if !dataset.owned {
            return Ok(());
        }
        if let Some(description) = text(facets, "/documentation/description")
            && dataset.object.description.as_deref() != Some(description)
        {
            dataset.object.description = Some(description.to_owned());
            dataset.object = self.writer.update(dataset.object.clone())?;
        }
        for field in facets
            .pointer("/schema/fields")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(name) = text(field, "/name") {
                self.column(dataset, name, Some(field)).await?;
            }
        }
        Ok(())
    }

    /// The column (or field) of a dataset, made when absent unless the dataset was
    /// harvested; a schema facet's `field` sets its data type and description.
    async fn column(
        &mut self,
        dataset: &Dataset,
        name: &str,
        field: Option<&Value>,
    ) -> Result<Option<Object>> {
        let table = dataset.object.id;
        self.writer.list(table).await?;
        let object_type = match dataset.shape {
            Shape::Relational => "Column",
            Shape::Files => "Field",
        };
        let native = format!(
            "{}#{name}",
            dataset.object.native_id.as_deref().unwrap_or_default()
        );
        let made = dataset
            .owned
            .then(|| model_object(object_type, SystemType::Feature, native));
        let key = ObjectKey::new(table.model, Some(table), name);
        let Some(mut column) = self.writer.child(key, made).await? else {
            return Ok(None);
        };
        if dataset.owned
            && let Some(field) = field
        {
            let data_type = text(field, "/type").map(str::to_owned);
            let description = text(field, "/description").map(str::to_owned);
            let mut changed = false;
            if data_type.is_some() && column.data_type != data_type {
                column.data_type = data_type;
                changed = true;
            }
            if description.is_some() && column.description != description {
                column.description = description;
                changed = true;
            }
            if changed {
                column = self.writer.update(column)?;
            }
        }
        Ok(Some(column))
    }

    /// The table a harvest made of the place, when one matches its server and database.
    async fn harvested_table(&mut self, place: &Place) -> Result<Option<Dataset>> {
        let (Some(server), 3) = (&place.server, place.parts.len()) else {
            return Ok(None);
        };
        if self.harvested.is_none() {
            self.harvested = Some(self.catalog.harvested().await?);
        }
        // A harvested table the poster does not see does not exist for it: its dataset
        // lands in the namespace's model, and nothing answered tells of the other.
        let candidates: Vec<i64> = self
            .harvested
            .iter()
            .flat_map(|h| h.iter())
            .filter(|h| &h.server == server && h.database == place.parts[0])
            .map(|h| h.model)
            .collect();
        let mut models = Vec::new();
        for model in candidates {
            if self.poster_sees(ObjectId::new(model, 1)).await? {
                models.push(model);
            }
        }
        'models: for model in models {
            let mut found: Option<Object> = None;
            for part in &place.parts {
                let key = ObjectKey::new(model, found.as_ref().map(|o| o.id), part.as_str());
                match self.writer.find(&key).await? {
                    Some(object) => found = Some(object),
                    None => continue 'models,
                }
            }
            return Ok(found.map(|object| Dataset {
                object,
                shape: Shape::Relational,
                owned: false,
                parts: place.parts.clone(),
                scheme: Some(server.scheme.clone()),
                shown: String::new(),
            }));
        }
        Ok(None)
    }

    /// The model of a namespace in the OpenLineage folder, made when absent.
    async fn namespace_model(&mut self, namespace: &str, profile: &str) -> Result<i64> {
        let made = Made::folder(SystemType::Namespace);
        let folder = self
            .writer
            .child(folder_key(), Some(made))
            .await?
            .expect("made when absent");
        if folder.kind != ObjectKind::Folder {
            return Err(Error::conflict(format!(
                "the repository object '/{FOLDER}' is not a folder, so OpenLineage events have nowhere to land"
            )));
        }
        let key = namespace_model_key(folder.id, namespace, profile);
        let model = match self.writer.find(&key).await? {
            Some(model) => {
                if model.kind != ObjectKind::Model || model.native_id.as_deref() != Some(namespace)
                {
                    return Err(Error::conflict(format!(
                        "'/{FOLDER}/{}' is not the model of namespace '{namespace}' (another object has that name)",
                        key.name
                    )));
                }
                model
            }
            None => {
                let made = Made {
                    native_id: Some(namespace.to_owned()),
                    description: Some(format!("OpenLineage namespace {namespace}")),
                    ..Made::model()
                };
                let model = self.writer.create(key, made).await?;
                self.writer.set_attribute(AttributeValue {
                    object: model.id,
                    attribute: MODEL_PROFILE_ATTRIBUTE.to_owned(),
                    value: AttrValue::Text(profile.to_owned()),
                })?;
                model
            }
        };
        self.own_models.insert(model.id.content_model());
        Ok(model.id.content_model())
    }
}

/// The key of the repository folder the intake's models are in.
fn folder_key() -> ObjectKey {
    ObjectKey::new(REPOSITORY_MODEL, None, FOLDER)
}

/// The key of the model the intake keeps a namespace's objects of `profile` in, in the
/// OpenLineage folder: named after the namespace, its jobs' apart (a job and a dataset
/// of one namespace may share a name).
fn namespace_model_key(folder: ObjectId, namespace: &str, profile: &str) -> ObjectKey {
    let name = naming::model_name(namespace);
    let name = if profile == PIPELINE_PROFILE {
        format!("{name} (jobs)")
    } else {
        name
    };
    ObjectKey::new(REPOSITORY_MODEL, Some(folder), name)
}

/// What the intake makes a job's, dataset's or column's object as: a model object of
/// the profile its type belongs to.
fn model_object(object_type: &str, system_type: SystemType, native: String) -> Made {
    let profile = match object_type {
        "Job" => PIPELINE_PROFILE,
        "Directory" | "File" | "Field" => FILE_PROFILE,
        _ => DATABASE_PROFILE,
    };
    Made::model_object(TypeName::new(profile, object_type), system_type, native)
}

/// A lineage edge the job `key` sets.
fn lineage_edge(source: ObjectId, target: ObjectId, name: String, key: &str) -> Edge {
    Edge {
        kind: EdgeKind::Lineage,
        source,
        target,
        name,
        origin: Some(key.to_owned()),
    }
}

/// A column edge's name: the job's, then the transformation's type, subtype, masking
/// and description, as far as the facet gives them.
fn edge_name(key: &str, transformation: &Value) -> String {
    let kind: Vec<&str> = ["/type", "/subtype"]
        .iter()
        .filter_map(|p| text(transformation, p))
        .collect();
    let mut name = key.to_owned();
    if !kind.is_empty() {
        name.push_str(" (");
        name.push_str(&kind.join("/"));
        if transformation.get("masking").and_then(Value::as_bool) == Some(true) {
            name.push_str(", masking");
        }
        name.push(')');
    }
    if let Some(description) = text(transformation, "/description") {
        let description: String = description.chars().take(MAX_DESCRIPTION).collect();
        if kind.is_empty() {
            name.push_str(" ()");
        }
        name.push_str(": ");
        name.push_str(&description);
    }
    name
}

impl Catalog {
    /// The object of an OpenLineage job, when an event made one (for a sight check),
    /// found where the intake makes it.
    pub(crate) async fn job_object(
        &self,
        caller: &Caller,
        namespace: &str,
        name: &str,
    ) -> Result<Option<Object>> {
        let mut writer = ModelWriter::new(&*self.store, caller.user());
        let Some(folder) = writer.find(&folder_key()).await? else {
            return Ok(None);
        };
        let key = namespace_model_key(folder.id, namespace, PIPELINE_PROFILE);
        let Some(model) = writer.find(&key).await? else {
            return Ok(None);
        };
        let job = ObjectKey::new(model.id.content_model(), None, name);
        writer.find(&job).await
    }

    /// The databases harvested into models (format `database`), at most a minute old.
    pub(crate) async fn harvested(&self) -> Result<Arc<Vec<Harvested>>> {
        if let Some((at, list)) = self.harvests.0.lock().expect("harvest cache").as_ref()
            && at.elapsed() < HARVESTS_FRESH
        {
            return Ok(list.clone());
        }
        let mut list = Vec::new();
        for model in self.store.objects_of_kind(ObjectKind::Model).await? {
            let Some(settings) = self.store.import_settings(model.id).await? else {
                continue;
            };
            if settings.format != "database" {
                continue;
            }
            let Some(url) = settings.parameters.get("url").and_then(Value::as_str) else {
                continue;
            };
            if let Some((server, database)) = naming::database_url(url) {
                list.push(Harvested {
                    server,
                    database,
                    model: model.id.content_model(),
                });
            }
        }
        let list = Arc::new(list);
        *self.harvests.0.lock().expect("harvest cache") = Some((Instant::now(), list.clone()));
        Ok(list)
    }
}

/// Whether a write failed because another writer made the same object first: the
/// mapping is read again and retried.
pub(super) fn lost_race(error: &crate::error::Error) -> bool {
    error.code == ErrorCode::Conflict
}
