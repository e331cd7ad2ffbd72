//! `lore import` against a running server with the suite's plugins: sets the importer,
//! attaches the file, starts the import and follows it to its end.

use std::sync::Arc;

use clap::Parser;
use lore_backend_memory::MemoryStore;
use lore_conformance::harness::{Target, unique};
use lore_server::cli_import::{ImportArgs, run};

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: ImportArgs,
}

fn args(t: &Target, key: &str, extra: &[&str]) -> ImportArgs {
    let url = format!("--url={}", t.url(""));
    let key = format!("--key={key}");
    let mut argv = vec!["lore-import", url.as_str(), key.as_str()];
    argv.extend_from_slice(extra);
    Cli::parse_from(argv).args
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lore_import_sets_attaches_runs_and_reports() {
    let t = Target::spawn_with(
        Arc::new(MemoryStore::new()),
        lore_conformance::cases::configure_plugins,
    )
    .await;
    let key = t.key().await;
    let model = format!("/{}", unique("cli"));
    let dir = tempfile::tempdir().expect("a directory");
    let file = dir.path().join("input.txt");
    std::fs::write(&file, "anything").expect("a file");
    let file = file.display().to_string();

    let text = run(&args(
        &t,
        &key,
        &[
            &model,
            "--format",
            "misbehave",
            "--parameters",
            r#"{"objects": 7}"#,
            "--file",
            &file,
        ],
    ))
    .await
    .expect("the import succeeds");
    assert!(text.contains("imported 8 objects"), "{text}");
    assert!(text.contains("8 added"), "{text}");

    // Again, with the settings kept: nothing changes.
    let text = run(&args(&t, &key, &[&model])).await.expect("a re-import");
    assert!(text.contains("8 unchanged"), "{text}");

    // A failing import is an error naming the operation's message and its log.
    let error = run(&args(
        &t,
        &key,
        &[
            &model,
            "--format",
            "misbehave",
            "--parameters",
            r#"{"behaviour": "error"}"#,
        ],
    ))
    .await
    .expect_err("the import fails");
    assert!(
        error.contains("the source is unreachable (asked to fail)"),
        "{error}"
    );
    assert!(error.contains("downloadOperationLog"), "{error}");

    let error = run(&args(
        &t,
        &key,
        &[&model, "--format", "misbehave", "--parameters", "[1"],
    ))
    .await
    .expect_err("bad JSON");
    assert!(
        error.starts_with("--parameters is not a JSON object"),
        "{error}"
    );
    let id = run(&args(&t, &key, &[&model, "--no-wait"]))
        .await
        .expect("an id");
    assert!(id.trim().parse::<i64>().is_ok(), "{id}");
}
