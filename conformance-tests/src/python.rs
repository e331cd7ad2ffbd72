//! Python clients the cases drive (openlineage-python): a virtual environment under
//! `target/` per set of packages, made by the first case that needs it (under a file
//! lock, so concurrent test processes install once) from PyPI. Without `python3` or the
//! package index the cases skip with a message, except under `CI=true`, where they fail.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn on_ci() -> bool {
    std::env::var("CI").as_deref() == Ok("true")
}

fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"))
}

/// Skips (a message, `None`) outside CI; fails under `CI=true`.
fn unavailable(why: String) -> Option<PathBuf> {
    assert!(!on_ci(), "{why} (CI=true requires it)");
    eprintln!("skipping: {why}");
    None
}

/// The interpreter of a virtual environment `target/venv-<name>` holding `packages`
/// (pinned, `name==version`), made now if it is not yet complete. Blocking.
pub fn venv(name: &str, packages: &[&str]) -> Option<PathBuf> {
    let dir = target_dir().join(format!("venv-{name}"));
    let python = dir.join("bin/python");
    let marker = dir.join(".lore-installed");
    let wanted = packages.join("\n");
    let installed = || std::fs::read_to_string(&marker).is_ok_and(|m| m == wanted);
    if installed() {
        return Some(python);
    }
    let present = Command::new("python3")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !present {
        return unavailable(format!("python3 is needed for {name}"));
    }
    std::fs::create_dir_all(target_dir()).expect("the target directory");
    let lock = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(target_dir().join(format!("venv-{name}.lock")))
        .expect("opening the venv lock file");
    lock.lock().expect("locking the venv lock file");
    let outcome = if installed() {
        Some(python)
    } else {
        let run = |program: &Path, args: &[&str]| {
            Command::new(program)
                .args(args)
                .output()
                .map_err(|e| e.to_string())
                .and_then(|o| {
                    if o.status.success() {
                        Ok(())
                    } else {
                        Err(format!(
                            "{}{}",
                            String::from_utf8_lossy(&o.stdout),
                            String::from_utf8_lossy(&o.stderr)
                        ))
                    }
                })
        };
        let made = run(
            Path::new("python3"),
            &["-m", "venv", "--clear", &dir.to_string_lossy()],
        )
        .and_then(|()| {
            let mut args = vec![
                "-m",
                "pip",
                "install",
                "--quiet",
                "--disable-pip-version-check",
            ];
            args.extend_from_slice(packages);
            run(&python, &args)
        });
        match made {
            Ok(()) => {
                std::fs::write(&marker, &wanted).expect("marking the venv complete");
                Some(python)
            }
            Err(e) => unavailable(format!(
                "cannot install {packages:?} into {}: {e}",
                dir.display()
            )),
        }
    };
    let _ = lock.unlock();
    outcome
}
