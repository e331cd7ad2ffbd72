//! What a memory store keeps of the past: a revision per batch, the version each current
//! row of a kept table was written at, and the images its batches replaced or removed,
//! by the object they belong to (the source, for an edge). The same history the SQL
//! stores keep in their `_history` tables (migration 34).

use std::collections::{BTreeMap, HashMap};

use lore_core::id::ObjectId;
use lore_core::model::{
    AttributeValue, Classification, Curation, Edge, EdgeKind, Grant, LabelAssignment, ModelVersion,
    ModelVersionCounts, Object, ObjectHistory, Revision, Tag, Versioned,
};

/// A row of a kept table, by its key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum RowKey {
    Object(ObjectId),
    Attribute(ObjectId, String),
    /// Source, kind, target, name.
    Edge(ObjectId, EdgeKind, ObjectId, String),
    Tag(Tag),
    Classification(ObjectId, String),
    Label(ObjectId, String),
}

impl RowKey {
    /// The object whose history the row belongs to.
    pub(crate) fn owner(&self) -> ObjectId {
        match self {
            RowKey::Object(id)
            | RowKey::Attribute(id, _)
            | RowKey::Edge(id, ..)
            | RowKey::Classification(id, _)
            | RowKey::Label(id, _) => *id,
            RowKey::Tag(tag) => tag.object,
        }
    }
}

/// An image of a row of any kept table.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Image {
    Object(Box<Object>),
    Attribute(AttributeValue),
    Edge(Edge),
    Tag(Tag),
    Classification(Classification),
    Label(LabelAssignment),
}

/// The kept history of a memory store.
#[derive(Debug, Clone)]
pub(crate) struct History {
    /// The catalog's version: moves with every batch of ops.
    pub(crate) version: i64,
    pub(crate) revisions: BTreeMap<i64, Revision>,
    /// The version each current row was written at; absent: 0.
    pub(crate) since: HashMap<RowKey, i64>,
    /// Replaced and removed images by owner, oldest first.
    pub(crate) past: HashMap<ObjectId, ObjectHistory>,
    /// The versions of models imports made, oldest first.
    pub(crate) model_versions: Vec<KeptVersion>,
    /// The revision from which on the history is kept whole (a purge's): what is older
    /// cannot be read.
    pub(crate) floor: i64,
    /// Curation and grants, kept apart (no as-of read reads them; their retention is
    /// their own): the version each current entry was written at (absent: 0) and the
    /// replaced and removed images, oldest first.
    pub(crate) social: Social,
}

/// What a memory store keeps of curation's and grants' past.
#[derive(Debug, Clone, Default)]
pub(crate) struct Social {
    pub(crate) curation_since: HashMap<i64, i64>,
    pub(crate) grant_since: HashMap<Grant, i64>,
    /// By the object curated.
    pub(crate) curation_past: HashMap<ObjectId, Vec<Versioned<Curation>>>,
    pub(crate) grant_past: Vec<Versioned<Grant>>,
}

impl Social {
    /// Notes that a curation entry changed from `old` to `now` in the batch of `version`.
    pub(crate) fn curation(&mut self, id: i64, old: Option<Curation>, now: bool, version: i64) {
        let from = if now {
            self.curation_since.insert(id, version)
        } else {
            self.curation_since.remove(&id)
        }
        .unwrap_or(0);
        if let Some(row) = old {
            self.curation_past
                .entry(row.object)
                .or_default()
                .push(Versioned {
                    from,
                    to: Some(version),
                    row,
                });
        }
    }

    /// Notes that a grant was given (`now`) or taken back in the batch of `version`.
    pub(crate) fn grant(&mut self, grant: Grant, now: bool, version: i64) {
        if now {
            self.grant_since.insert(grant, version);
        } else {
            let from = self.grant_since.remove(&grant).unwrap_or(0);
            self.grant_past.push(Versioned {
                from,
                to: Some(version),
                row: grant,
            });
        }
    }

