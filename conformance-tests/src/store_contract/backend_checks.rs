//! Checks first written for one backend's bug, kept for every backend.

use super::*;

pub(super) async fn reserve_ids_mixed_counts_concurrently_have_no_gaps(store: Arc<dyn Store>) {
    assert_eq!(ok(store.reserve_ids(5, 3).await, "reserve_ids"), 1);
    assert_eq!(ok(store.reserve_ids(5, 2).await, "reserve_ids"), 4);
    assert_eq!(
        ok(store.reserve_ids(6, 1).await, "reserve_ids"),
        1,
        "another id space starts at 1"
    );
    let mut tasks = Vec::new();
    for i in 0..16_u64 {
        let store = Arc::clone(&store);
        tasks.push(tokio::spawn(async move {
            let count = i % 4 + 1;
            store
                .reserve_ids(5, count)
                .await
                .map(|first| (first, count))
        }));
    }
    let mut seen = BTreeSet::from([1, 2, 3, 4, 5]);
    for task in tasks {
        let (first, count) = ok(
            task.await.expect("a reserve_ids task panicked"),
            "concurrent reserve_ids",
        );
        for id in first..first + count as i64 {
            assert!(seen.insert(id), "id {id} was handed out twice");
        }
    }
    assert_eq!(
        seen.len() as i64,
        seen.last().copied().unwrap_or(0),
        "every id up to the highest was handed out exactly once"
    );
}

pub(super) async fn reserve_ids_overflow_is_refused_and_takes_nothing(store: Arc<dyn Store>) {
    let store = store.as_ref();
    assert_eq!(ok(store.reserve_ids(7, 3).await, "reserve_ids"), 1);
    let mut orphan = model_object(7, 1, None, "x");
    orphan.parent = Some(ObjectId::new(8, 1));
    fails(
        store.apply(vec![Op::PutObject(orphan)].into()).await,
        ErrorCode::InvalidParameter,
        "a parent in another model",
    );
    assert_eq!(
        ok(store.reserve_ids(7, 1).await, "reserve_ids"),
        4,
        "a failed batch gives no ids back"
    );
    assert!(
        store.reserve_ids(7, u64::MAX).await.is_err(),
        "a reservation beyond the id range is refused"
    );
    assert_eq!(
        ok(store.reserve_ids(7, 1).await, "reserve_ids"),
        5,
        "a refused reservation takes no ids"
    );
}

pub(super) async fn children_sorted_by_name_then_id(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let parent = Some(ObjectId::new(4, 1));
    apply(
        store,
        vec![
            Op::PutObject(model_object(4, 1, None, "root")),
            Op::PutObject(model_object(4, 3, parent, "b")),
            Op::PutObject(model_object(4, 2, parent, "b")),
            Op::PutObject(model_object(4, 4, parent, "a")),
        ],
        "PutObject",
    )
    .await;
    let names: Vec<(String, i64)> = ok(store.children(4, parent).await, "children")
        .into_iter()
        .map(|o| (o.name, o.id.object))
        .collect();
    assert_eq!(
        names,
        vec![
            ("a".to_owned(), 4),
            ("b".to_owned(), 2),
            ("b".to_owned(), 3)
        ],
        "model objects of one name under one parent are sorted by id"
    );
    assert_eq!(
        ok(store.child_by_name(4, parent, "b").await, "child_by_name").map(|o| o.id.object),
        Some(2),
        "child_by_name of a name two model objects share gives the lower id"
    );
    assert_eq!(
        ok(store.child_by_name(4, None, "root").await, "child_by_name").map(|o| o.id.object),
        Some(1)
    );
    assert!(
        ok(store.children(5, parent).await, "children").is_empty(),
        "children look only inside the given id space"
    );
}

