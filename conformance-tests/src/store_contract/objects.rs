//! Objects and what hangs on them: ids, round trips, orders, deletes and clearing a model
//! (read back together: `details.rs`).

use super::*;

pub(super) async fn fresh_store_is_empty_and_answers(store: Arc<dyn Store>) {
    let store = store.as_ref();
    assert!(
        ["memory", "sqlite", "postgres"].contains(&store.backend()),
        "backend() names the backend: got '{}'",
        store.backend()
    );
    ok(store.ping().await, "ping on a healthy store");
    assert_eq!(
        ok(store.user_count().await, "user_count"),
        0,
        "a fresh store has no users"
    );
    assert!(
        ok(store.roles().await, "roles").is_empty(),
        "a fresh store has no roles (the catalog adds them)"
    );
    assert!(
        ok(store.attribute_types().await, "attribute_types").is_empty(),
        "a fresh store has no attribute types"
    );
    assert!(
        ok(store.object_types().await, "object_types").is_empty(),
        "a fresh store has no object types"
    );
    assert!(
        ok(store.data_classes().await, "data_classes").is_empty(),
        "a fresh store has no data classes"
    );
    assert!(
        ok(store.sensitivity_labels().await, "sensitivity_labels").is_empty(),
        "a fresh store has no labels"
    );
    assert!(
        ok(
            store.children(REPOSITORY_MODEL, None).await,
            "children of the root"
        )
        .is_empty(),
        "a fresh store has an empty repository"
    );
    ok(store.apply(Batch::new()).await, "applying an empty batch");
}

pub(super) async fn reserve_ids_consecutive_per_id_space(store: Arc<dyn Store>) {
    let store = store.as_ref();
    assert_eq!(
        ok(store.reserve_ids(REPOSITORY_MODEL, 1).await, "reserve_ids"),
        1,
        "the repository id space starts at 1"
    );
    assert_eq!(
        ok(store.reserve_ids(REPOSITORY_MODEL, 3).await, "reserve_ids"),
        2,
        "ids are consecutive"
    );
    assert_eq!(
        ok(store.reserve_ids(REPOSITORY_MODEL, 1).await, "reserve_ids"),
        5,
        "a reservation of 3 ids takes 3 ids"
    );
    assert_eq!(
        ok(store.reserve_ids(9001, 10).await, "reserve_ids"),
        1,
        "every model's id space starts at 1"
    );
    assert_eq!(
        ok(store.reserve_ids(9002, 1).await, "reserve_ids"),
        1,
        "id spaces are separate per model"
    );
    assert_eq!(
        ok(store.reserve_ids(9001, 1).await, "reserve_ids"),
        11,
        "another space does not move this one"
    );
    assert_eq!(
        ok(store.reserve_ids(REPOSITORY_MODEL, 1).await, "reserve_ids"),
        6,
        "model spaces do not move -1"
    );
}

pub(super) async fn reserve_ids_not_reused_after_failed_batch(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let first = ok(store.reserve_ids(9003, 2).await, "reserve_ids");
    let failing = vec![
        Op::PutObject(model_object(9003, first, None, "a")),
        Op::PutObject(model_object(
            9003,
            first + 1,
            Some(ObjectId::new(9004, 1)),
            "b",
        )),
    ];
    assert!(
        store.apply(failing.into()).await.is_err(),
        "a parent in another model is refused"
    );
    assert_eq!(
        ok(store.reserve_ids(9003, 1).await, "reserve_ids"),
        first + 2,
        "ids reserved for a failed batch are never handed out again"
    );
}

pub(super) async fn reserve_ids_concurrently_never_repeat(store: Arc<dyn Store>) {
    let mut tasks = Vec::new();
    for _ in 0..8 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            let mut firsts = Vec::new();
            for _ in 0..5 {
                firsts.push(store.reserve_ids(9010, 3).await);
            }
            firsts
        }));
    }
    let mut taken = BTreeSet::new();
    for task in tasks {
        for first in task.await.expect("a reserve_ids task panicked") {
            let first = ok(first, "concurrent reserve_ids");
            for id in first..first + 3 {
                assert!(
                    taken.insert(id),
                    "concurrent reservations never hand out id {id} twice"
                );
            }
        }
    }
    assert_eq!(
        taken,
        (1..=120).collect(),
        "concurrent reservations are consecutive from 1 without gaps"
    );
}

