//! Login through an external identity provider (OAuth 2.0 / OpenID Connect): the
//! provider has proven who the caller is; the catalog finds (or creates) the Lore user
//! of that name and opens a session for it.

use std::collections::BTreeMap;

use super::Catalog;
use crate::error::{Error, ErrorCode, Result};
use crate::id::ObjectId;
use crate::model::User;

/// Who an external login method has proven the caller to be.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
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
    /// The enabled user an external identity names. An unknown user is created (enabled,
    /// without a password, without roles) when `create` is set, and refused otherwise.
    pub async fn external_user(
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

    /// Logs in the user an external identity names (see [`Catalog::external_user`]) and
    /// opens a session like a password login; returns the API key. With `force`, the
    /// user's other sessions end.
    pub async fn login_external(
        &self,
        identity: ExternalIdentity,
        create: bool,
        force: bool,
    ) -> Result<String> {
        let user = self.external_user(&identity, create).await?;
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
