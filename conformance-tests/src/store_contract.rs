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

// The contract pins the store's own reads of objects by id, stable id and name, which
// the sight lint keeps from request code.
#![allow(clippy::disallowed_methods)]

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

mod access;
mod backend_checks;
mod batches;
mod details;
mod history;
mod lineage;
mod objects;
mod outbox;
mod pages;
mod prints;
mod records;
mod restore;
mod snapshots;
mod tallies;
mod transactions;

use access::*;
use backend_checks::*;
use batches::*;
use details::*;
pub use details::{entity_reads_follow_writes, repository_version_follows_writes};
use history::*;
use lineage::*;
use objects::*;
use outbox::*;
use records::*;
use restore::*;
use snapshots::*;
use transactions::*;

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
        case!(entity_read_is_the_object_with_what_its_entity_shows),
        case!(entity_read_follows_every_write),
        case!(entity_read_answers_the_repository_version),
        // Deleting
        case!(delete_object_removes_what_hangs_on_it),
        case!(clear_model_removes_model_objects_only),
        case!(delete_and_clear_keep_other_models_and_repository_objects),
        // Counts and facets by model and type (the SQL backends' tallies)
        StoreCase {
            name: "counts_and_facets_by_type_follow_every_write",
            run: |store| Box::pin(tallies::counts_and_facets_by_type_follow_every_write(store)),
        },
        // Pages of a common text search term
        StoreCase {
            name: "a_common_term_late_in_name_order_pages_alike",
            run: |store| Box::pin(pages::a_common_term_late_in_name_order_pages_alike(store)),
        },
        StoreCase {
            name: "a_term_found_by_its_rarest_trigram_finds_alike",
            run: |store| Box::pin(pages::a_term_found_by_its_rarest_trigram_finds_alike(store)),
        },
        StoreCase {
            name: "a_search_follows_every_write_of_what_it_reads",
            run: |store| Box::pin(pages::a_search_follows_every_write_of_what_it_reads(store)),
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
        case!(session_check_follows_what_a_principal_is_made_of),
        case!(lineage_walks_breadth_first_within_bounds),
        case!(documents_round_trip_replace_and_go_with_their_owner),
        case!(curation_round_trips_and_goes_with_object_and_user),
        case!(curation_of_many_objects_by_object),
        case!(notifications_newest_first_and_gone_with_their_user),
        case!(user_names_unique_case_insensitively),
        case!(users_are_found_by_their_external_identity_exactly),
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
        // OpenLineage events and their runs
        case!(a_lineage_event_put_twice_is_stored_once),
        case!(a_lineage_run_is_the_same_whatever_order_its_events_came_in),
        case!(lineage_events_of_one_run_applied_concurrently_merge_alike),
        case!(lineage_runs_newest_first_by_job_at_most_limit),
        case!(lineage_events_by_event_time_then_digest_and_whole),
        case!(purge_lineage_events_keeps_their_runs),
        case!(a_failed_batch_lands_no_lineage_event),
        case!(lineage_events_refuse_nul_and_times_out_of_range),
        case!(put_lineage_run_writes_the_run_as_given),
        case!(lineage_runs_and_events_in_pages),
        // History
        case!(history_keeps_each_replaced_row_with_its_revision),
        case!(history_keeps_nothing_of_what_did_not_change),
        case!(clear_all_forgets_the_history),
        case!(model_versions_and_what_changed_between_them),
        case!(purging_history_keeps_what_reads_from_its_floor),
        case!(history_keeps_curation_and_grants),
        case!(plans_and_reads_as_of_a_version),
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
        origin: None,
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
        external: None,
    }
}

async fn details(store: &dyn Store, ids: &[ObjectId], what: &str) -> Details {
    ok(store.details(Scope::Objects(ids.to_vec())).await, what)
}

fn is_empty(details: &Details) -> bool {
    *details == Details::default()
}
