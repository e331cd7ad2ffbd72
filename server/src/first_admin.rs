//! The first administrator's generated password, handed over once: on an interactive
//! terminal it is shown there; otherwise (a service manager, a container, a pipe) it is
//! written to a file only the server's user may read, never to standard output or the
//! log, where journald and container runtimes keep everything.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::config::Settings;

/// The name of the file the password is written to.
pub const PASSWORD_FILE: &str = "initial-admin-password";

/// Where the password goes when no terminal shows it: beside the SQLite database, or in
/// the working directory for the other stores.
pub fn password_file(settings: &Settings) -> PathBuf {
    let dir = match settings.storage.backend.as_str() {
        "sqlite" => settings
            .storage
            .path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default(),
        _ => PathBuf::new(),
    };
    dir.join(PASSWORD_FILE)
}

/// How the password was handed over.
#[derive(Debug, PartialEq, Eq)]
pub enum HandedOver {
    /// Shown on the terminal.
    Shown,
    /// Written to this file (mode 0600 where the system has modes).
    Written(PathBuf),
}

/// Shows the password on `terminal` when there is one, else writes it to `file`
/// (replacing an older one), readable and writable by the server's user only.
pub fn hand_over(
    password: &str,
    terminal: Option<&mut dyn Write>,
    file: &Path,
) -> std::io::Result<HandedOver> {
    if let Some(out) = terminal {
        writeln!(
            out,
            "Created the first administrator. User: Administrator  Password: {password}"
        )?;
        writeln!(
            out,
            "(shown once; set LORE_ADMIN_PASSWORD or LORE_ADMIN_PASSWORD_FILE before the first \
             start to choose it)"
        )?;
        return Ok(HandedOver::Shown);
    }
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    // A new file, so that its mode is the one given here and not an older file's.
    match std::fs::remove_file(file) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.mode(0o600);
    }
    let mut out = options.open(file)?;
    writeln!(out, "{password}")?;
    out.sync_all()?;
    Ok(HandedOver::Written(file.to_path_buf()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_terminal_shows_the_password_and_no_file_is_written() {
        let dir = tempfile::tempdir().expect("a directory");
        let file = dir.path().join(PASSWORD_FILE);
        let mut shown = Vec::new();
        let outcome = hand_over("s3cret-pass", Some(&mut shown), &file).expect("shown");
        assert_eq!(outcome, HandedOver::Shown);
        assert!(String::from_utf8_lossy(&shown).contains("Password: s3cret-pass"));
        assert!(!file.exists());
    }

    #[test]
    fn without_a_terminal_the_password_goes_to_a_file_only_its_owner_reads() {
        let dir = tempfile::tempdir().expect("a directory");
        let file = dir.path().join("data").join(PASSWORD_FILE);
        // An older file, readable by everyone, is replaced rather than reused.
        std::fs::create_dir_all(file.parent().expect("a parent")).expect("mkdir");
        std::fs::write(&file, "old\n").expect("an old file");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).expect("chmod");
        }
        let outcome = hand_over("s3cret-pass", None, &file).expect("written");
        assert_eq!(outcome, HandedOver::Written(file.clone()));
        assert_eq!(
            std::fs::read_to_string(&file).expect("read"),
            "s3cret-pass\n"
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

    #[test]
    fn the_file_lies_beside_the_sqlite_database() {
        let mut settings = Settings::default();
        settings.storage.backend = "sqlite".into();
        settings.storage.path = "/srv/lore/lore.db".into();
        assert_eq!(
            password_file(&settings),
            PathBuf::from("/srv/lore").join(PASSWORD_FILE)
        );
        settings.storage.backend = "postgres".into();
        assert_eq!(password_file(&settings), PathBuf::from(PASSWORD_FILE));
    }
}
