//! Semantics: glossary terms and their references, the semantic links that classify
//! objects with terms, and the entity relationships of data models (spec rest-api 4.2,
//! 4.3, 2.5).
//!
//! All of them are edges between model objects. Writing one needs Edit Metadata on the
//! object it starts from (on the model, for a new term) and sight of both ends; reading
//! needs View Metadata on the object read.

use serde::Serialize;

use super::Governance;
use crate::auth::Caller;
use crate::catalog::visibility::Visible;
use crate::error::{Error, Result};
use crate::id::{ObjectId, stable_id};
use crate::model::{
    Capability, Edge, EdgeKind, GLOSSARY_PROFILE, Object, ObjectKind, ReferenceType, SystemType,
    TypeName,
};
use crate::store::Op;
use crate::wire::{EmbeddedEntity, Entity};

/// The object type of glossary terms.
fn term_type() -> TypeName {
    TypeName::new(GLOSSARY_PROFILE, "Term")
}

/// The custom relationship that, like a semantic link, ties an object to a defining term.
const IS_DEFINED_BY: &str = "Is Defined By";

/// A term to create or complete (`POST /entities/glossary`).
#[derive(Debug, Clone, Default)]
pub struct TermRequest {
    /// The model the term lives in (id or repository path).
    pub glossary: Option<String>,
    /// The term's path from the top of the model, names separated by `/`; missing
    /// parents are created as terms.
    pub path: Option<String>,
    pub description: Option<String>,
    /// References from the term to other terms: (reference type as the client wrote
    /// it, old names accepted; the other term).
    pub references: Vec<(String, String)>,
}

/// How a classify call names the term: an existing one, or one to create.
#[derive(Debug, Clone)]
pub enum TermChoice {
    Existing(String),
    New { glossary: String, path: String },
}

/// A glossary term with its references to other terms.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GlossaryTerm {
    #[serde(flatten)]
    pub entity: Entity,
    /// The references from this term, by type then name.
    pub references: Vec<GlossaryTermReference>,
}

/// A reference from a term to another (the GlossaryTermReference of spec 2.5).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GlossaryTermReference {
    /// Always the release 11.0 name: `Specializes`, not `More General`.
    pub reference_type: String,
    pub term: EmbeddedEntity,
}

fn is_term(object: &Object) -> bool {
    object.kind == ObjectKind::ModelObject && object.object_type == term_type()
}

fn describe(object: &Object) -> String {
    format!(
        "{} '{}' ({})",
        object.object_type.name.to_lowercase(),
        object.name,
        object.id
    )
}

