//! OpenLineage events and their runs: each event stored once, a run the same whatever
//! order its events came in ([`LineageRun::merge`] is the reference), listings, the
//! purge by age, and atomic batches.

use super::*;

/// A run event of `run` at `second` (and 7 µs) after the epoch, received at 1000 s.
pub(super) fn lineage_run_event(
    run: &str,
    second: i64,
    state: RunState,
    error: Option<&str>,
) -> LineageEvent {
    let error_part = error.unwrap_or_default();
    LineageEvent {
        digest: format!("{run}/{second}/{}/{error_part}", state.as_str()),
        kind: LineageEventKind::Run,
        event_time: at(second * 1_000) + Duration::microseconds(7),
        received_at: at(1_000_000),
        received_from: "pipeline".into(),
        run_id: Some(run.into()),
        event_type: Some(state),
        job_namespace: Some("warehouse".into()),
        job_name: Some("nightly".into()),
        error_message: error.map(str::to_owned),
        body: format!(
            r#"{{"eventTime":"{second}","eventType":"{}","run":{{"runId":"{run}"}}}}"#,
            state.as_str()
        ),
    }
}

/// The run the reference rule makes of the events, in their order.
fn reference(events: &[LineageEvent]) -> LineageRun {
    let mut run = LineageRun::of(&events[0]).expect("a run event");
    for event in &events[1..] {
        run.merge(event);
    }
    run
}

fn put(events: impl IntoIterator<Item = LineageEvent>) -> Vec<Op> {
    events.into_iter().map(Op::PutLineageEvent).collect()
}

async fn run_of(store: &dyn Store, run_id: &str) -> Option<LineageRun> {
    ok(store.lineage_run(run_id).await, "lineage_run")
}

async fn events_of(store: &dyn Store, run_id: &str) -> Vec<LineageEvent> {
    ok(store.lineage_events(run_id).await, "lineage_events")
}

/// The events of one run: OTHER before and after, START, RUNNING, a FAIL with an error,
/// two FAILs and a COMPLETE at one later time (the messages differing in case, ordered
/// by bytes), and one event naming another job.
fn eventful_run(run: &str) -> Vec<LineageEvent> {
    let mut other_job = lineage_run_event(run, 40, RunState::Other, None);
    other_job.job_name = Some("nightly-b".into());
    vec![
        lineage_run_event(run, 5, RunState::Other, None),
        lineage_run_event(run, 10, RunState::Start, None),
        lineage_run_event(run, 20, RunState::Running, None),
        lineage_run_event(run, 25, RunState::Fail, Some("disk full")),
        lineage_run_event(run, 30, RunState::Fail, Some("Out of memory")),
        lineage_run_event(run, 30, RunState::Fail, Some("boom")),
        lineage_run_event(run, 30, RunState::Complete, None),
        other_job,
    ]
}

