//! `lore backup` and `lore restore`: the repository backed up to a file and restored
//! from one directly on the store the configuration names, with no server running (the
//! same [`Catalog`] methods `POST /repository/backup` and `/repository/restore` call).

use std::fmt::Write as _;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use lore_core::ServerCatalog;
use lore_core::backup::BackupOptions;

use crate::Settings;
use crate::cli_admin::{environment, open_catalog_with};

/// `lore backup`.
#[derive(Debug, clap::Args)]
pub struct BackupArgs {
    /// Configuration file naming the store (default: lore.toml in the working directory,
    /// if present), as for `lore serve`.
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Leave the contents of models out (objects and what hangs on them).
    #[arg(long)]
    pub without_model_contents: bool,
    /// The backup file to write (a zip); an existing file is replaced only when the
    /// backup is complete.
    pub output: PathBuf,
}

/// `lore restore`.
#[derive(Debug, clap::Args)]
pub struct RestoreArgs {
    /// Configuration file naming the store (default: lore.toml in the working directory,
    /// if present), as for `lore serve`. A SQLite store that does not exist is created.
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Replace what the store holds, which a restore does; without it a store that
    /// holds more than its first administrator is left alone.
    #[arg(long)]
    pub replace: bool,
    /// The backup file to restore (written by `lore backup` or `POST /repository/backup`).
    pub input: PathBuf,
}

/// Writes a backup of the configured store; answers what it wrote.
pub async fn run_backup(args: &BackupArgs) -> Result<String, String> {
    let settings = Settings::load(args.config.as_deref()).map_err(|e| e.to_string())?;
    let (catalog, _) = open_catalog_with(&settings, &environment(), true).await?;
    backup_to(&catalog, &args.output, !args.without_model_contents).await
}

/// Writes a backup to `path` through a temporary file beside it, renamed into place
/// once complete.
pub async fn backup_to(
    catalog: &ServerCatalog,
    path: &Path,
    contents: bool,
) -> Result<String, String> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let temp = tempfile::NamedTempFile::new_in(dir)
        .map_err(|e| format!("cannot write in {}: {e}", dir.display()))?;
    let (out, manifest) = catalog
        .operations()
        .backup(
            &catalog.command_line_operator(),
            BufWriter::new(temp),
            BackupOptions {
                model_contents: contents,
            },
        )
        .await
        .map_err(|e| e.chain())?;
    let temp = out
        .into_inner()
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    temp.as_file()
        .sync_all()
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    temp.persist(path)
        .map_err(|e| format!("cannot write {}: {e}", path.display()))?;
    let mut text = format!(
        "backed up the {} store to {}\n",
        manifest.backend,
        path.display()
    );
    for (file, records) in &manifest.records {
        let _ = writeln!(text, "  {file}: {records}");
    }
    Ok(text)
}

/// Restores the configured store from a backup; answers what it restored.
pub async fn run_restore(args: &RestoreArgs) -> Result<String, String> {
    let settings = Settings::load(args.config.as_deref()).map_err(|e| e.to_string())?;
    let file = File::open(&args.input)
        .map_err(|e| format!("cannot read {}: {e}", args.input.display()))?;
    let (catalog, _) = open_catalog_with(&settings, &environment(), false).await?;
    restore_from(&catalog, file, args.replace).await
}

/// Restores from a backup file; without `replace` only into a store that holds no
/// more than a fresh one (no objects, one user).
pub async fn restore_from(
    catalog: &ServerCatalog,
    file: File,
    replace: bool,
) -> Result<String, String> {
    let operator = catalog.command_line_operator();
    if !replace
        && !catalog
            .operations()
            .is_fresh(&operator)
            .await
            .map_err(|e| e.chain())?
    {
        return Err(
            "the store holds a repository already; pass --replace to replace it with the backup"
                .to_owned(),
        );
    }
    let plan = catalog
        .operations()
        .restore(&operator, file)
        .await
        .map_err(|e| e.chain())?;
    let mut text = format!(
        "restored the backup of {} (taken on {}, Lore {})\n",
        plan.manifest.created_at.format("%Y-%m-%d %H:%M:%S UTC"),
        plan.manifest.backend,
        plan.manifest.lore_version
    );
    for (file, records) in &plan.records {
        let _ = writeln!(text, "  {file}: {records}");
    }
    Ok(text)
}
