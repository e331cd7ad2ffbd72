//! Object roles decide what a user sees: two users with View Metadata on different
//! parts of the repository, every listing endpoint compared with what each may see.

use std::collections::BTreeSet;

use reqwest::Method;
use serde_json::{Value, json};

use super::denied::send_as;
use super::groups::{key_of, new_user};
use crate::harness::{Imported, Resp, Target, assert_error, assert_same_as_missing, unique};

/// An object id and a model name that name nothing.
const MISSING_ID: &str = "-1_987654321";
const MISSING_NAME: &str = "NoSuchModel-4f1c";

fn ids_of(resp: &Resp) -> BTreeSet<String> {
    resp.ok_array()
        .iter()
        .map(|e| {
            e["attributes"][0]["value"]
                .as_str()
                .unwrap_or_else(|| panic!("an id first in {}", resp.describe()))
                .to_owned()
        })
        .collect()
}

async fn as_user(
    t: &Target,
    key: &str,
    method: Method,
    path: &str,
    query: &[(&str, &str)],
    body: Option<Value>,
) -> Resp {
    send_as(t, key, method, path, query, body).await
}

/// What the administrator finds in one model: the model and its objects.
async fn model_ids(t: &Target, model: &Imported) -> BTreeSet<String> {
    let resp = t
        .post(
            "/entities/executeMQLQuery",
            &[],
            &json!({"select": "\"Object Id\"", "from": model.path, "pageSize": 1000}),
        )
        .await;
    ids_of(&resp)
}

