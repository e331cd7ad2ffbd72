//! OpenLineage intake (`POST /api/v1/lineage` and `/api/v1/lineage/batch`) and the runs
//! it keeps (`GET /api/v1/namespaces/{namespace}/jobs/{job}/runs`, `GET
//! /api/v1/jobs/runs/{runId}`, the paths Marquez answers them at). See
//! `docs/openlineage.md`.
//!
//! Posting needs the global capability `EmitLineage` (the built-in role Lineage
//! Emitter); setting lineage into an object outside the models the intake makes needs
//! Edit Metadata on its model too. Each event is checked against the specification's
//! schema and the server's bounds ([`crate::openlineage`]); one that fails is refused
//! with what is wrong and nothing of it is written; an event posted again is kept once
//! and changes nothing.

mod map;

pub(crate) use map::HarvestCache;

use serde::Serialize;
use serde_json::Value;

use super::Lineage;
use crate::auth::Caller;
use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::model::{
    Author, Capability, LineageEvent, LineageRun, RunFilter, Source, format_datetime, now,
};
use crate::openlineage::{self, MAX_BATCH};
use crate::store::Op;

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
    /// How a kept event was read (no `schemaURL`, a time without a zone) and what of it
    /// could not be mapped into the model (the SQL of its job that could not be read
    /// or resolved), in words.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl EventAnswer {
    fn kept(event: &LineageEvent, repeated: bool) -> Self {
        Self {
            status: if repeated { "repeated" } else { "accepted" },
            digest: Some(event.digest.clone()),
            error_code: None,
            message: None,
            notes: Vec::new(),
        }
    }

    fn refused(error: Error) -> Self {
        Self {
            status: "refused",
            digest: None,
            error_code: Some(error.code.as_str()),
            message: Some(error.message),
            notes: Vec::new(),
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

impl Lineage<'_> {
    /// Keeps one posted event and maps it into the model ([`map`]); refuses it (an
    /// error) when it is not an OpenLineage event or the model cannot take it.
    pub async fn accept_lineage_event(
        &self,
        caller: &Caller,
        event: &Value,
    ) -> Result<EventAnswer> {
        let answers = self
            .accept_events(caller, std::slice::from_ref(event))
            .await?;
        answers.into_iter().next().expect("one answer per event")
    }

    /// Keeps the events of a batch that are OpenLineage events, all in one write, and
    /// answers for each what became of it, in order.
    pub async fn accept_lineage_batch(
        &self,
        caller: &Caller,
        events: &[Value],
    ) -> Result<Vec<EventAnswer>> {
        if events.len() > MAX_BATCH {
            caller.require(Capability::EmitLineage)?;
            return Err(Error::invalid(format!(
                "a batch holds at most {MAX_BATCH} events, not {}",
                events.len()
            )));
        }
        let answers = self.accept_events(caller, events).await?;
        Ok(answers
            .into_iter()
            .map(|a| a.unwrap_or_else(EventAnswer::refused))
            .collect())
    }

    /// Reads, maps and writes events: in one write, unless what they change passes the
    /// edge bound of one event ([`max_edges`](openlineage::EventLimits::max_edges)),
    /// when the events so far are written and the next ones go in another (so memory
    /// holds about one event's worth of edges, however large the batch).
    async fn accept_events(
        &self,
        caller: &Caller,
        events: &[Value],
    ) -> Result<Vec<Result<EventAnswer>>> {
        caller.require(Capability::EmitLineage)?;
        let received = now();
        let mut answers = Vec::with_capacity(events.len());
        let mut start = 0;
        while start < events.len() {
            let (chunk, used) = self
                .accept_chunk(caller, &events[start..], received)
                .await?;
            answers.extend(chunk);
            start += used.max(1);
        }
        Ok(answers)
    }

    /// Reads, maps and writes the first events of `events` in one write, as many as fit
    /// in the edge bound of one event (at least one); answers for them and how many
    /// they were. Another process making the same object meanwhile fails the write
    /// with CONFLICT: the events are mapped again from what is stored then.
    async fn accept_chunk(
        &self,
        caller: &Caller,
        events: &[Value],
        received: crate::model::Timestamp,
    ) -> Result<(Vec<Result<EventAnswer>>, usize)> {
        let limits = self.config().lineage_limits;
        let mut attempt = 0;
        loop {
            attempt += 1;
            let mut answers = Vec::with_capacity(events.len());
            let mut kept = Vec::new();
            let mut digests: Vec<String> = Vec::new();
            let mut mapper = map::Mapper::new(self, caller, &limits);
            let mut used = 0;
            for value in events {
                if used > 0 && mapper.edge_ops() >= limits.max_edges {
                    break;
                }
                used += 1;
                let read =
                    match openlineage::read_event_within(value, caller.name(), received, &limits) {
                        Err(e) => {
                            answers.push(Err(e));
                            continue;
                        }
                        Ok(read) => read,
                    };
                let event = read.event;
                let repeated = digests.contains(&event.digest)
                    || self.store.lineage_event(&event.digest).await?.is_some();
                if repeated {
                    answers.push(Ok(EventAnswer::kept(&event, true)));
                    continue;
                }
                match mapper.event(value, event.event_time).await {
                    Err(e) if e.code.http_status() < 500 => answers.push(Err(e)),
                    Err(e) => return Err(e),
                    Ok(notes) => {
                        let mut answer = EventAnswer::kept(&event, false);
                        answer.notes = read.notes;
                        answer.notes.extend(notes);
                        answers.push(Ok(answer));
                        digests.push(event.digest.clone());
                        kept.push(Op::PutLineageEvent(event));
                    }
                }
            }
            if kept.is_empty() {
                return Ok((answers, used));
            }
            kept.extend(mapper.into_ops());
            match self
                .write(Author::by(Source::OpenLineage, caller.user()), kept)
                .await
            {
                Ok(_) => return Ok((answers, used)),
                Err(e) if attempt < 3 && map::lost_race(&e) => continue,
                Err(e) if map::lost_race(&e) && used > 1 => {
                    // A clash that stays: each event on its own, so only the one that
                    // clashes is refused.
                    let mut answers = Vec::with_capacity(used);
                    for event in &events[..used] {
                        let alone = std::slice::from_ref(event);
                        match Box::pin(self.accept_chunk(caller, alone, received)).await {
                            Ok((answer, _)) => answers.extend(answer),
                            Err(e) if map::lost_race(&e) => answers.push(Err(e)),
                            Err(e) => return Err(e),
                        }
                    }
                    return Ok((answers, used));
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// The runs of a job, newest first: the job's history. A caller sees the runs of a
    /// job whose object they see (or every run, posting lineage); of any other job, none,
    /// as of a job that does not exist.
    pub async fn lineage_runs(
        &self,
        caller: &Caller,
        namespace: &str,
        job: &str,
        limit: Option<&str>,
    ) -> Result<Vec<RunRecord>> {
        self.require_runs(caller)?;
        let limit = crate::catalog::lineage::flow::bounded(limit, "limit", 100, MAX_RUNS)?;
        if !self.sees_job(caller, namespace, job).await? {
            return Ok(Vec::new());
        }
        let filter = RunFilter {
            job_namespace: Some(namespace.to_owned()),
            job_name: Some(job.to_owned()),
            limit: limit as usize,
        };
        let runs = self.store.lineage_runs(&filter).await?;
        Ok(runs.into_iter().map(RunRecord::from).collect())
    }

    /// One run, as its events describe it, when the caller sees its job.
    pub async fn lineage_run(&self, caller: &Caller, run_id: &str) -> Result<RunRecord> {
        self.require_runs(caller)?;
        match self.store.lineage_run(run_id).await? {
            Some(run)
                if self
                    .sees_job(caller, &run.job_namespace, &run.job_name)
                    .await? =>
            {
                Ok(run.into())
            }
            _ => Err(Error::not_found(format!("no run '{run_id}'"))),
        }
    }

    fn require_runs(&self, caller: &Caller) -> Result<()> {
        if caller.has(Capability::EmitLineage) {
            Ok(())
        } else {
            crate::catalog::visibility::require_view_somewhere(caller)
        }
    }

    /// Whether the caller sees the job: they post lineage, or see its object (a job
    /// without one, from before events were mapped, only with View Metadata globally).
    async fn sees_job(&self, caller: &Caller, namespace: &str, job: &str) -> Result<bool> {
        if caller.has(Capability::EmitLineage) || caller.has(Capability::ViewMetadata) {
            return Ok(true);
        }
        match self.job_object(caller, namespace, job).await? {
            Some(job) => Ok(self.sight(caller).await?.sees(&job)),
            None => Ok(false),
        }
    }
}

impl Catalog {
    /// Removes the raw events received before `before` (the retention the
    /// configuration sets); runs stay. Returns how many. Run by the server.
    pub(crate) async fn purge_lineage_events(
        &self,
        before: crate::model::Timestamp,
    ) -> Result<u64> {
        self.store.purge_lineage_events(before).await
    }
}
