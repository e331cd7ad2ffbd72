-- Notifications of users (spec 6): watchers of a model of its changes, metadata managers
-- of failed imports. They go with their user; the model they are about may be gone.
CREATE TABLE notifications (
    id           BIGINT NOT NULL PRIMARY KEY,
    user_model   BIGINT NOT NULL,
    user_object  BIGINT NOT NULL,
    kind         {text} NOT NULL,
    model_id     BIGINT NOT NULL,
    object_id    BIGINT NOT NULL,
    message      {text} NOT NULL,
    at           BIGINT NOT NULL,
    is_read      BOOLEAN NOT NULL
);
CREATE INDEX notifications_user ON notifications (user_model, user_object, at, id);
