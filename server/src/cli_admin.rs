//! `lore user ...` and `lore group ...`: users, groups, their members and the users'
//! global roles, managed from the command line.
//!
//! The commands call the same [`Catalog`] as the HTTP server, directly on the store the
//! configuration names and as [`ServerCatalog::command_line_operator`] (whoever can open the
//! store's database controls it anyway), so nothing is implemented twice and no server
//! needs to run: this is how a self-hoster resets a forgotten Administrator password or
//! enables a disabled administrator. Sessions and grants live in the store, so a change
//! holds at once for a server running over the same store.
//!
//! Passwords are never arguments (they would land in the shell history and the process
//! list) and are never printed: they come from standard input, a file, or
//! `LORE_NEW_PASSWORD` / `LORE_NEW_PASSWORD_FILE`.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::io::{BufRead, IsTerminal as _};
use std::path::{Path, PathBuf};

use lore_core::ServerCatalog;
use lore_core::auth::Caller;
use lore_core::catalog::{
    Bootstrap, GranteeKind, GranteeRef, GroupUpdate, NewGroup, NewUser, RoleGrant, UserUpdate,
};
use lore_core::model::{ExternalLink, Group, User};

use crate::Settings;
use crate::text_table;

/// The environment variable a new password may come from when no option names a source
/// (`LORE_NEW_PASSWORD_FILE` names a file holding it).
pub const NEW_PASSWORD_ENV: &str = "LORE_NEW_PASSWORD";

/// `lore user`: the configuration naming the store, and what to do.
#[derive(Debug, clap::Args)]
pub struct UserArgs {
    /// Configuration file naming the store (default: lore.toml in the working directory,
    /// if present), as for `lore serve`.
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub command: UserCommand,
}

/// `lore group`: the configuration naming the store, and what to do.
#[derive(Debug, clap::Args)]
pub struct GroupArgs {
    /// Configuration file naming the store (default: lore.toml in the working directory,
    /// if present), as for `lore serve`.
    #[arg(long, global = true, value_name = "PATH")]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub command: GroupCommand,
}

/// Where a new password comes from. Without either option it comes from
/// `LORE_NEW_PASSWORD` or the file `LORE_NEW_PASSWORD_FILE` names.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct PasswordSource {
    /// Read the password from the first line of standard input.
    #[arg(long, conflicts_with = "password_file")]
    pub password_stdin: bool,
    /// Read the password from a file (one trailing newline is dropped).
    #[arg(long, value_name = "PATH")]
    pub password_file: Option<PathBuf>,
}

/// The `lore user` commands. A user is named by name or by id (`-1_<n>`; write
/// `-- -1_3`, as an argument starting with `-` is otherwise read as an option).
#[derive(Debug, clap::Subcommand)]
pub enum UserCommand {
    /// List the users.
    List {
        /// Only enabled (true) or only disabled (false) users.
        #[arg(long, value_name = "true|false")]
        enabled: Option<bool>,
    },
    /// Show a user with their groups and global roles.
    Show {
        /// The user's name or id.
        name: String,
    },
    /// Create a user; the password is read from --password-stdin, --password-file or
    /// LORE_NEW_PASSWORD, or there is none (--no-password).
    Add {
        /// The new user's name (unique, case-insensitively).
        name: String,
        #[arg(long)]
        full_name: Option<String>,
        /// The e-mail address.
        #[arg(long)]
        email: Option<String>,
        #[arg(long)]
        description: Option<String>,
        /// Create the user disabled.
        #[arg(long)]
        disabled: bool,
        #[command(flatten)]
        password: PasswordSource,
        /// Create the user without a password: they log in only through OAuth 2.0.
        #[arg(long, conflicts_with_all = ["password_stdin", "password_file"])]
        no_password: bool,
    },
    /// Change a user's details, name or whether they are enabled (disabling ends their
    /// sessions).
    Set {
        /// The user's name or id.
        name: String,
        #[arg(long)]
        full_name: Option<String>,
        /// The e-mail address.
        #[arg(long)]
        email: Option<String>,
        #[arg(long)]
        description: Option<String>,
        /// A new name.
        #[arg(long, value_name = "NEW")]
        rename: Option<String>,
        /// Let the user log in again.
        #[arg(long, conflicts_with = "disable")]
        enable: bool,
        /// Refuse the user's logins and end their sessions.
        #[arg(long)]
        disable: bool,
    },
    /// Link a user to their account at the OAuth 2.0 / OpenID Connect provider: later
    /// sign-ins with that issuer and subject (the tokens' `iss` and `sub`) are this
    /// user, whatever name they carry.
    Link {
        /// The user's name or id.
        name: String,
        /// The provider, exactly as its tokens' `iss` claim (`auth.oauth2.issuer`).
        #[arg(
            long,
            required_unless_present = "at_next_sign_in",
            requires = "subject"
        )]
        issuer: Option<String>,
        /// The user's account at the provider, exactly as its tokens' `sub` claim.
        #[arg(long, requires = "issuer")]
        subject: Option<String>,
        /// Instead: link the user at their next sign-in whose name claim is the user's
        /// name, character for character (only for a user without a password).
        #[arg(long, conflicts_with_all = ["issuer", "subject"])]
        at_next_sign_in: bool,
    },
    /// Unlink a user from their account at the identity provider.
    Unlink {
        /// The user's name or id.
        name: String,
    },
    /// Reset a user's password without the old one; their sessions end.
    Password {
        /// The user's name or id.
        name: String,
        #[command(flatten)]
        password: PasswordSource,
    },
    /// Delete a user with their sessions, grants and worksheets.
    Delete {
        /// The user's name or id.
        name: String,
    },
    /// List a user's global roles, granted to them or through their enabled groups.
    Roles {
        /// The user's name or id.
        name: String,
    },
    /// Grant global roles to a user.
    Grant {
        /// The user's name or id.
        name: String,
        /// Global roles, e.g. Administrator.
        #[arg(required = true, value_name = "ROLE")]
        roles: Vec<String>,
    },
    /// Revoke a global role granted to a user.
    Revoke {
        /// The user's name or id.
        name: String,
        role: String,
    },
}

