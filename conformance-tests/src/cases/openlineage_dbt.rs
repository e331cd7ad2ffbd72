//! A real producer end to end: openlineage-dbt's `dbt-ol` runs a small dbt project
//! (`conformance-tests/openlineage/dbt_project`) with dbt-postgres against a fresh
//! PostgreSQL database and posts its events to the Lore under test, which keeps the
//! runs and maps the datasets, jobs and lineage they describe.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::{Value, json};

use super::openlineage::{flows, upstream_of};
use crate::harness::{Resp, Target, encode_segment, unique};

/// The pinned dbt and OpenLineage packages (OpenLineage as in the python client case).
const DBT_PACKAGES: &[&str] = &[
    "dbt-core==1.10.23",
    "dbt-postgres==1.10.2",
    "openlineage-dbt==1.54.0",
];

/// The dbt project's name (`dbt_project.yml`), which dbt-ol names its jobs by.
const PROJECT: &str = "lore_shop";

/// The schema the profile builds the models in.
const SCHEMA: &str = "analytics";

/// Copies the directory `from` into `to`, recursively.
fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("making a directory");
    for entry in std::fs::read_dir(from).expect("reading the dbt project") {
        let entry = entry.expect("reading the dbt project");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("a file type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copying the dbt project");
        }
    }
}

/// The profile of the project, pointing at `database` on the local PostgreSQL.
fn profile(database: &str) -> String {
    format!(
        "{PROJECT}:\n  target: test\n  outputs:\n    test:\n      type: postgres\n      \
         host: 127.0.0.1\n      port: 5432\n      user: postgres\n      password: \"\"\n      \
         dbname: {database}\n      schema: {SCHEMA}\n      threads: 1\n"
    )
}

/// What a finished process printed, for assertion messages.
fn printed(output: &Output) -> String {
    format!(
        "exit {:?}\n--- stdout\n{}\n--- stderr\n{}",
        output.status.code(),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    )
}

/// The runs of a job, read with the administrator's key.
async fn runs(t: &Target, namespace: &str, job: &str) -> Resp {
    t.send(
        t.client
            .get(format!(
                "{}/api/v1/namespaces/{}/jobs/{}/runs",
                t.origin(),
                encode_segment(namespace),
                encode_segment(job)
            ))
            .header("api-key", t.key().await),
    )
    .await
}

/// An attribute's value of an entity answer.
fn attribute<'a>(entity: &'a Value, name: &str) -> Option<&'a Value> {
    entity["attributes"]
        .as_array()?
        .iter()
        .find(|a| a["attributeType"]["name"] == json!(name))
        .map(|a| &a["value"])
}

