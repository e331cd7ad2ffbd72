//! Running MQL: `POST /entities/executeMQLQuery` and `GET /entities/countMQLQuery`.
//!
//! A validated query is lowered to a [`Plan`] (after the store has said which models
//! the FROM clause selects, which models a content name means and where a user holds a
//! role); the store runs the plan and answers a page of ids or a count; the page is then
//! read with what its SELECT list shows.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;
use serde_json::{Value as Json, json};

use super::Search;
use super::as_of::{PROFILING_NOT_KEPT, profiling_kept_now};
use crate::auth::Caller;
use crate::catalog::Catalog;
use crate::catalog::objects::browse::embedded;
use crate::catalog::search::query::MqlQuery;
use crate::catalog::visibility::Sight;
use crate::error::{Error, Result};
use crate::id::{ObjectId, ObjectRef};
use crate::model::{
    AttributeKind, ClassificationStatus, CurationKind, DataClass, EdgeKind, MetaModel, Object,
    ObjectKind, Profiling, SensitivityLabel, TagKind, User, Value, format_datetime,
};
use crate::mql::ast::Query;
use crate::mql::catalog::SystemAttribute;
use crate::mql::eval::{self, Facts, Row, Val};
use crate::mql::lower::{Lookups, RoleHolders, facet, lower, lower_scope, needs};
use crate::mql::parse::QueryFields;
use crate::mql::plan::{
    Cond, DateGap, Field, LabelSet, Lit, Page, Plan, ProfilingPart, Statistic, Within, fold,
};
use crate::mql::resolve::{Property, Resolved};
use crate::mql::validate::Selected;
use crate::wire::{Attribute, AttributeTypeRef, EmbeddedEntity, Entity};

/// Rows per page when the request names none.
pub const DEFAULT_PAGE_SIZE: u64 = 20;
/// The largest page a request may ask for.
pub const MAX_PAGE_SIZE: u64 = 10_000;

/// `pageSize` and `pageNumber` (1-based) of a query request.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PageRequest {
    pub size: Option<i64>,
    pub number: Option<i64>,
}

impl PageRequest {
    /// The page, or an error naming the bad number.
    pub fn page(self) -> Result<Page> {
        let size = match self.size {
            None => DEFAULT_PAGE_SIZE,
            Some(n) if (1..=MAX_PAGE_SIZE as i64).contains(&n) => n as u64,
            Some(n) => {
                return Err(Error::invalid(format!(
                    "pageSize {n} is out of range: 1 to {MAX_PAGE_SIZE}"
                )));
            }
        };
        let number = match self.number {
            None => 1,
            Some(n) if n >= 1 => n as u64,
            Some(n) => {
                return Err(Error::invalid(format!(
                    "pageNumber {n} is out of range: pages are numbered from 1"
                )));
            }
        };
        let offset = (number - 1)
            .checked_mul(size)
            .ok_or_else(|| Error::invalid(format!("pageNumber {number} is beyond any result")))?;
        Ok(Page {
            offset,
            limit: size,
        })
    }
}

/// The objects of a query, in the entity format the request asked for.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum QueryResult {
    Mql(Vec<MqlEntity>),
    Legacy(Vec<Entity>),
}

/// An object in the MQL entity format: one attribute per SELECT item, in order.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MqlEntity {
    pub attributes: Vec<Attribute>,
}

impl Search<'_> {
    /// `POST /entities/executeMQLQuery`: one page of the query's objects.
    pub async fn execute_query(
        &self,
        caller: &Caller,
        query: MqlQuery<'_>,
        page: PageRequest,
        legacy: bool,
    ) -> Result<QueryResult> {
        let sight = self.sight(caller).await?;
        let hidden = self.hidden_data(caller).await?;
        let page = page.page()?;
        let meta = self.meta_model_for(caller).await?;
        let validated = Catalog::checked_query(query, &meta)?;
        let (mut plan, _) = self
            .plan(caller, &sight, &hidden, &validated.query, &meta)
            .await?;
        plan.as_of = self.moment(plan.as_of).await?;
        profiling_kept_now(&plan, &hidden)?;
        let ids = self.query_at(&plan, page).await?;
        if legacy {
            let (mut objects, details) = self.read_at(&ids, plan.as_of).await?;
            order_like(&mut objects, &ids);
            let mut entities = Vec::with_capacity(objects.len());
            for object in &objects {
                entities.push(self.entity_with(object, &details, &meta).await?);
            }
            return Ok(QueryResult::Legacy(entities));
        }
        Ok(QueryResult::Mql(
            self.mql_entities(caller, &sight, &hidden, &ids, &validated.select, plan.as_of)
                .await?,
        ))
    }

    /// `GET /entities/countMQLQuery`: how many objects the query finds.
    pub async fn count_query(&self, caller: &Caller, query: MqlQuery<'_>) -> Result<u64> {
        let sight = self.sight(caller).await?;
        let hidden = self.hidden_data(caller).await?;
        let meta = self.meta_model_for(caller).await?;
        let validated = Catalog::checked_query(query, &meta)?;
        let (mut plan, _) = self
            .plan(caller, &sight, &hidden, &validated.query, &meta)
            .await?;
        plan.as_of = self.moment(plan.as_of).await?;
        profiling_kept_now(&plan, &hidden)?;
        self.count_at(&plan).await
    }
}

impl Catalog {
    /// The plan of a validated query for the caller, with the warnings of lowering: only
    /// the objects in the caller's sight.
    pub(crate) async fn plan(
        &self,
        caller: &Caller,
        sight: &Sight,
        hidden: &Cond,
        query: &Query,
        meta: &MetaModel,
    ) -> Result<(Plan, Vec<String>)> {
        // FROM a model's version: the model, as of that version.
        let versioned = self.versioned_from(caller, query).await?;
        let query = versioned.as_ref().map_or(query, |(q, _)| q);
        let mut lookups = self.lookups(caller, query).await?;
        lookups.source = self.source(caller, query, meta, &lookups).await?;
        let (mut plan, warnings) = lower(query, meta, &lookups);
        plan.as_of = versioned.map(|(_, version)| version);
        plan.visibility = sight.condition();
        // Spec 2.7: a filter on data profiling drops the objects whose data is hidden
        // from the caller.
        // What a filter reads of the profiling of an object (the object itself or a
        // related one) whose data is hidden, it does not see.
        if *hidden != Cond::False && mentions_profiling(&plan.filter) {
            let filter = hide_profiling(plan.filter, hidden);
            plan.filter = Cond::and(vec![filter, Cond::not(hidden.clone())]);
        }
        Ok((plan, warnings))
    }

