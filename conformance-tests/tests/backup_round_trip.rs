//! The backup round trip across backends: a repository built on SQLite (a model with
//! everything that hangs on objects, curation, notifications, an import operation with
//! its log, import settings and attachment, a worksheet, a dashboard, the license,
//! users, groups, grants, meta model definitions, and OpenLineage events with their
//! runs, one of them outliving its purged events) is backed up over HTTP and
//! restored into the memory backend and PostgreSQL; a backup of each holds the same
//! data, byte for byte. `lore backup` and `lore restore` do the same offline.
//! PostgreSQL is skipped when unreachable (outside CI).

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use lore_backend_memory::MemoryStore;
use lore_backend_postgres::PostgresStore;
use lore_backend_sqlite::SqliteStore;
use lore_conformance::harness::{encode_segment, first_difference, sample_archive, unique, unzip};
use lore_conformance::postgres::TestDatabase;
use lore_conformance::{Backend, Target};
use lore_core::ObjectId;
use lore_core::model::{
    AttributeKind, AttributeType, DataClass, Grant, Group, Membership, ObjectType,
    SensitivityLabel, SystemType, TypeName, ValueType,
};
use lore_core::store::{Batch, Op};
use reqwest::Method;
use serde_json::{Value, json};

/// Every file of a backup but its manifest.
fn data_files(bytes: &[u8]) -> BTreeMap<String, Vec<u8>> {
    let mut files = unzip(bytes);
    files.remove("backup.json");
    files
}

/// `roles.jsonl` of a backup with its built-in roles replaced by this version's, in
/// name order like every backup writes it.
fn with_current_builtin_roles(jsonl: &[u8]) -> Vec<u8> {
    use lore_core::model::Role;
    let builtin = Role::builtin();
    let mut roles: Vec<(String, String)> = String::from_utf8_lossy(jsonl)
        .lines()
        .filter(|line| !line.trim().is_empty())
        .filter_map(|line| {
            let role: Value = serde_json::from_str(line).expect("a role of the fixture");
            let name = role["name"].as_str().unwrap_or_default().to_owned();
            (!builtin.iter().any(|b| b.name == name)).then(|| (name, line.to_owned()))
        })
        .collect();
    for role in &builtin {
        let line = serde_json::to_string(role).expect("a built-in role as JSON");
        roles.push((role.name.clone(), line));
    }
    roles.sort();
    roles
        .into_iter()
        .map(|(_, line)| line + "\n")
        .collect::<String>()
        .into_bytes()
}

/// A request with an explicit key (a restore ends the target's own session).
async fn call(t: &Target, key: &str, method: Method, path: &str, body: Option<Value>) -> Value {
    let mut request = t.anon(method, path).header("api-key", key);
    if let Some(body) = body {
        request = request.json(&body);
    }
    t.send(request).await.ok().clone()
}

async fn backup(t: &Target, key: &str) -> Vec<u8> {
    let resp = t
        .send(
            t.anon(Method::POST, "/repository/backup")
                .header("api-key", key),
        )
        .await;
    assert_eq!(resp.status, 200, "{}: {}", t.backend, resp.describe());
    resp.bytes
}

async fn restore(t: &Target, key: &str, backup: Vec<u8>) -> Value {
    let resp = t
        .send(
            t.anon(Method::POST, "/repository/restore")
                .header("api-key", key)
                .header("Content-Type", "application/zip")
                .body(backup),
        )
        .await;
    resp.ok().clone()
}