/// The `lore group` commands. Groups and users are named by name or id.
#[derive(Debug, clap::Subcommand)]
pub enum GroupCommand {
    /// List the groups.
    List {
        /// Only the groups of this user.
        #[arg(long, value_name = "USER")]
        member: Option<String>,
    },
    /// Show a group with its members and global roles.
    Show {
        /// The group's name or id.
        name: String,
    },
    /// Create a group.
    Add {
        /// The new group's name (unique, case-insensitively).
        name: String,
        #[arg(long)]
        description: Option<String>,
        /// A member (repeat the option for more).
        #[arg(long = "member", value_name = "USER")]
        members: Vec<String>,
        /// Create the group disabled: its roles hold for nobody.
        #[arg(long)]
        disabled: bool,
    },
    /// Change a group's description, name or whether it is enabled.
    Set {
        /// The group's name or id.
        name: String,
        #[arg(long)]
        description: Option<String>,
        /// A new name.
        #[arg(long, value_name = "NEW")]
        rename: Option<String>,
        /// Let the group's roles hold for its members again.
        #[arg(long, conflicts_with = "disable")]
        enable: bool,
        /// Make the group's roles hold for nobody.
        #[arg(long)]
        disable: bool,
    },
    /// Add users to a group (members already in it stay).
    AddMember {
        /// The group's name or id.
        name: String,
        /// Users' names or ids.
        #[arg(required = true, value_name = "USER")]
        users: Vec<String>,
    },
    /// Remove a user from a group.
    RemoveMember {
        /// The group's name or id.
        name: String,
        /// The user's name or id.
        user: String,
    },
    /// Delete a group with its memberships and grants.
    Delete {
        /// The group's name or id.
        name: String,
    },
    /// Grant global roles to a group: they hold for each member while it is enabled.
    Grant {
        /// The group's name or id.
        name: String,
        /// Global roles, e.g. "Metadata Viewer".
        #[arg(required = true, value_name = "ROLE")]
        roles: Vec<String>,
    },
    /// Revoke a global role granted to a group.
    Revoke {
        /// The group's name or id.
        name: String,
        role: String,
    },
}

/// Opens the catalog over the store the settings name, for `lore user` and `lore group`.
///
/// Refuses the memory backend (it keeps nothing between processes) and a SQLite file
/// that does not exist (a mistyped `storage.path` would otherwise get a new, empty
/// store, and a password reset would land there). Then prepares the store as
/// `lore serve` does: the built-in roles and, when the store has no users, the
/// `Administrator` with `LORE_ADMIN_PASSWORD(_FILE)` from `env` or a generated password.
/// Answers the catalog and, when it created the Administrator, a notice for standard
/// error (which never shows the password).
pub async fn open_catalog(
    settings: &Settings,
    env: &HashMap<String, String>,
) -> Result<(ServerCatalog, Option<String>), String> {
    open_catalog_with(settings, env, true).await
}

