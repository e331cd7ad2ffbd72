-- Operations take their ids from id space -4 (`OPERATION_IDS`) like every other id, so a
-- restore can bring back operations with their ids and the sequence that follows them.
--postgres: ALTER TABLE operations ALTER COLUMN id DROP IDENTITY;
INSERT INTO id_sequences (model, next_id)
    SELECT -4, COALESCE(MAX(id), 0) + 1 FROM operations;
