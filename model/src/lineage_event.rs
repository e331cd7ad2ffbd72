//! OpenLineage events as Lore keeps them: each accepted event whole (its raw JSON, with
//! every facet Lore does not read), and per run the state its events say it is in.
//!
//! Events arrive in any order and may arrive again (producers retry). A repeated event
//! has the same [`LineageEvent::digest`] and changes nothing; a run's state is the one
//! of its latest event by *event time*, not by arrival, so the stored run is the same
//! whatever order its events came in ([`LineageRun::merge`] is the rule every backend
//! follows).

use serde::{Deserialize, Serialize};

use super::Timestamp;

/// The three kinds of event of OpenLineage 2-0-2, written as [`LineageEventKind::as_str`]
/// spells them (`run`, `dataset`, `job`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "&'static str", try_from = "String")]
pub enum LineageEventKind {
    Run,
    Dataset,
    Job,
}

impl LineageEventKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Run => "run",
            Self::Dataset => "dataset",
            Self::Job => "job",
        }
    }

    pub fn parse(text: &str) -> Option<Self> {
        [Self::Run, Self::Dataset, Self::Job]
            .into_iter()
            .find(|k| k.as_str() == text)
    }
}

impl From<LineageEventKind> for &'static str {
    fn from(kind: LineageEventKind) -> Self {
        kind.as_str()
    }
}

impl TryFrom<String> for LineageEventKind {
    type Error = String;
    fn try_from(text: String) -> Result<Self, String> {
        Self::parse(&text).ok_or_else(|| format!("no event kind '{text}'"))
    }
}

/// A run event's `eventType`: the transition of the run it reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RunState {
    Start,
    Running,
    Complete,
    Abort,
    Fail,
    /// Metadata about the run, not a transition: it leaves the run's state as it was.
    Other,
}

impl RunState {
    pub const ALL: [RunState; 6] = [
        Self::Start,
        Self::Running,
        Self::Complete,
        Self::Abort,
        Self::Fail,
        Self::Other,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Start => "START",
            Self::Running => "RUNNING",
            Self::Complete => "COMPLETE",
            Self::Abort => "ABORT",
            Self::Fail => "FAIL",
            Self::Other => "OTHER",
        }
    }

    /// Exactly as the specification spells it (upper case).
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.as_str() == text)
    }

    /// Whether the run has ended with it.
    pub fn is_terminal(self) -> bool {
        matches!(self, Self::Complete | Self::Abort | Self::Fail)
    }

    /// How two transitions at the same event time are ordered: the run ends after it
    /// starts and runs, and a failure outranks an abort, which outranks success. `OTHER`
    /// is no transition (0: it never sets the state).
    pub fn rank(self) -> i64 {
        match self {
            Self::Other => 0,
            Self::Start => 1,
            Self::Running => 2,
            Self::Complete => 3,
            Self::Abort => 4,
            Self::Fail => 5,
        }
    }
}

/// One accepted OpenLineage event. A backup writes it as it is (`lineage_events.jsonl`,
/// `docs/backup.md`): camelCase fields, `kind` as `run`, `dataset` or `job`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineageEvent {
    /// The SHA-256 of the event's canonical JSON (keys sorted), in hex: the same event
    /// sent twice has the same digest, and is kept once.
    pub digest: String,
    pub kind: LineageEventKind,
    /// `eventTime`, at microsecond precision.
    pub event_time: Timestamp,
    /// When Lore accepted it (first time).
    pub received_at: Timestamp,
    /// The user whose key posted it.
    pub received_from: String,
    /// A run event's `run.runId`.
    pub run_id: Option<String>,
    /// A run event's `eventType`.
    pub event_type: Option<RunState>,
    /// The job of a run or job event.
    pub job_namespace: Option<String>,
    pub job_name: Option<String>,
    /// A run event's `run.facets.errorMessage.message`.
    pub error_message: Option<String>,
    /// The event as it was posted (canonical JSON), every facet included.
    pub body: String,
}

