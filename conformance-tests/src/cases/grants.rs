//! Roles and grants (spec section 4.6, and `/admin/roles`): global and object roles
//! granted to users and groups, read back, inherited down the repository tree, revoked,
//! and carried through CSV files all or nothing.

use reqwest::Method;
use serde_json::{Value, json};

use super::denied::send_as;
use super::groups::{key_of, new_user};
use crate::harness::{
    Resp, Sample, Target, assert_error, assert_same_as_missing, cell, encode_segment, unique,
};

const GRANTS: &str = "/admin/grants";
const ROLES: &str = "/admin/roles";

fn roles_of(resp: &Resp) -> Vec<String> {
    let mut roles: Vec<String> = resp
        .ok_array()
        .iter()
        .map(|g| g["role"].as_str().expect("role").to_owned())
        .collect();
    roles.sort();
    roles
}

async fn grant_global(t: &Target, grantee: &str, roles: &[&str]) -> Resp {
    t.put(
        &format!("{GRANTS}/grantGlobalRoles"),
        &[],
        &json!({"grantee": grantee, "roles": roles}),
    )
    .await
}

/// A call any holder of ViewMetadata may make.
async fn reads_metadata(t: &Target, key: &str) -> bool {
    let resp = send_as(t, key, Method::GET, "/types/listProfiles", &[], None).await;
    match resp.status {
        200 => true,
        403 => false,
        _ => panic!("listing profiles: {}", resp.describe()),
    }
}

async fn upload_csv(t: &Target, path: &str, query: &[(&str, &str)], csv: &str) -> Resp {
    t.send(
        t.call(Method::POST, path)
            .await
            .query(query)
            .header("content-type", "text/csv")
            .body(csv.to_owned()),
    )
    .await
}

async fn download_csv(t: &Target, path: &str, query: &[(&str, &str)]) -> String {
    let resp = t.send(t.call(Method::POST, path).await.query(query)).await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    assert!(
        resp.content_type().starts_with("text/csv"),
        "{}",
        resp.describe()
    );
    resp.text()
}

pub async fn global_roles_grant_read_and_revoke(t: &Target) {
    let (ann, ann_name) = new_user(t, "ann").await;
    let key = key_of(t, &ann_name).await;
    assert!(!reads_metadata(t, &key).await, "a new user holds no role");
    let resp = grant_global(t, &ann, &["Metadata Viewer"]).await;
    assert_eq!(roles_of(&resp), ["Metadata Viewer"]);
    assert!(reads_metadata(t, &key).await, "the grant holds at once");

    // Through a group: the member holds the group's roles, `via` names it.
    let group = unique("Repository Managers");
    t.post(
        "/admin/groups",
        &[],
        &json!({"name": group, "members": [ann]}),
    )
    .await
    .ok();
    t.put(
        &format!("{GRANTS}/grantGlobalRoles"),
        &[],
        &json!({"grantee": group, "granteeType": "GROUP", "role": "Repository Manager"}),
    )
    .await
    .ok();
    let resp = t
        .get_q(
            &format!("{GRANTS}/getGlobalRoles"),
            &[("grantee", &ann_name)],
        )
        .await;
    assert_eq!(roles_of(&resp), ["Metadata Viewer", "Repository Manager"]);
    let via: Vec<&Value> = resp
        .ok_array()
        .iter()
        .filter(|g| g["role"] == json!("Repository Manager"))
        .map(|g| &g["via"]["name"])
        .collect();
    assert_eq!(via, [&json!(group)]);
    // The user reads their own roles without ManageRoles.
    let own = send_as(
        t,
        &key,
        Method::GET,
        &format!("{GRANTS}/getGlobalRoles"),
        &[],
        None,
    )
    .await;
    assert_eq!(roles_of(&own), ["Metadata Viewer", "Repository Manager"]);

    let resp = t
        .get_q(
            &format!("{GRANTS}/getGlobalGrantees"),
            &[("role", "Repository Manager")],
        )
        .await;
    assert!(
        resp.ok_array()
            .iter()
            .any(|g| g["grantee"]["name"] == json!(group) && g["grantee"]["type"] == json!("GROUP")),
        "{}",
        resp.describe()
    );
    let all = t.get(&format!("{GRANTS}/getGlobalGrantees")).await;
    assert!(
        all.ok_array()
            .iter()
            .any(|g| g["grantee"]["name"] == json!(t.user) && g["role"] == json!("Administrator")),
        "{}",
        all.describe()
    );

    // Revoked: the key loses the capability at once.
    let resp = t
        .put(
            &format!("{GRANTS}/revokeGlobalRole"),
            &[],
            &json!({"grantee": ann, "role": "Metadata Viewer"}),
        )
        .await;
    assert_eq!(resp.ok(), &json!(""), "{}", resp.describe());
    t.put(
        &format!("{GRANTS}/revokeGlobalRole"),
        &[],
        &json!({"grantee": group, "role": "Repository Manager"}),
    )
    .await
    .ok();
    assert!(!reads_metadata(t, &key).await);
}

