//! The statements of the hit cache ([`crate::hits`]): whether it keeps a plan's objects,
//! the statement that reads them from the narrow table, and the one that reads their
//! labels by their ids.

use lore_core::ObjectId;
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
/// (model_id, object_id, name, type_name, data_type, kind) of at most `most` objects;
/// where the dialect reads their labels with them ([`Dialect::labels_with_hits`]), a
/// seventh column NULL, and a row (model_id, object_id, NULL, NULL, NULL, NULL, label)
/// for each of their labels, unless they are `most` (too many to keep). `None` when the
/// cache does not keep the plan ([`keeps`]).
pub fn objects(plan: &Plan, dialect: Dialect, keys: &SearchKeys, most: u64) -> Option<Compiled> {
    let (mut c, condition) = hits_condition(plan, dialect, keys)?;
    let most = c.param(SqlValue::Int(Some(clamp(most))));
    let objects = format!(
        "SELECT o.model_id AS model_id, o.object_id AS object_id, o.name AS name, \
         o.type_name AS type_name, o.data_type AS data_type, o.kind AS kind \
         FROM object_search o WHERE {condition} LIMIT {most}"
    );
    let sql = if dialect.labels_with_hits() {
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
            "WITH hits AS MATERIALIZED ({objects}) \
             SELECT o.model_id, o.object_id, o.name, o.type_name, o.data_type, o.kind, {null} \
             FROM hits o UNION ALL \
             SELECT o.model_id, o.object_id, {null}, {null}, {null}, {null}, fv.v \
             FROM hits o {labels} WHERE (SELECT COUNT(*) FROM hits) < {most}"
        )
    } else {
        objects
    };
    Some(Compiled {
        sql,
        params: c.params,
    })
}

/// The labels of some objects (the hit cache's, [`crate::hits`]): rows (model_id,
/// object_id, label), through the tags' key per object; the objects are the parameters
/// of [`labels_of_params`] (SQLite: `$1` a JSON array of `[model, object]` pairs;
/// PostgreSQL: `$1` and `$2` the models and the objects, comma-separated, which it
/// splits ten times faster than it parses 40,000 JSON pairs).
pub fn labels_of(dialect: Dialect) -> String {
    let (objects, kind) = match dialect {
        Dialect::Sqlite => (dialect.id_pairs(1), "$2"),
        Dialect::Postgres => (
            "SELECT * FROM unnest(string_to_array($1, ',')::BIGINT[], \
             string_to_array($2, ',')::BIGINT[]) AS i (model_id, object_id)"
                .to_owned(),
            "$3",
        ),
    };
    let labels = dialect.join_rows_per_object(
        &format!(
            "SELECT t.model_id AS model_id, t.object_id AS object_id, t.value AS v \
             FROM tags t WHERE t.kind = {kind}"
        ),
        "h",
    );
    format!("SELECT h.model_id, h.object_id, fv.v FROM ({objects}) h {labels}")
}

/// The parameters of [`labels_of`] for these objects.
pub fn labels_of_params(dialect: Dialect, ids: &[ObjectId]) -> Vec<SqlValue> {
    let label = SqlValue::Text(Some(TagKind::Label.as_str().to_owned()));
    match dialect {
        Dialect::Sqlite => {
            let pairs: Vec<[i64; 2]> = ids.iter().map(|id| [id.model, id.object]).collect();
            let pairs = serde_json::to_string(&pairs).ok();
            vec![SqlValue::Text(pairs), label]
        }
        Dialect::Postgres => {
            let list = |of: fn(&ObjectId) -> i64| {
                let texts: Vec<String> = ids.iter().map(|id| of(id).to_string()).collect();
                SqlValue::Text(Some(texts.join(",")))
            };
            vec![list(|id| id.model), list(|id| id.object), label]
        }
    }
}
