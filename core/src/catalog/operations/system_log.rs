//! The system log: every API call with its status, appended by the front end that
//! served it and read by administrators (`GET /admin/systemLog`).

use super::Operations;
use crate::auth::Caller;
use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::model::{Capability, SystemLogEntry, SystemLogFilter, Timestamp};
use crate::mql::plan::Page;

/// Entries per page when a read names no page size.
pub const DEFAULT_LOG_PAGE_SIZE: u64 = 100;
/// The largest page of a system log read.
pub const MAX_LOG_PAGE_SIZE: u64 = 1000;

/// A page of the system log: `pageSize` entries (1 to [`MAX_LOG_PAGE_SIZE`]), page
/// `pageNumber` (from 1).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LogPage {
    pub size: Option<i64>,
    pub number: Option<i64>,
}

impl LogPage {
    fn page(self) -> Result<Page> {
        let size = match self.size {
            None => DEFAULT_LOG_PAGE_SIZE,
            Some(n) if (1..=MAX_LOG_PAGE_SIZE as i64).contains(&n) => n as u64,
            Some(n) => {
                return Err(Error::invalid(format!(
                    "pageSize {n} is out of range: 1 to {MAX_LOG_PAGE_SIZE}"
                )));
            }
        };
        let number = match self.number {
            None => 1,
            Some(n) if n >= 1 => n as u64,
            Some(n) => {
                return Err(Error::invalid(format!(
                    "pageNumber {n} is out of range: pages count from 1"
                )));
            }
        };
        Ok(Page {
            offset: (number - 1).saturating_mul(size),
            limit: size,
        })
    }
}

/// A page of the system log and how many entries pass the filter in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogRead {
    pub entries: Vec<SystemLogEntry>,
    pub total: u64,
}

impl Operations<'_> {
    /// `GET /admin/systemLog`: the entries that pass the filter, newest first, for
    /// callers who may administer the server.
    pub async fn system_log(
        &self,
        caller: &Caller,
        filter: &SystemLogFilter,
        page: LogPage,
    ) -> Result<LogRead> {
        caller.require(Capability::Administer)?;
        let page = page.page()?;
        if let (Some(from), Some(to)) = (filter.from, filter.to)
            && from > to
        {
            return Err(Error::invalid(format!(
                "from ({from}) is after to ({to}): no entry can pass"
            )));
        }
        let entries = self.store.system_log(filter, page).await?;
        let total = self.store.count_system_log(filter).await?;
        Ok(LogRead { entries, total })
    }
}

impl Catalog {
    /// Appends calls a front end served to the system log. Not a call of a client: the
    /// server records every call, whoever made it, so this takes no caller.
    pub(crate) async fn record_calls(&self, entries: Vec<SystemLogEntry>) -> Result<()> {
        if entries.is_empty() {
            return Ok(());
        }
        self.store.append_system_log(entries).await
    }

    /// Removes system log entries older than `before` (the retention the configuration
    /// sets); returns how many. Run by the server, not by a client.
    pub(crate) async fn purge_system_log(&self, before: Timestamp) -> Result<u64> {
        self.store.purge_system_log(before).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_count_from_one_and_stay_in_range() {
        let page = |size, number| LogPage { size, number }.page();
        assert_eq!(
            page(None, None).unwrap(),
            Page {
                offset: 0,
                limit: 100
            }
        );
        assert_eq!(
            page(Some(10), Some(3)).unwrap(),
            Page {
                offset: 20,
                limit: 10
            }
        );
        assert!(
            page(Some(0), None)
                .unwrap_err()
                .message
                .contains("pageSize")
        );
        assert!(
            page(Some(1001), None)
                .unwrap_err()
                .message
                .contains("pageSize")
        );
        assert!(
            page(None, Some(0))
                .unwrap_err()
                .message
                .contains("pageNumber")
        );
    }
}
