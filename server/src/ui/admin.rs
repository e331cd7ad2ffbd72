//! Administration: users, groups, global roles, import operations (live progress and
//! logs), the system log and notification deliveries; and on every object page, who
//! holds which role there. Each page is the catalog call of its API endpoint, so the same
//! capabilities are checked (a user without them gets the API's refusal).

use askama::Template;
use axum::Form;
use axum::extract::{Path, RawQuery, State};
use axum::response::Response;
use lore_core::catalog::{
    GranteeKind, GranteeRef, LogPage, NewGroup, NewUser, UserUpdate, requested_link,
};
use lore_core::model::{OperationFilter, OperationState, SystemLogFilter, format_datetime};
use lore_core::{Error, ObjectRef};
use serde::Deserialize;

use super::page::{Chrome, PageResult, html, returned, url_encode};
use super::session::Session;
use crate::AppState;

/// A cell: text, and where it links.
pub struct Cell {
    pub text: String,
    pub href: Option<String>,
}

fn cell(text: impl Into<String>) -> Cell {
    Cell {
        text: text.into(),
        href: None,
    }
}

fn link(text: impl Into<String>, href: String) -> Cell {
    Cell {
        text: text.into(),
        href: Some(href),
    }
}

/// A table of the page.
pub struct TableView {
    pub id: &'static str,
    pub headers: Vec<&'static str>,
    pub rows: Vec<Vec<Cell>>,
}

/// An operation's page: what it is, and its log.
pub struct OperationView {
    pub id: i64,
    pub state: &'static str,
    pub running: bool,
    pub progress: String,
    pub message: String,
    pub log: Vec<(String, String, String)>,
}

#[derive(Template)]
#[template(path = "admin.html")]
struct AdminPage {
    chrome: Chrome,
    section: &'static str,
    title: String,
    done: Option<String>,
    failed: Option<String>,
    tables: Vec<TableView>,
    roles: Vec<String>,
    operation: Option<OperationView>,
    /// The configured OpenID provider, which a sign-in link defaults to (Users page).
    issuer: Option<String>,
}

impl AdminPage {
    fn new(session: &Session, section: &'static str, title: &str) -> Self {
        Self {
            chrome: Chrome::new(session, "admin"),
            section,
            title: title.to_owned(),
            done: session.done(),
            failed: session.failed(),
            tables: Vec::new(),
            roles: Vec::new(),
            operation: None,
            issuer: None,
        }
    }
}

fn time(t: &lore_core::model::Timestamp) -> String {
    format_datetime(t)
}

/// `GET /ui/admin/users`.
pub async fn users(State(state): State<AppState>, session: Session) -> PageResult {
    let users = state.catalog.identity().list_users(&session.caller).await?;
    let mut page = AdminPage::new(&session, "users", "Users");
    page.issuer = state.oauth2.as_ref().map(|o| o.issuer().to_owned());
    page.tables.push(TableView {
        id: "users",
        headers: vec![
            "Name",
            "Full name",
            "E-mail",
            "Enabled",
            "Since",
            "Single sign-on",
        ],
        rows: users
            .iter()
            .map(|u| {
                vec![
                    cell(&u.name),
                    cell(&u.full_name),
                    cell(&u.email),
                    cell(if u.enabled { "yes" } else { "no" }),
                    cell(time(&u.created_at)),
                    cell(
                        u.external
                            .as_ref()
                            .map(ToString::to_string)
                            .unwrap_or_default(),
                    ),
                ]
            })
            .collect(),
    });
    Ok(html(&page))
}

#[derive(Debug, Deserialize)]
pub struct IdentityForm {
    name: String,
    /// `link` (by `subject` and `issuer`, or `at_next_sign_in`) or `unlink`.
    op: String,
    subject: Option<String>,
    issuer: Option<String>,
    at_next_sign_in: Option<String>,
}

