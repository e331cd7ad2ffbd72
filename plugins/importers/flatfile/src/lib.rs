//! Lore importer plugin for delimited files (format `csv-file`): one `File System (File)`
//! model with the file, a field per column, and (unless `profile` is false) the data
//! profile and sample of every field. The profiler is [`profile`]: the `profile` module
//! of the `lore-importer-kit` crate, re-exported; other importers depend on that crate
//! (a plugin cannot link another plugin: both export `lore_plugin_descriptor`).
//!
//! The file is read once, as a stream: memory stays bounded however long it is (see
//! [`profile`] for the bounds).

pub use lore_importer_kit::profile;

use std::fs::File;
use std::io::BufReader;
use std::path::Path;

use lore_plugin_sdk::{
    About, Attribute, Error, Format, Importer, Level, Model, Object, Output, Profiling, Request,
};
use serde_json::{Value, json};

use profile::{ColumnProfiler, DEFAULT_BYTE_LIMIT, DEFAULT_VALUE_LIMIT, TypeCounts};

/// The format this plugin imports.
pub const FORMAT: &str = "csv-file";
/// The profile of the models it makes.
pub const MODEL_PROFILE: &str = "File System (File)";

/// Sample rows asked for by default.
const DEFAULT_SAMPLE_ROWS: u64 = 20;
/// Sample rows kept at most, whatever is asked.
const MAX_SAMPLE_ROWS: u64 = 10_000;
/// Distinct values kept for all columns of a file together (each column keeps between
/// 1,000 and [`DEFAULT_VALUE_LIMIT`]).
const VALUE_BUDGET: usize = 2_000_000;
/// Bytes of distinct values kept for all columns of a file together.
const BYTE_BUDGET: usize = 256 << 20;
/// Rows between two progress reports.
const PROGRESS_EVERY: u64 = 100_000;

/// The importer of delimited files.
#[derive(Debug)]
pub struct FlatFile;

impl Importer for FlatFile {
    fn about() -> About {
        About::new("flatfile", env!("CARGO_PKG_VERSION"))
            .description("Delimited files (CSV, TSV, ...): fields, data profiling and sampling")
            .format(
                Format::new(
                    FORMAT,
                    "A delimited text file in UTF-8: one field per column, profiled",
                )
                .parameters(json!({
                    "type": "object",
                    "properties": {
                        "delimiter": {
                            "type": "string",
                            "description": "The field delimiter: one character, or \\t or tab for a tab",
                            "default": ","
                        },
                        "header": {
                            "type": "boolean",
                            "description": "Whether the first row holds the column names; without it the columns are column_1, column_2, ...",
                            "default": true
                        },
                        "modelName": {
                            "type": "string",
                            "description": "The model's name; the file name without its extension by default"
                        },
                        "profile": {
                            "type": "boolean",
                            "description": "Whether to profile and sample the fields",
                            "default": true
                        },
                        "sampleRows": {
                            "type": "integer",
                            "description": "Rows in the data sample (at most 10000)",
                            "default": DEFAULT_SAMPLE_ROWS
                        },
                        "maxRows": {
                            "type": "integer",
                            "description": "Rows profiled (and typed), from the first; all by default. Every row is still read and counted."
                        }
                    }
                })),
            )
    }

    fn import(request: &Request, out: &mut Output<'_>) -> Result<(), Error> {
        let options = Options::of(request)?;
        import_file(request.require_file()?, &options, out)
    }
}

lore_plugin_sdk::export_importer!(FlatFile);

/// The parameters of an import.
#[derive(Debug, Clone, PartialEq)]
struct Options {
    delimiter: u8,
    header: bool,
    model_name: Option<String>,
    profile: bool,
    sample_rows: u64,
    max_rows: Option<u64>,
}

impl Options {
    fn of(request: &Request) -> Result<Self, Error> {
        let boolean = |name: &str, default: bool| match request.parameters.get(name) {
            None | Some(Value::Null) => Ok(default),
            Some(Value::Bool(b)) => Ok(*b),
            Some(other) => Err(Error::new(format!(
                "'{name}' must be a boolean, not {other}"
            ))),
        };
        let count = |name: &str| match request.parameters.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(value) => value.as_u64().map(Some).ok_or_else(|| {
                Error::new(format!(
                    "'{name}' must be a non-negative integer, not {value}"
                ))
            }),
        };
        Ok(Self {
            delimiter: delimiter(request.text("delimiter"))?,
            header: boolean("header", true)?,
            model_name: request
                .text("modelName")
                .map(str::trim)
                .filter(|n| !n.is_empty())
                .map(str::to_owned),
            profile: boolean("profile", true)?,
            sample_rows: count("sampleRows")?.unwrap_or(DEFAULT_SAMPLE_ROWS),
            max_rows: count("maxRows")?,
        })
    }
}

