//! Login through an external identity provider (OAuth 2.0 / OpenID Connect): the
//! provider has proven who the caller is; the catalog finds the Lore user linked to that
//! identity (or creates one) and opens a session for it.
//!
//! The catalog takes the token, not a name: it asks a [`TokenVerifier`] what the token
//! proves, so no code can log in as a user by naming them. A user is linked to the
//! provider's account by the token's issuer and subject ([`ExternalLink::Subject`]), never
//! by the name the token carries: anyone may be able to choose their name at the
//! provider. A name claim finds an existing account only when an administrator marked it
//! to be linked at its next sign-in ([`ExternalLink::AtNextSignIn`]), it has no password
//! and the name is the same, character for character.

use std::collections::BTreeMap;

use async_trait::async_trait;

use super::Identity;
use crate::auth::Caller;
use crate::error::{Error, ErrorCode, Result};
use crate::id::ObjectId;
use crate::model::{Capability, ExternalLink, User};
use crate::store::Op;

/// The longest issuer or subject Lore links (OpenID Connect allows 255 ASCII
/// characters for a subject).
pub const MAX_IDENTITY_CHARS: usize = 1024;

/// Checks an identity provider's token (a JWT's signature, issuer, audience and times,
/// or the provider's introspection) and answers who it proves the caller to be.
#[async_trait]
pub trait TokenVerifier: Send + Sync + std::fmt::Debug {
    /// Who the token proves the caller to be, or AUTHENTICATION_ERROR.
    async fn verify(&self, token: &str) -> Result<ExternalIdentity>;
    /// Whether the first login of a user Lore does not know creates the account.
    fn creates_users(&self) -> bool;
    /// Whether a first sign-in links the one unlinked account with the token's e-mail
    /// address when the provider says it verified it (`email_verified: true`).
    fn links_verified_email(&self) -> bool {
        false
    }
}

/// Who a [`TokenVerifier`] has proven the caller to be; the catalog accepts one only
/// from [`TokenVerifier::verify`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExternalIdentity {
    /// The provider (the token's `iss`) and the caller's account there (`sub`): what
    /// the Lore user is linked by.
    pub issuer: String,
    pub subject: String,
    /// The name claim: the name of a user created at the first sign-in, and how an
    /// account marked [`ExternalLink::AtNextSignIn`] is found.
    pub user_name: String,
    pub full_name: Option<String>,
    pub email: Option<String>,
    /// The provider says it verified `email` (`email_verified: true`).
    pub email_verified: bool,
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

/// The link an administrator asks for (API, UI): by `subject` at `issuer` (the
/// configured provider when absent), or at the next sign-in; neither or both is refused.
pub fn requested_link(
    subject: Option<String>,
    issuer: Option<String>,
    at_next_sign_in: bool,
    configured_issuer: Option<&str>,
) -> Result<ExternalLink> {
    let blank = |v: Option<String>| v.filter(|s| !s.trim().is_empty());
    match (blank(subject), at_next_sign_in) {
        (Some(_), true) => Err(Error::invalid(
            "give either subject or atNextSignIn, not both",
        )),
        (None, true) => Ok(ExternalLink::AtNextSignIn),
        (None, false) => Err(Error::missing("subject")),
        (Some(subject), false) => {
            let issuer = blank(issuer)
                .or_else(|| configured_issuer.map(str::to_owned))
                .ok_or_else(|| {
                    Error::missing("issuer (no auth.oauth2.issuer is configured to default to)")
                })?;
            Ok(ExternalLink::Subject { issuer, subject })
        }
    }
}

/// The issuer or subject of a link an administrator gives, checked.
fn identity_part<'a>(value: &'a str, name: &str) -> Result<&'a str> {
    let value = value.trim();
    if value.is_empty() {
        return Err(Error::missing(name));
    }
    if value.chars().count() > MAX_IDENTITY_CHARS || value.chars().any(char::is_control) {
        return Err(Error::invalid(format!(
            "{name} must be at most {MAX_IDENTITY_CHARS} characters, without control characters"
        )));
    }
    Ok(value)
}

