//! Tests of the archive format: round trips, determinism, the sample model and every
//! refusal of the reader.

use std::collections::BTreeMap;
use std::io::{Cursor, Read, Write};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, ZipArchive, ZipWriter};

use super::super::write::canonical;
use super::super::*;
use crate::error::ErrorCode;
use crate::model::{DataProfile, DataSample, HistogramBucket, ProfileStatistics};

const MODEL_CSV: &str =
    "format_version,name,profile,description\n1,M,RDBMS Relational Database (Database),\n";
const OBJECTS_CSV: &str =
    "native_id,parent_native_id,object_type,name\ndb,,Database,DB\nt,db,Table,T\nc,t,Column,C\n";

fn zip_with(entries: &[(&str, &[u8])], method: CompressionMethod) -> Vec<u8> {
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(method);
    for (name, data) in entries {
        zip.start_file(*name, options).expect("start entry");
        zip.write_all(data).expect("write entry");
    }
    zip.finish().expect("finish zip").into_inner()
}

fn zip_of(entries: &[(&str, &[u8])]) -> Vec<u8> {
    zip_with(entries, CompressionMethod::Deflated)
}

/// A minimal valid archive plus the given entries (which replace same-named ones).
fn archive_with(extra: &[(&str, &str)]) -> Vec<u8> {
    let mut entries: Vec<(&str, &[u8])> = Vec::new();
    for (name, base) in [("model.csv", MODEL_CSV), ("objects.csv", OBJECTS_CSV)] {
        if !extra.iter().any(|(n, _)| *n == name) {
            entries.push((name, base.as_bytes()));
        }
    }
    entries.extend(extra.iter().map(|(n, d)| (*n, d.as_bytes())));
    zip_of(&entries)
}

fn read_default(bytes: &[u8]) -> crate::Result<ModelArchive> {
    read(bytes, &ArchiveLimits::default())
}

#[track_caller]
fn refused(result: crate::Result<ModelArchive>, needles: &[&str]) -> String {
    let error = match result {
        Ok(archive) => panic!("expected a refusal naming {needles:?}, got {archive:?}"),
        Err(e) => e,
    };
    assert_eq!(error.code, ErrorCode::InvalidParameter, "{}", error.message);
    assert!(
        error.message.starts_with("model archive: "),
        "{}",
        error.message
    );
    for needle in needles {
        assert!(
            error.message.contains(needle),
            "message {:?} should name {needle:?}",
            error.message
        );
    }
    error.message
}

#[track_caller]
fn refused_with(extra: &[(&str, &str)], needles: &[&str]) -> String {
    refused(read_default(&archive_with(extra)), needles)
}

/// The entries of a zip, in order, with their contents.
fn unzip(bytes: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut zip = ZipArchive::new(Cursor::new(bytes)).expect("a zip");
    (0..zip.len())
        .map(|i| {
            let mut file = zip.by_index(i).expect("entry");
            let mut data = Vec::new();
            file.read_to_end(&mut data).expect("inflate");
            (file.name().to_owned(), data)
        })
        .collect()
}

