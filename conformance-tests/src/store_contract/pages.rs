//! Pages of a text search whose term many objects hold: the SQL backends choose between
//! reading the name order and testing each object, and finding the term's objects
//! through the text index and sorting them (SQLite tries the first for a bounded number
//! of objects, then the second); whichever they choose, the page is the reference's.
//! The facets of such a search are counted in one statement. A term whose trigrams are
//! in most objects but one (`column 7`) is looked up in SQLite's text index by that one,
//! then tested exactly. The SQL stores read a search's objects from a narrow copy of
//! their searched and faceted columns (migration 25), which every write keeps in step.

use std::sync::Arc;

use lore_core::id::ObjectId;
use lore_core::model::{DATABASE_PROFILE, Tag, TagKind, TypeName};
use lore_core::mql::plan::{Column, Cond, Facet, Field, Lit, Page, Plan, SortKey, ValueCount};
use lore_core::store::{Op, Store};

use super::{apply, model_object, new_model, ok};

/// Objects before the term's in name order: more than four times the smallest bound of
/// the probes (1,000), so a bounded read in name order stops before the term's objects.
const EARLY: i64 = 4_500;
/// Objects holding the term, after all the others: more than the probes' bound, so the
/// term counts as common.
const LATE: i64 = 1_100;

fn search(term: &str) -> Plan {
    Plan {
        filter: Cond::Search {
            columns: vec![Column::Name, Column::PhysicalName],
            text: term.to_owned(),
        },
        visibility: Cond::True,
        order: vec![SortKey {
            field: Field::Column(Column::Name),
            descending: false,
        }],
        as_of: None,
    }
}

pub(super) async fn a_common_term_late_in_name_order_pages_alike(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "pages").await;
    let mut ops = Vec::new();
    for i in 0..EARLY {
        ops.push(Op::PutObject(model_object(
            model,
            i + 1,
            None,
            &format!("a_{i:05}"),
        )));
    }
    for i in 0..LATE {
        let name = format!("z_late_{i:05}");
        ops.push(Op::PutObject(model_object(
            model,
            EARLY + i + 1,
            None,
            &name,
        )));
    }
    apply(store, ops, "the objects").await;
    let late = |i: i64| ObjectId::new(model, EARLY + i + 1);
    let page = |offset, limit| Page { offset, limit };

    let plan = search("late");
    assert_eq!(ok(store.count(&plan).await, "count"), LATE as u64);
    for (offset, limit) in [(0, 20), (1_080, 20), (1_090, 20), (0, 1)] {
        let found = ok(store.query(&plan, page(offset, limit)).await, "a page");
        let expected: Vec<ObjectId> = (offset as i64..(offset + limit).min(LATE as u64) as i64)
            .map(late)
            .collect();
        assert_eq!(found, expected, "page at {offset} of {limit} of 'late'");
    }
    // The facets of the search, counted together (the SQL stores find the term's
    // objects once for both).
    let facet = |column| Facet {
        relation: None,
        field: Field::Column(column),
        gap: None,
        hidden: Cond::False,
    };
    let counts = ok(
        store
            .value_counts(&plan, &[facet(Column::TypeName), facet(Column::Name)], 3)
            .await,
        "value counts",
    );
    let text = |values: &[ValueCount]| -> Vec<(Lit, u64)> {
        values.iter().map(|c| (c.value.clone(), c.count)).collect()
    };
    assert_eq!(
        counts.iter().map(|c| text(c)).collect::<Vec<_>>(),
        [
            vec![(Lit::Text("Table".to_owned()), LATE as u64)],
            (0..3)
                .map(|i| (Lit::Text(format!("z_late_{i:05}")), 1))
                .collect(),
        ],
        "each facet in its own order: most frequent first, then by value"
    );

    // A common term early in the order: the first objects read fill the page.
    let early = ok(store.query(&search("a 0"), page(0, 20)).await, "a page");
    let expected: Vec<ObjectId> = (1..=20).map(|i| ObjectId::new(model, i)).collect();
    assert_eq!(early, expected, "the first page of 'a 0'");
}

