//! The [`Store`] contract, checked directly against any backend.
//!
//! [`run`] takes a fresh, empty store and walks every method and [`Op`] of the trait,
//! section by section, so a failure names the area and the behaviour. Each backend's
//! test (`tests/store_memory.rs`, `tests/store_sqlite.rs`, `tests/store_postgres.rs`)
//! calls it once with its own store.
//!
//! Orders are the ones the trait documents. Strings compare as Rust's `String` does
//! (by bytes: `"B" < "a" < "é"`), so SQL backends must sort names with a binary
//! collation (`COLLATE "C"` in PostgreSQL), and lists sorted "by derived `Ord`" follow
//! the enums' declaration order (e.g. `TagKind::Label` before `TagKind::Collection`,
//! `None` before `Some` in grants), not the text the database stores.

use std::collections::BTreeSet;
use std::fmt::Debug;
use std::sync::Arc;

use chrono::{DateTime, Duration};
use lore_core::error::{ErrorCode, Result};
use lore_core::id::{ObjectId, REPOSITORY_MODEL, stable_id};
use lore_core::model::*;
use lore_core::store::{Batch, Details, Op, Scope, Store};

/// Runs the whole contract against `store`, which must be empty.
pub async fn run(store: Arc<dyn Store>) {
    let s: &dyn Store = store.as_ref();
    basics(s).await;
    reserve_ids(s).await;
    reserve_ids_concurrently(store.clone()).await;
    objects(s).await;
    children_and_lookups(s).await;
    attribute_values(s).await;
    edges(s).await;
    tags(s).await;
    classifications_and_labels(s).await;
    profiling(s).await;
    scopes(s).await;
    delete_object_cascades(s).await;
    clear_model(s).await;
    definitions(s).await;
    users(s).await;
    grants(s).await;
    sessions(s).await;
    atomic_batches(s).await;
    object_rules(s).await;
}

// ---------------------------------------------------------------- helpers

/// Unwraps a store call, naming the behaviour on failure.
fn ok<T>(result: Result<T>, what: &str) -> T {
    match result {
        Ok(value) => value,
        Err(e) => panic!("{what}: the store failed with {e}"),
    }
}

/// Asserts that a store call failed with `code`.
fn fails<T: Debug>(result: Result<T>, code: ErrorCode, what: &str) {
    match result {
        Ok(value) => panic!("{what}: expected a {code} error, got Ok({value:?})"),
        Err(e) => assert_eq!(e.code, code, "{what}: expected a {code} error, got {e}"),
    }
}

async fn apply(store: &dyn Store, ops: Vec<Op>, what: &str) {
    ok(store.apply(Batch::from(ops)).await, what);
}

/// A fixed timestamp with milliseconds.
fn at(millis: i64) -> Timestamp {
    DateTime::from_timestamp_millis(millis).expect("the contract's timestamps are in range")
}

/// A repository object (a `-1_<n>` id) of the kind.
fn repository_object(id: i64, kind: ObjectKind, parent: Option<ObjectId>, name: &str) -> Object {
    let system = match kind {
        ObjectKind::Folder => SystemType::Namespace,
        ObjectKind::Model => SystemType::Model,
        _ => SystemType::Content,
    };
    let mut object = Object::new(
        ObjectId::repository(id),
        kind,
        TypeName::new(REPOSITORY_PROFILE, kind.as_str()),
        system,
        name,
    );
    object.parent = parent;
    object
}

/// A model object of `model` with a native id and the stable id derived from it.
fn model_object(model: i64, number: i64, parent: Option<ObjectId>, name: &str) -> Object {
    let native = format!("native.{number}");
    let mut object = Object::new(
        ObjectId::new(model, number),
        ObjectKind::ModelObject,
        TypeName::new(DATABASE_PROFILE, "Table"),
        SystemType::Classifier,
        name,
    );
    object.parent = parent;
    object.stable_id = Some(stable_id(model, &native));
    object.native_id = Some(native);
    object
}

/// A new model: its repository object `-1_<n>` (put in the store) and its number `n`.
async fn new_model(store: &dyn Store, name: &str) -> (ObjectId, i64) {
    let number = ok(
        store.reserve_ids(REPOSITORY_MODEL, 1).await,
        "reserve_ids for a model",
    );
    let model = repository_object(number, ObjectKind::Model, None, name);
    apply(
        store,
        vec![Op::PutObject(model)],
        "putting a model's repository object",
    )
    .await;
    (ObjectId::repository(number), number)
}

