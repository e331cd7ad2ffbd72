//! [`SqlStore`]'s [`ObjectStore`]: objects and what hangs on them (union reads by id),
//! lineage walks, and MQL plans compiled to SQL.

use std::sync::OnceLock;

use async_trait::async_trait;
use lore_core::model::*;
use lore_core::mql::plan::{Column, Facet, Field, FieldType, Lit, Page, Plan, ValueCount};
use lore_core::store::{Details, EntityRead, Explanation, ObjectStore, Scope};
use lore_core::{Error, ObjectId, Result};

use super::{SqlStore, id_pairs};
use crate::as_of::compiled_as_of;
use crate::compile;
use crate::dialect::Dialect;
use crate::driver::{Driver, Stmt};
use crate::entities::KeptEntity;
use crate::hits::{Hits, Kept};
use crate::read::{self, object_columns};
use crate::union::{Part, split, union_all};
use crate::value::{ColType, Row, SqlValue};
use crate::write;

/// The objects of the keys.
fn objects_part<D: Driver>(keys: Keys) -> Part {
    Part {
        columns: write::OBJECTS.columns,
        from: format!("FROM objects t {}", keys.join::<D>()),
    }
}

/// Which objects a union read covers, as its statement names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Keys {
    /// `$1`: a JSON array of id pairs ([`id_pairs`]).
    Pairs,
    /// One object: `$1` its model, `$2` its number. Plain index lookups, cheaper to run
    /// than the pairs' JSON (an entity read).
    One,
    /// `$1`: a model, all its objects.
    Model,
}

impl Keys {
    /// What follows `FROM <table> t` to keep the rows of the keys.
    fn join<D: Driver>(self) -> String {
        match self {
            Self::Pairs => format!(
                "JOIN ({}) s ON s.model_id = t.model_id AND s.object_id = t.object_id",
                D::DIALECT.id_pairs(1)
            ),
            Self::One => "WHERE t.model_id = $1 AND t.object_id = $2".to_owned(),
            Self::Model => "WHERE t.model_id = $1".to_owned(),
        }
    }

    /// The edges leaving (`end` "source") or reaching ("target") the keys.
    fn edges<D: Driver>(self, end: &str) -> String {
        match self {
            Self::Pairs => format!(
                "({}) s JOIN edges e ON e.{end}_model = s.model_id AND e.{end}_object = s.object_id",
                D::DIALECT.id_pairs(1)
            ),
            Self::One => format!("edges e WHERE e.{end}_model = $1 AND e.{end}_object = $2"),
            Self::Model => format!("edges e WHERE e.{end}_model = $1"),
        }
    }

    /// The parameters of a union read of `ids` with these keys.
    fn params(self, ids: &[ObjectId]) -> Vec<SqlValue> {
        match (self, ids) {
            (Self::One, [id]) => vec![id.model.into(), id.object.into()],
            _ => vec![id_pairs(ids)],
        }
    }

    /// The keys naming `ids`.
    fn of(ids: &[ObjectId]) -> Self {
        if ids.len() == 1 {
            Self::One
        } else {
            Self::Pairs
        }
    }
}

use crate::value::ColType::{Int, Text};

const EDGE_PART: &[(&str, ColType)] = &[
    ("kind", Text),
    ("source_model", Int),
    ("source_object", Int),
    ("target_model", Int),
    ("target_object", Int),
    ("name", Text),
    ("origin", Text),
];

const CLASSIFICATION_PART: &[(&str, ColType)] = &[
    ("model_id", Int),
    ("object_id", Int),
    ("data_class", Text),
    ("status", Text),
];

const LABEL_PART: &[(&str, ColType)] = &[
    ("model_id", Int),
    ("object_id", Int),
    ("label", Text),
    ("status", Text),
];

const PROFILING_PART: &[(&str, ColType)] = &[
    ("model_id", Int),
    ("object_id", Int),
    ("profile", Text),
    ("sample", Text),
];

/// The six parts of a details read, in the order [`decode_details`] takes them.
fn details_parts<D: Driver>(keys: Keys) -> Vec<Part> {
    let join = keys.join::<D>();
    let (from_sources, from_targets) = (keys.edges::<D>("source"), keys.edges::<D>("target"));
    let part = |columns, table: &str| Part {
        columns,
        from: format!("FROM {table} t {join}"),
    };
    vec![
        part(write::ATTRIBUTE_VALUES.columns, "attribute_values"),
        Part {
            columns: EDGE_PART,
            from: format!(
                "FROM (SELECT {cols} FROM {from_sources} UNION SELECT {cols} FROM {from_targets}) t",
                cols = read::EDGE_COLUMNS
            ),
        },
        part(write::TAGS.columns, "tags"),
        part(CLASSIFICATION_PART, "classifications"),
        part(LABEL_PART, "label_assignments"),
        part(PROFILING_PART, "profiling"),
    ]
}

