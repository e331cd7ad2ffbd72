//! Lore importer plugin for SQL DDL scripts (format `sql-ddl`).
//!
//! Reads a script of `CREATE SCHEMA`, `CREATE TABLE`, `CREATE VIEW`, `CREATE INDEX`,
//! `ALTER TABLE ... ADD` and `COMMENT ON` statements in the PostgreSQL, SQLite or generic
//! SQL dialect (parsed by [`sqlparser`]) and sends the model they describe: schemas,
//! tables, views, columns, primary keys, foreign keys (with an `entity_relationship`
//! from the referencing to the referenced table) and indexes, in the profile
//! `RDBMS Relational Database (Database)`. Other statements are skipped and counted;
//! a statement the parser cannot read is skipped with a warning naming its line.
//!
//! Statements that move data (`CREATE [MATERIALIZED] VIEW`, `CREATE TABLE ... AS`,
//! `INSERT ... SELECT`, `MERGE`, `UPDATE`) give `lineage` relationships between the
//! imported objects, derived by [`lore_sql_lineage`]: from each table read to the table
//! written (`sql view`, `sql materialized view`, `sql create table as`, `sql insert`,
//! `sql merge`, `sql update`) and from each source column to each target column DIRECTly
//! computed from it (the same name followed by the transformation, e.g.
//! `sql view (DIRECT/AGGREGATION)`). What cannot be resolved or linked is a warning
//! naming the statement's line.
//!
//! The whole script is read before anything is sent, so statements may refer to what
//! later ones create (a foreign key to a table created further down) and comments may
//! come after what they describe. See the crate's README for the mapping and the native
//! id scheme.

mod catalog;
mod lineage;
mod names;

use std::path::Path;

use lore_plugin_sdk::{
    About, Attribute, Error, Format, Importer, Level, Model, Object, Output, Relationship, Request,
};
use serde_json::json;
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::Token;

use catalog::{Catalog, Column, ForeignKey, Index, Naming, PrimaryKey, Relation, RelationKind};
use lineage::DataStatement;
use names::{Dialect, member_id, relation_id, schema_id};

/// The name of the format this plugin imports.
pub const FORMAT: &str = "sql-ddl";

/// The profile of the models it produces.
pub const PROFILE: &str = "RDBMS Relational Database (Database)";

/// Statements taken in between two progress reports.
const PROGRESS_EVERY: usize = 500;

/// Warnings written to the log, at most; the rest are counted.
const MAX_WARNINGS: usize = 100;

/// The SQL DDL importer.
#[derive(Debug)]
pub struct DdlImporter;

impl Importer for DdlImporter {
    fn about() -> About {
        About::new("ddl", env!("CARGO_PKG_VERSION"))
            .description(
                "Imports SQL DDL scripts (PostgreSQL, SQLite, generic SQL): schemas, tables, \
                 views, columns, keys, indexes, comments and the table and column lineage of \
                 views and of statements that move data",
            )
            .format(
                Format::new(
                    FORMAT,
                    "A SQL script of CREATE TABLE / VIEW / INDEX / SCHEMA, ALTER TABLE ... ADD \
                     and COMMENT ON statements; views, CREATE TABLE ... AS, INSERT ... SELECT, \
                     MERGE and UPDATE also give lineage; other statements are skipped",
                )
                .parameters(json!({
                    "type": "object",
                    "properties": {
                        "dialect": {
                            "type": "string",
                            "enum": Dialect::NAMES,
                            "default": "postgres",
                            "description": "The SQL dialect of the script"
                        },
                        "modelName": {
                            "type": "string",
                            "description": "The model's name; by default the file's name \
                                            without its extension"
                        },
                        "defaultSchema": {
                            "type": "string",
                            "description": "The schema of unqualified names, as the database \
                                            spells it; by default `public` (postgres, \
                                            generic) or `main` (sqlite)"
                        }
                    }
                })),
            )
    }

