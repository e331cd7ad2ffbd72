//! The object page: `/ui/objects/{id}` and a URL per tab (`/ui/objects/{id}/{tab}`), read
//! through the same catalog calls as the API (getEntity, getContext, the object's
//! labels, curation and profiling), so what the caller may not see never reaches the page.

use askama::Template;
use axum::extract::{Path, RawQuery, State};
use lore_core::ObjectRef;
use lore_core::catalog::{AsOf, ObjectCuration, ObjectLabels};
use lore_core::model::ClassificationStatus;
use lore_core::mql::Query;
use lore_core::mql::build::{Attr, all, search_text};
use lore_core::wire::{EmbeddedEntity, Entity};
use serde_json::Value as Json;

use super::browse::Node;
use super::page::{Chrome, PageError, PageResult, html, not_found_page, url_encode};
use super::query;
use super::search::display;
use super::session::Session;
use crate::AppState;

/// The tabs, in order: URL segment and title.
const TABS: &[(&str, &str)] = &[
    ("overview", "Overview"),
    ("children", "Children"),
    ("classification", "Classification"),
    ("profiling", "Profiling and sampling"),
    ("lineage", "Lineage"),
    ("glossary", "Glossary and links"),
    ("comments", "Comments"),
    ("history", "History"),
    ("access", "Access"),
    // Models only.
    ("import", "Import"),
    ("versions", "Versions"),
];

/// The tabs only a model has.
const MODEL_TABS: &[&str] = &["import", "versions"];

