//! The repository as it was: `repositoryBrowse`, `listModels` and `getContext` with
//! `asOf`.

use serde_json::{Value, json};

use crate::harness::{Target, assert_error};

/// The ids of a repositoryBrowse tree, at any depth.
pub(crate) fn tree_ids(links: &Value, into: &mut Vec<String>) {
    for node in links.as_array().into_iter().flatten() {
        if let Some(id) = node["id"].as_str() {
            into.push(id.to_owned());
        }
        tree_ids(&node["links"], into);
    }
}

/// The ids of the repository tree from the root, as of a time when given.
async fn browsed(t: &Target, as_of: Option<&str>) -> Vec<String> {
    let mut query = vec![("repositoryPath", "/")];
    query.extend(as_of.map(|a| ("asOf", a)));
    let resp = t.get_q("/operations/repositoryBrowse", &query).await;
    let mut ids = Vec::new();
    tree_ids(&resp.ok()["links"], &mut ids);
    ids
}

/// The ids listModels answers, as of a time when given.
async fn models(t: &Target, as_of: Option<&str>) -> Vec<String> {
    let query: Vec<(&str, &str)> = as_of.map(|a| ("asOf", a)).into_iter().collect();
    let resp = t.get_q("/configuration/listModels", &query).await;
    resp.ok_array()
        .iter()
        .filter_map(|m| m["id"].as_str().map(str::to_owned))
        .collect()
}

/// The browse calls as of a time: repositoryBrowse, listModels and getContext read the
/// repository as it was (a model and its folder made later are not there, the earlier
/// ones are, with their ancestors); without `asOf`, today's.
pub async fn browse_calls_are_read_as_of(t: &Target) {
    let earlier = t.import_sample().await;
    // The time before the second import, to the microsecond.
    let before = lore_core::model::format_micros(&lore_core::model::now());
    tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    let later = t.import_sample().await;

    let now = browsed(t, None).await;
    let then = browsed(t, Some(&before)).await;
    for id in [&earlier.model_id, &earlier.folder_id] {
        assert!(now.contains(id) && then.contains(id), "{id}: {then:?}");
    }
    for id in [&later.model_id, &later.folder_id] {
        assert!(now.contains(id), "{id} now");
        assert!(!then.contains(id), "{id} was made later: {then:?}");
    }
    let below = t
        .get_q(
            "/operations/repositoryBrowse",
            &[
                (
                    "repositoryPath",
                    &format!("/{}", earlier.path.split('/').nth(1).expect("a folder")),
                ),
                ("asOf", &before),
            ],
        )
        .await;
    let mut ids = Vec::new();
    tree_ids(&below.ok()["links"], &mut ids);
    assert_eq!(
        ids,
        std::slice::from_ref(&earlier.model_id),
        "below a folder as it was"
    );
    let gone = t
        .get_q(
            "/operations/repositoryBrowse",
            &[
                (
                    "repositoryPath",
                    &format!("/{}", later.path.split('/').nth(1).expect("a folder")),
                ),
                ("asOf", &before),
            ],
        )
        .await;
    assert_eq!(gone.status, 404, "a folder made later: {}", gone.describe());

    let now = models(t, None).await;
    let then = models(t, Some(&before)).await;
    assert!(now.contains(&later.model_id) && now.contains(&earlier.model_id));
    assert!(then.contains(&earlier.model_id), "{then:?}");
    assert!(!then.contains(&later.model_id), "{then:?}");

    let context = |id: String, as_of: Option<String>| async move {
        let mut query = vec![("objectId", id)];
        query.extend(as_of.map(|a| ("asOf", a)));
        let query: Vec<(&str, &str)> = query.iter().map(|(k, v)| (*k, v.as_str())).collect();
        t.get_q("/repository/getContext", &query).await
    };
    let now = context(earlier.model_id.clone(), None).await;
    let then = context(earlier.model_id.clone(), Some(before.clone())).await;
    assert_eq!(then.ok(), now.ok(), "the ancestors then are today's");
    assert_eq!(then.ok_array()[0]["id"], json!(earlier.folder_id));
    let not_then = context(later.model_id.clone(), Some(before.clone())).await;
    assert_error(&not_then, 404, "OBJECT_NOT_FOUND");
}

/// An `asOf` of a browse call that is not a time or a version, or in the future, is
/// refused with INVALID_PARAMETER; a folder passed as a configuration too.
pub async fn browse_as_of_bad_input_is_refused(t: &Target) {
    let imported = t.import_sample().await;
    for bad in ["soon", "2999-01-01T00:00:00Z"] {
        let resp = t
            .get_q(
                "/operations/repositoryBrowse",
                &[("repositoryPath", "/"), ("asOf", bad)],
            )
            .await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
        let resp = t.get_q("/configuration/listModels", &[("asOf", bad)]).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
        let resp = t
            .get_q(
                "/repository/getContext",
                &[("objectId", &imported.model_id), ("asOf", bad)],
            )
            .await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
    }
    let now = lore_core::model::format_micros(&lore_core::model::now());
    let resp = t
        .get_q(
            "/configuration/listModels",
            &[("configurationId", &imported.folder_id), ("asOf", &now)],
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
}