pub(super) async fn stable_id_clash_within_a_batch_is_a_conflict(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let a = model_object(7, 1, None, "A");
    let mut b = model_object(7, 2, None, "B");
    b.stable_id = a.stable_id.clone();
    fails(
        store
            .apply(vec![Op::PutObject(a), Op::PutObject(b)].into())
            .await,
        ErrorCode::Conflict,
        "two objects of one batch with one stable id",
    );
    assert!(
        ok(store.model_objects(7).await, "model_objects").is_empty(),
        "a batch with a stable id clash lands nothing"
    );
}

pub(super) async fn stable_id_conflict_names_the_id(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let a = model_object(5, 1, None, "a");
    let mut b = model_object(5, 2, None, "b");
    b.stable_id = a.stable_id.clone();
    apply(store, vec![Op::PutObject(a.clone())], "PutObject").await;
    let err = match store.apply(vec![Op::PutObject(b)].into()).await {
        Ok(()) => panic!("a duplicate stable id was accepted"),
        Err(err) => err,
    };
    assert_eq!(err.code, ErrorCode::Conflict, "{err}");
    let sid = a.stable_id.unwrap_or_default();
    assert!(
        err.message.contains(&format!("stable id '{sid}'")),
        "the conflict names the stable id: {err}"
    );
}

/// Six values of every variant on an object nobody has put: attributes read back
/// exactly (a whole `Double` stays a `Double`), sorted by name.
pub(super) async fn attribute_values_read_back_in_name_order(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let id = ObjectId::new(9, 1);
    let values = vec![
        attr(id, "Default Value", Value::Text("n/a".to_owned())),
        attr(id, "Length", Value::Integer(i64::MAX)),
        attr(id, "Nullable", Value::Boolean(false)),
        attr(id, "Ratio", Value::Double(3.0)),
        attr(id, "Reviewed", Value::DateTime(at(1_700_000_000_123))),
        attr(id, "Score", Value::Double(0.1)),
    ];
    let ops: Vec<Op> = values.iter().rev().cloned().map(Op::SetAttribute).collect();
    apply(store, ops, "SetAttribute").await;
    assert_eq!(details(store, &[id], "details").await.attributes, values);
}

pub(super) async fn details_of_many_ids_sorted_by_object(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let ids: Vec<ObjectId> = (1..=5000).map(|i| ObjectId::new(3, i)).collect();
    let ops: Vec<Op> = ids
        .iter()
        .map(|id| Op::SetAttribute(attr(*id, "Position", Value::Integer(id.object))))
        .collect();
    apply(store, ops, "SetAttribute on 5000 objects").await;
    let reversed: Vec<ObjectId> = ids.iter().rev().copied().collect();
    let read = details(store, &reversed, "details of 5000 ids").await;
    assert_eq!(
        read.attributes.len(),
        ids.len(),
        "details of many ids at once"
    );
    assert!(
        read.attributes
            .windows(2)
            .all(|w| w[0].object < w[1].object),
        "details.attributes are sorted by object whatever the order of the ids"
    );
    assert_eq!(
        details(store, &ids[..1], "details").await.attributes.len(),
        1,
        "the scope of one call does not leak into the next"
    );
}

