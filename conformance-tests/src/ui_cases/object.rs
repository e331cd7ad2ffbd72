//! The object page: its tabs, and curation from it.

use serde_json::json;

use super::press;
use crate::browser::Browser;
use crate::harness::Target;

pub(super) async fn object_page_tabs(t: &Target, b: &mut Browser) {
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

/// Searches for `customer` and opens the table of that name from the exact matches.
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

/// Curation of a table from its object page, each step checked in the page and through
/// the API.
pub(super) async fn curation_from_the_object_page(t: &Target, b: &mut Browser) {
    t.import_sample().await;
    b.login(&t.user, &t.password).await;
    b.find("#signed-in-user").await;
    open_customer_table(b).await;
    let object = b.at().await;
    let id = object.trim_start_matches("/ui/objects/").to_owned();
    endorse_certify_watch(t, b, &id).await;
    description_in_markdown(t, b, &object, &id).await;
    label_added_and_removed(t, b, &id).await;
    term_linked_and_unlinked(b).await;
    comments_and_warnings(b, &object).await;
    sensitivity_label_proposed_and_approved(b, &object).await;
    data_class_proposed_and_approved(t, b, &id).await;
    workflow_step(b).await;
}

/// Endorse, certify, watch: each recorded as the API records it.
async fn endorse_certify_watch(t: &Target, b: &mut Browser, id: &str) {
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
}

/// The description, in Markdown, previewed as it is typed.
async fn description_in_markdown(t: &Target, b: &mut Browser, object: &str, id: &str) {
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
    let entity = t.entity(id).await;
    assert!(
        entity.text().contains("Customers who **ordered**"),
        "{}",
        entity.describe()
    );
}

/// A label added (MQL finds the object by it) and removed.
async fn label_added_and_removed(t: &Target, b: &mut Browser, id: &str) {
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
    assert!(labelled.text().contains(id), "{}", labelled.describe());
    press(b, "#labels button[aria-label='Remove label reviewed-2026']").await;
    assert!(
        b.all("#labels").await.is_empty() || !b.text("#labels").await.contains("reviewed-2026")
    );
}

/// A glossary term, found as it is typed, linked and unlinked.
async fn term_linked_and_unlinked(b: &mut Browser) {
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
}

/// Comments and warnings.
async fn comments_and_warnings(b: &mut Browser, object: &str) {
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
}

/// A sensitivity label proposed, then approved.
async fn sensitivity_label_proposed_and_approved(b: &mut Browser, object: &str) {
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
}

/// A data class proposed, then approved; MQL reads the review.
async fn data_class_proposed_and_approved(t: &Target, b: &mut Browser, id: &str) {
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
}

/// A workflow step.
async fn workflow_step(b: &mut Browser) {
    let step = b.text(".workflow-step").await;
    press(b, ".workflow-step").await;
    assert!(b.text("#flash-done").await.starts_with(&step));
    b.shot("classification").await;
}

/// The review status a classification tab shows for a label or data class
/// (`kind`: `label` or `class`).
async fn review_status_of(b: &Browser, kind: &str, name: &str) -> serde_json::Value {
    b.run(&format!(
        "return [...document.querySelectorAll('#{kind}-assignments tr')].find(r => r.cells[0].textContent === '{name}').cells[1].textContent"
    ))
    .await
}

/// The History tab lists a table's changes, each with a link to the overview as it was
/// then; that overview shows the old description under a banner; a model's Versions tab
/// compares its two versions, breaking changes first.
pub(super) async fn history_and_versions_on_the_object_page(t: &Target, b: &mut Browser) {
    let imported = t.import_sample().await;
    let table = t
        .entity(&format!("{}/Sales DB/sales/customer", imported.path))
        .await
        .ok()["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    for description in ["first", "second"] {
        crate::cases::history::set_description(t, &table, description).await;
    }
    t.import(
        crate::cases::history::changed_sample(),
        &[("modelId", &imported.model_id)],
    )
    .await
    .ok();
    b.login(&t.user, &t.password).await;
    let page = format!("/ui/objects/{}", crate::harness::encode_segment(&table));
    b.goto(&format!("{page}/history")).await;
    let changes = b.text("#history").await;
    for expect in ["Description", "first", "second", "Every customer."] {
        assert!(changes.contains(expect), "{expect}: {changes}");
    }
    let then = b
        .run("return [...document.querySelectorAll('#history tbody tr')].find(r => r.cells[4].textContent === 'first').querySelector('a.as-of-link').getAttribute('href')")
        .await;
    b.goto(
        then.as_str()
            .expect("a link to the object as of the first edit"),
    )
    .await;
    assert!(b.text("#as-of").await.contains("Shown as it was"));
    let overview = b.text("#tab-panel").await;
    assert!(overview.contains("first"), "{overview}");
    assert!(!overview.contains("Every customer."), "{overview}");
    b.shot("as-of").await;
    b.find("#as-of-now")
        .await
        .click()
        .await
        .expect("Show it now");
    b.wait_until("the page now", "!document.getElementById('as-of')")
        .await;
    assert!(b.text("#tab-panel").await.contains("Every customer."));

    let model = format!(
        "/ui/objects/{}/versions",
        crate::harness::encode_segment(&imported.model_id)
    );
    b.goto(&model).await;
    let rows = b
        .run("return document.querySelectorAll('#versions tbody tr').length")
        .await;
    assert_eq!(rows, json!(2), "{}", b.text("#tab-panel").await);
    assert!(b.text("#compare-counts").await.contains("4 breaking"));
    let first = b
        .run("return document.querySelector('#compare tbody tr').className")
        .await;
    assert_eq!(first, json!("breaking"), "breaking changes first");
    b.shot("versions").await;
    // A table has no Versions tab.
    b.goto(&format!("{page}/versions")).await;
    assert_eq!(b.text("h1").await, "Nothing here");
}

/// The "as of" switch: the search page searches the catalog as it was (its results open
/// as of then, "Search it now" comes back), the lineage tab reads the lineage then, and
/// a bad moment is said on the page.
pub(super) async fn as_of_switches_on_search_and_lineage(t: &Target, b: &mut Browser) {
    let imported = t.import_sample().await;
    let table = t
        .entity(&format!("{}/Sales DB/sales/customer", imported.path))
        .await
        .ok()["id"]
        .as_str()
        .expect("an id")
        .to_owned();
    crate::cases::history::set_description(t, &table, "described first").await;
    let between = lore_core::model::format_micros(&lore_core::model::now());
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    crate::cases::history::set_description(t, &table, "described second").await;
    b.login(&t.user, &t.password).await;

    let search = format!(
        "/ui/?q=customer&model={}",
        imported.model_id.trim_start_matches("-1_")
    );
    b.goto(&search).await;
    b.run(&format!(
        "document.querySelector('.as-of-switch').open = true; \
         document.getElementById('search-as-of').value = '{between}'; \
         document.getElementById('search-button').click(); return true"
    ))
    .await;
    b.wait_until(
        "the search as of a time",
        "!!document.getElementById('search-as-of-notice')",
    )
    .await;
    let results = b.text("#results").await;
    assert!(results.contains("described first"), "{results}");
    assert!(!results.contains("described second"), "{results}");
    let href = b
        .run("return document.querySelector('#results a.name').getAttribute('href')")
        .await;
    assert!(
        href.as_str().is_some_and(|h| h.contains("asOf=")),
        "a result opens as of the same moment: {href}"
    );
    b.shot("search-as-of").await;
    b.find("#search-now")
        .await
        .click()
        .await
        .expect("Search it now");
    b.wait_until(
        "the search now",
        "!document.getElementById('search-as-of-notice')",
    )
    .await;
    assert!(b.text("#results").await.contains("described second"));

    // The lineage tab as of the same moment, its switch keeping the view's settings.
    let page = format!("/ui/objects/{}", crate::harness::encode_segment(&table));
    b.goto(&format!("{page}/lineage?depth=2&asOf={between}"))
        .await;
    assert!(b.text("#as-of").await.contains("its lineage then"));
    let depth = b
        .run("return document.querySelector('#as-of-switch input[name=depth]').value")
        .await;
    assert_eq!(depth, json!("2"));
    let tabs = b
        .run("return [...document.querySelectorAll('#tabs a')].filter(a => a.href.includes('asOf=')).length")
        .await;
    assert_eq!(
        tabs,
        json!(2),
        "the overview and lineage tabs stay in the past"
    );

    // A moment that is neither a time nor a version is said, not a crash.
    b.goto("/ui/?q=customer&asOf=yesterday").await;
    let said = b.text("#search-error").await;
    assert!(said.contains("neither an RFC 3339 time"), "{said}");

    // Breaking changes upstream are said on the pages of what they reach.
    let total = crate::cases::history::broken_downstream(t).await;
    b.goto(&format!(
        "/ui/objects/{}",
        crate::harness::encode_segment(&total)
    ))
    .await;
    let told = b.text("#upstream-breaking").await;
    assert!(told.contains("salary (type changed)"), "{told}");
    b.shot("upstream-breaking").await;
}
