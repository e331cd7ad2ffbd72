//! The schema a script describes, collected statement by statement before anything is
//! sent: a later statement (`ALTER TABLE ... ADD CONSTRAINT`, `COMMENT ON`) may add to
//! what an earlier one created.

use std::collections::{BTreeMap, HashMap};

use sqlparser::ast::{
    AlterTable, AlterTableOperation, CharacterLength, ColumnDef, ColumnOption, CommentDef,
    CommentObject, CreateIndex, CreateTable, CreateView, DataType, Expr, ForeignKeyConstraint,
    GeneratedAs, IndexColumn, ObjectName, OrderBySort, Query, SchemaName, Select, SelectItem,
    SelectItemQualifiedWildcardKind, SetExpr, Statement, TableConstraint, TableFactor,
};

use crate::names::{Dialect, Name, QualifiedName};

/// How names of a script are read: the dialect's folding and the schema of unqualified
/// names.
#[derive(Debug, Clone)]
pub struct Naming {
    pub dialect: Dialect,
    pub default_schema: Name,
}

impl Naming {
    fn name(&self, ident: &sqlparser::ast::Ident) -> Name {
        self.dialect.name(ident)
    }

    /// The schema and name of a table or view; a database qualifier is ignored.
    fn qualify(&self, name: &ObjectName) -> Option<QualifiedName> {
        let mut parts = self.dialect.parts(name)?;
        let name = parts.pop()?;
        let schema = parts.pop().unwrap_or_else(|| self.default_schema.clone());
        Some(QualifiedName { schema, name })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RelationKind {
    Table,
    View,
}

#[derive(Debug)]
pub struct Schema {
    pub name: Name,
    pub description: Option<String>,
}

/// A table or a view.
#[derive(Debug)]
pub struct Relation {
    pub name: QualifiedName,
    pub kind: RelationKind,
    pub materialized: bool,
    pub description: Option<String>,
    pub columns: Vec<Column>,
    /// The defining query of a view, as sqlparser writes it.
    pub view_statement: Option<String>,
    /// The line of the statement whose definition is kept (the last `CREATE OR REPLACE
    /// VIEW`), to tell which statement's lineage stands.
    pub line: usize,
    pub primary_key: Option<PrimaryKey>,
    pub foreign_keys: Vec<ForeignKey>,
    pub indexes: Vec<Index>,
}

#[derive(Debug, Clone)]
pub struct Column {
    pub name: Name,
    /// 1-based ordinal in its table or view.
    pub position: i64,
    pub data_type: Option<String>,
    /// The declared length of a character type.
    pub length: Option<u64>,
    /// Declared `NOT NULL` (or implied by the type); primary key columns are not null
    /// as well, whether or not this says so.
    pub not_null: bool,
    pub default: Option<String>,
    pub description: Option<String>,
}

#[derive(Debug)]
pub struct PrimaryKey {
    pub name: Name,
    pub columns: Vec<Name>,
}

#[derive(Debug)]
pub struct ForeignKey {
    pub name: Name,
    pub columns: Vec<Name>,
    pub target: QualifiedName,
    /// Empty when the constraint names none: the target's primary key is meant.
    pub referred_columns: Vec<Name>,
}

#[derive(Debug)]
pub struct Index {
    pub name: Name,
    /// The key: column names, or expressions as sqlparser writes them.
    pub columns: Vec<Name>,
    pub unique: bool,
    pub description: Option<String>,
}

impl Relation {
    fn new(name: QualifiedName, kind: RelationKind) -> Self {
        Self {
            name,
            kind,
            materialized: false,
            description: None,
            columns: Vec::new(),
            view_statement: None,
            line: 0,
            primary_key: None,
            foreign_keys: Vec::new(),
            indexes: Vec::new(),
        }
    }

    /// The column of this key, if the relation has one.
    pub fn column(&self, key: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name.key == key)
    }

    /// A name as the relation's column of that key spells it (it may be referred to
    /// with another case than it was declared with).
    pub fn column_name(&self, name: &Name) -> Name {
        self.column(&name.key)
            .map_or_else(|| name.clone(), |c| c.name.clone())
    }

    pub fn is_primary_key_column(&self, key: &str) -> bool {
        self.primary_key
            .as_ref()
            .is_some_and(|pk| pk.columns.iter().any(|c| c.key == key))
    }

    fn add_column(&mut self, naming: &Naming, def: &ColumnDef, warnings: &mut Vec<String>) {
        let column = table_column(naming, def, self.columns.len() as i64 + 1);
        if self.column(&column.name.key).is_some() {
            warnings.push(format!(
                "{}: column {} is declared twice; the first declaration is kept",
                self.name, column.name.display
            ));
            return;
        }
        let name = column.name.clone();
        self.columns.push(column);
        let key = || vec![name.clone()];
        for option in &def.options {
            let constraint = option.name.as_ref().map(|n| naming.name(n));
            match &option.option {
                ColumnOption::PrimaryKey(_) => self.set_primary_key(constraint, key(), warnings),
                ColumnOption::Unique(_) => {
                    let part = KeyPart {
                        name: name.clone(),
                        descending: false,
                    };
                    self.add_index(constraint, vec![part], key(), true, "_key", warnings);
                }
                ColumnOption::ForeignKey(fk) => {
                    let constraint =
                        constraint.or_else(|| fk.name.as_ref().map(|n| naming.name(n)));
                    self.add_foreign_key(naming, constraint, key(), fk, warnings);
                }
                _ => {}
            }
        }
    }

    /// Adds a table constraint; answers whether it is one this importer models.
    fn add_constraint(
        &mut self,
        naming: &Naming,
        constraint: &TableConstraint,
        warnings: &mut Vec<String>,
    ) -> bool {
        let name = |ident: &Option<sqlparser::ast::Ident>| ident.as_ref().map(|n| naming.name(n));
        match constraint {
            TableConstraint::PrimaryKey(pk) => {
                let columns = plain_columns(naming, &pk.columns);
                self.set_primary_key(name(&pk.name), columns, warnings);
            }
            TableConstraint::ForeignKey(fk) => {
                let columns = fk.columns.iter().map(|c| naming.name(c)).collect();
                self.add_foreign_key(naming, name(&fk.name), columns, fk, warnings);
            }
            TableConstraint::Unique(unique) => {
                let (columns, parts) = index_columns(naming, &unique.columns);
                self.add_index(name(&unique.name), columns, parts, true, "_key", warnings);
            }
            TableConstraint::Index(index) => {
                let (columns, parts) = index_columns(naming, &index.columns);
                self.add_index(name(&index.name), columns, parts, false, "_idx", warnings);
            }
            _ => return false,
        }
        true
    }

    fn set_primary_key(
        &mut self,
        name: Option<Name>,
        columns: Vec<Name>,
        warnings: &mut Vec<String>,
    ) {
        if self.primary_key.is_some() {
            warnings.push(format!(
                "{}: a second primary key is declared; the first is kept",
                self.name
            ));
            return;
        }
        let name = name.unwrap_or_else(|| self.name.name.with_suffix("_pkey"));
        let columns = columns.iter().map(|c| self.column_name(c)).collect();
        self.primary_key = Some(PrimaryKey { name, columns });
    }

    fn add_foreign_key(
        &mut self,
        naming: &Naming,
        name: Option<Name>,
        columns: Vec<Name>,
        constraint: &ForeignKeyConstraint,
        warnings: &mut Vec<String>,
    ) {
        let Some(target) = naming.qualify(&constraint.foreign_table) else {
            warnings.push(format!(
                "{}: the foreign key to {} does not name a table; it is left out",
                self.name, constraint.foreign_table
            ));
            return;
        };
        let columns: Vec<Name> = columns.iter().map(|c| self.column_name(c)).collect();
        let taken = |key: &str| self.foreign_keys.iter().any(|fk| fk.name.key == key);
        let name = match name {
            Some(name) if taken(&name.key) => {
                warnings.push(format!(
                    "{}: a second foreign key is named {}; it is left out",
                    self.name, name.display
                ));
                return;
            }
            Some(name) => name,
            None => unused_name(generated_name(&self.name.name, &columns, "_fkey"), taken),
        };
        self.foreign_keys.push(ForeignKey {
            name,
            columns,
            target,
            referred_columns: constraint
                .referred_columns
                .iter()
                .map(|c| naming.name(c))
                .collect(),
        });
    }

    fn add_index(
        &mut self,
        name: Option<Name>,
        columns: Vec<KeyPart>,
        name_parts: Vec<Name>,
        unique: bool,
        suffix: &str,
        warnings: &mut Vec<String>,
    ) {
        let taken = |key: &str| self.indexes.iter().any(|index| index.name.key == key);
        let name = match name {
            Some(name) if taken(&name.key) => {
                warnings.push(format!(
                    "{}: a second index is named {}; it is left out",
                    self.name, name.display
                ));
                return;
            }
            Some(name) => name,
            None => unused_name(generated_name(&self.name.name, &name_parts, suffix), taken),
        };
        let columns = columns
            .iter()
            .map(|part| {
                let name = self.column_name(&part.name);
                if part.descending {
                    name.with_suffix(" DESC")
                } else {
                    name
                }
            })
            .collect();
        self.indexes.push(Index {
            name,
            columns,
            unique,
            description: None,
        });
    }
}

/// A constraint or index name made the way PostgreSQL makes one:
/// `<table>_<column>_<column><suffix>`.
fn generated_name(table: &Name, columns: &[Name], suffix: &str) -> Name {
    let mut display = table.display.clone();
    let mut key = table.key.clone();
    for column in columns {
        display.push('_');
        display.push_str(&column.display);
        key.push('_');
        key.push_str(&column.key);
    }
    Name { display, key }.with_suffix(suffix)
}

/// `name`, or `name1`, `name2`, ... if it is taken.
fn unused_name(name: Name, taken: impl Fn(&str) -> bool) -> Name {
    if !taken(&name.key) {
        return name;
    }
    let mut n = 1u32;
    loop {
        let candidate = name.with_suffix(&n.to_string());
        if !taken(&candidate.key) {
            return candidate;
        }
        n += 1;
    }
}

/// A column (or expression) of an index key.
#[derive(Debug, Clone)]
struct KeyPart {
    name: Name,
    descending: bool,
}

/// The parts of an index key, and the parts of its generated name (`expr` for an
/// expression, as PostgreSQL names them).
fn index_columns(naming: &Naming, columns: &[IndexColumn]) -> (Vec<KeyPart>, Vec<Name>) {
    columns
        .iter()
        .map(|column| {
            let descending = matches!(column.column.options.sort, Some(OrderBySort::Desc));
            match &column.column.expr {
                Expr::Identifier(ident) => {
                    let name = naming.name(ident);
                    (
                        KeyPart {
                            name: name.clone(),
                            descending,
                        },
                        name,
                    )
                }
                expr => (
                    KeyPart {
                        name: Name::exact(expr.to_string()),
                        descending,
                    },
                    Name::exact("expr".to_owned()),
                ),
            }
        })
        .unzip()
}

fn plain_columns(naming: &Naming, columns: &[IndexColumn]) -> Vec<Name> {
    index_columns(naming, columns)
        .0
        .into_iter()
        .map(|part| part.name)
        .collect()
}

fn table_column(naming: &Naming, def: &ColumnDef, position: i64) -> Column {
    let data_type = (def.data_type != DataType::Unspecified).then(|| def.data_type.to_string());
    let mut column = Column {
        name: naming.name(&def.name),
        position,
        not_null: data_type
            .as_deref()
            .is_some_and(|t| naming.dialect == Dialect::Postgres && is_serial(t)),
        length: char_length(&def.data_type),
        data_type,
        default: None,
        description: None,
    };
    for option in &def.options {
        match &option.option {
            ColumnOption::NotNull => column.not_null = true,
            ColumnOption::Null => column.not_null = false,
            ColumnOption::Default(expr) => column.default = Some(expr.to_string()),
            ColumnOption::Comment(text) => column.description = Some(text.clone()),
            // GENERATED ... AS IDENTITY: identity columns are not null.
            ColumnOption::Generated {
                generated_as: GeneratedAs::Always | GeneratedAs::ByDefault,
                generation_expr: None,
                ..
            } => column.not_null = true,
            _ => {}
        }
    }
    column
}

/// PostgreSQL's serial types imply `NOT NULL`.
fn is_serial(data_type: &str) -> bool {
    matches!(
        data_type.to_ascii_lowercase().as_str(),
        "serial" | "serial2" | "serial4" | "serial8" | "smallserial" | "bigserial"
    )
}

fn char_length(data_type: &DataType) -> Option<u64> {
    match data_type {
        DataType::Character(length)
        | DataType::Char(length)
        | DataType::CharacterVarying(length)
        | DataType::CharVarying(length)
        | DataType::Varchar(length)
        | DataType::Nvarchar(length) => match length {
            Some(CharacterLength::IntegerLength { length, .. }) => Some(*length),
            _ => None,
        },
        _ => None,
    }
}

/// Everything a script describes, in the order the script creates it.
#[derive(Debug)]
pub struct Catalog {
    pub naming: Naming,
    pub schemas: Vec<Schema>,
    pub relations: Vec<Relation>,
    schema_index: HashMap<String, usize>,
    relation_index: HashMap<(String, String), usize>,
    /// What could not be taken as written, for the import's log.
    pub warnings: Vec<String>,
    /// Statements the importer does not model, by kind (`GRANT`, `CREATE FUNCTION`).
    pub skipped: BTreeMap<String, usize>,
    /// Statements the SQL parser could not read, each also a warning.
    pub unreadable: usize,
    /// The line of the statement being added.
    pub line: usize,
}

impl Catalog {
    pub fn new(naming: Naming) -> Self {
        Self {
            naming,
            schemas: Vec::new(),
            relations: Vec::new(),
            schema_index: HashMap::new(),
            relation_index: HashMap::new(),
            warnings: Vec::new(),
            skipped: BTreeMap::new(),
            unreadable: 0,
            line: 0,
        }
    }

