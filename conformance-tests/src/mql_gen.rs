//! Generated repositories and random valid MQL queries over them, for the cross-backend
//! comparison: every backend must answer every query with the same objects, in the same
//! order, and the same counts.
//!
//! The repository is small (two models of a few dozen objects each) but dense in what
//! queries test: names that differ only in case, non-ASCII letters, empty and missing
//! values, every kind of multi-valued attribute, typed custom attributes, profiling,
//! edges of every kind MQL reads, dates around a fixed "now".

use rand::rngs::StdRng;
use rand::seq::IndexedRandom;
use rand::{Rng, SeedableRng};

use lore_core::id::ObjectId;
use lore_core::model::*;
use lore_core::mql::lower::{Lookups, lower};
use lore_core::mql::parse::{QueryFields, parse_fields};
use lore_core::mql::plan::{Cond, Plan, Within};
use lore_core::mql::validate::validate;
use lore_core::store::Op;

/// The fixed "now" of generated data and queries: 2026-06-15 12:00:00 UTC.
pub const NOW_MICROS: i64 = 1_781_524_800_000_000;
const DAY: i64 = 86_400_000_000;

const WORDS: &[&str] = &[
    "customer",
    "Customer",
    "CUSTOMER_ID",
    "order",
    "Order Total",
    "email",
    "e-mail",
    "city",
    "Zürich",
    "ZÜRICH",
    "amount",
    "id",
    "a",
    "",
    "2023_CUSTOMER_ID",
    "Customer:ID",
    "customer[id]",
    "sales_order",
    "Sales  Order",
    "(order)",
];
/// Search texts beside the words: phrases and words across word breakers, exact names.
const SEARCHES: &[&str] = &[
    "\"customer id\"",
    "customer:id",
    "sales order",
    "\"sales order\"",
    "=\"sales_order\"",
    "=Customer",
    "+\"order\" -\"customer id\"",
    "_",
    "order.id",
];
const TYPES: &[(&str, SystemType)] = &[
    ("Database", SystemType::Model),
    ("Schema", SystemType::Schema),
    ("Table", SystemType::Classifier),
    ("View", SystemType::Classifier),
    ("Column", SystemType::Feature),
    ("Primary Key", SystemType::Key),
];
const LABELS: &[&str] = &["PII", "pii", "Finance", "Gold"];
const COLLECTIONS: &[&str] = &["Sales Reporting", "Audit"];
const CLASSES: &[&str] = &["City", "Email Address", "Secret"];
const SENSITIVITY: &[&str] = &["Public", "Internal", "Confidential"];
const STATUSES: &[ClassificationStatus] = &[
    ClassificationStatus::Matched,
    ClassificationStatus::Approved,
    ClassificationStatus::Rejected,
    ClassificationStatus::Proposed,
];
const TIERS: &[&str] = &["gold", "Silver", "bronze", "GOLD"];
const INFERRED: &[&str] = &["VARCHAR", "INTEGER", "DATE"];

/// A generated repository: the ops that write it, and what queries may name.
#[derive(Debug, Clone)]
pub struct Repository {
    pub ops: Vec<Op>,
    /// Model numbers.
    pub models: Vec<i64>,
    /// Every model object.
    pub objects: Vec<ObjectId>,
}

fn attribute_type(name: &str, kind: AttributeKind, value_type: ValueType) -> AttributeType {
    AttributeType {
        name: name.to_owned(),
        display_name: name.to_owned(),
        kind,
        value_type,
        profile: None,
        group: "Generated".to_owned(),
        description: String::new(),
    }
}

/// The attribute types a generated repository uses beside the built-in ones.
pub fn attribute_types() -> Vec<AttributeType> {
    vec![
        attribute_type("Tier", AttributeKind::Custom, ValueType::String),
        attribute_type("Score", AttributeKind::Custom, ValueType::Integer),
        attribute_type("Ratio", AttributeKind::Custom, ValueType::Double),
        attribute_type("Verified", AttributeKind::Custom, ValueType::Boolean),
        attribute_type("Reviewed", AttributeKind::Custom, ValueType::DateTime),
        attribute_type(
            "Is Governed By",
            AttributeKind::CustomRelationship,
            ValueType::Object,
        ),
    ]
}

