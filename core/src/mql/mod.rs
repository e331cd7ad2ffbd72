//! MQL, the query language: what it knows about attributes ([`catalog`]).

pub mod catalog;