pub(super) async fn a_lineage_event_put_twice_is_stored_once(store: Arc<dyn Store>) {
    let store = store.as_ref();
    assert!(
        ok(
            store.lineage_runs(&RunFilter::default()).await,
            "lineage_runs"
        )
        .is_empty(),
        "a fresh store has no runs"
    );
    assert_eq!(run_of(store, "r").await, None);
    assert!(events_of(store, "r").await.is_empty());
    let start = lineage_run_event("r", 10, RunState::Start, None);
    apply(store, put([start.clone()]), "PutLineageEvent").await;
    let run = run_of(store, "r")
        .await
        .expect("the run of its first event");
    assert_eq!(run, LineageRun::of(&start).expect("a run event"));
    assert_eq!(
        ok(store.lineage_event(&start.digest).await, "lineage_event"),
        Some(start.clone()),
        "the event reads back whole"
    );

    // Again, twice in one batch and once alone.
    apply(
        store,
        put([start.clone(), start.clone()]),
        "the same event twice",
    )
    .await;
    apply(store, put([start.clone()]), "the same event again").await;
    assert_eq!(
        events_of(store, "r").await,
        vec![start.clone()],
        "kept once"
    );
    assert_eq!(
        run_of(store, "r").await.as_ref(),
        Some(&run),
        "the run is unchanged"
    );

    // Another event under a stored digest changes nothing, not even the run.
    let mut impostor = lineage_run_event("r", 99, RunState::Fail, Some("late"));
    impostor.digest = start.digest.clone();
    apply(
        store,
        put([impostor.clone()]),
        "an event of a stored digest",
    )
    .await;
    assert_eq!(
        ok(store.lineage_event(&start.digest).await, "lineage_event"),
        Some(start.clone()),
        "the first event of a digest stays"
    );
    assert_eq!(
        run_of(store, "r").await.as_ref(),
        Some(&run),
        "an event of a stored digest is not merged"
    );
    // Also when the digest's first event is in the same batch.
    let fresh = lineage_run_event("s", 10, RunState::Start, None);
    let mut twin = lineage_run_event("s", 20, RunState::Complete, None);
    twin.digest = fresh.digest.clone();
    apply(
        store,
        put([fresh.clone(), twin]),
        "two events of one digest",
    )
    .await;
    assert_eq!(events_of(store, "s").await, vec![fresh.clone()]);
    assert_eq!(run_of(store, "s").await, LineageRun::of(&fresh));
}

pub(super) async fn a_lineage_run_is_the_same_whatever_order_its_events_came_in(
    store: Arc<dyn Store>,
) {
    let store = store.as_ref();
    let expected = reference(&eventful_run("reference"));
    // The reference itself, as the rule says.
    let t = |second: i64| at(second * 1_000) + Duration::microseconds(7);
    assert_eq!(expected.state, RunState::Fail, "a failure outranks success");
    assert_eq!(expected.state_at, t(30));
    assert_eq!(expected.started_at, Some(t(10)));
    assert_eq!(expected.ended_at, Some(t(30)));
    assert_eq!(expected.error_message.as_deref(), Some("boom"), "by bytes");
    assert_eq!(expected.error_at, Some(t(30)));
    assert_eq!(
        (expected.job_namespace.as_str(), expected.job_name.as_str()),
        ("warehouse", "nightly-b")
    );

    let orders: Vec<Vec<usize>> = vec![
        (0..8).collect(),
        (0..8).rev().collect(),
        vec![3, 7, 0, 5, 1, 6, 2, 4],
        vec![6, 4, 2, 0, 7, 5, 3, 1],
        vec![5, 4, 6, 3, 2, 1, 0, 7],
        // Repeats, as producers retry.
        vec![1, 1, 6, 0, 6, 3, 2, 7, 4, 5, 4],
    ];
    for (i, order) in orders.iter().enumerate() {
        for one_batch in [true, false] {
            let run_id = format!("order-{i}-{one_batch}");
            let events = eventful_run(&run_id);
            let ordered: Vec<LineageEvent> = order.iter().map(|&k| events[k].clone()).collect();
            if one_batch {
                apply(store, put(ordered), "a run's events in one batch").await;
            } else {
                for event in ordered {
                    apply(store, put([event]), "a run's events one by one").await;
                }
            }
            let run = run_of(store, &run_id).await.expect("the run");
            assert_eq!(
                run,
                LineageRun {
                    run_id: run_id.clone(),
                    ..expected.clone()
                },
                "the run of order {order:?} (one batch: {one_batch})"
            );
            let mut sorted = events.clone();
            sorted.sort_by(|a, b| (a.event_time, &a.digest).cmp(&(b.event_time, &b.digest)));
            assert_eq!(events_of(store, &run_id).await, sorted, "each event once");
        }
    }

    // Metadata only, then a transition earlier than it.
    let others = [
        lineage_run_event("quiet", 60, RunState::Other, None),
        lineage_run_event("quiet", 50, RunState::Other, None),
    ];
    apply(store, put(others.clone()), "OTHER events").await;
    let quiet = run_of(store, "quiet").await.expect("the run");
    assert_eq!(quiet, reference(&others));
    assert_eq!(
        (quiet.state, quiet.state_at),
        (RunState::Other, at(60_000) + Duration::microseconds(7)),
        "no transition yet: the time of the latest event"
    );
    let start = lineage_run_event("quiet", 10, RunState::Start, None);
    apply(store, put([start.clone()]), "a START before them").await;
    let quiet = run_of(store, "quiet").await.expect("the run");
    assert_eq!(
        quiet,
        reference(&[others[0].clone(), others[1].clone(), start])
    );
    assert_eq!(
        quiet.state,
        RunState::Start,
        "the first transition, though earlier"
    );
}

