//! [`SqlStore`]'s [`HistoryRecords`]: the revisions of `catalog_versions` and the images
//! of the versioned tables and their `_history` twins (migration 34).

use std::collections::HashMap;

use async_trait::async_trait;
use lore_core::model::*;
use lore_core::store::{Details, EntityPair, HistoryRecords};
use lore_core::{Error, ObjectId, Result};

use super::SqlStore;
use crate::dialect::Dialect;
use crate::driver::{Driver, Stmt};
use crate::read::{self, object_columns};
use crate::value::{Row, SqlValue};

/// The columns of a revision, as [`revision`] reads them.
const REVISION_COLUMNS: &str = "version, at, source, user_model, user_object, operation";

/// Objects read per statement by [`HistoryRecords::entities_as_of`].
const MOST_ENTITIES_AS_OF: usize = 500;

/// Rows read per table for an entity as of a version (one image per row current then):
/// far more than an object has.
const ENTITY_IMAGES: usize = 100_000;

/// The version a stamp (a `valid_from` or `valid_to`) names: a stamp of PostgreSQL's
/// (negative) is looked up in `catalog_versions`.
fn version_of(column: &str) -> String {
    format!(
        "CASE WHEN {column} >= 0 THEN {column} ELSE \
         (SELECT c.version FROM catalog_versions c WHERE c.stamp = {column}) END"
    )
}

/// Which images [`images`] reads: all, or those current at the version `low` or at the
/// version `high` (two parameters; one version when they are the same).
#[derive(Clone, Copy)]
struct Current<'a> {
    low: &'a str,
    high: &'a str,
}

impl<'a> Current<'a> {
    /// Current at the version of one parameter.
    fn at(version: &'a str) -> Self {
        Self {
            low: version,
            high: version,
        }
    }
}

/// The images of one versioned table of the objects `filter` names (of the table's
/// alias `t`), newest first, at most the parameter `limit`, each with its versions after
/// its columns; with `current`, only those current at a version in its range.
///
/// A stamp (a `valid_from` or `valid_to`) names a version: PostgreSQL's (negative) by
/// its row of `catalog_versions`, joined once per statement rather than looked up per
/// row; a stamp of 0 or above is the version itself.
fn images(
    table: &str,
    columns: &str,
    filter: &str,
    limit: &str,
    current: Option<Current<'_>>,
) -> String {
    let columns: Vec<String> = columns
        .split(", ")
        .map(|c| format!("t.{}", c.trim()))
        .collect();
    let columns = columns.join(", ");
    let (from, to) = (
        "COALESCE(cf.version, t.valid_from)",
        "COALESCE(ct.version, t.valid_to)",
    );
    let (now, kept) = match current {
        // Current at `low` or at `high`, not in between: a compare of far apart
        // versions reads two states, not every change between them.
        Some(Current { low, high }) if low == high => (
            format!(" AND {from} <= {high}"),
            format!(" AND {from} <= {high} AND {to} > {high}"),
        ),
        Some(Current { low, high }) => (
            format!(" AND {from} <= {high}"),
            format!(
                " AND (({from} <= {low} AND {to} > {low}) OR ({from} <= {high} AND {to} > {high}))"
            ),
        ),
        None => (String::new(), String::new()),
    };
    format!(
        "SELECT * FROM (\
         SELECT {columns}, {from} AS lore_from, NULL AS lore_to FROM {table} t \
         LEFT JOIN catalog_versions cf ON t.valid_from < 0 AND cf.stamp = t.valid_from \
         WHERE {filter}{now} \
         UNION ALL \
         SELECT {columns}, {from} AS lore_from, {to} AS lore_to FROM {table}_history t \
         LEFT JOIN catalog_versions cf ON t.valid_from < 0 AND cf.stamp = t.valid_from \
         LEFT JOIN catalog_versions ct ON t.valid_to < 0 AND ct.stamp = t.valid_to \
         WHERE {filter}{kept}\
         ) i ORDER BY lore_from DESC LIMIT {limit}"
    )
}

