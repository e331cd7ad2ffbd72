//! The cross-backend MQL test: random valid queries over a generated repository must
//! find the same objects, in the same order, with the same counts, pages and value counts
//! (facets) on the memory backend (the reference evaluator), SQLite and PostgreSQL. A
//! proptest runs the same generator over memory and SQLite with seeds of its own choosing.

use std::sync::Arc;

use lore_backend_memory::MemoryStore;
use lore_backend_postgres::PostgresStore;
use lore_conformance::mql_gen::{self, GeneratedQuery, Repository};
use lore_conformance::postgres::TestDatabase;
use lore_core::Store;
use lore_core::mql::plan::{Facet, Page};
use lore_core::store::Batch;
use proptest::prelude::*;
use rand::SeedableRng;
use rand::rngs::StdRng;

const ALL: Page = Page {
    offset: 0,
    limit: 10_000,
};

async fn loaded(store: Arc<dyn Store>, repo: &Repository) -> Arc<dyn Store> {
    if let Err(err) = store.apply(Batch::from(repo.ops.clone())).await {
        panic!(
            "{}: writing the generated repository: {err}",
            store.backend()
        );
    }
    store
}

async fn sqlite(repo: &Repository) -> Arc<dyn Store> {
    match lore_backend_sqlite::open_temporary().await {
        Ok(store) => loaded(Arc::new(store), repo).await,
        Err(err) => panic!("opening a temporary SQLite store: {err}"),
    }
}

/// The repository on memory, SQLite and (when reachable) PostgreSQL, with the test
/// database to keep until the stores are done.
async fn every_store(repo: &Repository) -> (Vec<Arc<dyn Store>>, Option<TestDatabase>) {
    let mut stores = vec![
        loaded(Arc::new(MemoryStore::new()), repo).await,
        sqlite(repo).await,
    ];
    let database = TestDatabase::create().await;
    if let Some(db) = &database {
        match PostgresStore::open(&db.url).await {
            Ok(store) => stores.push(loaded(Arc::new(store), repo).await),
            Err(err) => panic!("connecting to a fresh database: {err}"),
        }
    }
    (stores, database)
}

/// What one query found on the reference store, for the summary.
struct Found {
    rows: usize,
}

/// Runs one query on every store and panics on the first difference.
async fn compare(
    query: &GeneratedQuery,
    stores: &[Arc<dyn Store>],
    meta: &lore_core::model::MetaModel,
    page: Page,
    facets: &[Facet],
) -> Option<Found> {
    let plan = mql_gen::plan(query, meta).ok()?;
    let mut expected: Option<(Vec<lore_core::ObjectId>, u64, Vec<lore_core::ObjectId>)> = None;
    let mut expected_counts = None;
    for store in stores {
        let name = store.backend();
        let all = match store.query(&plan, ALL).await {
            Ok(ids) => ids,
            Err(err) => panic!("{name} failed on {query}: {err}\nplan: {plan:?}"),
        };
        let count = match store.count(&plan).await {
            Ok(n) => n,
            Err(err) => panic!("{name} failed to count {query}: {err}"),
        };
        let paged = match store.query(&plan, page).await {
            Ok(ids) => ids,
            Err(err) => panic!("{name} failed on a page of {query}: {err}"),
        };
        let counts = match store.value_counts(&plan, facets, 50).await {
            Ok(counts) => counts,
            Err(err) => panic!("{name} failed to count values of {facets:?} in {query}: {err}"),
        };
        match &expected_counts {
            None => expected_counts = Some(counts),
            Some(e) => assert_eq!(
                &counts, e,
                "{name} counts values of {facets:?} differently: {query}"
            ),
        }
        match &expected {
            None => expected = Some((all, count, paged)),
            Some((e_all, e_count, e_paged)) => {
                assert_eq!(
                    &all, e_all,
                    "{name} differs from memory on {query}\nplan: {plan:?}"
                );
                assert_eq!(count, *e_count, "{name} counts differently: {query}");
                assert_eq!(
                    &paged, e_paged,
                    "{name} pages differently ({page:?}): {query}"
                );
            }
        }
    }
    let (all, count, _) = expected?;
    assert_eq!(
        all.len() as u64,
        count,
        "count and rows differ on memory: {query}"
    );
    Some(Found { rows: all.len() })
}

fn page(rng: &mut StdRng) -> Page {
    use rand::Rng;
    let limit = rng.random_range(1..8);
    Page {
        offset: limit * rng.random_range(0..4),
        limit,
    }
}

