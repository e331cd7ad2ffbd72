//! Model export through the zip-of-CSV archive.

use std::collections::{BTreeSet, HashMap};

use super::Objects;
use crate::archive::{self, ArchiveObject, ModelArchive};
use crate::auth::Caller;
use crate::catalog::visibility::Visible;
use crate::error::{Error, Result};
use crate::id::{ObjectId, ObjectRef};
use crate::model::*;
use crate::mql::plan::{Cond, Page, Plan, Within};
use crate::store::{Details, Scope};

/// What an export includes.
#[derive(Debug, Clone, Default)]
pub struct ExportOptions {
    pub include_profiling: bool,
    /// Export only these objects (for example a list of terms) and their descendants.
    pub objects: Option<Vec<ObjectRef>>,
}

impl Objects<'_> {
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
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let mut model = self.find(caller, model).await?;
        if model.kind == ObjectKind::ModelObject && options.objects.is_none() {
            // Exporting a term: the model of the object, restricted to that object.
            let object = model.id;
            model = self
                .find_id(caller, ObjectId::repository(object.model))
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
            let keep = self
                .chosen_objects(caller, &model, chosen, &objects)
                .await?;
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
        archive.objects = object_rows(&objects, &native, &profile);
        content_rows(&mut archive, &details, &native, &meta);
        if options.include_profiling {
            archive.profiling = self
                .profiling_rows(caller, &model, &details, &native)
                .await?;
        }
        archive.connections = self.connection_rows(caller, &model).await?;
        Ok(archive)
    }

    /// The objects an export is restricted to, with their descendants.
    async fn chosen_objects(
        &self,
        caller: &Caller,
        model: &Visible,
        chosen: &[ObjectRef],
        objects: &[Object],
    ) -> Result<BTreeSet<ObjectId>> {
        let number = model.id.content_model();
        let mut keep = BTreeSet::new();
        for reference in chosen {
            let object = self.find(caller, reference).await?;
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
            for o in objects {
                if o.parent.is_some_and(|p| keep.contains(&p)) {
                    keep.insert(o.id);
                }
            }
            if keep.len() == before {
                return Ok(keep);
            }
        }
    }

    /// The profiling of the exported objects, but of those whose data is hidden from
    /// the caller (spec 5.7).
    async fn profiling_rows(
        &self,
        caller: &Caller,
        model: &Visible,
        details: &Details,
        native: &HashMap<ObjectId, String>,
    ) -> Result<Vec<archive::ArchiveProfiling>> {
        let hidden = self.hidden_data(caller).await?;
        let hidden: BTreeSet<ObjectId> = if hidden == Cond::False {
            BTreeSet::new()
        } else {
            let plan = Plan {
                filter: Cond::and(vec![
                    Cond::Within(Within {
                        models: vec![model.id.content_model()],
                        subtrees: Vec::new(),
                    }),
                    hidden,
                ]),
                visibility: Cond::True,
                order: Vec::new(),
                as_of: None,
            };
            let all = Page {
                offset: 0,
                limit: u64::MAX >> 1,
            };
            self.store.query(&plan, all).await?.into_iter().collect()
        };
        Ok(details
            .profiling
            .iter()
            .filter(|p| native.contains_key(&p.object) && !hidden.contains(&p.object))
            .map(|p| archive::ArchiveProfiling {
                native_id: native[&p.object].clone(),
                data_profile: p.profile.clone(),
                data_sample: p.sample.clone(),
            })
            .collect())
    }

    /// The model's connections to the models the caller sees.
    async fn connection_rows(
        &self,
        caller: &Caller,
        model: &Visible,
    ) -> Result<Vec<archive::ArchiveConnection>> {
        let mut connections = Vec::new();
        for e in self
            .store
            .edges(EdgeKind::ModelConnection, model.id, false)
            .await?
        {
            // A connection to a model the caller cannot see is not theirs to learn of.
            if let Some(target) = self.visible_id(caller, e.target).await? {
                connections.push(archive::ArchiveConnection {
                    name: e.name.clone(),
                    target_model: self.shown_path(caller, &target).await?,
                });
            }
        }
        Ok(connections)
    }
}

/// The objects' rows, each naming its parent by native id; a type of the model's own
/// profile by its name, any other qualified.
fn object_rows(
    objects: &[Object],
    native: &HashMap<ObjectId, String>,
    profile: &str,
) -> Vec<ArchiveObject> {
    objects
        .iter()
        .map(|o| ArchiveObject {
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
        })
        .collect()
}

/// What hangs on the exported objects: attributes, relationships between them, tags,
/// classifications and sensitivity labels.
fn content_rows(
    archive: &mut ModelArchive,
    details: &Details,
    native: &HashMap<ObjectId, String>,
    meta: &MetaModel,
) {
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
}
