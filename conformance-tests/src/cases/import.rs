//! POST /repository/model/import: the archive as a raw body or a multipart upload,
//! re-imports, destinations, and every kind of bad archive (each refused whole).

use std::collections::BTreeMap;
use std::io::{Cursor, Write};

use reqwest::Method;
use reqwest::header::CONTENT_TYPE;
use serde_json::{Value, json};

use crate::harness::{
    Resp, Sample, Target, assert_error, cell, sample_archive, unique, unzip, zip_files, zip_map,
};

// ---------------------------------------------------------------------------------------
// Helpers

/// Rewrites a CSV file: `edit` gets the header and the rows and may change them.
pub(crate) fn rewrite_csv(
    data: &[u8],
    edit: impl FnOnce(&mut Vec<String>, &mut Vec<Vec<String>>),
) -> Vec<u8> {
    rewrite_csv_ending(data, csv::Terminator::Any(b'\n'), edit)
}

/// [`rewrite_csv`] with records ended by `terminator`.
fn rewrite_csv_ending(
    data: &[u8],
    terminator: csv::Terminator,
    edit: impl FnOnce(&mut Vec<String>, &mut Vec<Vec<String>>),
) -> Vec<u8> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(true)
        .flexible(true)
        .from_reader(data);
    let mut header: Vec<String> = reader
        .headers()
        .expect("a header")
        .iter()
        .map(str::to_owned)
        .collect();
    let mut rows: Vec<Vec<String>> = reader
        .records()
        .map(|r| r.expect("a record").iter().map(str::to_owned).collect())
        .collect();
    edit(&mut header, &mut rows);
    let mut writer = csv::WriterBuilder::new()
        .flexible(true)
        .terminator(terminator)
        .from_writer(Vec::new());
    writer.write_record(&header).expect("writing a header");
    for row in rows {
        writer.write_record(&row).expect("writing a row");
    }
    writer.into_inner().expect("finishing a CSV")
}

/// The sample archive with objects.csv edited.
pub(crate) fn with_objects(edit: impl FnOnce(&mut Vec<String>, &mut Vec<Vec<String>>)) -> Vec<u8> {
    let sample = Sample::load();
    let objects = rewrite_csv(&sample.files["objects.csv"], edit);
    zip_map(&sample.with_file("objects.csv", Some(objects)))
}

pub(crate) fn column(header: &[String], name: &str) -> usize {
    header
        .iter()
        .position(|h| h.trim().eq_ignore_ascii_case(name))
        .unwrap_or_else(|| panic!("objects.csv of the sample has no column {name}"))
}

/// Imports `archive` into a fresh folder and checks that it is refused with the status
/// and code and that nothing was written: the folder stays empty, no model of the name
/// exists, and (on a server of its own) the whole repository is unchanged.
async fn assert_refused(
    t: &Target,
    archive: Vec<u8>,
    content_type: Option<&str>,
    status: u16,
    code: &str,
) -> Resp {
    let (folder_id, folder) = t.unique_folder("refused").await;
    let name = unique("Refused");
    let before = if t.is_remote() {
        Value::Null
    } else {
        t.snapshot().await
    };
    let mut request = t
        .call(Method::POST, "/repository/model/import")
        .await
        .query(&[
            ("folderId", folder_id.as_str()),
            ("modelName", name.as_str()),
        ])
        .body(archive);
    if let Some(content_type) = content_type {
        request = request.header(CONTENT_TYPE, content_type);
    }
    let resp = t.send(request).await;
    assert_error(&resp, status, code);
    assert_nothing_written(t, &folder, &name, &before).await;
    resp
}

async fn assert_nothing_written(t: &Target, folder: &str, name: &str, before: &Value) {
    let tree = t
        .get_q(
            "/operations/repositoryBrowse",
            &[("repositoryPath", &format!("/{folder}"))],
        )
        .await;
    assert_eq!(
        tree.ok(),
        &json!({"links": []}),
        "a refused import creates no model"
    );
    let models = t.get("/configuration/listModels").await;
    assert!(
        !models.ok_array().iter().any(|m| m["name"] == json!(name)),
        "a refused import creates no model named {name}"
    );
    if !before.is_null() {
        assert_eq!(
            &t.snapshot().await,
            before,
            "a refused import changes nothing"
        );
    }
}

/// The id of every sample object with an unambiguous path, by native id.
async fn ids_by_native(
    t: &Target,
    sample: &Sample,
    model_path: &str,
) -> BTreeMap<String, (String, String)> {
    let mut ids = BTreeMap::new();
    for row in &sample.objects {
        let native = cell(row, "native_id");
        if !sample.path_is_unique(native) {
            continue;
        }
        let path = format!("{model_path}/{}", sample.names_to(native).join("/"));
        let resp = t.entity(&path).await;
        let entity = resp.ok();
        let stable = entity["attributes"]
            .as_array()
            .and_then(|a| {
                a.iter()
                    .find(|a| a["attributeType"]["name"] == json!("Object Stable Id"))
            })
            .and_then(|a| a["value"].as_str())
            .expect("an Object Stable Id")
            .to_owned();
        ids.insert(
            native.to_owned(),
            (entity["id"].as_str().expect("id").to_owned(), stable),
        );
    }
    ids
}

#[track_caller]
fn assert_summary(summary: &Value, name: &str, created: bool, objects: usize) {
    let fields: Vec<&str> = summary
        .as_object()
        .expect("the summary is an object")
        .keys()
        .map(String::as_str)
        .collect();
    for field in ["modelId", "modelName", "created", "objectCount"] {
        assert!(fields.contains(&field), "summary has {field}: {summary}");
    }
    assert!(
        summary["modelId"]
            .as_str()
            .is_some_and(|id| id.starts_with("-1_")),
        "{summary}"
    );
    assert_eq!(summary["modelName"], json!(name), "{summary}");
    assert_eq!(summary["created"], json!(created), "{summary}");
    assert_eq!(summary["objectCount"], json!(objects), "{summary}");
}