    /// What lowering needs to know from the store.
    async fn lookups(&self, caller: &Caller, query: &Query) -> Result<Lookups> {
        let needs = needs(query);
        let mut lookups = Lookups {
            now: chrono::Utc::now().timestamp_micros(),
            me: Some(caller.name().to_owned()),
            ..Lookups::default()
        };
        if needs.workflow_tasks {
            lookups.workflow_tasks = self.workflow_task_conditions(caller).await?;
        }
        if !needs.contents.is_empty() {
            let models = self.store.objects_of_kind(ObjectKind::Model).await?;
            for name in &needs.contents {
                let key = fold(name);
                let numbers: Vec<i64> = models
                    .iter()
                    .filter(|m| fold(&m.name) == key)
                    .map(|m| m.id.content_model())
                    .collect();
                if !numbers.is_empty() {
                    lookups.contents.insert(key, numbers);
                }
            }
        }
        if !needs.roles.is_empty() {
            let roles = self.store.roles().await?;
            for (role, principals) in &needs.roles {
                if !roles.iter().any(|r| &r.name == role) {
                    continue;
                }
                let grants = self.grants_of_role_to_users(role).await?;
                let mut holders = RoleHolders {
                    anyone: self.granted_scope(grants.iter().map(|g| g.object)).await?,
                    by_principal: HashMap::new(),
                };
                for principal in principals {
                    let user = match principal {
                        None => Some(caller.user()),
                        Some(name) => self.store.user_by_name(name).await?.map(|u| u.id),
                    };
                    let Some(user) = user else { continue };
                    let scope = self
                        .granted_scope(
                            grants
                                .iter()
                                .filter(|g| g.grantee == user)
                                .map(|g| g.object),
                        )
                        .await?;
                    holders
                        .by_principal
                        .insert(principal.as_deref().map(fold), scope);
                }
                lookups.roles.insert(role.clone(), holders);
            }
        }
        Ok(lookups)
    }

    /// The objects where grants on these objects (`None`: global) apply.
    async fn granted_scope(&self, objects: impl Iterator<Item = Option<ObjectId>>) -> Result<Cond> {
        let mut parts = Vec::new();
        for object in objects {
            let Some(id) = object else {
                return Ok(Cond::True);
            };
            if let Some(object) = self.stored_object(id).await? {
                parts.push(self.scope_of(&object).await?);
            }
        }
        Ok(Cond::or(parts))
    }

    /// The objects a repository object or model object stands for as a query source: a
    /// folder's models (at any depth), a configuration's contents, a model, a model
    /// object's subtree.
    async fn scope_of(&self, object: &Object) -> Result<Cond> {
        let models: Vec<i64> = match object.kind {
            ObjectKind::ModelObject => {
                return Ok(Cond::Within(Within {
                    models: Vec::new(),
                    subtrees: vec![object.id],
                }));
            }
            ObjectKind::Model => vec![object.id.content_model()],
            ObjectKind::Configuration | ObjectKind::ConfigurationVersion => self
                .store
                .edges(EdgeKind::ConfigurationContent, object.id, false)
                .await?
                .iter()
                .filter(|e| e.target.is_repository())
                .map(|e| e.target.content_model())
                .collect(),
            ObjectKind::Folder => {
                let folders = self.store.objects_of_kind(ObjectKind::Folder).await?;
                let parents: HashMap<ObjectId, Option<ObjectId>> =
                    folders.iter().map(|f| (f.id, f.parent)).collect();
                let below = |mut next: Option<ObjectId>| {
                    let mut steps = 0;
                    while let Some(id) = next {
                        if id == object.id {
                            return true;
                        }
                        steps += 1;
                        if steps > 10_000 {
                            return false;
                        }
                        next = parents.get(&id).copied().flatten();
                    }
                    false
                };
                self.store
                    .objects_of_kind(ObjectKind::Model)
                    .await?
                    .iter()
                    .filter(|m| below(m.parent))
                    .map(|m| m.id.content_model())
                    .collect()
            }
        };
        Ok(if models.is_empty() {
            Cond::False
        } else {
            Cond::Within(Within {
                models,
                subtrees: Vec::new(),
            })
        })
    }

    /// The condition of the FROM clause and its scope filters. Without FROM the query
    /// covers every model with its objects. A FROM (or CONTEXT) that names nothing the
    /// caller sees is OBJECT_NOT_FOUND or INVALID_REPOSITORY_PATH: an empty answer
    /// would hide a typo.
    async fn source(
        &self,
        caller: &Caller,
        query: &Query,
        meta: &MetaModel,
        lookups: &Lookups,
    ) -> Result<Cond> {
        if let Some(context) = &query.context {
            self.find(caller, &source_ref(context)?).await?;
        }
        let Some(from) = &query.from else {
            let all = Cond::Kinds(vec![ObjectKind::Model, ObjectKind::ModelObject]);
            return Ok(all);
        };
        let object = self.find(caller, &source_ref(&from.id)?).await?;
        let scope = self.scope_of(&object).await?;
        let Some(filters) = &from.scope else {
            return Ok(scope);
        };
        if object.kind == ObjectKind::ModelObject {
            // Scope filters select models; inside a model they have no effect (2.11.4).
            return Ok(scope);
        }
        // The scope filters pick models among those of FROM.
        let picked = Plan {
            filter: Cond::and(vec![
                Cond::Kinds(vec![ObjectKind::Model]),
                scope,
                lower_scope(filters, meta, lookups),
            ]),
            visibility: Cond::True,
            order: Vec::new(),
            as_of: None,
        };
        let models: Vec<i64> = self
            .store
            .query(
                &picked,
                Page {
                    offset: 0,
                    limit: u64::MAX >> 1,
                },
            )
            .await?
            .into_iter()
            .map(ObjectId::content_model)
            .collect();
        Ok(if models.is_empty() {
            Cond::False
        } else {
            Cond::Within(Within {
                models,
                subtrees: Vec::new(),
            })
        })
    }
}