/// `count` fresh ids of the model's id space.
async fn ids(store: &dyn Store, model: i64, count: u64) -> Vec<ObjectId> {
    let first = ok(store.reserve_ids(model, count).await, "reserve_ids");
    (0..count as i64)
        .map(|i| ObjectId::new(model, first + i))
        .collect()
}

fn names(objects: &[Object]) -> Vec<&str> {
    objects.iter().map(|o| o.name.as_str()).collect()
}

fn id_list(objects: &[Object]) -> Vec<ObjectId> {
    objects.iter().map(|o| o.id).collect()
}

/// The objects of `list` whose ids are in `mine`, in the order the store gave.
fn only(list: Vec<Object>, mine: &[ObjectId]) -> Vec<Object> {
    list.into_iter().filter(|o| mine.contains(&o.id)).collect()
}

fn attr(object: ObjectId, attribute: &str, value: Value) -> AttributeValue {
    AttributeValue {
        object,
        attribute: attribute.to_owned(),
        value,
    }
}

fn edge(kind: EdgeKind, source: ObjectId, target: ObjectId, name: &str) -> Edge {
    Edge {
        kind,
        source,
        target,
        name: name.to_owned(),
    }
}

fn tag(object: ObjectId, kind: TagKind, value: &str) -> Tag {
    Tag {
        object,
        kind,
        value: value.to_owned(),
    }
}

fn user(id: i64, name: &str) -> User {
    User {
        id: ObjectId::repository(id),
        name: name.to_owned(),
        full_name: format!("{name} Full"),
        email: format!("{}@example.com", name.to_lowercase()),
        description: String::new(),
        password_hash: None,
        enabled: true,
        created_at: now(),
    }
}

async fn details(store: &dyn Store, ids: &[ObjectId], what: &str) -> Details {
    ok(store.details(Scope::Objects(ids.to_vec())).await, what)
}

fn is_empty(details: &Details) -> bool {
    *details == Details::default()
}

// ---------------------------------------------------------------- sections

