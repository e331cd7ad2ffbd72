-- Objects of a type in name order: "Object Type" = ... is the filter a search page sets
-- most, and the default order is by name. A rare type (the glossary's terms among a
-- million columns) is found without reading every object, and a page of a common one
-- is read in order. Migration 3 left the type unindexed when a filter on it could only
-- have been counted by reading a large share of the objects; counts by type now come
-- from the tallies (migration 16).
--
-- It takes the place of `objects_kind` (kind, name): the kinds other than model objects
-- are the repository's, found in its range of the key (model_id -1), and a second name
-- order of nearly every object cost each import as much as this index does.
DROP INDEX objects_kind;
CREATE INDEX objects_type_order ON objects ({fold}(type_name), name, model_id, object_id);