/// [`open_catalog`]; with `existing` false, a SQLite store is created where there is
/// none (the target of `lore restore`).
pub async fn open_catalog_with(
    settings: &Settings,
    env: &HashMap<String, String>,
    existing: bool,
) -> Result<(ServerCatalog, Option<String>), String> {
    let storage = &settings.storage;
    match storage.backend.as_str() {
        "memory" => {
            return Err(
                "storage.backend is \"memory\", which keeps nothing between processes; \
                 point --config (or LORE__STORAGE__BACKEND) at the sqlite or postgres store \
                 the server uses"
                    .to_owned(),
            );
        }
        "sqlite" if existing && !storage.path.exists() => {
            return Err(format!(
                "no SQLite store at storage.path '{}'; check --config or LORE__STORAGE__PATH \
                 (`lore serve` creates the store on first start)",
                storage.path.display()
            ));
        }
        _ => {}
    }
    let store = crate::open_store(settings)
        .await
        .map_err(|e| format!("cannot open the store: {}", e.chain()))?;
    let catalog = crate::catalog(store, settings).map_err(|e| e.to_string())?;
    let admin_password =
        crate::config::value_or_file(env, "LORE_ADMIN_PASSWORD").map_err(|e| e.to_string())?;
    let notice = match catalog
        .identity()
        .bootstrap(admin_password.as_deref())
        .await
        .map_err(|e| format!("cannot prepare the store: {}", e.chain()))?
    {
        Bootstrap::Existing => None,
        Bootstrap::CreatedWithGivenPassword => Some(
            "the store had no users: created the user Administrator with the password of \
             LORE_ADMIN_PASSWORD"
                .to_owned(),
        ),
        Bootstrap::CreatedWithGeneratedPassword(_) => Some(
            "the store had no users: created the user Administrator with a generated password, \
             not shown; set one with `lore user password Administrator --password-stdin`"
                .to_owned(),
        ),
    };
    Ok((catalog, notice))
}

/// Loads the settings the way `lore serve` does and opens the catalog; for `main`.
/// Answers the catalog and a notice for standard error, or what went wrong.
pub async fn open_from_config(
    config: Option<&Path>,
) -> Result<(ServerCatalog, Option<String>), String> {
    let settings = Settings::load(config).map_err(|e| e.to_string())?;
    open_catalog(&settings, &environment()).await
}

/// The process environment, for `LORE_NEW_PASSWORD` and `LORE_ADMIN_PASSWORD`; variables
/// that are not Unicode are left out (none of Lore's is).
pub fn environment() -> HashMap<String, String> {
    std::env::vars_os()
        .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
        .collect()
}

/// Runs a `lore user` command, reading a password from this process's standard input
/// or environment; answers the text to print, or what went wrong.
pub async fn run_user(catalog: &ServerCatalog, command: UserCommand) -> Result<String, String> {
    let stdin = std::io::stdin();
    if password_source(&command).is_some_and(|s| s.password_stdin) && stdin.is_terminal() {
        eprint!("New password (one line; it shows as you type): ");
    }
    let password = new_password(&command, &mut stdin.lock(), &environment())?;
    user_command(catalog, command, password).await
}

/// [`run_user`] with the standard input and the environment given.
pub async fn run_user_with(
    catalog: &ServerCatalog,
    command: UserCommand,
    stdin: &mut dyn BufRead,
    env: &HashMap<String, String>,
) -> Result<String, String> {
    let password = new_password(&command, stdin, env)?;
    user_command(catalog, command, password).await
}

/// The password source of the commands that set a password.
fn password_source(command: &UserCommand) -> Option<&PasswordSource> {
    match command {
        UserCommand::Add {
            password,
            no_password: false,
            ..
        }
        | UserCommand::Password { password, .. } => Some(password),
        _ => None,
    }
}

/// The new password of `add` and `password`: from the option's source, else from
/// `LORE_NEW_PASSWORD(_FILE)`; `None` for other commands, for `add --no-password`, and
/// when no source gives one.
fn new_password(
    command: &UserCommand,
    stdin: &mut dyn BufRead,
    env: &HashMap<String, String>,
) -> Result<Option<String>, String> {
    let Some(source) = password_source(command) else {
        return Ok(None);
    };
    let password = if source.password_stdin {
        let mut line = String::new();
        let read = stdin
            .read_line(&mut line)
            .map_err(|e| format!("cannot read the password from standard input: {e}"))?;
        if read == 0 {
            return Err("standard input is empty; give the password on its first line".into());
        }
        Some(strip_newline(line))
    } else if let Some(path) = &source.password_file {
        let text = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the password file {}: {e}", path.display()))?;
        Some(strip_newline(text))
    } else {
        crate::config::value_or_file(env, NEW_PASSWORD_ENV).map_err(|e| e.to_string())?
    };
    if password.as_deref() == Some("") {
        return Err("the password is empty".into());
    }
    Ok(password)
}

