//! Setting attribute values on an object (`PUT /repository/setAttributes` and the
//! deprecated `setCustomAttributes`): custom attributes, profile attributes, UDPs and
//! the documentation system attributes, checked against the meta model, written in one
//! batch or not at all.

use serde_json::Value as Json;

use super::Objects;
use crate::auth::Caller;
use crate::error::{Error, ErrorCode, Result};
use crate::model::{
    AttributeKind, AttributeType, AttributeValue, Capability, MetaModel, Object, Value, ValueType,
};
use crate::store::Op;
use crate::wire::Entity;

/// The system attributes a client may set; every other one is computed or kept by the
/// repository.
pub const WRITABLE_SYSTEM_ATTRIBUTES: [&str; 5] = [
    "Description",
    "Business Name",
    "Business Description",
    "External Url",
    "Hide Data",
];

/// One value to set: the attribute's name, its kind as the client named it
/// (`CUSTOM_ATTRIBUTE`, `SYSTEM_ATTRIBUTE`, `ATTRIBUTE`, `UDP`; absent: any) and the
/// value (`null` or `""` removes it).
#[derive(Debug, Clone, PartialEq)]
pub struct AttributeSetting {
    pub name: String,
    pub kind: Option<String>,
    pub value: Json,
}

impl Objects<'_> {
    /// Sets attribute values on one object (Edit Metadata on it) and answers it. Every
    /// value is checked first: an unknown attribute, one the object's type does not
    /// carry, a read-only system attribute or a value of the wrong type changes nothing.
    pub async fn set_attributes(
        &self,
        caller: &Caller,
        object: &str,
        settings: &[AttributeSetting],
    ) -> Result<Entity> {
        let object = self.find_text(caller, object).await?;
        self.require_on(caller, Capability::EditMetadata, &object)
            .await?;
        let mut object = object.into_object();
        if settings.is_empty() {
            return Err(Error::missing("values"));
        }
        let meta = self.meta_model().await?;
        let mut ops = Vec::new();
        let mut seen: Vec<&str> = Vec::new();
        for setting in settings {
            if seen.contains(&setting.name.as_str()) {
                return Err(Error::invalid(format!(
                    "attribute '{}' is set twice",
                    setting.name
                )));
            }
            seen.push(&setting.name);
            let attribute = attribute_for(&meta, &object, setting)?;
            let value = typed(&attribute, &setting.value)?;
            if attribute.kind == AttributeKind::System {
                set_system(&mut object, &attribute.name, value)?;
            } else {
                ops.push(match value {
                    Some(value) => Op::SetAttribute(AttributeValue {
                        object: object.id,
                        attribute: attribute.name.clone(),
                        value,
                    }),
                    None => Op::RemoveAttribute {
                        object: object.id,
                        attribute: attribute.name.clone(),
                    },
                });
            }
        }
        object.updated_at = crate::model::now();
        object.updated_by = Some(caller.user());
        ops.insert(0, Op::PutObject(object.clone()));
        self.write(caller.author(), ops).await?;
        let names: Vec<&str> = settings.iter().map(|s| s.name.as_str()).collect();
        self.notify_watchers(
            object.id,
            caller.user(),
            format!(
                "{} set {} on '{}' ({})",
                caller.name(),
                names.join(", "),
                object.name,
                object.id
            ),
        )
        .await;
        self.entity(caller, &object).await
    }
}

