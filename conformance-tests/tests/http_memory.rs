//! The HTTP suite against the in-memory store.

use std::sync::Arc;

use lore_backend_memory::MemoryStore;
use lore_core::Store;

fn main() -> std::process::ExitCode {
    lore_conformance::http_suite(|| async { Arc::new(MemoryStore::new()) as Arc<dyn Store> })
}
