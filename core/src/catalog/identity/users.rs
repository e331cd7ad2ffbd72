//! Users: creating, listing, changing, disabling and deleting them.
//!
//! Administrators (the Administer capability) manage every user. Any user may read
//! themselves and change their own full name, e-mail, description and password; a
//! password change needs the old password, except when an administrator resets another
//! user's. Disabling a user or resetting their password ends their sessions at once.
//! The last enabled administrator can be neither disabled nor deleted.

use serde::Deserialize;

use super::Identity;
use crate::auth::{Caller, hash_password, verify_password};
use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::id::{ObjectId, REPOSITORY_MODEL};
use crate::model::{Capability, User};
use crate::store::Op;

/// The shortest password Lore accepts.
pub const MIN_PASSWORD_CHARS: usize = 8;

/// A user to create.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NewUser {
    pub name: Option<String>,
    pub full_name: Option<String>,
    pub email: Option<String>,
    pub description: Option<String>,
    /// None: the user cannot log in with a password (e.g. OAuth 2.0 only).
    pub password: Option<String>,
    pub enabled: Option<bool>,
}

/// A change of a user (`PUT /admin/users`): the user by `id` or `name`; absent fields
/// stay as they are.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserUpdate {
    pub id: Option<String>,
    pub name: Option<String>,
    /// A new name (administrators only).
    pub new_name: Option<String>,
    pub full_name: Option<String>,
    pub email: Option<String>,
    pub description: Option<String>,
    pub enabled: Option<bool>,
    pub password: Option<String>,
    pub old_password: Option<String>,
}

impl Identity<'_> {
    /// Every user, sorted by name (administrators only).
    pub async fn list_users(&self, caller: &Caller) -> Result<Vec<User>> {
        caller.require(Capability::Administer)?;
        self.store.users().await
    }

    /// A user by id (`-1_<n>`) or name: administrators any, others themselves.
    pub async fn get_user(&self, caller: &Caller, reference: &str) -> Result<User> {
        let user = self.find_user(reference).await?;
        if user.id != caller.user() {
            caller.require(Capability::Administer)?;
        }
        Ok(user)
    }

    /// Creates a user (administrators only).
    pub async fn create_user(&self, caller: &Caller, new: NewUser) -> Result<User> {
        caller.require(Capability::Administer)?;
        let password_hash = match new.password.as_deref() {
            Some(p) => Some(hash_password(check_password(p)?)?),
            None => None,
        };
        self.add_user(
            caller.author(),
            User {
                id: ObjectId::repository(0),
                name: new.name.ok_or_else(|| Error::missing("name"))?,
                full_name: new.full_name.unwrap_or_default(),
                email: new.email.unwrap_or_default(),
                description: new.description.unwrap_or_default(),
                password_hash,
                enabled: new.enabled.unwrap_or(true),
                created_at: crate::model::now(),
                external: None,
            },
        )
        .await
    }
}

impl Catalog {
    /// Stores a new user under a new id (the one in `user` is ignored), after checking
    /// the name: the one way users are created, by an administrator or at a first
    /// OAuth 2.0 login. A taken name is a CONFLICT.
    pub(crate) async fn add_user(
        &self,
        author: crate::model::Author,
        mut user: User,
    ) -> Result<User> {
        user.name = check_name(Some(&user.name))?;
        user.id = ObjectId::repository(self.store.reserve_ids(REPOSITORY_MODEL, 1).await?);
        self.write(author, vec![Op::PutUser(user.clone())]).await?;
        Ok(user)
    }
}

impl Identity<'_> {
    /// Changes a user: see the module documentation for who may change what.
    pub async fn update_user(&self, caller: &Caller, update: UserUpdate) -> Result<User> {
        let reference = update
            .id
            .as_deref()
            .or(update.name.as_deref())
            .ok_or_else(|| Error::missing("id"))?;
        let mut user = self.find_user(reference).await?;
        let admin = caller.has(Capability::Administer);
        let own = user.id == caller.user();
        if !own {
            caller.require(Capability::Administer)?;
        }
        if !admin && (update.enabled.is_some() || update.new_name.is_some()) {
            return Err(Error::forbidden(
                "only an administrator may rename, enable or disable a user",
            ));
        }
        let mut end_sessions = false;
        if let Some(name) = update.new_name.as_deref() {
            user.name = check_name(Some(name))?;
        }
        if let Some(v) = update.full_name {
            user.full_name = v;
        }
        if let Some(v) = update.email {
            user.email = v;
        }
        if let Some(v) = update.description {
            user.description = v;
        }
        if let Some(password) = update.password.as_deref() {
            let password = check_password(password)?;
            if own || !admin {
                let old = update
                    .old_password
                    .as_deref()
                    .ok_or_else(|| Error::missing("oldPassword"))?;
                let matches = user
                    .password_hash
                    .as_deref()
                    .is_some_and(|hash| verify_password(old, hash));
                if !matches {
                    return Err(Error::invalid("oldPassword is not the user's password"));
                }
            } else {
                end_sessions = true;
            }
            user.password_hash = Some(hash_password(password)?);
        }
        if let Some(enabled) = update.enabled {
            end_sessions |= !enabled && user.enabled;
            user.enabled = enabled;
        }
        self.apply_keeping_an_administrator(caller.author(), vec![Op::PutUser(user.clone())])
            .await?;
        if end_sessions {
            self.store.delete_sessions_of(user.id).await?;
        }
        Ok(user)
    }

    /// Deletes a user with their sessions, grants and worksheets (administrators only;
    /// not oneself, not the last enabled administrator).
    pub async fn delete_user(&self, caller: &Caller, reference: &str) -> Result<()> {
        caller.require(Capability::Administer)?;
        let user = self.find_user(reference).await?;
        if user.id == caller.user() {
            return Err(Error::invalid("a user cannot delete themselves"));
        }
        self.apply_keeping_an_administrator(caller.author(), vec![Op::DeleteUser(user.id)])
            .await
    }
}

impl Catalog {
    /// The user of an id (`-1_<n>`) or a name, or OBJECT_NOT_FOUND.
    pub(crate) async fn find_user(&self, reference: &str) -> Result<User> {
        let by_id = match reference.parse::<ObjectId>() {
            Ok(id) if id.is_repository() => self.store.user(id).await?,
            _ => None,
        };
        let found = match by_id {
            Some(user) => Some(user),
            None => self.store.user_by_name(reference).await?,
        };
        found.ok_or_else(|| Error::not_found(format!("no user '{reference}'")))
    }
}

pub(in crate::catalog) fn check_name(name: Option<&str>) -> Result<String> {
    let name = name.ok_or_else(|| Error::missing("name"))?;
    if name.trim().is_empty() || name.trim() != name {
        return Err(Error::invalid(
            "name must not be empty or start or end with spaces",
        ));
    }
    if name.chars().count() > 255 || name.chars().any(char::is_control) {
        return Err(Error::invalid(
            "name must be at most 255 characters, without control characters",
        ));
    }
    Ok(name.to_owned())
}

fn check_password(password: &str) -> Result<&str> {
    if password.chars().count() < MIN_PASSWORD_CHARS {
        return Err(Error::invalid(format!(
            "password must have at least {MIN_PASSWORD_CHARS} characters"
        )));
    }
    Ok(password)
}
