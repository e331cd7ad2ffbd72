//! The home page: search text and facets, turned into one MQL query that runs through the
//! same catalog calls as `executeMQLQuery`, `countMQLQuery` and
//! `getAttributeValueCounts`; the query shown, editable and validated as it is typed.

use std::fmt::Write as _;

use askama::Template;
use axum::extract::{RawQuery, State};
use axum::response::{Html, IntoResponse, Response};
use lore_core::catalog::{AsOf, MqlQuery};
use lore_core::mql::build::{Attr, all, search_text};
use lore_core::mql::{
    Expr, OrderKey, Path, Presence, Query, SearchKind, SearchTerm, SelectItem, mentions,
    parse_search_text,
};
use lore_core::{Error, ErrorCode};
use serde_json::Value as Json;

use super::download::Csv;
use super::page::{Chrome, PageResult, html, query_string};
use super::query::{self, parse_user_query};
use super::session::Session;
use crate::AppState;

/// Rows per page of results.
const PAGE_SIZE: i64 = 25;
/// Values shown per facet.
const FACET_VALUES: i64 = 12;
/// Rows of the CSV download (the API's largest page).
const CSV_ROWS: i64 = 10_000;

/// What the results table selects.
const SELECT: [Attr; 11] = [
    Attr::NAME,
    Attr::OBJECT_TYPE,
    Attr::OBJECT_ID,
    Attr::CONTEXT,
    Attr::DESCRIPTION,
    Attr::PHYSICAL_NAME,
    Attr::LABELS,
    Attr::SENSITIVITY_LABEL,
    Attr::CERTIFIED,
    Attr::ENDORSEMENT_COUNT,
    Attr::WARNING_COUNT,
];

/// A facet: its query parameter, heading and MQL attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Facet {
    param: &'static str,
    title: &'static str,
    attribute: Attr,
    numeric: bool,
}

const FACETS: &[Facet] = &[
    Facet {
        param: "type",
        title: "Object type",
        attribute: Attr::OBJECT_TYPE,
        numeric: false,
    },
    Facet {
        param: "model",
        title: "Model",
        attribute: Attr::MODEL_ID,
        numeric: true,
    },
    Facet {
        param: "label",
        title: "Labels",
        attribute: Attr::LABELS,
        numeric: false,
    },
    Facet {
        param: "class",
        title: "Data classes",
        attribute: Attr::DATA_CLASSIFICATIONS,
        numeric: false,
    },
    Facet {
        param: "sensitivity",
        title: "Sensitivity label",
        attribute: Attr::SENSITIVITY_LABEL,
        numeric: false,
    },
];

/// A value of the status facet: its query parameter value, its label and its condition.
type Status = (&'static str, &'static str, fn() -> Expr);

/// The status facet: each value is a condition of its own.
const STATUS: &[Status] = &[
    ("certified", "Certified", || Attr::CERTIFIED.eq(true)),
    ("endorsed", "Endorsed", || Attr::ENDORSED_BY.exists()),
    ("warned", "Has warnings", || Attr::WARNED_BY.exists()),
    ("described", "Has description", || {
        Attr::DESCRIPTION.exists()
    }),
];

/// The search the URL asks for.
#[derive(Debug, Clone, Default)]
pub struct SearchRequest {
    pub text: String,
    /// `(param, value)` of every selected facet value, status included.
    pub selected: Vec<(String, String)>,
    /// The MQL the user wrote, when the search runs from the MQL box.
    pub mql: Option<String>,
    pub page: i64,
    /// Whether the MQL box is open.
    pub show_mql: bool,
    /// The time or version the search reads the catalog as of (`asOf`); now when absent.
    pub as_of: Option<String>,
}

impl SearchRequest {
    pub fn from_query(raw: Option<&str>) -> Self {
        let pairs: Vec<(String, String)> = raw
            .and_then(|q| serde_urlencoded::from_str(q).ok())
            .unwrap_or_default();
        let mut request = Self {
            page: 1,
            ..Self::default()
        };
        for (name, value) in pairs {
            match name.as_str() {
                "q" => request.text = value,
                "mql" if !value.trim().is_empty() => request.mql = Some(value),
                "page" => request.page = value.parse().unwrap_or(1).max(1),
                "view" => request.show_mql = value == "mql",
                "asOf" if !value.trim().is_empty() => request.as_of = Some(value.trim().to_owned()),
                "status" if STATUS.iter().any(|s| s.0 == value) => {
                    request.selected.push((name, value))
                }
                _ if FACETS.iter().any(|f| f.param == name) && !value.is_empty() => {
                    request.selected.push((name, value))
                }
                _ => {}
            }
        }
        if request.mql.is_some() {
            request.show_mql = true;
        }
        request
    }