/// The meta model of a generated repository.
pub fn meta_model() -> MetaModel {
    let mut meta = MetaModel::builtin();
    meta.attribute_types.extend(attribute_types());
    meta
}

fn time(micros: i64) -> Timestamp {
    chrono::DateTime::from_timestamp_micros(micros).unwrap_or_default()
}

fn maybe<T>(rng: &mut StdRng, p: f64, value: impl FnOnce(&mut StdRng) -> T) -> Option<T> {
    if rng.random_bool(p) {
        Some(value(rng))
    } else {
        None
    }
}

fn word(rng: &mut StdRng) -> String {
    WORDS.choose(rng).copied().unwrap_or("x").to_owned()
}

fn phrase(rng: &mut StdRng) -> String {
    let n = rng.random_range(1..=3);
    (0..n).map(|_| word(rng)).collect::<Vec<_>>().join(" ")
}

/// A repository from a seed: the same seed gives the same repository.
pub fn repository(seed: u64) -> Repository {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut ops: Vec<Op> = attribute_types()
        .into_iter()
        .map(Op::PutAttributeType)
        .collect();
    for (i, name) in CLASSES.iter().enumerate() {
        ops.push(Op::PutDataClass(DataClass {
            name: (*name).to_owned(),
            description: format!("{} values", WORDS[i * 3 % WORDS.len()]),
            hide_data: *name == "Secret",
            definition: serde_json::json!({}),
        }));
    }
    for (i, name) in SENSITIVITY.iter().enumerate() {
        ops.push(Op::PutSensitivityLabel(SensitivityLabel {
            name: (*name).to_owned(),
            position: i as i64 + 1,
            description: String::new(),
            foreground_color: "#000000".to_owned(),
            background_color: "#ffffff".to_owned(),
            hide_data: *name == "Confidential",
        }));
    }
    let folder = ObjectId::repository(1);
    ops.push(Op::PutObject(Object::new(
        folder,
        ObjectKind::Folder,
        TypeName::new(REPOSITORY_PROFILE, ObjectKind::Folder.as_str()),
        SystemType::Namespace,
        "Generated",
    )));
    let mut models = Vec::new();
    let mut objects = Vec::new();
    for (number, name) in [(2, "Alpha"), (3, "Beta")] {
        let mut model = Object::new(
            ObjectId::repository(number),
            ObjectKind::Model,
            TypeName::new(REPOSITORY_PROFILE, ObjectKind::Model.as_str()),
            SystemType::Model,
            name,
        );
        model.parent = Some(folder);
        model.updated_at = time(NOW_MICROS - 3 * DAY);
        ops.push(Op::PutObject(model));
        models.push(number);
        let count = rng.random_range(25..45);
        let mut ids: Vec<ObjectId> = Vec::new();
        for n in 1..=count {
            let id = ObjectId::new(number, n);
            let (type_name, system_type) = *TYPES.choose(&mut rng).unwrap_or(&TYPES[0]);
            let mut object = Object::new(
                id,
                ObjectKind::ModelObject,
                TypeName::new(DATABASE_PROFILE, type_name),
                system_type,
                word(&mut rng),
            );
            // A tree: each object under an earlier one, or at the top level.
            object.parent = if ids.is_empty() || rng.random_bool(0.2) {
                None
            } else {
                ids.choose(&mut rng).copied()
            };
            object.physical_name = maybe(&mut rng, 0.6, word);
            object.native_id = Some(format!("n{number}.{n}"));
            object.stable_id = maybe(&mut rng, 0.7, |_| format!("Sx{number}y{n}"));
            object.description = maybe(&mut rng, 0.6, phrase);
            object.business_name = maybe(&mut rng, 0.4, word);
            object.business_description = maybe(&mut rng, 0.3, phrase);
            object.data_type = maybe(&mut rng, 0.5, |r| {
                ["VARCHAR(254)", "INTEGER", "varchar(254)", "DATE"]
                    .choose(r)
                    .copied()
                    .unwrap_or("INTEGER")
                    .to_owned()
            });
            object.external_url = maybe(&mut rng, 0.2, |_| "https://example.com/x".to_owned());
            object.hide_data = rng.random_bool(0.15);
            object.workflow_state = maybe(&mut rng, 0.3, |r| {
                ["Draft", "Published"]
                    .choose(r)
                    .copied()
                    .unwrap_or("Draft")
                    .to_owned()
            });
            let age = rng.random_range(-2 * DAY..60 * DAY);
            object.updated_at = time(NOW_MICROS - age - age % 1_000_000);
            object.created_at = object.updated_at;
            ops.push(Op::PutObject(object));
            details(&mut rng, id, &mut ops);
            ids.push(id);
        }
        objects.extend(ids);
    }
    // Edges between any two objects, of every kind MQL reads.
    for _ in 0..objects.len() {
        let (Some(a), Some(b)) = (objects.choose(&mut rng), objects.choose(&mut rng)) else {
            continue;
        };
        let (kind, name) = [
            (EdgeKind::Lineage, "flows"),
            (EdgeKind::SemanticLink, "Is Defined By"),
            (EdgeKind::CustomRelationship, "Is Defined By"),
            (EdgeKind::CustomRelationship, "Is Governed By"),
        ]
        .choose(&mut rng)
        .copied()
        .unwrap_or((EdgeKind::Lineage, "flows"));
        ops.push(Op::AddEdge(Edge {
            kind,
            source: *a,
            target: *b,
            name: name.to_owned(),
            origin: None,
        }));
    }
    Repository {
        ops,
        models,
        objects,
    }
}