// ---------------------------------------------------------------------------------------
// Normal

pub async fn import_raw_zip(t: &Target) {
    let sample = Sample::load();
    // The archive's own model name when no modelName is given.
    let (folder_id, folder) = t.unique_folder("raw").await;
    let resp = t
        .import(sample_archive(), &[("folderId", &folder_id)])
        .await;
    let summary = resp.ok().clone();
    assert_summary(&summary, &sample.name, true, sample.objects.len());
    let model_id = summary["modelId"].as_str().expect("modelId").to_owned();
    let resp = t.entity(&format!("/{folder}/{}", sample.name)).await;
    assert_eq!(resp.ok()["id"], json!(model_id));
    // Other accepted content types for the raw body.
    for content_type in [
        "application/octet-stream",
        "application/x-zip-compressed",
        "application/zip; charset=binary",
    ] {
        let name = unique("Raw");
        let request = t
            .call(Method::POST, "/repository/model/import")
            .await
            .query(&[
                ("folderId", folder_id.as_str()),
                ("modelName", name.as_str()),
            ])
            .header(CONTENT_TYPE, content_type)
            .body(sample_archive());
        let resp = t.send(request).await;
        assert_summary(resp.ok(), &name, true, sample.objects.len());
    }
    // Every object is there: the model's export lists as many objects.
    let resp = t.export(&model_id, &[]).await;
    assert_eq!(resp.status, 200, "{}", resp.describe());
    let files = crate::harness::unzip(&resp.bytes);
    let exported = crate::harness::csv_rows(&files["objects.csv"]);
    assert_eq!(exported.len(), sample.objects.len());
}