/// `POST /ui/admin/users/identity`: links a user to their account at the identity
/// provider (by subject, the issuer defaulting to the configured one, or at their next
/// sign-in), or unlinks them, as `PUT` / `DELETE /admin/users/{userId}/identity`.
pub async fn link_identity(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<IdentityForm>,
) -> Response {
    let link = match form.op.as_str() {
        "unlink" => Ok(None),
        "link" => requested_link(
            form.subject,
            form.issuer,
            form.at_next_sign_in.is_some(),
            state.oauth2.as_ref().map(|o| o.issuer()),
        )
        .map(Some),
        _ => Err(Error::invalid("op must be link or unlink")),
    };
    let outcome = match link {
        Ok(link) => state
            .catalog
            .identity()
            .link_identity(&session.caller, form.name.trim(), link)
            .await
            .map(|u| match u.external {
                Some(_) => format!("user {} linked to their sign-in", u.name),
                None => format!("user {} unlinked from their sign-in", u.name),
            }),
        Err(e) => Err(e),
    };
    returned("/ui/admin/users", outcome)
}

#[derive(Debug, Deserialize)]
pub struct UserForm {
    name: String,
    full_name: Option<String>,
    email: Option<String>,
    password: Option<String>,
}

/// `POST /ui/admin/users`: creates a user.
pub async fn create_user(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<UserForm>,
) -> Response {
    let blank = |v: Option<String>| v.filter(|s| !s.trim().is_empty());
    let outcome = state
        .catalog
        .identity()
        .create_user(
            &session.caller,
            NewUser {
                name: Some(form.name.trim().to_owned()),
                full_name: blank(form.full_name),
                email: blank(form.email),
                password: blank(form.password),
                ..NewUser::default()
            },
        )
        .await
        .map(|u| format!("user {} created", u.name));
    returned("/ui/admin/users", outcome)
}

#[derive(Debug, Deserialize)]
pub struct EnableForm {
    name: String,
    enabled: bool,
}

/// `POST /ui/admin/users/enabled`: enables or disables a user.
pub async fn enable_user(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<EnableForm>,
) -> Response {
    let outcome = state
        .catalog
        .identity()
        .update_user(
            &session.caller,
            UserUpdate {
                name: Some(form.name.clone()),
                enabled: Some(form.enabled),
                ..UserUpdate::default()
            },
        )
        .await
        .map(|u| {
            format!(
                "user {} {}",
                u.name,
                if u.enabled { "enabled" } else { "disabled" }
            )
        });
    returned("/ui/admin/users", outcome)
}

/// `GET /ui/admin/groups`.
pub async fn groups(State(state): State<AppState>, session: Session) -> PageResult {
    let groups = state
        .catalog
        .identity()
        .list_groups(&session.caller, None)
        .await?;
    let mut page = AdminPage::new(&session, "groups", "Groups");
    page.tables.push(TableView {
        id: "groups",
        headers: vec!["Name", "Description", "Enabled"],
        rows: groups
            .iter()
            .map(|g| {
                vec![
                    cell(&g.name),
                    cell(&g.description),
                    cell(if g.enabled { "yes" } else { "no" }),
                ]
            })
            .collect(),
    });
    Ok(html(&page))
}

#[derive(Debug, Deserialize)]
pub struct GroupForm {
    name: String,
    description: Option<String>,
    members: Option<String>,
}

/// `POST /ui/admin/groups`: creates a group with members (names, comma-separated).
pub async fn create_group(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<GroupForm>,
) -> Response {
    let members = form
        .members
        .unwrap_or_default()
        .split(',')
        .map(str::trim)
        .filter(|m| !m.is_empty())
        .map(str::to_owned)
        .collect();
    let outcome = state
        .catalog
        .identity()
        .create_group(
            &session.caller,
            NewGroup {
                name: Some(form.name.trim().to_owned()),
                description: form.description,
                enabled: None,
                members,
            },
        )
        .await
        .map(|g| format!("group {} created", g.group.name));
    returned("/ui/admin/groups", outcome)
}

/// `GET /ui/admin/roles`: who holds which global role.
pub async fn roles(State(state): State<AppState>, session: Session) -> PageResult {
    let grants = state
        .catalog
        .identity()
        .global_grantees(&session.caller, None)
        .await?;
    let mut page = AdminPage::new(&session, "roles", "Global roles");
    page.roles = state
        .catalog
        .identity()
        .roles(&session.caller)
        .await?
        .into_iter()
        .filter(|r| r.global)
        .map(|r| r.name)
        .collect();
    page.tables.push(grant_table("global-grants", &grants));
    Ok(html(&page))
}

