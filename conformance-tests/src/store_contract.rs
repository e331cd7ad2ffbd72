//! The [`Store`] contract, checked directly against any backend.
//!
//! Each case is an `async fn(Arc<dyn Store>)` that gets a fresh, empty store and pins
//! one behaviour of the trait, so a failure names the area and the behaviour. [`cases`]
//! lists them (the one place a case is registered); [`store_suite`](crate::store_suite)
//! turns the list into one test per
//! case for a backend (`tests/store_memory.rs`, `tests/store_sqlite.rs`,
//! `tests/store_postgres.rs`).
//!
//! Orders are the ones the trait documents. Strings compare as Rust's `String` does
//! (by bytes: `"B" < "a" < "é"`), so SQL backends must sort names with a binary
//! collation (`COLLATE "C"` in PostgreSQL), and lists sorted "by derived `Ord`" follow
//! the enums' declaration order (e.g. `TagKind::Label` before `TagKind::Collection`,
//! `None` before `Some` in grants), not the text the database stores.

use std::collections::BTreeSet;
use std::fmt::Debug;
use std::future::Future;
use std::sync::Arc;

use chrono::{DateTime, Duration};
use lore_core::error::{ErrorCode, Result};
use lore_core::id::{ObjectId, REPOSITORY_MODEL, stable_id};
use lore_core::model::*;
use lore_core::store::{Batch, Details, Op, Scope, Store, micros};

use crate::cases::CaseFuture;
use crate::harness::IntoBackend;
use crate::store_rules::*;

mod prints;
mod tallies;

pub type StoreCaseFn = fn(Arc<dyn Store>) -> CaseFuture<'static>;

/// One case of the Store contract.
#[derive(Debug, Clone, Copy)]
pub struct StoreCase {
    /// The test name (the function's name).
    pub name: &'static str,
    pub run: StoreCaseFn,
}

macro_rules! case {
    ($func:ident) => {
        StoreCase {
            name: stringify!($func),
            run: |store| Box::pin($func(store)),
        }
    };
}

/// Every case of the Store contract.
pub fn cases() -> Vec<StoreCase> {
    vec![
        // A fresh store, ids
        case!(fresh_store_is_empty_and_answers),
        case!(reserve_ids_consecutive_per_id_space),
        case!(reserve_ids_not_reused_after_failed_batch),
        case!(reserve_ids_concurrently_never_repeat),
        case!(reserve_ids_mixed_counts_concurrently_have_no_gaps),
        case!(reserve_ids_overflow_is_refused_and_takes_nothing),
        // Objects and the tree
        case!(objects_round_trip_and_put_replaces_whole),
        case!(children_sorted_by_name_bytes_and_looked_up_exactly),
        case!(children_sorted_by_name_then_id),
        case!(parents_stay_in_their_id_space),
        case!(stable_ids_unique_and_movable_within_a_batch),
        case!(stable_id_clash_within_a_batch_is_a_conflict),
        case!(stable_id_conflict_names_the_id),
        // What hangs on objects
        case!(attribute_values_round_trip_and_sort_by_name),
        case!(attribute_values_read_back_in_name_order),
        case!(edges_once_each_sorted_and_removed_exactly),
        case!(tags_once_each_sorted_and_removed_exactly),
        case!(classifications_and_labels_replace_status),
        case!(profiling_round_trips_and_replaces),
        case!(details_cover_scope_model_and_objects),
        case!(details_of_many_ids_sorted_by_object),
        // Deleting
        case!(delete_object_removes_what_hangs_on_it),
        case!(clear_model_removes_model_objects_only),
        case!(delete_and_clear_keep_other_models_and_repository_objects),
        // Counts and facets by model and type (the SQL backends' tallies)
        StoreCase {
            name: "counts_and_facets_by_type_follow_every_write",
            run: |store| Box::pin(tallies::counts_and_facets_by_type_follow_every_write(store)),
        },
        // Import prints, forgotten by every change of their object
        StoreCase {
            name: "import_prints_are_forgotten_when_their_object_changes",
            run: |store| {
                Box::pin(prints::import_prints_are_forgotten_when_their_object_changes(store))
            },
        },
        // Definitions, users, grants, sessions
        case!(definitions_round_trip_and_replace_by_name),
        case!(lineage_walks_breadth_first_within_bounds),
        case!(documents_round_trip_replace_and_go_with_their_owner),
        case!(curation_round_trips_and_goes_with_object_and_user),
        case!(curation_of_many_objects_by_object),
        case!(notifications_newest_first_and_gone_with_their_user),
        case!(user_names_unique_case_insensitively),
        case!(grants_once_each_sorted_and_removed_exactly),
        case!(sessions_expire_at_expires_at),
        case!(session_expiring_now_is_expired),
        case!(sessions_expire_purge_and_end_per_user),
        // Atomic writes
        case!(apply_is_atomic_on_conflict),
        case!(apply_is_atomic_on_invalid_parent),
        case!(apply_failing_midway_lands_nothing),
        case!(duplicate_user_name_in_a_batch_lands_nothing),
        case!(apply_failure_restores_every_index),
        case!(a_large_batch_lands_whole),
        // Write transactions
        case!(begin_lands_every_chunk_on_commit),
        case!(begin_dropped_uncommitted_leaves_store_unchanged),
        case!(begin_failing_chunk_lands_nothing),
        case!(new_rows_land_as_written_and_a_clash_lands_nothing),
        case!(reads_do_not_wait_for_an_open_transaction),
        case!(a_dropped_transaction_leaves_nothing),
        // One meaning on every backend
        case!(timestamps_keep_microseconds),
        case!(nan_and_nul_are_invalid_everywhere),
        case!(the_same_failure_has_the_same_code),
        // Reads for the request path
        case!(principal_and_meta_version),
        case!(groups_memberships_and_grants_through_groups),
        case!(objects_by_ids_with_details),
        case!(model_objects_in_pages),
        // Worksheets
        case!(worksheets_round_trip_with_names_unique_per_owner),
        case!(a_failed_batch_leaves_worksheets_as_they_were),
        // System log
        case!(system_log_pages_newest_first_filters_counts_and_purges),
        // Restore
        case!(clear_all_empties_everything_but_the_system_log),
        case!(restore_ops_keep_their_ids_and_replace),
        case!(a_failed_restore_lands_nothing),
        // The outbox
        case!(deliveries_are_claimed_once_until_their_lease_runs_out),
        // Snapshots
        case!(a_snapshot_reads_one_moment_and_refuses_writes),
    ]
}

