//! Writes of objects and what hangs on them (attributes, edges, tags, classifications,
//! label assignments, profiling), and of the definitions they use: attribute types,
//! object types, data classes and sensitivity labels.

use lore_core::model::*;
use lore_core::{ObjectId, Result};

use crate::driver::Stmt;
use crate::value::SqlValue;

use super::tables::HANGING_TABLES;
use super::{BULK_ROWS, Context, Writer, to_json};

impl Writer {
    pub(super) fn put_object(&mut self, object: Object) {
        self.objects.push(object_row(object, self.stamp));
        if self.objects.len() >= BULK_ROWS {
            self.flush_objects();
        }
    }

    /// Deletes one object and everything hanging on it, once the buffered rows are sent.
    pub(super) fn delete_object(&mut self, id: ObjectId) {
        self.flush();
        let key = || vec![SqlValue::from(id.model), id.object.into()];
        for table in HANGING_TABLES {
            self.pending.push(
                Stmt::exec(
                    format!("DELETE FROM {table} WHERE model_id = $1 AND object_id = $2"),
                    key(),
                ),
                Context::of(format!("deleting object {id}")),
            );
        }
        for (sql, what) in [
            (
                "DELETE FROM edges WHERE source_model = $1 AND source_object = $2",
                "deleting the edges from",
            ),
            (
                "DELETE FROM edges WHERE target_model = $1 AND target_object = $2",
                "deleting the edges to",
            ),
            (
                "DELETE FROM objects WHERE model_id = $1 AND object_id = $2",
                "deleting object",
            ),
        ] {
            self.pending
                .push(Stmt::exec(sql, key()), Context::of(format!("{what} {id}")));
        }
    }

    /// Deletes every object of the model number and everything hanging on them, once the
    /// buffered rows are sent.
    pub(super) fn clear_model(&mut self, model: i64) {
        self.flush();
        // The objects first: their narrow rows (migration 25) go with them, and the
        // deleted tags' trigger (migration 27) then has no labels of them to set again.
        self.pending.push(
            Stmt::exec(
                "DELETE FROM objects WHERE model_id = $1",
                vec![model.into()],
            ),
            Context::of(format!("clearing model {model}")),
        );
        for table in HANGING_TABLES {
            self.pending.push(
                Stmt::exec(
                    format!("DELETE FROM {table} WHERE model_id = $1"),
                    vec![model.into()],
                ),
                Context::of(format!("clearing model {model}")),
            );
        }
        for sql in [
            "DELETE FROM edges WHERE source_model = $1",
            "DELETE FROM edges WHERE target_model = $1",
        ] {
            self.pending.push(
                Stmt::exec(sql, vec![model.into()]),
                Context::of(format!("clearing model {model}")),
            );
        }
    }

    /// Notes that a model object of the model is written: see [`Writer::place_rows`].
    pub(super) fn placing_in(&mut self, model: i64) {
        /// More models than this are placed as every model.
        const MOST_MODELS: usize = 100;
        if model == lore_core::id::REPOSITORY_MODEL {
            return;
        }
        if let Some(models) = &mut self.placing {
            models.insert(model);
            if models.len() > MOST_MODELS {
                self.placing = None;
            }
        }
    }

    /// Places what hangs on the objects written in this transaction and was written
    /// before them (in it or earlier): their classifications, label assignments and
    /// curation entries (whose user exists) count from now on (migration 31). Rows
    /// written after their object are placed as they are written; the unplaced rows are
    /// few (none, nearly always) and have an index of their own, so this reads next to
    /// nothing.
    pub(super) fn place_rows(&mut self) {
        let models = match self.placing.replace(Default::default()) {
            Some(models) if models.is_empty() => return,
            Some(models) => {
                let list: Vec<String> = models.iter().map(i64::to_string).collect();
                format!(" AND model_id IN ({})", list.join(", "))
            }
            None => String::new(),
        };
        let object = |table: &str| {
            format!(
                "EXISTS (SELECT 1 FROM objects o WHERE o.model_id = {table}.model_id \
                 AND o.object_id = {table}.object_id)"
            )
        };
        for table in ["classifications", "label_assignments"] {
            self.pending.push(
                Stmt::exec(
                    format!(
                        "UPDATE {table} SET placed = TRUE WHERE NOT placed{models} AND {}",
                        object(table)
                    ),
                    Vec::new(),
                ),
                Context::of(format!("placing the {table} of new objects")),
            );
        }
        self.pending.push(
            Stmt::exec(
                format!(
                    "UPDATE curation SET placed = TRUE WHERE NOT placed{models} AND {} \
                     AND EXISTS (SELECT 1 FROM users u WHERE u.model_id = curation.user_model \
                     AND u.object_id = curation.user_object)",
                    object("curation")
                ),
                Vec::new(),
            ),
            Context::of("placing the curation of new objects"),
        );
    }

