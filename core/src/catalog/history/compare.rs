//! A model's versions, and two states of a model compared: the objects added, removed,
//! changed and moved between them, each with its attribute diffs, and each change
//! classified *breaking* (what a reader of the model downstream must change for) or not.
//!
//! The objects to compare are found by the stamps of the rows written between the two
//! states ([`HistoryRecords::objects_changed_between`](crate::store::HistoryRecords)),
//! not by reading the whole model twice: a compare costs what changed, not the model's
//! size. Each is then read as it was at both ends and the two images diffed
//! ([`changes::of`] over a history of two images).

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{Value as Json, json};

use super::changes::{self, Change};
use super::{AsOf, History};
use crate::auth::Caller;
use crate::error::{Error, Result};
use crate::id::{ObjectId, ObjectRef};
use crate::model::{
    Object, ObjectHistory, ObjectKind, Revision, SystemType, Versioned, format_micros,
};
use crate::store::Details;

/// The most objects a compare works out; past it the answer says `truncated`. At 1% of
/// 1,000,000 objects (10,000) a compare takes 1.6 s on SQLite and 4.3 s on PostgreSQL
/// (BENCHMARKS.md); this bounds one request at a few times that.
pub const MOST_COMPARED: usize = 50_000;
/// Objects listed by a compare when the caller asks for no `limit`.
pub const DEFAULT_LISTED: usize = 1_000;
/// The most objects a caller may have listed (the counts are of every object).
pub const MOST_LISTED: usize = 10_000;
/// Versions listed on a page when the caller asks for no `limit`.
pub const DEFAULT_VERSIONS: usize = 100;
/// The most versions a caller may have listed on a page.
pub const MOST_VERSIONS: usize = 1_000;
/// Objects read at once at each end.
const CHUNK: usize = 500;

/// A page of a model's versions, newest first.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelVersions {
    pub model_id: String,
    pub versions: Vec<VersionView>,
    /// Pass as `before` for the next page (older versions); absent on the last one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_before: Option<i64>,
}

/// One version of a model, as `GET /history/models/{modelId}/versions` lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VersionView {
    /// The version's id: the catalog version its import committed as, which `asOf` and
    /// a compare's `from` and `to` take.
    pub id: String,
    /// Its number among the model's versions, from 1.
    pub number: i64,
    pub at: String,
    pub author: Json,
    pub operation_id: Option<i64>,
    /// The model's objects after the import, and those it added, changed and removed.
    pub objects: i64,
    pub added: i64,
    pub changed: i64,
    pub removed: i64,
}

/// Two states of a model compared.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Comparison {
    pub model_id: String,
    pub from: Json,
    pub to: Json,
    pub counts: CompareCounts,
    /// The objects that differ, breaking ones first, at most `limit`.
    pub objects: Vec<ObjectDiff>,
    /// Whether objects were left out: past `limit` (the counts still count them), or past
    /// [`MOST_COMPARED`] objects changed (the counts too are of the first ones).
    pub truncated: bool,
}

/// How many objects differ, by how.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CompareCounts {
    pub added: usize,
    pub removed: usize,
    pub changed: usize,
    pub moved: usize,
    /// Objects with at least one breaking change.
    pub breaking: usize,
}

/// One object that differs between the two states.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ObjectDiff {
    pub object_id: String,
    /// Its name and type as of `to`, or as of `from` when it was removed.
    pub name: String,
    pub object_type: String,
    /// `added`, `removed`, `moved` (its parent changed; it may have changed too) or
    /// `changed`.
    pub change: &'static str,
    pub breaking: bool,
    /// Why it is breaking: `removed`, `renamed`, `moved`, `type changed`, `made not
    /// null`, `key changed`.
    pub reasons: Vec<&'static str>,
    /// Its changes (none listed for an added or removed object).
    pub changes: Vec<Diff>,
}

/// One difference on an object.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Diff {
    /// As an object's history names it: `moved`, `attribute`, `label`, `collection`,
    /// `dataClass`, `sensitivityLabel`, `edge`.
    pub kind: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    pub old: Json,
    pub new: Json,
    pub breaking: bool,
}

