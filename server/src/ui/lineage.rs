//! The lineage tab (`/ui/objects/{id}/lineage`): one hop each way by default, depth 1 to 5
//! and direction controls, expanding one object at a time, columns on demand, the path
//! to an object highlighted, a table of the same graph and its CSV
//! (`/ui/objects/{id}/lineage.csv`). Built from getOperations, so sight applies as there.

use std::collections::HashMap;

use axum::extract::{Path, RawQuery, State};
use lore_core::catalog::{AsOf, LineageOperations, LineageRequest};
use lore_core::model::{SystemType, TypeName};
use lore_core::mql::build::{Attr, all};
use lore_core::mql::{Expr, Query};
use lore_core::wire::EmbeddedEntity;
use lore_core::{Error, ObjectRef};

use super::download::Csv;
use super::lineage_graph::{Graph, Shape, Walk, assemble};
use super::page::{PageResult, query_string};
use super::query;
use super::session::Session;
use crate::AppState;

/// The most objects a user may expand at once.
const MAX_EXPANDED: usize = 20;
/// Operations read per walk (getOperations' own largest answer).
const WALK_LIMIT: &str = "10000";
/// Edges followed from one object (getOperations' largest fan-out).
const WALK_FAN_OUT: &str = "1000";

/// The lineage the URL asks for.
#[derive(Debug, Clone)]
pub struct LineageParams {
    pub depth: u32,
    /// `both`, `upstream` or `downstream`.
    pub direction: String,
    pub expand: Vec<String>,
    pub columns: bool,
    pub focus: Option<String>,
    /// `graph` or `table`.
    pub view: String,
    /// Every object up to the cap, no layer collapsed.
    pub all: bool,
    /// The time or version the lineage is read as of (`asOf`); now when absent.
    pub as_of: Option<String>,
}

impl LineageParams {
    /// The moment asked for, read (INVALID_PARAMETER when it is neither a time nor a
    /// version).
    fn moment(&self) -> Result<Option<AsOf>, Error> {
        self.as_of.as_deref().map(AsOf::parse).transpose()
    }
}

impl LineageParams {
    pub fn from_query(raw: Option<&str>) -> Self {
        let pairs: Vec<(String, String)> = raw
            .and_then(|q| serde_urlencoded::from_str(q).ok())
            .unwrap_or_default();
        let mut params = Self {
            depth: 1,
            direction: "both".into(),
            expand: Vec::new(),
            columns: false,
            focus: None,
            view: "graph".into(),
            all: false,
            as_of: None,
        };
        for (name, value) in pairs {
            match name.as_str() {
                "depth" => params.depth = value.parse().unwrap_or(1).clamp(1, 5),
                "direction" if ["both", "upstream", "downstream"].contains(&value.as_str()) => {
                    params.direction = value
                }
                "expand"
                    if !value.is_empty()
                        && params.expand.len() < MAX_EXPANDED
                        && !params.expand.contains(&value) =>
                {
                    params.expand.push(value)
                }
                "columns" => params.columns = value == "1" || value == "on" || value == "true",
                "focus" if !value.is_empty() => params.focus = Some(value),
                "view" if value == "table" || value == "graph" => params.view = value,
                "all" => params.all = value == "1",
                "asOf" if !value.trim().is_empty() => params.as_of = Some(value.trim().to_owned()),
                _ => {}
            }
        }
        params
    }

    /// The query string of these parameters, changed by `change`.
    pub fn query(&self, change: impl FnOnce(&mut Self)) -> String {
        let mut p = self.clone();
        change(&mut p);
        let depth = p.depth.to_string();
        let mut pairs: Vec<(&str, &str)> = vec![("depth", &depth), ("direction", &p.direction)];
        for id in &p.expand {
            pairs.push(("expand", id));
        }
        if p.columns {
            pairs.push(("columns", "1"));
        }
        if let Some(f) = &p.focus {
            pairs.push(("focus", f));
        }
        if p.view != "graph" {
            pairs.push(("view", &p.view));
        }
        if p.all {
            pairs.push(("all", "1"));
        }
        if let Some(as_of) = &p.as_of {
            pairs.push(("asOf", as_of));
        }
        query_string(pairs)
    }
}

/// What the lineage tab shows.
#[derive(Debug)]
pub struct LineageView {
    pub params: LineageParams,
    pub graph: Graph,
    /// The edges as rows: direction, depth, source, target, operation.
    pub rows: Vec<LineageRow>,
    pub csv: String,
}

#[derive(Debug)]
pub struct LineageRow {
    pub direction: &'static str,
    pub depth: u32,
    pub source: EmbeddedEntity,
    pub target: EmbeddedEntity,
    pub operation: String,
}