pub(super) async fn lineage_events_of_one_run_applied_concurrently_merge_alike(
    store: Arc<dyn Store>,
) {
    let events = eventful_run("concurrent");
    let mut tasks = Vec::new();
    for task in 0..6 {
        let store = store.clone();
        let mut mine = events.clone();
        mine.rotate_left(task);
        if task % 2 == 1 {
            mine.reverse();
        }
        tasks.push(tokio::spawn(async move {
            for event in mine {
                store.apply(Batch::from(put([event]))).await?;
            }
            Ok::<(), lore_core::error::Error>(())
        }));
    }
    for task in tasks {
        ok(
            task.await.expect("a task panicked"),
            "concurrent PutLineageEvent",
        );
    }
    assert_eq!(
        run_of(store.as_ref(), "concurrent").await,
        Some(reference(&events)),
        "concurrent writers of one run leave it as the rule says"
    );
    assert_eq!(
        events_of(store.as_ref(), "concurrent").await.len(),
        events.len(),
        "each event once"
    );
}

pub(super) async fn lineage_runs_newest_first_by_job_at_most_limit(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let event = |run: &str, namespace: &str, job: &str, second: i64| {
        let mut event = lineage_run_event(run, second, RunState::Start, None);
        event.job_namespace = Some(namespace.into());
        event.job_name = Some(job.into());
        event
    };
    apply(
        store,
        put([
            event("r1", "ns1", "jobA", 10),
            event("r2", "ns1", "jobA", 30),
            event("r3", "ns1", "jobA", 30),
            event("r4", "ns1", "jobB", 20),
            event("r5", "ns2", "jobA", 40),
            event("R6", "ns1", "jobA", 30),
        ]),
        "runs of several jobs",
    )
    .await;
    let listed = |namespace: Option<&str>, job: Option<&str>, limit: usize| RunFilter {
        job_namespace: namespace.map(str::to_owned),
        job_name: job.map(str::to_owned),
        limit,
    };
    let all = ok(
        store.lineage_runs(&RunFilter::default()).await,
        "lineage_runs",
    );
    for (filter, expected) in [
        (
            listed(None, None, 0),
            vec!["r5", "r3", "r2", "R6", "r4", "r1"],
        ),
        (listed(None, None, 2), vec!["r5", "r3"]),
        (
            listed(Some("ns1"), None, 0),
            vec!["r3", "r2", "R6", "r4", "r1"],
        ),
        (
            listed(Some("ns1"), Some("jobA"), 0),
            vec!["r3", "r2", "R6", "r1"],
        ),
        (listed(Some("ns1"), Some("jobA"), 1), vec!["r3"]),
        (
            listed(None, Some("jobA"), 0),
            vec!["r5", "r3", "r2", "R6", "r1"],
        ),
        (listed(None, Some("joba"), 0), vec![]),
        (listed(Some("ns3"), None, 5), vec![]),
    ] {
        let runs = ok(store.lineage_runs(&filter).await, "lineage_runs");
        let ids: Vec<&str> = runs.iter().map(|r| r.run_id.as_str()).collect();
        assert_eq!(
            ids, expected,
            "newest first by state_at, then run id descending by bytes: {filter:?}"
        );
        let mut matching: Vec<&LineageRun> = all.iter().filter(|r| filter.matches(r)).collect();
        if filter.limit > 0 {
            matching.truncate(filter.limit);
        }
        assert_eq!(
            runs.iter().collect::<Vec<_>>(),
            matching,
            "RunFilter::matches is the filter"
        );
    }
}

