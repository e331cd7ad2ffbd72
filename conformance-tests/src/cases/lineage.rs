//! Lineage: `GET /lineage/getOperations/{startingId}` over lineage imported with a model,
//! upstream and downstream, within its bounds; Has Data Lineage and Has Data Impact
//! follow the same edges.

use std::collections::BTreeSet;

use reqwest::Method;
use serde_json::{Value, json};

use super::denied::send_as;
use crate::harness::{Sample, Target, assert_error, encode_segment, unique, zip_map};

/// Lineage rows added to the sample: the order total is computed from the order lines and
/// feeds the customer view.
const LINEAGE: &[(&str, &str, &str)] = &[
    (
        "SUM(quantity * unit_price)",
        "salesdb.sales.order_item.quantity",
        "salesdb.sales.orders.total_amount",
    ),
    (
        "SUM(quantity * unit_price)",
        "salesdb.sales.order_item.unit_price",
        "salesdb.sales.orders.total_amount",
    ),
    (
        "SUM(total_amount)",
        "salesdb.sales.orders.total_amount",
        "salesdb.sales.v_customer_orders.total_spent",
    ),
    (
        "GROUP BY customer_id",
        "salesdb.sales.orders.customer_id",
        "salesdb.sales.v_customer_orders.customer_id",
    ),
];

struct Flow {
    model: String,
    db: String,
}

async fn import_flow(t: &Target) -> Flow {
    let sample = Sample::load();
    let mut relationships =
        String::from_utf8(sample.files["relationships.csv"].clone()).expect("UTF-8");
    for (operation, source, target) in LINEAGE {
        relationships.push_str(&format!("lineage,{operation},{source},{target}\n"));
    }
    let files = sample.with_file("relationships.csv", Some(relationships.into_bytes()));
    let (folder_id, folder) = t.unique_folder("lineage").await;
    let name = unique("Flow");
    let resp = t
        .import(
            zip_map(&files),
            &[("folderId", &folder_id), ("modelName", &name)],
        )
        .await;
    Flow {
        model: resp.ok()["modelId"].as_str().expect("modelId").to_owned(),
        db: format!("/{folder}/{name}/Sales DB"),
    }
}

async fn id(t: &Target, path: &str) -> String {
    t.entity(path).await.ok()["id"]
        .as_str()
        .expect("id")
        .to_owned()
}

