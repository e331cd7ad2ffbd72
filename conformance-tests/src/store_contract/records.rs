//! What users and the server keep beside the objects: worksheets, the system log, lineage walks, documents, curation and notifications.

use super::*;

/// A worksheet of `owner` with every clause set (or only SELECT with `bare`).
pub(super) fn worksheet(id: ObjectId, owner: ObjectId, name: &str, bare: bool) -> Worksheet {
    let query = if bare {
        SavedQuery {
            select: "Name".into(),
            mql_version: 3,
            ..SavedQuery::default()
        }
    } else {
        SavedQuery {
            select: "Name, \"Object Type\"".into(),
            from: Some("/Sales/Warehouse".into()),
            scope: Some("Model = WHERE (Name = 'Sales')".into()),
            filter: Some("Labels = 'PII' AND Name STARTS WITH 'é'".into()),
            order_by: Some("Name desc".into()),
            context: Some("/Configuration/Published".into()),
            mql_version: 2,
        }
    };
    Worksheet {
        id,
        name: name.to_owned(),
        owner,
        description: format!("{name}: Ünïcødé description"),
        query,
        created_at: at(1_700_000_000_123),
        updated_at: at(1_700_000_100_456),
    }
}

pub(super) fn worksheet_names(list: &[Worksheet]) -> Vec<&str> {
    list.iter().map(|w| w.name.as_str()).collect()
}