    /// The table or view of a name, if the script creates it.
    pub fn relation(&self, name: &QualifiedName) -> Option<&Relation> {
        self.relation_position(name).map(|i| &self.relations[i])
    }

    fn relation_position(&self, name: &QualifiedName) -> Option<usize> {
        self.relation_index
            .get(&(name.schema.key.clone(), name.name.key.clone()))
            .copied()
    }

    fn schema_mut(&mut self, key: &str) -> Option<&mut Schema> {
        self.schema_index.get(key).map(|&i| &mut self.schemas[i])
    }

    /// Takes in one statement of the script.
    pub fn add(&mut self, statement: &Statement) {
        let modeled = match statement {
            Statement::CreateSchema { schema_name, .. } => {
                let name = match schema_name {
                    SchemaName::Simple(name) | SchemaName::NamedAuthorization(name, _) => {
                        self.naming.dialect.parts(name).and_then(|mut p| p.pop())
                    }
                    // `CREATE SCHEMA AUTHORIZATION joe` creates the schema `joe`.
                    SchemaName::UnnamedAuthorization(user) => Some(self.naming.name(user)),
                };
                match name {
                    Some(name) => self.ensure_schema(&name),
                    None => self.warn(format!("{statement}: not a schema name; skipped")),
                }
                true
            }
            Statement::CreateTable(table) => {
                self.create_table(table);
                true
            }
            Statement::CreateView(view) => {
                self.create_view(view);
                true
            }
            Statement::CreateIndex(index) => {
                self.create_index(index);
                true
            }
            Statement::AlterTable(alter) => self.alter_table(alter),
            Statement::Comment {
                object_type,
                object_name,
                comment,
                ..
            } => self.comment(*object_type, object_name, comment.as_deref()),
            _ => false,
        };
        if !modeled {
            self.skip(statement_kind(statement));
        }
    }