pub async fn import_multipart(t: &Target) {
    let sample = Sample::load();
    let (folder_id, folder) = t.unique_folder("multipart").await;
    for (field, file_name) in [
        ("file", Some("model.zip")),
        ("file", None),
        ("archive", Some("sample.zip")),
    ] {
        let name = unique("Multipart");
        let mut part = reqwest::multipart::Part::bytes(sample_archive())
            .mime_str("application/zip")
            .expect("a MIME type");
        if let Some(file_name) = file_name {
            part = part.file_name(file_name);
        }
        let form = reqwest::multipart::Form::new()
            .text("comment", "uploaded by the conformance suite")
            .part(field, part);
        let request = t
            .call(Method::POST, "/repository/model/import")
            .await
            .query(&[
                ("folderId", folder_id.as_str()),
                ("modelName", name.as_str()),
            ])
            .multipart(form);
        let resp = t.send(request).await;
        assert_summary(resp.ok(), &name, true, sample.objects.len());
        let resp = t.entity(&format!("/{folder}/{name}")).await;
        assert_eq!(resp.ok()["objectType"]["displayName"], json!("Model"));
    }
    // A form without a file part is refused, writing nothing.
    let name = unique("NoFile");
    let before = if t.is_remote() {
        Value::Null
    } else {
        t.snapshot().await
    };
    let form = reqwest::multipart::Form::new().text("comment", "no file here");
    let request = t
        .call(Method::POST, "/repository/model/import")
        .await
        .query(&[
            ("folderId", folder_id.as_str()),
            ("modelName", name.as_str()),
        ])
        .multipart(form);
    let resp = t.send(request).await;
    assert_error(&resp, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED");
    if !before.is_null() {
        assert_eq!(t.snapshot().await, before);
    }
}

pub async fn reimport_keeps_ids(t: &Target) {
    let sample = Sample::load();
    let imported = t.import_sample().await;
    let ids = ids_by_native(t, &sample, &imported.path).await;
    assert!(!ids.is_empty());
    let first = t.export(&imported.model_id, &[]).await;
    assert_eq!(first.status, 200, "{}", first.describe());

    // The same archive again, by model id and by model path: same model, same ids.
    for reference in [imported.model_id.clone(), imported.path.clone()] {
        let resp = t.import(sample_archive(), &[("modelId", &reference)]).await;
        assert_summary(resp.ok(), &imported.model_name, false, sample.objects.len());
        assert_eq!(resp.ok()["modelId"], json!(imported.model_id));
        assert_eq!(
            ids_by_native(t, &sample, &imported.path).await,
            ids,
            "ids and stable ids survive a re-import"
        );
        let again = t.export(&imported.model_id, &[]).await;
        assert_eq!(
            again.bytes, first.bytes,
            "a re-import of the same archive exports the same bytes"
        );
    }

    // With one object more: the others keep their ids, the new one is found.
    let new_native = unique("conformance-new");
    let archive = with_objects(|header, rows| {
        let mut row = rows[0].clone();
        row.resize(header.len(), String::new());
        row[column(header, "native_id")] = new_native.clone();
        if let Some(p) = header
            .iter()
            .position(|h| h.eq_ignore_ascii_case("parent_native_id"))
        {
            row[p] = String::new();
        }
        row[column(header, "name")] = new_native.clone();
        rows.push(row);
    });
    let resp = t.import(archive, &[("modelId", &imported.model_id)]).await;
    assert_summary(
        resp.ok(),
        &imported.model_name,
        false,
        sample.objects.len() + 1,
    );
    assert_eq!(ids_by_native(t, &sample, &imported.path).await, ids);
    let resp = t.entity(&format!("{}/{new_native}", imported.path)).await;
    let new_id = resp.ok()["id"].as_str().expect("id").to_owned();
    assert!(
        !ids.values().any(|(id, _)| *id == new_id),
        "a new object gets a new id"
    );
    // And back: the extra object is gone again.
    let resp = t
        .import(sample_archive(), &[("modelId", &imported.model_id)])
        .await;
    resp.ok();
    let resp = t.entity(&new_id).await;
    assert_error(&resp, 404, "OBJECT_NOT_FOUND");
    assert_eq!(ids_by_native(t, &sample, &imported.path).await, ids);
}

pub async fn import_into_folder_by_id_and_path(t: &Target) {
    let sample = Sample::load();
    let (folder_id, folder) = t.unique_folder("dest").await;
    let nested = t.create(Some(&folder_id), "Nested", "Folder").await;
    for (reference, parent) in [
        (folder_id.clone(), folder_id.clone()),
        (format!("/{folder}"), folder_id.clone()),
        (nested.clone(), nested.clone()),
        (format!("/{folder}/Nested"), nested.clone()),
    ] {
        let name = unique("Placed");
        let resp = t
            .import(
                sample_archive(),
                &[("folderId", &reference), ("modelName", &name)],
            )
            .await;
        let model_id = resp.ok()["modelId"].as_str().expect("modelId").to_owned();
        let resp = t.entity(&model_id).await;
        assert_eq!(
            resp.ok()["parentId"],
            json!(parent),
            "the model is in {reference}"
        );
        let resp = t
            .get_q("/repository/getContext", &[("objectId", &model_id)])
            .await;
        assert_eq!(
            resp.ok_array().last().map(|e| e["id"].clone()),
            Some(json!(parent))
        );
    }
    // No folder (or "/"): the repository root.
    for query in [vec![], vec![("folderId", "/")]] {
        let name = unique("AtRoot");
        let mut query = query;
        query.push(("modelName", &name));
        let resp = t.import(sample_archive(), &query).await;
        assert_summary(resp.ok(), &name, true, sample.objects.len());
        let model_id = resp.ok()["modelId"].clone();
        let resp = t.entity(&format!("/{name}")).await;
        assert_eq!(resp.ok()["id"], model_id);
        assert!(
            resp.ok()["parentId"].is_null(),
            "a model at the root has no parent"
        );
    }
}

// ---------------------------------------------------------------------------------------
// Bad input

pub async fn import_name_clash_is_409(t: &Target) {
    let imported = t.import_sample().await;
    let export_before = t.export(&imported.model_id, &[]).await;
    let resp = t
        .import(
            sample_archive(),
            &[
                ("folderId", &imported.folder_id),
                ("modelName", &imported.model_name),
            ],
        )
        .await;
    assert_error(&resp, 409, "CONFLICT");
    // A folder of that name is a clash too.
    let name = unique("Taken");
    t.create(Some(&imported.folder_id), &name, "Folder").await;
    let before_folder = if t.is_remote() {
        Value::Null
    } else {
        t.snapshot().await
    };
    let resp = t
        .import(
            sample_archive(),
            &[("folderId", &imported.folder_id), ("modelName", &name)],
        )
        .await;
    assert_error(&resp, 409, "CONFLICT");
    if !before_folder.is_null() {
        assert_eq!(t.snapshot().await, before_folder, "a clash changes nothing");
    }
    let export_after = t.export(&imported.model_id, &[]).await;
    assert_eq!(
        export_after.bytes, export_before.bytes,
        "the existing model is unchanged"
    );
    let models = t.get("/configuration/listModels").await;
    let same = models
        .ok_array()
        .iter()
        .filter(|m| m["name"] == json!(imported.model_name))
        .count();
    assert_eq!(same, 1, "one model named {}", imported.model_name);
}

pub async fn import_not_a_zip(t: &Target) {
    assert_refused(
        t,
        b"this is not a zip archive".to_vec(),
        Some("application/zip"),
        400,
        "INVALID_PARAMETER",
    )
    .await;
    let archive = sample_archive();
    let truncated = archive[..archive.len() / 2].to_vec();
    assert_refused(
        t,
        truncated,
        Some("application/zip"),
        400,
        "INVALID_PARAMETER",
    )
    .await;
    // A multipart body that is not a form.
    assert_refused(
        t,
        b"garbage".to_vec(),
        Some("multipart/form-data; boundary=conformance"),
        400,
        "INVALID_PARAMETER",
    )
    .await;
    // A zip without objects.csv, and one holding nothing.
    let sample = Sample::load();
    assert_refused(
        t,
        zip_map(&sample.with_file("objects.csv", None)),
        Some("application/zip"),
        400,
        "INVALID_PARAMETER",
    )
    .await;
    assert_refused(t, zip_files([]), None, 400, "INVALID_PARAMETER").await;
}

pub async fn import_bad_csv_field_count(t: &Target) {
    let archive = with_objects(|header, rows| {
        let mut row = rows[0].clone();
        row.resize(header.len() + 1, "extra".to_owned());
        rows[0] = row;
    });
    let resp = assert_refused(
        t,
        archive,
        Some("application/zip"),
        400,
        "INVALID_PARAMETER",
    )
    .await;
    assert!(
        resp.message().contains("objects.csv"),
        "the message names the file: {}",
        resp.message()
    );
    let archive = with_objects(|_, rows| {
        rows[0].truncate(1);
    });
    assert_refused(
        t,
        archive,
        Some("application/zip"),
        400,
        "INVALID_PARAMETER",
    )
    .await;
    // An unterminated quote.
    let sample = Sample::load();
    let mut objects = sample.files["objects.csv"].clone();
    objects.extend_from_slice(b"\"broken,");
    assert_refused(
        t,
        zip_map(&sample.with_file("objects.csv", Some(objects))),
        None,
        400,
        "INVALID_PARAMETER",
    )
    .await;
}

pub async fn import_unknown_column(t: &Target) {
    let archive = with_objects(|header, rows| {
        header.push("colour".to_owned());
        for row in rows.iter_mut() {
            row.resize(header.len(), String::new());
        }
    });
    let resp = assert_refused(
        t,
        archive,
        Some("application/zip"),
        400,
        "INVALID_PARAMETER",
    )
    .await;
    assert!(
        resp.message().contains("colour"),
        "the message names the column: {}",
        resp.message()
    );
    // A required column left out.
    let archive = with_objects(|header, rows| {
        let name = column(header, "name");
        header.remove(name);
        for row in rows.iter_mut() {
            if row.len() > name {
                row.remove(name);
            }
        }
    });
    assert_refused(
        t,
        archive,
        Some("application/zip"),
        400,
        "INVALID_PARAMETER",
    )
    .await;
}

pub async fn import_dangling_parent(t: &Target) {
    let archive = with_objects(|header, rows| {
        let parent = column(header, "parent_native_id");
        let mut row = rows[0].clone();
        row.resize(header.len(), String::new());
        row[column(header, "native_id")] = "conformance-orphan".to_owned();
        row[column(header, "name")] = "Orphan".to_owned();
        row[parent] = "conformance-no-such-parent".to_owned();
        rows.push(row);
    });
    let resp = assert_refused(
        t,
        archive,
        Some("application/zip"),
        400,
        "INVALID_PARAMETER",
    )
    .await;
    assert!(
        resp.message().contains("conformance-no-such-parent"),
        "{}",
        resp.message()
    );
    // A parent cycle.
    let archive = with_objects(|header, rows| {
        let (native, parent, name) = (
            column(header, "native_id"),
            column(header, "parent_native_id"),
            column(header, "name"),
        );
        for (me, other) in [("cycle-a", "cycle-b"), ("cycle-b", "cycle-a")] {
            let mut row = rows[0].clone();
            row.resize(header.len(), String::new());
            row[native] = me.to_owned();
            row[parent] = other.to_owned();
            row[name] = me.to_owned();
            rows.push(row);
        }
    });
    assert_refused(
        t,
        archive,
        Some("application/zip"),
        400,
        "INVALID_PARAMETER",
    )
    .await;
}

pub async fn import_duplicate_native_id(t: &Target) {
    let archive = with_objects(|_, rows| {
        let first = rows[0].clone();
        rows.push(first);
    });
    let resp = assert_refused(
        t,
        archive,
        Some("application/zip"),
        400,
        "INVALID_PARAMETER",
    )
    .await;
    assert!(resp.message().contains("native"), "{}", resp.message());
}

pub async fn import_path_traversal(t: &Target) {
    let sample = Sample::load();
    for evil in [
        "../objects.csv",
        "/objects.csv",
        "sub/../../objects.csv",
        "..\\objects.csv",
        "dir/objects.csv",
    ] {
        let mut files: Vec<(&str, &[u8])> = sample
            .files
            .iter()
            .filter(|(n, _)| n.as_str() != "objects.csv")
            .map(|(n, d)| (n.as_str(), d.as_slice()))
            .collect();
        files.push((evil, sample.files["objects.csv"].as_slice()));
        assert_refused(
            t,
            zip_files(files),
            Some("application/zip"),
            400,
            "INVALID_PARAMETER",
        )
        .await;
    }
    // Two entries of the same name (written under another name, then renamed).
    let mut files: Vec<(&str, &[u8])> = sample
        .files
        .iter()
        .map(|(n, d)| (n.as_str(), d.as_slice()))
        .collect();
    files.push(("objects.csx", sample.files["objects.csv"].as_slice()));
    let mut duplicated = zip_files(files);
    let patched = patch_entry(&mut duplicated, "objects.csx", |_, _| {});
    assert_eq!(patched, 2);
    let mut at = 0;
    while let Some(found) = duplicated[at..]
        .windows(11)
        .position(|w| w == b"objects.csx")
    {
        duplicated[at + found + 10] = b'v';
        at += found + 11;
    }
    assert_refused(
        t,
        duplicated,
        Some("application/zip"),
        400,
        "INVALID_PARAMETER",
    )
    .await;
    // An entry that is not a file of the format.
    let mut files = sample.files.clone();
    files.insert("notes.txt".to_owned(), b"hello".to_vec());
    assert_refused(
        t,
        zip_map(&files),
        Some("application/zip"),
        400,
        "INVALID_PARAMETER",
    )
    .await;
}

/// The sample archive with `entry` holding `size` zeros, deflated while streaming so
/// memory stays small.
fn bomb(entry: &str, size: usize) -> Vec<u8> {
    let sample = Sample::load();
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(size > u32::MAX as usize);
    let mut zip = zip::ZipWriter::new(Cursor::new(Vec::new()));
    for (name, data) in sample.files.iter().filter(|(n, _)| n.as_str() != entry) {
        zip.start_file(name.as_str(), options).expect("a zip entry");
        zip.write_all(data).expect("writing a zip entry");
    }
    zip.start_file(entry, options).expect("the bomb entry");
    let chunk = vec![0u8; 1 << 20];
    let mut left = size;
    while left > 0 {
        let n = left.min(chunk.len());
        zip.write_all(&chunk[..n]).expect("writing zeros");
        left -= n;
    }
    zip.finish().expect("finishing the zip").into_inner()
}

pub async fn import_zip_bomb(t: &Target) {
    // 300 MiB of zeros: more than the default 256 MiB an entry may inflate to.
    let archive = bomb("attributes.csv", 300 << 20);
    let mut lying = archive.clone();
    assert!(
        archive.len() < 1 << 20,
        "the bomb is small: {} bytes",
        archive.len()
    );
    let resp = assert_refused(
        t,
        archive,
        Some("application/zip"),
        400,
        "INVALID_PARAMETER",
    )
    .await;
    assert!(
        resp.message().contains("attributes.csv"),
        "{}",
        resp.message()
    );
    // The same bomb with its headers claiming 1000 bytes: the inflated size is what counts.
    let patched = patch_entry(&mut lying, "attributes.csv", |local, central| {
        local[22..26].copy_from_slice(&1000u32.to_le_bytes());
        central[24..28].copy_from_slice(&1000u32.to_le_bytes());
    });
    assert_eq!(
        patched, 2,
        "the bomb's local and central headers were patched"
    );
    assert_refused(t, lying, Some("application/zip"), 400, "INVALID_PARAMETER").await;
    // 16 MiB of zeros: under the size limit but far above the allowed compression ratio.
    let archive = bomb("labels.csv", 16 << 20);
    assert_refused(
        t,
        archive,
        Some("application/zip"),
        400,
        "INVALID_PARAMETER",
    )
    .await;
}

pub async fn import_unknown_object_type(t: &Target) {
    let archive = with_objects(|header, rows| {
        let object_type = column(header, "object_type");
        rows[0].resize(header.len(), String::new());
        rows[0][object_type] = "No Such Object Type".to_owned();
    });
    let resp = assert_refused(
        t,
        archive,
        Some("application/zip"),
        400,
        "INVALID_PARAMETER",
    )
    .await;
    assert!(
        resp.message().contains("No Such Object Type"),
        "{}",
        resp.message()
    );
    // Repository types cannot be model objects.
    let archive = with_objects(|header, rows| {
        let object_type = column(header, "object_type");
        rows[0].resize(header.len(), String::new());
        rows[0][object_type] = "Repository.Folder".to_owned();
    });
    assert_refused(
        t,
        archive,
        Some("application/zip"),
        400,
        "INVALID_PARAMETER",
    )
    .await;
    // An unknown profile in model.csv.
    let sample = Sample::load();
    let model = rewrite_csv(&sample.files["model.csv"], |header, rows| {
        let profile = column(header, "profile");
        rows[0][profile] = "No Such Profile".to_owned();
    });
    let archive = zip_map(&sample.with_file("model.csv", Some(model)));
    assert_refused(
        t,
        archive,
        Some("application/zip"),
        400,
        "INVALID_PARAMETER",
    )
    .await;
}

pub async fn import_empty_body(t: &Target) {
    assert_refused(
        t,
        Vec::new(),
        Some("application/zip"),
        400,
        "REQUIRED_PARAMETER_NOT_SPECIFIED",
    )
    .await;
    assert_refused(t, Vec::new(), None, 400, "REQUIRED_PARAMETER_NOT_SPECIFIED").await;
}

pub async fn import_json_content_type_is_415(t: &Target) {
    assert_refused(
        t,
        sample_archive(),
        Some("application/json"),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
    )
    .await;
    assert_refused(
        t,
        b"{}".to_vec(),
        Some("application/json"),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
    )
    .await;
    assert_refused(
        t,
        sample_archive(),
        Some("text/csv"),
        415,
        "UNSUPPORTED_MEDIA_TYPE",
    )
    .await;
}

pub async fn import_bad_destination(t: &Target) {
    let (folder_id, folder) = t.unique_folder("bad-dest").await;
    let configuration = t.create(Some(&folder_id), "Config", "Configuration").await;
    let before = if t.is_remote() {
        Value::Null
    } else {
        t.snapshot().await
    };
    let name = unique("Nowhere");
    type Query<'a> = Vec<(&'a str, String)>;
    let cases: Vec<(Query, u16, &str)> = vec![
        (
            vec![("folderId", "-1_999999999".into())],
            404,
            "OBJECT_NOT_FOUND",
        ),
        (
            vec![("folderId", format!("/{folder}/missing"))],
            404,
            "INVALID_REPOSITORY_PATH",
        ),
        (
            vec![("folderId", configuration.clone())],
            400,
            "INVALID_PARAMETER",
        ),
        (
            vec![("folderId", "not an id!".into())],
            400,
            "INVALID_PARAMETER",
        ),
        (
            vec![("modelId", "-1_999999999".into())],
            404,
            "OBJECT_NOT_FOUND",
        ),
        (
            vec![("modelId", folder_id.clone())],
            400,
            "INVALID_PARAMETER",
        ),
        (
            vec![
                ("modelId", "-1_999999999".into()),
                ("folderId", folder_id.clone()),
            ],
            400,
            "INVALID_PARAMETER",
        ),
        (
            vec![
                ("folderId", folder_id.clone()),
                ("configurationId", "-1_999999999".into()),
            ],
            404,
            "OBJECT_NOT_FOUND",
        ),
        (
            vec![
                ("folderId", folder_id.clone()),
                ("configurationId", folder_id.clone()),
            ],
            400,
            "INVALID_PARAMETER",
        ),
        (
            vec![("folderId", folder_id.clone()), ("modelName", "a/b".into())],
            400,
            "INVALID_PARAMETER",
        ),
    ];
    for (query, status, code) in cases {
        let mut query: Vec<(&str, &str)> = query.iter().map(|(k, v)| (*k, v.as_str())).collect();
        if !query
            .iter()
            .any(|(k, _)| *k == "modelName" || *k == "modelId")
        {
            query.push(("modelName", &name));
        }
        let resp = t.import(sample_archive(), &query).await;
        assert_error(&resp, status, code);
    }
    // Without a key.
    let resp = t
        .send(
            t.anon(Method::POST, "/repository/model/import")
                .query(&[("folderId", folder_id.as_str())])
                .header(CONTENT_TYPE, "application/zip")
                .body(sample_archive()),
        )
        .await;
    assert_error(&resp, 401, "AUTHENTICATION_ERROR");
    let tree = t
        .get_q(
            "/operations/repositoryBrowse",
            &[("repositoryPath", &format!("/{folder}"))],
        )
        .await;
    assert_eq!(
        tree.ok()["links"].as_array().map(Vec::len),
        Some(1),
        "only Config: {}",
        tree.describe()
    );
    let resp = t
        .get_q(
            "/configuration/listModels",
            &[("configurationId", &configuration)],
        )
        .await;
    assert_eq!(resp.ok(), &json!([]));
    if !before.is_null() {
        assert_eq!(t.snapshot().await, before, "refused imports change nothing");
    }
}