/// The versioned tables as [`images`] reads them: name, columns, and the columns of the
/// object a row belongs to (the source, for an edge).
const TABLES: [(&str, &str, [&str; 2]); 6] = [
    ("objects", object_columns!(), ["model_id", "object_id"]),
    (
        "attribute_values",
        "model_id, object_id, attribute, value_kind, text_value, integer_value, \
         double_value, boolean_value, datetime_value",
        ["model_id", "object_id"],
    ),
    (
        "edges",
        "kind, source_model, source_object, target_model, target_object, name, origin",
        ["source_model", "source_object"],
    ),
    (
        "tags",
        "model_id, object_id, kind, value",
        ["model_id", "object_id"],
    ),
    (
        "classifications",
        "model_id, object_id, data_class, status",
        ["model_id", "object_id"],
    ),
    (
        "label_assignments",
        "model_id, object_id, label, status",
        ["model_id", "object_id"],
    ),
];

/// The images of the six tables' statements, decoded in [`TABLES`]' order.
fn decode_images(outcomes: &mut impl Iterator<Item = Vec<Row>>) -> Result<ObjectHistory> {
    let mut next = || outcomes.next().unwrap_or_default();
    Ok(ObjectHistory {
        objects: versioned(next(), 22, read::object)?,
        attributes: versioned(next(), 9, read::attribute)?,
        edges: versioned(next(), 7, read::edge)?,
        tags: versioned(next(), 4, read::tag)?,
        classifications: versioned(next(), 4, read::classification)?,
        labels: versioned(next(), 4, read::label)?,
        curation: Vec::new(),
        grants: Vec::new(),
        truncated: false,
    })
}

/// The curation and grant tables, which the object's history lists but no as-of read
/// reads (migration 38): name, columns, the object's columns, and how a row decodes.
const CURATION: (&str, &str, usize) = (
    "curation",
    "id, model_id, object_id, kind, user_model, user_object, body, at",
    8,
);
const GRANTS: (&str, &str, usize) = (
    "grants",
    "grantee_model, grantee_object, role, model_id, object_id",
    5,
);

/// The objects, by model and in chunks of [`MOST_ENTITIES_AS_OF`]: each model's number
/// and its object numbers as a list for `IN (...)`, so a statement finds its rows through
/// the tables' keys. Object numbers are integers, written into the text.
fn chunks_by_model(ids: &[ObjectId]) -> Vec<(i64, String)> {
    let mut by_model: std::collections::BTreeMap<i64, Vec<i64>> = Default::default();
    for id in ids {
        by_model.entry(id.model).or_default().push(id.object);
    }
    by_model
        .iter()
        .flat_map(|(model, objects)| {
            objects.chunks(MOST_ENTITIES_AS_OF).map(|chunk| {
                let list: Vec<String> = chunk.iter().map(i64::to_string).collect();
                (*model, list.join(", "))
            })
        })
        .collect()
}

/// The test that a row's stamp is of a revision after one version and up to another.
/// On SQLite a stamp is its version: a range, which its index reads in order. On
/// PostgreSQL a stamp is mapped to its version by `catalog_versions`: the list of those
/// revisions' stamps, read first, whose values the planner weighs with its statistics. (A
/// subquery of the stamps makes either planner, which knows most rows share the first
/// import's stamp, read every row: 125 ms on SQLite, 500 ms on PostgreSQL at 1,000,000
/// objects.)
enum StampTest {
    Range(i64, Option<i64>),
    List(String),
}

impl StampTest {
    /// The test of `t.{column}`.
    fn of(&self, column: &str) -> String {
        match self {
            StampTest::Range(after, Some(upto)) => {
                format!("t.{column} > {after} AND t.{column} <= {upto}")
            }
            StampTest::Range(after, None) => format!("t.{column} > {after}"),
            StampTest::List(stamps) => format!("t.{column} IN ({stamps})"),
        }
    }
}