#[tokio::test]
async fn generated_queries_answer_alike_on_every_backend() {
    const QUERIES: usize = 600;
    let repo = mql_gen::repository(7);
    let (stores, _database) = every_store(&repo).await;
    let meta = mql_gen::meta_model();
    let mut rng = StdRng::seed_from_u64(11);
    let (mut ran, mut empty, mut everything) = (0, 0, 0);
    let total = repo.objects.len() + repo.models.len();
    for i in 0..QUERIES {
        let query = mql_gen::query(&mut rng, &repo);
        let page = page(&mut rng);
        // One, two or three facets: a store counts several in one statement.
        let facets: Vec<Facet> = (0..=i % 3)
            .map(|_| mql_gen::facet(&mut rng, &meta))
            .collect();
        if let Some(found) = compare(&query, &stores, &meta, page, &facets).await {
            ran += 1;
            if found.rows == 0 {
                empty += 1;
            }
            if found.rows >= total {
                everything += 1;
            }
        }
    }
    eprintln!(
        "{ran} of {QUERIES} generated queries valid and equal on {} backends; {empty} found nothing, {everything} everything",
        stores.len()
    );
    assert!(
        ran >= QUERIES * 3 / 4,
        "only {ran} generated queries were valid"
    );
    assert!(empty < ran / 2, "{empty} of {ran} queries found nothing");
    assert!(
        everything < ran / 4,
        "{everything} of {ran} queries found everything"
    );
}

/// What a text search found, kept for the calls after it (the SQL stores' hit cache),
/// answers pages in either name order, counts and the facets it holds (Object Type, Data
/// Type, Labels, Name, Model Id; beside others counted by a statement) as the reference
/// evaluator does, whichever call read it first: the facets, the count, or a page whose
/// first try came up short.
#[tokio::test]
async fn kept_search_hits_answer_alike_on_every_backend() {
    let repo = mql_gen::repository(7);
    let (stores, _database) = every_store(&repo).await;
    let meta = mql_gen::meta_model();
    let facets_of = |paths: &[&str]| -> Vec<Facet> {
        paths
            .iter()
            .map(|path| mql_gen::facet_of(path, &meta, None))
            .collect()
    };
    let kept = facets_of(&[
        "\"Object Type\"",
        "\"Data Type\"",
        "Labels",
        "Name",
        "\"Model Id\"",
    ]);
    // Some from the kept objects, the others by a statement.
    let mixed = facets_of(&["Labels", "\"Data Classifications\"", "\"Model Id\"", "Tier"]);
    let filters = [
        "text = 'customer'",
        "text = 'order'",
        "text = 'ORDER' AND \"Object Type\" = 'Column'",
        "text = 'sales order'",
        "text = 'id' OR text = 'email'",
        "text = 'no object holds this'",
    ];
    let mut found = 0;
    for (i, filter) in filters.iter().enumerate() {
        let query = |orderby: Option<&str>| GeneratedQuery {
            filter: (*filter).to_owned(),
            orderby: orderby.map(str::to_owned),
            source: lore_core::mql::plan::Cond::True,
        };
        // Every other search is read first by its facets.
        if i % 2 == 0 {
            let plan = mql_gen::plan(&query(None), &meta).expect("a valid query");
            for store in &stores {
                if let Err(err) = store.value_counts(&plan, &kept, 50).await {
                    panic!("{}: facets of {filter}: {err}", store.backend());
                }
            }
        }
        let page = Page {
            offset: 2,
            limit: 3,
        };
        for (orderby, facets) in [
            (None, &kept),
            (Some("Name desc"), &mixed),
            (Some("Name"), &kept),
        ] {
            if let Some(rows) = compare(&query(orderby), &stores, &meta, page, facets).await {
                found += rows.rows;
            }
        }
    }
    assert!(found > 0, "the searches found nothing");
}