pub(super) async fn worksheets_round_trip_with_names_unique_per_owner(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let r = ids(store, REPOSITORY_MODEL, 7).await;
    let (ann, bob) = (r[0], r[1]);
    let beta = worksheet(r[2], ann, "Beta", false);
    let alpha = worksheet(r[3], ann, "alpha", true);
    let bobs = worksheet(r[4], bob, "ALPHA", false);
    apply(
        store,
        vec![
            Op::PutWorksheet(beta.clone()),
            Op::PutWorksheet(alpha.clone()),
            Op::PutWorksheet(bobs.clone()),
        ],
        "PutWorksheet, one name in two owners' cases",
    )
    .await;
    assert_eq!(
        ok(store.worksheet(beta.id).await, "worksheet"),
        Some(beta.clone()),
        "a worksheet with every clause round-trips by id"
    );
    assert_eq!(
        ok(store.worksheet(alpha.id).await, "worksheet"),
        Some(alpha.clone()),
        "a worksheet with only SELECT round-trips (absent clauses stay absent)"
    );
    assert_eq!(
        ok(store.worksheet(r[5]).await, "worksheet"),
        None,
        "an unknown worksheet id is None"
    );
    assert_eq!(
        ok(
            store.worksheet_by_name(ann, "ALPHA").await,
            "worksheet_by_name"
        ),
        Some(alpha.clone()),
        "worksheet_by_name compares case-insensitively within the owner's worksheets"
    );
    assert_eq!(
        ok(
            store.worksheet_by_name(bob, "alpha").await,
            "worksheet_by_name"
        ),
        Some(bobs.clone()),
        "another owner's worksheet of the same name is its own"
    );
    assert_eq!(
        ok(
            store.worksheet_by_name(bob, "Beta").await,
            "worksheet_by_name"
        ),
        None,
        "one owner does not find another's worksheet by name"
    );
    assert_eq!(
        ok(store.worksheets(Some(ann)).await, "worksheets"),
        vec![beta.clone(), alpha.clone()],
        "an owner's worksheets, sorted by name bytes"
    );
    assert_eq!(
        ok(store.worksheets(Some(r[6])).await, "worksheets"),
        Vec::new(),
        "a user without worksheets has none"
    );
    assert_eq!(
        worksheet_names(&ok(store.worksheets(None).await, "worksheets")),
        ["ALPHA", "Beta", "alpha"],
        "everyone's worksheets, sorted by name bytes"
    );

    let err = store
        .apply(vec![Op::PutWorksheet(worksheet(r[5], ann, "BETA", true))].into())
        .await
        .err()
        .map(|e| (e.code, e.message));
    assert_eq!(
        err,
        Some((
            ErrorCode::Conflict,
            "a worksheet named 'BETA' already exists".to_owned()
        )),
        "PutWorksheet with the name of another worksheet of the owner (in another case)"
    );
    assert_eq!(
        ok(store.worksheet(r[5]).await, "worksheet"),
        None,
        "a refused worksheet is not stored"
    );

    // Replacing by id: renaming frees the old name; changing the case of its own name.
    let mut renamed = beta.clone();
    renamed.name = "Gamma".into();
    renamed.query.filter = None;
    apply(
        store,
        vec![Op::PutWorksheet(renamed.clone())],
        "PutWorksheet replacing a worksheet",
    )
    .await;
    assert_eq!(
        ok(store.worksheet(beta.id).await, "worksheet"),
        Some(renamed.clone()),
        "PutWorksheet replaces the worksheet with that id, clauses included"
    );
    assert_eq!(
        ok(
            store.worksheet_by_name(ann, "beta").await,
            "worksheet_by_name"
        ),
        None,
        "a worksheet's old name is free after a rename"
    );
    renamed.name = "GAMMA".into();
    apply(
        store,
        vec![
            Op::PutWorksheet(renamed.clone()),
            Op::PutWorksheet(worksheet(r[5], ann, "Beta", true)),
        ],
        "PutWorksheet changing the case of its own name, another taking the freed one",
    )
    .await;
    assert_eq!(
        worksheet_names(&ok(store.worksheets(Some(ann)).await, "worksheets")),
        ["Beta", "GAMMA", "alpha"],
        "replacing a worksheet does not add one"
    );

    apply(
        store,
        vec![
            Op::DeleteWorksheet(alpha.id),
            Op::DeleteWorksheet(r[6]),
            Op::DeleteWorksheet(alpha.id),
        ],
        "DeleteWorksheet, of an absent one too",
    )
    .await;
    assert_eq!(ok(store.worksheet(alpha.id).await, "worksheet"), None);
    assert_eq!(
        ok(
            store.worksheet_by_name(ann, "alpha").await,
            "worksheet_by_name"
        ),
        None,
        "a deleted worksheet's name finds nothing"
    );
    assert_eq!(
        ok(
            store.worksheet_by_name(bob, "alpha").await,
            "worksheet_by_name"
        ),
        Some(bobs),
        "deleting one owner's worksheet keeps another's of that name"
    );
    apply(
        store,
        vec![Op::PutWorksheet(worksheet(r[6], ann, "Alpha", true))],
        "PutWorksheet taking a deleted worksheet's name",
    )
    .await;

    let mut nul = worksheet(r[6], ann, "Nul", false);
    nul.query.filter = Some("Name = 'a\0b'".into());
    fails(
        store.apply(vec![Op::PutWorksheet(nul)].into()).await,
        ErrorCode::InvalidParameter,
        "a worksheet clause holding the NUL character",
    );
    let mut precise = worksheet(r[6], ann, "Alpha", true);
    precise.created_at = DateTime::from_timestamp_micros(1_700_000_000_123_456)
        .expect("a timestamp in range")
        + Duration::nanoseconds(789);
    apply(
        store,
        vec![Op::PutWorksheet(precise.clone())],
        "PutWorksheet with nanoseconds",
    )
    .await;
    assert_eq!(
        ok(store.worksheet(r[6]).await, "worksheet").map(|w| w.created_at),
        Some(micros(precise.created_at)),
        "worksheet timestamps keep whole microseconds"
    );
}