    /// Counts a statement the importer does not model.
    pub fn skip(&mut self, kind: String) {
        *self.skipped.entry(kind).or_default() += 1;
    }

    fn warn(&mut self, warning: String) {
        self.warnings.push(warning);
    }

    fn ensure_schema(&mut self, name: &Name) {
        if !self.schema_index.contains_key(&name.key) {
            self.schema_index
                .insert(name.key.clone(), self.schemas.len());
            self.schemas.push(Schema {
                name: name.clone(),
                description: None,
            });
        }
    }

    /// Where a created table or view goes: its name, and the view it replaces
    /// (`CREATE OR REPLACE VIEW`). `None` when the name is taken: silently with
    /// `IF NOT EXISTS`, else with a warning.
    fn place(
        &mut self,
        name: &ObjectName,
        what: &str,
        if_not_exists: bool,
        replaces_view: bool,
    ) -> Option<(QualifiedName, Option<usize>)> {
        let Some(qualified) = self.naming.qualify(name) else {
            self.warn(format!("{what} {name}: not a table name; skipped"));
            return None;
        };
        match self.relation_position(&qualified) {
            None => Some((qualified, None)),
            Some(position)
                if replaces_view && self.relations[position].kind == RelationKind::View =>
            {
                Some((qualified, Some(position)))
            }
            Some(_) if if_not_exists => None,
            Some(_) => {
                self.warn(format!(
                    "{what} {qualified}: a table or view of that name exists already; \
                     the first definition is kept"
                ));
                None
            }
        }
    }

