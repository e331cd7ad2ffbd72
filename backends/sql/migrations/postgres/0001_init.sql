-- Lore's PostgreSQL schema, version 1.
--
-- Every object is keyed by (model_id, object_id): the two numbers of its ObjectId. Tables
-- that hang on an object repeat that pair; there are no foreign keys, so a batch may
-- write in any order and deletes cascade through the store's own set-based DELETEs.
-- Enum-like columns hold the `as_str()` names of the core's enums.

-- Repository objects and model objects. The system attributes MQL filters and sorts on
-- are real columns; `name` compares byte-wise (COLLATE "C"), like Rust's String.
CREATE TABLE objects (
    model_id             BIGINT      NOT NULL,
    object_id            BIGINT      NOT NULL,
    kind                 TEXT        NOT NULL,
    -- the parent's object number; a parent is always in the same id space (model_id)
    parent               BIGINT,
    profile              TEXT        NOT NULL,
    type_name            TEXT        NOT NULL,
    system_type          TEXT        NOT NULL,
    name                 TEXT        COLLATE "C" NOT NULL,
    physical_name        TEXT,
    native_id            TEXT,
    stable_id            TEXT,
    description          TEXT,
    business_name        TEXT,
    business_description TEXT,
    data_type            TEXT,
    external_url         TEXT,
    hide_data            BOOLEAN     NOT NULL DEFAULT FALSE,
    workflow_state       TEXT,
    created_at           TIMESTAMPTZ NOT NULL,
    updated_at           TIMESTAMPTZ NOT NULL,
    updated_by_model     BIGINT,
    updated_by_object    BIGINT,
    PRIMARY KEY (model_id, object_id)
);
CREATE INDEX objects_children ON objects (model_id, parent, name);
-- Names are unique among the children of a repository folder or configuration (and at
-- the root): concurrent creations of the same name cannot both land.
CREATE UNIQUE INDEX objects_repository_name ON objects (COALESCE(parent, -1), name) WHERE model_id = -1;
CREATE UNIQUE INDEX objects_stable_id ON objects (stable_id);
CREATE INDEX objects_kind ON objects (kind);
CREATE INDEX objects_name ON objects (name);

-- Custom attributes, profile attributes and UDPs: one typed value per (object, attribute).
-- Exactly the column named by value_kind is set. Text values are indexed by their first
-- 256 characters (a B-tree entry cannot hold a long view statement), so an equality
-- lookup reads `left(text_value, 256) = left($v, 256) AND text_value = $v`.
CREATE TABLE attribute_values (
    model_id       BIGINT           NOT NULL,
    object_id      BIGINT           NOT NULL,
    attribute      TEXT             NOT NULL,
    value_kind     TEXT             NOT NULL
        CHECK (value_kind IN ('boolean', 'integer', 'double', 'datetime', 'text')),
    text_value     TEXT,
    double_value   DOUBLE PRECISION,
    integer_value  BIGINT,
    boolean_value  BOOLEAN,
    datetime_value TIMESTAMPTZ,
    PRIMARY KEY (model_id, object_id, attribute)
);
CREATE INDEX attribute_values_text ON attribute_values (attribute, left(text_value, 256))
    WHERE text_value IS NOT NULL;
CREATE INDEX attribute_values_integer ON attribute_values (attribute, integer_value)
    WHERE integer_value IS NOT NULL;
CREATE INDEX attribute_values_double ON attribute_values (attribute, double_value)
    WHERE double_value IS NOT NULL;
CREATE INDEX attribute_values_datetime ON attribute_values (attribute, datetime_value)
    WHERE datetime_value IS NOT NULL;
CREATE INDEX attribute_values_boolean ON attribute_values (attribute, boolean_value)
    WHERE boolean_value IS NOT NULL;

-- Directed, named edges of every kind, indexed from both ends.
CREATE TABLE edges (
    kind          TEXT   NOT NULL,
    source_model  BIGINT NOT NULL,
    source_object BIGINT NOT NULL,
    target_model  BIGINT NOT NULL,
    target_object BIGINT NOT NULL,
    name          TEXT   NOT NULL,
    PRIMARY KEY (source_model, source_object, kind, target_model, target_object, name)
);
CREATE INDEX edges_target ON edges (target_model, target_object, kind);

