//! Browse: the repository's folders and models (`repositoryBrowse`), and below a model
//! its objects level by level down to columns, each level read when it is opened, with
//! how many children each node has. A node's URL is `/ui/browse/{id}`.

use askama::Template;
use axum::extract::{Path, RawQuery, State};
use axum::http::HeaderMap;
use lore_core::catalog::MqlQuery;
use lore_core::model::ObjectKind;
use lore_core::mql::build::Attr;
use lore_core::mql::{Query, SelectItem};
use lore_core::wire::EmbeddedEntity;
use lore_core::{Error, ObjectId, ObjectRef};

use super::page::{Chrome, PageResult, html, url_encode};
use super::query;
use super::search::display;
use super::session::Session;
use crate::AppState;

/// Children listed per page of a level.
const LEVEL_SIZE: i64 = 200;

/// A node of a level.
pub struct Node {
    pub id: String,
    pub name: String,
    pub kind: String,
    /// How many children it has; `None` where they are not counted (folders).
    pub children: Option<u64>,
    /// Whether it has a level below to open.
    pub opens: bool,
    /// What its children's counts are keyed by (its stable id, or a model's number).
    count_key: String,
}

impl Node {
    pub fn href(&self) -> String {
        format!("/ui/browse/{}", url_encode(&self.id))
    }
    pub fn object_href(&self) -> String {
        format!("/ui/objects/{}", url_encode(&self.id))
    }
}

#[derive(Template)]
#[template(path = "browse.html")]
struct BrowsePage {
    chrome: Chrome,
    crumbs: Vec<EmbeddedEntity>,
    here: Option<Node>,
    nodes: Vec<Node>,
    page: i64,
    more: Option<String>,
    prev: Option<String>,
}

/// The rows of one level, for htmx to put under an opened node.
#[derive(Template)]
#[template(path = "browse_level.html")]
struct Level {
    nodes: Vec<Node>,
    more: Option<String>,
}

/// `GET /ui/browse`: the top of the repository.
pub async fn root(
    State(state): State<AppState>,
    session: Session,
    headers: HeaderMap,
) -> PageResult {
    let nodes = repository_level(&state, &session, "/").await?;
    if is_htmx(&headers) {
        return Ok(html(&Level { nodes, more: None }));
    }
    Ok(html(&BrowsePage {
        chrome: Chrome::new(&session, "browse"),
        crumbs: Vec::new(),
        here: None,
        nodes,
        page: 1,
        more: None,
        prev: None,
    }))
}

