//! Login through an external identity: users linked by the provider's issuer and
//! subject, never by the name a token carries (a name claim never reaches a password
//! account or the administrator, in any case or look-alike form); links an administrator
//! makes; the verified e-mail setting; unknown identities refused or created; disabled
//! users refused; sessions like a password login; refusals throttled by address.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;

use async_trait::async_trait;
use lore_backend_memory::MemoryStore;
use lore_core::catalog::{CatalogConfig, ExternalIdentity, TokenVerifier};
use lore_core::id::{ObjectId, REPOSITORY_MODEL};
use lore_core::model::{Capability, ExternalLink, User, now};
use lore_core::store::Op;
use lore_core::{Catalog, Error, ErrorCode, Store};

const ISSUER: &str = "https://idp.example/";

/// A provider whose tokens say what they prove: `subject/name`, optionally
/// `/email/verified`; a token starting with `forged:` fails verification.
#[derive(Debug)]
struct Provider {
    creates: bool,
    by_email: bool,
}

#[async_trait]
impl TokenVerifier for Provider {
    async fn verify(&self, token: &str) -> lore_core::Result<ExternalIdentity> {
        if token.starts_with("forged:") {
            return Err(Error::authentication(
                "the token's signature does not verify",
            ));
        }
        let mut parts = token.split('/');
        let subject = parts.next().unwrap_or_default().to_owned();
        let user_name = parts.next().unwrap_or_default().to_owned();
        let email = parts.next().map(str::to_owned);
        Ok(ExternalIdentity {
            issuer: ISSUER.to_owned(),
            subject,
            user_name,
            full_name: Some("Ada Lovelace".to_owned()),
            email: email.or_else(|| Some("ada@example.org".to_owned())),
            email_verified: parts.next() == Some("verified"),
            groups: vec!["Stewards".to_owned()],
            managed_groups: vec!["Stewards".to_owned()],
        })
    }

    fn creates_users(&self) -> bool {
        self.creates
    }

    fn links_verified_email(&self) -> bool {
        self.by_email
    }
}

const CREATES: Provider = Provider {
    creates: true,
    by_email: false,
};
const REFUSES: Provider = Provider {
    creates: false,
    by_email: false,
};

async fn catalog() -> (Catalog, Arc<dyn Store>) {
    let store: Arc<dyn Store> = Arc::new(MemoryStore::new());
    let catalog = Catalog::new(Arc::clone(&store), CatalogConfig::default());
    catalog
        .identity()
        .bootstrap(Some("admin-password"))
        .await
        .unwrap();
    (catalog, store)
}

async fn add_user(
    store: &Arc<dyn Store>,
    name: &str,
    enabled: bool,
    external: Option<ExternalLink>,
) -> ObjectId {
    let id = ObjectId::repository(store.reserve_ids(REPOSITORY_MODEL, 1).await.unwrap());
    store
        .apply(
            vec![Op::PutUser(User {
                id,
                name: name.to_owned(),
                full_name: name.to_owned(),
                email: format!("{name}@example.org"),
                description: String::new(),
                password_hash: None,
                enabled,
                created_at: now(),
                external,
            })]
            .into(),
        )
        .await
        .unwrap();
    id
}

async fn administrator(catalog: &Catalog) -> lore_core::auth::Caller {
    let key = catalog
        .identity()
        .login("Administrator", "admin-password", false)
        .await
        .unwrap();
    catalog.identity().authenticate(&key).await.unwrap()
}

fn linked(subject: &str) -> Option<ExternalLink> {
    Some(ExternalLink::Subject {
        issuer: ISSUER.to_owned(),
        subject: subject.to_owned(),
    })
}

async fn login(catalog: &Catalog, provider: &Provider, token: &str) -> lore_core::Result<String> {
    catalog
        .identity()
        .login_external(provider, token, false, None)
        .await
}

async fn signed_in_as(catalog: &Catalog, provider: &Provider, token: &str) -> String {
    let key = login(catalog, provider, token).await.unwrap();
    catalog
        .identity()
        .authenticate(&key)
        .await
        .unwrap()
        .name()
        .to_owned()
}

#[track_caller]
fn assert_refused(outcome: lore_core::Result<String>, why: &str) {
    let error = outcome.expect_err("the sign-in is refused");
    assert_eq!(error.code, ErrorCode::AuthenticationError, "{error:?}");
    assert!(error.message.contains(why), "'{why}' in: {}", error.message);
}

