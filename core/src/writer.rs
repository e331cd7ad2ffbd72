//! The model writer: every write to a model's objects, by the model import and the
//! OpenLineage intake, goes through a [`ModelWriter`], the one seam where a change
//! history will be recorded. It owns:
//! - the key of an object within its id space ([`ObjectKey`]: id space, parent, name),
//!   and what the write knows of the objects it found and made by key;
//! - ids, reserved from [`StoreBase::reserve_ids`](crate::store::StoreBase::reserve_ids)
//!   in blocks;
//! - find-or-create of a child ([`ModelWriter::child`]), and the attribute values and
//!   incoming edges a write reads before it changes them;
//! - the ops, held until the write is taken whole ([`ModelWriter::into_ops`], for one
//!   [`Batch`](crate::store::Batch)) or streamed to a write transaction in chunks
//!   ([`ModelWriter::stream`]);
//! - undo on failure: a part of a held write (an event of a batch) that fails takes back
//!   its ops and what the writer learnt and made in it ([`ModelWriter::undo_part`]); a
//!   streamed write is undone by its transaction, which is then never committed.
//!
//! The store's transaction semantics stay the store's: a held write lands in one
//! `apply`, a streamed one in one [`WriteTx`], whole or not at all.

use std::collections::{BTreeSet, HashMap, HashSet};
use std::time::{Duration, Instant};

use tokio::sync::mpsc;

use crate::error::{Error, Result};
use crate::id::{ObjectId, REPOSITORY_MODEL, stable_id};
use crate::model::{
    AttributeValue, Edge, EdgeKind, Object, ObjectKind, REPOSITORY_PROFILE, SystemType, Timestamp,
    TypeName, Value,
};
use crate::pace::YieldEvery;
use crate::store::{Op, Scope, Store, WriteTx, prepare};

/// Ops written to a transaction at once.
const CHUNK: usize = 5_000;
/// Ops streamed between two yields to the runtime's other tasks.
const YIELD_EVERY: u32 = 500;
/// Ids reserved at once per model id space: a write making many objects reserves seldom
/// (the ids a write does not use are left as gaps).
const ID_BLOCK: u64 = 64;

/// Where an object is within its id space, by name under its parent. Repository objects
/// never share one (the store refuses the second); of model objects that do, a writer
/// finds the one the store answers first.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct ObjectKey {
    /// [`REPOSITORY_MODEL`] for repository objects, else the model number.
    pub space: i64,
    /// `None`: the repository root, or the model's top level.
    pub parent: Option<ObjectId>,
    pub name: String,
}

impl ObjectKey {
    pub(crate) fn new(space: i64, parent: Option<ObjectId>, name: impl Into<String>) -> Self {
        Self {
            space,
            parent,
            name: name.into(),
        }
    }

    /// The key the object is stored under.
    pub(crate) fn of(object: &Object) -> Self {
        Self::new(object.id.model, object.parent, object.name.clone())
    }
}

/// What an absent child is made as.
#[derive(Debug, Clone)]
pub(crate) struct Made {
    pub kind: ObjectKind,
    pub object_type: TypeName,
    pub system_type: SystemType,
    /// Its native id; a model object's gives it its stable id too.
    pub native_id: Option<String>,
    pub description: Option<String>,
}

impl Made {
    /// A folder of the repository.
    pub(crate) fn folder(system_type: SystemType) -> Self {
        Self::repository(ObjectKind::Folder, system_type)
    }

    /// A model (its repository object).
    pub(crate) fn model() -> Self {
        Self::repository(ObjectKind::Model, SystemType::Model)
    }

    fn repository(kind: ObjectKind, system_type: SystemType) -> Self {
        Self {
            kind,
            object_type: TypeName::new(REPOSITORY_PROFILE, kind.as_str()),
            system_type,
            native_id: None,
            description: None,
        }
    }

    /// A model object of that type and native id, its physical name its name.
    pub(crate) fn model_object(
        object_type: TypeName,
        system_type: SystemType,
        native_id: String,
    ) -> Self {
        Self {
            kind: ObjectKind::ModelObject,
            object_type,
            system_type,
            native_id: Some(native_id),
            description: None,
        }
    }

