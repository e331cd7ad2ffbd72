use serde::{Deserialize, Serialize};

use super::{ObjectKind, SystemType, Timestamp, TypeName};
use crate::attributes as catalog;
use crate::id::ObjectId;

/// A profile groups object types of one kind of source (a database, a file system, a glossary).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Profile {
    pub name: String,
    pub description: String,
}

/// An object type of the meta model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ObjectType {
    pub name: TypeName,
    pub display_name: String,
    pub system_type: SystemType,
    /// The search category, e.g. `Database` or `Glossary.Term`.
    pub category: String,
    /// Names of the profile attributes this type has, beside system and custom attributes.
    pub attributes: Vec<String>,
}

/// Where an attribute type comes from; precedence in MQL follows this order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum AttributeKind {
    #[serde(rename = "SYSTEM_ATTRIBUTE")]
    System,
    #[serde(rename = "CUSTOM_ATTRIBUTE")]
    Custom,
    #[serde(rename = "CUSTOM_RELATIONSHIP")]
    CustomRelationship,
    #[serde(rename = "DATA_PROFILING_ATTRIBUTE")]
    DataProfiling,
    /// A profile attribute; the wire type is `ATTRIBUTE`.
    #[serde(rename = "ATTRIBUTE")]
    Profile,
    #[serde(rename = "PROFILE_RELATIONSHIP")]
    ProfileRelationship,
    #[serde(rename = "UDP")]
    Udp,
}

impl AttributeKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::System => "SYSTEM_ATTRIBUTE",
            Self::Custom => "CUSTOM_ATTRIBUTE",
            Self::CustomRelationship => "CUSTOM_RELATIONSHIP",
            Self::DataProfiling => "DATA_PROFILING_ATTRIBUTE",
            Self::Profile => "ATTRIBUTE",
            Self::ProfileRelationship => "PROFILE_RELATIONSHIP",
            Self::Udp => "UDP",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::System,
            Self::Custom,
            Self::CustomRelationship,
            Self::DataProfiling,
            Self::Profile,
            Self::ProfileRelationship,
            Self::Udp,
        ]
        .into_iter()
        .find(|k| k.as_str().eq_ignore_ascii_case(s))
    }
}

/// The type of an attribute's values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ValueType {
    String,
    Integer,
    Double,
    Boolean,
    Date,
    DateTime,
    /// Object-valued or array-valued system attributes (Context, Labels, Grantees, ...).
    Object,
}

impl ValueType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::String => "String",
            Self::Integer => "Integer",
            Self::Double => "Double",
            Self::Boolean => "Boolean",
            Self::Date => "Date",
            Self::DateTime => "DateTime",
            Self::Object => "Object",
        }
    }
    pub fn parse(s: &str) -> Option<Self> {
        [
            Self::String,
            Self::Integer,
            Self::Double,
            Self::Boolean,
            Self::Date,
            Self::DateTime,
            Self::Object,
        ]
        .into_iter()
        .find(|k| k.as_str().eq_ignore_ascii_case(s))
    }
}

/// An attribute type of the meta model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AttributeType {
    pub name: String,
    pub display_name: String,
    pub kind: AttributeKind,
    pub value_type: ValueType,
    /// The profile of a profile attribute or relationship.
    pub profile: Option<String>,
    /// The group it is shown under (`/types/listGroupTypes`).
    pub group: String,
    pub description: String,
}

/// A typed value of a custom attribute, profile attribute or UDP.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Value {
    Boolean(bool),
    Integer(i64),
    Double(f64),
    DateTime(Timestamp),
    Text(String),
}

impl Value {
    /// Parses text into a value of the given type; `None` when the text does not fit.
    pub fn parse(value_type: ValueType, text: &str) -> Option<Value> {
        match value_type {
            ValueType::String | ValueType::Object => Some(Value::Text(text.to_owned())),
            ValueType::Integer => text.trim().parse().ok().map(Value::Integer),
            ValueType::Double => text
                .trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .map(Value::Double),
            ValueType::Boolean => match text.trim().to_ascii_lowercase().as_str() {
                "true" => Some(Value::Boolean(true)),
                "false" => Some(Value::Boolean(false)),
                _ => None,
            },
            // A date is kept as midnight UTC; its canonical text is the full datetime,
            // so both forms read back.
            ValueType::Date => parse_datetime(text).map(Value::DateTime),
            ValueType::DateTime => parse_datetime(text).map(Value::DateTime),
        }
    }

