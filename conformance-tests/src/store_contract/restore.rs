//! A restore: emptying the store, and writing ids, sequences and records back.

use super::*;

/// An operation with its id, as a restore writes it.
pub(super) fn operation(id: i64, model: Option<ObjectId>, state: OperationState) -> Operation {
    Operation {
        id,
        kind: "import".into(),
        state,
        model,
        started_by: "ann".into(),
        started_at: at(1_000 + id),
        heartbeat_at: at(2_000 + id),
        detail: OperationDetail {
            format: "lore-archive".into(),
            message: format!("operation {id}"),
            ..OperationDetail::default()
        },
    }
}

pub(super) fn log_line(seq: i64, message: &str) -> OperationLogLine {
    OperationLogLine {
        seq,
        at: at(3_000 + seq),
        level: "INFO".into(),
        message: message.into(),
    }
}

pub(super) fn attachment(object: ObjectId, name: &str, content: &[u8]) -> Attachment {
    Attachment {
        info: AttachmentInfo {
            object,
            name: name.into(),
            media_type: "text/plain".into(),
            size: content.len() as u64,
            sha256: format!("sha of {name}"),
            created_at: at(4_000),
            created_by: "ann".into(),
        },
        content: content.to_vec(),
    }
}

/// The lineage event (and so the run) of [`fill_every_table`].
fn filled_lineage_event() -> LineageEvent {
    lineage_run_event("filled", 10, RunState::Start, None)
}

/// One or two rows of every table a store holds; answers the model, its object and
/// the user.
pub(super) async fn fill_every_table(store: &dyn Store) -> (ObjectId, ObjectId, User) {
    let (model, number) = new_model(store, "filled").await;
    let table = model_object(number, 1, None, "customer");
    let ann = user(70, "ann");
    let group = Group {
        id: ObjectId::repository(71),
        name: "stewards".into(),
        description: String::new(),
        enabled: true,
        created_at: at(1_000),
    };
    apply(
        store,
        vec![
            Op::PutObject(table.clone()),
            Op::SetAttribute(attr(table.id, "Owner", Value::Text("ann".into()))),
            Op::AddEdge(edge(EdgeKind::CustomRelationship, table.id, model, "about")),
            Op::AddTag(tag(table.id, TagKind::Label, "pii")),
            Op::SetClassification(Classification {
                object: table.id,
                data_class: "Email".into(),
                status: ClassificationStatus::Approved,
            }),
            Op::SetLabelAssignment(LabelAssignment {
                object: table.id,
                label: "Secret".into(),
                status: ClassificationStatus::Approved,
            }),
            Op::SetProfiling(Profiling {
                object: table.id,
                profile: Some(full_profile()),
                sample: None,
            }),
            Op::PutAttributeType(AttributeType {
                name: "Owner".into(),
                display_name: "Owner".into(),
                kind: AttributeKind::Custom,
                value_type: ValueType::String,
                profile: None,
                group: "Custom Attributes".into(),
                description: String::new(),
            }),
            Op::PutDataClass(DataClass {
                name: "Email".into(),
                description: String::new(),
                hide_data: false,
                definition: serde_json::json!({}),
            }),
            Op::PutSensitivityLabel(SensitivityLabel {
                name: "Secret".into(),
                position: 1,
                description: String::new(),
                foreground_color: "#000".into(),
                background_color: "#fff".into(),
                hide_data: true,
            }),
            Op::PutRole(Role {
                name: "Reader".into(),
                description: String::new(),
                global: false,
                capabilities: vec![Capability::ViewMetadata],
            }),
            Op::PutUser(ann.clone()),
            Op::PutGroup(group.clone()),
            Op::AddMember(Membership {
                group: group.id,
                user: ann.id,
            }),
            Op::AddGrant(Grant {
                grantee: ann.id,
                role: "Reader".into(),
                object: Some(model),
            }),
            Op::PutWorksheet(worksheet(ObjectId::repository(72), ann.id, "mine", false)),
            Op::PutNotification(Notification {
                id: 1,
                user: ann.id,
                kind: NotificationKind::ModelChanged,
                object: model,
                message: "changed".into(),
                at: at(5_000),
                read: false,
            }),
            Op::PutCuration(Curation {
                id: 1,
                object: table.id,
                kind: CurationKind::Watch,
                user: ann.id,
                text: String::new(),
                at: at(5_000),
            }),
            Op::PutDocument(Document {
                kind: DocumentKind::License,
                owner: None,
                name: "license".into(),
                body: serde_json::json!({"seats": 3}),
                updated_at: at(5_000),
                updated_by: Some(ann.id),
            }),
            Op::PutOperation(operation(3, Some(model), OperationState::Succeeded)),
            Op::PutOperationLogLine {
                operation: 3,
                line: log_line(1, "started"),
            },
            Op::PutImportSettings(ImportSettings {
                model,
                format: "lore-archive".into(),
                parameters: serde_json::Map::new(),
                attachment: None,
                updated_at: at(5_000),
                updated_by: "ann".into(),
            }),
            Op::PutAttachment(attachment(model, "source.zip", b"zip")),
            Op::PutLineageEvent(filled_lineage_event()),
            // A run whose events were purged.
            Op::PutLineageRun(restored_run("purged")),
        ],
        "every table",
    )
    .await;
    ok(
        store
            .put_session(Session {
                key_hash: "hash".into(),
                user: ann.id,
                created_at: now(),
                expires_at: now() + Duration::hours(1),
                last_seen_at: now(),
            })
            .await,
        "put_session",
    );
    ok(
        store
            .append_system_log(vec![SystemLogEntry {
                time: micros(now()),
                user: "ann".into(),
                address: String::new(),
                method: "GET".into(),
                path: "/kept".into(),
                status: 200,
                duration_ms: 1,
                size: 1,
            }])
            .await,
        "append_system_log",
    );
    (model, table.id, ann)
}