pub(super) async fn a_failed_batch_leaves_worksheets_as_they_were(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let r = ids(store, REPOSITORY_MODEL, 5).await;
    let owner = r[0];
    let kept = worksheet(r[1], owner, "Kept", false);
    let moved = worksheet(r[2], owner, "Moved", true);
    apply(
        store,
        vec![
            Op::PutWorksheet(kept.clone()),
            Op::PutWorksheet(moved.clone()),
            Op::PutUser(user(r[3].object, "taken")),
        ],
        "setting up",
    )
    .await;
    let mut takes_kept_name = moved.clone();
    takes_kept_name.name = "kept".into();
    fails(
        store
            .apply(
                vec![
                    Op::DeleteWorksheet(kept.id),
                    Op::PutWorksheet(takes_kept_name),
                    Op::PutWorksheet(worksheet(r[4], owner, "New", true)),
                    Op::PutUser(user(r[4].object, "TAKEN")),
                ]
                .into(),
            )
            .await,
        ErrorCode::Conflict,
        "a batch that deletes, renames and adds worksheets, then clashes on a user name",
    );
    assert_eq!(
        ok(store.worksheets(Some(owner)).await, "worksheets"),
        vec![kept.clone(), moved.clone()],
        "a failed batch lands no worksheet write"
    );
    assert_eq!(
        ok(
            store.worksheet_by_name(owner, "KEPT").await,
            "worksheet_by_name"
        ),
        Some(kept),
        "the name lookup is restored too"
    );
    assert_eq!(
        ok(
            store.worksheet_by_name(owner, "moved").await,
            "worksheet_by_name"
        ),
        Some(moved),
        "a rename of a failed batch is taken back"
    );
    assert_eq!(ok(store.worksheet(r[4]).await, "worksheet"), None);
}