/// What hangs on one object.
fn details(rng: &mut StdRng, id: ObjectId, ops: &mut Vec<Op>) {
    for _ in 0..rng.random_range(0..3) {
        ops.push(Op::AddTag(Tag {
            object: id,
            kind: TagKind::Label,
            value: LABELS.choose(rng).copied().unwrap_or("PII").to_owned(),
        }));
    }
    if rng.random_bool(0.3) {
        ops.push(Op::AddTag(Tag {
            object: id,
            kind: TagKind::Collection,
            value: COLLECTIONS
                .choose(rng)
                .copied()
                .unwrap_or("Audit")
                .to_owned(),
        }));
    }
    for class in CLASSES {
        if rng.random_bool(0.25) {
            ops.push(Op::SetClassification(Classification {
                object: id,
                data_class: (*class).to_owned(),
                status: *STATUSES.choose(rng).unwrap_or(&STATUSES[0]),
            }));
        }
    }
    for label in SENSITIVITY {
        if rng.random_bool(0.2) {
            ops.push(Op::SetLabelAssignment(LabelAssignment {
                object: id,
                label: (*label).to_owned(),
                status: *STATUSES.choose(rng).unwrap_or(&STATUSES[0]),
            }));
        }
    }
    let mut set = |name: &str, value: Value| {
        ops.push(Op::SetAttribute(AttributeValue {
            object: id,
            attribute: name.to_owned(),
            value,
        }))
    };
    if rng.random_bool(0.5) {
        set(
            "Tier",
            Value::Text(TIERS.choose(rng).copied().unwrap_or("gold").to_owned()),
        );
    }
    if rng.random_bool(0.5) {
        set("Score", Value::Integer(rng.random_range(-5..20)));
    }
    if rng.random_bool(0.4) {
        set(
            "Ratio",
            Value::Double(f64::from(rng.random_range(-40..40)) / 4.0),
        );
    }
    if rng.random_bool(0.4) {
        set("Verified", Value::Boolean(rng.random_bool(0.5)));
    }
    if rng.random_bool(0.4) {
        let age = rng.random_range(0..30 * DAY);
        set(
            "Reviewed",
            Value::DateTime(time(NOW_MICROS - age - age % 1_000_000)),
        );
    }
    if rng.random_bool(0.3) {
        let mut statistics = ProfileStatistics::default();
        if rng.random_bool(0.8) {
            statistics.distinct_rows = Some(rng.random_range(0..100));
        }
        if rng.random_bool(0.6) {
            statistics.max = Some(f64::from(rng.random_range(-100..1000)) / 2.0);
        }
        if rng.random_bool(0.5) {
            statistics.min_length = Some(rng.random_range(0..10));
        }
        let mut inferred = std::collections::BTreeMap::new();
        for t in INFERRED {
            if rng.random_bool(0.4) {
                inferred.insert((*t).to_owned(), rng.random_range(1..50));
            }
        }
        let histogram = if rng.random_bool(0.3) {
            vec![HistogramBucket {
                count: 3,
                lower: "0".to_owned(),
                upper: "9".to_owned(),
            }]
        } else {
            Vec::new()
        };
        ops.push(Op::SetProfiling(Profiling {
            object: id,
            profile: Some(DataProfile {
                total_profiled_rows: Some(100),
                profiling_date: None,
                statistics,
                inferred_data_types: inferred,
                invalid_data_type_values: Vec::new(),
                patterns: Default::default(),
                values: Default::default(),
                histogram,
            }),
            sample: maybe(rng, 0.5, |_| DataSample {
                header: vec!["v".to_owned()],
                samples: vec![vec![serde_json::json!(1)]],
            }),
        }));
    }
}

