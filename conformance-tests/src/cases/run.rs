//! Running one case of the suite: on a fresh server over a store, or against a remote
//! Lore.

use std::future::Future;

use super::{Case, Needs, cases};
use crate::harness::{IntoBackend, Target};

/// The names of every case, in table order.
pub fn names() -> Vec<&'static str> {
    cases().iter().map(|c| c.name).collect()
}

/// The case of that name; panics naming the known ones when there is none.
pub fn case(name: &str) -> Case {
    cases()
        .into_iter()
        .find(|c| c.name == name)
        .unwrap_or_else(|| panic!("no case named '{name}'; the cases are {:?}", names()))
}

/// Runs one case on a fresh server over the store the factory makes.
pub async fn run_on_store<F, Fut, T>(name: &str, factory: F)
where
    F: FnOnce() -> Fut,
    Fut: Future<Output = T>,
    T: IntoBackend,
{
    let case = case(name);
    let Some(backend) = factory().await.into_backend() else {
        eprintln!("skipping {name}: the backend is not available");
        return;
    };
    let provider = match case.needs {
        Needs::OAuth2Provider | Needs::OAuth2ProviderCreatingUsers => {
            let Some(provider) = crate::oauth_provider::Provider::start().await else {
                eprintln!("skipping {name}: no OpenID provider");
                return;
            };
            Some(provider)
        }
        _ => None,
    };
    let mut target = Target::spawn_backend(backend, |settings| match case.needs {
        Needs::SmallBodyLimit => {
            settings.server.max_body_mib = 1;
            settings.server.max_upload_mib = 1;
        }
        Needs::ShortSessions => settings.auth.login_timeout = "5s".into(),
        Needs::OAuth2Provider | Needs::OAuth2ProviderCreatingUsers => {
            if let Some(provider) = &provider {
                provider.configure(settings, case.needs == Needs::OAuth2ProviderCreatingUsers);
            }
        }
        Needs::Plugins => configure_plugins(settings),
        Needs::AnyServer | Needs::OwnServer => {}
    })
    .await;
    if let Some(provider) = provider {
        target = target.with_provider(provider);
    }
    (case.run)(&target).await;
    target.shutdown().await;
}

/// Configures the suite's plugins: the misbehaving one with a 5 s and 512 MiB limit.
pub fn configure_plugins(settings: &mut lore_server::Settings) {
    let built = crate::plugins::built();
    settings.plugin_host.program = Some(built.lore.clone());
    settings.plugin_host.timeout = "5m".into();
    settings.operations.heartbeat = "250ms".into();
    settings.operations.stale_after = "3s".into();
    settings.plugins = crate::plugins::PLUGIN_PACKAGES
        .iter()
        .map(|package| {
            let misbehaving = *package == "lore-plugin-misbehaving";
            lore_server::config::PluginSettings {
                path: built.library(package).clone(),
                timeout: misbehaving.then(|| "5s".to_owned()),
                memory_mib: misbehaving.then_some(512),
            }
        })
        .collect();
}

/// Runs one case against the remote Lore of `LORE_CONFORMANCE_URL`, `_USER` and
/// `_PASSWORD`; without them, or for a case that needs its own server, it says why it
/// skips and passes.
pub async fn run_remote(name: &str) {
    let case = case(name);
    let Some(target) = Target::remote_from_env() else {
        eprintln!(
            "skipping {name}: set LORE_CONFORMANCE_URL (base URL with base path), \
             LORE_CONFORMANCE_USER and LORE_CONFORMANCE_PASSWORD to run the suite against a running Lore"
        );
        return;
    };
    if case.needs != Needs::AnyServer {
        eprintln!(
            "skipping {name} on {}: it needs a server of its own ({:?})",
            target.base_url, case.needs
        );
        return;
    }
    (case.run)(&target).await;
}
