//! The /types endpoints: object types, entity types, attribute types, groups, profiles
//! and categories.

use std::collections::BTreeSet;

use serde_json::{Value, json};

use crate::harness::{Sample, Target, assert_error, cell, unique};

/// Checks the shape of an object type and returns its name.
#[track_caller]
fn object_type_name(t: &Value, with_attributes: bool) -> String {
    for field in ["name", "displayName", "profile", "category"] {
        assert!(t[field].is_string(), "an object type has {field}: {t}");
    }
    let name = t["name"].as_str().unwrap_or_default();
    let profile = t["profile"].as_str().unwrap_or_default();
    let display = t["displayName"].as_str().unwrap_or_default();
    assert_eq!(
        name,
        format!("{profile}.{display}"),
        "name is <profile>.<type>: {t}"
    );
    if with_attributes {
        let attributes = t["attributeTypes"]
            .as_array()
            .unwrap_or_else(|| panic!("attributeTypes with includeAttributes=true: {t}"));
        assert!(
            !attributes.is_empty(),
            "every type has system attributes: {t}"
        );
        for a in attributes {
            attribute_type_name(a);
        }
    } else {
        assert!(
            t["attributeTypes"].is_null(),
            "no attributeTypes without includeAttributes: {t}"
        );
    }
    name.to_owned()
}

/// Checks the shape of an attribute type and returns (name, type).
#[track_caller]
fn attribute_type_name(a: &Value) -> (String, String) {
    for field in ["name", "displayName", "type"] {
        assert!(a[field].is_string(), "an attribute type has {field}: {a}");
    }
    (
        a["name"].as_str().unwrap_or_default().to_owned(),
        a["type"].as_str().unwrap_or_default().to_owned(),
    )
}

fn names(result: &[Value], with_attributes: bool) -> Vec<String> {
    result
        .iter()
        .map(|t| object_type_name(t, with_attributes))
        .collect()
}

pub async fn list_object_types(t: &Target) {
    let sample = Sample::load();
    let resp = t.get("/types/listObjectTypes").await;
    let all = names(resp.ok_array(), false);
    let distinct: BTreeSet<&String> = all.iter().collect();
    assert_eq!(distinct.len(), all.len(), "each object type once: {all:?}");
    for kind in ["Folder", "Configuration", "Configuration Version", "Model"] {
        assert!(
            all.contains(&format!("Repository.{kind}")),
            "Repository.{kind} in {all:?}"
        );
    }
    // The types the sample model uses exist in its profile (or qualified).
    for row in &sample.objects {
        let text = cell(row, "object_type");
        assert!(
            all.contains(&format!("{}.{text}", sample.profile))
                || all
                    .iter()
                    .any(|n| n == text || n.ends_with(&format!(".{text}"))),
            "the sample's object type '{text}' is listed: {all:?}"
        );
    }

    let resp = t
        .get_q("/types/listObjectTypes", &[("includeAttributes", "true")])
        .await;
    let with = names(resp.ok_array(), true);
    assert_eq!(with, all, "the same types with their attributes");
    let resp = t
        .get_q("/types/listObjectTypes", &[("includeAttributes", "false")])
        .await;
    assert_eq!(names(resp.ok_array(), false), all);

    // By profile: exactly the types of that profile.
    let resp = t
        .get_q(
            "/types/listObjectTypes",
            &[
                ("profileName", &sample.profile),
                ("includeAttributes", "TRUE"),
            ],
        )
        .await;
    let of_profile = resp.ok_array();
    assert!(
        !of_profile.is_empty(),
        "the sample profile has object types"
    );
    for object_type in of_profile {
        object_type_name(object_type, true);
        assert_eq!(
            object_type["profile"],
            json!(sample.profile),
            "{object_type}"
        );
    }
    let expected: Vec<&String> = all
        .iter()
        .filter(|n| n.starts_with(&format!("{}.", sample.profile)))
        .collect();
    let found = names(of_profile, true);
    assert_eq!(found.iter().collect::<Vec<_>>(), expected);
    let resp = t
        .get_q("/types/listObjectTypes", &[("profileName", "Repository")])
        .await;
    let repository = names(resp.ok_array(), false);
    assert!(
        repository.iter().all(|n| n.starts_with("Repository.")),
        "{repository:?}"
    );
    assert!(repository.contains(&"Repository.Folder".to_owned()));
}

