//! Split-conformal calibration (paper §2): scores on held-out calibration
//! data, their quantile `q̂`, and prediction sets for new inputs.

use crate::error::{Error, Result};
use crate::score::{ConformityScore, Workspace};
use crate::sets::PredictionSets;
use ndarray::{Array1, ArrayView2};
use rand::{Rng, RngExt};

/// How `q̂` is taken from the `n` calibration scores.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum QuantileRule {
    /// The `⌈(n+1)(1−α)⌉`-th smallest score: `1−α ≤ P(Y ∈ C(X)) ≤ 1−α+1/(n+1)`
    /// (the upper bound for tie-free, e.g. randomised, scores). Fails when
    /// `⌈(n+1)(1−α)⌉ > n`, i.e. `n < 1/α − 1`.
    #[default]
    FiniteSample,
    /// `numpy.quantile(scores, 1−α, method="higher")`: the `⌈(n−1)(1−α)⌉+1`-th
    /// smallest, what the official RAPS code uses. Slightly less conservative:
    /// coverage can fall below `1−α` by up to `1/(n+1)`.
    NumpyHigher,
}

/// Checks that every row of `probs` is a probability vector (finite, ≥ 0, sums to 1 ± 1e-6).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NotAProbability`].
pub fn check_probabilities(probs: ArrayView2<'_, f64>) -> Result<()> {
    if probs.nrows() == 0 || probs.ncols() == 0 {
        return Err(Error::EmptyInput { what: "probs" });
    }
    let probs = probs.as_standard_layout();
    rows(&probs)
        .enumerate()
        .try_for_each(|(row, p)| check_row(row, p))
}

/// One row of [`check_probabilities`]: finite, ≥ 0, sums to 1 ± 1e-6.
pub(crate) fn check_row(row: usize, p: &[f64]) -> Result<()> {
    let mut acc = RowCheck::new();
    let chunks = p.chunks_exact(LANES);
    let tail = chunks.remainder();
    for c in chunks {
        acc.add(c.try_into().expect("LANES entries"));
    }
    acc.add_tail(tail);
    acc.finish(row, p)
}

/// Lanes of [`RowCheck`]: eight independent sums, enough to hide the
/// latency of the additions (they vectorise into two or four registers).
pub(crate) const LANES: usize = 8;

/// The running sum of a row and the OR of its entries' bit patterns, in
/// [`LANES`] lanes that vectorise (one add and one OR per entry).
///
/// The row is valid iff its sum is finite and within 1e-6 of 1 and no entry
/// is negative: a NaN or ±∞ entry makes the sum NaN or infinite (finite
/// entries large enough to overflow it cannot sum to 1 either), and a
/// negative entry sets the sign bit of the OR. The sign bit is also set by
/// −0.0, which is valid, so only then is the row's minimum computed
/// (exactly the test `min ≥ 0` of the two-pass check).
pub(crate) struct RowCheck {
    sum: [f64; LANES],
    bits: [u64; LANES],
}

impl RowCheck {
    pub(crate) fn new() -> Self {
        RowCheck {
            sum: [0.0; LANES],
            bits: [0; LANES],
        }
    }

    /// Adds one chunk of [`LANES`] entries.
    #[inline(always)]
    pub(crate) fn add(&mut self, c: &[f64; LANES]) {
        for ((s, b), &v) in self.sum.iter_mut().zip(&mut self.bits).zip(c) {
            *s += v;
            *b |= v.to_bits();
        }
    }

    /// Adds the last (fewer than [`LANES`]) entries.
    #[inline(always)]
    pub(crate) fn add_tail(&mut self, tail: &[f64]) {
        for (j, &v) in tail.iter().enumerate() {
            self.sum[j] += v;
            self.bits[j] |= v.to_bits();
        }
    }

    /// `Ok` iff the row `p` whose entries were added is a probability
    /// vector (finite, ≥ 0, sums to 1 ± 1e-6).
    ///
    /// # Errors
    /// [`Error::NotAProbability`] with the row index and its sum.
    pub(crate) fn finish(&self, row: usize, p: &[f64]) -> Result<()> {
        let sum: f64 = self.sum.iter().sum();
        let sign = self.bits.iter().fold(0, |a, &b| a | b) >> 63 == 1;
        let nonnegative = !sign || p.iter().all(|&v| v >= 0.0);
        if sum.is_finite() && (sum - 1.0).abs() <= 1e-6 && nonnegative {
            Ok(())
        } else {
            Err(Error::NotAProbability { row, sum })
        }
    }
}

/// Checks labels against `probs`: one per row, each `< K`.
///
/// # Errors
/// [`Error::ShapeMismatch`], [`Error::LabelOutOfRange`].
pub fn check_labels(probs: ArrayView2<'_, f64>, labels: &[usize]) -> Result<()> {
    if labels.len() != probs.nrows() {
        return Err(Error::ShapeMismatch {
            what: "labels vs rows of probs",
            expected: probs.nrows(),
            got: labels.len(),
        });
    }
    let classes = probs.ncols();
    match labels.iter().position(|&y| y >= classes) {
        Some(index) => Err(Error::LabelOutOfRange {
            index,
            label: labels[index],
            classes,
        }),
        None => Ok(()),
    }
}

