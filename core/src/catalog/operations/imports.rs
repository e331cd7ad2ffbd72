//! Import operations: a model's import settings (`importModel`), files attached to
//! objects, and imports started in the background (`startImport`) whose progress and log
//! any Lore process over the store can read.
//!
//! An operation runs in the process that started it. While it runs, that process renews
//! its heartbeat; an operation whose heartbeat is older than
//! [`CatalogConfig::operation_stale_after`](crate::catalog::CatalogConfig) lost its process (a
//! crash, a restart) and is marked failed by whichever process sweeps first.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use super::Operations;
use crate::catalog::Catalog;
use crate::catalog::visibility::Visible;

use crate::auth::Caller;
use crate::catalog::objects::model_import::ImportOptions;
use crate::error::{Error, Result};
use crate::id::ObjectRef;
use crate::import::{
    FileUse, ImportEvents, ImportJob, Importers, Level, Progress, check_parameters,
};
use crate::model::{
    Attachment, AttachmentInfo, Capability, ImportSettings, Object, ObjectKind, Operation,
    OperationDetail, OperationFilter, OperationLogLine, OperationProgress, OperationState, now,
};
use crate::store::Op;

/// Most operations one listing answers.
pub const MAX_LISTED: usize = 1_000;

/// What `PUT /repository/importModel` sets.
#[derive(Debug, Clone, Default)]
pub struct ImportModelRequest {
    /// The model to set; a new, empty model is created in `folder` as `name` when absent.
    pub model: Option<ObjectRef>,
    pub folder: Option<ObjectRef>,
    pub name: Option<String>,
    /// The importer's format.
    pub format: String,
    pub parameters: Map<String, Value>,
    /// The attachment of the model the importer reads (the newest when unset).
    pub attachment: Option<String>,
}