/// The system log: appended entries read back newest first (equal times: the later
/// appended first), each filter narrows, counts agree with reads, purging by age
/// removes only older entries, and text no backend stores is cleaned, not refused.
pub(super) async fn system_log_pages_newest_first_filters_counts_and_purges(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let base = micros(now()) - Duration::hours(2);
    let entry = |minutes: i64, user: &str, method: &str, path: &str, status: u16| SystemLogEntry {
        time: base + Duration::minutes(minutes),
        user: user.into(),
        address: "127.0.0.1".into(),
        method: method.into(),
        path: path.into(),
        status,
        duration_ms: minutes as u64,
        size: 100 + minutes as u64,
    };
    let first = vec![
        entry(0, "alice", "GET", "/MM/rest/v1/types/listProfiles", 200),
        entry(10, "", "POST", "/MM/rest/v1/auth/login", 401),
        entry(20, "bob", "GET", "/MM/rest/v1/entities/1_2", 404),
    ];
    ok(store.append_system_log(first).await, "append_system_log");
    // A second batch, one entry at the same time as an earlier one.
    let second = vec![
        entry(
            20,
            "alice",
            "POST",
            "/MM/rest/v1/entities/executeMQLQuery",
            200,
        ),
        entry(30, "alice", "GET", "/healthz", 200),
    ];
    ok(store.append_system_log(second).await, "append_system_log");
    ok(store.append_system_log(Vec::new()).await, "an empty append");

    let all = SystemLogFilter::default();
    let page = |offset, limit| lore_core::mql::plan::Page { offset, limit };
    let read = |filter: SystemLogFilter, offset, limit| async move {
        ok(
            store.system_log(&filter, page(offset, limit)).await,
            "system_log",
        )
    };
    let paths = |entries: Vec<SystemLogEntry>| -> Vec<String> {
        entries.into_iter().map(|e| e.path).collect()
    };
    let everything = read(all.clone(), 0, 100).await;
    assert_eq!(
        paths(everything.clone()),
        [
            "/healthz",
            "/MM/rest/v1/entities/executeMQLQuery",
            "/MM/rest/v1/entities/1_2",
            "/MM/rest/v1/auth/login",
            "/MM/rest/v1/types/listProfiles",
        ],
        "newest first; at equal times the later appended first"
    );
    assert_eq!(
        everything[4],
        entry(0, "alice", "GET", "/MM/rest/v1/types/listProfiles", 200)
    );
    assert_eq!(
        ok(store.count_system_log(&all).await, "count_system_log"),
        5
    );
    assert_eq!(
        paths(read(all.clone(), 1, 2).await),
        [
            "/MM/rest/v1/entities/executeMQLQuery",
            "/MM/rest/v1/entities/1_2"
        ]
    );
    assert!(read(all.clone(), 5, 10).await.is_empty(), "past the end");

    let filters = [
        (
            SystemLogFilter {
                user: Some("alice".into()),
                ..Default::default()
            },
            3,
        ),
        (
            SystemLogFilter {
                user: Some(String::new()),
                ..Default::default()
            },
            1,
        ),
        (
            SystemLogFilter {
                method: Some("POST".into()),
                ..Default::default()
            },
            2,
        ),
        (
            SystemLogFilter {
                path_prefix: Some("/MM/rest/v1/entities/".into()),
                ..Default::default()
            },
            2,
        ),
        (
            SystemLogFilter {
                path_prefix: Some("/MM/rest/v1/entities/1".into()),
                ..Default::default()
            },
            1,
        ),
        (
            SystemLogFilter {
                status: Some(200),
                ..Default::default()
            },
            3,
        ),
        (
            SystemLogFilter {
                from: Some(base + Duration::minutes(10)),
                to: Some(base + Duration::minutes(20)),
                ..Default::default()
            },
            3,
        ),
        (
            SystemLogFilter {
                user: Some("alice".into()),
                method: Some("GET".into()),
                status: Some(200),
                from: Some(base + Duration::minutes(1)),
                ..Default::default()
            },
            1,
        ),
    ];
    for (filter, expected) in filters {
        let found = read(filter.clone(), 0, 100).await;
        assert_eq!(found.len(), expected, "{filter:?}: {found:?}");
        assert!(
            found.iter().all(|e| filter.matches(e)),
            "{filter:?}: {found:?}"
        );
        let counted = ok(store.count_system_log(&filter).await, "count_system_log");
        assert_eq!(counted, expected as u64, "{filter:?}");
    }

    let purged = ok(
        store.purge_system_log(base + Duration::minutes(20)).await,
        "purge_system_log",
    );
    assert_eq!(purged, 2, "the entries before minute 20");
    assert_eq!(
        paths(read(all.clone(), 0, 100).await),
        [
            "/healthz",
            "/MM/rest/v1/entities/executeMQLQuery",
            "/MM/rest/v1/entities/1_2",
        ]
    );

    let mut odd = entry(40, "eve", "GET", "/a\0b", 200);
    odd.path.push_str(&"x".repeat(3000));
    ok(
        store.append_system_log(vec![odd]).await,
        "an entry with NUL and a long path",
    );
    let newest = read(all, 0, 1).await;
    assert!(
        newest[0].path.starts_with("/a\u{FFFD}b"),
        "{:?}",
        &newest[0].path[..8]
    );
    assert_eq!(
        newest[0].path.chars().count(),
        lore_core::store::MAX_LOGGED_CHARS
    );
}

