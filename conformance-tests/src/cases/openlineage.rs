//! OpenLineage intake (`POST /api/v1/lineage`, `/api/v1/lineage/batch`) and the runs its
//! events describe (`GET /api/v1/namespaces/{namespace}/jobs/{job}/runs`, `GET
//! /api/v1/jobs/runs/{runId}`): outside the API's base path, keyed by `api-key` or
//! `Authorization: Bearer`, posting with the capability `EmitLineage`.

use std::io::Write;

use rand::Rng;
use reqwest::header::{AUTHORIZATION, CONTENT_ENCODING, CONTENT_TYPE};
use serde_json::{Value, json};

use crate::harness::{Resp, Target, assert_error, encode_segment, unique};

mod producers;
pub use producers::{
    event_bounds_are_named_and_a_batch_keeps_the_rest, events_of_real_producers_land,
};

/// A fresh run id (a version 4 UUID).
fn run_id() -> String {
    let n: u128 = rand::rng().random();
    let hex = format!("{n:032x}");
    format!(
        "{}-{}-4{}-8{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[13..16],
        &hex[17..20],
        &hex[20..32]
    )
}

fn run_event(kind: &str, time: &str, run: &str, job: &str, error: Option<&str>) -> Value {
    let mut facets = json!({
        "vendorFacet": {
            "_producer": "https://example.com/producer",
            "_schemaURL": "https://example.com/vendorFacet.json",
            "kept": ["as", "posted"]
        }
    });
    if let Some(message) = error {
        facets["errorMessage"] = json!({
            "_producer": "https://example.com/producer",
            "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/ErrorMessageRunFacet.json#/$defs/ErrorMessageRunFacet",
            "message": message,
            "programmingLanguage": "python"
        });
    }
    json!({
        "eventType": kind,
        "eventTime": time,
        "producer": "https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": run, "facets": facets},
        "job": {"namespace": "conformance", "name": job},
        "inputs": [{"namespace": "postgres://db:5432", "name": "shop.public.orders"}],
        "outputs": [{"namespace": "postgres://db:5432", "name": "shop.public.daily"}]
    })
}

async fn post(t: &Target, path: &str, key: &str, body: &Value) -> Resp {
    t.send(
        t.client
            .post(format!("{}{path}", t.origin()))
            .header(AUTHORIZATION, format!("Bearer {key}"))
            .json(body),
    )
    .await
}

/// `GET /api/v1/jobs/runs/{runId}` with the key.
async fn run_record(t: &Target, key: &str, run: &str) -> Resp {
    t.send(
        t.client
            .get(format!("{}/api/v1/jobs/runs/{run}", t.origin()))
            .header("api-key", key),
    )
    .await
}

async fn runs(t: &Target, key: &str, job: &str) -> Resp {
    t.send(
        t.client
            .get(format!(
                "{}/api/v1/namespaces/conformance/jobs/{}/runs",
                t.origin(),
                encode_segment(job)
            ))
            .header("api-key", key),
    )
    .await
}

/// Events land once, whatever order they come in: a run's state follows event time;
/// the batch answers for each event; a gzip body is read; the runs are readable.
pub async fn events_land_once_and_runs_follow_event_time(t: &Target) {
    let key = t.key_with_roles(&["Lineage Emitter"]).await;
    let job = unique("etl.load");
    let run = run_id();
    let start = run_event("START", "2026-11-27T10:00:00Z", &run, &job, None);
    let running = run_event("RUNNING", "2026-11-27T10:00:05.250Z", &run, &job, None);
    let complete = run_event("COMPLETE", "2026-11-27T10:01:00Z", &run, &job, None);

    // Out of order: the end first, then the start; then the start again.
    let resp = post(t, "/api/v1/lineage", &key, &complete).await;
    assert_eq!(resp.status, 201, "{}", resp.describe());
    assert_eq!(resp.json["result"]["status"], json!("accepted"));
    let digest = resp.json["result"]["digest"].clone();
    let resp = post(t, "/api/v1/lineage", &key, &start).await;
    assert_eq!(resp.status, 201, "{}", resp.describe());
    let resp = post(t, "/api/v1/lineage", &key, &start).await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    assert_eq!(resp.ok()["status"], json!("repeated"));
    // The same event with its keys in another order, spaced otherwise, is the same
    // event.
    let reordered = complete
        .as_object()
        .expect("an event is an object")
        .iter()
        .rev()
        .map(|(k, v)| format!("{}:  {v}", json!(k)))
        .collect::<Vec<_>>()
        .join(",\n");
    let resp = t
        .send(
            t.client
                .post(format!("{}/api/v1/lineage", t.origin()))
                .header(AUTHORIZATION, format!("Bearer {key}"))
                .header(CONTENT_TYPE, "application/json")
                .body(format!("{{ {reordered} }}")),
        )
        .await;
    assert_eq!(resp.ok()["digest"], digest, "{}", resp.describe());
    assert_eq!(resp.ok()["status"], json!("repeated"));

    // RUNNING arrives last, gzip-compressed, with the api-key header: the run stays
    // COMPLETE, its latest transition by event time.
    let packed = gzip(running.to_string().as_bytes());
    let resp = t
        .send(
            t.client
                .post(format!("{}/api/v1/lineage", t.origin()))
                .header("api-key", &key)
                .header(CONTENT_TYPE, "application/json")
                .header(CONTENT_ENCODING, "gzip")
                .body(packed),
        )
        .await;
    assert_eq!(resp.status, 201, "{}", resp.describe());

    let resp = runs(t, &key, &job).await;
    let listed = resp.ok()["runs"].as_array().expect("runs").clone();
    assert_eq!(listed.len(), 1, "{}", resp.describe());
    assert_eq!(listed[0]["runId"], json!(run));
    assert_eq!(listed[0]["state"], json!("COMPLETE"));
    assert_eq!(listed[0]["startedAt"], json!("2026-11-27T10:00:00.000Z"));
    assert_eq!(listed[0]["endedAt"], json!("2026-11-27T10:01:00.000Z"));

    // A failed run, in a batch with a malformed event and a repeated one.
    let failed = run_id();
    let mut bad = run_event("START", "2026-11-27T11:00:00Z", &run_id(), &job, None);
    bad["run"]["runId"] = json!("not a uuid");
    let batch = json!([
        run_event("START", "2026-11-27T11:00:00Z", &failed, &job, None),
        bad,
        run_event(
            "FAIL",
            "2026-11-27T11:02:00Z",
            &failed,
            &job,
            Some("division by zero")
        ),
        start,
    ]);
    let resp = post(t, "/api/v1/lineage/batch", &key, &batch).await;
    let answers = resp.ok().as_array().expect("one answer per event").clone();
    let statuses: Vec<&str> = answers
        .iter()
        .map(|a| a["status"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        statuses,
        ["accepted", "refused", "accepted", "repeated"],
        "{}",
        resp.describe()
    );
    assert_eq!(answers[1]["errorCode"], json!("INVALID_PARAMETER"));
    let message = answers[1]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("/run/runId"),
        "the message names the place: {message}"
    );

    let resp = t
        .send(
            t.client
                .get(format!("{}/api/v1/jobs/runs/{failed}", t.origin()))
                .header(AUTHORIZATION, format!("Bearer {key}")),
        )
        .await;
    let run_record = resp.ok();
    assert_eq!(run_record["state"], json!("FAIL"), "{}", resp.describe());
    assert_eq!(run_record["errorMessage"], json!("division by zero"));
    // Newest first; the administrator (ViewMetadata) reads them too.
    let resp = runs(t, &t.key().await, &job).await;
    let ids: Vec<&Value> = resp.ok()["runs"]
        .as_array()
        .expect("runs")
        .iter()
        .map(|r| &r["runId"])
        .collect();
    assert_eq!(ids, [&json!(failed), &json!(run)], "{}", resp.describe());
}

