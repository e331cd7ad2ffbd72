//! Table- and column-level lineage derived from SQL text.
//!
//! Given a SQL script (a pg_dump, a migration, a dbt model's compiled SQL, a view
//! body...), [`lineage`] tells for every statement that moves data (`CREATE VIEW`,
//! `CREATE MATERIALIZED VIEW`, `CREATE TABLE ... AS`, `INSERT ... SELECT`, `MERGE`,
//! `UPDATE ... FROM`, a bare `SELECT`):
//!
//! - which base tables it reads ([`StatementLineage::sources`]), with CTE names and
//!   subquery aliases resolved away;
//! - for each output column, the source columns it is computed from and how
//!   ([`Transformation`], the vocabulary of OpenLineage's column-lineage facet:
//!   `DIRECT/IDENTITY`, `DIRECT/TRANSFORMATION`, `DIRECT/AGGREGATION` and the
//!   `INDIRECT` subtypes);
//! - the columns that decide which rows are produced (`WHERE`, `JOIN ... ON`,
//!   `GROUP BY`...: [`StatementLineage::indirect`]);
//! - and, in words, whatever could not be resolved ([`StatementLineage::unresolved`]).
//!
//! What the caller knows about existing tables ([`KnownColumns`], e.g. a [`Schema`]
//! built with [`schema_from_ddl`] or from Lore's catalogue) is used to expand `*` and
//! to tell which table an unqualified column comes from.
//!
//! # Why sqlparser
//!
//! The SQL is parsed with [sqlparser](https://docs.rs/sqlparser): it is pure Rust (no
//! Python runtime, unlike sqlglot, which would have to run beside the server), Lore's
//! DDL importer already uses it, it has dialects for PostgreSQL, SQLite, MySQL,
//! Snowflake, BigQuery, Redshift, MS SQL, DuckDB and a generic one, and its tokens keep
//! their line and column, so a problem can name the line of the statement it is in.
//!
//! # Robustness
//!
//! The SQL may be untrusted (it arrives over HTTP): nothing here panics on any input.
//! sqlparser bounds its own recursion; statements with so many operators that their
//! syntax tree would be too deep to walk or drop safely are reported as a [`Problem`]
//! instead of being parsed, and the walk over the syntax tree is depth-bounded.

mod analyze;
mod schema;
mod script;

use serde::Serialize;

pub use schema::{KnownColumns, NoColumns, Schema, schema_from_ddl};

/// The SQL dialect to parse with (and to normalize unquoted identifiers by).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize)]
pub enum Dialect {
    /// sqlparser's generic dialect: accepts most common syntax.
    #[default]
    Generic,
    Postgres,
    Sqlite,
    MySql,
    Snowflake,
    BigQuery,
    Redshift,
    MsSql,
    DuckDb,
}

impl Dialect {
    /// The dialect a name stands for, case-insensitively ("postgres", "PostgreSQL",
    /// "snowflake", "bigquery", "sqlserver"...); an unknown name gives [`Dialect::Generic`].
    pub fn from_name(name: &str) -> Dialect {
        let n: String = name
            .trim()
            .chars()
            .filter(|c| !matches!(c, ' ' | '-' | '_'))
            .collect::<String>()
            .to_ascii_lowercase();
        match n.as_str() {
            "postgres" | "postgresql" | "pg" | "pgsql" => Dialect::Postgres,
            "sqlite" | "sqlite3" => Dialect::Sqlite,
            "mysql" | "mariadb" => Dialect::MySql,
            "snowflake" => Dialect::Snowflake,
            "bigquery" | "bq" | "googlesql" => Dialect::BigQuery,
            "redshift" => Dialect::Redshift,
            "mssql" | "sqlserver" | "tsql" | "azuresql" | "synapse" => Dialect::MsSql,
            "duckdb" | "duck" => Dialect::DuckDb,
            _ => Dialect::Generic,
        }
    }

    pub(crate) fn parser_dialect(self) -> Box<dyn sqlparser::dialect::Dialect> {
        use sqlparser::dialect as d;
        match self {
            Dialect::Generic => Box::new(d::GenericDialect {}),
            Dialect::Postgres => Box::new(d::PostgreSqlDialect {}),
            Dialect::Sqlite => Box::new(d::SQLiteDialect {}),
            Dialect::MySql => Box::new(d::MySqlDialect {}),
            Dialect::Snowflake => Box::new(d::SnowflakeDialect {}),
            Dialect::BigQuery => Box::new(d::BigQueryDialect {}),
            Dialect::Redshift => Box::new(d::RedshiftSqlDialect {}),
            Dialect::MsSql => Box::new(d::MsSqlDialect {}),
            Dialect::DuckDb => Box::new(d::DuckDbDialect {}),
        }
    }