pub async fn roles_define_list_and_delete(t: &Target) {
    let listed = t.get(ROLES).await;
    let roles = listed.ok()["roles"].as_array().expect("roles").clone();
    for builtin in ["Administrator", "Metadata Viewer", "Steward", "Owner"] {
        assert!(
            roles
                .iter()
                .any(|r| r["name"] == json!(builtin) && r["builtIn"] == json!(true)),
            "{builtin}: {}",
            listed.describe()
        );
    }
    assert!(
        listed.ok()["capabilities"]
            .as_array()
            .is_some_and(|c| c.contains(&json!("ViewData")))
    );
    let name = unique("Auditor");
    let resp = t
        .put(
            ROLES,
            &[],
            &json!({"name": name, "global": true, "capabilities": ["View Metadata", "ViewData"]}),
        )
        .await;
    assert_eq!(
        resp.ok()["capabilities"],
        json!(["ViewMetadata", "ViewData"])
    );
    let (user, user_name) = new_user(t, "auditor").await;
    grant_global(t, &user, &[&name]).await.ok();
    let key = key_of(t, &user_name).await;
    assert!(reads_metadata(t, &key).await);
    // Deleting the role takes its grants along.
    let resp = t.delete(&format!("{ROLES}/{name}"), &[]).await;
    assert_eq!(resp.ok(), &json!(""), "{}", resp.describe());
    assert!(!reads_metadata(t, &key).await);
    assert!(
        !t.get(ROLES).await.ok()["roles"]
            .as_array()
            .expect("roles")
            .iter()
            .any(|r| r["name"] == json!(name))
    );
}

pub async fn object_roles_are_inherited_and_revoked(t: &Target) {
    let (folder, folder_name) = t.unique_folder("Granted").await;
    let folder_path = encode_segment(&format!("/{folder_name}"));
    let inner = t.create(Some(&folder), &unique("Inner"), "Folder").await;
    let (user, user_name) = new_user(t, "olga").await;
    let resp = t
        .put(
            &format!("{GRANTS}/grantObjectRole/{folder}"),
            &[],
            &json!({"grantee": user_name, "role": "Steward"}),
        )
        .await;
    let held = resp.ok_array();
    assert_eq!(held.len(), 1, "{}", resp.describe());
    assert_eq!(held[0]["objectId"], json!(folder));
    assert_eq!(held[0]["inherited"], json!(false));

    // Below the folder the role is inherited; the user reads it without ManageRoles.
    let key = key_of(t, &user_name).await;
    let resp = send_as(
        t,
        &key,
        Method::GET,
        &format!("{GRANTS}/getObjectRoles/{inner}"),
        &[],
        None,
    )
    .await;
    let held = resp.ok_array();
    assert_eq!(held.len(), 1, "{}", resp.describe());
    assert_eq!(held[0]["role"], json!("Steward"));
    assert_eq!(held[0]["inherited"], json!(true));
    assert_eq!(held[0]["objectId"], json!(folder));
    // By path too.
    let resp = t
        .get_q(
            &format!("{GRANTS}/getObjectRoles/{folder_path}"),
            &[("grantee", &user)],
        )
        .await;
    assert_eq!(roles_of(&resp), ["Steward"]);

    let resp = t
        .get_q(
            &format!("{GRANTS}/getObjectGrantees/{inner}"),
            &[("role", "Steward")],
        )
        .await;
    assert!(
        resp.ok_array()
            .iter()
            .any(|g| g["grantee"]["id"] == json!(user) && g["inherited"] == json!(true)),
        "{}",
        resp.describe()
    );

    // Revoked on the folder: gone below it too.
    let resp = t
        .put(
            &format!("{GRANTS}/revokeObjectRole/{folder}"),
            &[],
            &json!({"grantee": user, "role": "Steward"}),
        )
        .await;
    assert_eq!(resp.ok(), &json!(""), "{}", resp.describe());
    let resp = t
        .get_q(
            &format!("{GRANTS}/getObjectRoles/{inner}"),
            &[("grantee", &user)],
        )
        .await;
    assert!(resp.ok_array().is_empty(), "{}", resp.describe());
}

