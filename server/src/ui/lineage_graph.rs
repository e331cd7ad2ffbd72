//! The lineage graph of the object page, assembled from getOperations answers and laid
//! out on the server: layers by Sugiyama's method (rust-sugiyama), data flowing left to
//! right, drawn as SVG by the template. Pure: no catalog here, so it is tested and
//! benchmarked alone.

use std::collections::{BTreeSet, HashMap, HashSet, VecDeque};

use lore_core::catalog::LineageOperation;
use lore_core::wire::EmbeddedEntity;

/// The most objects a graph shows; the page says how many there were.
pub const MAX_NODES: usize = 2_000;
/// The most objects one layer shows; the rest become one "+N more" node.
pub const MAX_LAYER: usize = 50;

/// Size of a node's box, and the room between layers and between nodes of a layer.
pub const NODE_WIDTH: f64 = 220.0;
pub const NODE_HEIGHT: f64 = 46.0;
const LAYER_GAP: f64 = 110.0;
const NODE_GAP: f64 = 18.0;
const MARGIN: f64 = 40.0;

/// What the graph is asked to show.
#[derive(Debug, Clone, Default)]
pub struct Shape {
    /// Edges from the starting object shown (1 to 5).
    pub depth: u32,
    /// Show columns as nodes of their own; otherwise a column's lineage is drawn
    /// between the tables (or views, files, ...) that hold the columns.
    pub columns: bool,
    /// The object whose paths to and from the starting object are highlighted.
    pub focus: Option<String>,
    /// Draw every object up to [`MAX_NODES`]: no layer collapses.
    pub all: bool,
}

/// One getOperations answer: around the starting object (`center: None`, walked to
/// `depth + 1`), or around an object the user expanded (walked to 2).
#[derive(Debug, Clone)]
pub struct Walk {
    pub center: Option<String>,
    pub operations: Vec<LineageOperation>,
    pub truncated: bool,
}

/// A node of the drawn graph.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub id: String,
    pub name: String,
    pub kind: String,
    /// Edges from the starting object: negative upstream, positive downstream.
    pub layer: i32,
    /// Neighbours not drawn, upstream and downstream (expanding shows them).
    pub more_up: usize,
    pub more_down: usize,
    pub start: bool,
    pub on_path: bool,
    /// A "+N more" node standing for `collapsed` objects of its layer.
    pub collapsed: usize,
    pub x: f64,
    pub y: f64,
}

/// An edge: data flows from `from` to `to` (indexes into the nodes).
#[derive(Debug, Clone, PartialEq)]
pub struct Edge {
    pub from: usize,
    pub to: usize,
    /// The operations (and their transformation) of the lineage edges it stands for.
    pub operations: Vec<String>,
    pub on_path: bool,
    /// The SVG path of its curve.
    pub d: String,
}

/// The laid-out graph.
#[derive(Debug, Clone, Default)]
pub struct Graph {
    pub nodes: Vec<Node>,
    pub edges: Vec<Edge>,
    /// Objects within the depth (before the caps).
    pub total: usize,
    /// Objects drawn (the "+N more" nodes not counted).
    pub shown: usize,
    /// Whether the store's bounds cut a walk (there may be more than `total`).
    pub truncated: bool,
    pub width: f64,
    pub height: f64,
}

/// An object of the answers, with what it is drawn as.
#[derive(Debug, Clone)]
struct Member {
    entity: EmbeddedEntity,
}

/// Assembles the graph. `parents` names the parent (table, view, file, ...) of each
/// column or field (an object of a `Feature` type) the answers hold, and only of them:
/// an object with a parent there is drawn as its parent's lineage, or, with columns
/// shown, named after it.
pub fn assemble(
    start: &EmbeddedEntity,
    walks: &[Walk],
    shape: &Shape,
    parents: &HashMap<String, EmbeddedEntity>,
) -> Graph {
    let start_drawn = drawn_as(start, shape, parents);
    let walked = Walked::gather(&start_drawn, walks, shape, parents);
    let layer = layers(&start_drawn.id, &walked.drawn);
    let total = walked.members.len();
    let ids = capped(&walked.members, &layer);
    let mut placement =
        Placement::by_layer(ids, &layer, &walked.members, &start_drawn, walks, shape);
    let shown = placement.nodes.iter().filter(|n| n.collapsed == 0).count();
    let mut edges = merged_edges(&walked.drawn, &placement);
    placement.count_hidden_neighbours(&walked);
    let Placement {
        mut nodes, index, ..
    } = placement;

    if let Some(focus) = shape.focus.as_deref().and_then(|f| index.get(f).copied())
        && let Some(&start) = index.get(&start_drawn.id)
    {
        highlight(&mut nodes, &mut edges, start, focus);
    }
    let mut graph = Graph {
        nodes,
        edges,
        total,
        shown,
        truncated: walked.truncated,
        width: 0.0,
        height: 0.0,
    };
    lay_out(&mut graph);
    graph
}

