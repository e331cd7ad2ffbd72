//! The notifications concern ([`Notifications`]): what the watchers of a model and its
//! metadata managers are told (spec 6), and how it reaches them. The watchers of a model
//! are notified of its changes (imports, re-imports, edits), the metadata managers of
//! failed imports; each user reads their own (`GET /notifications`) and marks them read;
//! every notification becomes deliveries to the configured webhooks and e-mail, tried
//! again with a growing wait.
//!
//! Notifying is best effort: a notification that cannot be written is logged and the
//! change it reports stands.
//!
//! Not here: who watches what (curation, in governance), sending the deliveries (the
//! server's outbox task, through [`ServerCatalog`](crate::catalog::ServerCatalog)), and
//! where they go ([`DeliveryConfig`](crate::catalog::DeliveryConfig)).

use std::time::Duration;

use serde::Serialize;
use serde_json::{Value, json};

use crate::auth::Caller;
use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::id::ObjectId;
use crate::model::{
    Capability, CurationKind, DELIVERY_IDS, Delivery, DeliveryChannel, DeliveryState,
    NOTIFICATION_IDS, Notification, NotificationKind, format_datetime, now,
};
use crate::store::Op;

/// The notifications concern of a [`Catalog`]: a user's notifications and the
/// deliveries administrators read. Made by [`Catalog::notifications`].
#[derive(Debug, Clone, Copy)]
pub struct Notifications<'c> {
    catalog: &'c Catalog,
}

impl Catalog {
    /// Notifications and their deliveries: see [`Notifications`].
    pub fn notifications(&self) -> Notifications<'_> {
        Notifications { catalog: self }
    }
}

/// The shared helpers of the [`Catalog`] (sight, the meta model, the store) are the
/// handle's too.
impl std::ops::Deref for Notifications<'_> {
    type Target = Catalog;
    fn deref(&self) -> &Catalog {
        self.catalog
    }
}

/// The most notifications one read answers.
pub const MAX_NOTIFICATIONS: u32 = 1_000;

/// A notification as its user reads it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotificationView {
    pub id: i64,
    /// `MODEL_CHANGED`, `IMPORT_FAILED` or `UPSTREAM_CHANGED`.
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

