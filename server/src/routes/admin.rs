//! Administration endpoints: the system log.

use axum::extract::State;
use axum::http::HeaderValue;
use axum::response::Response;
use chrono::{DateTime, NaiveDate, NaiveDateTime, Utc};
use lore_core::catalog::LogPage;
use lore_core::model::{Capability, SystemLogFilter, Timestamp};
use lore_core::{Error, Result};
use serde::Deserialize;
use utoipa::IntoParams;

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, Params};

/// The header that carries how many entries pass the filter in all.
pub const TOTAL_COUNT_HEADER: &str = "x-total-count";

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct SystemLogParams {
    /// Entries per page, 1 to 1000 (default 100).
    pub page_size: Option<String>,
    /// The page, from 1 (default 1).
    pub page_number: Option<String>,
    /// Only calls of this user (exact name; empty: calls without a valid key).
    pub user: Option<String>,
    /// Only calls with this HTTP method (any case).
    pub method: Option<String>,
    /// Only calls whose path starts with this text.
    pub path: Option<String>,
    /// Only calls answered with this HTTP status.
    pub status: Option<String>,
    /// Only calls at or after this time (ISO-8601, e.g. `2025-01-31T08:00:00Z`; UTC when
    /// it names no offset).
    pub from: Option<String>,
    /// Only calls at or before this time (ISO-8601).
    pub to: Option<String>,
}

/// A whole number parameter, or an error naming it.
fn number(name: &str, value: Option<&str>) -> Result<Option<i64>> {
    match value.map(str::trim).filter(|v| !v.is_empty()) {
        None => Ok(None),
        Some(v) => v
            .parse()
            .map(Some)
            .map_err(|_| Error::invalid(format!("{name} '{v}' is not a whole number"))),
    }
}

/// An ISO-8601 date and time (an offset, or UTC without one), or a date (its start,
/// UTC), or an error naming the parameter.
fn datetime(name: &str, value: Option<&str>) -> Result<Option<Timestamp>> {
    let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    if let Ok(t) = DateTime::parse_from_rfc3339(v) {
        return Ok(Some(t.with_timezone(&Utc)));
    }
    for format in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
    ] {
        if let Ok(t) = NaiveDateTime::parse_from_str(v, format) {
            return Ok(Some(t.and_utc()));
        }
    }
    if let Some(t) = NaiveDate::parse_from_str(v, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
    {
        return Ok(Some(t.and_utc()));
    }
    Err(Error::invalid(format!(
        "{name} '{v}' is not an ISO-8601 date and time such as 2025-01-31T08:00:00Z"
    )))
}

impl SystemLogParams {
    fn filter(&self) -> Result<SystemLogFilter> {
        let method = match self.method.as_deref().map(str::trim) {
            None | Some("") => None,
            Some(m) if m.chars().all(|c| c.is_ascii_alphabetic()) && m.len() <= 16 => {
                Some(m.to_ascii_uppercase())
            }
            Some(m) => {
                return Err(Error::invalid(format!(
                    "method '{m}' is not an HTTP method such as GET or POST"
                )));
            }
        };
        let status = match number("status", self.status.as_deref())? {
            None => None,
            Some(s) => Some(
                u16::try_from(s)
                    .ok()
                    .filter(|s| (100..=599).contains(s))
                    .ok_or_else(|| {
                        Error::invalid(format!("status {s} is not an HTTP status (100 to 599)"))
                    })?,
            ),
        };
        Ok(SystemLogFilter {
            user: self.user.clone(),
            method,
            path_prefix: self.path.clone().filter(|p| !p.is_empty()),
            status,
            from: datetime("from", self.from.as_deref())?,
            to: datetime("to", self.to.as_deref())?,
        })
    }

    fn page(&self) -> Result<LogPage> {
        Ok(LogPage {
            size: number("pageSize", self.page_size.as_deref())?,
            number: number("pageNumber", self.page_number.as_deref())?,
        })
    }
}

/// The system log: one entry per API call (`time`, `user`, `address`, `method`, `path`,
/// `status`, `durationMs`, `size`), newest first. The `X-Total-Count` header says how
/// many entries pass the filters. Entries are written in batches, about a second after
/// their call.
#[utoipa::path(get, path = "/admin/systemLog", tag = "Administration", security(("api_key" = ["Administer"])), params(SystemLogParams),
    responses((status = 200, description = "Array of system log entries, newest first"), (status = 400, description = "A bad parameter (named in the message)"),
        (status = 403, description = "The caller may not administer the server")))]
pub async fn system_log(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<SystemLogParams>,
) -> ApiResult<Response> {
    // Refused before the parameters are read: a caller without the capability learns
    // nothing from their checks.
    caller.require(Capability::Administer)?;
    let filter = params.filter()?;
    let page = params.page()?;
    let read = state
        .catalog
        .operations()
        .system_log(&caller, &filter, page)
        .await?;
    let mut response = ok(read.entries);
    if let Ok(total) = HeaderValue::from_str(&read.total.to_string()) {
        response.headers_mut().insert(TOTAL_COUNT_HEADER, total);
    }
    Ok(response)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn datetimes_in_iso_8601_forms() {
        let at = |v| datetime("from", Some(v)).unwrap().unwrap().to_rfc3339();
        assert_eq!(at("2025-01-31T08:00:00Z"), "2025-01-31T08:00:00+00:00");
        assert_eq!(at("2025-01-31T09:00:00+01:00"), "2025-01-31T08:00:00+00:00");
        assert_eq!(at("2025-01-31T08:00:00.5"), "2025-01-31T08:00:00.500+00:00");
        assert_eq!(at("2025-01-31"), "2025-01-31T00:00:00+00:00");
        let e = datetime("to", Some("yesterday")).unwrap_err();
        assert!(e.message.contains("to 'yesterday'"), "{}", e.message);
    }
}