/// The parts of [`ObjectStore::entity_read`] of one object (`$1`, `$2`), in the order it
/// decodes them: the object, its attribute values, the edges from it, its tags and
/// classifications, its model's version ([`model_version_part`]); with `check`, the
/// session of the key hash `$3` at `$4` last.
fn entity_parts<D: Driver>(check: bool) -> Vec<Part> {
    let join = Keys::One.join::<D>();
    let part = |columns, table: &str| Part {
        columns,
        from: format!("FROM {table} t {join}"),
    };
    let mut parts = vec![
        objects_part::<D>(Keys::One),
        part(write::ATTRIBUTE_VALUES.columns, "attribute_values"),
        Part {
            columns: EDGE_PART,
            from: "FROM edges t WHERE t.source_model = $1 AND t.source_object = $2".to_owned(),
        },
        part(write::TAGS.columns, "tags"),
        part(CLASSIFICATION_PART, "classifications"),
        model_version_part(),
    ];
    if check {
        parts.push(super::sessions::session_check_part(3));
    }
    parts
}

/// The parts of an entity read that finds a kept one ([`crate::entities`]) unchanged:
/// the version of the model `$1`; with `check`, the session of the key hash `$2` at `$3`.
fn entity_unchanged_parts(check: bool) -> Vec<Part> {
    let mut parts = vec![model_version_part()];
    if check {
        parts.push(super::sessions::session_check_part(2));
    }
    parts
}

/// The version of model `$1`'s objects (migration 28) and that of the repository's
/// (model -1's: where models hang, which [`EntityRead::repository_version`] answers), in
/// one row; 0 where there is none.
fn model_version_part() -> Part {
    let all = crate::ALL_MODELS;
    let repository = lore_core::id::REPOSITORY_MODEL;
    Part {
        columns: &[("version", Int), ("repository_version", Int)],
        from: format!(
            "FROM (SELECT MAX(CASE WHEN model_id IN ($1, {all}) THEN version END) AS version, \
             MAX(CASE WHEN model_id IN ({repository}, {all}) THEN version END) \
             AS repository_version \
             FROM model_versions WHERE model_id IN ($1, {repository}, {all})) t"
        ),
    }
}

/// The versions a [`model_version_part`] read: the model's and the repository's.
fn model_versions(rows: Vec<Row>) -> Result<(i64, i64)> {
    Ok(match rows.into_iter().next() {
        Some(row) => (
            row.opt_int(0, "model_versions")?.unwrap_or(0),
            row.opt_int(1, "model_versions")?.unwrap_or(0),
        ),
        None => (0, 0),
    })
}

/// A union read of objects by id, built once per dialect: its parts and its statement.
struct Union {
    parts: Vec<Part>,
    sql: String,
}

/// The union reads of objects by id, built once per dialect: what hangs on them, and the
/// objects with what hangs on them, each by a list of ids ([`Keys::Pairs`]) and by one
/// ([`Keys::One`]).
struct Unions {
    details: [Union; 2],
    with_objects: [Union; 2],
    /// [`entity_parts`] without and with the key's check.
    entity: [Union; 2],
    /// [`entity_unchanged_parts`] without and with the key's check.
    entity_unchanged: [Union; 2],
}

impl Unions {
    fn details(&self, keys: Keys) -> &Union {
        &self.details[usize::from(keys == Keys::One)]
    }

    fn with_objects(&self, keys: Keys) -> &Union {
        &self.with_objects[usize::from(keys == Keys::One)]
    }
}

fn object_unions<D: Driver>() -> &'static Unions {
    static BUILT: [OnceLock<Unions>; 2] = [const { OnceLock::new() }; 2];
    BUILT[D::DIALECT as usize].get_or_init(|| {
        let union = |parts: Vec<Part>| Union {
            sql: union_all(&parts),
            parts,
        };
        let with_objects = |keys: Keys| {
            let mut parts = details_parts::<D>(keys);
            parts.insert(0, objects_part::<D>(keys));
            union(parts)
        };
        Unions {
            details: [Keys::Pairs, Keys::One].map(|keys| union(details_parts::<D>(keys))),
            with_objects: [with_objects(Keys::Pairs), with_objects(Keys::One)],
            entity: [false, true].map(|check| union(entity_parts::<D>(check))),
            entity_unchanged: [false, true].map(|check| union(entity_unchanged_parts(check))),
        }
    })
}