pub(super) async fn objects_round_trip_and_put_replaces_whole(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model_id, model) = new_model(store, "Objects Model").await;
    let id = ids(store, model, 1).await[0];

    // Every field set, with unicode and distinct timestamps.
    let mut full = model_object(model, id.object, None, "Ünïcødé 表 🚀");
    full.physical_name = Some("PHYS_TABLE".into());
    full.description = Some("a description\nwith two lines and 'quotes'".into());
    full.business_name = Some("Business Name".into());
    full.business_description = Some("Beschreibung äöü".into());
    full.data_type = Some("VARCHAR(20)".into());
    full.external_url = Some("https://example.com/x?y=1&z=2".into());
    full.hide_data = true;
    full.workflow_state = Some("Published".into());
    full.created_at = at(946_684_799_123);
    full.updated_at = now();
    full.updated_by = Some(ObjectId::repository(1));
    apply(store, vec![Op::PutObject(full.clone())], "PutObject").await;
    assert_eq!(
        ok(store.object(id).await, "object"),
        Some(full.clone()),
        "an object with every field set reads back exactly"
    );
    assert_eq!(
        ok(store.object(model_id).await, "object").map(|o| o.kind),
        Some(ObjectKind::Model),
        "a repository object reads back by its -1_<n> id"
    );
    assert_eq!(
        ok(store.object(ObjectId::new(model, 999_999)).await, "object"),
        None,
        "an unknown id reads None"
    );

    let stable = full.stable_id.clone().unwrap_or_default();
    assert_eq!(
        ok(
            store.object_by_stable_id(&stable).await,
            "object_by_stable_id"
        ),
        Some(full.clone()),
        "object_by_stable_id finds the object"
    );
    assert_eq!(
        ok(
            store.object_by_stable_id("bm8tc3VjaA").await,
            "object_by_stable_id"
        ),
        None,
        "an unknown stable id reads None"
    );

    // PutObject replaces: every field, including clearing optional ones.
    let mut minimal = model_object(model, id.object, None, "renamed");
    minimal.native_id = None;
    minimal.stable_id = None;
    apply(
        store,
        vec![Op::PutObject(minimal.clone())],
        "PutObject replacing an object",
    )
    .await;
    assert_eq!(
        ok(store.object(id).await, "object"),
        Some(minimal),
        "PutObject replaces the whole object"
    );
    assert_eq!(
        ok(
            store.object_by_stable_id(&stable).await,
            "object_by_stable_id"
        ),
        None,
        "a stable id the object no longer has finds nothing"
    );
    assert!(
        ok(
            store.child_by_name(model, None, "Ünïcødé 表 🚀").await,
            "child_by_name"
        )
        .is_none(),
        "the old name of a renamed object finds nothing"
    );
    assert_eq!(
        ok(
            store.child_by_name(model, None, "renamed").await,
            "child_by_name"
        )
        .map(|o| o.id),
        Some(id),
        "the new name of a renamed object finds it"
    );

    // model_objects: by id (numerically), only that model.
    let other = ObjectId::new(model + 1_000_000, 1);
    let mut batch = vec![Op::PutObject(model_object(
        other.model,
        other.object,
        None,
        "elsewhere",
    ))];
    let more = ids(store, model, 11).await;
    for &i in [10usize, 1, 5].iter() {
        batch.push(Op::PutObject(model_object(
            model,
            more[i].object,
            None,
            &format!("m{i}"),
        )));
    }
    apply(store, batch, "PutObject of several model objects").await;
    let listed = ok(store.model_objects(model).await, "model_objects");
    assert_eq!(
        id_list(&listed),
        vec![id, more[1], more[5], more[10]],
        "model_objects lists exactly the model's objects, sorted by id"
    );
    assert!(
        !ok(store.model_objects(model).await, "model_objects")
            .iter()
            .any(|o| o.id == model_id),
        "model_objects does not list the model's repository object"
    );
}