/// Columns named alike in every table (`column_0` to `column_23`): SQLite looks up
/// `column_7` by its rarest trigram (`n 7`), which also lists objects the exact test
/// refuses; the answers are the reference's all the same.
pub(super) async fn a_term_found_by_its_rarest_trigram_finds_alike(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "rarest trigram").await;
    let mut ops = Vec::new();
    let mut number = 0;
    let mut put = |name: &str, physical: Option<&str>| {
        number += 1;
        let mut object = model_object(model, number, None, name);
        object.physical_name = physical.map(str::to_owned);
        ops.push(Op::PutObject(object));
        ObjectId::new(model, number)
    };
    let mut expected = Vec::new();
    for i in 0..2_400 {
        let id = put(&format!("column_{}", i % 24), None);
        if i % 24 == 7 {
            expected.push(id);
        }
    }
    // Found: the term in another case, in a longer word, with its word breakers
    // doubled, or in the Physical Name only.
    for name in ["COLUMN_7", "xcolumn_70y", "column__7", "Column.7"] {
        expected.push(put(name, None));
    }
    expected.push(put("other", Some("COLUMN_7")));
    // Not found, though the index lists them under `n 7`: the exact test refuses
    // a letter MQL does not fold, and a term split by a word.
    for name in ["ÇOLUMN_7", "colum_n_7", "column_x_7", "n_7"] {
        put(name, None);
    }
    apply(store, ops, "the objects").await;
    expected.sort();

    let plan = search("column 7");
    assert_eq!(
        ok(store.count(&plan).await, "count"),
        expected.len() as u64,
        "the count of 'column 7'"
    );
    let mut found = ok(
        store
            .query(
                &plan,
                Page {
                    offset: 0,
                    limit: 500,
                },
            )
            .await,
        "a page",
    );
    // Names in several cases: which comes first is the name order's business (tested
    // elsewhere); here, that the page holds every object the term is in, and no other.
    found.sort();
    assert_eq!(found, expected, "every object holding 'column 7'");
    let facet = |column| Facet {
        relation: None,
        field: Field::Column(column),
        gap: None,
        hidden: Cond::False,
    };
    let counts = ok(
        store
            .value_counts(&plan, &[facet(Column::TypeName), facet(Column::Name)], 1)
            .await,
        "value counts",
    );
    let text = |values: &[ValueCount]| -> Vec<(Lit, u64)> {
        values.iter().map(|c| (c.value.clone(), c.count)).collect()
    };
    assert_eq!(
        counts.iter().map(|c| text(c)).collect::<Vec<_>>(),
        [
            vec![(Lit::Text("Table".to_owned()), expected.len() as u64)],
            vec![(Lit::Text("column_7".to_owned()), 100)],
        ],
        "the facets of 'column 7'"
    );
}