pub(super) async fn lineage_walks_breadth_first_within_bounds(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let model = 31;
    let id = |n: i64| ObjectId::new(model, n);
    let mut ops: Vec<Op> = (1..=8)
        .map(|n| Op::PutObject(model_object(model, n, None, &format!("o{n}"))))
        .collect();
    for (source, target, name) in [
        (1, 2, "a"),
        (1, 3, "b"),
        (1, 4, "c"),
        (2, 5, "d"),
        (3, 5, "e"),
        (5, 6, "f"),
        (6, 1, "loop"),
        (7, 1, "up"),
        (8, 7, "up2"),
    ] {
        ops.push(Op::AddEdge(edge(
            EdgeKind::Lineage,
            id(source),
            id(target),
            name,
        )));
    }
    ops.push(Op::AddEdge(edge(
        EdgeKind::SemanticLink,
        id(1),
        id(8),
        "not lineage",
    )));
    apply(store, ops, "a lineage graph with a cycle").await;
    let walk = |downstream: bool, depth: u32, fan_out: u32, limit: u32| async move {
        let walk = ok(
            store
                .lineage(
                    id(1),
                    downstream,
                    LineageBounds {
                        depth,
                        fan_out,
                        limit,
                    },
                )
                .await,
            "lineage",
        );
        let edges: Vec<(i64, i64, String, u32)> = walk
            .edges
            .into_iter()
            .map(|(e, d)| (e.source.object, e.target.object, e.name, d))
            .collect();
        (edges, walk.truncated)
    };
    let e = |s: i64, t: i64, n: &str, d: u32| (s, t, n.to_owned(), d);
    assert_eq!(
        walk(true, 5, 10, 100).await,
        (
            vec![
                e(1, 2, "a", 1),
                e(1, 3, "b", 1),
                e(1, 4, "c", 1),
                e(2, 5, "d", 2),
                e(3, 5, "e", 2),
                e(5, 6, "f", 3),
                e(6, 1, "loop", 4),
            ],
            false
        ),
        "downstream: each edge once, at the depth of its nearest end plus one, by depth then \
         source, target and name; the cycle ends the walk"
    );
    assert_eq!(
        walk(true, 5, 2, 100).await,
        (
            vec![
                e(1, 2, "a", 1),
                e(1, 3, "b", 1),
                e(2, 5, "d", 2),
                e(3, 5, "e", 2),
                e(5, 6, "f", 3),
                e(6, 1, "loop", 4)
            ],
            false
        ),
        "a fan-out of 2 follows the first two edges of each object, by target then name"
    );
    assert_eq!(
        walk(true, 1, 10, 100).await,
        (
            vec![e(1, 2, "a", 1), e(1, 3, "b", 1), e(1, 4, "c", 1)],
            false
        ),
        "depth 1 holds the starting object's own edges"
    );
    assert_eq!(
        walk(true, 5, 10, 3).await,
        (
            vec![e(1, 2, "a", 1), e(1, 3, "b", 1), e(1, 4, "c", 1)],
            true
        ),
        "a limit cuts the walk and says so"
    );
    assert_eq!(
        walk(false, 5, 10, 100).await,
        (
            vec![
                e(6, 1, "loop", 1),
                e(7, 1, "up", 1),
                e(5, 6, "f", 2),
                e(8, 7, "up2", 2),
                e(2, 5, "d", 3),
                e(3, 5, "e", 3),
                e(1, 2, "a", 4),
                e(1, 3, "b", 4),
            ],
            false
        ),
        "upstream follows edges against their direction, fan-out by source then name"
    );
    let lonely = ok(
        store
            .lineage(
                id(4),
                true,
                LineageBounds {
                    depth: 5,
                    fan_out: 10,
                    limit: 100,
                },
            )
            .await,
        "lineage",
    );
    assert!(
        lonely.edges.is_empty() && !lonely.truncated,
        "an object without lineage"
    );
}

