//! Semantic mapping, data model and glossary: semantic links, entity relationships,
//! glossary terms, classifying objects with terms, and a term's usage report. Every
//! parameter is a query parameter; `POST /entities/glossary` also takes the term's
//! references as an optional JSON body.

use axum::extract::{Path, Request, State};
use axum::response::Response;
use lore_core::Error;
use lore_core::catalog::{TermChoice, TermRequest};
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, Params, body_bytes, optional_json};

/// The two ends of a semantic link or entity relationship.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct LinkParams {
    /// The object the link starts from (id, stable id or repository path).
    pub source_object_id: Option<String>,
    /// The object it points to.
    pub target_object_id: Option<String>,
    /// Entity relationships only: the relationship's name (DELETE without it removes
    /// every relationship between the two).
    pub name: Option<String>,
}

impl LinkParams {
    fn ends(&self) -> Result<(&str, &str), Error> {
        let source = present(self.source_object_id.as_deref())
            .ok_or_else(|| Error::missing("sourceObjectId"))?;
        let target = present(self.target_object_id.as_deref())
            .ok_or_else(|| Error::missing("targetObjectId"))?;
        Ok((source, target))
    }
}

fn present(value: Option<&str>) -> Option<&str> {
    value.map(str::trim).filter(|v| !v.is_empty())
}

/// Links an object to the object that defines it, usually a glossary term (Edit
/// Metadata on the source). Linking twice is a no-op.
#[utoipa::path(post, path = "/semanticMapping/semanticLink", tag = "Semantic Mapping", security(("api_key" = ["EditMetadata"])),
    params(LinkParams),
    responses((status = 200, description = "Linked; `result` is \"\""),
        (status = 400, description = "A missing end, an end outside a model, or an object linked to itself"),
        (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without Edit Metadata on the source, or without sight of an end"),
        (status = 404, description = "No such object")))]
pub async fn add_semantic_link(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<LinkParams>,
) -> ApiResult<Response> {
    let (source, target) = params.ends()?;
    state
        .catalog
        .governance()
        .add_semantic_link(&caller, source, target)
        .await?;
    Ok(ok(""))
}

/// Removes the semantic link between two objects (Edit Metadata on the source).
#[utoipa::path(delete, path = "/semanticMapping/semanticLink", tag = "Semantic Mapping", security(("api_key" = ["EditMetadata"])),
    params(LinkParams),
    responses((status = 200, description = "Removed; `result` is \"\""),
        (status = 400, description = "A missing end"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without Edit Metadata on the source"),
        (status = 404, description = "No such object, or no link between them")))]
pub async fn remove_semantic_link(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<LinkParams>,
) -> ApiResult<Response> {
    let (source, target) = params.ends()?;
    state
        .catalog
        .governance()
        .remove_semantic_link(&caller, source, target)
        .await?;
    Ok(ok(""))
}

/// Relates two classifiers (tables, files, entities) of one model under a name (Edit
/// Metadata on the model).
#[utoipa::path(post, path = "/dataModel/entityRelationship", tag = "Data Model", security(("api_key" = ["EditMetadata"])),
    params(LinkParams),
    responses((status = 200, description = "Related; `result` is \"\""),
        (status = 400, description = "A missing end, an end that is no classifier, or ends in different models"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without Edit Metadata on the model"),
        (status = 404, description = "No such object")))]
pub async fn add_entity_relationship(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<LinkParams>,
) -> ApiResult<Response> {
    let (source, target) = params.ends()?;
    state
        .catalog
        .governance()
        .add_entity_relationship(&caller, source, target, params.name.as_deref())
        .await?;
    Ok(ok(""))
}

/// Removes the entity relationship of that name between two classifiers, or every one
/// between them without a name (Edit Metadata on the model).
#[utoipa::path(delete, path = "/dataModel/entityRelationship", tag = "Data Model", security(("api_key" = ["EditMetadata"])),
    params(LinkParams),
    responses((status = 200, description = "Removed; `result` is \"\""),
        (status = 400, description = "A missing end"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without Edit Metadata on the model"),
        (status = 404, description = "No such object, or no such relationship")))]
pub async fn remove_entity_relationship(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<LinkParams>,
) -> ApiResult<Response> {
    let (source, target) = params.ends()?;
    state
        .catalog
        .governance()
        .remove_entity_relationship(&caller, source, target, present(params.name.as_deref()))
        .await?;
    Ok(ok(""))
}