fn grant_table(id: &'static str, grants: &[lore_core::catalog::RoleGrant]) -> TableView {
    TableView {
        id,
        headers: vec!["Grantee", "Kind", "Role", "Through", "Inherited"],
        rows: grants
            .iter()
            .map(|g| {
                vec![
                    cell(&g.grantee.name),
                    cell(g.grantee.kind.as_str()),
                    cell(&g.role.name),
                    cell(g.via.as_ref().map(|v| v.name.clone()).unwrap_or_default()),
                    cell(if g.inherited { "yes" } else { "" }),
                ]
            })
            .collect(),
    }
}

#[derive(Debug, Deserialize)]
pub struct GrantForm {
    grantee: String,
    /// USER or GROUP.
    kind: String,
    role: String,
    /// `grant` or `revoke` (object roles).
    op: Option<String>,
}

fn grantee_of(form: &GrantForm) -> GranteeRef {
    GranteeRef {
        reference: form.grantee.trim().to_owned(),
        kind: GranteeKind::parse(&form.kind).ok(),
    }
}

/// `POST /ui/admin/roles`: grants a global role.
pub async fn grant_global(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<GrantForm>,
) -> Response {
    let outcome = state
        .catalog
        .identity()
        .grant_global_roles(
            &session.caller,
            &grantee_of(&form),
            std::slice::from_ref(&form.role),
        )
        .await
        .map(|_| format!("{} granted to {}", form.role, form.grantee));
    returned("/ui/admin/roles", outcome)
}

/// `POST /ui/objects/{id}/access`: grants or revokes a role on the object.
pub async fn grant_object(
    State(state): State<AppState>,
    session: Session,
    Path(id): Path<String>,
    Form(form): Form<GrantForm>,
) -> Response {
    let to = format!("/ui/objects/{}/access", url_encode(&id));
    let outcome = match ObjectRef::parse(&id) {
        Err(e) => Err(e),
        Ok(reference) if form.op.as_deref() == Some("revoke") => state
            .catalog
            .identity()
            .revoke_object_role(&session.caller, &reference, &grantee_of(&form), &form.role)
            .await
            .map(|()| format!("{} revoked from {}", form.role, form.grantee)),
        Ok(reference) => state
            .catalog
            .identity()
            .grant_object_role(&session.caller, &reference, &grantee_of(&form), &form.role)
            .await
            .map(|_| format!("{} granted to {}", form.role, form.grantee)),
    };
    returned(&to, outcome)
}

/// What the object page's access tab shows.
pub struct AccessView {
    pub grants: Vec<(String, String, String, bool)>,
    pub roles: Vec<String>,
}

/// The object roles on an object (Manage Roles there).
pub async fn access_of(state: &AppState, session: &Session, id: &str) -> Result<AccessView, Error> {
    let reference = ObjectRef::parse(id)?;
    let grants = state
        .catalog
        .identity()
        .object_grantees(&session.caller, &reference, None)
        .await?;
    let roles = state
        .catalog
        .identity()
        .roles(&session.caller)
        .await?
        .into_iter()
        .filter(|r| !r.global)
        .map(|r| r.name)
        .collect();
    Ok(AccessView {
        grants: grants
            .iter()
            .map(|g| {
                (
                    g.grantee.name.clone(),
                    g.grantee.kind.as_str().to_owned(),
                    g.role.name.clone(),
                    g.inherited || g.via.is_some(),
                )
            })
            .collect(),
        roles,
    })
}

/// `GET /ui/admin/operations`: import operations, newest first.
pub async fn operations(State(state): State<AppState>, session: Session) -> PageResult {
    let operations = state
        .catalog
        .operations()
        .operations(
            &session.caller,
            OperationFilter {
                limit: 200,
                ..OperationFilter::default()
            },
        )
        .await?;
    let mut page = AdminPage::new(&session, "operations", "Operations");
    page.tables.push(TableView {
        id: "operations",
        headers: vec![
            "Operation",
            "State",
            "Format",
            "Model",
            "Started by",
            "Started",
            "Progress",
        ],
        rows: operations
            .iter()
            .map(|o| {
                vec![
                    link(
                        format!("{} {}", o.kind, o.id),
                        format!("/ui/admin/operations/{}", o.id),
                    ),
                    cell(o.state.as_str()),
                    cell(&o.detail.format),
                    match o.model {
                        Some(m) => link(m.to_string(), format!("/ui/objects/{m}")),
                        None => cell(""),
                    },
                    cell(&o.started_by),
                    cell(time(&o.started_at)),
                    cell(progress(&o.detail.progress)),
                ]
            })
            .collect(),
    });
    Ok(html(&page))
}