    /// The object, not yet written: `id` named `name` under `parent`, made by `user`
    /// at `now`.
    pub(crate) fn object(
        self,
        id: ObjectId,
        parent: Option<ObjectId>,
        name: &str,
        user: ObjectId,
        now: Timestamp,
    ) -> Object {
        let mut object = Object::new(id, self.kind, self.object_type, self.system_type, name);
        if self.kind == ObjectKind::ModelObject {
            object.physical_name = Some(name.to_owned());
            object.stable_id = self.native_id.as_deref().map(|n| stable_id(id.model, n));
        }
        object.parent = parent;
        object.native_id = self.native_id;
        object.description = self.description;
        object.created_at = now;
        object.updated_at = now;
        object.updated_by = Some(user);
        object
    }
}

/// What a part of a held write changed in the writer's view, taken back when it fails.
enum Undo {
    Known(ObjectKey, Option<Box<Object>>),
    Listed(ObjectId),
    Attribute((ObjectId, String), Option<Option<Value>>),
    EdgesRead(EdgeKind, ObjectId),
    /// The edge of the op at that index was added (its op holds it: no copy kept).
    EdgeAdded(usize),
    EdgeRemoved(Edge),
}

/// One write to models' objects, and its view of them: what it found and made by key,
/// the attribute values and incoming edges it read, as its own ops change them.
pub(crate) struct ModelWriter<'s> {
    store: &'s dyn Store,
    user: ObjectId,
    /// Who the write's transactions are recorded as written by.
    author: crate::model::Author,
    now: Timestamp,
    /// Whether each op is checked as it is pushed, as the store checks it ([`prepare`]),
    /// so a part of a held write that the store would refuse is refused alone. A
    /// streamed write leaves it to its transaction.
    check: bool,
    /// Reserved ids not yet used, per id space: the next and the end.
    spare_ids: HashMap<i64, (i64, i64)>,
    known: HashMap<ObjectKey, Object>,
    /// Parents whose children are all known.
    listed: HashSet<ObjectId>,
    /// The objects this write made: nothing hangs on them in the store yet, so their
    /// attributes, edges and children are not read.
    made: HashSet<ObjectId>,
    attributes: HashMap<(ObjectId, String), Option<Value>>,
    edges_into: HashMap<(EdgeKind, ObjectId), BTreeSet<Edge>>,
    ops: Vec<Op>,
    /// Where the current part's ops start, and what undoes the rest of it.
    part_start: usize,
    undo: Vec<Undo>,
}

impl<'s> ModelWriter<'s> {
    /// A write by `user`, now, holding its ops.
    pub(crate) fn new(store: &'s dyn Store, user: ObjectId) -> Self {
        Self {
            store,
            user,
            author: crate::model::Author::user(user),
            now: crate::model::now(),
            check: true,
            spare_ids: HashMap::new(),
            known: HashMap::new(),
            listed: HashSet::new(),
            made: HashSet::new(),
            attributes: HashMap::new(),
            edges_into: HashMap::new(),
            ops: Vec::new(),
            part_start: 0,
            undo: Vec::new(),
        }
    }

    /// The same write, recorded as written by `author`.
    pub(crate) fn by(mut self, author: crate::model::Author) -> Self {
        self.author = author;
        self
    }

    /// Who the write's transactions are recorded as written by.
    pub(crate) fn author(&self) -> crate::model::Author {
        self.author
    }

    /// When the write happens: the time of what it makes and changes.
    pub(crate) fn now(&self) -> Timestamp {
        self.now
    }

    /// Who writes.
    pub(crate) fn user(&self) -> ObjectId {
        self.user
    }

    // ---- ids

    /// An unused object number of the id space, from a block reserved at once
    /// (repository objects, which are few, one at a time).
    pub(crate) async fn next_id(&mut self, space: i64) -> Result<i64> {
        let (next, end) = match self.spare_ids.get(&space) {
            Some(&(next, end)) if next < end => (next, end),
            _ => {
                let count = if space == REPOSITORY_MODEL {
                    1
                } else {
                    ID_BLOCK
                };
                let first = self.store.reserve_ids(space, count).await?;
                (first, first + count as i64)
            }
        };
        self.spare_ids.insert(space, (next + 1, end));
        Ok(next)
    }

    /// `count` consecutive unused object numbers of the id space: the first (0 for none).
    pub(crate) async fn reserve(&mut self, space: i64, count: u64) -> Result<i64> {
        match count {
            0 => Ok(0),
            count => self.store.reserve_ids(space, count).await,
        }
    }

    // ---- objects by key