impl Search<'_> {
    /// The objects of `ids`, in that order, in the MQL entity format.
    async fn mql_entities(
        &self,
        caller: &Caller,
        sight: &Sight,
        hidden: &Cond,
        ids: &[ObjectId],
        select: &[Selected<'_>],
        version: Option<i64>,
    ) -> Result<Vec<MqlEntity>> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let mut facts = self.page_facts(caller, sight, ids, select, version).await?;
        // Spec 2.7: profiling and sampling of objects whose data is hidden from the
        // caller are not shown. Profiling is not kept in history: as of a version it is
        // today's, so it is hidden when the data was hidden then or is now.
        if *hidden != Cond::False {
            let mut hidden_ids: Vec<ObjectId> = facts
                .objects
                .values()
                .filter(|o| eval::holds(hidden, &facts, Row::Object(o)))
                .map(|o| o.id)
                .collect();
            if version.is_some() {
                let (objects, details) = self.stored_with_details(ids).await?;
                let mut now = PageFacts {
                    data_classes: facts.data_classes.clone(),
                    sensitivity_labels: facts.sensitivity_labels.clone(),
                    ..PageFacts::default()
                };
                now.add(objects, details);
                hidden_ids.extend(
                    now.objects
                        .values()
                        .filter(|o| eval::holds(hidden, &now, Row::Object(o)))
                        .map(|o| o.id),
                );
            }
            for id in hidden_ids {
                facts.profiling.remove(&id);
            }
        }
        let mut entities = Vec::with_capacity(ids.len());
        for id in ids {
            let Some(object) = facts.objects.get(id) else {
                continue;
            };
            let attributes = select
                .iter()
                .map(|item| selected_attribute(item, object, &facts))
                .collect();
            entities.push(MqlEntity { attributes });
        }
        Ok(entities)
    }

    /// Reads what the SELECT list shows of the page's objects.
    /// What the SELECT items of a page need; ancestors and related objects the caller
    /// may not see are left out.
    async fn page_facts(
        &self,
        caller: &Caller,
        sight: &Sight,
        ids: &[ObjectId],
        select: &[Selected<'_>],
        version: Option<i64>,
    ) -> Result<PageFacts> {
        let (objects, details) = self.read_at(ids, version).await?;
        let mut facts = PageFacts::default();
        facts.add(objects, details);
        let page: Vec<Object> = ids
            .iter()
            .filter_map(|id| facts.objects.get(id).cloned())
            .collect();
        let wants = Wants::of(select);
        // A parent or child the caller cannot see (a hidden folder above a granted
        // model, a hidden model in a folder) is not shown, as the context leaves it out.
        if wants.parents {
            let parents: Vec<ObjectId> = page
                .iter()
                .filter_map(eval::parent_id)
                .filter(|p| sight.sees_id(*p))
                .collect();
            let (objects, details) = self.read_at(&parents, version).await?;
            facts.add(objects, details);
        }
        if wants.children {
            facts.children = self.children_at(&page, version).await?;
            for children in facts.children.values_mut() {
                children.retain(|c| sight.sees_id(*c));
            }
            let child_ids: Vec<ObjectId> = facts.children.values().flatten().copied().collect();
            let (objects, details) = self.read_at(&child_ids, version).await?;
            facts.add(objects, details);
        }
        // As of a version, the ancestors of the whole page, read a level at a time.
        let contexts = match version {
            Some(version) if wants.context || !wants.roles.is_empty() => {
                self.contexts_as_of(&page, version).await?
            }
            _ => HashMap::new(),
        };
        if wants.context {
            for object in &page {
                let chain = self.context_from(object, &contexts, version).await?;
                facts.context.insert(
                    object.id,
                    chain
                        .iter()
                        .filter(|o| sight.sees(o))
                        .map(embedded)
                        .collect(),
                );
            }
        }
        if wants.targets {
            let targets: Vec<ObjectId> = facts
                .edges
                .iter()
                .filter(|e| {
                    e.kind == EdgeKind::CustomRelationship || e.kind == EdgeKind::SemanticLink
                })
                .map(|e| e.target)
                .collect();
            for object in self.read_at(&targets, version).await?.0 {
                if sight.sees(&object) {
                    facts.targets.insert(object.id, embedded(&object));
                }
            }
        }
        if wants.models {
            let models: Vec<ObjectId> = page
                .iter()
                .filter(|o| o.kind == ObjectKind::ModelObject)
                .map(|o| ObjectId::repository(o.id.model))
                .collect();
            for model in self.read_at(&models, version).await?.0 {
                facts.models.insert(model.id, model);
            }
        }
        if wants.tasks {
            for object in &page {
                let tasks = self.workflow_tasks(caller, object).await?;
                facts.tasks.insert(object.id, tasks);
            }
        }
        if wants.curation {
            // One read for the page's curation, one per curator not met yet.
            let ids: Vec<ObjectId> = page.iter().map(|o| o.id).collect();
            for object in &page {
                facts.curation.insert(object.id, Vec::new());
            }
            for entry in self.store.curation_of(&ids).await? {
                if let std::collections::hash_map::Entry::Vacant(slot) =
                    facts.users.entry(entry.user)
                    && let Some(user) = self.store.user(entry.user).await?
                {
                    slot.insert(user);
                }
                facts.curation.entry(entry.object).or_default().push(entry);
            }
        }
        if wants.users {
            let users: BTreeSet<ObjectId> = page.iter().filter_map(|o| o.updated_by).collect();
            for id in users {
                if let Some(user) = self.store.user(id).await? {
                    facts.users.insert(id, user);
                }
            }
        }
        for role in &wants.roles {
            let grants = self.grants_of_role_to_users(role).await?;
            for grant in &grants {
                if let std::collections::hash_map::Entry::Vacant(slot) =
                    facts.users.entry(grant.grantee)
                    && let Some(user) = self.store.user(grant.grantee).await?
                {
                    slot.insert(user);
                }
            }
            facts.grants.insert(role.clone(), grants);
            for object in &page {
                if let std::collections::hash_map::Entry::Vacant(slot) =
                    facts.ancestors.entry(object.id)
                {
                    // Every ancestor, seen or not: a grant on a hidden folder still
                    // makes its grantee a member of the role below it.
                    let chain = self.context_from(object, &contexts, version).await?;
                    slot.insert(chain.iter().map(|o| o.id).collect());
                }
            }
        }
        facts.data_classes = self
            .store
            .data_classes()
            .await?
            .into_iter()
            .map(|d| (d.name.clone(), d))
            .collect();
        facts.sensitivity_labels = self
            .store
            .sensitivity_labels()
            .await?
            .into_iter()
            .map(|l| (l.name.clone(), l))
            .collect();
        Ok(facts)
    }
}

