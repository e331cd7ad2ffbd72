-- The objects each write transaction of the catalog changed, under the version of the
-- catalog (migration 26) that transaction moved it to: what a process keeps of the
-- catalog in memory (the search index, `crate::mirror`) reads the changes since the
-- version it holds and reads those objects again, instead of reading everything after
-- every write. The writer adds the rows after it moves the version, in the same
-- transaction, and under the lock of the version's row: versions are numbered in the
-- order their transactions commit, so a reader that sees version V in its snapshot sees
-- every change of every version up to V.
--
-- `model_id` and `object_id` are NULL for a change the writer does not list object by
-- object (more than a thousand objects, a whole model cleared, a sensitivity label
-- redefined, a restore): a reader then reads everything again. What an object's search
-- row holds is its name, physical name, kind, type, data type and description, its
-- labels, data classes, sensitivity labels and curation (certified, endorsed, warned).
--
-- The writer keeps the changes of the last 1,000 versions; the row 'catalog_changes' of
-- `versions` is the version from which on (exclusive) every change is still here. A
-- reader older than that reads everything again.
CREATE TABLE catalog_changes (
    version   BIGINT NOT NULL,
    model_id  BIGINT,
    object_id BIGINT
);
CREATE INDEX catalog_changes_version ON catalog_changes (version);
INSERT INTO versions (name, version)
    SELECT 'catalog_changes', version FROM versions WHERE name = 'catalog';