    /// The object at `key`, as this write knows it or the store has it.
    ///
    /// Names are looked up where a write lands (the OpenLineage intake's folder, its
    /// namespaces' models and harvested databases, a job's object for a sight check):
    /// callers tell a client only whether its write was kept, or whether it sees what
    /// was found, never what was found.
    #[allow(clippy::disallowed_methods)]
    pub(crate) async fn find(&mut self, key: &ObjectKey) -> Result<Option<Object>> {
        if let Some(object) = self.known.get(key) {
            return Ok(Some(object.clone()));
        }
        if self.under_new(key) {
            return Ok(None);
        }
        let found = self
            .store
            .child_by_name(key.space, key.parent, &key.name)
            .await?;
        if let Some(object) = &found {
            self.remember(key.clone(), object.clone());
        }
        Ok(found)
    }

    /// Whether what is not known at `key` does not exist: under a parent listed whole
    /// or made now, or at the top of a model made now.
    fn under_new(&self, key: &ObjectKey) -> bool {
        match key.parent {
            Some(parent) => self.listed.contains(&parent) || self.made.contains(&parent),
            None => {
                key.space != REPOSITORY_MODEL
                    && self.made.contains(&ObjectId::repository(key.space))
            }
        }
    }

    /// The child at `key`; when absent and `made` says what it is, made. A model object
    /// a write made before under the same native id, since moved or renamed (its stable
    /// id stays), is used where it is, not made again.
    pub(crate) async fn child(
        &mut self,
        key: ObjectKey,
        made: Option<Made>,
    ) -> Result<Option<Object>> {
        if let Some(found) = self.find(&key).await? {
            return Ok(Some(found));
        }
        let Some(made) = made else {
            return Ok(None);
        };
        if made.kind == ObjectKind::ModelObject
            && let Some(native) = &made.native_id
            && let Some(moved) = self.moved(key.space, native).await?
        {
            return Ok(Some(moved));
        }
        self.create(key, made).await.map(Some)
    }

    /// Makes the object at `key` (known to be absent) with a new id.
    pub(crate) async fn create(&mut self, key: ObjectKey, made: Made) -> Result<Object> {
        let id = ObjectId::new(key.space, self.next_id(key.space).await?);
        let object = made.object(id, key.parent, &key.name, self.user, self.now);
        self.push(Op::PutObject(object.clone()))?;
        self.made.insert(id);
        self.remember(key, object.clone());
        Ok(object)
    }

    /// The object a write made under this native id, found by its stable id.
    #[allow(clippy::disallowed_methods)]
    async fn moved(&mut self, space: i64, native: &str) -> Result<Option<Object>> {
        if self.made.contains(&ObjectId::repository(space)) {
            return Ok(None);
        }
        let found = self
            .store
            .object_by_stable_id(&stable_id(space, native))
            .await?;
        Ok(found.filter(|o| o.id.model == space))
    }

    /// Writes a changed object again.
    pub(crate) fn update(&mut self, mut object: Object) -> Result<Object> {
        object.updated_at = self.now;
        object.updated_by = Some(self.user);
        self.push(Op::PutObject(object.clone()))?;
        self.remember(ObjectKey::of(&object), object.clone());
        Ok(object)
    }

    /// Reads the children of `parent` (in its id space) into what the write knows, once.
    pub(crate) async fn list(&mut self, parent: ObjectId) -> Result<()> {
        if self.listed.contains(&parent) {
            return Ok(());
        }
        let children = if self.made.contains(&parent) {
            Vec::new()
        } else {
            self.store.children(parent.model, Some(parent)).await?
        };
        for child in children {
            let key = ObjectKey::new(parent.model, Some(parent), child.name.clone());
            if !self.known.contains_key(&key) {
                self.undo.push(Undo::Known(key.clone(), None));
                self.known.insert(key, child);
            }
        }
        self.listed.insert(parent);
        self.undo.push(Undo::Listed(parent));
        Ok(())
    }

    /// The object known at `key`, without a read.
    pub(crate) fn known(&self, key: &ObjectKey) -> Option<&Object> {
        self.known.get(key)
    }

    /// The children of `parent` known to this write (all of them once
    /// [`listed`](Self::list)), in no order, by name.
    pub(crate) fn known_children(&self, parent: ObjectId) -> impl Iterator<Item = (&str, &Object)> {
        self.known
            .iter()
            .filter(move |(key, _)| key.parent == Some(parent))
            .map(|(key, object)| (key.name.as_str(), object))
    }

