//! Reading a backup: the zip checked, then each file's records read as they are inflated
//! and turned into the ops that rebuild a store, with every reference between records
//! checked, so a damaged or hand-edited backup is refused before anything lands.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Display;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};

use base64::Engine;
use serde::de::DeserializeOwned;
use sha2::{Digest, Sha256};
use zip::ZipArchive;

use super::{
    AttachmentRecord, BackupLimits, FORMAT_NAME, FORMAT_VERSION, HistoryExtent, HistoryRecord,
    IdSequenceRecord, MANIFEST, Manifest, ModelVersionRecord, ObjectRecord, OperationRecord,
    UserRecord, files,
};
use crate::error::{Error, Result};
use crate::id::ObjectId;
use crate::model::{
    Attachment, AttributeType, AttributeValue, CURATION_IDS, Classification, Curation, DataClass,
    Document, Edge, Grant, Group, ImportSettings, LabelAssignment, LineageEvent, LineageRun,
    Membership, NOTIFICATION_IDS, Notification, OPERATION_IDS, ObjectHistory, ObjectType,
    Profiling, Revision, Role, SensitivityLabel, Tag, Versioned, Worksheet,
};
use crate::store::{Op, RestoredHistory, prepare_lineage_event, prepare_lineage_run};

/// Ops handed on at a time.
const CHUNK: usize = 2000;
/// The largest manifest read.
const MAX_MANIFEST_BYTES: u64 = 1 << 20;

fn bad(message: impl Display) -> Error {
    Error::invalid(format!("backup: {message}"))
}

/// A checked backup whose files are inflated one at a time as their records are read.
#[derive(Debug)]
pub struct BackupReader<R: Read + Seek> {
    zip: ZipArchive<R>,
    manifest: Manifest,
    limits: BackupLimits,
    /// The most bytes all files may inflate to, from the limits and the backup's size.
    budget: u64,
    inflated: u64,
    /// The records read from each file so far.
    records: BTreeMap<String, u64>,
}

impl<R: Read + Seek> BackupReader<R> {
    /// Checks the zip (only the format's files, none encrypted) and reads the manifest:
    /// a Lore backup of a version this release reads.
    pub fn open(mut source: R, limits: BackupLimits) -> Result<Self> {
        let source_len = source
            .seek(SeekFrom::End(0))
            .map_err(|e| bad(format!("the file cannot be read: {e}")))?;
        let mut zip = ZipArchive::new(source)
            .map_err(|e| bad(format!("not a zip file, or a corrupt one: {e}")))?;
        for index in 0..zip.len() {
            let entry = zip
                .by_index_raw(index)
                .map_err(|e| bad(format!("corrupt zip entry: {e}")))?;
            let name = entry.name();
            if name != MANIFEST && !files::ALL.contains(&name) {
                return Err(bad(format!(
                    "'{}' is not a file of the backup format",
                    name.escape_debug()
                )));
            }
            if entry.encrypted() {
                return Err(bad(format!("'{name}' is encrypted")));
            }
        }
        let budget = limits.max_total_bytes.min(
            limits
                .min_total_bytes
                .max(source_len.saturating_mul(limits.max_ratio)),
        );
        let mut reader = Self {
            zip,
            manifest: Manifest {
                format: String::new(),
                version: 0,
                created_at: chrono::DateTime::UNIX_EPOCH,
                lore_version: String::new(),
                backend: String::new(),
                model_contents: true,
                records: BTreeMap::new(),
                history: None,
            },
            limits,
            budget,
            inflated: 0,
            records: BTreeMap::new(),
        };
        let mut text = Vec::new();
        match reader.entry(MANIFEST)? {
            None => return Err(bad(format!("{MANIFEST} is missing: not a Lore backup"))),
            Some(entry) => entry
                .take(MAX_MANIFEST_BYTES + 1)
                .read_to_end(&mut text)
                .map_err(|e| bad(format!("{MANIFEST} cannot be read: {e}")))?,
        };
        if text.len() as u64 > MAX_MANIFEST_BYTES {
            return Err(bad(format!(
                "{MANIFEST} is larger than {MAX_MANIFEST_BYTES} bytes"
            )));
        }
        let manifest: Manifest = serde_json::from_slice(&text)
            .map_err(|e| bad(format!("{MANIFEST} does not read: {e}")))?;
        if manifest.format != FORMAT_NAME {
            return Err(bad(format!(
                "{MANIFEST} names format '{}', not '{FORMAT_NAME}'",
                manifest.format
            )));
        }
        if manifest.version != FORMAT_VERSION {
            return Err(bad(format!(
                "format version {} is not one this Lore reads (it reads version {FORMAT_VERSION})",
                manifest.version
            )));
        }
        reader.manifest = manifest;
        Ok(reader)
    }

    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The entry of that name, inflating under the budget; `None` when absent.
    fn entry(&mut self, name: &str) -> Result<Option<Counted<'_, impl Read + '_>>> {
        let Some(index) = self.zip.index_for_name(name) else {
            return Ok(None);
        };
        let entry = self
            .zip
            .by_index(index)
            .map_err(|e| bad(format!("'{name}' cannot be read: {e}")))?;
        Ok(Some(Counted {
            inner: entry,
            inflated: &mut self.inflated,
            budget: self.budget,
        }))
    }

