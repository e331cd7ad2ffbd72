//! [`SqlStore`]'s [`StoreBase`]: ids, snapshots and the write path, one transaction of
//! the driver's per [`WriteTx`].

use std::sync::Arc;
use std::sync::atomic::Ordering;

use async_trait::async_trait;
use lore_core::model::Author;
use lore_core::pace::YieldEvery;
use lore_core::store::{Batch, Op, StoreBase, WriteTx, prepare};
use lore_core::{Error, Result, Store};

use super::SqlStore;
use crate::driver::{Driver, DriverTx, Stmt};
use crate::read;
use crate::write::{self, Context, Pending, Writer, write_error};

/// A write transaction of the shared store over the driver's.
struct SqlWriteTx<'a, D: Driver> {
    store: &'a SqlStore<D>,
    tx: D::Tx,
    writer: Writer,
    /// The store's write transactions begun before this one.
    commits: u64,
}

/// Brings the planner's statistics up to date after a large write, so the next reads
/// use the indexes, and compacts the tallies. The write has landed; a failure here is
/// only logged.
async fn refresh_statistics<D: Driver>(driver: &D) {
    let refreshed = async {
        let mut tx = driver.begin().await?;
        tx.run(vec![Stmt::Script(D::DIALECT.after_bulk_write().into())])
            .await?;
        tx.commit().await
    };
    if let Err(e) = refreshed.await {
        tracing::warn!(error = %e.cause, "refreshing the planner statistics failed");
    }
    compact_tallies(driver).await;
}

/// Write transactions between two compactions of the tallies after small writes: each
/// adds at most a few rows of differences per object type it touched.
const COMPACT_EVERY: u64 = 256;
/// Ops a write turns into statements between two yields to the runtime's other tasks.
const YIELD_EVERY: u32 = 1_000;

/// Folds the tallies' rows of differences
/// ([`Dialect::compact_tallies`](crate::Dialect::compact_tallies)) in a transaction of its
/// own. A failure is only logged: the tallies stay right, only longer to sum.
async fn compact_tallies<D: Driver>(driver: &D) {
    let statements = D::DIALECT
        .compact_tallies()
        .iter()
        .map(|sql| Stmt::exec(*sql, Vec::new()))
        .collect();
    let compacted = async {
        let mut tx = driver.begin().await?;
        tx.run(statements).await?;
        tx.commit().await
    };
    if let Err(e) = compacted.await {
        tracing::warn!(error = %e.cause, "compacting the tallies failed");
    }
}

impl<D: Driver> SqlWriteTx<'_, D> {
    async fn send(&mut self, pending: Pending) -> Result<()> {
        if pending.is_empty() {
            return Ok(());
        }
        let Pending { stmts, contexts } = pending;
        self.tx
            .run(stmts)
            .await
            .map_err(|e| write_error(e, &contexts))?;
        Ok(())
    }
}

#[async_trait]
impl<D: Driver> WriteTx for SqlWriteTx<'_, D> {
    async fn write(&mut self, ops: Vec<Op>) -> Result<()> {
        // An import's chunk of 5,000 ops takes 10-40 ms to turn into statements: the
        // reads queued on this worker run in between.
        let mut pace = YieldEvery::new(YIELD_EVERY);
        for mut op in ops {
            prepare(&mut op)?;
            self.writer.op(op)?;
            pace.tick().await;
        }
        let ready = self.writer.take();
        self.send(ready).await
    }

    fn expect_new_rows(&mut self) {
        self.writer.expect_new_rows();
    }

    async fn commit(mut self: Box<Self>) -> Result<()> {
        let rest = self.writer.finish();
        self.send(rest).await?;
        let Self {
            store,
            tx,
            writer,
            commits,
        } = *self;
        let driver = store.driver.as_ref();
        tx.commit().await.map_err(|e| {
            write_error(
                e,
                &[Context {
                    what: "committing".into(),
                    on_unique: None,
                }],
            )
        })?;
        if writer.changed_everything() {
            store.everything_changed();
        }
        if writer.bulk_rows() >= write::BULK_ROWS {
            refresh_statistics(driver).await;
        } else if commits % COMPACT_EVERY == COMPACT_EVERY - 1 {
            compact_tallies(driver).await;
        }
        Ok(())
    }
}

