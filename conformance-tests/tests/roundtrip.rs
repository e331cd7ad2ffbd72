//! The sample model imported, exported, imported again and exported again on every
//! backend: every export byte-identical, across backends too. PostgreSQL is skipped when
//! unreachable (outside CI).

use std::sync::Arc;

use lore_backend_memory::MemoryStore;
use lore_backend_postgres::PostgresStore;
use lore_backend_sqlite::SqliteStore;
use lore_conformance::harness::{first_difference, sample_archive, unzip};
use lore_conformance::postgres::TestDatabase;
use lore_conformance::{Backend, Target};
use serde_json::json;

/// Every export of one backend: after the first import, after a re-import into the same
/// model, and after an import into a new model, each with and without profiling.
async fn exports(backend: Backend) -> Vec<(String, Vec<u8>)> {
    let t = Target::spawn_backend(backend, |_| {}).await;
    let name = t.backend.clone();
    let resp = t.import(sample_archive(), &[]).await;
    let model = resp.ok()["modelId"].as_str().expect("modelId").to_owned();
    let mut all = Vec::new();
    for profiling in ["false", "true"] {
        let query = [("exportDataProfilingAndSampling", profiling)];
        let first = t.export(&model, &query).await;
        assert_eq!(first.status, 200, "{name}: {}", first.describe());

        let resp = t.import(first.bytes.clone(), &[("modelId", &model)]).await;
        assert_eq!(resp.ok()["created"], json!(false), "{name}");
        let again = t.export(&model, &query).await;

        let folder = t.create(None, &format!("copy-{profiling}"), "Folder").await;
        let resp = t
            .import(again.bytes.clone(), &[("folderId", &folder)])
            .await;
        let copy = resp.ok()["modelId"].as_str().expect("modelId").to_owned();
        let third = t.export(&copy, &query).await;

        for (step, export) in [
            ("first export", first),
            ("after re-import", again),
            ("after import as a new model", third),
        ] {
            assert_eq!(export.status, 200, "{name} {step}: {}", export.describe());
            all.push((
                format!("{name} {step} (profiling {profiling})"),
                export.bytes,
            ));
        }
    }
    t.shutdown().await;
    all
}

fn assert_identical(runs: &[Vec<(String, Vec<u8>)>]) {
    for profiling in [0, 1] {
        let mut reference: Option<&(String, Vec<u8>)> = None;
        for run in runs {
            for export in &run[profiling * 3..profiling * 3 + 3] {
                match reference {
                    None => reference = Some(export),
                    Some(first) => assert!(
                        first.1 == export.1,
                        "{} and {} differ: {}",
                        first.0,
                        export.0,
                        first_difference(&unzip(&first.1), &unzip(&export.1))
                    ),
                }
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn exports_are_byte_identical_across_round_trips_and_backends() {
    let mut runs = Vec::new();
    runs.push(exports(Backend::new(Arc::new(MemoryStore::new()))).await);

    let dir = tempfile::tempdir().expect("a temporary directory");
    let sqlite = SqliteStore::open(&dir.path().join("lore.db"))
        .await
        .expect("opening SQLite");
    runs.push(exports(Backend::new(Arc::new(sqlite)).keep(dir)).await);

    match TestDatabase::create().await {
        Some(db) => {
            let store = PostgresStore::open(&db.url)
                .await
                .expect("connecting to PostgreSQL");
            runs.push(exports(Backend::new(Arc::new(store)).keep(db)).await);
        }
        None => eprintln!("skipping PostgreSQL in the round trip: no database server reachable"),
    }
    assert_identical(&runs);
}