pub(super) async fn children_sorted_by_name_bytes_and_looked_up_exactly(store: Arc<dyn Store>) {
    let store = store.as_ref();
    // Repository tree: folders under the root, sorted by name (bytes) then id.
    let r = ids(store, REPOSITORY_MODEL, 6).await;
    let folder = |i: usize, parent: Option<ObjectId>, name: &str| {
        Op::PutObject(repository_object(
            r[i].object,
            ObjectKind::Folder,
            parent,
            name,
        ))
    };
    apply(
        store,
        vec![
            folder(0, None, "Top"),
            // Names are unique among one parent's repository objects, so the second
            // "same" lives under "b"; objects_of_kind still lists both by id.
            folder(2, Some(r[3]), "same"),
            folder(1, Some(r[0]), "same"),
            folder(3, Some(r[0]), "b"),
            folder(4, Some(r[0]), "B"),
            folder(5, Some(r[0]), "é"),
        ],
        "PutObject of folders",
    )
    .await;
    let children = ok(
        store.children(REPOSITORY_MODEL, Some(r[0])).await,
        "children",
    );
    assert_eq!(
        object_names(&children),
        ["B", "b", "same", "é"],
        "children are sorted by name, comparing bytes (\"B\" < \"b\" < \"é\")"
    );
    assert_eq!(children[2].id, r[1], "children carry their ids");
    let clash = ids(store, REPOSITORY_MODEL, 1).await;
    let err = store
        .apply(Batch::from(vec![Op::PutObject(repository_object(
            clash[0].object,
            ObjectKind::Folder,
            Some(r[0]),
            "same",
        ))]))
        .await
        .expect_err("a second repository object of the same parent and name is refused");
    assert_eq!(
        err.code,
        ErrorCode::Conflict,
        "a repository name clash under one parent is a CONFLICT: {err}"
    );
    let roots = only(
        ok(
            store.children(REPOSITORY_MODEL, None).await,
            "children of the root",
        ),
        &r,
    );
    assert_eq!(
        id_list(&roots),
        [r[0]],
        "children(-1, None) lists the repository root's objects"
    );
    assert!(
        ok(
            store.children(REPOSITORY_MODEL, Some(r[5])).await,
            "children"
        )
        .is_empty(),
        "an object without children has none"
    );
    assert_eq!(
        ok(
            store.child_by_name(REPOSITORY_MODEL, Some(r[0]), "B").await,
            "child_by_name"
        )
        .map(|o| o.id),
        Some(r[4]),
        "child_by_name matches the exact name"
    );
    assert_eq!(
        ok(
            store.child_by_name(REPOSITORY_MODEL, Some(r[0]), "b").await,
            "child_by_name"
        )
        .map(|o| o.id),
        Some(r[3]),
        "child_by_name is case-sensitive"
    );
    assert!(
        ok(
            store
                .child_by_name(REPOSITORY_MODEL, Some(r[0]), "missing")
                .await,
            "child_by_name"
        )
        .is_none(),
        "child_by_name of an unknown name is None"
    );
    assert!(
        ok(
            store.child_by_name(REPOSITORY_MODEL, None, "B").await,
            "child_by_name"
        )
        .is_none(),
        "child_by_name looks only under the given parent"
    );
    assert_eq!(
        ok(
            store.child_by_name(REPOSITORY_MODEL, None, "Top").await,
            "child_by_name"
        )
        .map(|o| o.id),
        Some(r[0]),
        "child_by_name with parent None looks at the repository root"
    );

    // Model objects: the top level of a model is parent None in its id space.
    let (model_id, model) = new_model(store, "Tree Model").await;
    let m = ids(store, model, 3).await;
    apply(
        store,
        vec![
            Op::PutObject(model_object(model, m[0].object, None, "schema")),
            Op::PutObject(model_object(model, m[1].object, Some(m[0]), "table")),
            Op::PutObject(model_object(model, m[2].object, Some(m[0]), "Table")),
        ],
        "PutObject of model objects",
    )
    .await;
    assert_eq!(
        id_list(&ok(store.children(model, None).await, "children")),
        [m[0]],
        "children(model, None) lists the model's top level"
    );
    assert_eq!(
        object_names(&ok(store.children(model, Some(m[0])).await, "children")),
        ["Table", "table"],
        "children of a model object are sorted by name"
    );
    assert_eq!(
        ok(
            store.child_by_name(model, Some(m[0]), "table").await,
            "child_by_name"
        )
        .map(|o| o.id),
        Some(m[1]),
        "child_by_name inside a model"
    );
    assert!(
        ok(
            store.child_by_name(REPOSITORY_MODEL, None, "schema").await,
            "child_by_name"
        )
        .is_none(),
        "model objects are not in the repository's id space"
    );
    assert!(
        ok(
            store.children(REPOSITORY_MODEL, Some(model_id)).await,
            "children"
        )
        .is_empty(),
        "a model's objects are not repository children of its repository object"
    );

    // objects_of_kind: repository objects of one kind, by name then id.
    let c = ids(store, REPOSITORY_MODEL, 3).await;
    apply(
        store,
        vec![
            Op::PutObject(repository_object(
                c[2].object,
                ObjectKind::Configuration,
                None,
                "Conf",
            )),
            Op::PutObject(repository_object(
                c[0].object,
                ObjectKind::Configuration,
                None,
                "conf",
            )),
            // Same name, other parent: repository names are unique per parent only.
            Op::PutObject(repository_object(
                c[1].object,
                ObjectKind::Configuration,
                Some(r[0]),
                "Conf",
            )),
        ],
        "PutObject of configurations",
    )
    .await;
    let configurations = only(
        ok(
            store.objects_of_kind(ObjectKind::Configuration).await,
            "objects_of_kind",
        ),
        &c,
    );
    assert_eq!(
        id_list(&configurations),
        [c[1], c[2], c[0]],
        "objects_of_kind lists every object of the kind, sorted by name then id"
    );
    let folders = only(
        ok(
            store.objects_of_kind(ObjectKind::Folder).await,
            "objects_of_kind",
        ),
        &r,
    );
    assert_eq!(
        object_names(&folders),
        ["B", "Top", "b", "same", "same", "é"],
        "objects_of_kind(Folder) lists folders by name"
    );
    assert!(
        ok(
            store
                .objects_of_kind(ObjectKind::ConfigurationVersion)
                .await,
            "objects_of_kind"
        )
        .is_empty(),
        "objects_of_kind of a kind nobody has is empty"
    );
}

