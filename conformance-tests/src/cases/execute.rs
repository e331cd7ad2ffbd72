//! Running MQL: POST /entities/executeMQLQuery and GET /entities/countMQLQuery over the
//! sample model (44 objects: a database, 2 schemas, 5 tables, a view, 27 columns, 3
//! keys, 5 glossary terms).

use serde_json::{Value, json};

use crate::harness::{Resp, Target, assert_error};

const EXECUTE: &str = "/entities/executeMQLQuery";
const COUNT: &str = "/entities/countMQLQuery";

async fn execute(t: &Target, body: Value) -> Resp {
    t.post(EXECUTE, &[], &body).await
}

/// The names of the answered entities, when the first SELECT item is Name.
pub(crate) fn names(resp: &Resp) -> Vec<String> {
    resp.ok_array()
        .iter()
        .map(|e| {
            e["attributes"][0]["value"]
                .as_str()
                .unwrap_or_else(|| panic!("a Name first in {}", resp.describe()))
                .to_owned()
        })
        .collect()
}

async fn count(t: &Target, from: &str, filter: &str) -> u64 {
    let resp = t
        .get_q(
            COUNT,
            &[("select", "Name"), ("from", from), ("where", filter)],
        )
        .await;
    resp.ok()
        .as_u64()
        .unwrap_or_else(|| panic!("a count: {}", resp.describe()))
}

/// Filters, ordering and paging run in the store; each answered entity carries one
/// attribute per SELECT item, in order, with its kind.
pub async fn execute_mql_query_filters_orders_and_pages(t: &Target) {
    let imported = t.import_sample().await;
    let from = imported.path.as_str();
    let pii = "\"Object Type\" = 'Column' AND Labels = 'PII'";
    let resp = execute(
        t,
        json!({"select": "Name, \"Object Type\", \"Position\"", "from": from, "where": pii, "orderby": "Name desc"}),
    )
    .await;
    assert_eq!(
        names(&resp),
        ["last_name", "full_name", "first_name", "email", "email"],
        "{}",
        resp.describe()
    );
    let first = &resp.ok_array()[0]["attributes"];
    assert_eq!(
        first[1],
        json!({"attributeType": {"name": "\"Object Type\"", "displayName": "Object Type", "type": "SYSTEM_ATTRIBUTE"}, "value": "Column"})
    );
    assert_eq!(first[2]["value"], json!(3), "{}", resp.describe());

    // Pages are 1-based; the second page of two holds the third and fourth.
    let resp = execute(
        t,
        json!({"select": "Name", "from": from, "where": pii, "orderby": "Name desc", "pageSize": 2, "pageNumber": 2}),
    )
    .await;
    assert_eq!(names(&resp), ["first_name", "email"], "{}", resp.describe());
    assert_eq!(count(t, from, pii).await, 5);

    // Default order: name ascending, byte-wise; the model and its 44 objects without WHERE.
    let resp = execute(t, json!({"select": "Name", "from": from, "pageSize": 3})).await;
    assert_eq!(
        names(&resp),
        ["Client", "Customer", "Email Address"],
        "{}",
        resp.describe()
    );
    let resp = t.get_q(COUNT, &[("select", "Name"), ("from", from)]).await;
    assert_eq!(resp.ok(), &json!(45), "{}", resp.describe());
}