/// Drops one trailing `\n` or `\r\n`.
fn strip_newline(mut text: String) -> String {
    if text.ends_with('\n') {
        text.pop();
        if text.ends_with('\r') {
            text.pop();
        }
    }
    text
}

/// A catalog error as the command line prints it: the message and its whole cause
/// chain (the operator holds the store; nothing is hidden from them).
fn message(error: lore_core::Error) -> String {
    error.chain()
}

/// Runs a user command with its new password already read.
async fn user_command(
    catalog: &ServerCatalog,
    command: UserCommand,
    password: Option<String>,
) -> Result<String, String> {
    let operator = catalog.command_line_operator();
    match command {
        UserCommand::List { enabled } => list_users(catalog, &operator, enabled).await,
        UserCommand::Show { name } => show_user(catalog, &operator, &name).await,
        UserCommand::Add {
            name,
            full_name,
            email,
            description,
            disabled,
            password: _,
            no_password,
        } => {
            let new = NewUser {
                name: Some(name),
                full_name,
                email,
                description,
                password,
                enabled: Some(!disabled),
            };
            add_user(catalog, &operator, new, no_password).await
        }
        UserCommand::Set {
            name,
            full_name,
            email,
            description,
            rename,
            enable,
            disable,
        } => {
            let change = UserUpdate {
                new_name: rename,
                full_name,
                email,
                description,
                enabled: enabled_change(enable, disable),
                ..UserUpdate::default()
            };
            set_user(catalog, &operator, &name, change).await
        }
        UserCommand::Password { name, password: _ } => {
            set_password(catalog, &operator, &name, password).await
        }
        UserCommand::Delete { name } => delete_user(catalog, &operator, &name).await,
        UserCommand::Roles { name } => user_roles(catalog, &operator, &name).await,
        UserCommand::Grant { name, roles } => {
            grant_user_roles(catalog, &operator, &name, &roles).await
        }
        UserCommand::Link {
            name,
            issuer,
            subject,
            at_next_sign_in,
        } => {
            let link = match (issuer, subject) {
                (Some(issuer), Some(subject)) if !at_next_sign_in => {
                    ExternalLink::Subject { issuer, subject }
                }
                _ => ExternalLink::AtNextSignIn,
            };
            link_user(catalog, &operator, &name, link).await
        }
        UserCommand::Unlink { name } => unlink_user(catalog, &operator, &name).await,
        UserCommand::Revoke { name, role } => {
            revoke_user_role(catalog, &operator, &name, &role).await
        }
    }
}

/// `lore user list`: the users, all or only the enabled or disabled ones, as a table.
async fn list_users(
    catalog: &ServerCatalog,
    operator: &Caller,
    enabled: Option<bool>,
) -> Result<String, String> {
    let users: Vec<User> = catalog
        .identity()
        .list_users(operator)
        .await
        .map_err(message)?
        .into_iter()
        .filter(|u| enabled.is_none_or(|e| u.enabled == e))
        .collect();
    Ok(user_table(&users))
}

/// `lore user show`: a user's details, groups and global roles, one per line.
async fn show_user(
    catalog: &ServerCatalog,
    operator: &Caller,
    name: &str,
) -> Result<String, String> {
    let user = catalog
        .identity()
        .get_user(operator, name)
        .await
        .map_err(message)?;
    let reference = user.id.to_string();
    let groups = catalog
        .identity()
        .list_groups(operator, Some(&reference))
        .await
        .map_err(message)?;
    let roles = catalog
        .identity()
        .global_roles(operator, Some(&user_ref(&reference)))
        .await
        .map_err(message)?;
    Ok(fields(&[
        ("Name", user.name.clone()),
        ("Id", user.id.to_string()),
        ("Full name", user.full_name.clone()),
        ("E-mail", user.email.clone()),
        ("Description", user.description.clone()),
        ("Enabled", yes_no(user.enabled)),
        (
            "Password",
            if user.password_hash.is_some() {
                "set".to_owned()
            } else {
                "none (logs in only through OAuth 2.0)".to_owned()
            },
        ),
        ("Created", user.created_at.to_rfc3339()),
        ("Identity", identity_text(user.external.as_ref())),
        ("Groups", group_names(&groups)),
        ("Global roles", role_names(&roles)),
    ]))
}

