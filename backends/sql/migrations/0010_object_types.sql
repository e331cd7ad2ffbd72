-- Object types added at run time (POST /repository/metaModel/importXML); built-ins come
-- from the binary. `attributes` is the JSON array of the attribute type names it carries.
CREATE TABLE object_types (
    profile      {text} NOT NULL,
    name         {text} NOT NULL,
    display_name {text} NOT NULL,
    system_type  {text} NOT NULL,
    category     {text} NOT NULL,
    attributes   {text} NOT NULL,
    PRIMARY KEY (profile, name)
);
