//! Wire types: the ResponseObject envelope and the legacy entity format.

use serde::{Deserialize, Serialize};

use crate::error::Error;

/// The envelope of every JSON response: `{"result": ...}` on success,
/// `{"result": "", "error": {"errorCode", "message"}}` on failure.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ResponseObject<T> {
    pub result: T,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorBody>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ErrorBody {
    pub error_code: String,
    pub message: String,
    /// Seconds to wait before trying again (also the `Retry-After` header), when the
    /// failure is transient: the database unavailable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retry_after: Option<u64>,
}

impl<T> ResponseObject<T> {
    pub fn ok(result: T) -> Self {
        Self {
            result,
            error: None,
        }
    }
}

impl ResponseObject<String> {
    pub fn failure(error: &Error) -> Self {
        Self {
            result: String::new(),
            error: Some(ErrorBody {
                error_code: error.code.as_str().to_owned(),
                message: error.message.clone(),
                retry_after: error.retry_after(),
            }),
        }
    }
}

/// `{name, displayName}` of an object type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TypeRef {
    pub name: String,
    pub display_name: String,
}

/// `{name, displayName, type}` of an attribute type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttributeTypeRef {
    pub name: String,
    pub display_name: String,
    #[serde(rename = "type")]
    pub kind: String,
}

/// One attribute of an entity.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Attribute {
    pub attribute_type: AttributeTypeRef,
    pub value: serde_json::Value,
}

/// An entity embedded in another's attributes or a list: only id, name and object type.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EmbeddedEntity {
    pub id: String,
    pub name: String,
    pub object_type: TypeRef,
}

/// An entity in the legacy format (REST spec section 2.3).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entity {
    pub id: String,
    pub name: String,
    pub object_type: TypeRef,
    /// Same value as `objectType` (release 11.0 name).
    pub entity_type: TypeRef,
    pub attributes: Vec<Attribute>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
    pub labels: Vec<String>,
    /// The first of `terms`, by name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub term: Option<String>,
    pub terms: Vec<EmbeddedEntity>,
    /// Same value as `dataClassifications` (release 11.0 name).
    pub semantic_types: Vec<String>,
    pub data_classifications: Vec<String>,
}
