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
    message(StatusCode::NOT_FOUND, "Nothing here", NOTHING_HERE)
}

pub fn refused(text: &str) -> Response {
    refused_with(StatusCode::FORBIDDEN, text)
}

pub fn refused_with(status: StatusCode, text: &str) -> Response {
    message(status, "Not allowed", text)
}

/// An error of the catalog as a page, under the status the API uses. A page shows only
/// text Lore chose: a name the address carried (an id, a path, a parameter) is never
/// repeated, so a link cannot put words on a Lore page. Refusals name the caller and the
/// capability (of an object they see); an internal failure shows its reference.
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
        let text = match error.code {
            ErrorCode::NotFound | ErrorCode::ObjectNotFound | ErrorCode::InvalidRepositoryPath => {
                NOTHING_HERE
            }
            ErrorCode::PermissionDenied | ErrorCode::AuthenticationError => &error.message,
            _ if status.is_client_error() => NOT_UNDERSTOOD,
            _ => &error.message,
        };
        message(status, title, text)
    }
}

/// What a page says of an object or page that does not exist for the caller.
pub const NOTHING_HERE: &str =
    "This address names nothing you can see: no page, and no object by that id or path.";

/// What a page says of an address whose parameters it cannot use.
pub const NOT_UNDERSTOOD: &str = "Lore cannot use this address: a part of it is not what the page \
                                  expects. Go back and follow Lore's own links.";

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

#[cfg(test)]
mod tests {
    use super::*;

    async fn body_of(response: Response) -> (StatusCode, String) {
        let status = response.status();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .expect("the page");
        (status, String::from_utf8_lossy(&bytes).into_owned())
    }

    #[tokio::test]
    async fn error_pages_never_repeat_what_the_address_carried() {
        let words = "Your account is locked, call 555-0100";
        for (error, status) in [
            (Error::not_found(format!("no object '{words}'")), 404),
            (
                Error::new(ErrorCode::InvalidRepositoryPath, format!("'{words}'")),
                404,
            ),
            (
                Error::invalid(format!("page '{words}' is not a number")),
                400,
            ),
            (Error::missing(words), 400),
        ] {
            let (got, page) = body_of(PageError(error).into_response()).await;
            assert_eq!(got.as_u16(), status);
            assert!(!page.contains("555-0100"), "{page}");
        }
        // A refusal says who lacks what, in Lore's words.
        let (got, page) = body_of(
            PageError(Error::forbidden("'ann' lacks the capability Edit Metadata")).into_response(),
        )
        .await;
        assert_eq!(got, StatusCode::FORBIDDEN);
        assert!(
            page.contains("lacks the capability Edit Metadata"),
            "{page}"
        );
        // A missing object reads like a path that names no page.
        let (_, missing) = body_of(PageError(Error::not_found("x")).into_response()).await;
        let (_, no_page) = body_of(not_found_page()).await;
        assert_eq!(missing, no_page);
    }
}