pub(super) async fn documents_round_trip_replace_and_go_with_their_owner(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let ann = user(71, "ann");
    let bob = user(710, "bob");
    apply(
        store,
        vec![Op::PutUser(ann.clone()), Op::PutUser(bob.clone())],
        "users",
    )
    .await;
    let document =
        |kind: DocumentKind, owner: Option<ObjectId>, name: &str, body: serde_json::Value| {
            Document {
                kind,
                owner,
                name: name.to_owned(),
                body,
                updated_at: at(1_700_000_000_123),
                updated_by: Some(ann.id),
            }
        };
    let license = document(
        DocumentKind::License,
        None,
        "license",
        serde_json::json!({"licensee": "Zürich AG"}),
    );
    let ann_b = document(
        DocumentKind::Dashboard,
        Some(ann.id),
        "b",
        serde_json::json!({"widgets": []}),
    );
    let ann_a = document(
        DocumentKind::Dashboard,
        Some(ann.id),
        "a",
        serde_json::json!({"widgets": [1]}),
    );
    let bob_a = document(
        DocumentKind::Dashboard,
        Some(bob.id),
        "a",
        serde_json::json!({}),
    );
    let shared = document(
        DocumentKind::Dashboard,
        None,
        "shared",
        serde_json::json!(null),
    );
    apply(
        store,
        vec![
            Op::PutDocument(license.clone()),
            Op::PutDocument(bob_a.clone()),
            Op::PutDocument(ann_b.clone()),
            Op::PutDocument(ann_a.clone()),
            Op::PutDocument(shared.clone()),
        ],
        "PutDocument",
    )
    .await;
    assert_eq!(
        ok(store.documents(DocumentKind::Dashboard).await, "documents"),
        vec![shared.clone(), ann_a.clone(), ann_b.clone(), bob_a.clone()],
        "documents of a kind, no owner first, then by owner id and name"
    );
    assert_eq!(
        ok(
            store.document(DocumentKind::License, None, "license").await,
            "document"
        ),
        Some(license.clone())
    );
    assert_eq!(
        ok(
            store
                .document(DocumentKind::Dashboard, Some(bob.id), "b")
                .await,
            "document"
        ),
        None,
        "a name is looked up within its owner"
    );
    let mut replaced = ann_a.clone();
    replaced.body = serde_json::json!({"widgets": [1, 2]});
    apply(
        store,
        vec![
            Op::PutDocument(replaced.clone()),
            Op::DeleteDocument {
                kind: DocumentKind::Dashboard,
                owner: None,
                name: "shared".into(),
            },
            Op::DeleteDocument {
                kind: DocumentKind::Dashboard,
                owner: None,
                name: "absent".into(),
            },
        ],
        "replacing and deleting documents",
    )
    .await;
    assert_eq!(
        ok(store.documents(DocumentKind::Dashboard).await, "documents"),
        vec![replaced, ann_b, bob_a.clone()],
        "PutDocument replaces the document of that kind, owner and name; DeleteDocument removes it"
    );
    let failed = store
        .apply(Batch::from(vec![
            Op::PutDocument(document(
                DocumentKind::Dashboard,
                Some(bob.id),
                "new",
                serde_json::json!(1),
            )),
            Op::PutUser(user(712, "ANN")),
        ]))
        .await;
    assert!(failed.is_err(), "a duplicate user name fails the batch");
    apply(store, vec![Op::DeleteUser(ann.id)], "DeleteUser").await;
    assert_eq!(
        ok(store.documents(DocumentKind::Dashboard).await, "documents"),
        vec![bob_a],
        "a deleted user's documents go with them, and a failed batch adds none"
    );
    assert_eq!(
        ok(store.documents(DocumentKind::License).await, "documents"),
        vec![license]
    );
}