    fn remember(&mut self, key: ObjectKey, object: Object) {
        let before = self.known.insert(key.clone(), object);
        self.undo.push(Undo::Known(key, before.map(Box::new)));
    }

    // ---- what hangs on objects

    /// The value of an object's attribute, as this write knows it (read once).
    pub(crate) async fn attribute(
        &mut self,
        object: ObjectId,
        name: &str,
    ) -> Result<Option<&Value>> {
        let key = (object, name.to_owned());
        if !self.attributes.contains_key(&key) {
            let stored = if self.made.contains(&object) {
                None
            } else {
                self.store
                    .details(Scope::Objects(vec![object]))
                    .await?
                    .attributes
                    .into_iter()
                    .find(|a| a.attribute == name)
                    .map(|a| a.value)
            };
            self.undo.push(Undo::Attribute(key.clone(), None));
            self.attributes.insert(key.clone(), stored);
        }
        Ok(self.attributes[&key].as_ref())
    }

    /// Sets an attribute's value.
    pub(crate) fn set_attribute(&mut self, value: AttributeValue) -> Result<()> {
        let key = (value.object, value.attribute.clone());
        let kept = value.value.clone();
        self.push(Op::SetAttribute(value))?;
        let before = self.attributes.insert(key.clone(), Some(kept));
        self.undo.push(Undo::Attribute(key, before));
        Ok(())
    }

    /// The edges of `kind` into `target`, as this write knows them (read once).
    pub(crate) async fn edges_into(
        &mut self,
        kind: EdgeKind,
        target: ObjectId,
    ) -> Result<&BTreeSet<Edge>> {
        if !self.edges_into.contains_key(&(kind, target)) {
            let stored = if self.made.contains(&target) {
                BTreeSet::new()
            } else {
                self.store
                    .edges(kind, target, true)
                    .await?
                    .into_iter()
                    .collect()
            };
            self.undo.push(Undo::EdgesRead(kind, target));
            self.edges_into.insert((kind, target), stored);
        }
        Ok(&self.edges_into[&(kind, target)])
    }

    /// Adds an edge.
    pub(crate) async fn add_edge(&mut self, edge: Edge) -> Result<()> {
        self.edges_into(edge.kind, edge.target).await?;
        let at = self.ops.len();
        self.push(Op::AddEdge(edge.clone()))?;
        let into = self
            .edges_into
            .get_mut(&(edge.kind, edge.target))
            .expect("read above");
        if into.insert(edge) {
            self.undo.push(Undo::EdgeAdded(at));
        }
        Ok(())
    }

    /// Removes an edge.
    pub(crate) async fn remove_edge(&mut self, edge: Edge) -> Result<()> {
        self.edges_into(edge.kind, edge.target).await?;
        let into = self
            .edges_into
            .get_mut(&(edge.kind, edge.target))
            .expect("read above");
        if let Some(stored) = into.take(&edge) {
            self.undo.push(Undo::EdgeRemoved(stored));
        }
        self.push(Op::RemoveEdge(edge))
    }

    // ---- ops

    /// Adds an op to the write: every op of a model writer passes here. The typed
    /// methods above keep the writer's view in step; an op pushed here alone (the rows
    /// of an import) is not followed by it.
    pub(crate) fn push(&mut self, mut op: Op) -> Result<()> {
        if self.check {
            prepare(&mut op)?;
        }
        self.ops.push(op);
        Ok(())
    }

    /// Starts a part of a held write (an event of a batch): what the parts before it
    /// did stays, whatever becomes of this one.
    pub(crate) fn begin_part(&mut self) {
        self.part_start = self.ops.len();
        self.undo.clear();
    }

    /// Takes back what the current part did: its ops, and what the writer learnt and
    /// made in it (the ids it took stay reserved, as gaps).
    pub(crate) fn undo_part(&mut self) {
        while let Some(undo) = self.undo.pop() {
            match undo {
                Undo::Known(key, Some(object)) => {
                    self.known.insert(key, *object);
                }
                Undo::Known(key, None) => {
                    self.known.remove(&key);
                }
                Undo::Listed(id) => {
                    self.listed.remove(&id);
                }
                Undo::Attribute(key, Some(value)) => {
                    self.attributes.insert(key, value);
                }
                Undo::Attribute(key, None) => {
                    self.attributes.remove(&key);
                }
                Undo::EdgesRead(kind, target) => {
                    self.edges_into.remove(&(kind, target));
                }
                Undo::EdgeAdded(at) => {
                    if let Some(Op::AddEdge(edge)) = self.ops.get(at)
                        && let Some(into) = self.edges_into.get_mut(&(edge.kind, edge.target))
                    {
                        into.remove(edge);
                    }
                }
                Undo::EdgeRemoved(edge) => {
                    if let Some(into) = self.edges_into.get_mut(&(edge.kind, edge.target)) {
                        into.insert(edge);
                    }
                }
            }
        }
        self.ops.truncate(self.part_start);
    }

