//! The store rules of `lore_conformance::store_rules` on every backend.

use std::sync::Arc;

use lore_conformance::postgres::TestDatabase;
use lore_conformance::store_rules as rules;
use lore_core::Store;

macro_rules! on_every_backend {
    ($($case:ident),* $(,)?) => {
        mod memory {
            use super::*;
            $(#[tokio::test]
            async fn $case() {
                rules::$case(Arc::new(lore_backend_memory::MemoryStore::new())).await;
            })*
        }
        mod sqlite {
            use super::*;
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                let store = lore_backend_sqlite::open_temporary().await.expect("opening SQLite");
                rules::$case(Arc::new(store)).await;
            })*
        }
        mod postgres {
            use super::*;
            $(#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $case() {
                let Some(db) = TestDatabase::create().await else { return };
                let store = lore_backend_postgres::PostgresStore::open(&db.url)
                    .await
                    .expect("opening PostgreSQL");
                let store: Arc<dyn Store> = Arc::new(store);
                rules::$case(store).await;
                drop(db);
            })*
        }
    };
}

on_every_backend!(
    timestamps_keep_microseconds,
    nan_and_nul_are_invalid_everywhere,
    the_same_failure_has_the_same_code,
    reads_do_not_wait_for_an_open_transaction,
    a_dropped_transaction_leaves_nothing,
    principal_and_meta_version,
    objects_by_ids_with_details,
);
