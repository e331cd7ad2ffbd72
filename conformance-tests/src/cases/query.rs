//! MQL query endpoints: GET /entities/validateMQLQuery.

use serde_json::json;

use crate::harness::{Resp, Target, assert_error};

const VALIDATE: &str = "/entities/validateMQLQuery";

async fn validate(t: &Target, params: &[(&str, &str)]) -> Resp {
    t.get_q(VALIDATE, params).await
}

fn warnings(resp: &Resp) -> Vec<String> {
    resp.ok()["warnings"]
        .as_array()
        .unwrap_or_else(|| panic!("warnings is an array: {}", resp.describe()))
        .iter()
        .map(|w| w.as_str().unwrap_or_default().to_owned())
        .collect()
}

/// A valid query answers `valid`, the query in current syntax and no warnings; what
/// would run but find nothing answers warnings that say why.
pub async fn validate_mql_query_answers_current_syntax_and_warnings(t: &Target) {
    let imported = t.import_sample().await;
    let model = imported.model_id.as_str();
    let resp = validate(
        t,
        &[
            ("select", "Name, \"Object Type\""),
            ("from", model),
            (
                "where",
                "\"Object Type\" =any ('Table', 'Column') and Name starts with 'C' or \"Data Profiling\".Max > -2.5E3",
            ),
            ("orderby", "Name desc"),
        ],
    )
    .await;
    let result = resp.ok();
    assert_eq!(result["valid"], json!(true), "{}", resp.describe());
    assert_eq!(warnings(&resp), Vec::<String>::new(), "{}", resp.describe());
    let query = result["query"].as_str().unwrap_or_default();
    for part in [
        "SELECT Name, \"Object Type\"",
        "= ANY ('Table', 'Column') AND Name STARTS WITH 'C' OR",
        "ORDER BY Name DESC",
    ] {
        assert!(query.contains(part), "'{query}' holds '{part}'");
    }

    // Unknown attributes and ids run, finding nothing: warnings say so.
    let resp = validate(
        t,
        &[
            ("select", "Name, Nope"),
            ("from", "/no/such/folder"),
            ("context", "999999999_1"),
            ("where", "Nope = 'x'"),
        ],
    )
    .await;
    let said = warnings(&resp);
    for expected in [
        "'Nope' is not an attribute",
        "matches no object",
        "does not exist",
    ] {
        assert!(
            said.iter().any(|w| w.contains(expected)),
            "a warning says '{expected}': {said:?}"
        );
    }

    // Version 1 syntax under mqlVersion=1, written back in current syntax.
    let resp = validate(
        t,
        &[
            ("select", "#Name#"),
            ("where", "#Name# = 'x' AND \"Semantic Types\" = 'City'"),
            ("mqlVersion", "1"),
        ],
    )
    .await;
    assert_eq!(resp.ok()["valid"], json!(true), "{}", resp.describe());
    let query = resp.ok()["query"].as_str().unwrap_or_default();
    assert!(!query.contains('#'), "notation marks are dropped: {query}");

    // Values in double quotes, as the vendor's pages write them, are read as text; a
    // warning shows the query with them in single quotes.
    let resp = validate(
        t,
        &[
            ("select", "\"Name\""),
            (
                "where",
                "text = \"Customer\" AND ExpandedMembersOfRole(\"Steward\") = \"jsmith\" \
                 AND Name = ANY (\"it's\", 'b')",
            ),
        ],
    )
    .await;
    assert_eq!(resp.ok()["valid"], json!(true), "{}", resp.describe());
    let rewritten = "SELECT \"Name\" WHERE text = 'Customer' AND ExpandedMembersOfRole('Steward') = 'jsmith' \
                     AND Name = ANY ('it''s', 'b')";
    assert_eq!(resp.ok()["query"], json!(rewritten), "{}", resp.describe());
    let said = warnings(&resp);
    assert!(
        said.iter().any(|w| w.contains("written in double quotes")
            && w.contains("\"Customer\", \"jsmith\", \"it's\"")
            && w.ends_with(rewritten)),
        "a warning shows the single-quoted query: {said:?}"
    );

    // explain=true answers the plan; a SQL backend also its statement and the
    // database's plan of it.
    let resp = validate(
        t,
        &[
            ("select", "Name"),
            ("from", model),
            ("where", "Labels = 'PII'"),
            ("explain", "true"),
        ],
    )
    .await;
    let explain = &resp.ok()["explain"];
    assert!(explain["plan"]["filter"].is_object(), "{}", resp.describe());
    if let Some(sql) = explain["sql"].as_str() {
        assert!(sql.starts_with("SELECT"), "{sql}");
        let lines = explain["databasePlan"].as_array().map_or(0, Vec::len);
        assert!(lines > 0, "{}", resp.describe());
    }
    let resp = validate(t, &[("select", "Name"), ("explain", "maybe")]).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
}

