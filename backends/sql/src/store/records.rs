//! [`SqlStore`]'s record roles ([`RecordStore`](lore_core::store::RecordStore)), one
//! block per concern: documents, worksheets, OpenLineage events with their runs,
//! curation, operations with import settings, attachments and the system log, and
//! notifications with their deliveries.

use async_trait::async_trait;
use lore_core::model::*;
use lore_core::mql::plan::Page;
use lore_core::store::{
    Batch, GovernanceRecords, LineageRecords, NotificationRecords, ObjectRecords, Op,
    OperationRecords, SearchRecords, StoreBase, micros, prepare_log_entry, prepare_log_line,
    prepare_operation,
};
use lore_core::{Error, ObjectId, Result};

use super::{SqlStore, id_pairs};
use crate::driver::{Driver, Stmt, Table};
use crate::read::{self, worksheet_columns};
use crate::value::{ColType, Row, SqlValue};
use crate::write::{Context, Pending, operation_params};

/// The system log as the bulk path writes it (`id` is the database's own).
static SYSTEM_LOG: Table = Table {
    name: "system_log",
    columns: &[
        ("at", ColType::Int),
        ("user_name", ColType::Text),
        ("address", ColType::Text),
        ("method", ColType::Text),
        ("path", ColType::Text),
        ("status", ColType::Int),
        ("duration_ms", ColType::Int),
        ("size", ColType::Int),
    ],
    derived: &[],
    join: "",
    on_conflict: "",
};

/// The columns of a system log read, in [`SYSTEM_LOG`]'s order.
const SYSTEM_LOG_COLUMNS: &str = "at, user_name, address, method, path, status, duration_ms, size";

/// The `WHERE` clause of a system log filter and its parameters (numbered from 1).
fn log_filter(filter: &SystemLogFilter) -> (String, Vec<SqlValue>) {
    let mut conditions = Vec::new();
    let mut params: Vec<SqlValue> = Vec::new();
    let param = |value: SqlValue, params: &mut Vec<SqlValue>| {
        params.push(value);
        params.len()
    };
    if let Some(user) = &filter.user {
        let n = param(user.as_str().into(), &mut params);
        conditions.push(format!("user_name = ${n}"));
    }
    if let Some(method) = &filter.method {
        let n = param(method.as_str().into(), &mut params);
        conditions.push(format!("method = ${n}"));
    }
    if let Some(prefix) = &filter.path_prefix {
        // A range the path index serves (paths are ASCII, so no path that starts with
        // the prefix sorts after prefix + U+10FFFF), then the exact test.
        let n = param(prefix.as_str().into(), &mut params);
        let end = param(format!("{prefix}\u{10FFFF}").into(), &mut params);
        conditions.push(format!(
            "path >= ${n} AND path < ${end} AND substr(path, 1, length(${n})) = ${n}"
        ));
    }
    if let Some(status) = filter.status {
        let n = param(i64::from(status).into(), &mut params);
        conditions.push(format!("status = ${n}"));
    }
    if let Some(from) = filter.from {
        let n = param(from.into(), &mut params);
        conditions.push(format!("at >= ${n}"));
    }
    if let Some(to) = filter.to {
        let n = param(to.into(), &mut params);
        conditions.push(format!("at <= ${n}"));
    }
    if conditions.is_empty() {
        (String::new(), params)
    } else {
        (format!(" WHERE {}", conditions.join(" AND ")), params)
    }
}

/// The columns of an operation read, in [`operation`]'s order.
const OPERATION_COLUMNS: &str =
    "id, kind, state, model_id, object_id, started_by, started_at, heartbeat_at, detail";

fn operation(mut row: Row) -> Result<Operation> {
    const TABLE: &str = "operations";
    let state = row.text(2, TABLE)?;
    let model = match (row.opt_int(3, TABLE)?, row.opt_int(4, TABLE)?) {
        (Some(model), Some(object)) => Some(ObjectId::new(model, object)),
        _ => None,
    };
    let detail = row.text(8, TABLE)?;
    Ok(Operation {
        id: row.int(0, TABLE)?,
        kind: row.text(1, TABLE)?,
        state: OperationState::parse(&state).ok_or_else(|| {
            Error::internal(format!("table {TABLE} holds the unknown state '{state}'"))
        })?,
        model,
        started_by: row.text(5, TABLE)?,
        started_at: row.timestamp(6, TABLE)?,
        heartbeat_at: row.timestamp(7, TABLE)?,
        detail: serde_json::from_str(&detail).map_err(|e| {
            Error::internal(format!(
                "table {TABLE} holds a detail that does not read: {e}"
            ))
        })?,
    })
}

