//! Counts and facets read from the tallies, kept by triggers in the same transaction as
//! every write: `object_tallies` (migration 16), how many objects each model holds of
//! each object type and data type, with a description or without; and `value_tallies`
//! (migration 31), how many objects of each model carry each label, data class and
//! sensitivity label, and have curation of each kind. A count or facet whose condition
//! only names models (FROM, and the caller's sight) and object types, with at most one
//! status (`Certified = true`, `"Endorsed By" EXISTS`, `Description EXISTS`, ...) for a
//! count, reads a few tally rows for the model objects, and tests the repository objects
//! (model_id -1: models and folders, few) as any query does, both in one statement.
//! `value_tallies` knows no object types: a condition naming one goes to the general
//! statement, as does every other condition; the answers are the same either way (the
//! cross-backend test).

use std::collections::BTreeSet;

use lore_core::model::{CurationKind, ObjectKind, TagKind};
use lore_core::mql::plan::{
    ClassStatuses, Column, Cond, Facet, Field, LabelSet, Lit, Plan, Relation, Test, fold,
};

use super::{Compiled, Compiler, Row, clamp};
use crate::dialect::Dialect;
use crate::value::SqlValue;

/// A condition the tallies answer: the objects of some models and of some types.
#[derive(Debug, Default, PartialEq)]
pub(super) struct Shape {
    /// The model numbers whose objects pass; `None`: every model's.
    pub(super) models: Option<BTreeSet<i64>>,
    /// The folded names of the object types that pass; `None`: every type.
    pub(super) types: Option<BTreeSet<String>>,
}

impl Shape {
    /// The shape of a condition, if it has one: an AND of scopes of whole models and
    /// tests of the object type by equality or a list.
    fn of(cond: &Cond) -> Option<Shape> {
        let mut shape = Shape::default();
        shape.add(cond)?;
        Some(shape)
    }

    pub(super) fn add(&mut self, cond: &Cond) -> Option<()> {
        match cond {
            Cond::True => Some(()),
            Cond::And(items) => items.iter().try_for_each(|c| self.add(c)),
            Cond::Within(within) if within.subtrees.is_empty() => {
                let models = within.models.iter().copied().collect();
                self.models = Some(intersect(self.models.take(), models));
                Some(())
            }
            // Every tallied object is a model object (core's `prepare` keeps model
            // objects, and only them, out of the repository's id space).
            Cond::Kinds(kinds) => {
                if !kinds.contains(&ObjectKind::ModelObject) {
                    self.models = Some(BTreeSet::new());
                }
                Some(())
            }
            Cond::Test(Field::Column(Column::TypeName), test) => {
                let lits = match test {
                    Test::Eq(lit) => std::slice::from_ref(lit),
                    Test::In(lits) => lits.as_slice(),
                    _ => return None,
                };
                let mut types = BTreeSet::new();
                for lit in lits {
                    let Lit::Text(t) = lit else { return None };
                    types.insert(fold(t));
                }
                self.types = Some(intersect(self.types.take(), types));
                Some(())
            }
            _ => None,
        }
    }
}

/// A status a count asks of every object, which the tallies count.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Status {
    /// Curation entries of the kind (`"Endorsed By" EXISTS`, `Certified = true`).
    Curated(CurationKind),
    /// A description (`Description EXISTS`).
    Described,
}

impl Status {
    fn of(cond: &Cond) -> Option<Status> {
        match cond {
            Cond::Has(Field::Curators(kind)) => Some(Status::Curated(*kind)),
            Cond::Has(Field::Column(Column::Description)) => Some(Status::Described),
            _ => None,
        }
    }
}

/// The shape of a condition and the one status it asks, if it has them: an AND of
/// the shape's items and at most one status.
fn shape_and_status(cond: &Cond) -> Option<(Shape, Option<Status>)> {
    fn add(cond: &Cond, shape: &mut Shape, status: &mut Option<Status>) -> Option<()> {
        match cond {
            Cond::And(items) => items.iter().try_for_each(|c| add(c, shape, status)),
            _ => match Status::of(cond) {
                Some(found) if status.is_none() => {
                    *status = Some(found);
                    Some(())
                }
                Some(_) => None,
                None => shape.add(cond),
            },
        }
    }
    let mut shape = Shape::default();
    let mut status = None;
    add(cond, &mut shape, &mut status)?;
    Some((shape, status))
}

/// The `value_tallies` (migration 31) a facet's values are counted in: their kinds,
/// and whether a value must name a stored data class.
struct Valued {
    kinds: Vec<String>,
    classes: bool,
}