    /// Reads each record of a data file (none when the file is absent), with its line
    /// number, as it is inflated, and counts it.
    pub fn each<T: DeserializeOwned>(
        &mut self,
        file: &'static str,
        mut f: impl FnMut(T, u64) -> Result<()>,
    ) -> Result<()> {
        let max_line = self.limits.max_line_bytes;
        let Some(entry) = self.entry(file)? else {
            return Ok(());
        };
        let mut lines = BufReader::with_capacity(1 << 16, entry);
        let mut line = Vec::new();
        let mut number = 0;
        let mut records = 0;
        loop {
            line.clear();
            number += 1;
            let read = (&mut lines)
                .take(max_line + 1)
                .read_until(b'\n', &mut line)
                .map_err(|e| read_error(file, e))?;
            if read == 0 {
                break;
            }
            if line.len() as u64 > max_line {
                return Err(bad(format!(
                    "{file} line {number} is longer than {max_line} bytes"
                )));
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let record = serde_json::from_slice(&line)
                .map_err(|e| bad(format!("{file} line {number}: {e}")))?;
            records += 1;
            f(record, number)?;
        }
        drop(lines);
        if records > 0 {
            *self.records.entry(file.to_owned()).or_default() += records;
        }
        Ok(())
    }
}

/// The error of reading an entry: the budget's own refusal, or a corrupt entry.
fn read_error(file: &str, e: io::Error) -> Error {
    match e.into_inner() {
        Some(inner) => match inner.downcast::<Error>() {
            Ok(refusal) => *refusal,
            Err(other) => bad(format!("'{file}' is corrupt: {other}")),
        },
        None => bad(format!("'{file}' cannot be read")),
    }
}

/// An entry being inflated, counted against the budget of the whole backup.
struct Counted<'a, R: Read> {
    inner: R,
    inflated: &'a mut u64,
    budget: u64,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        *self.inflated += n as u64;
        if *self.inflated > self.budget {
            return Err(io::Error::other(bad(format!(
                "the files inflate to more than {} bytes, the most this backup's size allows (zip bomb?)",
                self.budget
            ))));
        }
        Ok(n)
    }
}

/// What a restore read.
#[derive(Debug, Clone, PartialEq)]
pub struct RestorePlan {
    pub manifest: Manifest,
    /// The records read from each file.
    pub records: BTreeMap<String, u64>,
}

/// What the records read so far hold, to check the references of those that follow.
#[derive(Default)]
struct Known {
    roles: HashSet<String>,
    users: HashSet<ObjectId>,
    groups: HashSet<ObjectId>,
    objects: HashSet<ObjectId>,
    /// The highest id seen in each id space.
    highest: HashMap<i64, i64>,
}

impl Known {
    fn saw(&mut self, space: i64, id: i64) {
        let highest = self.highest.entry(space).or_insert(id);
        *highest = (*highest).max(id);
    }
    fn saw_id(&mut self, id: ObjectId) {
        self.saw(id.model, id.object);
    }
}

/// The ops of a restore, handed on in chunks.
struct Ops<'a> {
    pending: Vec<Op>,
    emit: &'a mut dyn FnMut(Vec<Op>) -> Result<()>,
}

impl Ops<'_> {
    fn push(&mut self, op: Op) -> Result<()> {
        self.pending.push(op);
        if self.pending.len() >= CHUNK {
            (self.emit)(std::mem::take(&mut self.pending))?;
        }
        Ok(())
    }
    fn flush(&mut self) -> Result<()> {
        if !self.pending.is_empty() {
            (self.emit)(std::mem::take(&mut self.pending))?;
        }
        Ok(())
    }
}

/// Reads every file of the backup and hands `emit` the ops that rebuild the store it
/// was taken from (to follow [`Op::ClearAll`] in one transaction), in chunks. Any
/// defect is an INVALID_PARAMETER error naming the file and line; `emit`'s own error
/// stops the reading.
pub fn plan_restore<R: Read + Seek>(
    reader: &mut BackupReader<R>,
    emit: &mut dyn FnMut(Vec<Op>) -> Result<()>,
) -> Result<RestorePlan> {
    let mut restore = Restore {
        ops: Ops {
            pending: Vec::new(),
            emit,
        },
        known: Known::default(),
    };
    backup_history(reader)?;
    restore.definitions(reader)?;
    restore.people(reader)?;
    restore.objects(reader)?;
    restore.records(reader)?;
    restore.lineage(reader)?;
    restore.id_sequences(reader)?;
    restore.history(reader)?;
    restore.ops.flush()?;
    Ok(RestorePlan {
        manifest: reader.manifest.clone(),
        records: reader.records.clone(),
    })
}

/// A restore under way: the ops so far, and what the records read so far hold.
struct Restore<'a> {
    ops: Ops<'a>,
    known: Known,
}

