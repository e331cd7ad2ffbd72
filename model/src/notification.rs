use serde::{Deserialize, Serialize};

use super::Timestamp;
use crate::id::ObjectId;

/// The id space of notifications
/// (`StoreBase::reserve_ids`).
pub const NOTIFICATION_IDS: i64 = -3;

/// The id space of deliveries ([`Delivery`]).
pub const DELIVERY_IDS: i64 = -5;

/// Why a user is notified (spec 6): watchers of a model of its changes, metadata
/// managers of failed imports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum NotificationKind {
    ModelChanged,
    ImportFailed,
    /// A re-import upstream (by lineage) of what the user watches made breaking changes.
    UpstreamChanged,
}

impl NotificationKind {
    pub const ALL: [NotificationKind; 3] = [
        Self::ModelChanged,
        Self::ImportFailed,
        Self::UpstreamChanged,
    ];

    /// The stable name stored in the database and answered to clients.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ModelChanged => "MODEL_CHANGED",
            Self::ImportFailed => "IMPORT_FAILED",
            Self::UpstreamChanged => "UPSTREAM_CHANGED",
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

/// How a delivery goes out.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DeliveryChannel {
    /// A signed HTTP POST to a configured webhook.
    Webhook,
    /// An e-mail to the notified user, over the configured SMTP server.
    Email,
}

impl DeliveryChannel {
    pub const ALL: [DeliveryChannel; 2] = [Self::Webhook, Self::Email];

    /// The stable name stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Webhook => "webhook",
            Self::Email => "email",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// Where a delivery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum DeliveryState {
    /// Not delivered yet: due at `next_attempt_at`.
    Pending,
    Delivered,
    /// Given up after the last attempt the retry policy allows.
    Failed,
}

impl DeliveryState {
    pub const ALL: [DeliveryState; 3] = [Self::Pending, Self::Delivered, Self::Failed];

    /// The stable name stored in the database and answered to clients.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "PENDING",
            Self::Delivered => "DELIVERED",
            Self::Failed => "FAILED",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }
}

/// One message of the outbox: a notification event on its way to a webhook or to a
/// user's e-mail address. Written in the same batch as the notifications it carries, so
/// none is lost when Lore stops before it is sent; sent and retried by the server's
/// sender.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Delivery {
    /// From the [`DELIVERY_IDS`] id space.
    pub id: i64,
    pub channel: DeliveryChannel,
    /// The configured webhook's name, or the e-mail address.
    pub target: String,
    /// What goes out: the webhook's JSON body, or the e-mail's `subject` and `text`.
    pub payload: serde_json::Value,
    pub state: DeliveryState,
    /// Attempts made so far.
    pub attempts: u32,
    /// When it is due (pending), or when a sender's claim on it runs out.
    pub next_attempt_at: Timestamp,
    /// Why the last attempt failed; empty when none did.
    pub last_error: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}
