-- The key lifecycle: sessions remember when their key was last used (the idle
-- timeout counts from there; updated coarsely, see Catalog::authenticate), and failed
-- logins are counted per subject (a user name, a client address, or the pair) so that
-- every Lore process over this database throttles them alike.
ALTER TABLE sessions ADD COLUMN last_seen_at BIGINT NOT NULL DEFAULT 0;
UPDATE sessions SET last_seen_at = created_at;

CREATE TABLE login_failures (
    subject  {text} PRIMARY KEY,
    failures BIGINT NOT NULL,
    last_at  BIGINT NOT NULL
);
