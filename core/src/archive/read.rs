//! Reading and checking an uploaded archive.
//!
//! The reader does the format checks: the zip itself (hostile names, encryption, zip
//! bombs), the CSV structure, cell values and the references between rows by native id.
//! The checks that need the store or the meta model (object types, attribute types,
//! connected models) are the catalog's.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt::Display;
use std::io::{Cursor, Read};

use serde::de::DeserializeOwned;
use zip::ZipArchive;

use super::{
    ArchiveAttribute, ArchiveClassification, ArchiveConnection, ArchiveLabel, ArchiveLimits,
    ArchiveModel, ArchiveObject, ArchiveProfiling, ArchiveRelationship, ArchiveTag, FORMAT_VERSION,
    ModelArchive,
};
use crate::error::{Error, Result};
use crate::model::{ClassificationStatus, EdgeKind, ReferenceType, TagKind, ValueType};

pub(super) mod spec;
#[cfg(test)]
mod tests;

use spec::FileSpec;

/// The ratio limit applies to entries that inflate beyond this.
const RATIO_THRESHOLD: u64 = 1 << 20;

fn bad(message: impl Display) -> Error {
    Error::invalid(format!("model archive: {message}"))
}

/// Reads and checks an archive. Nothing is partially accepted: any defect is an
/// INVALID_PARAMETER error naming the file, line and column at fault.
pub fn read(bytes: &[u8], limits: &ArchiveLimits) -> Result<ModelArchive> {
    let entries = unpack(bytes, limits)?;
    parse(&entries)
}

// ---------------------------------------------------------------------------------------
// The zip

/// The inflated entries by file name, after every check on the zip itself.
fn unpack(bytes: &[u8], limits: &ArchiveLimits) -> Result<BTreeMap<&'static str, Vec<u8>>> {
    let mut zip = ZipArchive::new(Cursor::new(bytes))
        .map_err(|e| bad(format!("not a zip archive, or a corrupt one: {e}")))?;

    // The zip crate keeps one entry per name, so count and compare the central directory's
    // own records to see duplicates and the true number of entries.
    let records = central_directory_names(bytes, zip.central_directory_start(), limits.max_entries);
    let count = records.len().max(zip.len());
    if count > limits.max_entries {
        return Err(bad(format!(
            "the archive holds more than {} entries, the most allowed",
            limits.max_entries
        )));
    }
    let mut seen = HashSet::new();
    for name in &records {
        if !seen.insert(name.as_slice()) {
            return Err(bad(format!(
                "duplicate entry '{}'",
                String::from_utf8_lossy(name).escape_debug()
            )));
        }
    }
    if records.len() > zip.len() {
        return Err(bad("duplicate entry names"));
    }

    // Names, encryption and declared sizes first: nothing is inflated before they pass.
    let mut names = Vec::with_capacity(zip.len());
    let mut declared_total: u64 = 0;
    for index in 0..zip.len() {
        let file = zip
            .by_index_raw(index)
            .map_err(|e| bad(format!("corrupt zip entry: {e}")))?;
        let name = check_name(file.name(), file.is_dir())?;
        if file.encrypted() {
            return Err(bad(format!(
                "entry '{name}' is encrypted; encrypted archives are not supported"
            )));
        }
        let size = file.size();
        let compressed = file.compressed_size().min(bytes.len() as u64);
        if size > limits.max_entry_size {
            return Err(bad(format!(
                "entry '{name}' declares {size} bytes inflated, more than the limit of {} bytes per entry (zip bomb?)",
                limits.max_entry_size
            )));
        }
        if size > RATIO_THRESHOLD && size > compressed.saturating_mul(limits.max_ratio) {
            return Err(bad(format!(
                "entry '{name}' declares a compression ratio above the limit of {} (zip bomb?)",
                limits.max_ratio
            )));
        }
        declared_total = declared_total.saturating_add(size);
        names.push(name);
    }
    if declared_total > limits.max_total_size {
        return Err(bad(format!(
            "the entries declare {declared_total} bytes inflated, more than the limit of {} bytes in all (zip bomb?)",
            limits.max_total_size
        )));
    }

    // Then inflate, never trusting the declared sizes: each entry is read through a
    // `take` one byte above what it may still inflate to.
    let mut entries = BTreeMap::new();
    let mut total: u64 = 0;
    for (index, name) in names.into_iter().enumerate() {
        let mut file = zip
            .by_index(index)
            .map_err(|e| bad(format!("entry '{name}' cannot be read: {e}")))?;
        let compressed = file.compressed_size().min(bytes.len() as u64);
        let entry_cap = limits.max_entry_size;
        let total_cap = limits.max_total_size.saturating_sub(total);
        let ratio_cap = RATIO_THRESHOLD.max(compressed.saturating_mul(limits.max_ratio));
        let cap = entry_cap.min(total_cap).min(ratio_cap);
        let mut data = Vec::new();
        (&mut file)
            .take(cap.saturating_add(1))
            .read_to_end(&mut data)
            .map_err(|e| bad(format!("entry '{name}' is corrupt: {e}")))?;
        let size = data.len() as u64;
        if size > cap {
            return Err(if size > entry_cap {
                bad(format!(
                    "entry '{name}' inflates to more than {entry_cap} bytes, the limit per entry (zip bomb?)"
                ))
            } else if size > total_cap {
                bad(format!(
                    "the entries inflate to more than {} bytes, the limit in all (zip bomb?)",
                    limits.max_total_size
                ))
            } else {
                bad(format!(
                    "entry '{name}' inflates more than {} times its compressed size, the limit (zip bomb?)",
                    limits.max_ratio
                ))
            });
        }
        total += size;
        entries.insert(name, data);
    }
    Ok(entries)
}