impl Identity<'_> {
    /// The enabled user a token proves the caller to be, once the verifier has checked
    /// it: see the module documentation. An identity linked to no user is created
    /// (enabled, without a password, without roles) when the verifier creates users,
    /// and refused otherwise.
    pub async fn external_user(
        &self,
        verifier: &dyn TokenVerifier,
        token: &str,
    ) -> Result<ObjectId> {
        let identity = verifier.verify(token).await?;
        self.user_of_identity(&identity, verifier).await
    }

    async fn user_of_identity(
        &self,
        identity: &ExternalIdentity,
        verifier: &dyn TokenVerifier,
    ) -> Result<ObjectId> {
        let (issuer, subject) = (identity.issuer.trim(), identity.subject.trim());
        if issuer.is_empty() || subject.is_empty() {
            return Err(Error::authentication(
                "the token names no issuer and subject ('iss', 'sub')",
            ));
        }
        if identity_part(subject, "sub").is_err() {
            return Err(Error::authentication(format!(
                "the token's 'sub' is longer than {MAX_IDENTITY_CHARS} characters or holds \
                 control characters"
            )));
        }
        let user = match self.store.user_by_external(issuer, subject).await? {
            Some(user) => user,
            None => self.first_sign_in(identity, verifier).await?,
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

    /// The user of an identity no user is linked to yet: an account marked to be linked
    /// at its next sign-in, or (when the verifier says so) the one account with the
    /// verified e-mail address, now linked; else a new account, or a refusal.
    async fn first_sign_in(
        &self,
        identity: &ExternalIdentity,
        verifier: &dyn TokenVerifier,
    ) -> Result<User> {
        let link = ExternalLink::Subject {
            issuer: identity.issuer.trim().to_owned(),
            subject: identity.subject.trim().to_owned(),
        };
        let name = identity.user_name.trim();
        let named = match name {
            "" => None,
            name => self.store.user_by_name(name).await?,
        };
        // Exactly the name (not another case, not a character that folds to it), and
        // only an account without a password.
        if let Some(user) = named.as_ref().filter(|u| {
            u.external == Some(ExternalLink::AtNextSignIn)
                && u.password_hash.is_none()
                && u.enabled
                && u.name == name
        }) {
            return self.linked(user.clone(), link, "its name").await;
        }
        if verifier.links_verified_email()
            && identity.email_verified
            && let Some(email) = identity.email.as_deref().map(str::trim)
            && !email.is_empty()
        {
            let email = email.to_lowercase();
            let users = self.store.users().await?;
            // Enabled accounts without a password only, as by name: a password account
            // (the administrator's) is never taken over by an address.
            let mut matching = users.iter().filter(|u| {
                !matches!(u.external, Some(ExternalLink::Subject { .. }))
                    && u.password_hash.is_none()
                    && u.enabled
                    && u.email.trim().to_lowercase() == email
            });
            if let (Some(user), None) = (matching.next(), matching.next()) {
                return self
                    .linked(user.clone(), link, "its verified e-mail address")
                    .await;
            }
        }
        if name.is_empty() {
            return Err(Error::authentication(
                "no Lore user is linked to this sign-in, and the token names no user",
            ));
        }
        if !verifier.creates_users() {
            return Err(Error::authentication(format!(
                "no Lore user is linked to this sign-in of '{name}'; ask an administrator to \
                 link an account to it (or enable auth.oauth2.create_users)"
            )));
        }
        if named.is_some() {
            return Err(Error::authentication(format!(
                "the name '{name}' belongs to a Lore user that is not linked to this sign-in; \
                 an administrator can link it"
            )));
        }
        self.create_external_user(name, identity, link).await
    }

    /// The user linked to an identity at a sign-in.
    async fn linked(&self, mut user: User, link: ExternalLink, by: &str) -> Result<User> {
        user.external = Some(link);
        let author = crate::model::Author::by(crate::model::Source::System, user.id);
        self.write(author, vec![Op::PutUser(user.clone())]).await?;
        tracing::info!(user = %user.name, "linked a user to their identity provider's account by {by}");
        Ok(user)
    }

    /// Logs in the user a token names (see [`Identity::external_user`]) and opens a
    /// session like a password login; returns the API key. With `force`, the user's
    /// other sessions end. Refused sign-ins count against the client's address as failed
    /// password logins do ([`Identity::login_from`]), and a locked address is refused
    /// before the token is read.
    pub async fn login_external(
        &self,
        verifier: &dyn TokenVerifier,
        token: &str,
        force: bool,
        address: Option<&str>,
    ) -> Result<String> {
        let user = self
            .throttled(address, self.external_user(verifier, token))
            .await?;
        self.open_session(user, force).await
    }

    async fn create_external_user(
        &self,
        name: &str,
        identity: &ExternalIdentity,
        link: ExternalLink,
    ) -> Result<User> {
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
            external: Some(link.clone()),
        };
        match self.add_user(crate::model::Author::system(), user).await {
            Ok(user) => {
                tracing::info!(user = %name, "created a user at their first OAuth 2.0 login");
                Ok(user)
            }
            // A concurrent first sign-in of the same identity created the user first:
            // use that one.
            Err(e) if e.code == ErrorCode::Conflict => {
                let Some((issuer, subject)) = link.subject() else {
                    return Err(e);
                };
                match self.store.user_by_external(issuer, subject).await? {
                    Some(user) => Ok(user),
                    None => Err(Error::authentication(format!(
                        "the name '{name}' belongs to a Lore user that is not linked to this \
                         sign-in; an administrator can link it"
                    ))),
                }
            }
            Err(e) => Err(e),
        }
    }

    /// Links a user to an identity provider's account, marks it to be linked at its next
    /// sign-in, or (`None`) unlinks it: administrators only. An identity another user is
    /// linked to is a CONFLICT; an account with a password cannot be linked by name.
    pub async fn link_identity(
        &self,
        caller: &Caller,
        reference: &str,
        link: Option<ExternalLink>,
    ) -> Result<User> {
        caller.require(Capability::Administer)?;
        let mut user = self.find_user(reference).await?;
        let link = match link {
            Some(ExternalLink::Subject { issuer, subject }) => {
                let issuer = identity_part(&issuer, "issuer")?;
                let subject = identity_part(&subject, "subject")?;
                if let Some(other) = self.store.user_by_external(issuer, subject).await?
                    && other.id != user.id
                {
                    return Err(Error::conflict(format!(
                        "user '{}' is already linked to that identity",
                        other.name
                    )));
                }
                Some(ExternalLink::Subject {
                    issuer: issuer.to_owned(),
                    subject: subject.to_owned(),
                })
            }
            Some(ExternalLink::AtNextSignIn) if user.password_hash.is_some() => {
                return Err(Error::invalid(format!(
                    "user '{}' has a password, so a sign-in naming them cannot be trusted to be \
                     theirs: link the account by issuer and subject",
                    user.name
                )));
            }
            other => other,
        };
        user.external = link;
        self.write(caller.author(), vec![Op::PutUser(user.clone())])
            .await?;
        Ok(user)
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
