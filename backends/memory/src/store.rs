//! [`MemoryStore`]'s [`Store`] impl, one block per role trait: every method over the
//! locked state, the operations and the system log.

use std::ops::Bound;
use std::sync::{Mutex, RwLock};

use async_trait::async_trait;
use lore_core::error::{Error, Result};
use lore_core::id::ObjectId;
use lore_core::model::{
    Attachment, AttachmentInfo, AttributeType, Curation, DataClass, Delivery, DeliveryState,
    Document, DocumentKind, Edge, EdgeKind, ExternalLink, Grant, Group, ImportSettings,
    LineageBounds, LineageEvent, LineageRun, LineageWalk, LoginFailures, Membership, Notification,
    OPERATION_IDS, Object, ObjectKind, ObjectType, Operation, OperationFilter, OperationLogLine,
    PrintedObject, Role, RunFilter, SensitivityLabel, Session, SystemLogEntry, SystemLogFilter,
    Timestamp, User, Worksheet,
};
use lore_core::mql::eval;
use lore_core::mql::plan::{Facet, Page, Plan, ValueCount};
use lore_core::store::{
    AccessStore, Batch, DefinitionStore, Details, EntityRead, GovernanceRecords, GrantsOn,
    LineageRecords, NotificationRecords, ObjectRecords, ObjectStore, Op, OperationRecords,
    Principal, Scope, SearchRecords, SessionCheck, SessionStore, Store, StoreBase, micros,
    prepare_log_entry, prepare_log_line, prepare_operation, prepare_session,
};

use crate::MemoryStore;
use crate::state::{MIN_GRANT, MIN_ID, user_key};

#[async_trait]
impl StoreBase for MemoryStore {
    fn backend(&self) -> &'static str {
        "memory"
    }

    async fn ping(&self) -> Result<()> {
        self.read().map(|_| ())
    }

    async fn reserve_ids(&self, model: i64, count: u64) -> Result<i64> {
        self.writable()?;
        let mut sequences = self.sequences()?;
        let next = sequences.entry(model).or_insert(1);
        let first = *next;
        let after = i64::try_from(count)
            .ok()
            .and_then(|count| first.checked_add(count))
            .ok_or_else(|| {
                Error::invalid(format!(
                    "cannot reserve {count} more ids in the id space of model {model}"
                ))
            })?;
        *next = after;
        Ok(first)
    }

    async fn apply(&self, batch: Batch) -> Result<()> {
        self.apply_batch(batch)
    }

    async fn snapshot(&self) -> Result<std::sync::Arc<dyn Store>> {
        // Every lock at once, so the copy is one moment of the store.
        let state = self.read()?;
        let operations = self.ops()?;
        let sequences = self.sequences()?;
        let system_log = self.log()?;
        Ok(std::sync::Arc::new(MemoryStore {
            state: RwLock::new(state.clone()),
            sequences: Mutex::new(sequences.clone()),
            system_log: RwLock::new(system_log.clone()),
            operations: RwLock::new(operations.clone()),
            read_only: true,
        }))
    }

    async fn id_sequences(&self) -> Result<Vec<(i64, i64)>> {
        let sequences = self.sequences()?;
        let mut all: Vec<(i64, i64)> = sequences.iter().map(|(s, n)| (*s, *n)).collect();
        all.sort_unstable();
        Ok(all)
    }
}

#[async_trait]
impl ObjectStore for MemoryStore {
    async fn object(&self, id: ObjectId) -> Result<Option<Object>> {
        Ok(self.read()?.objects.get(&id).cloned())
    }

    async fn object_by_stable_id(&self, stable_id: &str) -> Result<Option<Object>> {
        let state = self.read()?;
        Ok(state
            .by_stable_id
            .get(stable_id)
            .and_then(|id| state.objects.get(id))
            .cloned())
    }

    async fn child_by_name(
        &self,
        model: i64,
        parent: Option<ObjectId>,
        name: &str,
    ) -> Result<Option<Object>> {
        let state = self.read()?;
        let found = state
            .children
            .range((model, parent, name.to_owned(), MIN_ID)..)
            .next()
            .filter(|(m, p, n, _)| *m == model && *p == parent && n == name)
            .and_then(|(_, _, _, id)| state.objects.get(id))
            .cloned();
        Ok(found)
    }