async fn basics(store: &dyn Store) {
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

async fn reserve_ids(store: &dyn Store) {
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

    // A failed batch does not give its ids back.
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

async fn reserve_ids_concurrently(store: Arc<dyn Store>) {
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

async fn objects(store: &dyn Store) {
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

async fn children_and_lookups(store: &dyn Store) {
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
        names(&children),
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
        names(&ok(store.children(model, Some(m[0])).await, "children")),
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
        names(&folders),
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

async fn attribute_values(store: &dyn Store) {
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

async fn edges(store: &dyn Store) {
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

async fn tags(store: &dyn Store) {
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

async fn classifications_and_labels(store: &dyn Store) {
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

fn full_profile() -> DataProfile {
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

fn sample() -> DataSample {
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

async fn profiling(store: &dyn Store) {
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

async fn scopes(store: &dyn Store) {
    let (model_id, model) = new_model(store, "Scope Model").await;
    let (other_id, other) = new_model(store, "Other Scope Model").await;
    let m = ids(store, model, 2).await;
    let x = ids(store, other, 2).await;
    let mut batch = Vec::new();
    for id in m.iter().chain(&x) {
        batch.push(Op::PutObject(model_object(id.model, id.object, None, "o")));
        batch.push(Op::SetAttribute(attr(*id, "A", Value::Integer(id.object))));
        batch.push(Op::AddTag(tag(*id, TagKind::Label, "t")));
        batch.push(Op::SetClassification(Classification {
            object: *id,
            data_class: "C".into(),
            status: ClassificationStatus::Matched,
        }));
        batch.push(Op::SetLabelAssignment(LabelAssignment {
            object: *id,
            label: "L".into(),
            status: ClassificationStatus::Proposed,
        }));
        batch.push(Op::SetProfiling(Profiling {
            object: *id,
            profile: None,
            sample: Some(sample()),
        }));
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

async fn delete_object_cascades(store: &dyn Store) {
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

async fn clear_model(store: &dyn Store) {
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
        batch.push(Op::SetAttribute(attr(*id, "A", Value::Integer(1))));
        batch.push(Op::AddTag(tag(*id, TagKind::Label, "t")));
        batch.push(Op::SetClassification(Classification {
            object: *id,
            data_class: "C".into(),
            status: ClassificationStatus::Matched,
        }));
        batch.push(Op::SetLabelAssignment(LabelAssignment {
            object: *id,
            label: "L".into(),
            status: ClassificationStatus::Matched,
        }));
        batch.push(Op::SetProfiling(Profiling {
            object: *id,
            profile: None,
            sample: Some(sample()),
        }));
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

async fn definitions(store: &dyn Store) {
    let attribute_type = |name: &str, description: &str| AttributeType {
        name: name.to_owned(),
        display_name: format!("{name} display"),
        kind: AttributeKind::Custom,
        value_type: ValueType::Double,
        profile: None,
        group: "Custom Attributes".into(),
        description: description.to_owned(),
    };
    let mut profiled = attribute_type("Beta", "profile attribute");
    profiled.kind = AttributeKind::Profile;
    profiled.value_type = ValueType::DateTime;
    profiled.profile = Some(DATABASE_PROFILE.into());
    apply(
        store,
        vec![
            Op::PutAttributeType(attribute_type("alpha", "")),
            Op::PutAttributeType(attribute_type("Zeta", "first")),
            Op::PutAttributeType(profiled.clone()),
            Op::PutAttributeType(attribute_type("Zeta", "second")),
        ],
        "PutAttributeType",
    )
    .await;
    assert_eq!(
        ok(store.attribute_types().await, "attribute_types"),
        vec![
            profiled,
            attribute_type("Zeta", "second"),
            attribute_type("alpha", "")
        ],
        "attribute types round-trip, are sorted by name (bytes), and PutAttributeType replaces the type of that name"
    );
    let mut udp = attribute_type("alpha", "now a UDP");
    udp.kind = AttributeKind::Udp;
    udp.value_type = ValueType::Boolean;
    apply(
        store,
        vec![Op::PutAttributeType(udp.clone())],
        "PutAttributeType of another kind",
    )
    .await;
    assert_eq!(
        ok(store.attribute_types().await, "attribute_types")
            .into_iter()
            .filter(|t| t.name == "alpha")
            .collect::<Vec<_>>(),
        vec![udp],
        "names are unique among stored attribute types: PutAttributeType replaces the type of that name \
         whatever its kind"
    );

    let class = |name: &str, hide: bool| DataClass {
        name: name.to_owned(),
        description: format!("{name} class"),
        hide_data: hide,
        definition: serde_json::json!({"patterns": ["^[A-Z]{2}$", "\\d+"], "values": ["Zürich", 1, null], "min": 0.5}),
    };
    let mut replaced = class("Email", true);
    replaced.definition = serde_json::json!([]);
    apply(
        store,
        vec![
            Op::PutDataClass(class("Email", false)),
            Op::PutDataClass(class("City", true)),
            Op::PutDataClass(replaced.clone()),
        ],
        "PutDataClass",
    )
    .await;
    let mut classes = ok(store.data_classes().await, "data_classes");
    classes.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(
        classes,
        vec![class("City", true), replaced],
        "data classes round-trip (with their JSON definition) and PutDataClass replaces by name"
    );

    let sensitivity = |name: &str, position: i64| SensitivityLabel {
        name: name.to_owned(),
        position,
        description: format!("{name} label"),
        foreground_color: "#FFFFFF".into(),
        background_color: "#AA0000".into(),
        hide_data: position > 1,
    };
    apply(
        store,
        vec![
            Op::PutSensitivityLabel(sensitivity("Public", 0)),
            Op::PutSensitivityLabel(sensitivity("Secret", 2)),
            Op::PutSensitivityLabel(sensitivity("Public", 1)),
        ],
        "PutSensitivityLabel",
    )
    .await;
    let mut labels = ok(store.sensitivity_labels().await, "sensitivity_labels");
    labels.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(
        labels,
        vec![sensitivity("Public", 1), sensitivity("Secret", 2)],
        "sensitivity labels round-trip and PutSensitivityLabel replaces by name"
    );

    let builtin = Role::builtin();
    let mut ops: Vec<Op> = builtin.iter().cloned().map(Op::PutRole).collect();
    let custom = Role {
        name: "Custom Role".into(),
        description: "capabilities in a chosen order".into(),
        global: false,
        capabilities: vec![Capability::ViewData, Capability::ViewMetadata],
    };
    ops.push(Op::PutRole(Role {
        description: "before".into(),
        capabilities: vec![],
        ..custom.clone()
    }));
    ops.push(Op::PutRole(custom.clone()));
    apply(store, ops, "PutRole").await;
    let mut roles = ok(store.roles().await, "roles");
    roles.sort_by(|a, b| a.name.cmp(&b.name));
    let mut expected = builtin;
    expected.push(custom);
    expected.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(
        roles, expected,
        "roles round-trip (capabilities in order) and PutRole replaces by name"
    );
}

async fn users(store: &dyn Store) {
    let first = ok(store.reserve_ids(REPOSITORY_MODEL, 3).await, "reserve_ids");
    let mut ann = user(first, "Ann");
    ann.password_hash = Some("$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".into());
    ann.description = "Ünïcødé description".into();
    let mut bob = user(first + 1, "bob");
    bob.enabled = false;
    bob.created_at = at(1_000_000_000_001);
    apply(
        store,
        vec![Op::PutUser(ann.clone()), Op::PutUser(bob.clone())],
        "PutUser",
    )
    .await;
    assert_eq!(
        ok(store.user(ann.id).await, "user"),
        Some(ann.clone()),
        "a user round-trips by id (with its password hash)"
    );
    assert_eq!(
        ok(store.user(bob.id).await, "user"),
        Some(bob.clone()),
        "a user without a password round-trips"
    );
    assert_eq!(
        ok(store.user(ObjectId::repository(first + 2)).await, "user"),
        None,
        "an unknown user id is None"
    );
    assert_eq!(
        ok(store.user_by_name("Ann").await, "user_by_name"),
        Some(ann.clone()),
        "user_by_name finds the user"
    );
    assert_eq!(
        ok(store.user_by_name("aNN").await, "user_by_name"),
        Some(ann.clone()),
        "user_by_name compares case-insensitively"
    );
    assert_eq!(
        ok(store.user_by_name("BOB").await, "user_by_name"),
        Some(bob.clone()),
        "user_by_name is case-insensitive"
    );
    assert_eq!(
        ok(store.user_by_name("nobody").await, "user_by_name"),
        None,
        "an unknown user name is None"
    );
    assert_eq!(
        ok(store.user_count().await, "user_count"),
        2,
        "user_count counts users"
    );

    fails(
        store
            .apply(vec![Op::PutUser(user(first + 2, "ANN"))].into())
            .await,
        ErrorCode::Conflict,
        "PutUser with the name of another user (in another case)",
    );
    assert_eq!(
        ok(store.user_count().await, "user_count"),
        2,
        "a refused user is not stored"
    );

    // Replacing a user by id: renaming, changing the case of its own name.
    let mut renamed = ann.clone();
    renamed.name = "ANNA".into();
    renamed.enabled = false;
    apply(
        store,
        vec![Op::PutUser(renamed.clone())],
        "PutUser replacing a user",
    )
    .await;
    assert_eq!(
        ok(store.user(ann.id).await, "user"),
        Some(renamed.clone()),
        "PutUser replaces the user with that id"
    );
    assert_eq!(
        ok(store.user_by_name("ann").await, "user_by_name"),
        None,
        "a user's old name is free after a rename"
    );
    assert_eq!(
        ok(store.user_by_name("anna").await, "user_by_name").map(|u| u.id),
        Some(ann.id),
        "the new name finds it"
    );
    renamed.name = "Anna".into();
    apply(
        store,
        vec![Op::PutUser(renamed)],
        "PutUser changing the case of its own name",
    )
    .await;
    apply(
        store,
        vec![Op::PutUser(user(first + 2, "Ann"))],
        "PutUser taking a name freed by a rename",
    )
    .await;
    assert_eq!(
        ok(store.user_count().await, "user_count"),
        3,
        "replacing a user does not add one"
    );
}

async fn grants(store: &dyn Store) {
    let first = ok(store.reserve_ids(REPOSITORY_MODEL, 3).await, "reserve_ids");
    let (a, b, folder) = (
        ObjectId::repository(first),
        ObjectId::repository(first + 1),
        ObjectId::repository(first + 2),
    );
    let grant = |grantee, role: &str, object| Grant {
        grantee,
        role: role.to_owned(),
        object,
    };
    apply(
        store,
        vec![
            Op::PutObject(repository_object(
                folder.object,
                ObjectKind::Folder,
                None,
                "Granted Folder",
            )),
            Op::AddGrant(grant(a, "Steward", Some(folder))),
            Op::AddGrant(grant(a, "Steward", None)),
            Op::AddGrant(grant(a, "Administrator", None)),
            Op::AddGrant(grant(a, "Steward", Some(folder))),
            Op::AddGrant(grant(b, "Metadata Viewer", None)),
        ],
        "AddGrant",
    )
    .await;
    apply(
        store,
        vec![Op::AddGrant(grant(a, "Administrator", None))],
        "AddGrant of an existing grant (a no-op)",
    )
    .await;
    assert_eq!(
        ok(store.grants_of(a).await, "grants_of"),
        vec![
            grant(a, "Administrator", None),
            grant(a, "Steward", None),
            grant(a, "Steward", Some(folder))
        ],
        "grants_of lists the grantee's grants once each, sorted by Grant's derived Ord (role, then a global \
         grant (None) before grants on objects)"
    );
    apply(
        store,
        vec![
            Op::RemoveGrant(grant(a, "Steward", None)),
            Op::RemoveGrant(grant(a, "Missing", None)),
        ],
        "RemoveGrant",
    )
    .await;
    assert_eq!(
        ok(store.grants_of(a).await, "grants_of"),
        vec![
            grant(a, "Administrator", None),
            grant(a, "Steward", Some(folder))
        ],
        "RemoveGrant removes exactly that grant (a global one leaves the one on an object); a missing one is a no-op"
    );
    assert_eq!(
        ok(store.grants_of(b).await, "grants_of"),
        vec![grant(b, "Metadata Viewer", None)],
        "grants are per grantee"
    );
    assert!(
        ok(
            store.grants_of(ObjectId::repository(999_999)).await,
            "grants_of"
        )
        .is_empty(),
        "a grantee without grants has none"
    );
}

async fn sessions(store: &dyn Store) {
    let now = now();
    let hour = Duration::hours(1);
    let first = ok(store.reserve_ids(REPOSITORY_MODEL, 2).await, "reserve_ids");
    let (a, b) = (ObjectId::repository(first), ObjectId::repository(first + 1));
    let session = |key: &str, user, expires_at| Session {
        key_hash: key.to_owned(),
        user,
        created_at: now - hour,
        expires_at,
    };
    let live = session("hash-live", a, now + hour);
    ok(store.put_session(live.clone()).await, "put_session");
    ok(
        store
            .put_session(session("hash-expired", a, now - Duration::seconds(1)))
            .await,
        "put_session",
    );
    ok(
        store.put_session(session("hash-a2", a, now + hour)).await,
        "put_session",
    );
    ok(
        store.put_session(session("hash-b", b, now + hour)).await,
        "put_session",
    );
    ok(
        store
            .put_session(session("hash-b-expired", b, now - hour))
            .await,
        "put_session",
    );

    assert_eq!(
        ok(store.session("hash-live", now).await, "session"),
        Some(live.clone()),
        "a live session reads back"
    );
    assert_eq!(
        ok(store.session("hash-expired", now).await, "session"),
        None,
        "an expired session reads None"
    );
    assert_eq!(
        ok(
            store
                .session("hash-live", now + hour + Duration::seconds(1))
                .await,
            "session"
        ),
        None,
        "a session read after its expiry is None"
    );
    assert_eq!(
        ok(store.session("unknown", now).await, "session"),
        None,
        "an unknown key hash reads None"
    );

    ok(store.delete_session("hash-live").await, "delete_session");
    assert_eq!(
        ok(store.session("hash-live", now).await, "session"),
        None,
        "delete_session ends the session"
    );
    ok(
        store.delete_session("hash-live").await,
        "delete_session of an ended session",
    );

    // At the boundary: a session whose expires_at is now has expired.
    let boundary = session("hash-boundary", b, now);
    ok(store.put_session(boundary.clone()).await, "put_session");
    assert_eq!(
        ok(
            store
                .session("hash-boundary", now - Duration::milliseconds(1))
                .await,
            "session"
        ),
        Some(boundary),
        "a session is live until its expires_at"
    );
    assert_eq!(
        ok(store.session("hash-boundary", now).await, "session"),
        None,
        "a session has expired at its expires_at (expires_at <= now)"
    );

    assert_eq!(
        ok(store.purge_sessions(now).await, "purge_sessions"),
        3,
        "purge_sessions removes the sessions expired at now (expires_at <= now) and counts them"
    );
    assert_eq!(
        ok(store.purge_sessions(now).await, "purge_sessions"),
        0,
        "purging again removes nothing"
    );
    assert!(
        ok(store.session("hash-a2", now).await, "session").is_some(),
        "purge_sessions keeps live sessions"
    );

    ok(
        store.put_session(session("hash-a3", a, now + hour)).await,
        "put_session",
    );
    assert_eq!(
        ok(store.delete_sessions_of(a).await, "delete_sessions_of"),
        2,
        "delete_sessions_of ends every session of the user and counts them"
    );
    assert_eq!(
        ok(store.session("hash-a3", now).await, "session"),
        None,
        "delete_sessions_of ends the user's sessions"
    );
    assert!(
        ok(store.session("hash-b", now).await, "session").is_some(),
        "delete_sessions_of leaves other users' sessions"
    );
    assert_eq!(
        ok(store.delete_sessions_of(a).await, "delete_sessions_of"),
        0,
        "a user without sessions ends none"
    );
}

async fn atomic_batches(store: &dyn Store) {
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
        names(&ok(store.children(model, None).await, "children")),
        ["original"],
        "a failed batch leaves the children as they were"
    );

    // A batch that fails on an invalid parent lands nothing either.
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

async fn object_rules(store: &dyn Store) {
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
