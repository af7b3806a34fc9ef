//! Weighted undirected graphs with arbitrary node labels (CSR inside) and
//! shortest-path distances.
//!
//! Edge weights are **lengths** (the ground metric of the transport
//! problems): the distance `d(u, v)` is the smallest total weight of a path.

use crate::error::{Error, Result};
use rayon::prelude::*;
use std::cmp::{Ordering, Reverse};
use std::collections::{BinaryHeap, HashMap};
use std::fmt::Debug;
use std::hash::Hash;

/// What a node label must be: any hashable, comparable, printable value
/// (`usize`, `String`, `&str`, tuples, …).
pub trait NodeLabel: Clone + Eq + Hash + Debug + Send + Sync {}
impl<T: Clone + Eq + Hash + Debug + Send + Sync> NodeLabel for T {}

pub(crate) fn check_index(what: &'static str, index: usize, len: usize) -> Result<()> {
    if index < len {
        Ok(())
    } else {
        Err(Error::IndexOutOfRange { what, index, len })
    }
}

pub(crate) fn show<N: Debug>(n: &N) -> String {
    format!("{n:?}")
}

/// An undirected simple graph with positive finite edge lengths.
///
/// Nodes are indexed `0..n` in order of first appearance; edges `0..m` in the
/// order given (each stored once as `(u, v)` as given). Adjacency is CSR with
/// each node's neighbours sorted by index. Building is `O(m log m)`.
#[derive(Debug, Clone, PartialEq)]
pub struct WeightedGraph<N: NodeLabel = usize> {
    labels: Vec<N>,
    index: HashMap<N, usize>,
    edges: Vec<(usize, usize)>,
    weights: Vec<f64>,
    offsets: Vec<usize>,
    /// `(neighbour, edge id)`, sorted by neighbour within each node.
    adj: Vec<(usize, usize)>,
}

impl<N: NodeLabel> WeightedGraph<N> {
    /// Builds a graph from weighted edges `(u, v, w)`; nodes are the edge ends.
    ///
    /// # Errors
    /// [`Error::EmptyGraph`] with no edge; [`Error::SelfLoop`];
    /// [`Error::NonPositiveWeight`] for `w ≤ 0` or non-finite;
    /// [`Error::DuplicateEdge`] when `{u, v}` repeats.
    pub fn from_edges<I: IntoIterator<Item = (N, N, f64)>>(edges: I) -> Result<Self> {
        Self::from_nodes_and_edges(std::iter::empty(), edges)
    }

    /// Builds a graph with all weights 1 (an unweighted graph).
    ///
    /// # Errors
    /// As [`WeightedGraph::from_edges`].
    pub fn from_unweighted_edges<I: IntoIterator<Item = (N, N)>>(edges: I) -> Result<Self> {
        Self::from_edges(edges.into_iter().map(|(u, v)| (u, v, 1.0)))
    }

    /// Builds a graph from an explicit node list (which may hold isolated
    /// nodes; it fixes the node order) and weighted edges. Edge ends missing
    /// from `nodes` are appended.
    ///
    /// # Errors
    /// As [`WeightedGraph::from_edges`].
    pub fn from_nodes_and_edges<I, J>(nodes: J, edges: I) -> Result<Self>
    where
        I: IntoIterator<Item = (N, N, f64)>,
        J: IntoIterator<Item = N>,
    {
        let mut labels = Vec::new();
        let mut index = HashMap::new();
        let intern = |x: N, labels: &mut Vec<N>, index: &mut HashMap<N, usize>| -> usize {
            *index.entry(x.clone()).or_insert_with(|| {
                labels.push(x);
                labels.len() - 1
            })
        };
        for x in nodes {
            intern(x, &mut labels, &mut index);
        }
        let mut es = Vec::new();
        let mut ws = Vec::new();
        for (u, v, w) in edges {
            if u == v {
                return Err(Error::SelfLoop(show(&u)));
            }
            if !(w.is_finite() && w > 0.0) {
                return Err(Error::NonPositiveWeight {
                    u: show(&u),
                    v: show(&v),
                    w,
                });
            }
            let a = intern(u, &mut labels, &mut index);
            let b = intern(v, &mut labels, &mut index);
            es.push((a, b));
            ws.push(w);
        }
        if es.is_empty() {
            return Err(Error::EmptyGraph);
        }
        let n = labels.len();
        let mut deg = vec![0usize; n + 1];
        for &(a, b) in &es {
            deg[a] += 1;
            deg[b] += 1;
        }
        let mut offsets = vec![0usize; n + 1];
        for i in 0..n {
            offsets[i + 1] = offsets[i] + deg[i];
        }
        let mut fill = offsets.clone();
        let mut adj = vec![(0usize, 0usize); offsets[n]];
        for (e, &(a, b)) in es.iter().enumerate() {
            adj[fill[a]] = (b, e);
            fill[a] += 1;
            adj[fill[b]] = (a, e);
            fill[b] += 1;
        }
        for i in 0..n {
            let s = &mut adj[offsets[i]..offsets[i + 1]];
            s.sort_unstable();
            if let Some(w) = s.windows(2).find(|w| w[0].0 == w[1].0) {
                return Err(Error::DuplicateEdge {
                    u: show(&labels[i]),
                    v: show(&labels[w[0].0]),
                });
            }
        }
        Ok(WeightedGraph {
            labels,
            index,
            edges: es,
            weights: ws,
            offsets,
            adj,
        })
    }

