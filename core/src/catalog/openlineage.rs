//! OpenLineage intake (`POST /api/v1/lineage` and `/api/v1/lineage/batch`) and the runs
//! it keeps (`GET /api/v1/namespaces/{namespace}/jobs/{job}/runs`, `GET
//! /api/v1/jobs/runs/{runId}`, the paths Marquez answers them at). See
//! `docs/openlineage.md`.
//!
//! Posting needs the global capability `EmitLineage` (the built-in role Lineage
//! Emitter). Each event is checked against the specification's schema
//! ([`crate::openlineage`]); one that fails is refused with what is wrong and nothing of
//! it is written; an event posted again is kept once and changes nothing.

use serde::Serialize;
use serde_json::Value;

use super::Catalog;
use crate::auth::Caller;
use crate::error::{Error, Result};
use crate::model::{Capability, LineageEvent, LineageRun, RunFilter, format_datetime, now};
use crate::openlineage::{self, MAX_BATCH};
use crate::store::{Batch, Op};

/// What became of one posted event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventAnswer {
    /// `accepted` (kept now), `repeated` (kept before: nothing changed) or `refused`.
    pub status: &'static str,
    /// The event's digest (SHA-256 of its canonical JSON), unless refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub digest: Option<String>,
    /// Why it was refused.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_code: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

impl EventAnswer {
    fn kept(event: &LineageEvent, repeated: bool) -> Self {
        Self {
            status: if repeated { "repeated" } else { "accepted" },
            digest: Some(event.digest.clone()),
            error_code: None,
            message: None,
        }
    }

    fn refused(error: Error) -> Self {
        Self {
            status: "refused",
            digest: None,
            error_code: Some(error.code.as_str()),
            message: Some(error.message),
        }
    }
}

/// A run as the API answers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRecord {
    pub run_id: String,
    pub job_namespace: String,
    pub job_name: String,
    /// START, RUNNING, COMPLETE, ABORT, FAIL; OTHER while no transition was posted.
    pub state: &'static str,
    /// The event time of the state (RFC 3339).
    pub state_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub started_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ended_at: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_message: Option<String>,
}

impl From<LineageRun> for RunRecord {
    fn from(run: LineageRun) -> Self {
        Self {
            run_id: run.run_id,
            job_namespace: run.job_namespace,
            job_name: run.job_name,
            state: run.state.as_str(),
            state_at: format_datetime(&run.state_at),
            started_at: run.started_at.as_ref().map(format_datetime),
            ended_at: run.ended_at.as_ref().map(format_datetime),
            error_message: run.error_message,
        }
    }
}

/// The most runs one listing answers.
pub const MAX_RUNS: u32 = 1_000;

impl Catalog {
    /// Keeps one posted event; refuses it (an error) when it is not an OpenLineage
    /// event.
    pub async fn accept_lineage_event(
        &self,
        caller: &Caller,
        event: &Value,
    ) -> Result<EventAnswer> {
        caller.require(Capability::EmitLineage)?;
        let event = openlineage::read_event(event, caller.name(), now())?;
        let repeated = self.store.lineage_event(&event.digest).await?.is_some();
        if !repeated {
            let answer = EventAnswer::kept(&event, false);
            self.store
                .apply(Batch {
                    ops: vec![Op::PutLineageEvent(event)],
                })
                .await?;
            return Ok(answer);
        }
        Ok(EventAnswer::kept(&event, true))
    }

    /// Keeps the events of a batch that are OpenLineage events, all in one write, and
    /// answers for each what became of it, in order.
    pub async fn accept_lineage_batch(
        &self,
        caller: &Caller,
        events: &[Value],
    ) -> Result<Vec<EventAnswer>> {
        caller.require(Capability::EmitLineage)?;
        if events.len() > MAX_BATCH {
            return Err(Error::invalid(format!(
                "a batch holds at most {MAX_BATCH} events, not {}",
                events.len()
            )));
        }
        let received = now();
        let mut answers = Vec::with_capacity(events.len());
        let mut ops = Vec::new();
        let mut digests: Vec<String> = Vec::new();
        for value in events {
            match openlineage::read_event(value, caller.name(), received) {
                Err(e) => answers.push(EventAnswer::refused(e)),
                Ok(event) => {
                    let repeated = digests.contains(&event.digest)
                        || self.store.lineage_event(&event.digest).await?.is_some();
                    answers.push(EventAnswer::kept(&event, repeated));
                    if !repeated {
                        digests.push(event.digest.clone());
                        ops.push(Op::PutLineageEvent(event));
                    }
                }
            }
        }
        if !ops.is_empty() {
            self.store.apply(Batch { ops }).await?;
        }
        Ok(answers)
    }

    /// The runs of a job, newest first. Runs are not objects yet: they are shown to
    /// callers who see the whole catalog (`ViewMetadata` globally) and to those who
    /// post lineage.
    pub async fn lineage_runs(
        &self,
        caller: &Caller,
        namespace: &str,
        job: &str,
        limit: Option<&str>,
    ) -> Result<Vec<RunRecord>> {
        self.require_runs(caller)?;
        let limit = super::lineage::bounded(limit, "limit", 100, MAX_RUNS)?;
        let filter = RunFilter {
            job_namespace: Some(namespace.to_owned()),
            job_name: Some(job.to_owned()),
            limit: limit as usize,
        };
        let runs = self.store.lineage_runs(&filter).await?;
        Ok(runs.into_iter().map(RunRecord::from).collect())
    }

    /// One run, as its events describe it.
    pub async fn lineage_run(&self, caller: &Caller, run_id: &str) -> Result<RunRecord> {
        self.require_runs(caller)?;
        match self.store.lineage_run(run_id).await? {
            Some(run) => Ok(run.into()),
            None => Err(Error::not_found(format!("no run '{run_id}'"))),
        }
    }

    fn require_runs(&self, caller: &Caller) -> Result<()> {
        if caller.has(Capability::ViewMetadata) || caller.has(Capability::EmitLineage) {
            Ok(())
        } else {
            caller.require(Capability::ViewMetadata)
        }
    }

    /// Removes the raw events received before `before` (the retention the
    /// configuration sets); runs stay. Returns how many. Run by the server.
    pub(crate) async fn purge_lineage_events(
        &self,
        before: crate::model::Timestamp,
    ) -> Result<u64> {
        self.store.purge_lineage_events(before).await
    }
}