fn rich_archive() -> ModelArchive {
    let object = |id: &str, parent: Option<&str>, object_type: &str, name: &str| ArchiveObject {
        native_id: id.to_owned(),
        parent_native_id: parent.map(str::to_owned),
        object_type: object_type.to_owned(),
        name: name.to_owned(),
        ..Default::default()
    };
    let mut column = object("db.s.t.c2", Some("db.s.t"), "Column", "amount, \"net\"");
    column.physical_name = Some("AMOUNT_NET".to_owned());
    column.description = Some("Line one\nline two, with \"quotes\"\r\nand ünïcødé ✓".to_owned());
    column.business_name = Some("Net Amount".to_owned());
    column.business_description = Some(" leading and trailing spaces ".to_owned());
    column.data_type = Some("NUMERIC(12,2)".to_owned());
    column.external_url = Some("https://example.com/a?b=c,d".to_owned());
    column.hide_data = true;
    column.workflow_state = Some("Published".to_owned());
    let profile = DataProfile {
        total_profiled_rows: Some(58210),
        profiling_date: Some(
            chrono::DateTime::from_timestamp(1_715_679_000, 123_000_000).expect("a time"),
        ),
        statistics: ProfileStatistics {
            distinct_rows: Some(9731),
            min: Some(0.1 + 0.2),
            max: Some(994.141_423_413_993_5),
            mean: Some(105.004_557_222_568_41),
            variance: Some(1.0e-300 / 3.0),
            median: Some(-0.0),
            ..Default::default()
        },
        inferred_data_types: BTreeMap::from([("DECIMAL".to_owned(), 58210)]),
        invalid_data_type_values: vec!["n/a".to_owned()],
        patterns: BTreeMap::from([("99.99".to_owned(), 12)]),
        values: BTreeMap::from([("1,5".to_owned(), 3)]),
        histogram: vec![HistogramBucket {
            count: 4,
            lower: "0".to_owned(),
            upper: "50".to_owned(),
        }],
    };
    let sample = DataSample {
        header: vec!["amount".to_owned()],
        samples: vec![
            vec![serde_json::json!(958.787_270_229_118_9)],
            vec![serde_json::json!(null)],
            vec![serde_json::json!({"z": 1, "a": [true, "x\"y"]})],
            vec![serde_json::json!(-9_223_372_036_854_775_808_i64)],
            vec![serde_json::json!(18_446_744_073_709_551_615_u64)],
        ],
    };
    ModelArchive {
        model: ArchiveModel {
            name: "Sales, \"EU\"".to_owned(),
            profile: "RDBMS Relational Database (Database)".to_owned(),
            description: "multi\nline".to_owned(),
        },
        objects: vec![
            column,
            object("db", None, "Database", "DB"),
            object("db.s.t", Some("db.s"), "Table", "T"),
            object("db.s", Some("db"), "Schema", "S"),
            object("term,1", None, "Business Glossary.Term", "Net Amount"),
        ],
        attributes: vec![
            ArchiveAttribute {
                native_id: "db.s.t".to_owned(),
                attribute: "Row Count".to_owned(),
                value_type: ValueType::Integer,
                value: "12840".to_owned(),
            },
            ArchiveAttribute {
                native_id: "db.s.t.c2".to_owned(),
                attribute: "Security Level".to_owned(),
                value_type: ValueType::String,
                value: String::new(),
            },
            ArchiveAttribute {
                native_id: "db.s.t.c2".to_owned(),
                attribute: "Nullable".to_owned(),
                value_type: ValueType::Boolean,
                value: "false".to_owned(),
            },
        ],
        relationships: vec![
            ArchiveRelationship {
                kind: EdgeKind::TermReference,
                name: "See Also".to_owned(),
                source_native_id: "term,1".to_owned(),
                target_native_id: "term,1".to_owned(),
            },
            ArchiveRelationship {
                kind: EdgeKind::SemanticLink,
                name: "Is Defined By".to_owned(),
                source_native_id: "db.s.t.c2".to_owned(),
                target_native_id: "term,1".to_owned(),
            },
            ArchiveRelationship {
                kind: EdgeKind::Lineage,
                name: String::new(),
                source_native_id: "db.s.t".to_owned(),
                target_native_id: "db.s.t.c2".to_owned(),
            },
        ],
        tags: vec![
            ArchiveTag {
                native_id: "db.s.t.c2".to_owned(),
                kind: TagKind::Label,
                value: "PII".to_owned(),
            },
            ArchiveTag {
                native_id: "db.s.t".to_owned(),
                kind: TagKind::Collection,
                value: "Finance".to_owned(),
            },
        ],
        classifications: vec![ArchiveClassification {
            native_id: "db.s.t.c2".to_owned(),
            data_class: "Amount".to_owned(),
            status: ClassificationStatus::Matched,
        }],
        sensitivity_labels: vec![ArchiveLabel {
            native_id: "db.s.t.c2".to_owned(),
            label: "Confidential".to_owned(),
            status: ClassificationStatus::Approved,
        }],
        profiling: vec![
            ArchiveProfiling {
                native_id: "db.s.t.c2".to_owned(),
                data_profile: Some(profile),
                data_sample: Some(sample),
            },
            ArchiveProfiling {
                native_id: "db.s.t".to_owned(),
                data_profile: None,
                data_sample: None,
            },
        ],
        connections: vec![ArchiveConnection {
            name: "to DWH".to_owned(),
            target_model: "/Sales/Warehouse".to_owned(),
        }],
    }
}

// ---------------------------------------------------------------------------------------
// Round trip, determinism, the writer's layout

