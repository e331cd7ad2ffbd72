//! The synthetic model (`conformance-tests/benches/common/model.rs`) written as a model
//! archive straight to a zip file: rows go from the generator through a CSV writer into
//! the deflating zip entry, so the archive is never whole in memory. The generator runs
//! once per entry (a zip's entries follow each other) and is deterministic.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};

use zip::write::SimpleFileOptions;
use zip::{CompressionMethod, DateTime, ZipWriter};

use super::model::{self, Row};
use super::server::BenchResult;

/// What [`write_archive`] wrote.
#[derive(Debug)]
pub struct ArchiveFile {
    pub path: PathBuf,
    /// The size of the zip.
    pub bytes: u64,
    /// Objects, attribute values, relationships and tags (labels and collections).
    pub objects: usize,
    pub attributes: usize,
    pub relationships: usize,
    pub tags: usize,
    /// The object number (`<model>_<number>`) of every table, if the server numbers the
    /// objects of a new model in archive order from 1.
    pub tables: Vec<i64>,
}

impl ArchiveFile {
    /// The rows Lore writes for the archive: its objects, attribute values, edges and
    /// tags, plus the model object and its profile attribute.
    pub fn rows(&self) -> usize {
        self.objects + self.attributes + self.relationships + self.tags + 2
    }
}

/// The entries of the archive and their columns, in the order of docs/model-archive.md.
const OBJECTS: [&str; 12] = [
    "native_id",
    "parent_native_id",
    "object_type",
    "name",
    "physical_name",
    "description",
    "business_name",
    "business_description",
    "data_type",
    "external_url",
    "hide_data",
    "workflow_state",
];
const ATTRIBUTES: [&str; 4] = ["native_id", "attribute", "value_type", "value"];
const RELATIONSHIPS: [&str; 4] = ["kind", "name", "source_native_id", "target_native_id"];
const LABELS: [&str; 3] = ["native_id", "kind", "value"];

/// Writes the synthetic model of `n` objects (its edited variant with `edited`) to `path`.
pub fn write_archive(path: &Path, n: usize, edited: bool) -> BenchResult<ArchiveFile> {
    let options = SimpleFileOptions::default()
        .compression_method(CompressionMethod::Deflated)
        .compression_level(Some(6))
        .last_modified_time(DateTime::default())
        .unix_permissions(0o644);
    let mut zip = ZipWriter::new(BufWriter::new(File::create(path)?));
    let mut written = ArchiveFile {
        path: path.to_owned(),
        bytes: 0,
        objects: 0,
        attributes: 0,
        relationships: 0,
        tags: 0,
        tables: Vec::new(),
    };

    let m = model::model(n);
    zip.start_file("model.csv", options)?;
    let mut csv = csv::Writer::from_writer(&mut zip);
    csv.write_record(["format_version", "name", "profile", "description"])?;
    csv.write_record(["1", &m.name, &m.profile, &m.description])?;
    csv.flush()?;
    drop(csv);

    let entries: [(&str, &[&str]); 4] = [
        ("objects.csv", &OBJECTS),
        ("attributes.csv", &ATTRIBUTES),
        ("relationships.csv", &RELATIONSHIPS),
        ("labels.csv", &LABELS),
    ];
    for (entry, header) in entries {
        zip.start_file(entry, options)?;
        let mut csv = csv::Writer::from_writer(&mut zip);
        csv.write_record(header)?;
        let mut failed: Option<csv::Error> = None;
        let mut write = |record: &[&str]| {
            if failed.is_none() {
                failed = csv.write_record(record).err();
            }
        };
        let o = |v: &Option<String>| v.as_deref().unwrap_or("").to_owned();
        model::generate(n, edited, |row| match (entry, row) {
            ("objects.csv", Row::Object(x)) => {
                written.objects += 1;
                if x.object_type == "Table" {
                    written.tables.push(written.objects as i64);
                }
                write(&[
                    &x.native_id,
                    &o(&x.parent_native_id),
                    &x.object_type,
                    &x.name,
                    &o(&x.physical_name),
                    &o(&x.description),
                    &o(&x.business_name),
                    &o(&x.business_description),
                    &o(&x.data_type),
                    &o(&x.external_url),
                    if x.hide_data { "true" } else { "false" },
                    &o(&x.workflow_state),
                ]);
            }
            ("attributes.csv", Row::Attribute(x)) => {
                written.attributes += 1;
                write(&[&x.native_id, &x.attribute, x.value_type.as_str(), &x.value]);
            }
            ("relationships.csv", Row::Relationship(x)) => {
                written.relationships += 1;
                write(&[
                    x.kind.as_str(),
                    &x.name,
                    &x.source_native_id,
                    &x.target_native_id,
                ]);
            }
            ("labels.csv", Row::Tag(x)) => {
                written.tags += 1;
                write(&[&x.native_id, x.kind.as_str(), &x.value]);
            }
            _ => {}
        });
        if let Some(e) = failed {
            return Err(format!("{entry}: {e}").into());
        }
        csv.flush()?;
    }
    let mut file = zip.finish()?;
    file.flush()?;
    written.bytes = std::fs::metadata(path)?.len();
    Ok(written)
}
