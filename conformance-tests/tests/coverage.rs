//! Endpoint coverage: every (method, path) of the OpenAPI document Lore serves has a
//! Normal and a BadInput case in the suite, and no case claims a route the document
//! does not have.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use lore_backend_memory::MemoryStore;
use lore_conformance::{Kind, Target, cases};

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_has_a_normal_and_a_bad_input_case() {
    let target = Target::spawn(Arc::new(MemoryStore::new())).await;
    let resp = target
        .send(target.anon(reqwest::Method::GET, "/openapi.json"))
        .await;
    assert_eq!(resp.status, 200, "GET /openapi.json: {}", resp.describe());
    let paths = resp.json["paths"]
        .as_object()
        .expect("the document has paths");
    let mut routes: BTreeSet<(String, String)> = BTreeSet::new();
    for (path, item) in paths {
        for method in METHODS {
            if item.get(method).is_some() {
                routes.insert((method.to_uppercase(), path.clone()));
            }
        }
    }
    assert!(!routes.is_empty(), "the document lists routes");

    let mut covered: BTreeMap<(String, String), BTreeSet<Kind>> = BTreeMap::new();
    let mut unknown = Vec::new();
    for case in cases::cases() {
        for (method, path, kind) in &case.covers {
            let route = ((*method).to_owned(), (*path).to_owned());
            if !routes.contains(&route) {
                unknown.push(format!("{} claims {method} {path}", case.name));
            }
            covered.entry(route).or_default().insert(*kind);
        }
    }
    let mut missing = Vec::new();
    for route in &routes {
        let kinds = covered.get(route).cloned().unwrap_or_default();
        for kind in [Kind::Normal, Kind::BadInput] {
            if !kinds.contains(&kind) {
                missing.push(format!("{} {} has no {kind:?} case", route.0, route.1));
            }
        }
    }
    target.shutdown().await;
    assert!(
        missing.is_empty() && unknown.is_empty(),
        "endpoint coverage is incomplete:\n{}\n{}",
        missing.join("\n"),
        unknown.join("\n")
    );
}

#[test]
fn case_names_are_unique() {
    let names = cases::names();
    let distinct: BTreeSet<&str> = names.iter().copied().collect();
    assert_eq!(
        distinct.len(),
        names.len(),
        "duplicate case names in {names:?}"
    );
}
