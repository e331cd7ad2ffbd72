//! Expected lineage, not coverage: the DIRECT sources of every output column of the 22
//! TPC-H queries, written by hand from the SQL (not from the parser's output), must be
//! exactly what the parser answers. A column counted as "resolved" because it has some
//! source, but the wrong one, fails here. A few INDIRECT sources that decide a value
//! (CASE conditions) are checked too.

use std::collections::BTreeSet;
use std::path::Path;

use lore_sql_lineage::{Dialect, lineage, schema_from_ddl};

/// `file | output | sources`, one line per output column in output order; a source is
/// `table.column:I` (identity), `:X` (transformation) or `:A` (aggregation); no sources:
/// a constant or `count(*)`. An output name `?` is not checked (the engine names it).
const EXPECTED: &str = "
01 | l_returnflag | lineitem.l_returnflag:I
01 | l_linestatus | lineitem.l_linestatus:I
01 | sum_qty | lineitem.l_quantity:A
01 | sum_base_price | lineitem.l_extendedprice:A
01 | sum_disc_price | lineitem.l_extendedprice:A lineitem.l_discount:A
01 | sum_charge | lineitem.l_extendedprice:A lineitem.l_discount:A lineitem.l_tax:A
01 | avg_qty | lineitem.l_quantity:A
01 | avg_price | lineitem.l_extendedprice:A
01 | avg_disc | lineitem.l_discount:A
01 | count_order |
02 | s_acctbal | supplier.s_acctbal:I
02 | s_name | supplier.s_name:I
02 | n_name | nation.n_name:I
02 | p_partkey | part.p_partkey:I
02 | p_mfgr | part.p_mfgr:I
02 | s_address | supplier.s_address:I
02 | s_phone | supplier.s_phone:I
02 | s_comment | supplier.s_comment:I
03 | l_orderkey | lineitem.l_orderkey:I
03 | revenue | lineitem.l_extendedprice:A lineitem.l_discount:A
03 | o_orderdate | orders.o_orderdate:I
03 | o_shippriority | orders.o_shippriority:I
04 | o_orderpriority | orders.o_orderpriority:I
04 | order_count |
05 | n_name | nation.n_name:I
05 | revenue | lineitem.l_extendedprice:A lineitem.l_discount:A
06 | revenue | lineitem.l_extendedprice:A lineitem.l_discount:A
07 | supp_nation | nation.n_name:I
07 | cust_nation | nation.n_name:I
07 | l_year | lineitem.l_shipdate:X
07 | revenue | lineitem.l_extendedprice:A lineitem.l_discount:A
08 | o_year | orders.o_orderdate:X
08 | mkt_share | lineitem.l_extendedprice:A lineitem.l_discount:A
09 | nation | nation.n_name:I
09 | o_year | orders.o_orderdate:X
09 | sum_profit | lineitem.l_extendedprice:A lineitem.l_discount:A partsupp.ps_supplycost:A lineitem.l_quantity:A
10 | c_custkey | customer.c_custkey:I
10 | c_name | customer.c_name:I
10 | revenue | lineitem.l_extendedprice:A lineitem.l_discount:A
10 | c_acctbal | customer.c_acctbal:I
10 | n_name | nation.n_name:I
10 | c_address | customer.c_address:I
10 | c_phone | customer.c_phone:I
10 | c_comment | customer.c_comment:I
11 | ps_partkey | partsupp.ps_partkey:I
11 | value | partsupp.ps_supplycost:A partsupp.ps_availqty:A
12 | l_shipmode | lineitem.l_shipmode:I
12 | high_line_count |
12 | low_line_count |
13 | c_count | orders.o_orderkey:A
13 | custdist |
14 | promo_revenue | lineitem.l_extendedprice:A lineitem.l_discount:A
15 | s_suppkey | supplier.s_suppkey:I
15 | s_name | supplier.s_name:I
15 | s_address | supplier.s_address:I
15 | s_phone | supplier.s_phone:I
15 | total_revenue | lineitem.l_extendedprice:A lineitem.l_discount:A
16 | p_brand | part.p_brand:I
16 | p_type | part.p_type:I
16 | p_size | part.p_size:I
16 | supplier_cnt | partsupp.ps_suppkey:A
17 | avg_yearly | lineitem.l_extendedprice:A
18 | c_name | customer.c_name:I
18 | c_custkey | customer.c_custkey:I
18 | o_orderkey | orders.o_orderkey:I
18 | o_orderdate | orders.o_orderdate:I
18 | o_totalprice | orders.o_totalprice:I
18 | ? | lineitem.l_quantity:A
19 | revenue | lineitem.l_extendedprice:A lineitem.l_discount:A
20 | s_name | supplier.s_name:I
20 | s_address | supplier.s_address:I
21 | s_name | supplier.s_name:I
21 | numwait |
22 | cntrycode | customer.c_phone:X
22 | numcust |
22 | totacctbal | customer.c_acctbal:A
";

