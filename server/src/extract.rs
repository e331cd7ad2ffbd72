//! Extractors that turn requests into core types, with envelope errors on bad input.

use axum::body::Bytes;
use axum::extract::{FromRef, FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use lore_core::auth::Caller;
use lore_core::{Catalog, Error, ErrorCode};
use serde::de::DeserializeOwned;

use crate::AppState;
use crate::error::{ApiError, code_for_status};

/// The names of the key header: `api-key` since release 11.1, `api_key` before.
pub const KEY_HEADERS: [&str; 2] = ["api-key", "api_key"];

/// The name of the user whose valid key a call carried: the key gate
/// ([`crate::gate::require_key`]) puts it in the response's extensions for the call log,
/// so the key is looked up once.
#[derive(Debug, Clone, Default)]
pub struct CallUser(pub String);

/// The API key of the request, from either header.
pub fn api_key(parts: &Parts) -> Option<&str> {
    KEY_HEADERS
        .iter()
        .find_map(|name| parts.headers.get(*name))
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|k| !k.is_empty())
}

/// The token of an `Authorization: Bearer <token>` header (the scheme in any case), if
/// the request has one.
pub fn bearer(headers: &axum::http::HeaderMap) -> Option<&str> {
    let value = headers
        .get(axum::http::header::AUTHORIZATION)?
        .to_str()
        .ok()?;
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The caller of a request to a route off the public list: the key gate
/// ([`crate::gate::require_key`]) has authenticated it before the handler runs.
#[derive(Debug, Clone)]
pub struct Authenticated(pub Caller);

impl<S> FromRequestParts<S> for Authenticated
where
    AppState: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        if let Some(caller) = parts.extensions.get::<Caller>() {
            return Ok(Self(caller.clone()));
        }
        // A route the gate let through (a public one): the handler still gets a caller
        // only with a valid key.
        let state = AppState::from_ref(state);
        let caller = authenticate(&state.catalog, parts).await?;
        parts.extensions.insert(caller.clone());
        Ok(Self(caller))
    }
}

/// The caller the request's API key belongs to; 401 in the envelope when the key is
/// missing, invalid, expired or logged out.
pub async fn authenticate(catalog: &Catalog, parts: &Parts) -> Result<Caller, ApiError> {
    Ok(catalog
        .identity()
        .authenticate(require_api_key(parts)?)
        .await?)
}

/// The API key of the request; 401 in the envelope when it carries none.
pub fn require_api_key(parts: &Parts) -> Result<&str, ApiError> {
    api_key(parts).ok_or_else(|| {
        ApiError::new(
            ErrorCode::AuthenticationError,
            "the api-key (or api_key) header is missing; log in with POST /auth/login",
        )
    })
}

/// The API key of a call to one of the gate's
/// [`SELF_CHECKED_ROUTES`](crate::gate::SELF_CHECKED_ROUTES), not checked yet: the
/// handler gives it to a catalog method that checks it (401 when it fails) before it
/// answers anything else. Like [`Authenticated`], 401 without a key.
#[derive(Debug, Clone)]
pub struct KeyToCheck(pub String);

impl<S: Send + Sync> FromRequestParts<S> for KeyToCheck {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(Self(require_api_key(parts)?.to_owned()))
    }
}

/// A JSON body; malformed JSON is INVALID_PARAMETER, a wrong content type 415, an
/// oversized body 413, all in the envelope.
#[derive(Debug)]
pub struct JsonBody<T>(pub T);

impl<S, T> FromRequest<S> for JsonBody<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        if !json_content_type(req.headers()) {
            return Err(ApiError::new(
                ErrorCode::UnsupportedMediaType,
                "the request body must be JSON (Content-Type: application/json)",
            ));
        }
        let bytes = Bytes::from_request(req, state).await.map_err(|rejection| {
            let code = code_for_status(rejection.status());
            let message = if code == ErrorCode::PayloadTooLarge {
                "the request body is larger than the server accepts".to_owned()
            } else {
                format!(
                    "the request body could not be read: {}",
                    rejection.body_text()
                )
            };
            ApiError::new(code, message)
        })?;
        // serde's derived structs also read a JSON array, field by field; the API's
        // object bodies are objects, so an array in their place is refused by name.
        if expects_object::<T>() && first_byte(&bytes) == Some(b'[') {
            return Err(ApiError::new(
                ErrorCode::InvalidParameter,
                "the request body is not valid: it must be a JSON object, not an array",
            ));
        }
        match axum::Json::<T>::from_bytes(&bytes) {
            Ok(axum::Json(value)) => Ok(Self(value)),
            Err(rejection) => Err(ApiError::new(
                code_for_status(rejection.status()),
                format!("the request body is not valid: {}", rejection.body_text()),
            )),
        }
    }
}