impl Restore<'_> {
    /// The meta model's additions, governance definitions and roles.
    fn definitions<R: Read + Seek>(&mut self, reader: &mut BackupReader<R>) -> Result<()> {
        let ops = &mut self.ops;
        reader.each(files::ATTRIBUTE_TYPES, |t: AttributeType, _| {
            ops.push(Op::PutAttributeType(t))
        })?;
        reader.each(files::OBJECT_TYPES, |t: ObjectType, _| {
            ops.push(Op::PutObjectType(t))
        })?;
        reader.each(files::DATA_CLASSES, |c: DataClass, _| {
            ops.push(Op::PutDataClass(c))
        })?;
        reader.each(files::SENSITIVITY_LABELS, |l: SensitivityLabel, _| {
            ops.push(Op::PutSensitivityLabel(l))
        })?;
        let known = &mut self.known;
        reader.each(files::ROLES, |r: Role, _| {
            known.roles.insert(r.name.clone());
            ops.push(Op::PutRole(r))
        })?;
        // The built-in roles as this release defines them, whatever the backup's release had.
        for role in Role::builtin() {
            known.roles.insert(role.name.clone());
            ops.push(Op::PutRole(role))?;
        }
        Ok(())
    }

    /// Users, groups and memberships.
    fn people<R: Read + Seek>(&mut self, reader: &mut BackupReader<R>) -> Result<()> {
        let (ops, known) = (&mut self.ops, &mut self.known);
        reader.each(files::USERS, |u: UserRecord, line| {
            let id = u.user.id;
            if !known.users.insert(id) {
                return Err(bad(format!(
                    "{} line {line}: user {id} twice",
                    files::USERS
                )));
            }
            known.saw_id(id);
            ops.push(Op::PutUser(u.into()))
        })?;
        if known.users.is_empty() {
            return Err(bad(format!(
                "{} holds no users: nobody could log in to the restored repository",
                files::USERS
            )));
        }
        reader.each(files::GROUPS, |g: Group, line| {
            if !known.groups.insert(g.id) {
                return Err(bad(format!(
                    "{} line {line}: group {} twice",
                    files::GROUPS,
                    g.id
                )));
            }
            known.saw_id(g.id);
            ops.push(Op::PutGroup(g))
        })?;
        reader.each(files::MEMBERSHIPS, |m: Membership, line| {
            let at = || format!("{} line {line}", files::MEMBERSHIPS);
            if !known.groups.contains(&m.group) {
                return Err(bad(format!("{}: no group {}", at(), m.group)));
            }
            if !known.users.contains(&m.user) {
                return Err(bad(format!("{}: no user {}", at(), m.user)));
            }
            ops.push(Op::AddMember(m))
        })
    }

    /// The objects with what hangs on them.
    fn objects<R: Read + Seek>(&mut self, reader: &mut BackupReader<R>) -> Result<()> {
        let (ops, known) = (&mut self.ops, &mut self.known);
        // Objects may refer to objects further on (a parent, an edge's target): those are
        // checked once every object is read.
        let mut forward: Vec<(ObjectId, u64)> = Vec::new();
        reader.each(files::OBJECTS, |r: ObjectRecord, line| {
            let id = r.object.id;
            if !known.objects.insert(id) {
                return Err(bad(format!(
                    "{} line {line}: object {id} twice",
                    files::OBJECTS
                )));
            }
            known.saw_id(id);
            if let Some(parent) = r.object.parent
                && !known.objects.contains(&parent)
            {
                forward.push((parent, line));
            }
            for e in &r.edges {
                if !known.objects.contains(&e.target) {
                    forward.push((e.target, line));
                }
            }
            object_ops(r, ops)
        })?;
        if let Some((missing, line)) = forward
            .into_iter()
            .find(|(id, _)| !known.objects.contains(id))
        {
            return Err(bad(format!(
                "{} line {line} refers to object {missing}, which the backup does not hold",
                files::OBJECTS
            )));
        }
        Ok(())
    }

    /// Grants, worksheets, documents, curation, notifications, operations, import
    /// settings and attachments: records that refer to the users and objects before them.
    fn records<R: Read + Seek>(&mut self, reader: &mut BackupReader<R>) -> Result<()> {
        let (ops, known) = (&mut self.ops, &mut self.known);
        reader.each(files::GRANTS, |g: Grant, line| {
            let at = || format!("{} line {line}", files::GRANTS);
            if !known.users.contains(&g.grantee) && !known.groups.contains(&g.grantee) {
                return Err(bad(format!("{}: no user or group {}", at(), g.grantee)));
            }
            if !known.roles.contains(&g.role) {
                return Err(bad(format!("{}: no role '{}'", at(), g.role)));
            }
            if let Some(object) = g.object
                && !known.objects.contains(&object)
            {
                return Err(bad(format!("{}: no object {object}", at())));
            }
            ops.push(Op::AddGrant(g))
        })?;
        reader.each(files::WORKSHEETS, |w: Worksheet, line| {
            if !known.users.contains(&w.owner) {
                return Err(bad(format!(
                    "{} line {line}: no user {} owns worksheet {}",
                    files::WORKSHEETS,
                    w.owner,
                    w.id
                )));
            }
            known.saw_id(w.id);
            ops.push(Op::PutWorksheet(w))
        })?;
        reader.each(files::DOCUMENTS, |d: Document, line| {
            if let Some(owner) = d.owner
                && !known.users.contains(&owner)
            {
                return Err(bad(format!(
                    "{} line {line}: no user {owner} owns '{}'",
                    files::DOCUMENTS,
                    d.name
                )));
            }
            ops.push(Op::PutDocument(d))
        })?;
        reader.each(files::CURATION, |c: Curation, line| {
            let at = || format!("{} line {line}", files::CURATION);
            if !known.objects.contains(&c.object) {
                return Err(bad(format!("{}: no object {}", at(), c.object)));
            }
            if !known.users.contains(&c.user) {
                return Err(bad(format!("{}: no user {}", at(), c.user)));
            }
            known.saw(CURATION_IDS, c.id);
            ops.push(Op::PutCuration(c))
        })?;
        reader.each(files::NOTIFICATIONS, |n: Notification, line| {
            if !known.users.contains(&n.user) {
                return Err(bad(format!(
                    "{} line {line}: no user {}",
                    files::NOTIFICATIONS,
                    n.user
                )));
            }
            known.saw(NOTIFICATION_IDS, n.id);
            ops.push(Op::PutNotification(n))
        })?;
        reader.each(files::OPERATIONS, |o: OperationRecord, _| {
            let id = o.operation.id;
            known.saw(OPERATION_IDS, id);
            ops.push(Op::PutOperation(o.operation))?;
            for line in o.log {
                ops.push(Op::PutOperationLogLine {
                    operation: id,
                    line,
                })?;
            }
            Ok(())
        })?;
        reader.each(files::IMPORT_SETTINGS, |s: ImportSettings, line| {
            if !known.objects.contains(&s.model) {
                return Err(bad(format!(
                    "{} line {line}: no model {}",
                    files::IMPORT_SETTINGS,
                    s.model
                )));
            }
            ops.push(Op::PutImportSettings(s))
        })?;
        reader.each(files::ATTACHMENTS, |a: AttachmentRecord, line| {
            let at = || format!("{} line {line}", files::ATTACHMENTS);
            if !known.objects.contains(&a.info.object) {
                return Err(bad(format!("{}: no object {}", at(), a.info.object)));
            }
            ops.push(Op::PutAttachment(attachment(a, at)?))
        })
    }

    /// OpenLineage runs as they were (their purged events could not rebuild them), then
    /// the events kept: an event merges into its run without changing it, the run
    /// already holding it ([`LineageRun::merge`] is a join of its events). Files a
    /// backup lacks (one taken before they were added) restore as none.
    fn lineage<R: Read + Seek>(&mut self, reader: &mut BackupReader<R>) -> Result<()> {
        let ops = &mut self.ops;
        reader.each(files::LINEAGE_RUNS, |mut run: LineageRun, line| {
            prepare_lineage_run(&mut run).map_err(|e| {
                bad(format!(
                    "{} line {line}: {}",
                    files::LINEAGE_RUNS,
                    e.message
                ))
            })?;
            ops.push(Op::PutLineageRun(run))
        })?;
        reader.each(files::LINEAGE_EVENTS, |mut event: LineageEvent, line| {
            let at = || format!("{} line {line}", files::LINEAGE_EVENTS);
            if crate::openlineage::digest(&event.body) != event.digest {
                return Err(bad(format!(
                    "{}: the digest '{}' is not the SHA-256 of the event's body",
                    at(),
                    event.digest
                )));
            }
            prepare_lineage_event(&mut event)
                .map_err(|e| bad(format!("{}: {}", at(), e.message)))?;
            ops.push(Op::PutLineageEvent(event))
        })
    }

    /// The next id of each id space: what the backup says, and never an id a record holds.
    fn id_sequences<R: Read + Seek>(&mut self, reader: &mut BackupReader<R>) -> Result<()> {
        let mut sequences: BTreeMap<i64, i64> = self
            .known
            .highest
            .iter()
            .map(|(space, id)| (*space, id.saturating_add(1)))
            .collect();
        reader.each(files::ID_SEQUENCES, |s: IdSequenceRecord, _| {
            let next = sequences.entry(s.space).or_insert(s.next);
            *next = (*next).max(s.next);
            Ok(())
        })?;
        for (space, next) in sequences {
            self.ops.push(Op::SetIdSequence {
                space,
                next: next.max(1),
            })?;
        }
        Ok(())
    }
}

