//! `lore user ...` and `lore group ...` on a SQLite store (and PostgreSQL when one is
//! reachable), the arguments parsed as the `lore` binary parses them: users added,
//! listed, shown, changed, disabled, given a new password and deleted; groups and their
//! members; global roles granted and revoked; and the errors a self-hoster meets.

use std::collections::HashMap;
use std::io::BufRead;
use std::path::PathBuf;

use clap::{Parser, Subcommand};
use lore_backend_sqlite::SqliteStore;
use lore_conformance::postgres::TestDatabase;
use lore_core::{ErrorCode, ServerCatalog as Catalog};
use lore_server::Settings;
use lore_server::cli_admin::{
    GroupArgs, GroupCommand, UserArgs, UserCommand, open_catalog, run_group, run_user_with,
};

const ADMIN_PASSWORD: &str = "admin-password";

/// The `lore` command line, reduced to the two commands under test.
#[derive(Parser)]
#[command(name = "lore")]
struct Cli {
    #[command(subcommand)]
    command: Top,
}

#[derive(Subcommand)]
enum Top {
    User(UserArgs),
    Group(GroupArgs),
}

/// Parses `lore <argv...>` as a shell would pass it.
fn parse(argv: &[&str]) -> Result<Top, clap::Error> {
    Cli::try_parse_from(std::iter::once("lore").chain(argv.iter().copied())).map(|c| c.command)
}

fn user_command(argv: &[&str]) -> UserCommand {
    let mut full = vec!["user"];
    full.extend_from_slice(argv);
    match parse(&full) {
        Ok(Top::User(args)) => args.command,
        Ok(Top::Group(_)) => unreachable!("parsed `lore user` as `lore group`"),
        Err(e) => panic!("lore user {argv:?}: {e}"),
    }
}

fn group_command(argv: &[&str]) -> GroupCommand {
    let mut full = vec!["group"];
    full.extend_from_slice(argv);
    match parse(&full) {
        Ok(Top::Group(args)) => args.command,
        Ok(Top::User(_)) => unreachable!("parsed `lore group` as `lore user`"),
        Err(e) => panic!("lore group {argv:?}: {e}"),
    }
}

/// `lore user <argv>` with empty standard input and environment.
async fn user(catalog: &Catalog, argv: &[&str]) -> Result<String, String> {
    user_with(catalog, argv, &mut std::io::empty(), &HashMap::new()).await
}

async fn user_with(
    catalog: &Catalog,
    argv: &[&str],
    stdin: &mut dyn BufRead,
    env: &HashMap<String, String>,
) -> Result<String, String> {
    run_user_with(catalog, user_command(argv), stdin, env).await
}

async fn group(catalog: &Catalog, argv: &[&str]) -> Result<String, String> {
    run_group(catalog, group_command(argv)).await
}

fn ok(outcome: Result<String, String>) -> String {
    outcome.unwrap_or_else(|e| panic!("the command failed: {e}"))
}

fn err(outcome: Result<String, String>) -> String {
    match outcome {
        Ok(text) => panic!("the command should have failed, but printed:\n{text}"),
        Err(e) => e,
    }
}

/// A SQLite store as `lore serve` leaves it (its Administrator with [`ADMIN_PASSWORD`]),
/// opened the way `lore user` opens it; the directory lives as long as the value.
struct Fixture {
    catalog: Catalog,
    path: PathBuf,
    _dir: tempfile::TempDir,
}

async fn sqlite() -> Fixture {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("lore.db");
    drop(
        SqliteStore::open(&path)
            .await
            .expect("creating the SQLite store"),
    );
    let mut settings = Settings::default();
    settings.storage.path = path.clone();
    let env = HashMap::from([("LORE_ADMIN_PASSWORD".to_owned(), ADMIN_PASSWORD.to_owned())]);
    let (catalog, notice) = open_catalog(&settings, &env)
        .await
        .unwrap_or_else(|e| panic!("opening the catalog: {e}"));
    assert!(
        notice
            .as_deref()
            .is_some_and(|n| n.contains("created the user Administrator")),
        "{notice:?}"
    );
    Fixture {
        catalog,
        path,
        _dir: dir,
    }
}

