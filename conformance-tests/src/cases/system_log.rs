//! `GET /admin/systemLog`: every call is recorded (refused, unknown and failed ones
//! too) with its user, address, method, path (never the query string), status,
//! duration and size; administrators read the log newest first, filtered and paged.

use reqwest::Method;
use serde_json::{Value, json};

use crate::harness::{Resp, Target, assert_error, unique};

const LOG: &str = "/admin/systemLog";

/// Reads the system log as the administrator.
async fn read_log(t: &Target, query: &[(&str, &str)]) -> Resp {
    t.get_q(LOG, query).await
}

/// The entries of a successful read.
#[track_caller]
fn entries(resp: &Resp) -> Vec<Value> {
    resp.ok_array().clone()
}

/// Every call leaves an entry: a login, a call with a valid key, a call with a key in
/// the query string, an unknown route. No entry holds the password or a key, whether it
/// came in a body, a header or the query string.
pub async fn system_log_records_calls_without_secrets(t: &Target) {
    let base = t.base_path();
    // A login of its own: the password travels in the body, the new key in headers and,
    // once, in the query string of a call.
    let key = t.login().await;
    let marker = unique("syslog-secret");
    let listed = t
        .send(
            t.anon(Method::GET, "/types/listProfiles")
                .header("api-key", &key)
                .query(&[("api_key", key.as_str()), ("password", t.password.as_str())]),
        )
        .await;
    listed.ok();
    let unknown_path = format!("/{marker}");
    let unknown = t
        .send(
            t.anon(Method::GET, &unknown_path)
                .query(&[("api_key", key.as_str()), ("token", key.as_str())]),
        )
        .await;
    assert_error(&unknown, 404, "NOT_FOUND");
    let refused = t
        .send(
            t.anon(Method::GET, "/types/listProfiles")
                .header("api-key", format!("{key}-wrong")),
        )
        .await;
    assert_eq!(refused.status, 401, "{}", refused.describe());
    t.flush_system_log().await;

    // The unknown route, found by its path: no query string, no user (no route, no key
    // check), 404, the size of the envelope that was sent.
    let found = entries(&read_log(t, &[("path", &format!("{base}{unknown_path}"))]).await);
    assert_eq!(found.len(), 1, "{found:?}");
    let entry = &found[0];
    assert_eq!(entry["path"], json!(format!("{base}{unknown_path}")));
    assert_eq!(entry["method"], json!("GET"));
    assert_eq!(entry["status"], json!(404));
    assert_eq!(entry["user"], json!(""));
    assert_eq!(entry["size"], json!(unknown.bytes.len()));
    assert!(entry["durationMs"].is_u64(), "{entry}");
    assert!(
        !entry["address"].as_str().unwrap_or_default().is_empty(),
        "the client's address: {entry}"
    );
    let time = entry["time"].as_str().unwrap_or_default();
    assert!(
        chrono::DateTime::parse_from_rfc3339(time).is_ok(),
        "time is an ISO-8601 date and time: {entry}"
    );

    // The keyed call names its user; the refused one names none.
    let profiles = entries(
        &read_log(
            t,
            &[
                ("path", &format!("{base}/types/listProfiles")),
                ("pageSize", "1000"),
            ],
        )
        .await,
    );
    assert!(
        profiles
            .iter()
            .any(|e| e["user"] == json!(t.user) && e["status"] == json!(200)),
        "the call with a valid key names its user: {profiles:?}"
    );
    assert!(
        profiles
            .iter()
            .any(|e| e["user"] == json!("") && e["status"] == json!(401)),
        "the refused call is recorded without a user: {profiles:?}"
    );
    let logins = entries(
        &read_log(
            t,
            &[
                ("path", &format!("{base}/auth/login")),
                ("method", "post"),
                ("status", "200"),
            ],
        )
        .await,
    );
    assert!(!logins.is_empty(), "the login is recorded");

    // No entry anywhere holds a secret.
    let mut page = 1;
    loop {
        let number = page.to_string();
        let resp = read_log(t, &[("pageSize", "1000"), ("pageNumber", &number)]).await;
        let text = resp.text();
        assert!(!text.contains(&key), "a key in the system log: {text}");
        assert!(
            !text.contains(&t.password),
            "the password in the system log: {text}"
        );
        assert!(
            !text.contains('?'),
            "a query string in the system log: {text}"
        );
        if entries(&resp).len() < 1000 {
            break;
        }
        page += 1;
    }
}

