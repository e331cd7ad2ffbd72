-- What made an edge and keeps it up to date (`Edge::origin`): the OpenLineage job
-- (`namespace/name`) whose events set it, NULL for every other edge. Not part of the
-- key: an edge added where one of the same kind, ends and name is keeps the stored one.
ALTER TABLE edges ADD COLUMN origin {text};
-- Before this migration the intake owned its edges by their name: the job's key
-- (`namespace/name`) for a table edge, the key then ` (` for a column edge. The lineage
-- edges named so after a job the intake made (a `Job` object at the top of a model
-- whose native id is the namespace, in the repository folder `OpenLineage`) are that
-- job's; the longest key wins where two match (`ns/a (x)` and `ns/a`).
UPDATE edges SET origin = (
    SELECT m.native_id || '/' || j.native_id
    FROM objects f
    JOIN objects m ON m.model_id = -1 AND m.parent = f.object_id AND m.kind = 'Model'
    JOIN objects j ON j.model_id = m.object_id AND j.parent IS NULL AND j.type_name = 'Job'
    WHERE f.model_id = -1 AND f.parent IS NULL AND f.kind = 'Folder' AND f.name = 'OpenLineage'
      AND m.native_id IS NOT NULL AND j.native_id IS NOT NULL
      AND (edges.name = m.native_id || '/' || j.native_id
           OR substr(edges.name, 1, length(m.native_id) + length(j.native_id) + 3)
              = m.native_id || '/' || j.native_id || ' (')
    ORDER BY length(m.native_id) + length(j.native_id) DESC
    LIMIT 1
)
WHERE kind = 'lineage' AND name LIKE '%/%';
-- Kept entity reads (migration 28) hold edges with their origin: none read before is
-- used again.
UPDATE versions SET version = version + 1 WHERE name = 'catalog';
INSERT INTO model_versions (model_id, version)
    SELECT -2, version FROM versions WHERE name = 'catalog'
    ON CONFLICT (model_id) DO UPDATE SET version = excluded.version;
