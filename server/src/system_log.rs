//! The system log's writer. The call layer hands each call's entry to a [`Recorder`],
//! which queues it on a bounded channel without waiting; a background task writes what
//! is queued in one transaction per batch (every flush interval, or as soon as
//! [`BATCH`] entries wait), so no request waits for a database write. When the queue is
//! full, entries are dropped and counted, and the count is logged as a warning. The task
//! also purges entries older than the retention once an hour, and writes what is left
//! when the server stops.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use lore_core::ServerCatalog;
use lore_core::model::SystemLogEntry;
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::MissedTickBehavior;

/// The most entries one transaction writes.
pub const BATCH: usize = 500;
/// The most entries kept for another try after a failed write; beyond it they are lost.
const HELD_AFTER_FAILURE: usize = 10 * BATCH;
/// How often entries older than the retention are purged.
const PURGE_EVERY: Duration = Duration::from_secs(3600);

/// How the writer runs.
#[derive(Debug, Clone)]
pub struct WriterSettings {
    /// How long an entry may wait before its batch is written.
    pub flush_interval: Duration,
    /// How many entries may wait in the queue; more are dropped.
    pub capacity: usize,
    /// How long entries are kept; `None` keeps them.
    pub retention: Option<Duration>,
    /// How long raw OpenLineage events are kept, purged at the same times.
    pub lineage_event_retention: Option<Duration>,
    /// What history is kept (`[history] keep_days`, `keep_versions`), purged at the same
    /// times; `None` keeps it all.
    pub history_retention: Option<(u64, u64, u64)>,
}

/// Where calls are recorded: cheap to clone, never waits.
#[derive(Debug, Clone)]
pub struct Recorder {
    entries: mpsc::Sender<SystemLogEntry>,
    flushes: mpsc::UnboundedSender<oneshot::Sender<()>>,
    dropped: Arc<AtomicU64>,
    /// Every entry dropped since the start, for the metrics.
    dropped_total: Arc<AtomicU64>,
}