    /// Forgets the images replaced or removed at or before `floor`; answers how many.
    pub(crate) fn purge(&mut self, floor: i64) -> u64 {
        fn keep<T>(images: &mut Vec<Versioned<T>>, floor: i64) -> u64 {
            let before = images.len();
            images.retain(|i| i.to.is_none_or(|to| to > floor));
            (before - images.len()) as u64
        }
        let mut purged = keep(&mut self.grant_past, floor);
        for past in self.curation_past.values_mut() {
            purged += keep(past, floor);
        }
        self.curation_past.retain(|_, p| !p.is_empty());
        purged
    }
}

/// A model version as a memory store keeps it: at the version of its batch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct KeptVersion {
    pub(crate) version: i64,
    pub(crate) number: i64,
    pub(crate) counts: ModelVersionCounts,
}

impl History {
    /// Notes that the row of `key` changed from `old` in the batch of `version`: the old
    /// image is kept, and the row now current (if any) dates from `version`.
    pub(crate) fn changed(&mut self, key: RowKey, old: Option<Image>, exists: bool, version: i64) {
        let from = if exists {
            self.since.insert(key.clone(), version)
        } else {
            self.since.remove(&key)
        }
        .unwrap_or(0);
        let Some(old) = old else {
            return;
        };
        let past = self.past.entry(key.owner()).or_default();
        let to = Some(version);
        match old {
            Image::Object(row) => past.objects.push(Versioned {
                from,
                to,
                row: *row,
            }),
            Image::Attribute(row) => past.attributes.push(Versioned { from, to, row }),
            Image::Edge(row) => past.edges.push(Versioned { from, to, row }),
            Image::Tag(row) => past.tags.push(Versioned { from, to, row }),
            Image::Classification(row) => past.classifications.push(Versioned { from, to, row }),
            Image::Label(row) => past.labels.push(Versioned { from, to, row }),
        }
    }

    /// The oldest revision that can be read: the floor, or the oldest kept after it.
    pub(crate) fn oldest(&self) -> Option<&Revision> {
        self.revisions.range(self.floor..).next().map(|(_, r)| r)
    }

    /// Forgets the images no version from `floor` on reads and the model versions before
    /// it; answers how many images went (see `HistoryRecords::purge_history`).
    pub(crate) fn purge(&mut self, floor: i64) -> u64 {
        if floor <= self.floor || !self.revisions.contains_key(&floor) {
            return 0;
        }
        let oldest = self.revisions.keys().next().copied().unwrap_or(0);
        if floor < oldest {
            return 0;
        }
        fn keep<T>(images: &mut Vec<Versioned<T>>, floor: i64) -> u64 {
            let before = images.len();
            images.retain(|i| i.to.is_none_or(|to| to > floor));
            (before - images.len()) as u64
        }
        let mut purged = 0;
        for past in self.past.values_mut() {
            purged += keep(&mut past.objects, floor);
            purged += keep(&mut past.attributes, floor);
            purged += keep(&mut past.edges, floor);
            purged += keep(&mut past.tags, floor);
            purged += keep(&mut past.classifications, floor);
            purged += keep(&mut past.labels, floor);
        }
        self.past.retain(|_, p| {
            !(p.objects.is_empty()
                && p.attributes.is_empty()
                && p.edges.is_empty()
                && p.tags.is_empty()
                && p.classifications.is_empty()
                && p.labels.is_empty())
        });
        self.model_versions.retain(|v| v.version >= floor);
        self.floor = floor;
        purged
    }

    /// Of every model with at least `keep` versions, the version of its `keep`-th
    /// newest; the oldest of those.
    pub(crate) fn versions_floor(&self, keep: usize) -> Option<i64> {
        let mut by_model: HashMap<i64, Vec<i64>> = HashMap::new();
        for v in &self.model_versions {
            by_model.entry(v.counts.model).or_default().push(v.version);
        }
        by_model
            .values()
            .filter_map(|versions| {
                let at = versions.len().checked_sub(keep.max(1))?;
                versions.get(at).copied()
            })
            .min()
    }

