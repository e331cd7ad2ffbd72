//! The web UI in a real browser: each case on a fresh Lore over each backend, driven
//! through Chromium ([`crate::browser`]).

use std::future::Future;
use std::pin::Pin;
use std::process::ExitCode;

use serde_json::{Value, json};

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

async fn password_login_and_logout(t: &Target, b: &mut Browser) {
    // A page without a session leads to the login form, and back after it.
    b.goto("/ui/browse").await;
    b.find("#login-button").await;
    assert!(
        b.at().await.starts_with("/ui/login?next="),
        "{}",
        b.at().await
    );
    b.shot("login-form").await;

    b.login(&t.user, "not the password").await;
    let error = b.text("#login-error").await;
    assert!(!error.is_empty());
    assert!(!error.contains(&t.password));

    b.login(&t.user, &t.password).await;
    assert_eq!(b.text("#signed-in-user").await, t.user);
    assert_eq!(
        b.at().await,
        "/ui/browse",
        "back where the browser was going"
    );
    b.shot("signed-in").await;

    // The cookie holds a key of the API's sessions: logout ends it for the API too.
    let cookie = b
        .client
        .get_named_cookie("lore_session")
        .await
        .expect("the session cookie");
    assert_eq!(cookie.http_only(), Some(true));
    assert_eq!(format!("{:?}", cookie.same_site()), "Some(Lax)");
    let key = cookie.value().to_owned();
    let users = t
        .send(
            t.anon(reqwest::Method::GET, "/admin/users")
                .header("api-key", &key),
        )
        .await;
    assert_eq!(users.status, 200, "{}", users.describe());

    b.find("#logout").await.click().await.expect("Log out");
    b.find("#login-button").await;
    let after = t
        .send(
            t.anon(reqwest::Method::GET, "/admin/users")
                .header("api-key", &key),
        )
        .await;
    assert_eq!(after.status, 401, "{}", after.describe());
    b.goto("/ui/").await;
    b.find("#login-button").await;
    assert!(b.at().await.starts_with("/ui/login"));

    // A form posted from another site is refused: no CSRF token.
    b.login(&t.user, &t.password).await;
    b.find("#signed-in-user").await;
    let status = b
        .client
        .execute_async(
            "const done = arguments[0];
             fetch('/ui/logout', { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'csrf=wrong' })
               .then(r => done(r.status));",
            Vec::new(),
        )
        .await
        .expect("posting without the token");
    assert_eq!(status, json!(403));
    b.goto("/ui/").await;
    assert_eq!(b.text("#signed-in-user").await, t.user, "still signed in");

    // A user disabled while signed in is signed out at the next page.
    let (_, name, password) = new_user(t, "ui-disabled").await;
    b.find("#logout").await.click().await.expect("Log out");
    b.login(&name, &password).await;
    assert_eq!(b.text("#signed-in-user").await, name);
    t.put(
        "/admin/users",
        &[],
        &json!({"name": name, "enabled": false}),
    )
    .await
    .ok();
    b.goto("/ui/browse").await;
    b.find("#login-button").await;
    assert!(b.at().await.starts_with("/ui/login"));
}

async fn search_facets_and_mql(t: &Target, b: &mut Browser) {
    t.import_sample().await;
    b.login(&t.user, &t.password).await;
    b.find("#search-text").await;

    // `/` focuses the box from anywhere on the page.
    b.run("document.activeElement.blur(); document.body.dispatchEvent(new KeyboardEvent('keydown', {key: '/', bubbles: true}));")
        .await;
    let focused = b.run("return document.activeElement.id").await;
    assert_eq!(focused, json!("search-text"));

    let box_ = b.find("#search-text").await;
    box_.send_keys("customer\n").await.expect("typing a search");
    b.wait_until("the results", "location.search.includes('q=customer')")
        .await;
    let heading = b.text("#results-heading").await;
    assert!(heading.ends_with("results"), "{heading}");
    // The table named exactly `customer` comes first, marked as such.
    let exact = b.text("#exact-matches").await;
    assert!(exact.contains("customer"), "{exact}");
    assert!(exact.contains("exact name"), "{exact}");
    b.shot("search").await;

    // Each facet shows what getAttributeValueCounts answers for it alone (the page
    // counts the facets that share a filter in one call).
    let shown = b
        .run(
            "return [...document.querySelectorAll('#facets a[data-facet]')].map(a => \
             [a.dataset.facet, a.dataset.value, a.parentElement.querySelector('.count').textContent.trim()])",
        )
        .await;
    for (param, attribute) in [("type", "\"Object Type\""), ("label", "Labels")] {
        let body = json!({"select": attribute, "where": "text = 'customer'", "limit": 12});
        let counted = t
            .post("/entities/getAttributeValueCounts", &[], &body)
            .await;
        assert_eq!(counted.status, 200, "{:?}", counted.json);
        let expected: Vec<Value> = counted.json["result"][0]["values"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|v| {
                let value = v["value"].as_str().filter(|s| !s.is_empty())?;
                Some(json!([param, value, v["count"].to_string()]))
            })
            .collect();
        let on_page: Vec<Value> = shown
            .as_array()
            .into_iter()
            .flatten()
            .filter(|row| row[0] == json!(param))
            .cloned()
            .collect();
        assert!(param != "type" || expected.len() > 1, "{expected:?}");
        assert_eq!(on_page, expected, "the {param} facet");
    }

    // A facet narrows the results; its URL says so.
    b.find("#facet-type a[data-value='Column']")
        .await
        .click()
        .await
        .expect("the Column facet");
    b.wait_until("the facet", "location.search.includes('type=Column')")
        .await;
    let types = b
        .run("return [...document.querySelectorAll('#results .result > .kind')].map(e => e.textContent)")
        .await;
    let types = types.as_array().expect("types").clone();
    assert!(!types.is_empty());
    assert!(types.iter().all(|t| t == "Column"), "{types:?}");
    b.shot("facet").await;

    // The MQL of the search, shown, validated as typed, and run.
    b.find("#mql-switch")
        .await
        .click()
        .await
        .expect("the MQL switch");
    let query = b
        .find("#mql-text")
        .await
        .prop("value")
        .await
        .expect("the MQL")
        .unwrap_or_default();
    assert!(query.contains("text = 'customer'"), "{query}");
    assert!(query.contains("\"Object Type\" = 'Column'"), "{query}");
    let area = b.find("#mql-text").await;
    area.clear().await.expect("clearing the MQL");
    area.send_keys("SELECT Name, \"Data Type\" WHERE Name = 'x' AND")
        .await
        .expect("typing MQL");
    b.wait_until(
        "the validation of a bad query",
        "document.querySelector('#mql-status .error')",
    )
    .await;
    area.clear().await.expect("clearing the MQL");
    area.send_keys("SELECT Name, \"Data Type\" WHERE \"Object Type\" = 'Column' AND Name = 'email' ORDER BY Name")
        .await
        .expect("typing MQL");
    b.wait_until(
        "the validation of a good query",
        "document.querySelector('#mql-status .ok')",
    )
    .await;
    b.shot("mql-valid").await;
    b.find("#run-mql").await.click().await.expect("Run MQL");
    b.wait_until("the MQL results", "location.search.includes('mql=')")
        .await;
    let headers = b.text("#results thead").await;
    assert!(headers.contains("Data Type"), "{headers}");
    let rows = b.all("#results tbody tr").await;
    assert_eq!(rows.len(), 2, "two columns named email in the sample");
    b.shot("mql-results").await;

    // CSV of the same results.
    let csv = b
        .client
        .execute_async(
            "const done = arguments[0];
             fetch(document.getElementById('csv-download').href).then(r => r.text()).then(done);",
            Vec::new(),
        )
        .await
        .expect("the CSV");
    let csv = csv.as_str().unwrap_or_default();
    assert!(csv.starts_with("Name,Data Type"), "{csv}");
    assert_eq!(csv.lines().count(), 3, "{csv}");

    // Saved as a worksheet, and run again from the list.
    b.find("#save-name")
        .await
        .send_keys("email columns")
        .await
        .expect("typing");
    press(b, "#save-search-button").await;
    assert!(b.text("#flash-done").await.contains("email columns"));
    let saved = t.get("/worksheets").await;
    assert!(
        saved.text().contains("email columns"),
        "{}",
        saved.describe()
    );
    b.find("#worksheets a")
        .await
        .click()
        .await
        .expect("running the saved search");
    b.wait_until(
        "the saved search's results",
        "document.querySelectorAll('#results tbody tr').length === 2",
    )
    .await;

    // And back to the search.
    b.find("#back-to-search").await.click().await.expect("back");
    b.find("#search-text").await;
    assert_eq!(b.at().await, "/ui/");
}