/// `bytes`, gzip-compressed.
fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    gz.write_all(bytes).expect("compressing in memory");
    gz.finish().expect("compressing in memory")
}

/// What is not an OpenLineage event is refused, naming what is wrong, and nothing of it
/// is written.
pub async fn malformed_events_are_refused_and_leave_nothing(t: &Target) {
    let key = t.key_with_roles(&["Lineage Emitter"]).await;
    let job = unique("etl.bad");
    let run = run_id();
    let mut event = run_event("START", "2026-11-27T10:00:00Z", &run, &job, None);
    event["eventTime"] = json!("yesterday");
    let resp = post(t, "/api/v1/lineage", &key, &event).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    assert!(resp.message().contains("/eventTime"), "{}", resp.message());

    let mut event = run_event("FINISHED", "2026-11-27T10:00:00Z", &run, &job, None);
    event["job"] = json!({"namespace": "conformance"});
    let resp = post(t, "/api/v1/lineage", &key, &event).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    assert!(resp.message().contains("RunEvent"), "{}", resp.message());

    let resp = post(t, "/api/v1/lineage", &key, &json!({"hello": "world"})).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = post(
        t,
        "/api/v1/lineage/batch",
        &key,
        &json!({"not": "an array"}),
    )
    .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let too_many = Value::Array(vec![json!({}); 1_001]);
    let resp = post(t, "/api/v1/lineage/batch", &key, &too_many).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");

    let send = |body: Vec<u8>, encoding: &'static str| {
        t.client
            .post(format!("{}/api/v1/lineage", t.origin()))
            .header("api-key", &key)
            .header(CONTENT_TYPE, "application/json")
            .header(CONTENT_ENCODING, encoding)
            .body(body)
    };
    let resp = t.send(send(b"{\"eventTime\":".to_vec(), "identity")).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t.send(send(b"not gzip at all".to_vec(), "gzip")).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t.send(send(b"{}".to_vec(), "br")).await;
    assert_error(&resp, 415, "UNSUPPORTED_MEDIA_TYPE");

    // Nothing of it was written.
    let resp = runs(t, &key, &job).await;
    assert_eq!(resp.ok()["runs"], json!([]), "{}", resp.describe());
    let resp = run_record(t, &key, &run).await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t
        .send(
            t.client
                .get(format!(
                    "{}/api/v1/namespaces/conformance/jobs/{}/runs?limit=0",
                    t.origin(),
                    encode_segment(&job)
                ))
                .header("api-key", &key),
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
}

/// Posting needs `EmitLineage`; a call without a key is 401 whichever way it is sent.
pub async fn posting_lineage_needs_emit_lineage(t: &Target) {
    let job = unique("etl.denied");
    let event = run_event("START", "2026-11-27T10:00:00Z", &run_id(), &job, None);
    let viewer = t.key_with_roles(&["Metadata Viewer"]).await;
    let resp = post(t, "/api/v1/lineage", &viewer, &event).await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
    let resp = post(t, "/api/v1/lineage/batch", &viewer, &json!([event])).await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
    let resp = post(t, "/api/v1/lineage", "not-a-key", &event).await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
    let resp = t
        .send(
            t.client
                .post(format!("{}/api/v1/lineage", t.origin()))
                .json(&event),
        )
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
    // Runs are read with ViewMetadata globally or EmitLineage.
    let nobody = t.key_with_roles(&[]).await;
    let resp = runs(t, &nobody, &job).await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
    let resp = runs(t, &viewer, &job).await;
    assert_eq!(resp.ok()["runs"], json!([]), "{}", resp.describe());
}

