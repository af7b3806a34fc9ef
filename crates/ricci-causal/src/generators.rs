//! Deterministic graph constructions (networkx's edge order where one
//! exists, so flows can be compared edge by edge) and seeded random graphs.
//! Every generated graph has nodes `0..n` whose index equals their label.
//! Every generator taking a size checks the node and edge counts with
//! `checked_mul` and against [`mlcore::check::MAX_ALLOC_BYTES`] before
//! allocating: [`crate::Error::TooLarge`] instead of an overflow or abort.

use crate::error::Result;
use crate::graph::WeightedGraph;
use mlcore::check::require;
use rand::{Rng, RngExt};
use std::collections::HashSet;

/// Bytes one edge costs in a built graph (edge list, weight, two adjacency
/// entries, construction buffers), for the size check before generating.
const EDGE_BYTES: usize = 64;

/// Checks that a graph of `n` nodes and `edges` edges (`None`: the count
/// overflowed `usize`) can be allocated.
fn size_check(n: Option<usize>, edges: Option<usize>, what: &'static str) -> Result<()> {
    let too_large = |size: &str| crate::Error::TooLarge {
        what,
        size: size.to_string(),
    };
    let n = n.ok_or_else(|| too_large("the node count overflows usize"))?;
    let m = edges.ok_or_else(|| too_large("the edge count overflows usize"))?;
    mlcore::check::alloc_len(&[n], EDGE_BYTES, what)?;
    mlcore::check::alloc_len(&[m], EDGE_BYTES, what)?;
    Ok(())
}

/// Nodes `0..n` in index order (label = index), weights 1.
fn unweighted(edges: Vec<(usize, usize)>) -> Result<WeightedGraph> {
    let n = edges.iter().map(|&(a, b)| a.max(b) + 1).max().unwrap_or(0);
    WeightedGraph::from_nodes_and_edges(0..n, edges.into_iter().map(|(a, b)| (a, b, 1.0)))
}

/// The complete graph `K_n` (`n ≥ 2`), edges `(i, j)`, `i < j`, lexicographic.
///
/// # Errors
/// [`crate::Error::InvalidParameter`] for `n < 2`.
pub fn complete(n: usize) -> Result<WeightedGraph> {
    require(n >= 2, "n", n as f64, "n ≥ 2")?;
    size_check(
        Some(n),
        n.checked_mul(n - 1).map(|x| x / 2),
        "complete graph",
    )?;
    unweighted(
        (0..n)
            .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
            .collect(),
    )
}

/// The cycle `C_n` (`n ≥ 3`), networkx order `(0,1), (0,n−1), (1,2), …`.
///
/// # Errors
/// [`crate::Error::InvalidParameter`] for `n < 3`.
pub fn cycle(n: usize) -> Result<WeightedGraph> {
    require(n >= 3, "n", n as f64, "n ≥ 3")?;
    size_check(Some(n), Some(n), "cycle")?;
    let mut e = vec![(0, 1), (0, n - 1)];
    e.extend((1..n - 1).map(|i| (i, i + 1)));
    unweighted(e)
}

/// The path `P_n` on `n ≥ 2` nodes.
///
/// # Errors
/// [`crate::Error::InvalidParameter`] for `n < 2`.
pub fn path(n: usize) -> Result<WeightedGraph> {
    require(n >= 2, "n", n as f64, "n ≥ 2")?;
    size_check(Some(n), Some(n), "path")?;
    unweighted((0..n - 1).map(|i| (i, i + 1)).collect())
}

/// The star `K_{1,k}` (centre 0).
///
/// # Errors
/// [`crate::Error::InvalidParameter`] for `k < 1`.
pub fn star(k: usize) -> Result<WeightedGraph> {
    require(k >= 1, "k", k as f64, "k ≥ 1")?;
    size_check(k.checked_add(1), Some(k), "star")?;
    unweighted((1..=k).map(|i| (0, i)).collect())
}

/// The complete bipartite graph `K_{a,b}`.
///
/// # Errors
/// [`crate::Error::InvalidParameter`] for `a` or `b` zero.
pub fn complete_bipartite(a: usize, b: usize) -> Result<WeightedGraph> {
    require(a >= 1, "a", a as f64, "a ≥ 1")?;
    require(b >= 1, "b", b as f64, "b ≥ 1")?;
    size_check(
        a.checked_add(b),
        a.checked_mul(b),
        "complete bipartite graph",
    )?;
    unweighted(
        (0..a)
            .flat_map(|i| (0..b).map(move |j| (i, a + j)))
            .collect(),
    )
}

/// The hypercube `Q_d` (nodes are bit strings).
///
/// # Errors
/// [`crate::Error::InvalidParameter`] for `d < 1`.
pub fn hypercube(d: u32) -> Result<WeightedGraph> {
    require((1..=20).contains(&d), "d", d as f64, "1 ≤ d ≤ 20")?;
    let n = 1usize << d;
    unweighted(
        (0..n)
            .flat_map(|i| (0..d).map(move |k| (i, i ^ (1 << k))))
            .filter(|&(i, j)| i < j)
            .collect(),
    )
}

