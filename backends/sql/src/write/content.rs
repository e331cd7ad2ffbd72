//! Writes of what users keep and receive (worksheets, curation entries, documents,
//! notifications and their deliveries), and of what the server keeps beside the
//! catalog: operations with their logs, import settings and attachments.

use lore_core::model::*;
use lore_core::{ObjectId, Result};

use crate::driver::Stmt;
use crate::value::SqlValue;

use super::{Context, Writer, to_json};

impl Writer {
    pub(super) fn put_worksheet(&mut self, w: Worksheet) {
        let context = Context {
            what: format!("writing worksheet {}", w.id).into(),
            on_unique: Some(format!("a worksheet named '{}' already exists", w.name)),
        };
        let name_key = Worksheet::name_key(&w.name);
        let q = w.query;
        self.pending.push(
            Stmt::exec(
                "INSERT INTO worksheets (model_id, object_id, name, name_key, owner_model, owner_object, \
                 description, select_list, from_id, scope, filter, order_by, context, mql_version, \
                 created_at, updated_at) \
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) \
                 ON CONFLICT (model_id, object_id) DO UPDATE SET name = excluded.name, \
                 name_key = excluded.name_key, owner_model = excluded.owner_model, \
                 owner_object = excluded.owner_object, description = excluded.description, \
                 select_list = excluded.select_list, from_id = excluded.from_id, scope = excluded.scope, \
                 filter = excluded.filter, order_by = excluded.order_by, context = excluded.context, \
                 mql_version = excluded.mql_version, created_at = excluded.created_at, \
                 updated_at = excluded.updated_at",
                vec![
                    w.id.model.into(),
                    w.id.object.into(),
                    w.name.into(),
                    name_key.into(),
                    w.owner.model.into(),
                    w.owner.object.into(),
                    w.description.into(),
                    q.select.into(),
                    q.from.into(),
                    q.scope.into(),
                    q.filter.into(),
                    q.order_by.into(),
                    q.context.into(),
                    i64::from(q.mql_version).into(),
                    w.created_at.into(),
                    w.updated_at.into(),
                ],
            ),
            context,
        );
    }

    pub(super) fn delete_worksheet(&mut self, id: ObjectId) {
        self.exec(
            "DELETE FROM worksheets WHERE model_id = $1 AND object_id = $2",
            vec![id.model.into(), id.object.into()],
            format!("deleting worksheet {id}"),
        );
    }

    pub(super) fn put_notification(&mut self, n: Notification) {
        let what = format!("writing notification {}", n.id);
        self.exec(
            "INSERT INTO notifications (id, user_model, user_object, kind, model_id, object_id, message, at, is_read) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
             ON CONFLICT (id) DO UPDATE SET user_model = excluded.user_model, user_object = excluded.user_object, \
             kind = excluded.kind, model_id = excluded.model_id, object_id = excluded.object_id, \
             message = excluded.message, at = excluded.at, is_read = excluded.is_read",
            vec![
                n.id.into(),
                n.user.model.into(),
                n.user.object.into(),
                n.kind.as_str().into(),
                n.object.model.into(),
                n.object.object.into(),
                n.message.into(),
                n.at.into(),
                n.read.into(),
            ],
            what,
        );
    }

    pub(super) fn put_curation(&mut self, c: Curation) {
        let what = format!("writing {} {}", c.kind.as_str(), c.id);
        self.exec(
            "INSERT INTO curation (id, model_id, object_id, kind, user_model, user_object, body, at, placed, valid_from) \
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, \
             EXISTS (SELECT 1 FROM objects o WHERE o.model_id = $2 AND o.object_id = $3) \
             AND EXISTS (SELECT 1 FROM users u WHERE u.model_id = $5 AND u.object_id = $6), $9) \
             ON CONFLICT (id) DO UPDATE SET model_id = excluded.model_id, object_id = excluded.object_id, \
             kind = excluded.kind, user_model = excluded.user_model, user_object = excluded.user_object, \
             body = excluded.body, at = excluded.at, placed = excluded.placed, valid_from = excluded.valid_from \
             WHERE curation.model_id <> excluded.model_id OR curation.object_id <> excluded.object_id \
             OR curation.kind <> excluded.kind OR curation.user_model <> excluded.user_model \
             OR curation.user_object <> excluded.user_object OR curation.body <> excluded.body \
             OR curation.at <> excluded.at OR curation.placed <> excluded.placed",
            vec![
                c.id.into(),
                c.object.model.into(),
                c.object.object.into(),
                c.kind.as_str().into(),
                c.user.model.into(),
                c.user.object.into(),
                c.text.into(),
                c.at.into(),
                self.stamp.into(),
            ],
            what,
        );
    }

