//! Writing a backup: the store read page by page into the zip, one file after another,
//! each record serialized as it is read.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Seek, Write};

use base64::Engine;
use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

use super::{
    AttachmentRecord, AttributeRecord, EdgeRecord, FORMAT_NAME, FORMAT_VERSION, HistoryExtent,
    HistoryRecord, IdSequenceRecord, MANIFEST, Manifest, ModelVersionRecord, ObjectRecord,
    OperationRecord, StatusRecord, TagRecord, UserRecord, files,
};
use crate::error::{Error, Result};
use crate::id::{ObjectId, REPOSITORY_MODEL};
use crate::model::{
    DocumentKind, Grant, Membership, Object, ObjectKind, OperationFilter, Timestamp,
};
use crate::store::{GrantsOn, Scope, Store};

/// Objects (and curation entries, notifications, lineage events) read per store call.
const PAGE: usize = 1000;

/// What a backup holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BackupOptions {
    /// Whether the contents of models go in (`backupCachedModels`, by default yes).
    pub model_contents: bool,
}

impl Default for BackupOptions {
    fn default() -> Self {
        Self {
            model_contents: true,
        }
    }
}

/// What a backup wrote: its manifest.
pub type BackupSummary = Manifest;

/// Writes a backup of the store to `out` and answers its manifest.
///
/// Every read goes to one snapshot of the store
/// ([`StoreBase::snapshot`](crate::store::StoreBase::snapshot)), so the backup is
/// the repository at one moment while writes go on. The store is read in pages while
/// the zip is written, so memory holds one page (and one attachment) at a time.
pub async fn write_backup<W: Write + Seek + Send>(
    store: &dyn Store,
    out: W,
    options: BackupOptions,
    created_at: Timestamp,
) -> Result<(W, BackupSummary)> {
    let snapshot = store.snapshot().await?;
    let store = snapshot.as_ref();
    let mut zip = Entries::new(out);
    let kept = |id: ObjectId| options.model_contents || id.is_repository();

    write_definitions(store, &mut zip).await?;
    write_people(store, &mut zip).await?;
    let models: Vec<Object> = store.objects_of_kind(ObjectKind::Model).await?;
    write_objects(store, &mut zip, &models, options, &kept).await?;
    write_records(store, &mut zip, &models, &kept).await?;
    write_lineage(store, &mut zip).await?;
    zip.start(files::ID_SEQUENCES)?;
    for (space, next) in store.id_sequences().await? {
        zip.line(&IdSequenceRecord { space, next })?;
    }
    // The history of the whole catalog, or none: a backup without the contents of
    // models could restore only a part of it.
    let history = if options.model_contents {
        Some(write_history(store, &mut zip, &models).await?)
    } else {
        None
    };

    let manifest = Manifest {
        format: FORMAT_NAME.to_owned(),
        version: FORMAT_VERSION,
        created_at,
        lore_version: env!("CARGO_PKG_VERSION").to_owned(),
        backend: store.backend().to_owned(),
        model_contents: options.model_contents,
        records: zip
            .records
            .iter()
            .map(|(k, v)| ((*k).to_owned(), *v))
            .collect(),
        history,
    };
    let out = zip.finish(&manifest)?;
    Ok((out, manifest))
}

/// Whether an object's records go in (see [`BackupOptions::model_contents`]).
type Kept<'a> = &'a (dyn Fn(ObjectId) -> bool + Sync);

/// The meta model's additions, governance definitions and roles.
async fn write_definitions<W: Write + Seek>(store: &dyn Store, zip: &mut Entries<W>) -> Result<()> {
    zip.start(files::ATTRIBUTE_TYPES)?;
    for t in store.attribute_types().await? {
        zip.line(&t)?;
    }
    zip.start(files::OBJECT_TYPES)?;
    for t in store.object_types().await? {
        zip.line(&t)?;
    }
    zip.start(files::DATA_CLASSES)?;
    for c in store.data_classes().await? {
        zip.line(&c)?;
    }
    zip.start(files::SENSITIVITY_LABELS)?;
    for l in store.sensitivity_labels().await? {
        zip.line(&l)?;
    }
    zip.start(files::ROLES)?;
    for r in store.roles().await? {
        zip.line(&r)?;
    }
    Ok(())
}

