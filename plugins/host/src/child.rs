//! The plugin host: `lore plugin-host`, the child process that loads a plugin library,
//! checks its ABI version and runs it. Whatever the library does — panic, abort, crash,
//! hang, eat memory — happens in this process, never in Lore's.
//!
//! It talks to its parent in lines on stdout that start with [`EVENT_PREFIX`]; any other
//! output (a plugin's own prints) is passed on as log lines.

#![allow(unsafe_code)] // loading a library and calling through its C ABI

use std::ffi::{CStr, c_void};
use std::io::{Read, Write};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use lore_plugin_sdk::{
    ABI_VERSION, About, DESCRIPTOR_SYMBOL, HostCallbacks, LogLine, PluginDescriptor, Progress,
    Record, Request, message,
};
use serde::{Deserialize, Serialize};

use crate::spool::{Counts, Spool};

/// Starts every line of the plugin host's protocol on stdout.
pub const EVENT_PREFIX: &str = "@lore ";

/// What the plugin host reports to Lore.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "snake_case")]
pub enum Event {
    About {
        about: About,
    },
    Log(LogLine),
    Progress(Progress),
    /// Records received so far.
    Received(Counts),
    /// The archive is complete.
    Done(Counts),
    Failed {
        message: String,
    },
}

/// `lore plugin-host ...`: not for people; Lore starts it.
#[derive(Debug, clap::Args)]
pub struct HostArgs {
    /// Limit of this process's address space, in MiB, set before the library is loaded.
    #[arg(long)]
    pub memory_mib: Option<u64>,
    #[command(subcommand)]
    pub command: HostCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum HostCommand {
    /// Loads the library and prints its About.
    Describe { library: PathBuf },
    /// Runs one import: the request (JSON) on stdin, the model archive to `--output`.
    Import {
        library: PathBuf,
        #[arg(long)]
        output: PathBuf,
        /// Most bytes of records the plugin may send.
        #[arg(long)]
        max_output_mib: u64,
    },
}

/// The plugin host's `main`.
pub fn main(args: HostArgs) -> ExitCode {
    watch_parent();
    let outcome = run(args);
    if let Err(message) = &outcome {
        emit(&Event::Failed {
            message: message.clone(),
        });
    }
    let _ = std::io::stdout().flush();
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(_) => ExitCode::FAILURE,
    }
}

fn run(args: HostArgs) -> Result<(), String> {
    if let Some(mib) = args.memory_mib {
        let bytes = mib.saturating_mul(1 << 20);
        rlimit::setrlimit(rlimit::Resource::AS, bytes, bytes)
            .map_err(|e| format!("cannot set the memory limit of {mib} MiB: {e}"))?;
    }
    match args.command {
        HostCommand::Describe { library } => {
            let plugin = load(&library)?;
            emit(&Event::About {
                about: plugin.about,
            });
            Ok(())
        }
        HostCommand::Import {
            library,
            output,
            max_output_mib,
        } => {
            let mut request = String::new();
            std::io::stdin()
                .read_to_string(&mut request)
                .map_err(|e| format!("cannot read the request: {e}"))?;
            let request: Request = serde_json::from_str(&request)
                .map_err(|e| format!("the request is not valid: {e}"))?;
            let plugin = load(&library)?;
            let counts = import(&plugin, &request, &output, max_output_mib << 20)?;
            emit(&Event::Done(counts));
            Ok(())
        }
    }
}

/// Ends this process when the Lore that started it is gone (killed, crashed): a plugin
/// that hangs must not outlive it. Lore kills its hosts itself otherwise.
fn watch_parent() {
    #[cfg(unix)]
    {
        let parent = std::os::unix::process::parent_id();
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(std::time::Duration::from_millis(500));
                if std::os::unix::process::parent_id() != parent {
                    // Not eprintln!: its pipe is likely closed with Lore, and a failed
                    // print would panic this thread instead of ending the process.
                    let _ = writeln!(
                        std::io::stderr(),
                        "the Lore process that started this plugin host is gone; stopping"
                    );
                    std::process::exit(3);
                }
            }
        });
    }
}

fn emit(event: &Event) {
    if let Ok(json) = serde_json::to_string(event) {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{EVENT_PREFIX}{json}");
        let _ = out.flush();
    }
}

