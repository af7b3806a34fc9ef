//! Conformity scores and the prediction sets they induce (paper §2; the
//! official code's `gcq`/`giq` for RAPS).
//!
//! Notation for one probability row `π` over `K` classes: the order
//! `π₍₁₎ ≥ … ≥ π₍K₎` (ties broken by the smaller label first), cumulative
//! mass `C_r = Σ_{j≤r} π₍j₎` (`C₀ = 0`), the 1-based rank `o(y)` of label
//! `y`, and a uniform `U ∈ [0, 1)` drawn once per row.
//!
//! Every score is monotone along the order, so each set `{y : s(x, y, U) ≤ q̂}`
//! is a prefix of the sorted labels; sets are returned sorted by label id (as
//! they were shown to the trial's participants).

use crate::calibrate::{LANES, RowCheck};

/// A prediction set: labels sorted by id.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PredictionSet {
    labels: Vec<usize>,
}

impl PredictionSet {
    /// A set from labels in any order (duplicates removed).
    pub fn new(mut labels: Vec<usize>) -> Self {
        labels.sort_unstable();
        labels.dedup();
        PredictionSet { labels }
    }

    /// The labels, ascending.
    pub fn labels(&self) -> &[usize] {
        &self.labels
    }

    /// Number of labels.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// Whether the set is empty (possible only with randomised scores and `allow_empty`).
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Whether `y` is in the set. O(log |set|).
    pub fn contains(&self, y: usize) -> bool {
        self.labels.binary_search(&y).is_ok()
    }

    /// A set from labels already ascending and distinct.
    pub(crate) fn from_sorted(labels: Vec<usize>) -> Self {
        debug_assert!(labels.windows(2).all(|w| w[0] < w[1]));
        PredictionSet { labels }
    }
}

/// Scratch space the set rules reuse from row to row (batch prediction
/// allocates it once, not once per row). Create with `Workspace::default()`.
#[derive(Debug, Clone, Default)]
pub struct Workspace {
    keys: Vec<(u64, u32)>,
}

/// A conformity score `s(x, y, U)`: larger means `y` conforms less.
///
/// Implementors guarantee `y ∈ set(π, q, U) ⇔ score(π, y, U) ≤ q` for the
/// same `U` (up to the documented empty-set policy), which is what makes
/// split conformal calibration valid.
pub trait ConformityScore {
    /// Short name, e.g. `"RAPS"`.
    fn name(&self) -> &'static str;
    /// Whether the score uses `U` (then calibration and prediction draw one `U` per row).
    fn is_randomized(&self) -> bool;
    /// The score of label `y` under probabilities `p`. O(K). `p` and `y` are
    /// assumed checked (a probability vector, `y < K`).
    fn score(&self, p: &[f64], y: usize, u: f64) -> f64;
    /// The set `{y : score(p, y, u) ≤ q}`. O(K) for LAC and (expected) for RAPS.
    /// Provided: [`ConformityScore::push_set`] with a fresh [`Workspace`].
    fn set(&self, p: &[f64], q: f64, u: f64) -> PredictionSet {
        let mut labels = Vec::new();
        self.push_set(p, q, u, &mut Workspace::default(), &mut labels);
        PredictionSet { labels }
    }
    /// Appends the labels of `{y : score(p, y, u) ≤ q}`, ascending, to `out`,
    /// using `work` as scratch space (what batch prediction calls once per
    /// row, without allocating once `work` and `out` have grown).
    fn push_set(&self, p: &[f64], q: f64, u: f64, work: &mut Workspace, out: &mut Vec<usize>);
    /// Checks that `p` (row `row` of a batch) is a probability vector
    /// (finite, ≥ 0, sums to 1 ± 1e-6) and appends its set as
    /// [`ConformityScore::push_set`]; what batch prediction calls. Provided:
    /// the check, then `push_set`; [`Lac`] does both in one pass over the row.
    /// On an error `out` is left as it was.
    ///
    /// # Errors
    /// [`crate::Error::NotAProbability`].
    fn push_checked_set(
        &self,
        row: usize,
        p: &[f64],
        q: f64,
        u: f64,
        work: &mut Workspace,
        out: &mut Vec<usize>,
    ) -> crate::Result<()> {
        crate::calibrate::check_row(row, p)?;
        self.push_set(p, q, u, work, out);
        Ok(())
    }
    /// Validates the score's own parameters; [`crate::calibrate::SplitConformal::new`]
    /// calls it once, so a bad parameter never reaches `score` or `set`.
    /// The default accepts (scores without parameters).
    ///
    /// # Errors
    /// The score's parameter error (e.g. [`crate::Error::NegativeLambda`]).
    fn check(&self) -> crate::Result<()> {
        Ok(())
    }
}