/// Sorts `objects` in the order of `ids`.
fn order_like(objects: &mut [Object], ids: &[ObjectId]) {
    let position: HashMap<ObjectId, usize> =
        ids.iter().enumerate().map(|(i, id)| (*id, i)).collect();
    objects.sort_by_key(|o| position.get(&o.id).copied().unwrap_or(usize::MAX));
}

fn hide_profiling(cond: Cond, hidden: &Cond) -> Cond {
    let each = |items: Vec<Cond>| {
        items
            .into_iter()
            .map(|c| hide_profiling(c, hidden))
            .collect()
    };
    match cond {
        Cond::And(items) => Cond::And(each(items)),
        Cond::Or(items) => Cond::Or(each(items)),
        Cond::Not(inner) => Cond::Not(Box::new(hide_profiling(*inner, hidden))),
        Cond::Related(relation, inner) => {
            Cond::Related(relation, Box::new(hide_profiling(*inner, hidden)))
        }
        c @ (Cond::Test(..) | Cond::Has(_)) if mentions_profiling(&c) => {
            Cond::And(vec![c, Cond::not(hidden.clone())])
        }
        other => other,
    }
}

/// Whether a field holds profiling results.
pub(super) fn is_profiling(field: &Field) -> bool {
    matches!(
        field,
        Field::Statistic(_) | Field::InferredDataTypes | Field::Profiling(_)
    )
}

/// Whether a condition reads data profiling results.
pub(super) fn mentions_profiling(cond: &Cond) -> bool {
    match cond {
        Cond::And(items) | Cond::Or(items) => items.iter().any(mentions_profiling),
        Cond::Not(inner) | Cond::Related(_, inner) => mentions_profiling(inner),
        Cond::Test(field, _) | Cond::Has(field) => is_profiling(field),
        _ => false,
    }
}

/// What the SELECT list needs beyond the objects themselves.
#[derive(Debug, Default)]
struct Wants {
    parents: bool,
    children: bool,
    context: bool,
    targets: bool,
    models: bool,
    users: bool,
    curation: bool,
    tasks: bool,
    roles: BTreeSet<String>,
}

impl Wants {
    fn of(select: &[Selected<'_>]) -> Self {
        let mut wants = Self::default();
        for item in select {
            match item {
                Selected::MembersOfRole(role) => {
                    wants.roles.insert(role.clone());
                }
                Selected::Count(_) => {}
                Selected::Attribute { resolved, .. } => match resolved {
                    Some(Resolved::System(a)) => match a.name {
                        "Parent" => wants.parents = true,
                        "Children" => wants.children = true,
                        "Context" => wants.context = true,
                        "Term Documentation" => wants.targets = true,
                        "Content Name" | "Content Description" => wants.models = true,
                        "Updated By" => wants.users = true,
                        "Endorsed By" | "Certified By" | "Commented By" | "Warned By"
                        | "Watchers" | "Endorsement Count" | "Comment Count" | "Warning Count"
                        | "Certified" => wants.curation = true,
                        "My Workflow Tasks" => wants.tasks = true,
                        _ => {}
                    },
                    Some(Resolved::Meta { attribute, .. })
                        if matches!(
                            attribute.kind,
                            AttributeKind::CustomRelationship | AttributeKind::ProfileRelationship
                        ) =>
                    {
                        wants.targets = true
                    }
                    Some(Resolved::Related { related, .. }) => match related.name {
                        "Parent" => wants.parents = true,
                        "Children" => wants.children = true,
                        _ => {}
                    },
                    _ => {}
                },
            }
        }
        wants
    }
}

/// What the page's SELECT list reads, gathered in a few store reads.
#[derive(Debug, Default)]
struct PageFacts {
    objects: HashMap<ObjectId, Object>,
    children: HashMap<(i64, Option<i64>), Vec<ObjectId>>,
    attributes: HashMap<(ObjectId, String), Value>,
    tags: Vec<crate::model::Tag>,
    classifications: Vec<crate::model::Classification>,
    labels: Vec<crate::model::LabelAssignment>,
    profiling: HashMap<ObjectId, Profiling>,
    edges: Vec<crate::model::Edge>,
    edge_set: std::collections::HashSet<crate::model::Edge>,
    data_classes: BTreeMap<String, DataClass>,
    sensitivity_labels: BTreeMap<String, SensitivityLabel>,
    context: HashMap<ObjectId, Vec<EmbeddedEntity>>,
    /// The ids of every ancestor of the page's objects (MembersOfRole's scope).
    ancestors: HashMap<ObjectId, Vec<ObjectId>>,
    targets: HashMap<ObjectId, EmbeddedEntity>,
    models: HashMap<ObjectId, Object>,
    users: HashMap<ObjectId, User>,
    grants: HashMap<String, Vec<crate::model::Grant>>,
    /// The curation of each page object, when the SELECT list reads it.
    curation: HashMap<ObjectId, Vec<crate::model::Curation>>,
    /// The caller's workflow actions on each page object, when the SELECT list reads them.
    tasks: HashMap<ObjectId, Vec<&'static str>>,
}

impl PageFacts {
    fn add(&mut self, objects: Vec<Object>, details: crate::store::Details) {
        for object in objects {
            self.objects.insert(object.id, object);
        }
        for a in details.attributes {
            self.attributes.insert((a.object, a.attribute), a.value);
        }
        self.tags.extend(details.tags);
        self.classifications.extend(details.classifications);
        self.labels.extend(details.labels);
        for p in details.profiling {
            self.profiling.insert(p.object, p);
        }
        for e in details.edges {
            if self.edge_set.insert(e.clone()) {
                self.edges.push(e);
            }
        }
    }
}

impl Facts for PageFacts {
    fn object(&self, id: ObjectId) -> Option<&Object> {
        self.objects.get(&id)
    }

