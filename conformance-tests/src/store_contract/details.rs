//! What hangs on objects, read back together: `details` by model and by ids, and
//! `entity_read` of one object.

use super::*;

pub(super) async fn details_cover_scope_model_and_objects(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model_id, model) = new_model(store, "Scope Model").await;
    let (other_id, other) = new_model(store, "Other Scope Model").await;
    let m = ids(store, model, 2).await;
    let x = ids(store, other, 2).await;
    let mut batch = Vec::new();
    for id in m.iter().chain(&x) {
        batch.push(Op::PutObject(model_object(id.model, id.object, None, "o")));
        batch.extend(hanging_on(*id, id.object, ClassificationStatus::Proposed));
    }
    let inside = edge(EdgeKind::EntityRelationship, m[0], m[1], "has");
    let out = edge(EdgeKind::Lineage, m[1], x[0], "feeds");
    let into = edge(EdgeKind::Lineage, x[1], m[0], "feeds");
    let outside = edge(EdgeKind::Lineage, x[0], x[1], "feeds");
    let to_model = edge(EdgeKind::ModelConnection, model_id, other_id, "stitch");
    for e in [&inside, &out, &into, &outside, &to_model] {
        batch.push(Op::AddEdge(e.clone()));
    }
    batch.push(Op::SetAttribute(attr(
        model_id,
        MODEL_PROFILE_ATTRIBUTE,
        Value::Text(DATABASE_PROFILE.into()),
    )));
    apply(store, batch, "filling two models").await;

    let read = ok(
        store.details(Scope::Model(model)).await,
        "details(Scope::Model)",
    );
    assert_eq!(
        read.attributes,
        vec![
            attr(m[0], "A", Value::Integer(m[0].object)),
            attr(m[1], "A", Value::Integer(m[1].object))
        ],
        "Scope::Model covers the model's objects only (not its repository object, not other models)"
    );
    assert_eq!(
        read.edges,
        vec![inside.clone(), out.clone(), into.clone()],
        "Scope::Model holds edges with at least one end in the model (either direction), sorted"
    );
    assert_eq!(
        read.tags.len(),
        2,
        "Scope::Model holds the tags of the model's objects"
    );
    assert_eq!(
        read.classifications.len(),
        2,
        "Scope::Model holds the classifications of the model's objects"
    );
    assert_eq!(
        read.labels.len(),
        2,
        "Scope::Model holds the labels of the model's objects"
    );
    assert_eq!(
        read.profiling.iter().map(|p| p.object).collect::<Vec<_>>(),
        m,
        "Scope::Model holds the profiling of the model's objects, by object"
    );

    let read = details(store, &[m[1], m[1]], "details(Scope::Objects)").await;
    assert_eq!(
        read.attributes,
        vec![attr(m[1], "A", Value::Integer(m[1].object))],
        "Scope::Objects covers exactly the listed objects, once even when listed twice"
    );
    assert_eq!(
        read.edges,
        vec![inside, out],
        "Scope::Objects holds edges with an end on a listed object"
    );
    assert_eq!(
        read.tags,
        vec![tag(m[1], TagKind::Label, "t")],
        "Scope::Objects holds the listed objects' tags"
    );

    let read = details(store, &[model_id], "details of a model's repository object").await;
    assert_eq!(
        read.attributes,
        vec![attr(
            model_id,
            MODEL_PROFILE_ATTRIBUTE,
            Value::Text(DATABASE_PROFILE.into())
        )],
        "Scope::Objects works for repository objects"
    );
    assert_eq!(
        read.edges,
        vec![to_model],
        "edges between repository objects are in scope"
    );
    assert!(
        is_empty(&details(store, &[], "details of no objects").await),
        "Scope::Objects of no objects is empty"
    );
    assert!(
        is_empty(
            &details(
                store,
                &[ObjectId::new(model, 999_999)],
                "details of an unknown object"
            )
            .await
        ),
        "Scope::Objects of an unknown object is empty"
    );
    assert!(
        is_empty(&ok(
            store.details(Scope::Model(987_654)).await,
            "details of an unknown model"
        )),
        "Scope::Model of an unknown model is empty"
    );
}

