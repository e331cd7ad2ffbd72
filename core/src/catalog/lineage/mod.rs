//! The lineage concern ([`Lineage`]): how data flows between objects. It owns the walk
//! of an object's upstream and downstream operations (`GET /lineage/getOperations`,
//! `flow.rs`), the data mapping scripts that write and read the lineage from one model's
//! objects to another's (`data_mapping.rs`), and the OpenLineage intake with the runs it
//! keeps (`openlineage.rs`).
//!
//! Not here: the lineage a model import carries (objects), lineage read from SQL text
//! (the `lore-sql-lineage` crate, called by importers), and the store's walk of the
//! edges ([`ObjectStore::lineage`](crate::store::ObjectStore::lineage)).

pub(super) mod data_mapping;
pub(super) mod flow;
pub(super) mod openlineage;

use crate::catalog::Catalog;

/// The lineage concern of a [`Catalog`]: lineage operations, data mapping scripts and
/// OpenLineage events and runs. Made by [`Catalog::lineage`].
#[derive(Debug, Clone, Copy)]
pub struct Lineage<'c> {
    catalog: &'c Catalog,
}

impl Catalog {
    /// Lineage, data mapping and OpenLineage: see [`Lineage`].
    pub fn lineage(&self) -> Lineage<'_> {
        Lineage { catalog: self }
    }
}

/// The shared helpers of the [`Catalog`] (sight, the meta model, the store) are the
/// handle's too.
impl std::ops::Deref for Lineage<'_> {
    type Target = Catalog;
    fn deref(&self) -> &Catalog {
        self.catalog
    }
}