pub(super) async fn delete_and_clear_keep_other_models_and_repository_objects(
    store: Arc<dyn Store>,
) {
    let store = store.as_ref();
    let model = repository_object(9, ObjectKind::Folder, None, "Model");
    let a = model_object(9, 1, None, "A");
    let b = model_object(9, 2, Some(ObjectId::new(9, 1)), "B");
    let other = model_object(10, 1, None, "Other");
    let grantee = ObjectId::repository(50);
    let link = |source, target| edge(EdgeKind::SemanticLink, source, target, "defines");
    let mut batch = Vec::new();
    for o in [&model, &a, &b, &other] {
        batch.push(Op::PutObject(o.clone()));
        batch.push(Op::SetAttribute(attr(
            o.id,
            "Note",
            Value::Text(o.name.clone()),
        )));
        batch.push(Op::AddTag(tag(o.id, TagKind::Label, "pii")));
        batch.push(Op::SetClassification(Classification {
            object: o.id,
            data_class: "Email".to_owned(),
            status: ClassificationStatus::Matched,
        }));
        batch.push(Op::SetLabelAssignment(LabelAssignment {
            object: o.id,
            label: "Secret".to_owned(),
            status: ClassificationStatus::Approved,
        }));
        batch.push(Op::SetProfiling(Profiling {
            object: o.id,
            profile: Some(DataProfile {
                total_profiled_rows: Some(10),
                ..Default::default()
            }),
            sample: None,
        }));
        batch.push(Op::AddGrant(Grant {
            grantee,
            role: "Steward".to_owned(),
            object: Some(o.id),
        }));
    }
    batch.push(Op::AddEdge(link(a.id, other.id)));
    batch.push(Op::AddEdge(link(other.id, b.id)));
    batch.push(Op::AddEdge(link(model.id, other.id)));
    apply(store, batch, "filling two models").await;

    let in_model = ok(store.details(Scope::Model(9)).await, "details");
    assert_eq!(in_model.attributes.len(), 2);
    assert_eq!(
        in_model.edges,
        vec![link(a.id, other.id), link(other.id, b.id)]
    );
    assert_eq!(ok(store.grants_of(grantee).await, "grants_of").len(), 4);

    apply(store, vec![Op::DeleteObject(a.id)], "DeleteObject").await;
    assert_eq!(ok(store.object(a.id).await, "object"), None);
    assert_eq!(
        details(store, &[a.id], "details").await,
        Details::default(),
        "DeleteObject removes what hangs on the object"
    );
    assert_eq!(
        ok(store.object(b.id).await, "object").map(|o| o.parent),
        Some(Some(a.id)),
        "children are not followed"
    );

    apply(store, vec![Op::ClearModel(9)], "ClearModel").await;
    assert!(ok(store.model_objects(9).await, "model_objects").is_empty());
    assert_eq!(
        ok(store.details(Scope::Model(9)).await, "details"),
        Details::default()
    );
    assert_eq!(ok(store.grants_of(grantee).await, "grants_of").len(), 2);
    assert!(
        ok(store.object(model.id).await, "object").is_some(),
        "the model's repository object is untouched"
    );
    let rest = details(store, &[model.id, other.id], "details").await;
    assert_eq!(rest.attributes.len(), 2, "the other model is untouched");
    assert_eq!(rest.edges, vec![link(model.id, other.id)]);
    assert_eq!(rest.profiling.len(), 2);
}

pub(super) async fn session_expiring_now_is_expired(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let now = now();
    let session = |expires_at| Session {
        key_hash: "h".into(),
        user: ObjectId::repository(1),
        created_at: now,
        expires_at,
        last_seen_at: now,
    };
    ok(store.put_session(session(now)).await, "put_session");
    assert!(
        ok(store.session("h", now).await, "session").is_none(),
        "a session expiring now is expired"
    );
    assert_eq!(ok(store.purge_sessions(now).await, "purge_sessions"), 1);
    ok(
        store.put_session(session(now + Duration::seconds(1))).await,
        "put_session of a purged key hash",
    );
    assert!(
        ok(store.session("h", now).await, "session").is_some(),
        "a purged key hash can be used again"
    );
}

pub(super) async fn sessions_expire_purge_and_end_per_user(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let session = |key: &str, expires: i64| Session {
        key_hash: key.to_owned(),
        user: ObjectId::repository(2),
        created_at: at(1_000),
        expires_at: at(expires),
        last_seen_at: at(1_000),
    };
    ok(store.put_session(session("a", 5_000)).await, "put_session");
    ok(store.put_session(session("b", 9_000)).await, "put_session");
    assert_eq!(
        ok(store.session("a", at(4_999)).await, "session"),
        Some(session("a", 5_000))
    );
    assert_eq!(ok(store.session("a", at(5_000)).await, "session"), None);
    assert_eq!(
        ok(store.purge_sessions(at(5_000)).await, "purge_sessions"),
        1
    );
    assert_eq!(
        ok(store.session("b", at(5_000)).await, "session").map(|s| s.key_hash),
        Some("b".to_owned())
    );
    assert_eq!(
        ok(
            store.delete_sessions_of(ObjectId::repository(2)).await,
            "delete_sessions_of"
        ),
        1
    );
    assert_eq!(ok(store.session("b", at(5_000)).await, "session"), None);
}