    async fn children(&self, model: i64, parent: Option<ObjectId>) -> Result<Vec<Object>> {
        let state = self.read()?;
        Ok(state
            .children
            .range((model, parent, String::new(), MIN_ID)..)
            .take_while(|(m, p, _, _)| *m == model && *p == parent)
            .filter_map(|(_, _, _, id)| state.objects.get(id))
            .cloned()
            .collect())
    }

    async fn model_objects(&self, model: i64) -> Result<Vec<Object>> {
        Ok(self.read()?.model_range(model).cloned().collect())
    }

    async fn objects_of_kind(&self, kind: ObjectKind) -> Result<Vec<Object>> {
        let state = self.read()?;
        Ok(state
            .by_kind
            .get(&kind)
            .into_iter()
            .flatten()
            .filter_map(|(_, id)| state.objects.get(id))
            .cloned()
            .collect())
    }

    async fn details(&self, scope: Scope) -> Result<Details> {
        let state = self.read()?;
        Ok(match scope {
            Scope::Objects(ids) => state.objects_details(&ids),
            Scope::Model(model) => state.model_details(model),
        })
    }

    async fn model_objects_page(
        &self,
        model: i64,
        after: Option<i64>,
        limit: usize,
    ) -> Result<Vec<Object>> {
        let state = self.read()?;
        Ok(state.model_page(model, after, limit).cloned().collect())
    }

    async fn model_prints_page(
        &self,
        model: i64,
        after: Option<i64>,
        limit: usize,
    ) -> Result<Vec<PrintedObject>> {
        let state = self.read()?;
        Ok(state
            .model_page(model, after, limit)
            .map(|o| PrintedObject {
                id: o.id,
                native_id: o.native_id.clone(),
                parent: o.parent,
                created_at: o.created_at,
                print: state.prints.get(&o.id).copied(),
            })
            .collect())
    }

    async fn objects(&self, ids: &[ObjectId]) -> Result<Vec<Object>> {
        Ok(self.read()?.objects_of(ids))
    }

    async fn query(&self, plan: &Plan, page: Page) -> Result<Vec<ObjectId>> {
        let state = self.read_for(plan.as_of)?;
        let state = &*state;
        Ok(eval::run(plan, state, state.objects.values(), Some(page)))
    }

    async fn count(&self, plan: &Plan) -> Result<u64> {
        let state = self.read_for(plan.as_of)?;
        let state = &*state;
        let condition = plan.condition();
        Ok(state
            .objects
            .values()
            .filter(|o| eval::holds(&condition, state, eval::Row::Object(o)))
            .count() as u64)
    }

    async fn value_counts(
        &self,
        plan: &Plan,
        facets: &[Facet],
        limit: u64,
    ) -> Result<Vec<Vec<ValueCount>>> {
        let state = self.read_for(plan.as_of)?;
        let state = &*state;
        Ok(facets
            .iter()
            .map(|facet| eval::value_counts(plan, state, state.objects.values(), facet, limit))
            .collect())
    }

    async fn objects_with_details(&self, ids: &[ObjectId]) -> Result<(Vec<Object>, Details)> {
        let state = self.read()?;
        Ok((state.objects_of(ids), state.objects_details(ids)))
    }

    async fn entity_read(
        &self,
        id: ObjectId,
        key: Option<(&str, Timestamp)>,
    ) -> Result<EntityRead> {
        let state = self.read()?;
        let mut details = state.objects_details(&[id]);
        details.edges.retain(|e| e.source == id);
        details.labels.clear();
        details.profiling.clear();
        Ok(EntityRead {
            object: state.objects_of(&[id]).into_iter().next(),
            details,
            check: key.and_then(|(key_hash, now)| state.session_check(key_hash, now)),
            // Reading the tree again costs no more than a version would.
            repository_version: None,
        })
    }

    async fn edges(&self, kind: EdgeKind, object: ObjectId, incoming: bool) -> Result<Vec<Edge>> {
        Ok(self.read()?.edges_from(object, Some(kind), incoming))
    }

    async fn lineage(
        &self,
        start: ObjectId,
        downstream: bool,
        bounds: LineageBounds,
    ) -> Result<LineageWalk> {
        Ok(self.read()?.lineage(start, downstream, bounds))
    }
}

#[async_trait]
impl DefinitionStore for MemoryStore {
    async fn attribute_types(&self) -> Result<Vec<AttributeType>> {
        Ok(self.read()?.attribute_types.values().cloned().collect())
    }

    async fn object_types(&self) -> Result<Vec<ObjectType>> {
        Ok(self.read()?.object_types.values().cloned().collect())
    }