/// The raw names of the central directory's records, at most `max + 1` of them.
fn central_directory_names(bytes: &[u8], start: u64, max: usize) -> Vec<Vec<u8>> {
    const SIGNATURE: [u8; 4] = [0x50, 0x4b, 0x01, 0x02];
    const FIXED: usize = 46;
    let mut names = Vec::new();
    let Ok(mut pos) = usize::try_from(start) else {
        return names;
    };
    while names.len() <= max {
        let Some(header) = bytes.get(pos..pos.saturating_add(FIXED)) else {
            break;
        };
        if header[..4] != SIGNATURE {
            break;
        }
        let field = |at: usize| usize::from(u16::from_le_bytes([header[at], header[at + 1]]));
        let (name_len, extra_len, comment_len) = (field(28), field(30), field(32));
        let Some(name) = bytes.get(pos + FIXED..pos + FIXED + name_len) else {
            break;
        };
        names.push(name.to_vec());
        pos += FIXED + name_len + extra_len + comment_len;
    }
    names
}

/// Checks an entry name and returns the file of the format it names.
fn check_name(name: &str, is_dir: bool) -> Result<&'static str> {
    let shown = name.escape_debug();
    let absolute =
        name.starts_with('/') || name.starts_with('\\') || name.as_bytes().get(1) == Some(&b':');
    if absolute || name.split(['/', '\\']).any(|part| part == "..") {
        return Err(bad(format!(
            "entry '{shown}': path traversal (an absolute path or a '..' component); entries must be plain file names"
        )));
    }
    if name.contains('\\') {
        return Err(bad(format!(
            "entry '{shown}' contains a backslash; entries must be plain file names"
        )));
    }
    if is_dir || name.contains('/') {
        return Err(bad(format!(
            "entry '{shown}' has a directory component; the archive must be flat"
        )));
    }
    spec::ALL
        .iter()
        .find(|file| file.name == name)
        .map(|file| file.name)
        .ok_or_else(|| {
            let known: Vec<&str> = spec::ALL.iter().map(|file| file.name).collect();
            bad(format!(
                "unknown entry '{shown}'; an archive holds only {}",
                known.join(", ")
            ))
        })
}

