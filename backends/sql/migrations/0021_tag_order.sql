-- Labels and collections in the order a page reads them. Each tag carries its value
-- folded as MQL compares it and its object's folded type and name, and one index holds
-- them as (kind, value, type, name, id): "Object Type" = 'Column' AND Labels = 'PII' in
-- name order is one range of it, read from wherever the page starts, and counted without
-- visiting an object (`compile/tags.rs`). Before, such a page read every object of the
-- type and probed its tags, or every tag of the label and sorted their objects.
--
-- `value_fold` is `{fold}(value)`. `type_fold` and `object_name` follow the object: the
-- writer fills them from `objects` when it inserts a tag (`write/tables.rs`, TAGS), and
-- the trigger below when the object is renamed or changes type. A tag written before its
-- object exists has them NULL until the object is written (the writer's upsert of
-- objects fills them then); no range of `tags_order` holds such a tag.
--
-- An object may hold tags whose values fold alike ('PII' and 'pii'); MQL counts it once.
-- `fold_first` marks one tag of each such group (every tag of a group of one), and only
-- those are in `tags_order`, so a range holds each object once: the writer sets it when
-- no tag of the group is stored yet (and never inserts two of a group in one
-- statement), and the trigger below passes it on when the marked tag is deleted.
ALTER TABLE tags ADD COLUMN value_fold {text};
ALTER TABLE tags ADD COLUMN type_fold {text};
ALTER TABLE tags ADD COLUMN object_name {text};
ALTER TABLE tags ADD COLUMN fold_first BOOLEAN;

-- Filling the columns is not a change to any object: keep the import prints.
--sqlite: DROP TRIGGER import_prints_tags_update;
--postgres: DROP TRIGGER import_prints_tags_update ON tags;
UPDATE tags SET value_fold = {fold}(value),
    type_fold = (SELECT {fold}(o.type_name) FROM objects o
        WHERE o.model_id = tags.model_id AND o.object_id = tags.object_id),
    object_name = (SELECT o.name FROM objects o
        WHERE o.model_id = tags.model_id AND o.object_id = tags.object_id);
UPDATE tags SET fold_first = NOT EXISTS (SELECT 1 FROM tags d
    WHERE d.model_id = tags.model_id AND d.object_id = tags.object_id AND d.kind = tags.kind
    AND d.value_fold = tags.value_fold AND d.value < tags.value);
--sqlite: CREATE TRIGGER import_prints_tags_update AFTER UPDATE ON tags BEGIN
--sqlite:     DELETE FROM import_prints WHERE model_id = old.model_id AND object_id = old.object_id;
--sqlite: END;
--postgres: CREATE TRIGGER import_prints_tags_update AFTER UPDATE ON tags
--postgres:     REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION lore_prints_forget();

-- It takes the place of `tags_value` (kind, value), which only served a scan of every
-- tag of a kind. `fold_first` is in it as well as its condition: SQLite reads a column
-- the query names from the table unless the index holds it.
DROP INDEX tags_value;
CREATE INDEX tags_order ON tags (kind, value_fold, type_fold, object_name, model_id, object_id, fold_first)
    WHERE fold_first;

-- The marked tag of a group deleted, the least value left in the group is marked.
--sqlite: CREATE TRIGGER tags_fold_first AFTER DELETE ON tags WHEN old.fold_first BEGIN
--sqlite:     UPDATE tags SET fold_first = TRUE
--sqlite:         WHERE model_id = old.model_id AND object_id = old.object_id AND kind = old.kind
--sqlite:         AND value = (SELECT MIN(d.value) FROM tags d WHERE d.model_id = old.model_id
--sqlite:             AND d.object_id = old.object_id AND d.kind = old.kind AND d.value_fold = old.value_fold);
--sqlite: END;
--postgres: CREATE FUNCTION lore_tags_fold_first() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: BEGIN
--postgres:     UPDATE tags t SET fold_first = TRUE FROM (
--postgres:         SELECT d.model_id, d.object_id, d.kind, MIN(d.value) AS value
--postgres:         FROM (SELECT DISTINCT model_id, object_id, kind, value_fold FROM removed WHERE fold_first) r
--postgres:         JOIN tags d ON d.model_id = r.model_id AND d.object_id = r.object_id
--postgres:             AND d.kind = r.kind AND d.value_fold = r.value_fold
--postgres:         GROUP BY d.model_id, d.object_id, d.kind, d.value_fold) m
--postgres:     WHERE t.model_id = m.model_id AND t.object_id = m.object_id AND t.kind = m.kind AND t.value = m.value;
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE TRIGGER tags_fold_first AFTER DELETE ON tags
--postgres:     REFERENCING OLD TABLE AS removed FOR EACH STATEMENT EXECUTE FUNCTION lore_tags_fold_first();

-- A renamed object, or one whose type changed, takes its tags along. Row triggers that
-- fire only on such a change: an import's upsert of unchanged names costs the test.
--sqlite: CREATE TRIGGER tags_follow_object AFTER UPDATE OF name, type_name ON objects
--sqlite:     WHEN old.name IS NOT new.name OR old.type_name IS NOT new.type_name BEGIN
--sqlite:     UPDATE tags SET type_fold = lower(new.type_name), object_name = new.name
--sqlite:         WHERE model_id = new.model_id AND object_id = new.object_id;
--sqlite: END;
--postgres: CREATE FUNCTION lore_tags_follow_object() RETURNS trigger LANGUAGE plpgsql AS $$
--postgres: BEGIN
--postgres:     UPDATE tags SET type_fold = lore_fold(NEW.type_name), object_name = NEW.name
--postgres:         WHERE model_id = NEW.model_id AND object_id = NEW.object_id;
--postgres:     RETURN NULL;
--postgres: END $$;
--postgres: CREATE TRIGGER tags_follow_object AFTER UPDATE OF name, type_name ON objects FOR EACH ROW
--postgres:     WHEN (OLD.name IS DISTINCT FROM NEW.name OR OLD.type_name IS DISTINCT FROM NEW.type_name)
--postgres:     EXECUTE FUNCTION lore_tags_follow_object();
