//! Small helpers shared by reads and writes: error mapping and column conversions.

use lore_core::model::Timestamp;
use lore_core::{Error, Result};
use rusqlite::Row;
use rusqlite::types::FromSql;

/// Maps rusqlite errors to storage errors that say what the store was doing.
pub(crate) trait Context<T> {
    fn ctx(self, context: &str) -> Result<T>;
}

impl<T> Context<T> for rusqlite::Result<T> {
    fn ctx(self, context: &str) -> Result<T> {
        self.map_err(|e| Error::storage(context, e))
    }
}

/// Whether the error is a violated UNIQUE or PRIMARY KEY constraint.
pub(crate) fn is_unique_violation(err: &rusqlite::Error) -> bool {
    matches!(
        err,
        rusqlite::Error::SqliteFailure(e, _)
            if e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_UNIQUE
                || e.extended_code == rusqlite::ffi::SQLITE_CONSTRAINT_PRIMARYKEY
    )
}

/// Reads column `index` of a row of `table`.
pub(crate) fn col<T: FromSql>(row: &Row<'_>, index: usize, table: &str) -> Result<T> {
    row.get(index)
        .map_err(|e| Error::storage(&format!("reading a row of {table}"), e))
}

/// The stored form of a timestamp: milliseconds since the Unix epoch.
pub(crate) fn millis(t: &Timestamp) -> i64 {
    t.timestamp_millis()
}

/// Reads a timestamp stored as milliseconds since the Unix epoch.
pub(crate) fn timestamp(ms: i64, table: &str) -> Result<Timestamp> {
    Timestamp::from_timestamp_millis(ms).ok_or_else(|| {
        Error::internal(format!(
            "table {table} holds the timestamp {ms}, which is out of range"
        ))
    })
}

/// Reads a stored enum name with the core's `parse` helper; a name that does not parse
/// means the database holds something this binary never writes.
pub(crate) fn parse<T>(
    text: &str,
    table: &str,
    what: &str,
    parse: impl FnOnce(&str) -> Option<T>,
) -> Result<T> {
    parse(text).ok_or_else(|| {
        Error::internal(format!(
            "table {table} holds '{text}', which is not a known {what}"
        ))
    })
}

/// Reads JSON stored in a text column.
pub(crate) fn json<T: serde::de::DeserializeOwned>(
    text: &str,
    table: &str,
    what: &str,
) -> Result<T> {
    serde_json::from_str(text)
        .map_err(|e| Error::internal(format!("table {table} holds an unreadable {what}: {e}")))
}

/// Writes a value as JSON text.
pub(crate) fn to_json<T: serde::Serialize>(value: &T, what: &str) -> Result<String> {
    serde_json::to_string(value)
        .map_err(|e| Error::internal(format!("cannot write {what} as JSON: {e}")))
}
