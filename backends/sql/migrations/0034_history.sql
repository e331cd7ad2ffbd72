-- History (issue 40): every write transaction of the catalog is a revision, and the
-- rows of the kept tables (objects, attribute values, edges, tags, classifications,
-- sensitivity labels) are versioned as SQL:2011's system-versioned tables are: each
-- current row carries `valid_from`, the stamp of the transaction that wrote it; a row
-- the transaction replaces or deletes is copied, as it was, into the table's
-- `<table>_history` twin with `valid_to`, the replacing transaction's stamp. A state of
-- the past is the current rows with `valid_from` at or before it and the history rows
-- whose interval holds it. Storage grows with what changed: an insert adds no history
-- row, an unchanged row is never rewritten.
--
-- A stamp names a transaction before it commits. On SQLite, where one transaction
-- writes at a time, it is the catalog version the transaction will move to (the version
-- plus one, read when it begins), so a stamp is a version. On PostgreSQL, where writers
-- run side by side and versions are numbered in commit order, it is a negative number
-- from the sequence `history_stamps`, unique to the transaction, set as `lore.stamp`
-- for its triggers; `catalog_versions` maps it to the version it committed as. A row
-- with `valid_from` 0 was written before history was kept. The stamp of a deletion
-- comes from `versions`' row 'history_stamp' (SQLite) or `lore.stamp` (PostgreSQL); 0
-- there means "keep nothing" (a restore's clear).
--
-- The writer keeps a row's stamp when it writes a row a second time in one transaction,
-- so a transaction leaves one image per row at most, and none for a row it made.
CREATE TABLE catalog_versions (
    version     BIGINT NOT NULL PRIMARY KEY,
    stamp       BIGINT NOT NULL,
    at          BIGINT NOT NULL,
    source      {text} NOT NULL,
    user_model  BIGINT,
    user_object BIGINT,
    operation   BIGINT
);
CREATE UNIQUE INDEX catalog_versions_stamp ON catalog_versions (stamp);
CREATE INDEX catalog_versions_at ON catalog_versions (at);
-- History starts here: the state at the current version is the current rows.
--sqlite: INSERT INTO catalog_versions (version, stamp, at, source)
--sqlite:     SELECT version, version, CAST((julianday('now') - 2440587.5) * 86400000000 AS INTEGER), 'system'
--sqlite:     FROM versions WHERE name = 'catalog';
--postgres: INSERT INTO catalog_versions (version, stamp, at, source)
--postgres:     SELECT version, version, (extract(epoch FROM clock_timestamp()) * 1000000)::BIGINT, 'system'
--postgres:     FROM versions WHERE name = 'catalog';
--sqlite: INSERT INTO versions (name, version) VALUES ('history_stamp', 0);
--postgres: CREATE SEQUENCE history_stamps;

ALTER TABLE objects ADD COLUMN valid_from BIGINT NOT NULL DEFAULT 0;
CREATE TABLE objects_history (
    model_id BIGINT NOT NULL,
    object_id BIGINT NOT NULL,
    kind {text} NOT NULL,
    parent BIGINT,
    profile {text} NOT NULL,
    type_name {text} NOT NULL,
    system_type {text} NOT NULL,
    name {text} NOT NULL,
    physical_name {text},
    native_id {text},
    stable_id {text},
    description {text},
    business_name {text},
    business_description {text},
    data_type {text},
    external_url {text},
    hide_data BOOLEAN NOT NULL,
    workflow_state {text},
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    updated_by_model BIGINT,
    updated_by_object BIGINT,
    valid_from BIGINT NOT NULL,
    valid_to   BIGINT NOT NULL
);
CREATE INDEX objects_history_key ON objects_history (model_id, object_id, valid_to);
CREATE INDEX objects_history_to ON objects_history (valid_to);
--sqlite: CREATE TRIGGER objects_history_update AFTER UPDATE ON objects
--sqlite:     WHEN old.valid_from <> new.valid_from BEGIN
--sqlite:     INSERT INTO objects_history (model_id, object_id, kind, parent, profile, type_name, system_type, name, physical_name, native_id, stable_id, description, business_name, business_description, data_type, external_url, hide_data, workflow_state, created_at, updated_at, updated_by_model, updated_by_object, valid_from, valid_to)
--sqlite:         VALUES (old.model_id, old.object_id, old.kind, old.parent, old.profile, old.type_name, old.system_type, old.name, old.physical_name, old.native_id, old.stable_id, old.description, old.business_name, old.business_description, old.data_type, old.external_url, old.hide_data, old.workflow_state, old.created_at, old.updated_at, old.updated_by_model, old.updated_by_object, old.valid_from, new.valid_from);
--sqlite: END;
--sqlite: CREATE TRIGGER objects_history_delete AFTER DELETE ON objects
--sqlite:     WHEN old.valid_from <> (SELECT version FROM versions WHERE name = 'history_stamp') AND (SELECT version FROM versions WHERE name = 'history_stamp') <> 0 BEGIN
--sqlite:     INSERT INTO objects_history (model_id, object_id, kind, parent, profile, type_name, system_type, name, physical_name, native_id, stable_id, description, business_name, business_description, data_type, external_url, hide_data, workflow_state, created_at, updated_at, updated_by_model, updated_by_object, valid_from, valid_to)
--sqlite:         VALUES (old.model_id, old.object_id, old.kind, old.parent, old.profile, old.type_name, old.system_type, old.name, old.physical_name, old.native_id, old.stable_id, old.description, old.business_name, old.business_description, old.data_type, old.external_url, old.hide_data, old.workflow_state, old.created_at, old.updated_at, old.updated_by_model, old.updated_by_object, old.valid_from, (SELECT version FROM versions WHERE name = 'history_stamp'));
--sqlite: END;
--postgres: CREATE FUNCTION lore_objects_history_update() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: BEGIN
--postgres:     INSERT INTO objects_history (model_id, object_id, kind, parent, profile, type_name, system_type, name, physical_name, native_id, stable_id, description, business_name, business_description, data_type, external_url, hide_data, workflow_state, created_at, updated_at, updated_by_model, updated_by_object, valid_from, valid_to)
--postgres:         VALUES (OLD.model_id, OLD.object_id, OLD.kind, OLD.parent, OLD.profile, OLD.type_name, OLD.system_type, OLD.name, OLD.physical_name, OLD.native_id, OLD.stable_id, OLD.description, OLD.business_name, OLD.business_description, OLD.data_type, OLD.external_url, OLD.hide_data, OLD.workflow_state, OLD.created_at, OLD.updated_at, OLD.updated_by_model, OLD.updated_by_object, OLD.valid_from, NEW.valid_from);
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE TRIGGER objects_history_update AFTER UPDATE ON objects FOR EACH ROW
--postgres:     WHEN (OLD.valid_from <> NEW.valid_from) EXECUTE FUNCTION lore_objects_history_update();
--postgres: CREATE FUNCTION lore_objects_history_delete() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: DECLARE stamp BIGINT := COALESCE(NULLIF(current_setting('lore.stamp', true), ''), '0')::BIGINT;
--postgres: BEGIN
--postgres:     IF stamp <> 0 THEN
--postgres:         INSERT INTO objects_history (model_id, object_id, kind, parent, profile, type_name, system_type, name, physical_name, native_id, stable_id, description, business_name, business_description, data_type, external_url, hide_data, workflow_state, created_at, updated_at, updated_by_model, updated_by_object, valid_from, valid_to)
--postgres:             SELECT model_id, object_id, kind, parent, profile, type_name, system_type, name, physical_name, native_id, stable_id, description, business_name, business_description, data_type, external_url, hide_data, workflow_state, created_at, updated_at, updated_by_model, updated_by_object, valid_from, stamp FROM gone WHERE valid_from <> stamp;
--postgres:     END IF;
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE TRIGGER objects_history_delete AFTER DELETE ON objects
--postgres:     REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION lore_objects_history_delete();
ALTER TABLE attribute_values ADD COLUMN valid_from BIGINT NOT NULL DEFAULT 0;
CREATE TABLE attribute_values_history (
    model_id BIGINT NOT NULL,
    object_id BIGINT NOT NULL,
    attribute {text} NOT NULL,
    value_kind {text} NOT NULL,
    text_value {text},
    integer_value BIGINT,
    double_value DOUBLE PRECISION,
    boolean_value BOOLEAN,
    datetime_value BIGINT,
    valid_from BIGINT NOT NULL,
    valid_to   BIGINT NOT NULL
);
CREATE INDEX attribute_values_history_key ON attribute_values_history (model_id, object_id, valid_to);
CREATE INDEX attribute_values_history_to ON attribute_values_history (valid_to);
--sqlite: CREATE TRIGGER attribute_values_history_update AFTER UPDATE ON attribute_values
--sqlite:     WHEN old.valid_from <> new.valid_from BEGIN
--sqlite:     INSERT INTO attribute_values_history (model_id, object_id, attribute, value_kind, text_value, integer_value, double_value, boolean_value, datetime_value, valid_from, valid_to)
--sqlite:         VALUES (old.model_id, old.object_id, old.attribute, old.value_kind, old.text_value, old.integer_value, old.double_value, old.boolean_value, old.datetime_value, old.valid_from, new.valid_from);
--sqlite: END;
--sqlite: CREATE TRIGGER attribute_values_history_delete AFTER DELETE ON attribute_values
--sqlite:     WHEN old.valid_from <> (SELECT version FROM versions WHERE name = 'history_stamp') AND (SELECT version FROM versions WHERE name = 'history_stamp') <> 0 BEGIN
--sqlite:     INSERT INTO attribute_values_history (model_id, object_id, attribute, value_kind, text_value, integer_value, double_value, boolean_value, datetime_value, valid_from, valid_to)
--sqlite:         VALUES (old.model_id, old.object_id, old.attribute, old.value_kind, old.text_value, old.integer_value, old.double_value, old.boolean_value, old.datetime_value, old.valid_from, (SELECT version FROM versions WHERE name = 'history_stamp'));
--sqlite: END;
--postgres: CREATE FUNCTION lore_attribute_values_history_update() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: BEGIN
--postgres:     INSERT INTO attribute_values_history (model_id, object_id, attribute, value_kind, text_value, integer_value, double_value, boolean_value, datetime_value, valid_from, valid_to)
--postgres:         VALUES (OLD.model_id, OLD.object_id, OLD.attribute, OLD.value_kind, OLD.text_value, OLD.integer_value, OLD.double_value, OLD.boolean_value, OLD.datetime_value, OLD.valid_from, NEW.valid_from);
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE TRIGGER attribute_values_history_update AFTER UPDATE ON attribute_values FOR EACH ROW
--postgres:     WHEN (OLD.valid_from <> NEW.valid_from) EXECUTE FUNCTION lore_attribute_values_history_update();
--postgres: CREATE FUNCTION lore_attribute_values_history_delete() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: DECLARE stamp BIGINT := COALESCE(NULLIF(current_setting('lore.stamp', true), ''), '0')::BIGINT;
--postgres: BEGIN
--postgres:     IF stamp <> 0 THEN
--postgres:         INSERT INTO attribute_values_history (model_id, object_id, attribute, value_kind, text_value, integer_value, double_value, boolean_value, datetime_value, valid_from, valid_to)
--postgres:             SELECT model_id, object_id, attribute, value_kind, text_value, integer_value, double_value, boolean_value, datetime_value, valid_from, stamp FROM gone WHERE valid_from <> stamp;
--postgres:     END IF;
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE TRIGGER attribute_values_history_delete AFTER DELETE ON attribute_values
--postgres:     REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION lore_attribute_values_history_delete();
ALTER TABLE edges ADD COLUMN valid_from BIGINT NOT NULL DEFAULT 0;
CREATE TABLE edges_history (
    source_model BIGINT NOT NULL,
    source_object BIGINT NOT NULL,
    kind {text} NOT NULL,
    target_model BIGINT NOT NULL,
    target_object BIGINT NOT NULL,
    name {text} NOT NULL,
    origin {text},
    valid_from BIGINT NOT NULL,
    valid_to   BIGINT NOT NULL
);
CREATE INDEX edges_history_key ON edges_history (source_model, source_object, valid_to);
CREATE INDEX edges_history_target ON edges_history (target_model, target_object, valid_to);
CREATE INDEX edges_history_to ON edges_history (valid_to);
--sqlite: CREATE TRIGGER edges_history_update AFTER UPDATE ON edges
--sqlite:     WHEN old.valid_from <> new.valid_from BEGIN
--sqlite:     INSERT INTO edges_history (source_model, source_object, kind, target_model, target_object, name, origin, valid_from, valid_to)
--sqlite:         VALUES (old.source_model, old.source_object, old.kind, old.target_model, old.target_object, old.name, old.origin, old.valid_from, new.valid_from);
--sqlite: END;
--sqlite: CREATE TRIGGER edges_history_delete AFTER DELETE ON edges
--sqlite:     WHEN old.valid_from <> (SELECT version FROM versions WHERE name = 'history_stamp') AND (SELECT version FROM versions WHERE name = 'history_stamp') <> 0 BEGIN
--sqlite:     INSERT INTO edges_history (source_model, source_object, kind, target_model, target_object, name, origin, valid_from, valid_to)
--sqlite:         VALUES (old.source_model, old.source_object, old.kind, old.target_model, old.target_object, old.name, old.origin, old.valid_from, (SELECT version FROM versions WHERE name = 'history_stamp'));
--sqlite: END;
--postgres: CREATE FUNCTION lore_edges_history_update() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: BEGIN
--postgres:     INSERT INTO edges_history (source_model, source_object, kind, target_model, target_object, name, origin, valid_from, valid_to)
--postgres:         VALUES (OLD.source_model, OLD.source_object, OLD.kind, OLD.target_model, OLD.target_object, OLD.name, OLD.origin, OLD.valid_from, NEW.valid_from);
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE TRIGGER edges_history_update AFTER UPDATE ON edges FOR EACH ROW
--postgres:     WHEN (OLD.valid_from <> NEW.valid_from) EXECUTE FUNCTION lore_edges_history_update();
--postgres: CREATE FUNCTION lore_edges_history_delete() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: DECLARE stamp BIGINT := COALESCE(NULLIF(current_setting('lore.stamp', true), ''), '0')::BIGINT;
--postgres: BEGIN
--postgres:     IF stamp <> 0 THEN
--postgres:         INSERT INTO edges_history (source_model, source_object, kind, target_model, target_object, name, origin, valid_from, valid_to)
--postgres:             SELECT source_model, source_object, kind, target_model, target_object, name, origin, valid_from, stamp FROM gone WHERE valid_from <> stamp;
--postgres:     END IF;
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE TRIGGER edges_history_delete AFTER DELETE ON edges
--postgres:     REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION lore_edges_history_delete();
ALTER TABLE tags ADD COLUMN valid_from BIGINT NOT NULL DEFAULT 0;
CREATE TABLE tags_history (
    model_id BIGINT NOT NULL,
    object_id BIGINT NOT NULL,
    kind {text} NOT NULL,
    value {text} NOT NULL,
    valid_from BIGINT NOT NULL,
    valid_to   BIGINT NOT NULL
);
CREATE INDEX tags_history_key ON tags_history (model_id, object_id, valid_to);
CREATE INDEX tags_history_to ON tags_history (valid_to);
--sqlite: CREATE TRIGGER tags_history_update AFTER UPDATE ON tags
--sqlite:     WHEN old.valid_from <> new.valid_from BEGIN
--sqlite:     INSERT INTO tags_history (model_id, object_id, kind, value, valid_from, valid_to)
--sqlite:         VALUES (old.model_id, old.object_id, old.kind, old.value, old.valid_from, new.valid_from);
--sqlite: END;
--sqlite: CREATE TRIGGER tags_history_delete AFTER DELETE ON tags
--sqlite:     WHEN old.valid_from <> (SELECT version FROM versions WHERE name = 'history_stamp') AND (SELECT version FROM versions WHERE name = 'history_stamp') <> 0 BEGIN
--sqlite:     INSERT INTO tags_history (model_id, object_id, kind, value, valid_from, valid_to)
--sqlite:         VALUES (old.model_id, old.object_id, old.kind, old.value, old.valid_from, (SELECT version FROM versions WHERE name = 'history_stamp'));
--sqlite: END;
--postgres: CREATE FUNCTION lore_tags_history_update() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: BEGIN
--postgres:     INSERT INTO tags_history (model_id, object_id, kind, value, valid_from, valid_to)
--postgres:         VALUES (OLD.model_id, OLD.object_id, OLD.kind, OLD.value, OLD.valid_from, NEW.valid_from);
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE TRIGGER tags_history_update AFTER UPDATE ON tags FOR EACH ROW
--postgres:     WHEN (OLD.valid_from <> NEW.valid_from) EXECUTE FUNCTION lore_tags_history_update();
--postgres: CREATE FUNCTION lore_tags_history_delete() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: DECLARE stamp BIGINT := COALESCE(NULLIF(current_setting('lore.stamp', true), ''), '0')::BIGINT;
--postgres: BEGIN
--postgres:     IF stamp <> 0 THEN
--postgres:         INSERT INTO tags_history (model_id, object_id, kind, value, valid_from, valid_to)
--postgres:             SELECT model_id, object_id, kind, value, valid_from, stamp FROM gone WHERE valid_from <> stamp;
--postgres:     END IF;
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE TRIGGER tags_history_delete AFTER DELETE ON tags
--postgres:     REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION lore_tags_history_delete();
ALTER TABLE classifications ADD COLUMN valid_from BIGINT NOT NULL DEFAULT 0;
CREATE TABLE classifications_history (
    model_id BIGINT NOT NULL,
    object_id BIGINT NOT NULL,
    data_class {text} NOT NULL,
    status {text} NOT NULL,
    valid_from BIGINT NOT NULL,
    valid_to   BIGINT NOT NULL
);
CREATE INDEX classifications_history_key ON classifications_history (model_id, object_id, valid_to);
CREATE INDEX classifications_history_to ON classifications_history (valid_to);
--sqlite: CREATE TRIGGER classifications_history_update AFTER UPDATE ON classifications
--sqlite:     WHEN old.valid_from <> new.valid_from BEGIN
--sqlite:     INSERT INTO classifications_history (model_id, object_id, data_class, status, valid_from, valid_to)
--sqlite:         VALUES (old.model_id, old.object_id, old.data_class, old.status, old.valid_from, new.valid_from);
--sqlite: END;
--sqlite: CREATE TRIGGER classifications_history_delete AFTER DELETE ON classifications
--sqlite:     WHEN old.valid_from <> (SELECT version FROM versions WHERE name = 'history_stamp') AND (SELECT version FROM versions WHERE name = 'history_stamp') <> 0 BEGIN
--sqlite:     INSERT INTO classifications_history (model_id, object_id, data_class, status, valid_from, valid_to)
--sqlite:         VALUES (old.model_id, old.object_id, old.data_class, old.status, old.valid_from, (SELECT version FROM versions WHERE name = 'history_stamp'));
--sqlite: END;
--postgres: CREATE FUNCTION lore_classifications_history_update() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: BEGIN
--postgres:     INSERT INTO classifications_history (model_id, object_id, data_class, status, valid_from, valid_to)
--postgres:         VALUES (OLD.model_id, OLD.object_id, OLD.data_class, OLD.status, OLD.valid_from, NEW.valid_from);
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE TRIGGER classifications_history_update AFTER UPDATE ON classifications FOR EACH ROW
--postgres:     WHEN (OLD.valid_from <> NEW.valid_from) EXECUTE FUNCTION lore_classifications_history_update();
--postgres: CREATE FUNCTION lore_classifications_history_delete() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: DECLARE stamp BIGINT := COALESCE(NULLIF(current_setting('lore.stamp', true), ''), '0')::BIGINT;
--postgres: BEGIN
--postgres:     IF stamp <> 0 THEN
--postgres:         INSERT INTO classifications_history (model_id, object_id, data_class, status, valid_from, valid_to)
--postgres:             SELECT model_id, object_id, data_class, status, valid_from, stamp FROM gone WHERE valid_from <> stamp;
--postgres:     END IF;
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE TRIGGER classifications_history_delete AFTER DELETE ON classifications
--postgres:     REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION lore_classifications_history_delete();
ALTER TABLE label_assignments ADD COLUMN valid_from BIGINT NOT NULL DEFAULT 0;
CREATE TABLE label_assignments_history (
    model_id BIGINT NOT NULL,
    object_id BIGINT NOT NULL,
    label {text} NOT NULL,
    status {text} NOT NULL,
    valid_from BIGINT NOT NULL,
    valid_to   BIGINT NOT NULL
);
CREATE INDEX label_assignments_history_key ON label_assignments_history (model_id, object_id, valid_to);
CREATE INDEX label_assignments_history_to ON label_assignments_history (valid_to);
--sqlite: CREATE TRIGGER label_assignments_history_update AFTER UPDATE ON label_assignments
--sqlite:     WHEN old.valid_from <> new.valid_from BEGIN
--sqlite:     INSERT INTO label_assignments_history (model_id, object_id, label, status, valid_from, valid_to)
--sqlite:         VALUES (old.model_id, old.object_id, old.label, old.status, old.valid_from, new.valid_from);
--sqlite: END;
--sqlite: CREATE TRIGGER label_assignments_history_delete AFTER DELETE ON label_assignments
--sqlite:     WHEN old.valid_from <> (SELECT version FROM versions WHERE name = 'history_stamp') AND (SELECT version FROM versions WHERE name = 'history_stamp') <> 0 BEGIN
--sqlite:     INSERT INTO label_assignments_history (model_id, object_id, label, status, valid_from, valid_to)
--sqlite:         VALUES (old.model_id, old.object_id, old.label, old.status, old.valid_from, (SELECT version FROM versions WHERE name = 'history_stamp'));
--sqlite: END;
--postgres: CREATE FUNCTION lore_label_assignments_history_update() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: BEGIN
--postgres:     INSERT INTO label_assignments_history (model_id, object_id, label, status, valid_from, valid_to)
--postgres:         VALUES (OLD.model_id, OLD.object_id, OLD.label, OLD.status, OLD.valid_from, NEW.valid_from);
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE TRIGGER label_assignments_history_update AFTER UPDATE ON label_assignments FOR EACH ROW
--postgres:     WHEN (OLD.valid_from <> NEW.valid_from) EXECUTE FUNCTION lore_label_assignments_history_update();
--postgres: CREATE FUNCTION lore_label_assignments_history_delete() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: DECLARE stamp BIGINT := COALESCE(NULLIF(current_setting('lore.stamp', true), ''), '0')::BIGINT;
--postgres: BEGIN
--postgres:     IF stamp <> 0 THEN
--postgres:         INSERT INTO label_assignments_history (model_id, object_id, label, status, valid_from, valid_to)
--postgres:             SELECT model_id, object_id, label, status, valid_from, stamp FROM gone WHERE valid_from <> stamp;
--postgres:     END IF;
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE TRIGGER label_assignments_history_delete AFTER DELETE ON label_assignments
--postgres:     REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION lore_label_assignments_history_delete();
