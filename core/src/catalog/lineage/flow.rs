//! Lineage: the operations along the data flow of an object, upstream and downstream
//! (`GET /lineage/getOperations/{startingId}`). The store walks the lineage edges inside
//! the database, breadth first, within the bounds the caller gives; the catalog keeps
//! what the caller sees.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;

use super::Lineage;
use crate::auth::Caller;
use crate::catalog::objects::browse::embedded;
use crate::error::{Error, Result};
use crate::id::ObjectId;
use crate::model::{LineageBounds, Object};
use crate::wire::EmbeddedEntity;

/// The deepest walk a caller may ask for.
pub const MAX_LINEAGE_DEPTH: u32 = 20;
/// The most lineage edges followed from one object.
pub const MAX_LINEAGE_FAN_OUT: u32 = 1_000;
/// The most operations one answer holds.
pub const MAX_LINEAGE_OPERATIONS: u32 = 10_000;

/// The parameters of getOperations as the client wrote them.
#[derive(Debug, Clone, Default)]
pub struct LineageRequest {
    /// `upstream`, `downstream` or `both` (the default).
    pub direction: Option<String>,
    /// How many edges away from the starting object (default 5, at most 20).
    pub depth: Option<String>,
    /// How many edges are followed from each object (default 100, at most 1,000).
    pub fan_out: Option<String>,
    /// How many operations the answer holds (default 1,000, at most 10,000).
    pub limit: Option<String>,
}

/// The operations along the data flow of an object.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LineageOperations {
    pub starting_object: EmbeddedEntity,
    /// Upstream operations first, then downstream; each direction nearest first.
    pub operations: Vec<LineageOperation>,
    /// Whether a bound cut the answer: more operations than `limit`, or a walk larger
    /// than the store walks at once.
    pub truncated: bool,
    pub depth: u32,
    pub fan_out: u32,
    pub limit: u32,
}

/// One operation: data flows from `source` to `target`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LineageOperation {
    /// `UPSTREAM` (feeds the starting object) or `DOWNSTREAM` (is fed by it).
    pub direction: &'static str,
    /// How many edges away from the starting object: 1 for its own.
    pub depth: u32,
    pub source: EmbeddedEntity,
    pub target: EmbeddedEntity,
    /// The operation and its transformation logic, as the lineage names it.
    pub operation: String,
}

/// A whole number from 1 to `max` given as text, `default` when absent.
pub(in crate::catalog) fn bounded(
    text: Option<&str>,
    name: &str,
    default: u32,
    max: u32,
) -> Result<u32> {
    match text.map(str::trim).filter(|t| !t.is_empty()) {
        None => Ok(default),
        Some(t) => t
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=max).contains(n))
            .ok_or_else(|| {
                Error::invalid(format!(
                    "parameter '{name}' must be a whole number from 1 to {max}, not '{t}'"
                ))
            }),
    }
}

