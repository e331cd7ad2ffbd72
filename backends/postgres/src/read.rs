//! Rows into domain types, and the details read.
//!
//! A value the database holds but Lore cannot read (an unknown enum name, a NULL where a
//! value belongs, JSON of the wrong shape) is an internal error naming the table.

use lore_core::model::*;
use lore_core::store::{Details, Scope};
use lore_core::{Error, ObjectId, Result};
use sqlx::postgres::{PgPool, PgRow};
use sqlx::types::Json;
use sqlx::{PgConnection, Postgres, Row};

/// A domain type read from one row of its table.
pub(crate) trait Decode: Sized {
    /// The table the rows come from, named in errors.
    const TABLE: &'static str;
    fn read(row: &Columns<'_>) -> Result<Self>;

    fn decode(row: &PgRow) -> Result<Self> {
        Self::read(&Columns {
            row,
            table: Self::TABLE,
        })
    }
}

/// Decodes every row.
pub(crate) fn rows_to<T: Decode>(rows: &[PgRow]) -> Result<Vec<T>> {
    rows.iter().map(T::decode).collect()
}

/// The columns of one row, with errors that name the table.
pub(crate) struct Columns<'r> {
    row: &'r PgRow,
    table: &'static str,
}

impl<'r> Columns<'r> {
    fn get<T>(&self, column: &str) -> Result<T>
    where
        T: sqlx::Decode<'r, Postgres> + sqlx::Type<Postgres>,
    {
        self.row.try_get(column).map_err(|e| {
            Error::internal(format!(
                "cannot read column {column} of table {}: {e}",
                self.table
            ))
        })
    }

    /// An enum-like column, read with the core's `parse`.
    fn parse<T>(&self, column: &str, parse: fn(&str) -> Option<T>) -> Result<T> {
        let text: String = self.get(column)?;
        parse(&text).ok_or_else(|| {
            Error::internal(format!(
                "column {column} of table {} holds '{text}', which Lore does not know",
                self.table
            ))
        })
    }

    /// A JSON column.
    fn json<T>(&self, column: &str) -> Result<T>
    where
        Json<T>: sqlx::Decode<'r, Postgres> + sqlx::Type<Postgres>,
    {
        Ok(self.get::<Json<T>>(column)?.0)
    }

    /// A nullable JSON column.
    fn optional_json<T>(&self, column: &str) -> Result<Option<T>>
    where
        Json<T>: sqlx::Decode<'r, Postgres> + sqlx::Type<Postgres>,
    {
        Ok(self.get::<Option<Json<T>>>(column)?.map(|json| json.0))
    }

    fn id(&self, model: &str, object: &str) -> Result<ObjectId> {
        Ok(ObjectId::new(self.get(model)?, self.get(object)?))
    }

    /// An id that may be absent; both columns are NULL or neither is.
    fn optional_id(&self, model: &str, object: &str) -> Result<Option<ObjectId>> {
        match (
            self.get::<Option<i64>>(model)?,
            self.get::<Option<i64>>(object)?,
        ) {
            (Some(model), Some(object)) => Ok(Some(ObjectId::new(model, object))),
            (None, None) => Ok(None),
            _ => Err(Error::internal(format!(
                "table {} holds only half an object id in columns {model} and {object}",
                self.table
            ))),
        }
    }
}

impl Decode for Object {
    const TABLE: &'static str = "objects";
    fn read(r: &Columns<'_>) -> Result<Self> {
        let id = r.id("model_id", "object_id")?;
        Ok(Object {
            id,
            kind: r.parse("kind", ObjectKind::parse)?,
            parent: r
                .get::<Option<i64>>("parent")?
                .map(|object| ObjectId::new(id.model, object)),
            object_type: TypeName::new(r.get::<String>("profile")?, r.get::<String>("type_name")?),
            system_type: r.parse("system_type", SystemType::parse)?,
            name: r.get("name")?,
            physical_name: r.get("physical_name")?,
            native_id: r.get("native_id")?,
            stable_id: r.get("stable_id")?,
            description: r.get("description")?,
            business_name: r.get("business_name")?,
            business_description: r.get("business_description")?,
            data_type: r.get("data_type")?,
            external_url: r.get("external_url")?,
            hide_data: r.get("hide_data")?,
            workflow_state: r.get("workflow_state")?,
            created_at: r.get("created_at")?,
            updated_at: r.get("updated_at")?,
            updated_by: r.optional_id("updated_by_model", "updated_by_object")?,
        })
    }
}

impl Decode for AttributeValue {
    const TABLE: &'static str = "attribute_values";
    fn read(r: &Columns<'_>) -> Result<Self> {
        let kind: String = r.get("value_kind")?;
        let value = match kind.as_str() {
            "boolean" => r.get::<Option<bool>>("boolean_value")?.map(Value::Boolean),
            "integer" => r.get::<Option<i64>>("integer_value")?.map(Value::Integer),
            "double" => r.get::<Option<f64>>("double_value")?.map(Value::Double),
            "datetime" => r
                .get::<Option<Timestamp>>("datetime_value")?
                .map(Value::DateTime),
            "text" => r.get::<Option<String>>("text_value")?.map(Value::Text),
            _ => {
                return Err(Error::internal(format!(
                    "table attribute_values holds value kind '{kind}', which Lore does not know"
                )));
            }
        };
        let value = value.ok_or_else(|| {
            Error::internal(format!(
                "table attribute_values holds a {kind} value without its {kind}_value column"
            ))
        })?;
        Ok(AttributeValue {
            object: r.id("model_id", "object_id")?,
            attribute: r.get("attribute")?,
            value,
        })
    }
}