pub(super) async fn attribute_values_round_trip_and_sort_by_name(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "Values Model").await;
    let o = ids(store, model, 2).await;
    apply(
        store,
        vec![
            Op::PutObject(model_object(model, o[0].object, None, "a")),
            Op::PutObject(model_object(model, o[1].object, None, "b")),
        ],
        "PutObject",
    )
    .await;
    let values = [
        ("bool true", Value::Boolean(true)),
        ("bool false", Value::Boolean(false)),
        ("int zero", Value::Integer(0)),
        ("int negative", Value::Integer(-42)),
        ("int max", Value::Integer(i64::MAX)),
        ("int min", Value::Integer(i64::MIN)),
        ("double", Value::Double(std::f64::consts::PI)),
        ("double whole", Value::Double(2.0)),
        ("double tiny", Value::Double(-1.5e-300)),
        ("double huge", Value::Double(1.7976931348623157e308)),
        ("datetime now", Value::DateTime(now())),
        ("datetime 1969", Value::DateTime(at(-14_182_939_877))),
        (
            "text unicode",
            Value::Text("Grüße, 世界! 🚀 \"quoted\" 'single' \\ back".into()),
        ),
        ("text empty", Value::Text(String::new())),
        ("text number", Value::Text("42".into())),
        ("text bool", Value::Text("true".into())),
        ("text date", Value::Text("2024-01-02 03:04:05".into())),
    ];
    let mut batch = Vec::new();
    for (name, value) in &values {
        batch.push(Op::SetAttribute(attr(o[1], name, value.clone())));
    }
    batch.push(Op::SetAttribute(attr(o[0], "Zeta", Value::Integer(1))));
    batch.push(Op::SetAttribute(attr(o[0], "Alpha", Value::Integer(2))));
    batch.push(Op::SetAttribute(attr(o[0], "alpha", Value::Integer(3))));
    apply(store, batch, "SetAttribute of every value variant").await;

    let read = details(store, &o, "details").await;
    for (name, value) in &values {
        let found: Vec<&AttributeValue> = read
            .attributes
            .iter()
            .filter(|a| a.object == o[1] && a.attribute == *name)
            .collect();
        assert_eq!(found.len(), 1, "attribute '{name}' is stored once");
        assert_eq!(
            &found[0].value, value,
            "value of attribute '{name}' round-trips exactly (variant and value)"
        );
    }
    let mut expected: Vec<(ObjectId, String)> = read
        .attributes
        .iter()
        .map(|a| (a.object, a.attribute.clone()))
        .collect();
    expected.sort();
    assert_eq!(
        read.attributes
            .iter()
            .map(|a| (a.object, a.attribute.clone()))
            .collect::<Vec<_>>(),
        expected,
        "details.attributes are sorted by object, then attribute name (bytes)"
    );
    assert_eq!(
        read.attributes
            .iter()
            .take(3)
            .map(|a| a.attribute.as_str())
            .collect::<Vec<_>>(),
        ["Alpha", "Zeta", "alpha"],
        "attribute names are distinct case-sensitively and sort by bytes"
    );

    // Replace and remove.
    apply(
        store,
        vec![
            Op::SetAttribute(attr(o[0], "Zeta", Value::Text("now text".into()))),
            Op::RemoveAttribute {
                object: o[0],
                attribute: "Alpha".into(),
            },
            Op::RemoveAttribute {
                object: o[0],
                attribute: "never set".into(),
            },
        ],
        "SetAttribute replacing a value, RemoveAttribute",
    )
    .await;
    let read = details(store, &o[..1], "details").await;
    assert_eq!(
        read.attributes,
        vec![
            attr(o[0], "Zeta", Value::Text("now text".into())),
            attr(o[0], "alpha", Value::Integer(3))
        ],
        "SetAttribute replaces the value (even with another variant); RemoveAttribute removes one attribute \
         and removing an unset one is a no-op"
    );
}

pub(super) async fn edges_once_each_sorted_and_removed_exactly(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "Edges Model").await;
    let o = ids(store, model, 4).await;
    let mut batch: Vec<Op> = o
        .iter()
        .map(|id| Op::PutObject(model_object(model, id.object, None, "x")))
        .collect();
    let e1 = edge(EdgeKind::SemanticLink, o[0], o[2], "defines");
    let e2 = edge(EdgeKind::SemanticLink, o[0], o[1], "defines");
    let e3 = edge(EdgeKind::SemanticLink, o[0], o[1], "another name");
    let e4 = edge(EdgeKind::Lineage, o[0], o[1], "");
    let e5 = edge(EdgeKind::SemanticLink, o[3], o[1], "defines");
    for e in [&e1, &e2, &e3, &e4, &e5, &e1] {
        batch.push(Op::AddEdge(e.clone()));
    }
    apply(store, batch, "AddEdge").await;
    apply(
        store,
        vec![Op::AddEdge(e2.clone())],
        "AddEdge of an existing edge (a no-op)",
    )
    .await;

    let out = ok(
        store.edges(EdgeKind::SemanticLink, o[0], false).await,
        "edges outgoing",
    );
    assert_eq!(
        out,
        vec![e3.clone(), e2.clone(), e1.clone()],
        "edges(kind, source, false) lists the outgoing edges of the kind once each, sorted (target, then name)"
    );
    let incoming = ok(
        store.edges(EdgeKind::SemanticLink, o[1], true).await,
        "edges incoming",
    );
    assert_eq!(
        incoming,
        vec![e3.clone(), e2.clone(), e5.clone()],
        "edges(kind, target, true) lists the incoming edges of the kind, sorted (source, then name)"
    );
    assert_eq!(
        ok(store.edges(EdgeKind::Lineage, o[1], true).await, "edges"),
        vec![e4.clone()],
        "edges filters by kind"
    );
    assert!(
        ok(
            store.edges(EdgeKind::SemanticLink, o[1], false).await,
            "edges"
        )
        .is_empty(),
        "an object with only incoming edges has no outgoing ones"
    );

    apply(
        store,
        vec![
            Op::RemoveEdge(e2.clone()),
            Op::RemoveEdge(edge(EdgeKind::TermReference, o[0], o[1], "defines")),
        ],
        "RemoveEdge",
    )
    .await;
    assert_eq!(
        ok(
            store.edges(EdgeKind::SemanticLink, o[0], false).await,
            "edges"
        ),
        vec![e3.clone(), e1.clone()],
        "RemoveEdge removes exactly that edge (kind, source, target and name); removing a missing edge is a no-op"
    );

    // details: edges with either end in scope, once each, sorted by Edge's derived Ord
    // (kind in declaration order: CustomRelationship < SemanticLink < ... < Lineage).
    let e6 = edge(EdgeKind::CustomRelationship, o[2], o[3], "Is Defined By");
    apply(store, vec![Op::AddEdge(e6.clone())], "AddEdge").await;
    let read = details(store, &[o[0], o[1]], "details").await;
    assert_eq!(
        read.edges,
        vec![e3.clone(), e1.clone(), e5.clone(), e4.clone()],
        "details.edges hold edges whose source or target is in scope, once each, sorted by Edge's derived Ord \
         (kind in declaration order, then source, target, name)"
    );
    let read = details(store, &o, "details").await;
    assert_eq!(
        read.edges,
        vec![e6, e3, e1, e5, e4],
        "an edge with both ends in scope appears once"
    );
}