/// Whether the user logs in with the password.
async fn logs_in(catalog: &Catalog, name: &str, password: &str) -> bool {
    catalog
        .identity()
        .login(name, password, false)
        .await
        .is_ok()
}

/// The id `lore user show` prints for a user.
async fn id_of(catalog: &Catalog, name: &str) -> String {
    let text = ok(user(catalog, &["show", name]).await);
    text.lines()
        .find_map(|l| l.strip_prefix("Id:"))
        .map(|id| id.trim().to_owned())
        .unwrap_or_else(|| panic!("no Id line in:\n{text}"))
}

/// Asserts that every line of a table starts its columns where the header does.
fn assert_aligned(table: &str, header: &[&str]) {
    let lines: Vec<&str> = table.lines().collect();
    let starts: Vec<usize> = header
        .iter()
        .map(|h| {
            lines[0]
                .find(h)
                .unwrap_or_else(|| panic!("no column {h} in:\n{table}"))
        })
        .collect();
    assert!(lines[1].chars().all(|c| c == '-' || c == ' '), "{table}");
    for line in &lines[2..lines.len() - 1] {
        for &start in &starts[1..] {
            assert!(
                line.len() <= start || line[..start].ends_with("  "),
                "column at {start} not aligned in {line:?}:\n{table}"
            );
        }
    }
}

#[tokio::test]
async fn users_are_added_listed_shown_changed_and_deleted() {
    let f = sqlite().await;
    let c = &f.catalog;
    assert!(logs_in(c, "Administrator", ADMIN_PASSWORD).await);

    let added = ok(user_with(
        c,
        &[
            "add",
            "alice",
            "--full-name",
            "Alice Liddell",
            "--email",
            "alice@example.com",
            "--password-stdin",
        ],
        &mut "alice-password-1\nignored second line\n".as_bytes(),
        &HashMap::new(),
    )
    .await);
    assert!(added.starts_with("Created user alice (-1_"), "{added}");
    assert!(!added.contains("alice-password-1"), "{added}");
    assert!(logs_in(c, "alice", "alice-password-1").await);

    let added = ok(user(c, &["add", "bob", "--disabled", "--no-password"]).await);
    assert!(
        added.contains(", disabled, without a password (logs in only through OAuth 2.0)."),
        "{added}"
    );

    let list = ok(user(c, &["list"]).await);
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(lines.len(), 6, "{list}");
    assert!(
        lines[0].starts_with("Name           Full name      E-mail             Enabled  Id"),
        "{list}"
    );
    assert!(
        lines[3].starts_with("alice          Alice Liddell  alice@example.com  yes      -1_"),
        "{list}"
    );
    assert!(
        lines[4].starts_with("bob                                              no       -1_"),
        "{list}"
    );
    assert_eq!(lines[5], "(3 users)");
    assert_aligned(&list, &["Name", "Full name", "E-mail", "Enabled", "Id"]);
    let disabled = ok(user(c, &["list", "--enabled", "false"]).await);
    assert!(
        disabled.contains("\nbob ") && !disabled.contains("alice"),
        "{disabled}"
    );
    assert!(disabled.ends_with("(1 user)\n"), "{disabled}");

    let show = ok(user(c, &["show", "alice"]).await);
    for line in [
        "Name:          alice",
        "Full name:     Alice Liddell",
        "E-mail:        alice@example.com",
        "Enabled:       yes",
        "Password:      set",
        "Groups:        -",
        "Global roles:  -",
    ] {
        assert!(show.lines().any(|l| l == line), "no {line:?} in:\n{show}");
    }
    let bob = ok(user(c, &["show", "bob"]).await);
    assert!(
        bob.contains("Password:      none (logs in only through OAuth 2.0)"),
        "{bob}"
    );

    // By id: an argument starting with `-` follows `--`.
    let id = id_of(c, "alice").await;
    let by_id = ok(user(c, &["show", "--", &id]).await);
    assert!(by_id.starts_with("Name:          alice\n"), "{by_id}");

    // Changing details and the name.
    let changed = ok(user(
        c,
        &[
            "set",
            "alice",
            "--email",
            "alicia@example.com",
            "--description",
            "line one\nline two",
            "--rename",
            "alicia",
        ],
    )
    .await);
    assert_eq!(changed, "Changed user alice, now named alicia.\n");
    let show = ok(user(c, &["show", "alicia"]).await);
    assert!(
        show.contains("E-mail:        alicia@example.com\n"),
        "{show}"
    );
    assert!(
        show.contains("Description:   line one line two\n"),
        "{show}"
    );
    assert_eq!(err(user(c, &["show", "alice"]).await), "no user 'alice'");
    assert!(logs_in(c, "alicia", "alice-password-1").await);
    let nothing = err(user(c, &["set", "alicia"]).await);
    assert!(nothing.starts_with("nothing to change"), "{nothing}");

    // Disabling ends the sessions and refuses logins; enabling lets the user in again.
    let key = c
        .identity()
        .login("alicia", "alice-password-1", false)
        .await
        .expect("alicia logs in");
    assert_eq!(
        ok(user(c, &["set", "alicia", "--disable"]).await),
        "Changed user alicia: disabled, their sessions ended.\n"
    );
    assert!(
        c.identity().authenticate(&key).await.is_err(),
        "the session outlived disabling"
    );
    assert!(!logs_in(c, "alicia", "alice-password-1").await);
    assert_eq!(
        ok(user(c, &["set", "alicia", "--enable"]).await),
        "Changed user alicia: enabled.\n"
    );
    assert!(logs_in(c, "alicia", "alice-password-1").await);

    // Deleting.
    assert_eq!(
        ok(user(c, &["delete", "alicia"]).await),
        "Deleted user alicia.\n"
    );
    assert_eq!(err(user(c, &["show", "alicia"]).await), "no user 'alicia'");
    assert!(!logs_in(c, "alicia", "alice-password-1").await);
    let list = ok(user(c, &["list"]).await);
    assert!(list.ends_with("(2 users)\n"), "{list}");
}

