//! Backup and restore of the whole repository (`POST /repository/backup`, `POST
//! /repository/restore`, `lore backup`, `lore restore`); the format is
//! [`crate::backup`]'s.

use std::fs::File;
use std::io::{Seek, Write};
use std::sync::PoisonError;

use super::Operations;
use crate::auth::Caller;
use crate::backup::{
    BackupLimits, BackupOptions, BackupReader, BackupSummary, RestorePlan, backup_history,
    plan_restore, write_backup,
};
use crate::error::{Error, Result};
use crate::model::{Capability, OperationFilter, OperationState};
use crate::store::{Op, RestoredHistory, WriteTx};

impl Operations<'_> {
    /// Writes a backup of the whole repository to `out`, for administrators: the
    /// backup holds password hashes.
    pub async fn backup<W: Write + Seek + Send>(
        &self,
        caller: &Caller,
        out: W,
        options: BackupOptions,
    ) -> Result<(W, BackupSummary)> {
        caller.require(Capability::Administer)?;
        write_backup(&*self.store, out, options, crate::model::now()).await
    }

    /// Replaces everything the store holds (but the system log) with the backup in
    /// `file`, for administrators: all of it or, on any error, nothing. Every session
    /// ends, the caller's too: the users of the backup log in again. Refused while an
    /// operation runs, whose writes would land in the restored repository.
    pub async fn restore(&self, caller: &Caller, file: File) -> Result<RestorePlan> {
        caller.require(Capability::Administer)?;
        let running = self
            .store
            .operations(&OperationFilter {
                state: Some(OperationState::Running),
                limit: 1,
                ..OperationFilter::default()
            })
            .await?;
        if let Some(operation) = running.first() {
            return Err(Error::conflict(format!(
                "operation {} is running; restore once it has ended",
                operation.id
            )));
        }
        // A backup's history keeps its versions: the restore's own revision must come
        // after every one of them (the manifest says how far they run).
        let manifest_file = file
            .try_clone()
            .map_err(|e| Error::internal(format!("restore: the backup cannot be read: {e}")))?;
        let history = tokio::task::spawn_blocking(move || {
            let reader = BackupReader::open(manifest_file, BackupLimits::default())?;
            backup_history(&reader)
        })
        .await
        .map_err(|e| Error::internal(format!("restore: reading the backup failed: {e}")))??;
        // The backup is read on a blocking thread and its ops come over in chunks, so
        // neither side holds the whole of it.
        let (sender, mut receiver) = tokio::sync::mpsc::channel::<Vec<Op>>(2);
        let reading = tokio::task::spawn_blocking(move || {
            let mut reader = BackupReader::open(file, BackupLimits::default())?;
            plan_restore(&mut reader, &mut |ops| {
                sender
                    .blocking_send(ops)
                    .map_err(|_| Error::internal("restore: the writing side stopped"))
            })
        });
        let mut tx: Option<Box<dyn WriteTx + '_>> = None;
        let mut failed = None;
        let newest = history.map(|h| h.newest);
        while let Some(ops) = receiver.recv().await {
            if let Err(e) = self.write_restored(caller, &mut tx, newest, ops).await {
                failed = Some(e);
                break;
            }
        }
        drop(receiver);
        let plan = reading
            .await
            .map_err(|e| Error::internal(format!("restore: reading the backup failed: {e}")));
        if let Some(e) = failed {
            return Err(e);
        }
        let plan = plan??;
        let Some(tx) = tx else {
            return Err(Error::invalid("backup: it holds nothing to restore"));
        };
        tx.commit().await?;
        *self.meta.write().unwrap_or_else(PoisonError::into_inner) = None;
        tracing::info!(
            backup_created_at = %plan.manifest.created_at,
            backup_backend = %plan.manifest.backend,
            objects = plan.records.get(crate::backup::files::OBJECTS).copied().unwrap_or(0),
            "repository restored from a backup"
        );
        Ok(plan)
    }

    /// Whether the store holds no more than a new one: no repository objects and at
    /// most one user (the first administrator). `lore restore` replaces only such a
    /// store unless told to.
    pub async fn is_fresh(&self, caller: &Caller) -> Result<bool> {
        caller.require(Capability::Administer)?;
        let objects = self
            .store
            .model_objects_page(crate::id::REPOSITORY_MODEL, None, 1)
            .await?;
        Ok(objects.is_empty() && self.store.user_count().await? <= 1)
    }

    /// Writes a chunk of a restore, opening its transaction (which first empties the
    /// store) with the first chunk.
    async fn write_restored<'a>(
        &'a self,
        caller: &Caller,
        tx: &mut Option<Box<dyn WriteTx + 'a>>,
        newest: Option<i64>,
        ops: Vec<Op>,
    ) -> Result<()> {
        if tx.is_none() {
            let author = crate::model::Author::by(crate::model::Source::Restore, caller.user());
            let mut opened = self.begin(author).await?;
            let mut first = vec![Op::ClearAll];
            // A backup's history keeps its versions: the restore comes after them.
            first.extend(newest.map(|v| Op::RestoreHistory(RestoredHistory::Advance(v))));
            opened.write(first).await?;
            // Everything written from here on lands in an empty store.
            opened.expect_new_rows();
            *tx = Some(opened);
        }
        match tx {
            Some(tx) => tx.write(ops).await,
            None => Ok(()),
        }
    }
}
