//! POST /auth/loginOAuth2 against a real OpenID provider ([`Target::provider`]).

use std::time::Duration;

use base64::Engine;
use reqwest::Method;
use reqwest::header::AUTHORIZATION;
use serde_json::{Value, json};

use crate::harness::{Resp, Target, assert_error, unique};
use crate::oauth_provider::{AUDIENCE, subject_of};

const PATH: &str = "/auth/loginOAuth2";

async fn login_with(t: &Target, query: &[(&str, &str)], body: Value) -> Resp {
    t.send(t.anon(Method::POST, PATH).query(query).json(&body))
        .await
}

async fn login(t: &Target, token: &str) -> Resp {
    login_with(t, &[], json!({ "token": token })).await
}

/// The key of a successful login, read from `result.token`.
#[track_caller]
fn key_of(resp: &Resp) -> String {
    resp.ok()["token"]
        .as_str()
        .filter(|k| !k.is_empty())
        .unwrap_or_else(|| panic!("no result.token: {}", resp.describe()))
        .to_owned()
}

/// Asserts a 401 AUTHENTICATION_ERROR whose message says `why` and does not repeat the
/// token.
#[track_caller]
fn assert_refused(resp: &Resp, why: &str, token: &str) {
    assert_error(resp, 401, "AUTHENTICATION_ERROR");
    let message = resp.message();
    assert!(
        message.contains(why),
        "the message should say '{why}': {message}"
    );
    assert!(
        !resp.text().contains(token),
        "the answer must not echo the token: {message}"
    );
}

/// Links the suite's user (an administrator with a password) to the provider's account
/// of that name, as an administrator does: `PUT /admin/users/{user}/identity` with the
/// subject only (the issuer is the configured one).
async fn link_suite_user(t: &Target) {
    let resp = t
        .put(
            &format!("/admin/users/{}/identity", t.user),
            &[],
            &json!({"subject": subject_of(&t.user)}),
        )
        .await;
    assert_eq!(
        resp.ok()["externalIdentity"]["issuer"],
        json!(t.provider().issuer),
        "the issuer defaults to the configured one"
    );
}

/// The status of GET /types/listProfiles with the key: 200, 401 or 403.
async fn status_with(t: &Target, key: &str) -> u16 {
    t.send(
        t.anon(Method::GET, "/types/listProfiles")
            .header("api-key", key),
    )
    .await
    .status
}

pub async fn oauth2_token_logs_in_and_the_key_works(t: &Target) {
    let p = t.provider();
    // Before an administrator links the account, a token naming it does not reach it.
    let token = p.token_for(&t.user).await;
    assert_refused(&login(t, &token).await, "no Lore user is linked", &token);
    link_suite_user(t).await;
    // The user is found by subject: the name the token carries does not matter.
    let token = p
        .token(json!({"preferred_username": "renamed-at-the-provider", "sub": subject_of(&t.user), "aud": AUDIENCE}))
        .await;
    let resp = login(t, &token).await;
    let key = key_of(&resp);
    assert_eq!(status_with(t, &key).await, 200, "the key works elsewhere");
    // The other body field names, and the Authorization header.
    for field in ["accessToken", "access_token"] {
        let resp = login_with(t, &[], json!({ field: p.token_for(&t.user).await })).await;
        assert_eq!(status_with(t, &key_of(&resp)).await, 200, "{field}");
    }
    let header = format!("Bearer {}", p.token_for(&t.user).await);
    let resp = t
        .send(t.anon(Method::POST, PATH).header(AUTHORIZATION, header))
        .await;
    let second = key_of(&resp);
    assert_ne!(second, key, "each login opens a session of its own");
    assert_eq!(status_with(t, &second).await, 200);
    assert_eq!(
        status_with(t, &key).await,
        200,
        "a plain login ends no session"
    );
    // Groups in the token (mapped or not) do not stand in the way.
    let token = p
        .token(json!({"preferred_username": t.user, "aud": AUDIENCE, "groups": ["lore-admins", "other"]}))
        .await;
    key_of(&login(t, &token).await);
    // An audience list that names Lore is fine; so is a token expired within the leeway.
    let token = p
        .token(json!({"preferred_username": t.user, "aud": ["other-app", AUDIENCE]}))
        .await;
    key_of(&login(t, &token).await);
    let token = p
        .token_with(
            json!({"preferred_username": t.user, "aud": AUDIENCE}),
            -20,
            "issuer",
        )
        .await;
    key_of(&login(t, &token).await);
}