/// The history a backup's manifest says it carries, checked: its newest revision is
/// what a restore moves the catalog's version to first, so the restore's own revision
/// comes after every one it brings back.
pub fn backup_history<R: Read + Seek>(reader: &BackupReader<R>) -> Result<Option<HistoryExtent>> {
    match reader.manifest.history {
        Some(h) if h.oldest < 0 || h.newest < h.oldest || h.newest > MOST_VERSION => {
            Err(bad(format!(
                "{MANIFEST} says its history spans versions {} to {}: they must run up from 0 \
                 and be at most {MOST_VERSION}",
                h.oldest, h.newest
            )))
        }
        history => Ok(history),
    }
}

/// The highest version a backup's history may name.
const MOST_VERSION: i64 = crate::store::MOST_RESTORED_VERSION;

impl Restore<'_> {
    /// The revisions, model versions and kept images, when the backup carries them:
    /// every version they name within the manifest's span, every revision's operation
    /// and user what they are, and an image current in the backup only of an object it
    /// restores.
    fn history<R: Read + Seek>(&mut self, reader: &mut BackupReader<R>) -> Result<()> {
        let Some(extent) = backup_history(reader)? else {
            return Ok(());
        };
        let within = |version: i64, at: &dyn Fn() -> String| {
            if (0..=extent.newest).contains(&version) {
                Ok(())
            } else {
                Err(bad(format!(
                    "{}: version {version} is outside the history the backup spans (0 to {})",
                    at(),
                    extent.newest
                )))
            }
        };
        let ops = &mut self.ops;
        // Revisions run up by version, their times never back, none after the backup.
        let created = reader.manifest.created_at;
        let mut revisions: HashSet<i64> = HashSet::new();
        let mut last: Option<Revision> = None;
        reader.each(files::REVISIONS, |r: Revision, line| {
            let at = || format!("{} line {line}", files::REVISIONS);
            within(r.version, &at)?;
            if let Some(last) = last
                && (r.version <= last.version || r.at < last.at)
            {
                return Err(bad(format!(
                    "{}: revision {} at {} follows revision {} at {}: revisions must run up by \
                     version, their times never going back",
                    at(),
                    r.version,
                    crate::model::format_micros(&r.at),
                    last.version,
                    crate::model::format_micros(&last.at)
                )));
            }
            if r.at > created {
                return Err(bad(format!(
                    "{}: revision {} is dated after the backup was taken",
                    at(),
                    r.version
                )));
            }
            revisions.insert(r.version);
            last = Some(r);
            ops.push(Op::RestoreHistory(RestoredHistory::Revision(r)))
        })?;
        // Every version named is one of those revisions (0: before history began).
        let kept = |version: i64, at: &dyn Fn() -> String| {
            within(version, at)?;
            if version == 0 || revisions.contains(&version) {
                Ok(())
            } else {
                Err(bad(format!(
                    "{}: version {version} is no revision of the backup",
                    at()
                )))
            }
        };
        let mut numbered: HashSet<(i64, i64)> = HashSet::new();
        reader.each(files::MODEL_VERSIONS, |v: ModelVersionRecord, line| {
            let at = || format!("{} line {line}", files::MODEL_VERSIONS);
            kept(v.version, &at)?;
            if !numbered.insert((v.counts.model, v.number)) {
                return Err(bad(format!(
                    "{}: model {} has two versions numbered {}",
                    at(),
                    v.counts.model,
                    v.number
                )));
            }
            ops.push(Op::RestoreHistory(RestoredHistory::ModelVersion {
                version: v.version,
                number: v.number,
                counts: v.counts,
            }))
        })?;
        let known = &self.known;
        reader.each(files::HISTORY, |r: HistoryRecord, line| {
            let at = || format!("{} line {line}", files::HISTORY);
            let history = history_of(r);
            check_images(&history, &kept, &at, known)?;
            ops.push(Op::RestoreHistory(RestoredHistory::Images(Box::new(
                history,
            ))))
        })?;
        self.ops
            .push(Op::RestoreHistory(RestoredHistory::Floor(extent.oldest)))
    }
}