// ---------------------------------------------------------------------------------------
// CSV tables

/// One data row, its cells in the order of the file's documented columns; `None` for a
/// column the header leaves out.
struct Row {
    file: &'static FileSpec,
    line: u64,
    cells: Vec<Option<String>>,
}

impl Row {
    fn cell(&self, column: &str) -> Option<&str> {
        let index = self.file.columns.iter().position(|c| *c == column)?;
        self.cells[index].as_deref()
    }

    fn error(&self, column: &str, message: impl Display) -> Error {
        bad(format!(
            "{} line {}, column {column}: {message}",
            self.file.name, self.line
        ))
    }

    /// A cell that must not be empty, as written.
    fn required(&self, column: &str) -> Result<String> {
        match self.cell(column) {
            Some(text) if !text.trim().is_empty() => Ok(text.to_owned()),
            _ => Err(self.error(column, "empty required cell")),
        }
    }

    /// A cell that may be empty (or left out): `None` then.
    fn optional(&self, column: &str) -> Option<String> {
        self.cell(column)
            .filter(|text| !text.is_empty())
            .map(str::to_owned)
    }

    /// A cell that may be empty, as written ("" when left out).
    fn text(&self, column: &str) -> String {
        self.cell(column).unwrap_or_default().to_owned()
    }

    /// An enumerated cell, trimmed.
    fn choice<T>(
        &self,
        column: &str,
        parse: impl Fn(&str) -> Option<T>,
        allowed: &[&str],
    ) -> Result<T> {
        let text = self.required(column)?;
        parse(text.trim()).ok_or_else(|| {
            self.error(
                column,
                format!(
                    "'{}' is not one of {}",
                    text.escape_debug(),
                    allowed.join(", ")
                ),
            )
        })
    }

    fn boolean(&self, column: &str) -> Result<bool> {
        let text = self.cell(column).unwrap_or_default();
        match text.trim().to_ascii_lowercase().as_str() {
            "" | "false" => Ok(false),
            "true" => Ok(true),
            _ => Err(self.error(
                column,
                format!(
                    "'{}' is not a boolean (true, false or empty)",
                    text.escape_debug()
                ),
            )),
        }
    }

    /// A native id that must be one of objects.csv.
    fn reference(&self, column: &str, objects: &HashSet<String>) -> Result<String> {
        let id = self.required(column)?;
        if objects.contains(&id) {
            Ok(id)
        } else {
            Err(self.error(
                column,
                format!(
                    "unknown object '{}': objects.csv has no such native_id",
                    id.escape_debug()
                ),
            ))
        }
    }

    /// A JSON cell; empty means `None`.
    fn json<T: DeserializeOwned>(&self, column: &str, what: &str) -> Result<Option<T>> {
        let text = self.cell(column).unwrap_or_default();
        if text.trim().is_empty() {
            return Ok(None);
        }
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| self.error(column, format!("bad JSON: {e}")))?;
        serde_json::from_value::<Option<T>>(value)
            .map_err(|e| self.error(column, format!("bad JSON: not a {what}: {e}")))
    }
}

