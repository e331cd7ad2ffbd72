//! Store contract cases (registered in [`crate::store_contract::cases`]) for what must mean the same on every backend (timestamps, NaN
//! and NUL, error codes), for write transactions read from outside while they are open,
//! and for the one-read caller lookup. Each case takes a fresh, empty store.

// The store's own reads of objects by id, pinned here, are what the sight lint keeps
// from request code.
#![allow(clippy::disallowed_methods)]

use std::sync::Arc;
use std::time::Duration as StdDuration;

use chrono::{DateTime, Duration};
use lore_core::error::{ErrorCode, Result};
use lore_core::id::{ObjectId, REPOSITORY_MODEL};
use lore_core::model::*;
use lore_core::store::{Batch, Op, Store};

fn ok<T>(result: Result<T>, what: &str) -> T {
    match result {
        Ok(value) => value,
        Err(e) => panic!("{what}: the store failed with {e}"),
    }
}

fn fails<T: std::fmt::Debug>(result: Result<T>, code: ErrorCode, what: &str) {
    match result {
        Ok(value) => panic!("{what}: expected a {code} error, got Ok({value:?})"),
        Err(e) => assert_eq!(e.code, code, "{what}: expected a {code} error, got {e}"),
    }
}

fn folder(id: i64, name: &str) -> Object {
    Object::new(
        ObjectId::repository(id),
        ObjectKind::Folder,
        TypeName::new(REPOSITORY_PROFILE, ObjectKind::Folder.as_str()),
        SystemType::Namespace,
        name,
    )
}

fn user(id: i64, name: &str) -> User {
    User {
        id: ObjectId::repository(id),
        name: name.to_owned(),
        full_name: String::new(),
        email: String::new(),
        description: String::new(),
        password_hash: None,
        enabled: true,
        created_at: now(),
        external: None,
    }
}

fn session(key: &str, user: i64, expires_in: Duration) -> Session {
    let created = now();
    Session {
        key_hash: key.to_owned(),
        user: ObjectId::repository(user),
        created_at: created,
        expires_at: created + expires_in,
        last_seen_at: created,
    }
}

/// A timestamp with nanoseconds, which every backend keeps to the microsecond.
fn nanos() -> (Timestamp, Timestamp) {
    let exact = DateTime::from_timestamp(1_700_000_000, 123_456_789).expect("in range");
    let micros = DateTime::from_timestamp(1_700_000_000, 123_456_000).expect("in range");
    (exact, micros)
}

/// Timestamps come back in UTC at microsecond precision, on objects, attribute values,
/// users and sessions alike.
pub async fn timestamps_keep_microseconds(store: Arc<dyn Store>) {
    let (exact, micros) = nanos();
    let mut object = folder(1, "f");
    object.created_at = exact;
    object.updated_at = exact;
    let mut u = user(2, "timekeeper");
    u.created_at = exact;
    ok(
        store
            .apply(Batch::from(vec![
                Op::PutObject(object),
                Op::SetAttribute(AttributeValue {
                    object: ObjectId::repository(1),
                    attribute: "When".into(),
                    value: Value::DateTime(exact),
                }),
                Op::PutUser(u),
            ]))
            .await,
        "writing nanosecond timestamps",
    );
    let read = ok(store.object(ObjectId::repository(1)).await, "reading").expect("stored");
    assert_eq!((read.created_at, read.updated_at), (micros, micros));
    let details = ok(
        store
            .details(lore_core::store::Scope::Objects(vec![
                ObjectId::repository(1),
            ]))
            .await,
        "reading details",
    );
    assert_eq!(details.attributes[0].value, Value::DateTime(micros));
    let u = ok(store.user(ObjectId::repository(2)).await, "reading").expect("stored");
    assert_eq!(u.created_at, micros);
    let mut s = session("k", 2, Duration::days(3650));
    s.expires_at = exact + Duration::days(36500);
    ok(store.put_session(s).await, "writing a session");
    let s = ok(store.session("k", now()).await, "reading").expect("stored");
    assert_eq!(s.expires_at, micros + Duration::days(36500));
}

