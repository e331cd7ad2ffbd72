//! Routing, the envelope of errors no handler produces, keys, body limits, /healthz and
//! the OpenAPI document.

use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use serde_json::{Value, json};

use crate::harness::{Target, assert_error, unique};

pub async fn unknown_route_is_404_in_envelope(t: &Target) {
    for path in [
        "/no/such/route",
        "/types",
        "/auth/loginOAuth3",
        "/entities/1_1/more",
    ] {
        let resp = t.get(path).await;
        assert_error(&resp, 404, "NOT_FOUND");
    }
    let resp = t.send(t.anon(Method::GET, "/no/such/route")).await;
    assert_error(&resp, 404, "NOT_FOUND");
    let resp = t.post("/repository/noSuchMethod", &[], &json!({})).await;
    assert_error(&resp, 404, "NOT_FOUND");
    assert!(
        resp.message().contains("/repository/noSuchMethod"),
        "the message names the path: {}",
        resp.message()
    );
    // Outside the base path too.
    let resp = t
        .send(t.client.get(format!("{}/no-such-page", t.origin())))
        .await;
    assert_error(&resp, 404, "NOT_FOUND");
}

pub async fn wrong_method_is_405(t: &Target) {
    // (method, path, a method the path does accept)
    let cases: [(Method, &str, &str); 6] = [
        (Method::GET, "/auth/logout", "POST"),
        (Method::DELETE, "/auth/login", "POST"),
        (Method::PUT, "/auth/loginPlainText", "POST"),
        (Method::POST, "/types/listProfiles", "GET"),
        (Method::DELETE, "/repository/createFolder", "POST"),
        (Method::GET, "/repository/model/import", "POST"),
    ];
    for (method, path, allowed) in cases {
        let resp = t.send(t.call(method.clone(), path).await).await;
        assert_error(&resp, 405, "METHOD_NOT_ALLOWED");
        let resp = t.send(t.anon(method.clone(), path)).await;
        assert_error(&resp, 405, "METHOD_NOT_ALLOWED");
        // RFC 9110 section 15.5.6: a 405 answer carries an Allow header naming the
        // methods the resource supports.
        let allow = resp
            .headers
            .get(reqwest::header::ALLOW)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_else(|| panic!("{method} {path}: the 405 answer has no Allow header"));
        assert!(
            allow.split(',').any(|m| m.trim() == allowed),
            "{method} {path}: Allow '{allow}' names {allowed}"
        );
    }
}

pub async fn paths_are_case_sensitive(t: &Target) {
    for path in [
        "/types/listprofiles",
        "/Types/listProfiles",
        "/types/LISTPROFILES",
        "/configuration/listmodels",
        "/operations/RepositoryBrowse",
    ] {
        let resp = t.get(path).await;
        assert_error(&resp, 404, "NOT_FOUND");
    }
    let resp = t
        .send(
            t.anon(Method::POST, "/auth/LOGIN")
                .json(&json!({"user": t.user, "password": t.password})),
        )
        .await;
    assert_error(&resp, 404, "NOT_FOUND");
    // Parameter names are case-sensitive too: `ProfileName` is not `profileName`.
    let resp = t
        .get_q(
            "/types/listObjectTypes",
            &[("ProfileName", &unique("no-such-profile"))],
        )
        .await;
    let all = t.get("/types/listObjectTypes").await;
    assert_eq!(
        resp.ok(),
        all.ok(),
        "an unknown parameter name is ignored, not read as profileName"
    );
}

pub async fn missing_or_invalid_key_is_401(t: &Target) {
    for path in [
        "/types/listProfiles",
        "/types/listCategories",
        "/configuration/listModels",
        "/admin/roles",
        "/repository/importers",
    ] {
        let resp = t.send(t.anon(Method::GET, path)).await;
        assert_error(&resp, 401, "AUTHENTICATION_ERROR");
        for header in ["api-key", "api_key"] {
            let resp = t
                .send(t.anon(Method::GET, path).header(header, "0123456789abcdef"))
                .await;
            assert_error(&resp, 401, "AUTHENTICATION_ERROR");
            let resp = t.send(t.anon(Method::GET, path).header(header, "")).await;
            assert_error(&resp, 401, "AUTHENTICATION_ERROR");
        }
        // The header names are exact: `apikey` is no key at all.
        let key = t.key().await;
        let resp = t
            .send(t.anon(Method::GET, path).header("apikey", key))
            .await;
        assert_error(&resp, 401, "AUTHENTICATION_ERROR");
    }
}

