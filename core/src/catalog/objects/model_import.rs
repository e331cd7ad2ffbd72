//! Model import: an archive streams into the store through one write transaction, in
//! chunks, and a re-import writes only the difference, so what the archive cannot carry
//! (edges from other models, grants on objects, social data) stays on surviving objects.
//!
//! The import reads the archive in passes, one entry at a time, keeping only a compact
//! index of native ids and a fingerprint per object, never whole rows:
//! 1. objects.csv: the [`ObjectIndex`] (duplicate native ids, dangling parents, cycles);
//! 2. the stored model, in pages: each object's fingerprint, matched by native id;
//! 3. every file: the archive's fingerprints and the checks that need the meta model;
//! 4. the writes, only for added and changed objects, then the deletions.

mod compare;
mod rows;

use std::collections::{BTreeSet, HashMap};
use std::io::{Cursor, Read, Seek};

use serde::{Deserialize, Serialize};

use super::Objects;
use crate::archive::read::{
    AttributeCheck, NO_PARENT, ObjectIndex, ProfilingCheck, attribute_row, classification_row,
    connection_row, label_row, object_row, profiling_row, relationship_row, spec, tag_row,
};
use crate::archive::{self, ArchiveLimits, ArchiveReader, ModelArchive};
use crate::auth::Caller;
use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::id::{ObjectId, ObjectRef, stable_id};
use crate::import::Produced;
use crate::model::*;
use crate::pace::cpu_bound;
use crate::store::{Details, Op, Scope, WriteTx};
use crate::writer::{Made, ModelWriter, Stream};
use compare::{
    Carried, attribute_print, classification_print, edge_print, label_print, object_print,
    profiling_print, tag_print,
};
use rows::Rows;

/// Objects whose details are read at once.
const PAGE: usize = 1_000;
/// Objects whose prints are read at once.
const PRINT_PAGE: usize = 10_000;

/// Where and how an archive is imported.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// Re-import into this existing model: objects are matched by native id, added,
    /// updated in place (same id and stable id) or deleted.
    pub model: Option<ObjectRef>,
    /// Create the new model in this folder (the repository root when absent).
    pub folder: Option<ObjectRef>,
    /// Name of the new model; the archive's model name when absent.
    pub name: Option<String>,
    /// Add the model to this configuration or configuration version.
    pub configuration: Option<ObjectRef>,
    /// The operation the import runs in (a harvest), which its writes name as their
    /// author with the caller.
    pub operation: Option<i64>,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportSummary {
    pub model_id: String,
    pub model_name: String,
    /// Whether a new model was created (otherwise an existing one was re-imported).
    pub created: bool,
    /// Objects in the archive.
    pub object_count: usize,
    /// Objects that were not in the model before.
    #[serde(default)]
    pub added: usize,
    /// Objects whose content (fields, attributes, relationships, labels,
    /// classifications, sensitivity labels, profiling) changed.
    #[serde(default)]
    pub updated: usize,
    /// Objects of the model that the archive no longer has, deleted.
    #[serde(default)]
    pub removed: usize,
    /// Objects left exactly as they were.
    #[serde(default)]
    pub unchanged: usize,
    /// Objects changed in a breaking way (removed, renamed, moved, a type changed, made
    /// not null, a key changed), against the model's version before.
    #[serde(default)]
    pub breaking: usize,
    /// Objects downstream of those (by lineage, as it was before the import) that the
    /// importer may see; their watchers were told.
    #[serde(default)]
    pub downstream: usize,
    /// The first 20 breaking changes, each as "name (reasons)".
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub breaking_changes: Vec<String>,
    /// Whether the compare or the walk downstream stopped at its bounds: there may be
    /// more than these counts say.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub downstream_truncated: bool,
}

fn bad(message: impl std::fmt::Display) -> Error {
    Error::invalid(format!("model archive: {message}"))
}

/// What happens to an object of the archive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fate {
    Added,
    Updated,
    Unchanged,
}

/// An object of the archive, by its number in the [`ObjectIndex`]: 32 bytes, one per
/// object, the bulk of an import's memory.
#[derive(Debug, Clone, Copy)]
struct Node {
    /// The object's number in its model ([`ObjectId::object`]).
    object: i64,
    /// When the stored object of the same native id was created, in microseconds since
    /// the epoch, or [`NOT_STORED`].
    stored_created: i64,
    stored_fingerprint: u64,
    fingerprint: u64,
}

/// The archive's objects, in the [`ObjectIndex`]'s numbering.
enum Nodes {
    /// Into a new model: every object is added, numbered in archive order from
    /// `first`; no node is kept.
    New { first: i64, len: usize },
    /// Into an existing model: a node per object.
    Matched(Vec<Node>),
}

impl Nodes {
    fn len(&self) -> usize {
        match self {
            Self::New { len, .. } => *len,
            Self::Matched(nodes) => nodes.len(),
        }
    }

    fn count(&self, fate: Fate) -> usize {
        match self {
            Self::New { len, .. } => match fate {
                Fate::Added => *len,
                _ => 0,
            },
            Self::Matched(nodes) => nodes.iter().filter(|n| n.fate() == fate).count(),
        }
    }

    /// Numbers the objects the model does not have yet, from `first` on.
    fn number_new(&mut self, first: i64) {
        match self {
            Self::New { first: from, .. } => *from = first,
            Self::Matched(nodes) => {
                for (node, object) in nodes.iter_mut().filter(|n| !n.stored()).zip(first..) {
                    node.object = object;
                }
            }
        }
    }

