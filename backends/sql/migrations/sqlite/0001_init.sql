-- The initial SQLite schema of Lore.
--
-- Object ids are two columns (model_id, object_id). A parent is stored as the object
-- number of the parent, which always lives in the same id space (same model_id).
-- Timestamps are INTEGER milliseconds since the Unix epoch, so they compare and sort.
-- Booleans are INTEGER 0 or 1.

-- Every object of the repository: folders, configurations, versions, models and the
-- objects inside models. The system attributes MQL filters and sorts on are columns.
CREATE TABLE objects (
    model_id             INTEGER NOT NULL,
    object_id            INTEGER NOT NULL,
    kind                 TEXT    NOT NULL,
    parent               INTEGER,
    profile              TEXT    NOT NULL,
    type_name            TEXT    NOT NULL,
    system_type          TEXT    NOT NULL,
    name                 TEXT    NOT NULL,
    physical_name        TEXT,
    native_id            TEXT,
    stable_id            TEXT,
    description          TEXT,
    business_name        TEXT,
    business_description TEXT,
    data_type            TEXT,
    external_url         TEXT,
    hide_data            INTEGER NOT NULL DEFAULT 0,
    workflow_state       TEXT,
    created_at           INTEGER NOT NULL,
    updated_at           INTEGER NOT NULL,
    updated_by_model     INTEGER,
    updated_by           INTEGER,
    PRIMARY KEY (model_id, object_id)
);
CREATE INDEX objects_by_parent ON objects (model_id, parent, name);
-- Names are unique among the children of a repository folder or configuration (and at
-- the root): concurrent creations of the same name cannot both land.
CREATE UNIQUE INDEX objects_repository_name ON objects (COALESCE(parent, -1), name) WHERE model_id = -1;
CREATE UNIQUE INDEX objects_by_stable_id ON objects (stable_id) WHERE stable_id IS NOT NULL;
CREATE INDEX objects_by_kind ON objects (kind, name);
CREATE INDEX objects_by_name ON objects (name);

-- Values of custom attributes, profile attributes and UDPs: one row per object and
-- attribute, the value in the column of its kind.
CREATE TABLE attribute_values (
    model_id       INTEGER NOT NULL,
    object_id      INTEGER NOT NULL,
    attribute      TEXT    NOT NULL,
    value_kind     TEXT    NOT NULL
        CHECK (value_kind IN ('text', 'integer', 'double', 'boolean', 'datetime')),
    text_value     TEXT,
    integer_value  INTEGER,
    double_value   REAL,
    boolean_value  INTEGER,
    datetime_value INTEGER,
    PRIMARY KEY (model_id, object_id, attribute),
    CHECK ((value_kind = 'text') = (text_value IS NOT NULL)),
    CHECK ((value_kind = 'integer') = (integer_value IS NOT NULL)),
    CHECK ((value_kind = 'double') = (double_value IS NOT NULL)),
    CHECK ((value_kind = 'boolean') = (boolean_value IS NOT NULL)),
    CHECK ((value_kind = 'datetime') = (datetime_value IS NOT NULL))
) WITHOUT ROWID;
CREATE INDEX attribute_values_by_text ON attribute_values (attribute, text_value)
    WHERE text_value IS NOT NULL;
CREATE INDEX attribute_values_by_integer ON attribute_values (attribute, integer_value)
    WHERE integer_value IS NOT NULL;
CREATE INDEX attribute_values_by_double ON attribute_values (attribute, double_value)
    WHERE double_value IS NOT NULL;
CREATE INDEX attribute_values_by_boolean ON attribute_values (attribute, boolean_value)
    WHERE boolean_value IS NOT NULL;
CREATE INDEX attribute_values_by_datetime ON attribute_values (attribute, datetime_value)
    WHERE datetime_value IS NOT NULL;

-- Directed, named edges of every kind, indexed from both ends.
CREATE TABLE edges (
    source_model  INTEGER NOT NULL,
    source_object INTEGER NOT NULL,
    kind          TEXT    NOT NULL,
    target_model  INTEGER NOT NULL,
    target_object INTEGER NOT NULL,
    name          TEXT    NOT NULL,
    PRIMARY KEY (source_model, source_object, kind, target_model, target_object, name)
) WITHOUT ROWID;
CREATE INDEX edges_by_target ON edges (target_model, target_object, kind);