/// Checks that a version is within the backup's span, naming where it was read.
type Within<'a> = &'a dyn Fn(i64, &dyn Fn() -> String) -> Result<()>;

/// The images of a line of `history.jsonl`.
fn history_of(r: HistoryRecord) -> ObjectHistory {
    let owner = r.object;
    let attributes = r
        .attributes
        .into_iter()
        .map(|i| Versioned {
            from: i.from,
            to: i.to,
            row: AttributeValue {
                // An attribute value hangs on the record's object.
                object: owner.unwrap_or(ObjectId::new(i64::MIN, i64::MIN)),
                attribute: i.row.name,
                value: i.row.value.into(),
            },
        })
        .collect();
    ObjectHistory {
        objects: r.objects,
        attributes,
        edges: r.edges,
        tags: r.tags,
        classifications: r.classifications,
        labels: r.labels,
        curation: r.curation,
        grants: r.grants,
        truncated: false,
    }
}

/// Every image's versions within the backup's span; an image current in the backup
/// only of an object the backup restores (or of a server-wide grant).
fn check_images(
    h: &ObjectHistory,
    within: Within<'_>,
    at: &dyn Fn() -> String,
    known: &Known,
) -> Result<()> {
    fn each<T>(
        images: &[Versioned<T>],
        owner: impl Fn(&T) -> Option<ObjectId>,
        within: Within<'_>,
        at: &dyn Fn() -> String,
        known: &Known,
    ) -> Result<()> {
        for image in images {
            within(image.from, at)?;
            if let Some(to) = image.to {
                within(to, at)?;
            } else if let Some(owner) = owner(&image.row)
                && !known.objects.contains(&owner)
            {
                return Err(bad(format!(
                    "{}: an image current in the backup is of object {owner}, which it does \
                     not restore",
                    at()
                )));
            }
        }
        Ok(())
    }
    each(&h.objects, |o| Some(o.id), within, at, known)?;
    each(&h.attributes, |a| Some(a.object), within, at, known)?;
    each(&h.edges, |e| Some(e.source), within, at, known)?;
    each(&h.tags, |t| Some(t.object), within, at, known)?;
    each(&h.classifications, |c| Some(c.object), within, at, known)?;
    each(&h.labels, |l| Some(l.object), within, at, known)?;
    each(&h.curation, |c| Some(c.object), within, at, known)?;
    each(&h.grants, |g| g.object, within, at, known)?;
    Ok(())
}

