//! The HTTP suite against a Lore that is already running: set `LORE_CONFORMANCE_URL`
//! (the base URL with the base path, e.g. `http://127.0.0.1:11480/MM/rest/v1`),
//! `LORE_CONFORMANCE_USER` and `LORE_CONFORMANCE_PASSWORD`.
//!
//! A remote target is a deployment, and CI (`.ci/run`) has none by design: the suite's
//! cases run there on memory, SQLite and PostgreSQL (`http_memory`, `http_sqlite`,
//! `http_postgres`). So without `LORE_CONFORMANCE_URL` every case is reported *ignored*,
//! not passed, under `CI=true` or not, and the run says why; asking for them anyway
//! (`--include-ignored`) fails them. Half a configuration (the URL without the user or
//! password, or these without the URL) fails the run: that is a mistake, not an absence.
//! With a target, the cases that need a server of their own are reported ignored too.

use std::process::ExitCode;

use lore_conformance::cases::{self, Needs};

const VARIABLES: [&str; 3] = [
    "LORE_CONFORMANCE_URL",
    "LORE_CONFORMANCE_USER",
    "LORE_CONFORMANCE_PASSWORD",
];

fn main() -> ExitCode {
    let set: Vec<&str> = VARIABLES
        .iter()
        .copied()
        .filter(|v| std::env::var_os(v).is_some())
        .collect();
    if !set.is_empty() && set.len() < VARIABLES.len() {
        eprintln!(
            "the remote suite needs all of {VARIABLES:?}; only {set:?} are set, so it cannot \
             run the target meant"
        );
        return ExitCode::FAILURE;
    }
    let configured = set.len() == VARIABLES.len();
    let names = cases::names();
    if !configured {
        eprintln!(
            "the remote suite has no target: set {VARIABLES:?} to run its {} cases against a \
             running Lore. They are reported ignored, not passed{}.",
            names.len(),
            if std::env::var("CI").as_deref() == Ok("true") {
                "; CI has no deployment by design and runs the same cases on memory, SQLite \
                 and PostgreSQL"
            } else {
                ""
            }
        );
    }
    let args = libtest_mimic::Arguments::from_args();
    let trials = names
        .into_iter()
        .map(|name| {
            let own_server = cases::case(name).needs != Needs::AnyServer;
            libtest_mimic::Trial::test(name, move || {
                if !configured {
                    return Err(format!("no remote target: set {VARIABLES:?}").into());
                }
                if own_server {
                    return Err("the case needs a server of its own".into());
                }
                let runtime = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .map_err(|e| format!("cannot start a runtime: {e}"))?;
                runtime.block_on(cases::run_remote(name));
                Ok(())
            })
            .with_ignored_flag(!configured || own_server)
        })
        .collect();
    libtest_mimic::run(&args, trials).exit_code()
}
