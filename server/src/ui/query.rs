//! The UI's MQL reads: the catalog's executeMQLQuery and countMQLQuery calls (the same
//! sight as the API's), with the answers read by attribute name.

use lore_core::catalog::{MqlEntity, PageRequest, QueryResult, mql_version};
use lore_core::mql::parse::QueryFields;
use lore_core::wire::Attribute;
use lore_core::{Error, Result};
use serde_json::Value as Json;

use super::search::display;
use super::session::Session;
use crate::AppState;

/// A query without FROM or CONTEXT.
#[derive(Debug, Clone, Copy)]
pub struct Mql<'a> {
    pub select: &'a str,
    pub filter: Option<&'a str>,
    pub order_by: Option<&'a str>,
}

impl<'a> Mql<'a> {
    pub fn new(select: &'a str, filter: &'a str) -> Self {
        Self {
            select,
            filter: Some(filter),
            order_by: None,
        }
    }

    pub fn ordered(mut self, order_by: &'a str) -> Self {
        self.order_by = Some(order_by);
        self
    }

    pub fn fields(&self) -> QueryFields<'a> {
        QueryFields {
            select: self.select,
            from: None,
            scope: None,
            context: None,
            filter: self.filter,
            order_by: self.order_by,
        }
    }
}

/// One object of an answer.
#[derive(Debug)]
pub struct Row(pub MqlEntity);

/// The value of an attribute of an entity, by its display name (`Object Id`, not
/// `"Object Id"` as a SELECT may have written it).
pub fn value<'a>(attributes: &'a [Attribute], name: &str) -> Option<&'a Json> {
    attributes
        .iter()
        .find(|a| a.attribute_type.display_name == name)
        .map(|a| &a.value)
}

/// The value as text (empty when absent).
pub fn text(attributes: &[Attribute], name: &str) -> String {
    value(attributes, name).map(display).unwrap_or_default()
}

impl Row {
    /// The value of a SELECT item, by its display name.
    pub fn get(&self, name: &str) -> Option<&Json> {
        value(&self.0.attributes, name)
    }

    /// The value as text (empty when absent).
    pub fn text(&self, name: &str) -> String {
        text(&self.0.attributes, name)
    }

    /// The name of the last object of `Context` (the parent, or the glossary of a term).
    pub fn context_last(&self) -> Option<&Json> {
        self.get("Context")
            .and_then(Json::as_array)
            .and_then(|items| items.last())
    }
}

/// A page of the objects `fields` finds, in the MQL entity format.
pub async fn execute(
    state: &AppState,
    session: &Session,
    fields: &QueryFields<'_>,
    size: i64,
    page: i64,
) -> Result<Vec<Row>> {
    let found = state
        .catalog
        .execute_query(
            &session.caller,
            fields,
            mql_version(None)?,
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

/// How many objects `fields` finds.
pub async fn count(state: &AppState, session: &Session, fields: &QueryFields<'_>) -> Result<u64> {
    state
        .catalog
        .count_query(&session.caller, fields, mql_version(None)?)
        .await
}