    /// Takes in a restore's part of a backup's history (see
    /// [`RestoredHistory`](lore_core::store::RestoredHistory)), once the batch's rows are
    /// recorded: the rows current in the backup are current since when it says.
    /// Answers the rows it made current since the backup's version: the caller forgets
    /// those the restore did not write.
    pub(crate) fn restore(&mut self, restored: lore_core::store::RestoredHistory) -> Vec<RowKey> {
        use lore_core::store::RestoredHistory;
        match restored {
            RestoredHistory::Revision(revision) => {
                self.revisions.insert(revision.version, revision);
            }
            RestoredHistory::Images(images) => return self.restore_images(*images),
            RestoredHistory::ModelVersion {
                version,
                number,
                counts,
            } => {
                self.model_versions.push(KeptVersion {
                    version,
                    number,
                    counts,
                });
                self.model_versions.sort_by_key(|v| v.version);
            }
            RestoredHistory::Floor(floor) => self.floor = floor,
            // Applied with its op, before the batch's revision is numbered.
            RestoredHistory::Advance(_) => {}
        }
        Vec::new()
    }

    /// A restore's images: the replaced ones kept, the current ones' rows current since
    /// their `from`.
    fn restore_images(&mut self, images: ObjectHistory) -> Vec<RowKey> {
        let mut made = Vec::new();
        for i in images.objects {
            match i.to {
                None => {
                    made.push(RowKey::Object(i.row.id));
                    self.since.insert(RowKey::Object(i.row.id), i.from);
                }
                Some(_) => self.past.entry(i.row.id).or_default().objects.push(i),
            }
        }
        for i in images.attributes {
            match i.to {
                None => {
                    let key = RowKey::Attribute(i.row.object, i.row.attribute.clone());
                    made.push(key.clone());
                    self.since.insert(key, i.from);
                }
                Some(_) => self
                    .past
                    .entry(i.row.object)
                    .or_default()
                    .attributes
                    .push(i),
            }
        }
        for i in images.edges {
            match i.to {
                None => {
                    let e = &i.row;
                    let key = RowKey::Edge(e.source, e.kind, e.target, e.name.clone());
                    made.push(key.clone());
                    self.since.insert(key, i.from);
                }
                Some(_) => self.past.entry(i.row.source).or_default().edges.push(i),
            }
        }
        for i in images.tags {
            match i.to {
                None => {
                    made.push(RowKey::Tag(i.row.clone()));
                    self.since.insert(RowKey::Tag(i.row.clone()), i.from);
                }
                Some(_) => self.past.entry(i.row.object).or_default().tags.push(i),
            }
        }
        for i in images.classifications {
            match i.to {
                None => {
                    let key = RowKey::Classification(i.row.object, i.row.data_class.clone());
                    made.push(key.clone());
                    self.since.insert(key, i.from);
                }
                Some(_) => {
                    let past = self.past.entry(i.row.object).or_default();
                    past.classifications.push(i);
                }
            }
        }
        for i in images.labels {
            match i.to {
                None => {
                    let key = RowKey::Label(i.row.object, i.row.label.clone());
                    made.push(key.clone());
                    self.since.insert(key, i.from);
                }
                Some(_) => self.past.entry(i.row.object).or_default().labels.push(i),
            }
        }
        let social = &mut self.social;
        for i in images.curation {
            match i.to {
                None => drop(social.curation_since.insert(i.row.id, i.from)),
                Some(_) => social
                    .curation_past
                    .entry(i.row.object)
                    .or_default()
                    .push(i),
            }
        }
        for i in images.grants {
            match i.to {
                None => drop(social.grant_since.insert(i.row.clone(), i.from)),
                Some(_) => social.grant_past.push(i),
            }
        }
        made
    }

    /// The version a current row was written at.
    pub(crate) fn since(&self, key: &RowKey) -> i64 {
        self.since.get(key).copied().unwrap_or(0)
    }
}

impl Default for History {
    /// A new store's: its first revision, of the empty catalog, now.
    fn default() -> Self {
        Self {
            version: 0,
            revisions: BTreeMap::from([(
                0,
                Revision {
                    version: 0,
                    at: lore_core::model::now(),
                    author: lore_core::model::Author::system(),
                },
            )]),
            since: HashMap::new(),
            past: HashMap::new(),
            model_versions: Vec::new(),
            floor: 0,
            social: Social::default(),
        }
    }
}