impl History<'_> {
    /// The model a caller names, if they may see it: one that exists now, or one deleted
    /// since (by id), judged as [`History::target`] judges; anything else is refused.
    async fn model_target(&self, caller: &Caller, reference: &ObjectRef) -> Result<ObjectId> {
        let id = self.target(caller, reference).await?;
        // `target` judged the caller's sight of it.
        let kind = match self.stored_object(id).await? {
            Some(object) => object.kind,
            None => match self.store.object_history(id, 1).await?.objects.pop() {
                Some(image) => image.row.kind,
                None => return Err(super::not_found(reference)),
            },
        };
        if kind != ObjectKind::Model {
            return Err(Error::invalid(format!("{id} is not a model")));
        }
        Ok(id)
    }

    /// `GET /history/models/{modelId}/versions`: the model's versions, newest first, at
    /// most `limit` (1 to [`MOST_VERSIONS`], [`DEFAULT_VERSIONS`] when absent), those
    /// numbered below `before` when given.
    pub async fn model_versions(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
        before: Option<i64>,
        limit: Option<usize>,
    ) -> Result<ModelVersions> {
        let limit = super::page_limit(limit, DEFAULT_VERSIONS, MOST_VERSIONS)?;
        let model = self.model_target(caller, reference).await?;
        let mut versions = self
            .store
            .model_versions(model.content_model(), before, limit + 1)
            .await?;
        let next_before = (versions.len() > limit).then(|| {
            versions.truncate(limit);
            versions.last().map_or(0, |v| v.number)
        });
        let mut users = HashMap::new();
        for version in &versions {
            if let Some(user) = version.revision.author.user
                && !users.contains_key(&user)
            {
                let found = self.store.user(user).await?;
                users.insert(user, super::user_json(found.as_ref(), user));
            }
        }
        Ok(ModelVersions {
            model_id: model.to_string(),
            versions: versions
                .into_iter()
                .map(|v| VersionView {
                    id: v.revision.version.to_string(),
                    number: v.number,
                    at: format_micros(&v.revision.at),
                    author: super::author_json(&v.revision.author, &users),
                    operation_id: v.revision.author.operation,
                    objects: v.counts.objects,
                    added: v.counts.added,
                    changed: v.counts.changed,
                    removed: v.counts.removed,
                })
                .collect(),
            next_before,
        })
    }

    /// `GET /history/models/{modelId}/compare`: the model's objects as of `from` against
    /// as of `to` (the newest revision when absent): those added, removed, changed and
    /// moved, breaking ones first, at most `limit` listed.
    pub async fn compare(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
        from: AsOf,
        to: Option<AsOf>,
        limit: Option<usize>,
    ) -> Result<Comparison> {
        let limit = super::page_limit(limit, DEFAULT_LISTED, MOST_LISTED)?;
        let model = self.model_target(caller, reference).await?;
        let from = self.revision_of(from).await?;
        let to = match to {
            Some(to) => self.revision_of(to).await?,
            None => self.store.history_span().await?.newest,
        };
        let (mut diffs, mut truncated) = self.differences(model, from.version, to.version).await?;
        // Edges whose other end the caller cannot see now are left out.
        let sight = self.sight(caller).await?;
        for diff in &mut diffs {
            diff.changes.retain(|(change, _)| {
                change.kind != "edge" || change.others.iter().all(|o| sight.sees_id(*o))
            });
        }
        diffs.retain(|d| d.change != "changed" || !d.changes.is_empty());
        let mut counts = CompareCounts::default();
        for diff in &diffs {
            match diff.change {
                "added" => counts.added += 1,
                "removed" => counts.removed += 1,
                "moved" => counts.moved += 1,
                _ => counts.changed += 1,
            }
            counts.breaking += usize::from(!diff.reasons.is_empty());
        }
        diffs.sort_by(|a, b| {
            (a.reasons.is_empty(), rank(a.change), &a.name, a.id).cmp(&(
                b.reasons.is_empty(),
                rank(b.change),
                &b.name,
                b.id,
            ))
        });
        truncated |= diffs.len() > limit;
        diffs.truncate(limit);
        Ok(Comparison {
            model_id: model.to_string(),
            from: end_json(&from),
            to: end_json(&to),
            counts,
            objects: diffs.into_iter().map(Found::view).collect(),
            truncated,
        })
    }
}

/// An end of a compare as the answer shows it.
fn end_json(revision: &Revision) -> Json {
    json!({"version": revision.version, "at": format_micros(&revision.at)})
}

