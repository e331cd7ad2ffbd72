-- What MQL queries filter and sort on most, indexed.
--
-- MQL compares text case-insensitively for the ASCII letters, on every backend alike:
-- {fold}() is SQLite's lower() (ASCII only without ICU) and, on PostgreSQL, lore_fold(),
-- made here: lower() in the C collation, which folds A-Z only. Both can be indexed.
--postgres: CREATE FUNCTION lore_fold(t TEXT) RETURNS TEXT LANGUAGE SQL IMMUTABLE PARALLEL SAFE
--postgres:     AS $$ SELECT lower(t COLLATE "C") $$;

-- Name = '...' (object types are few: a filter on them reads a large share of the
-- objects, where an index would cost the import more than it saves the query).
CREATE INDEX objects_name_fold ON objects ({fold}(name));

-- The default order (name, then id) and "Updated Date", read in order for a page.
DROP INDEX objects_name;
CREATE INDEX objects_name_order ON objects (name, model_id, object_id);
CREATE INDEX objects_updated ON objects (updated_at, model_id, object_id);