impl Recorder {
    /// Queues the entry; drops (and counts) it when the queue is full.
    pub fn record(&self, entry: SystemLogEntry) {
        if let Err(mpsc::error::TrySendError::Full(_)) = self.entries.try_send(entry) {
            self.dropped.fetch_add(1, Ordering::Relaxed);
            self.dropped_total.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The entries dropped since the writer started: the queue was full, or a failed
    /// write could not be kept for another try.
    pub fn dropped_total(&self) -> u64 {
        self.dropped_total.load(Ordering::Relaxed)
    }

    /// Writes every entry queued before this call, and returns once it is written (or
    /// the write failed, which the writer logs). For tests and shutdown.
    pub async fn flush(&self) {
        let (ack, done) = oneshot::channel();
        if self.flushes.send(ack).is_ok() {
            let _ = done.await;
        }
    }
}

/// The background task; [`Writer::stop`] writes what is queued and ends it.
#[derive(Debug)]
pub struct Writer {
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<()>>,
}

impl Writer {
    /// Stops taking entries, writes those queued, and waits for the task.
    pub async fn stop(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(task) = self.task.take() {
            let _ = task.await;
        }
    }
}

/// Starts the writer over the catalog; calls go to the [`Recorder`].
pub fn start(catalog: ServerCatalog, settings: WriterSettings) -> (Recorder, Writer) {
    let (entries, queue) = mpsc::channel(settings.capacity.max(1));
    let (flushes, flush_requests) = mpsc::unbounded_channel();
    let (stop, stopped) = oneshot::channel();
    let dropped = Arc::new(AtomicU64::new(0));
    let dropped_total = Arc::new(AtomicU64::new(0));
    let task = tokio::spawn(run(
        Task {
            catalog,
            buffer: Vec::new(),
            dropped: Arc::clone(&dropped),
            dropped_total: Arc::clone(&dropped_total),
        },
        settings,
        queue,
        flush_requests,
        stopped,
    ));
    (
        Recorder {
            entries,
            flushes,
            dropped,
            dropped_total,
        },
        Writer {
            stop: Some(stop),
            task: Some(task),
        },
    )
}

/// What the writer holds between batches.
struct Task {
    catalog: ServerCatalog,
    buffer: Vec<SystemLogEntry>,
    dropped: Arc<AtomicU64>,
    dropped_total: Arc<AtomicU64>,
}

impl Task {
    /// Writes the buffered entries, a transaction per [`BATCH`].
    async fn write(&mut self) {
        while !self.buffer.is_empty() {
            let take = self.buffer.len().min(BATCH);
            let batch: Vec<SystemLogEntry> = self.buffer.drain(..take).collect();
            if let Err(e) = self.catalog.record_calls(batch.clone()).await {
                let kept = self.buffer.len() + batch.len() <= HELD_AFTER_FAILURE;
                tracing::warn!(
                    error = %e,
                    entries = batch.len(),
                    kept,
                    "writing the system log failed"
                );
                if kept {
                    // Try again at the next flush, oldest first.
                    self.buffer.splice(0..0, batch);
                } else {
                    self.dropped
                        .fetch_add(batch.len() as u64, Ordering::Relaxed);
                    self.dropped_total
                        .fetch_add(batch.len() as u64, Ordering::Relaxed);
                }
                return;
            }
        }
    }

    fn report_drops(&self) {
        let dropped = self.dropped.swap(0, Ordering::Relaxed);
        if dropped > 0 {
            tracing::warn!(
                dropped,
                "the system log queue was full: calls went unrecorded"
            );
        }
    }

    /// The server's other housekeeping of the same hour: raw OpenLineage events older
    /// than their retention (`[openlineage] retention_days`).
    async fn purge_lineage_events(&self, retention: Duration) {
        let Ok(age) = chrono::Duration::from_std(retention) else {
            return;
        };
        let before = lore_core::model::now() - age;
        match self.catalog.purge_lineage_events(before).await {
            Ok(0) => {}
            Ok(purged) => tracing::info!(purged, "purged old OpenLineage events"),
            Err(e) => tracing::warn!(error = %e, "purging OpenLineage events failed"),
        }
    }

    /// And the history the retention no longer keeps (`[history]`).
    async fn purge_history(&self, (keep_days, keep_versions, keep_curation_days): (u64, u64, u64)) {
        if keep_days > 0 || keep_versions > 0 {
            match self.catalog.purge_history(keep_days, keep_versions).await {
                Ok(None) => {}
                Ok(Some((floor, purged))) => {
                    tracing::info!(floor, purged, "purged history older than the retention");
                }
                Err(e) => tracing::warn!(error = %e, "purging the history failed"),
            }
        }
        match self
            .catalog
            .purge_curation_history(keep_curation_days)
            .await
        {
            Ok(None) => {}
            Ok(Some((floor, purged))) => {
                tracing::info!(
                    floor,
                    purged,
                    "purged curation history older than its retention"
                );
            }
            Err(e) => tracing::warn!(error = %e, "purging the curation history failed"),
        }
    }

    async fn purge(&self, retention: Duration) {
        let Ok(age) = chrono::Duration::from_std(retention) else {
            return;
        };
        let before = lore_core::model::now() - age;
        match self.catalog.purge_system_log(before).await {
            Ok(0) => {}
            Ok(purged) => tracing::info!(purged, "purged old system log entries"),
            Err(e) => tracing::warn!(error = %e, "purging the system log failed"),
        }
    }
}

async fn run(
    mut task: Task,
    settings: WriterSettings,
    mut queue: mpsc::Receiver<SystemLogEntry>,
    mut flush_requests: mpsc::UnboundedReceiver<oneshot::Sender<()>>,
    mut stopped: oneshot::Receiver<()>,
) {
    let mut flush = tokio::time::interval(settings.flush_interval);
    flush.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut purge = tokio::time::interval(PURGE_EVERY);
    purge.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        tokio::select! {
            biased;
            // A stop, or the writer handle dropped.
            _ = &mut stopped => break,
            Some(ack) = flush_requests.recv() => {
                while let Ok(entry) = queue.try_recv() {
                    task.buffer.push(entry);
                }
                task.write().await;
                let _ = ack.send(());
            }
            Some(entry) = queue.recv() => {
                task.buffer.push(entry);
                if task.buffer.len() >= BATCH {
                    task.write().await;
                }
            }
            _ = flush.tick() => {
                task.write().await;
                task.report_drops();
            }
            _ = purge.tick(), if settings.retention.is_some()
                || settings.lineage_event_retention.is_some()
                || settings.history_retention.is_some() => {
                if let Some(retention) = settings.retention {
                    task.purge(retention).await;
                }
                if let Some(retention) = settings.lineage_event_retention {
                    task.purge_lineage_events(retention).await;
                }
                if let Some(retention) = settings.history_retention {
                    task.purge_history(retention).await;
                }
            }
        }
    }
    queue.close();
    while let Some(entry) = queue.recv().await {
        task.buffer.push(entry);
    }
    task.write().await;
    task.report_drops();
    while let Ok(ack) = flush_requests.try_recv() {
        let _ = ack.send(());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_core::catalog::CatalogConfig;
    use lore_core::model::SystemLogFilter;
    use lore_core::mql::plan::Page;

    fn entry(path: &str) -> SystemLogEntry {
        SystemLogEntry {
            time: lore_core::model::now(),
            user: String::new(),
            address: String::new(),
            method: "GET".into(),
            path: path.into(),
            status: 200,
            duration_ms: 1,
            size: 2,
        }
    }

    fn store_and_catalog() -> (Arc<lore_backend_memory::MemoryStore>, ServerCatalog) {
        let store = Arc::new(lore_backend_memory::MemoryStore::new());
        let catalog = ServerCatalog::new(store.clone(), CatalogConfig::default());
        (store, catalog)
    }

    async fn count(store: &lore_backend_memory::MemoryStore) -> u64 {
        use lore_core::store::OperationRecords;
        store
            .count_system_log(&SystemLogFilter::default())
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn entries_wait_for_the_flush_and_stop_writes_the_rest() {
        let (store, catalog) = store_and_catalog();
        let settings = WriterSettings {
            flush_interval: Duration::from_secs(3600),
            capacity: 100,
            retention: None,
            lineage_event_retention: None,
            history_retention: None,
        };
        let (recorder, writer) = start(catalog, settings);
        recorder.record(entry("/a"));
        recorder.record(entry("/b"));
        tokio::task::yield_now().await;
        // The interval's first tick is immediate; after it, nothing is written until a
        // flush, a full batch or the stop.
        recorder.flush().await;
        assert_eq!(count(&store).await, 2);
        recorder.record(entry("/c"));
        writer.stop().await;
        assert_eq!(count(&store).await, 3);
        // After the stop, entries are no longer taken and a flush does not wait.
        recorder.record(entry("/d"));
        recorder.flush().await;
        assert_eq!(count(&store).await, 3);
    }

    #[tokio::test]
    async fn a_full_queue_drops_and_counts_without_waiting() {
        let (store, catalog) = store_and_catalog();
        let settings = WriterSettings {
            flush_interval: Duration::from_secs(3600),
            capacity: 3,
            retention: None,
            lineage_event_retention: None,
            history_retention: None,
        };
        let (recorder, writer) = start(catalog, settings);
        // On a current-thread runtime the writer does not run until this task waits:
        // the queue takes three, the rest are dropped.
        for i in 0..10 {
            recorder.record(entry(&format!("/{i}")));
        }
        assert_eq!(recorder.dropped.load(Ordering::Relaxed), 7);
        assert_eq!(recorder.dropped_total(), 7, "the metrics' count");
        recorder.flush().await;
        assert_eq!(count(&store).await, 3);
        writer.stop().await;
    }

    #[tokio::test]
    async fn retention_purges_older_entries() {
        use lore_core::store::{Batch, LineageRecords, Op, OperationRecords, StoreBase};
        let (store, catalog) = store_and_catalog();
        let mut old = entry("/old");
        old.time -= chrono::Duration::days(40);
        store
            .append_system_log(vec![old, entry("/new")])
            .await
            .unwrap();
        // Raw OpenLineage events, one received 100 days ago.
        let event = |run: &str, days_ago: i64| {
            let received = lore_core::model::now() - chrono::Duration::days(days_ago);
            // Sent a minute before it was received: not ahead of the clock of then.
            let sent = (received - chrono::Duration::minutes(1)).to_rfc3339();
            let json = serde_json::json!({
                "eventType": "START", "eventTime": sent,
                "producer": "https://example.com/p",
                "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
                "run": {"runId": run}, "job": {"namespace": "ns", "name": "job"}
            });
            lore_core::openlineage::read_event(&json, "pipeline", received).unwrap()
        };
        let (stale, fresh) = (
            event("0176a8c2-fe01-7439-87e6-56a1a1b4029f", 100),
            event("0176a8c2-fe01-7439-87e6-56a1a1b402a0", 1),
        );
        let (stale_digest, fresh_digest) = (stale.digest.clone(), fresh.digest.clone());
        store
            .apply(Batch::from(vec![
                Op::PutLineageEvent(stale),
                Op::PutLineageEvent(fresh),
            ]))
            .await
            .unwrap();
        let settings = WriterSettings {
            flush_interval: Duration::from_secs(3600),
            capacity: 10,
            retention: Some(Duration::from_secs(30 * 86_400)),
            lineage_event_retention: Some(Duration::from_secs(90 * 86_400)),
            history_retention: Some((30, 0, 0)),
        };
        let (_recorder, writer) = start(catalog, settings);
        // The purge interval ticks at once.
        for _ in 0..1000 {
            if count(&store).await == 1
                && store.lineage_event(&stale_digest).await.unwrap().is_none()
            {
                break;
            }
            tokio::task::yield_now().await;
        }
        assert!(store.lineage_event(&stale_digest).await.unwrap().is_none());
        assert!(store.lineage_event(&fresh_digest).await.unwrap().is_some());
        writer.stop().await;
        let left = store
            .system_log(
                &SystemLogFilter::default(),
                Page {
                    offset: 0,
                    limit: 10,
                },
            )
            .await
            .unwrap();
        assert_eq!(left.len(), 1);
        assert_eq!(left[0].path, "/new");
    }
}