pub(super) async fn clear_all_empties_everything_but_the_system_log(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model, table, ann) = fill_every_table(store).await;
    let meta_before = ok(store.meta_version().await, "meta_version");
    apply(store, vec![Op::ClearAll], "ClearAll").await;

    assert_eq!(
        ok(store.object(model).await, "object"),
        None,
        "the model is gone"
    );
    assert_eq!(
        ok(store.object(table).await, "object"),
        None,
        "its object is gone"
    );
    assert!(
        is_empty(&details(store, &[table, model], "details").await),
        "nothing hangs on them"
    );
    assert!(ok(store.attribute_types().await, "attribute_types").is_empty());
    assert!(ok(store.data_classes().await, "data_classes").is_empty());
    assert!(ok(store.sensitivity_labels().await, "sensitivity_labels").is_empty());
    assert!(
        ok(store.roles().await, "roles").is_empty(),
        "roles are gone"
    );
    assert_eq!(
        ok(store.user_count().await, "user_count"),
        0,
        "users are gone"
    );
    assert!(ok(store.groups().await, "groups").is_empty());
    assert!(ok(store.grants_of(ann.id).await, "grants_of").is_empty());
    assert_eq!(ok(store.session("hash", now()).await, "session"), None);
    assert!(ok(store.worksheets(None).await, "worksheets").is_empty());
    assert!(ok(store.notifications_page(0, 10).await, "notifications").is_empty());
    assert!(ok(store.curation_page(0, 10).await, "curation").is_empty());
    assert!(ok(store.documents(DocumentKind::License).await, "documents").is_empty());
    assert_eq!(ok(store.operation(3).await, "operation"), None);
    assert!(ok(store.operation_log(3).await, "operation_log").is_empty());
    assert!(ok(store.all_attachments().await, "all_attachments").is_empty());
    assert!(ok(store.id_sequences().await, "id_sequences").is_empty());
    assert!(
        ok(
            store.lineage_runs(&RunFilter::default()).await,
            "lineage_runs"
        )
        .is_empty(),
        "lineage runs are gone"
    );
    assert!(ok(store.lineage_events("filled").await, "lineage_events").is_empty());
    assert_eq!(
        ok(
            store.lineage_event(&filled_lineage_event().digest).await,
            "lineage_event"
        ),
        None,
        "lineage events are gone"
    );
    assert_eq!(
        ok(store.reserve_ids(REPOSITORY_MODEL, 1).await, "reserve_ids"),
        1,
        "the id sequences start again"
    );
    assert_eq!(
        ok(
            store.count_system_log(&SystemLogFilter::default()).await,
            "count_system_log"
        ),
        1,
        "the system log stays"
    );
    assert!(
        ok(store.meta_version().await, "meta_version") > meta_before,
        "the meta model version moves on, so caches of it are dropped"
    );
    // A cleared store takes the same rows again.
    fill_every_table(store).await;
}

