-- Lore's schema, one text for SQLite and PostgreSQL (see Dialect::schema for the words
-- in braces). It replaces the per-dialect version 1 of the pre-release.
--
-- Every object is keyed by (model_id, object_id), the two numbers of its ObjectId; what
-- hangs on an object repeats that pair. There are no foreign keys: a batch may write in
-- any order, and deletes cascade through the store's own statements.
-- Timestamps are BIGINT microseconds since the Unix epoch, UTC. Text columns compare and
-- order byte-wise. Enum-like columns hold the `as_str()` names of the core's enums.
-- Booleans are BOOLEAN (0 or 1 on SQLite).

-- Repository objects and model objects. The system attributes MQL filters and sorts on
-- are real columns.
CREATE TABLE objects (
    model_id             BIGINT  NOT NULL,
    object_id            BIGINT  NOT NULL,
    kind                 {text}  NOT NULL,
    -- the parent's object number; a parent is always in the same id space (model_id)
    parent               BIGINT,
    profile              {text}  NOT NULL,
    type_name            {text}  NOT NULL,
    system_type          {text}  NOT NULL,
    name                 {text}  NOT NULL,
    physical_name        {text},
    native_id            {text},
    stable_id            {text},
    description          {text},
    business_name        {text},
    business_description {text},
    data_type            {text},
    external_url         {text},
    hide_data            BOOLEAN NOT NULL,
    workflow_state       {text},
    created_at           BIGINT  NOT NULL,
    updated_at           BIGINT  NOT NULL,
    updated_by_model     BIGINT,
    updated_by_object    BIGINT,
    PRIMARY KEY (model_id, object_id),
    CHECK ((updated_by_model IS NULL) = (updated_by_object IS NULL))
);
CREATE INDEX objects_children ON objects (model_id, parent, name);
-- Names are unique among the children of a repository folder or configuration (and at
-- the root): concurrent creations of the same name cannot both land.
CREATE UNIQUE INDEX objects_repository_name ON objects (COALESCE(parent, -1), name) WHERE model_id = -1;
CREATE UNIQUE INDEX objects_stable_id ON objects (stable_id) WHERE stable_id IS NOT NULL;
CREATE INDEX objects_native_id ON objects (model_id, native_id) WHERE native_id IS NOT NULL;
CREATE INDEX objects_kind ON objects (kind, name);
CREATE INDEX objects_name ON objects (name);

-- Custom attributes, profile attributes and UDPs: one typed value per (object,
-- attribute); exactly the column named by value_kind is set. Text values are indexed by
-- their first 256 characters, so an index entry stays small for a long view statement.
CREATE TABLE attribute_values (
    model_id       BIGINT NOT NULL,
    object_id      BIGINT NOT NULL,
    attribute      {text} NOT NULL,
    value_kind     {text} NOT NULL
        CHECK (value_kind IN ('text', 'integer', 'double', 'boolean', 'datetime')),
    text_value     {text},
    integer_value  BIGINT,
    double_value   DOUBLE PRECISION,
    boolean_value  BOOLEAN,
    datetime_value BIGINT,
    PRIMARY KEY (model_id, object_id, attribute),
    CHECK ((value_kind = 'text') = (text_value IS NOT NULL)),
    CHECK ((value_kind = 'integer') = (integer_value IS NOT NULL)),
    CHECK ((value_kind = 'double') = (double_value IS NOT NULL)),
    CHECK ((value_kind = 'boolean') = (boolean_value IS NOT NULL)),
    CHECK ((value_kind = 'datetime') = (datetime_value IS NOT NULL))
) {without_rowid};
CREATE INDEX attribute_values_text ON attribute_values (attribute, substr(text_value, 1, 256))
    WHERE text_value IS NOT NULL;
CREATE INDEX attribute_values_integer ON attribute_values (attribute, integer_value)
    WHERE integer_value IS NOT NULL;
CREATE INDEX attribute_values_double ON attribute_values (attribute, double_value)
    WHERE double_value IS NOT NULL;
CREATE INDEX attribute_values_boolean ON attribute_values (attribute, boolean_value)
    WHERE boolean_value IS NOT NULL;
CREATE INDEX attribute_values_datetime ON attribute_values (attribute, datetime_value)
    WHERE datetime_value IS NOT NULL;

-- Directed, named edges of every kind, indexed from both ends.
CREATE TABLE edges (
    source_model  BIGINT NOT NULL,
    source_object BIGINT NOT NULL,
    kind          {text} NOT NULL,
    target_model  BIGINT NOT NULL,
    target_object BIGINT NOT NULL,
    name          {text} NOT NULL,
    PRIMARY KEY (source_model, source_object, kind, target_model, target_object, name)
) {without_rowid};
CREATE INDEX edges_target ON edges (target_model, target_object, kind);

