//! The importer contract: built-in importers and plugins turn a source into a
//! [`ModelArchive`], which the catalog lands in one batch.

use std::collections::BTreeMap;

use crate::archive::{self, ArchiveLimits, ModelArchive};
use crate::error::Result;

/// What an importer is given.
#[derive(Debug, Clone, Default)]
pub struct ImportInput<'a> {
    /// The uploaded file, if the importer reads one.
    pub content: &'a [u8],
    /// Importer-specific parameters, by name.
    pub parameters: BTreeMap<String, String>,
}

/// An importer of one source format. Implementations must not touch the store: they
/// return the whole model, and the catalog writes it atomically.
pub trait Importer: Send + Sync + std::fmt::Debug {
    /// The format name clients select it by, e.g. `lore-csv-zip`.
    fn format(&self) -> &str;
    /// Reads the input into a model; a clear INVALID_PARAMETER error on bad input.
    fn import(&self, input: &ImportInput<'_>) -> Result<ModelArchive>;
}

/// The built-in importer of Lore's own format: a zip of CSV files (docs/model-archive.md).
#[derive(Debug, Clone, Default)]
pub struct ZipCsvImporter {
    pub limits: ArchiveLimits,
}

impl Importer for ZipCsvImporter {
    fn format(&self) -> &str {
        "lore-csv-zip"
    }

    fn import(&self, input: &ImportInput<'_>) -> Result<ModelArchive> {
        archive::read(input.content, &self.limits)
    }
}
