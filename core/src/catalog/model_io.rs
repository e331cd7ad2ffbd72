//! Model import and export through the zip-of-CSV archive.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::{Deserialize, Serialize};

use super::Catalog;
use crate::archive::{self, ArchiveObject, ModelArchive};
use crate::auth::Caller;
use crate::error::{Error, Result};
use crate::id::{ObjectId, ObjectRef, REPOSITORY_MODEL, stable_id};
use crate::import::{ImportInput, Importer, ZipCsvImporter};
use crate::model::*;
use crate::store::{Batch, Op, Scope};

/// Where and how an archive is imported.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// Replace the contents of this existing model; objects keep their ids and stable
    /// ids when their native ids match.
    pub model: Option<ObjectRef>,
    /// Create the new model in this folder (the repository root when absent).
    pub folder: Option<ObjectRef>,
    /// Name of the new model; the archive's model name when absent.
    pub name: Option<String>,
    /// Add the model to this configuration or configuration version.
    pub configuration: Option<ObjectRef>,
}

/// What an import did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportSummary {
    pub model_id: String,
    pub model_name: String,
    /// Whether a new model was created (otherwise an existing one was replaced).
    pub created: bool,
    pub object_count: usize,
}

/// What an export includes.
#[derive(Debug, Clone, Default)]
pub struct ExportOptions {
    pub include_profiling: bool,
    /// Export only these objects (for example a list of terms) and their descendants.
    pub objects: Option<Vec<ObjectRef>>,
}

fn bad(message: String) -> Error {
    Error::invalid(format!("model archive: {message}"))
}

impl Catalog {
    /// `POST /repository/model/import`: reads an archive and lands it in one batch.
    /// A defective archive writes nothing.
    pub async fn import_model(
        &self,
        caller: &Caller,
        content: &[u8],
        options: &ImportOptions,
    ) -> Result<ImportSummary> {
        caller.require(Capability::ManageRepository)?;
        let importer = ZipCsvImporter {
            limits: self.config.archive_limits,
        };
        let archive = importer.import(&ImportInput {
            content,
            ..ImportInput::default()
        })?;
        self.import_archive(caller, archive, options).await
    }

