//! Data mapping scripts (`POST /dataMapping/exportScript` and `importScript`, and the
//! deprecated `exportExcel`): the lineage from the objects of one model to those of
//! another, as an editable text script that imports back to the same lineage. The
//! format is documented in `docs/data-mapping-script.md`.
//!
//! ```text
//! -- Lore data mapping script, format 1
//! SOURCE MODEL '/Staging/Sales';
//! TARGET MODEL '/Warehouse/DWH';
//! MAP "Sales DB"."sales"."orders"."total_amount" TO "dwh"."fact_sales"."amount"
//!   USING 'SUM(total_amount)';
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap};

use serde::Serialize;

use super::Lineage;
use crate::auth::Caller;
use crate::catalog::visibility::Visible;
use crate::error::{Error, Result};
use crate::id::{ObjectId, ObjectRef};
use crate::model::{Author, Capability, Edge, EdgeKind, Object, ObjectKind, Source};
use crate::store::{Op, Scope};

/// The first line of every script this Lore writes.
pub const SCRIPT_HEADER: &str = "-- Lore data mapping script, format 1";
/// The most mappings one script may hold.
pub const MAX_MAPPINGS: usize = 100_000;

/// Where a mapping's end is: a path of names from the top of its model, or an object id
/// (for an object whose path another object shares).
#[derive(Debug, Clone, PartialEq, Eq)]
enum End {
    Path(Vec<String>),
    Id(String),
}

/// One `MAP` statement.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Mapping {
    line: usize,
    source: End,
    target: End,
    logic: String,
}

/// A parsed script.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Script {
    source_model: String,
    target_model: String,
    mappings: Vec<Mapping>,
}

/// What an import changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MappingImport {
    pub mappings: usize,
    pub added: usize,
    pub removed: usize,
    pub unchanged: usize,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    /// `"..."`: a name.
    Name(String),
    /// `'...'`: text.
    Text(String),
    Dot,
    Semicolon,
}

fn error_at(line: usize, message: impl std::fmt::Display) -> Error {
    Error::invalid(format!("line {line}: {message}"))
}

/// Splits a script into tokens with their line numbers.
fn tokens(text: &str) -> Result<Vec<(usize, Token)>> {
    let mut out = Vec::new();
    let mut chars = text.chars().peekable();
    let mut line = 1;
    while let Some(c) = chars.next() {
        match c {
            '\n' => line += 1,
            c if c.is_whitespace() => {}
            '-' if chars.peek() == Some(&'-') => {
                for c in chars.by_ref() {
                    if c == '\n' {
                        line += 1;
                        break;
                    }
                }
            }
            '.' => out.push((line, Token::Dot)),
            ';' => out.push((line, Token::Semicolon)),
            '"' | '\'' => {
                let start = line;
                let mut value = String::new();
                loop {
                    match chars.next() {
                        None => {
                            return Err(error_at(start, format!("{c}...{c} is not closed")));
                        }
                        Some(q) if q == c => {
                            if chars.peek() == Some(&c) {
                                chars.next();
                                value.push(c);
                            } else {
                                break;
                            }
                        }
                        Some(other) => {
                            if other == '\n' {
                                line += 1;
                            }
                            value.push(other);
                        }
                    }
                }
                out.push((
                    start,
                    if c == '"' {
                        Token::Name(value)
                    } else {
                        Token::Text(value)
                    },
                ));
            }
            c if c.is_alphanumeric() || c == '_' => {
                let mut word = String::from(c);
                while let Some(&n) = chars.peek() {
                    if n.is_alphanumeric() || n == '_' {
                        word.push(n);
                        chars.next();
                    } else {
                        break;
                    }
                }
                out.push((line, Token::Word(word)));
            }
            other => return Err(error_at(line, format!("unexpected '{other}'"))),
        }
    }
    Ok(out)
}