    fn values_of<'a>(&'a self, param: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.selected
            .iter()
            .filter(move |(p, _)| p == param)
            .map(|(_, v)| v.as_str())
    }

    fn is_selected(&self, param: &str, value: &str) -> bool {
        self.selected.iter().any(|(p, v)| p == param && v == value)
    }

    /// The WHERE of the search text and the selected facets, leaving out one facet's
    /// own values (its counts show what selecting more of them would add).
    fn filter(&self, except: Option<&str>) -> Result<Option<Expr>, Error> {
        let mut parts = Vec::new();
        let text = self.text.trim();
        if !text.is_empty() {
            parts.push(search_text(text));
        }
        for facet in FACETS {
            if except == Some(facet.param) {
                continue;
            }
            let values: Vec<&str> = self.values_of(facet.param).collect();
            if values.is_empty() {
                continue;
            }
            let literals = values
                .iter()
                .map(|v| {
                    if facet.numeric {
                        v.parse::<i64>().map(Into::into).map_err(|_| {
                            Error::invalid(format!("{} '{v}' is not a number", facet.title))
                        })
                    } else {
                        Ok((*v).into())
                    }
                })
                .collect::<Result<Vec<lore_core::mql::Value>, _>>()?;
            parts.push(facet.attribute.any(literals));
        }
        if except != Some("status") {
            for (param, _, condition) in STATUS {
                if self.is_selected("status", param) {
                    parts.push(condition());
                }
            }
        }
        Ok(all(parts))
    }

    /// The search's own query.
    fn search_query(&self) -> Result<Query, Error> {
        let order = if self.text.trim().is_empty() {
            OrderKey::from(Attr::NAME)
        } else {
            OrderKey::Relevance
        };
        Ok(Query::select(SELECT)
            .filter(self.filter(None)?)
            .order_by(order))
    }

    /// The whole query of the search, as the MQL box shows it: a clause a line.
    pub fn query_text(&self) -> Result<String, Error> {
        let clauses = self.search_query()?.clause_texts();
        let mut text = format!("SELECT {}", clauses.select);
        if let Some(filter) = clauses.filter {
            write!(text, "\nWHERE {filter}").ok();
        }
        if let Some(order) = clauses.order_by {
            write!(text, "\nORDER BY {order}").ok();
        }
        Ok(text)
    }

    /// The query the catalog runs: the user's MQL, or the search's own.
    fn query(&self) -> Result<Query, Error> {
        match &self.mql {
            Some(mql) => parse_user_query(mql),
            None => self.search_query(),
        }
    }

    /// This search's URL with one facet value switched on or off, back on page 1.
    fn toggled(&self, param: &str, value: &str) -> String {
        let mut pairs: Vec<(&str, &str)> = Vec::new();
        if !self.text.is_empty() {
            pairs.push(("q", &self.text));
        }
        let on = self.is_selected(param, value);
        for (p, v) in &self.selected {
            if !(p == param && v == value) {
                pairs.push((p, v));
            }
        }
        if !on {
            pairs.push((param, value));
        }
        if let Some(as_of) = &self.as_of {
            pairs.push(("asOf", as_of));
        }
        format!("/ui/?{}", query_string(pairs))
    }

    /// This search's URL on another page (or as CSV).
    fn url(&self, path: &str, page: Option<i64>) -> String {
        let mut pairs: Vec<(String, String)> = Vec::new();
        match &self.mql {
            Some(mql) => pairs.push(("mql".into(), mql.clone())),
            None => {
                if !self.text.is_empty() {
                    pairs.push(("q".into(), self.text.clone()));
                }
                pairs.extend(self.selected.iter().cloned());
            }
        }
        if let Some(page) = page {
            pairs.push(("page".into(), page.to_string()));
        }
        if let Some(as_of) = &self.as_of {
            pairs.push(("asOf".into(), as_of.clone()));
        }
        let text = query_string(pairs.iter().map(|(a, b)| (a.as_str(), b.as_str())));
        if text.is_empty() {
            path.to_owned()
        } else {
            format!("{path}?{text}")
        }
    }
}