/// Users with their password hashes, groups and memberships.
async fn write_people<W: Write + Seek>(store: &dyn Store, zip: &mut Entries<W>) -> Result<()> {
    zip.start(files::USERS)?;
    for u in store.users().await? {
        zip.line(&UserRecord::from(u))?;
    }
    let groups = store.groups().await?;
    zip.start(files::GROUPS)?;
    for g in &groups {
        zip.line(g)?;
    }
    zip.start(files::MEMBERSHIPS)?;
    for g in &groups {
        for user in store.members(g.id).await? {
            zip.line(&Membership {
                group: g.id,
                user: user.id,
            })?;
        }
    }
    Ok(())
}

/// The objects with what hangs on them: the repository's first, then each model's
/// (when model contents go in), by id, a page at a time.
async fn write_objects<W: Write + Seek>(
    store: &dyn Store,
    zip: &mut Entries<W>,
    models: &[Object],
    options: BackupOptions,
    kept: Kept<'_>,
) -> Result<()> {
    let mut spaces: Vec<i64> = vec![REPOSITORY_MODEL];
    if options.model_contents {
        let numbers: BTreeSet<i64> = models.iter().map(|m| m.id.content_model()).collect();
        spaces.extend(numbers);
    }
    zip.start(files::OBJECTS)?;
    for space in spaces {
        let mut after = None;
        loop {
            let page = store.model_objects_page(space, after, PAGE).await?;
            let Some(last) = page.last() else { break };
            after = Some(last.id.object);
            let full = page.len() == PAGE;
            for record in object_records(store, page, kept).await? {
                zip.line(&record)?;
            }
            if !full {
                break;
            }
        }
    }
    Ok(())
}

/// The revisions kept from the oldest that can be read, the models' versions, and the
/// images of every object's rows (of those there now and those gone whose history is
/// kept) and of the server's grants; answers the span of revisions they name.
async fn write_history<W: Write + Seek>(
    store: &dyn Store,
    zip: &mut Entries<W>,
    models: &[Object],
) -> Result<HistoryExtent> {
    let span = store.history_span().await?;
    let extent = HistoryExtent {
        oldest: span.oldest.version,
        newest: span.newest.version,
    };
    zip.start(files::REVISIONS)?;
    let mut after = extent.oldest - 1;
    loop {
        let page = store.revisions_after(after, PAGE).await?;
        let Some(last) = page.last() else { break };
        after = last.version;
        for revision in page.iter().filter(|r| r.version <= extent.newest) {
            zip.line(revision)?;
        }
    }
    zip.start(files::MODEL_VERSIONS)?;
    for v in store.all_model_versions().await? {
        if v.revision.version <= extent.newest {
            zip.line(&ModelVersionRecord {
                version: v.revision.version,
                number: v.number,
                counts: v.counts,
            })?;
        }
    }
    zip.start(files::HISTORY)?;
    let mut spaces: Vec<i64> = vec![REPOSITORY_MODEL];
    let numbers: BTreeSet<i64> = models.iter().map(|m| m.id.content_model()).collect();
    spaces.extend(numbers);
    for space in spaces {
        let mut after = None;
        loop {
            let page = store.model_objects_page(space, after, PAGE).await?;
            let Some(last) = page.last() else { break };
            after = Some(last.id.object);
            let full = page.len() == PAGE;
            let ids: Vec<ObjectId> = page.iter().map(|o| o.id).collect();
            write_histories(store, zip, &ids).await?;
            if !full {
                break;
            }
        }
    }
    let mut after = None;
    loop {
        let gone = store.gone_with_history(after, PAGE).await?;
        let Some(last) = gone.last() else { break };
        after = Some(*last);
        write_histories(store, zip, &gone).await?;
    }
    let (grants, _) = store.server_grant_history(usize::MAX).await?;
    let server = HistoryRecord::of(
        None,
        crate::model::ObjectHistory {
            grants,
            ..Default::default()
        },
    );
    if !server.is_empty() {
        zip.line(&server)?;
    }
    Ok(extent)
}

