//! What MQL knows about attributes before it looks at a meta model: the system attributes
//! of the spec (section 2.4) with their values and operators, the data profiling
//! attributes (2.7), the related object types (2.8), the names of earlier MQL versions
//! (2.5) and the removed filter words (2.6). The validator resolves names against these
//! tables first (system attributes come first in the spec's precedence, 2.9).

/// What an operator of a filter is, without its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpKind {
    Eq,
    Ne,
    EqAny,
    NeAny,
    EqAll,
    NeAll,
    Exists,
    NotExists,
    StartsWith,
    NotStartsWith,
    EndsWith,
    NotEndsWith,
    Contains,
    NotContains,
    Lt,
    Le,
    Gt,
    Ge,
    Between,
    Before,
    After,
}

use OpKind::*;

use crate::ValueType;

/// A set of operators, a bit each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OpSet(u32);

impl OpSet {
    /// The set of these operators.
    pub const fn of(ops: &[OpKind]) -> Self {
        let mut bits = 0;
        let mut i = 0;
        while i < ops.len() {
            bits |= 1 << ops[i] as u32;
            i += 1;
        }
        Self(bits)
    }

    /// This set with the operators of `other`.
    pub const fn and(self, other: Self) -> Self {
        Self(self.0 | other.0)
    }

    pub const fn contains(self, op: OpKind) -> bool {
        self.0 & (1 << op as u32) != 0
    }

    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

const EQ_NE: OpSet = OpSet::of(&[Eq, Ne]);
const EXISTENCE: OpSet = OpSet::of(&[Exists, NotExists]);
const ANY: OpSet = OpSet::of(&[EqAny, NeAny]);
const ALL: OpSet = OpSet::of(&[EqAll, NeAll]);
const TEXT: OpSet = OpSet::of(&[
    StartsWith,
    NotStartsWith,
    EndsWith,
    NotEndsWith,
    Contains,
    NotContains,
]);
const COMPARE: OpSet = OpSet::of(&[Lt, Le, Gt, Ge, Between]);

/// Operator set E: object-valued attributes, only [NOT] EXISTS (and only under AND).
pub const E: OpSet = EXISTENCE;
/// Operator set I: identifiers.
pub const I: OpSet = EQ_NE.and(ANY);
/// Operator set B: booleans.
pub const B: OpSet = EQ_NE.and(EXISTENCE);
/// Operator set M: multi-valued attributes.
pub const M: OpSet = I.and(ALL).and(EXISTENCE);
/// Operator set S: strings.
pub const S: OpSet = M.and(TEXT);
/// Operator set N: numbers.
pub const N: OpSet = EQ_NE.and(COMPARE);
/// No operator: the attribute cannot be a filter.
pub const NONE: OpSet = OpSet::of(&[]);
/// Custom and profile attributes (spec 2.12): S plus the comparisons, BEFORE and AFTER.
pub const CUSTOM: OpSet = S.and(COMPARE).and(OpSet::of(&[Before, After]));
/// UDPs (spec 2.12): no ALL, no comparisons.
pub const UDP: OpSet = I.and(EXISTENCE).and(TEXT);
/// Data profiling attributes (spec 2.7).
pub const PROFILING: OpSet = I.and(EXISTENCE).and(COMPARE);
/// Inferred Data Types: the data profiling set plus = ALL and != ALL.
pub const PROFILING_ARRAY: OpSet = PROFILING.and(ALL);
const CERTIFIED: OpSet = EQ_NE;
const PARENT: OpSet = OpSet::of(&[Eq, EqAny]);
const LABEL: OpSet = I.and(EXISTENCE);
const UPDATED_DATE: OpSet = OpSet::of(&[Eq, Before, After, Between]);

/// The value of an attribute as MQL shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    String,
    Integer,
    Long,
    Double,
    Boolean,
    /// A datetime string in UTC.
    DateTime,
    /// An array of strings.
    Strings,
    /// One user or group.
    Grantee,
    /// An array of users and groups.
    Grantees,
    /// An array of entities.
    Entities,
    /// One sensitivity label with its status.
    Label,
    /// An array of sensitivity labels with their status.
    Labels,
    /// `Column Histogram`.
    Histograms,
    /// `Column Statistics`.
    Statistics,
    /// `Data Profiling`.
    Profile,
    /// `Data Sampling`.
    Sample,
}