-- Labels and collections.
CREATE TABLE tags (
    model_id  BIGINT NOT NULL,
    object_id BIGINT NOT NULL,
    kind      TEXT   NOT NULL,
    value     TEXT   NOT NULL,
    PRIMARY KEY (model_id, object_id, kind, value)
);
CREATE INDEX tags_value ON tags (kind, value);

CREATE TABLE classifications (
    model_id   BIGINT NOT NULL,
    object_id  BIGINT NOT NULL,
    data_class TEXT   NOT NULL,
    status     TEXT   NOT NULL,
    PRIMARY KEY (model_id, object_id, data_class)
);
CREATE INDEX classifications_data_class ON classifications (data_class);

CREATE TABLE label_assignments (
    model_id  BIGINT NOT NULL,
    object_id BIGINT NOT NULL,
    label     TEXT   NOT NULL,
    status    TEXT   NOT NULL,
    PRIMARY KEY (model_id, object_id, label)
);
CREATE INDEX label_assignments_label ON label_assignments (label);

-- Profiling (DataProfile) and sampling (DataSample) results as JSON.
CREATE TABLE profiling (
    model_id  BIGINT NOT NULL,
    object_id BIGINT NOT NULL,
    profile   JSONB,
    sample    JSONB,
    PRIMARY KEY (model_id, object_id)
);

-- Attribute types added at run time; built-ins come from the binary.
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
    name        TEXT    PRIMARY KEY,
    description TEXT    NOT NULL,
    hide_data   BOOLEAN NOT NULL,
    definition  JSONB   NOT NULL
);

CREATE TABLE sensitivity_labels (
    name             TEXT    PRIMARY KEY,
    position         BIGINT  NOT NULL,
    description      TEXT    NOT NULL,
    foreground_color TEXT    NOT NULL,
    background_color TEXT    NOT NULL,
    hide_data        BOOLEAN NOT NULL
);

CREATE TABLE roles (
    name         TEXT    PRIMARY KEY,
    description  TEXT    NOT NULL,
    global       BOOLEAN NOT NULL,
    capabilities JSONB   NOT NULL
);

-- Users; name_key is the name lowercased by Lore (Unicode-aware, whatever the database
-- locale), so names are unique case-insensitively.
CREATE TABLE users (
    model_id      BIGINT      NOT NULL,
    object_id     BIGINT      NOT NULL,
    name          TEXT        NOT NULL,
    name_key      TEXT        NOT NULL,
    full_name     TEXT        NOT NULL,
    email         TEXT        NOT NULL,
    description   TEXT        NOT NULL,
    password_hash TEXT,
    enabled       BOOLEAN     NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (model_id, object_id)
);
CREATE UNIQUE INDEX users_name_key ON users (name_key);

-- Roles granted to users or groups, globally (no object) or on an object.
CREATE TABLE grants (
    grantee_model  BIGINT NOT NULL,
    grantee_object BIGINT NOT NULL,
    role           TEXT   NOT NULL,
    model_id       BIGINT,
    object_id      BIGINT,
    CHECK ((model_id IS NULL) = (object_id IS NULL))
);
CREATE UNIQUE INDEX grants_global ON grants (grantee_model, grantee_object, role)
    WHERE model_id IS NULL;
CREATE UNIQUE INDEX grants_on_object ON grants (grantee_model, grantee_object, role, model_id, object_id)
    WHERE model_id IS NOT NULL;
CREATE INDEX grants_object ON grants (model_id, object_id);

-- Login sessions, shared by every Lore process over this database.
CREATE TABLE sessions (
    key_hash    TEXT        PRIMARY KEY,
    user_model  BIGINT      NOT NULL,
    user_object BIGINT      NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL,
    expires_at  TIMESTAMPTZ NOT NULL
);
CREATE INDEX sessions_expires_at ON sessions (expires_at);
CREATE INDEX sessions_user ON sessions (user_model, user_object);

-- The next free object number of each id space (model number; -1 for the repository).
CREATE TABLE id_sequences (
    model   BIGINT PRIMARY KEY,
    next_id BIGINT NOT NULL
);