/// The history records of these objects.
async fn write_histories<W: Write + Seek>(
    store: &dyn Store,
    zip: &mut Entries<W>,
    ids: &[ObjectId],
) -> Result<()> {
    for (id, history) in ids.iter().zip(store.objects_history(ids).await?) {
        let record = HistoryRecord::of(Some(*id), history);
        if !record.is_empty() {
            zip.line(&record)?;
        }
    }
    Ok(())
}

/// Grants, worksheets, documents, curation, notifications, operations with their logs,
/// import settings and attachments.
async fn write_records<W: Write + Seek>(
    store: &dyn Store,
    zip: &mut Entries<W>,
    models: &[Object],
    kept: Kept<'_>,
) -> Result<()> {
    zip.start(files::GRANTS)?;
    let mut grants: Vec<Grant> = store.grants_on(GrantsOn::Server).await?;
    grants.extend(store.grants_on(GrantsOn::AnyObject).await?);
    grants.retain(|g| g.object.is_none_or(kept));
    grants.sort();
    for g in &grants {
        zip.line(g)?;
    }
    zip.start(files::WORKSHEETS)?;
    for w in store.worksheets(None).await? {
        zip.line(&w)?;
    }
    zip.start(files::DOCUMENTS)?;
    for kind in DocumentKind::ALL {
        for d in store.documents(kind).await? {
            zip.line(&d)?;
        }
    }
    zip.start(files::CURATION)?;
    let mut after = 0;
    loop {
        let page = store.curation_page(after, PAGE).await?;
        let Some(last) = page.last() else { break };
        after = last.id;
        for c in page.iter().filter(|c| kept(c.object)) {
            zip.line(c)?;
        }
    }
    zip.start(files::NOTIFICATIONS)?;
    let mut after = 0;
    loop {
        let page = store.notifications_page(after, PAGE).await?;
        let Some(last) = page.last() else { break };
        after = last.id;
        for n in &page {
            zip.line(n)?;
        }
    }
    zip.start(files::OPERATIONS)?;
    let mut operations = store
        .operations(&OperationFilter {
            limit: usize::MAX,
            ..OperationFilter::default()
        })
        .await?;
    operations.reverse();
    for operation in operations {
        let log = store.operation_log(operation.id).await?;
        zip.line(&OperationRecord { operation, log })?;
    }
    zip.start(files::IMPORT_SETTINGS)?;
    let mut model_ids: Vec<ObjectId> = models.iter().map(|m| m.id).collect();
    model_ids.sort();
    for model in model_ids {
        if let Some(settings) = store.import_settings(model).await? {
            zip.line(&settings)?;
        }
    }
    zip.start(files::ATTACHMENTS)?;
    for info in store.all_attachments().await? {
        if !kept(info.object) {
            continue;
        }
        // Deleted since it was listed: left out.
        let Some(a) = store.attachment(info.object, Some(&info.name)).await? else {
            continue;
        };
        zip.line(&AttachmentRecord {
            content: base64::engine::general_purpose::STANDARD.encode(&a.content),
            info: a.info,
        })?;
    }
    Ok(())
}

/// OpenLineage runs by id, then events by digest, a page at a time.
async fn write_lineage<W: Write + Seek>(store: &dyn Store, zip: &mut Entries<W>) -> Result<()> {
    zip.start(files::LINEAGE_RUNS)?;
    let mut after = String::new();
    loop {
        let page = store.lineage_runs_page(&after, PAGE).await?;
        let Some(last) = page.last() else { break };
        after = last.run_id.clone();
        let full = page.len() == PAGE;
        for run in page {
            zip.line(&run)?;
        }
        if !full {
            break;
        }
    }
    zip.start(files::LINEAGE_EVENTS)?;
    let mut after = String::new();
    loop {
        let page = store.lineage_events_page(&after, PAGE).await?;
        let Some(last) = page.last() else { break };
        after = last.digest.clone();
        let full = page.len() == PAGE;
        for event in page {
            zip.line(&event)?;
        }
        if !full {
            break;
        }
    }
    Ok(())
}

