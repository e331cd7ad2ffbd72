//! The identity concern ([`Identity`]): who a caller is and what they may do. It owns
//! the way in (the first administrator, login by password or through an external
//! identity provider, sessions and logout: `auth.rs`, `external_login.rs`), users
//! (`users.rs`), groups (`groups.rs`), roles and grants with their CSV import and export
//! (`grants.rs`), and the rule that the server always keeps an administrator
//! (`administrators.rs`).
//!
//! Not here: what a caller's grants let them see (`catalog/visibility.rs`, shared by
//! every concern) and the command line's operator
//! ([`ServerCatalog`](crate::catalog::ServerCatalog)).

pub(super) mod administrators;
pub(super) mod auth;
pub(super) mod external_login;
pub(super) mod grants;
pub(super) mod groups;
pub(super) mod users;

use crate::catalog::Catalog;

/// The identity concern of a [`Catalog`]: login, sessions, users, groups, roles and
/// grants. Made by [`Catalog::identity`].
#[derive(Debug, Clone, Copy)]
pub struct Identity<'c> {
    catalog: &'c Catalog,
}

impl Catalog {
    /// Login, users, groups, roles and grants: see [`Identity`].
    pub fn identity(&self) -> Identity<'_> {
        Identity { catalog: self }
    }
}

/// The shared helpers of the [`Catalog`] (sight, the meta model, the store) are the
/// handle's too.
impl std::ops::Deref for Identity<'_> {
    type Target = Catalog;
    fn deref(&self) -> &Catalog {
        self.catalog
    }
}