pub(super) async fn lineage_events_by_event_time_then_digest_and_whole(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let mut tie_b = lineage_run_event("r", 20, RunState::Running, None);
    tie_b.digest = "b".into();
    let mut tie_a = lineage_run_event("r", 20, RunState::Other, None);
    tie_a.digest = "a".into();
    let mut fail = lineage_run_event("r", 30, RunState::Fail, Some("ünïcode \u{1F4A5}"));
    // Nanoseconds are cut to microseconds, as every time the store keeps.
    fail.event_time += Duration::nanoseconds(999);
    fail.received_at += Duration::nanoseconds(1);
    let start = lineage_run_event("r", 10, RunState::Start, None);
    let elsewhere = lineage_run_event("other", 15, RunState::Start, None);
    let dataset = LineageEvent {
        digest: "dataset".into(),
        kind: LineageEventKind::Dataset,
        event_time: at(12_000),
        received_at: at(1_000_000),
        received_from: "pipeline".into(),
        run_id: None,
        event_type: None,
        job_namespace: None,
        job_name: None,
        error_message: None,
        body: r#"{"dataset":{"name":"orders","namespace":"db"}}"#.into(),
    };
    let job = LineageEvent {
        digest: "job".into(),
        kind: LineageEventKind::Job,
        job_namespace: Some("warehouse".into()),
        job_name: Some("nightly".into()),
        body: r#"{"job":{"name":"nightly","namespace":"warehouse"}}"#.into(),
        ..dataset.clone()
    };
    apply(
        store,
        put([
            fail.clone(),
            tie_b.clone(),
            dataset.clone(),
            start.clone(),
            elsewhere,
            tie_a.clone(),
            job.clone(),
        ]),
        "events out of order",
    )
    .await;
    let mut cut = fail.clone();
    cut.event_time = micros(fail.event_time);
    cut.received_at = micros(fail.received_at);
    assert_eq!(
        events_of(store, "r").await,
        vec![start, tie_a, tie_b, cut.clone()],
        "a run's events by event time, then digest"
    );
    assert_eq!(
        ok(store.lineage_event(&fail.digest).await, "lineage_event"),
        Some(cut),
        "an event reads back whole, its times cut to microseconds"
    );
    for event in [dataset, job] {
        assert_eq!(
            ok(store.lineage_event(&event.digest).await, "lineage_event"),
            Some(event),
            "events without a run are kept too"
        );
    }
    assert_eq!(
        ok(store.lineage_event("absent").await, "lineage_event"),
        None
    );
    let runs = ok(
        store.lineage_runs(&RunFilter::default()).await,
        "lineage_runs",
    );
    assert_eq!(
        runs.iter().map(|r| r.run_id.as_str()).collect::<Vec<_>>(),
        vec!["r", "other"],
        "only run events make runs"
    );
}

pub(super) async fn purge_lineage_events_keeps_their_runs(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let received = |mut event: LineageEvent, second: i64| {
        event.received_at = at(second * 1_000);
        event
    };
    let old = received(lineage_run_event("r", 10, RunState::Start, None), 100);
    let middle = received(lineage_run_event("r", 20, RunState::Running, None), 200);
    let new = received(
        lineage_run_event("r", 30, RunState::Fail, Some("boom")),
        300,
    );
    apply(
        store,
        put([old.clone(), middle.clone(), new.clone()]),
        "events",
    )
    .await;
    let run = run_of(store, "r").await.expect("the run");
    assert_eq!(
        ok(
            store.purge_lineage_events(at(200_000)).await,
            "purge_lineage_events"
        ),
        1,
        "events received before the time (not at it)"
    );
    assert_eq!(
        events_of(store, "r").await,
        vec![middle.clone(), new.clone()]
    );
    assert_eq!(
        ok(store.lineage_event(&old.digest).await, "lineage_event"),
        None
    );
    assert_eq!(
        run_of(store, "r").await.as_ref(),
        Some(&run),
        "the run stays"
    );
    assert_eq!(
        ok(
            store.purge_lineage_events(at(200_000)).await,
            "purge_lineage_events"
        ),
        0
    );
    assert_eq!(
        ok(
            store.purge_lineage_events(at(400_000)).await,
            "purge_lineage_events"
        ),
        2
    );
    assert!(events_of(store, "r").await.is_empty());
    assert_eq!(
        run_of(store, "r").await.as_ref(),
        Some(&run),
        "the run stays"
    );
    // A purged event posted again is stored again; its run already holds it.
    apply(store, put([old.clone()]), "a purged event again").await;
    assert_eq!(events_of(store, "r").await, vec![old]);
    assert_eq!(run_of(store, "r").await, Some(run));
}

