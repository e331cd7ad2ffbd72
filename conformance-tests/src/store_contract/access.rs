//! Definitions, users, grants and sessions.

use super::*;

pub(super) async fn definitions_round_trip_and_replace_by_name(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let attribute_type = |name: &str, description: &str| AttributeType {
        name: name.to_owned(),
        display_name: format!("{name} display"),
        kind: AttributeKind::Custom,
        value_type: ValueType::Double,
        profile: None,
        group: "Custom Attributes".into(),
        description: description.to_owned(),
    };
    let mut profiled = attribute_type("Beta", "profile attribute");
    profiled.kind = AttributeKind::Profile;
    profiled.value_type = ValueType::DateTime;
    profiled.profile = Some(DATABASE_PROFILE.into());
    apply(
        store,
        vec![
            Op::PutAttributeType(attribute_type("alpha", "")),
            Op::PutAttributeType(attribute_type("Zeta", "first")),
            Op::PutAttributeType(profiled.clone()),
            Op::PutAttributeType(attribute_type("Zeta", "second")),
        ],
        "PutAttributeType",
    )
    .await;
    assert_eq!(
        ok(store.attribute_types().await, "attribute_types"),
        vec![
            profiled,
            attribute_type("Zeta", "second"),
            attribute_type("alpha", "")
        ],
        "attribute types round-trip, are sorted by name (bytes), and PutAttributeType replaces the type of that name"
    );
    let mut udp = attribute_type("alpha", "now a UDP");
    udp.kind = AttributeKind::Udp;
    udp.value_type = ValueType::Boolean;
    apply(
        store,
        vec![Op::PutAttributeType(udp.clone())],
        "PutAttributeType of another kind",
    )
    .await;
    assert_eq!(
        ok(store.attribute_types().await, "attribute_types")
            .into_iter()
            .filter(|t| t.name == "alpha")
            .collect::<Vec<_>>(),
        vec![udp],
        "names are unique among stored attribute types: PutAttributeType replaces the type of that name \
         whatever its kind"
    );

    let object_type = |profile: &str, name: &str, attributes: &[&str]| ObjectType {
        name: TypeName::new(profile, name),
        display_name: format!("{name} display"),
        system_type: SystemType::Classifier,
        category: "Reports".into(),
        attributes: attributes.iter().map(|a| (*a).to_owned()).collect(),
    };
    let mut replaced_type = object_type("BI", "Report", &[]);
    replaced_type.system_type = SystemType::Diagram;
    apply(
        store,
        vec![
            Op::PutObjectType(object_type("BI", "Report", &["Owner", "Zürich"])),
            Op::PutObjectType(object_type("Analytics", "Report", &[])),
            Op::PutObjectType(object_type("BI", "Dashboard", &["Owner"])),
            Op::PutObjectType(replaced_type.clone()),
        ],
        "PutObjectType",
    )
    .await;
    assert_eq!(
        ok(store.object_types().await, "object_types"),
        vec![
            object_type("Analytics", "Report", &[]),
            object_type("BI", "Dashboard", &["Owner"]),
            replaced_type,
        ],
        "object types round-trip, are sorted by profile then name, and PutObjectType replaces the \
         type of that profile and name"
    );

    let class = |name: &str, hide: bool| DataClass {
        name: name.to_owned(),
        description: format!("{name} class"),
        hide_data: hide,
        definition: serde_json::json!({"patterns": ["^[A-Z]{2}$", "\\d+"], "values": ["Zürich", 1, null], "min": 0.5}),
    };
    let mut replaced = class("Email", true);
    replaced.definition = serde_json::json!([]);
    apply(
        store,
        vec![
            Op::PutDataClass(class("Email", false)),
            Op::PutDataClass(class("City", true)),
            Op::PutDataClass(replaced.clone()),
        ],
        "PutDataClass",
    )
    .await;
    let mut classes = ok(store.data_classes().await, "data_classes");
    classes.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(
        classes,
        vec![class("City", true), replaced],
        "data classes round-trip (with their JSON definition) and PutDataClass replaces by name"
    );

    let sensitivity = |name: &str, position: i64| SensitivityLabel {
        name: name.to_owned(),
        position,
        description: format!("{name} label"),
        foreground_color: "#FFFFFF".into(),
        background_color: "#AA0000".into(),
        hide_data: position > 1,
    };
    apply(
        store,
        vec![
            Op::PutSensitivityLabel(sensitivity("Public", 0)),
            Op::PutSensitivityLabel(sensitivity("Secret", 2)),
            Op::PutSensitivityLabel(sensitivity("Public", 1)),
        ],
        "PutSensitivityLabel",
    )
    .await;
    let mut labels = ok(store.sensitivity_labels().await, "sensitivity_labels");
    labels.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(
        labels,
        vec![sensitivity("Public", 1), sensitivity("Secret", 2)],
        "sensitivity labels round-trip and PutSensitivityLabel replaces by name"
    );

    let builtin = Role::builtin();
    let mut ops: Vec<Op> = builtin.iter().cloned().map(Op::PutRole).collect();
    let custom = Role {
        name: "Custom Role".into(),
        description: "capabilities in a chosen order".into(),
        global: false,
        capabilities: vec![Capability::ViewData, Capability::ViewMetadata],
    };
    ops.push(Op::PutRole(Role {
        description: "before".into(),
        capabilities: vec![],
        ..custom.clone()
    }));
    ops.push(Op::PutRole(custom.clone()));
    apply(store, ops, "PutRole").await;
    let mut roles = ok(store.roles().await, "roles");
    roles.sort_by(|a, b| a.name.cmp(&b.name));
    let mut expected = builtin;
    expected.push(custom);
    expected.sort_by(|a, b| a.name.cmp(&b.name));
    assert_eq!(
        roles, expected,
        "roles round-trip (capabilities in order) and PutRole replaces by name"
    );
}

