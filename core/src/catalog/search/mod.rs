//! The search concern ([`Search`]): finding objects with MQL. It owns validating,
//! upgrading and explaining queries (`query.rs`), running and counting them, reading an
//! object with a SELECT list, its relationships and attribute value counts
//! (`execute.rs`), and the worksheets users save and run again (`worksheets.rs`).
//!
//! Not here: the language itself (the `lore-mql` crate: syntax, validation, plans),
//! sight, which MQL puts into every statement (`catalog/visibility.rs`, shared by every
//! concern), and reading an object by reference (objects).

pub(super) mod execute;
pub(super) mod query;
pub(super) mod worksheets;

use crate::catalog::Catalog;

/// The search concern of a [`Catalog`]: MQL queries, relationships, value counts and
/// worksheets. Made by [`Catalog::search`].
#[derive(Debug, Clone, Copy)]
pub struct Search<'c> {
    catalog: &'c Catalog,
}

impl Catalog {
    /// MQL and worksheets: see [`Search`].
    pub fn search(&self) -> Search<'_> {
        Search { catalog: self }
    }
}

/// The shared helpers of the [`Catalog`] (sight, the meta model, the store) are the
/// handle's too.
impl std::ops::Deref for Search<'_> {
    type Target = Catalog;
    fn deref(&self) -> &Catalog {
        self.catalog
    }
}
