//! OpenLineage intake: the bounds on one event, and events as real producers write them.

use super::*;

/// Bounds on one event, each refused with a 400 naming it: inputs, outputs, edges set,
/// schema facet fields, an eventTime ahead of the server's clock. A batch refuses each
/// such event and keeps the others.
pub async fn event_bounds_are_named_and_a_batch_keeps_the_rest(t: &Target) {
    let key = t.key_with_roles(&["Lineage Emitter"]).await;
    let job = unique("bounded");
    let many = |n: usize, prefix: &str| -> Value {
        (0..n)
            .map(|i| json!({"namespace": "s3://bounds", "name": format!("/{prefix}/{i}")}))
            .collect()
    };
    let base = || run_event("COMPLETE", "2026-11-27T10:00:00Z", &run_id(), &job, None);
    let cases: Vec<(Value, &str)> = vec![
        (
            {
                let mut e = base();
                e["inputs"] = many(1_001, "in");
                e
            },
            "openlineage.max_inputs",
        ),
        (
            {
                let mut e = base();
                e["outputs"] = many(1_001, "out");
                e
            },
            "openlineage.max_outputs",
        ),
        (
            {
                let mut e = base();
                e["inputs"] = many(1_000, "in");
                e["outputs"] = many(101, "out");
                e
            },
            "openlineage.max_edges",
        ),
        (
            {
                let mut e = base();
                let fields: Vec<(String, &str)> =
                    (0..10_001).map(|i| (format!("f{i}"), "INTEGER")).collect();
                let fields: Vec<(&str, &str)> =
                    fields.iter().map(|(n, k)| (n.as_str(), *k)).collect();
                e["outputs"] = json!([dataset("s3://bounds", "/wide", &fields)]);
                e
            },
            "openlineage.max_schema_fields",
        ),
        (
            {
                let mut e = base();
                let later = chrono::Utc::now() + chrono::Duration::minutes(20);
                e["eventTime"] = json!(later.to_rfc3339());
                e
            },
            "openlineage.max_clock_skew",
        ),
    ];
    for (event, bound) in &cases {
        let resp = post(t, "/api/v1/lineage", &key, event).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
        assert!(
            resp.message().contains(bound),
            "{bound}: {}",
            resp.message()
        );
    }
    // Nothing of them was written: no run of the job.
    let none = runs(t, &key, &job).await;
    assert_eq!(none.ok()["runs"], json!([]), "{}", none.describe());

    // A clock a little ahead is fine.
    let mut near = base();
    near["eventTime"] = json!((chrono::Utc::now() + chrono::Duration::minutes(5)).to_rfc3339());
    // In a batch each refused event is answered, the others kept.
    let batch: Vec<Value> = vec![
        cases[0].0.clone(),
        near,
        cases[4].0.clone(),
        cases[2].0.clone(),
    ];
    let resp = post(t, "/api/v1/lineage/batch", &key, &Value::Array(batch)).await;
    let answers = resp.ok().as_array().expect("answers").clone();
    let statuses: Vec<&str> = answers
        .iter()
        .map(|a| a["status"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(
        statuses,
        ["refused", "accepted", "refused", "refused"],
        "{}",
        resp.describe()
    );
    for (answer, bound) in [
        (&answers[0], "max_inputs"),
        (&answers[2], "max_clock_skew"),
        (&answers[3], "max_edges"),
    ] {
        assert_eq!(answer["errorCode"], json!("INVALID_PARAMETER"));
        assert!(
            answer["message"]
                .as_str()
                .unwrap_or_default()
                .contains(bound),
            "{answer}"
        );
    }
    let kept = runs(t, &key, &job).await;
    assert_eq!(
        kept.ok()["runs"].as_array().map(Vec::len),
        Some(1),
        "{}",
        kept.describe()
    );
}

/// Events as real producers send them, which the reference server accepts: no
/// `schemaURL` (read as the newest spec Lore knows, said in the notes), an `eventTime`
/// without a zone (UTC, said in the notes) or with nanoseconds, the static JobEvent
/// (its job facets, and its inputs and outputs as the job's lineage) and DatasetEvent.
pub async fn events_of_real_producers_land(t: &Target) {
    let key = t.key_with_roles(&["Lineage Emitter"]).await;
    let job = unique("producer");
    let run = run_id();

    let mut event = run_event("START", "2026-11-27T10:00:00.123456789", &run, &job, None);
    event.as_object_mut().expect("object").remove("schemaURL");
    let resp = post(t, "/api/v1/lineage", &key, &event).await;
    assert_eq!(resp.status, 201, "{}", resp.describe());
    let notes = resp.json["result"]["notes"].to_string();
    assert!(notes.contains("no schemaURL"), "{}", resp.describe());
    assert!(notes.contains("read as UTC"), "{}", resp.describe());
    let record = run_record(t, &key, &run).await;
    assert_eq!(
        record.ok()["stateAt"],
        json!("2026-11-27T10:00:00.123Z"),
        "{}",
        record.describe()
    );
    // Nanoseconds with a zone.
    let event = run_event(
        "COMPLETE",
        "2026-11-27T11:00:00.987654321+01:00",
        &run,
        &job,
        None,
    );
    let resp = post(t, "/api/v1/lineage", &key, &event).await;
    assert_eq!(resp.status, 201, "{}", resp.describe());
    assert_eq!(
        resp.json["result"]["notes"],
        Value::Null,
        "{}",
        resp.describe()
    );
    let record = run_record(t, &key, &run).await;
    assert_eq!(
        record.ok()["state"],
        json!("COMPLETE"),
        "{}",
        record.describe()
    );
    assert_eq!(record.ok()["endedAt"], json!("2026-11-27T10:00:00.987Z"));

    // The static JobEvent: its facets describe the job, its inputs and outputs are the
    // job's lineage.
    let host = unique("static").to_lowercase().replace(['_', ' '], "-");
    let namespace = format!("postgres://{host}:5432");
    let jobs = unique("static-jobs");
    let job_event = json!({
        "eventTime": "2026-11-27T10:00:00Z",
        "producer": "https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent",
        "job": {"namespace": jobs, "name": "nightly", "facets": {
            "documentation": {
                "_producer": "https://example.com/producer",
                "_schemaURL": "https://openlineage.io/spec/facets/1-0-1/DocumentationJobFacet.json#/$defs/DocumentationJobFacet",
                "description": "Builds the nightly mart"
            },
            "vendorJobFacet": {"_producer": "https://example.com/p", "_schemaURL": "https://example.com/s", "x": 1}
        }},
        "inputs": [{"namespace": namespace, "name": "shop.public.orders"}],
        "outputs": [{"namespace": namespace, "name": "shop.mart.nightly"}]
    });
    let resp = post(t, "/api/v1/lineage", &key, &job_event).await;
    assert_eq!(resp.status, 201, "{}", resp.describe());
    let model = format!("/OpenLineage/{host}:5432 (postgres)");
    let nightly = t.entity(&format!("{model}/shop/mart/nightly")).await;
    let nightly = nightly.ok()["id"].as_str().expect("id").to_owned();
    assert_eq!(
        flows(upstream_of(t, &nightly).await.ok()),
        std::collections::BTreeSet::from([(
            "orders".to_owned(),
            "nightly".to_owned(),
            format!("{jobs}/nightly")
        )])
    );
    let job_entity = t
        .entity(&format!("/OpenLineage/{jobs} (jobs)/nightly"))
        .await;
    let description = job_entity.ok()["attributes"]
        .as_array()
        .expect("attributes")
        .iter()
        .find(|a| a["attributeType"]["name"] == json!("Description"))
        .map(|a| a["value"].clone());
    assert_eq!(
        description,
        Some(json!("Builds the nightly mart")),
        "the JobEvent's documentation facet: {}",
        job_entity.describe()
    );

    // The DatasetEvent, without schemaURL too.
    let dataset_event = json!({
        "eventTime": "2026-11-27T10:00:00",
        "producer": "https://example.com/producer",
        "dataset": dataset(&namespace, "shop.public.customers", &[("id", "INTEGER")])
    });
    let resp = post(t, "/api/v1/lineage", &key, &dataset_event).await;
    assert_eq!(resp.status, 201, "{}", resp.describe());
    let column = t.entity(&format!("{model}/shop/public/customers/id")).await;
    assert_eq!(column.ok()["name"], json!("id"), "{}", column.describe());
}
