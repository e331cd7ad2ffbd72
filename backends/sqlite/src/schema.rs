//! Applies the versioned migrations of `lore-backend-sql` at open.

use lore_backend_sql::{SQLITE_MIGRATIONS, pending};
use lore_core::Result;
use lore_core::model::{format_datetime, now};
use rusqlite::{Connection, TransactionBehavior, params};

use crate::sql::Context;

/// Brings the schema up to date, one transaction per migration, and refuses a database
/// newer than this binary.
pub(crate) fn migrate(conn: &mut Connection) -> Result<()> {
    conn.execute_batch(
        "CREATE TABLE IF NOT EXISTS lore_schema (
             version    INTEGER PRIMARY KEY,
             name       TEXT NOT NULL,
             applied_at TEXT NOT NULL
         )",
    )
    .ctx("creating the schema version table")?;
    for migration in pending(SQLITE_MIGRATIONS, version(conn)?)? {
        let context = format!(
            "applying migration {} ({})",
            migration.version, migration.name
        );
        let tx = conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .ctx(&context)?;
        // Another process may have applied it while this one waited for the lock.
        if version(&tx)? >= migration.version {
            continue;
        }
        tx.execute_batch(migration.sql).ctx(&context)?;
        tx.execute(
            "INSERT INTO lore_schema (version, name, applied_at) VALUES (?1, ?2, ?3)",
            params![migration.version, migration.name, format_datetime(&now())],
        )
        .ctx(&context)?;
        tx.commit().ctx(&context)?;
        tracing::info!(
            version = migration.version,
            name = migration.name,
            "applied sqlite migration"
        );
    }
    Ok(())
}

/// The highest applied migration, 0 for a new database.
pub(crate) fn version(conn: &Connection) -> Result<i64> {
    conn.query_row(
        "SELECT coalesce(max(version), 0) FROM lore_schema",
        [],
        |row| row.get(0),
    )
    .ctx("reading the schema version")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_run_once() -> Result<()> {
        let mut conn = Connection::open_in_memory().ctx("opening")?;
        migrate(&mut conn)?;
        migrate(&mut conn)?;
        let latest = SQLITE_MIGRATIONS.last().map_or(0, |m| m.version);
        assert_eq!(version(&conn)?, latest);
        let rows: i64 = conn
            .query_row("SELECT count(*) FROM lore_schema", [], |row| row.get(0))
            .ctx("counting")?;
        assert_eq!(rows, SQLITE_MIGRATIONS.len() as i64);
        Ok(())
    }

    #[test]
    fn a_newer_schema_is_refused() -> Result<()> {
        let mut conn = Connection::open_in_memory().ctx("opening")?;
        migrate(&mut conn)?;
        conn.execute(
            "INSERT INTO lore_schema VALUES (999, 'future', '2100-01-01T00:00:00.000Z')",
            [],
        )
        .ctx("inserting")?;
        let err = migrate(&mut conn)
            .err()
            .map(|e| e.message)
            .unwrap_or_default();
        assert!(err.contains("newer"), "unexpected outcome: {err:?}");
        Ok(())
    }
}