#[tokio::test]
async fn a_password_is_reset_from_stdin_a_file_or_the_environment() {
    let f = sqlite().await;
    let c = &f.catalog;
    ok(user_with(
        c,
        &["add", "carol", "--password-stdin"],
        &mut "first-password\r\n".as_bytes(),
        &HashMap::new(),
    )
    .await);
    assert!(
        logs_in(c, "carol", "first-password").await,
        "\\r\\n is trimmed"
    );
    let key = c
        .identity()
        .login("carol", "first-password", false)
        .await
        .expect("carol logs in");

    // From a file: the old password and the old session stop working.
    let file = f.path.with_file_name("new-password.txt");
    std::fs::write(&file, "second-password\n").expect("writing the password file");
    let file = file.to_string_lossy().into_owned();
    let out = ok(user(c, &["password", "carol", "--password-file", &file]).await);
    assert_eq!(
        out,
        "Set the password of user carol; their sessions ended.\n"
    );
    assert!(logs_in(c, "carol", "second-password").await);
    assert!(!logs_in(c, "carol", "first-password").await);
    assert!(
        c.identity().authenticate(&key).await.is_err(),
        "the session outlived the reset"
    );

    // From standard input.
    ok(user_with(
        c,
        &["password", "carol", "--password-stdin"],
        &mut "third-password\n".as_bytes(),
        &HashMap::new(),
    )
    .await);
    assert!(logs_in(c, "carol", "third-password").await);
    assert!(!logs_in(c, "carol", "second-password").await);

    // From LORE_NEW_PASSWORD when no option names a source; an option wins over it.
    let env = HashMap::from([("LORE_NEW_PASSWORD".to_owned(), "fourth-password".to_owned())]);
    ok(user_with(c, &["password", "carol"], &mut std::io::empty(), &env).await);
    assert!(logs_in(c, "carol", "fourth-password").await);
    ok(user_with(
        c,
        &["password", "carol", "--password-stdin"],
        &mut "fifth-password\n".as_bytes(),
        &env,
    )
    .await);
    assert!(logs_in(c, "carol", "fifth-password").await);

    // The forgotten Administrator password, reset without the old one.
    ok(user_with(
        c,
        &["password", "Administrator", "--password-stdin"],
        &mut "new-admin-password\n".as_bytes(),
        &HashMap::new(),
    )
    .await);
    assert!(logs_in(c, "Administrator", "new-admin-password").await);
    assert!(!logs_in(c, "Administrator", ADMIN_PASSWORD).await);

    // No source, an empty input, a short password, an unreadable file.
    let none = err(user(c, &["password", "carol"]).await);
    assert!(
        none.contains("--password-stdin") && none.contains("LORE_NEW_PASSWORD"),
        "{none}"
    );
    let empty = err(user(c, &["password", "carol", "--password-stdin"]).await);
    assert!(empty.contains("standard input is empty"), "{empty}");
    let blank = err(user_with(
        c,
        &["password", "carol", "--password-stdin"],
        &mut "\n".as_bytes(),
        &HashMap::new(),
    )
    .await);
    assert_eq!(blank, "the password is empty");
    let short = err(user_with(
        c,
        &["password", "carol", "--password-stdin"],
        &mut "short\n".as_bytes(),
        &HashMap::new(),
    )
    .await);
    assert!(short.contains("at least 8 characters"), "{short}");
    assert!(!short.contains("short\n"), "{short}");
    let missing = err(user(
        c,
        &["password", "carol", "--password-file", "/nonexistent/pw"],
    )
    .await);
    assert!(
        missing.starts_with("cannot read the password file /nonexistent/pw"),
        "{missing}"
    );
    assert!(
        logs_in(c, "carol", "fifth-password").await,
        "a failed reset changed nothing"
    );

    // `add` without a password source says how to give one.
    let add = err(user(c, &["add", "dave"]).await);
    assert!(add.contains("--no-password"), "{add}");
    assert!(err(user(c, &["show", "dave"]).await).contains("no user 'dave'"));
}

