//! What Lore's SQL backends share: the schema, every statement, the mapping of each write
//! to SQL, row decoding and the classification of driver errors — the whole
//! [`Store`](lore_core::Store) as [`SqlStore`], over a small [`Driver`] trait that
//! `lore-backend-sqlite` (rusqlite) and `lore-backend-postgres` (sqlx) implement with
//! their connections, bulk-write paths and type adapters. The few words where the two
//! dialects differ live in [`Dialect`].
//!
//! # One meaning on every backend
//! Timestamps are stored as UTC microseconds; text compares and orders byte-wise (SQLite's
//! BINARY collation, `COLLATE "C"` on PostgreSQL); NULLs sort first in ascending order
//! (SQLite's default, and Rust's for `Option`), so statements that order by a nullable
//! column say `NULLS FIRST`; NaN and the NUL character never reach the database
//! ([`lore_core::store::prepare`]).
//!
//! # Migrations
//! Each database keeps `lore_schema (version, name, applied_at)`. At start-up the store
//! applies, one transaction each, the migrations above the recorded version, and refuses
//! a database newer than this binary knows.

mod as_of;
pub mod compile;
mod dialect;
mod driver;
mod entities;
mod hits;
mod mirror;
mod planning;
mod read;
mod store;
mod union;
mod value;
mod write;

pub use dialect::Dialect;
pub use driver::{
    Access, DbError, DbErrorKind, Driver, DriverSnapshot, DriverTx, Observed, Outcome, PoolUse,
    StatementObserver, Stmt, Table, in_order,
};
pub use mirror::SearchIndexState;
pub use store::SqlStore;
pub use value::{ColType, Row, SqlValue};
pub use write::BULK_ROWS;

use lore_core::{Error, Result};

/// One numbered schema change, a template for [`Dialect::schema`].
#[derive(Debug, Clone, Copy)]
pub struct Migration {
    pub version: i64,
    pub name: &'static str,
    pub sql: &'static str,
}