/// A random query: its clauses as the query endpoints take them.
#[derive(Debug, Clone)]
pub struct GeneratedQuery {
    pub filter: String,
    pub orderby: Option<String>,
    /// Where the query looks: all models, one model, or one object's subtree.
    pub source: Cond,
}

impl std::fmt::Display for GeneratedQuery {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WHERE {}", self.filter)?;
        if let Some(order) = &self.orderby {
            write!(f, " ORDER BY {order}")?;
        }
        write!(f, " (source {:?})", self.source)
    }
}

fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "''"))
}

/// One of the values in random letter case.
fn pick(rng: &mut StdRng, values: &[&str]) -> String {
    let value = values.choose(rng).copied().unwrap_or("a");
    cased(rng, value)
}

/// A value in random letter case, so that folding is exercised.
fn cased(rng: &mut StdRng, text: &str) -> String {
    match rng.random_range(0..3) {
        0 => text.to_ascii_uppercase(),
        1 => text.to_ascii_lowercase(),
        _ => text.to_owned(),
    }
}

fn text_op(rng: &mut StdRng, attribute: &str, values: &[&str]) -> String {
    let mut v = || {
        let w = values.choose(rng).copied().unwrap_or("a");
        let w = cased(rng, w);
        quoted(&w)
    };
    let a = v();
    let b = v();
    let c = v();
    let part = |s: &str| {
        let n = s.trim_matches('\'').chars().count();
        let cut: String = s.trim_matches('\'').chars().take(n.div_ceil(2)).collect();
        quoted(&cut)
    };
    match rng.random_range(0..14) {
        0 => format!("{attribute} = {a}"),
        1 => format!("{attribute} != {a}"),
        2 => format!("{attribute} = ANY ({a}, {b})"),
        3 => format!("{attribute} != ANY ({a}, {b})"),
        4 => format!("{attribute} = ALL ({a}, {b}, {c})"),
        5 => format!("{attribute} != ALL ({a}, {b})"),
        6 => format!("{attribute} EXISTS"),
        7 => format!("{attribute} NOT EXISTS"),
        8 => format!("{attribute} STARTS WITH {}", part(&a)),
        9 => format!("{attribute} NOT STARTS WITH {}", part(&a)),
        10 => format!("{attribute} ENDS WITH {b}"),
        11 => format!("{attribute} NOT ENDS WITH {b}"),
        12 => format!("{attribute} CONTAINS {}", part(&c)),
        _ => format!("{attribute} NOT CONTAINS {}", part(&c)),
    }
}

fn multi_op(rng: &mut StdRng, attribute: &str, values: &[&str]) -> String {
    let mut v = || quoted(&pick(rng, values));
    let (a, b) = (v(), v());
    match rng.random_range(0..8) {
        0 => format!("{attribute} = {a}"),
        1 => format!("{attribute} != {a}"),
        2 => format!("{attribute} = ANY ({a}, {b})"),
        3 => format!("{attribute} != ANY ({a}, {b})"),
        4 => format!("{attribute} = ALL ({a}, {b})"),
        5 => format!("{attribute} != ALL ({a}, {b})"),
        6 => format!("{attribute} EXISTS"),
        _ => format!("{attribute} NOT EXISTS"),
    }
}