/// NaN and the NUL character are refused with INVALID_PARAMETER, and nothing of the
/// batch lands.
pub async fn nan_and_nul_are_invalid_everywhere(store: Arc<dyn Store>) {
    let id = ObjectId::repository(1);
    let cases: Vec<(&str, Op)> = vec![
        (
            "a NaN attribute",
            Op::SetAttribute(AttributeValue {
                object: id,
                attribute: "Score".into(),
                value: Value::Double(f64::NAN),
            }),
        ),
        ("a NUL in an object name", Op::PutObject(folder(2, "a\0b"))),
        (
            "a NUL in an attribute value",
            Op::SetAttribute(AttributeValue {
                object: id,
                attribute: "Note".into(),
                value: Value::Text("x\0".into()),
            }),
        ),
        (
            "a NUL in a tag",
            Op::AddTag(Tag {
                object: id,
                kind: TagKind::Label,
                value: "\0".into(),
            }),
        ),
        ("a NUL in a user name", Op::PutUser(user(3, "bad\0name"))),
        (
            "a NUL in profiling",
            Op::SetProfiling(Profiling {
                object: id,
                profile: None,
                sample: Some(DataSample {
                    header: vec!["c".into()],
                    samples: vec![vec![serde_json::json!("v\0")]],
                }),
            }),
        ),
    ];
    for (what, op) in cases {
        let result = store
            .apply(Batch::from(vec![Op::PutObject(folder(1, "kept out")), op]))
            .await;
        fails(result, ErrorCode::InvalidParameter, what);
        assert_eq!(
            ok(store.object(id).await, "reading"),
            None,
            "{what}: nothing of the batch lands"
        );
    }
    fails(
        store
            .put_session(session("a\0", 1, Duration::hours(1)))
            .await,
        ErrorCode::InvalidParameter,
        "a NUL in a session key",
    );
}

/// The same failure is the same error code on every backend.
pub async fn the_same_failure_has_the_same_code(store: Arc<dyn Store>) {
    ok(store.reserve_ids(77, 10).await, "reserving ids");
    fails(
        store.reserve_ids(77, u64::MAX).await,
        ErrorCode::InvalidParameter,
        "reserving more ids than an i64 holds",
    );
    fails(
        store.reserve_ids(77, (i64::MAX - 5) as u64).await,
        ErrorCode::InvalidParameter,
        "reserving past the end of the id space",
    );
    let next = ok(store.reserve_ids(77, 1).await, "reserving after a refusal");
    assert_eq!(next, 11, "a refused reservation takes no ids");
    assert_eq!(
        ok(store.reserve_ids(8, i64::MAX as u64 - 1).await, "reserving"),
        1
    );
    fails(
        store.reserve_ids(8, 2).await,
        ErrorCode::InvalidParameter,
        "an id space overflow",
    );
    assert_eq!(
        ok(store.reserve_ids(8, 0).await, "reserving nothing"),
        i64::MAX,
        "a refused reservation takes no ids"
    );

    ok(
        store
            .apply(Batch::from(vec![Op::PutUser(user(1, "Alice"))]))
            .await,
        "writing a user",
    );
    let err = store
        .apply(Batch::from(vec![Op::PutUser(user(2, "ALICE"))]))
        .await
        .expect_err("a user name clash is refused");
    assert_eq!(err.code, ErrorCode::Conflict);
    assert!(
        err.message.contains("a user named 'ALICE' already exists"),
        "the clash names the user: {err}"
    );
    ok(
        store
            .apply(Batch::from(vec![Op::PutObject(folder(5, "Sales"))]))
            .await,
        "writing a folder",
    );
    fails(
        store
            .apply(Batch::from(vec![Op::PutObject(folder(6, "Sales"))]))
            .await,
        ErrorCode::Conflict,
        "a repository name clash",
    );
    fails(
        store
            .apply(Batch::from(vec![Op::ClearModel(REPOSITORY_MODEL)]))
            .await,
        ErrorCode::InvalidParameter,
        "clearing the repository id space",
    );
}

