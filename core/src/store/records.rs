//! The record roles of a [`Store`](super::Store): what users and processes keep beside the
//! catalog's objects, one trait per concern of the [`Catalog`](crate::Catalog), so each
//! concern's records are in one place. [`RecordStore`] is all of them at once.

use async_trait::async_trait;

use crate::error::Result;
use crate::id::ObjectId;
use crate::model::*;
use crate::mql::plan::Page;

/// What the objects concern keeps beside the objects themselves: documents (dashboards,
/// the license), each of a kind, an optional owner and a name.
#[async_trait]
pub trait ObjectRecords: Send + Sync {
    /// The document of that kind, owner and name.
    async fn document(
        &self,
        kind: DocumentKind,
        owner: Option<ObjectId>,
        name: &str,
    ) -> Result<Option<Document>>;
    /// The documents of a kind, by owner (none first) then name.
    async fn documents(&self, kind: DocumentKind) -> Result<Vec<Document>>;
}

/// What the search concern keeps: users' worksheets (saved MQL queries).
#[async_trait]
pub trait SearchRecords: Send + Sync {
    async fn worksheet(&self, id: ObjectId) -> Result<Option<Worksheet>>;
    /// The worksheet of `owner` named `name`, compared case-insensitively
    /// ([`Worksheet::name_key`]).
    async fn worksheet_by_name(&self, owner: ObjectId, name: &str) -> Result<Option<Worksheet>>;
    /// The worksheets of `owner`, or of every user with `None`, sorted by name then id.
    async fn worksheets(&self, owner: Option<ObjectId>) -> Result<Vec<Worksheet>>;
}

/// What the lineage concern keeps: OpenLineage events with the runs they describe.
///
/// Written by [`Op::PutLineageEvent`](super::Op::PutLineageEvent) (a restore:
/// [`Op::PutLineageRun`](super::Op::PutLineageRun)); raw events are purged by age, runs
/// stay.
#[async_trait]
pub trait LineageRecords: Send + Sync {
    /// The run of that id, as its events describe it.
    async fn lineage_run(&self, run_id: &str) -> Result<Option<LineageRun>>;
    /// The runs that pass the filter, newest first (by `state_at`, then `run_id`
    /// descending), at most `filter.limit` (every one with 0).
    async fn lineage_runs(&self, filter: &RunFilter) -> Result<Vec<LineageRun>>;
    /// The stored events of a run, by event time, then digest.
    async fn lineage_events(&self, run_id: &str) -> Result<Vec<LineageEvent>>;
    /// The event of that digest.
    async fn lineage_event(&self, digest: &str) -> Result<Option<LineageEvent>>;
    /// Every stored run in pages, by id: those whose `run_id` is greater than
    /// `after_run_id` (`""` for the first page), at most `limit` (what a backup reads:
    /// runs are never purged, so there may be more than memory holds).
    async fn lineage_runs_page(&self, after_run_id: &str, limit: usize) -> Result<Vec<LineageRun>>;
    /// Every stored event in pages, by digest: those whose digest is greater than
    /// `after_digest` (`""` for the first page), at most `limit` (what a backup reads).
    async fn lineage_events_page(
        &self,
        after_digest: &str,
        limit: usize,
    ) -> Result<Vec<LineageEvent>>;
    /// Removes the events received before `received_before` (`received_at <
    /// received_before`), keeping their runs; returns how many.
    async fn purge_lineage_events(&self, received_before: Timestamp) -> Result<u64>;
}