/// The parameters of an operation's columns after `id`, in [`OPERATION_COLUMNS`] order.
const ATTACHMENT_INFO_COLUMNS: &str =
    "model_id, object_id, name, media_type, size, sha256, created_at, created_by";

fn attachment_info(mut row: Row) -> Result<AttachmentInfo> {
    const TABLE: &str = "attachments";
    Ok(AttachmentInfo {
        object: ObjectId::new(row.int(0, TABLE)?, row.int(1, TABLE)?),
        name: row.text(2, TABLE)?,
        media_type: row.text(3, TABLE)?,
        size: u64::try_from(row.int(4, TABLE)?).unwrap_or(0),
        sha256: row.text(5, TABLE)?,
        created_at: row.timestamp(6, TABLE)?,
        created_by: row.text(7, TABLE)?,
    })
}

/// A system log entry from a row of [`SYSTEM_LOG_COLUMNS`].
fn log_entry(mut row: Row) -> Result<SystemLogEntry> {
    const TABLE: &str = "system_log";
    let unsigned =
        |row: &Row, i: usize| -> Result<u64> { Ok(u64::try_from(row.int(i, TABLE)?).unwrap_or(0)) };
    Ok(SystemLogEntry {
        time: row.timestamp(0, TABLE)?,
        user: row.text(1, TABLE)?,
        address: row.text(2, TABLE)?,
        method: row.text(3, TABLE)?,
        path: row.text(4, TABLE)?,
        status: u16::try_from(row.int(5, TABLE)?).unwrap_or(0),
        duration_ms: unsigned(&row, 6)?,
        size: unsigned(&row, 7)?,
    })
}

#[async_trait]
impl<D: Driver> ObjectRecords for SqlStore<D> {
    async fn document(
        &self,
        kind: DocumentKind,
        owner: Option<ObjectId>,
        name: &str,
    ) -> Result<Option<Document>> {
        let (owner_model, owner_object) = crate::write::owner_key(owner);
        let rows = self
            .rows(
                "SELECT kind, owner_model, owner_object, name, body, updated_at, updated_by_model, \
                 updated_by_object FROM documents \
                 WHERE kind = $1 AND owner_model = $2 AND owner_object = $3 AND name = $4",
                vec![
                    kind.as_str().into(),
                    owner_model.into(),
                    owner_object.into(),
                    name.into(),
                ],
                "documents",
            )
            .await?;
        read::first(rows, read::document)
    }

    async fn documents(&self, kind: DocumentKind) -> Result<Vec<Document>> {
        let rows = self
            .rows(
                "SELECT kind, owner_model, owner_object, name, body, updated_at, updated_by_model, \
                 updated_by_object FROM documents WHERE kind = $1 \
                 ORDER BY owner_model, owner_object, name",
                vec![kind.as_str().into()],
                "documents",
            )
            .await?;
        read::all(rows, read::document)
    }
}

#[async_trait]
impl<D: Driver> SearchRecords for SqlStore<D> {
    async fn worksheet(&self, id: ObjectId) -> Result<Option<Worksheet>> {
        let rows = self
            .rows(
                concat!(
                    "SELECT ",
                    worksheet_columns!(),
                    " FROM worksheets WHERE model_id = $1 AND object_id = $2"
                ),
                vec![id.model.into(), id.object.into()],
                "worksheets",
            )
            .await?;
        read::first(rows, read::worksheet)
    }

    async fn worksheet_by_name(&self, owner: ObjectId, name: &str) -> Result<Option<Worksheet>> {
        let rows = self
            .rows(
                concat!(
                    "SELECT ",
                    worksheet_columns!(),
                    " FROM worksheets WHERE owner_model = $1 AND owner_object = $2 AND name_key = $3"
                ),
                vec![
                    owner.model.into(),
                    owner.object.into(),
                    Worksheet::name_key(name).into(),
                ],
                "worksheets",
            )
            .await?;
        read::first(rows, read::worksheet)
    }