#[tokio::test]
async fn groups_are_added_with_members_changed_and_deleted() {
    let f = sqlite().await;
    let c = &f.catalog;
    for name in ["alice", "bob"] {
        ok(user(c, &["add", name, "--no-password"]).await);
    }

    let added = ok(group(
        c,
        &[
            "add",
            "analysts",
            "--description",
            "Data people",
            "--member",
            "alice",
        ],
    )
    .await);
    assert!(
        added.starts_with("Created group analysts (-1_") && added.ends_with(") with 1 member.\n"),
        "{added}"
    );
    assert_eq!(
        ok(group(c, &["add-member", "analysts", "bob", "alice"]).await),
        "Added bob to group analysts; it has 2 members.\n"
    );
    assert_eq!(
        ok(group(c, &["add-member", "analysts", "bob"]).await),
        "Added nobody new to group analysts; it has 2 members.\n"
    );

    let show = ok(group(c, &["show", "analysts"]).await);
    assert!(show.starts_with("Name:          analysts\n"), "{show}");
    assert!(show.contains("\nDescription:   Data people\n"), "{show}");
    assert!(show.contains("\nEnabled:       yes\n"), "{show}");
    let members: Vec<&str> = show
        .lines()
        .skip_while(|l| !l.starts_with("Member"))
        .collect();
    assert!(members[2].starts_with("alice "), "{show}");
    assert!(members[3].starts_with("bob "), "{show}");
    assert_eq!(members[4], "(2 members)", "{show}");
    assert_aligned(
        &members.join("\n"),
        &["Member", "Full name", "Enabled", "Id"],
    );

    ok(group(c, &["add", "empty", "--disabled"]).await);
    let list = ok(group(c, &["list"]).await);
    let lines: Vec<&str> = list.lines().collect();
    assert_eq!(lines[0], "Name      Enabled  Description  Id", "{list}");
    assert!(
        lines[2].starts_with("analysts  yes      Data people  -1_"),
        "{list}"
    );
    assert!(
        lines[3].starts_with("empty     no                    -1_"),
        "{list}"
    );
    assert_eq!(lines[4], "(2 groups)");
    let of_bob = ok(group(c, &["list", "--member", "bob"]).await);
    assert!(
        of_bob.contains("\nanalysts ") && of_bob.ends_with("(1 group)\n"),
        "{of_bob}"
    );
    assert_eq!(
        ok(group(c, &["list", "--member", "Administrator"]).await),
        "(no groups)\n"
    );
    let bob = ok(user(c, &["show", "bob"]).await);
    assert!(bob.contains("\nGroups:        analysts\n"), "{bob}");

    assert_eq!(
        ok(group(c, &["remove-member", "analysts", "bob"]).await),
        "Removed bob from group analysts; it has 1 member.\n"
    );
    let again = err(group(c, &["remove-member", "analysts", "bob"]).await);
    assert_eq!(again, "user 'bob' is not a member of group 'analysts'");

    assert_eq!(
        ok(group(
            c,
            &["set", "analysts", "--rename", "analytics", "--disable"]
        )
        .await),
        "Changed group analysts, now named analytics: disabled, its roles hold for nobody.\n"
    );
    let alice = ok(user(c, &["show", "alice"]).await);
    assert!(
        alice.contains("\nGroups:        analytics (disabled)\n"),
        "{alice}"
    );
    assert_eq!(
        ok(group(c, &["set", "analytics", "--enable"]).await),
        "Changed group analytics: enabled.\n"
    );

    let duplicate = err(group(c, &["add", "ANALYTICS"]).await);
    assert!(
        duplicate.to_lowercase().contains("analytics"),
        "{duplicate}"
    );
    let unknown = err(group(c, &["add-member", "analytics", "zed"]).await);
    assert_eq!(unknown, "no user 'zed'");

    assert_eq!(
        ok(group(c, &["delete", "analytics"]).await),
        "Deleted group analytics.\n"
    );
    assert_eq!(
        err(group(c, &["show", "analytics"]).await),
        "no group 'analytics'"
    );
    let alice = ok(user(c, &["show", "alice"]).await);
    assert!(alice.contains("\nGroups:        -\n"), "{alice}");
}