/// The conditions the tag order of the SQL stores serves (a type and a label in name
/// order, a label alone, a type without a label; migration 21) answer as the reference
/// evaluator does, over tags whose values fold alike, tags on repository objects, tags
/// written before their object (in one batch and across two), and objects renamed or
/// retyped after they were tagged.
#[tokio::test]
async fn tag_order_answers_alike_on_every_backend() {
    use lore_core::ObjectId;
    use lore_core::model::{Object, ObjectKind, SystemType, Tag, TagKind, TypeName};
    use lore_core::mql::plan::{Cond, Within};
    use lore_core::store::Op;

    let repo = mql_gen::repository(7);
    let label = |object: ObjectId, value: &str| {
        Op::AddTag(Tag {
            object,
            kind: TagKind::Label,
            value: value.to_owned(),
        })
    };
    let table = |object: ObjectId, name: &str| {
        Op::PutObject(Object::new(
            object,
            ObjectKind::ModelObject,
            TypeName::new(lore_core::model::DATABASE_PROFILE, "Table"),
            SystemType::Classifier,
            name,
        ))
    };
    let put = |id: ObjectId| {
        repo.ops
            .iter()
            .rev()
            .find_map(|op| match op {
                Op::PutObject(o) if o.id == id => Some(o.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("object {id} is generated"))
    };
    let (early, late) = (ObjectId::new(2, 900), ObjectId::new(2, 901));
    let mut renamed = put(ObjectId::new(2, 1));
    renamed.name = "Zz renamed".to_owned();
    let mut retyped = put(ObjectId::new(2, 2));
    retyped.object_type = TypeName::new(lore_core::model::DATABASE_PROFILE, "Table");
    let mut untyped = put(ObjectId::new(3, 3));
    untyped.object_type = TypeName::new(lore_core::model::DATABASE_PROFILE, "Column");
    let later = vec![
        // A tag before its object: across two batches, and in one.
        vec![label(early, "PII")],
        vec![table(early, "aardvark")],
        vec![
            label(late, "pii"),
            label(late, "PII"),
            table(late, "Middle"),
        ],
        // Repository objects: a model and the folder.
        vec![
            label(ObjectId::repository(2), "PII"),
            label(ObjectId::repository(1), "Gold"),
        ],
        // Every object of the first three, tagged, then renamed or retyped.
        vec![
            label(ObjectId::new(2, 1), "PII"),
            label(ObjectId::new(2, 2), "Pii"),
            label(ObjectId::new(3, 3), "Gold"),
        ],
        vec![
            Op::PutObject(renamed),
            Op::PutObject(retyped),
            Op::PutObject(untyped),
        ],
        // The first of a group folding alike removed, then the other.
        vec![Op::RemoveTag(Tag {
            object: late,
            kind: TagKind::Label,
            value: "pii".to_owned(),
        })],
        vec![label(early, "pII"), label(early, "Pii")],
        vec![Op::RemoveTag(Tag {
            object: early,
            kind: TagKind::Label,
            value: "PII".to_owned(),
        })],
    ];
    let (stores, _database) = every_store(&repo).await;
    for store in &stores {
        for ops in &later {
            if let Err(err) = store.apply(Batch::from(ops.clone())).await {
                panic!("{}: writing {ops:?}: {err}", store.backend());
            }
        }
    }
    let meta = mql_gen::meta_model();
    let filters = [
        "\"Object Type\" = 'Table' AND Labels = 'PII'",
        "Labels = 'pii' AND \"Object Type\" = 'table'",
        "Labels = 'PII'",
        "\"Object Type\" = 'Table' AND Labels != 'PII'",
        "\"Object Type\" = ANY ('Table', 'Column') AND Labels != 'gold'",
        "Labels != 'Gold'",
        "\"Object Type\" = 'Column' AND Collections = 'Audit'",
        "\"Object Type\" = 'Database' AND Labels = 'Gold'",
    ];
    let sources = [
        Cond::Within(Within {
            models: vec![2],
            subtrees: Vec::new(),
        }),
        Cond::Within(Within {
            models: vec![2, 3],
            subtrees: Vec::new(),
        }),
        Cond::Kinds(vec![ObjectKind::Model, ObjectKind::ModelObject]),
    ];
    let facets = [
        mql_gen::facet_of("Labels", &meta, None),
        mql_gen::facet_of("\"Object Type\"", &meta, None),
    ];
    let mut ran = 0;
    for filter in filters {
        for source in &sources {
            for (i, offset) in [0, 2, 5].into_iter().enumerate() {
                let query = GeneratedQuery {
                    filter: filter.to_owned(),
                    orderby: None,
                    source: source.clone(),
                };
                if let Err(err) = mql_gen::plan(&query, &meta) {
                    panic!("{query} is not valid: {err}");
                }
                let page = Page { offset, limit: 3 };
                // One facet, then both.
                let facets = &facets[i % facets.len()..];
                if compare(&query, &stores, &meta, page, facets)
                    .await
                    .is_some()
                {
                    ran += 1;
                }
            }
        }
    }
    assert_eq!(
        ran,
        filters.len() * sources.len() * 3,
        "every query is valid"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn generated_queries_answer_alike_on_memory_and_sqlite(repo_seed in any::<u64>(), query_seed in any::<u64>()) {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
        let Ok(runtime) = runtime else { panic!("a runtime") };
        runtime.block_on(async {
            let repo = mql_gen::repository(repo_seed);
            let stores = vec![
                loaded(Arc::new(MemoryStore::new()), &repo).await,
                sqlite(&repo).await,
            ];
            let meta = mql_gen::meta_model();
            let mut rng = StdRng::seed_from_u64(query_seed);
            for _ in 0..25 {
                let query = mql_gen::query(&mut rng, &repo);
                let page = page(&mut rng);
                let facets = [mql_gen::facet(&mut rng, &meta), mql_gen::facet(&mut rng, &meta)];
                compare(&query, &stores, &meta, page, &facets).await;
            }
        });
    }
}