    async fn worksheets(&self, owner: Option<ObjectId>) -> Result<Vec<Worksheet>> {
        let rows = match owner {
            Some(owner) => {
                self.rows(
                    concat!(
                        "SELECT ",
                        worksheet_columns!(),
                        " FROM worksheets WHERE owner_model = $1 AND owner_object = $2 \
                         ORDER BY name, model_id, object_id"
                    ),
                    vec![owner.model.into(), owner.object.into()],
                    "worksheets",
                )
                .await?
            }
            None => {
                self.rows(
                    concat!(
                        "SELECT ",
                        worksheet_columns!(),
                        " FROM worksheets ORDER BY name, model_id, object_id"
                    ),
                    Vec::new(),
                    "worksheets",
                )
                .await?
            }
        };
        read::all(rows, read::worksheet)
    }
}

#[async_trait]
impl<D: Driver> LineageRecords for SqlStore<D> {
    async fn lineage_run(&self, run_id: &str) -> Result<Option<LineageRun>> {
        let sql = format!(
            "SELECT {} FROM lineage_runs WHERE run_id = $1",
            read::LINEAGE_RUN_COLUMNS
        );
        let rows = self
            .short_rows(Stmt::query(sql, vec![run_id.into()]), "lineage_runs")
            .await?;
        read::first(rows, read::lineage_run)
    }

    async fn lineage_runs(&self, filter: &RunFilter) -> Result<Vec<LineageRun>> {
        let mut conditions = Vec::new();
        let mut params: Vec<SqlValue> = Vec::new();
        if let Some(namespace) = &filter.job_namespace {
            params.push(namespace.as_str().into());
            conditions.push(format!("job_namespace = ${}", params.len()));
        }
        if let Some(name) = &filter.job_name {
            params.push(name.as_str().into());
            conditions.push(format!("job_name = ${}", params.len()));
        }
        let conditions = if conditions.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", conditions.join(" AND "))
        };
        let limit = if filter.limit == 0 {
            String::new()
        } else {
            params.push(i64::try_from(filter.limit).unwrap_or(i64::MAX).into());
            format!(" LIMIT ${}", params.len())
        };
        let sql = format!(
            "SELECT {} FROM lineage_runs{conditions} ORDER BY state_at DESC, run_id DESC{limit}",
            read::LINEAGE_RUN_COLUMNS
        );
        let rows = self
            .rows_of(Stmt::query(sql, params), "lineage_runs")
            .await?;
        read::all(rows, read::lineage_run)
    }

    async fn lineage_events(&self, run_id: &str) -> Result<Vec<LineageEvent>> {
        let sql = format!(
            "SELECT {} FROM lineage_events WHERE run_id = $1 ORDER BY event_time, digest",
            read::LINEAGE_EVENT_COLUMNS
        );
        let rows = self
            .rows_of(Stmt::query(sql, vec![run_id.into()]), "lineage_events")
            .await?;
        read::all(rows, read::lineage_event)
    }

    async fn lineage_event(&self, digest: &str) -> Result<Option<LineageEvent>> {
        let sql = format!(
            "SELECT {} FROM lineage_events WHERE digest = $1",
            read::LINEAGE_EVENT_COLUMNS
        );
        let rows = self
            .short_rows(Stmt::query(sql, vec![digest.into()]), "lineage_events")
            .await?;
        read::first(rows, read::lineage_event)
    }

    async fn lineage_runs_page(&self, after_run_id: &str, limit: usize) -> Result<Vec<LineageRun>> {
        let sql = format!(
            "SELECT {} FROM lineage_runs WHERE run_id > $1 ORDER BY run_id LIMIT $2",
            read::LINEAGE_RUN_COLUMNS
        );
        let params = vec![
            after_run_id.into(),
            i64::try_from(limit).unwrap_or(i64::MAX).into(),
        ];
        let rows = self
            .rows_of(Stmt::query(sql, params), "lineage_runs")
            .await?;
        read::all(rows, read::lineage_run)
    }

    async fn lineage_events_page(
        &self,
        after_digest: &str,
        limit: usize,
    ) -> Result<Vec<LineageEvent>> {
        let sql = format!(
            "SELECT {} FROM lineage_events WHERE digest > $1 ORDER BY digest LIMIT $2",
            read::LINEAGE_EVENT_COLUMNS
        );
        let params = vec![
            after_digest.into(),
            i64::try_from(limit).unwrap_or(i64::MAX).into(),
        ];
        let rows = self
            .rows_of(Stmt::query(sql, params), "lineage_events")
            .await?;
        read::all(rows, read::lineage_event)
    }

    async fn purge_lineage_events(&self, received_before: Timestamp) -> Result<u64> {
        self.write_one(
            "DELETE FROM lineage_events WHERE received_at < $1",
            vec![received_before.into()],
            "purging lineage events",
        )
        .await
    }
}

