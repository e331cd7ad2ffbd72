//! The object page's history: the History tab (an object's changes, newest first, each
//! with "view as of this change"), the overview as of a version, and a model's Versions
//! tab (its versions and a compare of two, breaking changes first). Read through the
//! history concern, as the API reads it, so sight is the same.

use lore_core::ObjectRef;
use lore_core::catalog::AsOf;
use serde_json::Value as Json;

use super::page::url_encode;
use super::search::display;
use super::session::Session;
use crate::AppState;

/// Changes on one page of the History tab.
const CHANGES_PER_PAGE: usize = 50;
/// Objects a compare lists on the Versions tab.
const COMPARED: usize = 200;

/// The History tab: a page of changes and the link to older ones.
pub struct HistoryView {
    pub rows: Vec<ChangeRow>,
    pub older: Option<String>,
    pub truncated: bool,
}

/// One change: when, who, what, before and after, and where to see the object then.
pub struct ChangeRow {
    pub at: String,
    pub who: String,
    pub what: String,
    pub old: String,
    pub new: String,
    pub view: String,
}

/// A model's Versions tab: its versions, newest first, and a compare of two.
pub struct VersionsView {
    pub rows: Vec<VersionRow>,
    pub from: String,
    pub to: String,
    pub compare: Option<CompareView>,
}

pub struct VersionRow {
    pub id: String,
    pub number: i64,
    pub at: String,
    pub who: String,
    pub objects: i64,
    pub added: i64,
    pub changed: i64,
    pub removed: i64,
}

/// Two versions compared: the counts and the objects, breaking ones first.
pub struct CompareView {
    pub from_label: String,
    pub to_label: String,
    pub counts: String,
    pub rows: Vec<CompareRow>,
    pub truncated: bool,
}

pub struct CompareRow {
    pub name: String,
    pub kind: String,
    pub change: &'static str,
    pub breaking: bool,
    pub reasons: String,
    pub details: Vec<String>,
    pub href: String,
}

/// The banner of an object's page shown as of a version or time.
pub struct AsOfView {
    /// The `asOf` the page was asked for.
    pub at: String,
    /// The same page now.
    pub now_href: String,
}

/// The value of a query parameter of the page's address.
pub fn param(query: Option<&str>, name: &str) -> Option<String> {
    let pairs: Vec<(String, String)> = query
        .and_then(|q| serde_urlencoded::from_str(q).ok())
        .unwrap_or_default();
    pairs
        .into_iter()
        .find(|(n, _)| n == name)
        .map(|(_, v)| v)
        .filter(|v| !v.trim().is_empty())
}

/// A time of history as the page shows it: `2026-11-29 10:00:00 UTC`.
fn when(at: &str) -> String {
    match at.get(..19) {
        Some(seconds) => format!("{} UTC", seconds.replace('T', " ")),
        None => at.to_owned(),
    }
}

/// Who made a change: the user's name, or the source; the operation where there is one.
fn who(author: &Json) -> String {
    let source = author["source"].as_str().unwrap_or_default();
    let mut text = match author["user"]["name"].as_str() {
        Some(user) if source == "user" => user.to_owned(),
        Some(user) => format!("{user} ({source})"),
        None => source.to_owned(),
    };
    if let Some(operation) = author["operationId"].as_i64() {
        text.push_str(&format!(", operation {operation}"));
    }
    text
}

/// A value before or after a change, as text; `—` for none.
fn shown(value: &Json) -> String {
    match value {
        Json::Null => "—".to_owned(),
        Json::Object(map) if map.contains_key("name") || map.contains_key("label") => {
            display(value)
        }
        // A comment or warning: its text; another act of curation, a grant: whose.
        Json::Object(map) if map.contains_key("text") => display(&value["text"]),
        Json::Object(map) if map.contains_key("userId") => {
            format!("user {}", display(&value["userId"]))
        }
        Json::Object(map) if map.contains_key("granteeId") => {
            format!("grantee {}", display(&value["granteeId"]))
        }
        Json::Object(_) => value.to_string(),
        other => {
            let text = display(other);
            if text.is_empty() {
                "—".to_owned()
            } else {
                text
            }
        }
    }
}

