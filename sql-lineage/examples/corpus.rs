//! Measures the lineage on the TPC-H and TPC-DS query texts in `corpus/`: the share of
//! queries parsed and the share of output columns resolved.
//!
//! ```text
//! cargo run -p lore-sql-lineage --example corpus --release [-- DIALECT] [--verbose]
//! ```
//!
//! DIALECT defaults to duckdb (the queries come from DuckDB's repository); `--verbose`
//! also lists every unresolved reference.

#[path = "common/measure.rs"]
mod measure;

use lore_sql_lineage::Dialect;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "--verbose");
    let dialect = args
        .iter()
        .find(|a| !a.starts_with("--"))
        .map_or(Dialect::DuckDb, |a| Dialect::from_name(a));
    let dir = measure::corpus_dir();
    for name in ["tpch", "tpcds"] {
        let measured = measure::measure(name, &dir.join(name), dialect, true).and_then(|f| {
            measure::measure(name, &dir.join(name), dialect, false).map(|bare| (f, bare))
        });
        let (f, bare) = match measured {
            Ok(x) => x,
            Err(e) => {
                eprintln!("{name}: cannot read the corpus: {e}");
                std::process::exit(1);
            }
        };
        println!(
            "{} ({:?} dialect, schema of {} tables)",
            f.name, dialect, f.schema_tables
        );
        println!("  queries:               {}", f.queries);
        println!(
            "  parsed:                {} ({:.1}%)",
            f.parsed,
            f.parsed_pct()
        );
        println!("  output columns:        {}", f.output_columns);
        println!(
            "  columns resolved:      {} ({:.1}%)",
            f.resolved_columns,
            f.resolved_pct()
        );
        println!("  unresolved references: {}", f.unresolved_references);
        println!(
            "  without the schema:    {} of {} columns resolved ({:.1}%), {} unresolved references",
            bare.resolved_columns,
            bare.output_columns,
            bare.resolved_pct(),
            bare.unresolved_references
        );
        println!(
            "  time:                  {:.1} ms",
            f.elapsed.as_secs_f64() * 1000.0
        );
        for (file, message) in &f.failures {
            println!("  failed to parse {file}: {message}");
        }
        if verbose {
            for (file, message) in &f.unresolved {
                println!("  unresolved in {file}: {message}");
            }
        }
    }
}
