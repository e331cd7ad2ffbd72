//! Users (`/admin/users`) and the key lifecycle: administrators create, list, change,
//! disable and delete users; users change their own details and password; a disabled
//! or deleted user's keys stop at once; failed logins are throttled per user name and
//! address.

use reqwest::Method;
use serde_json::{Value, json};

use super::denied::send_as;
use crate::harness::{Resp, Target, assert_error, unique};

const USERS: &str = "/admin/users";

async fn login(t: &Target, user: &str, password: &str) -> Resp {
    t.send(
        t.anon(Method::POST, "/auth/login")
            .json(&json!({"user": user, "password": password})),
    )
    .await
}

async fn key_of(t: &Target, user: &str, password: &str) -> String {
    let resp = login(t, user, password).await;
    resp.ok()["token"]
        .as_str()
        .unwrap_or_else(|| panic!("a key: {}", resp.describe()))
        .to_owned()
}

/// Whether the key still works, on a route any user may call (reading oneself).
async fn key_works(t: &Target, key: &str, user: &str) -> bool {
    let resp = send_as(t, key, Method::GET, &format!("{USERS}/{user}"), &[], None).await;
    match resp.status {
        200 => true,
        401 => false,
        _ => panic!("reading oneself: {}", resp.describe()),
    }
}

async fn create(t: &Target, body: Value) -> Resp {
    t.post(USERS, &[], &body).await
}