    fn curators(&self, id: ObjectId, kind: CurationKind) -> Vec<&str> {
        self.curation
            .get(&id)
            .into_iter()
            .flatten()
            .filter(|c| c.kind == kind)
            .filter_map(|c| self.users.get(&c.user).map(|u| u.name.as_str()))
            .collect()
    }

    fn children_of(&self, model: i64, parent: Option<i64>) -> Vec<&Object> {
        self.children
            .get(&(model, parent))
            .into_iter()
            .flatten()
            .filter_map(|id| self.objects.get(id))
            .collect()
    }

    fn attribute(&self, id: ObjectId, name: &str) -> Option<&Value> {
        self.attributes.get(&(id, name.to_owned()))
    }

    fn tags(&self, id: ObjectId, kind: TagKind) -> Vec<&str> {
        self.tags
            .iter()
            .filter(|t| t.object == id && t.kind == kind)
            .map(|t| t.value.as_str())
            .collect()
    }

    fn classifications(&self, id: ObjectId) -> Vec<(&str, ClassificationStatus)> {
        self.classifications
            .iter()
            .filter(|c| c.object == id)
            .map(|c| (c.data_class.as_str(), c.status))
            .collect()
    }

    fn data_class(&self, name: &str) -> Option<&DataClass> {
        self.data_classes.get(name)
    }

    fn label_assignments(&self, id: ObjectId) -> Vec<(&str, ClassificationStatus)> {
        self.labels
            .iter()
            .filter(|l| l.object == id)
            .map(|l| (l.label.as_str(), l.status))
            .collect()
    }

    fn sensitivity_label(&self, name: &str) -> Option<&SensitivityLabel> {
        self.sensitivity_labels.get(name)
    }

    fn profiling(&self, id: ObjectId) -> Option<&Profiling> {
        self.profiling.get(&id)
    }

