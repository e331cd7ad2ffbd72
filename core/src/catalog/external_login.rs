//! Login through an external identity provider (OAuth 2.0 / OpenID Connect): the
//! provider has proven who the caller is; the catalog finds (or creates) the Lore user
//! of that name and opens a session for it.
//!
//! The catalog takes the token, not a name: it asks a [`TokenVerifier`] what the token
//! proves, so no code can log in as a user by naming them.

use std::collections::BTreeMap;

use async_trait::async_trait;

use super::Catalog;
use crate::error::{Error, ErrorCode, Result};
use crate::id::ObjectId;
use crate::model::User;

/// Checks an identity provider's token (a JWT's signature, issuer, audience and times,
/// or the provider's introspection) and answers who it proves the caller to be.
#[async_trait]
pub trait TokenVerifier: Send + Sync + std::fmt::Debug {
    /// Who the token proves the caller to be, or AUTHENTICATION_ERROR.
    async fn verify(&self, token: &str) -> Result<ExternalIdentity>;
    /// Whether the first login of a user Lore does not know creates the account.
    fn creates_users(&self) -> bool;
}

/// Who a [`TokenVerifier`] has proven the caller to be; the catalog accepts one only
/// from [`TokenVerifier::verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalIdentity {
    /// The Lore user name (matched case-insensitively).
    pub user_name: String,
    pub full_name: Option<String>,
    pub email: Option<String>,
    /// Lore group names the provider's group claim maps to, sorted, each once.
    pub groups: Vec<String>,
    /// Every Lore group name the provider manages (the targets of the mapping): the
    /// user's memberships of these follow `groups` at each login; others stay.
    pub managed_groups: Vec<String>,
}

/// The Lore group names that provider group values map to: values without a mapping are
/// ignored; the result is sorted, each name once.
pub fn map_groups<'a>(
    values: impl IntoIterator<Item = &'a str>,
    mapping: &BTreeMap<String, String>,
) -> Vec<String> {
    let mut groups: Vec<String> = values
        .into_iter()
        .filter_map(|value| mapping.get(value).cloned())
        .collect();
    groups.sort();
    groups.dedup();
    groups
}

impl Catalog {
    /// The enabled user a token names, once the verifier has checked it. An unknown user
    /// is created (enabled, without a password, without roles) when the verifier
    /// creates users, and refused otherwise.
    pub async fn external_user(
        &self,
        verifier: &dyn TokenVerifier,
        token: &str,
    ) -> Result<ObjectId> {
        let identity = verifier.verify(token).await?;
        self.user_of_identity(&identity, verifier.creates_users())
            .await
    }

    async fn user_of_identity(
        &self,
        identity: &ExternalIdentity,
        create: bool,
    ) -> Result<ObjectId> {
        let name = identity.user_name.trim();
        if name.is_empty() {
            return Err(Error::authentication("the token names no user"));
        }
        let user = match self.store.user_by_name(name).await? {
            Some(user) => user,
            None if create => self.create_external_user(name, identity).await?,
            None => {
                return Err(Error::authentication(format!(
                    "user '{name}' is not known to Lore; ask an administrator to create the \
                     account (or enable auth.oauth2.create_users)"
                )));
            }
        };
        if !user.enabled {
            return Err(Error::authentication(format!(
                "user '{}' is disabled",
                user.name
            )));
        }
        self.sync_groups(user.id, &identity.groups, &identity.managed_groups)
            .await?;
        Ok(user.id)
    }

    /// Logs in the user a token names (see [`Catalog::external_user`]) and opens a
    /// session like a password login; returns the API key. With `force`, the user's
    /// other sessions end.
    pub async fn login_external(
        &self,
        verifier: &dyn TokenVerifier,
        token: &str,
        force: bool,
    ) -> Result<String> {
        let user = self.external_user(verifier, token).await?;
        self.open_session(user, force).await
    }

    async fn create_external_user(&self, name: &str, identity: &ExternalIdentity) -> Result<User> {
        let user = User {
            id: ObjectId::repository(0),
            name: name.to_owned(),
            full_name: identity
                .full_name
                .clone()
                .filter(|n| !n.trim().is_empty())
                .unwrap_or_else(|| name.to_owned()),
            email: identity.email.clone().unwrap_or_default(),
            description: "Created at first OAuth 2.0 login".to_owned(),
            password_hash: None,
            enabled: true,
            created_at: crate::model::now(),
        };
        match self.add_user(user).await {
            Ok(user) => {
                tracing::info!(user = %name, "created a user at their first OAuth 2.0 login");
                Ok(user)
            }
            // A concurrent first login created the user first: use that one.
            Err(e) if e.code == ErrorCode::Conflict => {
                self.store.user_by_name(name).await?.ok_or(e)
            }
            Err(e) => Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_map_through_the_table_and_unmapped_values_are_ignored() {
        let mapping: BTreeMap<String, String> = [
            ("lore-admins", "Administrators"),
            ("Data Stewards", "Stewards"),
            ("stewards-eu", "Stewards"),
        ]
        .into_iter()
        .map(|(k, v)| (k.to_owned(), v.to_owned()))
        .collect();
        assert_eq!(
            map_groups(
                ["stewards-eu", "unmapped", "lore-admins", "Data Stewards"],
                &mapping
            ),
            vec!["Administrators".to_owned(), "Stewards".to_owned()]
        );
        // Claim values match exactly: case matters.
        assert!(map_groups(["LORE-ADMINS"], &mapping).is_empty());
        assert!(map_groups([], &mapping).is_empty());
    }
}