    async fn data_classes(&self) -> Result<Vec<DataClass>> {
        Ok(self.read()?.data_classes.values().cloned().collect())
    }

    async fn sensitivity_labels(&self) -> Result<Vec<SensitivityLabel>> {
        Ok(self.read()?.sensitivity_labels.values().cloned().collect())
    }

    async fn roles(&self) -> Result<Vec<Role>> {
        Ok(self.read()?.roles.values().cloned().collect())
    }

    async fn meta_version(&self) -> Result<i64> {
        Ok(self.read()?.meta_version)
    }
}

#[async_trait]
impl AccessStore for MemoryStore {
    async fn user(&self, id: ObjectId) -> Result<Option<User>> {
        Ok(self.read()?.users.get(&id).cloned())
    }

    async fn user_by_name(&self, name: &str) -> Result<Option<User>> {
        let state = self.read()?;
        Ok(state
            .user_names
            .get(&user_key(name))
            .and_then(|id| state.users.get(id))
            .cloned())
    }

    async fn user_by_external(&self, issuer: &str, subject: &str) -> Result<Option<User>> {
        Ok(self
            .read()?
            .users
            .values()
            .find(|u| {
                u.external.as_ref().and_then(ExternalLink::subject) == Some((issuer, subject))
            })
            .cloned())
    }

    async fn user_count(&self) -> Result<u64> {
        Ok(self.read()?.users.len() as u64)
    }

    async fn users(&self) -> Result<Vec<User>> {
        let mut users: Vec<User> = self.read()?.users.values().cloned().collect();
        users.sort_by_cached_key(|u| (user_key(&u.name), u.id));
        Ok(users)
    }

    async fn grants_on(&self, on: GrantsOn) -> Result<Vec<Grant>> {
        let state = self.read()?;
        let mut grants: Vec<Grant> = match on {
            GrantsOn::Server => state
                .grants
                .iter()
                .filter(|g| g.object.is_none())
                .cloned()
                .collect(),
            GrantsOn::Object(object) => state
                .grants_on
                .range((object, MIN_GRANT.clone())..)
                .take_while(|(o, _)| *o == object)
                .map(|(_, g)| g.clone())
                .collect(),
            GrantsOn::AnyObject => state.grants_on.iter().map(|(_, g)| g.clone()).collect(),
        };
        grants.sort();
        Ok(grants)
    }

    async fn grants_of_role(&self, role: &str) -> Result<Vec<Grant>> {
        Ok(self
            .read()?
            .grants
            .iter()
            .filter(|g| g.role == role)
            .cloned()
            .collect())
    }

    async fn group(&self, id: ObjectId) -> Result<Option<Group>> {
        Ok(self.read()?.groups.get(&id).cloned())
    }

    async fn group_by_name(&self, name: &str) -> Result<Option<Group>> {
        let state = self.read()?;
        Ok(state
            .group_names
            .get(&user_key(name))
            .and_then(|id| state.groups.get(id))
            .cloned())
    }

    async fn groups(&self) -> Result<Vec<Group>> {
        let mut groups: Vec<Group> = self.read()?.groups.values().cloned().collect();
        groups.sort_by_cached_key(|g| (user_key(&g.name), g.id));
        Ok(groups)
    }

    async fn members(&self, group: ObjectId) -> Result<Vec<User>> {
        let state = self.read()?;
        let mut users: Vec<User> = state
            .members
            .range(
                Membership {
                    group,
                    user: MIN_ID,
                }..,
            )
            .take_while(|m| m.group == group)
            .filter_map(|m| state.users.get(&m.user))
            .cloned()
            .collect();
        users.sort_by_cached_key(|u| (user_key(&u.name), u.id));
        Ok(users)
    }

    async fn groups_of(&self, user: ObjectId) -> Result<Vec<Group>> {
        let state = self.read()?;
        let mut groups: Vec<Group> = state
            .group_ids_of(user)
            .filter_map(|g| state.groups.get(&g))
            .cloned()
            .collect();
        groups.sort_by_cached_key(|g| (user_key(&g.name), g.id));
        Ok(groups)
    }

    async fn grants_of(&self, grantee: ObjectId) -> Result<Vec<Grant>> {
        Ok(self.read()?.grants_held(grantee).cloned().collect())
    }
}

#[async_trait]
impl SessionStore for MemoryStore {
    async fn principal(&self, key_hash: &str, now: Timestamp) -> Result<Option<Principal>> {
        Ok(self.read()?.principal(key_hash, now))
    }

