//! What every page shares: the header's data, rendering, and the pages of errors.

use askama::Template;
use axum::http::StatusCode;
use axum::response::{Html, IntoResponse, Response};
use lore_core::{Error, ErrorCode};

use super::session::{Flash, Session};

/// The header of a signed-in page.
#[derive(Debug, Clone)]
pub struct Chrome {
    pub user: String,
    pub csrf: String,
    /// Which item of the main menu is this page's: `search`, `browse`, `glossary`, `admin`.
    pub nav: &'static str,
    pub assets: &'static str,
    /// Whether the menu offers Administration.
    pub admin: bool,
}

impl Chrome {
    pub fn new(session: &Session, nav: &'static str) -> Self {
        Self {
            user: session.caller.name().to_owned(),
            csrf: session.csrf.clone(),
            nav,
            assets: super::assets::VERSION.as_str(),
            admin: {
                use lore_core::model::Capability;
                let c = &session.caller;
                c.has(Capability::Administer) || c.has(Capability::ManageRoles)
            },
        }
    }
}

/// A page that says one thing: an error, a refusal, nothing found.
#[derive(Template)]
#[template(path = "message.html")]
struct MessagePage<'a> {
    title: &'a str,
    message: &'a str,
    assets: &'a str,
}

/// Renders a template into a 200 page.
pub fn html<T: Template>(template: &T) -> Response {
    rendered(StatusCode::OK, template)
}

/// Renders a template with a status.
pub fn rendered<T: Template>(status: StatusCode, template: &T) -> Response {
    match template.render() {
        Ok(body) => (status, Html(body)).into_response(),
        Err(e) => {
            let error = Error::internal(format!("a page failed to render: {e}")).for_client();
            message(
                StatusCode::INTERNAL_SERVER_ERROR,
                "Something went wrong",
                &error.message,
            )
        }
    }
}

/// A message page.
pub fn message(status: StatusCode, title: &str, text: &str) -> Response {
    let page = MessagePage {
        title,
        message: text,
        assets: super::assets::VERSION.as_str(),
    };
    match page.render() {
        Ok(body) => (status, Html(body)).into_response(),
        Err(_) => (status, text.to_owned()).into_response(),
    }
}

/// 404, for a path that names no page and for an object that does not exist for the
/// caller alike.
pub fn not_found_page() -> Response {
    message(
        StatusCode::NOT_FOUND,
        "Nothing here",
        "There is no page at this address.",
    )
}

pub fn refused(text: &str) -> Response {
    refused_with(StatusCode::FORBIDDEN, text)
}

pub fn refused_with(status: StatusCode, text: &str) -> Response {
    message(status, "Not allowed", text)
}

/// An error of the catalog as a page: the same message the API gives (an internal
/// failure only by its reference), under the status the API uses.
#[derive(Debug)]
pub struct PageError(pub Error);

impl From<Error> for PageError {
    fn from(e: Error) -> Self {
        Self(e)
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let status = StatusCode::from_u16(self.0.code.http_status())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let error = self.0.for_client();
        let title = match error.code {
            ErrorCode::NotFound | ErrorCode::ObjectNotFound | ErrorCode::InvalidRepositoryPath => {
                "Nothing here"
            }
            ErrorCode::PermissionDenied => "Not allowed",
            ErrorCode::AuthenticationError => "Log in again",
            _ if status.is_client_error() => "That did not work",
            _ => "Something went wrong",
        };
        message(status, title, &error.message)
    }
}

pub type PageResult = Result<Response, PageError>;

/// Percent-encodes a URL component.
pub fn url_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// A query string from pairs.
pub fn query_string<'a>(pairs: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    pairs
        .into_iter()
        .map(|(k, v)| format!("{}={}", url_encode(k), url_encode(v)))
        .collect::<Vec<_>>()
        .join("&")
}

/// A redirect to `to` (a path of the UI, no query) after a form, leaving that page a
/// [`Flash`]: what happened, or the API's message of why not. The session layer seals
/// it into a cookie; nothing of it is in the address.
pub fn returned(to: &str, outcome: Result<String, Error>) -> Response {
    let flash = match outcome {
        Ok(done) => Flash::new(to, false, &done),
        Err(e) => Flash::new(to, true, &e.for_client().message),
    };
    let mut response = (
        StatusCode::SEE_OTHER,
        [(axum::http::header::LOCATION, to.to_owned())],
    )
        .into_response();
    response.extensions_mut().insert(flash);
    response
}
