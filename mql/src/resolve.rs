//! Attribute resolution (spec 2.9): what the name of a SELECT item or filter refers to.
//! A bare name is looked up in the spec's precedence order (system attributes, custom
//! attributes, custom relationships, data profiling attributes, profile attributes,
//! profile relationships, UDPs); a qualified name is a data profiling attribute
//! (`"Data Profiling".Max`), a property of a related object type (`Parent."Object Type"`,
//! one level only) or a profile attribute of one profile
//! (`"RDBMS Relational Database (Database)".Position`). Names are case-sensitive.

use std::fmt;

use super::catalog::{
    self, DATA_CLASS_PROPERTIES, DATA_PROFILING, ProfilingAttribute, Properties, RelatedType,
    SystemAttribute,
};
use lore_model::{AttributeKind, AttributeType, MetaModel};

/// What a name refers to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Resolved<'m> {
    /// A system attribute of spec 2.4.
    System(&'static SystemAttribute),
    /// A data profiling attribute of spec 2.7.
    Profiling(&'static ProfilingAttribute),
    /// A custom attribute, custom relationship, profile attribute, profile relationship
    /// or UDP of the meta model; `profile` when the query qualified it with one.
    Meta {
        attribute: &'m AttributeType,
        profile: Option<&'m str>,
    },
    /// A property of the objects of a related object type.
    Related {
        related: &'static RelatedType,
        property: Property<'m>,
    },
}

/// The property of a related object type's objects.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Property<'m> {
    System(&'static SystemAttribute),
    Profiling(&'static ProfilingAttribute),
    Meta(&'m AttributeType),
    /// `Name` or `Description` of a data class.
    DataClass(&'static str),
}

impl Resolved<'_> {
    /// The kind of attribute it is, as the MQL entity format names it.
    pub fn kind(&self) -> AttributeKind {
        match self {
            Self::System(_) | Self::Related { .. } => AttributeKind::System,
            Self::Profiling(_) => AttributeKind::DataProfiling,
            Self::Meta { attribute, .. } => attribute.kind,
        }
    }
}

/// Why a name refers to nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unresolved {
    /// No attribute of any kind has the name.
    Unknown(String),
    /// `"Data Profiling".<name>` names no data profiling attribute.
    UnknownProfiling(String),
    /// The qualifier is neither `Data Profiling`, a related object type nor a profile.
    UnknownQualifier { qualifier: String, name: String },
    /// The related object type has no such property.
    UnknownProperty { related: String, property: String },
    /// The profile has no attribute or relationship of the name.
    NotInProfile { profile: String, name: String },
    /// More than one qualifier: related object properties go one level deep only.
    TooDeep(Vec<String>),
}

impl fmt::Display for Unresolved {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unknown(name) => write!(
                f,
                "'{name}' is not an attribute: no system, custom, data profiling or profile attribute, relationship or UDP has this name (names are case-sensitive)"
            ),
            Self::UnknownProfiling(name) => {
                let names: Vec<&str> = catalog::PROFILING_ATTRIBUTES
                    .iter()
                    .map(|a| a.name)
                    .collect();
                write!(
                    f,
                    "'{name}' is not a data profiling attribute; they are {}",
                    names.join(", ")
                )
            }
            Self::UnknownQualifier { qualifier, name } => write!(
                f,
                "in '{qualifier}.{name}', '{qualifier}' is neither Data Profiling, a related object type (Parent, Children, Data Classifications, ...) nor a profile"
            ),
            Self::UnknownProperty { related, property } => write!(
                f,
                "'{property}' is not a property of the related object type {related}"
            ),
            Self::NotInProfile { profile, name } => {
                write!(f, "profile '{profile}' has no attribute '{name}'")
            }
            Self::TooDeep(parts) => write!(
                f,
                "'{}' goes more than one level deep; related object properties go one level only",
                parts.join(".")
            ),
        }
    }
}

/// The meta model's attribute types of one kind, in the spec's precedence order after
/// the system attributes (data profiling attributes come from the catalog).
const META_ORDER: [AttributeKind; 5] = [
    AttributeKind::Custom,
    AttributeKind::CustomRelationship,
    AttributeKind::Profile,
    AttributeKind::ProfileRelationship,
    AttributeKind::Udp,
];

