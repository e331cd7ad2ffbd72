//! The Catalog: the one service every front end (HTTP, CLI) calls. It resolves
//! identifiers, checks authorization, and turns requests into store reads and batches.
//!
//! # Concerns
//! Its behaviour is split by concern, one module and one handle type each; a handle is a
//! borrow of the catalog made by the method of the concern's name, so a call reads
//! `catalog.lineage().lineage_operations(..)`:
//!
//! | concern | module | handle | owns |
//! |---|---|---|---|
//! | objects and attributes | `objects/` | [`Objects`] | entities, the repository tree and folders, attribute values, the meta model, model import and export, dashboards and the license |
//! | search | `search/` | [`Search`] | MQL (validate, upgrade, run, count), an entity's selected attributes and relationships, value counts, worksheets |
//! | lineage | `lineage/` | [`Lineage`] | lineage operations, data mapping scripts, OpenLineage events and runs |
//! | governance | `governance/` | [`Governance`] | data classes, sensitivity labels, profiling, the glossary and semantic links, entity relationships, curation and workflow |
//! | identity | `identity/` | [`Identity`] | the first administrator, login and sessions, users, groups, roles and grants |
//! | operations | `operations/` | [`Operations`] | import settings, attachments, background imports and their logs, backup and restore, the system log |
//! | notifications | `notifications/` | [`Notifications`] | users' notifications and their deliveries |
//! | history | `history/` | [`History`] | an object's changes, entities as of a time or a version |
//!
//! What every concern uses stays on [`Catalog`] in this module: construction, the
//! configuration, the store, the meta model, an object's path and context, and sight
//! (`visibility.rs`). The store's record roles follow the same concerns
//! ([`RecordStore`](crate::store::RecordStore)).
//!
//! Authorization by construction: every public method a front end may call takes the
//! [`Caller`](crate::auth::Caller) that only [`Identity::authenticate`] makes, except the
//! way in ([`Identity::bootstrap`], [`Identity::login`], [`Identity::login_external`],
//! [`Identity::authenticate`], [`Identity::logout`]) and [`Catalog::ping`]. What the
//! server itself does (the system log, the outbox, the operations sweeper, the command
//! line's operator) is on [`ServerCatalog`] (`server_side.rs`), which request handlers
//! never hold. Objects a client names are reached only through [`Catalog::find`]
//! (`visibility.rs`), which answers what the caller may see or "not found"; the store and
//! the unchecked helpers stay inside the crate.

mod governance;
mod history;
mod identity;
mod lineage;
mod notifications;
mod objects;
mod operations;
mod search;
mod server_side;
mod visibility;

use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

pub use governance::Governance;
pub use governance::classification::{
    DataClassUpdate, LabelDefinition, ObjectLabels, ProfilingRecord, ProfilingUpdate,
};
pub use governance::curation::{CurationEntry, DRAFT, MAX_CURATION_TEXT_CHARS, ObjectCuration};
pub use governance::semantics::{GlossaryTerm, GlossaryTermReference, TermChoice, TermRequest};
pub use history::{
    AsOf, Change, CompareCounts, Comparison, ConfigurationPin, Diff, GrantChanges, History,
    ModelVersions, ObjectChanges, ObjectDiff, PIN_ATTRIBUTE, PinnedModel, UpstreamChange,
    UpstreamChanges, VersionView,
};
pub use identity::Identity;
pub use identity::auth::Bootstrap;
pub use identity::external_login::{ExternalIdentity, TokenVerifier, map_groups, requested_link};
pub use identity::grants::{
    CsvImportSummary, GLOBAL_ROLES_CSV_HEADER, Grantee, GranteeKind, GranteeRef,
    OBJECT_ROLES_CSV_HEADER, RoleDefinition, RoleGrant,
};
pub use identity::groups::{GroupDetails, GroupUpdate, NewGroup};
pub use identity::users::{MIN_PASSWORD_CHARS, NewUser, UserUpdate};
pub use lineage::Lineage;
pub use lineage::data_mapping::{MAX_MAPPINGS, MappingImport, SCRIPT_HEADER};
pub use lineage::flow::{
    LineageOperation, LineageOperations, LineageRequest, MAX_LINEAGE_DEPTH, MAX_LINEAGE_FAN_OUT,
    MAX_LINEAGE_OPERATIONS,
};
pub use lineage::openlineage::{EventAnswer, MAX_RUNS, RunRecord};
pub use notifications::Notifications;
pub use notifications::{MAX_NOTIFICATIONS, NotificationView, retry_wait};
pub use objects::Objects;
pub use objects::attributes::{AttributeSetting, WRITABLE_SYSTEM_ATTRIBUTES};
pub use objects::browse::{BrowseNode, FolderRequest};
pub use objects::documents::{
    DashboardImport, LicenseRecord, MAX_DASHBOARD_BYTES, MAX_DASHBOARD_NAME_CHARS,
    MAX_DASHBOARD_WIDGETS,
};
pub use objects::meta_model::{DefinitionCounts, META_XML_FORMAT_VERSION, MetaImportSummary};
pub use objects::model_import::{ImportOptions, ImportSummary};
pub use objects::model_io::ExportOptions;
pub use objects::types::{AttributeTypeInfo, GroupTypeInfo, ObjectTypeInfo};
pub use operations::Operations;
pub use operations::imports::{ImportModelRequest, MAX_LISTED};
pub use operations::system_log::{DEFAULT_LOG_PAGE_SIZE, LogPage, LogRead, MAX_LOG_PAGE_SIZE};
pub use search::Search;
pub use search::execute::{
    AttributeValueCounts, CountedValue, MqlEntity, PageRequest, QueryResult,
};
pub use search::query::{Explain, MqlQuery, QueryValidation, UpgradedQuery, mql_version};
pub use search::worksheets::{MAX_WORKSHEET_NAME_CHARS, NewWorksheet, WorksheetRef};
pub use server_side::{Backlog, ServerCatalog};