/// The total order of labels: decreasing probability, ties by the smaller label.
fn by_probability(p: &[f64]) -> impl Fn(&usize, &usize) -> std::cmp::Ordering + '_ {
    move |&a, &b| p[b].total_cmp(&p[a]).then(a.cmp(&b))
}

/// Sort keys for the label order: ascending `(key, label)` is decreasing
/// probability with ties by the smaller label. Probabilities are finite and
/// non-negative (checked upstream; K < 2³² labels), so their bit patterns order like their
/// values, and the complement reverses that order. Sorting these contiguous
/// pairs avoids an indirect, branchy comparison per step.
fn order_keys(p: &[f64], keys: &mut Vec<(u64, u32)>) {
    // `+ 0.0` turns −0.0 (whose sign bit would misorder it) into +0.0.
    keys.clear();
    keys.extend(
        p.iter()
            .enumerate()
            .map(|(j, &v)| (!(v + 0.0).to_bits(), j as u32)),
    );
}

fn key_probability(key: u64) -> f64 {
    f64::from_bits(!key)
}

/// The longest prefix of the labels in decreasing probability (ties by
/// label) on which `passes(rank, label, mass_above)` holds, for a predicate
/// that is monotone along that order (true, then false) and false beyond
/// rank `max_len`. Leaves the prefix, unordered, in `keys[..len]` and
/// returns `len`.
///
/// When `max_len < K`, one `select_nth_unstable` first keeps the `max_len`
/// most probable labels (the mass above any of them lies among them). Then a
/// binary search by selection: each step partitions the undecided labels
/// around their median with `select_nth_unstable`, tests the median (the mass
/// above it is the decided mass plus the partition's upper half), and keeps
/// one half. Expected O(K) per call, versus O(K log K) for a full sort.
fn monotone_prefix(
    p: &[f64],
    max_len: usize,
    keys: &mut Vec<(u64, u32)>,
    passes: impl Fn(usize, usize, f64) -> bool,
) -> usize {
    order_keys(p, keys);
    let m = max_len.min(keys.len());
    if m < keys.len() {
        if m == 0 {
            return 0;
        }
        keys.select_nth_unstable(m - 1);
    }
    let (mut lo, mut hi, mut above) = (0, m, 0.0);
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        keys[lo..hi].select_nth_unstable(mid - lo);
        let upper: f64 = keys[lo..mid].iter().map(|&(k, _)| key_probability(k)).sum();
        let (k, y) = keys[mid];
        if passes(mid + 1, y as usize, above + upper) {
            above += upper + key_probability(k);
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The most probable label (ties by the smaller label).
fn argmax(p: &[f64]) -> usize {
    (0..p.len()).min_by(by_probability(p)).unwrap_or(0)
}

/// `(o(y), C_{o(y)−1})`: the 1-based rank of `y` and the mass ranked above it. O(K).
fn rank_and_mass_above(p: &[f64], y: usize) -> (usize, f64) {
    // Branch-free: whether a label ranks above `y` is a coin flip per label.
    let py = p[y];
    let mut rank = 1;
    let mut above = 0.0;
    for (j, &pj) in p.iter().enumerate() {
        let up = (pj > py) | ((pj == py) & (j < y));
        rank += usize::from(up);
        above += if up { pj } else { 0.0 };
    }
    (rank, above)
}

/// LAC (least ambiguous set-valued classifier, also THR): `s = 1 − π_y`,
/// set `{y : π_y ≥ 1 − q̂}`. Deterministic; smallest average sets, no adaptivity guarantee.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Lac;

impl ConformityScore for Lac {
    fn name(&self) -> &'static str {
        "LAC"
    }
    fn is_randomized(&self) -> bool {
        false
    }
    fn score(&self, p: &[f64], y: usize, _u: f64) -> f64 {
        1.0 - p[y]
    }
    /// One branch-free pass over the row (every label is written, the
    /// length advances only for kept ones), no scratch space: O(K).
    fn push_set(&self, p: &[f64], q: f64, _u: f64, _work: &mut Workspace, out: &mut Vec<usize>) {
        lac_push(p, q, out, &mut RowCheck::new());
    }

    /// The row check of [`crate::calibrate::check_probabilities`] fused into
    /// the set's pass: the row is read once, summed and thresholded in the
    /// same loop. Same set, same error as the check followed by `push_set`.
    fn push_checked_set(
        &self,
        row: usize,
        p: &[f64],
        q: f64,
        _u: f64,
        _work: &mut Workspace,
        out: &mut Vec<usize>,
    ) -> crate::Result<()> {
        let start = out.len();
        let mut check = RowCheck::new();
        lac_push(p, q, out, &mut check);
        check.finish(row, p).inspect_err(|_| out.truncate(start))
    }
}

/// Appends the LAC set `{y : 1 − π_y ≤ q}` (compared as written, so it is
/// exactly `{y : score ≤ q}`) to `out` and adds the row to `check`. Every
/// label is written at the current end and the end advances only for kept
/// ones (no branch to mispredict); the `K` slots this needs are zeroed by
/// one `resize` and the unused ones truncated.
#[inline(always)]
fn lac_push(p: &[f64], q: f64, out: &mut Vec<usize>, check: &mut RowCheck) {
    let start = out.len();
    out.resize(start + p.len(), 0);
    let buf = &mut out[start..];
    let mut len = 0;
    let chunks = p.chunks_exact(LANES);
    let tail = chunks.remainder();
    let body = p.len() - tail.len();
    for (i, c) in chunks.enumerate() {
        let c: &[f64; LANES] = c.try_into().expect("LANES entries");
        check.add(c);
        for (j, &v) in c.iter().enumerate() {
            buf[len] = i * LANES + j;
            len += usize::from(1.0 - v <= q);
        }
    }
    check.add_tail(tail);
    for (j, &v) in tail.iter().enumerate() {
        buf[len] = body + j;
        len += usize::from(1.0 - v <= q);
    }
    out.truncate(start + len);
}

/// RAPS (regularised adaptive prediction sets, Angelopoulos et al. 2021), the
/// score of the trial: `s = C_{o−1} + U·π_y + λ·(o − k_reg)⁺`, or `C_o + λ·(o − k_reg)⁺`
/// when not randomised.
///
/// The set is the prefix of the sorted labels whose scores are `≤ q̂`; this
/// is the official `gcq` rule (`L = #{r : C_r + λ(r − k_reg)⁺ ≤ q̂} + 1`,
/// then drop the `L`-th label when `U ≥ V`) for the same `U`. With
/// `allow_empty = false` (the trial's `allow_zero_sets=False`) an empty set is
/// replaced by the top label; that can only raise coverage.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Raps {
    /// Penalty per rank beyond `k_reg`, `λ ≥ 0` (0 gives APS).
    pub lambda: f64,
    /// Number of top ranks free of penalty, `k_reg ≥ 0`.
    pub k_reg: usize,
    /// Use `U` (exact coverage up to `1/(n+1)`) or not (conservative).
    pub randomized: bool,
    /// Keep empty sets instead of forcing the top label.
    pub allow_empty: bool,
}