impl Operations<'_> {
    /// `PUT /repository/importModel`: sets how `startImport` imports a model, creating the
    /// (empty) model when the request names a folder and a name instead of a model.
    pub async fn set_import_settings(
        &self,
        caller: &Caller,
        request: ImportModelRequest,
    ) -> Result<(Object, ImportSettings)> {
        let (_, format) = self.config.importers.get(&request.format)?;
        check_parameters(format, &request.parameters)?;
        self.config
            .import_reach
            .check(format, &request.parameters)?;
        if let Some(name) = &request.attachment {
            check_file_name(name)?;
        }
        let model = match &request.model {
            Some(_) if request.folder.is_some() || request.name.is_some() => {
                return Err(Error::invalid(
                    "modelId names an existing model and cannot be combined with folderId or modelName",
                ));
            }
            Some(reference) => {
                let model = self.model(caller, reference).await?;
                self.require_on(caller, Capability::Import, &model).await?;
                model.into_object()
            }
            None => self.create_empty_model(caller, &request).await?,
        };
        let settings = ImportSettings {
            model: model.id,
            format: request.format,
            parameters: request.parameters,
            attachment: request.attachment,
            updated_at: now(),
            updated_by: caller.name().to_owned(),
        };
        self.store.put_import_settings(settings.clone()).await?;
        self.harvests.clear();
        Ok((model, settings))
    }

    async fn create_empty_model(
        &self,
        caller: &Caller,
        request: &ImportModelRequest,
    ) -> Result<Object> {
        let name = request
            .name
            .as_deref()
            .filter(|n| !n.trim().is_empty())
            .ok_or_else(|| Error::missing("modelId, or modelName (and folderId) of a new model"))?;
        let model = self
            .unwritten_model(
                caller,
                request.folder.as_ref(),
                name,
                "; pass modelId to set its import",
            )
            .await?;
        self.write(caller.author(), vec![Op::PutObject(model.clone())])
            .await?;
        Ok(model)
    }

    /// `GET /repository/importModel`: a model's import settings. They may hold
    /// credentials, so reading them needs Import on the model, like setting them.
    pub async fn import_settings(
        &self,
        caller: &Caller,
        model: &ObjectRef,
    ) -> Result<(Object, ImportSettings)> {
        let model = self.model(caller, model).await?;
        self.require_on(caller, Capability::Import, &model).await?;
        let settings = self.store.import_settings(model.id).await?.ok_or_else(|| {
            Error::not_found(format!(
                "model {} ('{}') has no import settings; set them with PUT /repository/importModel",
                model.id, model.name
            ))
        })?;
        Ok((model.into_object(), settings))
    }

    /// `POST /repository/attachments/{objectId}`: attaches a file to an object,
    /// replacing its attachment of the same name. Needs Edit Metadata on the object.
    pub async fn attach(
        &self,
        caller: &Caller,
        object: &ObjectRef,
        name: &str,
        media_type: &str,
        content: Vec<u8>,
    ) -> Result<AttachmentInfo> {
        check_file_name(name)?;
        let object = self.find(caller, object).await?;
        self.require_on(caller, Capability::EditMetadata, &object)
            .await?;
        let info = AttachmentInfo {
            object: object.id,
            name: name.to_owned(),
            media_type: media_type.to_owned(),
            size: content.len() as u64,
            sha256: hex(&Sha256::digest(&content)),
            created_at: now(),
            created_by: caller.name().to_owned(),
        };
        self.store
            .put_attachment(Attachment {
                info: info.clone(),
                content,
            })
            .await?;
        Ok(info)
    }

    /// `POST /operations/repositoryImport/downloadModelAttachment`: an attachment of an
    /// object the caller sees (the newest without a name). An attachment is source
    /// content (a CSV file holds rows), so it takes View Data on the object.
    pub async fn attachment(
        &self,
        caller: &Caller,
        object: &ObjectRef,
        name: Option<&str>,
    ) -> Result<Attachment> {
        let object = self.find(caller, object).await?;
        self.require_on(caller, Capability::ViewData, &object)
            .await?;
        self.store
            .attachment(object.id, name)
            .await?
            .ok_or_else(|| match name {
                Some(name) => Error::not_found(format!(
                    "{} ('{}') has no attachment named '{name}'",
                    object.id, object.name
                )),
                None => Error::not_found(format!(
                    "{} ('{}') has no attachment",
                    object.id, object.name
                )),
            })
    }

    /// The attachments of an object the caller sees, newest first.
    pub async fn attachments(
        &self,
        caller: &Caller,
        object: &ObjectRef,
    ) -> Result<Vec<AttachmentInfo>> {
        let object = self.find(caller, object).await?;
        self.store.attachments(object.id).await
    }

    /// `POST /operations/startImport/{contentId}`: starts the import of a model with its
    /// import settings and answers the running operation at once. The import runs in
    /// this process; it writes nothing unless the importer completes and the model it
    /// produced passes the checks of a model archive.
    pub async fn start_import(&self, caller: &Caller, model: &ObjectRef) -> Result<Operation> {
        let model = self.model(caller, model).await?;
        self.require_on(caller, Capability::Import, &model).await?;
        let settings = self.store.import_settings(model.id).await?.ok_or_else(|| {
            Error::invalid(format!(
                "model {} ('{}') has no import settings; set its importer with PUT /repository/importModel",
                model.id, model.name
            ))
        })?;
        let (importer, format) = self.config.importers.get(&settings.format)?;
        // Checked again: the reach may have narrowed since the settings were made.
        self.config
            .import_reach
            .check(format, &settings.parameters)?;
        let (importer, file_use) = (importer.clone(), format.file);
        // One import of a model at a time: a second would race the first's write.
        let running = self
            .store
            .operations(&OperationFilter {
                model: Some(model.id),
                state: Some(OperationState::Running),
                limit: 1,
                ..OperationFilter::default()
            })
            .await?;
        if let Some(other) = running.first() {
            return Err(Error::conflict(format!(
                "model {} ('{}') is being imported by operation {} (started by {} at {}); start again when it has ended",
                model.id,
                model.name,
                other.id,
                other.started_by,
                other
                    .started_at
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            )));
        }
        // The file is read now, so a missing one fails the call, not the operation.
        let file = match file_use {
            FileUse::None => None,
            FileUse::Required | FileUse::Optional => {
                let found = self
                    .store
                    .attachment(model.id, settings.attachment.as_deref())
                    .await?;
                if found.is_none() && file_use == FileUse::Required {
                    return Err(Error::invalid(format!(
                        "format '{}' reads a file, but model {} ('{}') has {}; attach it with POST /repository/attachments/{}",
                        settings.format,
                        model.id,
                        model.name,
                        match &settings.attachment {
                            Some(name) => format!("no attachment named '{name}'"),
                            None => "no attachment".to_owned(),
                        },
                        model.id
                    )));
                }
                found
            }
        };
        let started = now();
        let mut operation = Operation {
            id: 0,
            kind: "import".into(),
            state: OperationState::Running,
            model: Some(model.id),
            started_by: caller.name().to_owned(),
            started_at: started,
            heartbeat_at: started,
            detail: OperationDetail {
                format: settings.format.clone(),
                progress: OperationProgress {
                    phase: "starting".into(),
                    ..OperationProgress::default()
                },
                ..OperationDetail::default()
            },
        };
        operation.id = self.store.insert_operation(operation.clone()).await?;
        self.running(operation.id, true);
        let tracker = Tracker::new(operation.clone());
        let catalog = self.catalog.clone();
        let caller = caller.clone();
        let run = operation.clone();
        tokio::spawn(async move {
            let heartbeat = catalog.config.operation_heartbeat;
            let (stop, stopped) = tokio::sync::oneshot::channel();
            let beating = tokio::spawn(beat(catalog.clone(), tracker.clone(), heartbeat, stopped));
            let outcome = catalog
                .operations()
                .run_import(&caller, &run, &settings, importer, file, &tracker)
                .await;
            // The last beat's write lands before the end is written, never after it.
            let _ = stop.send(());
            let _ = beating.await;
            catalog.operations().finish(&tracker, outcome).await;
            catalog.operations().running(run.id, false);
        });
        Ok(operation)
    }

    async fn run_import(
        &self,
        caller: &Caller,
        operation: &Operation,
        settings: &ImportSettings,
        importer: Arc<dyn crate::import::Importer>,
        file: Option<Attachment>,
        tracker: &Tracker,
    ) -> Result<crate::catalog::objects::model_import::ImportSummary> {
        let work_dir = tempfile::Builder::new()
            .prefix("lore-import-")
            .tempdir()
            .map_err(|e| Error::internal(format!("cannot make a work directory: {e}")))?;
        let file = match file {
            None => None,
            Some(attachment) => {
                let path = work_dir.path().join(&attachment.info.name);
                let content = attachment.content;
                let target = path.clone();
                tokio::task::spawn_blocking(move || std::fs::write(&target, content))
                    .await
                    .map_err(|e| Error::internal(format!("writing the attachment: {e}")))?
                    .map_err(|e| {
                        Error::internal(format!("cannot write {}: {e}", path.display()))
                    })?;
                tracker.log(
                    Level::Info,
                    &format!(
                        "reading attachment '{}' ({} bytes, sha256 {})",
                        attachment.info.name, attachment.info.size, attachment.info.sha256
                    ),
                );
                Some(path)
            }
        };
        let job = ImportJob {
            format: settings.format.clone(),
            file,
            parameters: settings.parameters.clone(),
            work_dir: work_dir.path().to_owned(),
        };
        tracker.phase("running the importer");
        tracker.log(
            Level::Info,
            &format!(
                "importer '{}' {} ({}) reads format '{}'",
                importer.about().name,
                importer.about().version,
                importer.origin(),
                settings.format
            ),
        );
        let mut events = tracker.clone();
        let produced = importer.produce(&job, &mut events).await?;
        tracker.phase("writing the model");
        let options = ImportOptions {
            model: operation.model.map(ObjectRef::Id),
            operation: Some(operation.id),
            ..ImportOptions::default()
        };
        self.objects()
            .import_produced(caller, &produced, &options)
            .await
    }

    /// Records how an operation ended.
    async fn finish(
        &self,
        tracker: &Tracker,
        outcome: Result<crate::catalog::objects::model_import::ImportSummary>,
    ) {
        match outcome {
            Ok(summary) => {
                let message = format!(
                    "imported {} objects into '{}': {} added, {} updated, {} removed, {} unchanged",
                    summary.object_count,
                    summary.model_name,
                    summary.added,
                    summary.updated,
                    summary.removed,
                    summary.unchanged
                );
                tracker.log(Level::Info, &message);
                if summary.breaking > 0 {
                    let more = summary
                        .breaking
                        .saturating_sub(summary.breaking_changes.len());
                    tracker.log(
                        Level::Warn,
                        &format!(
                            "{} breaking change{} against the model's version before: {}{}; \
                             {} object{} downstream (by lineage) may be affected, and their \
                             watchers were told{}",
                            summary.breaking,
                            if summary.breaking == 1 { "" } else { "s" },
                            summary.breaking_changes.join(", "),
                            if more > 0 {
                                format!(" and {more} more")
                            } else {
                                String::new()
                            },
                            summary.downstream,
                            if summary.downstream == 1 { "" } else { "s" },
                            if summary.downstream_truncated {
                                " (the search stopped at its bounds: there may be more)"
                            } else {
                                ""
                            },
                        ),
                    );
                }
                tracker.end(
                    OperationState::Succeeded,
                    message,
                    serde_json::to_value(summary).ok(),
                );
                self.config
                    .operations_ended
                    .count(OperationState::Succeeded);
            }
            Err(error) => {
                // Whoever reads the operation reads this message.
                let message = error.for_client().message;
                tracker.log(Level::Error, &message);
                tracker.end(OperationState::Failed, message.clone(), None);
                self.config.operations_ended.count(OperationState::Failed);
                let (model, started_by) =
                    tracker.with(|t| (t.operation.model, t.operation.started_by.clone()));
                if let Some(model) = model {
                    let note =
                        format!("the import of {model} started by {started_by} failed: {message}");
                    self.notify_import_failed(model, &started_by, note).await;
                }
            }
        }
        // The end must be recorded; retry a store that is briefly away.
        for attempt in 0..5u64 {
            match self.flush(tracker).await {
                Ok(()) => return,
                Err(e) => {
                    tracing::warn!(error = %e, "cannot record the end of an operation; retrying");
                    tokio::time::sleep(Duration::from_millis(200 * (attempt + 1))).await;
                }
            }
        }
    }
}

