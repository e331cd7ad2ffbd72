//! `lore serve` on an empty store without a terminal (as under systemd or in a
//! container): the generated administrator password never reaches standard output or
//! the log; it is in a file beside the database that only the server's user may read,
//! which the log names.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn the_generated_password_goes_to_a_private_file_not_to_the_output() {
    let dir = tempfile::tempdir().expect("a directory");
    let data = dir.path().join("data");
    let mut child = Command::new(env!("CARGO_BIN_EXE_lore"))
        .arg("serve")
        .current_dir(dir.path())
        .env_remove("LORE_ADMIN_PASSWORD")
        .env_remove("LORE_ADMIN_PASSWORD_FILE")
        .env("LORE__STORAGE__BACKEND", "sqlite")
        .env("LORE__STORAGE__PATH", data.join("lore.db"))
        .env("LORE__SERVER__LISTEN", "127.0.0.1:0")
        .env("LORE__LOG__LEVEL", "info")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("lore serve starts");
    let stderr = child.stderr.take().expect("stderr");
    let mut log = String::new();
    let started = Instant::now();
    for line in BufReader::new(stderr).lines() {
        let line = line.expect("a log line");
        log.push_str(&line);
        log.push('\n');
        if line.contains("listening on") || started.elapsed() > Duration::from_secs(60) {
            break;
        }
    }
    let _ = child.kill();
    let output = child.wait_with_output().expect("the server's output");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let file = data.join("initial-admin-password");
    let password = std::fs::read_to_string(&file)
        .unwrap_or_else(|e| panic!("{}: {e}; log:\n{log}", file.display()));
    let password = password.trim();
    assert!(password.len() >= 16, "a generated password: {password:?}");
    assert!(
        !stdout.contains(password) && !log.contains(password),
        "the password is nowhere but in the file; stdout: {stdout}\nlog:\n{log}"
    );
    assert!(
        log.contains("initial-admin-password"),
        "the log names the file:\n{log}"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&file)
            .expect("metadata")
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600, "{mode:o}");
    }
}
