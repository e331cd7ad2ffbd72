//! MQL, the query language of the query endpoints: its syntax tree and parser, the search
//! text of `text` filters, what it knows about attributes ([`catalog`]), how a name of a
//! query finds its attribute ([`resolve`]) and the checks of a parsed query against the
//! spec's rules and the meta model ([`validate`]).
//!
//! Parsing only reads the syntax; resolving attribute names and checking operators
//! against them is the validator's job.

pub mod ast;
pub mod catalog;
pub mod eval;
pub mod lower;
pub mod parse;
pub mod plan;
pub mod resolve;
pub mod search;
pub mod upgrade;
pub mod validate;

#[cfg(test)]
mod tests;

pub use ast::{
    Direction, Expr, Filter, FromClause, Name, Notation, Op, OrderKey, Path, Query, RESERVED_WORDS,
    SelectItem, SourceId, Subject, TimeUnit, Value, is_reserved,
};
pub use parse::{
    MAX_DEPTH, MAX_INPUT_CHARS, QueryFields, SyntaxError, parse_context, parse_fields, parse_from,
    parse_order_by, parse_query, parse_select, parse_where,
};
pub use search::{Presence, SearchKind, SearchTerm, parse_search_text};
