//! The importer end to end: requests in, records, log lines and progress out, as the
//! plugin host would receive them.

use std::path::{Path, PathBuf};

use lore_importer_flatfile::{FORMAT, FlatFile, MODEL_PROFILE};
use lore_plugin_sdk::testing::{self, Outcome};
use lore_plugin_sdk::{FileUse, Importer, Level, LogLine, Model, Progress};
use serde_json::{Value, json};

/// Runs an import as the host does.
fn run(file: Option<&Path>, parameters: Value) -> Outcome {
    testing::run::<FlatFile>(&testing::request(FORMAT, file, parameters))
}

/// Runs an import that succeeds, and checks that Lore would take what it sent.
fn import(file: Option<&Path>, parameters: Value) -> Outcome {
    let outcome = run(file, parameters);
    if let Err(refused) = outcome.check() {
        panic!("Lore would refuse the import: {refused}");
    }
    outcome
}

/// A file of the given bytes in a temporary directory.
fn file(dir: &tempfile::TempDir, name: &str, content: impl AsRef<[u8]>) -> PathBuf {
    let path = dir.path().join(name);
    std::fs::write(&path, content).expect("write the test file");
    path
}

fn orders() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/orders.csv")
}

fn counts(histogram: &Value) -> Vec<u64> {
    histogram
        .as_array()
        .expect("a histogram array")
        .iter()
        .map(|b| b["count"].as_u64().expect("a bucket count"))
        .collect()
}

fn close(value: &Value, expected: f64) {
    let actual = value
        .as_f64()
        .unwrap_or_else(|| panic!("{value} is not a number"));
    assert!(
        (actual - expected).abs() < 1e-9,
        "{actual} is not {expected}"
    );
}

const HANDMADE: &str = "\
code,price,qty,active,day,note
AB-12,10.5,1,true,2024-01-01,x
AB-12,20,2,false,2024-01-02,
CD-345,30.25,2,yes,2024-01-03,\"hello, world\"
,40,,no,2024-01-04 10:00:00,y
EF-6,,5,true,,x
";

