//! The domain model of the whole API: the repository tree, model objects and what hangs
//! on them, the meta model, governance, lineage and operations.
//!
//! These are plain data types. The `Store` persists them; the `Catalog` gives them
//! meaning; the wire module maps them to the formats clients read.

mod governance;
mod meta;
mod object;
mod operations;
mod relations;

pub use governance::*;
pub use meta::*;
pub use object::*;
pub use operations::*;
pub use relations::*;

/// Timestamps are UTC throughout, as MQL requires.
pub type Timestamp = chrono::DateTime<chrono::Utc>;

/// The current time at millisecond precision, the precision every backend keeps, so
/// what is written reads back equal.
pub fn now() -> Timestamp {
    let t = chrono::Utc::now();
    chrono::DateTime::from_timestamp_millis(t.timestamp_millis()).unwrap_or(t)
}
