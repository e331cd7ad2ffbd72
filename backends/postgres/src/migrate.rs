//! Schema migrations, applied at start-up.
//!
//! Each migration runs in its own transaction holding a transaction-scoped advisory lock,
//! and reads the recorded version under that lock: of two processes starting together,
//! the second waits, then finds nothing left to do.

use lore_backend_sql::{POSTGRES_MIGRATIONS, pending};
use lore_core::{Error, Result};
use sqlx::PgPool;

/// The advisory lock key that serialises migrations ("LoreSchm" in ASCII).
const MIGRATION_LOCK: i64 = 0x4c6f_7265_5363_686d;

/// Applies the migrations the database lacks, oldest first; refuses a newer database.
pub(crate) async fn run(pool: &PgPool) -> Result<()> {
    loop {
        let mut tx = pool
            .begin()
            .await
            .map_err(|e| Error::storage("starting a migration", e))?;
        sqlx::query("SELECT pg_advisory_xact_lock($1)")
            .bind(MIGRATION_LOCK)
            .execute(&mut *tx)
            .await
            .map_err(|e| Error::storage("waiting for the migration lock", e))?;
        sqlx::query(
            "CREATE TABLE IF NOT EXISTS lore_schema (
                version    BIGINT      PRIMARY KEY,
                name       TEXT        NOT NULL,
                applied_at TIMESTAMPTZ NOT NULL
            )",
        )
        .execute(&mut *tx)
        .await
        .map_err(|e| Error::storage("creating the table lore_schema", e))?;
        let current: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(version), 0) FROM lore_schema")
            .fetch_one(&mut *tx)
            .await
            .map_err(|e| Error::storage("reading the schema version", e))?;
        let Some(migration) = pending(POSTGRES_MIGRATIONS, current)?.first() else {
            tx.commit()
                .await
                .map_err(|e| Error::storage("ending the migration check", e))?;
            return Ok(());
        };
        let context = format!(
            "applying migration {} ({})",
            migration.version, migration.name
        );
        sqlx::raw_sql(migration.sql)
            .execute(&mut *tx)
            .await
            .map_err(|e| Error::storage(&context, e))?;
        sqlx::query("INSERT INTO lore_schema (version, name, applied_at) VALUES ($1, $2, now())")
            .bind(migration.version)
            .bind(migration.name)
            .execute(&mut *tx)
            .await
            .map_err(|e| Error::storage(&context, e))?;
        tx.commit().await.map_err(|e| Error::storage(&context, e))?;
        tracing::info!(
            version = migration.version,
            name = migration.name,
            "applied PostgreSQL migration"
        );
    }
}
