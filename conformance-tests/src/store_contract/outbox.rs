//! The outbox of notifications: deliveries claimed, retried and finished.

use super::*;

pub(super) fn delivery(id: i64, due_millis: i64, state: DeliveryState) -> Delivery {
    Delivery {
        id,
        channel: if id % 2 == 0 {
            DeliveryChannel::Email
        } else {
            DeliveryChannel::Webhook
        },
        target: format!("target {id}"),
        payload: serde_json::json!({"event": "MODEL_CHANGED", "id": id, "text": "Zürich"}),
        state,
        attempts: 0,
        next_attempt_at: at(due_millis),
        last_error: String::new(),
        created_at: at(1_000),
        updated_at: at(1_000),
    }
}

pub(super) async fn deliveries_are_claimed_once_until_their_lease_runs_out(store: Arc<dyn Store>) {
    let store = store.as_ref();
    apply(
        store,
        vec![
            Op::PutDelivery(delivery(1, 5_000, DeliveryState::Pending)),
            Op::PutDelivery(delivery(2, 2_000, DeliveryState::Pending)),
            Op::PutDelivery(delivery(3, 9_000, DeliveryState::Pending)),
            Op::PutDelivery(delivery(4, 1_000, DeliveryState::Delivered)),
            Op::PutDelivery(delivery(5, 1_000, DeliveryState::Failed)),
        ],
        "PutDelivery",
    )
    .await;
    let claimed = ok(
        store.claim_deliveries(at(6_000), at(60_000), 10).await,
        "claim_deliveries",
    );
    assert_eq!(
        claimed.iter().map(|d| d.id).collect::<Vec<_>>(),
        vec![1, 2],
        "only pending deliveries that are due, by id"
    );
    assert!(
        claimed.iter().all(|d| d.next_attempt_at == at(60_000)),
        "claimed deliveries are due again when the lease runs out"
    );
    let mut expected = delivery(1, 60_000, DeliveryState::Pending);
    expected.next_attempt_at = at(60_000);
    assert_eq!(claimed[0], expected, "a delivery round-trips whole");
    assert!(
        ok(
            store.claim_deliveries(at(7_000), at(70_000), 10).await,
            "claim"
        )
        .is_empty(),
        "a claimed delivery is not claimed again before its lease runs out"
    );
    let first = ok(
        store.claim_deliveries(at(61_000), at(90_000), 1).await,
        "claim after the lease",
    );
    assert_eq!(
        first.iter().map(|d| d.id).collect::<Vec<_>>(),
        vec![3],
        "at most `limit`, the earliest due first (3 at 9 s before 1 and 2, whose lease ran \
         out at 60 s)"
    );
    // A delivered one stays delivered.
    let mut done = first[0].clone();
    done.state = DeliveryState::Delivered;
    done.attempts = 1;
    apply(
        store,
        vec![Op::PutDelivery(done.clone())],
        "PutDelivery again",
    )
    .await;
    assert_eq!(
        ok(
            store.deliveries(Some(DeliveryState::Delivered), 10).await,
            "deliveries"
        )
        .iter()
        .map(|d| d.id)
        .collect::<Vec<_>>(),
        vec![4, 3],
        "deliveries in a state, newest first"
    );
    assert_eq!(
        ok(store.deliveries(None, 2).await, "deliveries")
            .iter()
            .map(|d| d.id)
            .collect::<Vec<_>>(),
        vec![5, 4],
        "all deliveries, newest first, at most `limit`"
    );

    // Concurrent senders never claim the same delivery.
    let many: Vec<Op> = (100..160)
        .map(|id| Op::PutDelivery(delivery(id, 1_000, DeliveryState::Pending)))
        .collect();
    apply(store, many, "many deliveries").await;
    let (a, b) = tokio::join!(
        store.claim_deliveries(at(2_000), at(100_000), 40),
        store.claim_deliveries(at(2_000), at(100_000), 40),
    );
    let mut ids: Vec<i64> = ok(a, "claim a")
        .into_iter()
        .chain(ok(b, "claim b"))
        .map(|d| d.id)
        .collect();
    let claimed = ids.len();
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), claimed, "no delivery is claimed twice");
    assert!(
        ids.iter().filter(|id| **id >= 100).count() >= 40,
        "the claims took what was due: {ids:?}"
    );
}
