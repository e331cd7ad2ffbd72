//! The server's own work on the catalog, which no request may do: writing and purging
//! the system log, the notification outbox, the operations sweeper and the command
//! line's operator. It sits behind [`ServerCatalog`], a handle only code holding the
//! store can make (start-up and the CLI); a [`Catalog`] gives no way to one, so request
//! handlers, which get a `Catalog`, cannot reach any of it.

use std::sync::Arc;
use std::time::Duration;

use super::{Catalog, CatalogConfig};
use crate::auth::Caller;
use crate::error::Result;
use crate::model::{
    Delivery, DeliveryState, OperationFilter, OperationState, SystemLogEntry, Timestamp,
};
use crate::store::Store;

/// The catalog as the server itself uses it. It dereferences to the [`Catalog`] that
/// serves requests; [`ServerCatalog::catalog`] hands that out to the router.
#[derive(Debug, Clone)]
pub struct ServerCatalog(Catalog);

impl ServerCatalog {
    /// The catalog over a store, for start-up and the command line.
    pub fn new(store: Arc<dyn Store>, config: CatalogConfig) -> Self {
        Self(Catalog::new(store, config))
    }

    /// The request-serving catalog, without the server's own work.
    pub fn catalog(&self) -> Catalog {
        self.0.clone()
    }

    /// The caller of the command line (`lore user ...`, `lore backup ...`), which
    /// reaches the store directly: whoever can open the store's database already
    /// controls it, so the command line holds every capability. It is no user (its id
    /// is `-1_0`, which no user has), so rules about oneself never match it.
    pub fn command_line_operator(&self) -> Caller {
        self.0.command_line_operator()
    }

    /// Appends calls the server served to the system log; the server records every
    /// call, whoever made it.
    pub async fn record_calls(&self, entries: Vec<SystemLogEntry>) -> Result<()> {
        self.0.record_calls(entries).await
    }

    /// Removes system log entries older than `before` (the configured retention);
    /// answers how many.
    pub async fn purge_system_log(&self, before: Timestamp) -> Result<u64> {
        self.0.purge_system_log(before).await
    }

    /// Forgets the history the retention no longer keeps: what no revision from the
    /// floor on reads, the floor being the newest revision at least `keep_days` old and
    /// no newer than the `keep_versions`-th newest version of any model that has that
    /// many (0 for either: no such rule; both 0: nothing is purged). Answers the floor
    /// and how many kept images went, or `None` when nothing was to go.
    pub async fn purge_history(
        &self,
        keep_days: u64,
        keep_versions: u64,
    ) -> Result<Option<(i64, u64)>> {
        let store = &self.0.store;
        let mut floors = Vec::new();
        if keep_days > 0 {
            let age = chrono::Duration::days(keep_days.min(1_000_000) as i64);
            match store.revision_at(crate::model::now() - age).await? {
                Some(revision) => floors.push(revision.version),
                // Nothing is that old.
                None => return Ok(None),
            }
        }
        if keep_versions > 0 {
            match store.versions_floor(keep_versions as usize).await? {
                Some(version) => floors.push(version),
                // A rule of versions with no model that many versions old: it keeps
                // everything only where there is no rule of days.
                None if keep_days == 0 => return Ok(None),
                None => {}
            }
        }
        let Some(floor) = floors.into_iter().min() else {
            return Ok(None);
        };
        let span = store.history_span().await?;
        if floor <= span.oldest.version {
            return Ok(None);
        }
        let purged = store.purge_history(floor).await?;
        Ok(Some((floor, purged)))
    }

    /// Forgets the curation and grant history older than `keep_days` days (their own
    /// retention, as long as the administrator wants: 0 keeps it all): the images
    /// replaced at or before the newest revision that old. Answers that revision and
    /// how many images went, or `None` when nothing was to go.
    pub async fn purge_curation_history(&self, keep_days: u64) -> Result<Option<(i64, u64)>> {
        if keep_days == 0 {
            return Ok(None);
        }
        let store = &self.0.store;
        let age = chrono::Duration::days(keep_days.min(1_000_000) as i64);
        let Some(floor) = store.revision_at(crate::model::now() - age).await? else {
            return Ok(None);
        };
        let purged = store.purge_curation_history(floor.version).await?;
        Ok(Some((floor.version, purged)))
    }

    /// Removes raw OpenLineage events received before `before` (the configured
    /// retention; runs stay); answers how many.
    pub async fn purge_lineage_events(&self, before: Timestamp) -> Result<u64> {
        self.0.purge_lineage_events(before).await
    }

    /// Claims the deliveries due now for this process's sender, for `lease` (after
    /// which another sender may take them, should this one have stopped).
    pub async fn claim_deliveries(&self, limit: usize, lease: Duration) -> Result<Vec<Delivery>> {
        self.0.claim_deliveries(limit, lease).await
    }

    /// Records how an attempt at a delivery went (see the retry policy of
    /// [`super::DeliveryConfig`]).
    pub async fn finish_delivery(
        &self,
        delivery: Delivery,
        outcome: std::result::Result<(), String>,
    ) -> Result<Delivery> {
        self.0.finish_delivery(delivery, outcome).await
    }

    /// Marks failed the running operations whose process stopped renewing their
    /// heartbeat; answers how many.
    pub async fn fail_interrupted_operations(&self) -> Result<usize> {
        self.0.fail_interrupted_operations().await
    }

    /// What waits in the store, in every process over it, each counted up to `cap`:
    /// the operations running and the deliveries pending in the outbox. The server's
    /// metrics read it at each scrape.
    pub async fn backlog(&self, cap: usize) -> Result<Backlog> {
        let running = self
            .0
            .store
            .operations(&OperationFilter {
                state: Some(OperationState::Running),
                limit: cap,
                ..OperationFilter::default()
            })
            .await?
            .len();
        let pending = self
            .0
            .store
            .deliveries(Some(DeliveryState::Pending), cap)
            .await?
            .len();
        Ok(Backlog {
            running_operations: running as u64,
            pending_deliveries: pending as u64,
        })
    }
}

/// What [`ServerCatalog::backlog`] counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Backlog {
    pub running_operations: u64,
    pub pending_deliveries: u64,
}

impl std::ops::Deref for ServerCatalog {
    type Target = Catalog;
    fn deref(&self) -> &Catalog {
        &self.0
    }
}
