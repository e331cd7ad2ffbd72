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

/// What a role lets its holders do. Global roles carry global capabilities; object roles
/// carry object capabilities, inherited down the repository tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Capability {
    /// Manage users, groups, roles, licenses and the server.
    Administer,
    /// Create, change and delete repository objects and models; import and export.
    ManageRepository,
    /// Manage the meta model, data classes and sensitivity labels.
    ManageMetaModel,
    /// Read objects and their metadata.
    ViewMetadata,
    /// Change the metadata of objects (attributes, links, labels).
    EditMetadata,
    /// See profiled and sampled data of objects marked to hide data.
    ViewData,
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
    /// The roles every store starts with.
    pub fn builtin() -> Vec<Role> {
        use Capability::*;
        vec![
            Role {
                name: ADMINISTRATOR_ROLE.into(),
                description: "Full control of the server".into(),
                global: true,
                capabilities: vec![
                    Administer,
                    ManageRepository,
                    ManageMetaModel,
                    ViewMetadata,
                    EditMetadata,
                    ViewData,
                ],
            },
            Role {
                name: "Repository Manager".into(),
                description: "Creates and imports models and folders".into(),
                global: true,
                capabilities: vec![ManageRepository, ViewMetadata, EditMetadata],
            },
            Role {
                name: "Metadata Viewer".into(),
                description: "Reads metadata".into(),
                global: true,
                capabilities: vec![ViewMetadata],
            },
            Role {
                name: "Steward".into(),
                description: "Maintains the metadata of an object and its subtree".into(),
                global: false,
                capabilities: vec![ViewMetadata, EditMetadata, ViewData],
            },
            Role {
                name: "Data Viewer".into(),
                description: "Sees profiled data of an object and its subtree".into(),
                global: false,
                capabilities: vec![ViewMetadata, ViewData],
            },
        ]
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
    /// [`Catalog::authenticate`](crate::Catalog::authenticate)); the idle timeout
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