/// (file, output, the CONDITIONAL source it must have): values a CASE chooses by.
const CONDITIONS: [(&str, &str, &str); 4] = [
    ("08", "mkt_share", "nation.n_name"),
    ("12", "high_line_count", "orders.o_orderpriority"),
    ("12", "low_line_count", "orders.o_orderpriority"),
    ("14", "promo_revenue", "part.p_type"),
];

fn code(t: lore_sql_lineage::Transformation) -> Option<char> {
    use lore_sql_lineage::Transformation as T;
    match t {
        T::Identity => Some('I'),
        T::Transformation => Some('X'),
        T::Aggregation => Some('A'),
        _ => None,
    }
}

#[test]
fn every_tpch_output_column_has_exactly_the_sources_the_sql_says() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/tpch");
    let schema_sql = std::fs::read_to_string(dir.join("schema.sql")).expect("schema.sql");
    let schema = schema_from_ddl(&schema_sql, Dialect::DuckDb);
    let rows: Vec<Vec<&str>> = EXPECTED
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split('|').map(str::trim).collect())
        .collect();
    let mut wrong = Vec::new();
    for query in 1..=22 {
        let file = format!("{query:02}");
        let sql = std::fs::read_to_string(dir.join(format!("{file}.sql"))).expect("a query");
        let answer = lineage(&sql, Dialect::DuckDb, &schema);
        assert!(answer.problems.is_empty(), "{file}: {:?}", answer.problems);
        assert_eq!(answer.statements.len(), 1, "{file}: one statement");
        let columns = &answer.statements[0].columns;
        let expected: Vec<&Vec<&str>> = rows.iter().filter(|r| r[0] == file).collect();
        assert_eq!(
            columns.len(),
            expected.len(),
            "{file}: output columns {:?}",
            columns.iter().map(|c| &c.column).collect::<Vec<_>>()
        );
        for (column, row) in columns.iter().zip(expected) {
            if row[1] != "?" && column.column != row[1] {
                wrong.push(format!(
                    "{file}: column '{}' where '{}' is expected",
                    column.column, row[1]
                ));
            }
            let got: BTreeSet<String> = column
                .sources
                .iter()
                .filter_map(|s| {
                    code(s.transformation).map(|c| format!("{}.{}:{c}", s.table, s.column))
                })
                .collect();
            let want: BTreeSet<String> = row[2].split_whitespace().map(str::to_owned).collect();
            if got != want || !column.complete {
                wrong.push(format!(
                    "{file} {}: {got:?} (complete: {}), expected {want:?}",
                    row[1], column.complete
                ));
            }
        }
        for (_, output, source) in CONDITIONS.iter().filter(|(f, _, _)| *f == file) {
            let column = columns
                .iter()
                .find(|c| c.column == *output)
                .expect("the column");
            let conditional = column.sources.iter().any(|s| {
                s.transformation == lore_sql_lineage::Transformation::Conditional
                    && format!("{}.{}", s.table, s.column) == *source
            });
            if !conditional {
                wrong.push(format!(
                    "{file} {output}: no CONDITIONAL {source}: {:?}",
                    column.sources
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} differences:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}