/// The value tallies of a facet, if it has them: Labels and Collections, the data
/// classes of a set of statuses by name, and the "Sensitivity Label".
fn valued(facet: &Facet) -> Option<Valued> {
    if facet.gap.is_some() || facet.hidden != Cond::False {
        return None;
    }
    match (&facet.relation, &facet.field) {
        (None, Field::Tags(kind)) => Some(Valued {
            kinds: vec![tag_kind(*kind)],
            classes: false,
        }),
        (None, Field::Labels(LabelSet::Top)) => Some(Valued {
            kinds: vec!["sensitivity".to_owned()],
            classes: false,
        }),
        (Some(Relation::DataClasses(statuses)), Field::ClassName) => Some(Valued {
            kinds: class_kinds(*statuses),
            classes: true,
        }),
        _ => None,
    }
}

/// The kind of the value tallies of a tag kind.
fn tag_kind(kind: TagKind) -> String {
    format!("tag:{}", kind.as_str())
}

/// The kinds of the value tallies of the classifications of a set of statuses (an
/// object has one status per data class: their counts add up).
fn class_kinds(statuses: ClassStatuses) -> Vec<String> {
    statuses
        .statuses()
        .into_iter()
        .map(|s| format!("class:{}", s.as_str()))
        .collect()
}

/// The kind of the value tally of objects with curation of a kind.
fn curation_kind(kind: CurationKind) -> String {
    format!("curation:{}", kind.as_str())
}

fn intersect<T: Ord>(a: Option<BTreeSet<T>>, b: BTreeSet<T>) -> BTreeSet<T> {
    match a {
        None => b,
        Some(a) => a.into_iter().filter(|x| b.contains(x)).collect(),
    }
}

/// The tallied value a facet counts: its expression on a tally row `t`, and the
/// condition a row must meet to have one.
fn tallied(facet: &Facet) -> Option<(&'static str, &'static str)> {
    if facet.relation.is_some() || facet.gap.is_some() || facet.hidden != Cond::False {
        return None;
    }
    match facet.field {
        Field::Column(Column::TypeName) => Some(("t.type_name", "1 = 1")),
        Field::Column(Column::DataType) => Some(("t.data_type", "t.typed")),
        Field::Column(Column::ModelNumber) => Some(("t.model_id", "1 = 1")),
        _ => None,
    }
}

impl Compiler<'_> {
    /// The condition on value tally rows `vt` of the shape's models, if the tallies
    /// answer it: they know no object types.
    fn value_rows(&mut self, shape: &Shape, kinds: &[String]) -> Option<String> {
        if shape.types.is_some() {
            return None;
        }
        let kinds: Vec<String> = kinds.iter().map(|k| self.text(k)).collect();
        let kinds = format!("vt.kind IN ({})", kinds.join(", "));
        Some(match &shape.models {
            Some(models) if models.is_empty() => "1 = 0".to_owned(),
            Some(models) => {
                let models: Vec<i64> = models.iter().copied().collect();
                format!("{kinds} AND vt.model_id IN ({})", self.int_list(&models))
            }
            None => kinds,
        })
    }

    /// The condition on tally rows `t` of the shape.
    pub(super) fn tally_rows(&mut self, shape: &Shape) -> String {
        let mut parts = Vec::new();
        if let Some(models) = &shape.models {
            if models.is_empty() {
                return "1 = 0".to_owned();
            }
            let models: Vec<i64> = models.iter().copied().collect();
            parts.push(format!("t.model_id IN ({})", self.int_list(&models)));
        }
        if let Some(types) = &shape.types {
            if types.is_empty() {
                return "1 = 0".to_owned();
            }
            let list: Vec<String> = types.iter().map(|t| self.text(t)).collect();
            parts.push(format!(
                "{} IN ({})",
                self.fold("t.type_name"),
                list.join(", ")
            ));
        }
        if parts.is_empty() {
            "1 = 1".to_owned()
        } else {
            parts.join(" AND ")
        }
    }
}

/// The statement that counts the plan's objects from the tallies, if its condition has
/// their shape (with at most one status).
pub fn count(plan: &Plan, dialect: Dialect) -> Option<Compiled> {
    let condition = plan.condition();
    let (shape, status) = shape_and_status(&condition)?;
    let mut c = Compiler::per_object(dialect);
    let models = match status {
        None => {
            let tallies = c.tally_rows(&shape);
            format!("(SELECT COALESCE(SUM(t.n), 0) FROM object_tallies t WHERE {tallies})")
        }
        Some(Status::Described) => {
            let tallies = c.tally_rows(&shape);
            format!(
                "(SELECT COALESCE(SUM(t.n), 0) FROM object_tallies t WHERE t.described AND {tallies})"
            )
        }
        Some(Status::Curated(kind)) => {
            let tallies = c.value_rows(&shape, &[curation_kind(kind)])?;
            format!("(SELECT COALESCE(SUM(vt.n), 0) FROM value_tallies vt WHERE {tallies})")
        }
    };
    let repository = c.cond(&condition, Row::Object("o"));
    Some(Compiled {
        sql: format!(
            "SELECT CAST({models} \
             + (SELECT COUNT(*) FROM objects o WHERE o.model_id = -1 AND ({repository})) AS BIGINT)"
        ),
        params: c.params,
    })
}

