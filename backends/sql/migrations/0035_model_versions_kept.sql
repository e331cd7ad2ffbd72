-- Model versions (issue 40): each import or harvest that changed a model makes a
-- version of it, numbered from 1 per model, at the revision (migration 34) its
-- transaction committed as, with the counts of the model's objects it added, changed
-- and removed. `stamp` is that transaction's history stamp, mapped to its version as
-- the stamps of the versioned rows are (`catalog_versions`). A restore's clear empties
-- this table with the rest of the history.
CREATE TABLE import_versions (
    model_id BIGINT NOT NULL,
    number   BIGINT NOT NULL,
    stamp    BIGINT NOT NULL,
    objects  BIGINT NOT NULL,
    added    BIGINT NOT NULL,
    changed  BIGINT NOT NULL,
    removed  BIGINT NOT NULL,
    PRIMARY KEY (model_id, number)
);

-- What changed between two versions: the rows written in between (current or kept)
-- and the kept rows replaced in between, found by their stamps rather than by reading
-- every row of the model. Rows of one transaction share a stamp, so each index grows at
-- its end.
CREATE INDEX objects_from ON objects (valid_from, model_id);
CREATE INDEX attribute_values_from ON attribute_values (valid_from, model_id);
CREATE INDEX edges_from ON edges (valid_from, source_model);
CREATE INDEX tags_from ON tags (valid_from, model_id);
CREATE INDEX classifications_from ON classifications (valid_from, model_id);
CREATE INDEX label_assignments_from ON label_assignments (valid_from, model_id);
CREATE INDEX objects_history_from ON objects_history (valid_from, model_id);
CREATE INDEX attribute_values_history_from ON attribute_values_history (valid_from, model_id);
CREATE INDEX edges_history_from ON edges_history (valid_from, source_model);
CREATE INDEX tags_history_from ON tags_history (valid_from, model_id);
CREATE INDEX classifications_history_from ON classifications_history (valid_from, model_id);
CREATE INDEX label_assignments_history_from ON label_assignments_history (valid_from, model_id);