    fn get(&self, at: u32) -> Node {
        match self {
            Self::New { first, .. } => Node {
                object: first + i64::from(at),
                stored_created: NOT_STORED,
                stored_fingerprint: 0,
                fingerprint: 0,
            },
            Self::Matched(nodes) => nodes[at as usize],
        }
    }
}

/// [`Node::stored_created`] of an object the model does not have yet.
const NOT_STORED: i64 = i64::MIN;

impl Node {
    fn id(&self, model: i64) -> ObjectId {
        ObjectId::new(model, self.object)
    }
    fn stored(&self) -> bool {
        self.stored_created != NOT_STORED
    }
    fn fate(&self) -> Fate {
        match self.stored() {
            false => Fate::Added,
            true if self.stored_fingerprint == self.fingerprint => Fate::Unchanged,
            true => Fate::Updated,
        }
    }
    fn writes(&self) -> bool {
        self.fate() != Fate::Unchanged
    }
}

/// Limits for archives the server wrote itself from an importer's [`ModelArchive`].
const UNLIMITED: ArchiveLimits = ArchiveLimits {
    max_entries: 64,
    max_entry_size: u64::MAX,
    max_total_size: u64::MAX,
    max_ratio: u64::MAX,
};

impl Objects<'_> {
    /// `POST /repository/model/import` of an archive in memory. See
    /// [`Objects::import_model_from`].
    pub async fn import_model(
        &self,
        caller: &Caller,
        content: &[u8],
        options: &ImportOptions,
    ) -> Result<ImportSummary> {
        self.import_model_from(caller, Cursor::new(content), options)
            .await
    }

    /// `POST /repository/model/import`: reads an archive from a seekable source (a
    /// spooled upload), inflating one entry at a time, and lands it through one write
    /// transaction in chunks. A defective archive, or an import dropped half-way,
    /// writes nothing.
    pub async fn import_model_from<R: Read + Seek + Send>(
        &self,
        caller: &Caller,
        source: R,
        options: &ImportOptions,
    ) -> Result<ImportSummary> {
        require_import_somewhere(caller)?;
        let reader = ArchiveReader::open(source, &self.config.archive_limits)?;
        self.land(caller, reader, options).await
    }

    /// Lands a model an importer produced, with the format checks of an uploaded archive.
    pub async fn import_archive(
        &self,
        caller: &Caller,
        archive: ModelArchive,
        options: &ImportOptions,
    ) -> Result<ImportSummary> {
        require_import_somewhere(caller)?;
        let bytes = archive::write(&archive)?;
        drop(archive);
        let reader = ArchiveReader::open(Cursor::new(bytes.as_slice()), &UNLIMITED)?;
        self.land(caller, reader, options).await
    }

    /// Lands the model archive an [`Importer`](crate::import::Importer) produced, with the
    /// checks of an uploaded archive.
    pub async fn import_produced(
        &self,
        caller: &Caller,
        produced: &Produced,
        options: &ImportOptions,
    ) -> Result<ImportSummary> {
        require_import_somewhere(caller)?;
        let file = std::fs::File::open(&produced.path).map_err(|e| {
            Error::internal(format!("cannot open {}: {e}", produced.path.display()))
        })?;
        let reader = ArchiveReader::open(std::io::BufReader::new(file), &produced.limits)?;
        self.land(caller, reader, options).await
    }

    /// Lands a model archive, then notifies the model's watchers of what changed.
    async fn land<R: Read + Seek + Send>(
        &self,
        caller: &Caller,
        reader: ArchiveReader<R>,
        options: &ImportOptions,
    ) -> Result<ImportSummary> {
        let mut summary = self.land_archive(caller, reader, options).await?;
        if let Ok(ObjectRef::Id(model)) = ObjectRef::parse(&summary.model_id)
            && !summary.created
            && summary.added + summary.updated + summary.removed > 0
        {
            self.announce_breaking(caller, model, &mut summary).await;
        }
        if let Ok(ObjectRef::Id(model)) = ObjectRef::parse(&summary.model_id)
            && (summary.created || summary.added + summary.updated + summary.removed > 0)
        {
            let message = format!(
                "model '{}' was {} by {}: {} objects added, {} updated, {} removed",
                summary.model_name,
                if summary.created {
                    "imported"
                } else {
                    "re-imported"
                },
                caller.name(),
                summary.added,
                summary.updated,
                summary.removed
            );
            self.notify_watchers(model, caller.user(), message).await;
        }
        Ok(summary)
    }

    /// The breaking changes of the version the import made, against the state just
    /// before it (so what others changed in between is not the import's), told downstream
    /// ([`History::warn_downstream`](crate::catalog::History)); best effort.
    async fn announce_breaking(
        &self,
        caller: &Caller,
        model: ObjectId,
        summary: &mut ImportSummary,
    ) {
        // The import's own version: the newest of this caller with its counts (another
        // import of the model may have committed since).
        let versions = match self
            .store
            .model_versions(model.content_model(), None, 16)
            .await
        {
            Ok(versions) => versions,
            Err(e) => {
                tracing::warn!(error = %e, %model, "cannot read the model's versions");
                return;
            }
        };
        let made = versions.iter().find(|v| {
            v.revision.author.user == Some(caller.user())
                && (v.counts.added, v.counts.changed, v.counts.removed)
                    == (
                        summary.added as i64,
                        summary.updated as i64,
                        summary.removed as i64,
                    )
        });
        let Some(made) = made else {
            return;
        };
        let version = made.revision.version;
        let report = self
            .history()
            .warn_downstream(caller, model, &summary.model_name, version - 1, version)
            .await;
        if let Some(report) = report {
            summary.breaking = report.breaking;
            summary.downstream = report.affected;
            summary.breaking_changes = report.named.into_iter().take(20).collect();
            summary.downstream_truncated = report.truncated;
        }
    }

    async fn land_archive<R: Read + Seek + Send>(
        &self,
        caller: &Caller,
        mut reader: ArchiveReader<R>,
        options: &ImportOptions,
    ) -> Result<ImportSummary> {
        let meta = self.meta_model().await?;
        let archive_model = reader.model()?;
        if !meta
            .profiles
            .iter()
            .any(|p| p.name == archive_model.profile)
            || archive_model.profile == REPOSITORY_PROFILE
        {
            return Err(bad(format!(
                "model.csv: profile '{}' does not exist",
                archive_model.profile
            )));
        }

        // Pass 1: the objects by native id, and each object's own fingerprint.
        let started = std::time::Instant::now();
        let (index, mut prints) = index_objects(&mut reader, &meta, &archive_model.profile)?;
        let indexed = started.elapsed();

        let (model, created) = self
            .import_target(caller, options, &archive_model.name)
            .await?;
        let number = model.id.content_model();
        // A model without objects (new, or made empty by PUT /repository/importModel)
        // takes every object as new: nothing to match, rows inserted as new.
        let empty = created
            || self
                .store
                .model_objects_page(number, None, 1)
                .await?
                .is_empty();

        // Passes 2 and 3, for a re-import. Objects the model does not have yet get new
        // ids. Every object of a new model is added whatever its fingerprint, so a new
        // model has its rows checked as they are written.
        let carried = Carried::of(&reader);
        let connections = read_connections(&mut reader)?;
        let mut checks = self.checks(&meta).await?;
        let mut compared = match empty {
            true => Compared::all_new(index.len()),
            false => {
                self.compare_stored(
                    &mut reader,
                    number,
                    &index,
                    carried,
                    &mut prints,
                    &mut checks,
                )
                .await?
            }
        };
        let compared_at = started.elapsed();
        let mut author = crate::model::Author::by(crate::model::Source::Import, caller.user());
        author.operation = options.operation;
        let mut writer = ModelWriter::new(&*self.store, caller.user()).by(author);
        let first = writer
            .reserve(number, compared.nodes.count(Fate::Added) as u64)
            .await?;
        compared.nodes.number_new(first);
        let changes = self
            .model_changes(
                caller,
                options,
                &model,
                created,
                &archive_model,
                &connections,
            )
            .await?;
        let summary = compared.summary(&model, created);
        let anything = changes.any(&model, created)
            || summary.added + summary.updated + summary.removed > 0
            || !checks.plan.is_empty();
        let landing = Landing {
            meta: &meta,
            profile: &archive_model.profile,
            index,
            number,
            created,
            empty,
            carried,
            compared,
            checks,
            prints,
            changes,
        };
        if !anything {
            let reprinted = self.store_reprints(writer, &landing).await?;
            tracing::info!(
                model = %model.id, objects = summary.object_count, reprinted,
                index_ms = indexed.as_millis(),
                compare_ms = (compared_at - indexed).as_millis(),
                read_ms = started.elapsed().as_millis(),
                "model re-imported unchanged"
            );
            return Ok(summary);
        }

        let compared = started.elapsed();
        let model_id = model.id;
        // The import makes a version of the model (history, issue 40).
        let version = ModelVersionCounts {
            model: number,
            objects: summary.object_count as i64,
            added: summary.added as i64,
            changed: summary.updated as i64,
            removed: summary.removed as i64,
        };
        let (tx, writing) = self
            .write_landing(&mut reader, writer, model, landing, version)
            .await?;
        let written = started.elapsed();
        tx.commit().await?;
        tracing::info!(
            model = %model_id, objects = summary.object_count, created,
            added = summary.added, updated = summary.updated, removed = summary.removed,
            unchanged = summary.unchanged,
            index_ms = indexed.as_millis(),
            compare_ms = (compared_at - indexed).as_millis(),
            read_ms = compared.as_millis(),
            write_ms = (written - compared).as_millis(),
            store_busy_ms = writing.as_millis(),
            commit_ms = (started.elapsed() - written).as_millis(),
            "model imported"
        );
        Ok(summary)
    }

    /// Stores the prints computed from the details of unchanged objects, so the next
    /// comparison reads them; answers how many.
    async fn store_reprints(
        &self,
        mut writer: ModelWriter<'_>,
        landing: &Landing<'_>,
    ) -> Result<usize> {
        let reprints = landing.reprints();
        let count = reprints.len();
        if count > 0 {
            for print in reprints {
                writer.push(print)?;
            }
            let mut tx = self.begin(writer.author()).await?;
            writer.write_held(&mut *tx).await?;
            tx.commit().await?;
        }
        Ok(count)
    }

    /// Passes 2 and 3 of a re-import, at the same time: the stored objects, matched by
    /// native id, with their fingerprints; and the rest of the archive's fingerprints,
    /// with the checks that need the meta model and the store.
    async fn compare_stored<R: Read + Seek + Send>(
        &self,
        reader: &mut ArchiveReader<R>,
        number: i64,
        index: &ObjectIndex,
        carried: Carried,
        prints: &mut [u64],
        checks: &mut Checks<'_>,
    ) -> Result<Compared> {
        let (matched, printed) = tokio::join!(
            self.match_stored(number, index, carried),
            compare::fingerprint_details(reader, index, prints, checks),
        );
        printed?;
        let mut matched = matched?;
        for (node, print) in matched.nodes.iter_mut().zip(prints.iter()) {
            node.fingerprint = *print;
        }
        Ok(Compared {
            nodes: Nodes::Matched(matched.nodes),
            vanished: matched.vanished,
            reprint: matched.reprint,
        })
    }

    /// What the import changes on the model itself: its description and profile, its
    /// connections to other models (connections.csv), and the configuration it joins.
    async fn model_changes(
        &self,
        caller: &Caller,
        options: &ImportOptions,
        model: &Object,
        created: bool,
        archive_model: &archive::ArchiveModel,
        connections: &[archive::ArchiveConnection],
    ) -> Result<ModelChanges> {
        let stored_profile = if created {
            None
        } else {
            self.store
                .details(Scope::Objects(vec![model.id]))
                .await?
                .attributes
                .into_iter()
                .find(|a| a.attribute == MODEL_PROFILE_ATTRIBUTE)
                .map(|a| a.value)
        };
        let wanted_connections = self.connected_models(caller, model, connections).await?;
        let stored_connections: BTreeSet<Edge> = if created {
            BTreeSet::new()
        } else {
            self.store
                .edges(EdgeKind::ModelConnection, model.id, false)
                .await?
                .into_iter()
                .collect()
        };
        let configuration_edge = self
            .configuration_edge(caller, options, model, created)
            .await?;
        Ok(ModelChanges {
            description: Some(archive_model.description.clone()).filter(|d| !d.is_empty()),
            profile: Value::Text(archive_model.profile.clone()),
            stored_profile,
            wanted_connections,
            stored_connections,
            configuration_edge,
        })
    }

    /// The model's connections the archive names (connections.csv), each to another
    /// model the caller finds.
    async fn connected_models(
        &self,
        caller: &Caller,
        model: &Object,
        connections: &[archive::ArchiveConnection],
    ) -> Result<BTreeSet<Edge>> {
        let mut wanted = BTreeSet::new();
        for connection in connections {
            let target = self
                .find(caller, &ObjectRef::parse(&connection.target_model)?)
                .await
                .map_err(|e| {
                    if e.is_internal() {
                        return e;
                    }
                    bad(format!(
                        "connections.csv: connected model '{}' cannot be found: {}",
                        connection.target_model, e.message
                    ))
                })?;
            if target.kind != ObjectKind::Model || target.id == model.id {
                return Err(bad(format!(
                    "connections.csv: '{}' is not another model",
                    connection.target_model
                )));
            }
            wanted.insert(Edge {
                kind: EdgeKind::ModelConnection,
                source: model.id,
                target: target.id,
                name: connection.name.clone(),
                origin: None,
            });
        }
        Ok(wanted)
    }

    /// The edge that adds the model to the configuration the options name, unless it
    /// is there already.
    async fn configuration_edge(
        &self,
        caller: &Caller,
        options: &ImportOptions,
        model: &Object,
        created: bool,
    ) -> Result<Option<Edge>> {
        let Some(reference) = &options.configuration else {
            return Ok(None);
        };
        let configuration = self.find(caller, reference).await?;
        if !matches!(
            configuration.kind,
            ObjectKind::Configuration | ObjectKind::ConfigurationVersion
        ) {
            return Err(Error::invalid(format!(
                "{} ('{}') is not a configuration",
                configuration.id, configuration.name
            )));
        }
        let edge = Edge {
            kind: EdgeKind::ConfigurationContent,
            source: configuration.id,
            target: model.id,
            name: String::new(),
            origin: None,
        };
        let present = !created
            && self
                .store
                .edges(EdgeKind::ConfigurationContent, configuration.id, false)
                .await?
                .contains(&edge);
        Ok((!present).then_some(edge))
    }

    /// Pass 4: the writes, in one transaction: the model's own row and profile, then the
    /// archive read into chunks while the store writes the chunk before (on another
    /// thread or in the database). Answers the transaction, not yet committed, and the
    /// time the store spent writing.
    async fn write_landing<'s, R: Read + Seek + Send>(
        &'s self,
        reader: &mut ArchiveReader<R>,
        mut writer: ModelWriter<'s>,
        mut model: Object,
        landing: Landing<'_>,
        version: ModelVersionCounts,
    ) -> Result<(Box<dyn WriteTx + 's>, std::time::Duration)> {
        model.description = landing.changes.description.clone();
        model.updated_at = writer.now();
        model.updated_by = Some(writer.user());
        let model_id = model.id;
        writer.push(Op::PutObject(model))?;
        writer.push(Op::SetAttribute(AttributeValue {
            object: model_id,
            attribute: MODEL_PROFILE_ATTRIBUTE.to_owned(),
            value: landing.changes.profile.clone(),
        }))?;
        writer.push(Op::PutModelVersion(version))?;
        let mut tx = self.begin(writer.author()).await?;
        if landing.empty {
            // The checks (unique native ids and attributes) prove a new model's rows new;
            // an existing model's own row and attribute are updated first.
            if !landing.created {
                writer.write_held(&mut *tx).await?;
            }
            tx.expect_new_rows();
        }
        // The model's own ops, when still held, go first.
        let (stream, writing) = writer.stream(tx);
        let (produced, written) =
            tokio::join!(self.stream_landing(reader, stream, landing), writing.run());
        // A failed write stops the reading; its error is the one to tell.
        let written = written?;
        produced?;
        Ok(written)
    }

    /// Pass 4's ops, in the order the store takes them: the definitions the archive
    /// needs (a re-import's first), what the archive carries on changed objects (to be
    /// written anew), the rows of added and changed objects, vanished objects, the
    /// model's edges, and the prints last (after every write that would forget them).
    async fn stream_landing<R: Read + Seek + Send>(
        &self,
        reader: &mut ArchiveReader<R>,
        mut stream: Stream<'_>,
        mut landing: Landing<'_>,
    ) -> Result<()> {
        // A re-import's definitions are known from pass 3; a new model's come after
        // its rows (nothing refers to them by key inside the transaction).
        if !landing.empty {
            for op in landing.checks.plan.definitions() {
                stream.push(op).await?;
            }
        }
        self.remove_carried(&mut stream, &landing).await?;
        // A new model's prints are completed as its rows are written; a re-import's
        // are in its nodes.
        let mut new_prints = match &landing.compared.nodes {
            Nodes::New { .. } => std::mem::take(&mut landing.prints),
            Nodes::Matched(_) => Vec::new(),
        };
        let empty = landing.empty;
        let mut rows = Rows {
            index: &landing.index,
            nodes: &landing.compared.nodes,
            number: landing.number,
            now: stream.now(),
            user: stream.user(),
            checks: empty.then_some(&mut landing.checks),
            prints: empty.then_some(new_prints.as_mut_slice()),
        };
        rows.write(reader, &mut stream, landing.meta, landing.profile)
            .await?;
        if empty {
            for op in landing.checks.plan.definitions() {
                stream.push(op).await?;
            }
        }

        // Vanished objects, children before parents.
        for id in deletion_order(std::mem::take(&mut landing.compared.vanished)) {
            stream.push(Op::DeleteObject(id)).await?;
        }
        for op in landing.changes.edge_ops() {
            stream.push(op).await?;
        }
        // The prints of what was written, and of unchanged objects whose print was
        // computed.
        match &landing.compared.nodes {
            Nodes::New { .. } => {
                for (at, fingerprint) in new_prints.into_iter().enumerate() {
                    let mut node = landing.compared.nodes.get(at as u32);
                    node.fingerprint = fingerprint;
                    stream.push(landing.print(&node)).await?;
                }
            }
            Nodes::Matched(nodes) => {
                for node in nodes.iter().filter(|n| n.writes()) {
                    stream.push(landing.print(node)).await?;
                }
                for &at in &landing.compared.reprint {
                    let node = &nodes[at as usize];
                    if !node.writes() {
                        stream.push(landing.print(node)).await?;
                    }
                }
            }
        }
        stream.finish().await
    }

    /// What the archive carries on changed objects goes, a page of objects at a time,
    /// so it can be written anew; edges to other models and grants stay.
    async fn remove_carried(&self, stream: &mut Stream<'_>, landing: &Landing<'_>) -> Result<()> {
        let number = landing.number;
        let changed: Vec<ObjectId> = match &landing.compared.nodes {
            Nodes::New { .. } => Vec::new(),
            Nodes::Matched(nodes) => nodes
                .iter()
                .filter(|n| n.fate() == Fate::Updated)
                .map(|n| n.id(number))
                .collect(),
        };
        for page in changed.chunks(PAGE) {
            let details = self.store.details(Scope::Objects(page.to_vec())).await?;
            let in_page: BTreeSet<ObjectId> = page.iter().copied().collect();
            for op in carried_removals(details, &in_page, number, landing.carried) {
                stream.push(op).await?;
            }
        }
        Ok(())
    }

    /// The model to import into: an existing one (`modelId`), or a new one, not yet
    /// written, with a reserved id.
    /// The model an import lands in, after checking the caller holds Import there (on
    /// the model re-imported, on the folder of a new model, globally for the root).
    async fn import_target(
        &self,
        caller: &Caller,
        options: &ImportOptions,
        archive_name: &str,
    ) -> Result<(Object, bool)> {
        match &options.model {
            Some(_) if options.folder.is_some() || options.name.is_some() => Err(Error::invalid(
                "modelId re-imports into an existing model and cannot be combined with folderId or modelName",
            )),
            Some(reference) => {
                let model = self.find(caller, reference).await?;
                if model.kind != ObjectKind::Model {
                    return Err(Error::invalid(format!(
                        "{} ('{}') is not a model",
                        model.id, model.name
                    )));
                }
                self.require_on(caller, Capability::Import, &model).await?;
                Ok((model.into_object(), false))
            }
            None => {
                let name = options.name.as_deref().unwrap_or(archive_name);
                let model = self
                    .unwritten_model(
                        caller,
                        options.folder.as_ref(),
                        name,
                        "; pass modelId to re-import into it",
                    )
                    .await?;
                Ok((model, true))
            }
        }
    }
}

