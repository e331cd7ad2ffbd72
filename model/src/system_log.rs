//! The system log: one entry per API call, with its status.

use serde::Serialize;

use super::Timestamp;

/// One API call as the system log records it. The path never holds the query string,
/// which may carry keys or passwords.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SystemLogEntry {
    /// When the call arrived (UTC, microseconds).
    pub time: Timestamp,
    /// The user whose valid key the call carried; empty without one.
    pub user: String,
    /// The client's address (the peer, or the first `X-Forwarded-For` address where
    /// the configuration trusts it); empty when unknown.
    pub address: String,
    /// The HTTP method, upper case.
    pub method: String,
    /// The request path, without the query string.
    pub path: String,
    /// The HTTP status of the answer.
    pub status: u16,
    /// How long the call took, in milliseconds.
    pub duration_ms: u64,
    /// The size of the answer's body, in bytes.
    pub size: u64,
}

/// Which entries a system log read covers; every field that is set must match.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SystemLogFilter {
    /// The user name, exactly (empty: calls without a valid key).
    pub user: Option<String>,
    /// The method, exactly (upper case).
    pub method: Option<String>,
    /// Paths that start with this text.
    pub path_prefix: Option<String>,
    pub status: Option<u16>,
    /// Entries at or after this time.
    pub from: Option<Timestamp>,
    /// Entries at or before this time.
    pub to: Option<Timestamp>,
}

impl SystemLogFilter {
    /// Whether the entry passes the filter: the reference every backend answers like.
    pub fn matches(&self, entry: &SystemLogEntry) -> bool {
        self.user.as_ref().is_none_or(|u| *u == entry.user)
            && self.method.as_ref().is_none_or(|m| *m == entry.method)
            && self
                .path_prefix
                .as_ref()
                .is_none_or(|p| entry.path.starts_with(p.as_str()))
            && self.status.is_none_or(|s| s == entry.status)
            && self.from.is_none_or(|t| entry.time >= t)
            && self.to.is_none_or(|t| entry.time <= t)
    }
}