/// What changed: the kind, and the attribute, label or edge it is of.
fn what(kind: &str, name: Option<&str>) -> String {
    let kind = match kind {
        "created" => "Created",
        "deleted" => "Deleted",
        "moved" => "Moved",
        "attribute" => "Attribute",
        "label" => "Label",
        "collection" => "Collection",
        "dataClass" => "Data class",
        "sensitivityLabel" => "Sensitivity label",
        "edge" => "Relationship",
        "curation" => "Curation",
        "grant" => "Role granted",
        other => other,
    };
    match name {
        Some(name) => format!("{kind}: {name}"),
        None => kind.to_owned(),
    }
}

/// The History tab of the object `id`: its changes before `before` (newest first).
pub async fn history_of(
    state: &AppState,
    session: &Session,
    id: &str,
    query: Option<&str>,
) -> lore_core::Result<HistoryView> {
    let before = param(query, "before").and_then(|b| b.parse::<i64>().ok());
    let changes = state
        .catalog
        .history()
        .object_changes(
            &session.caller,
            &ObjectRef::parse(id)?,
            before,
            Some(CHANGES_PER_PAGE),
        )
        .await?;
    let page = format!("/ui/objects/{}", url_encode(id));
    let rows = changes
        .changes
        .iter()
        .map(|c| ChangeRow {
            at: c.at.as_deref().map(when).unwrap_or_default(),
            who: who(&c.author),
            what: what(c.kind, c.name.as_deref()),
            old: shown(&c.old),
            new: shown(&c.new),
            view: format!("{page}?asOf={}", c.version),
        })
        .collect();
    Ok(HistoryView {
        rows,
        older: changes
            .next_before
            .map(|b| format!("{page}/history?before={b}")),
        truncated: changes.truncated,
    })
}

/// The Versions tab of the model `id`: its versions, and with `from` and `to` (version
/// ids; the two newest when absent) their compare.
pub async fn versions_of(
    state: &AppState,
    session: &Session,
    id: &str,
    query: Option<&str>,
) -> lore_core::Result<VersionsView> {
    let history = state.catalog.history();
    let reference = ObjectRef::parse(id)?;
    let listed = history
        .model_versions(&session.caller, &reference, None, Some(100))
        .await?;
    let rows: Vec<VersionRow> = listed
        .versions
        .iter()
        .map(|v| VersionRow {
            id: v.id.clone(),
            number: v.number,
            at: when(&v.at),
            who: who(&v.author),
            objects: v.objects,
            added: v.added,
            changed: v.changed,
            removed: v.removed,
        })
        .collect();
    let (from, to) = match (param(query, "from"), param(query, "to")) {
        (Some(from), Some(to)) => (from, to),
        _ => match &rows[..] {
            [newest, older, ..] => (older.id.clone(), newest.id.clone()),
            _ => (String::new(), String::new()),
        },
    };
    let compare = if from.is_empty() || to.is_empty() {
        None
    } else {
        let compared = history
            .compare(
                &session.caller,
                &reference,
                AsOf::parse(&from)?,
                Some(AsOf::parse(&to)?),
                Some(COMPARED),
            )
            .await?;
        let label = |version: &str| {
            rows.iter()
                .find(|r| r.id == version)
                .map_or_else(|| version.to_owned(), |r| format!("version {}", r.number))
        };
        let c = compared.counts;
        Some(CompareView {
            from_label: label(&from),
            to_label: label(&to),
            counts: format!(
                "{} added, {} removed, {} changed, {} moved; {} breaking",
                c.added, c.removed, c.changed, c.moved, c.breaking
            ),
            rows: compared
                .objects
                .iter()
                .map(|o| CompareRow {
                    name: o.name.clone(),
                    kind: o.object_type.clone(),
                    change: o.change,
                    breaking: o.breaking,
                    reasons: o.reasons.join(", "),
                    details: o
                        .changes
                        .iter()
                        .map(|d| {
                            format!(
                                "{}: {} → {}",
                                what(d.kind, d.name.as_deref()),
                                shown(&d.old),
                                shown(&d.new)
                            )
                        })
                        .collect(),
                    href: format!("/ui/objects/{}", url_encode(&o.object_id)),
                })
                .collect(),
            truncated: compared.truncated,
        })
    };
    Ok(VersionsView {
        rows,
        from,
        to,
        compare,
    })
}