fn number_op(rng: &mut StdRng, attribute: &str, whole: bool) -> String {
    let mut n = || {
        if whole && rng.random_bool(0.6) {
            rng.random_range(-6..21).to_string()
        } else {
            format!("{}", f64::from(rng.random_range(-60..200)) / 4.0)
        }
    };
    let (a, b) = (n(), n());
    match rng.random_range(0..10) {
        0 => format!("{attribute} = {a}"),
        1 => format!("{attribute} != {a}"),
        2 => format!("{attribute} < {a}"),
        3 => format!("{attribute} <= {a}"),
        4 => format!("{attribute} > {a}"),
        5 => format!("{attribute} >= {a}"),
        6 => format!("{attribute} BETWEEN {a} AND {b}"),
        7 => format!("{attribute} NOT BETWEEN {a} AND {b}"),
        8 => format!("{attribute} EXISTS"),
        _ => format!("{attribute} NOT EXISTS"),
    }
}

fn date_op(rng: &mut StdRng, attribute: &str, existence: bool) -> String {
    let day = |rng: &mut StdRng| {
        let t = time(NOW_MICROS - rng.random_range(0..40) * DAY);
        t.format("%Y-%m-%d").to_string()
    };
    let (a, b) = (day(rng), day(rng));
    let n = rng.random_range(1..30);
    match rng.random_range(0..if existence { 11 } else { 9 }) {
        0 => format!("{attribute} = {a}"),
        1 => format!("{attribute} = \"{a}\""),
        2 => format!("{attribute} BEFORE {a}"),
        3 => format!("{attribute} AFTER {a}"),
        4 => format!("{attribute} BETWEEN {a} AND {b}"),
        5 => format!("{attribute} = LAST {n} DAYS"),
        6 => format!("{attribute} = TODAY"),
        7 => format!("{attribute} AFTER YESTERDAY"),
        8 => format!("{attribute} NOT BETWEEN {a} AND '{b}'"),
        9 => format!("{attribute} EXISTS"),
        _ => format!("{attribute} NOT EXISTS"),
    }
}

