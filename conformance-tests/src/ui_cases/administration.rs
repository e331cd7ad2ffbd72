//! The administration pages: users, groups, global and object roles, an import and its
//! runs, the system log and the notification deliveries.

use serde_json::json;

use super::{new_user, press};
use crate::browser::Browser;
use crate::harness::{Imported, Target, unique};

/// The administration pages, step by step as an administrator, then refused to a user
/// without the capability.
pub(super) async fn administration_grants_and_an_import(t: &Target, b: &mut Browser) {
    let sample = t.import_sample().await;
    b.login(&t.user, &t.password).await;
    b.find("#admin-link")
        .await
        .click()
        .await
        .expect("Administration");
    b.find("#new-user").await;
    let name = user_created_disabled_and_enabled(t, b).await;
    group_with_a_global_role(b, &name).await;
    object_role_granted_and_revoked(t, b, &sample, &name).await;
    import_run_from_the_page(t, b, &sample).await;
    import_from_the_models_page(b, &sample).await;
    system_log_and_deliveries(t, b).await;
    refused_without_the_capability(t, b).await;
}

/// A user, created, disabled and enabled again. Answers their name.
async fn user_created_disabled_and_enabled(t: &Target, b: &mut Browser) -> String {
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
    name
}

/// A group with the user, and a global role for the group.
async fn group_with_a_global_role(b: &mut Browser, name: &str) {
    b.goto("/ui/admin/groups").await;
    let group = unique("ui-group");
    b.find("#new-group-name")
        .await
        .send_keys(&group)
        .await
        .expect("typing");
    b.find("#new-group-members")
        .await
        .send_keys(name)
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
}

/// An object role granted from the model's page, and revoked.
async fn object_role_granted_and_revoked(
    t: &Target,
    b: &mut Browser,
    sample: &Imported,
    name: &str,
) {
    b.goto(&format!("/ui/objects/{}/access", sample.model_id))
        .await;
    b.find("#object-grantee")
        .await
        .send_keys(name)
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
    assert!(b.text("#object-grants").await.contains(name));
    let held = t
        .get(&format!(
            "/admin/grants/getObjectGrantees/{}",
            sample.model_id
        ))
        .await;
    assert!(held.text().contains(name), "{}", held.describe());
    press(
        b,
        &format!("#object-grants button[aria-label='Revoke {object_role} from {name}']"),
    )
    .await;
    assert!(!b.text("#object-grants").await.contains(name));
}

/// An import run from the page, followed until it ends, with its log.
async fn import_run_from_the_page(t: &Target, b: &mut Browser, sample: &Imported) {
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
}

/// The model's own page: its import settings, run again from there, and its runs.
async fn import_from_the_models_page(b: &mut Browser, sample: &Imported) {
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
}

/// The system log and the notification deliveries.
async fn system_log_and_deliveries(t: &Target, b: &mut Browser) {
    t.flush_system_log().await;
    b.goto("/ui/admin/log").await;
    assert!(!b.all("#system-log tbody tr").await.is_empty());
    b.goto("/ui/admin/deliveries").await;
    b.find("#deliveries").await;
}

/// A user without the capability gets the API's refusal, and no menu item.
async fn refused_without_the_capability(t: &Target, b: &mut Browser) {
    let (viewer, viewer_name, password) = new_user(t, "ui-plain").await;
    let _ = viewer;
    b.find("#logout").await.click().await.expect("Log out");
    b.login(&viewer_name, &password).await;
    b.find("#signed-in-user").await;
    assert!(b.all("#admin-link").await.is_empty());
    b.goto("/ui/admin/users").await;
    assert_eq!(b.text("h1").await, "Not allowed");
}
