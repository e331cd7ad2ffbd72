//! MQL as of a version (`asOf`, `FROM '<model>@<number>'`): which version a query reads,
//! and the reads of a page's objects, children and ancestors then. Profiling, which is
//! not kept, is guarded here too. The rest of running a query is `execute.rs`.

use std::collections::HashMap;

use super::Search;
use super::execute::mentions_profiling;
use crate::auth::Caller;
use crate::catalog::Catalog;
use crate::error::{Error, Result};
use crate::id::{ObjectId, ObjectRef};
use crate::model::{Object, ObjectKind};
use crate::mql::ast::Query;
use crate::mql::eval;
use crate::mql::plan::{Column, Cond, Field, Page, Plan, Relation, SortKey};

impl Catalog {
    /// A FROM that names a model's version, `<model id or path>@<number>` (the number
    /// `GET /history/models/{modelId}/versions` lists): the query with FROM the model,
    /// and the catalog version to read it as of. `None` for any other FROM, and for one
    /// whose whole text names an object (a name may hold `@`). A model the caller cannot
    /// see is not found, as everywhere; a version the model never had, or one older than
    /// the history kept, is INVALID_PARAMETER.
    pub(crate) async fn versioned_from(
        &self,
        caller: &Caller,
        query: &Query,
    ) -> Result<Option<(Query, i64)>> {
        let Some(from) = &query.from else {
            return Ok(None);
        };
        let text = from.id.text.trim();
        // A configuration version pinned at a revision: its models as they were then.
        if let Ok(whole) = ObjectRef::parse(text)
            && let Ok(object) = self.find(caller, &whole).await
            && let Some(pin) = self.history().pin_of(&object).await?
        {
            let version = self
                .history()
                .revision_of(crate::catalog::AsOf::Version(pin))
                .await
                .map_err(|e| match e.code {
                    crate::error::ErrorCode::InvalidParameter => Error::invalid(format!(
                        "FROM '{text}': the configuration version is pinned at version {pin}, \
                         which the history no longer keeps ({}); pin it again",
                        e.message
                    )),
                    _ => e,
                })?
                .version;
            return Ok(Some((query.clone(), version)));
        }
        let Some((model, number)) = text.rsplit_once('@') else {
            return Ok(None);
        };
        if number.is_empty() || !number.bytes().all(|b| b.is_ascii_digit()) {
            return Ok(None);
        }
        if let Ok(whole) = ObjectRef::parse(text)
            && self.find(caller, &whole).await.is_ok()
        {
            return Ok(None);
        }
        let object = self.find(caller, &ObjectRef::parse(model)?).await?;
        if object.kind != ObjectKind::Model {
            return Err(Error::invalid(format!(
                "FROM '{text}': '{model}' is a {}; only a model has versions",
                object.kind.as_str().to_lowercase()
            )));
        }
        let no_such = || {
            Error::invalid(format!(
                "FROM '{text}': the model has no version {number} (GET /history/models/{}/versions lists them)",
                object.id
            ))
        };
        let number: i64 = number.parse().map_err(|_| no_such())?;
        let found = self
            .store
            .model_versions(object.id.content_model(), number.checked_add(1), 1)
            .await?
            .into_iter()
            .find(|v| v.number == number)
            .ok_or_else(no_such)?;
        // Refused, as an asOf is, when retention has purged what it read.
        let version = self
            .history()
            .revision_of(crate::catalog::AsOf::Version(found.revision.version))
            .await?
            .version;
        let mut query = query.clone();
        if let Some(from) = &mut query.from {
            from.id.text = model.to_owned();
        }
        Ok(Some((query, version)))
    }
}

impl Search<'_> {
    /// The objects of these ids, with what hangs on them: now, or as of a kept version.
    pub(super) async fn read_at(
        &self,
        ids: &[ObjectId],
        version: Option<i64>,
    ) -> Result<(Vec<Object>, crate::store::Details)> {
        match version {
            None => self.stored_with_details(ids).await,
            Some(version) => self.objects_then(ids, version).await,
        }
    }

    /// The children of each page object (a model's top-level objects for a model), each
    /// list sorted by name then id, under the object's [`child_key`]: now, or as of a
    /// kept version (one query for the whole page).
    pub(super) async fn children_at(
        &self,
        page: &[Object],
        version: Option<i64>,
    ) -> Result<HashMap<(i64, Option<i64>), Vec<ObjectId>>> {
        let key = |object: &Object| {
            let (model, parent) = child_key(object);
            (model, parent.map(|p| p.object))
        };
        let mut found = HashMap::new();
        let Some(version) = version else {
            for object in page {
                let (model, parent) = child_key(object);
                let children = self.store.children(model, parent).await?;
                found.insert(key(object), children.iter().map(|c| c.id).collect());
            }
            return Ok(found);
        };
        let plan = Plan {
            filter: Cond::Related(
                Relation::Parent,
                Box::new(Cond::Ids(page.iter().map(|o| o.id).collect())),
            ),
            visibility: Cond::True,
            order: vec![SortKey {
                field: Field::Column(Column::Name),
                descending: false,
            }],
            as_of: Some(version),
        };
        let all = Page {
            offset: 0,
            limit: u64::MAX,
        };
        let children = self.store.query(&plan, all).await?;
        let (objects, _) = self.read_at(&children, Some(version)).await?;
        let parents: HashMap<ObjectId, Option<ObjectId>> =
            objects.iter().map(|o| (o.id, eval::parent_id(o))).collect();
        let by_id: HashMap<ObjectId, &Object> = page.iter().map(|o| (o.id, o)).collect();
        for object in page {
            found.insert(key(object), Vec::new());
        }
        for child in children {
            if let Some(parent) = parents
                .get(&child)
                .copied()
                .flatten()
                .and_then(|p| by_id.get(&p))
            {
                found.entry(key(parent)).or_default().push(child);
            }
        }
        Ok(found)
    }

    /// An object's ancestors, root first: today's, or as of the version from the page's
    /// ancestors read before ([`Catalog::contexts_as_of`]).
    pub(super) async fn context_from(
        &self,
        object: &Object,
        contexts: &HashMap<ObjectId, Vec<Object>>,
        version: Option<i64>,
    ) -> Result<Vec<Object>> {
        match version {
            Some(_) => Ok(contexts.get(&object.id).cloned().unwrap_or_default()),
            None => self.context(object).await,
        }
    }
}

/// Where an object's children are kept: (model, parent) of `ObjectStore::children`.
pub(super) fn child_key(object: &Object) -> (i64, Option<ObjectId>) {
    if object.kind == ObjectKind::Model {
        (object.id.content_model(), None)
    } else {
        (object.id.model, Some(object.id))
    }
}

/// The condition with every test of profiling results made to fail on objects whose
/// data is hidden.
/// Why a caller whose data is hidden somewhere may not filter or count by profiling as of
/// a version.
pub(super) const PROFILING_NOT_KEPT: &str = "profiling and sampling are not kept in history: as of a \
     version, only a caller who may view all data filters or counts by them";

/// Refuses a plan as of a version that filters by profiling for a caller whose data is
/// hidden somewhere: whether an object's data is hidden is judged as it was then, but
/// its profiling is today's, so a time before a column was hidden would show its values.
pub(super) fn profiling_kept_now(plan: &Plan, hidden: &Cond) -> Result<()> {
    if plan.as_of.is_some() && *hidden != Cond::False && mentions_profiling(&plan.filter) {
        return Err(Error::invalid(PROFILING_NOT_KEPT));
    }
    Ok(())
}