#[test]
fn statistics_of_a_small_file_are_exact() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = file(&dir, "handmade.csv", HANDMADE);
    let sent = import(Some(&path), json!({}));

    // A string column: an empty cell, a duplicate, three shapes.
    let code = sent.data_profile("handmade.csv.code");
    assert_eq!(code["totalProfiledRows"], 5);
    chrono::DateTime::parse_from_rfc3339(code["profilingDate"].as_str().expect("a date"))
        .expect("profilingDate is RFC 3339");
    assert_eq!(
        code["statistics"],
        json!({"DistinctRows": 3, "DuplicateRows": 1, "ValidRows": 4, "EmptyRows": 1,
               "InvalidRows": 0, "avgLength": 5.0, "minLength": 4, "maxLength": 6})
    );
    assert_eq!(code["inferredDataTypes"], json!({"STRING": 4}));
    assert_eq!(
        code["patterns"],
        json!({"AA-99": 2, "AA-999": 1, "AA-9": 1})
    );
    assert_eq!(code["values"], json!({"AB-12": 2, "CD-345": 1, "EF-6": 1}));
    assert_eq!(code["histogram"], json!([]));
    assert_eq!(code["invalidDataTypeValues"], json!([]));

    // A decimal column of integers and decimals.
    let price = sent.data_profile("handmade.csv.price");
    let s = &price["statistics"];
    assert_eq!(s["DistinctRows"], 4);
    assert_eq!(s["DuplicateRows"], 0);
    assert_eq!(s["ValidRows"], 4);
    assert_eq!(s["EmptyRows"], 1);
    assert_eq!(s["InvalidRows"], 0);
    assert_eq!(s["min"], 10.5);
    assert_eq!(s["max"], 40.0);
    close(&s["mean"], 25.1875);
    close(&s["variance"], 121.917_968_75);
    close(&s["median"], 25.125);
    close(&s["lowerQuantile"], 17.625);
    close(&s["upperQuantile"], 32.6875);
    assert_eq!(s["minLength"], 2);
    assert_eq!(s["maxLength"], 5);
    close(&s["avgLength"], 3.25);
    assert_eq!(
        price["inferredDataTypes"],
        json!({"INTEGER": 2, "DECIMAL": 2})
    );
    assert_eq!(price["patterns"], json!({"99": 2, "99.9": 1, "99.99": 1}));
    assert_eq!(
        counts(&price["histogram"]),
        vec![1, 0, 0, 1, 0, 0, 1, 0, 0, 1]
    );
    assert_eq!(price["histogram"][0]["lower"], "10.5");
    assert_eq!(price["histogram"][0]["upper"], "13.45");
    assert_eq!(price["histogram"][9]["upper"], "40");

    // An integer column.
    let s = &sent.data_profile("handmade.csv.qty")["statistics"];
    assert_eq!(s["DistinctRows"], 3);
    assert_eq!(s["DuplicateRows"], 1);
    assert_eq!(s["min"], 1.0);
    assert_eq!(s["max"], 5.0);
    close(&s["mean"], 2.5);
    close(&s["variance"], 2.25);
    close(&s["median"], 2.0);

    // Booleans and dates have no numeric statistics.
    let active = sent.data_profile("handmade.csv.active");
    assert_eq!(active["inferredDataTypes"], json!({"BOOLEAN": 5}));
    assert_eq!(active["statistics"]["DistinctRows"], 4);
    assert_eq!(active["values"]["true"], 2);
    assert!(active["statistics"].get("mean").is_none());
    let day = sent.data_profile("handmade.csv.day");
    assert_eq!(day["inferredDataTypes"], json!({"DATE": 3, "DATETIME": 1}));
    assert_eq!(day["statistics"]["ValidRows"], 4);

    // Quoted cells keep their delimiter.
    let note = sent.data_profile("handmade.csv.note");
    assert_eq!(note["values"], json!({"x": 2, "hello, world": 1, "y": 1}));
    assert_eq!(note["patterns"]["aaaaa, aaaaa"], 1);

    // The inferred types are the fields' data types.
    let types: Vec<(&str, Option<&str>)> = sent
        .objects_of_type("Field")
        .map(|o| (o.name.as_str(), o.data_type.as_deref()))
        .collect();
    assert_eq!(
        types,
        vec![
            ("code", Some("STRING")),
            ("price", Some("DECIMAL")),
            ("qty", Some("INTEGER")),
            ("active", Some("BOOLEAN")),
            ("day", Some("DATETIME")),
            ("note", Some("STRING")),
        ]
    );
}

#[test]
fn the_profile_has_the_json_types_lore_reads() {
    let sent = import(Some(&orders()), json!({}));
    for profiling in sent.profilings() {
        let Some(profile) = &profiling.data_profile else {
            continue;
        };
        assert!(profile["totalProfiledRows"].is_u64());
        assert!(profile["profilingDate"].is_string());
        for (key, value) in profile["statistics"].as_object().expect("statistics") {
            match key.as_str() {
                "DistinctRows" | "DuplicateRows" | "ValidRows" | "EmptyRows" | "InvalidRows"
                | "minLength" | "maxLength" => assert!(value.is_u64(), "{key}: {value}"),
                "min" | "max" | "mean" | "variance" | "median" | "lowerQuantile"
                | "upperQuantile" | "avgLength" => assert!(value.is_f64(), "{key}: {value}"),
                other => panic!("statistic {other} is not one MQL knows"),
            }
        }
        for map in ["inferredDataTypes", "patterns", "values"] {
            for (key, count) in profile[map].as_object().expect("a map") {
                assert!(count.is_u64(), "{map}.{key}: {count}");
            }
        }
        assert!(profile["invalidDataTypeValues"].is_array());
        for bucket in profile["histogram"].as_array().expect("a histogram") {
            assert!(bucket["count"].is_u64());
            assert!(bucket["lower"].is_string() && bucket["upper"].is_string());
        }
    }
}

#[test]
fn the_orders_sample_becomes_a_file_with_fields() {
    let sent = import(Some(&orders()), json!({}));
    orders_file_and_fields(&sent);
    orders_profiles(&sent);
    orders_samples(&sent);
    orders_progress_and_summary(&sent);
}

