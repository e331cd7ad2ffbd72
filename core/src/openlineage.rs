//! Reading OpenLineage events (spec 2-0-2) as clients post them: each checked against
//! the specification's own JSON Schema, vendored in `core/openlineage/` (see its
//! README), with the facets Lore reads checked against theirs, and against the bounds
//! the server sets ([`EventLimits`]); then reduced to the [`LineageEvent`] the store
//! keeps, its raw JSON included whole.
//!
//! Real producers are read as the reference server (Marquez) reads them: an event
//! without `schemaURL` as one of the newest spec Lore knows, an `eventTime` without a
//! time zone as UTC (each said in the answer's notes).
//!
//! Nothing is fetched: every schema is compiled in, and a reference to one that is not
//! fails when the validators are built (a unit test builds them).

pub mod naming;

use std::io::Read;
use std::sync::LazyLock;
use std::time::Duration;

use jsonschema::{Registry, Validator};
use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};
use crate::model::{LineageEvent, LineageEventKind, RunState, Timestamp, parse_datetime};
use crate::store::{micros, prepare_lineage_event};

/// The `$id` of the vendored core schema.
const CORE_URI: &str = "https://openlineage.io/spec/2-0-2/OpenLineage.json";
const CORE: &str = include_str!("../openlineage/OpenLineage.json");

/// Where a facet hangs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Place {
    Run,
    Job,
    Dataset,
}

/// The facets Lore reads, each checked against its schema when present: (key, where,
/// schema).
const FACETS: [(&str, Place, &str); 4] = [
    (
        "schema",
        Place::Dataset,
        include_str!("../openlineage/facets/SchemaDatasetFacet.json"),
    ),
    (
        "columnLineage",
        Place::Dataset,
        include_str!("../openlineage/facets/ColumnLineageDatasetFacet.json"),
    ),
    (
        "sql",
        Place::Job,
        include_str!("../openlineage/facets/SQLJobFacet.json"),
    ),
    (
        "errorMessage",
        Place::Run,
        include_str!("../openlineage/facets/ErrorMessageRunFacet.json"),
    ),
];

/// The most events one batch may hold.
pub const MAX_BATCH: usize = 1_000;

/// The longest name an event may give a namespace, job, dataset or field: names become
/// the names of objects and edges (a job's key is in each of its edges).
pub const MAX_NAME_CHARS: usize = 1_024;

/// The spec version an event is read as (the vendored schema's).
pub const SPEC_VERSION: &str = "2-0-2";

/// How large one event may be (server configuration, `[openlineage]`): past a bound the
/// event is refused (400 INVALID_PARAMETER) with a message naming the bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EventLimits {
    /// The most `inputs` of an event (`openlineage.max_inputs`).
    pub max_inputs: usize,
    /// The most `outputs` of an event (`openlineage.max_outputs`).
    pub max_outputs: usize,
    /// The most lineage edges one event adds or removes, table and column edges
    /// together (`openlineage.max_edges`).
    pub max_edges: usize,
    /// The most fields of one `schema` facet, nested fields counted
    /// (`openlineage.max_schema_fields`).
    pub max_schema_fields: usize,
    /// How far ahead of the server's clock an `eventTime` may be
    /// (`openlineage.max_clock_skew`): a later one would freeze its job until then.
    pub max_clock_skew: Duration,
}

impl Default for EventLimits {
    fn default() -> Self {
        Self {
            max_inputs: 1_000,
            max_outputs: 1_000,
            max_edges: 100_000,
            max_schema_fields: 10_000,
            max_clock_skew: Duration::from_secs(10 * 60),
        }
    }
}

/// A posted event as read: what the store keeps, and what the answer says of how it
/// was read (e.g. a time without a zone read as UTC).
#[derive(Debug, Clone)]
pub struct ReadEvent {
    pub event: LineageEvent,
    pub notes: Vec<String>,
}

struct Schemas {
    run: Validator,
    dataset: Validator,
    job: Validator,
    facets: Vec<(&'static str, Place, Validator)>,
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).expect("a vendored OpenLineage schema is JSON")
}

static CORE_SCHEMA: LazyLock<Value> = LazyLock::new(|| parse(CORE));

static REGISTRY: LazyLock<Registry<'static>> = LazyLock::new(|| {
    Registry::new()
        .add(CORE_URI, &*CORE_SCHEMA)
        .and_then(|r| r.prepare())
        .expect("the vendored OpenLineage schema registers")
});

