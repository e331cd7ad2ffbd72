//! A regression guard on the TPC-H and TPC-DS corpus (see `corpus/README.md` and
//! `examples/corpus.rs`, which prints the same figures). These figures count a column
//! with any source as resolved; `tests/tpch_expected.rs` checks the TPC-H columns
//! against the sources the SQL says, written by hand.

#[path = "../examples/common/measure.rs"]
mod measure;

use lore_sql_lineage::Dialect;

/// One corpus's floor: the figures measured when this test was written (DuckDB dialect,
/// each corpus's `schema.sql` known). A change that lowers them is a regression; one
/// that raises them should raise these too.
struct Floor {
    name: &'static str,
    queries: usize,
    parsed: usize,
    resolved_pct: f64,
    max_unresolved_references: usize,
}

const FLOORS: [Floor; 2] = [
    // Measured: 22 of 22 parsed; 76 of 76 output columns resolved; 0 unresolved.
    Floor {
        name: "tpch",
        queries: 22,
        parsed: 22,
        resolved_pct: 100.0,
        max_unresolved_references: 0,
    },
    // Measured: 99 of 99 parsed; 618 of 618 output columns resolved; 0 unresolved.
    Floor {
        name: "tpcds",
        queries: 99,
        parsed: 99,
        resolved_pct: 100.0,
        max_unresolved_references: 0,
    },
];

#[test]
fn corpus_figures_do_not_fall() {
    let dir = measure::corpus_dir();
    for floor in &FLOORS {
        let f = measure::measure(floor.name, &dir.join(floor.name), Dialect::DuckDb, true)
            .unwrap_or_else(|e| panic!("{}: cannot read the corpus: {e}", floor.name));
        assert_eq!(f.name, floor.name);
        assert_eq!(f.queries, floor.queries, "{}: query files", floor.name);
        assert!(f.schema_tables > 0, "{}: no table in schema.sql", f.name);
        assert!(
            f.parsed >= floor.parsed,
            "{}: {} parsed ({:.1}%), was {}; failures: {:?}",
            f.name,
            f.parsed,
            f.parsed_pct(),
            floor.parsed,
            f.failures
        );
        assert!(
            f.resolved_pct() >= floor.resolved_pct,
            "{}: {:.1}% of columns resolved, was {:.1}%; unresolved: {:?}",
            floor.name,
            f.resolved_pct(),
            floor.resolved_pct,
            f.unresolved
        );
        assert!(
            f.unresolved_references <= floor.max_unresolved_references,
            "{}: {} unresolved references, was {}: {:?}",
            floor.name,
            f.unresolved_references,
            floor.max_unresolved_references,
            f.unresolved
        );
    }
}

/// The same queries parse in the generic and PostgreSQL dialects too.
#[test]
fn corpus_parses_in_other_dialects() {
    let dir = measure::corpus_dir();
    for dialect in [Dialect::Generic, Dialect::Postgres] {
        for floor in &FLOORS {
            let f = measure::measure(floor.name, &dir.join(floor.name), dialect, true)
                .unwrap_or_else(|e| panic!("{}: cannot read the corpus: {e}", floor.name));
            assert!(
                f.parsed >= floor.parsed,
                "{} in {dialect:?}: {:?}",
                floor.name,
                f.failures
            );
        }
    }
}