impl Shape {
    /// The value type of the meta model's attribute type for this shape.
    pub fn value_type(self) -> ValueType {
        match self {
            Self::String => ValueType::String,
            Self::Integer | Self::Long => ValueType::Integer,
            Self::Double => ValueType::Double,
            Self::Boolean => ValueType::Boolean,
            Self::DateTime => ValueType::DateTime,
            _ => ValueType::Object,
        }
    }

    /// Whether a value of this shape is an array (a multi-valued attribute).
    pub fn is_multi_valued(self) -> bool {
        matches!(
            self,
            Self::Strings | Self::Grantees | Self::Entities | Self::Labels | Self::Histograms
        )
    }

    /// Whether ORDER BY can sort on a value of this shape (scalars only).
    pub fn is_sortable(self) -> bool {
        matches!(
            self,
            Self::String
                | Self::Integer
                | Self::Long
                | Self::Double
                | Self::Boolean
                | Self::DateTime
        )
    }

    /// Whether a value of this shape is an object or an array of objects, which a
    /// filter may only test with [NOT] EXISTS, under AND (spec 2.3).
    pub fn is_object_valued(self) -> bool {
        matches!(
            self,
            Self::Entities | Self::Histograms | Self::Statistics | Self::Profile | Self::Sample
        )
    }
}

/// A system attribute of spec 2.4.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SystemAttribute {
    pub name: &'static str,
    pub shape: Shape,
    /// The operators a filter on it may use; empty when it cannot be a filter.
    pub operators: OpSet,
    /// Filter values are user (and group) names; `ME` is the caller.
    pub takes_principals: bool,
    /// Deprecated by the spec (kept working).
    pub deprecated: bool,
    /// Marked in the spec as slow ("bad performance").
    pub slow: bool,
    /// Evaluated after the search (spec 2.12): a filter on it must be ANDed with the
    /// others, never ORed, also as a related object type.
    pub after_search: bool,
    /// The group it is listed under (`/types/listGroupTypes`).
    pub group: &'static str,
}

const fn attribute(
    name: &'static str,
    shape: Shape,
    operators: OpSet,
    group: &'static str,
) -> SystemAttribute {
    SystemAttribute {
        name,
        shape,
        operators,
        takes_principals: false,
        deprecated: false,
        slow: false,
        after_search: false,
        group,
    }
}

const fn after_search(mut a: SystemAttribute) -> SystemAttribute {
    a.after_search = true;
    a
}

const fn principals(mut a: SystemAttribute) -> SystemAttribute {
    a.takes_principals = true;
    a
}

const fn deprecated_slow(mut a: SystemAttribute) -> SystemAttribute {
    a.deprecated = true;
    a.slow = true;
    a.after_search = true;
    a
}

const fn slow(mut a: SystemAttribute) -> SystemAttribute {
    a.slow = true;
    a.after_search = true;
    a
}

use Shape::*;