    async fn session_check(&self, key_hash: &str, now: Timestamp) -> Result<Option<SessionCheck>> {
        Ok(self.read()?.session_check(key_hash, now))
    }

    async fn put_session(&self, mut session: Session) -> Result<()> {
        prepare_session(&mut session)?;
        self.write()?
            .sessions
            .insert(session.key_hash.clone(), session);
        Ok(())
    }

    async fn session(&self, key_hash: &str, now: Timestamp) -> Result<Option<Session>> {
        Ok(self
            .read()?
            .sessions
            .get(key_hash)
            .filter(|s| s.expires_at > now)
            .cloned())
    }

    async fn delete_session(&self, key_hash: &str) -> Result<()> {
        self.write()?.sessions.remove(key_hash);
        Ok(())
    }

    async fn delete_sessions_of(&self, user: ObjectId) -> Result<u64> {
        let mut state = self.write()?;
        let before = state.sessions.len();
        state.sessions.retain(|_, s| s.user != user);
        Ok((before - state.sessions.len()) as u64)
    }

    async fn purge_sessions(&self, now: Timestamp) -> Result<u64> {
        let mut state = self.write()?;
        let before = state.sessions.len();
        state.sessions.retain(|_, s| s.expires_at > now);
        Ok((before - state.sessions.len()) as u64)
    }

    async fn touch_session(&self, key_hash: &str, now: Timestamp) -> Result<()> {
        if let Some(session) = self.write()?.sessions.get_mut(key_hash) {
            session.last_seen_at = micros(now);
        }
        Ok(())
    }

    async fn login_failures(&self, subjects: &[String]) -> Result<Vec<LoginFailures>> {
        let state = self.read()?;
        Ok(subjects
            .iter()
            .filter_map(|s| state.login_failures.get(s))
            .cloned()
            .collect())
    }

    async fn add_login_failure(
        &self,
        subjects: &[String],
        now: Timestamp,
        restart_before: Timestamp,
    ) -> Result<()> {
        let mut state = self.write()?;
        let now = micros(now);
        for subject in subjects {
            let entry = state
                .login_failures
                .entry(subject.clone())
                .or_insert_with(|| LoginFailures {
                    subject: subject.clone(),
                    failures: 0,
                    last_at: now,
                });
            entry.failures = match entry.last_at <= restart_before {
                true if entry.failures > 0 => 1,
                _ => entry.failures.saturating_add(1),
            };
            entry.last_at = now;
        }
        Ok(())
    }

    async fn clear_login_failures(&self, subjects: &[String]) -> Result<()> {
        let mut state = self.write()?;
        for subject in subjects {
            state.login_failures.remove(subject);
        }
        Ok(())
    }
}

#[async_trait]
impl ObjectRecords for MemoryStore {
    async fn document(
        &self,
        kind: DocumentKind,
        owner: Option<ObjectId>,
        name: &str,
    ) -> Result<Option<Document>> {
        Ok(self
            .read()?
            .documents
            .get(&(kind, owner, name.to_owned()))
            .cloned())
    }

    async fn documents(&self, kind: DocumentKind) -> Result<Vec<Document>> {
        Ok(self
            .read()?
            .documents
            .values()
            .filter(|d| d.kind == kind)
            .cloned()
            .collect())
    }
}

#[async_trait]
impl SearchRecords for MemoryStore {
    async fn worksheet(&self, id: ObjectId) -> Result<Option<Worksheet>> {
        Ok(self.read()?.worksheets.get(&id).cloned())
    }

    async fn worksheet_by_name(&self, owner: ObjectId, name: &str) -> Result<Option<Worksheet>> {
        let state = self.read()?;
        Ok(state
            .worksheet_names
            .get(&(owner, Worksheet::name_key(name)))
            .and_then(|id| state.worksheets.get(id))
            .cloned())
    }

    async fn worksheets(&self, owner: Option<ObjectId>) -> Result<Vec<Worksheet>> {
        let state = self.read()?;
        let Some(owner) = owner else {
            let mut all: Vec<Worksheet> = state.worksheets.values().cloned().collect();
            all.sort_by(|a, b| (&a.name, a.id).cmp(&(&b.name, b.id)));
            return Ok(all);
        };
        Ok(state
            .worksheets_by_owner
            .range((owner, String::new(), MIN_ID)..)
            .take_while(|(o, _, _)| *o == owner)
            .filter_map(|(_, _, id)| state.worksheets.get(id))
            .cloned()
            .collect())
    }
}