/// What an object is drawn as: itself, or its parent when columns are grouped.
fn drawn_as(
    e: &EmbeddedEntity,
    shape: &Shape,
    parents: &HashMap<String, EmbeddedEntity>,
) -> EmbeddedEntity {
    if !shape.columns
        && let Some(parent) = parents.get(&e.id)
    {
        return parent.clone();
    }
    let mut e = e.clone();
    if let Some(parent) = parents.get(&e.id) {
        e.name = format!("{}.{}", parent.name, e.name);
    }
    e
}

/// What the walks found, each object as it is drawn.
struct Walked {
    /// The objects within reach, the start among them, by id.
    members: HashMap<String, Member>,
    /// (source, target, operation) of the edges drawn.
    drawn: Vec<(String, String, String)>,
    /// (source, target) of the edges beyond reach.
    frontier: Vec<(String, String)>,
    /// Whether the store's bounds cut a walk.
    truncated: bool,
}

impl Walked {
    /// Gathers the objects and edges within reach of each walk (the depth around the
    /// start, one edge around an expanded object) and the frontier beyond.
    fn gather(
        start_drawn: &EmbeddedEntity,
        walks: &[Walk],
        shape: &Shape,
        parents: &HashMap<String, EmbeddedEntity>,
    ) -> Self {
        let mut members: HashMap<String, Member> = HashMap::new();
        members.insert(
            start_drawn.id.clone(),
            Member {
                entity: start_drawn.clone(),
            },
        );
        // (source, target) -> operations, for drawn and for frontier edges.
        let mut drawn: Vec<(String, String, String)> = Vec::new();
        let mut frontier: Vec<(String, String)> = Vec::new();
        let mut truncated = false;
        for walk in walks {
            truncated |= walk.truncated;
            let reach = if walk.center.is_some() {
                1
            } else {
                shape.depth
            };
            for op in &walk.operations {
                let (source, target) = (
                    drawn_as(&op.source, shape, parents),
                    drawn_as(&op.target, shape, parents),
                );
                if source.id == target.id {
                    continue;
                }
                if op.depth <= reach {
                    for e in [&source, &target] {
                        members
                            .entry(e.id.clone())
                            .or_insert_with(|| Member { entity: e.clone() });
                    }
                    drawn.push((source.id, target.id, op.operation.clone()));
                } else {
                    frontier.push((source.id, target.id));
                }
            }
        }
        // An edge of the frontier between two drawn objects is drawn too.
        for (s, t) in &frontier {
            if members.contains_key(s) && members.contains_key(t) {
                drawn.push((s.clone(), t.clone(), String::new()));
            }
        }
        Self {
            members,
            drawn,
            frontier,
            truncated,
        }
    }
}

/// Layers: breadth first from the start, +1 along the flow, -1 against it.
fn layers(start: &str, drawn: &[(String, String, String)]) -> HashMap<String, i32> {
    let mut out: HashMap<&str, Vec<&str>> = HashMap::new();
    let mut into: HashMap<&str, Vec<&str>> = HashMap::new();
    for (s, t, _) in drawn {
        out.entry(s.as_str()).or_default().push(t.as_str());
        into.entry(t.as_str()).or_default().push(s.as_str());
    }
    let mut layer: HashMap<String, i32> = HashMap::new();
    let mut queue = VecDeque::from([(start.to_owned(), 0i32)]);
    layer.insert(start.to_owned(), 0);
    while let Some((id, l)) = queue.pop_front() {
        let steps = out
            .get(id.as_str())
            .into_iter()
            .flatten()
            .map(|n| (*n, l + 1))
            .chain(
                into.get(id.as_str())
                    .into_iter()
                    .flatten()
                    .map(|n| (*n, l - 1)),
            );
        for (next, nl) in steps.collect::<Vec<_>>() {
            if !layer.contains_key(next) {
                layer.insert(next.to_owned(), nl);
                queue.push_back((next.to_owned(), nl));
            }
        }
    }
    layer
}