/// A facet as the page shows it.
struct FacetView {
    param: &'static str,
    title: &'static str,
    values: Vec<FacetValue>,
}

struct FacetValue {
    value: String,
    label: String,
    count: u64,
    selected: bool,
    /// The URL that selects or clears it.
    href: String,
}

/// One row of results.
struct ResultRow {
    id: String,
    name: String,
    object_type: String,
    context: String,
    description: String,
    labels: Vec<String>,
    sensitivity: String,
    certified: bool,
    endorsements: u64,
    warnings: u64,
    matched: String,
}

/// A row of a query the user wrote: its cells, and the object it links to.
struct MqlRow {
    id: Option<String>,
    cells: Vec<String>,
}

#[derive(Template)]
#[template(path = "search.html")]
struct SearchPage {
    chrome: Chrome,
    text: String,
    query: String,
    mql_mode: bool,
    show_mql: bool,
    error: Option<String>,
    total: u64,
    page: i64,
    pages: i64,
    prev: Option<String>,
    next: Option<String>,
    csv: String,
    back_to_search: String,
    exact: Vec<ResultRow>,
    rows: Vec<ResultRow>,
    mql_columns: Vec<String>,
    mql_rows: Vec<MqlRow>,
    facets: Vec<FacetView>,
    /// The selected facet values, carried by the search form.
    selected: Vec<(String, String)>,
    /// The `asOf` asked for (empty: now), and what links to objects add to show them
    /// as of it.
    as_of: String,
    as_of_query: String,
    /// This search now.
    now_href: String,
}

impl SearchRequest {
    /// The moment asked for, read: a time or a version (INVALID_PARAMETER otherwise).
    fn moment(&self) -> Result<Option<AsOf>, Error> {
        self.as_of.as_deref().map(AsOf::parse).transpose()
    }
}

/// `GET /ui/`: the search page.
pub async fn page(
    State(state): State<AppState>,
    session: Session,
    RawQuery(raw): RawQuery,
) -> PageResult {
    let request = SearchRequest::from_query(raw.as_deref());
    let mut view = SearchPage {
        chrome: Chrome::new(&session, "search"),
        text: request.text.clone(),
        query: String::new(),
        mql_mode: request.mql.is_some(),
        show_mql: request.show_mql,
        error: None,
        total: 0,
        page: request.page,
        pages: 0,
        prev: None,
        next: None,
        csv: request.url("/ui/search.csv", None),
        back_to_search: "/ui/".into(),
        exact: Vec::new(),
        rows: Vec::new(),
        mql_columns: Vec::new(),
        mql_rows: Vec::new(),
        facets: Vec::new(),
        selected: request.selected.clone(),
        as_of: request.as_of.clone().unwrap_or_default(),
        as_of_query: request
            .as_of
            .as_deref()
            .map(|a| format!("?{}", query_string([("asOf", a)])))
            .unwrap_or_default(),
        now_href: SearchRequest {
            as_of: None,
            ..request.clone()
        }
        .url("/ui/", None),
    };
    match request.mql.clone() {
        Some(mql) => view.query = mql,
        None => match request.query_text() {
            Ok(q) => view.query = q,
            Err(e) => view.error = Some(e.message),
        },
    }
    if view.error.is_none()
        && let Err(e) = run(&state, &session, &request, &mut view).await
    {
        let e = e.for_client();
        if e.code == ErrorCode::ServerError {
            return Err(e.into());
        }
        view.error = Some(e.message);
    }
    Ok(html(&view))
}