    fn edge_names(&self, id: ObjectId, kind: EdgeKind, outgoing: bool) -> Vec<&str> {
        self.edges
            .iter()
            .filter(|e| {
                e.kind == kind
                    && if outgoing {
                        e.source == id
                    } else {
                        e.target == id
                    }
            })
            .map(|e| e.name.as_str())
            .collect()
    }
}

/// One SELECT item of an object in the MQL entity format.
fn selected_attribute(item: &Selected<'_>, object: &Object, facts: &PageFacts) -> Attribute {
    let (name, display, kind, value) = match item {
        Selected::Attribute { path, resolved } => {
            let display = path
                .0
                .iter()
                .map(|n| n.text.as_str())
                .collect::<Vec<_>>()
                .join(".");
            let kind = resolved
                .as_ref()
                .map_or(AttributeKind::System, |r| r.kind());
            let value = match resolved {
                None => Json::Null,
                Some(resolved) => resolved_value(resolved, object, facts),
            };
            (path.to_string(), display, kind, value)
        }
        Selected::MembersOfRole(role) => {
            let text = format!("MembersOfRole('{}')", role.replace('\'', "''"));
            (
                text.clone(),
                text,
                AttributeKind::System,
                members_of_role(role, object, facts),
            )
        }
        Selected::Count(relationship) => {
            let text = format!("Count('{}')", relationship.replace('\'', "''"));
            let count = facts
                .edge_names(object.id, EdgeKind::CustomRelationship, true)
                .iter()
                .filter(|n| **n == relationship.as_str())
                .count();
            (text.clone(), text, AttributeKind::System, json!(count))
        }
    };
    Attribute {
        attribute_type: AttributeTypeRef {
            name,
            display_name: display,
            kind: kind.as_str().to_owned(),
        },
        value,
    }
}

fn resolved_value(resolved: &Resolved<'_>, object: &Object, facts: &PageFacts) -> Json {
    match resolved {
        Resolved::System(a) => system_value(a, object, facts),
        Resolved::Profiling(a) => profiling_value(a.name, object, facts),
        Resolved::Meta { attribute, .. } => match attribute.kind {
            AttributeKind::CustomRelationship | AttributeKind::ProfileRelationship => {
                relationship_targets(object, facts, Some(&attribute.name))
            }
            _ => facts
                .attribute(object.id, &attribute.name)
                .map_or(Json::Null, |v| json!(v)),
        },
        Resolved::Related { related, property } => {
            let related_values = |o: &Object| -> Json {
                match property {
                    Property::System(a) => system_value(a, o, facts),
                    Property::Profiling(a) => profiling_value(a.name, o, facts),
                    Property::Meta(attribute) => resolved_value(
                        &Resolved::Meta {
                            attribute,
                            profile: None,
                        },
                        o,
                        facts,
                    ),
                    Property::DataClass(_) => Json::Null,
                }
            };
            match related.name {
                "Parent" => eval::parent_id(object)
                    .and_then(|id| facts.object(id))
                    .map_or(Json::Null, related_values),
                "Children" => Json::Array(
                    eval::children(facts, object)
                        .into_iter()
                        .map(related_values)
                        .collect(),
                ),
                name if name.starts_with("Data Classifications") => {
                    let statuses = class_statuses(name);
                    Json::Array(
                        facts
                            .classifications(object.id)
                            .into_iter()
                            .filter(|(_, s)| statuses.contains(s))
                            .filter_map(|(n, _)| facts.data_class(n))
                            .map(|d| match property {
                                Property::DataClass("Description") => json!(d.description),
                                _ => json!(d.name),
                            })
                            .collect(),
                    )
                }
                _ => json!([]),
            }
        }
    }
}

fn class_statuses(name: &str) -> Vec<ClassificationStatus> {
    match name {
        "Data Classifications Approved" => vec![ClassificationStatus::Approved],
        "Data Classifications Matched" => vec![ClassificationStatus::Matched],
        "Data Classifications Rejected" => vec![ClassificationStatus::Rejected],
        _ => vec![
            ClassificationStatus::Matched,
            ClassificationStatus::Approved,
        ],
    }
}

fn text_values(vals: Vec<Val<'_>>) -> Json {
    Json::Array(
        vals.into_iter()
            .filter_map(|v| match v {
                Val::Text(t) => Some(json!(t)),
                _ => None,
            })
            .collect(),
    )
}

fn column(field: Field, object: &Object, facts: &PageFacts) -> Json {
    match eval::raw_values(&field, facts, Row::Object(object))
        .into_iter()
        .next()
    {
        None => Json::Null,
        Some(Val::Text(t)) => json!(t),
        Some(Val::Integer(i)) => json!(i),
        Some(Val::Double(d)) => json!(d),
        Some(Val::Boolean(b)) => json!(b),
        Some(Val::Time(t)) => chrono::DateTime::from_timestamp_micros(t)
            .map_or(Json::Null, |t| json!(format_datetime(&t))),
    }
}

fn label_objects(names: Vec<&str>, object: &Object, facts: &PageFacts) -> Vec<Json> {
    names
        .into_iter()
        .filter_map(|name| {
            let label = facts.sensitivity_label(name)?;
            let status = facts
                .label_assignments(object.id)
                .into_iter()
                .find(|(n, _)| *n == name)
                .map(|(_, s)| s.as_str())
                .unwrap_or_default();
            Some(json!({
                "name": label.name,
                "position": label.position,
                "description": label.description,
                "status": status,
                "foregroundColor": label.foreground_color,
                "backgroundColor": label.background_color,
            }))
        })
        .collect()
}

fn grantee(user: &User) -> Json {
    json!({
        "id": user.id.to_string(),
        "name": user.name,
        "fullName": user.full_name,
        "type": "User",
        "description": user.description,
        "email": user.email,
    })
}

fn relationship_targets(object: &Object, facts: &PageFacts, name: Option<&str>) -> Json {
    let mut targets: Vec<&EmbeddedEntity> = facts
        .edges
        .iter()
        .filter(|e| e.source == object.id)
        .filter(|e| match name {
            Some(name) => e.kind == EdgeKind::CustomRelationship && e.name == name,
            // Term Documentation: the terms defining the object.
            None => {
                e.kind == EdgeKind::SemanticLink
                    || (e.kind == EdgeKind::CustomRelationship && e.name == "Is Defined By")
            }
        })
        .filter_map(|e| facts.targets.get(&e.target))
        .collect();
    targets.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
    targets.dedup_by(|a, b| a.id == b.id);
    json!(targets)
}

fn members_of_role(role: &str, object: &Object, facts: &PageFacts) -> Json {
    let Some(grants) = facts.grants.get(role) else {
        return json!([]);
    };
    let mut scope: Vec<ObjectId> = facts.ancestors.get(&object.id).cloned().unwrap_or_default();
    scope.push(object.id);
    let mut members: Vec<&User> = grants
        .iter()
        .filter(|g| g.object.is_none_or(|o| scope.contains(&o)))
        .filter_map(|g| facts.users.get(&g.grantee))
        .collect();
    members.sort_by(|a, b| a.name.cmp(&b.name));
    members.dedup_by(|a, b| a.id == b.id);
    Json::Array(members.into_iter().map(grantee).collect())
}

fn profiling_value(name: &str, object: &Object, facts: &PageFacts) -> Json {
    match Statistic::of(name) {
        Some(s) => column(Field::Statistic(s), object, facts),
        None => text_values(eval::raw_values(
            &Field::InferredDataTypes,
            facts,
            Row::Object(object),
        )),
    }
}

/// The value of a system attribute of an object, in its MQL shape (spec 2.3, 2.4).
fn system_value(a: &SystemAttribute, object: &Object, facts: &PageFacts) -> Json {
    use crate::mql::plan::Column as C;
    let col = |c: C| column(Field::Column(c), object, facts);
    let profile = facts.profiling(object.id).and_then(|p| p.profile.as_ref());
    let has_edge = |kind: EdgeKind, name: Option<&str>, outgoing: bool| {
        facts
            .edge_names(object.id, kind, outgoing)
            .iter()
            .any(|n| name.is_none_or(|want| want == *n))
    };
    match a.name {
        "Name" => col(C::Name),
        "Physical Name" => col(C::PhysicalName),
        "Native Id" => col(C::NativeId),
        "Description" => col(C::Description),
        "Business Name" => col(C::BusinessName),
        "Business Description" => col(C::BusinessDescription),
        "Data Type" => col(C::DataType),
        "External Url" => col(C::ExternalUrl),
        "Workflow State" => col(C::WorkflowState),
        "Object Type" => col(C::TypeName),
        "Object Profile" => col(C::Profile),
        "Object Type Id" => col(C::TypeId),
        "Object System Type" => col(C::SystemType),
        "Object Stable Id" => col(C::StableId),
        "Model Id" => col(C::ModelNumber),
        "Hide Data" => col(C::HideData),
        "Updated Date" => col(C::UpdatedAt),
        "Object Id" => json!(object.id.to_string()),
        "Parent" => eval::parent_id(object)
            .and_then(|id| facts.object(id))
            .map_or(Json::Null, |p| json!(p.name)),
        "Children" => Json::Array(
            eval::children(facts, object)
                .into_iter()
                .map(|c| json!(c.name))
                .collect(),
        ),
        "Labels" => json!(facts.tags(object.id, TagKind::Label)),
        "Collections" => json!(facts.tags(object.id, TagKind::Collection)),
        name if name.starts_with("Data Classifications") => {
            classification_names(name, object, facts)
        }
        "Sensitivity Label" => top_label(LabelSet::Top, object, facts),
        "Sensitivity Label Approved" => top_label(LabelSet::TopApproved, object, facts),
        "Sensitivity Labels Matched" => Json::Array(label_objects(
            eval::labels(facts, object.id, LabelSet::Matched),
            object,
            facts,
        )),
        "Sensitivity Labels Rejected" => Json::Array(label_objects(
            eval::labels(facts, object.id, LabelSet::Rejected),
            object,
            facts,
        )),
        "Context" => json!(facts.context.get(&object.id).cloned().unwrap_or_default()),
        "Data Profiling" => profile.map_or(Json::Null, |p| json!(p)),
        "Data Sampling" => facts
            .profiling(object.id)
            .and_then(|p| p.sample.as_ref())
            .map_or(Json::Null, |s| json!(s)),
        "Column Histogram" => profile
            .filter(|p| !p.histogram.is_empty())
            .map_or(Json::Null, |p| json!(p.histogram)),
        "Column Statistics" => column_statistics(object, facts),
        "Has Data Lineage" => json!(has_edge(EdgeKind::Lineage, None, false)),
        "Has Data Impact" => json!(has_edge(EdgeKind::Lineage, None, true)),
        "Has Semantic Definition" => json!(
            has_edge(EdgeKind::SemanticLink, None, true)
                || has_edge(EdgeKind::CustomRelationship, Some("Is Defined By"), true)
        ),
        "Has Semantic Usage" => json!(
            has_edge(EdgeKind::SemanticLink, None, false)
                || has_edge(EdgeKind::CustomRelationship, Some("Is Defined By"), false)
        ),
        "Term Documentation" => relationship_targets(object, facts, None),
        "Content Name" => content_model(object, facts).map_or(Json::Null, |m| json!(m.name)),
        "Content Description" => {
            content_model(object, facts).map_or(Json::Null, |m| json!(m.description))
        }
        "Updated By" => object
            .updated_by
            .and_then(|id| facts.users.get(&id))
            .map_or(Json::Null, grantee),
        "Endorsed By" => curated_by(CurationKind::Endorsement, object, facts),
        "Certified By" => curated_by(CurationKind::Certification, object, facts),
        "Commented By" => curated_by(CurationKind::Comment, object, facts),
        "Warned By" => curated_by(CurationKind::Warning, object, facts),
        "Watchers" => curated_by(CurationKind::Watch, object, facts),
        "Comment Count" => curation_count(CurationKind::Comment, object, facts),
        "Endorsement Count" => curation_count(CurationKind::Endorsement, object, facts),
        "Warning Count" => curation_count(CurationKind::Warning, object, facts),
        "My Workflow Tasks" => json!(facts.tasks.get(&object.id).cloned().unwrap_or_default()),
        "Certified" => json!(facts.curation.get(&object.id).is_some_and(|entries| {
            entries
                .iter()
                .any(|c| c.kind == CurationKind::Certification)
        })),
        _ if a.shape.is_multi_valued() => json!([]),
        _ => Json::Null,
    }
}

/// The names of an object's data classes whose status a `Data Classifications ...`
/// attribute names.
fn classification_names(name: &str, object: &Object, facts: &PageFacts) -> Json {
    let statuses = class_statuses(name);
    json!(
        facts
            .classifications(object.id)
            .into_iter()
            .filter(|(_, s)| statuses.contains(s))
            .map(|(n, _)| n)
            .collect::<Vec<_>>()
    )
}

/// The object's top sensitivity label of a set (all, or approved only), or null.
fn top_label(set: LabelSet, object: &Object, facts: &PageFacts) -> Json {
    label_objects(eval::labels(facts, object.id, set), object, facts)
        .into_iter()
        .next()
        .unwrap_or(Json::Null)
}

/// The statistics of an object's profile, or null when there are none.
fn column_statistics(object: &Object, facts: &PageFacts) -> Json {
    let profile = facts.profiling(object.id).and_then(|p| p.profile.as_ref());
    let present = !eval::raw_values(
        &Field::Profiling(ProfilingPart::Statistics),
        facts,
        Row::Object(object),
    )
    .is_empty();
    match profile {
        Some(p) if present => json!(p.statistics),
        _ => Json::Null,
    }
}

/// The model whose content an object is: the object itself for a model, its model for
/// a model object.
fn content_model<'a>(object: &'a Object, facts: &'a PageFacts) -> Option<&'a Object> {
    match object.kind {
        ObjectKind::Model => Some(object),
        ObjectKind::ModelObject => facts.models.get(&ObjectId::repository(object.id.model)),
        _ => None,
    }
}

/// The users who curated an object in one way (endorsed, certified, ...), each once.
fn curated_by(kind: CurationKind, object: &Object, facts: &PageFacts) -> Json {
    let mut seen = BTreeSet::new();
    let users: Vec<Json> = facts
        .curation
        .get(&object.id)
        .into_iter()
        .flatten()
        .filter(|c| c.kind == kind && seen.insert(c.user))
        .filter_map(|c| facts.users.get(&c.user))
        .map(grantee)
        .collect();
    json!(users)
}

/// How many curation entries of one kind (comments, endorsements, warnings) an object has.
fn curation_count(kind: CurationKind, object: &Object, facts: &PageFacts) -> Json {
    let count = facts.curation.get(&object.id).map_or(0, |entries| {
        entries.iter().filter(|c| c.kind == kind).count()
    });
    json!(count)
}

/// The values counted for one SELECT item (`POST /entities/getAttributeValueCounts`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AttributeValueCounts {
    pub attribute_type: AttributeTypeRef,
    /// Most frequent first, then by value.
    pub values: Vec<CountedValue>,
}

