//! The `lineage` relationships an importer makes of what [`lore_sql_lineage`] finds in
//! SQL: their names, which output columns they link, and the rule that each is made once.
//!
//! A statement that writes a table or view gives a relationship from each table or view
//! it reads to the one it writes, named after the statement ([`statement_edge_name`]:
//! `sql view`, `sql materialized view`, `sql create table as`, `sql insert`, `sql merge`,
//! `sql update`), and one from each source column to each target column DIRECTly
//! computed from it, named the same followed by the transformation
//! ([`column_edge_name`]: `sql view (DIRECT/AGGREGATION)`). INDIRECT sources (joins,
//! filters, grouping) get no column relationship: the table relationship stands for
//! them. What a name of the SQL stands for among the importer's own tables, and the
//! warnings about what it cannot link, are the importer's.
//!
//! ```
//! use lore_importer_kit::lineage::{Derived, statement_edge_name};
//! use lore_sql_lineage::{StatementKind, Transformation};
//!
//! let mut derived = Derived::default();
//! let base = statement_edge_name(StatementKind::CreateView);
//! assert!(derived.table_edge(base, "sales.orders", "sales.big_orders"));
//! assert!(!derived.table_edge(base, "sales.orders", "sales.big_orders"), "made once");
//! derived.column_edge(
//!     base,
//!     Transformation::Identity,
//!     "sales.orders.amount",
//!     "sales.big_orders.amount",
//! );
//! assert_eq!(derived.relationships[1].name, "sql view (DIRECT/IDENTITY)");
//! assert_eq!(derived.between_tables, 1);
//! ```

use std::collections::HashSet;

use lore_plugin_sdk::Relationship;
use lore_sql_lineage::{
    ColumnLineage, SourceColumn, StatementKind, StatementLineage, Transformation,
};

/// The relationship kind lineage is sent as.
pub const LINEAGE: &str = "lineage";

/// A `lineage` relationship.
pub fn lineage_relationship(
    name: impl Into<String>,
    source: impl Into<String>,
    target: impl Into<String>,
) -> Relationship {
    Relationship::new(LINEAGE, name, source, target)
}

/// The name of a statement's table-level relationships: `sql view`, `sql materialized
/// view`, `sql create table as`, `sql insert`, `sql merge`, `sql update` (`sql select`).
pub fn statement_edge_name(kind: StatementKind) -> &'static str {
    match kind {
        StatementKind::CreateView => "sql view",
        StatementKind::CreateMaterializedView => "sql materialized view",
        StatementKind::CreateTableAs => "sql create table as",
        StatementKind::Insert => "sql insert",
        StatementKind::Merge => "sql merge",
        StatementKind::Update => "sql update",
        StatementKind::Select => "sql select",
    }
}

/// The name of a column-level relationship: `base` followed by the transformation,
/// `sql view (DIRECT/AGGREGATION)`; `None` for an INDIRECT one, which gets no column
/// relationship.
pub fn column_edge_name(base: &str, transformation: Transformation) -> Option<String> {
    (!transformation.is_indirect()).then(|| {
        format!(
            "{base} ({}/{})",
            transformation.kind(),
            transformation.subtype()
        )
    })
}

/// Whether the statement defines the table or view it writes (`CREATE [MATERIALIZED]
/// VIEW`, `CREATE TABLE ... AS`): its output columns are then the target's columns, in
/// order.
pub fn defines_target(kind: StatementKind) -> bool {
    matches!(
        kind,
        StatementKind::CreateView
            | StatementKind::CreateMaterializedView
            | StatementKind::CreateTableAs
    )
}

/// An output column of a statement that is DIRECTly computed from some source columns.
#[derive(Debug)]
pub struct DirectColumn<'l> {
    /// Its place in the statement's output, from 0.
    pub index: usize,
    pub column: &'l ColumnLineage,
    /// Its DIRECT sources, never none.
    pub sources: Vec<&'l SourceColumn>,
}

/// The output columns with DIRECT sources, in output order: the ones that get
/// column-level relationships.
pub fn direct_columns(lineage: &StatementLineage) -> impl Iterator<Item = DirectColumn<'_>> {
    lineage
        .columns
        .iter()
        .enumerate()
        .filter_map(|(index, column)| {
            let sources: Vec<&SourceColumn> = column
                .sources
                .iter()
                .filter(|s| !s.transformation.is_indirect())
                .collect();
            (!sources.is_empty()).then_some(DirectColumn {
                index,
                column,
                sources,
            })
        })
}

/// What a table name of the SQL stands for among an importer's tables and views.
#[derive(Debug)]
pub enum Found<T> {
    One(T),
    None,
    Several(Vec<T>),
}

impl<T> Found<T> {
    /// The one found, none, or several.
    pub fn of(mut found: Vec<T>) -> Self {
        match found.len() {
            0 => Found::None,
            1 => Found::One(found.remove(0)),
            _ => Found::Several(found),
        }
    }
}

