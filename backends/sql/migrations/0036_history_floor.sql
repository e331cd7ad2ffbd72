-- History retention (issue 40): the revision from which on the history is kept whole.
-- A purge forgets the kept images no version from it on reads, and moves it forward;
-- the oldest revision a reader may ask for is the newer of it and the oldest revision
-- `catalog_versions` holds. Revisions themselves stay (a row each): the stamps of
-- current rows still name them.
INSERT INTO versions (name, version) VALUES ('history_floor', 0);