/// The rows of [`details_parts`], sorted as the contract names.
fn decode_details(mut results: impl Iterator<Item = Vec<Row>>) -> Result<Details> {
    let mut next = || results.next().unwrap_or_default();
    let mut attributes = read::all(next(), read::attribute)?;
    attributes.sort_by(|a, b| (a.object, &a.attribute).cmp(&(b.object, &b.attribute)));
    let mut edges = read::all(next(), read::edge)?;
    edges.sort();
    let mut tags = read::all(next(), read::tag)?;
    tags.sort();
    let mut classifications = read::all(next(), read::classification)?;
    classifications.sort();
    let mut labels = read::all(next(), read::label)?;
    labels.sort();
    let mut profiling = read::all(next(), read::profiling)?;
    profiling.sort_by_key(|p| p.object);
    Ok(Details {
        attributes,
        edges,
        tags,
        classifications,
        labels,
        profiling,
    })
}

#[async_trait]
impl<D: Driver> ObjectStore for SqlStore<D> {
    async fn object(&self, id: ObjectId) -> Result<Option<Object>> {
        self.one_object(
            concat!(
                "SELECT ",
                object_columns!(),
                " FROM objects WHERE model_id = $1 AND object_id = $2"
            ),
            vec![id.model.into(), id.object.into()],
        )
        .await
    }

    async fn object_by_stable_id(&self, stable_id: &str) -> Result<Option<Object>> {
        self.one_object(
            concat!(
                "SELECT ",
                object_columns!(),
                " FROM objects WHERE stable_id = $1"
            ),
            vec![stable_id.into()],
        )
        .await
    }

    async fn child_by_name(
        &self,
        model: i64,
        parent: Option<ObjectId>,
        name: &str,
    ) -> Result<Option<Object>> {
        // a parent is always in the id space of its children
        if parent.is_some_and(|p| p.model != model) {
            return Ok(None);
        }
        // `parent = $2` or `parent IS NULL`, not `IS NOT DISTINCT FROM`: PostgreSQL uses
        // no index for that, and read every object of the model for each lookup.
        match parent {
            Some(parent) => {
                self.one_object(
                    concat!(
                        "SELECT ",
                        object_columns!(),
                        " FROM objects WHERE model_id = $1 AND parent = $2 AND name = $3 \
                         ORDER BY object_id LIMIT 1"
                    ),
                    vec![model.into(), parent.object.into(), name.into()],
                )
                .await
            }
            None => {
                self.one_object(
                    concat!(
                        "SELECT ",
                        object_columns!(),
                        " FROM objects WHERE model_id = $1 AND parent IS NULL AND name = $2 \
                         ORDER BY object_id LIMIT 1"
                    ),
                    vec![model.into(), name.into()],
                )
                .await
            }
        }
    }

    async fn children(&self, model: i64, parent: Option<ObjectId>) -> Result<Vec<Object>> {
        if parent.is_some_and(|p| p.model != model) {
            return Ok(Vec::new());
        }
        match parent {
            Some(parent) => {
                self.objects(
                    concat!(
                        "SELECT ",
                        object_columns!(),
                        " FROM objects WHERE model_id = $1 AND parent = $2 ORDER BY name, object_id"
                    ),
                    vec![model.into(), parent.object.into()],
                )
                .await
            }
            None => {
                self.objects(
                    concat!(
                        "SELECT ",
                        object_columns!(),
                        " FROM objects WHERE model_id = $1 AND parent IS NULL ORDER BY name, object_id"
                    ),
                    vec![model.into()],
                )
                .await
            }
        }
    }

    async fn model_objects(&self, model: i64) -> Result<Vec<Object>> {
        self.objects(
            concat!(
                "SELECT ",
                object_columns!(),
                " FROM objects WHERE model_id = $1 ORDER BY object_id"
            ),
            vec![model.into()],
        )
        .await
    }

    async fn model_objects_page(
        &self,
        model: i64,
        after: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Object>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        self.objects(
            concat!(
                "SELECT ",
                object_columns!(),
                " FROM objects WHERE model_id = $1 AND object_id > $2 ORDER BY object_id LIMIT $3"
            ),
            vec![model.into(), after.unwrap_or(i64::MIN).into(), limit.into()],
        )
        .await
    }

