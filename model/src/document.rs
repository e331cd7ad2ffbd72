use serde::{Deserialize, Serialize};

use super::Timestamp;
use crate::id::ObjectId;

/// What a [`Document`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DocumentKind {
    /// A user's dashboard definition (`POST /repository/dashboard/import`).
    Dashboard,
    /// The repository's license record (`POST /License/updateLicense`).
    License,
    /// A breaking change announced downstream, and the list of those kept (history).
    Announcement,
}

impl DocumentKind {
    pub const ALL: [DocumentKind; 3] = [Self::Dashboard, Self::License, Self::Announcement];

    /// The stable name stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Dashboard => "dashboard",
            Self::License => "license",
            Self::Announcement => "announcement",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// A JSON document the repository keeps whole: a dashboard definition, the license.
/// Identified by kind, owner and name.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Document {
    pub kind: DocumentKind,
    /// The user it belongs to (deleted with them), or none for the repository's own.
    pub owner: Option<ObjectId>,
    pub name: String,
    pub body: serde_json::Value,
    pub updated_at: Timestamp,
    pub updated_by: Option<ObjectId>,
}
