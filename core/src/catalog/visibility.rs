//! What a caller may see. The View Metadata capability held globally shows everything;
//! held through object roles it shows the objects the roles are granted on, their
//! subtrees of the repository and, for every model among them, the model's objects.
//! The ancestors of those objects stay hidden (a folder above a granted model is not
//! shown), and a caller who holds View Metadata nowhere is refused.
//!
//! An object the caller cannot see does not exist for them. [`Catalog::find`] is the one
//! way from a name a client wrote (id, stable id, repository path) to an object: it
//! answers a [`Visible`] object or exactly the "not found" a name matching nothing gets,
//! so no answer tells a hidden object from a missing one. The raw lookup is private to
//! this module, and the methods that act on one object take a [`Visible`], which only
//! this module makes. (`clippy.toml` forbids the store's single-object reads elsewhere.)
//!
//! Lists and queries apply the caller's [`Sight`]: MQL queries carry it as the plan's
//! visibility condition, so the database filters, pages and counts only what the caller
//! may see; browsing and entity reads test each object against it.

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use super::Catalog;
use crate::auth::{Caller, Granted};
use crate::error::{Error, ErrorCode, Result};
use crate::id::{ObjectId, ObjectRef, REPOSITORY_MODEL};
use crate::model::{Capability, Object, ObjectKind};
use crate::mql::plan::{Cond, Within};

/// The repository objects sight follows: each one's parent, and the models among them.
#[derive(Debug, Default)]
pub(crate) struct Tree {
    parents: HashMap<ObjectId, Option<ObjectId>>,
    models: Vec<ObjectId>,
}

/// The repository's [`Tree`] read last, with the repository version it was read at
/// ([`ObjectStore::repository_version`](crate::store::ObjectStore::repository_version)).
#[derive(Debug, Default)]
pub(crate) struct KeptTree(Mutex<Option<(i64, Arc<Tree>)>>);

impl KeptTree {
    fn get(&self, version: i64) -> Option<Arc<Tree>> {
        match &*self.0.lock().unwrap_or_else(PoisonError::into_inner) {
            Some((kept, tree)) if *kept == version => Some(Arc::clone(tree)),
            _ => None,
        }
    }

    fn keep(&self, version: i64, tree: Arc<Tree>) {
        *self.0.lock().unwrap_or_else(PoisonError::into_inner) = Some((version, tree));
    }
}

/// The objects a caller may see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Sight {
    /// View Metadata globally.
    Everything,
    /// View Metadata through object roles: the repository objects the caller sees (the
    /// granted ones and their subtrees), and the models among them, whose objects the
    /// caller sees.
    Granted(Arc<Granted>),
}

impl Sight {
    /// Whether the caller may see the object.
    pub(crate) fn sees(&self, object: &Object) -> bool {
        self.sees_id(object.id)
    }

    /// Whether the caller may see the object of that id (which need not exist).
    pub(crate) fn sees_id(&self, id: ObjectId) -> bool {
        match self {
            Sight::Everything => true,
            Sight::Granted(granted) => {
                if id.is_repository() {
                    granted.repository.contains(&id)
                } else {
                    granted.models.contains(&id.model)
                }
            }
        }
    }

    /// The condition an MQL plan's visibility slot takes: the objects of visible
    /// models and the models themselves (MQL finds nothing else).
    pub(crate) fn condition(&self) -> Cond {
        match self {
            Sight::Everything => Cond::True,
            Sight::Granted(granted) if granted.models.is_empty() => Cond::False,
            Sight::Granted(granted) => Cond::Within(Within {
                models: granted.models.iter().copied().collect(),
                subtrees: Vec::new(),
            }),
        }
    }
}

/// Fails with PERMISSION_DENIED unless the caller holds View Metadata globally or on
/// some object: the check of calls that read no object (types, worksheets, definitions),
/// made without reading the store.
pub(crate) fn require_view_somewhere(caller: &Caller) -> Result<()> {
    let on_objects = caller
        .object_grants()
        .iter()
        .any(|(_, capabilities)| capabilities.contains(&Capability::ViewMetadata));
    if on_objects {
        return Ok(());
    }
    caller.require(Capability::ViewMetadata)
}

