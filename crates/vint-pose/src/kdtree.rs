//! An exact 3-D k-d tree: nearest neighbour, k nearest, and radius queries.
//!
//! Built by recursive median splits on the axis of largest spread
//! (`select_nth_unstable`, O(n log n)); leaves hold at most
//! [`LEAF_SIZE`] points. Queries descend to the query's leaf first and prune
//! a subtree when its splitting plane is farther than the current best
//! (expected O(log n) for a nearest neighbour in well-spread clouds, O(n)
//! worst case). Results are exact: every pruned point is provably farther.
//! Ties are broken by the smaller index, so results are deterministic.

use crate::error::{Error, Result};
use nalgebra::Point3;

/// Most points in a leaf.
pub const LEAF_SIZE: usize = 8;

#[derive(Debug, Clone)]
enum Node {
    Leaf {
        start: usize,
        end: usize,
    },
    Split {
        axis: usize,
        value: f64,
        left: usize,
        right: usize,
    },
}

/// An exact k-d tree over 3-D points.
#[derive(Debug, Clone)]
pub struct KdTree {
    points: Vec<Point3<f64>>,
    /// Permutation of point indices; leaves are ranges of it.
    index: Vec<usize>,
    nodes: Vec<Node>,
}

impl KdTree {
    /// Builds the tree. O(n log n) time, O(n) memory.
    ///
    /// # Errors
    /// [`Error::EmptyCloud`] when `points` is empty; [`Error::NonFinite`] at
    /// a NaN/inf coordinate.
    pub fn new(points: &[Point3<f64>]) -> Result<Self> {
        if points.is_empty() {
            return Err(Error::EmptyCloud {
                what: "k-d tree points",
            });
        }
        for (i, p) in points.iter().enumerate() {
            if let Some(j) = p.coords.iter().position(|v| !v.is_finite()) {
                return Err(Error::NonFinite {
                    what: "k-d tree points",
                    index: 3 * i + j,
                });
            }
        }
        let mut tree = KdTree {
            points: points.to_vec(),
            index: (0..points.len()).collect(),
            nodes: Vec::with_capacity(2 * points.len() / LEAF_SIZE + 1),
        };
        tree.build(0, points.len());
        Ok(tree)
    }

    /// Number of points.
    pub fn len(&self) -> usize {
        self.points.len()
    }

    /// Always `false` (an empty tree cannot be built).
    pub fn is_empty(&self) -> bool {
        self.points.is_empty()
    }

    /// The points, in the order given to [`KdTree::new`].
    pub fn points(&self) -> &[Point3<f64>] {
        &self.points
    }

    fn build(&mut self, start: usize, end: usize) -> usize {
        let id = self.nodes.len();
        if end - start <= LEAF_SIZE {
            self.nodes.push(Node::Leaf { start, end });
            return id;
        }
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for &i in &self.index[start..end] {
            for a in 0..3 {
                lo[a] = lo[a].min(self.points[i][a]);
                hi[a] = hi[a].max(self.points[i][a]);
            }
        }
        let axis = (0..3)
            .max_by(|&a, &b| (hi[a] - lo[a]).total_cmp(&(hi[b] - lo[b])))
            .unwrap_or(0);
        if hi[axis] - lo[axis] <= 0.0 {
            // All points coincide: one leaf, however many.
            self.nodes.push(Node::Leaf { start, end });
            return id;
        }
        let mid = start + (end - start) / 2;
        let pts = &self.points;
        self.index[start..end].select_nth_unstable_by(mid - start, |&i, &j| {
            pts[i][axis].total_cmp(&pts[j][axis]).then(i.cmp(&j))
        });
        let value = self.points[self.index[mid]][axis];
        self.nodes.push(Node::Leaf { start: 0, end: 0 });
        let left = self.build(start, mid);
        let right = self.build(mid, end);
        self.nodes[id] = Node::Split {
            axis,
            value,
            left,
            right,
        };
        id
    }