/// The lineage an importer derived: its relationships, each made once, and what could
/// not be resolved or linked.
#[derive(Debug, Default)]
pub struct Derived {
    /// For each statement, its table-level relationships, then its column-level ones.
    pub relationships: Vec<Relationship>,
    /// How many of them are between tables and views (the rest are between columns).
    pub between_tables: usize,
    /// What could not be resolved or linked, each naming where.
    pub warnings: Vec<String>,
    sent: HashSet<(String, String, String)>,
}

impl Derived {
    /// A relationship `name` from the table or view `source` to `target`, unless it was
    /// made already or the two are one (a statement that reads what it writes, `UPDATE t
    /// SET n = n + 1`, is no lineage). Whether it was made.
    pub fn table_edge(&mut self, name: &str, source: &str, target: &str) -> bool {
        let made = self.relate(name.to_owned(), source, target);
        if made {
            self.between_tables += 1;
        }
        made
    }

    /// A relationship from the column `source` to the column `target`, named by
    /// [`column_edge_name`], made as [`Derived::table_edge`] makes one; none for an
    /// INDIRECT transformation. Whether it was made.
    pub fn column_edge(
        &mut self,
        base: &str,
        transformation: Transformation,
        source: &str,
        target: &str,
    ) -> bool {
        match column_edge_name(base, transformation) {
            Some(name) => self.relate(name, source, target),
            None => false,
        }
    }

    fn relate(&mut self, name: String, source: &str, target: &str) -> bool {
        if source == target
            || !self
                .sent
                .insert((name.clone(), source.to_owned(), target.to_owned()))
        {
            return false;
        }
        self.relationships
            .push(lineage_relationship(name, source, target));
        true
    }
}

#[cfg(test)]
mod tests {
    use lore_sql_lineage::TableName;

    use super::*;

    fn source(column: &str, transformation: Transformation) -> SourceColumn {
        SourceColumn {
            table: TableName::new(["t"]),
            column: column.to_owned(),
            transformation,
        }
    }

    #[test]
    fn column_edges_are_named_by_their_transformation() {
        let name = |t| column_edge_name("sql insert", t);
        assert_eq!(
            name(Transformation::Identity).as_deref(),
            Some("sql insert (DIRECT/IDENTITY)")
        );
        assert_eq!(
            name(Transformation::Transformation).as_deref(),
            Some("sql insert (DIRECT/TRANSFORMATION)")
        );
        assert_eq!(
            name(Transformation::Aggregation).as_deref(),
            Some("sql insert (DIRECT/AGGREGATION)")
        );
        assert_eq!(name(Transformation::Join), None);
        assert_eq!(name(Transformation::Filter), None);
    }

    #[test]
    fn an_edge_is_made_once_and_never_from_an_object_to_itself() {
        let mut derived = Derived::default();
        assert!(!derived.table_edge("sql update", "t", "t"));
        assert!(derived.table_edge("sql update", "s", "t"));
        assert!(!derived.table_edge("sql update", "s", "t"));
        assert!(derived.table_edge("sql insert", "s", "t"), "another name");
        assert!(!derived.column_edge("sql insert", Transformation::Filter, "s.a", "t.a"));
        assert!(derived.column_edge("sql insert", Transformation::Identity, "s.a", "t.a"));
        assert!(!derived.column_edge("sql insert", Transformation::Identity, "s.a", "t.a"));
        assert_eq!(derived.between_tables, 2);
        assert_eq!(
            derived.relationships,
            vec![
                lineage_relationship("sql update", "s", "t"),
                lineage_relationship("sql insert", "s", "t"),
                lineage_relationship("sql insert (DIRECT/IDENTITY)", "s.a", "t.a"),
            ]
        );
    }

    #[test]
    fn only_columns_with_direct_sources_are_linked() {
        let column = |name: &str, sources: Vec<SourceColumn>| ColumnLineage {
            column: name.to_owned(),
            sources,
            complete: true,
        };
        let lineage = StatementLineage {
            kind: StatementKind::CreateView,
            line: 1,
            target: Some(TableName::new(["v"])),
            sources: vec![TableName::new(["t"])],
            columns: vec![
                column("constant", vec![]),
                column(
                    "total",
                    vec![
                        source("amount", Transformation::Aggregation),
                        source("region", Transformation::GroupBy),
                    ],
                ),
                column("flag", vec![source("kind", Transformation::Conditional)]),
            ],
            indirect: vec![],
            unresolved: vec![],
        };
        let direct: Vec<(usize, &str, Vec<&str>)> = direct_columns(&lineage)
            .map(|d| {
                let sources = d.sources.iter().map(|s| s.column.as_str()).collect();
                (d.index, d.column.column.as_str(), sources)
            })
            .collect();
        assert_eq!(direct, vec![(1, "total", vec!["amount"])]);
    }

    #[test]
    fn found_tells_one_from_none_and_several() {
        assert!(matches!(Found::of(vec![1]), Found::One(1)));
        assert!(matches!(Found::<i32>::of(vec![]), Found::None));
        assert!(matches!(Found::of(vec![1, 2]), Found::Several(v) if v == [1, 2]));
    }
}
