//! Runs the lineage over a corpus of query files and counts what it resolves.
//! Shared by `examples/corpus.rs` and `tests/corpus.rs`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use lore_sql_lineage::{Dialect, KnownColumns, NoColumns, lineage, schema_from_ddl};

/// What one corpus gave.
#[derive(Debug, Default)]
pub struct Figures {
    pub name: String,
    pub queries: usize,
    pub parsed: usize,
    pub schema_tables: usize,
    pub output_columns: usize,
    /// Output columns with at least one resolved source, or legitimately none.
    pub resolved_columns: usize,
    pub unresolved_references: usize,
    pub elapsed: Duration,
    /// (file, parser message) of each query that did not parse.
    pub failures: Vec<(String, String)>,
    /// (file, message) of each unresolved reference.
    pub unresolved: Vec<(String, String)>,
}

impl Figures {
    pub fn parsed_pct(&self) -> f64 {
        pct(self.parsed, self.queries)
    }

    pub fn resolved_pct(&self) -> f64 {
        pct(self.resolved_columns, self.output_columns)
    }
}

fn pct(n: usize, of: usize) -> f64 {
    if of == 0 {
        0.0
    } else {
        100.0 * n as f64 / of as f64
    }
}

/// The corpus folder of this crate.
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// Measures the corpus in `dir`: `schema.sql` there gives the tables (unless
/// `with_schema` is false: then no table's columns are known), every other `*.sql` file
/// is one query.
pub fn measure(
    name: &str,
    dir: &Path,
    dialect: Dialect,
    with_schema: bool,
) -> std::io::Result<Figures> {
    let schema_sql = std::fs::read_to_string(dir.join("schema.sql"))?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.extension().is_some_and(|x| x == "sql")
                && p.file_name().is_some_and(|n| n != "schema.sql")
        })
        .collect();
    files.sort();
    let texts: Vec<(String, String)> = files
        .iter()
        .map(|p| {
            let file = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            std::fs::read_to_string(p).map(|t| (file, t))
        })
        .collect::<std::io::Result<_>>()?;

    let started = Instant::now();
    let schema = schema_from_ddl(&schema_sql, dialect);
    let known: &dyn KnownColumns = if with_schema { &schema } else { &NoColumns };
    let mut f = Figures {
        name: name.to_string(),
        queries: texts.len(),
        schema_tables: if with_schema { schema.len() } else { 0 },
        ..Figures::default()
    };
    for (file, text) in &texts {
        let l = lineage(text, dialect, known);
        if let Some(p) = l.problems.first() {
            f.failures.push((file.clone(), p.message.clone()));
            continue;
        }
        if l.statements.is_empty() {
            f.failures
                .push((file.clone(), "no statement with lineage".to_string()));
            continue;
        }
        f.parsed += 1;
        for s in &l.statements {
            f.output_columns += s.columns.len();
            f.resolved_columns += s
                .columns
                .iter()
                .filter(|c| !c.sources.is_empty() || c.complete)
                .count();
            f.unresolved_references += s.unresolved.len();
            f.unresolved
                .extend(s.unresolved.iter().map(|m| (file.clone(), m.clone())));
        }
    }
    f.elapsed = started.elapsed();
    Ok(f)
}