/// `entity_read` of one object: the object, its attribute values, the edges from it
/// (not to it), its tags and classifications, sorted as `details` sorts them, and
/// nothing else; with a key, that key's `session_check` from the same read.
pub(super) async fn entity_read_is_the_object_with_what_its_entity_shows(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "Entity Model").await;
    let m = ids(store, model, 3).await;
    let object = model_object(m[0].model, m[0].object, None, "customer");
    let classification = |data_class: &str| Classification {
        object: m[0],
        data_class: data_class.into(),
        status: ClassificationStatus::Matched,
    };
    let mut batch = vec![Op::PutObject(object.clone())];
    for id in &m[1..] {
        batch.push(Op::PutObject(model_object(
            id.model, id.object, None, "other",
        )));
        batch.push(Op::SetAttribute(attr(*id, "A", Value::Integer(1))));
        batch.push(Op::AddTag(tag(*id, TagKind::Label, "elsewhere")));
    }
    let from = [
        edge(EdgeKind::Lineage, m[0], m[2], "feeds"),
        edge(EdgeKind::EntityRelationship, m[0], m[1], "has"),
    ];
    let into = edge(EdgeKind::Lineage, m[1], m[0], "feeds");
    batch.extend([
        Op::SetAttribute(attr(m[0], "B", Value::Text("b".into()))),
        Op::SetAttribute(attr(m[0], "A", Value::Integer(7))),
        Op::AddTag(tag(m[0], TagKind::Label, "PII")),
        Op::AddTag(tag(m[0], TagKind::Label, "Finance")),
        Op::SetClassification(classification("Email")),
        Op::SetClassification(classification("Address")),
        Op::SetLabelAssignment(LabelAssignment {
            object: m[0],
            label: "L".into(),
            status: ClassificationStatus::Proposed,
        }),
        Op::SetProfiling(Profiling {
            object: m[0],
            profile: None,
            sample: Some(sample()),
        }),
        Op::AddEdge(into),
    ]);
    batch.extend(from.iter().cloned().map(Op::AddEdge));
    apply(store, batch, "an object with everything hanging on it").await;

    let read = ok(store.entity_read(m[0], None).await, "entity_read");
    assert_eq!(read.object, Some(object), "the object");
    let all = details(store, &[m[0]], "details").await;
    let mut edges_from = from.to_vec();
    edges_from.sort();
    assert_eq!(
        read.details,
        Details {
            attributes: all.attributes.clone(),
            edges: edges_from,
            tags: all.tags.clone(),
            classifications: all.classifications.clone(),
            labels: Vec::new(),
            profiling: Vec::new(),
        },
        "the attribute values, edges from the object, tags and classifications, sorted"
    );
    assert_eq!(read.details.attributes.len(), 2, "both attribute values");
    assert_eq!(read.check, None, "no key, no check");

    let now = now();
    let session = Session {
        key_hash: "hash-entity".into(),
        user: ObjectId::repository(999),
        created_at: now,
        expires_at: now + Duration::hours(1),
        last_seen_at: now,
    };
    ok(store.put_session(session).await, "put_session");
    let read = ok(
        store.entity_read(m[0], Some(("hash-entity", now))).await,
        "entity_read with a key",
    );
    assert_eq!(
        read.check,
        ok(
            store.session_check("hash-entity", now).await,
            "session_check"
        ),
        "the key's check comes with the object"
    );
    assert!(read.check.is_some(), "the live session is checked");
    let read = ok(
        store.entity_read(m[0], Some(("unknown", now))).await,
        "entity_read with an unknown key",
    );
    assert_eq!(read.check, None, "an unknown key has no check");
    assert!(read.object.is_some(), "the object is read all the same");

    let read = ok(
        store
            .entity_read(ObjectId::new(model, 999_999), Some(("hash-entity", now)))
            .await,
        "entity_read of an unknown object",
    );
    assert_eq!(read.object, None, "an unknown object is None");
    assert!(is_empty(&read.details), "and nothing hangs on it");
    assert!(read.check.is_some(), "its key is checked all the same");
}