#[test]
fn round_trip_and_determinism() {
    let archive = rich_archive();
    let bytes = write(&archive).expect("writes");
    let back = read_default(&bytes).expect("reads its own output");
    assert_eq!(canonical(&back), canonical(&archive));
    assert_eq!(
        back,
        canonical(&archive),
        "read keeps the written (canonical) order"
    );
    let again = write(&back).expect("writes again");
    assert_eq!(again, bytes, "write(read(write(a))) == write(a)");
    assert_eq!(
        write(&archive).expect("writes"),
        bytes,
        "same archive, same bytes"
    );
}

#[test]
fn row_order_does_not_change_the_bytes() {
    let archive = rich_archive();
    let mut shuffled = archive.clone();
    shuffled.objects.reverse();
    shuffled.objects.rotate_left(2);
    shuffled.attributes.reverse();
    shuffled.relationships.reverse();
    shuffled.tags.reverse();
    shuffled.profiling.reverse();
    assert_eq!(
        write(&shuffled).expect("writes"),
        write(&archive).expect("writes")
    );
}

#[test]
fn writer_layout() {
    let bytes = write(&rich_archive()).expect("writes");
    let mut zip = ZipArchive::new(Cursor::new(bytes.as_slice())).expect("a zip");
    let names: Vec<String> = zip.file_names().map(str::to_owned).collect();
    assert_eq!(
        names,
        [
            "model.csv",
            "objects.csv",
            "attributes.csv",
            "relationships.csv",
            "labels.csv",
            "classifications.csv",
            "sensitivity_labels.csv",
            "profiling.csv",
            "connections.csv"
        ]
    );
    for i in 0..zip.len() {
        let file = zip.by_index(i).expect("entry");
        assert_eq!(file.compression(), CompressionMethod::Deflated);
        assert_eq!(file.last_modified(), Some(zip::DateTime::default()));
        assert_eq!(file.unix_mode().map(|m| m & 0o777), Some(0o644));
    }
    let entries: BTreeMap<String, Vec<u8>> = unzip(&bytes).into_iter().collect();
    let text = |name: &str| String::from_utf8(entries[name].clone()).expect("UTF-8");
    assert_eq!(
        text("model.csv"),
        "format_version,name,profile,description\n1,\"Sales, \"\"EU\"\"\",RDBMS Relational Database (Database),\"multi\nline\"\n"
    );
    let objects = text("objects.csv");
    let mut reader = csv::Reader::from_reader(objects.as_bytes());
    let ids: Vec<String> = reader
        .records()
        .map(|r| r.expect("a record").get(0).unwrap_or_default().to_owned())
        .collect();
    assert_eq!(ids, ["db", "db.s", "db.s.t", "db.s.t.c2", "term,1"]);
    assert!(
        text("relationships.csv").starts_with(
            "kind,name,source_native_id,target_native_id\nlineage,,db.s.t,db.s.t.c2\n"
        )
    );

    // An empty model: model.csv and a header-only objects.csv, nothing else.
    let empty = ModelArchive {
        model: ArchiveModel {
            name: "E".to_owned(),
            profile: "Custom Model".to_owned(),
            description: String::new(),
        },
        ..Default::default()
    };
    let bytes = write(&empty).expect("writes");
    let entries = unzip(&bytes);
    assert_eq!(entries.len(), 2);
    assert_eq!(entries[1].0, "objects.csv");
    assert_eq!(
        String::from_utf8(entries[1].1.clone()).expect("UTF-8"),
        "native_id,parent_native_id,object_type,name,physical_name,description,business_name,business_description,data_type,external_url,hide_data,workflow_state\n"
    );
    assert_eq!(read_default(&bytes).expect("reads"), empty);
}

// ---------------------------------------------------------------------------------------
// The sample model

const SAMPLE: [(&str, &str); 9] = [
    (
        "model.csv",
        include_str!("../../../../examples/sample-model/model.csv"),
    ),
    (
        "objects.csv",
        include_str!("../../../../examples/sample-model/objects.csv"),
    ),
    (
        "attributes.csv",
        include_str!("../../../../examples/sample-model/attributes.csv"),
    ),
    (
        "relationships.csv",
        include_str!("../../../../examples/sample-model/relationships.csv"),
    ),
    (
        "labels.csv",
        include_str!("../../../../examples/sample-model/labels.csv"),
    ),
    (
        "classifications.csv",
        include_str!("../../../../examples/sample-model/classifications.csv"),
    ),
    (
        "sensitivity_labels.csv",
        include_str!("../../../../examples/sample-model/sensitivity_labels.csv"),
    ),
    (
        "profiling.csv",
        include_str!("../../../../examples/sample-model/profiling.csv"),
    ),
    ("connections.csv", ""),
];

