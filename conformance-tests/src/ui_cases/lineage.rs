//! The lineage screen: the graph and the table, of an import's lineage and of what
//! OpenLineage events made.

use serde_json::json;

use crate::browser::Browser;
use crate::harness::{Target, unique};

/// The sample model with lineage: the view `v_customer_orders` is fed by `customer` and
/// `orders` (and two of its columns by theirs), `orders` by `order_item`.
pub(super) async fn import_sample_with_lineage(t: &Target) -> crate::harness::Imported {
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

/// The titles of the lineage graph's edges (their names), joined by `|`.
async fn edge_titles(b: &Browser) -> String {
    let titles = b
        .run("return [...document.querySelectorAll('#lineage-graph .edge title')].map(t => t.textContent).join('|')")
        .await;
    titles.as_str().unwrap_or_default().to_owned()
}

/// The names of the lineage graph's nodes, as drawn.
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

pub(super) async fn lineage_graph_and_table(t: &Target, b: &mut Browser) {
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

/// Lineage that OpenLineage events made is drawn like any other: a dbt-like job reading
/// `orders` and writing `daily`, seen from `daily`'s lineage screen.
pub(super) async fn openlineage_lineage_on_the_object_page(t: &Target, b: &mut Browser) {
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