impl Default for Raps {
    /// The trial's settings for Few-NERD and ObjectNet: `λ = 0.5`, `k_reg = 5`,
    /// randomised, no empty sets.
    fn default() -> Self {
        Raps {
            lambda: 0.5,
            k_reg: 5,
            randomized: true,
            allow_empty: false,
        }
    }
}

impl Raps {
    /// Checks `λ` (finite, ≥ 0).
    ///
    /// # Errors
    /// [`crate::Error::NegativeLambda`].
    pub fn check(&self) -> crate::Result<()> {
        if self.lambda >= 0.0 && self.lambda.is_finite() {
            Ok(())
        } else {
            Err(crate::Error::NegativeLambda {
                lambda: self.lambda,
            })
        }
    }

    fn penalty(&self, rank: usize) -> f64 {
        self.lambda * rank.saturating_sub(self.k_reg) as f64
    }

    /// A rank beyond which no label can be in the set at threshold `q`:
    /// the score at rank `r` is at least `λ(r − k_reg)⁺`, which exceeds `q`
    /// once `r > k_reg + q/λ` (one rank of margin for rounding). `usize::MAX`
    /// when `λ = 0`.
    fn max_set_size(&self, q: f64) -> usize {
        let bound = self.k_reg as f64 + (q.max(0.0) / self.lambda).floor() + 1.0;
        if self.lambda > 0.0 && bound < usize::MAX as f64 {
            bound as usize
        } else {
            usize::MAX
        }
    }
}

