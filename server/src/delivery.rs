//! The sender of the notification outbox: claims the deliveries that are due, sends
//! each (a signed webhook POST, or an e-mail over SMTP) and records how it went, so a
//! failed one is retried with back-off and none is lost across a restart (the outbox is
//! in the store; a claim runs out if its process stops).
//!
//! A webhook receives the event as JSON with these headers:
//! - `X-Lore-Event`: `MODEL_CHANGED`, `IMPORT_FAILED` or `UPSTREAM_CHANGED`;
//! - `X-Lore-Delivery`: the delivery's id, the same on every retry (for deduplication);
//! - `X-Lore-Timestamp`: the Unix time of the attempt, in seconds;
//! - `X-Lore-Signature`: `sha256=` and the hex HMAC-SHA256, under the webhook's secret,
//!   of the timestamp, a `.` and the body. A receiver recomputes it, compares in constant
//!   time and refuses old timestamps (replays).

use std::collections::HashMap;
use std::time::Duration;

use hmac::{Hmac, Mac};
use lettre::message::header::ContentType;
use lettre::transport::smtp::authentication::Credentials;
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use lore_core::ServerCatalog;
use lore_core::model::{Delivery, DeliveryChannel, DeliveryState};
use sha2::Sha256;

use crate::config::{ConfigError, NotificationSettings};
use crate::metrics::Metrics;

/// Deliveries claimed at a time.
const BATCH: usize = 20;
/// How long a claim holds: another process takes the deliveries over after it.
const LEASE: Duration = Duration::from_secs(5 * 60);

/// A configured webhook.
struct Webhook {
    url: String,
    secret: String,
}

/// The sender of one Lore process.
pub struct Sender {
    catalog: ServerCatalog,
    webhooks: HashMap<String, Webhook>,
    mailer: Option<(AsyncSmtpTransport<Tokio1Executor>, lettre::message::Mailbox)>,
    client: reqwest::Client,
    poll_interval: Duration,
    /// Where failed attempts are counted.
    metrics: Option<Metrics>,
}

impl std::fmt::Debug for Sender {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sender")
            .field("webhooks", &self.webhooks.keys().collect::<Vec<_>>())
            .field("email", &self.mailer.is_some())
            .finish_non_exhaustive()
    }
}