pub async fn reimport_bad_archive_leaves_model_unchanged(t: &Target) {
    let imported = t.import_sample().await;
    let before = t
        .export(
            &imported.model_id,
            &[("exportDataProfilingAndSampling", "true")],
        )
        .await;
    assert_eq!(before.status, 200, "{}", before.describe());
    let sample = Sample::load();
    let bad_archives = vec![
        with_objects(|_, rows| {
            let first = rows[0].clone();
            rows.push(first);
        }),
        with_objects(|header, rows| {
            let parent = column(header, "parent_native_id");
            let last = rows.len() - 1;
            rows[last].resize(header.len(), String::new());
            rows[last][parent] = "conformance-no-such-parent".to_owned();
        }),
        zip_map(&sample.with_file(
            "attributes.csv",
            Some(b"native_id,attribute,value_type,value\nconformance-nobody,X,String,x\n".to_vec()),
        )),
        b"PK\x03\x04 not really".to_vec(),
    ];
    for archive in bad_archives {
        let resp = t.import(archive, &[("modelId", &imported.model_id)]).await;
        assert_error(&resp, 400, "INVALID_PARAMETER");
        let after = t
            .export(
                &imported.model_id,
                &[("exportDataProfilingAndSampling", "true")],
            )
            .await;
        assert_eq!(
            after.bytes, before.bytes,
            "a refused re-import leaves the model as it was"
        );
    }
}