/// A write transaction's writes are invisible from outside until it commits, and a
/// read (authentication included) answers at once while it is open.
pub async fn reads_do_not_wait_for_an_open_transaction(store: Arc<dyn Store>) {
    ok(
        store
            .apply(Batch::from(vec![
                Op::PutObject(folder(1, "before")),
                Op::PutUser(user(2, "reader")),
            ]))
            .await,
        "writing the committed state",
    );
    ok(
        store
            .put_session(session("key", 2, Duration::hours(1)))
            .await,
        "opening a session",
    );
    let mut tx = ok(
        store.begin(lore_core::model::Author::system()).await,
        "beginning a transaction",
    );
    ok(
        tx.write(vec![Op::PutObject(folder(3, "during"))]).await,
        "writing inside the transaction",
    );
    let reads = async {
        let during = ok(store.object(ObjectId::repository(3)).await, "reading");
        let before = ok(store.object(ObjectId::repository(1)).await, "reading");
        let caller = ok(store.principal("key", now()).await, "authenticating");
        (during, before, caller)
    };
    let (during, before, caller) = tokio::time::timeout(StdDuration::from_secs(5), reads)
        .await
        .expect("reads answer while a write transaction is open");
    assert_eq!(during, None, "uncommitted writes are not visible");
    assert!(before.is_some(), "the committed state is");
    assert!(caller.is_some(), "a key still authenticates");
    ok(tx.commit().await, "committing");
    assert!(
        ok(store.object(ObjectId::repository(3)).await, "reading").is_some(),
        "committed writes are visible"
    );
}

/// Dropping an open transaction rolls it back, and the next transaction can start.
pub async fn a_dropped_transaction_leaves_nothing(store: Arc<dyn Store>) {
    let mut tx = ok(
        store.begin(lore_core::model::Author::system()).await,
        "beginning a transaction",
    );
    ok(
        tx.write(vec![Op::PutObject(folder(1, "gone"))]).await,
        "writing a chunk",
    );
    ok(
        tx.write(vec![Op::PutObject(folder(2, "gone too"))]).await,
        "writing a second chunk",
    );
    drop(tx);
    let mut tx = tokio::time::timeout(
        StdDuration::from_secs(5),
        store.begin(lore_core::model::Author::system()),
    )
    .await
    .expect("a new transaction starts after a dropped one")
    .expect("beginning");
    ok(
        tx.write(vec![Op::PutObject(folder(3, "kept"))]).await,
        "writing",
    );
    ok(tx.commit().await, "committing");
    assert_eq!(
        ok(store.object(ObjectId::repository(1)).await, "reading"),
        None
    );
    assert_eq!(
        ok(store.object(ObjectId::repository(2)).await, "reading"),
        None
    );
    assert!(ok(store.object(ObjectId::repository(3)).await, "reading").is_some());
}