    /// The same graph with new edge weights (in edge order).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`]; [`Error::NonPositiveWeight`].
    pub fn with_weights(&self, weights: &[f64]) -> Result<Self> {
        if weights.len() != self.n_edges() {
            return Err(Error::LengthMismatch {
                what: "weights",
                expected: self.n_edges(),
                got: weights.len(),
            });
        }
        for (e, &w) in weights.iter().enumerate() {
            if !(w.is_finite() && w > 0.0) {
                let (a, b) = self.edges[e];
                return Err(Error::NonPositiveWeight {
                    u: show(&self.labels[a]),
                    v: show(&self.labels[b]),
                    w,
                });
            }
        }
        let mut g = self.clone();
        g.weights = weights.to_vec();
        Ok(g)
    }

    /// The same graph with every weight set to 1.
    pub fn unweighted(&self) -> Self {
        let mut g = self.clone();
        g.weights.iter_mut().for_each(|w| *w = 1.0);
        g
    }

    /// Number of nodes `n`.
    pub fn n_nodes(&self) -> usize {
        self.labels.len()
    }

    /// Number of edges `m`.
    pub fn n_edges(&self) -> usize {
        self.edges.len()
    }

    /// Node labels, by index.
    pub fn labels(&self) -> &[N] {
        &self.labels
    }

    /// The index of a label.
    ///
    /// # Errors
    /// [`Error::UnknownNode`].
    pub fn node_index(&self, label: &N) -> Result<usize> {
        self.index
            .get(label)
            .copied()
            .ok_or_else(|| Error::UnknownNode(show(label)))
    }

    fn check_edge(&self, e: usize) -> Result<()> {
        check_index("edge", e, self.n_edges())
    }

    fn check_node(&self, i: usize) -> Result<()> {
        check_index("node", i, self.n_nodes())
    }

    /// Edge `e` as node indices `(u, v)` in the order given. `O(1)`.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for `e ≥ m`.
    pub fn edge(&self, e: usize) -> Result<(usize, usize)> {
        self.check_edge(e)?;
        Ok(self.edges[e])
    }

    #[inline]
    pub(crate) fn edge_at(&self, e: usize) -> (usize, usize) {
        self.edges[e]
    }

    /// All edges as node indices.
    pub fn edges(&self) -> &[(usize, usize)] {
        &self.edges
    }

    /// Edge `e` as labels. `O(1)`.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for `e ≥ m`.
    pub fn edge_labels(&self, e: usize) -> Result<(&N, &N)> {
        self.check_edge(e)?;
        Ok(self.edge_labels_at(e))
    }

    pub(crate) fn edge_labels_at(&self, e: usize) -> (&N, &N) {
        let (a, b) = self.edges[e];
        (&self.labels[a], &self.labels[b])
    }

    /// The edge id joining nodes `u` and `v` (indices), `None` when they are
    /// not adjacent. `O(log deg u)`.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for `u ≥ n` or `v ≥ n`.
    pub fn edge_between(&self, u: usize, v: usize) -> Result<Option<usize>> {
        self.check_node(u)?;
        self.check_node(v)?;
        Ok(self.find_edge(u, v))
    }

    #[inline]
    pub(crate) fn find_edge(&self, u: usize, v: usize) -> Option<usize> {
        let s = self.nbrs(u);
        s.binary_search_by_key(&v, |&(x, _)| x).ok().map(|i| s[i].1)
    }

