//! Documents the repository keeps whole: users' dashboards (`POST
//! /repository/dashboard/import|export`) and the license (`POST /License/updateLicense`).

use serde::Serialize;
use serde_json::{Map, Value as Json};

use super::Objects;
use crate::auth::Caller;
use crate::error::{Error, ErrorCode, Result};
use crate::model::{Capability, Document, DocumentKind, now, parse_datetime};
use crate::store::Op;

/// The longest dashboard name.
pub const MAX_DASHBOARD_NAME_CHARS: usize = 200;
/// The most widgets one dashboard holds.
pub const MAX_DASHBOARD_WIDGETS: usize = 500;
/// The largest dashboard definition, as JSON.
pub const MAX_DASHBOARD_BYTES: usize = 1024 * 1024;

/// What importing a dashboard did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DashboardImport {
    pub name: String,
    pub widgets: usize,
    /// Whether a dashboard of that name was replaced.
    pub replaced: bool,
}

/// The license record as it is answered: the key masked.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LicenseRecord {
    pub licensee: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub edition: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seats: Option<u64>,
    /// RFC 3339.
    pub expires_at: String,
    /// Whole days until it expires.
    pub days_left: i64,
    /// The key's last four characters, the rest masked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    pub updated_at: String,
}

const LICENSE_FIELDS: [&str; 5] = ["licensee", "edition", "seats", "expiresAt", "key"];

fn license_error(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::LicenseError, message)
}

/// Checks a dashboard definition; answers its name (the `name` given, else its own) and
/// the definition with that name.
fn checked_dashboard(definition: Json, name: Option<&str>) -> Result<(String, Json)> {
    let Json::Object(mut fields) = definition else {
        return Err(Error::invalid(
            "a dashboard definition is a JSON object with a name and its widgets",
        ));
    };
    let name = match name.map(str::trim).filter(|n| !n.is_empty()) {
        Some(n) => n.to_owned(),
        None => match fields.get("name") {
            Some(Json::String(n)) if !n.trim().is_empty() => n.trim().to_owned(),
            Some(Json::String(_)) | None => return Err(Error::missing("name")),
            Some(other) => {
                return Err(Error::invalid(format!(
                    "the dashboard's name is text, not {other}"
                )));
            }
        },
    };
    if name.chars().count() > MAX_DASHBOARD_NAME_CHARS || name.chars().any(char::is_control) {
        return Err(Error::invalid(format!(
            "a dashboard name has at most {MAX_DASHBOARD_NAME_CHARS} characters and no control characters"
        )));
    }
    fields.insert("name".into(), Json::String(name.clone()));
    let widgets = fields
        .entry("widgets")
        .or_insert_with(|| Json::Array(Vec::new()));
    let Json::Array(widgets) = widgets else {
        return Err(Error::invalid("the dashboard's widgets are a JSON array"));
    };
    if widgets.len() > MAX_DASHBOARD_WIDGETS {
        return Err(Error::invalid(format!(
            "a dashboard holds at most {MAX_DASHBOARD_WIDGETS} widgets, not {}",
            widgets.len()
        )));
    }
    for (n, widget) in widgets.iter().enumerate() {
        match widget.get("type") {
            Some(Json::String(t)) if !t.trim().is_empty() => {}
            _ => {
                return Err(Error::invalid(format!(
                    "widget {} has no type: each widget is an object with a \"type\"",
                    n + 1
                )));
            }
        }
    }
    let definition = Json::Object(fields);
    if definition.to_string().len() > MAX_DASHBOARD_BYTES {
        return Err(Error::invalid(format!(
            "a dashboard definition is at most {MAX_DASHBOARD_BYTES} bytes of JSON"
        )));
    }
    Ok((name, definition))
}

fn widget_count(definition: &Json) -> usize {
    definition["widgets"].as_array().map_or(0, Vec::len)
}