/// `lore user add`: creates the user, refusing one without a password unless
/// `--no-password` asks for that.
async fn add_user(
    catalog: &ServerCatalog,
    operator: &Caller,
    new: NewUser,
    no_password: bool,
) -> Result<String, String> {
    if new.password.is_none() && !no_password {
        return Err(format!(
            "give the password with --password-stdin, --password-file PATH or \
             {NEW_PASSWORD_ENV}, or create a user who logs in only through OAuth 2.0 \
             with --no-password"
        ));
    }
    let has_password = new.password.is_some();
    let user = catalog
        .identity()
        .create_user(operator, new)
        .await
        .map_err(message)?;
    let mut out = format!("Created user {} ({})", user.name, user.id);
    if !user.enabled {
        out.push_str(", disabled");
    }
    if !has_password {
        out.push_str(", without a password (logs in only through OAuth 2.0)");
    }
    out.push_str(".\n");
    Ok(out)
}

/// `lore user set`: applies the change (refusing an empty one) and says what changed.
async fn set_user(
    catalog: &ServerCatalog,
    operator: &Caller,
    name: &str,
    change: UserUpdate,
) -> Result<String, String> {
    let enabled = change.enabled;
    if change.full_name.is_none()
        && change.email.is_none()
        && change.description.is_none()
        && change.new_name.is_none()
        && enabled.is_none()
    {
        return Err(
            "nothing to change; give --full-name, --email, --description, --rename, \
             --enable or --disable"
                .into(),
        );
    }
    let before = catalog
        .identity()
        .get_user(operator, name)
        .await
        .map_err(message)?;
    let user = catalog
        .identity()
        .update_user(
            operator,
            UserUpdate {
                id: Some(before.id.to_string()),
                ..change
            },
        )
        .await
        .map_err(message)?;
    let mut out = format!("Changed user {}", before.name);
    if user.name != before.name {
        let _ = write!(out, ", now named {}", user.name);
    }
    if enabled == Some(false) && before.enabled {
        out.push_str(": disabled, their sessions ended");
    } else if enabled == Some(true) && !before.enabled {
        out.push_str(": enabled");
    }
    out.push_str(".\n");
    Ok(out)
}

/// `lore user password`: resets a user's password, which ends their sessions.
async fn set_password(
    catalog: &ServerCatalog,
    operator: &Caller,
    name: &str,
    password: Option<String>,
) -> Result<String, String> {
    let password = password.ok_or_else(|| {
        format!(
            "give the new password with --password-stdin, --password-file PATH or \
             {NEW_PASSWORD_ENV}"
        )
    })?;
    let user = catalog
        .identity()
        .get_user(operator, name)
        .await
        .map_err(message)?;
    let user = catalog
        .identity()
        .update_user(
            operator,
            UserUpdate {
                id: Some(user.id.to_string()),
                password: Some(password),
                ..UserUpdate::default()
            },
        )
        .await
        .map_err(message)?;
    Ok(format!(
        "Set the password of user {}; their sessions ended.\n",
        user.name
    ))
}

/// `lore user delete`: deletes a user.
async fn delete_user(
    catalog: &ServerCatalog,
    operator: &Caller,
    name: &str,
) -> Result<String, String> {
    let user = catalog
        .identity()
        .get_user(operator, name)
        .await
        .map_err(message)?;
    catalog
        .identity()
        .delete_user(operator, &user.id.to_string())
        .await
        .map_err(message)?;
    Ok(format!("Deleted user {}.\n", user.name))
}

/// `lore user roles`: a user's global roles and how each is held, as a table.
async fn user_roles(
    catalog: &ServerCatalog,
    operator: &Caller,
    name: &str,
) -> Result<String, String> {
    let roles = catalog
        .identity()
        .global_roles(operator, Some(&user_ref(name)))
        .await
        .map_err(message)?;
    Ok(role_table(&roles))
}

/// `lore user grant`: grants global roles to a user and names the roles they now hold.
async fn grant_user_roles(
    catalog: &ServerCatalog,
    operator: &Caller,
    name: &str,
    roles: &[String],
) -> Result<String, String> {
    let held = catalog
        .identity()
        .grant_global_roles(operator, &user_ref(name), roles)
        .await
        .map_err(message)?;
    let user = held.first().map_or(name, |g| g.grantee.name.as_str());
    Ok(format!(
        "Granted {} to user {user}; global roles now: {}.\n",
        roles.join(", "),
        role_names(&held)
    ))
}

