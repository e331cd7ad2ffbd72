//! The one error type every front end maps to the wire, with its stable `errorCode`.

use serde::Serialize;

/// Stable error codes sent to clients in `error.errorCode`.
///
/// The first eight are the codes of the public API documentation; the rest name cases
/// the documentation leaves open. This list is the whole vocabulary: add a code here,
/// never invent one at a call site.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ErrorCode {
    AuthenticationError,
    ObjectNotFound,
    InvalidRepositoryPath,
    RequiredParameterNotSpecified,
    InvalidParameter,
    OperationNotSupported,
    ServerError,
    LicenseError,
    /// The caller is authenticated but lacks the role or capability the call needs.
    PermissionDenied,
    /// The write conflicts with existing data (a duplicate name, a concurrent change).
    Conflict,
    /// The method was removed in a past release; the message names its replacement.
    MethodRemoved,
    /// The request body or upload exceeds the configured limit.
    PayloadTooLarge,
    /// The request body is not in a media type the method accepts.
    UnsupportedMediaType,
    /// No route exists for the path.
    NotFound,
    /// The route exists but not for this HTTP method.
    MethodNotAllowed,
    /// Too many failed logins for this user name from this address, or from this
    /// address; the message says when to try again.
    TooManyLoginAttempts,
    /// The request's Accept header names no type the method answers in.
    NotAcceptable,
    /// The database cannot be reached or cannot take the write (gone, restarting, its
    /// disk full); nothing of the call was applied. The answer carries `Retry-After`.
    ServiceUnavailable,
}

impl ErrorCode {
    /// The code as clients see it, e.g. `OBJECT_NOT_FOUND`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::AuthenticationError => "AUTHENTICATION_ERROR",
            Self::ObjectNotFound => "OBJECT_NOT_FOUND",
            Self::InvalidRepositoryPath => "INVALID_REPOSITORY_PATH",
            Self::RequiredParameterNotSpecified => "REQUIRED_PARAMETER_NOT_SPECIFIED",
            Self::InvalidParameter => "INVALID_PARAMETER",
            Self::OperationNotSupported => "OPERATION_NOT_SUPPORTED",
            Self::ServerError => "SERVER_ERROR",
            Self::LicenseError => "LICENSE_ERROR",
            Self::PermissionDenied => "PERMISSION_DENIED",
            Self::Conflict => "CONFLICT",
            Self::MethodRemoved => "METHOD_REMOVED",
            Self::PayloadTooLarge => "PAYLOAD_TOO_LARGE",
            Self::UnsupportedMediaType => "UNSUPPORTED_MEDIA_TYPE",
            Self::NotFound => "NOT_FOUND",
            Self::MethodNotAllowed => "METHOD_NOT_ALLOWED",
            Self::TooManyLoginAttempts => "TOO_MANY_LOGIN_ATTEMPTS",
            Self::NotAcceptable => "NOT_ACCEPTABLE",
            Self::ServiceUnavailable => "SERVICE_UNAVAILABLE",
        }
    }

    /// The conventional HTTP status for the code.
    pub fn http_status(self) -> u16 {
        match self {
            Self::AuthenticationError => 401,
            Self::ObjectNotFound | Self::InvalidRepositoryPath | Self::NotFound => 404,
            // A record that is no valid license is bad input, whoever sends it.
            Self::RequiredParameterNotSpecified | Self::InvalidParameter | Self::LicenseError => {
                400
            }
            Self::OperationNotSupported => 400,
            Self::ServerError => 500,
            Self::PermissionDenied => 403,
            Self::Conflict => 409,
            Self::MethodRemoved => 410,
            Self::PayloadTooLarge => 413,
            Self::UnsupportedMediaType => 415,
            Self::MethodNotAllowed => 405,
            Self::TooManyLoginAttempts => 429,
            Self::NotAcceptable => 406,
            Self::ServiceUnavailable => 503,
        }
    }
}

impl std::fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What `Retry-After` says to a client when the database is unavailable: a restart or a
/// failover takes seconds, and a load balancer or client retries sooner than a person.
pub const RETRY_AFTER_SECONDS: u64 = 2;

/// The underlying cause of an error, kept for the log.
pub type Cause = Box<dyn std::error::Error + Send + Sync + 'static>;

/// An error of the catalog: a code for clients and a lowercase message that says what
/// was wrong. A storage error also keeps its cause and whether retrying the whole
/// operation may succeed. What a client reads of an error is [`Error::for_client`]: an
/// internal failure's message and cause are for the log alone.
#[derive(Debug, thiserror::Error)]
#[error("{code}: {message}")]
pub struct Error {
    pub code: ErrorCode,
    pub message: String,
    #[source]
    cause: Option<Cause>,
    retryable: bool,
}

