//! Tuple tokens: all of `V^k`, or `V^k_s` — the k-tuples whose distinct
//! vertices induce at most `s` connected components (SpeqNets) — and their
//! atomic types.
//!
//! Deviation from the official code: its (3,1) token list has duplicates
//! (decalin: 460 entries for the 160 connected triples; C6: 234 for 78; K4:
//! 224 for 64), which re-weights softmax attention towards repeated triples.
//! [`TokenSet::connected`] returns each tuple once, sorted
//! lexicographically; the set of tuples is the same.

use crate::error::{Error, Result};
use crate::graph::Graph;
use std::collections::HashSet;

/// Default cap on the number of tuples per graph (2²⁴ ≈ 1.7·10⁷).
pub const DEFAULT_TUPLE_LIMIT: usize = 1 << 24;

/// `n^k` if it is at most `limit`.
///
/// # Errors
/// [`Error::OrderZero`] for `k = 0`; [`Error::TooManyTuples`] otherwise.
pub fn check_count(n: usize, k: usize, limit: usize) -> Result<usize> {
    if k == 0 {
        return Err(Error::OrderZero);
    }
    let too_many = Error::TooManyTuples { n, k, limit };
    let mut c = 1usize;
    for _ in 0..k {
        c = c.checked_mul(n).ok_or(too_many.clone())?;
        if c > limit {
            return Err(too_many);
        }
    }
    Ok(c)
}

/// A sorted, duplicate-free set of `k`-tuples over the nodes `0..n` of a graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenSet {
    n: usize,
    k: usize,
    /// Row-major `len × k`.
    flat: Vec<u32>,
}

impl TokenSet {
    /// All `n^k` tuples in lexicographic order. O(n^k·k).
    ///
    /// # Errors
    /// [`Error::OrderZero`]; [`Error::TooManyTuples`] when `n^k` exceeds
    /// [`DEFAULT_TUPLE_LIMIT`].
    pub fn all(n: usize, k: usize) -> Result<TokenSet> {
        let count = check_count(n, k, DEFAULT_TUPLE_LIMIT)?;
        let mut flat = Vec::with_capacity(count * k);
        let mut t = vec![0u32; k];
        for _ in 0..count {
            flat.extend_from_slice(&t);
            // Increment the base-n counter.
            for pos in (0..k).rev() {
                t[pos] += 1;
                if (t[pos] as usize) < n {
                    break;
                }
                t[pos] = 0;
            }
        }
        Ok(TokenSet { n, k, flat })
    }

    /// `V^k_s(G)`: tuples whose distinct vertices induce at most `s`
    /// connected components, sorted, each once. `(2,1)`: the `n` diagonal
    /// pairs and the `2m` directed edges; `(3,1)`: ordered triples inducing
    /// a connected subgraph; `(k,k)`: all `n^k` tuples.
    ///
    /// For `s = 1` the tuples are generated from the connected vertex sets
    /// of size ≤ k (grown edge by edge), so large sparse graphs are fine;
    /// for `s > 1` all `n^k` tuples are filtered, which needs `n^k` within
    /// the tuple limit.
    ///
    /// # Errors
    /// [`Error::OrderZero`], [`Error::BadComponentBound`] (`s ∉ 1..=k`),
    /// [`Error::TooManyTuples`].
    pub fn connected(g: &Graph, k: usize, s: usize) -> Result<TokenSet> {
        if k == 0 {
            return Err(Error::OrderZero);
        }
        if s == 0 || s > k {
            return Err(Error::BadComponentBound { s, k });
        }
        let n = g.n();
        if s == k {
            return TokenSet::all(n, k);
        }
        if s > 1 {
            let all = TokenSet::all(n, k)?;
            let mut flat = Vec::new();
            let mut nodes = vec![0usize; k];
            for t in all.iter() {
                for (a, &b) in nodes.iter_mut().zip(t) {
                    *a = b as usize;
                }
                if g.induced_components(&nodes) <= s {
                    flat.extend_from_slice(t);
                }
            }
            return Ok(TokenSet { n, k, flat });
        }
        // s = 1: connected vertex sets of size <= k, then every surjection
        // from the k positions onto each set.
        let mut level: HashSet<Vec<u32>> = (0..n as u32).map(|v| vec![v]).collect();
        let mut sets: Vec<Vec<u32>> = level.iter().cloned().collect();
        for _ in 1..k {
            let mut next: HashSet<Vec<u32>> = HashSet::new();
            for set in &level {
                for &v in set {
                    for &w in g.neighbours(v as usize) {
                        if let Err(pos) = set.binary_search(&w) {
                            let mut grown = set.clone();
                            grown.insert(pos, w);
                            next.insert(grown);
                        }
                    }
                }
            }
            sets.extend(next.iter().cloned());
            level = next;
        }
        let mut tuples: Vec<Vec<u32>> = Vec::new();
        for set in &sets {
            let m = set.len();
            let maps = check_count(m, k, DEFAULT_TUPLE_LIMIT)?;
            let mut idx = vec![0usize; k];
            for _ in 0..maps {
                let mut hit = vec![false; m];
                for &i in &idx {
                    hit[i] = true;
                }
                if hit.iter().all(|&h| h) {
                    tuples.push(idx.iter().map(|&i| set[i]).collect());
                }
                for pos in (0..k).rev() {
                    idx[pos] += 1;
                    if idx[pos] < m {
                        break;
                    }
                    idx[pos] = 0;
                }
            }
            if tuples.len() > DEFAULT_TUPLE_LIMIT {
                return Err(Error::TooManyTuples {
                    n,
                    k,
                    limit: DEFAULT_TUPLE_LIMIT,
                });
            }
        }
        tuples.sort_unstable();
        Ok(TokenSet {
            n,
            k,
            flat: tuples.concat(),
        })
    }

