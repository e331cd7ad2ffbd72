//! The meta model as XML: importXML, exportXML (a package is a profile) and the
//! deprecated customAttributes read. Every case defines its own uniquely named types:
//! the server is shared.

use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use serde_json::{Value, json};

use super::denied::send_as;
use crate::harness::{Resp, Target, assert_error, encode_segment, unique};

const IMPORT: &str = "/repository/metaModel/importXML";
const EXPORT: &str = "/repository/metaModel/exportXML";

/// A file defining, in profile `profile`: a custom attribute, a custom relationship, a
/// profile attribute and an object type carrying it.
fn definitions(profile: &str, custom: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?>
<metaModel formatVersion="1">
  <attributeType name="{custom}" kind="CUSTOM_ATTRIBUTE" valueType="Integer" group="Governance">
    <description>How secret, 1 to 5 &amp; rising.</description>
  </attributeType>
  <objectType profile="{profile}" name="Report" systemType="Classifier" category="Report" displayName="BI Report">
    <attribute name="{profile} Refresh"/>
  </objectType>
  <attributeType name="{profile} Refresh" kind="ATTRIBUTE" valueType="String" profile="{profile}"/>
  <attributeType name="{custom} Reviewed By" kind="CUSTOM_RELATIONSHIP" valueType="Object"/>
</metaModel>
"#
    )
}

async fn import(t: &Target, xml: &str, content_type: &str) -> Resp {
    t.send(
        t.call(Method::POST, IMPORT)
            .await
            .header(CONTENT_TYPE, content_type)
            .body(xml.to_owned()),
    )
    .await
}

async fn export(t: &Target, package: Option<&str>) -> Resp {
    let mut request = t.call(Method::POST, EXPORT).await;
    if let Some(package) = package {
        request = request.query(&[("package", package)]);
    }
    t.send(request).await
}

fn counts(resp: &Resp, kind: &str) -> (u64, u64, u64) {
    let c = &resp.ok()[kind];
    let n = |f: &str| {
        c[f].as_u64()
            .unwrap_or_else(|| panic!("{kind}.{f}: {}", resp.describe()))
    };
    (n("added"), n("updated"), n("unchanged"))
}

/// Import, re-import (unchanged), export of the package and its re-import (unchanged,
/// byte-identical export), the new types in /types, a value of the new custom attribute
/// set and queried, and the deprecated read of it.
pub async fn meta_model_xml_import_export_round_trip(t: &Target) {
    let profile = unique("BI");
    let custom = unique("Secrecy");
    let xml = definitions(&profile, &custom);
    let resp = import(t, &xml, "application/xml").await;
    assert_eq!(counts(&resp, "attributeTypes"), (3, 0, 0));
    assert_eq!(counts(&resp, "objectTypes"), (1, 0, 0));
    let resp = import(t, &xml, "text/xml").await;
    assert_eq!(counts(&resp, "attributeTypes"), (0, 0, 3));
    assert_eq!(counts(&resp, "objectTypes"), (0, 0, 1));

    let package = export(t, Some(&profile)).await;
    assert_eq!(package.status, 200, "{}", package.describe());
    assert!(package.content_type().starts_with("application/xml"));
    let text = package.text();
    assert!(
        text.contains(&format!("name=\"{profile} Refresh\"")),
        "{text}"
    );
    assert!(text.contains("displayName=\"BI Report\""), "{text}");
    assert!(
        !text.contains(&custom),
        "a package holds its profile's definitions only"
    );
    let resp = import(t, &text, "application/xml").await;
    assert_eq!(counts(&resp, "attributeTypes"), (0, 0, 1));
    assert_eq!(counts(&resp, "objectTypes"), (0, 0, 1));
    assert_eq!(export(t, Some(&profile)).await.bytes, package.bytes);
    let everything = export(t, None).await.text();
    assert!(everything.contains(&format!("name=\"{custom}\"")));
    assert!(everything.contains("How secret, 1 to 5 &amp; rising."));

    // The new object type and its attribute are in /types.
    let qualified = format!("{profile}.Report");
    let types = t
        .get_q("/types/listObjectTypes", &[("profileName", &profile)])
        .await;
    let names: Vec<&str> = types
        .ok_array()
        .iter()
        .filter_map(|o| o["name"].as_str())
        .collect();
    assert_eq!(names, [qualified.as_str()]);
    let attributes = t
        .get_q("/types/listAttributeTypes", &[("objectType", &qualified)])
        .await;
    assert!(
        attributes
            .ok_array()
            .iter()
            .any(|a| a["name"] == json!(format!("{profile} Refresh"))
                && a["type"] == json!("ATTRIBUTE")),
        "{}",
        attributes.describe()
    );

    // A value of the new custom attribute, set and queried.
    let imported = t.import_sample().await;
    let table = t
        .entity(&format!("{}/Sales DB/sales/customer", imported.path))
        .await;
    let resp = t
        .put(
            "/repository/setAttributes",
            &[],
            &json!({"id": table.ok()["id"], "values": [
                {"attributeType": {"type": "CUSTOM_ATTRIBUTE", "name": custom}, "value": "4"}
            ]}),
        )
        .await;
    resp.ok();
    let filter = format!("\"{custom}\" >= 4");
    let found = t
        .get_q(
            "/entities/countMQLQuery",
            &[
                ("select", "Name"),
                ("from", imported.model_id.as_str()),
                ("where", filter.as_str()),
            ],
        )
        .await;
    assert_eq!(found.ok(), &json!(1));

    // The deprecated read.
    let resp = t
        .get(&format!(
            "/repository/customAttributes/{}",
            encode_segment(&custom)
        ))
        .await;
    let read = resp.ok().clone();
    assert_eq!(read["id"], json!(custom));
    assert_eq!(read["type"], json!("CUSTOM_ATTRIBUTE"));
    assert_eq!(read["valueType"], json!("Integer"));
    assert_eq!(read["group"], json!("Governance"));
    assert_eq!(read["description"], json!("How secret, 1 to 5 & rising."));
    assert_eq!(
        resp.headers
            .get("deprecation")
            .and_then(|v| v.to_str().ok()),
        Some("true")
    );
}