    async fn model_prints_page(
        &self,
        model: i64,
        after: Option<i64>,
        limit: usize,
    ) -> Result<Vec<PrintedObject>> {
        let limit = i64::try_from(limit).unwrap_or(i64::MAX);
        let rows = self
            .rows(
                "SELECT o.model_id, o.object_id, o.native_id, o.parent, o.created_at, p.mask, \
                 p.print FROM objects o LEFT JOIN import_prints p \
                 ON p.model_id = o.model_id AND p.object_id = o.object_id \
                 WHERE o.model_id = $1 AND o.object_id > $2 ORDER BY o.object_id LIMIT $3",
                vec![model.into(), after.unwrap_or(i64::MIN).into(), limit.into()],
                "import prints",
            )
            .await?;
        read::all(rows, read::printed_object)
    }

    async fn objects_of_kind(&self, kind: ObjectKind) -> Result<Vec<Object>> {
        // Only model objects live outside the repository's id space (core's `prepare`):
        // the others are found in its range of the key.
        let sql = if kind == ObjectKind::ModelObject {
            concat!(
                "SELECT ",
                object_columns!(),
                " FROM objects WHERE model_id <> -1 ORDER BY name, model_id, object_id"
            )
        } else {
            concat!(
                "SELECT ",
                object_columns!(),
                " FROM objects WHERE model_id = -1 AND kind = $1 ORDER BY name, model_id, object_id"
            )
        };
        let params = if kind == ObjectKind::ModelObject {
            Vec::new()
        } else {
            vec![kind.as_str().into()]
        };
        self.objects(sql, params).await
    }

    async fn repository_version(&self) -> Result<Option<i64>> {
        // Model -1's row (where models hang) and ALL_MODELS's, as `model_version_part`.
        let sql = format!(
            "SELECT MAX(version) FROM model_versions WHERE model_id IN ({}, {})",
            lore_core::id::REPOSITORY_MODEL,
            crate::ALL_MODELS
        );
        let rows = self
            .short_rows(Stmt::query(sql, Vec::new()), "the repository's version")
            .await?;
        let version = match rows.first() {
            Some(row) => row.opt_int(0, "model_versions")?,
            None => None,
        };
        Ok(Some(version.unwrap_or(0)))
    }

    async fn query(&self, plan: &Plan, page: Page) -> Result<Vec<ObjectId>> {
        if plan.as_of.is_some() {
            let compiled = self.page_as_of(plan, page);
            let rows = self
                .rows_of(
                    Stmt::query(compiled.sql, compiled.params),
                    "a query as of a version",
                )
                .await?;
            return page_ids(&rows);
        }
        // A search's objects kept in name order answer a page in that order.
        let name_order = match &plan.order[..] {
            [key] if key.field == Field::Column(Column::Name) => Some(key.descending),
            _ => None,
        };
        if let Some(descending) = name_order
            && let Some(found) = self.mirrored(plan).await?
        {
            return Ok(found.page(page, descending));
        }
        let mut missing = false;
        if let Some(descending) = name_order {
            match self.kept_hits(plan).await? {
                Kept::Hits(hits) => return Ok(hits.page(page, descending)),
                Kept::Missing => missing = true,
                Kept::No => {}
            }
        }
        let statements = self.page_statement(plan, page).await?;
        if let Some(first) = statements.first_try {
            let rows = self
                .rows_of(Stmt::query(first.sql, first.params), "a query")
                .await?;
            if rows.len() as u64 >= page.limit {
                return page_ids(&rows);
            }
            // The term's objects are few or late in name order: the page's statement
            // would read them all. Read them for the cache instead, for this page and
            // the count and facets that follow it.
            if let (Some(descending), true) = (name_order, missing)
                && let Some(hits) = self.keep_hits(plan).await?
            {
                return Ok(hits.page(page, descending));
            }
        }
        let compiled = statements.statement;
        let rows = self
            .rows_of(Stmt::query(compiled.sql, compiled.params), "a query")
            .await?;
        page_ids(&rows)
    }

