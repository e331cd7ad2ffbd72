//! MQL, the query language of the query endpoints: its syntax tree and parser, the search
//! text of `text` filters, what it knows about attributes ([`catalog`]), how a name of a
//! query finds its attribute ([`resolve`]), the checks of a parsed query against the
//! spec's rules and the meta model ([`validate`]), the upgrade of earlier versions'
//! queries ([`upgrade`]), the lowering to a store-neutral [`plan`] and its evaluation
//! over objects in memory ([`eval`]).
//!
//! Parsing only reads the syntax; resolving attribute names and checking operators
//! against them is the validator's job. The crate knows the model ([`lore_model`]) and
//! nothing else: the catalog in `lore-core` runs queries, the stores run plans.

pub mod ast;
pub mod build;
/// The spec's tables of system and data profiling attributes; they live with the model,
/// whose built-in meta model lists them.
pub use lore_model::attributes as catalog;
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
    parse_order_by, parse_query, parse_select, parse_text, parse_where,
};
pub use search::{Presence, SearchKind, SearchTerm, mentions, parse_search_text};
