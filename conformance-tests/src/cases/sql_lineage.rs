//! Lineage derived from SQL by an importer plugin: a DDL script imported through the
//! real DDL importer (`sql-ddl`) gives `lineage` relationships between its tables and
//! views, which `GET /lineage/getOperations/{startingId}` walks; what the importer could
//! not resolve is in the operation's log. Needs the suite's plugins
//! ([`Needs::Plugins`](super::Needs::Plugins)).

use std::collections::BTreeSet;

use reqwest::Method;
use serde_json::{Value, json};

use super::imports::import_through;
use crate::harness::{Target, encode_segment};

/// Names unique enough to find each object by its name alone in the model.
const SCRIPT: &str = "\
CREATE TABLE sl_orders (sl_order_ref int PRIMARY KEY, sl_amount numeric, sl_placed date);
CREATE VIEW sl_big_orders AS
    SELECT sl_order_ref AS sl_big_ref, sl_amount * 2 AS sl_doubled
    FROM sl_orders WHERE sl_amount > 100;
CREATE VIEW sl_events_v AS SELECT e.sl_event_id FROM ext.sl_events e;
";

/// The id of the one object of a name and type in the model.
async fn id_of(t: &Target, model: &str, object_type: &str, name: &str) -> String {
    let filter = format!("\"Object Type\" = '{object_type}' AND Name = '{name}'");
    let resp = t
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({"select": "Name", "from": model, "where": filter, "legacyEntityFormat": true}),
        )
        .await;
    let found = resp.ok_array();
    assert_eq!(
        found.len(),
        1,
        "one {object_type} {name}: {}",
        resp.describe()
    );
    found[0]["id"].as_str().expect("an id").to_owned()
}

/// `(direction, depth, source name, target name, operation)` of the operations upstream of
/// an object.
async fn upstream(t: &Target, start: &str) -> BTreeSet<(String, u64, String, String, String)> {
    let resp = t
        .get_q(
            &format!("/lineage/getOperations/{}", encode_segment(start)),
            &[("direction", "upstream")],
        )
        .await;
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    resp.ok()["operations"]
        .as_array()
        .unwrap_or_else(|| panic!("operations: {}", resp.describe()))
        .iter()
        .map(|o| {
            (
                text(&o["direction"]),
                o["depth"].as_u64().unwrap_or_default(),
                text(&o["source"]["name"]),
                text(&o["target"]["name"]),
                text(&o["operation"]),
            )
        })
        .collect()
}

fn op(source: &str, target: &str, operation: &str) -> (String, u64, String, String, String) {
    (
        "UPSTREAM".to_owned(),
        1,
        source.to_owned(),
        target.to_owned(),
        operation.to_owned(),
    )
}

/// The text log of an operation.
async fn log_of(t: &Target, id: &Value) -> String {
    let resp = t
        .send(
            t.call(
                Method::POST,
                &format!("/operations/downloadOperationLog/{id}"),
            )
            .await,
        )
        .await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    resp.text()
}

/// A view of a DDL script imported through the DDL importer has column lineage from the
/// table it selects from (`sql view (DIRECT/...)`) and table lineage (`sql view`); a
/// reference to a table the script does not create is a warning in the operation's log.
pub async fn ddl_import_gives_sql_lineage(t: &Target) {
    let (model, operation) = import_through(
        t,
        "sql-ddl",
        json!({"dialect": "postgres"}),
        Some(("shop.sql", SCRIPT.as_bytes().to_vec())),
    )
    .await;

    let big_ref = id_of(t, &model, "Column", "sl_big_ref").await;
    assert_eq!(
        upstream(t, &big_ref).await,
        BTreeSet::from([op(
            "sl_order_ref",
            "sl_big_ref",
            "sql view (DIRECT/IDENTITY)"
        )])
    );
    let doubled = id_of(t, &model, "Column", "sl_doubled").await;
    assert_eq!(
        upstream(t, &doubled).await,
        BTreeSet::from([op(
            "sl_amount",
            "sl_doubled",
            "sql view (DIRECT/TRANSFORMATION)"
        )])
    );
    let view = id_of(t, &model, "View", "sl_big_orders").await;
    assert_eq!(
        upstream(t, &view).await,
        BTreeSet::from([op("sl_orders", "sl_big_orders", "sql view")])
    );
    // The view over a table the script does not create has no lineage, and says why.
    let events = id_of(t, &model, "View", "sl_events_v").await;
    assert_eq!(upstream(t, &events).await, BTreeSet::new());

    let log = log_of(t, &operation["id"]).await;
    for words in [
        "WARN  line 5 (CREATE VIEW sl_events_v): table 'ext.sl_events' is not in the script",
        "3 lineage relationships",
    ] {
        assert!(log.contains(words), "'{words}' in the log:\n{log}");
    }
}