pub(super) async fn curation_round_trips_and_goes_with_object_and_user(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let ann = user(81, "ann");
    let bob = user(810, "bob");
    let a = model_object(41, 1, None, "a");
    let b = model_object(41, 2, None, "b");
    let c = model_object(42, 1, None, "c");
    apply(
        store,
        vec![
            Op::PutUser(ann.clone()),
            Op::PutUser(bob.clone()),
            Op::PutObject(a.clone()),
            Op::PutObject(b.clone()),
            Op::PutObject(c.clone()),
        ],
        "users and objects",
    )
    .await;
    let entry =
        |id: i64, object: ObjectId, kind: CurationKind, by: &User, text: &str, millis: i64| {
            Curation {
                id,
                object,
                kind,
                user: by.id,
                text: text.to_owned(),
                at: at(millis),
            }
        };
    let entries = vec![
        entry(7, a.id, CurationKind::Watch, &ann, "", 1_000),
        entry(
            3,
            a.id,
            CurationKind::Comment,
            &bob,
            "second, Zürich",
            2_000,
        ),
        entry(2, a.id, CurationKind::Comment, &ann, "first", 1_000),
        entry(
            5,
            a.id,
            CurationKind::Warning,
            &ann,
            "stale since 2025",
            1_500,
        ),
        entry(4, a.id, CurationKind::Endorsement, &bob, "", 1_000),
        entry(6, a.id, CurationKind::Certification, &ann, "", 1_200),
        entry(8, b.id, CurationKind::Endorsement, &ann, "", 1_000),
        entry(9, c.id, CurationKind::Watch, &bob, "", 1_000),
        entry(10, c.id, CurationKind::Comment, &ann, "kept", 1_000),
    ];
    apply(
        store,
        entries.iter().cloned().map(Op::PutCuration).collect(),
        "PutCuration",
    )
    .await;
    let ids = |list: Vec<Curation>| list.into_iter().map(|c| c.id).collect::<Vec<_>>();
    assert_eq!(
        ids(ok(store.curation(a.id).await, "curation")),
        vec![6, 2, 3, 4, 5, 7],
        "an object's curation by kind (certification, comment, endorsement, warning, watch), \
         then time, then id"
    );
    assert_eq!(
        ok(store.curation_entry(3).await, "curation_entry"),
        Some(entries[1].clone()),
        "an entry round-trips"
    );
    let mut edited = entries[1].clone();
    edited.text = "second, edited".into();
    apply(
        store,
        vec![
            Op::PutCuration(edited.clone()),
            Op::DeleteCuration(5),
            Op::DeleteCuration(999),
        ],
        "replacing and deleting curation",
    )
    .await;
    assert_eq!(
        ok(store.curation_entry(3).await, "curation_entry"),
        Some(edited)
    );
    assert_eq!(
        ids(ok(store.curation(a.id).await, "curation")),
        vec![6, 2, 3, 4, 7]
    );
    let failed = store
        .apply(Batch::from(vec![
            Op::PutCuration(entry(11, b.id, CurationKind::Comment, &ann, "never", 1_000)),
            Op::PutUser(user(812, "ANN")),
        ]))
        .await;
    assert!(failed.is_err(), "a duplicate user name fails the batch");
    assert_eq!(
        ids(ok(store.curation(b.id).await, "curation")),
        vec![8],
        "a failed batch adds no curation"
    );
    apply(store, vec![Op::DeleteObject(b.id)], "DeleteObject").await;
    assert!(
        ok(store.curation_entry(8).await, "curation_entry").is_none(),
        "curation goes with its object"
    );
    apply(store, vec![Op::ClearModel(41)], "ClearModel").await;
    assert!(
        ok(store.curation(a.id).await, "curation").is_empty(),
        "curation goes with the cleared model's objects"
    );
    apply(store, vec![Op::DeleteUser(bob.id)], "DeleteUser").await;
    assert_eq!(
        ids(ok(store.curation(c.id).await, "curation")),
        vec![10],
        "a deleted user's curation goes with them"
    );
}