impl Sender {
    /// The sender of the configured webhooks and SMTP server.
    pub fn new(
        catalog: ServerCatalog,
        settings: &NotificationSettings,
    ) -> Result<Self, ConfigError> {
        let timing = settings.timing()?;
        let mut webhooks = HashMap::new();
        for webhook in &settings.webhooks {
            webhooks.insert(
                webhook.name.clone(),
                Webhook {
                    url: webhook.url.clone(),
                    secret: webhook.secret()?,
                },
            );
        }
        let mailer = match &settings.smtp {
            None => None,
            Some(smtp) => {
                let builder = match smtp.tls.as_str() {
                    "tls" => AsyncSmtpTransport::<Tokio1Executor>::relay(&smtp.host),
                    "starttls" => AsyncSmtpTransport::<Tokio1Executor>::starttls_relay(&smtp.host),
                    _ => Ok(AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(
                        &smtp.host,
                    )),
                }
                .map_err(|e| ConfigError(format!("notifications.smtp: {e}")))?;
                let port = smtp.port.unwrap_or(match smtp.tls.as_str() {
                    "tls" => 465,
                    "starttls" => 587,
                    _ => 25,
                });
                let mut builder = builder.port(port).timeout(Some(timing.timeout));
                if let (Some(user), Some(password)) = (&smtp.username, &smtp.password) {
                    builder = builder.credentials(Credentials::new(user.clone(), password.clone()));
                }
                let from = smtp.from.parse().map_err(|e| {
                    ConfigError(format!(
                        "notifications.smtp.from '{}' is not an address: {e}",
                        smtp.from
                    ))
                })?;
                Some((builder.build(), from))
            }
        };
        let client = reqwest::Client::builder()
            .timeout(timing.timeout)
            .user_agent(concat!("Lore/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| ConfigError(format!("notifications: cannot make the HTTP client: {e}")))?;
        Ok(Self {
            catalog,
            webhooks,
            mailer,
            client,
            poll_interval: timing.poll_interval,
            metrics: None,
        })
    }

    /// Counts failed attempts in `metrics`.
    pub fn with_metrics(mut self, metrics: Metrics) -> Self {
        self.metrics = Some(metrics);
        self
    }

    /// Sends what is due, then waits for the poll interval, until the task is aborted.
    pub async fn run(self) {
        loop {
            let mut claimed = 0;
            match self.catalog.claim_deliveries(BATCH, LEASE).await {
                Ok(due) => {
                    claimed = due.len();
                    for delivery in due {
                        let outcome = self.send(&delivery).await;
                        let id = delivery.id;
                        let failed = outcome.is_err();
                        let finished = self.catalog.finish_delivery(delivery, outcome).await;
                        if let (true, Some(metrics), Ok(d)) = (failed, &self.metrics, &finished) {
                            let channel = match d.channel {
                                DeliveryChannel::Webhook => "webhook",
                                DeliveryChannel::Email => "email",
                            };
                            metrics.delivery_failed(channel, d.state == DeliveryState::Failed);
                        }
                        match finished {
                            Ok(d) if !d.last_error.is_empty() => tracing::warn!(
                                delivery = id,
                                channel = d.channel.as_str(),
                                target = %d.target,
                                attempts = d.attempts,
                                state = d.state.as_str(),
                                error = %d.last_error,
                                "a notification was not delivered"
                            ),
                            Ok(_) => {}
                            Err(e) => {
                                tracing::warn!(delivery = id, error = %e, "cannot record a delivery")
                            }
                        }
                    }
                }
                Err(e) => tracing::warn!(error = %e, "cannot read the notification outbox"),
            }
            // A full batch may have more behind it.
            if claimed < BATCH {
                tokio::time::sleep(self.poll_interval).await;
            }
        }
    }

    async fn send(&self, delivery: &Delivery) -> Result<(), String> {
        match delivery.channel {
            DeliveryChannel::Webhook => self.post(delivery).await,
            DeliveryChannel::Email => self.mail(delivery).await,
        }
    }

    async fn post(&self, delivery: &Delivery) -> Result<(), String> {
        let webhook = self
            .webhooks
            .get(&delivery.target)
            .ok_or_else(|| format!("webhook '{}' is no longer configured", delivery.target))?;
        let body = serde_json::to_vec(&delivery.payload).map_err(|e| e.to_string())?;
        let timestamp = chrono::Utc::now().timestamp().to_string();
        let event = delivery.payload["event"].as_str().unwrap_or_default();
        let response = self
            .client
            .post(&webhook.url)
            .header("Content-Type", "application/json")
            .header("X-Lore-Event", event)
            .header("X-Lore-Delivery", delivery.id.to_string())
            .header("X-Lore-Timestamp", &timestamp)
            .header(
                "X-Lore-Signature",
                format!("sha256={}", signature(&webhook.secret, &timestamp, &body)),
            )
            .body(body)
            .send()
            .await
            .map_err(|e| format!("POST {}: {e}", webhook.url))?;
        let status = response.status();
        if status.is_success() {
            Ok(())
        } else {
            Err(format!("POST {} answered {status}", webhook.url))
        }
    }

    async fn mail(&self, delivery: &Delivery) -> Result<(), String> {
        let (mailer, from) = self
            .mailer
            .as_ref()
            .ok_or("e-mail is no longer configured (notifications.smtp)")?;
        let to = delivery
            .target
            .parse()
            .map_err(|e| format!("'{}' is not an e-mail address: {e}", delivery.target))?;
        let text = |key: &str| {
            delivery.payload[key]
                .as_str()
                .unwrap_or_default()
                .to_owned()
        };
        let message = Message::builder()
            .from(from.clone())
            .to(to)
            .subject(text("subject"))
            .header(ContentType::TEXT_PLAIN)
            .body(text("text"))
            .map_err(|e| format!("cannot write the e-mail: {e}"))?;
        mailer
            .send(message)
            .await
            .map(|_| ())
            .map_err(|e| format!("SMTP: {e}"))
    }
}

/// The hex HMAC-SHA256 under `secret` of `<timestamp>.<body>`: what `X-Lore-Signature`
/// carries after `sha256=`.
pub fn signature(secret: &str, timestamp: &str, body: &[u8]) -> String {
    // HMAC takes a key of any length.
    let Ok(mut mac) = Hmac::<Sha256>::new_from_slice(secret.as_bytes()) else {
        return String::new();
    };
    mac.update(timestamp.as_bytes());
    mac.update(b".");
    mac.update(body);
    mac.finalize()
        .into_bytes()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}
