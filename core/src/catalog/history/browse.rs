//! The browse calls as of a time or a version: `GET /repository/getContext`,
//! `GET /configuration/listModels` and `GET /operations/repositoryBrowse` with `asOf`.
//! The repository's objects (folders, configurations, their versions, models) and the
//! configurations' contents are read as they were then; sight is today's, so an object
//! the caller cannot see now (or one gone since, which no grant reaches) is left out, and
//! a path or id that names it answers as one that names nothing.

use std::collections::HashMap;

use super::{AsOf, History};
use crate::auth::Caller;
use crate::catalog::Catalog;
use crate::catalog::objects::browse::{BrowseNode, build_nodes, embedded, require_configuration};
use crate::catalog::visibility::{not_found, require_view_somewhere};
use crate::error::{Error, Result};
use crate::id::{ObjectId, ObjectRef};
use crate::model::{Capability, EdgeKind, Object, ObjectKind};
use crate::mql::plan::{Column, Cond, Field, Page, Plan, SortKey};
use crate::store::Details;
use crate::wire::{EmbeddedEntity, Entity};

/// The most repository objects a browse as of a version reads: far more than a
/// repository holds.
const MOST_REPOSITORY_OBJECTS: u64 = 1_000_000;

impl Catalog {
    /// The ancestors of each object as they were at `version`, root first
    /// ([`Catalog::context`]), by the object's id: read a level at a time for them all.
    /// An ancestor gone since is read as it was; a chain ends where one did not exist
    /// then.
    pub(crate) async fn contexts_as_of(
        &self,
        objects: &[Object],
        version: i64,
    ) -> Result<HashMap<ObjectId, Vec<Object>>> {
        use crate::mql::eval::parent_id;
        let mut known: HashMap<ObjectId, Object> = HashMap::new();
        let mut wanted: Vec<ObjectId> = objects.iter().filter_map(parent_id).collect();
        let mut levels = 0;
        while !wanted.is_empty() {
            levels += 1;
            if levels > 10_000 {
                return Err(Error::internal("an ancestry as of a version has a cycle"));
            }
            wanted.sort();
            wanted.dedup();
            let (found, _) = self.objects_then(&wanted, version).await?;
            wanted = found
                .iter()
                .filter_map(parent_id)
                .filter(|p| !known.contains_key(p))
                .collect();
            known.extend(found.into_iter().map(|o| (o.id, o)));
        }
        let mut chains = HashMap::with_capacity(objects.len());
        for object in objects {
            let mut chain = Vec::new();
            let mut next = parent_id(object);
            while let Some(parent) = next.and_then(|id| known.get(&id)) {
                if chain.len() > 10_000 {
                    return Err(Error::internal(format!(
                        "the ancestry of {} has a cycle",
                        object.id
                    )));
                }
                next = parent_id(parent);
                chain.push(parent.clone());
            }
            chain.reverse();
            chains.insert(object.id, chain);
        }
        Ok(chains)
    }
}

