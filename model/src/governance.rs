use serde::{Deserialize, Serialize};

use super::Timestamp;
use crate::id::ObjectId;

/// A user account. Users are `-1_<n>` objects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct User {
    pub id: ObjectId,
    pub name: String,
    pub full_name: String,
    pub email: String,
    pub description: String,
    /// argon2id PHC string; `None` for accounts that log in only through OAuth 2.0.
    #[serde(skip_serializing)]
    pub password_hash: Option<String>,
    pub enabled: bool,
    pub created_at: Timestamp,
    /// The identity at an OAuth 2.0 / OpenID Connect provider this account is, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub external: Option<ExternalLink>,
}

/// How a user account is tied to an identity provider's account
/// (`Identity::external_user`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExternalLink {
    /// The provider's account: the token's `iss` and `sub`. A sign-in with these finds
    /// the user whatever name the token carries; no two users share one.
    Subject { issuer: String, subject: String },
    /// Linked at the next sign-in whose name claim names the user (only while the
    /// account has no password): set by an administrator, and by migration 29 on the
    /// accounts without a password that existed before identities were linked by
    /// subject.
    AtNextSignIn,
}

impl std::fmt::Display for ExternalLink {
    /// In words, for people: `subject 's' of https://idp/`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Subject { issuer, subject } => write!(f, "subject '{subject}' of {issuer}"),
            Self::AtNextSignIn => f.write_str("at the next sign-in naming the user"),
        }
    }
}

impl ExternalLink {
    /// The issuer and subject of a made link.
    pub fn subject(&self) -> Option<(&str, &str)> {
        match self {
            Self::Subject { issuer, subject } => Some((issuer, subject)),
            Self::AtNextSignIn => None,
        }
    }
}

/// A group of users. Groups are `-1_<n>` objects, like users; the roles granted to an
/// enabled group hold for each of its members. Members are users (groups do not nest).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Group {
    pub id: ObjectId,
    /// Unique among groups, case-insensitively.
    pub name: String,
    pub description: String,
    /// A disabled group's roles hold for nobody.
    pub enabled: bool,
    pub created_at: Timestamp,
}

/// A user's membership of a group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Membership {
    pub group: ObjectId,
    pub user: ObjectId,
}

/// What a role lets its holders do. Global roles carry their capabilities on the whole
/// server; object roles carry them on the object they are granted on, its subtree of the
/// repository and, for a model, every object of the model. `docs/roles.md` lists which
/// calls need which capability.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Capability {
    /// Manage users, groups, the system log and the server; grant any role.
    Administer,
    /// Define roles and grant and revoke them (only roles whose capabilities the
    /// granter holds where the role is granted).
    ManageRoles,
    /// Create, move and delete folders and models; export models.
    ManageRepository,
    /// Import models and re-import them.
    Import,
    /// Manage the meta model, data classes and sensitivity labels.
    ManageMetaModel,
    /// Read objects and their metadata.
    ViewMetadata,
    /// Change the metadata of objects (attributes, links, labels, classifications).
    EditMetadata,
    /// Endorse, certify, comment on, warn about and move objects through workflow.
    Curate,
    /// See profiled and sampled data of objects marked to hide data.
    ViewData,
    /// Post OpenLineage events (`POST /api/v1/lineage`): what a pipeline's user holds.
    EmitLineage,
}

impl Capability {
    /// Every capability, in order.
    pub const ALL: [Capability; 10] = [
        Capability::Administer,
        Capability::ManageRoles,
        Capability::ManageRepository,
        Capability::Import,
        Capability::ManageMetaModel,
        Capability::ViewMetadata,
        Capability::EditMetadata,
        Capability::Curate,
        Capability::ViewData,
        Capability::EmitLineage,
    ];

