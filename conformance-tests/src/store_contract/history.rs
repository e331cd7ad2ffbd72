//! History: every write transaction is a revision with its author, and the rows of the
//! kept tables it replaced or removed are kept as they were, with the versions they were
//! current in ([`HistoryRecords`](lore_core::store::HistoryRecords)).

use super::*;

async fn newest(store: &dyn Store) -> Revision {
    ok(store.history_span().await, "history_span").newest
}

async fn apply_by(store: &dyn Store, author: Author, ops: Vec<Op>, what: &str) -> i64 {
    ok(store.apply(Batch::by(author, ops)).await, what);
    newest(store).await.version
}

fn image<T>(from: i64, to: Option<i64>, row: T) -> Versioned<T> {
    Versioned { from, to, row }
}

fn classification(object: ObjectId, data_class: &str, status: ClassificationStatus) -> Op {
    Op::SetClassification(Classification {
        object,
        data_class: data_class.to_owned(),
        status,
    })
}

pub(super) async fn history_keeps_each_replaced_row_with_its_revision(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "History Model").await;
    let [o, other] = ids(store, model, 2).await[..] else {
        unreachable!("two ids")
    };
    let user = ObjectId::repository(41);
    let start = newest(store).await;

    let mut first = model_object(model, o.object, None, "orders");
    first.description = Some("one".into());
    let feeds = edge(EdgeKind::Lineage, o, other, "feeds");
    let v1 = apply_by(
        store,
        Author::user(user),
        vec![
            Op::PutObject(first.clone()),
            Op::PutObject(model_object(model, other.object, None, "other")),
            Op::SetAttribute(attr(o, "A", Value::Integer(1))),
            Op::AddTag(tag(o, TagKind::Label, "one")),
            classification(o, "Email", ClassificationStatus::Proposed),
            Op::AddEdge(feeds.clone()),
        ],
        "the first write",
    )
    .await;
    assert_eq!(
        v1,
        start.version + 1,
        "each write transaction is one version"
    );
    let revision = ok(store.revision(v1).await, "revision").expect("the revision is kept");
    assert_eq!(
        revision.author,
        Author::user(user),
        "the revision names its author"
    );
    assert!(revision.at >= start.at, "revisions are in time order");

    let mut second = first.clone();
    second.description = Some("two".into());
    let import = Author::by(Source::Import, user).in_operation(7);
    let v2 = apply_by(
        store,
        import,
        vec![
            Op::PutObject(second.clone()),
            Op::SetAttribute(attr(o, "A", Value::Integer(2))),
            Op::RemoveTag(tag(o, TagKind::Label, "one")),
            Op::AddTag(tag(o, TagKind::Label, "two")),
            classification(o, "Email", ClassificationStatus::Approved),
            Op::RemoveEdge(feeds.clone()),
        ],
        "the second write",
    )
    .await;
    let revision = ok(store.revision(v2).await, "revision").expect("the revision is kept");
    assert_eq!(
        revision.author, import,
        "an import's revision names it and its operation"
    );

    let history = ok(store.object_history(o, 100).await, "object_history");
    assert_eq!(
        history.objects,
        vec![
            image(v1, Some(v2), first.clone()),
            image(v2, None, second.clone())
        ],
        "the object's row: each image with the versions it was current in, oldest first"
    );
    assert_eq!(
        history.attributes,
        vec![
            image(v1, Some(v2), attr(o, "A", Value::Integer(1))),
            image(v2, None, attr(o, "A", Value::Integer(2)))
        ],
        "an attribute value replaced"
    );
    assert_eq!(
        history.tags,
        vec![
            image(v1, Some(v2), tag(o, TagKind::Label, "one")),
            image(v2, None, tag(o, TagKind::Label, "two"))
        ],
        "a label removed and one added"
    );
    assert_eq!(
        history.classifications.len(),
        2,
        "a status replaced: two images"
    );
    assert_eq!(
        history.edges,
        vec![image(v1, Some(v2), feeds.clone())],
        "an edge from it, removed"
    );
    assert!(!history.truncated, "nothing was cut");

    let (then, details) = ok(store.entity_as_of(o, v1).await, "entity_as_of");
    assert_eq!(then, Some(first.clone()), "the object as it was");
    assert_eq!(details.attributes, vec![attr(o, "A", Value::Integer(1))]);
    assert_eq!(details.tags, vec![tag(o, TagKind::Label, "one")]);
    assert_eq!(details.edges, vec![feeds.clone()]);
    assert_eq!(
        details.classifications,
        vec![Classification {
            object: o,
            data_class: "Email".into(),
            status: ClassificationStatus::Proposed
        }]
    );
    assert_eq!(
        ok(store.edges_as_of(other, v1).await, "edges_as_of"),
        vec![feeds.clone()],
        "the edges into an object as of a version"
    );
    assert_eq!(
        ok(store.edges_as_of(o, v2).await, "edges_as_of"),
        Vec::<Edge>::new(),
        "an edge removed is gone as of its removal"
    );
    let (before, details) = ok(store.entity_as_of(o, start.version).await, "entity_as_of");
    assert_eq!(before, None, "before it was made, the object did not exist");
    assert_eq!(details, Details::default(), "nor did anything on it");

    // Deleted: its last images end at the deletion, and the past still reads.
    let v3 = apply_by(
        store,
        Author::user(user),
        vec![Op::DeleteObject(o)],
        "deleting",
    )
    .await;
    let history = ok(store.object_history(o, 100).await, "object_history");
    assert_eq!(
        history.objects.last(),
        Some(&image(v2, Some(v3), second.clone())),
        "the deleted object's last image ends at its deletion"
    );
    assert_eq!(
        history.attributes.last(),
        Some(&image(v2, Some(v3), attr(o, "A", Value::Integer(2)))),
        "so do the rows that went with it"
    );
    let (then, details) = ok(store.entity_as_of(o, v2).await, "entity_as_of");
    assert_eq!(
        then,
        Some(second),
        "the deleted object, as of before its deletion"
    );
    assert_eq!(details.tags, vec![tag(o, TagKind::Label, "two")]);
    assert_eq!(ok(store.entity_as_of(o, v3).await, "entity_as_of").0, None);

    // The cut keeps the newest images.
    let cut = ok(store.object_history(o, 1).await, "object_history");
    assert!(cut.truncated, "a cut history says so");
    assert_eq!(
        cut.objects,
        vec![image(v2, Some(v3), first_named(&first, "two"))]
    );

    let found = ok(store.revisions(&[v1, v3, v3 + 1_000]).await, "revisions");
    assert_eq!(
        found.iter().map(|r| r.version).collect::<Vec<_>>(),
        vec![v1, v3],
        "the revisions kept, by version"
    );
    assert_eq!(
        ok(
            store.revision_at(now() + Duration::seconds(60)).await,
            "revision_at"
        )
        .map(|r| r.version),
        Some(v3),
        "the newest revision at or before a time"
    );
    assert_eq!(
        ok(store.revision_at(at(0)).await, "revision_at"),
        None,
        "no revision is kept from before the store began"
    );
}

