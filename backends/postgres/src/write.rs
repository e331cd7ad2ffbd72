//! Batches: one transaction each, rolled back on the first error.
//!
//! Object, attribute value, edge and tag writes are buffered and sent as one `UNNEST`
//! statement per table, so a model import of thousands of ops costs a few round trips.
//! Buffering keeps the batch's meaning: each table's writes keep their order (a remove
//! flushes its table's buffer first), writes to different tables commute, and a delete of
//! objects flushes every buffer before it runs.

use std::collections::HashSet;
use std::hash::Hash;

use lore_core::id::REPOSITORY_MODEL;
use lore_core::model::*;
use lore_core::store::{Batch, Op};
use lore_core::{Error, ObjectId, Result};
use sqlx::postgres::PgDatabaseError;
use sqlx::types::Json;
use sqlx::{PgConnection, PgPool};

use crate::PgQuery;

/// Rows buffered per table before they are sent, bounding the size of one statement.
const BULK_ROWS: usize = 10_000;

/// The SQLSTATE of a unique violation.
const UNIQUE_VIOLATION: &str = "23505";
/// The SQLSTATEs of a NUL character in text and in JSON, which PostgreSQL cannot store.
const NUL_IN_TEXT: &str = "22021";
const NUL_IN_JSON: &str = "22P05";

/// The key user names are unique by, case-insensitively.
pub(crate) fn user_name_key(name: &str) -> String {
    name.to_lowercase()
}

/// Applies the batch in one transaction: all of it or, after an error, none of it.
pub(crate) async fn apply(pool: &PgPool, batch: Batch) -> Result<()> {
    if batch.is_empty() {
        return Ok(());
    }
    let mut tx = pool
        .begin()
        .await
        .map_err(|e| Error::storage("starting a batch", e))?;
    let mut writer = Writer::new(&mut tx);
    for op in batch.ops {
        writer.op(op).await?;
    }
    writer.flush().await?;
    tx.commit()
        .await
        .map_err(|e| Error::storage("committing a batch", e))
}

/// The ops of one batch on its transaction, with the buffered bulk writes.
struct Writer<'c> {
    conn: &'c mut PgConnection,
    objects: Vec<Object>,
    attributes: Vec<AttributeValue>,
    edges: Vec<Edge>,
    tags: Vec<Tag>,
}

impl<'c> Writer<'c> {
    fn new(conn: &'c mut PgConnection) -> Self {
        Self {
            conn,
            objects: Vec::new(),
            attributes: Vec::new(),
            edges: Vec::new(),
            tags: Vec::new(),
        }
    }

