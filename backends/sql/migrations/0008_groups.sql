-- Groups of users. Groups are -1_<n> objects like users (the two share the repository
-- id space); name_key is the name lowercased by Lore, so names are unique among groups
-- case-insensitively. The roles granted to an enabled group hold for its members.
CREATE TABLE user_groups (
    model_id    BIGINT  NOT NULL,
    object_id   BIGINT  NOT NULL,
    name        {text}  NOT NULL,
    name_key    {text}  NOT NULL,
    description {text}  NOT NULL,
    enabled     BOOLEAN NOT NULL,
    created_at  BIGINT  NOT NULL,
    PRIMARY KEY (model_id, object_id)
);
CREATE UNIQUE INDEX user_groups_name_key ON user_groups (name_key);

CREATE TABLE group_members (
    group_model  BIGINT NOT NULL,
    group_object BIGINT NOT NULL,
    user_model   BIGINT NOT NULL,
    user_object  BIGINT NOT NULL,
    PRIMARY KEY (group_model, group_object, user_model, user_object)
);
CREATE INDEX group_members_user ON group_members (user_model, user_object);