/// `lore user link`: links a user to their account at the identity provider.
async fn link_user(
    catalog: &ServerCatalog,
    operator: &Caller,
    name: &str,
    link: ExternalLink,
) -> Result<String, String> {
    let user = catalog
        .identity()
        .link_identity(operator, name, Some(link))
        .await
        .map_err(message)?;
    Ok(format!(
        "Linked user {}: {}.\n",
        user.name,
        identity_text(user.external.as_ref())
    ))
}

/// `lore user unlink`: unlinks a user from their account at the identity provider.
async fn unlink_user(
    catalog: &ServerCatalog,
    operator: &Caller,
    name: &str,
) -> Result<String, String> {
    let user = catalog
        .identity()
        .link_identity(operator, name, None)
        .await
        .map_err(message)?;
    Ok(format!(
        "Unlinked user {} from their identity provider's account.\n",
        user.name
    ))
}

/// `lore user revoke`: revokes a global role granted to a user.
async fn revoke_user_role(
    catalog: &ServerCatalog,
    operator: &Caller,
    name: &str,
    role: &str,
) -> Result<String, String> {
    let user = catalog
        .identity()
        .get_user(operator, name)
        .await
        .map_err(message)?;
    catalog
        .identity()
        .revoke_global_role(operator, &user_ref(&user.id.to_string()), role)
        .await
        .map_err(message)?;
    Ok(format!("Revoked {role} from user {}.\n", user.name))
}

/// How a user is linked to an identity provider's account, in words.
fn identity_text(link: Option<&ExternalLink>) -> String {
    link.map_or_else(|| "none".to_owned(), ToString::to_string)
}

/// Runs a `lore group` command; answers the text to print, or what went wrong.
pub async fn run_group(catalog: &ServerCatalog, command: GroupCommand) -> Result<String, String> {
    let operator = catalog.command_line_operator();
    match command {
        GroupCommand::List { member } => list_groups(catalog, &operator, member.as_deref()).await,
        GroupCommand::Show { name } => show_group(catalog, &operator, &name).await,
        GroupCommand::Add {
            name,
            description,
            members,
            disabled,
        } => {
            let new = NewGroup {
                name: Some(name),
                description,
                enabled: Some(!disabled),
                members,
            };
            add_group(catalog, &operator, new).await
        }
        GroupCommand::Set {
            name,
            description,
            rename,
            enable,
            disable,
        } => {
            let change = GroupUpdate {
                new_name: rename,
                description,
                enabled: enabled_change(enable, disable),
                ..GroupUpdate::default()
            };
            set_group(catalog, &operator, &name, change).await
        }
        GroupCommand::AddMember { name, users } => {
            add_members(catalog, &operator, &name, &users).await
        }
        GroupCommand::RemoveMember { name, user } => {
            remove_member(catalog, &operator, &name, &user).await
        }
        GroupCommand::Delete { name } => delete_group(catalog, &operator, &name).await,
        GroupCommand::Grant { name, roles } => {
            grant_group_roles(catalog, &operator, &name, &roles).await
        }
        GroupCommand::Revoke { name, role } => {
            revoke_group_role(catalog, &operator, &name, &role).await
        }
    }
}

/// `lore group list`: the groups, all or only one user's, as a table.
async fn list_groups(
    catalog: &ServerCatalog,
    operator: &Caller,
    member: Option<&str>,
) -> Result<String, String> {
    let groups = catalog
        .identity()
        .list_groups(operator, member)
        .await
        .map_err(message)?;
    Ok(group_table(&groups))
}

/// `lore group show`: a group's details and global roles, one per line, then its members
/// as a table.
async fn show_group(
    catalog: &ServerCatalog,
    operator: &Caller,
    name: &str,
) -> Result<String, String> {
    let details = catalog
        .identity()
        .get_group(operator, name)
        .await
        .map_err(message)?;
    let group = &details.group;
    let roles = catalog
        .identity()
        .global_roles(
            operator,
            Some(&GranteeRef {
                reference: group.id.to_string(),
                kind: Some(GranteeKind::Group),
            }),
        )
        .await
        .map_err(message)?;
    let mut out = fields(&[
        ("Name", group.name.clone()),
        ("Id", group.id.to_string()),
        ("Description", group.description.clone()),
        ("Enabled", yes_no(group.enabled)),
        ("Created", group.created_at.to_rfc3339()),
        ("Global roles", role_names(&roles)),
    ]);
    out.push('\n');
    out.push_str(&member_table(&details.members));
    Ok(out)
}