/// The user linked to the identity the external-identity case gives ann.
async fn linked_to_ann(store: &dyn Store) -> Option<User> {
    ok(
        store
            .user_by_external("https://idp.example/", "248289761001")
            .await,
        "user_by_external",
    )
}

pub(super) async fn users_are_found_by_their_external_identity_exactly(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let first = ok(store.reserve_ids(REPOSITORY_MODEL, 4).await, "reserve_ids");
    let subject = |issuer: &str, subject: &str| {
        Some(ExternalLink::Subject {
            issuer: issuer.into(),
            subject: subject.into(),
        })
    };
    let mut ann = user(first, "ann");
    ann.external = subject("https://idp.example/", "248289761001");
    let mut bob = user(first + 1, "bob");
    bob.external = Some(ExternalLink::AtNextSignIn);
    let mut cy = user(first + 2, "cy");
    cy.external = Some(ExternalLink::AtNextSignIn);
    apply(
        store,
        vec![
            Op::PutUser(ann.clone()),
            Op::PutUser(bob.clone()),
            Op::PutUser(cy.clone()),
            Op::PutUser(user(first + 3, "dee")),
        ],
        "PutUser with external links (two awaiting their next sign-in)",
    )
    .await;
    assert_eq!(
        ok(store.user(bob.id).await, "user"),
        Some(bob.clone()),
        "a link at the next sign-in round-trips"
    );
    assert_eq!(
        ok(store.user(ObjectId::repository(first + 3)).await, "user").and_then(|u| u.external),
        None,
        "no link round-trips"
    );
    assert_eq!(
        linked_to_ann(store).await,
        Some(ann.clone()),
        "user_by_external finds the linked user"
    );
    for (issuer, sub, why) in [
        ("https://idp.example", "248289761001", "another issuer text"),
        (
            "https://IDP.example/",
            "248289761001",
            "the issuer in another case",
        ),
        (
            "https://idp.example/",
            "248289761001 ",
            "a subject with a space",
        ),
        (
            "https://idp.example/",
            "",
            "an empty subject (a link awaiting a sign-in)",
        ),
        ("", "", "empty issuer and subject"),
    ] {
        assert_eq!(
            ok(
                store.user_by_external(issuer, sub).await,
                "user_by_external"
            ),
            None,
            "user_by_external compares exactly: {why}"
        );
    }
    let mut thief = bob.clone();
    thief.external = subject("https://idp.example/", "248289761001");
    let clash = store.apply(vec![Op::PutUser(thief)].into()).await;
    assert_eq!(
        clash.as_ref().err().map(|e| (e.code, e.message.as_str())),
        Some((
            ErrorCode::Conflict,
            "another user is already linked to that identity"
        )),
        "PutUser linking a second user to the same identity: {clash:?}"
    );
    assert_eq!(
        ok(store.user(bob.id).await, "user"),
        Some(bob.clone()),
        "a refused link leaves the user as it was"
    );
    // Relinking: the identity moves when its user lets it go in the same batch.
    let mut unlinked = ann.clone();
    unlinked.external = None;
    let mut relinked = bob.clone();
    relinked.external = subject("https://idp.example/", "248289761001");
    apply(
        store,
        vec![Op::PutUser(unlinked), Op::PutUser(relinked.clone())],
        "PutUser moving a link",
    )
    .await;
    assert_eq!(
        linked_to_ann(store).await,
        Some(relinked),
        "the identity finds its new user"
    );
    apply(store, vec![Op::DeleteUser(bob.id)], "DeleteUser").await;
    assert_eq!(
        linked_to_ann(store).await,
        None,
        "a deleted user's identity finds no one"
    );
}