    /// Buffers an import print, after every row buffered before it (whose triggers
    /// would forget it).
    pub(super) fn set_import_print(&mut self, p: ImportPrint) {
        if self.prints.is_empty() {
            self.flush();
        }
        self.prints.push(vec![
            p.object.model.into(),
            p.object.object.into(),
            i64::from(p.mask).into(),
            // The print's bits, as the signed 64-bit integer SQL stores.
            (p.print as i64).into(),
        ]);
        if self.prints.len() >= BULK_ROWS {
            self.flush_prints();
        }
    }

    pub(super) fn set_attribute(&mut self, value: AttributeValue) {
        self.forget_print(value.object);
        self.attributes.push(attribute_row(value, self.stamp));
        if self.attributes.len() >= BULK_ROWS {
            self.flush_attributes();
        }
    }

    pub(super) fn remove_attribute(&mut self, object: ObjectId, attribute: String) {
        self.flush_attributes();
        let what = format!("removing attribute '{attribute}' of {object}");
        self.exec(
            "DELETE FROM attribute_values WHERE model_id = $1 AND object_id = $2 AND attribute = $3",
            vec![object.model.into(), object.object.into(), attribute.into()],
            what,
        );
    }

    pub(super) fn add_edge(&mut self, edge: Edge) {
        self.forget_print(edge.source);
        self.edges.push(edge_row(edge, self.stamp));
        if self.edges.len() >= BULK_ROWS {
            self.flush_edges();
        }
    }

    pub(super) fn remove_edge(&mut self, edge: Edge) {
        self.flush_edges();
        let what = format!(
            "removing a {} edge from {} to {}",
            edge.kind.as_str(),
            edge.source,
            edge.target
        );
        self.exec(
            "DELETE FROM edges WHERE source_model = $1 AND source_object = $2 AND kind = $3 \
             AND target_model = $4 AND target_object = $5 AND name = $6",
            edge_key(edge),
            what,
        );
    }

    pub(super) fn add_tag(&mut self, tag: Tag) {
        self.forget_print(tag.object);
        let mut row = tag_row(tag);
        row.push(self.stamp.into());
        self.tags.push(row);
        if self.tags.len() >= BULK_ROWS {
            self.flush_tags();
        }
    }

    pub(super) fn remove_tag(&mut self, tag: Tag) {
        self.flush_tags();
        let what = format!(
            "removing {} '{}' from {}",
            tag.kind.as_str(),
            tag.value,
            tag.object
        );
        self.exec(
            "DELETE FROM tags WHERE model_id = $1 AND object_id = $2 AND kind = $3 AND value = $4",
            tag_row(tag),
            what,
        );
    }

    pub(super) fn set_classification(&mut self, c: Classification) {
        let what = format!("classifying {} as '{}'", c.object, c.data_class);
        self.exec(
            "INSERT INTO classifications (model_id, object_id, data_class, status, placed, valid_from) \
             VALUES ($1, $2, $3, $4, EXISTS (SELECT 1 FROM objects o WHERE o.model_id = $1 AND o.object_id = $2), $5) \
             ON CONFLICT (model_id, object_id, data_class) DO UPDATE SET status = excluded.status, \
             placed = excluded.placed, valid_from = excluded.valid_from \
             WHERE classifications.status <> excluded.status OR classifications.placed <> excluded.placed",
            vec![
                c.object.model.into(),
                c.object.object.into(),
                c.data_class.into(),
                c.status.as_str().into(),
                self.stamp.into(),
            ],
            what,
        );
    }