/// The pinned OpenLineage Python client the producer case installs.
const OPENLINEAGE_PYTHON: &str = "openlineage-python==1.54.0";

/// A real producer: openlineage-python's HTTP transport (the key as a bearer token,
/// gzip bodies) posts two runs of a job, out of order and one event twice, the second
/// failing; Lore keeps each event once and each run in the state of its latest event.
pub async fn openlineage_python_client_events_land(t: &Target) {
    let Some(python) =
        tokio::task::spawn_blocking(|| crate::python::venv("openlineage", &[OPENLINEAGE_PYTHON]))
            .await
            .expect("making the venv")
    else {
        return;
    };
    let key = t.key_with_roles(&["Lineage Emitter"]).await;
    let job = unique("etl.python");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/openlineage/emit.py");
    let (origin, job_arg) = (t.origin(), job.clone());
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new(python)
            .args([script, &origin, &key, &job_arg, "gzip"])
            .output()
            .expect("running emit.py")
    })
    .await
    .expect("running emit.py");
    assert!(
        output.status.success(),
        "emit.py failed: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let ids: Value = serde_json::from_slice(&output.stdout).expect("the run ids emit.py prints");
    let resp = runs(t, &t.key().await, &job).await;
    let listed = resp.ok()["runs"].as_array().expect("runs").clone();
    assert_eq!(listed.len(), 2, "{}", resp.describe());
    assert_eq!(listed[0]["runId"], ids["failed"], "newest first");
    assert_eq!(listed[0]["state"], json!("FAIL"));
    assert_eq!(listed[0]["errorMessage"], json!("division by zero"));
    assert_eq!(listed[0]["startedAt"], json!("2026-11-27T10:01:40.000Z"));
    assert_eq!(listed[1]["runId"], ids["done"]);
    assert_eq!(
        listed[1]["state"],
        json!("COMPLETE"),
        "the RUNNING sent last does not reopen it"
    );
    assert_eq!(listed[1]["startedAt"], json!("2026-11-27T10:00:00.000Z"));
    assert_eq!(listed[1]["endedAt"], json!("2026-11-27T10:01:00.000Z"));
}

/// A dataset of a run event, with a schema facet of `(name, type)` fields.
fn dataset(namespace: &str, name: &str, fields: &[(&str, &str)]) -> Value {
    let fields: Vec<Value> = fields
        .iter()
        .map(|(name, kind)| json!({"name": name, "type": kind}))
        .collect();
    json!({
        "namespace": namespace,
        "name": name,
        "facets": {
            "schema": {
                "_producer": "https://example.com/producer",
                "_schemaURL": "https://openlineage.io/spec/facets/1-1-1/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet",
                "fields": fields
            }
        }
    })
}

/// The column lineage facet of `(output field, input dataset name, input field, type,
/// subtype, description)`.
fn column_lineage(namespace: &str, fields: &[(&str, &str, &str, &str, &str, &str)]) -> Value {
    let mut out = serde_json::Map::new();
    for (field, name, input, kind, subtype, description) in fields {
        out.insert(
            (*field).to_owned(),
            json!({"inputFields": [{
                "namespace": namespace, "name": name, "field": input,
                "transformations": [{"type": kind, "subtype": subtype, "description": description}]
            }]}),
        );
    }
    json!({
        "_producer": "https://example.com/producer",
        "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet",
        "fields": out
    })
}

/// getOperations upstream of an object.
pub(crate) async fn upstream_of(t: &Target, id: &str) -> Resp {
    t.get_q(
        &format!("/lineage/getOperations/{}", encode_segment(id)),
        &[("direction", "upstream")],
    )
    .await
}

/// The names of `(source, target, operation)` of a getOperations answer.
pub(crate) fn flows(answer: &Value) -> std::collections::BTreeSet<(String, String, String)> {
    answer["operations"]
        .as_array()
        .expect("operations")
        .iter()
        .map(|o| {
            let name = |k: &str| o[k]["name"].as_str().unwrap_or_default().to_owned();
            let operation = o["operation"].as_str().unwrap_or_default().to_owned();
            (name("source"), name("target"), operation)
        })
        .collect()
}