impl Catalog {
    /// Writes what the tracker gathered: new log lines, progress, heartbeat.
    async fn flush(&self, tracker: &Tracker) -> Result<()> {
        let (operation, lines) = tracker.take();
        if !lines.is_empty() {
            self.store
                .append_operation_log(operation.id, lines.clone())
                .await
                .inspect_err(|_| tracker.put_back(lines))?;
        }
        self.store.update_operation(&operation).await
    }
}

impl Operations<'_> {
    /// `GET /operations/listOperations`: the operations the caller may see, newest
    /// first. Administrators and repository managers see every operation; others see
    /// those they started.
    pub async fn operations(
        &self,
        caller: &Caller,
        mut filter: OperationFilter,
    ) -> Result<Vec<Operation>> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        if !sees_all_operations(caller) {
            filter.started_by = Some(caller.name().to_owned());
        }
        filter.limit = filter.limit.clamp(1, MAX_LISTED);
        self.store.operations(&filter).await
    }

    /// One operation and its log, for `downloadOperationLog`.
    pub async fn operation_log(
        &self,
        caller: &Caller,
        id: i64,
    ) -> Result<(Operation, Vec<OperationLogLine>)> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let operation = self
            .store
            .operation(id)
            .await?
            .filter(|o| sees_all_operations(caller) || o.started_by == caller.name())
            .ok_or_else(|| Error::not_found(format!("operation {id} does not exist")))?;
        let log = self.store.operation_log(id).await?;
        Ok((operation, log))
    }
}

