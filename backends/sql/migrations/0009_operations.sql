-- Operations: imports run in the background, by any Lore process over the database.
-- `state` and `heartbeat_at` find the running ones whose process is gone; `detail` is
-- the JSON of what changes as the operation runs (progress, message, result).
CREATE TABLE operations (
--sqlite:     id          INTEGER PRIMARY KEY,
--postgres:     id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind         {text} NOT NULL,
    state        {text} NOT NULL,
    model_id     BIGINT,
    object_id    BIGINT,
    started_by   {text} NOT NULL,
    started_at   BIGINT NOT NULL,
    heartbeat_at BIGINT NOT NULL,
    detail       {text} NOT NULL
);
CREATE INDEX operations_model ON operations (model_id, object_id, id);
CREATE INDEX operations_state ON operations (state, id);

-- The log of each operation, line by line.
CREATE TABLE operation_log (
    operation_id BIGINT NOT NULL,
    seq          BIGINT NOT NULL,
    at           BIGINT NOT NULL,
    level        {text} NOT NULL,
    message      {text} NOT NULL,
    PRIMARY KEY (operation_id, seq)
);

-- How startImport imports a model: its importer's format, the parameters (JSON) and the
-- attachment it reads. Deleted with the model.
CREATE TABLE import_settings (
    model_id   BIGINT NOT NULL,
    object_id  BIGINT NOT NULL,
    format     {text} NOT NULL,
    parameters {text} NOT NULL,
    attachment {text},
    updated_at BIGINT NOT NULL,
    updated_by {text} NOT NULL,
    PRIMARY KEY (model_id, object_id)
);

-- Files attached to objects, e.g. the source a model's importer reads. The content is
-- Base64 text, which both databases store alike. Deleted with the object.
CREATE TABLE attachments (
    model_id   BIGINT NOT NULL,
    object_id  BIGINT NOT NULL,
    name       {text} NOT NULL,
    media_type {text} NOT NULL,
    size       BIGINT NOT NULL,
    sha256     {text} NOT NULL,
    created_at BIGINT NOT NULL,
    created_by {text} NOT NULL,
    content    {text} NOT NULL,
    PRIMARY KEY (model_id, object_id, name)
);
