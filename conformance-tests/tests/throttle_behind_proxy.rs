//! Behind a trusted proxy, failed logins are counted per client (the address the proxy
//! added to `X-Forwarded-For`), not per proxy: one client's failures do not lock the
//! others out, and a client cannot dodge its count by writing its own header.

use std::sync::Arc;

use lore_backend_memory::MemoryStore;
use lore_conformance::Target;
use lore_conformance::harness::Resp;
use reqwest::Method;
use serde_json::json;

async fn login(t: &Target, forwarded_for: &str, password: &str) -> Resp {
    t.send(
        t.anon(Method::POST, "/auth/login")
            .header("x-forwarded-for", forwarded_for)
            .json(&json!({"user": t.user, "password": password})),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn failed_logins_are_counted_per_client_behind_a_trusted_proxy() {
    let t = Target::spawn_with(Arc::new(MemoryStore::new()), |settings| {
        settings.server.trust_forwarded_for = true;
    })
    .await;
    let password = t.password.clone();
    // The attacker writes a different first address each time; the proxy appends theirs.
    for attempt in 0..8 {
        let resp = login(&t, &format!("198.51.100.{attempt}, 203.0.113.66"), "wrong").await;
        assert!(
            resp.status == 401 || resp.status == 429,
            "{}",
            resp.describe()
        );
    }
    let resp = login(&t, "198.51.100.99, 203.0.113.66", &password).await;
    assert_eq!(
        resp.status,
        429,
        "the attacker stays throttled: {}",
        resp.describe()
    );
    // Another client behind the same proxy logs in.
    let resp = login(&t, "203.0.113.77", &password).await;
    assert_eq!(resp.status, 200, "another client: {}", resp.describe());
    t.shutdown().await;
}
