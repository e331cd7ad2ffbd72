//! Real dumps: `pg_dump --schema-only` of a PostgreSQL database and `sqlite3 .dump` of a
//! SQLite file, both made here from a schema with what such scripts really hold
//! (domains, enum and composite types, an aggregate, functions with `$$` bodies,
//! triggers, sequences, a partitioned table, views, a materialized view). Whatever the
//! parser cannot read is skipped and named; the tables land.
//!
//! The PostgreSQL dump needs `psql` and `pg_dump` and the server of
//! `LORE_TEST_POSTGRES_URL` (default `postgres://postgres@127.0.0.1:5432/postgres`); the
//! SQLite dump needs `sqlite3`. Without them the tests say so and pass, except under
//! `CI=true`, where a missing tool is a failure.

use std::path::Path;
use std::process::{Command, Output as ProcessOutput, Stdio};

use lore_importer_ddl::DdlImporter;
use lore_plugin_sdk::Level;
use lore_plugin_sdk::testing::{self, Outcome};
use serde_json::json;

/// The schema the PostgreSQL dump is made from.
const POSTGRES_SCHEMA: &str = include_str!("pagila_like.sql");

/// The schema the SQLite dump is made from.
const SQLITE_SCHEMA: &str = "\
CREATE TABLE language (language_id INTEGER PRIMARY KEY, name TEXT NOT NULL);
CREATE TABLE film (film_id INTEGER PRIMARY KEY AUTOINCREMENT, title TEXT NOT NULL,
    language_id INTEGER NOT NULL REFERENCES language (language_id), last_update TIMESTAMP);
CREATE INDEX idx_film_title ON film (title);
CREATE TRIGGER film_updated AFTER UPDATE ON film FOR EACH ROW
    WHEN new.last_update IS old.last_update BEGIN
    UPDATE film SET last_update = CURRENT_TIMESTAMP WHERE film_id = new.film_id;
    SELECT CASE WHEN new.title = '' THEN RAISE(ABORT, 'no title') END;
END;
CREATE VIEW film_titles AS SELECT title FROM film;
INSERT INTO language (name) VALUES ('English');
";

/// Whether a tool missing here is a failure (CI) or a reason to skip.
fn missing(what: &str) {
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "{what} is needed under CI=true"
    );
    eprintln!("skipped: {what}");
}

/// Runs a command; `None` when it cannot be started.
fn command(program: &str, args: &[&str], stdin: Option<&str>) -> Option<ProcessOutput> {
    use std::io::Write;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .ok()?;
    let mut input = child.stdin.take()?;
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).ok()?;
    }
    drop(input);
    child.wait_with_output().ok()
}

