//! The model archive a plugin's records become, written as they arrive: one CSV file per
//! kind of record in a temporary directory, zipped (stored, not deflated) at the end.
//! Memory stays flat however large the model is.

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use lore_core::archive::spec::{self, FileSpec};
use lore_plugin_sdk::{Model, Record};
use serde::Serialize;
use tempfile::TempDir;
use zip::write::SimpleFileOptions;

/// The files of the archive after model.csv, in the order they are zipped; their names
/// and columns are the format's own (`lore_core::archive::spec`).
const FILES: [&FileSpec; 8] = [
    &spec::OBJECTS,
    &spec::ATTRIBUTES,
    &spec::RELATIONSHIPS,
    &spec::LABELS,
    &spec::CLASSIFICATIONS,
    &spec::SENSITIVITY_LABELS,
    &spec::PROFILING,
    &spec::CONNECTIONS,
];

const OBJECTS: usize = 0;

/// What a plugin sent.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
pub struct Counts {
    pub objects: u64,
    pub records: u64,
}

#[derive(Debug)]
pub struct Spool {
    dir: TempDir,
    writers: Vec<Option<csv::Writer<BufWriter<File>>>>,
    model: Option<Model>,
    pub counts: Counts,
}

impl Spool {
    pub fn new(beside: &Path) -> Result<Self, String> {
        let parent = beside.parent().unwrap_or(Path::new("."));
        let dir = tempfile::Builder::new()
            .prefix(".lore-spool-")
            .tempdir_in(parent)
            .map_err(|e| format!("cannot make a spool directory in {}: {e}", parent.display()))?;
        Ok(Self {
            dir,
            writers: FILES.iter().map(|_| None).collect(),
            model: None,
            counts: Counts::default(),
        })
    }

    /// Writes one record to its file.
    pub fn add(&mut self, record: Record) -> Result<(), String> {
        self.counts.records += 1;
        let (file, cells): (usize, Vec<String>) = match record {
            Record::Model(model) => {
                if self.model.is_some() {
                    return Err("the plugin sent a second model record".into());
                }
                self.model = Some(model);
                return Ok(());
            }
            Record::Object(o) => {
                self.counts.objects += 1;
                (
                    OBJECTS,
                    vec![
                        o.native_id,
                        o.parent_native_id.unwrap_or_default(),
                        o.object_type,
                        o.name,
                        o.physical_name.unwrap_or_default(),
                        o.description.unwrap_or_default(),
                        o.business_name.unwrap_or_default(),
                        o.business_description.unwrap_or_default(),
                        o.data_type.unwrap_or_default(),
                        o.external_url.unwrap_or_default(),
                        o.hide_data.to_string(),
                        o.workflow_state.unwrap_or_default(),
                    ],
                )
            }
            Record::Attribute(a) => (1, vec![a.native_id, a.attribute, a.value_type, a.value]),
            Record::Relationship(r) => (
                2,
                vec![r.kind, r.name, r.source_native_id, r.target_native_id],
            ),
            Record::Label(l) => (3, vec![l.native_id, l.kind, l.value]),
            Record::Classification(c) => (4, vec![c.native_id, c.data_class, c.status]),
            Record::SensitivityLabel(l) => (5, vec![l.native_id, l.label, l.status]),
            Record::Profiling(p) => (
                6,
                vec![
                    p.native_id,
                    p.data_profile.map(|v| v.to_string()).unwrap_or_default(),
                    p.data_sample.map(|v| v.to_string()).unwrap_or_default(),
                ],
            ),
            Record::Connection(c) => (7, vec![c.name, c.target_model]),
        };
        self.writer(file)?
            .write_record(&cells)
            .map_err(|e| format!("cannot spool {}: {e}", FILES[file].name))
    }

    fn writer(&mut self, file: usize) -> Result<&mut csv::Writer<BufWriter<File>>, String> {
        if self.writers[file].is_none() {
            let (name, columns) = (FILES[file].name, FILES[file].columns);
            let path = self.dir.path().join(name);
            let out = File::create(&path)
                .map_err(|e| format!("cannot create {}: {e}", path.display()))?;
            let mut writer = csv::Writer::from_writer(BufWriter::with_capacity(1 << 16, out));
            writer
                .write_record(columns)
                .map_err(|e| format!("cannot spool {name}: {e}"))?;
            self.writers[file] = Some(writer);
        }
        self.writers[file]
            .as_mut()
            .ok_or_else(|| "spool writer vanished".to_owned())
    }

    /// Zips the files into `output`.
    pub fn finish(mut self, output: &Path) -> Result<Counts, String> {
        let model = self
            .model
            .take()
            .ok_or("the plugin sent no model record (Output::model)")?;
        self.writer(OBJECTS)?; // objects.csv is required, even empty
        let out =
            File::create(output).map_err(|e| format!("cannot create {}: {e}", output.display()))?;
        let mut zip = zip::ZipWriter::new(BufWriter::with_capacity(1 << 16, out));
        let options = SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .large_file(true);
        let failed = |e: &dyn std::fmt::Display| format!("cannot write {}: {e}", output.display());

        let mut head = csv::Writer::from_writer(Vec::new());
        head.write_record(spec::MODEL.columns)
            .and_then(|()| {
                head.write_record(["1", &model.name, &model.profile, &model.description])
            })
            .map_err(|e| failed(&e))?;
        let head = head.into_inner().map_err(|e| failed(&e))?;
        zip.start_file("model.csv", options)
            .map_err(|e| failed(&e))?;
        zip.write_all(&head).map_err(|e| failed(&e))?;

        for (file, writer) in self.writers.iter_mut().enumerate() {
            let Some(writer) = writer.take() else {
                continue;
            };
            let name = FILES[file].name;
            writer
                .into_inner()
                .map_err(|e| failed(&e))?
                .flush()
                .map_err(|e| failed(&e))?;
            let mut spooled = File::open(self.dir.path().join(name)).map_err(|e| failed(&e))?;
            zip.start_file(name, options).map_err(|e| failed(&e))?;
            std::io::copy(&mut spooled, &mut zip).map_err(|e| failed(&e))?;
        }
        zip.finish()
            .map_err(|e| failed(&e))?
            .flush()
            .map_err(|e| failed(&e))?;
        Ok(self.counts)
    }
}