/// Reads one CSV file: header by name (any order), then rows of the header's width.
fn table(file: &'static FileSpec, data: &[u8]) -> Result<Vec<Row>> {
    let data = data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data);
    if let Some(line) = unclosed_quote(data) {
        return Err(bad(format!(
            "{} line {line}: bad CSV: a quoted field opened on this line is never closed",
            file.name
        )));
    }
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(data);
    let mut record = csv::ByteRecord::new();
    let read_error = |e: csv::Error| bad(format!("{}: bad CSV: {e}", file.name));
    if !reader.read_byte_record(&mut record).map_err(read_error)? {
        return Err(bad(format!(
            "{}: the file is empty; it needs at least its header row",
            file.name
        )));
    }
    let header_line = record.position().map_or(1, |p| p.line());
    let mut mapping = Vec::with_capacity(record.len());
    for (index, raw) in record.iter().enumerate() {
        let name = std::str::from_utf8(raw).map_err(|_| {
            bad(format!(
                "{} line {header_line}, column {}: invalid UTF-8",
                file.name,
                index + 1
            ))
        })?;
        let name = name.trim();
        let column = file
            .columns
            .iter()
            .position(|c| c.eq_ignore_ascii_case(name))
            .ok_or_else(|| {
                bad(format!(
                    "{} line {header_line}: unknown column '{}'; the columns are {}",
                    file.name,
                    name.escape_debug(),
                    file.columns.join(", ")
                ))
            })?;
        if mapping.contains(&column) {
            return Err(bad(format!(
                "{} line {header_line}: duplicate column '{}'",
                file.name, file.columns[column]
            )));
        }
        mapping.push(column);
    }
    for required in file.required {
        let index = file
            .columns
            .iter()
            .position(|c| c == required)
            .unwrap_or(usize::MAX);
        if !mapping.contains(&index) {
            return Err(bad(format!(
                "{} line {header_line}: missing required column '{required}'",
                file.name
            )));
        }
    }

    let mut rows = Vec::new();
    while reader.read_byte_record(&mut record).map_err(read_error)? {
        let line = record.position().map_or(0, |p| p.line());
        if record.len() != mapping.len() {
            return Err(bad(format!(
                "{} line {line}: bad CSV: {} fields, but the header has {}",
                file.name,
                record.len(),
                mapping.len()
            )));
        }
        let mut cells = vec![None; file.columns.len()];
        for (raw, &column) in record.iter().zip(&mapping) {
            let text = std::str::from_utf8(raw).map_err(|_| {
                bad(format!(
                    "{} line {line}, column {}: invalid UTF-8",
                    file.name, file.columns[column]
                ))
            })?;
            cells[column] = Some(text.to_owned());
        }
        rows.push(Row { file, line, cells });
    }
    Ok(rows)
}

/// The line of a quoted field that runs to the end of the data, if any. The CSV parser
/// would silently take the rest of the file as that field's value.
fn unclosed_quote(data: &[u8]) -> Option<u64> {
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        FieldStart,
        Unquoted,
        Quoted,
        QuoteInQuoted,
    }
    let mut state = State::FieldStart;
    let mut line: u64 = 1;
    let mut opened = 1;
    for &byte in data {
        state = match (state, byte) {
            (State::Quoted, b'"') => State::QuoteInQuoted,
            (State::Quoted, _) => State::Quoted,
            (State::FieldStart, b'"') => {
                opened = line;
                State::Quoted
            }
            (State::QuoteInQuoted, b'"') => State::Quoted,
            (_, b',' | b'\n' | b'\r') => State::FieldStart,
            (_, _) => State::Unquoted,
        };
        if byte == b'\n' {
            line += 1;
        }
    }
    (state == State::Quoted).then_some(opened)
}

// ---------------------------------------------------------------------------------------
// Rows to the archive