    async fn op(&mut self, op: Op) -> Result<()> {
        match op {
            Op::PutObject(object) => {
                if let Some(parent) = object
                    .parent
                    .filter(|parent| parent.model != object.id.model)
                {
                    return Err(Error::invalid(format!(
                        "object {} cannot have parent {parent}: a parent must be in the same id space",
                        object.id
                    )));
                }
                self.objects.push(object);
                if self.objects.len() >= BULK_ROWS {
                    self.flush_objects().await?;
                }
            }
            Op::DeleteObject(id) => {
                self.flush().await?;
                self.delete_object(id).await?;
            }
            Op::ClearModel(model) => {
                if model == REPOSITORY_MODEL {
                    return Err(Error::invalid(
                        "the repository is not a model and cannot be cleared",
                    ));
                }
                self.flush().await?;
                self.clear_model(model).await?;
            }
            Op::SetAttribute(value) => {
                self.attributes.push(value);
                if self.attributes.len() >= BULK_ROWS {
                    self.flush_attributes().await?;
                }
            }
            Op::RemoveAttribute { object, attribute } => {
                self.flush_attributes().await?;
                let query = sqlx::query(
                    "DELETE FROM attribute_values WHERE model_id = $1 AND object_id = $2 AND attribute = $3",
                )
                .bind(object.model)
                .bind(object.object)
                .bind(attribute);
                self.run(query, "removing an attribute value").await?;
            }
            Op::AddEdge(edge) => {
                self.edges.push(edge);
                if self.edges.len() >= BULK_ROWS {
                    self.flush_edges().await?;
                }
            }
            Op::RemoveEdge(edge) => {
                self.flush_edges().await?;
                let query = sqlx::query(
                    "DELETE FROM edges WHERE source_model = $1 AND source_object = $2 AND kind = $3 \
                     AND target_model = $4 AND target_object = $5 AND name = $6",
                )
                .bind(edge.source.model)
                .bind(edge.source.object)
                .bind(edge.kind.as_str())
                .bind(edge.target.model)
                .bind(edge.target.object)
                .bind(edge.name);
                self.run(query, "removing an edge").await?;
            }
            Op::AddTag(tag) => {
                self.tags.push(tag);
                if self.tags.len() >= BULK_ROWS {
                    self.flush_tags().await?;
                }
            }
            Op::RemoveTag(tag) => {
                self.flush_tags().await?;
                let query = sqlx::query(
                    "DELETE FROM tags WHERE model_id = $1 AND object_id = $2 AND kind = $3 AND value = $4",
                )
                .bind(tag.object.model)
                .bind(tag.object.object)
                .bind(tag.kind.as_str())
                .bind(tag.value);
                self.run(query, "removing a tag").await?;
            }
            Op::SetClassification(c) => {
                let query = sqlx::query(
                    "INSERT INTO classifications (model_id, object_id, data_class, status) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (model_id, object_id, data_class) DO UPDATE SET status = EXCLUDED.status",
                )
                .bind(c.object.model)
                .bind(c.object.object)
                .bind(c.data_class)
                .bind(c.status.as_str());
                self.run(query, "setting a classification").await?;
            }
            Op::RemoveClassification { object, data_class } => {
                let query = sqlx::query(
                    "DELETE FROM classifications WHERE model_id = $1 AND object_id = $2 AND data_class = $3",
                )
                .bind(object.model)
                .bind(object.object)
                .bind(data_class);
                self.run(query, "removing a classification").await?;
            }
            Op::SetLabelAssignment(l) => {
                let query = sqlx::query(
                    "INSERT INTO label_assignments (model_id, object_id, label, status) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (model_id, object_id, label) DO UPDATE SET status = EXCLUDED.status",
                )
                .bind(l.object.model)
                .bind(l.object.object)
                .bind(l.label)
                .bind(l.status.as_str());
                self.run(query, "setting a sensitivity label").await?;
            }
            Op::RemoveLabelAssignment { object, label } => {
                let query =
                    sqlx::query("DELETE FROM label_assignments WHERE model_id = $1 AND object_id = $2 AND label = $3")
                        .bind(object.model)
                        .bind(object.object)
                        .bind(label);
                self.run(query, "removing a sensitivity label").await?;
            }
            Op::SetProfiling(p) => self.set_profiling(p).await?,
            Op::PutAttributeType(t) => {
                let query = sqlx::query(
                    "INSERT INTO attribute_types (name, display_name, kind, value_type, profile, group_name, description) \
                     VALUES ($1, $2, $3, $4, $5, $6, $7) \
                     ON CONFLICT (name) DO UPDATE SET display_name = EXCLUDED.display_name, kind = EXCLUDED.kind, \
                     value_type = EXCLUDED.value_type, profile = EXCLUDED.profile, \
                     group_name = EXCLUDED.group_name, description = EXCLUDED.description",
                )
                .bind(t.name)
                .bind(t.display_name)
                .bind(t.kind.as_str())
                .bind(t.value_type.as_str())
                .bind(t.profile)
                .bind(t.group)
                .bind(t.description);
                self.run(query, "storing an attribute type").await?;
            }
            Op::PutDataClass(c) => {
                let query = sqlx::query(
                    "INSERT INTO data_classes (name, description, hide_data, definition) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (name) DO UPDATE SET description = EXCLUDED.description, \
                     hide_data = EXCLUDED.hide_data, definition = EXCLUDED.definition",
                )
                .bind(c.name)
                .bind(c.description)
                .bind(c.hide_data)
                .bind(c.definition);
                self.run(query, "storing a data class").await?;
            }
            Op::PutSensitivityLabel(l) => {
                let query = sqlx::query(
                    "INSERT INTO sensitivity_labels (name, position, description, foreground_color, background_color, hide_data) \
                     VALUES ($1, $2, $3, $4, $5, $6) \
                     ON CONFLICT (name) DO UPDATE SET position = EXCLUDED.position, description = EXCLUDED.description, \
                     foreground_color = EXCLUDED.foreground_color, background_color = EXCLUDED.background_color, \
                     hide_data = EXCLUDED.hide_data",
                )
                .bind(l.name)
                .bind(l.position)
                .bind(l.description)
                .bind(l.foreground_color)
                .bind(l.background_color)
                .bind(l.hide_data);
                self.run(query, "storing a sensitivity label").await?;
            }
            Op::PutUser(user) => self.put_user(user).await?,
            Op::PutRole(role) => {
                let query = sqlx::query(
                    "INSERT INTO roles (name, description, global, capabilities) VALUES ($1, $2, $3, $4) \
                     ON CONFLICT (name) DO UPDATE SET description = EXCLUDED.description, \
                     global = EXCLUDED.global, capabilities = EXCLUDED.capabilities",
                )
                .bind(role.name)
                .bind(role.description)
                .bind(role.global)
                .bind(Json(role.capabilities));
                self.run(query, "storing a role").await?;
            }
            Op::AddGrant(grant) => {
                let query = sqlx::query(
                    "INSERT INTO grants (grantee_model, grantee_object, role, model_id, object_id) \
                     VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
                )
                .bind(grant.grantee.model)
                .bind(grant.grantee.object)
                .bind(grant.role)
                .bind(grant.object.map(|o| o.model))
                .bind(grant.object.map(|o| o.object));
                self.run(query, "adding a grant").await?;
            }
            Op::RemoveGrant(grant) => {
                let query = sqlx::query(
                    "DELETE FROM grants WHERE grantee_model = $1 AND grantee_object = $2 AND role = $3 \
                     AND model_id IS NOT DISTINCT FROM $4 AND object_id IS NOT DISTINCT FROM $5",
                )
                .bind(grant.grantee.model)
                .bind(grant.grantee.object)
                .bind(grant.role)
                .bind(grant.object.map(|o| o.model))
                .bind(grant.object.map(|o| o.object));
                self.run(query, "removing a grant").await?;
            }
        }
        Ok(())
    }

