//! The meta model as XML: import, export, and the deprecated read of one attribute type.
//! The format is in `docs/meta-model-xml.md`.

use std::io::Read;

use axum::extract::{Path, Request, State};
use axum::http::header::{CONTENT_DISPOSITION, CONTENT_TYPE};
use axum::response::{IntoResponse, Response};
use lore_core::Error;
use serde::Deserialize;
use serde_json::json;
use utoipa::IntoParams;

use crate::AppState;
use crate::error::{ApiResult, ok};
use crate::extract::{Authenticated, Params};
use crate::upload::{META_MODEL_XML, spool_upload};

/// Adds or changes the custom attribute types, custom relationships, profile attributes
/// and object types an XML file defines, all or none (Manage Meta Model). A type keeps
/// its kind and value type once defined (409 otherwise).
#[utoipa::path(post, path = "/repository/metaModel/importXML", tag = "Repository", security(("api_key" = ["ManageMetaModel"])),
    request_body(content = String, content_type = "application/xml", description = "A `<metaModel formatVersion=\"1\">` file (docs/meta-model-xml.md), raw or as a multipart file"),
    responses((status = 200, description = "`{attributeTypes: {added, updated, unchanged}, objectTypes: {...}}`"),
        (status = 400, description = "Not the format, or a definition it cannot keep; the message names it"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without Manage Meta Model"),
        (status = 409, description = "A type would change its kind or value type"),
        (status = 413, description = "Larger than server.max_upload_mib"), (status = 415, description = "Not XML or multipart")))]
pub async fn import_xml(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    request: Request,
) -> ApiResult<Response> {
    // The capability first: a denied caller's upload is not read.
    caller.require(lore_core::model::Capability::ManageMetaModel)?;
    let (mut file, _) = spool_upload(request, &state, &META_MODEL_XML).await?;
    let mut bytes = Vec::new();
    file.read_to_end(&mut bytes)
        .map_err(|e| Error::internal(format!("cannot read the spooled upload: {e}")))?;
    Ok(ok(state
        .catalog
        .objects()
        .import_meta_model_xml(&caller, &bytes)
        .await?))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ExportXmlParams {
    /// Only the definitions of this profile (a meta model package); all added at run
    /// time when absent.
    pub package: Option<String>,
}

/// The meta model added at run time as an XML file that importXML reads back (View
/// Metadata).
#[utoipa::path(post, path = "/repository/metaModel/exportXML", tag = "Repository", security(("api_key" = ["ViewMetadata"])),
    params(ExportXmlParams),
    responses((status = 200, description = "The XML file", content_type = "application/xml"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without View Metadata"),
        (status = 404, description = "No such profile")))]
pub async fn export_xml(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Params(params): Params<ExportXmlParams>,
) -> ApiResult<Response> {
    let package = params
        .package
        .as_deref()
        .map(str::trim)
        .filter(|p| !p.is_empty());
    let bytes = state
        .catalog
        .objects()
        .export_meta_model_xml(&caller, package)
        .await?;
    Ok((
        [
            (CONTENT_TYPE, "application/xml; charset=utf-8"),
            (
                CONTENT_DISPOSITION,
                "attachment; filename=\"meta-model.xml\"",
            ),
        ],
        bytes,
    )
        .into_response())
}

/// Deprecated: one attribute type by name (its id); use POST
/// /repository/metaModel/exportXML.
#[utoipa::path(get, path = "/repository/customAttributes/{nameOrId}", tag = "Repository", security(("api_key" = ["ViewMetadata"])),
    params(("nameOrId" = String, Path, description = "The attribute type's name (which is its id)")),
    responses((status = 200, description = "`{id, name, displayName, type, valueType, profile, group, description}`"),
        (status = 401, description = "Missing or invalid key"), (status = 403, description = "Without View Metadata"),
        (status = 404, description = "No such attribute type")))]
#[deprecated]
pub async fn custom_attribute(
    State(state): State<AppState>,
    Authenticated(caller): Authenticated,
    Path(name): Path<String>,
) -> ApiResult<Response> {
    let (info, description) = state
        .catalog
        .objects()
        .attribute_type_named(&caller, &name)
        .await?;
    let mut value = serde_json::to_value(&info)
        .map_err(|e| Error::internal(format!("cannot write an attribute type: {e}")))?;
    value["id"] = json!(info.name);
    value["description"] = json!(description);
    Ok(ok(value))
}
