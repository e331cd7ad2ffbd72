//! Counts and facets read from `object_tallies` (migration 16): how many objects each
//! model holds of each object type and data type, kept by triggers in the same
//! transaction as every write. A count or facet whose condition only names models
//! (FROM, and the caller's sight) and object types reads a few tally rows for the
//! model objects, and tests the repository objects (model_id -1: models and folders,
//! few) as any query does, both in one statement. Every other condition goes to the
//! general statement; the answers are the same either way (the cross-backend test).

use std::collections::BTreeSet;

use lore_core::model::ObjectKind;
use lore_core::mql::plan::{Column, Cond, Facet, Field, Lit, Plan, Test, fold};

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
/// their shape.
pub fn count(plan: &Plan, dialect: Dialect) -> Option<Compiled> {
    let condition = plan.condition();
    let shape = Shape::of(&condition)?;
    let mut c = Compiler::per_object(dialect);
    let tallies = c.tally_rows(&shape);
    let repository = c.cond(&condition, Row::Object("o"));
    Some(Compiled {
        sql: format!(
            "SELECT CAST((SELECT COALESCE(SUM(t.n), 0) FROM object_tallies t WHERE {tallies}) \
             + (SELECT COUNT(*) FROM objects o WHERE o.model_id = -1 AND ({repository})) AS BIGINT)"
        ),
        params: c.params,
    })
}

/// The statement that counts a facet's values among the plan's objects from the
/// tallies, if the facet is a tallied column and the condition has their shape: rows of
/// (value, count) as [`super::value_counts`] answers them.
pub fn value_counts(plan: &Plan, dialect: Dialect, facet: &Facet, limit: u64) -> Option<Compiled> {
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
}