/// `principal` reads a session's user, grants and roles in one call, and the meta
/// version moves with writes to the meta model and roles only.
pub async fn principal_and_meta_version(store: Arc<dyn Store>) {
    let role = |name: &str, global: bool| Role {
        name: name.to_owned(),
        description: String::new(),
        global,
        capabilities: vec![Capability::ViewMetadata],
    };
    ok(
        store
            .apply(Batch::from(vec![
                Op::PutUser(user(1, "carol")),
                Op::PutRole(role("Viewer", true)),
                Op::PutRole(role("Steward", false)),
                Op::AddGrant(Grant {
                    grantee: ObjectId::repository(1),
                    role: "Viewer".into(),
                    object: None,
                }),
                Op::AddGrant(Grant {
                    grantee: ObjectId::repository(1),
                    role: "Steward".into(),
                    object: Some(ObjectId::repository(9)),
                }),
                Op::AddGrant(Grant {
                    grantee: ObjectId::repository(1),
                    role: "Unknown".into(),
                    object: None,
                }),
                Op::PutUser(user(2, "dave")),
            ]))
            .await,
        "writing users, roles and grants",
    );
    ok(
        store
            .put_session(session("carol-key", 1, Duration::hours(1)))
            .await,
        "session",
    );
    ok(
        store
            .put_session(session("dave-key", 2, Duration::hours(1)))
            .await,
        "session",
    );
    ok(
        store
            .put_session(session("old-key", 1, Duration::seconds(-1)))
            .await,
        "session",
    );

    let p = ok(store.principal("carol-key", now()).await, "reading").expect("a principal");
    assert_eq!(p.user.name, "carol");
    assert_eq!(p.session.key_hash, "carol-key");
    assert_eq!(
        p.grants,
        ok(store.grants_of(ObjectId::repository(1)).await, "grants")
    );
    let names: Vec<&str> = p.roles.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(
        names,
        ["Steward", "Viewer"],
        "the stored roles the grants name, by name"
    );
    assert_eq!(p.meta_version, ok(store.meta_version().await, "version"));

    let p = ok(store.principal("dave-key", now()).await, "reading").expect("a principal");
    assert!(
        p.grants.is_empty() && p.roles.is_empty(),
        "a user without grants"
    );
    assert_eq!(
        ok(store.principal("old-key", now()).await, "reading"),
        None,
        "expired"
    );
    assert_eq!(
        ok(store.principal("nobody", now()).await, "reading"),
        None,
        "unknown"
    );

    let before = ok(store.meta_version().await, "version");
    ok(
        store
            .apply(Batch::from(vec![Op::PutObject(folder(5, "f"))]))
            .await,
        "writing an object",
    );
    assert_eq!(
        ok(store.meta_version().await, "version"),
        before,
        "objects leave it"
    );
    ok(
        store
            .apply(Batch::from(vec![Op::PutAttributeType(AttributeType {
                name: "Owner".into(),
                display_name: "Owner".into(),
                kind: AttributeKind::Custom,
                value_type: ValueType::String,
                profile: None,
                group: "Custom".into(),
                description: String::new(),
            })]))
            .await,
        "writing an attribute type",
    );
    let after = ok(store.meta_version().await, "version");
    assert_ne!(after, before, "an attribute type moves it");
    ok(
        store
            .apply(Batch::from(vec![Op::PutRole(role("Other", true))]))
            .await,
        "writing a role",
    );
    assert_ne!(
        ok(store.meta_version().await, "version"),
        after,
        "a role moves it"
    );
}

fn group(id: i64, name: &str, enabled: bool) -> Group {
    Group {
        id: ObjectId::repository(id),
        name: name.to_owned(),
        description: String::new(),
        enabled,
        created_at: now(),
    }
}

fn member(group: i64, user: i64) -> Membership {
    Membership {
        group: ObjectId::repository(group),
        user: ObjectId::repository(user),
    }
}