/// Events become the model: datasets the objects of a model per namespace (the schema
/// facet's columns, the documentation facet's description), the job an object with its
/// SQL, inputs to outputs table and column lineage that getOperations and MQL serve; a
/// later event replaces the job's lineage, an older one arriving late changes nothing;
/// what a caller cannot see stays out of their answers.
pub async fn events_become_datasets_jobs_and_lineage(t: &Target) {
    let emitter = t.key_with_roles(&["Lineage Emitter"]).await;
    let host = unique("db").to_lowercase().replace(['_', ' '], "-");
    let namespace = format!("postgres://{host}:5432");
    let jobs = unique("pipelines");
    let job = "load_daily";
    let model = format!("/OpenLineage/{host}:5432 (postgres)");

    let mut orders = dataset(
        &namespace,
        "shop.public.orders",
        &[
            ("id", "INTEGER"),
            ("amount", "NUMERIC"),
            ("created_at", "TIMESTAMP"),
        ],
    );
    orders["facets"]["documentation"] = json!({
        "_producer": "https://example.com/producer",
        "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/DocumentationDatasetFacet.json#/$defs/DocumentationDatasetFacet",
        "description": "Orders as placed"
    });
    let mut daily = dataset(
        &namespace,
        "shop.mart.daily",
        &[("day", "DATE"), ("total", "NUMERIC")],
    );
    daily["facets"]["columnLineage"] = column_lineage(
        &namespace,
        &[
            (
                "total",
                "shop.public.orders",
                "amount",
                "DIRECT",
                "AGGREGATION",
                "sum of amounts",
            ),
            (
                "day",
                "shop.public.orders",
                "created_at",
                "DIRECT",
                "TRANSFORMATION",
                "",
            ),
        ],
    );
    let sql =
        "INSERT INTO mart.daily SELECT created_at::date, sum(amount) FROM public.orders GROUP BY 1";
    let event = |time: &str, inputs: Value, outputs: Value| {
        let mut e = run_event("COMPLETE", time, &run_id(), job, None);
        e["job"] = json!({
            "namespace": jobs,
            "name": job,
            "facets": {
                "sql": {
                    "_producer": "https://example.com/producer",
                    "_schemaURL": "https://openlineage.io/spec/facets/1-1-0/SQLJobFacet.json#/$defs/SQLJobFacet",
                    "query": sql
                }
            }
        });
        e["inputs"] = inputs;
        e["outputs"] = outputs;
        e
    };
    let first = event(
        "2026-11-27T10:00:00Z",
        json!([orders.clone()]),
        json!([daily.clone()]),
    );
    let resp = post(t, "/api/v1/lineage", &emitter, &first).await;
    assert_eq!(resp.status, 201, "{}", resp.describe());

    // The datasets and their columns, in the namespace's model.
    let orders_entity = t.entity(&format!("{model}/shop/public/orders")).await;
    let orders_entity = orders_entity.ok();
    let description = orders_entity["attributes"]
        .as_array()
        .expect("attributes")
        .iter()
        .find(|a| a["attributeType"]["name"] == json!("Description"))
        .map(|a| a["value"].clone());
    assert_eq!(
        description,
        Some(json!("Orders as placed")),
        "{orders_entity}"
    );
    let total = t.entity(&format!("{model}/shop/mart/daily/total")).await;
    let total = total.ok().clone();
    assert_eq!(total["name"], json!("total"), "{total}");
    let total_id = total["id"].as_str().expect("id").to_owned();
    // The job, with its SQL.
    let job_entity = t
        .entity(&format!(
            "/OpenLineage/{} (jobs)/{job}",
            jobs.replace('/', " ")
        ))
        .await;
    let job_text = job_entity.text();
    assert_eq!(job_entity.status, 200, "{}", job_entity.describe());
    assert!(job_text.contains("INSERT INTO mart.daily"), "{job_text}");

    // Column lineage, with the transformation in the operation's name.
    let key = format!("{jobs}/{job}");
    let answer = upstream_of(t, &total_id).await;
    assert_eq!(
        flows(answer.ok()),
        std::collections::BTreeSet::from([(
            "amount".to_owned(),
            "total".to_owned(),
            format!("{key} (DIRECT/AGGREGATION): sum of amounts"),
        )]),
        "{}",
        answer.describe()
    );
    // Table lineage, and MQL's Has Data Lineage over it.
    let daily_id = t.entity(&format!("{model}/shop/mart/daily")).await.ok()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let answer = upstream_of(t, &daily_id).await;
    assert_eq!(
        flows(answer.ok()),
        std::collections::BTreeSet::from([("orders".to_owned(), "daily".to_owned(), key.clone())])
    );
    let model_id = t.entity(&model).await.ok()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let found = t
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({"select": "Name", "from": model_id, "where": "\"Has Data Lineage\" = true"}),
        )
        .await;
    let names: std::collections::BTreeSet<String> =
        super::execute::names(&found).into_iter().collect();
    assert_eq!(
        names,
        ["daily", "day", "total"].map(str::to_owned).into(),
        "{}",
        found.describe()
    );

    // A later run reads another table instead: the job's lineage into daily is replaced.
    let refunds = dataset(&namespace, "shop.public.refunds", &[("amount", "NUMERIC")]);
    let mut daily_again = daily.clone();
    daily_again["facets"]["columnLineage"] = column_lineage(
        &namespace,
        &[(
            "total",
            "shop.public.refunds",
            "amount",
            "DIRECT",
            "AGGREGATION",
            "",
        )],
    );
    let later = event(
        "2026-11-27T11:00:00Z",
        json!([refunds]),
        json!([daily_again]),
    );
    let resp = post(t, "/api/v1/lineage", &emitter, &later).await;
    assert_eq!(resp.status, 201, "{}", resp.describe());
    // An older event arriving late changes nothing.
    let late = event(
        "2026-11-27T09:00:00Z",
        json!([orders.clone()]),
        json!([daily.clone()]),
    );
    let resp = post(t, "/api/v1/lineage", &emitter, &late).await;
    assert_eq!(resp.status, 201, "{}", resp.describe());
    let answer = upstream_of(t, &daily_id).await;
    assert_eq!(
        flows(answer.ok()),
        std::collections::BTreeSet::from([("refunds".to_owned(), "daily".to_owned(), key.clone())])
    );
    let answer = upstream_of(t, &total_id).await;
    assert_eq!(
        flows(answer.ok()),
        std::collections::BTreeSet::from([(
            "amount".to_owned(),
            "total".to_owned(),
            format!("{key} (DIRECT/AGGREGATION)"),
        )])
    );

    // Sight: a user who sees the datasets' model but not the jobs' sees the lineage and
    // no run of the job; one who sees nothing of it gets the answer of a missing object.
    let (steward, steward_name) = super::groups::new_user(t, "steward").await;
    t.put(
        &format!("/admin/grants/grantObjectRole/{model_id}"),
        &[],
        &json!({"grantee": steward, "role": "Data Viewer"}),
    )
    .await
    .ok();
    let steward = super::groups::key_of(t, &steward_name).await;
    let answer = super::denied::send_as(
        t,
        &steward,
        reqwest::Method::GET,
        &format!("/lineage/getOperations/{}", encode_segment(&daily_id)),
        &[("direction", "upstream")],
        None,
    )
    .await;
    assert_eq!(flows(answer.ok()).len(), 1, "{}", answer.describe());
    let resp = t
        .send(
            t.client
                .get(format!(
                    "{}/api/v1/namespaces/{}/jobs/{job}/runs",
                    t.origin(),
                    encode_segment(&jobs)
                ))
                .header("api-key", &steward),
        )
        .await;
    assert_eq!(resp.ok()["runs"], json!([]), "{}", resp.describe());
    let (outsider, outsider_name) = super::groups::new_user(t, "outsider").await;
    let (elsewhere, _) = t.unique_folder("sight").await;
    t.put(
        &format!("/admin/grants/grantObjectRole/{elsewhere}"),
        &[],
        &json!({"grantee": outsider, "role": "Data Viewer"}),
    )
    .await
    .ok();
    let outsider = super::groups::key_of(t, &outsider_name).await;
    let missing = format!("{}_999999", daily_id.split('_').next().unwrap_or("1"));
    let get = |id: String| {
        let outsider = outsider.clone();
        async move {
            super::denied::send_as(
                t,
                &outsider,
                reqwest::Method::GET,
                &format!("/lineage/getOperations/{}", encode_segment(&id)),
                &[],
                None,
            )
            .await
        }
    };
    let hidden = get(daily_id.clone()).await;
    let absent = get(missing.clone()).await;
    crate::harness::assert_same_as_missing(&hidden, &daily_id, &absent, &missing);
}