    async fn count(&self, plan: &Plan) -> Result<u64> {
        if plan.as_of.is_some() {
            let compiled = compile::count(plan, D::DIALECT, &compile::NO_KEYS);
            let compiled = compiled_as_of(compiled, D::DIALECT, plan.as_of);
            let n = self
                .number(
                    Stmt::query(compiled.sql, compiled.params),
                    "a count as of a version",
                )
                .await?;
            return Ok(n.max(0) as u64);
        }
        if let Some(found) = self.mirrored(plan).await? {
            return Ok(found.count());
        }
        if let Some(hits) = self.hits(plan).await? {
            return Ok(hits.count());
        }
        let compiled = compile::tally::count(plan, D::DIALECT)
            .or_else(|| compile::tags::count(plan, D::DIALECT));
        let compiled = match compiled {
            Some(compiled) => compiled,
            None => compile::count(plan, D::DIALECT, &self.search_keys(plan).await?),
        };
        let n = self
            .number(Stmt::query(compiled.sql, compiled.params), "a count")
            .await?;
        Ok(n.max(0) as u64)
    }

    async fn value_counts(
        &self,
        plan: &Plan,
        facets: &[Facet],
        limit: u64,
    ) -> Result<Vec<Vec<ValueCount>>> {
        if plan.as_of.is_some() {
            return self.counted_by_statements(plan, facets, limit).await;
        }
        // Facets the search index counts, when it serves the plan: counted there, the
        // others by statements.
        if facets.iter().any(crate::mirror::counts)
            && let Some(found) = self.mirrored(plan).await?
        {
            let others: Vec<Facet> = facets
                .iter()
                .filter(|f| !crate::mirror::counts(f))
                .cloned()
                .collect();
            let mut others = self
                .counted_by_statements(plan, &others, limit)
                .await?
                .into_iter();
            return Ok(found
                .value_counts(facets, limit)
                .into_iter()
                .map(|counted| match counted {
                    Some(counts) => counts,
                    None => others.next().unwrap_or_default(),
                })
                .collect());
        }
        // The facets a search's kept objects hold are counted from them: read now when
        // they are all such facets, else only when kept already (the others' statement
        // finds the objects anyway).
        let kept = facets.iter().filter(|f| Hits::counts(f)).count();
        let hits = if kept == 0 {
            None
        } else if kept == facets.len() {
            self.hits(plan).await?
        } else {
            match self.kept_hits(plan).await? {
                Kept::Hits(hits) => Some(hits),
                Kept::Missing | Kept::No => None,
            }
        };
        let Some(hits) = hits else {
            return self.counted_by_statements(plan, facets, limit).await;
        };
        let others: Vec<Facet> = facets
            .iter()
            .filter(|f| !Hits::counts(f))
            .cloned()
            .collect();
        let mut others = self
            .counted_by_statements(plan, &others, limit)
            .await?
            .into_iter();
        Ok(facets
            .iter()
            .map(|facet| match hits.value_counts(facet, limit) {
                Some(counts) => counts,
                None => others.next().unwrap_or_default(),
            })
            .collect())
    }

    async fn explain(&self, plan: &Plan, page: Page) -> Result<Option<Explanation>> {
        // The statement that answers the page when its first try does not.
        let compiled = match plan.as_of {
            Some(_) => self.page_as_of(plan, page),
            None => self.page_statement(plan, page).await?.statement,
        };
        let explain = D::DIALECT.explain(&compiled.sql);
        let rows = self
            .rows_of(Stmt::query(explain, compiled.params), "a query plan")
            .await?;
        let mut lines = Vec::new();
        for mut row in rows {
            // SQLite: (id, parent, notused, detail); PostgreSQL: one line of text.
            let last = row.0.len().saturating_sub(1);
            lines.push(row.text(last, "query plan")?);
        }
        Ok(Some(Explanation {
            sql: compiled.sql,
            database_plan: lines,
        }))
    }

