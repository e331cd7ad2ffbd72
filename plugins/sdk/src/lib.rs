//! Lore importer plugins.
//!
//! A plugin is a shared library (`crate-type = ["cdylib"]`) that turns some source — a
//! file, a database, a service — into a model: objects, their attributes, relationships,
//! labels, classifications and profiling, the rows of Lore's model archive
//! (`docs/model-archive.md`). The author writes one [`Importer`] and exports it:
//!
//! ```
//! use lore_plugin_sdk::{About, Error, Format, Importer, Model, Object, Output, Request};
//!
//! struct Hello;
//!
//! impl Importer for Hello {
//!     fn about() -> About {
//!         About::new("hello", env!("CARGO_PKG_VERSION"))
//!             .format(Format::new("hello", "One greeting object").without_file())
//!     }
//!
//!     fn import(_request: &Request, out: &mut Output<'_>) -> Result<(), Error> {
//!         out.model(Model::new("Hello", "Custom Model"))?;
//!         out.object(Object::new("hello", "Custom Object", "Hello, Lore"))?;
//!         Ok(())
//!     }
//! }
//!
//! lore_plugin_sdk::export_importer!(Hello);
//! ```
//!
//! # The ABI
//!
//! The library exports one C symbol, [`DESCRIPTOR_SYMBOL`]: a function returning a
//! pointer to a [`PluginDescriptor`] whose first field is the ABI version. Lore reads that
//! field before anything else and refuses a library of another version. Everything else
//! crosses as UTF-8 JSON through one callback ([`HostCallbacks`]), never as Rust layouts,
//! so a plugin built by another compiler version works. Records are sent in chunks (a
//! JSON array each) while the import runs; the plugin never holds the whole model.
//!
//! Lore runs every import in a child process (`lore plugin-host`), with a time and a
//! memory limit: a plugin that panics, aborts or crashes fails its import, not Lore.
//! What a plugin sends is checked like an uploaded model archive before anything is
//! written.

#![allow(unsafe_code)] // the C ABI: raw pointers and exported symbols

pub mod testing;

use std::ffi::{c_char, c_void};
use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// The version of the ABI this SDK speaks. It changes only when [`PluginDescriptor`],
/// [`HostCallbacks`] or the meaning of a message kind changes incompatibly.
pub const ABI_VERSION: u32 = 1;

/// The symbol every plugin exports: `extern "C" fn() -> *const PluginDescriptor`.
pub const DESCRIPTOR_SYMBOL: &str = "lore_plugin_descriptor";

/// What a plugin library exports, behind [`DESCRIPTOR_SYMBOL`].
#[repr(C)]
#[derive(Debug)]
pub struct PluginDescriptor {
    /// [`ABI_VERSION`] of the SDK the plugin was built with. Always the first field: the
    /// host reads it alone and checks it before it touches the rest.
    pub abi_version: u32,
    /// NUL-terminated UTF-8 JSON of the plugin's [`About`].
    pub about_json: *const c_char,
    /// Runs one import: `request` is the JSON of a [`Request`]; the plugin sends what it
    /// produces through `host` and answers 0 on success, anything else on failure (after
    /// sending a [`message::ERROR`]).
    pub import: unsafe extern "C" fn(
        request: *const u8,
        request_len: usize,
        host: *const HostCallbacks,
    ) -> i32,
}

/// The host's side of an import: one callback that takes every message.
#[repr(C)]
#[derive(Debug)]
pub struct HostCallbacks {
    /// Passed back to `send` unchanged.
    pub context: *mut c_void,
    /// Takes a message of a [`message`] kind: `data` is UTF-8, valid for the call only.
    /// Answers 0 to go on; anything else asks the plugin to stop (the import was
    /// cancelled or went over a limit), and every later send is refused too.
    pub send:
        unsafe extern "C" fn(context: *mut c_void, kind: u32, data: *const u8, len: usize) -> i32,
}