pub(super) async fn tags_once_each_sorted_and_removed_exactly(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "Tags Model").await;
    let o = ids(store, model, 2).await;
    let t1 = tag(o[0], TagKind::Collection, "Favourites");
    let t2 = tag(o[0], TagKind::Label, "pii");
    let t3 = tag(o[0], TagKind::Label, "PII");
    let t4 = tag(o[1], TagKind::Label, "ünïcødé");
    apply(
        store,
        vec![
            Op::PutObject(model_object(model, o[0].object, None, "a")),
            Op::PutObject(model_object(model, o[1].object, None, "b")),
            Op::AddTag(t1.clone()),
            Op::AddTag(t2.clone()),
            Op::AddTag(t3.clone()),
            Op::AddTag(t4.clone()),
            Op::AddTag(t2.clone()),
        ],
        "AddTag",
    )
    .await;
    apply(
        store,
        vec![Op::AddTag(t1.clone())],
        "AddTag of an existing tag (a no-op)",
    )
    .await;
    assert_eq!(
        details(store, &o, "details").await.tags,
        vec![t3.clone(), t2.clone(), t1.clone(), t4.clone()],
        "tags are stored once each and sorted by Tag's derived Ord (object, kind with Label before Collection, value)"
    );
    apply(
        store,
        vec![
            Op::RemoveTag(t2.clone()),
            Op::RemoveTag(tag(o[1], TagKind::Collection, "ünïcødé")),
        ],
        "RemoveTag",
    )
    .await;
    assert_eq!(
        details(store, &o, "details").await.tags,
        vec![t3, t1, t4],
        "RemoveTag removes exactly that tag (object, kind, value); removing a missing one is a no-op"
    );
}

pub(super) async fn classifications_and_labels_replace_status(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "Classification Model").await;
    let o = ids(store, model, 2).await;
    let class = |object, name: &str, status| Classification {
        object,
        data_class: name.to_owned(),
        status,
    };
    let label = |object, name: &str, status| LabelAssignment {
        object,
        label: name.to_owned(),
        status,
    };
    use ClassificationStatus::*;
    apply(
        store,
        vec![
            Op::PutObject(model_object(model, o[0].object, None, "a")),
            Op::PutObject(model_object(model, o[1].object, None, "b")),
            Op::SetClassification(class(o[1], "Email", Matched)),
            Op::SetClassification(class(o[0], "Email", Matched)),
            Op::SetClassification(class(o[0], "City", Approved)),
            Op::SetClassification(class(o[0], "Email", Rejected)),
            Op::SetLabelAssignment(label(o[0], "Confidential", Proposed)),
            Op::SetLabelAssignment(label(o[0], "Confidential", Approved)),
            Op::SetLabelAssignment(label(o[0], "Alpha", Matched)),
            Op::SetLabelAssignment(label(o[1], "Public", Rejected)),
        ],
        "SetClassification, SetLabelAssignment",
    )
    .await;
    let read = details(store, &o, "details").await;
    assert_eq!(
        read.classifications,
        vec![
            class(o[0], "City", Approved),
            class(o[0], "Email", Rejected),
            class(o[1], "Email", Matched)
        ],
        "SetClassification replaces the status of a class on an object; classifications are sorted"
    );
    assert_eq!(
        read.labels,
        vec![
            label(o[0], "Alpha", Matched),
            label(o[0], "Confidential", Approved),
            label(o[1], "Public", Rejected)
        ],
        "SetLabelAssignment replaces the status of a label on an object; labels are sorted"
    );
    apply(
        store,
        vec![
            Op::RemoveClassification {
                object: o[0],
                data_class: "Email".into(),
            },
            Op::RemoveClassification {
                object: o[0],
                data_class: "Missing".into(),
            },
            Op::RemoveLabelAssignment {
                object: o[0],
                label: "Confidential".into(),
            },
            Op::RemoveLabelAssignment {
                object: o[1],
                label: "Missing".into(),
            },
        ],
        "RemoveClassification, RemoveLabelAssignment",
    )
    .await;
    let read = details(store, &o, "details").await;
    assert_eq!(
        read.classifications,
        vec![class(o[0], "City", Approved), class(o[1], "Email", Matched)],
        "RemoveClassification removes that class from that object only"
    );
    assert_eq!(
        read.labels,
        vec![
            label(o[0], "Alpha", Matched),
            label(o[1], "Public", Rejected)
        ],
        "RemoveLabelAssignment removes that label from that object only"
    );
}