#[tokio::test]
async fn a_name_claim_never_signs_in_as_the_administrator_or_a_password_account() {
    let (catalog, store) = catalog().await;
    let admin_key = catalog
        .identity()
        .login("Administrator", "admin-password", false)
        .await
        .unwrap();
    for name in [
        "Administrator",
        "administrator",
        "ADMINISTRATOR",
        " Administrator ",
    ] {
        for provider in [&REFUSES, &CREATES] {
            let token = format!("attacker-sub/{name}");
            // forceLogin would end the real administrator's sessions, were it them.
            let outcome = catalog
                .identity()
                .login_external(provider, &token, true, None)
                .await;
            assert_refused(
                outcome,
                if provider.creates {
                    "belongs to a Lore user"
                } else {
                    "no Lore user is linked"
                },
            );
        }
    }
    assert!(
        catalog.identity().authenticate(&admin_key).await.is_ok(),
        "the administrator's session is untouched"
    );
    let admin = store.user_by_name("Administrator").await.unwrap().unwrap();
    assert_eq!(admin.external, None, "no refused sign-in links the account");

    // A look-alike (Cyrillic 'А') is another name: a new account, without the
    // administrator's rights.
    let key = login(&catalog, &CREATES, "other-sub/\u{410}dministrator")
        .await
        .unwrap();
    let caller = catalog.identity().authenticate(&key).await.unwrap();
    assert_ne!(caller.user(), admin.id);
    assert!(!caller.has(Capability::Administer));
    assert!(!caller.has(Capability::ViewMetadata));
}

#[tokio::test]
async fn a_sign_in_finds_its_user_by_subject_whatever_name_it_carries() {
    let (catalog, store) = catalog().await;
    assert_eq!(signed_in_as(&catalog, &CREATES, "s-1/ada").await, "ada");
    let ada = store.user_by_name("ada").await.unwrap().unwrap();
    assert_eq!(
        ada.external,
        linked("s-1"),
        "created linked to its identity"
    );
    assert!(ada.password_hash.is_none(), "an OAuth user has no password");
    assert_eq!(ada.full_name, "Ada Lovelace");
    // Renamed at the provider: the same user.
    assert_eq!(
        signed_in_as(&catalog, &REFUSES, "s-1/ada.lovelace").await,
        "ada"
    );
    assert_eq!(
        signed_in_as(&catalog, &REFUSES, "s-1/Administrator").await,
        "ada"
    );
    // Another account at the provider naming itself ada, in any case: not ada.
    for name in ["ada", "ADA", "Ada"] {
        assert_refused(
            login(&catalog, &CREATES, &format!("s-2/{name}")).await,
            "belongs to a Lore user",
        );
        assert_refused(
            login(&catalog, &REFUSES, &format!("s-2/{name}")).await,
            "no Lore user is linked",
        );
    }
    // No password logs in to that account.
    assert!(catalog.identity().login("ada", "", false).await.is_err());
    assert_eq!(
        store.user_count().await.unwrap(),
        2,
        "no other user was made"
    );
}

#[tokio::test]
async fn an_account_marked_by_an_administrator_is_linked_at_its_next_sign_in_by_exact_name() {
    let (catalog, store) = catalog().await;
    let admin = administrator(&catalog).await;
    let kate = add_user(&store, "kate", true, None).await;
    // Not marked: a sign-in naming kate does not reach her.
    assert_refused(
        login(&catalog, &REFUSES, "s-k/kate").await,
        "no Lore user is linked",
    );
    catalog
        .identity()
        .link_identity(&admin, "kate", Some(ExternalLink::AtNextSignIn))
        .await
        .unwrap();
    // Names that fold to hers are not hers: another case, the Kelvin sign (U+212A,
    // whose lowercase is 'k').
    for name in ["Kate", "KATE", "\u{212A}ate"] {
        assert_refused(
            login(&catalog, &REFUSES, &format!("s-x/{name}")).await,
            "no Lore user is linked",
        );
        assert_refused(
            login(&catalog, &CREATES, &format!("s-x/{name}")).await,
            "belongs to a Lore user",
        );
    }
    assert_eq!(
        store.user(kate).await.unwrap().unwrap().external,
        Some(ExternalLink::AtNextSignIn),
        "still waiting"
    );
    assert_eq!(signed_in_as(&catalog, &REFUSES, "s-k/kate").await, "kate");
    assert_eq!(
        store.user(kate).await.unwrap().unwrap().external,
        linked("s-k")
    );
    // Linked now: the name no longer finds her.
    assert_refused(
        login(&catalog, &REFUSES, "s-other/kate").await,
        "no Lore user is linked",
    );
    assert_eq!(signed_in_as(&catalog, &REFUSES, "s-k/k").await, "kate");

    // A marked account that has a password is not linked by name.
    let mut with_password = store.user(kate).await.unwrap().unwrap();
    with_password.id = ObjectId::repository(store.reserve_ids(REPOSITORY_MODEL, 1).await.unwrap());
    with_password.name = "lee".to_owned();
    with_password.password_hash = Some("$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".to_owned());
    with_password.external = Some(ExternalLink::AtNextSignIn);
    store
        .apply(vec![Op::PutUser(with_password)].into())
        .await
        .unwrap();
    assert_refused(
        login(&catalog, &REFUSES, "s-l/lee").await,
        "no Lore user is linked",
    );
    // An administrator cannot mark a password account (the Administrator) either.
    let refused = catalog
        .identity()
        .link_identity(&admin, "Administrator", Some(ExternalLink::AtNextSignIn))
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::InvalidParameter, "{refused:?}");
}

