//! Accessibility: axe-core on every screen the suite visits, signed in and out.

use serde_json::json;

use super::lineage::import_sample_with_lineage;
use super::{id_where, new_user, offered_tabs};
use crate::browser::Browser;
use crate::harness::Target;

/// axe-core on every screen the suite visits, as the administrator and as a user who is
/// no administrator (Steward of the model, so its forms show), signed out too: the
/// login form, each screen of the menu, the administration pages (a refusal for the
/// steward), each tab the object page offers for a model, a table with lineage, a
/// column and a glossary term, the edit form, the lineage table, the side panel, the
/// logout page and the page for an address that names nothing.
pub(super) async fn every_screen_is_accessible(t: &Target, b: &mut Browser) {
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