impl Catalog {
    /// Marks failed the running operations whose process stopped renewing their
    /// heartbeat; answers how many.
    pub(crate) async fn fail_interrupted_operations(&self) -> Result<usize> {
        let stale_before = now()
            - chrono::Duration::from_std(self.config.operation_stale_after)
                .unwrap_or(chrono::Duration::MAX);
        let running = self
            .store
            .operations(&OperationFilter {
                state: Some(OperationState::Running),
                limit: MAX_LISTED,
                ..OperationFilter::default()
            })
            .await?;
        let mut failed = 0;
        // What this process runs is alive, whatever its heartbeat says.
        let here = self
            .running_here
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default();
        for mut operation in running
            .into_iter()
            .filter(|o| o.heartbeat_at < stale_before && !here.contains(&o.id))
        {
            let message = format!(
                "interrupted: the Lore process running it stopped (no heartbeat since {})",
                operation
                    .heartbeat_at
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
            );
            let seq = self
                .store
                .operation_log(operation.id)
                .await?
                .last()
                .map_or(1, |l| l.seq + 1);
            self.store
                .append_operation_log(
                    operation.id,
                    vec![OperationLogLine {
                        seq,
                        at: now(),
                        level: "ERROR".into(),
                        message: message.clone(),
                    }],
                )
                .await?;
            operation.state = OperationState::Failed;
            operation.detail.message = message;
            operation.detail.finished_at = Some(now());
            self.store.update_operation(&operation).await?;
            self.config.operations_ended.count(OperationState::Failed);
            failed += 1;
        }
        Ok(failed)
    }
}

