//! Saved searches: the search page's MQL saved as a worksheet (the API's worksheets), and
//! the list of the user's own, each run by opening it on the search page.

use askama::Template;
use axum::Form;
use axum::extract::State;
use axum::response::Response;
use lore_core::catalog::{NewWorksheet, WorksheetRef};
use lore_core::model::SavedQuery;
use lore_core::{Error, ObjectId};
use serde::Deserialize;

use super::page::{Chrome, PageResult, html, query_string, returned};
use super::session::Session;
use crate::AppState;

/// A saved search as the list shows it.
pub struct Saved {
    pub id: String,
    pub name: String,
    pub query: String,
    pub run: String,
}

#[derive(Template)]
#[template(path = "worksheets.html")]
struct WorksheetsPage {
    chrome: Chrome,
    saved: Vec<Saved>,
    done: Option<String>,
    failed: Option<String>,
}

/// The whole query of saved clauses, as the MQL box shows it.
fn query_text(q: &SavedQuery) -> String {
    let mut text = format!("SELECT {}", q.select);
    if let Some(from) = q.from.as_deref().filter(|f| !f.trim().is_empty()) {
        text.push_str(&format!("\nFROM {from}"));
        if let Some(scope) = q.scope.as_deref().filter(|s| !s.trim().is_empty()) {
            text.push_str(&format!(" ({scope})"));
        }
    }
    if let Some(context) = q.context.as_deref().filter(|c| !c.trim().is_empty()) {
        text.push_str(&format!("\nCONTEXT {context}"));
    }
    if let Some(filter) = q.filter.as_deref().filter(|f| !f.trim().is_empty()) {
        text.push_str(&format!("\nWHERE {filter}"));
    }
    if let Some(order) = q.order_by.as_deref().filter(|o| !o.trim().is_empty()) {
        text.push_str(&format!("\nORDER BY {order}"));
    }
    text
}

/// `GET /ui/worksheets`: the user's saved searches.
pub async fn list(State(state): State<AppState>, session: Session) -> PageResult {
    let worksheets = state
        .catalog
        .search()
        .list_worksheets(&session.caller, false)
        .await?;
    Ok(html(&WorksheetsPage {
        chrome: Chrome::new(&session, "search"),
        done: session.done(),
        failed: session.failed(),
        saved: worksheets
            .iter()
            .map(|w| {
                let query = query_text(&w.query);
                Saved {
                    id: w.id.to_string(),
                    name: w.name.clone(),
                    run: format!("/ui/?{}", query_string([("mql", query.as_str())])),
                    query,
                }
            })
            .collect(),
    }))
}

#[derive(Debug, Deserialize)]
pub struct SaveForm {
    name: String,
    mql: String,
}

/// `POST /ui/worksheets`: saves the search's MQL as a worksheet.
pub async fn save(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<SaveForm>,
) -> Response {
    let outcome = match super::query::parse_user_query(&form.mql) {
        Ok(query) => {
            let fields = query.clause_texts();
            state
                .catalog
                .search()
                .create_worksheet(
                    &session.caller,
                    NewWorksheet {
                        name: form.name.clone(),
                        description: String::new(),
                        query: SavedQuery {
                            select: fields.select,
                            from: fields.from,
                            scope: None,
                            filter: fields.filter,
                            order_by: fields.order_by,
                            context: fields.context,
                            mql_version: 3,
                        },
                    },
                )
                .await
                .map(|w| format!("saved the search '{}'", w.name))
        }
        Err(e) => Err(e),
    };
    returned("/ui/worksheets", outcome)
}

#[derive(Debug, Deserialize)]
pub struct DeleteForm {
    id: String,
}

/// `POST /ui/worksheets/delete`.
pub async fn delete(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<DeleteForm>,
) -> Response {
    let outcome = match form.id.parse::<ObjectId>() {
        Ok(id) => state
            .catalog
            .search()
            .delete_worksheet(&session.caller, &WorksheetRef::Id(id))
            .await
            .map(|()| "deleted the saved search".to_owned()),
        Err(_) => Err(Error::invalid(format!("'{}' is no worksheet id", form.id))),
    };
    returned("/ui/worksheets", outcome)
}