    /// Adds a table or view, or replaces the view at `replaces`, keeping what other
    /// statements said of it (descriptions, indexes).
    fn insert(&mut self, relation: Relation, replaces: Option<usize>) {
        if let Some(position) = replaces {
            let old = std::mem::replace(&mut self.relations[position], relation);
            let relation = &mut self.relations[position];
            for column in &mut relation.columns {
                if column.description.is_none() {
                    column.description = old
                        .column(&column.name.key)
                        .and_then(|c| c.description.clone());
                }
            }
            relation.description = relation.description.take().or(old.description);
            relation.indexes = old.indexes;
            return;
        }
        self.ensure_schema(&relation.name.schema);
        self.relation_index.insert(
            (
                relation.name.schema.key.clone(),
                relation.name.name.key.clone(),
            ),
            self.relations.len(),
        );
        self.relations.push(relation);
    }

    fn create_table(&mut self, table: &CreateTable) {
        let Some((name, _)) = self.place(&table.name, "CREATE TABLE", table.if_not_exists, false)
        else {
            return;
        };
        let mut relation = Relation::new(name, RelationKind::Table);
        relation.line = self.line;
        relation.description = table.comment.as_ref().map(|comment| match comment {
            CommentDef::WithEq(text) | CommentDef::WithoutEq(text) => text.clone(),
        });
        for column in &table.columns {
            relation.add_column(&self.naming, column, &mut self.warnings);
        }
        for constraint in &table.constraints {
            relation.add_constraint(&self.naming, constraint, &mut self.warnings);
        }
        if table.columns.is_empty()
            && let Some(query) = &table.query
        {
            relation.columns = self.query_columns(query, &relation.name);
        }
        self.insert(relation, None);
    }