/// The kinds of message a plugin sends.
pub mod message {
    /// A JSON array of [`Record`](crate::Record)s.
    pub const RECORDS: u32 = 1;
    /// A [`LogLine`](crate::LogLine) as JSON.
    pub const LOG: u32 = 2;
    /// A [`Progress`](crate::Progress) as JSON.
    pub const PROGRESS: u32 = 3;
    /// Why the import failed, as plain text.
    pub const ERROR: u32 = 4;
}

/// Who the plugin is and what it reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct About {
    /// The plugin's name, e.g. `dbt`.
    pub name: String,
    /// The plugin's own version.
    pub version: String,
    #[serde(default)]
    pub description: String,
    /// The formats it imports; a format name is what users select an importer by, so it
    /// must be unique among the plugins of a server.
    pub formats: Vec<Format>,
}

impl About {
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            version: version.into(),
            description: String::new(),
            formats: Vec::new(),
        }
    }

    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }

    pub fn format(mut self, format: Format) -> Self {
        self.formats.push(format);
        self
    }
}

/// One format a plugin imports.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Format {
    /// e.g. `dbt-manifest`.
    pub name: String,
    #[serde(default)]
    pub description: String,
    /// Whether the import reads a file (the model's attachment, or an upload).
    pub file: FileUse,
    /// A JSON Schema of the parameters (an object schema); Lore checks required
    /// parameters and their types against it before it starts the plugin.
    pub parameters: Value,
}

impl Format {
    /// A format that reads a file and takes no parameters.
    pub fn new(name: impl Into<String>, description: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            description: description.into(),
            file: FileUse::Required,
            parameters: serde_json::json!({ "type": "object", "properties": {} }),
        }
    }

    /// The format reads no file (a database harvester, say).
    pub fn without_file(mut self) -> Self {
        self.file = FileUse::None;
        self
    }

    /// The format reads a file when one is given.
    pub fn optional_file(mut self) -> Self {
        self.file = FileUse::Optional;
        self
    }

    /// The JSON Schema of the parameters.
    pub fn parameters(mut self, schema: Value) -> Self {
        self.parameters = schema;
        self
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FileUse {
    Required,
    Optional,
    None,
}

/// One import asked of the plugin.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Request {
    /// One of the plugin's format names.
    pub format: String,
    /// The file to read, when the format reads one.
    #[serde(default)]
    pub file: Option<PathBuf>,
    /// The parameters, checked against the format's schema.
    #[serde(default)]
    pub parameters: Map<String, Value>,
}

impl Request {
    /// A string parameter.
    pub fn text(&self, name: &str) -> Option<&str> {
        self.parameters.get(name).and_then(Value::as_str)
    }

    /// A boolean parameter; absent is `false`.
    pub fn flag(&self, name: &str) -> bool {
        self.parameters
            .get(name)
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// The file to read, or an error naming the format.
    pub fn require_file(&self) -> Result<&std::path::Path, Error> {
        self.file
            .as_deref()
            .ok_or_else(|| Error::new(format!("format '{}' needs a file", self.format)))
    }
}

/// Why a plugin's import failed. The message reaches the user in the operation's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error(pub String);

impl Error {
    pub fn new(message: impl Into<String>) -> Self {
        Self(message.into())
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Error {}

impl From<String> for Error {
    fn from(message: String) -> Self {
        Self(message)
    }
}

impl From<&str> for Error {
    fn from(message: &str) -> Self {
        Self(message.to_owned())
    }
}

impl From<std::io::Error> for Error {
    fn from(e: std::io::Error) -> Self {
        Self(e.to_string())
    }
}

impl From<serde_json::Error> for Error {
    fn from(e: serde_json::Error) -> Self {
        Self(e.to_string())
    }
}

/// A line of the import's log.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LogLine {
    pub level: Level,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    Info,
    Warn,
    Error,
}

/// How far an import has come: `done` of `total` units (objects, tables, rows...).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Progress {
    pub done: u64,
    #[serde(default)]
    pub total: Option<u64>,
    /// What is counted, e.g. `tables`.
    #[serde(default)]
    pub unit: String,
}

/// A row of the model archive (`docs/model-archive.md`): the same names and meanings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "snake_case", deny_unknown_fields)]
pub enum Record {
    Model(Model),
    Object(Object),
    Attribute(Attribute),
    Relationship(Relationship),
    Label(Label),
    Classification(Classification),
    SensitivityLabel(SensitivityLabel),
    Profiling(Profiling),
    Connection(Connection),
}

/// `model.csv`: sent exactly once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Model {
    pub name: String,
    /// e.g. `RDBMS Relational Database (Database)`, `File System (File)`, `Custom Model`.
    pub profile: String,
    #[serde(default)]
    pub description: String,
}