/// Reads a script: `SOURCE MODEL '<model>';`, `TARGET MODEL '<model>';`, then any
/// number of `MAP <end> TO <end> [USING '<logic>'];`, where an end is `"name"."name"...`
/// or `ID '<object id>'`. Keywords are case-insensitive.
fn parse(text: &str) -> Result<Script> {
    let tokens = tokens(text)?;
    let mut at = 0;
    let mut source_model = None;
    let mut target_model = None;
    let mut mappings = Vec::new();
    let last_line = tokens.last().map_or(1, |(l, _)| *l);
    let line_of = |at: usize| tokens.get(at).map_or(last_line, |(l, _)| *l);
    let keyword = |at: usize, word: &str| matches!(tokens.get(at), Some((_, Token::Word(w))) if w.eq_ignore_ascii_case(word));
    let expect = |at: &mut usize, word: &str| -> Result<()> {
        if keyword(*at, word) {
            *at += 1;
            Ok(())
        } else {
            Err(error_at(line_of(*at), format!("expected {word}")))
        }
    };
    let end_of_statement = |at: &mut usize| -> Result<()> {
        match tokens.get(*at) {
            Some((_, Token::Semicolon)) => {
                *at += 1;
                Ok(())
            }
            _ => Err(error_at(line_of(*at), "expected ';' to end the statement")),
        }
    };
    let text_at = |at: &mut usize, what: &str| -> Result<String> {
        match tokens.get(*at) {
            Some((_, Token::Text(t))) => {
                *at += 1;
                Ok(t.clone())
            }
            _ => Err(error_at(line_of(*at), format!("expected {what} in '...'"))),
        }
    };
    let end = |at: &mut usize| -> Result<End> {
        if keyword(*at, "ID") {
            *at += 1;
            return Ok(End::Id(text_at(at, "an object id")?));
        }
        let mut names = Vec::new();
        loop {
            match tokens.get(*at) {
                Some((_, Token::Name(n))) => {
                    names.push(n.clone());
                    *at += 1;
                }
                _ => {
                    return Err(error_at(
                        line_of(*at),
                        "expected an object: \"name\".\"name\"... or ID '<object id>'",
                    ));
                }
            }
            if matches!(tokens.get(*at), Some((_, Token::Dot))) {
                *at += 1;
            } else {
                return Ok(End::Path(names));
            }
        }
    };
    while at < tokens.len() {
        let line = line_of(at);
        if keyword(at, "SOURCE") || keyword(at, "TARGET") {
            let source = keyword(at, "SOURCE");
            at += 1;
            expect(&mut at, "MODEL")?;
            let model = text_at(&mut at, "the model's path or id")?;
            end_of_statement(&mut at)?;
            let slot = if source {
                &mut source_model
            } else {
                &mut target_model
            };
            if slot.replace(model).is_some() {
                return Err(error_at(line, "the model is named twice"));
            }
        } else if keyword(at, "MAP") {
            at += 1;
            let source = end(&mut at)?;
            expect(&mut at, "TO")?;
            let target = end(&mut at)?;
            let logic = if keyword(at, "USING") {
                at += 1;
                text_at(&mut at, "the transformation logic")?
            } else {
                String::new()
            };
            end_of_statement(&mut at)?;
            mappings.push(Mapping {
                line,
                source,
                target,
                logic,
            });
            if mappings.len() > MAX_MAPPINGS {
                return Err(error_at(
                    line,
                    format!("a script holds at most {MAX_MAPPINGS} mappings"),
                ));
            }
        } else {
            return Err(error_at(line, "expected SOURCE MODEL, TARGET MODEL or MAP"));
        }
    }
    Ok(Script {
        source_model: source_model
            .ok_or_else(|| Error::invalid("the script names no SOURCE MODEL"))?,
        target_model: target_model
            .ok_or_else(|| Error::invalid("the script names no TARGET MODEL"))?,
        mappings,
    })
}

fn quote(text: &str, mark: char) -> String {
    let doubled = format!("{mark}{mark}");
    format!("{mark}{}{mark}", text.replace(mark, &doubled))
}