static SCHEMAS: LazyLock<Schemas> = LazyLock::new(|| {
    let build = |schema: &Value| {
        jsonschema::draft202012::options()
            .offline()
            .should_validate_formats(true)
            .with_registry(&REGISTRY)
            .build(schema)
            .expect("a vendored OpenLineage schema compiles")
    };
    let of =
        |name: &str| build(&serde_json::json!({ "$ref": format!("{CORE_URI}#/$defs/{name}") }));
    Schemas {
        run: of("RunEvent"),
        dataset: of("DatasetEvent"),
        job: of("JobEvent"),
        facets: FACETS
            .iter()
            .map(|(key, place, text)| (*key, *place, build(&parse(text))))
            .collect(),
    }
});

/// Builds the validators now (at start-up), so the first event does not wait for them.
pub fn warm_up() {
    LazyLock::force(&SCHEMAS);
}

/// The JSON of a request body, inflated first when it came gzip-compressed, never
/// more than `limit` bytes once inflated (a small body may inflate to gigabytes).
pub fn body_json(body: &[u8], gzip: bool, limit: usize) -> Result<Value> {
    let inflated;
    let bytes = if gzip {
        let mut out = Vec::new();
        let mut reader = flate2::read::GzDecoder::new(body).take(limit as u64 + 1);
        reader.read_to_end(&mut out).map_err(|e| {
            Error::invalid(format!(
                "the body is not valid gzip (Content-Encoding: gzip): {e}"
            ))
        })?;
        if out.len() > limit {
            return Err(Error::new(
                crate::error::ErrorCode::PayloadTooLarge,
                format!("the body inflates to more than {limit} bytes"),
            ));
        }
        inflated = out;
        &inflated[..]
    } else {
        body
    };
    serde_json::from_slice(bytes).map_err(|e| Error::invalid(format!("the body is not JSON: {e}")))
}

/// One posted event, checked within the default [`EventLimits`]: the event the store
/// keeps, or why it is refused.
pub fn read_event(value: &Value, from: &str, now: Timestamp) -> Result<LineageEvent> {
    read_event_within(value, from, now, &EventLimits::default()).map(|read| read.event)
}