/// Calls `edit` on the local header (from its signature) and the central directory
/// record (from its signature) of the entry named `name`; returns how many it found.
fn patch_entry(zip: &mut [u8], name: &str, edit: impl Fn(&mut [u8], &mut [u8])) -> usize {
    let name = name.as_bytes();
    let field = |z: &[u8], p: usize| usize::from(u16::from_le_bytes([z[p], z[p + 1]]));
    let mut local = None;
    let mut central = None;
    let mut at = 0;
    while at + 46 <= zip.len() {
        if zip[at..at + 4] == *b"PK\x03\x04"
            && zip.get(at + 30..at + 30 + field(zip, at + 26)) == Some(name)
        {
            local = Some(at);
        }
        if zip[at..at + 4] == *b"PK\x01\x02"
            && zip.get(at + 46..at + 46 + field(zip, at + 28)) == Some(name)
        {
            central = Some(at);
        }
        at += 1;
    }
    let (Some(l), Some(c)) = (local, central) else {
        return usize::from(local.is_some()) + usize::from(central.is_some());
    };
    let mut local_header = zip[l..l + 30].to_vec();
    let mut central_header = zip[c..c + 46].to_vec();
    edit(&mut local_header, &mut central_header);
    zip[l..l + 30].copy_from_slice(&local_header);
    zip[c..c + 46].copy_from_slice(&central_header);
    2
}