/// A harvest of a fresh PostgreSQL database holding `tables` (each `id integer PRIMARY
/// KEY, amount numeric`): the database, the harvested model's id (`-1_<n>`) and the
/// namespace an OpenLineage integration writes for it (`postgres://host:port`); `None`
/// when PostgreSQL is not reachable.
async fn harvest_of(
    t: &Target,
    tables: &[&str],
) -> Option<(crate::postgres::TestDatabase, String, String)> {
    let db = crate::postgres::TestDatabase::create().await?;
    {
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect(&db.url)
            .await
            .expect("the test database");
        for table in tables {
            // Names of the suite's own making: letters, digits and underscores.
            sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
                "CREATE TABLE public.{table} (id integer PRIMARY KEY, amount numeric)"
            )))
            .execute(&mut conn)
            .await
            .expect("a table");
        }
        let _ = conn.close().await;
    }
    let (harvested, _) =
        super::imports::import_through(t, "database", json!({"url": db.url}), None).await;
    // The namespace as an OpenLineage integration writes it: host and port of the URL.
    let authority = db
        .url
        .split_once("://")
        .and_then(|(_, rest)| rest.split('/').next())
        .map(|a| a.rsplit('@').next().unwrap_or(a).to_owned())
        .expect("an authority");
    let authority = if authority.contains(':') {
        authority
    } else {
        format!("{authority}:5432")
    };
    Some((db, harvested, format!("postgres://{authority}")))
}

/// A dataset a database harvest made is the harvested table itself: the event's
/// `postgres://host:port` + `database.schema.table` finds the harvested model of that
/// server and database; what the harvest does not hold is made in the namespace's model.
pub async fn datasets_are_matched_to_harvested_tables(t: &Target) {
    let Some((db, harvested, namespace)) = harvest_of(t, &["orders"]).await else {
        return;
    };
    let harvested_model = harvested.trim_start_matches("-1_").to_owned();
    let summary = unique("summary");
    // The pipeline's user sees the harvested model (a steward grants it that).
    let emitter = t
        .key_with_roles(&["Lineage Emitter", "Metadata Viewer"])
        .await;
    let mut event = run_event(
        "COMPLETE",
        "2026-11-27T12:00:00Z",
        &run_id(),
        &unique("summarize"),
        None,
    );
    event["inputs"] =
        json!([{"namespace": namespace, "name": format!("{}.public.orders", db.name)}]);
    event["outputs"] = json!([dataset(
        &namespace,
        &format!("{}.public.{summary}", db.name),
        &[("total", "numeric")]
    )]);
    let resp = post(t, "/api/v1/lineage", &emitter, &event).await;
    assert_eq!(resp.status, 201, "{}", resp.describe());

    let found = t
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({"select": "Name", "where": format!("Name = '{summary}'"), "legacyEntityFormat": true}),
        )
        .await;
    let made = found.ok_array();
    assert_eq!(made.len(), 1, "{}", found.describe());
    let made = made[0]["id"].as_str().expect("id").to_owned();
    assert!(
        !made.starts_with(&format!("{harvested_model}_")),
        "a table the harvest does not hold is made outside its model: {made}"
    );
    let answer = upstream_of(t, &made).await;
    let operations = answer.ok()["operations"].as_array().expect("operations");
    assert_eq!(operations.len(), 1, "{}", answer.describe());
    let source = operations[0]["source"]["id"].as_str().expect("id");
    assert!(
        source.starts_with(&format!("{harvested_model}_")),
        "the input is the harvested table: {}",
        answer.describe()
    );
    assert_eq!(operations[0]["source"]["name"], json!("orders"));

    // A poster who does not see the harvested model: for it the harvested table does
    // not exist, so its dataset is made in the namespace's model instead.
    let blind = t.key_with_roles(&["Lineage Emitter"]).await;
    let elsewhere = unique("elsewhere");
    event["run"]["runId"] = json!(run_id());
    event["job"]["name"] = json!(unique("summarize"));
    event["outputs"] = json!([dataset(
        &namespace,
        &format!("{}.public.{elsewhere}", db.name),
        &[("total", "numeric")]
    )]);
    let resp = post(t, "/api/v1/lineage", &blind, &event).await;
    assert_eq!(resp.status, 201, "{}", resp.describe());
    let found = t
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({"select": "Name", "where": format!("Name = '{elsewhere}'"), "legacyEntityFormat": true}),
        )
        .await;
    let made = found.ok_array()[0]["id"].as_str().expect("id").to_owned();
    let answer = upstream_of(t, &made).await;
    let operations = answer.ok()["operations"].as_array().expect("operations");
    assert_eq!(operations.len(), 1, "{}", answer.describe());
    let source = operations[0]["source"]["id"].as_str().expect("id");
    assert!(
        !source.starts_with(&format!("{harvested_model}_")),
        "the input is not the harvested table the poster cannot see: {}",
        answer.describe()
    );
}