impl History<'_> {
    /// The repository objects of these kinds as they were at `version`, sorted by name
    /// then id, with what hung on them then.
    async fn repository_as_of(
        &self,
        kinds: Vec<ObjectKind>,
        version: i64,
    ) -> Result<(Vec<Object>, Details)> {
        let plan = Plan {
            filter: Cond::Kinds(kinds),
            visibility: Cond::True,
            order: vec![SortKey {
                field: Field::Column(Column::Name),
                descending: false,
            }],
            as_of: Some(version),
        };
        let page = Page {
            offset: 0,
            limit: MOST_REPOSITORY_OBJECTS,
        };
        let ids = self.store.query(&plan, page).await?;
        if ids.len() as u64 >= MOST_REPOSITORY_OBJECTS {
            return Err(Error::internal(format!(
                "the repository held more than {MOST_REPOSITORY_OBJECTS} objects then"
            )));
        }
        let (mut objects, details) = self.store.objects_with_details_as_of(&ids, version).await?;
        objects.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        Ok((objects, details))
    }

    /// `GET /repository/getContext?asOf=`: the ancestors of the object as they were
    /// then, root first, those the caller cannot see now left out. An object that did not
    /// exist then is not found.
    pub async fn get_context_as_of(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
        as_of: AsOf,
    ) -> Result<Vec<EmbeddedEntity>> {
        let (object, version) = self.object_as_of(caller, reference, as_of).await?;
        let sight = self.sight(caller).await?;
        let mut chains = self
            .contexts_as_of(std::slice::from_ref(&object), version)
            .await?;
        Ok(chains
            .remove(&object.id)
            .unwrap_or_default()
            .iter()
            .filter(|o| sight.sees(o))
            .map(embedded)
            .collect())
    }

    /// `GET /configuration/listModels?asOf=`: the models then (of a configuration, its
    /// contents then), as they were, those the caller cannot see now left out.
    pub async fn list_models_as_of(
        &self,
        caller: &Caller,
        configuration: Option<&ObjectRef>,
        as_of: AsOf,
    ) -> Result<Vec<Entity>> {
        let sight = self.sight(caller).await?;
        let (mut models, details) = match configuration {
            None => {
                let version = self.revision_of(as_of).await?.version;
                self.repository_as_of(vec![ObjectKind::Model], version)
                    .await?
            }
            Some(reference) => {
                let (configuration, version) = self.object_as_of(caller, reference, as_of).await?;
                require_configuration(&configuration)?;
                let contents: Vec<ObjectId> = self
                    .store
                    .edges_as_of(configuration.id, version)
                    .await?
                    .into_iter()
                    .filter(|e| {
                        e.kind == EdgeKind::ConfigurationContent && e.source == configuration.id
                    })
                    .map(|e| e.target)
                    .collect();
                let (mut models, details) = self
                    .store
                    .objects_with_details_as_of(&contents, version)
                    .await?;
                models.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
                (models, details)
            }
        };
        models.retain(|m| sight.sees(m));
        let meta = self.meta_model_for(caller).await?;
        let mut entities = Vec::with_capacity(models.len());
        for model in &models {
            entities.push(self.entity_with(model, &details, &meta).await?);
        }
        Ok(entities)
    }

    /// `GET /operations/repositoryBrowse?asOf=`: the repository tree below a path as it
    /// was then, keeping only objects of the given kinds (all when empty) and the folders
    /// that lead to them; what the caller cannot see now is left out.
    pub async fn repository_browse_as_of(
        &self,
        caller: &Caller,
        path: &str,
        kinds: &[ObjectKind],
        as_of: AsOf,
    ) -> Result<Vec<BrowseNode>> {
        require_view_somewhere(caller)?;
        let sight = self.sight(caller).await?;
        let version = self.revision_of(as_of).await?.version;
        let names = crate::id::split_path(path)?;
        let all = vec![
            ObjectKind::Folder,
            ObjectKind::Configuration,
            ObjectKind::ConfigurationVersion,
            ObjectKind::Model,
        ];
        let (objects, _) = self.repository_as_of(all, version).await?;
        let mut lookup: HashMap<Option<ObjectId>, Vec<Object>> = HashMap::new();
        for object in objects {
            lookup.entry(object.parent).or_default().push(object);
        }
        // The path, name by name, as it was then. A caller who does not see the whole
        // repository must see every folder on it today: one they cannot see (or one gone
        // since, which no grant reaches) answers as a name that matches nothing, before
        // anything else is said of the path.
        let everything = caller.has(Capability::ViewMetadata);
        let mut start = None;
        for name in &names {
            let found = lookup
                .get(&start)
                .and_then(|children| children.iter().find(|c| &c.name == name))
                .filter(|found| everything || sight.sees(found));
            let Some(found) = found else {
                return Err(not_found(&ObjectRef::Path(names.clone())));
            };
            start = Some(found.id);
            if found.kind == ObjectKind::Model {
                return Err(Error::invalid(format!(
                    "repositoryPath '{path}' was a model; repositoryBrowse lists folders and configurations"
                )));
            }
        }
        // Below the root or a hidden folder, only what the caller sees now shows.
        for children in lookup.values_mut() {
            children.retain(|c| sight.sees(c));
        }
        // As the tree of today is walked: no deeper than 1,000 levels.
        let mut level = vec![start];
        for _ in 0..=1_000 {
            level = level
                .iter()
                .flat_map(|parent| lookup.get(parent).into_iter().flatten())
                .filter(|c| c.kind != ObjectKind::Model)
                .map(|c| Some(c.id))
                .collect();
            if level.is_empty() {
                return Ok(build_nodes(start, &lookup, kinds));
            }
        }
        Err(Error::internal(
            "the repository tree was deeper than 1000 levels",
        ))
    }
}