pub async fn list_object_types_bad_input(t: &Target) {
    let resp = t
        .get_q(
            "/types/listObjectTypes",
            &[("profileName", &unique("No Such Profile"))],
        )
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    // Profile names are case-sensitive.
    let resp = t
        .get_q("/types/listObjectTypes", &[("profileName", "REPOSITORY")])
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t
        .get_q(
            "/types/listObjectTypes",
            &[("includeAttributes", "yes please")],
        )
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .send(t.anon(reqwest::Method::GET, "/types/listObjectTypes"))
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
}

pub async fn list_entity_types_shape(t: &Target) {
    let sample = Sample::load();
    for query in [
        vec![],
        vec![("includeAttributes", "true")],
        vec![("profileName", sample.profile.as_str())],
        vec![
            ("profileName", sample.profile.as_str()),
            ("includeAttributes", "true"),
        ],
    ] {
        let resp = t.get_q("/types/listEntityTypes", &query).await;
        let result = resp.ok_array();
        assert_eq!(
            result.len(),
            1,
            "[{{\"entityTypes\": [...]}}]: {}",
            resp.describe()
        );
        let types = result[0]["entityTypes"]
            .as_array()
            .expect("entityTypes is an array");
        let object_types = t.get_q("/types/listObjectTypes", &query).await;
        assert_eq!(
            types,
            object_types.ok_array(),
            "listEntityTypes lists what listObjectTypes does ({query:?})"
        );
        let with = query.iter().any(|(k, _)| *k == "includeAttributes");
        names(types, with);
    }
}

pub async fn list_entity_types_bad_input(t: &Target) {
    let resp = t
        .get_q(
            "/types/listEntityTypes",
            &[("profileName", &unique("No Such Profile"))],
        )
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t
        .get_q("/types/listEntityTypes", &[("includeAttributes", "1")])
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    let resp = t
        .send(
            t.anon(reqwest::Method::GET, "/types/listEntityTypes")
                .header("api-key", "bogus"),
        )
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
}

/// An object type the sample model uses, qualified.
async fn sample_type(t: &Target) -> (String, String) {
    let sample = Sample::load();
    let resp = t
        .get_q(
            "/types/listObjectTypes",
            &[("profileName", &sample.profile)],
        )
        .await;
    let known = names(resp.ok_array(), false);
    let row = sample
        .objects
        .iter()
        .find(|o| known.contains(&format!("{}.{}", sample.profile, cell(o, "object_type"))))
        .expect("a sample object of a type of the model's profile");
    let bare = cell(row, "object_type").to_owned();
    (format!("{}.{bare}", sample.profile), bare)
}

pub async fn list_attribute_types(t: &Target) {
    let resp = t.get("/types/listAttributeTypes").await;
    let all: Vec<(String, String)> = resp.ok_array().iter().map(attribute_type_name).collect();
    for system in [
        "Name",
        "Object Id",
        "Object Stable Id",
        "Description",
        "Native Id",
    ] {
        assert!(
            all.contains(&(system.to_owned(), "SYSTEM_ATTRIBUTE".to_owned())),
            "{system} is a SYSTEM_ATTRIBUTE: {all:?}"
        );
    }
    let (qualified, bare) = sample_type(t).await;
    let resp = t
        .get_q("/types/listAttributeTypes", &[("objectType", &qualified)])
        .await;
    let of_type = resp.ok().clone();
    let of_type_names: Vec<(String, String)> = of_type
        .as_array()
        .expect("an array")
        .iter()
        .map(attribute_type_name)
        .collect();
    assert!(of_type_names.contains(&("Name".to_owned(), "SYSTEM_ATTRIBUTE".to_owned())));
    for entry in &of_type_names {
        assert!(
            all.contains(entry),
            "{entry:?} of {qualified} is among all attribute types"
        );
    }
    // The old parameter name gives the same answer; objectType wins over entityType.
    let resp = t
        .get_q("/types/listAttributeTypes", &[("entityType", &qualified)])
        .await;
    assert_eq!(
        resp.ok(),
        &of_type,
        "entityType is the old name of objectType"
    );
    let resp = t
        .get_q(
            "/types/listAttributeTypes",
            &[
                ("objectType", &qualified),
                ("entityType", &unique("Nothing")),
            ],
        )
        .await;
    assert_eq!(resp.ok(), &of_type, "objectType wins over entityType");
    // The bare name works when it is unambiguous.
    let resp = t.get_q("/types/listObjectTypes", &[]).await;
    let same_bare = names(resp.ok_array(), false)
        .iter()
        .filter(|n| n.ends_with(&format!(".{bare}")))
        .count();
    if same_bare == 1 {
        let resp = t
            .get_q("/types/listAttributeTypes", &[("objectType", &bare)])
            .await;
        assert_eq!(resp.ok(), &of_type, "bare name {bare}");
    }

    // The sample's custom attributes appear once it is imported.
    let sample = Sample::load();
    let imported = t.import_sample().await;
    assert!(imported.summary["objectCount"].as_u64().is_some());
    let resp = t.get("/types/listAttributeTypes").await;
    let after: Vec<(String, String)> = resp.ok_array().iter().map(attribute_type_name).collect();
    for row in sample.rows("attributes.csv") {
        let name = cell(&row, "attribute");
        assert!(
            after.iter().any(|(n, _)| n == name),
            "attribute '{name}' of the sample is listed after import"
        );
    }
}