/// The ops that put back an object with what hangs on it.
fn object_ops(r: ObjectRecord, ops: &mut Ops<'_>) -> Result<()> {
    let id = r.object.id;
    ops.push(Op::PutObject(r.object))?;
    for a in r.attributes {
        ops.push(Op::SetAttribute(AttributeValue {
            object: id,
            attribute: a.name,
            value: a.value.into(),
        }))?;
    }
    for e in r.edges {
        ops.push(Op::AddEdge(Edge {
            kind: e.kind,
            source: id,
            target: e.target,
            name: e.name,
            origin: e.origin,
        }))?;
    }
    for t in r.tags {
        ops.push(Op::AddTag(Tag {
            object: id,
            kind: t.kind,
            value: t.value,
        }))?;
    }
    for c in r.classifications {
        ops.push(Op::SetClassification(Classification {
            object: id,
            data_class: c.name,
            status: c.status,
        }))?;
    }
    for l in r.labels {
        ops.push(Op::SetLabelAssignment(LabelAssignment {
            object: id,
            label: l.name,
            status: l.status,
        }))?;
    }
    if r.profile.is_some() || r.sample.is_some() {
        ops.push(Op::SetProfiling(Profiling {
            object: id,
            profile: r.profile,
            sample: r.sample,
        }))?;
    }
    Ok(())
}

/// An attached file, its content decoded and checked against its size and SHA-256.
fn attachment(a: AttachmentRecord, at: impl Fn() -> String) -> Result<Attachment> {
    let info = a.info;
    let content = base64::engine::general_purpose::STANDARD
        .decode(a.content.as_bytes())
        .map_err(|e| bad(format!("{}: the content is not Base64: {e}", at())))?;
    let sha256: String = Sha256::digest(&content)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    if content.len() as u64 != info.size || sha256 != info.sha256 {
        return Err(bad(format!(
            "{}: the content of '{}' does not match its size and SHA-256",
            at(),
            info.name
        )));
    }
    Ok(Attachment { info, content })
}

#[cfg(test)]
mod tests {
    use std::io::{Cursor, Write};

    use zip::write::SimpleFileOptions;

    use super::*;

    fn zip_of(files: &[(&str, Vec<u8>)]) -> Vec<u8> {
        let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
        for (name, data) in files {
            zip.start_file(*name, SimpleFileOptions::default())
                .expect("an entry");
            zip.write_all(data).expect("writing an entry");
        }
        zip.finish().expect("a zip").into_inner()
    }

    fn manifest() -> Vec<u8> {
        serde_json::to_vec(&serde_json::json!({
            "format": "lore-backup", "version": 1, "createdAt": "2026-01-01T00:00:00Z",
            "loreVersion": "0", "backend": "memory", "modelContents": true, "records": {},
        }))
        .expect("JSON")
    }

    fn limits() -> BackupLimits {
        BackupLimits {
            max_line_bytes: 1024,
            max_total_bytes: 1 << 30,
            max_ratio: 2,
            min_total_bytes: 64 << 10,
        }
    }

    fn plan(bytes: Vec<u8>) -> Result<RestorePlan> {
        let mut reader = BackupReader::open(Cursor::new(bytes), limits())?;
        plan_restore(&mut reader, &mut |_| Ok(()))
    }

    #[test]
    fn a_line_longer_than_the_limit_is_refused() {
        let long = vec![b' '; 2048];
        let e =
            plan(zip_of(&[(MANIFEST, manifest()), (files::ROLES, long)])).expect_err("a long line");
        assert!(
            e.message
                .contains("roles.jsonl line 1 is longer than 1024 bytes"),
            "{e}"
        );
    }

    #[test]
    fn inflating_beyond_the_budget_is_refused_as_a_bomb() {
        // Blank lines compress to nothing and inflate far beyond twice the file.
        let bomb = vec![b'\n'; 4 << 20];
        let e =
            plan(zip_of(&[(MANIFEST, manifest()), (files::ROLES, bomb)])).expect_err("a zip bomb");
        assert!(e.message.contains("zip bomb"), "{e}");
    }

