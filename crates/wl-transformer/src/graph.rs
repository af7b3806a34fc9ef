//! Undirected simple graphs in compressed sparse row (CSR) form, with
//! optional node and edge labels.

use crate::error::{Error, Result};
use ndarray::Array2;

/// An undirected simple graph on nodes `0..n`: sorted CSR adjacency, a node
/// label per node (0 when unlabelled) and an edge label per edge (0 when
/// unlabelled). The null graph (`n = 0`) is allowed: the graph atlas starts
/// with it.
///
/// Memory O(n + m); `has_edge` is a binary search, O(log deg).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Graph {
    offsets: Vec<usize>,
    neighbours: Vec<u32>,
    /// Edge label of each CSR slot (both directions carry the label).
    slot_labels: Vec<u32>,
    node_labels: Vec<u32>,
    /// Edges `(u, v)` with `u < v`, sorted.
    edges: Vec<(u32, u32)>,
}

impl Graph {
    /// The graph on `n` nodes with the given undirected edges (either
    /// orientation), unlabelled. O(n + m log m).
    ///
    /// # Errors
    /// [`Error::NodeOutOfRange`], [`Error::SelfLoop`], [`Error::DuplicateEdge`];
    /// [`Error::TooManyTuples`] when `n` exceeds `u32::MAX`.
    pub fn from_edges(n: usize, edges: &[(usize, usize)]) -> Result<Graph> {
        let labelled: Vec<(usize, usize, u32)> = edges.iter().map(|&(u, v)| (u, v, 0)).collect();
        Graph::from_labelled_edges(n, &labelled, None)
    }

    /// The graph on `n` nodes with labelled edges `(u, v, label)` and optional
    /// node labels (length `n`). O(n + m log m).
    ///
    /// # Errors
    /// As [`Graph::from_edges`], plus [`Error::ShapeMismatch`] when the node
    /// labels do not have length `n`.
    pub fn from_labelled_edges(
        n: usize,
        edges: &[(usize, usize, u32)],
        node_labels: Option<&[u32]>,
    ) -> Result<Graph> {
        if n > u32::MAX as usize {
            return Err(Error::TooManyTuples {
                n,
                k: 1,
                limit: u32::MAX as usize,
            });
        }
        let node_labels = match node_labels {
            Some(l) if l.len() != n => {
                return Err(Error::ShapeMismatch {
                    expected: format!("{n} node labels"),
                    got: format!("{}", l.len()),
                });
            }
            Some(l) => l.to_vec(),
            None => vec![0; n],
        };
        let mut list: Vec<(u32, u32, u32)> = Vec::with_capacity(edges.len());
        for &(u, v, l) in edges {
            for node in [u, v] {
                if node >= n {
                    return Err(Error::NodeOutOfRange { node, n });
                }
            }
            if u == v {
                return Err(Error::SelfLoop(u));
            }
            let (a, b) = if u < v { (u, v) } else { (v, u) };
            list.push((a as u32, b as u32, l));
        }
        list.sort_unstable();
        for w in list.windows(2) {
            if (w[0].0, w[0].1) == (w[1].0, w[1].1) {
                return Err(Error::DuplicateEdge(w[0].0 as usize, w[0].1 as usize));
            }
        }
        let mut deg = vec![0usize; n];
        for &(a, b, _) in &list {
            deg[a as usize] += 1;
            deg[b as usize] += 1;
        }
        let mut offsets = vec![0usize; n + 1];
        for v in 0..n {
            offsets[v + 1] = offsets[v] + deg[v];
        }
        let mut fill = offsets[..n].to_vec();
        let mut slots: Vec<(u32, u32)> = vec![(0, 0); offsets[n]];
        for &(a, b, l) in &list {
            slots[fill[a as usize]] = (b, l);
            fill[a as usize] += 1;
            slots[fill[b as usize]] = (a, l);
            fill[b as usize] += 1;
        }
        for v in 0..n {
            slots[offsets[v]..offsets[v + 1]].sort_unstable();
        }
        Ok(Graph {
            offsets,
            neighbours: slots.iter().map(|s| s.0).collect(),
            slot_labels: slots.iter().map(|s| s.1).collect(),
            node_labels,
            edges: list.iter().map(|&(a, b, _)| (a, b)).collect(),
        })
    }

    /// Number of nodes `n`.
    pub fn n(&self) -> usize {
        self.node_labels.len()
    }

    /// Number of undirected edges `m`.
    pub fn m(&self) -> usize {
        self.edges.len()
    }

    /// Sorted neighbours `N(v)`; empty for `v ≥ n`.
    pub fn neighbours(&self, v: usize) -> &[u32] {
        if v >= self.n() {
            return &[];
        }
        &self.neighbours[self.offsets[v]..self.offsets[v + 1]]
    }

    /// Edge labels aligned with [`Graph::neighbours`]`(v)`.
    pub fn neighbour_labels(&self, v: usize) -> &[u32] {
        if v >= self.n() {
            return &[];
        }
        &self.slot_labels[self.offsets[v]..self.offsets[v + 1]]
    }

    /// Degree of `v` (0 for `v ≥ n`).
    pub fn degree(&self, v: usize) -> usize {
        self.neighbours(v).len()
    }

