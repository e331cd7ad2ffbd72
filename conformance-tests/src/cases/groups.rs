//! Groups (`/admin/groups`): administrators create, list, change, disable and delete
//! groups and manage their members; a member reads their own groups.

use reqwest::Method;
use serde_json::{Value, json};

use super::denied::send_as;
use crate::harness::{Resp, Target, assert_error, unique};

const GROUPS: &str = "/admin/groups";

/// A new user with a password; returns (id, name).
pub(crate) async fn new_user(t: &Target, prefix: &str) -> (String, String) {
    let name = unique(prefix);
    let resp = t
        .post(
            "/admin/users",
            &[],
            &json!({"name": name, "password": "long-enough"}),
        )
        .await;
    let id = resp.ok()["id"].as_str().expect("id").to_owned();
    (id, name)
}

/// The key of a user created by [`new_user`].
pub(crate) async fn key_of(t: &Target, name: &str) -> String {
    let resp = t
        .send(
            t.anon(Method::POST, "/auth/login")
                .json(&json!({"user": name, "password": "long-enough"})),
        )
        .await;
    resp.ok()["token"]
        .as_str()
        .unwrap_or_else(|| panic!("a key: {}", resp.describe()))
        .to_owned()
}

fn member_names(group: &Value) -> Vec<String> {
    group["members"]
        .as_array()
        .unwrap_or_else(|| panic!("members: {group}"))
        .iter()
        .map(|m| m["name"].as_str().expect("member name").to_owned())
        .collect()
}

fn ids(resp: &Resp) -> Vec<String> {
    resp.ok_array()
        .iter()
        .map(|g| g["id"].as_str().expect("id").to_owned())
        .collect()
}

