//! Importer plugins, run out of process.
//!
//! Lore never loads a plugin library itself. Describing a plugin (at start-up) and every
//! import start `lore plugin-host` ([`child`]) as a child process, with a memory limit
//! the child sets on itself and a time limit Lore enforces by killing it. The child loads
//! the library, checks its ABI version, runs it and writes what it sends into a model
//! archive file; Lore lands that archive with the checks of an uploaded one. So a plugin
//! that panics, aborts, crashes, hangs or eats memory fails one import and nothing else,
//! and an import writes nothing unless the plugin completed.

pub mod child;
mod spool;

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use lore_core::archive::ArchiveLimits;
use lore_core::import::{About, ImportEvents, ImportJob, Importer, Level, Produced};
use lore_core::{Error, Result};
use lore_plugin_sdk::Request;
use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::sync::mpsc;

pub use child::{EVENT_PREFIX, Event, HostArgs};
pub use spool::Counts;

/// How plugin hosts are started and bounded.
#[derive(Debug, Clone)]
pub struct HostSettings {
    /// The `lore` executable to run as `lore plugin-host`.
    pub program: PathBuf,
    /// An import still running after this long is killed.
    pub timeout: Duration,
    /// Address-space limit of the plugin host, in MiB.
    pub memory_mib: u64,
    /// Most MiB of records one import may send.
    pub max_output_mib: u64,
    /// Where the plugin hosts that ended abnormally are counted (the server's metrics).
    pub crashes: Crashes,
}

/// How a plugin host ended abnormally: without a result or a failure it reported itself.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Crash {
    /// Killed by a signal (a crash on a bad memory access, an abort, SIGKILL).
    Signal,
    /// Exited with a failure status.
    Exit,
    /// Ran out of its memory limit.
    OutOfMemory,
    /// Still running at its time limit, and stopped.
    Timeout,
}

impl Crash {
    pub const ALL: [Crash; 4] = [Self::Signal, Self::Exit, Self::OutOfMemory, Self::Timeout];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Signal => "signal",
            Self::Exit => "exit",
            Self::OutOfMemory => "out_of_memory",
            Self::Timeout => "timeout",
        }
    }
}

/// Counts of the plugin hosts that ended abnormally, by [`Crash`]; clones share them.
#[derive(Debug, Clone, Default)]
pub struct Crashes(Arc<[AtomicU64; 4]>);

impl Crashes {
    fn count(&self, crash: Crash) {
        self.0[crash as usize].fetch_add(1, Ordering::Relaxed);
    }

    /// The plugin hosts that ended so, since these counts were made.
    pub fn get(&self, crash: Crash) -> u64 {
        self.0[crash as usize].load(Ordering::Relaxed)
    }
}

impl HostSettings {
    /// Defaults around a given `lore` executable.
    pub fn new(program: PathBuf) -> Self {
        Self {
            program,
            timeout: Duration::from_secs(3600),
            memory_mib: 4096,
            max_output_mib: 8192,
            crashes: Crashes::default(),
        }
    }
}

/// An importer plugin: a library and what it said about itself.
#[derive(Debug, Clone)]
pub struct PluginImporter {
    library: PathBuf,
    origin: String,
    about: About,
    settings: HostSettings,
}

/// What a plugin host said and how it ended.
#[derive(Debug, Default)]
struct Outcome {
    about: Option<About>,
    done: Option<Counts>,
    failed: Option<String>,
    /// The last lines the plugin wrote to stderr: the words of a crash.
    stderr_tail: VecDeque<String>,
}

/// Lines longer than this are cut: a plugin may print anything.
const MAX_LINE: usize = 64 * 1024;
/// stderr lines kept for the failure message.
const STDERR_TAIL: usize = 5;

impl PluginImporter {
    /// Describes the library in a plugin host: a library that cannot load, has the wrong
    /// ABI version or crashes is refused with the reason.
    pub async fn load(library: &Path, settings: HostSettings) -> std::result::Result<Self, String> {
        let library = std::path::absolute(library).unwrap_or_else(|_| library.to_owned());
        let mut command = host_command(&settings);
        command.arg("describe").arg(&library);
        let outcome = run_host(
            command,
            None,
            Duration::from_secs(60),
            settings.memory_mib,
            &settings.crashes,
            &mut NoLog,
        )
        .await
        .map_err(|e| e.to_string())?;
        match outcome {
            Outcome {
                about: Some(about), ..
            } => Ok(Self {
                origin: library.display().to_string(),
                library,
                about,
                settings,
            }),
            outcome => Err(failure(&outcome, "describing it")),
        }
    }

