//! The `Store` contract against the SQLite backend, on a fresh in-memory database.

use std::sync::Arc;

use lore_conformance::store_contract;

#[tokio::test]
async fn sqlite_store_contract() {
    let store = match lore_backend_sqlite::open_temporary().await {
        Ok(store) => store,
        Err(e) => panic!("opening an in-memory SQLite store failed: {e}"),
    };
    store_contract::run(Arc::new(store)).await;
}