impl Catalog {
    /// A new model named `name` in `folder` (the root when absent), not yet written,
    /// with a reserved id, after checking the caller holds Import on the folder (globally
    /// for the root) and the name is free; `hint` ends the message of a taken name.
    pub(crate) async fn unwritten_model(
        &self,
        caller: &Caller,
        folder: Option<&ObjectRef>,
        name: &str,
        hint: &str,
    ) -> Result<Object> {
        let folder = match folder {
            None => None,
            Some(ObjectRef::Path(p)) if p.is_empty() => None,
            Some(reference) => {
                let folder = self.find(caller, reference).await?;
                if folder.kind != ObjectKind::Folder {
                    return Err(Error::invalid(format!(
                        "{} ('{}') is not a folder",
                        folder.id, folder.name
                    )));
                }
                Some(folder)
            }
        };
        match &folder {
            None => caller.require(Capability::Import)?,
            Some(folder) => self.require_on(caller, Capability::Import, folder).await?,
        }
        let name = name.trim();
        if name.is_empty() || name.contains('/') {
            return Err(Error::invalid(format!(
                "model name '{name}' must be non-empty and free of '/'"
            )));
        }
        let id = self
            .new_repository_id(caller, folder.as_ref(), name, hint)
            .await?;
        let folder = folder.map(|f| f.id);
        Ok(Made::model().object(id, folder, name, caller.user(), now()))
    }
}