#[async_trait]
impl LineageRecords for MemoryStore {
    async fn lineage_run(&self, run_id: &str) -> Result<Option<LineageRun>> {
        Ok(self.read()?.lineage_runs.get(run_id).cloned())
    }

    async fn lineage_runs(&self, filter: &RunFilter) -> Result<Vec<LineageRun>> {
        let state = self.read()?;
        let mut runs: Vec<&LineageRun> = state
            .lineage_runs
            .values()
            .filter(|run| filter.matches(run))
            .collect();
        runs.sort_by(|a, b| (b.state_at, &b.run_id).cmp(&(a.state_at, &a.run_id)));
        let limit = if filter.limit == 0 {
            usize::MAX
        } else {
            filter.limit
        };
        Ok(runs.into_iter().take(limit).cloned().collect())
    }

    async fn lineage_events(&self, run_id: &str) -> Result<Vec<LineageEvent>> {
        let state = self.read()?;
        Ok(state
            .lineage_events_by_run
            .range((run_id.to_owned(), Timestamp::MIN_UTC, String::new())..)
            .take_while(|(run, _, _)| run == run_id)
            .filter_map(|(_, _, digest)| state.lineage_events.get(digest))
            .cloned()
            .collect())
    }

    async fn lineage_event(&self, digest: &str) -> Result<Option<LineageEvent>> {
        Ok(self.read()?.lineage_events.get(digest).cloned())
    }

    async fn lineage_runs_page(&self, after_run_id: &str, limit: usize) -> Result<Vec<LineageRun>> {
        use std::ops::Bound;
        let state = self.read()?;
        Ok(state
            .lineage_runs
            .range::<str, _>((Bound::Excluded(after_run_id), Bound::Unbounded))
            .take(limit)
            .map(|(_, run)| run.clone())
            .collect())
    }

    async fn lineage_events_page(
        &self,
        after_digest: &str,
        limit: usize,
    ) -> Result<Vec<LineageEvent>> {
        use std::ops::Bound;
        let state = self.read()?;
        Ok(state
            .lineage_events
            .range::<str, _>((Bound::Excluded(after_digest), Bound::Unbounded))
            .take(limit)
            .map(|(_, event)| event.clone())
            .collect())
    }

    async fn purge_lineage_events(&self, received_before: Timestamp) -> Result<u64> {
        let mut state = self.write()?;
        let old: Vec<String> = state
            .lineage_events
            .values()
            .filter(|e| e.received_at < received_before)
            .map(|e| e.digest.clone())
            .collect();
        for digest in &old {
            state.set_lineage_event(digest.clone(), None);
        }
        Ok(old.len() as u64)
    }
}

#[async_trait]
impl GovernanceRecords for MemoryStore {
    async fn curation(&self, object: ObjectId) -> Result<Vec<Curation>> {
        let state = self.read()?;
        let mut entries: Vec<Curation> = state
            .curation_by_object
            .range((object, i64::MIN)..=(object, i64::MAX))
            .filter_map(|(_, id)| state.curation.get(id).cloned())
            .collect();
        entries.sort_by_key(|c| (c.kind, c.at, c.id));
        Ok(entries)
    }

    async fn curation_entry(&self, id: i64) -> Result<Option<Curation>> {
        Ok(self.read()?.curation.get(&id).cloned())
    }

    async fn curation_of(&self, objects: &[ObjectId]) -> Result<Vec<Curation>> {
        let mut ids = objects.to_vec();
        ids.sort_unstable();
        ids.dedup();
        let mut all = Vec::new();
        for id in ids {
            all.extend(self.curation(id).await?);
        }
        Ok(all)
    }

    async fn curation_page(&self, after: i64, limit: usize) -> Result<Vec<Curation>> {
        Ok(self
            .read()?
            .curation
            .range((Bound::Excluded(after), Bound::Unbounded))
            .take(limit)
            .map(|(_, c)| c.clone())
            .collect())
    }
}

#[async_trait]
impl OperationRecords for MemoryStore {
    async fn append_system_log(&self, entries: Vec<SystemLogEntry>) -> Result<()> {
        let mut log = self.log_mut()?;
        for mut entry in entries {
            prepare_log_entry(&mut entry);
            log.appended += 1;
            let key = (entry.time, log.appended);
            log.entries.insert(key, entry);
        }
        Ok(())
    }