pub async fn users_create_list_get_update_delete(t: &Target) {
    let name = unique("ann");
    let resp = create(
        t,
        json!({"name": name, "fullName": "Ann Example", "email": "ann@example.com", "password": "first-password"}),
    )
    .await;
    let user = resp.ok().clone();
    let id = user["id"].as_str().expect("id").to_owned();
    assert!(id.starts_with("-1_"), "{user}");
    assert_eq!(user["name"], json!(name));
    assert_eq!(user["enabled"], json!(true));
    assert_eq!(user["passwordLogin"], json!(true));
    assert!(user.get("passwordHash").is_none() && !user.to_string().contains("argon2"));

    let list = t.get(USERS).await;
    assert!(
        list.ok_array().iter().any(|u| u["id"] == json!(id)),
        "{}",
        list.describe()
    );
    for reference in [id.as_str(), name.as_str()] {
        let resp = t.get(&format!("{USERS}/{reference}")).await;
        assert_eq!(resp.ok()["id"], json!(id), "{}", resp.describe());
    }

    // The user changes their own details and password (the old one is needed).
    let key = key_of(t, &name, "first-password").await;
    let resp = send_as(
        t,
        &key,
        Method::PUT,
        USERS,
        &[],
        Some(json!({"id": id, "fullName": "Ann B. Example", "password": "second-password", "oldPassword": "first-password"})),
    )
    .await;
    assert_eq!(resp.ok()["fullName"], json!("Ann B. Example"));
    assert_error(
        &login(t, &name, "first-password").await,
        401,
        "AUTHENTICATION_ERROR",
    );
    let key = key_of(t, &name, "second-password").await;
    assert!(key_works(t, &key, &id).await);

    // An administrator disables the user: the key fails at once, logins too.
    let resp = t
        .put(USERS, &[], &json!({"name": name, "enabled": false}))
        .await;
    assert_eq!(resp.ok()["enabled"], json!(false));
    assert!(!key_works(t, &key, &id).await);
    assert_error(
        &login(t, &name, "second-password").await,
        401,
        "AUTHENTICATION_ERROR",
    );
    t.put(USERS, &[], &json!({"id": id, "enabled": true}))
        .await
        .ok();

    // An administrator resets the password without the old one.
    t.put(USERS, &[], &json!({"id": id, "password": "third-password"}))
        .await
        .ok();
    let key = key_of(t, &name, "third-password").await;

    // Deleted: gone, its key fails.
    let resp = t.delete(&format!("{USERS}/{id}"), &[]).await;
    assert_eq!(resp.ok(), &json!(""), "{}", resp.describe());
    assert_error(
        &t.get(&format!("{USERS}/{id}")).await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert!(!key_works(t, &key, &id).await);
    assert_error(
        &login(t, &name, "third-password").await,
        401,
        "AUTHENTICATION_ERROR",
    );
}

pub async fn users_bad_input(t: &Target) {
    assert_error(
        &create(t, json!({"password": "long-enough"})).await,
        400,
        "REQUIRED_PARAMETER_NOT_SPECIFIED",
    );
    for name in ["", " padded", "tab\there"] {
        assert_error(
            &create(t, json!({"name": name})).await,
            400,
            "INVALID_PARAMETER",
        );
    }
    let name = unique("bob");
    let resp = create(t, json!({"name": name, "password": "short"})).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    assert!(
        resp.message().contains("8 characters"),
        "{}",
        resp.describe()
    );
    let id = create(t, json!({"name": name, "password": "long-enough"}))
        .await
        .ok()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    assert_error(
        &create(t, json!({"name": name.to_uppercase()})).await,
        409,
        "CONFLICT",
    );
    assert_error(
        &t.get(&format!("{USERS}/{}", unique("nobody"))).await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert_error(
        &t.put(USERS, &[], &json!({"fullName": "no id"})).await,
        400,
        "REQUIRED_PARAMETER_NOT_SPECIFIED",
    );
    assert_error(
        &t.put(USERS, &[], &json!({"id": id, "password": "x"})).await,
        400,
        "INVALID_PARAMETER",
    );
    assert_error(
        &t.delete(&format!("{USERS}/{}", unique("nobody")), &[])
            .await,
        404,
        "OBJECT_NOT_FOUND",
    );
    // Oneself, and so the last administrator, cannot be deleted or disabled.
    let me = t.get(&format!("{USERS}/{}", t.user)).await.ok()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    assert_error(
        &t.delete(&format!("{USERS}/{me}"), &[]).await,
        400,
        "INVALID_PARAMETER",
    );
    let resp = t
        .put(USERS, &[], &json!({"id": me, "enabled": false}))
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");

    // A user changing their own password needs the right old one.
    let key = key_of(t, &name, "long-enough").await;
    for body in [
        json!({"id": id, "password": "new-password"}),
        json!({"id": id, "password": "new-password", "oldPassword": "wrong-password"}),
    ] {
        let resp = send_as(t, &key, Method::PUT, USERS, &[], Some(body)).await;
        assert!(resp.status == 400, "{}", resp.describe());
    }
    assert_error(
        &t.post(USERS, &[], &json!("not an object")).await,
        400,
        "INVALID_PARAMETER",
    );
}

/// A user without the Administer capability reads and changes only themselves.
pub async fn users_without_administer_are_denied(t: &Target) {
    let key = t.key_with_roles(&["Metadata Viewer"]).await;
    let other = create(
        t,
        json!({"name": unique("carol"), "password": "long-enough"}),
    )
    .await
    .ok()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let calls: [(Method, String, Option<Value>); 5] = [
        (Method::GET, USERS.to_owned(), None),
        (
            Method::POST,
            USERS.to_owned(),
            Some(json!({"name": unique("dave")})),
        ),
        (Method::GET, format!("{USERS}/{other}"), None),
        (Method::DELETE, format!("{USERS}/{other}"), None),
        (
            Method::PUT,
            USERS.to_owned(),
            Some(json!({"id": other, "fullName": "x"})),
        ),
    ];
    for (method, path, body) in calls {
        let resp = send_as(t, &key, method.clone(), &path, &[], body).await;
        assert_error(&resp, 403, "PERMISSION_DENIED");
    }
    assert_eq!(
        t.get(&format!("{USERS}/{other}")).await.ok()["fullName"],
        json!("")
    );
}

/// After five failed logins for one user name from one address, the next is refused
/// with 429 (even with the right password) until the wait is over; other user names
/// from the same address still log in.
pub async fn failed_logins_are_throttled(t: &Target) {
    let name = unique("erin");
    create(t, json!({"name": name, "password": "right-password"}))
        .await
        .ok();
    for _ in 0..5 {
        assert_error(
            &login(t, &name, "wrong-password").await,
            401,
            "AUTHENTICATION_ERROR",
        );
    }
    let resp = login(t, &name, "right-password").await;
    assert_error(&resp, 429, "TOO_MANY_LOGIN_ATTEMPTS");
    assert!(
        resp.message().contains("try again in"),
        "{}",
        resp.describe()
    );
    // The lock binds the name and the address, not the address alone.
    let resp = login(t, &t.user, &t.password).await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    // The first wait is a second.
    tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
    let resp = login(t, &name, "right-password").await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
}

/// `PUT` and `DELETE /admin/users/{userId}/identity`: an administrator links a user to
/// an identity provider's account by issuer and subject (shown as `externalIdentity`),
/// marks a user without a password to be linked at their next sign-in, and unlinks.
pub async fn users_identity_link_and_unlink(t: &Target) {
    let name = unique("oidc-user");
    let id = create(t, json!({"name": name})).await.ok()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    assert_eq!(
        t.get(&format!("{USERS}/{id}")).await.ok()["externalIdentity"],
        Value::Null
    );
    let path = format!("{USERS}/{id}/identity");
    let subject = unique("subject");
    let linked = t
        .put(
            &path,
            &[],
            &json!({"issuer": "https://idp.example/", "subject": subject}),
        )
        .await;
    assert_eq!(
        linked.ok()["externalIdentity"],
        json!({"issuer": "https://idp.example/", "subject": subject})
    );
    // By name too, and shown wherever the user is.
    let by_name = format!("{USERS}/{name}");
    assert_eq!(
        t.get(&by_name).await.ok()["externalIdentity"]["subject"],
        json!(subject)
    );
    let marked = t
        .put(
            &format!("{by_name}/identity"),
            &[],
            &json!({"atNextSignIn": true}),
        )
        .await;
    assert_eq!(
        marked.ok()["externalIdentity"],
        json!({"atNextSignIn": true})
    );
    let unlinked = t.delete(&path, &[]).await;
    assert_eq!(unlinked.ok()["externalIdentity"], Value::Null);
    assert_eq!(t.get(&by_name).await.ok()["externalIdentity"], Value::Null);
    // Unlinking again changes nothing.
    assert_eq!(t.delete(&path, &[]).await.ok()["name"], json!(name));
}

pub async fn users_identity_bad_input(t: &Target) {
    let first = create(t, json!({"name": unique("linked")})).await.ok()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let second = create(
        t,
        json!({"name": unique("with-password"), "password": "long-enough"}),
    )
    .await
    .ok()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let subject = unique("taken");
    let identity = json!({"issuer": "https://idp.example/", "subject": subject});
    t.put(&format!("{USERS}/{first}/identity"), &[], &identity)
        .await
        .ok();
    let second_path = format!("{USERS}/{second}/identity");
    let conflict = t.put(&second_path, &[], &identity).await;
    assert_error(&conflict, 409, "CONFLICT");
    assert_eq!(
        t.get(&format!("{USERS}/{second}")).await.ok()["externalIdentity"],
        Value::Null,
        "a refused link leaves the user as it was"
    );
    for (body, status, code) in [
        (json!({}), 400, "REQUIRED_PARAMETER_NOT_SPECIFIED"),
        (
            json!({"issuer": "https://idp.example/"}),
            400,
            "REQUIRED_PARAMETER_NOT_SPECIFIED",
        ),
        (
            json!({"issuer": "https://idp.example/", "subject": "  "}),
            400,
            "REQUIRED_PARAMETER_NOT_SPECIFIED",
        ),
        (
            json!({"issuer": "", "subject": "s"}),
            400,
            "REQUIRED_PARAMETER_NOT_SPECIFIED",
        ),
        (
            json!({"issuer": "https://idp.example/", "subject": "a\u{0}b"}),
            400,
            "INVALID_PARAMETER",
        ),
        (
            json!({"issuer": "https://idp.example/", "subject": "x".repeat(1025)}),
            400,
            "INVALID_PARAMETER",
        ),
        (
            json!({"issuer": "https://idp.example/", "subject": "s", "atNextSignIn": true}),
            400,
            "INVALID_PARAMETER",
        ),
        (
            json!({"issuer": "https://idp.example/", "subject": "s", "sub": "s"}),
            400,
            "INVALID_PARAMETER",
        ),
        (json!({"subject": 5}), 400, "INVALID_PARAMETER"),
        // A user with a password cannot be found by a name claim.
        (json!({"atNextSignIn": true}), 400, "INVALID_PARAMETER"),
    ] {
        let resp = t.put(&second_path, &[], &body).await;
        assert_error(&resp, status, code);
    }
    // Without an issuer, only a server with OAuth 2.0 configured has one to default to.
    let resp = t.put(&second_path, &[], &json!({"subject": "s"})).await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    assert!(resp.message().contains("issuer"), "{}", resp.message());
    for (method, path) in [
        (
            Method::PUT,
            format!("{USERS}/{}/identity", unique("nobody")),
        ),
        (
            Method::DELETE,
            format!("{USERS}/{}/identity", unique("nobody")),
        ),
        (Method::DELETE, format!("{USERS}/-1_999999999/identity")),
    ] {
        let resp = t
            .send(
                t.call(method, &path)
                    .await
                    .json(&json!({"issuer": "i", "subject": "s"})),
            )
            .await;
        assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    }
}

/// Only an administrator links or unlinks, themselves included.
pub async fn users_identity_without_administer_is_denied(t: &Target) {
    let (name, key) = t.user_with_roles(&["Metadata Viewer"]).await;
    let path = format!("{USERS}/{name}/identity");
    for (method, body) in [
        (
            Method::PUT,
            Some(json!({"issuer": "https://idp.example/", "subject": "mine"})),
        ),
        (Method::DELETE, None),
    ] {
        let resp = send_as(t, &key, method, &path, &[], body).await;
        assert_error(&resp, 403, "PERMISSION_DENIED");
    }
    assert_eq!(
        t.get(&format!("{USERS}/{name}")).await.ok()["externalIdentity"],
        Value::Null
    );
}