/// The system attributes of spec 2.4, in its order (by name).
pub static SYSTEM_ATTRIBUTES: &[SystemAttribute] = &[
    attribute("Business Description", String, S, "Documentation"),
    deprecated_slow(attribute(
        "Business Description Inferred",
        String,
        S,
        "Documentation",
    )),
    deprecated_slow(attribute(
        "Business Description Inferred Origin",
        String,
        S,
        "Documentation",
    )),
    attribute("Business Name", String, S, "Documentation"),
    deprecated_slow(attribute(
        "Business Name Inferred",
        String,
        S,
        "Documentation",
    )),
    deprecated_slow(attribute(
        "Business Name Inferred Origin",
        String,
        S,
        "Documentation",
    )),
    principals(attribute("Certified By", Grantees, M, "Social")),
    attribute("Certified", Boolean, CERTIFIED, "Social"),
    attribute("Children", Strings, S, "Structure"),
    attribute("Collections", Strings, S, "Classification"),
    attribute("Column Histogram", Histograms, E, "Data Profiling"),
    attribute("Column Statistics", Statistics, E, "Data Profiling"),
    attribute("Comment Count", Integer, N, "Social"),
    principals(attribute("Commented By", Grantees, M, "Social")),
    attribute("Content Description", String, NONE, "Structure"),
    attribute("Content Name", String, NONE, "Structure"),
    attribute("Context", Entities, E, "Structure"),
    attribute("Data Classifications", Strings, M, "Classification"),
    attribute(
        "Data Classifications Approved",
        Strings,
        M,
        "Classification",
    ),
    attribute("Data Classifications Matched", Strings, M, "Classification"),
    attribute(
        "Data Classifications Rejected",
        Strings,
        M,
        "Classification",
    ),
    attribute("Data Profiling", Profile, E, "Data Profiling"),
    attribute("Data Sampling", Sample, E, "Data Profiling"),
    attribute("Data Type", String, S, "Properties"),
    attribute("Description", String, S, "Documentation"),
    attribute("Endorsement Count", Integer, N, "Social"),
    principals(attribute("Endorsed By", Grantees, M, "Social")),
    attribute("External Url", String, S, "Properties"),
    attribute("Has Data Impact", Boolean, B, "Lineage"),
    attribute("Has Data Lineage", Boolean, B, "Lineage"),
    attribute("Has Semantic Definition", Boolean, B, "Classification"),
    attribute("Has Semantic Usage", Boolean, B, "Classification"),
    attribute("Hide Data", Boolean, B, "Data Profiling"),
    slow(attribute(
        "Inferred Documentation",
        Entities,
        E,
        "Documentation",
    )),
    attribute("Labels", Strings, M, "Classification"),
    attribute("Last Change Event", String, NONE, "Structure"),
    attribute("Model Id", Integer, I, "Structure"),
    after_search(attribute("My Workflow Tasks", Strings, M, "Workflow")),
    attribute("Name", String, S, "General"),
    attribute("Native Id", String, S, "General"),
    attribute("Object Id", String, I, "General"),
    attribute("Object Profile", String, I, "General"),
    attribute("Object Stable Id", String, I, "General"),
    attribute("Object System Type", String, I, "General"),
    attribute("Object Type", String, I, "General"),
    attribute("Object Type Id", String, I, "General"),
    attribute("Parent", String, PARENT, "Structure"),
    attribute("Physical Name", String, S, "General"),
    attribute("Sensitivity Label", Label, LABEL, "Classification"),
    attribute("Sensitivity Label Approved", Label, LABEL, "Classification"),
    attribute("Sensitivity Labels Matched", Labels, M, "Classification"),
    attribute("Sensitivity Labels Rejected", Labels, M, "Classification"),
    attribute("Term Documentation", Entities, NONE, "Documentation"),
    attribute("Updated By", Grantee, NONE, "General"),
    attribute("Updated Date", DateTime, UPDATED_DATE, "General"),
    attribute("Warning Count", Integer, N, "Social"),
    principals(attribute("Warned By", Grantees, M, "Social")),
    principals(attribute("Watchers", Grantees, M, "Social")),
    after_search(principals(attribute(
        "Workflow Assignees",
        Grantees,
        M,
        "Workflow",
    ))),
    attribute("Workflow Deprecation Requested", Boolean, B, "Workflow"),
    attribute("Workflow State", String, LABEL, "Workflow"),
    attribute("Workflow Published", Boolean, B, "Workflow"),
];

/// The system attribute of that name (names are case-sensitive, as in the spec).
pub fn system_attribute(name: &str) -> Option<&'static SystemAttribute> {
    SYSTEM_ATTRIBUTES.iter().find(|a| a.name == name)
}

/// A data profiling attribute of spec 2.7, written `"Data Profiling".<name>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfilingAttribute {
    pub name: &'static str,
    pub shape: Shape,
    pub operators: OpSet,
}

const fn profiling(name: &'static str, shape: Shape) -> ProfilingAttribute {
    ProfilingAttribute {
        name,
        shape,
        operators: PROFILING,
    }
}

/// The qualifier of data profiling attributes.
pub const DATA_PROFILING: &str = "Data Profiling";

/// The data profiling attributes of spec 2.7.
pub static PROFILING_ATTRIBUTES: &[ProfilingAttribute] = &[
    profiling("Distinct", Long),
    profiling("Duplicate", Long),
    profiling("Valid", Long),
    profiling("Empty", Long),
    profiling("Invalid", Long),
    profiling("Min", Double),
    profiling("Max", Double),
    profiling("Mean", Double),
    profiling("Variance", Double),
    profiling("Median", Double),
    profiling("Lower Quantile", Double),
    profiling("Upper Quantile", Double),
    profiling("Avg Length", Double),
    profiling("Min Length", Integer),
    profiling("Max Length", Integer),
    ProfilingAttribute {
        name: "Inferred Data Types",
        shape: Strings,
        operators: PROFILING_ARRAY,
    },
];

/// The data profiling attribute of that name (the part after `"Data Profiling".`).
pub fn profiling_attribute(name: &str) -> Option<&'static ProfilingAttribute> {
    PROFILING_ATTRIBUTES.iter().find(|a| a.name == name)
}

