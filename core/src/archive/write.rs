//! Writing an archive deterministically: the same [`ModelArchive`] always gives the same
//! bytes, whatever the order of its rows.

use std::io::{Cursor, Write};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

use super::read::spec::{self, FileSpec};
use super::{FORMAT_VERSION, ModelArchive};
use crate::error::{Error, Result};

/// Writes the archive: files and rows in a canonical order, fixed timestamps, so the
/// same model always gives the same bytes.
pub fn write(archive: &ModelArchive) -> Result<Vec<u8>> {
    let archive = canonical(archive);
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .compression_level(Some(6))
        .last_modified_time(DateTime::default())
        .unix_permissions(0o644)
        .large_file(false);
    let mut zip = ZipWriter::new(Cursor::new(Vec::new()));
    for (file, rows) in tables(&archive)? {
        let always = file.name == spec::MODEL.name || file.name == spec::OBJECTS.name;
        if rows.is_empty() && !always {
            continue;
        }
        let data = csv_bytes(file, &rows)?;
        zip.start_file(file.name, options)
            .map_err(|e| failed(file, e))?;
        zip.write_all(&data).map_err(|e| failed(file, e))?;
    }
    let cursor = zip
        .finish()
        .map_err(|e| Error::internal(format!("model archive: cannot finish the zip: {e}")))?;
    Ok(cursor.into_inner())
}

fn failed(file: &FileSpec, e: impl std::fmt::Display) -> Error {
    Error::internal(format!("model archive: cannot write {}: {e}", file.name))
}

/// The archive with every list in its canonical order, the order [`write`] puts rows in.
pub(super) fn canonical(archive: &ModelArchive) -> ModelArchive {
    let mut a = archive.clone();
    a.objects.sort_by(|x, y| {
        (
            &x.native_id,
            &x.parent_native_id,
            &x.object_type,
            &x.name,
            &x.physical_name,
            &x.description,
        )
            .cmp(&(
                &y.native_id,
                &y.parent_native_id,
                &y.object_type,
                &y.name,
                &y.physical_name,
                &y.description,
            ))
            .then_with(|| {
                (
                    &x.business_name,
                    &x.business_description,
                    &x.data_type,
                    &x.external_url,
                    x.hide_data,
                    &x.workflow_state,
                )
                    .cmp(&(
                        &y.business_name,
                        &y.business_description,
                        &y.data_type,
                        &y.external_url,
                        y.hide_data,
                        &y.workflow_state,
                    ))
            })
    });
    a.attributes.sort_by(|x, y| {
        (&x.native_id, &x.attribute, &x.value, x.value_type.as_str()).cmp(&(
            &y.native_id,
            &y.attribute,
            &y.value,
            y.value_type.as_str(),
        ))
    });
    a.relationships.sort_by(|x, y| {
        (
            x.kind.as_str(),
            &x.name,
            &x.source_native_id,
            &x.target_native_id,
        )
            .cmp(&(
                y.kind.as_str(),
                &y.name,
                &y.source_native_id,
                &y.target_native_id,
            ))
    });
    a.tags.sort_by(|x, y| {
        (&x.native_id, x.kind.as_str(), &x.value).cmp(&(&y.native_id, y.kind.as_str(), &y.value))
    });
    a.classifications.sort_by(|x, y| {
        (&x.native_id, &x.data_class, x.status.as_str()).cmp(&(
            &y.native_id,
            &y.data_class,
            y.status.as_str(),
        ))
    });
    a.sensitivity_labels.sort_by(|x, y| {
        (&x.native_id, &x.label, x.status.as_str()).cmp(&(
            &y.native_id,
            &y.label,
            y.status.as_str(),
        ))
    });
    // Profiling rows sort by native id, then by their JSON text (ties only in odd archives).
    a.profiling.sort_by_cached_key(|p| {
        (
            p.native_id.clone(),
            p.data_profile
                .as_ref()
                .and_then(|d| serde_json::to_string(d).ok()),
            p.data_sample
                .as_ref()
                .and_then(|d| serde_json::to_string(d).ok()),
        )
    });
    a.connections
        .sort_by(|x, y| (&x.name, &x.target_model).cmp(&(&y.name, &y.target_model)));
    a
}