    /// The canonical text of the value, as archives store it and `parse` reads it back.
    pub fn to_text(&self) -> String {
        match self {
            Value::Boolean(b) => b.to_string(),
            Value::Integer(i) => i.to_string(),
            Value::Double(d) => d.to_string(),
            Value::DateTime(t) => format_datetime(t),
            Value::Text(s) => s.clone(),
        }
    }
}

/// Reads `YYYY-MM-DD HH:MM:SS` (MQL's form), RFC 3339, or a bare date, as UTC.
pub fn parse_datetime(text: &str) -> Option<Timestamp> {
    let text = text.trim();
    if let Ok(t) = chrono::DateTime::parse_from_rfc3339(text) {
        return Some(t.with_timezone(&chrono::Utc));
    }
    for format in ["%Y-%m-%d %H:%M:%S%.f", "%Y-%m-%dT%H:%M:%S%.f"] {
        if let Ok(t) = chrono::NaiveDateTime::parse_from_str(text, format) {
            return Some(t.and_utc());
        }
    }
    chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.and_hms_opt(0, 0, 0))
        .map(|t| t.and_utc())
}

/// Formats a timestamp as RFC 3339 with milliseconds and `Z`, the one form Lore writes.
pub fn format_datetime(t: &Timestamp) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A time as RFC 3339 to the microsecond, as stores keep it: the times of history, which
/// a client passes back as `asOf` and must name the same revision.
pub fn format_micros(t: &Timestamp) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Micros, true)
}

/// One value of a custom attribute, profile attribute or UDP on one object.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttributeValue {
    pub object: ObjectId,
    pub attribute: String,
    pub value: Value,
}

/// The whole meta model: profiles, object types and attribute types.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MetaModel {
    pub profiles: Vec<Profile>,
    pub object_types: Vec<ObjectType>,
    pub attribute_types: Vec<AttributeType>,
}

/// The profile of repository objects (folders, configurations, versions, models).
pub const REPOSITORY_PROFILE: &str = "Repository";
pub const DATABASE_PROFILE: &str = "RDBMS Relational Database (Database)";
pub const FILE_PROFILE: &str = "File System (File)";
pub const GLOSSARY_PROFILE: &str = "Business Glossary";
pub const CUSTOM_PROFILE: &str = "Custom Model";
/// The profile of the jobs OpenLineage events name.
pub const PIPELINE_PROFILE: &str = "Data Pipelines";
/// The profile attribute of a model that names the profile of its objects.
pub const MODEL_PROFILE_ATTRIBUTE: &str = "Model Profile";