pub async fn object_grants_limit_what_each_user_sees(t: &Target) {
    let a = t.import_sample().await;
    let b = t.import_sample().await;
    let (alice, alice_name) = new_user(t, "alice").await;
    let (bob, bob_name) = new_user(t, "bob").await;
    // Alice sees folder A and what is in it; Bob sees model B, not its folder.
    for (object, user, role) in [
        (&a.folder_id, &alice, "Viewer"),
        (&b.model_id, &bob, "Data Viewer"),
    ] {
        t.put(
            &format!("/admin/grants/grantObjectRole/{object}"),
            &[],
            &json!({"grantee": user, "role": role}),
        )
        .await
        .ok();
    }
    let alice_key = key_of(t, &alice_name).await;
    let bob_key = key_of(t, &bob_name).await;

    for (who, key, own, other) in [("alice", &alice_key, &a, &b), ("bob", &bob_key, &b, &a)] {
        let expected = model_ids(t, own).await;
        assert_eq!(expected.len(), 45, "the model and its 44 objects");

        // executeMQLQuery without FROM: exactly the objects of the visible model.
        let resp = as_user(
            t,
            key,
            Method::POST,
            "/entities/executeMQLQuery",
            &[],
            Some(json!({"select": "\"Object Id\"", "pageSize": 1000})),
        )
        .await;
        assert_eq!(ids_of(&resp), expected, "{who}: {}", resp.describe());
        // Pages cut the visible objects: the fifth page of ten holds the last five.
        let resp = as_user(
            t,
            key,
            Method::POST,
            "/entities/executeMQLQuery",
            &[],
            Some(json!({"select": "\"Object Id\"", "pageSize": 10, "pageNumber": 5})),
        )
        .await;
        assert_eq!(ids_of(&resp).len(), 5, "{who}: {}", resp.describe());
        // FROM the other model is FROM a path that names nothing.
        let missing_path = other.path.replace(&other.model_name, MISSING_NAME);
        let mut answers = Vec::new();
        for from in [&other.path, &missing_path] {
            answers.push(
                as_user(
                    t,
                    key,
                    Method::POST,
                    "/entities/executeMQLQuery",
                    &[],
                    Some(json!({"select": "\"Object Id\"", "from": from})),
                )
                .await,
            );
        }
        assert_error(&answers[0], 404, "INVALID_REPOSITORY_PATH");
        assert_same_as_missing(&answers[0], &other.model_name, &answers[1], MISSING_NAME);

        // countMQLQuery, with and without FROM.
        let mut answers = Vec::new();
        for from in [&other.path, &missing_path] {
            answers.push(
                as_user(
                    t,
                    key,
                    Method::GET,
                    "/entities/countMQLQuery",
                    &[("select", "Name"), ("from", from)],
                    None,
                )
                .await,
            );
        }
        assert_same_as_missing(&answers[0], &other.model_name, &answers[1], MISSING_NAME);
        // Bob's model sits in a folder he cannot see: to him its path names nothing (the
        // folder does not exist for him), and its id names the model.
        let own_from = if who == "alice" {
            own.path.as_str()
        } else {
            own.model_id.as_str()
        };
        if who == "bob" {
            let missing_folder = own.path.replacen("/sample-folder", "/NoSuchFolder", 1);
            let mut answers = Vec::new();
            for from in [&own.path, &missing_folder] {
                answers.push(
                    as_user(
                        t,
                        key,
                        Method::GET,
                        "/entities/countMQLQuery",
                        &[("select", "Name"), ("from", from)],
                        None,
                    )
                    .await,
                );
            }
            assert_same_as_missing(&answers[0], &own.path, &answers[1], &missing_folder);
        }
        for (from, count) in [(None, 45), (Some(own_from), 45)] {
            let mut query = vec![("select", "Name")];
            if let Some(from) = from {
                query.push(("from", from));
            }
            let resp = as_user(t, key, Method::GET, "/entities/countMQLQuery", &query, None).await;
            assert_eq!(
                resp.ok(),
                &json!(count),
                "{who} {from:?}: {}",
                resp.describe()
            );
        }

        // Facets count only visible objects.
        let resp = as_user(
            t,
            key,
            Method::POST,
            "/entities/getAttributeValueCounts",
            &[],
            Some(json!({"select": "\"Object Type\""})),
        )
        .await;
        let total: u64 = resp.ok_array()[0]["values"]
            .as_array()
            .expect("values")
            .iter()
            .map(|v| v["count"].as_u64().expect("count"))
            .sum();
        assert_eq!(total, 45, "{who}: {}", resp.describe());

        // listModels: the visible model alone.
        let resp = as_user(t, key, Method::GET, "/configuration/listModels", &[], None).await;
        let models: Vec<&Value> = resp.ok_array().iter().map(|m| &m["id"]).collect();
        assert_eq!(models, [&json!(own.model_id)], "{who}: {}", resp.describe());

        // Entities, context and export: the own model yes, the other no.
        let resp = as_user(
            t,
            key,
            Method::GET,
            &format!("/entities/{}", own.model_id),
            &[],
            None,
        )
        .await;
        assert_eq!(resp.ok()["id"], json!(own.model_id), "{who}");
        for route in ["/entities", "/relationships/count"] {
            let mut answers = Vec::new();
            for id in [other.model_id.as_str(), MISSING_ID] {
                let path = format!("{route}/{id}");
                answers.push(as_user(t, key, Method::GET, &path, &[], None).await);
            }
            assert_error(&answers[0], 404, "OBJECT_NOT_FOUND");
            assert_same_as_missing(&answers[0], &other.model_id, &answers[1], MISSING_ID);
        }
        let mut answers = Vec::new();
        for model in [own.model_id.as_str(), other.model_id.as_str(), MISSING_ID] {
            let resp = t
                .send(
                    t.anon(Method::POST, "/repository/model/export")
                        .header("api-key", key.as_str())
                        .query(&[("modelId", model)]),
                )
                .await;
            answers.push(resp);
        }
        assert_eq!(
            answers[0].status,
            200,
            "{who} exporting: {}",
            answers[0].describe()
        );
        assert_same_as_missing(&answers[1], &other.model_id, &answers[2], MISSING_ID);
        // A script names the model by its path when every folder on it is visible, by
        // its id otherwise: Bob never reads his folder's name.
        let resp = as_user(
            t,
            key,
            Method::POST,
            "/dataMapping/exportScript",
            &[
                ("sourceModelId", own.model_id.as_str()),
                ("targetModelId", own.model_id.as_str()),
            ],
            None,
        )
        .await;
        assert_eq!(resp.status, 200, "{who}: {}", resp.describe());
        let folder = own.path.rsplit_once('/').map_or("", |(f, _)| f);
        assert_eq!(
            resp.text().contains(folder),
            who == "alice",
            "{who}'s script: {}",
            resp.text()
        );
        if who == "bob" {
            assert!(resp.text().contains(&own.model_id), "{}", resp.text());
        }
        let resp = as_user(
            t,
            key,
            Method::GET,
            "/repository/getContext",
            &[("objectId", own.model_id.as_str())],
            None,
        )
        .await;
        let context: Vec<&Value> = resp.ok_array().iter().map(|o| &o["id"]).collect();
        if who == "alice" {
            assert_eq!(context, [&json!(own.folder_id)], "{}", resp.describe());
        } else {
            assert!(
                context.is_empty(),
                "Bob's folder stays hidden: {}",
                resp.describe()
            );
        }

        // MQL's Context leaves the hidden folder out too.
        let resp = as_user(
            t,
            key,
            Method::POST,
            "/entities/executeMQLQuery",
            &[],
            Some(json!({"select": "Context", "from": own_from, "pageSize": 1})),
        )
        .await;
        let context = resp.ok_array()[0]["attributes"][0]["value"].to_string();
        assert_eq!(
            context.contains(&format!("\"{}\"", own.folder_id)),
            who == "alice",
            "{who}: {context}"
        );

        // repositoryBrowse from the root: Alice finds her folder and its model; Bob,
        // whose folder is hidden, finds nothing there.
        let resp = as_user(
            t,
            key,
            Method::GET,
            "/operations/repositoryBrowse",
            &[],
            None,
        )
        .await;
        let top: Vec<&Value> = resp.ok()["links"]
            .as_array()
            .expect("links")
            .iter()
            .map(|l| &l["id"])
            .collect();
        if who == "alice" {
            assert_eq!(top, [&json!(own.folder_id)], "{}", resp.describe());
        } else {
            assert!(top.is_empty(), "{}", resp.describe());
        }

        // A saved query runs with the same sight.
        let resp = as_user(
            t,
            key,
            Method::POST,
            "/worksheets",
            &[],
            Some(json!({"name": format!("everything-{who}"), "select": "Name"})),
        )
        .await;
        let worksheet = resp.ok()["id"].as_str().expect("worksheet id").to_owned();
        let resp = as_user(
            t,
            key,
            Method::GET,
            "/entities/countWorksheet",
            &[("worksheetId", worksheet.as_str())],
            None,
        )
        .await;
        assert_eq!(resp.ok(), &json!(45), "{who}: {}", resp.describe());

        // A worksheet FROM the other model is a worksheet FROM a path that names
        // nothing: saved or refused alike, and run, answered alike.
        let mut saved = Vec::new();
        let mut runs = Vec::new();
        for (n, from) in [&other.path, &missing_path].into_iter().enumerate() {
            let resp = as_user(
                t,
                key,
                Method::POST,
                "/worksheets",
                &[],
                Some(
                    json!({"name": format!("elsewhere-{who}-{n}"), "select": "Name", "from": from}),
                ),
            )
            .await;
            if resp.status == 200 {
                let id = resp.ok()["id"].as_str().expect("worksheet id").to_owned();
                for (method, route, body) in [
                    (Method::GET, "/entities/countWorksheet", None),
                    (Method::POST, "/entities/executeWorksheet", Some(json!({}))),
                ] {
                    runs.push(
                        as_user(t, key, method, route, &[("worksheetId", id.as_str())], body).await,
                    );
                }
            }
            saved.push(resp.status);
        }
        // A worksheet is text until it runs: both are saved.
        assert_eq!(saved, [200, 200], "{who}: saving worksheets");
        let [count, execute, missing_count, missing_execute] = &runs[..] else {
            panic!("{who}: two runs of each worksheet");
        };
        assert_error(count, 404, "INVALID_REPOSITORY_PATH");
        assert_same_as_missing(count, &other.model_name, missing_count, MISSING_NAME);
        assert_same_as_missing(execute, &other.model_name, missing_execute, MISSING_NAME);
    }

    // Viewer grants no import or folder creation; the administrator's view is whole.
    let resp = as_user(
        t,
        &alice_key,
        Method::POST,
        "/repository/createFolder",
        &[],
        Some(json!({"name": "mine", "parentId": a.folder_id})),
    )
    .await;
    assert_error(&resp, 403, "PERMISSION_DENIED");
    let resp = t
        .get_q("/entities/countMQLQuery", &[("select", "Name")])
        .await;
    assert!(resp.ok().as_u64().unwrap_or(0) >= 90, "{}", resp.describe());

    // Creating at the root takes View Metadata on the whole repository: a builder who
    // lacks it would otherwise learn which root names are taken by folders hidden from
    // them. Refused alike for a taken name and a free one.
    let builder = unique("RootBuilder");
    t.put(
        "/admin/roles",
        &[],
        &json!({"name": builder, "global": true, "capabilities": ["ManageRepository"]}),
    )
    .await
    .ok();
    let (user, name) = new_user(t, "builder").await;
    t.put(
        "/admin/grants/grantGlobalRoles",
        &[],
        &json!({"grantee": user, "role": builder}),
    )
    .await
    .ok();
    let key = key_of(t, &name).await;
    let taken = a
        .path
        .trim_start_matches('/')
        .split('/')
        .next()
        .unwrap_or_default();
    let free = "NoSuchFolder-77c1";
    let mut answers = Vec::new();
    for folder in [taken, free] {
        let resp = as_user(
            t,
            &key,
            Method::POST,
            "/repository/createFolder",
            &[],
            Some(json!({"name": folder})),
        )
        .await;
        answers.push(resp);
    }
    assert_error(&answers[0], 403, "PERMISSION_DENIED");
    assert_same_as_missing(&answers[0], taken, &answers[1], free);
}