#[async_trait]
impl<D: Driver> GovernanceRecords for SqlStore<D> {
    async fn curation(&self, object: ObjectId) -> Result<Vec<Curation>> {
        let rows = self
            .rows(
                "SELECT id, model_id, object_id, kind, user_model, user_object, body, at FROM curation \
                 WHERE model_id = $1 AND object_id = $2 ORDER BY kind, at, id",
                vec![object.model.into(), object.object.into()],
                "curation",
            )
            .await?;
        read::all(rows, read::curation)
    }

    async fn curation_of(&self, objects: &[ObjectId]) -> Result<Vec<Curation>> {
        if objects.is_empty() {
            return Ok(Vec::new());
        }
        let sql = format!(
            "SELECT c.id, c.model_id, c.object_id, c.kind, c.user_model, c.user_object, c.body, c.at \
             FROM curation c JOIN ({}) s ON s.model_id = c.model_id AND s.object_id = c.object_id \
             ORDER BY c.model_id, c.object_id, c.kind, c.at, c.id",
            D::DIALECT.id_pairs(1)
        );
        let rows = self
            .rows_of(Stmt::query(sql, vec![id_pairs(objects)]), "curation")
            .await?;
        read::all(rows, read::curation)
    }

    async fn curation_page(&self, after: i64, limit: usize) -> Result<Vec<Curation>> {
        let rows = self
            .rows(
                "SELECT id, model_id, object_id, kind, user_model, user_object, body, at FROM curation \
                 WHERE id > $1 ORDER BY id LIMIT $2",
                vec![after.into(), i64::try_from(limit).unwrap_or(i64::MAX).into()],
                "curation",
            )
            .await?;
        read::all(rows, read::curation)
    }

    async fn curation_entry(&self, id: i64) -> Result<Option<Curation>> {
        let rows = self
            .rows(
                "SELECT id, model_id, object_id, kind, user_model, user_object, body, at FROM curation \
                 WHERE id = $1",
                vec![id.into()],
                "curation",
            )
            .await?;
        read::first(rows, read::curation)
    }
}