/// `object` with the description `description`.
fn first_named(object: &Object, description: &str) -> Object {
    let mut object = object.clone();
    object.description = Some(description.into());
    object
}

pub(super) async fn history_keeps_nothing_of_what_did_not_change(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "Unchanged Model").await;
    let [o, made] = ids(store, model, 2).await[..] else {
        unreachable!("two ids")
    };
    let object = model_object(model, o.object, None, "kept");
    let stable = object.stable_id.clone();
    let v1 = apply_by(
        store,
        Author::system(),
        vec![
            Op::PutObject(object.clone()),
            Op::SetAttribute(attr(o, "A", Value::Text("x".into()))),
            classification(o, "Email", ClassificationStatus::Proposed),
        ],
        "the first write",
    )
    .await;
    // The same rows again, and a row written twice in one transaction.
    apply_by(
        store,
        Author::system(),
        vec![
            Op::PutObject(object.clone()),
            Op::SetAttribute(attr(o, "A", Value::Text("x".into()))),
            classification(o, "Email", ClassificationStatus::Proposed),
            Op::AddTag(tag(o, TagKind::Label, "l")),
            Op::RemoveTag(tag(o, TagKind::Label, "l")),
        ],
        "the same again",
    )
    .await;
    let history = ok(store.object_history(o, 100).await, "object_history");
    assert_eq!(
        history.objects,
        vec![image(v1, None, object)],
        "a row written again unchanged keeps its image and its version"
    );
    assert_eq!(
        history.attributes,
        vec![image(v1, None, attr(o, "A", Value::Text("x".into())))]
    );
    assert_eq!(history.classifications.len(), 1);
    assert!(
        history.tags.is_empty(),
        "a tag added and removed in one write leaves nothing"
    );

    // Made and deleted in one write: nothing.
    let mut ops = vec![Op::PutObject(model_object(
        model,
        made.object,
        None,
        "gone",
    ))];
    ops.push(Op::SetAttribute(attr(made, "A", Value::Integer(1))));
    ops.push(Op::DeleteObject(made));
    apply_by(store, Author::system(), ops, "making and deleting").await;
    assert_eq!(
        ok(store.object_history(made, 100).await, "object_history"),
        ObjectHistory::default(),
        "an object made and deleted in one write has no history"
    );

    // A failed write records no revision.
    let before = newest(store).await;
    let mut clash = model_object(model, made.object, None, "clash");
    clash.stable_id = stable;
    let failed = store
        .apply(Batch::by(
            Author::system(),
            vec![
                Op::SetAttribute(attr(o, "A", Value::Text("y".into()))),
                Op::PutObject(clash),
            ],
        ))
        .await;
    assert!(failed.is_err(), "the clashing write fails");
    assert_eq!(newest(store).await, before, "a failed write is no revision");
    assert_eq!(
        ok(store.object_history(o, 100).await, "object_history")
            .attributes
            .len(),
        1,
        "and keeps no image"
    );
}

