//! The governance concern ([`Governance`]): what is said about objects beyond their
//! content. It owns data classes, sensitivity labels and data profiling with the rules
//! that hide it (`classification.rs`), the glossary, semantic links and entity
//! relationships (`semantics.rs`), and social curation and the review workflow
//! (`curation.rs`).
//!
//! Not here: roles and grants (identity), attribute values (objects), and telling
//! watchers of changes (notifications).

pub(super) mod classification;
pub(super) mod curation;
pub(super) mod semantics;

use crate::catalog::Catalog;

/// The governance concern of a [`Catalog`]: data classes, sensitivity labels,
/// profiling, the glossary and semantic links, entity relationships, curation and
/// workflow. Made by [`Catalog::governance`].
#[derive(Debug, Clone, Copy)]
pub struct Governance<'c> {
    catalog: &'c Catalog,
}

impl Catalog {
    /// Classification, semantics and curation: see [`Governance`].
    pub fn governance(&self) -> Governance<'_> {
        Governance { catalog: self }
    }
}

/// The shared helpers of the [`Catalog`] (sight, the meta model, the store) are the
/// handle's too.
impl std::ops::Deref for Governance<'_> {
    type Target = Catalog;
    fn deref(&self) -> &Catalog {
        self.catalog
    }
}