async fn browse_to_a_column(t: &Target, b: &mut Browser) {
    let sample = t.import_sample().await;
    b.login(&t.user, &t.password).await;
    b.goto("/ui/browse").await;
    assert_eq!(
        b.run("return typeof htmx").await,
        json!("object"),
        "htmx is loaded"
    );
    let folder = sample
        .path
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or_default()
        .to_owned();
    // The folder, then the model, opened in place (htmx loads each level when opened).
    b.find(&format!(
        "li[data-id='{}'] > button.toggle",
        sample.folder_id
    ))
    .await
    .click()
    .await
    .expect("opening the folder");
    let model = b
        .find(&format!(
            "li[data-id='{}'] > button.toggle",
            sample.model_id
        ))
        .await;
    assert!(b.source().await.contains(&folder));
    model.click().await.expect("opening the model");
    b.wait_until(
        "the model's level",
        "document.body.textContent.includes('Sales DB')",
    )
    .await;
    b.shot("tree").await;
    // Each node has its own URL: the database's page lists its schemas.
    let link = b
        .run("return [...document.querySelectorAll('.tree a')].find(a => a.textContent === 'Sales DB').getAttribute('href')")
        .await;
    let link = link.as_str().expect("a link to Sales DB").to_owned();
    b.goto(&link).await;
    assert_eq!(b.text("h1").await.split_whitespace().next(), Some("Sales"));
    let crumbs = b.text(".breadcrumbs").await;
    assert!(crumbs.contains(&sample.model_name), "{crumbs}");
    // Down to a column, by URL.
    let sales = b
        .run("return [...document.querySelectorAll('.tree a')].find(a => a.textContent === 'sales').getAttribute('href')")
        .await;
    b.goto(sales.as_str().expect("the sales schema")).await;
    let customer = b
        .run("return [...document.querySelectorAll('.tree a')].find(a => a.textContent === 'customer').getAttribute('href')")
        .await;
    b.goto(customer.as_str().expect("the customer table")).await;
    let tree = b.text("#tree").await;
    assert!(
        tree.contains("customer_id") && tree.contains("Column"),
        "{tree}"
    );
    b.shot("columns").await;
}

async fn object_page_tabs(t: &Target, b: &mut Browser) {
    let _sample = t.import_sample().await;
    b.login(&t.user, &t.password).await;
    open_customer_table(b).await;
    b.wait_until(
        "the object page",
        "location.pathname.startsWith('/ui/objects/')",
    )
    .await;
    assert_eq!(
        b.text("#object-name").await.split_whitespace().next(),
        Some("customer")
    );
    assert!(b.text("#object-path").await.ends_with("/sales/customer"));
    b.shot("overview").await;
    let base = b.at().await;
    for (tab, expect) in [
        ("children", "customer_id"),
        ("classification", "Sensitivity labels"),
        ("profiling", "Statistics"),
        ("comments", "Comments and warnings"),
    ] {
        b.goto(&format!("{base}/{tab}")).await;
        let panel = b.text("#tab-panel").await;
        assert!(panel.contains(expect), "{tab}: {panel}");
        let selected = b.text("[role=tab][aria-selected=true]").await;
        assert!(!selected.is_empty());
    }
    // A column in the side panel of the children tab.
    b.goto(&format!("{base}/children")).await;
    b.find("button[aria-label='Details of email']")
        .await
        .click()
        .await
        .expect("Details");
    b.wait_until("the side panel", "document.getElementById('summary-name')")
        .await;
    let side = b.text("#side-panel").await;
    assert!(side.contains("VARCHAR(254)"), "{side}");
    b.shot("children").await;
}

/// The GET routes of the UI's router that read one object (`{id}`), from the router's
/// source, so that a new one is visited by the sight case too; `{tab}` is each tab the
/// object page offers.
fn object_routes() -> Vec<&'static str> {
    let source = include_str!("../../server/src/ui/mod.rs");
    let router = &source[source.find("pub fn router(").expect("the UI's router")..];
    let mut routes = Vec::new();
    for call in router.split(".route(").skip(1) {
        let Some(rest) = call.trim_start().strip_prefix('"') else {
            continue;
        };
        let path = &rest[..rest.find('"').expect("a route's closing quote")];
        let handlers = &rest[path.len()..];
        // An operation's id is no object's.
        if path.contains("{id}") && !path.starts_with("/ui/admin/") && handlers.contains("get(") {
            routes.push(path);
        }
    }
    for known in [
        "/ui/objects/{id}",
        "/ui/objects/{id}/{tab}",
        "/ui/objects/{id}/summary",
        "/ui/objects/{id}/lineage.csv",
        "/ui/objects/{id}/edit",
        "/ui/browse/{id}",
    ] {
        assert!(routes.contains(&known), "{known} in {routes:?}");
    }
    routes
}

/// Every address of the UI that reads the object `id`: each object route, `{tab}` being
/// each of `tabs`, the lineage screen's other views and their CSV, and a search (and its
/// CSV) for the object by its id.
fn object_urls(routes: &[&str], id: &str, tabs: &[String]) -> Vec<String> {
    let mut urls = Vec::new();
    for route in routes {
        if route.contains("{tab}") {
            urls.extend(tabs.iter().map(|tab| route.replace("{tab}", tab)));
        } else {
            urls.push((*route).to_owned());
        }
    }
    urls.push("/ui/objects/{id}/lineage?view=table&depth=3&direction=both&columns=1".into());
    urls.push("/ui/objects/{id}/lineage?depth=3&direction=both&columns=1".into());
    urls.push("/ui/objects/{id}/lineage.csv?depth=3&direction=both&columns=1".into());
    let mql =
        crate::harness::encode_segment("SELECT Name, \"Object Id\" WHERE \"Object Id\" = '{id}'");
    let mql = mql.replace("%7Bid%7D", "{id}");
    urls.push(format!("/ui/?mql={mql}"));
    urls.push(format!("/ui/search.csv?mql={mql}"));
    let id = crate::harness::encode_segment(id);
    let mut urls: Vec<String> = urls.into_iter().map(|u| u.replace("{id}", &id)).collect();
    urls.sort();
    urls.dedup();
    urls
}

/// Where a text occurs in a page as a whole word (an id `3_1` is not in `3_12`).
fn find_word(page: &str, word: &str) -> Option<usize> {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '_';
    page.match_indices(word).map(|(at, _)| at).find(|&at| {
        !page[..at].chars().next_back().is_some_and(part)
            && !page[at + word.len()..].chars().next().is_some_and(part)
    })
}

