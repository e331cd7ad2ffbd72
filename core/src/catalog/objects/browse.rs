//! Reading objects in the legacy entity format, the repository tree, and folders.

use serde::{Deserialize, Serialize};
use serde_json::json;

use super::Objects;
use crate::auth::Caller;
use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::id::{ObjectId, ObjectRef, REPOSITORY_MODEL};
use crate::model::*;
use crate::store::{Details, Op, Scope};
use crate::wire::{Attribute, AttributeTypeRef, EmbeddedEntity, Entity, TypeRef};

/// A node of `repositoryBrowse`'s tree.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BrowseNode {
    pub object_name: String,
    pub id: String,
    pub object_type: String,
    pub links: Vec<BrowseNode>,
}

/// What `createFolder` is asked to create.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FolderRequest {
    /// The parent folder or configuration (id or path); the repository root when absent.
    pub parent_id: Option<String>,
    pub name: Option<String>,
    pub description: Option<String>,
    /// `Folder` (default), `Configuration` or `Configuration Version`.
    pub object_type: Option<String>,
}

pub(crate) fn type_ref(object: &Object) -> TypeRef {
    TypeRef {
        name: object.object_type.qualified(),
        display_name: object.object_type.name.clone(),
    }
}

pub(crate) fn embedded(object: &Object) -> EmbeddedEntity {
    EmbeddedEntity {
        id: object.id.to_string(),
        name: object.name.clone(),
        object_type: type_ref(object),
    }
}

fn attribute(name: &str, kind: AttributeKind, value: serde_json::Value) -> Attribute {
    Attribute {
        attribute_type: AttributeTypeRef {
            name: name.to_owned(),
            display_name: name.to_owned(),
            kind: kind.as_str().to_owned(),
        },
        value,
    }
}

impl Catalog {
    /// The legacy entity of one object, with its system, custom and profile attributes,
    /// labels, defining terms and data classes.
    pub(crate) async fn entity(&self, caller: &Caller, object: &Object) -> Result<Entity> {
        let details = self.store.details(Scope::Objects(vec![object.id])).await?;
        let meta = self.meta_model_for(caller).await?;
        self.entity_with(object, &details, &meta).await
    }

    pub(crate) async fn entity_with(
        &self,
        object: &Object,
        details: &Details,
        meta: &MetaModel,
    ) -> Result<Entity> {
        let mut attributes = Vec::new();
        let mut system = |name: &str, value: serde_json::Value| {
            if !value.is_null() {
                attributes.push(attribute(name, AttributeKind::System, value));
            }
        };
        system("Object Id", json!(object.id.to_string()));
        system("Name", json!(object.name));
        system("Object Type", json!(object.object_type.name));
        system("Object Profile", json!(object.object_type.profile));
        system("Object System Type", json!(object.system_type.as_str()));
        system("Physical Name", json!(object.physical_name));
        system("Native Id", json!(object.native_id));
        system("Object Stable Id", json!(object.stable_id));
        system("Description", json!(object.description));
        system("Business Name", json!(object.business_name));
        system("Business Description", json!(object.business_description));
        system("Data Type", json!(object.data_type));
        system("External Url", json!(object.external_url));
        system("Hide Data", json!(object.hide_data));
        system("Workflow State", json!(object.workflow_state));
        system("Model Id", json!(object.model_number()));
        system("Updated Date", json!(format_datetime(&object.updated_at)));
        for value in details.attributes.iter().filter(|a| a.object == object.id) {
            let kind = meta
                .attribute_type(&value.attribute)
                .map(|a| a.kind)
                .unwrap_or(AttributeKind::Udp);
            attributes.push(attribute(&value.attribute, kind, json!(value.value)));
        }

        let labels: Vec<String> = details
            .tags
            .iter()
            .filter(|t| t.object == object.id && t.kind == TagKind::Label)
            .map(|t| t.value.clone())
            .collect();
        let data_classes: Vec<String> = details
            .classifications
            .iter()
            .filter(|c| {
                c.object == object.id
                    && matches!(
                        c.status,
                        ClassificationStatus::Matched | ClassificationStatus::Approved
                    )
            })
            .map(|c| c.data_class.clone())
            .collect();
        let term_ids: Vec<ObjectId> = details
            .edges
            .iter()
            .filter(|e| e.source == object.id && is_definition(e))
            .map(|e| e.target)
            .collect();
        let mut terms = if term_ids.is_empty() {
            Vec::new()
        } else {
            self.stored_objects(&term_ids).await?
        };
        terms.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        terms.dedup_by_key(|t| t.id);
        let terms: Vec<EmbeddedEntity> = terms.iter().map(embedded).collect();
        Ok(Entity {
            id: object.id.to_string(),
            name: object.name.clone(),
            object_type: type_ref(object),
            entity_type: type_ref(object),
            attributes,
            parent_id: self.parent_id(object),
            labels,
            term: terms.first().map(|t| t.name.clone()),
            terms,
            semantic_types: data_classes.clone(),
            data_classifications: data_classes,
        })
    }

