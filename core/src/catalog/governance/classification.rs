//! Governance: data classes, sensitivity labels (their definitions, and the labels of an
//! object with their review status), and the data profiling of an object with the rules
//! that hide it (spec rest-api 4.4, 5.7; mql 2.7).
//!
//! Reading needs View Metadata (on the object, for an object's labels and profiling);
//! defining data classes and labels needs Manage Meta Model; proposing a label or
//! writing profiling needs Edit Metadata on the object, and approving or rejecting a
//! label Curate on it.

use serde_json::Value as Json;

use super::Governance;
use crate::auth::Caller;
use crate::error::{Error, Result};
use crate::id::{ObjectId, ObjectRef};
use crate::model::{
    Capability, Classification, ClassificationStatus, DataClass, DataProfile, DataSample,
    LabelAssignment, Object, Profiling, SensitivityLabel, Tag, TagKind,
};
use crate::mql::eval;
use crate::mql::plan::Cond;
use crate::store::{Op, Scope};

/// A data class as a client writes it (`PUT /repository/dataClasses/{name}`); absent
/// fields keep their value (or take the default for a new class).
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DataClassUpdate {
    pub description: Option<String>,
    pub hide_data: Option<bool>,
    /// The detection rules (patterns, value lists) as the client keeps them.
    pub definition: Option<Json>,
}

/// A sensitivity label definition as a client writes it.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelDefinition {
    pub name: Option<String>,
    /// Higher is more restrictive.
    pub position: Option<i64>,
    pub description: Option<String>,
    pub foreground_color: Option<String>,
    pub background_color: Option<String>,
    pub hide_data: Option<bool>,
}

/// The sensitivity labels of an object.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectLabels {
    pub object: ObjectId,
    /// Every label on the object with its status, by label name.
    pub assignments: Vec<LabelAssignment>,
    /// The object's Sensitivity Label: the most restrictive matched or approved label
    /// (highest position, then the first name).
    pub current: Option<SensitivityLabel>,
}

/// The data profiling record of an object, as the caller may see it.
#[derive(Debug, Clone, PartialEq)]
pub struct ProfilingRecord {
    pub object: ObjectId,
    /// `None` when there is none, or when it is hidden from the caller.
    pub profile: Option<DataProfile>,
    pub sample: Option<DataSample>,
    /// The object's own Hide Data attribute.
    pub hide_data: bool,
    /// Whether the object's data is hidden from the caller (and so left out here).
    pub hidden: bool,
    /// The object's Sensitivity Label.
    pub sensitivity_label: Option<String>,
}

/// A change of an object's profiling (`PUT|POST /entities/DataProfiling/{objectId}`):
/// `Some(None)` removes a part, `None` keeps it.
#[derive(Debug, Clone, Default)]
pub struct ProfilingUpdate {
    pub profile: Option<Option<DataProfile>>,
    pub sample: Option<Option<DataSample>>,
    /// Proposes this sensitivity label for the object (status PROPOSED).
    pub sensitivity_label: Option<String>,
    /// Deprecated (spec 2.5): sets the object's Hide Data attribute.
    pub hide_data: Option<bool>,
}

/// What setting a review status needs: PROPOSED Edit Metadata, APPROVED and REJECTED
/// Curate; MATCHED is the profilers' and importers' alone.
fn review_capability(status: ClassificationStatus) -> Result<Capability> {
    match status {
        ClassificationStatus::Proposed => Ok(Capability::EditMetadata),
        ClassificationStatus::Approved | ClassificationStatus::Rejected => Ok(Capability::Curate),
        ClassificationStatus::Matched => Err(Error::invalid(
            "status MATCHED is set by profilers and importers; use PROPOSED, APPROVED or REJECTED",
        )),
    }
}

/// The longest label [`Governance::set_object_tag_label`] takes.
pub const MAX_LABEL_CHARS: usize = 200;