pub(super) async fn user_names_unique_case_insensitively(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let first = ok(store.reserve_ids(REPOSITORY_MODEL, 3).await, "reserve_ids");
    let mut ann = user(first, "Ann");
    ann.password_hash = Some("$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".into());
    ann.description = "Ünïcødé description".into();
    let mut bob = user(first + 1, "bob");
    bob.enabled = false;
    bob.created_at = at(1_000_000_000_001);
    apply(
        store,
        vec![Op::PutUser(ann.clone()), Op::PutUser(bob.clone())],
        "PutUser",
    )
    .await;
    assert_eq!(
        ok(store.user(ann.id).await, "user"),
        Some(ann.clone()),
        "a user round-trips by id (with its password hash)"
    );
    assert_eq!(
        ok(store.user(bob.id).await, "user"),
        Some(bob.clone()),
        "a user without a password round-trips"
    );
    assert_eq!(
        ok(store.user(ObjectId::repository(first + 2)).await, "user"),
        None,
        "an unknown user id is None"
    );
    assert_eq!(
        ok(store.user_by_name("Ann").await, "user_by_name"),
        Some(ann.clone()),
        "user_by_name finds the user"
    );
    assert_eq!(
        ok(store.user_by_name("aNN").await, "user_by_name"),
        Some(ann.clone()),
        "user_by_name compares case-insensitively"
    );
    assert_eq!(
        ok(store.user_by_name("BOB").await, "user_by_name"),
        Some(bob.clone()),
        "user_by_name is case-insensitive"
    );
    assert_eq!(
        ok(store.user_by_name("nobody").await, "user_by_name"),
        None,
        "an unknown user name is None"
    );
    assert_eq!(
        ok(store.user_count().await, "user_count"),
        2,
        "user_count counts users"
    );

    fails(
        store
            .apply(vec![Op::PutUser(user(first + 2, "ANN"))].into())
            .await,
        ErrorCode::Conflict,
        "PutUser with the name of another user (in another case)",
    );
    assert_eq!(
        ok(store.user_count().await, "user_count"),
        2,
        "a refused user is not stored"
    );

    // Replacing a user by id: renaming, changing the case of its own name.
    let mut renamed = ann.clone();
    renamed.name = "ANNA".into();
    renamed.enabled = false;
    apply(
        store,
        vec![Op::PutUser(renamed.clone())],
        "PutUser replacing a user",
    )
    .await;
    assert_eq!(
        ok(store.user(ann.id).await, "user"),
        Some(renamed.clone()),
        "PutUser replaces the user with that id"
    );
    assert_eq!(
        ok(store.user_by_name("ann").await, "user_by_name"),
        None,
        "a user's old name is free after a rename"
    );
    assert_eq!(
        ok(store.user_by_name("anna").await, "user_by_name").map(|u| u.id),
        Some(ann.id),
        "the new name finds it"
    );
    renamed.name = "Anna".into();
    apply(
        store,
        vec![Op::PutUser(renamed)],
        "PutUser changing the case of its own name",
    )
    .await;
    apply(
        store,
        vec![Op::PutUser(user(first + 2, "Ann"))],
        "PutUser taking a name freed by a rename",
    )
    .await;
    assert_eq!(
        ok(store.user_count().await, "user_count"),
        3,
        "replacing a user does not add one"
    );
}

