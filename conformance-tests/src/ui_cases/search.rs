//! The search screen: results, facets, the MQL of a search, its CSV and a worksheet.

use serde_json::{Value, json};

use super::press;
use crate::browser::Browser;
use crate::harness::Target;

/// A search from the box, narrowed by a facet, as MQL, as CSV and as a worksheet.
pub(super) async fn search_facets_and_mql(t: &Target, b: &mut Browser) {
    t.import_sample().await;
    b.login(&t.user, &t.password).await;
    b.find("#search-text").await;
    slash_focuses_the_box(b).await;
    search_for_customer(b).await;
    facets_count_as_the_api_does(t, b).await;
    a_facet_narrows_the_results(b).await;
    mql_shown_validated_and_run(b).await;
    csv_of_the_results(b).await;
    saved_as_a_worksheet(t, b).await;

    // And back to the search.
    b.find("#back-to-search").await.click().await.expect("back");
    b.find("#search-text").await;
    assert_eq!(b.at().await, "/ui/");
}

/// `/` focuses the box from anywhere on the page.
async fn slash_focuses_the_box(b: &mut Browser) {
    b.run("document.activeElement.blur(); document.body.dispatchEvent(new KeyboardEvent('keydown', {key: '/', bubbles: true}));")
        .await;
    let focused = b.run("return document.activeElement.id").await;
    assert_eq!(focused, json!("search-text"));
}

/// A search for `customer`: its results, the table of that name first.
async fn search_for_customer(b: &mut Browser) {
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
}

/// Each facet shows what getAttributeValueCounts answers for it alone (the page
/// counts the facets that share a filter in one call).
async fn facets_count_as_the_api_does(t: &Target, b: &mut Browser) {
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
}

/// A facet narrows the results; its URL says so.
async fn a_facet_narrows_the_results(b: &mut Browser) {
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
}

/// The MQL of the search, shown, validated as typed, and run.
async fn mql_shown_validated_and_run(b: &mut Browser) {
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
}

/// CSV of the same results.
async fn csv_of_the_results(b: &mut Browser) {
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
}

/// Saved as a worksheet, and run again from the list.
async fn saved_as_a_worksheet(t: &Target, b: &mut Browser) {
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
}
