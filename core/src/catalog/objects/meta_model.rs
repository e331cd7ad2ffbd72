//! The meta model as XML (`POST /repository/metaModel/importXML` and `exportXML`, and the
//! deprecated `GET /repository/customAttributes/{nameOrId}`): the custom attribute
//! types, custom relationships, profile attributes and object types added at run time.
//! The format is documented in `docs/meta-model-xml.md`; what export writes, import
//! reads back to the same definitions.

use serde::{Deserialize, Serialize};

use super::Objects;
use crate::auth::Caller;
use crate::catalog::objects::types::AttributeTypeInfo;
use crate::error::{Error, Result};
use crate::model::{
    AttributeKind, AttributeType, Capability, MetaModel, ObjectType, SystemType, TypeName,
    ValueType,
};
use crate::store::Op;

/// The version of the XML format this binary writes and reads.
pub const META_XML_FORMAT_VERSION: u32 = 1;
/// The most definitions one file may hold.
const MAX_DEFINITIONS: usize = 10_000;
/// The longest name or display name.
const MAX_NAME_CHARS: usize = 200;

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename = "metaModel", deny_unknown_fields)]
struct MetaModelXml {
    #[serde(rename = "@formatVersion")]
    format_version: String,
    #[serde(rename = "attributeType", default)]
    attribute_types: Vec<AttributeTypeXml>,
    #[serde(rename = "objectType", default)]
    object_types: Vec<ObjectTypeXml>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct AttributeTypeXml {
    #[serde(rename = "@name")]
    name: String,
    #[serde(rename = "@kind")]
    kind: String,
    #[serde(rename = "@valueType")]
    value_type: String,
    #[serde(rename = "@profile", default, skip_serializing_if = "Option::is_none")]
    profile: Option<String>,
    #[serde(
        rename = "@displayName",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    display_name: Option<String>,
    #[serde(rename = "@group", default, skip_serializing_if = "Option::is_none")]
    group: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    description: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ObjectTypeXml {
    #[serde(rename = "@profile")]
    profile: String,
    #[serde(rename = "@name")]
    name: String,
    #[serde(
        rename = "@displayName",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    display_name: Option<String>,
    #[serde(rename = "@systemType")]
    system_type: String,
    #[serde(rename = "@category", default, skip_serializing_if = "Option::is_none")]
    category: Option<String>,
    #[serde(rename = "attribute", default)]
    attributes: Vec<AttributeRefXml>,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct AttributeRefXml {
    #[serde(rename = "@name")]
    name: String,
}

/// What an import of meta model XML changed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MetaImportSummary {
    pub attribute_types: DefinitionCounts,
    pub object_types: DefinitionCounts,
}

/// How many definitions of one kind were added, changed or already as the file says.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct DefinitionCounts {
    pub added: u64,
    pub updated: u64,
    pub unchanged: u64,
}

impl DefinitionCounts {
    fn count<T: PartialEq>(&mut self, old: Option<&T>, new: &T) {
        match old {
            None => self.added += 1,
            Some(old) if old == new => self.unchanged += 1,
            Some(_) => self.updated += 1,
        }
    }
}

/// The kinds of attribute types the XML defines.
const DEFINABLE_KINDS: [AttributeKind; 4] = [
    AttributeKind::Custom,
    AttributeKind::CustomRelationship,
    AttributeKind::Profile,
    AttributeKind::Udp,
];

fn checked_name(text: &str, what: &dyn Fn() -> String) -> Result<String> {
    let name = text.trim();
    if name.is_empty() {
        return Err(Error::invalid(format!("{} has an empty name", what())));
    }
    if name.chars().count() > MAX_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(Error::invalid(format!(
            "{}: a name has at most {MAX_NAME_CHARS} characters and no control characters",
            what()
        )));
    }
    Ok(name.to_owned())
}

/// The definitions of a file, checked against themselves and the built-in meta model.
fn parse(bytes: &[u8], builtin: &MetaModel) -> Result<(Vec<AttributeType>, Vec<ObjectType>)> {
    let file = read_file(bytes)?;
    let mut attributes: Vec<AttributeType> = Vec::new();
    for (n, a) in file.attribute_types.iter().enumerate() {
        let attribute = a.definition(n, builtin, &attributes)?;
        attributes.push(attribute);
    }
    let mut object_types: Vec<ObjectType> = Vec::new();
    for (n, t) in file.object_types.iter().enumerate() {
        let object_type = t.definition(n, builtin, &object_types)?;
        object_types.push(object_type);
    }
    Ok((attributes, object_types))
}