impl LineageView {
    /// This view with an object expanded.
    pub fn expand_href(&self, id: &str) -> String {
        format!(
            "?{}",
            self.params.query(|p| {
                if !p.expand.iter().any(|e| e == id) {
                    p.expand.push(id.to_owned());
                }
            })
        )
    }
    /// This view with the paths to an object highlighted.
    pub fn focus_href(&self, id: &str) -> String {
        format!("?{}", self.params.query(|p| p.focus = Some(id.to_owned())))
    }
    /// This view with no layer collapsed.
    pub fn all_href(&self) -> String {
        format!("?{}", self.params.query(|p| p.all = true))
    }
    /// What a link to another object adds to stay in the same moment: `?asOf=...`, or
    /// nothing now.
    pub fn as_of_query(&self) -> String {
        self.params
            .as_of
            .as_deref()
            .map(|a| format!("?{}", query_string([("asOf", a)])))
            .unwrap_or_default()
    }
    pub fn view_href(&self, view: &str) -> String {
        format!("?{}", self.params.query(|p| p.view = view.to_owned()))
    }
}

/// Reads the lineage of `start` for the page.
pub async fn view(
    state: &AppState,
    session: &Session,
    start_id: &str,
    params: LineageParams,
) -> Result<LineageView, Error> {
    let (start, walks) = walks(state, session, start_id, &params).await?;
    let parents = parents(state, session, &walks, params.moment()?).await?;
    let shape = Shape {
        depth: params.depth,
        columns: params.columns,
        focus: params.focus.clone(),
        all: params.all,
    };
    let graph = assemble(&start, &walks, &shape, &parents);
    let rows = rows(&walks, params.depth);
    let base = params.query(|_| {});
    Ok(LineageView {
        csv: format!(
            "/ui/objects/{}/lineage.csv?{base}",
            super::page::url_encode(start_id)
        ),
        params,
        graph,
        rows,
    })
}

/// The getOperations answers: around the start to depth + 1 (the last hop only counts
/// neighbours), around each expanded object to 2.
async fn walks(
    state: &AppState,
    session: &Session,
    start_id: &str,
    params: &LineageParams,
) -> Result<(EmbeddedEntity, Vec<Walk>), Error> {
    let request = |depth: u32, direction: &str| LineageRequest {
        direction: Some(direction.to_owned()),
        depth: Some(depth.to_string()),
        fan_out: Some(WALK_FAN_OUT.into()),
        limit: Some(WALK_LIMIT.into()),
    };
    let moment = params.moment()?;
    let operations = |id: String, request: LineageRequest| async move {
        let lineage = state.catalog.lineage();
        match moment {
            Some(as_of) => {
                lineage
                    .lineage_operations_as_of(&session.caller, &id, &request, as_of)
                    .await
            }
            None => {
                lineage
                    .lineage_operations(&session.caller, &id, &request)
                    .await
            }
        }
    };
    let first: LineageOperations = operations(
        start_id.to_owned(),
        request(params.depth + 1, &params.direction),
    )
    .await?;
    let start = first.starting_object.clone();
    let mut walks = vec![Walk {
        center: None,
        truncated: first.truncated,
        operations: first.operations,
    }];
    // A table's lineage includes its columns' (drawn between tables unless columns are
    // asked for).
    for column in columns_of(state, session, &start.id, &params.direction, moment).await? {
        let answer = operations(column, request(params.depth + 1, &params.direction)).await?;
        if !answer.operations.is_empty() {
            walks.push(Walk {
                center: None,
                truncated: answer.truncated,
                operations: answer.operations,
            });
        }
    }
    for id in &params.expand {
        // An object the user may not see (or that is gone) expands to nothing.
        match operations(id.clone(), request(2, &params.direction)).await {
            Ok(answer) => walks.push(Walk {
                center: Some(answer.starting_object.id.clone()),
                truncated: answer.truncated,
                operations: answer.operations,
            }),
            Err(e) if e.code.http_status() == 404 => {}
            Err(e) => return Err(e),
        }
    }
    Ok((start, walks))
}

/// The most columns of one object whose lineage is read with it.
const MAX_COLUMNS: i64 = 500;

