//! Setting attribute values: `PUT /repository/setAttributes` with the body real clients
//! send (COMPAT), and the deprecated `setCustomAttributes`.

use reqwest::Method;
use serde_json::{Value, json};

use super::denied::send_as;
use crate::harness::{Target, assert_error};

const SET: &str = "/repository/setAttributes";
const SET_DEPRECATED: &str = "/repository/setCustomAttributes";

fn value(kind: &str, name: &str, value: Value) -> Value {
    json!({"attributeType": {"type": kind, "name": name}, "value": value})
}

/// The value of an attribute in a legacy entity.
fn attribute(entity: &Value, name: &str) -> Option<Value> {
    entity["attributes"]
        .as_array()
        .expect("attributes")
        .iter()
        .find(|a| a["attributeType"]["name"] == json!(name))
        .map(|a| a["value"].clone())
}

/// A table of a freshly imported sample: (model id, table path, table entity).
async fn table(t: &Target) -> (String, String, Value) {
    let imported = t.import_sample().await;
    let path = format!("{}/Sales DB/sales/customer", imported.path);
    let entity = t.entity(&path).await.ok().clone();
    (imported.model_id, path, entity)
}

/// Custom, profile and documentation system attributes set by stable id, one removed with
/// null; MQL finds the new value; the deprecated path does the same, marked deprecated.
pub async fn set_attributes_custom_profile_and_system(t: &Target) {
    let (model, path, entity) = table(t).await;
    let stable = attribute(&entity, "Object Stable Id").expect("a stable id");
    let resp = t
        .put(
            SET,
            &[],
            &json!({
                "id": stable,
                "values": [
                    value("CUSTOM_ATTRIBUTE", "Security Level", json!("Secret")),
                    value("ATTRIBUTE", "Row Count", json!(1200)),
                    value("SYSTEM_ATTRIBUTE", "Business Description", json!("Who buys.")),
                    value("SYSTEM_ATTRIBUTE", "Hide Data", json!(true)),
                ],
                "comment": "reviewed",
            }),
        )
        .await;
    let updated = resp.ok().clone();
    assert_eq!(updated["id"], entity["id"]);
    assert_eq!(attribute(&updated, "Security Level"), Some(json!("Secret")));
    assert_eq!(attribute(&updated, "Row Count"), Some(json!(1200)));
    assert_eq!(
        attribute(&updated, "Business Description"),
        Some(json!("Who buys."))
    );
    assert_eq!(attribute(&updated, "Hide Data"), Some(json!(true)));
    let found = t
        .get_q(
            "/entities/countMQLQuery",
            &[
                ("select", "Name"),
                ("from", model.as_str()),
                (
                    "where",
                    "\"Security Level\" = 'Secret' AND \"Row Count\" > 1000",
                ),
            ],
        )
        .await;
    assert_eq!(found.ok(), &json!(1));

    // The deprecated path, by repository path, with a removal and no type named.
    let resp = t
        .put(
            SET_DEPRECATED,
            &[],
            &json!({"id": path, "values": [
                {"attributeType": {"name": "Security Level"}, "value": null},
                value("SYSTEM_ATTRIBUTE", "Hide Data", json!("false")),
            ]}),
        )
        .await;
    let link = resp
        .headers
        .get("link")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    assert!(link.contains("/repository/setAttributes"), "{link}");
    assert_eq!(
        resp.headers
            .get("deprecation")
            .and_then(|v| v.to_str().ok()),
        Some("true")
    );
    let updated = resp.ok().clone();
    assert_eq!(attribute(&updated, "Security Level"), None);
    assert_eq!(attribute(&updated, "Row Count"), Some(json!(1200)));
    assert_eq!(attribute(&updated, "Hide Data"), Some(json!(false)));
}

/// Every wrong body is refused with what was wrong, and nothing is written: not even
/// the good values of a body with one bad one.
pub async fn set_attributes_bad_input(t: &Target) {
    let (model, _, entity) = table(t).await;
    let id = entity["id"].clone();
    let before = t.export(&model, &[]).await.bytes;
    let good = value("CUSTOM_ATTRIBUTE", "Security Level", json!("Secret"));
    let bodies: [(Value, u16, &str, &str); 11] = [
        (
            json!({"values": [good]}),
            400,
            "REQUIRED_PARAMETER_NOT_SPECIFIED",
            "id",
        ),
        (
            json!({"id": id}),
            400,
            "REQUIRED_PARAMETER_NOT_SPECIFIED",
            "values",
        ),
        (
            json!({"id": id, "values": []}),
            400,
            "REQUIRED_PARAMETER_NOT_SPECIFIED",
            "values",
        ),
        (
            json!({"id": id, "values": [good, value("CUSTOM_ATTRIBUTE", "No Such Thing", json!("x"))]}),
            400,
            "INVALID_PARAMETER",
            "No Such Thing",
        ),
        // A profile attribute of columns, not tables.
        (
            json!({"id": id, "values": [good, value("ATTRIBUTE", "Nullable", json!(true))]}),
            400,
            "INVALID_PARAMETER",
            "Nullable",
        ),
        (
            json!({"id": id, "values": [good, value("SYSTEM_ATTRIBUTE", "Name", json!("renamed"))]}),
            400,
            "OPERATION_NOT_SUPPORTED",
            "Name",
        ),
        (
            json!({"id": id, "values": [good, value("ATTRIBUTE", "Row Count", json!("many"))]}),
            400,
            "INVALID_PARAMETER",
            "Row Count",
        ),
        (
            json!({"id": id, "values": [value("CUSTOM_ATTRIBUTE", "Security Level", json!({"a": 1}))]}),
            400,
            "INVALID_PARAMETER",
            "Security Level",
        ),
        (
            json!({"id": id, "values": [value("SOMETHING", "Security Level", json!("x"))]}),
            400,
            "INVALID_PARAMETER",
            "SOMETHING",
        ),
        (
            json!({"id": id, "values": [good, good]}),
            400,
            "INVALID_PARAMETER",
            "twice",
        ),
        (
            json!({"id": "999999_1", "values": [good]}),
            404,
            "OBJECT_NOT_FOUND",
            "999999_1",
        ),
    ];
    for path in [SET, SET_DEPRECATED] {
        for (body, status, code, named) in &bodies {
            let resp = t.put(path, &[], body).await;
            assert_error(&resp, *status, code);
            assert!(
                resp.message().contains(named),
                "{path} {body}: the message names {named}: {}",
                resp.message()
            );
        }
        let resp = t
            .send(
                t.call(Method::PUT, path)
                    .await
                    .header("content-type", "application/json")
                    .body("{not json"),
            )
            .await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    assert_eq!(
        t.export(&model, &[]).await.bytes,
        before,
        "nothing was written"
    );
}

/// A Metadata Viewer may read the object but not set its attributes.
pub async fn set_attributes_without_edit_metadata_are_denied(t: &Target) {
    let (model, _, entity) = table(t).await;
    let viewer = t.key_with_roles(&["Metadata Viewer"]).await;
    let before = t.export(&model, &[]).await.bytes;
    let body = json!({"id": entity["id"], "values": [
        value("CUSTOM_ATTRIBUTE", "Security Level", json!("Secret"))
    ]});
    for path in [SET, SET_DEPRECATED] {
        let resp = send_as(t, &viewer, Method::PUT, path, &[], Some(body.clone())).await;
        assert_error(&resp, 403, "PERMISSION_DENIED");
    }
    assert_eq!(
        t.export(&model, &[]).await.bytes,
        before,
        "nothing was written"
    );
}