pub(super) async fn restore_ops_keep_their_ids_and_replace(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model, table, ann) = fill_every_table(store).await;
    apply(
        store,
        vec![
            Op::PutOperation(operation(9, None, OperationState::Failed)),
            Op::PutOperation(operation(3, Some(model), OperationState::Failed)),
            Op::PutOperationLogLine {
                operation: 3,
                line: log_line(1, "replaced"),
            },
            Op::PutOperationLogLine {
                operation: 3,
                line: log_line(2, "second"),
            },
            Op::PutAttachment(attachment(table, "b.txt", b"b")),
            Op::PutAttachment(attachment(table, "a.txt", b"a")),
            Op::PutAttachment(attachment(model, "source.zip", b"zip, again")),
            Op::SetIdSequence {
                space: OPERATION_IDS,
                next: 10,
            },
            Op::SetIdSequence { space: 41, next: 5 },
            Op::PutLineageRun(restored_run("filled")),
        ],
        "restore ops",
    )
    .await;
    assert_eq!(
        ok(store.operation(3).await, "operation"),
        Some(operation(3, Some(model), OperationState::Failed)),
        "PutOperation replaces the operation of its id"
    );
    assert_eq!(
        ok(store.lineage_run("filled").await, "lineage_run"),
        Some(restored_run("filled")),
        "PutLineageRun replaces the run of its id"
    );
    assert_eq!(
        ok(store.lineage_run("purged").await, "lineage_run"),
        Some(restored_run("purged")),
        "a run without events is kept as written"
    );
    assert_eq!(
        ok(store.operation_log(3).await, "operation_log"),
        vec![log_line(1, "replaced"), log_line(2, "second")],
        "PutOperationLogLine replaces the line of its number"
    );
    let listed = ok(
        store
            .operations(&OperationFilter {
                limit: 10,
                ..OperationFilter::default()
            })
            .await,
        "operations",
    );
    assert_eq!(
        listed.iter().map(|o| o.id).collect::<Vec<_>>(),
        vec![9, 3],
        "operations with their ids, newest first"
    );
    assert_eq!(
        ok(
            store
                .insert_operation(operation(0, None, OperationState::Running))
                .await,
            "insert_operation"
        ),
        10,
        "a new operation takes the next id of its sequence"
    );
    assert_eq!(
        ok(store.reserve_ids(41, 2).await, "reserve_ids"),
        5,
        "SetIdSequence sets the next id"
    );
    let sequences = ok(store.id_sequences().await, "id_sequences");
    assert!(
        sequences.contains(&(41, 7)) && sequences.contains(&(OPERATION_IDS, 11)),
        "id_sequences answers the next id of each space: {sequences:?}"
    );
    assert!(sequences.is_sorted(), "by id space: {sequences:?}");
    let attachments = ok(store.all_attachments().await, "all_attachments");
    assert_eq!(
        attachments
            .iter()
            .map(|a| (a.object, a.name.as_str(), a.size))
            .collect::<Vec<_>>(),
        vec![
            (model, "source.zip", 10),
            (table, "a.txt", 1),
            (table, "b.txt", 1)
        ],
        "every attachment by object then name, replaced by name"
    );
    // Pages of curation and notifications, by id.
    let more: Vec<Op> = (2..=5)
        .flat_map(|id| {
            [
                Op::PutCuration(Curation {
                    id,
                    object: table,
                    kind: CurationKind::Comment,
                    user: ann.id,
                    text: format!("comment {id}"),
                    at: at(6_000 - id),
                }),
                Op::PutNotification(Notification {
                    id,
                    user: ann.id,
                    kind: NotificationKind::ModelChanged,
                    object: model,
                    message: format!("change {id}"),
                    at: at(6_000 - id),
                    read: true,
                }),
            ]
        })
        .collect();
    apply(store, more, "curation and notifications").await;
    let page = ok(store.curation_page(1, 3).await, "curation_page");
    assert_eq!(
        page.iter().map(|c| c.id).collect::<Vec<_>>(),
        vec![2, 3, 4],
        "curation_page: ids above `after`, by id, at most `limit`"
    );
    let page = ok(store.notifications_page(3, 10).await, "notifications_page");
    assert_eq!(
        page.iter().map(|n| n.id).collect::<Vec<_>>(),
        vec![4, 5],
        "notifications_page: ids above `after`, by id"
    );
}

