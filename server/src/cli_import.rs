//! `lore import`: runs a model's importer on a server (`startImport`) and follows the
//! operation with a progress bar until it ends.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::Duration;

use serde_json::{Value, json};

use crate::cli_query::{ServerArgs, send};

/// `lore import MODEL [--format F --parameters JSON] [--file PATH]`.
#[derive(Debug, Clone, clap::Args)]
pub struct ImportArgs {
    #[command(flatten)]
    pub server: ServerArgs,
    /// The model (repository path or id), e.g. `/Warehouse/dbt`.
    pub model: String,
    /// Set the model's importer first (PUT /repository/importModel), creating the model
    /// when the path names none yet.
    #[arg(long)]
    pub format: Option<String>,
    /// The importer's parameters, as a JSON object (with --format).
    #[arg(long, requires = "format")]
    pub parameters: Option<String>,
    /// Attach this file to the model first; the importer reads it.
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// Print the operation's id and return at once.
    #[arg(long)]
    pub no_wait: bool,
}

/// Runs the import; answers the closing line, or what went wrong (the import failed,
/// too).
pub async fn run(args: &ImportArgs) -> Result<String, String> {
    let client = reqwest::Client::new();
    let base = args.server.base();
    let key = args.server.key(&client).await?;
    let model = encode(&args.model);
    if let Some(format) = &args.format {
        let parameters: Value = match &args.parameters {
            Some(text) => serde_json::from_str(text)
                .map_err(|e| format!("--parameters is not a JSON object: {e}"))?,
            None => json!({}),
        };
        let existing = send(
            client
                .put(format!("{base}/repository/importModel"))
                .header("api-key", &key)
                .json(&json!({"modelId": args.model, "format": format, "parameters": parameters})),
        )
        .await;
        if let Err(error) = existing {
            if !error.contains("404") {
                return Err(error);
            }
            let (folder, name) = match args.model.trim_end_matches('/').rsplit_once('/') {
                Some((folder, name)) => (folder, name),
                None => ("", args.model.as_str()),
            };
            send(
                client
                    .put(format!("{base}/repository/importModel"))
                    .header("api-key", &key)
                    .json(
                        &json!({"folderId": if folder.is_empty() { "/" } else { folder },
                                  "modelName": name, "format": format, "parameters": parameters}),
                    ),
            )
            .await?;
        }
    }
    if let Some(file) = &args.file {
        let content =
            std::fs::read(file).map_err(|e| format!("cannot read {}: {e}", file.display()))?;
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "input".into());
        send(
            client
                .post(format!("{base}/repository/attachments/{model}"))
                .header("api-key", &key)
                .query(&[("name", name.as_str())])
                .header("Content-Type", "application/octet-stream")
                .body(content),
        )
        .await?;
    }
    let id = send(
        client
            .post(format!("{base}/operations/startImport/{model}"))
            .header("api-key", &key)
            .json(&json!({})),
    )
    .await?
    .as_i64()
    .ok_or("startImport answered no operation id")?;
    if args.no_wait {
        return Ok(format!("{id}\n"));
    }
    let mut bar = Bar::new();
    loop {
        let operations = send(
            client
                .get(format!("{base}/operations/listOperations"))
                .header("api-key", &key)
                .query(&[("modelId", args.model.as_str()), ("limit", "20")]),
        )
        .await?;
        let operation = operations
            .as_array()
            .and_then(|all| all.iter().find(|o| o["id"] == id))
            .cloned()
            .ok_or_else(|| format!("operation {id} is not listed"))?;
        bar.draw(&operation);
        match operation["state"].as_str() {
            Some("RUNNING") => tokio::time::sleep(Duration::from_millis(250)).await,
            Some("SUCCEEDED") => {
                bar.done();
                return Ok(format!(
                    "operation {id}: {}\n",
                    operation["message"].as_str().unwrap_or("done")
                ));
            }
            _ => {
                bar.done();
                return Err(format!(
                    "operation {id} failed: {} (its log: POST {base}/operations/downloadOperationLog/{id})",
                    operation["message"].as_str().unwrap_or("no message")
                ));
            }
        }
    }
}

fn encode(segment: &str) -> String {
    segment
        .bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The progress of an operation on stderr: a redrawn bar on a terminal, a line per
/// change of phase otherwise.
struct Bar {
    terminal: bool,
    last: String,
}

impl Bar {
    fn new() -> Self {
        Self {
            terminal: std::io::stderr().is_terminal(),
            last: String::new(),
        }
    }

    fn draw(&mut self, operation: &Value) {
        let progress = &operation["progress"];
        let phase = progress["phase"].as_str().unwrap_or_default();
        let done = progress["done"].as_u64().unwrap_or(0);
        let unit = progress["unit"].as_str().unwrap_or_default();
        let line = match progress["total"].as_u64().filter(|t| *t > 0) {
            Some(total) => {
                let share = (done.min(total) as f64 / total as f64).clamp(0.0, 1.0);
                let filled = (share * 30.0).round() as usize;
                format!(
                    "[{}{}] {:>3}% {phase}: {done}/{total} {unit}",
                    "#".repeat(filled),
                    "-".repeat(30 - filled),
                    (share * 100.0).round()
                )
            }
            None if done > 0 => format!("[{}] {phase}: {done} {unit}", "~".repeat(30)),
            None => format!("[{}] {phase}", " ".repeat(30)),
        };
        let mut err = std::io::stderr().lock();
        if self.terminal {
            let _ = write!(err, "\r\x1b[2K{line}");
            let _ = err.flush();
        } else if phase != self.last {
            let _ = writeln!(err, "{line}");
        }
        self.last = phase.to_owned();
    }

    fn done(&mut self) {
        if self.terminal {
            let _ = writeln!(std::io::stderr());
        }
    }
}