/// What the properties of a related object type may be (spec 2.8).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Properties {
    /// System, profile, data profiling and custom attributes, custom relationships, UDPs.
    Objects,
    /// As `Objects`, without data profiling attributes (Parent).
    ObjectsWithoutProfiling,
    /// `Name` and `Description` of a data class.
    DataClass,
}

/// A related object type of spec 2.8: a system attribute whose values are other
/// objects, usable as the first part of a path (`Parent."Object Type"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RelatedType {
    pub name: &'static str,
    pub multi_valued: bool,
    pub properties: Properties,
}

/// The related object types of spec 2.8.
pub static RELATED_TYPES: &[RelatedType] = &[
    RelatedType {
        name: "Children",
        multi_valued: true,
        properties: Properties::Objects,
    },
    RelatedType {
        name: "Parent",
        multi_valued: false,
        properties: Properties::ObjectsWithoutProfiling,
    },
    RelatedType {
        name: "Data Classifications",
        multi_valued: true,
        properties: Properties::DataClass,
    },
    RelatedType {
        name: "Data Classifications Approved",
        multi_valued: true,
        properties: Properties::DataClass,
    },
    RelatedType {
        name: "Data Classifications Matched",
        multi_valued: true,
        properties: Properties::DataClass,
    },
    RelatedType {
        name: "Data Classifications Rejected",
        multi_valued: true,
        properties: Properties::DataClass,
    },
    RelatedType {
        name: "Business Description Inferred Origin",
        multi_valued: true,
        properties: Properties::Objects,
    },
    RelatedType {
        name: "Business Name Inferred Origin",
        multi_valued: true,
        properties: Properties::Objects,
    },
];

/// The related object type of that name.
pub fn related_type(name: &str) -> Option<&'static RelatedType> {
    RELATED_TYPES.iter().find(|t| t.name == name)
}

/// The properties of a data class as a related object.
pub const DATA_CLASS_PROPERTIES: [&str; 2] = ["Name", "Description"];

/// What an earlier attribute name (spec 2.5) is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replacement {
    /// Another system attribute, with the same meaning.
    Attribute(&'static str),
    /// An array of user names, now an array of Grantee: the same filter on the new
    /// attribute finds the same objects.
    Grantees(&'static str),
    /// `Term`: the `Is Defined By` relationship, or `Term Documentation` in SELECT.
    Term,
    /// `Stewards`: `MembersOfRole('Steward')` in SELECT, `ExpandedMembersOfRole('Steward')`
    /// in a filter.
    Stewards,
    /// The inferred business name and description: `Inferred Documentation`. Still
    /// answered under their own names (they are deprecated system attributes).
    InferredDocumentation,
}

/// The attribute names of earlier MQL versions (spec 2.5), accepted when `mqlVersion`
/// is below 3 and rewritten by the upgrade.
pub static EARLIER_NAMES: &[(&str, Replacement)] = &[
    (
        "Semantic Types",
        Replacement::Attribute("Data Classifications"),
    ),
    ("Term", Replacement::Term),
    ("Used", Replacement::Attribute("Has Semantic Usage")),
    ("Endorsements", Replacement::Grantees("Endorsed By")),
    ("Comments", Replacement::Grantees("Commented By")),
    ("Certifications", Replacement::Grantees("Certified By")),
    ("Warnings", Replacement::Grantees("Warned By")),
    (
        "Workflow Actions",
        Replacement::Attribute("My Workflow Tasks"),
    ),
    ("Last Modified Date", Replacement::Attribute("Updated Date")),
    ("Stewards", Replacement::Stewards),
];

/// The replacement of an earlier attribute name.
pub fn earlier_name(name: &str) -> Option<Replacement> {
    EARLIER_NAMES
        .iter()
        .find(|(earlier, _)| *earlier == name)
        .map(|(_, replacement)| *replacement)
}

/// The removed filter words of spec 2.6 and the attribute or function that replaces
/// each. A removed word is read as an attribute when one of that name exists.
pub static REMOVED_FILTERS: &[(&str, &str)] = &[
    ("steward", "ExpandedMembersOfRole('Steward')"),
    ("object_type", "Object Type"),
    ("last_modified", "Updated Date"),
    ("label", "Labels"),
    ("semantic_type", "Data Classifications"),
    ("endorsed_by", "Endorsed By"),
    ("certified_by", "Certified By"),
    ("commented_by", "Commented By"),
    ("warned_by", "Warned By"),
];

/// The replacement of a removed filter word (compared case-insensitively).
pub fn removed_filter(word: &str) -> Option<&'static str> {
    REMOVED_FILTERS
        .iter()
        .find(|(removed, _)| removed.eq_ignore_ascii_case(word))
        .map(|(_, replacement)| *replacement)
}

