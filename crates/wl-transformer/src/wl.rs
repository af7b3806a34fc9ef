//! Colour refinement: 1-WL and the tuple variants of the Weisfeiler–Leman
//! hierarchy, run jointly on graphs with one shared palette.
//!
//! Notation: a tuple `t = (t₁..t_k) ∈ V^k`, `φ_j(t, w)` is `t` with position
//! `j` replaced by `w`. The initial colour of a tuple is its
//! [`atomic type`](crate::tokens::atomic_type) (for 1-WL: the node label).
//! One round maps colour `c` to `c⁺`:
//!
//! | [`Variant`] | `c⁺(t) = (c(t), …)` |
//! |---|---|
//! | `OneWl` | `{{(c(w), ℓ(v,w)) : w ∈ N(v)}}` (edge labels ℓ) |
//! | `Oblivious{k}` (k-WL) | `({{c(φ₁(t,w)) : w ∈ V}}, …, {{c(φ_k(t,w)) : w ∈ V}})` |
//! | `Folklore{k}` (k-FWL) | `{{(c(φ₁(t,w)), …, c(φ_k(t,w))) : w ∈ V}}` |
//! | `Delta{k}` (δ-k-WL) | `({{(c(φ_j(t,w)), [w ∈ N(t_j)]) : w ∈ V}})_j` |
//! | `DeltaLocal{k}` (δ-k-LWL) | `({{c(φ_j(t,w)) : w ∈ N(t_j)}})_j` |
//! | `Local{k,s}` ((k,s)-LWL) | `({{c(φ_j(t,w)) : w ∈ N(t_j), φ_j(t,w) ∈ V^k_s}})_j` on `t ∈ V^k_s` |
//!
//! Colours are canonical: after each round the distinct signatures of all
//! graphs together are sorted and numbered, so colour ids depend only on
//! the input (not on hashing or thread order), and the parallel run (feature
//! `parallel`) equals the serial one. Each colour also carries a
//! version-stable 64-bit hash (FNV-1a over its signature, multisets hashed
//! in sorted order), comparable across separate runs and graphs.
//!
//! Cost per round: `|T|·k·n` signature entries for the dense variants
//! (`|T| = n^k`), `|T|·k·Δ` for the local ones, plus a sort of the
//! signatures.

use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::tokens::{DEFAULT_TUPLE_LIMIT, TokenSet, atomic_type_unchecked, check_count};

/// Upper bound on the signature entries held in one round (2²⁸ `u32`, 1 GiB).
pub const MAX_SIGNATURE_ENTRIES: usize = 1 << 28;

/// A member of the Weisfeiler–Leman hierarchy (see the module table).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Variant {
    /// 1-WL (colour refinement) on nodes.
    OneWl,
    /// The oblivious k-WL on `V^k`.
    Oblivious {
        /// Order k ≥ 1.
        k: usize,
    },
    /// The folklore k-FWL on `V^k`.
    Folklore {
        /// Order k ≥ 1.
        k: usize,
    },
    /// δ-k-WL (Morris, Rattan & Mutzel 2020): k-WL with adjacency tags.
    Delta {
        /// Order k ≥ 1.
        k: usize,
    },
    /// δ-k-LWL: the local δ-k-WL (only neighbours `w ∈ N(t_j)`).
    DeltaLocal {
        /// Order k ≥ 1.
        k: usize,
    },
    /// (k,s)-LWL (SpeqNets): local refinement on `V^k_s`.
    Local {
        /// Order k ≥ 1.
        k: usize,
        /// Component bound `s ∈ 1..=k`.
        s: usize,
    },
}

impl Variant {
    /// The tuple order (1 for 1-WL).
    pub fn order(self) -> usize {
        match self {
            Variant::OneWl => 1,
            Variant::Oblivious { k }
            | Variant::Folklore { k }
            | Variant::Delta { k }
            | Variant::DeltaLocal { k }
            | Variant::Local { k, .. } => k,
        }
    }

    /// A short name: `1-WL`, `2-WL`, `2-FWL`, `δ-2-WL`, `δ-2-LWL`, `(2,1)-LWL`.
    pub fn name(self) -> String {
        match self {
            Variant::OneWl => "1-WL".into(),
            Variant::Oblivious { k } => format!("{k}-WL"),
            Variant::Folklore { k } => format!("{k}-FWL"),
            Variant::Delta { k } => format!("δ-{k}-WL"),
            Variant::DeltaLocal { k } => format!("δ-{k}-LWL"),
            Variant::Local { k, s } => format!("({k},{s})-LWL"),
        }
    }