pub async fn import_tolerates_csv_variants(t: &Target) {
    // What spreadsheets write: a byte order mark, CRLF line ends, upper-case headers,
    // columns in another order. The model is the same as from the plain sample.
    let sample = Sample::load();
    let mut variant = BTreeMap::new();
    for (name, data) in &sample.files {
        let reordered = rewrite_csv_ending(data, csv::Terminator::CRLF, |header, rows| {
            header.reverse();
            for h in header.iter_mut() {
                *h = h.to_uppercase();
            }
            for row in rows.iter_mut() {
                row.reverse();
            }
        });
        let mut bytes = b"\xEF\xBB\xBF".to_vec();
        bytes.extend_from_slice(&reordered);
        variant.insert(name.clone(), bytes);
    }
    let (plain_folder, _) = t.unique_folder("csv-plain").await;
    let (variant_folder, _) = t.unique_folder("csv-variant").await;
    let resp = t
        .import(sample_archive(), &[("folderId", &plain_folder)])
        .await;
    let plain = resp.ok()["modelId"].as_str().expect("modelId").to_owned();
    let resp = t
        .import(zip_map(&variant), &[("folderId", &variant_folder)])
        .await;
    assert_summary(resp.ok(), &sample.name, true, sample.objects.len());
    let imported = resp.ok()["modelId"].as_str().expect("modelId").to_owned();
    let query = [("exportDataProfilingAndSampling", "true")];
    let expected = t.export(&plain, &query).await;
    let found = t.export(&imported, &query).await;
    assert_eq!(found.status, 200, "{}", found.describe());
    if found.bytes != expected.bytes {
        let (expected, found) = (unzip(&expected.bytes), unzip(&found.bytes));
        panic!(
            "the variant archive gives another model than the plain sample: {}",
            crate::harness::first_difference(&expected, &found)
        );
    }
}

pub async fn import_concurrent_name_clash_conflict(t: &Target) {
    // Model names are unique in a folder even when many clients import at once: one
    // import wins, the others get 409.
    let (folder_id, folder) = t.unique_folder("import-race").await;
    let name = unique("Racing");
    let imports = (0..8).map(|_| {
        let query = [("folderId", folder_id.clone()), ("modelName", name.clone())];
        async move {
            let query: Vec<(&str, &str)> = query.iter().map(|(k, v)| (*k, v.as_str())).collect();
            t.import(sample_archive(), &query).await
        }
    });
    let answers = super::repository::futures_join_all(imports).await;
    let created = answers.iter().filter(|r| r.status == 200).count();
    for resp in answers.iter().filter(|r| r.status != 200) {
        assert_error(resp, 409, "CONFLICT");
    }
    let tree = t
        .get_q(
            "/operations/repositoryBrowse",
            &[("repositoryPath", &format!("/{folder}"))],
        )
        .await;
    let models = tree.ok()["links"]
        .as_array()
        .map(Vec::len)
        .unwrap_or_default();
    assert_eq!(
        (created, models),
        (1, 1),
        "8 concurrent imports named {name}: {created} succeeded and the folder holds {models} models"
    );
}

// ---------------------------------------------------------------------------------------
// Re-import by difference