/// A search's count, facets and page follow every change of what they read: a new
/// object, a rename (in Name or Physical Name), a new type or data type, a deletion and
/// a cleared model (the SQL stores read them from a narrow copy kept by triggers).
pub(super) async fn a_search_follows_every_write_of_what_it_reads(store: Arc<dyn Store>) {
    let store = store.as_ref();
    let (_, model) = new_model(store, "search follows writes").await;
    let object = |number: i64, name: &str, data_type: Option<&str>| {
        let mut object = model_object(model, number, None, name);
        object.data_type = data_type.map(str::to_owned);
        object
    };
    let label = |i, value: &str| Tag {
        object: ObjectId::new(model, i),
        kind: TagKind::Label,
        value: value.to_owned(),
    };
    let mut ops: Vec<Op> = (1..=5)
        .map(|i| Op::PutObject(object(i, &format!("alpha_{i}"), Some("INT"))))
        .collect();
    ops.extend([
        Op::AddTag(label(1, "PII")),
        Op::AddTag(label(2, "PII")),
        Op::AddTag(label(2, "Gold")),
        Op::AddTag(label(4, "PII")),
    ]);
    apply(store, ops, "the objects").await;
    let facet = |field| Facet {
        relation: None,
        field,
        gap: None,
        hidden: Cond::False,
    };
    let facets = &[
        facet(Field::Column(Column::TypeName)),
        facet(Field::Column(Column::DataType)),
        facet(Field::Tags(TagKind::Label)),
    ];
    let seen = |plan: Plan| async move {
        let count = ok(store.count(&plan).await, "count");
        let page = ok(
            store
                .query(
                    &plan,
                    Page {
                        offset: 0,
                        limit: 10,
                    },
                )
                .await,
            "a page",
        );
        let counts = ok(store.value_counts(&plan, facets, 5).await, "value counts");
        let counts: Vec<Vec<(Lit, u64)>> = counts
            .iter()
            .map(|c| c.iter().map(|v| (v.value.clone(), v.count)).collect())
            .collect();
        (count, page, counts)
    };
    let id = |i| ObjectId::new(model, i);
    let text = |t: &str| Lit::Text(t.to_owned());
    let (count, page, counts) = seen(search("alpha")).await;
    assert_eq!(count, 5, "every object holds the term");
    assert_eq!(page, (1..=5).map(id).collect::<Vec<_>>());
    assert_eq!(
        counts,
        [
            vec![(text("Table"), 5)],
            vec![(text("INT"), 5)],
            vec![(text("PII"), 3), (text("Gold"), 1)]
        ]
    );

    // Renamed (with its label), its physical name set, its type and data type changed,
    // one deleted (with its label), labels added and removed.
    let mut renamed = object(1, "beta_1", Some("INT"));
    renamed.physical_name = Some("ALPHA_ONE".to_owned());
    let mut retyped = object(2, "alpha_2", Some("TEXT"));
    retyped.object_type = TypeName::new(DATABASE_PROFILE, "View");
    let ops = vec![
        Op::PutObject(object(3, "gamma_3", Some("INT"))),
        Op::PutObject(renamed),
        Op::PutObject(retyped),
        Op::DeleteObject(id(4)),
        Op::PutObject(object(6, "alpha_6", None)),
        Op::RemoveTag(label(2, "Gold")),
        Op::AddTag(label(5, "Gold")),
        Op::AddTag(label(6, "PII")),
    ];
    apply(store, ops, "the changes").await;
    let (count, page, counts) = seen(search("alpha")).await;
    assert_eq!(count, 4, "1 by its physical name, 2, 5 and 6");
    assert_eq!(page, [id(2), id(5), id(6), id(1)], "in name order");
    assert_eq!(
        counts,
        [
            vec![(text("Table"), 3), (text("View"), 1)],
            vec![(text("INT"), 2), (text("TEXT"), 1)],
            vec![(text("PII"), 3), (text("Gold"), 1)]
        ]
    );
    assert_eq!(
        seen(search("gamma")).await.0,
        1,
        "the renamed object's new name"
    );
    assert_eq!(seen(search("alpha 4")).await.0, 0, "the deleted object");

    // A label stored before its object (an upsert, as a curation can write it): the
    // object, once written, is found with it.
    apply(store, vec![Op::AddTag(label(7, "Early"))], "a label first").await;
    apply(
        store,
        vec![Op::PutObject(object(7, "alpha_7", None))],
        "its object",
    )
    .await;
    let (count, _, counts) = seen(search("alpha")).await;
    assert_eq!(count, 5);
    assert_eq!(
        counts[2],
        [(text("PII"), 3), (text("Early"), 1), (text("Gold"), 1)],
        "the label written before its object"
    );

    apply(store, vec![Op::ClearModel(model)], "the cleared model").await;
    let (count, page, counts) = seen(search("alpha")).await;
    assert_eq!((count, page.len()), (0, 0), "nothing left to find");
    assert_eq!(counts, [vec![], vec![], vec![]]);
}
