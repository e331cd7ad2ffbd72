//! An in-memory [`Store`] for tests, demos and ephemeral servers.
//!
//! Everything lives in one state struct of ordered maps and sets behind a
//! [`std::sync::RwLock`]; the ordered keys give every read the order the [`Store`]
//! contract names without sorting. [`StoreBase::apply`] writes straight into the state and
//! records an undo entry per change: when an op fails, the entries are replayed backwards
//! so the store is exactly as it was, without copying the whole state per batch.
//!
//! Id sequences live under their own lock, so a failed batch never gives back the ids it
//! reserved.
//!
//! [`Store`]: lore_core::Store
//! [`StoreBase::apply`]: lore_core::store::StoreBase::apply

mod history;
mod read;
mod state;
mod store;
mod write;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

use lore_core::error::{Error, Result};
use lore_core::id::ObjectId;
use lore_core::model::{
    Attachment, ImportSettings, Operation, OperationLogLine, SystemLogEntry, Timestamp,
};

use crate::state::State;

/// An in-memory [`Store`]: fast, atomic per batch, and gone when the process ends.
///
/// Reads and writes take one [`RwLock`]; a batch holds the write lock from its first op
/// to its last, so readers never see half of it.
///
/// [`Store`]: lore_core::Store
#[derive(Debug, Default)]
pub struct MemoryStore {
    state: RwLock<State>,
    /// The next free id of each id space.
    sequences: Mutex<HashMap<i64, i64>>,
    /// The system log, keyed (time, append number): the newest entry is the last.
    system_log: RwLock<SystemLog>,
    /// Operations, import settings and attachments.
    operations: RwLock<Operations>,
    /// A snapshot ([`StoreBase::snapshot`](lore_core::store::StoreBase::snapshot)): its
    /// writes fail.
    read_only: bool,
}

/// Operations and their logs, import settings and attachments of a memory store. Settings
/// and attachments of a deleted object are not removed but no longer read (ids are never
/// used again), which answers like the SQL stores' deleting them.
#[derive(Debug, Default, Clone)]
struct Operations {
    operations: BTreeMap<i64, Operation>,
    logs: HashMap<i64, Vec<OperationLogLine>>,
    settings: HashMap<ObjectId, ImportSettings>,
    /// By object, then name.
    attachments: HashMap<ObjectId, BTreeMap<String, Attachment>>,
}

/// What a plan reads ([`MemoryStore::read_for`]).
enum PlanState<'a> {
    Now(RwLockReadGuard<'a, State>),
    Then(Box<State>),
}

impl std::ops::Deref for PlanState<'_> {
    type Target = State;
    fn deref(&self) -> &State {
        match self {
            PlanState::Now(state) => state,
            PlanState::Then(state) => state,
        }
    }
}

/// The system log of a memory store.
#[derive(Debug, Default, Clone)]
struct SystemLog {
    entries: BTreeMap<(Timestamp, u64), SystemLogEntry>,
    appended: u64,
}

impl MemoryStore {
    /// An empty store: no objects, users or roles, every id space starting at 1.
    pub fn new() -> Self {
        Self::default()
    }

    fn read(&self) -> Result<RwLockReadGuard<'_, State>> {
        self.state.read().map_err(|_| poisoned())
    }

    /// The state a plan reads: the store's, or a copy rewound to the plan's version
    /// ([`Plan::as_of`](lore_core::mql::plan::Plan::as_of)).
    fn read_for(&self, as_of: Option<i64>) -> Result<PlanState<'_>> {
        let state = self.read()?;
        Ok(match as_of {
            Some(version) => PlanState::Then(Box::new(state.as_of(version))),
            None => PlanState::Now(state),
        })
    }

    fn write(&self) -> Result<RwLockWriteGuard<'_, State>> {
        self.writable()?;
        self.state.write().map_err(|_| poisoned())
    }

    /// Refuses the writes of a snapshot.
    fn writable(&self) -> Result<()> {
        if self.read_only {
            return Err(Error::internal(
                "a snapshot of the store is read-only: write to the store itself",
            ));
        }
        Ok(())
    }

    fn sequences(&self) -> Result<std::sync::MutexGuard<'_, HashMap<i64, i64>>> {
        self.sequences.lock().map_err(|_| poisoned())
    }

    fn log(&self) -> Result<RwLockReadGuard<'_, SystemLog>> {
        self.system_log.read().map_err(|_| poisoned())
    }

    fn log_mut(&self) -> Result<RwLockWriteGuard<'_, SystemLog>> {
        self.writable()?;
        self.system_log.write().map_err(|_| poisoned())
    }

    fn ops(&self) -> Result<RwLockReadGuard<'_, Operations>> {
        self.operations.read().map_err(|_| poisoned())
    }

    fn ops_mut(&self) -> Result<RwLockWriteGuard<'_, Operations>> {
        self.writable()?;
        self.operations.write().map_err(|_| poisoned())
    }

    fn exists(&self, id: ObjectId) -> Result<bool> {
        Ok(self.read()?.objects.contains_key(&id))
    }
}

fn poisoned() -> Error {
    Error::internal("the memory store is unusable: a writer panicked while holding its lock")
}