impl Governance<'_> {
    // ---- data classes

    /// Every data class, by name (View Metadata somewhere).
    pub async fn data_classes(&self, caller: &Caller) -> Result<Vec<DataClass>> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        self.store.data_classes().await
    }

    /// The data class of that name (View Metadata somewhere).
    pub async fn data_class(&self, caller: &Caller, name: &str) -> Result<DataClass> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        self.find_data_class(name).await
    }

    /// Creates or changes a data class (Manage Meta Model). Changing Hide Data changes
    /// at once whose profiling every object of the class shows.
    pub async fn put_data_class(
        &self,
        caller: &Caller,
        name: &str,
        update: DataClassUpdate,
    ) -> Result<DataClass> {
        caller.require(Capability::ManageMetaModel)?;
        let name = crate::catalog::identity::users::check_name(Some(name))?;
        let mut class = match self.find_data_class(&name).await {
            Ok(existing) => existing,
            Err(_) => DataClass {
                name,
                description: String::new(),
                hide_data: false,
                definition: Json::Null,
            },
        };
        if let Some(description) = update.description {
            class.description = description;
        }
        if let Some(hide) = update.hide_data {
            class.hide_data = hide;
        }
        if let Some(definition) = update.definition {
            class.definition = definition;
        }
        self.write(caller.author(), vec![Op::PutDataClass(class.clone())])
            .await?;
        Ok(class)
    }

    async fn find_data_class(&self, name: &str) -> Result<DataClass> {
        self.store
            .data_classes()
            .await?
            .into_iter()
            .find(|c| c.name == name)
            .ok_or_else(|| Error::not_found(format!("no data class '{name}'")))
    }

    /// The data classes on an object with their review status (View Metadata on it).
    pub async fn object_data_classes(
        &self,
        caller: &Caller,
        object: &ObjectRef,
    ) -> Result<Vec<Classification>> {
        let object = self.find(caller, object).await?;
        let details = self.store.details(Scope::Objects(vec![object.id])).await?;
        let mut classes = details.classifications;
        classes.sort_by(|a, b| a.data_class.cmp(&b.data_class));
        Ok(classes)
    }

    /// Sets the review status of a data class on an object, as for sensitivity labels:
    /// PROPOSED needs Edit Metadata on the object, APPROVED and REJECTED Curate; the
    /// class must be defined; MATCHED is the profilers' and importers'. (The web UI's
    /// review of data classes; the REST API has no call for it.)
    pub async fn set_object_data_class(
        &self,
        caller: &Caller,
        object: &ObjectRef,
        data_class: &str,
        status: ClassificationStatus,
    ) -> Result<Vec<Classification>> {
        let object = self.find(caller, object).await?;
        self.require_on(caller, review_capability(status)?, &object)
            .await?;
        let class = self.find_data_class(data_class).await?;
        self.write(
            caller.author(),
            vec![Op::SetClassification(Classification {
                object: object.id,
                data_class: class.name,
                status,
            })],
        )
        .await?;
        self.object_data_classes(caller, &ObjectRef::Id(object.id))
            .await
    }

    /// Adds a label (MQL's `Labels`) to an object, or removes it (`add` false): Edit
    /// Metadata on the object. A label is 1 to 200 characters without control
    /// characters; adding one it has, or removing one it has not, changes nothing.
    /// (The web UI's; the REST API sets labels only through imports.)
    pub async fn set_object_tag_label(
        &self,
        caller: &Caller,
        object: &ObjectRef,
        label: &str,
        add: bool,
    ) -> Result<Vec<String>> {
        let object = self.find(caller, object).await?;
        self.require_on(caller, Capability::EditMetadata, &object)
            .await?;
        let label = label.trim();
        if label.is_empty() {
            return Err(Error::missing("label"));
        }
        if label.chars().count() > MAX_LABEL_CHARS || label.chars().any(char::is_control) {
            return Err(Error::invalid(format!(
                "a label is at most {MAX_LABEL_CHARS} characters, without control characters"
            )));
        }
        let tag = Tag {
            object: object.id,
            kind: TagKind::Label,
            value: label.to_owned(),
        };
        let held = self
            .store
            .details(Scope::Objects(vec![object.id]))
            .await?
            .tags
            .contains(&tag);
        if held != add {
            let op = if add {
                Op::AddTag(tag)
            } else {
                Op::RemoveTag(tag)
            };
            self.write(caller.author(), vec![op]).await?;
        }
        let mut labels: Vec<String> = self
            .store
            .details(Scope::Objects(vec![object.id]))
            .await?
            .tags
            .into_iter()
            .filter(|t| t.kind == TagKind::Label)
            .map(|t| t.value)
            .collect();
        labels.sort();
        Ok(labels)
    }

    // ---- sensitivity labels

    /// Every sensitivity label definition, by name (View Metadata somewhere).
    pub async fn sensitivity_labels(&self, caller: &Caller) -> Result<Vec<SensitivityLabel>> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        self.store.sensitivity_labels().await
    }

    /// Creates or changes a sensitivity label definition (Manage Meta Model).
    pub async fn put_sensitivity_label(
        &self,
        caller: &Caller,
        definition: LabelDefinition,
    ) -> Result<SensitivityLabel> {
        caller.require(Capability::ManageMetaModel)?;
        let name = crate::catalog::identity::users::check_name(definition.name.as_deref())?;
        let existing = self
            .store
            .sensitivity_labels()
            .await?
            .into_iter()
            .find(|l| l.name == name);
        let mut label = existing.unwrap_or(SensitivityLabel {
            name,
            position: 0,
            description: String::new(),
            foreground_color: String::new(),
            background_color: String::new(),
            hide_data: false,
        });
        if let Some(v) = definition.position {
            label.position = v;
        }
        if let Some(v) = definition.description {
            label.description = v;
        }
        if let Some(v) = definition.foreground_color {
            label.foreground_color = v;
        }
        if let Some(v) = definition.background_color {
            label.background_color = v;
        }
        if let Some(v) = definition.hide_data {
            label.hide_data = v;
        }
        self.write(
            caller.author(),
            vec![Op::PutSensitivityLabel(label.clone())],
        )
        .await?;
        Ok(label)
    }

    /// The sensitivity labels of an object (View Metadata on it).
    pub async fn object_labels(&self, caller: &Caller, object: &ObjectRef) -> Result<ObjectLabels> {
        let object = self.find(caller, object).await?;
        self.labels_of(object.id).await
    }

    /// Sets the status of a label on an object: PROPOSED needs Edit Metadata on the
    /// object, APPROVED and REJECTED Curate. The label must be defined.
    pub async fn set_object_label(
        &self,
        caller: &Caller,
        object: &ObjectRef,
        label: &str,
        status: ClassificationStatus,
    ) -> Result<ObjectLabels> {
        let object = self.find(caller, object).await?;
        self.require_on(caller, review_capability(status)?, &object)
            .await?;
        let label = self.find_label(label).await?;
        self.write(
            caller.author(),
            vec![Op::SetLabelAssignment(LabelAssignment {
                object: object.id,
                label: label.name,
                status,
            })],
        )
        .await?;
        self.labels_of(object.id).await
    }

    async fn find_label(&self, name: &str) -> Result<SensitivityLabel> {
        self.store
            .sensitivity_labels()
            .await?
            .into_iter()
            .find(|l| l.name == name)
            .ok_or_else(|| Error::not_found(format!("no sensitivity label '{name}'")))
    }

    async fn labels_of(&self, object: ObjectId) -> Result<ObjectLabels> {
        let details = self.store.details(Scope::Objects(vec![object])).await?;
        let definitions = self.store.sensitivity_labels().await?;
        let current = most_restrictive(&details.labels, &definitions);
        Ok(ObjectLabels {
            object,
            assignments: details.labels,
            current,
        })
    }

    // ---- data profiling

    /// The profiling record of a model object (View Metadata on it); its profile and
    /// sample are left out when its data is hidden from the caller.
    pub async fn data_profiling(
        &self,
        caller: &Caller,
        object: &ObjectRef,
    ) -> Result<ProfilingRecord> {
        let object = self.find(caller, object).await?;
        self.profiling_record(caller, &object).await
    }

    /// Writes the profiling of a model object, proposes its sensitivity label and sets
    /// its (deprecated) Hide Data attribute, in one batch (Edit Metadata on it).
    pub async fn put_data_profiling(
        &self,
        caller: &Caller,
        object: &ObjectRef,
        update: ProfilingUpdate,
    ) -> Result<ProfilingRecord> {
        let object = self.find(caller, object).await?;
        self.require_on(caller, Capability::EditMetadata, &object)
            .await?;
        let mut object = object.into_object();
        if object.id.is_repository() {
            return Err(Error::invalid(format!(
                "{} is a {}; data profiling belongs to columns and fields of a model",
                object.id,
                object.kind.as_str().to_lowercase()
            )));
        }
        let mut ops = Vec::new();
        if update.profile.is_some() || update.sample.is_some() {
            let details = self.store.details(Scope::Objects(vec![object.id])).await?;
            let stored = details.profiling.into_iter().next();
            let (profile, sample) = match stored {
                Some(p) => (p.profile, p.sample),
                None => (None, None),
            };
            ops.push(Op::SetProfiling(Profiling {
                object: object.id,
                profile: update.profile.unwrap_or(profile),
                sample: update.sample.unwrap_or(sample),
            }));
        }
        if let Some(name) = update.sensitivity_label.as_deref() {
            let label = self.find_label(name).await?;
            ops.push(Op::SetLabelAssignment(LabelAssignment {
                object: object.id,
                label: label.name,
                status: ClassificationStatus::Proposed,
            }));
        }
        if let Some(hide) = update.hide_data
            && hide != object.hide_data
        {
            object.hide_data = hide;
            object.updated_at = crate::model::now();
            object.updated_by = Some(caller.user());
            ops.push(Op::PutObject(object.clone()));
        }
        if ops.is_empty() {
            if update.hide_data.is_none() {
                return Err(Error::missing(
                    "dataProfile, dataSample, sensitivityLabel or hideData",
                ));
            }
            // hideData as it already is: nothing to write.
            return self.profiling_record(caller, &object).await;
        }
        self.write(caller.author(), ops).await?;
        self.profiling_record(caller, &object).await
    }

    async fn profiling_record(&self, caller: &Caller, object: &Object) -> Result<ProfilingRecord> {
        let (objects, details) = self.stored_with_details(&[object.id]).await?;
        let object = objects
            .into_iter()
            .next()
            .ok_or_else(|| Error::not_found(format!("object {} does not exist", object.id)))?;
        let definitions = self.store.sensitivity_labels().await?;
        let classes = self.store.data_classes().await?;
        let facts = OneObject {
            object: &object,
            details: &details,
            classes: &classes,
            labels: &definitions,
        };
        let hidden_cond = self.hidden_data(caller).await?;
        let hidden = hidden_cond != Cond::False
            && eval::holds(&hidden_cond, &facts, eval::Row::Object(&object));
        let stored = details.profiling.iter().find(|p| p.object == object.id);
        let current = most_restrictive(&details.labels, &definitions);
        Ok(ProfilingRecord {
            object: object.id,
            profile: stored.filter(|_| !hidden).and_then(|p| p.profile.clone()),
            sample: stored.filter(|_| !hidden).and_then(|p| p.sample.clone()),
            hide_data: object.hide_data,
            hidden,
            sensitivity_label: current.map(|l| l.name),
        })
    }
}

