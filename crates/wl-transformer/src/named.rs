//! Named graphs and the pair constructions of the paper's table: cycles,
//! complete and complete bipartite graphs, prisms, decalin and
//! bicyclopentyl, the Shrikhande graph and the 4×4 rook's graph, and the
//! Cai–Fürer–Immerman graph CFI(H) with its twisted copy.

use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::wl::Variant;

fn bad(name: &'static str, value: usize, reason: &'static str) -> Error {
    Error::BadParameter {
        name,
        value: value.to_string(),
        reason,
    }
}

/// The cycle `C_n` (edges `i ~ i+1 mod n`).
///
/// # Errors
/// [`Error::BadParameter`] for `n < 3`.
pub fn cycle(n: usize) -> Result<Graph> {
    if n < 3 {
        return Err(bad("n", n, "a simple cycle needs n >= 3"));
    }
    let edges: Vec<(usize, usize)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
    Graph::from_edges(n, &edges)
}

/// The path `P_n` on `n` nodes.
///
/// # Errors
/// [`Error::Empty`] for `n = 0`.
pub fn path(n: usize) -> Result<Graph> {
    if n == 0 {
        return Err(Error::Empty("path on zero nodes"));
    }
    let edges: Vec<(usize, usize)> = (1..n).map(|i| (i - 1, i)).collect();
    Graph::from_edges(n, &edges)
}

/// The complete graph `K_n`.
///
/// # Errors
/// [`Error::Empty`] for `n = 0`; [`Error::TooManyTuples`] when `n²` exceeds the tuple limit.
pub fn complete(n: usize) -> Result<Graph> {
    if n == 0 {
        return Err(Error::Empty("complete graph on zero nodes"));
    }
    crate::tokens::check_count(n, 2, crate::tokens::DEFAULT_TUPLE_LIMIT)?;
    let mut edges = Vec::new();
    for i in 0..n {
        for j in i + 1..n {
            edges.push((i, j));
        }
    }
    Graph::from_edges(n, &edges)
}

/// The complete bipartite graph `K_{a,b}` (parts `0..a` and `a..a+b`).
///
/// # Errors
/// [`Error::Empty`] when `a + b = 0`; [`Error::TooManyTuples`] when `a·b` is too large.
pub fn complete_bipartite(a: usize, b: usize) -> Result<Graph> {
    if a + b == 0 {
        return Err(Error::Empty("complete bipartite graph on zero nodes"));
    }
    let count = a.checked_mul(b).ok_or(Error::TooManyTuples {
        n: a + b,
        k: 2,
        limit: crate::tokens::DEFAULT_TUPLE_LIMIT,
    })?;
    if count > crate::tokens::DEFAULT_TUPLE_LIMIT {
        return Err(Error::TooManyTuples {
            n: a + b,
            k: 2,
            limit: crate::tokens::DEFAULT_TUPLE_LIMIT,
        });
    }
    let mut edges = Vec::with_capacity(count);
    for i in 0..a {
        for j in 0..b {
            edges.push((i, a + j));
        }
    }
    Graph::from_edges(a + b, &edges)
}

/// The prism `C_n □ K_2`: two `n`-cycles `0..n`, `n..2n` and the rungs `i ~ n+i`.
/// `prism(3)` is the triangular prism of the table (6 nodes, 9 edges).
///
/// # Errors
/// [`Error::BadParameter`] for `n < 3`.
pub fn prism(n: usize) -> Result<Graph> {
    if n < 3 {
        return Err(bad("n", n, "a prism needs n >= 3"));
    }
    let mut edges = Vec::new();
    for i in 0..n {
        edges.push((i, (i + 1) % n));
        edges.push((n + i, n + (i + 1) % n));
        edges.push((i, n + i));
    }
    Graph::from_edges(2 * n, &edges)
}

/// Decalin's carbon skeleton: `C_10` plus the chord `(0, 5)` (10 nodes, 11 edges).
pub fn decalin() -> Graph {
    let mut edges: Vec<(usize, usize)> = (0..10).map(|i| (i, (i + 1) % 10)).collect();
    edges.push((0, 5));
    Graph::from_edges(10, &edges).expect("decalin is a valid simple graph")
}