#[tokio::test]
async fn global_roles_are_granted_and_revoked() {
    let f = sqlite().await;
    let c = &f.catalog;
    ok(user_with(
        c,
        &["add", "alice", "--password-stdin"],
        &mut "alice-password\n".as_bytes(),
        &HashMap::new(),
    )
    .await);
    let alice_may_administer = || async {
        let key = c
            .identity()
            .login("alice", "alice-password", false)
            .await
            .expect("alice logs in");
        let caller = c
            .identity()
            .authenticate(&key)
            .await
            .expect("alice's key works");
        match c.identity().list_users(&caller).await {
            Ok(_) => true,
            Err(e) if e.code == ErrorCode::PermissionDenied => false,
            Err(e) => panic!("listing users: {e}"),
        }
    };
    assert_eq!(ok(user(c, &["roles", "alice"]).await), "(no roles)\n");
    assert!(!alice_may_administer().await);

    assert_eq!(
        ok(user(c, &["grant", "alice", "Administrator"]).await),
        "Granted Administrator to user alice; global roles now: Administrator.\n"
    );
    assert!(alice_may_administer().await);
    let roles = ok(user(c, &["roles", "alice"]).await);
    let lines: Vec<&str> = roles.lines().collect();
    assert!(
        lines[0].starts_with("Role           Granted   Description"),
        "{roles}"
    );
    assert!(lines[2].starts_with("Administrator  directly  "), "{roles}");
    assert_eq!(lines[3], "(1 role)");

    // A role held through a group shows as such.
    ok(group(c, &["add", "admins", "--member", "alice"]).await);
    let granted = ok(group(c, &["grant", "admins", "Administrator"]).await);
    assert_eq!(
        granted,
        "Granted Administrator to group admins; global roles now: Administrator.\n"
    );
    let roles = ok(user(c, &["roles", "alice"]).await);
    assert!(
        roles.contains("Administrator  through group admins"),
        "{roles}"
    );
    let show = ok(user(c, &["show", "alice"]).await);
    assert!(
        show.contains("\nGlobal roles:  Administrator, Administrator (through admins)\n"),
        "{show}"
    );
    let admins_show = ok(group(c, &["show", "admins"]).await);
    assert!(
        admins_show.contains("\nGlobal roles:  Administrator\n"),
        "{admins_show}"
    );
    let revoked = ok(group(c, &["revoke", "admins", "Administrator"]).await);
    assert_eq!(revoked, "Revoked Administrator from group admins.\n");
    assert!(!ok(user(c, &["roles", "alice"]).await).contains("through group admins"));
    assert!(
        group(c, &["revoke", "admins", "Administrator"])
            .await
            .is_err()
    );
    ok(group(c, &["delete", "admins"]).await);

    assert_eq!(
        ok(user(c, &["revoke", "alice", "Administrator"]).await),
        "Revoked Administrator from user alice.\n"
    );
    assert!(!alice_may_administer().await);
    assert_eq!(
        err(user(c, &["revoke", "alice", "Administrator"]).await),
        "user 'alice' does not hold the global role 'Administrator'"
    );
    let unknown = err(user(c, &["grant", "alice", "Wizard"]).await);
    assert!(unknown.contains("Wizard"), "{unknown}");
    assert_eq!(err(user(c, &["roles", "nobody"]).await), "no user 'nobody'");
}