/// Groups: names unique case-insensitively, members and a user's groups sorted by name,
/// memberships only of existing groups and users, the grants of enabled groups reaching
/// their members through `principal`, and deletes taking memberships and grants along.
pub async fn groups_memberships_and_grants_through_groups(store: Arc<dyn Store>) {
    let grant = |grantee: i64, role: &str| Grant {
        grantee: ObjectId::repository(grantee),
        role: role.to_owned(),
        object: None,
    };
    let role = |name: &str| Role {
        name: name.to_owned(),
        description: String::new(),
        global: true,
        capabilities: vec![Capability::ViewMetadata],
    };
    ok(
        store
            .apply(Batch::from(vec![
                Op::PutUser(user(1, "erin")),
                Op::PutUser(user(2, "Bob")),
                Op::PutRole(role("Viewer")),
                Op::PutRole(role("Editor")),
                Op::PutGroup(group(10, "stewards", true)),
                Op::PutGroup(group(11, "Analysts", true)),
                Op::PutGroup(group(12, "dormant", false)),
                Op::AddMember(member(10, 1)),
                Op::AddMember(member(10, 2)),
                Op::AddMember(member(10, 2)),
                Op::AddMember(member(11, 1)),
                Op::AddMember(member(12, 1)),
                // an absent group or user: no-ops
                Op::AddMember(member(99, 1)),
                Op::AddMember(member(10, 98)),
                Op::AddGrant(grant(1, "Viewer")),
                Op::AddGrant(grant(10, "Editor")),
                Op::AddGrant(grant(12, "Viewer")),
                Op::AddGrant(Grant {
                    grantee: ObjectId::repository(12),
                    role: "Editor".into(),
                    object: Some(ObjectId::repository(5)),
                }),
            ]))
            .await,
        "writing users, groups, members and grants",
    );
    fails(
        store
            .apply(Batch::from(vec![Op::PutGroup(group(13, "STEWARDS", true))]))
            .await,
        ErrorCode::Conflict,
        "a second group named stewards",
    );
    let names = |groups: Vec<Group>| groups.into_iter().map(|g| g.name).collect::<Vec<_>>();
    assert_eq!(
        names(ok(store.groups().await, "groups")),
        ["Analysts", "dormant", "stewards"]
    );
    assert_eq!(
        ok(store.group_by_name("StewardS").await, "by name").map(|g| g.id),
        Some(ObjectId::repository(10))
    );
    assert_eq!(
        ok(store.group(ObjectId::repository(12)).await, "by id").map(|g| g.enabled),
        Some(false)
    );
    let members: Vec<String> = ok(store.members(ObjectId::repository(10)).await, "members")
        .into_iter()
        .map(|u| u.name)
        .collect();
    assert_eq!(members, ["Bob", "erin"], "once each, by name");
    assert_eq!(
        names(ok(
            store.groups_of(ObjectId::repository(1)).await,
            "groups of"
        )),
        ["Analysts", "dormant", "stewards"]
    );
    assert!(ok(store.members(ObjectId::repository(99)).await, "members").is_empty());

    // The caller holds their own grants and those of their enabled groups.
    ok(
        store
            .put_session(session("erin-key", 1, Duration::hours(1)))
            .await,
        "session",
    );
    let p = ok(store.principal("erin-key", now()).await, "reading").expect("a principal");
    let mut expected = vec![grant(1, "Viewer"), grant(10, "Editor")];
    expected.sort();
    assert_eq!(p.grants, expected, "not the disabled group's");
    let roles: Vec<&str> = p.roles.iter().map(|r| r.name.as_str()).collect();
    assert_eq!(roles, ["Editor", "Viewer"]);

    // Leaving a group, or the group being disabled, takes its grants away.
    ok(
        store
            .apply(Batch::from(vec![
                Op::RemoveMember(member(10, 1)),
                Op::RemoveMember(member(10, 1)),
            ]))
            .await,
        "removing a member",
    );
    let p = ok(store.principal("erin-key", now()).await, "reading").expect("a principal");
    assert_eq!(p.grants, [grant(1, "Viewer")]);
    ok(
        store
            .apply(Batch::from(vec![Op::PutGroup(group(12, "dormant", true))]))
            .await,
        "enabling a group",
    );
    let p = ok(store.principal("erin-key", now()).await, "reading").expect("a principal");
    assert_eq!(p.grants.len(), 3, "{:?}", p.grants);

    // Deleting a group takes its memberships and grants; deleting a user, theirs.
    ok(
        store
            .apply(Batch::from(vec![
                Op::DeleteGroup(ObjectId::repository(12)),
                Op::DeleteUser(ObjectId::repository(2)),
            ]))
            .await,
        "deleting a group and a user",
    );
    assert_eq!(
        ok(store.group(ObjectId::repository(12)).await, "gone"),
        None
    );
    assert!(ok(store.grants_of(ObjectId::repository(12)).await, "grants").is_empty());
    assert_eq!(
        names(ok(
            store.groups_of(ObjectId::repository(1)).await,
            "groups of"
        )),
        ["Analysts"]
    );
    assert!(ok(store.members(ObjectId::repository(10)).await, "members").is_empty());
    // A failed batch leaves groups and members as they were.
    fails(
        store
            .apply(Batch::from(vec![
                Op::AddMember(member(11, 1)),
                Op::RemoveMember(member(11, 1)),
                Op::DeleteGroup(ObjectId::repository(11)),
                Op::PutUser(user(3, "ERIN")),
            ]))
            .await,
        ErrorCode::Conflict,
        "a batch ending in a name clash",
    );
    assert_eq!(
        names(ok(
            store.groups_of(ObjectId::repository(1)).await,
            "groups of"
        )),
        ["Analysts"]
    );
    assert_eq!(
        ok(store.grants_of(ObjectId::repository(10)).await, "grants"),
        [grant(10, "Editor")]
    );
}