/// Reads a file's XML: UTF-8 without a DOCTYPE or entities, of the format version this
/// binary reads and with at most [`MAX_DEFINITIONS`] definitions.
fn read_file(bytes: &[u8]) -> Result<MetaModelXml> {
    let text = std::str::from_utf8(bytes)
        .map_err(|e| Error::invalid(format!("the meta model XML is not UTF-8: {e}")))?;
    if text.contains("<!DOCTYPE") || text.contains("<!ENTITY") {
        return Err(Error::invalid(
            "the meta model XML may not declare a DOCTYPE or entities",
        ));
    }
    let file: MetaModelXml = quick_xml::de::from_str(text)
        .map_err(|e| Error::invalid(format!("the meta model XML is not valid: {e}")))?;
    if file.format_version.trim() != META_XML_FORMAT_VERSION.to_string() {
        return Err(Error::invalid(format!(
            "formatVersion '{}' is not supported; this Lore reads version {META_XML_FORMAT_VERSION}",
            file.format_version
        )));
    }
    if file.attribute_types.len() + file.object_types.len() > MAX_DEFINITIONS {
        return Err(Error::invalid(format!(
            "the file holds more than {MAX_DEFINITIONS} definitions"
        )));
    }
    Ok(file)
}

impl AttributeTypeXml {
    /// The `n`th (from 0) attributeType of a file as a definition, checked against the
    /// built-in attribute types and those `defined` before it.
    fn definition(
        &self,
        n: usize,
        builtin: &MetaModel,
        defined: &[AttributeType],
    ) -> Result<AttributeType> {
        let what = || format!("attributeType {} ('{}')", n + 1, self.name);
        let name = checked_name(&self.name, &what)?;
        let kind = AttributeKind::parse(self.kind.trim())
            .filter(|k| DEFINABLE_KINDS.contains(k))
            .ok_or_else(|| {
                Error::invalid(format!(
                    "{}: kind '{}' is none of {}",
                    what(),
                    self.kind,
                    DEFINABLE_KINDS.map(AttributeKind::as_str).join(", ")
                ))
            })?;
        let value_type = ValueType::parse(self.value_type.trim()).ok_or_else(|| {
            Error::invalid(format!(
                "{}: valueType '{}' is none of String, Integer, Double, Boolean, Date, DateTime, Object",
                what(),
                self.value_type
            ))
        })?;
        if (kind == AttributeKind::CustomRelationship) != (value_type == ValueType::Object) {
            return Err(Error::invalid(format!(
                "{}: a CUSTOM_RELATIONSHIP has valueType Object, and only it",
                what()
            )));
        }
        let profile = self.checked_profile(kind, &what)?;
        if builtin.attribute_types.iter().any(|b| b.name == name) {
            return Err(Error::invalid(format!(
                "{}: '{name}' is a built-in attribute type and cannot be redefined",
                what()
            )));
        }
        if defined.iter().any(|b| b.name == name) {
            return Err(Error::invalid(format!(
                "{}: '{name}' is defined twice",
                what()
            )));
        }
        let display_name = match self.display_name.as_deref().map(str::trim) {
            Some(d) if !d.is_empty() => checked_name(d, &what)?,
            _ => name.clone(),
        };
        let group = self
            .group
            .as_deref()
            .map(str::trim)
            .filter(|g| !g.is_empty())
            .map_or_else(|| default_group(kind).to_owned(), str::to_owned);
        Ok(AttributeType {
            name,
            display_name,
            kind,
            value_type,
            profile,
            group,
            description: self
                .description
                .clone()
                .unwrap_or_default()
                .trim()
                .to_owned(),
        })
    }