    pub(super) fn remove_classification(&mut self, object: ObjectId, data_class: String) {
        let what = format!("removing data class '{data_class}' from {object}");
        self.exec(
            "DELETE FROM classifications WHERE model_id = $1 AND object_id = $2 AND data_class = $3",
            vec![object.model.into(), object.object.into(), data_class.into()],
            what,
        );
    }

    pub(super) fn set_label_assignment(&mut self, l: LabelAssignment) {
        let what = format!("labelling {} as '{}'", l.object, l.label);
        self.exec(
            "INSERT INTO label_assignments (model_id, object_id, label, status, placed, valid_from) \
             VALUES ($1, $2, $3, $4, EXISTS (SELECT 1 FROM objects o WHERE o.model_id = $1 AND o.object_id = $2), $5) \
             ON CONFLICT (model_id, object_id, label) DO UPDATE SET status = excluded.status, \
             placed = excluded.placed, valid_from = excluded.valid_from \
             WHERE label_assignments.status <> excluded.status OR label_assignments.placed <> excluded.placed",
            vec![
                l.object.model.into(),
                l.object.object.into(),
                l.label.into(),
                l.status.as_str().into(),
                self.stamp.into(),
            ],
            what,
        );
    }

    pub(super) fn remove_label_assignment(&mut self, object: ObjectId, label: String) {
        let what = format!("removing sensitivity label '{label}' from {object}");
        self.exec(
            "DELETE FROM label_assignments WHERE model_id = $1 AND object_id = $2 AND label = $3",
            vec![object.model.into(), object.object.into(), label.into()],
            what,
        );
    }

    pub(super) fn set_profiling(&mut self, p: Profiling) -> Result<()> {
        let what = format!("writing the profiling of {}", p.object);
        if p.profile.is_none() && p.sample.is_none() {
            self.exec(
                "DELETE FROM profiling WHERE model_id = $1 AND object_id = $2",
                vec![p.object.model.into(), p.object.object.into()],
                what,
            );
            return Ok(());
        }
        let profile = p
            .profile
            .as_ref()
            .map(|v| to_json(v, "a data profile"))
            .transpose()?;
        let sample = p
            .sample
            .as_ref()
            .map(|v| to_json(v, "a data sample"))
            .transpose()?;
        self.exec(
            "INSERT INTO profiling (model_id, object_id, profile, sample) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (model_id, object_id) DO UPDATE SET profile = excluded.profile, sample = excluded.sample",
            vec![
                p.object.model.into(),
                p.object.object.into(),
                profile.into(),
                sample.into(),
            ],
            what,
        );
        Ok(())
    }

    pub(super) fn put_attribute_type(&mut self, t: AttributeType) {
        self.meta_changed = true;
        let what = format!("writing attribute type '{}'", t.name);
        self.exec(
            "INSERT INTO attribute_types (name, display_name, kind, value_type, profile, group_name, description) \
             VALUES ($1, $2, $3, $4, $5, $6, $7) \
             ON CONFLICT (name) DO UPDATE SET display_name = excluded.display_name, kind = excluded.kind, \
             value_type = excluded.value_type, profile = excluded.profile, \
             group_name = excluded.group_name, description = excluded.description",
            vec![
                t.name.into(),
                t.display_name.into(),
                t.kind.as_str().into(),
                t.value_type.as_str().into(),
                t.profile.into(),
                t.group.into(),
                t.description.into(),
            ],
            what,
        );
    }

    pub(super) fn put_object_type(&mut self, t: ObjectType) -> Result<()> {
        self.meta_changed = true;
        let attributes = to_json(&t.attributes, "an object type's attributes")?;
        let what = format!("writing object type '{}'", t.name.qualified());
        self.exec(
            "INSERT INTO object_types (profile, name, display_name, system_type, category, attributes) \
             VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (profile, name) DO UPDATE SET display_name = excluded.display_name, \
             system_type = excluded.system_type, category = excluded.category, \
             attributes = excluded.attributes",
            vec![
                t.name.profile.into(),
                t.name.name.into(),
                t.display_name.into(),
                t.system_type.as_str().into(),
                t.category.into(),
                attributes.into(),
            ],
            what,
        );
        Ok(())
    }