    /// An identifier as the database stores it: unquoted ones folded to the dialect's
    /// case, quoted ones kept as written.
    pub(crate) fn ident(self, ident: &sqlparser::ast::Ident) -> String {
        if ident.quote_style.is_some() {
            return ident.value.clone();
        }
        match self {
            Dialect::Snowflake => ident.value.to_uppercase(),
            Dialect::BigQuery | Dialect::MsSql => ident.value.clone(),
            _ => ident.value.to_lowercase(),
        }
    }

    /// Whether strings may escape a quote with a backslash (for splitting a script).
    pub(crate) fn backslash_escapes(self) -> bool {
        matches!(self, Dialect::MySql | Dialect::BigQuery | Dialect::Generic)
    }
}

/// A table as the SQL names it, parts from the outside in (e.g. `["shop","public","orders"]`
/// or `["orders"]`).
///
/// Unquoted identifiers are lower-cased for Postgres/Redshift/Generic/DuckDb/Sqlite/MySql,
/// upper-cased for Snowflake, kept for BigQuery/MsSql; quoted ones kept as written.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct TableName(pub Vec<String>);

impl TableName {
    /// A table name from its parts, outside in.
    pub fn new<I, S>(parts: I) -> TableName
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        TableName(parts.into_iter().map(Into::into).collect())
    }
}

impl std::fmt::Display for TableName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0.join("."))
    }
}

/// How a source column contributes to an output column (OpenLineage's transformation
/// vocabulary: a type, DIRECT or INDIRECT, and a subtype).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub enum Transformation {
    /// DIRECT/IDENTITY: the value copied unchanged.
    Identity,
    /// DIRECT/TRANSFORMATION: computed from it (expression, cast, function).
    Transformation,
    /// DIRECT/AGGREGATION: an aggregate of it.
    Aggregation,
    /// INDIRECT/JOIN: it is in a join condition.
    Join,
    /// INDIRECT/FILTER: it decides which rows pass (WHERE, HAVING, QUALIFY, FILTER).
    Filter,
    /// INDIRECT/GROUP_BY: rows are grouped by it.
    GroupBy,
    /// INDIRECT/SORT: rows are ordered by it.
    Sort,
    /// INDIRECT/WINDOW: it partitions or orders a window.
    Window,
    /// INDIRECT/CONDITIONAL: it decides which branch of a CASE gives the value.
    Conditional,
}

impl Transformation {
    /// "DIRECT" or "INDIRECT".
    pub fn kind(self) -> &'static str {
        if self.is_indirect() {
            "INDIRECT"
        } else {
            "DIRECT"
        }
    }

    /// The subtype in OpenLineage's spelling: "IDENTITY", "TRANSFORMATION",
    /// "AGGREGATION", "JOIN", "FILTER", "GROUP_BY", "SORT", "WINDOW", "CONDITIONAL".
    pub fn subtype(self) -> &'static str {
        match self {
            Transformation::Identity => "IDENTITY",
            Transformation::Transformation => "TRANSFORMATION",
            Transformation::Aggregation => "AGGREGATION",
            Transformation::Join => "JOIN",
            Transformation::Filter => "FILTER",
            Transformation::GroupBy => "GROUP_BY",
            Transformation::Sort => "SORT",
            Transformation::Window => "WINDOW",
            Transformation::Conditional => "CONDITIONAL",
        }
    }

    /// Whether this is one of the INDIRECT subtypes.
    pub fn is_indirect(self) -> bool {
        !matches!(
            self,
            Transformation::Identity | Transformation::Transformation | Transformation::Aggregation
        )
    }

    /// `outer` applied to a value that came from its source by `inner`: an indirect
    /// outer use stays what it is, an indirect inner one stays what it was, and
    /// between direct ones the strongest wins (Identity < Transformation < Aggregation).
    pub(crate) fn compose(outer: Transformation, inner: Transformation) -> Transformation {
        if outer.is_indirect() {
            outer
        } else if inner.is_indirect() {
            inner
        } else {
            outer.max(inner)
        }
    }
}

/// One source column of an output column (or of a statement's indirect sources).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct SourceColumn {
    pub table: TableName,
    pub column: String,
    pub transformation: Transformation,
}

