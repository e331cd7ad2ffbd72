//! The UI's MQL reads: queries built with [`lore_core::mql::build`] (or parsed from the
//! MQL box) and run through the catalog's executeMQLQuery and countMQLQuery calls, with
//! the same sight as the API's; answers read by typed system attribute.

use lore_core::catalog::{AsOf, MqlEntity, MqlQuery, PageRequest, QueryResult};
use lore_core::mql::Query;
use lore_core::mql::build::Attr;
use lore_core::wire::Attribute;
use lore_core::{Error, Result};
use serde_json::Value as Json;

use super::search::display;
use super::session::Session;
use crate::AppState;

/// One object of an answer.
#[derive(Debug)]
pub struct Row(pub MqlEntity);

/// The value of a system attribute of an entity (each answer attribute carries the
/// attribute's name as its display name).
pub fn value(attributes: &[Attribute], attr: Attr) -> Option<&Json> {
    attributes
        .iter()
        .find(|a| a.attribute_type.display_name == attr.name())
        .map(|a| &a.value)
}

/// The value as text (empty when absent).
pub fn text(attributes: &[Attribute], attr: Attr) -> String {
    value(attributes, attr).map(display).unwrap_or_default()
}

impl Row {
    /// The value of a SELECT item.
    pub fn get(&self, attr: Attr) -> Option<&Json> {
        value(&self.0.attributes, attr)
    }

    /// The value as text (empty when absent).
    pub fn text(&self, attr: Attr) -> String {
        text(&self.0.attributes, attr)
    }

    /// The last object of `Context` (the parent, or the glossary of a term).
    pub fn context_last(&self) -> Option<&Json> {
        self.get(Attr::CONTEXT)
            .and_then(Json::as_array)
            .and_then(|items| items.last())
    }
}

/// A page of the objects the query finds, in the MQL entity format.
pub async fn execute(
    state: &AppState,
    session: &Session,
    query: &Query,
    size: i64,
    page: i64,
) -> Result<Vec<Row>> {
    execute_at(state, session, query, size, page, None).await
}

/// [`execute`] as of a time or a version (now with `None`).
pub async fn execute_at(
    state: &AppState,
    session: &Session,
    query: &Query,
    size: i64,
    page: i64,
    as_of: Option<AsOf>,
) -> Result<Vec<Row>> {
    let found = state
        .catalog
        .search()
        .as_of(as_of)
        .execute_query(
            &session.caller,
            MqlQuery::Built(query),
            PageRequest {
                size: Some(size),
                number: Some(page),
            },
            false,
        )
        .await?;
    match found {
        QueryResult::Mql(entities) => Ok(entities.into_iter().map(Row).collect()),
        QueryResult::Legacy(_) => Err(Error::internal("the UI asked for MQL entities")),
    }
}

/// How many objects the query finds.
pub async fn count(state: &AppState, session: &Session, query: &Query) -> Result<u64> {
    count_at(state, session, query, None).await
}

/// [`count`] as of a time or a version (now with `None`).
pub async fn count_at(
    state: &AppState,
    session: &Session,
    query: &Query,
    as_of: Option<AsOf>,
) -> Result<u64> {
    state
        .catalog
        .search()
        .as_of(as_of)
        .count_query(&session.caller, MqlQuery::Built(query))
        .await
}

/// The query a user wrote in the MQL box (`SELECT ... [FROM ...] [WHERE ...]
/// [ORDER BY ...]`), parsed by MQL's own parser.
pub fn parse_user_query(text: &str) -> Result<Query> {
    lore_core::mql::parse_text(text).map_err(|e| Error::invalid(format!("invalid MQL: {e}")))
}
