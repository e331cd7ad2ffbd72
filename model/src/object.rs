use serde::{Deserialize, Serialize};

use super::Timestamp;
use crate::id::ObjectId;

/// What an object is to the repository: a node of the repository tree or an object
/// inside a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum ObjectKind {
    Folder,
    /// A configuration groups versions of models (its contents) that are browsed together.
    Configuration,
    ConfigurationVersion,
    /// A model (single model or multi-model); its objects carry its object number as
    /// their model id.
    Model,
    /// An object inside a model: a schema, table, column, term, ...
    ModelObject,
}

impl ObjectKind {
    pub const ALL: [ObjectKind; 5] = [
        Self::Folder,
        Self::Configuration,
        Self::ConfigurationVersion,
        Self::Model,
        Self::ModelObject,
    ];

    /// The stable name stored in the database and used by `repositoryBrowse`'s `objectTypes`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Folder => "Folder",
            Self::Configuration => "Configuration",
            Self::ConfigurationVersion => "Configuration Version",
            Self::Model => "Model",
            Self::ModelObject => "Model Object",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(s))
    }

    pub fn is_repository(self) -> bool {
        self != Self::ModelObject
    }
}

/// The Object System Type of MQL: the structural role of an object whatever its profile.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum SystemType {
    #[serde(rename = "Entity Group")]
    EntityGroup,
    #[serde(rename = "Relationship Group")]
    RelationshipGroup,
    Classifier,
    Feature,
    Diagram,
    Connection,
    Schema,
    Content,
    System,
    Hierarchy,
    Model,
    Namespace,
    Key,
    #[serde(rename = "Custom Attribute")]
    CustomAttribute,
}

impl SystemType {
    pub const ALL: [SystemType; 14] = [
        Self::EntityGroup,
        Self::RelationshipGroup,
        Self::Classifier,
        Self::Feature,
        Self::Diagram,
        Self::Connection,
        Self::Schema,
        Self::Content,
        Self::System,
        Self::Hierarchy,
        Self::Model,
        Self::Namespace,
        Self::Key,
        Self::CustomAttribute,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::EntityGroup => "Entity Group",
            Self::RelationshipGroup => "Relationship Group",
            Self::Classifier => "Classifier",
            Self::Feature => "Feature",
            Self::Diagram => "Diagram",
            Self::Connection => "Connection",
            Self::Schema => "Schema",
            Self::Content => "Content",
            Self::System => "System",
            Self::Hierarchy => "Hierarchy",
            Self::Model => "Model",
            Self::Namespace => "Namespace",
            Self::Key => "Key",
            Self::CustomAttribute => "Custom Attribute",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|k| k.as_str().eq_ignore_ascii_case(s))
    }
}

/// An object type named by its profile and its own name; clients see
/// `<profile>.<name>`, e.g. `RDBMS Relational Database (Database).Table`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct TypeName {
    pub profile: String,
    pub name: String,
}

impl TypeName {
    pub fn new(profile: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            profile: profile.into(),
            name: name.into(),
        }
    }
    /// Reads `<profile>.<name>`; the split is at the last `.` so profile names may hold dots.
    pub fn parse_qualified(s: &str) -> Option<Self> {
        let (profile, name) = s.rsplit_once('.')?;
        (!profile.is_empty() && !name.is_empty()).then(|| Self::new(profile, name))
    }
    pub fn qualified(&self) -> String {
        format!("{}.{}", self.profile, self.name)
    }
}

/// Any object of the repository: a folder, configuration, version, model or model object.
///
/// The system attributes MQL filters and sorts on are fields here (and indexed columns in
/// the SQL backends); custom attributes and UDPs are [`AttributeValue`](super::AttributeValue)s.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Object {
    pub id: ObjectId,
    pub kind: ObjectKind,
    /// The repository parent of a repository object, or the parent object of a model
    /// object inside its model; `None` at the repository root or a model's top level.
    pub parent: Option<ObjectId>,
    pub object_type: TypeName,
    pub system_type: SystemType,
    pub name: String,
    pub physical_name: Option<String>,
    /// The id the source system gave the object; unique within a model.
    pub native_id: Option<String>,
    /// URL-safe Base64 id that survives re-imports (model objects only).
    pub stable_id: Option<String>,
    pub description: Option<String>,
    pub business_name: Option<String>,
    pub business_description: Option<String>,
    pub data_type: Option<String>,
    pub external_url: Option<String>,
    pub hide_data: bool,
    pub workflow_state: Option<String>,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    /// The user who last changed the object.
    pub updated_by: Option<ObjectId>,
}

impl Object {
    /// A new object with only its identity and names; timestamps are now.
    pub fn new(
        id: ObjectId,
        kind: ObjectKind,
        object_type: TypeName,
        system_type: SystemType,
        name: impl Into<String>,
    ) -> Self {
        let now = super::now();
        Self {
            id,
            kind,
            parent: None,
            object_type,
            system_type,
            name: name.into(),
            physical_name: None,
            native_id: None,
            stable_id: None,
            description: None,
            business_name: None,
            business_description: None,
            data_type: None,
            external_url: None,
            hide_data: false,
            workflow_state: None,
            created_at: now,
            updated_at: now,
            updated_by: None,
        }
    }

    /// The model number whose objects this object holds (models) or belongs to (model objects).
    pub fn model_number(&self) -> Option<i64> {
        match self.kind {
            ObjectKind::Model => Some(self.id.content_model()),
            ObjectKind::ModelObject => Some(self.id.model),
            _ => None,
        }
    }
}

/// The fingerprint of what an import wrote on one object: a stable hash of the parts of
/// the archive that the mask names (see `model_import.rs`), kept so that a re-import of
/// an unchanged object compares one number instead of reading the object back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ImportPrint {
    pub object: ObjectId,
    /// Which parts the print covers, and the version of the hash.
    pub mask: u32,
    pub print: u64,
}

/// A model object as a re-import matches it: by native id (its own number where it
/// has none), with its parent, creation time and import print where the store has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PrintedObject {
    pub id: ObjectId,
    pub native_id: Option<String>,
    pub parent: Option<ObjectId>,
    pub created_at: Timestamp,
    /// The print and its mask.
    pub print: Option<(u32, u64)>,
}
