//! Batches: atomic on every failure, parents in their id space, stable ids moved within a batch.

use super::*;

pub(super) async fn apply_is_atomic_on_conflict(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model_id, model) = new_model(store, "Atomic Model").await;
    let o = ids(store, model, 3).await;
    let first = ok(store.reserve_ids(REPOSITORY_MODEL, 2).await, "reserve_ids");
    let taken = user(first, "Atomic Taken");
    let original = model_object(model, o[0].object, None, "original");
    apply(
        store,
        vec![
            Op::PutUser(taken.clone()),
            Op::PutObject(original.clone()),
            Op::SetAttribute(attr(o[0], "A", Value::Integer(1))),
            Op::AddEdge(edge(EdgeKind::SemanticLink, o[0], model_id, "e")),
        ],
        "setting up",
    )
    .await;
    let users_before = ok(store.user_count().await, "user_count");
    let roles_before = ok(store.roles().await, "roles");
    let types_before = ok(store.attribute_types().await, "attribute_types");
    let details_before = ok(store.details(Scope::Model(model)).await, "details");
    let model_before = details(store, &[model_id], "details").await;

    let mut renamed = original.clone();
    renamed.name = "changed".into();
    let batch = vec![
        Op::PutObject(model_object(model, o[1].object, None, "new")),
        Op::PutObject(renamed),
        Op::SetAttribute(attr(o[1], "A", Value::Text("new".into()))),
        Op::SetAttribute(attr(o[0], "A", Value::Integer(2))),
        Op::RemoveEdge(edge(EdgeKind::SemanticLink, o[0], model_id, "e")),
        Op::AddEdge(edge(EdgeKind::Lineage, o[0], o[1], "new")),
        Op::AddTag(tag(o[0], TagKind::Label, "new")),
        Op::SetClassification(Classification {
            object: o[0],
            data_class: "C".into(),
            status: ClassificationStatus::Matched,
        }),
        Op::SetProfiling(Profiling {
            object: o[0],
            profile: Some(full_profile()),
            sample: None,
        }),
        Op::PutAttributeType(AttributeType {
            name: "Atomic".into(),
            display_name: "Atomic".into(),
            kind: AttributeKind::Custom,
            value_type: ValueType::String,
            profile: None,
            group: "Custom Attributes".into(),
            description: String::new(),
        }),
        Op::PutObjectType(ObjectType {
            name: TypeName::new("Atomic", "Type"),
            display_name: "Type".into(),
            system_type: SystemType::Classifier,
            category: "Atomic".into(),
            attributes: vec!["Atomic".into()],
        }),
        Op::PutRole(Role {
            name: "Atomic Role".into(),
            description: String::new(),
            global: true,
            capabilities: vec![],
        }),
        Op::AddGrant(Grant {
            grantee: taken.id,
            role: "Atomic Role".into(),
            object: None,
        }),
        Op::SetAttribute(attr(model_id, "B", Value::Boolean(false))),
        Op::DeleteObject(o[0]),
        Op::PutUser(user(first + 1, "atomic taken")),
    ];
    fails(
        store.apply(batch.into()).await,
        ErrorCode::Conflict,
        "a batch whose last op puts a duplicate user name",
    );

    assert_eq!(
        ok(store.object(o[0]).await, "object"),
        Some(original),
        "a failed batch leaves replaced objects as they were"
    );
    assert_eq!(
        ok(store.object(o[1]).await, "object"),
        None,
        "a failed batch adds no objects"
    );
    assert_eq!(
        ok(store.details(Scope::Model(model)).await, "details"),
        details_before,
        "a failed batch leaves attributes, edges, tags, classifications, labels and profiling as they were"
    );
    assert_eq!(
        details(store, &[model_id], "details").await,
        model_before,
        "a failed batch sets no attributes"
    );
    assert_eq!(
        ok(store.user_count().await, "user_count"),
        users_before,
        "a failed batch adds no users"
    );
    assert_eq!(
        ok(store.roles().await, "roles"),
        roles_before,
        "a failed batch adds no roles"
    );
    assert_eq!(
        ok(store.attribute_types().await, "attribute_types"),
        types_before,
        "a failed batch adds no attribute types"
    );
    assert!(
        ok(store.object_types().await, "object_types").is_empty(),
        "a failed batch adds no object types"
    );
    assert!(
        ok(store.grants_of(taken.id).await, "grants_of").is_empty(),
        "a failed batch adds no grants"
    );
    assert_eq!(
        ok(
            store
                .object_by_stable_id(&stable_id(model, &format!("native.{}", o[1].object)))
                .await,
            "stable id"
        ),
        None,
        "a failed batch leaves no stable ids behind"
    );
    assert_eq!(
        object_names(&ok(store.children(model, None).await, "children")),
        ["original"],
        "a failed batch leaves the children as they were"
    );
}