#[async_trait]
impl<D: Driver> OperationRecords for SqlStore<D> {
    async fn append_system_log(&self, entries: Vec<SystemLogEntry>) -> Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        let count = entries.len();
        let rows = entries
            .into_iter()
            .map(|mut e| {
                prepare_log_entry(&mut e);
                let clamp = |n: u64| i64::try_from(n).unwrap_or(i64::MAX);
                vec![
                    e.time.into(),
                    e.user.into(),
                    e.address.into(),
                    e.method.into(),
                    e.path.into(),
                    i64::from(e.status).into(),
                    clamp(e.duration_ms).into(),
                    clamp(e.size).into(),
                ]
            })
            .collect();
        let mut pending = Pending::default();
        pending.push(
            Stmt::Insert {
                table: &SYSTEM_LOG,
                rows,
            },
            Context {
                what: format!("appending {count} system log entries").into(),
                on_unique: None,
            },
        );
        self.write_now(pending).await?;
        Ok(())
    }

    async fn system_log(
        &self,
        filter: &SystemLogFilter,
        page: Page,
    ) -> Result<Vec<SystemLogEntry>> {
        let (conditions, mut params) = log_filter(filter);
        let limit = params.len() + 1;
        let offset = params.len() + 2;
        params.push(i64::try_from(page.limit).unwrap_or(i64::MAX).into());
        params.push(i64::try_from(page.offset).unwrap_or(i64::MAX).into());
        let sql = format!(
            "SELECT {SYSTEM_LOG_COLUMNS} FROM system_log{conditions} \
             ORDER BY at DESC, id DESC LIMIT ${limit} OFFSET ${offset}"
        );
        let rows = self
            .rows_of(Stmt::query(sql, params), "the system log")
            .await?;
        read::all(rows, log_entry)
    }

    async fn count_system_log(&self, filter: &SystemLogFilter) -> Result<u64> {
        let (conditions, params) = log_filter(filter);
        let sql = format!("SELECT COUNT(*) FROM system_log{conditions}");
        let rows = self
            .rows_of(Stmt::query(sql, params), "the system log")
            .await?;
        let count = rows
            .first()
            .map(|r| r.int(0, "system_log"))
            .transpose()?
            .unwrap_or(0);
        Ok(u64::try_from(count).unwrap_or(0))
    }

    async fn purge_system_log(&self, before: Timestamp) -> Result<u64> {
        self.write_one(
            "DELETE FROM system_log WHERE at < $1",
            vec![before.into()],
            "purging the system log",
        )
        .await
    }

    async fn insert_operation(&self, mut operation: Operation) -> Result<i64> {
        operation.id = self.reserve_ids(OPERATION_IDS, 1).await?;
        let id = operation.id;
        self.apply(Batch::from(vec![Op::PutOperation(operation)]))
            .await?;
        Ok(id)
    }

    async fn update_operation(&self, operation: &Operation) -> Result<()> {
        let mut operation = operation.clone();
        prepare_operation(&mut operation)?;
        let mut params = operation_params(&operation)?;
        params.push(operation.id.into());
        let mut pending = Pending::default();
        pending.push(
            Stmt::exec(
                "UPDATE operations SET kind = $1, state = $2, model_id = $3, object_id = $4, \
                 started_by = $5, started_at = $6, heartbeat_at = $7, detail = $8 WHERE id = $9",
                params,
            ),
            Context::of(format!("updating operation {}", operation.id)),
        );
        let changed = self
            .write_now(pending)
            .await?
            .first()
            .map_or(0, |o| o.affected);
        if changed == 0 {
            return Err(Error::not_found(format!(
                "operation {} does not exist",
                operation.id
            )));
        }
        Ok(())
    }

    async fn operation(&self, id: i64) -> Result<Option<Operation>> {
        let rows = self
            .rows_of(
                Stmt::query(
                    format!("SELECT {OPERATION_COLUMNS} FROM operations WHERE id = $1"),
                    vec![id.into()],
                ),
                "operations",
            )
            .await?;
        read::first(rows, operation)
    }

    async fn operations(&self, filter: &OperationFilter) -> Result<Vec<Operation>> {
        let mut conditions = Vec::new();
        let mut params: Vec<SqlValue> = Vec::new();
        if let Some(model) = filter.model {
            params.push(model.model.into());
            params.push(model.object.into());
            conditions.push(format!(
                "model_id = ${} AND object_id = ${}",
                params.len() - 1,
                params.len()
            ));
        }
        if let Some(state) = filter.state {
            params.push(state.as_str().into());
            conditions.push(format!("state = ${}", params.len()));
        }
        if let Some(user) = &filter.started_by {
            params.push(user.as_str().into());
            conditions.push(format!("started_by = ${}", params.len()));
        }
        params.push(i64::try_from(filter.limit).unwrap_or(i64::MAX).into());
        let conditions = if conditions.is_empty() {
            String::new()
        } else {
            format!(" WHERE {}", conditions.join(" AND "))
        };
        let sql = format!(
            "SELECT {OPERATION_COLUMNS} FROM operations{conditions} ORDER BY id DESC LIMIT ${}",
            params.len()
        );
        let rows = self.rows_of(Stmt::query(sql, params), "operations").await?;
        read::all(rows, operation)
    }

    async fn append_operation_log(
        &self,
        operation: i64,
        lines: Vec<OperationLogLine>,
    ) -> Result<()> {
        if lines.is_empty() {
            return Ok(());
        }
        let mut pending = Pending::default();
        for mut line in lines {
            prepare_log_line(&mut line);
            pending.push(
                Stmt::exec(
                    "INSERT INTO operation_log (operation_id, seq, at, level, message) \
                     VALUES ($1, $2, $3, $4, $5)",
                    vec![
                        operation.into(),
                        line.seq.into(),
                        line.at.into(),
                        line.level.into(),
                        line.message.into(),
                    ],
                ),
                Context {
                    what: format!("appending to the log of operation {operation}").into(),
                    on_unique: Some(format!(
                        "line {} of the log of operation {operation} exists already",
                        line.seq
                    )),
                },
            );
        }
        self.write_now(pending).await?;
        Ok(())
    }

    async fn operation_log(&self, operation: i64) -> Result<Vec<OperationLogLine>> {
        let rows = self
            .rows_of(
                Stmt::query(
                    "SELECT seq, at, level, message FROM operation_log WHERE operation_id = $1 ORDER BY seq",
                    vec![operation.into()],
                ),
                "operation_log",
            )
            .await?;
        read::all(rows, |mut row| {
            const TABLE: &str = "operation_log";
            Ok(OperationLogLine {
                seq: row.int(0, TABLE)?,
                at: row.timestamp(1, TABLE)?,
                level: row.text(2, TABLE)?,
                message: row.text(3, TABLE)?,
            })
        })
    }

    async fn put_import_settings(&self, settings: ImportSettings) -> Result<()> {
        self.apply(Batch::from(vec![Op::PutImportSettings(settings)]))
            .await
    }

    async fn import_settings(&self, model: ObjectId) -> Result<Option<ImportSettings>> {
        let rows = self
            .rows_of(
                Stmt::query(
                    "SELECT format, parameters, attachment, updated_at, updated_by FROM import_settings \
                     WHERE model_id = $1 AND object_id = $2",
                    vec![model.model.into(), model.object.into()],
                ),
                "import_settings",
            )
            .await?;
        rows.into_iter()
            .next()
            .map(|mut row| {
                const TABLE: &str = "import_settings";
                let parameters = row.text(1, TABLE)?;
                Ok(ImportSettings {
                    model,
                    format: row.text(0, TABLE)?,
                    parameters: serde_json::from_str(&parameters).map_err(|e| {
                        Error::internal(format!(
                            "table {TABLE} holds parameters that do not read: {e}"
                        ))
                    })?,
                    attachment: row.opt_text(2, TABLE)?,
                    updated_at: row.timestamp(3, TABLE)?,
                    updated_by: row.text(4, TABLE)?,
                })
            })
            .transpose()
    }

    async fn put_attachment(&self, attachment: Attachment) -> Result<()> {
        self.apply(Batch::from(vec![Op::PutAttachment(attachment)]))
            .await
    }

    async fn attachment(&self, object: ObjectId, name: Option<&str>) -> Result<Option<Attachment>> {
        let mut params = vec![SqlValue::from(object.model), object.object.into()];
        let which = match name {
            Some(name) => {
                params.push(name.into());
                "AND name = $3"
            }
            None => "ORDER BY created_at DESC, name LIMIT 1",
        };
        let rows = self
            .rows_of(
                Stmt::query(
                    format!(
                        "SELECT {ATTACHMENT_INFO_COLUMNS}, content FROM attachments \
                         WHERE model_id = $1 AND object_id = $2 {which}"
                    ),
                    params,
                ),
                "attachments",
            )
            .await?;
        read::first(rows, |mut row| {
            use base64::Engine;
            let content = row.text(8, "attachments")?;
            let content = base64::engine::general_purpose::STANDARD
                .decode(content)
                .map_err(|e| {
                    Error::internal(format!("an attachment's content does not read: {e}"))
                })?;
            Ok(Attachment {
                info: attachment_info(row)?,
                content,
            })
        })
    }

    async fn attachments(&self, object: ObjectId) -> Result<Vec<AttachmentInfo>> {
        let rows = self
            .rows_of(
                Stmt::query(
                    format!(
                        "SELECT {ATTACHMENT_INFO_COLUMNS} FROM attachments \
                         WHERE model_id = $1 AND object_id = $2 ORDER BY created_at DESC, name"
                    ),
                    vec![object.model.into(), object.object.into()],
                ),
                "attachments",
            )
            .await?;
        read::all(rows, attachment_info)
    }

    async fn all_attachments(&self) -> Result<Vec<AttachmentInfo>> {
        let rows = self
            .rows_of(
                Stmt::query(
                    format!(
                        "SELECT {ATTACHMENT_INFO_COLUMNS} FROM attachments \
                         ORDER BY model_id, object_id, name"
                    ),
                    Vec::new(),
                ),
                "attachments",
            )
            .await?;
        read::all(rows, attachment_info)
    }
}

