//! Lore's conformance suite.
//!
//! - [`store_contract`]: the `Store` contract, run directly against each backend.
//! - [`postgres`]: a fresh PostgreSQL database per run, dropped afterwards.

pub mod postgres;
pub mod store_contract;