    /// Runs one statement of the batch.
    async fn run(&mut self, query: PgQuery<'_>, context: &'static str) -> Result<()> {
        query
            .execute(&mut *self.conn)
            .await
            .map_err(|e| write_error(context, e))?;
        Ok(())
    }

    /// Sends every buffered write.
    async fn flush(&mut self) -> Result<()> {
        self.flush_objects().await?;
        self.flush_attributes().await?;
        self.flush_edges().await?;
        self.flush_tags().await
    }

    async fn flush_objects(&mut self) -> Result<()> {
        let objects = last_wins(std::mem::take(&mut self.objects), |o| o.id);
        if objects.is_empty() {
            return Ok(());
        }
        let query = sqlx::query(
            "INSERT INTO objects (model_id, object_id, kind, parent, profile, type_name, system_type, name, \
             physical_name, native_id, stable_id, description, business_name, business_description, data_type, \
             external_url, hide_data, workflow_state, created_at, updated_at, updated_by_model, updated_by_object) \
             SELECT * FROM UNNEST($1::BIGINT[], $2::BIGINT[], $3::TEXT[], $4::BIGINT[], $5::TEXT[], $6::TEXT[], \
             $7::TEXT[], $8::TEXT[], $9::TEXT[], $10::TEXT[], $11::TEXT[], $12::TEXT[], $13::TEXT[], $14::TEXT[], \
             $15::TEXT[], $16::TEXT[], $17::BOOLEAN[], $18::TEXT[], $19::TIMESTAMPTZ[], $20::TIMESTAMPTZ[], \
             $21::BIGINT[], $22::BIGINT[]) \
             ON CONFLICT (model_id, object_id) DO UPDATE SET kind = EXCLUDED.kind, parent = EXCLUDED.parent, \
             profile = EXCLUDED.profile, type_name = EXCLUDED.type_name, system_type = EXCLUDED.system_type, \
             name = EXCLUDED.name, physical_name = EXCLUDED.physical_name, native_id = EXCLUDED.native_id, \
             stable_id = EXCLUDED.stable_id, description = EXCLUDED.description, \
             business_name = EXCLUDED.business_name, business_description = EXCLUDED.business_description, \
             data_type = EXCLUDED.data_type, external_url = EXCLUDED.external_url, hide_data = EXCLUDED.hide_data, \
             workflow_state = EXCLUDED.workflow_state, created_at = EXCLUDED.created_at, \
             updated_at = EXCLUDED.updated_at, updated_by_model = EXCLUDED.updated_by_model, \
             updated_by_object = EXCLUDED.updated_by_object",
        )
        .bind(column(&objects, |o| o.id.model))
        .bind(column(&objects, |o| o.id.object))
        .bind(column(&objects, |o| o.kind.as_str()))
        .bind(column(&objects, |o| o.parent.map(|p| p.object)))
        .bind(column(&objects, |o| o.object_type.profile.as_str()))
        .bind(column(&objects, |o| o.object_type.name.as_str()))
        .bind(column(&objects, |o| o.system_type.as_str()))
        .bind(column(&objects, |o| o.name.as_str()))
        .bind(column(&objects, |o| o.physical_name.as_deref()))
        .bind(column(&objects, |o| o.native_id.as_deref()))
        .bind(column(&objects, |o| o.stable_id.as_deref()))
        .bind(column(&objects, |o| o.description.as_deref()))
        .bind(column(&objects, |o| o.business_name.as_deref()))
        .bind(column(&objects, |o| o.business_description.as_deref()))
        .bind(column(&objects, |o| o.data_type.as_deref()))
        .bind(column(&objects, |o| o.external_url.as_deref()))
        .bind(column(&objects, |o| o.hide_data))
        .bind(column(&objects, |o| o.workflow_state.as_deref()))
        .bind(column(&objects, |o| o.created_at))
        .bind(column(&objects, |o| o.updated_at))
        .bind(column(&objects, |o| o.updated_by.map(|u| u.model)))
        .bind(column(&objects, |o| o.updated_by.map(|u| u.object)));
        self.run(query, "storing objects").await
    }