pub async fn oauth2_force_login_ends_other_sessions(t: &Target) {
    let p = t.provider();
    link_suite_user(t).await;
    let password_key = t.login().await;
    let oauth_key = key_of(&login(t, &p.token_for(&t.user).await).await);
    let resp = login_with(
        t,
        &[("forceLogin", "true")],
        json!({"token": p.token_for(&t.user).await}),
    )
    .await;
    let forced = key_of(&resp);
    assert_eq!(status_with(t, &password_key).await, 401);
    assert_eq!(status_with(t, &oauth_key).await, 401);
    assert_eq!(status_with(t, &forced).await, 200);
    let resp = login_with(
        t,
        &[("forceLogin", "maybe")],
        json!({"token": p.token_for(&t.user).await}),
    )
    .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
}

pub async fn oauth2_expired_and_not_yet_valid_tokens_are_refused(t: &Target) {
    let p = t.provider();
    let claims = json!({"preferred_username": t.user, "aud": AUDIENCE});
    let expired = p.token_with(claims.clone(), -3600, "issuer").await;
    assert_refused(&login(t, &expired).await, "expired", &expired);
    let now = chrono::Utc::now().timestamp();
    let early = p
        .token(json!({"preferred_username": t.user, "aud": AUDIENCE, "nbf": now + 3600}))
        .await;
    assert_refused(&login(t, &early).await, "not yet valid", &early);
    let no_exp = p
        .token(json!({"preferred_username": t.user, "aud": AUDIENCE, "exp": null}))
        .await;
    assert_refused(&login(t, &no_exp).await, "'exp'", &no_exp);
}

pub async fn oauth2_wrong_issuer_and_audience_are_refused(t: &Target) {
    let p = t.provider();
    let foreign = p
        .token(json!({"preferred_username": t.user, "aud": AUDIENCE, "iss": "https://evil.example.org"}))
        .await;
    assert_refused(&login(t, &foreign).await, "wrong issuer", &foreign);
    let other_app = p
        .token(json!({"preferred_username": t.user, "aud": "other-app"}))
        .await;
    assert_refused(&login(t, &other_app).await, "wrong audience", &other_app);
    let no_aud = p.token(json!({"preferred_username": t.user})).await;
    assert_refused(&login(t, &no_aud).await, "'aud'", &no_aud);
}

pub async fn oauth2_wrongly_signed_tokens_are_refused(t: &Target) {
    let p = t.provider();
    let claims = json!({"preferred_username": t.user, "aud": AUDIENCE});
    let forged = p.token_with(claims.clone(), 3600, "wrong-key").await;
    assert_refused(&login(t, &forged).await, "bad signature", &forged);
    let unknown = p.token_with(claims.clone(), 3600, "unknown-key").await;
    assert_refused(&login(t, &unknown).await, "unknown key", &unknown);
    // A genuine token whose payload was changed no longer verifies.
    let genuine = p.token_for("someone-else").await;
    let parts: Vec<&str> = genuine.split('.').collect();
    let payload = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(json!({"preferred_username": t.user, "aud": AUDIENCE, "iss": p.issuer, "exp": chrono::Utc::now().timestamp() + 600}).to_string());
    let tampered = format!("{}.{payload}.{}", parts[0], parts[2]);
    assert_refused(&login(t, &tampered).await, "bad signature", &tampered);
    // An unsigned token (alg "none") is never accepted.
    let header = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .encode(json!({"alg": "none", "typ": "JWT"}).to_string());
    let unsigned = format!("{header}.{payload}.");
    assert_error(&login(t, &unsigned).await, 401, "AUTHENTICATION_ERROR");
}