impl crate::state::State {
    /// Every image of the object's rows, current and past, oldest first; at most `limit`
    /// of each list, the newest.
    pub(crate) fn object_history(&self, id: ObjectId, limit: usize) -> ObjectHistory {
        let mut history = self.history.past.get(&id).cloned().unwrap_or_default();
        let mut current = |key: RowKey| {
            let from = self.history.since(&key);
            match self.image(&key) {
                Some(Image::Object(row)) => history.objects.push(Versioned {
                    from,
                    to: None,
                    row: *row,
                }),
                Some(Image::Attribute(row)) => history.attributes.push(Versioned {
                    from,
                    to: None,
                    row,
                }),
                Some(Image::Edge(row)) => history.edges.push(Versioned {
                    from,
                    to: None,
                    row,
                }),
                Some(Image::Tag(row)) => history.tags.push(Versioned {
                    from,
                    to: None,
                    row,
                }),
                Some(Image::Classification(row)) => history.classifications.push(Versioned {
                    from,
                    to: None,
                    row,
                }),
                Some(Image::Label(row)) => history.labels.push(Versioned {
                    from,
                    to: None,
                    row,
                }),
                None => {}
            }
        };
        current(RowKey::Object(id));
        for (object, attribute) in self
            .attributes
            .range((id, String::new())..)
            .take_while(|((o, _), _)| *o == id)
            .map(|(k, _)| k.clone())
            .collect::<Vec<_>>()
        {
            current(RowKey::Attribute(object, attribute));
        }
        for (source, kind, target, name) in self
            .edges_out
            .range((id, first_kind(), crate::state::MIN_ID, String::new())..)
            .take_while(|(s, ..)| *s == id)
            .cloned()
            .collect::<Vec<_>>()
        {
            current(RowKey::Edge(source, kind, target, name));
        }
        let first_tag = Tag {
            object: id,
            kind: lore_core::model::TagKind::Label,
            value: String::new(),
        };
        for tag in self
            .tags
            .range(first_tag..)
            .take_while(|t| t.object == id)
            .cloned()
            .collect::<Vec<_>>()
        {
            current(RowKey::Tag(tag));
        }
        for (object, class) in self
            .classifications
            .range((id, String::new())..)
            .take_while(|((o, _), _)| *o == id)
            .map(|(k, _)| k.clone())
            .collect::<Vec<_>>()
        {
            current(RowKey::Classification(object, class));
        }
        for (object, label) in self
            .labels
            .range((id, String::new())..)
            .take_while(|((o, _), _)| *o == id)
            .map(|(k, _)| k.clone())
            .collect::<Vec<_>>()
        {
            current(RowKey::Label(object, label));
        }
        let social = &self.history.social;
        history.curation = social.curation_past.get(&id).cloned().unwrap_or_default();
        for (_, entry_id) in self
            .curation_by_object
            .range((id, i64::MIN)..)
            .take_while(|(o, _)| *o == id)
        {
            if let Some(row) = self.curation.get(entry_id) {
                history.curation.push(Versioned {
                    from: social.curation_since.get(entry_id).copied().unwrap_or(0),
                    to: None,
                    row: row.clone(),
                });
            }
        }
        history.grants = social
            .grant_past
            .iter()
            .filter(|i| i.row.object == Some(id))
            .cloned()
            .collect();
        for (_, grant) in self
            .grants_on
            .range((id, crate::state::MIN_GRANT)..)
            .take_while(|(o, _)| *o == id)
        {
            history.grants.push(Versioned {
                from: social.grant_since.get(grant).copied().unwrap_or(0),
                to: None,
                row: grant.clone(),
            });
        }
        fn newest<T>(images: &mut Vec<Versioned<T>>, limit: usize) -> bool {
            images.sort_by_key(|i| (i.from, i.to.is_none()));
            let cut = images.len() > limit;
            if cut {
                images.drain(..images.len() - limit);
            }
            cut
        }
        let mut cut = newest(&mut history.objects, limit);
        cut |= newest(&mut history.attributes, limit);
        cut |= newest(&mut history.edges, limit);
        cut |= newest(&mut history.tags, limit);
        cut |= newest(&mut history.classifications, limit);
        cut |= newest(&mut history.labels, limit);
        cut |= newest(&mut history.curation, limit);
        cut |= newest(&mut history.grants, limit);
        history.truncated = cut;
        history
    }