    async fn flush_attributes(&mut self) -> Result<()> {
        let values = last_wins(std::mem::take(&mut self.attributes), |a| {
            (a.object, a.attribute.clone())
        });
        if values.is_empty() {
            return Ok(());
        }
        let query = sqlx::query(
            "INSERT INTO attribute_values (model_id, object_id, attribute, value_kind, text_value, double_value, \
             integer_value, boolean_value, datetime_value) \
             SELECT * FROM UNNEST($1::BIGINT[], $2::BIGINT[], $3::TEXT[], $4::TEXT[], $5::TEXT[], \
             $6::DOUBLE PRECISION[], $7::BIGINT[], $8::BOOLEAN[], $9::TIMESTAMPTZ[]) \
             ON CONFLICT (model_id, object_id, attribute) DO UPDATE SET value_kind = EXCLUDED.value_kind, \
             text_value = EXCLUDED.text_value, double_value = EXCLUDED.double_value, \
             integer_value = EXCLUDED.integer_value, boolean_value = EXCLUDED.boolean_value, \
             datetime_value = EXCLUDED.datetime_value",
        )
        .bind(column(&values, |a| a.object.model))
        .bind(column(&values, |a| a.object.object))
        .bind(column(&values, |a| a.attribute.as_str()))
        .bind(column(&values, |a| value_kind(&a.value)))
        .bind(column(&values, |a| match &a.value {
            Value::Text(text) => Some(text.as_str()),
            _ => None,
        }))
        .bind(column(&values, |a| match a.value {
            Value::Double(double) => Some(double),
            _ => None,
        }))
        .bind(column(&values, |a| match a.value {
            Value::Integer(integer) => Some(integer),
            _ => None,
        }))
        .bind(column(&values, |a| match a.value {
            Value::Boolean(boolean) => Some(boolean),
            _ => None,
        }))
        .bind(column(&values, |a| match a.value {
            Value::DateTime(datetime) => Some(datetime),
            _ => None,
        }));
        self.run(query, "storing attribute values").await
    }

    async fn flush_edges(&mut self) -> Result<()> {
        let edges = std::mem::take(&mut self.edges);
        if edges.is_empty() {
            return Ok(());
        }
        let query = sqlx::query(
            "INSERT INTO edges (kind, source_model, source_object, target_model, target_object, name) \
             SELECT * FROM UNNEST($1::TEXT[], $2::BIGINT[], $3::BIGINT[], $4::BIGINT[], $5::BIGINT[], $6::TEXT[]) \
             ON CONFLICT DO NOTHING",
        )
        .bind(column(&edges, |e| e.kind.as_str()))
        .bind(column(&edges, |e| e.source.model))
        .bind(column(&edges, |e| e.source.object))
        .bind(column(&edges, |e| e.target.model))
        .bind(column(&edges, |e| e.target.object))
        .bind(column(&edges, |e| e.name.as_str()));
        self.run(query, "adding edges").await
    }

