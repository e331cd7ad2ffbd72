//! The `lore` command.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use lore_core::catalog::Bootstrap;
use lore_server::{Settings, cli_admin};

#[derive(Parser)]
#[command(
    name = "lore",
    version,
    about = "Lore, an open metadata management server"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Starts the server.
    Serve {
        /// Configuration file (default: lore.toml in the working directory, if present).
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Runs an MQL query against a server and prints the objects as a table.
    Query(lore_server::cli_query::QueryArgs),
    /// Runs a model's importer on a server and follows it with a progress bar.
    Import(lore_server::cli_import::ImportArgs),
    /// Manages users and their global roles directly on the configured store (no server
    /// needed), e.g. to reset a forgotten password.
    User(cli_admin::UserArgs),
    /// Manages groups and their members directly on the configured store.
    Group(cli_admin::GroupArgs),
    /// Backs the repository up to a zip file, directly from the configured store.
    Backup(lore_server::cli_backup::BackupArgs),
    /// Restores the repository from a backup into the configured store (created when it
    /// is a SQLite file that does not exist), replacing what it holds.
    Restore(lore_server::cli_backup::RestoreArgs),
    /// Manages the history kept (`lore history purge`), directly on the configured store.
    History(lore_server::cli_history::HistoryArgs),
    /// Lists the importers the configuration loads (`[[plugins]]`), with their versions
    /// and formats, and the plugins that fail to load with the reason.
    Plugins {
        /// Configuration file (default: lore.toml in the working directory, if present).
        #[arg(long)]
        config: Option<PathBuf>,
    },
    /// Runs one importer plugin in this process; Lore starts it, people do not.
    #[command(hide = true)]
    PluginHost(lore_plugin_host::HostArgs),
}

/// glibc gives threads that allocate at once arenas of their own, up to eight per core,
/// and memory freed in one is not reused by the others: the server's peak resident
/// memory after importing 1,000,000 objects and searching them was 199–251 MB with
/// them, 149–171 MB with two (`MALLOC_ARENA_MAX=2`, `cargo bench -p lore-server --bench
/// mql`, same speed). The environment variable would have to be set before the process
/// starts; `MALLOC_ARENA_MAX` there still decides.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(unsafe_code)] // one call into the C library, before any other thread exists
fn limit_malloc_arenas() {
    if std::env::var_os("MALLOC_ARENA_MAX").is_none() {
        // SAFETY: mallopt sets a tuning parameter of malloc; no thread runs yet.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 2);
        }
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn limit_malloc_arenas() {}

fn main() -> ExitCode {
    limit_malloc_arenas();
    let cli = Cli::parse();
    match cli.command {
        Command::PluginHost(args) => lore_plugin_host::child::main(args),
        Command::Plugins { config } => {
            let settings = match Settings::load(config.as_deref()) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("lore plugins: {e}");
                    return ExitCode::from(2);
                }
            };
            let runtime = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("lore plugins: cannot start the runtime: {e}");
                    return ExitCode::FAILURE;
                }
            };
            print!(
                "{}",
                runtime.block_on(lore_server::plugins::list(&settings))
            );
            ExitCode::SUCCESS
        }
        Command::User(args) => run_admin(
            "lore user",
            args.config.as_deref(),
            Admin::User(args.command),
        ),
        Command::Group(args) => run_admin(
            "lore group",
            args.config.as_deref(),
            Admin::Group(args.command),
        ),
        Command::Backup(args) => {
            run_local("lore backup", lore_server::cli_backup::run_backup(&args))
        }
        Command::Restore(args) => {
            run_local("lore restore", lore_server::cli_backup::run_restore(&args))
        }
        Command::History(args) => run_local("lore history", lore_server::cli_history::run(&args)),
        Command::Import(args) => run_local("lore import", lore_server::cli_import::run(&args)),
        Command::Query(args) => run_local("lore query", lore_server::cli_query::run(&args)),
        Command::Serve { config } => {
            let settings = match Settings::load(config.as_deref()) {
                Ok(s) => s,
                Err(e) => {
                    eprintln!("lore: {e}");
                    return ExitCode::from(2);
                }
            };
            init_logging(&settings);
            let runtime = match tokio::runtime::Builder::new_multi_thread()
                .enable_all()
                .build()
            {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("lore: cannot start the runtime: {e}");
                    return ExitCode::FAILURE;
                }
            };
            match runtime.block_on(serve(settings)) {
                Ok(()) => ExitCode::SUCCESS,
                Err(e) => {
                    let e = e.chain();
                    tracing::error!("{e}");
                    eprintln!("lore: {e}");
                    ExitCode::FAILURE
                }
            }
        }
    }
}