    /// The profile of an attribute type of `kind`: named by an ATTRIBUTE (a profile
    /// attribute), and by no other kind.
    fn checked_profile(
        &self,
        kind: AttributeKind,
        what: &dyn Fn() -> String,
    ) -> Result<Option<String>> {
        let profile = self
            .profile
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty());
        match (kind, profile) {
            (AttributeKind::Profile, None) => Err(Error::invalid(format!(
                "{}: an ATTRIBUTE belongs to a profile; name it with profile=\"...\"",
                what()
            ))),
            (AttributeKind::Profile, Some(p)) => Ok(Some(checked_name(p, what)?)),
            (_, Some(_)) => Err(Error::invalid(format!(
                "{}: only an ATTRIBUTE has a profile",
                what()
            ))),
            (_, None) => Ok(None),
        }
    }
}

impl ObjectTypeXml {
    /// The `n`th (from 0) objectType of a file as a definition, checked against the
    /// built-in object types and those `defined` before it.
    fn definition(
        &self,
        n: usize,
        builtin: &MetaModel,
        defined: &[ObjectType],
    ) -> Result<ObjectType> {
        let what = || format!("objectType {} ('{}.{}')", n + 1, self.profile, self.name);
        let name = TypeName::new(
            checked_name(&self.profile, &what)?,
            checked_name(&self.name, &what)?,
        );
        if builtin.object_type(&name).is_some() {
            return Err(Error::invalid(format!(
                "{}: '{}' is a built-in object type and cannot be redefined",
                what(),
                name.qualified()
            )));
        }
        if defined.iter().any(|o| o.name == name) {
            return Err(Error::invalid(format!(
                "{}: '{}' is defined twice",
                what(),
                name.qualified()
            )));
        }
        let system_type = SystemType::parse(self.system_type.trim()).ok_or_else(|| {
            Error::invalid(format!(
                "{}: systemType '{}' is none of {}",
                what(),
                self.system_type,
                SystemType::ALL.map(SystemType::as_str).join(", ")
            ))
        })?;
        let display_name = match self.display_name.as_deref().map(str::trim) {
            Some(d) if !d.is_empty() => checked_name(d, &what)?,
            _ => name.name.clone(),
        };
        let category = match self.category.as_deref().map(str::trim) {
            Some(c) if !c.is_empty() => checked_name(c, &what)?,
            _ => name.profile.clone(),
        };
        let mut carried = Vec::new();
        for attribute in &self.attributes {
            let attribute = checked_name(&attribute.name, &what)?;
            if carried.contains(&attribute) {
                return Err(Error::invalid(format!(
                    "{}: attribute '{attribute}' is listed twice",
                    what()
                )));
            }
            carried.push(attribute);
        }
        Ok(ObjectType {
            name,
            display_name,
            system_type,
            category,
            attributes: carried,
        })
    }
}

fn default_group(kind: AttributeKind) -> &'static str {
    match kind {
        AttributeKind::CustomRelationship => "Relationships",
        AttributeKind::Profile => "Properties",
        _ => "Custom Attributes",
    }
}

fn write(attributes: &[AttributeType], object_types: &[ObjectType]) -> Result<Vec<u8>> {
    let file = MetaModelXml {
        format_version: META_XML_FORMAT_VERSION.to_string(),
        attribute_types: attributes
            .iter()
            .map(|a| AttributeTypeXml {
                name: a.name.clone(),
                kind: a.kind.as_str().to_owned(),
                value_type: a.value_type.as_str().to_owned(),
                profile: a.profile.clone(),
                display_name: (a.display_name != a.name).then(|| a.display_name.clone()),
                group: (a.group != default_group(a.kind)).then(|| a.group.clone()),
                description: Some(a.description.clone()).filter(|d| !d.is_empty()),
            })
            .collect(),
        object_types: object_types
            .iter()
            .map(|t| ObjectTypeXml {
                profile: t.name.profile.clone(),
                name: t.name.name.clone(),
                display_name: (t.display_name != t.name.name).then(|| t.display_name.clone()),
                system_type: t.system_type.as_str().to_owned(),
                category: (t.category != t.name.profile).then(|| t.category.clone()),
                attributes: t
                    .attributes
                    .iter()
                    .map(|a| AttributeRefXml { name: a.clone() })
                    .collect(),
            })
            .collect(),
    };
    let mut text = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let mut serializer = quick_xml::se::Serializer::new(&mut text);
    serializer.indent(' ', 2);
    file.serialize(serializer)
        .map_err(|e| Error::internal(format!("cannot write the meta model as XML: {e}")))?;
    text.push('\n');
    Ok(text.into_bytes())
}