use crate::archive::ArchiveLimits;
use crate::auth::Caller;
use crate::error::{Error, Result};
use crate::id::{ObjectId, REPOSITORY_MODEL};
use crate::import::Importers;
use crate::model::{Capability, MetaModel, Object, ObjectKind};
use crate::store::{Op, Store};
use visibility::Visible;

/// Settings of the catalog that configuration can change.
#[derive(Debug, Clone)]
pub struct CatalogConfig {
    /// How long an API key stays valid after login, however much it is used.
    pub login_timeout: Duration,
    /// How long an API key stays valid without being used.
    pub idle_timeout: Duration,
    pub archive_limits: ArchiveLimits,
    /// The importers by format: the built-in one and the configured plugins.
    pub importers: Importers,
    /// How often a running operation renews its heartbeat and writes its log.
    pub operation_heartbeat: Duration,
    /// A running operation whose heartbeat is older lost its process and is failed.
    pub operation_stale_after: Duration,
    /// Where notifications go beyond the API: webhooks and e-mail.
    pub delivery: DeliveryConfig,
    /// Where an importer's URL parameters may point.
    pub import_reach: crate::import::Reach,
    /// Counts the operations this process ended (the server's metrics); clones share it.
    pub operations_ended: OperationsEnded,
    /// How large one OpenLineage event may be (`[openlineage]`).
    pub lineage_limits: crate::openlineage::EventLimits,
}

/// How many operations this process ended, succeeded or failed (the interrupted ones it
/// marked failed included); clones share the counts.
#[derive(Debug, Clone, Default)]
pub struct OperationsEnded(Arc<[std::sync::atomic::AtomicU64; 2]>);

impl OperationsEnded {
    fn slot(state: crate::model::OperationState) -> Option<usize> {
        match state {
            crate::model::OperationState::Succeeded => Some(0),
            crate::model::OperationState::Failed => Some(1),
            crate::model::OperationState::Running => None,
        }
    }

    pub(crate) fn count(&self, state: crate::model::OperationState) {
        if let Some(slot) = Self::slot(state) {
            self.0[slot].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        }
    }

    /// The operations that ended in `state` (none ends `RUNNING`).
    pub fn get(&self, state: crate::model::OperationState) -> u64 {
        Self::slot(state).map_or(0, |slot| {
            self.0[slot].load(std::sync::atomic::Ordering::Relaxed)
        })
    }
}

/// Where notifications are delivered, and how often a failed delivery is tried again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeliveryConfig {
    /// The names of the configured webhooks: every notification event goes to each.
    pub webhooks: Vec<String>,
    /// Whether each notified user with an e-mail address is sent one.
    pub email: bool,
    /// The wait before the first retry; each further retry waits twice as long.
    pub retry_initial: Duration,
    /// The longest wait between two attempts.
    pub retry_max: Duration,
    /// Attempts before a delivery is given up as failed.
    pub max_attempts: u32,
}

impl Default for DeliveryConfig {
    fn default() -> Self {
        Self {
            webhooks: Vec::new(),
            email: false,
            retry_initial: Duration::from_secs(10),
            retry_max: Duration::from_secs(60 * 60),
            max_attempts: 12,
        }
    }
}

