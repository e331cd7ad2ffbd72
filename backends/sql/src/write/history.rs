//! A restore's history ([`Op::RestoreHistory`](lore_core::store::Op::RestoreHistory)):
//! the backup's revisions and model versions under their own versions, its kept images
//! into the `_history` tables, and the rows the restore wrote made current since when
//! the backup says. A version is its own stamp (as for the rows before history, migration
//! 34), so every reader maps it as it maps SQLite's.

use lore_core::model::*;
use lore_core::store::RestoredHistory;

use crate::driver::Stmt;
use crate::read::object_columns;
use crate::value::SqlValue;

use super::objects::{attribute_row, edge_row, object_row};
use super::{Context, Writer};

/// The versioned tables: the columns of a row as [`Writer::restore_images`] writes
/// them (before `valid_from`), and those that name a row.
const OBJECTS: (&str, &str, &str) = (
    "objects",
    object_columns!(),
    "model_id = $1 AND object_id = $2",
);
const ATTRIBUTES: (&str, &str, &str) = (
    "attribute_values",
    "model_id, object_id, attribute, value_kind, text_value, integer_value, double_value, \
     boolean_value, datetime_value",
    "model_id = $1 AND object_id = $2 AND attribute = $3",
);
const EDGES: (&str, &str, &str) = (
    "edges",
    "source_model, source_object, kind, target_model, target_object, name, origin",
    "source_model = $1 AND source_object = $2 AND kind = $3 AND target_model = $4 \
     AND target_object = $5 AND name = $6",
);
const TAGS: (&str, &str, &str) = (
    "tags",
    "model_id, object_id, kind, value",
    "model_id = $1 AND object_id = $2 AND kind = $3 AND value = $4",
);
const CLASSIFICATIONS: (&str, &str, &str) = (
    "classifications",
    "model_id, object_id, data_class, status",
    "model_id = $1 AND object_id = $2 AND data_class = $3",
);
const LABELS: (&str, &str, &str) = (
    "label_assignments",
    "model_id, object_id, label, status",
    "model_id = $1 AND object_id = $2 AND label = $3",
);
const CURATION: (&str, &str, &str) = (
    "curation",
    "id, model_id, object_id, kind, user_model, user_object, body, at",
    "id = $1",
);
const GRANTS: (&str, &str, &str) = (
    "grants",
    "grantee_model, grantee_object, role, model_id, object_id",
    "grantee_model = $1 AND grantee_object = $2 AND role = $3 \
     AND model_id IS NOT DISTINCT FROM $4 AND object_id IS NOT DISTINCT FROM $5",
);

/// Every table the restore writes images of.
const ALL: [(&str, &str, &str); 8] = [
    OBJECTS,
    ATTRIBUTES,
    EDGES,
    TAGS,
    CLASSIFICATIONS,
    LABELS,
    CURATION,
    GRANTS,
];

impl Writer {
    pub(super) fn restore_history(&mut self, history: RestoredHistory) {
        // The rows the restore wrote before are in their tables.
        self.flush();
        match history {
            RestoredHistory::Advance(version) => self.advance(version),
            RestoredHistory::Revision(revision) => {
                let author = revision.author;
                self.exec(
                    "INSERT INTO catalog_versions (version, stamp, at, source, user_model, \
                     user_object, operation) VALUES ($1, $1, $2, $3, $4, $5, $6)",
                    vec![
                        revision.version.into(),
                        revision.at.into(),
                        author.source.as_str().into(),
                        author.user.map(|u| u.model).into(),
                        author.user.map(|u| u.object).into(),
                        author.operation.into(),
                    ],
                    format!("restoring revision {}", revision.version),
                );
            }
            RestoredHistory::ModelVersion {
                version,
                number,
                counts,
            } => {
                self.exec(
                    "INSERT INTO import_versions (model_id, number, stamp, objects, added, \
                     changed, removed) VALUES ($1, $2, $3, $4, $5, $6, $7)",
                    vec![
                        counts.model.into(),
                        number.into(),
                        version.into(),
                        counts.objects.into(),
                        counts.added.into(),
                        counts.changed.into(),
                        counts.removed.into(),
                    ],
                    format!("restoring version {number} of model {}", counts.model),
                );
            }
            RestoredHistory::Images(images) => self.restore_images(*images),
            RestoredHistory::Floor(floor) => {
                // The restored rows made current since their version left images of
                // themselves as the restore wrote them: none of them was.
                for (table, ..) in ALL {
                    self.pending.push(
                        Stmt::exec(
                            format!("DELETE FROM {table}_history WHERE valid_from = $1"),
                            vec![self.stamp.into()],
                        ),
                        Context::of(format!("restoring the history of {table}")),
                    );
                }
                self.exec(
                    "UPDATE versions SET version = $1 WHERE name = 'history_floor'",
                    vec![floor.into()],
                    "restoring the floor of the history",
                );
            }
        }
    }