/// `lore group add`: creates the group with its first members.
async fn add_group(
    catalog: &ServerCatalog,
    operator: &Caller,
    new: NewGroup,
) -> Result<String, String> {
    let details = catalog
        .identity()
        .create_group(operator, new)
        .await
        .map_err(message)?;
    Ok(format!(
        "Created group {} ({}){} with {}.\n",
        details.group.name,
        details.group.id,
        if details.group.enabled {
            ""
        } else {
            ", disabled,"
        },
        count(details.members.len(), "member", "members")
    ))
}

/// `lore group set`: applies the change (refusing an empty one) and says what changed.
async fn set_group(
    catalog: &ServerCatalog,
    operator: &Caller,
    name: &str,
    change: GroupUpdate,
) -> Result<String, String> {
    let enabled = change.enabled;
    if change.description.is_none() && change.new_name.is_none() && enabled.is_none() {
        return Err(
            "nothing to change; give --description, --rename, --enable or --disable".into(),
        );
    }
    let before = catalog
        .identity()
        .get_group(operator, name)
        .await
        .map_err(message)?;
    let details = catalog
        .identity()
        .update_group(
            operator,
            GroupUpdate {
                id: Some(before.group.id.to_string()),
                ..change
            },
        )
        .await
        .map_err(message)?;
    let mut out = format!("Changed group {}", before.group.name);
    if details.group.name != before.group.name {
        let _ = write!(out, ", now named {}", details.group.name);
    }
    if enabled == Some(false) && before.group.enabled {
        out.push_str(": disabled, its roles hold for nobody");
    } else if enabled == Some(true) && !before.group.enabled {
        out.push_str(": enabled");
    }
    out.push_str(".\n");
    Ok(out)
}

/// `lore group add-member`: adds users to a group and names those who were not in it.
async fn add_members(
    catalog: &ServerCatalog,
    operator: &Caller,
    name: &str,
    users: &[String],
) -> Result<String, String> {
    let before = catalog
        .identity()
        .get_group(operator, name)
        .await
        .map_err(message)?;
    let details = catalog
        .identity()
        .add_members(operator, &before.group.id.to_string(), users)
        .await
        .map_err(message)?;
    let added: Vec<&str> = details
        .members
        .iter()
        .filter(|u| !before.members.iter().any(|b| b.id == u.id))
        .map(|u| u.name.as_str())
        .collect();
    Ok(format!(
        "Added {} to group {}; it has {}.\n",
        if added.is_empty() {
            "nobody new".to_owned()
        } else {
            added.join(", ")
        },
        details.group.name,
        count(details.members.len(), "member", "members")
    ))
}

/// `lore group remove-member`: removes a user from a group.
async fn remove_member(
    catalog: &ServerCatalog,
    operator: &Caller,
    name: &str,
    user: &str,
) -> Result<String, String> {
    let user = catalog
        .identity()
        .get_user(operator, user)
        .await
        .map_err(message)?;
    let details = catalog
        .identity()
        .remove_member(operator, name, &user.id.to_string())
        .await
        .map_err(message)?;
    Ok(format!(
        "Removed {} from group {}; it has {}.\n",
        user.name,
        details.group.name,
        count(details.members.len(), "member", "members")
    ))
}

/// `lore group delete`: deletes a group.
async fn delete_group(
    catalog: &ServerCatalog,
    operator: &Caller,
    name: &str,
) -> Result<String, String> {
    let details = catalog
        .identity()
        .get_group(operator, name)
        .await
        .map_err(message)?;
    catalog
        .identity()
        .delete_group(operator, &details.group.id.to_string())
        .await
        .map_err(message)?;
    Ok(format!("Deleted group {}.\n", details.group.name))
}

/// `lore group grant`: grants global roles to a group and names the roles it now holds.
async fn grant_group_roles(
    catalog: &ServerCatalog,
    operator: &Caller,
    name: &str,
    roles: &[String],
) -> Result<String, String> {
    let details = catalog
        .identity()
        .get_group(operator, name)
        .await
        .map_err(message)?;
    let group = &details.group;
    let held = catalog
        .identity()
        .grant_global_roles(operator, &group_ref(&group.id.to_string()), roles)
        .await
        .map_err(message)?;
    Ok(format!(
        "Granted {} to group {}; global roles now: {}.\n",
        roles.join(", "),
        group.name,
        role_names(&held)
    ))
}

/// `lore group revoke`: revokes a global role granted to a group.
async fn revoke_group_role(
    catalog: &ServerCatalog,
    operator: &Caller,
    name: &str,
    role: &str,
) -> Result<String, String> {
    let details = catalog
        .identity()
        .get_group(operator, name)
        .await
        .map_err(message)?;
    let group = &details.group;
    catalog
        .identity()
        .revoke_global_role(operator, &group_ref(&group.id.to_string()), role)
        .await
        .map_err(message)?;
    Ok(format!("Revoked {role} from group {}.\n", group.name))
}

