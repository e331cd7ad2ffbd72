//! MQL queries: validation (`GET /entities/validateMQLQuery`) and the upgrade to current
//! syntax (`POST /entities/upgradeMQLQuery`).

use serde::{Deserialize, Serialize};

use super::Search;
use crate::auth::Caller;
use crate::catalog::Catalog;
use crate::error::{Error, ErrorCode, Result};
use crate::id::ObjectRef;
use crate::model::MetaModel;
use crate::mql::Query;
use crate::mql::parse::{QueryFields, parse_fields};
use crate::mql::upgrade::upgrade;
use crate::mql::validate::{CURRENT_VERSION, Validated, validate};

/// What validating a query found: it is valid (an invalid query is an error naming what
/// is wrong), here is the query in current MQL syntax, and what may surprise when it runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct QueryValidation {
    pub valid: bool,
    /// The query written back in current syntax (`mqlVersion` 3): keywords in upper case,
    /// notation marks dropped.
    pub query: String,
    /// Why the query may give surprising results (spec section 7): unknown attributes, a
    /// FROM id that does not exist, names of earlier MQL versions.
    pub warnings: Vec<String>,
    /// With `explain=true`: how the query runs.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub explain: Option<Explain>,
}

/// How a query runs: the plan every backend runs and, on the SQL backends, the statement
/// of its first page and the database's own plan of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Explain {
    pub plan: serde_json::Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sql: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub database_plan: Option<Vec<String>>,
}

/// A query as a call brings it to the catalog.
#[derive(Debug, Clone, Copy)]
pub enum MqlQuery<'a> {
    /// The clauses of a request as text, in an MQL version (the query endpoints).
    Text {
        fields: &'a QueryFields<'a>,
        version: u32,
    },
    /// A query built in code ([`crate::mql::build`]) or parsed already, in current MQL.
    Built(&'a Query),
}

impl<'a> From<&'a Query> for MqlQuery<'a> {
    fn from(query: &'a Query) -> Self {
        MqlQuery::Built(query)
    }
}

impl<'a> MqlQuery<'a> {
    /// The clauses of a request in an MQL version.
    pub fn text(fields: &'a QueryFields<'a>, version: u32) -> Self {
        MqlQuery::Text { fields, version }
    }
}

/// The MQL version of an `mqlVersion` parameter: 1 to 3, 3 when absent.
pub fn mql_version(text: Option<&str>) -> Result<u32> {
    let Some(text) = text.map(str::trim).filter(|t| !t.is_empty()) else {
        return Ok(CURRENT_VERSION);
    };
    match text.parse::<u32>() {
        Ok(version @ 1..=CURRENT_VERSION) => Ok(version),
        _ => Err(Error::invalid(format!(
            "mqlVersion '{text}' is not an MQL version: 1, 2 or {CURRENT_VERSION}"
        ))),
    }
}

