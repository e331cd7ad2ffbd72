//! Lore's PostgreSQL [`Store`], over an sqlx connection pool.
//!
//! Any number of Lore processes may share one database: sessions live in it, ids are
//! reserved with one atomic upsert, every batch is one transaction, and migrations run
//! under an advisory lock so processes starting together migrate once.
//!
//! The schema is `backends/sql/migrations/postgres`; system attributes are real columns
//! of `objects`, everything else that hangs on an object is keyed by its two id numbers.

mod migrate;
mod read;
mod write;

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use lore_core::model::*;
use lore_core::store::{Batch, Details, Scope};
use lore_core::{Error, ObjectId, Result, Store};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions, PgRow};

use read::{Decode, rows_to};

/// A query with its arguments bound.
pub(crate) type PgQuery<'q> = sqlx::query::Query<'q, sqlx::Postgres, sqlx::postgres::PgArguments>;

/// The SQLSTATE of an overflowing number.
const NUMERIC_OUT_OF_RANGE: &str = "22003";

/// How many connections one process keeps open at most.
const MAX_CONNECTIONS: u32 = 16;
/// How long a caller waits for a free connection (or a new one) before failing.
const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(15);

/// A [`Store`] over a PostgreSQL database.
#[derive(Clone)]
pub struct PostgresStore {
    pool: PgPool,
    /// `host:port/database`, for messages; never the password.
    target: String,
}

impl fmt::Debug for PostgresStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PostgresStore")
            .field("target", &self.target)
            .finish_non_exhaustive()
    }
}

impl PostgresStore {
    /// Connects to the database at `url` (`postgres://user:password@host:port/database`)
    /// and applies the migrations it lacks. A database whose schema is newer than this
    /// binary knows is refused.
    pub async fn connect(url: &str) -> Result<PostgresStore> {
        let options = PgConnectOptions::from_str(url)
            .map_err(|e| Error::internal(format!("invalid PostgreSQL URL: {e}")))?;
        let target = describe_target(&options);
        let pool = PgPoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .acquire_timeout(ACQUIRE_TIMEOUT)
            .connect_with(options)
            .await
            .map_err(|e| {
                Error::internal(format!("cannot connect to PostgreSQL at {target}: {e}"))
            })?;
        migrate::run(&pool).await?;
        tracing::info!(database = %target, "connected to PostgreSQL");
        Ok(PostgresStore { pool, target })
    }

    /// Closes every connection of the pool; later calls fail.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    async fn fetch_all(&self, query: PgQuery<'_>, context: &'static str) -> Result<Vec<PgRow>> {
        query
            .fetch_all(&self.pool)
            .await
            .map_err(|e| Error::storage(context, e))
    }

    async fn fetch_optional(
        &self,
        query: PgQuery<'_>,
        context: &'static str,
    ) -> Result<Option<PgRow>> {
        query
            .fetch_optional(&self.pool)
            .await
            .map_err(|e| Error::storage(context, e))
    }

    async fn execute(&self, query: PgQuery<'_>, context: &'static str) -> Result<u64> {
        let done = query
            .execute(&self.pool)
            .await
            .map_err(|e| Error::storage(context, e))?;
        Ok(done.rows_affected())
    }
}

/// `host:port/database` (or the socket path) of connect options, without credentials.
fn describe_target(options: &PgConnectOptions) -> String {
    let database = options.get_database().unwrap_or(options.get_username());
    match options.get_socket() {
        Some(socket) => format!("{}/{database}", socket.display()),
        None => format!("{}:{}/{database}", options.get_host(), options.get_port()),
    }
}

/// The columns `read::Decode for Object` reads, in the order of `objects`.
macro_rules! object_columns {
    () => {
        "model_id, object_id, kind, parent, profile, type_name, system_type, name, physical_name, \
         native_id, stable_id, description, business_name, business_description, data_type, \
         external_url, hide_data, workflow_state, created_at, updated_at, updated_by_model, \
         updated_by_object"
    };
}

/// The columns `read::Decode for User` reads.
macro_rules! user_columns {
    () => {
        "model_id, object_id, name, full_name, email, description, password_hash, enabled, created_at"
    };
}

