//! The `Store` contract against the in-memory backend.

use std::sync::Arc;

use lore_backend_memory::MemoryStore;
use lore_conformance::store_contract::run;

#[tokio::test]
async fn memory_store_contract() {
    run(Arc::new(MemoryStore::new())).await
}