    fn create_view(&mut self, view: &CreateView) {
        let Some((name, replaces)) = self.place(
            &view.name,
            "CREATE VIEW",
            view.if_not_exists,
            view.or_replace,
        ) else {
            return;
        };
        let mut relation = Relation::new(name, RelationKind::View);
        relation.line = self.line;
        relation.materialized = view.materialized;
        relation.view_statement = Some(view.query.to_string());
        relation.description = view.comment.clone();
        let derived = self.query_columns(&view.query, &relation.name);
        relation.columns = if view.columns.is_empty() {
            derived
        } else {
            // `CREATE VIEW v (a, b) AS ...` renames the query's columns.
            view.columns
                .iter()
                .enumerate()
                .map(|(i, def)| {
                    let from_query = derived.get(i);
                    Column {
                        name: self.naming.name(&def.name),
                        position: i as i64 + 1,
                        data_type: def
                            .data_type
                            .as_ref()
                            .map(DataType::to_string)
                            .or_else(|| from_query.and_then(|c| c.data_type.clone())),
                        length: def
                            .data_type
                            .as_ref()
                            .map_or_else(|| from_query.and_then(|c| c.length), char_length),
                        not_null: false,
                        default: None,
                        description: None,
                    }
                })
                .collect()
        };
        self.insert(relation, replaces);
    }