/// The orders sample's file (row count, format) and its fields, typed and in order.
fn orders_file_and_fields(sent: &Outcome) {
    assert_eq!(sent.model(), Some(&Model::new("orders", MODEL_PROFILE)));

    let file = sent.object("orders.csv");
    assert_eq!(file.object_type, "File");
    assert_eq!(file.parent_native_id, None);
    assert_eq!(
        sent.attribute("orders.csv", "Row Count"),
        Some(("Integer", "50"))
    );
    assert_eq!(
        sent.attribute("orders.csv", "Format"),
        Some(("String", "CSV"))
    );

    let fields: Vec<(&str, &str, Option<&str>, Option<&str>)> = sent
        .objects_of_type("Field")
        .map(|o| {
            (
                o.native_id.as_str(),
                o.name.as_str(),
                o.parent_native_id.as_deref(),
                o.data_type.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        fields,
        vec![
            ("orders.csv.id", "id", Some("orders.csv"), Some("INTEGER")),
            (
                "orders.csv.amount",
                "amount",
                Some("orders.csv"),
                Some("DECIMAL")
            ),
            (
                "orders.csv.order_date",
                "order_date",
                Some("orders.csv"),
                Some("DATE")
            ),
            (
                "orders.csv.status",
                "status",
                Some("orders.csv"),
                Some("STRING")
            ),
            (
                "orders.csv.email",
                "email",
                Some("orders.csv"),
                Some("STRING")
            ),
        ]
    );
    assert_eq!(sent.objects().count(), 6);
    for (i, field) in ["id", "amount", "order_date", "status", "email"]
        .iter()
        .enumerate()
    {
        let position = (i + 1).to_string();
        assert_eq!(
            sent.attribute(&format!("orders.csv.{field}"), "Position"),
            Some(("Integer", position.as_str()))
        );
    }
}

/// The data profiles of the orders sample's fields.
fn orders_profiles(sent: &Outcome) {
    let id = &sent.data_profile("orders.csv.id")["statistics"];
    assert_eq!(id["DistinctRows"], 50);
    assert_eq!(id["DuplicateRows"], 0);
    assert_eq!(id["min"], 1001.0);
    assert_eq!(id["max"], 1050.0);
    close(&id["median"], 1025.5);
    assert_eq!(
        counts(&sent.data_profile("orders.csv.id")["histogram"]),
        vec![5; 10]
    );

    let amount = sent.data_profile("orders.csv.amount");
    assert_eq!(amount["statistics"]["EmptyRows"], 1);
    assert_eq!(amount["statistics"]["DuplicateRows"], 1);
    assert_eq!(amount["statistics"]["DistinctRows"], 48);
    assert_eq!(amount["statistics"]["min"], 29.57);
    assert_eq!(amount["statistics"]["max"], 451.95);
    assert_eq!(amount["values"]["129.99"], 2);
    assert_eq!(counts(&amount["histogram"]).iter().sum::<u64>(), 49);

    let status = sent.data_profile("orders.csv.status");
    assert_eq!(status["statistics"]["DistinctRows"], 4);
    assert_eq!(status["statistics"]["EmptyRows"], 1);
    assert_eq!(
        status["values"],
        json!({"shipped": 20, "delivered": 10, "open": 10, "cancelled": 9})
    );
    assert_eq!(status["patterns"]["aaaaaaa"], 20);

    let email = sent.data_profile("orders.csv.email");
    assert_eq!(email["statistics"]["EmptyRows"], 2);
    assert_eq!(email["statistics"]["DistinctRows"], 47);
    assert_eq!(email["statistics"]["DuplicateRows"], 1);
    assert_eq!(email["values"]["fatima.1@example.com"], 2);

    let date = sent.data_profile("orders.csv.order_date");
    assert_eq!(date["inferredDataTypes"], json!({"DATE": 50}));
    assert_eq!(date["patterns"], json!({"9999-99-99": 50}));
}

/// Samples: the first 20 rows, empty cells as null.
fn orders_samples(sent: &Outcome) {
    let status_sample = sent.data_sample("orders.csv.status");
    assert_eq!(status_sample["header"], json!(["status"]));
    let samples = status_sample["samples"].as_array().expect("samples");
    assert_eq!(samples.len(), 20);
    assert_eq!(samples[0], json!(["shipped"]));
    assert_eq!(samples[11], json!([null]));
    let file_sample = sent.data_sample("orders.csv");
    assert_eq!(
        file_sample["header"],
        json!(["id", "amount", "order_date", "status", "email"])
    );
    assert_eq!(file_sample["samples"].as_array().map(Vec::len), Some(20));
    assert_eq!(
        file_sample["samples"][0],
        json!([
            "1001",
            "217.22",
            "2024-01-04",
            "shipped",
            "fatima.1@example.com"
        ])
    );
    assert!(sent.profiling("orders.csv").data_profile.is_none());
}

/// Progress ends with every field; the log sums up.
fn orders_progress_and_summary(sent: &Outcome) {
    assert_eq!(
        sent.progress.last(),
        Some(&Progress {
            done: 5,
            total: Some(5),
            unit: "fields".into()
        })
    );
    assert!(sent.progress.contains(&Progress {
        done: 50,
        total: Some(50),
        unit: "rows".into()
    }));
    assert_eq!(
        sent.logs,
        vec![LogLine {
            level: Level::Info,
            message: "orders.csv: 50 rows, 5 fields, 50 rows profiled".into()
        }]
    );
}

#[test]
fn delimiter_header_and_row_parameters() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = file(&dir, "plain.txt", "1;a;x\n2;b;\n3;b;z\n");
    let sent = import(
        Some(&path),
        json!({"delimiter": ";", "header": false, "modelName": "Plain", "sampleRows": 2, "maxRows": 2}),
    );
    assert_eq!(sent.model().map(|m| m.name.as_str()), Some("Plain"));
    let names: Vec<&str> = sent
        .objects_of_type("Field")
        .map(|o| o.native_id.as_str())
        .collect();
    assert_eq!(
        names,
        vec![
            "plain.txt.column_1",
            "plain.txt.column_2",
            "plain.txt.column_3"
        ]
    );
    // Every row counts; only the first two are profiled and sampled.
    assert_eq!(
        sent.attribute("plain.txt", "Row Count"),
        Some(("Integer", "3"))
    );
    let second = sent.data_profile("plain.txt.column_2");
    assert_eq!(second["totalProfiledRows"], 2);
    assert_eq!(second["values"], json!({"a": 1, "b": 1}));
    assert_eq!(
        sent.data_sample("plain.txt.column_3")["samples"],
        json!([["x"], [null]])
    );
    assert_eq!(
        sent.data_sample("plain.txt")["samples"],
        json!([["1", "a", "x"], ["2", "b", null]])
    );
    assert_eq!(
        sent.logs.last().map(|l| l.message.as_str()),
        Some("plain.txt: 3 rows, 3 fields, 2 rows profiled")
    );

    for tab in ["\\t", "tab", "TAB", "\t"] {
        let path = file(&dir, "tabs.tsv", "a\tb\n1\t2\n");
        let sent = import(Some(&path), json!({ "delimiter": tab }));
        assert_eq!(
            sent.object("tabs.tsv.b").data_type.as_deref(),
            Some("INTEGER")
        );
    }

    // Without profiling: the fields are still typed, nothing is profiled or sampled.
    let sent = import(Some(&orders()), json!({"profile": false}));
    assert_eq!(sent.profilings().count(), 0);
    assert_eq!(
        sent.object("orders.csv.amount").data_type.as_deref(),
        Some("DECIMAL")
    );
    assert_eq!(
        sent.attribute("orders.csv", "Row Count"),
        Some(("Integer", "50"))
    );
    assert_eq!(
        sent.logs.last().map(|l| l.message.as_str()),
        Some("orders.csv: 50 rows, 5 fields")
    );
}

#[test]
fn header_names_are_trimmed_and_made_unique() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // A byte-order mark, a blank name, a repeated one.
    let path = file(&dir, "names.csv", "\u{feff} id ,,amount,amount\n1,2,3,4\n");
    let sent = import(Some(&path), json!({"profile": false}));
    let names: Vec<&str> = sent
        .objects_of_type("Field")
        .map(|o| o.name.as_str())
        .collect();
    assert_eq!(names, vec!["id", "column_2", "amount", "amount_2"]);
    assert!(sent.logs.iter().any(|l| l.level == Level::Warn
        && l.message == "names.csv: 'amount' (column 4) is named 'amount_2'"));
}

