-- The system log: one row per API call, appended in batches by every Lore process over
-- the database. `id` orders rows appended at the same microsecond (newest first is
-- `ORDER BY at DESC, id DESC`); `at` is UTC microseconds; `user_name` is empty for
-- calls without a valid key. The indexes serve the filters of GET /admin/systemLog
-- (each with the time, which orders the page) and the purge by age.
CREATE TABLE system_log (
--sqlite:     id          INTEGER PRIMARY KEY,
--postgres:     id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at          BIGINT NOT NULL,
    user_name   {text} NOT NULL,
    address     {text} NOT NULL,
    method      {text} NOT NULL,
    path        {text} NOT NULL,
    status      BIGINT NOT NULL,
    duration_ms BIGINT NOT NULL,
    size        BIGINT NOT NULL
);
CREATE INDEX system_log_at ON system_log (at, id);
CREATE INDEX system_log_user ON system_log (user_name, at, id);
CREATE INDEX system_log_path ON system_log (path, at);
CREATE INDEX system_log_status ON system_log (status, at, id);