pub async fn list_attribute_types_unknown_type_is_404(t: &Target) {
    for query in [
        [("objectType", unique("No Profile.No Type"))],
        [("entityType", unique("NoType"))],
        [("objectType", "Repository.Table".to_owned())],
    ] {
        let query: Vec<(&str, &str)> = query.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let resp = t.get_q("/types/listAttributeTypes", &query).await;
        assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    }
    let resp = t
        .send(t.anon(reqwest::Method::GET, "/types/listAttributeTypes"))
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
}

pub async fn list_group_types(t: &Target) {
    let (qualified, _) = sample_type(t).await;
    for query in [
        vec![],
        vec![("objectType", qualified.as_str())],
        vec![("entityType", qualified.as_str())],
    ] {
        let resp = t.get_q("/types/listGroupTypes", &query).await;
        let groups = resp.ok_array().clone();
        assert!(!groups.is_empty());
        let group_names: Vec<&str> = groups
            .iter()
            .map(|g| g["name"].as_str().expect("a group has a name"))
            .collect();
        let mut sorted = group_names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(group_names, sorted, "groups sorted by name, each once");
        // The groups together hold exactly the attribute types of the same query.
        let mut grouped: Vec<(String, String)> = Vec::new();
        for g in &groups {
            let members = g["attributeTypes"]
                .as_array()
                .expect("attributeTypes of a group");
            assert!(!members.is_empty(), "no empty group: {g}");
            grouped.extend(members.iter().map(attribute_type_name));
        }
        let resp = t.get_q("/types/listAttributeTypes", &query).await;
        let mut attributes: Vec<(String, String)> =
            resp.ok_array().iter().map(attribute_type_name).collect();
        grouped.sort();
        attributes.sort();
        assert_eq!(grouped, attributes, "groups of {query:?}");
    }
}

pub async fn list_group_types_unknown_type_is_404(t: &Target) {
    let resp = t
        .get_q(
            "/types/listGroupTypes",
            &[("objectType", &unique("Nope.Nothing"))],
        )
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t
        .get_q(
            "/types/listGroupTypes",
            &[("entityType", &unique("Nothing"))],
        )
        .await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    let resp = t
        .send(t.anon(reqwest::Method::GET, "/types/listGroupTypes"))
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
}

pub async fn list_profiles_and_categories(t: &Target) {
    let sample = Sample::load();
    let resp = t.get("/types/listProfiles").await;
    let profiles: Vec<&str> = resp
        .ok_array()
        .iter()
        .map(|p| p.as_str().expect("profile names are strings"))
        .collect();
    assert!(profiles.contains(&"Repository"), "{profiles:?}");
    assert!(
        profiles.contains(&sample.profile.as_str()),
        "the sample's profile is listed: {profiles:?}"
    );
    // Every profile has its types, and every type's profile is listed.
    let resp = t.get("/types/listObjectTypes").await;
    for object_type in resp.ok_array() {
        let profile = object_type["profile"].as_str().unwrap_or_default();
        assert!(
            profiles.contains(&profile),
            "profile {profile} of {object_type} is listed"
        );
    }

    let resp = t.get("/types/listCategories").await;
    let categories: Vec<&str> = resp
        .ok_array()
        .iter()
        .map(|c| c.as_str().expect("categories are strings"))
        .collect();
    assert!(!categories.is_empty());
    let mut sorted = categories.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(categories, sorted, "categories sorted and distinct");
    let resp = t.get("/types/listObjectTypes").await;
    for object_type in resp.ok_array() {
        let category = object_type["category"].as_str().unwrap_or_default();
        assert!(
            categories.contains(&category),
            "category {category} of {object_type} is listed"
        );
    }
}