async fn run(
    state: &AppState,
    session: &Session,
    request: &SearchRequest,
    view: &mut SearchPage,
) -> Result<(), Error> {
    let mut asked = request.query()?;
    let user_select = asked.select.clone();
    let adds_id = request.mql.is_some() && !asked.selects(Attr::OBJECT_ID);
    if adds_id {
        asked.select.push(Attr::OBJECT_ID.into());
    }
    let as_of = request.moment()?;
    let total = query::count_at(state, session, &asked, as_of).await?;
    view.total = total;
    view.pages = (total as i64 + PAGE_SIZE - 1) / PAGE_SIZE;
    let rows = query::execute_at(state, session, &asked, PAGE_SIZE, request.page, as_of).await?;
    let entities: Vec<_> = rows.into_iter().map(|row| row.0).collect();
    if request.page > 1 {
        view.prev = Some(request.url("/ui/", Some(request.page - 1)));
    }
    if request.page < view.pages {
        view.next = Some(request.url("/ui/", Some(request.page + 1)));
    }
    if request.mql.is_some() {
        let mut columns: Vec<String> = Vec::new();
        for entity in &entities {
            let mut cells = Vec::new();
            let mut id = None;
            for (i, attribute) in entity.attributes.iter().enumerate() {
                let name = &attribute.attribute_type.display_name;
                if name == Attr::OBJECT_ID.name() {
                    id = attribute.value.as_str().map(str::to_owned);
                }
                if adds_id && i + 1 == entity.attributes.len() {
                    continue;
                }
                if columns.len() <= i && cells.len() == columns.len() {
                    columns.push(attribute.attribute_type.display_name.clone());
                }
                cells.push(display(&attribute.value));
            }
            view.mql_rows.push(MqlRow { id, cells });
        }
        if columns.is_empty() {
            columns = user_select.iter().map(column_heading).collect();
        }
        view.mql_columns = columns;
        view.back_to_search = "/ui/".into();
    } else {
        let terms = parse_search_text(&request.text);
        view.rows = entities
            .iter()
            .map(|e| result_row(&e.attributes, &terms))
            .collect();
        if request.page == 1 && !request.text.trim().is_empty() {
            view.exact = exact_matches(state, session, request).await?;
        }
    }
    view.facets = facets(state, session, request, &asked).await?;
    Ok(())
}

/// The heading of a SELECT item's column: its names without quotes.
fn column_heading(item: &SelectItem) -> String {
    match item {
        SelectItem::Attribute(Path(names)) => names
            .iter()
            .map(|n| n.text.as_str())
            .collect::<Vec<_>>()
            .join("."),
        other => other.to_string(),
    }
}

/// Objects whose whole name is the search text (and the object a path names), shown
/// first: an exact name should never be on page 2.
async fn exact_matches(
    state: &AppState,
    session: &Session,
    request: &SearchRequest,
) -> Result<Vec<ResultRow>, Error> {
    let text = exact_name(&request.text);
    if text.is_empty() {
        return Ok(Vec::new());
    }
    let mut without_text = request.clone();
    without_text.text.clear();
    let exact = Query::select(SELECT)
        .filter(all([
            Some(Attr::NAME.eq(text.as_str())),
            without_text.filter(None)?,
        ]
        .into_iter()
        .flatten()))
        .order_by(Attr::NAME);
    let mut rows = Vec::new();
    for e in query::execute_at(state, session, &exact, 10, 1, request.moment()?).await? {
        let mut row = result_row(&e.0.attributes, &[]);
        row.matched = "exact name".into();
        rows.push(row);
    }
    // A repository path names one object.
    let whole = request.text.trim();
    if whole.starts_with('/')
        && let Ok(reference) = lore_core::id::ObjectRef::parse(whole)
        && let Ok(entity) = state
            .catalog
            .objects()
            .get_entity(&session.caller, &reference)
            .await
        && !rows.iter().any(|r| r.id == entity.id)
    {
        rows.insert(
            0,
            ResultRow {
                id: entity.id,
                name: entity.name,
                object_type: entity.object_type.display_name,
                context: whole.to_owned(),
                description: String::new(),
                labels: entity.labels,
                sensitivity: String::new(),
                certified: false,
                endorsements: 0,
                warnings: 0,
                matched: "path".into(),
            },
        );
    }
    Ok(rows)
}

