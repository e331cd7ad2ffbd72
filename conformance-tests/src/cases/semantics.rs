//! Semantic mapping, data model and glossary: semantic links, entity relationships,
//! glossary terms with their references, classify and unclassify (and their deprecated
//! paths), and the usage report of a term.

use reqwest::Method;
use serde_json::{Value, json};

use super::denied::send_as;
use crate::harness::{Imported, Resp, Target, assert_error, encode_segment};

const LINK: &str = "/semanticMapping/semanticLink";
const RELATIONSHIP: &str = "/dataModel/entityRelationship";
const GLOSSARY: &str = "/entities/glossary";

/// Query parameters of a call.
type Query<'a> = Vec<(&'a str, &'a str)>;

/// The sample imported, with the ids of the objects these cases use.
struct Semantic {
    imported: Imported,
    customer: String,
    orders: String,
    product: String,
    city: String,
    email: String,
    term_customer: String,
    term_client: String,
    term_email: String,
}

async fn id_of(t: &Target, path: &str) -> String {
    let resp = t.entity(path).await;
    resp.ok()["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{path} has an id: {}", resp.describe()))
        .to_owned()
}

async fn semantic(t: &Target) -> Semantic {
    let imported = t.import_sample().await;
    let db = format!("{}/Sales DB", imported.path);
    Semantic {
        customer: id_of(t, &format!("{db}/sales/customer")).await,
        orders: id_of(t, &format!("{db}/sales/orders")).await,
        product: id_of(t, &format!("{db}/sales/product")).await,
        city: id_of(t, &format!("{db}/sales/customer/city")).await,
        email: id_of(t, &format!("{db}/sales/customer/email")).await,
        term_customer: id_of(t, &format!("{}/Customer", imported.path)).await,
        term_client: id_of(t, &format!("{}/Client", imported.path)).await,
        term_email: id_of(t, &format!("{}/Email Address", imported.path)).await,
        imported,
    }
}

