//! Reading and checking an uploaded archive.
//!
//! The reader does the format checks: the zip itself (hostile names, encryption, zip
//! bombs), the CSV structure, cell values and the references between rows by native id.
//! The checks that need the store or the meta model (object types, attribute types,
//! connected models) are the catalog's.
//!
//! [`ArchiveReader`] streams: it checks the zip's directory without inflating anything,
//! then inflates one entry at a time as its CSV rows are read, so a whole archive is
//! never held in memory. [`read`] collects every row into a [`ModelArchive`].

use std::collections::{HashMap, HashSet};
use std::fmt::Display;
use std::hash::{BuildHasher, RandomState};
use std::io::{self, Cursor, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicU32, Ordering};

use serde::de::DeserializeOwned;
use zip::ZipArchive;
use zip::read::ZipFile;

use super::{
    ArchiveAttribute, ArchiveClassification, ArchiveConnection, ArchiveLabel, ArchiveLimits,
    ArchiveModel, ArchiveObject, ArchiveProfiling, ArchiveRelationship, ArchiveTag, FORMAT_VERSION,
    ModelArchive,
};
use crate::error::{Error, Result};
use crate::model::{ClassificationStatus, EdgeKind, ReferenceType, TagKind, ValueType};

pub mod spec;
#[cfg(test)]
mod tests;

pub(crate) use spec::FileSpec;

/// The ratio limit applies to entries that inflate beyond this.
const RATIO_THRESHOLD: u64 = 1 << 20;

fn bad(message: impl Display) -> Error {
    Error::invalid(format!("model archive: {message}"))
}