impl MetaModel {
    /// The meta model every store starts with. Custom attribute types defined at run time
    /// (by a model import or the meta model endpoints) are added to it by the catalog.
    pub fn builtin() -> Self {
        use SystemType as S;
        let profiles = vec![
            profile(
                REPOSITORY_PROFILE,
                "Folders, configurations, versions and models of the repository",
            ),
            profile(
                DATABASE_PROFILE,
                "Relational databases: schemas, tables, views, columns, keys",
            ),
            profile(
                FILE_PROFILE,
                "File systems: directories, files and their fields",
            ),
            profile(
                GLOSSARY_PROFILE,
                "Business glossaries: terms and their references",
            ),
            profile(CUSTOM_PROFILE, "Custom models: objects defined by users"),
            profile(
                PIPELINE_PROFILE,
                "Data pipelines: the jobs OpenLineage events report",
            ),
        ];
        let db = |name: &str, system: SystemType, attrs: &[&str]| {
            object_type(DATABASE_PROFILE, name, system, "Database", attrs)
        };
        let object_types = vec![
            object_type(
                REPOSITORY_PROFILE,
                ObjectKind::Folder.as_str(),
                S::Namespace,
                "Repository",
                &[],
            ),
            object_type(
                REPOSITORY_PROFILE,
                ObjectKind::Configuration.as_str(),
                S::Content,
                "Repository",
                &[],
            ),
            object_type(
                REPOSITORY_PROFILE,
                ObjectKind::ConfigurationVersion.as_str(),
                S::Content,
                "Repository",
                &[],
            ),
            object_type(
                REPOSITORY_PROFILE,
                ObjectKind::Model.as_str(),
                S::Model,
                "Repository",
                &[MODEL_PROFILE_ATTRIBUTE],
            ),
            db("Database", S::Model, &["Database Version"]),
            db("Schema", S::Schema, &[]),
            db("Table", S::Classifier, &["Row Count"]),
            db("View", S::Classifier, &["View Statement"]),
            db(
                "Column",
                S::Feature,
                &["Nullable", "Position", "Length", "Default Value"],
            ),
            db("Primary Key", S::Key, &[]),
            db("Foreign Key", S::Key, &[]),
            db("Index", S::Key, &[]),
            db("Stored Procedure", S::Classifier, &[]),
            object_type(FILE_PROFILE, "Directory", S::Namespace, "File", &[]),
            object_type(FILE_PROFILE, "File", S::Classifier, "File", &["Format"]),
            object_type(FILE_PROFILE, "Field", S::Feature, "File", &["Position"]),
            object_type(GLOSSARY_PROFILE, "Glossary", S::Model, "Glossary", &[]),
            object_type(
                GLOSSARY_PROFILE,
                "Term",
                S::Classifier,
                "Glossary.Term",
                &["Abbreviation", "Example"],
            ),
            object_type(
                CUSTOM_PROFILE,
                "Custom Object",
                S::Classifier,
                "Custom",
                &[],
            ),
            object_type(CUSTOM_PROFILE, "Custom Folder", S::Namespace, "Custom", &[]),
            object_type(
                PIPELINE_PROFILE,
                "Job",
                S::Classifier,
                "Pipeline",
                &["Transformation Logic", "Job Type", "Lineage Updated"],
            ),
        ];
        // The current system attributes of MQL (the deprecated ones are not listed).
        let mut attribute_types: Vec<AttributeType> = catalog::SYSTEM_ATTRIBUTES
            .iter()
            .filter(|a| !a.deprecated)
            .map(|a| AttributeType {
                name: a.name.to_owned(),
                display_name: a.name.to_owned(),
                kind: AttributeKind::System,
                value_type: a.shape.value_type(),
                profile: None,
                group: a.group.to_owned(),
                description: String::new(),
            })
            .collect();
        for (profile, name, value_type) in PROFILE_ATTRIBUTES {
            attribute_types.push(AttributeType {
                name: (*name).to_owned(),
                display_name: (*name).to_owned(),
                kind: AttributeKind::Profile,
                value_type: *value_type,
                profile: Some((*profile).to_owned()),
                group: "Properties".to_owned(),
                description: String::new(),
            });
        }
        for a in catalog::PROFILING_ATTRIBUTES {
            attribute_types.push(AttributeType {
                name: a.name.to_owned(),
                display_name: a.name.to_owned(),
                kind: AttributeKind::DataProfiling,
                value_type: a.shape.value_type(),
                profile: None,
                group: catalog::DATA_PROFILING.to_owned(),
                description: String::new(),
            });
        }
        attribute_types.push(AttributeType {
            name: "Is Defined By".to_owned(),
            display_name: "Is Defined By".to_owned(),
            kind: AttributeKind::CustomRelationship,
            value_type: ValueType::Object,
            profile: None,
            group: "Relationships".to_owned(),
            description: "From an object to the glossary terms that define it".to_owned(),
        });
        Self {
            profiles,
            object_types,
            attribute_types,
        }
    }

    pub fn object_type(&self, name: &TypeName) -> Option<&ObjectType> {
        self.object_types.iter().find(|t| &t.name == name)
    }