#[tokio::test]
async fn the_last_administrator_is_kept_and_a_disabled_one_enabled_again() {
    let f = sqlite().await;
    let c = &f.catalog;
    // The only administrator can be neither disabled, nor deleted, nor lose the role.
    let refusals = [
        err(user(c, &["set", "Administrator", "--disable"]).await),
        err(user(c, &["delete", "Administrator"]).await),
        err(user(c, &["revoke", "Administrator", "Administrator"]).await),
    ];
    for refusal in &refusals {
        assert!(refusal.contains("administrator"), "{refusal}");
    }
    assert!(logs_in(c, "Administrator", ADMIN_PASSWORD).await);

    // With a second administrator the first may be disabled; the command line, which
    // needs no login, enables it again.
    ok(user(c, &["add", "alice", "--no-password"]).await);
    ok(user(c, &["grant", "alice", "Administrator"]).await);
    ok(user(c, &["set", "Administrator", "--disable"]).await);
    assert!(!logs_in(c, "Administrator", ADMIN_PASSWORD).await);
    let list = ok(user(c, &["list", "--enabled", "false"]).await);
    assert!(list.contains("\nAdministrator "), "{list}");
    ok(user(c, &["set", "Administrator", "--enable"]).await);
    assert!(logs_in(c, "Administrator", ADMIN_PASSWORD).await);
}

#[tokio::test]
async fn errors_say_what_is_wrong() {
    let f = sqlite().await;
    let c = &f.catalog;
    assert_eq!(err(user(c, &["show", "nobody"]).await), "no user 'nobody'");
    assert_eq!(
        err(user(c, &["delete", "nobody"]).await),
        "no user 'nobody'"
    );
    assert_eq!(
        err(group(c, &["delete", "nobody"]).await),
        "no group 'nobody'"
    );
    ok(user(c, &["add", "alice", "--no-password"]).await);
    let duplicate = err(user(c, &["add", "Alice", "--no-password"]).await);
    assert!(duplicate.to_lowercase().contains("alice"), "{duplicate}");
    let list = ok(user(c, &["list"]).await);
    assert!(list.ends_with("(2 users)\n"), "{list}");
    let bad_name = err(user(c, &["add", " spaced", "--no-password"]).await);
    assert!(bad_name.contains("spaces"), "{bad_name}");

    // What the arguments refuse: a password on the command line, contradictions, a
    // grant without a role.
    for argv in [
        &["user", "add", "x", "--password", "secret-password"][..],
        &["user", "password", "x", "secret-password"],
        &["user", "set", "x", "--enable", "--disable"],
        &["user", "add", "x", "--password-stdin", "--no-password"],
        &[
            "user",
            "add",
            "x",
            "--password-stdin",
            "--password-file",
            "p",
        ],
        &["user", "grant", "x"],
        &["user", "show", "-1_3"],
        &["group", "set", "g", "--enable", "--disable"],
        &["group", "add-member", "g"],
    ] {
        assert!(parse(argv).is_err(), "{argv:?} was accepted");
    }
}