/// The names of every case, in table order.
pub fn names() -> Vec<&'static str> {
    cases().iter().map(|c| c.name).collect()
}

/// The case of that name; panics naming the known ones when there is none.
pub fn case(name: &str) -> StoreCase {
    cases()
        .into_iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no store case named '{name}'; the cases are {:?}", names()))
}

/// Runs one case on the fresh store the factory makes. The factory's guards (a
/// temporary directory, a test database) live until the case and the store are done; a
/// factory giving `None` skips the case with a message.
pub async fn run_on_store<F, Fut, T>(name: &str, factory: F)
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = T>,
    T: IntoBackend,
{
    let case = case(name);
    let Some(backend) = factory().await.into_backend() else {
        eprintln!("skipping {name}: the backend is not available");
        return;
    };
    (case.run)(backend.store.clone()).await;
    // The store goes before its guards (declaration order in `Backend`).
    drop(backend);
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

fn object_names(objects: &[Object]) -> Vec<&str> {
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

async fn fresh_store_is_empty_and_answers(store: Arc<dyn Store>) {
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

async fn reserve_ids_consecutive_per_id_space(store: Arc<dyn Store>) {
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

async fn reserve_ids_not_reused_after_failed_batch(store: Arc<dyn Store>) {
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

async fn reserve_ids_concurrently_never_repeat(store: Arc<dyn Store>) {
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

async fn objects_round_trip_and_put_replaces_whole(store: Arc<dyn Store>) {
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

async fn children_sorted_by_name_bytes_and_looked_up_exactly(store: Arc<dyn Store>) {
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

async fn attribute_values_round_trip_and_sort_by_name(store: Arc<dyn Store>) {
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

async fn edges_once_each_sorted_and_removed_exactly(store: Arc<dyn Store>) {
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

async fn tags_once_each_sorted_and_removed_exactly(store: Arc<dyn Store>) {
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

async fn classifications_and_labels_replace_status(store: Arc<dyn Store>) {
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

async fn profiling_round_trips_and_replaces(store: Arc<dyn Store>) {
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

async fn details_cover_scope_model_and_objects(store: Arc<dyn Store>) {
    let store = store.as_ref();
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

async fn delete_object_removes_what_hangs_on_it(store: Arc<dyn Store>) {
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

async fn clear_model_removes_model_objects_only(store: Arc<dyn Store>) {
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

async fn definitions_round_trip_and_replace_by_name(store: Arc<dyn Store>) {
    let store = store.as_ref();
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

    let object_type = |profile: &str, name: &str, attributes: &[&str]| ObjectType {
        name: TypeName::new(profile, name),
        display_name: format!("{name} display"),
        system_type: SystemType::Classifier,
        category: "Reports".into(),
        attributes: attributes.iter().map(|a| (*a).to_owned()).collect(),
    };
    let mut replaced_type = object_type("BI", "Report", &[]);
    replaced_type.system_type = SystemType::Diagram;
    apply(
        store,
        vec![
            Op::PutObjectType(object_type("BI", "Report", &["Owner", "Zürich"])),
            Op::PutObjectType(object_type("Analytics", "Report", &[])),
            Op::PutObjectType(object_type("BI", "Dashboard", &["Owner"])),
            Op::PutObjectType(replaced_type.clone()),
        ],
        "PutObjectType",
    )
    .await;
    assert_eq!(
        ok(store.object_types().await, "object_types"),
        vec![
            object_type("Analytics", "Report", &[]),
            object_type("BI", "Dashboard", &["Owner"]),
            replaced_type,
        ],
        "object types round-trip, are sorted by profile then name, and PutObjectType replaces the \
         type of that profile and name"
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

async fn user_names_unique_case_insensitively(store: Arc<dyn Store>) {
    let store = store.as_ref();
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

async fn grants_once_each_sorted_and_removed_exactly(store: Arc<dyn Store>) {
    let store = store.as_ref();
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

async fn sessions_expire_at_expires_at(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let now = now();
    let hour = Duration::hours(1);
    let first = ok(store.reserve_ids(REPOSITORY_MODEL, 2).await, "reserve_ids");
    let (a, b) = (ObjectId::repository(first), ObjectId::repository(first + 1));
    let session = |key: &str, user, expires_at| Session {
        key_hash: key.to_owned(),
        user,
        created_at: now - hour,
        expires_at,
        last_seen_at: now - hour,
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

async fn apply_is_atomic_on_conflict(store: Arc<dyn Store>) {
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

async fn apply_is_atomic_on_invalid_parent(store: Arc<dyn Store>) {
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

async fn parents_stay_in_their_id_space(store: Arc<dyn Store>) {
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

async fn stable_ids_unique_and_movable_within_a_batch(store: Arc<dyn Store>) {
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

// ---------------------------------------------------------------- checks first written for one backend

async fn reserve_ids_mixed_counts_concurrently_have_no_gaps(store: Arc<dyn Store>) {
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

async fn reserve_ids_overflow_is_refused_and_takes_nothing(store: Arc<dyn Store>) {
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

async fn children_sorted_by_name_then_id(store: Arc<dyn Store>) {
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

async fn stable_id_clash_within_a_batch_is_a_conflict(store: Arc<dyn Store>) {
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

async fn stable_id_conflict_names_the_id(store: Arc<dyn Store>) {
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
async fn attribute_values_read_back_in_name_order(store: Arc<dyn Store>) {
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

async fn details_of_many_ids_sorted_by_object(store: Arc<dyn Store>) {
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

async fn delete_and_clear_keep_other_models_and_repository_objects(store: Arc<dyn Store>) {
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

async fn session_expiring_now_is_expired(store: Arc<dyn Store>) {
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

async fn sessions_expire_purge_and_end_per_user(store: Arc<dyn Store>) {
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

async fn apply_failing_midway_lands_nothing(store: Arc<dyn Store>) {
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

async fn duplicate_user_name_in_a_batch_lands_nothing(store: Arc<dyn Store>) {
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
async fn apply_failure_restores_every_index(store: Arc<dyn Store>) {
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
async fn a_large_batch_lands_whole(store: Arc<dyn Store>) {
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

// ---------------------------------------------------------------- write transactions

/// Writes `chunks` in one transaction and commits it.
async fn commit_chunks(store: &dyn Store, chunks: Vec<Vec<Op>>, what: &str) {
    let mut tx = ok(store.begin().await, what);
    for chunk in chunks {
        ok(tx.write(chunk).await, what);
    }
    ok(tx.commit().await, what);
}

async fn begin_lands_every_chunk_on_commit(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model_id, model) = new_model(store, "Tx Model").await;
    let o = ids(store, model, 2).await;
    let r = ids(store, REPOSITORY_MODEL, 2).await;
    let folder = repository_object(r[0].object, ObjectKind::Folder, None, "Tx Folder");
    let mut renamed = folder.clone();
    renamed.name = "Tx Folder Renamed".into();
    let table = model_object(model, o[0].object, None, "table");
    let column = model_object(model, o[1].object, Some(o[0]), "column");

    let mut tx = ok(store.begin().await, "begin");
    ok(
        tx.write(vec![
            Op::PutObject(folder.clone()),
            Op::PutUser(user(r[1].object, "Tx User")),
        ])
        .await,
        "write of a first chunk",
    );
    ok(
        tx.write(vec![
            Op::PutObject(table.clone()),
            Op::PutObject(column.clone()),
            Op::SetAttribute(attr(o[1], "A", Value::Integer(1))),
        ])
        .await,
        "write of a second chunk whose objects hang on the first's",
    );
    ok(
        tx.write(vec![
            Op::PutObject(renamed.clone()),
            Op::SetAttribute(attr(o[1], "A", Value::Integer(2))),
            Op::AddEdge(edge(EdgeKind::Lineage, o[0], model_id, "e")),
        ])
        .await,
        "write of a third chunk replacing what the first two wrote",
    );
    assert_eq!(
        ok(store.object(folder.id).await, "object"),
        None,
        "reads outside an open transaction do not see its writes"
    );
    assert_eq!(
        ok(store.user_count().await, "user_count"),
        0,
        "reads outside an open transaction do not see its users"
    );
    ok(tx.commit().await, "commit");

    assert_eq!(
        ok(store.object(folder.id).await, "object"),
        Some(renamed),
        "every chunk lands on commit, later chunks over earlier ones"
    );
    assert_eq!(
        ok(store.user_by_name("tx user").await, "user_by_name").map(|u| u.id),
        Some(r[1]),
        "the first chunk's user landed"
    );
    assert_eq!(
        ok(store.model_objects(model).await, "model_objects"),
        vec![table, column],
        "the second chunk's objects landed"
    );
    let read = details(store, &o, "details").await;
    assert_eq!(
        read.attributes,
        vec![attr(o[1], "A", Value::Integer(2))],
        "a later chunk replaces an earlier chunk's value"
    );
    assert_eq!(
        read.edges,
        vec![edge(EdgeKind::Lineage, o[0], model_id, "e")],
        "the third chunk's edge landed"
    );
    commit_chunks(store, vec![], "committing a transaction without writes").await;
}

async fn begin_dropped_uncommitted_leaves_store_unchanged(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model_id, model) = new_model(store, "Dropped Tx Model").await;
    let o = ids(store, model, 2).await;
    let kept = model_object(model, o[0].object, None, "kept");
    apply(
        store,
        vec![
            Op::PutObject(kept.clone()),
            Op::SetAttribute(attr(o[0], "A", Value::Integer(1))),
        ],
        "setting up",
    )
    .await;
    let before = ok(store.details(Scope::Model(model)).await, "details");

    let mut tx = ok(store.begin().await, "begin");
    let mut changed = kept.clone();
    changed.name = "changed".into();
    ok(
        tx.write(vec![
            Op::PutObject(changed),
            Op::PutObject(model_object(model, o[1].object, None, "new")),
        ])
        .await,
        "write",
    );
    ok(
        tx.write(vec![
            Op::SetAttribute(attr(o[0], "A", Value::Integer(2))),
            Op::AddTag(tag(o[0], TagKind::Label, "t")),
            Op::PutUser(user(1, "Dropped")),
            Op::DeleteObject(model_id),
        ])
        .await,
        "write",
    );
    drop(tx);

    assert_eq!(
        ok(store.model_objects(model).await, "model_objects"),
        vec![kept],
        "a dropped transaction adds and replaces no objects"
    );
    assert_eq!(
        ok(store.details(Scope::Model(model)).await, "details"),
        before,
        "a dropped transaction changes nothing that hangs on objects"
    );
    assert_eq!(
        ok(store.user_count().await, "user_count"),
        0,
        "a dropped transaction adds no users"
    );
    assert!(
        ok(store.object(model_id).await, "object").is_some(),
        "a dropped transaction deletes nothing"
    );

    commit_chunks(
        store,
        vec![vec![Op::PutUser(user(1, "After"))]],
        "a transaction after a dropped one",
    )
    .await;
    assert_eq!(
        ok(store.user_count().await, "user_count"),
        1,
        "a transaction after a dropped one commits"
    );
}

async fn new_rows_land_as_written_and_a_clash_lands_nothing(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "New Rows Model").await;
    let o = ids(store, model, 3).await;
    let table = model_object(model, o[0].object, None, "table");
    let column = model_object(model, o[1].object, Some(o[0]), "column");
    let values = vec![
        attr(o[1], "A", Value::Integer(1)),
        attr(o[1], "B", Value::Text("b".into())),
    ];
    let mut tx = ok(store.begin().await, "begin");
    tx.expect_new_rows();
    let mut ops = vec![Op::PutObject(table.clone()), Op::PutObject(column.clone())];
    ops.extend(values.iter().cloned().map(Op::SetAttribute));
    ok(tx.write(ops).await, "write of new rows");
    ok(tx.commit().await, "commit of new rows");
    assert_eq!(
        ok(store.model_objects(model).await, "model_objects"),
        vec![table.clone(), column.clone()],
        "objects promised new land as written"
    );
    assert_eq!(
        details(store, &o, "details").await.attributes,
        values,
        "attribute values promised new land as written"
    );

    // A broken promise: the table exists. A store may fail the transaction (then
    // nothing of it lands) or write as `write` would.
    let mut renamed = table.clone();
    renamed.name = "renamed".into();
    let extra = model_object(model, o[2].object, None, "extra");
    let mut tx = ok(store.begin().await, "begin");
    tx.expect_new_rows();
    let outcome = match tx
        .write(vec![
            Op::PutObject(extra.clone()),
            Op::PutObject(renamed.clone()),
        ])
        .await
    {
        Ok(()) => tx.commit().await,
        Err(err) => {
            drop(tx);
            Err(err)
        }
    };
    let expected = match outcome {
        Err(err) => {
            assert_eq!(
                err.code,
                ErrorCode::Conflict,
                "a row promised new that exists is a conflict: {err:?}"
            );
            vec![table, column]
        }
        Ok(()) => vec![renamed, column, extra],
    };
    assert_eq!(
        ok(store.model_objects(model).await, "model_objects"),
        expected,
        "a transaction with a clashing new row lands whole or not at all"
    );
}

async fn begin_failing_chunk_lands_nothing(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model_id, model) = new_model(store, "Failing Tx Model").await;
    let o = ids(store, model, 1).await;
    let r = ids(store, REPOSITORY_MODEL, 4).await;
    let taken = repository_object(r[0].object, ObjectKind::Folder, None, "Taken");
    apply(store, vec![Op::PutObject(taken.clone())], "setting up").await;

    let mut tx = ok(store.begin().await, "begin");
    ok(
        tx.write(vec![
            Op::PutObject(repository_object(
                r[1].object,
                ObjectKind::Folder,
                None,
                "Fresh",
            )),
            Op::PutUser(user(r[2].object, "Early")),
            Op::PutObject(model_object(model, o[0].object, None, "table")),
            Op::SetAttribute(attr(model_id, "A", Value::Integer(1))),
        ])
        .await,
        "write of a good first chunk",
    );
    let clash = vec![Op::PutObject(repository_object(
        r[3].object,
        ObjectKind::Folder,
        None,
        "Taken",
    ))];
    let outcome = match tx.write(clash).await {
        Ok(()) => tx.commit().await,
        Err(err) => {
            drop(tx);
            Err(err)
        }
    };
    fails(
        outcome,
        ErrorCode::Conflict,
        "a transaction whose second chunk puts a repository name twice under the root",
    );

    assert_eq!(
        ok(store.object(r[1]).await, "object"),
        None,
        "nothing of the earlier chunk lands: no folder"
    );
    assert_eq!(
        ok(store.user_count().await, "user_count"),
        0,
        "nothing of the earlier chunk lands: no user"
    );
    assert!(
        ok(store.model_objects(model).await, "model_objects").is_empty(),
        "nothing of the earlier chunk lands: no model object"
    );
    assert!(
        details(store, &[model_id], "details")
            .await
            .attributes
            .is_empty(),
        "nothing of the earlier chunk lands: no attribute"
    );
    assert_eq!(
        ok(
            store.child_by_name(REPOSITORY_MODEL, None, "Taken").await,
            "child_by_name"
        ),
        Some(taken),
        "the clashing name still finds the object that had it"
    );
}

// ---------------------------------------------------------------- worksheets

/// A worksheet of `owner` with every clause set (or only SELECT with `bare`).
fn worksheet(id: ObjectId, owner: ObjectId, name: &str, bare: bool) -> Worksheet {
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

fn worksheet_names(list: &[Worksheet]) -> Vec<&str> {
    list.iter().map(|w| w.name.as_str()).collect()
}

async fn worksheets_round_trip_with_names_unique_per_owner(store: Arc<dyn Store>) {
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

async fn a_failed_batch_leaves_worksheets_as_they_were(store: Arc<dyn Store>) {
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
async fn system_log_pages_newest_first_filters_counts_and_purges(store: Arc<dyn Store>) {
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

async fn lineage_walks_breadth_first_within_bounds(store: Arc<dyn Store>) {
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

async fn documents_round_trip_replace_and_go_with_their_owner(store: Arc<dyn Store>) {
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

async fn curation_round_trips_and_goes_with_object_and_user(store: Arc<dyn Store>) {
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

async fn curation_of_many_objects_by_object(store: Arc<dyn Store>) {
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

async fn notifications_newest_first_and_gone_with_their_user(store: Arc<dyn Store>) {
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

// ---------------------------------------------------------------- restore

/// An operation with its id, as a restore writes it.
fn operation(id: i64, model: Option<ObjectId>, state: OperationState) -> Operation {
    Operation {
        id,
        kind: "import".into(),
        state,
        model,
        started_by: "ann".into(),
        started_at: at(1_000 + id),
        heartbeat_at: at(2_000 + id),
        detail: OperationDetail {
            format: "lore-archive".into(),
            message: format!("operation {id}"),
            ..OperationDetail::default()
        },
    }
}

fn log_line(seq: i64, message: &str) -> OperationLogLine {
    OperationLogLine {
        seq,
        at: at(3_000 + seq),
        level: "INFO".into(),
        message: message.into(),
    }
}

fn attachment(object: ObjectId, name: &str, content: &[u8]) -> Attachment {
    Attachment {
        info: AttachmentInfo {
            object,
            name: name.into(),
            media_type: "text/plain".into(),
            size: content.len() as u64,
            sha256: format!("sha of {name}"),
            created_at: at(4_000),
            created_by: "ann".into(),
        },
        content: content.to_vec(),
    }
}

/// One or two rows of every table a store holds; answers the model, its object and
/// the user.
async fn fill_every_table(store: &dyn Store) -> (ObjectId, ObjectId, User) {
    let (model, number) = new_model(store, "filled").await;
    let table = model_object(number, 1, None, "customer");
    let ann = user(70, "ann");
    let group = Group {
        id: ObjectId::repository(71),
        name: "stewards".into(),
        description: String::new(),
        enabled: true,
        created_at: at(1_000),
    };
    apply(
        store,
        vec![
            Op::PutObject(table.clone()),
            Op::SetAttribute(attr(table.id, "Owner", Value::Text("ann".into()))),
            Op::AddEdge(edge(EdgeKind::CustomRelationship, table.id, model, "about")),
            Op::AddTag(tag(table.id, TagKind::Label, "pii")),
            Op::SetClassification(Classification {
                object: table.id,
                data_class: "Email".into(),
                status: ClassificationStatus::Approved,
            }),
            Op::SetLabelAssignment(LabelAssignment {
                object: table.id,
                label: "Secret".into(),
                status: ClassificationStatus::Approved,
            }),
            Op::SetProfiling(Profiling {
                object: table.id,
                profile: Some(full_profile()),
                sample: None,
            }),
            Op::PutAttributeType(AttributeType {
                name: "Owner".into(),
                display_name: "Owner".into(),
                kind: AttributeKind::Custom,
                value_type: ValueType::String,
                profile: None,
                group: "Custom Attributes".into(),
                description: String::new(),
            }),
            Op::PutDataClass(DataClass {
                name: "Email".into(),
                description: String::new(),
                hide_data: false,
                definition: serde_json::json!({}),
            }),
            Op::PutSensitivityLabel(SensitivityLabel {
                name: "Secret".into(),
                position: 1,
                description: String::new(),
                foreground_color: "#000".into(),
                background_color: "#fff".into(),
                hide_data: true,
            }),
            Op::PutRole(Role {
                name: "Reader".into(),
                description: String::new(),
                global: false,
                capabilities: vec![Capability::ViewMetadata],
            }),
            Op::PutUser(ann.clone()),
            Op::PutGroup(group.clone()),
            Op::AddMember(Membership {
                group: group.id,
                user: ann.id,
            }),
            Op::AddGrant(Grant {
                grantee: ann.id,
                role: "Reader".into(),
                object: Some(model),
            }),
            Op::PutWorksheet(worksheet(ObjectId::repository(72), ann.id, "mine", false)),
            Op::PutNotification(Notification {
                id: 1,
                user: ann.id,
                kind: NotificationKind::ModelChanged,
                object: model,
                message: "changed".into(),
                at: at(5_000),
                read: false,
            }),
            Op::PutCuration(Curation {
                id: 1,
                object: table.id,
                kind: CurationKind::Watch,
                user: ann.id,
                text: String::new(),
                at: at(5_000),
            }),
            Op::PutDocument(Document {
                kind: DocumentKind::License,
                owner: None,
                name: "license".into(),
                body: serde_json::json!({"seats": 3}),
                updated_at: at(5_000),
                updated_by: Some(ann.id),
            }),
            Op::PutOperation(operation(3, Some(model), OperationState::Succeeded)),
            Op::PutOperationLogLine {
                operation: 3,
                line: log_line(1, "started"),
            },
            Op::PutImportSettings(ImportSettings {
                model,
                format: "lore-archive".into(),
                parameters: serde_json::Map::new(),
                attachment: None,
                updated_at: at(5_000),
                updated_by: "ann".into(),
            }),
            Op::PutAttachment(attachment(model, "source.zip", b"zip")),
        ],
        "every table",
    )
    .await;
    ok(
        store
            .put_session(Session {
                key_hash: "hash".into(),
                user: ann.id,
                created_at: now(),
                expires_at: now() + Duration::hours(1),
                last_seen_at: now(),
            })
            .await,
        "put_session",
    );
    ok(
        store
            .append_system_log(vec![SystemLogEntry {
                time: micros(now()),
                user: "ann".into(),
                address: String::new(),
                method: "GET".into(),
                path: "/kept".into(),
                status: 200,
                duration_ms: 1,
                size: 1,
            }])
            .await,
        "append_system_log",
    );
    (model, table.id, ann)
}

async fn clear_all_empties_everything_but_the_system_log(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model, table, ann) = fill_every_table(store).await;
    let meta_before = ok(store.meta_version().await, "meta_version");
    apply(store, vec![Op::ClearAll], "ClearAll").await;

    assert_eq!(
        ok(store.object(model).await, "object"),
        None,
        "the model is gone"
    );
    assert_eq!(
        ok(store.object(table).await, "object"),
        None,
        "its object is gone"
    );
    assert!(
        is_empty(&details(store, &[table, model], "details").await),
        "nothing hangs on them"
    );
    assert!(ok(store.attribute_types().await, "attribute_types").is_empty());
    assert!(ok(store.data_classes().await, "data_classes").is_empty());
    assert!(ok(store.sensitivity_labels().await, "sensitivity_labels").is_empty());
    assert!(
        ok(store.roles().await, "roles").is_empty(),
        "roles are gone"
    );
    assert_eq!(
        ok(store.user_count().await, "user_count"),
        0,
        "users are gone"
    );
    assert!(ok(store.groups().await, "groups").is_empty());
    assert!(ok(store.grants_of(ann.id).await, "grants_of").is_empty());
    assert_eq!(ok(store.session("hash", now()).await, "session"), None);
    assert!(ok(store.worksheets(None).await, "worksheets").is_empty());
    assert!(ok(store.notifications_page(0, 10).await, "notifications").is_empty());
    assert!(ok(store.curation_page(0, 10).await, "curation").is_empty());
    assert!(ok(store.documents(DocumentKind::License).await, "documents").is_empty());
    assert_eq!(ok(store.operation(3).await, "operation"), None);
    assert!(ok(store.operation_log(3).await, "operation_log").is_empty());
    assert!(ok(store.all_attachments().await, "all_attachments").is_empty());
    assert!(ok(store.id_sequences().await, "id_sequences").is_empty());
    assert_eq!(
        ok(store.reserve_ids(REPOSITORY_MODEL, 1).await, "reserve_ids"),
        1,
        "the id sequences start again"
    );
    assert_eq!(
        ok(
            store.count_system_log(&SystemLogFilter::default()).await,
            "count_system_log"
        ),
        1,
        "the system log stays"
    );
    assert!(
        ok(store.meta_version().await, "meta_version") > meta_before,
        "the meta model version moves on, so caches of it are dropped"
    );
    // A cleared store takes the same rows again.
    fill_every_table(store).await;
}

async fn restore_ops_keep_their_ids_and_replace(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model, table, ann) = fill_every_table(store).await;
    apply(
        store,
        vec![
            Op::PutOperation(operation(9, None, OperationState::Failed)),
            Op::PutOperation(operation(3, Some(model), OperationState::Failed)),
            Op::PutOperationLogLine {
                operation: 3,
                line: log_line(1, "replaced"),
            },
            Op::PutOperationLogLine {
                operation: 3,
                line: log_line(2, "second"),
            },
            Op::PutAttachment(attachment(table, "b.txt", b"b")),
            Op::PutAttachment(attachment(table, "a.txt", b"a")),
            Op::PutAttachment(attachment(model, "source.zip", b"zip, again")),
            Op::SetIdSequence {
                space: OPERATION_IDS,
                next: 10,
            },
            Op::SetIdSequence { space: 41, next: 5 },
        ],
        "restore ops",
    )
    .await;
    assert_eq!(
        ok(store.operation(3).await, "operation"),
        Some(operation(3, Some(model), OperationState::Failed)),
        "PutOperation replaces the operation of its id"
    );
    assert_eq!(
        ok(store.operation_log(3).await, "operation_log"),
        vec![log_line(1, "replaced"), log_line(2, "second")],
        "PutOperationLogLine replaces the line of its number"
    );
    let listed = ok(
        store
            .operations(&OperationFilter {
                limit: 10,
                ..OperationFilter::default()
            })
            .await,
        "operations",
    );
    assert_eq!(
        listed.iter().map(|o| o.id).collect::<Vec<_>>(),
        vec![9, 3],
        "operations with their ids, newest first"
    );
    assert_eq!(
        ok(
            store
                .insert_operation(operation(0, None, OperationState::Running))
                .await,
            "insert_operation"
        ),
        10,
        "a new operation takes the next id of its sequence"
    );
    assert_eq!(
        ok(store.reserve_ids(41, 2).await, "reserve_ids"),
        5,
        "SetIdSequence sets the next id"
    );
    let sequences = ok(store.id_sequences().await, "id_sequences");
    assert!(
        sequences.contains(&(41, 7)) && sequences.contains(&(OPERATION_IDS, 11)),
        "id_sequences answers the next id of each space: {sequences:?}"
    );
    assert!(sequences.is_sorted(), "by id space: {sequences:?}");
    let attachments = ok(store.all_attachments().await, "all_attachments");
    assert_eq!(
        attachments
            .iter()
            .map(|a| (a.object, a.name.as_str(), a.size))
            .collect::<Vec<_>>(),
        vec![
            (model, "source.zip", 10),
            (table, "a.txt", 1),
            (table, "b.txt", 1)
        ],
        "every attachment by object then name, replaced by name"
    );
    // Pages of curation and notifications, by id.
    let more: Vec<Op> = (2..=5)
        .flat_map(|id| {
            [
                Op::PutCuration(Curation {
                    id,
                    object: table,
                    kind: CurationKind::Comment,
                    user: ann.id,
                    text: format!("comment {id}"),
                    at: at(6_000 - id),
                }),
                Op::PutNotification(Notification {
                    id,
                    user: ann.id,
                    kind: NotificationKind::ModelChanged,
                    object: model,
                    message: format!("change {id}"),
                    at: at(6_000 - id),
                    read: true,
                }),
            ]
        })
        .collect();
    apply(store, more, "curation and notifications").await;
    let page = ok(store.curation_page(1, 3).await, "curation_page");
    assert_eq!(
        page.iter().map(|c| c.id).collect::<Vec<_>>(),
        vec![2, 3, 4],
        "curation_page: ids above `after`, by id, at most `limit`"
    );
    let page = ok(store.notifications_page(3, 10).await, "notifications_page");
    assert_eq!(
        page.iter().map(|n| n.id).collect::<Vec<_>>(),
        vec![4, 5],
        "notifications_page: ids above `after`, by id"
    );
}

async fn a_failed_restore_lands_nothing(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model, table, ann) = fill_every_table(store).await;
    let sequences = ok(store.id_sequences().await, "id_sequences");
    let stranger = model_object(99, 1, Some(ObjectId::new(98, 1)), "misplaced");
    let restore = vec![
        Op::ClearAll,
        Op::PutOperation(operation(8, None, OperationState::Failed)),
        Op::PutAttachment(attachment(model, "other.zip", b"other")),
        Op::SetIdSequence {
            space: REPOSITORY_MODEL,
            next: 1,
        },
        Op::PutObject(stranger.clone()),
    ];
    fails(
        store.apply(Batch::from(restore.clone())).await,
        ErrorCode::InvalidParameter,
        "a restore batch with an invalid object",
    );
    let mut tx = ok(store.begin().await, "begin");
    let written = tx.write(restore).await;
    match written {
        Ok(()) => fails(
            tx.commit().await,
            ErrorCode::InvalidParameter,
            "a restore transaction with an invalid object",
        ),
        Err(e) => assert_eq!(e.code, ErrorCode::InvalidParameter, "{e}"),
    }
    assert!(
        ok(store.object(table).await, "object").is_some(),
        "objects stay"
    );
    assert_eq!(ok(store.user_count().await, "user_count"), 1, "users stay");
    assert!(!ok(store.roles().await, "roles").is_empty(), "roles stay");
    assert!(
        ok(store.session("hash", now()).await, "session").is_some(),
        "sessions stay"
    );
    assert!(
        ok(store.operation(3).await, "operation").is_some(),
        "operations stay"
    );
    assert_eq!(
        ok(store.operation(8).await, "operation"),
        None,
        "nothing new lands"
    );
    assert_eq!(
        ok(store.all_attachments().await, "all_attachments").len(),
        1,
        "attachments stay as they were"
    );
    assert_eq!(
        ok(store.id_sequences().await, "id_sequences"),
        sequences,
        "the id sequences stay"
    );
    assert_eq!(
        ok(store.grants_of(ann.id).await, "grants_of").len(),
        1,
        "grants stay"
    );
}

// ---------------------------------------------------------------- the outbox

fn delivery(id: i64, due_millis: i64, state: DeliveryState) -> Delivery {
    Delivery {
        id,
        channel: if id % 2 == 0 {
            DeliveryChannel::Email
        } else {
            DeliveryChannel::Webhook
        },
        target: format!("target {id}"),
        payload: serde_json::json!({"event": "MODEL_CHANGED", "id": id, "text": "Zürich"}),
        state,
        attempts: 0,
        next_attempt_at: at(due_millis),
        last_error: String::new(),
        created_at: at(1_000),
        updated_at: at(1_000),
    }
}

async fn deliveries_are_claimed_once_until_their_lease_runs_out(store: Arc<dyn Store>) {
    let store = store.as_ref();
    apply(
        store,
        vec![
            Op::PutDelivery(delivery(1, 5_000, DeliveryState::Pending)),
            Op::PutDelivery(delivery(2, 2_000, DeliveryState::Pending)),
            Op::PutDelivery(delivery(3, 9_000, DeliveryState::Pending)),
            Op::PutDelivery(delivery(4, 1_000, DeliveryState::Delivered)),
            Op::PutDelivery(delivery(5, 1_000, DeliveryState::Failed)),
        ],
        "PutDelivery",
    )
    .await;
    let claimed = ok(
        store.claim_deliveries(at(6_000), at(60_000), 10).await,
        "claim_deliveries",
    );
    assert_eq!(
        claimed.iter().map(|d| d.id).collect::<Vec<_>>(),
        vec![1, 2],
        "only pending deliveries that are due, by id"
    );
    assert!(
        claimed.iter().all(|d| d.next_attempt_at == at(60_000)),
        "claimed deliveries are due again when the lease runs out"
    );
    let mut expected = delivery(1, 60_000, DeliveryState::Pending);
    expected.next_attempt_at = at(60_000);
    assert_eq!(claimed[0], expected, "a delivery round-trips whole");
    assert!(
        ok(
            store.claim_deliveries(at(7_000), at(70_000), 10).await,
            "claim"
        )
        .is_empty(),
        "a claimed delivery is not claimed again before its lease runs out"
    );
    let first = ok(
        store.claim_deliveries(at(61_000), at(90_000), 1).await,
        "claim after the lease",
    );
    assert_eq!(
        first.iter().map(|d| d.id).collect::<Vec<_>>(),
        vec![3],
        "at most `limit`, the earliest due first (3 at 9 s before 1 and 2, whose lease ran \
         out at 60 s)"
    );
    // A delivered one stays delivered.
    let mut done = first[0].clone();
    done.state = DeliveryState::Delivered;
    done.attempts = 1;
    apply(
        store,
        vec![Op::PutDelivery(done.clone())],
        "PutDelivery again",
    )
    .await;
    assert_eq!(
        ok(
            store.deliveries(Some(DeliveryState::Delivered), 10).await,
            "deliveries"
        )
        .iter()
        .map(|d| d.id)
        .collect::<Vec<_>>(),
        vec![4, 3],
        "deliveries in a state, newest first"
    );
    assert_eq!(
        ok(store.deliveries(None, 2).await, "deliveries")
            .iter()
            .map(|d| d.id)
            .collect::<Vec<_>>(),
        vec![5, 4],
        "all deliveries, newest first, at most `limit`"
    );

    // Concurrent senders never claim the same delivery.
    let many: Vec<Op> = (100..160)
        .map(|id| Op::PutDelivery(delivery(id, 1_000, DeliveryState::Pending)))
        .collect();
    apply(store, many, "many deliveries").await;
    let (a, b) = tokio::join!(
        store.claim_deliveries(at(2_000), at(100_000), 40),
        store.claim_deliveries(at(2_000), at(100_000), 40),
    );
    let mut ids: Vec<i64> = ok(a, "claim a")
        .into_iter()
        .chain(ok(b, "claim b"))
        .map(|d| d.id)
        .collect();
    let claimed = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), claimed, "no delivery is claimed twice");
    assert!(
        ids.iter().filter(|id| **id >= 100).count() >= 40,
        "the claims took what was due: {ids:?}"
    );
}

// ---------------------------------------------------------------- snapshots

async fn a_snapshot_reads_one_moment_and_refuses_writes(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model, number) = new_model(store, "snapshot").await;
    let kept = model_object(number, 1, None, "kept");
    let gone = model_object(number, 2, None, "gone later");
    let ann = user(60, "ann");
    apply(
        store,
        vec![
            Op::PutObject(kept.clone()),
            Op::PutObject(gone.clone()),
            Op::SetAttribute(attr(kept.id, "Owner", Value::Text("before".into()))),
            Op::PutUser(ann.clone()),
        ],
        "the state before",
    )
    .await;
    let next = ok(store.reserve_ids(number, 1).await, "reserve_ids") + 1;
    let snapshot = ok(store.snapshot().await, "snapshot");

    // Writes after the snapshot was taken.
    let added = model_object(number, 3, None, "added later");
    apply(
        store,
        vec![
            Op::PutObject(added.clone()),
            Op::DeleteObject(gone.id),
            Op::SetAttribute(attr(kept.id, "Owner", Value::Text("after".into()))),
            Op::DeleteUser(ann.id),
        ],
        "the writes after",
    )
    .await;
    ok(store.reserve_ids(number, 5).await, "reserve_ids after");

    let page = ok(
        snapshot.model_objects_page(number, None, 10).await,
        "model_objects_page of the snapshot",
    );
    assert_eq!(
        id_list(&page),
        vec![kept.id, gone.id],
        "the snapshot holds the objects as they were"
    );
    assert_eq!(
        details(snapshot.as_ref(), &[kept.id], "details of the snapshot")
            .await
            .attributes,
        vec![attr(kept.id, "Owner", Value::Text("before".into()))],
        "and their values as they were"
    );
    assert_eq!(
        ok(snapshot.user(ann.id).await, "user").map(|u| u.name),
        Some("ann".into())
    );
    assert!(
        ok(snapshot.id_sequences().await, "id_sequences").contains(&(number, next)),
        "and the id sequences as they were"
    );
    assert!(ok(snapshot.object(model).await, "object").is_some());

    fails(
        snapshot
            .apply(Batch::from(vec![Op::DeleteObject(kept.id)]))
            .await,
        ErrorCode::ServerError,
        "a write to a snapshot",
    );
    assert!(
        snapshot.reserve_ids(number, 1).await.is_err(),
        "a snapshot gives no ids"
    );
    let refused = match snapshot.begin().await {
        Err(_) => true,
        Ok(mut tx) => {
            let written = tx.write(vec![Op::DeleteObject(kept.id)]).await;
            written.is_err() || tx.commit().await.is_err()
        }
    };
    assert!(
        refused,
        "a write transaction of a snapshot fails, at its start or its commit"
    );
    drop(snapshot);

    let live = ok(
        store.model_objects_page(number, None, 10).await,
        "live page",
    );
    assert_eq!(
        id_list(&live),
        vec![kept.id, added.id],
        "the store moved on"
    );
    assert_eq!(
        ok(store.object(kept.id).await, "object").map(|o| o.name),
        Some("kept".into())
    );
    apply(
        store,
        vec![Op::DeleteObject(kept.id)],
        "a write after the snapshot ended",
    )
    .await;
}