    fn import(request: &Request, out: &mut Output<'_>) -> Result<(), Error> {
        let settings = Settings::of(request)?;
        let path = request.require_file()?;
        let file_name = file_name(path);
        let script = std::fs::read_to_string(path)
            .map_err(|e| Error::new(format!("cannot read {file_name}: {e}")))?;
        let script = script.strip_prefix('\u{feff}').unwrap_or(&script);

        let mut catalog = Catalog::new(settings.naming);
        let script = without_meta_commands(script, &mut catalog);
        let mut moving_data = Vec::new();
        let statements = read_script(&script, &file_name, &mut catalog, &mut moving_data, out)?;
        let lineage = lineage::derive(&catalog, &moving_data);

        let model_name = settings
            .model_name
            .unwrap_or_else(|| model_name_of(path).to_owned());
        let mut counts = send(&catalog, &model_name, out)?;
        for relationship in lineage.relationships {
            out.relationship(relationship)?;
            counts.lineage += 1;
        }

        let warnings = catalog.warnings.len() + counts.warnings.len() + lineage.warnings.len();
        for warning in catalog
            .warnings
            .iter()
            .chain(&counts.warnings)
            .chain(&lineage.warnings)
            .take(MAX_WARNINGS)
        {
            out.log(Level::Warn, warning.as_str())?;
        }
        if warnings > MAX_WARNINGS {
            out.log(
                Level::Warn,
                format!("... and {} more warnings", warnings - MAX_WARNINGS),
            )?;
        }
        if catalog.unreadable > 0 {
            out.log(
                Level::Info,
                format!(
                    "skipped {} statement{} the SQL parser cannot read (each named in a warning)",
                    catalog.unreadable,
                    plural(catalog.unreadable)
                ),
            )?;
        }
        if !catalog.skipped.is_empty() {
            let skipped: usize = catalog.skipped.values().sum();
            let kinds: Vec<String> = catalog
                .skipped
                .iter()
                .map(|(kind, n)| format!("{kind} ({n})"))
                .collect();
            out.log(
                Level::Info,
                format!(
                    "skipped {skipped} statement{} the importer does not model: {}",
                    plural(skipped),
                    kinds.join(", ")
                ),
            )?;
        }
        out.log(
            Level::Info,
            format!(
                "{file_name} ({}): {statements} statement{}; {}",
                catalog.naming.dialect,
                plural(statements),
                counts.summary()
            ),
        )?;
        Ok(())
    }
}

lore_plugin_sdk::export_importer!(DdlImporter);

/// The script with psql's meta-commands blanked out, each counted as skipped: a line
/// starting with a backslash runs to its end, not to a semicolon (`pg_dump` writes
/// `\restrict <key>` before a dump and `\unrestrict <key>` after it). The lines stay,
/// empty, so the parser's line numbers are the file's.
fn without_meta_commands(script: &str, catalog: &mut Catalog) -> String {
    if !script.lines().any(|line| line.starts_with('\\')) {
        return script.to_owned();
    }
    let mut kept = String::with_capacity(script.len());
    for line in script.split_inclusive('\n') {
        if line.starts_with('\\') {
            catalog.skip("psql meta-command".to_owned());
            if line.ends_with('\n') {
                kept.push('\n');
            }
        } else {
            kept.push_str(line);
        }
    }
    kept
}

