//! A failed write as a core error, saying what the failed statement was doing.

use lore_core::Error;

use crate::driver::{DbError, DbErrorKind, Stmt};
use crate::value::SqlValue;

use super::Context;

/// A failed write as a core error: a clash with a unique key is a conflict that says
/// what clashed, a value the database cannot hold is invalid input, a transient failure
/// is retryable, anything else a storage error. The driver's error stays as the cause.
pub fn write_error(err: DbError, contexts: &[Context]) -> Error {
    let context = contexts.get(err.statement);
    let what = context.map_or("writing", |c| c.what.as_ref());
    let error = match &err.kind {
        // Users clash on their name or on their identity at a provider (migration 29's
        // index: PostgreSQL names it, SQLite its columns); the statement's message is
        // the name's.
        DbErrorKind::Unique { constraint, .. }
            if constraint == "users_external" || constraint.contains("users.external_") =>
        {
            Error::conflict("another user is already linked to that identity")
        }
        DbErrorKind::Unique { constraint, detail } => {
            let message = context
                .and_then(|c| c.on_unique.clone())
                .unwrap_or_else(|| clash_message(&err, constraint, detail.as_deref(), what));
            Error::conflict(message)
        }
        DbErrorKind::ForeignKey => {
            Error::conflict(format!("{what} refers to something that does not exist"))
        }
        DbErrorKind::Retryable => {
            return Error::storage(
                &format!("{what} (the database was busy; try again)"),
                err.cause,
            )
            .retryable();
        }
        DbErrorKind::Unavailable { reason } => {
            return Error::unavailable(what, reason, err.cause);
        }
        DbErrorKind::OutOfRange => Error::invalid(format!("{what}: a number is out of range")),
        DbErrorKind::InvalidValue => {
            Error::invalid(format!("{what}: the database cannot store a value"))
        }
        DbErrorKind::Other => return Error::storage(what, err.cause),
    };
    error.caused_by(err.cause)
}

/// The conflict message of a clash on the objects table, naming the value when the
/// failed row or the database's detail tells it.
fn clash_message(err: &DbError, constraint: &str, detail: Option<&str>, what: &str) -> String {
    let column = |name: &str| -> Option<String> {
        let Some(Stmt::Insert { table, rows }) = err.failed.as_deref() else {
            return None;
        };
        match rows.get(err.row?)?.get(table.column(name)?)? {
            SqlValue::Text(Some(v)) => Some(v.clone()),
            _ => None,
        }
    };
    if constraint.contains("repository_name") {
        match column("name") {
            Some(name) => format!("an object named '{name}' already exists there"),
            None => {
                "a repository object with that name already exists in the same folder".to_owned()
            }
        }
    } else if constraint.contains("stable_id") {
        match column("stable_id").or_else(|| detail.and_then(key_value).map(str::to_owned)) {
            Some(value) => format!("an object with stable id '{value}' already exists"),
            None => "an object with that stable id already exists".to_owned(),
        }
    } else {
        format!("{what} clashes with existing data")
    }
}

/// The key value of a PostgreSQL unique violation's detail,
/// `Key (column)=(value) already exists.`
fn key_value(detail: &str) -> Option<&str> {
    let start = detail.find(")=(")? + 3;
    let end = detail.rfind(") already exists")?;
    detail.get(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_value_reads_the_clashing_value() {
        assert_eq!(
            key_value("Key (stable_id)=(abc) already exists."),
            Some("abc")
        );
        assert_eq!(
            key_value("Key (name_key)=(a)=(b) already exists."),
            Some("a)=(b")
        );
        assert_eq!(key_value("something else"), None);
    }
}