/// A job whose event has no columnLineage facet gets its column lineage from its SQL
/// facet, resolved against the inputs' columns; what the SQL names that cannot be
/// resolved is said in the event's answer.
pub async fn job_sql_becomes_column_lineage(t: &Target) {
    let emitter = t.key_with_roles(&["Lineage Emitter"]).await;
    let host = unique("sqldb").to_lowercase().replace(['_', ' '], "-");
    let namespace = format!("postgres://{host}:5432");
    let model = format!("/OpenLineage/{host}:5432 (postgres)");
    let orders = dataset(
        &namespace,
        "shop.public.orders",
        &[
            ("id", "INTEGER"),
            ("amount", "NUMERIC"),
            ("created_at", "TIMESTAMP"),
        ],
    );
    let weekly = dataset(
        &namespace,
        "shop.mart.weekly",
        &[("week", "DATE"), ("total", "NUMERIC"), ("odd", "NUMERIC")],
    );
    let mut event = run_event(
        "COMPLETE",
        "2026-11-27T10:00:00Z",
        &run_id(),
        "weekly",
        None,
    );
    let jobs = unique("sql-jobs");
    event["job"] = json!({
        "namespace": jobs,
        "name": "weekly",
        "facets": {"sql": {
            "_producer": "https://example.com/producer",
            "_schemaURL": "https://openlineage.io/spec/facets/1-1-0/SQLJobFacet.json#/$defs/SQLJobFacet",
            "query": "INSERT INTO mart.weekly (week, total, odd)\n\
                      SELECT date_trunc('week', o.created_at), sum(o.amount), max(o.bogus)\n\
                      FROM public.orders o WHERE o.id > 0 GROUP BY 1"
        }}
    });
    event["inputs"] = json!([orders]);
    event["outputs"] = json!([weekly]);
    let resp = post(t, "/api/v1/lineage", &emitter, &event).await;
    assert_eq!(resp.status, 201, "{}", resp.describe());
    let answer: Value = serde_json::from_str(&resp.text()).expect("JSON");
    let notes = answer["result"]["notes"].to_string();
    assert!(
        notes.contains("bogus"),
        "the unresolved column is named: {}",
        resp.describe()
    );

    let key = format!("{jobs}/weekly");
    for (column, expected) in [
        ("week", ("created_at", "DIRECT/TRANSFORMATION")),
        ("total", ("amount", "DIRECT/AGGREGATION")),
    ] {
        let id = t
            .entity(&format!("{model}/shop/mart/weekly/{column}"))
            .await
            .ok()["id"]
            .as_str()
            .expect("id")
            .to_owned();
        let answer = upstream_of(t, &id).await;
        assert_eq!(
            flows(answer.ok()),
            std::collections::BTreeSet::from([(
                expected.0.to_owned(),
                column.to_owned(),
                format!("{key} ({})", expected.1),
            )]),
            "{column}: {}",
            answer.describe()
        );
    }
}

/// A refused event of a batch takes back what its mapping made before it failed (the
/// job, the namespaces' models, its datasets): the next event of the batch makes them
/// again, once, and nothing of the refused event is written.
pub async fn a_refused_event_of_a_batch_takes_back_what_it_made(t: &Target) {
    let emitter = t.key_with_roles(&["Lineage Emitter"]).await;
    let bucket = unique("bucket").to_lowercase().replace(['_', ' '], "-");
    let good = format!("s3://{bucket}-good");
    let taken = format!("s3://{bucket}-taken");
    let jobs = unique("batch-jobs");
    let (input, output) = (format!("{bucket}-in.csv"), format!("{bucket}-out.csv"));
    // The model the taken namespace's datasets would land in is another object.
    let _ = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": "OpenLineage"}),
        )
        .await;
    let blocker = t
        .post(
            "/repository/createFolder",
            &[],
            &json!({"name": format!("{bucket}-taken (s3)"), "parentId": "/OpenLineage"}),
        )
        .await;
    blocker.ok();
    let event = |job: &str, outputs: Value| {
        let mut e = run_event("COMPLETE", "2026-11-27T10:00:00Z", &run_id(), job, None);
        e["job"]["namespace"] = json!(jobs);
        e["inputs"] = json!([{"namespace": good, "name": format!("/{input}")}]);
        e["outputs"] = outputs;
        e
    };
    let (first, second) = (format!("{bucket}_first"), format!("{bucket}_second"));
    let refused = event(
        &first,
        json!([{"namespace": taken, "name": format!("/{output}")}]),
    );
    let kept = event(
        &second,
        json!([{"namespace": good, "name": format!("/{output}")}]),
    );
    let resp = post(
        t,
        "/api/v1/lineage/batch",
        &emitter,
        &json!([refused, kept]),
    )
    .await;
    let answers = resp.ok().as_array().expect("answers").clone();
    let statuses: Vec<&str> = answers
        .iter()
        .map(|a| a["status"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(statuses, ["refused", "accepted"], "{}", resp.describe());
    assert_eq!(
        answers[0]["errorCode"],
        json!("CONFLICT"),
        "{}",
        resp.describe()
    );
    assert!(
        answers[0]["message"]
            .as_str()
            .unwrap_or_default()
            .contains("is not the model of namespace"),
        "{}",
        resp.describe()
    );

    // What the refused event made is made once more by the kept one, and only once.
    let output_id = id_named(t, &output).await;
    id_named(t, &input).await;
    id_named(t, &format!("{bucket}-good (s3)")).await;
    id_named(t, &format!("{jobs} (jobs)")).await;
    id_named(t, &second).await;
    let none = t
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({"select": "Name", "where": format!("Name = '{first}'"), "legacyEntityFormat": true}),
        )
        .await;
    assert_eq!(none.ok_array().len(), 0, "{}", none.describe());
    assert_eq!(
        flows(upstream_of(t, &output_id).await.ok()),
        std::collections::BTreeSet::from([(
            input.clone(),
            output.clone(),
            format!("{jobs}/{second}")
        )])
    );
}