#[tokio::test]
async fn an_administrator_links_and_unlinks_an_account_by_issuer_and_subject() {
    let (catalog, store) = catalog().await;
    let admin = administrator(&catalog).await;
    let link = |subject: &str| {
        Some(ExternalLink::Subject {
            issuer: ISSUER.to_owned(),
            subject: subject.to_owned(),
        })
    };
    let user = catalog
        .identity()
        .link_identity(&admin, "administrator", link(" adm-1 "))
        .await
        .unwrap();
    assert_eq!(user.external, linked("adm-1"), "trimmed");
    assert_eq!(
        signed_in_as(&catalog, &REFUSES, "adm-1/whatever-name").await,
        "Administrator"
    );
    let bob = add_user(&store, "bob", true, None).await;
    let taken = catalog
        .identity()
        .link_identity(&admin, "bob", link("adm-1"))
        .await
        .unwrap_err();
    assert_eq!(taken.code, ErrorCode::Conflict, "{taken:?}");
    assert_eq!(store.user(bob).await.unwrap().unwrap().external, None);
    for (issuer, subject) in [("", "s"), (ISSUER, " "), (ISSUER, "a\nb")] {
        let bad = catalog
            .identity()
            .link_identity(
                &admin,
                "bob",
                Some(ExternalLink::Subject {
                    issuer: issuer.to_owned(),
                    subject: subject.to_owned(),
                }),
            )
            .await
            .unwrap_err();
        assert!(
            matches!(
                bad.code,
                ErrorCode::InvalidParameter | ErrorCode::RequiredParameterNotSpecified
            ),
            "{bad:?}"
        );
    }
    let missing = catalog
        .identity()
        .link_identity(&admin, "nobody", link("x"))
        .await
        .unwrap_err();
    assert_eq!(missing.code, ErrorCode::ObjectNotFound);

    // Only an administrator links.
    catalog
        .identity()
        .link_identity(&admin, "bob", link("bob-1"))
        .await
        .unwrap();
    let bob_key = login(&catalog, &REFUSES, "bob-1/bob").await.unwrap();
    let bob_caller = catalog.identity().authenticate(&bob_key).await.unwrap();
    let refused = catalog
        .identity()
        .link_identity(&bob_caller, "bob", link("adm-1"))
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::PermissionDenied);

    catalog
        .identity()
        .link_identity(&admin, "Administrator", None)
        .await
        .unwrap();
    assert_refused(
        login(&catalog, &REFUSES, "adm-1/Administrator").await,
        "no Lore user is linked",
    );
}