/// The properties `text` and `semantic_search_text` may search WITHIN (spec 2.12).
pub const WITHIN: [&str; 4] = ["Name", "Physical Name", "Description", "Others"];

/// The values of `Object System Type` (spec 2.4).
pub const SYSTEM_TYPES: [&str; 14] = [
    "Entity Group",
    "Relationship Group",
    "Classifier",
    "Feature",
    "Diagram",
    "Connection",
    "Schema",
    "Content",
    "System",
    "Hierarchy",
    "Model",
    "Namespace",
    "Key",
    "Custom Attribute",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_system_attribute_has_one_entry() {
        let mut names: Vec<&str> = SYSTEM_ATTRIBUTES.iter().map(|a| a.name).collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "a system attribute is listed twice");
        assert_eq!(count, 62, "spec 2.4 lists 62 system attributes");
    }

    #[test]
    fn object_valued_attributes_only_test_existence() {
        for attribute in SYSTEM_ATTRIBUTES {
            if attribute.shape.is_object_valued() && !attribute.operators.is_empty() {
                assert_eq!(
                    attribute.operators, E,
                    "{} is object-valued: only [NOT] EXISTS",
                    attribute.name
                );
            }
        }
    }

    #[test]
    fn operator_sets_are_those_of_the_spec() {
        assert!(S.contains(NotStartsWith) && S.contains(EqAll) && !S.contains(Lt));
        assert!(M.contains(NeAll) && !M.contains(Contains));
        assert!(N.contains(Between) && !N.contains(Exists));
        assert!(I.contains(NeAny) && !I.contains(Exists));
        assert!(CUSTOM.contains(Before) && CUSTOM.contains(Ge) && CUSTOM.contains(Contains));
        assert!(!UDP.contains(EqAll) && !UDP.contains(Lt));
        assert!(PROFILING_ARRAY.contains(EqAll) && !PROFILING.contains(EqAll));
        assert!(NONE.is_empty() && E == OpSet::of(&[NotExists, Exists]));
    }

    #[test]
    fn names_resolve_case_sensitively() {
        assert_eq!(
            system_attribute("Name").map(|a| a.shape),
            Some(Shape::String)
        );
        assert!(system_attribute("name").is_none());
        assert_eq!(
            system_attribute("Updated Date").map(|a| a.operators),
            Some(UPDATED_DATE)
        );
        assert!(system_attribute("Certified By").is_some_and(|a| a.takes_principals));
        assert!(system_attribute("Inferred Documentation").is_some_and(|a| a.slow));
    }

    #[test]
    fn profiling_attributes_and_related_types() {
        assert_eq!(
            profiling_attribute("Max").map(|a| a.shape),
            Some(Shape::Double)
        );
        assert_eq!(
            profiling_attribute("Inferred Data Types").map(|a| a.operators),
            Some(PROFILING_ARRAY)
        );
        assert!(profiling_attribute("max").is_none());
        assert!(related_type("Children").is_some_and(|t| t.multi_valued));
        assert!(related_type("Parent").is_some_and(|t| !t.multi_valued));
        for related in RELATED_TYPES {
            assert!(
                system_attribute(related.name).is_some(),
                "related type {} is a system attribute",
                related.name
            );
        }
    }

    #[test]
    fn earlier_names_and_removed_filters_name_current_attributes() {
        for (_, replacement) in EARLIER_NAMES {
            if let Replacement::Attribute(name) | Replacement::Grantees(name) = replacement {
                assert!(system_attribute(name).is_some(), "{name} is current");
            }
        }
        for (_, replacement) in REMOVED_FILTERS {
            assert!(
                replacement.starts_with("ExpandedMembersOfRole")
                    || system_attribute(replacement).is_some(),
                "{replacement} is current"
            );
        }
        assert_eq!(removed_filter("OBJECT_TYPE"), Some("Object Type"));
        assert_eq!(
            earlier_name("Used"),
            Some(Replacement::Attribute("Has Semantic Usage"))
        );
        assert!(earlier_name("Name").is_none());
    }
}