#[async_trait]
impl<D: Driver> NotificationRecords for SqlStore<D> {
    async fn notifications(
        &self,
        user: ObjectId,
        unread_only: bool,
        limit: u32,
    ) -> Result<Vec<Notification>> {
        // Unread only: `is_read` must be false; otherwise false or true.
        let sql = "SELECT id, user_model, user_object, kind, model_id, object_id, message, at, is_read \
             FROM notifications WHERE user_model = $1 AND user_object = $2 AND is_read IN ($3, $4) \
             ORDER BY at DESC, id DESC LIMIT $5";
        let rows = self
            .rows(
                sql,
                vec![
                    user.model.into(),
                    user.object.into(),
                    false.into(),
                    (!unread_only).into(),
                    i64::from(limit).into(),
                ],
                "notifications",
            )
            .await?;
        read::all(rows, read::notification)
    }

    async fn claim_deliveries(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        limit: usize,
    ) -> Result<Vec<Delivery>> {
        // A claim that lost a race re-reads the row, which is no longer due, and skips it.
        let mut pending = Pending::default();
        pending.push(
            Stmt::query(
                format!(
                    "UPDATE deliveries SET next_attempt_at = $2 WHERE id IN \
                     (SELECT id FROM deliveries WHERE state = 'PENDING' AND next_attempt_at <= $1 \
                     ORDER BY next_attempt_at, id LIMIT $3) \
                     AND state = 'PENDING' AND next_attempt_at <= $1 RETURNING {}",
                    read::DELIVERY_COLUMNS
                ),
                vec![
                    micros(now).into(),
                    micros(lease_until).into(),
                    i64::try_from(limit).unwrap_or(i64::MAX).into(),
                ],
            ),
            Context::of("claiming due deliveries"),
        );
        let rows = self
            .write_now(pending)
            .await?
            .into_iter()
            .next()
            .map(|o| o.rows)
            .unwrap_or_default();
        let mut claimed = read::all(rows, read::delivery)?;
        // Their due times are all `lease_until` now: the order is the ids'.
        claimed.sort_by_key(|d| d.id);
        Ok(claimed)
    }