/// `objects` answers the existing objects of a list of ids once each, sorted by id, and
/// `objects_with_details` adds what hangs on them as `details` answers it.
pub async fn objects_by_ids_with_details(store: Arc<dyn Store>) {
    let (a, b, c) = (
        ObjectId::repository(3),
        ObjectId::repository(1),
        ObjectId::repository(2),
    );
    ok(
        store
            .apply(Batch::from(vec![
                Op::PutObject(folder(3, "three")),
                Op::PutObject(folder(1, "one")),
                Op::PutObject(folder(2, "two")),
                Op::AddTag(Tag {
                    object: a,
                    kind: TagKind::Label,
                    value: "PII".into(),
                }),
                Op::AddEdge(Edge {
                    kind: EdgeKind::SemanticLink,
                    source: b,
                    target: a,
                    name: String::new(),
                    origin: None,
                }),
            ]))
            .await,
        "writing objects",
    );
    let missing = ObjectId::repository(99);
    let ids = [a, missing, b, a];
    let objects = ok(store.objects(&ids).await, "reading objects");
    let found: Vec<ObjectId> = objects.iter().map(|o| o.id).collect();
    assert_eq!(found, [b, a], "existing objects once each, by id");
    assert!(ok(store.objects(&[]).await, "reading no objects").is_empty());

    let (objects, details) = ok(store.objects_with_details(&ids).await, "reading both");
    assert_eq!(objects.iter().map(|o| o.id).collect::<Vec<_>>(), [b, a]);
    let alone = ok(
        store
            .details(lore_core::store::Scope::Objects(ids.to_vec()))
            .await,
        "reading details",
    );
    assert_eq!(details, alone, "the same details as details()");
    assert_eq!(details.tags.len(), 1);
    assert_eq!(details.edges.len(), 1);
    let (objects, _) = ok(store.objects_with_details(&[c]).await, "reading one");
    assert_eq!(objects.len(), 1);
}

/// `model_objects_page` walks a model's objects in id order, `limit` at a time, and
/// stays inside the model.
pub async fn model_objects_in_pages(store: Arc<dyn Store>) {
    let model = |m: i64, n: i64| {
        let mut o = Object::new(
            ObjectId::new(m, n),
            ObjectKind::ModelObject,
            TypeName::new(DATABASE_PROFILE, "Table"),
            SystemType::Classifier,
            format!("t{n}"),
        );
        o.native_id = Some(format!("t{n}"));
        o
    };
    let mut ops: Vec<Op> = (1..=7).rev().map(|n| Op::PutObject(model(4, n))).collect();
    ops.push(Op::PutObject(model(3, 99)));
    ops.push(Op::PutObject(model(5, 1)));
    ok(
        store.apply(Batch::from(ops)).await,
        "writing objects of three models",
    );
    let mut seen = Vec::new();
    let mut after = None;
    loop {
        let page = ok(
            store.model_objects_page(4, after, 3).await,
            "reading a page",
        );
        assert!(page.len() <= 3, "a page holds at most `limit` objects");
        let Some(last) = page.last() else { break };
        after = Some(last.id.object);
        seen.extend(page.iter().map(|o| o.id.object));
    }
    assert_eq!(
        seen,
        [1, 2, 3, 4, 5, 6, 7],
        "every object of the model once, in id order"
    );
    assert!(
        ok(
            store.model_objects_page(6, None, 10).await,
            "an empty model"
        )
        .is_empty()
    );
}