/// Reads and checks an archive. Nothing is partially accepted: any defect is an
/// INVALID_PARAMETER error naming the file, line and column at fault.
pub fn read(bytes: &[u8], limits: &ArchiveLimits) -> Result<ModelArchive> {
    let mut reader = ArchiveReader::open(Cursor::new(bytes), limits)?;
    let model = reader.model()?;

    let mut index = ObjectIndex::default();
    let mut objects = Vec::new();
    reader.each(&spec::OBJECTS, |row| {
        let object = object_row(&row)?;
        index.add(&row, &object.native_id, object.parent_native_id.as_deref())?;
        objects.push(object);
        Ok(())
    })?;
    index.finish()?;
    let known = |native: &str| index.find(native).is_some();

    let mut attributes = Vec::new();
    let mut attribute_check = AttributeCheck::default();
    reader.each(&spec::ATTRIBUTES, |row| {
        let attribute = attribute_row(&row, &known)?;
        attribute_check.check(&row, &index, &attribute)?;
        attributes.push(attribute);
        Ok(())
    })?;
    let mut relationships = Vec::new();
    reader.each(&spec::RELATIONSHIPS, |row| {
        relationships.push(relationship_row(&row, &known)?);
        Ok(())
    })?;
    let mut tags = Vec::new();
    reader.each(&spec::LABELS, |row| {
        tags.push(tag_row(&row, &known)?);
        Ok(())
    })?;
    let mut classifications = Vec::new();
    reader.each(&spec::CLASSIFICATIONS, |row| {
        classifications.push(classification_row(&row, &known)?);
        Ok(())
    })?;
    let mut sensitivity_labels = Vec::new();
    reader.each(&spec::SENSITIVITY_LABELS, |row| {
        sensitivity_labels.push(label_row(&row, &known)?);
        Ok(())
    })?;
    let mut profiling = Vec::new();
    let mut profiling_check = ProfilingCheck::default();
    reader.each(&spec::PROFILING, |row| {
        let result = profiling_row(&row, &known)?;
        profiling_check.check(&row, &index, &result.native_id)?;
        profiling.push(result);
        Ok(())
    })?;
    let mut connections = Vec::new();
    reader.each(&spec::CONNECTIONS, |row| {
        connections.push(connection_row(&row)?);
        Ok(())
    })?;

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

// ---------------------------------------------------------------------------------------
// The zip

/// A checked archive whose entries are inflated lazily, one at a time, as their rows are
/// read. Opening it checks the zip's directory (names, duplicates, encryption, declared
/// sizes and ratios); reading an entry checks the bytes actually inflated. An entry may
/// be read more than once.
#[derive(Debug)]
pub struct ArchiveReader<R: Read + Seek> {
    zip: ZipArchive<R>,
    limits: ArchiveLimits,
    /// The size of the source, which bounds any compressed size it declares.
    source_len: u64,
    /// The zip index of each file of the format present, by file name.
    entries: HashMap<&'static str, usize>,
    /// The most bytes each entry inflated to so far, for the limit in all.
    inflated: HashMap<&'static str, u64>,
}

impl<R: Read + Seek> ArchiveReader<R> {
    /// Checks the zip and its directory; nothing is inflated yet. `model.csv` and
    /// `objects.csv` must be present.
    pub fn open(mut source: R, limits: &ArchiveLimits) -> Result<Self> {
        let source_len = source
            .seek(SeekFrom::End(0))
            .map_err(|e| bad(format!("the archive cannot be read: {e}")))?;
        let zip = ZipArchive::new(source)
            .map_err(|e| bad(format!("not a zip archive, or a corrupt one: {e}")))?;

        // The zip crate keeps one entry per name, so count and compare the central
        // directory's own records to see duplicates and the true number of entries.
        let start = zip.central_directory_start();
        let zip_len = zip.len();
        let mut source = zip.into_inner();
        let records = central_directory_names(&mut source, start, limits.max_entries);
        let count = records.len().max(zip_len);
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
        if records.len() > zip_len {
            return Err(bad("duplicate entry names"));
        }
        let mut zip = ZipArchive::new(source)
            .map_err(|e| bad(format!("not a zip archive, or a corrupt one: {e}")))?;

        // Names, encryption and declared sizes: nothing is inflated before they pass.
        let mut entries = HashMap::with_capacity(zip.len());
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
            let compressed = file.compressed_size().min(source_len);
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
            entries.insert(name, index);
        }
        if declared_total > limits.max_total_size {
            return Err(bad(format!(
                "the entries declare {declared_total} bytes inflated, more than the limit of {} bytes in all (zip bomb?)",
                limits.max_total_size
            )));
        }
        for required in [&spec::MODEL, &spec::OBJECTS] {
            if !entries.contains_key(required.name) {
                return Err(bad(format!("{} is missing", required.name)));
            }
        }
        Ok(Self {
            zip,
            limits: *limits,
            source_len,
            entries,
            inflated: HashMap::new(),
        })
    }

    /// Reads model.csv: exactly one data row of a known format version.
    pub fn model(&mut self) -> Result<ArchiveModel> {
        let mut first = None;
        let mut count = 0;
        self.each(&spec::MODEL, |row| {
            count += 1;
            if first.is_none() {
                first = Some(row);
            }
            Ok(())
        })?;
        match first {
            Some(row) if count == 1 => model_row_of(&row),
            _ => Err(bad(format!(
                "model.csv must have exactly one data row, it has {count}"
            ))),
        }
    }

    /// Calls `visit` with every data row of the file in order; a file the archive does
    /// not hold has no rows.
    pub(crate) fn each(
        &mut self,
        file: &'static FileSpec,
        mut visit: impl FnMut(Row) -> Result<()>,
    ) -> Result<()> {
        let Some(mut table) = self.table(file)? else {
            return Ok(());
        };
        while let Some(row) = table.next_row()? {
            visit(row)?;
        }
        Ok(())
    }

    /// About how many rows the file holds, from the size its entry declares (a hint:
    /// at most a few million, 0 when absent).
    pub(crate) fn rows_hint(&mut self, file: &'static FileSpec) -> usize {
        /// About the size of a row with a few short cells: files of longer rows reserve
        /// more than they need, files of shorter ones grow as they are read.
        const ROW_BYTES: u64 = 80;
        const MAX_HINT: u64 = 4_000_000;
        let Some(&index) = self.entries.get(file.name) else {
            return 0;
        };
        let declared = self.zip.by_index_raw(index).map_or(0, |e| e.size());
        let declared = declared.min(self.limits.max_entry_size);
        usize::try_from((declared / ROW_BYTES).min(MAX_HINT)).unwrap_or(0)
    }

    /// Whether the archive holds the file.
    pub(crate) fn has(&self, file: &'static FileSpec) -> bool {
        self.entries.contains_key(file.name)
    }

    /// The rows of the file, read as they are inflated; `None` when the archive does not
    /// hold it. The header is read and checked here.
    pub(crate) fn table(&mut self, file: &'static FileSpec) -> Result<Option<Table<'_, R>>> {
        let Some(&index) = self.entries.get(file.name) else {
            return Ok(None);
        };
        let others: u64 = self
            .inflated
            .iter()
            .filter(|(name, _)| **name != file.name)
            .map(|(_, size)| *size)
            .sum();
        let limits = self.limits;
        let entry = self
            .zip
            .by_index(index)
            .map_err(|e| bad(format!("entry '{}' cannot be read: {e}", file.name)))?;
        let compressed = entry.compressed_size().min(self.source_len);
        let entry_cap = limits.max_entry_size;
        let total_cap = limits.max_total_size.saturating_sub(others);
        let ratio_cap = RATIO_THRESHOLD.max(compressed.saturating_mul(limits.max_ratio));
        let inflated = self.inflated.entry(file.name).or_insert(0);
        let reader = EntryReader {
            inner: entry,
            name: file.name,
            count: 0,
            cap: entry_cap.min(total_cap).min(ratio_cap),
            entry_cap,
            total_cap,
            limits,
            inflated,
            head: Vec::new(),
            head_done: false,
            quote: QuoteState::FieldStart,
            line: 1,
            opened: 1,
            eof: false,
        };
        Table::new(file, reader).map(Some)
    }
}

/// The raw names of the central directory's records, at most `max + 1` of them.
fn central_directory_names<R: Read + Seek>(source: &mut R, start: u64, max: usize) -> Vec<Vec<u8>> {
    const SIGNATURE: [u8; 4] = [0x50, 0x4b, 0x01, 0x02];
    const FIXED: usize = 46;
    let mut names = Vec::new();
    if source.seek(SeekFrom::Start(start)).is_err() {
        return names;
    }
    let mut source = io::BufReader::new(source);
    while names.len() <= max {
        let mut header = [0u8; FIXED];
        if source.read_exact(&mut header).is_err() || header[..4] != SIGNATURE {
            break;
        }
        let field = |at: usize| u16::from_le_bytes([header[at], header[at + 1]]);
        let (name_len, extra_len, comment_len) = (field(28), field(30), field(32));
        let mut name = vec![0u8; usize::from(name_len)];
        if source.read_exact(&mut name).is_err() {
            break;
        }
        names.push(name);
        let skip = i64::from(extra_len) + i64::from(comment_len);
        if source.seek_relative(skip).is_err() {
            break;
        }
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

/// A refusal raised inside a reader (its whole message), carried through the CSV parser
/// as an I/O error.
#[derive(Debug)]
struct Refusal(String);

impl Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refusal {}

fn refusal(error: Error) -> io::Error {
    io::Error::other(Refusal(error.message))
}

#[derive(Clone, Copy, PartialEq)]
enum QuoteState {
    FieldStart,
    Unquoted,
    Quoted,
    QuoteInQuoted,
}

/// An entry as it inflates: never past its caps (per entry, in all, ratio), without a
/// byte-order mark, watching for a quoted field that runs to the end of the data (the
/// CSV parser would silently take the rest of the file as that field's value).
struct EntryReader<'a, R: Read> {
    inner: ZipFile<'a, R>,
    name: &'static str,
    count: u64,
    cap: u64,
    entry_cap: u64,
    total_cap: u64,
    limits: ArchiveLimits,
    inflated: &'a mut u64,
    /// The first bytes, held back until it is known whether they are a byte-order mark.
    head: Vec<u8>,
    head_done: bool,
    quote: QuoteState,
    line: u64,
    /// The line the last quoted field opened on.
    opened: u64,
    eof: bool,
}

impl<R: Read> EntryReader<'_, R> {
    fn inflate(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self
            .inner
            .read(buf)
            .map_err(|e| refusal(bad(format!("entry '{}' is corrupt: {e}", self.name))))?;
        self.count += n as u64;
        *self.inflated = (*self.inflated).max(self.count);
        if self.count > self.cap {
            let name = self.name;
            return Err(refusal(if self.count > self.entry_cap {
                bad(format!(
                    "entry '{name}' inflates to more than {} bytes, the limit per entry (zip bomb?)",
                    self.entry_cap
                ))
            } else if self.count > self.total_cap {
                bad(format!(
                    "the entries inflate to more than {} bytes, the limit in all (zip bomb?)",
                    self.limits.max_total_size
                ))
            } else {
                bad(format!(
                    "entry '{name}' inflates more than {} times its compressed size, the limit (zip bomb?)",
                    self.limits.max_ratio
                ))
            }));
        }
        Ok(n)
    }

    /// The line of a quoted field left open at the end of the data, once the end is read.
    fn unclosed_quote(&self) -> Option<u64> {
        (self.eof && self.quote == QuoteState::Quoted).then_some(self.opened)
    }

    fn track(&mut self, data: &[u8]) {
        for &byte in data {
            self.quote = match (self.quote, byte) {
                (QuoteState::Quoted, b'"') => QuoteState::QuoteInQuoted,
                (QuoteState::Quoted, _) => QuoteState::Quoted,
                (QuoteState::FieldStart, b'"') => {
                    self.opened = self.line;
                    QuoteState::Quoted
                }
                (QuoteState::QuoteInQuoted, b'"') => QuoteState::Quoted,
                (_, b',' | b'\n' | b'\r') => QuoteState::FieldStart,
                (_, _) => QuoteState::Unquoted,
            };
            if byte == b'\n' {
                self.line += 1;
            }
        }
    }
}

impl<R: Read> Read for EntryReader<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if !self.head_done {
            let mut head = [0u8; 3];
            let mut filled = 0;
            while filled < head.len() {
                let n = self.inflate(&mut head[filled..])?;
                if n == 0 {
                    break;
                }
                filled += n;
            }
            self.head_done = true;
            if head[..filled] != *b"\xEF\xBB\xBF" {
                self.head = head[..filled].to_vec();
            }
        }
        if buf.is_empty() {
            return Ok(0);
        }
        let n = if self.head.is_empty() {
            let n = self.inflate(buf)?;
            if n == 0 {
                self.eof = true;
            }
            n
        } else {
            let n = self.head.len().min(buf.len());
            buf[..n].copy_from_slice(&self.head[..n]);
            self.head.drain(..n);
            n
        };
        self.track(&buf[..n]);
        Ok(n)
    }
}

