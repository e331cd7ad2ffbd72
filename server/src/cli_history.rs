//! `lore history purge`: forgets the history older than the retention, directly on the
//! store the configuration names (the purge `lore serve` runs every hour).

use std::path::PathBuf;

use lore_core::ServerCatalog;

use crate::Settings;
use crate::cli_admin::{environment, open_catalog_with};

/// `lore history`.
#[derive(Debug, clap::Args)]
pub struct HistoryArgs {
    #[command(subcommand)]
    pub command: HistoryCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum HistoryCommand {
    /// Forgets what the retention no longer keeps: the history older than both rules
    /// (`[history] keep_days` and `keep_versions`, or the options here), and the
    /// curation and grant history older than its own (`keep_curation_days`).
    Purge(PurgeArgs),
}

/// `lore history purge`.
#[derive(Debug, clap::Args)]
pub struct PurgeArgs {
    /// Configuration file naming the store (default: lore.toml in the working directory,
    /// if present), as for `lore serve`.
    #[arg(long, value_name = "PATH")]
    pub config: Option<PathBuf>,
    /// Keep the history of the last this many days (default: `[history] keep_days`).
    #[arg(long, value_name = "DAYS")]
    pub keep_days: Option<u64>,
    /// Keep the history of each model's this many newest versions (default:
    /// `[history] keep_versions`).
    #[arg(long, value_name = "N")]
    pub keep_versions: Option<u64>,
    /// Keep the curation and grant history of the last this many days (default:
    /// `[history] keep_curation_days`; 0 keeps it all).
    #[arg(long, value_name = "DAYS")]
    pub keep_curation_days: Option<u64>,
}

/// Runs `lore history ...`; answers what it did.
pub async fn run(args: &HistoryArgs) -> Result<String, String> {
    match &args.command {
        HistoryCommand::Purge(args) => purge(args).await,
    }
}

async fn purge(args: &PurgeArgs) -> Result<String, String> {
    let settings = Settings::load(args.config.as_deref()).map_err(|e| e.to_string())?;
    let keep_days = args.keep_days.unwrap_or(settings.history.keep_days);
    let keep_versions = args.keep_versions.unwrap_or(settings.history.keep_versions);
    let keep_curation_days = args
        .keep_curation_days
        .unwrap_or(settings.history.keep_curation_days);
    let retention = (keep_days, keep_versions, keep_curation_days);
    no_retention(retention)?;
    let (catalog, _) = open_catalog_with(&settings, &environment(), false).await?;
    purge_on(&catalog, retention).await
}

/// Refuses a purge by no rule at all.
fn no_retention(
    (keep_days, keep_versions, keep_curation_days): (u64, u64, u64),
) -> Result<(), String> {
    if keep_days == 0 && keep_versions == 0 && keep_curation_days == 0 {
        return Err(
            "no retention to purge by: pass --keep-days, --keep-versions or \
             --keep-curation-days, or set [history] keep_days, keep_versions or \
             keep_curation_days in the configuration"
                .to_owned(),
        );
    }
    Ok(())
}

/// The purge on an open catalog by the retention `(keep_days, keep_versions,
/// keep_curation_days)`; answers what it did.
pub async fn purge_on(
    catalog: &ServerCatalog,
    retention: (u64, u64, u64),
) -> Result<String, String> {
    no_retention(retention)?;
    let (keep_days, keep_versions, keep_curation_days) = retention;
    let mut said = String::new();
    if keep_days > 0 || keep_versions > 0 {
        said.push_str(&match catalog
            .purge_history(keep_days, keep_versions)
            .await
            .map_err(|e| e.chain())?
        {
            None => "nothing to purge: the history kept is within the retention\n".to_owned(),
            Some((floor, purged)) => {
                format!("purged {purged} kept rows: the history now begins at version {floor}\n")
            }
        });
    }
    if keep_curation_days > 0 {
        said.push_str(&match catalog
            .purge_curation_history(keep_curation_days)
            .await
            .map_err(|e| e.chain())?
        {
            None => "nothing to purge: the curation history is within its retention\n".to_owned(),
            Some((floor, purged)) => format!(
                "purged {purged} kept rows of curation and grants replaced at or before \
                 version {floor}\n"
            ),
        });
    }
    Ok(said)
}