/// The multi-valued semantics of spec 2.12: NOT operators hold for objects without any
/// value; ALL needs every value; related objects, data classes and profiling filter.
pub async fn execute_mql_query_follows_the_multi_valued_rules(t: &Target) {
    let imported = t.import_sample().await;
    let from = imported.path.as_str();
    let columns = count(t, from, "\"Object Type\" = 'Column'").await;
    assert_eq!(columns, 27);
    assert_eq!(
        count(t, from, "\"Object Type\" = 'Column' AND Labels != 'PII'").await,
        22
    );
    assert_eq!(
        count(t, from, "\"Object Type\" = 'Column' AND Labels NOT EXISTS").await,
        20
    );
    assert_eq!(count(t, from, "Labels = ALL ('PII', 'Finance')").await, 0);
    assert_eq!(count(t, from, "Labels = ANY ('PII', 'Finance')").await, 7);
    // A single-valued attribute must have a value for !=.
    assert_eq!(
        count(
            t,
            from,
            "\"Object Type\" = 'Table' AND \"Data Type\" != 'x'"
        )
        .await,
        0
    );
    // Text compares case-insensitively.
    assert_eq!(count(t, from, "Name = 'CUSTOMER'").await, 2);
    // A value in double quotes, as the vendor's pages write it, is text too.
    assert_eq!(count(t, from, "Name = \"CUSTOMER\"").await, 2);
    assert_eq!(
        count(t, from, "\"Name\" = ANY (\"customer\", \"client\")").await,
        count(t, from, "Name = ANY ('customer', 'client')").await
    );
    assert_eq!(count(t, from, "Name STARTS WITH 'Order'").await, 7);
    assert_eq!(count(t, from, "Name ENDS WITH '_ID'").await, 8);
    assert_eq!(count(t, from, "Description CONTAINS 'e-mail'").await, 2);
    // Numbers compare as numbers.
    assert_eq!(count(t, from, "\"Row Count\" > 1000").await, 3);
    assert_eq!(count(t, from, "Position BETWEEN 2 AND 3").await, 12);
    // NOT BETWEEN is its negation, a NOT operator: a single-valued attribute must have a
    // value; on a multi-valued one no value may be between, which holds without values.
    let positioned = count(t, from, "Position EXISTS").await;
    assert_eq!(
        count(t, from, "Position NOT BETWEEN 2 AND 3").await,
        positioned - 12
    );
    assert_eq!(
        count(t, from, "Position NOT BETWEEN \"2\" AND 3").await,
        positioned - 12
    );
    for kind in ["Table", "Schema"] {
        let all = count(t, from, &format!("\"Object Type\" = '{kind}'")).await;
        let between = count(
            t,
            from,
            &format!("\"Object Type\" = '{kind}' AND Children.Position BETWEEN 1 AND 2"),
        )
        .await;
        let not_between = count(
            t,
            from,
            &format!("\"Object Type\" = '{kind}' AND Children.Position NOT BETWEEN 1 AND 2"),
        )
        .await;
        assert_eq!(not_between, all - between, "{kind}");
    }
    // The children of a schema (tables) have no Position: none is between.
    assert_eq!(
        count(
            t,
            from,
            "\"Object Type\" = 'Schema' AND Children.Position NOT BETWEEN 1 AND 1000"
        )
        .await,
        2
    );

    let resp = execute(
        t,
        json!({"select": "Name, Parent", "from": from, "where": "Parent.Name = 'customer' AND \"Data Classifications\" = 'City'"}),
    )
    .await;
    assert_eq!(names(&resp), ["city"], "{}", resp.describe());
    assert_eq!(
        resp.ok_array()[0]["attributes"][1]["value"],
        json!("customer")
    );

    // Filters on Children hold on the same child.
    let resp = execute(
        t,
        json!({"select": "Name", "from": from, "where": "Children.Name = 'email' AND Children.\"Data Type\" = 'VARCHAR(254)'"}),
    )
    .await;
    assert_eq!(
        names(&resp),
        ["customer", "employee"],
        "{}",
        resp.describe()
    );
    assert_eq!(
        count(
            t,
            from,
            "Children.Name = 'email' AND Children.\"Data Type\" = 'INTEGER'"
        )
        .await,
        0
    );

    let resp = execute(
        t,
        json!({"select": "Name, \"Data Profiling\".Max", "from": from, "where": "\"Data Profiling\".Max > 1000"}),
    )
    .await;
    assert_eq!(names(&resp), ["total_amount"], "{}", resp.describe());
    assert_eq!(resp.ok_array()[0]["attributes"][1]["value"], json!(18450.0));
    assert_eq!(
        count(t, from, "\"Has Semantic Definition\" = true").await,
        5
    );
    assert_eq!(
        count(t, from, "\"Sensitivity Label\" = 'Confidential'").await,
        1
    );
}

/// `legacyEntityFormat` answers legacy entities; an unknown attribute runs and finds
/// nothing; an unknown FROM finds nothing.
pub async fn execute_mql_query_legacy_format_and_unknown_names(t: &Target) {
    let imported = t.import_sample().await;
    let from = imported.path.as_str();
    let resp = execute(
        t,
        json!({"select": "Name", "from": from, "where": "Name = 'orders'", "legacyEntityFormat": true}),
    )
    .await;
    let entities = resp.ok_array();
    assert_eq!(entities.len(), 1, "{}", resp.describe());
    assert_eq!(entities[0]["name"], json!("orders"));
    assert!(
        entities[0]["id"]
            .as_str()
            .is_some_and(|id| id.contains('_'))
    );
    let resp = execute(
        t,
        json!({"select": "Name", "from": from, "where": "Nope = 'x'"}),
    )
    .await;
    assert_eq!(resp.ok_array().len(), 0, "{}", resp.describe());
    // FROM a path that names nothing is an error, not an empty answer.
    let resp = execute(t, json!({"select": "Name", "from": "/no/such/folder"})).await;
    assert_error(&resp, 404, "INVALID_REPOSITORY_PATH");
    assert!(
        resp.message().contains("'/no/such/folder'"),
        "{}",
        resp.describe()
    );
}