-- Labels and collections on objects.
CREATE TABLE tags (
    model_id  INTEGER NOT NULL,
    object_id INTEGER NOT NULL,
    kind      TEXT    NOT NULL,
    value     TEXT    NOT NULL,
    PRIMARY KEY (model_id, object_id, kind, value)
) WITHOUT ROWID;
CREATE INDEX tags_by_value ON tags (kind, value);

-- Data classes found on or proposed for objects.
CREATE TABLE classifications (
    model_id   INTEGER NOT NULL,
    object_id  INTEGER NOT NULL,
    data_class TEXT    NOT NULL,
    status     TEXT    NOT NULL,
    PRIMARY KEY (model_id, object_id, data_class)
) WITHOUT ROWID;
CREATE INDEX classifications_by_class ON classifications (data_class, status);

-- Sensitivity labels on objects.
CREATE TABLE label_assignments (
    model_id  INTEGER NOT NULL,
    object_id INTEGER NOT NULL,
    label     TEXT    NOT NULL,
    status    TEXT    NOT NULL,
    PRIMARY KEY (model_id, object_id, label)
) WITHOUT ROWID;
CREATE INDEX label_assignments_by_label ON label_assignments (label, status);

-- Profiling and sampling results as JSON (DataProfile and DataSample shapes).
CREATE TABLE profiling (
    model_id  INTEGER NOT NULL,
    object_id INTEGER NOT NULL,
    profile   TEXT,
    sample    TEXT,
    PRIMARY KEY (model_id, object_id)
);

-- Attribute types added at run time; the built-in ones come from the binary.
CREATE TABLE attribute_types (
    name         TEXT PRIMARY KEY,
    display_name TEXT NOT NULL,
    kind         TEXT NOT NULL,
    value_type   TEXT NOT NULL,
    profile      TEXT,
    group_name   TEXT NOT NULL,
    description  TEXT NOT NULL
);

CREATE TABLE data_classes (
    name        TEXT PRIMARY KEY,
    description TEXT    NOT NULL,
    hide_data   INTEGER NOT NULL,
    definition  TEXT    NOT NULL
);

CREATE TABLE sensitivity_labels (
    name             TEXT PRIMARY KEY,
    position         INTEGER NOT NULL,
    description      TEXT    NOT NULL,
    foreground_color TEXT    NOT NULL,
    background_color TEXT    NOT NULL,
    hide_data        INTEGER NOT NULL
);

-- Roles with their capabilities as a JSON array.
CREATE TABLE roles (
    name         TEXT PRIMARY KEY,
    description  TEXT    NOT NULL,
    global       INTEGER NOT NULL,
    capabilities TEXT    NOT NULL
);

-- User accounts; name_key is the lowercased name, so names are unique regardless of case.
CREATE TABLE users (
    model_id      INTEGER NOT NULL,
    object_id     INTEGER NOT NULL,
    name          TEXT    NOT NULL,
    name_key      TEXT    NOT NULL,
    full_name     TEXT    NOT NULL,
    email         TEXT    NOT NULL,
    description   TEXT    NOT NULL,
    password_hash TEXT,
    enabled       INTEGER NOT NULL,
    created_at    INTEGER NOT NULL,
    PRIMARY KEY (model_id, object_id)
);
CREATE UNIQUE INDEX users_by_name_key ON users (name_key);

-- Roles granted to users and groups, globally (no object) or on an object.
CREATE TABLE grants (
    grantee_model INTEGER NOT NULL,
    grantee       INTEGER NOT NULL,
    role          TEXT    NOT NULL,
    object_model  INTEGER,
    object_id     INTEGER,
    CHECK ((object_model IS NULL) = (object_id IS NULL))
);
-- Object numbers are never negative, so -1 stands for "no object" in the unique key.
CREATE UNIQUE INDEX grants_unique
    ON grants (grantee_model, grantee, role, ifnull(object_model, 0), ifnull(object_id, -1));
CREATE INDEX grants_by_object ON grants (object_model, object_id);

-- Login sessions, keyed by the SHA-256 of the API key.
CREATE TABLE sessions (
    key_hash   TEXT PRIMARY KEY,
    user_model INTEGER NOT NULL,
    user_id    INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    expires_at INTEGER NOT NULL
);
CREATE INDEX sessions_by_expiry ON sessions (expires_at);
CREATE INDEX sessions_by_user ON sessions (user_model, user_id);

-- The next free object number of each id space.
CREATE TABLE id_sequences (
    model   INTEGER PRIMARY KEY,
    next_id INTEGER NOT NULL
);