/// Pass 1: the archive's objects by native id ([`ObjectIndex`]: duplicate native ids,
/// dangling parents, cycles) and each object's own print.
fn index_objects<R: Read + Seek>(
    reader: &mut ArchiveReader<R>,
    meta: &MetaModel,
    profile: &str,
) -> Result<(ObjectIndex, Vec<u64>)> {
    let objects = reader.rows_hint(&spec::OBJECTS);
    let mut index = ObjectIndex::with_capacity(objects);
    let mut prints = Vec::with_capacity(objects);
    let mut types = TypeCache::default();
    // A second or more of inflating and parsing at 500,000 objects: off the runtime's
    // worker, so the reads it was to run next do not wait behind it.
    cpu_bound(|| {
        reader.each(&spec::OBJECTS, |row| {
            let object = object_row(&row)?;
            let object_type = types.resolve(meta, profile, &object.object_type, &row)?;
            index.add(&row, &object.native_id, object.parent_native_id.as_deref())?;
            let texts = [
                &object.physical_name,
                &object.description,
                &object.business_name,
                &object.business_description,
                &object.data_type,
                &object.external_url,
                &object.workflow_state,
            ];
            prints.push(object_print(
                &object_type.name,
                object.parent_native_id.as_deref(),
                &object.name,
                texts,
                object.hide_data,
            ));
            Ok(())
        })?;
        index.finish()
    })?;
    Ok((index, prints))
}

