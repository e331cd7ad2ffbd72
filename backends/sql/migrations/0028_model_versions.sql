-- The catalog version (migration 26) of the last write transaction that changed a
-- model's objects or what hangs on them (`Op::objects_changed`: the writer's last
-- statements, after it moved 'catalog'), one row per model; the row of model_id -2
-- (`ALL_MODELS`) moves when a transaction changed objects of any model (an object
-- deleted, a model or the store cleared). A version is never given twice, so the larger
-- of a model's row and that one names one state of the model's objects: a process keeps
-- an entity it read with the version read in the same statement, and uses it again only
-- while a read of this table answers the same. A missing row reads as 0. Nothing
-- empties this table (not `Op::ClearAll`): a version that went back could name an older
-- state. A later migration that rewrites objects moves the ALL_MODELS row.
CREATE TABLE model_versions (
    model_id BIGINT NOT NULL PRIMARY KEY,
    version  BIGINT NOT NULL
);