/// The attribute type a setting names, if the object may carry it.
fn attribute_for(
    meta: &MetaModel,
    object: &Object,
    setting: &AttributeSetting,
) -> Result<AttributeType> {
    let name = setting.name.trim();
    if name.is_empty() {
        return Err(Error::missing("attributeType.name"));
    }
    // A configuration version's pin is set by its own call, which asks its own right.
    if name.eq_ignore_ascii_case(crate::catalog::PIN_ATTRIBUTE) {
        return Err(Error::invalid(format!(
            "attribute '{name}' is a configuration version's pin: set it with PUT \
             /history/configurations/{{configurationId}}/pin"
        )));
    }
    let wanted: Option<Vec<AttributeKind>> = match setting.kind.as_deref().map(str::trim) {
        None | Some("") => None,
        Some(kind) => match AttributeKind::parse(kind) {
            Some(AttributeKind::Profile) => Some(vec![AttributeKind::Profile, AttributeKind::Udp]),
            Some(k @ (AttributeKind::System | AttributeKind::Custom | AttributeKind::Udp)) => {
                Some(vec![k])
            }
            Some(other) => {
                return Err(Error::invalid(format!(
                    "attribute '{name}' is named as {}; setAttributes sets SYSTEM_ATTRIBUTE, \
                     CUSTOM_ATTRIBUTE, ATTRIBUTE and UDP values (relationships have their own \
                     endpoints, data profiling PUT /entities/DataProfiling)",
                    other.as_str()
                )));
            }
            None => {
                return Err(Error::invalid(format!(
                    "attributeType.type '{kind}' is none of SYSTEM_ATTRIBUTE, CUSTOM_ATTRIBUTE, ATTRIBUTE, UDP"
                )));
            }
        },
    };
    let object_type = meta.object_type(&object.object_type);
    let candidates = meta
        .attribute_types
        .iter()
        .filter(|a| a.name == name && wanted.as_ref().is_none_or(|kinds| kinds.contains(&a.kind)));
    let mut found = None;
    for candidate in candidates {
        let carried = match candidate.kind {
            AttributeKind::System | AttributeKind::Custom | AttributeKind::Udp => true,
            AttributeKind::Profile => object_type.is_some_and(|t| {
                candidate.profile.as_deref() == Some(t.name.profile.as_str())
                    && t.attributes.iter().any(|a| a == name)
            }),
            _ => false,
        };
        if carried {
            found = Some(candidate);
            break;
        }
    }
    let Some(attribute) = found else {
        return Err(Error::invalid(format!(
            "{} carries no attribute '{name}'{}; custom attribute types are defined with \
             POST /repository/metaModel/importXML or a model import",
            describe(object),
            setting
                .kind
                .as_deref()
                .map(|k| format!(" of type {k}"))
                .unwrap_or_default()
        )));
    };
    if attribute.kind == AttributeKind::System && !WRITABLE_SYSTEM_ATTRIBUTES.contains(&name) {
        return Err(Error::new(
            ErrorCode::OperationNotSupported,
            format!(
                "system attribute '{name}' is kept by the repository; the ones a client sets are {}",
                WRITABLE_SYSTEM_ATTRIBUTES.join(", ")
            ),
        ));
    }
    Ok(attribute.clone())
}

fn describe(object: &Object) -> String {
    format!(
        "{} '{}' ({})",
        object.object_type.qualified(),
        object.name,
        object.id
    )
}

/// The value as the attribute's type; `None` removes it.
fn typed(attribute: &AttributeType, value: &Json) -> Result<Option<Value>> {
    let wrong = || {
        Error::invalid(format!(
            "value {value} does not fit attribute '{}' of type {}",
            attribute.name,
            attribute.value_type.as_str()
        ))
    };
    let text = match value {
        Json::Null => return Ok(None),
        Json::String(s) if s.is_empty() => return Ok(None),
        Json::String(s) => s.clone(),
        Json::Bool(b) => b.to_string(),
        Json::Number(n) => n.to_string(),
        Json::Array(_) | Json::Object(_) => return Err(wrong()),
    };
    if matches!(value, Json::Bool(_))
        && attribute.value_type != ValueType::Boolean
        && attribute.value_type != ValueType::String
    {
        return Err(wrong());
    }
    if text.chars().count() > 100_000 {
        return Err(Error::invalid(format!(
            "the value of '{}' is longer than 100000 characters",
            attribute.name
        )));
    }
    Value::parse(attribute.value_type, &text)
        .map(Some)
        .ok_or_else(wrong)
}

/// Sets one of [`WRITABLE_SYSTEM_ATTRIBUTES`] on the object.
fn set_system(object: &mut Object, name: &str, value: Option<Value>) -> Result<()> {
    let text = value.as_ref().map(Value::to_text);
    match name {
        "Description" => object.description = text,
        "Business Name" => object.business_name = text,
        "Business Description" => object.business_description = text,
        "External Url" => object.external_url = text,
        "Hide Data" => {
            object.hide_data = match value {
                None => false,
                Some(Value::Boolean(b)) => b,
                Some(other) => {
                    return Err(Error::invalid(format!(
                        "Hide Data is true or false, not {}",
                        other.to_text()
                    )));
                }
            }
        }
        other => {
            return Err(Error::internal(format!(
                "system attribute '{other}' is listed as writable but not written"
            )));
        }
    }
    Ok(())
}