    /// The legacy entities of several objects, reading what hangs on them in one call.
    pub(crate) async fn entities(
        &self,
        caller: &Caller,
        objects: &[Object],
    ) -> Result<Vec<Entity>> {
        if objects.is_empty() {
            return Ok(Vec::new());
        }
        let details = self
            .store
            .details(Scope::Objects(objects.iter().map(|o| o.id).collect()))
            .await?;
        let meta = self.meta_model_for(caller).await?;
        let mut entities = Vec::with_capacity(objects.len());
        for object in objects {
            entities.push(self.entity_with(object, &details, &meta).await?);
        }
        Ok(entities)
    }

    fn parent_id(&self, object: &Object) -> Option<String> {
        match (object.parent, object.kind) {
            (Some(parent), _) => Some(parent.to_string()),
            (None, ObjectKind::ModelObject) => {
                Some(ObjectId::repository(object.id.model).to_string())
            }
            (None, _) => None,
        }
    }
}

impl Objects<'_> {
    /// `GET /entities/{objectId}` in the legacy format. A raw read by id, whose object
    /// [`Catalog::shown`] answers as missing unless the caller sees it, before anything
    /// of it is used.
    #[allow(clippy::disallowed_methods)]
    pub async fn get_entity(&self, caller: &Caller, reference: &ObjectRef) -> Result<Entity> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        // By id, the object and what hangs on it come in one read.
        let (object, details) = match reference {
            ObjectRef::Id(id) => {
                let read = self.store.entity_read(*id, None).await?;
                let object = self
                    .shown(caller, reference, read.object, read.repository_version)
                    .await?;
                (object, read.details)
            }
            other => {
                let object = self.find(caller, other).await?;
                let details = self.store.details(Scope::Objects(vec![object.id])).await?;
                (object, details)
            }
        };
        let meta = self.meta_model_for(caller).await?;
        self.entity_with(&object, &details, &meta).await
    }

    /// [`Identity::authenticate`](crate::catalog::Identity::authenticate) and then
    /// [`Objects::get_entity`]: for a key seen before and an object by id, in one store
    /// read, which carries the key's check
    /// ([`ObjectStore::entity_read`](crate::store::ObjectStore::entity_read)); what it
    /// read is used only once the check says the caller known for the key is still its.
    /// Answers the caller with the entity, for the call log. The raw read is checked by
    /// [`Catalog::shown`] as in [`Objects::get_entity`].
    #[allow(clippy::disallowed_methods)]
    pub async fn get_entity_by_key(
        &self,
        key: &str,
        reference: &ObjectRef,
    ) -> Result<(Caller, Entity)> {
        let key_hash = crate::auth::hash_api_key(key);
        if let ObjectRef::Id(id) = reference
            && self.callers.knows(&key_hash)
        {
            let now = crate::model::now();
            let read = self.store.entity_read(*id, Some((&key_hash, now))).await?;
            if let Some(caller) = self.known_caller(&key_hash, read.check, now).await? {
                crate::catalog::visibility::require_view_somewhere(&caller)?;
                let object = self
                    .shown(&caller, reference, read.object, read.repository_version)
                    .await?;
                let meta = self.meta_model_for(&caller).await?;
                let entity = self.entity_with(&object, &read.details, &meta).await?;
                return Ok((caller, entity));
            }
        }
        let caller = self.identity().authenticate(key).await?;
        let entity = self.get_entity(&caller, reference).await?;
        Ok((caller, entity))
    }

    /// `GET /repository/getContext`: the ancestors of an object, root first, as embedded entities.
    pub async fn get_context(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
    ) -> Result<Vec<EmbeddedEntity>> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let object = self.find(caller, reference).await?;
        let sight = self.sight(caller).await?;
        // Ancestors the caller may not see (a folder above a granted model) are left out.
        Ok(self
            .context(&object)
            .await?
            .iter()
            .filter(|o| sight.sees(o))
            .map(embedded)
            .collect())
    }

    /// `GET /configuration/listModels`: the models of a configuration, or all models.
    pub async fn list_models(
        &self,
        caller: &Caller,
        configuration: Option<&ObjectRef>,
    ) -> Result<Vec<Entity>> {
        let sight = self.sight(caller).await?;
        let mut models = match configuration {
            None => self.store.objects_of_kind(ObjectKind::Model).await?,
            Some(reference) => {
                let configuration = self.find(caller, reference).await?;
                require_configuration(&configuration)?;
                self.edge_targets(EdgeKind::ConfigurationContent, configuration.id, false)
                    .await?
            }
        };
        models.retain(|m| sight.sees(m));
        self.entities(caller, &models).await
    }

    /// `GET /configurations/listConnectedModels`: the models connected to a model, in
    /// either direction, optionally only those in a configuration.
    pub async fn list_connected_models(
        &self,
        caller: &Caller,
        model: &ObjectRef,
        configuration: Option<&ObjectRef>,
    ) -> Result<Vec<Entity>> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let model = self.find(caller, model).await?;
        let sight = self.sight(caller).await?;
        if model.kind != ObjectKind::Model {
            return Err(Error::invalid(format!(
                "{} ('{}') is not a model",
                model.id, model.name
            )));
        }
        let mut connected = self
            .edge_targets(EdgeKind::ModelConnection, model.id, false)
            .await?;
        connected.extend(
            self.edge_targets(EdgeKind::ModelConnection, model.id, true)
                .await?,
        );
        if let Some(reference) = configuration {
            let configuration = self.find(caller, reference).await?;
            let members = self
                .store
                .edges(EdgeKind::ConfigurationContent, configuration.id, false)
                .await?;
            connected.retain(|m| members.iter().any(|e| e.target == m.id));
        }
        connected.retain(|m| sight.sees(m));
        connected.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        connected.dedup_by_key(|m| m.id);
        self.entities(caller, &connected).await
    }

    /// The objects at the other end of the edges of one kind, sorted by name.
    async fn edge_targets(
        &self,
        kind: EdgeKind,
        object: ObjectId,
        incoming: bool,
    ) -> Result<Vec<Object>> {
        let mut found = Vec::new();
        for edge in self.store.edges(kind, object, incoming).await? {
            let other = if incoming { edge.source } else { edge.target };
            if let Some(o) = self.stored_object(other).await? {
                found.push(o);
            }
        }
        found.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        Ok(found)
    }

    /// `GET /operations/repositoryBrowse`: the repository tree below a path, keeping only
    /// objects of the given kinds (all when empty) and the folders that lead to them.
    pub async fn repository_browse(
        &self,
        caller: &Caller,
        path: &str,
        kinds: &[ObjectKind],
    ) -> Result<Vec<BrowseNode>> {
        let sight = self.sight(caller).await?;
        let names = crate::id::split_path(path)?;
        let start = if names.is_empty() {
            None
        } else {
            let folder = self.find(caller, &ObjectRef::Path(names)).await?;
            if matches!(folder.kind, ObjectKind::Model | ObjectKind::ModelObject) {
                return Err(Error::invalid(format!(
                    "repositoryPath '{path}' is a {}; repositoryBrowse lists folders and configurations",
                    folder.kind.as_str().to_lowercase()
                )));
            }
            Some(folder.id)
        };
        let mut stack = vec![(start, 0usize)];
        // Depth-first, iteratively: collect each level's nodes, then assemble bottom-up.
        let mut levels: Vec<(Option<ObjectId>, Vec<Object>)> = Vec::new();
        while let Some((parent, depth)) = stack.pop() {
            if depth > 1_000 {
                return Err(Error::internal(
                    "the repository tree is deeper than 1000 levels",
                ));
            }
            let mut children = self.store.children(REPOSITORY_MODEL, parent).await?;
            // Below the repository root or a hidden folder, only granted subtrees show.
            children.retain(|c| sight.sees(c));
            for child in &children {
                if child.kind != ObjectKind::Model {
                    stack.push((Some(child.id), depth + 1));
                }
            }
            levels.push((parent, children));
        }
        let lookup: std::collections::HashMap<Option<ObjectId>, Vec<Object>> =
            levels.into_iter().collect();
        Ok(build_nodes(start, &lookup, kinds))
    }

    /// `POST /repository/createFolder`: creates a folder, configuration or configuration
    /// version; names are unique among siblings.
    pub async fn create_folder(&self, caller: &Caller, request: &FolderRequest) -> Result<Entity> {
        let name = request.name.as_deref().map(str::trim).unwrap_or_default();
        if name.is_empty() {
            return Err(Error::missing("name"));
        }
        if name.contains('/') {
            return Err(Error::invalid(format!(
                "folder name '{name}' must not contain '/'"
            )));
        }
        let kind = match request.object_type.as_deref() {
            None => ObjectKind::Folder,
            Some(text) => ObjectKind::parse(text).filter(|k| {
                matches!(k, ObjectKind::Folder | ObjectKind::Configuration | ObjectKind::ConfigurationVersion)
            }).ok_or_else(|| {
                Error::invalid(format!(
                    "objectType '{text}' cannot be created here; use Folder, Configuration or Configuration Version"
                ))
            })?,
        };
        let parent = match request
            .parent_id
            .as_deref()
            .filter(|p| !p.trim().is_empty() && p.trim() != "/")
        {
            None => None,
            Some(text) => Some(self.find_text(caller, text).await?),
        };
        let allowed = matches!(
            (kind, parent.as_ref().map(|p| p.kind)),
            (
                ObjectKind::Folder | ObjectKind::Configuration,
                None | Some(ObjectKind::Folder)
            ) | (
                ObjectKind::ConfigurationVersion,
                Some(ObjectKind::Configuration)
            )
        );
        if !allowed {
            let where_ = parent
                .as_ref()
                .map_or("the repository root".to_owned(), |p| {
                    format!("{} '{}' ({})", p.kind.as_str().to_lowercase(), p.name, p.id)
                });
            return Err(Error::invalid(format!(
                "a {} cannot be created in {where_}",
                kind.as_str().to_lowercase()
            )));
        }
        match &parent {
            // The root belongs to no one: creating there needs the capability globally.
            None => caller.require(Capability::ManageRepository)?,
            Some(parent) => {
                self.require_on(caller, Capability::ManageRepository, parent)
                    .await?
            }
        }
        let id = self
            .new_repository_id(caller, parent.as_ref(), name, "")
            .await?;
        let parent_id = parent.as_ref().map(|p| p.id);
        let system_type = if kind == ObjectKind::Folder {
            SystemType::Namespace
        } else {
            SystemType::Content
        };
        let mut object = Object::new(
            id,
            kind,
            TypeName::new(REPOSITORY_PROFILE, kind.as_str()),
            system_type,
            name,
        );
        object.parent = parent_id;
        object.description = request.description.clone().filter(|d| !d.is_empty());
        object.updated_by = Some(caller.user());
        self.write(caller.author(), vec![Op::PutObject(object.clone())])
            .await?;
        self.entity(caller, &object).await
    }
}

