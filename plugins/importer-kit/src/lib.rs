//! What Lore's importer plugins share, in a plain library: a plugin library exports the
//! `lore_plugin_descriptor` symbol, so one plugin cannot link another (the symbols
//! clash), and each importer depends on this crate instead.
//!
//! - [`profile`]: the DataProfile and DataSample of a column, in one pass with bounded
//!   memory (the flatfile importer and the database harvester);
//! - [`lineage`]: the `lineage` relationships made of what `lore-sql-lineage` finds in
//!   SQL, their names and the rule that each is made once (the DDL importer, the
//!   harvester and the dbt importer).

pub mod lineage;
pub mod profile;