pub(super) async fn grants_once_each_sorted_and_removed_exactly(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let first = ok(store.reserve_ids(REPOSITORY_MODEL, 3).await, "reserve_ids");
    let (a, b, folder) = (
        ObjectId::repository(first),
        ObjectId::repository(first + 1),
        ObjectId::repository(first + 2),
    );
    let grant = |grantee, role: &str, object| Grant {
        grantee,
        role: role.to_owned(),
        object,
    };
    apply(
        store,
        vec![
            Op::PutObject(repository_object(
                folder.object,
                ObjectKind::Folder,
                None,
                "Granted Folder",
            )),
            Op::AddGrant(grant(a, "Steward", Some(folder))),
            Op::AddGrant(grant(a, "Steward", None)),
            Op::AddGrant(grant(a, "Administrator", None)),
            Op::AddGrant(grant(a, "Steward", Some(folder))),
            Op::AddGrant(grant(b, "Metadata Viewer", None)),
        ],
        "AddGrant",
    )
    .await;
    apply(
        store,
        vec![Op::AddGrant(grant(a, "Administrator", None))],
        "AddGrant of an existing grant (a no-op)",
    )
    .await;
    assert_eq!(
        ok(store.grants_of(a).await, "grants_of"),
        vec![
            grant(a, "Administrator", None),
            grant(a, "Steward", None),
            grant(a, "Steward", Some(folder))
        ],
        "grants_of lists the grantee's grants once each, sorted by Grant's derived Ord (role, then a global \
         grant (None) before grants on objects)"
    );
    apply(
        store,
        vec![
            Op::RemoveGrant(grant(a, "Steward", None)),
            Op::RemoveGrant(grant(a, "Missing", None)),
        ],
        "RemoveGrant",
    )
    .await;
    assert_eq!(
        ok(store.grants_of(a).await, "grants_of"),
        vec![
            grant(a, "Administrator", None),
            grant(a, "Steward", Some(folder))
        ],
        "RemoveGrant removes exactly that grant (a global one leaves the one on an object); a missing one is a no-op"
    );
    assert_eq!(
        ok(store.grants_of(b).await, "grants_of"),
        vec![grant(b, "Metadata Viewer", None)],
        "grants are per grantee"
    );
    assert!(
        ok(
            store.grants_of(ObjectId::repository(999_999)).await,
            "grants_of"
        )
        .is_empty(),
        "a grantee without grants has none"
    );
}

pub(super) async fn sessions_expire_at_expires_at(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let now = now();
    let hour = Duration::hours(1);
    let first = ok(store.reserve_ids(REPOSITORY_MODEL, 2).await, "reserve_ids");
    let (a, b) = (ObjectId::repository(first), ObjectId::repository(first + 1));
    let session = |key: &str, user, expires_at| Session {
        key_hash: key.to_owned(),
        user,
        created_at: now - hour,
        expires_at,
        last_seen_at: now - hour,
    };
    let live = session("hash-live", a, now + hour);
    ok(store.put_session(live.clone()).await, "put_session");
    ok(
        store
            .put_session(session("hash-expired", a, now - Duration::seconds(1)))
            .await,
        "put_session",
    );
    ok(
        store.put_session(session("hash-a2", a, now + hour)).await,
        "put_session",
    );
    ok(
        store.put_session(session("hash-b", b, now + hour)).await,
        "put_session",
    );
    ok(
        store
            .put_session(session("hash-b-expired", b, now - hour))
            .await,
        "put_session",
    );

    assert_eq!(
        ok(store.session("hash-live", now).await, "session"),
        Some(live.clone()),
        "a live session reads back"
    );
    assert_eq!(
        ok(store.session("hash-expired", now).await, "session"),
        None,
        "an expired session reads None"
    );
    assert_eq!(
        ok(
            store
                .session("hash-live", now + hour + Duration::seconds(1))
                .await,
            "session"
        ),
        None,
        "a session read after its expiry is None"
    );
    assert_eq!(
        ok(store.session("unknown", now).await, "session"),
        None,
        "an unknown key hash reads None"
    );

    ok(store.delete_session("hash-live").await, "delete_session");
    assert_eq!(
        ok(store.session("hash-live", now).await, "session"),
        None,
        "delete_session ends the session"
    );
    ok(
        store.delete_session("hash-live").await,
        "delete_session of an ended session",
    );

    // At the boundary: a session whose expires_at is now has expired.
    let boundary = session("hash-boundary", b, now);
    ok(store.put_session(boundary.clone()).await, "put_session");
    assert_eq!(
        ok(
            store
                .session("hash-boundary", now - Duration::milliseconds(1))
                .await,
            "session"
        ),
        Some(boundary),
        "a session is live until its expires_at"
    );
    assert_eq!(
        ok(store.session("hash-boundary", now).await, "session"),
        None,
        "a session has expired at its expires_at (expires_at <= now)"
    );

    assert_eq!(
        ok(store.purge_sessions(now).await, "purge_sessions"),
        3,
        "purge_sessions removes the sessions expired at now (expires_at <= now) and counts them"
    );
    assert_eq!(
        ok(store.purge_sessions(now).await, "purge_sessions"),
        0,
        "purging again removes nothing"
    );
    assert!(
        ok(store.session("hash-a2", now).await, "session").is_some(),
        "purge_sessions keeps live sessions"
    );

    ok(
        store.put_session(session("hash-a3", a, now + hour)).await,
        "put_session",
    );
    assert_eq!(
        ok(store.delete_sessions_of(a).await, "delete_sessions_of"),
        2,
        "delete_sessions_of ends every session of the user and counts them"
    );
    assert_eq!(
        ok(store.session("hash-a3", now).await, "session"),
        None,
        "delete_sessions_of ends the user's sessions"
    );
    assert!(
        ok(store.session("hash-b", now).await, "session").is_some(),
        "delete_sessions_of leaves other users' sessions"
    );
    assert_eq!(
        ok(store.delete_sessions_of(a).await, "delete_sessions_of"),
        0,
        "a user without sessions ends none"
    );
}

