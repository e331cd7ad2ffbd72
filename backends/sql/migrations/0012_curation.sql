-- Social curation: users endorsing, certifying, commenting on, warning about and
-- watching objects. Goes with its object (a hanging table) and with its user.
CREATE TABLE curation (
    id          BIGINT NOT NULL PRIMARY KEY,
    model_id    BIGINT NOT NULL,
    object_id   BIGINT NOT NULL,
    kind        {text} NOT NULL,
    user_model  BIGINT NOT NULL,
    user_object BIGINT NOT NULL,
    body        {text} NOT NULL,
    at          BIGINT NOT NULL
);
CREATE INDEX curation_object ON curation (model_id, object_id, kind);
CREATE INDEX curation_user ON curation (user_model, user_object);