pub async fn roles_csv_export_and_import_round_trip(t: &Target) {
    let (_, ann) = new_user(t, "csv-ann").await;
    let group = unique("CSV Group");
    t.post("/admin/groups", &[], &json!({"name": group}))
        .await
        .ok();
    let (folder, folder_name) = t.unique_folder("CsvFolder").await;
    let folder_path = format!("/{folder_name}");
    let csv = format!(
        "grantee,granteeType,role\n{ann},USER,Metadata Viewer\n\"{group}\",GROUP,Repository Manager\n"
    );
    let resp = upload_csv(t, &format!("{GRANTS}/importGlobalRolesCSV"), &[], &csv).await;
    assert_eq!(resp.ok()["added"], json!(2), "{}", resp.describe());
    assert_eq!(resp.ok()["lines"], json!(2));
    // Again: nothing new.
    let resp = upload_csv(t, &format!("{GRANTS}/importGlobalRolesCSV"), &[], &csv).await;
    assert_eq!(resp.ok()["unchanged"], json!(2), "{}", resp.describe());
    let exported = download_csv(t, &format!("{GRANTS}/exportGlobalRolesCSV"), &[]).await;
    assert!(
        exported.starts_with("grantee,granteeType,role\n"),
        "{exported}"
    );
    assert!(
        exported.contains(&format!("{ann},USER,Metadata Viewer")),
        "{exported}"
    );
    assert!(
        exported.contains(&format!("{group},GROUP,Repository Manager")),
        "{exported}"
    );

    // Object roles by path, exported with id and path.
    let csv = format!("objectPath,grantee,role\n{folder_path},{ann},Data Viewer\n");
    let resp = upload_csv(t, &format!("{GRANTS}/importObjectRolesCSV"), &[], &csv).await;
    assert_eq!(resp.ok()["added"], json!(1), "{}", resp.describe());
    let exported = download_csv(
        t,
        &format!("{GRANTS}/exportObjectRolesCSV"),
        &[("objectId", &folder)],
    )
    .await;
    assert_eq!(
        exported,
        format!(
            "objectId,objectPath,grantee,granteeType,role\n{folder},{folder_path},{ann},USER,Data Viewer\n"
        )
    );
    // Importing the export holds it as it is.
    let resp = upload_csv(t, &format!("{GRANTS}/importObjectRolesCSV"), &[], &exported).await;
    assert_eq!(resp.ok()["unchanged"], json!(1), "{}", resp.describe());

    // A replace import of the global roles with the current export changes nothing.
    let all = download_csv(t, &format!("{GRANTS}/exportGlobalRolesCSV"), &[]).await;
    let resp = upload_csv(
        t,
        &format!("{GRANTS}/importGlobalRolesCSV"),
        &[("replace", "true")],
        &all,
    )
    .await;
    assert_eq!(resp.ok()["removed"], json!(0), "{}", resp.describe());
    assert_eq!(resp.ok()["added"], json!(0), "{}", resp.describe());
}