/// The name search text means when taken whole: the name of a lone exact name, phrase or
/// word (`=orders`, `="sales order"`, `."sales_order"`, `"customer"`), read as search
/// reads it; else the text as typed.
fn exact_name(text: &str) -> String {
    match parse_search_text(text).as_slice() {
        [
            SearchTerm {
                kind:
                    SearchKind::ExactName(name) | SearchKind::Phrase(name) | SearchKind::Word(name),
                presence: Presence::Optional | Presence::Required,
            },
        ] => name.trim().to_owned(),
        _ => text.trim().to_owned(),
    }
}

/// Facet counts: for each facet, the counts under every other selection (so more
/// values of the same facet can be added), as getAttributeValueCounts answers them.
async fn facets(
    state: &AppState,
    session: &Session,
    request: &SearchRequest,
    asked: &Query,
) -> Result<Vec<FacetView>, Error> {
    let catalog = &state.catalog;
    let caller = &session.caller;
    let mut views = Vec::new();
    // The asked query's FROM and CONTEXT with another SELECT list and condition.
    let over = |select: Vec<SelectItem>, filter: Option<Expr>| Query {
        select,
        from: asked.from.clone(),
        context: asked.context.clone(),
        filter,
        order_by: Vec::new(),
    };
    let user_mode = request.mql.is_some();
    let mut filters = Vec::with_capacity(FACETS.len());
    for facet in FACETS {
        filters.push(if user_mode {
            asked.filter.clone()
        } else {
            request.filter(Some(facet.param))?
        });
    }
    // Facets under the same filter (none of them with a value of its own selected) are
    // counted in one call, which finds the search's objects once for all of them.
    let mut counted = vec![None; FACETS.len()];
    for first in 0..FACETS.len() {
        if counted[first].is_some() {
            continue;
        }
        let group: Vec<usize> = (first..FACETS.len())
            .filter(|&i| counted[i].is_none() && filters[i] == filters[first])
            .collect();
        let select = group.iter().map(|&i| FACETS[i].attribute.into()).collect();
        let counted_query = over(select, filters[first].clone());
        let counts = catalog
            .search()
            .as_of(request.moment()?)
            .attribute_value_counts(
                caller,
                MqlQuery::Built(&counted_query),
                None,
                Some(FACET_VALUES),
            )
            .await?;
        if counts.len() != group.len() {
            return Err(Error::internal(format!(
                "{} facets counted for {} asked",
                counts.len(),
                group.len()
            )));
        }
        for (i, counts) in group.into_iter().zip(counts) {
            counted[i] = Some(counts.values);
        }
    }
    for (facet, counts) in FACETS.iter().zip(counted) {
        let mut values = Vec::new();
        for counted in counts.into_iter().flatten() {
            let value = facet_value(&counted.value);
            if value.is_empty() {
                continue;
            }
            values.push(FacetValue {
                label: value.clone(),
                selected: request.is_selected(facet.param, &value),
                href: request.toggled(facet.param, &value),
                value,
                count: counted.count,
            });
        }
        if facet.param == "model" {
            name_models(state, session, &mut values, request.moment()?).await?;
        }
        // A selected value stays listed even when nothing has it any more.
        for value in request.values_of(facet.param) {
            if !values.iter().any(|v| v.value == value) {
                values.push(FacetValue {
                    value: value.to_owned(),
                    label: value.to_owned(),
                    count: 0,
                    selected: true,
                    href: request.toggled(facet.param, value),
                });
            }
        }
        if !values.is_empty() {
            views.push(FacetView {
                param: facet.param,
                title: facet.title,
                values,
            });
        }
    }
    let status_filter = if user_mode {
        asked.filter.clone()
    } else {
        request.filter(Some("status"))?
    };
    let mut values = Vec::new();
    for (param, label, condition) in STATUS {
        let filter = all(status_filter.clone().into_iter().chain([condition()]));
        let counted_query = over(vec![Attr::NAME.into()], filter);
        let count = catalog
            .search()
            .as_of(request.moment()?)
            .count_query(caller, MqlQuery::Built(&counted_query))
            .await?;
        let selected = request.is_selected("status", param);
        if count > 0 || selected {
            values.push(FacetValue {
                value: (*param).to_owned(),
                label: (*label).to_owned(),
                count,
                selected,
                href: request.toggled("status", param),
            });
        }
    }
    if !values.is_empty() {
        views.push(FacetView {
            param: "status",
            title: "Status",
            values,
        });
    }
    Ok(views)
}