    async fn system_log(
        &self,
        filter: &SystemLogFilter,
        page: Page,
    ) -> Result<Vec<SystemLogEntry>> {
        let offset = usize::try_from(page.offset).unwrap_or(usize::MAX);
        let limit = usize::try_from(page.limit).unwrap_or(usize::MAX);
        Ok(self
            .log()?
            .entries
            .values()
            .rev()
            .filter(|e| filter.matches(e))
            .skip(offset)
            .take(limit)
            .cloned()
            .collect())
    }

    async fn count_system_log(&self, filter: &SystemLogFilter) -> Result<u64> {
        Ok(self
            .log()?
            .entries
            .values()
            .filter(|e| filter.matches(e))
            .count() as u64)
    }

    async fn purge_system_log(&self, before: Timestamp) -> Result<u64> {
        let mut log = self.log_mut()?;
        let kept = log.entries.split_off(&(before, 0));
        let purged = log.entries.len() as u64;
        log.entries = kept;
        Ok(purged)
    }

    async fn insert_operation(&self, mut operation: Operation) -> Result<i64> {
        operation.id = self.reserve_ids(OPERATION_IDS, 1).await?;
        let id = operation.id;
        self.apply(Batch::from(vec![Op::PutOperation(operation)]))
            .await?;
        Ok(id)
    }

    async fn update_operation(&self, operation: &Operation) -> Result<()> {
        let mut operation = operation.clone();
        prepare_operation(&mut operation)?;
        let mut ops = self.ops_mut()?;
        let slot = ops.operations.get_mut(&operation.id).ok_or_else(|| {
            Error::not_found(format!("operation {} does not exist", operation.id))
        })?;
        *slot = operation;
        Ok(())
    }

    async fn operation(&self, id: i64) -> Result<Option<Operation>> {
        Ok(self.ops()?.operations.get(&id).cloned())
    }

    async fn operations(&self, filter: &OperationFilter) -> Result<Vec<Operation>> {
        Ok(self
            .ops()?
            .operations
            .values()
            .rev()
            .filter(|o| filter.matches(o))
            .take(filter.limit)
            .cloned()
            .collect())
    }

    async fn append_operation_log(
        &self,
        operation: i64,
        lines: Vec<OperationLogLine>,
    ) -> Result<()> {
        let mut prepared = Vec::with_capacity(lines.len());
        for mut line in lines {
            prepare_log_line(&mut line);
            prepared.push(line);
        }
        let mut ops = self.ops_mut()?;
        let log = ops.logs.entry(operation).or_default();
        for line in &prepared {
            if log.iter().any(|l| l.seq == line.seq) {
                return Err(Error::conflict(format!(
                    "line {} of the log of operation {operation} exists already",
                    line.seq
                )));
            }
        }
        log.extend(prepared);
        log.sort_by_key(|l| l.seq);
        Ok(())
    }

    async fn operation_log(&self, operation: i64) -> Result<Vec<OperationLogLine>> {
        Ok(self
            .ops()?
            .logs
            .get(&operation)
            .cloned()
            .unwrap_or_default())
    }

    async fn put_import_settings(&self, settings: ImportSettings) -> Result<()> {
        self.apply(Batch::from(vec![Op::PutImportSettings(settings)]))
            .await
    }

    async fn import_settings(&self, model: ObjectId) -> Result<Option<ImportSettings>> {
        if !self.exists(model)? {
            return Ok(None);
        }
        Ok(self.ops()?.settings.get(&model).cloned())
    }

    async fn put_attachment(&self, attachment: Attachment) -> Result<()> {
        self.apply(Batch::from(vec![Op::PutAttachment(attachment)]))
            .await
    }

    async fn attachment(&self, object: ObjectId, name: Option<&str>) -> Result<Option<Attachment>> {
        if !self.exists(object)? {
            return Ok(None);
        }
        let ops = self.ops()?;
        let Some(files) = ops.attachments.get(&object) else {
            return Ok(None);
        };
        Ok(match name {
            Some(name) => files.get(name).cloned(),
            None => files
                .values()
                .max_by(|a, b| {
                    (a.info.created_at, &b.info.name).cmp(&(b.info.created_at, &a.info.name))
                })
                .cloned(),
        })
    }

    async fn attachments(&self, object: ObjectId) -> Result<Vec<AttachmentInfo>> {
        if !self.exists(object)? {
            return Ok(Vec::new());
        }
        let mut infos: Vec<AttachmentInfo> = self
            .ops()?
            .attachments
            .get(&object)
            .map(|files| files.values().map(|a| a.info.clone()).collect())
            .unwrap_or_default();
        infos.sort_by(|a, b| b.created_at.cmp(&a.created_at).then(a.name.cmp(&b.name)));
        Ok(infos)
    }