/// A file with bad lines imports nothing, and the error names each bad line.
pub async fn roles_csv_bad_lines_import_nothing(t: &Target) {
    let (_, ann) = new_user(t, "csv-bad").await;
    let nobody = unique("nobody");
    let csv = format!(
        "grantee,role\n{ann},Metadata Viewer\n{nobody},Metadata Viewer\n{ann},No Such Role\n{ann},Steward\n"
    );
    let resp = upload_csv(t, &format!("{GRANTS}/importGlobalRolesCSV"), &[], &csv).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    for line in ["line 3", "line 4", "line 5"] {
        assert!(resp.message().contains(line), "{line}: {}", resp.describe());
    }
    assert!(!resp.message().contains("line 2"), "{}", resp.describe());
    let roles = t
        .get_q(&format!("{GRANTS}/getGlobalRoles"), &[("grantee", &ann)])
        .await;
    assert!(
        roles.ok_array().is_empty(),
        "nothing landed: {}",
        roles.describe()
    );

    for (csv, expected) in [
        ("", "REQUIRED_PARAMETER_NOT_SPECIFIED"),
        ("grantee,role,color\nann,Steward,red\n", "INVALID_PARAMETER"),
        ("grantee,granteeType\nann,USER\n", "INVALID_PARAMETER"),
        ("grantee,role\n", "INVALID_PARAMETER"),
        (
            "grantee,role\n\"unterminated,Steward\n",
            "INVALID_PARAMETER",
        ),
        ("grantee,role\nann\n", "INVALID_PARAMETER"),
    ] {
        let resp = upload_csv(t, &format!("{GRANTS}/importGlobalRolesCSV"), &[], csv).await;
        assert_error(&resp, 400, expected);
    }
    let csv = format!("objectId,grantee,role\n-1_999999999,{ann},Steward\n");
    let resp = upload_csv(t, &format!("{GRANTS}/importObjectRolesCSV"), &[], &csv).await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    assert!(resp.message().contains("line 2"), "{}", resp.describe());
    let resp = t
        .send(
            t.call(Method::POST, &format!("{GRANTS}/importGlobalRolesCSV"))
                .await
                .header("content-type", "application/json")
                .body("{}"),
        )
        .await;
    assert_error(&resp, 415, "UNSUPPORTED_MEDIA_TYPE");
    let resp = upload_csv(
        t,
        &format!("{GRANTS}/importObjectRolesCSV"),
        &[("replace", "perhaps")],
        "objectId,grantee,role\n",
    )
    .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
}