/// The names of the terms that define an object (`terms` of its legacy entity).
async fn terms_of(t: &Target, id: &str) -> Vec<String> {
    let resp = t.entity(id).await;
    resp.ok()["terms"]
        .as_array()
        .expect("terms")
        .iter()
        .map(|term| term["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// The names of the objects related to `id` (`GET /relationships/{id}`).
async fn related(t: &Target, id: &str) -> Vec<String> {
    let resp = t
        .get(&format!("/relationships/{}", encode_segment(id)))
        .await;
    resp.ok_array()
        .iter()
        .map(|o| o["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// How many objects `where` finds in the imported model.
async fn count(t: &Target, s: &Semantic, filter: &str) -> u64 {
    let resp = t
        .get_q(
            "/entities/countMQLQuery",
            &[
                ("select", "Name"),
                ("from", s.imported.model_id.as_str()),
                ("where", filter),
            ],
        )
        .await;
    resp.ok()
        .as_u64()
        .unwrap_or_else(|| panic!("a count: {}", resp.describe()))
}

#[track_caller]
fn assert_deprecated(resp: &Resp, successor: &str) {
    assert_eq!(
        resp.headers
            .get("deprecation")
            .and_then(|v| v.to_str().ok()),
        Some("true"),
        "a deprecated method says so: {}",
        resp.describe()
    );
    let link = resp
        .headers
        .get("link")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    assert!(
        link.contains(successor) && link.contains("rel=\"successor-version\""),
        "the Link names {successor}: {link}"
    );
}

/// A semantic link classifies a column with a term: the column's `terms` list it,
/// Has Semantic Definition finds it, the term's report lists the column, and deleting
/// the link undoes all of it. Linking twice is a no-op.
pub async fn semantic_links_add_and_remove(t: &Target) {
    let s = semantic(t).await;
    let ends = [
        ("sourceObjectId", s.city.as_str()),
        ("targetObjectId", s.term_customer.as_str()),
    ];
    let before = count(t, &s, "\"Has Semantic Definition\" = true").await;
    for _ in 0..2 {
        let resp = t.post(LINK, &ends, &json!({})).await;
        assert_eq!(resp.ok(), &json!(""));
    }
    assert_eq!(terms_of(t, &s.city).await, ["Customer"]);
    assert_eq!(
        count(t, &s, "\"Has Semantic Definition\" = true").await,
        before + 1
    );
    assert!(
        related(t, &s.term_customer)
            .await
            .contains(&"city".to_owned())
    );
    let report = t
        .get(&format!(
            "/entities/reports/{}",
            encode_segment(&s.term_customer)
        ))
        .await;
    let names: Vec<&str> = report
        .ok_array()
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert_eq!(
        names,
        ["city", "customer"],
        "the objects the term defines, by name"
    );

    let resp = t.delete(LINK, &ends).await;
    assert_eq!(resp.ok(), &json!(""));
    assert!(terms_of(t, &s.city).await.is_empty());
    assert_eq!(
        count(t, &s, "\"Has Semantic Definition\" = true").await,
        before
    );
    // The link the sample imported goes the same way.
    let resp = t
        .delete(
            LINK,
            &[
                ("sourceObjectId", s.customer.as_str()),
                ("targetObjectId", s.term_customer.as_str()),
            ],
        )
        .await;
    resp.ok();
    assert!(terms_of(t, &s.customer).await.is_empty());
}

/// Missing, unknown or unfit ends are refused with a clear error, and nothing changes.
pub async fn semantic_links_bad_input(t: &Target) {
    let s = semantic(t).await;
    let before = count(t, &s, "\"Has Semantic Definition\" = true").await;
    for method in [Method::POST, Method::DELETE] {
        let call = |query: Vec<(&'static str, String)>| {
            let method = method.clone();
            async move {
                let request = t.call(method, LINK).await.query(&query);
                t.send(request).await
            }
        };
        let resp = call(vec![("targetObjectId", s.term_customer.clone())]).await;
        assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
        assert!(
            resp.message().contains("sourceObjectId"),
            "{}",
            resp.message()
        );
        let resp = call(vec![("sourceObjectId", s.city.clone())]).await;
        assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
        let resp = call(vec![
            ("sourceObjectId", s.city.clone()),
            ("targetObjectId", "999999_1".to_owned()),
        ])
        .await;
        assert_error(&resp, 404, "OBJECT_NOT_FOUND");
        let resp = call(vec![
            ("sourceObjectId", "not an id".to_owned()),
            ("targetObjectId", s.term_customer.clone()),
        ])
        .await;
        assert_eq!(resp.status, 400, "{}", resp.describe());
        let resp = call(vec![
            ("sourceObjectId", s.city.clone()),
            ("targetObjectId", s.city.clone()),
        ])
        .await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
        // A model is a repository object, not an object inside a model.
        let resp = call(vec![
            ("sourceObjectId", s.imported.model_id.clone()),
            ("targetObjectId", s.term_customer.clone()),
        ])
        .await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    // Deleting a link that is not there.
    let resp = t
        .delete(
            LINK,
            &[
                ("sourceObjectId", s.city.as_str()),
                ("targetObjectId", s.term_customer.as_str()),
            ],
        )
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    assert_eq!(
        count(t, &s, "\"Has Semantic Definition\" = true").await,
        before
    );
}

/// An entity relationship joins two tables of the model; GET /relationships shows it,
/// DELETE by name removes only that one, DELETE without a name every one. The
/// deprecated createRelationship answers the same, marked deprecated.
pub async fn entity_relationships_add_and_remove(t: &Target) {
    let s = semantic(t).await;
    let ends = |name: &'static str| {
        vec![
            ("sourceObjectId", s.orders.clone()),
            ("targetObjectId", s.product.clone()),
            ("name", name.to_owned()),
        ]
    };
    let resp = t
        .send(
            t.call(Method::POST, RELATIONSHIP)
                .await
                .query(&ends("orders_products")),
        )
        .await;
    assert_eq!(resp.ok(), &json!(""));
    assert!(related(t, &s.orders).await.contains(&"product".to_owned()));
    let resp = t
        .send(
            t.call(Method::POST, "/repository/createRelationship")
                .await
                .query(&ends("best_seller")),
        )
        .await;
    assert_eq!(resp.ok(), &json!(""));
    assert_deprecated(&resp, "/dataModel/entityRelationship");
    // Two relationships; deleting one by name leaves the other.
    let resp = t
        .send(
            t.call(Method::DELETE, RELATIONSHIP)
                .await
                .query(&ends("orders_products")),
        )
        .await;
    resp.ok();
    assert!(related(t, &s.orders).await.contains(&"product".to_owned()));
    let resp = t
        .send(
            t.call(Method::DELETE, RELATIONSHIP)
                .await
                .query(&ends("orders_products")),
        )
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t
        .delete(
            RELATIONSHIP,
            &[
                ("sourceObjectId", s.orders.as_str()),
                ("targetObjectId", s.product.as_str()),
            ],
        )
        .await;
    resp.ok();
    assert!(!related(t, &s.orders).await.contains(&"product".to_owned()));
    // The foreign key's relationship from the sample is untouched.
    assert!(related(t, &s.orders).await.contains(&"customer".to_owned()));
}

/// Ends that are no classifiers, in another model, missing or unknown are refused.
pub async fn entity_relationships_bad_input(t: &Target) {
    let s = semantic(t).await;
    let other = semantic(t).await;
    let before = related(t, &s.orders).await;
    for path in [RELATIONSHIP, "/repository/createRelationship"] {
        let cases: [(Query<'_>, u16, &str); 5] = [
            (
                vec![("targetObjectId", &s.product)],
                400,
                "REQUIRED_PARAMETER_NOT_SPECIFIED",
            ),
            (
                vec![("sourceObjectId", &s.orders)],
                400,
                "REQUIRED_PARAMETER_NOT_SPECIFIED",
            ),
            (
                vec![("sourceObjectId", &s.orders), ("targetObjectId", &s.city)],
                400,
                "INVALID_PARAMETER",
            ),
            (
                vec![
                    ("sourceObjectId", &s.orders),
                    ("targetObjectId", &other.product),
                ],
                400,
                "INVALID_PARAMETER",
            ),
            (
                vec![
                    ("sourceObjectId", &s.orders),
                    ("targetObjectId", "999999_3"),
                ],
                404,
                "OBJECT_NOT_FOUND",
            ),
        ];
        for (query, status, code) in cases {
            let resp = t.post(path, &query, &json!({})).await;
            assert_error(&resp, status, code);
        }
    }
    let resp = t
        .delete(RELATIONSHIP, &[("sourceObjectId", &s.orders)])
        .await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let resp = t
        .delete(
            RELATIONSHIP,
            &[
                ("sourceObjectId", &s.orders),
                ("targetObjectId", &s.product),
            ],
        )
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    assert_eq!(related(t, &s.orders).await, before);
}

/// Terms by path (parents created on the way), references in both spellings answered in
/// the new one, classify with an existing and a new term, unclassify one and all, the
/// deprecated paths marked deprecated, and the term's report.
pub async fn glossary_terms_classify_and_report(t: &Target) {
    let s = semantic(t).await;
    let model = s.imported.model_id.as_str();
    // A term two levels down: its parent is created too.
    let resp = t
        .post(
            GLOSSARY,
            &[
                ("glossaryId", model),
                ("termPath", "Geography/City"),
                ("description", "A town of the billing address."),
            ],
            &json!({"references": [
                {"referenceType": "More General", "termId": s.term_customer},
                {"referenceType": "See Also", "termId": s.term_client},
            ]}),
        )
        .await;
    let term = resp.ok().clone();
    assert_eq!(term["name"], json!("City"));
    assert_eq!(term["objectType"]["name"], json!("Business Glossary.Term"));
    let references: Vec<(String, String)> = term["references"]
        .as_array()
        .expect("references")
        .iter()
        .map(|r| {
            (
                r["referenceType"].as_str().unwrap_or_default().to_owned(),
                r["term"]["name"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        references,
        [
            ("See Also".to_owned(), "Client".to_owned()),
            ("Specializes".to_owned(), "Customer".to_owned())
        ],
        "old names are answered in the release 11.0 form"
    );
    let city_term = term["id"].as_str().expect("id").to_owned();
    let parent = t.entity(&format!("{}/Geography", s.imported.path)).await;
    assert_eq!(
        parent.ok()["objectType"]["name"],
        json!("Business Glossary.Term")
    );
    assert_eq!(term["parentId"], parent.ok()["id"]);
    // Asking again finds the same term; the deprecated categoryPath works too.
    let again = t
        .post(
            GLOSSARY,
            &[("glossaryId", model), ("categoryPath", "Geography/City")],
            &json!({}),
        )
        .await;
    assert_eq!(again.ok()["id"], json!(city_term));
    assert_eq!(again.ok()["references"].as_array().map(Vec::len), Some(2));

    // Classify with the existing term, then with a new one made on the way.
    let classify = format!("/entities/glossary/classify/{}", encode_segment(&s.city));
    let resp = t
        .put(&classify, &[("termId", &city_term)], &json!({}))
        .await;
    assert_eq!(resp.ok()["id"], json!(s.city));
    assert_eq!(resp.ok()["terms"][0]["name"], json!("City"));
    let resp = t
        .put(
            &classify,
            &[("glossaryId", model), ("termPath", "Geography/Town")],
            &json!({}),
        )
        .await;
    let names: Vec<&str> = resp.ok()["terms"]
        .as_array()
        .expect("terms")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert_eq!(names, ["City", "Town"]);
    assert_eq!(resp.ok()["term"], json!("City"), "term keeps the first");
    let report = t
        .get(&format!("/entities/reports/{}", encode_segment(&city_term)))
        .await;
    assert_eq!(report.ok_array().len(), 1);
    assert_eq!(report.ok_array()[0]["id"], json!(s.city));

    // Unclassify one term, then (deprecated path) every term.
    let unclassify = format!("/entities/glossary/unclassify/{}", encode_segment(&s.city));
    let resp = t
        .put(&unclassify, &[("termId", &city_term)], &json!({}))
        .await;
    assert_eq!(resp.ok()["terms"].as_array().map(Vec::len), Some(1));
    let resp = t
        .put(
            "/entities/glossary/classify",
            &[("objectId", s.email.as_str()), ("termId", &city_term)],
            &json!({}),
        )
        .await;
    assert_deprecated(&resp, "/semanticMapping/semanticLink");
    assert_eq!(terms_of(t, &s.email).await, ["City", "Email Address"]);
    let resp = t
        .put(
            "/entities/glossary/unclassify",
            &[("objectId", s.email.as_str())],
            &json!({}),
        )
        .await;
    assert_deprecated(&resp, "/semanticMapping/semanticLink");
    assert_eq!(resp.ok()["terms"], json!([]));
    let report = t
        .get(&format!(
            "/entities/reports/{}",
            encode_segment(&s.term_email)
        ))
        .await;
    let names: Vec<&str> = report
        .ok_array()
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert_eq!(
        names,
        ["email"],
        "the HR email only, the customer email unclassified"
    );
}

/// Missing parameters, paths through objects that are no terms, unknown reference
/// types and terms that are no terms are refused, and nothing is written.
pub async fn glossary_bad_input(t: &Target) {
    let s = semantic(t).await;
    let model = s.imported.model_id.as_str();
    let before = t.export(model, &[]).await.bytes;
    let resp = t.post(GLOSSARY, &[("termPath", "A")], &json!({})).await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let resp = t.post(GLOSSARY, &[("glossaryId", model)], &json!({})).await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let bad: [(&str, Value); 5] = [
        ("A//B", json!({})),
        // Through a database object.
        ("Sales DB/sales", json!({})),
        (
            "Fresh",
            json!({"references": [{"referenceType": "Cousin", "termId": s.term_customer}]}),
        ),
        (
            "Fresh",
            json!({"references": [{"referenceType": "Synonym", "termId": s.city}]}),
        ),
        ("Fresh", json!({"unknown": 1})),
    ];
    for (path, body) in bad {
        let resp = t
            .post(
                GLOSSARY,
                &[("glossaryId", model), ("termPath", path)],
                &body,
            )
            .await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    let resp = t
        .post(
            GLOSSARY,
            &[("glossaryId", &s.customer), ("termPath", "X")],
            &json!({}),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .post(
            GLOSSARY,
            &[("glossaryId", "/no/such/model"), ("termPath", "X")],
            &json!({}),
        )
        .await;
    assert_eq!(resp.status, 404, "{}", resp.describe());

    let classify = format!("/entities/glossary/classify/{}", encode_segment(&s.city));
    let resp = t.put(&classify, &[], &json!({})).await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let resp = t.put(&classify, &[("glossaryId", model)], &json!({})).await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    let resp = t
        .put(&classify, &[("termId", &s.customer)], &json!({}))
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .put(&classify, &[("termId", "999999_1")], &json!({}))
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t
        .put(
            "/entities/glossary/classify/999999_1",
            &[("termId", &s.term_customer)],
            &json!({}),
        )
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let unclassify = format!("/entities/glossary/unclassify/{}", encode_segment(&s.city));
    let resp = t
        .put(&unclassify, &[("termId", &s.term_customer)], &json!({}))
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t
        .put(&unclassify, &[("termId", &s.orders)], &json!({}))
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    for path in [
        "/entities/glossary/classify",
        "/entities/glossary/unclassify",
    ] {
        let resp = t
            .put(path, &[("termId", s.term_customer.as_str())], &json!({}))
            .await;
        assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    }
    let resp = t
        .get(&format!(
            "/entities/reports/{}",
            encode_segment(&s.customer)
        ))
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t.get("/entities/reports/999999_1").await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    assert_eq!(
        t.export(model, &[]).await.bytes,
        before,
        "the model is as it was"
    );
}

/// A Metadata Viewer reads a term's report but may not link, relate, create terms or
/// classify; a user without View Metadata reads no report.
pub async fn semantics_without_edit_metadata_are_denied(t: &Target) {
    let s = semantic(t).await;
    let model = s.imported.model_id.as_str();
    let viewer = t.key_with_roles(&["Metadata Viewer"]).await;
    let nobody = t.key_with_roles(&[]).await;
    let report = format!("/entities/reports/{}", encode_segment(&s.term_customer));
    let resp = send_as(t, &viewer, Method::GET, &report, &[], None).await;
    resp.ok();
    let resp = send_as(t, &nobody, Method::GET, &report, &[], None).await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
    let link = [
        ("sourceObjectId", s.city.as_str()),
        ("targetObjectId", s.term_customer.as_str()),
    ];
    let tables = [
        ("sourceObjectId", s.orders.as_str()),
        ("targetObjectId", s.product.as_str()),
    ];
    let classify = format!(
        "/entities/glossary/classify/{}",
        encode_segment(&s.customer)
    );
    let unclassify = format!(
        "/entities/glossary/unclassify/{}",
        encode_segment(&s.customer)
    );
    let term = [("termId", s.term_customer.as_str())];
    let calls: Vec<(Method, &str, Query<'_>)> = vec![
        (Method::POST, LINK, link.to_vec()),
        (Method::DELETE, LINK, link.to_vec()),
        (Method::POST, RELATIONSHIP, tables.to_vec()),
        (Method::DELETE, RELATIONSHIP, tables.to_vec()),
        (
            Method::POST,
            "/repository/createRelationship",
            tables.to_vec(),
        ),
        (
            Method::POST,
            GLOSSARY,
            vec![("glossaryId", model), ("termPath", "Denied")],
        ),
        (Method::PUT, &classify, term.to_vec()),
        (Method::PUT, &unclassify, term.to_vec()),
        (Method::PUT, "/entities/glossary/classify", {
            let mut q = term.to_vec();
            q.push(("objectId", s.customer.as_str()));
            q
        }),
        (Method::PUT, "/entities/glossary/unclassify", {
            let mut q = term.to_vec();
            q.push(("objectId", s.customer.as_str()));
            q
        }),
    ];
    let before = t.export(model, &[]).await.bytes;
    for (method, path, query) in calls {
        let body = (method != Method::DELETE).then(|| json!({}));
        let resp = send_as(t, &viewer, method.clone(), path, &query, body).await;
        assert_eq!(resp.status, 403, "{method} {path}: {}", resp.describe());
        assert_error(&resp, 403, "PERMISSION_DENIED");
    }
    assert_eq!(
        t.export(model, &[]).await.bytes,
        before,
        "nothing was written"
    );
}