/// The statement that counts a facet's values among the plan's objects from the
/// tallies, if the facet is tallied and the condition has their shape: rows of
/// (value, count) as [`super::value_counts`] answers them.
pub fn value_counts(plan: &Plan, dialect: Dialect, facet: &Facet, limit: u64) -> Option<Compiled> {
    if let Some(valued) = valued(facet) {
        return value_counts_of(plan, dialect, facet, &valued, limit);
    }
    let (value, has_value) = tallied(facet)?;
    let condition = plan.condition();
    let shape = Shape::of(&condition)?;
    let mut c = Compiler::per_object(dialect);
    let tallies = c.tally_rows(&shape);
    let repository = c.cond(&condition, Row::Object("o"));
    let Some(super::Source::Expr { sql: own, .. }) = c.source(&facet.field, Row::Object("o"))
    else {
        return None;
    };
    let limit = c.param(SqlValue::Int(Some(clamp(limit))));
    Some(Compiled {
        sql: format!(
            "SELECT v, CAST(SUM(k) AS BIGINT) AS n FROM (\
             SELECT {value} AS v, t.n AS k FROM object_tallies t WHERE {has_value} AND {tallies} \
             UNION ALL SELECT {own} AS v, 1 AS k FROM objects o \
             WHERE o.model_id = -1 AND ({repository}) AND {own} IS NOT NULL) x \
             GROUP BY v HAVING SUM(k) > 0 ORDER BY n DESC, v LIMIT {limit}"
        ),
        params: c.params,
    })
}

/// [`value_counts`] of a facet `value_tallies` (migration 31) counts: its tally rows of
/// the shape's models, and the values of the repository's objects that pass, counted as
/// the general statement counts them.
fn value_counts_of(
    plan: &Plan,
    dialect: Dialect,
    facet: &Facet,
    valued: &Valued,
    limit: u64,
) -> Option<Compiled> {
    let condition = plan.condition();
    let shape = Shape::of(&condition)?;
    let mut c = Compiler::per_object(dialect);
    let tallies = c.value_rows(&shape, &valued.kinds)?;
    // A classification counts while its data class is stored, as the general
    // statement joins them.
    let classes = if valued.classes {
        "JOIN data_classes d ON d.name = vt.value "
    } else {
        ""
    };
    let repository = c.cond(&condition, Row::Object("o"));
    let repository = c.facet_rows(
        "objects o",
        &format!("o.model_id = -1 AND ({repository})"),
        true,
        facet,
    );
    let limit = c.param(SqlValue::Int(Some(clamp(limit))));
    Some(Compiled {
        sql: format!(
            "SELECT v, CAST(SUM(k) AS BIGINT) AS n FROM (\
             SELECT vt.value AS v, vt.n AS k FROM value_tallies vt {classes}WHERE {tallies} \
             UNION ALL SELECT r.v, r.n FROM ({repository}) r) x \
             GROUP BY v HAVING SUM(k) > 0 ORDER BY n DESC, v LIMIT {limit}"
        ),
        params: c.params,
    })
}

#[cfg(test)]
pub(super) mod tests {
    use lore_core::mql::plan::Within;

    use super::*;

    pub(in crate::compile) fn within(models: &[i64]) -> Cond {
        Cond::Within(Within {
            models: models.to_vec(),
            subtrees: Vec::new(),
        })
    }

    pub(in crate::compile) fn of_type(t: &str) -> Cond {
        Cond::Test(
            Field::Column(Column::TypeName),
            Test::Eq(Lit::Text(t.to_owned())),
        )
    }

    #[test]
    fn shapes_of_models_and_types() {
        let cond = Cond::And(vec![
            within(&[1, 2]),
            Cond::And(vec![within(&[2, 3]), of_type("Column")]),
        ]);
        assert_eq!(
            Shape::of(&cond),
            Some(Shape {
                models: Some([2].into()),
                types: Some(["column".to_owned()].into()),
            })
        );
        assert_eq!(Shape::of(&Cond::True), Some(Shape::default()));
        // Without FROM: models and model objects.
        let everything = Cond::Kinds(vec![ObjectKind::Model, ObjectKind::ModelObject]);
        assert_eq!(Shape::of(&everything), Some(Shape::default()));
        let models = Cond::Kinds(vec![ObjectKind::Model]);
        assert_eq!(
            Shape::of(&models),
            Some(Shape {
                models: Some(BTreeSet::new()),
                types: None,
            })
        );
    }