/// `entity_read` answers what the store holds after every kind of write to what it
/// shows: a store may keep what it read (the SQL stores do, per process), but never
/// answers from it once the object or anything hanging on it changed, here or through
/// another store over the same database.
pub(super) async fn entity_read_follows_every_write(store: Arc<dyn Store>) {
    entity_reads_follow_writes(store.as_ref(), store.as_ref()).await;
}

/// [`entity_read_follows_every_write`] with the reads on `reader` and the writes on
/// `writer`: one store twice, or two stores over one database (two processes).
pub async fn entity_reads_follow_writes(reader: &dyn Store, writer: &dyn Store) {
    let backend = reader.backend();
    let (_, model) = new_model(writer, "Kept Entity Model").await;
    let (_, other) = new_model(writer, "Kept Entity Other").await;
    let m = ids(writer, model, 2).await;
    let o = ids(writer, other, 1).await;
    let (x, sibling, elsewhere) = (m[0], m[1], o[0]);
    apply(
        writer,
        vec![
            Op::PutObject(model_object(x.model, x.object, None, "customer")),
            Op::PutObject(model_object(sibling.model, sibling.object, None, "sibling")),
            Op::PutObject(model_object(
                elsewhere.model,
                elsewhere.object,
                None,
                "elsewhere",
            )),
            Op::SetAttribute(attr(x, "A", Value::Integer(1))),
        ],
        "three objects in two models",
    )
    .await;

    let (object, details) = entity_follows(reader, x, "the objects written").await;
    assert!(object.is_some() && details.attributes.len() == 1);

    let cross = edge(EdgeKind::Lineage, x, elsewhere, "feeds");
    let mut renamed = model_object(x.model, x.object, None, "client");
    renamed.description = Some("renamed".into());
    let steps: Vec<(&'static str, Vec<Op>)> = vec![
        (
            "an attribute value set",
            vec![Op::SetAttribute(attr(x, "B", Value::Text("b".into())))],
        ),
        (
            "an attribute value replaced",
            vec![Op::SetAttribute(attr(x, "A", Value::Integer(2)))],
        ),
        (
            "an attribute value removed",
            vec![Op::RemoveAttribute {
                object: x,
                attribute: "B".into(),
            }],
        ),
        (
            "a tag added",
            vec![Op::AddTag(tag(x, TagKind::Label, "PII"))],
        ),
        (
            "a classification set",
            vec![Op::SetClassification(Classification {
                object: x,
                data_class: "Email".into(),
                status: ClassificationStatus::Proposed,
            })],
        ),
        (
            "the classification approved",
            vec![Op::SetClassification(Classification {
                object: x,
                data_class: "Email".into(),
                status: ClassificationStatus::Approved,
            })],
        ),
        (
            "an edge to another model's object",
            vec![Op::AddEdge(cross.clone())],
        ),
        ("the object renamed", vec![Op::PutObject(renamed)]),
        (
            "the tag removed, another model's object written",
            vec![
                Op::RemoveTag(tag(x, TagKind::Label, "PII")),
                Op::SetAttribute(attr(elsewhere, "A", Value::Integer(5))),
            ],
        ),
        (
            "the classification removed",
            vec![Op::RemoveClassification {
                object: x,
                data_class: "Email".into(),
            }],
        ),
        (
            "the edge's target deleted, in the other model",
            vec![Op::DeleteObject(elsewhere)],
        ),
    ];
    for (what, ops) in steps {
        apply(writer, ops, what).await;
        entity_follows(reader, x, what).await;
    }
    let (_, details) = entity_follows(reader, x, "the edge's target deleted").await;
    assert!(
        details.edges.is_empty(),
        "{backend}: the edge went with its target"
    );

    apply(writer, vec![Op::ClearModel(model)], "the model cleared").await;
    let read = ok(reader.entity_read(x, None).await, "entity_read");
    assert_eq!(read.object, None, "{backend}: the cleared model's object");
    assert!(is_empty(&read.details));
    let read = ok(reader.entity_read(sibling, None).await, "entity_read");
    assert_eq!(read.object, None, "{backend}: the cleared model's sibling");
}