/// A run as its events describe it. A backup writes it as it is (`lineage_runs.jsonl`,
/// `docs/backup.md`): camelCase fields, kept after its raw events are purged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LineageRun {
    pub run_id: String,
    /// The job of its events (the greatest `(namespace, name)` should they differ; empty
    /// when its events name none).
    pub job_namespace: String,
    pub job_name: String,
    /// The state of its latest transition by event time (ties by [`RunState::rank`]);
    /// `OTHER` only while no transition has been seen.
    pub state: RunState,
    /// The event time of that transition (while there is none, of the latest event).
    pub state_at: Timestamp,
    /// The earliest START's event time.
    pub started_at: Option<Timestamp>,
    /// The latest COMPLETE, ABORT or FAIL's event time.
    pub ended_at: Option<Timestamp>,
    /// The error message of the latest FAIL that had one.
    pub error_message: Option<String>,
    /// The error message's event time (which FAIL is latest).
    pub error_at: Option<Timestamp>,
}

impl LineageRun {
    /// The run as its first event describes it.
    pub fn of(event: &LineageEvent) -> Option<LineageRun> {
        let (Some(run_id), Some(state)) = (&event.run_id, event.event_type) else {
            return None;
        };
        let mut run = LineageRun {
            run_id: run_id.clone(),
            job_namespace: event.job_namespace.clone().unwrap_or_default(),
            job_name: event.job_name.clone().unwrap_or_default(),
            state: RunState::Other,
            state_at: event.event_time,
            started_at: None,
            ended_at: None,
            error_message: None,
            error_at: None,
        };
        run.merge_fields(event.event_time, state, event.error_message.as_deref());
        Some(run)
    }

    /// The run with one more of its events: the rule every backend follows. It depends
    /// only on the set of events merged, not on their order, and merging an event again
    /// changes nothing.
    pub fn merge(&mut self, event: &LineageEvent) {
        if let Some(state) = event.event_type {
            // The job is the same in every event of a run; should they differ, the
            // greatest (namespace, name) is kept, whatever came first.
            let job = (
                event.job_namespace.as_deref().unwrap_or_default(),
                event.job_name.as_deref().unwrap_or_default(),
            );
            if job > (self.job_namespace.as_str(), self.job_name.as_str()) {
                self.job_namespace = job.0.to_owned();
                self.job_name = job.1.to_owned();
            }
            self.merge_fields(event.event_time, state, event.error_message.as_deref());
        }
    }

    /// The order key of a transition: later event time first, then [`RunState::rank`].
    pub fn state_key(at: Timestamp, state: RunState) -> (Timestamp, i64) {
        (at, state.rank())
    }

    fn merge_fields(&mut self, at: Timestamp, state: RunState, error: Option<&str>) {
        if state == RunState::Other && self.state == RunState::Other {
            // No transition yet: the time of the latest event.
            self.state_at = self.state_at.max(at);
        }
        if state != RunState::Other
            && (self.state == RunState::Other
                || Self::state_key(at, state) > Self::state_key(self.state_at, self.state))
        {
            self.state = state;
            self.state_at = at;
        }
        if state == RunState::Start {
            self.started_at = Some(self.started_at.map_or(at, |s| s.min(at)));
        }
        if state.is_terminal() {
            self.ended_at = Some(self.ended_at.map_or(at, |e| e.max(at)));
        }
        if state == RunState::Fail
            && let Some(error) = error
        {
            let later = match (&self.error_at, &self.error_message) {
                (Some(was), Some(message)) => (at, error) > (*was, message.as_str()),
                _ => true,
            };
            if later {
                self.error_message = Some(error.to_owned());
                self.error_at = Some(at);
            }
        }
    }
}

/// Which runs a listing covers: one job's, newest first by state time.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunFilter {
    pub job_namespace: Option<String>,
    pub job_name: Option<String>,
    pub limit: usize,
}

