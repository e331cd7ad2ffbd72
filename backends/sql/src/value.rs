//! Values that cross between the shared SQL code and a driver: statement parameters and
//! the columns of result rows.

use lore_core::model::Timestamp;
use lore_core::{Error, Result};

/// A parameter or column value. Parameters are typed even when NULL (PostgreSQL needs the
/// type of every parameter); a NULL read back from a row is [`SqlValue::Null`].
#[derive(Debug, Clone, PartialEq)]
pub enum SqlValue {
    Int(Option<i64>),
    Real(Option<f64>),
    Text(Option<String>),
    Bool(Option<bool>),
    Null,
}

impl From<i64> for SqlValue {
    fn from(v: i64) -> Self {
        Self::Int(Some(v))
    }
}
impl From<Option<i64>> for SqlValue {
    fn from(v: Option<i64>) -> Self {
        Self::Int(v)
    }
}
impl From<f64> for SqlValue {
    fn from(v: f64) -> Self {
        Self::Real(Some(v))
    }
}
impl From<bool> for SqlValue {
    fn from(v: bool) -> Self {
        Self::Bool(Some(v))
    }
}
impl From<String> for SqlValue {
    fn from(v: String) -> Self {
        Self::Text(Some(v))
    }
}
impl From<Option<String>> for SqlValue {
    fn from(v: Option<String>) -> Self {
        Self::Text(v)
    }
}
impl From<&str> for SqlValue {
    fn from(v: &str) -> Self {
        Self::Text(Some(v.to_owned()))
    }
}
impl From<Timestamp> for SqlValue {
    fn from(v: Timestamp) -> Self {
        Self::Int(Some(v.timestamp_micros()))
    }
}

/// The type of a column, for drivers whose bulk path binds whole columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColType {
    Int,
    Real,
    Text,
    Bool,
}

/// One result row, with reads that name the table when a column is not what Lore wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Row(pub Vec<SqlValue>);

impl Row {
    /// The columns `range` of the row as a row of their own, for rows that join tables.
    pub fn columns(&self, range: std::ops::Range<usize>) -> Row {
        Row(self
            .0
            .get(range)
            .map(<[SqlValue]>::to_vec)
            .unwrap_or_default())
    }

    fn wrong(&self, i: usize, table: &str, wanted: &str) -> Error {
        Error::internal(format!(
            "table {table} holds {:?} in column {i} where {wanted} belongs",
            self.0.get(i)
        ))
    }

    pub fn opt_int(&self, i: usize, table: &str) -> Result<Option<i64>> {
        match self.0.get(i) {
            Some(SqlValue::Int(v)) => Ok(*v),
            Some(SqlValue::Null) => Ok(None),
            _ => Err(self.wrong(i, table, "an integer")),
        }
    }
    pub fn int(&self, i: usize, table: &str) -> Result<i64> {
        self.opt_int(i, table)?
            .ok_or_else(|| self.wrong(i, table, "an integer"))
    }
    pub fn real(&self, i: usize, table: &str) -> Result<f64> {
        match self.0.get(i) {
            Some(SqlValue::Real(Some(v))) => Ok(*v),
            // SQLite hands back a REAL that holds a whole number as an integer only when
            // the column has no REAL affinity; be lenient.
            Some(SqlValue::Int(Some(v))) => Ok(*v as f64),
            _ => Err(self.wrong(i, table, "a number")),
        }
    }
    pub fn opt_text(&mut self, i: usize, table: &str) -> Result<Option<String>> {
        match self.0.get_mut(i) {
            Some(SqlValue::Text(v)) => Ok(v.take()),
            Some(SqlValue::Null) => Ok(None),
            _ => Err(self.wrong(i, table, "text")),
        }
    }
    /// Takes the text out of the row (each column is read once).
    pub fn text(&mut self, i: usize, table: &str) -> Result<String> {
        match self.opt_text(i, table)? {
            Some(v) => Ok(v),
            None => Err(self.wrong(i, table, "text")),
        }
    }
    pub fn bool(&self, i: usize, table: &str) -> Result<bool> {
        match self.0.get(i) {
            Some(SqlValue::Bool(Some(v))) => Ok(*v),
            Some(SqlValue::Int(Some(v))) => Ok(*v != 0),
            _ => Err(self.wrong(i, table, "a boolean")),
        }
    }
    /// A timestamp stored as microseconds since the Unix epoch, UTC.
    pub fn timestamp(&self, i: usize, table: &str) -> Result<Timestamp> {
        let micros = self.int(i, table)?;
        Timestamp::from_timestamp_micros(micros).ok_or_else(|| {
            Error::internal(format!(
                "table {table} holds the timestamp {micros}, which is out of range"
            ))
        })
    }
    /// An enum-like column read with the core's `parse`.
    pub fn parse<T>(
        &mut self,
        i: usize,
        table: &str,
        what: &str,
        parse: impl FnOnce(&str) -> Option<T>,
    ) -> Result<T> {
        let text = self.text(i, table)?;
        parse(&text).ok_or_else(|| {
            Error::internal(format!(
                "table {table} holds '{text}', which is not a known {what}"
            ))
        })
    }
    /// JSON stored in a text column.
    pub fn json<T: serde::de::DeserializeOwned>(
        &mut self,
        i: usize,
        table: &str,
        what: &str,
    ) -> Result<Option<T>> {
        self.opt_text(i, table)?
            .map(|text| {
                serde_json::from_str(&text).map_err(|e| {
                    Error::internal(format!("table {table} holds an unreadable {what}: {e}"))
                })
            })
            .transpose()
    }
}