    pub fn library(&self) -> &Path {
        &self.library
    }
}

#[async_trait::async_trait]
impl Importer for PluginImporter {
    fn about(&self) -> &About {
        &self.about
    }

    fn origin(&self) -> &str {
        &self.origin
    }

    async fn produce(&self, job: &ImportJob, events: &mut dyn ImportEvents) -> Result<Produced> {
        let output = job.work_dir.join("plugin-output.zip");
        let request = Request {
            format: job.format.clone(),
            file: job.file.clone(),
            parameters: job.parameters.clone(),
        };
        let request = serde_json::to_vec(&request)
            .map_err(|e| Error::internal(format!("cannot encode the plugin request: {e}")))?;
        let mut command = host_command(&self.settings);
        command
            .arg("import")
            .arg(&self.library)
            .arg("--output")
            .arg(&output)
            .arg("--max-output-mib")
            .arg(self.settings.max_output_mib.to_string());
        let mut log = Events(events);
        let outcome = run_host(
            command,
            Some(request),
            self.settings.timeout,
            self.settings.memory_mib,
            &self.settings.crashes,
            &mut log,
        )
        .await?;
        match outcome {
            Outcome {
                done: Some(counts), ..
            } => {
                log.0.log(
                    Level::Info,
                    &format!(
                        "plugin '{}' sent {} objects in {} records",
                        self.about.name, counts.objects, counts.records
                    ),
                );
                Ok(Produced {
                    path: output,
                    // Bounded when written: max_output_mib, stored entries only.
                    limits: ArchiveLimits {
                        max_entries: 64,
                        max_entry_size: u64::MAX,
                        max_total_size: u64::MAX,
                        max_ratio: u64::MAX,
                    },
                })
            }
            outcome => Err(Error::invalid(format!(
                "importer '{}': {}",
                self.about.name,
                failure(&outcome, "importing")
            ))),
        }
    }
}

fn host_command(settings: &HostSettings) -> tokio::process::Command {
    let mut command = tokio::process::Command::new(&settings.program);
    command
        .arg("plugin-host")
        .arg("--memory-mib")
        .arg(settings.memory_mib.to_string())
        // A crash's own words, not a backtrace, end up in the operation's message.
        .env("RUST_BACKTRACE", "0")
        .env("RUST_LIB_BACKTRACE", "0");
    command
}

/// Why a plugin host did not deliver.
fn failure(outcome: &Outcome, doing: &str) -> String {
    let mut message = outcome
        .failed
        .clone()
        .unwrap_or_else(|| format!("the plugin host ended without a result while {doing}"));
    if outcome.failed.is_none() && !outcome.stderr_tail.is_empty() {
        message.push_str(": ");
        message.push_str(
            &outcome
                .stderr_tail
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>()
                .join(" / "),
        );
    }
    message
}

/// The log lines of a host, where they go.
trait Log: Send {
    fn line(&mut self, level: Level, message: &str);
    fn progress(&mut self, progress: &lore_core::import::Progress);
}

struct NoLog;

impl Log for NoLog {
    fn line(&mut self, level: Level, message: &str) {
        tracing::debug!(?level, "plugin host: {message}");
    }
    fn progress(&mut self, _: &lore_core::import::Progress) {}
}

struct Events<'a>(&'a mut dyn ImportEvents);

impl Log for Events<'_> {
    fn line(&mut self, level: Level, message: &str) {
        self.0.log(level, message);
    }
    fn progress(&mut self, progress: &lore_core::import::Progress) {
        self.0.progress(progress);
    }
}