impl Lineage<'_> {
    /// `GET /lineage/getOperations/{startingId}` (View Metadata on the object). An
    /// operation shows when the caller sees both of its objects and reaches it from the
    /// starting object through objects they see.
    pub async fn lineage_operations(
        &self,
        caller: &Caller,
        start: &str,
        request: &LineageRequest,
    ) -> Result<LineageOperations> {
        self.operations_at(caller, start, request, None).await
    }

    /// `GET /lineage/getOperations/{startingId}?asOf=`: the operations as they were at
    /// the revision `asOf` names, between the objects as they were then, with today's
    /// sight; a starting object that did not exist then is not found.
    pub async fn lineage_operations_as_of(
        &self,
        caller: &Caller,
        start: &str,
        request: &LineageRequest,
        as_of: crate::catalog::AsOf,
    ) -> Result<LineageOperations> {
        self.operations_at(caller, start, request, Some(as_of))
            .await
    }

    async fn operations_at(
        &self,
        caller: &Caller,
        start: &str,
        request: &LineageRequest,
        as_of: Option<crate::catalog::AsOf>,
    ) -> Result<LineageOperations> {
        crate::catalog::visibility::require_view_somewhere(caller)?;
        let (upstream, downstream) = match request
            .direction
            .as_deref()
            .map(str::trim)
            .filter(|d| !d.is_empty())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            None | Some("both") => (true, true),
            Some("upstream") => (true, false),
            Some("downstream") => (false, true),
            Some(other) => {
                return Err(Error::invalid(format!(
                    "parameter 'direction' is upstream, downstream or both, not '{other}'"
                )));
            }
        };
        let bounds = LineageBounds {
            depth: bounded(request.depth.as_deref(), "depth", 5, MAX_LINEAGE_DEPTH)?,
            fan_out: bounded(
                request.fan_out.as_deref(),
                "fanOut",
                100,
                MAX_LINEAGE_FAN_OUT,
            )?,
            limit: bounded(
                request.limit.as_deref(),
                "limit",
                1_000,
                MAX_LINEAGE_OPERATIONS,
            )?,
        };
        let (object, version) = match as_of {
            None => (self.find_text(caller, start).await?.into_object(), None),
            Some(as_of) => {
                let history = self.history();
                let reference = crate::id::ObjectRef::parse(start)?;
                let (object, version) = history.object_as_of(caller, &reference, as_of).await?;
                (object, Some(version))
            }
        };
        let sight = self.sight(caller).await?;

        let mut walks = Vec::new();
        for (wanted, downstream) in [(upstream, false), (downstream, true)] {
            if wanted {
                let walk = match version {
                    None => self.store.lineage(object.id, downstream, bounds).await?,
                    Some(version) => {
                        walk_as_of(&*self.store, object.id, downstream, bounds, version).await?
                    }
                };
                walks.push((downstream, walk));
            }
        }
        let mut ids: Vec<ObjectId> = walks
            .iter()
            .flat_map(|(_, walk)| walk.edges.iter())
            .flat_map(|(edge, _)| [edge.source, edge.target])
            .collect();
        ids.sort();
        ids.dedup();
        ids.retain(|id| sight.sees_id(*id));
        let found = match version {
            None => self.stored_objects(&ids).await?,
            Some(version) => {
                let mut then = Vec::with_capacity(ids.len());
                for id in &ids {
                    then.extend(self.store.entity_as_of(*id, version).await?.0);
                }
                then
            }
        };
        let objects: BTreeMap<ObjectId, Object> = found
            .into_iter()
            .filter(|o| sight.sees(o))
            .map(|o| (o.id, o))
            .collect();

        let mut operations = Vec::new();
        let mut truncated = false;
        for (downstream, walk) in walks {
            truncated |= walk.truncated;
            // Nearest first: an edge counts when its near end was reached through
            // objects the caller sees.
            let mut reached: HashSet<ObjectId> = HashSet::from([object.id]);
            for (edge, depth) in walk.edges {
                let (near, far) = if downstream {
                    (edge.source, edge.target)
                } else {
                    (edge.target, edge.source)
                };
                let (Some(source), Some(target)) =
                    (objects.get(&edge.source), objects.get(&edge.target))
                else {
                    continue;
                };
                if !reached.contains(&near) {
                    continue;
                }
                reached.insert(far);
                operations.push(LineageOperation {
                    direction: if downstream { "DOWNSTREAM" } else { "UPSTREAM" },
                    depth,
                    source: embedded(source),
                    target: embedded(target),
                    operation: edge.name,
                });
            }
        }
        Ok(LineageOperations {
            starting_object: embedded(&object),
            operations,
            truncated,
            depth: bounds.depth,
            fan_out: bounds.fan_out,
            limit: bounds.limit,
        })
    }
}

/// Objects a walk as of a version expands at most: each is a read of the store.
const MOST_NODES_AS_OF: usize = 2_000;

/// [`ObjectStore::lineage`](crate::store::ObjectStore::lineage) of the lineage edges
/// current at `version` ([`HistoryRecords::edges_as_of`](crate::store::HistoryRecords::edges_as_of)):
/// the same walk, breadth first within the bounds, each edge once at the smallest depth
/// of its near end plus one, an object's edges by the other end, then name. Truncated
/// past [`MOST_NODES_AS_OF`] objects.
async fn walk_as_of(
    store: &dyn crate::store::Store,
    start: ObjectId,
    downstream: bool,
    bounds: LineageBounds,
    version: i64,
) -> Result<crate::model::LineageWalk> {
    use std::collections::{BTreeSet, HashMap};

    use crate::model::{Edge, EdgeKind};

    let mut followed: HashMap<ObjectId, Vec<Edge>> = HashMap::new();
    let mut truncated = false;
    let near = |e: &Edge| if downstream { e.source } else { e.target };
    let far = |e: &Edge| if downstream { e.target } else { e.source };
    let mut nearest: BTreeMap<ObjectId, u32> = BTreeMap::from([(start, 0)]);
    let mut level: BTreeSet<ObjectId> = BTreeSet::from([start]);
    for depth in 1..=bounds.depth {
        let mut next = BTreeSet::new();
        for node in &level {
            if !followed.contains_key(node) {
                if followed.len() >= MOST_NODES_AS_OF {
                    truncated = true;
                    continue;
                }
                let edges: Vec<Edge> = store
                    .edges_as_of(*node, version)
                    .await?
                    .into_iter()
                    .filter(|e| e.kind == EdgeKind::Lineage && near(e) == *node)
                    .take(bounds.fan_out as usize)
                    .collect();
                followed.insert(*node, edges);
            }
            next.extend(followed[node].iter().map(far));
        }
        for node in &next {
            nearest.entry(*node).or_insert(depth);
        }
        level = next;
        if level.is_empty() {
            break;
        }
    }
    let mut edges: Vec<(Edge, u32)> = nearest
        .iter()
        .filter(|(_, depth)| **depth < bounds.depth)
        .flat_map(|(node, depth)| {
            followed
                .get(node)
                .into_iter()
                .flatten()
                .map(move |e| (e.clone(), depth + 1))
        })
        .collect();
    edges.sort_by(|(a, da), (b, db)| {
        da.cmp(db)
            .then(a.source.cmp(&b.source))
            .then(a.target.cmp(&b.target))
            .then(a.name.cmp(&b.name))
    });
    truncated |= edges.len() > bounds.limit as usize;
    edges.truncate(bounds.limit as usize);
    Ok(crate::model::LineageWalk { edges, truncated })
}
