-- History of curation and grants (issue 40): endorsements, certifications, comments,
-- warnings and watches, and the roles granted, are versioned as migration 34 versions
-- the objects' rows: each current row carries `valid_from`, the stamp of the transaction
-- that wrote it, and a row a transaction replaces or deletes is copied, as it was, into
-- the table's `_history` twin with `valid_to`, the replacing transaction's stamp. They
-- are kept apart from the six tables an as-of query reads, and purged by a rule of
-- their own (curation history is kept longer than the models').
ALTER TABLE curation ADD COLUMN valid_from BIGINT NOT NULL DEFAULT 0;
CREATE TABLE curation_history (
    id          BIGINT NOT NULL,
    model_id    BIGINT NOT NULL,
    object_id   BIGINT NOT NULL,
    kind        {text} NOT NULL,
    user_model  BIGINT NOT NULL,
    user_object BIGINT NOT NULL,
    body        {text} NOT NULL,
    at          BIGINT NOT NULL,
    valid_from  BIGINT NOT NULL,
    valid_to    BIGINT NOT NULL
);
CREATE INDEX curation_history_key ON curation_history (model_id, object_id, valid_to);
CREATE INDEX curation_history_to ON curation_history (valid_to);
--sqlite: CREATE TRIGGER curation_history_update AFTER UPDATE ON curation
--sqlite:     WHEN old.valid_from <> new.valid_from BEGIN
--sqlite:     INSERT INTO curation_history (id, model_id, object_id, kind, user_model, user_object, body, at, valid_from, valid_to)
--sqlite:         VALUES (old.id, old.model_id, old.object_id, old.kind, old.user_model, old.user_object, old.body, old.at, old.valid_from, new.valid_from);
--sqlite: END;
--sqlite: CREATE TRIGGER curation_history_delete AFTER DELETE ON curation
--sqlite:     WHEN old.valid_from <> (SELECT version FROM versions WHERE name = 'history_stamp') AND (SELECT version FROM versions WHERE name = 'history_stamp') <> 0 BEGIN
--sqlite:     INSERT INTO curation_history (id, model_id, object_id, kind, user_model, user_object, body, at, valid_from, valid_to)
--sqlite:         VALUES (old.id, old.model_id, old.object_id, old.kind, old.user_model, old.user_object, old.body, old.at, old.valid_from, (SELECT version FROM versions WHERE name = 'history_stamp'));
--sqlite: END;
--postgres: CREATE FUNCTION lore_curation_history_update() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: BEGIN
--postgres:     INSERT INTO curation_history (id, model_id, object_id, kind, user_model, user_object, body, at, valid_from, valid_to)
--postgres:         VALUES (OLD.id, OLD.model_id, OLD.object_id, OLD.kind, OLD.user_model, OLD.user_object, OLD.body, OLD.at, OLD.valid_from, NEW.valid_from);
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE TRIGGER curation_history_update AFTER UPDATE ON curation FOR EACH ROW
--postgres:     WHEN (OLD.valid_from <> NEW.valid_from) EXECUTE FUNCTION lore_curation_history_update();
--postgres: CREATE FUNCTION lore_curation_history_delete() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: DECLARE stamp BIGINT := COALESCE(NULLIF(current_setting('lore.stamp', true), ''), '0')::BIGINT;
--postgres: BEGIN
--postgres:     IF stamp <> 0 THEN
--postgres:         INSERT INTO curation_history (id, model_id, object_id, kind, user_model, user_object, body, at, valid_from, valid_to)
--postgres:             SELECT id, model_id, object_id, kind, user_model, user_object, body, at, valid_from, stamp FROM gone WHERE valid_from <> stamp;
--postgres:     END IF;
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE TRIGGER curation_history_delete AFTER DELETE ON curation
--postgres:     REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION lore_curation_history_delete();
-- A grant is inserted or deleted, never updated.
ALTER TABLE grants ADD COLUMN valid_from BIGINT NOT NULL DEFAULT 0;
CREATE TABLE grants_history (
    grantee_model  BIGINT NOT NULL,
    grantee_object BIGINT NOT NULL,
    role           {text} NOT NULL,
    model_id       BIGINT,
    object_id      BIGINT,
    valid_from     BIGINT NOT NULL,
    valid_to       BIGINT NOT NULL
);
CREATE INDEX grants_history_key ON grants_history (model_id, object_id, valid_to);
CREATE INDEX grants_history_to ON grants_history (valid_to);
--sqlite: CREATE TRIGGER grants_history_delete AFTER DELETE ON grants
--sqlite:     WHEN old.valid_from <> (SELECT version FROM versions WHERE name = 'history_stamp') AND (SELECT version FROM versions WHERE name = 'history_stamp') <> 0 BEGIN
--sqlite:     INSERT INTO grants_history (grantee_model, grantee_object, role, model_id, object_id, valid_from, valid_to)
--sqlite:         VALUES (old.grantee_model, old.grantee_object, old.role, old.model_id, old.object_id, old.valid_from, (SELECT version FROM versions WHERE name = 'history_stamp'));
--sqlite: END;
--postgres: CREATE FUNCTION lore_grants_history_delete() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: DECLARE stamp BIGINT := COALESCE(NULLIF(current_setting('lore.stamp', true), ''), '0')::BIGINT;
--postgres: BEGIN
--postgres:     IF stamp <> 0 THEN
--postgres:         INSERT INTO grants_history (grantee_model, grantee_object, role, model_id, object_id, valid_from, valid_to)
--postgres:             SELECT grantee_model, grantee_object, role, model_id, object_id, valid_from, stamp FROM gone WHERE valid_from <> stamp;
--postgres:     END IF;
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE TRIGGER grants_history_delete AFTER DELETE ON grants
--postgres:     REFERENCING OLD TABLE AS gone FOR EACH STATEMENT EXECUTE FUNCTION lore_grants_history_delete();