-- Labels and collections.
CREATE TABLE tags (
    model_id  BIGINT NOT NULL,
    object_id BIGINT NOT NULL,
    kind      {text} NOT NULL,
    value     {text} NOT NULL,
    PRIMARY KEY (model_id, object_id, kind, value)
) {without_rowid};
CREATE INDEX tags_value ON tags (kind, value);

-- Data classes found on or proposed for objects.
CREATE TABLE classifications (
    model_id   BIGINT NOT NULL,
    object_id  BIGINT NOT NULL,
    data_class {text} NOT NULL,
    status     {text} NOT NULL,
    PRIMARY KEY (model_id, object_id, data_class)
) {without_rowid};
CREATE INDEX classifications_data_class ON classifications (data_class, status);

-- Sensitivity labels on objects.
CREATE TABLE label_assignments (
    model_id  BIGINT NOT NULL,
    object_id BIGINT NOT NULL,
    label     {text} NOT NULL,
    status    {text} NOT NULL,
    PRIMARY KEY (model_id, object_id, label)
) {without_rowid};
CREATE INDEX label_assignments_label ON label_assignments (label, status);

-- Profiling (DataProfile) and sampling (DataSample) results as JSON text.
CREATE TABLE profiling (
    model_id  BIGINT NOT NULL,
    object_id BIGINT NOT NULL,
    profile   {text},
    sample    {text},
    PRIMARY KEY (model_id, object_id)
);

-- Attribute types added at run time; built-ins come from the binary.
CREATE TABLE attribute_types (
    name         {text} PRIMARY KEY,
    display_name {text} NOT NULL,
    kind         {text} NOT NULL,
    value_type   {text} NOT NULL,
    profile      {text},
    group_name   {text} NOT NULL,
    description  {text} NOT NULL
);

CREATE TABLE data_classes (
    name        {text}  PRIMARY KEY,
    description {text}  NOT NULL,
    hide_data   BOOLEAN NOT NULL,
    definition  {text}  NOT NULL
);

CREATE TABLE sensitivity_labels (
    name             {text}  PRIMARY KEY,
    position         BIGINT  NOT NULL,
    description      {text}  NOT NULL,
    foreground_color {text}  NOT NULL,
    background_color {text}  NOT NULL,
    hide_data        BOOLEAN NOT NULL
);

-- Roles with their capabilities as a JSON array.
CREATE TABLE roles (
    name         {text}  PRIMARY KEY,
    description  {text}  NOT NULL,
    global       BOOLEAN NOT NULL,
    capabilities {text}  NOT NULL
);

-- Users; name_key is the name lowercased by Lore (Unicode-aware, whatever the database
-- locale), so names are unique case-insensitively.
CREATE TABLE users (
    model_id      BIGINT  NOT NULL,
    object_id     BIGINT  NOT NULL,
    name          {text}  NOT NULL,
    name_key      {text}  NOT NULL,
    full_name     {text}  NOT NULL,
    email         {text}  NOT NULL,
    description   {text}  NOT NULL,
    password_hash {text},
    enabled       BOOLEAN NOT NULL,
    created_at    BIGINT  NOT NULL,
    PRIMARY KEY (model_id, object_id)
);
CREATE UNIQUE INDEX users_name_key ON users (name_key);

-- Roles granted to users or groups, globally (no object) or on an object. Object
-- numbers are never negative, so -1 stands for "no object" in the unique key.
CREATE TABLE grants (
    grantee_model  BIGINT NOT NULL,
    grantee_object BIGINT NOT NULL,
    role           {text} NOT NULL,
    model_id       BIGINT,
    object_id      BIGINT,
    CHECK ((model_id IS NULL) = (object_id IS NULL))
);
CREATE UNIQUE INDEX grants_unique
    ON grants (grantee_model, grantee_object, role, COALESCE(model_id, 0), COALESCE(object_id, -1));
CREATE INDEX grants_object ON grants (model_id, object_id);

-- Login sessions, keyed by the SHA-256 of the API key, shared by every Lore process
-- over this database.
CREATE TABLE sessions (
    key_hash    {text} PRIMARY KEY,
    user_model  BIGINT NOT NULL,
    user_object BIGINT NOT NULL,
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL
);
CREATE INDEX sessions_expires_at ON sessions (expires_at);
CREATE INDEX sessions_user ON sessions (user_model, user_object);

-- The next free object number of each id space (model number; -1 for the repository).
CREATE TABLE id_sequences (
    model   BIGINT PRIMARY KEY,
    next_id BIGINT NOT NULL
);

-- Counters that change with what processes cache: 'meta' moves with every write to the
-- meta model and governance definitions (attribute types, data classes, sensitivity
-- labels, roles), so a process over a shared database sees when its cache is stale.
CREATE TABLE versions (
    name    {text} PRIMARY KEY,
    version BIGINT NOT NULL
);
INSERT INTO versions (name, version) VALUES ('meta', 1);