/// The delimiter byte of the `delimiter` parameter.
fn delimiter(text: Option<&str>) -> Result<u8, Error> {
    match text {
        None | Some("") => Ok(b','),
        Some("\\t" | "\t") => Ok(b'\t'),
        Some(tab) if tab.eq_ignore_ascii_case("tab") => Ok(b'\t'),
        Some(other) => match other.as_bytes() {
            [b] if b.is_ascii() && !matches!(b, b'"' | b'\n' | b'\r') => Ok(*b),
            _ => Err(Error::new(format!(
                "'delimiter' must be one ASCII character other than a quote or a line break \
                 (or \\t or tab), not '{other}'"
            ))),
        },
    }
}

/// What is gathered about one column while the file is read.
#[derive(Debug)]
enum Column {
    Profiled(Box<ColumnProfiler>),
    Typed(TypeCounts),
}

impl Column {
    fn add(&mut self, value: &str) {
        match self {
            Self::Profiled(p) => p.add(Some(value)),
            Self::Typed(t) => t.add(Some(value)),
        }
    }

    fn data_type(&self) -> profile::DataType {
        match self {
            Self::Profiled(p) => p.data_type(),
            Self::Typed(t) => t.data_type(),
        }
    }
}

/// The column names of a header row: trimmed; an empty name is `column_<n>`, a repeated
/// one gets `_2`, `_3`, ... appended.
fn column_names(header: &[&str]) -> (Vec<String>, Vec<String>) {
    let mut names: Vec<String> = Vec::with_capacity(header.len());
    let mut renamed = Vec::new();
    for (i, raw) in header.iter().enumerate() {
        let trimmed = raw.trim();
        let base = if trimmed.is_empty() {
            format!("column_{}", i + 1)
        } else {
            trimmed.to_owned()
        };
        let mut name = base.clone();
        let mut n = 2;
        while names.contains(&name) {
            name = format!("{base}_{n}");
            n += 1;
        }
        if name != base {
            renamed.push(format!("'{base}' (column {}) is named '{name}'", i + 1));
        }
        names.push(name);
    }
    (names, renamed)
}

/// Reads the file and sends the model.
fn import_file(path: &Path, options: &Options, out: &mut Output<'_>) -> Result<(), Error> {
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .ok_or_else(|| Error::new(format!("{} names no file", path.display())))?;
    let scan = scan(path, &file_name, options, out)?;
    let summary = format!(
        "{file_name}: {} rows, {} fields{}",
        scan.rows,
        scan.names.len(),
        if options.profile {
            format!(
                ", {} rows profiled",
                scan.rows.min(options.max_rows.unwrap_or(u64::MAX))
            )
        } else {
            String::new()
        }
    );
    send_model(&file_name, options, scan, out)?;
    out.log(Level::Info, summary)
}

/// What one pass over a file gathered.
#[derive(Debug, Default)]
struct Scan {
    names: Vec<String>,
    columns: Vec<Column>,
    /// The first rows, for the data samples; `None` for an empty cell.
    samples: Vec<Vec<Option<String>>>,
    /// Data rows (the header not counted).
    rows: u64,
}

impl Scan {
    /// Sets the columns up from the first row of the file.
    fn start(
        &mut self,
        first: &[&str],
        file_name: &str,
        options: &Options,
        out: &mut Output<'_>,
    ) -> Result<(), Error> {
        let (names, renamed) = if options.header {
            column_names(first)
        } else {
            let names = (1..=first.len()).map(|i| format!("column_{i}")).collect();
            (names, Vec::new())
        };
        for note in renamed {
            out.log(Level::Warn, format!("{file_name}: {note}"))?;
        }
        let (values, bytes) = limits(names.len());
        self.columns = names
            .iter()
            .map(|_| {
                if options.profile {
                    Column::Profiled(Box::new(ColumnProfiler::with_limits(values, bytes)))
                } else {
                    Column::Typed(TypeCounts::new())
                }
            })
            .collect();
        self.names = names;
        Ok(())
    }
}