/// Checks `0 < α < 1`.
///
/// # Errors
/// [`Error::AlphaOutOfRange`].
pub fn check_alpha(alpha: f64) -> Result<()> {
    if alpha > 0.0 && alpha < 1.0 {
        Ok(())
    } else {
        Err(Error::AlphaOutOfRange { alpha })
    }
}

/// The 1-based rank of `q̂` among `n` sorted scores under `rule`.
///
/// # Errors
/// [`Error::AlphaOutOfRange`], [`Error::EmptyInput`] for `n = 0`,
/// [`Error::TooFewCalibration`] when the finite-sample rank exceeds `n`.
pub fn quantile_index(n: usize, alpha: f64, rule: QuantileRule) -> Result<usize> {
    check_alpha(alpha)?;
    if n == 0 {
        return Err(Error::EmptyInput {
            what: "calibration scores",
        });
    }
    match rule {
        QuantileRule::FiniteSample => {
            let k = mlcore::stats::conformal_rank(n, alpha)?;
            if k > n {
                Err(Error::TooFewCalibration {
                    n,
                    alpha,
                    // usize::MAX: the size is beyond 2^53 (see min_calibration_size).
                    min_n: min_calibration_size(alpha).unwrap_or(usize::MAX),
                })
            } else {
                Ok(k.max(1))
            }
        }
        // numpy: virtual index (n − 1)·q, rounded up.
        QuantileRule::NumpyHigher => Ok(((n - 1) as f64 * (1.0 - alpha)).ceil() as usize + 1),
    }
}

/// The smallest calibration size `n` with `⌈(n+1)(1−α)⌉ ≤ n` (about `1/α − 1`).
///
/// The rank rule as evaluated in f64 ([`mlcore::stats::conformal_rank`],
/// which forgives a few ulps of rounding) is monotone in `n`, so the answer
/// is found by bisection below the closed form `⌈(1−α)/α⌉`; it can be below
/// the closed form by those few ulps of `(n+1)(1−α)` and the rounding of
/// `1 − α`, i.e. by up to about `9ε·n/α` (1.8·10⁵ of 10¹⁰ at α = 10⁻¹⁰).
/// O(log(1/α)).
///
/// # Errors
/// [`Error::AlphaOutOfRange`]; [`Error::Core`] (`TooLarge`) when the size is
/// beyond 2⁵³ (α below ~1.1e-16, where `1 − α` rounds to 1 and the rank rule
/// in f64 accepts no `n` at all).
pub fn min_calibration_size(alpha: f64) -> Result<usize> {
    check_alpha(alpha)?;
    const EXACT_LIMIT: f64 = 9_007_199_254_740_992.0; // 2^53
    let too_large = || {
        Error::Core(mlcore::Error::TooLarge {
            what: "calibration set for this alpha",
            size: format!("about (1 − α)/α = {:.3e} points", (1.0 - alpha) / alpha),
        })
    };
    let n0 = ((1.0 - alpha) / alpha).ceil().max(1.0);
    if n0 >= EXACT_LIMIT || 1.0 - alpha == 1.0 {
        return Err(too_large());
    }
    let ok = |n: usize| -> Result<bool> { Ok(mlcore::stats::conformal_rank(n, alpha)? <= n) };
    // An upper end that satisfies the rule (the closed form, up to rounding).
    let mut hi = n0 as usize;
    let mut steps = 0;
    while !ok(hi)? {
        hi += 1;
        steps += 1;
        if steps > 64 {
            return Err(too_large());
        }
    }
    // Smallest satisfying n in (lo, hi]: n = 0 never satisfies (rank ≥ 1).
    let mut lo = 0usize;
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if ok(mid)? {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    Ok(hi.max(1))
}

/// The rows of a standard-layout matrix as slices.
pub(crate) fn rows<'a>(
    probs: &'a ndarray::CowArray<'_, f64, ndarray::Ix2>,
) -> impl Iterator<Item = &'a [f64]> {
    probs
        .as_slice()
        .expect("standard layout")
        .chunks_exact(probs.ncols().max(1))
}

/// Draws `U ~ Unif[0, 1)` when the score is randomised, else 0.
fn draw_u<S: ConformityScore, R: Rng + ?Sized>(score: &S, rng: &mut R) -> f64 {
    if score.is_randomized() {
        rng.random::<f64>()
    } else {
        0.0
    }
}