    /// The nearest point to `q`: `(index, distance)`. Exact. A query with a
    /// NaN coordinate matches nothing: `(usize::MAX, +∞)`.
    pub fn nearest(&self, q: &Point3<f64>) -> (usize, f64) {
        let mut best = (usize::MAX, f64::INFINITY);
        self.nearest_rec(0, q, &mut best);
        (best.0, best.1.sqrt())
    }

    fn nearest_rec(&self, node: usize, q: &Point3<f64>, best: &mut (usize, f64)) {
        match self.nodes[node] {
            Node::Leaf { start, end } => {
                for &i in &self.index[start..end] {
                    let d = (self.points[i] - q).norm_squared();
                    if d < best.1 || (d == best.1 && i < best.0) {
                        *best = (i, d);
                    }
                }
            }
            Node::Split {
                axis,
                value,
                left,
                right,
            } => {
                let diff = q[axis] - value;
                let (near, far) = if diff < 0.0 {
                    (left, right)
                } else {
                    (right, left)
                };
                self.nearest_rec(near, q, best);
                if diff * diff <= best.1 {
                    self.nearest_rec(far, q, best);
                }
            }
        }
    }

    /// The `k` nearest points to `q`, sorted by distance: `(index, distance)`.
    /// Returns all points when `k ≥ n`. O(k log n) expected.
    pub fn k_nearest(&self, q: &Point3<f64>, k: usize) -> Vec<(usize, f64)> {
        let k = k.min(self.len());
        if k == 0 {
            return Vec::new();
        }
        let mut heap: Vec<(f64, usize)> = Vec::with_capacity(k + 1);
        self.knn_rec(0, q, k, &mut heap);
        heap.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
        heap.into_iter().map(|(d, i)| (i, d.sqrt())).collect()
    }

    fn worst(heap: &[(f64, usize)]) -> (usize, f64) {
        let mut w = (0, f64::NEG_INFINITY);
        for (j, &(d, _)) in heap.iter().enumerate() {
            if d > w.1 || (d == w.1 && heap[j].1 > heap[w.0].1) {
                w = (j, d);
            }
        }
        w
    }

    fn knn_rec(&self, node: usize, q: &Point3<f64>, k: usize, heap: &mut Vec<(f64, usize)>) {
        match self.nodes[node] {
            Node::Leaf { start, end } => {
                for &i in &self.index[start..end] {
                    let d = (self.points[i] - q).norm_squared();
                    if heap.len() < k {
                        heap.push((d, i));
                    } else {
                        let (j, wd) = Self::worst(heap);
                        if d < wd || (d == wd && i < heap[j].1) {
                            heap[j] = (d, i);
                        }
                    }
                }
            }
            Node::Split {
                axis,
                value,
                left,
                right,
            } => {
                let diff = q[axis] - value;
                let (near, far) = if diff < 0.0 {
                    (left, right)
                } else {
                    (right, left)
                };
                self.knn_rec(near, q, k, heap);
                if heap.len() < k || diff * diff <= Self::worst(heap).1 {
                    self.knn_rec(far, q, k, heap);
                }
            }
        }
    }

    /// Indices of all points within distance `r` of `q` (inclusive), sorted by index.
    pub fn within(&self, q: &Point3<f64>, r: f64) -> Vec<usize> {
        let mut out = Vec::new();
        if r.is_nan() || r < 0.0 {
            return out;
        }
        self.within_rec(0, q, r * r, &mut out);
        out.sort_unstable();
        out
    }

    fn within_rec(&self, node: usize, q: &Point3<f64>, r2: f64, out: &mut Vec<usize>) {
        match self.nodes[node] {
            Node::Leaf { start, end } => {
                for &i in &self.index[start..end] {
                    if (self.points[i] - q).norm_squared() <= r2 {
                        out.push(i);
                    }
                }
            }
            Node::Split {
                axis,
                value,
                left,
                right,
            } => {
                let diff = q[axis] - value;
                let (near, far) = if diff < 0.0 {
                    (left, right)
                } else {
                    (right, left)
                };
                self.within_rec(near, q, r2, out);
                if diff * diff <= r2 {
                    self.within_rec(far, q, r2, out);
                }
            }
        }
    }
}