/// A key's check (`session_check`) reads the live session with the access and meta
/// versions that `principal` reads, and the access version moves with every kind of
/// write a principal is made of, so a caller known from an earlier read can be trusted
/// again by comparing one number.
pub(super) async fn session_check_follows_what_a_principal_is_made_of(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let now = now();
    let hour = Duration::hours(1);
    let first = ok(store.reserve_ids(REPOSITORY_MODEL, 3).await, "reserve_ids");
    let ann = user(first, "ann");
    // Whose session watches the versions while ann's user is changed and deleted.
    let bob = user(first + 2, "bob");
    let stewards = Group {
        id: ObjectId::repository(first + 1),
        name: "stewards".into(),
        description: String::new(),
        enabled: true,
        created_at: at(1_000),
    };
    apply(
        store,
        vec![Op::PutUser(ann.clone()), Op::PutUser(bob.clone())],
        "PutUser",
    )
    .await;
    let session = |key: &str, user| Session {
        key_hash: key.to_owned(),
        user,
        created_at: now - hour,
        expires_at: now + hour,
        last_seen_at: now - hour,
    };
    let (session, watching) = (session("hash-check", ann.id), session("hash-bob", bob.id));
    ok(store.put_session(session.clone()).await, "put_session");
    ok(store.put_session(watching).await, "put_session");

    let check = |what: &'static str| async move {
        ok(store.session_check("hash-bob", now).await, what)
            .unwrap_or_else(|| panic!("{what}: the live session has a check"))
    };
    let before = ok(
        store.session_check("hash-check", now).await,
        "session_check",
    )
    .expect("the live session has a check");
    assert_eq!(before.session, session, "the check reads the session");
    let principal = ok(store.principal("hash-check", now).await, "principal")
        .expect("the live session has a principal");
    assert_eq!(
        (principal.access_version, principal.meta_version),
        (before.access_version, before.meta_version),
        "principal and session_check read the same versions"
    );
    assert_eq!(
        ok(store.meta_version().await, "meta_version"),
        before.meta_version,
        "the check's meta version is the store's"
    );

    let role = Role {
        name: "Checker".into(),
        description: String::new(),
        global: true,
        capabilities: vec![Capability::ViewMetadata],
    };
    let grant = Grant {
        grantee: stewards.id,
        role: role.name.clone(),
        object: None,
    };
    let member = Membership {
        group: stewards.id,
        user: ann.id,
    };
    let mut disabled = ann.clone();
    disabled.enabled = false;
    let changes = [
        ("PutUser", Op::PutUser(disabled)),
        ("PutGroup", Op::PutGroup(stewards.clone())),
        ("AddMember", Op::AddMember(member)),
        ("PutRole", Op::PutRole(role.clone())),
        ("AddGrant", Op::AddGrant(grant.clone())),
        ("RemoveGrant", Op::RemoveGrant(grant)),
        ("RemoveMember", Op::RemoveMember(member)),
        ("DeleteRole", Op::DeleteRole(role.name.clone())),
        ("DeleteGroup", Op::DeleteGroup(stewards.id)),
        ("DeleteUser", Op::DeleteUser(ann.id)),
    ];
    let mut last = before.access_version;
    for (what, op) in changes {
        apply(store, vec![op], what).await;
        let after = check(what).await;
        assert!(
            after.access_version > last,
            "{what} moves the access version ({last} -> {})",
            after.access_version
        );
        last = after.access_version;
    }

    assert_eq!(
        ok(
            store.session_check("hash-check", now).await,
            "session_check"
        ),
        None,
        "deleting a user ends its sessions"
    );
    assert_eq!(
        ok(
            store.session_check("hash-bob", now + hour).await,
            "session_check"
        ),
        None,
        "an expired session has no check"
    );
    assert_eq!(
        ok(store.session_check("unknown", now).await, "session_check"),
        None,
        "an unknown key has no check"
    );
    ok(store.delete_session("hash-bob").await, "delete_session");
    assert_eq!(
        ok(store.session_check("hash-bob", now).await, "session_check"),
        None,
        "an ended session has no check"
    );
}