    fn check(self) -> Result<()> {
        let k = self.order();
        if k == 0 {
            return Err(Error::OrderZero);
        }
        if let Variant::Local { s, k } = self
            && (s == 0 || s > k)
        {
            return Err(Error::BadComponentBound { s, k });
        }
        Ok(())
    }

    /// (groups, arity, whether the second element entry is a raw value
    /// (edge label or adjacency tag) rather than a colour).
    fn layout(self) -> (usize, usize, bool) {
        match self {
            Variant::OneWl => (1, 2, true),
            Variant::Oblivious { k } | Variant::DeltaLocal { k } | Variant::Local { k, .. } => {
                (k, 1, false)
            }
            Variant::Folklore { k } => (1, k, false),
            Variant::Delta { k } => (k, 2, true),
        }
    }
}

/// The tuple space of one graph under a variant.
struct Space<'g> {
    g: &'g Graph,
    tokens: TokenSet,
    dense: bool,
    pow: Vec<usize>,
}

impl<'g> Space<'g> {
    fn new(g: &'g Graph, v: Variant) -> Result<Space<'g>> {
        let n = g.n();
        let k = v.order();
        let (tokens, dense) = match v {
            Variant::OneWl => (TokenSet::all(n, 1)?, true),
            Variant::Local { k, s } => (TokenSet::connected(g, k, s)?, false),
            _ => (TokenSet::all(n, k)?, true),
        };
        let mut pow = vec![1usize; k];
        for j in (0..k.saturating_sub(1)).rev() {
            pow[j] = pow[j + 1] * n;
        }
        Ok(Space {
            g,
            tokens,
            dense,
            pow,
        })
    }

    fn phi(
        &self,
        idx: usize,
        t: &[u32],
        j: usize,
        w: u32,
        scratch: &mut Vec<u32>,
    ) -> Option<usize> {
        if self.dense {
            Some(idx - t[j] as usize * self.pow[j] + w as usize * self.pow[j])
        } else {
            scratch.clear();
            scratch.extend_from_slice(t);
            scratch[j] = w;
            self.tokens.index_of(scratch)
        }
    }

    /// Appends the signature of tuple `idx` under `colours` to `out`.
    fn signature(&self, v: Variant, colours: &[u32], idx: usize, out: &mut Vec<u32>) {
        let t = self.tokens.get(idx).expect("index in range");
        let n = self.g.n() as u32;
        let mut scratch = Vec::with_capacity(t.len());
        let mut elems: Vec<[u32; 2]> = Vec::new();
        out.push(colours[idx]);
        match v {
            Variant::OneWl => {
                let vtx = t[0] as usize;
                elems.extend(
                    self.g
                        .neighbours(vtx)
                        .iter()
                        .zip(self.g.neighbour_labels(vtx))
                        .map(|(&w, &l)| [colours[w as usize], l]),
                );
                push_group(out, &mut elems, 2);
            }
            Variant::Folklore { k } if k <= 4 => {
                // Pack the k colours of each w into one u128 (lexicographic
                // order preserved), sort, unpack.
                let mut packed: Vec<u128> = (0..n)
                    .map(|w| {
                        (0..k).fold(0u128, |acc, j| {
                            let c = colours[self.phi(idx, t, j, w, &mut scratch).expect("dense")];
                            acc << 32 | u128::from(c)
                        })
                    })
                    .collect();
                packed.sort_unstable();
                out.push(packed.len() as u32);
                for p in packed {
                    for j in (0..k).rev() {
                        out.push((p >> (32 * j)) as u32);
                    }
                }
            }
            Variant::Folklore { k } => {
                let mut rows: Vec<Vec<u32>> = (0..n)
                    .map(|w| {
                        (0..k)
                            .map(|j| colours[self.phi(idx, t, j, w, &mut scratch).expect("dense")])
                            .collect()
                    })
                    .collect();
                rows.sort_unstable();
                out.push(rows.len() as u32);
                for r in rows {
                    out.extend_from_slice(&r);
                }
            }
            Variant::Oblivious { k } | Variant::Delta { k } => {
                let tagged = matches!(v, Variant::Delta { .. });
                for j in 0..k {
                    elems.clear();
                    for w in 0..n {
                        let c = colours[self.phi(idx, t, j, w, &mut scratch).expect("dense")];
                        let tag = u32::from(tagged && self.g.has_edge(t[j] as usize, w as usize));
                        elems.push([c, tag]);
                    }
                    push_group(out, &mut elems, if tagged { 2 } else { 1 });
                }
            }
            Variant::DeltaLocal { k } | Variant::Local { k, .. } => {
                for j in 0..k {
                    elems.clear();
                    for &w in self.g.neighbours(t[j] as usize) {
                        if let Some(i) = self.phi(idx, t, j, w, &mut scratch) {
                            elems.push([colours[i], 0]);
                        }
                    }
                    push_group(out, &mut elems, 1);
                }
            }
        }
    }
}

fn push_group(out: &mut Vec<u32>, elems: &mut [[u32; 2]], arity: usize) {
    elems.sort_unstable();
    out.push(elems.len() as u32);
    for e in elems.iter() {
        out.extend_from_slice(&e[..arity]);
    }
}

/// FNV-1a (64-bit) over the little-endian bytes of `words`, continuing
/// from `state` (start with [`FNV_OFFSET`]).
pub fn fnv1a64(state: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(state, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The FNV-1a 64-bit offset basis.
pub const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

fn hash_words(words: &[u64]) -> u64 {
    words
        .iter()
        .fold(FNV_OFFSET, |h, w| fnv1a64(h, &w.to_le_bytes()))
}

/// Version-stable hash of a signature given the hashes of the previous colours.
fn hash_signature(sig: &[u32], v: Variant, prev: &[u64]) -> u64 {
    let (groups, arity, raw_second) = v.layout();
    let mut words = vec![prev[sig[0] as usize]];
    let mut pos = 1;
    let mut elem_hashes = Vec::new();
    let mut elem = Vec::with_capacity(arity);
    for _ in 0..groups {
        let len = sig[pos] as usize;
        pos += 1;
        elem_hashes.clear();
        for _ in 0..len {
            elem.clear();
            for a in 0..arity {
                let x = sig[pos + a];
                let raw = raw_second && a == 1;
                elem.push(if raw { u64::from(x) } else { prev[x as usize] });
            }
            elem_hashes.push(hash_words(&elem));
            pos += arity;
        }
        elem_hashes.sort_unstable();
        elem_hashes.insert(0, len as u64);
        words.push(hash_words(&elem_hashes));
    }
    hash_words(&words)
}

/// Canonical colours of all tuples of all spaces for one round, from the
/// per-tuple signatures: returns (colours per space, hash per colour).
fn canonical(
    sigs: Vec<Vec<Vec<u32>>>,
    v: Option<(Variant, &[u64])>,
    with_hashes: bool,
) -> (Vec<Vec<u32>>, Vec<u64>, usize) {
    let mut uniq: Vec<&Vec<u32>> = sigs.iter().flatten().collect();
    uniq.sort_unstable();
    uniq.dedup();
    let hashes: Vec<u64> = match v {
        _ if !with_hashes => Vec::new(),
        Some((var, prev)) => uniq.iter().map(|s| hash_signature(s, var, prev)).collect(),
        None => uniq
            .iter()
            .map(|s| hash_words(&s.iter().map(|&x| u64::from(x)).collect::<Vec<_>>()))
            .collect(),
    };
    let rank: std::collections::HashMap<&[u32], u32> = uniq
        .iter()
        .enumerate()
        .map(|(i, s)| (s.as_slice(), i as u32))
        .collect();
    let colours = sigs
        .iter()
        .map(|space| space.iter().map(|s| rank[s.as_slice()]).collect())
        .collect();
    let classes = uniq.len();
    (colours, hashes, classes)
}

fn signatures(space: &Space<'_>, v: Variant, colours: &[u32]) -> Vec<Vec<u32>> {
    let one = |i: usize| {
        let mut out = Vec::new();
        space.signature(v, colours, i, &mut out);
        out
    };
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        (0..space.tokens.len()).into_par_iter().map(one).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        (0..space.tokens.len()).map(one).collect()
    }
}

/// State of a joint refinement.
struct Joint<'g> {
    v: Variant,
    spaces: Vec<Space<'g>>,
    colours: Vec<Vec<u32>>,
    hashes: Vec<u64>,
    classes: usize,
    with_hashes: bool,
}

impl<'g> Joint<'g> {
    fn new(graphs: &[&'g Graph], v: Variant, with_hashes: bool) -> Result<Joint<'g>> {
        v.check()?;
        let k = v.order();
        let mut spaces = Vec::with_capacity(graphs.len());
        for g in graphs {
            if !matches!(v, Variant::Local { .. } | Variant::OneWl) {
                check_count(g.n(), k, DEFAULT_TUPLE_LIMIT)?;
            }
            let space = Space::new(g, v)?;
            // Entries per signature: 1 + groups·(1 + n·arity) bounds every variant.
            let (groups, arity, _) = v.layout();
            let per = g
                .n()
                .checked_mul(arity)
                .and_then(|x| x.checked_add(1))
                .and_then(|x| x.checked_mul(groups))
                .and_then(|x| x.checked_add(1));
            let local = matches!(
                v,
                Variant::OneWl | Variant::Local { .. } | Variant::DeltaLocal { .. }
            );
            let total = if local {
                Some(space.tokens.len() * (1 + groups) + 2 * g.m() * arity * k.max(1))
            } else {
                per.and_then(|p| p.checked_mul(space.tokens.len()))
            };
            if total.is_none_or(|t| t > MAX_SIGNATURE_ENTRIES) {
                return Err(Error::TooManyTuples {
                    n: g.n(),
                    k,
                    limit: MAX_SIGNATURE_ENTRIES,
                });
            }
            spaces.push(space);
        }
        let init: Vec<Vec<Vec<u32>>> = spaces
            .iter()
            .map(|sp| match v {
                Variant::OneWl => (0..sp.g.n()).map(|i| vec![sp.g.node_label(i)]).collect(),
                _ => sp
                    .tokens
                    .iter()
                    .map(|t| atomic_type_unchecked(sp.g, t))
                    .collect(),
            })
            .collect();
        let (colours, hashes, classes) = canonical(init, None, with_hashes);
        Ok(Joint {
            v,
            spaces,
            colours,
            hashes,
            classes,
            with_hashes,
        })
    }

    /// One round; returns whether the partition got finer.
    fn round(&mut self) -> bool {
        let sigs: Vec<Vec<Vec<u32>>> = self
            .spaces
            .iter()
            .zip(&self.colours)
            .map(|(sp, c)| signatures(sp, self.v, c))
            .collect();
        let (colours, hashes, classes) =
            canonical(sigs, Some((self.v, &self.hashes)), self.with_hashes);
        let finer = classes > self.classes;
        self.classes = classes;
        self.colours = colours;
        self.hashes = hashes;
        finer
    }

    fn histogram(&self, i: usize) -> Vec<usize> {
        let mut h = vec![0usize; self.classes];
        for &c in &self.colours[i] {
            h[c as usize] += 1;
        }
        h
    }
}

/// `(colour, count)` pairs of a colouring, sorted by colour. O(T log T).
fn sparse_histogram(colours: &[u32]) -> Vec<(u32, usize)> {
    let mut c = colours.to_vec();
    c.sort_unstable();
    let mut out: Vec<(u32, usize)> = Vec::new();
    for x in c {
        match out.last_mut() {
            Some((y, n)) if *y == x => *n += 1,
            _ => out.push((x, 1)),
        }
    }
    out
}

/// Result of [`refine_pair`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PairOutcome {
    /// Whether the colour histograms of the two graphs ever differed.
    pub distinguished: bool,
    /// The first round whose histograms differ (0 = initial colours).
    pub iteration: Option<usize>,
    /// Number of joint colour classes when the run stopped.
    pub stable_classes: usize,
    /// Rounds run.
    pub rounds: usize,
    /// Whether the joint colouring reached a fixed point (false only when
    /// `max_iter` stopped it first, or it stopped at a distinction).
    pub stable: bool,
}

/// Refines `g1` and `g2` jointly (shared palette) under `v` until their
/// colour histograms differ or the joint partition is stable, at most
/// `max_iter` rounds (`None`: until stable; at most |T₁|+|T₂| rounds).
///
/// Distinguished ⇒ non-isomorphic (the refinement is isomorphism-invariant).
///
/// # Errors
/// [`Error::OrderZero`], [`Error::BadComponentBound`],
/// [`Error::TooManyTuples`] when `n^k` (or the signatures of one round)
/// exceed the limits.
pub fn refine_pair(
    g1: &Graph,
    g2: &Graph,
    v: Variant,
    max_iter: Option<usize>,
) -> Result<PairOutcome> {
    let mut joint = Joint::new(&[g1, g2], v, false)?;
    let mut rounds = 0;
    loop {
        if joint.histogram(0) != joint.histogram(1) {
            return Ok(PairOutcome {
                distinguished: true,
                iteration: Some(rounds),
                stable_classes: joint.classes,
                rounds,
                stable: false,
            });
        }
        if max_iter.is_some_and(|m| rounds >= m) {
            return Ok(PairOutcome {
                distinguished: false,
                iteration: None,
                stable_classes: joint.classes,
                rounds,
                stable: false,
            });
        }
        let finer = joint.round();
        rounds += 1;
        if !finer {
            return Ok(PairOutcome {
                distinguished: false,
                iteration: None,
                stable_classes: joint.classes,
                rounds,
                stable: true,
            });
        }
    }
}

/// The stable colouring of one graph under a variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Colouring {
    /// The tuples coloured (nodes as 1-tuples for 1-WL).
    pub tokens: TokenSet,
    /// Canonical colour id per tuple (ids of this graph's own palette).
    pub colours: Vec<u32>,
    /// Version-stable 64-bit hash per tuple: equal across graphs and runs
    /// for tuples with equal stable colours after the same number of rounds.
    pub hashes: Vec<u64>,
    /// Rounds until stable.
    pub rounds: usize,
    /// Number of colour classes.
    pub classes: usize,
}

impl Colouring {
    /// Hash of the colour histogram (the sorted multiset of tuple hashes,
    /// then the round count): isomorphic graphs get equal hashes.
    pub fn graph_hash(&self) -> u64 {
        let mut h = self.hashes.clone();
        h.sort_unstable();
        h.push(self.rounds as u64);
        hash_words(&h)
    }
}

/// Stable colouring of `g` under `v`, with version-stable hashes.
///
/// # Errors
/// As [`refine_pair`].
pub fn stable_colouring(g: &Graph, v: Variant) -> Result<Colouring> {
    let mut joint = Joint::new(&[g], v, true)?;
    let mut rounds = 0;
    let mut prev_hashes: Vec<u64> = joint.colours[0]
        .iter()
        .map(|&c| joint.hashes[c as usize])
        .collect();
    loop {
        let finer = joint.round();
        if !finer {
            // The last round did not split a class: keep the hashes of the
            // stable partition as first reached.
            let Joint {
                spaces,
                colours,
                classes,
                ..
            } = joint;
            let tokens = spaces.into_iter().next().expect("one space").tokens;
            return Ok(Colouring {
                tokens,
                colours: colours.into_iter().next().expect("one graph"),
                hashes: prev_hashes,
                rounds,
                classes,
            });
        }
        rounds += 1;
        prev_hashes = joint.colours[0]
            .iter()
            .map(|&c| joint.hashes[c as usize])
            .collect();
    }
}

/// Joint stable colouring of several graphs on one palette: returns the
/// colour classes per graph as sorted histograms `(colour, count)`; two
/// graphs are distinguished iff their histograms differ.
///
/// # Errors
/// As [`refine_pair`]; [`Error::Empty`] for no graphs.
pub fn joint_histograms(graphs: &[&Graph], v: Variant) -> Result<Vec<Vec<(u32, usize)>>> {
    if graphs.is_empty() {
        return Err(Error::Empty("no graphs to refine"));
    }
    let mut joint = Joint::new(graphs, v, false)?;
    while joint.round() {}
    Ok(joint.colours.iter().map(|c| sparse_histogram(c)).collect())
}

/// Pairs `(i, j)`, `i < j`, of `graphs` that `v` leaves undistinguished:
/// graphs with equal node counts are refined jointly to the stable
/// colouring and compared by colour histogram (different node counts are
/// always distinguished). On a list of pairwise non-isomorphic graphs (the
/// graph atlas) these are the variant's failures.
///
/// # Errors
/// As [`refine_pair`].
pub fn undistinguished_pairs(graphs: &[Graph], v: Variant) -> Result<Vec<(usize, usize)>> {
    use std::collections::BTreeMap;
    let mut by_n: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, g) in graphs.iter().enumerate() {
        by_n.entry(g.n()).or_default().push(i);
    }
    let mut out = Vec::new();
    for idx in by_n.values() {
        if idx.len() < 2 {
            continue;
        }
        let refs: Vec<&Graph> = idx.iter().map(|&i| &graphs[i]).collect();
        let hists = joint_histograms(&refs, v)?;
        let mut groups: BTreeMap<&Vec<(u32, usize)>, Vec<usize>> = BTreeMap::new();
        for (pos, h) in hists.iter().enumerate() {
            groups.entry(h).or_default().push(idx[pos]);
        }
        for members in groups.values() {
            for a in 0..members.len() {
                for b in a + 1..members.len() {
                    out.push((members[a], members[b]));
                }
            }
        }
    }
    out.sort_unstable();
    Ok(out)
}
