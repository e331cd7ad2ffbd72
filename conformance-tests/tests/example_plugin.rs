//! The example plugin of `examples/hello-plugin` builds on its own, as its README says,
//! and `lore plugins` loads it.

use std::path::PathBuf;
use std::process::Command;

#[test]
fn the_example_plugin_builds_from_its_readme_and_loads() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let example = root.join("examples/hello-plugin");
    let target = root.join("target/example-plugin");
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| env!("CARGO").to_owned());
    // `cargo test` and `cargo build` in the crate's directory, as the README says (debug
    // here; the README builds --release).
    for step in ["test", "build"] {
        let status = Command::new(&cargo)
            .current_dir(&example)
            .env("CARGO_TARGET_DIR", &target)
            .arg(step)
            .status()
            .expect("running cargo");
        assert!(status.success(), "cargo {step} of the example plugin fails");
    }
    let library = target.join(format!(
        "debug/{}hello_plugin{}",
        std::env::consts::DLL_PREFIX,
        std::env::consts::DLL_SUFFIX
    ));
    assert!(library.exists(), "{} was not built", library.display());

    let dir = tempfile::tempdir().expect("a temporary directory");
    let config = dir.path().join("lore.toml");
    std::fs::write(
        &config,
        format!(
            "[storage]\nbackend = \"memory\"\n\n[[plugins]]\npath = \"{}\"\n",
            library.display()
        ),
    )
    .expect("writing lore.toml");
    let lore = &lore_conformance::plugins::built().lore;
    let output = Command::new(lore)
        .args(["plugins", "--config"])
        .arg(&config)
        .output()
        .expect("running lore plugins");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("hello "))
        .unwrap_or_else(|| panic!("hello is not listed:\n{text}"));
    assert!(line.contains("hello-names"), "{line}");
    assert!(line.contains("libhello_plugin"), "{line}");
    assert!(!text.contains("not loaded"), "{text}");
}

#[test]
fn lore_plugins_names_what_did_not_load_and_why() {
    let built = lore_conformance::plugins::built();
    let dir = tempfile::tempdir().expect("a temporary directory");
    let config = dir.path().join("lore.toml");
    let missing = dir.path().join("libnothing.so");
    std::fs::write(
        &config,
        format!(
            "[storage]\nbackend = \"memory\"\n\n[[plugins]]\npath = \"{}\"\n\n[[plugins]]\npath = \"{}\"\n\n[[plugins]]\npath = \"{}\"\n",
            built.library("lore-importer-dbt").display(),
            built.library("lore-plugin-wrong-abi").display(),
            missing.display(),
        ),
    )
    .expect("writing lore.toml");
    let output = Command::new(&built.lore)
        .args(["plugins", "--config"])
        .arg(&config)
        .output()
        .expect("running lore plugins");
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{text}");
    assert!(
        text.lines().any(|l| l.starts_with("lore ")
            && l.contains("lore-csv-zip")
            && l.contains("built-in")),
        "{text}"
    );
    assert!(
        text.lines()
            .any(|l| l.starts_with("dbt ") && l.contains("dbt-manifest")),
        "{text}"
    );
    assert!(
        text.contains("was built for plugin ABI version 999, but this Lore loads version 1"),
        "{text}"
    );
    assert!(
        text.contains(&format!("cannot load {}", missing.display())),
        "{text}"
    );
}