    /// Every image of the grants of server-wide roles, current and past, oldest first;
    /// at most `limit`, the newest, and whether some were left out.
    pub(crate) fn server_grant_history(&self, limit: usize) -> (Vec<Versioned<Grant>>, bool) {
        let social = &self.history.social;
        let mut images: Vec<Versioned<Grant>> = social
            .grant_past
            .iter()
            .filter(|i| i.row.object.is_none())
            .cloned()
            .collect();
        images.extend(
            self.grants
                .iter()
                .filter(|g| g.object.is_none())
                .map(|g| Versioned {
                    from: social.grant_since.get(g).copied().unwrap_or(0),
                    to: None,
                    row: g.clone(),
                }),
        );
        images.sort_by_key(|i| (i.from, i.to.is_none()));
        let cut = images.len() > limit;
        if cut {
            images.drain(..images.len() - limit);
        }
        (images, cut)
    }
}

/// The smallest edge kind, to start a range of one source's edges.
fn first_kind() -> EdgeKind {
    EdgeKind::ALL
        .iter()
        .min()
        .copied()
        .unwrap_or(EdgeKind::ALL[0])
}

impl crate::state::State {
    /// The edges from and to the object current at `version`, sorted: the current ones
    /// written by then, and the kept ones whose interval holds it.
    pub(crate) fn edges_as_of(&self, id: ObjectId, version: i64) -> Vec<Edge> {
        let mut edges: Vec<Edge> = Vec::new();
        let outgoing = self
            .edges_out
            .range((id, first_kind(), crate::state::MIN_ID, String::new())..)
            .take_while(|(s, ..)| *s == id);
        let incoming = self
            .edges_in
            .range((id, first_kind(), crate::state::MIN_ID, String::new())..)
            .take_while(|(t, ..)| *t == id)
            .map(|(t, k, s, n)| (*s, *k, *t, n.clone()));
        let current: Vec<(ObjectId, EdgeKind, ObjectId, String)> =
            outgoing.cloned().chain(incoming).collect();
        for (source, kind, target, name) in current {
            let key = RowKey::Edge(source, kind, target, name);
            if self.history.since(&key) <= version
                && let Some(Image::Edge(edge)) = self.image(&key)
            {
                edges.push(edge);
            }
        }
        for past in self.history.past.values() {
            for image in &past.edges {
                if (image.row.source == id || image.row.target == id) && image.current_at(version) {
                    edges.push(image.row.clone());
                }
            }
        }
        edges.sort();
        edges.dedup();
        edges
    }
}

impl crate::state::State {
    /// The objects of the model whose kept rows a version after `from` and up to `to`
    /// wrote, replaced or removed, by id, at most `limit`.
    pub(crate) fn objects_changed_between(
        &self,
        model: i64,
        from: i64,
        to: i64,
        limit: usize,
    ) -> Vec<ObjectId> {
        let between = |v: i64| from < v && v <= to;
        let mut found = std::collections::BTreeSet::new();
        for (key, since) in &self.history.since {
            let owner = key.owner();
            if owner.model == model && between(*since) {
                found.insert(owner);
            }
        }
        for (owner, past) in &self.history.past {
            if owner.model != model {
                continue;
            }
            fn touched<T>(images: &[Versioned<T>], between: impl Fn(i64) -> bool) -> bool {
                images
                    .iter()
                    .any(|i| between(i.from) || i.to.is_some_and(&between))
            }
            if touched(&past.objects, between)
                || touched(&past.attributes, between)
                || touched(&past.edges, between)
                || touched(&past.tags, between)
                || touched(&past.classifications, between)
                || touched(&past.labels, between)
            {
                found.insert(*owner);
            }
        }
        found.into_iter().take(limit).collect()
    }