/// The ids of the columns (and fields) of an object that have lineage the walk wants
/// (`Has Data Lineage` upstream, `Has Data Impact` downstream), as the caller sees them.
async fn columns_of(
    state: &AppState,
    session: &Session,
    id: &str,
    direction: &str,
    as_of: Option<AsOf>,
) -> Result<Vec<String>, Error> {
    let features = features(state, session).await?;
    if features.is_empty() {
        return Ok(Vec::new());
    }
    let mut lineage = Vec::new();
    if direction != "downstream" {
        lineage.push(Attr::HAS_DATA_LINEAGE.eq(true));
    }
    if direction != "upstream" {
        lineage.push(Attr::HAS_DATA_IMPACT.eq(true));
    }
    let lineage = match lineage.len() {
        1 => lineage.remove(0),
        _ => Expr::Or(lineage),
    };
    let columns = Query::select([Attr::OBJECT_ID]).filter(all([
        Attr::OBJECT_ID.of_parent().eq(id),
        Attr::OBJECT_TYPE.any(features.iter().map(|t| t.name.clone())),
        lineage,
    ]));
    let rows = query::execute_at(state, session, &columns, MAX_COLUMNS, 1, as_of).await?;
    Ok(rows.iter().map(|row| row.text(Attr::OBJECT_ID)).collect())
}

/// The types of columns and fields (system type `Feature`), which lineage draws inside
/// their tables.
async fn features(state: &AppState, session: &Session) -> Result<Vec<TypeName>, Error> {
    state
        .catalog
        .objects()
        .types_of_system_type(&session.caller, SystemType::Feature)
        .await
}

/// The parents of the columns in the walks, by MQL (`Context`), 500 at a time.
async fn parents(
    state: &AppState,
    session: &Session,
    walks: &[Walk],
    as_of: Option<AsOf>,
) -> Result<HashMap<String, EmbeddedEntity>, Error> {
    let features: Vec<String> = features(state, session)
        .await?
        .iter()
        .map(TypeName::qualified)
        .collect();
    let mut columns: Vec<&str> = walks
        .iter()
        .flat_map(|w| w.operations.iter())
        .flat_map(|op| [&op.source, &op.target])
        .filter(|e| features.contains(&e.object_type.name))
        .map(|e| e.id.as_str())
        .collect();
    columns.sort_unstable();
    columns.dedup();
    let mut parents = HashMap::new();
    for chunk in columns.chunks(500) {
        let these = Query::select([Attr::OBJECT_ID, Attr::CONTEXT])
            .filter(Attr::OBJECT_ID.any(chunk.iter().copied()));
        let size = chunk.len() as i64;
        let rows = query::execute_at(state, session, &these, size, 1, as_of).await?;
        for row in rows {
            if let Some(parent) = row
                .context_last()
                .and_then(|p| serde_json::from_value::<EmbeddedEntity>(p.clone()).ok())
            {
                parents.insert(row.text(Attr::OBJECT_ID), parent);
            }
        }
    }
    Ok(parents)
}

/// The operations drawn, as table rows (nearest first).
fn rows(walks: &[Walk], depth: u32) -> Vec<LineageRow> {
    let mut rows = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for walk in walks {
        let reach = if walk.center.is_some() { 1 } else { depth };
        for op in walk.operations.iter().filter(|op| op.depth <= reach) {
            if seen.insert((
                op.source.id.clone(),
                op.target.id.clone(),
                op.operation.clone(),
            )) {
                rows.push(LineageRow {
                    direction: op.direction,
                    depth: op.depth,
                    source: op.source.clone(),
                    target: op.target.clone(),
                    operation: op.operation.clone(),
                });
            }
        }
    }
    rows
}

/// `GET /ui/objects/{id}/lineage.csv`: the table of the lineage view as CSV.
pub async fn csv(
    State(state): State<AppState>,
    session: Session,
    Path(id): Path<String>,
    RawQuery(raw): RawQuery,
) -> PageResult {
    let params = LineageParams::from_query(raw.as_deref());
    let reference = ObjectRef::parse(&id)?;
    let entity = match params.moment()? {
        Some(as_of) => {
            state
                .catalog
                .history()
                .get_entity_as_of(&session.caller, &reference, as_of)
                .await?
        }
        None => {
            state
                .catalog
                .objects()
                .get_entity(&session.caller, &reference)
                .await?
        }
    };
    let (_, walks) = walks(&state, &session, &entity.id, &params).await?;
    let mut out = Csv::new("lore-lineage.csv");
    out.row([
        "direction",
        "depth",
        "source id",
        "source",
        "source type",
        "target id",
        "target",
        "target type",
        "operation",
    ])?;
    for row in rows(&walks, params.depth) {
        out.row([
            row.direction,
            &row.depth.to_string(),
            &row.source.id,
            &row.source.name,
            &row.source.object_type.display_name,
            &row.target.id,
            &row.target.name,
            &row.target.object_type.display_name,
            &row.operation,
        ])?;
    }
    Ok(out.into_response()?)
}
