//! Browsing: the repository's tree down to a column, and the glossary's pages.

use serde_json::json;

use crate::browser::Browser;
use crate::harness::Target;

pub(super) async fn browse_to_a_column(t: &Target, b: &mut Browser) {
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

pub(super) async fn glossary_pages(t: &Target, b: &mut Browser) {
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