/// The schema migrations, oldest first. The first one creates the whole schema of a new
/// database; version 1 was the pre-release's schema, written separately per dialect, and
/// a database still at it is refused (see [`pending`]). Versions rise: a database
/// takes, in order, those above its recorded version.
pub const MIGRATIONS: &[Migration] = &[
    Migration {
        version: 2,
        name: "one schema for SQLite and PostgreSQL",
        sql: include_str!("../migrations/0002_schema.sql"),
    },
    Migration {
        version: 3,
        name: "indexes of MQL queries",
        sql: include_str!("../migrations/0003_mql_indexes.sql"),
    },
    Migration {
        version: 4,
        name: "worksheets",
        sql: include_str!("../migrations/0004_worksheets.sql"),
    },
    Migration {
        version: 5,
        name: "text search indexes",
        sql: include_str!("../migrations/0005_text_search.sql"),
    },
    Migration {
        version: 6,
        name: "session use and failed logins",
        sql: include_str!("../migrations/0006_sessions_and_logins.sql"),
    },
    Migration {
        version: 7,
        name: "system log",
        sql: include_str!("../migrations/0007_system_log.sql"),
    },
    Migration {
        version: 8,
        name: "groups",
        sql: include_str!("../migrations/0008_groups.sql"),
    },
    Migration {
        version: 9,
        name: "operations, import settings and attachments",
        sql: include_str!("../migrations/0009_operations.sql"),
    },
    Migration {
        version: 10,
        name: "object types",
        sql: include_str!("../migrations/0010_object_types.sql"),
    },
    Migration {
        version: 11,
        name: "documents",
        sql: include_str!("../migrations/0011_documents.sql"),
    },
    Migration {
        version: 12,
        name: "curation",
        sql: include_str!("../migrations/0012_curation.sql"),
    },
    Migration {
        version: 13,
        name: "notifications",
        sql: include_str!("../migrations/0013_notifications.sql"),
    },
    Migration {
        version: 14,
        name: "operation ids",
        sql: include_str!("../migrations/0014_operation_ids.sql"),
    },
    Migration {
        version: 15,
        name: "deliveries",
        sql: include_str!("../migrations/0015_deliveries.sql"),
    },
    Migration {
        version: 16,
        name: "tallies",
        sql: include_str!("../migrations/0016_tallies.sql"),
    },
    Migration {
        version: 17,
        name: "type order",
        sql: include_str!("../migrations/0017_type_order.sql"),
    },
    Migration {
        version: 18,
        name: "attribute text folded",
        sql: include_str!("../migrations/0018_attribute_text_fold.sql"),
    },
    Migration {
        version: 19,
        name: "search form index",
        sql: include_str!("../migrations/0019_search_form_index.sql"),
    },
    Migration {
        version: 20,
        name: "import prints",
        sql: include_str!("../migrations/0020_import_prints.sql"),
    },
    Migration {
        version: 21,
        name: "tag order",
        sql: include_str!("../migrations/0021_tag_order.sql"),
    },
    Migration {
        version: 22,
        name: "access version",
        sql: include_str!("../migrations/0022_access_version.sql"),
    },
    Migration {
        version: 23,
        name: "search text index",
        sql: include_str!("../migrations/0023_search_text_index.sql"),
    },
    Migration {
        version: 24,
        name: "lineage events",
        sql: include_str!("../migrations/0024_lineage_events.sql"),
    },
    Migration {
        version: 25,
        name: "the columns a text search reads, narrow",
        sql: include_str!("../migrations/0025_object_search.sql"),
    },
    Migration {
        version: 26,
        name: "a version of the catalog",
        sql: include_str!("../migrations/0026_catalog_version.sql"),
    },
    Migration {
        version: 27,
        name: "labels in the narrow rows (PostgreSQL)",
        sql: include_str!("../migrations/0027_search_labels.sql"),
    },
    Migration {
        version: 28,
        name: "a version per model of its objects",
        sql: include_str!("../migrations/0028_model_versions.sql"),
    },
    Migration {
        version: 29,
        name: "users linked to identity providers by issuer and subject",
        sql: include_str!("../migrations/0029_external_identities.sql"),
    },
    Migration {
        version: 30,
        name: "edges carry the OpenLineage job that made them",
        sql: include_str!("../migrations/0030_edge_origins.sql"),
    },
    Migration {
        version: 31,
        name: "tallies of labels, data classes, sensitivity labels, curation and descriptions",
        sql: include_str!("../migrations/0031_value_tallies.sql"),
    },
    Migration {
        version: 32,
        name: "the objects each write of the catalog changed",
        sql: include_str!("../migrations/0032_catalog_changes.sql"),
    },
    Migration {
        version: 33,
        name: "objects of one name in name order",
        sql: include_str!("../migrations/0033_name_fold_order.sql"),
    },
    Migration {
        version: 34,
        name: "history: revisions and versioned rows",
        sql: include_str!("../migrations/0034_history.sql"),
    },
    Migration {
        version: 35,
        name: "model versions, and the rows each revision wrote",
        sql: include_str!("../migrations/0035_model_versions_kept.sql"),
    },
    Migration {
        version: 36,
        name: "the revision from which on history is kept",
        sql: include_str!("../migrations/0036_history_floor.sql"),
    },
    Migration {
        version: 37,
        name: "linear statement triggers on updated objects (PostgreSQL)",
        sql: include_str!("../migrations/0037_linear_update_triggers.sql"),
    },
    Migration {
        version: 38,
        name: "history of curation and grants",
        sql: include_str!("../migrations/0038_curation_history.sql"),
    },
];

/// How a document without an owner is keyed (`documents.owner_model`, `owner_object`).
pub(crate) const NO_OWNER: i64 = i64::MIN;

/// The row of `model_versions` (migration 28) that moves when objects of any model
/// changed ([`ObjectsChanged::All`](lore_core::store::ObjectsChanged::All)). No model
/// has this number (models count up from 1, the repository is -1); were one to, its
/// writes would only move every model's version. A literal both dialects read as a
/// 64-bit integer (PostgreSQL reads `-9223372036854775808` as a numeric, and then
/// compares the key as one, past its index).
pub(crate) const ALL_MODELS: i64 = -2;