/// Whether a Content-Type names JSON: `application/json` or a `+json` type.
fn json_content_type(headers: &axum::http::HeaderMap) -> bool {
    let Some(value) = headers
        .get(axum::http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
    else {
        return false;
    };
    let essence = value
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    essence == "application/json"
        || (essence.starts_with("application/") && essence.ends_with("+json"))
}

fn first_byte(bytes: &[u8]) -> Option<u8> {
    bytes.iter().copied().find(|b| !b.is_ascii_whitespace())
}

/// Whether `T` reads itself as a struct (a JSON object): asked of a deserializer that
/// only notes which shape `T` asks for.
fn expects_object<T: DeserializeOwned>() -> bool {
    use serde::de::{Deserializer, Visitor};

    struct Probe;

    #[derive(Debug)]
    struct Asked(bool);

    impl std::fmt::Display for Asked {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("shape probe")
        }
    }
    impl std::error::Error for Asked {}
    impl serde::de::Error for Asked {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Asked(false)
        }
    }

    impl<'de> Deserializer<'de> for Probe {
        type Error = Asked;

        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Asked> {
            Err(Asked(false))
        }

        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Asked> {
            Err(Asked(true))
        }

        // A newtype (`struct Wrapper(Body)`) reads as what it wraps.
        fn deserialize_newtype_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            visitor: V,
        ) -> Result<V::Value, Asked> {
            visitor.visit_newtype_struct(self)
        }

        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct seq tuple tuple_struct map
            enum identifier ignored_any
        }
    }

    matches!(T::deserialize(Probe), Err(Asked(true)))
}

/// The client's address, as the call layer settled it (the TCP peer, or behind a
/// trusted proxy the address it added to `X-Forwarded-For`); without the layer, the
/// TCP peer when the server was started with connect info (as `serve` does), else none.
/// The system log and login throttling use the same address.
#[derive(Debug, Clone, Copy)]
pub struct ClientAddr(pub Option<std::net::IpAddr>);

impl<S: Send + Sync> FromRequestParts<S> for ClientAddr {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        if let Some(settled) = parts.extensions.get::<ClientAddr>() {
            return Ok(*settled);
        }
        Ok(Self(
            parts
                .extensions
                .get::<axum::extract::ConnectInfo<std::net::SocketAddr>>()
                .map(|info| info.0.ip()),
        ))
    }
}

/// Query parameters; a malformed parameter is INVALID_PARAMETER in the envelope.
#[derive(Debug)]
pub struct Params<T>(pub T);

impl<S, T> FromRequestParts<S> for Params<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        axum::extract::Query::<T>::from_request_parts(parts, state)
            .await
            .map(|q| Self(q.0))
            .map_err(|rejection| {
                ApiError::new(
                    ErrorCode::InvalidParameter,
                    format!("bad query parameters: {}", rejection.body_text()),
                )
            })
    }
}

/// The raw body; an oversized body is 413 in the envelope.
pub async fn body_bytes<S: Send + Sync>(req: Request, state: &S) -> Result<Bytes, ApiError> {
    Bytes::from_request(req, state).await.map_err(|rejection| {
        let code = code_for_status(rejection.status());
        ApiError::new(
            code,
            format!("cannot read the request body: {}", rejection.body_text()),
        )
    })
}

/// Parses an optional JSON body: empty means `None`.
pub fn optional_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<Option<T>, ApiError> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Ok(None);
    }
    serde_json::from_slice(bytes).map(Some).map_err(|e| {
        ApiError(Error::invalid(format!(
            "the request body is not valid JSON: {e}"
        )))
    })
}

/// Reads a boolean query parameter leniently (`true`/`false`, any case; absent is false).
pub fn flag(value: Option<&str>, name: &str) -> Result<bool, ApiError> {
    match value.map(str::trim) {
        None | Some("") => Ok(false),
        Some(v) if v.eq_ignore_ascii_case("true") => Ok(true),
        Some(v) if v.eq_ignore_ascii_case("false") => Ok(false),
        Some(v) => Err(ApiError(Error::invalid(format!(
            "parameter '{name}' must be true or false, not '{v}'"
        )))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    #[allow(dead_code)]
    struct Body {
        name: Option<String>,
    }

    #[test]
    fn structs_are_known_to_want_objects() {
        assert!(expects_object::<Body>());
        assert!(!expects_object::<Vec<Body>>());
        assert!(!expects_object::<serde_json::Value>());
        assert!(!expects_object::<Option<Body>>());
        assert!(!expects_object::<std::collections::HashMap<String, String>>());
        #[derive(serde::Deserialize)]
        struct Wrapper(#[allow(dead_code)] Body);
        assert!(expects_object::<Wrapper>());
    }

    #[test]
    fn json_types_are_recognised() {
        let mut headers = axum::http::HeaderMap::new();
        assert!(!json_content_type(&headers));
        headers.insert(
            "content-type",
            "Application/JSON; charset=utf-8".parse().unwrap(),
        );
        assert!(json_content_type(&headers));
        headers.insert(
            "content-type",
            "application/merge-patch+json".parse().unwrap(),
        );
        assert!(json_content_type(&headers));
        headers.insert("content-type", "text/plain".parse().unwrap());
        assert!(!json_content_type(&headers));
    }
}