    #[test]
    fn an_attachment_must_match_its_hash() {
        let user = br#"{"id":"-1_1","name":"a","full_name":"","email":"","description":"","password_hash":null,"enabled":true,"created_at":"2026-01-01T00:00:00Z"}"#;
        let model = br#"{"object":{"id":"-1_2","kind":"Model","parent":null,"object_type":{"profile":"Repository","name":"Model"},"system_type":"Model","name":"m","physical_name":null,"native_id":null,"stable_id":null,"description":null,"business_name":null,"business_description":null,"data_type":null,"external_url":null,"hide_data":false,"workflow_state":null,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","updated_by":null}}"#;
        let attachment = br#"{"object":"-1_2","name":"a.txt","media_type":"text/plain","size":2,"sha256":"00","created_at":"2026-01-01T00:00:00Z","created_by":"a","content":"aGk="}"#;
        let e = plan(zip_of(&[
            (MANIFEST, manifest()),
            (files::USERS, user.to_vec()),
            (files::OBJECTS, model.to_vec()),
            (files::ATTACHMENTS, attachment.to_vec()),
        ]))
        .expect_err("a wrong hash");
        assert!(
            e.message.contains("does not match its size and SHA-256"),
            "{e}"
        );
    }

    fn manifest_with_history(oldest: i64, newest: i64) -> Vec<u8> {
        let mut manifest: serde_json::Value =
            serde_json::from_slice(&manifest()).expect("the manifest");
        manifest["history"] = serde_json::json!({"oldest": oldest, "newest": newest});
        serde_json::to_vec(&manifest).expect("JSON")
    }