/// A loaded plugin. Its library is never unloaded.
struct Plugin {
    descriptor: &'static PluginDescriptor,
    about: About,
}

fn load(path: &Path) -> Result<Plugin, String> {
    let shown = path.display();
    // SAFETY: loading runs the library's initialisers; that is why this is a child process.
    let library = unsafe { libloading::Library::new(path) }
        .map_err(|e| format!("cannot load {shown}: {e}"))?;
    // SAFETY: the symbol's type is the one every Lore plugin exports.
    let describe = unsafe {
        library
            .get::<unsafe extern "C" fn() -> *const PluginDescriptor>(DESCRIPTOR_SYMBOL.as_bytes())
    }
    .map_err(|e| format!("{shown} is not a Lore plugin: no symbol {DESCRIPTOR_SYMBOL} ({e})"))?;
    // SAFETY: as above.
    let pointer = unsafe { describe() };
    if pointer.is_null() {
        return Err(format!(
            "{shown}: {DESCRIPTOR_SYMBOL} answered no descriptor"
        ));
    }
    // SAFETY: every ABI version begins its descriptor with the version as a u32; nothing
    // else is read before it is checked.
    let version = unsafe { pointer.cast::<u32>().read() };
    if version != ABI_VERSION {
        return Err(format!(
            "{shown} was built for plugin ABI version {version}, but this Lore loads version {ABI_VERSION}; rebuild the plugin with a lore-plugin-sdk of ABI version {ABI_VERSION}"
        ));
    }
    // SAFETY: the version matches, so the layout is this SDK's; the library stays loaded
    // for the life of the process (forgotten below), so the reference is 'static.
    let descriptor: &'static PluginDescriptor = unsafe { &*pointer };
    std::mem::forget(library);
    if descriptor.about_json.is_null() {
        return Err(format!("{shown}: the descriptor has no About"));
    }
    // SAFETY: a NUL-terminated string the descriptor owns.
    let about = unsafe { CStr::from_ptr(descriptor.about_json) };
    let about: About = serde_json::from_slice(about.to_bytes())
        .map_err(|e| format!("{shown}: the plugin's About is not valid: {e}"))?;
    if about.formats.is_empty() {
        return Err(format!("{shown}: the plugin names no format"));
    }
    Ok(Plugin { descriptor, about })
}

/// The state of one import, behind the callbacks' context pointer. Chunks of records go
/// to a writer thread that parses and spools them, so the plugin produces the next chunk
/// while the last one is written: the two use both cores.
struct Receiver {
    chunks: Option<std::sync::mpsc::SyncSender<Vec<u8>>>,
    /// Set by the writer when it failed: the next message is refused.
    writer_failed: std::sync::Arc<std::sync::atomic::AtomicBool>,
    /// Bytes of records received.
    received: u64,
    max_output: u64,
    error: Option<String>,
    /// Set when the host refused a message: every later one is refused too.
    stopped: bool,
}

/// The writer thread: parses chunks and spools their records until the channel closes
/// or a chunk fails; answers the spool.
fn write_chunks(
    mut spool: Spool,
    chunks: std::sync::mpsc::Receiver<Vec<u8>>,
    failed: std::sync::Arc<std::sync::atomic::AtomicBool>,
) -> Result<Spool, String> {
    let mut reported_objects = 0;
    let outcome = (|| {
        for chunk in chunks {
            let records: Vec<Record> = serde_json::from_slice(&chunk)
                .map_err(|e| format!("the plugin sent malformed records: {e}"))?;
            for record in records {
                spool.add(record)?;
            }
            if spool.counts.objects >= reported_objects + 10_000 {
                reported_objects = spool.counts.objects;
                emit(&Event::Received(spool.counts));
            }
        }
        Ok(())
    })();
    if outcome.is_err() {
        failed.store(true, std::sync::atomic::Ordering::Relaxed);
    }
    outcome.map(|()| spool)
}

