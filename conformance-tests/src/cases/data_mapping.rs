//! Data mapping scripts: importScript, exportScript and the deprecated exportExcel, a
//! round trip between two models, edits, and the lineage they make.

use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use serde_json::json;

use super::denied::send_as;
use crate::harness::{Imported, Resp, Target, assert_error, encode_segment};

const IMPORT: &str = "/dataMapping/importScript";
const EXPORT: &str = "/dataMapping/exportScript";

async fn import_script(t: &Target, key: &str, script: &str, content_type: &str) -> Resp {
    t.send(
        t.anon(Method::POST, IMPORT)
            .header("api-key", key)
            .header(CONTENT_TYPE, content_type)
            .body(script.to_owned()),
    )
    .await
}

async fn export_script(t: &Target, key: &str, path: &str, query: &[(&str, &str)]) -> Resp {
    send_as(t, key, Method::POST, path, query, None).await
}

fn script(source: &Imported, target: &Imported, maps: &[&str]) -> String {
    let mut text = format!(
        "SOURCE MODEL '{}';\nTARGET MODEL '{}';\n",
        source.path.replace('\'', "''"),
        target.path.replace('\'', "''")
    );
    for map in maps {
        text.push_str(map);
        text.push('\n');
    }
    text
}

const TOTAL: &str = r#"MAP "Sales DB"."sales"."orders"."total_amount" TO "Sales DB"."sales"."v_customer_orders"."total_spent" USING 'SUM(total_amount)';"#;
const CUSTOMER: &str = r#"MAP "Sales DB"."sales"."orders"."customer_id" TO "Sales DB"."sales"."v_customer_orders"."customer_id";"#;
const NAME: &str = r#"MAP "Sales DB"."sales"."customer"."last_name" TO "Sales DB"."hr"."employee"."full_name" USING 'first_name || '' '' || last_name';"#;

fn counts(resp: &Resp) -> (u64, u64, u64, u64) {
    let n = |f: &str| {
        resp.ok()[f]
            .as_u64()
            .unwrap_or_else(|| panic!("{f}: {}", resp.describe()))
    };
    (n("mappings"), n("added"), n("removed"), n("unchanged"))
}

/// A script between two models imports, exports as a script that imports back unchanged
/// and exports to the same bytes; an edit adds and removes; the lineage shows.
pub async fn data_mapping_scripts_round_trip(t: &Target) {
    let key = t.key().await;
    let staging = t.import_sample().await;
    let warehouse = t.import_sample().await;
    let first = script(&staging, &warehouse, &[TOTAL, CUSTOMER]);
    let resp = import_script(t, &key, &first, "text/plain").await;
    assert_eq!(counts(&resp), (2, 2, 0, 0));

    let query = [
        ("sourceModelId", staging.model_id.as_str()),
        ("targetModelId", warehouse.model_id.as_str()),
    ];
    let exported = export_script(t, &key, EXPORT, &query).await;
    assert_eq!(exported.status, 200, "{}", exported.describe());
    assert!(exported.content_type().starts_with("text/plain"));
    let text = exported.text();
    assert!(
        text.starts_with("-- Lore data mapping script, format 1"),
        "{text}"
    );
    assert!(text.contains(TOTAL), "{text}");
    assert!(text.contains(CUSTOMER), "{text}");
    let resp = import_script(t, &key, &text, "text/plain").await;
    assert_eq!(
        counts(&resp),
        (2, 0, 0, 2),
        "the export imports back unchanged"
    );
    assert_eq!(
        export_script(t, &key, EXPORT, &query).await.bytes,
        exported.bytes
    );

    // The deprecated method answers the same, marked deprecated.
    let excel = export_script(t, &key, "/dataMapping/exportExcel", &query).await;
    assert_eq!(excel.bytes, exported.bytes);
    assert_eq!(
        excel
            .headers
            .get("deprecation")
            .and_then(|v| v.to_str().ok()),
        Some("true")
    );

    // An edit: one mapping out, one in (with quotes in its logic).
    let edited = text.replace(CUSTOMER, NAME);
    let resp = import_script(t, &key, &edited, "text/plain").await;
    assert_eq!(counts(&resp), (2, 1, 1, 1));
    let again = export_script(t, &key, EXPORT, &query).await.text();
    assert!(again.contains(NAME) && !again.contains(CUSTOMER), "{again}");

    // The mapping is lineage across the models.
    let total = t
        .entity(&format!(
            "{}/Sales DB/sales/orders/total_amount",
            staging.path
        ))
        .await;
    let total = total.ok()["id"].as_str().expect("id").to_owned();
    let lineage = t
        .get_q(
            &format!("/lineage/getOperations/{}", encode_segment(&total)),
            &[("direction", "downstream")],
        )
        .await;
    let operations = lineage.ok()["operations"]
        .as_array()
        .expect("operations")
        .clone();
    assert_eq!(operations.len(), 1);
    assert_eq!(operations[0]["operation"], json!("SUM(total_amount)"));
    assert_eq!(operations[0]["target"]["name"], json!("total_spent"));

    // Inside one model: the target defaults to the source.
    let inner = script(&staging, &staging, &[NAME]);
    let resp = import_script(t, &key, &inner, "text/plain").await;
    assert_eq!(counts(&resp), (1, 1, 0, 0));
    let own = export_script(t, &key, EXPORT, &[("sourceModelId", &staging.model_id)]).await;
    assert!(own.text().contains(NAME), "{}", own.text());
    // An empty script clears the mapping.
    let resp = import_script(t, &key, &script(&staging, &staging, &[]), "text/plain").await;
    assert_eq!(counts(&resp), (0, 0, 1, 0));
}