/// `GET /ui/browse/{id}`: a node and the level below it.
pub async fn node(
    State(state): State<AppState>,
    session: Session,
    headers: HeaderMap,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> PageResult {
    let page = raw
        .as_deref()
        .and_then(|q| super::session::url_form_value(q.as_bytes(), "page"))
        .and_then(|p| p.parse::<i64>().ok())
        .unwrap_or(1)
        .max(1);
    let reference = ObjectRef::parse(&id)?;
    let entity = state
        .catalog
        .objects()
        .get_entity(&session.caller, &reference)
        .await?;
    let crumbs = state
        .catalog
        .objects()
        .get_context(&session.caller, &reference)
        .await?;
    let kind = entity.object_type.display_name.clone();
    let repository_level_kind = matches!(
        ObjectKind::parse(&kind),
        Some(ObjectKind::Folder | ObjectKind::Configuration | ObjectKind::ConfigurationVersion)
    );
    let (nodes, has_more) = if repository_level_kind {
        let mut path = String::new();
        for crumb in &crumbs {
            path.push('/');
            path.push_str(&crumb.name);
        }
        path.push('/');
        path.push_str(&entity.name);
        (repository_level(&state, &session, &path).await?, false)
    } else {
        object_level(&state, &session, &entity.id, page).await?
    };
    let more = has_more.then(|| format!("/ui/browse/{}?page={}", url_encode(&entity.id), page + 1));
    if is_htmx(&headers) {
        return Ok(html(&Level { nodes, more }));
    }
    Ok(html(&BrowsePage {
        chrome: Chrome::new(&session, "browse"),
        crumbs,
        here: Some(Node {
            id: entity.id.clone(),
            name: entity.name.clone(),
            kind: entity.object_type.display_name.clone(),
            children: None,
            opens: false,
            count_key: String::new(),
        }),
        nodes,
        page,
        prev: (page > 1)
            .then(|| format!("/ui/browse/{}?page={}", url_encode(&entity.id), page - 1)),
        more,
    }))
}

fn is_htmx(headers: &HeaderMap) -> bool {
    headers.contains_key("hx-request") && !headers.contains_key("hx-history-restore-request")
}

/// Folders, configurations and models directly under a repository path.
async fn repository_level(
    state: &AppState,
    session: &Session,
    path: &str,
) -> Result<Vec<Node>, Error> {
    let tree = state
        .catalog
        .objects()
        .repository_browse(&session.caller, path, &ObjectKind::ALL)
        .await?;
    // The answer is the whole subtree below the path; this level is its top.
    let mut nodes: Vec<Node> = tree
        .iter()
        .map(|n| Node {
            id: n.id.clone(),
            name: n.object_name.clone(),
            kind: n.object_type.clone(),
            children: (!n.links.is_empty()).then_some(n.links.len() as u64),
            opens: n.object_type == "Model" || !n.links.is_empty(),
            // A model's top-level objects carry its number as their Model Id.
            count_key: n
                .id
                .parse::<ObjectId>()
                .map(|id| id.content_model().to_string())
                .unwrap_or_default(),
        })
        .collect();
    let models: Vec<&mut Node> = nodes.iter_mut().filter(|n| n.kind == "Model").collect();
    count_children(state, session, models, Attr::MODEL_ID.into()).await?;
    Ok(nodes)
}

/// The objects whose parent is `id`, a page of them, with their child counts.
pub(super) async fn object_level(
    state: &AppState,
    session: &Session,
    id: &str,
    page: i64,
) -> Result<(Vec<Node>, bool), Error> {
    let level = Query::select([
        Attr::NAME,
        Attr::OBJECT_TYPE,
        Attr::OBJECT_ID,
        Attr::OBJECT_STABLE_ID,
    ])
    .filter(Attr::OBJECT_ID.of_parent().eq(id))
    .order_by(Attr::NAME);
    let rows = query::execute(state, session, &level, LEVEL_SIZE, page).await?;
    let mut nodes: Vec<Node> = rows
        .iter()
        .map(|row| Node {
            id: row.text(Attr::OBJECT_ID),
            name: row.text(Attr::NAME),
            kind: row.text(Attr::OBJECT_TYPE),
            children: None,
            opens: false,
            count_key: row.text(Attr::OBJECT_STABLE_ID),
        })
        .collect();
    // A full page may have more after it (at worst the next page is empty).
    let has_more = nodes.len() as i64 == LEVEL_SIZE;
    count_children(
        state,
        session,
        nodes.iter_mut().collect(),
        Attr::OBJECT_STABLE_ID.of_parent().into(),
    )
    .await?;
    Ok((nodes, has_more))
}

/// How many visible children each node has: one getAttributeValueCounts of `key` (a
/// property of the children naming their parent's [`Node::count_key`]) over the objects
/// whose parent is among the nodes.
async fn count_children(
    state: &AppState,
    session: &Session,
    mut nodes: Vec<&mut Node>,
    key: SelectItem,
) -> Result<(), Error> {
    if nodes.is_empty() {
        return Ok(());
    }
    let children = Query::select([key]).filter(
        Attr::OBJECT_ID
            .of_parent()
            .any(nodes.iter().map(|n| n.id.as_str())),
    );
    let counts = state
        .catalog
        .search()
        .attribute_value_counts(
            &session.caller,
            MqlQuery::Built(&children),
            None,
            Some(nodes.len() as i64),
        )
        .await?;
    let counts: Vec<(String, u64)> = counts
        .into_iter()
        .flat_map(|c| c.values)
        .map(|v| (display(&v.value), v.count))
        .collect();
    for node in &mut nodes {
        let count = counts
            .iter()
            .find(|(key, _)| !node.count_key.is_empty() && *key == node.count_key)
            .map_or(0, |c| c.1);
        node.children = Some(count);
        node.opens = count > 0;
    }
    Ok(())
}