impl ConformityScore for Raps {
    fn check(&self) -> crate::Result<()> {
        Raps::check(self)
    }

    fn name(&self) -> &'static str {
        if self.lambda == 0.0 { "APS" } else { "RAPS" }
    }
    fn is_randomized(&self) -> bool {
        self.randomized
    }
    fn score(&self, p: &[f64], y: usize, u: f64) -> f64 {
        let (rank, above) = rank_and_mass_above(p, y);
        let own = if self.randomized { u * p[y] } else { p[y] };
        above + own + self.penalty(rank)
    }
    /// Expected O(K): the set is a prefix of the labels by probability, of
    /// at most `k_reg + q/λ + 1` labels (see `monotone_prefix`).
    fn push_set(&self, p: &[f64], q: f64, u: f64, work: &mut Workspace, out: &mut Vec<usize>) {
        // The score C_{r−1} + U·π₍r₎ + λ(r − k_reg)⁺ is non-decreasing in the rank r,
        // so the set is the prefix of ranks whose score is at most q̂.
        let len = monotone_prefix(p, self.max_set_size(q), &mut work.keys, |rank, y, above| {
            let own = if self.randomized { u * p[y] } else { p[y] };
            above + own + self.penalty(rank) <= q
        });
        let start = out.len();
        if len == 0 && !self.allow_empty {
            out.push(argmax(p));
        } else {
            out.extend(work.keys[..len].iter().map(|&(_, y)| y as usize));
            out[start..].sort_unstable();
        }
    }
}

/// APS (adaptive prediction sets, Romano et al. 2020): RAPS with `λ = 0`.
pub fn aps(randomized: bool, allow_empty: bool) -> Raps {
    Raps {
        lambda: 0.0,
        k_reg: 0,
        randomized,
        allow_empty,
    }
}

/// Rank score `s = o(y)`: calibrating it gives the smallest `k` whose top-`k`
/// sets have the conformal guarantee (MAPIE's `top_k`); the set at threshold
/// `q̂` is the top-`⌊q̂⌋` labels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TopKRank;

impl ConformityScore for TopKRank {
    fn name(&self) -> &'static str {
        "top-k"
    }
    fn is_randomized(&self) -> bool {
        false
    }
    fn score(&self, p: &[f64], y: usize, _u: f64) -> f64 {
        rank_and_mass_above(p, y).0 as f64
    }
    fn push_set(&self, p: &[f64], q: f64, _u: f64, work: &mut Workspace, out: &mut Vec<usize>) {
        let k = (q.floor().max(0.0) as usize).min(p.len());
        push_top_k(p, k, work, out);
    }
}

/// The fixed-size set of the `k` most probable labels (the trial's control
/// arm; ties broken by the smaller label). O(K) expected.
pub fn top_k(p: &[f64], k: usize) -> PredictionSet {
    let mut labels = Vec::new();
    push_top_k(p, k, &mut Workspace::default(), &mut labels);
    PredictionSet::from_sorted(labels)
}

/// Appends the `k` most probable labels, ascending, to `out`.
fn push_top_k(p: &[f64], k: usize, work: &mut Workspace, out: &mut Vec<usize>) {
    let keys = &mut work.keys;
    order_keys(p, keys);
    let k = k.min(p.len());
    if k > 0 && k < p.len() {
        keys.select_nth_unstable(k - 1);
    }
    let start = out.len();
    out.extend(keys[..k].iter().map(|&(_, y)| y as usize));
    out[start..].sort_unstable();
}