fn parse(entries: &BTreeMap<&'static str, Vec<u8>>) -> Result<ModelArchive> {
    let rows = |file: &'static FileSpec| -> Result<Vec<Row>> {
        match entries.get(file.name) {
            Some(data) => table(file, data),
            None => Ok(Vec::new()),
        }
    };
    for required in [&spec::MODEL, &spec::OBJECTS] {
        if !entries.contains_key(required.name) {
            return Err(bad(format!("{} is missing", required.name)));
        }
    }

    let model_rows = rows(&spec::MODEL)?;
    let [model_row] = model_rows.as_slice() else {
        return Err(bad(format!(
            "model.csv must have exactly one data row, it has {}",
            model_rows.len()
        )));
    };
    let version = model_row.required("format_version")?;
    if version.trim().parse::<u32>().ok() != Some(FORMAT_VERSION) {
        return Err(model_row.error(
            "format_version",
            format!(
                "unknown format_version '{}'; this server reads format_version {FORMAT_VERSION}",
                version.escape_debug()
            ),
        ));
    }
    let model = ArchiveModel {
        name: model_row.required("name")?,
        profile: model_row.required("profile")?,
        description: model_row.text("description"),
    };

    let object_rows = rows(&spec::OBJECTS)?;
    let objects = objects(&object_rows)?;
    let known: HashSet<String> = objects.iter().map(|o| o.native_id.clone()).collect();

    let mut attributes = Vec::new();
    let mut attribute_lines: HashMap<(String, String), u64> = HashMap::new();
    for row in rows(&spec::ATTRIBUTES)? {
        let native_id = row.reference("native_id", &known)?;
        let attribute = row.required("attribute")?;
        if let Some(first) =
            attribute_lines.insert((native_id.clone(), attribute.clone()), row.line)
        {
            return Err(row.error(
                "attribute",
                format!(
                    "attribute '{}' of '{}' is given twice (first on line {first})",
                    attribute.escape_debug(),
                    native_id.escape_debug()
                ),
            ));
        }
        attributes.push(ArchiveAttribute {
            native_id,
            attribute,
            value_type: row.choice("value_type", ValueType::parse, &VALUE_TYPES)?,
            value: row.text("value"),
        });
    }

    let mut relationships = Vec::new();
    for row in rows(&spec::RELATIONSHIPS)? {
        let kind = row.choice(
            "kind",
            |s| EdgeKind::parse(&s.to_ascii_lowercase()),
            &EDGE_KINDS,
        )?;
        if matches!(
            kind,
            EdgeKind::ModelConnection | EdgeKind::ConfigurationContent
        ) {
            return Err(row.error(
                "kind",
                format!(
                    "kind '{}' cannot appear in relationships.csv (connections go into connections.csv); the kinds are {}",
                    kind.as_str(),
                    EDGE_KINDS.join(", ")
                ),
            ));
        }
        let name = row.text("name");
        if kind == EdgeKind::TermReference && ReferenceType::parse(&name).is_none() {
            let types: Vec<&str> = ReferenceType::ALL.iter().map(|t| t.as_str()).collect();
            return Err(row.error(
                "name",
                format!(
                    "'{}' is not a term reference type ({})",
                    name.escape_debug(),
                    types.join(", ")
                ),
            ));
        }
        relationships.push(ArchiveRelationship {
            kind,
            name,
            source_native_id: row.reference("source_native_id", &known)?,
            target_native_id: row.reference("target_native_id", &known)?,
        });
    }

    let mut tags = Vec::new();
    for row in rows(&spec::LABELS)? {
        tags.push(ArchiveTag {
            native_id: row.reference("native_id", &known)?,
            kind: row.choice(
                "kind",
                |s| TagKind::parse(&s.to_ascii_lowercase()),
                &TAG_KINDS,
            )?,
            value: row.required("value")?,
        });
    }

    let mut classifications = Vec::new();
    for row in rows(&spec::CLASSIFICATIONS)? {
        classifications.push(ArchiveClassification {
            native_id: row.reference("native_id", &known)?,
            data_class: row.required("data_class")?,
            status: row.choice("status", ClassificationStatus::parse, &STATUSES)?,
        });
    }

    let mut sensitivity_labels = Vec::new();
    for row in rows(&spec::SENSITIVITY_LABELS)? {
        sensitivity_labels.push(ArchiveLabel {
            native_id: row.reference("native_id", &known)?,
            label: row.required("label")?,
            status: row.choice("status", ClassificationStatus::parse, &STATUSES)?,
        });
    }

    let mut profiling = Vec::new();
    let mut profiling_lines: HashMap<String, u64> = HashMap::new();
    for row in rows(&spec::PROFILING)? {
        let native_id = row.reference("native_id", &known)?;
        if let Some(first) = profiling_lines.insert(native_id.clone(), row.line) {
            return Err(row.error(
                "native_id",
                format!(
                    "'{}' is profiled twice (first on line {first})",
                    native_id.escape_debug()
                ),
            ));
        }
        profiling.push(ArchiveProfiling {
            native_id,
            data_profile: row.json("data_profile", "DataProfile")?,
            data_sample: row.json("data_sample", "DataSample")?,
        });
    }

    let mut connections = Vec::new();
    for row in rows(&spec::CONNECTIONS)? {
        connections.push(ArchiveConnection {
            name: row.text("name"),
            target_model: row.required("target_model")?,
        });
    }

    Ok(ModelArchive {
        model,
        objects,
        attributes,
        relationships,
        tags,
        classifications,
        sensitivity_labels,
        profiling,
        connections,
    })
}

