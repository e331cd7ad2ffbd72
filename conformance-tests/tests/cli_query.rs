//! `lore query` against a running server: a table of the objects, a count, and the
//! server's error for a bad query.

use std::sync::Arc;

use clap::Parser;
use lore_backend_memory::MemoryStore;
use lore_conformance::harness::Target;
use lore_server::cli_query::{QueryArgs, run};

#[derive(Parser)]
struct Cli {
    #[command(flatten)]
    args: QueryArgs,
}

/// The arguments as a shell would pass them; `--key=...` keeps a key that starts with
/// `-` (API keys are URL-safe Base64) a value.
fn args(t: &Target, key: &str, extra: &[&str]) -> QueryArgs {
    let url = format!("--url={}", t.url(""));
    let key = format!("--key={key}");
    let mut argv = vec!["lore-query", url.as_str(), key.as_str()];
    argv.extend_from_slice(extra);
    Cli::parse_from(argv).args
}

#[tokio::test]
async fn lore_query_prints_a_table_a_count_and_errors() {
    let t = Target::spawn(Arc::new(MemoryStore::new())).await;
    let imported = t.import_sample().await;
    let key = t.key().await;
    let filter = "\"Object Type\" = 'Column' AND Labels = 'PII'";
    let from = imported.path.as_str();
    let text = run(&args(
        &t,
        &key,
        &[
            "--select",
            "Name, Labels",
            "--from",
            from,
            "--where",
            filter,
            "--orderby",
            "Name desc",
        ],
    ))
    .await
    .unwrap_or_else(|e| panic!("lore query failed: {e}"));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "Name        Labels", "{text}");
    assert_eq!(lines[2], "last_name   PII", "{text}");
    assert_eq!(lines.last(), Some(&"(5 objects)"), "{text}");

    let count = run(&args(
        &t,
        &key,
        &["--from", from, "--where", filter, "--count"],
    ))
    .await;
    assert_eq!(count.as_deref(), Ok("5\n"));

    let error = run(&args(&t, &key, &["--where", "Name ="])).await;
    assert!(
        error
            .as_ref()
            .is_err_and(|e| e.contains("INVALID_PARAMETER") && e.contains("line 1")),
        "{error:?}"
    );
    let error = run(&args(&t, "wrong-key", &[])).await;
    assert!(
        error.as_ref().is_err_and(|e| e.contains("401")),
        "{error:?}"
    );
    t.shutdown().await;
}

#[test]
fn a_key_may_start_with_a_dash() {
    let cli = Cli::parse_from(["lore-query", "--key", "-tX_1", "--where", "-x"]);
    assert_eq!(cli.args.server.key.as_deref(), Some("-tX_1"));
    assert_eq!(cli.args.filter.as_deref(), Some("-x"));
}