/// One posted event, checked: the event the store keeps with notes on how it was read,
/// or why it is refused (a message naming the place in the event, e.g. `/run/runId:
/// "x" is not a "uuid"`, or the bound it passes).
pub fn read_event_within(
    value: &Value,
    from: &str,
    now: Timestamp,
    limits: &EventLimits,
) -> Result<ReadEvent> {
    let Some(object) = value.as_object() else {
        return Err(Error::invalid("an OpenLineage event is a JSON object"));
    };
    // Which event it is, by its shape, so a refusal names what is wrong with it
    // rather than that it matches none of the three.
    let kind = if object.contains_key("run") || object.contains_key("eventType") {
        LineageEventKind::Run
    } else if object.contains_key("dataset") {
        LineageEventKind::Dataset
    } else if object.contains_key("job") {
        LineageEventKind::Job
    } else {
        return Err(Error::invalid(
            "an OpenLineage event has `run` (a RunEvent), `dataset` (a DatasetEvent) or `job` (a JobEvent)",
        ));
    };
    check_bounds(value, limits)?;
    let mut notes = Vec::new();
    // What the schema reads: the event as posted, but for what producers the reference
    // server accepts leave out (the raw event is kept as posted).
    let mut read_as = None;
    if !object.contains_key("schemaURL") {
        let mut copy = value.clone();
        copy["schemaURL"] = Value::String(format!(
            "{CORE_URI}#/$defs/{}",
            kind_name(kind).trim_start_matches("a ")
        ));
        read_as = Some(copy);
        notes.push(format!(
            "the event has no schemaURL: read as OpenLineage {SPEC_VERSION}"
        ));
    }
    let posted_time = object.get("eventTime").and_then(Value::as_str);
    let zoneless = posted_time.and_then(zoneless_time);
    if let (Some(posted), Some(utc)) = (posted_time, &zoneless) {
        let copy = read_as.get_or_insert_with(|| value.clone());
        copy["eventTime"] = Value::String(utc.clone());
        notes.push(format!(
            "eventTime `{posted}` has no time zone: read as UTC ({utc})"
        ));
    }
    let checked = read_as.as_ref().unwrap_or(value);
    let schemas = &*SCHEMAS;
    let validator = match kind {
        LineageEventKind::Run => &schemas.run,
        LineageEventKind::Dataset => &schemas.dataset,
        LineageEventKind::Job => &schemas.job,
    };
    refuse_errors(kind_name(kind), "", validator, checked)?;
    for (place, at, facets) in facet_sets(checked) {
        for (key, facet_place, validator) in &schemas.facets {
            if *facet_place == place && facets.get(*key).is_some() {
                refuse_errors(&format!("the {key} facet"), &at, validator, facets)?;
            }
        }
    }

    let text = |pointer: &str| value.pointer(pointer).and_then(Value::as_str);
    let event_time = zoneless.as_deref().or(posted_time).unwrap_or_default();
    let event_time = parse_datetime(event_time).map(micros).ok_or_else(|| {
        Error::invalid(format!(
            "/eventTime: `{event_time}` is not an RFC 3339 time"
        ))
    })?;
    let skew = chrono::Duration::from_std(limits.max_clock_skew).unwrap_or(chrono::Duration::MAX);
    if now
        .checked_add_signed(skew)
        .is_some_and(|latest| event_time > latest)
    {
        return Err(Error::invalid(format!(
            "/eventTime: {} is more than {} ahead of the server's clock ({}; the bound is \
             openlineage.max_clock_skew): a future event would hold its job's lineage until then",
            crate::model::format_datetime(&event_time),
            shown_duration(limits.max_clock_skew),
            crate::model::format_datetime(&now),
        )));
    }
    let (run_id, event_type, error_message) = match kind {
        LineageEventKind::Run => (
            text("/run/runId").map(str::to_owned),
            // eventType is optional in the spec: an event without one is metadata.
            Some(
                text("/eventType")
                    .and_then(RunState::parse)
                    .unwrap_or(RunState::Other),
            ),
            text("/run/facets/errorMessage/message").map(str::to_owned),
        ),
        _ => (None, None, None),
    };
    let body = canonical(value);
    let mut event = LineageEvent {
        digest: digest(&body),
        kind,
        event_time,
        received_at: now,
        received_from: from.to_owned(),
        run_id,
        event_type,
        job_namespace: text("/job/namespace").map(str::to_owned),
        job_name: text("/job/name").map(str::to_owned),
        error_message,
        body,
    };
    // What the store would refuse (NUL in a name, a time too far off for a run's
    // state key) is refused here, for this event alone: in a batch the others land.
    prepare_lineage_event(&mut event)?;
    Ok(ReadEvent { event, notes })
}

/// The bounds an event's size is held to, checked before its schema (a bound passed is
/// not worth validating).
fn check_bounds(value: &Value, limits: &EventLimits) -> Result<()> {
    for (side, bound, key) in [
        ("inputs", limits.max_inputs, "max_inputs"),
        ("outputs", limits.max_outputs, "max_outputs"),
    ] {
        let count = value
            .get(side)
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        if count > bound {
            return Err(Error::invalid(format!(
                "/{side}: {count} datasets, more than the {bound} an event may name \
                 (openlineage.{key})"
            )));
        }
    }
    let mut names = vec![
        "/job/namespace".to_owned(),
        "/job/name".to_owned(),
        "/dataset/namespace".to_owned(),
        "/dataset/name".to_owned(),
    ];
    for side in ["inputs", "outputs"] {
        let count = value
            .get(side)
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        for i in 0..count {
            names.push(format!("/{side}/{i}/namespace"));
            names.push(format!("/{side}/{i}/name"));
        }
    }
    for at in &names {
        name_within(at, value.pointer(at))?;
    }
    // Every input field of every column lineage facet may make a column and an edge:
    // together no more than the edges an event may set.
    let mut input_fields = 0usize;
    for (_, at, facets) in facet_sets(value) {
        if let Some(fields) = facets.pointer("/schema/fields") {
            let count = count_fields(fields, limits.max_schema_fields, &at)?;
            if count > limits.max_schema_fields {
                return Err(Error::invalid(format!(
                    "{at}/schema/fields: more than the {} fields a schema facet may hold, \
                     nested fields counted (openlineage.max_schema_fields)",
                    limits.max_schema_fields
                )));
            }
        }
        let Some(fields) = facets
            .pointer("/columnLineage/fields")
            .and_then(Value::as_object)
        else {
            continue;
        };
        if fields.len() > limits.max_schema_fields {
            return Err(Error::invalid(format!(
                "{at}/columnLineage/fields: {} fields, more than the {} a facet may hold \
                 (openlineage.max_schema_fields)",
                fields.len(),
                limits.max_schema_fields
            )));
        }
        for (field, lineage) in fields {
            name_within(
                &format!("{at}/columnLineage/fields"),
                Some(&Value::from(field.as_str())),
            )?;
            let inputs = lineage
                .get("inputFields")
                .and_then(Value::as_array)
                .map_or(&[][..], Vec::as_slice);
            input_fields = input_fields.saturating_add(inputs.len());
            if input_fields > limits.max_edges {
                return Err(Error::invalid(format!(
                    "{at}/columnLineage: more than the {} input fields an event may name, its \
                     facets together (openlineage.max_edges)",
                    limits.max_edges
                )));
            }
            for input in inputs {
                for part in ["namespace", "name", "field"] {
                    name_within(
                        &format!("{at}/columnLineage/fields/…/inputFields"),
                        input.get(part),
                    )?;
                }
            }
        }
    }
    Ok(())
}

