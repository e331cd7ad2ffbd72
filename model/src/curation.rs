use serde::{Deserialize, Serialize};

use super::Timestamp;
use crate::id::ObjectId;

/// The id space of curation entries
/// (`StoreBase::reserve_ids`).
pub const CURATION_IDS: i64 = -2;

/// What a user says of an object: the social curation MQL filters on (Endorsed By,
/// Certified By, Commented By, Warned By, Watchers and their counts). Ordered as their
/// stored names sort.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum CurationKind {
    Certification,
    Comment,
    Endorsement,
    Warning,
    /// The user is notified of the object's changes (models).
    Watch,
}

impl CurationKind {
    pub const ALL: [CurationKind; 5] = [
        Self::Certification,
        Self::Comment,
        Self::Endorsement,
        Self::Warning,
        Self::Watch,
    ];

    /// The stable name stored in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Endorsement => "endorsement",
            Self::Certification => "certification",
            Self::Comment => "comment",
            Self::Warning => "warning",
            Self::Watch => "watch",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == s)
    }

    /// Whether a user holds at most one of it per object (all but comments and warnings).
    pub fn once_per_user(self) -> bool {
        !matches!(self, Self::Comment | Self::Warning)
    }
}

/// One act of curation: a user endorsing, certifying, commenting on, warning about or
/// watching an object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Curation {
    /// From the [`CURATION_IDS`] id space.
    pub id: i64,
    pub object: ObjectId,
    pub kind: CurationKind,
    pub user: ObjectId,
    /// The text of a comment or warning; empty for the others.
    pub text: String,
    pub at: Timestamp,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kinds_order_as_their_stored_names() {
        let mut names: Vec<&str> = CurationKind::ALL.iter().map(|k| k.as_str()).collect();
        names.sort_unstable();
        let ordered: Vec<&str> = CurationKind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(names, ordered);
        assert!(CurationKind::ALL.windows(2).all(|w| w[0] < w[1]));
        for kind in CurationKind::ALL {
            assert_eq!(CurationKind::parse(kind.as_str()), Some(kind));
        }
    }
}
