//! What Lore's SQL backends share: the versioned migrations of each dialect and the
//! rules for applying them.
//!
//! Each backend keeps a table `lore_schema (version, name, applied_at)`. At start-up it
//! applies, in one transaction each, the migrations whose version is above the highest
//! recorded one, and refuses a database whose version is newer than the binary knows.

use lore_core::{Error, Result};

/// One numbered schema change.
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    pub version: i64,
    pub name: &'static str,
    pub sql: &'static str,
}

/// Migrations of the SQLite schema, oldest first.
pub const SQLITE_MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "init",
    sql: include_str!("../migrations/sqlite/0001_init.sql"),
}];

/// Migrations of the PostgreSQL schema, oldest first.
pub const POSTGRES_MIGRATIONS: &[Migration] = &[Migration {
    version: 1,
    name: "init",
    sql: include_str!("../migrations/postgres/0001_init.sql"),
}];

/// The migrations still to apply to a database at `current` (0 for a new one), or an
/// error when the database is newer than this binary.
pub fn pending(migrations: &'static [Migration], current: i64) -> Result<&'static [Migration]> {
    let latest = migrations.last().map_or(0, |m| m.version);
    if current > latest {
        return Err(Error::internal(format!(
            "the database schema is at version {current}, newer than the {latest} this Lore knows; \
             upgrade Lore instead of using an older binary on it"
        )));
    }
    Ok(&migrations[migrations
        .iter()
        .take_while(|m| m.version <= current)
        .count()..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pending_skips_applied_and_refuses_newer() {
        assert_eq!(
            pending(SQLITE_MIGRATIONS, 0).unwrap().len(),
            SQLITE_MIGRATIONS.len()
        );
        assert!(
            pending(SQLITE_MIGRATIONS, SQLITE_MIGRATIONS.len() as i64)
                .unwrap()
                .is_empty()
        );
        assert!(pending(SQLITE_MIGRATIONS, 999).is_err());
        for (i, m) in SQLITE_MIGRATIONS
            .iter()
            .chain(POSTGRES_MIGRATIONS)
            .enumerate()
        {
            assert!(m.version > 0, "migration {i} has a version");
        }
    }
}