/// Text search (and CONTAINS on Name) finds objects through the backend's text index:
/// it follows renames and removals of a re-import, matches inside words, across case and
/// across word breakers, and short terms the index cannot serve still work.
pub async fn text_search_follows_renames_and_removals(t: &Target) {
    use super::import::{column, with_objects};
    let imported = t.import_sample().await;
    let from = imported.path.as_str();
    let search = |term: &str| format!("text = '{term}'");
    assert_eq!(count(t, from, &search("ULL_NAm")).await, 1);
    assert_eq!(count(t, from, "Name CONTAINS 'FULL_N'").await, 1);
    assert_eq!(count(t, from, &search("K_ORDERS")).await, 2);
    assert!(count(t, from, &search("e")).await > 2);
    assert_eq!(count(t, from, &search("zqxjk")).await, 0);
    // Space and _ : . [ ] ( ) break words, in the search text and in the names: the
    // phrase "customer id" finds the three customer_id columns, as does customer:id.
    assert_eq!(count(t, from, &search("\"Customer ID\"")).await, 3);
    assert_eq!(count(t, from, &search("+customer:id")).await, 3);
    assert_eq!(count(t, from, &search("\"order item\"")).await, 1);
    assert_eq!(count(t, from, &search("\"order_total\"")).await, 1);
    assert_eq!(count(t, from, &search("\"customer(id)\"")).await, 3);
    // An exact name stays exact, and CONTAINS is no search.
    assert_eq!(count(t, from, &search("=\"customer_id\"")).await, 3);
    assert_eq!(count(t, from, &search("=\"customer id\"")).await, 0);
    // As the vendor's pages write it: a dot, then the name in (typographic) quotes.
    assert_eq!(
        count(t, from, &search(".\u{201C}customer_id\u{201D}")).await,
        3
    );
    assert_eq!(count(t, from, &search(".\"customer id\"")).await, 0);
    assert_eq!(count(t, from, &search("=CUSTOMER")).await, 2);
    assert_eq!(count(t, from, "Name CONTAINS 'customer id'").await, 0);
    assert_eq!(count(t, from, "Name CONTAINS 'customer_id'").await, 3);
    // semantic_search_text: its reserved words select object types, the rest is text.
    let semantic = |phrase: &str| format!("semantic_search_text = '{phrase}'");
    assert_eq!(count(t, from, &semantic("customer tables")).await, 1);
    assert_eq!(count(t, from, &semantic("Customer VIEW")).await, 1);
    assert_eq!(count(t, from, &semantic("customer tables views")).await, 2);
    assert_eq!(
        count(t, from, &semantic("\"customer id\" columns")).await,
        3
    );
    assert_eq!(count(t, from, &semantic("customer terms")).await, 1);
    assert_eq!(count(t, from, &semantic("tables")).await, 5);
    assert_eq!(count(t, from, &semantic("customer reports")).await, 0);
    assert!(count(t, from, &semantic("customer")).await > 3);

    // Re-imported with full_name renamed and the key pk_orders gone.
    let archive = with_objects(|header, rows| {
        let (native, name, physical) = (
            column(header, "native_id"),
            column(header, "name"),
            column(header, "physical_name"),
        );
        rows.retain(|r| !r[native].ends_with(".pk_orders"));
        for row in rows
            .iter_mut()
            .filter(|r| r[native].ends_with(".full_name"))
        {
            row[name] = "Zqxjk Renamed".to_owned();
            row[physical] = "zqxjk_renamed".to_owned();
        }
    });
    t.import(archive, &[("modelId", &imported.model_id)])
        .await
        .ok();
    let resp = execute(
        t,
        json!({"select": "Name", "from": from, "where": search("ZQXJK")}),
    )
    .await;
    assert_eq!(names(&resp), ["Zqxjk Renamed"], "{}", resp.describe());
    assert_eq!(count(t, from, &search("ull_nam")).await, 0);
    assert_eq!(count(t, from, "Name CONTAINS 'full_n'").await, 0);
    assert_eq!(count(t, from, &search("k_orders")).await, 1);

    // And back.
    t.import(
        crate::harness::sample_archive(),
        &[("modelId", &imported.model_id)],
    )
    .await
    .ok();
    assert_eq!(count(t, from, &search("zqxjk")).await, 0);
    assert_eq!(count(t, from, &search("ull_nam")).await, 1);
    assert_eq!(count(t, from, &search("k_orders")).await, 2);
}