/// Refuses a name longer than [`MAX_NAME_CHARS`].
fn name_within(at: &str, name: Option<&Value>) -> Result<()> {
    match name.and_then(Value::as_str) {
        Some(text) if text.chars().count() > MAX_NAME_CHARS => Err(Error::invalid(format!(
            "{at}: a name of {} characters, more than the {MAX_NAME_CHARS} Lore keeps",
            text.chars().count()
        ))),
        _ => Ok(()),
    }
}

/// The fields of a schema facet's `fields`, nested ones (`fields` of a field) counted,
/// counting stopped past `stop`; a field's name longer than [`MAX_NAME_CHARS`] is refused.
fn count_fields(fields: &Value, stop: usize, at: &str) -> Result<usize> {
    let mut count = 0;
    let mut pending = vec![fields];
    while let Some(Value::Array(items)) = pending.pop() {
        for item in items {
            count += 1;
            if count > stop {
                return Ok(count);
            }
            name_within(&format!("{at}/schema/fields"), item.get("name"))?;
            if let Some(nested) = item.get("fields") {
                pending.push(nested);
            }
        }
    }
    Ok(count)
}

/// The RFC 3339 form, in UTC, of a date-time written without a zone
/// (`2026-11-27T10:00:00.123`, or with a space for the `T`); `None` for any other text.
fn zoneless_time(text: &str) -> Option<String> {
    if chrono::DateTime::parse_from_rfc3339(text).is_ok() {
        return None;
    }
    ["%Y-%m-%dT%H:%M:%S%.f", "%Y-%m-%d %H:%M:%S%.f"]
        .iter()
        .find_map(|format| chrono::NaiveDateTime::parse_from_str(text.trim(), format).ok())
        .map(|t| {
            t.and_utc()
                .to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
        })
}

/// A duration as a person writes it: `10m`, `90s`, `2h`.
fn shown_duration(d: Duration) -> String {
    let s = d.as_secs();
    if s > 0 && s.is_multiple_of(3600) {
        format!("{}h", s / 3600)
    } else if s > 0 && s.is_multiple_of(60) {
        format!("{}m", s / 60)
    } else {
        format!("{s}s")
    }
}

fn kind_name(kind: LineageEventKind) -> &'static str {
    match kind {
        LineageEventKind::Run => "a RunEvent",
        LineageEventKind::Dataset => "a DatasetEvent",
        LineageEventKind::Job => "a JobEvent",
    }
}

/// The facet objects of an event with their place and JSON pointer.
fn facet_sets(event: &Value) -> Vec<(Place, String, &Value)> {
    let mut out = Vec::new();
    let mut add = |place, at: String| {
        if let Some(facets) = event.pointer(&at).filter(|f| f.is_object()) {
            out.push((place, at, facets));
        }
    };
    add(Place::Run, "/run/facets".to_owned());
    add(Place::Job, "/job/facets".to_owned());
    add(Place::Dataset, "/dataset/facets".to_owned());
    for side in ["inputs", "outputs"] {
        let count = event
            .get(side)
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        for i in 0..count {
            add(Place::Dataset, format!("/{side}/{i}/facets"));
        }
    }
    out
}

