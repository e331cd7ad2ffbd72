//! Importer plugins from the configuration: each `[[plugins]]` library is described in
//! a plugin host at start-up. One that fails to load is reported with its reason and
//! left out; Lore starts without it.

use std::path::PathBuf;
use std::sync::Arc;

use lore_core::import::{Importer, Importers};
use lore_plugin_host::{Crashes, PluginImporter};

use crate::Settings;

/// How loading one configured plugin went.
#[derive(Debug)]
pub struct PluginReport {
    pub path: PathBuf,
    pub outcome: Result<Arc<PluginImporter>, String>,
}

/// The built-in importer and every configured plugin that loads, with a report per
/// plugin; their plugin hosts count crashes in `crashes`.
pub async fn load_importers(
    settings: &Settings,
    built_in: Importers,
    crashes: &Crashes,
) -> (Importers, Vec<PluginReport>) {
    let mut importers = built_in;
    let mut reports = Vec::new();
    for plugin in &settings.plugins {
        let outcome = match settings.plugin_limits(plugin) {
            Err(e) => Err(e.0),
            Ok(limits) => match PluginImporter::load(
                &plugin.path,
                lore_plugin_host::HostSettings {
                    crashes: crashes.clone(),
                    ..limits
                },
            )
            .await
            {
                Err(e) => Err(e),
                Ok(loaded) => {
                    let loaded = Arc::new(loaded);
                    importers
                        .add(loaded.clone() as Arc<dyn Importer>)
                        .map(|()| loaded)
                        .map_err(|e| e.to_string())
                }
            },
        };
        match &outcome {
            Ok(plugin) => tracing::info!(
                plugin = %plugin.about().name,
                version = %plugin.about().version,
                formats = %formats(plugin.as_ref()),
                library = %plugin.origin(),
                "loaded an importer plugin"
            ),
            Err(reason) => {
                tracing::warn!(
                    library = %plugin.path.display(),
                    "an importer plugin did not load and is left out: {reason}"
                );
                importers.add_failure(plugin.path.display().to_string(), reason.clone());
            }
        }
        reports.push(PluginReport {
            path: plugin.path.clone(),
            outcome,
        });
    }
    (importers, reports)
}

/// The format names of an importer, comma-separated.
pub fn formats(importer: &dyn Importer) -> String {
    importer
        .about()
        .formats
        .iter()
        .map(|f| f.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// `lore plugins`: the importers this configuration loads, as a table, then the plugins
/// that failed with their reasons.
pub async fn list(settings: &Settings) -> String {
    let built_in =
        lore_core::import::Importers::builtin(lore_core::archive::ArchiveLimits::default());
    let (importers, reports) = load_importers(settings, built_in, &Crashes::default()).await;
    let rows: Vec<Vec<String>> = importers
        .all()
        .iter()
        .map(|i| {
            vec![
                i.about().name.clone(),
                i.about().version.clone(),
                formats(i.as_ref()),
                i.origin().to_owned(),
            ]
        })
        .collect();
    let mut text = crate::text_table::render(
        &["NAME", "VERSION", "FORMATS", "FROM"].map(String::from),
        &rows,
    );
    for report in &reports {
        if let Err(reason) = &report.outcome {
            text.push_str(&format!(
                "\nnot loaded: {}\n  {reason}\n",
                report.path.display()
            ));
        }
    }
    text
}
