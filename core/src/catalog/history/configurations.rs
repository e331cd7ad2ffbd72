//! Configuration versions that select model versions: a configuration version pinned at
//! a revision holds each of its models at the newest version it had then, and a query
//! FROM it reads them as they were. Unpinned, it is live: its models as they are now.
//! The pin is the configuration version's attribute [`PIN_ATTRIBUTE`] (a catalog
//! version), itself kept in history like every attribute.

use serde::Serialize;

use super::{AsOf, History};
use crate::auth::Caller;
use crate::error::{Error, Result};
use crate::id::{ObjectId, ObjectRef};
use crate::model::{
    AttributeValue, Capability, EdgeKind, Object, ObjectKind, Value, format_micros,
};
use crate::store::Op;

/// The attribute that holds a configuration version's pin: the catalog version it
/// reads its models as of.
pub const PIN_ATTRIBUTE: &str = "Pinned Version";

/// A configuration version's pin and the model versions it selects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConfigurationPin {
    pub configuration_id: String,
    /// The catalog version it is pinned at (its models as they were then), or none:
    /// live, its models as they are now.
    pub version: Option<i64>,
    pub at: Option<String>,
    /// Its models (those the caller sees), by name.
    pub models: Vec<PinnedModel>,
}

/// A model of a configuration version, at the version the pin selects.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PinnedModel {
    pub model_id: String,
    pub name: String,
    /// The number of the model's version the pin selects (its newest at the pin; now,
    /// when live), and that version's id; none when it had no version then.
    pub number: Option<i64>,
    pub version_id: Option<i64>,
}

impl History<'_> {
    /// The catalog version a configuration version is pinned at, if it is one and is
    /// pinned.
    pub(crate) async fn pin_of(&self, object: &Object) -> Result<Option<i64>> {
        if object.kind != ObjectKind::ConfigurationVersion {
            return Ok(None);
        }
        let (_, details) = self.stored_with_details(&[object.id]).await?;
        Ok(details
            .attributes
            .iter()
            .find(|a| a.object == object.id && a.attribute == PIN_ATTRIBUTE)
            .and_then(|a| match a.value {
                Value::Integer(v) => Some(v),
                _ => None,
            }))
    }

    /// `GET /history/configurations/{configurationId}/pin`.
    pub async fn configuration_pin(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
    ) -> Result<ConfigurationPin> {
        let object = self.configuration_version(caller, reference).await?;
        let pin = self.pin_of(&object).await?;
        self.pin_view(caller, &object, pin).await
    }

    /// `PUT /history/configurations/{configurationId}/pin?asOf=`: pins a configuration
    /// version at the revision `asOf` names (now when absent), replacing its pin
    /// (ManageRepository on it).
    pub async fn pin_configuration(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
        as_of: Option<AsOf>,
    ) -> Result<ConfigurationPin> {
        let object = self.configuration_version(caller, reference).await?;
        self.require_on(caller, Capability::ManageRepository, &object)
            .await?;
        let revision = match as_of {
            Some(as_of) => self.revision_of(as_of).await?,
            None => self.store.history_span().await?.newest,
        };
        let pin = AttributeValue {
            object: object.id,
            attribute: PIN_ATTRIBUTE.to_owned(),
            value: Value::Integer(revision.version),
        };
        self.write(caller.author(), vec![Op::SetAttribute(pin)])
            .await?;
        self.pin_view(caller, &object, Some(revision.version)).await
    }

    /// `DELETE /history/configurations/{configurationId}/pin`: makes a configuration
    /// version live again (ManageRepository on it).
    pub async fn unpin_configuration(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
    ) -> Result<ConfigurationPin> {
        let object = self.configuration_version(caller, reference).await?;
        self.require_on(caller, Capability::ManageRepository, &object)
            .await?;
        let remove = Op::RemoveAttribute {
            object: object.id,
            attribute: PIN_ATTRIBUTE.to_owned(),
        };
        self.write(caller.author(), vec![remove]).await?;
        self.pin_view(caller, &object, None).await
    }

    /// The configuration version a caller names (one they see), or INVALID_PARAMETER for
    /// any other object.
    async fn configuration_version(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
    ) -> Result<crate::catalog::visibility::Visible> {
        let object = self.find(caller, reference).await?;
        if object.kind != ObjectKind::ConfigurationVersion {
            return Err(Error::invalid(format!(
                "{} ('{}') is a {}; only a configuration version is pinned",
                object.id,
                object.name,
                object.kind.as_str().to_lowercase()
            )));
        }
        Ok(object)
    }

    /// The pin and the model versions it selects, of the models the caller sees.
    async fn pin_view(
        &self,
        caller: &Caller,
        object: &Object,
        pin: Option<i64>,
    ) -> Result<ConfigurationPin> {
        let at = match pin {
            Some(version) => self
                .store
                .revision(version)
                .await?
                .map(|r| format_micros(&r.at)),
            None => None,
        };
        let sight = self.sight(caller).await?;
        let targets: Vec<ObjectId> = self
            .store
            .edges(EdgeKind::ConfigurationContent, object.id, false)
            .await?
            .into_iter()
            .map(|e| e.target)
            .filter(|t| t.is_repository() && sight.sees_id(*t))
            .collect();
        let mut models = Vec::new();
        for model in self.stored_objects(&targets).await? {
            // The newest version at the pin (or now).
            let selected = self
                .store
                .model_versions(model.id.content_model(), None, 10_000)
                .await?
                .into_iter()
                .find(|v| pin.is_none_or(|p| v.revision.version <= p));
            models.push(PinnedModel {
                model_id: model.id.to_string(),
                name: model.name.clone(),
                number: selected.map(|v| v.number),
                version_id: selected.map(|v| v.revision.version),
            });
        }
        models.sort_by(|a, b| (&a.name, &a.model_id).cmp(&(&b.name, &b.model_id)));
        Ok(ConfigurationPin {
            configuration_id: object.id.to_string(),
            version: pin,
            at,
            models,
        })
    }
}
