//! Counts and facets by model and object type stay right through every kind of write:
//! the SQL backends answer them from tallies their triggers keep (migration 16), the
//! memory backend by evaluating; all must give the numbers of the objects as they are.

use std::sync::Arc;

use lore_core::id::ObjectId;
use lore_core::model::{DATABASE_PROFILE, Object, ObjectKind, TypeName};
use lore_core::mql::plan::{Column, Cond, Facet, Field, Lit, Plan, Test, ValueCount, Within};
use lore_core::store::{Batch, Op, Store};

use super::{apply, fails, ids, model_object, new_model, ok};
use lore_core::error::ErrorCode;

fn plan(filter: Cond) -> Plan {
    Plan {
        filter,
        visibility: Cond::True,
        order: Vec::new(),
        as_of: None,
    }
}

fn within(models: &[i64]) -> Cond {
    Cond::Within(Within {
        models: models.to_vec(),
        subtrees: Vec::new(),
    })
}

fn of_types(types: &[&str]) -> Cond {
    let lits = types.iter().map(|t| Lit::Text(t.to_ascii_lowercase()));
    Cond::Test(Field::Column(Column::TypeName), Test::In(lits.collect()))
}

fn facet(column: Column) -> Facet {
    Facet {
        relation: None,
        field: Field::Column(column),
        gap: None,
        hidden: Cond::False,
    }
}

fn typed(model: i64, id: ObjectId, type_name: &str, data_type: Option<&str>) -> Object {
    let mut object = model_object(model, id.object, None, &format!("o{}", id.object));
    object.object_type = TypeName::new(DATABASE_PROFILE, type_name);
    object.data_type = data_type.map(str::to_owned);
    object
}

async fn count(store: &dyn Store, filter: Cond) -> u64 {
    ok(store.count(&plan(filter)).await, "count")
}

async fn values(store: &dyn Store, filter: Cond, column: Column) -> Vec<(String, u64)> {
    let counts = ok(
        store
            .value_counts(&plan(filter), &[facet(column)], 100)
            .await,
        "value_counts",
    );
    counts
        .into_iter()
        .flatten()
        .map(|ValueCount { value, count }| {
            let value = match value {
                Lit::Text(t) => t,
                Lit::Integer(i) => i.to_string(),
                other => format!("{other:?}"),
            };
            (value, count)
        })
        .collect()
}

fn pairs(list: &[(&str, u64)]) -> Vec<(String, u64)> {
    list.iter().map(|(v, n)| ((*v).to_owned(), *n)).collect()
}

/// A fresh id of the model's id space.
async fn z_id(store: &dyn Store, model: i64) -> ObjectId {
    ids(store, model, 1).await[0]
}

pub(super) async fn counts_and_facets_by_type_follow_every_write(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, a) = new_model(store, "Tallied A").await;
    let (_, b) = new_model(store, "Tallied B").await;
    let x = ids(store, a, 6).await;
    let y = ids(store, b, 2).await;
    let mut ops = vec![
        Op::PutObject(typed(a, x[0], "Column", Some("int"))),
        Op::PutObject(typed(a, x[1], "Column", Some("int"))),
        Op::PutObject(typed(a, x[2], "Column", Some("int"))),
        Op::PutObject(typed(a, x[3], "Column", Some("text"))),
        Op::PutObject(typed(a, x[4], "Column", Some("text"))),
        Op::PutObject(typed(a, x[5], "Table", None)),
    ];
    ops.extend(
        y.iter()
            .map(|id| Op::PutObject(typed(b, *id, "Table", None))),
    );
    apply(store, ops, "putting typed objects").await;

    // Model A: 6 objects and its model; both: 8 and two models.
    assert_eq!(count(store, within(&[a])).await, 7, "count of model A");
    assert_eq!(count(store, Cond::True).await, 10, "count of everything");
    let kinds = |kinds: Vec<ObjectKind>| Cond::Kinds(kinds);
    assert_eq!(
        count(
            store,
            kinds(vec![ObjectKind::Model, ObjectKind::ModelObject])
        )
        .await,
        10,
        "count of models and model objects (MQL without FROM)"
    );
    assert_eq!(
        count(store, kinds(vec![ObjectKind::Model])).await,
        2,
        "count of models"
    );
    let columns = || Cond::And(vec![within(&[a, b]), of_types(&["column"])]);
    assert_eq!(count(store, columns()).await, 5, "columns of A and B");
    assert_eq!(
        count(
            store,
            Cond::And(vec![within(&[b]), of_types(&["COLUMN", "Table"])])
        )
        .await,
        2,
        "columns and tables of B"
    );
    assert_eq!(
        values(store, within(&[a]), Column::DataType).await,
        pairs(&[("int", 3), ("text", 2)]),
        "data types of A"
    );
    assert_eq!(
        values(store, within(&[a, b]), Column::TypeName).await,
        pairs(&[("Column", 5), ("Table", 3), ("Model", 2)]),
        "types of A and B"
    );
    assert_eq!(
        values(store, of_types(&["table"]), Column::ModelNumber).await,
        pairs(&[(&b.to_string(), 2), (&a.to_string(), 1)]),
        "models of the tables"
    );

    // A column becomes a table without a data type, another changes its data type, one
    // is deleted.
    apply(
        store,
        vec![
            Op::PutObject(typed(a, x[0], "Table", None)),
            Op::PutObject(typed(a, x[3], "Column", Some("int"))),
            Op::DeleteObject(x[1]),
        ],
        "changing types and deleting",
    )
    .await;
    assert_eq!(
        count(store, columns()).await,
        3,
        "columns after the changes"
    );
    assert_eq!(
        values(store, within(&[a]), Column::DataType).await,
        pairs(&[("int", 2), ("text", 1)]),
        "data types after the changes"
    );
    assert_eq!(
        values(store, within(&[a]), Column::TypeName).await,
        pairs(&[("Column", 3), ("Table", 2), ("Model", 1)]),
        "types of A after the changes"
    );

    // Model objects, and only they, live in a model's id space.
    let mut misplaced = typed(a, z_id(store, a).await, "Column", None);
    misplaced.kind = ObjectKind::Folder;
    fails(
        store
            .apply(Batch::from(vec![Op::PutObject(misplaced)]))
            .await,
        ErrorCode::InvalidParameter,
        "a folder in a model's id space",
    );

    // A batch that fails leaves every count as it was.
    let z = ids(store, a, 1).await;
    let mut orphan = typed(a, z[0], "Column", Some("int"));
    orphan.parent = Some(ObjectId::repository(a));
    fails(
        store
            .apply(Batch::from(vec![
                Op::PutObject(typed(a, x[2], "View", None)),
                Op::PutObject(orphan),
            ]))
            .await,
        ErrorCode::InvalidParameter,
        "a batch with a parent in another id space",
    );
    assert_eq!(
        count(store, columns()).await,
        3,
        "columns after a failed batch"
    );

    // Clearing model B takes its objects out of every count; its model stays.
    apply(store, vec![Op::ClearModel(b)], "clearing model B").await;
    assert_eq!(
        count(store, within(&[b])).await,
        1,
        "model B after clearing"
    );
    assert_eq!(
        count(store, of_types(&["table"])).await,
        2,
        "tables after clearing B"
    );
    assert_eq!(
        count(store, Cond::True).await,
        7,
        "everything after clearing B"
    );
}