fn write_end(end: &End) -> String {
    match end {
        End::Path(names) => names
            .iter()
            .map(|n| quote(n, '"'))
            .collect::<Vec<_>>()
            .join("."),
        End::Id(id) => format!("ID {}", quote(id, '\'')),
    }
}

fn write(source_model: &str, target_model: &str, mappings: &[(End, End, String)]) -> String {
    let mut out = format!(
        "{SCRIPT_HEADER}\n\
         -- Each MAP says that data flows from an object of the source model to one of the\n\
         -- target model, USING the transformation logic. Edit and import it back with\n\
         -- POST /dataMapping/importScript: the script replaces the mapping between the models.\n\
         SOURCE MODEL {};\nTARGET MODEL {};\n",
        quote(source_model, '\''),
        quote(target_model, '\'')
    );
    for (source, target, logic) in mappings {
        out.push_str(&format!(
            "MAP {} TO {}",
            write_end(source),
            write_end(target)
        ));
        if !logic.is_empty() {
            out.push_str(&format!(" USING {}", quote(logic, '\'')));
        }
        out.push_str(";\n");
    }
    out
}

/// The objects of one model with the path of each, for writing and reading ends.
struct ModelIndex {
    objects: HashMap<ObjectId, Object>,
    /// The path of names of each object from the top of the model.
    paths: HashMap<ObjectId, Vec<String>>,
    /// The objects of each path (more than one: the path is ambiguous).
    by_path: HashMap<Vec<String>, Vec<ObjectId>>,
}

impl ModelIndex {
    fn new(objects: Vec<Object>) -> Self {
        let objects: HashMap<ObjectId, Object> = objects.into_iter().map(|o| (o.id, o)).collect();
        let mut paths = HashMap::with_capacity(objects.len());
        for id in objects.keys() {
            let mut names = Vec::new();
            let mut next = Some(*id);
            while let Some(at) = next {
                let Some(object) = objects.get(&at) else {
                    break;
                };
                names.push(object.name.clone());
                next = object.parent;
                if names.len() > 10_000 {
                    break;
                }
            }
            names.reverse();
            paths.insert(*id, names);
        }
        let mut by_path: HashMap<Vec<String>, Vec<ObjectId>> = HashMap::new();
        for (id, path) in &paths {
            by_path.entry(path.clone()).or_default().push(*id);
        }
        Self {
            objects,
            paths,
            by_path,
        }
    }

    fn end_of(&self, id: ObjectId) -> End {
        match self.paths.get(&id) {
            Some(path) if self.by_path.get(path).is_some_and(|ids| ids.len() == 1) => {
                End::Path(path.clone())
            }
            _ => End::Id(id.to_string()),
        }
    }

    fn resolve(&self, end: &End, line: usize, side: &str, model: &Object) -> Result<ObjectId> {
        match end {
            End::Id(text) => {
                let Ok(ObjectRef::Id(id)) = ObjectRef::parse(text) else {
                    return Err(error_at(line, format!("'{text}' is not an object id")));
                };
                if self.objects.contains_key(&id) {
                    Ok(id)
                } else {
                    Err(error_at(
                        line,
                        format!("the {side} model '{}' has no object {id}", model.name),
                    ))
                }
            }
            End::Path(names) => match self.by_path.get(names).map(Vec::as_slice) {
                Some([id]) => Ok(*id),
                Some(_) => Err(error_at(
                    line,
                    format!(
                        "{} names several objects of the {side} model; use ID '<object id>'",
                        write_end(end)
                    ),
                )),
                None => Err(error_at(
                    line,
                    format!(
                        "the {side} model '{}' has no object {}",
                        model.name,
                        write_end(end)
                    ),
                )),
            },
        }
    }
}