/// Fills the source repository with one or more of everything a backup holds; answers
/// the id of the model it imports and edits.
async fn fill(t: &Target) -> String {
    let key = t.key().await;
    let sample = t.import_sample().await;
    let model = sample.model_id.clone();
    let curation = format!("/curation/{}", encode_segment(&model));
    for body in [
        json!({"kind": "watch"}),
        json!({"kind": "endorsement"}),
        json!({"kind": "comment", "text": "Matches the billing system, Zürich"}),
    ] {
        call(t, &key, Method::POST, &curation, Some(body)).await;
    }

    // An import operation with its log, settings and attachment, and the notification
    // of its watcher.
    let (folder, _) = t.unique_folder("operations").await;
    let set = call(
        t,
        &key,
        Method::PUT,
        "/repository/importModel",
        Some(json!({"folderId": folder, "modelName": unique("Imported"), "format": "lore-csv-zip", "parameters": {}})),
    )
    .await;
    let imported = set["modelId"].as_str().expect("modelId").to_owned();
    let resp = t
        .send(
            t.anon(
                Method::POST,
                &format!("/repository/attachments/{}", encode_segment(&imported)),
            )
            .header("api-key", &key)
            .query(&[("name", "sample.zip")])
            .header("Content-Type", "application/octet-stream")
            .body(sample_archive()),
        )
        .await;
    resp.ok();
    // Watchers hear of changes others make.
    let viewer = t.key_with_roles(&["Metadata Viewer"]).await;
    let watch = format!("/curation/{}", encode_segment(&imported));
    call(
        t,
        &viewer,
        Method::POST,
        &watch,
        Some(json!({"kind": "watch"})),
    )
    .await;
    let started = call(
        t,
        &key,
        Method::POST,
        &format!("/operations/startImport/{}", encode_segment(&imported)),
        Some(json!({})),
    )
    .await;
    let id = started.as_i64().expect("an operation id");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let resp = t
            .send(
                t.anon(Method::GET, "/operations/listOperations")
                    .header("api-key", &key)
                    .query(&[("modelId", imported.as_str())]),
            )
            .await;
        let done = resp
            .ok_array()
            .iter()
            .any(|o| o["id"] == id && o["state"] != "RUNNING");
        if done {
            break;
        }
        assert!(Instant::now() < deadline, "the import did not end");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    call(
        t,
        &key,
        Method::POST,
        "/worksheets",
        Some(json!({"name": "Tables", "select": "Name", "where": "\"Object Type\" = 'Table'"})),
    )
    .await;
    let dashboard =
        json!({"name": "Sales", "widgets": [{"type": "worksheet", "worksheet": "Tables"}]});
    let resp = t
        .send(
            t.anon(Method::POST, "/repository/dashboard/import")
                .header("api-key", &key)
                .header("Content-Type", "application/json")
                .body(serde_json::to_vec(&dashboard).expect("JSON")),
        )
        .await;
    resp.ok();
    call(
        t,
        &key,
        Method::POST,
        "/License/updateLicense",
        Some(json!({"licensee": "ACME Data GmbH", "seats": 25, "expiresAt": "2999-12-31"})),
    )
    .await;

    // OpenLineage events and their runs: a run whose events were purged (it stays),
    // then runs with their events, one of them failed, and a dataset event.
    let store = t.store().expect("a local store");
    let purged = "0193d6a4-1f2b-4c3d-8e4f-5a6b7c8d9e01";
    post_lineage(
        t,
        &key,
        &lineage_event("START", "2026-11-27T09:00:00Z", purged, None),
    )
    .await;
    post_lineage(
        t,
        &key,
        &lineage_event("COMPLETE", "2026-11-27T09:30:00.123456Z", purged, None),
    )
    .await;
    let cutoff = lore_core::model::now() + chrono::Duration::milliseconds(1);
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert_eq!(
        store
            .purge_lineage_events(cutoff)
            .await
            .expect("purging lineage events"),
        2,
        "the first run's events are purged"
    );
    let failed = "0193d6a4-1f2b-4c3d-8e4f-5a6b7c8d9e02";
    for (kind, time, error) in [
        ("START", "2026-11-27T10:00:00Z", None),
        ("OTHER", "2026-11-27T10:00:01Z", None),
        (
            "FAIL",
            "2026-11-27T10:05:00.5Z",
            Some("Out of memory, Zürich"),
        ),
    ] {
        post_lineage(t, &key, &lineage_event(kind, time, failed, error)).await;
    }
    let running = "0193d6a4-1f2b-4c3d-8e4f-5a6b7c8d9e03";
    post_lineage(
        t,
        &key,
        &lineage_event("RUNNING", "2026-11-27T11:00:00Z", running, None),
    )
    .await;
    post_lineage(
        t,
        &key,
        &json!({
            "eventTime": "2026-11-27T11:00:00Z",
            "producer": "https://example.com/producer",
            "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/DatasetEvent",
            "dataset": {"namespace": "postgres://db:5432", "name": "shop.public.orders"}
        }),
    )
    .await;

    // What the API makes through routes this test does not need: written directly.
    let user = store
        .users()
        .await
        .expect("users")
        .into_iter()
        .find(|u| u.name.starts_with("conformance-user"))
        .expect("the viewer");
    let group = ObjectId::repository(store.reserve_ids(-1, 1).await.expect("an id"));
    let model_id: ObjectId = model.parse().expect("a model id");
    let ops = vec![
        Op::PutGroup(Group {
            id: group,
            name: "Stewards".into(),
            description: "who keeps the glossary".into(),
            enabled: true,
            created_at: lore_core::model::now(),
        }),
        Op::AddMember(Membership {
            group,
            user: user.id,
        }),
        Op::AddGrant(Grant {
            grantee: group,
            role: "Steward".into(),
            object: Some(model_id),
        }),
        Op::PutAttributeType(AttributeType {
            name: "Steward".into(),
            display_name: "Steward".into(),
            kind: AttributeKind::Custom,
            value_type: ValueType::String,
            profile: None,
            group: "Custom Attributes".into(),
            description: "who answers for it".into(),
        }),
        Op::PutObjectType(ObjectType {
            name: TypeName::new("Reports", "Dashboard"),
            display_name: "Dashboard".into(),
            system_type: SystemType::Content,
            category: "Reports".into(),
            attributes: vec!["Steward".into()],
        }),
        Op::PutDataClass(DataClass {
            name: "IBAN".into(),
            description: "bank accounts".into(),
            hide_data: true,
            definition: json!({"patterns": ["[A-Z]{2}[0-9]{2}"]}),
        }),
        Op::PutSensitivityLabel(SensitivityLabel {
            name: "Confidential".into(),
            position: 2,
            description: String::new(),
            foreground_color: "#ffffff".into(),
            background_color: "#aa0000".into(),
            hide_data: false,
        }),
    ];
    store
        .apply(Batch::from(ops))
        .await
        .expect("writing the rest");
    // Edits the history keeps: the model described twice.
    for description in ["first", "second"] {
        call(
            t,
            &key,
            Method::PUT,
            "/repository/setAttributes",
            Some(json!({"id": imported, "values": [{
                "attributeType": {"type": "SYSTEM_ATTRIBUTE", "name": "Description"},
                "value": description,
            }]})),
        )
        .await;
    }
    imported
}

