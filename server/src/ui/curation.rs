//! Curation from the object page: the description (Markdown, with a preview), glossary
//! terms (with type-ahead), endorse, certify, watch, warnings and comments, workflow
//! steps, and sensitivity labels proposed, approved or rejected. Every action is the
//! catalog call the API makes, so it is checked and recorded alike; each form posts, and
//! the browser returns to the page it came from with what happened.

use askama::Template;
use axum::Form;
use axum::extract::{Path, RawQuery, State};
use axum::response::{Html, IntoResponse, Response};
use lore_core::catalog::AttributeSetting;
use lore_core::model::ClassificationStatus;
use lore_core::mql::Query;
use lore_core::mql::build::{Attr, all, search_text};
use lore_core::{Error, ObjectRef};
use serde::Deserialize;
use serde_json::Value as Json;

use super::object::markdown;
use super::page::{Chrome, PageResult, html, returned, url_encode};
use super::query;
use super::search::display;
use super::session::Session;
use crate::AppState;

/// Where the browser goes back to: a page of this object, else its overview.
fn back_to(id: &str, back: Option<&str>) -> String {
    let page = format!("/ui/objects/{}", url_encode(id));
    match back {
        Some(b) => {
            let b = b.split(['?', '#']).next().unwrap_or_default();
            if b == page || (b.starts_with(&format!("{page}/")) && !b.contains("//")) {
                b.to_owned()
            } else {
                page
            }
        }
        None => page,
    }
}

#[derive(Debug, Deserialize)]
pub struct CurationForm {
    /// `add` or `remove`.
    op: String,
    /// endorsement, certification, watch, comment, warning.
    kind: String,
    text: Option<String>,
    entry: Option<i64>,
    back: Option<String>,
}

/// `POST /ui/objects/{id}/curation`.
pub async fn curate(
    State(state): State<AppState>,
    session: Session,
    Path(id): Path<String>,
    Form(form): Form<CurationForm>,
) -> Response {
    let to = back_to(&id, form.back.as_deref());
    let outcome = match form.op.as_str() {
        "add" => state
            .catalog
            .governance()
            .add_curation(&session.caller, &id, &form.kind, form.text.as_deref())
            .await
            .map(|_| format!("{} added", form.kind)),
        "remove" => state
            .catalog
            .governance()
            .remove_curation(
                &session.caller,
                &id,
                form.entry.is_none().then_some(form.kind.as_str()),
                form.entry,
            )
            .await
            .map(|_| format!("{} removed", form.kind)),
        other => Err(Error::invalid(format!("'{other}' is not add or remove"))),
    };
    returned(&to, outcome)
}

#[derive(Debug, Deserialize)]
pub struct WorkflowForm {
    action: String,
    back: Option<String>,
}

/// `POST /ui/objects/{id}/workflow`: a workflow step.
pub async fn workflow(
    State(state): State<AppState>,
    session: Session,
    Path(id): Path<String>,
    Form(form): Form<WorkflowForm>,
) -> Response {
    let to = back_to(&id, form.back.as_deref());
    let outcome = state
        .catalog
        .governance()
        .workflow_transition(&session.caller, &id, &form.action)
        .await
        .map(|c| format!("{}: now {}", form.action, c.workflow_state));
    returned(&to, outcome)
}

#[derive(Debug, Deserialize)]
pub struct LabelForm {
    label: String,
    /// PROPOSED, APPROVED or REJECTED.
    status: String,
    back: Option<String>,
}

/// `POST /ui/objects/{id}/labels`: proposes, approves or rejects a sensitivity label.
pub async fn label(
    state: State<AppState>,
    session: Session,
    id: Path<String>,
    form: Form<LabelForm>,
) -> Response {
    review(state, session, id, form, Reviewed::SensitivityLabel).await
}

/// `POST /ui/objects/{id}/classes`: proposes, approves or rejects a data class on the
/// object (the same rules as sensitivity labels).
pub async fn data_class(
    state: State<AppState>,
    session: Session,
    id: Path<String>,
    form: Form<LabelForm>,
) -> Response {
    review(state, session, id, form, Reviewed::DataClass).await
}

