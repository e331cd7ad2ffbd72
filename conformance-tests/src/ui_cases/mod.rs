//! The web UI in a real browser: each case on a fresh Lore over each backend, driven
//! through Chromium ([`crate::browser`]). The cases live in a module per screen and are
//! registered here, in [`cases`]; the helpers more than one screen uses are here too.

use std::future::Future;
use std::pin::Pin;
use std::process::ExitCode;

use serde_json::json;

use crate::IntoBackend;
use crate::browser::Browser;
use crate::harness::{Target, unique};

/// A case: its name and what it does with a Lore and a browser on it.
pub type UiCase = (
    &'static str,
    for<'a> fn(&'a Target, &'a mut Browser) -> Pin<Box<dyn Future<Output = ()> + Send + 'a>>,
);

macro_rules! ui_case {
    ($name:ident) => {
        (stringify!($name), |t, b| Box::pin($name(t, b)))
    };
}

mod accessibility;
mod administration;
mod browse;
mod lineage;
mod object;
mod protections;
mod search;
mod sight;
mod sign_in;

use accessibility::every_screen_is_accessible;
use administration::administration_grants_and_an_import;
use browse::{browse_to_a_column, glossary_pages};
use lineage::{lineage_graph_and_table, openlineage_lineage_on_the_object_page};
use object::{
    as_of_switches_on_search_and_lineage, curation_from_the_object_page,
    history_and_versions_on_the_object_page, object_page_tabs,
};
use protections::policy_violations_and_framing_are_caught;
use search::search_facets_and_mql;
use sight::sight_on_every_screen;
use sign_in::{openid_connect_sign_in, password_login_and_logout};

/// Every case, in the order a user meets the screens.
pub fn cases() -> Vec<UiCase> {
    vec![
        ui_case!(password_login_and_logout),
        ui_case!(openid_connect_sign_in),
        ui_case!(search_facets_and_mql),
        ui_case!(browse_to_a_column),
        ui_case!(object_page_tabs),
        ui_case!(lineage_graph_and_table),
        ui_case!(openlineage_lineage_on_the_object_page),
        ui_case!(curation_from_the_object_page),
        ui_case!(history_and_versions_on_the_object_page),
        ui_case!(as_of_switches_on_search_and_lineage),
        ui_case!(glossary_pages),
        ui_case!(administration_grants_and_an_import),
        ui_case!(sight_on_every_screen),
        ui_case!(every_screen_is_accessible),
        ui_case!(policy_violations_and_framing_are_caught),
    ]
}

/// The browser suite over each of `backends`, a fresh store from `factory(backend)` per
/// case: one test per case and backend (`sqlite::search_facets_and_mql`).
pub fn suite<F, Fut, T>(backends: &[&'static str], factory: F) -> ExitCode
where
    F: Fn(&'static str) -> Fut + Send + Sync + Clone + 'static,
    Fut: Future<Output = T> + Send + 'static,
    T: IntoBackend + 'static,
{
    let args = libtest_mimic::Arguments::from_args();
    let mut trials = Vec::new();
    for &backend in backends {
        for (name, case) in cases() {
            let factory = factory.clone();
            trials.push(libtest_mimic::Trial::test(
                format!("{backend}::{name}"),
                move || {
                    let runtime = tokio::runtime::Builder::new_multi_thread()
                        .worker_threads(2)
                        .enable_all()
                        .build()
                        .map_err(|e| format!("cannot start a runtime: {e}"))?;
                    runtime.block_on(async move {
                        let Some(store) = factory(backend).await.into_backend() else {
                            return;
                        };
                        // The sign-in case gets an OpenID provider (oauth2-mock-server).
                        let provider = if name == "openid_connect_sign_in" {
                            match crate::oauth_provider::Provider::start().await {
                                Some(p) => Some(p),
                                None => return,
                            }
                        } else {
                            None
                        };
                        let mut t = Target::spawn_backend(store, |settings| {
                            if let Some(p) = &provider {
                                p.configure(settings, true);
                                let oauth2 = &mut settings.auth.oauth2;
                                oauth2.client_id = Some(crate::oauth_provider::CLIENT_ID.into());
                                oauth2.client_secret =
                                    Some(crate::oauth_provider::CLIENT_SECRET.into());
                                // The mock provider names the user in `sub` only.
                                oauth2.user_claim = "sub".into();
                            }
                        })
                        .await;
                        if let Some(p) = provider {
                            t = t.with_provider(p);
                        }
                        let Some(mut browser) =
                            Browser::open(&t.origin(), &format!("{backend}-{name}")).await
                        else {
                            return;
                        };
                        case(&t, &mut browser).await;
                        browser.finish().await;
                        t.shutdown().await;
                    });
                    Ok(())
                },
            ));
        }
    }
    libtest_mimic::run(&args, trials).exit_code()
}

/// Creates a user through the API; answers (id, name, password).
async fn new_user(t: &Target, prefix: &str) -> (String, String, String) {
    let name = unique(prefix);
    let password = unique("Password");
    let resp = t
        .post(
            "/admin/users",
            &[],
            &json!({"name": name, "password": password}),
        )
        .await;
    let id = resp.ok()["id"].as_str().unwrap_or_default().to_owned();
    (id, name, password)
}

/// The tabs the object page of `id` offers (the last segment of each tab's address).
async fn offered_tabs(b: &mut Browser, id: &str) -> Vec<String> {
    b.goto(&format!(
        "/ui/objects/{}",
        crate::harness::encode_segment(id)
    ))
    .await;
    b.find("[role=tab]").await;
    let hrefs = b
        .run("return [...document.querySelectorAll('[role=tab]')].map(a => a.getAttribute('href'))")
        .await;
    let tabs: Vec<String> = hrefs
        .as_array()
        .expect("the tabs' addresses")
        .iter()
        .filter_map(|h| h.as_str()?.rsplit('/').next().map(str::to_owned))
        .collect();
    for tab in [
        "overview",
        "children",
        "classification",
        "profiling",
        "lineage",
        "glossary",
        "comments",
        "access",
    ] {
        assert!(tabs.iter().any(|t| t == tab), "{id} offers {tab}: {tabs:?}");
    }
    tabs
}

/// The id of the object MQL finds by `filter` (as the administrator).
async fn id_where(t: &Target, filter: &str) -> String {
    let found = t
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({"select": "\"Object Id\"", "where": filter}),
        )
        .await;
    found.ok()[0]["attributes"][0]["value"]
        .as_str()
        .unwrap_or_else(|| panic!("an object where {filter}: {}", found.describe()))
        .to_owned()
}

/// Presses a button and waits for the page it leads to.
async fn press(b: &Browser, css: &str) {
    b.run("window.__before = true").await;
    b.find(css)
        .await
        .click()
        .await
        .unwrap_or_else(|e| panic!("pressing {css}: {e}"));
    b.wait_until(
        &format!("the page after {css}"),
        "window.__before === undefined && document.readyState === 'complete'",
    )
    .await;
}
