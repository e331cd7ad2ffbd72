//! MQL, the query language: what it knows about attributes ([`catalog`]) and how a name
//! of a query finds its attribute ([`resolve`]).

pub mod catalog;
pub mod resolve;