/// One value and how many objects have it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CountedValue {
    pub value: Json,
    pub count: u64,
}

/// Values counted per attribute when the request names no limit.
pub const DEFAULT_VALUE_COUNTS: u64 = 100;
/// The most values a request may ask to be counted per attribute.
pub const MAX_VALUE_COUNTS: u64 = 10_000;

impl Search<'_> {
    /// `POST /entities/getAttributeValueCounts`: for each SELECT item, how many of the
    /// query's objects have each value; dates in buckets of `gap` (a day by default).
    pub async fn attribute_value_counts(
        &self,
        caller: &Caller,
        query: MqlQuery<'_>,
        gap: Option<&str>,
        limit: Option<i64>,
    ) -> Result<Vec<AttributeValueCounts>> {
        let sight = self.sight(caller).await?;
        let hidden = self.hidden_data(caller).await?;
        let gap = match gap.map(str::trim).filter(|g| !g.is_empty()) {
            None => None,
            Some(text) => Some(DateGap::parse(text).ok_or_else(|| {
                Error::invalid(format!(
                    "dateRangeGap '{text}' is not one of YEAR, MONTH, DAY, HOUR"
                ))
            })?),
        };
        let limit = match limit {
            None => DEFAULT_VALUE_COUNTS,
            Some(n) if (1..=MAX_VALUE_COUNTS as i64).contains(&n) => n as u64,
            Some(n) => {
                return Err(Error::invalid(format!(
                    "limit {n} is out of range: 1 to {MAX_VALUE_COUNTS}"
                )));
            }
        };
        let meta = self.meta_model_for(caller).await?;
        let validated = Catalog::checked_query(query, &meta)?;
        let (mut plan, _) = self
            .plan(caller, &sight, &hidden, &validated.query, &meta)
            .await?;
        plan.as_of = self.moment(plan.as_of).await?;
        profiling_kept_now(&plan, &hidden)?;
        // Each item's attribute and facet (none for an attribute unknown to the meta
        // model, which counts nothing), then one call to the store for all facets.
        let mut items = Vec::with_capacity(validated.select.len());
        let mut facets = Vec::new();
        for item in &validated.select {
            let Selected::Attribute { path, resolved } = item else {
                let function = match item {
                    Selected::MembersOfRole(role) => format!("MembersOfRole('{role}')"),
                    Selected::Count(r) => format!("Count('{r}')"),
                    Selected::Attribute { .. } => String::new(),
                };
                return Err(Error::invalid(format!(
                    "getAttributeValueCounts counts the values of attributes; {function} is a function"
                )));
            };
            let counted = match resolved {
                None => None,
                Some(_) => {
                    let mut facet = facet(path, &meta, gap).map_err(Error::invalid)?;
                    if is_profiling(&facet.field) {
                        if plan.as_of.is_some() && hidden != Cond::False {
                            return Err(Error::invalid(PROFILING_NOT_KEPT));
                        }
                        facet.hidden = hidden.clone();
                    }
                    facets.push(facet);
                    Some(facets.len() - 1)
                }
            };
            items.push((path, resolved, counted));
        }
        let mut counts = self.value_counts_at(&plan, &facets, limit).await?;
        let mut answers = Vec::with_capacity(items.len());
        for (path, resolved, counted) in items {
            let display = path
                .0
                .iter()
                .map(|n| n.text.as_str())
                .collect::<Vec<_>>()
                .join(".");
            let kind = resolved
                .as_ref()
                .map_or(AttributeKind::System, |r| r.kind());
            let values = counted
                .and_then(|i| counts.get_mut(i))
                .map(std::mem::take)
                .unwrap_or_default()
                .into_iter()
                .map(|c| CountedValue {
                    value: lit_json(c.value),
                    count: c.count,
                })
                .collect();
            answers.push(AttributeValueCounts {
                attribute_type: AttributeTypeRef {
                    name: path.to_string(),
                    display_name: display,
                    kind: kind.as_str().to_owned(),
                },
                values,
            });
        }
        Ok(answers)
    }
}