impl Model {
    pub fn new(name: impl Into<String>, profile: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            profile: profile.into(),
            description: String::new(),
        }
    }

    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = description.into();
        self
    }
}

/// `objects.csv`: one object; parents may come before or after their children.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Object {
    /// Unique in the model; how re-imports match objects and keep their curation.
    pub native_id: String,
    pub parent_native_id: Option<String>,
    pub object_type: String,
    pub name: String,
    pub physical_name: Option<String>,
    pub description: Option<String>,
    pub business_name: Option<String>,
    pub business_description: Option<String>,
    pub data_type: Option<String>,
    pub external_url: Option<String>,
    pub hide_data: bool,
    pub workflow_state: Option<String>,
}

impl Object {
    pub fn new(
        native_id: impl Into<String>,
        object_type: impl Into<String>,
        name: impl Into<String>,
    ) -> Self {
        Self {
            native_id: native_id.into(),
            object_type: object_type.into(),
            name: name.into(),
            ..Self::default()
        }
    }

    pub fn parent(mut self, parent_native_id: impl Into<String>) -> Self {
        self.parent_native_id = Some(parent_native_id.into());
        self
    }

    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into()).filter(|d| !d.is_empty());
        self
    }

    pub fn data_type(mut self, data_type: impl Into<String>) -> Self {
        self.data_type = Some(data_type.into());
        self
    }

    pub fn physical_name(mut self, physical_name: impl Into<String>) -> Self {
        self.physical_name = Some(physical_name.into());
        self
    }
}

/// `attributes.csv`: one attribute value of an object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attribute {
    pub native_id: String,
    pub attribute: String,
    /// `String`, `Integer`, `Double`, `Boolean`, `Date`, `DateTime` or `Object`.
    pub value_type: String,
    pub value: String,
}

impl Attribute {
    pub fn text(
        native_id: impl Into<String>,
        attribute: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        Self::typed(native_id, attribute, "String", value)
    }

    pub fn integer(native_id: impl Into<String>, attribute: impl Into<String>, value: i64) -> Self {
        Self::typed(native_id, attribute, "Integer", value.to_string())
    }

    pub fn boolean(
        native_id: impl Into<String>,
        attribute: impl Into<String>,
        value: bool,
    ) -> Self {
        Self::typed(native_id, attribute, "Boolean", value.to_string())
    }

    pub fn typed(
        native_id: impl Into<String>,
        attribute: impl Into<String>,
        value_type: impl Into<String>,
        value: impl Into<String>,
    ) -> Self {
        Self {
            native_id: native_id.into(),
            attribute: attribute.into(),
            value_type: value_type.into(),
            value: value.into(),
        }
    }
}

/// `relationships.csv`: an edge between two objects of the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Relationship {
    /// `custom_relationship`, `semantic_link`, `entity_relationship`, `term_reference` or
    /// `lineage`.
    pub kind: String,
    #[serde(default)]
    pub name: String,
    pub source_native_id: String,
    pub target_native_id: String,
}

impl Relationship {
    pub fn new(
        kind: impl Into<String>,
        name: impl Into<String>,
        source_native_id: impl Into<String>,
        target_native_id: impl Into<String>,
    ) -> Self {
        Self {
            kind: kind.into(),
            name: name.into(),
            source_native_id: source_native_id.into(),
            target_native_id: target_native_id.into(),
        }
    }
}

/// `labels.csv`: a label (`kind` = `label`) or collection (`collection`) of an object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Label {
    pub native_id: String,
    pub kind: String,
    pub value: String,
}