    /// Lands a model an importer produced.
    pub async fn import_archive(
        &self,
        caller: &Caller,
        archive: ModelArchive,
        options: &ImportOptions,
    ) -> Result<ImportSummary> {
        caller.require(Capability::ManageRepository)?;
        let meta = self.meta_model().await?;
        if !meta
            .profiles
            .iter()
            .any(|p| p.name == archive.model.profile)
            || archive.model.profile == REPOSITORY_PROFILE
        {
            return Err(bad(format!(
                "model.csv: profile '{}' does not exist",
                archive.model.profile
            )));
        }
        let mut batch = Batch::new();

        // The model: an existing one to replace, or a new one.
        let (mut model, created, existing_ids) = match &options.model {
            Some(_) if options.folder.is_some() || options.name.is_some() => {
                return Err(Error::invalid(
                    "modelId re-imports into an existing model and cannot be combined with folderId or modelName",
                ));
            }
            Some(reference) => {
                let model = self.resolve(reference).await?;
                if model.kind != ObjectKind::Model {
                    return Err(Error::invalid(format!(
                        "{} ('{}') is not a model",
                        model.id, model.name
                    )));
                }
                let existing: HashMap<String, ObjectId> = self
                    .store
                    .model_objects(model.id.content_model())
                    .await?
                    .into_iter()
                    .filter_map(|o| o.native_id.map(|n| (n, o.id)))
                    .collect();
                batch.push(Op::ClearModel(model.id.content_model()));
                for edge in self
                    .store
                    .edges(EdgeKind::ModelConnection, model.id, false)
                    .await?
                {
                    batch.push(Op::RemoveEdge(edge));
                }
                (model, false, existing)
            }
            None => {
                let folder = match &options.folder {
                    None => None,
                    Some(ObjectRef::Path(p)) if p.is_empty() => None,
                    Some(reference) => {
                        let folder = self.resolve(reference).await?;
                        if folder.kind != ObjectKind::Folder {
                            return Err(Error::invalid(format!(
                                "{} ('{}') is not a folder",
                                folder.id, folder.name
                            )));
                        }
                        Some(folder.id)
                    }
                };
                let name = options
                    .name
                    .clone()
                    .unwrap_or_else(|| archive.model.name.clone());
                let name = name.trim();
                if name.is_empty() || name.contains('/') {
                    return Err(bad(format!(
                        "model name '{name}' must be non-empty and free of '/'"
                    )));
                }
                if self
                    .store
                    .child_by_name(REPOSITORY_MODEL, folder, name)
                    .await?
                    .is_some()
                {
                    return Err(Error::conflict(format!(
                        "an object named '{name}' already exists there; pass modelId to re-import into it"
                    )));
                }
                let id = ObjectId::repository(self.store.reserve_ids(REPOSITORY_MODEL, 1).await?);
                let mut model = Object::new(
                    id,
                    ObjectKind::Model,
                    TypeName::new(REPOSITORY_PROFILE, ObjectKind::Model.as_str()),
                    SystemType::Model,
                    name,
                );
                model.parent = folder;
                (model, true, HashMap::new())
            }
        };
        let number = model.id.content_model();
        model.description = Some(archive.model.description.clone()).filter(|d| !d.is_empty());
        model.updated_at = crate::model::now();
        model.updated_by = Some(caller.user());
        batch.push(Op::PutObject(model.clone()));
        batch.push(Op::SetAttribute(AttributeValue {
            object: model.id,
            attribute: MODEL_PROFILE_ATTRIBUTE.to_owned(),
            value: Value::Text(archive.model.profile.clone()),
        }));

        // Objects, parents first, with ids kept for known native ids.
        let order = topological_order(&archive.objects)?;
        let new_count = order
            .iter()
            .filter(|&&i| !existing_ids.contains_key(&archive.objects[i].native_id))
            .count();
        let mut next_id = if new_count > 0 {
            self.store.reserve_ids(number, new_count as u64).await?
        } else {
            0
        };
        let mut ids: HashMap<&str, ObjectId> = HashMap::with_capacity(archive.objects.len());
        let mut type_cache: HashMap<&str, &ObjectType> = HashMap::new();
        let now = crate::model::now();
        for &index in &order {
            let row = &archive.objects[index];
            let id = match existing_ids.get(&row.native_id) {
                Some(id) => *id,
                None => {
                    next_id += 1;
                    ObjectId::new(number, next_id - 1)
                }
            };
            ids.insert(row.native_id.as_str(), id);
            let object_type = match type_cache.get(row.object_type.as_str()) {
                Some(t) => *t,
                None => {
                    let t = resolve_object_type(&meta, &archive.model.profile, &row.object_type)?;
                    type_cache.insert(row.object_type.as_str(), t);
                    t
                }
            };
            let mut object = Object::new(
                id,
                ObjectKind::ModelObject,
                object_type.name.clone(),
                object_type.system_type,
                row.name.clone(),
            );
            object.parent = match &row.parent_native_id {
                Some(parent) => Some(*ids.get(parent.as_str()).ok_or_else(|| {
                    bad(format!(
                        "objects.csv: object '{}' has unknown parent '{parent}'",
                        row.native_id
                    ))
                })?),
                None => None,
            };
            object.native_id = Some(row.native_id.clone());
            object.stable_id = Some(stable_id(number, &row.native_id));
            object.physical_name = row.physical_name.clone();
            object.description = row.description.clone();
            object.business_name = row.business_name.clone();
            object.business_description = row.business_description.clone();
            object.data_type = row.data_type.clone();
            object.external_url = row.external_url.clone();
            object.hide_data = row.hide_data;
            object.workflow_state = row.workflow_state.clone();
            object.created_at = now;
            object.updated_at = now;
            object.updated_by = Some(caller.user());
            batch.push(Op::PutObject(object));
        }
        let id_of = |file: &str, native: &str| -> Result<ObjectId> {
            ids.get(native)
                .copied()
                .ok_or_else(|| bad(format!("{file}: unknown object '{native}'")))
        };

        // Attribute values, defining custom attribute types the meta model lacks.
        let attribute_types = meta.attribute_index();
        let mut defined: BTreeMap<&str, ValueType> = BTreeMap::new();
        for row in &archive.attributes {
            let object = id_of("attributes.csv", &row.native_id)?;
            match attribute_types.get(row.attribute.as_str()).copied() {
                Some(known) if known.kind == AttributeKind::System => {
                    return Err(bad(format!(
                        "attributes.csv: '{}' is a system attribute; give it as a column of objects.csv",
                        row.attribute
                    )));
                }
                Some(known) if known.value_type != row.value_type => {
                    return Err(bad(format!(
                        "attributes.csv: attribute '{}' is of type {}, not {}",
                        row.attribute,
                        known.value_type.as_str(),
                        row.value_type.as_str()
                    )));
                }
                Some(_) => {}
                None => match defined.get(row.attribute.as_str()) {
                    Some(t) if *t != row.value_type => {
                        return Err(bad(format!(
                            "attributes.csv: attribute '{}' is given both as {} and {}",
                            row.attribute,
                            t.as_str(),
                            row.value_type.as_str()
                        )));
                    }
                    _ => {
                        defined.insert(&row.attribute, row.value_type);
                    }
                },
            }
            let value = Value::parse(row.value_type, &row.value).ok_or_else(|| {
                bad(format!(
                    "attributes.csv: value '{}' of '{}' on '{}' is not a {}",
                    row.value,
                    row.attribute,
                    row.native_id,
                    row.value_type.as_str()
                ))
            })?;
            batch.push(Op::SetAttribute(AttributeValue {
                object,
                attribute: row.attribute.clone(),
                value,
            }));
        }
        // The batch lands whole, so new types may follow the values that use them.
        for (name, value_type) in defined {
            batch.push(Op::PutAttributeType(AttributeType {
                name: name.to_owned(),
                display_name: name.to_owned(),
                kind: AttributeKind::Custom,
                value_type,
                profile: None,
                group: "Custom Attributes".to_owned(),
                description: String::new(),
            }));
        }

        for row in &archive.relationships {
            let name = match row.kind {
                EdgeKind::TermReference => ReferenceType::parse(&row.name)
                    .ok_or_else(|| {
                        bad(format!(
                            "relationships.csv: '{}' is not a term reference type",
                            row.name
                        ))
                    })?
                    .as_str()
                    .to_owned(),
                EdgeKind::CustomRelationship
                | EdgeKind::SemanticLink
                | EdgeKind::EntityRelationship
                | EdgeKind::Lineage => row.name.clone(),
                EdgeKind::ModelConnection | EdgeKind::ConfigurationContent => {
                    return Err(bad(format!(
                        "relationships.csv: kind '{}' cannot appear in a model archive",
                        row.kind.as_str()
                    )));
                }
            };
            batch.push(Op::AddEdge(Edge {
                kind: row.kind,
                source: id_of("relationships.csv", &row.source_native_id)?,
                target: id_of("relationships.csv", &row.target_native_id)?,
                name,
            }));
        }
        for row in &archive.tags {
            batch.push(Op::AddTag(Tag {
                object: id_of("labels.csv", &row.native_id)?,
                kind: row.kind,
                value: row.value.clone(),
            }));
        }

        let known_classes: BTreeSet<String> = self
            .store
            .data_classes()
            .await?
            .into_iter()
            .map(|c| c.name)
            .collect();
        let mut new_classes = BTreeSet::new();
        for row in &archive.classifications {
            if !known_classes.contains(&row.data_class) {
                new_classes.insert(row.data_class.clone());
            }
            batch.push(Op::SetClassification(Classification {
                object: id_of("classifications.csv", &row.native_id)?,
                data_class: row.data_class.clone(),
                status: row.status,
            }));
        }
        for name in new_classes {
            batch.push(Op::PutDataClass(DataClass {
                name,
                description: String::new(),
                hide_data: false,
                definition: serde_json::Value::Null,
            }));
        }
        let known_labels = self.store.sensitivity_labels().await?;
        let mut position = known_labels.iter().map(|l| l.position).max().unwrap_or(0);
        let mut new_labels = BTreeSet::new();
        for row in &archive.sensitivity_labels {
            if !known_labels.iter().any(|l| l.name == row.label) {
                new_labels.insert(row.label.clone());
            }
            batch.push(Op::SetLabelAssignment(LabelAssignment {
                object: id_of("sensitivity_labels.csv", &row.native_id)?,
                label: row.label.clone(),
                status: row.status,
            }));
        }
        for name in new_labels {
            position += 1;
            batch.push(Op::PutSensitivityLabel(SensitivityLabel {
                name,
                position,
                description: String::new(),
                foreground_color: "#000000".to_owned(),
                background_color: "#ffffff".to_owned(),
                hide_data: false,
            }));
        }
        for row in &archive.profiling {
            batch.push(Op::SetProfiling(Profiling {
                object: id_of("profiling.csv", &row.native_id)?,
                profile: row.data_profile.clone(),
                sample: row.data_sample.clone(),
            }));
        }
        for row in &archive.connections {
            let target = self
                .resolve(&ObjectRef::parse(&row.target_model)?)
                .await
                .map_err(|e| {
                    bad(format!(
                        "connections.csv: connected model '{}' cannot be found: {}",
                        row.target_model, e.message
                    ))
                })?;
            if target.kind != ObjectKind::Model || target.id == model.id {
                return Err(bad(format!(
                    "connections.csv: '{}' is not another model",
                    row.target_model
                )));
            }
            batch.push(Op::AddEdge(Edge {
                kind: EdgeKind::ModelConnection,
                source: model.id,
                target: target.id,
                name: row.name.clone(),
            }));
        }
        if let Some(reference) = &options.configuration {
            let configuration = self.resolve(reference).await?;
            if !matches!(
                configuration.kind,
                ObjectKind::Configuration | ObjectKind::ConfigurationVersion
            ) {
                return Err(Error::invalid(format!(
                    "{} ('{}') is not a configuration",
                    configuration.id, configuration.name
                )));
            }
            batch.push(Op::AddEdge(Edge {
                kind: EdgeKind::ConfigurationContent,
                source: configuration.id,
                target: model.id,
                name: String::new(),
            }));
        }

        let object_count = archive.objects.len();
        self.store.apply(batch).await?;
        tracing::info!(model = %model.id, objects = object_count, created, "model imported");
        Ok(ImportSummary {
            model_id: model.id.to_string(),
            model_name: model.name,
            created,
            object_count,
        })
    }

