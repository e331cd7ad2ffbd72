//! The domain model of the whole API: the repository tree, model objects and what hangs
//! on them, the meta model, governance and users' worksheets (saved queries). Later
//! issues add the types they need (groups, social curation, lineage operations,
//! operations, dashboards, the license).
//!
//! These are plain data types. The `Store` persists them; the `Catalog` gives them
//! meaning; the wire module maps them to the formats clients read.

mod curation;
mod document;
mod governance;
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
    crate::store::micros(chrono::Utc::now())
}
