//! The plugins the suite loads and the `lore` executable that hosts them, built once per
//! test process by cargo itself (same target directory, same profile): `cargo test`
//! builds no `cdylib`, and a test binary is not `lore`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

/// The packages of the plugins the suite configures.
pub const PLUGIN_PACKAGES: &[&str] = &[
    "lore-plugin-misbehaving",
    "lore-plugin-wrong-abi",
    "lore-plugin-archive-reader",
    "lore-importer-dbt",
    "lore-importer-ddl",
    "lore-importer-flatfile",
    "lore-importer-harvester",
];

/// What the build produced.
#[derive(Debug)]
pub struct Built {
    /// The `lore` executable.
    pub lore: PathBuf,
    /// Each plugin's shared library, by package name.
    pub libraries: BTreeMap<String, PathBuf>,
}

impl Built {
    pub fn library(&self, package: &str) -> &PathBuf {
        self.libraries
            .get(package)
            .unwrap_or_else(|| panic!("the build produced no library of {package}"))
    }
}

/// Builds (or finds up to date) the plugins and `lore`; the first caller waits.
pub fn built() -> &'static Built {
    static BUILT: OnceLock<Built> = OnceLock::new();
    BUILT.get_or_init(build)
}

fn build() -> Built {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| env!("CARGO").to_owned());
    let mut command = Command::new(cargo);
    command
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        // The whole workspace, as `cargo test --workspace` selects it, so features unify
        // the same way and nothing it built is built again.
        .args([
            "build",
            "--workspace",
            "--lib",
            "--bins",
            "--message-format=json-render-diagnostics",
        ]);
    let output = command
        .output()
        .expect("running cargo build for the plugins");
    assert!(
        output.status.success(),
        "building the plugins failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let mut lore = None;
    let mut libraries = BTreeMap::new();
    for line in String::from_utf8_lossy(&output.stdout).lines() {
        let Ok(message) = serde_json::from_str::<serde_json::Value>(line) else {
            continue;
        };
        if message["reason"] != "compiler-artifact" {
            continue;
        }
        if let Some(executable) = message["executable"].as_str()
            && message["target"]["name"] == "lore"
        {
            lore = Some(PathBuf::from(executable));
        }
        let is_cdylib = message["target"]["kind"]
            .as_array()
            .is_some_and(|kinds| kinds.iter().any(|k| k == "cdylib"));
        if !is_cdylib {
            continue;
        }
        let target = message["target"]["name"].as_str().unwrap_or_default();
        let name = PLUGIN_PACKAGES
            .iter()
            .find(|p| p.replace('-', "_") == target);
        let library = message["filenames"].as_array().and_then(|files| {
            files
                .iter()
                .filter_map(|f| f.as_str())
                .find(|f| f.ends_with(std::env::consts::DLL_SUFFIX))
        });
        if let (Some(name), Some(library)) = (name, library) {
            libraries.insert((*name).to_owned(), PathBuf::from(library));
        }
    }
    Built {
        lore: lore.expect("cargo built no lore executable"),
        libraries,
    }
}