impl Label {
    /// A label (not a collection).
    #[allow(clippy::self_named_constructors)] // `Label::label` vs a collection
    pub fn label(native_id: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            native_id: native_id.into(),
            kind: "label".into(),
            value: value.into(),
        }
    }
}

/// `classifications.csv`: a data class of an object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Classification {
    pub native_id: String,
    pub data_class: String,
    /// `MATCHED`, `PROPOSED`, `APPROVED` or `REJECTED`.
    pub status: String,
}

/// `sensitivity_labels.csv`: a sensitivity label of an object.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SensitivityLabel {
    pub native_id: String,
    pub label: String,
    pub status: String,
}

/// `profiling.csv`: the DataProfile and DataSample JSON of an object (spec mql 2.7).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Profiling {
    pub native_id: String,
    #[serde(default)]
    pub data_profile: Option<Value>,
    #[serde(default)]
    pub data_sample: Option<Value>,
}

/// `connections.csv`: a connection of the model to another model of the repository.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Connection {
    #[serde(default)]
    pub name: String,
    pub target_model: String,
}

/// What a plugin implements. [`export_importer!`] makes it a plugin.
pub trait Importer {
    /// Who the plugin is and what it reads; called once when Lore loads the plugin.
    fn about() -> About;

    /// Reads the source named by `request` and sends the model through `out`. An error
    /// fails the import; nothing of it is written.
    fn import(request: &Request, out: &mut Output<'_>) -> Result<(), Error>;
}

/// Records sent at once, at most.
const CHUNK_RECORDS: usize = 4_096;
/// Bytes of JSON sent at once, about.
const CHUNK_BYTES: usize = 1 << 20;

/// Where an import sends its records, log lines and progress. Records are buffered and
/// sent in chunks.
pub struct Output<'a> {
    send: &'a mut dyn FnMut(u32, &[u8]) -> bool,
    buffer: Vec<u8>,
    buffered: usize,
    stopped: bool,
}

impl fmt::Debug for Output<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Output")
            .field("buffered", &self.buffered)
            .field("stopped", &self.stopped)
            .finish()
    }
}

impl<'a> Output<'a> {
    /// An output over a sender of messages: `send(kind, data)` answers whether to go on.
    /// Plugins get theirs from the host; tests can make one over a closure.
    pub fn new(send: &'a mut dyn FnMut(u32, &[u8]) -> bool) -> Self {
        Self {
            send,
            buffer: Vec::with_capacity(CHUNK_BYTES + 4096),
            buffered: 0,
            stopped: false,
        }
    }

    pub fn model(&mut self, model: Model) -> Result<(), Error> {
        self.record(&Record::Model(model))
    }

    pub fn object(&mut self, object: Object) -> Result<(), Error> {
        self.record(&Record::Object(object))
    }

    pub fn attribute(&mut self, attribute: Attribute) -> Result<(), Error> {
        self.record(&Record::Attribute(attribute))
    }

    pub fn relationship(&mut self, relationship: Relationship) -> Result<(), Error> {
        self.record(&Record::Relationship(relationship))
    }

    pub fn label(&mut self, label: Label) -> Result<(), Error> {
        self.record(&Record::Label(label))
    }

    pub fn classification(&mut self, classification: Classification) -> Result<(), Error> {
        self.record(&Record::Classification(classification))
    }

    pub fn sensitivity_label(&mut self, label: SensitivityLabel) -> Result<(), Error> {
        self.record(&Record::SensitivityLabel(label))
    }

    pub fn profiling(&mut self, profiling: Profiling) -> Result<(), Error> {
        self.record(&Record::Profiling(profiling))
    }

    pub fn connection(&mut self, connection: Connection) -> Result<(), Error> {
        self.record(&Record::Connection(connection))
    }

    /// Buffers one record; sends the chunk when it is full.
    pub fn record(&mut self, record: &Record) -> Result<(), Error> {
        self.buffer
            .push(if self.buffered == 0 { b'[' } else { b',' });
        serde_json::to_writer(&mut self.buffer, record)?;
        self.buffered += 1;
        if self.buffered >= CHUNK_RECORDS || self.buffer.len() >= CHUNK_BYTES {
            self.flush()?;
        }
        Ok(())
    }