#[test]
fn a_file_with_only_a_header_has_fields_and_no_rows() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = file(&dir, "empty.csv", "a,b\n");
    let sent = import(Some(&path), json!({}));
    assert_eq!(
        sent.attribute("empty.csv", "Row Count"),
        Some(("Integer", "0"))
    );
    assert_eq!(
        sent.object("empty.csv.a").data_type.as_deref(),
        Some("STRING")
    );
    let profile = sent.data_profile("empty.csv.a");
    assert_eq!(profile["totalProfiledRows"], 0);
    assert_eq!(profile["statistics"]["DistinctRows"], 0);
    assert_eq!(sent.data_sample("empty.csv")["samples"], json!([]));
}

#[test]
fn errors_name_the_file_and_the_line() {
    let dir = tempfile::tempdir().expect("a temporary directory");

    let missing = dir.path().join("missing.csv");
    let error = run(Some(&missing), json!({})).error();
    assert!(
        error.starts_with(&format!("cannot open {}: ", missing.display())),
        "{error}"
    );

    let error = run(None, json!({})).error();
    assert_eq!(error, "format 'csv-file' needs a file");

    // The quoted line break makes the short row the file's fourth line.
    let ragged = file(&dir, "ragged.csv", "a,b,c\n1,\"two\nlines\",3\n4,5\n");
    let error = run(Some(&ragged), json!({})).error();
    assert_eq!(error, "ragged.csv line 4: 2 fields, but the header has 3");

    let long = file(&dir, "long.csv", "1,2\n3,4,5\n");
    let error = run(Some(&long), json!({"header": false})).error();
    assert_eq!(error, "long.csv line 2: 3 fields, but the first row has 2");

    let latin1 = file(&dir, "latin1.csv", b"name,city\nx,M\xfcnchen\n");
    let error = run(Some(&latin1), json!({})).error();
    assert_eq!(
        error,
        "latin1.csv line 2: invalid UTF-8 in column 2; only UTF-8 files are read"
    );

    let error = run(Some(&orders()), json!({"delimiter": "::"})).error();
    assert!(
        error.starts_with("'delimiter' must be one ASCII character"),
        "{error}"
    );
    let error = run(Some(&orders()), json!({"sampleRows": -1})).error();
    assert_eq!(error, "'sampleRows' must be a non-negative integer, not -1");
    let error = run(Some(&orders()), json!({"header": "yes"})).error();
    assert_eq!(error, "'header' must be a boolean, not \"yes\"");
}