pub async fn oauth2_rotated_key_works_after_rotation(t: &Target) {
    let p = t.provider();
    link_suite_user(t).await;
    key_of(&login(t, &p.token_for(&t.user).await).await);
    assert_eq!(
        p.stats().await["jwksFetches"],
        json!(1),
        "the JWKS is cached"
    );
    key_of(&login(t, &p.token_for(&t.user).await).await);
    assert_eq!(
        p.stats().await["jwksFetches"],
        json!(1),
        "the JWKS is cached"
    );
    // The JWKS is read again on an unknown key at most once per 10 seconds.
    tokio::time::sleep(Duration::from_millis(10_500)).await;
    p.rotate().await;
    let token = p.token_for(&t.user).await;
    let key = key_of(&login(t, &token).await);
    assert_eq!(status_with(t, &key).await, 200);
    assert_eq!(p.stats().await["jwksFetches"], json!(2));
    // Tokens of unpublished keys do not make Lore read the JWKS on every call.
    for _ in 0..3 {
        let unknown = p
            .token_with(
                json!({"preferred_username": t.user, "aud": AUDIENCE}),
                3600,
                "unknown-key",
            )
            .await;
        assert_refused(&login(t, &unknown).await, "unknown key", &unknown);
    }
    assert_eq!(p.stats().await["jwksFetches"], json!(2));
}

pub async fn oauth2_opaque_tokens_are_introspected(t: &Target) {
    let p = t.provider();
    link_suite_user(t).await;
    let active = p
        .opaque(json!({"preferred_username": t.user, "aud": AUDIENCE}))
        .await;
    let key = key_of(&login(t, &active).await);
    assert_eq!(status_with(t, &key).await, 200);
    assert_eq!(p.stats().await["introspections"], json!(1));
    let inactive = p
        .opaque(json!({"active": false, "preferred_username": t.user, "aud": AUDIENCE}))
        .await;
    assert_refused(&login(t, &inactive).await, "inactive", &inactive);
    let unknown = "never-issued-token";
    assert_refused(&login(t, unknown).await, "inactive", unknown);
    let other_app = p
        .opaque(json!({"preferred_username": t.user, "aud": "other-app"}))
        .await;
    assert_refused(&login(t, &other_app).await, "wrong audience", &other_app);
    let foreign = p
        .opaque(json!({"preferred_username": t.user, "aud": AUDIENCE, "iss": "https://evil.example.org"}))
        .await;
    assert_refused(&login(t, &foreign).await, "wrong issuer", &foreign);
    let expired = p
        .opaque(json!({"preferred_username": t.user, "aud": AUDIENCE, "exp": chrono::Utc::now().timestamp() - 3600}))
        .await;
    assert_refused(&login(t, &expired).await, "expired", &expired);
    let nameless = p.opaque(json!({"aud": AUDIENCE, "sub": "1234"})).await;
    assert_refused(&login(t, &nameless).await, "preferred_username", &nameless);
}

pub async fn oauth2_unknown_user_is_refused_without_create_users(t: &Target) {
    let p = t.provider();
    let name = unique("stranger");
    let token = p.token_for(&name).await;
    assert_refused(&login(t, &token).await, "no Lore user is linked", &token);
    if let Some(store) = t.store() {
        assert!(
            store.user_by_name(&name).await.expect("a read").is_none(),
            "no user is created without auth.oauth2.create_users"
        );
    }
}

