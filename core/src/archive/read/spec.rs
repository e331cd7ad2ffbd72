//! The files and columns of the archive format, shared by the reader and the writer.
//! `docs/model-archive.md` documents them.

/// One CSV file of the archive.
#[derive(Debug)]
pub struct FileSpec {
    /// The entry name in the zip.
    pub name: &'static str,
    /// The columns, in the order the writer puts them.
    pub columns: &'static [&'static str],
    /// The columns a header must have; the others may be left out.
    pub required: &'static [&'static str],
}

pub const MODEL: FileSpec = FileSpec {
    name: "model.csv",
    columns: &["format_version", "name", "profile", "description"],
    required: &["format_version", "name", "profile"],
};

pub const OBJECTS: FileSpec = FileSpec {
    name: "objects.csv",
    columns: &[
        "native_id",
        "parent_native_id",
        "object_type",
        "name",
        "physical_name",
        "description",
        "business_name",
        "business_description",
        "data_type",
        "external_url",
        "hide_data",
        "workflow_state",
    ],
    required: &["native_id", "object_type", "name"],
};

pub const ATTRIBUTES: FileSpec = FileSpec {
    name: "attributes.csv",
    columns: &["native_id", "attribute", "value_type", "value"],
    required: &["native_id", "attribute", "value_type", "value"],
};

pub const RELATIONSHIPS: FileSpec = FileSpec {
    name: "relationships.csv",
    columns: &["kind", "name", "source_native_id", "target_native_id"],
    required: &["kind", "name", "source_native_id", "target_native_id"],
};

pub const LABELS: FileSpec = FileSpec {
    name: "labels.csv",
    columns: &["native_id", "kind", "value"],
    required: &["native_id", "kind", "value"],
};

pub const CLASSIFICATIONS: FileSpec = FileSpec {
    name: "classifications.csv",
    columns: &["native_id", "data_class", "status"],
    required: &["native_id", "data_class", "status"],
};

pub const SENSITIVITY_LABELS: FileSpec = FileSpec {
    name: "sensitivity_labels.csv",
    columns: &["native_id", "label", "status"],
    required: &["native_id", "label", "status"],
};

pub const PROFILING: FileSpec = FileSpec {
    name: "profiling.csv",
    columns: &["native_id", "data_profile", "data_sample"],
    required: &["native_id"],
};

pub const CONNECTIONS: FileSpec = FileSpec {
    name: "connections.csv",
    columns: &["name", "target_model"],
    required: &["name", "target_model"],
};

/// Every file of the format, in the order the writer puts them into the zip.
pub const ALL: [&FileSpec; 9] = [
    &MODEL,
    &OBJECTS,
    &ATTRIBUTES,
    &RELATIONSHIPS,
    &LABELS,
    &CLASSIFICATIONS,
    &SENSITIVITY_LABELS,
    &PROFILING,
    &CONNECTIONS,
];
