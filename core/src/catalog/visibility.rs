//! What a caller may see. The View Metadata capability held globally shows everything;
//! held through object roles it shows the objects the roles are granted on, their
//! subtrees of the repository and, for every model among them, the model's objects.
//! The ancestors of those objects stay hidden (a folder above a granted model is not
//! shown), and a caller who holds View Metadata nowhere is refused.
//!
//! Lists and queries apply the caller's [`Sight`]: MQL queries carry it as the plan's
//! visibility condition, so the database filters, pages and counts only what the caller
//! may see; browsing and entity reads test each object against it.

use std::collections::{BTreeSet, HashMap};

use super::Catalog;
use crate::auth::Caller;
use crate::error::{Error, Result};
use crate::id::ObjectId;
use crate::model::{Capability, Object, ObjectKind};
use crate::mql::plan::{Cond, Within};

/// The objects a caller may see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Sight {
    /// View Metadata globally.
    Everything,
    /// View Metadata through object roles.
    Granted {
        /// The repository objects the caller sees: the granted ones and their subtrees.
        repository: BTreeSet<ObjectId>,
        /// The model numbers of the models among them, whose objects the caller sees.
        models: BTreeSet<i64>,
    },
}

impl Sight {
    /// Whether the caller may see the object.
    pub(crate) fn sees(&self, object: &Object) -> bool {
        self.sees_id(object.id)
    }

    /// Whether the caller may see the object of that id (which need not exist).
    pub(crate) fn sees_id(&self, id: ObjectId) -> bool {
        match self {
            Sight::Everything => true,
            Sight::Granted { repository, models } => {
                if id.is_repository() {
                    repository.contains(&id)
                } else {
                    models.contains(&id.model)
                }
            }
        }
    }

    /// The condition an MQL plan's visibility slot takes: the objects of visible
    /// models and the models themselves (MQL finds nothing else).
    pub(crate) fn condition(&self) -> Cond {
        match self {
            Sight::Everything => Cond::True,
            Sight::Granted { models, .. } if models.is_empty() => Cond::False,
            Sight::Granted { models, .. } => Cond::Within(Within {
                models: models.iter().copied().collect(),
                subtrees: Vec::new(),
            }),
        }
    }
}

/// Fails with PERMISSION_DENIED unless the caller holds View Metadata globally or on
/// some object: the check of calls that read no object (types, worksheets, definitions),
/// made without reading the store.
pub(crate) fn require_view_somewhere(caller: &Caller) -> Result<()> {
    let on_objects = caller
        .object_grants()
        .iter()
        .any(|(_, capabilities)| capabilities.contains(&Capability::ViewMetadata));
    if on_objects {
        return Ok(());
    }
    caller.require(Capability::ViewMetadata)
}

impl Catalog {
    /// What the caller may see; PERMISSION_DENIED when they hold View Metadata nowhere.
    /// Costs no read for a caller with View Metadata globally, and a read of the
    /// repository objects (not of model objects) otherwise.
    pub(crate) async fn sight(&self, caller: &Caller) -> Result<Sight> {
        if caller.has(Capability::ViewMetadata) {
            return Ok(Sight::Everything);
        }
        let roots: BTreeSet<ObjectId> = caller
            .object_grants()
            .iter()
            .filter(|(_, capabilities)| capabilities.contains(&Capability::ViewMetadata))
            .map(|(object, _)| *object)
            .collect();
        if roots.is_empty() {
            return Err(Error::forbidden(format!(
                "user '{}' lacks the capability ViewMetadata, globally and on every object",
                caller.name()
            )));
        }
        let (repository, models) = self.granted_subtrees(&roots).await?;
        Ok(Sight::Granted { repository, models })
    }