    /// `POST /repository/model/export`: the model as an archive.
    pub async fn export_model(
        &self,
        caller: &Caller,
        model: &ObjectRef,
        options: &ExportOptions,
    ) -> Result<Vec<u8>> {
        let archive = self.model_archive(caller, model, options).await?;
        archive::write(&archive)
    }

    /// The model as archive rows, ready to write.
    pub async fn model_archive(
        &self,
        caller: &Caller,
        model: &ObjectRef,
        options: &ExportOptions,
    ) -> Result<ModelArchive> {
        caller.require(Capability::ViewMetadata)?;
        let mut model = self.resolve(model).await?;
        if model.kind == ObjectKind::ModelObject && options.objects.is_none() {
            // Exporting a term: the model of the object, restricted to that object.
            let object = model.id;
            model = self
                .resolve(&ObjectRef::Id(ObjectId::repository(object.model)))
                .await?;
            return Box::pin(self.model_archive(
                caller,
                &ObjectRef::Id(model.id),
                &ExportOptions {
                    objects: Some(vec![ObjectRef::Id(object)]),
                    ..options.clone()
                },
            ))
            .await;
        }
        if model.kind != ObjectKind::Model {
            return Err(Error::invalid(format!(
                "{} ('{}') is not a model",
                model.id, model.name
            )));
        }
        let number = model.id.content_model();
        let mut objects = self.store.model_objects(number).await?;
        if let Some(chosen) = &options.objects {
            let mut keep = BTreeSet::new();
            for reference in chosen {
                let object = self.resolve(reference).await?;
                if object.kind != ObjectKind::ModelObject || object.id.model != number {
                    return Err(Error::invalid(format!(
                        "{} ('{}') is not an object of model {}",
                        object.id, object.name, model.id
                    )));
                }
                keep.insert(object.id);
            }
            // Keep descendants too: parents come before children in id order only by
            // chance, so iterate to a fixed point.
            loop {
                let before = keep.len();
                for o in &objects {
                    if o.parent.is_some_and(|p| keep.contains(&p)) {
                        keep.insert(o.id);
                    }
                }
                if keep.len() == before {
                    break;
                }
            }
            objects.retain(|o| keep.contains(&o.id));
        }
        let native: HashMap<ObjectId, String> = objects
            .iter()
            .map(|o| {
                (
                    o.id,
                    o.native_id
                        .clone()
                        .unwrap_or_else(|| format!("#{}", o.id.object)),
                )
            })
            .collect();
        let details = self.store.details(Scope::Model(number)).await?;
        let model_details = self.store.details(Scope::Objects(vec![model.id])).await?;
        let profile = model_details
            .attributes
            .iter()
            .find(|a| a.attribute == MODEL_PROFILE_ATTRIBUTE)
            .map(|a| a.value.to_text())
            .unwrap_or_else(|| CUSTOM_PROFILE.to_owned());
        let meta = self.meta_model().await?;

        let mut archive = ModelArchive {
            model: archive::ArchiveModel {
                name: model.name.clone(),
                profile: profile.clone(),
                description: model.description.clone().unwrap_or_default(),
            },
            ..Default::default()
        };
        for o in &objects {
            archive.objects.push(ArchiveObject {
                native_id: native[&o.id].clone(),
                parent_native_id: o.parent.and_then(|p| native.get(&p).cloned()),
                object_type: if o.object_type.profile == profile {
                    o.object_type.name.clone()
                } else {
                    o.object_type.qualified()
                },
                name: o.name.clone(),
                physical_name: o.physical_name.clone(),
                description: o.description.clone(),
                business_name: o.business_name.clone(),
                business_description: o.business_description.clone(),
                data_type: o.data_type.clone(),
                external_url: o.external_url.clone(),
                hide_data: o.hide_data,
                workflow_state: o.workflow_state.clone(),
            });
        }
        let attribute_types = meta.attribute_index();
        for a in details
            .attributes
            .iter()
            .filter(|a| native.contains_key(&a.object))
        {
            let value_type = attribute_types
                .get(a.attribute.as_str())
                .map(|t| t.value_type)
                .unwrap_or(match a.value {
                    Value::Boolean(_) => ValueType::Boolean,
                    Value::Integer(_) => ValueType::Integer,
                    Value::Double(_) => ValueType::Double,
                    Value::DateTime(_) => ValueType::DateTime,
                    Value::Text(_) => ValueType::String,
                });
            archive.attributes.push(archive::ArchiveAttribute {
                native_id: native[&a.object].clone(),
                attribute: a.attribute.clone(),
                value_type,
                value: a.value.to_text(),
            });
        }
        for e in &details.edges {
            if let (Some(source), Some(target)) = (native.get(&e.source), native.get(&e.target)) {
                archive.relationships.push(archive::ArchiveRelationship {
                    kind: e.kind,
                    name: e.name.clone(),
                    source_native_id: source.clone(),
                    target_native_id: target.clone(),
                });
            }
        }
        for t in details
            .tags
            .iter()
            .filter(|t| native.contains_key(&t.object))
        {
            archive.tags.push(archive::ArchiveTag {
                native_id: native[&t.object].clone(),
                kind: t.kind,
                value: t.value.clone(),
            });
        }
        for c in details
            .classifications
            .iter()
            .filter(|c| native.contains_key(&c.object))
        {
            archive
                .classifications
                .push(archive::ArchiveClassification {
                    native_id: native[&c.object].clone(),
                    data_class: c.data_class.clone(),
                    status: c.status,
                });
        }
        for l in details
            .labels
            .iter()
            .filter(|l| native.contains_key(&l.object))
        {
            archive.sensitivity_labels.push(archive::ArchiveLabel {
                native_id: native[&l.object].clone(),
                label: l.label.clone(),
                status: l.status,
            });
        }
        if options.include_profiling {
            for p in details
                .profiling
                .iter()
                .filter(|p| native.contains_key(&p.object))
            {
                archive.profiling.push(archive::ArchiveProfiling {
                    native_id: native[&p.object].clone(),
                    data_profile: p.profile.clone(),
                    data_sample: p.sample.clone(),
                });
            }
        }
        for e in self
            .store
            .edges(EdgeKind::ModelConnection, model.id, false)
            .await?
        {
            if let Some(target) = self.store.object(e.target).await? {
                archive.connections.push(archive::ArchiveConnection {
                    name: e.name.clone(),
                    target_model: self.repository_path(&target).await?,
                });
            }
        }
        Ok(archive)
    }
}