/// Refuses the value with the first (few) errors the validator finds, each with its
/// place in the event.
fn refuse_errors(what: &str, at: &str, validator: &Validator, value: &Value) -> Result<()> {
    let errors: Vec<String> = validator
        .iter_errors(value)
        .take(3)
        .map(|e| {
            let place = format!("{at}{}", e.instance_path());
            let place = if place.is_empty() {
                "/".to_owned()
            } else {
                place
            };
            format!("{place}: {}", e.masked())
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Error::invalid(format!(
            "not {what} of OpenLineage 2-0-2: {}",
            errors.join("; ")
        )))
    }
}

/// The JSON text of a value with the keys of every object sorted: the same event
/// posted twice, whatever its key order or spacing, has one text and one digest.
pub fn canonical(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sorted(&map[k])))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}

/// An event's digest: the SHA-256 of its canonical JSON text, in hex.
pub fn digest(text: &str) -> String {
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn start() -> Value {
        json!({
            "eventType": "START",
            "eventTime": "2026-11-27T10:00:00.123456Z",
            "producer": "https://github.com/OpenLineage/OpenLineage/tree/1.54.0/client/python",
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
            "run": {
                "runId": "0176a8c2-fe01-7439-87e6-56a1a1b4029f",
                "facets": {
                    "vendorThing": {"_producer": "https://example.com/x", "_schemaURL": "https://example.com/s", "anything": [1, 2]}
                }
            },
            "job": {"namespace": "airflow", "name": "etl.load_orders"},
            "inputs": [{
                "namespace": "postgres://db:5432",
                "name": "shop.public.orders",
                "facets": {"schema": {
                    "_producer": "https://example.com/x",
                    "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet",
                    "fields": [{"name": "id", "type": "INTEGER"}]
                }}
            }],
            "outputs": []
        })
    }

    fn now() -> Timestamp {
        parse_datetime("2026-11-27T12:00:00Z").unwrap()
    }

    #[test]
    fn the_vendored_schemas_compile() {
        warm_up();
        assert_eq!(SCHEMAS.facets.len(), FACETS.len());
    }

    #[test]
    fn a_run_event_is_read_with_its_raw_json() {
        let event = read_event(&start(), "pipeline", now()).unwrap();
        assert_eq!(event.kind, LineageEventKind::Run);
        assert_eq!(event.event_type, Some(RunState::Start));
        assert_eq!(
            event.run_id.as_deref(),
            Some("0176a8c2-fe01-7439-87e6-56a1a1b4029f")
        );
        assert_eq!(event.job_name.as_deref(), Some("etl.load_orders"));
        assert!(
            event.body.contains("vendorThing"),
            "unknown facets are kept"
        );
        assert_eq!(event.digest.len(), 64);
        // The same event, keys in another order and spaced otherwise: one digest.
        let again: Value =
            serde_json::from_str(&serde_json::to_string_pretty(&start()).unwrap()).unwrap();
        assert_eq!(
            read_event(&again, "other", now()).unwrap().digest,
            event.digest
        );
    }

    #[test]
    fn a_malformed_event_is_refused_with_its_place() {
        let mut bad = start();
        bad["run"]["runId"] = json!("not-a-uuid");
        let e = read_event(&bad, "p", now()).unwrap_err().to_string();
        assert!(e.contains("/run/runId"), "{e}");

        let mut bad = start();
        bad["eventType"] = json!("FINISHED");
        let e = read_event(&bad, "p", now()).unwrap_err().to_string();
        assert!(e.contains("/eventType"), "{e}");

        let mut bad = start();
        bad.as_object_mut().unwrap().remove("eventTime");
        let e = read_event(&bad, "p", now()).unwrap_err().to_string();
        assert!(e.contains("eventTime"), "{e}");

        // A facet Lore reads, against its own schema.
        let mut bad = start();
        bad["inputs"][0]["facets"]["schema"]["fields"] = json!([{"type": "INTEGER"}]);
        let e = read_event(&bad, "p", now()).unwrap_err().to_string();
        assert!(e.contains("/inputs/0/facets/schema/fields/0"), "{e}");

        // What the store would refuse is refused per event.
        let mut bad = start();
        bad["job"]["name"] = json!("nul\u{0}inside");
        assert!(read_event(&bad, "p", now()).is_err());
        // A time far ahead would hold the job's lineage until then: refused, naming
        // the bound; without the bound the year 9999 is in range.
        let mut bad = start();
        bad["eventTime"] = json!("9999-12-31T23:59:59Z");
        let e = read_event(&bad, "p", now()).unwrap_err().to_string();
        assert!(e.contains("openlineage.max_clock_skew"), "{e}");
        let unbounded = EventLimits {
            max_clock_skew: Duration::MAX,
            ..EventLimits::default()
        };
        assert!(read_event_within(&bad, "p", now(), &unbounded).is_ok());

        let e = read_event(&json!({"eventTime": "x"}), "p", now())
            .unwrap_err()
            .to_string();
        assert!(e.contains("RunEvent"), "{e}");
        let e = read_event(&json!([1]), "p", now()).unwrap_err().to_string();
        assert!(e.contains("JSON object"), "{e}");
    }

    #[test]
    fn dataset_and_job_events_are_read() {
        let dataset = json!({
            "eventTime": "2026-11-27T10:00:00Z",
            "producer": "https://example.com/p",
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
            "dataset": {"namespace": "s3://bucket", "name": "/data/orders"}
        });
        let event = read_event(&dataset, "p", now()).unwrap();
        assert_eq!(
            (event.kind, event.run_id, event.event_type),
            (LineageEventKind::Dataset, None, None)
        );
        let job = json!({
            "eventTime": "2026-11-27T10:00:00Z",
            "producer": "https://example.com/p",
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/JobEvent",
            "job": {"namespace": "dbt", "name": "shop.orders"},
            "inputs": [], "outputs": []
        });
        let event = read_event(&job, "p", now()).unwrap();
        assert_eq!(event.kind, LineageEventKind::Job);
        assert_eq!(event.job_namespace.as_deref(), Some("dbt"));
    }

    #[test]
    fn producers_the_reference_server_accepts_are_read() {
        // No schemaURL: read as the newest spec Lore knows, and said so.
        let mut event = start();
        event.as_object_mut().unwrap().remove("schemaURL");
        let read = read_event_within(&event, "p", now(), &EventLimits::default()).unwrap();
        assert!(read.notes[0].contains("no schemaURL"), "{:?}", read.notes);
        assert!(!read.event.body.contains("\"schemaURL\""), "kept as posted");

        // A time without a zone is UTC; nanoseconds are read (kept to microseconds).
        let mut event = start();
        event["eventTime"] = json!("2026-11-27T10:00:00.123456789");
        let read = read_event_within(&event, "p", now(), &EventLimits::default()).unwrap();
        assert_eq!(
            read.event.event_time,
            parse_datetime("2026-11-27T10:00:00.123456Z").unwrap()
        );
        assert!(read.notes[0].contains("read as UTC"), "{:?}", read.notes);
        assert!(
            read.event.body.contains("10:00:00.123456789\""),
            "kept as posted"
        );
        let mut event = start();
        event["eventTime"] = json!("2026-11-27T11:00:00.987654321+01:00");
        let read = read_event_within(&event, "p", now(), &EventLimits::default()).unwrap();
        assert_eq!(
            read.event.event_time,
            parse_datetime("2026-11-27T10:00:00.987654Z").unwrap()
        );
        assert!(read.notes.is_empty(), "{:?}", read.notes);
        // Not a time at all is still refused.
        let mut event = start();
        event["eventTime"] = json!("2026-11-27 noon");
        assert!(read_event(&event, "p", now()).is_err());
    }

    #[test]
    fn bounds_are_named_when_passed() {
        let limits = EventLimits {
            max_inputs: 2,
            max_outputs: 1,
            max_schema_fields: 3,
            ..EventLimits::default()
        };
        let dataset = |fields: Value| {
            json!({"namespace": "s3://b", "name": "x", "facets": {"schema": {
                "_producer": "https://example.com/x",
                "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet",
                "fields": fields
            }}})
        };
        let field = |name: &str| json!({"name": name});
        let mut event = start();
        event["inputs"] = json!([dataset(json!([])), dataset(json!([])), dataset(json!([]))]);
        let e = read_event_within(&event, "p", now(), &limits).unwrap_err();
        assert!(e.message.contains("openlineage.max_inputs"), "{e}");
        assert_eq!(e.code, crate::error::ErrorCode::InvalidParameter);
        event["inputs"] = json!([dataset(json!([])), dataset(json!([]))]);
        assert!(read_event_within(&event, "p", now(), &limits).is_ok());
        event["outputs"] = json!([dataset(json!([])), dataset(json!([]))]);
        let e = read_event_within(&event, "p", now(), &limits).unwrap_err();
        assert!(e.message.contains("openlineage.max_outputs"), "{e}");
        // Nested fields count.
        event["outputs"] = json!([dataset(json!([
            field("a"),
            {"name": "b", "fields": [field("c"), field("d")]}
        ]))]);
        let e = read_event_within(&event, "p", now(), &limits).unwrap_err();
        assert!(e.message.contains("/outputs/0/facets/schema/fields"), "{e}");
        assert!(e.message.contains("openlineage.max_schema_fields"), "{e}");
        event["outputs"] = json!([dataset(json!([field("a"), field("b"), field("c")]))]);
        assert!(read_event_within(&event, "p", now(), &limits).is_ok());
    }

    #[test]
    fn names_and_column_lineage_inputs_are_bounded() {
        let long = "n".repeat(MAX_NAME_CHARS + 1);
        let fit = "n".repeat(MAX_NAME_CHARS);
        let limits = EventLimits {
            max_edges: 3,
            ..EventLimits::default()
        };
        for (at, set) in [
            (
                "/job/name",
                &(|e: &mut Value, n: &str| e["job"]["name"] = json!(n))
                    as &dyn Fn(&mut Value, &str),
            ),
            ("/job/namespace", &|e: &mut Value, n: &str| {
                e["job"]["namespace"] = json!(n)
            }),
            ("/inputs/0/name", &|e: &mut Value, n: &str| {
                e["inputs"] = json!([{"namespace": "s3://b", "name": n}])
            }),
            (
                "/outputs/0/facets/schema/fields",
                &|e: &mut Value, n: &str| {
                    e["outputs"] = json!([{"namespace": "s3://b", "name": "x", "facets": {"schema": {
                        "_producer": "https://example.com/x",
                        "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/SchemaDatasetFacet.json#/$defs/SchemaDatasetFacet",
                        "fields": [{"name": "a", "fields": [{"name": n}]}]
                    }}}])
                },
            ),
        ] {
            let mut event = start();
            set(&mut event, &long);
            let e = read_event_within(&event, "p", now(), &limits).unwrap_err();
            assert!(
                e.message.starts_with(at) && e.message.contains("1025 characters"),
                "{e}"
            );
            set(&mut event, &fit);
            assert!(
                read_event_within(&event, "p", now(), &limits).is_ok(),
                "{at}"
            );
        }
        // Column lineage: input fields of every field count toward max_edges.
        let lineage = |inputs: usize, field: &str| {
            let input = json!({"namespace": "s3://b", "name": "in", "field": field});
            json!([{"namespace": "s3://b", "name": "x", "facets": {"columnLineage": {
                "_producer": "https://example.com/x",
                "_schemaURL": "https://openlineage.io/spec/facets/1-2-0/ColumnLineageDatasetFacet.json#/$defs/ColumnLineageDatasetFacet",
                "fields": {"a": {"inputFields": vec![input.clone(); inputs - 1]}, "b": {"inputFields": [input]}}
            }}}])
        };
        let mut event = start();
        event["outputs"] = lineage(3, "f");
        assert!(read_event_within(&event, "p", now(), &limits).is_ok());
        event["outputs"] = lineage(4, "f");
        let e = read_event_within(&event, "p", now(), &limits).unwrap_err();
        assert!(e.message.contains("openlineage.max_edges"), "{e}");
        event["outputs"] = lineage(2, &long);
        let e = read_event_within(&event, "p", now(), &limits).unwrap_err();
        assert!(
            e.message.contains("inputFields") && e.message.contains("characters"),
            "{e}"
        );
    }

    #[test]
    fn gzip_bodies_inflate_within_their_bound() {
        use std::io::Write;
        let text = serde_json::to_vec(&start()).unwrap();
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        gz.write_all(&text).unwrap();
        let packed = gz.finish().unwrap();
        assert_eq!(body_json(&packed, true, 1 << 20).unwrap(), start());
        let e = body_json(&packed, true, 100).unwrap_err();
        assert_eq!(e.code, crate::error::ErrorCode::PayloadTooLarge);
        assert!(body_json(b"not gzip", true, 100).is_err());
        assert!(body_json(b"{", false, 100).is_err());
    }
}