/// Model facet values are model numbers: the models' names, as the caller sees them.
async fn name_models(
    state: &AppState,
    session: &Session,
    values: &mut [FacetValue],
    as_of: Option<AsOf>,
) -> Result<(), Error> {
    let numbers: Vec<i64> = values
        .iter()
        .filter_map(|v| v.value.parse::<i64>().ok())
        .collect();
    if numbers.is_empty() {
        return Ok(());
    }
    let models = Query::select([Attr::NAME, Attr::MODEL_ID]).filter(all([
        Attr::OBJECT_TYPE.eq("Model"),
        Attr::MODEL_ID.any(numbers.iter().copied()),
    ]));
    let size = numbers.len() as i64;
    for model in query::execute_at(state, session, &models, size, 1, as_of).await? {
        let (name, number) = (model.text(Attr::NAME), model.text(Attr::MODEL_ID));
        for value in values.iter_mut().filter(|v| v.value == number) {
            value.label.clone_from(&name);
        }
    }
    Ok(())
}

fn facet_value(value: &Json) -> String {
    match value {
        Json::String(s) => s.clone(),
        Json::Object(map) => map
            .get("name")
            .or_else(|| map.get("label"))
            .map(display)
            .unwrap_or_default(),
        Json::Null => String::new(),
        other => other.to_string(),
    }
}

/// A value as text for a cell.
pub fn display(value: &Json) -> String {
    match value {
        Json::Null => String::new(),
        Json::String(s) => s.clone(),
        Json::Array(items) => items.iter().map(display).collect::<Vec<_>>().join(", "),
        Json::Object(map) => {
            if let Some(name) = map.get("name") {
                return display(name);
            }
            if let Some(label) = map.get("label") {
                return display(label);
            }
            Json::Object(map.clone()).to_string()
        }
        other => other.to_string(),
    }
}

fn result_row(attributes: &[lore_core::wire::Attribute], terms: &[SearchTerm]) -> ResultRow {
    let get = |attr: Attr| query::value(attributes, attr);
    let text = |attr: Attr| query::text(attributes, attr);
    let context = match get(Attr::CONTEXT) {
        Some(Json::Array(items)) => items
            .iter()
            .filter_map(|i| i.get("name").and_then(Json::as_str))
            .collect::<Vec<_>>()
            .join(" / "),
        Some(other) => display(other),
        None => String::new(),
    };
    let name = text(Attr::NAME);
    let physical = text(Attr::PHYSICAL_NAME);
    let description = text(Attr::DESCRIPTION);
    let matched = if mentions(terms, &name) {
        "name"
    } else if mentions(terms, &physical) {
        "physical name"
    } else if mentions(terms, &description) {
        "description"
    } else {
        ""
    };
    ResultRow {
        id: text(Attr::OBJECT_ID),
        object_type: text(Attr::OBJECT_TYPE),
        context,
        description: first_line(&description),
        labels: match get(Attr::LABELS) {
            Some(Json::Array(items)) => items.iter().map(display).collect(),
            _ => Vec::new(),
        },
        sensitivity: text(Attr::SENSITIVITY_LABEL),
        certified: get(Attr::CERTIFIED)
            .and_then(Json::as_bool)
            .unwrap_or(false),
        endorsements: get(Attr::ENDORSEMENT_COUNT)
            .and_then(Json::as_u64)
            .unwrap_or(0),
        warnings: get(Attr::WARNING_COUNT).and_then(Json::as_u64).unwrap_or(0),
        matched: matched.into(),
        name,
    }
}

fn first_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() > 160 {
        let cut: String = line.chars().take(157).collect();
        format!("{cut}…")
    } else {
        line.to_owned()
    }
}

/// `GET /ui/search.csv`: the results of the same search, up to 10,000 rows.
pub async fn csv(
    State(state): State<AppState>,
    session: Session,
    RawQuery(raw): RawQuery,
) -> PageResult {
    let request = SearchRequest::from_query(raw.as_deref());
    let asked = request.query()?;
    let rows = query::execute_at(&state, &session, &asked, CSV_ROWS, 1, request.moment()?).await?;
    let entities: Vec<_> = rows.into_iter().map(|row| row.0).collect();
    let mut out = Csv::new("lore-search.csv");
    if let Some(first) = entities.first() {
        out.row(
            first
                .attributes
                .iter()
                .map(|a| a.attribute_type.display_name.as_str()),
        )?;
    }
    for entity in &entities {
        out.row(entity.attributes.iter().map(|a| csv_cell(&a.value)))?;
    }
    Ok(out.into_response()?)
}