const VALUE_TYPES: [&str; 7] = [
    "String", "Integer", "Double", "Boolean", "Date", "DateTime", "Object",
];
const EDGE_KINDS: [&str; 5] = [
    "custom_relationship",
    "semantic_link",
    "entity_relationship",
    "term_reference",
    "lineage",
];
const TAG_KINDS: [&str; 2] = ["label", "collection"];
const STATUSES: [&str; 4] = ["MATCHED", "PROPOSED", "APPROVED", "REJECTED"];

/// objects.csv's rows, checked: unique native ids, known parents, no parent cycle.
fn objects(rows: &[Row]) -> Result<Vec<ArchiveObject>> {
    let mut objects: Vec<ArchiveObject> = Vec::with_capacity(rows.len());
    let mut index: HashMap<String, usize> = HashMap::with_capacity(rows.len());
    for (position, row) in rows.iter().enumerate() {
        let native_id = row.required("native_id")?;
        if let Some(first) = index.insert(native_id.clone(), position) {
            return Err(row.error(
                "native_id",
                format!(
                    "duplicate native_id '{}' (first on line {})",
                    native_id.escape_debug(),
                    rows[first].line
                ),
            ));
        }
        objects.push(ArchiveObject {
            native_id,
            parent_native_id: row.optional("parent_native_id"),
            object_type: row.required("object_type")?,
            name: row.required("name")?,
            physical_name: row.optional("physical_name"),
            description: row.optional("description"),
            business_name: row.optional("business_name"),
            business_description: row.optional("business_description"),
            data_type: row.optional("data_type"),
            external_url: row.optional("external_url"),
            hide_data: row.boolean("hide_data")?,
            workflow_state: row.optional("workflow_state"),
        });
    }

    let mut parents = Vec::with_capacity(objects.len());
    for (object, row) in objects.iter().zip(rows) {
        parents.push(match &object.parent_native_id {
            None => None,
            Some(parent) => Some(*index.get(parent).ok_or_else(|| {
                row.error(
                    "parent_native_id",
                    format!(
                        "dangling parent '{}' of '{}': objects.csv has no such native_id",
                        parent.escape_debug(),
                        object.native_id.escape_debug()
                    ),
                )
            })?),
        });
    }

    // Walk up from every object; meeting an object of the current walk again is a cycle.
    #[derive(Clone, Copy, PartialEq)]
    enum State {
        New,
        OnPath,
        Done,
    }
    let mut state = vec![State::New; objects.len()];
    for start in 0..objects.len() {
        let mut path: Vec<usize> = Vec::new();
        let mut current = Some(start);
        while let Some(i) = current {
            match state[i] {
                State::Done => break,
                State::OnPath => {
                    let from = path.iter().position(|&p| p == i).unwrap_or(0);
                    let mut names: Vec<String> = path[from..]
                        .iter()
                        .map(|&p| objects[p].native_id.escape_debug().to_string())
                        .collect();
                    names.push(objects[i].native_id.escape_debug().to_string());
                    return Err(rows[i].error(
                        "parent_native_id",
                        format!("parent cycle: {}", names.join(" -> ")),
                    ));
                }
                State::New => {
                    state[i] = State::OnPath;
                    path.push(i);
                    current = parents[i];
                }
            }
        }
        for i in path {
            state[i] = State::Done;
        }
    }
    Ok(objects)
}
