//! SQL dialects, identifier folding and native ids.

use std::fmt;

use sqlparser::ast::{Ident, ObjectName};
use sqlparser::dialect::{GenericDialect, PostgreSqlDialect, SQLiteDialect};

/// The SQL dialect a script is written in: how it is parsed and how its identifiers fold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Postgres,
    Sqlite,
    Generic,
}

impl Dialect {
    /// The values of the `dialect` parameter.
    pub const NAMES: [&'static str; 3] = ["postgres", "sqlite", "generic"];

    /// The dialect of a `dialect` parameter value.
    pub fn from_parameter(value: &str) -> Option<Self> {
        match value {
            "postgres" => Some(Self::Postgres),
            "sqlite" => Some(Self::Sqlite),
            "generic" => Some(Self::Generic),
            _ => None,
        }
    }

    /// The schema unqualified names belong to, unless `defaultSchema` says otherwise.
    pub fn default_schema(self) -> &'static str {
        match self {
            Self::Postgres | Self::Generic => "public",
            Self::Sqlite => "main",
        }
    }

    /// The sqlparser dialect that parses scripts of this dialect.
    pub fn parser_dialect(self) -> Box<dyn sqlparser::dialect::Dialect> {
        match self {
            Self::Postgres => Box::new(PostgreSqlDialect {}),
            Self::Sqlite => Box::new(SQLiteDialect {}),
            Self::Generic => Box::new(GenericDialect {}),
        }
    }

    /// The name of an identifier as the database stores it, and the key it is found by.
    ///
    /// PostgreSQL folds unquoted identifiers to lower case and keeps quoted ones exactly;
    /// names are then compared exactly. SQLite (and, here, generic SQL) keeps every name
    /// as written but compares names case-insensitively.
    pub fn name(self, ident: &Ident) -> Name {
        match self {
            Self::Postgres => {
                let name = if ident.quote_style.is_some() {
                    ident.value.clone()
                } else {
                    ident.value.to_lowercase()
                };
                Name::exact(name)
            }
            Self::Sqlite | Self::Generic => Name::new(ident.value.clone()),
        }
    }

    /// A name given as a parameter (`defaultSchema`): already as the database stores it.
    pub fn given_name(self, name: &str) -> Name {
        match self {
            Self::Postgres => Name::exact(name.to_owned()),
            Self::Sqlite | Self::Generic => Name::new(name.to_owned()),
        }
    }

    /// The folded parts of an object name, or `None` when a part is not an identifier.
    pub fn parts(self, name: &ObjectName) -> Option<Vec<Name>> {
        name.0
            .iter()
            .map(|part| part.as_ident().map(|ident| self.name(ident)))
            .collect()
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Postgres => "PostgreSQL",
            Self::Sqlite => "SQLite",
            Self::Generic => "generic SQL",
        })
    }
}

/// A name of a schema object: as the database stores it (`display`) and the key it is
/// compared by and native ids are made of (`key`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Name {
    pub display: String,
    pub key: String,
}

impl Name {
    /// A name compared case-insensitively: the key is lower case.
    pub fn new(display: String) -> Self {
        Self {
            key: display.to_lowercase(),
            display,
        }
    }

    /// A name compared exactly.
    pub fn exact(display: String) -> Self {
        Self {
            key: display.clone(),
            display,
        }
    }

    /// This name with a suffix, e.g. `orders` → `orders_pkey`.
    pub fn with_suffix(&self, suffix: &str) -> Self {
        Self {
            display: format!("{}{suffix}", self.display),
            key: format!("{}{suffix}", self.key),
        }
    }
}

/// A schema-qualified name of a table or view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QualifiedName {
    pub schema: Name,
    pub name: Name,
}

impl fmt::Display for QualifiedName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.schema.display, self.name.display)
    }
}

/// One segment of a native id: the key, quoted (`"a.b"`, with `"` doubled) when it holds
/// a character that has a meaning in native ids (`.`, `:` or `"`).
pub fn segment(key: &str) -> String {
    if key.contains(['.', ':', '"']) {
        format!("\"{}\"", key.replace('"', "\"\""))
    } else {
        key.to_owned()
    }
}

/// The native id of a schema.
pub fn schema_id(schema: &Name) -> String {
    segment(&schema.key)
}

/// The native id of a table or view.
pub fn relation_id(relation: &QualifiedName) -> String {
    format!(
        "{}.{}",
        schema_id(&relation.schema),
        segment(&relation.name.key)
    )
}

/// The native id of something that hangs on a table or view: `<relation>.<prefix><name>`,
/// where the prefix (`pk:`, `fk:`, `ix:` or none for columns) keeps the kinds apart.
pub fn member_id(relation: &str, prefix: &str, name: &Name) -> String {
    format!("{relation}.{prefix}{}", segment(&name.key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn postgres_folds_unquoted_names_and_keeps_quoted_ones() {
        let pg = Dialect::Postgres;
        assert_eq!(pg.name(&Ident::new("Orders")), Name::exact("orders".into()));
        assert_eq!(
            pg.name(&Ident::with_quote('"', "Orders")),
            Name::exact("Orders".into())
        );
    }

    #[test]
    fn sqlite_keeps_names_and_compares_them_case_insensitively() {
        let name = Dialect::Sqlite.name(&Ident::with_quote('"', "Orders"));
        assert_eq!(name.display, "Orders");
        assert_eq!(name.key, "orders");
    }

    #[test]
    fn native_id_segments_quote_what_would_be_ambiguous() {
        assert_eq!(segment("orders"), "orders");
        assert_eq!(segment("a.b"), "\"a.b\"");
        assert_eq!(segment("fk:x"), "\"fk:x\"");
        assert_eq!(segment("say \"hi\""), "\"say \"\"hi\"\"\"");
        let orders = QualifiedName {
            schema: Name::exact("public".into()),
            name: Name::exact("Or.ders".into()),
        };
        let id = relation_id(&orders);
        assert_eq!(id, "public.\"Or.ders\"");
        assert_eq!(
            member_id(&id, "fk:", &Name::exact("x".into())),
            "public.\"Or.ders\".fk:x"
        );
    }
}
