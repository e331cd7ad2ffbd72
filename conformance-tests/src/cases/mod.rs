//! The cases of the HTTP suite, written once and registered in [`cases`]: each is an
//! `async fn(&Target)` with the (method, OpenAPI path, kind) routes it covers.
//!
//! [`http_suite`](crate::http_suite) turns the table into one test per case and backend;
//! `tests/coverage.rs` checks that every route of the OpenAPI document has a
//! [`Kind::Normal`] and a [`Kind::BadInput`] case, and a [`Kind::Denied`] case when the
//! document says the route needs a capability (scopes of its `api_key` security).

pub use entry::{Case, CaseFn, CaseFuture, Kind, Needs};
pub use run::{case, configure_plugins, names, run_on_store, run_remote};
pub use table::cases;

mod attributes;
mod auth;
mod backup;
mod browse;
mod configuration;
mod configuration_pins;
mod curation;
mod curation_history;
mod data_mapping;
mod denied;
mod deprecated;
mod documents;
mod entities;
mod entry;
mod execute;
mod export;
mod governance;
mod grants;
mod groups;
pub(crate) mod history;
mod history_browse;
pub(crate) mod import;
mod imports;
mod lineage;
mod meta_model;
mod notifications;
mod oauth;
mod openlineage;
mod openlineage_dbt;
mod query;
mod removed;
mod repository;
mod routing;
mod run;
mod semantics;
pub mod sight;
pub mod sql_lineage;
mod system_log;
mod table;
mod types;
mod users;
mod visibility;
mod worksheets;

const N: Kind = Kind::Normal;
const B: Kind = Kind::BadInput;
const D: Kind = Kind::Denied;
