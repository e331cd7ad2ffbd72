//! The search concern ([`Search`]): finding objects with MQL. It owns validating,
//! upgrading and explaining queries (`query.rs`), running and counting them, reading an
//! object with a SELECT list, its relationships and attribute value counts
//! (`execute.rs`), and the worksheets users save and run again (`worksheets.rs`).
//!
//! Not here: the language itself (the `lore-mql` crate: syntax, validation, plans),
//! sight, which MQL puts into every statement (`catalog/visibility.rs`, shared by every
//! concern), and reading an object by reference (objects).

mod as_of;
pub(super) mod execute;
pub(crate) mod past;
pub(super) mod query;
pub(super) mod worksheets;

use crate::catalog::{AsOf, Catalog};
use crate::error::Result;

/// The search concern of a [`Catalog`]: MQL queries, relationships, value counts and
/// worksheets. Made by [`Catalog::search`].
#[derive(Debug, Clone, Copy)]
pub struct Search<'c> {
    catalog: &'c Catalog,
    /// The moment the queries read the catalog as of (`asOf`); `None`: now.
    as_of: Option<AsOf>,
}

impl Catalog {
    /// MQL and worksheets: see [`Search`].
    pub fn search(&self) -> Search<'_> {
        Search {
            catalog: self,
            as_of: None,
        }
    }
}

impl Search<'_> {
    /// The same concern, its queries run as of a time or a version (`asOf`): the objects
    /// and what hangs on them as they were then, with today's sight.
    pub fn as_of(self, as_of: Option<AsOf>) -> Self {
        Self { as_of, ..self }
    }

    /// The kept version the queries read as of, if one was asked for; an `asOf` not kept
    /// is INVALID_PARAMETER, as for an entity.
    async fn version(&self) -> Result<Option<i64>> {
        match self.as_of {
            None => Ok(None),
            Some(as_of) => Ok(Some(self.history().revision_of(as_of).await?.version)),
        }
    }

    /// The version a plan reads as of: its FROM's (a model's version) or the `asOf`
    /// asked for; both is INVALID_PARAMETER.
    async fn moment(&self, from: Option<i64>) -> Result<Option<i64>> {
        match (from, self.version().await?) {
            (Some(_), Some(_)) => Err(crate::error::Error::invalid(
                "asOf and the version FROM names (a model's version, or a pinned configuration \
                 version) are two moments: give one of them",
            )),
            (from, asked) => Ok(from.or(asked)),
        }
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
