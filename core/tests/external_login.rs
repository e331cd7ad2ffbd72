//! Login through an external identity: existing users by name (case-insensitively),
//! unknown users refused or created, disabled users refused, sessions like a password
//! login.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use async_trait::async_trait;
use lore_backend_memory::MemoryStore;
use lore_core::catalog::{CatalogConfig, ExternalIdentity, TokenVerifier};
use lore_core::id::{ObjectId, REPOSITORY_MODEL};
use lore_core::model::{User, now};
use lore_core::store::Op;
use lore_core::{Catalog, Error, ErrorCode, Store};

/// A provider whose tokens are the user names they prove; `creates` is its
/// `create_users` setting. A token starting with `forged:` fails verification.
#[derive(Debug)]
struct Provider {
    creates: bool,
}

#[async_trait]
impl TokenVerifier for Provider {
    async fn verify(&self, token: &str) -> lore_core::Result<ExternalIdentity> {
        if token.starts_with("forged:") {
            return Err(Error::authentication(
                "the token's signature does not verify",
            ));
        }
        Ok(ExternalIdentity {
            user_name: token.to_owned(),
            full_name: Some("Ada Lovelace".to_owned()),
            email: Some("ada@example.org".to_owned()),
            groups: vec!["Stewards".to_owned()],
            managed_groups: vec!["Stewards".to_owned()],
        })
    }

    fn creates_users(&self) -> bool {
        self.creates
    }
}

const CREATES: Provider = Provider { creates: true };
const REFUSES: Provider = Provider { creates: false };

async fn catalog() -> (Catalog, Arc<dyn Store>) {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let catalog = Catalog::new(Arc::clone(&store), CatalogConfig::default());
    catalog.bootstrap(Some("admin-password")).await.unwrap();
    (catalog, store)
}

async fn add_user(store: &Arc<dyn Store>, name: &str, enabled: bool) -> ObjectId {
    let id = ObjectId::repository(store.reserve_ids(REPOSITORY_MODEL, 1).await.unwrap());
    store
        .apply(
            vec![Op::PutUser(User {
                id,
                name: name.to_owned(),
                full_name: name.to_owned(),
                email: String::new(),
                description: String::new(),
                password_hash: None,
                enabled,
                created_at: now(),
            })]
            .into(),
        )
        .await
        .unwrap();
    id
}

#[tokio::test]
async fn an_existing_user_logs_in_by_name_case_insensitively() {
    let (catalog, _store) = catalog().await;
    let key = catalog
        .login_external(&REFUSES, "administrator", false)
        .await
        .unwrap();
    let caller = catalog.authenticate(&key).await.unwrap();
    assert_eq!(caller.name(), "Administrator");
}

#[tokio::test]
async fn an_unknown_user_is_refused_unless_creation_is_allowed() {
    let (catalog, store) = catalog().await;
    let refused = catalog
        .login_external(&REFUSES, "ada", false)
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::AuthenticationError);
    assert!(
        refused.message.contains("'ada' is not known"),
        "{}",
        refused.message
    );
    assert!(store.user_by_name("ada").await.unwrap().is_none());

    let key = catalog
        .login_external(&CREATES, "ada", false)
        .await
        .unwrap();
    let caller = catalog.authenticate(&key).await.unwrap();
    assert_eq!(caller.name(), "ada");
    let user = store.user_by_name("ADA").await.unwrap().unwrap();
    assert!(user.enabled);
    assert!(
        user.password_hash.is_none(),
        "an OAuth user has no password"
    );
    assert_eq!(user.full_name, "Ada Lovelace");
    assert_eq!(user.email, "ada@example.org");
    // The second login finds the same user.
    let again = catalog
        .login_external(&CREATES, "Ada", false)
        .await
        .unwrap();
    assert_eq!(catalog.authenticate(&again).await.unwrap().user(), user.id);
    // No password logs in to that account.
    assert!(catalog.login("ada", "", false).await.is_err());
}

#[tokio::test]
async fn concurrent_first_logins_create_one_user() {
    let (catalog, store) = catalog().await;
    let logins = (0..8).map(|_| {
        let catalog = catalog.clone();
        tokio::spawn(async move { catalog.external_user(&CREATES, "grace").await })
    });
    let mut ids = Vec::new();
    for login in logins {
        ids.push(login.await.unwrap().unwrap());
    }
    ids.dedup();
    assert_eq!(ids.len(), 1, "every login names the same user: {ids:?}");
    assert_eq!(
        store.user_by_name("grace").await.unwrap().unwrap().id,
        ids[0]
    );
}

#[tokio::test]
async fn a_disabled_user_is_refused() {
    let (catalog, store) = catalog().await;
    add_user(&store, "mallory", false).await;
    for create in [false, true] {
        let refused = catalog
            .login_external(&Provider { creates: create }, "Mallory", false)
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::AuthenticationError);
        assert!(refused.message.contains("disabled"), "{}", refused.message);
    }
}

#[tokio::test]
async fn force_ends_the_other_sessions() {
    let (catalog, store) = catalog().await;
    add_user(&store, "bob", true).await;
    let first = catalog
        .login_external(&REFUSES, "bob", false)
        .await
        .unwrap();
    let second = catalog
        .login_external(&REFUSES, "bob", false)
        .await
        .unwrap();
    assert!(catalog.authenticate(&first).await.is_ok());
    let forced = catalog.login_external(&REFUSES, "bob", true).await.unwrap();
    assert!(catalog.authenticate(&first).await.is_err());
    assert!(catalog.authenticate(&second).await.is_err());
    assert!(catalog.authenticate(&forced).await.is_ok());
}

#[tokio::test]
async fn an_empty_user_name_is_refused() {
    let (catalog, _store) = catalog().await;
    let refused = catalog
        .login_external(&CREATES, "  ", false)
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::AuthenticationError);
}

#[tokio::test]
async fn a_token_that_does_not_verify_logs_no_one_in() {
    let (catalog, store) = catalog().await;
    let refused = catalog
        .login_external(&CREATES, "forged:Administrator", false)
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::AuthenticationError);
    assert!(
        store
            .user_by_name("forged:Administrator")
            .await
            .unwrap()
            .is_none()
    );
}
