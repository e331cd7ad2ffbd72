//! POST /auth/login, /auth/loginPlainText and /auth/logout.

use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use serde_json::json;

use crate::harness::{Target, assert_error};

/// Whether a key works: GET /types/listProfiles with it in the named header.
async fn works_with(t: &Target, key: &str, header: &str) -> bool {
    let resp = t
        .send(
            t.anon(Method::GET, "/types/listProfiles")
                .header(header, key),
        )
        .await;
    match resp.status {
        200 => true,
        401 => {
            assert_error(&resp, 401, "AUTHENTICATION_ERROR");
            false
        }
        _ => panic!("unexpected answer to a key check: {}", resp.describe()),
    }
}

async fn login_body(
    t: &Target,
    path: &str,
    query: &[(&str, &str)],
    body: serde_json::Value,
) -> crate::harness::Resp {
    t.send(t.anon(Method::POST, path).query(query).json(&body))
        .await
}

pub async fn login_token_works_in_both_headers(t: &Target) {
    let resp = login_body(
        t,
        "/auth/login",
        &[],
        json!({"user": t.user, "password": t.password}),
    )
    .await;
    let result = resp.ok();
    let key = result["token"].as_str().expect("result.token is a string");
    assert!(!key.is_empty(), "result.token is empty");
    assert!(
        works_with(t, key, "api-key").await,
        "the key fails in the api-key header"
    );
    assert!(
        works_with(t, key, "api_key").await,
        "the key fails in the api_key header"
    );
    // A second login opens a second session; both keys work.
    let second = t.login().await;
    assert_ne!(second, key, "two logins must give two keys");
    assert!(works_with(t, &second, "api-key").await);
    assert!(
        works_with(t, key, "api-key").await,
        "a plain login must not end other sessions"
    );
}

pub async fn login_user_name_is_case_insensitive(t: &Target) {
    for user in [t.user.to_lowercase(), t.user.to_uppercase()] {
        let resp = login_body(
            t,
            "/auth/login",
            &[],
            json!({"user": user, "password": t.password}),
        )
        .await;
        let key = resp.ok()["token"]
            .as_str()
            .expect("result.token")
            .to_owned();
        assert!(works_with(t, &key, "api-key").await);
    }
    // A charset in the content type is fine.
    let resp = t
        .send(
            t.anon(Method::POST, "/auth/login")
                .header(CONTENT_TYPE, "application/json; charset=UTF-8")
                .body(json!({"user": t.user, "password": t.password}).to_string()),
        )
        .await;
    assert!(resp.ok()["token"].is_string());
    // The old field name `username` is read too.
    let resp = login_body(
        t,
        "/auth/login",
        &[],
        json!({"username": t.user, "password": t.password}),
    )
    .await;
    assert!(resp.ok()["token"].is_string());
    // forceLogin=false is an ordinary login.
    let resp = login_body(
        t,
        "/auth/login",
        &[("forceLogin", "false")],
        json!({"user": t.user, "password": t.password}),
    )
    .await;
    assert!(resp.ok()["token"].is_string());
}

pub async fn login_wrong_password(t: &Target) {
    let wrong = format!("{}-wrong", t.password);
    let resp = login_body(
        t,
        "/auth/login",
        &[],
        json!({"user": t.user, "password": wrong}),
    )
    .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
    let resp = login_body(
        t,
        "/auth/login",
        &[],
        json!({"user": t.user, "password": ""}),
    )
    .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
    let resp = login_body(
        t,
        "/auth/login",
        &[],
        json!({"user": crate::harness::unique("nobody"), "password": t.password}),
    )
    .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
    // The password is case-sensitive.
    if t.password.to_uppercase() != t.password {
        let resp = login_body(
            t,
            "/auth/login",
            &[],
            json!({"user": t.user, "password": t.password.to_uppercase()}),
        )
        .await;
        assert_error(&resp, 401, "AUTHENTICATION_ERROR");
    }
}