/// The records of a page of objects: each object with what hangs on it.
async fn object_records(
    store: &dyn Store,
    page: Vec<Object>,
    kept: Kept<'_>,
) -> Result<Vec<ObjectRecord>> {
    let ids: Vec<ObjectId> = page.iter().map(|o| o.id).collect();
    let details = store.details(Scope::Objects(ids)).await?;
    let mut records: BTreeMap<ObjectId, ObjectRecord> = page
        .into_iter()
        .map(|object| {
            (
                object.id,
                ObjectRecord {
                    object,
                    attributes: Vec::new(),
                    edges: Vec::new(),
                    tags: Vec::new(),
                    classifications: Vec::new(),
                    labels: Vec::new(),
                    profile: None,
                    sample: None,
                },
            )
        })
        .collect();
    for a in details.attributes {
        if let Some(r) = records.get_mut(&a.object) {
            r.attributes.push(AttributeRecord {
                name: a.attribute,
                value: a.value.into(),
            });
        }
    }
    // Each edge goes with its source, when its target is kept too.
    for e in details.edges {
        if let Some(r) = records.get_mut(&e.source)
            && kept(e.target)
        {
            r.edges.push(EdgeRecord {
                kind: e.kind,
                target: e.target,
                name: e.name,
                origin: e.origin,
            });
        }
    }
    for t in details.tags {
        if let Some(r) = records.get_mut(&t.object) {
            r.tags.push(TagRecord {
                kind: t.kind,
                value: t.value,
            });
        }
    }
    for c in details.classifications {
        if let Some(r) = records.get_mut(&c.object) {
            r.classifications.push(StatusRecord {
                name: c.data_class,
                status: c.status,
            });
        }
    }
    for l in details.labels {
        if let Some(r) = records.get_mut(&l.object) {
            r.labels.push(StatusRecord {
                name: l.label,
                status: l.status,
            });
        }
    }
    for p in details.profiling {
        if let Some(r) = records.get_mut(&p.object) {
            r.profile = p.profile;
            r.sample = p.sample;
        }
    }
    Ok(records
        .into_values()
        .map(|mut r| {
            r.attributes.sort_by(|a, b| a.name.cmp(&b.name));
            r.edges.sort();
            r.tags.sort();
            r.classifications.sort();
            r.labels.sort();
            r
        })
        .collect())
}

/// The zip being written: one file at a time, a record per line, counted.
struct Entries<W: Write + Seek> {
    zip: ZipWriter<W>,
    current: &'static str,
    records: BTreeMap<&'static str, u64>,
    line: Vec<u8>,
}

impl<W: Write + Seek> Entries<W> {
    fn new(out: W) -> Self {
        Self {
            zip: ZipWriter::new(out),
            current: "",
            records: BTreeMap::new(),
            line: Vec::new(),
        }
    }

    fn options() -> SimpleFileOptions {
        // Fixed times, so the same store gives the same bytes.
        SimpleFileOptions::default()
            .compression_method(CompressionMethod::Deflated)
            .compression_level(Some(6))
            .last_modified_time(DateTime::default())
            .unix_permissions(0o644)
            .large_file(true)
    }

    fn start(&mut self, file: &'static str) -> Result<()> {
        self.zip
            .start_file(file, Self::options())
            .map_err(|e| failed(file, e))?;
        self.current = file;
        self.records.insert(file, 0);
        Ok(())
    }

    fn line<T: serde::Serialize>(&mut self, record: &T) -> Result<()> {
        self.line.clear();
        serde_json::to_writer(&mut self.line, record).map_err(|e| failed(self.current, e))?;
        self.line.push(b'\n');
        self.zip
            .write_all(&self.line)
            .map_err(|e| failed(self.current, e))?;
        *self.records.entry(self.current).or_default() += 1;
        Ok(())
    }

    fn finish(mut self, manifest: &Manifest) -> Result<W> {
        self.zip
            .start_file(MANIFEST, Self::options())
            .map_err(|e| failed(MANIFEST, e))?;
        let text = serde_json::to_vec_pretty(manifest).map_err(|e| failed(MANIFEST, e))?;
        self.zip.write_all(&text).map_err(|e| failed(MANIFEST, e))?;
        self.zip
            .finish()
            .map_err(|e| Error::internal(format!("backup: cannot finish the zip: {e}")))
    }
}

fn failed(file: &str, e: impl std::fmt::Display) -> Error {
    Error::internal(format!("backup: cannot write {file}: {e}"))
}