/// What is not valid MQL is 400 with a message that says what and where.
pub async fn validate_mql_query_refuses_invalid_queries(t: &Target) {
    // (query parameters, error code, what the message says)
    type Refusal<'a> = (&'a [(&'a str, &'a str)], &'a str, &'a str);
    let cases: [Refusal<'_>; 6] = [
        (
            &[("select", "Name"), ("where", "Name = ")],
            "INVALID_PARAMETER",
            "line 1, column",
        ),
        (
            &[("select", "Name"), ("where", "Name < 'a'")],
            "INVALID_PARAMETER",
            "does not take the operator <",
        ),
        (
            &[
                ("select", "Name"),
                ("where", "\"Data Profiling\" EXISTS OR Name = 'a'"),
            ],
            "INVALID_PARAMETER",
            "not under OR",
        ),
        (
            &[("where", "Name = 'a'")],
            "REQUIRED_PARAMETER_NOT_SPECIFIED",
            "select",
        ),
        (
            &[("select", "Name"), ("mqlVersion", "7")],
            "INVALID_PARAMETER",
            "mqlVersion '7'",
        ),
        (
            &[("select", "Name"), ("where", "#Name# = 'a'")],
            "INVALID_PARAMETER",
            "mqlVersion=1",
        ),
    ];
    for (params, code, says) in cases {
        let resp = validate(t, params).await;
        assert_error(&resp, 400, code);
        let message = resp.json["error"]["message"].as_str().unwrap_or_default();
        assert!(
            message.contains(says),
            "{params:?}: '{message}' says '{says}'"
        );
    }
    let resp = t
        .send(
            t.anon(reqwest::Method::GET, VALIDATE)
                .query(&[("select", "Name")]),
        )
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
}

const UPGRADE: &str = "/entities/upgradeMQLQuery";

/// A version-1 query comes back clause by clause in current syntax; the answer is a
/// valid current query.
pub async fn upgrade_mql_query_rewrites_earlier_syntax(t: &Target) {
    let imported = t.import_sample().await;
    let model = imported.model_id.as_str();
    let resp = t
        .post(
            UPGRADE,
            &[],
            &json!({
                "select": "#Name#, {Semantic Types}, Stewards",
                "from": model,
                "where": "label = 'PII' AND \"Last Modified Date\" AFTER TODAY AND steward = ME",
                "orderby": "#Name# desc",
                "mqlVersion": 1
            }),
        )
        .await;
    let result = resp.ok();
    assert_eq!(
        result["select"],
        json!("Name, \"Data Classifications\", MembersOfRole('Steward')"),
        "{}",
        resp.describe()
    );
    assert_eq!(result["from"], json!(model));
    assert_eq!(
        result["where"],
        json!(
            "Labels = 'PII' AND \"Updated Date\" AFTER TODAY AND ExpandedMembersOfRole('Steward') = ME"
        )
    );
    assert_eq!(result["orderby"], json!("Name DESC"));
    assert_eq!(result["mqlVersion"], json!(3));
    assert_eq!(result["warnings"], json!([]));

    // The rewritten query validates under the current version without warnings.
    let resp = validate(
        t,
        &[
            ("select", result["select"].as_str().unwrap_or_default()),
            ("from", model),
            ("where", result["where"].as_str().unwrap_or_default()),
            ("orderby", result["orderby"].as_str().unwrap_or_default()),
        ],
    )
    .await;
    assert_eq!(warnings(&resp), Vec::<String>::new(), "{}", resp.describe());

    // A current query stays as it is; mqlVersion may be a string.
    let resp = t
        .post(
            UPGRADE,
            &[],
            &json!({"select": "Name", "where": "Name = 'a'", "mqlVersion": "3"}),
        )
        .await;
    assert_eq!(
        resp.ok()["where"],
        json!("Name = 'a'"),
        "{}",
        resp.describe()
    );
}

/// A body that is not a query of its version is 400.
pub async fn upgrade_mql_query_refuses_invalid_queries(t: &Target) {
    let cases = [
        (
            json!({"select": "Name", "where": "Name ="}),
            "INVALID_PARAMETER",
        ),
        (
            json!({"where": "Name = 'a'"}),
            "REQUIRED_PARAMETER_NOT_SPECIFIED",
        ),
        (
            json!({"select": "Name", "mqlVersion": 9}),
            "INVALID_PARAMETER",
        ),
        (
            json!({"select": "Name", "mqlVersion": "one"}),
            "INVALID_PARAMETER",
        ),
        (
            json!({"select": "Name", "where": "Name < 'a'", "mqlVersion": 1}),
            "INVALID_PARAMETER",
        ),
        (json!({"select": 3}), "INVALID_PARAMETER"),
    ];
    for (body, code) in cases {
        let resp = t.post(UPGRADE, &[], &body).await;
        assert_error(&resp, 400, code);
    }
    let resp = t
        .send(
            t.anon(reqwest::Method::POST, UPGRADE)
                .json(&json!({"select": "Name"})),
        )
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
}