impl<'c> Operations<'c> {
    /// Notes that this process runs (or no longer runs) an operation.
    fn running(&self, id: i64, running: bool) {
        if let Ok(mut here) = self.running_here.lock() {
            if running {
                here.insert(id);
            } else {
                here.remove(&id);
            }
        }
    }

    /// The importers of this server, for `GET /repository/importers`; what did not load
    /// is shown to administrators only.
    pub fn importers(&self, caller: &Caller) -> Result<(&'c Importers, bool)> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        Ok((
            &self.catalog.config.importers,
            caller.has(Capability::Administer),
        ))
    }

    /// The id of an object the caller sees, for filters such as listOperations' model.
    pub async fn object_id(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
    ) -> Result<crate::id::ObjectId> {
        Ok(self.find(caller, reference).await?.id)
    }

    async fn model(&self, caller: &Caller, reference: &ObjectRef) -> Result<Visible> {
        let model = self.find(caller, reference).await?;
        if model.kind != ObjectKind::Model {
            return Err(Error::invalid(format!(
                "{} ('{}') is not a model",
                model.id, model.name
            )));
        }
        Ok(model)
    }
}

fn sees_all_operations(caller: &Caller) -> bool {
    caller.has(Capability::Administer) || caller.has(Capability::ManageRepository)
}

/// File names of attachments: a plain name, no path.
fn check_file_name(name: &str) -> Result<()> {
    let bad = name.trim().is_empty()
        || name.len() > 255
        || name.contains(['/', '\\', '\0'])
        || name == "."
        || name == "..";
    if bad {
        return Err(Error::invalid(format!(
            "attachment name '{name}' must be a plain file name (no '/', '\\', or '..'; at most 255 bytes)"
        )));
    }
    Ok(())
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// Renews a running operation's heartbeat and writes its log and progress, until told
/// to stop.
async fn beat(
    catalog: Catalog,
    tracker: Tracker,
    every: Duration,
    mut stop: tokio::sync::oneshot::Receiver<()>,
) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(every) => {}
            _ = &mut stop => return,
        }
        tracker.touch();
        if let Err(e) = catalog.flush(&tracker).await {
            tracing::warn!(error = %e, "cannot record an operation's progress");
        }
    }
}