impl Governance<'_> {
    /// Resolves a model object the caller sees, named by parameter `what`.
    async fn visible_model_object(
        &self,
        caller: &Caller,
        text: &str,
        what: &str,
    ) -> Result<Visible> {
        let object = self.find_text(caller, text).await?;
        if object.kind != ObjectKind::ModelObject {
            return Err(Error::invalid(format!(
                "{what} {} is a {}; only objects inside a model take part here",
                object.id,
                object.kind.as_str().to_lowercase()
            )));
        }
        Ok(object)
    }

    async fn term(&self, caller: &Caller, text: &str, what: &str) -> Result<Object> {
        let term = self.visible_model_object(caller, text, what).await?;
        if !is_term(&term) {
            return Err(Error::invalid(format!(
                "{what} {} is not a glossary term",
                describe(&term)
            )));
        }
        Ok(term.into_object())
    }

    // ---- semantic links

    /// `POST /semanticMapping/semanticLink`: links an object to the object that defines
    /// it (usually a term). Edit Metadata on the source; linking twice is a no-op.
    pub async fn add_semantic_link(
        &self,
        caller: &Caller,
        source: &str,
        target: &str,
    ) -> Result<()> {
        let (source, target) = self.link_ends(caller, source, target).await?;
        self.write(
            caller.author(),
            vec![Op::AddEdge(semantic_link(&source, &target))],
        )
        .await
    }

    /// `DELETE /semanticMapping/semanticLink`: removes the link; NOT_FOUND when there is
    /// none.
    pub async fn remove_semantic_link(
        &self,
        caller: &Caller,
        source: &str,
        target: &str,
    ) -> Result<()> {
        let (source, target) = self.link_ends(caller, source, target).await?;
        let links = self.definitions_of(&source, Some(target.id)).await?;
        if links.is_empty() {
            return Err(Error::not_found(format!(
                "no semantic link from {} to {}",
                describe(&source),
                describe(&target)
            )));
        }
        self.remove_edges(caller, links).await
    }

    async fn remove_edges(&self, caller: &Caller, edges: Vec<Edge>) -> Result<()> {
        self.write(
            caller.author(),
            edges.into_iter().map(Op::RemoveEdge).collect(),
        )
        .await
    }

    async fn link_ends(
        &self,
        caller: &Caller,
        source: &str,
        target: &str,
    ) -> Result<(Object, Object)> {
        let source = self
            .visible_model_object(caller, source, "sourceObjectId")
            .await?;
        let target = self
            .visible_model_object(caller, target, "targetObjectId")
            .await?;
        if source.id == target.id {
            return Err(Error::invalid(format!(
                "an object cannot be linked to itself ({})",
                source.id
            )));
        }
        self.require_on(caller, Capability::EditMetadata, &source)
            .await?;
        Ok((source.into_object(), target.into_object()))
    }

    /// The edges that make `target` (or any object, when `None`) define `object`: semantic
    /// links and the Is Defined By relationship.
    async fn definitions_of(&self, object: &Object, target: Option<ObjectId>) -> Result<Vec<Edge>> {
        let mut edges = self
            .store
            .edges(EdgeKind::SemanticLink, object.id, false)
            .await?;
        edges.extend(
            self.store
                .edges(EdgeKind::CustomRelationship, object.id, false)
                .await?
                .into_iter()
                .filter(|e| e.name == IS_DEFINED_BY),
        );
        edges.retain(|e| e.source == object.id && target.is_none_or(|t| e.target == t));
        Ok(edges)
    }

    // ---- entity relationships

    /// `POST /dataModel/entityRelationship`: relates two classifiers (tables, files,
    /// entities) of one model under a name. Edit Metadata on the model.
    pub async fn add_entity_relationship(
        &self,
        caller: &Caller,
        source: &str,
        target: &str,
        name: Option<&str>,
    ) -> Result<()> {
        let edge = self
            .entity_relationship(caller, source, target, name)
            .await?;
        self.write(caller.author(), vec![Op::AddEdge(edge)]).await
    }

    /// `DELETE /dataModel/entityRelationship`: removes the relationship of that name, or
    /// every one between the two classifiers when no name is given; NOT_FOUND when there
    /// is none.
    pub async fn remove_entity_relationship(
        &self,
        caller: &Caller,
        source: &str,
        target: &str,
        name: Option<&str>,
    ) -> Result<()> {
        let wanted = self
            .entity_relationship(caller, source, target, name)
            .await?;
        let found: Vec<Edge> = self
            .store
            .edges(EdgeKind::EntityRelationship, wanted.source, false)
            .await?
            .into_iter()
            .filter(|e| {
                e.source == wanted.source
                    && e.target == wanted.target
                    && (name.is_none() || e.name == wanted.name)
            })
            .collect();
        if found.is_empty() {
            return Err(Error::not_found(format!(
                "no entity relationship{} from {} to {}",
                name.map(|n| format!(" '{n}'")).unwrap_or_default(),
                wanted.source,
                wanted.target
            )));
        }
        self.remove_edges(caller, found).await
    }

    async fn entity_relationship(
        &self,
        caller: &Caller,
        source: &str,
        target: &str,
        name: Option<&str>,
    ) -> Result<Edge> {
        let source = self
            .visible_model_object(caller, source, "sourceObjectId")
            .await?;
        let target = self
            .visible_model_object(caller, target, "targetObjectId")
            .await?;
        for (what, object) in [("sourceObjectId", &source), ("targetObjectId", &target)] {
            if object.system_type != SystemType::Classifier {
                return Err(Error::invalid(format!(
                    "{what} {} is a {}; entity relationships join classifiers (tables, files, entities)",
                    describe(object),
                    object.system_type.as_str()
                )));
            }
        }
        if source.id.model != target.id.model {
            return Err(Error::invalid(format!(
                "{} and {} are in different models; an entity relationship stays inside one data model",
                source.id, target.id
            )));
        }
        self.require_on(caller, Capability::EditMetadata, &source)
            .await?;
        let name = name.map(str::trim).unwrap_or_default();
        if name.chars().count() > 1000 {
            return Err(Error::invalid("name is longer than 1000 characters"));
        }
        Ok(Edge {
            kind: EdgeKind::EntityRelationship,
            source: source.id,
            target: target.id,
            name: name.to_owned(),
            origin: None,
        })
    }

    // ---- glossary

    /// `POST /entities/glossary`: the term at `path` in the glossary model, created with
    /// any missing parent terms; a description and references given are set on it.
    /// Edit Metadata on the model.
    pub async fn put_term(&self, caller: &Caller, request: &TermRequest) -> Result<GlossaryTerm> {
        let glossary = request
            .glossary
            .as_deref()
            .filter(|g| !g.trim().is_empty())
            .ok_or_else(|| Error::missing("glossaryId"))?;
        let path = request
            .path
            .as_deref()
            .filter(|p| !p.trim().is_empty())
            .ok_or_else(|| Error::missing("termPath"))?;
        let (term, mut ops) = self.term_at(caller, glossary, path).await?;
        let mut term = term;
        if let Some(description) = request.description.as_deref() {
            term.description = Some(description.to_owned()).filter(|d| !d.is_empty());
            term.updated_at = crate::model::now();
            term.updated_by = Some(caller.user());
            ops.retain(|op| !matches!(op, Op::PutObject(o) if o.id == term.id));
            ops.push(Op::PutObject(term.clone()));
        }
        for (kind, other) in &request.references {
            let reference = ReferenceType::parse(kind).ok_or_else(|| {
                Error::invalid(format!(
                    "referenceType '{kind}' is none of {}",
                    ReferenceType::ALL.map(ReferenceType::as_str).join(", ")
                ))
            })?;
            let other = self.term(caller, other, "termId").await?;
            if other.id == term.id {
                return Err(Error::invalid("a term cannot reference itself"));
            }
            ops.push(Op::AddEdge(Edge {
                kind: EdgeKind::TermReference,
                source: term.id,
                target: other.id,
                name: reference.as_str().to_owned(),
                origin: None,
            }));
        }
        if !ops.is_empty() {
            self.write(caller.author(), ops).await?;
        }
        self.glossary_term(caller, &term).await
    }

    /// The term at `path` in the glossary, and the writes that create it (and its
    /// missing parents) when it does not exist yet. The glossary is one the caller sees
    /// (and edits), so its terms are theirs to look up by name.
    #[allow(clippy::disallowed_methods)]
    async fn term_at(
        &self,
        caller: &Caller,
        glossary: &str,
        path: &str,
    ) -> Result<(Object, Vec<Op>)> {
        let model = self.find_text(caller, glossary).await?;
        if model.kind != ObjectKind::Model {
            return Err(Error::invalid(format!(
                "glossaryId {} is a {}, not a model",
                model.id,
                model.kind.as_str().to_lowercase()
            )));
        }
        self.require_on(caller, Capability::EditMetadata, &model)
            .await?;
        let names: Vec<&str> = path.split('/').map(str::trim).collect();
        if names.iter().any(|n| n.is_empty()) {
            return Err(Error::invalid(format!(
                "termPath '{path}' has an empty name; separate names with single '/'"
            )));
        }
        let number = model.id.content_model();
        let mut parent: Option<Object> = None;
        let mut ops = Vec::new();
        let mut native = String::new();
        for name in names {
            native = if native.is_empty() {
                format!("term:{name}")
            } else {
                format!("{native}/{name}")
            };
            let existing = match &parent {
                // A parent made in this call has no children yet.
                Some(p)
                    if ops
                        .iter()
                        .any(|op| matches!(op, Op::PutObject(o) if o.id == p.id)) =>
                {
                    None
                }
                _ => {
                    self.store
                        .child_by_name(number, parent.as_ref().map(|p| p.id), name)
                        .await?
                }
            };
            let next = match existing {
                Some(found) if is_term(&found) => found,
                Some(found) => {
                    return Err(Error::invalid(format!(
                        "'{name}' in termPath '{path}' is a {}, not a term",
                        describe(&found)
                    )));
                }
                None => {
                    let id = ObjectId::new(number, self.store.reserve_ids(number, 1).await?);
                    let mut term = Object::new(
                        id,
                        ObjectKind::ModelObject,
                        term_type(),
                        SystemType::Classifier,
                        name,
                    );
                    term.parent = parent.as_ref().map(|p| p.id);
                    term.stable_id = Some(stable_id(number, &native));
                    term.native_id = Some(native.clone());
                    term.updated_by = Some(caller.user());
                    ops.push(Op::PutObject(term.clone()));
                    term
                }
            };
            parent = Some(next);
        }
        let term = parent.ok_or_else(|| Error::missing("termPath"))?;
        Ok((term, ops))
    }

    async fn glossary_term(&self, caller: &Caller, term: &Object) -> Result<GlossaryTerm> {
        let entity = self.entity(caller, term).await?;
        let edges = self
            .store
            .edges(EdgeKind::TermReference, term.id, false)
            .await?;
        let targets: Vec<ObjectId> = edges.iter().map(|e| e.target).collect();
        let others = self.stored_objects(&targets).await?;
        let sight = self.sight(caller).await?;
        let mut references: Vec<GlossaryTermReference> = edges
            .iter()
            .filter(|e| e.source == term.id)
            .filter_map(|e| {
                let other = others.iter().find(|o| o.id == e.target)?;
                sight.sees(other).then(|| GlossaryTermReference {
                    reference_type: ReferenceType::parse(&e.name)
                        .map_or_else(|| e.name.clone(), |r| r.as_str().to_owned()),
                    term: crate::catalog::objects::browse::embedded(other),
                })
            })
            .collect();
        references.sort_by(|a, b| {
            (&a.reference_type, &a.term.name, &a.term.id).cmp(&(
                &b.reference_type,
                &b.term.name,
                &b.term.id,
            ))
        });
        Ok(GlossaryTerm { entity, references })
    }

    /// `PUT /entities/glossary/classify/{objectId}`: classifies an object with a term,
    /// existing or created on the way (a semantic link from the object to the term).
    /// Answers the object, its `terms` included.
    pub async fn classify(
        &self,
        caller: &Caller,
        object: &str,
        term: &TermChoice,
    ) -> Result<Entity> {
        let object = self
            .visible_model_object(caller, object, "objectId")
            .await?;
        self.require_on(caller, Capability::EditMetadata, &object)
            .await?;
        let (term, mut ops) = match term {
            TermChoice::Existing(text) => (self.term(caller, text, "termId").await?, Vec::new()),
            TermChoice::New { glossary, path } => self.term_at(caller, glossary, path).await?,
        };
        if term.id == object.id {
            return Err(Error::invalid("a term cannot classify itself"));
        }
        ops.push(Op::AddEdge(semantic_link(&object, &term)));
        self.write(caller.author(), ops).await?;
        self.entity(caller, &object).await
    }

    /// `PUT /entities/glossary/unclassify/{objectId}`: removes the classification of an
    /// object by a term (semantic links and Is Defined By), or by every term when none
    /// is named. NOT_FOUND when the term does not classify the object.
    pub async fn unclassify(
        &self,
        caller: &Caller,
        object: &str,
        term: Option<&str>,
    ) -> Result<Entity> {
        let object = self
            .visible_model_object(caller, object, "objectId")
            .await?;
        self.require_on(caller, Capability::EditMetadata, &object)
            .await?;
        let term = match term {
            Some(text) => Some(self.term(caller, text, "termId").await?),
            None => None,
        };
        let edges = self
            .definitions_of(&object, term.as_ref().map(|t| t.id))
            .await?;
        if let Some(term) = &term
            && edges.is_empty()
        {
            return Err(Error::not_found(format!(
                "{} is not classified by {}",
                describe(&object),
                describe(term)
            )));
        }
        if !edges.is_empty() {
            self.remove_edges(caller, edges).await?;
        }
        self.entity(caller, &object).await
    }

    /// `GET /entities/reports/{termId}`: the usage report of a term: the objects it
    /// classifies (semantic links and Is Defined By) that the caller sees, by name.
    pub async fn term_reports(&self, caller: &Caller, term: &str) -> Result<Vec<Entity>> {
        let term = self.term(caller, term, "termId").await?;
        let mut sources: Vec<ObjectId> = Vec::new();
        for kind in [EdgeKind::SemanticLink, EdgeKind::CustomRelationship] {
            for edge in self.store.edges(kind, term.id, true).await? {
                if edge.target == term.id
                    && (kind == EdgeKind::SemanticLink || edge.name == IS_DEFINED_BY)
                {
                    sources.push(edge.source);
                }
            }
        }
        sources.sort();
        sources.dedup();
        let sight = self.sight(caller).await?;
        let mut objects: Vec<Object> = self
            .stored_objects(&sources)
            .await?
            .into_iter()
            .filter(|o| sight.sees(o))
            .collect();
        objects.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
        self.entities(caller, &objects).await
    }
}

fn semantic_link(source: &Object, target: &Object) -> Edge {
    Edge {
        kind: EdgeKind::SemanticLink,
        source: source.id,
        target: target.id,
        name: IS_DEFINED_BY.to_owned(),
        origin: None,
    }
}