/// Resolves a path of one or two names (as written, without quotes or marks).
pub fn resolve<'m>(parts: &[&str], meta: &'m MetaModel) -> Result<Resolved<'m>, Unresolved> {
    match parts {
        [name] => resolve_name(name, meta).ok_or_else(|| Unresolved::Unknown((*name).to_owned())),
        [qualifier, name] => resolve_qualified(qualifier, name, meta),
        _ => Err(Unresolved::TooDeep(
            parts.iter().map(|p| (*p).to_owned()).collect(),
        )),
    }
}

/// A bare name, in precedence order.
fn resolve_name<'m>(name: &str, meta: &'m MetaModel) -> Option<Resolved<'m>> {
    if let Some(system) = catalog::system_attribute(name) {
        return Some(Resolved::System(system));
    }
    let of_kind = |kind: AttributeKind| {
        meta.attribute_types
            .iter()
            .find(|a| a.kind == kind && a.name == name)
    };
    let meta_attribute = |kind| {
        of_kind(kind).map(|attribute| Resolved::Meta {
            attribute,
            profile: None,
        })
    };
    meta_attribute(AttributeKind::Custom)
        .or_else(|| meta_attribute(AttributeKind::CustomRelationship))
        .or_else(|| catalog::profiling_attribute(name).map(Resolved::Profiling))
        .or_else(|| {
            META_ORDER[2..]
                .iter()
                .find_map(|kind| meta_attribute(*kind))
        })
}

fn resolve_qualified<'m>(
    qualifier: &str,
    name: &str,
    meta: &'m MetaModel,
) -> Result<Resolved<'m>, Unresolved> {
    if qualifier == DATA_PROFILING {
        return catalog::profiling_attribute(name)
            .map(Resolved::Profiling)
            .ok_or_else(|| Unresolved::UnknownProfiling(name.to_owned()));
    }
    if let Some(related) = catalog::related_type(qualifier) {
        return related_property(related, name, meta)
            .map(|property| Resolved::Related { related, property });
    }
    if let Some(profile) = meta.profiles.iter().find(|p| p.name == qualifier) {
        return meta
            .attribute_types
            .iter()
            .find(|a| {
                matches!(
                    a.kind,
                    AttributeKind::Profile | AttributeKind::ProfileRelationship
                ) && a.name == name
                    && a.profile.as_deref() == Some(profile.name.as_str())
            })
            .map(|attribute| Resolved::Meta {
                attribute,
                profile: Some(profile.name.as_str()),
            })
            .ok_or_else(|| Unresolved::NotInProfile {
                profile: qualifier.to_owned(),
                name: name.to_owned(),
            });
    }
    Err(Unresolved::UnknownQualifier {
        qualifier: qualifier.to_owned(),
        name: name.to_owned(),
    })
}