    async fn deliveries(
        &self,
        state: Option<DeliveryState>,
        limit: usize,
    ) -> Result<Vec<Delivery>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = match state {
            Some(state) => {
                self.rows_of(
                    Stmt::query(
                        format!(
                            "SELECT {} FROM deliveries WHERE state = $1 ORDER BY id DESC LIMIT $2",
                            read::DELIVERY_COLUMNS
                        ),
                        vec![state.as_str().into(), limit.into()],
                    ),
                    "deliveries",
                )
                .await?
            }
            None => {
                self.rows_of(
                    Stmt::query(
                        format!(
                            "SELECT {} FROM deliveries ORDER BY id DESC LIMIT $1",
                            read::DELIVERY_COLUMNS
                        ),
                        vec![limit.into()],
                    ),
                    "deliveries",
                )
                .await?
            }
        };
        read::all(rows, read::delivery)
    }

    async fn notifications_page(&self, after: i64, limit: usize) -> Result<Vec<Notification>> {
        let rows = self
            .rows(
                "SELECT id, user_model, user_object, kind, model_id, object_id, message, at, is_read \
                 FROM notifications WHERE id > $1 ORDER BY id LIMIT $2",
                vec![after.into(), i64::try_from(limit).unwrap_or(i64::MAX).into()],
                "notifications",
            )
            .await?;
        read::all(rows, read::notification)
    }

    async fn notification(&self, id: i64) -> Result<Option<Notification>> {
        let rows = self
            .rows(
                "SELECT id, user_model, user_object, kind, model_id, object_id, message, at, is_read \
                 FROM notifications WHERE id = $1",
                vec![id.into()],
                "notifications",
            )
            .await?;
        read::first(rows, read::notification)
    }
}