pub(super) fn full_profile() -> DataProfile {
    DataProfile {
        total_profiled_rows: Some(1_000_000),
        profiling_date: Some(at(1_700_000_000_123)),
        statistics: ProfileStatistics {
            distinct_rows: Some(900),
            duplicate_rows: Some(100),
            valid_rows: Some(990),
            empty_rows: Some(5),
            invalid_rows: Some(5),
            min: Some(-12.5),
            max: Some(1e12),
            mean: Some(0.1),
            variance: Some(2.25),
            median: Some(3.0),
            lower_quantile: Some(1.5),
            upper_quantile: Some(7.75),
            avg_length: Some(4.5),
            min_length: Some(0),
            max_length: Some(255),
        },
        inferred_data_types: [("INTEGER".to_owned(), 990), ("STRING".to_owned(), 10)].into(),
        invalid_data_type_values: vec!["n/a".into(), "—".into()],
        patterns: [("999".to_owned(), 800), ("AAA".to_owned(), 10)].into(),
        values: [
            ("Zürich".to_owned(), 3),
            ("東京".to_owned(), 2),
            (String::new(), 1),
        ]
        .into(),
        histogram: vec![
            HistogramBucket {
                count: 10,
                lower: "0".into(),
                upper: "10".into(),
            },
            HistogramBucket {
                count: 0,
                lower: "10".into(),
                upper: "20".into(),
            },
        ],
    }
}

/// One of everything that hangs on an object: the attribute `A` of `value`, the label
/// tag `t`, the data class `C` (matched), the sensitivity label `L` with
/// `label_status`, and a data sample.
pub(super) fn hanging_on(id: ObjectId, value: i64, label_status: ClassificationStatus) -> [Op; 5] {
    [
        Op::SetAttribute(attr(id, "A", Value::Integer(value))),
        Op::AddTag(tag(id, TagKind::Label, "t")),
        Op::SetClassification(Classification {
            object: id,
            data_class: "C".into(),
            status: ClassificationStatus::Matched,
        }),
        Op::SetLabelAssignment(LabelAssignment {
            object: id,
            label: "L".into(),
            status: label_status,
        }),
        Op::SetProfiling(Profiling {
            object: id,
            profile: None,
            sample: Some(sample()),
        }),
    ]
}

pub(super) fn sample() -> DataSample {
    DataSample {
        header: vec!["id".into(), "name".into(), "flag".into(), "note".into()],
        samples: vec![
            vec![
                serde_json::json!(1),
                serde_json::json!("Ann"),
                serde_json::json!(true),
                serde_json::Value::Null,
            ],
            vec![
                serde_json::json!(2.5),
                serde_json::json!("Zoë"),
                serde_json::json!(false),
                serde_json::json!({"a": [1, 2]}),
            ],
        ],
    }
}

pub(super) async fn profiling_round_trips_and_replaces(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "Profiling Model").await;
    let o = ids(store, model, 3).await;
    let mut batch: Vec<Op> = o
        .iter()
        .map(|id| Op::PutObject(model_object(model, id.object, None, "c")))
        .collect();
    let both = Profiling {
        object: o[1],
        profile: Some(full_profile()),
        sample: Some(sample()),
    };
    let empty_profile = Profiling {
        object: o[0],
        profile: Some(DataProfile::default()),
        sample: None,
    };
    batch.push(Op::SetProfiling(both.clone()));
    batch.push(Op::SetProfiling(empty_profile.clone()));
    apply(store, batch, "SetProfiling").await;
    assert_eq!(
        details(store, &o, "details").await.profiling,
        vec![empty_profile.clone(), both.clone()],
        "profiling (a full DataProfile with statistics, maps and histogram, and a DataSample) round-trips \
         exactly, sorted by object"
    );

    let only_sample = Profiling {
        object: o[1],
        profile: None,
        sample: Some(sample()),
    };
    apply(
        store,
        vec![Op::SetProfiling(only_sample.clone())],
        "SetProfiling replacing",
    )
    .await;
    assert_eq!(
        details(store, &o[1..2], "details").await.profiling,
        vec![only_sample],
        "SetProfiling replaces both the profile and the sample (a missing profile is removed)"
    );

    apply(
        store,
        vec![
            Op::SetProfiling(Profiling {
                object: o[1],
                profile: None,
                sample: None,
            }),
            Op::SetProfiling(Profiling {
                object: o[2],
                profile: None,
                sample: None,
            }),
        ],
        "SetProfiling with neither profile nor sample",
    )
    .await;
    assert_eq!(
        details(store, &o, "details").await.profiling,
        vec![empty_profile],
        "SetProfiling with both None removes the profiling of that object (a no-op when it had none)"
    );
}

