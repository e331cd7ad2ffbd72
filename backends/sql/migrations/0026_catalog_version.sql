-- 'catalog' moves with every write transaction of the catalog (the writer moves it at
-- the end of any transaction of ops, as it does 'meta' and 'access'; the system log,
-- sessions and the outbox do not move it), so what a read found can be kept and used
-- again while this one number is unchanged: the hit cache of text searches reads it in
-- the same snapshot as the objects it keeps, and checks it before each use. A write by
-- any process over the same database is seen by the next call everywhere.
INSERT INTO versions (name, version) VALUES ('catalog', 1);