    pub(super) fn delete_curation(&mut self, id: i64) {
        self.exec(
            "DELETE FROM curation WHERE id = $1",
            vec![id.into()],
            format!("deleting curation entry {id}"),
        );
    }

    pub(super) fn put_document(&mut self, d: Document) -> Result<()> {
        let body = to_json(&d.body, "a document")?;
        let (owner_model, owner_object) = owner_key(d.owner);
        let what = format!("writing {} '{}'", d.kind.as_str(), d.name);
        self.exec(
            "INSERT INTO documents (kind, owner_model, owner_object, name, body, updated_at, \
             updated_by_model, updated_by_object) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) \
             ON CONFLICT (kind, owner_model, owner_object, name) DO UPDATE SET body = excluded.body, \
             updated_at = excluded.updated_at, updated_by_model = excluded.updated_by_model, \
             updated_by_object = excluded.updated_by_object",
            vec![
                d.kind.as_str().into(),
                owner_model.into(),
                owner_object.into(),
                d.name.into(),
                body.into(),
                d.updated_at.into(),
                d.updated_by.map(|u| u.model).into(),
                d.updated_by.map(|u| u.object).into(),
            ],
            what,
        );
        Ok(())
    }

    pub(super) fn delete_document(
        &mut self,
        kind: DocumentKind,
        owner: Option<ObjectId>,
        name: String,
    ) {
        let (owner_model, owner_object) = owner_key(owner);
        let what = format!("deleting {} '{name}'", kind.as_str());
        self.exec(
            "DELETE FROM documents WHERE kind = $1 AND owner_model = $2 AND owner_object = $3 AND name = $4",
            vec![
                kind.as_str().into(),
                owner_model.into(),
                owner_object.into(),
                name.into(),
            ],
            what,
        );
    }

    pub(super) fn put_delivery(&mut self, d: Delivery) -> Result<()> {
        let what = format!("writing delivery {}", d.id);
        self.exec(
            "INSERT INTO deliveries (id, channel, target, payload, state, attempts, next_attempt_at, \
             last_error, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
             ON CONFLICT (id) DO UPDATE SET channel = excluded.channel, target = excluded.target, \
             payload = excluded.payload, state = excluded.state, attempts = excluded.attempts, \
             next_attempt_at = excluded.next_attempt_at, last_error = excluded.last_error, \
             created_at = excluded.created_at, updated_at = excluded.updated_at",
            delivery_params(d)?,
            what,
        );
        Ok(())
    }

    pub(super) fn update_delivery(&mut self, d: Delivery) -> Result<()> {
        let what = format!("recording an attempt at delivery {}", d.id);
        self.exec(
            "UPDATE deliveries SET channel = $2, target = $3, payload = $4, state = $5, \
             attempts = $6, next_attempt_at = $7, last_error = $8, created_at = $9, \
             updated_at = $10 WHERE id = $1",
            delivery_params(d)?,
            what,
        );
        Ok(())
    }

    pub(super) fn put_operation(&mut self, operation: Operation) -> Result<()> {
        let what = format!("writing operation {}", operation.id);
        let mut params = vec![SqlValue::from(operation.id)];
        params.extend(operation_params(&operation)?);
        self.exec(
            "INSERT INTO operations (id, kind, state, model_id, object_id, started_by, started_at, \
             heartbeat_at, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
             ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, state = excluded.state, \
             model_id = excluded.model_id, object_id = excluded.object_id, \
             started_by = excluded.started_by, started_at = excluded.started_at, \
             heartbeat_at = excluded.heartbeat_at, detail = excluded.detail",
            params,
            what,
        );
        Ok(())
    }