pub async fn grants_bad_input(t: &Target) {
    let (user, _) = new_user(t, "bad-grants").await;
    let nobody = unique("nobody");
    let folder = t.unique_folder("BadGrants").await.0;
    let put = |path: &'static str, body: Value| async move {
        t.put(&format!("{GRANTS}/{path}"), &[], &body).await
    };
    assert_error(
        &put("grantGlobalRoles", json!({"roles": ["Steward"]})).await,
        400,
        "REQUIRED_PARAMETER_NOT_SPECIFIED",
    );
    assert_error(
        &put("grantGlobalRoles", json!({"grantee": user})).await,
        400,
        "REQUIRED_PARAMETER_NOT_SPECIFIED",
    );
    assert_error(
        &put(
            "grantGlobalRoles",
            json!({"grantee": user, "role": "Steward"}),
        )
        .await,
        400,
        "INVALID_PARAMETER",
    );
    assert_error(
        &put(
            "grantGlobalRoles",
            json!({"grantee": nobody, "role": "Metadata Viewer"}),
        )
        .await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert_error(
        &put(
            "grantGlobalRoles",
            json!({"grantee": user, "role": "No Such Role"}),
        )
        .await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert_error(
        &put(
            "grantGlobalRoles",
            json!({"grantee": user, "granteeType": "ROBOT", "role": "Metadata Viewer"}),
        )
        .await,
        400,
        "INVALID_PARAMETER",
    );
    assert_error(
        &put(
            "revokeGlobalRole",
            json!({"grantee": user, "role": "Metadata Viewer"}),
        )
        .await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert_error(
        &put("revokeGlobalRole", json!({"grantee": user})).await,
        400,
        "REQUIRED_PARAMETER_NOT_SPECIFIED",
    );
    // The last administrator's role stays.
    assert_error(
        &put(
            "revokeGlobalRole",
            json!({"grantee": t.user, "role": "Administrator"}),
        )
        .await,
        400,
        "INVALID_PARAMETER",
    );
    assert_error(
        &t.get_q(&format!("{GRANTS}/getGlobalRoles"), &[("grantee", &nobody)])
            .await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert_error(
        &t.get_q(
            &format!("{GRANTS}/getGlobalRoles"),
            &[("grantee", &user), ("granteeType", "x")],
        )
        .await,
        400,
        "INVALID_PARAMETER",
    );
    assert_error(
        &t.get_q(&format!("{GRANTS}/getGlobalGrantees"), &[("role", &nobody)])
            .await,
        404,
        "OBJECT_NOT_FOUND",
    );
    // Object roles: a global role, a model object, unknown objects and bad ids.
    let object_put = |path: &'static str, object: String, body: Value| async move {
        t.put(&format!("{GRANTS}/{path}/{object}"), &[], &body)
            .await
    };
    assert_error(
        &object_put(
            "grantObjectRole",
            folder.clone(),
            json!({"grantee": user, "role": "Metadata Viewer"}),
        )
        .await,
        400,
        "INVALID_PARAMETER",
    );
    let imported = t.import_sample().await;
    let sample = Sample::load();
    let native = sample
        .objects
        .iter()
        .map(|row| cell(row, "native_id"))
        .find(|native| sample.path_is_unique(native))
        .expect("an object with a unique path");
    let model_object = encode_segment(&format!(
        "{}/{}",
        imported.path,
        sample.names_to(native).join("/")
    ));
    assert_error(
        &object_put(
            "grantObjectRole",
            model_object,
            json!({"grantee": user, "role": "Steward"}),
        )
        .await,
        400,
        "INVALID_PARAMETER",
    );
    assert_error(
        &object_put(
            "grantObjectRole",
            "-1_999999999".into(),
            json!({"grantee": user, "role": "Steward"}),
        )
        .await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert_error(
        &object_put(
            "grantObjectRole",
            "not an id!".into(),
            json!({"grantee": user, "role": "Steward"}),
        )
        .await,
        400,
        "INVALID_PARAMETER",
    );
    assert_error(
        &object_put(
            "grantObjectRole",
            folder.clone(),
            json!({"role": "Steward"}),
        )
        .await,
        400,
        "REQUIRED_PARAMETER_NOT_SPECIFIED",
    );
    assert_error(
        &object_put(
            "revokeObjectRole",
            folder.clone(),
            json!({"grantee": user, "role": "Steward"}),
        )
        .await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert_error(
        &object_put("revokeObjectRole", folder.clone(), json!({"grantee": user})).await,
        400,
        "REQUIRED_PARAMETER_NOT_SPECIFIED",
    );
    assert_error(
        &t.get(&format!("{GRANTS}/getObjectRoles/-1_999999999"))
            .await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert_error(
        &t.get_q(
            &format!("{GRANTS}/getObjectRoles/{folder}"),
            &[("grantee", &nobody)],
        )
        .await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert_error(
        &t.get(&format!("{GRANTS}/getObjectGrantees/-1_999999999"))
            .await,
        404,
        "OBJECT_NOT_FOUND",
    );
    assert_error(
        &t.get_q(
            &format!("{GRANTS}/getObjectGrantees/{folder}"),
            &[("role", &nobody)],
        )
        .await,
        404,
        "OBJECT_NOT_FOUND",
    );
    let resp = t
        .send(
            t.call(Method::POST, &format!("{GRANTS}/exportObjectRolesCSV"))
                .await
                .query(&[("objectId", "-1_999999999")]),
        )
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t
        .send(
            t.call(Method::POST, &format!("{GRANTS}/exportGlobalRolesCSV"))
                .await
                .query(&[("x", "y")]),
        )
        .await;
    assert_eq!(
        resp.status,
        200,
        "unknown parameters are ignored: {}",
        resp.describe()
    );
    for path in ["exportGlobalRolesCSV", "exportObjectRolesCSV"] {
        let resp = t
            .send(
                t.anon(Method::POST, &format!("{GRANTS}/{path}"))
                    .header("api-key", "not-a-key"),
            )
            .await;
        assert_error(&resp, 401, "AUTHENTICATION_ERROR");
    }
    // Roles: built-in ones stay, bad definitions are refused.
    for body in [
        json!({"name": "Administrator", "global": true, "capabilities": ["ViewMetadata"]}),
        json!({"name": unique("Empty"), "capabilities": []}),
        json!({"name": unique("Odd"), "capabilities": ["Fly"]}),
        json!({"capabilities": ["ViewMetadata"]}),
    ] {
        let resp = t.put(ROLES, &[], &body).await;
        assert!(resp.status == 400, "{body}: {}", resp.describe());
    }
    assert_error(
        &t.delete(&format!("{ROLES}/Steward"), &[]).await,
        400,
        "INVALID_PARAMETER",
    );
    assert_error(
        &t.delete(&format!("{ROLES}/{nobody}"), &[]).await,
        404,
        "OBJECT_NOT_FOUND",
    );
}

/// Without ManageRoles nobody grants; with ManageRoles but without Administer nobody
/// grants a role carrying capabilities they lack.
pub async fn grants_without_manage_roles_are_denied(t: &Target) {
    let (user, name) = new_user(t, "no-roles").await;
    let key = key_of(t, &name).await;
    let folder = t.unique_folder("DeniedGrants").await.0;
    let csv_global = "grantee,role\nsomeone,Metadata Viewer\n";
    let calls: Vec<(Method, String, Option<Value>)> = vec![
        (Method::GET, format!("{GRANTS}/getGlobalGrantees"), None),
        (
            Method::GET,
            format!("{GRANTS}/getGlobalRoles?grantee={}", t.user),
            None,
        ),
        (
            Method::PUT,
            format!("{GRANTS}/grantGlobalRoles"),
            Some(json!({"grantee": user, "role": "Metadata Viewer"})),
        ),
        (
            Method::PUT,
            format!("{GRANTS}/revokeGlobalRole"),
            Some(json!({"grantee": t.user, "role": "Administrator"})),
        ),
        (
            Method::GET,
            format!("{GRANTS}/getObjectGrantees/{folder}"),
            None,
        ),
        (
            Method::GET,
            format!("{GRANTS}/getObjectRoles/{folder}?grantee={}", t.user),
            None,
        ),
        (
            Method::PUT,
            format!("{GRANTS}/grantObjectRole/{folder}"),
            Some(json!({"grantee": user, "role": "Steward"})),
        ),
        (
            Method::PUT,
            format!("{GRANTS}/revokeObjectRole/{folder}"),
            Some(json!({"grantee": user, "role": "Steward"})),
        ),
        (Method::POST, format!("{GRANTS}/exportGlobalRolesCSV"), None),
        (Method::POST, format!("{GRANTS}/exportObjectRolesCSV"), None),
        (
            Method::PUT,
            ROLES.to_owned(),
            Some(json!({"name": unique("Mine"), "capabilities": ["ViewMetadata"]})),
        ),
        (Method::DELETE, format!("{ROLES}/Steward"), None),
    ];
    for (method, path, body) in calls {
        let resp = send_as(t, &key, method.clone(), &path, &[], body).await;
        assert_error(&resp, 403, "PERMISSION_DENIED");
    }
    for path in ["importGlobalRolesCSV", "importObjectRolesCSV"] {
        let csv = if path == "importGlobalRolesCSV" {
            csv_global.to_owned()
        } else {
            format!("objectId,grantee,role\n{folder},{name},Steward\n")
        };
        let resp = t
            .send(
                t.anon(Method::POST, &format!("{GRANTS}/{path}"))
                    .header("api-key", &key)
                    .header("content-type", "text/csv")
                    .body(csv),
            )
            .await;
        assert_error(&resp, 403, "PERMISSION_DENIED");
    }

    // A role manager without Administer: grants what they hold, not more.
    let manager_role = unique("Role Manager");
    t.put(
        ROLES,
        &[],
        &json!({"name": manager_role, "global": true, "capabilities": ["ManageRoles", "ViewMetadata"]}),
    )
    .await
    .ok();
    grant_global(t, &user, &[&manager_role]).await.ok();
    let key = key_of(t, &name).await;
    let resp = send_as(
        t,
        &key,
        Method::PUT,
        &format!("{GRANTS}/grantGlobalRoles"),
        &[],
        Some(json!({"grantee": user, "role": "Administrator"})),
    )
    .await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
    let (other, _) = new_user(t, "viewer-to-be").await;
    let resp = send_as(
        t,
        &key,
        Method::PUT,
        &format!("{GRANTS}/grantGlobalRoles"),
        &[],
        Some(json!({"grantee": other, "role": "Metadata Viewer"})),
    )
    .await;
    assert_eq!(roles_of(&resp), ["Metadata Viewer"]);

    // An Owner of a folder manages roles there, but not elsewhere.
    let (owner, owner_name) = new_user(t, "owner").await;
    t.put(
        &format!("{GRANTS}/grantObjectRole/{folder}"),
        &[],
        &json!({"grantee": owner, "role": "Owner"}),
    )
    .await
    .ok();
    let key = key_of(t, &owner_name).await;
    let resp = send_as(
        t,
        &key,
        Method::PUT,
        &format!("{GRANTS}/grantObjectRole/{folder}"),
        &[],
        Some(json!({"grantee": other, "role": "Data Viewer"})),
    )
    .await;
    assert_eq!(roles_of(&resp), ["Data Viewer"], "{}", resp.describe());
    // A folder the user cannot see is, to them, a folder that does not exist.
    let elsewhere = t.unique_folder("NotOwned").await.0;
    let missing = "-1_987654321";
    let mut answers = Vec::new();
    for id in [elsewhere.as_str(), missing] {
        let resp = send_as(
            t,
            &key,
            Method::PUT,
            &format!("{GRANTS}/grantObjectRole/{id}"),
            &[],
            Some(json!({"grantee": other, "role": "Data Viewer"})),
        )
        .await;
        answers.push(resp);
    }
    assert_error(&answers[0], 404, "OBJECT_NOT_FOUND");
    assert_same_as_missing(&answers[0], &elsewhere, &answers[1], missing);
}

/// A role granted to a group reaches its members in MQL too: `MembersOfRole` lists them
/// and `ExpandedMembersOfRole(...) = ME` finds what they hold it on, until the group is
/// disabled.
pub async fn roles_through_groups_reach_mql(t: &Target) {
    let imported = t.import_sample().await;
    let (user, name) = new_user(t, "member").await;
    let group = unique("Stewards of Sales");
    t.post(
        "/admin/groups",
        &[],
        &json!({"name": group, "members": [user]}),
    )
    .await
    .ok();
    t.put(
        &format!("{GRANTS}/grantObjectRole/{}", imported.model_id),
        &[],
        &json!({"grantee": group, "granteeType": "GROUP", "role": "Steward"}),
    )
    .await
    .ok();
    let listed = t
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({"select": "MembersOfRole('Steward')", "from": imported.path, "pageSize": 1}),
        )
        .await;
    assert!(
        listed.ok_array()[0]["attributes"][0]["value"]
            .to_string()
            .contains(&name),
        "{}",
        listed.describe()
    );
    let key = key_of(t, &name).await;
    let mine = send_as(
        t,
        &key,
        Method::GET,
        "/entities/countMQLQuery",
        &[
            ("select", "Name"),
            // The group holds its role on the model, not on its folder: the model's id
            // names it, its path (through a folder they cannot see) would not.
            ("from", &imported.model_id),
            ("where", "ExpandedMembersOfRole('Steward') = ME"),
        ],
        None,
    )
    .await;
    assert_eq!(mine.ok(), &json!(45), "{}", mine.describe());

    // Disabled, the group's role holds for nobody.
    t.put(
        "/admin/groups",
        &[],
        &json!({"name": group, "enabled": false}),
    )
    .await
    .ok();
    let listed = t
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({"select": "MembersOfRole('Steward')", "from": imported.path, "pageSize": 1}),
        )
        .await;
    assert!(
        !listed.ok_array()[0]["attributes"][0]["value"]
            .to_string()
            .contains(&name),
        "{}",
        listed.describe()
    );
    let resp = send_as(
        t,
        &key,
        Method::GET,
        "/entities/countMQLQuery",
        &[("select", "Name"), ("from", &imported.path)],
        None,
    )
    .await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
}