pub async fn oauth2_unknown_user_is_created_with_create_users(t: &Target) {
    let p = t.provider();
    let name = unique("newcomer");
    let token = p
        .token(json!({
            "preferred_username": name, "aud": AUDIENCE, "name": "New Comer",
            "email": "newcomer@example.org", "groups": ["stewards"],
        }))
        .await;
    let key = key_of(&login(t, &token).await);
    // Logged in, without roles: authenticated but not allowed to read metadata.
    assert_eq!(status_with(t, &key).await, 403);
    // The mapped group was created and the user joined it; a group the provider does
    // not manage is kept across logins, a managed one the token no longer names is left.
    let groups_of = |name: String| async move {
        let resp = t.get_q("/admin/groups", &[("member", &name)]).await;
        let mut names: Vec<String> = resp
            .ok_array()
            .iter()
            .map(|g| g["name"].as_str().expect("name").to_owned())
            .collect();
        names.sort();
        names
    };
    assert_eq!(groups_of(name.clone()).await, ["Stewards"]);
    let own = unique("Local");
    t.post(
        "/admin/groups",
        &[],
        &json!({"name": own, "members": [name]}),
    )
    .await
    .ok();
    let token = p
        .token(json!({"preferred_username": name, "aud": AUDIENCE, "groups": ["lore-admins"]}))
        .await;
    key_of(&login(t, &token).await);
    let mut expected = vec!["Administrators".to_owned(), own.clone()];
    expected.sort();
    assert_eq!(groups_of(name.clone()).await, expected);
    let token = p
        .token(json!({"preferred_username": name, "aud": AUDIENCE, "groups": []}))
        .await;
    key_of(&login(t, &token).await);
    assert_eq!(groups_of(name.clone()).await, [own]);
    let store = t.store().expect("a local target");
    let user = store
        .user_by_name(&name)
        .await
        .expect("a read")
        .expect("the user was created");
    assert!(user.enabled);
    assert!(user.password_hash.is_none());
    assert_eq!(user.full_name, "New Comer");
    assert_eq!(user.email, "newcomer@example.org");
    assert!(
        user.external
            == Some(lore_core::model::ExternalLink::Subject {
                issuer: p.issuer.clone(),
                subject: subject_of(&name)
            }),
        "created linked to the token's issuer and subject: {:?}",
        user.external
    );
    // The next login finds the same user by subject, whatever name the token carries.
    let renamed = p
        .token(json!({"preferred_username": name.to_uppercase(), "sub": subject_of(&name), "aud": AUDIENCE}))
        .await;
    let again = key_of(&login(t, &renamed).await);
    assert_eq!(status_with(t, &again).await, 403);
    assert_eq!(
        store
            .user_by_name(&name)
            .await
            .expect("a read")
            .map(|u| u.id),
        Some(user.id)
    );
    // The account has no password to log in with.
    let resp = t
        .send(
            t.anon(Method::POST, "/auth/login")
                .json(&json!({"user": name, "password": ""})),
        )
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
}

/// A token of another account at the provider that names an existing Lore user, in any
/// case, never signs in as them: not the suite's administrator, not `Administrator`,
/// even with `forceLogin` (which would end their sessions); a look-alike name makes an
/// account of its own, without rights.
pub async fn oauth2_name_claims_never_take_an_account(t: &Target) {
    let p = t.provider();
    let admin_key = t.key().await;
    for name in [
        t.user.clone(),
        t.user.to_uppercase(),
        t.user.to_lowercase(),
        "Administrator".to_owned(),
        "ADMINISTRATOR".to_owned(),
    ] {
        let token = p
            .token(json!({"preferred_username": name, "sub": "attacker", "aud": AUDIENCE}))
            .await;
        let resp = login_with(t, &[("forceLogin", "true")], json!({ "token": token })).await;
        assert_refused(&resp, "belongs to a Lore user that is not linked", &token);
    }
    assert_eq!(
        status_with(t, &admin_key).await,
        200,
        "the administrator's session is untouched"
    );
    let users = t.get("/admin/users").await;
    assert!(
        users
            .ok_array()
            .iter()
            .all(|u| u["externalIdentity"].is_null()),
        "no refused sign-in linked an account: {}",
        users.describe()
    );
    // A look-alike (Cyrillic 'А', Kelvin sign) is another account, without rights.
    for (i, name) in ["\u{410}dministrator", "\u{212A}elvin"]
        .into_iter()
        .enumerate()
    {
        let token = p
            .token(json!({"preferred_username": name, "sub": format!("look-alike-{i}"), "aud": AUDIENCE}))
            .await;
        let key = key_of(&login(t, &token).await);
        assert_eq!(status_with(t, &key).await, 403, "{name} has no rights");
        let resp = t
            .send(t.anon(Method::GET, "/admin/users").header("api-key", &key))
            .await;
        assert_error(&resp, 403, "PERMISSION_DENIED");
    }
}