impl Default for CatalogConfig {
    fn default() -> Self {
        let archive_limits = ArchiveLimits::default();
        Self {
            login_timeout: Duration::from_secs(12 * 60 * 60),
            idle_timeout: Duration::from_secs(30 * 60),
            archive_limits,
            importers: Importers::builtin(archive_limits),
            operation_heartbeat: Duration::from_secs(2),
            operation_stale_after: Duration::from_secs(60),
            delivery: DeliveryConfig::default(),
            import_reach: crate::import::Reach::default(),
            operations_ended: OperationsEnded::default(),
            lineage_limits: crate::openlineage::EventLimits::default(),
        }
    }
}

/// A meta model and the
/// [`DefinitionStore::meta_version`](crate::store::DefinitionStore::meta_version) it was
/// read at.
type CachedMeta = (i64, Arc<MetaModel>);

/// The catalog service over one store. A clone shares everything (one count: the
/// router clones it for every request).
#[derive(Debug, Clone)]
pub struct Catalog(Arc<Shared>);

/// What the clones of a [`Catalog`] share; its methods reach it through `Deref`.
#[derive(Debug)]
pub struct Shared {
    store: Arc<dyn Store>,
    config: CatalogConfig,
    /// The meta model with the store version it was read at.
    meta: RwLock<Option<CachedMeta>>,
    /// The operations this process runs, which are alive whatever their heartbeat says
    /// (on SQLite a long import's write holds the heartbeat's write back).
    running_here: std::sync::Mutex<std::collections::HashSet<i64>>,
    /// The sessions (by key hash) whose use is being recorded, so a busy key sends one
    /// such write at a time however many calls it makes meanwhile.
    touching: std::sync::Mutex<std::collections::HashSet<String>>,
    /// The callers of keys seen lately (by key hash), each trusted again on every call
    /// by [`SessionStore::session_check`](crate::store::SessionStore::session_check).
    callers: identity::auth::KnownCallers,
    /// The databases harvested into models, which OpenLineage datasets are matched to.
    harvests: lineage::openlineage::HarvestCache,
    /// The grant chains of object-role callers' entity reads, by repository version.
    chains: identity::grants::KeptChains,
    /// The repository's tree sight follows, kept by repository version.
    tree: visibility::KeptTree,
    /// What changed since the versions MQL queries read as of lately.
    pasts: search::past::KeptPasts,
}

impl std::ops::Deref for Catalog {
    type Target = Shared;
    fn deref(&self) -> &Shared {
        &self.0
    }
}

impl Catalog {
    pub fn new(store: Arc<dyn Store>, config: CatalogConfig) -> Self {
        Self(Arc::new(Shared {
            store,
            config,
            meta: RwLock::default(),
            running_here: std::sync::Mutex::default(),
            touching: std::sync::Mutex::default(),
            callers: identity::auth::KnownCallers::default(),
            harvests: lineage::openlineage::HarvestCache::default(),
            chains: identity::grants::KeptChains::default(),
            tree: visibility::KeptTree::default(),
            pasts: search::past::KeptPasts::default(),
        }))
    }

    pub fn config(&self) -> &CatalogConfig {
        &self.config
    }

    /// Applies the ops as one batch written by `author`. Every write of the catalog goes
    /// through here or through [`Catalog::begin`], naming its author, which the store
    /// keeps with the write's revision (`tests/authors.rs` holds the catalog to it).
    pub(crate) async fn write(&self, author: crate::model::Author, ops: Vec<Op>) -> Result<()> {
        self.store.apply(crate::store::Batch::by(author, ops)).await
    }