/// What a review form sets the status of.
#[derive(Debug, Clone, Copy)]
enum Reviewed {
    SensitivityLabel,
    DataClass,
}

async fn review(
    State(state): State<AppState>,
    session: Session,
    Path(id): Path<String>,
    Form(form): Form<LabelForm>,
    what: Reviewed,
) -> Response {
    let to = back_to(&id, form.back.as_deref());
    let outcome = match (review_status(&form.status), ObjectRef::parse(&id)) {
        (Ok(status), Ok(reference)) => {
            let caller = &session.caller;
            let set = match what {
                Reviewed::SensitivityLabel => state
                    .catalog
                    .governance()
                    .set_object_label(caller, &reference, &form.label, status)
                    .await
                    .map(drop),
                Reviewed::DataClass => state
                    .catalog
                    .governance()
                    .set_object_data_class(caller, &reference, &form.label, status)
                    .await
                    .map(drop),
            };
            set.map(|()| format!("{} {}", form.label, form.status.to_lowercase()))
        }
        (Err(e), _) | (_, Err(e)) => Err(e),
    };
    returned(&to, outcome)
}

fn review_status(text: &str) -> Result<ClassificationStatus, Error> {
    match text {
        "PROPOSED" => Ok(ClassificationStatus::Proposed),
        "APPROVED" => Ok(ClassificationStatus::Approved),
        "REJECTED" => Ok(ClassificationStatus::Rejected),
        other => Err(Error::invalid(format!(
            "status '{other}' is none of PROPOSED, APPROVED, REJECTED"
        ))),
    }
}

#[derive(Debug, Deserialize)]
pub struct TagForm {
    /// `add` or `remove`.
    op: String,
    label: String,
    back: Option<String>,
}

/// `POST /ui/objects/{id}/tags`: adds or removes a label (MQL's `Labels`).
pub async fn tag(
    State(state): State<AppState>,
    session: Session,
    Path(id): Path<String>,
    Form(form): Form<TagForm>,
) -> Response {
    let to = back_to(&id, form.back.as_deref());
    let add = form.op != "remove";
    let outcome = match ObjectRef::parse(&id) {
        Ok(reference) => state
            .catalog
            .governance()
            .set_object_tag_label(&session.caller, &reference, &form.label, add)
            .await
            .map(|_| {
                format!(
                    "label {} {}",
                    form.label.trim(),
                    if add { "added" } else { "removed" }
                )
            }),
        Err(e) => Err(e),
    };
    returned(&to, outcome)
}

#[derive(Debug, Deserialize)]
pub struct TermForm {
    /// `add` or `remove`.
    op: String,
    /// The term's id or path.
    term: String,
    back: Option<String>,
}

/// `POST /ui/objects/{id}/terms`: links a glossary term (a semantic link) or unlinks it.
pub async fn term(
    State(state): State<AppState>,
    session: Session,
    Path(id): Path<String>,
    Form(form): Form<TermForm>,
) -> Response {
    let to = back_to(&id, form.back.as_deref());
    let term = form.term.trim();
    let outcome = if term.is_empty() {
        Err(Error::missing("term"))
    } else if form.op == "remove" {
        state
            .catalog
            .governance()
            .remove_semantic_link(&session.caller, &id, term)
            .await
            .map(|()| "term unlinked".to_owned())
    } else {
        state
            .catalog
            .governance()
            .add_semantic_link(&session.caller, &id, term)
            .await
            .map(|()| "term linked".to_owned())
    };
    returned(&to, outcome)
}

#[derive(Template)]
#[template(path = "edit_description.html")]
struct EditDescription {
    chrome: Chrome,
    id: String,
    name: String,
    description: String,
    preview: String,
    error: Option<String>,
}

/// `GET /ui/objects/{id}/edit`: the description form.
pub async fn edit_form(
    State(state): State<AppState>,
    session: Session,
    Path(id): Path<String>,
) -> PageResult {
    let entity = state
        .catalog
        .objects()
        .get_entity(&session.caller, &ObjectRef::parse(&id)?)
        .await?;
    let description = query::text(&entity.attributes, Attr::DESCRIPTION);
    Ok(html(&EditDescription {
        chrome: Chrome::new(&session, "browse"),
        preview: markdown(&description),
        id: entity.id,
        name: entity.name,
        description,
        error: None,
    }))
}

