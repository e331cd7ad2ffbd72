//! Requests the harvester refuses, with messages that say why and show no password.

mod common;

use common::run;
use lore_importer_harvester::Harvester;
use lore_plugin_sdk::{FileUse, Importer};
use serde_json::json;

#[test]
fn a_url_is_required() {
    let error = run(json!({})).error();
    assert_eq!(error, "'url' is required: the database to harvest");
}

#[test]
fn an_unsupported_scheme_is_named_without_its_password() {
    let error = run(json!({"url": "mysql://root:hunter2@db.example.com/shop"})).error();
    assert_eq!(
        error,
        "unsupported database URL 'mysql://root:***@db.example.com/shop': the harvester \
         reads postgres://, postgresql:// and sqlite: URLs"
    );
}

#[test]
fn an_unreachable_server_fails_with_the_url_masked() {
    // Nothing listens on port 1.
    let error = run(json!({"url": "postgres://lore:hunter2@127.0.0.1:1/shop"})).error();
    assert!(
        error.starts_with("cannot connect to postgres://lore:***@127.0.0.1:1/shop: "),
        "{error}"
    );
    assert!(!error.contains("hunter2"), "{error}");
}

#[test]
fn bad_parameters_are_refused() {
    let error = run(json!({"url": "sqlite:x.db", "sampleRows": -5})).error();
    assert_eq!(error, "'sampleRows' must be a non-negative integer, not -5");
    let error = run(json!({"url": "sqlite:x.db", "profile": "yes"})).error();
    assert_eq!(error, "'profile' must be a boolean, not \"yes\"");
}

#[test]
fn about_describes_a_format_without_a_file() {
    let about = Harvester::about();
    assert_eq!(about.name, "harvester");
    let format = &about.formats[0];
    assert_eq!(format.name, "database");
    assert_eq!(format.file, FileUse::None);
    assert_eq!(format.parameters["required"], json!(["url"]));
    let mut names: Vec<&String> = format.parameters["properties"]
        .as_object()
        .expect("properties")
        .keys()
        .collect();
    names.sort();
    assert_eq!(
        names,
        vec!["modelName", "profile", "sampleRows", "schemas", "url"]
    );
    assert_eq!(
        format.parameters["properties"]["sampleRows"]["default"],
        1000
    );
}