/// Where a revision's changes show, for each kept table: its current rows by the stamp
/// that wrote them, its kept rows by the stamps that wrote and replaced them; each with
/// the columns of the object whose change it is (with `targets`, an edge's target too).
fn changed_rows(targets: bool) -> Vec<(String, &'static str, [&'static str; 2])> {
    let mut rows = Vec::new();
    for (table, _, owner) in TABLES {
        let mut ends = vec![owner];
        if targets && table == "edges" {
            ends.push(["target_model", "target_object"]);
        }
        for (name, stamp) in [
            (table.to_owned(), "valid_from"),
            (format!("{table}_history"), "valid_from"),
            (format!("{table}_history"), "valid_to"),
        ] {
            for end in &ends {
                rows.push((name.clone(), stamp, *end));
            }
        }
    }
    rows
}

impl<D: Driver> SqlStore<D> {
    /// The test of stamps after `after` and up to `upto`; `None` when no revision is.
    async fn stamp_test(&self, after: i64, upto: Option<i64>) -> Result<Option<StampTest>> {
        if D::DIALECT == Dialect::Sqlite {
            return Ok(Some(StampTest::Range(after, upto)));
        }
        let rows = self
            .rows_of(
                Stmt::query(
                    "SELECT stamp FROM catalog_versions WHERE version > $1 AND version <= $2",
                    vec![SqlValue::from(after), upto.unwrap_or(i64::MAX).into()],
                ),
                "the stamps of revisions",
            )
            .await?;
        let stamps = rows
            .into_iter()
            .map(|row| Ok(row.int(0, "catalog_versions")?.to_string()))
            .collect::<Result<Vec<String>>>()?;
        Ok((!stamps.is_empty()).then(|| StampTest::List(stamps.join(", "))))
    }
}

fn revision(mut row: Row) -> Result<Revision> {
    const T: &str = "catalog_versions";
    let source = row.text(2, T)?;
    let user = match (row.opt_int(3, T)?, row.opt_int(4, T)?) {
        (Some(m), Some(o)) => Some(ObjectId::new(m, o)),
        _ => None,
    };
    Ok(Revision {
        version: row.int(0, T)?,
        at: row.timestamp(1, T)?,
        author: Author {
            source: Source::parse(&source).ok_or_else(|| {
                Error::internal(format!("table {T} holds '{source}', which is not a source"))
            })?,
            user,
            operation: row.opt_int(5, T)?,
        },
    })
}