/// Bad scripts and parameters are refused with what was wrong (the line of a script), and
/// the mapping stays as it was.
pub async fn data_mapping_scripts_bad_input(t: &Target) {
    let key = t.key().await;
    let staging = t.import_sample().await;
    let warehouse = t.import_sample().await;
    let resp = import_script(
        t,
        &key,
        &script(&staging, &warehouse, &[TOTAL]),
        "text/plain",
    )
    .await;
    resp.ok();
    let query = [
        ("sourceModelId", staging.model_id.as_str()),
        ("targetModelId", warehouse.model_id.as_str()),
    ];
    let before = export_script(t, &key, EXPORT, &query).await.bytes;
    let bad: [(String, &str); 7] = [
        (
            script(&staging, &warehouse, &[TOTAL, "MAP \"Sales DB\" \"x\";"]),
            "line 4",
        ),
        (
            script(
                &staging,
                &warehouse,
                &[r#"MAP "Sales DB"."nope" TO "Sales DB";"#],
            ),
            "line 3",
        ),
        (
            script(&staging, &staging, &[r#"MAP "Sales DB" TO "Sales DB";"#]),
            "itself",
        ),
        (script(&staging, &warehouse, &[TOTAL, TOTAL]), "line 4"),
        (
            script(&staging, &warehouse, &[r#"MAP ID 'x' TO "Sales DB";"#]),
            "not an object id",
        ),
        (format!("SOURCE MODEL '{}';", staging.path), "TARGET MODEL"),
        ("DELETE FROM edges;".to_owned(), "line 1"),
    ];
    for (text, named) in &bad {
        let resp = import_script(t, &key, text, "text/plain").await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
        assert!(
            resp.message().contains(named),
            "{named}: {}",
            resp.message()
        );
    }
    let folder = script(&staging, &warehouse, &[]).replace(
        &staging.path,
        &format!("/{}", staging.path.split('/').nth(1).unwrap_or_default()),
    );
    let resp = import_script(t, &key, &folder, "text/plain").await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = import_script(
        t,
        &key,
        "SOURCE MODEL '/no/such';\nTARGET MODEL '/no/such';",
        "text/plain",
    )
    .await;
    assert_eq!(resp.status, 404, "{}", resp.describe());
    let resp = t
        .send(
            t.anon(Method::POST, IMPORT)
                .header("api-key", &key)
                .header(CONTENT_TYPE, "text/plain")
                .body(vec![0xff, 0xfe, 0x00]),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = import_script(t, &key, TOTAL, "image/png").await;
    assert_error(&resp, 415, "UNSUPPORTED_MEDIA_TYPE");
    assert_eq!(
        export_script(t, &key, EXPORT, &query).await.bytes,
        before,
        "the mapping is as it was"
    );

    for path in [EXPORT, "/dataMapping/exportExcel"] {
        let resp = export_script(t, &key, path, &[]).await;
        assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
        let resp = export_script(t, &key, path, &[("sourceModelId", &staging.folder_id)]).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
        let resp = export_script(t, &key, path, &[("sourceModelId", "999999_1")]).await;
        assert_eq!(resp.status, 404, "{}", resp.describe());
    }
}

/// A Metadata Viewer exports but may not import; a user without View Metadata does
/// neither.
pub async fn data_mapping_scripts_denied(t: &Target) {
    let key = t.key().await;
    let staging = t.import_sample().await;
    let viewer = t.key_with_roles(&["Metadata Viewer"]).await;
    let nobody = t.key_with_roles(&[]).await;
    let text = script(&staging, &staging, &[NAME]);
    let resp = import_script(t, &viewer, &text, "text/plain").await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
    let query = [("sourceModelId", staging.model_id.as_str())];
    let resp = export_script(t, &viewer, EXPORT, &query).await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    assert!(
        !resp.text().lines().any(|l| l.starts_with("MAP ")),
        "the denied import wrote nothing"
    );
    for path in [EXPORT, "/dataMapping/exportExcel"] {
        let resp = export_script(t, &nobody, path, &query).await;
        assert_error(&resp, 403, "PERMISSION_DENIED");
    }
    let resp = import_script(t, &nobody, &text, "text/plain").await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
    drop(key);
}