#[tokio::test]
async fn the_store_must_be_one_that_persists_and_exists() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    // `--config` goes before or after the command.
    let config = dir.path().join("lore.toml");
    std::fs::write(&config, "[storage]\nbackend = \"memory\"\n").expect("writing lore.toml");
    let config_arg = config.to_string_lossy().into_owned();
    for argv in [
        &["user", "--config", &config_arg, "list"][..],
        &["user", "list", "--config", &config_arg],
    ] {
        match parse(argv) {
            Ok(Top::User(args)) => assert_eq!(args.config.as_deref(), Some(config.as_path())),
            _ => panic!("{argv:?} did not parse"),
        }
    }
    match parse(&["group", "show", "g", "--config", &config_arg]) {
        Ok(Top::Group(args)) => assert_eq!(args.config.as_deref(), Some(config.as_path())),
        _ => panic!("`lore group show g --config` did not parse"),
    }

    let settings = Settings::load_with_env(Some(&config), HashMap::new()).expect("the settings");
    let refused = open_catalog(&settings, &HashMap::new())
        .await
        .expect_err("the memory backend is refused");
    assert!(
        refused.contains("\"memory\"") && refused.contains("keeps nothing between processes"),
        "{refused}"
    );

    let mut settings = Settings::default();
    settings.storage.path = dir.path().join("typo").join("lore.db");
    let refused = open_catalog(&settings, &HashMap::new())
        .await
        .expect_err("a missing SQLite file is refused");
    assert!(
        refused.starts_with("no SQLite store at storage.path"),
        "{refused}"
    );
    assert!(
        !settings.storage.path.exists(),
        "refusing created the file anyway"
    );
}

#[tokio::test]
async fn an_empty_store_gets_its_administrator_without_showing_a_password() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("lore.db");
    drop(
        SqliteStore::open(&path)
            .await
            .expect("creating the SQLite store"),
    );
    let mut settings = Settings::default();
    settings.storage.path = path;
    let (catalog, notice) = open_catalog(&settings, &HashMap::new())
        .await
        .unwrap_or_else(|e| panic!("opening the catalog: {e}"));
    let notice = notice.expect("a notice about the new Administrator");
    assert!(
        notice.contains("generated password, not shown")
            && notice.contains("lore user password Administrator"),
        "{notice}"
    );
    // Opened again, the store is as it was.
    let (_, again) = open_catalog(&settings, &HashMap::new())
        .await
        .unwrap_or_else(|e| panic!("opening the catalog again: {e}"));
    assert_eq!(again, None);
    ok(user_with(
        &catalog,
        &["password", "Administrator", "--password-stdin"],
        &mut "chosen-password\n".as_bytes(),
        &HashMap::new(),
    )
    .await);
    assert!(logs_in(&catalog, "Administrator", "chosen-password").await);
}

/// The same catalog over PostgreSQL: the commands are backend-agnostic, and the store
/// they write is the one a server over the same database reads.
#[tokio::test]
async fn postgres_store_password_reset_and_group() {
    let Some(db) = TestDatabase::create().await else {
        return;
    };
    let mut settings = Settings::default();
    settings.storage.backend = "postgres".into();
    settings.storage.url = Some(db.url.clone());
    let env = HashMap::from([("LORE_ADMIN_PASSWORD".to_owned(), ADMIN_PASSWORD.to_owned())]);
    let (c, _) = open_catalog(&settings, &env)
        .await
        .unwrap_or_else(|e| panic!("opening the catalog: {e}"));
    ok(user_with(
        &c,
        &["password", "Administrator", "--password-stdin"],
        &mut "postgres-password\n".as_bytes(),
        &HashMap::new(),
    )
    .await);
    ok(group(&c, &["add", "ops", "--member", "Administrator"]).await);

    // A second process over the same database sees the change.
    let (other, _) = open_catalog(&settings, &HashMap::new())
        .await
        .unwrap_or_else(|e| panic!("opening the catalog again: {e}"));
    assert!(logs_in(&other, "Administrator", "postgres-password").await);
    let show = ok(group(&other, &["show", "ops"]).await);
    assert!(show.contains("\nAdministrator "), "{show}");
}