    pub(super) fn put_operation_log_line(&mut self, operation: i64, line: OperationLogLine) {
        let what = format!(
            "writing line {} of the log of operation {operation}",
            line.seq
        );
        self.exec(
            "INSERT INTO operation_log (operation_id, seq, at, level, message) \
             VALUES ($1, $2, $3, $4, $5) ON CONFLICT (operation_id, seq) DO UPDATE SET \
             at = excluded.at, level = excluded.level, message = excluded.message",
            vec![
                operation.into(),
                line.seq.into(),
                line.at.into(),
                line.level.into(),
                line.message.into(),
            ],
            what,
        );
    }

    pub(super) fn put_import_settings(&mut self, settings: ImportSettings) -> Result<()> {
        let parameters = to_json(&settings.parameters, "import parameters")?;
        let what = format!("writing the import settings of {}", settings.model);
        self.exec(
            "INSERT INTO import_settings (model_id, object_id, format, parameters, attachment, \
             updated_at, updated_by) VALUES ($1, $2, $3, $4, $5, $6, $7) \
             ON CONFLICT (model_id, object_id) DO UPDATE SET format = excluded.format, \
             parameters = excluded.parameters, attachment = excluded.attachment, \
             updated_at = excluded.updated_at, updated_by = excluded.updated_by",
            vec![
                settings.model.model.into(),
                settings.model.object.into(),
                settings.format.into(),
                parameters.into(),
                settings.attachment.into(),
                settings.updated_at.into(),
                settings.updated_by.into(),
            ],
            what,
        );
        Ok(())
    }

    pub(super) fn put_attachment(&mut self, Attachment { info, content }: Attachment) {
        use base64::Engine;
        let what = format!("attaching '{}' to {}", info.name, info.object);
        self.exec(
            "INSERT INTO attachments (model_id, object_id, name, media_type, size, sha256, \
             created_at, created_by, content) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) \
             ON CONFLICT (model_id, object_id, name) DO UPDATE SET media_type = excluded.media_type, \
             size = excluded.size, sha256 = excluded.sha256, created_at = excluded.created_at, \
             created_by = excluded.created_by, content = excluded.content",
            vec![
                info.object.model.into(),
                info.object.object.into(),
                info.name.into(),
                info.media_type.into(),
                i64::try_from(info.size).unwrap_or(i64::MAX).into(),
                info.sha256.into(),
                info.created_at.into(),
                info.created_by.into(),
                base64::engine::general_purpose::STANDARD
                    .encode(&content)
                    .into(),
            ],
            what,
        );
    }
}

/// The parameters `$1`..`$8` of an operation's row, without its id: kind, state, model,
/// started by and at, heartbeat, detail.
pub(crate) fn operation_params(operation: &Operation) -> Result<Vec<SqlValue>> {
    let detail = to_json(&operation.detail, "an operation's detail")?;
    Ok(vec![
        operation.kind.as_str().into(),
        operation.state.as_str().into(),
        operation.model.map(|m| m.model).into(),
        operation.model.map(|m| m.object).into(),
        operation.started_by.as_str().into(),
        operation.started_at.into(),
        operation.heartbeat_at.into(),
        detail.into(),
    ])
}

/// The parameters `$1`..`$10` of a delivery's row: id, channel, target, payload, state,
/// attempts, next attempt, last error, created and updated.
fn delivery_params(d: Delivery) -> Result<Vec<SqlValue>> {
    let payload = to_json(&d.payload, "a delivery's payload")?;
    Ok(vec![
        d.id.into(),
        d.channel.as_str().into(),
        d.target.into(),
        payload.into(),
        d.state.as_str().into(),
        i64::from(d.attempts).into(),
        d.next_attempt_at.into(),
        d.last_error.into(),
        d.created_at.into(),
        d.updated_at.into(),
    ])
}

/// The key columns of a document's owner ([`crate::NO_OWNER`] for none).
pub(crate) fn owner_key(owner: Option<ObjectId>) -> (i64, i64) {
    owner.map_or((crate::NO_OWNER, crate::NO_OWNER), |o| (o.model, o.object))
}