    fn create_index(&mut self, index: &CreateIndex) {
        let label = index
            .name
            .as_ref()
            .map_or_else(|| "CREATE INDEX".to_owned(), |n| format!("index {n}"));
        let Some(table) = self.naming.qualify(&index.table_name) else {
            self.warn(format!(
                "{label}: {} is not a table name; skipped",
                index.table_name
            ));
            return;
        };
        let Some(position) = self.relation_position(&table) else {
            self.warn(format!(
                "{label}: table {table} is not created in the script; the index is left out"
            ));
            return;
        };
        let name = index
            .name
            .as_ref()
            .and_then(|n| self.naming.dialect.parts(n))
            .and_then(|mut parts| parts.pop());
        let (columns, parts) = index_columns(&self.naming, &index.columns);
        self.relations[position].add_index(
            name,
            columns,
            parts,
            index.unique,
            "_idx",
            &mut self.warnings,
        );
    }

    /// `ALTER TABLE`: added columns and constraints. Answers whether the statement holds
    /// anything this importer models.
    fn alter_table(&mut self, alter: &AlterTable) -> bool {
        let modeled = |op: &AlterTableOperation| match op {
            AlterTableOperation::AddColumn { .. } => true,
            AlterTableOperation::AddConstraint { constraint, .. } => matches!(
                constraint,
                TableConstraint::PrimaryKey(_)
                    | TableConstraint::ForeignKey(_)
                    | TableConstraint::Unique(_)
                    | TableConstraint::Index(_)
            ),
            _ => false,
        };
        if !alter.operations.iter().any(modeled) {
            return false;
        }
        let Some(position) = self
            .naming
            .qualify(&alter.name)
            .and_then(|name| self.relation_position(&name))
        else {
            self.warn(format!(
                "ALTER TABLE {}: the table is not created in the script; skipped",
                alter.name
            ));
            return true;
        };
        let relation = &mut self.relations[position];
        for operation in &alter.operations {
            match operation {
                AlterTableOperation::AddColumn { column_def, .. } => {
                    relation.add_column(&self.naming, column_def, &mut self.warnings);
                }
                AlterTableOperation::AddConstraint { constraint, .. } => {
                    relation.add_constraint(&self.naming, constraint, &mut self.warnings);
                }
                _ => {}
            }
        }
        true
    }

    /// `COMMENT ON ... IS ...`: a description. Answers whether the object type is one
    /// this importer models.
    fn comment(
        &mut self,
        object_type: CommentObject,
        object_name: &ObjectName,
        comment: Option<&str>,
    ) -> bool {
        if !matches!(
            object_type,
            CommentObject::Schema
                | CommentObject::Table
                | CommentObject::View
                | CommentObject::MaterializedView
                | CommentObject::ForeignTable
                | CommentObject::Column
                | CommentObject::Index
        ) {
            return false;
        }
        let description = comment.map(str::to_owned);
        let Some(mut parts) = self.naming.dialect.parts(object_name) else {
            self.warn(format!(
                "COMMENT ON {object_type} {object_name}: not a name; skipped"
            ));
            return true;
        };
        let missing = |what: &str| {
            format!("COMMENT ON {object_type} {object_name}: no such {what} in the script")
        };
        let default_schema = self.naming.default_schema.clone();
        let target = match object_type {
            CommentObject::Schema => parts
                .pop()
                .and_then(|name| self.schema_mut(&name.key))
                .map(|schema| &mut schema.description)
                .ok_or_else(|| missing("schema")),
            CommentObject::Column => {
                let column = parts.pop();
                let table = parts.pop();
                let schema = parts.pop().unwrap_or(default_schema);
                column
                    .zip(table)
                    .and_then(|(column, name)| {
                        let position = self.relation_position(&QualifiedName { schema, name })?;
                        self.relations[position]
                            .columns
                            .iter_mut()
                            .find(|c| c.name.key == column.key)
                    })
                    .map(|column| &mut column.description)
                    .ok_or_else(|| missing("column"))
            }
            CommentObject::Index => {
                // Index names are unique in their schema.
                let index = parts.pop();
                let schema = parts.pop().unwrap_or(default_schema);
                index
                    .and_then(|index| {
                        self.relations
                            .iter_mut()
                            .filter(|r| r.name.schema.key == schema.key)
                            .flat_map(|r| r.indexes.iter_mut())
                            .find(|i| i.name.key == index.key)
                    })
                    .map(|index| &mut index.description)
                    .ok_or_else(|| missing("index"))
            }
            _ => self
                .naming
                .qualify(object_name)
                .and_then(|name| self.relation_position(&name))
                .map(|position| &mut self.relations[position].description)
                .ok_or_else(|| missing("table or view")),
        };
        match target {
            Ok(target) => *target = description,
            Err(warning) => self.warn(warning),
        }
        true
    }