/// Runs a command's future on a runtime of its own: prints its text, or `<name>:
/// <message>` on standard error and exits with code 1.
fn run_local(
    name: &str,
    command: impl std::future::Future<Output = Result<String, String>>,
) -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{name}: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(command) {
        Ok(text) => {
            print!("{text}");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("{name}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// An administration command: `lore user ...` or `lore group ...`.
enum Admin {
    User(cli_admin::UserCommand),
    Group(cli_admin::GroupCommand),
}

/// Opens the configured store and runs an administration command on it: prints its
/// text, or `<name>: <message>` on standard error and exits with code 1.
fn run_admin(name: &str, config: Option<&Path>, command: Admin) -> ExitCode {
    run_local(name, async {
        let (catalog, notice) = cli_admin::open_from_config(config).await?;
        if let Some(notice) = notice {
            eprintln!("{name}: {notice}");
        }
        match command {
            Admin::User(command) => cli_admin::run_user(&catalog, command).await,
            Admin::Group(command) => cli_admin::run_group(&catalog, command).await,
        }
    })
}

fn init_logging(settings: &Settings) {
    let filter = tracing_subscriber::EnvFilter::try_new(&settings.log.level)
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr);
    if settings.log.format == "json" {
        builder.json().init();
    } else {
        builder.init();
    }
}

async fn serve(settings: Settings) -> Result<(), lore_core::Error> {
    tracing::info!(backend = %settings.storage.backend, storage = ?settings.storage, "opening the store");
    let metrics = lore_server::Metrics::new();
    let store = lore_server::open_store_measured(&settings, Some(&metrics)).await?;
    // The search index is read now, in the background, not by the first search.
    store.warm_up();
    let env: HashMap<String, String> = std::env::vars().collect();
    let admin_password = lore_server::config::value_or_file(&env, "LORE_ADMIN_PASSWORD")
        .map_err(|e| lore_core::Error::invalid(e.to_string()))?;
    let (server, bootstrap) =
        lore_server::spawn_measured(store, &settings, admin_password.as_deref(), metrics).await?;
    match bootstrap {
        Bootstrap::CreatedWithGeneratedPassword(password) => {
            use lore_server::first_admin::{HandedOver, hand_over, password_file};
            use std::io::IsTerminal;
            let mut stdout = std::io::stdout();
            let terminal: Option<&mut dyn std::io::Write> =
                stdout.is_terminal().then_some(&mut stdout);
            let file = password_file(&settings);
            match hand_over(&password, terminal, &file) {
                Ok(HandedOver::Shown) => {}
                Ok(HandedOver::Written(path)) => tracing::warn!(
                    path = %path.display(),
                    "created the first administrator, Administrator, with a generated password: \
                     it is in {} (readable by this user only); delete the file once read",
                    path.display()
                ),
                Err(e) => tracing::error!(
                    path = %file.display(),
                    "created the first administrator, Administrator, with a generated password, \
                     but could not write it to {}: {e}; set one with `lore user password \
                     Administrator --password-stdin`",
                    file.display()
                ),
            }
        }
        Bootstrap::CreatedWithGivenPassword => {
            tracing::info!(
                "created the first administrator with the password from LORE_ADMIN_PASSWORD(_FILE)"
            )
        }
        Bootstrap::Existing => {}
    }
    tracing::info!(
        "listening on http://{}{} (API explorer: http://{}/explorer)",
        server.addr,
        settings.server.base_path,
        server.addr
    );
    if let Some(addr) = server.metrics_addr {
        tracing::info!("serving metrics on http://{addr}/metrics");
    }
    if lore_server::exposed_without_https(server.addr, settings.server.public_url.as_deref()) {
        tracing::warn!(
            listen = %server.addr,
            "the web UI is served on a non-loopback address without an https server.public_url: \
             browsers send passwords and session cookies in clear unless a proxy in front \
             ends TLS; set server.public_url = \"https://...\" once one does"
        );
    }
    shutdown_signal().await;
    tracing::info!("shutting down: finishing running calls");
    server.stop().await;
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let terminate = std::future::pending::<()>();
    tokio::select! { _ = ctrl_c => {}, _ = terminate => {} }
}