pub(super) async fn clear_all_forgets_the_history(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "Cleared Model").await;
    let o = ids(store, model, 1).await[0];
    let mut object = model_object(model, o.object, None, "cleared");
    apply_by(
        store,
        Author::system(),
        vec![Op::PutObject(object.clone())],
        "put",
    )
    .await;
    object.description = Some("changed".into());
    apply_by(
        store,
        Author::system(),
        vec![Op::PutObject(object.clone())],
        "put",
    )
    .await;
    let restorer = Author::by(Source::Restore, ObjectId::repository(3));
    let cleared = apply_by(store, restorer, vec![Op::ClearAll], "clearing").await;
    let span = ok(store.history_span().await, "history_span");
    assert_eq!(
        span.oldest.version, cleared,
        "the clear's revision is the oldest kept"
    );
    assert_eq!(span.newest.author, restorer);
    assert_eq!(
        ok(store.object_history(o, 100).await, "object_history"),
        ObjectHistory::default(),
        "the images went with everything else"
    );
}

fn counts(model: i64, objects: i64, added: i64, changed: i64, removed: i64) -> ModelVersionCounts {
    ModelVersionCounts {
        model,
        objects,
        added,
        changed,
        removed,
    }
}

pub(super) async fn model_versions_and_what_changed_between_them(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "Versioned Model").await;
    let (_, other_model) = new_model(store, "Other Model").await;
    let [a, b, c, d] = ids(store, model, 4).await[..] else {
        unreachable!("four ids")
    };
    let elsewhere = ids(store, other_model, 1).await[0];
    let import = Author::by(Source::Import, ObjectId::repository(41)).in_operation(9);
    let start = newest(store).await.version;
    let v1 = apply_by(
        store,
        import,
        vec![
            Op::PutObject(model_object(model, a.object, None, "a")),
            Op::PutObject(model_object(model, b.object, None, "b")),
            Op::PutObject(model_object(model, c.object, None, "c")),
            Op::SetAttribute(attr(b, "A", Value::Integer(1))),
            Op::PutModelVersion(counts(model, 3, 3, 0, 0)),
        ],
        "the first import",
    )
    .await;
    // Another model's write, between the versions, changes nothing of this one.
    apply_by(
        store,
        Author::system(),
        vec![Op::PutObject(model_object(
            other_model,
            elsewhere.object,
            None,
            "elsewhere",
        ))],
        "a write elsewhere",
    )
    .await;
    let v2 = apply_by(
        store,
        import,
        vec![
            Op::SetAttribute(attr(b, "A", Value::Integer(2))),
            Op::DeleteObject(c),
            Op::PutObject(model_object(model, d.object, None, "d")),
            Op::PutModelVersion(counts(model, 3, 1, 1, 1)),
        ],
        "the second import",
    )
    .await;
    let v3 = apply_by(
        store,
        Author::system(),
        vec![Op::AddTag(tag(a, TagKind::Label, "late"))],
        "a label after the imports",
    )
    .await;

    let versions = ok(
        store.model_versions(model, None, 10).await,
        "model_versions",
    );
    assert_eq!(
        versions
            .iter()
            .map(|v| (v.number, v.revision.version, v.counts))
            .collect::<Vec<_>>(),
        vec![
            (2, v2, counts(model, 3, 1, 1, 1)),
            (1, v1, counts(model, 3, 3, 0, 0)),
        ],
        "each version numbered from 1 per model, at its revision, with its counts, newest first"
    );
    assert_eq!(
        versions[0].revision.author, import,
        "a version names its import"
    );
    let paged = |before: Option<i64>, limit: usize| async move {
        ok(
            store.model_versions(model, before, limit).await,
            "model_versions",
        )
        .iter()
        .map(|v| v.number)
        .collect::<Vec<_>>()
    };
    assert_eq!(paged(None, 1).await, vec![2], "at most the limit");
    assert_eq!(paged(Some(2), 10).await, vec![1], "those before a number");
    assert_eq!(
        ok(
            store.model_versions(other_model, None, 10).await,
            "model_versions"
        ),
        Vec::new(),
        "a model no import changed has no version"
    );

    let between = |from: i64, to: i64| async move {
        ok(
            store.objects_changed_between(model, from, to, 100).await,
            "objects_changed_between",
        )
    };
    assert_eq!(
        between(start, v1).await,
        vec![a, b, c],
        "the first import's objects"
    );
    assert_eq!(
        between(v1, v2).await,
        vec![b, c, d],
        "changed, removed and added; a write to another model is not this one's"
    );
    assert_eq!(between(v2, v3).await, vec![a], "a label is a change");
    assert_eq!(between(v1, v3).await, vec![a, b, c, d]);
    assert_eq!(
        between(v3, v3).await,
        Vec::new(),
        "nothing between a version and itself"
    );
    assert_eq!(
        ok(
            store.objects_changed_between(model, start, v3, 2).await,
            "objects_changed_between"
        ),
        vec![a, b],
        "at most the limit, the smallest ids"
    );

    // Every model's changes since a version, and an edge's far end with its source.
    let v4 = apply_by(
        store,
        Author::system(),
        vec![Op::AddEdge(edge(EdgeKind::Lineage, elsewhere, d, "feeds"))],
        "an edge into the model",
    )
    .await;
    let after = |version: i64, limit: usize| async move {
        ok(
            store.objects_changed_after(version, limit).await,
            "objects_changed_after",
        )
    };
    let sorted = |mut ids: Vec<ObjectId>| {
        ids.sort();
        ids
    };
    assert_eq!(
        after(v3, 100).await,
        sorted(vec![d, elsewhere]),
        "an edge changes its target as well as its source"
    );
    assert_eq!(
        after(v1, 100).await,
        sorted(vec![a, b, c, d, elsewhere]),
        "in every model"
    );
    assert_eq!(after(v4, 100).await, Vec::new(), "nothing after the newest");
    assert_eq!(
        after(v1, 2).await,
        sorted(vec![a, b, c, d, elsewhere])[..2].to_vec(),
        "at most the limit, the smallest ids"
    );

    let read = ok(
        store.entities_as_of(&[b, c, d, elsewhere], v1).await,
        "entities_as_of",
    );
    assert_eq!(read.len(), 4, "one answer per id, in order");
    assert_eq!(read[0].0.as_ref().map(|o| o.name.as_str()), Some("b"));
    assert_eq!(read[0].1.attributes, vec![attr(b, "A", Value::Integer(1))]);
    assert_eq!(
        read[1].0.as_ref().map(|o| o.name.as_str()),
        Some("c"),
        "an object deleted since reads as it was"
    );
    assert_eq!(read[2].0, None, "one made since did not exist");
    assert_eq!(read[3].0, None, "nor did the other model's object");
    let now = ok(store.entities_as_of(&[b, c], v3).await, "entities_as_of");
    assert_eq!(now[0].1.attributes, vec![attr(b, "A", Value::Integer(2))]);
    assert_eq!(now[1].0, None);

    // A restore's clear forgets the versions with the rest of the history.
    apply_by(store, Author::system(), vec![Op::ClearAll], "clearing").await;
    assert_eq!(
        ok(
            store.model_versions(model, None, 10).await,
            "model_versions"
        ),
        Vec::new(),
        "the versions went with the history"
    );
}

