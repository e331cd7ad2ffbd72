//! The tables the writer sends rows to in bulk, and those a delete or a clear empties.

use crate::driver::Table;
use crate::value::ColType;

use ColType::{Bool, Int, Real, Text};

const OBJECT_COLUMNS: &[(&str, ColType)] = &[
    ("model_id", Int),
    ("object_id", Int),
    ("kind", Text),
    ("parent", Int),
    ("profile", Text),
    ("type_name", Text),
    ("system_type", Text),
    ("name", Text),
    ("physical_name", Text),
    ("native_id", Text),
    ("stable_id", Text),
    ("description", Text),
    ("business_name", Text),
    ("business_description", Text),
    ("data_type", Text),
    ("external_url", Text),
    ("hide_data", Bool),
    ("workflow_state", Text),
    ("created_at", Int),
    ("updated_at", Int),
    ("updated_by_model", Int),
    ("updated_by_object", Int),
    ("valid_from", Int),
];

pub static OBJECTS: Table = Table {
    name: "objects",
    columns: OBJECT_COLUMNS,
    derived: &[],
    join: "",
    on_conflict: "ON CONFLICT (model_id, object_id) DO UPDATE SET kind = excluded.kind, \
        parent = excluded.parent, profile = excluded.profile, type_name = excluded.type_name, \
        system_type = excluded.system_type, name = excluded.name, \
        physical_name = excluded.physical_name, native_id = excluded.native_id, \
        stable_id = excluded.stable_id, description = excluded.description, \
        business_name = excluded.business_name, business_description = excluded.business_description, \
        data_type = excluded.data_type, external_url = excluded.external_url, \
        hide_data = excluded.hide_data, workflow_state = excluded.workflow_state, \
        created_at = excluded.created_at, updated_at = excluded.updated_at, \
        updated_by_model = excluded.updated_by_model, updated_by_object = excluded.updated_by_object, \
        valid_from = excluded.valid_from \
        WHERE objects.kind IS DISTINCT FROM excluded.kind OR objects.parent IS DISTINCT FROM \
        excluded.parent OR objects.profile IS DISTINCT FROM excluded.profile OR \
        objects.type_name IS DISTINCT FROM excluded.type_name OR objects.system_type IS \
        DISTINCT FROM excluded.system_type OR objects.name IS DISTINCT FROM excluded.name OR \
        objects.physical_name IS DISTINCT FROM excluded.physical_name OR objects.native_id IS \
        DISTINCT FROM excluded.native_id OR objects.stable_id IS DISTINCT FROM \
        excluded.stable_id OR objects.description IS DISTINCT FROM excluded.description OR \
        objects.business_name IS DISTINCT FROM excluded.business_name OR \
        objects.business_description IS DISTINCT FROM excluded.business_description OR \
        objects.data_type IS DISTINCT FROM excluded.data_type OR objects.external_url IS \
        DISTINCT FROM excluded.external_url OR objects.hide_data IS DISTINCT FROM \
        excluded.hide_data OR objects.workflow_state IS DISTINCT FROM excluded.workflow_state \
        OR objects.created_at IS DISTINCT FROM excluded.created_at OR objects.updated_at IS \
        DISTINCT FROM excluded.updated_at OR objects.updated_by_model IS DISTINCT FROM \
        excluded.updated_by_model OR objects.updated_by_object IS DISTINCT FROM \
        excluded.updated_by_object",
};

const ATTRIBUTE_VALUE_COLUMNS: &[(&str, ColType)] = &[
    ("model_id", Int),
    ("object_id", Int),
    ("attribute", Text),
    ("value_kind", Text),
    ("text_value", Text),
    ("integer_value", Int),
    ("double_value", Real),
    ("boolean_value", Bool),
    ("datetime_value", Int),
    ("valid_from", Int),
];

pub static ATTRIBUTE_VALUES: Table = Table {
    name: "attribute_values",
    columns: ATTRIBUTE_VALUE_COLUMNS,
    derived: &[],
    join: "",
    on_conflict: "ON CONFLICT (model_id, object_id, attribute) DO UPDATE SET \
        value_kind = excluded.value_kind, text_value = excluded.text_value, \
        integer_value = excluded.integer_value, double_value = excluded.double_value, \
        boolean_value = excluded.boolean_value, datetime_value = excluded.datetime_value, \
        valid_from = excluded.valid_from \
        WHERE attribute_values.value_kind IS DISTINCT FROM excluded.value_kind OR \
        attribute_values.text_value IS DISTINCT FROM excluded.text_value OR \
        attribute_values.integer_value IS DISTINCT FROM excluded.integer_value OR \
        attribute_values.double_value IS DISTINCT FROM excluded.double_value OR \
        attribute_values.boolean_value IS DISTINCT FROM excluded.boolean_value OR \
        attribute_values.datetime_value IS DISTINCT FROM excluded.datetime_value",
};

/// [`OBJECTS`] and [`ATTRIBUTE_VALUES`] for rows promised new
/// ([`Writer::expect_new_rows`](super::Writer::expect_new_rows)): plain inserts, which a
/// clash fails.
pub(super) static NEW_OBJECTS: Table = Table {
    name: "objects",
    columns: OBJECT_COLUMNS,
    derived: &[],
    join: "",
    on_conflict: "",
};
pub(super) static NEW_ATTRIBUTE_VALUES: Table = Table {
    name: "attribute_values",
    columns: ATTRIBUTE_VALUE_COLUMNS,
    derived: &[],
    join: "",
    on_conflict: "",
};

