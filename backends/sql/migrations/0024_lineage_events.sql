-- OpenLineage events, each kept whole once (`digest` is the SHA-256 of its canonical
-- JSON, `body` that JSON), and per run the state its events describe. Times are UTC
-- microseconds. `run_id` and `event_type` are set on run events only; `received_at`
-- serves the purge by age. Neither table hangs on objects or users.
CREATE TABLE lineage_events (
    digest        {text} NOT NULL PRIMARY KEY,
    kind          {text} NOT NULL,
    event_time    BIGINT NOT NULL,
    received_at   BIGINT NOT NULL,
    received_from {text} NOT NULL,
    run_id        {text},
    event_type    {text},
    job_namespace {text},
    job_name      {text},
    error_message {text},
    body          {text} NOT NULL
);
CREATE INDEX lineage_events_run ON lineage_events (run_id, event_time, digest);
CREATE INDEX lineage_events_received ON lineage_events (received_at);

-- A run as its events describe it (`LineageRun::merge`). `state_key` orders its
-- transitions in one number, event time in microseconds times 8 plus the state's rank
-- (`RunState::rank`), NULL while no transition has been seen (state OTHER), so an event
-- merges with one upsert of CASE expressions whatever order events come in.
CREATE TABLE lineage_runs (
    run_id        {text} NOT NULL PRIMARY KEY,
    job_namespace {text} NOT NULL,
    job_name      {text} NOT NULL,
    state         {text} NOT NULL,
    state_at      BIGINT NOT NULL,
    state_key     BIGINT,
    started_at    BIGINT,
    ended_at      BIGINT,
    error_message {text},
    error_at      BIGINT
);
CREATE INDEX lineage_runs_job ON lineage_runs (job_namespace, job_name, state_at);
CREATE INDEX lineage_runs_state_at ON lineage_runs (state_at, run_id);
