//! Authentication: password hashes, API keys, the authenticated caller, and the trait
//! further login methods (OAuth 2.0) implement.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, PoisonError};

use argon2::Argon2;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use async_trait::async_trait;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use rand::RngCore;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::id::ObjectId;
use crate::model::Capability;

/// Hashes a password with argon2id and a random salt into a PHC string.
pub fn hash_password(password: &str) -> Result<String> {
    let mut salt = [0u8; 16];
    rand::rng().fill_bytes(&mut salt);
    let salt = SaltString::encode_b64(&salt)
        .map_err(|e| Error::internal(format!("cannot encode salt: {e}")))?;
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| Error::internal(format!("cannot hash password: {e}")))
}

/// Checks a password against a PHC string; a malformed hash never verifies.
pub fn verify_password(password: &str, hash: &str) -> bool {
    PasswordHash::new(hash)
        .map(|parsed| {
            Argon2::default()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
        .unwrap_or(false)
}

/// Checks a password against the hash of the account a login names, or, when there is
/// none (no such user, a disabled one, one without a password), against a hash of no
/// account, so a refusal takes as long either way and timing does not tell which user
/// names exist.
pub fn verify_login_password(password: &str, hash: Option<&str>) -> bool {
    static NO_ACCOUNT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    match hash {
        Some(hash) => verify_password(password, hash),
        None => {
            let decoy =
                NO_ACCOUNT.get_or_init(|| hash_password("lore: no account").unwrap_or_default());
            let _ = verify_password(password, decoy);
            false
        }
    }
}

/// A new API key: 32 random bytes, URL-safe Base64.
pub fn new_api_key() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// A new random password for the first administrator: 20 URL-safe characters.
pub fn new_password() -> String {
    let mut bytes = [0u8; 15];
    rand::rng().fill_bytes(&mut bytes);
    URL_SAFE_NO_PAD.encode(bytes)
}

/// What the store keeps of an API key: its SHA-256, hex encoded.
pub fn hash_api_key(key: &str) -> String {
    let digest = Sha256::digest(key.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

/// The authenticated user of a call, with the global capabilities of their roles
/// (their own and their groups'). Only [`Identity::authenticate`](crate::catalog::Identity::authenticate)
/// (and, for the command line, [`Catalog::command_line_operator`](crate::Catalog::command_line_operator))
/// makes one, so holding a `Caller` proves a valid API key (or direct access to the store).
///
/// A `Caller` is the viewer of one request: every catalog call of the request takes it,
/// and what the caller may see (their sight and where their data is hidden, worked out
/// from their object grants and the repository's tree) is worked out by the first call
/// that needs it and kept on it for the others ([`Seen`]). Its clones are the same
/// request's caller and share that; the caller of each new request
/// ([`Identity::authenticate`](crate::catalog::Identity::authenticate)) starts afresh.
#[derive(Debug, Clone)]
pub struct Caller {
    user: ObjectId,
    name: String,
    capabilities: Vec<Capability>,
    /// The objects the caller holds object roles on (directly or through a group), each
    /// once, with the capabilities of those roles there.
    object_grants: Vec<(ObjectId, Vec<Capability>)>,
    /// The store's meta model version when the key was checked, read with it.
    meta_version: i64,
    /// What the catalog worked out of what this caller sees, for this request.
    seen: Arc<Seen>,
}

impl PartialEq for Caller {
    fn eq(&self, other: &Self) -> bool {
        (
            self.user,
            &self.name,
            &self.capabilities,
            &self.object_grants,
            self.meta_version,
        ) == (
            other.user,
            &other.name,
            &other.capabilities,
            &other.object_grants,
            other.meta_version,
        )
    }
}

impl Eq for Caller {}

/// The objects a caller holds a capability on through object roles: the granted
/// repository objects and their subtrees, and the model numbers of the models among them.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Granted {
    pub(crate) repository: BTreeSet<ObjectId>,
    pub(crate) models: BTreeSet<i64>,
}

/// What one request's caller holds each capability on ([`Granted`]), with the repository
/// version it was worked out at: kept while that version is the repository's (a write in
/// the same request, or in another process, moves it).
#[derive(Debug, Default)]
pub(crate) struct Seen(Mutex<Vec<(Capability, i64, Arc<Granted>)>>);

impl Seen {
    pub(crate) fn get(&self, capability: Capability, version: i64) -> Option<Arc<Granted>> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .find(|(c, v, _)| *c == capability && *v == version)
            .map(|(_, _, granted)| Arc::clone(granted))
    }

    pub(crate) fn keep(&self, capability: Capability, version: i64, granted: Arc<Granted>) {
        let mut seen = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        seen.retain(|(c, _, _)| *c != capability);
        seen.push((capability, version, granted));
    }
}

impl Caller {
    /// A caller for a user whose key the catalog has just checked.
    pub(crate) fn new(
        user: ObjectId,
        name: String,
        capabilities: Vec<Capability>,
        object_grants: Vec<(ObjectId, Vec<Capability>)>,
        meta_version: i64,
    ) -> Self {
        Self {
            user,
            name,
            capabilities,
            object_grants,
            meta_version,
            seen: Arc::default(),
        }
    }

    /// What the catalog worked out of what this caller sees, for this request.
    pub(crate) fn seen(&self) -> &Seen {
        &self.seen
    }

    /// The objects the caller holds object roles on, with those roles' capabilities.
    pub(crate) fn object_grants(&self) -> &[(ObjectId, Vec<Capability>)] {
        &self.object_grants
    }

    /// The meta model version read with the caller's key.
    pub(crate) fn meta_version(&self) -> i64 {
        self.meta_version
    }

    /// The same caller for a new request, its key checked again at another meta model
    /// version: nothing of what an earlier request worked out is kept.
    pub(crate) fn at_meta_version(mut self, meta_version: i64) -> Self {
        self.meta_version = meta_version;
        self.seen = Arc::default();
        self
    }

    /// The id of the user.
    pub fn user(&self) -> ObjectId {
        self.user
    }

    /// The caller as the author of a write of their own ([`Author::user`]).
    pub fn author(&self) -> crate::model::Author {
        crate::model::Author::user(self.user)
    }

    /// The user name, for logs and messages.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Whether the caller holds the capability globally.
    pub fn has(&self, capability: Capability) -> bool {
        self.capabilities.contains(&capability)
    }

    /// Fails with PERMISSION_DENIED unless the caller holds the capability globally.
    pub fn require(&self, capability: Capability) -> Result<()> {
        if self.has(capability) {
            Ok(())
        } else {
            Err(Error::forbidden(format!(
                "user '{}' lacks the global capability {capability:?} this call needs",
                self.name
            )))
        }
    }
}

/// Credentials a login method receives.
#[derive(Debug, Clone)]
pub enum Credentials {
    Password {
        user: String,
        password: String,
    },
    /// An OAuth 2.0 access token.
    BearerToken(String),
}

/// A login method: turns credentials into the id of an existing, enabled user.
/// Password login is built in; OAuth 2.0 and others implement this trait.
#[async_trait]
pub trait Authenticator: Send + Sync + std::fmt::Debug {
    /// A short name for logs, e.g. `password` or `oauth2`.
    fn name(&self) -> &'static str;
    /// The user the credentials prove, or AUTHENTICATION_ERROR.
    async fn authenticate(&self, credentials: &Credentials) -> Result<ObjectId>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_a_caller_sees_is_kept_for_its_request_at_one_version() {
        let caller = Caller::new(
            ObjectId::repository(7),
            "keeper".into(),
            Vec::new(),
            vec![(ObjectId::repository(9), vec![Capability::ViewMetadata])],
            1,
        );
        let granted = Arc::new(Granted {
            repository: BTreeSet::from([ObjectId::repository(9)]),
            models: BTreeSet::new(),
        });
        assert!(caller.seen().get(Capability::ViewMetadata, 3).is_none());
        caller
            .seen()
            .keep(Capability::ViewMetadata, 3, Arc::clone(&granted));
        let same_request = caller.clone();
        assert!(
            same_request
                .seen()
                .get(Capability::ViewMetadata, 3)
                .is_some_and(|g| Arc::ptr_eq(&g, &granted))
        );
        assert!(
            caller.seen().get(Capability::ViewMetadata, 4).is_none(),
            "the repository moved: worked out again"
        );
        assert!(caller.seen().get(Capability::ViewData, 3).is_none());
        let next_request = caller.clone().at_meta_version(2);
        assert!(
            next_request
                .seen()
                .get(Capability::ViewMetadata, 3)
                .is_none(),
            "a new request starts afresh"
        );
        assert_eq!(next_request, caller.at_meta_version(2));
    }

    #[test]
    fn passwords_verify_only_against_their_hash() {
        let hash = hash_password("s3cret").unwrap();
        assert!(hash.starts_with("$argon2id$"));
        assert!(verify_password("s3cret", &hash));
        assert!(!verify_password("other", &hash));
        assert!(!verify_password("s3cret", "not a hash"));
    }

    #[test]
    fn a_login_without_an_account_verifies_a_decoy_and_fails() {
        let hash = hash_password("s3cret").unwrap();
        assert!(verify_login_password("s3cret", Some(&hash)));
        assert!(!verify_login_password("other", Some(&hash)));
        // The decoy is a real argon2id hash of no account's password.
        assert!(!verify_login_password("lore: no account", None));
        assert!(!verify_login_password("", None));
    }

    #[test]
    fn api_keys_are_random_and_hashed() {
        let (a, b) = (new_api_key(), new_api_key());
        assert_ne!(a, b);
        assert_eq!(hash_api_key(&a).len(), 64);
        assert_eq!(hash_api_key(&a), hash_api_key(&a));
    }
}