    /// Number of tuples.
    pub fn len(&self) -> usize {
        self.flat.len().checked_div(self.k).unwrap_or(0)
    }

    /// Whether there are no tuples.
    pub fn is_empty(&self) -> bool {
        self.flat.is_empty()
    }

    /// The order `k`.
    pub fn order(&self) -> usize {
        self.k
    }

    /// Nodes of the underlying graph.
    pub fn n(&self) -> usize {
        self.n
    }

    /// The `i`-th tuple (`None` past the end).
    pub fn get(&self, i: usize) -> Option<&[u32]> {
        self.flat.get(i * self.k..(i + 1) * self.k)
    }

    /// The tuples in order.
    pub fn iter(&self) -> std::slice::ChunksExact<'_, u32> {
        self.flat.chunks_exact(self.k.max(1))
    }

    /// Position of `tuple` in the set (binary search), `None` if absent.
    pub fn index_of(&self, tuple: &[u32]) -> Option<usize> {
        if tuple.len() != self.k || self.is_empty() {
            return None;
        }
        let (mut lo, mut hi) = (0usize, self.len());
        while lo < hi {
            let mid = (lo + hi) / 2;
            match self.get(mid)?.cmp(tuple) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }
}

/// The atomic type of a tuple `t = (t₁..t_k)` of `g`: the node label of each
/// position, then for each `i < j` the equality `[t_i = t_j]`, the adjacency
/// `[t_i ~ t_j]` and the edge label (0 without an edge). Two tuples (of the
/// same or different graphs) have equal atomic types iff `i ↦ t_i` is a
/// label-preserving partial isomorphism pattern of the same kind. O(k² log Δ).
///
/// # Errors
/// [`Error::NodeOutOfRange`] for a position `≥ n`.
pub fn atomic_type(g: &Graph, t: &[u32]) -> Result<Vec<u32>> {
    let n = g.n();
    for &v in t {
        if v as usize >= n {
            return Err(Error::NodeOutOfRange {
                node: v as usize,
                n,
            });
        }
    }
    Ok(atomic_type_unchecked(g, t))
}

pub(crate) fn atomic_type_unchecked(g: &Graph, t: &[u32]) -> Vec<u32> {
    let k = t.len();
    let mut out = Vec::with_capacity(k + 3 * k * k.saturating_sub(1) / 2);
    for &v in t {
        out.push(g.node_label(v as usize));
    }
    for i in 0..k {
        for j in i + 1..k {
            let (a, b) = (t[i] as usize, t[j] as usize);
            out.push(u32::from(a == b));
            match g.edge_label(a, b) {
                Some(l) => {
                    out.push(1);
                    out.push(l);
                }
                None => {
                    out.push(0);
                    out.push(0);
                }
            }
        }
    }
    out
}