/// An OpenLineage run event of the backed-up job.
fn lineage_event(kind: &str, time: &str, run: &str, error: Option<&str>) -> Value {
    let mut facets = json!({});
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
        "producer": "https://example.com/producer",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": run, "facets": facets},
        "job": {"namespace": "backup", "name": "nightly.load"},
        "inputs": [{"namespace": "postgres://db:5432", "name": "shop.public.orders"}],
        "outputs": []
    })
}

/// Posts an event to `POST /api/v1/lineage` (the administrator may emit lineage).
async fn post_lineage(t: &Target, key: &str, event: &Value) {
    let resp = t
        .send(
            t.client
                .post(format!("{}/api/v1/lineage", t.origin()))
                .header("api-key", key)
                .json(event),
        )
        .await;
    assert_eq!(resp.status, 201, "{}", resp.describe());
}

async fn target(backend: Backend) -> Target {
    Target::spawn_backend(backend, |_| {}).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sqlite_backup_restores_into_every_backend_with_the_same_data() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let sqlite = SqliteStore::open(&dir.path().join("source.db"))
        .await
        .expect("opening SQLite");
    let source = target(Backend::new(Arc::new(sqlite)).keep(dir)).await;
    let imported = fill(&source).await;
    let key = source.key().await;
    let original = backup(&source, &key).await;
    let mut reference = data_files(&original);
    let source_revisions = reference.remove("revisions.jsonl").unwrap_or_default();
    assert!(
        !source_revisions.is_empty(),
        "the source backup has revisions"
    );
    for file in [
        "objects.jsonl",
        "users.jsonl",
        "groups.jsonl",
        "memberships.jsonl",
        "grants.jsonl",
        "worksheets.jsonl",
        "documents.jsonl",
        "curation.jsonl",
        "notifications.jsonl",
        "operations.jsonl",
        "import_settings.jsonl",
        "attachments.jsonl",
        "attribute_types.jsonl",
        "object_types.jsonl",
        "data_classes.jsonl",
        "sensitivity_labels.jsonl",
        "roles.jsonl",
        "id_sequences.jsonl",
        "lineage_runs.jsonl",
        "lineage_events.jsonl",
        "model_versions.jsonl",
        "history.jsonl",
    ] {
        assert!(
            reference.get(file).is_some_and(|data| !data.is_empty()),
            "the source backup has records in {file}"
        );
    }

    let mut others = vec![target(Backend::new(Arc::new(MemoryStore::new()))).await];
    match TestDatabase::create().await {
        Some(db) => {
            let store = PostgresStore::open(&db.url)
                .await
                .expect("connecting to PostgreSQL");
            others.push(target(Backend::new(Arc::new(store)).keep(db)).await);
        }
        None => eprintln!("skipping PostgreSQL in the backup round trip: no database server"),
    }
    // A fresh SQLite file as well: the same backend on both sides.
    let dir = tempfile::tempdir().expect("a temporary directory");
    let again = SqliteStore::open(&dir.path().join("restored.db"))
        .await
        .expect("opening SQLite");
    others.push(target(Backend::new(Arc::new(again)).keep(dir)).await);

    for other in &others {
        let name = other.backend.clone();
        let result = restore(other, &other.key().await, original.clone()).await;
        assert_eq!(result["backend"], json!("sqlite"), "{name}");
        // The restore ended every session: the administrator of the backup logs in.
        let key = other.login().await;
        let copy = backup(other, &key).await;
        let mut restored = data_files(&copy);
        // The revisions of the backup, then the restore's own and those after it.
        let revisions = restored.remove("revisions.jsonl").unwrap_or_default();
        assert!(
            revisions.starts_with(&source_revisions) && revisions.len() > source_revisions.len(),
            "{name}: the restored revisions are the backup's, then the restore's"
        );
        assert!(
            restored == reference,
            "{name}: the backup of the restored repository differs: {}",
            first_difference(&reference, &restored)
        );
        // Its history reads as the source's.
        for path in [
            format!("/history/objects/{}", encode_segment(&imported)),
            format!("/history/models/{}/versions", encode_segment(&imported)),
        ] {
            let here = call(other, &key, Method::GET, &path, None).await;
            let there = call(&source, &source.key().await, Method::GET, &path, None).await;
            assert_eq!(here, there, "{name}: {path}");
        }
        let first_version = call(
            &source,
            &source.key().await,
            Method::GET,
            &format!("/history/models/{}/versions", encode_segment(&imported)),
            None,
        )
        .await["versions"][0]["id"]
            .clone();
        let as_of = json!({"select": "Name, Description", "from": imported, "asOf": first_version});
        let here = call(
            other,
            &key,
            Method::POST,
            "/entities/executeMQLQuery",
            Some(as_of.clone()),
        )
        .await;
        let there = call(
            &source,
            &source.key().await,
            Method::POST,
            "/entities/executeMQLQuery",
            Some(as_of),
        )
        .await;
        assert_eq!(
            here, there,
            "{name}: the same query as of a version, the same answer"
        );
        // The restored repository answers like the source.
        let answers = |path: &'static str, body: Value| {
            let (other, source, key) = (other, &source, &key);
            async move {
                let here = call(other, key, Method::POST, path, Some(body.clone())).await;
                let there = call(source, &source.key().await, Method::POST, path, Some(body)).await;
                (here, there)
            }
        };
        let query = json!({"select": "Name", "where": "\"Object Type\" = 'Table'"});
        let (here, there) = answers("/entities/executeMQLQuery", query).await;
        assert_eq!(here, there, "{name}: the same query, the same answer");
        // A text search and its facets, labels included (PostgreSQL writes a restore's
        // narrow rows, with their labels, at the end of its transaction: migration 27).
        let facets = json!({"select": "\"Object Type\", Labels", "where": "text = 'email'"});
        let (here, there) = answers("/entities/getAttributeValueCounts", facets).await;
        assert_eq!(here, there, "{name}: the same search's facets");
        assert!(
            here.to_string().contains("PII"),
            "{name}: the search finds the sample's labelled e-mail columns: {here}"
        );
        // New ids continue after the restored ones.
        let made = call(
            other,
            &key,
            Method::POST,
            "/repository/createFolder",
            Some(json!({"name": unique("after-restore")})),
        )
        .await;
        let id: ObjectId = made["id"]
            .as_str()
            .expect("an id")
            .parse()
            .expect("an object id");
        let highest = restored["objects.jsonl"]
            .split(|b| *b == b'\n')
            .filter(|l| !l.is_empty())
            .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
            .filter_map(|r| {
                r["object"]["id"]
                    .as_str()
                    .and_then(|id| id.parse::<ObjectId>().ok())
            })
            .filter(|id| id.is_repository())
            .map(|id| id.object)
            .max()
            .unwrap_or(0);
        assert!(
            id.object > highest,
            "{name}: new ids follow the restored ones"
        );
    }
    for t in others {
        t.shutdown().await;
    }
    source.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lore_backup_and_lore_restore_work_offline() {
    use lore_server::cli_backup::{backup_to, restore_from};

    let dir = tempfile::tempdir().expect("a temporary directory");
    let sqlite = SqliteStore::open(&dir.path().join("source.db"))
        .await
        .expect("opening SQLite");
    let source = target(Backend::new(Arc::new(sqlite))).await;
    source.import_sample().await;
    let key = source.key().await;
    let online = data_files(&backup(&source, &key).await);
    let store = source.store().expect("a local store").clone();
    let catalog =
        lore_core::ServerCatalog::new(store, lore_core::catalog::CatalogConfig::default());
    let file = dir.path().join("backup.zip");
    let said = backup_to(&catalog, &file, true).await.expect("lore backup");
    assert!(said.contains("objects.jsonl"), "{said}");
    let offline = std::fs::read(&file).expect("the backup file");
    assert!(
        data_files(&offline) == online,
        "lore backup writes what POST /repository/backup answers"
    );

    let memory = lore_core::ServerCatalog::new(
        Arc::new(MemoryStore::new()),
        lore_core::catalog::CatalogConfig::default(),
    );
    memory
        .identity()
        .bootstrap(Some("Secret-Password-1"))
        .await
        .expect("bootstrap");
    let said = restore_from(&memory, std::fs::File::open(&file).expect("open"), false)
        .await
        .expect("lore restore into a fresh store");
    assert!(said.contains("restored the backup"), "{said}");
    let refused = restore_from(&memory, std::fs::File::open(&file).expect("open"), false)
        .await
        .expect_err("a store with a repository is replaced only with --replace");
    assert!(refused.contains("--replace"), "{refused}");
    restore_from(&memory, std::fs::File::open(&file).expect("open"), true)
        .await
        .expect("lore restore --replace");
    let again = dir.path().join("again.zip");
    backup_to(&memory, &again, true).await.expect("lore backup");
    let mut again = data_files(&std::fs::read(&again).expect("the backup"));
    let mut online = online;
    // The revisions of the backup, then those of the restores.
    let (before, after) = (
        online.remove("revisions.jsonl").unwrap_or_default(),
        again.remove("revisions.jsonl").unwrap_or_default(),
    );
    assert!(after.starts_with(&before) && after.len() > before.len());
    assert!(
        again == online,
        "the restored store backs up the same data: {}",
        first_difference(&online, &again)
    );
    source.shutdown().await;
}

