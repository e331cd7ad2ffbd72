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

fn args(t: &Target, key: &str, extra: &[&str]) -> QueryArgs {
    let url = t.url("");
    let mut argv = vec!["lore-query", "--url", url.as_str(), "--key", key];
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