    async fn objects(&self, ids: &[ObjectId]) -> Result<Vec<Object>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let keys = Keys::of(ids);
        let part = objects_part::<D>(keys);
        let rows = self
            .rows_of(Stmt::query(part.query(), keys.params(ids)), "objects")
            .await?;
        let mut objects = read::all(rows, read::object)?;
        objects.sort_by_key(|o| o.id);
        Ok(objects)
    }

    async fn details(&self, scope: Scope) -> Result<Details> {
        let rows = match scope {
            Scope::Model(model) => {
                // A whole model: one query per part (in one snapshot), each row as narrow
                // as its table.
                let queries = details_parts::<D>(Keys::Model)
                    .iter()
                    .map(|p| Stmt::query(p.query(), vec![model.into()]))
                    .collect();
                self.read(queries, "the details of a model")
                    .await?
                    .into_iter()
                    .map(|o| o.rows)
                    .collect()
            }
            Scope::Objects(ids) => {
                let keys = Keys::of(&ids);
                let union = object_unions::<D>().details(keys);
                let rows = self
                    .rows_of(
                        Stmt::query(union.sql.as_str(), keys.params(&ids)),
                        "the details of objects",
                    )
                    .await?;
                split(&union.parts, rows)?
            }
        };
        decode_details(rows.into_iter())
    }

    async fn objects_with_details(&self, ids: &[ObjectId]) -> Result<(Vec<Object>, Details)> {
        self.objects_with_details_at(ids, None).await
    }

    async fn entity_read(
        &self,
        id: ObjectId,
        key: Option<(&str, Timestamp)>,
    ) -> Result<EntityRead> {
        let unions = object_unions::<D>();
        let with_key = usize::from(key.is_some());
        let key_params = |mut params: Vec<SqlValue>| {
            if let Some((key_hash, now)) = key {
                params.extend([key_hash.into(), now.into()]);
            }
            params
        };
        // The check is the last part, when asked for.
        let check_of = |results: &mut Vec<Vec<Row>>| match key {
            Some(_) => read::first(
                results.pop().unwrap_or_default(),
                super::sessions::session_check,
            ),
            None => Ok(None),
        };
        let kept = match self.snapshot {
            None => self.entities.get(&id),
            Some(_) => None,
        };
        if let Some(kept) = kept {
            let union = &unions.entity_unchanged[with_key];
            let rows = self
                .short_rows(
                    Stmt::query(union.sql.as_str(), key_params(vec![id.model.into()])),
                    "an object's entity",
                )
                .await?;
            let mut results = split(&union.parts, rows)?;
            let check = check_of(&mut results)?;
            let (version, repository) = model_versions(results.pop().unwrap_or_default())?;
            if version == kept.version {
                return Ok(EntityRead {
                    object: Some(kept.object.clone()),
                    details: kept.details.clone(),
                    check,
                    repository_version: Some(repository),
                });
            }
        }
        let union = &unions.entity[with_key];
        let rows = self
            .short_rows(
                Stmt::query(union.sql.as_str(), key_params(Keys::One.params(&[id]))),
                "an object's entity",
            )
            .await?;
        let mut results = split(&union.parts, rows)?;
        let check = check_of(&mut results)?;
        let (version, repository) = model_versions(results.pop().unwrap_or_default())?;
        // The details' parts are in the order `decode_details` takes them, the two it
        // does not read left empty.
        let mut results = results.into_iter();
        let object = read::first(results.next().unwrap_or_default(), read::object)?;
        let details = decode_details(results)?;
        match (&object, &self.snapshot) {
            (Some(object), None) => {
                self.entities
                    .keep(KeptEntity::new(version, object.clone(), details.clone()))
            }
            (None, None) => self.entities.forget(&id),
            (_, Some(_)) => {}
        }
        Ok(EntityRead {
            object,
            details,
            check,
            repository_version: Some(repository),
        })
    }

    async fn edges(&self, kind: EdgeKind, object: ObjectId, incoming: bool) -> Result<Vec<Edge>> {
        let sql = if incoming {
            "SELECT e.kind, e.source_model, e.source_object, e.target_model, e.target_object, e.name, e.origin FROM edges e \
             WHERE e.target_model = $1 AND e.target_object = $2 AND e.kind = $3"
        } else {
            "SELECT e.kind, e.source_model, e.source_object, e.target_model, e.target_object, e.name, e.origin FROM edges e \
             WHERE e.source_model = $1 AND e.source_object = $2 AND e.kind = $3"
        };
        let rows = self
            .rows(
                sql,
                vec![
                    object.model.into(),
                    object.object.into(),
                    kind.as_str().into(),
                ],
                "edges",
            )
            .await?;
        let mut edges = read::all(rows, read::edge)?;
        edges.sort();
        Ok(edges)
    }

    async fn lineage(
        &self,
        start: ObjectId,
        downstream: bool,
        bounds: LineageBounds,
    ) -> Result<LineageWalk> {
        let sql = lineage_sql(D::DIALECT, downstream);
        let budget = i64::try_from(LINEAGE_WALK_BUDGET).unwrap_or(i64::MAX);
        let rows = self
            .rows_of(
                Stmt::query(
                    sql,
                    vec![
                        start.model.into(),
                        start.object.into(),
                        EdgeKind::Lineage.as_str().into(),
                        i64::from(bounds.depth).into(),
                        i64::from(bounds.fan_out).into(),
                        (budget + 1).into(),
                        (i64::from(bounds.limit) + 1).into(),
                    ],
                ),
                "lineage",
            )
            .await?;
        let mut truncated = false;
        let mut edges = Vec::with_capacity(rows.len());
        for row in rows {
            let depth = row.int(7, "edges")?;
            truncated |= row.int(8, "edges")? > budget;
            let depth = u32::try_from(depth)
                .map_err(|_| Error::internal(format!("a lineage walk answered depth {depth}")))?;
            edges.push((read::edge(row)?, depth));
        }
        if edges.len() > bounds.limit as usize {
            truncated = true;
            edges.truncate(bounds.limit as usize);
        }
        Ok(LineageWalk { edges, truncated })
    }
}