/// Deprecated: `POST /dataModel/entityRelationship`, which it answers.
#[utoipa::path(post, path = "/repository/createRelationship", tag = "Data Model", security(("api_key" = ["EditMetadata"])),
    params(LinkParams),
    responses((status = 200, description = "As POST /dataModel/entityRelationship"),
        (status = 400, description = "A missing end, an end that is no classifier, or ends in different models"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without Edit Metadata on the model"),
        (status = 404, description = "No such object")))]
#[deprecated]
pub async fn create_relationship(
    state: State<AppState>,
    caller: Authenticated,
    params: Params<LinkParams>,
) -> ApiResult<Response> {
    add_entity_relationship(state, caller, params).await
}

/// Where a term is, or is to be created.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct GlossaryParams {
    /// The model holding the terms (id or repository path).
    pub glossary_id: Option<String>,
    /// The term's path inside the model, names separated by `/`; missing parent terms
    /// are created.
    pub term_path: Option<String>,
    /// Deprecated (release 11.0, spec 2.5): the old name of `termPath`.
    pub category_path: Option<String>,
    /// Sets the term's description.
    pub description: Option<String>,
}

impl GlossaryParams {
    fn path(&self) -> Option<String> {
        present(self.term_path.as_deref())
            .or(present(self.category_path.as_deref()))
            .map(str::to_owned)
    }
}

/// The optional body of `POST /entities/glossary`.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TermBody {
    /// References from the term to other terms.
    #[serde(default)]
    pub references: Vec<TermReferenceBody>,
}

/// A GlossaryTermReference as a client writes it.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TermReferenceBody {
    /// `Synonym`, `See Also`, `Specializes`, `Generalizes`, `Possible Value`, `Possible
    /// Value Of`; the old `More General` and `More Specific` are read as `Specializes`
    /// and `Generalizes`.
    pub reference_type: String,
    /// The other term (id, stable id or path).
    pub term_id: String,
}

/// Finds or creates the term at `termPath` in a glossary model (with any missing parent
/// terms), sets its description and adds references to other terms (Edit Metadata on
/// the model). Answers the term as a legacy entity plus its `references`, their types
/// always in the release 11.0 names.
#[utoipa::path(post, path = "/entities/glossary", tag = "Glossary", security(("api_key" = ["EditMetadata"])),
    params(GlossaryParams), request_body(content = Option<TermBody>, description = "Optional: the term's references"),
    responses((status = 200, description = "The term: a legacy entity with `references: [{referenceType, term}]`"),
        (status = 400, description = "No glossaryId or termPath, a path through an object that is no term, or a bad reference"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without Edit Metadata on the model"),
        (status = 404, description = "No such model or referenced term")))]
pub async fn put_term(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<GlossaryParams>,
    request: Request,
) -> ApiResult<Response> {
    let body: TermBody = optional_json(&body_bytes(request, &state).await?)?.unwrap_or_default();
    let request = TermRequest {
        glossary: params.glossary_id.clone(),
        path: params.path(),
        description: params.description.clone(),
        references: body
            .references
            .into_iter()
            .map(|r| (r.reference_type, r.term_id))
            .collect(),
    };
    Ok(ok(state
        .catalog
        .governance()
        .put_term(&caller, &request)
        .await?))
}

/// How classify names the term: an existing one, or a path to create.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ClassifyParams {
    /// An existing term (id, stable id or path).
    pub term_id: Option<String>,
    /// Instead of `termId`: the model to create the term in...
    pub glossary_id: Option<String>,
    /// ...and its path there.
    pub term_path: Option<String>,
}

impl ClassifyParams {
    fn choice(&self) -> Result<TermChoice, Error> {
        if let Some(term) = present(self.term_id.as_deref()) {
            return Ok(TermChoice::Existing(term.to_owned()));
        }
        match (
            present(self.glossary_id.as_deref()),
            present(self.term_path.as_deref()),
        ) {
            (Some(glossary), Some(path)) => Ok(TermChoice::New {
                glossary: glossary.to_owned(),
                path: path.to_owned(),
            }),
            (Some(_), None) => Err(Error::missing("termPath")),
            _ => Err(Error::missing("termId (or glossaryId and termPath)")),
        }
    }
}

/// The parameters of the deprecated classify paths: the object too.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct DeprecatedClassifyParams {
    /// The object to classify or unclassify.
    pub object_id: Option<String>,
    /// An existing term (id, stable id or path).
    pub term_id: Option<String>,
    /// Instead of `termId`: the model to create the term in...
    pub glossary_id: Option<String>,
    /// ...and its path there.
    pub term_path: Option<String>,
}

