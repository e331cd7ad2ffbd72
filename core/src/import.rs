//! The importer contract: built-in importers and plugins turn a source into a
//! [`ModelArchive`], which the catalog lands in one batch.

use std::collections::BTreeMap;

use crate::archive::ModelArchive;
use crate::error::Result;

/// What an importer is given.
#[derive(Debug, Clone, Default)]
pub struct ImportInput {
    /// The uploaded file, if the importer reads one.
    pub content: Vec<u8>,
    /// Importer-specific parameters, by name.
    pub parameters: BTreeMap<String, String>,
}

/// An importer of one source format. Implementations must not touch the store: they
/// return the whole model, and the catalog writes it atomically.
pub trait Importer: Send + Sync + std::fmt::Debug {
    /// The format name clients select it by, e.g. `lore-csv-zip`.
    fn format(&self) -> &str;
    /// Reads the input into a model; a clear INVALID_PARAMETER error on bad input.
    fn import(&self, input: &ImportInput) -> Result<ModelArchive>;
}
