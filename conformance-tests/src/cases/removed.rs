//! Methods removed in release 11.0: 410 METHOD_REMOVED, the message naming the
//! replacement.

use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use serde_json::json;

use super::{B, Case, N, Needs};
use crate::harness::{Target, assert_error};

/// A concrete path for an OpenAPI path template.
fn concrete(path: &str) -> String {
    path.replace("{objectId}", "-1_1")
        .replace("{userGroupId}", "-1_2")
}

fn method(name: &str) -> Method {
    Method::from_bytes(name.as_bytes()).expect("an HTTP method")
}

#[track_caller]
fn assert_removed(resp: &crate::harness::Resp, verb: &str, path: &str, replacement: &str) {
    assert_error(resp, 410, "METHOD_REMOVED");
    let message = resp.message();
    if replacement == "none" {
        assert!(
            message.contains("no replacement"),
            "{verb} {path}: {message}"
        );
    } else {
        assert!(
            message.contains(replacement),
            "{verb} {path}: the message names the replacement '{replacement}': {message}"
        );
    }
}

/// COMPAT: the GET logins were removed in 11.0 and name their POST replacement.
pub async fn removed_auth_methods_name_post_replacement(t: &Target) {
    for path in ["/auth/login", "/auth/loginPlainText", "/auth/loginOAuth2"] {
        let resp = t
            .send(
                t.anon(Method::GET, path)
                    .query(&[("user", t.user.as_str()), ("password", t.password.as_str())]),
            )
            .await;
        assert_removed(&resp, "GET", path, &format!("POST {path}"));
        let resp = t.get(path).await;
        assert_removed(&resp, "GET", path, &format!("POST {path}"));
    }
}

async fn every_removed_method(t: &Target) {
    for &(verb, path, replacement) in lore_server::REMOVED_METHODS {
        let request = t.call(method(verb), &concrete(path)).await;
        let request = if verb == "GET" {
            request
        } else {
            request.json(&json!({}))
        };
        let resp = t.send(request).await;
        assert_removed(&resp, verb, path, replacement);
    }
}

/// Every removed method, called as its old clients did, with a key.
pub fn every_removed_method_answers_410() -> Case {
    Case {
        name: "every_removed_method_answers_410",
        covers: lore_server::REMOVED_METHODS
            .iter()
            .map(|&(verb, path, _)| (verb, path, N))
            .collect(),
        needs: Needs::AnyServer,
        run: |t| Box::pin(every_removed_method(t)),
    }
}

/// Whether a removed method is public (the removed GET logins): callers of it have no key.
fn is_public(verb: &str, path: &str) -> bool {
    lore_server::is_public(verb, &format!("{{base}}{path}"))
}

async fn removed_ignoring_input(t: &Target) {
    for &(verb, path, replacement) in lore_server::REMOVED_METHODS {
        // A malformed body, junk parameters: the answer is still that the method is gone.
        let resp = t
            .send(
                t.call(method(verb), &concrete(path))
                    .await
                    .header(CONTENT_TYPE, "application/json")
                    .body("{not json"),
            )
            .await;
        assert_removed(&resp, verb, path, replacement);
        let resp = t
            .send(
                t.call(method(verb), &concrete(path))
                    .await
                    .query(&[("junk", "1")]),
            )
            .await;
        assert_removed(&resp, verb, path, replacement);
        // Without a valid key, only the public ones (the removed logins) answer 410; the
        // others are routes like any other and want a key first.
        for key in [None, Some("not-a-key")] {
            let mut request = t.anon(method(verb), &concrete(path));
            if let Some(key) = key {
                request = request.header("api-key", key);
            }
            let resp = t.send(request).await;
            if is_public(verb, path) {
                assert_removed(&resp, verb, path, replacement);
            } else {
                assert_error(&resp, 401, "AUTHENTICATION_ERROR");
            }
        }
    }
}

/// Every removed method with junk input, and without a valid key.
pub fn removed_methods_ignore_input() -> Case {
    Case {
        name: "removed_methods_ignore_input",
        covers: lore_server::REMOVED_METHODS
            .iter()
            .map(|&(verb, path, _)| (verb, path, B))
            .collect(),
        needs: Needs::AnyServer,
        run: |t| Box::pin(removed_ignoring_input(t)),
    }
}