/// Resolves an archive's object type: qualified, or a bare name of the model's profile,
/// or a bare name unique in the meta model. Repository types are refused.
fn resolve_object_type<'m>(
    meta: &'m MetaModel,
    profile: &str,
    text: &str,
) -> Result<&'m ObjectType> {
    let found = meta
        .object_type(&TypeName::new(profile, text))
        .or_else(|| meta.find_object_type(text))
        .filter(|t| t.name.profile != REPOSITORY_PROFILE);
    found.ok_or_else(|| bad(format!("objects.csv: object type '{text}' does not exist in profile '{profile}' or the meta model")))
}

/// Indexes of the objects with every parent before its children. Fails on duplicate
/// native ids, unknown parents and cycles.
fn topological_order(objects: &[ArchiveObject]) -> Result<Vec<usize>> {
    let mut index: HashMap<&str, usize> = HashMap::with_capacity(objects.len());
    for (i, o) in objects.iter().enumerate() {
        if index.insert(o.native_id.as_str(), i).is_some() {
            return Err(bad(format!(
                "objects.csv: native id '{}' appears twice",
                o.native_id
            )));
        }
    }
    let mut children: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut roots = Vec::new();
    for (i, o) in objects.iter().enumerate() {
        match &o.parent_native_id {
            None => roots.push(i),
            Some(p) => {
                let parent = *index.get(p.as_str()).ok_or_else(|| {
                    bad(format!(
                        "objects.csv: object '{}' has unknown parent '{p}'",
                        o.native_id
                    ))
                })?;
                children.entry(parent).or_default().push(i);
            }
        }
    }
    let mut order = Vec::with_capacity(objects.len());
    let mut stack: Vec<usize> = roots.into_iter().rev().collect();
    while let Some(i) = stack.pop() {
        order.push(i);
        if let Some(kids) = children.get(&i) {
            stack.extend(kids.iter().rev());
        }
    }
    if order.len() != objects.len() {
        let cyclic = objects
            .iter()
            .enumerate()
            .find(|(i, _)| !order.contains(i))
            .map(|(_, o)| o.native_id.clone())
            .unwrap_or_default();
        return Err(bad(format!(
            "objects.csv: the parents of '{cyclic}' form a cycle"
        )));
    }
    Ok(order)
}