impl Error {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            cause: None,
            retryable: false,
        }
    }
    pub fn authentication(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::AuthenticationError, message)
    }
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ObjectNotFound, message)
    }
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::InvalidParameter, message)
    }
    pub fn missing(parameter: &str) -> Self {
        Self::new(
            ErrorCode::RequiredParameterNotSpecified,
            format!("required parameter '{parameter}' is not specified"),
        )
    }
    pub fn conflict(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::Conflict, message)
    }
    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::PermissionDenied, message)
    }
    pub fn unsupported(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::OperationNotSupported, message)
    }
    /// A failure inside the server; the message (and any cause) goes to the log only,
    /// see [`Error::for_client`].
    pub fn internal(message: impl Into<String>) -> Self {
        Self::new(ErrorCode::ServerError, message)
    }
    /// A storage failure; `context` says what the store was doing. The client sees
    /// only the context; the driver's error is kept as the cause for the log.
    pub fn storage(context: &str, cause: impl Into<Cause>) -> Self {
        Self::internal(format!("storage error while {context}")).caused_by(cause)
    }
    /// The database is unreachable or cannot take the write; `context` says what the
    /// store was doing, `reason` what the client should know (no driver text). Retryable:
    /// nothing was applied.
    pub fn unavailable(context: &str, reason: &str, cause: impl Into<Cause>) -> Self {
        Self::new(
            ErrorCode::ServiceUnavailable,
            format!("the database is unavailable while {context} ({reason}); try again shortly"),
        )
        .caused_by(cause)
        .retryable()
    }
    /// Seconds a client should wait before trying again, when the answer says so
    /// (`Retry-After`).
    pub fn retry_after(&self) -> Option<u64> {
        (self.code == ErrorCode::ServiceUnavailable).then_some(RETRY_AFTER_SECONDS)
    }
    /// Keeps `cause` as the source of this error.
    pub fn caused_by(mut self, cause: impl Into<Cause>) -> Self {
        self.cause = Some(cause.into());
        self
    }
    /// Marks the error as transient: the operation was rolled back and may succeed if
    /// tried again (a serialization failure, a busy database).
    pub fn retryable(mut self) -> Self {
        self.retryable = true;
        self
    }
    /// Whether the operation certainly did not apply and may succeed if tried again.
    pub fn is_retryable(&self) -> bool {
        self.retryable
    }
    /// The cause, for the log.
    pub fn cause(&self) -> Option<&(dyn std::error::Error + Send + Sync + 'static)> {
        self.cause.as_deref()
    }
    /// Whether the failure is the server's own (a storage fault, a broken invariant)
    /// rather than something wrong with the request.
    pub fn is_internal(&self) -> bool {
        self.code.http_status() >= 500
    }
    /// The message followed by every cause below it, `: `-separated: what the log and
    /// the command line print.
    pub fn chain(&self) -> String {
        let mut text = self.message.clone();
        let mut next = self.cause.as_deref().map(|c| c as &dyn std::error::Error);
        while let Some(cause) = next {
            text.push_str(": ");
            text.push_str(&cause.to_string());
            next = cause.source();
        }
        text
    }
    /// The error as a client may read it. Bad input passes unchanged: its message says
    /// what was wrong. An internal failure is logged with its whole cause chain under a
    /// fresh reference and becomes a fixed message naming only that reference, so no
    /// path, query or driver text reaches the client.
    pub fn for_client(self) -> Self {
        if !self.is_internal() {
            return self;
        }
        if self.code == ErrorCode::ServiceUnavailable {
            // Its message names no path, query or driver text: the client may read it.
            tracing::warn!(error = %self.chain(), "the database is unavailable");
            return Self {
                cause: None,
                ..self
            };
        }
        let reference = format!("{:016x}", rand::random::<u64>());
        tracing::error!(
            reference = %reference,
            code = %self.code,
            retryable = self.retryable,
            error = %self.chain(),
            "internal error"
        );
        Self {
            code: self.code,
            message: format!(
                "internal error (reference {reference}); the server's log has the details"
            ),
            cause: None,
            retryable: self.retryable,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, thiserror::Error)]
    #[error("disk I/O error at /var/lib/lore/lore.db")]
    struct Disk(#[source] std::io::Error);

    fn storage_fault() -> Error {
        Error::storage(
            "reading object 5_3",
            Disk(std::io::Error::other("sector 17 unreadable")),
        )
    }

    #[test]
    fn the_chain_names_every_cause() {
        assert_eq!(
            storage_fault().chain(),
            "storage error while reading object 5_3: disk I/O error at /var/lib/lore/lore.db: \
             sector 17 unreadable"
        );
        assert_eq!(Error::invalid("bad page size").chain(), "bad page size");
    }

    #[test]
    fn a_client_reads_an_internal_failure_as_a_reference_only() {
        let shown = storage_fault().retryable().for_client();
        assert_eq!(shown.code, ErrorCode::ServerError);
        assert!(shown.is_retryable(), "retrying stays possible");
        assert!(shown.cause().is_none());
        assert!(
            shown.message.starts_with("internal error (reference ")
                && !shown.message.contains("lore.db")
                && !shown.message.contains("5_3"),
            "{}",
            shown.message
        );
        let other = storage_fault().for_client();
        assert_ne!(
            shown.message, other.message,
            "each failure has its own reference"
        );
    }

    #[test]
    fn an_unavailable_database_is_told_with_when_to_retry() {
        let shown = Error::unavailable(
            "reading object 5_3",
            "it does not answer",
            Disk(std::io::Error::other("connection refused")),
        )
        .for_client();
        assert_eq!(shown.code, ErrorCode::ServiceUnavailable);
        assert_eq!(shown.code.http_status(), 503);
        assert!(shown.is_retryable());
        assert_eq!(shown.retry_after(), Some(RETRY_AFTER_SECONDS));
        assert_eq!(
            shown.message,
            "the database is unavailable while reading object 5_3 (it does not answer); try again shortly"
        );
        assert!(shown.cause().is_none());
        assert_eq!(Error::invalid("x").retry_after(), None);
    }

    #[test]
    fn bad_input_keeps_its_message() {
        let shown = Error::not_found("object 5_3 does not exist").for_client();
        assert_eq!(shown.code, ErrorCode::ObjectNotFound);
        assert_eq!(shown.message, "object 5_3 does not exist");
    }
}