pub(super) async fn a_failed_batch_lands_no_lineage_event(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let start = lineage_run_event("kept", 10, RunState::Start, None);
    let mut ops = vec![Op::PutUser(user(1, "alice"))];
    ops.extend(put([start.clone()]));
    apply(store, ops, "a user and a run").await;
    let run = run_of(store, "kept").await.expect("the run");
    let running = lineage_run_event("kept", 20, RunState::Running, None);
    let fresh = lineage_run_event("fresh", 10, RunState::Start, None);
    let mut batch = put([running.clone(), fresh.clone()]);
    // A user name taken, case-insensitively: a CONFLICT on every backend.
    batch.push(Op::PutUser(user(3, "ALICE")));
    fails(
        store.apply(Batch::from(batch.clone())).await,
        ErrorCode::Conflict,
        "a batch with a clashing user",
    );
    let mut tx = ok(
        store.begin(lore_core::model::Author::system()).await,
        "begin",
    );
    match tx.write(batch).await {
        Ok(()) => fails(
            tx.commit().await,
            ErrorCode::Conflict,
            "a transaction with a clashing user",
        ),
        Err(e) => {
            assert_eq!(e.code, ErrorCode::Conflict, "{e}");
            // Rolled back, and no longer holding the writers' turn.
            drop(tx);
        }
    }
    assert_eq!(
        run_of(store, "kept").await,
        Some(run),
        "the run is unchanged"
    );
    assert_eq!(events_of(store, "kept").await, vec![start]);
    assert_eq!(
        ok(store.lineage_event(&running.digest).await, "lineage_event"),
        None
    );
    assert_eq!(run_of(store, "fresh").await, None, "no run landed");
    assert_eq!(
        ok(store.lineage_event(&fresh.digest).await, "lineage_event"),
        None
    );
    // The same events land once the batch is sound.
    apply(store, put([running.clone(), fresh]), "the events alone").await;
    assert_eq!(
        run_of(store, "kept").await.map(|r| r.state),
        Some(RunState::Running)
    );
}

pub(super) async fn lineage_events_refuse_nul_and_times_out_of_range(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let mut in_run_id = lineage_run_event("r", 10, RunState::Start, None);
    in_run_id.run_id = Some("r\0".into());
    let mut in_body = lineage_run_event("r", 10, RunState::Start, None);
    in_body.body = "{\0}".into();
    let mut far = lineage_run_event("r", 10, RunState::Start, None);
    far.event_time = DateTime::from_timestamp(100_000 * 366 * 86_400, 0).expect("in range");
    for (event, what) in [
        (in_run_id, "NUL in a run id"),
        (in_body, "NUL in a body"),
        (far, "an event time 100000 years on"),
    ] {
        fails(
            store.apply(Batch::from(put([event]))).await,
            ErrorCode::InvalidParameter,
            what,
        );
    }
    assert_eq!(run_of(store, "r").await, None, "nothing landed");
    // A producer's error message is kept, its NUL replaced.
    let mut failed = lineage_run_event("r", 10, RunState::Fail, Some("bad\0byte"));
    failed.digest = "failed".into();
    apply(store, put([failed.clone()]), "NUL in an error message").await;
    let run = run_of(store, "r").await.expect("the run");
    assert_eq!(run.error_message.as_deref(), Some("bad\u{FFFD}byte"));
    assert_eq!(
        ok(store.lineage_event(&failed.digest).await, "lineage_event")
            .and_then(|e| e.error_message),
        Some("bad\u{FFFD}byte".into())
    );
}