/// The wait before the attempt after `attempts` failed ones: the initial wait doubled
/// for each further failure, at most the longest wait.
pub fn retry_wait(config: &crate::catalog::DeliveryConfig, attempts: u32) -> Duration {
    let doublings = attempts.saturating_sub(1).min(31);
    config
        .retry_initial
        .saturating_mul(1 << doublings)
        .min(config.retry_max)
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

    /// Writes the notifications of one event, one per user, and in the same batch the
    /// deliveries that carry the event out: one to each configured webhook, one e-mail
    /// to each user with an address when e-mail is configured.
    pub(crate) async fn notify(
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
        let notifications: Vec<Notification> = users
            .iter()
            .zip(first..)
            .map(|(user, id)| Notification {
                id,
                user: *user,
                kind,
                object: model,
                message: message.to_owned(),
                at,
                read: false,
            })
            .collect();
        let deliveries = self.deliveries_of(&notifications).await?;
        let ops: Vec<Op> = notifications
            .into_iter()
            .map(Op::PutNotification)
            .chain(deliveries.into_iter().map(Op::PutDelivery))
            .collect();
        self.write(crate::model::Author::system(), ops).await
    }

    /// The deliveries of one event's notifications (all of one kind, model and message).
    async fn deliveries_of(&self, notifications: &[Notification]) -> Result<Vec<Delivery>> {
        let config = &self.config.delivery;
        let Some(first) = notifications.first() else {
            return Ok(Vec::new());
        };
        if config.webhooks.is_empty() && !config.email {
            return Ok(Vec::new());
        }
        let mut recipients = Vec::with_capacity(notifications.len());
        for n in notifications {
            if let Some(user) = self.store.user(n.user).await? {
                recipients.push(user);
            }
        }
        let at = format_datetime(&first.at);
        let event = json!({
            "event": first.kind.as_str(),
            "modelId": first.object.to_string(),
            "message": first.message,
            "at": at,
            "recipients": recipients.iter().map(|u| u.name.as_str()).collect::<Vec<_>>(),
            "notificationIds": notifications.iter().map(|n| n.id).collect::<Vec<_>>(),
        });
        let mut targets: Vec<(DeliveryChannel, String, Value)> = config
            .webhooks
            .iter()
            .map(|name| (DeliveryChannel::Webhook, name.clone(), event.clone()))
            .collect();
        if config.email {
            let subject: String = format!("[Lore] {}", first.message)
                .chars()
                .take(200)
                .collect();
            for user in recipients.iter().filter(|u| u.email.contains('@')) {
                let text = format!(
                    "Hello {},\n\n{}\n\n({} at {}, model {})\n",
                    if user.full_name.is_empty() {
                        &user.name
                    } else {
                        &user.full_name
                    },
                    first.message,
                    first.kind.as_str(),
                    at,
                    first.object,
                );
                targets.push((
                    DeliveryChannel::Email,
                    user.email.clone(),
                    json!({"subject": subject, "text": text}),
                ));
            }
        }
        if targets.is_empty() {
            return Ok(Vec::new());
        }
        let first_id = self
            .store
            .reserve_ids(DELIVERY_IDS, targets.len() as u64)
            .await?;
        let created = now();
        Ok(targets
            .into_iter()
            .zip(first_id..)
            .map(|((channel, target, payload), id)| Delivery {
                id,
                channel,
                target,
                payload,
                state: DeliveryState::Pending,
                attempts: 0,
                next_attempt_at: created,
                last_error: String::new(),
                created_at: created,
                updated_at: created,
            })
            .collect())
    }

    /// Claims the deliveries due now for this process's sender, for `lease` (after which
    /// another sender may take them, should this one have stopped). Not a call of a
    /// client: the server's sender calls it.
    pub(crate) async fn claim_deliveries(
        &self,
        limit: usize,
        lease: Duration,
    ) -> Result<Vec<Delivery>> {
        let now = now();
        let lease_until = now + chrono::Duration::from_std(lease).unwrap_or(chrono::Duration::MAX);
        self.store.claim_deliveries(now, lease_until, limit).await
    }

    /// Records how an attempt at a delivery went: delivered, or failed with the reason
    /// and due again after the back-off of the retry policy, or given up after its last
    /// allowed attempt. Not a call of a client: the server's sender calls it.
    pub(crate) async fn finish_delivery(
        &self,
        mut delivery: Delivery,
        outcome: std::result::Result<(), String>,
    ) -> Result<Delivery> {
        let config = &self.config.delivery;
        let at = now();
        delivery.attempts = delivery.attempts.saturating_add(1);
        delivery.updated_at = at;
        match outcome {
            Ok(()) => {
                delivery.state = DeliveryState::Delivered;
                delivery.last_error.clear();
                delivery.next_attempt_at = at;
            }
            Err(reason) => {
                delivery.last_error = reason.chars().take(1000).collect();
                if delivery.attempts >= config.max_attempts {
                    delivery.state = DeliveryState::Failed;
                    delivery.next_attempt_at = at;
                } else {
                    let wait = retry_wait(config, delivery.attempts);
                    delivery.next_attempt_at =
                        at + chrono::Duration::from_std(wait).unwrap_or(chrono::Duration::MAX);
                }
            }
        }
        self.write(
            crate::model::Author::system(),
            vec![Op::UpdateDelivery(delivery.clone())],
        )
        .await?;
        Ok(delivery)
    }
}

impl Notifications<'_> {
    /// `GET /admin/notificationDeliveries`: the outbox, newest first, for administrators.
    pub async fn list_deliveries(
        &self,
        caller: &Caller,
        state: Option<DeliveryState>,
        limit: Option<u32>,
    ) -> Result<Vec<Delivery>> {
        caller.require(Capability::Administer)?;
        let limit = limit.unwrap_or(100);
        if !(1..=MAX_NOTIFICATIONS).contains(&limit) {
            return Err(Error::invalid(format!(
                "limit must be from 1 to {MAX_NOTIFICATIONS}, not {limit}"
            )));
        }
        self.store.deliveries(state, limit as usize).await
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
            self.write(
                crate::model::Author::system(),
                vec![Op::PutNotification(notification.clone())],
            )
            .await?;
        }
        Ok(view(&notification))
    }
}
