//! The statements of the hit cache ([`crate::hits`]): whether it keeps a plan's objects,
//! and the statement that reads them, with their labels, from the narrow table.

use lore_core::model::TagKind;
use lore_core::mql::plan::{Cond, FieldType, Plan};

use super::{
    Compiled, Compiler, NARROW_COLUMNS, NO_KEYS, Row, SearchKeys, TextIndex, clamp, columns_of,
    required_searches,
};
use crate::dialect::Dialect;
use crate::value::SqlValue;

/// Whether the hit cache ([`crate::hits`]) keeps the plan's objects: the plan requires a
/// text search, the caller sees everything, and its condition reads only the narrow
/// table's columns.
pub fn keeps(plan: &Plan, dialect: Dialect) -> bool {
    hits_condition(plan, dialect, &NO_KEYS).is_some()
}

/// The plan's condition on the narrow table (`o`), when the hit cache keeps its objects.
fn hits_condition<'k>(
    plan: &Plan,
    dialect: Dialect,
    keys: &'k SearchKeys,
) -> Option<(Compiler<'k>, String)> {
    if !matches!(plan.visibility, Cond::True) || required_searches(plan).is_empty() {
        return None;
    }
    let mut c = Compiler::new(dialect, &TextIndex::Always);
    c.keys = keys;
    c.narrow = true;
    let condition = c.cond(&plan.condition(), Row::Object("o"));
    let narrow = columns_of(&condition, "o")
        .iter()
        .all(|column| NARROW_COLUMNS.contains(column));
    narrow.then_some((c, condition))
}

/// The statement that reads the objects of a plan for the hit cache ([`crate::hits`]):
/// (model_id, object_id, name, type_name, data_type, kind, labels) of at most `most`
/// objects. Their labels: on PostgreSQL the narrow row's JSON array (migration 27); on
/// SQLite NULL, and a row (model_id, object_id, NULL, NULL, NULL, NULL, label) for each
/// of their labels, through the tags' key, unless they are `most` (too many to keep).
/// `None` when the cache does not keep the plan ([`keeps`]).
pub fn objects(plan: &Plan, dialect: Dialect, keys: &SearchKeys, most: u64) -> Option<Compiled> {
    let (mut c, condition) = hits_condition(plan, dialect, keys)?;
    let most = c.param(SqlValue::Int(Some(clamp(most))));
    let columns = "o.model_id AS model_id, o.object_id AS object_id, o.name AS name, \
                   o.type_name AS type_name, o.data_type AS data_type, o.kind AS kind";
    let sql = match dialect {
        Dialect::Postgres => format!(
            "SELECT {columns}, o.labels AS labels FROM object_search o WHERE {condition} LIMIT {most}"
        ),
        Dialect::Sqlite => {
            let label = c.text(TagKind::Label.as_str());
            let labels = dialect.join_rows_per_object(
                &format!(
                    "SELECT t.model_id AS model_id, t.object_id AS object_id, t.value AS v \
                     FROM tags t WHERE t.kind = {label}"
                ),
                "o",
            );
            let null = dialect.null_of(FieldType::Text);
            format!(
                "WITH hits AS MATERIALIZED (SELECT {columns} FROM object_search o \
                 WHERE {condition} LIMIT {most}) \
                 SELECT o.model_id, o.object_id, o.name, o.type_name, o.data_type, o.kind, {null} \
                 FROM hits o UNION ALL \
                 SELECT o.model_id, o.object_id, {null}, {null}, {null}, {null}, fv.v \
                 FROM hits o {labels} WHERE (SELECT COUNT(*) FROM hits) < {most}"
            )
        }
    };
    Some(Compiled {
        sql,
        params: c.params,
    })
}