    /// The name the API and role CSV files use (the variant's name).
    pub fn as_str(self) -> &'static str {
        match self {
            Capability::Administer => "Administer",
            Capability::ManageRoles => "ManageRoles",
            Capability::ManageRepository => "ManageRepository",
            Capability::Import => "Import",
            Capability::ManageMetaModel => "ManageMetaModel",
            Capability::ViewMetadata => "ViewMetadata",
            Capability::EditMetadata => "EditMetadata",
            Capability::Curate => "Curate",
            Capability::ViewData => "ViewData",
            Capability::EmitLineage => "EmitLineage",
        }
    }

    /// The capability of a name, compared case-insensitively and ignoring spaces, so
    /// `View Data` (the spec's spelling) is `ViewData`.
    pub fn parse(name: &str) -> Option<Capability> {
        let key: String = name
            .chars()
            .filter(|c| !c.is_whitespace() && *c != '_')
            .collect::<String>()
            .to_ascii_lowercase();
        Capability::ALL
            .into_iter()
            .find(|c| c.as_str().to_ascii_lowercase() == key)
    }
}

/// A role: a named set of capabilities.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Role {
    pub name: String,
    pub description: String,
    /// Global roles are granted on the whole server, object roles on an object and its subtree.
    pub global: bool,
    pub capabilities: Vec<Capability>,
}

/// The role every first administrator holds.
pub const ADMINISTRATOR_ROLE: &str = "Administrator";
/// The account created on first start with an empty store.
pub const ADMINISTRATOR_USER: &str = "Administrator";

impl Role {
    /// The roles every store starts with. They cannot be changed or deleted; start-up
    /// brings stored built-in roles up to these definitions.
    pub fn builtin() -> Vec<Role> {
        use Capability::*;
        let role =
            |name: &str, description: &str, global: bool, capabilities: &[Capability]| Role {
                name: name.into(),
                description: description.into(),
                global,
                capabilities: capabilities.to_vec(),
            };
        vec![
            role(
                ADMINISTRATOR_ROLE,
                "Full control of the server",
                true,
                &Capability::ALL,
            ),
            role(
                "Repository Manager",
                "Creates, imports and curates models and folders",
                true,
                &[ManageRepository, Import, ViewMetadata, EditMetadata, Curate],
            ),
            role("Metadata Viewer", "Reads metadata", true, &[ViewMetadata]),
            role(
                "Lineage Emitter",
                "Posts OpenLineage events from pipelines",
                true,
                &[EmitLineage],
            ),
            role(
                "Owner",
                "Manages an object and its subtree, including who may see it",
                false,
                &[
                    ManageRoles,
                    Import,
                    ViewMetadata,
                    EditMetadata,
                    Curate,
                    ViewData,
                ],
            ),
            role(
                "Steward",
                "Maintains the metadata of an object and its subtree",
                false,
                &[ViewMetadata, EditMetadata, Curate, ViewData],
            ),
            role(
                "Data Viewer",
                "Sees metadata and profiled data of an object and its subtree",
                false,
                &[ViewMetadata, ViewData],
            ),
            role(
                "Viewer",
                "Sees the metadata of an object and its subtree",
                false,
                &[ViewMetadata],
            ),
        ]
    }

    /// Whether the role is one of [`Role::builtin`] (by name).
    pub fn is_builtin(name: &str) -> bool {
        Role::builtin().iter().any(|r| r.name == name)
    }
}

/// A role granted to a user or group, globally (`object` is `None`) or on an object.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Grant {
    pub grantee: ObjectId,
    pub role: String,
    pub object: Option<ObjectId>,
}

/// A login session. Only the SHA-256 of the API key is stored, so a leaked database
/// does not leak usable keys.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    pub key_hash: String,
    pub user: ObjectId,
    pub created_at: Timestamp,
    /// The absolute end: the login timeout after `created_at`.
    pub expires_at: Timestamp,
    /// When the key was last seen in use (updated coarsely, see
    /// `Identity::authenticate`); the idle timeout
    /// counts from here.
    pub last_seen_at: Timestamp,
}

/// Failed logins counted against one subject (a user name, a client address, or the
/// pair), for throttling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LoginFailures {
    pub subject: String,
    /// Failures since the counter last started.
    pub failures: u32,
    /// The time of the last failure.
    pub last_at: Timestamp,
}