/// A CSV cell's text (a list joined by `; `), before the guard of every cell.
fn csv_cell(value: &Json) -> String {
    match value {
        Json::Array(items) => items.iter().map(display).collect::<Vec<_>>().join("; "),
        other => display(other),
    }
}

#[derive(Template)]
#[template(path = "mql_status.html")]
struct MqlStatus {
    valid: bool,
    message: String,
    warnings: Vec<String>,
}

/// `GET /ui/search/validate?mql=...`: what validateMQLQuery says of the MQL box, as a
/// line under it (htmx asks as the user types).
pub async fn validate(
    State(state): State<AppState>,
    session: Session,
    RawQuery(raw): RawQuery,
) -> Response {
    let text = raw
        .as_deref()
        .and_then(|q| super::session::url_form_value(q.as_bytes(), "mql"))
        .unwrap_or_default();
    let checked = match parse_user_query(&text) {
        Ok(asked) => {
            state
                .catalog
                .search()
                .validate_query(&session.caller, MqlQuery::Built(&asked), false)
                .await
        }
        Err(e) => Err(e),
    };
    let status = match checked {
        Ok(v) => MqlStatus {
            valid: true,
            message: "Valid MQL.".into(),
            warnings: v.warnings,
        },
        Err(e) => MqlStatus {
            valid: false,
            message: e.for_client().message,
            warnings: Vec::new(),
        },
    };
    match status.render() {
        Ok(body) => Html(body).into_response(),
        Err(_) => Html(String::new()).into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn search_text_and_facets_become_one_query() {
        let request = SearchRequest::from_query(Some(
            "q=cust%27s&type=Table&type=View&status=certified&model=3",
        ));
        assert_eq!(
            request.filter(None).unwrap().unwrap().to_string(),
            "text = 'cust''s' AND \"Object Type\" = ANY ('Table', 'View') AND \"Model Id\" = 3 AND Certified = true"
        );
        assert_eq!(
            request.filter(Some("type")).unwrap().unwrap().to_string(),
            "text = 'cust''s' AND \"Model Id\" = 3 AND Certified = true"
        );
        assert_eq!(
            request.query_text().unwrap(),
            "SELECT Name, \"Object Type\", \"Object Id\", Context, Description, \"Physical Name\", \
             Labels, \"Sensitivity Label\", Certified, \"Endorsement Count\", \"Warning Count\"\n\
             WHERE text = 'cust''s' AND \"Object Type\" = ANY ('Table', 'View') AND \"Model Id\" = 3 \
             AND Certified = true\nORDER BY Relevance"
        );
        let bad = SearchRequest::from_query(Some("model=x"));
        assert!(bad.filter(None).is_err());
    }

    #[test]
    fn toggling_a_value_adds_or_removes_it() {
        let request = SearchRequest::from_query(Some("q=a&type=Table"));
        assert_eq!(request.toggled("type", "Table"), "/ui/?q=a");
        assert_eq!(
            request.toggled("type", "View"),
            "/ui/?q=a&type=Table&type=View"
        );
    }

    #[test]
    fn exact_names_lose_their_marks() {
        assert_eq!(exact_name(" =orders "), "orders");
        assert_eq!(exact_name("=\"sales order\""), "sales order");
        assert_eq!(exact_name(".“sales_order”"), "sales_order");
        assert_eq!(exact_name("\"customer\""), "customer");
        assert_eq!(exact_name(".x"), ".x");
        assert_eq!(exact_name("sales order"), "sales order");
        assert_eq!(exact_name("cust*"), "cust*");
    }

    #[test]
    fn csv_cells_join_lists() {
        assert_eq!(csv_cell(&Json::String("=1+1".into())), "=1+1");
        assert_eq!(csv_cell(&serde_json::json!(["a", "b"])), "a; b");
    }
}