/// Fails when `page` (what `screen` answered) shows one of `secrets`.
#[track_caller]
fn assert_no_secret(page: &str, screen: &str, secrets: &[String]) {
    for secret in secrets {
        if let Some(at) = find_word(page, secret) {
            let from = page.floor_char_boundary(at.saturating_sub(300));
            let to = page.ceil_char_boundary((at + 300).min(page.len()));
            panic!("{screen} shows {secret}: …{}…", &page[from..to]);
        }
    }
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

/// An id of the same form as `id` that names nothing.
fn missing_id(id: &str) -> String {
    format!("{id}99999")
}

/// As the signed-in caller: every address in `urls` about `hidden` (an object the
/// caller may not see) answers, byte for byte, what the same address about an object
/// that does not exist answers once the id is put back, and shows none of `secrets`
/// (but the id the caller wrote). Answers how many addresses were compared.
async fn hidden_answers_as_missing(
    b: &mut Browser,
    who: &str,
    hidden: &str,
    urls: &[String],
    secrets: &[String],
) -> usize {
    let missing = missing_id(hidden);
    let others: Vec<String> = secrets.iter().filter(|s| *s != hidden).cloned().collect();
    for url in urls {
        let seen = b.fetch(url).await;
        let none = b.fetch(&url.replace(hidden, &missing)).await;
        assert!(!seen.redirected, "{who} {url}: redirected to {}", seen.body);
        if !url.starts_with("/ui/?") && !url.starts_with("/ui/search.csv?") {
            assert_ne!(seen.status, 200, "{who} {url} is served: {}", seen.body);
        }
        let none = crate::browser::Fetched {
            path: url.clone(),
            body: none.body.replace(&missing, hidden),
            ..none
        };
        assert_eq!(
            seen, none,
            "{who}: {url} differs from the same for a missing id"
        );
        assert_no_secret(&seen.body, &format!("{who} {url}"), &others);
    }
    urls.len()
}

/// The sample imported with its term `Client` renamed `term`, into a new folder.
async fn import_sample_with_term(t: &Target, term: &str) -> crate::harness::Imported {
    let mut files = crate::harness::sample_files();
    let objects = files.get_mut("objects.csv").expect("the sample's objects");
    let text = String::from_utf8(objects.clone()).expect("UTF-8");
    let renamed = text.replace(
        ",Business Glossary.Term,Client,",
        &format!(",Business Glossary.Term,{term},"),
    );
    assert_ne!(renamed, text, "the term Client is in the sample");
    *objects = renamed.into_bytes();
    let archive = crate::harness::zip_files(files.iter().map(|(n, d)| (n.as_str(), d.as_slice())));
    t.import_archive(archive, "hidden-folder", "Hidden").await
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

/// The objects of an imported sample the sight case reads: the model, the table
/// `customer`, its column `email` and the glossary term (`Client` or its new name).
async fn sample_objects(t: &Target, model: &crate::harness::Imported, term: &str) -> Vec<String> {
    let number = model.model_id.rsplit('_').next().unwrap_or("0").to_owned();
    vec![
        model.model_id.clone(),
        id_where(
            t,
            &format!("Name = 'customer' AND \"Object Type\" = 'Table' AND \"Model Id\" = {number}"),
        )
        .await,
        id_where(
            t,
            &format!("Name = 'email' AND Parent.Name = 'customer' AND \"Model Id\" = {number}"),
        )
        .await,
        id_where(t, &format!("Name = '{term}' AND \"Model Id\" = {number}")).await,
    ]
}

/// Lineage across two models: an OpenLineage job reads a table of one namespace and
/// writes one of another. Answers (the model of the output, the output, the input, the
/// input's host name).
async fn lineage_across_models(t: &Target) -> (String, String, String, String) {
    let emitter = t.key_with_roles(&["Lineage Emitter"]).await;
    let seen = unique("ol-seen").to_lowercase();
    let hidden = unique("ol-hidden").to_lowercase();
    let event = json!({
        "eventType": "COMPLETE",
        "eventTime": "2026-11-27T10:00:00Z",
        "producer": "https://example.com/producer",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": "01930000-0000-4000-8000-000000000002"},
        "job": {"namespace": "ui-pipelines", "name": "across_models"},
        "inputs": [{"namespace": format!("postgres://{hidden}:5432"), "name": "shop.public.orders"}],
        "outputs": [{"namespace": format!("postgres://{seen}:5432"), "name": "shop.mart.daily"}]
    });
    let resp = t
        .send(
            t.client
                .post(format!("{}/api/v1/lineage", t.origin()))
                .header("Authorization", format!("Bearer {emitter}"))
                .json(&event),
        )
        .await;
    assert_eq!(resp.status, 201, "{}", resp.describe());
    let id_of = |path: String| async move {
        let resp = t.entity(&path).await;
        resp.ok()["id"].as_str().expect("an id").to_owned()
    };
    (
        id_of(format!("/OpenLineage/{seen}:5432 (postgres)")).await,
        id_of(format!(
            "/OpenLineage/{seen}:5432 (postgres)/shop/mart/daily"
        ))
        .await,
        id_of(format!(
            "/OpenLineage/{hidden}:5432 (postgres)/shop/public/orders"
        ))
        .await,
        hidden,
    )
}

/// What a user may not see never reaches a page or a download of the UI, and an object
/// they may not see answers as one that does not exist, on every screen, by page
/// source: for a viewer of another model and for a user without any right. Every
/// comparison is also made as the administrator (who sees the object, so each address
/// reaches the object's lookup) and, for the viewer, on an object of their model.
async fn sight_on_every_screen(t: &Target, b: &mut Browser) {
    let own = t.import_sample().await;
    let secret_term = unique("Clientele");
    let hidden = import_sample_with_term(t, &secret_term).await;
    let own_objects = sample_objects(t, &own, "Client").await;
    let hidden_objects = sample_objects(t, &hidden, &secret_term).await;
    let (lineage_model, output, input, hidden_host) = lineage_across_models(t).await;
    let (viewer, name, password) = new_user(t, "ui-viewer").await;
    for model in [&own.model_id, &lineage_model] {
        t.put(
            &format!("/admin/grants/grantObjectRole/{model}"),
            &[],
            &json!({"grantee": viewer, "role": "Viewer"}),
        )
        .await
        .ok();
    }
    let secret_sheet = unique("secret-worksheet");
    t.post(
        "/worksheets",
        &[],
        &json!({"name": secret_sheet, "select": "Name", "where": format!("text = '{secret_term}'")}),
    )
    .await
    .ok();
    let hidden_folder = hidden
        .path
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or_default()
        .to_owned();
    // A column of the granted model whose data is hidden (Hide Data), with statistics and
    // a sample no page may show to a user without View Data.
    let email = own_objects[2].clone();
    t.put(
        &format!("/entities/DataProfiling/{email}"),
        &[],
        &json!({
            "dataProfile": {"totalProfiledRows": 10, "statistics": {"DistinctRows": 987654, "maxLength": 424242}},
            "dataSample": {"header": ["email"], "samples": [["secret.sample@example.com"]]},
            "hideData": true,
        }),
    )
    .await
    .ok();
    let mut secrets = vec![
        hidden.model_name.clone(),
        hidden_folder,
        secret_term.clone(),
        secret_sheet.clone(),
        hidden_host.clone(),
        input.clone(),
    ];
    secrets.extend(hidden_objects.iter().cloned());
    let routes = object_routes();
    // Every screen that is no one object's.
    let screens = [
        "/ui/".to_owned(),
        "/ui/?q=customer".to_owned(),
        "/ui/?q=Clie".to_owned(),
        "/ui/?q=Clie&type=Term".to_owned(),
        "/ui/search.csv?q=Clie".to_owned(),
        "/ui/search.csv?q=customer".to_owned(),
        "/ui/browse".to_owned(),
        "/ui/glossary".to_owned(),
        "/ui/glossary?q=Clie".to_owned(),
        "/ui/terms/suggest?term=Clie".to_owned(),
        "/ui/worksheets".to_owned(),
        format!("/ui/objects/{output}/lineage?depth=3&direction=both"),
        format!("/ui/objects/{output}/lineage?view=table&depth=3&direction=both"),
        format!("/ui/objects/{output}/lineage.csv?depth=3&direction=both"),
        format!("/ui/objects/{output}/children"),
        format!("/ui/objects/{output}/summary"),
        format!("/ui/objects/{output}"),
    ];

    // The administrator sees it all: each hidden object's every address is served, and
    // the other screens show what the others must not.
    b.login(&t.user, &t.password).await;
    b.find("#signed-in-user").await;
    let mut tabs = std::collections::BTreeMap::new();
    for id in own_objects.iter().chain(&hidden_objects).chain([&output]) {
        tabs.insert(id.clone(), offered_tabs(b, id).await);
    }
    let mut reached = 0;
    for id in &hidden_objects {
        for url in object_urls(&routes, id, &tabs[id]) {
            let seen = b.fetch(&url).await;
            assert_eq!(seen.status, 200, "the administrator's {url}: {}", seen.body);
            let none = b.fetch(&url.replace(id.as_str(), &missing_id(id))).await;
            assert_ne!(
                seen.body,
                none.body.replace(&missing_id(id), id),
                "{url} reaches the object's lookup"
            );
            reached += 1;
        }
    }
    let shown: String = {
        let mut all = String::new();
        for screen in &screens {
            let seen = b.fetch(screen).await;
            assert_eq!(
                seen.status, 200,
                "the administrator's {screen}: {}",
                seen.body
            );
            all.push_str(&seen.body);
        }
        all
    };
    for secret in [&secret_term, &secret_sheet, &hidden_host, &input] {
        assert!(
            find_word(&shown, secret).is_some(),
            "the administrator's screens show {secret}"
        );
    }
    b.find("#logout").await.click().await.expect("Log out");
    b.find("#login-button").await;

    // A viewer of another model.
    b.login(&name, &password).await;
    b.find("#signed-in-user").await;
    let mut compared = 0;
    for id in &hidden_objects {
        let urls = object_urls(&routes, id, &tabs[id]);
        compared +=
            hidden_answers_as_missing(b, "a viewer of another model", id, &urls, &secrets).await;
    }
    // ... who sees their own model at the same addresses.
    for id in &own_objects {
        for url in object_urls(&routes, id, &tabs[id]) {
            let seen = b.fetch(&url).await;
            let none = b.fetch(&url.replace(id.as_str(), &missing_id(id))).await;
            assert!(!seen.redirected, "{url}");
            assert_ne!(
                seen.body,
                none.body.replace(&missing_id(id), id),
                "the viewer's own {url} is not answered as missing"
            );
            assert_no_secret(&seen.body, &format!("the viewer's own {url}"), &secrets);
        }
    }
    for screen in &screens {
        let seen = b.fetch(screen).await;
        assert_eq!(seen.status, 200, "the viewer's {screen}: {}", seen.body);
        assert_no_secret(&seen.body, &format!("the viewer's {screen}"), &secrets);
    }
    let search = b.fetch("/ui/?q=customer").await.body;
    assert!(
        search.contains(&own.model_name),
        "the granted model is found"
    );
    let lineage = b
        .fetch(&format!(
            "/ui/objects/{output}/lineage.csv?depth=3&direction=both"
        ))
        .await
        .body;
    assert!(lineage.starts_with("direction,"), "{lineage}");
    // The pages as the browser shows them, too.
    for screen in [
        "/ui/?q=customer",
        "/ui/",
        "/ui/browse",
        "/ui/glossary",
        "/ui/worksheets",
    ] {
        b.goto(screen).await;
        b.find("main").await;
        assert_no_secret(&b.source().await, screen, &secrets);
    }

    // Hidden data never reaches the page, statistics included; the page says why.
    b.goto(&format!("/ui/objects/{email}/profiling")).await;
    let notice = b.text("#hidden-data").await;
    assert!(notice.contains("hidden from you"), "{notice}");
    for url in [
        format!("/ui/objects/{email}/profiling"),
        format!("/ui/objects/{email}"),
        format!("/ui/objects/{email}/summary"),
    ] {
        let page = b.fetch(&url).await.body;
        for secret in ["987654", "424242", "secret.sample@example.com"] {
            assert!(!page.contains(secret), "{url} shows {secret}");
        }
    }

    // MQL naming the hidden model finds nothing, as for a name that does not exist.
    let number = hidden.model_id.rsplit('_').next().unwrap_or("0");
    let by_model =
        |n: &str| crate::harness::encode_segment(&format!("SELECT Name WHERE \"Model Id\" = {n}"));
    for page in ["/ui/", "/ui/search.csv"] {
        let seen = b.fetch(&format!("{page}?mql={}", by_model(number))).await;
        let none = b
            .fetch(&format!(
                "{page}?mql={}",
                by_model(&format!("{number}99999"))
            ))
            .await;
        assert_eq!(
            seen.body,
            none.body.replace(&format!("{number}99999"), number),
            "{page} by the hidden model's number"
        );
        assert_no_secret(&seen.body, page, &secrets);
    }
    b.shot("viewer-search").await;

    // A user without any right: every object answers as one that does not exist.
    let (_, nobody, nobody_password) = new_user(t, "ui-nobody").await;
    b.find("#logout").await.click().await.expect("Log out");
    b.login(&nobody, &nobody_password).await;
    b.find("#signed-in-user").await;
    let mut everything = secrets.clone();
    everything.extend([
        own.model_name.clone(),
        lineage_model.clone(),
        output.clone(),
    ]);
    everything.extend(own_objects.iter().cloned());
    for id in own_objects.iter().chain(&hidden_objects).chain([&output]) {
        let urls = object_urls(&routes, id, &tabs[id]);
        compared +=
            hidden_answers_as_missing(b, "a user without rights", id, &urls, &everything).await;
    }
    for screen in &screens {
        let seen = b.fetch(screen).await;
        assert!(!seen.redirected, "{screen}");
        let without_output = seen.body.replace(&output, "");
        assert_no_secret(
            &without_output,
            &format!("{screen} as a user without rights"),
            &everything,
        );
    }
    b.goto("/ui/browse").await;
    b.find("main").await;
    assert_no_secret(&b.source().await, "browse as nobody", &everything);
    assert!(
        reached >= 4 * 12 && compared >= reached,
        "{reached} addresses reached as the administrator, {compared} compared"
    );
    b.goto("/ui/logout").await;
    b.find("#confirm-logout")
        .await
        .click()
        .await
        .expect("Log out");
    b.find("#login-button").await;
}

/// axe-core on every screen the suite visits, as the administrator and as a user who is
/// no administrator (Steward of the model, so its forms show), signed out too: the
/// login form, each screen of the menu, the administration pages (a refusal for the
/// steward), each tab the object page offers for a model, a table with lineage, a
/// column and a glossary term, the edit form, the lineage table, the side panel, the
/// logout page and the page for an address that names nothing.
async fn every_screen_is_accessible(t: &Target, b: &mut Browser) {
    let sample = import_sample_with_lineage(t).await;
    let number = sample.model_id.rsplit('_').next().unwrap_or("0").to_owned();
    let in_model = |filter: &str| format!("{filter} AND \"Model Id\" = {number}");
    let objects = [
        sample.model_id.clone(),
        id_where(
            t,
            &in_model("Name = 'v_customer_orders' AND \"Object Type\" = 'View'"),
        )
        .await,
        id_where(t, &in_model("Name = 'email' AND Parent.Name = 'customer'")).await,
        id_where(
            t,
            &in_model("Name = 'Customer' AND \"Object Type\" = 'Term'"),
        )
        .await,
    ];
    let table = id_where(
        t,
        &in_model("Name = 'customer' AND \"Object Type\" = 'Table'"),
    )
    .await;
    t.post(
        "/worksheets",
        &[],
        &json!({"name": "accessible worksheet", "select": "Name"}),
    )
    .await
    .ok();
    let (steward, steward_name, steward_password) = new_user(t, "ui-steward").await;
    t.put(
        &format!("/admin/grants/grantObjectRole/{}", sample.model_id),
        &[],
        &json!({"grantee": steward, "role": "Steward"}),
    )
    .await
    .ok();

    let mut failures = Vec::new();
    let mut checked = Vec::new();
    b.goto("/ui/login").await;
    b.find("#login-button").await;
    failures.extend(
        b.accessibility_violations()
            .await
            .into_iter()
            .map(|v| format!("signed out, login: {v}")),
    );
    for (who, user, password) in [
        ("the administrator", t.user.as_str(), t.password.as_str()),
        (
            "a steward",
            steward_name.as_str(),
            steward_password.as_str(),
        ),
    ] {
        b.login(user, password).await;
        b.find("#signed-in-user").await;
        let mut screens: Vec<String> = [
            "/ui/",
            "/ui/?q=customer",
            "/ui/?q=customer&view=mql",
            "/ui/?q=customer&type=Column",
            "/ui/browse",
            "/ui/glossary",
            "/ui/glossary?q=Customer",
            "/ui/worksheets",
            "/ui/admin/users",
            "/ui/admin/groups",
            "/ui/admin/roles",
            "/ui/admin/operations",
            "/ui/admin/log",
            "/ui/admin/deliveries",
            "/ui/logout",
            "/ui/no-such-screen",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        screens.push(format!("/ui/browse/{}", sample.model_id));
        for id in &objects {
            for tab in offered_tabs(b, id).await {
                screens.push(format!("/ui/objects/{id}/{tab}"));
            }
            screens.push(format!("/ui/objects/{id}/edit"));
        }
        screens.push(format!("/ui/objects/{}/lineage?view=table", objects[1]));
        screens.push(format!(
            "/ui/objects/{}/lineage?columns=1&depth=2",
            objects[1]
        ));
        for path in &screens {
            b.goto(path).await;
            b.find("main").await;
            failures.extend(
                b.accessibility_violations()
                    .await
                    .into_iter()
                    .map(|v| format!("{who}, {path}: {v}")),
            );
            checked.push(format!("{who} {path}"));
        }
        // The side panel, opened beside the children.
        b.goto(&format!("/ui/objects/{table}/children")).await;
        b.find("button[aria-label='Details of email']")
            .await
            .click()
            .await
            .expect("Details");
        b.wait_until("the side panel", "document.getElementById('summary-name')")
            .await;
        failures.extend(
            b.accessibility_violations()
                .await
                .into_iter()
                .map(|v| format!("{who}, the side panel: {v}")),
        );
        b.goto("/ui/logout").await;
        b.find("#confirm-logout")
            .await
            .click()
            .await
            .expect("Log out");
        b.find("#login-button").await;
    }
    assert!(
        checked.len() >= 2 * 50,
        "every screen, for both: {checked:#?}"
    );
    assert!(
        failures.is_empty(),
        "axe-core found:\n{}",
        failures.join("\n")
    );
}

/// Searches for `customer` and opens the table of that name from the exact matches.
/// The checks every screen passes ([`Browser::check_protections`]) see what they
/// claim: a style attribute set by a script is reported both by the
/// `securitypolicyviolation` listener and by Chromium's console. And a page of another
/// origin cannot show the UI in a frame: the framed administration page stays blank
/// (Chromium's error page), while a page of a third origin that sets no protection
/// shows in the frame beside it.
async fn policy_violations_and_framing_are_caught(t: &Target, b: &mut Browser) {
    b.login(&t.user, &t.password).await;
    b.goto("/ui/admin/users").await;
    b.find("#signed-in-user").await;
    let before = b.checked_answers;
    b.run("document.body.setAttribute('style', 'outline: 1px solid red'); return true;")
        .await;
    b.wait_until(
        "the violation event",
        "sessionStorage.getItem('loreCspViolations')",
    )
    .await;
    let failures = b.protection_failures().await;
    assert!(
        b.checked_answers > before,
        "the page's answers reached the header check"
    );
    assert!(
        failures
            .iter()
            .any(|f| f.starts_with("securitypolicyviolation: style-src-attr")),
        "{failures:#?}"
    );
    assert!(
        failures
            .iter()
            .any(|f| f.starts_with("console:") && f.contains("inline style")),
        "{failures:#?}"
    );
    assert_eq!(
        b.run("return getComputedStyle(document.body).outlineStyle;")
            .await,
        json!("none"),
        "the style was refused"
    );

    // Signed in, as an administrator: what a clickjacking page would frame.
    let framed = format!("{}/ui/admin/users", t.origin());
    let site = crate::browser::AnotherSite::start(&framed).await;
    b.goto_url(&site.frame_url()).await;
    b.wait_until("both frames loaded", "window.framesLoaded === 2")
        .await;
    b.client.enter_frame(1).await.expect("the control frame");
    let control = b.source().await;
    b.client.enter_parent_frame().await.expect("back out");
    assert!(
        control.contains("A page of a third origin"),
        "the control frame shows its page: {control}"
    );
    b.client.enter_frame(0).await.expect("the frame of Lore");
    let inside = b.source().await;
    let address = b
        .client
        .current_url()
        .await
        .expect("the frame's address")
        .to_string();
    b.client.enter_parent_frame().await.expect("back out");
    assert!(
        !address.starts_with(&t.origin()),
        "the frame shows no Lore page: {address}"
    );
    for lore in ["signed-in-user", "csrf", "Lore", "Users"] {
        assert!(!inside.contains(lore), "the frame shows {lore}: {inside}");
    }
    let failures = b.protection_failures().await;
    assert!(
        failures
            .iter()
            .any(|f| f.contains("frame-ancestors 'none'")),
        "Chromium blocked the frame for the policy: {failures:#?}"
    );
    assert!(
        failures.iter().all(|f| f.contains("frame-ancestors")),
        "nothing else: {failures:#?}"
    );
    b.goto("/ui/").await;
    b.find("#signed-in-user").await;
}

async fn open_customer_table(b: &mut Browser) {
    b.goto("/ui/?q=customer").await;
    b.find("#exact-matches").await;
    let href = b
        .run("return [...document.querySelectorAll('#exact-matches .result')].find(r => r.querySelector('.kind').textContent === 'Table').querySelector('a.name').getAttribute('href')")
        .await;
    b.goto(
        href.as_str()
            .expect("the customer table in the exact matches"),
    )
    .await;
}

/// The sample model with lineage: the view `v_customer_orders` is fed by `customer` and
/// `orders` (and two of its columns by theirs), `orders` by `order_item`.
async fn import_sample_with_lineage(t: &Target) -> crate::harness::Imported {
    let mut files = crate::harness::sample_files();
    let relationships = files
        .get_mut("relationships.csv")
        .expect("the sample's relationships");
    relationships.extend_from_slice(
        b"lineage,INSERT INTO v_customer_orders SELECT ... FROM customer,salesdb.sales.customer,salesdb.sales.v_customer_orders\n\
lineage,SELECT count(*) FROM orders,salesdb.sales.orders,salesdb.sales.v_customer_orders\n\
lineage,SELECT sum(quantity * unit_price) FROM order_item,salesdb.sales.order_item,salesdb.sales.orders\n\
lineage,copy,salesdb.sales.customer.customer_id,salesdb.sales.v_customer_orders.customer_id\n\
lineage,sum(total_amount),salesdb.sales.orders.total_amount,salesdb.sales.v_customer_orders.total_spent\n",
    );
    let archive = crate::harness::zip_files(files.iter().map(|(n, d)| (n.as_str(), d.as_slice())));
    t.import_archive(archive, "lineage-folder", "Lineage").await
}

/// The names of the lineage graph's nodes, as drawn.
/// The titles of the lineage graph's edges (their names), joined by `|`.
async fn edge_titles(b: &Browser) -> String {
    let titles = b
        .run("return [...document.querySelectorAll('#lineage-graph .edge title')].map(t => t.textContent).join('|')")
        .await;
    titles.as_str().unwrap_or_default().to_owned()
}

async fn graph_nodes(b: &Browser) -> Vec<String> {
    let names = b
        .run("return [...document.querySelectorAll('#lineage-graph .node')].map(n => n.querySelector('title').textContent)")
        .await;
    let mut names: Vec<String> = names
        .as_array()
        .expect("node names")
        .iter()
        .filter_map(|n| n.as_str())
        .map(|n| n.split(" (").next().unwrap_or_default().to_owned())
        .collect();
    names.sort();
    names
}

async fn lineage_graph_and_table(t: &Target, b: &mut Browser) {
    let sample = import_sample_with_lineage(t).await;
    b.login(&t.user, &t.password).await;
    b.find("#signed-in-user").await;
    let _ = &sample;
    b.goto("/ui/?q=%3Dv_customer_orders").await;
    let href = b
        .run("return document.querySelector('#exact-matches a.name').getAttribute('href')")
        .await;
    let object = href
        .as_str()
        .expect("the view in the exact matches")
        .to_owned();
    b.goto(&format!("{object}/lineage")).await;
    b.find("#lineage-graph").await;
    // One hop each way: the view and what feeds it; orders has one more upstream.
    assert_eq!(
        graph_nodes(b).await,
        ["customer", "orders", "v_customer_orders"]
    );
    assert!(
        b.text("#lineage-summary")
            .await
            .starts_with("3 of 3 objects shown")
    );
    let titles = edge_titles(b).await;
    assert!(titles.contains("SELECT count(*) FROM orders"), "{titles}");
    b.shot("one-hop").await;

    // Expand orders: order_item appears.
    b.find("#lineage-graph .node[data-id] a.more")
        .await
        .click()
        .await
        .expect("expanding orders");
    b.wait_until("the expanded graph", "location.search.includes('expand=')")
        .await;
    b.find("#lineage-graph").await;
    assert_eq!(
        graph_nodes(b).await,
        ["customer", "order_item", "orders", "v_customer_orders"]
    );
    // The path from order_item is highlighted when it is chosen.
    let focus = b
        .run("return [...document.querySelectorAll('#lineage-graph .node')].find(n => n.querySelector('title').textContent.startsWith('order_item')).querySelector('a').getAttribute('href')")
        .await;
    b.goto(&format!(
        "{object}/lineage{}",
        focus.as_str().expect("a focus link")
    ))
    .await;
    b.find("#lineage-focus").await;
    let on_path = b
        .run("return [...document.querySelectorAll('#lineage-graph .node.on-path title')].map(t => t.textContent.split(' (')[0]).sort().join(',')")
        .await;
    assert_eq!(on_path, json!("order_item,orders,v_customer_orders"));
    assert_eq!(
        b.run("return document.querySelectorAll('#lineage-graph .edge.on-path').length")
            .await,
        json!(2)
    );
    b.shot("path").await;

    // Depth 2 without expanding; columns on demand; direction.
    b.goto(&format!("{object}/lineage?depth=2&direction=upstream"))
        .await;
    b.find("#lineage-graph").await;
    assert_eq!(
        graph_nodes(b).await,
        ["customer", "order_item", "orders", "v_customer_orders"]
    );
    b.goto(&format!(
        "{object}/lineage?depth=1&direction=both&columns=1"
    ))
    .await;
    b.find("#lineage-graph").await;
    let nodes = graph_nodes(b).await;
    assert!(
        nodes.contains(&"customer.customer_id".to_owned()),
        "{nodes:?}"
    );
    assert!(
        nodes.contains(&"v_customer_orders.total_spent".to_owned()),
        "{nodes:?}"
    );
    b.shot("columns").await;

    // The table of the same graph, and its CSV.
    b.goto(&format!("{object}/lineage?view=table")).await;
    let table = b.text("#lineage-table").await;
    assert!(table.contains("SELECT count(*) FROM orders"), "{table}");
    let csv = b
        .client
        .execute_async(
            "const done = arguments[0];
             fetch(document.getElementById('lineage-csv').href).then(r => r.text()).then(done);",
            Vec::new(),
        )
        .await
        .expect("the lineage CSV");
    let csv = csv.as_str().unwrap_or_default();
    assert!(csv.starts_with("direction,depth,source id,source"), "{csv}");
    assert!(csv.contains("UPSTREAM,1,"), "{csv}");
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

async fn curation_from_the_object_page(t: &Target, b: &mut Browser) {
    t.import_sample().await;
    b.login(&t.user, &t.password).await;
    b.find("#signed-in-user").await;
    open_customer_table(b).await;
    let object = b.at().await;
    let id = object.trim_start_matches("/ui/objects/").to_owned();

    // Endorse, certify, watch: each recorded as the API records it.
    for (button, done) in [
        ("#endorse", "Endorsed"),
        ("#certify", "Certified"),
        ("#watch", "Watching"),
    ] {
        press(b, button).await;
        assert!(b.text(button).await.starts_with(done), "{button}");
        assert!(!b.text("#flash-done").await.is_empty());
    }
    let curation = t.get(&format!("/curation/{id}")).await;
    let curation = curation.ok();
    assert_eq!(curation["endorsedBy"][0]["name"], json!(t.user));
    assert_eq!(curation["certifiedBy"][0]["name"], json!(t.user));
    assert_eq!(curation["watchers"][0]["name"], json!(t.user));
    press(b, "#endorse").await;
    assert_eq!(b.text("#endorse").await, "Endorse");

    // The description, in Markdown, previewed as it is typed.
    b.goto(&format!("{object}/edit")).await;
    let area = b.find("#description").await;
    area.clear().await.expect("clearing the description");
    area.send_keys("Customers who **ordered**, see <script>x</script>")
        .await
        .expect("typing");
    b.wait_until("the preview", "document.querySelector('#preview strong')")
        .await;
    b.shot("edit-description").await;
    press(b, "#save-description").await;
    let overview = b.text("#tab-panel").await;
    assert!(
        overview.contains("Customers who ordered, see <script>x</script>"),
        "{overview}"
    );
    assert_eq!(
        b.run("return document.querySelectorAll('.description script').length")
            .await,
        json!(0)
    );
    let entity = t.entity(&id).await;
    assert!(
        entity.text().contains("Customers who **ordered**"),
        "{}",
        entity.describe()
    );

    // A label added (MQL finds the object by it) and removed.
    b.find("#label-input")
        .await
        .send_keys("reviewed-2026")
        .await
        .expect("typing");
    press(b, "#add-label-button").await;
    assert!(b.text("#labels").await.contains("reviewed-2026"));
    let labelled = t
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({"select": "\"Object Id\"", "where": "Labels = 'reviewed-2026'"}),
        )
        .await;
    assert!(labelled.text().contains(&id), "{}", labelled.describe());
    press(b, "#labels button[aria-label='Remove label reviewed-2026']").await;
    assert!(
        b.all("#labels").await.is_empty() || !b.text("#labels").await.contains("reviewed-2026")
    );

    // A glossary term, found as it is typed, linked and unlinked.
    let field = b.find("#term-input").await;
    field.send_keys("Clie").await.expect("typing a term");
    b.wait_until(
        "the term suggestions",
        "document.querySelectorAll('#term-options option').length > 0",
    )
    .await;
    let option = b
        .run("return document.querySelector('#term-options option').value")
        .await;
    let term_id = option.as_str().expect("a suggested term").to_owned();
    b.run(&format!(
        "document.getElementById('term-input').value = '{term_id}'"
    ))
    .await;
    press(b, "#link-term-button").await;
    let terms = b.text("#terms").await;
    assert!(terms.contains("Client"), "{terms}");
    press(b, "#terms button").await;
    assert!(b.all("#terms").await.is_empty() || !b.text("#terms").await.contains("Client"));

    // Comments and warnings.
    b.goto(&format!("{object}/comments")).await;
    let last = b.text("#last-change").await;
    assert!(last.starts_with("Last changed 20"), "{last}");
    b.find("#comment-text")
        .await
        .send_keys("Checked against the CRM.")
        .await
        .expect("typing");
    press(b, "#add-comment-button").await;
    b.find("#comment-text")
        .await
        .send_keys("Emails are not verified.")
        .await
        .expect("typing");
    press(b, "#add-warning-button").await;
    let comments = b.text("#comments").await;
    assert!(
        comments.contains("Checked against the CRM.")
            && comments.contains("Emails are not verified."),
        "{comments}"
    );
    assert!(b.text("#badges").await.contains("Warnings ×1"));
    b.shot("comments").await;
    press(b, "#comments form button").await;
    assert_eq!(b.all("#comments li").await.len(), 1);

    // A sensitivity label proposed, then approved.
    b.goto(&format!("{object}/classification")).await;
    let label = b
        .run("return document.querySelector('#label-choice option').textContent")
        .await;
    let label = label.as_str().expect("a defined label").to_owned();
    press(b, "#propose-label-button").await;
    let row = review_status_of(b, "label", &label).await;
    assert_eq!(row, json!("proposed"));
    press(
        b,
        &format!("#label-assignments button[aria-label='Approve {label}']"),
    )
    .await;
    let row = review_status_of(b, "label", &label).await;
    assert_eq!(row, json!("approved"));

    // A data class proposed, then approved; MQL reads the review.
    let class = b
        .run("return document.querySelector('#class-choice option').value")
        .await;
    let class = class.as_str().expect("a defined data class").to_owned();
    press(b, "#propose-class-button").await;
    press(
        b,
        &format!("#class-assignments button[aria-label='Approve data class {class}']"),
    )
    .await;
    let row = review_status_of(b, "class", &class).await;
    assert_eq!(row, json!("approved"));
    let approved = t
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({
                "select": "\"Data Classifications Approved\"",
                "where": format!("\"Object Id\" = '{id}'"),
            }),
        )
        .await;
    assert!(approved.text().contains(&class), "{}", approved.describe());

    // A workflow step.
    let step = b.text(".workflow-step").await;
    press(b, ".workflow-step").await;
    assert!(b.text("#flash-done").await.starts_with(&step));
    b.shot("classification").await;
}

async fn glossary_pages(t: &Target, b: &mut Browser) {
    t.import_sample().await;
    b.login(&t.user, &t.password).await;
    b.find("#signed-in-user").await;
    b.goto("/ui/glossary").await;
    let count = b.text("#glossary-count").await;
    assert!(!count.starts_with("0 "), "{count}");
    b.goto("/ui/glossary?q=Customer").await;
    let href = b
        .run("return [...document.querySelectorAll('#glossary-terms a')].find(a => a.textContent === 'Customer').getAttribute('href')")
        .await;
    b.goto(href.as_str().expect("the Customer term")).await;
    // The objects that represent the term, and the terms related to it.
    let represented = b.text("#represented-by").await;
    assert!(represented.contains("customer"), "{represented}");
    let related = b.text("#related").await;
    assert!(related.contains("Client"), "{related}");
    b.shot("term").await;
}

async fn administration_grants_and_an_import(t: &Target, b: &mut Browser) {
    let sample = t.import_sample().await;
    b.login(&t.user, &t.password).await;
    b.find("#admin-link")
        .await
        .click()
        .await
        .expect("Administration");
    b.find("#new-user").await;

    // A user, created, disabled and enabled again.
    let name = unique("ui-admin-user");
    b.find("#new-user-name")
        .await
        .send_keys(&name)
        .await
        .expect("typing");
    b.find("#new-user-password")
        .await
        .send_keys("A-long-enough-password-1")
        .await
        .expect("typing");
    press(b, "#create-user").await;
    assert!(b.text("#flash-done").await.contains(&name));
    press(b, &format!("#users button[aria-label='Disable {name}']")).await;
    assert!(b.text("#flash-done").await.contains("disabled"));
    let user = t.get(&format!("/admin/users/{name}")).await;
    assert_eq!(user.ok()["enabled"], json!(false), "{}", user.describe());
    press(b, &format!("#users button[aria-label='Enable {name}']")).await;

    // A group with the user, and a global role for the group.
    b.goto("/ui/admin/groups").await;
    let group = unique("ui-group");
    b.find("#new-group-name")
        .await
        .send_keys(&group)
        .await
        .expect("typing");
    b.find("#new-group-members")
        .await
        .send_keys(&name)
        .await
        .expect("typing");
    press(b, "#create-group").await;
    assert!(b.text("#groups").await.contains(&group));
    b.goto("/ui/admin/roles").await;
    b.find("#grantee")
        .await
        .send_keys(&group)
        .await
        .expect("typing");
    b.find("#grantee-kind")
        .await
        .select_by_value("GROUP")
        .await
        .expect("GROUP");
    let role = b
        .find("#global-role")
        .await
        .prop("value")
        .await
        .expect("a role")
        .unwrap_or_default();
    press(b, "#grant-global-button").await;
    let grants = b.text("#global-grants").await;
    assert!(
        grants.contains(&group) && grants.contains(&role),
        "{grants}"
    );
    b.shot("roles").await;

    // An object role granted from the model's page, and revoked.
    b.goto(&format!("/ui/objects/{}/access", sample.model_id))
        .await;
    b.find("#object-grantee")
        .await
        .send_keys(&name)
        .await
        .expect("typing");
    let object_role = b
        .find("#object-role")
        .await
        .prop("value")
        .await
        .expect("a role")
        .unwrap_or_default();
    press(b, "#grant-object-button").await;
    assert!(b.text("#object-grants").await.contains(&name));
    let held = t
        .get(&format!(
            "/admin/grants/getObjectGrantees/{}",
            sample.model_id
        ))
        .await;
    assert!(held.text().contains(&name), "{}", held.describe());
    press(
        b,
        &format!("#object-grants button[aria-label='Revoke {object_role} from {name}']"),
    )
    .await;
    assert!(!b.text("#object-grants").await.contains(&name));

    // An import run from the page, followed until it ends, with its log.
    let upload = t
        .anon(
            reqwest::Method::POST,
            &format!("/repository/attachments/{}", sample.model_id),
        )
        .header("api-key", t.key().await)
        .query(&[("name", "sample.zip")])
        .body(crate::harness::sample_archive());
    let uploaded = t.send(upload).await;
    assert!(uploaded.status < 300, "{}", uploaded.describe());
    t.put(
        "/repository/importModel",
        &[],
        &json!({"modelId": sample.model_id, "format": "lore-csv-zip", "attachment": "sample.zip"}),
    )
    .await
    .ok();
    b.goto("/ui/admin/operations").await;
    b.find("#import-model")
        .await
        .send_keys(&sample.path)
        .await
        .expect("typing");
    press(b, "#start-import-button").await;
    b.wait_until(
        "the import to end",
        "document.getElementById('operation-state') && document.getElementById('operation-state').textContent !== 'RUNNING'",
    )
    .await;
    assert_eq!(
        b.text("#operation-state").await,
        "SUCCEEDED",
        "{}",
        b.text("#operation").await
    );
    assert!(!b.all("#operation-log tbody tr").await.is_empty());
    b.shot("operation").await;
    b.goto("/ui/admin/operations").await;
    assert!(b.text("#operations").await.contains("SUCCEEDED"));
    // The model's own page: its import settings, run again from there, and its runs.
    b.goto(&format!("/ui/objects/{}/import", sample.model_id))
        .await;
    assert!(b.text("#import-settings").await.contains("lore-csv-zip"));
    press(b, "#run-model-import").await;
    b.wait_until(
        "the second import to end",
        "document.getElementById('operation-state') && document.getElementById('operation-state').textContent !== 'RUNNING'",
    )
    .await;
    b.goto(&format!("/ui/objects/{}/import", sample.model_id))
        .await;
    assert_eq!(b.all("#model-operations tbody tr").await.len(), 2);

    // The system log and the notification deliveries.
    t.flush_system_log().await;
    b.goto("/ui/admin/log").await;
    assert!(!b.all("#system-log tbody tr").await.is_empty());
    b.goto("/ui/admin/deliveries").await;
    b.find("#deliveries").await;

    // A user without the capability gets the API's refusal, and no menu item.
    let (viewer, viewer_name, password) = new_user(t, "ui-plain").await;
    let _ = viewer;
    b.find("#logout").await.click().await.expect("Log out");
    b.login(&viewer_name, &password).await;
    b.find("#signed-in-user").await;
    assert!(b.all("#admin-link").await.is_empty());
    b.goto("/ui/admin/users").await;
    assert_eq!(b.text("h1").await, "Not allowed");
}

async fn openid_connect_sign_in(t: &Target, b: &mut Browser) {
    // A first sign-in creates the account, with no role: Lore says what is missing.
    b.goto("/ui/browse").await;
    b.find("#oidc-login")
        .await
        .click()
        .await
        .expect("Log in with single sign-on");
    b.wait_until("the refusal", "document.getElementById('message')")
        .await;
    let message = b.text("#message").await;
    assert!(
        message.contains("'johndoe' lacks the capability"),
        "{message}"
    );
    b.find("#message-logout")
        .await
        .click()
        .await
        .expect("Log out");
    b.find("#confirm-logout")
        .await
        .click()
        .await
        .expect("confirm");
    b.find("#login-button").await;
    t.put(
        "/admin/grants/grantGlobalRoles",
        &[],
        &json!({"grantee": "johndoe", "granteeType": "USER", "roles": ["Metadata Viewer"]}),
    )
    .await
    .ok();

    b.goto("/ui/browse").await;
    b.find("#oidc-login")
        .await
        .click()
        .await
        .expect("Log in with single sign-on");
    // The provider (which signs in without asking) sends the browser back, signed in
    // as the user its ID token names.
    b.wait_until(
        "the signed-in page",
        "document.getElementById('signed-in-user')",
    )
    .await;
    assert_eq!(b.text("#signed-in-user").await, "johndoe");
    assert_eq!(b.at().await, "/ui/browse");
    let user = t.get("/admin/users/johndoe").await;
    assert_eq!(user.status, 200, "{}", user.describe());
    b.shot("signed-in").await;
    b.find("#logout").await.click().await.expect("Log out");
    b.find("#login-button").await;

    // An answer that does not belong to this browser's sign-in is refused.
    b.goto("/ui/oidc/callback?code=x&state=forged").await;
    let error = b.text("#login-error").await;
    assert!(
        error.contains("expired") || error.contains("does not belong"),
        "{error}"
    );
    b.goto("/ui/").await;
    b.find("#login-button").await;
}

/// The review status a classification tab shows for a label or data class
/// (`kind`: `label` or `class`).
async fn review_status_of(b: &Browser, kind: &str, name: &str) -> serde_json::Value {
    b.run(&format!(
        "return [...document.querySelectorAll('#{kind}-assignments tr')].find(r => r.cells[0].textContent === '{name}').cells[1].textContent"
    ))
    .await
}

/// Lineage that OpenLineage events made is drawn like any other: a dbt-like job reading
/// `orders` and writing `daily`, seen from `daily`'s lineage screen.
async fn openlineage_lineage_on_the_object_page(t: &Target, b: &mut Browser) {
    let emitter = t.key_with_roles(&["Lineage Emitter"]).await;
    let host = unique("ol-ui").to_lowercase().replace(['_', ' '], "-");
    let namespace = format!("postgres://{host}:5432");
    let event = json!({
        "eventType": "COMPLETE",
        "eventTime": "2026-11-27T10:00:00Z",
        "producer": "https://example.com/producer",
        "schemaURL": "https://openlineage.io/spec/2-0-2/OpenLineage.json#/$defs/RunEvent",
        "run": {"runId": "01930000-0000-4000-8000-000000000001"},
        "job": {"namespace": "ui-pipelines", "name": "load_daily"},
        "inputs": [{"namespace": namespace, "name": "shop.public.orders"}],
        "outputs": [{"namespace": namespace, "name": "shop.mart.daily"}]
    });
    let resp = t
        .send(
            t.client
                .post(format!("{}/api/v1/lineage", t.origin()))
                .header("Authorization", format!("Bearer {emitter}"))
                .json(&event),
        )
        .await;
    assert_eq!(resp.status, 201, "{}", resp.describe());
    let daily = t
        .entity(&format!(
            "/OpenLineage/{host}:5432 (postgres)/shop/mart/daily"
        ))
        .await;
    let daily = daily.ok()["id"].as_str().expect("an id").to_owned();

    b.login(&t.user, &t.password).await;
    b.find("#signed-in-user").await;
    b.goto(&format!("/ui/objects/{daily}/lineage")).await;
    b.find("#lineage-graph").await;
    assert_eq!(graph_nodes(b).await, ["daily", "orders"]);
    let titles = edge_titles(b).await;
    assert!(titles.contains("ui-pipelines/load_daily"), "{titles}");
    b.shot("openlineage").await;
}
