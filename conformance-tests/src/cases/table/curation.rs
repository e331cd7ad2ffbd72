//! The cases of social curation, workflow and notifications.

use crate::cases::{B, Case, D, N, Needs, curation, notifications};

/// The cases of this part, in the order they run.
pub(super) fn cases() -> Vec<Case> {
    vec![
        // Social curation and workflow
        case!(
            curation::curation_endorse_certify_comment_warn_watch,
            AnyServer,
            [
                ("GET", "/curation/{objectId}", N),
                ("POST", "/curation/{objectId}", N),
                ("DELETE", "/curation/{objectId}", N),
            ]
        ),
        case!(
            curation::workflow_moves_through_its_states,
            AnyServer,
            [("POST", "/workflow/{objectId}", N)]
        ),
        case!(
            curation::curation_and_workflow_bad_input,
            AnyServer,
            [
                ("GET", "/curation/{objectId}", B),
                ("POST", "/curation/{objectId}", B),
                ("DELETE", "/curation/{objectId}", B),
                ("POST", "/workflow/{objectId}", B),
            ]
        ),
        case!(
            curation::curation_and_workflow_denied,
            AnyServer,
            [
                ("GET", "/curation/{objectId}", D),
                ("POST", "/curation/{objectId}", D),
                ("DELETE", "/curation/{objectId}", D),
                ("POST", "/workflow/{objectId}", D),
            ]
        ),
        // Notifications
        case!(
            notifications::watchers_are_notified_of_model_changes,
            AnyServer,
            [
                ("GET", "/notifications", N),
                ("PUT", "/notifications/{notificationId}", N),
            ]
        ),
        case!(
            notifications::notifications_bad_input,
            AnyServer,
            [
                ("GET", "/notifications", B),
                ("PUT", "/notifications/{notificationId}", B),
            ]
        ),
        case!(
            notifications::notification_deliveries_for_administrators,
            AnyServer,
            [
                ("GET", "/admin/notificationDeliveries", N),
                ("GET", "/admin/notificationDeliveries", B),
                ("GET", "/admin/notificationDeliveries", D),
            ]
        ),
    ]
}
