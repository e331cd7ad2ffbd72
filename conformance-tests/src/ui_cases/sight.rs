//! The sight rule on every screen: what a user may not see never reaches a page or a
//! download, and an object they may not see answers as one that does not exist.

use serde_json::json;

use super::{id_where, new_user, offered_tabs};
use crate::browser::Browser;
use crate::harness::{Target, unique};

/// The GET routes of the UI's router that read one object (`{id}`), from the router's
/// source, so that a new one is visited by the sight case too; `{tab}` is each tab the
/// object page offers.
fn object_routes() -> Vec<&'static str> {
    let source = include_str!("../../../server/src/ui/mod.rs");
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
pub(super) async fn sight_on_every_screen(t: &Target, b: &mut Browser) {
    let s = Scene::set_up(t).await;
    let (tabs, reached) = administrator_sees_it_all(t, b, &s).await;
    let mut compared = viewer_of_another_model(b, &s, &tabs).await;
    hidden_data_stays_hidden(b, &s.email).await;
    mql_by_the_hidden_model_finds_nothing(b, &s).await;
    compared += user_without_rights(t, b, &s, &tabs).await;
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

/// The tabs the object page offers for each object the sight case reads, by id.
type Tabs = std::collections::BTreeMap<String, Vec<String>>;

/// What the sight case reads: a model granted to the viewer and one hidden from them,
/// lineage across models, the viewer, and what no page may show them.
struct Scene {
    own: crate::harness::Imported,
    hidden: crate::harness::Imported,
    own_objects: Vec<String>,
    hidden_objects: Vec<String>,
    lineage_model: String,
    output: String,
    input: String,
    hidden_host: String,
    viewer_name: String,
    viewer_password: String,
    secret_term: String,
    secret_sheet: String,
    /// A column of the granted model whose data is hidden.
    email: String,
    secrets: Vec<String>,
    routes: Vec<&'static str>,
    /// Every screen that is no one object's.
    screens: Vec<String>,
}

impl Scene {
    /// Imports the models, grants the viewer one of them, saves a worksheet about the
    /// hidden one and hides the data of a column of the granted one.
    async fn set_up(t: &Target) -> Self {
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
        // A column of the granted model whose data is hidden (Hide Data), with statistics
        // and a sample no page may show to a user without View Data.
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
        let screens = vec![
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
        Self {
            own,
            hidden,
            own_objects,
            hidden_objects,
            lineage_model,
            output,
            input,
            hidden_host,
            viewer_name: name,
            viewer_password: password,
            secret_term,
            secret_sheet,
            email,
            secrets,
            routes,
            screens,
        }
    }
}

/// The administrator sees it all: each hidden object's every address is served, and
/// the other screens show what the others must not. Answers the tabs of each object
/// and how many addresses were reached.
async fn administrator_sees_it_all(t: &Target, b: &mut Browser, s: &Scene) -> (Tabs, usize) {
    b.login(&t.user, &t.password).await;
    b.find("#signed-in-user").await;
    let mut tabs = std::collections::BTreeMap::new();
    for id in s
        .own_objects
        .iter()
        .chain(&s.hidden_objects)
        .chain([&s.output])
    {
        tabs.insert(id.clone(), offered_tabs(b, id).await);
    }
    let mut reached = 0;
    for id in &s.hidden_objects {
        for url in object_urls(&s.routes, id, &tabs[id]) {
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
        for screen in &s.screens {
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
    for secret in [&s.secret_term, &s.secret_sheet, &s.hidden_host, &s.input] {
        assert!(
            find_word(&shown, secret).is_some(),
            "the administrator's screens show {secret}"
        );
    }
    b.find("#logout").await.click().await.expect("Log out");
    b.find("#login-button").await;
    (tabs, reached)
}

/// A viewer of another model: the hidden model's objects answer as missing, their own
/// model's do not, and no screen shows a secret. Answers how many addresses were
/// compared.
async fn viewer_of_another_model(b: &mut Browser, s: &Scene, tabs: &Tabs) -> usize {
    b.login(&s.viewer_name, &s.viewer_password).await;
    b.find("#signed-in-user").await;
    let mut compared = 0;
    for id in &s.hidden_objects {
        let urls = object_urls(&s.routes, id, &tabs[id]);
        compared +=
            hidden_answers_as_missing(b, "a viewer of another model", id, &urls, &s.secrets).await;
    }
    // ... who sees their own model at the same addresses.
    for id in &s.own_objects {
        for url in object_urls(&s.routes, id, &tabs[id]) {
            let seen = b.fetch(&url).await;
            let none = b.fetch(&url.replace(id.as_str(), &missing_id(id))).await;
            assert!(!seen.redirected, "{url}");
            assert_ne!(
                seen.body,
                none.body.replace(&missing_id(id), id),
                "the viewer's own {url} is not answered as missing"
            );
            assert_no_secret(&seen.body, &format!("the viewer's own {url}"), &s.secrets);
        }
    }
    for screen in &s.screens {
        let seen = b.fetch(screen).await;
        assert_eq!(seen.status, 200, "the viewer's {screen}: {}", seen.body);
        assert_no_secret(&seen.body, &format!("the viewer's {screen}"), &s.secrets);
    }
    let search = b.fetch("/ui/?q=customer").await.body;
    assert!(
        search.contains(&s.own.model_name),
        "the granted model is found"
    );
    let output = &s.output;
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
        assert_no_secret(&b.source().await, screen, &s.secrets);
    }
    compared
}

/// Hidden data never reaches the page, statistics included; the page says why.
async fn hidden_data_stays_hidden(b: &mut Browser, email: &str) {
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
}

/// MQL naming the hidden model finds nothing, as for a name that does not exist.
async fn mql_by_the_hidden_model_finds_nothing(b: &mut Browser, s: &Scene) {
    let number = s.hidden.model_id.rsplit('_').next().unwrap_or("0");
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
        assert_no_secret(&seen.body, page, &s.secrets);
    }
    b.shot("viewer-search").await;
}

/// A user without any right: every object answers as one that does not exist. Answers
/// how many addresses were compared.
async fn user_without_rights(t: &Target, b: &mut Browser, s: &Scene, tabs: &Tabs) -> usize {
    let (_, nobody, nobody_password) = new_user(t, "ui-nobody").await;
    b.find("#logout").await.click().await.expect("Log out");
    b.login(&nobody, &nobody_password).await;
    b.find("#signed-in-user").await;
    let mut everything = s.secrets.clone();
    everything.extend([
        s.own.model_name.clone(),
        s.lineage_model.clone(),
        s.output.clone(),
    ]);
    everything.extend(s.own_objects.iter().cloned());
    let mut compared = 0;
    for id in s
        .own_objects
        .iter()
        .chain(&s.hidden_objects)
        .chain([&s.output])
    {
        let urls = object_urls(&s.routes, id, &tabs[id]);
        compared +=
            hidden_answers_as_missing(b, "a user without rights", id, &urls, &everything).await;
    }
    for screen in &s.screens {
        let seen = b.fetch(screen).await;
        assert!(!seen.redirected, "{screen}");
        let without_output = seen.body.replace(&s.output, "");
        assert_no_secret(
            &without_output,
            &format!("{screen} as a user without rights"),
            &everything,
        );
    }
    b.goto("/ui/browse").await;
    b.find("main").await;
    assert_no_secret(&b.source().await, "browse as nobody", &everything);
    compared
}