pub(super) async fn apply_failing_midway_lands_nothing(store: Arc<dyn Store>) {
    let store = store.as_ref();
    apply(store, vec![Op::PutUser(user(1, "alice"))], "PutUser").await;
    let model = 7;
    let batch = vec![
        Op::PutObject(repository_object(2, ObjectKind::Folder, None, "Folder")),
        Op::PutUser(user(3, "ALICE")),
        Op::PutObject(model_object(model, 1, None, "table")),
        Op::SetAttribute(attr(ObjectId::new(model, 1), "A", Value::Integer(1))),
        Op::PutUser(user(4, "bob")),
    ];
    let err = match store.apply(batch.into()).await {
        Ok(()) => panic!("a duplicate user name was accepted"),
        Err(err) => err,
    };
    assert_eq!(err.code, ErrorCode::Conflict, "{err}");
    assert!(
        err.message.contains("a user named 'ALICE' already exists"),
        "the conflict says what clashed: {err}"
    );
    assert_eq!(store.user_count().await.ok(), Some(1), "no user landed");
    assert_eq!(
        store.object(ObjectId::repository(2)).await.ok(),
        Some(None),
        "no folder landed"
    );
    assert_eq!(
        store.model_objects(model).await.ok().map(|o| o.len()),
        Some(0),
        "no model object landed"
    );
    let read = ok(store.details(Scope::Model(model)).await, "details");
    assert!(read.attributes.is_empty(), "no attribute landed");
}

pub(super) async fn duplicate_user_name_in_a_batch_lands_nothing(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let batch = vec![
        Op::PutObject(repository_object(1, ObjectKind::Folder, None, "Finance")),
        Op::PutUser(user(2, "alice")),
        Op::PutUser(user(3, "ALICE")),
    ];
    let err = store
        .apply(batch.into())
        .await
        .err()
        .map(|e| (e.code, e.message));
    assert_eq!(
        err,
        Some((
            ErrorCode::Conflict,
            "a user named 'ALICE' already exists".to_owned()
        )),
        "two users of one name (in another case) in one batch"
    );
    assert_eq!(
        ok(store.object(ObjectId::repository(1)).await, "object"),
        None
    );
    assert_eq!(ok(store.user_count().await, "user_count"), 0);

    apply(
        store,
        vec![Op::PutUser(user(2, "alice"))],
        "a batch after a failed one",
    )
    .await;
    assert_eq!(
        ok(store.user_by_name("ALICE").await, "user_by_name").map(|u| u.id),
        Some(ObjectId::repository(2)),
        "a batch after a failed one lands"
    );
}