impl Objects<'_> {
    /// `POST /repository/metaModel/importXML`: adds or changes the attribute and object
    /// types a file defines, all in one write or none (Manage Meta Model). A type keeps
    /// its value type once defined: values already stored are of it.
    pub async fn import_meta_model_xml(
        &self,
        caller: &Caller,
        bytes: &[u8],
    ) -> Result<MetaImportSummary> {
        caller.require(Capability::ManageMetaModel)?;
        let builtin = MetaModel::builtin();
        let (attributes, object_types) = parse(bytes, &builtin)?;
        let stored_attributes = self.store.attribute_types().await?;
        let stored_types = self.store.object_types().await?;
        let mut summary = MetaImportSummary::default();
        for a in &attributes {
            let old = stored_attributes.iter().find(|s| s.name == a.name);
            if let Some(old) = old
                && (old.value_type != a.value_type || old.kind != a.kind)
            {
                return Err(Error::conflict(format!(
                    "attribute type '{}' is a {} of {}; it cannot become a {} of {} (values of it may be stored)",
                    a.name,
                    old.kind.as_str(),
                    old.value_type.as_str(),
                    a.kind.as_str(),
                    a.value_type.as_str()
                )));
            }
            summary.attribute_types.count(old, a);
        }
        for t in &object_types {
            for carried in &t.attributes {
                let known = attributes
                    .iter()
                    .chain(&stored_attributes)
                    .chain(&builtin.attribute_types)
                    .any(|a| {
                        &a.name == carried
                            && a.kind == AttributeKind::Profile
                            && a.profile.as_deref() == Some(t.name.profile.as_str())
                    });
                if !known {
                    return Err(Error::invalid(format!(
                        "object type '{}' lists attribute '{carried}', which is no ATTRIBUTE of profile '{}'",
                        t.name.qualified(),
                        t.name.profile
                    )));
                }
            }
            summary
                .object_types
                .count(stored_types.iter().find(|s| s.name == t.name), t);
        }
        let ops: Vec<Op> = attributes
            .into_iter()
            .map(Op::PutAttributeType)
            .chain(object_types.into_iter().map(Op::PutObjectType))
            .collect();
        if !ops.is_empty() {
            self.write(caller.author(), ops).await?;
        }
        Ok(summary)
    }

    /// `POST /repository/metaModel/exportXML`: the definitions added at run time, or
    /// those of one profile (`package`), as XML that importXML reads back (View
    /// Metadata).
    pub async fn export_meta_model_xml(
        &self,
        caller: &Caller,
        package: Option<&str>,
    ) -> Result<Vec<u8>> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let builtin = MetaModel::builtin();
        let mut attributes: Vec<AttributeType> = self
            .store
            .attribute_types()
            .await?
            .into_iter()
            .filter(|a| DEFINABLE_KINDS.contains(&a.kind))
            .filter(|a| !builtin.attribute_types.iter().any(|b| b.name == a.name))
            .collect();
        let mut object_types = self.store.object_types().await?;
        if let Some(package) = package {
            let meta = self.meta_model().await?;
            if !meta.profiles.iter().any(|p| p.name == package) {
                return Err(Error::not_found(format!("no profile '{package}'")));
            }
            attributes.retain(|a| a.profile.as_deref() == Some(package));
            object_types.retain(|t| t.name.profile == package);
        }
        attributes.sort_by(|a, b| a.name.cmp(&b.name));
        object_types.sort_by(|a, b| a.name.cmp(&b.name));
        write(&attributes, &object_types)
    }

    /// Deprecated `GET /repository/customAttributes/{nameOrId}`: one attribute type by
    /// name (its id is its name), with its description (View Metadata).
    pub async fn attribute_type_named(
        &self,
        caller: &Caller,
        name: &str,
    ) -> Result<(AttributeTypeInfo, String)> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let meta = self.meta_model_for(caller).await?;
        let found = meta
            .attribute_type(name)
            .ok_or_else(|| Error::not_found(format!("no attribute type '{name}'")))?;
        Ok((AttributeTypeInfo::from(found), found.description.clone()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<metaModel formatVersion="1">
  <attributeType name="Security Level" kind="CUSTOM_ATTRIBUTE" valueType="String">
    <description>How secret &amp; why.</description>
  </attributeType>
  <objectType profile="BI" name="Report" systemType="Classifier" category="Report">
    <attribute name="Refresh Rate"/>
  </objectType>
  <attributeType name="Refresh Rate" kind="ATTRIBUTE" valueType="Integer" profile="BI" group="Schedule"/>
  <attributeType name="Is Reported By" kind="CUSTOM_RELATIONSHIP" valueType="Object" displayName="Reported By"/>
</metaModel>
"#;

    #[test]
    #[allow(clippy::unwrap_used)]
    fn reads_interleaved_definitions_and_writes_them_back() {
        let builtin = MetaModel::builtin();
        let (mut attributes, object_types) = parse(SAMPLE.as_bytes(), &builtin).unwrap();
        assert_eq!(attributes.len(), 3);
        assert_eq!(attributes[0].description, "How secret & why.");
        assert_eq!(attributes[0].group, "Custom Attributes");
        assert_eq!(attributes[1].profile.as_deref(), Some("BI"));
        assert_eq!(attributes[2].display_name, "Reported By");
        assert_eq!(object_types[0].attributes, ["Refresh Rate"]);
        attributes.sort_by(|a, b| a.name.cmp(&b.name));
        let written = write(&attributes, &object_types).unwrap();
        let (again_attributes, again_types) = parse(&written, &builtin).unwrap();
        assert_eq!(again_attributes, attributes);
        assert_eq!(again_types, object_types);
        assert_eq!(write(&again_attributes, &again_types).unwrap(), written);
    }

    #[test]
    fn refuses_what_it_cannot_keep() {
        let builtin = MetaModel::builtin();
        let refused = |xml: &str| parse(xml.as_bytes(), &builtin).unwrap_err().to_string();
        let wrap = |inner: &str| format!("<metaModel formatVersion=\"1\">{inner}</metaModel>");
        assert!(refused("<metaModel formatVersion=\"2\"/>").contains("formatVersion"));
        assert!(refused("<other/>").contains("not valid"));
        assert!(refused("not xml").contains("not valid"));
        assert!(
            refused(&wrap(
                r#"<attributeType name="Name" kind="CUSTOM_ATTRIBUTE" valueType="String"/>"#
            ))
            .contains("built-in")
        );
        assert!(
            refused(&wrap(
                r#"<attributeType name="A" kind="SYSTEM_ATTRIBUTE" valueType="String"/>"#
            ))
            .contains("kind")
        );
        assert!(
            refused(&wrap(
                r#"<attributeType name="A" kind="CUSTOM_ATTRIBUTE" valueType="Blob"/>"#
            ))
            .contains("valueType")
        );
        assert!(
            refused(&wrap(
                r#"<attributeType name="A" kind="ATTRIBUTE" valueType="String"/>"#
            ))
            .contains("profile")
        );
        assert!(
            refused(&wrap(
                r#"<attributeType name="A" kind="CUSTOM_RELATIONSHIP" valueType="String"/>"#
            ))
            .contains("Object")
        );
        assert!(
            refused(&wrap(
                r#"<attributeType name=" " kind="CUSTOM_ATTRIBUTE" valueType="String"/>"#
            ))
            .contains("empty name")
        );
        assert!(refused(&wrap(r#"<attributeType name="A" kind="CUSTOM_ATTRIBUTE" valueType="String" colour="red"/>"#)).contains("not valid"));
        assert!(
            refused(&wrap(
                r#"<objectType profile="Business Glossary" name="Term" systemType="Classifier"/>"#
            ))
            .contains("built-in")
        );
        assert!(
            refused(&wrap(
                r#"<objectType profile="BI" name="R" systemType="Blob"/>"#
            ))
            .contains("systemType")
        );
        assert!(
            refused("<!DOCTYPE x [<!ENTITY a \"aaaa\">]><metaModel formatVersion=\"1\"/>")
                .contains("DOCTYPE")
        );
    }
}
