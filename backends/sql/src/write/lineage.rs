//! Writes of OpenLineage events: each stored once, and a run event merged into its run
//! by one upsert whose CASE expressions are [`LineageRun::merge`] — a run's fields are
//! each the greatest or least of its events' (a join), so merging the run of one event
//! ([`LineageRun::of`]) into the stored run is merging the event, in any order, and
//! concurrent writers of one run wait for each other on its row and each merge into
//! what the other left.
//!
//! The run is merged only when the event is new. On PostgreSQL one statement does both:
//! the event's insert (`ON CONFLICT (digest) DO NOTHING`) in a CTE answers the row it
//! inserted, and the run's upsert reads from it, so an event another process stored
//! first (its insert waited for that one to commit) merges nothing. SQLite has one
//! writer at a time and no writing CTE: the run's upsert runs first, only when no event
//! of the digest is stored, then the event's insert.
//!
//! A restore writes runs as they were ([`PUT_RUN`]): a run outlives its purged events.

use lore_core::model::{LineageEvent, LineageRun};
use lore_core::store::lineage_state_key;

use crate::dialect::Dialect;
use crate::value::SqlValue;

use super::Writer;

/// The event's insert, its parameters `$1`..`$11`.
macro_rules! insert_event {
    () => {
        "INSERT INTO lineage_events (digest, kind, event_time, received_at, received_from, \
         run_id, event_type, job_namespace, job_name, error_message, body) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) \
         ON CONFLICT (digest) DO NOTHING"
    };
}

/// The columns of the run's insert, its values `$12`..`$21` in this order.
macro_rules! run_columns {
    () => {
        "INSERT INTO lineage_runs (run_id, job_namespace, job_name, state, state_at, state_key, \
         started_at, ended_at, error_message, error_at) \
         SELECT $12, $13, $14, $15, $16, $17, $18, $19, $20, $21"
    };
}

/// [`LineageRun::merge`] of the run of one event (`excluded`) into the stored one: the
/// greatest job, the transition of the greatest state key (while neither has one, the
/// latest time), the earliest start, the latest end, the latest error message (ties by
/// the message).
macro_rules! merge_run {
    () => {
        " ON CONFLICT (run_id) DO UPDATE SET \
         job_namespace = CASE WHEN excluded.job_namespace > lineage_runs.job_namespace \
             OR (excluded.job_namespace = lineage_runs.job_namespace \
                 AND excluded.job_name > lineage_runs.job_name) \
             THEN excluded.job_namespace ELSE lineage_runs.job_namespace END, \
         job_name = CASE WHEN excluded.job_namespace > lineage_runs.job_namespace \
             OR (excluded.job_namespace = lineage_runs.job_namespace \
                 AND excluded.job_name > lineage_runs.job_name) \
             THEN excluded.job_name ELSE lineage_runs.job_name END, \
         state = CASE WHEN excluded.state_key IS NOT NULL AND (lineage_runs.state_key IS NULL \
                 OR excluded.state_key > lineage_runs.state_key) \
             THEN excluded.state ELSE lineage_runs.state END, \
         state_at = CASE WHEN excluded.state_key IS NOT NULL AND (lineage_runs.state_key IS NULL \
                 OR excluded.state_key > lineage_runs.state_key) THEN excluded.state_at \
             WHEN lineage_runs.state_key IS NULL AND excluded.state_at > lineage_runs.state_at \
                 THEN excluded.state_at \
             ELSE lineage_runs.state_at END, \
         state_key = CASE WHEN excluded.state_key IS NOT NULL AND (lineage_runs.state_key IS NULL \
                 OR excluded.state_key > lineage_runs.state_key) \
             THEN excluded.state_key ELSE lineage_runs.state_key END, \
         started_at = CASE WHEN excluded.started_at IS NOT NULL AND (lineage_runs.started_at IS NULL \
                 OR excluded.started_at < lineage_runs.started_at) \
             THEN excluded.started_at ELSE lineage_runs.started_at END, \
         ended_at = CASE WHEN excluded.ended_at IS NOT NULL AND (lineage_runs.ended_at IS NULL \
                 OR excluded.ended_at > lineage_runs.ended_at) \
             THEN excluded.ended_at ELSE lineage_runs.ended_at END, \
         error_message = CASE WHEN excluded.error_at IS NOT NULL AND (lineage_runs.error_at IS NULL \
                 OR excluded.error_at > lineage_runs.error_at \
                 OR (excluded.error_at = lineage_runs.error_at \
                     AND excluded.error_message > lineage_runs.error_message)) \
             THEN excluded.error_message ELSE lineage_runs.error_message END, \
         error_at = CASE WHEN excluded.error_at IS NOT NULL AND (lineage_runs.error_at IS NULL \
                 OR excluded.error_at > lineage_runs.error_at \
                 OR (excluded.error_at = lineage_runs.error_at \
                     AND excluded.error_message > lineage_runs.error_message)) \
             THEN excluded.error_at ELSE lineage_runs.error_at END"
    };
}