/// One filter of a random kind. Existence-only filters come only when `top` (they may
/// not be ORed).
fn filter(rng: &mut StdRng, repo: &Repository, top: bool) -> String {
    let types: Vec<&str> = TYPES.iter().map(|(t, _)| *t).collect();
    let kinds = if top { 27 } else { 23 };
    match rng.random_range(0..kinds) {
        0 => text_op(rng, "Name", WORDS),
        1 => text_op(rng, "Description", WORDS),
        2 => text_op(rng, "\"Physical Name\"", WORDS),
        3 => text_op(
            rng,
            "\"Data Type\"",
            &["VARCHAR(254)", "integer", "DATE", "VAR"],
        ),
        4 => multi_op(rng, "\"Object Type\"", &types).replace(" EXISTS", " = 'Table'"),
        5 => multi_op(rng, "Labels", LABELS),
        6 => multi_op(rng, "Collections", COLLECTIONS),
        7 => multi_op(rng, "\"Data Classifications\"", CLASSES),
        8 => multi_op(rng, "\"Data Classifications Rejected\"", CLASSES),
        9 => text_op(rng, "\"Data Classifications\".Description", WORDS),
        10 => {
            let op = multi_op(rng, "\"Sensitivity Label\"", SENSITIVITY);
            if op.contains("ALL") {
                format!("\"Sensitivity Label\" = {}", quoted(SENSITIVITY[0]))
            } else {
                op
            }
        }
        11 => multi_op(rng, "\"Sensitivity Labels Matched\"", SENSITIVITY),
        12 => format!(
            "\"Hide Data\" = {}",
            if rng.random_bool(0.5) {
                "true"
            } else {
                "false"
            }
        ),
        13 => date_op(rng, "\"Updated Date\"", false)
            .replace(" EXISTS", " = TODAY")
            .replace(" NOT = TODAY", " = TODAY"),
        14 => text_op(rng, "Tier", TIERS),
        15 => number_op(rng, "Score", true),
        16 => number_op(rng, "Ratio", false),
        17 => format!(
            "Verified = {}",
            if rng.random_bool(0.5) {
                "true"
            } else {
                "false"
            }
        ),
        18 => date_op(rng, "Reviewed", true),
        19 => match rng.random_range(0..3) {
            0 => number_op(rng, "\"Data Profiling\".Distinct", true),
            1 => number_op(rng, "\"Data Profiling\".Max", false),
            _ => multi_op(rng, "\"Data Profiling\".\"Inferred Data Types\"", INFERRED),
        },
        20 => match rng.random_range(0..4) {
            0 => text_op(rng, "Parent.Name", WORDS),
            1 => multi_op(rng, "Parent.\"Object Type\"", &types).replace(" = ALL", " = ANY"),
            2 => format!("Parent = {}", quoted(&pick(rng, WORDS))),
            _ => number_op(rng, "Parent.Score", true),
        },
        21 => match rng.random_range(0..4) {
            0 => text_op(rng, "Children.Name", WORDS),
            1 => text_op(rng, "Children.\"Data Type\"", &["VARCHAR(254)", "integer"]),
            2 => number_op(rng, "Children.Score", true),
            _ => text_op(rng, "Children", WORDS),
        },
        22 if rng.random_bool(0.3) => match rng.random_range(0..4) {
            0 => format!(
                "Score {} '1'",
                ["STARTS WITH", "NOT ENDS WITH", "CONTAINS", "NOT CONTAINS"]
                    .choose(rng)
                    .copied()
                    .unwrap_or("CONTAINS")
            ),
            1 => {
                let day = |rng: &mut StdRng| {
                    time(NOW_MICROS - rng.random_range(0..30) * DAY)
                        .format("%Y-%m-%d")
                        .to_string()
                };
                let (a, b) = (day(rng), day(rng));
                let op = ["= ANY", "!= ANY"].choose(rng).copied().unwrap_or("= ANY");
                format!("Reviewed {op} ('{a}', '{b}')")
            }
            2 => {
                let ids: Vec<String> = (0..rng.random_range(20..60))
                    .filter_map(|_| repo.objects.choose(rng))
                    .map(|id| quoted(&id.to_string()))
                    .collect();
                let op = ["= ANY", "!= ANY"].choose(rng).copied().unwrap_or("= ANY");
                format!("\"Object Id\" {op} ({})", ids.join(", "))
            }
            _ => "\"Updated Date\" = LAST 200000000 DAYS".to_owned(),
        },
        22 => match rng.random_range(0..6) {
            0 => format!(
                "\"Has Data Lineage\" = {}",
                if rng.random_bool(0.5) {
                    "true"
                } else {
                    "false"
                }
            ),
            1 => "\"Has Data Impact\" = true".to_owned(),
            2 => "\"Has Semantic Definition\" != true".to_owned(),
            3 => format!(
                "\"Model Id\" = {}",
                repo.models.choose(rng).copied().unwrap_or(2)
            ),
            4 => format!(
                "\"Object Id\" = ANY ({}, '{}')",
                quoted(
                    &repo
                        .objects
                        .choose(rng)
                        .map(ToString::to_string)
                        .unwrap_or_default()
                ),
                repo.objects
                    .choose(rng)
                    .map(ToString::to_string)
                    .unwrap_or_default()
            ),
            _ if rng.random_bool(0.3) => format!(
                "semantic_search_text = {}",
                quoted(&format!(
                    "{} {}",
                    pick(rng, SEARCHES),
                    pick(rng, &["tables", "Columns", "view", "keys tables", ""])
                ))
            ),
            _ if rng.random_bool(0.5) => format!("text = {}", quoted(&pick(rng, SEARCHES))),
            _ => format!("text = {}", quoted(&pick(rng, WORDS))),
        },
        23 => "\"Is Governed By\" EXISTS".to_owned(),
        24 => "\"Data Profiling\" NOT EXISTS".to_owned(),
        25 => "\"Column Histogram\" EXISTS".to_owned(),
        _ => format!(
            "Count('Is Governed By') {} {}",
            ["=", ">", "<="].choose(rng).copied().unwrap_or("="),
            rng.random_range(0..3)
        ),
    }
}