impl Decode for Edge {
    const TABLE: &'static str = "edges";
    fn read(r: &Columns<'_>) -> Result<Self> {
        Ok(Edge {
            kind: r.parse("kind", EdgeKind::parse)?,
            source: r.id("source_model", "source_object")?,
            target: r.id("target_model", "target_object")?,
            name: r.get("name")?,
        })
    }
}

impl Decode for Tag {
    const TABLE: &'static str = "tags";
    fn read(r: &Columns<'_>) -> Result<Self> {
        Ok(Tag {
            object: r.id("model_id", "object_id")?,
            kind: r.parse("kind", TagKind::parse)?,
            value: r.get("value")?,
        })
    }
}

impl Decode for Classification {
    const TABLE: &'static str = "classifications";
    fn read(r: &Columns<'_>) -> Result<Self> {
        Ok(Classification {
            object: r.id("model_id", "object_id")?,
            data_class: r.get("data_class")?,
            status: r.parse("status", ClassificationStatus::parse)?,
        })
    }
}

impl Decode for LabelAssignment {
    const TABLE: &'static str = "label_assignments";
    fn read(r: &Columns<'_>) -> Result<Self> {
        Ok(LabelAssignment {
            object: r.id("model_id", "object_id")?,
            label: r.get("label")?,
            status: r.parse("status", ClassificationStatus::parse)?,
        })
    }
}

impl Decode for Profiling {
    const TABLE: &'static str = "profiling";
    fn read(r: &Columns<'_>) -> Result<Self> {
        Ok(Profiling {
            object: r.id("model_id", "object_id")?,
            profile: r.optional_json("profile")?,
            sample: r.optional_json("sample")?,
        })
    }
}

impl Decode for AttributeType {
    const TABLE: &'static str = "attribute_types";
    fn read(r: &Columns<'_>) -> Result<Self> {
        Ok(AttributeType {
            name: r.get("name")?,
            display_name: r.get("display_name")?,
            kind: r.parse("kind", AttributeKind::parse)?,
            value_type: r.parse("value_type", ValueType::parse)?,
            profile: r.get("profile")?,
            group: r.get("group_name")?,
            description: r.get("description")?,
        })
    }
}

impl Decode for DataClass {
    const TABLE: &'static str = "data_classes";
    fn read(r: &Columns<'_>) -> Result<Self> {
        Ok(DataClass {
            name: r.get("name")?,
            description: r.get("description")?,
            hide_data: r.get("hide_data")?,
            definition: r.get("definition")?,
        })
    }
}

impl Decode for SensitivityLabel {
    const TABLE: &'static str = "sensitivity_labels";
    fn read(r: &Columns<'_>) -> Result<Self> {
        Ok(SensitivityLabel {
            name: r.get("name")?,
            position: r.get("position")?,
            description: r.get("description")?,
            foreground_color: r.get("foreground_color")?,
            background_color: r.get("background_color")?,
            hide_data: r.get("hide_data")?,
        })
    }
}

impl Decode for Role {
    const TABLE: &'static str = "roles";
    fn read(r: &Columns<'_>) -> Result<Self> {
        Ok(Role {
            name: r.get("name")?,
            description: r.get("description")?,
            global: r.get("global")?,
            capabilities: r.json("capabilities")?,
        })
    }
}

impl Decode for User {
    const TABLE: &'static str = "users";
    fn read(r: &Columns<'_>) -> Result<Self> {
        Ok(User {
            id: r.id("model_id", "object_id")?,
            name: r.get("name")?,
            full_name: r.get("full_name")?,
            email: r.get("email")?,
            description: r.get("description")?,
            password_hash: r.get("password_hash")?,
            enabled: r.get("enabled")?,
            created_at: r.get("created_at")?,
        })
    }
}

impl Decode for Grant {
    const TABLE: &'static str = "grants";
    fn read(r: &Columns<'_>) -> Result<Self> {
        Ok(Grant {
            grantee: r.id("grantee_model", "grantee_object")?,
            role: r.get("role")?,
            object: r.optional_id("model_id", "object_id")?,
        })
    }
}

impl Decode for Session {
    const TABLE: &'static str = "sessions";
    fn read(r: &Columns<'_>) -> Result<Self> {
        Ok(Session {
            key_hash: r.get("key_hash")?,
            user: r.id("user_model", "user_object")?,
            created_at: r.get("created_at")?,
            expires_at: r.get("expires_at")?,
        })
    }
}

/// The objects a details read covers, as query arguments.
enum ScopeArgs {
    Model(i64),
    /// Model numbers and object numbers of distinct objects, in two parallel arrays.
    Objects(Vec<i64>, Vec<i64>),
}