/// Bad queries and pages are 400 INVALID_PARAMETER naming what is wrong.
pub async fn execute_mql_query_refuses_bad_input(t: &Target) {
    let resp = execute(t, json!({"select": "Name", "where": "Name = "})).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    assert!(resp.message().contains("line 1"), "{}", resp.describe());
    for (page, what) in [
        (json!({"pageSize": 0}), "pageSize"),
        (json!({"pageSize": 100_000}), "pageSize"),
        (json!({"pageNumber": 0}), "pageNumber"),
        (json!({"pageNumber": "two"}), "pageNumber"),
    ] {
        let mut body = json!({"select": "Name"});
        for (k, v) in page.as_object().into_iter().flatten() {
            body[k] = v.clone();
        }
        let resp = execute(t, body).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
        assert!(resp.message().contains(what), "{}", resp.describe());
    }
    let resp = execute(t, json!({"select": "Name", "where": "Labels > 3"})).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t.post(EXECUTE, &[], &json!("not an object")).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
}

/// countMQLQuery refuses what executeMQLQuery refuses.
pub async fn count_mql_query_refuses_bad_input(t: &Target) {
    let resp = t
        .get_q(COUNT, &[("select", "Name"), ("where", "(Name = 'x'")])
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .get_q(COUNT, &[("select", "Name"), ("mqlVersion", "9")])
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
}

const VALUE_COUNTS: &str = "/entities/getAttributeValueCounts";

/// Facets: each SELECT item's values among the query's objects, most frequent first;
/// multi-valued attributes count an object once per value; dates come in buckets.
pub async fn get_attribute_value_counts_counts_values(t: &Target) {
    let imported = t.import_sample().await;
    let from = imported.path.as_str();
    let resp = t
        .post(
            VALUE_COUNTS,
            &[],
            &json!({"select": "\"Object Type\", Labels, Parent.Name, \"Updated Date\"", "from": from, "where": "\"Object Type\" = ANY ('Column', 'Table')", "dateRangeGap": "YEAR"}),
        )
        .await;
    let result = resp.ok_array();
    assert_eq!(result.len(), 4, "{}", resp.describe());
    assert_eq!(
        result[0],
        json!({"attributeType": {"name": "\"Object Type\"", "displayName": "Object Type", "type": "SYSTEM_ATTRIBUTE"},
               "values": [{"value": "Column", "count": 27}, {"value": "Table", "count": 5}]})
    );
    assert_eq!(
        result[1]["values"],
        json!([{"value": "PII", "count": 5}, {"value": "Finance", "count": 2}]),
        "{}",
        resp.describe()
    );
    let parents = result[2]["values"].as_array().cloned().unwrap_or_default();
    assert_eq!(
        parents[0],
        json!({"value": "customer", "count": 5}),
        "{}",
        resp.describe()
    );
    let years = result[3]["values"].as_array().cloned().unwrap_or_default();
    assert_eq!(years.len(), 1, "{}", resp.describe());
    assert_eq!(years[0]["count"], json!(32));
    assert!(years[0]["value"].as_str().is_some_and(|y| y.len() == 4));

    let resp = t
        .post(
            VALUE_COUNTS,
            &[],
            &json!({"select": "\"Data Classifications\", Position", "from": from, "limit": 2}),
        )
        .await;
    let result = resp.ok_array();
    assert_eq!(
        result[0]["values"],
        json!([{"value": "Email Address", "count": 2}, {"value": "City", "count": 1}]),
        "{}",
        resp.describe()
    );
    assert_eq!(result[1]["values"].as_array().map(Vec::len), Some(2));
}