    /// A line for the import's log.
    pub fn log(&mut self, level: Level, message: impl Into<String>) -> Result<(), Error> {
        let line = serde_json::to_vec(&LogLine {
            level,
            message: message.into(),
        })?;
        self.send(message::LOG, &line)
    }

    /// How far the import has come.
    pub fn progress(&mut self, done: u64, total: Option<u64>, unit: &str) -> Result<(), Error> {
        let progress = serde_json::to_vec(&Progress {
            done,
            total,
            unit: unit.to_owned(),
        })?;
        self.send(message::PROGRESS, &progress)
    }

    /// Sends the buffered records.
    pub fn flush(&mut self) -> Result<(), Error> {
        if self.buffered == 0 {
            return Ok(());
        }
        self.buffer.push(b']');
        let chunk = std::mem::take(&mut self.buffer);
        self.buffered = 0;
        let sent = self.send(message::RECORDS, &chunk);
        self.buffer = chunk;
        self.buffer.clear();
        sent
    }

    /// Sends a message as it is, unchecked: for tests of hosts, which must survive
    /// whatever a plugin sends. Plugins have no use for it.
    #[doc(hidden)]
    pub fn send_raw(&mut self, kind: u32, data: &[u8]) -> Result<(), Error> {
        self.flush()?;
        self.send(kind, data)
    }

    fn send(&mut self, kind: u32, data: &[u8]) -> Result<(), Error> {
        if self.stopped || !(self.send)(kind, data) {
            self.stopped = true;
            return Err(Error::new("the host stopped the import"));
        }
        Ok(())
    }
}

/// What [`export_importer!`] expands to; not for direct use.
#[doc(hidden)]
pub mod __private {
    use super::*;
    use std::ffi::CString;
    use std::panic::{AssertUnwindSafe, catch_unwind};

    /// The exported descriptor and the string it points into.
    #[derive(Debug)]
    pub struct Exported {
        pub descriptor: PluginDescriptor,
        _about: CString,
    }

    // SAFETY: the pointers point into `_about`, which lives as long as the descriptor and
    // is never written; the import function is a plain function.
    unsafe impl Sync for Exported {}
    unsafe impl Send for Exported {}

    pub fn export<T: Importer>() -> Exported {
        let json =
            serde_json::to_string(&T::about()).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
        let about = CString::new(json).unwrap_or_default();
        Exported {
            descriptor: PluginDescriptor {
                abi_version: ABI_VERSION,
                about_json: about.as_ptr(),
                import: import::<T>,
            },
            _about: about,
        }
    }

    /// The C entry point of an import: decodes the request, runs the importer with
    /// panics caught, and reports the outcome.
    ///
    /// # Safety
    /// `request` must point to `request_len` readable bytes and `host` to valid
    /// callbacks, for the duration of the call.
    pub unsafe extern "C" fn import<T: Importer>(
        request: *const u8,
        request_len: usize,
        host: *const HostCallbacks,
    ) -> i32 {
        // SAFETY: the caller's contract.
        let (request, host) = unsafe { (std::slice::from_raw_parts(request, request_len), &*host) };
        let mut send = |kind: u32, data: &[u8]| {
            // SAFETY: `data` is valid for the call; the host's contract covers the rest.
            unsafe { (host.send)(host.context, kind, data.as_ptr(), data.len()) == 0 }
        };
        let outcome = catch_unwind(AssertUnwindSafe(|| -> Result<(), Error> {
            let request: Request = serde_json::from_slice(request)
                .map_err(|e| Error::new(format!("the request is not valid: {e}")))?;
            let mut out = Output::new(&mut send);
            T::import(&request, &mut out)?;
            out.flush()
        }));
        let error = match outcome {
            Ok(Ok(())) => return 0,
            Ok(Err(error)) => error.0,
            Err(panic) => {
                let what = panic
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "a panic without a message".to_owned());
                format!("the plugin panicked: {what}")
            }
        };
        send(message::ERROR, error.as_bytes());
        1
    }
}

