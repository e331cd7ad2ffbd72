-- Documents kept whole as JSON: users' dashboards, the license. A document without an
-- owner (the repository's own) has owner_model = owner_object = -9223372036854775808, the
-- smallest BIGINT, so it sorts first, as no owner does in the memory backend.
CREATE TABLE documents (
    kind            {text} NOT NULL,
    owner_model     BIGINT NOT NULL,
    owner_object    BIGINT NOT NULL,
    name            {text} NOT NULL,
    body            {text} NOT NULL,
    updated_at      BIGINT NOT NULL,
    updated_by_model  BIGINT,
    updated_by_object BIGINT,
    PRIMARY KEY (kind, owner_model, owner_object, name)
);
CREATE INDEX documents_owner ON documents (owner_model, owner_object);
