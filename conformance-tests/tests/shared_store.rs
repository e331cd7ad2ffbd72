//! Several Lore processes over one database, as behind a load balancer: they start
//! together on an empty store (one administrator is created), accept each other's API
//! keys, see each other's writes (an entity one of them read before included), and a
//! logout on one ends the key on all.

use std::sync::Arc;

use lore_backend_postgres::PostgresStore;
use lore_backend_sqlite::SqliteStore;
use lore_conformance::harness::{Target, assert_error};
use lore_conformance::postgres::TestDatabase;
use lore_conformance::store_contract::{
    entity_reads_follow_writes, repository_version_follows_writes,
};
use lore_core::Store;
use serde_json::json;

/// How many objects the server's search for the term finds (countMQLQuery).
async fn searched(target: &Target, key: &str, term: &str) -> u64 {
    let request = target
        .client
        .get(target.url("/entities/countMQLQuery"))
        .query(&[("select", "Name"), ("where", &format!("text = '{term}'"))])
        .header("api-key", key);
    let resp = target.send(request).await;
    resp.ok()
        .as_u64()
        .unwrap_or_else(|| panic!("{}", resp.describe()))
}

async fn two_servers_share_one_store(a: Arc<dyn Store>, b: Arc<dyn Store>) {
    let backend = a.backend();
    // Both start at once over the empty store: exactly one creates the administrator.
    let (first, second) = tokio::join!(Target::spawn(a), Target::spawn(b));
    for target in [&first, &second] {
        let key = target.login().await;
        assert!(
            !key.is_empty(),
            "{backend}: the administrator can log in on every server"
        );
    }

    let key = first.login().await;
    let on_second = |path: &str| {
        second
            .client
            .get(second.url(path))
            .header("api-key", key.clone())
    };
    let resp = second.send(on_second("/types/listProfiles")).await;
    assert_eq!(
        resp.status,
        200,
        "{backend}: a key from one server works on another: {}",
        resp.describe()
    );

    // A write on one server is read on the other.
    let name = lore_conformance::harness::unique("shared");
    let created = first
        .send(
            first
                .client
                .post(first.url("/repository/createFolder"))
                .header("api-key", key.clone())
                .json(&json!({ "name": name })),
        )
        .await;
    assert_eq!(
        created.status,
        200,
        "{backend}: createFolder: {}",
        created.describe()
    );
    let id = created.ok()["id"]
        .as_str()
        .expect("the folder has an id")
        .to_owned();
    let read = second.send(on_second(&format!("/entities/{id}"))).await;
    assert_eq!(
        read.status,
        200,
        "{backend}: the other server reads the new folder: {}",
        read.describe()
    );
    assert_eq!(read.ok()["name"], json!(name));

    // The second server's cached meta model follows a change made through the first:
    // importing the sample adds the custom attribute type "Security Level".
    let has_security_level = |resp: &lore_conformance::harness::Resp| {
        resp.ok_array()
            .iter()
            .any(|t| t["name"] == json!("Security Level"))
    };
    let before = second.send(on_second("/types/listAttributeTypes")).await;
    assert!(
        !has_security_level(&before),
        "{backend}: a fresh store has no custom attribute types"
    );
    first.import_sample().await;
    let after = second.send(on_second("/types/listAttributeTypes")).await;
    assert!(
        has_security_level(&after),
        "{backend}: the other server sees the attribute type the import added: {}",
        after.describe()
    );

    // A search on the second server follows a write on the first: what a search found
    // is kept only while the catalog is as it was, whoever writes to it.
    let before = searched(&second, &key, "customer").await;
    assert!(before > 0, "{backend}: the sample holds the term");
    assert_eq!(searched(&second, &key, "customer").await, before);
    first.import_sample().await;
    assert_eq!(
        searched(&second, &key, "customer").await,
        2 * before,
        "{backend}: the other server's search finds what the first imported since"
    );

    // A caller the second server knows (it read the key's grants on its first call)
    // loses at its next call there what the first server takes away.
    let viewer = lore_conformance::harness::unique("viewer");
    let password = lore_conformance::harness::unique("Password");
    let on_first = &first;
    let admin = |method: reqwest::Method, path: &str, body: serde_json::Value| {
        let request = on_first
            .client
            .request(method, on_first.url(path))
            .header("api-key", key.clone())
            .json(&body);
        async move {
            on_first.send(request).await.ok();
        }
    };
    admin(
        reqwest::Method::POST,
        "/admin/users",
        json!({"name": viewer, "password": password}),
    )
    .await;
    let grant = json!({"grantee": viewer, "granteeType": "USER", "roles": ["Metadata Viewer"]});
    admin(
        reqwest::Method::PUT,
        "/admin/grants/grantGlobalRoles",
        grant.clone(),
    )
    .await;
    let login = second
        .send(
            second
                .client
                .post(second.url("/auth/login"))
                .json(&json!({"user": viewer, "password": password})),
        )
        .await;
    let viewer_key = login.ok()["token"]
        .as_str()
        .expect("login answers a token")
        .to_owned();
    let as_viewer = || {
        second
            .client
            .get(second.url("/types/listProfiles"))
            .header("api-key", viewer_key.clone())
    };
    for _ in 0..2 {
        let resp = second.send(as_viewer()).await;
        assert_eq!(resp.status, 200, "{backend}: {}", resp.describe());
    }
    admin(
        reqwest::Method::PUT,
        "/admin/grants/revokeGlobalRole",
        json!({"grantee": viewer, "granteeType": "USER", "role": "Metadata Viewer"}),
    )
    .await;
    assert_error(&second.send(as_viewer()).await, 403, "PERMISSION_DENIED");
    admin(
        reqwest::Method::PUT,
        "/admin/grants/grantGlobalRoles",
        grant,
    )
    .await;
    assert_eq!(
        second.send(as_viewer()).await.status,
        200,
        "{backend}: granted again"
    );
    admin(
        reqwest::Method::PUT,
        "/admin/users",
        json!({"name": viewer, "enabled": false}),
    )
    .await;
    assert_error(&second.send(as_viewer()).await, 401, "AUTHENTICATION_ERROR");

    // Logout on the second server ends the key on the first.
    let logout = second
        .send(
            second
                .client
                .post(second.url("/auth/logout"))
                .header("api-key", key.clone()),
        )
        .await;
    assert_eq!(
        logout.status,
        200,
        "{backend}: logout: {}",
        logout.describe()
    );
    let after = first
        .send(
            first
                .client
                .get(first.url("/types/listProfiles"))
                .header("api-key", key.clone()),
        )
        .await;
    assert_error(&after, 401, "AUTHENTICATION_ERROR");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_entity_reads_follow_writes_of_another_process() {
    let Some(db) = TestDatabase::create().await else {
        return;
    };
    let reader = PostgresStore::open(&db.url).await.expect("the reader");
    let writer = PostgresStore::open(&db.url).await.expect("the writer");
    entity_reads_follow_writes(&reader, &writer).await;
    repository_version_follows_writes(&reader, &writer).await;
    drop(db);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_entity_reads_follow_writes_of_another_process() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("lore.db");
    let reader = SqliteStore::open(&path).await.expect("the reader");
    let writer = SqliteStore::open(&path).await.expect("the writer");
    entity_reads_follow_writes(&reader, &writer).await;
    repository_version_follows_writes(&reader, &writer).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_servers_share_keys_and_data() {
    let Some(db) = TestDatabase::create().await else {
        return;
    };
    let a = PostgresStore::open(&db.url)
        .await
        .expect("connecting the first server");
    let b = PostgresStore::open(&db.url)
        .await
        .expect("connecting the second server");
    two_servers_share_one_store(Arc::new(a), Arc::new(b)).await;
    drop(db);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_servers_share_keys_and_data() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let path = dir.path().join("lore.db");
    let a = SqliteStore::open(&path)
        .await
        .expect("opening the first store");
    let b = SqliteStore::open(&path)
        .await
        .expect("opening the second store");
    two_servers_share_one_store(Arc::new(a), Arc::new(b)).await;
}