/// Files that are not the format, or define what cannot be kept, are refused with what
/// was wrong, and nothing of them is written; unknown packages and attribute types are
/// 404.
pub async fn meta_model_xml_bad_input(t: &Target) {
    let profile = unique("BadBI");
    let custom = unique("BadSecrecy");
    let good = definitions(&profile, &custom);
    let import_ok = import(t, &good, "application/xml").await;
    import_ok.ok();
    let before = export(t, Some(&profile)).await.bytes;
    let fresh = unique("Fresh");
    let bad: [(String, u16, &str, &str); 7] = [
        ("this is not XML".into(), 400, "INVALID_PARAMETER", "not valid"),
        (String::new(), 400, "INVALID_PARAMETER", "not valid"),
        (
            r#"<metaModel formatVersion="9"/>"#.into(),
            400,
            "INVALID_PARAMETER",
            "formatVersion",
        ),
        (
            format!(
                r#"<metaModel formatVersion="1"><attributeType name="{fresh}" kind="CUSTOM_ATTRIBUTE" valueType="String"/><attributeType name="Name" kind="CUSTOM_ATTRIBUTE" valueType="String"/></metaModel>"#
            ),
            400,
            "INVALID_PARAMETER",
            "built-in",
        ),
        (
            format!(
                r#"<metaModel formatVersion="1"><objectType profile="{profile}" name="Report" systemType="Classifier"><attribute name="Nope"/></objectType></metaModel>"#
            ),
            400,
            "INVALID_PARAMETER",
            "Nope",
        ),
        (
            format!(
                r#"<metaModel formatVersion="1"><attributeType name="{fresh}" kind="CUSTOM_ATTRIBUTE" valueType="String"/><attributeType name="{custom}" kind="CUSTOM_ATTRIBUTE" valueType="String"/></metaModel>"#
            ),
            409,
            "CONFLICT",
            custom.as_str(),
        ),
        (
            r#"<!DOCTYPE m [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><metaModel formatVersion="1"/>"#.into(),
            400,
            "INVALID_PARAMETER",
            "DOCTYPE",
        ),
    ];
    for (xml, status, code, named) in &bad {
        let resp = import(t, xml, "application/xml").await;
        assert_error(&resp, *status, code);
        assert!(
            resp.message().contains(named),
            "the message names {named}: {}",
            resp.message()
        );
    }
    let resp = import(t, &good, "image/png").await;
    assert_error(&resp, 415, "UNSUPPORTED_MEDIA_TYPE");
    assert_eq!(
        export(t, Some(&profile)).await.bytes,
        before,
        "nothing was written"
    );
    assert!(
        !export(t, None).await.text().contains(&fresh),
        "a refused file adds none of its good definitions"
    );
    let resp = export(t, Some("No Such Profile 42")).await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t
        .get("/repository/customAttributes/No%20Such%20Attribute%2042")
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
}

/// A Metadata Viewer exports and reads but may not import; a user without View
/// Metadata does neither.
pub async fn meta_model_xml_denied(t: &Target) {
    let viewer = t.key_with_roles(&["Metadata Viewer"]).await;
    let nobody = t.key_with_roles(&[]).await;
    let profile = unique("DeniedBI");
    let xml = definitions(&profile, &unique("DeniedSecrecy"));
    let resp = t
        .send(
            t.anon(Method::POST, IMPORT)
                .header("api-key", &viewer)
                .header(CONTENT_TYPE, "application/xml")
                .body(xml),
        )
        .await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
    let resp = send_as(t, &viewer, Method::POST, EXPORT, &[], None).await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    let resp = send_as(t, &nobody, Method::POST, EXPORT, &[], None).await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
    let resp = send_as(
        t,
        &nobody,
        Method::GET,
        "/repository/customAttributes/Name",
        &[],
        None,
    )
    .await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
    let types: Value = t.get("/types/listProfiles").await.ok().clone();
    assert!(
        !types.to_string().contains(&profile),
        "the denied import defined nothing"
    );
}