impl Receiver {
    fn take(&mut self, kind: u32, data: &[u8]) -> Result<(), String> {
        match kind {
            message::RECORDS => {
                self.received += data.len() as u64;
                if self.received > self.max_output {
                    return Err(format!(
                        "the plugin sent more than {} MiB of records, the limit",
                        self.max_output >> 20
                    ));
                }
                if self
                    .writer_failed
                    .load(std::sync::atomic::Ordering::Relaxed)
                {
                    // The writer's own error says why.
                    return Err(String::new());
                }
                let sent = self
                    .chunks
                    .as_ref()
                    .is_some_and(|chunks| chunks.send(data.to_vec()).is_ok());
                if !sent {
                    return Err(String::new());
                }
            }
            message::LOG => {
                let line: LogLine = serde_json::from_slice(data)
                    .map_err(|e| format!("the plugin sent a malformed log line: {e}"))?;
                emit(&Event::Log(line));
            }
            message::PROGRESS => {
                let progress: Progress = serde_json::from_slice(data)
                    .map_err(|e| format!("the plugin sent malformed progress: {e}"))?;
                emit(&Event::Progress(progress));
            }
            message::ERROR => {
                self.error = Some(String::from_utf8_lossy(data).into_owned());
            }
            other => return Err(format!("the plugin sent a message of unknown kind {other}")),
        }
        Ok(())
    }
}

unsafe extern "C" fn receive(context: *mut c_void, kind: u32, data: *const u8, len: usize) -> i32 {
    // SAFETY: `context` is the Receiver `import` passed, alive for the call to the plugin;
    // the plugin's contract makes `data` valid for `len` bytes.
    let receiver = unsafe { &mut *context.cast::<Receiver>() };
    if receiver.stopped {
        return 1;
    }
    let data = if len == 0 || data.is_null() {
        &[][..]
    } else {
        // SAFETY: as above.
        unsafe { std::slice::from_raw_parts(data, len) }
    };
    let taken = catch_unwind(AssertUnwindSafe(|| receiver.take(kind, data)))
        .unwrap_or_else(|_| Err("the plugin host failed on a message".to_owned()));
    match taken {
        Ok(()) => 0,
        Err(message) => {
            receiver.stopped = true;
            receiver.error.get_or_insert(message);
            1
        }
    }
}

fn import(
    plugin: &Plugin,
    request: &Request,
    output: &Path,
    max_output: u64,
) -> Result<Counts, String> {
    if !plugin
        .about
        .formats
        .iter()
        .any(|f| f.name == request.format)
    {
        return Err(format!(
            "plugin '{}' does not import format '{}'",
            plugin.about.name, request.format
        ));
    }
    let spool = Spool::new(output)?;
    // Two chunks in flight at most: memory stays bounded when the writer is slower.
    let (chunks, queue) = std::sync::mpsc::sync_channel::<Vec<u8>>(2);
    let writer_failed = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = writer_failed.clone();
    let writer = std::thread::Builder::new()
        .name("spool".into())
        .spawn(move || write_chunks(spool, queue, flag))
        .map_err(|e| format!("cannot start the spool writer: {e}"))?;
    let mut receiver = Receiver {
        chunks: Some(chunks),
        writer_failed,
        received: 0,
        max_output,
        error: None,
        stopped: false,
    };
    let request_json =
        serde_json::to_vec(request).map_err(|e| format!("cannot encode the request: {e}"))?;
    let host = HostCallbacks {
        context: (&mut receiver as *mut Receiver).cast(),
        send: receive,
    };
    // SAFETY: the request and the callbacks outlive the call; the plugin's contract.
    let code =
        unsafe { (plugin.descriptor.import)(request_json.as_ptr(), request_json.len(), &host) };
    // Closing the channel ends the writer once it has written what is queued.
    drop(receiver.chunks.take());
    let spooled = writer
        .join()
        .unwrap_or_else(|_| Err("the spool writer failed".to_owned()));
    let refused = receiver.error.take().filter(|e| !e.is_empty());
    let spool = match (spooled, refused) {
        // The writer's error explains a refusal it caused.
        (Err(error), _) => return Err(error),
        // A refused message wins: the plugin's own error then only says it was stopped.
        (Ok(_), Some(error)) => return Err(error),
        (Ok(spool), None) => spool,
    };
    if code != 0 {
        return Err(format!(
            "the plugin failed (code {code}) without saying why"
        ));
    }
    spool.finish(output)
}