    /// The columns of a query's result, as far as they can be told from the script:
    /// names from aliases and column references, types from the referenced columns of
    /// tables and views created earlier (or from casts), `*` expanded over them.
    fn query_columns(&mut self, query: &Query, owner: &QualifiedName) -> Vec<Column> {
        let Some(select) = first_select(&query.body) else {
            return Vec::new();
        };
        let mut warnings = Vec::new();
        let mut duplicates = Vec::new();
        let sources = self.sources(select);
        let mut columns: Vec<Column> = Vec::new();
        let mut position = 0;
        let mut push = |name: Name, source: Option<&Column>, data_type: Option<String>| {
            position += 1;
            if columns.iter().any(|c| c.name.key == name.key) {
                duplicates.push(format!(
                    "{owner}: column {} appears twice in the query; the second is left out",
                    name.display
                ));
                return;
            }
            columns.push(Column {
                name,
                position,
                data_type: data_type.or_else(|| source.and_then(|c| c.data_type.clone())),
                length: source.and_then(|c| c.length),
                not_null: false,
                default: None,
                description: None,
            });
        };
        let expr_column = |expr: &Expr| -> (Option<&Column>, Option<String>) {
            match expr {
                Expr::Cast { data_type, .. } => (None, Some(data_type.to_string())),
                expr => (referenced_column(&self.naming, &sources, expr), None),
            }
        };
        for item in &select.projection {
            match item {
                SelectItem::UnnamedExpr(expr) => {
                    let (source, data_type) = expr_column(expr);
                    push(expr_name(&self.naming, expr), source, data_type);
                }
                SelectItem::ExprWithAlias { expr, alias } => {
                    let (source, data_type) = expr_column(expr);
                    push(self.naming.name(alias), source, data_type);
                }
                SelectItem::ExprWithAliases { expr, aliases } => {
                    for alias in aliases {
                        let (source, data_type) = expr_column(expr);
                        push(self.naming.name(alias), source, data_type);
                    }
                }
                SelectItem::Wildcard(_) | SelectItem::QualifiedWildcard(..) => {
                    let qualifier = match item {
                        SelectItem::QualifiedWildcard(
                            SelectItemQualifiedWildcardKind::ObjectName(name),
                            _,
                        ) => self.naming.dialect.parts(name).and_then(|mut p| p.pop()),
                        // `<expression>.*` (BigQuery): nothing to expand it over.
                        SelectItem::QualifiedWildcard(..) => continue,
                        _ => None,
                    };
                    for source in sources.iter().filter(|s| {
                        qualifier
                            .as_ref()
                            .is_none_or(|q| s.alias.as_ref() == Some(&q.key))
                    }) {
                        match source.relation {
                            Some(relation) => {
                                for column in &relation.columns {
                                    push(column.name.clone(), Some(column), None);
                                }
                            }
                            None => warnings.push(format!(
                                "{owner}: the columns {item} takes from {} are not known \
                                 from the script; they are left out",
                                source.label
                            )),
                        }
                    }
                }
            }
        }
        self.warnings.extend(warnings);
        self.warnings.extend(duplicates);
        columns
    }