/// Runs a plugin host to its end or its time limit, passing its events on.
async fn run_host(
    mut command: tokio::process::Command,
    stdin: Option<Vec<u8>>,
    timeout: Duration,
    memory_mib: u64,
    crashes: &Crashes,
    log: &mut dyn Log,
) -> Result<Outcome> {
    command
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let program = command.as_std().get_program().to_owned();
    let mut child = command.spawn().map_err(|e| {
        Error::internal(format!(
            "cannot start the plugin host {}: {e}",
            Path::new(&program).display()
        ))
    })?;
    if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
        // The host reads all of stdin before it loads anything; a failed write shows up
        // as the host's own error.
        let _ = pipe.write_all(&bytes).await;
        drop(pipe);
    }
    let (lines, mut received) = mpsc::channel::<(bool, String)>(64);
    if let Some(out) = child.stdout.take() {
        tokio::spawn(forward(BufReader::new(out), false, lines.clone()));
    }
    if let Some(err) = child.stderr.take() {
        tokio::spawn(forward(BufReader::new(err), true, lines));
    } else {
        drop(lines);
    }

    let mut outcome = Outcome::default();
    let run = async {
        while let Some((from_stderr, line)) = received.recv().await {
            take_line(&mut outcome, log, from_stderr, line);
        }
        child.wait().await
    };
    let status = match tokio::time::timeout(timeout, run).await {
        Ok(status) => status.map_err(|e| Error::internal(format!("plugin host: {e}")))?,
        Err(_) => {
            let _ = child.kill().await;
            crashes.count(Crash::Timeout);
            outcome.failed = Some(format!(
                "the plugin did not finish within {} s and was stopped",
                timeout.as_secs()
            ));
            return Ok(outcome);
        }
    };
    if !status.success() && outcome.failed.is_none() {
        outcome.done = None;
        outcome.about = None;
        let out_of_memory = outcome
            .stderr_tail
            .iter()
            .any(|l| l.starts_with("memory allocation of"));
        crashes.count(if out_of_memory {
            Crash::OutOfMemory
        } else if std::os::unix::process::ExitStatusExt::signal(&status).is_some() {
            Crash::Signal
        } else {
            Crash::Exit
        });
        let mut message = if out_of_memory {
            format!(
                "the plugin ran out of its memory limit ({memory_mib} MiB, plugin_host.memory_mib) and was stopped"
            )
        } else {
            ended(status)
        };
        if !outcome.stderr_tail.is_empty() {
            message.push_str("; it wrote: ");
            message.push_str(
                &outcome
                    .stderr_tail
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
                    .join(" / "),
            );
        }
        outcome.failed = Some(message);
    }
    Ok(outcome)
}

/// How a plugin host that did not succeed ended.
fn ended(status: std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match status.signal() {
        Some(signal) => {
            let what = match signal {
                4 => " (SIGILL: the plugin executed an illegal instruction)",
                6 => " (SIGABRT: the plugin aborted, or ran out of its memory limit)",
                7 | 11 => " (the plugin crashed on a bad memory access)",
                9 => " (SIGKILL)",
                _ => "",
            };
            format!("the plugin host was killed by signal {signal}{what}")
        }
        None => format!(
            "the plugin host exited with status {}",
            status.code().unwrap_or(-1)
        ),
    }
}

fn take_line(outcome: &mut Outcome, log: &mut dyn Log, from_stderr: bool, line: String) {
    if from_stderr {
        log.line(Level::Warn, &format!("plugin stderr: {line}"));
        if outcome.stderr_tail.len() == STDERR_TAIL {
            outcome.stderr_tail.pop_front();
        }
        outcome.stderr_tail.push_back(line);
        return;
    }
    let Some(event) = line.strip_prefix(EVENT_PREFIX) else {
        log.line(Level::Info, &format!("plugin output: {line}"));
        return;
    };
    match serde_json::from_str::<Event>(event) {
        Ok(Event::About { about }) => outcome.about = Some(about),
        Ok(Event::Log(line)) => log.line(line.level, &line.message),
        Ok(Event::Progress(progress)) => log.progress(&progress),
        Ok(Event::Received(counts)) => log.progress(&lore_core::import::Progress {
            done: counts.objects,
            total: None,
            unit: "objects received".into(),
        }),
        Ok(Event::Done(counts)) => outcome.done = Some(counts),
        Ok(Event::Failed { message }) => outcome.failed = Some(message),
        Err(e) => log.line(
            Level::Warn,
            &format!("plugin host: a malformed event ({e}): {event}"),
        ),
    }
}

/// Sends the lines of one pipe to the channel, each cut at [`MAX_LINE`] bytes.
async fn forward<R: AsyncBufRead + Unpin>(
    mut reader: R,
    stderr: bool,
    lines: mpsc::Sender<(bool, String)>,
) {
    let mut line = Vec::new();
    while let Ok(chunk) = reader.fill_buf().await {
        if chunk.is_empty() {
            break;
        }
        let (taken, end) = match chunk.iter().position(|b| *b == b'\n') {
            Some(at) => (at + 1, true),
            None => (chunk.len(), false),
        };
        let room = MAX_LINE.saturating_sub(line.len());
        let content = &chunk[..if end { taken - 1 } else { taken }];
        line.extend_from_slice(&content[..content.len().min(room)]);
        reader.consume(taken);
        if end {
            let text = String::from_utf8_lossy(&line).trim_end().to_owned();
            line.clear();
            if lines.send((stderr, text)).await.is_err() {
                return;
            }
        }
    }
    if !line.is_empty() {
        let _ = lines
            .send((stderr, String::from_utf8_lossy(&line).into_owned()))
            .await;
    }
}