pub(super) async fn purging_history_keeps_what_reads_from_its_floor(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "Purged Model").await;
    let o = ids(store, model, 1).await[0];
    let mut object = model_object(model, o.object, None, "purged");
    let mut write = |description: &str, version: bool| {
        object.description = Some(description.to_owned());
        let mut ops = vec![Op::PutObject(object.clone())];
        if version {
            ops.push(Op::PutModelVersion(counts(model, 1, 0, 1, 0)));
        }
        ops
    };
    let v1 = apply_by(store, Author::system(), write("one", true), "one").await;
    let v2 = apply_by(store, Author::system(), write("two", true), "two").await;
    let v3 = apply_by(store, Author::system(), write("three", false), "three").await;

    assert_eq!(
        ok(store.versions_floor(1).await, "versions_floor"),
        Some(v2),
        "each model's newest version"
    );
    // Each case has a store of its own: this is the only model with versions.
    assert_eq!(
        ok(store.versions_floor(2).await, "versions_floor"),
        Some(v1),
        "every model's second newest, the oldest of them"
    );
    assert_eq!(
        ok(store.versions_floor(1_000).await, "versions_floor"),
        None,
        "no model has that many"
    );

    let purged = ok(store.purge_history(v2).await, "purge_history");
    assert!(purged >= 1, "the image replaced at v2 went: {purged}");
    assert_eq!(
        ok(store.history_span().await, "history_span")
            .oldest
            .version,
        v2,
        "the history begins at the floor"
    );
    let history = ok(store.object_history(o, 100).await, "object_history");
    assert_eq!(
        history
            .objects
            .iter()
            .map(|i| (i.from, i.to))
            .collect::<Vec<_>>(),
        vec![(v2, Some(v3)), (v3, None)],
        "what reads at v2 and after stays"
    );
    let (then, _) = ok(store.entity_as_of(o, v2).await, "entity_as_of");
    assert_eq!(then.and_then(|o| o.description), Some("two".into()));
    assert_eq!(
        ok(
            store.model_versions(model, None, 10).await,
            "model_versions"
        )
        .iter()
        .map(|v| v.revision.version)
        .collect::<Vec<_>>(),
        vec![v2],
        "the versions before the floor went"
    );

    for (floor, why) in [
        (v1, "backwards"),
        (v2, "to where it is"),
        (v3 + 1_000, "to a revision not made"),
    ] {
        assert_eq!(
            ok(store.purge_history(floor).await, "purge_history"),
            0,
            "a purge {why} does nothing"
        );
        assert_eq!(
            ok(store.history_span().await, "history_span")
                .oldest
                .version,
            v2,
            "and leaves the floor ({why})"
        );
    }
}