/// What comparing the archive with the stored model found.
struct Compared {
    nodes: Nodes,
    /// The stored objects the archive no longer has, with their parents.
    vanished: Vec<(ObjectId, Option<ObjectId>)>,
    /// The unchanged objects whose print was computed from their details, to be stored.
    reprint: Vec<u32>,
}

impl Compared {
    /// Into a model without objects: every object is added.
    fn all_new(len: usize) -> Self {
        Self {
            nodes: Nodes::New { first: 0, len },
            vanished: Vec::new(),
            reprint: Vec::new(),
        }
    }

    fn summary(&self, model: &Object, created: bool) -> ImportSummary {
        let [added, updated, unchanged] =
            [Fate::Added, Fate::Updated, Fate::Unchanged].map(|fate| self.nodes.count(fate));
        ImportSummary {
            model_id: model.id.to_string(),
            model_name: model.name.clone(),
            created,
            object_count: self.nodes.len(),
            added,
            updated,
            removed: self.vanished.len(),
            unchanged,
            breaking: 0,
            downstream: 0,
            breaking_changes: Vec::new(),
            downstream_truncated: false,
        }
    }
}

/// What an import changes on the model itself, besides its objects.
struct ModelChanges {
    description: Option<String>,
    profile: Value,
    stored_profile: Option<Value>,
    wanted_connections: BTreeSet<Edge>,
    stored_connections: BTreeSet<Edge>,
    configuration_edge: Option<Edge>,
}