/// One read of a table that hangs on objects: by model number, or joined with the ids.
struct ScopedQuery {
    by_model: &'static str,
    by_objects: &'static str,
    context: &'static str,
}

/// A [`ScopedQuery`] over a table aliased `t` with `model_id` and `object_id` columns.
macro_rules! scoped {
    ($columns:literal, $table:literal, $context:literal) => {
        ScopedQuery {
            by_model: concat!(
                "SELECT ",
                $columns,
                " FROM ",
                $table,
                " t WHERE t.model_id = $1"
            ),
            by_objects: concat!(
                "SELECT ",
                $columns,
                " FROM ",
                $table,
                " t JOIN UNNEST($1::BIGINT[], $2::BIGINT[]) AS s(model_id, object_id) \
                 ON t.model_id = s.model_id AND t.object_id = s.object_id"
            ),
            context: $context,
        }
    };
}

const ATTRIBUTES: ScopedQuery = scoped!(
    "t.model_id, t.object_id, t.attribute, t.value_kind, t.text_value, t.double_value, t.integer_value, \
     t.boolean_value, t.datetime_value",
    "attribute_values",
    "reading attribute values"
);
const TAGS: ScopedQuery = scoped!(
    "t.model_id, t.object_id, t.kind, t.value",
    "tags",
    "reading tags"
);
const CLASSIFICATIONS: ScopedQuery = scoped!(
    "t.model_id, t.object_id, t.data_class, t.status",
    "classifications",
    "reading classifications"
);
const LABELS: ScopedQuery = scoped!(
    "t.model_id, t.object_id, t.label, t.status",
    "label_assignments",
    "reading label assignments"
);
const PROFILING: ScopedQuery = scoped!(
    "t.model_id, t.object_id, t.profile, t.sample",
    "profiling",
    "reading profiling results"
);

macro_rules! edge_columns {
    () => {
        "e.kind, e.source_model, e.source_object, e.target_model, e.target_object, e.name"
    };
}

/// Edges with either end in scope; `UNION` keeps an edge with both ends in scope once.
const EDGES: ScopedQuery = ScopedQuery {
    by_model: concat!(
        "SELECT ",
        edge_columns!(),
        " FROM edges e WHERE e.source_model = $1 UNION SELECT ",
        edge_columns!(),
        " FROM edges e WHERE e.target_model = $1"
    ),
    by_objects: concat!(
        "WITH s AS (SELECT * FROM UNNEST($1::BIGINT[], $2::BIGINT[]) AS s(model_id, object_id)) SELECT ",
        edge_columns!(),
        " FROM edges e JOIN s ON e.source_model = s.model_id AND e.source_object = s.object_id UNION SELECT ",
        edge_columns!(),
        " FROM edges e JOIN s ON e.target_model = s.model_id AND e.target_object = s.object_id"
    ),
    context: "reading edges",
};

impl ScopedQuery {
    async fn fetch<T: Decode>(&self, conn: &mut PgConnection, scope: &ScopeArgs) -> Result<Vec<T>> {
        let query = match scope {
            ScopeArgs::Model(model) => sqlx::query(self.by_model).bind(*model),
            ScopeArgs::Objects(models, objects) => {
                sqlx::query(self.by_objects).bind(models).bind(objects)
            }
        };
        let rows = query
            .fetch_all(conn)
            .await
            .map_err(|e| Error::storage(self.context, e))?;
        rows_to(&rows)
    }
}

/// What hangs on the objects in scope, read in one snapshot and sorted as the contract says.
pub(crate) async fn details(pool: &PgPool, scope: Scope) -> Result<Details> {
    let scope = match scope {
        Scope::Model(model) => ScopeArgs::Model(model),
        Scope::Objects(mut ids) => {
            if ids.is_empty() {
                return Ok(Details::default());
            }
            ids.sort();
            ids.dedup();
            ScopeArgs::Objects(
                ids.iter().map(|id| id.model).collect(),
                ids.iter().map(|id| id.object).collect(),
            )
        }
    };
    let mut tx = pool
        .begin_with("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY")
        .await
        .map_err(|e| Error::storage("starting a read", e))?;
    let mut attributes: Vec<AttributeValue> = ATTRIBUTES.fetch(&mut tx, &scope).await?;
    let mut edges: Vec<Edge> = EDGES.fetch(&mut tx, &scope).await?;
    let mut tags: Vec<Tag> = TAGS.fetch(&mut tx, &scope).await?;
    let mut classifications: Vec<Classification> = CLASSIFICATIONS.fetch(&mut tx, &scope).await?;
    let mut labels: Vec<LabelAssignment> = LABELS.fetch(&mut tx, &scope).await?;
    let mut profiling: Vec<Profiling> = PROFILING.fetch(&mut tx, &scope).await?;
    tx.commit()
        .await
        .map_err(|e| Error::storage("ending a read", e))?;

    attributes.sort_by(|a, b| (a.object, &a.attribute).cmp(&(b.object, &b.attribute)));
    edges.sort();
    tags.sort();
    classifications.sort();
    labels.sort();
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