/// PostgreSQL: the event's insert, and the run's upsert of the row it inserted.
const POSTGRES_PUT: &str = concat!(
    "WITH inserted AS (",
    insert_event!(),
    " RETURNING digest) ",
    run_columns!(),
    " FROM inserted",
    merge_run!()
);

/// SQLite: the run's upsert when no event of the digest (`$1`) is stored, before
/// [`INSERT_EVENT`].
const SQLITE_MERGE: &str = concat!(
    run_columns!(),
    " WHERE NOT EXISTS (SELECT 1 FROM lineage_events WHERE digest = $1)",
    merge_run!()
);

/// The event's insert alone (an event without a run, SQLite's second statement).
const INSERT_EVENT: &str = insert_event!();

/// A run as given, replacing the stored one of its id (`$1`..`$10` as `run_columns!`).
const PUT_RUN: &str = "INSERT INTO lineage_runs (run_id, job_namespace, job_name, state, state_at, \
     state_key, started_at, ended_at, error_message, error_at) \
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) \
     ON CONFLICT (run_id) DO UPDATE SET job_namespace = excluded.job_namespace, \
     job_name = excluded.job_name, state = excluded.state, state_at = excluded.state_at, \
     state_key = excluded.state_key, started_at = excluded.started_at, \
     ended_at = excluded.ended_at, error_message = excluded.error_message, \
     error_at = excluded.error_at";

impl Writer {
    pub(super) fn put_lineage_run(&mut self, run: LineageRun) {
        let what = format!("storing lineage run {}", run.run_id);
        self.exec(PUT_RUN, run_params(run).to_vec(), what);
    }

    pub(super) fn put_lineage_event(&mut self, event: LineageEvent) {
        let what = format!("storing lineage event {}", event.digest);
        let run = LineageRun::of(&event);
        let mut params: Vec<SqlValue> = vec![
            event.digest.into(),
            event.kind.as_str().into(),
            event.event_time.into(),
            event.received_at.into(),
            event.received_from.into(),
            event.run_id.into(),
            event.event_type.map(|t| t.as_str().to_owned()).into(),
            event.job_namespace.into(),
            event.job_name.into(),
            event.error_message.into(),
            event.body.into(),
        ];
        let Some(run) = run else {
            self.exec(INSERT_EVENT, params, what);
            return;
        };
        params.extend(run_params(run));
        match self.dialect {
            Dialect::Postgres => self.exec(POSTGRES_PUT, params, what),
            Dialect::Sqlite => {
                let event_params = params[..11].to_vec();
                self.exec(SQLITE_MERGE, params, format!("{what} (merging its run)"));
                self.exec(INSERT_EVENT, event_params, what);
            }
        }
    }
}

/// A run as the parameters `$12`..`$21` of `run_columns!` (`$1`..`$10` of [`PUT_RUN`]).
fn run_params(run: LineageRun) -> [SqlValue; 10] {
    [
        run.run_id.into(),
        run.job_namespace.into(),
        run.job_name.into(),
        run.state.as_str().into(),
        run.state_at.into(),
        lineage_state_key(run.state_at, run.state).into(),
        run.started_at.map(|t| t.timestamp_micros()).into(),
        run.ended_at.map(|t| t.timestamp_micros()).into(),
        run.error_message.into(),
        run.error_at.map(|t| t.timestamp_micros()).into(),
    ]
}