/// The Petersen graph (networkx's labelling).
pub fn petersen() -> WeightedGraph {
    unweighted(vec![
        (0, 1),
        (0, 4),
        (0, 5),
        (1, 2),
        (1, 6),
        (2, 3),
        (2, 7),
        (3, 4),
        (3, 8),
        (4, 9),
        (5, 7),
        (5, 8),
        (6, 8),
        (6, 9),
        (7, 9),
    ])
    .expect("the Petersen graph is valid")
}

/// The `r × c` grid, node `(i, j)` ↦ `i c + j`.
///
/// # Errors
/// [`crate::Error::InvalidParameter`] unless `r c ≥ 2`.
pub fn grid(r: usize, c: usize) -> Result<WeightedGraph> {
    let n = r.checked_mul(c);
    size_check(n, n.and_then(|n| n.checked_mul(2)), "grid")?;
    require(r * c >= 2, "r·c", (r * c) as f64, "at least 2 nodes")?;
    let mut e = Vec::new();
    for i in 0..r {
        for j in 0..c {
            if j + 1 < c {
                e.push((i * c + j, i * c + j + 1));
            }
            if i + 1 < r {
                e.push((i * c + j, (i + 1) * c + j));
            }
        }
    }
    unweighted(e)
}

/// The balanced `r`-ary tree of height `h` (networkx's breadth-first labels).
///
/// # Errors
/// [`crate::Error::InvalidParameter`] for `r < 1` or `h < 1`.
pub fn balanced_tree(r: usize, h: u32) -> Result<WeightedGraph> {
    require(r >= 1, "r", r as f64, "r ≥ 1")?;
    require(h >= 1, "h", f64::from(h), "h ≥ 1")?;
    let n = (0..=h).try_fold(0usize, |acc, k| acc.checked_add(r.checked_pow(k)?));
    size_check(n, n, "balanced tree")?;
    let n = n.unwrap_or(0);
    unweighted((1..n).map(|v| ((v - 1) / r, v)).collect())
}

/// networkx's `barbell_graph(k, l)`: two `K_k` joined by a path of `l`
/// nodes (`l = 0`: one bridge edge), networkx's edge order.
///
/// # Errors
/// [`crate::Error::InvalidParameter`] for `k < 2`.
pub fn barbell(k: usize, l: usize) -> Result<WeightedGraph> {
    require(k >= 2, "k", k as f64, "k ≥ 2")?;
    let n = k.checked_mul(2).and_then(|x| x.checked_add(l));
    let m = k
        .checked_mul(k - 1)
        .and_then(|x| x.checked_add(l)?.checked_add(1));
    size_check(n, m, "barbell")?;
    let mut e: Vec<(usize, usize)> = (0..k)
        .flat_map(|i| (i + 1..k).map(move |j| (i, j)))
        .collect();
    // Path k..k+l, attached to k−1 and to the second clique.
    let second = k + l;
    let mut prev = k - 1;
    for v in k..second {
        e.push((prev, v));
        prev = v;
    }
    e.push((prev, second));
    e.extend((second..second + k).flat_map(|i| (i + 1..second + k).map(move |j| (i, j))));
    // networkx order: by smaller end, then larger.
    let mut e: Vec<(usize, usize)> = e.into_iter().map(|(a, b)| (a.min(b), a.max(b))).collect();
    e.sort_unstable();
    unweighted(e)
}

/// Zachary's karate club, in the edge order of networkx's
/// `karate_club_graph().edges()` (78 edges, weights cleared to 1).
pub fn karate() -> WeightedGraph {
    const E: [(usize, usize); 78] = [
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 4),
        (0, 5),
        (0, 6),
        (0, 7),
        (0, 8),
        (0, 10),
        (0, 11),
        (0, 12),
        (0, 13),
        (0, 17),
        (0, 19),
        (0, 21),
        (0, 31),
        (1, 2),
        (1, 3),
        (1, 7),
        (1, 13),
        (1, 17),
        (1, 19),
        (1, 21),
        (1, 30),
        (2, 3),
        (2, 7),
        (2, 8),
        (2, 9),
        (2, 13),
        (2, 27),
        (2, 28),
        (2, 32),
        (3, 7),
        (3, 12),
        (3, 13),
        (4, 6),
        (4, 10),
        (5, 6),
        (5, 10),
        (5, 16),
        (6, 16),
        (8, 30),
        (8, 32),
        (8, 33),
        (9, 33),
        (13, 33),
        (14, 32),
        (14, 33),
        (15, 32),
        (15, 33),
        (18, 32),
        (18, 33),
        (19, 33),
        (20, 32),
        (20, 33),
        (22, 32),
        (22, 33),
        (23, 25),
        (23, 27),
        (23, 29),
        (23, 32),
        (23, 33),
        (24, 25),
        (24, 27),
        (24, 31),
        (25, 31),
        (26, 29),
        (26, 33),
        (27, 33),
        (28, 31),
        (28, 33),
        (29, 32),
        (29, 33),
        (30, 32),
        (30, 33),
        (31, 32),
        (31, 33),
        (32, 33),
    ];
    unweighted(E.to_vec()).expect("the karate graph is valid")
}