/// A bad gap, limit, query or a function in SELECT is 400 INVALID_PARAMETER.
pub async fn get_attribute_value_counts_refuses_bad_input(t: &Target) {
    for (body, what) in [
        (
            json!({"select": "Name", "dateRangeGap": "WEEK"}),
            "dateRangeGap",
        ),
        (json!({"select": "Name", "limit": 0}), "limit"),
        (json!({"select": "Name", "where": "Name ="}), "line 1"),
        (json!({"select": "MembersOfRole('Steward')"}), "function"),
        (json!({"select": "\"Object Id\""}), "counted"),
    ] {
        let resp = t.post(VALUE_COUNTS, &[], &body).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
        assert!(resp.message().contains(what), "{what}: {}", resp.describe());
    }
}

/// The id of the sample object with that name and type, found with MQL.
async fn object_id(t: &Target, from: &str, name: &str, object_type: &str) -> String {
    let resp = execute(
        t,
        json!({"select": "\"Object Id\"", "from": from,
               "where": format!("Name = '{name}' AND \"Object Type\" = '{object_type}'")}),
    )
    .await;
    resp.ok_array()
        .first()
        .and_then(|e| e["attributes"][0]["value"].as_str())
        .unwrap_or_else(|| panic!("{name} in {}", resp.describe()))
        .to_owned()
}

/// `select` on GET /entities/{objectId} answers the MQL entity format: one attribute per
/// item, with related objects, classes, labels, profiling and context.
pub async fn entity_with_select_answers_mql_format(t: &Target) {
    let imported = t.import_sample().await;
    let city = object_id(t, &imported.path, "city", "Column").await;
    let select = "Name, Parent, \"Data Classifications\", Labels, \"Data Profiling\".Distinct, Context, Nope, \"Model Id\"";
    let resp = t
        .get_q(
            &format!("/entities/{}", crate::harness::encode_segment(&city)),
            &[("select", select)],
        )
        .await;
    let attributes = resp.ok()["attributes"]
        .as_array()
        .cloned()
        .unwrap_or_else(|| panic!("attributes: {}", resp.describe()));
    let values: Vec<&Value> = attributes.iter().map(|a| &a["value"]).collect();
    assert_eq!(values[0], &json!("city"));
    assert_eq!(values[1], &json!("customer"));
    assert_eq!(values[2], &json!(["City"]));
    assert_eq!(values[3], &json!([]));
    assert_eq!(values[4], &json!(412));
    let context: Vec<&str> = values[5]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert_eq!(
        context[context.len() - 3..],
        ["Sales DB", "sales", "customer"]
    );
    assert_eq!(values[6], &Value::Null);
    assert!(values[7].is_i64(), "{}", resp.describe());
    assert_eq!(attributes[6]["attributeType"]["name"], json!("Nope"));

    let resp = t
        .get_q(
            &format!("/entities/{}", crate::harness::encode_segment(&city)),
            &[("select", "Name,"), ("mqlVersion", "3")],
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
}

/// The objects related to an object by any edge, both ways, and their count.
pub async fn relationships_of_an_object(t: &Target) {
    let imported = t.import_sample().await;
    let from = imported.path.as_str();
    let customer = object_id(t, from, "customer", "Table").await;
    let path = format!(
        "/relationships/{}",
        crate::harness::encode_segment(&customer)
    );
    let resp = t.get(&path).await;
    let names: Vec<&str> = resp
        .ok_array()
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    // orders (entity relationship to it) and the term Customer (semantic link from it).
    assert_eq!(names, ["Customer", "orders"], "{}", resp.describe());
    let resp = t.get_q(&path, &[("select", "Name, \"Object Type\"")]).await;
    assert_eq!(
        resp.ok_array()[1]["attributes"][1]["value"],
        json!("Table"),
        "{}",
        resp.describe()
    );
    let resp = t
        .get(&format!(
            "/relationships/count/{}",
            crate::harness::encode_segment(&customer)
        ))
        .await;
    assert_eq!(resp.ok(), &json!(2), "{}", resp.describe());
}

/// Unknown or malformed objects, bad SELECT lists and versions are refused.
pub async fn relationships_bad_input(t: &Target) {
    let resp = t.get("/relationships/999999_1").await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t
        .get(&format!(
            "/relationships/count/{}",
            crate::harness::encode_segment("a*b")
        ))
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .get_q("/relationships/-1_1", &[("select", "Name =")])
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .get_q("/relationships/count/-1_1", &[("mqlVersion", "x")])
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
}