/// The lineage of one output (target) column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ColumnLineage {
    /// The target column.
    pub column: String,
    /// Its sources, DIRECT ones first, each part sorted by table and column; a column
    /// appears at most once among the DIRECT ones (with its strongest transformation).
    pub sources: Vec<SourceColumn>,
    /// False when some column reference in this column's expression could not be
    /// resolved (the reason is in [`StatementLineage::unresolved`]); a column with no
    /// sources and `complete` true is legitimately sourceless (a constant, `count(*)`).
    pub complete: bool,
}

/// What a statement does with data.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum StatementKind {
    CreateView,
    CreateMaterializedView,
    CreateTableAs,
    Insert,
    Merge,
    Update,
    Select,
}

/// The lineage of one statement.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatementLineage {
    pub kind: StatementKind,
    /// 1-based line where the statement starts in the text.
    pub line: usize,
    /// The table or view written; `None` for a bare SELECT.
    pub target: Option<TableName>,
    /// Every base table read (CTE names and subquery aliases resolved away), sorted, deduped.
    pub sources: Vec<TableName>,
    /// One per output column, in output order.
    pub columns: Vec<ColumnLineage>,
    /// The indirect sources that affect every row (WHERE, JOIN ON, GROUP BY, ORDER BY,
    /// HAVING, QUALIFY, window PARTITION/ORDER): table+column with
    /// Join/Filter/GroupBy/Sort/Window. Sorted, deduped.
    pub indirect: Vec<SourceColumn>,
    /// What could not be resolved, in words naming it: e.g. "column 'x' is in none of
    /// the tables read (orders, customers)", "'*' of table 'foo' whose columns are not
    /// known".
    pub unresolved: Vec<String>,
}

/// A statement that could not be analysed (most often: it does not parse).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// 1-based line where the statement starts.
    pub line: usize,
    /// The statement's first words (at most 60 characters).
    pub start: String,
    /// What is wrong, e.g. the parser's message (its positions are in the whole text).
    pub message: String,
}

/// The lineage of a script.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
pub struct Lineage {
    pub statements: Vec<StatementLineage>,
    pub problems: Vec<Problem>,
}

/// Lineage of every statement of `sql` that moves data (see [`StatementKind`]).
///
/// A script is split into statements; one that does not parse is a [`Problem`] (its
/// line and first words, the parser's message) and the rest still go through.
/// Statements that move no data (CREATE TABLE without AS, ALTER, GRANT, SET,
/// comments, a SELECT that reads no table...) are skipped silently.
pub fn lineage(sql: &str, dialect: Dialect, known: &dyn KnownColumns) -> Lineage {
    let parsed = script::parse_script(sql, dialect);
    let mut out = Lineage {
        statements: Vec::new(),
        problems: parsed.problems,
    };
    for stmt in &parsed.statements {
        match analyze::statement(&stmt.statement, stmt.line, dialect, known) {
            // A SELECT that reads no table (pg_dump's `SELECT set_config(...)`) moves no data.
            Some(l) if l.kind == StatementKind::Select && l.sources.is_empty() => {}
            Some(l) => out.statements.push(l),
            None => {}
        }
    }
    out
}

/// The lineage of one SELECT query (e.g. a view body or dbt's compiled SQL) written to
/// `target` with the given kind.
///
/// The text must hold exactly one statement, a query; anything else is a [`Problem`].
pub fn query_lineage(
    sql: &str,
    dialect: Dialect,
    known: &dyn KnownColumns,
    target: Option<TableName>,
    kind: StatementKind,
) -> Result<StatementLineage, Problem> {
    let mut parsed = script::parse_script(sql, dialect);
    if let Some(p) = parsed.problems.into_iter().next() {
        return Err(p);
    }
    let count = parsed.statements.len();
    let Some(stmt) = parsed.statements.pop() else {
        return Err(Problem {
            line: 1,
            start: String::new(),
            message: "no statement found".to_string(),
        });
    };
    if count > 1 {
        return Err(Problem {
            line: stmt.line,
            start: stmt.start,
            message: format!("expected one query, found {count} statements"),
        });
    }
    match &stmt.statement {
        sqlparser::ast::Statement::Query(q) => Ok(analyze::query_statement(
            q, stmt.line, dialect, known, target, kind,
        )),
        other => {
            let what = script::statement_kind_name(other);
            let message = if analyze::moves_data(other) {
                format!("expected a query, found a statement of kind {what}")
            } else {
                format!("statement kind {what} has no lineage")
            };
            Err(Problem {
                line: stmt.line,
                start: stmt.start,
                message,
            })
        }
    }
}