/// The id of the one object named `name` (the administrator's MQL).
async fn id_named(t: &Target, name: &str) -> String {
    let found = t
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({"select": "Name", "where": format!("Name = '{name}'"), "legacyEntityFormat": true}),
        )
        .await;
    let made = found.ok_array();
    assert_eq!(
        made.len(),
        1,
        "one object named {name}: {}",
        found.describe()
    );
    made[0]["id"].as_str().expect("id").to_owned()
}

/// The lineage intake writes only where its poster may write: with View Metadata on a
/// harvested model (and EmitLineage) an event cannot add, replace or remove an edge into
/// the harvest's tables: it is refused naming what it would have set, alone in a batch,
/// and nothing of it is written; with Edit Metadata the same event lands.
pub async fn lineage_into_a_harvest_needs_edit_metadata(t: &Target) {
    let orders = unique("orders").to_lowercase().replace('-', "_");
    let customers = unique("customers").to_lowercase().replace('-', "_");
    let summary = unique("summary").to_lowercase().replace('-', "_");
    let Some((db, _, namespace)) = harvest_of(t, &[&orders, &customers, &summary]).await else {
        return;
    };
    let table =
        |name: &str| json!({"namespace": namespace, "name": format!("{}.public.{name}", db.name)});
    let summary_id = id_named(t, &summary).await;
    let viewer = t
        .key_with_roles(&["Lineage Emitter", "Metadata Viewer"])
        .await;
    let editor = t
        .key_with_roles(&["Lineage Emitter", "Repository Manager"])
        .await;
    let jobs = unique("harvest-jobs");
    let event = |job: &str, time: &str, input: &str| {
        let mut e = run_event("COMPLETE", time, &run_id(), job, None);
        e["job"]["namespace"] = json!(jobs);
        e["inputs"] = json!([table(input)]);
        e["outputs"] = json!([table(&summary)]);
        e
    };

    // Adding: a viewer's event into the harvested table is refused, naming it.
    let resp = post(
        t,
        "/api/v1/lineage",
        &viewer,
        &event("viewer_job", "2026-11-27T10:00:00Z", &orders),
    )
    .await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
    assert!(
        resp.message().contains(&summary) && resp.message().contains("Edit Metadata"),
        "the refusal names what was refused and why: {}",
        resp.message()
    );
    let answer = upstream_of(t, &summary_id).await;
    assert_eq!(flows(answer.ok()), Default::default(), "nothing was added");
    // Nor was the job made: the event wrote nothing.
    let runs_of = runs(t, &viewer, "viewer_job").await;
    assert_eq!(runs_of.ok()["runs"], json!([]), "{}", runs_of.describe());

    // An editor's event lands.
    let key = format!("{jobs}/etl");
    let resp = post(
        t,
        "/api/v1/lineage",
        &editor,
        &event("etl", "2026-11-27T10:00:00Z", &orders),
    )
    .await;
    assert_eq!(resp.status, 201, "{}", resp.describe());
    let landed = std::collections::BTreeSet::from([(orders.clone(), summary.clone(), key.clone())]);
    assert_eq!(flows(upstream_of(t, &summary_id).await.ok()), landed);

    // Replacing (and so removing orders → summary): the viewer posting the same job's
    // later event is refused, alone in a batch; the edge stays.
    let own = unique("own").to_lowercase();
    let mut elsewhere = run_event(
        "COMPLETE",
        "2026-11-27T10:30:00Z",
        &run_id(),
        "elsewhere",
        None,
    );
    elsewhere["job"]["namespace"] = json!(jobs);
    elsewhere["inputs"] = json!([{"namespace": format!("postgres://{own}:5432"), "name": "a.b.c"}]);
    elsewhere["outputs"] =
        json!([{"namespace": format!("postgres://{own}:5432"), "name": "a.b.d"}]);
    let resp = post(
        t,
        "/api/v1/lineage/batch",
        &viewer,
        &json!([event("etl", "2026-11-27T11:00:00Z", &customers), elsewhere]),
    )
    .await;
    let answers = resp.ok().as_array().expect("answers").clone();
    assert_eq!(
        answers[0]["status"],
        json!("refused"),
        "{}",
        resp.describe()
    );
    assert_eq!(answers[0]["errorCode"], json!("PERMISSION_DENIED"));
    assert!(
        answers[0]["message"]
            .as_str()
            .unwrap_or_default()
            .contains(&summary),
        "{}",
        resp.describe()
    );
    assert_eq!(
        answers[1]["status"],
        json!("accepted"),
        "{}",
        resp.describe()
    );
    assert_eq!(
        flows(upstream_of(t, &summary_id).await.ok()),
        landed,
        "the viewer neither replaced nor removed the edge"
    );
    // Nor did the refused event move the job's Lineage Updated: the editor's event of
    // 10:45 still replaces the edge.
    let resp = post(
        t,
        "/api/v1/lineage",
        &editor,
        &event("etl", "2026-11-27T10:45:00Z", &customers),
    )
    .await;
    assert_eq!(resp.status, 201, "{}", resp.describe());
    assert_eq!(
        flows(upstream_of(t, &summary_id).await.ok()),
        std::collections::BTreeSet::from([(customers.clone(), summary.clone(), key.clone())])
    );

    // Edit Metadata granted on the harvested model alone (Steward there, no global role
    // but Lineage Emitter) is enough too.
    let (steward_name, steward_key) = t.user_with_roles(&["Lineage Emitter"]).await;
    let model = format!(
        "-1_{}",
        summary_id.split('_').next().expect("the model number")
    );
    t.put(
        &format!("/admin/grants/grantObjectRole/{model}"),
        &[],
        &json!({"grantee": steward_name, "role": "Steward"}),
    )
    .await
    .ok();
    let resp = post(
        t,
        "/api/v1/lineage",
        &steward_key,
        &event("etl", "2026-11-27T12:00:00Z", &orders),
    )
    .await;
    assert_eq!(resp.status, 201, "{}", resp.describe());
    assert_eq!(
        flows(upstream_of(t, &summary_id).await.ok()),
        std::collections::BTreeSet::from([(orders.clone(), summary.clone(), key)])
    );
}

