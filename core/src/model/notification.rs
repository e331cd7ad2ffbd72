use serde::{Deserialize, Serialize};

use super::Timestamp;
use crate::id::ObjectId;

/// The id space of notifications ([`Store::reserve_ids`](crate::store::Store::reserve_ids)).
pub const NOTIFICATION_IDS: i64 = -3;

/// Why a user is notified (spec 6): watchers of a model of its changes, metadata
/// managers of failed imports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum NotificationKind {
    ModelChanged,
    ImportFailed,
}

impl NotificationKind {
    pub const ALL: [NotificationKind; 2] = [Self::ModelChanged, Self::ImportFailed];

    /// The stable name stored in the database and answered to clients.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ModelChanged => "MODEL_CHANGED",
            Self::ImportFailed => "IMPORT_FAILED",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// A notification of one user.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Notification {
    /// From the [`NOTIFICATION_IDS`] id space.
    pub id: i64,
    /// Who it is for.
    pub user: ObjectId,
    pub kind: NotificationKind,
    /// The model it is about.
    pub object: ObjectId,
    pub message: String,
    pub at: Timestamp,
    pub read: bool,
}