pub static EDGES: Table = Table {
    name: "edges",
    columns: &[
        ("source_model", Int),
        ("source_object", Int),
        ("kind", Text),
        ("target_model", Int),
        ("target_object", Int),
        ("name", Text),
        ("origin", Text),
        ("valid_from", Int),
    ],
    derived: &[],
    join: "",
    // An edge that is there keeps its origin (`Edge::origin`).
    on_conflict: "ON CONFLICT DO NOTHING",
};

/// Tags carry their value folded, their object's folded type and name, and whether they
/// are the first of the object's tags whose values fold alike (migration 21): the writer
/// inserts a tag after its object, and no two tags of one such group in one statement
/// ([`Writer`](super::Writer)'s `flush_tags`).
pub static TAGS: Table = Table {
    name: "tags",
    columns: &[
        ("model_id", Int),
        ("object_id", Int),
        ("kind", Text),
        ("value", Text),
        ("valid_from", Int),
    ],
    derived: &[
        ("value_fold", "{fold}(v.value)"),
        ("type_fold", "{fold}(o.type_name)"),
        ("object_name", "o.name"),
        (
            "fold_first",
            "NOT EXISTS (SELECT 1 FROM tags d WHERE d.model_id = v.model_id \
             AND d.object_id = v.object_id AND d.kind = v.kind AND d.value_fold = {fold}(v.value))",
        ),
    ],
    join: "LEFT JOIN objects o ON o.model_id = v.model_id AND o.object_id = v.object_id",
    on_conflict: "ON CONFLICT DO NOTHING",
};

/// Import prints: written last by an import, forgotten by the triggers of
/// `0020_import_prints.sql` when their object changes.
pub(super) static IMPORT_PRINTS: Table = Table {
    name: "import_prints",
    columns: &[
        ("model_id", Int),
        ("object_id", Int),
        ("mask", Int),
        ("print", Int),
    ],
    derived: &[],
    join: "",
    on_conflict: "ON CONFLICT (model_id, object_id) DO UPDATE SET mask = excluded.mask, \
        print = excluded.print",
};

/// The tables that hang on an object through (model_id, object_id).
pub(super) const HANGING_TABLES: [&str; 10] = [
    "attribute_values",
    "tags",
    "classifications",
    "label_assignments",
    "profiling",
    "grants",
    "import_settings",
    "attachments",
    "curation",
    "import_prints",
];

/// Every table [`Op::ClearAll`](lore_core::store::Op::ClearAll) empties, with its
/// statement: all but the system log and the schema's own bookkeeping.
pub(super) const CLEARED_TABLES: [(&str, &str); 41] = [
    ("objects", "DELETE FROM objects"),
    ("attribute_values", "DELETE FROM attribute_values"),
    ("edges", "DELETE FROM edges"),
    ("tags", "DELETE FROM tags"),
    ("classifications", "DELETE FROM classifications"),
    ("label_assignments", "DELETE FROM label_assignments"),
    ("profiling", "DELETE FROM profiling"),
    ("attribute_types", "DELETE FROM attribute_types"),
    ("object_types", "DELETE FROM object_types"),
    ("data_classes", "DELETE FROM data_classes"),
    ("sensitivity_labels", "DELETE FROM sensitivity_labels"),
    ("roles", "DELETE FROM roles"),
    ("users", "DELETE FROM users"),
    ("user_groups", "DELETE FROM user_groups"),
    ("group_members", "DELETE FROM group_members"),
    ("grants", "DELETE FROM grants"),
    ("sessions", "DELETE FROM sessions"),
    ("login_failures", "DELETE FROM login_failures"),
    ("worksheets", "DELETE FROM worksheets"),
    ("notifications", "DELETE FROM notifications"),
    ("deliveries", "DELETE FROM deliveries"),
    ("curation", "DELETE FROM curation"),
    ("documents", "DELETE FROM documents"),
    ("operations", "DELETE FROM operations"),
    ("operation_log", "DELETE FROM operation_log"),
    ("import_settings", "DELETE FROM import_settings"),
    ("attachments", "DELETE FROM attachments"),
    ("id_sequences", "DELETE FROM id_sequences"),
    ("import_prints", "DELETE FROM import_prints"),
    ("lineage_events", "DELETE FROM lineage_events"),
    ("lineage_runs", "DELETE FROM lineage_runs"),
    ("catalog_versions", "DELETE FROM catalog_versions"),
    ("import_versions", "DELETE FROM import_versions"),
    ("objects_history", "DELETE FROM objects_history"),
    (
        "attribute_values_history",
        "DELETE FROM attribute_values_history",
    ),
    ("edges_history", "DELETE FROM edges_history"),
    ("tags_history", "DELETE FROM tags_history"),
    (
        "classifications_history",
        "DELETE FROM classifications_history",
    ),
    (
        "label_assignments_history",
        "DELETE FROM label_assignments_history",
    ),
    ("curation_history", "DELETE FROM curation_history"),
    ("grants_history", "DELETE FROM grants_history"),
];