/// A counted value as JSON: text, a number, a boolean, a datetime string.
fn lit_json(lit: Lit) -> Json {
    match lit {
        Lit::Text(t) => json!(t),
        Lit::Integer(i) => json!(i),
        Lit::Double(d) => json!(d),
        Lit::Boolean(b) => json!(b),
        Lit::Time(t) => chrono::DateTime::from_timestamp_micros(t)
            .map_or(Json::Null, |t| json!(format_datetime(&t))),
    }
}

impl Search<'_> {
    /// `GET /entities/{objectId}` with `select`: the object in the MQL entity format.
    pub async fn get_entity_selected(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
        select: &str,
        version: u32,
    ) -> Result<MqlEntity> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let meta = self.meta_model_for(caller).await?;
        let validated =
            Catalog::checked_query(MqlQuery::text(&select_only(select), version), &meta)?;
        let object = self.find(caller, reference).await?;
        let sight = self.sight(caller).await?;
        let hidden = self.hidden_data(caller).await?;
        let mut entities = self
            .mql_entities(
                caller,
                &sight,
                &hidden,
                &[object.id],
                &validated.select,
                None,
            )
            .await?;
        entities
            .pop()
            .ok_or_else(|| Error::not_found(format!("object {} does not exist", object.id)))
    }

    /// `GET /relationships/{objectId}`: the objects related to the object by an edge of
    /// any kind (custom relationships, semantic links, entity relationships, term
    /// references, lineage, ...), either way, each once, by name; in the MQL entity
    /// format with `select`, else the legacy format.
    pub async fn relationships(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
        select: Option<&str>,
        version: u32,
    ) -> Result<QueryResult> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let meta = self.meta_model_for(caller).await?;
        let validated = match select {
            Some(select) => Some(Catalog::checked_query(
                MqlQuery::text(&select_only(select), version),
                &meta,
            )?),
            None => None,
        };
        let object = self.find(caller, reference).await?;
        let sight = self.sight(caller).await?;
        let mut related = self.related_objects(&object).await?;
        related.retain(|o| sight.sees(o));
        related.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        Ok(match validated {
            Some(validated) => {
                let ids: Vec<ObjectId> = related.iter().map(|o| o.id).collect();
                let hidden = self.hidden_data(caller).await?;
                QueryResult::Mql(
                    self.mql_entities(caller, &sight, &hidden, &ids, &validated.select, None)
                        .await?,
                )
            }
            None => QueryResult::Legacy(self.entities(caller, &related).await?),
        })
    }

    /// `GET /relationships/count/{objectId}`: how many objects [`Search::relationships`]
    /// answers.
    pub async fn count_relationships(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
        version: u32,
    ) -> Result<u64> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let _ = version;
        let object = self.find(caller, reference).await?;
        let sight = self.sight(caller).await?;
        Ok(self
            .related_ids(&object)
            .await?
            .into_iter()
            .filter(|id| sight.sees_id(*id))
            .count() as u64)
    }

    async fn related_objects(&self, object: &Object) -> Result<Vec<Object>> {
        let ids = self.related_ids(object).await?;
        self.stored_objects(&ids).await
    }

    /// The ids of the objects related to the object by an edge, either way, sorted.
    async fn related_ids(&self, object: &Object) -> Result<Vec<ObjectId>> {
        let details = self
            .store
            .details(crate::store::Scope::Objects(vec![object.id]))
            .await?;
        let ids: BTreeSet<ObjectId> = details
            .edges
            .iter()
            .filter_map(|e| {
                if e.source == object.id {
                    Some(e.target)
                } else if e.target == object.id {
                    Some(e.source)
                } else {
                    None
                }
            })
            .filter(|id| *id != object.id)
            .collect();
        Ok(ids.into_iter().collect())
    }
}

/// The fields of a query that is only a SELECT list.
fn select_only(select: &str) -> QueryFields<'_> {
    QueryFields {
        select,
        from: None,
        scope: None,
        context: None,
        filter: None,
        order_by: None,
    }
}

/// The reference a FROM or CONTEXT id names.
fn source_ref(id: &crate::mql::ast::SourceId) -> Result<ObjectRef> {
    ObjectRef::parse(&id.text)
}