fn progress(p: &lore_core::model::OperationProgress) -> String {
    match p.total {
        Some(total) => format!("{}: {} of {} {}", p.phase, p.done, total, p.unit),
        None if p.done > 0 => format!("{}: {} {}", p.phase, p.done, p.unit),
        None => p.phase.clone(),
    }
}

#[derive(Debug, Deserialize)]
pub struct StartForm {
    model: String,
}

/// `POST /ui/admin/operations`: starts the import of a model (startImport).
pub async fn start_import(
    State(state): State<AppState>,
    session: Session,
    Form(form): Form<StartForm>,
) -> Response {
    let started = match ObjectRef::parse(&form.model) {
        Ok(reference) => {
            state
                .catalog
                .operations()
                .start_import(&session.caller, &reference)
                .await
        }
        Err(e) => Err(e),
    };
    match started {
        Ok(operation) => returned(
            &format!("/ui/admin/operations/{}", operation.id),
            Ok("import started".into()),
        ),
        Err(e) => returned("/ui/admin/operations", Err(e)),
    }
}

/// `GET /ui/admin/operations/{id}`: an operation and its log; while it runs, the page
/// asks again every two seconds (htmx) and shows what changed.
pub async fn operation(
    State(state): State<AppState>,
    session: Session,
    Path(id): Path<i64>,
) -> PageResult {
    let (operation, lines) = state
        .catalog
        .operations()
        .operation_log(&session.caller, id)
        .await?;
    let mut page = AdminPage::new(
        &session,
        "operation",
        &format!("Operation {}", operation.id),
    );
    page.operation = Some(OperationView {
        id: operation.id,
        state: operation.state.as_str(),
        running: operation.state == OperationState::Running,
        progress: progress(&operation.detail.progress),
        message: operation.detail.message.clone(),
        log: lines
            .iter()
            .map(|l| (time(&l.at), l.level.clone(), l.message.clone()))
            .collect(),
    });
    Ok(html(&page))
}

/// `GET /ui/admin/log`: the system log, newest first.
pub async fn system_log(
    State(state): State<AppState>,
    session: Session,
    RawQuery(raw): RawQuery,
) -> PageResult {
    let page_number = raw
        .as_deref()
        .and_then(|q| super::session::url_form_value(q.as_bytes(), "page"))
        .and_then(|p| p.parse::<i64>().ok());
    let read = state
        .catalog
        .operations()
        .system_log(
            &session.caller,
            &SystemLogFilter::default(),
            LogPage {
                size: Some(100),
                number: page_number,
            },
        )
        .await?;
    let mut page = AdminPage::new(
        &session,
        "log",
        &format!("System log ({} calls)", read.total),
    );
    page.tables.push(TableView {
        id: "system-log",
        headers: vec!["Time", "User", "Address", "Call", "Status", "ms", "Bytes"],
        rows: read
            .entries
            .iter()
            .map(|e| {
                vec![
                    cell(time(&e.time)),
                    cell(&e.user),
                    cell(&e.address),
                    cell(format!("{} {}", e.method, e.path)),
                    cell(e.status.to_string()),
                    cell(e.duration_ms.to_string()),
                    cell(e.size.to_string()),
                ]
            })
            .collect(),
    });
    Ok(html(&page))
}

/// `GET /ui/admin/deliveries`: notification deliveries.
pub async fn deliveries(State(state): State<AppState>, session: Session) -> PageResult {
    let deliveries = state
        .catalog
        .notifications()
        .list_deliveries(&session.caller, None, Some(200))
        .await?;
    let mut page = AdminPage::new(&session, "deliveries", "Notification deliveries");
    page.tables.push(TableView {
        id: "deliveries",
        headers: vec![
            "Id",
            "Channel",
            "Target",
            "State",
            "Attempts",
            "Next attempt",
            "Last error",
        ],
        rows: deliveries
            .iter()
            .map(|d| {
                vec![
                    cell(d.id.to_string()),
                    cell(format!("{:?}", d.channel)),
                    cell(&d.target),
                    cell(format!("{:?}", d.state)),
                    cell(d.attempts.to_string()),
                    cell(time(&d.next_attempt_at)),
                    cell(&d.last_error),
                ]
            })
            .collect(),
    });
    Ok(html(&page))
}