/// The cap: the [`MAX_NODES`] objects nearest the start, nearest first, then by name.
fn capped(members: &HashMap<String, Member>, layer: &HashMap<String, i32>) -> Vec<String> {
    let mut ids: Vec<String> = members.keys().cloned().collect();
    ids.sort_by(|a, b| {
        let (la, lb) = (
            layer.get(a).copied().unwrap_or(0),
            layer.get(b).copied().unwrap_or(0),
        );
        la.abs()
            .cmp(&lb.abs())
            .then_with(|| members[a].entity.name.cmp(&members[b].entity.name))
            .then_with(|| a.cmp(b))
    });
    ids.truncate(MAX_NODES);
    ids
}

/// The nodes and where each object is drawn: in a node of its own, or in its layer's
/// "+N more".
struct Placement {
    nodes: Vec<Node>,
    /// The node of each object drawn on its own.
    index: HashMap<String, usize>,
    /// The "+N more" node of each object a layer collapsed.
    collapsed_into: HashMap<String, usize>,
}

impl Placement {
    /// The nodes, layer by layer; layers over [`MAX_LAYER`] keep the start, the focus and
    /// the expanded objects first and collapse the rest into one "+N more" node.
    fn by_layer(
        ids: Vec<String>,
        layer: &HashMap<String, i32>,
        members: &HashMap<String, Member>,
        start_drawn: &EmbeddedEntity,
        walks: &[Walk],
        shape: &Shape,
    ) -> Self {
        let keep_first: HashSet<&str> = walks
            .iter()
            .filter_map(|w| w.center.as_deref())
            .chain(shape.focus.as_deref())
            .chain([start_drawn.id.as_str()])
            .collect();
        let mut by_layer: std::collections::BTreeMap<i32, Vec<String>> = Default::default();
        for id in ids {
            by_layer
                .entry(layer.get(&id).copied().unwrap_or(0))
                .or_default()
                .push(id);
        }
        let mut nodes: Vec<Node> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        let mut collapsed_into: HashMap<String, usize> = HashMap::new();
        for (l, mut in_layer) in by_layer {
            in_layer.sort_by_key(|id| !keep_first.contains(id.as_str()));
            let hidden = if !shape.all && in_layer.len() > MAX_LAYER {
                in_layer.split_off(MAX_LAYER)
            } else {
                Vec::new()
            };
            for id in in_layer {
                let e = &members[&id].entity;
                index.insert(id.clone(), nodes.len());
                nodes.push(Node {
                    start: id == start_drawn.id,
                    id,
                    name: e.name.clone(),
                    kind: e.object_type.display_name.clone(),
                    layer: l,
                    more_up: 0,
                    more_down: 0,
                    on_path: false,
                    collapsed: 0,
                    x: 0.0,
                    y: 0.0,
                });
            }
            if !hidden.is_empty() {
                let at = nodes.len();
                nodes.push(Node {
                    id: format!("more:{l}"),
                    name: format!("+{} more", hidden.len()),
                    kind: String::new(),
                    layer: l,
                    more_up: 0,
                    more_down: 0,
                    start: false,
                    on_path: false,
                    collapsed: hidden.len(),
                    x: 0.0,
                    y: 0.0,
                });
                for id in hidden {
                    collapsed_into.insert(id, at);
                }
            }
        }
        Self {
            nodes,
            index,
            collapsed_into,
        }
    }

    /// The node an object is drawn in, if any: its own or its layer's "+N more".
    fn place(&self, id: &str) -> Option<usize> {
        self.index
            .get(id)
            .or_else(|| self.collapsed_into.get(id))
            .copied()
    }

    /// Neighbours not drawn: the frontier, and objects the caps left out, counted
    /// upstream and downstream of each node.
    fn count_hidden_neighbours(&mut self, walked: &Walked) {
        let mut more_up: HashMap<usize, HashSet<&str>> = HashMap::new();
        let mut more_down: HashMap<usize, HashSet<&str>> = HashMap::new();
        for (s, t) in walked
            .frontier
            .iter()
            .map(|(s, t)| (s, t))
            .chain(walked.drawn.iter().map(|(s, t, _)| (s, t)))
        {
            match (self.index.get(s.as_str()), self.index.get(t.as_str())) {
                (Some(&a), None) if self.place(t).is_none() => {
                    more_down.entry(a).or_default().insert(t.as_str());
                }
                (None, Some(&b)) if self.place(s).is_none() => {
                    more_up.entry(b).or_default().insert(s.as_str());
                }
                _ => {}
            }
        }
        for (i, node) in self.nodes.iter_mut().enumerate() {
            node.more_up = more_up.get(&i).map_or(0, HashSet::len);
            node.more_down = more_down.get(&i).map_or(0, HashSet::len);
        }
    }
}

