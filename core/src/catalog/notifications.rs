//! Notifications (spec 6): the watchers of a model are notified of its changes (imports,
//! re-imports, edits), the metadata managers of failed imports. Each user reads their own
//! (`GET /notifications`) and marks them read.
//!
//! Notifying is best effort: a notification that cannot be written is logged and the
//! change it reports stands.

use serde::Serialize;

use super::Catalog;
use crate::auth::Caller;
use crate::error::{Error, Result};
use crate::id::ObjectId;
use crate::model::{
    Capability, CurationKind, NOTIFICATION_IDS, Notification, NotificationKind, format_datetime,
    now,
};
use crate::store::{Batch, Op};

/// The most notifications one read answers.
pub const MAX_NOTIFICATIONS: u32 = 1_000;

/// A notification as its user reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotificationView {
    pub id: i64,
    /// `MODEL_CHANGED` or `IMPORT_FAILED`.
    pub kind: &'static str,
    /// The model it is about.
    pub object_id: String,
    pub message: String,
    pub at: String,
    pub read: bool,
}

fn view(n: &Notification) -> NotificationView {
    NotificationView {
        id: n.id,
        kind: n.kind.as_str(),
        object_id: n.object.to_string(),
        message: n.message.clone(),
        at: format_datetime(&n.at),
        read: n.read,
    }
}

/// The repository object of the model an object is or belongs to.
pub(crate) fn model_of(object: ObjectId) -> ObjectId {
    if object.is_repository() {
        object
    } else {
        ObjectId::repository(object.model)
    }
}

impl Catalog {
    /// Notifies the watchers of the model (or of the model of the object), except the
    /// user who made the change.
    pub(crate) async fn notify_watchers(&self, object: ObjectId, actor: ObjectId, message: String) {
        let model = model_of(object);
        let notified = async {
            let mut watchers: Vec<ObjectId> = self
                .store
                .curation(model)
                .await?
                .into_iter()
                .filter(|c| c.kind == CurationKind::Watch && c.user != actor)
                .map(|c| c.user)
                .collect();
            watchers.sort();
            watchers.dedup();
            self.notify(&watchers, NotificationKind::ModelChanged, model, &message)
                .await
        };
        if let Err(e) = notified.await {
            tracing::warn!(error = %e, %model, "cannot notify the watchers of a change");
        }
    }

    /// Notifies the metadata managers of a failed import: the users holding a global role
    /// with the Import capability, and the user who started it.
    pub(crate) async fn notify_import_failed(
        &self,
        model: ObjectId,
        started_by: &str,
        message: String,
    ) {
        let notified = async {
            let mut managers: Vec<ObjectId> = Vec::new();
            for role in self.store.roles().await? {
                if !role.global || !role.capabilities.contains(&Capability::Import) {
                    continue;
                }
                for grant in self.grants_of_role_to_users(&role.name).await? {
                    if grant.object.is_none() {
                        managers.push(grant.grantee);
                    }
                }
            }
            if let Some(user) = self.store.user_by_name(started_by).await? {
                managers.push(user.id);
            }
            managers.sort();
            managers.dedup();
            self.notify(&managers, NotificationKind::ImportFailed, model, &message)
                .await
        };
        if let Err(e) = notified.await {
            tracing::warn!(error = %e, %model, "cannot notify the metadata managers of a failed import");
        }
    }

    async fn notify(
        &self,
        users: &[ObjectId],
        kind: NotificationKind,
        model: ObjectId,
        message: &str,
    ) -> Result<()> {
        if users.is_empty() {
            return Ok(());
        }
        let first = self
            .store
            .reserve_ids(NOTIFICATION_IDS, users.len() as u64)
            .await?;
        let at = now();
        let ops: Vec<Op> = users
            .iter()
            .zip(first..)
            .map(|(user, id)| {
                Op::PutNotification(Notification {
                    id,
                    user: *user,
                    kind,
                    object: model,
                    message: message.to_owned(),
                    at,
                    read: false,
                })
            })
            .collect();
        self.store.apply(Batch::from(ops)).await
    }

    /// `GET /notifications`: the caller's notifications, newest first.
    pub async fn my_notifications(
        &self,
        caller: &Caller,
        unread_only: bool,
        limit: Option<u32>,
    ) -> Result<Vec<NotificationView>> {
        let limit = limit.unwrap_or(100);
        if !(1..=MAX_NOTIFICATIONS).contains(&limit) {
            return Err(Error::invalid(format!(
                "limit must be from 1 to {MAX_NOTIFICATIONS}, not {limit}"
            )));
        }
        Ok(self
            .store
            .notifications(caller.user(), unread_only, limit)
            .await?
            .iter()
            .map(view)
            .collect())
    }

    /// `PUT /notifications/{notificationId}`: marks one of the caller's notifications read
    /// or unread. Another user's is NOT_FOUND, as an absent one.
    pub async fn mark_notification(
        &self,
        caller: &Caller,
        id: i64,
        read: bool,
    ) -> Result<NotificationView> {
        let mut notification = self
            .store
            .notification(id)
            .await?
            .filter(|n| n.user == caller.user())
            .ok_or_else(|| Error::not_found(format!("you have no notification {id}")))?;
        if notification.read != read {
            notification.read = read;
            self.store
                .apply(Batch::from(vec![Op::PutNotification(notification.clone())]))
                .await?;
        }
        Ok(view(&notification))
    }
}