/// A run as a restore writes it: some of its fields set, its events purged long ago.
pub(super) fn restored_run(run_id: &str) -> LineageRun {
    LineageRun {
        run_id: run_id.into(),
        job_namespace: "warehouse".into(),
        job_name: "restored".into(),
        state: RunState::Fail,
        state_at: at(50_000) + Duration::microseconds(3),
        started_at: Some(at(10_000)),
        ended_at: Some(at(50_000) + Duration::microseconds(3)),
        error_message: Some("disk full".into()),
        error_at: Some(at(50_000) + Duration::microseconds(3)),
    }
}

pub(super) async fn put_lineage_run_writes_the_run_as_given(store: Arc<dyn Store>) {
    let store = store.as_ref();
    // A run no event describes, with a time finer than microseconds (cut).
    let mut fine = restored_run("given");
    fine.state_at += Duration::nanoseconds(500);
    apply(store, vec![Op::PutLineageRun(fine)], "a run without events").await;
    assert_eq!(
        run_of(store, "given").await,
        Some(restored_run("given")),
        "the run as given, its times cut to microseconds"
    );
    assert!(events_of(store, "given").await.is_empty(), "no event came");

    // It replaces the run its events made, whatever that held.
    let events = eventful_run("r");
    apply(store, put(events.clone()), "a run's events").await;
    assert_eq!(run_of(store, "r").await, Some(reference(&events)));
    let mut other = LineageRun {
        run_id: "r".into(),
        job_namespace: String::new(),
        job_name: String::new(),
        state: RunState::Other,
        state_at: at(5_000),
        started_at: None,
        ended_at: None,
        error_message: None,
        error_at: None,
    };
    apply(
        store,
        vec![Op::PutLineageRun(other.clone())],
        "a run replaced",
    )
    .await;
    assert_eq!(
        run_of(store, "r").await,
        Some(other.clone()),
        "every field replaced, none kept"
    );
    assert_eq!(
        events_of(store, "r").await.len(),
        events.len(),
        "events stay"
    );
    // An OTHER run written as given still merges: a later OTHER moves its time, a
    // transition sets its state.
    let mut later = lineage_run_event("r", 8, RunState::Other, None);
    later.digest = "later other".into();
    apply(store, put([later]), "a later OTHER").await;
    other.state_at = at(8_000) + Duration::microseconds(7);
    other.job_namespace = "warehouse".into();
    other.job_name = "nightly".into();
    assert_eq!(run_of(store, "r").await, Some(other));

    // The restore: the run as it was, then its remaining events; events it reflects
    // change nothing, on every backend.
    let full = reference(&events);
    apply(
        store,
        vec![Op::ClearAll, Op::PutLineageRun(full.clone())],
        "a cleared store and the run",
    )
    .await;
    apply(store, put(events[3..].to_vec()), "its remaining events").await;
    assert_eq!(
        run_of(store, "r").await,
        Some(full.clone()),
        "events the run reflects change nothing"
    );
    assert_eq!(events_of(store, "r").await.len(), events.len() - 3);
    // Nor does an event of a run that ended OTHER, its time the run's.
    let lone = lineage_run_event("lone", 30, RunState::Other, None);
    let earlier = lineage_run_event("lone", 20, RunState::Other, None);
    let lone_run = reference(&[lone.clone(), earlier.clone()]);
    apply(
        store,
        vec![
            Op::PutLineageRun(lone_run.clone()),
            Op::PutLineageEvent(earlier),
            Op::PutLineageEvent(lone),
        ],
        "an OTHER run and its events",
    )
    .await;
    assert_eq!(run_of(store, "lone").await, Some(lone_run));

    // A failed batch lands no run, and leaves the one replaced as it was.
    apply(store, vec![Op::PutUser(user(1, "alice"))], "a user").await;
    let batch = vec![
        Op::PutLineageRun(restored_run("r")),
        Op::PutLineageRun(restored_run("fresh")),
        Op::PutUser(user(3, "ALICE")),
    ];
    fails(
        store.apply(Batch::from(batch)).await,
        ErrorCode::Conflict,
        "a batch with a clashing user",
    );
    assert_eq!(run_of(store, "r").await, Some(full), "the run is unchanged");
    assert_eq!(run_of(store, "fresh").await, None, "no run landed");

    // NUL in a name, a state time out of range: refused; NUL in the message replaced.
    let mut in_name = restored_run("nul");
    in_name.job_name = "a\0b".into();
    let mut far = restored_run("far");
    far.state_at = DateTime::from_timestamp(100_000 * 366 * 86_400, 0).expect("in range");
    for (run, what) in [(in_name, "NUL in a job name"), (far, "a state time far on")] {
        fails(
            store.apply(Batch::from(vec![Op::PutLineageRun(run)])).await,
            ErrorCode::InvalidParameter,
            what,
        );
    }
    let mut message = restored_run("message");
    message.error_message = Some("bad\0byte".into());
    apply(
        store,
        vec![Op::PutLineageRun(message)],
        "NUL in the message",
    )
    .await;
    assert_eq!(
        run_of(store, "message").await.and_then(|r| r.error_message),
        Some("bad\u{FFFD}byte".into())
    );
}

