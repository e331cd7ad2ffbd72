//! The domain model of the whole API: the repository tree, model objects and what hangs
//! on them, the meta model, governance and users' worksheets (saved queries). Later
//! issues add the types they need (groups, social curation, lineage operations,
//! operations, dashboards, the license).
//!
//! These are plain data types. The `Store` persists them; the `Catalog` gives them
//! meaning; the wire module maps them to the formats clients read. Beside them: the ids
//! ([`id`]), the error every layer answers with ([`error`]) and the spec's tables of
//! system and data profiling attributes ([`attributes`]), which the meta model lists and
//! MQL resolves names against. `lore-core` re-exports this crate as `lore_core::model`.

pub mod attributes;
pub mod error;
pub mod id;

mod curation;
mod document;
mod governance;
mod history;
mod lineage_event;
mod meta;
mod notification;
mod object;
mod operation;
mod relations;
mod system_log;
mod worksheet;

pub use curation::*;
pub use document::*;
pub use governance::*;
pub use history::*;
pub use lineage_event::*;
pub use meta::*;
pub use notification::*;
pub use object::*;
pub use operation::*;
pub use relations::*;
pub use system_log::*;
pub use worksheet::*;

/// Timestamps are UTC throughout, as MQL requires.
pub type Timestamp = chrono::DateTime<chrono::Utc>;

/// The current time at microsecond precision, the precision every backend keeps, so
/// what is written reads back equal.
pub fn now() -> Timestamp {
    micros(chrono::Utc::now())
}

/// The timestamp cut to whole microseconds, the precision every backend keeps.
pub fn micros(t: Timestamp) -> Timestamp {
    use chrono::SubsecRound;
    t.trunc_subsecs(6)
}