    /// The condition under which an object's profiled and sampled data is hidden from
    /// the caller (spec rest-api 5.7, mql 2.7): the object's data is hidden (its Hide
    /// Data attribute, or a matched or approved data class or sensitivity label that
    /// hides data) and the caller lacks View Data on it. `Cond::False` for a caller with
    /// View Data globally.
    pub(crate) async fn hidden_data(&self, caller: &Caller) -> Result<Cond> {
        if caller.has(Capability::ViewData) {
            return Ok(Cond::False);
        }
        let roots: BTreeSet<ObjectId> = caller
            .object_grants()
            .iter()
            .filter(|(_, capabilities)| capabilities.contains(&Capability::ViewData))
            .map(|(object, _)| *object)
            .collect();
        if roots.is_empty() {
            return Ok(Cond::DataHidden);
        }
        let (_, models) = self.granted_subtrees(&roots).await?;
        if models.is_empty() {
            return Ok(Cond::DataHidden);
        }
        Ok(Cond::and(vec![
            Cond::DataHidden,
            Cond::not(Cond::Within(Within {
                models: models.into_iter().collect(),
                subtrees: Vec::new(),
            })),
        ]))
    }

    /// The objects (models and their objects) on which the caller holds the capability,
    /// as a plan condition: `True` when held globally.
    pub(crate) async fn holds_capability(
        &self,
        caller: &Caller,
        capability: Capability,
    ) -> Result<Cond> {
        if caller.has(capability) {
            return Ok(Cond::True);
        }
        let roots: BTreeSet<ObjectId> = caller
            .object_grants()
            .iter()
            .filter(|(_, capabilities)| capabilities.contains(&capability))
            .map(|(object, _)| *object)
            .collect();
        if roots.is_empty() {
            return Ok(Cond::False);
        }
        let (_, models) = self.granted_subtrees(&roots).await?;
        Ok(if models.is_empty() {
            Cond::False
        } else {
            Cond::Within(Within {
                models: models.into_iter().collect(),
                subtrees: Vec::new(),
            })
        })
    }

    /// The repository objects at or below the roots, and the model numbers of the
    /// models among them.
    async fn granted_subtrees(
        &self,
        roots: &BTreeSet<ObjectId>,
    ) -> Result<(BTreeSet<ObjectId>, BTreeSet<i64>)> {
        let mut parents: HashMap<ObjectId, Option<ObjectId>> = HashMap::new();
        let mut models: Vec<ObjectId> = Vec::new();
        for kind in [
            ObjectKind::Folder,
            ObjectKind::Configuration,
            ObjectKind::ConfigurationVersion,
            ObjectKind::Model,
        ] {
            for object in self.store.objects_of_kind(kind).await? {
                if kind == ObjectKind::Model {
                    models.push(object.id);
                }
                parents.insert(object.id, object.parent);
            }
        }
        let mut repository = BTreeSet::new();
        for &id in parents.keys() {
            let mut next = Some(id);
            let mut steps = 0;
            while let Some(at) = next {
                if roots.contains(&at) {
                    repository.insert(id);
                    break;
                }
                steps += 1;
                if steps > 10_000 {
                    break;
                }
                next = parents.get(&at).copied().flatten();
            }
        }
        let models = models
            .into_iter()
            .filter(|m| repository.contains(m))
            .map(ObjectId::content_model)
            .collect();
        Ok((repository, models))
    }

    /// Fails with PERMISSION_DENIED unless the caller may see the object.
    /// Fails with PERMISSION_DENIED unless the caller may see the object, reading only
    /// the object's ancestors (none for a caller with View Metadata globally), not the
    /// whole repository as [`Catalog::sight`] does: the check of reads of one object.
    pub(crate) async fn require_sees(&self, caller: &Caller, object: &Object) -> Result<()> {
        require_view_somewhere(caller)?;
        if caller.has(Capability::ViewMetadata) {
            return Ok(());
        }
        let chain = self.grant_chain(object.id).await?;
        let granted = caller.object_grants().iter().any(|(on, capabilities)| {
            capabilities.contains(&Capability::ViewMetadata) && chain.contains(on)
        });
        if granted {
            return Ok(());
        }
        Err(Error::forbidden(format!(
            "user '{}' lacks the capability ViewMetadata on {}",
            caller.name(),
            object.id
        )))
    }

    /// Fails with PERMISSION_DENIED unless the caller may see the object; answers what
    /// else they see, for calls that also list related objects.
    pub(crate) async fn require_visible(&self, caller: &Caller, object: &Object) -> Result<Sight> {
        let sight = self.sight(caller).await?;
        if !sight.sees(object) {
            return Err(Error::forbidden(format!(
                "user '{}' lacks the capability ViewMetadata on {}",
                caller.name(),
                object.id
            )));
        }
        Ok(sight)
    }
}
