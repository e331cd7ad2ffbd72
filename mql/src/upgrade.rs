//! The upgrade of a query of an earlier MQL version to current syntax
//! (`POST /entities/upgradeMQLQuery`): earlier attribute names become their replacements
//! (spec 2.5), removed filter words the attributes that replace them (2.6), and the
//! notation marks go. Writing the tree back ([`std::fmt::Display`]) gives the text.

use super::ast::{Expr, Filter, Name, Op, OrderKey, Path, Query, SelectItem, Subject};
use super::catalog::{self, Replacement};
use super::resolve::resolve;
use lore_model::MetaModel;

/// The role the earlier `Stewards` attribute stood for.
const STEWARD: &str = "Steward";

/// `query` in current syntax, and what could not be rewritten.
pub fn upgrade(query: &Query, meta: &MetaModel) -> (Query, Vec<String>) {
    let mut up = Upgrade {
        meta,
        warnings: Vec::new(),
    };
    let mut query = query.clone();
    query.select = query
        .select
        .into_iter()
        .map(|item| match item {
            SelectItem::Attribute(path) => match up.path(path) {
                Rewritten::Path(path) => SelectItem::Attribute(path),
                Rewritten::Stewards => SelectItem::MembersOfRole(STEWARD.to_owned()),
            },
            other => other,
        })
        .collect();
    if let Some(from) = query.from.as_mut()
        && let Some(scope) = from.scope.take()
    {
        from.scope = Some(up.expr(scope));
    }
    query.filter = query.filter.map(|f| up.expr(f));
    for key in &mut query.order_by {
        if let OrderKey::Attribute { path, .. } = key
            && let Rewritten::Path(rewritten) = up.path(path.clone())
        {
            *path = rewritten;
        }
    }
    (query, up.warnings)
}

struct Upgrade<'m> {
    meta: &'m MetaModel,
    warnings: Vec<String>,
}

enum Rewritten {
    Path(Path),
    /// `Stewards`: a role function, which one depends on the clause.
    Stewards,
}

impl Upgrade<'_> {
    fn path(&mut self, path: Path) -> Rewritten {
        let names: Vec<Name> = path
            .0
            .into_iter()
            .map(|name| Name {
                marks: None,
                ..name
            })
            .collect();
        let [name] = names.as_slice() else {
            return Rewritten::Path(Path(names));
        };
        let text = name.text.as_str();
        if let Some(replacement) = catalog::earlier_name(text) {
            return match replacement {
                Replacement::Attribute(current) | Replacement::Grantees(current) => {
                    Rewritten::Path(Path::name(current))
                }
                Replacement::Stewards => Rewritten::Stewards,
                Replacement::Term => Rewritten::Path(Path::name("Term Documentation")),
                Replacement::InferredDocumentation => {
                    Rewritten::Path(Path::name("Inferred Documentation"))
                }
            };
        }
        // A removed filter word is the attribute of that name when there is one.
        if resolve(&[text], self.meta).is_err()
            && let Some(current) = catalog::removed_filter(text)
        {
            return match current.starts_with("ExpandedMembersOfRole") {
                true => Rewritten::Stewards,
                false => Rewritten::Path(Path::name(current)),
            };
        }
        Rewritten::Path(Path(names))
    }

    fn expr(&mut self, expr: Expr) -> Expr {
        match expr {
            Expr::And(items) => Expr::And(items.into_iter().map(|e| self.expr(e)).collect()),
            Expr::Or(items) => Expr::Or(items.into_iter().map(|e| self.expr(e)).collect()),
            Expr::Filter(Filter { subject, op }) => {
                let op = match op {
                    Op::EqWhere(inner) => Op::EqWhere(Box::new(self.expr(*inner))),
                    other => other,
                };
                let subject = match subject {
                    Subject::Attribute(path) => {
                        let written = path.to_string();
                        match self.path(path) {
                            Rewritten::Path(path) => {
                                if path.0.len() == 1 && path.0[0].text == "Term Documentation" {
                                    self.warnings.push(format!(
                                        "the filter on {written} has no current equivalent (Term Documentation takes no operator); test the Is Defined By relationship with EXISTS"
                                    ));
                                }
                                Subject::Attribute(path)
                            }
                            Rewritten::Stewards => {
                                Subject::ExpandedMembersOfRole(STEWARD.to_owned())
                            }
                        }
                    }
                    other => other,
                };
                Expr::Filter(Filter { subject, op })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::{QueryFields, parse_fields};

    fn upgraded(select: &str, filter: &str) -> (String, Vec<String>) {
        let query = parse_fields(&QueryFields {
            select,
            filter: Some(filter),
            ..QueryFields::default()
        })
        .unwrap();
        let (query, warnings) = upgrade(&query, &MetaModel::builtin());
        (query.to_string(), warnings)
    }

    #[test]
    fn earlier_names_marks_and_removed_filters_become_current() {
        let (text, warnings) = upgraded(
            "#Name#, {Semantic Types}, Stewards",
            "label = 'PII' AND object_type = ANY ('Table') AND \"Last Modified Date\" AFTER TODAY AND steward = ME AND Endorsements = 'ann'",
        );
        assert!(warnings.is_empty(), "{warnings:?}");
        for part in [
            "SELECT Name, \"Data Classifications\", MembersOfRole('Steward')",
            "Labels = 'PII'",
            "\"Object Type\" = ANY ('Table')",
            "\"Updated Date\" AFTER TODAY",
            "ExpandedMembersOfRole('Steward') = ME",
            "\"Endorsed By\" = 'ann'",
        ] {
            assert!(text.contains(part), "'{text}' holds '{part}'");
        }
        assert!(!text.contains('#') && !text.contains('{'), "{text}");
    }

    #[test]
    fn current_queries_stay_and_term_filters_warn() {
        let (text, warnings) = upgraded("Name", "Name = 'a' OR Labels = 'b'");
        assert_eq!(text, "SELECT Name WHERE Name = 'a' OR Labels = 'b'");
        assert!(warnings.is_empty());
        let (_, warnings) = upgraded("Name", "Term = 'Customer'");
        assert!(
            warnings.iter().any(|w| w.contains("Is Defined By")),
            "{warnings:?}"
        );
    }
}