    async fn flush_tags(&mut self) -> Result<()> {
        let tags = std::mem::take(&mut self.tags);
        if tags.is_empty() {
            return Ok(());
        }
        let query = sqlx::query(
            "INSERT INTO tags (model_id, object_id, kind, value) \
             SELECT * FROM UNNEST($1::BIGINT[], $2::BIGINT[], $3::TEXT[], $4::TEXT[]) ON CONFLICT DO NOTHING",
        )
        .bind(column(&tags, |t| t.object.model))
        .bind(column(&tags, |t| t.object.object))
        .bind(column(&tags, |t| t.kind.as_str()))
        .bind(column(&tags, |t| t.value.as_str()));
        self.run(query, "adding tags").await
    }

    /// Deletes one object and everything hanging on it, in one statement.
    async fn delete_object(&mut self, id: ObjectId) -> Result<()> {
        let query = sqlx::query(
            "WITH attributes AS (DELETE FROM attribute_values WHERE model_id = $1 AND object_id = $2), \
             outgoing AS (DELETE FROM edges WHERE source_model = $1 AND source_object = $2), \
             incoming AS (DELETE FROM edges WHERE target_model = $1 AND target_object = $2), \
             tagged AS (DELETE FROM tags WHERE model_id = $1 AND object_id = $2), \
             classified AS (DELETE FROM classifications WHERE model_id = $1 AND object_id = $2), \
             labelled AS (DELETE FROM label_assignments WHERE model_id = $1 AND object_id = $2), \
             profiled AS (DELETE FROM profiling WHERE model_id = $1 AND object_id = $2), \
             granted AS (DELETE FROM grants WHERE model_id = $1 AND object_id = $2) \
             DELETE FROM objects WHERE model_id = $1 AND object_id = $2",
        )
        .bind(id.model)
        .bind(id.object);
        self.run(query, "deleting an object").await
    }

    /// Deletes every object of the model number and everything hanging on them.
    async fn clear_model(&mut self, model: i64) -> Result<()> {
        let query = sqlx::query(
            "WITH attributes AS (DELETE FROM attribute_values WHERE model_id = $1), \
             outgoing AS (DELETE FROM edges WHERE source_model = $1), \
             incoming AS (DELETE FROM edges WHERE target_model = $1), \
             tagged AS (DELETE FROM tags WHERE model_id = $1), \
             classified AS (DELETE FROM classifications WHERE model_id = $1), \
             labelled AS (DELETE FROM label_assignments WHERE model_id = $1), \
             profiled AS (DELETE FROM profiling WHERE model_id = $1), \
             granted AS (DELETE FROM grants WHERE model_id = $1) \
             DELETE FROM objects WHERE model_id = $1",
        )
        .bind(model);
        self.run(query, "clearing a model").await
    }

    async fn set_profiling(&mut self, p: Profiling) -> Result<()> {
        if p.profile.is_none() && p.sample.is_none() {
            let query = sqlx::query("DELETE FROM profiling WHERE model_id = $1 AND object_id = $2")
                .bind(p.object.model)
                .bind(p.object.object);
            return self.run(query, "removing profiling results").await;
        }
        let query = sqlx::query(
            "INSERT INTO profiling (model_id, object_id, profile, sample) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (model_id, object_id) DO UPDATE SET profile = EXCLUDED.profile, sample = EXCLUDED.sample",
        )
        .bind(p.object.model)
        .bind(p.object.object)
        .bind(p.profile.map(Json))
        .bind(p.sample.map(Json));
        self.run(query, "storing profiling results").await
    }