/// Refused sign-ins count against the client's address as failed password logins do:
/// after 30, even a good token is refused with 429 for a while, and so is a password.
pub async fn oauth2_refused_sign_ins_are_throttled(t: &Target) {
    let p = t.provider();
    link_suite_user(t).await;
    for _ in 0..30 {
        let garbage = "not.a.jwt";
        assert_refused(&login(t, garbage).await, "JWT", garbage);
    }
    let good = p.token_for(&t.user).await;
    let resp = login(t, &good).await;
    assert_error(&resp, 429, "TOO_MANY_LOGIN_ATTEMPTS");
    assert!(
        resp.message().contains("from this address"),
        "{}",
        resp.message()
    );
    let resp = t
        .send(
            t.anon(Method::POST, "/auth/login")
                .json(&json!({"user": t.user, "password": t.password})),
        )
        .await;
    assert_error(&resp, 429, "TOO_MANY_LOGIN_ATTEMPTS");
}

pub async fn oauth2_disabled_user_is_refused(t: &Target) {
    use lore_core::id::{ObjectId, REPOSITORY_MODEL};
    use lore_core::model::User;
    use lore_core::store::Op;

    let p = t.provider();
    let store = t.store().expect("a local target");
    let name = unique("disabled");
    let id = ObjectId::repository(store.reserve_ids(REPOSITORY_MODEL, 1).await.expect("an id"));
    store
        .apply(
            vec![Op::PutUser(User {
                id,
                name: name.clone(),
                full_name: name.clone(),
                email: String::new(),
                description: String::new(),
                password_hash: None,
                enabled: false,
                created_at: lore_core::model::now(),
                external: Some(lore_core::model::ExternalLink::Subject {
                    issuer: p.issuer.clone(),
                    subject: subject_of(&name),
                }),
            })]
            .into(),
        )
        .await
        .expect("writing the user");
    let token = p.token_for(&name).await;
    assert_refused(&login(t, &token).await, "disabled", &token);
}

pub async fn oauth2_missing_token_or_user_claim(t: &Target) {
    let p = t.provider();
    let none = t.send(t.anon(Method::POST, PATH)).await;
    assert_error(&none, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    for body in [json!({}), json!({"token": ""}), json!({"user": t.user})] {
        assert_error(
            &login_with(t, &[], body).await,
            400,
            "REQUIRED_PARAMETER_NOT_SPECIFIED",
        );
    }
    let basic = t
        .send(
            t.anon(Method::POST, PATH)
                .header(AUTHORIZATION, "Basic dXNlcjpwYXNz"),
        )
        .await;
    assert_error(&basic, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let malformed = t
        .send(
            t.anon(Method::POST, PATH)
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body("{\"token\": "),
        )
        .await;
    assert_error(&malformed, 400, "INVALID_PARAMETER");
    // The user claim is required: no silent fallback to `sub`.
    let nameless = p
        .token(json!({"aud": AUDIENCE, "sub": "user-1234", "preferred_username": null}))
        .await;
    assert_refused(
        &login(t, &nameless).await,
        "'preferred_username'",
        &nameless,
    );
    let garbage = "not.a.jwt";
    assert_refused(&login(t, garbage).await, "JWT", garbage);
}

pub async fn oauth2_login_not_configured(t: &Target) {
    let resp = login(t, "a.b.c").await;
    assert_error(&resp, 400, "OPERATION_NOT_SUPPORTED");
    assert!(
        resp.message().contains("not configured"),
        "{}",
        resp.message()
    );
    let resp = t.send(t.anon(Method::POST, PATH)).await;
    assert_error(&resp, 400, "OPERATION_NOT_SUPPORTED");
}