    /// Edge weights (lengths), in edge order.
    pub fn weights(&self) -> &[f64] {
        &self.weights
    }

    /// Degree (number of neighbours) of node `i`. `O(1)`.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for `i ≥ n`.
    pub fn degree(&self, i: usize) -> Result<usize> {
        self.check_node(i)?;
        Ok(self.deg(i))
    }

    #[inline]
    pub(crate) fn deg(&self, i: usize) -> usize {
        self.offsets[i + 1] - self.offsets[i]
    }

    /// `(neighbour, edge id)` pairs of node `i`, sorted by neighbour index.
    /// `O(1)`.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for `i ≥ n`.
    pub fn neighbours(&self, i: usize) -> Result<&[(usize, usize)]> {
        self.check_node(i)?;
        Ok(self.nbrs(i))
    }

    #[inline]
    pub(crate) fn nbrs(&self, i: usize) -> &[(usize, usize)] {
        &self.adj[self.offsets[i]..self.offsets[i + 1]]
    }

    /// Number of triangles through edge `e` (common neighbours of its ends),
    /// by a sorted merge, `O(deg u + deg v)`.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for `e ≥ m`.
    pub fn triangles(&self, e: usize) -> Result<usize> {
        self.check_edge(e)?;
        Ok(self.tri(e))
    }