impl ModelChanges {
    /// Whether the model changes (a new model does).
    fn any(&self, model: &Object, created: bool) -> bool {
        created
            || model.description != self.description
            || self.stored_profile.as_ref() != Some(&self.profile)
            || self.wanted_connections != self.stored_connections
            || self.configuration_edge.is_some()
    }

    /// The model's edges that go and come: its connections, and the configuration's.
    fn edge_ops(&self) -> impl Iterator<Item = Op> + '_ {
        let gone = self
            .stored_connections
            .difference(&self.wanted_connections)
            .map(|e| Op::RemoveEdge(e.clone()));
        let new = self
            .wanted_connections
            .difference(&self.stored_connections)
            .chain(&self.configuration_edge)
            .map(|e| Op::AddEdge(e.clone()));
        gone.chain(new)
    }
}

/// What the passes before pass 4 found, for it to write.
struct Landing<'a> {
    meta: &'a MetaModel,
    profile: &'a str,
    index: ObjectIndex,
    number: i64,
    created: bool,
    /// Whether the model had no objects: every row is new, checked as it is written.
    empty: bool,
    carried: Carried,
    compared: Compared,
    checks: Checks<'a>,
    /// Each object's print from pass 1 (a new model's rows add theirs as they are
    /// written; a re-import's prints are in its nodes).
    prints: Vec<u64>,
    changes: ModelChanges,
}

impl Landing<'_> {
    /// The op that stores a node's print.
    fn print(&self, node: &Node) -> Op {
        Op::SetImportPrint(ImportPrint {
            object: node.id(self.number),
            mask: self.carried.mask(),
            print: node.fingerprint,
        })
    }

    /// The ops that store the prints computed from details of unchanged objects.
    fn reprints(&self) -> Vec<Op> {
        match &self.compared.nodes {
            Nodes::New { .. } => Vec::new(),
            Nodes::Matched(nodes) => self
                .compared
                .reprint
                .iter()
                .map(|&at| self.print(&nodes[at as usize]))
                .collect(),
        }
    }
}

/// What the archive asks to create besides objects.
#[derive(Debug, Default)]
struct Plan {
    /// Custom attribute types the meta model lacks, by name.
    attribute_types: std::collections::BTreeMap<String, ValueType>,
    data_classes: BTreeSet<String>,
    sensitivity_labels: BTreeSet<String>,
    /// The highest position of the stored sensitivity labels.
    label_position: i64,
}

impl Plan {
    fn is_empty(&self) -> bool {
        self.attribute_types.is_empty()
            && self.data_classes.is_empty()
            && self.sensitivity_labels.is_empty()
    }