pub(super) async fn delete_object_removes_what_hangs_on_it(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "Delete Model").await;
    let o = ids(store, model, 4).await;
    let (victim, keep, child, third) = (o[0], o[1], o[2], o[3]);
    let grantee = ObjectId::repository(ok(
        store.reserve_ids(REPOSITORY_MODEL, 1).await,
        "reserve_ids",
    ));
    let grant_on = |object| Grant {
        grantee,
        role: "Steward".into(),
        object: Some(object),
    };
    let hanging = |id: ObjectId| {
        vec![
            Op::SetAttribute(attr(id, "A", Value::Boolean(true))),
            Op::AddTag(tag(id, TagKind::Collection, "c")),
            Op::SetClassification(Classification {
                object: id,
                data_class: "C".into(),
                status: ClassificationStatus::Approved,
            }),
            Op::SetLabelAssignment(LabelAssignment {
                object: id,
                label: "L".into(),
                status: ClassificationStatus::Approved,
            }),
            Op::SetProfiling(Profiling {
                object: id,
                profile: Some(full_profile()),
                sample: None,
            }),
            Op::AddGrant(grant_on(id)),
        ]
    };
    let mut batch = vec![
        Op::PutObject(model_object(model, victim.object, None, "victim")),
        Op::PutObject(model_object(model, keep.object, None, "keep")),
        Op::PutObject(model_object(model, child.object, Some(victim), "child")),
        Op::PutObject(model_object(model, third.object, None, "third")),
        Op::AddGrant(Grant {
            grantee,
            role: "Metadata Viewer".into(),
            object: None,
        }),
    ];
    batch.extend(hanging(victim));
    batch.extend(hanging(keep));
    let from = edge(EdgeKind::SemanticLink, victim, keep, "x");
    let to = edge(EdgeKind::CustomRelationship, keep, victim, "y");
    let between = edge(EdgeKind::SemanticLink, keep, third, "z");
    for e in [&from, &to, &between] {
        batch.push(Op::AddEdge(e.clone()));
    }
    apply(store, batch, "filling a model").await;
    let keep_before = details(store, &[keep], "details").await;

    apply(store, vec![Op::DeleteObject(victim)], "DeleteObject").await;
    assert_eq!(
        ok(store.object(victim).await, "object"),
        None,
        "DeleteObject removes the object"
    );
    let stable = stable_id(model, &format!("native.{}", victim.object));
    assert_eq!(
        ok(
            store.object_by_stable_id(&stable).await,
            "object_by_stable_id"
        ),
        None,
        "a deleted object's stable id finds nothing"
    );
    assert!(
        ok(
            store.child_by_name(model, None, "victim").await,
            "child_by_name"
        )
        .is_none(),
        "a deleted object is no longer a child"
    );
    assert!(
        is_empty(&details(store, &[victim], "details").await),
        "DeleteObject removes its attributes, edges, tags, classifications, labels and profiling"
    );
    assert!(
        ok(
            store.edges(EdgeKind::CustomRelationship, keep, false).await,
            "edges"
        )
        .is_empty(),
        "DeleteObject removes edges to the object"
    );
    let mut expected = keep_before.clone();
    expected.edges.retain(|e| *e == between);
    assert_eq!(
        details(store, &[keep], "details").await,
        expected,
        "DeleteObject leaves what hangs on other objects (and edges between them) alone"
    );
    assert_eq!(
        ok(store.grants_of(grantee).await, "grants_of"),
        vec![
            Grant {
                grantee,
                role: "Metadata Viewer".into(),
                object: None
            },
            grant_on(keep)
        ],
        "DeleteObject removes the grants on the object, and only those"
    );
    assert_eq!(
        ok(store.object(child).await, "object").map(|o| o.parent),
        Some(Some(victim)),
        "DeleteObject does not follow children"
    );
    apply(
        store,
        vec![Op::DeleteObject(victim)],
        "DeleteObject of a deleted object",
    )
    .await;
    apply(
        store,
        vec![Op::DeleteObject(ObjectId::new(model, 999_999))],
        "DeleteObject of an unknown object",
    )
    .await;
}

