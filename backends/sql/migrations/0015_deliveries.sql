-- The outbox of notifications (spec 6): each event on its way to a webhook or an e-mail
-- address, written with the notifications it carries and sent (and retried) by the
-- server's sender. `payload` is JSON; `next_attempt_at` is when it is due, or when a
-- sender's claim on it runs out.
CREATE TABLE deliveries (
    id              BIGINT NOT NULL PRIMARY KEY,
    channel         {text} NOT NULL,
    target          {text} NOT NULL,
    payload         {text} NOT NULL,
    state           {text} NOT NULL,
    attempts        BIGINT NOT NULL,
    next_attempt_at BIGINT NOT NULL,
    last_error      {text} NOT NULL,
    created_at      BIGINT NOT NULL,
    updated_at      BIGINT NOT NULL
);
CREATE INDEX deliveries_due ON deliveries (state, next_attempt_at, id);
