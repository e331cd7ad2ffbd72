//! [`delegate_store!`](crate::delegate_store): a store that forwards roles to another.

/// Implements role traits of [`Store`](crate::store::Store) for a type by forwarding every
/// method to another store, so a store that wraps one (a test double that counts reads
/// or records writes) writes by hand only the roles whose methods it changes.
///
/// `delegate_store!(Type: Role, Role => |this| target)` implements each listed role
/// ([`StoreBase`](crate::store::StoreBase), [`ObjectStore`](crate::store::ObjectStore),
/// [`DefinitionStore`](crate::store::DefinitionStore),
/// [`AccessStore`](crate::store::AccessStore), [`SessionStore`](crate::store::SessionStore),
/// [`RecordStore`](crate::store::RecordStore) (all its parts), or one of its parts:
/// [`ObjectRecords`](crate::store::ObjectRecords),
/// [`SearchRecords`](crate::store::SearchRecords),
/// [`LineageRecords`](crate::store::LineageRecords),
/// [`GovernanceRecords`](crate::store::GovernanceRecords),
/// [`OperationRecords`](crate::store::OperationRecords),
/// [`NotificationRecords`](crate::store::NotificationRecords),
/// [`HistoryRecords`](crate::store::HistoryRecords)) for `Type`; each method
/// binds `this` to `&self`, evaluates `target` (anything whose methods are the role's: a
/// store, a reference to one, an `Arc<dyn Store>`) and calls the same method on it with
/// the same arguments. `target` may do more first, for every method of the listed roles:
///
/// ```
/// use std::sync::Arc;
/// use std::sync::atomic::{AtomicUsize, Ordering};
///
/// use lore_backend_memory::MemoryStore;
/// use lore_core::store::prelude::*;
///
/// /// Counts the object reads it forwards.
/// #[derive(Debug, Default)]
/// struct Counting {
///     inner: MemoryStore,
///     reads: AtomicUsize,
/// }
///
/// lore_core::delegate_store!(Counting: ObjectStore => |this| {
///     this.reads.fetch_add(1, Ordering::SeqCst);
///     &this.inner
/// });
/// lore_core::delegate_store!(
///     Counting: StoreBase, DefinitionStore, AccessStore, SessionStore, RecordStore
///         => |this| &this.inner
/// );
///
/// # tokio::runtime::Runtime::new().unwrap().block_on(async {
/// let counting = Arc::new(Counting::default());
/// let store: Arc<dyn Store> = counting.clone();
/// assert_eq!(store.backend(), "memory");
/// assert!(store.objects(&[]).await.unwrap().is_empty());
/// assert!(store.users().await.unwrap().is_empty());
/// assert_eq!(counting.reads.load(Ordering::SeqCst), 1);
/// # });
/// ```
///
/// Methods with a default body (`begin`, `explain`) are forwarded too.
#[macro_export]
macro_rules! delegate_store {
    // Each call is `($target).method(..)`: `#[async_trait]` re-parses the body, and
    // without the parentheses `&this.inner` would take the call's result by reference.
    ($ty:ty: $($role:ident),+ => |$this:ident| $target:expr) => {
        $($crate::delegate_store!(@$role $ty, $this, $target);)+
    };
    (@StoreBase $ty:ty, $this:ident, $target:expr) => {
        const _: () = {
            use $crate::store::StoreBase as _;
            #[$crate::async_trait::async_trait]
            impl $crate::store::StoreBase for $ty {
                fn backend(&self) -> &'static str {
                    let $this = self;
                    ($target).backend()
                }
                async fn ping(&self) -> $crate::Result<()> {
                    let $this = self;
                    ($target).ping().await
                }
                fn warm_up(&self) {
                    let $this = self;
                    ($target).warm_up()
                }
                async fn reserve_ids(&self, model: i64, count: u64) -> $crate::Result<i64> {
                    let $this = self;
                    ($target).reserve_ids(model, count).await
                }
                async fn snapshot(
                    &self,
                ) -> $crate::Result<::std::sync::Arc<dyn $crate::store::Store>> {
                    let $this = self;
                    ($target).snapshot().await
                }
                async fn id_sequences(&self) -> $crate::Result<::std::vec::Vec<(i64, i64)>> {
                    let $this = self;
                    ($target).id_sequences().await
                }
                async fn apply(&self, batch: $crate::store::Batch) -> $crate::Result<()> {
                    let $this = self;
                    ($target).apply(batch).await
                }
                async fn begin(
                    &self,
                    author: $crate::model::Author,
                ) -> $crate::Result<::std::boxed::Box<dyn $crate::store::WriteTx + '_>> {
                    let $this = self;
                    ($target).begin(author).await
                }
            }
        };
    };
    (@ObjectStore $ty:ty, $this:ident, $target:expr) => {
        const _: () = {
            use $crate::store::ObjectStore as _;
            #[$crate::async_trait::async_trait]
            impl $crate::store::ObjectStore for $ty {
                async fn object(
                    &self,
                    id: $crate::ObjectId,
                ) -> $crate::Result<::std::option::Option<$crate::model::Object>> {
                    let $this = self;
                    ($target).object(id).await
                }
                async fn object_by_stable_id(
                    &self,
                    stable_id: &str,
                ) -> $crate::Result<::std::option::Option<$crate::model::Object>> {
                    let $this = self;
                    ($target).object_by_stable_id(stable_id).await
                }
                async fn child_by_name(
                    &self,
                    model: i64,
                    parent: ::std::option::Option<$crate::ObjectId>,
                    name: &str,
                ) -> $crate::Result<::std::option::Option<$crate::model::Object>> {
                    let $this = self;
                    ($target).child_by_name(model, parent, name).await
                }
                async fn children(
                    &self,
                    model: i64,
                    parent: ::std::option::Option<$crate::ObjectId>,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Object>> {
                    let $this = self;
                    ($target).children(model, parent).await
                }
                async fn model_objects(
                    &self,
                    model: i64,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Object>> {
                    let $this = self;
                    ($target).model_objects(model).await
                }
                async fn model_objects_page(
                    &self,
                    model: i64,
                    after: ::std::option::Option<i64>,
                    limit: usize,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Object>> {
                    let $this = self;
                    ($target).model_objects_page(model, after, limit).await
                }
                async fn model_prints_page(
                    &self,
                    model: i64,
                    after: ::std::option::Option<i64>,
                    limit: usize,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::PrintedObject>> {
                    let $this = self;
                    ($target).model_prints_page(model, after, limit).await
                }
                async fn objects_of_kind(
                    &self,
                    kind: $crate::model::ObjectKind,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Object>> {
                    let $this = self;
                    ($target).objects_of_kind(kind).await
                }
                async fn repository_version(
                    &self,
                ) -> $crate::Result<::std::option::Option<i64>> {
                    let $this = self;
                    ($target).repository_version().await
                }
                async fn objects(
                    &self,
                    ids: &[$crate::ObjectId],
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Object>> {
                    let $this = self;
                    ($target).objects(ids).await
                }
                async fn details(
                    &self,
                    scope: $crate::store::Scope,
                ) -> $crate::Result<$crate::store::Details> {
                    let $this = self;
                    ($target).details(scope).await
                }
                async fn objects_with_details(
                    &self,
                    ids: &[$crate::ObjectId],
                ) -> $crate::Result<(::std::vec::Vec<$crate::model::Object>, $crate::store::Details)> {
                    let $this = self;
                    ($target).objects_with_details(ids).await
                }
                async fn entity_read(
                    &self,
                    id: $crate::ObjectId,
                    key: ::std::option::Option<(&str, $crate::model::Timestamp)>,
                ) -> $crate::Result<$crate::store::EntityRead> {
                    let $this = self;
                    ($target).entity_read(id, key).await
                }
                async fn edges(
                    &self,
                    kind: $crate::model::EdgeKind,
                    object: $crate::ObjectId,
                    incoming: bool,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Edge>> {
                    let $this = self;
                    ($target).edges(kind, object, incoming).await
                }
                async fn lineage(
                    &self,
                    start: $crate::ObjectId,
                    downstream: bool,
                    bounds: $crate::model::LineageBounds,
                ) -> $crate::Result<$crate::model::LineageWalk> {
                    let $this = self;
                    ($target).lineage(start, downstream, bounds).await
                }
                async fn query(
                    &self,
                    plan: &$crate::mql::plan::Plan,
                    page: $crate::mql::plan::Page,
                ) -> $crate::Result<::std::vec::Vec<$crate::ObjectId>> {
                    let $this = self;
                    ($target).query(plan, page).await
                }
                async fn count(&self, plan: &$crate::mql::plan::Plan) -> $crate::Result<u64> {
                    let $this = self;
                    ($target).count(plan).await
                }
                async fn value_counts(
                    &self,
                    plan: &$crate::mql::plan::Plan,
                    facets: &[$crate::mql::plan::Facet],
                    limit: u64,
                ) -> $crate::Result<
                    ::std::vec::Vec<::std::vec::Vec<$crate::mql::plan::ValueCount>>,
                > {
                    let $this = self;
                    ($target).value_counts(plan, facets, limit).await
                }
                async fn explain(
                    &self,
                    plan: &$crate::mql::plan::Plan,
                    page: $crate::mql::plan::Page,
                ) -> $crate::Result<::std::option::Option<$crate::store::Explanation>> {
                    let $this = self;
                    ($target).explain(plan, page).await
                }
            }
        };
    };
    (@DefinitionStore $ty:ty, $this:ident, $target:expr) => {
        const _: () = {
            use $crate::store::DefinitionStore as _;
            #[$crate::async_trait::async_trait]
            impl $crate::store::DefinitionStore for $ty {
                async fn attribute_types(
                    &self,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::AttributeType>> {
                    let $this = self;
                    ($target).attribute_types().await
                }
                async fn object_types(
                    &self,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::ObjectType>> {
                    let $this = self;
                    ($target).object_types().await
                }
                async fn data_classes(
                    &self,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::DataClass>> {
                    let $this = self;
                    ($target).data_classes().await
                }
                async fn sensitivity_labels(
                    &self,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::SensitivityLabel>> {
                    let $this = self;
                    ($target).sensitivity_labels().await
                }
                async fn roles(&self) -> $crate::Result<::std::vec::Vec<$crate::model::Role>> {
                    let $this = self;
                    ($target).roles().await
                }
                async fn meta_version(&self) -> $crate::Result<i64> {
                    let $this = self;
                    ($target).meta_version().await
                }
            }
        };
    };
    (@AccessStore $ty:ty, $this:ident, $target:expr) => {
        const _: () = {
            use $crate::store::AccessStore as _;
            #[$crate::async_trait::async_trait]
            impl $crate::store::AccessStore for $ty {
                async fn user(
                    &self,
                    id: $crate::ObjectId,
                ) -> $crate::Result<::std::option::Option<$crate::model::User>> {
                    let $this = self;
                    ($target).user(id).await
                }
                async fn user_by_name(
                    &self,
                    name: &str,
                ) -> $crate::Result<::std::option::Option<$crate::model::User>> {
                    let $this = self;
                    ($target).user_by_name(name).await
                }
                async fn user_by_external(
                    &self,
                    issuer: &str,
                    subject: &str,
                ) -> $crate::Result<::std::option::Option<$crate::model::User>> {
                    let $this = self;
                    ($target).user_by_external(issuer, subject).await
                }
                async fn user_count(&self) -> $crate::Result<u64> {
                    let $this = self;
                    ($target).user_count().await
                }
                async fn users(&self) -> $crate::Result<::std::vec::Vec<$crate::model::User>> {
                    let $this = self;
                    ($target).users().await
                }
                async fn group(
                    &self,
                    id: $crate::ObjectId,
                ) -> $crate::Result<::std::option::Option<$crate::model::Group>> {
                    let $this = self;
                    ($target).group(id).await
                }
                async fn group_by_name(
                    &self,
                    name: &str,
                ) -> $crate::Result<::std::option::Option<$crate::model::Group>> {
                    let $this = self;
                    ($target).group_by_name(name).await
                }
                async fn groups(&self) -> $crate::Result<::std::vec::Vec<$crate::model::Group>> {
                    let $this = self;
                    ($target).groups().await
                }
                async fn members(
                    &self,
                    group: $crate::ObjectId,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::User>> {
                    let $this = self;
                    ($target).members(group).await
                }
                async fn groups_of(
                    &self,
                    user: $crate::ObjectId,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Group>> {
                    let $this = self;
                    ($target).groups_of(user).await
                }
                async fn grants_of(
                    &self,
                    grantee: $crate::ObjectId,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Grant>> {
                    let $this = self;
                    ($target).grants_of(grantee).await
                }
                async fn grants_on(
                    &self,
                    on: $crate::store::GrantsOn,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Grant>> {
                    let $this = self;
                    ($target).grants_on(on).await
                }
                async fn grants_of_role(
                    &self,
                    role: &str,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Grant>> {
                    let $this = self;
                    ($target).grants_of_role(role).await
                }
            }
        };
    };
    (@SessionStore $ty:ty, $this:ident, $target:expr) => {
        const _: () = {
            use $crate::store::SessionStore as _;
            #[$crate::async_trait::async_trait]
            impl $crate::store::SessionStore for $ty {
                async fn principal(
                    &self,
                    key_hash: &str,
                    now: $crate::model::Timestamp,
                ) -> $crate::Result<::std::option::Option<$crate::store::Principal>> {
                    let $this = self;
                    ($target).principal(key_hash, now).await
                }
                async fn session_check(
                    &self,
                    key_hash: &str,
                    now: $crate::model::Timestamp,
                ) -> $crate::Result<::std::option::Option<$crate::store::SessionCheck>> {
                    let $this = self;
                    ($target).session_check(key_hash, now).await
                }
                async fn put_session(&self, session: $crate::model::Session) -> $crate::Result<()> {
                    let $this = self;
                    ($target).put_session(session).await
                }
                async fn session(
                    &self,
                    key_hash: &str,
                    now: $crate::model::Timestamp,
                ) -> $crate::Result<::std::option::Option<$crate::model::Session>> {
                    let $this = self;
                    ($target).session(key_hash, now).await
                }
                async fn delete_session(&self, key_hash: &str) -> $crate::Result<()> {
                    let $this = self;
                    ($target).delete_session(key_hash).await
                }
                async fn delete_sessions_of(&self, user: $crate::ObjectId) -> $crate::Result<u64> {
                    let $this = self;
                    ($target).delete_sessions_of(user).await
                }
                async fn purge_sessions(
                    &self,
                    now: $crate::model::Timestamp,
                ) -> $crate::Result<u64> {
                    let $this = self;
                    ($target).purge_sessions(now).await
                }
                async fn touch_session(
                    &self,
                    key_hash: &str,
                    now: $crate::model::Timestamp,
                ) -> $crate::Result<()> {
                    let $this = self;
                    ($target).touch_session(key_hash, now).await
                }
                async fn login_failures(
                    &self,
                    subjects: &[::std::string::String],
                ) -> $crate::Result<::std::vec::Vec<$crate::model::LoginFailures>> {
                    let $this = self;
                    ($target).login_failures(subjects).await
                }
                async fn add_login_failure(
                    &self,
                    subjects: &[::std::string::String],
                    now: $crate::model::Timestamp,
                    restart_before: $crate::model::Timestamp,
                ) -> $crate::Result<()> {
                    let $this = self;
                    ($target).add_login_failure(subjects, now, restart_before).await
                }
                async fn clear_login_failures(
                    &self,
                    subjects: &[::std::string::String],
                ) -> $crate::Result<()> {
                    let $this = self;
                    ($target).clear_login_failures(subjects).await
                }
            }
        };
    };
    (@RecordStore $ty:ty, $this:ident, $target:expr) => {
        $crate::delegate_store!(@ObjectRecords $ty, $this, $target);
        $crate::delegate_store!(@SearchRecords $ty, $this, $target);
        $crate::delegate_store!(@LineageRecords $ty, $this, $target);
        $crate::delegate_store!(@GovernanceRecords $ty, $this, $target);
        $crate::delegate_store!(@OperationRecords $ty, $this, $target);
        $crate::delegate_store!(@NotificationRecords $ty, $this, $target);
        $crate::delegate_store!(@HistoryRecords $ty, $this, $target);
    };
    (@ObjectRecords $ty:ty, $this:ident, $target:expr) => {
        const _: () = {
            use $crate::store::ObjectRecords as _;
            #[$crate::async_trait::async_trait]
            impl $crate::store::ObjectRecords for $ty {
                async fn document(
                    &self,
                    kind: $crate::model::DocumentKind,
                    owner: ::std::option::Option<$crate::ObjectId>,
                    name: &str,
                ) -> $crate::Result<::std::option::Option<$crate::model::Document>> {
                    let $this = self;
                    ($target).document(kind, owner, name).await
                }
                async fn documents(
                    &self,
                    kind: $crate::model::DocumentKind,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Document>> {
                    let $this = self;
                    ($target).documents(kind).await
                }
            }
        };
    };
    (@SearchRecords $ty:ty, $this:ident, $target:expr) => {
        const _: () = {
            use $crate::store::SearchRecords as _;
            #[$crate::async_trait::async_trait]
            impl $crate::store::SearchRecords for $ty {
                async fn worksheet(
                    &self,
                    id: $crate::ObjectId,
                ) -> $crate::Result<::std::option::Option<$crate::model::Worksheet>> {
                    let $this = self;
                    ($target).worksheet(id).await
                }
                async fn worksheet_by_name(
                    &self,
                    owner: $crate::ObjectId,
                    name: &str,
                ) -> $crate::Result<::std::option::Option<$crate::model::Worksheet>> {
                    let $this = self;
                    ($target).worksheet_by_name(owner, name).await
                }
                async fn worksheets(
                    &self,
                    owner: ::std::option::Option<$crate::ObjectId>,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Worksheet>> {
                    let $this = self;
                    ($target).worksheets(owner).await
                }
            }
        };
    };
    (@LineageRecords $ty:ty, $this:ident, $target:expr) => {
        const _: () = {
            use $crate::store::LineageRecords as _;
            #[$crate::async_trait::async_trait]
            impl $crate::store::LineageRecords for $ty {
                async fn lineage_run(
                    &self,
                    run_id: &str,
                ) -> $crate::Result<::std::option::Option<$crate::model::LineageRun>> {
                    let $this = self;
                    ($target).lineage_run(run_id).await
                }
                async fn lineage_runs(
                    &self,
                    filter: &$crate::model::RunFilter,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::LineageRun>> {
                    let $this = self;
                    ($target).lineage_runs(filter).await
                }
                async fn lineage_events(
                    &self,
                    run_id: &str,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::LineageEvent>> {
                    let $this = self;
                    ($target).lineage_events(run_id).await
                }
                async fn lineage_event(
                    &self,
                    digest: &str,
                ) -> $crate::Result<::std::option::Option<$crate::model::LineageEvent>> {
                    let $this = self;
                    ($target).lineage_event(digest).await
                }
                async fn lineage_runs_page(
                    &self,
                    after_run_id: &str,
                    limit: usize,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::LineageRun>> {
                    let $this = self;
                    ($target).lineage_runs_page(after_run_id, limit).await
                }
                async fn lineage_events_page(
                    &self,
                    after_digest: &str,
                    limit: usize,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::LineageEvent>> {
                    let $this = self;
                    ($target).lineage_events_page(after_digest, limit).await
                }
                async fn purge_lineage_events(
                    &self,
                    received_before: $crate::model::Timestamp,
                ) -> $crate::Result<u64> {
                    let $this = self;
                    ($target).purge_lineage_events(received_before).await
                }
            }
        };
    };
    (@GovernanceRecords $ty:ty, $this:ident, $target:expr) => {
        const _: () = {
            use $crate::store::GovernanceRecords as _;
            #[$crate::async_trait::async_trait]
            impl $crate::store::GovernanceRecords for $ty {
                async fn curation(
                    &self,
                    object: $crate::ObjectId,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Curation>> {
                    let $this = self;
                    ($target).curation(object).await
                }
                async fn curation_of(
                    &self,
                    objects: &[$crate::ObjectId],
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Curation>> {
                    let $this = self;
                    ($target).curation_of(objects).await
                }
                async fn curation_entry(
                    &self,
                    id: i64,
                ) -> $crate::Result<::std::option::Option<$crate::model::Curation>> {
                    let $this = self;
                    ($target).curation_entry(id).await
                }
                async fn curation_page(
                    &self,
                    after: i64,
                    limit: usize,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Curation>> {
                    let $this = self;
                    ($target).curation_page(after, limit).await
                }
            }
        };
    };
    (@OperationRecords $ty:ty, $this:ident, $target:expr) => {
        const _: () = {
            use $crate::store::OperationRecords as _;
            #[$crate::async_trait::async_trait]
            impl $crate::store::OperationRecords for $ty {
                async fn append_system_log(
                    &self,
                    entries: ::std::vec::Vec<$crate::model::SystemLogEntry>,
                ) -> $crate::Result<()> {
                    let $this = self;
                    ($target).append_system_log(entries).await
                }
                async fn system_log(
                    &self,
                    filter: &$crate::model::SystemLogFilter,
                    page: $crate::mql::plan::Page,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::SystemLogEntry>> {
                    let $this = self;
                    ($target).system_log(filter, page).await
                }
                async fn count_system_log(
                    &self,
                    filter: &$crate::model::SystemLogFilter,
                ) -> $crate::Result<u64> {
                    let $this = self;
                    ($target).count_system_log(filter).await
                }
                async fn purge_system_log(
                    &self,
                    before: $crate::model::Timestamp,
                ) -> $crate::Result<u64> {
                    let $this = self;
                    ($target).purge_system_log(before).await
                }
                async fn insert_operation(
                    &self,
                    operation: $crate::model::Operation,
                ) -> $crate::Result<i64> {
                    let $this = self;
                    ($target).insert_operation(operation).await
                }
                async fn update_operation(
                    &self,
                    operation: &$crate::model::Operation,
                ) -> $crate::Result<()> {
                    let $this = self;
                    ($target).update_operation(operation).await
                }
                async fn operation(
                    &self,
                    id: i64,
                ) -> $crate::Result<::std::option::Option<$crate::model::Operation>> {
                    let $this = self;
                    ($target).operation(id).await
                }
                async fn operations(
                    &self,
                    filter: &$crate::model::OperationFilter,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Operation>> {
                    let $this = self;
                    ($target).operations(filter).await
                }
                async fn append_operation_log(
                    &self,
                    operation: i64,
                    lines: ::std::vec::Vec<$crate::model::OperationLogLine>,
                ) -> $crate::Result<()> {
                    let $this = self;
                    ($target).append_operation_log(operation, lines).await
                }
                async fn operation_log(
                    &self,
                    operation: i64,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::OperationLogLine>> {
                    let $this = self;
                    ($target).operation_log(operation).await
                }
                async fn put_import_settings(
                    &self,
                    settings: $crate::model::ImportSettings,
                ) -> $crate::Result<()> {
                    let $this = self;
                    ($target).put_import_settings(settings).await
                }
                async fn import_settings(
                    &self,
                    model: $crate::ObjectId,
                ) -> $crate::Result<::std::option::Option<$crate::model::ImportSettings>> {
                    let $this = self;
                    ($target).import_settings(model).await
                }
                async fn put_attachment(
                    &self,
                    attachment: $crate::model::Attachment,
                ) -> $crate::Result<()> {
                    let $this = self;
                    ($target).put_attachment(attachment).await
                }
                async fn attachment(
                    &self,
                    object: $crate::ObjectId,
                    name: ::std::option::Option<&str>,
                ) -> $crate::Result<::std::option::Option<$crate::model::Attachment>> {
                    let $this = self;
                    ($target).attachment(object, name).await
                }
                async fn attachments(
                    &self,
                    object: $crate::ObjectId,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::AttachmentInfo>> {
                    let $this = self;
                    ($target).attachments(object).await
                }
                async fn all_attachments(
                    &self,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::AttachmentInfo>> {
                    let $this = self;
                    ($target).all_attachments().await
                }
            }
        };
    };
    (@NotificationRecords $ty:ty, $this:ident, $target:expr) => {
        const _: () = {
            use $crate::store::NotificationRecords as _;
            #[$crate::async_trait::async_trait]
            impl $crate::store::NotificationRecords for $ty {
                async fn notifications(
                    &self,
                    user: $crate::ObjectId,
                    unread_only: bool,
                    limit: u32,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Notification>> {
                    let $this = self;
                    ($target).notifications(user, unread_only, limit).await
                }
                async fn notification(
                    &self,
                    id: i64,
                ) -> $crate::Result<::std::option::Option<$crate::model::Notification>> {
                    let $this = self;
                    ($target).notification(id).await
                }
                async fn claim_deliveries(
                    &self,
                    now: $crate::model::Timestamp,
                    lease_until: $crate::model::Timestamp,
                    limit: usize,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Delivery>> {
                    let $this = self;
                    ($target).claim_deliveries(now, lease_until, limit).await
                }
                async fn deliveries(
                    &self,
                    state: ::std::option::Option<$crate::model::DeliveryState>,
                    limit: usize,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Delivery>> {
                    let $this = self;
                    ($target).deliveries(state, limit).await
                }
                async fn notifications_page(
                    &self,
                    after: i64,
                    limit: usize,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Notification>> {
                    let $this = self;
                    ($target).notifications_page(after, limit).await
                }
            }
        };
    };
    (@HistoryRecords $ty:ty, $this:ident, $target:expr) => {
        const _: () = {
            use $crate::store::HistoryRecords as _;
            #[$crate::async_trait::async_trait]
            impl $crate::store::HistoryRecords for $ty {
                async fn history_span(&self) -> $crate::Result<$crate::model::HistorySpan> {
                    let $this = self;
                    ($target).history_span().await
                }
                async fn revision(
                    &self,
                    version: i64,
                ) -> $crate::Result<::std::option::Option<$crate::model::Revision>> {
                    let $this = self;
                    ($target).revision(version).await
                }
                async fn revision_at(
                    &self,
                    at: $crate::model::Timestamp,
                ) -> $crate::Result<::std::option::Option<$crate::model::Revision>> {
                    let $this = self;
                    ($target).revision_at(at).await
                }
                async fn revisions(
                    &self,
                    versions: &[i64],
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Revision>> {
                    let $this = self;
                    ($target).revisions(versions).await
                }
                async fn object_history(
                    &self,
                    id: $crate::ObjectId,
                    limit: usize,
                ) -> $crate::Result<$crate::model::ObjectHistory> {
                    let $this = self;
                    ($target).object_history(id, limit).await
                }
                async fn entity_as_of(
                    &self,
                    id: $crate::ObjectId,
                    version: i64,
                ) -> $crate::Result<(
                    ::std::option::Option<$crate::model::Object>,
                    $crate::store::Details,
                )> {
                    let $this = self;
                    ($target).entity_as_of(id, version).await
                }
                async fn edges_as_of(
                    &self,
                    id: $crate::ObjectId,
                    version: i64,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Edge>> {
                    let $this = self;
                    ($target).edges_as_of(id, version).await
                }
                async fn entities_as_of(
                    &self,
                    ids: &[$crate::ObjectId],
                    version: i64,
                ) -> $crate::Result<
                    ::std::vec::Vec<(
                        ::std::option::Option<$crate::model::Object>,
                        $crate::store::Details,
                    )>,
                > {
                    let $this = self;
                    ($target).entities_as_of(ids, version).await
                }
                async fn objects_with_details_as_of(
                    &self,
                    ids: &[$crate::ObjectId],
                    version: i64,
                ) -> $crate::Result<(
                    ::std::vec::Vec<$crate::model::Object>,
                    $crate::store::Details,
                )> {
                    let $this = self;
                    ($target).objects_with_details_as_of(ids, version).await
                }
                async fn objects_changed_between(
                    &self,
                    model: i64,
                    from: i64,
                    to: i64,
                    limit: usize,
                ) -> $crate::Result<::std::vec::Vec<$crate::ObjectId>> {
                    let $this = self;
                    ($target).objects_changed_between(model, from, to, limit).await
                }
                async fn objects_changed_after(
                    &self,
                    after: i64,
                    limit: usize,
                ) -> $crate::Result<::std::vec::Vec<$crate::ObjectId>> {
                    let $this = self;
                    ($target).objects_changed_after(after, limit).await
                }
                async fn model_versions(
                    &self,
                    model: i64,
                    before: ::std::option::Option<i64>,
                    limit: usize,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::ModelVersion>> {
                    let $this = self;
                    ($target).model_versions(model, before, limit).await
                }
                async fn purge_history(&self, floor: i64) -> $crate::Result<u64> {
                    let $this = self;
                    ($target).purge_history(floor).await
                }
                async fn versions_floor(
                    &self,
                    keep: usize,
                ) -> $crate::Result<::std::option::Option<i64>> {
                    let $this = self;
                    ($target).versions_floor(keep).await
                }
                async fn server_grant_history(
                    &self,
                    limit: usize,
                ) -> $crate::Result<(
                    ::std::vec::Vec<$crate::model::Versioned<$crate::model::Grant>>,
                    bool,
                )> {
                    let $this = self;
                    ($target).server_grant_history(limit).await
                }
                async fn purge_curation_history(&self, floor: i64) -> $crate::Result<u64> {
                    let $this = self;
                    ($target).purge_curation_history(floor).await
                }
                async fn entities_at_both(
                    &self,
                    ids: &[$crate::id::ObjectId],
                    first: i64,
                    second: i64,
                ) -> $crate::Result<::std::vec::Vec<$crate::store::EntityPair>> {
                    let $this = self;
                    ($target).entities_at_both(ids, first, second).await
                }
                async fn objects_history(
                    &self,
                    ids: &[$crate::id::ObjectId],
                ) -> $crate::Result<::std::vec::Vec<$crate::model::ObjectHistory>> {
                    let $this = self;
                    ($target).objects_history(ids).await
                }
                async fn gone_with_history(
                    &self,
                    after: ::std::option::Option<$crate::id::ObjectId>,
                    limit: usize,
                ) -> $crate::Result<::std::vec::Vec<$crate::id::ObjectId>> {
                    let $this = self;
                    ($target).gone_with_history(after, limit).await
                }
                async fn revisions_after(
                    &self,
                    after: i64,
                    limit: usize,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::Revision>> {
                    let $this = self;
                    ($target).revisions_after(after, limit).await
                }
                async fn all_model_versions(
                    &self,
                ) -> $crate::Result<::std::vec::Vec<$crate::model::ModelVersion>> {
                    let $this = self;
                    ($target).all_model_versions().await
                }
            }
        };
    };
}