pub(super) async fn curation_of_many_objects_by_object(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let ann = user(83, "ann");
    let a = model_object(43, 1, None, "a");
    let b = model_object(43, 2, None, "b");
    let c = model_object(44, 1, None, "c");
    let entry = |id: i64, object: ObjectId, kind: CurationKind, millis: i64| Curation {
        id,
        object,
        kind,
        user: ann.id,
        text: String::new(),
        at: at(millis),
    };
    let entries = [
        entry(1, b.id, CurationKind::Watch, 1_000),
        entry(2, a.id, CurationKind::Watch, 1_000),
        entry(3, a.id, CurationKind::Comment, 2_000),
        entry(4, a.id, CurationKind::Comment, 1_500),
        entry(5, c.id, CurationKind::Endorsement, 1_000),
    ];
    let mut ops = vec![
        Op::PutUser(ann.clone()),
        Op::PutObject(a.clone()),
        Op::PutObject(b.clone()),
        Op::PutObject(c.clone()),
    ];
    ops.extend(entries.iter().cloned().map(Op::PutCuration));
    apply(store, ops, "curation of three objects").await;
    let read = ok(
        store
            .curation_of(&[b.id, a.id, b.id, ObjectId::new(43, 9)])
            .await,
        "curation_of",
    );
    assert_eq!(
        read.iter().map(|c| c.id).collect::<Vec<_>>(),
        vec![4, 3, 2, 1],
        "by object, then kind, time and id; each object once; unknown ones answer nothing"
    );
    assert_eq!(read[0], entries[3], "entries round-trip whole");
    assert!(ok(store.curation_of(&[]).await, "curation_of nothing").is_empty());
}

pub(super) async fn notifications_newest_first_and_gone_with_their_user(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let ann = user(91, "ann");
    let bob = user(910, "bob");
    apply(
        store,
        vec![Op::PutUser(ann.clone()), Op::PutUser(bob.clone())],
        "users",
    )
    .await;
    let note = |id: i64, to: &User, millis: i64, read: bool| Notification {
        id,
        user: to.id,
        kind: if id % 2 == 0 {
            NotificationKind::ModelChanged
        } else {
            NotificationKind::ImportFailed
        },
        object: ObjectId::repository(7),
        message: format!("change {id}, Zürich"),
        at: at(millis),
        read,
    };
    let all = [
        note(1, &ann, 1_000, false),
        note(2, &ann, 3_000, true),
        note(3, &ann, 2_000, false),
        note(4, &ann, 3_000, false),
        note(5, &bob, 5_000, false),
    ];
    apply(
        store,
        all.iter().cloned().map(Op::PutNotification).collect(),
        "PutNotification",
    )
    .await;
    let ids = |list: Vec<Notification>| list.into_iter().map(|n| n.id).collect::<Vec<_>>();
    assert_eq!(
        ids(ok(
            store.notifications(ann.id, false, 100).await,
            "notifications"
        )),
        vec![4, 2, 3, 1],
        "a user's notifications, newest first, then by id descending"
    );
    assert_eq!(
        ids(ok(
            store.notifications(ann.id, true, 100).await,
            "notifications"
        )),
        vec![4, 3, 1],
        "only the unread ones"
    );
    assert_eq!(
        ids(ok(
            store.notifications(ann.id, false, 2).await,
            "notifications"
        )),
        vec![4, 2],
        "at most the limit"
    );
    assert_eq!(
        ok(store.notification(5).await, "notification"),
        Some(all[4].clone()),
        "a notification round-trips"
    );
    let mut read = all[0].clone();
    read.read = true;
    apply(
        store,
        vec![Op::PutNotification(read.clone())],
        "marking read",
    )
    .await;
    assert_eq!(ok(store.notification(1).await, "notification"), Some(read));
    let failed = store
        .apply(Batch::from(vec![
            Op::PutNotification(note(6, &bob, 6_000, false)),
            Op::PutUser(user(912, "ANN")),
        ]))
        .await;
    assert!(failed.is_err(), "a duplicate user name fails the batch");
    assert!(
        ok(store.notification(6).await, "notification").is_none(),
        "a failed batch adds no notification"
    );
    apply(store, vec![Op::DeleteUser(ann.id)], "DeleteUser").await;
    assert!(
        ok(
            store.notifications(ann.id, false, 100).await,
            "notifications"
        )
        .is_empty(),
        "a deleted user's notifications go with them"
    );
    assert_eq!(
        ids(ok(
            store.notifications(bob.id, false, 100).await,
            "notifications"
        )),
        vec![5]
    );
}