    /// Whether `u ~ v`. O(log deg u).
    pub fn has_edge(&self, u: usize, v: usize) -> bool {
        v <= u32::MAX as usize && self.neighbours(u).binary_search(&(v as u32)).is_ok()
    }

    /// The label of edge `uv`, `None` when there is no such edge.
    pub fn edge_label(&self, u: usize, v: usize) -> Option<u32> {
        if v > u32::MAX as usize {
            return None;
        }
        let i = self.neighbours(u).binary_search(&(v as u32)).ok()?;
        Some(self.neighbour_labels(u)[i])
    }

    /// Label of node `v` (0 when unlabelled or `v ≥ n`).
    pub fn node_label(&self, v: usize) -> u32 {
        self.node_labels.get(v).copied().unwrap_or(0)
    }

    /// All node labels.
    pub fn node_labels(&self) -> &[u32] {
        &self.node_labels
    }

    /// The edges `(u, v)`, `u < v`, sorted.
    pub fn edges(&self) -> &[(u32, u32)] {
        &self.edges
    }

    /// Edges with their labels, `(u, v, label)`, `u < v`.
    pub fn labelled_edges(&self) -> Vec<(usize, usize, u32)> {
        self.edges
            .iter()
            .map(|&(u, v)| {
                let l = self.edge_label(u as usize, v as usize).unwrap_or(0);
                (u as usize, v as usize, l)
            })
            .collect()
    }

    /// A copy with node labels replaced.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `labels.len() ≠ n`.
    pub fn with_node_labels(&self, labels: &[u32]) -> Result<Graph> {
        Graph::from_labelled_edges(self.n(), &self.labelled_edges(), Some(labels))
    }

    /// The image `πG` under the permutation `perm` (node `v` becomes
    /// `perm[v]`), labels carried along. O(n + m log m).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] if `perm.len() ≠ n`; [`Error::NodeOutOfRange`]
    /// or [`Error::DuplicateEdge`] when `perm` is not a permutation of `0..n`.
    pub fn permute(&self, perm: &[usize]) -> Result<Graph> {
        let n = self.n();
        if perm.len() != n {
            return Err(Error::ShapeMismatch {
                expected: format!("permutation of length {n}"),
                got: format!("{}", perm.len()),
            });
        }
        let mut seen = vec![false; n];
        for &p in perm {
            if p >= n {
                return Err(Error::NodeOutOfRange { node: p, n });
            }
            if seen[p] {
                return Err(Error::DuplicateEdge(p, p));
            }
            seen[p] = true;
        }
        let mut labels = vec![0u32; n];
        for v in 0..n {
            labels[perm[v]] = self.node_labels[v];
        }
        let edges: Vec<(usize, usize, u32)> = self
            .labelled_edges()
            .into_iter()
            .map(|(u, v, l)| (perm[u], perm[v], l))
            .collect();
        Graph::from_labelled_edges(n, &edges, Some(&labels))
    }

    /// Disjoint union `G ⊔ H` (nodes of `H` shifted by `n(G)`).
    ///
    /// # Errors
    /// [`Error::TooManyTuples`] when the node count overflows `u32`.
    pub fn disjoint_union(&self, other: &Graph) -> Result<Graph> {
        let shift = self.n();
        let mut edges = self.labelled_edges();
        edges.extend(
            other
                .labelled_edges()
                .into_iter()
                .map(|(u, v, l)| (u + shift, v + shift, l)),
        );
        let mut labels = self.node_labels.clone();
        labels.extend_from_slice(&other.node_labels);
        Graph::from_labelled_edges(shift + other.n(), &edges, Some(&labels))
    }

    /// Dense adjacency matrix `A` (`A_uv = 1` iff `u ~ v`). O(n²) memory.
    ///
    /// # Errors
    /// [`Error::TooManyTuples`] when `n²` exceeds the allocation limit.
    pub fn adjacency(&self) -> Result<Array2<f64>> {
        let n = self.n();
        crate::tokens::check_count(n, 2, crate::tokens::DEFAULT_TUPLE_LIMIT)?;
        let mut a = Array2::zeros((n, n));
        for &(u, v) in &self.edges {
            a[[u as usize, v as usize]] = 1.0;
            a[[v as usize, u as usize]] = 1.0;
        }
        Ok(a)
    }

    /// Number of connected components of the subgraph induced by `nodes`
    /// (duplicates ignored). O(|nodes|² log deg).
    pub fn induced_components(&self, nodes: &[usize]) -> usize {
        let mut set: Vec<usize> = nodes.to_vec();
        set.sort_unstable();
        set.dedup();
        let mut parent: Vec<usize> = (0..set.len()).collect();
        fn find(p: &mut [usize], mut x: usize) -> usize {
            while p[x] != x {
                p[x] = p[p[x]];
                x = p[x];
            }
            x
        }
        let mut comps = set.len();
        for i in 0..set.len() {
            for j in i + 1..set.len() {
                if self.has_edge(set[i], set[j]) {
                    let (a, b) = (find(&mut parent, i), find(&mut parent, j));
                    if a != b {
                        parent[a] = b;
                        comps -= 1;
                    }
                }
            }
        }
        comps
    }
}