/// Reads every row of the file: checks its shape and encoding, counts, types, profiles
/// and samples it.
fn scan(
    path: &Path,
    file_name: &str,
    options: &Options,
    out: &mut Output<'_>,
) -> Result<Scan, Error> {
    let file =
        File::open(path).map_err(|e| Error::new(format!("cannot open {}: {e}", path.display())))?;
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(options.delimiter)
        .has_headers(false)
        .flexible(true)
        .from_reader(BufReader::new(file));

    let sample_rows = options.sample_rows.min(MAX_SAMPLE_ROWS);
    if sample_rows < options.sample_rows {
        out.log(
            Level::Warn,
            format!(
                "sampleRows {} is more than {MAX_SAMPLE_ROWS}; sampling {MAX_SAMPLE_ROWS} rows",
                options.sample_rows
            ),
        )?;
    }
    let max_rows = options.max_rows.unwrap_or(u64::MAX);

    let mut scan = Scan::default();
    let mut first = true;
    let mut record = csv::ByteRecord::new();
    loop {
        match reader.read_byte_record(&mut record) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                let line = e.position().map_or(0, csv::Position::line);
                return Err(Error::new(format!("{file_name} line {line}: {e}")));
            }
        }
        let line = record.position().map_or(0, csv::Position::line);
        let fields = utf8_fields(&record).map_err(|column| {
            Error::new(format!(
                "{file_name} line {line}: invalid UTF-8 in column {column}; only UTF-8 files are read"
            ))
        })?;
        if first {
            first = false;
            scan.start(&fields, file_name, options, out)?;
            if options.header {
                continue;
            }
        }
        if fields.len() != scan.names.len() {
            return Err(Error::new(format!(
                "{file_name} line {line}: {} fields, but the {} has {}",
                fields.len(),
                if options.header {
                    "header"
                } else {
                    "first row"
                },
                scan.names.len()
            )));
        }
        if scan.rows < max_rows {
            for (column, value) in scan.columns.iter_mut().zip(&fields) {
                column.add(value);
            }
        }
        if options.profile && scan.rows < sample_rows {
            scan.samples.push(
                fields
                    .iter()
                    .map(|v| Some(*v).filter(|v| !v.is_empty()).map(str::to_owned))
                    .collect(),
            );
        }
        scan.rows += 1;
        if scan.rows.is_multiple_of(PROGRESS_EVERY) {
            out.progress(scan.rows, None, "rows")?;
        }
    }
    out.progress(scan.rows, Some(scan.rows), "rows")?;
    Ok(scan)
}

/// The fields of a record as text, or the 1-based number of the first field that is not
/// UTF-8.
fn utf8_fields(record: &csv::ByteRecord) -> Result<Vec<&str>, usize> {
    record
        .iter()
        .enumerate()
        .map(|(i, field)| std::str::from_utf8(field).map_err(|_| i + 1))
        .collect()
}

/// The bounds of each column's profiler when a file has `columns` columns.
fn limits(columns: usize) -> (usize, usize) {
    let columns = columns.max(1);
    (
        (VALUE_BUDGET / columns).clamp(1_000, DEFAULT_VALUE_LIMIT),
        (BYTE_BUDGET / columns).clamp(256 << 10, DEFAULT_BYTE_LIMIT),
    )
}

/// Sends the model, the file, its fields and their profiling.
fn send_model(
    file_name: &str,
    options: &Options,
    scan: Scan,
    out: &mut Output<'_>,
) -> Result<(), Error> {
    let Scan {
        names,
        columns,
        samples,
        rows,
    } = scan;
    let model_name = options.model_name.clone().unwrap_or_else(|| {
        Path::new(file_name).file_stem().map_or_else(
            || file_name.to_owned(),
            |s| s.to_string_lossy().into_owned(),
        )
    });
    out.model(Model::new(model_name, MODEL_PROFILE))?;
    out.object(Object::new(file_name, "File", file_name).physical_name(file_name))?;
    out.attribute(Attribute::integer(
        file_name,
        "Row Count",
        i64::try_from(rows).unwrap_or(i64::MAX),
    ))?;
    out.attribute(Attribute::text(file_name, "Format", "CSV"))?;
    if options.profile && !names.is_empty() {
        let rows = samples
            .iter()
            .map(|row| {
                row.iter()
                    .map(|v| profile::sample_value(v.as_deref()))
                    .collect()
            })
            .collect();
        out.profiling(Profiling {
            native_id: file_name.to_owned(),
            data_profile: None,
            data_sample: Some(profile::data_sample(&names, rows)),
        })?;
    }

    let profiling_date = profile::profiling_date();
    let total = names.len() as u64;
    for (position, (name, column)) in names.iter().zip(columns).enumerate() {
        let native_id = format!("{file_name}.{name}");
        let data_type = column.data_type();
        out.object(
            Object::new(&native_id, "Field", name)
                .parent(file_name)
                .physical_name(name)
                .data_type(data_type.as_str()),
        )?;
        out.attribute(Attribute::integer(
            &native_id,
            "Position",
            i64::try_from(position + 1).unwrap_or(i64::MAX),
        ))?;
        if let Column::Profiled(profiler) = column {
            if profiler.is_approximate() {
                out.log(
                    Level::Info,
                    format!(
                        "{native_id}: more distinct values than are kept; its distinct count, \
                         duplicates, top values, patterns, quantiles and histogram are approximate"
                    ),
                )?;
            }
            let sample = profile::column_sample(
                name,
                samples
                    .iter()
                    .map(|row| row.get(position).and_then(Option::as_deref)),
            );
            out.profiling(Profiling {
                native_id: native_id.clone(),
                data_profile: Some(profiler.finish(&profiling_date)),
                data_sample: Some(sample),
            })?;
        }
        out.progress(position as u64 + 1, Some(total), "fields")?;
    }
    Ok(())
}
