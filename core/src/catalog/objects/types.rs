//! The meta model as the `/types` endpoints list it.

use serde::{Deserialize, Serialize};

use super::Objects;
use crate::auth::Caller;
use crate::error::{Error, Result};
use crate::model::{AttributeType, MetaModel, ObjectType, SystemType, TypeName};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectTypeInfo {
    /// `<profile>.<type>`.
    pub name: String,
    pub display_name: String,
    pub profile: String,
    pub object_system_type: String,
    pub category: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attribute_types: Option<Vec<AttributeTypeInfo>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttributeTypeInfo {
    pub name: String,
    pub display_name: String,
    /// `SYSTEM_ATTRIBUTE`, `CUSTOM_ATTRIBUTE`, `ATTRIBUTE`, ...
    #[serde(rename = "type")]
    pub kind: String,
    pub value_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<String>,
    pub group: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GroupTypeInfo {
    pub name: String,
    pub attribute_types: Vec<AttributeTypeInfo>,
}

impl From<&AttributeType> for AttributeTypeInfo {
    fn from(a: &AttributeType) -> Self {
        Self {
            name: a.name.clone(),
            display_name: a.display_name.clone(),
            kind: a.kind.as_str().to_owned(),
            value_type: a.value_type.as_str().to_owned(),
            profile: a.profile.clone(),
            group: a.group.clone(),
        }
    }
}

fn object_type_info(meta: &MetaModel, t: &ObjectType, include_attributes: bool) -> ObjectTypeInfo {
    ObjectTypeInfo {
        name: t.name.qualified(),
        display_name: t.display_name.clone(),
        profile: t.name.profile.clone(),
        object_system_type: t.system_type.as_str().to_owned(),
        category: t.category.clone(),
        attribute_types: include_attributes.then(|| {
            meta.attributes_of(t)
                .into_iter()
                .map(AttributeTypeInfo::from)
                .collect()
        }),
    }
}

impl Objects<'_> {
    /// `GET /types/listObjectTypes`: object types, optionally of one profile.
    pub async fn list_object_types(
        &self,
        caller: &Caller,
        profile: Option<&str>,
        include_attributes: bool,
    ) -> Result<Vec<ObjectTypeInfo>> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let meta = self.meta_model_for(caller).await?;
        if let Some(p) = profile.filter(|p| !meta.profiles.iter().any(|known| known.name == *p)) {
            return Err(Error::not_found(format!("profile '{p}' does not exist")));
        }
        Ok(meta
            .object_types
            .iter()
            .filter(|t| profile.is_none_or(|p| t.name.profile == p))
            .map(|t| object_type_info(&meta, t, include_attributes))
            .collect())
    }

    /// The names of the object types of one system type: how a front end tells a column
    /// or a file's field (`Feature`) from a table by its type rather than by its display
    /// name (an entity's [`crate::wire::TypeRef::name`] is the type's qualified name, an
    /// MQL answer's `Object Type` its name).
    pub async fn types_of_system_type(
        &self,
        caller: &Caller,
        system_type: SystemType,
    ) -> Result<Vec<TypeName>> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let meta = self.meta_model_for(caller).await?;
        Ok(meta
            .object_types
            .iter()
            .filter(|t| t.system_type == system_type)
            .map(|t| t.name.clone())
            .collect())
    }

    fn find_type<'m>(meta: &'m MetaModel, object_type: &str) -> Result<&'m ObjectType> {
        meta.find_object_type(object_type)
            .ok_or_else(|| Error::not_found(format!("object type '{object_type}' does not exist (or its bare name is ambiguous; qualify it with its profile)")))
    }

    /// `GET /types/listAttributeTypes`: all attribute types, or those of one object type.
    pub async fn list_attribute_types(
        &self,
        caller: &Caller,
        object_type: Option<&str>,
    ) -> Result<Vec<AttributeTypeInfo>> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let meta = self.meta_model_for(caller).await?;
        Ok(match object_type {
            None => meta
                .attribute_types
                .iter()
                .map(AttributeTypeInfo::from)
                .collect(),
            Some(name) => meta
                .attributes_of(Self::find_type(&meta, name)?)
                .into_iter()
                .map(AttributeTypeInfo::from)
                .collect(),
        })
    }

    /// `GET /types/listGroupTypes`: the attribute groups (of one object type), each with its attribute types.
    pub async fn list_group_types(
        &self,
        caller: &Caller,
        object_type: Option<&str>,
    ) -> Result<Vec<GroupTypeInfo>> {
        let attributes = self.list_attribute_types(caller, object_type).await?;
        let mut groups: Vec<GroupTypeInfo> = Vec::new();
        for a in attributes {
            match groups.iter_mut().find(|g| g.name == a.group) {
                Some(g) => g.attribute_types.push(a),
                None => groups.push(GroupTypeInfo {
                    name: a.group.clone(),
                    attribute_types: vec![a],
                }),
            }
        }
        groups.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(groups)
    }

    /// `GET /types/listProfiles`: profile names.
    pub async fn list_profiles(&self, caller: &Caller) -> Result<Vec<String>> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        Ok(self
            .meta_model_for(caller)
            .await?
            .profiles
            .iter()
            .map(|p| p.name.clone())
            .collect())
    }

    /// `GET /types/listCategories`: search categories.
    pub async fn list_categories(&self, caller: &Caller) -> Result<Vec<String>> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        Ok(self.meta_model_for(caller).await?.categories())
    }
}