type Rows = Vec<Vec<String>>;

/// Every file with its rows, cells in the documented column order.
fn tables(a: &ModelArchive) -> Result<Vec<(&'static FileSpec, Rows)>> {
    let opt = |v: &Option<String>| v.clone().unwrap_or_default();
    let json = |file: &FileSpec,
                v: Option<std::result::Result<String, serde_json::Error>>|
     -> Result<String> {
        v.transpose()
            .map(Option::unwrap_or_default)
            .map_err(|e| failed(file, e))
    };
    let model = vec![vec![
        FORMAT_VERSION.to_string(),
        a.model.name.clone(),
        a.model.profile.clone(),
        a.model.description.clone(),
    ]];
    let objects = a
        .objects
        .iter()
        .map(|o| {
            vec![
                o.native_id.clone(),
                opt(&o.parent_native_id),
                o.object_type.clone(),
                o.name.clone(),
                opt(&o.physical_name),
                opt(&o.description),
                opt(&o.business_name),
                opt(&o.business_description),
                opt(&o.data_type),
                opt(&o.external_url),
                o.hide_data.to_string(),
                opt(&o.workflow_state),
            ]
        })
        .collect();
    let attributes = a
        .attributes
        .iter()
        .map(|r| {
            vec![
                r.native_id.clone(),
                r.attribute.clone(),
                r.value_type.as_str().to_owned(),
                r.value.clone(),
            ]
        })
        .collect();
    let relationships = a
        .relationships
        .iter()
        .map(|r| {
            vec![
                r.kind.as_str().to_owned(),
                r.name.clone(),
                r.source_native_id.clone(),
                r.target_native_id.clone(),
            ]
        })
        .collect();
    let labels = a
        .tags
        .iter()
        .map(|r| {
            vec![
                r.native_id.clone(),
                r.kind.as_str().to_owned(),
                r.value.clone(),
            ]
        })
        .collect();
    let classifications = a
        .classifications
        .iter()
        .map(|r| {
            vec![
                r.native_id.clone(),
                r.data_class.clone(),
                r.status.as_str().to_owned(),
            ]
        })
        .collect();
    let sensitivity_labels = a
        .sensitivity_labels
        .iter()
        .map(|r| {
            vec![
                r.native_id.clone(),
                r.label.clone(),
                r.status.as_str().to_owned(),
            ]
        })
        .collect();
    let mut profiling = Vec::with_capacity(a.profiling.len());
    for r in &a.profiling {
        profiling.push(vec![
            r.native_id.clone(),
            json(
                &spec::PROFILING,
                r.data_profile.as_ref().map(serde_json::to_string),
            )?,
            json(
                &spec::PROFILING,
                r.data_sample.as_ref().map(serde_json::to_string),
            )?,
        ]);
    }
    let connections = a
        .connections
        .iter()
        .map(|r| vec![r.name.clone(), r.target_model.clone()])
        .collect();
    Ok(vec![
        (&spec::MODEL, model),
        (&spec::OBJECTS, objects),
        (&spec::ATTRIBUTES, attributes),
        (&spec::RELATIONSHIPS, relationships),
        (&spec::LABELS, labels),
        (&spec::CLASSIFICATIONS, classifications),
        (&spec::SENSITIVITY_LABELS, sensitivity_labels),
        (&spec::PROFILING, profiling),
        (&spec::CONNECTIONS, connections),
    ])
}

/// One CSV file: header, then rows; RFC 4180 quoting, `\n` line ends.
fn csv_bytes(file: &FileSpec, rows: &Rows) -> Result<Vec<u8>> {
    let mut writer = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    writer
        .write_record(file.columns)
        .map_err(|e| failed(file, e))?;
    for row in rows {
        writer.write_record(row).map_err(|e| failed(file, e))?;
    }
    writer.into_inner().map_err(|e| failed(file, e.error()))
}
