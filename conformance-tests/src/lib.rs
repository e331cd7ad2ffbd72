//! Lore's conformance suite.
//!
//! - [`store_contract`]: the `Store` contract, run directly against each backend;
//!   [`store_suite`] runs every case for one backend.
//! - [`postgres`]: a fresh PostgreSQL database per run, dropped afterwards.
//! - [`harness`] and [`cases`]: the HTTP suite. Every case runs against a Lore over
//!   HTTP; [`http_suite`] runs all of them for one backend.
//!
//! A case is registered once, in its table ([`cases::cases`], [`store_contract::cases`]);
//! each becomes a test of its own in every target that runs the suite, a `harness =
//! false` test whose `main` is one line:
//!
//! ```ignore
//! fn main() -> std::process::ExitCode {
//!     lore_conformance::http_suite(|| async {
//!         std::sync::Arc::new(lore_backend_memory::MemoryStore::new()) as std::sync::Arc<dyn lore_core::Store>
//!     })
//! }
//! ```
//!
//! Such a target takes the usual test arguments (a name filter, `--exact`,
//! `--test-threads`, `--list`).

use std::future::Future;
use std::process::ExitCode;

pub mod browser;
pub mod cases;
pub mod harness;
pub mod mql_gen;
pub mod notify;
pub mod oauth_provider;
pub mod plugins;
pub mod postgres;
pub mod python;
pub mod scrape;
pub mod sinks;
pub mod store_contract;
pub mod store_rules;
pub mod ui_cases;

pub use cases::{Case, Kind, Needs};
pub use harness::{Backend, IntoBackend, Target};
/// Re-exported for the suites' test targets, which then need no tokio dependency.
pub use tokio;

/// Runs each named case as a test of its own, on a runtime of its own (two worker
/// threads, as `#[tokio::test(flavor = "multi_thread")]` would).
fn run_trials<R>(names: Vec<&'static str>, run: R) -> ExitCode
where
    R: Fn(&'static str) -> std::pin::Pin<Box<dyn Future<Output = ()> + Send>>
        + Send
        + Sync
        + Clone
        + 'static,
{
    let args = libtest_mimic::Arguments::from_args();
    let trials = names
        .into_iter()
        .map(|name| {
            let run = run.clone();
            libtest_mimic::Trial::test(name, move || {
                let runtime = tokio::runtime::Builder::new_multi_thread()
                    .worker_threads(2)
                    .enable_all()
                    .build()
                    .map_err(|e| format!("cannot start a runtime: {e}"))?;
                runtime.block_on(run(name));
                Ok(())
            })
        })
        .collect();
    libtest_mimic::run(&args, trials).exit_code()
}

/// The HTTP suite on one backend: every case of [`cases::cases`] as a test of its own,
/// each on a fresh server over a fresh store from `factory`. The future may give an
/// `Arc<dyn Store>`, a [`Backend`] (a store plus guards kept alive until the server has
/// stopped) or an `Option` of either, `None` skipping the case with a message.
pub fn http_suite<F, Fut, T>(factory: F) -> ExitCode
where
    F: Fn() -> Fut + Send + Sync + Clone + 'static,
    Fut: Future<Output = T> + Send + 'static,
    T: IntoBackend + 'static,
{
    run_trials(cases::names(), move |name| {
        let factory = factory.clone();
        Box::pin(async move { cases::run_on_store(name, factory).await })
    })
}

/// The HTTP suite against the Lore named by `LORE_CONFORMANCE_URL`,
/// `LORE_CONFORMANCE_USER` and `LORE_CONFORMANCE_PASSWORD` (each case skips with a
/// message when they are not set, or when it needs a server of its own).
pub fn http_suite_remote() -> ExitCode {
    run_trials(cases::names(), |name| Box::pin(cases::run_remote(name)))
}

/// The `Store` contract on one backend: every case of [`store_contract::cases`] as a
/// test of its own, each on a fresh, empty store from `factory` (which may give what
/// [`http_suite`]'s factory gives).
pub fn store_suite<F, Fut, T>(factory: F) -> ExitCode
where
    F: Fn() -> Fut + Send + Sync + Clone + 'static,
    Fut: Future<Output = T> + Send + 'static,
    T: IntoBackend + 'static,
{
    run_trials(store_contract::names(), move |name| {
        let factory = factory.clone();
        Box::pin(async move { store_contract::run_on_store(name, factory).await })
    })
}