impl History<'_> {
    /// The objects of the model that differ between the versions `from` and `to` (either
    /// may be the later), whoever asks; and whether more than [`MOST_COMPARED`] objects
    /// changed (only the first are compared).
    pub(super) async fn differences(
        &self,
        model: ObjectId,
        from: i64,
        to: i64,
    ) -> Result<(Vec<Found>, bool)> {
        let (low, high) = (from.min(to), from.max(to));
        let mut ids = self
            .store
            .objects_changed_between(model.content_model(), low, high, MOST_COMPARED + 1)
            .await?;
        let truncated = ids.len() > MOST_COMPARED;
        ids.truncate(MOST_COMPARED);
        let mut found = Vec::new();
        for chunk in ids.chunks(CHUNK) {
            let both = self.store.entities_at_both(chunk, from, to).await?;
            found.extend(
                both.into_iter()
                    .filter_map(|(before, after)| diff(before, after)),
            );
        }
        Ok((found, truncated))
    }
}

/// The order of changes in a list: what goes first.
fn rank(change: &str) -> u8 {
    match change {
        "removed" => 0,
        "moved" => 1,
        "changed" => 2,
        _ => 3,
    }
}

/// An object found to differ, before it is shown.
pub(super) struct Found {
    pub(super) id: ObjectId,
    pub(super) name: String,
    object_type: String,
    change: &'static str,
    pub(super) reasons: Vec<&'static str>,
    changes: Vec<(Change, bool)>,
}

impl Found {
    fn view(self) -> ObjectDiff {
        ObjectDiff {
            object_id: self.id.to_string(),
            name: self.name,
            object_type: self.object_type,
            change: self.change,
            breaking: !self.reasons.is_empty(),
            reasons: self.reasons,
            changes: self
                .changes
                .into_iter()
                .map(|(c, breaking)| Diff {
                    kind: c.kind,
                    name: c.name,
                    old: c.old,
                    new: c.new,
                    breaking,
                })
                .collect(),
        }
    }
}

/// How an object differs between its two images (`None`: it did not exist at either,
/// or is the same at both).
fn diff(before: (Option<Object>, Details), after: (Option<Object>, Details)) -> Option<Found> {
    let shown = after.0.clone().or_else(|| before.0.clone())?;
    // A history of two images: the first current up to 1, the second from 1.
    let mut history = ObjectHistory::default();
    let mut put = |(object, details): (Option<Object>, Details), from: i64, to: Option<i64>| {
        fn each<T>(rows: Vec<T>, list: &mut Vec<Versioned<T>>, from: i64, to: Option<i64>) {
            list.extend(rows.into_iter().map(|row| Versioned { from, to, row }));
        }
        each(object.into_iter().collect(), &mut history.objects, from, to);
        each(details.attributes, &mut history.attributes, from, to);
        each(details.edges, &mut history.edges, from, to);
        each(details.tags, &mut history.tags, from, to);
        each(
            details.classifications,
            &mut history.classifications,
            from,
            to,
        );
        each(details.labels, &mut history.labels, from, to);
    };
    let existed = before.0.is_some();
    let exists = after.0.is_some();
    put(before, 0, Some(1));
    put(after, 1, None);
    let mut found = changes::of(&history);
    let change = match (existed, exists) {
        (false, true) => "added",
        (true, false) => "removed",
        (true, true) if found.iter().any(|c| c.kind == "moved") => "moved",
        (true, true) => "changed",
        (false, false) => return None,
    };
    if change == "changed" && found.is_empty() {
        return None;
    }
    // An added or removed object is one change: its rows are not listed one by one.
    found.retain(|c| !matches!(c.kind, "created" | "deleted"));
    if change != "changed" && change != "moved" {
        found.clear();
    }
    let key = shown.system_type == SystemType::Key;
    let mut reasons = Vec::new();
    let mut reason = |r: &'static str| {
        if !reasons.contains(&r) {
            reasons.push(r);
        }
    };
    match change {
        "removed" if shown.kind == ObjectKind::ModelObject => reason("removed"),
        "added" if key => reason("key changed"),
        "removed" if key => reason("key changed"),
        _ => {}
    }
    let changes = found
        .into_iter()
        .map(|c| {
            let why = breaking(&c, key);
            if let Some(why) = why {
                reason(why);
            }
            (c, why.is_some())
        })
        .collect();
    found_sorted(Found {
        id: shown.id,
        name: shown.name.clone(),
        object_type: shown.object_type.qualified(),
        change,
        reasons,
        changes,
    })
}

/// The changes in a stable order: by kind, then name.
fn found_sorted(mut found: Found) -> Option<Found> {
    found.changes.sort_by(|(a, _), (b, _)| {
        (a.kind, &a.name, a.old.to_string()).cmp(&(b.kind, &b.name, b.old.to_string()))
    });
    Some(found)
}