/// The sample's files without the rows of `gone` (in every file) and with the
/// description of `changed` replaced.
fn sample_without(sample: &Sample, gone: &str, changed: &str, description: &str) -> Vec<u8> {
    let mut files = sample.files.clone();
    for (name, data) in files.iter_mut() {
        if name == "model.csv" || name == "connections.csv" {
            continue;
        }
        *data = rewrite_csv(data, |header, rows| {
            let refs: Vec<usize> = header
                .iter()
                .enumerate()
                .filter(|(_, h)| h.trim().to_ascii_lowercase().ends_with("native_id"))
                .map(|(i, _)| i)
                .collect();
            rows.retain(|row| !refs.iter().any(|&i| row.get(i).is_some_and(|c| c == gone)));
            if name == "objects.csv" {
                let native = column(header, "native_id");
                let at = header
                    .iter()
                    .position(|h| h.trim().eq_ignore_ascii_case("description"));
                let at = match at {
                    Some(at) => at,
                    None => {
                        header.push("description".to_owned());
                        header.len() - 1
                    }
                };
                for row in rows.iter_mut() {
                    row.resize(header.len(), String::new());
                    if row[native] == changed {
                        row[at] = description.to_owned();
                    }
                }
            }
        });
    }
    zip_map(&files)
}

#[track_caller]
fn assert_counts(summary: &Value, objects: usize, counts: [usize; 4]) {
    let got = ["added", "updated", "removed", "unchanged"].map(|k| {
        summary[k]
            .as_u64()
            .unwrap_or_else(|| panic!("summary has {k}: {summary}")) as usize
    });
    assert_eq!(
        got, counts,
        "[added, updated, removed, unchanged] of {summary}"
    );
    assert_eq!(summary["objectCount"], json!(objects), "{summary}");
}

pub async fn reimport_keeps_curation(t: &Target) {
    use lore_core::ObjectId;
    use lore_core::model::{Edge, EdgeKind, Grant};
    use lore_core::store::{Batch, Op, Scope};

    let sample = Sample::load();
    let imported = t.import_sample().await;
    let other = t.import_sample().await;
    let ids = ids_by_native(t, &sample, &imported.path).await;
    let other_ids = ids_by_native(t, &sample, &other.path).await;

    // The object that vanishes: a leaf, preferably the target of a relationship.
    let parents: Vec<&str> = sample
        .objects
        .iter()
        .map(|r| cell(r, "parent_native_id"))
        .collect();
    let relationships = sample.rows("relationships.csv");
    let leaves: Vec<&String> = ids
        .keys()
        .filter(|n| !parents.contains(&n.as_str()))
        .collect();
    let gone = leaves
        .iter()
        .find(|n| {
            relationships
                .iter()
                .any(|r| cell(r, "target_native_id") == n.as_str())
        })
        .or(leaves.first())
        .expect("the sample has a leaf")
        .to_string();
    let changed = ids
        .keys()
        .find(|n| **n != gone)
        .expect("another object")
        .clone();
    let mut expect_updated: Vec<String> = relationships
        .iter()
        .filter(|r| cell(r, "target_native_id") == gone && cell(r, "source_native_id") != gone)
        .map(|r| cell(r, "source_native_id").to_owned())
        .collect();
    expect_updated.push(changed.clone());
    expect_updated.sort();
    expect_updated.dedup();
    let total = sample.objects.len();

    // Curation no archive carries: edges from another model, grants on objects.
    let store = t.store().cloned();
    let id = |text: &str| text.parse::<ObjectId>().expect("an object id");
    let (kept_id, gone_id) = (id(&ids[&changed].0), id(&ids[&gone].0));
    let source = id(&other_ids[&changed].0);
    let edge = |target| Edge {
        kind: EdgeKind::SemanticLink,
        source,
        target,
        name: "Conformance Curation".to_owned(),
        origin: None,
    };
    let mut grantee = None;
    if let Some(store) = &store {
        let admin = store
            .user_by_name(&t.user)
            .await
            .expect("reading users")
            .expect("the administrator");
        grantee = Some(admin.id);
        let grant = |object| Grant {
            grantee: admin.id,
            role: "Data Viewer".to_owned(),
            object: Some(object),
        };
        store
            .apply(Batch::from(vec![
                Op::AddEdge(edge(kept_id)),
                Op::AddEdge(edge(gone_id)),
                Op::AddGrant(grant(kept_id)),
                Op::AddGrant(grant(gone_id)),
            ]))
            .await
            .expect("adding curation");
    }

    // A broken re-import leaves everything as it was, curation included.
    let state = async || match &store {
        None => Value::Null,
        Some(store) => {
            let number = id(&imported.model_id).object;
            let objects = store.model_objects(number).await.expect("objects");
            let details = store.details(Scope::Model(number)).await.expect("details");
            let grants = store
                .grants_of(grantee.expect("a grantee"))
                .await
                .expect("grants");
            Value::String(format!("{objects:?}\n{details:?}\n{grants:?}"))
        }
    };
    let before = state().await;
    let export_before = t.export(&imported.model_id, &[]).await;
    let mut broken = sample.files.clone();
    broken.insert(
        "labels.csv".to_owned(),
        b"native_id,kind,value\nconformance-nobody,label,x\n".to_vec(),
    );
    let resp = t
        .import(zip_map(&broken), &[("modelId", &imported.model_id)])
        .await;
    assert_error(&resp, 400, "INVALID_PARAMETER");
    assert_eq!(state().await, before, "a refused re-import writes nothing");
    assert_eq!(
        t.export(&imported.model_id, &[]).await.bytes,
        export_before.bytes
    );

    // The re-import: one object gone, one changed.
    let archive = sample_without(&sample, &gone, &changed, "Changed by the conformance suite");
    let resp = t
        .import(archive.clone(), &[("modelId", &imported.model_id)])
        .await;
    let summary = resp.ok().clone();
    assert_summary(&summary, &imported.model_name, false, total - 1);
    let updated = expect_updated.len();
    assert_counts(&summary, total - 1, [0, updated, 1, total - 1 - updated]);

    // The changed object: same id, same stable id, new description.
    for (native, (object_id, stable)) in &ids {
        if *native == gone {
            continue;
        }
        let resp = t.entity(object_id).await;
        let entity = resp.ok();
        let stable_after = entity["attributes"].as_array().and_then(|a| {
            a.iter()
                .find(|a| a["attributeType"]["name"] == json!("Object Stable Id"))
                .and_then(|a| a["value"].as_str())
        });
        assert_eq!(
            stable_after,
            Some(stable.as_str()),
            "{native} keeps its ids"
        );
    }
    let entity = t.entity(&ids[&changed].0).await;
    assert!(
        entity.text().contains("Changed by the conformance suite"),
        "{}",
        entity.describe()
    );
    assert_error(&t.entity(&ids[&gone].0).await, 404, "OBJECT_NOT_FOUND");

    if let Some(store) = &store {
        let edges = store
            .edges(EdgeKind::SemanticLink, source, false)
            .await
            .expect("edges");
        assert!(
            edges.contains(&edge(kept_id)),
            "an edge from another model stays"
        );
        assert!(
            !edges.contains(&edge(gone_id)),
            "an edge to a vanished object goes"
        );
        let grants = store
            .grants_of(grantee.expect("a grantee"))
            .await
            .expect("grants");
        assert!(
            grants.iter().any(|g| g.object == Some(kept_id)),
            "a grant on a surviving object stays"
        );
        assert!(
            !grants.iter().any(|g| g.object == Some(gone_id)),
            "a grant on a vanished object goes"
        );
    }

    // The same archive again writes nothing.
    let before = state().await;
    let model_before = t.entity(&imported.model_id).await.ok().clone();
    let export_before = t.export(&imported.model_id, &[]).await;
    let resp = t.import(archive, &[("modelId", &imported.model_id)]).await;
    assert_counts(resp.ok(), total - 1, [0, 0, 0, total - 1]);
    assert_eq!(
        state().await,
        before,
        "an unchanged re-import writes nothing"
    );
    assert_eq!(
        t.entity(&imported.model_id).await.ok(),
        &model_before,
        "an unchanged re-import leaves the model's timestamps"
    );
    assert_eq!(
        t.export(&imported.model_id, &[]).await.bytes,
        export_before.bytes
    );

    // And the sample again: the vanished object comes back as a new one.
    let resp = t
        .import(sample_archive(), &[("modelId", &imported.model_id)])
        .await;
    assert_counts(resp.ok(), total, [1, updated, 0, total - 1 - updated]);
}