    async fn put_user(&mut self, user: User) -> Result<()> {
        let query = sqlx::query(
            "INSERT INTO users (model_id, object_id, name, name_key, full_name, email, description, password_hash, \
             enabled, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
             ON CONFLICT (model_id, object_id) DO UPDATE SET name = EXCLUDED.name, name_key = EXCLUDED.name_key, \
             full_name = EXCLUDED.full_name, email = EXCLUDED.email, description = EXCLUDED.description, \
             password_hash = EXCLUDED.password_hash, enabled = EXCLUDED.enabled, created_at = EXCLUDED.created_at",
        )
        .bind(user.id.model)
        .bind(user.id.object)
        .bind(&user.name)
        .bind(user_name_key(&user.name))
        .bind(&user.full_name)
        .bind(&user.email)
        .bind(&user.description)
        .bind(&user.password_hash)
        .bind(user.enabled)
        .bind(user.created_at);
        // the only unique key besides the id (an upsert) is the case-insensitive name
        query.execute(&mut *self.conn).await.map_err(|e| {
            if sqlstate(&e).as_deref() == Some(UNIQUE_VIOLATION) {
                Error::conflict(format!("a user named '{}' already exists", user.name))
            } else {
                write_error("storing a user", e)
            }
        })?;
        Ok(())
    }
}

/// The name of the value column (`<kind>_value`) a value is stored in.
fn value_kind(value: &Value) -> &'static str {
    match value {
        Value::Boolean(_) => "boolean",
        Value::Integer(_) => "integer",
        Value::Double(_) => "double",
        Value::DateTime(_) => "datetime",
        Value::Text(_) => "text",
    }
}

/// One field of every row, as an array to bind.
fn column<'a, T, C>(rows: &'a [T], field: impl Fn(&'a T) -> C) -> Vec<C> {
    rows.iter().map(field).collect()
}

/// The rows with only the last of each key kept, in their order: what writing them one
/// after the other leaves, and what one `INSERT ... ON CONFLICT DO UPDATE` accepts.
fn last_wins<T, K: Hash + Eq>(rows: Vec<T>, key: impl Fn(&T) -> K) -> Vec<T> {
    let mut seen = HashSet::new();
    let mut kept: Vec<T> = rows
        .into_iter()
        .rev()
        .filter(|row| seen.insert(key(row)))
        .collect();
    kept.reverse();
    kept
}

/// The SQLSTATE of a database error.
pub(crate) fn sqlstate(err: &sqlx::Error) -> Option<String> {
    match err {
        sqlx::Error::Database(db) => db.code().map(|code| code.into_owned()),
        _ => None,
    }
}

/// A failed write as a core error: a unique violation is a conflict saying what clashed,
/// text PostgreSQL cannot hold is invalid input, anything else a storage error.
fn write_error(context: &str, err: sqlx::Error) -> Error {
    let sqlx::Error::Database(db) = &err else {
        return Error::storage(context, err);
    };
    match db.code().as_deref() {
        Some(UNIQUE_VIOLATION) => {
            let value = db
                .try_downcast_ref::<PgDatabaseError>()
                .and_then(PgDatabaseError::detail)
                .and_then(key_value);
            Error::conflict(match (db.constraint(), value) {
                (Some("objects_stable_id"), Some(value)) => {
                    format!("an object with stable id '{value}' already exists")
                }
                (Some("objects_repository_name"), _) => {
                    "a repository object with that name already exists in the same folder"
                        .to_owned()
                }
                (Some("users_name_key"), Some(value)) => {
                    format!("a user named '{value}' already exists")
                }
                _ => format!("{context} clashes with existing data: {}", db.message()),
            })
        }
        Some(NUL_IN_TEXT | NUL_IN_JSON) => Error::invalid(format!(
            "{context}: PostgreSQL cannot store the NUL character (\\0) in text: {}",
            db.message()
        )),
        _ => Error::storage(context, err),
    }
}

/// The key value of a unique violation's detail, `Key (column)=(value) already exists.`
fn key_value(detail: &str) -> Option<&str> {
    let start = detail.find(")=(")? + 3;
    let end = detail.rfind(") already exists")?;
    detail.get(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn last_wins_keeps_the_last_of_each_key_in_order() {
        let rows = vec![(1, "a"), (2, "b"), (1, "c"), (3, "d"), (2, "e")];
        assert_eq!(last_wins(rows, |r| r.0), vec![(1, "c"), (3, "d"), (2, "e")]);
    }

    #[test]
    fn key_value_reads_the_clashing_value() {
        assert_eq!(
            key_value("Key (stable_id)=(abc) already exists."),
            Some("abc")
        );
        assert_eq!(
            key_value("Key (name_key)=(a)=(b) already exists."),
            Some("a)=(b")
        );
        assert_eq!(key_value("something else"), None);
    }

    #[test]
    fn user_names_compare_case_insensitively() {
        assert_eq!(user_name_key("ÄdMin"), user_name_key("äDmin"));
    }
}