impl Lineage<'_> {
    async fn mapping_model(&self, caller: &Caller, text: &str, what: &str) -> Result<Visible> {
        let model = self.find_text(caller, text).await?;
        if model.kind != ObjectKind::Model {
            return Err(Error::invalid(format!(
                "{what} {} is a {}, not a model",
                model.id,
                model.kind.as_str().to_lowercase()
            )));
        }
        Ok(model)
    }

    /// The objects of the two models of a mapping, indexed; the target's index is `None`
    /// when the target is the source.
    async fn mapping_indexes(
        &self,
        source: &Object,
        target: &Object,
    ) -> Result<(ModelIndex, Option<ModelIndex>)> {
        let index = |model: &Object| {
            let number = model.id.content_model();
            async move { Ok::<_, Error>(ModelIndex::new(self.store.model_objects(number).await?)) }
        };
        let source_index = index(source).await?;
        let target_index = if target.id == source.id {
            None
        } else {
            Some(index(target).await?)
        };
        Ok((source_index, target_index))
    }

    /// The lineage edges from objects of the source model to objects of the target
    /// model, in one read of what hangs on the source model.
    async fn mapping_edges(
        &self,
        source_model: &Object,
        source: &ModelIndex,
        target: &ModelIndex,
    ) -> Result<Vec<Edge>> {
        let details = self
            .store
            .details(Scope::Model(source_model.id.content_model()))
            .await?;
        let mut edges: Vec<Edge> = details
            .edges
            .into_iter()
            .filter(|e| {
                e.kind == EdgeKind::Lineage
                    && source.objects.contains_key(&e.source)
                    && target.objects.contains_key(&e.target)
            })
            .collect();
        edges.sort();
        edges.dedup();
        Ok(edges)
    }

    /// `POST /dataMapping/exportScript`: the mapping from one model to another (or within
    /// one) as a script (View Metadata on both).
    pub async fn export_mapping_script(
        &self,
        caller: &Caller,
        source: &str,
        target: &str,
    ) -> Result<String> {
        let source_model = self.mapping_model(caller, source, "sourceModelId").await?;
        let target_model = self.mapping_model(caller, target, "targetModelId").await?;
        let (source_index, target_index) =
            self.mapping_indexes(&source_model, &target_model).await?;
        let target_index = target_index.as_ref().unwrap_or(&source_index);
        let edges = self
            .mapping_edges(&source_model, &source_index, target_index)
            .await?;
        let mut mappings: Vec<(End, End, String)> = edges
            .into_iter()
            .map(|e| {
                (
                    source_index.end_of(e.source),
                    target_index.end_of(e.target),
                    e.name,
                )
            })
            .collect();
        mappings.sort_by(|a, b| {
            (write_end(&a.0), write_end(&a.1), &a.2).cmp(&(write_end(&b.0), write_end(&b.1), &b.2))
        });
        Ok(write(
            &self.shown_path(caller, &source_model).await?,
            &self.shown_path(caller, &target_model).await?,
            &mappings,
        ))
    }

    /// `POST /dataMapping/importScript`: replaces the mapping between the two models a
    /// script names with the script's (Edit Metadata on both). Every line is checked
    /// first; one bad line refuses the script, naming the line, and nothing changes.
    pub async fn import_mapping_script(
        &self,
        caller: &Caller,
        bytes: &[u8],
    ) -> Result<MappingImport> {
        let text = std::str::from_utf8(bytes)
            .map_err(|e| Error::invalid(format!("the script is not UTF-8: {e}")))?;
        let script = parse(text)?;
        let source_model = self
            .mapping_model(caller, &script.source_model, "SOURCE MODEL")
            .await?;
        let target_model = self
            .mapping_model(caller, &script.target_model, "TARGET MODEL")
            .await?;
        for model in [&source_model, &target_model] {
            self.require_on(caller, Capability::EditMetadata, model)
                .await?;
        }
        let (source_index, target_index) =
            self.mapping_indexes(&source_model, &target_model).await?;
        let target_index = target_index.as_ref().unwrap_or(&source_index);
        let mut wanted: BTreeSet<Edge> = BTreeSet::new();
        let mut lines: BTreeMap<Edge, usize> = BTreeMap::new();
        for m in &script.mappings {
            let source = source_index.resolve(&m.source, m.line, "source", &source_model)?;
            let target = target_index.resolve(&m.target, m.line, "target", &target_model)?;
            if source == target {
                return Err(error_at(m.line, "an object cannot map to itself"));
            }
            if m.logic.chars().count() > 100_000 {
                return Err(error_at(
                    m.line,
                    "the transformation logic is longer than 100000 characters",
                ));
            }
            let edge = Edge {
                kind: EdgeKind::Lineage,
                source,
                target,
                name: m.logic.clone(),
                origin: None,
            };
            if let Some(first) = lines.insert(edge.clone(), m.line) {
                return Err(error_at(
                    m.line,
                    format!("the same mapping as line {first}"),
                ));
            }
            wanted.insert(edge);
        }
        let existing: BTreeSet<Edge> = self
            .mapping_edges(&source_model, &source_index, target_index)
            .await?
            .into_iter()
            .collect();
        let removed: Vec<Edge> = existing.difference(&wanted).cloned().collect();
        let added: Vec<Edge> = wanted.difference(&existing).cloned().collect();
        let summary = MappingImport {
            mappings: wanted.len(),
            added: added.len(),
            removed: removed.len(),
            unchanged: wanted.len() - added.len(),
        };
        let ops: Vec<Op> = removed
            .into_iter()
            .map(Op::RemoveEdge)
            .chain(added.into_iter().map(Op::AddEdge))
            .collect();
        if !ops.is_empty() {
            self.write(Author::by(Source::DataMapping, caller.user()), ops)
                .await?;
        }
        Ok(summary)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[allow(clippy::unwrap_used)]
    fn reads_what_it_writes() {
        let mappings = vec![
            (
                End::Path(vec!["Sales DB".into(), "it's \"quoted\"".into()]),
                End::Id("12_7".into()),
                "CASE WHEN x = 'a' THEN 1 END".to_owned(),
            ),
            (
                End::Path(vec!["a".into()]),
                End::Path(vec!["b".into(), "c".into()]),
                String::new(),
            ),
        ];
        let text = write("/Staging/Sales", "/It's/DWH", &mappings);
        let script = parse(&text).unwrap();
        assert_eq!(script.source_model, "/Staging/Sales");
        assert_eq!(script.target_model, "/It's/DWH");
        let read: Vec<(End, End, String)> = script
            .mappings
            .into_iter()
            .map(|m| (m.source, m.target, m.logic))
            .collect();
        assert_eq!(read, mappings);
    }

    #[test]
    fn keywords_any_case_comments_and_lines() {
        let script = parse(
            "-- a comment\nsource model '/a';\nTarget Model '/b';\n\nmap \"x\" -- here\n to \"y\".\"z\"\n using 'f(x)';\n",
        )
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(script.mappings.len(), 1);
        assert_eq!(script.mappings[0].line, 5);
        assert_eq!(script.mappings[0].logic, "f(x)");
    }

    #[test]
    fn errors_name_the_line() {
        let err = |text: &str| parse(text).unwrap_err().to_string();
        assert!(
            err("SOURCE MODEL '/a';\nTARGET MODEL '/b';\nMAP \"x\" \"y\";")
                .contains("line 3: expected TO")
        );
        assert!(err("SOURCE MODEL '/a';\nMAP \"x\" TO \"y\";").contains("TARGET MODEL"));
        assert!(
            err("SOURCE MODEL '/a';\nTARGET MODEL '/b';\nMAP \"x TO \"y\";").contains("line 3")
        );
        assert!(err("SOURCE MODEL '/a'").contains("';'"));
        assert!(err("DROP TABLE x;").contains("expected SOURCE MODEL"));
        assert!(err("SOURCE MODEL '/a';\nSOURCE MODEL '/b';").contains("twice"));
        assert!(err("SOURCE MODEL '/a'; # nope").contains("unexpected '#'"));
    }
}