/// The lineage walk of [`ObjectStore::lineage`] as one statement: a recursive walk of (object,
/// depth) steps that follows each object's first `$5` edges (by the far end, then name)
/// up to depth `$4`, at most `$6` steps; then every edge followed from an object reached
/// below depth `$4`, at the smallest depth it was reached, by depth, source, target and
/// name, at most `$7`. Each row ends with the depth and the number of steps walked.
/// The fan-out subquery and the joins use the edges' primary key (downstream) or
/// `edges_target` (upstream).
fn lineage_sql(dialect: Dialect, downstream: bool) -> String {
    // `near` is the end the walk stands on, `far` the end it goes to.
    let (near, far) = if downstream {
        ("source", "target")
    } else {
        ("target", "source")
    };
    let (walk_limit, bounded) = dialect.recursive_limit("SELECT m, o, depth FROM walk", "$6");
    let first_edges = |alias: &str| {
        format!(
            "(e.{far}_model, e.{far}_object, e.name) IN (\
             SELECT f.{far}_model, f.{far}_object, f.name FROM edges f \
             WHERE f.{near}_model = {alias}.m AND f.{near}_object = {alias}.o AND f.kind = $3 \
             ORDER BY f.{far}_model, f.{far}_object, f.name LIMIT $5)"
        )
    };
    format!(
        "WITH RECURSIVE walk(m, o, depth) AS (\
           SELECT CAST($1 AS BIGINT), CAST($2 AS BIGINT), CAST(0 AS BIGINT) \
           UNION \
           SELECT e.{far}_model, e.{far}_object, w.depth + 1 FROM walk w \
           {join} edges e ON e.{near}_model = w.m AND e.{near}_object = w.o AND e.kind = $3 \
           WHERE w.depth < $4 AND {walk_edges} {walk_limit}), \
         bounded AS ({bounded}), \
         nodes AS (SELECT m, o, MIN(depth) AS depth FROM bounded GROUP BY m, o) \
         SELECT e.kind, e.source_model, e.source_object, e.target_model, e.target_object, e.name, \
                e.origin, n.depth + 1, (SELECT COUNT(*) FROM bounded) \
         FROM nodes n \
         JOIN edges e ON e.{near}_model = n.m AND e.{near}_object = n.o AND e.kind = $3 \
         WHERE n.depth < $4 AND {node_edges} \
         ORDER BY n.depth + 1, e.source_model, e.source_object, e.target_model, e.target_object, e.name \
         LIMIT $7",
        join = dialect.ordered_join(),
        walk_edges = first_edges("w"),
        node_edges = first_edges("n"),
    )
}