    /// The definitions to create, before the values that use them.
    fn definitions(&self) -> Vec<Op> {
        let mut ops = Vec::new();
        for (name, value_type) in &self.attribute_types {
            ops.push(Op::PutAttributeType(AttributeType {
                name: name.clone(),
                display_name: name.clone(),
                kind: AttributeKind::Custom,
                value_type: *value_type,
                profile: None,
                group: "Custom Attributes".to_owned(),
                description: String::new(),
            }));
        }
        for name in &self.data_classes {
            ops.push(Op::PutDataClass(DataClass {
                name: name.clone(),
                description: String::new(),
                hide_data: false,
                definition: serde_json::Value::Null,
            }));
        }
        for (position, name) in (self.label_position + 1..).zip(&self.sensitivity_labels) {
            ops.push(Op::PutSensitivityLabel(SensitivityLabel {
                name: name.clone(),
                position,
                description: String::new(),
                foreground_color: "#000000".to_owned(),
                background_color: "#ffffff".to_owned(),
                hide_data: false,
            }));
        }
        ops
    }
}

/// The checks of rows after objects.csv that need the meta model or the store, run once
/// on every row (in the fingerprint pass of a re-import, or as a new model's rows are
/// written), and what they find to define.
struct Checks<'m> {
    attribute_types: HashMap<&'m str, &'m AttributeType>,
    attributes: AttributeCheck,
    profiling: ProfilingCheck,
    known_classes: BTreeSet<String>,
    known_labels: BTreeSet<String>,
    plan: Plan,
}

impl Checks<'_> {
    /// Checks an attributes.csv row and answers its value.
    fn attribute(
        &mut self,
        row: &archive::read::Row,
        index: &ObjectIndex,
        attribute: &archive::ArchiveAttribute,
    ) -> Result<Value> {
        self.attributes.check(row, index, attribute)?;
        checked_value(row, attribute, &self.attribute_types, &mut self.plan)
    }

    fn classification(&mut self, c: &archive::ArchiveClassification) {
        if !self.known_classes.contains(&c.data_class) {
            self.plan.data_classes.insert(c.data_class.clone());
        }
    }

    fn label(&mut self, l: &archive::ArchiveLabel) {
        if !self.known_labels.contains(&l.label) {
            self.plan.sensitivity_labels.insert(l.label.clone());
        }
    }

    fn profiling(
        &mut self,
        row: &archive::read::Row,
        index: &ObjectIndex,
        native_id: &str,
    ) -> Result<()> {
        self.profiling.check(row, index, native_id)
    }
}

impl Objects<'_> {
    async fn checks<'m>(&self, meta: &'m MetaModel) -> Result<Checks<'m>> {
        let known_labels = self.store.sensitivity_labels().await?;
        Ok(Checks {
            attribute_types: meta.attribute_index(),
            attributes: AttributeCheck::default(),
            profiling: ProfilingCheck::default(),
            known_classes: self
                .store
                .data_classes()
                .await?
                .into_iter()
                .map(|c| c.name)
                .collect(),
            plan: Plan {
                label_position: known_labels.iter().map(|l| l.position).max().unwrap_or(0),
                ..Plan::default()
            },
            known_labels: known_labels.into_iter().map(|l| l.name).collect(),
        })
    }
}

/// The rows of connections.csv.
fn read_connections<R: Read + Seek>(
    reader: &mut ArchiveReader<R>,
) -> Result<Vec<archive::ArchiveConnection>> {
    let mut connections = Vec::new();
    reader.each(&spec::CONNECTIONS, |row| {
        connections.push(connection_row(&row)?);
        Ok(())
    })?;
    Ok(connections)
}

/// Object types resolved so far, by the text of the archive.
#[derive(Debug, Default)]
struct TypeCache<'m> {
    types: HashMap<String, &'m ObjectType>,
}

impl<'m> TypeCache<'m> {
    fn resolve(
        &mut self,
        meta: &'m MetaModel,
        profile: &str,
        text: &str,
        row: &archive::read::Row,
    ) -> Result<&'m ObjectType> {
        if let Some(found) = self.types.get(text) {
            return Ok(found);
        }
        let found = meta
            .object_type(&TypeName::new(profile, text))
            .or_else(|| meta.find_object_type(text))
            .filter(|t| t.name.profile != REPOSITORY_PROFILE)
            .ok_or_else(|| {
                row.error(
                    "object_type",
                    format!(
                        "object type '{text}' does not exist in profile '{profile}' or the meta model"
                    ),
                )
            })?;
        self.types.insert(text.to_owned(), found);
        Ok(found)
    }
}

/// The value of an attributes.csv row, checked against the meta model; notes attribute
/// types to define in `plan`.
fn checked_value(
    row: &archive::read::Row,
    attribute: &archive::ArchiveAttribute,
    attribute_types: &HashMap<&str, &AttributeType>,
    plan: &mut Plan,
) -> Result<Value> {
    match attribute_types.get(attribute.attribute.as_str()).copied() {
        Some(known) if known.kind == AttributeKind::System => {
            return Err(row.error(
                "attribute",
                format!(
                    "'{}' is a system attribute; give it as a column of objects.csv",
                    attribute.attribute
                ),
            ));
        }
        Some(known) if known.value_type != attribute.value_type => {
            return Err(row.error(
                "value_type",
                format!(
                    "attribute '{}' is of type {}, not {}",
                    attribute.attribute,
                    known.value_type.as_str(),
                    attribute.value_type.as_str()
                ),
            ));
        }
        Some(_) => {}
        None => match plan.attribute_types.get(attribute.attribute.as_str()) {
            Some(t) if *t != attribute.value_type => {
                return Err(row.error(
                    "value_type",
                    format!(
                        "attribute '{}' is given both as {} and {}",
                        attribute.attribute,
                        t.as_str(),
                        attribute.value_type.as_str()
                    ),
                ));
            }
            Some(_) => {}
            None => {
                plan.attribute_types
                    .insert(attribute.attribute.clone(), attribute.value_type);
            }
        },
    }
    Value::parse(attribute.value_type, &attribute.value).ok_or_else(|| {
        row.error(
            "value",
            format!(
                "value '{}' of '{}' on '{}' is not a {}",
                attribute.value,
                attribute.attribute,
                attribute.native_id,
                attribute.value_type.as_str()
            ),
        )
    })
}