/// Edges between drawn nodes (a collapsed object's edges go to its "+N more"): one per
/// pair of nodes, with the operations of the lineage edges it stands for.
fn merged_edges(drawn: &[(String, String, String)], placement: &Placement) -> Vec<Edge> {
    let mut merged: std::collections::BTreeMap<(usize, usize), BTreeSet<String>> =
        Default::default();
    for (s, t, op) in drawn {
        if let (Some(a), Some(b)) = (placement.place(s), placement.place(t))
            && a != b
        {
            let ops = merged.entry((a, b)).or_default();
            if !op.is_empty() {
                ops.insert(op.clone());
            }
        }
    }
    merged
        .into_iter()
        .map(|((from, to), ops)| Edge {
            from,
            to,
            operations: ops.into_iter().collect(),
            on_path: false,
            d: String::new(),
        })
        .collect()
}

/// Marks the nodes and edges on the paths between the start and the focus, either way.
fn highlight(nodes: &mut [Node], edges: &mut [Edge], start: usize, focus: usize) {
    let reach = |from: usize, forward: bool| -> HashSet<usize> {
        let mut seen = HashSet::from([from]);
        let mut queue = vec![from];
        while let Some(n) = queue.pop() {
            for e in edges.iter() {
                let (a, b) = if forward {
                    (e.from, e.to)
                } else {
                    (e.to, e.from)
                };
                if a == n && seen.insert(b) {
                    queue.push(b);
                }
            }
        }
        seen
    };
    let (from_start, to_start) = (reach(start, true), reach(start, false));
    let (from_focus, to_focus) = (reach(focus, true), reach(focus, false));
    let downstream: HashSet<usize> = from_start.intersection(&to_focus).copied().collect();
    let upstream: HashSet<usize> = from_focus.intersection(&to_start).copied().collect();
    for e in edges.iter_mut() {
        e.on_path = (downstream.contains(&e.from) && downstream.contains(&e.to))
            || (upstream.contains(&e.from) && upstream.contains(&e.to));
    }
    for (i, n) in nodes.iter_mut().enumerate() {
        n.on_path = downstream.contains(&i) || upstream.contains(&i);
    }
}