    pub(super) fn put_data_class(&mut self, c: DataClass) -> Result<()> {
        self.meta_changed = true;
        let definition = to_json(&c.definition, "a data class definition")?;
        let what = format!("writing data class '{}'", c.name);
        self.exec(
            "INSERT INTO data_classes (name, description, hide_data, definition) VALUES ($1, $2, $3, $4) \
             ON CONFLICT (name) DO UPDATE SET description = excluded.description, \
             hide_data = excluded.hide_data, definition = excluded.definition",
            vec![
                c.name.into(),
                c.description.into(),
                c.hide_data.into(),
                definition.into(),
            ],
            what,
        );
        Ok(())
    }

    pub(super) fn put_sensitivity_label(&mut self, l: SensitivityLabel) {
        self.meta_changed = true;
        let what = format!("writing sensitivity label '{}'", l.name);
        self.exec(
            "INSERT INTO sensitivity_labels (name, position, description, foreground_color, background_color, hide_data) \
             VALUES ($1, $2, $3, $4, $5, $6) \
             ON CONFLICT (name) DO UPDATE SET position = excluded.position, description = excluded.description, \
             foreground_color = excluded.foreground_color, background_color = excluded.background_color, \
             hide_data = excluded.hide_data",
            vec![
                l.name.into(),
                l.position.into(),
                l.description.into(),
                l.foreground_color.into(),
                l.background_color.into(),
                l.hide_data.into(),
            ],
            what,
        );
    }
}

pub(super) fn object_row(o: Object, stamp: i64) -> Vec<SqlValue> {
    vec![
        o.id.model.into(),
        o.id.object.into(),
        o.kind.as_str().into(),
        o.parent.map(|p| p.object).into(),
        o.object_type.profile.into(),
        o.object_type.name.into(),
        o.system_type.as_str().into(),
        o.name.into(),
        o.physical_name.into(),
        o.native_id.into(),
        o.stable_id.into(),
        o.description.into(),
        o.business_name.into(),
        o.business_description.into(),
        o.data_type.into(),
        o.external_url.into(),
        o.hide_data.into(),
        o.workflow_state.into(),
        o.created_at.into(),
        o.updated_at.into(),
        o.updated_by.map(|u| u.model).into(),
        o.updated_by.map(|u| u.object).into(),
        stamp.into(),
    ]
}

pub(super) fn attribute_row(a: AttributeValue, stamp: i64) -> Vec<SqlValue> {
    let (kind, text, integer, double, boolean, datetime) = match a.value {
        Value::Text(s) => ("text", Some(s), None, None, None, None),
        Value::Integer(i) => ("integer", None, Some(i), None, None, None),
        Value::Double(d) => ("double", None, None, Some(d), None, None),
        Value::Boolean(b) => ("boolean", None, None, None, Some(b), None),
        Value::DateTime(t) => (
            "datetime",
            None,
            None,
            None,
            None,
            Some(t.timestamp_micros()),
        ),
    };
    vec![
        a.object.model.into(),
        a.object.object.into(),
        a.attribute.into(),
        kind.into(),
        SqlValue::Text(text),
        SqlValue::Int(integer),
        SqlValue::Real(double),
        SqlValue::Bool(boolean),
        SqlValue::Int(datetime),
        stamp.into(),
    ]
}

/// An edge's row of `edges`, in [`EDGES`](super::tables::EDGES)' order.
pub(super) fn edge_row(e: Edge, stamp: i64) -> Vec<SqlValue> {
    let origin = e.origin.clone();
    let mut row = edge_key(e);
    row.push(origin.into());
    row.push(stamp.into());
    row
}

/// The columns that identify an edge: source, kind, target, name.
fn edge_key(e: Edge) -> Vec<SqlValue> {
    vec![
        e.source.model.into(),
        e.source.object.into(),
        e.kind.as_str().into(),
        e.target.model.into(),
        e.target.object.into(),
        e.name.into(),
    ]
}

fn tag_row(t: Tag) -> Vec<SqlValue> {
    vec![
        t.object.model.into(),
        t.object.object.into(),
        t.kind.as_str().into(),
        t.value.into(),
    ]
}