    /// Opens a write transaction of `author` (see [`Catalog::write`]).
    pub(crate) async fn begin(
        &self,
        author: crate::model::Author,
    ) -> Result<Box<dyn crate::store::WriteTx + '_>> {
        self.store.begin(author).await
    }

    /// Answers the name of the storage backend once the store has answered a trivial
    /// read; for health checks, which need no key.
    pub async fn ping(&self) -> Result<&'static str> {
        self.store.ping().await?;
        Ok(self.store.backend())
    }

    /// The meta model as the store holds it now: the built-in one plus attribute types
    /// added at run time.
    pub(crate) async fn meta_model(&self) -> Result<Arc<MetaModel>> {
        let version = self.store.meta_version().await?;
        self.meta_model_at(version).await
    }

    /// The meta model as of the version read with the caller's key: no store read
    /// unless the meta model changed since it was cached (in this process or another
    /// one over the same database).
    pub(crate) async fn meta_model_for(&self, caller: &Caller) -> Result<Arc<MetaModel>> {
        self.meta_model_at(caller.meta_version()).await
    }

    async fn meta_model_at(&self, version: i64) -> Result<Arc<MetaModel>> {
        if let Some((cached, meta)) = self
            .meta
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .as_ref()
            && *cached == version
        {
            return Ok(Arc::clone(meta));
        }
        static BUILTIN: std::sync::LazyLock<MetaModel> =
            std::sync::LazyLock::new(MetaModel::builtin);
        let mut meta = BUILTIN.clone();
        // Read after `version` was: what is read is at least that version, so the cache
        // never holds something older than its tag.
        for added in self.store.attribute_types().await? {
            match meta
                .attribute_types
                .iter_mut()
                .find(|a| a.name == added.name && a.kind == added.kind)
            {
                Some(existing) => *existing = added,
                None => meta.attribute_types.push(added),
            }
        }
        for added in self.store.object_types().await? {
            if !meta.profiles.iter().any(|p| p.name == added.name.profile) {
                meta.profiles.push(crate::model::Profile {
                    name: added.name.profile.clone(),
                    description: String::new(),
                });
            }
            match meta.object_types.iter_mut().find(|t| t.name == added.name) {
                Some(existing) => *existing = added,
                None => meta.object_types.push(added),
            }
        }
        let meta = Arc::new(meta);
        *self.meta.write().unwrap_or_else(PoisonError::into_inner) =
            Some((version, Arc::clone(&meta)));
        Ok(meta)
    }

    /// Reserves the id of a new repository object named `name` under `parent` (`None`:
    /// the root), refusing with CONFLICT a name a sibling already has; `hint` ends that
    /// message. The store's unique index still guards against a concurrent creation.
    ///
    /// A taken name never tells of a hidden object: under a visible parent every
    /// sibling is visible too (sight runs down the tree), and creating at the root takes
    /// View Metadata on the whole repository, whatever the name.
    #[allow(clippy::disallowed_methods)]
    pub(crate) async fn new_repository_id(
        &self,
        caller: &Caller,
        parent: Option<&Visible>,
        name: &str,
        hint: &str,
    ) -> Result<ObjectId> {
        if parent.is_none() {
            caller.require(Capability::ViewMetadata)?;
        }
        if self
            .store
            .child_by_name(REPOSITORY_MODEL, parent.map(|p| p.id), name)
            .await?
            .is_some()
        {
            return Err(Error::conflict(format!(
                "an object named '{name}' already exists there{hint}"
            )));
        }
        Ok(ObjectId::repository(
            self.store.reserve_ids(REPOSITORY_MODEL, 1).await?,
        ))
    }

    /// The repository path of a repository object, e.g. `/Sales/Warehouse`, and the
    /// top-level object it starts at (to a caller, a path is [`Catalog::shown_path`]).
    pub(crate) async fn path_and_top(&self, object: &Object) -> Result<(String, Object)> {
        let mut names = vec![object.name.clone()];
        let mut top = object.clone();
        let mut guard = 0;
        while let Some(id) = top.parent {
            let parent = self.stored_object(id).await?.ok_or_else(|| {
                Error::internal(format!("object {} has a missing parent {id}", object.id))
            })?;
            names.push(parent.name.clone());
            top = parent;
            guard += 1;
            if guard > 10_000 {
                return Err(Error::internal(format!(
                    "the ancestry of {} has a cycle",
                    object.id
                )));
            }
        }
        names.reverse();
        Ok((format!("/{}", names.join("/")), top))
    }

    /// The ancestors of an object from the repository root down to its parent: its
    /// Context. A model object's context runs through its model's folders and model.
    pub(crate) async fn context(&self, object: &Object) -> Result<Vec<Object>> {
        let mut chain = Vec::new();
        let mut next = object.parent;
        if next.is_none() && object.kind == ObjectKind::ModelObject {
            next = Some(ObjectId::repository(object.id.model));
        }
        while let Some(id) = next {
            if chain.len() > 10_000 {
                return Err(Error::internal(format!(
                    "the ancestry of {} has a cycle",
                    object.id
                )));
            }
            let parent = self.stored_object(id).await?.ok_or_else(|| {
                Error::internal(format!("object {} has a missing ancestor {id}", object.id))
            })?;
            next = match parent.parent {
                None if parent.kind == ObjectKind::ModelObject => {
                    Some(ObjectId::repository(parent.id.model))
                }
                other => other,
            };
            chain.push(parent);
        }
        chain.reverse();
        Ok(chain)
    }
}