pub(super) async fn lineage_runs_and_events_in_pages(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let mut events = Vec::new();
    for run in ["b", "a", "c", "B"] {
        events.push(lineage_run_event(run, 10, RunState::Start, None));
        events.push(lineage_run_event(run, 20, RunState::Complete, None));
    }
    let mut dataset = lineage_run_event("none", 5, RunState::Other, None);
    dataset.kind = LineageEventKind::Dataset;
    dataset.run_id = None;
    dataset.event_type = None;
    dataset.digest = "dataset".into();
    events.push(dataset);
    apply(store, put(events.clone()), "events of four runs").await;
    apply(
        store,
        vec![Op::PutLineageRun(restored_run("purged"))],
        "a run without events",
    )
    .await;

    let mut digests: Vec<String> = events.iter().map(|e| e.digest.clone()).collect();
    digests.sort();
    let mut paged = Vec::new();
    let mut after = String::new();
    loop {
        let page = ok(
            store.lineage_events_page(&after, 3).await,
            "lineage_events_page",
        );
        assert!(page.len() <= 3, "at most limit");
        let Some(last) = page.last() else { break };
        after = last.digest.clone();
        paged.extend(page);
    }
    assert_eq!(
        paged.iter().map(|e| e.digest.as_str()).collect::<Vec<_>>(),
        digests,
        "every event, by digest (bytes), each once"
    );
    for event in &paged {
        assert_eq!(
            Some(event),
            events.iter().find(|e| e.digest == event.digest),
            "the event whole"
        );
    }
    assert!(
        ok(
            store.lineage_events_page(&digests[8], 10).await,
            "lineage_events_page"
        )
        .is_empty(),
        "none after the last"
    );

    let page = ok(store.lineage_runs_page("", 3).await, "lineage_runs_page");
    assert_eq!(
        page.iter().map(|r| r.run_id.as_str()).collect::<Vec<_>>(),
        vec!["B", "a", "b"],
        "runs by id (bytes), at most limit"
    );
    let page = ok(store.lineage_runs_page("b", 10).await, "lineage_runs_page");
    assert_eq!(
        page.iter().map(|r| r.run_id.as_str()).collect::<Vec<_>>(),
        vec!["c", "purged"],
        "runs whose id is greater"
    );
    assert_eq!(page[1], restored_run("purged"), "the run whole");
    assert_eq!(
        page[0],
        ok(store.lineage_run("c").await, "lineage_run").expect("run c")
    );
}