impl Objects<'_> {
    /// `POST /repository/dashboard/import`: keeps a dashboard definition as one of the
    /// caller's dashboards (View Metadata somewhere). A dashboard of the same name is
    /// replaced only when `replace` is set (CONFLICT otherwise).
    pub async fn import_dashboard(
        &self,
        caller: &Caller,
        bytes: &[u8],
        name: Option<&str>,
        replace: bool,
    ) -> Result<DashboardImport> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let definition: Json = serde_json::from_slice(bytes).map_err(|e| {
            Error::invalid(format!("the dashboard definition is not valid JSON: {e}"))
        })?;
        let (name, definition) = checked_dashboard(definition, name)?;
        let owner = Some(caller.user());
        let existing = self
            .store
            .document(DocumentKind::Dashboard, owner, &name)
            .await?;
        if existing.is_some() && !replace {
            return Err(Error::conflict(format!(
                "you have a dashboard named '{name}' already; import with replace=true to replace it"
            )));
        }
        let widgets = widget_count(&definition);
        self.write(
            caller.author(),
            vec![Op::PutDocument(Document {
                kind: DocumentKind::Dashboard,
                owner,
                name: name.clone(),
                body: definition,
                updated_at: now(),
                updated_by: owner,
            })],
        )
        .await?;
        Ok(DashboardImport {
            name,
            widgets,
            replaced: existing.is_some(),
        })
    }

    /// `POST /repository/dashboard/export`: the definition of one of the caller's
    /// dashboards, as importing it takes it back.
    pub async fn export_dashboard(&self, caller: &Caller, name: &str) -> Result<Json> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        self.store
            .document(DocumentKind::Dashboard, Some(caller.user()), name.trim())
            .await?
            .map(|d| d.body)
            .ok_or_else(|| {
                Error::not_found(format!("you have no dashboard named '{}'", name.trim()))
            })
    }

    /// `POST /License/updateLicense`: checks and keeps the license record (Administer):
    /// `licensee`, `expiresAt` (a date in the future), optional `edition`, `seats` (at
    /// least 1) and `key`. A record that is no license (a missing or unknown field, a
    /// bad date, an expired license) is LICENSE_ERROR, and the license stays as it was.
    pub async fn update_license(&self, caller: &Caller, record: &Json) -> Result<LicenseRecord> {
        caller.require(Capability::Administer)?;
        let Json::Object(fields) = record else {
            return Err(license_error(
                "a license is a JSON object: licensee, expiresAt, and optionally edition, seats, key",
            ));
        };
        if let Some(unknown) = fields
            .keys()
            .find(|k| !LICENSE_FIELDS.contains(&k.as_str()))
        {
            return Err(license_error(format!(
                "a license has no field '{unknown}'; its fields are {}",
                LICENSE_FIELDS.join(", ")
            )));
        }
        let text = |name: &str, fields: &Map<String, Json>| -> Result<Option<String>> {
            match fields.get(name) {
                None | Some(Json::Null) => Ok(None),
                Some(Json::String(s)) if !s.trim().is_empty() => Ok(Some(s.trim().to_owned())),
                Some(other) => Err(license_error(format!(
                    "the license's {name} is non-empty text, not {other}"
                ))),
            }
        };
        let licensee = text("licensee", fields)?
            .ok_or_else(|| license_error("the license names no licensee"))?;
        let expires = text("expiresAt", fields)?
            .ok_or_else(|| license_error("the license has no expiresAt date"))?;
        let expires_at = parse_datetime(&expires).ok_or_else(|| {
            license_error(format!(
                "the license's expiresAt '{expires}' is not a date (YYYY-MM-DD or RFC 3339)"
            ))
        })?;
        let today = now();
        if expires_at <= today {
            return Err(license_error(format!(
                "the license expired on {}",
                crate::model::format_datetime(&expires_at)
            )));
        }
        let seats = match fields.get("seats") {
            None | Some(Json::Null) => None,
            Some(v) => Some(v.as_u64().filter(|n| *n >= 1).ok_or_else(|| {
                license_error(format!(
                    "the license's seats is a whole number of at least 1, not {v}"
                ))
            })?),
        };
        let edition = text("edition", fields)?;
        let key = text("key", fields)?;
        let mut body = Map::new();
        body.insert("licensee".into(), Json::String(licensee));
        body.insert(
            "expiresAt".into(),
            Json::String(crate::model::format_datetime(&expires_at)),
        );
        if let Some(edition) = edition {
            body.insert("edition".into(), Json::String(edition));
        }
        if let Some(seats) = seats {
            body.insert("seats".into(), Json::from(seats));
        }
        if let Some(key) = key {
            body.insert("key".into(), Json::String(key));
        }
        let document = Document {
            kind: DocumentKind::License,
            owner: None,
            name: "license".into(),
            body: Json::Object(body),
            updated_at: today,
            updated_by: Some(caller.user()),
        };
        self.write(caller.author(), vec![Op::PutDocument(document.clone())])
            .await?;
        Ok(license_record(&document))
    }
}

fn license_record(document: &Document) -> LicenseRecord {
    let body = &document.body;
    let text = |name: &str| body[name].as_str().map(str::to_owned);
    let expires_at = text("expiresAt").unwrap_or_default();
    let days_left = parse_datetime(&expires_at).map_or(0, |t| (t - document.updated_at).num_days());
    LicenseRecord {
        licensee: text("licensee").unwrap_or_default(),
        edition: text("edition"),
        seats: body["seats"].as_u64(),
        expires_at,
        days_left,
        key: text("key").map(|k| {
            let chars: Vec<char> = k.chars().collect();
            let shown: String = chars[chars.len().saturating_sub(4)..].iter().collect();
            format!("{}{shown}", "*".repeat(chars.len().saturating_sub(4)))
        }),
        updated_at: crate::model::format_datetime(&document.updated_at),
    }
}
