//! One request's caller is its viewer: what they may see is worked out by the first call
//! that needs it and kept for the request's other calls (`Caller`'s `Seen`), and a write
//! in the same request that changes what they may see is seen by the calls after it.
//! Over SQLite and PostgreSQL, whose stores keep a repository version (the memory store
//! keeps none and works it out at every call).

use std::sync::Arc;

use lore_backend_postgres::PostgresStore;
use lore_backend_sqlite::SqliteStore;
use lore_conformance::postgres::TestDatabase;
use lore_core::catalog::{
    BrowseNode, CatalogConfig, FolderRequest, GranteeRef, NewUser, RoleDefinition,
};
use lore_core::model::ObjectKind;
use lore_core::{Catalog, ErrorCode, ObjectRef, Store};

const PASSWORD: &str = "a-long-enough-password";

fn folder(parent: Option<&str>, name: &str) -> FolderRequest {
    FolderRequest {
        parent_id: parent.map(str::to_owned),
        name: Some(name.to_owned()),
        description: None,
        object_type: None,
    }
}

fn id(text: &str) -> ObjectRef {
    ObjectRef::parse(text).expect("an object id")
}

async fn a_request_sees_what_it_wrote(store: Arc<dyn Store>) {
    let catalog = Catalog::new(store, CatalogConfig::default());
    let identity = catalog.identity();
    identity.bootstrap(Some(PASSWORD)).await.expect("bootstrap");
    let key = identity
        .login("Administrator", PASSWORD, false)
        .await
        .expect("login");
    let admin = identity
        .authenticate(&key)
        .await
        .expect("the administrator");
    identity
        .put_role(
            &admin,
            RoleDefinition {
                name: Some("Folder Keeper".into()),
                description: None,
                global: Some(false),
                capabilities: vec!["ViewMetadata".into(), "ManageRepository".into()],
            },
        )
        .await
        .expect("an object role");
    let objects = catalog.objects();
    let team = objects
        .create_folder(&admin, &folder(None, "Team"))
        .await
        .expect("the folder Team");
    identity
        .create_user(
            &admin,
            NewUser {
                name: Some("keeper".into()),
                password: Some(PASSWORD.into()),
                enabled: Some(true),
                ..NewUser::default()
            },
        )
        .await
        .expect("a user");
    identity
        .grant_object_role(
            &admin,
            &id(&team.id),
            &GranteeRef {
                reference: "keeper".into(),
                kind: None,
            },
            "Folder Keeper",
        )
        .await
        .expect("the object role on Team");

    // One request of the keeper's: its calls share what the caller may see.
    let key = identity
        .login("keeper", PASSWORD, false)
        .await
        .expect("login");
    let keeper = identity.authenticate(&key).await.expect("the keeper");
    objects
        .get_entity(&keeper, &id(&team.id))
        .await
        .expect("Team is seen");
    let names = |nodes: Vec<BrowseNode>| -> Vec<String> {
        fn walk(nodes: &[BrowseNode], out: &mut Vec<String>) {
            for node in nodes {
                out.push(node.object_name.clone());
                walk(&node.links, out);
            }
        }
        let mut out = Vec::new();
        walk(&nodes, &mut out);
        out
    };
    let browsed = objects
        .repository_browse(&keeper, "/Team", &[ObjectKind::Folder])
        .await
        .expect("Team browsed");
    assert!(!names(browsed).contains(&"Inner".to_owned()));
    let inner = objects
        .create_folder(&keeper, &folder(Some(&team.id), "Inner"))
        .await
        .expect("a folder in Team");
    let read = objects
        .get_entity(&keeper, &id(&inner.id))
        .await
        .expect("the folder this request made is seen by its next call");
    assert_eq!(read.name, "Inner");
    // Lists filter by the caller's sight, kept since the first call of the request: the
    // write moved the repository's version, so it is worked out again.
    let browsed = objects
        .repository_browse(&keeper, "/Team", &[ObjectKind::Folder])
        .await
        .expect("Team browsed");
    assert!(
        names(browsed).contains(&"Inner".to_owned()),
        "the folder this request made is listed"
    );
    // A folder made elsewhere in the meantime stays hidden, as in any request.
    let other = objects
        .create_folder(&admin, &folder(None, "Other"))
        .await
        .expect("the folder Other");
    let hidden = objects
        .get_entity(&keeper, &id(&other.id))
        .await
        .expect_err("Other is not the keeper's");
    assert_eq!(hidden.code, ErrorCode::ObjectNotFound, "{}", hidden.message);
    // And the same request sees Inner again, Team too.
    for folder in [&team.id, &inner.id] {
        objects
            .get_entity(&keeper, &id(folder))
            .await
            .expect("still seen");
    }
}

#[tokio::test]
async fn a_request_sees_what_it_wrote_on_sqlite() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let store = SqliteStore::open(&dir.path().join("lore.db"))
        .await
        .expect("opening the SQLite store");
    a_request_sees_what_it_wrote(Arc::new(store)).await;
}

#[tokio::test]
async fn a_request_sees_what_it_wrote_on_postgres() {
    let Some(db) = TestDatabase::create().await else {
        return;
    };
    let store = PostgresStore::open(&db.url)
        .await
        .expect("connecting to the test database");
    a_request_sees_what_it_wrote(Arc::new(store)).await;
}
