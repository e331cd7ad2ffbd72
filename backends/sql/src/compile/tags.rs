//! Pages and counts read from `tags_order` (migration 21): tags by kind, folded value,
//! their object's folded type and name. A condition that only names models (FROM, and
//! the caller's sight), object types and one label or collection by equality is one
//! range of that index, in name order: a page of it reads from where the page starts,
//! and a count reads the range without visiting an object. `Labels != 'PII'` among a
//! type's objects is the type's tally less that range.
//!
//! Repository objects (model_id -1: models and folders, few) are tested as any query
//! tests them, so only model objects rely on the shape: for them, a scope of models is
//! their model number, and `Kinds` holds when it names model objects (see
//! `compile/tally.rs`). An object with two tags whose values fold alike is in the index
//! once (`fold_first`). Every other condition goes to the general statement; the answers
//! are the same either way (the cross-backend test).

use lore_core::model::TagKind;
use lore_core::mql::plan::{Column, Cond, Field, Lit, Page, Plan, Test, fold};

use super::tally::Shape;
use super::{Compiled, Compiler, Row, clamp};
use crate::dialect::Dialect;
use crate::value::SqlValue;

/// A condition `tags_order` answers: a tally's shape, with one tag that every object
/// has (`with`) or that none has (`without`), not both.
#[derive(Debug, Default, PartialEq)]
struct TagShape {
    base: Shape,
    with: Option<(TagKind, String)>,
    without: Option<(TagKind, String)>,
}

impl TagShape {
    fn of(cond: &Cond) -> Option<TagShape> {
        let mut shape = TagShape::default();
        shape.add(cond)?;
        (shape.with.is_some() != shape.without.is_some()).then_some(shape)
    }

    fn add(&mut self, cond: &Cond) -> Option<()> {
        match cond {
            Cond::And(items) => items.iter().try_for_each(|c| self.add(c)),
            Cond::Test(..) if tag_test(cond).is_some() && self.with.is_none() => {
                self.with = tag_test(cond);
                Some(())
            }
            Cond::Not(inner) if tag_test(inner).is_some() && self.without.is_none() => {
                self.without = tag_test(inner);
                Some(())
            }
            other => self.base.add(other),
        }
    }
}

/// The tag of `Labels = '...'` (or `Collections`): its kind and folded value.
fn tag_test(cond: &Cond) -> Option<(TagKind, String)> {
    match cond {
        Cond::Test(Field::Tags(kind), Test::Eq(Lit::Text(value))) => Some((*kind, fold(value))),
        _ => None,
    }
}

impl Compiler<'_> {
    /// The range of `tags_order` of the tag among the shape's types, on tag rows `g`.
    fn tag_range(&mut self, shape: &Shape, (kind, value): &(TagKind, String)) -> String {
        let kind = self.text(kind.as_str());
        let value = self.text(value);
        let types = match &shape.types {
            Some(types) if types.is_empty() => return "1 = 0".to_owned(),
            Some(types) => {
                let list: Vec<String> = types.iter().map(|t| self.text(t)).collect();
                format!("g.type_fold IN ({})", list.join(", "))
            }
            // NULL until the tag's object is written (migration 21).
            None => "g.type_fold IS NOT NULL".to_owned(),
        };
        // One tag of each object's group folding alike (migration 21).
        format!("g.kind = {kind} AND g.value_fold = {value} AND g.fold_first AND {types}")
    }

    /// The tag rows `g` of model objects in the shape's models.
    fn model_rows(&mut self, shape: &Shape) -> String {
        match &shape.models {
            Some(models) if models.is_empty() => "1 = 0".to_owned(),
            Some(models) => {
                let models: Vec<i64> = models.iter().copied().collect();
                format!(
                    "g.model_id <> -1 AND g.model_id IN ({})",
                    self.int_list(&models)
                )
            }
            None => "g.model_id <> -1".to_owned(),
        }
    }

    /// How many model objects of the shape carry the tag.
    fn tagged_count(&mut self, shape: &Shape, tag: &(TagKind, String)) -> String {
        let range = self.tag_range(shape, tag);
        let models = self.model_rows(shape);
        format!("(SELECT COUNT(*) FROM tags g WHERE {range} AND {models})")
    }
}