    #[test]
    fn history_outside_its_span_is_refused() {
        let e = plan(zip_of(&[(MANIFEST, manifest_with_history(5, 3))]))
            .expect_err("a span running backwards");
        assert!(e.message.contains("spans versions 5 to 3"), "{e}");
        let user = br#"{"id":"-1_1","name":"a","full_name":"","email":"","description":"","password_hash":null,"enabled":true,"created_at":"2026-01-01T00:00:00Z"}"#.to_vec();
        let revisions = (1..=4)
            .map(|v| format!(r#"{{"version":{v},"at":"2025-12-0{v}T00:00:00Z","author":{{"source":"user","user":null,"operation":null}}}}"#))
            .collect::<Vec<_>>()
            .join("\n")
            .into_bytes();
        let revision = br#"{"version":9,"at":"2026-01-01T00:00:00Z","author":{"source":"user","user":null,"operation":null}}"#;
        let e = plan(zip_of(&[
            (MANIFEST, manifest_with_history(1, 4)),
            (files::USERS, user.clone()),
            (files::REVISIONS, revision.to_vec()),
        ]))
        .expect_err("a revision after the newest");
        assert!(
            e.message
                .contains("revisions.jsonl line 1: version 9 is outside"),
            "{e}"
        );
        // An image current in the backup of an object it does not restore.
        let image = br#"{"object":"5_1","tags":[{"from":2,"to":null,"row":{"object":"5_1","kind":"Label","value":"x"}}]}"#;
        let e = plan(zip_of(&[
            (MANIFEST, manifest_with_history(1, 4)),
            (files::USERS, user.clone()),
            (files::REVISIONS, revisions.clone()),
            (files::HISTORY, image.to_vec()),
        ]))
        .expect_err("a current image of nothing restored");
        assert!(
            e.message.contains("object 5_1, which it does not restore"),
            "{e}"
        );
        let kept = br#"{"object":"5_1","tags":[{"from":2,"to":7,"row":{"object":"5_1","kind":"Label","value":"x"}}]}"#;
        let e = plan(zip_of(&[
            (MANIFEST, manifest_with_history(1, 4)),
            (files::USERS, user.clone()),
            (files::REVISIONS, revisions.clone()),
            (files::HISTORY, kept.to_vec()),
        ]))
        .expect_err("an image replaced after the newest");
        assert!(e.message.contains("version 7 is outside"), "{e}");
        let deleted = br#"{"object":"5_1","tags":[{"from":2,"to":3,"row":{"object":"5_1","kind":"Label","value":"x"}}]}"#;
        plan(zip_of(&[
            (MANIFEST, manifest_with_history(1, 4)),
            (files::USERS, user.clone()),
            (files::REVISIONS, revisions.clone()),
            (files::HISTORY, deleted.to_vec()),
        ]))
        .expect("the kept image of an object deleted since");
        // Versions that are no revision, and revisions out of order or from the future.
        let e = plan(zip_of(&[
            (MANIFEST, manifest_with_history(1, 4)),
            (files::USERS, user.clone()),
            (files::HISTORY, deleted.to_vec()),
        ]))
        .expect_err("an image between no revisions");
        assert!(e.message.contains("version 2 is no revision"), "{e}");
        let backwards = br#"{"version":2,"at":"2025-12-02T00:00:00Z","author":{"source":"user","user":null,"operation":null}}
{"version":3,"at":"2025-12-01T00:00:00Z","author":{"source":"user","user":null,"operation":null}}"#;
        let e = plan(zip_of(&[
            (MANIFEST, manifest_with_history(1, 4)),
            (files::USERS, user.clone()),
            (files::REVISIONS, backwards.to_vec()),
        ]))
        .expect_err("a time going back");
        assert!(e.message.contains("never going back"), "{e}");
        let future = br#"{"version":2,"at":"2026-06-01T00:00:00Z","author":{"source":"user","user":null,"operation":null}}"#;
        let e = plan(zip_of(&[
            (MANIFEST, manifest_with_history(1, 4)),
            (files::USERS, user.clone()),
            (files::REVISIONS, future.to_vec()),
        ]))
        .expect_err("a revision after the backup");
        assert!(e.message.contains("dated after the backup"), "{e}");
    }

    #[test]
    fn an_unknown_parent_is_refused() {
        let user = br#"{"id":"-1_1","name":"a","full_name":"","email":"","description":"","password_hash":null,"enabled":true,"created_at":"2026-01-01T00:00:00Z"}"#;
        let orphan = br#"{"object":{"id":"5_1","kind":"ModelObject","parent":"5_9","object_type":{"profile":"P","name":"T"},"system_type":"Content","name":"o","physical_name":null,"native_id":null,"stable_id":null,"description":null,"business_name":null,"business_description":null,"data_type":null,"external_url":null,"hide_data":false,"workflow_state":null,"created_at":"2026-01-01T00:00:00Z","updated_at":"2026-01-01T00:00:00Z","updated_by":null}}"#;
        let e = plan(zip_of(&[
            (MANIFEST, manifest()),
            (files::USERS, user.to_vec()),
            (files::OBJECTS, orphan.to_vec()),
        ]))
        .expect_err("an orphan");
        assert!(e.message.contains("refers to object 5_9"), "{e}");
    }

    const USER: &[u8] = br#"{"id":"-1_1","name":"a","full_name":"","email":"","description":"","password_hash":null,"enabled":true,"created_at":"2026-01-01T00:00:00Z"}"#;

    #[test]
    fn lineage_records_are_checked_naming_file_and_line() {
        let run = br#"{"runId":"r","jobNamespace":"ns","jobName":"job","state":"START","stateAt":"2026-01-01T00:00:00Z","startedAt":"2026-01-01T00:00:00Z","endedAt":null,"errorMessage":null,"errorAt":null}"#;
        let unknown_state = String::from_utf8_lossy(run).replace("START", "STARTED");
        let runs = [run.to_vec(), b"\n".to_vec(), unknown_state.into_bytes()].concat();
        let e = plan(zip_of(&[
            (MANIFEST, manifest()),
            (files::USERS, USER.to_vec()),
            (files::LINEAGE_RUNS, runs),
        ]))
        .expect_err("an unknown state");
        assert_eq!(e.code, crate::error::ErrorCode::InvalidParameter);
        assert!(e.message.contains("lineage_runs.jsonl line 2"), "{e}");

        let body = r#"{"eventType":"START"}"#;
        let digest = crate::openlineage::digest(body);
        let event = |digest: &str, kind: &str| {
            serde_json::to_vec(&serde_json::json!({
                "digest": digest, "kind": kind, "eventTime": "2026-01-01T00:00:00Z",
                "receivedAt": "2026-01-01T00:00:01Z", "receivedFrom": "a", "runId": "r",
                "eventType": "START", "jobNamespace": "ns", "jobName": "job",
                "errorMessage": null, "body": body,
            }))
            .expect("JSON")
        };
        let planned = plan(zip_of(&[
            (MANIFEST, manifest()),
            (files::USERS, USER.to_vec()),
            (files::LINEAGE_RUNS, run.to_vec()),
            (files::LINEAGE_EVENTS, event(&digest, "run")),
        ]))
        .expect("a sound backup");
        assert_eq!(planned.records.get(files::LINEAGE_RUNS), Some(&1));
        assert_eq!(planned.records.get(files::LINEAGE_EVENTS), Some(&1));
        for (bad_event, says) in [
            (event("00", "run"), "is not the SHA-256 of the event's body"),
            (event(&digest, "Run"), "no event kind 'Run'"),
        ] {
            let e = plan(zip_of(&[
                (MANIFEST, manifest()),
                (files::USERS, USER.to_vec()),
                (files::LINEAGE_EVENTS, bad_event),
            ]))
            .expect_err(says);
            assert!(
                e.message.contains("lineage_events.jsonl line 1") && e.message.contains(says),
                "{e}"
            );
        }
        // A backup without the lineage files (one taken before them) has none.
        let planned = plan(zip_of(&[
            (MANIFEST, manifest()),
            (files::USERS, USER.to_vec()),
        ]))
        .expect("a backup without lineage files");
        assert_eq!(planned.records.get(files::LINEAGE_EVENTS), None);
    }
}