    pub(crate) fn tri(&self, e: usize) -> usize {
        let (u, v) = self.edges[e];
        let (a, b) = (self.nbrs(u), self.nbrs(v));
        let (mut i, mut j, mut c) = (0, 0, 0);
        while i < a.len() && j < b.len() {
            match a[i].0.cmp(&b[j].0) {
                Ordering::Less => i += 1,
                Ordering::Greater => j += 1,
                Ordering::Equal => {
                    c += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        c
    }

    /// Connected-component id of every node (ids in order of their smallest
    /// node index), and the number of components. `O(n + m)`.
    pub fn components(&self) -> (Vec<usize>, usize) {
        let n = self.n_nodes();
        let mut comp = vec![usize::MAX; n];
        let mut k = 0;
        let mut stack = Vec::new();
        for s in 0..n {
            if comp[s] != usize::MAX {
                continue;
            }
            comp[s] = k;
            stack.push(s);
            while let Some(x) = stack.pop() {
                for &(y, _) in self.nbrs(x) {
                    if comp[y] == usize::MAX {
                        comp[y] = k;
                        stack.push(y);
                    }
                }
            }
            k += 1;
        }
        (comp, k)
    }

    /// Whether the graph is connected.
    pub fn is_connected(&self) -> bool {
        self.components().1 == 1
    }

    /// The largest connected component (the first one in node order on a
    /// tie, as networkx's `max(connected_components(G), key=len)`), with
    /// maps `node_map[new] = old` and `edge_map[new] = old`. Node and edge
    /// orders are kept. `O(n + m)`.
    pub fn largest_component(&self) -> Component<N> {
        let (comp, k) = self.components();
        let mut size = vec![0usize; k];
        for &c in &comp {
            size[c] += 1;
        }
        let mut best = 0;
        for c in 0..k {
            if size[c] > size[best] {
                best = c;
            }
        }
        let node_map: Vec<usize> = (0..self.n_nodes()).filter(|&i| comp[i] == best).collect();
        let edge_map: Vec<usize> = (0..self.n_edges())
            .filter(|&e| comp[self.edges[e].0] == best)
            .collect();
        let graph = if node_map.len() == self.n_nodes() {
            self.clone()
        } else {
            WeightedGraph::from_nodes_and_edges(
                node_map.iter().map(|&i| self.labels[i].clone()),
                edge_map.iter().map(|&e| {
                    let (a, b) = self.edges[e];
                    (
                        self.labels[a].clone(),
                        self.labels[b].clone(),
                        self.weights[e],
                    )
                }),
            )
            .expect("a component of a valid graph with an edge is valid")
        };
        Component {
            graph,
            node_map,
            edge_map,
        }
    }
}

/// A connected component cut out of a graph.
#[derive(Debug, Clone)]
pub struct Component<N: NodeLabel> {
    /// The component as a graph of its own.
    pub graph: WeightedGraph<N>,
    /// `node_map[i]` = index in the original graph of node `i`.
    pub node_map: Vec<usize>,
    /// `edge_map[e]` = id in the original graph of edge `e`.
    pub edge_map: Vec<usize>,
}

/// Scratch for repeated Dijkstra runs (distance array reset lazily). Heap
/// keys are the bit patterns of the (finite, non-negative) distances, whose
/// integer order is their numeric order, so the heap compares integers;
/// ties go to the smaller node index.
struct Scratch {
    dist: Vec<f64>,
    touched: Vec<usize>,
    heap: BinaryHeap<Reverse<(u64, u32)>>,
    /// `mark[v] == stamp`: `v` is settled in the current run (Dial).
    mark: Vec<u32>,
    stamp: u32,
    /// Dial's buckets (cyclic) and their width `Δ`, when used.
    buckets: Vec<Vec<u32>>,
    width: f64,
}

/// Most buckets Dial's algorithm may use (`2 w_max / w_min + 2`); beyond,
/// the binary heap.
const MAX_BUCKETS: f64 = 4096.0;

impl Scratch {
    /// Scratch for `g`: Dial's bucket queue with width `Δ = w_min / 2` when
    /// `2 w_max / w_min + 2 ≤ 4096`, else a binary heap.
    fn new<N: NodeLabel>(g: &WeightedGraph<N>) -> Self {
        let n = g.n_nodes();
        let (lo, hi) = g
            .weights
            .iter()
            .fold((f64::INFINITY, 0.0f64), |(lo, hi), &w| {
                (lo.min(w), hi.max(w))
            });
        let width = lo / 2.0;
        let count = (hi / width).ceil() + 2.0;
        let buckets = if count.is_finite() && count <= MAX_BUCKETS {
            vec![Vec::new(); count as usize]
        } else {
            Vec::new()
        };
        Scratch {
            dist: vec![f64::INFINITY; n],
            touched: Vec::new(),
            heap: BinaryHeap::new(),
            mark: vec![0; n],
            stamp: 0,
            buckets,
            width,
        }
    }

    /// Dijkstra from `s`, settling nodes with `d ≤ cutoff`; calls
    /// `settle(node, distance)` once per settled node, in order of distance
    /// (by buckets of width `Δ` with Dial's queue), and stops when it
    /// returns `false`.
    fn run<N: NodeLabel>(
        &mut self,
        g: &WeightedGraph<N>,
        s: usize,
        cutoff: f64,
        settle: impl FnMut(usize, f64) -> bool,
    ) {
        for &t in &self.touched {
            self.dist[t] = f64::INFINITY;
        }
        self.touched.clear();
        if self.buckets.is_empty() {
            self.run_heap(g, s, cutoff, settle);
        } else {
            self.run_dial(g, s, cutoff, settle);
        }
    }

    /// Dial's algorithm with buckets of width `Δ = w_min / 2`: an edge
    /// spans at least two buckets, so no node of the lowest non-empty
    /// bucket can improve another one and all of them are final. Every
    /// node's distance is then `min_u fl(d(u) + w(u, v))` over the same
    /// predecessors as with a heap: the same value, bit for bit.
    fn run_dial<N: NodeLabel>(
        &mut self,
        g: &WeightedGraph<N>,
        s: usize,
        cutoff: f64,
        mut settle: impl FnMut(usize, f64) -> bool,
    ) {
        let nb = self.buckets.len();
        let inv = 1.0 / self.width;
        for b in &mut self.buckets {
            b.clear();
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.mark.iter_mut().for_each(|m| *m = 0);
            self.stamp = 1;
        }
        self.dist[s] = 0.0;
        self.touched.push(s);
        self.buckets[0].push(s as u32);
        let mut queued = 1usize;
        let mut k = 0usize;
        while queued > 0 {
            let slot = k % nb;
            let mut bucket = std::mem::take(&mut self.buckets[slot]);
            let mut i = 0;
            while i < bucket.len() {
                let x = bucket[i] as usize;
                i += 1;
                queued -= 1;
                let d = self.dist[x];
                // Stale (moved to a lower bucket and settled) or repeated.
                if self.mark[x] == self.stamp || (d * inv) as usize != k {
                    continue;
                }
                self.mark[x] = self.stamp;
                if !settle(x, d) {
                    self.buckets[slot] = bucket;
                    return;
                }
                for &(y, e) in g.nbrs(x) {
                    let nd = d + g.weights[e];
                    if nd <= cutoff && nd < self.dist[y] {
                        if self.dist[y] == f64::INFINITY {
                            self.touched.push(y);
                        }
                        self.dist[y] = nd;
                        let ky = (nd * inv) as usize;
                        debug_assert!(ky > k && ky < k + nb);
                        self.buckets[ky % nb].push(y as u32);
                        queued += 1;
                    }
                }
            }
            bucket.clear();
            self.buckets[slot] = bucket;
            k += 1;
        }
    }

    /// Dijkstra with a binary heap (any positive weights).
    fn run_heap<N: NodeLabel>(
        &mut self,
        g: &WeightedGraph<N>,
        s: usize,
        cutoff: f64,
        mut settle: impl FnMut(usize, f64) -> bool,
    ) {
        self.heap.clear();
        self.dist[s] = 0.0;
        self.touched.push(s);
        self.heap.push(Reverse((0f64.to_bits(), s as u32)));
        while let Some(Reverse((bits, x))) = self.heap.pop() {
            let (d, x) = (f64::from_bits(bits), x as usize);
            if d > self.dist[x] {
                continue;
            }
            if !settle(x, d) {
                break;
            }
            for &(y, e) in g.nbrs(x) {
                let nd = d + g.weights[e];
                if nd <= cutoff && nd < self.dist[y] {
                    if self.dist[y] == f64::INFINITY {
                        self.touched.push(y);
                    }
                    self.dist[y] = nd;
                    self.heap.push(Reverse((nd.to_bits(), y as u32)));
                }
            }
        }
    }

    /// [`Scratch::run`] collecting the settled `(node, distance)` sorted by node.
    fn row<N: NodeLabel>(
        &mut self,
        g: &WeightedGraph<N>,
        s: usize,
        cutoff: f64,
    ) -> Vec<(u32, f64)> {
        let mut out = Vec::new();
        self.run(g, s, cutoff, |x, d| {
            out.push((x as u32, d));
            true
        });
        out.sort_unstable_by_key(|p| p.0);
        out
    }
}

/// Largest dense table [`Distances::limited`] builds (`n² · 8` bytes); above
/// it, sparse sorted rows.
const DENSE_LIMITED_BYTES: usize = 64 << 20;

/// Shortest-path distances, computed once per graph and reused.
///
/// Two layouts: [`Distances::all_pairs`] (dense `n × n`, `n` Dijkstra runs,
/// `O(n m log n)` time, `n²` memory) and [`Distances::limited`] (each source
/// only up to the radius curvature needs: a dense `n × n` table while it
/// takes at most 64 MiB, else sorted sparse rows). Sources run in
/// parallel (rayon); each row is a deterministic Dijkstra, so the result does
/// not depend on the thread count.
#[derive(Debug, Clone)]
pub struct Distances {
    n: usize,
    store: Store,
}

#[derive(Debug, Clone)]
enum Store {
    Dense(Vec<f64>),
    Sparse(Vec<Vec<(u32, f64)>>),
}

impl Distances {
    /// All-pairs shortest paths (`∞` between components).
    ///
    /// # Errors
    /// [`Error::TooLarge`] when the `n × n` table would exceed
    /// [`mlcore::check::MAX_ALLOC_BYTES`].
    pub fn all_pairs<N: NodeLabel>(g: &WeightedGraph<N>) -> Result<Self> {
        let n = g.n_nodes();
        mlcore::check::alloc_len(&[n, n], 8, "all-pairs distance table")?;
        let mut d = vec![f64::INFINITY; n * n];
        d.par_chunks_mut(n.max(1)).enumerate().for_each_init(
            || Scratch::new(g),
            |s, (i, row)| {
                s.run(g, i, f64::INFINITY, |j, v| {
                    row[j] = v;
                    true
                })
            },
        );
        Ok(Distances {
            n,
            store: Store::Dense(d),
        })
    }

    /// The distances Ollivier curvature needs: from every node `a`, every
    /// node within `r(a)` = the heaviest walk of three edges from `a`. For an
    /// edge `xy`, `a ∈ N[x]` and `b ∈ N[y]`, `d(a, b) ≤ w(a,x) + w(x,y) +
    /// w(y,b) ≤ r(a)`, so every cost an edge's transport problem needs is
    /// present and exact. When all weights are equal this is the 3-hop ball,
    /// found by breadth-first search (no heap), in sparse rows; otherwise
    /// cut-off Dijkstra, written into a dense table (`O(1)` look-ups) when
    /// `n² · 8` bytes ≤ 64 MiB, else into sparse rows.
    /// `O(n · ball · log ball)` (plus `O(n²)` to initialise a dense table).
    pub fn limited<N: NodeLabel>(g: &WeightedGraph<N>) -> Self {
        let n = g.n_nodes();
        let step = |prev: &[f64]| -> Vec<f64> {
            (0..n)
                .map(|v| {
                    g.nbrs(v)
                        .iter()
                        .map(|&(u, e)| g.weights[e] + prev[u])
                        .fold(0.0, f64::max)
                })
                .collect()
        };
        let w0 = g.weights[0];
        let rows: Vec<Vec<(u32, f64)>> = if g.weights.iter().all(|&w| w == w0) {
            // All lengths equal: d = hops·w, a breadth-first search to depth 3.
            (0..n)
                .into_par_iter()
                .map_init(
                    || (vec![u32::MAX; n], Vec::new()),
                    |(seen, queue): &mut (Vec<u32>, Vec<usize>), s| {
                        queue.clear();
                        queue.push(s);
                        seen[s] = 0;
                        let mut head = 0;
                        while head < queue.len() {
                            let x = queue[head];
                            head += 1;
                            let dx = seen[x];
                            if dx == 3 {
                                continue;
                            }
                            for &(y, _) in g.nbrs(x) {
                                if seen[y] == u32::MAX {
                                    seen[y] = dx + 1;
                                    queue.push(y);
                                }
                            }
                        }
                        let mut row: Vec<(u32, f64)> = queue
                            .iter()
                            .map(|&v| (v as u32, f64::from(seen[v]) * w0))
                            .collect();
                        for &v in queue.iter() {
                            seen[v] = u32::MAX;
                        }
                        row.sort_unstable_by_key(|p| p.0);
                        row
                    },
                )
                .collect()
        } else {
            let r = step(&step(&step(&vec![0.0; n])));
            if n.checked_mul(n)
                .is_some_and(|nn| nn <= DENSE_LIMITED_BYTES / 8)
            {
                // Dense: O(1) look-ups; NaN marks "beyond the radius".
                let mut d = vec![f64::NAN; n * n];
                d.par_chunks_mut(n).enumerate().for_each_init(
                    || Scratch::new(g),
                    |s, (i, row)| {
                        s.run(g, i, r[i] * (1.0 + 1e-12), |j, v| {
                            row[j] = v;
                            true
                        })
                    },
                );
                return Distances {
                    n,
                    store: Store::Dense(d),
                };
            }
            (0..n)
                .into_par_iter()
                .map_init(|| Scratch::new(g), |s, i| s.row(g, i, r[i] * (1.0 + 1e-12)))
                .collect()
        };
        Distances {
            n,
            store: Store::Sparse(rows),
        }
    }

    /// Number of nodes.
    pub fn n_nodes(&self) -> usize {
        self.n
    }

    /// `d(i, j)` if known: `Some(∞)` between components in the dense
    /// layout, `None` when outside the computed radius of the limited one.
    /// `O(1)` dense, `O(log ball)` limited.
    ///
    /// # Errors
    /// [`Error::IndexOutOfRange`] for `i ≥ n` or `j ≥ n`.
    pub fn get(&self, i: usize, j: usize) -> Result<Option<f64>> {
        check_index("node", i, self.n)?;
        check_index("node", j, self.n)?;
        Ok(self.lookup(i, j))
    }

    /// [`Distances::get`] for indices the caller knows are `< n`.
    #[inline]
    pub(crate) fn lookup(&self, i: usize, j: usize) -> Option<f64> {
        match &self.store {
            Store::Dense(d) => d.get(i * self.n + j).copied().filter(|v| !v.is_nan()),
            Store::Sparse(rows) => {
                let row = rows.get(i)?;
                row.binary_search_by_key(&(j as u32), |p| p.0)
                    .ok()
                    .map(|k| row[k].1)
            }
        }
    }

    /// `d(u, v)` by labels.
    ///
    /// # Errors
    /// [`Error::UnknownNode`]; [`Error::Disconnected`] when no path is known
    /// (different components, or beyond a limited layout's radius).
    pub fn distance<N: NodeLabel>(&self, g: &WeightedGraph<N>, u: &N, v: &N) -> Result<f64> {
        let (i, j) = (g.node_index(u)?, g.node_index(v)?);
        match self.lookup(i, j) {
            Some(d) if d.is_finite() => Ok(d),
            _ => Err(Error::Disconnected {
                u: show(u),
                v: show(v),
            }),
        }
    }
}