pub async fn malformed_json_is_400(t: &Target) {
    for body in ["{\"name\": ", "{name: 1}", "\u{1}"] {
        let resp = t
            .send(
                t.call(Method::POST, "/repository/createFolder")
                    .await
                    .header(CONTENT_TYPE, "application/json")
                    .body(body),
            )
            .await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    // A body of the wrong JSON shape.
    let resp = t
        .post("/repository/createFolder", &[], &json!({"name": ["a"]}))
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .send(
            t.call(Method::POST, "/repository/model/export")
                .await
                .header(CONTENT_TYPE, "application/json")
                .body("{\"modelId\": "),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
}

pub async fn body_over_limit_is_413(t: &Target) {
    // The target runs with server.max_body_mib = 1. The server may answer before it has
    // read the body, so these go over a bare connection that reads while it writes.
    let key = t.key().await;
    let big = vec![b'x'; 2 << 20];
    let resp = t
        .send_raw(
            "POST",
            "/repository/model/import",
            &[("api-key", &key), ("Content-Type", "application/zip")],
            big.clone(),
        )
        .await;
    assert_error(&resp, 413, "PAYLOAD_TOO_LARGE");
    let boundary = "conformance-boundary";
    let mut form = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"model.zip\"\r\nContent-Type: application/zip\r\n\r\n"
    )
    .into_bytes();
    form.extend_from_slice(&big);
    form.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let resp = t
        .send_raw(
            "POST",
            "/repository/model/import",
            &[
                ("api-key", &key),
                (
                    "Content-Type",
                    &format!("multipart/form-data; boundary={boundary}"),
                ),
            ],
            form,
        )
        .await;
    assert_error(&resp, 413, "PAYLOAD_TOO_LARGE");
    let name = "n".repeat(2 << 20);
    let body = serde_json::to_vec(&json!({"name": name})).expect("JSON");
    let resp = t
        .send_raw(
            "POST",
            "/repository/createFolder",
            &[("api-key", &key), ("Content-Type", "application/json")],
            body,
        )
        .await;
    assert_error(&resp, 413, "PAYLOAD_TOO_LARGE");
    let body = serde_json::to_vec(&json!({"user": t.user, "password": name})).expect("JSON");
    let resp = t
        .send_raw(
            "POST",
            "/auth/login",
            &[("Content-Type", "application/json")],
            body,
        )
        .await;
    assert_error(&resp, 413, "PAYLOAD_TOO_LARGE");
    let body = serde_json::to_vec(&json!({"modelId": name})).expect("JSON");
    let resp = t
        .send_raw(
            "POST",
            "/repository/model/export",
            &[("api-key", &key), ("Content-Type", "application/json")],
            body,
        )
        .await;
    assert_error(&resp, 413, "PAYLOAD_TOO_LARGE");
    // Nothing was created, and a body under the limit still works.
    let resp = t.get("/configuration/listModels").await;
    assert_eq!(resp.ok(), &json!([]), "oversized uploads create nothing");
    let resp = t
        .import(
            crate::harness::sample_archive(),
            &[("modelName", &unique("small"))],
        )
        .await;
    resp.ok();
}

pub async fn healthz_answers_ok(t: &Target) {
    let resp = t
        .send(t.client.get(format!("{}/healthz", t.origin())))
        .await;
    let result = resp.ok();
    assert_eq!(result["status"], json!("ok"), "{}", resp.describe());
    assert!(
        result["backend"].as_str().is_some_and(|b| !b.is_empty()),
        "healthz names the backend: {}",
        resp.describe()
    );
    if !t.is_remote() {
        assert_eq!(result["backend"], json!(t.backend));
    }
    let resp = t
        .send(t.client.post(format!("{}/healthz", t.origin())))
        .await;
    assert_error(&resp, 405, "METHOD_NOT_ALLOWED");
}

pub async fn openapi_document_is_served(t: &Target) {
    let resp = t.send(t.anon(Method::GET, "/openapi.json")).await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    let doc = &resp.json;
    assert!(
        doc["openapi"].as_str().is_some_and(|v| v.starts_with('3')),
        "an OpenAPI 3 document: {}",
        resp.describe()
    );
    let paths = doc["paths"].as_object().expect("paths");
    for path in [
        "/auth/login",
        "/entities/{objectId}",
        "/repository/model/import",
    ] {
        assert!(paths.contains_key(path), "the document lists {path}");
    }
    let scheme = &doc["components"]["securitySchemes"]["api_key"];
    assert_eq!(scheme["in"], json!("header"), "{scheme}");
    assert_eq!(scheme["name"], json!("api-key"), "{scheme}");
    // Every removed method is in the document, deprecated.
    for &(method, path, _) in lore_server::REMOVED_METHODS {
        let operation = &doc["paths"][path][method.to_lowercase()];
        assert_eq!(
            operation["deprecated"],
            Value::Bool(true),
            "{method} {path} is listed as deprecated"
        );
    }
}

/// An OpenAPI path template with every `{parameter}` filled with a dummy value.
fn fill_parameters(template: &str) -> String {
    let mut out = String::with_capacity(template.len());
    let mut in_parameter = false;
    for c in template.chars() {
        match c {
            '{' => {
                in_parameter = true;
                out.push_str("1_1");
            }
            '}' => in_parameter = false,
            c if !in_parameter => out.push(c),
            _ => {}
        }
    }
    out
}

/// Every route of the served OpenAPI document off the public list answers 401
/// AUTHENTICATION_ERROR without a key, with a wrong key and with a logged-out key, in
/// either header, whatever the route: the router denies by default. A public route
/// answers without a key (whatever else it says, not 401).
pub async fn every_gated_route_needs_a_key(t: &Target) {
    let resp = t.send(t.anon(Method::GET, "/openapi.json")).await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    let paths = resp.json["paths"].as_object().expect("paths").clone();
    let logged_out = t.login().await;
    let resp = t
        .send(
            t.anon(Method::POST, "/auth/logout")
                .header("api-key", &logged_out),
        )
        .await;
    resp.ok();
    let keys: [(&str, Option<&str>); 5] = [
        ("api-key", None),
        ("api-key", Some("not-a-key")),
        ("api_key", Some("0123456789abcdef0123456789abcdef")),
        ("api-key", Some(&logged_out)),
        ("api_key", Some(&logged_out)),
    ];
    let (mut gated, mut public) = (0, 0);
    for (template, item) in &paths {
        let path = fill_parameters(template);
        for (verb, _operation) in item.as_object().expect("a path item") {
            let Ok(method) = Method::from_bytes(verb.to_uppercase().as_bytes()) else {
                continue;
            };
            if !["GET", "PUT", "POST", "DELETE", "PATCH"].contains(&method.as_str()) {
                continue;
            }
            let request = |header: &str, key: Option<&str>| {
                let mut request = t.anon(method.clone(), &path);
                if let Some(key) = key {
                    request = request.header(header, key);
                }
                if method != Method::GET {
                    request = request.json(&json!({}));
                }
                request
            };
            if lore_server::is_public(method.as_str(), &format!("{{base}}{template}")) {
                public += 1;
                let resp = t.send(request("api-key", None)).await;
                assert_ne!(
                    resp.status,
                    401,
                    "{method} {template} is public: {}",
                    resp.describe()
                );
                continue;
            }
            gated += 1;
            for (header, key) in keys {
                let resp = t.send(request(header, key)).await;
                assert_eq!(
                    resp.status,
                    401,
                    "{method} {path} with {header} {key:?} must answer 401 before anything else: {}",
                    resp.describe()
                );
                assert_error(&resp, 401, "AUTHENTICATION_ERROR");
            }
        }
    }
    assert!(
        gated > 10 && public > 0,
        "the document lists gated ({gated}) and public ({public}) routes"
    );
}
