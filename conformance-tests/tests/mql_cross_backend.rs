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
    Some(compare_plan(&query.to_string(), &plan, stores, page, facets).await)
}

/// Runs one plan on every store and panics on the first difference; `query` names it.
async fn compare_plan(
    query: &str,
    plan: &lore_core::mql::plan::Plan,
    stores: &[Arc<dyn Store>],
    page: Page,
    facets: &[Facet],
) -> Found {
    let plan = plan.clone();
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
    let Some((all, count, _)) = expected else {
        panic!("no store to compare")
    };
    assert_eq!(
        all.len() as u64,
        count,
        "count and rows differ on memory: {query}"
    );
    Found { rows: all.len() }
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

/// The repository on memory, SQLite and (when reachable) PostgreSQL, the SQL stores'
/// search indexes read whole (`backends/sql/src/mirror.rs`), so that every plan the
/// index serves is answered from it.
async fn every_store_indexed(repo: &Repository) -> (Vec<Arc<dyn Store>>, Option<TestDatabase>) {
    let mut stores: Vec<Arc<dyn Store>> = vec![loaded(Arc::new(MemoryStore::new()), repo).await];
    let sqlite = match lore_backend_sqlite::open_temporary().await {
        Ok(store) => store,
        Err(err) => panic!("opening a temporary SQLite store: {err}"),
    };
    stores.push(loaded(Arc::new(sqlite.clone()), repo).await);
    if let Err(err) = sqlite.build_index().await {
        panic!("reading SQLite's search index: {err}");
    }
    let database = TestDatabase::create().await;
    if let Some(db) = &database {
        match PostgresStore::open(&db.url).await {
            Ok(store) => {
                stores.push(loaded(Arc::new(store.clone()), repo).await);
                if let Err(err) = store.build_index().await {
                    panic!("reading PostgreSQL's search index: {err}");
                }
            }
            Err(err) => panic!("connecting to a fresh database: {err}"),
        }
    }
    (stores, database)
}

/// Changes between rounds of queries: objects renamed (into and out of the search
/// words), retyped, labelled and unlabelled, classified again, sensitivity labels
/// assigned and taken back, and leaf objects deleted, a few at a time, so the SQL
/// stores' search indexes merge them from the journal of changes (migration 32).
fn changes(repo: &Repository, round: usize) -> Vec<lore_core::store::Op> {
    use lore_core::model::{ClassificationStatus, Tag, TagKind};
    use lore_core::store::Op;
    let parents: std::collections::HashSet<lore_core::ObjectId> = repo
        .ops
        .iter()
        .filter_map(|op| match op {
            Op::PutObject(o) => o.parent,
            _ => None,
        })
        .collect();
    let mut ops = Vec::new();
    let mut seen = 0usize;
    for op in &repo.ops {
        seen += 1;
        if !(seen + round).is_multiple_of(9) {
            continue;
        }
        match op {
            Op::PutObject(o) if o.kind == lore_core::model::ObjectKind::ModelObject => {
                if round == 3 && !parents.contains(&o.id) {
                    ops.push(Op::DeleteObject(o.id));
                    continue;
                }
                let mut o = o.clone();
                o.name = match round % 3 {
                    0 => format!("{} order renamed", o.name),
                    1 => "customer_ID".to_owned(),
                    _ => o.name.to_uppercase(),
                };
                if round == 2 {
                    o.object_type.name = "Column".to_owned();
                    o.description = None;
                }
                ops.push(Op::PutObject(o));
            }
            Op::AddTag(tag) if round.is_multiple_of(2) => ops.push(Op::RemoveTag(tag.clone())),
            Op::AddTag(tag) => ops.push(Op::AddTag(Tag {
                object: tag.object,
                kind: TagKind::Label,
                value: "Gold Order".to_owned(),
            })),
            Op::SetClassification(c) => {
                let mut c = c.clone();
                c.status = match c.status {
                    ClassificationStatus::Rejected => ClassificationStatus::Approved,
                    _ => ClassificationStatus::Rejected,
                };
                ops.push(Op::SetClassification(c));
            }
            Op::SetLabelAssignment(l) if round % 2 == 1 => {
                ops.push(Op::RemoveLabelAssignment {
                    object: l.object,
                    label: l.label.clone(),
                });
            }
            _ => {}
        }
    }
    ops
}

/// The SQL stores' search index (`backends/sql/src/mirror.rs`) answers the plans it
/// serves (text searches, names, types, data types, labels, data classes, sensitivity
/// labels, curation flags, models) as the reference evaluator does: read whole, then
/// kept in step through the journal of changes while objects are renamed, retyped,
/// labelled, classified and deleted between rounds of generated queries.
#[tokio::test]
async fn the_search_index_answers_alike_on_every_backend() {
    const ROUNDS: usize = 4;
    const QUERIES: usize = 150;
    let repo = mql_gen::repository(7);
    let (stores, _database) = every_store_indexed(&repo).await;
    let meta = mql_gen::meta_model();
    let mut rng = StdRng::seed_from_u64(23);
    let mut ran = 0;
    for round in 0..=ROUNDS {
        for i in 0..QUERIES {
            let query = mql_gen::query(&mut rng, &repo);
            let page = page(&mut rng);
            let facets: Vec<Facet> = (0..=i % 3)
                .map(|_| mql_gen::facet(&mut rng, &meta))
                .collect();
            if compare(&query, &stores, &meta, page, &facets)
                .await
                .is_some()
            {
                ran += 1;
            }
        }
        if round == ROUNDS {
            break;
        }
        let ops = changes(&repo, round);
        assert!(!ops.is_empty(), "round {round} changes nothing");
        for store in &stores {
            if let Err(err) = store.apply(Batch::from(ops.clone())).await {
                panic!("{}: changes of round {round}: {err}", store.backend());
            }
        }
    }
    assert!(
        ran >= ROUNDS * QUERIES / 2,
        "only {ran} generated queries were valid"
    );
}

/// One store's search index follows what another store over the same database (another
/// process) writes: each write reaches the next search, merged from the journal of
/// changes (the index's version moves with the catalog's without reading it whole), and
/// a write of "everything" (a model cleared) is answered by the statements until the
/// index is read again.
async fn search_index_follows_another_store<D: lore_backend_sql::Driver>(
    writer: lore_backend_sql::SqlStore<D>,
    searcher: lore_backend_sql::SqlStore<D>,
) {
    use lore_core::model::{Tag, TagKind};
    use lore_core::store::{ObjectStore, Op, StoreBase};
    let repo = mql_gen::repository(7);
    let writer: Arc<dyn Store> = loaded(Arc::new(writer), &repo).await;
    let meta = mql_gen::meta_model();
    let plan = |filter: &str| {
        let query = GeneratedQuery {
            filter: filter.to_owned(),
            orderby: None,
            source: lore_core::mql::plan::Cond::True,
        };
        mql_gen::plan(&query, &meta).unwrap_or_else(|e| panic!("{filter}: {e}"))
    };
    let zebra = plan("text = 'zebra'");
    let striped = plan("Labels = 'striped'");
    // Answered by the index (a text search): its labels kept through later merges.
    let striped_zebra = plan("text = 'zebra' AND Labels = 'striped'");
    let name = searcher.backend();
    let count = |plan: lore_core::mql::plan::Plan| {
        let searcher = searcher.clone();
        async move {
            match searcher.count(&plan).await {
                Ok(n) => n,
                Err(err) => panic!("{name}: counting: {err}"),
            }
        }
    };
    if let Err(err) = searcher.build_index().await {
        panic!("{name}: reading the search index: {err}");
    }
    let read_at = searcher.search_index_version();
    assert!(read_at.is_some(), "{name}: the index was read");
    assert_eq!(
        count(zebra.clone()).await,
        0,
        "{name}: nothing holds the term yet"
    );
    let mut renamed = repo
        .ops
        .iter()
        .find_map(|op| match op {
            Op::PutObject(o) if o.kind == lore_core::model::ObjectKind::ModelObject => {
                Some(o.clone())
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("the repository has model objects"));
    renamed.name = "Zebra crossing".to_owned();
    let id = renamed.id;
    let mut other = repo
        .ops
        .iter()
        .find_map(|op| match op {
            Op::PutObject(o)
                if o.kind == lore_core::model::ObjectKind::ModelObject && o.id != id =>
            {
                Some(o.clone())
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("the repository has two model objects"));
    other.name = "Zebra two".to_owned();
    let other_model = other.id.model;
    // (the writes, objects holding the term, labelled, holding the term and labelled)
    let steps: Vec<(Vec<Op>, u64, u64, u64)> = vec![
        (vec![Op::PutObject(renamed.clone())], 1, 0, 0),
        (
            vec![Op::AddTag(Tag {
                object: id,
                kind: TagKind::Label,
                value: "Striped".to_owned(),
            })],
            1,
            1,
            1,
        ),
        // Another object changed: the first, in the fresh part, keeps its label.
        (vec![Op::PutObject(other)], 2, 1, 1),
        (vec![Op::DeleteObject(id)], 1, 0, 0),
        // Made again: its label went with it.
        (vec![Op::PutObject(renamed)], 2, 0, 0),
    ];
    for (i, (ops, zebras, stripes, striped_zebras)) in steps.into_iter().enumerate() {
        if let Err(err) = writer.apply(Batch::from(ops)).await {
            panic!("{name}: step {i}: {err}");
        }
        assert_eq!(
            count(zebra.clone()).await,
            zebras,
            "{name}: step {i}: the term"
        );
        assert_eq!(
            count(striped.clone()).await,
            stripes,
            "{name}: step {i}: the label"
        );
        assert_eq!(
            count(striped_zebra.clone()).await,
            striped_zebras,
            "{name}: step {i}: the term and the label"
        );
        let page = match searcher.query(&zebra, ALL).await {
            Ok(ids) => ids,
            Err(err) => panic!("{name}: step {i}: a page: {err}"),
        };
        assert_eq!(page.len() as u64, zebras, "{name}: step {i}: the page");
    }
    let merged_at = searcher.search_index_version();
    assert!(
        merged_at > read_at,
        "{name}: the index followed the writes ({read_at:?} → {merged_at:?}) without being read whole again"
    );
    // A model cleared: everything changed; the statements answer meanwhile.
    if let Err(err) = writer
        .apply(Batch::from(vec![Op::ClearModel(id.model)]))
        .await
    {
        panic!("{name}: clearing model {}: {err}", id.model);
    }
    let left = if other_model == id.model { 0 } else { 1 };
    assert_eq!(
        count(zebra.clone()).await,
        left,
        "{name}: the cleared model's objects are gone"
    );
}

#[tokio::test]
async fn the_search_index_follows_another_sqlite_store() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("a temporary directory: {e}"));
    let path = dir.path().join("lore.db");
    let open = || async {
        match lore_backend_sqlite::SqliteStore::open(path.clone()).await {
            Ok(store) => store,
            Err(err) => panic!("opening {}: {err}", path.display()),
        }
    };
    let writer = open().await;
    let searcher = open().await;
    search_index_follows_another_store(writer, searcher).await;
}

#[tokio::test]
async fn the_search_index_follows_another_postgres_store() {
    let Some(db) = TestDatabase::create().await else {
        eprintln!("PostgreSQL is not reachable: skipped");
        return;
    };
    let open = || async {
        match PostgresStore::open(&db.url).await {
            Ok(store) => store,
            Err(err) => panic!("connecting to {}: {err}", db.name),
        }
    };
    let writer = open().await;
    let searcher = open().await;
    search_index_follows_another_store(writer, searcher).await;
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

/// The tallies of migration 31 (labels, data classes and sensitivity labels by value,
/// curation and descriptions by model) answer the search page's counts and facets as the
/// reference evaluator does, for an administrator and an object-role caller (sight of
/// whole models), through every kind of write: tags, classifications, label assignments
/// and curation added, changed and removed; rows written before their object or user
/// (in the same batch and across two); data classes and sensitivity label definitions
/// written after their rows or changed; descriptions set and cleared; objects and users
/// deleted; a model cleared and filled again.
#[tokio::test]
async fn value_tallies_answer_alike_on_every_backend() {
    use lore_backend_sql::Dialect;
    use lore_backend_sql::compile::tally;
    use lore_core::ObjectId;
    use lore_core::model::{
        Classification, ClassificationStatus as Status, Curation, CurationKind, DATABASE_PROFILE,
        DataClass, LabelAssignment, Object, ObjectKind, SensitivityLabel, SystemType, Tag, TagKind,
        TypeName, User,
    };
    use lore_core::mql::plan::{Cond, Plan, Within};
    use lore_core::store::Op;

    let repo = mql_gen::repository(7);
    let meta = mql_gen::meta_model();
    let (stores, _database) = every_store(&repo).await;

    let object = |model: i64, n: i64| ObjectId::new(model, n);
    let user = |n: i64, name: &str| {
        Op::PutUser(User {
            id: ObjectId::repository(n),
            name: name.to_owned(),
            full_name: String::new(),
            email: String::new(),
            description: String::new(),
            password_hash: Some("$argon2id$fake".to_owned()),
            enabled: true,
            created_at: lore_core::model::now(),
            external: None,
        })
    };
    let (ann, bob, carol) = (50, 51, 52);
    let curation = |id: i64, on: ObjectId, kind: CurationKind, by: i64| {
        Op::PutCuration(Curation {
            id,
            object: on,
            kind,
            user: ObjectId::repository(by),
            text: String::new(),
            at: lore_core::model::now(),
        })
    };
    let classify = |on: ObjectId, class: &str, status: Status| {
        Op::SetClassification(Classification {
            object: on,
            data_class: class.to_owned(),
            status,
        })
    };
    let assign = |on: ObjectId, label: &str, status: Status| {
        Op::SetLabelAssignment(LabelAssignment {
            object: on,
            label: label.to_owned(),
            status,
        })
    };
    let sensitivity = |name: &str, position: i64| {
        Op::PutSensitivityLabel(SensitivityLabel {
            name: name.to_owned(),
            position,
            description: String::new(),
            foreground_color: "#000000".to_owned(),
            background_color: "#ffffff".to_owned(),
            hide_data: false,
        })
    };
    let label = |on: ObjectId, value: &str| {
        Op::AddTag(Tag {
            object: on,
            kind: TagKind::Label,
            value: value.to_owned(),
        })
    };
    let column = |id: ObjectId, name: &str, description: Option<&str>| {
        let mut o = Object::new(
            id,
            ObjectKind::ModelObject,
            TypeName::new(DATABASE_PROFILE, "Column"),
            SystemType::Feature,
            name,
        );
        o.description = description.map(str::to_owned);
        Op::PutObject(o)
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
    let described = |id: ObjectId, description: Option<&str>| {
        let mut o = put(id);
        o.description = description.map(str::to_owned);
        Op::PutObject(o)
    };
    let (early, late) = (object(2, 900), object(2, 901));

    let steps: Vec<(&str, Vec<Op>)> = vec![
        ("as generated", Vec::new()),
        (
            "users, and curation of every kind",
            vec![
                user(ann, "ann"),
                user(bob, "bob"),
                curation(1, object(2, 1), CurationKind::Certification, ann),
                curation(2, object(2, 1), CurationKind::Endorsement, ann),
                curation(3, object(2, 1), CurationKind::Endorsement, bob),
                curation(4, object(3, 2), CurationKind::Endorsement, bob),
                curation(5, object(2, 3), CurationKind::Warning, ann),
                curation(6, object(2, 3), CurationKind::Warning, ann),
                curation(7, object(3, 4), CurationKind::Comment, bob),
                // On a model, a repository object.
                curation(8, ObjectId::repository(2), CurationKind::Warning, ann),
                curation(9, ObjectId::repository(3), CurationKind::Certification, bob),
            ],
        ),
        (
            "curation before its user, rows before their object",
            vec![
                curation(10, object(2, 4), CurationKind::Endorsement, carol),
                curation(11, early, CurationKind::Certification, ann),
                classify(early, "City", Status::Matched),
                assign(early, "Internal", Status::Approved),
                label(early, "Gold"),
                classify(late, "Email Address", Status::Approved),
                assign(late, "Confidential", Status::Matched),
                curation(12, late, CurationKind::Warning, bob),
            ],
        ),
        (
            "their user and objects",
            vec![
                user(carol, "carol"),
                column(early, "early column", Some("written after its rows")),
                // In the same batch as rows written before it.
                classify(late, "City", Status::Rejected),
                column(late, "late column", None),
            ],
        ),
        (
            "curation removed and moved",
            vec![
                Op::DeleteCuration(2),
                Op::DeleteCuration(5),
                // Entry 4 now warns about another object.
                curation(4, object(2, 5), CurationKind::Warning, bob),
            ],
        ),
        (
            "the last endorsement and warning removed",
            vec![Op::DeleteCuration(3), Op::DeleteCuration(6)],
        ),
        (
            "relabelled",
            vec![
                assign(object(2, 1), "Public", Status::Approved),
                assign(object(2, 1), "Confidential", Status::Matched),
                assign(object(2, 2), "Internal", Status::Matched),
                assign(object(2, 2), "Internal", Status::Rejected),
                assign(object(3, 1), "Internal", Status::Proposed),
                Op::RemoveLabelAssignment {
                    object: object(2, 1),
                    label: "Confidential".to_owned(),
                },
                // A label not defined yet.
                assign(object(2, 3), "Restricted", Status::Approved),
                assign(object(2, 3), "Public", Status::Matched),
            ],
        ),
        (
            "definitions added and moved",
            vec![sensitivity("Restricted", 9), sensitivity("Public", 10)],
        ),
        (
            "data classes changed, one not defined until later",
            vec![
                classify(object(2, 1), "City", Status::Approved),
                classify(object(2, 2), "City", Status::Matched),
                classify(object(2, 2), "City", Status::Rejected),
                classify(object(3, 3), "Postcode", Status::Matched),
                Op::RemoveClassification {
                    object: object(2, 4),
                    data_class: "Email Address".to_owned(),
                },
            ],
        ),
        (
            "the data class defined",
            vec![Op::PutDataClass(DataClass {
                name: "Postcode".to_owned(),
                description: "postal codes".to_owned(),
                hide_data: false,
                definition: serde_json::json!({}),
            })],
        ),
        (
            "labels and descriptions",
            vec![
                label(object(2, 5), "PII"),
                label(object(2, 5), "pii"),
                label(object(3, 5), "Gold"),
                Op::RemoveTag(Tag {
                    object: early,
                    kind: TagKind::Label,
                    value: "Gold".to_owned(),
                }),
                described(object(2, 6), None),
                described(object(2, 7), Some("now described")),
            ],
        ),
        (
            "objects and a user deleted",
            vec![
                Op::DeleteObject(object(2, 1)),
                Op::DeleteObject(early),
                Op::DeleteUser(ObjectId::repository(bob)),
            ],
        ),
        ("model 3 cleared", vec![Op::ClearModel(3)]),
        (
            "model 3 filled again",
            vec![
                classify(object(3, 1), "City", Status::Matched),
                column(object(3, 1), "again", Some("again")),
                assign(object(3, 1), "Restricted", Status::Matched),
                label(object(3, 1), "Finance"),
                curation(13, object(3, 1), CurationKind::Certification, ann),
                curation(14, object(3, 1), CurationKind::Endorsement, carol),
                column(object(3, 2), "again too", None),
            ],
        ),
    ];

    let everything = Cond::Kinds(vec![ObjectKind::Model, ObjectKind::ModelObject]);
    let model = |models: Vec<i64>| {
        Cond::Within(Within {
            models,
            subtrees: Vec::new(),
        })
    };
    // The search page without text: an administrator, an object-role caller who sees
    // model 2 (sight is whole models), and FROM of both models.
    let sights = [
        ("administrator", everything.clone(), Cond::True),
        ("object role on model 2", everything.clone(), model(vec![2])),
        ("FROM models 2 and 3", model(vec![2, 3]), Cond::True),
    ];
    let statuses = [
        "Certified = true",
        "\"Endorsed By\" EXISTS",
        "\"Warned By\" EXISTS",
        "Description EXISTS",
        "\"Commented By\" EXISTS",
    ];
    let status_plans: Vec<(String, Cond)> = statuses
        .iter()
        .map(|status| {
            let query = GeneratedQuery {
                filter: (*status).to_owned(),
                orderby: None,
                source: Cond::True,
            };
            let plan = mql_gen::plan(&query, &meta)
                .unwrap_or_else(|e| panic!("{status} is not valid: {e}"));
            ((*status).to_owned(), plan.filter)
        })
        .collect();
    let facets: Vec<Facet> = [
        "Labels",
        "\"Data Classifications\"",
        "\"Sensitivity Label\"",
        "Collections",
        "\"Data Classifications Rejected\"",
    ]
    .iter()
    .map(|path| mql_gen::facet_of(path, &meta, None))
    .collect();
    let page = Page {
        offset: 1,
        limit: 4,
    };

    for (step, ops) in &steps {
        for store in &stores {
            if let Err(err) = store.apply(Batch::from(ops.clone())).await {
                panic!("{}: {step}: writing {ops:?}: {err}", store.backend());
            }
        }
        for (sight, source, visibility) in &sights {
            let plan = Plan {
                filter: source.clone(),
                visibility: visibility.clone(),
                order: Vec::new(),
                as_of: None,
            };
            // Every facet from the tallies, on both SQL dialects.
            for facet in &facets {
                for dialect in [Dialect::Sqlite, Dialect::Postgres] {
                    assert!(
                        tally::value_counts(&plan, dialect, facet, 50).is_some(),
                        "{facet:?} is counted from the tallies ({sight})"
                    );
                }
            }
            compare_plan(
                &format!("{step}: everything, {sight}"),
                &plan,
                &stores,
                page,
                &facets,
            )
            .await;
            for (status, condition) in &status_plans {
                let plan = Plan {
                    filter: Cond::And(vec![source.clone(), condition.clone()]),
                    visibility: visibility.clone(),
                    order: Vec::new(),
                    as_of: None,
                };
                for dialect in [Dialect::Sqlite, Dialect::Postgres] {
                    assert!(
                        tally::count(&plan, dialect).is_some(),
                        "{status} is counted from the tallies ({sight})"
                    );
                }
                compare_plan(
                    &format!("{step}: {status}, {sight}"),
                    &plan,
                    &stores,
                    page,
                    &facets[..1],
                )
                .await;
            }
        }
    }
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

/// Moves between rounds of changes: every seventh model object whose parent is another
/// model object goes under the model's first object instead (a scope's subtree, a
/// `Parent.` test and a `Children.` test read it elsewhere), and every eleventh edge is
/// taken away.
fn moves(repo: &Repository) -> Vec<lore_core::store::Op> {
    use lore_core::store::Op;
    let mut ops = Vec::new();
    let mut seen = 0usize;
    for op in &repo.ops {
        seen += 1;
        match op {
            Op::PutObject(o) if o.parent.is_some() && seen.is_multiple_of(7) => {
                let first = repo
                    .objects
                    .iter()
                    .find(|id| id.model == o.id.model && **id != o.id && Some(**id) != o.parent);
                if let Some(first) = first {
                    let mut o = o.clone();
                    o.parent = Some(*first);
                    ops.push(Op::PutObject(o));
                }
            }
            Op::AddEdge(edge) if seen.is_multiple_of(11) => ops.push(Op::RemoveEdge(edge.clone())),
            _ => {}
        }
    }
    ops
}

/// MQL as of a version answered by difference (today's answer, less the objects whose
/// answer may have changed since, with those tested as they were: `catalog/search/past`)
/// finds what the store's own statements of the whole tables as they were find: the same
/// pages, counts and value counts, on every backend, after renames, retypes, labels,
/// classifications, deletions, moves and edges taken away.
#[tokio::test]
async fn as_of_by_difference_answers_as_the_past_tables_do() {
    const QUERIES: usize = 300;
    let repo = mql_gen::repository(7);
    let (stores, _database) = every_store(&repo).await;
    let meta = mql_gen::meta_model();
    let mut versions = Vec::new();
    for store in &stores {
        let version = match store.history_span().await {
            Ok(span) => span.newest.version,
            Err(err) => panic!("{}: history_span: {err}", store.backend()),
        };
        versions.push(version);
        let rounds = [
            changes(&repo, 1),
            moves(&repo),
            changes(&repo, 2),
            changes(&repo, 3),
        ];
        for ops in rounds {
            if let Err(err) = store.apply(Batch::from(ops)).await {
                panic!("{}: changing the repository: {err}", store.backend());
            }
        }
    }
    let catalogs: Vec<lore_core::catalog::Catalog> = stores
        .iter()
        .map(|s| lore_core::catalog::Catalog::new(Arc::clone(s), Default::default()))
        .collect();
    let mut rng = StdRng::seed_from_u64(19);
    let (mut ran, mut by_difference) = (0, 0);
    for i in 0..QUERIES {
        let query = mql_gen::query(&mut rng, &repo);
        let page = page(&mut rng);
        let facets: Vec<Facet> = (0..=i % 2)
            .map(|_| mql_gen::facet(&mut rng, &meta))
            .collect();
        let Ok(plan) = mql_gen::plan(&query, &meta) else {
            continue;
        };
        ran += 1;
        for ((store, catalog), version) in stores.iter().zip(&catalogs).zip(&versions) {
            let plan = lore_core::mql::plan::Plan {
                as_of: Some(*version),
                ..plan.clone()
            };
            let backend = store.backend();
            let what = |e: lore_core::Error| format!("{backend}: {query}: {e}");
            let (ids, count, counts, differed) = catalog
                .plan_answers(&plan, page, &facets, 5)
                .await
                .unwrap_or_else(|e| panic!("{}", what(e)));
            let expected = (
                store
                    .query(&plan, page)
                    .await
                    .unwrap_or_else(|e| panic!("{}", what(e))),
                store
                    .count(&plan)
                    .await
                    .unwrap_or_else(|e| panic!("{}", what(e))),
                store
                    .value_counts(&plan, &facets, 5)
                    .await
                    .unwrap_or_else(|e| panic!("{}", what(e))),
            );
            assert_eq!(
                (ids, count, counts),
                expected,
                "{backend}: {query} as of version {version} (page {page:?}, facets {facets:?}): \
                 by difference (left) against the tables as they were (right)"
            );
            by_difference += usize::from(differed);
        }
    }
    eprintln!(
        "{ran} of {QUERIES} generated queries as of a version, {by_difference} answers by difference on {} backends",
        stores.len()
    );
    assert!(
        ran >= QUERIES * 3 / 4,
        "only {ran} generated queries were valid"
    );
    assert!(
        by_difference >= ran * stores.len() * 3 / 4,
        "only {by_difference} answers were worked out by difference"
    );
}