pub async fn groups_create_list_get_update_delete(t: &Target) {
    let (ann, ann_name) = new_user(t, "ann").await;
    let (_, bob_name) = new_user(t, "bob").await;
    let name = unique("Stewards");
    let resp = t
        .post(
            GROUPS,
            &[],
            &json!({"name": name, "description": "Data stewards", "members": [ann.clone()]}),
        )
        .await;
    let group = resp.ok().clone();
    let id = group["id"].as_str().expect("id").to_owned();
    assert!(id.starts_with("-1_"), "{group}");
    assert_eq!(group["enabled"], json!(true));
    assert_eq!(member_names(&group), [ann_name.as_str()]);

    assert!(ids(&t.get(GROUPS).await).contains(&id));
    for reference in [id.as_str(), name.as_str()] {
        let resp = t.get(&format!("{GROUPS}/{reference}")).await;
        assert_eq!(resp.ok()["id"], json!(id), "{}", resp.describe());
    }

    // Members: add by name, then replace the list, then remove one.
    let resp = t
        .post(
            &format!("{GROUPS}/{id}/members"),
            &[],
            &json!({"users": [bob_name.clone(), ann.clone()]}),
        )
        .await;
    let mut both = vec![ann_name.clone(), bob_name.clone()];
    both.sort_by_key(|n| n.to_lowercase());
    assert_eq!(member_names(resp.ok()), both);
    let resp = t
        .put(
            GROUPS,
            &[],
            &json!({"name": name, "description": "Stewards of the lake", "members": [bob_name.clone()]}),
        )
        .await;
    assert_eq!(resp.ok()["description"], json!("Stewards of the lake"));
    assert_eq!(member_names(resp.ok()), [bob_name.as_str()]);
    let resp = t
        .delete(&format!("{GROUPS}/{id}/members/{bob_name}"), &[])
        .await;
    assert!(member_names(resp.ok()).is_empty(), "{}", resp.describe());

    // A member reads their own groups, and the group.
    t.post(
        &format!("{GROUPS}/{id}/members"),
        &[],
        &json!({"users": [ann]}),
    )
    .await
    .ok();
    let key = key_of(t, &ann_name).await;
    let mine = send_as(t, &key, Method::GET, GROUPS, &[("member", &ann)], None).await;
    assert_eq!(ids(&mine), [id.as_str()]);
    let resp = send_as(t, &key, Method::GET, &format!("{GROUPS}/{id}"), &[], None).await;
    assert_eq!(resp.ok()["name"], json!(name));

    // Disabled and renamed; the enabled filter sees it.
    let renamed = unique("Curators");
    let resp = t
        .put(
            GROUPS,
            &[],
            &json!({"id": id, "newName": renamed, "enabled": false}),
        )
        .await;
    assert_eq!(resp.ok()["name"], json!(renamed));
    assert!(ids(&t.get_q(GROUPS, &[("enabled", "false")]).await).contains(&id));
    assert!(!ids(&t.get_q(GROUPS, &[("enabled", "true")]).await).contains(&id));

    // Deleted: gone, and no longer among the user's groups.
    let resp = t.delete(&format!("{GROUPS}/{id}"), &[]).await;
    assert_eq!(resp.ok(), &json!(""), "{}", resp.describe());
    assert_error(
        &t.get(&format!("{GROUPS}/{id}")).await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert!(ids(&t.get_q(GROUPS, &[("member", &ann_name)]).await).is_empty());
}

pub async fn groups_bad_input(t: &Target) {
    assert_error(
        &t.post(GROUPS, &[], &json!({"description": "no name"}))
            .await,
        400,
        "REQUIRED_PARAMETER_NOT_SPECIFIED",
    );
    for name in ["", " padded", "tab\there"] {
        assert_error(
            &t.post(GROUPS, &[], &json!({"name": name})).await,
            400,
            "INVALID_PARAMETER",
        );
    }
    let nobody = unique("nobody");
    let name = unique("Group");
    assert_error(
        &t.post(GROUPS, &[], &json!({"name": name, "members": [nobody]}))
            .await,
        404,
        "OBJECT_NOT_FOUND",
    );
    // The failed create wrote nothing.
    assert_error(
        &t.get(&format!("{GROUPS}/{name}")).await,
        404,
        "OBJECT_NOT_FOUND",
    );
    let id = t.post(GROUPS, &[], &json!({"name": name})).await.ok()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    assert_error(
        &t.post(GROUPS, &[], &json!({"name": name.to_uppercase()}))
            .await,
        409,
        "CONFLICT",
    );
    assert_error(
        &t.get_q(GROUPS, &[("enabled", "maybe")]).await,
        400,
        "INVALID_PARAMETER",
    );
    assert_error(
        &t.get_q(GROUPS, &[("member", &nobody)]).await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert_error(
        &t.get(&format!("{GROUPS}/{nobody}")).await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert_error(
        &t.put(GROUPS, &[], &json!({"description": "no id"})).await,
        400,
        "REQUIRED_PARAMETER_NOT_SPECIFIED",
    );
    assert_error(
        &t.put(GROUPS, &[], &json!({"id": id, "newName": " "})).await,
        400,
        "INVALID_PARAMETER",
    );
    assert_error(
        &t.put(GROUPS, &[], &json!({"id": id, "members": [nobody]}))
            .await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert_error(
        &t.post(
            &format!("{GROUPS}/{id}/members"),
            &[],
            &json!({"users": []}),
        )
        .await,
        400,
        "REQUIRED_PARAMETER_NOT_SPECIFIED",
    );
    assert_error(
        &t.post(
            &format!("{GROUPS}/{nobody}/members"),
            &[],
            &json!({"users": [t.user]}),
        )
        .await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert_error(
        &t.post(
            &format!("{GROUPS}/{id}/members"),
            &[],
            &json!("not an object"),
        )
        .await,
        400,
        "INVALID_PARAMETER",
    );
    // Removing a user who is no member.
    assert_error(
        &t.delete(&format!("{GROUPS}/{id}/members/{}", t.user), &[])
            .await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert_error(
        &t.delete(&format!("{GROUPS}/{nobody}"), &[]).await,
        404,
        "OBJECT_NOT_FOUND",
    );
}

/// A user without the Administer capability manages no group and reads only their own.
pub async fn groups_without_administer_are_denied(t: &Target) {
    let (_, name) = new_user(t, "dora").await;
    let key = key_of(t, &name).await;
    let group = t
        .post(GROUPS, &[], &json!({"name": unique("Others")}))
        .await
        .ok()["id"]
        .as_str()
        .expect("id")
        .to_owned();
    let calls: [(Method, String, Option<Value>); 7] = [
        (Method::GET, GROUPS.to_owned(), None),
        (
            Method::POST,
            GROUPS.to_owned(),
            Some(json!({"name": unique("Mine")})),
        ),
        (
            Method::PUT,
            GROUPS.to_owned(),
            Some(json!({"id": group, "description": "x"})),
        ),
        (Method::GET, format!("{GROUPS}/{group}"), None),
        (Method::DELETE, format!("{GROUPS}/{group}"), None),
        (
            Method::POST,
            format!("{GROUPS}/{group}/members"),
            Some(json!({"users": [name]})),
        ),
        (
            Method::DELETE,
            format!("{GROUPS}/{group}/members/{}", t.user),
            None,
        ),
    ];
    for (method, path, body) in calls {
        let resp = send_as(t, &key, method.clone(), &path, &[], body).await;
        assert_error(&resp, 403, "PERMISSION_DENIED");
    }
    let resp = send_as(t, &key, Method::GET, GROUPS, &[("member", &t.user)], None).await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
    let resp = t.get(&format!("{GROUPS}/{group}")).await;
    assert_eq!(resp.ok()["description"], json!(""));
}