impl DeprecatedClassifyParams {
    fn split(self) -> Result<(Path<String>, Params<ClassifyParams>), Error> {
        let object = present(self.object_id.as_deref())
            .ok_or_else(|| Error::missing("objectId"))?
            .to_owned();
        Ok((
            Path(object),
            Params(ClassifyParams {
                term_id: self.term_id,
                glossary_id: self.glossary_id,
                term_path: self.term_path,
            }),
        ))
    }
}

/// Classifies an object with a term, existing (`termId`) or created on the way
/// (`glossaryId` + `termPath`): a semantic link from the object to the term (Edit
/// Metadata on the object). Answers the object, `terms` included.
#[utoipa::path(put, path = "/entities/glossary/classify/{objectId}", tag = "Glossary", security(("api_key" = ["EditMetadata"])),
    params(("objectId" = String, Path, description = "The object to classify"), ClassifyParams),
    responses((status = 200, description = "The object as a legacy entity"),
        (status = 400, description = "No term named, or a term that is no glossary term"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without Edit Metadata on the object"),
        (status = 404, description = "No such object or term")))]
pub async fn classify(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object): Path<String>,
    Params(params): Params<ClassifyParams>,
) -> ApiResult<Response> {
    let choice = params.choice()?;
    Ok(ok(state
        .catalog
        .governance()
        .classify(&caller, &object, &choice)
        .await?))
}

/// Removes the classification of an object by `termId`, or by every term without it
/// (Edit Metadata on the object). Answers the object.
#[utoipa::path(put, path = "/entities/glossary/unclassify/{objectId}", tag = "Glossary", security(("api_key" = ["EditMetadata"])),
    params(("objectId" = String, Path, description = "The object to unclassify"), ClassifyParams),
    responses((status = 200, description = "The object as a legacy entity"),
        (status = 400, description = "A term that is no glossary term"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without Edit Metadata on the object"),
        (status = 404, description = "No such object or term, or the term does not classify the object")))]
pub async fn unclassify(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(object): Path<String>,
    Params(params): Params<ClassifyParams>,
) -> ApiResult<Response> {
    let term = present(params.term_id.as_deref());
    Ok(ok(state
        .catalog
        .governance()
        .unclassify(&caller, &object, term)
        .await?))
}

/// Deprecated: classifies `objectId` with a term; use POST /semanticMapping/semanticLink.
#[utoipa::path(put, path = "/entities/glossary/classify", tag = "Glossary", security(("api_key" = ["EditMetadata"])),
    params(DeprecatedClassifyParams),
    responses((status = 200, description = "As PUT /entities/glossary/classify/{objectId}"),
        (status = 400, description = "No objectId or term"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without Edit Metadata on the object"), (status = 404, description = "No such object or term")))]
#[deprecated]
pub async fn classify_deprecated(
    state: State<AppState>,
    caller: Authenticated,
    Params(params): Params<DeprecatedClassifyParams>,
) -> ApiResult<Response> {
    let (object, params) = params.split()?;
    classify(state, caller, object, params).await
}

/// Deprecated: unclassifies `objectId`; use DELETE /semanticMapping/semanticLink.
#[utoipa::path(put, path = "/entities/glossary/unclassify", tag = "Glossary", security(("api_key" = ["EditMetadata"])),
    params(DeprecatedClassifyParams),
    responses((status = 200, description = "As PUT /entities/glossary/unclassify/{objectId}"),
        (status = 400, description = "No objectId"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without Edit Metadata on the object"),
        (status = 404, description = "No such object or term, or the term does not classify the object")))]
#[deprecated]
pub async fn unclassify_deprecated(
    state: State<AppState>,
    caller: Authenticated,
    Params(params): Params<DeprecatedClassifyParams>,
) -> ApiResult<Response> {
    let (object, params) = params.split()?;
    unclassify(state, caller, object, params).await
}

/// The usage report of a term: the objects it classifies that the caller sees (View
/// Metadata), by name, as legacy entities.
#[utoipa::path(get, path = "/entities/reports/{termId}", tag = "Glossary", security(("api_key" = ["ViewMetadata"])),
    params(("termId" = String, Path, description = "The term (id, stable id or path)")),
    responses((status = 200, description = "An array of legacy entities"),
        (status = 400, description = "Not a glossary term"), (status = 401, description = "Missing or invalid key"),
        (status = 403, description = "Without View Metadata on the term"), (status = 404, description = "No such term")))]
pub async fn term_reports(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(term): Path<String>,
) -> ApiResult<Response> {
    Ok(ok(state
        .catalog
        .governance()
        .term_reports(&caller, &term)
        .await?))
}