impl Catalog {
    /// What the caller may see; PERMISSION_DENIED when they hold View Metadata nowhere.
    /// Costs no read for a caller with View Metadata globally, and a read of the
    /// repository objects (not of model objects) otherwise.
    pub(crate) async fn sight(&self, caller: &Caller) -> Result<Sight> {
        if caller.has(Capability::ViewMetadata) {
            return Ok(Sight::Everything);
        }
        match self.granted(caller, Capability::ViewMetadata).await? {
            Some(granted) => Ok(Sight::Granted(granted)),
            None => Err(Error::forbidden(format!(
                "user '{}' lacks the capability ViewMetadata, globally and on every object",
                caller.name()
            ))),
        }
    }

    /// The condition under which an object's profiled and sampled data is hidden from
    /// the caller (spec rest-api 5.7, mql 2.7): the object's data is hidden (its Hide
    /// Data attribute, or a matched or approved data class or sensitivity label that
    /// hides data) and the caller lacks View Data on it. `Cond::False` for a caller with
    /// View Data globally.
    pub(crate) async fn hidden_data(&self, caller: &Caller) -> Result<Cond> {
        if caller.has(Capability::ViewData) {
            return Ok(Cond::False);
        }
        let granted = self.granted(caller, Capability::ViewData).await?;
        let Some(granted) = granted.filter(|g| !g.models.is_empty()) else {
            return Ok(Cond::DataHidden);
        };
        Ok(Cond::and(vec![
            Cond::DataHidden,
            Cond::not(Cond::Within(Within {
                models: granted.models.iter().copied().collect(),
                subtrees: Vec::new(),
            })),
        ]))
    }

    /// The objects (models and their objects) on which the caller holds the capability,
    /// as a plan condition: `True` when held globally.
    pub(crate) async fn holds_capability(
        &self,
        caller: &Caller,
        capability: Capability,
    ) -> Result<Cond> {
        if caller.has(capability) {
            return Ok(Cond::True);
        }
        let granted = self.granted(caller, capability).await?;
        Ok(match granted.filter(|g| !g.models.is_empty()) {
            None => Cond::False,
            Some(granted) => Cond::Within(Within {
                models: granted.models.iter().copied().collect(),
                subtrees: Vec::new(),
            }),
        })
    }

    /// The repository's tree at the repository version read just before: read once per
    /// version and kept for every caller and request while no repository object changes
    /// (in this process or any other over the same database); read each time from a
    /// store that keeps no version.
    async fn repository_tree(&self, version: Option<i64>) -> Result<Arc<Tree>> {
        // The version was read before the tree: a write between the two leaves a tree
        // newer than its version, which the next call reads again.
        if let Some(version) = version
            && let Some(tree) = self.tree.get(version)
        {
            return Ok(tree);
        }
        let mut tree = Tree::default();
        for kind in [
            ObjectKind::Folder,
            ObjectKind::Configuration,
            ObjectKind::ConfigurationVersion,
            ObjectKind::Model,
        ] {
            for object in self.store.objects_of_kind(kind).await? {
                if kind == ObjectKind::Model {
                    tree.models.push(object.id);
                }
                tree.parents.insert(object.id, object.parent);
            }
        }
        let tree = Arc::new(tree);
        if let Some(version) = version {
            self.tree.keep(version, Arc::clone(&tree));
        }
        Ok(tree)
    }

    /// What the caller holds the capability on through object roles; `None` when they
    /// hold it on no object. Worked out once per request (and repository version): kept
    /// on the caller ([`Caller::seen`]) for the request's other calls.
    async fn granted(
        &self,
        caller: &Caller,
        capability: Capability,
    ) -> Result<Option<Arc<Granted>>> {
        let roots: BTreeSet<ObjectId> = caller
            .object_grants()
            .iter()
            .filter(|(_, capabilities)| capabilities.contains(&capability))
            .map(|(object, _)| *object)
            .collect();
        if roots.is_empty() {
            return Ok(None);
        }
        let version = self.store.repository_version().await?;
        if let Some(version) = version
            && let Some(granted) = caller.seen().get(capability, version)
        {
            return Ok(Some(granted));
        }
        let tree = self.repository_tree(version).await?;
        let granted = Arc::new(granted_subtrees(&tree, &roots));
        if let Some(version) = version {
            caller
                .seen()
                .keep(capability, version, Arc::clone(&granted));
        }
        Ok(Some(granted))
    }