/// Filters narrow the log (path prefix, method, status, user, time range) and pages cut
/// it, newest first, with the total in `X-Total-Count`.
pub async fn system_log_filters_and_pages(t: &Target) {
    let base = t.base_path();
    let before = chrono::Utc::now() - chrono::Duration::seconds(5);
    let prefix = format!("/{}", unique("syslog-filter"));
    for name in ["a", "b", "c"] {
        let resp = t
            .send(t.anon(Method::GET, &format!("{prefix}/{name}")))
            .await;
        assert_eq!(resp.status, 404);
    }
    let resp = t.send(t.anon(Method::DELETE, &format!("{prefix}/d"))).await;
    assert_eq!(resp.status, 404);
    t.flush_system_log().await;

    let prefix = format!("{base}{prefix}");
    let all = read_log(t, &[("path", &prefix)]).await;
    let found = entries(&all);
    let paths: Vec<&str> = found.iter().filter_map(|e| e["path"].as_str()).collect();
    assert_eq!(
        paths,
        [
            format!("{prefix}/d"),
            format!("{prefix}/c"),
            format!("{prefix}/b"),
            format!("{prefix}/a")
        ],
        "newest first"
    );
    assert_eq!(
        all.headers
            .get("x-total-count")
            .and_then(|v| v.to_str().ok()),
        Some("4")
    );

    let count = |query: Vec<(&'static str, String)>| {
        let prefix = prefix.clone();
        async move {
            let mut q: Vec<(&str, &str)> = query.iter().map(|(k, v)| (*k, v.as_str())).collect();
            if !query.iter().any(|(k, _)| *k == "path") {
                q.push(("path", prefix.as_str()));
            }
            entries(&read_log(t, &q).await).len()
        }
    };
    assert_eq!(count(vec![("method", "DELETE".into())]).await, 1);
    assert_eq!(count(vec![("method", "get".into())]).await, 3);
    assert_eq!(count(vec![("status", "404".into())]).await, 4);
    assert_eq!(count(vec![("status", "200".into())]).await, 0);
    assert_eq!(count(vec![("user", String::new())]).await, 4);
    assert_eq!(count(vec![("user", t.user.clone())]).await, 0);
    assert_eq!(count(vec![("path", format!("{prefix}/b"))]).await, 1);
    assert_eq!(count(vec![("from", before.to_rfc3339())]).await, 4);
    let later = chrono::Utc::now() + chrono::Duration::hours(1);
    assert_eq!(count(vec![("from", later.to_rfc3339())]).await, 0);
    assert_eq!(count(vec![("to", before.to_rfc3339())]).await, 0);

    let page = |number: &'static str| {
        let prefix = prefix.clone();
        async move {
            let resp = read_log(
                t,
                &[("path", &prefix), ("pageSize", "3"), ("pageNumber", number)],
            )
            .await;
            entries(&resp)
                .iter()
                .filter_map(|e| e["path"].as_str().map(str::to_owned))
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        page("1").await,
        [
            format!("{prefix}/d"),
            format!("{prefix}/c"),
            format!("{prefix}/b")
        ]
    );
    assert_eq!(page("2").await, [format!("{prefix}/a")]);
    assert!(page("3").await.is_empty());
}

/// Bad parameters are 400 INVALID_PARAMETER naming the parameter; no key is 401.
pub async fn system_log_bad_parameters(t: &Target) {
    let bad = [
        ("pageSize", "0"),
        ("pageSize", "1001"),
        ("pageSize", "many"),
        ("pageNumber", "0"),
        ("status", "teapot"),
        ("status", "999"),
        ("method", "GE T"),
        ("from", "yesterday"),
        ("to", "2025-13-45"),
    ];
    for (name, value) in bad {
        let resp = read_log(t, &[(name, value)]).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
        assert!(
            resp.message().contains(name),
            "the message names {name}: {}",
            resp.describe()
        );
    }
    let backwards = read_log(
        t,
        &[
            ("from", "2025-02-01T00:00:00Z"),
            ("to", "2025-01-01T00:00:00Z"),
        ],
    )
    .await;
    assert_error(&backwards, 400, "INVALID_PARAMETER");
    let anonymous = t.send(t.anon(Method::GET, LOG)).await;
    assert_error(&anonymous, 401, "AUTHENTICATION_ERROR");
}