/// Bicyclopentyl's carbon skeleton: two `C_5` (`0..5`, `5..10`) joined by the
/// edge `(0, 5)` (10 nodes, 11 edges).
pub fn bicyclopentyl() -> Graph {
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for base in [0, 5] {
        for i in 0..5 {
            edges.push((base + i, base + (i + 1) % 5));
        }
    }
    edges.push((0, 5));
    Graph::from_edges(10, &edges).expect("bicyclopentyl is a valid simple graph")
}

/// The Shrikhande graph: the Cayley graph on `Z₄ × Z₄` with generators
/// `±(1,0), ±(0,1), ±(1,1)`; node `(a, b)` is `4a + b`. Strongly regular
/// with parameters (16, 6, 2, 2), like [`rook_4x4`].
pub fn shrikhande() -> Graph {
    let mut edges = Vec::new();
    for a in 0..4usize {
        for b in 0..4usize {
            for (da, db) in [(1, 0), (0, 1), (1, 1)] {
                let (a2, b2) = ((a + da) % 4, (b + db) % 4);
                edges.push((4 * a + b, 4 * a2 + b2));
            }
        }
    }
    Graph::from_edges(16, &edges).expect("the Shrikhande graph is a valid simple graph")
}

/// The 4×4 rook's graph `K_4 □ K_4`: `(a, b) ~ (a', b')` iff exactly one
/// coordinate agrees; node `(a, b)` is `4a + b`. Strongly regular (16, 6, 2, 2).
pub fn rook_4x4() -> Graph {
    let mut edges = Vec::new();
    for u in 0..16usize {
        for v in u + 1..16 {
            if (u / 4 == v / 4) != (u % 4 == v % 4) {
                edges.push((u, v));
            }
        }
    }
    Graph::from_edges(16, &edges).expect("the rook's graph is a valid simple graph")
}

/// The Cai–Fürer–Immerman graph CFI(H) (Cai, Fürer & Immerman 1992), or its
/// twisted copy.
///
/// For each vertex `v` of `H` with incident edges `E(v)` (degree `d`): one
/// *middle* vertex per even subset `S ⊆ E(v)` (`2^{d−1}` of them; one for
/// `d = 0`) and two *end* vertices `a⁰_{v,e}, a¹_{v,e}` per `e ∈ E(v)`;
/// `middle(S) ~ a¹_{v,e}` if `e ∈ S`, else `~ a⁰_{v,e}`. Across each edge
/// `e = uv` of `H`, `a^i_{u,e} ~ a^i_{v,e}` for `i ∈ {0, 1}`; the twisted copy
/// crosses the first edge of `H` instead (`a^i_{u,e} ~ a^{1−i}_{v,e}`). For
/// connected `H` the two are non-isomorphic, and k-WL distinguishes them only
/// for k at least about the treewidth of `H`.
///
/// Nodes: per vertex of `H` in order, its middle vertices (subsets in
/// increasing bit-mask order) then its end vertices (`a⁰, a¹` per incident
/// edge in `E(v)` order). O(Σ_v 2^{deg v}·deg v).
///
/// # Errors
/// [`Error::BadParameter`] when `H` has a vertex of degree above 20 (2^20
/// middle vertices) or when `twisted` is asked of an edgeless `H`.
pub fn cfi(h: &Graph, twisted: bool) -> Result<Graph> {
    if twisted && h.m() == 0 {
        return Err(bad("m", 0, "a twisted CFI copy needs at least one edge"));
    }
    let n_h = h.n();
    // Incident edges of each vertex as edge indices into h.edges().
    let mut incident: Vec<Vec<usize>> = vec![Vec::new(); n_h];
    for (i, &(u, v)) in h.edges().iter().enumerate() {
        incident[u as usize].push(i);
        incident[v as usize].push(i);
    }
    // end[(v, position of e in E(v))] = index of a⁰; a¹ = a⁰ + 1.
    let mut next = 0usize;
    let mut end_base: Vec<Vec<usize>> = Vec::with_capacity(n_h);
    let mut edges: Vec<(usize, usize)> = Vec::new();
    for inc in &incident {
        let d = inc.len();
        if d > 20 {
            return Err(bad(
                "degree",
                d,
                "CFI gadgets are built for degrees up to 20",
            ));
        }
        let middles: Vec<u32> = (0u32..(1u32 << d))
            .filter(|s| s.count_ones() % 2 == 0)
            .collect();
        let first_end = next + middles.len();
        for (mi, &s) in middles.iter().enumerate() {
            for pos in 0..d {
                let bit = ((s >> pos) & 1) as usize;
                edges.push((next + mi, first_end + 2 * pos + bit));
            }
        }
        end_base.push((0..d).map(|pos| first_end + 2 * pos).collect());
        next = first_end + 2 * d;
    }
    for (i, &(u, v)) in h.edges().iter().enumerate() {
        let (u, v) = (u as usize, v as usize);
        let pu = incident[u]
            .iter()
            .position(|&e| e == i)
            .expect("incident edge");
        let pv = incident[v]
            .iter()
            .position(|&e| e == i)
            .expect("incident edge");
        let (au, av) = (end_base[u][pu], end_base[v][pv]);
        if twisted && i == 0 {
            edges.push((au, av + 1));
            edges.push((au + 1, av));
        } else {
            edges.push((au, av));
            edges.push((au + 1, av + 1));
        }
    }
    Graph::from_edges(next, &edges)
}