fn path(operation: &Value) -> (String, u64, String, String, String) {
    let name = |side: &str| {
        operation[side]["name"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    (
        operation["direction"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        operation["depth"].as_u64().unwrap_or_default(),
        name("source"),
        name("target"),
        operation["operation"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    )
}

async fn operations(t: &Target, start: &str, query: &[(&str, &str)]) -> Value {
    let resp = t
        .get_q(
            &format!("/lineage/getOperations/{}", encode_segment(start)),
            query,
        )
        .await;
    resp.ok().clone()
}

fn set(answer: &Value) -> BTreeSet<(String, u64, String, String, String)> {
    answer["operations"]
        .as_array()
        .expect("operations")
        .iter()
        .map(path)
        .collect()
}

fn op(
    direction: &str,
    depth: u64,
    source: &str,
    target: &str,
    operation: &str,
) -> (String, u64, String, String, String) {
    (
        direction.to_owned(),
        depth,
        source.to_owned(),
        target.to_owned(),
        operation.to_owned(),
    )
}

/// Both directions from the order total; a chain two deep from a line's price; depth,
/// direction, fan-out and limit bounds; and the MQL flags on the same edges.
pub async fn lineage_operations_upstream_and_downstream(t: &Target) {
    let flow = import_flow(t).await;
    let total = id(t, &format!("{}/sales/orders/total_amount", flow.db)).await;
    let price = id(t, &format!("{}/sales/order_item/unit_price", flow.db)).await;

    let both = operations(t, &total, &[]).await;
    assert_eq!(both["startingObject"]["id"], json!(total));
    assert_eq!(both["truncated"], json!(false));
    assert_eq!(
        set(&both),
        BTreeSet::from([
            op(
                "UPSTREAM",
                1,
                "quantity",
                "total_amount",
                "SUM(quantity * unit_price)"
            ),
            op(
                "UPSTREAM",
                1,
                "unit_price",
                "total_amount",
                "SUM(quantity * unit_price)"
            ),
            op(
                "DOWNSTREAM",
                1,
                "total_amount",
                "total_spent",
                "SUM(total_amount)"
            ),
        ])
    );
    let directions: Vec<&str> = both["operations"]
        .as_array()
        .expect("operations")
        .iter()
        .filter_map(|o| o["direction"].as_str())
        .collect();
    assert_eq!(
        directions,
        ["UPSTREAM", "UPSTREAM", "DOWNSTREAM"],
        "upstream first"
    );

    let chain = operations(t, &price, &[("direction", "downstream")]).await;
    assert_eq!(
        set(&chain),
        BTreeSet::from([
            op(
                "DOWNSTREAM",
                1,
                "unit_price",
                "total_amount",
                "SUM(quantity * unit_price)"
            ),
            op(
                "DOWNSTREAM",
                2,
                "total_amount",
                "total_spent",
                "SUM(total_amount)"
            ),
        ])
    );
    let shallow = operations(t, &price, &[("direction", "DOWNSTREAM"), ("depth", "1")]).await;
    assert_eq!(set(&shallow).len(), 1);
    assert_eq!(shallow["depth"], json!(1));
    let upstream = operations(t, &price, &[("direction", "upstream")]).await;
    assert!(set(&upstream).is_empty(), "nothing feeds the price");

    let narrow = operations(t, &total, &[("direction", "upstream"), ("fanOut", "1")]).await;
    assert_eq!(set(&narrow).len(), 1, "one edge followed per object");
    let cut = operations(t, &total, &[("direction", "upstream"), ("limit", "1")]).await;
    assert_eq!(set(&cut).len(), 1);
    assert_eq!(cut["truncated"], json!(true));

    let count = |filter: &'static str| {
        let model = flow.model.clone();
        async move {
            let resp = t
                .get_q(
                    "/entities/countMQLQuery",
                    &[
                        ("select", "Name"),
                        ("from", model.as_str()),
                        ("where", filter),
                    ],
                )
                .await;
            resp.ok().as_u64().expect("a count")
        }
    };
    // Fed: total_amount, total_spent, v_customer_orders.customer_id.
    assert_eq!(count("\"Has Data Lineage\" = true").await, 3);
    // Feeding: quantity, unit_price, total_amount, orders.customer_id.
    assert_eq!(count("\"Has Data Impact\" = true").await, 4);
}

/// A re-import that drops a lineage row removes its operation; as of a time before the
/// re-import the operation is there, between the objects as they were.
pub async fn lineage_operations_are_read_as_of(t: &Target) {
    let flow = import_flow(t).await;
    let start = id(t, &format!("{}/sales/orders/customer_id", flow.db)).await;
    let now = operations(t, &start, &[("direction", "downstream")]).await;
    assert_eq!(set(&now).len(), 1, "{now}");
    let before = lore_core::model::format_micros(&lore_core::model::now());
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;

    // The same model again, without its GROUP BY row.
    let sample = Sample::load();
    let mut relationships =
        String::from_utf8(sample.files["relationships.csv"].clone()).expect("UTF-8");
    for (operation, source, target) in &LINEAGE[..3] {
        relationships.push_str(&format!("lineage,{operation},{source},{target}\n"));
    }
    let files = sample.with_file("relationships.csv", Some(relationships.into_bytes()));
    t.import(zip_map(&files), &[("modelId", &flow.model)])
        .await
        .ok();
    let after = operations(t, &start, &[("direction", "downstream")]).await;
    assert!(set(&after).is_empty(), "the operation is gone: {after}");

    let then = operations(
        t,
        &start,
        &[("direction", "downstream"), ("asOf", before.as_str())],
    )
    .await;
    assert_eq!(set(&then), set(&now), "as of before the re-import: {then}");
    assert_eq!(then["startingObject"], now["startingObject"]);
    let resp = t
        .get_q(
            &format!("/lineage/getOperations/{}", encode_segment(&start)),
            &[("asOf", "2999-01-01T00:00:00Z")],
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
}

/// Bounds out of range, an unknown direction and an unknown object are refused.
pub async fn lineage_operations_bad_input(t: &Target) {
    let flow = import_flow(t).await;
    let total = id(t, &format!("{}/sales/orders/total_amount", flow.db)).await;
    let path = format!("/lineage/getOperations/{}", encode_segment(&total));
    for (name, value) in [
        ("depth", "0"),
        ("depth", "21"),
        ("depth", "deep"),
        ("fanOut", "0"),
        ("fanOut", "1001"),
        ("limit", "10001"),
        ("limit", "-1"),
        ("direction", "sideways"),
    ] {
        let resp = t.get_q(&path, &[(name, value)]).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
        assert!(resp.message().contains(name), "{}", resp.message());
    }
    let resp = t.get("/lineage/getOperations/999999_1").await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
}

/// A user without View Metadata reads no lineage.
pub async fn lineage_operations_denied(t: &Target) {
    let flow = import_flow(t).await;
    let total = id(t, &format!("{}/sales/orders/total_amount", flow.db)).await;
    let nobody = t.key_with_roles(&[]).await;
    let path = format!("/lineage/getOperations/{}", encode_segment(&total));
    let resp = send_as(t, &nobody, Method::GET, &path, &[], None).await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
}
