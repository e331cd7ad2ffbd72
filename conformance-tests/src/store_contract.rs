//! The `Store` contract, checked against any backend (being written).