impl RunFilter {
    /// Whether the run passes: the reference every backend answers like.
    pub fn matches(&self, run: &LineageRun) -> bool {
        self.job_namespace
            .as_ref()
            .is_none_or(|n| *n == run.job_namespace)
            && self.job_name.as_ref().is_none_or(|n| *n == run.job_name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(at: i64, state: RunState, error: Option<&str>) -> LineageEvent {
        LineageEvent {
            digest: format!("{at}{state:?}"),
            kind: LineageEventKind::Run,
            event_time: chrono::DateTime::from_timestamp(at, 0).unwrap(),
            received_at: chrono::DateTime::from_timestamp(0, 0).unwrap(),
            received_from: "pipeline".to_owned(),
            run_id: Some("r".to_owned()),
            event_type: Some(state),
            job_namespace: Some("ns".to_owned()),
            job_name: Some("job".to_owned()),
            error_message: error.map(str::to_owned),
            body: "{}".to_owned(),
        }
    }

    #[test]
    fn a_run_is_the_same_whatever_order_its_events_came_in() {
        let events = [
            event(10, RunState::Start, None),
            event(20, RunState::Running, None),
            event(30, RunState::Fail, Some("out of memory")),
            event(30, RunState::Complete, None),
            event(40, RunState::Other, None),
        ];
        let mut orders = vec![
            vec![0, 1, 2, 3, 4],
            vec![4, 3, 2, 1, 0],
            vec![2, 0, 4, 1, 3],
        ];
        orders.push(vec![1, 1, 3, 0, 2, 4, 2]);
        let runs: Vec<LineageRun> = orders
            .iter()
            .map(|order| {
                let mut run = LineageRun::of(&events[order[0]]).unwrap();
                for &i in &order[1..] {
                    run.merge(&events[i]);
                }
                run
            })
            .collect();
        for run in &runs {
            assert_eq!(run, &runs[0]);
        }
        let run = &runs[0];
        assert_eq!(
            run.state,
            RunState::Fail,
            "a failure outranks success at one time"
        );
        assert_eq!(run.started_at, Some(events[0].event_time));
        assert_eq!(run.ended_at, Some(events[2].event_time));
        assert_eq!(run.error_message.as_deref(), Some("out of memory"));
    }

    #[test]
    fn the_job_does_not_depend_on_the_order_either() {
        let mut first = event(10, RunState::Start, None);
        first.job_name = Some("a".to_owned());
        let mut second = event(20, RunState::Complete, None);
        second.job_name = Some("b".to_owned());
        let mut third = event(30, RunState::Other, None);
        third.job_namespace = None;
        third.job_name = None;
        let mut forward = LineageRun::of(&first).unwrap();
        forward.merge(&second);
        forward.merge(&third);
        let mut backward = LineageRun::of(&third).unwrap();
        backward.merge(&second);
        backward.merge(&first);
        assert_eq!(forward, backward);
        assert_eq!(
            (forward.job_namespace.as_str(), forward.job_name.as_str()),
            ("ns", "b")
        );
    }

    #[test]
    fn other_leaves_the_state_alone() {
        let mut run = LineageRun::of(&event(50, RunState::Other, None)).unwrap();
        assert_eq!(run.state, RunState::Other);
        run.merge(&event(10, RunState::Start, None));
        assert_eq!(
            run.state,
            RunState::Start,
            "the first transition, though earlier"
        );
        run.merge(&event(60, RunState::Other, None));
        assert_eq!(run.state, RunState::Start);
    }

    /// What a restore relies on: a run written as it was takes its remaining events
    /// (any subset of those it was made of) without changing, whatever its state.
    #[test]
    fn merging_events_a_run_reflects_changes_nothing() {
        let mut other_job = event(40, RunState::Other, None);
        other_job.job_name = Some("other".to_owned());
        let transitions = vec![
            event(5, RunState::Other, None),
            event(10, RunState::Start, None),
            event(30, RunState::Fail, Some("boom")),
            event(30, RunState::Fail, Some("Boom")),
            event(30, RunState::Complete, None),
            other_job,
            event(50, RunState::Other, None),
        ];
        let only_other = vec![
            event(20, RunState::Other, None),
            event(60, RunState::Other, None),
            event(40, RunState::Other, None),
        ];
        for events in [transitions, only_other] {
            let mut full = LineageRun::of(&events[0]).unwrap();
            for e in &events[1..] {
                full.merge(e);
            }
            for skip in 0..events.len() {
                let mut run = full.clone();
                for e in events.iter().skip(skip).rev() {
                    run.merge(e);
                }
                assert_eq!(run, full, "the events from {skip} on");
            }
        }
    }
}