/// An event replaces only its own job's edges, by the origin they carry, whatever
/// names other edges have: data-mapping edges whose text is the job's `namespace/name`
/// (into a table) or looks like one of its column edges (into a column) are never
/// touched by the job's events.
pub async fn an_event_replaces_only_its_own_jobs_edges(t: &Target) {
    let emitter = t.key_with_roles(&["Lineage Emitter"]).await;
    let host = unique("mapped").to_lowercase().replace(['_', ' '], "-");
    let namespace = format!("postgres://{host}:5432");
    let model = format!("/OpenLineage/{host}:5432 (postgres)");
    let jobs = unique("mapping-jobs");
    let key = format!("{jobs}/etl");
    let ds = |name: &str| {
        dataset(
            &namespace,
            &format!("shop.public.{name}"),
            &[("c", "INTEGER")],
        )
    };
    let event = |time: &str, input: &str| {
        let mut out = ds("target");
        out["facets"]["columnLineage"] = column_lineage(
            &namespace,
            &[(
                "c",
                &format!("shop.public.{input}"),
                "c",
                "DIRECT",
                "IDENTITY",
                "",
            )],
        );
        let mut e = run_event("COMPLETE", time, &run_id(), "etl", None);
        e["job"]["namespace"] = json!(jobs);
        e["inputs"] = json!([ds(input)]);
        e["outputs"] = json!([out]);
        e
    };
    // The datasets, and the job's first lineage (a → target).
    let mut made = run_event("COMPLETE", "2026-11-27T09:00:00Z", &run_id(), "maker", None);
    made["job"]["namespace"] = json!(jobs);
    made["inputs"] = json!([ds("mapped"), ds("b")]);
    made["outputs"] = json!([]);
    let resp = post(t, "/api/v1/lineage", &emitter, &made).await;
    assert_eq!(resp.status, 201, "{}", resp.describe());
    // A person's data mapping within the model, its texts those of the job's edges.
    let column_name = format!("{key} (DIRECT/IDENTITY)");
    let script = format!(
        "SOURCE MODEL '{model}';\nTARGET MODEL '{model}';\n\
         MAP \"shop\".\"public\".\"mapped\" TO \"shop\".\"public\".\"target\" USING '{key}';\n\
         MAP \"shop\".\"public\".\"mapped\".\"c\" TO \"shop\".\"public\".\"target\".\"c\" USING '{column_name}';\n"
    );
    let resp = post(
        t,
        "/api/v1/lineage",
        &emitter,
        &event("2026-11-27T09:30:00Z", "a"),
    )
    .await;
    assert_eq!(resp.status, 201, "{}", resp.describe());
    let resp = t
        .send(
            t.anon(reqwest::Method::POST, "/dataMapping/importScript")
                .header("api-key", t.key().await)
                .header(CONTENT_TYPE, "text/plain")
                .body(script),
        )
        .await;
    resp.ok();
    let target = t.entity(&format!("{model}/shop/public/target")).await.ok()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let column = t
        .entity(&format!("{model}/shop/public/target/c"))
        .await
        .ok()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let mapped_table = (String::from("mapped"), String::from("target"), key.clone());
    let mapped_column = (String::from("c"), String::from("c"), column_name.clone());

    // The job's next events replace its own edges (b, then a again) and leave the
    // mapping's alone.
    for (time, input) in [("2026-11-27T10:00:00Z", "b"), ("2026-11-27T11:00:00Z", "a")] {
        let resp = post(t, "/api/v1/lineage", &emitter, &event(time, input)).await;
        assert_eq!(resp.status, 201, "{}", resp.describe());
        let tables = flows(upstream_of(t, &target).await.ok());
        assert_eq!(
            tables,
            std::collections::BTreeSet::from([
                mapped_table.clone(),
                (input.to_owned(), "target".to_owned(), key.clone())
            ]),
            "after the event from {input}"
        );
        let columns = upstream_of(t, &column).await;
        let columns = columns.ok()["operations"]
            .as_array()
            .expect("operations")
            .clone();
        let named: Vec<(String, String)> = columns
            .iter()
            .map(|o| {
                (
                    o["source"]["id"].as_str().unwrap_or_default().to_owned(),
                    o["operation"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect();
        assert_eq!(
            named.len(),
            2,
            "the mapping's column edge and the job's: {named:?}"
        );
        assert!(
            named.iter().all(|(_, op)| op == &mapped_column.2),
            "{named:?}"
        );
    }
}