#[async_trait]
impl<D: Driver> StoreBase for SqlStore<D> {
    fn backend(&self) -> &'static str {
        D::DIALECT.name()
    }

    async fn ping(&self) -> Result<()> {
        self.rows("SELECT 1", Vec::new(), "nothing (a ping)")
            .await?;
        Ok(())
    }

    fn warm_up(&self) {
        if !self.reads_snapshot() {
            self.build_in_background();
        }
    }

    async fn reserve_ids(&self, model: i64, count: u64) -> Result<i64> {
        let count = i64::try_from(count)
            .ok()
            .filter(|c| *c < i64::MAX)
            .ok_or_else(|| Error::invalid(format!("cannot reserve {count} ids at once")))?;
        let mut pending = Pending::default();
        pending.push(
            Stmt::query(
                "INSERT INTO id_sequences (model, next_id) VALUES ($1, 1 + $2) \
                 ON CONFLICT (model) DO UPDATE SET next_id = id_sequences.next_id + $2 \
                 WHERE id_sequences.next_id <= 9223372036854775807 - $2 \
                 RETURNING next_id - $2",
                vec![model.into(), count.into()],
            ),
            Context {
                what: format!("reserving ids of id space {model}").into(),
                on_unique: None,
            },
        );
        let outcomes = self.write_now(pending).await?;
        match outcomes
            .into_iter()
            .next()
            .and_then(|o| o.rows.into_iter().next())
        {
            Some(row) => row.int(0, "id_sequences"),
            None => Err(Error::invalid(format!(
                "cannot reserve {count} more ids in the id space of model {model}"
            ))),
        }
    }

    async fn snapshot(&self) -> Result<Arc<dyn Store>> {
        let snapshot = self.driver.snapshot().await.map_err(|e| {
            write_error(
                e,
                &[Context {
                    what: "opening a snapshot".into(),
                    on_unique: None,
                }],
            )
        })?;
        Ok(Arc::new(Self {
            driver: Arc::clone(&self.driver),
            snapshot: Some(Arc::new(snapshot)),
            writes: Arc::clone(&self.writes),
            key_memo: Arc::clone(&self.key_memo),
            hit_cache: Arc::clone(&self.hit_cache),
            mirror: Arc::clone(&self.mirror),
            entities: Arc::clone(&self.entities),
        }))
    }

    async fn id_sequences(&self) -> Result<Vec<(i64, i64)>> {
        let rows = self
            .rows(
                "SELECT model, next_id FROM id_sequences ORDER BY model",
                Vec::new(),
                "id_sequences",
            )
            .await?;
        read::all(rows, |row| {
            Ok((row.int(0, "id_sequences")?, row.int(1, "id_sequences")?))
        })
    }

    async fn apply(&self, batch: Batch) -> Result<()> {
        if batch.is_empty() {
            return Ok(());
        }
        let mut tx = self.begin(batch.author).await?;
        tx.write(batch.ops).await?;
        tx.commit().await
    }

    async fn begin(&self, author: Author) -> Result<Box<dyn WriteTx + '_>> {
        self.writable()?;
        let starting = || {
            [Context {
                what: "starting a write".into(),
                on_unique: None,
            }]
        };
        let mut tx = self
            .driver
            .begin()
            .await
            .map_err(|e| write_error(e, &starting()))?;
        let opened = tx
            .run(vec![Stmt::query(D::DIALECT.history_stamp(), Vec::new())])
            .await
            .map_err(|e| write_error(e, &starting()))?;
        let stamp = match opened.first().and_then(|o| o.rows.first()) {
            Some(row) => row.int(0, "the history stamp")?,
            None => return Err(Error::internal("the history stamp was not read")),
        };
        Ok(Box::new(SqlWriteTx {
            store: self,
            tx,
            writer: Writer::new(D::DIALECT, author, stamp),
            commits: self.writes.fetch_add(1, Ordering::Relaxed),
        }))
    }
}