// ---------------------------------------------------------------------------------------
// CSV tables

/// The data rows of one CSV file, read as the entry inflates.
pub(crate) struct Table<'a, R: Read> {
    file: &'static FileSpec,
    reader: csv::Reader<EntryReader<'a, R>>,
    mapping: Vec<usize>,
    record: csv::ByteRecord,
}

impl<'a, R: Read> Table<'a, R> {
    /// Reads the header: columns by name (any order), no unknown or duplicate ones, every
    /// required one.
    fn new(file: &'static FileSpec, entry: EntryReader<'a, R>) -> Result<Self> {
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(false)
            .flexible(true)
            .from_reader(entry);
        let mut record = csv::ByteRecord::new();
        let got = reader
            .read_byte_record(&mut record)
            .map_err(|e| csv_error(file, e))?;
        if let Some(line) = reader.get_ref().unclosed_quote() {
            return Err(unclosed(file, line));
        }
        if !got {
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
        Ok(Self {
            file,
            reader,
            mapping,
            record,
        })
    }

    /// The next data row, `None` at the end of the file.
    pub(crate) fn next_row(&mut self) -> Result<Option<Row>> {
        let file = self.file;
        let got = self
            .reader
            .read_byte_record(&mut self.record)
            .map_err(|e| csv_error(file, e))?;
        if let Some(line) = self.reader.get_ref().unclosed_quote() {
            return Err(unclosed(file, line));
        }
        if !got {
            return Ok(None);
        }
        let line = self.record.position().map_or(0, |p| p.line());
        if self.record.len() != self.mapping.len() {
            return Err(bad(format!(
                "{} line {line}: bad CSV: {} fields, but the header has {}",
                file.name,
                self.record.len(),
                self.mapping.len()
            )));
        }
        // One string for the row's text, and each cell's range of it.
        let mut text = String::with_capacity(self.record.as_slice().len());
        let mut cells = vec![None; file.columns.len()];
        for (raw, &column) in self.record.iter().zip(&self.mapping) {
            let cell = std::str::from_utf8(raw).map_err(|_| {
                bad(format!(
                    "{} line {line}, column {}: invalid UTF-8",
                    file.name, file.columns[column]
                ))
            })?;
            let start = text.len();
            text.push_str(cell);
            cells[column] = Some((start, text.len()));
        }
        Ok(Some(Row {
            file,
            line,
            text,
            cells,
        }))
    }
}

fn unclosed(file: &FileSpec, line: u64) -> Error {
    bad(format!(
        "{} line {line}: bad CSV: a quoted field opened on this line is never closed",
        file.name
    ))
}

/// A CSV error, or the refusal an entry reader raised underneath it.
fn csv_error(file: &FileSpec, error: csv::Error) -> Error {
    if let csv::ErrorKind::Io(io) = error.kind()
        && let Some(refusal) = io.get_ref().and_then(|e| e.downcast_ref::<Refusal>())
    {
        return Error::invalid(refusal.0.clone());
    }
    bad(format!("{}: bad CSV: {error}", file.name))
}

/// One data row, its cells in the order of the file's documented columns; `None` for a
/// column the header leaves out.
pub(crate) struct Row {
    file: &'static FileSpec,
    pub(crate) line: u64,
    /// The cells' text, one after the other.
    text: String,
    /// Where each cell's text starts and ends in `text`.
    cells: Vec<Option<(usize, usize)>>,
}

impl Row {
    fn cell(&self, column: &str) -> Option<&str> {
        let index = self.file.columns.iter().position(|c| *c == column)?;
        self.cells[index].map(|(start, end)| &self.text[start..end])
    }