pub async fn login_missing_or_malformed_body(t: &Target) {
    let resp = login_body(t, "/auth/login", &[], json!({"password": t.password})).await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let resp = login_body(t, "/auth/login", &[], json!({"user": t.user})).await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    // Body keys are case-sensitive.
    let resp = login_body(
        t,
        "/auth/login",
        &[],
        json!({"User": t.user, "Password": t.password}),
    )
    .await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let resp = login_body(
        t,
        "/auth/login",
        &[],
        json!({"user": "", "password": t.password}),
    )
    .await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let resp = t
        .send(
            t.anon(Method::POST, "/auth/login")
                .header(CONTENT_TYPE, "application/json")
                .body("{\"user\": "),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .send(
            t.anon(Method::POST, "/auth/login")
                .header(CONTENT_TYPE, "application/json")
                .body("[1, 2]"),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = login_body(
        t,
        "/auth/login",
        &[("forceLogin", "maybe")],
        json!({"user": t.user, "password": t.password}),
    )
    .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    // Not JSON at all.
    let resp = t
        .send(
            t.anon(Method::POST, "/auth/login")
                .header(CONTENT_TYPE, "text/plain")
                .body(format!("user={}&password={}", t.user, t.password)),
        )
        .await;
    assert_error(&resp, 415, "UNSUPPORTED_MEDIA_TYPE");
}

pub async fn login_force_login_ends_other_sessions(t: &Target) {
    let first = t.login().await;
    let plain = login_body(
        t,
        "/auth/loginPlainText",
        &[],
        json!({"user": t.user, "password": t.password}),
    )
    .await;
    assert_eq!(plain.status, 200, "{}", plain.describe());
    let second = plain.text();
    assert!(works_with(t, &first, "api-key").await);
    assert!(works_with(t, &second, "api-key").await);

    let resp = login_body(
        t,
        "/auth/login",
        &[("forceLogin", "true")],
        json!({"user": t.user, "password": t.password}),
    )
    .await;
    let forced = resp.ok()["token"]
        .as_str()
        .expect("result.token")
        .to_owned();
    assert!(
        works_with(t, &forced, "api-key").await,
        "the forced login's key must work"
    );
    assert!(
        !works_with(t, &first, "api-key").await,
        "forceLogin=true must end the other sessions"
    );
    assert!(
        !works_with(t, &second, "api_key").await,
        "forceLogin=true must end the other sessions"
    );

    // loginPlainText takes forceLogin too.
    let resp = login_body(
        t,
        "/auth/loginPlainText",
        &[("forceLogin", "TRUE")],
        json!({"user": t.user, "password": t.password}),
    )
    .await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    let last = resp.text();
    assert!(works_with(t, &last, "api-key").await);
    assert!(
        !works_with(t, &forced, "api-key").await,
        "forceLogin=TRUE on loginPlainText must end the other sessions"
    );
}

pub async fn login_plain_text_returns_bare_key(t: &Target) {
    let resp = login_body(
        t,
        "/auth/loginPlainText",
        &[],
        json!({"user": t.user, "password": t.password}),
    )
    .await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    assert!(
        resp.content_type().starts_with("text/plain"),
        "loginPlainText must answer text/plain, not '{}'",
        resp.content_type()
    );
    let key = resp.text();
    assert!(!key.is_empty());
    assert_eq!(
        key.trim(),
        key,
        "the bare key has no surrounding whitespace"
    );
    assert!(
        !key.starts_with('{') && !key.starts_with('"'),
        "the key must be bare, not JSON: {key}"
    );
    assert!(works_with(t, &key, "api-key").await);
    assert!(works_with(t, &key, "api_key").await);
}

pub async fn login_plain_text_bad_input(t: &Target) {
    let resp = login_body(
        t,
        "/auth/loginPlainText",
        &[],
        json!({"user": t.user, "password": format!("{}x", t.password)}),
    )
    .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
    let resp = login_body(t, "/auth/loginPlainText", &[], json!({"user": t.user})).await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let resp = t
        .send(
            t.anon(Method::POST, "/auth/loginPlainText")
                .header(CONTENT_TYPE, "application/json")
                .body("not json"),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
}

/// Logs out `key` with the request `build` makes, then checks the key fails.
async fn logout_then_key_fails(t: &Target, key: &str, request: reqwest::RequestBuilder) {
    let resp = t.send(request).await;
    assert_eq!(resp.ok(), &json!(""), "logout answers result \"\"");
    assert!(
        !works_with(t, key, "api-key").await,
        "the key must fail after logout"
    );
    assert!(
        !works_with(t, key, "api_key").await,
        "the key must fail after logout"
    );
    let resp = t
        .send(
            t.anon(Method::GET, "/types/listProfiles")
                .header("api-key", key),
        )
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
}

pub async fn logout_text_plain_without_body(t: &Target) {
    let key = t.login().await;
    let other = t.login().await;
    let request = t
        .anon(Method::POST, "/auth/logout")
        .header("api-key", &key)
        .header(CONTENT_TYPE, "text/plain");
    logout_then_key_fails(t, &key, request).await;
    assert!(
        works_with(t, &other, "api-key").await,
        "logout ends only its own session"
    );
    // No content type and no body at all.
    let request = t
        .anon(Method::POST, "/auth/logout")
        .header("api-key", &other);
    logout_then_key_fails(t, &other, request).await;
}

pub async fn logout_json_empty_object_and_old_header(t: &Target) {
    let key = t.login().await;
    let request = t
        .anon(Method::POST, "/auth/logout")
        .header("api-key", &key)
        .json(&json!({}));
    logout_then_key_fails(t, &key, request).await;
    // The pre-11.1 header name works for logout too.
    let key = t.login().await;
    let request = t
        .anon(Method::POST, "/auth/logout")
        .header("api_key", &key)
        .header(CONTENT_TYPE, "application/json")
        .body("{}");
    logout_then_key_fails(t, &key, request).await;
}

pub async fn logout_bad_keys(t: &Target) {
    let resp = t.send(t.anon(Method::POST, "/auth/logout")).await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
    let resp = t
        .send(
            t.anon(Method::POST, "/auth/logout")
                .header("api-key", "not-a-key"),
        )
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
    // A key logged out once cannot log out again.
    let key = t.login().await;
    let resp = t
        .send(t.anon(Method::POST, "/auth/logout").header("api-key", &key))
        .await;
    resp.ok();
    let resp = t
        .send(t.anon(Method::POST, "/auth/logout").header("api-key", &key))
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
}

pub async fn login_key_expires_after_login_timeout(t: &Target) {
    // The target runs with auth.login_timeout = 5s: long enough for a password login
    // (argon2, unoptimized in test builds) on a loaded machine. Each key is tried right
    // after its own login.
    let key = t.login().await;
    assert!(works_with(t, &key, "api-key").await);
    let resp = t
        .send(
            t.anon(Method::POST, "/auth/loginPlainText")
                .json(&json!({"user": t.user, "password": t.password})),
        )
        .await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    let plain = resp.text();
    assert!(works_with(t, &plain, "api_key").await);
    tokio::time::sleep(std::time::Duration::from_millis(6000)).await;
    assert!(
        !works_with(t, &key, "api-key").await,
        "a key fails once auth.login_timeout has passed"
    );
    assert!(
        !works_with(t, &plain, "api_key").await,
        "a key fails once auth.login_timeout has passed"
    );
    let resp = t
        .send(t.anon(Method::POST, "/auth/logout").header("api-key", &key))
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
    // A new login works again.
    let fresh = t.login().await;
    assert!(works_with(t, &fresh, "api-key").await);
}