/// A group as a grantee (not a user of the same name).
fn group_ref(reference: &str) -> GranteeRef {
    GranteeRef {
        reference: reference.to_owned(),
        kind: Some(GranteeKind::Group),
    }
}

/// A user as a grantee (not a group of the same name).
fn user_ref(reference: &str) -> GranteeRef {
    GranteeRef {
        reference: reference.to_owned(),
        kind: Some(GranteeKind::User),
    }
}

/// `--enable` / `--disable` as the change they ask for.
fn enabled_change(enable: bool, disable: bool) -> Option<bool> {
    match (enable, disable) {
        (true, _) => Some(true),
        (_, true) => Some(false),
        _ => None,
    }
}

fn yes_no(value: bool) -> String {
    if value { "yes" } else { "no" }.to_owned()
}

/// `1 member`, `2 members`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Labelled lines, the values aligned: `Name:     alice`.
fn fields(pairs: &[(&str, String)]) -> String {
    let width = pairs
        .iter()
        .map(|(label, _)| label.chars().count() + 1)
        .max()
        .unwrap_or(0);
    let mut out = String::new();
    for (label, value) in pairs {
        let label = format!("{label}:");
        let _ = writeln!(
            out,
            "{}",
            format!("{label:<width$}  {}", text_table::clean(value)).trim_end()
        );
    }
    out
}

/// A table and a count line under it (`(2 users)`), or only `(no users)`.
fn counted_table(header: &[&str], rows: Vec<Vec<String>>, one: &str, many: &str) -> String {
    if rows.is_empty() {
        return format!("(no {many})\n");
    }
    let header: Vec<String> = header.iter().map(|h| (*h).to_owned()).collect();
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|row| row.iter().map(|c| text_table::cell(c)).collect())
        .collect();
    let mut out = text_table::render(&header, &rows);
    let _ = writeln!(out, "({})", count(rows.len(), one, many));
    out
}

fn user_table(users: &[User]) -> String {
    counted_table(
        &["Name", "Full name", "E-mail", "Enabled", "Id"],
        users
            .iter()
            .map(|u| {
                vec![
                    u.name.clone(),
                    u.full_name.clone(),
                    u.email.clone(),
                    yes_no(u.enabled),
                    u.id.to_string(),
                ]
            })
            .collect(),
        "user",
        "users",
    )
}

fn member_table(members: &[User]) -> String {
    counted_table(
        &["Member", "Full name", "Enabled", "Id"],
        members
            .iter()
            .map(|u| {
                vec![
                    u.name.clone(),
                    u.full_name.clone(),
                    yes_no(u.enabled),
                    u.id.to_string(),
                ]
            })
            .collect(),
        "member",
        "members",
    )
}

fn group_table(groups: &[Group]) -> String {
    counted_table(
        &["Name", "Enabled", "Description", "Id"],
        groups
            .iter()
            .map(|g| {
                vec![
                    g.name.clone(),
                    yes_no(g.enabled),
                    g.description.clone(),
                    g.id.to_string(),
                ]
            })
            .collect(),
        "group",
        "groups",
    )
}

/// Global roles with how each is held: granted directly or through a group.
fn role_table(roles: &[RoleGrant]) -> String {
    counted_table(
        &["Role", "Granted", "Description"],
        roles
            .iter()
            .map(|r| {
                vec![
                    r.role.name.clone(),
                    match &r.via {
                        Some(group) => format!("through group {}", group.name),
                        None => "directly".to_owned(),
                    },
                    r.role.description.clone(),
                ]
            })
            .collect(),
        "role",
        "roles",
    )
}

/// `analysts, admins (disabled)`, or `-` for none.
fn group_names(groups: &[Group]) -> String {
    if groups.is_empty() {
        return "-".to_owned();
    }
    groups
        .iter()
        .map(|g| {
            if g.enabled {
                g.name.clone()
            } else {
                format!("{} (disabled)", g.name)
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `Administrator, Viewer (through analysts)`, or `-` for none.
fn role_names(roles: &[RoleGrant]) -> String {
    if roles.is_empty() {
        return "-".to_owned();
    }
    roles
        .iter()
        .map(|r| match &r.via {
            Some(group) => format!("{} (through {})", r.role.name, group.name),
            None => r.role.name.clone(),
        })
        .collect::<Vec<_>>()
        .join(", ")
}