    /// The ops held, for one batch.
    pub(crate) fn into_ops(self) -> Vec<Op> {
        self.ops
    }

    /// Writes the ops held so far into `tx`, in chunks of [`CHUNK`]: from then on only
    /// the transaction can take them back.
    pub(crate) async fn write_held(&mut self, tx: &mut (dyn WriteTx + '_)) -> Result<()> {
        let mut ops = std::mem::take(&mut self.ops);
        self.part_start = 0;
        self.undo.clear();
        while !ops.is_empty() {
            let rest = ops.split_off(ops.len().min(CHUNK));
            tx.write(std::mem::replace(&mut ops, rest)).await?;
        }
        Ok(())
    }

    /// Streams the write into `tx`: the ops held so far, then those pushed to the
    /// [`Stream`], in chunks of [`CHUNK`], the store writing each chunk while the next
    /// is read ([`Writing::run`]).
    pub(crate) fn stream<'t>(mut self, tx: Box<dyn WriteTx + 't>) -> (Stream<'s>, Writing<'t>) {
        self.check = false;
        let (chunks, queue) = mpsc::channel(1);
        let stream = Stream {
            writer: self,
            chunks,
            pace: YieldEvery::new(YIELD_EVERY),
        };
        (stream, Writing { tx, queue })
    }
}

/// The reading side of a streamed write: ops pushed here go to the transaction in chunks.
/// Dropping it, finished or not (the reading failed), ends the [`Writing`].
pub(crate) struct Stream<'s> {
    writer: ModelWriter<'s>,
    chunks: mpsc::Sender<Vec<Op>>,
    pace: YieldEvery,
}

impl Stream<'_> {
    /// When the write happens ([`ModelWriter::now`]).
    pub(crate) fn now(&self) -> Timestamp {
        self.writer.now
    }

    /// Who writes.
    pub(crate) fn user(&self) -> ObjectId {
        self.writer.user
    }

    /// Adds an op to the write, sending a full chunk on to the transaction.
    pub(crate) async fn push(&mut self, op: Op) -> Result<()> {
        self.writer.push(op)?;
        if self.writer.ops.len() >= CHUNK {
            self.send().await?;
        }
        // Reading a chunk's rows takes 10-50 ms: the reads queued on this worker run in
        // between, rather than wait for the whole chunk.
        self.pace.tick().await;
        Ok(())
    }

    /// Sends the ops left: the writing ends once they are written.
    pub(crate) async fn finish(mut self) -> Result<()> {
        self.send().await
    }

    /// Sends the ops so far; fails when the writing has stopped on an error.
    async fn send(&mut self) -> Result<()> {
        if self.writer.ops.is_empty() {
            return Ok(());
        }
        let chunk = std::mem::replace(&mut self.writer.ops, Vec::with_capacity(CHUNK));
        self.chunks
            .send(chunk)
            .await
            .map_err(|_| Error::internal("the model writer's transaction stopped"))
    }
}

/// The writing side of a streamed write.
pub(crate) struct Writing<'t> {
    tx: Box<dyn WriteTx + 't>,
    queue: mpsc::Receiver<Vec<Op>>,
}

impl<'t> Writing<'t> {
    /// Writes the chunks the [`Stream`] sends, in order, until it is finished or
    /// dropped; answers the transaction, still open, for the caller to commit (or drop,
    /// undoing the write), and the time the store spent writing.
    pub(crate) async fn run(mut self) -> Result<(Box<dyn WriteTx + 't>, Duration)> {
        let mut busy = Duration::ZERO;
        while let Some(chunk) = self.queue.recv().await {
            let started = Instant::now();
            self.tx.write(chunk).await?;
            busy += started.elapsed();
        }
        Ok((self.tx, busy))
    }
}
