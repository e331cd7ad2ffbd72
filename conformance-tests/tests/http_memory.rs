//! The HTTP suite against the in-memory store.

use std::sync::Arc;

use lore_backend_memory::MemoryStore;
use lore_core::Store;

lore_conformance::http_suite!(|| async { Arc::new(MemoryStore::new()) as Arc<dyn Store> });
