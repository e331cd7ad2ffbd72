//! The request path stays short: finding the caller is one store read, the meta model
//! is cached between calls, and `GET /entities/{objectId}` makes at most three store
//! reads (caller; object with what hangs on it; its defining terms).

use lore_core::mql::plan::{Facet, Page, Plan, ValueCount};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use async_trait::async_trait;
use lore_backend_memory::MemoryStore;
use lore_conformance::Target;
use lore_core::model::*;
use lore_core::store::{Batch, Details, GrantsOn, Principal, Scope, Store, WriteTx};
use lore_core::{ObjectId, Result};

/// A store that counts the reads it is asked for.
#[derive(Debug, Default)]
struct Counting {
    inner: MemoryStore,
    reads: AtomicUsize,
}

impl Counting {
    fn read(&self) {
        self.reads.fetch_add(1, Ordering::SeqCst);
    }
    fn take(&self) -> usize {
        self.reads.swap(0, Ordering::SeqCst)
    }
}

#[async_trait]
impl Store for Counting {
    fn backend(&self) -> &'static str {
        "counting"
    }
    async fn ping(&self) -> Result<()> {
        self.inner.ping().await
    }
    async fn reserve_ids(&self, model: i64, count: u64) -> Result<i64> {
        self.inner.reserve_ids(model, count).await
    }
    async fn id_sequences(&self) -> Result<Vec<(i64, i64)>> {
        self.inner.id_sequences().await
    }
    async fn snapshot(&self) -> Result<std::sync::Arc<dyn Store>> {
        self.inner.snapshot().await
    }
    async fn apply(&self, batch: Batch) -> Result<()> {
        self.inner.apply(batch).await
    }
    async fn begin(&self) -> Result<Box<dyn WriteTx + '_>> {
        self.inner.begin().await
    }
    async fn object(&self, id: ObjectId) -> Result<Option<Object>> {
        self.read();
        self.inner.object(id).await
    }
    async fn object_by_stable_id(&self, stable_id: &str) -> Result<Option<Object>> {
        self.read();
        self.inner.object_by_stable_id(stable_id).await
    }
    async fn child_by_name(
        &self,
        model: i64,
        parent: Option<ObjectId>,
        name: &str,
    ) -> Result<Option<Object>> {
        self.read();
        self.inner.child_by_name(model, parent, name).await
    }
    async fn children(&self, model: i64, parent: Option<ObjectId>) -> Result<Vec<Object>> {
        self.read();
        self.inner.children(model, parent).await
    }
    async fn model_objects(&self, model: i64) -> Result<Vec<Object>> {
        self.read();
        self.inner.model_objects(model).await
    }
    async fn objects_of_kind(&self, kind: ObjectKind) -> Result<Vec<Object>> {
        self.read();
        self.inner.objects_of_kind(kind).await
    }
    async fn model_objects_page(
        &self,
        model: i64,
        after: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Object>> {
        self.read();
        self.inner.model_objects_page(model, after, limit).await
    }
    async fn model_prints_page(
        &self,
        model: i64,
        after: Option<i64>,
        limit: usize,
    ) -> Result<Vec<PrintedObject>> {
        self.read();
        self.inner.model_prints_page(model, after, limit).await
    }
    async fn objects(&self, ids: &[ObjectId]) -> Result<Vec<Object>> {
        self.read();
        self.inner.objects(ids).await
    }
    async fn details(&self, scope: Scope) -> Result<Details> {
        self.read();
        self.inner.details(scope).await
    }
    async fn objects_with_details(&self, ids: &[ObjectId]) -> Result<(Vec<Object>, Details)> {
        self.read();
        self.inner.objects_with_details(ids).await
    }
    async fn edges(&self, kind: EdgeKind, object: ObjectId, incoming: bool) -> Result<Vec<Edge>> {
        self.read();
        self.inner.edges(kind, object, incoming).await
    }
    async fn notifications(
        &self,
        user: ObjectId,
        unread_only: bool,
        limit: u32,
    ) -> Result<Vec<Notification>> {
        self.read();
        self.inner.notifications(user, unread_only, limit).await
    }
    async fn notification(&self, id: i64) -> Result<Option<Notification>> {
        self.read();
        self.inner.notification(id).await
    }
    async fn curation(&self, object: ObjectId) -> Result<Vec<Curation>> {
        self.read();
        self.inner.curation(object).await
    }
    async fn curation_entry(&self, id: i64) -> Result<Option<Curation>> {
        self.read();
        self.inner.curation_entry(id).await
    }
    async fn document(
        &self,
        kind: DocumentKind,
        owner: Option<ObjectId>,
        name: &str,
    ) -> Result<Option<Document>> {
        self.read();
        self.inner.document(kind, owner, name).await
    }
    async fn documents(&self, kind: DocumentKind) -> Result<Vec<Document>> {
        self.read();
        self.inner.documents(kind).await
    }
    async fn lineage(
        &self,
        start: ObjectId,
        downstream: bool,
        bounds: LineageBounds,
    ) -> Result<LineageWalk> {
        self.read();
        self.inner.lineage(start, downstream, bounds).await
    }
    async fn attribute_types(&self) -> Result<Vec<AttributeType>> {
        self.read();
        self.inner.attribute_types().await
    }
    async fn object_types(&self) -> Result<Vec<ObjectType>> {
        self.read();
        self.inner.object_types().await
    }
    async fn data_classes(&self) -> Result<Vec<DataClass>> {
        self.read();
        self.inner.data_classes().await
    }
    async fn sensitivity_labels(&self) -> Result<Vec<SensitivityLabel>> {
        self.read();
        self.inner.sensitivity_labels().await
    }
    async fn roles(&self) -> Result<Vec<Role>> {
        self.read();
        self.inner.roles().await
    }
    async fn meta_version(&self) -> Result<i64> {
        self.read();
        self.inner.meta_version().await
    }
    async fn user(&self, id: ObjectId) -> Result<Option<User>> {
        self.read();
        self.inner.user(id).await
    }
    async fn user_by_name(&self, name: &str) -> Result<Option<User>> {
        self.read();
        self.inner.user_by_name(name).await
    }
    async fn user_count(&self) -> Result<u64> {
        self.read();
        self.inner.user_count().await
    }
    async fn users(&self) -> Result<Vec<User>> {
        self.read();
        self.inner.users().await
    }
    async fn group(&self, id: ObjectId) -> Result<Option<Group>> {
        self.read();
        self.inner.group(id).await
    }
    async fn group_by_name(&self, name: &str) -> Result<Option<Group>> {
        self.read();
        self.inner.group_by_name(name).await
    }
    async fn groups(&self) -> Result<Vec<Group>> {
        self.read();
        self.inner.groups().await
    }
    async fn members(&self, group: ObjectId) -> Result<Vec<User>> {
        self.read();
        self.inner.members(group).await
    }
    async fn groups_of(&self, user: ObjectId) -> Result<Vec<Group>> {
        self.read();
        self.inner.groups_of(user).await
    }
    async fn grants_on(&self, on: GrantsOn) -> Result<Vec<Grant>> {
        self.read();
        self.inner.grants_on(on).await
    }
    async fn grants_of_role(&self, role: &str) -> Result<Vec<Grant>> {
        self.read();
        self.inner.grants_of_role(role).await
    }
    async fn query(&self, plan: &Plan, page: Page) -> Result<Vec<ObjectId>> {
        self.read();
        self.inner.query(plan, page).await
    }
    async fn value_counts(
        &self,
        plan: &Plan,
        facet: &Facet,
        limit: u64,
    ) -> Result<Vec<ValueCount>> {
        self.read();
        self.inner.value_counts(plan, facet, limit).await
    }
    async fn count(&self, plan: &Plan) -> Result<u64> {
        self.read();
        self.inner.count(plan).await
    }
    async fn grants_of(&self, grantee: ObjectId) -> Result<Vec<Grant>> {
        self.read();
        self.inner.grants_of(grantee).await
    }
    async fn principal(&self, key_hash: &str, now: Timestamp) -> Result<Option<Principal>> {
        self.read();
        self.inner.principal(key_hash, now).await
    }
    async fn put_session(&self, session: Session) -> Result<()> {
        self.inner.put_session(session).await
    }
    async fn session(&self, key_hash: &str, now: Timestamp) -> Result<Option<Session>> {
        self.read();
        self.inner.session(key_hash, now).await
    }
    async fn delete_session(&self, key_hash: &str) -> Result<()> {
        self.inner.delete_session(key_hash).await
    }
    async fn delete_sessions_of(&self, user: ObjectId) -> Result<u64> {
        self.inner.delete_sessions_of(user).await
    }
    async fn purge_sessions(&self, now: Timestamp) -> Result<u64> {
        self.inner.purge_sessions(now).await
    }
    async fn touch_session(&self, key_hash: &str, now: Timestamp) -> Result<()> {
        self.inner.touch_session(key_hash, now).await
    }
    async fn login_failures(&self, subjects: &[String]) -> Result<Vec<LoginFailures>> {
        self.read();
        self.inner.login_failures(subjects).await
    }
    async fn add_login_failure(
        &self,
        subjects: &[String],
        now: Timestamp,
        restart_before: Timestamp,
    ) -> Result<()> {
        self.inner
            .add_login_failure(subjects, now, restart_before)
            .await
    }
    async fn clear_login_failures(&self, subjects: &[String]) -> Result<()> {
        self.inner.clear_login_failures(subjects).await
    }
    async fn worksheet(&self, id: ObjectId) -> Result<Option<Worksheet>> {
        self.read();
        self.inner.worksheet(id).await
    }
    async fn worksheet_by_name(&self, owner: ObjectId, name: &str) -> Result<Option<Worksheet>> {
        self.read();
        self.inner.worksheet_by_name(owner, name).await
    }
    async fn worksheets(&self, owner: Option<ObjectId>) -> Result<Vec<Worksheet>> {
        self.read();
        self.inner.worksheets(owner).await
    }
    async fn append_system_log(&self, entries: Vec<SystemLogEntry>) -> Result<()> {
        self.inner.append_system_log(entries).await
    }
    async fn system_log(
        &self,
        filter: &SystemLogFilter,
        page: Page,
    ) -> Result<Vec<SystemLogEntry>> {
        self.read();
        self.inner.system_log(filter, page).await
    }
    async fn count_system_log(&self, filter: &SystemLogFilter) -> Result<u64> {
        self.read();
        self.inner.count_system_log(filter).await
    }
    async fn purge_system_log(&self, before: Timestamp) -> Result<u64> {
        self.inner.purge_system_log(before).await
    }
    async fn insert_operation(&self, operation: Operation) -> Result<i64> {
        self.inner.insert_operation(operation).await
    }
    async fn update_operation(&self, operation: &Operation) -> Result<()> {
        self.inner.update_operation(operation).await
    }
    async fn operation(&self, id: i64) -> Result<Option<Operation>> {
        self.inner.operation(id).await
    }
    async fn operations(&self, filter: &OperationFilter) -> Result<Vec<Operation>> {
        self.inner.operations(filter).await
    }
    async fn append_operation_log(
        &self,
        operation: i64,
        lines: Vec<OperationLogLine>,
    ) -> Result<()> {
        self.inner.append_operation_log(operation, lines).await
    }
    async fn operation_log(&self, operation: i64) -> Result<Vec<OperationLogLine>> {
        self.inner.operation_log(operation).await
    }
    async fn put_import_settings(&self, settings: ImportSettings) -> Result<()> {
        self.inner.put_import_settings(settings).await
    }
    async fn import_settings(&self, model: ObjectId) -> Result<Option<ImportSettings>> {
        self.inner.import_settings(model).await
    }
    async fn put_attachment(&self, attachment: Attachment) -> Result<()> {
        self.inner.put_attachment(attachment).await
    }
    async fn attachment(&self, object: ObjectId, name: Option<&str>) -> Result<Option<Attachment>> {
        self.inner.attachment(object, name).await
    }
    async fn attachments(&self, object: ObjectId) -> Result<Vec<AttachmentInfo>> {
        self.inner.attachments(object).await
    }
    async fn all_attachments(&self) -> Result<Vec<AttachmentInfo>> {
        self.inner.all_attachments().await
    }
    async fn notifications_page(&self, after: i64, limit: usize) -> Result<Vec<Notification>> {
        self.inner.notifications_page(after, limit).await
    }
    async fn claim_deliveries(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        limit: usize,
    ) -> Result<Vec<Delivery>> {
        self.inner.claim_deliveries(now, lease_until, limit).await
    }
    async fn deliveries(
        &self,
        state: Option<DeliveryState>,
        limit: usize,
    ) -> Result<Vec<Delivery>> {
        self.inner.deliveries(state, limit).await
    }
    async fn curation_page(&self, after: i64, limit: usize) -> Result<Vec<Curation>> {
        self.inner.curation_page(after, limit).await
    }
    async fn curation_of(&self, objects: &[ObjectId]) -> Result<Vec<Curation>> {
        self.read();
        self.inner.curation_of(objects).await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reads_per_call_stay_few() {
    let store = Arc::new(Counting::default());
    let target = Target::spawn(store.clone()).await;
    let imported = target.import_sample().await;
    // A column with a defining term: the most an entity read needs.
    let path = format!("{}/Sales DB/sales/customer/email", imported.path);
    let resp = target.entity(&path).await;
    let id = resp.ok()["id"]
        .as_str()
        .expect("the column has an id")
        .to_owned();
    assert!(
        !resp.ok()["terms"].as_array().is_none_or(Vec::is_empty),
        "the column has a defining term: {}",
        resp.describe()
    );

    // Warm: the meta model is cached after the first call.
    target.get("/types/listProfiles").await;
    store.take();
    let resp = target.get("/types/listProfiles").await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    assert_eq!(
        store.take(),
        1,
        "an authenticated call finds its caller in one read"
    );

    let resp = target.entity(&id).await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    let reads = store.take();
    assert!(reads <= 3, "GET /entities/{{id}} made {reads} store reads");
    target.shutdown().await;
}