/// A failed batch that renamed, re-parented, deleted and cleared before failing leaves
/// every lookup (children, names, stable ids, kinds, user names, grants) as it was.
pub(super) async fn apply_failure_restores_every_index(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let object = |id: ObjectId, parent: Option<ObjectId>, name: &str| {
        let mut o = Object::new(
            id,
            ObjectKind::ModelObject,
            TypeName::new("P", "T"),
            SystemType::Classifier,
            name,
        );
        o.parent = parent;
        o.stable_id = Some(format!("s{}_{}", id.model, id.object));
        o
    };
    let a = ObjectId::new(5, 1);
    let b = ObjectId::new(5, 2);
    apply(
        store,
        vec![
            Op::PutObject(object(a, None, "a")),
            Op::PutObject(object(b, Some(a), "b")),
            Op::SetAttribute(attr(b, "x", Value::Integer(1))),
            Op::AddEdge(edge(EdgeKind::Lineage, a, b, "l")),
            Op::AddTag(tag(b, TagKind::Collection, "c")),
            Op::AddGrant(Grant {
                grantee: ObjectId::repository(9),
                role: "r".into(),
                object: Some(b),
            }),
            Op::PutUser(user(9, "Ann")),
        ],
        "first batch",
    )
    .await;
    let before = ok(store.details(Scope::Model(5)).await, "details");

    let mut renamed = object(b, None, "renamed");
    renamed.stable_id = Some("other".into());
    let batch = vec![
        Op::PutObject(renamed),
        Op::DeleteObject(a),
        Op::ClearModel(5),
        Op::PutUser(user(9, "Bob")),
        Op::PutObject(object(ObjectId::new(5, 3), None, "new")),
        Op::PutUser(user(10, "BOB")),
    ];
    fails(
        store.apply(batch.into()).await,
        ErrorCode::Conflict,
        "a batch ending in a duplicate user name",
    );

    assert_eq!(ok(store.details(Scope::Model(5)).await, "details"), before);
    assert_eq!(
        object_names(&ok(store.children(5, Some(a)).await, "children")),
        ["b"]
    );
    assert!(
        ok(
            store.child_by_name(5, None, "renamed").await,
            "child_by_name"
        )
        .is_none()
    );
    assert!(ok(store.child_by_name(5, None, "new").await, "child_by_name").is_none());
    assert!(
        ok(
            store.object_by_stable_id("other").await,
            "object_by_stable_id"
        )
        .is_none()
    );
    assert_eq!(
        ok(
            store.object_by_stable_id("s5_2").await,
            "object_by_stable_id"
        )
        .map(|o| o.id),
        Some(b)
    );
    assert_eq!(
        ok(
            store.objects_of_kind(ObjectKind::ModelObject).await,
            "objects_of_kind"
        )
        .len(),
        2
    );
    assert_eq!(
        ok(store.user_by_name("ann").await, "user_by_name").map(|u| u.id),
        Some(ObjectId::repository(9))
    );
    assert!(ok(store.user_by_name("bob").await, "user_by_name").is_none());
    assert_eq!(
        ok(store.grants_of(ObjectId::repository(9)).await, "grants_of").len(),
        1
    );
}

/// 25,000 objects with two attributes each (one longer than a B-tree entry may be) in
/// one batch, read back whole and by many ids, then cleared.
pub(super) async fn a_large_batch_lands_whole(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let model = 9;
    let count = 25_000;
    let mut ops = Vec::with_capacity(count * 3);
    for object in 1..=count as i64 {
        let parent = (object > 1).then_some(ObjectId::new(model, 1));
        ops.push(Op::PutObject(model_object(
            model,
            object,
            parent,
            &format!("t{object:05}"),
        )));
        ops.push(Op::SetAttribute(attr(
            ObjectId::new(model, object),
            "Row Count",
            Value::Integer(object),
        )));
        ops.push(Op::SetAttribute(attr(
            ObjectId::new(model, object),
            "View Statement",
            Value::Text("x".repeat(if object == 2 { 10_000 } else { 10 })),
        )));
    }
    let started = std::time::Instant::now();
    apply(store, ops, "a batch of 75,000 ops").await;
    eprintln!("{} ops applied in {:?}", count * 3, started.elapsed());
    assert_eq!(
        ok(store.model_objects(model).await, "model_objects").len(),
        count
    );
    let all = ok(store.details(Scope::Model(model)).await, "details");
    assert_eq!(all.attributes.len(), count * 2);
    let children = ok(
        store.children(model, Some(ObjectId::new(model, 1))).await,
        "children",
    );
    assert_eq!(children.len(), count - 1);
    let ids: Vec<ObjectId> = (1..=count as i64)
        .step_by(7)
        .map(|o| ObjectId::new(model, o))
        .collect();
    assert_eq!(
        details(store, &ids, "details").await.attributes.len(),
        ids.len() * 2,
        "details of many ids at once"
    );

    let started = std::time::Instant::now();
    apply(store, vec![Op::ClearModel(model)], "ClearModel").await;
    eprintln!("cleared {count} objects in {:?}", started.elapsed());
    assert!(ok(store.model_objects(model).await, "model_objects").is_empty());
}