/// The most restrictive matched or approved label: highest position, then first name.
fn most_restrictive(
    assignments: &[LabelAssignment],
    definitions: &[SensitivityLabel],
) -> Option<SensitivityLabel> {
    assignments
        .iter()
        .filter(|a| {
            matches!(
                a.status,
                ClassificationStatus::Matched | ClassificationStatus::Approved
            )
        })
        .filter_map(|a| definitions.iter().find(|d| d.name == a.label))
        .min_by(|a, b| b.position.cmp(&a.position).then(a.name.cmp(&b.name)))
        .cloned()
}

/// The facts of one object, for evaluating whether its data is hidden.
struct OneObject<'a> {
    object: &'a Object,
    details: &'a crate::store::Details,
    classes: &'a [DataClass],
    labels: &'a [SensitivityLabel],
}

impl eval::Facts for OneObject<'_> {
    fn object(&self, id: ObjectId) -> Option<&Object> {
        (id == self.object.id).then_some(self.object)
    }
    fn children_of(&self, _model: i64, _parent: Option<i64>) -> Vec<&Object> {
        Vec::new()
    }
    fn attribute(&self, _id: ObjectId, _name: &str) -> Option<&crate::model::Value> {
        None
    }
    fn tags(&self, _id: ObjectId, _kind: crate::model::TagKind) -> Vec<&str> {
        Vec::new()
    }
    fn classifications(&self, id: ObjectId) -> Vec<(&str, ClassificationStatus)> {
        self.details
            .classifications
            .iter()
            .filter(|c| c.object == id)
            .map(|c| (c.data_class.as_str(), c.status))
            .collect()
    }
    fn data_class(&self, name: &str) -> Option<&DataClass> {
        self.classes.iter().find(|c| c.name == name)
    }
    fn label_assignments(&self, id: ObjectId) -> Vec<(&str, ClassificationStatus)> {
        self.details
            .labels
            .iter()
            .filter(|l| l.object == id)
            .map(|l| (l.label.as_str(), l.status))
            .collect()
    }
    fn sensitivity_label(&self, name: &str) -> Option<&SensitivityLabel> {
        self.labels.iter().find(|l| l.name == name)
    }
    fn profiling(&self, id: ObjectId) -> Option<&Profiling> {
        self.details.profiling.iter().find(|p| p.object == id)
    }
    fn edge_names(
        &self,
        _id: ObjectId,
        _kind: crate::model::EdgeKind,
        _outgoing: bool,
    ) -> Vec<&str> {
        Vec::new()
    }
}