fn succeeded(output: &ProcessOutput, what: &str) -> String {
    assert!(
        output.status.success(),
        "{what}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Imports a script written to a file in `dir`.
fn import(dir: &Path, script: &str, dialect: &str) -> Outcome {
    let path = dir.join("dump.sql");
    std::fs::write(&path, script).expect("the dump is written");
    let request = testing::request("sql-ddl", Some(&path), json!({ "dialect": dialect }));
    let outcome = testing::run::<DdlImporter>(&request);
    if let Err(problem) = outcome.check() {
        panic!("the import sends what Lore would refuse: {problem}");
    }
    outcome
}

fn of_type(outcome: &Outcome, object_type: &str) -> Vec<String> {
    let mut ids: Vec<String> = outcome
        .objects()
        .filter(|o| o.object_type == object_type)
        .map(|o| o.native_id.clone())
        .collect();
    ids.sort();
    ids
}

/// `(name, source, target)` of the lineage relationships, sorted.
fn lineage(outcome: &Outcome) -> Vec<(&str, &str, &str)> {
    let mut edges: Vec<(&str, &str, &str)> = outcome
        .relationships()
        .filter(|r| r.kind == "lineage")
        .map(|r| {
            (
                r.name.as_str(),
                r.source_native_id.as_str(),
                r.target_native_id.as_str(),
            )
        })
        .collect();
    edges.sort_unstable();
    edges
}

/// Every warning names a line and says the statement was skipped (shown with
/// `--nocapture`, with the summary).
fn warnings_name_their_lines(outcome: &Outcome) {
    eprintln!("{:#?}", outcome.log_lines(Level::Info));
    for warning in outcome.log_lines(Level::Warn) {
        eprintln!("{warning}");
        assert!(
            warning.starts_with("line ") && warning.contains("which the SQL parser cannot read"),
            "{warning}"
        );
    }
}

#[test]
fn a_pg_dump_of_a_schema_imports_its_tables() {
    let url = std::env::var("LORE_TEST_POSTGRES_URL")
        .unwrap_or_else(|_| "postgres://postgres@127.0.0.1:5432/postgres".to_owned());
    let name = format!("lore_ddl_dump_{}", std::process::id());
    let database = match url.rsplit_once('/') {
        Some((server, _)) => format!("{server}/{name}"),
        None => panic!("LORE_TEST_POSTGRES_URL has no database: {url}"),
    };
    let Some(created) = command(
        "psql",
        &[&url, "-qc", &format!("CREATE DATABASE {name}")],
        None,
    ) else {
        return missing("psql");
    };
    if !created.status.success() {
        return missing(&format!(
            "a PostgreSQL server at {url}: {}",
            String::from_utf8_lossy(&created.stderr)
        ));
    }
    let schema = command(
        "psql",
        &[&database, "-q", "-v", "ON_ERROR_STOP=1"],
        Some(POSTGRES_SCHEMA),
    )
    .expect("psql ran");
    let dump = command(
        "pg_dump",
        &["--schema-only", "--no-owner", "--no-privileges", &database],
        None,
    );
    let _ = command(
        "psql",
        &[&url, "-qc", &format!("DROP DATABASE {name}")],
        None,
    );
    succeeded(&schema, "the schema");
    let Some(dump) = dump else {
        return missing("pg_dump");
    };
    let dump = succeeded(&dump, "pg_dump");

    let dir = tempfile::tempdir().expect("a temporary directory");
    let outcome = import(dir.path(), &dump, "postgres");
    assert_eq!(
        of_type(&outcome, "Table"),
        [
            "public.actor",
            "public.film",
            "public.language",
            "public.payment",
            "public.payment_p2022_01"
        ]
    );
    assert_eq!(
        of_type(&outcome, "View"),
        ["public.actor_names", "public.film_count"]
    );
    let film: Vec<&str> = outcome
        .children("public.film")
        .filter(|o| o.object_type == "Column")
        .map(|o| o.name.as_str())
        .collect();
    assert_eq!(
        film,
        ["film_id", "title", "release_year", "rating", "language_id"]
    );
    warnings_name_their_lines(&outcome);
    // The view and the materialized view as pg_dump writes them have their lineage.
    assert_eq!(
        lineage(&outcome),
        [
            ("sql materialized view", "public.film", "public.film_count"),
            (
                "sql materialized view (DIRECT/IDENTITY)",
                "public.film.language_id",
                "public.film_count.language_id"
            ),
            ("sql view", "public.actor", "public.actor_names"),
            (
                "sql view (DIRECT/TRANSFORMATION)",
                "public.actor.first_name",
                "public.actor_names.name"
            ),
            (
                "sql view (DIRECT/TRANSFORMATION)",
                "public.actor.last_name",
                "public.actor_names.name"
            ),
        ]
    );
    // Nothing of such a dump is left unread: `ALTER SEQUENCE ... OWNED BY` is counted
    // as not modelled, `WITH NO DATA` is read with its materialized view, and psql's
    // meta-commands (`\restrict`) are skipped as lines.
    assert_eq!(outcome.log_lines(Level::Warn), Vec::<String>::new());
    let info = outcome.log_lines(Level::Info);
    assert!(
        info.iter()
            .any(|l| l.starts_with("dump.sql (PostgreSQL): ")),
        "{info:?}"
    );
}

#[test]
fn a_sqlite_dump_imports_its_tables() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("films.db");
    let file = file.to_str().expect("a UTF-8 path");
    let Some(created) = command("sqlite3", &[file], Some(SQLITE_SCHEMA)) else {
        return missing("sqlite3");
    };
    succeeded(&created, "the schema");
    let dump = command("sqlite3", &[file, ".dump"], None).expect("sqlite3 ran");
    let dump = succeeded(&dump, "sqlite3 .dump");
    assert!(dump.contains("CREATE TRIGGER"), "{dump}");

    let outcome = import(dir.path(), &dump, "sqlite");
    assert_eq!(of_type(&outcome, "Table"), ["main.film", "main.language"]);
    assert_eq!(of_type(&outcome, "View"), ["main.film_titles"]);
    warnings_name_their_lines(&outcome);
    // The trigger's UPDATE is inside the trigger, not a statement of the script.
    assert_eq!(
        lineage(&outcome),
        [
            ("sql view", "main.film", "main.film_titles"),
            (
                "sql view (DIRECT/IDENTITY)",
                "main.film.title",
                "main.film_titles.title"
            ),
        ]
    );
}