/// The stored name of an edge: the canonical reference type of a term reference.
fn edge_name(kind: EdgeKind, name: &str) -> String {
    match kind {
        EdgeKind::TermReference => ReferenceType::parse(name)
            .map(|r| r.as_str().to_owned())
            .unwrap_or_else(|| name.to_owned()),
        _ => name.to_owned(),
    }
}

/// Whether an edge between two objects of the model is one the archive carries.
fn carried_edge(edge: &Edge, number: i64) -> bool {
    edge.source.model == number
        && edge.target.model == number
        && !matches!(
            edge.kind,
            EdgeKind::ModelConnection | EdgeKind::ConfigurationContent
        )
}

/// Removes what the archive carries on the objects of `page` (their edges to objects
/// of the model counted from the source), keeping edges to other models and grants.
fn carried_removals(
    details: Details,
    page: &BTreeSet<ObjectId>,
    number: i64,
    carried: Carried,
) -> Vec<Op> {
    let mut ops = Vec::new();
    for a in details.attributes {
        if carried.attributes && page.contains(&a.object) {
            ops.push(Op::RemoveAttribute {
                object: a.object,
                attribute: a.attribute,
            });
        }
    }
    for e in details.edges {
        if carried.relationships && page.contains(&e.source) && carried_edge(&e, number) {
            ops.push(Op::RemoveEdge(e));
        }
    }
    for t in details.tags {
        if carried.tags && page.contains(&t.object) {
            ops.push(Op::RemoveTag(t));
        }
    }
    for c in details.classifications {
        if carried.classifications && page.contains(&c.object) {
            ops.push(Op::RemoveClassification {
                object: c.object,
                data_class: c.data_class,
            });
        }
    }
    for l in details.labels {
        if carried.labels && page.contains(&l.object) {
            ops.push(Op::RemoveLabelAssignment {
                object: l.object,
                label: l.label,
            });
        }
    }
    for p in details.profiling {
        if carried.profiling
            && page.contains(&p.object)
            && (p.profile.is_some() || p.sample.is_some())
        {
            ops.push(Op::SetProfiling(Profiling {
                object: p.object,
                profile: None,
                sample: None,
            }));
        }
    }
    ops
}

/// The ids to delete, every object after its descendants among them.
fn deletion_order(vanished: Vec<(ObjectId, Option<ObjectId>)>) -> Vec<ObjectId> {
    let parents: HashMap<ObjectId, Option<ObjectId>> = vanished.iter().copied().collect();
    let mut depths: HashMap<ObjectId, usize> = HashMap::with_capacity(parents.len());
    let mut ordered: Vec<(usize, ObjectId)> = Vec::with_capacity(parents.len());
    for &(id, _) in &vanished {
        // Walk up through vanished ancestors, then fill in depths on the way back.
        let mut chain = vec![id];
        let mut base = 0;
        while let Some(&last) = chain.last() {
            if let Some(&d) = depths.get(&last) {
                chain.pop();
                base = d + 1;
                break;
            }
            match parents.get(&last).copied().flatten() {
                Some(parent) if parents.contains_key(&parent) && chain.len() <= parents.len() => {
                    chain.push(parent)
                }
                _ => break,
            }
        }
        for (offset, at) in chain.iter().rev().enumerate() {
            depths.insert(*at, base + offset);
        }
        ordered.push((depths.get(&id).copied().unwrap_or_default(), id));
    }
    ordered.sort_by(|a, b| b.cmp(a));
    ordered.into_iter().map(|(_, id)| id).collect()
}

/// Fails unless the caller holds Import globally or on some object, before an upload
/// is read; where it lands is checked once the target is known.
fn require_import_somewhere(caller: &Caller) -> Result<()> {
    let on_objects = caller
        .object_grants()
        .iter()
        .any(|(_, capabilities)| capabilities.contains(&Capability::Import));
    if on_objects {
        return Ok(());
    }
    caller.require(Capability::Import)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(n: i64) -> ObjectId {
        ObjectId::new(7, n)
    }

    #[test]
    fn deletion_order_puts_children_first() {
        // 1 <- 2 <- 3, 1 <- 4, and 5 whose parent survives.
        let vanished = vec![
            (id(1), None),
            (id(2), Some(id(1))),
            (id(3), Some(id(2))),
            (id(4), Some(id(1))),
            (id(5), Some(id(99))),
        ];
        let order = deletion_order(vanished);
        let at = |n: i64| order.iter().position(|&i| i == id(n)).expect("listed");
        assert_eq!(order.len(), 5);
        assert!(at(3) < at(2) && at(2) < at(1) && at(4) < at(1));
    }

    #[test]
    fn carried_edges_stay_inside_the_model() {
        let edge = |kind, source: ObjectId, target: ObjectId| Edge {
            kind,
            source,
            target,
            name: String::new(),
            origin: None,
        };
        assert!(carried_edge(&edge(EdgeKind::SemanticLink, id(1), id(2)), 7));
        assert!(!carried_edge(
            &edge(EdgeKind::SemanticLink, id(1), ObjectId::new(8, 1)),
            7
        ));
        assert!(!carried_edge(
            &edge(EdgeKind::SemanticLink, ObjectId::new(8, 1), id(1)),
            7
        ));
    }
}