/// A plan as of a version (`Plan::as_of`) finds, counts and facets the objects as they
/// were then, a text search among them; `objects_with_details_as_of` reads them with
/// what hung on them then.
pub(super) async fn history_keeps_curation_and_grants(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model_id, model) = new_model(store, "Curated Model").await;
    let [o] = ids(store, model, 1).await[..] else {
        unreachable!("one id")
    };
    let number = ok(store.reserve_ids(REPOSITORY_MODEL, 1).await, "reserve_ids");
    let ann = user(number, &format!("curator{number}"));
    let entry_id = ok(store.reserve_ids(CURATION_IDS, 1).await, "reserve_ids");
    let comment = |text: &str| Curation {
        id: entry_id,
        object: o,
        kind: CurationKind::Comment,
        user: ann.id,
        text: text.to_owned(),
        at: at(1_000),
    };
    let on_model = Grant {
        grantee: ann.id,
        role: "Steward".into(),
        object: Some(model_id),
    };
    let server_wide = Grant {
        grantee: ann.id,
        role: format!("Role {number}"),
        object: None,
    };
    let v1 = apply_by(
        store,
        Author::user(ann.id),
        vec![
            Op::PutUser(ann.clone()),
            Op::PutObject(model_object(model, o.object, None, "curated")),
            Op::PutCuration(comment("first")),
            Op::AddGrant(on_model.clone()),
            Op::AddGrant(server_wide.clone()),
        ],
        "curating and granting",
    )
    .await;
    let history = ok(store.object_history(o, 100).await, "object_history");
    assert_eq!(
        history.curation,
        vec![image(v1, None, comment("first"))],
        "a curation entry is current from the version that wrote it"
    );
    let history = ok(store.object_history(model_id, 100).await, "object_history");
    assert_eq!(
        history.grants,
        vec![image(v1, None, on_model.clone())],
        "a role granted on an object is in its history"
    );

    // The same again keeps nothing; an edit keeps the comment as it was.
    let v2 = apply_by(
        store,
        Author::user(ann.id),
        vec![
            Op::PutCuration(comment("first")),
            Op::AddGrant(on_model.clone()),
            Op::PutCuration(comment("edited")),
        ],
        "editing the comment",
    )
    .await;
    let v3 = apply_by(
        store,
        Author::user(ann.id),
        vec![
            Op::DeleteCuration(entry_id),
            Op::RemoveGrant(on_model.clone()),
            Op::RemoveGrant(server_wide.clone()),
        ],
        "removing the comment and the grants",
    )
    .await;
    let history = ok(store.object_history(o, 100).await, "object_history");
    assert_eq!(
        history.curation,
        vec![
            image(v1, Some(v2), comment("first")),
            image(v2, Some(v3), comment("edited"))
        ],
        "each image of the entry with the versions it was current in"
    );
    let history = ok(store.object_history(model_id, 100).await, "object_history");
    assert_eq!(
        history.grants,
        vec![image(v1, Some(v3), on_model.clone())],
        "a grant given again while held keeps nothing; a revoked grant is kept"
    );
    let (server, cut) = ok(
        store.server_grant_history(10_000).await,
        "server_grant_history",
    );
    assert!(!cut);
    assert!(
        server.contains(&image(v1, Some(v3), server_wide.clone())),
        "a server-wide grant revoked is kept: {server:?}"
    );
    assert!(
        server.iter().all(|i| i.row.object.is_none()),
        "only server-wide grants: {server:?}"
    );

    // Its own retention: the images replaced at or before the floor go, nothing else.
    let purged = ok(
        store.purge_curation_history(v2).await,
        "purge_curation_history",
    );
    assert_eq!(purged, 1, "the comment as it was before v2");
    let history = ok(store.object_history(o, 100).await, "object_history");
    assert_eq!(
        history.curation,
        vec![image(v2, Some(v3), comment("edited"))]
    );
    assert_eq!(
        history.objects.len(),
        1,
        "the object's own history is not the curation's to purge"
    );
}

