//! Login, logout, sessions and the first administrator.

use super::Catalog;
use crate::auth::{
    Caller, hash_api_key, hash_password, new_api_key, new_password, verify_password,
};
use crate::error::{Error, ErrorCode, Result};
use crate::id::{ObjectId, REPOSITORY_MODEL};
use crate::model::{
    ADMINISTRATOR_ROLE, ADMINISTRATOR_USER, Capability, Grant, Role, Session, User,
};
use crate::store::{Batch, Op};

/// What start-up did to an empty store.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Bootstrap {
    /// The store already had users.
    Existing,
    /// The administrator was created with the password from the environment.
    CreatedWithGivenPassword,
    /// The administrator was created with this generated password (print it once).
    CreatedWithGeneratedPassword(String),
}

impl Catalog {
    /// Prepares a store at start-up: adds missing built-in roles and, when the store has
    /// no users, creates the `Administrator` account. Safe to run from several processes.
    pub async fn bootstrap(&self, admin_password: Option<&str>) -> Result<Bootstrap> {
        let existing = self.store.roles().await?;
        let missing: Vec<Op> = Role::builtin()
            .into_iter()
            .filter(|r| !existing.iter().any(|e| e.name == r.name))
            .map(Op::PutRole)
            .collect();
        if !missing.is_empty() {
            self.store.apply(missing.into()).await?;
        }
        if self.store.user_count().await? > 0 {
            return Ok(Bootstrap::Existing);
        }
        let (password, outcome) = match admin_password.filter(|p| !p.is_empty()) {
            Some(p) => (p.to_owned(), Bootstrap::CreatedWithGivenPassword),
            None => {
                let p = new_password();
                (p.clone(), Bootstrap::CreatedWithGeneratedPassword(p))
            }
        };
        let id = ObjectId::repository(self.store.reserve_ids(REPOSITORY_MODEL, 1).await?);
        let user = User {
            id,
            name: ADMINISTRATOR_USER.to_owned(),
            full_name: "Administrator".to_owned(),
            email: String::new(),
            description: "Created at first start".to_owned(),
            password_hash: Some(hash_password(&password)?),
            enabled: true,
            created_at: crate::model::now(),
        };
        let mut batch = Batch::new();
        batch.push(Op::PutUser(user));
        batch.push(Op::AddGrant(Grant {
            grantee: id,
            role: ADMINISTRATOR_ROLE.to_owned(),
            object: None,
        }));
        match self.store.apply(batch).await {
            Ok(()) => Ok(outcome),
            // Another process created the administrator first.
            Err(e) if e.code == ErrorCode::Conflict => Ok(Bootstrap::Existing),
            Err(e) => Err(e),
        }
    }

    /// Checks a user name and password and opens a session; returns the API key.
    /// With `force`, the user's other sessions end.
    pub async fn login(&self, user_name: &str, password: &str, force: bool) -> Result<String> {
        if user_name.is_empty() {
            return Err(Error::missing("user"));
        }
        let refused = || Error::authentication("invalid user name or password");
        let user = self
            .store
            .user_by_name(user_name)
            .await?
            .ok_or_else(refused)?;
        let hash = user.password_hash.as_deref().ok_or_else(refused)?;
        if !user.enabled || !verify_password(password, hash) {
            return Err(refused());
        }
        self.open_session(user.id, force).await
    }

    /// Opens a session for a user a login method has proven.
    pub(crate) async fn open_session(&self, user: ObjectId, force: bool) -> Result<String> {
        let now = crate::model::now();
        if force {
            self.store.delete_sessions_of(user).await?;
        }
        self.store.purge_sessions(now).await?;
        let timeout = chrono::Duration::from_std(self.config.login_timeout)
            .map_err(|_| Error::internal("the login timeout is out of range"))?;
        let key = new_api_key();
        self.store
            .put_session(Session {
                key_hash: hash_api_key(&key),
                user,
                created_at: now,
                expires_at: now + timeout,
            })
            .await?;
        Ok(key)
    }

    /// Ends the session of the key; the key fails afterwards.
    pub async fn logout(&self, key: &str) -> Result<()> {
        self.store.delete_session(&hash_api_key(key)).await
    }

    /// The caller an API key belongs to, or AUTHENTICATION_ERROR.
    pub async fn authenticate(&self, key: &str) -> Result<Caller> {
        let refused =
            || Error::authentication("the API key is invalid or has expired; log in again");
        let principal = self
            .store
            .principal(&hash_api_key(key), crate::model::now())
            .await?
            .filter(|p| p.user.enabled)
            .ok_or_else(refused)?;
        let mut capabilities: Vec<Capability> = principal
            .grants
            .iter()
            .filter(|g| g.object.is_none())
            .filter_map(|g| {
                principal
                    .roles
                    .iter()
                    .find(|r| r.name == g.role && r.global)
            })
            .flat_map(|r| r.capabilities.iter().copied())
            .collect();
        capabilities.sort();
        capabilities.dedup();
        Ok(Caller::new(
            principal.user.id,
            principal.user.name,
            capabilities,
            principal.meta_version,
        ))
    }
}