impl<D: Driver> SqlStore<D> {
    /// [`ObjectStore::objects_with_details`], as of a version when one is given
    /// ([`HistoryRecords::objects_with_details_as_of`](lore_core::store::HistoryRecords)).
    pub(crate) async fn objects_with_details_at(
        &self,
        ids: &[ObjectId],
        version: Option<i64>,
    ) -> Result<(Vec<Object>, Details)> {
        let keys = Keys::of(ids);
        let union = object_unions::<D>().with_objects(keys);
        let sql: std::borrow::Cow<'static, str> = match version {
            Some(version) => crate::as_of::read_as_of(&union.sql, D::DIALECT, version).into(),
            None => union.sql.as_str().into(),
        };
        let rows = self
            .rows_of(
                Stmt::query(sql, keys.params(ids)),
                "objects and their details",
            )
            .await?;
        let mut rows = split(&union.parts, rows)?.into_iter();
        let mut objects = read::all(rows.next().unwrap_or_default(), read::object)?;
        objects.sort_by_key(|o| o.id);
        Ok((objects, decode_details(rows)?))
    }

    /// The facets' value counts by statements (a search's kept objects aside).
    async fn counted_by_statements(
        &self,
        plan: &Plan,
        facets: &[Facet],
        limit: u64,
    ) -> Result<Vec<Vec<ValueCount>>> {
        if facets.is_empty() {
            return Ok(Vec::new());
        }
        let mut answers: Vec<Vec<ValueCount>> = vec![Vec::new(); facets.len()];
        // The facets the tallies answer, each on its own. The others each in a
        // statement of their own too, unless finding the plan's objects is the costly
        // part (a text search they must pass): then one statement finds them once for
        // all the facets (materializing every object of a plan without one would cost
        // more than reading them again).
        let share = !compile::required_searches(plan).is_empty();
        let keys = match plan.as_of {
            Some(_) => compile::SearchKeys::default(),
            None => self.search_keys(plan).await?,
        };
        // The tallies count today's rows.
        let tallied = |facet| match plan.as_of {
            Some(_) => None,
            None => compile::tally::value_counts(plan, D::DIALECT, facet, limit),
        };
        let mut shared = Vec::new();
        for (i, facet) in facets.iter().enumerate() {
            let compiled = match tallied(facet) {
                Some(compiled) => compiled,
                None if share => {
                    shared.push(i);
                    continue;
                }
                None => compile::value_counts(plan, D::DIALECT, &keys, facet, limit),
            };
            let compiled = compiled_as_of(compiled, D::DIALECT, plan.as_of);
            answers[i] = self.counted(compiled, facet).await?;
        }
        match shared[..] {
            [] => {}
            [i] => {
                let compiled = compile::value_counts(plan, D::DIALECT, &keys, &facets[i], limit);
                let compiled = compiled_as_of(compiled, D::DIALECT, plan.as_of);
                answers[i] = self.counted(compiled, &facets[i]).await?;
            }
            _ => {
                let of: Vec<&Facet> = shared.iter().map(|&i| &facets[i]).collect();
                let compiled = compile::facets_counts(plan, D::DIALECT, &keys, &of, limit);
                let compiled = compiled_as_of(compiled, D::DIALECT, plan.as_of);
                let rows = self
                    .rows_of(Stmt::query(compiled.sql, compiled.params), "value counts")
                    .await?;
                for mut row in rows {
                    let position = usize::try_from(row.int(0, "value counts")?)
                        .ok()
                        .filter(|p| *p < shared.len())
                        .ok_or_else(|| Error::internal("value counts: a facet out of range"))?;
                    let count = row.int(1, "value counts")?.max(0) as u64;
                    let value = counted_value(&mut row, 2 + position, of[position])?;
                    answers[shared[position]].push(ValueCount { value, count });
                }
            }
        }
        Ok(answers)
    }

    /// The rows of one facet's statement, (value, count), as value counts.
    async fn counted(&self, compiled: compile::Compiled, facet: &Facet) -> Result<Vec<ValueCount>> {
        let rows = self
            .rows_of(Stmt::query(compiled.sql, compiled.params), "value counts")
            .await?;
        let mut counts = Vec::with_capacity(rows.len());
        for mut row in rows {
            let count = row.int(1, "value counts")?.max(0) as u64;
            let value = counted_value(&mut row, 0, facet)?;
            counts.push(ValueCount { value, count });
        }
        Ok(counts)
    }
}

/// The counted value of a facet in column `at` of a row of value counts.
fn counted_value(row: &mut Row, at: usize, facet: &Facet) -> Result<Lit> {
    Ok(match (facet.gap, facet.field.ty()) {
        (Some(_), _) | (None, FieldType::Text | FieldType::ExactText) => {
            Lit::Text(row.text(at, "value counts")?)
        }
        (None, FieldType::Integer) => Lit::Integer(row.int(at, "value counts")?),
        (None, FieldType::Double) => Lit::Double(row.real(at, "value counts")?),
        (None, FieldType::Boolean) => Lit::Boolean(row.bool(at, "value counts")?),
        (None, FieldType::Time) => Lit::Time(row.int(at, "value counts")?),
    })
}

/// The ids of a page's rows, `(model_id, object_id)`.
fn page_ids(rows: &[Row]) -> Result<Vec<ObjectId>> {
    rows.iter()
        .map(|row| {
            Ok(ObjectId::new(
                row.int(0, "objects")?,
                row.int(1, "objects")?,
            ))
        })
        .collect()
}