pub(super) async fn plans_and_reads_as_of_a_version(store: Arc<dyn Store>) {
    use lore_core::mql::plan::{Column, Cond, Facet, Field, Page, Plan, SortKey, Within};
    let store = store.as_ref();
    let (_, model) = new_model(store, "As Of Model").await;
    let [o, other, third] = ids(store, model, 3).await[..] else {
        unreachable!("three ids")
    };
    let first = model_object(model, o.object, None, "orders");
    let v1 = apply_by(
        store,
        Author::system(),
        vec![
            Op::PutObject(first.clone()),
            Op::PutObject(model_object(model, other.object, None, "other")),
            Op::SetAttribute(attr(o, "A", Value::Integer(1))),
            Op::AddTag(tag(o, TagKind::Label, "one")),
        ],
        "the first write",
    )
    .await;
    apply_by(
        store,
        Author::system(),
        vec![
            Op::PutObject(model_object(model, o.object, None, "sales")),
            Op::SetAttribute(attr(o, "A", Value::Integer(2))),
            Op::RemoveTag(tag(o, TagKind::Label, "one")),
            Op::AddTag(tag(o, TagKind::Label, "two")),
            Op::DeleteObject(other),
            Op::PutObject(model_object(model, third.object, None, "third")),
        ],
        "the second write",
    )
    .await;

    let plan = |filter: Cond, as_of: Option<i64>| Plan {
        filter: Cond::and(vec![
            Cond::Within(Within {
                models: vec![model],
                subtrees: Vec::new(),
            }),
            Cond::Kinds(vec![ObjectKind::ModelObject]),
            filter,
        ]),
        visibility: Cond::True,
        order: vec![SortKey {
            field: Field::Column(Column::Name),
            descending: false,
        }],
        as_of,
    };
    let all = Page {
        offset: 0,
        limit: 100,
    };
    let found = |p: Plan| async move { ok(store.query(&p, all).await, "query") };
    assert_eq!(
        found(plan(Cond::True, Some(v1))).await,
        vec![o, other],
        "the objects as they were, in their order then"
    );
    assert_eq!(found(plan(Cond::True, None)).await, vec![o, third]);
    let orders = Cond::Search {
        columns: vec![Column::Name, Column::PhysicalName],
        text: "orders".into(),
    };
    assert_eq!(
        found(plan(orders.clone(), Some(v1))).await,
        vec![o],
        "a text search among the names then"
    );
    assert!(found(plan(orders, None)).await.is_empty());
    assert_eq!(
        ok(store.count(&plan(Cond::True, Some(v1))).await, "count"),
        2
    );
    let labels = Facet {
        relation: None,
        field: Field::Tags(TagKind::Label),
        gap: None,
        hidden: Cond::False,
    };
    let counted = ok(
        store
            .value_counts(&plan(Cond::True, Some(v1)), &[labels], 10)
            .await,
        "value_counts",
    );
    let values: Vec<String> = counted[0]
        .iter()
        .map(|c| format!("{:?}", c.value))
        .collect();
    assert_eq!(values.len(), 1, "one label then: {values:?}");
    assert!(values[0].contains("one"), "{values:?}");

    let (objects, details) = ok(
        store
            .objects_with_details_as_of(&[o, other, third], v1)
            .await,
        "objects_with_details_as_of",
    );
    assert_eq!(
        objects.iter().map(|x| x.name.as_str()).collect::<Vec<_>>(),
        ["orders", "other"],
        "those that existed then, as they were"
    );
    assert_eq!(details.tags, vec![tag(o, TagKind::Label, "one")]);
    assert_eq!(details.attributes, vec![attr(o, "A", Value::Integer(1))]);
}