/// What the governance concern keeps beside the objects: the curation of objects
/// (endorsements, certifications, comments, warnings, watches), written by
/// [`Op`](super::Op)s.
#[async_trait]
pub trait GovernanceRecords: Send + Sync {
    /// The curation of an object, by kind, then time, then id.
    async fn curation(&self, object: ObjectId) -> Result<Vec<Curation>>;
    /// The curation of several objects at once (a page of query results), by object,
    /// then as [`GovernanceRecords::curation`] orders each object's.
    async fn curation_of(&self, objects: &[ObjectId]) -> Result<Vec<Curation>>;
    /// One curation entry by id.
    async fn curation_entry(&self, id: i64) -> Result<Option<Curation>>;
    /// At most `limit` curation entries of every object with an id above `after`, by id
    /// (a backup).
    async fn curation_page(&self, after: i64, limit: usize) -> Result<Vec<Curation>>;
}

/// What the operations concern keeps: operations with their logs, import settings and
/// attachments, and the system log.
///
/// Operations are written outside the batches of `write`: a running operation's record
/// changes while it runs, from the process that runs it. Import settings and
/// attachments are deleted with their object. The system log holds one entry per API
/// call; entries are appended in batches by a background task of each server process
/// (several processes over one database append to the same log) and are never changed,
/// only purged by age.
#[async_trait]
pub trait OperationRecords: Send + Sync {
    /// Appends the entries (each run through [`prepare_log_entry`](super::prepare_log_entry))
    /// in one transaction.
    async fn append_system_log(&self, entries: Vec<SystemLogEntry>) -> Result<()>;
    /// The entries that pass the filter, newest first (by time, then the latest
    /// appended first among equal times), the page cut out.
    async fn system_log(&self, filter: &SystemLogFilter, page: Page)
    -> Result<Vec<SystemLogEntry>>;
    /// How many entries pass the filter.
    async fn count_system_log(&self, filter: &SystemLogFilter) -> Result<u64>;
    /// Removes the entries older than `before` (`time < before`); returns how many.
    async fn purge_system_log(&self, before: Timestamp) -> Result<u64>;
    /// Inserts an operation (its `id` is ignored) and answers the id the store gave it
    /// from the id space [`OPERATION_IDS`], higher than every id given before.
    async fn insert_operation(&self, operation: Operation) -> Result<i64>;
    /// Replaces the operation of `operation.id`; NOT_FOUND when there is none.
    async fn update_operation(&self, operation: &Operation) -> Result<()>;
    async fn operation(&self, id: i64) -> Result<Option<Operation>>;
    /// The operations that pass the filter, newest (highest id) first, at most
    /// `filter.limit`.
    async fn operations(&self, filter: &OperationFilter) -> Result<Vec<Operation>>;
    /// Appends lines to an operation's log; their `seq` must continue it.
    async fn append_operation_log(
        &self,
        operation: i64,
        lines: Vec<OperationLogLine>,
    ) -> Result<()>;
    /// The whole log of an operation, by `seq`.
    async fn operation_log(&self, operation: i64) -> Result<Vec<OperationLogLine>>;
    /// Sets a model's import settings, replacing those it had.
    async fn put_import_settings(&self, settings: ImportSettings) -> Result<()>;
    async fn import_settings(&self, model: ObjectId) -> Result<Option<ImportSettings>>;
    /// Attaches a file to an object, replacing the object's attachment of the same name.
    async fn put_attachment(&self, attachment: Attachment) -> Result<()>;
    /// The attachment of that name, or the newest of the object with `None`.
    async fn attachment(&self, object: ObjectId, name: Option<&str>) -> Result<Option<Attachment>>;
    /// The object's attachments, newest first, without content.
    async fn attachments(&self, object: ObjectId) -> Result<Vec<AttachmentInfo>>;
    /// Every attachment of the store without content, by object then name (a backup).
    async fn all_attachments(&self) -> Result<Vec<AttachmentInfo>>;
}

