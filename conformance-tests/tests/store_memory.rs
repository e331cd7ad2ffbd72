//! The `Store` contract against the in-memory backend: one test per case, each on a
//! new store.

use std::sync::Arc;

use lore_backend_memory::MemoryStore;
use lore_core::Store;

fn main() -> std::process::ExitCode {
    lore_conformance::store_suite(|| async { Arc::new(MemoryStore::new()) as Arc<dyn Store> })
}