/// The images of rows with `width` columns of their own, decoded by `decode`, oldest
/// first.
fn versioned<T>(
    rows: Vec<Row>,
    width: usize,
    decode: fn(Row) -> Result<T>,
) -> Result<Vec<Versioned<T>>> {
    let mut images = rows
        .into_iter()
        .map(|row| {
            let from = row.opt_int(width, "history")?.unwrap_or(0);
            let to = row.opt_int(width + 1, "history")?;
            Ok(Versioned {
                from,
                to,
                row: decode(row)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    images.reverse();
    Ok(images)
}

/// The images of the last `limit` of each list, and whether one was cut.
fn keep_newest<T>(images: &mut Vec<Versioned<T>>, limit: usize) -> bool {
    if images.len() > limit {
        images.drain(..images.len() - limit);
        true
    } else {
        false
    }
}

impl<D: Driver> SqlStore<D> {
    async fn revisions_where(
        &self,
        condition: &str,
        params: Vec<SqlValue>,
    ) -> Result<Vec<Revision>> {
        let rows = self
            .rows_of(
                Stmt::query(
                    format!(
                        "SELECT {REVISION_COLUMNS} FROM catalog_versions WHERE {condition} \
                         ORDER BY version"
                    ),
                    params,
                ),
                "catalog_versions",
            )
            .await?;
        read::all(rows, revision)
    }

    /// The object's images, at most `limit` of each list; with `at`, only those current
    /// at that version.
    async fn read_history(
        &self,
        id: ObjectId,
        limit: usize,
        at: Option<i64>,
    ) -> Result<ObjectHistory> {
        let limit = limit.min(i64::MAX as usize - 1);
        let queries = TABLES
            .iter()
            .map(|(table, columns, [model, object])| {
                let filter = format!("t.{model} = $1 AND t.{object} = $2");
                let mut params = vec![
                    SqlValue::from(id.model),
                    id.object.into(),
                    ((limit + 1) as i64).into(),
                ];
                params.extend(at.map(SqlValue::from));
                let sql = images(table, columns, &filter, "$3", at.map(|_| Current::at("$4")));
                Stmt::query(sql, params)
            })
            .collect();
        let outcomes = self.read(queries, "the history of an object").await?;
        let mut history = decode_images(&mut outcomes.into_iter().map(|o| o.rows))?;
        let mut cut = false;
        cut |= keep_newest(&mut history.objects, limit);
        cut |= keep_newest(&mut history.attributes, limit);
        cut |= keep_newest(&mut history.edges, limit);
        cut |= keep_newest(&mut history.tags, limit);
        cut |= keep_newest(&mut history.classifications, limit);
        cut |= keep_newest(&mut history.labels, limit);
        history.truncated = cut;
        Ok(history)
    }
}

impl<D: Driver> SqlStore<D> {
    /// The images of the six versioned tables of these objects that were current at the
    /// version `low` or at `high`, by object: one statement per table and chunk of
    /// objects for both.
    async fn histories_current(
        &self,
        ids: &[ObjectId],
        low: i64,
        high: i64,
    ) -> Result<HashMap<ObjectId, ObjectHistory>> {
        let mut histories: HashMap<ObjectId, ObjectHistory> = HashMap::new();
        for (model, list) in chunks_by_model(ids) {
            let queries = TABLES
                .iter()
                .map(|(table, columns, [m, o])| {
                    let filter = format!("t.{m} = $1 AND t.{o} IN ({list})");
                    let params = vec![
                        SqlValue::from(model),
                        SqlValue::from(i64::MAX),
                        SqlValue::from(low),
                        SqlValue::from(high),
                    ];
                    let current = Current {
                        low: "$3",
                        high: "$4",
                    };
                    Stmt::query(images(table, columns, &filter, "$2", Some(current)), params)
                })
                .collect();
            let outcomes = self.read(queries, "objects as of a version").await?;
            let all = decode_images(&mut outcomes.into_iter().map(|o| o.rows))?;
            fn spread<T>(
                images: Vec<Versioned<T>>,
                owner: impl Fn(&T) -> ObjectId,
                histories: &mut HashMap<ObjectId, ObjectHistory>,
                list: fn(&mut ObjectHistory) -> &mut Vec<Versioned<T>>,
            ) {
                for image in images {
                    list(histories.entry(owner(&image.row)).or_default()).push(image);
                }
            }
            spread(all.objects, |o| o.id, &mut histories, |h| &mut h.objects);
            spread(
                all.attributes,
                |a| a.object,
                &mut histories,
                |h| &mut h.attributes,
            );
            spread(all.edges, |e| e.source, &mut histories, |h| &mut h.edges);
            spread(all.tags, |t| t.object, &mut histories, |h| &mut h.tags);
            spread(
                all.classifications,
                |c| c.object,
                &mut histories,
                |h| &mut h.classifications,
            );
            spread(all.labels, |l| l.object, &mut histories, |h| &mut h.labels);
        }
        Ok(histories)
    }
}

#[async_trait]
impl<D: Driver> HistoryRecords for SqlStore<D> {
    async fn history_span(&self) -> Result<HistorySpan> {
        // The oldest readable: the floor of a purge (migration 36), or the oldest kept.
        let revisions = self
            .revisions_where(
                "version = (SELECT MAX(f.version) FROM (\
                 SELECT MIN(version) AS version FROM catalog_versions \
                 UNION ALL SELECT version FROM versions WHERE name = 'history_floor') f) \
                 OR version = (SELECT MAX(version) FROM catalog_versions)",
                Vec::new(),
            )
            .await?;
        match (revisions.first(), revisions.last()) {
            (Some(oldest), Some(newest)) => Ok(HistorySpan {
                oldest: *oldest,
                newest: *newest,
            }),
            _ => Err(Error::internal("the store keeps no revision")),
        }
    }

    async fn revision(&self, version: i64) -> Result<Option<Revision>> {
        Ok(self
            .revisions_where("version = $1", vec![version.into()])
            .await?
            .pop())
    }

    async fn revision_at(&self, at: Timestamp) -> Result<Option<Revision>> {
        Ok(self
            .revisions_where(
                "version = (SELECT MAX(version) FROM catalog_versions WHERE at <= $1)",
                vec![at.into()],
            )
            .await?
            .pop())
    }

    async fn revisions(&self, versions: &[i64]) -> Result<Vec<Revision>> {
        let mut found = Vec::with_capacity(versions.len());
        for chunk in versions.chunks(500) {
            let list: Vec<String> = chunk.iter().map(i64::to_string).collect();
            found.extend(
                self.revisions_where(&format!("version IN ({})", list.join(", ")), Vec::new())
                    .await?,
            );
        }
        found.sort_by_key(|r| r.version);
        found.dedup_by_key(|r| r.version);
        Ok(found)
    }

    async fn object_history(&self, id: ObjectId, limit: usize) -> Result<ObjectHistory> {
        let mut history = self.read_history(id, limit, None).await?;
        let limit = limit.min(i64::MAX as usize - 1);
        let queries = [CURATION, GRANTS]
            .iter()
            .map(|(table, columns, _)| {
                let filter = "t.model_id = $1 AND t.object_id = $2";
                Stmt::query(
                    images(table, columns, filter, "$3", None),
                    vec![
                        SqlValue::from(id.model),
                        id.object.into(),
                        ((limit + 1) as i64).into(),
                    ],
                )
            })
            .collect();
        let mut outcomes = self
            .read(queries, "the curation and grant history of an object")
            .await?
            .into_iter()
            .map(|o| o.rows);
        history.curation = versioned(
            outcomes.next().unwrap_or_default(),
            CURATION.2,
            read::curation,
        )?;
        history.grants = versioned(outcomes.next().unwrap_or_default(), GRANTS.2, read::grant)?;
        history.truncated |= keep_newest(&mut history.curation, limit);
        history.truncated |= keep_newest(&mut history.grants, limit);
        Ok(history)
    }

    async fn objects_history(&self, ids: &[ObjectId]) -> Result<Vec<ObjectHistory>> {
        let mut found: HashMap<ObjectId, ObjectHistory> = HashMap::new();
        for (model_number, list) in chunks_by_model(ids) {
            let all = TABLES
                .iter()
                .map(|(table, columns, [m, o])| (*table, *columns, *m, *o))
                .chain([CURATION, GRANTS].map(|(t, c, _)| (t, c, "model_id", "object_id")));
            let queries = all
                .map(|(table, columns, model, object)| {
                    let filter = format!("t.{model} = $2 AND t.{object} IN ({list})");
                    Stmt::query(
                        images(table, columns, &filter, "$1", None),
                        vec![SqlValue::from(i64::MAX - 1), SqlValue::from(model_number)],
                    )
                })
                .collect();
            let outcomes = self.read(queries, "the history of objects").await?;
            let mut outcomes = outcomes.into_iter().map(|o| o.rows);
            let mut all = decode_images(&mut outcomes)?;
            all.curation = versioned(
                outcomes.next().unwrap_or_default(),
                CURATION.2,
                read::curation,
            )?;
            all.grants = versioned(outcomes.next().unwrap_or_default(), GRANTS.2, read::grant)?;
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
            } = all;
            for i in objects {
                found.entry(i.row.id).or_default().objects.push(i);
            }
            for i in attributes {
                found.entry(i.row.object).or_default().attributes.push(i);
            }
            for i in edges {
                found.entry(i.row.source).or_default().edges.push(i);
            }
            for i in tags {
                found.entry(i.row.object).or_default().tags.push(i);
            }
            for i in classifications {
                found
                    .entry(i.row.object)
                    .or_default()
                    .classifications
                    .push(i);
            }
            for i in labels {
                found.entry(i.row.object).or_default().labels.push(i);
            }
            for i in curation {
                found.entry(i.row.object).or_default().curation.push(i);
            }
            for i in grants {
                if let Some(object) = i.row.object {
                    found.entry(object).or_default().grants.push(i);
                }
            }
        }
        Ok(ids
            .iter()
            .map(|id| found.remove(id).unwrap_or_default())
            .collect())
    }

    async fn gone_with_history(
        &self,
        after: Option<ObjectId>,
        limit: usize,
    ) -> Result<Vec<ObjectId>> {
        let after = after.unwrap_or(ObjectId::new(i64::MIN, i64::MIN));
        let rows = self
            .rows_of(
                Stmt::query(
                    "SELECT DISTINCT h.model_id, h.object_id FROM objects_history h \
                     WHERE (h.model_id > $1 OR (h.model_id = $1 AND h.object_id > $2)) \
                     AND NOT EXISTS (SELECT 1 FROM objects o \
                     WHERE o.model_id = h.model_id AND o.object_id = h.object_id) \
                     ORDER BY h.model_id, h.object_id LIMIT $3",
                    vec![
                        SqlValue::from(after.model),
                        after.object.into(),
                        (limit.min(i64::MAX as usize) as i64).into(),
                    ],
                ),
                "the objects gone whose history is kept",
            )
            .await?;
        rows.into_iter()
            .map(|row| {
                Ok(ObjectId::new(
                    row.int(0, "objects_history")?,
                    row.int(1, "objects_history")?,
                ))
            })
            .collect()
    }

    async fn revisions_after(&self, after: i64, limit: usize) -> Result<Vec<Revision>> {
        let limit = limit.min(i64::MAX as usize) as i64;
        self.revisions_where(
            "version IN (SELECT version FROM catalog_versions WHERE version > $1 \
             ORDER BY version LIMIT $2)",
            vec![after.into(), limit.into()],
        )
        .await
    }

    async fn all_model_versions(&self) -> Result<Vec<ModelVersion>> {
        let rows = self
            .rows_of(
                Stmt::query(
                    format!(
                        "SELECT c.{}, v.number, v.objects, v.added, v.changed, v.removed, \
                         v.model_id FROM import_versions v \
                         JOIN catalog_versions c ON c.stamp = v.stamp \
                         ORDER BY c.version, v.model_id",
                        REVISION_COLUMNS.replace(", ", ", c.")
                    ),
                    Vec::new(),
                ),
                "the versions of every model",
            )
            .await?;
        rows.into_iter()
            .map(|row| {
                const T: &str = "import_versions";
                let counts = ModelVersionCounts {
                    model: row.int(11, T)?,
                    objects: row.int(7, T)?,
                    added: row.int(8, T)?,
                    changed: row.int(9, T)?,
                    removed: row.int(10, T)?,
                };
                let number = row.int(6, T)?;
                Ok(ModelVersion {
                    number,
                    revision: revision(row)?,
                    counts,
                })
            })
            .collect()
    }

    async fn server_grant_history(&self, limit: usize) -> Result<(Vec<Versioned<Grant>>, bool)> {
        let limit = limit.min(i64::MAX as usize - 1);
        let (table, columns, width) = GRANTS;
        let rows = self
            .rows_of(
                Stmt::query(
                    images(table, columns, "t.model_id IS NULL", "$1", None),
                    vec![SqlValue::from((limit + 1) as i64)],
                ),
                "the history of the server's grants",
            )
            .await?;
        let mut images = versioned(rows, width, read::grant)?;
        let cut = keep_newest(&mut images, limit);
        Ok((images, cut))
    }

    async fn purge_curation_history(&self, floor: i64) -> Result<u64> {
        let mut pending = crate::write::Pending::default();
        for (table, ..) in [CURATION, GRANTS] {
            pending.push(
                Stmt::exec(
                    format!(
                        "DELETE FROM {table}_history WHERE valid_to IN \
                         (SELECT stamp FROM catalog_versions WHERE version <= $1)"
                    ),
                    vec![SqlValue::from(floor)],
                ),
                crate::write::Context::of(format!("purging the history of {table}")),
            );
        }
        let outcomes = self.write_now(pending).await?;
        Ok(outcomes.iter().map(|o| o.affected).sum())
    }

    async fn entity_as_of(&self, id: ObjectId, version: i64) -> Result<(Option<Object>, Details)> {
        let history = self.read_history(id, ENTITY_IMAGES, Some(version)).await?;
        Ok(lore_core::store::entity_at(history, version))
    }

    async fn edges_as_of(&self, id: ObjectId, version: i64) -> Result<Vec<Edge>> {
        const COLUMNS: &str =
            "kind, source_model, source_object, target_model, target_object, name, origin";
        let (from, to) = (version_of("t.valid_from"), version_of("t.valid_to"));
        let mut parts = Vec::new();
        for end in ["source", "target"] {
            let key = format!("t.{end}_model = $1 AND t.{end}_object = $2");
            parts.push(format!(
                "SELECT {COLUMNS} FROM edges t WHERE {key} AND {from} <= $3"
            ));
            parts.push(format!(
                "SELECT {COLUMNS} FROM edges_history t WHERE {key} \
                 AND {from} <= $3 AND {to} > $3"
            ));
        }
        let rows = self
            .rows_of(
                Stmt::query(
                    parts.join(" UNION "),
                    vec![SqlValue::from(id.model), id.object.into(), version.into()],
                ),
                "the edges of an object as of a version",
            )
            .await?;
        let mut edges = read::all(rows, read::edge)?;
        edges.sort();
        edges.dedup();
        Ok(edges)
    }

    async fn objects_with_details_as_of(
        &self,
        ids: &[ObjectId],
        version: i64,
    ) -> Result<(Vec<Object>, Details)> {
        self.objects_with_details_at(ids, Some(version)).await
    }

    async fn entities_as_of(
        &self,
        ids: &[ObjectId],
        version: i64,
    ) -> Result<Vec<(Option<Object>, Details)>> {
        let histories = self.histories_current(ids, version, version).await?;
        Ok(ids
            .iter()
            .map(|id| {
                let history = histories.get(id).cloned().unwrap_or_default();
                lore_core::store::entity_at(history, version)
            })
            .collect())
    }

    async fn entities_at_both(
        &self,
        ids: &[ObjectId],
        first: i64,
        second: i64,
    ) -> Result<Vec<EntityPair>> {
        let (low, high) = (first.min(second), first.max(second));
        let histories = self.histories_current(ids, low, high).await?;
        Ok(ids
            .iter()
            .map(|id| {
                let history = histories.get(id).cloned().unwrap_or_default();
                (
                    lore_core::store::entity_at(history.clone(), first),
                    lore_core::store::entity_at(history, second),
                )
            })
            .collect())
    }

    async fn objects_changed_between(
        &self,
        model: i64,
        from: i64,
        to: i64,
        limit: usize,
    ) -> Result<Vec<ObjectId>> {
        let Some(changed) = self.stamp_test(from, Some(to)).await? else {
            return Ok(Vec::new());
        };
        let parts: Vec<String> = changed_rows(false)
            .into_iter()
            .map(|(name, stamp, [m, o])| {
                format!(
                    "SELECT t.{o} AS object_id FROM {name} t WHERE {} AND t.{m} = $1",
                    changed.of(stamp)
                )
            })
            .collect();
        let sql = format!(
            "SELECT object_id FROM ({}) c ORDER BY object_id LIMIT $2",
            parts.join(" UNION ")
        );
        let limit = limit.min(i64::MAX as usize) as i64;
        let rows = self
            .rows_of(
                Stmt::query(sql, vec![SqlValue::from(model), limit.into()]),
                "the objects changed between two versions",
            )
            .await?;
        rows.into_iter()
            .map(|row| Ok(ObjectId::new(model, row.int(0, "objects")?)))
            .collect()
    }

    async fn objects_changed_after(&self, after: i64, limit: usize) -> Result<Vec<ObjectId>> {
        let Some(changed) = self.stamp_test(after, None).await? else {
            return Ok(Vec::new());
        };
        let parts: Vec<String> = changed_rows(true)
            .into_iter()
            .map(|(name, stamp, [m, o])| {
                format!(
                    "SELECT t.{m} AS model_id, t.{o} AS object_id FROM {name} t WHERE {}",
                    changed.of(stamp)
                )
            })
            .collect();
        let sql = format!(
            "SELECT model_id, object_id FROM ({}) c ORDER BY model_id, object_id LIMIT $1",
            parts.join(" UNION ")
        );
        let limit = limit.min(i64::MAX as usize) as i64;
        let rows = self
            .rows_of(
                Stmt::query(sql, vec![SqlValue::from(limit)]),
                "the objects changed after a version",
            )
            .await?;
        rows.into_iter()
            .map(|row| {
                Ok(ObjectId::new(
                    row.int(0, "objects")?,
                    row.int(1, "objects")?,
                ))
            })
            .collect()
    }

    async fn model_versions(
        &self,
        model: i64,
        before: Option<i64>,
        limit: usize,
    ) -> Result<Vec<ModelVersion>> {
        let rows = self
            .rows_of(
                Stmt::query(
                    format!(
                        "SELECT c.{}, v.number, v.objects, v.added, v.changed, v.removed \
                         FROM import_versions v JOIN catalog_versions c ON c.stamp = v.stamp \
                         WHERE v.model_id = $1 AND v.number < $2 ORDER BY v.number DESC LIMIT $3",
                        REVISION_COLUMNS.replace(", ", ", c.")
                    ),
                    vec![
                        SqlValue::from(model),
                        before.unwrap_or(i64::MAX).into(),
                        (limit.min(i64::MAX as usize) as i64).into(),
                    ],
                ),
                "the versions of a model",
            )
            .await?;
        rows.into_iter()
            .map(|row| {
                const T: &str = "import_versions";
                let counts = ModelVersionCounts {
                    model,
                    objects: row.int(7, T)?,
                    added: row.int(8, T)?,
                    changed: row.int(9, T)?,
                    removed: row.int(10, T)?,
                };
                let number = row.int(6, T)?;
                Ok(ModelVersion {
                    number,
                    revision: revision(row)?,
                    counts,
                })
            })
            .collect()
    }

    async fn purge_history(&self, floor: i64) -> Result<u64> {
        // Only forward, only to a kept revision: each statement holds the same guard,
        // read before the last one moves the floor.
        const GUARD: &str = "$1 > (SELECT version FROM versions WHERE name = 'history_floor') \
             AND $1 >= (SELECT MIN(version) FROM catalog_versions) \
             AND EXISTS (SELECT 1 FROM catalog_versions WHERE version = $1)";
        let mut pending = crate::write::Pending::default();
        let context = |what: String| crate::write::Context::of(what);
        for (table, ..) in TABLES {
            pending.push(
                Stmt::exec(
                    format!(
                        "DELETE FROM {table}_history WHERE valid_to IN \
                         (SELECT stamp FROM catalog_versions WHERE version <= $1) AND {GUARD}"
                    ),
                    vec![SqlValue::from(floor)],
                ),
                context(format!("purging the history of {table}")),
            );
        }
        pending.push(
            Stmt::exec(
                format!(
                    "DELETE FROM import_versions WHERE stamp IN \
                     (SELECT stamp FROM catalog_versions WHERE version < $1) AND {GUARD}"
                ),
                vec![SqlValue::from(floor)],
            ),
            context("purging model versions".to_owned()),
        );
        pending.push(
            Stmt::exec(
                format!(
                    "UPDATE versions SET version = $1 WHERE name = 'history_floor' AND {GUARD}"
                ),
                vec![SqlValue::from(floor)],
            ),
            context("moving the floor of the history".to_owned()),
        );
        let outcomes = self.write_now(pending).await?;
        Ok(outcomes.iter().take(TABLES.len()).map(|o| o.affected).sum())
    }

    async fn versions_floor(&self, keep: usize) -> Result<Option<i64>> {
        let rows = self
            .rows_of(
                Stmt::query(
                    "SELECT MIN(c.version) FROM (SELECT v.stamp, ROW_NUMBER() OVER \
                     (PARTITION BY v.model_id ORDER BY v.number DESC) AS r FROM import_versions v) k \
                     JOIN catalog_versions c ON c.stamp = k.stamp WHERE k.r = $1",
                    vec![SqlValue::from(keep.clamp(1, i64::MAX as usize) as i64)],
                ),
                "the floor of the versions kept",
            )
            .await?;
        match rows.into_iter().next() {
            Some(row) => row.opt_int(0, "import_versions"),
            None => Ok(None),
        }
    }
}