/// A running operation as it changes, and its log lines not yet written.
#[derive(Debug, Clone)]
struct Tracker(Arc<Mutex<Tracked>>);

#[derive(Debug)]
struct Tracked {
    operation: Operation,
    pending: Vec<OperationLogLine>,
    next_seq: i64,
    /// Lines dropped beyond [`MAX_LOG_LINES`].
    dropped: u64,
}

/// Most lines one operation's log keeps: a plugin may print without end.
const MAX_LOG_LINES: i64 = 10_000;

impl Tracker {
    fn new(operation: Operation) -> Self {
        Self(Arc::new(Mutex::new(Tracked {
            operation,
            pending: Vec::new(),
            next_seq: 1,
            dropped: 0,
        })))
    }

    fn with<T>(&self, f: impl FnOnce(&mut Tracked) -> T) -> T {
        let mut guard = self
            .0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        f(&mut guard)
    }

    fn log(&self, level: Level, message: &str) {
        self.with(|t| {
            if t.next_seq > MAX_LOG_LINES && level != Level::Error {
                t.dropped += 1;
                return;
            }
            let level = match level {
                Level::Info => "INFO",
                Level::Warn => "WARN",
                Level::Error => "ERROR",
            };
            t.pending.push(OperationLogLine {
                seq: t.next_seq,
                at: now(),
                level: level.into(),
                message: message.chars().take(4_000).collect(),
            });
            t.next_seq += 1;
        });
    }

    fn phase(&self, phase: &str) {
        self.with(|t| {
            t.operation.detail.progress = OperationProgress {
                phase: phase.to_owned(),
                ..OperationProgress::default()
            };
        });
    }

    fn touch(&self) {
        self.with(|t| t.operation.heartbeat_at = now());
    }

    fn end(&self, state: OperationState, message: String, result: Option<Value>) {
        self.log_dropped();
        self.with(|t| {
            let at = now();
            t.operation.state = state;
            t.operation.heartbeat_at = at;
            t.operation.detail.finished_at = Some(at);
            t.operation.detail.message = message;
            t.operation.detail.result = result;
            t.operation.detail.progress.phase = "finished".into();
        });
    }

    fn log_dropped(&self) {
        let dropped = self.with(|t| std::mem::take(&mut t.dropped));
        if dropped > 0 {
            self.with(|t| {
                t.pending.push(OperationLogLine {
                    seq: t.next_seq,
                    at: now(),
                    level: "WARN".into(),
                    message: format!("{dropped} more log lines were dropped"),
                });
                t.next_seq += 1;
            });
        }
    }

    /// The operation as it is now and the lines to write.
    fn take(&self) -> (Operation, Vec<OperationLogLine>) {
        self.with(|t| (t.operation.clone(), std::mem::take(&mut t.pending)))
    }

    /// Lines a failed write did not write, to try again.
    fn put_back(&self, mut lines: Vec<OperationLogLine>) {
        self.with(|t| {
            lines.append(&mut t.pending);
            t.pending = lines;
        });
    }
}

impl ImportEvents for Tracker {
    fn log(&mut self, level: Level, message: &str) {
        Tracker::log(self, level, message);
    }

    fn progress(&mut self, progress: &Progress) {
        self.with(|t| {
            let phase = std::mem::take(&mut t.operation.detail.progress.phase);
            t.operation.detail.progress = OperationProgress {
                phase,
                done: progress.done,
                total: progress.total,
                unit: progress.unit.clone(),
            };
        });
    }
}