    async fn all_attachments(&self) -> Result<Vec<AttachmentInfo>> {
        let state = self.read()?;
        let ops = self.ops()?;
        let mut infos: Vec<AttachmentInfo> = ops
            .attachments
            .iter()
            .filter(|(object, _)| state.objects.contains_key(object))
            .flat_map(|(_, files)| files.values().map(|a| a.info.clone()))
            .collect();
        infos.sort_by(|a, b| (a.object, &a.name).cmp(&(b.object, &b.name)));
        Ok(infos)
    }
}

#[async_trait]
impl NotificationRecords for MemoryStore {
    async fn notifications(
        &self,
        user: ObjectId,
        unread_only: bool,
        limit: u32,
    ) -> Result<Vec<Notification>> {
        let state = self.read()?;
        let mut found: Vec<Notification> = state
            .notifications
            .values()
            .filter(|n| n.user == user && !(unread_only && n.read))
            .cloned()
            .collect();
        found.sort_by_key(|n| std::cmp::Reverse((n.at, n.id)));
        found.truncate(limit as usize);
        Ok(found)
    }

    async fn notification(&self, id: i64) -> Result<Option<Notification>> {
        Ok(self.read()?.notifications.get(&id).cloned())
    }

    async fn claim_deliveries(
        &self,
        now: Timestamp,
        lease_until: Timestamp,
        limit: usize,
    ) -> Result<Vec<Delivery>> {
        let (now, lease_until) = (micros(now), micros(lease_until));
        let mut state = self.write()?;
        let mut due: Vec<(Timestamp, i64)> = state
            .deliveries
            .values()
            .filter(|d| d.state == DeliveryState::Pending && d.next_attempt_at <= now)
            .map(|d| (d.next_attempt_at, d.id))
            .collect();
        due.sort_unstable();
        let mut claimed: Vec<Delivery> = Vec::new();
        for (_, id) in due.into_iter().take(limit) {
            if let Some(d) = state.deliveries.get_mut(&id) {
                d.next_attempt_at = lease_until;
                claimed.push(d.clone());
            }
        }
        claimed.sort_by_key(|d| d.id);
        Ok(claimed)
    }

    async fn deliveries(
        &self,
        state: Option<DeliveryState>,
        limit: usize,
    ) -> Result<Vec<Delivery>> {
        Ok(self
            .read()?
            .deliveries
            .values()
            .rev()
            .filter(|d| state.is_none_or(|s| d.state == s))
            .take(limit)
            .cloned()
            .collect())
    }

    async fn notifications_page(&self, after: i64, limit: usize) -> Result<Vec<Notification>> {
        Ok(self
            .read()?
            .notifications
            .range((Bound::Excluded(after), Bound::Unbounded))
            .take(limit)
            .map(|(_, n)| n.clone())
            .collect())
    }
}

#[async_trait]
impl lore_core::store::HistoryRecords for MemoryStore {
    async fn history_span(&self) -> Result<lore_core::model::HistorySpan> {
        let state = self.read()?;
        let revisions = &state.history.revisions;
        match (state.history.oldest(), revisions.values().next_back()) {
            (Some(oldest), Some(newest)) => Ok(lore_core::model::HistorySpan {
                oldest: *oldest,
                newest: *newest,
            }),
            _ => Err(Error::internal("the store keeps no revision")),
        }
    }

    async fn revision(&self, version: i64) -> Result<Option<lore_core::model::Revision>> {
        Ok(self.read()?.history.revisions.get(&version).copied())
    }

    async fn revision_at(
        &self,
        at: lore_core::model::Timestamp,
    ) -> Result<Option<lore_core::model::Revision>> {
        Ok(self
            .read()?
            .history
            .revisions
            .values()
            .rev()
            .find(|r| r.at <= at)
            .copied())
    }

    async fn revisions(&self, versions: &[i64]) -> Result<Vec<lore_core::model::Revision>> {
        let state = self.read()?;
        let mut found: Vec<_> = versions
            .iter()
            .filter_map(|v| state.history.revisions.get(v).copied())
            .collect();
        found.sort_by_key(|r| r.version);
        found.dedup_by_key(|r| r.version);
        Ok(found)
    }

    async fn object_history(
        &self,
        id: ObjectId,
        limit: usize,
    ) -> Result<lore_core::model::ObjectHistory> {
        Ok(self.read()?.object_history(id, limit))
    }