/// `dbt-ol run` of the project against a fresh database: a staging view renaming a
/// source table's columns and a mart table aggregating it. Each model's run lands
/// COMPLETE (and dbt-ol's wrapping run of the invocation); the source and both models
/// become Table objects of the namespace's model with their documented columns; each
/// model is a job with its compiled SQL; the mart's upstream is the staging model
/// through the mart's job, and its summed column comes from the staged amount (dbt-ol's
/// columnLineage facet).
pub async fn dbt_ol_run_lands_runs_datasets_and_lineage(t: &Target) {
    let Some(python) =
        tokio::task::spawn_blocking(|| crate::python::venv("openlineage-dbt", DBT_PACKAGES))
            .await
            .expect("making the venv")
    else {
        return;
    };
    let Some(db) = crate::postgres::TestDatabase::create().await else {
        return;
    };
    {
        use sqlx::Connection;
        let mut conn = sqlx::PgConnection::connect(&db.url)
            .await
            .expect("the test database");
        sqlx::raw_sql(
            "CREATE SCHEMA raw;
             CREATE TABLE raw.orders (
                 id integer PRIMARY KEY,
                 customer_id integer NOT NULL,
                 amount numeric(10, 2) NOT NULL,
                 ordered_at timestamp NOT NULL
             );
             INSERT INTO raw.orders VALUES
                 (1, 10, 12.50, '2026-11-01 09:00'),
                 (2, 10, 7.25, '2026-11-02 10:00'),
                 (3, 20, 30.00, '2026-11-02 11:00');",
        )
        .execute(&mut conn)
        .await
        .expect("the source table");
        let _ = conn.close().await;
    }

    // dbt writes target/ and logs/ into the project: run a copy.
    let work = tempfile::tempdir().expect("a temporary directory");
    let project = work.path().join("project");
    copy_dir(
        Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/openlineage/dbt_project"
        )),
        &project,
    );
    let profiles = work.path().join("profiles");
    std::fs::create_dir_all(&profiles).expect("the profiles directory");
    std::fs::write(profiles.join("profiles.yml"), profile(&db.name)).expect("profiles.yml");

    let emitter = t.key_with_roles(&["Lineage Emitter"]).await;
    let namespace = unique("dbt");
    let bin: PathBuf = python.parent().expect("the venv's bin").to_owned();
    let (origin, ns, cwd) = (t.origin(), namespace.clone(), work.path().to_owned());
    let output = tokio::task::spawn_blocking(move || {
        let path = std::env::join_paths(
            std::iter::once(bin.clone()).chain(
                std::env::var_os("PATH")
                    .iter()
                    .flat_map(std::env::split_paths),
            ),
        )
        .expect("PATH");
        let mut command = Command::new(bin.join("dbt-ol"));
        // Only this configuration: none of the caller's OPENLINEAGE_* or DBT_* (and no
        // openlineage.yml: the working directory is the temporary one).
        for (name, _) in std::env::vars_os() {
            let name_text = name.to_string_lossy();
            if name_text.starts_with("OPENLINEAGE") || name_text.starts_with("DBT_") {
                command.env_remove(name);
            }
        }
        command
            .args(["run", "--project-dir"])
            .arg(&project)
            .arg("--profiles-dir")
            .arg(&profiles)
            .current_dir(&cwd)
            .env("PATH", path)
            .env("DBT_PROFILES_DIR", &profiles)
            .env("DBT_SEND_ANONYMOUS_USAGE_STATS", "false")
            .env("OPENLINEAGE_URL", origin)
            .env("OPENLINEAGE_API_KEY", emitter)
            .env("OPENLINEAGE_NAMESPACE", ns)
            .output()
            .expect("running dbt-ol")
    })
    .await
    .expect("running dbt-ol");
    let shown = printed(&output);
    assert!(output.status.success(), "dbt-ol run failed: {shown}");
    // dbt-ol counts the events its transport posted without an error: the wrapping
    // run's START and COMPLETE, and a START and a COMPLETE per model.
    assert!(
        shown.contains("Emitted 6 OpenLineage events"),
        "every event is accepted: {shown}"
    );

    // The runs: dbt-ol names a model's job `database.schema.project.model` and the
    // invocation's `dbt-run-project`.
    let stg_job = format!("{}.{SCHEMA}.{PROJECT}.stg_orders", db.name);
    let mart_job = format!("{}.{SCHEMA}.{PROJECT}.customer_totals", db.name);
    for job in [&format!("dbt-run-{PROJECT}"), &stg_job, &mart_job] {
        let resp = runs(t, &namespace, job).await;
        let listed = resp.ok()["runs"].as_array().expect("runs").clone();
        assert_eq!(
            listed.len(),
            1,
            "one run of {job}: {}\n{shown}",
            resp.describe()
        );
        assert_eq!(listed[0]["state"], json!("COMPLETE"), "{}", resp.describe());
        assert_eq!(listed[0]["jobNamespace"], json!(namespace));
        assert!(
            listed[0]["startedAt"].is_string() && listed[0]["endedAt"].is_string(),
            "{}",
            resp.describe()
        );
    }

    // The datasets, in the model of the namespace `postgres://127.0.0.1:5432`, with the
    // descriptions schema.yml gives them and their columns.
    let tables = format!("/OpenLineage/127.0.0.1:5432 (postgres)/{}", db.name);
    let object = |path: String| {
        let shown = &shown;
        async move {
            let resp = t.entity(&path).await;
            assert_eq!(resp.status, 200, "{path}: {}\n{shown}", resp.describe());
            resp.ok().clone()
        }
    };
    for (path, description) in [
        (format!("{tables}/raw/orders"), "Orders as placed."),
        (
            format!("{tables}/raw/orders/amount"),
            "What the order came to.",
        ),
        (
            format!("{tables}/{SCHEMA}/stg_orders"),
            "Orders, renamed for analysis.",
        ),
        (
            format!("{tables}/{SCHEMA}/stg_orders/order_amount"),
            "What the order came to.",
        ),
        (
            format!("{tables}/{SCHEMA}/customer_totals"),
            "Orders and their total per customer.",
        ),
        (
            format!("{tables}/{SCHEMA}/customer_totals/total_amount"),
            "The sum of the customer's order amounts.",
        ),
    ] {
        let entity = object(path.clone()).await;
        assert_eq!(
            attribute(&entity, "Description"),
            Some(&json!(description)),
            "{path}: {entity}"
        );
    }

    // The mart's job, with its compiled SQL and dbt's job type.
    let job = object(format!("/OpenLineage/{namespace} (jobs)/{mart_job}")).await;
    let logic = attribute(&job, "Transformation Logic")
        .and_then(Value::as_str)
        .unwrap_or_default();
    assert!(
        logic.contains("sum(order_amount) as total_amount")
            && logic.contains(&format!("\"{}\".\"{SCHEMA}\".\"stg_orders\"", db.name)),
        "{job}"
    );
    assert_eq!(
        attribute(&job, "Job Type"),
        Some(&json!("BATCH DBT MODEL")),
        "{job}"
    );

    // Table lineage: upstream of the mart, the staging model through the mart's job,
    // and the source through the staging model's.
    let stg_key = format!("{namespace}/{stg_job}");
    let mart_key = format!("{namespace}/{mart_job}");
    let upstream = |path: String| async move {
        let id = object(path).await["id"].as_str().expect("id").to_owned();
        let answer = upstream_of(t, &id).await;
        (flows(answer.ok()), answer.describe())
    };
    let (found, answer) = upstream(format!("{tables}/{SCHEMA}/customer_totals")).await;
    let edge = |source: &str, target: &str, operation: &str| {
        (source.to_owned(), target.to_owned(), operation.to_owned())
    };
    assert_eq!(
        found,
        [
            edge("stg_orders", "customer_totals", &mart_key),
            edge("orders", "stg_orders", &stg_key),
        ]
        .into(),
        "{answer}"
    );
    // Column lineage from dbt-ol's columnLineage facet (whose transformations are
    // empty, so the edges are named by the job alone): the summed amount.
    let total_amount = format!("{tables}/{SCHEMA}/customer_totals/total_amount");
    let (found, answer) = upstream(total_amount).await;
    assert_eq!(
        found,
        [
            edge("order_amount", "total_amount", &mart_key),
            edge("amount", "order_amount", &stg_key),
        ]
        .into(),
        "{answer}"
    );
}