    /// The object a client named, if the caller may see it; otherwise exactly the
    /// error a name that matches nothing gets (see [`not_found`]). A caller who holds
    /// View Metadata nowhere is refused first, whatever the name.
    pub(crate) async fn find(&self, caller: &Caller, reference: &ObjectRef) -> Result<Visible> {
        require_view_somewhere(caller)?;
        let Some(object) = self.lookup(reference).await? else {
            return Err(not_found(reference));
        };
        // A path names every folder on the way: it exists for the caller only when all
        // of them do, that is when its first one does (sight runs down the tree).
        let through = match reference {
            ObjectRef::Path(names) if names.len() > 1 && !caller.has(Capability::ViewMetadata) => {
                self.lookup(&ObjectRef::Path(names[..1].to_vec())).await?
            }
            _ => None,
        };
        if self
            .sees(caller, through.as_ref().unwrap_or(&object), None)
            .await?
        {
            Ok(Visible(object))
        } else {
            Err(not_found(reference))
        }
    }

    /// The repository path of a visible repository object as the caller may read it:
    /// its path when every folder on it is visible to them, else its id (which names it
    /// as well, without the folders they cannot see).
    pub(crate) async fn shown_path(&self, caller: &Caller, object: &Object) -> Result<String> {
        let (path, top) = self.path_and_top(object).await?;
        if self.sees(caller, &top, None).await? {
            Ok(path)
        } else {
            Ok(object.id.to_string())
        }
    }

    /// The object an entity read found for the reference (`None`: nothing), if the
    /// caller may see it; otherwise what [`Catalog::find`] answers. For reads that fetch
    /// an object together with more than `find` reads (an entity with its details). With
    /// the read's repository version, the model's ancestry may be one kept at it.
    pub(crate) async fn shown(
        &self,
        caller: &Caller,
        reference: &ObjectRef,
        found: Option<Object>,
        repository_version: Option<i64>,
    ) -> Result<Visible> {
        require_view_somewhere(caller)?;
        match found {
            Some(object) if self.sees(caller, &object, repository_version).await? => {
                Ok(Visible(object))
            }
            _ => Err(not_found(reference)),
        }
    }

    /// [`Catalog::find`] of an identifier given as text.
    pub(crate) async fn find_text(&self, caller: &Caller, text: &str) -> Result<Visible> {
        self.find(caller, &ObjectRef::parse(text)?).await
    }

    /// [`Catalog::find`] of an object id (one a client wrote, or one a stored record
    /// holds).
    pub(crate) async fn find_id(&self, caller: &Caller, id: ObjectId) -> Result<Visible> {
        self.find(caller, &ObjectRef::Id(id)).await
    }