#[test]
fn sample_model_reads() {
    let entries: Vec<(&str, &[u8])> = SAMPLE
        .iter()
        .filter(|(_, text)| !text.is_empty())
        .map(|(n, t)| (*n, t.as_bytes()))
        .collect();
    let archive = read_default(&zip_of(&entries)).expect("the sample model reads");
    assert_eq!(archive.model.name, "Sales DB");
    assert_eq!(
        archive.model.profile,
        "RDBMS Relational Database (Database)"
    );
    assert!(archive.objects.len() < 60);
    let count = |t: &str| {
        archive
            .objects
            .iter()
            .filter(|o| o.object_type == t)
            .count()
    };
    assert_eq!(count("Database"), 1);
    assert_eq!(count("Schema"), 2);
    assert!(count("Table") >= 4);
    assert!(count("Column") >= 12);
    assert!(count("Business Glossary.Term") >= 3);
    assert!(
        archive
            .relationships
            .iter()
            .any(|r| r.kind == EdgeKind::SemanticLink && r.name == "Is Defined By")
    );
    assert!(
        archive
            .relationships
            .iter()
            .any(|r| r.kind == EdgeKind::TermReference)
    );
    assert!(
        archive.tags.iter().any(|t| t.value == "PII")
            && archive.tags.iter().any(|t| t.value == "Finance")
    );
    assert!(
        archive
            .classifications
            .iter()
            .any(|c| c.data_class == "Email Address" && c.status == ClassificationStatus::Matched)
    );
    assert!(
        archive
            .classifications
            .iter()
            .any(|c| c.data_class == "City" && c.status == ClassificationStatus::Approved)
    );
    assert_eq!(archive.sensitivity_labels.len(), 1);
    assert_eq!(archive.profiling.len(), 2);
    assert!(
        archive
            .profiling
            .iter()
            .all(|p| p.data_profile.is_some() && p.data_sample.is_some())
    );

    // The sample is in canonical form: exactly what Lore would export.
    let written = unzip(&write(&archive).expect("writes"));
    for (name, data) in written {
        let expected = SAMPLE
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, t)| *t)
            .unwrap_or_default();
        assert_eq!(
            String::from_utf8(data).expect("UTF-8"),
            expected,
            "{name} is not in canonical form"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Reading leniency

#[test]
fn columns_in_any_order_and_optional_columns_left_out() {
    let bytes = archive_with(&[
        (
            "model.csv",
            "\u{feff}profile , NAME,format_version\r\nCustom Model,M, 1 \r\n",
        ),
        (
            "objects.csv",
            "name,object_type,native_id,hide_data\r\nA,Table,a,TRUE\r\nB,Column,b, \r\n",
        ),
        (
            "attributes.csv",
            "value,native_id,attribute,value_type\n42,a,Row Count, integer \n",
        ),
        ("labels.csv", "native_id,kind,value\na, LABEL ,PII\n"),
        (
            "classifications.csv",
            "status,native_id,data_class\nmatched,b,City\n",
        ),
        ("profiling.csv", "native_id\nb\n"),
    ]);
    let archive = read_default(&bytes).expect("reads");
    assert_eq!(
        archive.model,
        ArchiveModel {
            name: "M".to_owned(),
            profile: "Custom Model".to_owned(),
            description: String::new()
        }
    );
    assert_eq!(archive.objects.len(), 2);
    assert!(archive.objects[0].hide_data);
    assert!(!archive.objects[1].hide_data);
    assert_eq!(archive.objects[0].parent_native_id, None);
    assert_eq!(archive.attributes[0].value_type, ValueType::Integer);
    assert_eq!(archive.tags[0].kind, TagKind::Label);
    assert_eq!(
        archive.classifications[0].status,
        ClassificationStatus::Matched
    );
    assert_eq!(archive.profiling[0].data_profile, None);
}

#[test]
fn stored_entries_are_read() {
    let bytes = zip_with(
        &[
            ("model.csv", MODEL_CSV.as_bytes()),
            ("objects.csv", OBJECTS_CSV.as_bytes()),
        ],
        CompressionMethod::Stored,
    );
    assert_eq!(read_default(&bytes).expect("reads").objects.len(), 3);
}

// ---------------------------------------------------------------------------------------
// The zip refused

#[test]
fn refuses_what_is_not_a_zip() {
    refused(read_default(b"native_id,name\n1,a\n"), &["not a zip"]);
    refused(read_default(&[]), &["not a zip"]);
}

#[test]
fn refuses_a_corrupt_zip() {
    let mut bytes = archive_with(&[]);
    // Damage the compressed data of the first entry (after its 30-byte header and name).
    for b in &mut bytes[40..60] {
        *b ^= 0x5a;
    }
    refused(read_default(&bytes), &["model.csv"]);
    let truncated = archive_with(&[]);
    refused(
        read_default(&truncated[..truncated.len() - 30]),
        &["not a zip"],
    );
}

#[test]
fn refuses_encrypted_entries() {
    let mut bytes = archive_with(&[]);
    // Set the "encrypted" flag in the local and central headers of every entry.
    let mut i = 0;
    while i + 4 <= bytes.len() {
        match bytes[i..i + 4] {
            [0x50, 0x4b, 0x03, 0x04] => bytes[i + 6] |= 1,
            [0x50, 0x4b, 0x01, 0x02] => bytes[i + 8] |= 1,
            _ => {}
        }
        i += 1;
    }
    refused(read_default(&bytes), &["encrypted"]);
}

#[test]
fn refuses_path_traversal() {
    for name in [
        "../x.csv",
        "/abs.csv",
        "a/../../model.csv",
        "C:/model.csv",
        "..\\objects.csv",
    ] {
        let bytes = zip_of(&[("model.csv", MODEL_CSV.as_bytes()), (name, b"x")]);
        refused(read_default(&bytes), &["path traversal"]);
    }
}

#[test]
fn refuses_folders_backslashes_and_unknown_entries() {
    let bytes = zip_of(&[
        ("model.csv", MODEL_CSV.as_bytes()),
        ("dir/objects.csv", OBJECTS_CSV.as_bytes()),
    ]);
    refused(read_default(&bytes), &["dir/objects.csv", "directory"]);
    let bytes = zip_of(&[
        ("model.csv", MODEL_CSV.as_bytes()),
        ("dir\\objects.csv", OBJECTS_CSV.as_bytes()),
    ]);
    refused(read_default(&bytes), &["backslash"]);
    refused_with(&[("notes.txt", "hello")], &["unknown entry 'notes.txt'"]);
    refused_with(
        &[("Objects.CSV", OBJECTS_CSV)],
        &["unknown entry 'Objects.CSV'"],
    );
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    zip.add_directory("dir/", SimpleFileOptions::default())
        .expect("directory");
    let bytes = zip.finish().expect("zip").into_inner();
    refused(read_default(&bytes), &["directory"]);
}

#[test]
fn refuses_duplicate_entries() {
    // The zip writer refuses duplicates, so write a same-length name and patch it.
    let mut bytes = zip_of(&[
        ("model.csv", MODEL_CSV.as_bytes()),
        ("objects.csv", OBJECTS_CSV.as_bytes()),
        ("objectz.csv", OBJECTS_CSV.as_bytes()),
    ]);
    let mut i = 0;
    while i + 11 <= bytes.len() {
        if &bytes[i..i + 11] == b"objectz.csv" {
            bytes[i + 6] = b's';
        }
        i += 1;
    }
    refused(read_default(&bytes), &["duplicate entry 'objects.csv'"]);
}

#[test]
fn refuses_too_many_entries() {
    let limits = ArchiveLimits {
        max_entries: 3,
        ..Default::default()
    };
    let bytes = archive_with(&[
        ("labels.csv", "native_id,kind,value\n"),
        ("connections.csv", "name,target_model\n"),
    ]);
    refused(read(&bytes, &limits), &["more than 3 entries"]);
    let fine = archive_with(&[("labels.csv", "native_id,kind,value\n")]);
    read(&fine, &limits).expect("3 entries are fine");
}

#[test]
fn refuses_zip_bombs() {
    let zeros = vec![b'0'; 2 << 20];
    let mut objects = OBJECTS_CSV.as_bytes().to_vec();
    objects.extend_from_slice(b"x,,Table,\"");
    objects.extend_from_slice(&zeros);
    objects.extend_from_slice(b"\"\n");
    let bytes = zip_of(&[
        ("model.csv", MODEL_CSV.as_bytes()),
        ("objects.csv", &objects),
    ]);

    // Over the entry size: the declared size already gives it away.
    let limits = ArchiveLimits {
        max_entry_size: 1 << 20,
        ..Default::default()
    };
    refused(read(&bytes, &limits), &["objects.csv", "zip bomb"]);
    // Over the ratio: 2 MiB of zeros deflate to a few KiB.
    let limits = ArchiveLimits {
        max_ratio: 50,
        ..Default::default()
    };
    refused(read(&bytes, &limits), &["objects.csv", "ratio", "zip bomb"]);
    // Over the total.
    let limits = ArchiveLimits {
        max_total_size: 1 << 20,
        max_ratio: 100_000,
        ..Default::default()
    };
    refused(read(&bytes, &limits), &["in all", "zip bomb"]);
    // Within the limits it is a fine archive.
    let limits = ArchiveLimits {
        max_ratio: 100_000,
        ..Default::default()
    };
    read(&bytes, &limits).expect("within the limits");
    // The default ratio limit (200) refuses 2 MiB of zeros.
    refused(read_default(&bytes), &["ratio"]);
}

#[test]
fn refuses_zip_bombs_that_lie_about_their_size() {
    let mut objects = OBJECTS_CSV.as_bytes().to_vec();
    objects.extend(std::iter::repeat_n(b' ', 2 << 20));
    let mut bytes = zip_of(&[
        ("model.csv", MODEL_CSV.as_bytes()),
        ("objects.csv", &objects),
    ]);
    // Make every header of objects.csv declare 100 bytes inflated.
    let declared = (objects.len() as u32).to_le_bytes();
    let mut i = 0;
    while i + 4 <= bytes.len() {
        if bytes[i..i + 4] == declared {
            bytes[i..i + 4].copy_from_slice(&100u32.to_le_bytes());
        }
        i += 1;
    }
    let limits = ArchiveLimits {
        max_entry_size: 1 << 20,
        ..Default::default()
    };
    refused(
        read(&bytes, &limits),
        &["objects.csv", "inflates to more than 1048576 bytes"],
    );
    let limits = ArchiveLimits {
        max_ratio: 50,
        ..Default::default()
    };
    refused(
        read(&bytes, &limits),
        &["objects.csv", "inflates more than 50 times"],
    );
}

// ---------------------------------------------------------------------------------------
// The files refused

#[test]
fn refuses_missing_files() {
    refused(
        read_default(&zip_of(&[("objects.csv", OBJECTS_CSV.as_bytes())])),
        &["model.csv is missing"],
    );
    refused(
        read_default(&zip_of(&[("model.csv", MODEL_CSV.as_bytes())])),
        &["objects.csv is missing"],
    );
    refused(read_default(&zip_of(&[])), &["model.csv is missing"]);
}

#[test]
fn refuses_model_csv_without_exactly_one_row() {
    refused_with(
        &[("model.csv", "format_version,name,profile\n")],
        &["model.csv", "exactly one", "it has 0"],
    );
    refused_with(
        &[(
            "model.csv",
            "format_version,name,profile\n1,A,Custom Model\n1,B,Custom Model\n",
        )],
        &["model.csv", "exactly one", "it has 2"],
    );
    refused_with(&[("model.csv", "")], &["model.csv", "empty"]);
}

#[test]
fn refuses_unknown_format_versions() {
    for version in ["2", "0", "1.0", "one"] {
        refused_with(
            &[(
                "model.csv",
                &format!("format_version,name,profile\n{version},A,Custom Model\n"),
            )],
            &[
                "model.csv line 2, column format_version",
                "unknown format_version",
            ],
        );
    }
}

#[test]
fn refuses_bad_headers() {
    refused_with(
        &[(
            "objects.csv",
            "native_id,object_type,name,colour\na,Table,A,red\n",
        )],
        &["objects.csv line 1", "unknown column 'colour'"],
    );
    refused_with(
        &[("objects.csv", "native_id,name\na,A\n")],
        &[
            "objects.csv line 1",
            "missing required column 'object_type'",
        ],
    );
    refused_with(
        &[(
            "objects.csv",
            "native_id,object_type,name,Name\na,Table,A,B\n",
        )],
        &["objects.csv line 1", "duplicate column 'name'"],
    );
    refused_with(
        &[("labels.csv", "native_id,value\n")],
        &["labels.csv line 1", "missing required column 'kind'"],
    );
}

#[test]
fn refuses_bad_csv() {
    refused_with(
        &[(
            "objects.csv",
            "native_id,object_type,name\na,Table,A\nb,Table\n",
        )],
        &["objects.csv line 3", "bad CSV", "2 fields", "header has 3"],
    );
    // An unclosed quote swallows the rest of the file into one field.
    refused_with(
        &[(
            "objects.csv",
            "native_id,object_type,name\na,Table,\"A\nb,Table,B\n",
        )],
        &["objects.csv line 2", "bad CSV"],
    );
}

#[test]
fn refuses_invalid_utf8() {
    let objects = b"native_id,object_type,name\na,Table,caf\xe9\n";
    let bytes = zip_of(&[
        ("model.csv", MODEL_CSV.as_bytes()),
        ("objects.csv", objects),
    ]);
    refused(
        read_default(&bytes),
        &["objects.csv line 2, column name", "invalid UTF-8"],
    );
}

#[test]
fn refuses_empty_required_cells() {
    refused_with(
        &[("objects.csv", "native_id,object_type,name\n,Table,A\n")],
        &["objects.csv line 2, column native_id", "empty"],
    );
    refused_with(
        &[("objects.csv", "native_id,object_type,name\na,,A\n")],
        &["column object_type", "empty"],
    );
    refused_with(
        &[("objects.csv", "native_id,object_type,name\na,Table, \n")],
        &["column name", "empty"],
    );
    refused_with(
        &[(
            "attributes.csv",
            "native_id,attribute,value_type,value\nt,,String,x\n",
        )],
        &["attributes.csv line 2, column attribute"],
    );
    refused_with(
        &[("labels.csv", "native_id,kind,value\nt,label,\n")],
        &["labels.csv line 2, column value"],
    );
    refused_with(
        &[(
            "classifications.csv",
            "native_id,data_class,status\nt,,MATCHED\n",
        )],
        &["column data_class"],
    );
    refused_with(
        &[(
            "sensitivity_labels.csv",
            "native_id,label,status\nt,,MATCHED\n",
        )],
        &["column label"],
    );
    refused_with(
        &[("connections.csv", "name,target_model\nx,\n")],
        &["connections.csv line 2, column target_model"],
    );
    refused_with(
        &[(
            "model.csv",
            "format_version,name,profile\n1,,Custom Model\n",
        )],
        &["model.csv line 2, column name"],
    );
}

#[test]
fn refuses_bad_enum_values_and_booleans() {
    refused_with(
        &[(
            "attributes.csv",
            "native_id,attribute,value_type,value\nt,Row Count,Number,1\n",
        )],
        &[
            "attributes.csv line 2, column value_type",
            "'Number' is not one of String, Integer",
        ],
    );
    refused_with(
        &[(
            "relationships.csv",
            "kind,name,source_native_id,target_native_id\nlinks_to,x,t,c\n",
        )],
        &["relationships.csv line 2, column kind", "'links_to'"],
    );
    refused_with(
        &[(
            "relationships.csv",
            "kind,name,source_native_id,target_native_id\nmodel_connection,x,t,c\n",
        )],
        &["relationships.csv line 2, column kind", "connections.csv"],
    );
    refused_with(
        &[(
            "relationships.csv",
            "kind,name,source_native_id,target_native_id\nterm_reference,Cousin,t,c\n",
        )],
        &[
            "relationships.csv line 2, column name",
            "term reference type",
        ],
    );
    refused_with(
        &[("labels.csv", "native_id,kind,value\nt,tag,PII\n")],
        &["labels.csv line 2, column kind", "'tag'"],
    );
    refused_with(
        &[(
            "classifications.csv",
            "native_id,data_class,status\nt,City,DONE\n",
        )],
        &[
            "classifications.csv line 2, column status",
            "'DONE' is not one of MATCHED",
        ],
    );
    refused_with(
        &[(
            "sensitivity_labels.csv",
            "native_id,label,status\nt,Secret,maybe\n",
        )],
        &["sensitivity_labels.csv line 2, column status"],
    );
    refused_with(
        &[(
            "objects.csv",
            "native_id,object_type,name,hide_data\na,Table,A,yes\n",
        )],
        &[
            "objects.csv line 2, column hide_data",
            "'yes' is not a boolean",
        ],
    );
}

#[test]
fn refuses_bad_json() {
    refused_with(
        &[(
            "profiling.csv",
            "native_id,data_profile\nc,\"{\"\"totalProfiledRows\"\": 1,}\"\n",
        )],
        &["profiling.csv line 2, column data_profile", "bad JSON"],
    );
    refused_with(
        &[(
            "profiling.csv",
            "native_id,data_sample\nc,\"{\"\"header\"\": 3}\"\n",
        )],
        &[
            "profiling.csv line 2, column data_sample",
            "bad JSON",
            "DataSample",
        ],
    );
    refused_with(
        &[("profiling.csv", "native_id,data_profile\nc,[1]\n")],
        &["column data_profile", "DataProfile"],
    );
}

#[test]
fn refuses_duplicate_native_ids() {
    refused_with(
        &[(
            "objects.csv",
            "native_id,object_type,name\na,Table,A\nb,Table,B\na,Column,C\n",
        )],
        &[
            "objects.csv line 4, column native_id",
            "duplicate native_id 'a'",
            "line 2",
        ],
    );
}

#[test]
fn refuses_dangling_parents() {
    refused_with(
        &[(
            "objects.csv",
            "native_id,parent_native_id,object_type,name\na,,Table,A\nb,zz,Column,B\n",
        )],
        &[
            "objects.csv line 3, column parent_native_id",
            "dangling parent 'zz'",
        ],
    );
}

#[test]
fn refuses_parent_cycles() {
    let message = refused_with(
        &[(
            "objects.csv",
            "native_id,parent_native_id,object_type,name\nr,,Table,R\na,c,Table,A\nb,a,Column,B\nc,b,Column,C\n",
        )],
        &[
            "objects.csv line",
            "column parent_native_id",
            "parent cycle",
        ],
    );
    assert!(message.contains("a -> c -> b -> a"), "{message}");
    refused_with(
        &[(
            "objects.csv",
            "native_id,parent_native_id,object_type,name\na,a,Table,A\n",
        )],
        &["objects.csv line 2", "parent cycle: a -> a"],
    );
}

#[test]
fn refuses_dangling_references() {
    let cases = [
        (
            "attributes.csv",
            "native_id,attribute,value_type,value\nnope,Row Count,Integer,1\n",
            "column native_id",
        ),
        (
            "relationships.csv",
            "kind,name,source_native_id,target_native_id\nlineage,,nope,c\n",
            "column source_native_id",
        ),
        (
            "relationships.csv",
            "kind,name,source_native_id,target_native_id\nlineage,,c,nope\n",
            "column target_native_id",
        ),
        (
            "labels.csv",
            "native_id,kind,value\nnope,label,PII\n",
            "column native_id",
        ),
        (
            "classifications.csv",
            "native_id,data_class,status\nnope,City,MATCHED\n",
            "column native_id",
        ),
        (
            "sensitivity_labels.csv",
            "native_id,label,status\nnope,Secret,APPROVED\n",
            "column native_id",
        ),
        (
            "profiling.csv",
            "native_id,data_profile,data_sample\nnope,,\n",
            "column native_id",
        ),
    ];
    for (file, text, column) in cases {
        refused_with(
            &[(file, text)],
            &[&format!("{file} line 2, {column}"), "unknown object 'nope'"],
        );
    }
}

#[test]
fn refuses_conflicting_rows() {
    refused_with(
        &[(
            "attributes.csv",
            "native_id,attribute,value_type,value\nt,Row Count,Integer,1\nt,Row Count,Integer,2\n",
        )],
        &["attributes.csv line 3", "given twice"],
    );
    refused_with(
        &[("profiling.csv", "native_id\nc\nc\n")],
        &["profiling.csv line 3", "profiled twice"],
    );
}

#[test]
fn enum_lists_match_the_enums() {
    for name in super::VALUE_TYPES {
        assert_eq!(ValueType::parse(name).map(ValueType::as_str), Some(name));
    }
    for name in super::EDGE_KINDS {
        assert_eq!(EdgeKind::parse(name).map(EdgeKind::as_str), Some(name));
    }
    for name in super::TAG_KINDS {
        assert_eq!(TagKind::parse(name).map(TagKind::as_str), Some(name));
    }
    for name in super::STATUSES {
        assert_eq!(
            ClassificationStatus::parse(name).map(ClassificationStatus::as_str),
            Some(name)
        );
    }
}