    /// The objects of any model whose kept rows, or edges from or to them, a version
    /// after `after` wrote, replaced or removed, by id, at most `limit`.
    pub(crate) fn objects_changed_after(&self, after: i64, limit: usize) -> Vec<ObjectId> {
        let later = |v: i64| v > after;
        let mut found = std::collections::BTreeSet::new();
        for (key, since) in &self.history.since {
            if later(*since) {
                found.insert(key.owner());
                if let RowKey::Edge(_, _, target, _) = key {
                    found.insert(*target);
                }
            }
        }
        fn touched<T>(image: &Versioned<T>, later: impl Fn(i64) -> bool) -> bool {
            later(image.from) || image.to.is_some_and(later)
        }
        for (owner, past) in &self.history.past {
            if past.objects.iter().any(|i| touched(i, later))
                || past.attributes.iter().any(|i| touched(i, later))
                || past.edges.iter().any(|i| touched(i, later))
                || past.tags.iter().any(|i| touched(i, later))
                || past.classifications.iter().any(|i| touched(i, later))
                || past.labels.iter().any(|i| touched(i, later))
            {
                found.insert(*owner);
            }
            for edge in past.edges.iter().filter(|i| touched(i, later)) {
                found.insert(edge.row.target);
            }
        }
        found.into_iter().take(limit).collect()
    }

    /// The model's versions that are kept, oldest first.
    pub(crate) fn model_versions(&self, model: i64) -> Vec<ModelVersion> {
        self.history
            .model_versions
            .iter()
            .filter(|v| v.counts.model == model)
            .filter_map(|v| {
                let revision = *self.history.revisions.get(&v.version)?;
                Some(ModelVersion {
                    number: v.number,
                    revision,
                    counts: v.counts,
                })
            })
            .collect()
    }
}

impl crate::state::State {
    /// The catalog's objects and what hangs on them as they were at `version`, the rest
    /// (definitions, users, profiling, curation) as it is now: what a plan as of that
    /// version reads. A copy of the whole state, rewound: rows written after the
    /// version are taken out, and the kept images current at it put back.
    pub(crate) fn as_of(&self, version: i64) -> crate::state::State {
        let mut then = self.clone();
        for (key, since) in &self.history.since {
            if *since <= version {
                continue;
            }
            match key.clone() {
                RowKey::Object(id) => {
                    then.set_object(id, None);
                }
                RowKey::Attribute(object, name) => {
                    then.set_attribute(object, name, None);
                }
                RowKey::Edge(source, kind, target, name) => {
                    then.set_edge(
                        Edge {
                            kind,
                            source,
                            target,
                            name,
                            origin: None,
                        },
                        false,
                    );
                }
                RowKey::Tag(tag) => {
                    then.set_tag(tag, false);
                }
                RowKey::Classification(object, class) => {
                    then.classifications.remove(&(object, class));
                }
                RowKey::Label(object, label) => {
                    then.labels.remove(&(object, label));
                }
            }
        }
        for past in self.history.past.values() {
            for image in past.objects.iter().filter(|i| i.current_at(version)) {
                then.set_object(image.row.id, Some(image.row.clone()));
            }
            for image in past.attributes.iter().filter(|i| i.current_at(version)) {
                let row = image.row.clone();
                then.set_attribute(row.object, row.attribute, Some(row.value));
            }
            for image in past.edges.iter().filter(|i| i.current_at(version)) {
                then.set_edge(image.row.clone(), true);
            }
            for image in past.tags.iter().filter(|i| i.current_at(version)) {
                then.set_tag(image.row.clone(), true);
            }
            for image in past
                .classifications
                .iter()
                .filter(|i| i.current_at(version))
            {
                let row = &image.row;
                then.classifications
                    .insert((row.object, row.data_class.clone()), row.status);
            }
            for image in past.labels.iter().filter(|i| i.current_at(version)) {
                let row = &image.row;
                then.labels
                    .insert((row.object, row.label.clone()), row.status);
            }
        }
        then
    }
}