/// `entity_read`'s repository version, where a store answers one, stays while nothing
/// of the repository changes and moves when a repository object is written (a model
/// moved to a folder, a folder added) or any object deleted; a store that answers none
/// answers none every time.
pub(super) async fn entity_read_answers_the_repository_version(store: Arc<dyn Store>) {
    repository_version_follows_writes(store.as_ref(), store.as_ref()).await;
}

/// [`entity_read_answers_the_repository_version`] with the reads on `reader` and the
/// writes on `writer`: one store twice, or two stores over one database (two processes).
pub async fn repository_version_follows_writes(reader: &dyn Store, writer: &dyn Store) {
    let backend = reader.backend();
    let (model_id, model) = new_model(writer, "Repository Version Model").await;
    let x = ids(writer, model, 1).await[0];
    apply(
        writer,
        vec![Op::PutObject(model_object(x.model, x.object, None, "x"))],
        "an object",
    )
    .await;
    let version = async |after: &str| {
        let read = ok(reader.entity_read(x, None).await, "entity_read");
        assert!(read.object.is_some(), "{backend}: the object after {after}");
        // The version alone (what sight keeps the repository's tree by) is the same.
        let alone = ok(reader.repository_version().await, "repository_version");
        assert_eq!(
            alone, read.repository_version,
            "{backend}: repository_version answers as entity_read after {after}"
        );
        read.repository_version
    };
    let add_folder = async |name: &str| {
        let number = ok(writer.reserve_ids(REPOSITORY_MODEL, 1).await, "reserve_ids");
        let folder = repository_object(number, ObjectKind::Folder, None, name);
        apply(writer, vec![Op::PutObject(folder.clone())], "a folder").await;
        folder
    };
    let Some(first) = version("it was written").await else {
        assert_eq!(
            version("a first read").await,
            None,
            "{backend}: none, then none"
        );
        add_folder("a folder").await;
        assert_eq!(
            version("a folder added").await,
            None,
            "{backend}: none, then none"
        );
        return;
    };
    assert_eq!(version("a read").await, Some(first), "{backend}: unchanged");
    apply(
        writer,
        vec![Op::SetAttribute(attr(x, "A", Value::Integer(1)))],
        "an attribute value",
    )
    .await;
    let before = version("an attribute value set").await;

    let folder = add_folder("Version Folder").await;
    let added = version("a folder added").await;
    assert_ne!(added, before, "{backend}: a folder added moves it");

    let mut moved = ok(writer.objects(&[model_id]).await, "objects")
        .pop()
        .expect("the model");
    moved.parent = Some(folder.id);
    apply(writer, vec![Op::PutObject(moved)], "the model moved").await;
    let after_move = version("the model moved into the folder").await;
    assert_ne!(after_move, added, "{backend}: a model moved moves it");
    assert_eq!(
        version("a read").await,
        after_move,
        "{backend}: and it stays"
    );

    let y = ids(writer, model, 1).await[0];
    apply(
        writer,
        vec![Op::PutObject(model_object(y.model, y.object, None, "y"))],
        "another object",
    )
    .await;
    let before = version("another object written").await;
    apply(
        writer,
        vec![Op::DeleteObject(y)],
        "the other object deleted",
    )
    .await;
    assert_ne!(
        version("an object deleted").await,
        before,
        "{backend}: a deletion moves it (edges into the deleted object come from anywhere)"
    );
}

/// Reads `x`'s entity twice (the second may be answered from what the first kept) and
/// checks both against the object and what its entity shows, read through calls no
/// store keeps; answers those.
async fn entity_follows(reader: &dyn Store, x: ObjectId, after: &str) -> (Option<Object>, Details) {
    let backend = reader.backend();
    let object = ok(reader.object(x).await, "object");
    let mut want = details(reader, &[x], "details").await;
    want.edges.retain(|e| e.source == x);
    want.labels.clear();
    want.profiling.clear();
    let want = (object, want);
    for time in ["first", "second"] {
        let read = ok(reader.entity_read(x, None).await, "entity_read");
        assert_eq!(
            (read.object, read.details),
            want,
            "{backend}: the {time} entity read after {after}"
        );
    }
    want
}