/// The files of the version 1 fixture: a backup of a small repository (the sample model,
/// a comment, a worksheet), kept as text so a change of the format shows in review.
fn fixture_dir() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/backup-v1")
}

/// A backup of format version 1 restores into every later Lore and backs up again to
/// the same files: an old backup still loads. `LORE_WRITE_FIXTURES=1` writes the fixture
/// anew (only when the format version changes, beside the old one).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_version_1_backup_still_restores() {
    let dir = fixture_dir();
    if std::env::var_os("LORE_WRITE_FIXTURES").is_some() {
        let t = target(Backend::new(Arc::new(MemoryStore::new()))).await;
        let key = t.key().await;
        let sample = t.import_sample().await;
        let comment = format!("/curation/{}", encode_segment(&sample.model_id));
        call(
            &t,
            &key,
            Method::POST,
            &comment,
            Some(json!({"kind": "comment", "text": "Checked"})),
        )
        .await;
        call(
            &t,
            &key,
            Method::POST,
            "/worksheets",
            Some(json!({"name": "All", "select": "Name"})),
        )
        .await;
        std::fs::create_dir_all(&dir).expect("the fixture directory");
        for (name, data) in unzip(&backup(&t, &key).await) {
            std::fs::write(dir.join(name), data).expect("writing the fixture");
        }
        t.shutdown().await;
    }
    let mut files: BTreeMap<String, Vec<u8>> = BTreeMap::new();
    for entry in std::fs::read_dir(&dir).expect("the fixture conformance-tests/fixtures/backup-v1")
    {
        let path = entry.expect("a fixture file").path();
        let name = path
            .file_name()
            .and_then(|n| n.to_str())
            .expect("a name")
            .to_owned();
        files.insert(name, std::fs::read(&path).expect("reading the fixture"));
    }
    let zip =
        lore_conformance::harness::zip_files(files.iter().map(|(n, d)| (n.as_str(), d.as_slice())));
    files.remove("backup.json");
    // Built-in roles are brought up to the running version's definitions (start-up
    // does it, so does a restore): expect those, and the fixture's own roles as they were.
    let roles = files.get("roles.jsonl").cloned().unwrap_or_default();
    files.insert("roles.jsonl".to_owned(), with_current_builtin_roles(&roles));
    let t = target(Backend::new(Arc::new(MemoryStore::new()))).await;
    let result = restore(&t, &t.key().await, zip).await;
    assert_eq!(
        result["records"]["objects.jsonl"].as_u64().map(|n| n > 0),
        Some(true)
    );
    let key = t.login().await;
    let mut again = data_files(&backup(&t, &key).await);
    // Files added to the format since (the lineage files) are empty in the new backup,
    // but for the history files, which hold the restore itself (the fixture has none).
    again.retain(|name, data| files.contains_key(name) || !data.is_empty());
    for history in ["revisions.jsonl", "model_versions.jsonl", "history.jsonl"] {
        again.remove(history);
    }
    assert!(
        again == files,
        "the version 1 fixture backs up to other files: {}",
        first_difference(&files, &again)
    );
    t.shutdown().await;
}