/// Coordinates: rust-sugiyama orders each layer (fewer crossings) and places nodes
/// along it; its layers become columns, data flowing left to right. Components are
/// stacked top to bottom.
fn lay_out(graph: &mut Graph) {
    if graph.nodes.is_empty() {
        return;
    }
    let vertices: Vec<(u32, (f64, f64))> = (0..graph.nodes.len())
        .map(|i| (i as u32, (NODE_HEIGHT + NODE_GAP, NODE_WIDTH)))
        .collect();
    let edges: Vec<(u32, u32)> = graph
        .edges
        .iter()
        .map(|e| (e.from as u32, e.to as u32))
        .collect();
    let config = rust_sugiyama::configure::Config {
        vertex_spacing: 1.0,
        ..Default::default()
    };
    let components = rust_sugiyama::from_vertices_and_edges(&vertices, &edges, &config);
    let mut top = MARGIN;
    let mut width: f64 = 0.0;
    for (coordinates, _, _) in components {
        // Their y is the layer; their x the place along it.
        let mut levels: Vec<f64> = coordinates.iter().map(|(_, (_, y))| *y).collect();
        levels.sort_by(f64::total_cmp);
        levels.dedup();
        let min_x = coordinates
            .iter()
            .map(|(_, (x, _))| *x)
            .fold(f64::INFINITY, f64::min);
        let mut bottom = top;
        for (i, (x, y)) in coordinates {
            let rank = levels.partition_point(|l| *l < y) as f64;
            let node = &mut graph.nodes[i];
            node.x = MARGIN + rank * (NODE_WIDTH + LAYER_GAP);
            node.y = top + (x - min_x);
            bottom = bottom.max(node.y + NODE_HEIGHT);
            width = width.max(node.x + NODE_WIDTH);
        }
        top = bottom + NODE_GAP * 3.0;
    }
    graph.width = width + MARGIN;
    graph.height = top + MARGIN;
    for e in &mut graph.edges {
        let (a, b) = (&graph.nodes[e.from], &graph.nodes[e.to]);
        let (sx, sy) = (a.x + NODE_WIDTH, a.y + NODE_HEIGHT / 2.0);
        let (tx, ty) = (b.x, b.y + NODE_HEIGHT / 2.0);
        let bend = ((tx - sx).abs() / 2.0).max(40.0);
        e.d = format!(
            "M{sx:.1},{sy:.1} C{:.1},{sy:.1} {:.1},{ty:.1} {tx:.1},{ty:.1}",
            sx + bend,
            tx - bend
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_core::wire::TypeRef;

    fn entity(id: &str, kind: &str) -> EmbeddedEntity {
        EmbeddedEntity {
            id: id.into(),
            name: id.into(),
            object_type: TypeRef {
                name: kind.into(),
                display_name: kind.into(),
            },
        }
    }

    fn op(direction: &'static str, depth: u32, s: &str, t: &str) -> LineageOperation {
        LineageOperation {
            direction,
            depth,
            source: entity(s, "Table"),
            target: entity(t, "Table"),
            operation: format!("{s}->{t}"),
        }
    }

    #[test]
    fn one_hop_shows_neighbours_and_counts_the_rest() {
        let walks = [Walk {
            center: None,
            operations: vec![
                op("UPSTREAM", 1, "a", "s"),
                op("DOWNSTREAM", 1, "s", "b"),
                op("DOWNSTREAM", 2, "b", "c"),
                op("DOWNSTREAM", 2, "b", "d"),
            ],
            truncated: false,
        }];
        let shape = Shape {
            depth: 1,
            ..Shape::default()
        };
        let g = assemble(&entity("s", "Table"), &walks, &shape, &HashMap::new());
        let names: Vec<&str> = g.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(g.nodes.len(), 3, "{names:?}");
        let b = g.nodes.iter().find(|n| n.id == "b").unwrap();
        assert_eq!((b.layer, b.more_down, b.more_up), (1, 2, 0));
        let a = g.nodes.iter().find(|n| n.id == "a").unwrap();
        assert_eq!(a.layer, -1);
        assert!(
            a.x < g.nodes.iter().find(|n| n.start).unwrap().x,
            "upstream is left"
        );
        assert_eq!(g.edges.len(), 2);
        assert!(g.edges.iter().all(|e| e.d.starts_with('M')));
    }

    #[test]
    fn columns_are_drawn_as_their_tables_unless_asked() {
        let col = |id: &str| entity(id, "Column");
        let walks = [Walk {
            center: None,
            operations: vec![LineageOperation {
                direction: "DOWNSTREAM",
                depth: 1,
                source: col("t1.a"),
                target: col("t2.b"),
                operation: "copy".into(),
            }],
            truncated: false,
        }];
        let parents = HashMap::from([
            ("t1.a".to_owned(), entity("t1", "Table")),
            ("t2.b".to_owned(), entity("t2", "Table")),
        ]);
        let mut shape = Shape {
            depth: 1,
            ..Shape::default()
        };
        let g = assemble(&col("t1.a"), &walks, &shape, &parents);
        let ids: BTreeSet<&str> = g.nodes.iter().map(|n| n.id.as_str()).collect();
        assert_eq!(ids, BTreeSet::from(["t1", "t2"]));
        assert_eq!(g.edges[0].operations, ["copy"]);
        shape.columns = true;
        let g = assemble(&col("t1.a"), &walks, &shape, &parents);
        let names: BTreeSet<&str> = g.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(names, BTreeSet::from(["t1.t1.a", "t2.t2.b"]));
    }

    #[test]
    fn a_wide_layer_collapses_and_the_path_to_the_focus_is_marked() {
        let mut ops = Vec::new();
        for i in 0..120 {
            ops.push(op("DOWNSTREAM", 1, "s", &format!("n{i:03}")));
        }
        ops.push(op("DOWNSTREAM", 2, "n001", "z"));
        let walks = [Walk {
            center: None,
            operations: ops,
            truncated: false,
        }];
        let mut shape = Shape {
            depth: 2,
            columns: false,
            focus: Some("z".into()),
            all: true,
        };
        let g = assemble(&entity("s", "Table"), &walks, &shape, &HashMap::new());
        assert_eq!(g.nodes.len(), 122, "all: nothing collapses");
        shape.all = false;
        let g = assemble(&entity("s", "Table"), &walks, &shape, &HashMap::new());
        assert_eq!(g.total, 122);
        let more = g.nodes.iter().find(|n| n.collapsed > 0).unwrap();
        assert_eq!(more.collapsed, 70);
        assert_eq!(g.nodes.iter().filter(|n| n.layer == 1).count(), 51);
        let on_path: BTreeSet<&str> = g
            .nodes
            .iter()
            .filter(|n| n.on_path)
            .map(|n| n.id.as_str())
            .collect();
        assert_eq!(on_path, BTreeSet::from(["n001", "s", "z"]));
        assert_eq!(g.edges.iter().filter(|e| e.on_path).count(), 2);
    }
}