#[async_trait]
impl Store for PostgresStore {
    fn backend(&self) -> &'static str {
        "postgres"
    }

    async fn ping(&self) -> Result<()> {
        self.execute(sqlx::query("SELECT 1"), "checking the connection")
            .await?;
        Ok(())
    }

    async fn reserve_ids(&self, model: i64, count: u64) -> Result<i64> {
        let count = i64::try_from(count)
            .map_err(|_| Error::invalid(format!("cannot reserve {count} ids at once")))?;
        let first: i64 = sqlx::query_scalar(
            "INSERT INTO id_sequences (model, next_id) VALUES ($1, 1 + $2) \
             ON CONFLICT (model) DO UPDATE SET next_id = id_sequences.next_id + $2 \
             RETURNING next_id - $2",
        )
        .bind(model)
        .bind(count)
        .fetch_one(&self.pool)
        .await
        .map_err(|e| {
            if write::sqlstate(&e).as_deref() == Some(NUMERIC_OUT_OF_RANGE) {
                Error::invalid(format!(
                    "cannot reserve {count} more ids in the id space of model {model}"
                ))
            } else {
                Error::storage("reserving ids", e)
            }
        })?;
        Ok(first)
    }

    async fn apply(&self, batch: Batch) -> Result<()> {
        write::apply(&self.pool, batch).await
    }

    async fn object(&self, id: ObjectId) -> Result<Option<Object>> {
        let query = sqlx::query(concat!(
            "SELECT ",
            object_columns!(),
            " FROM objects WHERE model_id = $1 AND object_id = $2"
        ))
        .bind(id.model)
        .bind(id.object);
        self.fetch_optional(query, "reading an object")
            .await?
            .as_ref()
            .map(Object::decode)
            .transpose()
    }

    async fn object_by_stable_id(&self, stable_id: &str) -> Result<Option<Object>> {
        let query = sqlx::query(concat!(
            "SELECT ",
            object_columns!(),
            " FROM objects WHERE stable_id = $1"
        ))
        .bind(stable_id);
        self.fetch_optional(query, "reading an object by stable id")
            .await?
            .as_ref()
            .map(Object::decode)
            .transpose()
    }

    async fn child_by_name(
        &self,
        model: i64,
        parent: Option<ObjectId>,
        name: &str,
    ) -> Result<Option<Object>> {
        let query = match parent {
            None => sqlx::query(concat!(
                "SELECT ",
                object_columns!(),
                " FROM objects WHERE model_id = $1 AND parent IS NULL AND name = $2 ORDER BY object_id LIMIT 1"
            ))
            .bind(model)
            .bind(name),
            // a parent is always in the id space of its children
            Some(parent) if parent.model != model => return Ok(None),
            Some(parent) => sqlx::query(concat!(
                "SELECT ",
                object_columns!(),
                " FROM objects WHERE model_id = $1 AND parent = $2 AND name = $3 ORDER BY object_id LIMIT 1"
            ))
            .bind(model)
            .bind(parent.object)
            .bind(name),
        };
        self.fetch_optional(query, "reading a child by name")
            .await?
            .as_ref()
            .map(Object::decode)
            .transpose()
    }

    async fn children(&self, model: i64, parent: Option<ObjectId>) -> Result<Vec<Object>> {
        let query = match parent {
            None => sqlx::query(concat!(
                "SELECT ",
                object_columns!(),
                " FROM objects WHERE model_id = $1 AND parent IS NULL ORDER BY name COLLATE \"C\", object_id"
            ))
            .bind(model),
            Some(parent) if parent.model != model => return Ok(Vec::new()),
            Some(parent) => sqlx::query(concat!(
                "SELECT ",
                object_columns!(),
                " FROM objects WHERE model_id = $1 AND parent = $2 ORDER BY name COLLATE \"C\", object_id"
            ))
            .bind(model)
            .bind(parent.object),
        };
        rows_to(&self.fetch_all(query, "reading children").await?)
    }

    async fn model_objects(&self, model: i64) -> Result<Vec<Object>> {
        let query = sqlx::query(concat!(
            "SELECT ",
            object_columns!(),
            " FROM objects WHERE model_id = $1 ORDER BY object_id"
        ))
        .bind(model);
        rows_to(
            &self
                .fetch_all(query, "reading the objects of a model")
                .await?,
        )
    }

    async fn objects_of_kind(&self, kind: ObjectKind) -> Result<Vec<Object>> {
        let query = sqlx::query(concat!(
            "SELECT ",
            object_columns!(),
            " FROM objects WHERE kind = $1 ORDER BY name COLLATE \"C\", model_id, object_id"
        ))
        .bind(kind.as_str());
        rows_to(&self.fetch_all(query, "reading objects of a kind").await?)
    }

    async fn details(&self, scope: Scope) -> Result<Details> {
        read::details(&self.pool, scope).await
    }

    async fn edges(&self, kind: EdgeKind, object: ObjectId, incoming: bool) -> Result<Vec<Edge>> {
        let sql = if incoming {
            "SELECT kind, source_model, source_object, target_model, target_object, name FROM edges \
             WHERE target_model = $2 AND target_object = $3 AND kind = $1"
        } else {
            "SELECT kind, source_model, source_object, target_model, target_object, name FROM edges \
             WHERE source_model = $2 AND source_object = $3 AND kind = $1"
        };
        let query = sqlx::query(sql)
            .bind(kind.as_str())
            .bind(object.model)
            .bind(object.object);
        let mut edges: Vec<Edge> = rows_to(&self.fetch_all(query, "reading edges").await?)?;
        edges.sort();
        Ok(edges)
    }

    async fn attribute_types(&self) -> Result<Vec<AttributeType>> {
        let query = sqlx::query(
            "SELECT name, display_name, kind, value_type, profile, group_name, description FROM attribute_types",
        );
        let mut types: Vec<AttributeType> =
            rows_to(&self.fetch_all(query, "reading attribute types").await?)?;
        types.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(types)
    }

    async fn data_classes(&self) -> Result<Vec<DataClass>> {
        let query =
            sqlx::query("SELECT name, description, hide_data, definition FROM data_classes");
        let mut classes: Vec<DataClass> =
            rows_to(&self.fetch_all(query, "reading data classes").await?)?;
        classes.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(classes)
    }

    async fn sensitivity_labels(&self) -> Result<Vec<SensitivityLabel>> {
        let query = sqlx::query(
            "SELECT name, position, description, foreground_color, background_color, hide_data FROM sensitivity_labels",
        );
        let mut labels: Vec<SensitivityLabel> =
            rows_to(&self.fetch_all(query, "reading sensitivity labels").await?)?;
        labels.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(labels)
    }

    async fn roles(&self) -> Result<Vec<Role>> {
        let query = sqlx::query("SELECT name, description, global, capabilities FROM roles");
        let mut roles: Vec<Role> = rows_to(&self.fetch_all(query, "reading roles").await?)?;
        roles.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(roles)
    }

    async fn user(&self, id: ObjectId) -> Result<Option<User>> {
        let query = sqlx::query(concat!(
            "SELECT ",
            user_columns!(),
            " FROM users WHERE model_id = $1 AND object_id = $2"
        ))
        .bind(id.model)
        .bind(id.object);
        self.fetch_optional(query, "reading a user")
            .await?
            .as_ref()
            .map(User::decode)
            .transpose()
    }

    async fn user_by_name(&self, name: &str) -> Result<Option<User>> {
        let query = sqlx::query(concat!(
            "SELECT ",
            user_columns!(),
            " FROM users WHERE name_key = $1"
        ))
        .bind(write::user_name_key(name));
        self.fetch_optional(query, "reading a user by name")
            .await?
            .as_ref()
            .map(User::decode)
            .transpose()
    }

    async fn user_count(&self) -> Result<u64> {
        let count: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM users")
            .fetch_one(&self.pool)
            .await
            .map_err(|e| Error::storage("counting users", e))?;
        Ok(u64::try_from(count).unwrap_or_default())
    }

    async fn grants_of(&self, grantee: ObjectId) -> Result<Vec<Grant>> {
        let query = sqlx::query(
            "SELECT grantee_model, grantee_object, role, model_id, object_id FROM grants \
             WHERE grantee_model = $1 AND grantee_object = $2",
        )
        .bind(grantee.model)
        .bind(grantee.object);
        let mut grants: Vec<Grant> = rows_to(&self.fetch_all(query, "reading grants").await?)?;
        grants.sort();
        Ok(grants)
    }

    async fn put_session(&self, session: Session) -> Result<()> {
        let query = sqlx::query(
            "INSERT INTO sessions (key_hash, user_model, user_object, created_at, expires_at) \
             VALUES ($1, $2, $3, $4, $5) \
             ON CONFLICT (key_hash) DO UPDATE SET user_model = EXCLUDED.user_model, \
             user_object = EXCLUDED.user_object, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at",
        )
        .bind(&session.key_hash)
        .bind(session.user.model)
        .bind(session.user.object)
        .bind(session.created_at)
        .bind(session.expires_at);
        self.execute(query, "storing a session").await?;
        Ok(())
    }

    async fn session(&self, key_hash: &str, now: Timestamp) -> Result<Option<Session>> {
        let query = sqlx::query(
            "SELECT key_hash, user_model, user_object, created_at, expires_at FROM sessions \
             WHERE key_hash = $1 AND expires_at > $2",
        )
        .bind(key_hash)
        .bind(now);
        self.fetch_optional(query, "reading a session")
            .await?
            .as_ref()
            .map(Session::decode)
            .transpose()
    }

    async fn delete_session(&self, key_hash: &str) -> Result<()> {
        self.execute(
            sqlx::query("DELETE FROM sessions WHERE key_hash = $1").bind(key_hash),
            "deleting a session",
        )
        .await?;
        Ok(())
    }

    async fn delete_sessions_of(&self, user: ObjectId) -> Result<u64> {
        let query = sqlx::query("DELETE FROM sessions WHERE user_model = $1 AND user_object = $2")
            .bind(user.model)
            .bind(user.object);
        self.execute(query, "deleting the sessions of a user").await
    }

    async fn purge_sessions(&self, now: Timestamp) -> Result<u64> {
        self.execute(
            sqlx::query("DELETE FROM sessions WHERE expires_at <= $1").bind(now),
            "purging expired sessions",
        )
        .await
    }
}