/// Why a change of an object breaks what reads it downstream, if it does: a rename, a
/// move, a type changed other than widened, a column made not null, anything on a key.
pub(crate) fn breaking(change: &Change, key: bool) -> Option<&'static str> {
    match (change.kind, change.name.as_deref()) {
        ("moved", _) => Some("moved"),
        ("attribute", Some("Name" | "Physical Name")) => Some("renamed"),
        ("attribute", Some("Object Type")) => Some("type changed"),
        ("attribute", Some("Data Type")) => {
            let (old, new) = (change.old.as_str(), change.new.as_str());
            match (old, new) {
                (Some(old), Some(new)) if widened(old, new) => None,
                // A type where there was none says more; it narrows nothing.
                (None, Some(_)) => None,
                _ => Some("type changed"),
            }
        }
        ("attribute", Some("Nullable")) if truthy(&change.old) && falsy(&change.new) => {
            Some("made not null")
        }
        ("attribute", _) if key => Some("key changed"),
        _ => None,
    }
}

/// Whether an attribute's value says "true" (a boolean, or its text).
fn truthy(value: &Json) -> bool {
    match value {
        Json::Bool(b) => *b,
        Json::String(s) => s.eq_ignore_ascii_case("true") || s.eq_ignore_ascii_case("yes"),
        _ => false,
    }
}

/// Whether an attribute's value says "false" (a value removed says nothing).
fn falsy(value: &Json) -> bool {
    match value {
        Json::Bool(b) => !*b,
        Json::String(s) => s.eq_ignore_ascii_case("false") || s.eq_ignore_ascii_case("no"),
        _ => false,
    }
}

/// Whether a data type becomes one that holds every value it held: the same type with
/// a length, precision or scale no smaller (and as many digits before the point), or a
/// wider integer or floating-point type.
pub(crate) fn widened(old: &str, new: &str) -> bool {
    if old.trim().eq_ignore_ascii_case(new.trim()) {
        return true;
    }
    // A type this rule cannot read whole (`VARCHAR2(10 BYTE)`, `enum('a')`,
    // `timestamp(3) with time zone`) widens only to itself.
    let (Some((old_base, old_args)), Some((new_base, new_args))) =
        (parse_type(old), parse_type(new))
    else {
        return false;
    };
    if old_base == new_base {
        return match (old_args.as_slice(), new_args.as_slice()) {
            (a, b) if a == b => true,
            // Unbounded now (PostgreSQL's `varchar` without a length): holds everything.
            (_, []) => UNBOUNDED_WITHOUT_LENGTH.contains(&new_base.as_str()),
            ([length], [wider]) => wider >= length,
            ([precision, scale], [p, s]) => s >= scale && p - s >= precision - scale,
            _ => false,
        };
    }
    const LADDERS: [&[&str]; 2] = [
        &["tinyint", "smallint", "integer", "bigint"],
        &["real", "double precision"],
    ];
    let canonical = |base: &str| -> String {
        match base {
            "int" | "int4" => "integer",
            "int2" => "smallint",
            "int8" => "bigint",
            "float4" => "real",
            "float8" | "double" => "double precision",
            other => other,
        }
        .to_owned()
    };
    let (old_base, new_base) = (canonical(&old_base), canonical(&new_base));
    if old_base == new_base && old_args.is_empty() && new_args.is_empty() {
        return true;
    }
    LADDERS.iter().any(|ladder| {
        let at = |base: &str| ladder.iter().position(|b| *b == base);
        matches!((at(&old_base), at(&new_base)), (Some(a), Some(b)) if b >= a)
    }) && new_args.is_empty()
        && old_args.is_empty()
}

/// The types whose values have no bound when they are written without a length.
const UNBOUNDED_WITHOUT_LENGTH: &[&str] = &["varchar", "character varying"];