/// A property of a related object type (spec 2.8).
fn related_property<'m>(
    related: &'static RelatedType,
    name: &str,
    meta: &'m MetaModel,
) -> Result<Property<'m>, Unresolved> {
    let unknown = || Unresolved::UnknownProperty {
        related: related.name.to_owned(),
        property: name.to_owned(),
    };
    if related.properties == Properties::DataClass {
        return DATA_CLASS_PROPERTIES
            .iter()
            .find(|p| **p == name)
            .map(|p| Property::DataClass(p))
            .ok_or_else(unknown);
    }
    match resolve_name(name, meta).ok_or_else(unknown)? {
        Resolved::System(system) => Ok(Property::System(system)),
        Resolved::Profiling(profiling) if related.properties == Properties::Objects => {
            Ok(Property::Profiling(profiling))
        }
        Resolved::Meta { attribute, .. } => Ok(Property::Meta(attribute)),
        _ => Err(unknown()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_model::{DATABASE_PROFILE, ValueType};

    fn meta() -> MetaModel {
        let mut meta = MetaModel::builtin();
        let custom = |name: &str, kind| AttributeType {
            name: name.to_owned(),
            display_name: name.to_owned(),
            kind,
            value_type: ValueType::String,
            profile: None,
            group: String::new(),
            description: String::new(),
        };
        meta.attribute_types
            .push(custom("Data Owner", AttributeKind::Custom));
        meta.attribute_types
            .push(custom("Legacy Code", AttributeKind::Udp));
        // A custom attribute named like a profile attribute wins over it (2.9).
        meta.attribute_types
            .push(custom("Length", AttributeKind::Custom));
        meta
    }

    fn kind_of(parts: &[&str], meta: &MetaModel) -> Option<AttributeKind> {
        resolve(parts, meta).ok().map(|r| r.kind())
    }

    #[test]
    fn bare_names_follow_the_precedence_order() {
        let meta = meta();
        assert_eq!(kind_of(&["Name"], &meta), Some(AttributeKind::System));
        assert_eq!(kind_of(&["Data Owner"], &meta), Some(AttributeKind::Custom));
        assert_eq!(
            kind_of(&["Is Defined By"], &meta),
            Some(AttributeKind::CustomRelationship)
        );
        assert_eq!(kind_of(&["Max"], &meta), Some(AttributeKind::DataProfiling));
        assert_eq!(kind_of(&["Row Count"], &meta), Some(AttributeKind::Profile));
        assert_eq!(kind_of(&["Legacy Code"], &meta), Some(AttributeKind::Udp));
        assert_eq!(kind_of(&["Length"], &meta), Some(AttributeKind::Custom));
        assert_eq!(
            resolve(&["name"], &meta),
            Err(Unresolved::Unknown("name".into())),
            "names are case-sensitive"
        );
    }

    #[test]
    fn qualified_names() {
        let meta = meta();
        assert!(matches!(
            resolve(&["Data Profiling", "Distinct"], &meta),
            Ok(Resolved::Profiling(p)) if p.name == "Distinct"
        ));
        assert_eq!(
            resolve(&["Data Profiling", "Nope"], &meta),
            Err(Unresolved::UnknownProfiling("Nope".into()))
        );
        assert!(matches!(
            resolve(&["Parent", "Object Type"], &meta),
            Ok(Resolved::Related { related, property: Property::System(a) })
                if related.name == "Parent" && a.name == "Object Type"
        ));
        assert!(matches!(
            resolve(&["Children", "Max"], &meta),
            Ok(Resolved::Related {
                property: Property::Profiling(_),
                ..
            })
        ));
        assert!(
            matches!(
                resolve(&["Parent", "Max"], &meta),
                Err(Unresolved::UnknownProperty { .. })
            ),
            "Parent has no data profiling properties"
        );
        assert!(matches!(
            resolve(&["Data Classifications", "Description"], &meta),
            Ok(Resolved::Related {
                property: Property::DataClass("Description"),
                ..
            })
        ));
        assert!(matches!(
            resolve(&[DATABASE_PROFILE, "Position"], &meta),
            Ok(Resolved::Meta { profile: Some(p), .. }) if p == DATABASE_PROFILE
        ));
        assert_eq!(
            resolve(&[DATABASE_PROFILE, "Format"], &meta),
            Err(Unresolved::NotInProfile {
                profile: DATABASE_PROFILE.into(),
                name: "Format".into()
            })
        );
        assert!(matches!(
            resolve(&["Nowhere", "Name"], &meta),
            Err(Unresolved::UnknownQualifier { .. })
        ));
        assert!(matches!(
            resolve(&["Parent", "Parent", "Name"], &meta),
            Err(Unresolved::TooDeep(_))
        ));
    }

    #[test]
    fn messages_say_what_was_wrong() {
        let meta = meta();
        let message = |parts: &[&str]| resolve(parts, &meta).err().map(|e| e.to_string());
        assert!(message(&["Nme"]).is_some_and(|m| m.contains("'Nme' is not an attribute")));
        assert!(message(&["Data Profiling", "Nope"]).is_some_and(|m| m.contains("Distinct")));
        assert!(message(&["Parent", "Parent", "Name"]).is_some_and(|m| m.contains("one level")));
    }
}