#[derive(Debug, Deserialize)]
pub struct DescriptionForm {
    description: String,
}

/// `POST /ui/objects/{id}/edit`: saves the description (setAttributes).
pub async fn edit_save(
    State(state): State<AppState>,
    session: Session,
    Path(id): Path<String>,
    Form(form): Form<DescriptionForm>,
) -> PageResult {
    let setting = AttributeSetting {
        name: "Description".into(),
        kind: Some("SYSTEM_ATTRIBUTE".into()),
        value: Json::String(form.description.clone()),
    };
    match state
        .catalog
        .objects()
        .set_attributes(&session.caller, &id, &[setting])
        .await
    {
        Ok(entity) => Ok(returned(
            &format!("/ui/objects/{}", url_encode(&entity.id)),
            Ok("description saved".into()),
        )),
        Err(e) if e.code.http_status() < 500 && e.code.http_status() != 404 => {
            let entity = state
                .catalog
                .objects()
                .get_entity(&session.caller, &ObjectRef::parse(&id)?)
                .await?;
            let page = EditDescription {
                chrome: Chrome::new(&session, "browse"),
                preview: markdown(&form.description),
                id: entity.id,
                name: entity.name,
                description: form.description,
                error: Some(e.for_client().message),
            };
            Ok(html(&page))
        }
        Err(e) => Err(e.into()),
    }
}

#[derive(Debug, Deserialize)]
pub struct PreviewForm {
    description: String,
}

/// `POST /ui/preview`: the Markdown preview of the description form (htmx).
pub async fn preview(_session: Session, Form(form): Form<PreviewForm>) -> Response {
    Html(markdown(&form.description)).into_response()
}

/// `GET /ui/terms/suggest?term=...`: glossary terms whose name matches what is typed,
/// as `<option>`s of the term field's list (htmx).
pub async fn suggest_terms(
    State(state): State<AppState>,
    session: Session,
    RawQuery(raw): RawQuery,
) -> Response {
    let typed = raw
        .as_deref()
        .and_then(|q| super::session::url_form_value(q.as_bytes(), "term"))
        .unwrap_or_default();
    let typed = typed.trim();
    if typed.is_empty() || typed.len() > 200 {
        return Html(String::new()).into_response();
    }
    let words: String = typed
        .split_whitespace()
        .map(|w| format!("+{}*", w.replace(['"', '*', '+', '-', '='], "")))
        .collect::<Vec<_>>()
        .join(" ");
    let terms = Query::select([Attr::NAME, Attr::OBJECT_ID, Attr::CONTEXT])
        .filter(all([Attr::OBJECT_TYPE.eq("Term"), search_text(&words)]))
        .order_by(Attr::NAME);
    let mut out = String::new();
    if let Ok(terms) = query::execute(&state, &session, &terms, 12, 1).await {
        for term in terms {
            let name = term.text(Attr::NAME);
            let id = term.text(Attr::OBJECT_ID);
            let glossary = term
                .context_last()
                .and_then(|i| i.get("name"))
                .map(display)
                .unwrap_or_default();
            out.push_str(&format!(
                "<option value=\"{}\">{} ({})</option>",
                escape(&id),
                escape(&name),
                escape(&glossary)
            ));
        }
    }
    Html(out).into_response()
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn back_stays_on_the_object() {
        assert_eq!(
            back_to("3_1", Some("/ui/objects/3_1/comments?x=1")),
            "/ui/objects/3_1/comments"
        );
        assert_eq!(
            back_to("3_1", Some("https://evil.example/")),
            "/ui/objects/3_1"
        );
        assert_eq!(back_to("3_1", Some("/ui/objects/3_2")), "/ui/objects/3_1");
        assert_eq!(back_to("3_1", Some("/ui/objects/3_10")), "/ui/objects/3_1");
        assert_eq!(back_to("3_1", None), "/ui/objects/3_1");
    }
}