/// The WL variants of the paper's pair table, in its column order: 1-WL,
/// 2-WL, δ-2-WL, δ-2-LWL, (2,1)-LWL, 2-FWL, (3,1)-LWL, 3-WL, δ-3-WL, 3-FWL.
pub const TABLE_VARIANTS: [Variant; 10] = [
    Variant::OneWl,
    Variant::Oblivious { k: 2 },
    Variant::Delta { k: 2 },
    Variant::DeltaLocal { k: 2 },
    Variant::Local { k: 2, s: 1 },
    Variant::Folklore { k: 2 },
    Variant::Local { k: 3, s: 1 },
    Variant::Oblivious { k: 3 },
    Variant::Delta { k: 3 },
    Variant::Folklore { k: 3 },
];

/// One cell of the paper's pair table: `Some(Some(i))` = distinguished first
/// at round i (T@i), `Some(None)` = not distinguished (F), `None` = no entry
/// ("–", or a bare "T" listed in [`TABLE_BARE_T`]).
pub type TableCell = Option<Option<usize>>;

const F: TableCell = Some(None);
const X: TableCell = None;
const fn t(i: usize) -> TableCell {
    Some(Some(i))
}

/// The paper's pair table as published (rows in [`table_pairs`] order,
/// columns in [`TABLE_VARIANTS`] order): the expected verdicts that the
/// tests, the `wl_pairs` example and the runner compare the refinement with.
pub const PAPER_TABLE: [[TableCell; 10]; 6] = [
    [F, F, t(1), t(1), t(1), t(1), X, X, X, X],
    [F, F, t(1), t(1), t(1), t(1), X, X, X, X],
    [F, F, t(2), t(2), F, t(2), F, X, X, X],
    [F, F, F, F, F, F, t(1), F, t(1), t(1)],
    [F, F, t(4), t(4), F, t(3), F, X, X, X],
    [F, F, F, F, F, F, X, X, X, t(3)],
];

/// Cells (row, column) the paper's table writes as a bare "T":
/// distinguished, round not given.
pub const TABLE_BARE_T: [(usize, usize); 3] = [(0, 6), (1, 6), (4, 9)];

/// The graph pairs of the paper's table, in the table's order: C6 vs 2×C3,
/// K3,3 vs prism, decalin vs bicyclopentyl, Shrikhande vs 4×4 rook, CFI(K3)
/// vs twisted, CFI(K4) vs twisted.
pub fn table_pairs() -> Vec<(&'static str, Graph, Graph)> {
    let c3 = cycle(3).expect("C3");
    let k3 = complete(3).expect("K3");
    let k4 = complete(4).expect("K4");
    vec![
        (
            "C6 vs 2xC3",
            cycle(6).expect("C6"),
            c3.disjoint_union(&c3).expect("2xC3"),
        ),
        (
            "K3,3 vs prism",
            complete_bipartite(3, 3).expect("K33"),
            prism(3).expect("prism"),
        ),
        ("decalin vs bicyclopentyl", decalin(), bicyclopentyl()),
        ("Shrikhande vs 4x4 rook", shrikhande(), rook_4x4()),
        (
            "CFI(K3) vs twisted",
            cfi(&k3, false).expect("CFI"),
            cfi(&k3, true).expect("CFI"),
        ),
        (
            "CFI(K4) vs twisted",
            cfi(&k4, false).expect("CFI"),
            cfi(&k4, true).expect("CFI"),
        ),
    ]
}
