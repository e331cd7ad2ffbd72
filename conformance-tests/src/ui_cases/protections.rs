//! The browser protections checked on every screen: a policy violation and a frame of
//! another origin are caught.

use serde_json::json;

use crate::browser::Browser;
use crate::harness::Target;

/// The checks every screen passes ([`Browser::check_protections`]) see what they
/// claim: a style attribute set by a script is reported both by the
/// `securitypolicyviolation` listener and by Chromium's console. And a page of another
/// origin cannot show the UI in a frame: the framed administration page stays blank
/// (Chromium's error page), while a page of a third origin that sets no protection
/// shows in the frame beside it.
pub(super) async fn policy_violations_and_framing_are_caught(t: &Target, b: &mut Browser) {
    b.login(&t.user, &t.password).await;
    b.goto("/ui/admin/users").await;
    b.find("#signed-in-user").await;
    let before = b.checked_answers;
    b.run("document.body.setAttribute('style', 'outline: 1px solid red'); return true;")
        .await;
    b.wait_until(
        "the violation event",
        "sessionStorage.getItem('loreCspViolations')",
    )
    .await;
    let failures = b.protection_failures().await;
    assert!(
        b.checked_answers > before,
        "the page's answers reached the header check"
    );
    assert!(
        failures
            .iter()
            .any(|f| f.starts_with("securitypolicyviolation: style-src-attr")),
        "{failures:#?}"
    );
    assert!(
        failures
            .iter()
            .any(|f| f.starts_with("console:") && f.contains("inline style")),
        "{failures:#?}"
    );
    assert_eq!(
        b.run("return getComputedStyle(document.body).outlineStyle;")
            .await,
        json!("none"),
        "the style was refused"
    );

    // Signed in, as an administrator: what a clickjacking page would frame.
    let framed = format!("{}/ui/admin/users", t.origin());
    let site = crate::browser::AnotherSite::start(&framed).await;
    b.goto_url(&site.frame_url()).await;
    b.wait_until("both frames loaded", "window.framesLoaded === 2")
        .await;
    b.client.enter_frame(1).await.expect("the control frame");
    let control = b.source().await;
    b.client.enter_parent_frame().await.expect("back out");
    assert!(
        control.contains("A page of a third origin"),
        "the control frame shows its page: {control}"
    );
    b.client.enter_frame(0).await.expect("the frame of Lore");
    let inside = b.source().await;
    let address = b
        .client
        .current_url()
        .await
        .expect("the frame's address")
        .to_string();
    b.client.enter_parent_frame().await.expect("back out");
    assert!(
        !address.starts_with(&t.origin()),
        "the frame shows no Lore page: {address}"
    );
    for lore in ["signed-in-user", "csrf", "Lore", "Users"] {
        assert!(!inside.contains(lore), "the frame shows {lore}: {inside}");
    }
    let failures = b.protection_failures().await;
    assert!(
        failures
            .iter()
            .any(|f| f.contains("frame-ancestors 'none'")),
        "Chromium blocked the frame for the policy: {failures:#?}"
    );
    assert!(
        failures.iter().all(|f| f.contains("frame-ancestors")),
        "nothing else: {failures:#?}"
    );
    b.goto("/ui/").await;
    b.find("#signed-in-user").await;
}
