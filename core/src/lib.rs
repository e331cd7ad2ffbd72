//! Lore's core: the domain model, the [`Store`] and [`Importer`] traits, authentication,
//! wire types and the [`Catalog`] service every front end calls.
//!
//! The core knows no HTTP and no SQL driver: the server maps requests to [`Catalog`]
//! calls, backends implement [`Store`].

pub mod archive;
pub mod auth;
pub mod backup;
pub mod catalog;
pub mod import;
pub mod openlineage;
pub mod pace;
pub mod store;
pub mod wire;
mod writer;

/// The domain model ([`lore_model`]), with its ids and errors at the paths core has always
/// had them.
pub use lore_model as model;
pub use lore_model::{error, id};
/// MQL ([`lore_mql`]): parsed, validated and planned outside core, run by the catalog and
/// the store.
pub use lore_mql as mql;

pub use catalog::{Catalog, ServerCatalog};
pub use error::{Error, ErrorCode, Result};
pub use id::{ObjectId, ObjectRef};
pub use import::Importer;
pub use store::Store;

// For `delegate_store!`, whose impls are `#[async_trait]`s in the caller's crate.
#[doc(hidden)]
pub use async_trait;