    async fn entity_as_of(
        &self,
        id: ObjectId,
        version: i64,
    ) -> Result<(Option<lore_core::model::Object>, Details)> {
        let history = self.read()?.object_history(id, usize::MAX);
        Ok(lore_core::store::entity_at(history, version))
    }

    async fn edges_as_of(&self, id: ObjectId, version: i64) -> Result<Vec<lore_core::model::Edge>> {
        Ok(self.read()?.edges_as_of(id, version))
    }

    async fn entities_as_of(
        &self,
        ids: &[ObjectId],
        version: i64,
    ) -> Result<Vec<(Option<lore_core::model::Object>, Details)>> {
        let state = self.read()?;
        Ok(ids
            .iter()
            .map(|id| lore_core::store::entity_at(state.object_history(*id, usize::MAX), version))
            .collect())
    }

    async fn objects_with_details_as_of(
        &self,
        ids: &[ObjectId],
        version: i64,
    ) -> Result<(Vec<lore_core::model::Object>, Details)> {
        let then = self.read()?.as_of(version);
        Ok((then.objects_of(ids), then.objects_details(ids)))
    }

    async fn objects_changed_between(
        &self,
        model: i64,
        from: i64,
        to: i64,
        limit: usize,
    ) -> Result<Vec<ObjectId>> {
        Ok(self.read()?.objects_changed_between(model, from, to, limit))
    }

    async fn objects_changed_after(&self, after: i64, limit: usize) -> Result<Vec<ObjectId>> {
        Ok(self.read()?.objects_changed_after(after, limit))
    }

    async fn model_versions(
        &self,
        model: i64,
        before: Option<i64>,
        limit: usize,
    ) -> Result<Vec<lore_core::model::ModelVersion>> {
        let mut versions = self.read()?.model_versions(model);
        versions.retain(|v| before.is_none_or(|b| v.number < b));
        versions.reverse();
        versions.truncate(limit);
        Ok(versions)
    }

    async fn purge_history(&self, floor: i64) -> Result<u64> {
        Ok(self.write()?.history.purge(floor))
    }

    async fn versions_floor(&self, keep: usize) -> Result<Option<i64>> {
        Ok(self.read()?.history.versions_floor(keep))
    }

    async fn server_grant_history(
        &self,
        limit: usize,
    ) -> Result<(
        Vec<lore_core::model::Versioned<lore_core::model::Grant>>,
        bool,
    )> {
        Ok(self.read()?.server_grant_history(limit))
    }

    async fn purge_curation_history(&self, floor: i64) -> Result<u64> {
        Ok(self.write()?.history.social.purge(floor))
    }

    async fn objects_history(
        &self,
        ids: &[ObjectId],
    ) -> Result<Vec<lore_core::model::ObjectHistory>> {
        let state = self.read()?;
        Ok(ids
            .iter()
            .map(|id| state.object_history(*id, usize::MAX))
            .collect())
    }

    async fn gone_with_history(
        &self,
        after: Option<ObjectId>,
        limit: usize,
    ) -> Result<Vec<ObjectId>> {
        let state = self.read()?;
        let mut gone: Vec<ObjectId> = state
            .history
            .past
            .iter()
            .filter(|(id, past)| {
                after.is_none_or(|a| **id > a)
                    && !past.objects.is_empty()
                    && !state.objects.contains_key(*id)
            })
            .map(|(id, _)| *id)
            .collect();
        gone.sort();
        gone.truncate(limit);
        Ok(gone)
    }

    async fn revisions_after(
        &self,
        after: i64,
        limit: usize,
    ) -> Result<Vec<lore_core::model::Revision>> {
        let state = self.read()?;
        Ok(state
            .history
            .revisions
            .range(after.saturating_add(1)..)
            .take(limit)
            .map(|(_, r)| *r)
            .collect())
    }

    async fn all_model_versions(&self) -> Result<Vec<lore_core::model::ModelVersion>> {
        let state = self.read()?;
        let mut models: Vec<i64> = state
            .history
            .model_versions
            .iter()
            .map(|v| v.counts.model)
            .collect();
        models.sort_unstable();
        models.dedup();
        let mut all: Vec<lore_core::model::ModelVersion> = models
            .into_iter()
            .flat_map(|model| state.model_versions(model))
            .collect();
        all.sort_by_key(|v| (v.revision.version, v.counts.model));
        Ok(all)
    }
}
