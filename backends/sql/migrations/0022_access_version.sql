-- 'access' moves with every write to users, groups, memberships, roles and grants (the
-- writer moves it at the end of such a transaction, as it does 'meta'), so a process
-- that knows an API key's caller trusts it again by reading the session row and this
-- one number (`SessionStore::session_check`), and a change made by any process over the
-- same database is seen by the next call everywhere.
INSERT INTO versions (name, version) VALUES ('access', 1);