/// A model's import: its settings (or why there are none) and its recent operations.
pub struct ImportView {
    pub settings: Option<Vec<Property>>,
    pub missing: Option<String>,
    pub operations: Vec<(i64, &'static str, String, String)>,
}

/// An object in a list: id, name, type.
pub struct Linked {
    pub id: String,
    pub name: String,
    pub kind: String,
}

pub struct Tab {
    pub href: String,
    pub title: &'static str,
    pub selected: bool,
}

/// A property of the overview.
pub struct Property {
    pub name: String,
    pub value: String,
}

/// A label on the object with its review status.
pub struct LabelView {
    pub name: String,
    pub status: &'static str,
}

/// A line of curation: who, when, what.
pub struct Entry {
    pub id: i64,
    pub mine: bool,
    pub kind: String,
    pub user: String,
    pub at: String,
    pub text: String,
}

#[derive(Template)]
#[template(path = "object.html")]
struct ObjectPage {
    chrome: Chrome,
    id: String,
    name: String,
    kind: String,
    path: String,
    crumbs: Vec<EmbeddedEntity>,
    tabs: Vec<Tab>,
    tab: &'static str,
    // Badges.
    sensitivity: Option<LabelView>,
    certified_by: Vec<String>,
    endorsed_by: Vec<String>,
    warnings: usize,
    watchers: Vec<String>,
    workflow_state: String,
    // Overview.
    description_html: String,
    properties: Vec<Property>,
    labels: Vec<String>,
    terms: Vec<EmbeddedEntity>,
    classes: Vec<String>,
    // Children.
    children: Vec<Node>,
    children_more: bool,
    // Classification.
    label_assignments: Vec<LabelView>,
    // Profiling.
    profiling: Option<ProfilingView>,
    // Comments and history.
    entries: Vec<Entry>,
    // Lineage.
    lineage: Option<super::lineage::LineageView>,
    // Curation: what the caller has done, may do, and what just happened.
    endorsed: bool,
    certified: bool,
    watching: bool,
    workflow_tasks: Vec<&'static str>,
    defined_labels: Vec<String>,
    class_assignments: Vec<LabelView>,
    defined_classes: Vec<String>,
    done: Option<String>,
    failed: Option<String>,
    /// This page's path, where forms return.
    here: String,
    // Glossary and links.
    related: Vec<Linked>,
    represented_by: Vec<Linked>,
    is_term: bool,
    // Access.
    access: Option<super::admin::AccessView>,
    access_error: Option<String>,
    // Import (models).
    import: Option<ImportView>,
    /// When and by whom the object last changed.
    updated: String,
    // History: the object's changes, a model's versions, the page as of a moment.
    history: Option<super::history::HistoryView>,
    versions: Option<super::history::VersionsView>,
    as_of: Option<super::history::AsOfView>,
    /// Whether the tab offers the switch to view it as of a time or version.
    as_of_switch: bool,
    /// Breaking changes upstream that reach the object (the overview, now).
    upstream: Vec<lore_core::catalog::UpstreamChange>,
}

/// What the profiling tab shows: statistics and samples, or why they are hidden.
pub struct ProfilingView {
    pub hidden_reason: Option<String>,
    pub statistics: Vec<Property>,
    pub sample_header: Vec<String>,
    pub sample_rows: Vec<Vec<String>>,
}

impl ObjectPage {
    fn tab_href(&self, tab: &str) -> String {
        format!("/ui/objects/{}/{tab}", url_encode(&self.id))
    }
}

/// `GET /ui/objects/{id}`: the overview.
pub async fn overview(
    state: State<AppState>,
    session: Session,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> PageResult {
    show(state, session, id, "overview", raw).await
}

#[derive(Template)]
#[template(path = "object_summary.html")]
struct Summary {
    id: String,
    name: String,
    kind: String,
    description_html: String,
    properties: Vec<Property>,
    labels: Vec<String>,
    terms: Vec<EmbeddedEntity>,
}

/// `GET /ui/objects/{id}/summary`: an object in brief, for the children tab's side panel.
pub async fn summary(
    State(state): State<AppState>,
    session: Session,
    Path(id): Path<String>,
) -> PageResult {
    let entity = state
        .catalog
        .objects()
        .get_entity(&session.caller, &ObjectRef::parse(&id)?)
        .await?;
    let mut description_html = String::new();
    let mut properties = Vec::new();
    for attribute in &entity.attributes {
        let name = attribute.attribute_type.display_name.as_str();
        match name {
            "Description" => description_html = markdown(&display(&attribute.value)),
            "Business Name" | "Data Type" | "Physical Name" | "Position" | "Updated Date" => {
                let value = display(&attribute.value);
                if !value.is_empty() {
                    properties.push(Property {
                        name: name.to_owned(),
                        value,
                    });
                }
            }
            _ => {}
        }
    }
    Ok(html(&Summary {
        id: entity.id.clone(),
        name: entity.name.clone(),
        kind: entity.object_type.display_name.clone(),
        description_html,
        properties,
        labels: entity.labels.clone(),
        terms: entity.terms.clone(),
    }))
}

/// `GET /ui/objects/{id}/access` (its own route: the same path takes the grant form).
pub async fn access(
    state: State<AppState>,
    session: Session,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> PageResult {
    show(state, session, id, "access", raw).await
}

/// `GET /ui/objects/{id}/{tab}`.
pub async fn tab(
    state: State<AppState>,
    session: Session,
    Path((id, tab)): Path<(String, String)>,
    RawQuery(raw): RawQuery,
) -> PageResult {
    let Some(&(tab, _)) = TABS.iter().find(|(t, _)| *t == tab) else {
        return Ok(not_found_page());
    };
    show(state, session, id, tab, raw).await
}

/// An object's page at one of its tabs.
async fn show(
    State(state): State<AppState>,
    session: Session,
    id: String,
    tab: &'static str,
    query: Option<String>,
) -> PageResult {
    let catalog = &state.catalog;
    let caller = &session.caller;
    let reference = ObjectRef::parse(&id)?;
    // The overview as of a version or a time: the object as it was (one deleted since
    // too, by its id); badges and curation are today's.
    let as_of = match tab {
        "overview" | "lineage" => {
            super::history::param(query.as_deref(), "asOf").filter(|a| !a.trim().is_empty())
        }
        _ => None,
    };
    let moment = as_of.as_deref().map(AsOf::parse).transpose()?;
    let entity = match moment {
        Some(moment) => {
            catalog
                .history()
                .get_entity_as_of(caller, &reference, moment)
                .await?
        }
        None => catalog.objects().get_entity(caller, &reference).await?,
    };
    // From here on the object is named by the id the catalog answered.
    let reference = ObjectRef::parse(&entity.id)?;
    let crumbs = match moment {
        Some(moment) => {
            catalog
                .history()
                .get_context_as_of(caller, &reference, moment)
                .await?
        }
        None => catalog.objects().get_context(caller, &reference).await?,
    };
    let labels = match catalog.governance().object_labels(caller, &reference).await {
        Ok(labels) => labels,
        // Gone since: it has no labels today.
        Err(_) if moment.is_some() => ObjectLabels {
            object: entity.id.parse()?,
            assignments: Vec::new(),
            current: None,
        },
        Err(e) => return Err(e.into()),
    };
    let curation = catalog
        .governance()
        .object_curation(caller, &entity.id)
        .await
        .ok();
    let mut page = ObjectPage::new(&session, &entity, crumbs, &labels, tab);
    if let Some(curation) = &curation {
        fill_curation(&mut page, curation, caller.name());
    }
    let is_model = page.kind == "Model";
    if MODEL_TABS.contains(&tab) && !is_model {
        return Ok(not_found_page());
    }
    page.tabs = page.tab_links(is_model);
    if let Some(at) = &as_of {
        // The tabs that read the past stay in it.
        let suffix = format!("?{}", super::page::query_string([("asOf", at.as_str())]));
        for t in &mut page.tabs {
            if t.href.ends_with("/overview") || t.href.ends_with("/lineage") {
                t.href.push_str(&suffix);
            }
        }
    }
    page.as_of_switch = matches!(tab, "overview" | "lineage");
    page.as_of = as_of.map(|at| super::history::AsOfView {
        at,
        now_href: page.tab_href(tab),
    });
    if tab == "overview" && moment.is_none() {
        page.upstream = catalog
            .history()
            .upstream_changes(caller, &reference)
            .await?
            .upstream;
    }
    match tab {
        "overview" => overview_of(&mut page, &entity),
        "children" => {
            let (children, more) =
                super::browse::object_level(&state, &session, &entity.id, 1).await?;
            page.children = children;
            page.children_more = more;
        }
        "classification" => classification_of(&mut page, &state, &session, &reference).await?,
        "profiling" => {
            let record = catalog
                .governance()
                .data_profiling(caller, &reference)
                .await
                .map_err(PageError)?;
            page.profiling = Some(profiling_view(&record));
        }
        "glossary" => glossary_of(&mut page, &state, &session, &reference).await?,
        "import" => page.import = Some(import_of(&state, &session, &reference).await?),
        "history" => {
            page.history = Some(
                super::history::history_of(&state, &session, &entity.id, query.as_deref()).await?,
            );
        }
        "versions" => {
            page.versions = Some(
                super::history::versions_of(&state, &session, &entity.id, query.as_deref()).await?,
            );
        }
        "access" => match super::admin::access_of(&state, &session, &entity.id).await {
            Ok(access) => page.access = Some(access),
            Err(e) if e.code.http_status() == 403 => {
                page.access_error = Some(e.for_client().message)
            }
            Err(e) => return Err(e.into()),
        },
        "lineage" => {
            let params = super::lineage::LineageParams::from_query(query.as_deref());
            page.lineage = Some(super::lineage::view(&state, &session, &entity.id, params).await?);
        }
        _ => {}
    }
    Ok(html(&page))
}

impl ObjectPage {
    /// The page of an object at a tab with what every tab shows (the header, the
    /// badges of its labels, its labels, terms and classes); curation, the tab links
    /// and the tab's own content come after.
    fn new(
        session: &Session,
        entity: &Entity,
        crumbs: Vec<EmbeddedEntity>,
        labels: &ObjectLabels,
        tab: &'static str,
    ) -> Self {
        let mut page = ObjectPage {
            chrome: Chrome::new(session, "browse"),
            id: entity.id.clone(),
            name: entity.name.clone(),
            kind: entity.object_type.display_name.clone(),
            path: path_of(&crumbs, entity),
            crumbs,
            tabs: Vec::new(),
            tab,
            sensitivity: labels.current.as_ref().map(|current| LabelView {
                status: labels
                    .assignments
                    .iter()
                    .find(|a| a.label == current.name)
                    .map_or("", |a| status_name(a.status)),
                name: current.name.clone(),
            }),
            certified_by: Vec::new(),
            endorsed_by: Vec::new(),
            warnings: 0,
            watchers: Vec::new(),
            workflow_state: String::new(),
            description_html: String::new(),
            properties: Vec::new(),
            labels: entity.labels.clone(),
            terms: entity.terms.clone(),
            classes: entity.data_classifications.clone(),
            children: Vec::new(),
            children_more: false,
            label_assignments: labels
                .assignments
                .iter()
                .map(|a| LabelView {
                    name: a.label.clone(),
                    status: status_name(a.status),
                })
                .collect(),
            profiling: None,
            entries: Vec::new(),
            lineage: None,
            endorsed: false,
            certified: false,
            watching: false,
            workflow_tasks: Vec::new(),
            defined_labels: Vec::new(),
            class_assignments: Vec::new(),
            defined_classes: Vec::new(),
            done: session.done(),
            failed: session.failed(),
            here: String::new(),
            related: Vec::new(),
            represented_by: Vec::new(),
            is_term: entity.object_type.display_name == "Term",
            access: None,
            access_error: None,
            import: None,
            updated: updated_of(entity),
            history: None,
            versions: None,
            as_of: None,
            as_of_switch: false,
            upstream: Vec::new(),
        };
        page.here = if tab == "overview" {
            format!("/ui/objects/{}", url_encode(&page.id))
        } else {
            format!("/ui/objects/{}/{tab}", url_encode(&page.id))
        };
        page
    }

    /// The links to the tabs, the shown one selected; Import and Versions only on a
    /// model.
    fn tab_links(&self, is_model: bool) -> Vec<Tab> {
        TABS.iter()
            .filter(|(t, _)| is_model || !MODEL_TABS.contains(t))
            .map(|&(t, title)| Tab {
                href: self.tab_href(t),
                title,
                selected: t == self.tab,
            })
            .collect()
    }
}

/// The object's path: the names of its ancestors and its own, each after a `/`.
fn path_of(crumbs: &[EmbeddedEntity], entity: &Entity) -> String {
    let mut path = String::new();
    for crumb in crumbs {
        path.push('/');
        path.push_str(&crumb.name);
    }
    path.push('/');
    path.push_str(&entity.name);
    path
}

/// When and by whom the object last changed: `<date> by <user>`, or the date alone.
fn updated_of(entity: &Entity) -> String {
    let get = |attr: Attr| query::text(&entity.attributes, attr);
    match (get(Attr::UPDATED_DATE), get(Attr::UPDATED_BY)) {
        (date, by) if by.is_empty() => date,
        (date, by) => format!("{date} by {by}"),
    }
}

/// The classification tab: the sensitivity labels and data classes defined, and the
/// object's data classes.
async fn classification_of(
    page: &mut ObjectPage,
    state: &AppState,
    session: &Session,
    reference: &ObjectRef,
) -> Result<(), PageError> {
    let catalog = &state.catalog;
    let caller = &session.caller;
    page.defined_labels = catalog
        .governance()
        .sensitivity_labels(caller)
        .await?
        .into_iter()
        .map(|l| l.name)
        .collect();
    page.class_assignments = catalog
        .governance()
        .object_data_classes(caller, reference)
        .await?
        .into_iter()
        .map(|c| LabelView {
            name: c.data_class,
            status: status_name(c.status),
        })
        .collect();
    page.defined_classes = catalog
        .governance()
        .data_classes(caller)
        .await?
        .into_iter()
        .map(|c| c.name)
        .collect();
    Ok(())
}

/// The glossary and links tab: the objects related to this one and, on a term, the
/// objects that represent it.
async fn glossary_of(
    page: &mut ObjectPage,
    state: &AppState,
    session: &Session,
    reference: &ObjectRef,
) -> Result<(), PageError> {
    let catalog = &state.catalog;
    let caller = &session.caller;
    let found = catalog
        .search()
        .relationships(
            caller,
            reference,
            Some("Name, \"Object Type\", \"Object Id\""),
            lore_core::catalog::mql_version(None)?,
        )
        .await?;
    if let lore_core::catalog::QueryResult::Mql(entities) = found {
        page.related = entities.iter().map(|e| linked(&e.attributes)).collect();
    }
    if page.is_term {
        page.represented_by = catalog
            .governance()
            .term_reports(caller, &page.id)
            .await?
            .into_iter()
            .map(|e| Linked {
                id: e.id,
                name: e.name,
                kind: e.object_type.display_name,
            })
            .collect();
    }
    Ok(())
}

/// A model's import settings (Import on it) and its recent operations.
async fn import_of(
    state: &AppState,
    session: &Session,
    model: &ObjectRef,
) -> Result<ImportView, lore_core::Error> {
    let catalog = &state.catalog;
    let (settings, missing) = match catalog
        .operations()
        .import_settings(&session.caller, model)
        .await
    {
        Ok((_, s)) => (
            Some(vec![
                Property {
                    name: "Importer format".into(),
                    value: s.format.clone(),
                },
                Property {
                    name: "Parameters".into(),
                    value: serde_json::to_string_pretty(&s.parameters).unwrap_or_default(),
                },
                Property {
                    name: "Attachment".into(),
                    value: s
                        .attachment
                        .clone()
                        .unwrap_or_else(|| "the newest attachment".into()),
                },
                Property {
                    name: "Set".into(),
                    value: format!(
                        "{} by {}",
                        lore_core::model::format_datetime(&s.updated_at),
                        s.updated_by
                    ),
                },
            ]),
            None,
        ),
        Err(e) if matches!(e.code.http_status(), 403 | 404) => (None, Some(e.for_client().message)),
        Err(e) => return Err(e),
    };
    let id = match model {
        ObjectRef::Id(id) => Some(*id),
        _ => None,
    };
    let operations = match id {
        Some(id) => catalog
            .operations()
            .operations(
                &session.caller,
                lore_core::model::OperationFilter {
                    model: Some(id),
                    limit: 20,
                    ..Default::default()
                },
            )
            .await?
            .into_iter()
            .map(|o| {
                (
                    o.id,
                    o.state.as_str(),
                    lore_core::model::format_datetime(&o.started_at),
                    o.detail.message.clone(),
                )
            })
            .collect(),
        None => Vec::new(),
    };
    Ok(ImportView {
        settings,
        missing,
        operations,
    })
}

/// An object of an MQL answer selecting Name, Object Type and Object Id.
fn linked(attributes: &[lore_core::wire::Attribute]) -> Linked {
    let get = |attr: Attr| query::text(attributes, attr);
    Linked {
        id: get(Attr::OBJECT_ID),
        name: get(Attr::NAME),
        kind: get(Attr::OBJECT_TYPE),
    }
}

#[derive(Template)]
#[template(path = "glossary.html")]
struct GlossaryPage {
    chrome: Chrome,
    text: String,
    terms: Vec<(Linked, String, String)>,
    total: u64,
    page: i64,
    prev: Option<String>,
    next: Option<String>,
}

/// `GET /ui/glossary`: the glossary terms the user sees, by name, with a filter.
pub async fn glossary_index(
    State(state): State<AppState>,
    session: Session,
    RawQuery(raw): RawQuery,
) -> PageResult {
    let param = |name: &str| {
        raw.as_deref()
            .and_then(|q| super::session::url_form_value(q.as_bytes(), name))
            .unwrap_or_default()
    };
    let text = param("q");
    let page_number = param("page").parse::<i64>().unwrap_or(1).max(1);
    let searched = (!text.trim().is_empty()).then(|| search_text(text.trim()));
    let glossary = Query::select([
        Attr::NAME,
        Attr::OBJECT_TYPE,
        Attr::OBJECT_ID,
        Attr::CONTEXT,
        Attr::DESCRIPTION,
    ])
    .filter(all([Some(Attr::OBJECT_TYPE.eq("Term")), searched]
        .into_iter()
        .flatten()))
    .order_by(Attr::NAME);
    let total = query::count(&state, &session, &glossary).await?;
    let mut terms = Vec::new();
    for e in query::execute(&state, &session, &glossary, 50, page_number).await? {
        let glossary = e
            .context_last()
            .and_then(|i| i.get("name"))
            .map(display)
            .unwrap_or_default();
        let description = e.text(Attr::DESCRIPTION);
        terms.push((linked(&e.0.attributes), glossary, description));
    }
    let url = |p: i64| {
        format!(
            "/ui/glossary?{}",
            super::page::query_string([("q", text.as_str()), ("page", p.to_string().as_str())])
        )
    };
    let pages = (total as i64 + 49) / 50;
    Ok(html(&GlossaryPage {
        chrome: Chrome::new(&session, "glossary"),
        prev: (page_number > 1).then(|| url(page_number - 1)),
        next: (page_number < pages).then(|| url(page_number + 1)),
        text,
        terms,
        total,
        page: page_number,
    }))
}

fn status_name(status: ClassificationStatus) -> &'static str {
    match status {
        ClassificationStatus::Matched => "matched",
        ClassificationStatus::Proposed => "proposed",
        ClassificationStatus::Approved => "approved",
        ClassificationStatus::Rejected => "rejected",
    }
}

fn user_name(user: &Json) -> String {
    user.get("fullName")
        .and_then(Json::as_str)
        .filter(|n| !n.is_empty())
        .or_else(|| user.get("name").and_then(Json::as_str))
        .unwrap_or("(a removed user)")
        .to_owned()
}

fn fill_curation(page: &mut ObjectPage, curation: &ObjectCuration, me: &str) {
    let mine = |users: &[Json]| {
        users
            .iter()
            .any(|u| u.get("name").and_then(Json::as_str) == Some(me))
    };
    page.endorsed = mine(&curation.endorsed_by);
    page.certified = mine(&curation.certified_by);
    page.watching = mine(&curation.watchers);
    page.workflow_tasks.clone_from(&curation.my_workflow_tasks);
    page.certified_by = curation.certified_by.iter().map(user_name).collect();
    page.endorsed_by = curation.endorsed_by.iter().map(user_name).collect();
    page.watchers = curation.watchers.iter().map(user_name).collect();
    page.warnings = curation.warnings.len();
    page.workflow_state.clone_from(&curation.workflow_state);
    let mut entries: Vec<Entry> = curation
        .comments
        .iter()
        .chain(&curation.warnings)
        .map(|e| Entry {
            id: e.id,
            mine: e.user.get("name").and_then(Json::as_str) == Some(me),
            kind: e.kind.to_owned(),
            user: user_name(&e.user),
            at: e.at.clone(),
            text: e.text.clone(),
        })
        .collect();
    entries.sort_by(|a, b| b.at.cmp(&a.at));
    page.entries = entries;
}

/// Attributes the overview leaves out: shown elsewhere on the page, or internal.
const NOT_LISTED: &[&str] = &["Name", "Description", "Labels"];

fn overview_of(page: &mut ObjectPage, entity: &Entity) {
    for attribute in &entity.attributes {
        let name = &attribute.attribute_type.display_name;
        if name == "Description" {
            page.description_html = markdown(&display(&attribute.value));
            continue;
        }
        if NOT_LISTED.contains(&name.as_str()) {
            continue;
        }
        let value = display(&attribute.value);
        if value.is_empty() || value == "[]" || value == "{}" {
            continue;
        }
        page.properties.push(Property {
            name: attribute.attribute_type.display_name.clone(),
            value,
        });
    }
}

/// Markdown as HTML; HTML written in the Markdown is shown as text, links only to
/// http(s), mailto and this site.
pub fn markdown(text: &str) -> String {
    use pulldown_cmark::{Event, Options, Parser, Tag};
    let parser = Parser::new_ext(text, Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH).map(
        |event| match event {
            Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
            Event::Start(Tag::Link {
                link_type,
                dest_url,
                title,
                id,
            }) => {
                let safe = dest_url.starts_with("https://")
                    || dest_url.starts_with("http://")
                    || dest_url.starts_with("mailto:")
                    || (dest_url.starts_with('/') && !dest_url.starts_with("//"));
                Event::Start(Tag::Link {
                    link_type,
                    dest_url: if safe { dest_url } else { "#".into() },
                    title,
                    id,
                })
            }
            Event::Start(Tag::Image { dest_url, .. }) => Event::Text(dest_url),
            Event::End(pulldown_cmark::TagEnd::Image) => Event::Text("".into()),
            other => other,
        },
    );
    let mut out = String::new();
    pulldown_cmark::html::push_html(&mut out, parser);
    // The writer aligns table cells by a style attribute, which the UI's policy refuses;
    // a class does the same. (The text itself cannot hold the attribute: its quotes are
    // escaped.)
    for side in ["left", "center", "right"] {
        out = out.replace(
            &format!(" style=\"text-align: {side}\">"),
            &format!(" class=\"align-{side}\">"),
        );
    }
    out
}

fn profiling_view(record: &lore_core::catalog::ProfilingRecord) -> ProfilingView {
    let hidden_reason = record.hidden.then(|| match &record.sensitivity_label {
        Some(label) => format!(
            "The data of this object is hidden from you: its sensitivity label {label} hides data from users without the View Data capability. Statistics and samples are left out."
        ),
        None if record.hide_data => "The data of this object is hidden from you: the object is marked Hide Data, and you lack the View Data capability. Statistics and samples are left out.".to_owned(),
        None => "The data of this object is hidden from you: a data class or label on it hides data from users without the View Data capability. Statistics and samples are left out.".to_owned(),
    });
    let mut statistics = Vec::new();
    if let Some(profile) = &record.profile {
        if let Some(rows) = profile.total_profiled_rows {
            statistics.push(Property {
                name: "Profiled rows".into(),
                value: rows.to_string(),
            });
        }
        if let Ok(Json::Object(map)) = serde_json::to_value(&profile.statistics) {
            for (name, value) in map {
                if !value.is_null() {
                    statistics.push(Property {
                        name,
                        value: display(&value),
                    });
                }
            }
        }
    }
    let (sample_header, sample_rows) = match &record.sample {
        Some(sample) => (
            sample.header.clone(),
            sample
                .samples
                .iter()
                .take(100)
                .map(|row| row.iter().map(display).collect())
                .collect(),
        ),
        None => (Vec::new(), Vec::new()),
    };
    ProfilingView {
        hidden_reason,
        statistics,
        sample_header,
        sample_rows,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markdown_keeps_html_as_text_and_drops_unsafe_links() {
        let html = markdown(
            "**bold** <script>alert(1)</script> [x](javascript:alert(1)) [y](https://e.org)",
        );
        assert!(html.contains("<strong>bold</strong>"));
        assert!(!html.contains("<script>"));
        assert!(html.contains("&lt;script&gt;"));
        assert!(!html.contains("javascript:"));
        assert!(html.contains("href=\"https://e.org\""));
    }

    #[test]
    fn markdown_tables_align_without_style_attributes() {
        let html = markdown("| a | b | c |\n|:--|:-:|--:|\n| 1 | 2 | 3 |\n");
        assert!(!html.contains("style="), "{html}");
        for side in ["left", "center", "right"] {
            assert!(
                html.contains(&format!("<td class=\"align-{side}\">")),
                "{html}"
            );
        }
        // Text that spells the attribute stays text.
        let text = markdown(r#"x style="text-align: left">"#);
        assert!(!text.contains("class="), "{text}");
    }
}