/// Parses the script statement by statement into the catalog, reporting progress in
/// lines; answers the number of statements. The statements that move data (views,
/// `CREATE TABLE ... AS`, `INSERT ... SELECT`, `MERGE`, `UPDATE`) are kept in
/// `moving_data` for their lineage.
///
/// A statement sqlparser cannot parse is skipped with a warning that names its line,
/// its first words and what the parser expected, and counted; everything else lands
/// (`pg_dump` scripts hold domains, aggregates and other statements sqlparser does not
/// know). Only a script that cannot be split into SQL tokens at all (an unterminated
/// string) fails the import.
fn read_script(
    script: &str,
    file_name: &str,
    catalog: &mut Catalog,
    moving_data: &mut Vec<DataStatement>,
    out: &mut Output<'_>,
) -> Result<usize, Error> {
    let dialect = catalog.naming.dialect.parser_dialect();
    let mut parser = Parser::new(&*dialect)
        .try_with_sql(script)
        .map_err(|e| Error::new(format!("{file_name}: {e}")))?;
    let lines = script.lines().count() as u64;
    let mut statements = 0;
    loop {
        while parser.consume_token(&Token::SemiColon) {}
        if parser.peek_token_ref().token == Token::EOF {
            break;
        }
        // The index of the statement's first token, to come back to when it fails.
        parser.advance_token();
        parser.prev_token();
        let start = parser.index();
        let line = usize::try_from(parser.peek_token_ref().span.start.line).unwrap_or(0);
        let pragma = parser.peek_keyword(Keyword::PRAGMA);
        // `ALTER SEQUENCE` (pg_dump's `OWNED BY`), which sqlparser does not read and
        // the importer would not model.
        let sequence = parser.peek_keyword(Keyword::ALTER)
            && matches!(&parser.peek_nth_token_ref(1).token,
                Token::Word(w) if w.keyword == Keyword::SEQUENCE);
        let failure = match parser.parse_statement() {
            Ok(statement) => {
                let materialized = matches!(
                    statement,
                    sqlparser::ast::Statement::CreateView(ref view) if view.materialized
                );
                let data = DataStatement::of(&statement, line);
                // INSERT, MERGE and UPDATE make nothing of the model but their lineage.
                let dml = matches!(
                    statement,
                    sqlparser::ast::Statement::Insert(_)
                        | sqlparser::ast::Statement::Merge(_)
                        | sqlparser::ast::Statement::Update(_)
                );
                if !(dml && data.is_some()) {
                    catalog.line = line;
                    catalog.add(&statement);
                }
                moving_data.extend(data);
                // pg_dump ends a materialized view with `WITH NO DATA`, which sqlparser
                // leaves unread: whether it is filled changes nothing of its model.
                if materialized {
                    // Each consumes all its words or none.
                    let _ = parser.parse_keywords(&[Keyword::WITH, Keyword::NO, Keyword::DATA])
                        || parser.parse_keywords(&[Keyword::WITH, Keyword::DATA]);
                }
                match parser.peek_token_ref().token {
                    Token::SemiColon | Token::EOF => None,
                    // Text after a statement it read: the rest up to the semicolon.
                    _ => parser
                        .expected_ref::<()>("end of statement", parser.peek_token_ref())
                        .err(),
                }
            }
            // sqlparser reads only numbers and strings as pragma values, while SQLite
            // dumps start with `PRAGMA foreign_keys=OFF;`: skipped like any statement
            // the importer does not model.
            Err(_) if pragma => {
                skip_statement(&mut parser);
                catalog.skip("PRAGMA".to_owned());
                None
            }
            Err(_) if sequence => {
                while parser.index() > start {
                    parser.prev_token();
                }
                skip_statement(&mut parser);
                catalog.skip("ALTER SEQUENCE".to_owned());
                None
            }
            Err(e) => {
                while parser.index() > start {
                    parser.prev_token();
                }
                Some(e)
            }
        };
        if let Some(error) = failure {
            let line = parser.peek_token_ref().span.start.line;
            let words = first_words(&parser);
            catalog.warnings.push(format!(
                "line {line}: skipped `{words}`, which the SQL parser cannot read: {error}"
            ));
            catalog.unreadable += 1;
            skip_statement(&mut parser);
        }
        statements += 1;
        if statements % PROGRESS_EVERY == 0 {
            let line = parser.peek_token_ref().span.start.line;
            out.progress(line.min(lines), Some(lines), "lines")?;
        }
    }
    out.progress(lines, Some(lines), "lines")?;
    Ok(statements)
}

/// The first words of the statement at the parser's position, for a warning: up to four
/// tokens, stopping before a parenthesis or the statement's end.
fn first_words(parser: &Parser<'_>) -> String {
    let mut words: Vec<String> = Vec::new();
    let mut glued = false;
    let mut n = 0;
    while words.len() < 4 {
        let token = &parser.peek_nth_token_ref(n).token;
        n += 1;
        match token {
            Token::SemiColon | Token::EOF | Token::LParen | Token::DollarQuotedString(_) => break,
            // A qualified name is one word: `public.actor`.
            Token::Period => {
                if let Some(last) = words.last_mut() {
                    last.push('.');
                    glued = true;
                }
            }
            _ if glued => {
                if let Some(last) = words.last_mut() {
                    last.push_str(&token.to_string());
                }
                glued = false;
            }
            _ => words.push(token.to_string()),
        }
    }
    words.join(" ")
}

/// Moves the parser to the semicolon that ends the statement at its position (or the
/// end of the script), leaving the semicolon to be read. `BEGIN ... END` blocks
/// (SQLite's triggers) and `CASE ... END` hold semicolons of their own; when they do
/// not close, the statement ends at its first semicolon.
fn skip_statement(parser: &mut Parser<'_>) {
    let start = parser.index();
    let mut depth = 0usize;
    let mut first = true;
    loop {
        let token = parser.next_token().token;
        match &token {
            Token::EOF => break,
            Token::SemiColon if depth == 0 => break,
            Token::Word(w) if !first && matches!(w.keyword, Keyword::BEGIN | Keyword::CASE) => {
                depth += 1
            }
            Token::Word(w) if w.keyword == Keyword::END => depth = depth.saturating_sub(1),
            _ => {}
        }
        first = false;
    }
    if depth > 0 && parser.peek_token_ref().token == Token::EOF {
        // A block that never closed: the statement ends at its first semicolon.
        while parser.index() > start {
            parser.prev_token();
        }
        while !matches!(parser.next_token().token, Token::SemiColon | Token::EOF) {}
    }
    parser.prev_token();
}