pub(super) async fn a_failed_restore_lands_nothing(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (model, table, ann) = fill_every_table(store).await;
    let sequences = ok(store.id_sequences().await, "id_sequences");
    let stranger = model_object(99, 1, Some(ObjectId::new(98, 1)), "misplaced");
    let restore = vec![
        Op::ClearAll,
        Op::PutOperation(operation(8, None, OperationState::Failed)),
        Op::PutAttachment(attachment(model, "other.zip", b"other")),
        Op::PutLineageRun(restored_run("filled")),
        Op::PutLineageRun(restored_run("new")),
        Op::SetIdSequence {
            space: REPOSITORY_MODEL,
            next: 1,
        },
        Op::PutObject(stranger.clone()),
    ];
    fails(
        store.apply(Batch::from(restore.clone())).await,
        ErrorCode::InvalidParameter,
        "a restore batch with an invalid object",
    );
    let mut tx = ok(
        store.begin(lore_core::model::Author::system()).await,
        "begin",
    );
    let written = tx.write(restore).await;
    match written {
        Ok(()) => fails(
            tx.commit().await,
            ErrorCode::InvalidParameter,
            "a restore transaction with an invalid object",
        ),
        Err(e) => assert_eq!(e.code, ErrorCode::InvalidParameter, "{e}"),
    }
    assert!(
        ok(store.object(table).await, "object").is_some(),
        "objects stay"
    );
    assert_eq!(ok(store.user_count().await, "user_count"), 1, "users stay");
    assert!(!ok(store.roles().await, "roles").is_empty(), "roles stay");
    assert!(
        ok(store.session("hash", now()).await, "session").is_some(),
        "sessions stay"
    );
    assert!(
        ok(store.operation(3).await, "operation").is_some(),
        "operations stay"
    );
    assert_eq!(
        ok(store.operation(8).await, "operation"),
        None,
        "nothing new lands"
    );
    assert_eq!(
        ok(store.all_attachments().await, "all_attachments").len(),
        1,
        "attachments stay as they were"
    );
    assert_eq!(
        ok(store.id_sequences().await, "id_sequences"),
        sequences,
        "the id sequences stay"
    );
    assert_eq!(
        ok(store.grants_of(ann.id).await, "grants_of").len(),
        1,
        "grants stay"
    );
    assert_eq!(
        ok(store.lineage_events("filled").await, "lineage_events"),
        vec![filled_lineage_event()],
        "lineage events stay"
    );
    let filled = LineageRun::of(&filled_lineage_event());
    assert_eq!(
        ok(store.lineage_run("filled").await, "lineage_run"),
        filled,
        "lineage runs stay as they were"
    );
    assert_eq!(
        ok(store.lineage_run("purged").await, "lineage_run"),
        Some(restored_run("purged")),
        "lineage runs stay"
    );
    assert_eq!(
        ok(store.lineage_run("new").await, "lineage_run"),
        None,
        "no run lands"
    );
}