    /// Moves the catalog's version to `version` when it is below. On SQLite, where a
    /// transaction's stamp is the version it will commit as, the stamp moves with it
    /// (nothing is stamped yet: this comes right after the restore's clear).
    fn advance(&mut self, version: i64) {
        self.exec(
            "UPDATE versions SET version = $1 WHERE name = 'catalog' AND version < $1",
            vec![version.into()],
            "moving the catalog's version past the restored history",
        );
        if self.dialect == crate::dialect::Dialect::Sqlite && self.stamp <= version {
            self.stamp = version + 1;
            self.exec(
                "UPDATE versions SET version = $1 WHERE name = 'history_stamp'",
                vec![self.stamp.into()],
                "moving the transaction's stamp past the restored history",
            );
        }
    }

    fn restore_images(&mut self, images: ObjectHistory) {
        let ObjectHistory {
            objects,
            attributes,
            edges,
            tags,
            classifications,
            labels,
            curation,
            grants,
            truncated: _,
        } = images;
        for image in objects {
            let key = vec![image.row.id.model.into(), image.row.id.object.into()];
            let mut row = object_row(image.row, 0);
            row.pop();
            self.restore_image(OBJECTS, image.from, image.to, row, key);
        }
        for image in attributes {
            let key = vec![
                image.row.object.model.into(),
                image.row.object.object.into(),
                image.row.attribute.clone().into(),
            ];
            let mut row = attribute_row(image.row, 0);
            row.pop();
            self.restore_image(ATTRIBUTES, image.from, image.to, row, key);
        }
        for image in edges {
            let mut row = edge_row(image.row, 0);
            row.pop();
            let key = row[..6].to_vec();
            self.restore_image(EDGES, image.from, image.to, row, key);
        }
        for image in tags {
            let t = image.row;
            let row: Vec<SqlValue> = vec![
                t.object.model.into(),
                t.object.object.into(),
                t.kind.as_str().into(),
                t.value.into(),
            ];
            let key = row.clone();
            self.restore_image(TAGS, image.from, image.to, row, key);
        }
        for image in classifications {
            let c = image.row;
            let row: Vec<SqlValue> = vec![
                c.object.model.into(),
                c.object.object.into(),
                c.data_class.into(),
                c.status.as_str().into(),
            ];
            let key = row[..3].to_vec();
            self.restore_image(CLASSIFICATIONS, image.from, image.to, row, key);
        }
        for image in labels {
            let l = image.row;
            let row: Vec<SqlValue> = vec![
                l.object.model.into(),
                l.object.object.into(),
                l.label.into(),
                l.status.as_str().into(),
            ];
            let key = row[..3].to_vec();
            self.restore_image(LABELS, image.from, image.to, row, key);
        }
        for image in curation {
            let c = image.row;
            let row: Vec<SqlValue> = vec![
                c.id.into(),
                c.object.model.into(),
                c.object.object.into(),
                c.kind.as_str().into(),
                c.user.model.into(),
                c.user.object.into(),
                c.text.into(),
                c.at.into(),
            ];
            let key = row[..1].to_vec();
            self.restore_image(CURATION, image.from, image.to, row, key);
        }
        for image in grants {
            let g = image.row;
            let row: Vec<SqlValue> = vec![
                g.grantee.model.into(),
                g.grantee.object.into(),
                g.role.into(),
                g.object.map(|o| o.model).into(),
                g.object.map(|o| o.object).into(),
            ];
            let key = row.clone();
            self.restore_image(GRANTS, image.from, image.to, row, key);
        }
    }

    /// One image: a replaced one into the table's `_history`; a current one's row (which
    /// the restore wrote) current since `from`.
    fn restore_image(
        &mut self,
        (table, columns, key_columns): (&str, &str, &str),
        from: i64,
        to: Option<i64>,
        mut row: Vec<SqlValue>,
        key: Vec<SqlValue>,
    ) {
        let context = Context::of(format!("restoring the history of {table}"));
        match to {
            Some(to) => {
                row.push(from.into());
                row.push(to.into());
                let params: Vec<String> = (1..=row.len()).map(|i| format!("${i}")).collect();
                let sql = format!(
                    "INSERT INTO {table}_history ({columns}, valid_from, valid_to) VALUES ({})",
                    params.join(", ")
                );
                self.pending.push(Stmt::exec(sql, row), context);
            }
            None => {
                // Only a row this restore wrote, once: a second image said to be current
                // of the same row changes nothing.
                let at = key.len() + 1;
                let mut params = key;
                params.push(from.into());
                params.push(self.stamp.into());
                let sql = format!(
                    "UPDATE {table} SET valid_from = ${at} WHERE {key_columns} AND valid_from = ${}",
                    at + 1
                );
                self.pending.push(Stmt::exec(sql, params), context);
            }
        }
    }
}