fn is_definition(edge: &Edge) -> bool {
    match edge.kind {
        EdgeKind::SemanticLink => true,
        EdgeKind::CustomRelationship => edge.name == "Is Defined By",
        _ => false,
    }
}

/// Refuses an object that is not a configuration or a configuration version, where
/// one is asked for (`listModels`' `configurationId`).
pub(crate) fn require_configuration(object: &Object) -> Result<()> {
    if matches!(
        object.kind,
        ObjectKind::Configuration | ObjectKind::ConfigurationVersion
    ) {
        return Ok(());
    }
    Err(Error::invalid(format!(
        "{} ('{}') is a {}, not a configuration",
        object.id,
        object.name,
        object.kind.as_str()
    )))
}

pub(crate) fn build_nodes(
    parent: Option<ObjectId>,
    lookup: &std::collections::HashMap<Option<ObjectId>, Vec<Object>>,
    kinds: &[ObjectKind],
) -> Vec<BrowseNode> {
    let Some(children) = lookup.get(&parent) else {
        return Vec::new();
    };
    children
        .iter()
        .filter_map(|child| {
            let links = if child.kind == ObjectKind::Model {
                Vec::new()
            } else {
                build_nodes(Some(child.id), lookup, kinds)
            };
            let wanted = kinds.is_empty() || kinds.contains(&child.kind);
            (wanted || !links.is_empty()).then(|| BrowseNode {
                object_name: child.name.clone(),
                id: child.id.to_string(),
                object_type: child.kind.as_str().to_owned(),
                links,
            })
        })
        .collect()
}
