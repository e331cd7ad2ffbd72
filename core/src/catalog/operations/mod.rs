//! The operations concern ([`Operations`]): the work the server does for a caller
//! beyond one request, and its records. It owns a model's import settings, attachments,
//! and imports run in the background with their progress and log (`imports.rs`),
//! backup and restore of the whole repository (`backup.rs`), and reading the system log
//! (`system_log.rs`).
//!
//! Not here: what an import writes (objects, `model_import.rs`), and what only the
//! server does: writing and purging the system log and failing interrupted operations
//! ([`ServerCatalog`](crate::catalog::ServerCatalog)).

pub(super) mod backup;
pub(super) mod imports;
pub(super) mod system_log;

use crate::catalog::Catalog;

/// The operations concern of a [`Catalog`]: import settings, attachments, background
/// imports and their logs, backup and restore, and the system log. Made by
/// [`Operations::operations`].
#[derive(Debug, Clone, Copy)]
pub struct Operations<'c> {
    catalog: &'c Catalog,
}

impl Catalog {
    /// Imports, attachments, backup and the system log: see [`Operations`].
    pub fn operations(&self) -> Operations<'_> {
        Operations { catalog: self }
    }
}

/// The shared helpers of the [`Catalog`] (sight, the meta model, the store) are the
/// handle's too.
impl std::ops::Deref for Operations<'_> {
    type Target = Catalog;
    fn deref(&self) -> &Catalog {
        self.catalog
    }
}
