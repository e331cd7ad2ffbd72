use super::ModelArchive;
use crate::error::Result;

/// Writes the archive: files and rows in a canonical order, fixed timestamps, so the
/// same model always gives the same bytes.
pub fn write(_archive: &ModelArchive) -> Result<Vec<u8>> {
    Err(crate::Error::unsupported("archive writing is being written"))
}