    /// The object of that id if it exists and the caller may see it; `None` for both a
    /// missing and a hidden one. For ids a stored record holds (a grant's object, an
    /// edge's target), which a caller's answer must not reveal either way.
    pub(crate) async fn visible_id(
        &self,
        caller: &Caller,
        id: ObjectId,
    ) -> Result<Option<Visible>> {
        match self.find_id(caller, id).await {
            Ok(object) => Ok(Some(object)),
            Err(e) if e.code == ErrorCode::ObjectNotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Whether the caller may see the object, reading only the object's ancestors (none
    /// for a caller with View Metadata globally), not the whole repository as
    /// [`Catalog::sight`] does. Given the repository version of the read that found the
    /// object, the ancestors may be ones kept at it ([`Catalog::grant_chain_at`]).
    async fn sees(
        &self,
        caller: &Caller,
        object: &Object,
        repository_version: Option<i64>,
    ) -> Result<bool> {
        if caller.has(Capability::ViewMetadata) {
            return Ok(true);
        }
        let granted = |chain: &[ObjectId]| {
            caller.object_grants().iter().any(|(on, capabilities)| {
                capabilities.contains(&Capability::ViewMetadata) && chain.contains(on)
            })
        };
        Ok(match repository_version {
            Some(version) => granted(&self.grant_chain_at(object.id, version).await?),
            None => granted(&self.grant_chain(object.id).await?),
        })
    }

    /// The object a reference names, whoever asks: private to this module, so request
    /// code reaches objects only through [`Catalog::find`]. A path walks the repository
    /// tree and, past a model, that model's objects.
    #[allow(clippy::disallowed_methods)]
    async fn lookup(&self, reference: &ObjectRef) -> Result<Option<Object>> {
        match reference {
            ObjectRef::Id(id) => self.store.object(*id).await,
            ObjectRef::StableId(stable) => self.store.object_by_stable_id(stable).await,
            ObjectRef::Path(names) => {
                let mut space = REPOSITORY_MODEL;
                let mut parent: Option<ObjectId> = None;
                let mut found: Option<Object> = None;
                for name in names {
                    let Some(next) = self.store.child_by_name(space, parent, name).await? else {
                        return Ok(None);
                    };
                    if next.kind == ObjectKind::Model {
                        space = next.id.content_model();
                        parent = None;
                    } else {
                        parent = Some(next.id);
                    }
                    found = Some(next);
                }
                Ok(found)
            }
        }
    }

    /// The stored object of an id, whoever asks: for the server's own work on ids it
    /// already holds (ancestors of a visible object, a grant's anchor), never for a name
    /// a client wrote.
    #[allow(clippy::disallowed_methods)]
    pub(crate) async fn stored_object(&self, id: ObjectId) -> Result<Option<Object>> {
        self.store.object(id).await
    }

    /// The stored objects of ids the server already holds, whoever asks, sorted by id:
    /// ids a query answered under the caller's sight, the ends of edges and the targets
    /// of references the caller's visible objects hold (each caller filters them by its
    /// sight before it shows any), never ids a client wrote.
    #[allow(clippy::disallowed_methods)]
    pub(crate) async fn stored_objects(&self, ids: &[ObjectId]) -> Result<Vec<Object>> {
        self.store.objects(ids).await
    }

    /// [`Catalog::stored_objects`] with what hangs on them, from one snapshot: for ids
    /// the server already holds, as there.
    #[allow(clippy::disallowed_methods)]
    pub(crate) async fn stored_with_details(
        &self,
        ids: &[ObjectId],
    ) -> Result<(Vec<Object>, crate::store::Details)> {
        self.store.objects_with_details(ids).await
    }
}

/// An object the caller may see. Only this module makes one, so a method that takes a
/// `Visible` cannot act on an object its caller was not shown.
#[derive(Debug, Clone)]
pub(crate) struct Visible(Object);

impl Visible {
    /// The object itself.
    pub(crate) fn into_object(self) -> Object {
        self.0
    }
}

impl std::ops::Deref for Visible {
    type Target = Object;
    fn deref(&self) -> &Object {
        &self.0
    }
}

/// What a name that matches nothing answers, in the caller's own words: the same for a
/// missing object and a hidden one, naming nothing but what the caller wrote.
pub(crate) fn not_found(reference: &ObjectRef) -> Error {
    match reference {
        ObjectRef::Id(id) => Error::not_found(format!("object {id} does not exist")),
        ObjectRef::StableId(stable) => {
            Error::not_found(format!("no object has stable id '{stable}'"))
        }
        ObjectRef::Path(names) if names.is_empty() => Error::new(
            ErrorCode::InvalidRepositoryPath,
            "the repository root '/' is not an object",
        ),
        ObjectRef::Path(names) => Error::new(
            ErrorCode::InvalidRepositoryPath,
            format!("repository path '/{}' does not exist", names.join("/")),
        ),
    }
}

/// The repository objects at or below the roots, and the model numbers of the models
/// among them.
fn granted_subtrees(tree: &Tree, roots: &BTreeSet<ObjectId>) -> Granted {
    let (parents, models) = (&tree.parents, tree.models.iter().copied());
    let mut repository = BTreeSet::new();
    for &id in parents.keys() {
        let mut next = Some(id);
        let mut steps = 0;
        while let Some(at) = next {
            if roots.contains(&at) {
                repository.insert(id);
                break;
            }
            steps += 1;
            if steps > 10_000 {
                break;
            }
            next = parents.get(&at).copied().flatten();
        }
    }
    let models = models
        .filter(|m| repository.contains(m))
        .map(ObjectId::content_model)
        .collect();
    Granted { repository, models }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_tree_answers_only_at_its_version() {
        let kept = KeptTree::default();
        assert!(kept.get(1).is_none());
        let tree = Arc::new(Tree {
            parents: HashMap::from([(ObjectId::repository(2), None)]),
            models: vec![ObjectId::repository(2)],
        });
        kept.keep(1, Arc::clone(&tree));
        assert!(kept.get(1).is_some_and(|t| Arc::ptr_eq(&t, &tree)));
        assert!(
            kept.get(2).is_none(),
            "another version reads the tree again"
        );
        kept.keep(2, Arc::new(Tree::default()));
        assert!(kept.get(1).is_none(), "one tree is kept, the last read");
    }
}