    #[test]
    fn other_conditions_have_no_shape() {
        let label = Cond::Test(
            Field::Tags(lore_core::model::TagKind::Label),
            Test::Eq(Lit::Text("pii".to_owned())),
        );
        assert_eq!(Shape::of(&Cond::And(vec![of_type("Column"), label])), None);
        assert_eq!(Shape::of(&Cond::Not(Box::new(of_type("Column")))), None);
        assert_eq!(Shape::of(&Cond::False), None);
        let subtree = Cond::Within(Within {
            models: Vec::new(),
            subtrees: vec![lore_core::ObjectId::new(1, 1)],
        });
        assert_eq!(Shape::of(&subtree), None);
    }

    fn plan(filter: Cond, visibility: Cond) -> Plan {
        Plan {
            filter,
            visibility,
            order: Vec::new(),
            as_of: None,
        }
    }

    fn curated(kind: CurationKind) -> Cond {
        Cond::Has(Field::Curators(kind))
    }

    fn facet(relation: Option<Relation>, field: Field) -> Facet {
        Facet {
            relation,
            field,
            gap: None,
            hidden: Cond::False,
        }
    }

    #[test]
    fn a_count_of_the_shape_with_one_status() {
        let everything = Cond::Kinds(vec![ObjectKind::Model, ObjectKind::ModelObject]);
        let certified = Cond::And(vec![
            everything.clone(),
            curated(CurationKind::Certification),
        ]);
        assert_eq!(
            shape_and_status(&Cond::And(vec![certified.clone(), within(&[2])])),
            Some((
                Shape {
                    models: Some([2].into()),
                    types: None,
                },
                Some(Status::Curated(CurationKind::Certification))
            ))
        );
        // Two statuses, or a status under NOT or OR: the general statement.
        let two = Cond::And(vec![
            curated(CurationKind::Endorsement),
            curated(CurationKind::Warning),
        ]);
        assert_eq!(shape_and_status(&two), None);
        let negated = Cond::Not(Box::new(curated(CurationKind::Warning)));
        assert_eq!(shape_and_status(&negated), None);

        for dialect in [Dialect::Sqlite, Dialect::Postgres] {
            // An object-role caller: sight is whole models.
            let counted = count(&plan(certified.clone(), within(&[2, 3])), dialect)
                .expect("a count of the tallies");
            assert!(
                counted.sql.contains("FROM value_tallies vt"),
                "{}",
                counted.sql
            );
            let described = Cond::And(vec![
                of_type("column"),
                Cond::Has(Field::Column(Column::Description)),
            ]);
            let counted =
                count(&plan(described, Cond::True), dialect).expect("descriptions by type");
            assert!(counted.sql.contains("t.described"), "{}", counted.sql);
            // Curation is not tallied by object type.
            let by_type = Cond::And(vec![of_type("column"), curated(CurationKind::Warning)]);
            assert_eq!(count(&plan(by_type, Cond::True), dialect), None);
        }
    }

    #[test]
    fn facets_of_labels_data_classes_and_sensitivity_labels_are_tallied() {
        let labels = facet(None, Field::Tags(TagKind::Label));
        let classes = facet(
            Some(Relation::DataClasses(ClassStatuses::Current)),
            Field::ClassName,
        );
        let sensitivity = facet(None, Field::Labels(LabelSet::Top));
        let everything = plan(Cond::True, Cond::True);
        let restricted = plan(
            Cond::Kinds(vec![ObjectKind::Model, ObjectKind::ModelObject]),
            within(&[4]),
        );
        for dialect in [Dialect::Sqlite, Dialect::Postgres] {
            for f in [&labels, &classes, &sensitivity] {
                for p in [&everything, &restricted] {
                    let counted = value_counts(p, dialect, f, 12).expect("a facet of the tallies");
                    assert!(
                        counted.sql.contains("FROM value_tallies vt"),
                        "{}",
                        counted.sql
                    );
                }
                // Not by object type.
                assert_eq!(
                    value_counts(&plan(of_type("table"), Cond::True), dialect, f, 12),
                    None
                );
            }
            let counted = value_counts(&everything, dialect, &classes, 12).expect("classes");
            assert!(
                counted
                    .sql
                    .contains("JOIN data_classes d ON d.name = vt.value"),
                "{}",
                counted.sql
            );
            // Other sets of sensitivity labels, and data class descriptions, are not.
            let matched = facet(None, Field::Labels(LabelSet::Matched));
            assert_eq!(value_counts(&everything, dialect, &matched, 12), None);
            let described = facet(
                Some(Relation::DataClasses(ClassStatuses::Current)),
                Field::ClassDescription,
            );
            assert_eq!(value_counts(&everything, dialect, &described, 12), None);
        }
    }
}