fn expression(rng: &mut StdRng, repo: &Repository, depth: u32, top: bool) -> String {
    if depth == 0 || rng.random_bool(0.35) {
        return filter(rng, repo, top);
    }
    let n = rng.random_range(2..4);
    let and = rng.random_bool(0.6);
    let parts: Vec<String> = (0..n)
        .map(|_| {
            let inner = expression(rng, repo, depth - 1, top && and);
            if inner.contains(" AND ") || inner.contains(" OR ") {
                format!("({inner})")
            } else {
                inner
            }
        })
        .collect();
    parts.join(if and { " AND " } else { " OR " })
}

/// A random query over the repository.
pub fn query(rng: &mut StdRng, repo: &Repository) -> GeneratedQuery {
    let filter = expression(rng, repo, 3, true);
    let orderby = match rng.random_range(0..10) {
        0 => Some("Name desc"),
        1 => Some("\"Updated Date\""),
        2 => Some("Score desc, Name"),
        3 => Some("Tier"),
        4 => Some("Description desc"),
        5 => Some("\"Data Profiling\".Max desc"),
        6 => Some("Ratio, \"Physical Name\" desc"),
        7 => Some("\"Sensitivity Label\", Reviewed desc"),
        _ => None,
    }
    .map(str::to_owned);
    let source = match rng.random_range(0..4) {
        0 => Cond::Within(Within {
            models: vec![repo.models[0]],
            subtrees: Vec::new(),
        }),
        1 => Cond::Within(Within {
            models: Vec::new(),
            subtrees: repo.objects.choose(rng).copied().into_iter().collect(),
        }),
        _ => Cond::Kinds(vec![ObjectKind::Model, ObjectKind::ModelObject]),
    };
    GeneratedQuery {
        filter,
        orderby,
        source,
    }
}

/// The plan of a generated query, or the validator's refusal.
pub fn plan(query: &GeneratedQuery, meta: &MetaModel) -> lore_core::Result<Plan> {
    let fields = QueryFields {
        select: "Name",
        from: None,
        scope: None,
        context: None,
        filter: Some(&query.filter),
        order_by: query.orderby.as_deref(),
    };
    let validated = validate(&parse_fields(&fields)?, meta, 3)?;
    let lookups = Lookups {
        now: NOW_MICROS,
        source: query.source.clone(),
        ..Lookups::default()
    };
    Ok(lower(&validated.query, meta, &lookups).0)
}

/// A random facet to count values of, for `getAttributeValueCounts`.
pub fn facet(rng: &mut StdRng, meta: &MetaModel) -> lore_core::mql::plan::Facet {
    use lore_core::mql::plan::DateGap;
    let path = [
        "Labels",
        "\"Object Type\"",
        "\"Data Type\"",
        "Tier",
        "Score",
        "Ratio",
        "Verified",
        "Reviewed",
        "\"Updated Date\"",
        "Parent.Name",
        "Parent.Tier",
        "Children.\"Data Type\"",
        "Children.Labels",
        "\"Data Classifications\"",
        "\"Data Classifications Rejected\".Description",
        "\"Data Profiling\".\"Inferred Data Types\"",
        "\"Data Profiling\".Max",
        "\"Sensitivity Label\"",
        "\"Sensitivity Labels Matched\"",
        "Description",
        "\"Hide Data\"",
    ]
    .choose(rng)
    .copied()
    .unwrap_or("Labels");
    let gap = [
        None,
        Some(DateGap::Year),
        Some(DateGap::Month),
        Some(DateGap::Day),
        Some(DateGap::Hour),
    ]
    .choose(rng)
    .copied()
    .flatten();
    facet_of(path, meta, gap)
}

/// The facet of an attribute path, as `getAttributeValueCounts` counts it.
pub fn facet_of(
    path: &str,
    meta: &MetaModel,
    gap: Option<lore_core::mql::plan::DateGap>,
) -> lore_core::mql::plan::Facet {
    use lore_core::mql::parse::parse_select;
    let select = parse_select(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let Some(lore_core::mql::SelectItem::Attribute(attribute)) = select.first() else {
        panic!("{path} is an attribute")
    };
    lore_core::mql::lower::facet(attribute, meta, gap).unwrap_or_else(|e| panic!("{path}: {e}"))
}