/// A re-import puts back what curation changed of what the archive carries, although the
/// import keeps each object's fingerprint: a system attribute set on a table and a
/// workflow step on its schema make exactly those two objects updated, with the
/// archive's values again; the next re-import finds every object unchanged. Where the
/// store is at hand, every object first gets an edge to another model, which the
/// archive does not carry but which drops every stored fingerprint: each object is
/// then compared by its contents, and only the two curated ones differ; afterwards
/// every object has its fingerprint again.
pub async fn reimport_restores_what_curation_changed(t: &Target) {
    use lore_core::ObjectId;
    use lore_core::model::{Edge, EdgeKind};
    use lore_core::store::{Batch, Op};

    let imported = t.import_sample().await;
    let total = Sample::load().objects.len();
    let number = imported
        .model_id
        .parse::<ObjectId>()
        .expect("a model id")
        .content_model();
    let store = t.store().cloned();
    if let Some(store) = &store {
        let other = t.import_sample().await;
        let other = other.model_id.parse::<ObjectId>().expect("a model id");
        let target = store
            .model_objects_page(other.content_model(), None, 1)
            .await
            .expect("the other model's objects")[0]
            .id;
        let objects = store.model_objects(number).await.expect("objects");
        let edges = objects.iter().map(|o| {
            Op::AddEdge(Edge {
                kind: EdgeKind::SemanticLink,
                source: o.id,
                target,
                name: "Conformance Curation".to_owned(),
                origin: None,
            })
        });
        store
            .apply(Batch::from(edges.collect::<Vec<_>>()))
            .await
            .expect("edges to another model");
        let prints = store
            .model_prints_page(number, None, total + 1)
            .await
            .expect("prints");
        assert!(
            prints.iter().all(|o| o.print.is_none()),
            "every print dropped"
        );
    }
    let id_of = async |path: String| -> String {
        let resp = t.entity(&path).await;
        resp.ok()["id"].as_str().expect("an id").to_owned()
    };
    let table = id_of(format!("{}/Sales DB/sales/customer", imported.path)).await;
    let schema = id_of(format!("{}/Sales DB/sales", imported.path)).await;
    let description = |entity: &Value| {
        entity["attributes"]
            .as_array()
            .expect("attributes")
            .iter()
            .find(|a| a["attributeType"]["name"] == json!("Business Description"))
            .map(|a| a["value"].clone())
    };
    let archived = description(t.entity(&table).await.ok());
    t.put(
        "/repository/setAttributes",
        &[],
        &json!({"id": table, "values": [{
            "attributeType": {"type": "SYSTEM_ATTRIBUTE", "name": "Business Description"},
            "value": "Curated by the conformance suite."
        }]}),
    )
    .await
    .ok();
    let workflow = format!("/workflow/{}", crate::harness::encode_segment(&schema));
    let resp = t
        .post(&workflow, &[], &json!({"action": "Submit for Approval"}))
        .await;
    assert_eq!(resp.ok()["workflowState"], json!("Pending Approval"));

    let model = imported.model_id.as_str();
    let again = async |expected: [usize; 4]| {
        let resp = t.import(sample_archive(), &[("modelId", model)]).await;
        assert_counts(resp.ok(), total, expected);
    };
    again([0, 2, 0, total - 2]).await;
    assert_eq!(description(t.entity(&table).await.ok()), archived);
    let entity = t.entity(&schema).await;
    assert_ne!(
        entity.ok()["workflowState"],
        json!("Pending Approval"),
        "{}",
        entity.describe()
    );
    again([0, 0, 0, total]).await;
    if let Some(store) = &store {
        let prints = store
            .model_prints_page(number, None, total + 1)
            .await
            .expect("prints");
        assert_eq!(prints.len(), total);
        assert!(
            prints.iter().all(|o| o.print.is_some()),
            "every object has its print again"
        );
    }
}