    /// The tables and views a query reads from, by their names in the query.
    fn sources<'a>(&'a self, select: &'a Select) -> Vec<Source<'a>> {
        let factors = select.from.iter().flat_map(|from| {
            std::iter::once(&from.relation).chain(from.joins.iter().map(|join| &join.relation))
        });
        factors
            .map(|factor| match factor {
                TableFactor::Table { name, alias, .. } => {
                    let qualified = self.naming.qualify(name);
                    Source {
                        alias: alias.as_ref().map_or_else(
                            || qualified.as_ref().map(|q| q.name.key.clone()),
                            |a| Some(self.naming.name(&a.name).key),
                        ),
                        relation: qualified.as_ref().and_then(|q| self.relation(q)),
                        label: name.to_string(),
                    }
                }
                TableFactor::Derived { alias, .. } => Source {
                    alias: alias.as_ref().map(|a| self.naming.name(&a.name).key),
                    relation: None,
                    label: "a subquery".to_owned(),
                },
                other => Source {
                    alias: None,
                    relation: None,
                    label: other.to_string(),
                },
            })
            .collect()
    }
}

/// A table or view a query reads from.
struct Source<'a> {
    /// The name the query refers to it by: its alias, or its own name.
    alias: Option<String>,
    relation: Option<&'a Relation>,
    label: String,
}

fn first_select(body: &SetExpr) -> Option<&Select> {
    match body {
        SetExpr::Select(select) => Some(select),
        SetExpr::Query(query) => first_select(&query.body),
        SetExpr::SetOperation { left, .. } => first_select(left),
        _ => None,
    }
}

/// The column an expression refers to, when it is a column reference that resolves to
/// exactly one column of a known table or view.
fn referenced_column<'a>(
    naming: &Naming,
    sources: &[Source<'a>],
    expr: &Expr,
) -> Option<&'a Column> {
    let (qualifier, column) = match expr {
        Expr::Identifier(ident) => (None, naming.name(ident)),
        Expr::CompoundIdentifier(idents) => {
            let [.., qualifier, column] = idents.as_slice() else {
                return None;
            };
            (Some(naming.name(qualifier).key), naming.name(column))
        }
        Expr::Nested(inner) => return referenced_column(naming, sources, inner),
        _ => return None,
    };
    let mut found = sources
        .iter()
        .filter(|s| qualifier.is_none() || s.alias == qualifier)
        .filter_map(|s| s.relation?.column(&column.key));
    let first = found.next()?;
    found.next().is_none().then_some(first)
}

/// The name PostgreSQL gives an unaliased select item: the column's or the function's,
/// `?column?` for anything else.
fn expr_name(naming: &Naming, expr: &Expr) -> Name {
    match expr {
        Expr::Identifier(ident) => naming.name(ident),
        Expr::CompoundIdentifier(idents) => idents
            .last()
            .map_or_else(|| Name::exact("?column?".into()), |i| naming.name(i)),
        Expr::Function(function) => naming
            .dialect
            .parts(&function.name)
            .and_then(|mut parts| parts.pop())
            .unwrap_or_else(|| Name::exact("?column?".into())),
        Expr::Cast { expr, .. } | Expr::Nested(expr) => expr_name(naming, expr),
        _ => Name::exact("?column?".into()),
    }
}

/// What kind of statement this is, for the log line of skipped statements:
/// `INSERT`, `GRANT`, `CREATE FUNCTION`, `COMMENT ON FUNCTION`.
pub fn statement_kind(statement: &Statement) -> String {
    // Written out, an INSERT can be as long as its data.
    if let Statement::Insert(_) = statement {
        return "INSERT".to_owned();
    }
    let text = statement.to_string();
    let mut words = text
        .split_whitespace()
        .filter(|w| !matches!(*w, "OR" | "REPLACE" | "TEMP" | "TEMPORARY" | "UNIQUE"));
    let first = words.next().unwrap_or_default();
    let more = match first {
        "CREATE" | "ALTER" | "DROP" => 1,
        "COMMENT" => 2,
        _ => 0,
    };
    std::iter::once(first)
        .chain(words.take(more))
        .collect::<Vec<_>>()
        .join(" ")
}
