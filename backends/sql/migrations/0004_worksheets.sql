-- Worksheets: queries users saved under a name, with the clauses as the query endpoints
-- take them. name_key is the name lowercased by Lore (as users.name_key), so names are
-- unique among one owner's worksheets case-insensitively.
CREATE TABLE worksheets (
    model_id     BIGINT NOT NULL,
    object_id    BIGINT NOT NULL,
    name         {text} NOT NULL,
    name_key     {text} NOT NULL,
    owner_model  BIGINT NOT NULL,
    owner_object BIGINT NOT NULL,
    description  {text} NOT NULL,
    select_list  {text} NOT NULL,
    from_id      {text},
    scope        {text},
    filter       {text},
    order_by     {text},
    context      {text},
    mql_version  BIGINT NOT NULL,
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL,
    PRIMARY KEY (model_id, object_id)
);
CREATE UNIQUE INDEX worksheets_owner_name ON worksheets (owner_model, owner_object, name_key);
CREATE INDEX worksheets_name ON worksheets (name, model_id, object_id);