/// A uniformly random simple graph with `n` nodes and `m` edges
/// (Erdős–Rényi `G(n, m)`), nodes `0..n` all present, edges in the order
/// drawn. Rejection sampling, `O(m)` expected for `m ≪ n²/2`.
///
/// # Errors
/// [`crate::Error::InvalidParameter`] unless `1 ≤ m ≤ n(n−1)/2`.
pub fn gnm<R: Rng + ?Sized>(n: usize, m: usize, rng: &mut R) -> Result<WeightedGraph> {
    require(n >= 2, "n", n as f64, "n ≥ 2")?;
    let pairs = n.checked_mul(n - 1).map_or(usize::MAX, |x| x / 2);
    require(m >= 1 && m <= pairs, "m", m as f64, "1 ≤ m ≤ n(n−1)/2")?;
    size_check(Some(n), Some(m), "G(n, m)")?;
    let mut seen = HashSet::with_capacity(m);
    let mut e = Vec::with_capacity(m);
    while e.len() < m {
        let a = rng.random_range(0..n);
        let b = rng.random_range(0..n);
        if a == b {
            continue;
        }
        let key = (a.min(b), a.max(b));
        if seen.insert(key) {
            e.push(key);
        }
    }
    WeightedGraph::from_nodes_and_edges(0..n, e.into_iter().map(|(a, b)| (a, b, 1.0)))
}

/// A planted-partition graph with bridges: `k` communities of `size`
/// nodes (node `i` in community `i / size`), each pair inside a community
/// joined with probability `p_in`, plus `bridges` distinct random edges
/// between different communities, plus one edge from community `c` to
/// `c + 1 (mod k)` so the graph is connected whenever each community is.
/// Returns the graph and the community labels.
///
/// # Errors
/// [`crate::Error::InvalidParameter`] for `k < 2`, `size < 2`,
/// `p_in ∉ (0, 1]`.
pub fn planted_partition<R: Rng + ?Sized>(
    k: usize,
    size: usize,
    p_in: f64,
    bridges: usize,
    rng: &mut R,
) -> Result<(WeightedGraph, Vec<usize>)> {
    require(k >= 2, "k", k as f64, "k ≥ 2")?;
    require(size >= 2, "size", size as f64, "size ≥ 2")?;
    require(p_in > 0.0 && p_in <= 1.0, "p_in", p_in, "p_in ∈ (0, 1]")?;
    let n = k.checked_mul(size);
    // Inside pairs k·size(size−1)/2 (each drawn), plus ring and bridges.
    let inside = size
        .checked_mul(size - 1)
        .and_then(|x| (x / 2).checked_mul(k));
    let cross = n.and_then(|n| n.checked_mul(n - size)).map(|x| x / 2);
    require(
        cross.is_none_or(|c| bridges <= c),
        "bridges",
        bridges as f64,
        "at most the number of node pairs in different communities",
    )?;
    size_check(
        n,
        inside.and_then(|x| x.checked_add(k)?.checked_add(bridges)),
        "planted partition",
    )?;
    let n = k * size;
    let mut seen = HashSet::new();
    let mut e = Vec::new();
    for c in 0..k {
        for i in c * size..(c + 1) * size {
            for j in i + 1..(c + 1) * size {
                if rng.random::<f64>() < p_in {
                    seen.insert((i, j));
                    e.push((i, j));
                }
            }
        }
        // A spanning path inside the community keeps it connected.
        for i in c * size..(c + 1) * size - 1 {
            if seen.insert((i, i + 1)) {
                e.push((i, i + 1));
            }
        }
    }
    for c in 0..k {
        let a = c * size + rng.random_range(0..size);
        let b = ((c + 1) % k) * size + rng.random_range(0..size);
        if seen.insert((a.min(b), a.max(b))) {
            e.push((a.min(b), a.max(b)));
        }
    }
    let mut added = 0;
    let mut tries = 0;
    let max_tries = bridges.saturating_add(1).saturating_mul(100);
    while added < bridges && tries < max_tries {
        tries += 1;
        let a = rng.random_range(0..n);
        let b = rng.random_range(0..n);
        if a / size == b / size {
            continue;
        }
        if seen.insert((a.min(b), a.max(b))) {
            e.push((a.min(b), a.max(b)));
            added += 1;
        }
    }
    let g = WeightedGraph::from_nodes_and_edges(0..n, e.into_iter().map(|(a, b)| (a, b, 1.0)))?;
    Ok((g, (0..n).map(|i| i / size).collect()))
}