/// What the notifications concern keeps: users' notifications and their deliveries
/// (webhooks, e-mail), claimed by one sender at a time.
#[async_trait]
pub trait NotificationRecords: Send + Sync {
    /// A user's notifications, newest first (by time, then id), only the unread ones when
    /// asked, at most `limit`.
    async fn notifications(
        &self,
        user: ObjectId,
        unread_only: bool,
        limit: u32,
    ) -> Result<Vec<Notification>>;
    /// One notification by id.
    async fn notification(&self, id: i64) -> Result<Option<Notification>>;
    /// Claims at most `limit` pending deliveries due at `now` (by due time, then id) for
    /// one sender: their `next_attempt_at` moves to `lease_until`, so no other sender
    /// (in this process or another over the same database) claims them before the lease
    /// runs out. Answers them as claimed, by id.
    async fn claim_deliveries(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        limit: usize,
    ) -> Result<Vec<Delivery>>;
    /// The deliveries in a state (any with `None`), newest (highest id) first, at most
    /// `limit`.
    async fn deliveries(&self, state: Option<DeliveryState>, limit: usize)
    -> Result<Vec<Delivery>>;
    /// At most `limit` notifications of every user with an id above `after`, by id (a
    /// backup).
    async fn notifications_page(&self, after: i64, limit: usize) -> Result<Vec<Notification>>;
}