    /// Finds an object type by `<profile>.<name>` or, when unambiguous, by its bare name.
    pub fn find_object_type(&self, text: &str) -> Option<&ObjectType> {
        if let Some(t) = TypeName::parse_qualified(text).and_then(|n| self.object_type(&n)) {
            return Some(t);
        }
        let mut by_name = self.object_types.iter().filter(|t| t.name.name == text);
        match (by_name.next(), by_name.next()) {
            (Some(t), None) => Some(t),
            _ => None,
        }
    }

    /// The attribute type of that name, by MQL's precedence of kinds.
    pub fn attribute_type(&self, name: &str) -> Option<&AttributeType> {
        self.attribute_types.iter().find(|a| a.name == name)
    }

    /// The attribute types by name (the first of each name, as [`MetaModel::attribute_type`]
    /// finds it), for lookups in loops over many rows.
    pub fn attribute_index(&self) -> std::collections::HashMap<&str, &AttributeType> {
        let mut index = std::collections::HashMap::with_capacity(self.attribute_types.len());
        for a in &self.attribute_types {
            index.entry(a.name.as_str()).or_insert(a);
        }
        index
    }

    /// Attribute types an object of the given type can carry: system, custom, data
    /// profiling (on features) and the profile attributes the type lists.
    pub fn attributes_of(&self, object_type: &ObjectType) -> Vec<&AttributeType> {
        self.attribute_types
            .iter()
            .filter(|a| match a.kind {
                AttributeKind::System | AttributeKind::Custom | AttributeKind::Udp => true,
                AttributeKind::CustomRelationship => true,
                AttributeKind::DataProfiling => object_type.system_type == SystemType::Feature,
                AttributeKind::Profile | AttributeKind::ProfileRelationship => {
                    a.profile.as_deref() == Some(object_type.name.profile.as_str())
                        && object_type.attributes.iter().any(|n| n == &a.name)
                }
            })
            .collect()
    }

    /// The sorted, distinct search categories of all object types.
    pub fn categories(&self) -> Vec<String> {
        let mut categories: Vec<String> = self
            .object_types
            .iter()
            .map(|t| t.category.clone())
            .collect();
        categories.sort();
        categories.dedup();
        categories
    }
}

fn profile(name: &str, description: &str) -> Profile {
    Profile {
        name: name.to_owned(),
        description: description.to_owned(),
    }
}

fn object_type(
    profile: &str,
    name: &str,
    system_type: SystemType,
    category: &str,
    attributes: &[&str],
) -> ObjectType {
    ObjectType {
        name: TypeName::new(profile, name),
        display_name: name.to_owned(),
        system_type,
        category: category.to_owned(),
        attributes: attributes.iter().map(|a| (*a).to_owned()).collect(),
    }
}

/// Profile attributes of the built-in profiles.
pub const PROFILE_ATTRIBUTES: &[(&str, &str, ValueType)] = &[
    (
        REPOSITORY_PROFILE,
        MODEL_PROFILE_ATTRIBUTE,
        ValueType::String,
    ),
    (DATABASE_PROFILE, "Database Version", ValueType::String),
    (DATABASE_PROFILE, "Row Count", ValueType::Integer),
    (DATABASE_PROFILE, "View Statement", ValueType::String),
    (DATABASE_PROFILE, "Nullable", ValueType::Boolean),
    (DATABASE_PROFILE, "Position", ValueType::Integer),
    (DATABASE_PROFILE, "Length", ValueType::Integer),
    (DATABASE_PROFILE, "Default Value", ValueType::String),
    (FILE_PROFILE, "Format", ValueType::String),
    (FILE_PROFILE, "Position", ValueType::Integer),
    (GLOSSARY_PROFILE, "Abbreviation", ValueType::String),
    (GLOSSARY_PROFILE, "Example", ValueType::String),
    (PIPELINE_PROFILE, "Transformation Logic", ValueType::String),
    (PIPELINE_PROFILE, "Job Type", ValueType::String),
    // The event time of the event the job's lineage was last set from.
    (PIPELINE_PROFILE, "Lineage Updated", ValueType::DateTime),
];
