//! The sign-in screens: the login form and logout, and OpenID Connect.

use serde_json::json;

use super::new_user;
use crate::browser::Browser;
use crate::harness::Target;

pub(super) async fn password_login_and_logout(t: &Target, b: &mut Browser) {
    // A page without a session leads to the login form, and back after it.
    b.goto("/ui/browse").await;
    b.find("#login-button").await;
    assert!(
        b.at().await.starts_with("/ui/login?next="),
        "{}",
        b.at().await
    );
    b.shot("login-form").await;

    b.login(&t.user, "not the password").await;
    let error = b.text("#login-error").await;
    assert!(!error.is_empty());
    assert!(!error.contains(&t.password));

    b.login(&t.user, &t.password).await;
    assert_eq!(b.text("#signed-in-user").await, t.user);
    assert_eq!(
        b.at().await,
        "/ui/browse",
        "back where the browser was going"
    );
    b.shot("signed-in").await;

    // The cookie holds a key of the API's sessions: logout ends it for the API too.
    let cookie = b
        .client
        .get_named_cookie("lore_session")
        .await
        .expect("the session cookie");
    assert_eq!(cookie.http_only(), Some(true));
    assert_eq!(format!("{:?}", cookie.same_site()), "Some(Lax)");
    let key = cookie.value().to_owned();
    let users = t
        .send(
            t.anon(reqwest::Method::GET, "/admin/users")
                .header("api-key", &key),
        )
        .await;
    assert_eq!(users.status, 200, "{}", users.describe());

    b.find("#logout").await.click().await.expect("Log out");
    b.find("#login-button").await;
    let after = t
        .send(
            t.anon(reqwest::Method::GET, "/admin/users")
                .header("api-key", &key),
        )
        .await;
    assert_eq!(after.status, 401, "{}", after.describe());
    b.goto("/ui/").await;
    b.find("#login-button").await;
    assert!(b.at().await.starts_with("/ui/login"));

    // A form posted from another site is refused: no CSRF token.
    b.login(&t.user, &t.password).await;
    b.find("#signed-in-user").await;
    let status = b
        .client
        .execute_async(
            "const done = arguments[0];
             fetch('/ui/logout', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'csrf=wrong' })
               .then(r => done(r.status));",
            Vec::new(),
        )
        .await
        .expect("posting without the token");
    assert_eq!(status, json!(403));
    b.goto("/ui/").await;
    assert_eq!(b.text("#signed-in-user").await, t.user, "still signed in");

    // A user disabled while signed in is signed out at the next page.
    let (_, name, password) = new_user(t, "ui-disabled").await;
    b.find("#logout").await.click().await.expect("Log out");
    b.login(&name, &password).await;
    assert_eq!(b.text("#signed-in-user").await, name);
    t.put(
        "/admin/users",
        &[],
        &json!({"name": name, "enabled": false}),
    )
    .await
    .ok();
    b.goto("/ui/browse").await;
    b.find("#login-button").await;
    assert!(b.at().await.starts_with("/ui/login"));
}

pub(super) async fn openid_connect_sign_in(t: &Target, b: &mut Browser) {
    // A first sign-in creates the account, with no role: Lore says what is missing.
    b.goto("/ui/browse").await;
    b.find("#oidc-login")
        .await
        .click()
        .await
        .expect("Log in with single sign-on");
    b.wait_until("the refusal", "document.getElementById('message')")
        .await;
    let message = b.text("#message").await;
    assert!(
        message.contains("'johndoe' lacks the capability"),
        "{message}"
    );
    b.find("#message-logout")
        .await
        .click()
        .await
        .expect("Log out");
    b.find("#confirm-logout")
        .await
        .click()
        .await
        .expect("confirm");
    b.find("#login-button").await;
    t.put(
        "/admin/grants/grantGlobalRoles",
        &[],
        &json!({"grantee": "johndoe", "granteeType": "USER", "roles": ["Metadata Viewer"]}),
    )
    .await
    .ok();

    b.goto("/ui/browse").await;
    b.find("#oidc-login")
        .await
        .click()
        .await
        .expect("Log in with single sign-on");
    // The provider (which signs in without asking) sends the browser back, signed in
    // as the user its ID token names.
    b.wait_until(
        "the signed-in page",
        "document.getElementById('signed-in-user')",
    )
    .await;
    assert_eq!(b.text("#signed-in-user").await, "johndoe");
    assert_eq!(b.at().await, "/ui/browse");
    let user = t.get("/admin/users/johndoe").await;
    assert_eq!(user.status, 200, "{}", user.describe());
    b.shot("signed-in").await;
    b.find("#logout").await.click().await.expect("Log out");
    b.find("#login-button").await;

    // An answer that does not belong to this browser's sign-in is refused.
    b.goto("/ui/oidc/callback?code=x&state=forged").await;
    let error = b.text("#login-error").await;
    assert!(
        error.contains("expired") || error.contains("does not belong"),
        "{error}"
    );
    b.goto("/ui/").await;
    b.find("#login-button").await;
}
