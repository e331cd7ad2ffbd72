//! Object identifiers in every shape clients send: `<model>_<object>`, Base64 stable ids
//! and repository paths.

use std::fmt;
use std::str::FromStr;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::{Error, ErrorCode, Result};

/// The model id of repository objects (folders, models, configurations, versions), users
/// and groups: their identifiers read `-1_<n>`.
pub const REPOSITORY_MODEL: i64 = -1;

/// The identifier of any object: `<model>_<object>`, e.g. `447_16` or `-1_4`.
///
/// Model objects carry the number of their model (the object number of the model's
/// repository object); repository objects, users and groups carry `-1`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ObjectId {
    pub model: i64,
    pub object: i64,
}

impl ObjectId {
    pub const fn new(model: i64, object: i64) -> Self {
        Self { model, object }
    }
    /// A repository object, user or group: `-1_<n>`.
    pub const fn repository(object: i64) -> Self {
        Self::new(REPOSITORY_MODEL, object)
    }
    pub fn is_repository(self) -> bool {
        self.model == REPOSITORY_MODEL
    }
    /// For a model's repository object (`-1_447`), the model number its objects carry (447).
    pub fn content_model(self) -> i64 {
        self.object
    }
}

impl fmt::Display for ObjectId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}", self.model, self.object)
    }
}

impl FromStr for ObjectId {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let bad = || {
            Error::invalid(format!(
                "'{s}' is not an object id of the form <model>_<object>"
            ))
        };
        let (model, object) = s.split_once('_').ok_or_else(bad)?;
        let model: i64 = model.parse().map_err(|_| bad())?;
        let object: i64 = object.parse().map_err(|_| bad())?;
        if object < 0 {
            return Err(bad());
        }
        Ok(Self { model, object })
    }
}

impl Serialize for ObjectId {
    fn serialize<S: Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for ObjectId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}

/// A reference to an object as a client wrote it, before the store resolves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ObjectRef {
    Id(ObjectId),
    /// URL-safe Base64 stable id of a model object.
    StableId(String),
    /// Repository path such as `/Configuration/Published`; `/` is the repository root.
    Path(Vec<String>),
}

impl ObjectRef {
    /// Reads any identifier shape: `/a/b` is a path, `<int>_<int>` an id, anything else
    /// made of URL-safe Base64 characters a stable id.
    pub fn parse(s: &str) -> Result<Self> {
        let s = s.trim();
        if s.is_empty() {
            return Err(Error::invalid("an object identifier must not be empty"));
        }
        if s.starts_with('/') {
            return Ok(Self::Path(split_path(s)?));
        }
        if let Ok(id) = s.parse::<ObjectId>() {
            return Ok(Self::Id(id));
        }
        if looks_like_object_id(s) {
            return Err(Error::invalid(format!(
                "'{s}' is not a valid object id: its numbers are out of range or the object number is negative"
            )));
        }
        if s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'=')
        {
            return Ok(Self::StableId(s.trim_end_matches('=').to_owned()));
        }
        Err(Error::invalid(format!(
            "'{s}' is neither an object id (<model>_<object>), a stable id nor a repository path"
        )))
    }
}

/// `<int>_<int>` with signs: the shape of an object id, even when out of range.
fn looks_like_object_id(s: &str) -> bool {
    let number = |part: &str| {
        let digits = part.strip_prefix('-').unwrap_or(part);
        !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    };
    s.split_once('_')
        .is_some_and(|(model, object)| number(model) && number(object))
}

/// Splits a repository path into its names; `/` gives no names (the root).
/// Names may not be empty, so `//` or a trailing empty segment is refused.
pub fn split_path(path: &str) -> Result<Vec<String>> {
    let trimmed = path.strip_prefix('/').ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidRepositoryPath,
            format!("repository path '{path}' must start with '/'"),
        )
    })?;
    let trimmed = trimmed.strip_suffix('/').unwrap_or(trimmed);
    if trimmed.is_empty() {
        return Ok(Vec::new());
    }
    trimmed
        .split('/')
        .map(|part| {
            if part.is_empty() {
                Err(Error::new(
                    ErrorCode::InvalidRepositoryPath,
                    format!("repository path '{path}' has an empty name"),
                ))
            } else {
                Ok(part.to_owned())
            }
        })
        .collect()
}

/// The stable id of a model object: URL-safe Base64 of its model number and native id,
/// so re-importing a model gives its objects the same stable ids.
pub fn stable_id(model: i64, native_id: &str) -> String {
    URL_SAFE_NO_PAD.encode(format!("{model}:{native_id}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_identifier_shape() {
        assert_eq!(
            ObjectRef::parse("447_16").unwrap(),
            ObjectRef::Id(ObjectId::new(447, 16))
        );
        assert_eq!(
            ObjectRef::parse("-1_4").unwrap(),
            ObjectRef::Id(ObjectId::repository(4))
        );
        assert_eq!(
            ObjectRef::parse("/Configuration/Published").unwrap(),
            ObjectRef::Path(vec!["Configuration".into(), "Published".into()])
        );
        assert_eq!(ObjectRef::parse("/").unwrap(), ObjectRef::Path(vec![]));
        let stable = stable_id(447, "db.schema.table");
        assert_eq!(
            ObjectRef::parse(&stable).unwrap(),
            ObjectRef::StableId(stable.clone())
        );
        assert!(ObjectRef::parse("a b").is_err());
        assert!(ObjectRef::parse("/a//b").is_err());
        assert!("1_-2".parse::<ObjectId>().is_err());
        assert!(ObjectRef::parse("1_-2").is_err());
    }

    #[test]
    fn object_id_round_trips_through_json() {
        let id = ObjectId::new(-1, 7);
        let json = serde_json::to_string(&id).unwrap();
        assert_eq!(json, "\"-1_7\"");
        assert_eq!(serde_json::from_str::<ObjectId>(&json).unwrap(), id);
    }
}