/// Exports an [`Importer`] as the plugin of this library:
/// `lore_plugin_sdk::export_importer!(MyImporter);` in a `cdylib` crate.
#[macro_export]
macro_rules! export_importer {
    ($importer:ty) => {
        /// The plugin's descriptor: what Lore looks up when it loads this library.
        #[unsafe(no_mangle)]
        pub extern "C" fn lore_plugin_descriptor() -> *const $crate::PluginDescriptor {
            static EXPORTED: ::std::sync::OnceLock<$crate::__private::Exported> =
                ::std::sync::OnceLock::new();
            &EXPORTED
                .get_or_init($crate::__private::export::<$importer>)
                .descriptor
        }
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Two;

    impl Importer for Two {
        fn about() -> About {
            About::new("two", "1.0").format(Format::new("two", "").without_file())
        }

        fn import(request: &Request, out: &mut Output<'_>) -> Result<(), Error> {
            if request.flag("panic") {
                panic!("asked to");
            }
            out.model(Model::new("M", "Custom Model"))?;
            for n in 0..5_000 {
                out.object(Object::new(n.to_string(), "Custom Object", "o"))?;
            }
            Ok(())
        }
    }

    export_importer!(Two);

    unsafe extern "C" fn collect(
        context: *mut c_void,
        kind: u32,
        data: *const u8,
        len: usize,
    ) -> i32 {
        // SAFETY: the test passes a Vec as context and valid data.
        let (messages, data) = unsafe {
            (
                &mut *(context as *mut Vec<(u32, Vec<u8>)>),
                std::slice::from_raw_parts(data, len),
            )
        };
        messages.push((kind, data.to_vec()));
        0
    }

    fn run(request: &str) -> (i32, Vec<(u32, Vec<u8>)>) {
        let mut messages: Vec<(u32, Vec<u8>)> = Vec::new();
        let host = HostCallbacks {
            context: (&mut messages as *mut Vec<(u32, Vec<u8>)>).cast(),
            send: collect,
        };
        let descriptor = lore_plugin_descriptor();
        // SAFETY: the descriptor is this crate's own, the request and host are valid.
        let code = unsafe {
            assert_eq!((*descriptor).abi_version, ABI_VERSION);
            ((*descriptor).import)(request.as_ptr(), request.len(), &host)
        };
        (code, messages)
    }

    #[test]
    fn records_arrive_in_chunks_that_parse_back() {
        let (code, messages) = run(r#"{"format":"two"}"#);
        assert_eq!(code, 0);
        let chunks: Vec<Vec<Record>> = messages
            .iter()
            .map(|(kind, data)| {
                assert_eq!(*kind, message::RECORDS);
                serde_json::from_slice(data).expect("a chunk is a JSON array of records")
            })
            .collect();
        assert_eq!(chunks.len(), 2, "5001 records make two chunks");
        assert_eq!(chunks.iter().map(Vec::len).sum::<usize>(), 5_001);
        assert_eq!(chunks[0][0], Record::Model(Model::new("M", "Custom Model")));
    }

    #[test]
    fn a_panic_is_an_error_message_not_an_unwind_across_the_boundary() {
        let (code, messages) = run(r#"{"format":"two","parameters":{"panic":true}}"#);
        assert_eq!(code, 1);
        let (kind, text) = messages.last().expect("an error message");
        assert_eq!(*kind, message::ERROR);
        assert_eq!(
            String::from_utf8_lossy(text),
            "the plugin panicked: asked to"
        );
    }

    #[test]
    fn a_bad_request_is_refused() {
        let (code, messages) = run("{");
        assert_eq!(code, 1);
        assert!(String::from_utf8_lossy(&messages[0].1).starts_with("the request is not valid"));
    }

    #[test]
    fn about_is_exported_as_json() {
        let descriptor = lore_plugin_descriptor();
        // SAFETY: a NUL-terminated string owned by the exported descriptor.
        let json = unsafe { std::ffi::CStr::from_ptr((*descriptor).about_json) };
        let about: About = serde_json::from_slice(json.to_bytes()).expect("About JSON");
        assert_eq!(about, Two::about());
    }
}