#[tokio::test]
async fn users_are_linked_to_and_unlinked_from_their_sign_in() {
    let f = sqlite().await;
    let c = &f.catalog;
    ok(user(c, &["add", "dora", "--no-password"]).await);
    let linked = ok(user(
        c,
        &[
            "link",
            "dora",
            "--issuer",
            "https://idp.example/",
            "--subject",
            "248289761001",
        ],
    )
    .await);
    assert_eq!(
        linked,
        "Linked user dora: subject '248289761001' of https://idp.example/.\n"
    );
    let show = ok(user(c, &["show", "dora"]).await);
    assert!(
        show.contains("subject '248289761001' of https://idp.example/"),
        "{show}"
    );
    // The same identity for another user is refused, naming who holds it.
    ok(user(c, &["add", "eli", "--no-password"]).await);
    let taken = err(user(
        c,
        &[
            "link",
            "eli",
            "--issuer",
            "https://idp.example/",
            "--subject",
            "248289761001",
        ],
    )
    .await);
    assert!(taken.contains("'dora' is already linked"), "{taken}");
    let marked = ok(user(c, &["link", "eli", "--at-next-sign-in"]).await);
    assert!(
        marked.contains("at the next sign-in naming the user"),
        "{marked}"
    );
    // A password account is never linked by a name claim.
    let refused = err(user(c, &["link", "Administrator", "--at-next-sign-in"]).await);
    assert!(refused.contains("has a password"), "{refused}");
    // Either a subject with its issuer, or --at-next-sign-in.
    let link = |extra: &[&'static str]| {
        let mut argv = vec!["user", "link", "dora"];
        argv.extend_from_slice(extra);
        parse(&argv).is_ok()
    };
    assert!(link(&["--issuer", "i", "--subject", "s"]));
    assert!(link(&["--at-next-sign-in"]));
    assert!(!link(&["--subject", "s"]));
    assert!(!link(&["--issuer", "i"]));
    assert!(!link(&[]));
    assert!(!link(&[
        "--issuer",
        "i",
        "--subject",
        "s",
        "--at-next-sign-in"
    ]));
    let unlinked = ok(user(c, &["unlink", "dora"]).await);
    assert!(unlinked.starts_with("Unlinked user dora"), "{unlinked}");
    assert!(ok(user(c, &["show", "dora"]).await).contains("Identity:"));
    assert!(
        ok(user(c, &["show", "dora"]).await)
            .lines()
            .any(|l| l.starts_with("Identity:") && l.trim_end().ends_with("none")),
    );
}

/// `lore history purge` needs a retention, and on a store whose history is all within
/// it purges nothing and says so.
#[tokio::test]
async fn history_purge_needs_a_retention_and_keeps_what_it_keeps() {
    use lore_server::cli_history::purge_on;
    let fixture = sqlite().await;
    let refused = err(purge_on(&fixture.catalog, (0, 0, 0)).await);
    assert!(refused.contains("--keep-days"), "{refused}");
    assert!(refused.contains("--keep-curation-days"), "{refused}");
    let kept = ok(purge_on(&fixture.catalog, (30, 0, 0)).await);
    assert!(kept.contains("nothing to purge"), "{kept}");
    let kept = ok(purge_on(&fixture.catalog, (0, 3, 0)).await);
    assert!(
        kept.contains("nothing to purge"),
        "no model has versions: {kept}"
    );
    let kept = ok(purge_on(&fixture.catalog, (0, 0, 30)).await);
    assert!(
        kept.contains("curation history is within its retention"),
        "{kept}"
    );
}