pub(super) async fn apply_is_atomic_on_invalid_parent(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "Atomic Parent Model").await;
    let o = ids(store, model, 3).await;
    let first = ok(store.reserve_ids(REPOSITORY_MODEL, 1).await, "reserve_ids");
    let batch = vec![
        Op::PutObject(model_object(model, o[2].object, None, "first")),
        Op::PutObject(model_object(
            model,
            o[1].object,
            Some(ObjectId::repository(first)),
            "bad parent",
        )),
    ];
    fails(
        store.apply(batch.into()).await,
        ErrorCode::InvalidParameter,
        "a PutObject whose parent is in another model",
    );
    assert_eq!(
        ok(store.object(o[2]).await, "object"),
        None,
        "a batch refused for a bad parent lands nothing"
    );
}

pub(super) async fn parents_stay_in_their_id_space(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model_id, model) = new_model(store, "Rules Model").await;
    let o = ids(store, model, 3).await;
    fails(
        store
            .apply(
                vec![Op::PutObject(model_object(
                    model,
                    o[0].object,
                    Some(model_id),
                    "top",
                ))]
                .into(),
            )
            .await,
        ErrorCode::InvalidParameter,
        "a model object whose parent is the model's repository object (another id space)",
    );
    let folder = ok(store.reserve_ids(REPOSITORY_MODEL, 1).await, "reserve_ids");
    fails(
        store
            .apply(
                vec![Op::PutObject(repository_object(
                    folder,
                    ObjectKind::Folder,
                    Some(o[0]),
                    "f",
                ))]
                .into(),
            )
            .await,
        ErrorCode::InvalidParameter,
        "a repository object whose parent is a model object",
    );
    let mut elsewhere = model_object(model, o[1].object, None, "elsewhere");
    elsewhere.parent = Some(ObjectId::new(model + 1, 1));
    fails(
        store.apply(vec![Op::PutObject(elsewhere)].into()).await,
        ErrorCode::InvalidParameter,
        "a model object whose parent is in another model",
    );
}

pub(super) async fn stable_ids_unique_and_movable_within_a_batch(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "Stable Id Model").await;
    let o = ids(store, model, 3).await;
    let a = model_object(model, o[0].object, None, "a");
    apply(store, vec![Op::PutObject(a.clone())], "PutObject").await;
    let mut thief = model_object(model, o[1].object, None, "b");
    thief.stable_id = a.stable_id.clone();
    fails(
        store.apply(vec![Op::PutObject(thief)].into()).await,
        ErrorCode::Conflict,
        "a PutObject with a stable id another object has",
    );
    assert_eq!(
        ok(
            store
                .object_by_stable_id(a.stable_id.as_deref().unwrap_or_default())
                .await,
            "stable id"
        )
        .map(|o| o.id),
        Some(a.id),
        "a refused stable id keeps pointing at its object"
    );
    apply(
        store,
        vec![Op::PutObject(a.clone())],
        "PutObject of an object with its own stable id",
    )
    .await;

    // Moving a stable id from one object to another in one batch works when freed first.
    let mut freed = a.clone();
    freed.stable_id = None;
    let mut taker = model_object(model, o[2].object, None, "c");
    taker.stable_id = a.stable_id.clone();
    apply(
        store,
        vec![Op::PutObject(freed), Op::PutObject(taker.clone())],
        "moving a stable id",
    )
    .await;
    assert_eq!(
        ok(
            store
                .object_by_stable_id(a.stable_id.as_deref().unwrap_or_default())
                .await,
            "stable id"
        )
        .map(|o| o.id),
        Some(taker.id),
        "a stable id freed earlier in a batch can be taken later in it"
    );
}