/// The statement that counts the plan's objects through `tags_order`, if its condition
/// has the shape.
pub fn count(plan: &Plan, dialect: Dialect) -> Option<Compiled> {
    let condition = plan.condition();
    let shape = TagShape::of(&condition)?;
    let mut c = Compiler::per_object(dialect);
    let models = match (&shape.with, &shape.without) {
        (Some(tag), None) => c.tagged_count(&shape.base, tag),
        (None, Some(tag)) => {
            let tallies = c.tally_rows(&shape.base);
            let tagged = c.tagged_count(&shape.base, tag);
            format!(
                "((SELECT COALESCE(SUM(t.n), 0) FROM object_tallies t WHERE {tallies}) - {tagged})"
            )
        }
        _ => return None,
    };
    let repository = c.cond(&condition, Row::Object("o"));
    Some(Compiled {
        sql: format!(
            "SELECT CAST({models} + (SELECT COUNT(*) FROM objects o WHERE o.model_id = -1 AND ({repository})) AS BIGINT)"
        ),
        params: c.params,
    })
}

/// The statement of a page through `tags_order`, if the condition has the shape with a
/// tag every object has and one object type, and the page is in name order: the range
/// of the index in its own order.
pub fn page(plan: &Plan, dialect: Dialect, page: Page) -> Option<Compiled> {
    let by_name = matches!(
        plan.order.as_slice(),
        [key] if key.field == Field::Column(Column::Name) && !key.descending
    );
    if !by_name {
        return None;
    }
    let condition = plan.condition();
    let shape = TagShape::of(&condition)?;
    let tag = shape.with.as_ref()?;
    if shape.base.types.as_ref().is_none_or(|t| t.len() != 1) {
        return None;
    }
    let mut c = Compiler::per_object(dialect);
    let range = c.tag_range(&shape.base, tag);
    let models = c.model_rows(&shape.base);
    // The repository's objects of the range (`g.model_id = -1`), each tested whole.
    let repository = c.cond(&condition, Row::Object("o"));
    let limit = c.param(SqlValue::Int(Some(clamp(page.limit))));
    let offset = c.param(SqlValue::Int(Some(clamp(page.offset))));
    Some(Compiled {
        sql: format!(
            "SELECT g.model_id, g.object_id FROM tags g WHERE {range} AND (({models}) \
             OR (g.model_id = -1 AND EXISTS (SELECT 1 FROM objects o \
             WHERE o.model_id = -1 AND o.object_id = g.object_id AND ({repository})))) \
             ORDER BY g.object_name, g.model_id, g.object_id LIMIT {limit} OFFSET {offset}"
        ),
        params: c.params,
    })
}

#[cfg(test)]
mod tests {
    use super::super::tally::tests::{of_type, within};
    use super::*;

    fn label(v: &str) -> Cond {
        Cond::Test(
            Field::Tags(TagKind::Label),
            Test::Eq(Lit::Text(v.to_owned())),
        )
    }

    #[test]
    fn shapes_with_one_tag() {
        let cond = Cond::And(vec![within(&[1]), of_type("Column"), label("PII")]);
        let shape = TagShape::of(&cond).expect("a shape");
        assert_eq!(shape.with, Some((TagKind::Label, "pii".to_owned())));
        assert_eq!(shape.without, None);
        assert_eq!(shape.base.models, Some([1].into()));

        let not = Cond::And(vec![of_type("Column"), Cond::Not(Box::new(label("pii")))]);
        let shape = TagShape::of(&not).expect("a shape");
        assert_eq!(shape.without, Some((TagKind::Label, "pii".to_owned())));
    }

    #[test]
    fn other_conditions_have_no_tag_shape() {
        // No tag: the tallies' business.
        assert_eq!(TagShape::of(&of_type("Column")), None);
        // Two tags, or a tag with and one without.
        assert_eq!(TagShape::of(&Cond::And(vec![label("a"), label("b")])), None);
        let both = Cond::And(vec![label("a"), Cond::Not(Box::new(label("b")))]);
        assert_eq!(TagShape::of(&both), None);
        // A tag under OR, or a test other than equality.
        assert_eq!(
            TagShape::of(&Cond::Or(vec![label("a"), of_type("Column")])),
            None
        );
        let starts = Cond::Test(
            Field::Tags(TagKind::Label),
            Test::StartsWith("p".to_owned()),
        );
        assert_eq!(TagShape::of(&starts), None);
    }
}