impl Search<'_> {
    /// `GET /entities/validateMQLQuery`: parses and validates a query against the meta
    /// model; unknown FROM and CONTEXT ids are warnings, as the query would find nothing.
    pub async fn validate_query(
        &self,
        caller: &Caller,
        query: MqlQuery<'_>,
        explain: bool,
    ) -> Result<QueryValidation> {
        let sight = self.sight(caller).await?;
        let meta = self.meta_model_for(caller).await?;
        let validated = Catalog::checked_query(query, &meta)?;
        // An asOf that names no kept version is refused here too.
        self.version().await?;
        let (query, mut warnings) = (validated.query, validated.warnings);
        // FROM a model's version is checked as the query would run it.
        let versioned = match self.versioned_from(caller, &query).await {
            Ok(found) => found.is_some(),
            Err(e) if e.code == ErrorCode::InvalidParameter => {
                warnings.push(e.message.clone());
                true
            }
            // The model names nothing the caller sees: the loop below says so.
            Err(e)
                if matches!(
                    e.code,
                    ErrorCode::ObjectNotFound | ErrorCode::InvalidRepositoryPath
                ) =>
            {
                false
            }
            Err(e) => return Err(e),
        };
        if versioned && self.as_of.is_some() {
            // As running it would answer.
            self.moment(Some(0)).await?;
        }
        let sources = [
            ("FROM", query.from.as_ref().map(|f| &f.id)),
            ("CONTEXT", query.context.as_ref()),
        ];
        for (clause, id) in sources {
            let Some(id) = id else { continue };
            if clause == "FROM" && versioned {
                continue;
            }
            // The same words for a missing object and one the caller cannot see.
            match self.find(caller, &ObjectRef::parse(&id.text)?).await {
                Ok(_) => {}
                Err(e)
                    if matches!(
                        e.code,
                        ErrorCode::ObjectNotFound | ErrorCode::InvalidRepositoryPath
                    ) =>
                {
                    warnings.push(format!(
                        "{clause} '{}' does not exist; running the query answers {}",
                        id.text, e.code
                    ))
                }
                Err(e) => return Err(e),
            }
        }
        let explain = if explain {
            let (mut plan, mut more) = self
                .plan(
                    caller,
                    &sight,
                    &self.hidden_data(caller).await?,
                    &query,
                    &meta,
                )
                .await?;
            plan.as_of = self.moment(plan.as_of).await?;
            warnings.append(&mut more);
            let page = crate::mql::plan::Page {
                offset: 0,
                limit: crate::catalog::search::execute::DEFAULT_PAGE_SIZE,
            };
            let store = self.store.explain(&plan, page).await?;
            Some(Explain {
                plan: serde_json::to_value(&plan)
                    .map_err(|e| Error::internal(format!("showing a plan: {e}")))?,
                sql: store.as_ref().map(|s| s.sql.clone()),
                database_plan: store.map(|s| s.database_plan),
            })
        } else {
            None
        };
        Ok(QueryValidation {
            valid: true,
            query: query.to_string(),
            warnings,
            explain,
        })
    }
}

impl Catalog {
    /// Parses the fields of a query and validates it for its version (after the caller's
    /// capability is checked): what every query endpoint starts with. A built query is
    /// validated as current MQL.
    pub(crate) fn checked_query<'m>(
        query: MqlQuery<'_>,
        meta: &'m MetaModel,
    ) -> Result<Validated<'m>> {
        match query {
            MqlQuery::Text { fields, version } => validate(&parse_fields(fields)?, meta, version),
            MqlQuery::Built(query) => validate(query, meta, CURRENT_VERSION),
        }
    }
}

/// A query rewritten in current MQL syntax, clause by clause as the query endpoints take
/// them (`POST /entities/upgradeMQLQuery`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UpgradedQuery {
    pub select: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub scope: Option<String>,
    #[serde(rename = "where", skip_serializing_if = "Option::is_none")]
    pub filter: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub orderby: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// Always the current version.
    pub mql_version: u32,
    /// What could not be rewritten, and what the rewritten query would find nothing for.
    pub warnings: Vec<String>,
}

/// Items written with `, ` between them.
fn listed<T: std::fmt::Display>(items: &[T]) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(", ")
}

impl Search<'_> {
    /// `POST /entities/upgradeMQLQuery`: validates the query in its version, rewrites it
    /// in current syntax and validates the result.
    pub async fn upgrade_query(
        &self,
        caller: &Caller,
        fields: &QueryFields<'_>,
        version: u32,
    ) -> Result<UpgradedQuery> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let meta = self.meta_model_for(caller).await?;
        // An earlier version's query comes back upgraded; a current one may still use
        // earlier names (with warnings), which the upgrade replaces.
        let validated = Catalog::checked_query(MqlQuery::text(fields, version), &meta)?;
        let warnings = validated.warnings;
        let (mut upgraded, _) = upgrade(&validated.query, &meta);
        let scope = upgraded.from.as_mut().and_then(|f| f.scope.take());
        Ok(UpgradedQuery {
            select: listed(&upgraded.select),
            from: upgraded.from.as_ref().map(ToString::to_string),
            scope: scope.as_ref().map(ToString::to_string),
            filter: upgraded.filter.as_ref().map(ToString::to_string),
            orderby: (!upgraded.order_by.is_empty()).then(|| listed(&upgraded.order_by)),
            context: upgraded.context.as_ref().map(ToString::to_string),
            mql_version: CURRENT_VERSION,
            warnings,
        })
    }
}