/// A user who sees a model through a role on its folder reads its objects as the
/// repository is now: once the model hangs elsewhere (written straight to the store, as
/// no endpoint moves a model) its objects answer like missing ones, and again once it is
/// back; each read after a read of the same object, so a server that keeps what it read
/// of the model's ancestry has to notice the move.
pub async fn entity_reads_follow_the_repository_tree(t: &Target) {
    let Some(store) = t.store().cloned() else {
        return; // A remote target: nothing moves a model through the API.
    };
    let a = t.import_sample().await;
    let b = t.import_sample().await;
    let (alice, alice_name) = new_user(t, "tree").await;
    t.put(
        &format!("/admin/grants/grantObjectRole/{}", a.folder_id),
        &[],
        &json!({"grantee": alice, "role": "Viewer"}),
    )
    .await
    .ok();
    let key = key_of(t, &alice_name).await;
    let object = model_ids(t, &a)
        .await
        .into_iter()
        .find(|id| *id != a.model_id)
        .expect("an object of the model");
    let missing = format!("{}_987654321", a.model_id.trim_start_matches("-1_"));
    let read = async |id: &str| {
        let path = format!("/entities/{id}");
        as_user(t, &key, Method::GET, &path, &[], None).await
    };
    let model: lore_core::ObjectId = a.model_id.parse().expect("a model id");
    // No endpoint moves a model: the case moves it in the store, by the id it holds.
    #[allow(clippy::disallowed_methods)]
    let move_to = async |folder: &str| {
        let folder: lore_core::ObjectId = folder.parse().expect("a folder id");
        let mut stored = store
            .objects(&[model])
            .await
            .expect("reading the model")
            .pop()
            .expect("the model");
        stored.parent = Some(folder);
        store
            .apply(lore_core::store::Batch::from(vec![
                lore_core::store::Op::PutObject(stored),
            ]))
            .await
            .expect("moving the model");
    };

    for _ in 0..2 {
        let resp = read(&object).await;
        assert_eq!(resp.ok()["id"], json!(object), "{}", resp.describe());
    }
    move_to(&b.folder_id).await;
    for _ in 0..2 {
        let hidden = read(&object).await;
        assert_error(&hidden, 404, "OBJECT_NOT_FOUND");
        assert_same_as_missing(&hidden, &object, &read(&missing).await, &missing);
    }
    move_to(&a.folder_id).await;
    let resp = read(&object).await;
    assert_eq!(resp.ok()["id"], json!(object), "{}", resp.describe());
}