    pub(crate) fn error(&self, column: &str, message: impl Display) -> Error {
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
    fn reference(&self, column: &str, known: &dyn Fn(&str) -> bool) -> Result<String> {
        let id = self.required(column)?;
        if known(&id) {
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

// ---------------------------------------------------------------------------------------
// Rows to the archive's values

fn model_row_of(row: &Row) -> Result<ArchiveModel> {
    let version = row.required("format_version")?;
    if version.trim().parse::<u32>().ok() != Some(FORMAT_VERSION) {
        return Err(row.error(
            "format_version",
            format!(
                "unknown format_version '{}'; this server reads format_version {FORMAT_VERSION}",
                version.escape_debug()
            ),
        ));
    }
    Ok(ArchiveModel {
        name: row.required("name")?,
        profile: row.required("profile")?,
        description: row.text("description"),
    })
}

/// An objects.csv row, its cells checked (references are [`ObjectIndex`]'s).
pub(crate) fn object_row(row: &Row) -> Result<ArchiveObject> {
    Ok(ArchiveObject {
        native_id: row.required("native_id")?,
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
    })
}

pub(crate) fn attribute_row(row: &Row, known: &dyn Fn(&str) -> bool) -> Result<ArchiveAttribute> {
    Ok(ArchiveAttribute {
        native_id: row.reference("native_id", known)?,
        attribute: row.required("attribute")?,
        value_type: row.choice("value_type", ValueType::parse, &VALUE_TYPES)?,
        value: row.text("value"),
    })
}

pub(crate) fn relationship_row(
    row: &Row,
    known: &dyn Fn(&str) -> bool,
) -> Result<ArchiveRelationship> {
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
    Ok(ArchiveRelationship {
        kind,
        name,
        source_native_id: row.reference("source_native_id", known)?,
        target_native_id: row.reference("target_native_id", known)?,
    })
}

pub(crate) fn tag_row(row: &Row, known: &dyn Fn(&str) -> bool) -> Result<ArchiveTag> {
    Ok(ArchiveTag {
        native_id: row.reference("native_id", known)?,
        kind: row.choice(
            "kind",
            |s| TagKind::parse(&s.to_ascii_lowercase()),
            &TAG_KINDS,
        )?,
        value: row.required("value")?,
    })
}

pub(crate) fn classification_row(
    row: &Row,
    known: &dyn Fn(&str) -> bool,
) -> Result<ArchiveClassification> {
    Ok(ArchiveClassification {
        native_id: row.reference("native_id", known)?,
        data_class: row.required("data_class")?,
        status: row.choice("status", ClassificationStatus::parse, &STATUSES)?,
    })
}

pub(crate) fn label_row(row: &Row, known: &dyn Fn(&str) -> bool) -> Result<ArchiveLabel> {
    Ok(ArchiveLabel {
        native_id: row.reference("native_id", known)?,
        label: row.required("label")?,
        status: row.choice("status", ClassificationStatus::parse, &STATUSES)?,
    })
}

pub(crate) fn profiling_row(row: &Row, known: &dyn Fn(&str) -> bool) -> Result<ArchiveProfiling> {
    Ok(ArchiveProfiling {
        native_id: row.reference("native_id", known)?,
        data_profile: row.json("data_profile", "DataProfile")?,
        data_sample: row.json("data_sample", "DataSample")?,
    })
}

pub(crate) fn connection_row(row: &Row) -> Result<ArchiveConnection> {
    Ok(ArchiveConnection {
        name: row.text("name"),
        target_model: row.required("target_model")?,
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

/// Refuses a second value of one attribute on one object. Keeps one word per object (a
/// bit for each of the first 64 attribute names), not the rows.
#[derive(Debug, Default)]
pub(crate) struct AttributeCheck {
    names: HashMap<String, u32>,
    /// Bit `n` of word `o`: object `o` has a value of attribute name `n` (n < 64).
    seen: Vec<u64>,
    /// (object, name) for names from the 65th on.
    more: HashSet<(u32, u32)>,
}

impl AttributeCheck {
    pub(crate) fn check(
        &mut self,
        row: &Row,
        index: &ObjectIndex,
        attribute: &ArchiveAttribute,
    ) -> Result<()> {
        let object = index.find(&attribute.native_id).unwrap_or(u32::MAX);
        let next = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        let name = match self.names.get(attribute.attribute.as_str()) {
            Some(name) => *name,
            None => {
                self.names.insert(attribute.attribute.clone(), next);
                next
            }
        };
        if self.seen.is_empty() {
            self.seen = vec![0; index.len()];
        }
        let first = match self.seen.get_mut(object as usize) {
            Some(word) if name < 64 => {
                let bit = 1u64 << name;
                let first = *word & bit == 0;
                *word |= bit;
                first
            }
            _ => self.more.insert((object, name)),
        };
        if !first {
            return Err(row.error(
                "attribute",
                format!(
                    "attribute '{}' of '{}' is given twice",
                    attribute.attribute.escape_debug(),
                    attribute.native_id.escape_debug()
                ),
            ));
        }
        Ok(())
    }
}

/// Refuses a second profiling row of one object: one bit per object.
#[derive(Debug, Default)]
pub(crate) struct ProfilingCheck {
    seen: Vec<u64>,
    unknown: bool,
}

impl ProfilingCheck {
    pub(crate) fn check(&mut self, row: &Row, index: &ObjectIndex, native_id: &str) -> Result<()> {
        let first = match index.find(native_id) {
            Some(object) => {
                if self.seen.is_empty() {
                    self.seen = vec![0; index.len().div_ceil(64)];
                }
                let (word, bit) = (object as usize / 64, 1u64 << (object % 64));
                let first = self.seen[word] & bit == 0;
                self.seen[word] |= bit;
                first
            }
            None => !std::mem::replace(&mut self.unknown, true),
        };
        if !first {
            return Err(row.error(
                "native_id",
                format!("'{}' is profiled twice", native_id.escape_debug()),
            ));
        }
        Ok(())
    }
}

/// No parent.
pub(crate) const NO_PARENT: u32 = u32::MAX;

/// The objects of objects.csv by native id, compactly: for each object (numbered in file
/// order) its native id, its parent's number and its line. Refuses duplicate native ids,
/// dangling parents and parent cycles; holds no other cell of the rows.
#[derive(Debug, Default)]
pub(crate) struct ObjectIndex {
    /// Every native id, one after the other; `ends[i]` is where object i's ends.
    arena: String,
    ends: Vec<u32>,
    parents: Vec<u32>,
    /// Line numbers, for messages (saturating at `u32::MAX`).
    lines: Vec<u32>,
    /// The objects' numbers, hashed by their native ids (which stay in `arena`).
    numbers: hashbrown::HashTable<u32>,
    hasher: RandomState,
    /// Parents named before their row: (child, parent's native id), resolved by `finish`.
    pending: Vec<(u32, Box<str>)>,
    /// The object `find` found last: the rows of one object often follow each other.
    last: AtomicU32,
}

/// Object `object`'s native id in an index's arena.
fn native_of<'a>(arena: &'a str, ends: &[u32], object: usize) -> &'a str {
    let start = match object {
        0 => 0,
        _ => ends[object - 1] as usize,
    };
    arena.get(start..ends[object] as usize).unwrap_or_default()
}

impl ObjectIndex {
    /// How many objects there are.
    pub(crate) fn len(&self) -> usize {
        self.ends.len()
    }

    /// The native id of an object.
    fn native(&self, object: usize) -> &str {
        native_of(&self.arena, &self.ends, object)
    }

    /// An index with room for about `objects` objects.
    pub(crate) fn with_capacity(objects: usize) -> Self {
        let mut index = Self::default();
        index.ends.reserve(objects);
        index.parents.reserve(objects);
        index.lines.reserve(objects);
        index.numbers.reserve(objects, |_| 0);
        index
    }

    /// The number of the object with that native id. Rows usually name objects in the
    /// order of objects.csv: the object found last and the one after it are tried before
    /// the hash table (whose probes miss the cache at a million objects).
    pub(crate) fn find(&self, native: &str) -> Option<u32> {
        let last = self.last.load(Ordering::Relaxed);
        for at in [last, last.wrapping_add(1)] {
            if (at as usize) < self.ends.len() && self.native(at as usize) == native {
                self.last.store(at, Ordering::Relaxed);
                return Some(at);
            }
        }
        let found = self.find_hashed(self.hasher.hash_one(native), native);
        if let Some(at) = found {
            self.last.store(at, Ordering::Relaxed);
        }
        found
    }

    fn find_hashed(&self, hash: u64, native: &str) -> Option<u32> {
        self.numbers
            .find(hash, |&at| self.native(at as usize) == native)
            .copied()
    }

    /// The parent's number, or [`NO_PARENT`] (only meaningful after `finish`).
    pub(crate) fn parent(&self, object: u32) -> u32 {
        self.parents[object as usize]
    }

    /// Adds the object of an objects.csv row; refuses a native id seen before.
    pub(crate) fn add(&mut self, row: &Row, native: &str, parent: Option<&str>) -> Result<u32> {
        let hash = self.hasher.hash_one(native);
        if let Some(first) = self.find_hashed(hash, native) {
            return Err(row.error(
                "native_id",
                format!(
                    "duplicate native_id '{}' (first on line {})",
                    native.escape_debug(),
                    self.lines[first as usize]
                ),
            ));
        }
        let number = u32::try_from(self.ends.len())
            .ok()
            .filter(|n| *n < NO_PARENT)
            .ok_or_else(|| bad("objects.csv has too many rows"))?;
        let parent = match parent {
            None => NO_PARENT,
            Some(parent) => match self.find(parent) {
                Some(found) => found,
                None => {
                    self.pending.push((number, parent.into()));
                    NO_PARENT
                }
            },
        };
        self.arena.push_str(native);
        let end = u32::try_from(self.arena.len())
            .map_err(|_| bad("objects.csv holds more than 4 GiB of native ids"))?;
        self.ends.push(end);
        self.parents.push(parent);
        self.lines.push(u32::try_from(row.line).unwrap_or(u32::MAX));
        let (arena, ends, hasher) = (&self.arena, &self.ends, &self.hasher);
        self.numbers.insert_unique(hash, number, |&at| {
            hasher.hash_one(native_of(arena, ends, at as usize))
        });
        Ok(number)
    }

    /// Resolves parents named before their rows and refuses dangling parents and cycles.
    pub(crate) fn finish(&mut self) -> Result<()> {
        for (child, parent) in std::mem::take(&mut self.pending) {
            let Some(found) = self.find(&parent) else {
                return Err(bad(format!(
                    "{} line {}, column parent_native_id: dangling parent '{}' of '{}': objects.csv has no such native_id",
                    spec::OBJECTS.name,
                    self.lines[child as usize],
                    parent.escape_debug(),
                    self.native(child as usize).escape_debug()
                )));
            };
            self.parents[child as usize] = found;
        }

        // Walk up from every object; meeting an object of the current walk again is a cycle.
        const NEW: u8 = 0;
        const ON_PATH: u8 = 1;
        const DONE: u8 = 2;
        let mut state = vec![NEW; self.len()];
        let mut path: Vec<u32> = Vec::new();
        for start in 0..self.len() {
            path.clear();
            let mut current = start as u32;
            while current != NO_PARENT {
                let i = current as usize;
                match state[i] {
                    DONE => break,
                    ON_PATH => {
                        let from = path.iter().position(|&p| p == current).unwrap_or(0);
                        let mut names: Vec<String> = path[from..]
                            .iter()
                            .map(|&p| self.native(p as usize).escape_debug().to_string())
                            .collect();
                        names.push(self.native(i).escape_debug().to_string());
                        return Err(bad(format!(
                            "{} line {}, column parent_native_id: parent cycle: {}",
                            spec::OBJECTS.name,
                            self.lines[i],
                            names.join(" -> ")
                        )));
                    }
                    _ => {
                        state[i] = ON_PATH;
                        path.push(current);
                        current = self.parents[i];
                    }
                }
            }
            for &i in &path {
                state[i as usize] = DONE;
            }
        }
        Ok(())
    }
}