/// What the history concern reads: the revisions of the catalog (who wrote each write
/// transaction, and when) and the images of the rows they replaced (see
/// [`crate::model::Versioned`]). Every write transaction that moves the catalog's
/// version records its revision and, for each row of the kept tables it replaced or
/// removed, the image it had, in the same transaction; a row written again with the same
/// values in one transaction, or a row written and removed in one, leaves no image.
/// [`Op::ClearAll`](super::Op::ClearAll) forgets the history with everything else.
#[async_trait]
pub trait HistoryRecords: Send + Sync {
    /// The oldest and the newest revision kept.
    async fn history_span(&self) -> Result<HistorySpan>;
    /// The revision of that version, if it is kept.
    async fn revision(&self, version: i64) -> Result<Option<Revision>>;
    /// The newest revision committed at or before `at`, if one is kept.
    async fn revision_at(&self, at: Timestamp) -> Result<Option<Revision>>;
    /// The revisions of these versions that are kept, by version.
    async fn revisions(&self, versions: &[i64]) -> Result<Vec<Revision>>;
    /// Every kept image of the object's row and of what hangs on it, at most `limit` of
    /// each list, the newest kept when there are more ([`ObjectHistory::truncated`]).
    async fn object_history(&self, id: ObjectId, limit: usize) -> Result<ObjectHistory>;
    /// What [`ObjectStore::entity_read`](super::ObjectStore::entity_read) would have
    /// answered at `version` (the object, its attribute values, the edges from it, its
    /// tags, classifications and sensitivity labels; no profiling): from the images
    /// current at that version. The caller checks that the version is kept.
    async fn entity_as_of(
        &self,
        id: ObjectId,
        version: i64,
    ) -> Result<(Option<Object>, super::Details)>;
    /// The edges from and to the object that were current at `version`, sorted.
    async fn edges_as_of(&self, id: ObjectId, version: i64) -> Result<Vec<Edge>>;
    /// What [`HistoryRecords::entity_as_of`] answers for each of these objects, in the
    /// order given.
    async fn entities_as_of(
        &self,
        ids: &[ObjectId],
        version: i64,
    ) -> Result<Vec<(Option<Object>, super::Details)>>;
    /// What [`HistoryRecords::entities_as_of`] answers for each of these objects at
    /// `first` and at `second`, in the order given: one read for both (a compare).
    async fn entities_at_both(
        &self,
        ids: &[ObjectId],
        first: i64,
        second: i64,
    ) -> Result<Vec<super::EntityPair>> {
        let at_first = self.entities_as_of(ids, first).await?;
        let at_second = self.entities_as_of(ids, second).await?;
        Ok(at_first.into_iter().zip(at_second).collect())
    }
    /// What [`ObjectStore::objects_with_details`](super::ObjectStore::objects_with_details)
    /// would have answered at `version`: the objects of these ids that existed then,
    /// sorted by id, and what hung on them then (edges either way; profiling, which is
    /// not kept, as it is now). The caller checks that the version is kept.
    async fn objects_with_details_as_of(
        &self,
        ids: &[ObjectId],
        version: i64,
    ) -> Result<(Vec<Object>, super::Details)>;
    /// The objects of the model (its number) whose row, or a row hanging on them (an
    /// attribute value, a tag, a classification, a sensitivity label, an edge from them),
    /// a revision after `from` and up to `to` wrote, replaced or removed: by id, at most
    /// `limit` (the smallest ids).
    async fn objects_changed_between(
        &self,
        model: i64,
        from: i64,
        to: i64,
        limit: usize,
    ) -> Result<Vec<ObjectId>>;
    /// The objects, in every model, whose row or a row hanging on them (an attribute
    /// value, a tag, a classification, a sensitivity label, an edge from or to them) a
    /// revision after `after` wrote, replaced or removed: by id, at most `limit` (the
    /// smallest ids). What an MQL query as of `after` must read as it was
    /// (`catalog/search/past.rs`); everything else reads then as it reads now.
    async fn objects_changed_after(&self, after: i64, limit: usize) -> Result<Vec<ObjectId>>;
    /// The versions of the model (its number) that are kept, newest first: those
    /// numbered below `before` when given, at most `limit`.
    async fn model_versions(
        &self,
        model: i64,
        before: Option<i64>,
        limit: usize,
    ) -> Result<Vec<ModelVersion>>;
    /// Forgets the history older than the revision `floor`: the kept images no version
    /// from `floor` on reads (those replaced at or before it) and the model versions
    /// before it; the oldest revision [`HistoryRecords::history_span`] answers becomes
    /// `floor` (never goes back). Answers how many images went. A `floor` that is no kept
    /// revision, or is older than the history kept, changes nothing.
    async fn purge_history(&self, floor: i64) -> Result<u64>;
    /// Of every model with at least `keep` versions, the revision of its `keep`-th newest
    /// one; the oldest of those (`None` when no model has that many).
    async fn versions_floor(&self, keep: usize) -> Result<Option<i64>>;
    /// Every kept image of the grants of server-wide roles, current and past, oldest
    /// first: at most `limit`, the newest, and whether some were left out.
    async fn server_grant_history(&self, limit: usize) -> Result<(Vec<Versioned<Grant>>, bool)>;
    /// Forgets the kept images of curation and grants replaced or removed at or before
    /// the revision `floor` (their own retention, longer than the models'); answers how
    /// many went.
    async fn purge_curation_history(&self, floor: i64) -> Result<u64>;
    /// What [`HistoryRecords::object_history`] answers of each of these objects, whole
    /// (no list cut), in the order given (a backup).
    async fn objects_history(&self, ids: &[ObjectId]) -> Result<Vec<ObjectHistory>>;
    /// At most `limit` objects above `after`, by id, that are gone but whose rows are kept
    /// (deleted since history began; a backup).
    async fn gone_with_history(
        &self,
        after: Option<ObjectId>,
        limit: usize,
    ) -> Result<Vec<ObjectId>>;
    /// At most `limit` kept revisions after the version `after`, by version (a backup).
    async fn revisions_after(&self, after: i64, limit: usize) -> Result<Vec<Revision>>;
    /// Every kept model version, by revision (a backup).
    async fn all_model_versions(&self) -> Result<Vec<ModelVersion>>;
}

/// Every record role at once: what users and processes keep beside the catalog's
/// objects. A backend implements each role; the blanket implementation makes it a
/// `RecordStore`.
pub trait RecordStore:
    ObjectRecords
    + SearchRecords
    + LineageRecords
    + GovernanceRecords
    + OperationRecords
    + NotificationRecords
    + HistoryRecords
{
}

impl<T> RecordStore for T where
    T: ObjectRecords
        + SearchRecords
        + LineageRecords
        + GovernanceRecords
        + OperationRecords
        + NotificationRecords
        + HistoryRecords
{
}
