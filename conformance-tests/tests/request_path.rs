//! The request path stays short: finding the caller is one store read (a small one for a
//! key seen before), the meta model
//! is cached between calls, and `GET /entities/{objectId}` makes at most three store
//! reads (caller; object with what hangs on it; its defining terms).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use lore_backend_memory::MemoryStore;
use lore_conformance::Target;
use lore_core::model::*;
use lore_core::store::prelude::*;
use lore_core::store::{Principal, SessionCheck};
use lore_core::{ObjectId, Result};

/// A store that counts the reads it is asked for.
#[derive(Debug, Default)]
struct Counting {
    inner: MemoryStore,
    reads: AtomicUsize,
    /// Whole principals read (a key's first call, or one after its access changed).
    principals: AtomicUsize,
}

impl Counting {
    fn read(&self) {
        self.reads.fetch_add(1, Ordering::SeqCst);
    }
    fn take(&self) -> usize {
        self.reads.swap(0, Ordering::SeqCst)
    }
}

// Every call of these roles is a read, and counts: objects and MQL, the meta model (its
// cache), users, groups and grants. Forwarding the store's own lookups is not using them.
#[allow(clippy::disallowed_methods)]
mod counting {
    use super::*;
    lore_core::delegate_store!(Counting: ObjectStore, DefinitionStore, AccessStore => |this| {
        this.read();
        &this.inner
    });
}
// Not counted: the write path, and the records kept beside the objects, which the calls
// measured here do not read and the server's background tasks do (the operations sweep,
// the delivery sender, the system log).
lore_core::delegate_store!(Counting: StoreBase, RecordStore => |this| &this.inner);

/// A session's reads count; its writes (a login, the background touch) do not.
#[async_trait]
impl SessionStore for Counting {
    async fn principal(&self, key_hash: &str, now: Timestamp) -> Result<Option<Principal>> {
        self.read();
        self.principals.fetch_add(1, Ordering::SeqCst);
        self.inner.principal(key_hash, now).await
    }
    async fn session_check(&self, key_hash: &str, now: Timestamp) -> Result<Option<SessionCheck>> {
        self.read();
        self.inner.session_check(key_hash, now).await
    }
    async fn put_session(&self, session: Session) -> Result<()> {
        self.inner.put_session(session).await
    }
    async fn session(&self, key_hash: &str, now: Timestamp) -> Result<Option<Session>> {
        self.read();
        self.inner.session(key_hash, now).await
    }
    async fn delete_session(&self, key_hash: &str) -> Result<()> {
        self.inner.delete_session(key_hash).await
    }
    async fn delete_sessions_of(&self, user: ObjectId) -> Result<u64> {
        self.inner.delete_sessions_of(user).await
    }
    async fn purge_sessions(&self, now: Timestamp) -> Result<u64> {
        self.inner.purge_sessions(now).await
    }
    async fn touch_session(&self, key_hash: &str, now: Timestamp) -> Result<()> {
        self.inner.touch_session(key_hash, now).await
    }
    async fn login_failures(&self, subjects: &[String]) -> Result<Vec<LoginFailures>> {
        self.read();
        self.inner.login_failures(subjects).await
    }
    async fn add_login_failure(
        &self,
        subjects: &[String],
        now: Timestamp,
        restart_before: Timestamp,
    ) -> Result<()> {
        self.inner
            .add_login_failure(subjects, now, restart_before)
            .await
    }
    async fn clear_login_failures(&self, subjects: &[String]) -> Result<()> {
        self.inner.clear_login_failures(subjects).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_per_call_stay_few() {
    let store = Arc::new(Counting::default());
    let target = Target::spawn(store.clone()).await;
    let imported = target.import_sample().await;
    // A column with a defining term: the most an entity read needs.
    let path = format!("{}/Sales DB/sales/customer/email", imported.path);
    let resp = target.entity(&path).await;
    let id = resp.ok()["id"]
        .as_str()
        .expect("the column has an id")
        .to_owned();
    assert!(
        !resp.ok()["terms"].as_array().is_none_or(Vec::is_empty),
        "the column has a defining term: {}",
        resp.describe()
    );

    // Warm: the meta model is cached after the first call.
    target.get("/types/listProfiles").await;
    store.take();
    store.principals.store(0, Ordering::SeqCst);
    let resp = target.get("/types/listProfiles").await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    assert_eq!(
        store.take(),
        1,
        "an authenticated call finds its caller in one read"
    );
    assert_eq!(
        store.principals.swap(0, Ordering::SeqCst),
        0,
        "a key seen before is checked, not read whole again"
    );

    let resp = target.entity(&id).await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    let reads = store.take();
    assert!(reads <= 3, "GET /entities/{{id}} made {reads} store reads");
    target.shutdown().await;
}