/// The parameters of an import.
#[derive(Debug)]
struct Settings {
    naming: Naming,
    model_name: Option<String>,
}

impl Settings {
    fn of(request: &Request) -> Result<Self, Error> {
        let given = |name: &str| request.text(name).filter(|v| !v.trim().is_empty());
        let dialect = match given("dialect") {
            None => Dialect::Postgres,
            Some(value) => Dialect::from_parameter(value).ok_or_else(|| {
                Error::new(format!(
                    "unknown dialect '{value}'; the dialects are {}",
                    Dialect::NAMES.join(", ")
                ))
            })?,
        };
        let default_schema =
            dialect.given_name(given("defaultSchema").unwrap_or(dialect.default_schema()));
        Ok(Self {
            naming: Naming {
                dialect,
                default_schema,
            },
            model_name: given("modelName").map(str::to_owned),
        })
    }
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn model_name_of(path: &Path) -> &str {
    path.file_stem()
        .and_then(|stem| stem.to_str())
        .filter(|stem| !stem.is_empty())
        .unwrap_or("DDL")
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// What was sent, for the summary.
#[derive(Debug, Default)]
struct Counts {
    schemas: usize,
    tables: usize,
    views: usize,
    columns: usize,
    primary_keys: usize,
    foreign_keys: usize,
    relationships: usize,
    indexes: usize,
    /// `lineage` relationships, between tables and between columns.
    lineage: usize,
    warnings: Vec<String>,
}

impl Counts {
    fn summary(&self) -> String {
        let part =
            |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
        [
            part(self.schemas, "schema", "schemas"),
            part(self.tables, "table", "tables"),
            part(self.views, "view", "views"),
            part(self.columns, "column", "columns"),
            part(self.primary_keys, "primary key", "primary keys"),
            part(self.foreign_keys, "foreign key", "foreign keys"),
            part(self.relationships, "relationship", "relationships"),
            part(self.indexes, "index", "indexes"),
            part(
                self.lineage,
                "lineage relationship",
                "lineage relationships",
            ),
        ]
        .join(", ")
    }
}

fn join_names<'a>(names: impl IntoIterator<Item = &'a names::Name>) -> String {
    names
        .into_iter()
        .map(|n| n.display.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Sends the model of a collected catalog.
fn send(catalog: &Catalog, model_name: &str, out: &mut Output<'_>) -> Result<Counts, Error> {
    let mut counts = Counts::default();
    out.model(Model::new(model_name, PROFILE))?;
    for schema in &catalog.schemas {
        let mut object = Object::new(schema_id(&schema.name), "Schema", &schema.name.display)
            .physical_name(&schema.name.display);
        if let Some(description) = &schema.description {
            object = object.description(description);
        }
        out.object(object)?;
        counts.schemas += 1;
    }
    for relation in &catalog.relations {
        send_relation(catalog, relation, out, &mut counts)?;
    }
    Ok(counts)
}

fn send_relation(
    catalog: &Catalog,
    relation: &Relation,
    out: &mut Output<'_>,
    counts: &mut Counts,
) -> Result<(), Error> {
    let id = relation_id(&relation.name);
    let display = &relation.name.name.display;
    let object_type = match relation.kind {
        RelationKind::Table => {
            counts.tables += 1;
            "Table"
        }
        RelationKind::View => {
            counts.views += 1;
            "View"
        }
    };
    let mut object = Object::new(&id, object_type, display)
        .parent(schema_id(&relation.name.schema))
        .physical_name(display);
    if let Some(description) = &relation.description {
        object = object.description(description);
    }
    out.object(object)?;
    if let Some(statement) = &relation.view_statement {
        out.attribute(Attribute::text(&id, "View Statement", statement))?;
    }
    if relation.materialized {
        out.attribute(Attribute::boolean(&id, "Materialized", true))?;
    }

    for column in &relation.columns {
        send_column(relation, &id, column, out)?;
        counts.columns += 1;
    }
    if let Some(pk) = &relation.primary_key {
        send_primary_key(&id, pk, out)?;
        counts.primary_keys += 1;
    }
    for fk in &relation.foreign_keys {
        send_foreign_key(catalog, relation, &id, fk, out, counts)?;
    }
    for index in &relation.indexes {
        send_index(&id, index, out)?;
        counts.indexes += 1;
    }
    Ok(())
}

/// A column of the relation `id`, with its position, nullability, length and default.
fn send_column(
    relation: &Relation,
    id: &str,
    column: &Column,
    out: &mut Output<'_>,
) -> Result<(), Error> {
    let column_id = member_id(id, "", &column.name);
    let mut object = Object::new(&column_id, "Column", &column.name.display)
        .parent(id)
        .physical_name(&column.name.display);
    if let Some(data_type) = &column.data_type {
        object = object.data_type(data_type);
    }
    if let Some(description) = &column.description {
        object = object.description(description);
    }
    out.object(object)?;
    out.attribute(Attribute::integer(&column_id, "Position", column.position))?;
    if relation.kind == RelationKind::Table {
        let nullable = !(column.not_null || relation.is_primary_key_column(&column.name.key));
        out.attribute(Attribute::boolean(&column_id, "Nullable", nullable))?;
    }
    if let Some(length) = column.length.and_then(|l| i64::try_from(l).ok()) {
        out.attribute(Attribute::integer(&column_id, "Length", length))?;
    }
    if let Some(default) = &column.default {
        out.attribute(Attribute::text(&column_id, "Default Value", default))?;
    }
    Ok(())
}

/// The primary key of the relation `id`, with its columns.
fn send_primary_key(id: &str, pk: &PrimaryKey, out: &mut Output<'_>) -> Result<(), Error> {
    let pk_id = member_id(id, "pk:", &pk.name);
    out.object(
        Object::new(&pk_id, "Primary Key", &pk.name.display)
            .parent(id)
            .physical_name(&pk.name.display),
    )?;
    out.attribute(Attribute::text(
        &pk_id,
        "Key Columns",
        join_names(&pk.columns),
    ))
}

/// A foreign key of the relation `id`, with its columns and what it refers to, and the
/// entity relationship it makes when the script creates its target (else a warning).
fn send_foreign_key(
    catalog: &Catalog,
    relation: &Relation,
    id: &str,
    fk: &ForeignKey,
    out: &mut Output<'_>,
    counts: &mut Counts,
) -> Result<(), Error> {
    let fk_id = member_id(id, "fk:", &fk.name);
    out.object(
        Object::new(&fk_id, "Foreign Key", &fk.name.display)
            .parent(id)
            .physical_name(&fk.name.display),
    )?;
    out.attribute(Attribute::text(
        &fk_id,
        "Key Columns",
        join_names(&fk.columns),
    ))?;
    let target = catalog.relation(&fk.target);
    let referenced_table = target.map_or_else(|| fk.target.to_string(), |t| t.name.to_string());
    out.attribute(Attribute::text(
        &fk_id,
        "Referenced Table",
        referenced_table,
    ))?;
    // Without a column list the key refers to the target's primary key.
    let referred: Vec<names::Name> = match (fk.referred_columns.is_empty(), target) {
        (false, Some(target)) => fk
            .referred_columns
            .iter()
            .map(|c| target.column_name(c))
            .collect(),
        (false, None) => fk.referred_columns.clone(),
        (true, Some(target)) => target
            .primary_key
            .as_ref()
            .map(|pk| pk.columns.clone())
            .unwrap_or_default(),
        (true, None) => Vec::new(),
    };
    if !referred.is_empty() {
        out.attribute(Attribute::text(
            &fk_id,
            "Referenced Columns",
            join_names(&referred),
        ))?;
    }
    counts.foreign_keys += 1;
    match target {
        Some(target) => {
            out.relationship(Relationship::new(
                "entity_relationship",
                &fk.name.display,
                id,
                relation_id(&target.name),
            ))?;
            counts.relationships += 1;
        }
        None => counts.warnings.push(format!(
            "{}: foreign key {} refers to {}, which is not created in the script; \
             it has no relationship",
            relation.name, fk.name.display, fk.target
        )),
    }
    Ok(())
}

/// An index of the relation `id`, with its columns and whether it is unique.
fn send_index(id: &str, index: &Index, out: &mut Output<'_>) -> Result<(), Error> {
    let index_id = member_id(id, "ix:", &index.name);
    let mut object = Object::new(&index_id, "Index", &index.name.display)
        .parent(id)
        .physical_name(&index.name.display);
    if let Some(description) = &index.description {
        object = object.description(description);
    }
    out.object(object)?;
    out.attribute(Attribute::text(
        &index_id,
        "Key Columns",
        join_names(&index.columns),
    ))?;
    out.attribute(Attribute::boolean(&index_id, "Unique", index.unique))
}