#[test]
fn a_large_column_is_profiled_within_bounds_and_said_to_be_approximate() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let mut content = String::from("n\n");
    for n in 0..150_000 {
        content.push_str(&format!("{n}\n"));
    }
    let path = file(&dir, "large.csv", content);
    let sent = import(Some(&path), json!({}));
    assert_eq!(
        sent.attribute("large.csv", "Row Count"),
        Some(("Integer", "150000"))
    );
    assert!(sent.progress.contains(&Progress {
        done: 100_000,
        total: None,
        unit: "rows".into()
    }));
    assert!(sent.logs.iter().any(|l| l.message
        == "large.csv.n: more distinct values than are kept; its distinct count, duplicates, \
            top values, patterns, quantiles and histogram are approximate"));
    let s = &sent.data_profile("large.csv.n")["statistics"];
    let distinct = s["DistinctRows"].as_f64().expect("a count");
    assert!(
        (distinct - 150_000.0).abs() < 150_000.0 * 0.03,
        "{distinct}"
    );
    assert_eq!(s["min"], 0.0);
    assert_eq!(s["max"], 149_999.0);
    close(&s["mean"], 74_999.5);
    let median = s["median"].as_f64().expect("a median");
    assert!((median - 75_000.0).abs() < 3_000.0, "{median}");
}

#[test]
fn about_names_the_format_and_its_parameters() {
    let about = FlatFile::about();
    assert_eq!(about.name, "flatfile");
    assert_eq!(about.formats.len(), 1);
    let format = &about.formats[0];
    assert_eq!(format.name, "csv-file");
    assert_eq!(format.file, FileUse::Required);
    let properties = format.parameters["properties"]
        .as_object()
        .expect("properties");
    let mut names: Vec<&str> = properties.keys().map(String::as_str).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        vec![
            "delimiter",
            "header",
            "maxRows",
            "modelName",
            "profile",
            "sampleRows"
        ]
    );
    assert_eq!(properties["sampleRows"]["type"], "integer");
    assert_eq!(properties["header"]["default"], true);
}
