//! The objects concern ([`Objects`]): the repository's objects and what they hold. It
//! owns reading objects as entities and browsing the repository tree and folders
//! (`browse.rs`), setting attribute values (`attributes.rs`), the meta model as the
//! `/types` endpoints list it (`types.rs`) and as XML (`meta_model.rs`), importing a model
//! archive (`model_import.rs`) and exporting one (`model_io.rs`), and the documents kept
//! whole: dashboards and the license (`documents.rs`).
//!
//! Not here: finding objects with MQL (search), lineage between objects (lineage),
//! labels, classes, terms and curation (governance), running an import in the
//! background (operations), and sight (`catalog/visibility.rs`, shared by every concern).

pub(super) mod attributes;
pub(super) mod browse;
pub(super) mod documents;
pub(super) mod meta_model;
pub(super) mod model_import;
pub(super) mod model_io;
pub(super) mod types;

use crate::catalog::Catalog;

/// The objects concern of a [`Catalog`]: entities, the repository tree, attributes, the
/// meta model, model import and export, and documents. Made by [`Catalog::objects`].
#[derive(Debug, Clone, Copy)]
pub struct Objects<'c> {
    catalog: &'c Catalog,
}

impl Catalog {
    /// Objects, attributes, the meta model and model archives: see [`Objects`].
    pub fn objects(&self) -> Objects<'_> {
        Objects { catalog: self }
    }
}

/// The shared helpers of the [`Catalog`] (sight, the meta model, the store) are the
/// handle's too.
impl std::ops::Deref for Objects<'_> {
    type Target = Catalog;
    fn deref(&self) -> &Catalog {
        self.catalog
    }
}
