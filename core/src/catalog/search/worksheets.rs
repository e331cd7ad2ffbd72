//! Worksheets: queries a user saves under a name (`/worksheets`) and runs again
//! (`POST /entities/executeWorksheet`, `GET /entities/countWorksheet`).
//!
//! A worksheet belongs to the user who saved it. Other users do not see it: to them it
//! is absent (OBJECT_NOT_FOUND), except to an administrator, who sees and deletes every
//! user's. Running one is running its clauses as `executeMQLQuery` would, for the caller.

use super::Search;
use crate::auth::Caller;
use crate::catalog::Catalog;
use crate::catalog::MqlQuery;
use crate::catalog::search::execute::{PageRequest, QueryResult};
use crate::error::{Error, Result};
use crate::id::{ObjectId, REPOSITORY_MODEL};
use crate::model::{Capability, SavedQuery, Worksheet};
use crate::mql::parse::QueryFields;
use crate::store::Op;

/// The longest worksheet name, in characters.
pub const MAX_WORKSHEET_NAME_CHARS: usize = 256;

/// What saving a worksheet takes (`POST /worksheets`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NewWorksheet {
    pub name: String,
    pub description: String,
    pub query: SavedQuery,
}

/// How a request names a worksheet: by id, or by the name of one of the caller's own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorksheetRef {
    Id(ObjectId),
    /// Compared case-insensitively among the caller's worksheets.
    Name(String),
}

/// The query endpoints' fields of saved clauses.
fn fields(query: &SavedQuery) -> QueryFields<'_> {
    QueryFields {
        select: &query.select,
        from: query.from.as_deref(),
        scope: query.scope.as_deref(),
        context: query.context.as_deref(),
        filter: query.filter.as_deref(),
        order_by: query.order_by.as_deref(),
    }
}

/// A clause as given, or `None` when it is blank (as the query endpoints read it).
fn clause(text: Option<String>) -> Option<String> {
    text.filter(|t| !t.trim().is_empty())
}

impl Search<'_> {
    /// `POST /worksheets`: saves a query under a name among the caller's worksheets. The
    /// query is validated as `validateMQLQuery` would (an invalid one is refused with the
    /// validator's message); a name the caller already uses, in any case, is CONFLICT.
    pub async fn create_worksheet(&self, caller: &Caller, new: NewWorksheet) -> Result<Worksheet> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let name = new.name.trim();
        if name.is_empty() {
            return Err(Error::missing("name"));
        }
        if name.chars().count() > MAX_WORKSHEET_NAME_CHARS {
            return Err(Error::invalid(format!(
                "a worksheet name has at most {MAX_WORKSHEET_NAME_CHARS} characters"
            )));
        }
        let query = SavedQuery {
            select: new.query.select,
            from: clause(new.query.from),
            scope: clause(new.query.scope),
            filter: clause(new.query.filter),
            order_by: clause(new.query.order_by),
            context: clause(new.query.context),
            mql_version: new.query.mql_version,
        };
        let meta = self.meta_model_for(caller).await?;
        Catalog::checked_query(MqlQuery::text(&fields(&query), query.mql_version), &meta)?;
        if self
            .store
            .worksheet_by_name(caller.user(), name)
            .await?
            .is_some()
        {
            return Err(Error::conflict(format!(
                "a worksheet named '{name}' already exists"
            )));
        }
        let id = ObjectId::repository(self.store.reserve_ids(REPOSITORY_MODEL, 1).await?);
        let now = crate::model::now();
        let worksheet = Worksheet {
            id,
            name: name.to_owned(),
            owner: caller.user(),
            description: new.description,
            query,
            created_at: now,
            updated_at: now,
        };
        // The store's unique key refuses a concurrent save of the same name.
        self.write(caller.author(), vec![Op::PutWorksheet(worksheet.clone())])
            .await?;
        Ok(worksheet)
    }

    /// `GET /worksheets`: the caller's worksheets by name, or with `everyone` (for
    /// administrators only) every user's.
    pub async fn list_worksheets(&self, caller: &Caller, everyone: bool) -> Result<Vec<Worksheet>> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        if everyone {
            caller.require(Capability::Administer)?;
            return self.store.worksheets(None).await;
        }
        self.store.worksheets(Some(caller.user())).await
    }

    /// `GET /worksheets/{worksheetId}`: one worksheet the caller may see.
    pub async fn get_worksheet(
        &self,
        caller: &Caller,
        worksheet: &WorksheetRef,
    ) -> Result<Worksheet> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        self.visible_worksheet(caller, worksheet).await
    }

    /// `DELETE /worksheets/{worksheetId}`: deletes a worksheet of the caller's (any
    /// user's for an administrator).
    pub async fn delete_worksheet(&self, caller: &Caller, worksheet: &WorksheetRef) -> Result<()> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let worksheet = self.visible_worksheet(caller, worksheet).await?;
        self.write(caller.author(), vec![Op::DeleteWorksheet(worksheet.id)])
            .await
    }

    /// `POST /entities/executeWorksheet`: one page of the objects of the worksheet's
    /// query, run for the caller as `executeMQLQuery` runs it.
    pub async fn execute_worksheet(
        &self,
        caller: &Caller,
        worksheet: &WorksheetRef,
        page: PageRequest,
        legacy: bool,
    ) -> Result<QueryResult> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let worksheet = self.visible_worksheet(caller, worksheet).await?;
        let query = &worksheet.query;
        self.execute_query(
            caller,
            MqlQuery::text(&fields(query), query.mql_version),
            page,
            legacy,
        )
        .await
    }

    /// `GET /entities/countWorksheet`: how many objects the worksheet's query finds.
    pub async fn count_worksheet(&self, caller: &Caller, worksheet: &WorksheetRef) -> Result<u64> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let worksheet = self.visible_worksheet(caller, worksheet).await?;
        let query = &worksheet.query;
        self.count_query(caller, MqlQuery::text(&fields(query), query.mql_version))
            .await
    }

    /// The worksheet, if the caller owns it or is an administrator; anyone else's is
    /// answered as absent, so its existence does not leak.
    async fn visible_worksheet(
        &self,
        caller: &Caller,
        worksheet: &WorksheetRef,
    ) -> Result<Worksheet> {
        match worksheet {
            WorksheetRef::Id(id) => self
                .store
                .worksheet(*id)
                .await?
                .filter(|w| w.owner == caller.user() || caller.has(Capability::Administer))
                .ok_or_else(|| Error::not_found(format!("worksheet {id} does not exist"))),
            WorksheetRef::Name(name) => self
                .store
                .worksheet_by_name(caller.user(), name)
                .await?
                .ok_or_else(|| {
                    Error::not_found(format!(
                        "user '{}' has no worksheet named '{name}'",
                        caller.name()
                    ))
                }),
        }
    }
}