/// The migrations still to apply to a database at `current` (0 for a new one), or an
/// error when the database is newer than this binary or older than it can upgrade.
pub fn pending(migrations: &'static [Migration], current: i64) -> Result<&'static [Migration]> {
    let latest = migrations.last().map_or(0, |m| m.version);
    let oldest = migrations.first().map_or(0, |m| m.version);
    if current > latest {
        return Err(Error::internal(format!(
            "the database schema is at version {current}, newer than the {latest} this Lore knows; \
             upgrade Lore instead of using an older binary on it"
        )));
    }
    if 0 < current && current < oldest {
        return Err(Error::internal(format!(
            "the database schema is at version {current}, written by a pre-release of Lore this \
             version cannot upgrade; export its models with that release and import them into a new database"
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

    /// The text index of migration 19 holds the search forms the compiler compares.
    #[test]
    fn the_search_index_holds_the_compilers_search_form() {
        let migration = MIGRATIONS
            .iter()
            .find(|m| m.version == 19)
            .expect("migration 19");
        let sqlite = Dialect::Sqlite.schema(migration.sql);
        for expr in ["name", "physical_name", "new.name", "new.physical_name"] {
            let form = Dialect::Sqlite.search_form(expr);
            assert!(sqlite.contains(&form), "SQLite's index of {expr}: {form}");
        }
        let postgres = Dialect::Postgres.schema(migration.sql);
        let body = Dialect::Postgres
            .search_form("t")
            .replace("lore_fold(t)", "lower(t COLLATE \"C\")");
        assert!(postgres.contains(&body), "lore_search_form: {body}");
        // Migration 23 joins the two forms by the mark no form holds.
        let migration = MIGRATIONS
            .iter()
            .find(|m| m.version == 23)
            .expect("migration 23");
        let mark = Dialect::Postgres.character(u32::from(lore_core::mql::plan::SEARCH_MARK));
        let joined = format!(
            "COALESCE(lore_search_form(name), '') || {mark} || COALESCE(lore_search_form(physical_name), '')"
        );
        assert!(
            Dialect::Postgres.schema(migration.sql).contains(&joined),
            "lore_search_text: {joined}"
        );
        // Migration 25 keeps the same joined forms in the narrow table.
        let migration = MIGRATIONS
            .iter()
            .find(|m| m.version == 25)
            .expect("migration 25");
        let mark = Dialect::Sqlite.character(u32::from(lore_core::mql::plan::SEARCH_MARK));
        let sqlite = Dialect::Sqlite.schema(migration.sql);
        for row in ["", "new."] {
            let joined = format!(
                "COALESCE({}, '') || {mark} || COALESCE({}, '')",
                Dialect::Sqlite.search_form(&format!("{row}name")),
                Dialect::Sqlite.search_form(&format!("{row}physical_name"))
            );
            assert!(sqlite.contains(&joined), "object_search.form: {joined}");
        }
        let postgres = Dialect::Postgres.schema(migration.sql);
        assert!(postgres.contains("lore_search_text(name, physical_name)"));
        assert!(postgres.contains("lore_search_text(n.name, n.physical_name)"));
    }

    #[test]
    fn pending_skips_applied_and_refuses_newer_and_pre_release() {
        assert_eq!(pending(MIGRATIONS, 0).unwrap().len(), MIGRATIONS.len());
        let latest = MIGRATIONS.last().unwrap().version;
        assert!(pending(MIGRATIONS, latest).unwrap().is_empty());
        assert!(
            pending(MIGRATIONS, 999)
                .unwrap_err()
                .message
                .contains("newer")
        );
        assert!(
            pending(MIGRATIONS, 1)
                .unwrap_err()
                .message
                .contains("pre-release")
        );
    }

    #[test]
    fn pending_steps_over_a_gap_in_the_version_numbers() {
        static GAP: &[Migration] = &[
            Migration {
                version: 2,
                name: "two",
                sql: "",
            },
            Migration {
                version: 4,
                name: "four",
                sql: "",
            },
        ];
        let versions = |current| -> Vec<i64> {
            pending(GAP, current)
                .unwrap()
                .iter()
                .map(|m| m.version)
                .collect()
        };
        assert_eq!(versions(0), [2, 4]);
        assert_eq!(versions(2), [4]);
        // A database a binary with the missing number migrated takes the later ones.
        assert_eq!(versions(3), [4]);
        assert!(versions(4).is_empty());
        assert!(pending(GAP, 5).unwrap_err().message.contains("newer"));
    }

    #[test]
    fn migration_versions_rise() {
        for pair in MIGRATIONS.windows(2) {
            assert!(
                pair[0].version < pair[1].version,
                "migration {} comes before {}",
                pair[0].version,
                pair[1].version
            );
        }
    }

    #[test]
    fn the_schema_template_has_no_words_left_for_either_dialect() {
        for dialect in [Dialect::Sqlite, Dialect::Postgres] {
            for m in MIGRATIONS {
                let sql = dialect.schema(m.sql);
                assert!(
                    !sql.contains('{'),
                    "{dialect:?} migration {} keeps a brace",
                    m.version
                );
            }
        }
    }
}
