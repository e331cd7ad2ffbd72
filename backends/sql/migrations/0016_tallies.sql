-- How many objects each model holds of each object type and data type, kept in step
-- with `objects` by triggers, in the same transaction as every write. Counts and facets
-- of MQL that only filter by model and object type (the search page's type, model and
-- data type facets, "count everything", "Object Type = Column") read these few rows
-- instead of every object (see `tally.rs`). Repository objects (model_id -1) are not
-- tallied: they are few, and read from `objects`.
--
-- `typed` says whether the objects have a data type; `data_type` is '' when not.
--
-- SQLite has one writer at a time: a row per key, updated in place by row triggers.
-- PostgreSQL: statement triggers append one row of differences per key and statement
-- (never an update, so concurrent writers never wait on a tally row); a read sums them,
-- and `compact_tallies` (after large writes, and now and then after small ones) folds
-- them into one row per key. Should a tally ever disagree with `objects`, deleting every
-- row and running the INSERT below rebuilds them.
CREATE TABLE object_tallies (
    model_id  BIGINT  NOT NULL,
    type_name {text}  NOT NULL,
    typed     BOOLEAN NOT NULL,
    data_type {text}  NOT NULL,
    n         BIGINT  NOT NULL
);
--sqlite: CREATE UNIQUE INDEX object_tallies_key ON object_tallies (model_id, type_name, typed, data_type);
--postgres: CREATE INDEX object_tallies_key ON object_tallies (model_id, type_name, typed, data_type);
INSERT INTO object_tallies (model_id, type_name, typed, data_type, n)
    SELECT model_id, type_name, data_type IS NOT NULL, COALESCE(data_type, ''), COUNT(*)
    FROM objects WHERE model_id <> -1
    GROUP BY model_id, type_name, data_type IS NOT NULL, COALESCE(data_type, '');

--sqlite: CREATE TRIGGER object_tallies_insert AFTER INSERT ON objects WHEN new.model_id <> -1 BEGIN
--sqlite:     INSERT INTO object_tallies (model_id, type_name, typed, data_type, n)
--sqlite:         VALUES (new.model_id, new.type_name, new.data_type IS NOT NULL, COALESCE(new.data_type, ''), 1)
--sqlite:         ON CONFLICT (model_id, type_name, typed, data_type) DO UPDATE SET n = n + 1;
--sqlite: END;
--sqlite: CREATE TRIGGER object_tallies_delete AFTER DELETE ON objects WHEN old.model_id <> -1 BEGIN
--sqlite:     UPDATE object_tallies SET n = n - 1
--sqlite:         WHERE model_id = old.model_id AND type_name = old.type_name
--sqlite:         AND typed = (old.data_type IS NOT NULL) AND data_type = COALESCE(old.data_type, '');
--sqlite:     DELETE FROM object_tallies
--sqlite:         WHERE model_id = old.model_id AND type_name = old.type_name
--sqlite:         AND typed = (old.data_type IS NOT NULL) AND data_type = COALESCE(old.data_type, '') AND n = 0;
--sqlite: END;
--sqlite: CREATE TRIGGER object_tallies_update AFTER UPDATE OF model_id, type_name, data_type ON objects
--sqlite:     WHEN old.model_id IS NOT new.model_id OR old.type_name IS NOT new.type_name
--sqlite:         OR old.data_type IS NOT new.data_type BEGIN
--sqlite:     UPDATE object_tallies SET n = n - 1
--sqlite:         WHERE old.model_id <> -1 AND model_id = old.model_id AND type_name = old.type_name
--sqlite:         AND typed = (old.data_type IS NOT NULL) AND data_type = COALESCE(old.data_type, '');
--sqlite:     DELETE FROM object_tallies
--sqlite:         WHERE model_id = old.model_id AND type_name = old.type_name
--sqlite:         AND typed = (old.data_type IS NOT NULL) AND data_type = COALESCE(old.data_type, '') AND n = 0;
--sqlite:     INSERT INTO object_tallies (model_id, type_name, typed, data_type, n)
--sqlite:         SELECT new.model_id, new.type_name, new.data_type IS NOT NULL, COALESCE(new.data_type, ''), 1
--sqlite:         WHERE new.model_id <> -1
--sqlite:         ON CONFLICT (model_id, type_name, typed, data_type) DO UPDATE SET n = n + 1;
--sqlite: END;

--postgres: CREATE FUNCTION lore_tally_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: BEGIN
--postgres:     INSERT INTO object_tallies (model_id, type_name, typed, data_type, n)
--postgres:         SELECT model_id, type_name, data_type IS NOT NULL, COALESCE(data_type, ''), COUNT(*)
--postgres:         FROM tally_new WHERE model_id <> -1 GROUP BY 1, 2, 3, 4;
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE FUNCTION lore_tally_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: BEGIN
--postgres:     INSERT INTO object_tallies (model_id, type_name, typed, data_type, n)
--postgres:         SELECT model_id, type_name, data_type IS NOT NULL, COALESCE(data_type, ''), -COUNT(*)
--postgres:         FROM tally_old WHERE model_id <> -1 GROUP BY 1, 2, 3, 4;
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE FUNCTION lore_tally_updated() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: BEGIN
--postgres:     INSERT INTO object_tallies (model_id, type_name, typed, data_type, n)
--postgres:         SELECT model_id, type_name, typed, data_type, SUM(n) FROM (
--postgres:             SELECT o.model_id, o.type_name, o.data_type IS NOT NULL AS typed,
--postgres:                 COALESCE(o.data_type, '') AS data_type, -1 AS n
--postgres:             FROM tally_old o JOIN tally_new c ON c.model_id = o.model_id AND c.object_id = o.object_id
--postgres:             WHERE o.type_name IS DISTINCT FROM c.type_name OR o.data_type IS DISTINCT FROM c.data_type
--postgres:             UNION ALL
--postgres:             SELECT c.model_id, c.type_name, c.data_type IS NOT NULL, COALESCE(c.data_type, ''), 1
--postgres:             FROM tally_old o JOIN tally_new c ON c.model_id = o.model_id AND c.object_id = o.object_id
--postgres:             WHERE o.type_name IS DISTINCT FROM c.type_name OR o.data_type IS DISTINCT FROM c.data_type
--postgres:         ) d WHERE model_id <> -1 GROUP BY 1, 2, 3, 4 HAVING SUM(n) <> 0;
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE TRIGGER object_tallies_insert AFTER INSERT ON objects
--postgres:     REFERENCING NEW TABLE AS tally_new FOR EACH STATEMENT EXECUTE FUNCTION lore_tally_inserted();
--postgres: CREATE TRIGGER object_tallies_delete AFTER DELETE ON objects
--postgres:     REFERENCING OLD TABLE AS tally_old FOR EACH STATEMENT EXECUTE FUNCTION lore_tally_deleted();
--postgres: CREATE TRIGGER object_tallies_update AFTER UPDATE ON objects
--postgres:     REFERENCING OLD TABLE AS tally_old NEW TABLE AS tally_new
--postgres:     FOR EACH STATEMENT EXECUTE FUNCTION lore_tally_updated();