#[tokio::test]
async fn a_verified_email_links_only_when_the_setting_asks_and_only_one_account_has_it() {
    let (catalog, store) = catalog().await;
    let carol = add_user(&store, "carol", true, None).await;
    let by_email = Provider {
        creates: false,
        by_email: true,
    };
    // Off by default; unverified; another address.
    assert_refused(
        login(&catalog, &REFUSES, "s-c/x/carol@example.org/verified").await,
        "no Lore user is linked",
    );
    assert_refused(
        login(&catalog, &by_email, "s-c/x/carol@example.org/unverified").await,
        "no Lore user is linked",
    );
    assert_refused(
        login(&catalog, &by_email, "s-c/x/caro@example.org/verified").await,
        "no Lore user is linked",
    );
    assert_eq!(
        signed_in_as(&catalog, &by_email, "s-c/x/CAROL@example.org/verified").await,
        "carol"
    );
    assert_eq!(
        store.user(carol).await.unwrap().unwrap().external,
        linked("s-c")
    );
    // Linked accounts are not linked again; two accounts with one address: neither.
    let dan = add_user(&store, "dan", true, None).await;
    let mut twin = store.user(dan).await.unwrap().unwrap();
    twin.id = ObjectId::repository(store.reserve_ids(REPOSITORY_MODEL, 1).await.unwrap());
    twin.name = "dan2".to_owned();
    store.apply(vec![Op::PutUser(twin)].into()).await.unwrap();
    assert_refused(
        login(&catalog, &by_email, "s-c2/x/carol@example.org/verified").await,
        "no Lore user is linked",
    );
    assert_refused(
        login(&catalog, &by_email, "s-d/x/dan@example.org/verified").await,
        "no Lore user is linked",
    );
    // Never an account with a password (the administrator's), nor a disabled one.
    let admin = administrator(&catalog).await;
    catalog
        .identity()
        .update_user(
            &admin,
            lore_core::catalog::UserUpdate {
                name: Some("Administrator".to_owned()),
                email: Some("root@example.org".to_owned()),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_refused(
        login(&catalog, &by_email, "s-r/x/root@example.org/verified").await,
        "no Lore user is linked",
    );
    add_user(&store, "erin", false, None).await;
    assert_refused(
        login(&catalog, &by_email, "s-e/x/erin@example.org/verified").await,
        "no Lore user is linked",
    );
}

#[tokio::test]
async fn an_overlong_subject_is_refused() {
    let (catalog, store) = catalog().await;
    let token = format!("{}/ada", "s".repeat(1025));
    assert_refused(login(&catalog, &CREATES, &token).await, "'sub' is longer");
    let token = format!("{}/ada", "s".repeat(1024));
    assert!(login(&catalog, &CREATES, &token).await.is_ok());
    assert_eq!(store.user_count().await.unwrap(), 2);
}

#[tokio::test]
async fn concurrent_first_logins_create_one_user() {
    let (catalog, store) = catalog().await;
    let logins = (0..8).map(|_| {
        let catalog = catalog.clone();
        tokio::spawn(async move {
            catalog
                .identity()
                .external_user(&CREATES, "g-1/grace")
                .await
        })
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
    add_user(&store, "mallory", false, linked("m-1")).await;
    for provider in [&REFUSES, &CREATES] {
        assert_refused(login(&catalog, provider, "m-1/mallory").await, "disabled");
    }
}

#[tokio::test]
async fn force_ends_the_other_sessions() {
    let (catalog, store) = catalog().await;
    add_user(&store, "bob", true, linked("b-1")).await;
    let first = login(&catalog, &REFUSES, "b-1/bob").await.unwrap();
    let second = login(&catalog, &REFUSES, "b-1/bob").await.unwrap();
    assert!(catalog.identity().authenticate(&first).await.is_ok());
    let forced = catalog
        .identity()
        .login_external(&REFUSES, "b-1/bob", true, None)
        .await
        .unwrap();
    assert!(catalog.identity().authenticate(&first).await.is_err());
    assert!(catalog.identity().authenticate(&second).await.is_err());
    assert!(catalog.identity().authenticate(&forced).await.is_ok());
}

#[tokio::test]
async fn an_empty_subject_or_user_name_is_refused() {
    let (catalog, store) = catalog().await;
    assert_refused(login(&catalog, &CREATES, " /ada").await, "'sub'");
    assert_refused(login(&catalog, &CREATES, "s-1/  ").await, "names no user");
    assert_eq!(store.user_count().await.unwrap(), 1);
}

#[tokio::test]
async fn a_token_that_does_not_verify_logs_no_one_in() {
    let (catalog, store) = catalog().await;
    assert_refused(
        login(&catalog, &CREATES, "forged:Administrator").await,
        "signature",
    );
    assert_eq!(store.user_count().await.unwrap(), 1);
}

#[tokio::test]
async fn refused_sign_ins_are_throttled_by_address() {
    let (catalog, store) = catalog().await;
    add_user(&store, "eve", true, linked("e-1")).await;
    let from = |address: &'static str, token: &'static str| {
        let catalog = catalog.clone();
        async move {
            catalog
                .identity()
                .login_external(&REFUSES, token, false, Some(address))
                .await
        }
    };
    for _ in 0..30 {
        assert_refused(from("10.0.0.9", "forged:x").await, "signature");
    }
    let locked = from("10.0.0.9", "e-1/eve").await.unwrap_err();
    assert_eq!(locked.code, ErrorCode::TooManyLoginAttempts, "{locked:?}");
    // The lock binds the address: eve signs in from elsewhere, and a password login
    // from the locked address is refused too (one count per address).
    assert!(from("10.0.0.10", "e-1/eve").await.is_ok());
    let password = catalog
        .identity()
        .login_from("Administrator", "admin-password", false, Some("10.0.0.9"))
        .await
        .unwrap_err();
    assert_eq!(password.code, ErrorCode::TooManyLoginAttempts);
}