/// Conformity scores of labelled data, one `U` per row for randomised scores. O(nK).
///
/// Each row is checked as in [`check_probabilities`] just before it is
/// scored (one pass over memory); on an error the `rng` has advanced by the
/// rows before the offending one.
///
/// # Errors
/// The score's parameter error ([`ConformityScore::check`], e.g.
/// [`Error::NegativeLambda`] for a NaN λ: a hostile-input run found NaN
/// scores here); as [`check_probabilities`] and [`check_labels`].
pub fn scores<S: ConformityScore, R: Rng + ?Sized>(
    score: &S,
    probs: ArrayView2<'_, f64>,
    labels: &[usize],
    rng: &mut R,
) -> Result<Array1<f64>> {
    score.check()?;
    if probs.nrows() == 0 || probs.ncols() == 0 {
        return Err(Error::EmptyInput { what: "probs" });
    }
    check_labels(probs, labels)?;
    let probs = probs.as_standard_layout();
    let mut out = Vec::with_capacity(labels.len());
    for (row, (p, &y)) in rows(&probs).zip(labels).enumerate() {
        check_row(row, p)?;
        out.push(score.score(p, y, draw_u(score, rng)));
    }
    Ok(Array1::from(out))
}

/// A split-conformal predictor before calibration: a score, a level α and a quantile rule.
#[derive(Debug, Clone, PartialEq)]
pub struct SplitConformal<S> {
    score: S,
    alpha: f64,
    rule: QuantileRule,
}

impl<S: ConformityScore + Clone> SplitConformal<S> {
    /// # Errors
    /// [`Error::AlphaOutOfRange`]; the score's parameter error from
    /// [`ConformityScore::check`] (e.g. [`Error::NegativeLambda`] for RAPS).
    pub fn new(score: S, alpha: f64, rule: QuantileRule) -> Result<Self> {
        check_alpha(alpha)?;
        score.check()?;
        Ok(SplitConformal { score, alpha, rule })
    }

    /// Calibrates on `n` labelled rows: `q̂` = the rule's order statistic of their scores. O(nK).
    ///
    /// # Errors
    /// As [`scores`] and [`quantile_index`].
    pub fn calibrate<R: Rng + ?Sized>(
        &self,
        probs: ArrayView2<'_, f64>,
        labels: &[usize],
        rng: &mut R,
    ) -> Result<Calibrated<S>> {
        let s = scores(&self.score, probs, labels, rng)?;
        let k = quantile_index(s.len(), self.alpha, self.rule)?;
        let q_hat = mlcore::stats::order_statistic(s.view(), k)?;
        Ok(Calibrated {
            score: self.score.clone(),
            alpha: self.alpha,
            rule: self.rule,
            n: s.len(),
            classes: probs.ncols(),
            q_hat,
        })
    }
}

/// A calibrated split-conformal predictor.
#[derive(Debug, Clone, PartialEq)]
pub struct Calibrated<S> {
    score: S,
    alpha: f64,
    rule: QuantileRule,
    n: usize,
    classes: usize,
    q_hat: f64,
}

impl<S: ConformityScore> Calibrated<S> {
    /// The threshold `q̂`.
    pub fn q_hat(&self) -> f64 {
        self.q_hat
    }

    /// The level α it was calibrated at.
    pub fn alpha(&self) -> f64 {
        self.alpha
    }

    /// The quantile rule used (name it with every result).
    pub fn rule(&self) -> QuantileRule {
        self.rule
    }

    /// Number of calibration points.
    pub fn n_calibration(&self) -> usize {
        self.n
    }

    /// Number of classes K of the calibration data (every `predict` row must have K entries).
    pub fn n_classes(&self) -> usize {
        self.classes
    }

    /// The score.
    pub fn score(&self) -> &S {
        &self.score
    }

    /// Prediction sets for a batch of `m` probability rows, one `U` per row,
    /// in one flat [`PredictionSets`] (two buffers for the whole batch, no
    /// per-row allocation). Each row is checked (finite, ≥ 0, sums to
    /// 1 ± 1e-6) just before its set is computed, so the matrix is read from
    /// memory once; on an error the `rng` has advanced by the rows before
    /// the offending one. O(mK) (expected, for RAPS).
    ///
    /// # Errors
    /// [`Error::EmptyInput`] and [`Error::NotAProbability`] as
    /// [`check_probabilities`]; [`Error::ShapeMismatch`] when the rows do not
    /// have the calibration's number of classes.
    pub fn predict<R: Rng + ?Sized>(
        &self,
        probs: ArrayView2<'_, f64>,
        rng: &mut R,
    ) -> Result<PredictionSets> {
        if probs.ncols() != self.classes {
            return Err(Error::ShapeMismatch {
                what: "classes of the test probabilities vs calibration",
                expected: self.classes,
                got: probs.ncols(),
            });
        }
        if probs.nrows() == 0 {
            return Err(Error::EmptyInput { what: "probs" });
        }
        let probs = probs.as_standard_layout();
        let mut out = PredictionSets::with_capacity(probs.nrows(), probs.nrows());
        let mut work = Workspace::default();
        for (row, p) in rows(&probs).enumerate() {
            let u = draw_u(&self.score, rng);
            self.score
                .push_checked_set(row, p, self.q_hat, u, &mut work, out.buffer())?;
            out.end_row();
        }
        Ok(out)
    }
}