/// A data type's base name (lowercase, spaces collapsed) and its numbers:
/// `VARCHAR(20)` → (`varchar`, [20]), `numeric(10, 2)` → (`numeric`, [10, 2]); `None`
/// for a type with anything else in or after its parentheses.
fn parse_type(text: &str) -> Option<(String, Vec<i64>)> {
    let text = text.trim().to_ascii_lowercase();
    let (base, args) = match text.split_once('(') {
        Some((base, rest)) => (base, rest.strip_suffix(')')?),
        None => (text.as_str(), ""),
    };
    let base = base.split_whitespace().collect::<Vec<_>>().join(" ");
    let args = if args.trim().is_empty() {
        Vec::new()
    } else {
        args.split(',')
            .map(|a| a.trim().parse().ok())
            .collect::<Option<Vec<i64>>>()?
    };
    Some((base, args))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{AttributeValue, SystemType, TypeName, Value};

    fn column(name: &str, data_type: &str) -> Object {
        let mut o = Object::new(
            ObjectId::new(7, 2),
            ObjectKind::ModelObject,
            TypeName::new("Database", "Column"),
            SystemType::Feature,
            name,
        );
        o.data_type = Some(data_type.to_owned());
        o.parent = Some(ObjectId::new(7, 1));
        o
    }

    fn with(object: Option<Object>, nullable: Option<bool>) -> (Option<Object>, Details) {
        let id = ObjectId::new(7, 2);
        let mut details = Details::default();
        if let Some(nullable) = nullable {
            details.attributes.push(AttributeValue {
                object: id,
                attribute: "Nullable".into(),
                value: Value::Boolean(nullable),
            });
        }
        (object, details)
    }

    #[test]
    fn types_widen_or_change() {
        assert!(widened("varchar(10)", "VARCHAR(20)"));
        assert!(widened("varchar(10)", "varchar"));
        assert!(widened("numeric(10,2)", "numeric(12, 2)"));
        assert!(widened("int", "bigint"));
        assert!(widened("integer", "int4"));
        assert!(widened("real", "double precision"));
        assert!(!widened("varchar(20)", "varchar(10)"));
        assert!(!widened("numeric(10,2)", "numeric(10,4)"));
        assert!(!widened("bigint", "int"));
        assert!(!widened("int", "varchar(10)"));
        assert!(!widened("varchar(10)", "text"));
        assert!(!widened("VARCHAR2(10 BYTE)", "VARCHAR2(5 BYTE)"));
        assert!(!widened("timestamp(3) with time zone", "timestamp(3)"));
        assert!(!widened("enum('a','b')", "enum('a')"));
        assert!(!widened("char(10)", "char"), "char is char(1)");
        assert!(
            !widened("decimal(10,2)", "decimal"),
            "MySQL's is decimal(10,0)"
        );
        assert!(widened("VARCHAR2(10 BYTE)", "varchar2(10 byte)"));
    }

    #[test]
    fn what_breaks_a_reader_downstream() {
        let same = diff(
            with(Some(column("id", "int")), Some(true)),
            with(Some(column("id", "int")), Some(true)),
        );
        assert!(
            same.is_none(),
            "an object the same at both ends is no change"
        );

        let renamed = diff(
            with(Some(column("id", "int")), None),
            with(Some(column("key", "bigint")), None),
        )
        .expect("a change");
        assert_eq!(renamed.change, "changed");
        assert_eq!(renamed.reasons, vec!["renamed"]);
        let flags: Vec<(Option<&str>, bool)> = renamed
            .changes
            .iter()
            .map(|(c, b)| (c.name.as_deref(), *b))
            .collect();
        assert_eq!(
            flags,
            vec![(Some("Data Type"), false), (Some("Name"), true)]
        );

        let not_null = diff(
            with(Some(column("id", "int")), Some(true)),
            with(Some(column("id", "int")), Some(false)),
        )
        .expect("a change");
        assert_eq!(not_null.reasons, vec!["made not null"]);
        let nullable = diff(
            with(Some(column("id", "int")), Some(false)),
            with(Some(column("id", "int")), Some(true)),
        )
        .expect("a change");
        assert!(nullable.reasons.is_empty(), "null allowed breaks nothing");

        let removed = diff(
            with(Some(column("id", "int")), Some(true)),
            with(None, None),
        )
        .expect("a change");
        assert_eq!(
            (removed.change, removed.reasons.clone()),
            ("removed", vec!["removed"])
        );
        assert!(
            removed.changes.is_empty(),
            "a removed object's rows are not listed"
        );
        let added = diff(
            with(None, None),
            with(Some(column("id", "int")), Some(true)),
        )
        .expect("a change");
        assert_eq!(added.change, "added");
        assert!(added.reasons.is_empty() && added.changes.is_empty());

        let mut elsewhere = column("id", "int");
        elsewhere.parent = Some(ObjectId::new(7, 9));
        let moved = diff(
            with(Some(column("id", "int")), None),
            with(Some(elsewhere), None),
        )
        .expect("a change");
        assert_eq!(
            (moved.change, moved.reasons.clone()),
            ("moved", vec!["moved"])
        );
    }
}
