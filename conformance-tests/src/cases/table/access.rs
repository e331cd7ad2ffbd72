//! The cases of signing in (passwords, sessions, OAuth 2.0) and of the API's routing
//! and envelope.

use crate::cases::{B, Case, N, Needs, auth, oauth, routing};

/// The cases of this part, in the order they run.
pub(super) fn cases() -> Vec<Case> {
    vec![
        // Authentication
        case!(
            auth::login_token_works_in_both_headers,
            AnyServer,
            [("POST", "/auth/login", N)]
        ),
        case!(
            auth::login_user_name_is_case_insensitive,
            AnyServer,
            [("POST", "/auth/login", N)]
        ),
        case!(
            auth::login_wrong_password,
            AnyServer,
            [("POST", "/auth/login", B)]
        ),
        case!(
            auth::login_missing_or_malformed_body,
            AnyServer,
            [("POST", "/auth/login", B)]
        ),
        case!(
            auth::login_force_login_ends_other_sessions,
            OwnServer,
            [
                ("POST", "/auth/login", N),
                ("POST", "/auth/loginPlainText", N)
            ]
        ),
        case!(
            auth::login_plain_text_returns_bare_key,
            AnyServer,
            [("POST", "/auth/loginPlainText", N)]
        ),
        case!(
            auth::login_plain_text_bad_input,
            AnyServer,
            [("POST", "/auth/loginPlainText", B)]
        ),
        case!(
            auth::login_key_expires_after_login_timeout,
            ShortSessions,
            [
                ("POST", "/auth/login", N),
                ("POST", "/auth/loginPlainText", N)
            ]
        ),
        case!(
            auth::logout_text_plain_without_body,
            AnyServer,
            [("POST", "/auth/logout", N)]
        ),
        case!(
            auth::logout_json_empty_object_and_old_header,
            AnyServer,
            [("POST", "/auth/logout", N)]
        ),
        case!(
            auth::logout_bad_keys,
            AnyServer,
            [("POST", "/auth/logout", B)]
        ),
        // OAuth 2.0 login, against a real OpenID provider
        case!(
            oauth::oauth2_token_logs_in_and_the_key_works,
            OAuth2Provider,
            [("POST", "/auth/loginOAuth2", N)]
        ),
        case!(
            oauth::oauth2_force_login_ends_other_sessions,
            OAuth2Provider,
            [("POST", "/auth/loginOAuth2", N)]
        ),
        case!(
            oauth::oauth2_expired_and_not_yet_valid_tokens_are_refused,
            OAuth2Provider,
            [("POST", "/auth/loginOAuth2", B)]
        ),
        case!(
            oauth::oauth2_wrong_issuer_and_audience_are_refused,
            OAuth2Provider,
            [("POST", "/auth/loginOAuth2", B)]
        ),
        case!(
            oauth::oauth2_wrongly_signed_tokens_are_refused,
            OAuth2Provider,
            [("POST", "/auth/loginOAuth2", B)]
        ),
        case!(
            oauth::oauth2_rotated_key_works_after_rotation,
            OAuth2Provider,
            [("POST", "/auth/loginOAuth2", N)]
        ),
        case!(
            oauth::oauth2_opaque_tokens_are_introspected,
            OAuth2Provider,
            [
                ("POST", "/auth/loginOAuth2", N),
                ("POST", "/auth/loginOAuth2", B)
            ]
        ),
        case!(
            oauth::oauth2_unknown_user_is_refused_without_create_users,
            OAuth2Provider,
            [("POST", "/auth/loginOAuth2", B)]
        ),
        case!(
            oauth::oauth2_unknown_user_is_created_with_create_users,
            OAuth2ProviderCreatingUsers,
            [("POST", "/auth/loginOAuth2", N)]
        ),
        case!(
            oauth::oauth2_name_claims_never_take_an_account,
            OAuth2ProviderCreatingUsers,
            [("POST", "/auth/loginOAuth2", B)]
        ),
        case!(
            oauth::oauth2_refused_sign_ins_are_throttled,
            OAuth2Provider,
            [("POST", "/auth/loginOAuth2", B)]
        ),
        case!(
            oauth::oauth2_disabled_user_is_refused,
            OAuth2ProviderCreatingUsers,
            [("POST", "/auth/loginOAuth2", B)]
        ),
        case!(
            oauth::oauth2_missing_token_or_user_claim,
            OAuth2Provider,
            [("POST", "/auth/loginOAuth2", B)]
        ),
        case!(
            oauth::oauth2_login_not_configured,
            OwnServer,
            [("POST", "/auth/loginOAuth2", B)]
        ),
        // Routing and the envelope
        case!(routing::unknown_route_is_404_in_envelope, AnyServer, []),
        case!(routing::wrong_method_is_405, AnyServer, []),
        case!(routing::paths_are_case_sensitive, AnyServer, []),
        case!(
            routing::missing_or_invalid_key_is_401,
            AnyServer,
            [
                ("GET", "/types/listProfiles", B),
                ("GET", "/types/listCategories", B),
                ("GET", "/configuration/listModels", B),
                ("GET", "/admin/roles", B),
                ("GET", "/repository/importers", B),
            ]
        ),
        case!(
            routing::malformed_json_is_400,
            AnyServer,
            [
                ("POST", "/repository/createFolder", B),
                ("POST", "/repository/model/export", B)
            ]
        ),
        case!(
            routing::body_over_limit_is_413,
            SmallBodyLimit,
            [
                ("POST", "/repository/model/import", B),
                ("POST", "/repository/createFolder", B)
            ]
        ),
        case!(routing::healthz_answers_ok, AnyServer, []),
        case!(routing::openapi_document_is_served, AnyServer, []),
        case!(routing::every_gated_route_needs_a_key, AnyServer, []),
    ]
}