pub(super) async fn clear_model_removes_model_objects_only(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model_id, model) = new_model(store, "Cleared Model").await;
    let (other_id, other) = new_model(store, "Kept Model").await;
    let configuration = ok(store.reserve_ids(REPOSITORY_MODEL, 1).await, "reserve_ids");
    let configuration = repository_object(
        configuration,
        ObjectKind::Configuration,
        None,
        "Clear Configuration",
    );
    let m = ids(store, model, 3).await;
    let x = ids(store, other, 2).await;
    let grantee = ObjectId::repository(ok(
        store.reserve_ids(REPOSITORY_MODEL, 1).await,
        "reserve_ids",
    ));
    let contains = edge(
        EdgeKind::ConfigurationContent,
        configuration.id,
        model_id,
        "",
    );
    let mut batch = vec![
        Op::PutObject(configuration.clone()),
        Op::AddEdge(contains.clone()),
        Op::SetAttribute(attr(
            model_id,
            MODEL_PROFILE_ATTRIBUTE,
            Value::Text(DATABASE_PROFILE.into()),
        )),
        Op::PutObject(model_object(model, m[0].object, None, "schema")),
        Op::PutObject(model_object(model, m[1].object, Some(m[0]), "table")),
        Op::PutObject(model_object(model, m[2].object, Some(m[1]), "column")),
        Op::PutObject(model_object(other, x[0].object, None, "schema")),
        Op::PutObject(model_object(other, x[1].object, Some(x[0]), "table")),
        Op::AddEdge(edge(EdgeKind::Lineage, m[2], x[1], "out")),
        Op::AddEdge(edge(EdgeKind::Lineage, x[1], m[2], "in")),
        Op::AddEdge(edge(EdgeKind::Lineage, x[0], x[1], "kept")),
        Op::AddEdge(edge(EdgeKind::ModelConnection, model_id, other_id, "kept")),
        Op::AddGrant(Grant {
            grantee,
            role: "Steward".into(),
            object: Some(m[1]),
        }),
        Op::AddGrant(Grant {
            grantee,
            role: "Steward".into(),
            object: Some(model_id),
        }),
        Op::AddGrant(Grant {
            grantee,
            role: "Steward".into(),
            object: Some(x[0]),
        }),
    ];
    for id in m.iter().chain(&x) {
        batch.extend(hanging_on(*id, 1, ClassificationStatus::Matched));
    }
    apply(store, batch, "filling two models").await;
    let other_before = ok(store.model_objects(other).await, "model_objects");
    let model_details_before = details(store, &[model_id, configuration.id], "details").await;

    apply(store, vec![Op::ClearModel(model)], "ClearModel").await;
    assert!(
        ok(store.model_objects(model).await, "model_objects").is_empty(),
        "ClearModel removes every model object"
    );
    assert!(
        ok(store.children(model, None).await, "children").is_empty(),
        "a cleared model has no top level"
    );
    assert!(
        ok(
            store
                .object_by_stable_id(&stable_id(model, &format!("native.{}", m[1].object)))
                .await,
            "stable id"
        )
        .is_none(),
        "ClearModel frees the stable ids"
    );
    assert!(
        is_empty(&ok(store.details(Scope::Model(model)).await, "details")),
        "ClearModel removes attributes, edges (to and from other models), tags, classifications, labels and \
         profiling of the model's objects"
    );
    assert_eq!(
        ok(store.object(model_id).await, "object").map(|o| o.name),
        Some("Cleared Model".to_owned()),
        "ClearModel keeps the model's repository object"
    );
    assert_eq!(
        details(store, &[model_id, configuration.id], "details").await,
        model_details_before,
        "ClearModel keeps what hangs on the model's repository object (its attributes, configuration contents, \
         model connections)"
    );
    assert_eq!(
        ok(store.model_objects(other).await, "model_objects"),
        other_before,
        "ClearModel leaves other models alone"
    );
    let kept = ok(store.details(Scope::Model(other)).await, "details");
    assert_eq!(
        kept.edges,
        vec![edge(EdgeKind::Lineage, x[0], x[1], "kept")],
        "ClearModel removes edges between the model and other models, keeps edges inside other models"
    );
    assert_eq!(
        kept.attributes.len(),
        2,
        "ClearModel keeps other models' attributes"
    );
    assert_eq!(
        kept.profiling.len(),
        2,
        "ClearModel keeps other models' profiling"
    );
    assert_eq!(
        ok(store.grants_of(grantee).await, "grants_of"),
        vec![
            Grant {
                grantee,
                role: "Steward".into(),
                object: Some(model_id)
            },
            Grant {
                grantee,
                role: "Steward".into(),
                object: Some(x[0])
            },
        ],
        "ClearModel removes grants on the model's objects, keeps those on its repository object and elsewhere"
    );
    assert_eq!(
        ok(store.reserve_ids(model, 1).await, "reserve_ids"),
        m[2].object + 1,
        "ClearModel does not reset the model's id space"
    );

    // The re-import path: clear, then put objects again with the same stable ids.
    let again = ids(store, model, 1).await[0];
    let mut reborn = model_object(model, again.object, None, "schema");
    reborn.stable_id = Some(stable_id(model, &format!("native.{}", m[0].object)));
    apply(
        store,
        vec![Op::ClearModel(model), Op::PutObject(reborn.clone())],
        "ClearModel then PutObject",
    )
    .await;
    assert_eq!(
        ok(
            store
                .object_by_stable_id(reborn.stable_id.as_deref().unwrap_or_default())
                .await,
            "stable id"
        ),
        Some(reborn),
        "a batch may clear a model and put objects with its old stable ids again"
    );
    apply(
        store,
        vec![Op::ClearModel(123_456_789)],
        "ClearModel of an unknown model",
    )
    .await;

    let batch = vec![
        Op::SetAttribute(attr(model_id, "Before", Value::Integer(1))),
        Op::ClearModel(REPOSITORY_MODEL),
    ];
    fails(
        store.apply(batch.into()).await,
        ErrorCode::InvalidParameter,
        "ClearModel of the repository id space (-1)",
    );
    assert!(
        ok(store.object(model_id).await, "object").is_some(),
        "a refused ClearModel(-1) removes no repository object"
    );
    assert!(
        !details(store, &[model_id], "details")
            .await
            .attributes
            .iter()
            .any(|a| a.attribute == "Before"),
        "a batch with a refused ClearModel(-1) lands nothing"
    );
}
