//! Successive sampling: what the official code does (marginals not `∝` weights).

use super::FixedSizeSampler;
use crate::error::{Error, Result};
use crate::probs::{check_claims, check_k};
use rand::{Rng, RngExt};
use rand_distr::Exp1;

/// Successive sampling: `k` draws without replacement, each proportional to
/// the weights (claims) of the units not yet drawn — what the official code
/// does (`np.random.choice(ids, k, replace=False, p=c/Σc)`), and what
/// `numpy`, `pandas.sample(weights=…)` and `rand::seq::index::sample_weighted` do.
///
/// **Its inclusion probabilities are NOT proportional to the weights**
/// (nor equal to [`crate::probs::inclusion_probs`]): for `c = [3, 2, 1]`,
/// `k = 2` they are `[0.85, 0.733, 0.417]` where the Broome-fair ideal is
/// `[1, 2/3, 1/3]`. Kept as the paper-faithful option; the exact marginals
/// are available by enumeration ([`crate::exact::successive_marginals`],
/// n ≤ 20).
///
/// # How a draw is made (Efraimidis–Spirakis, thresholded)
/// Every positive-weight unit gets an exponential key `Kᵢ = Eᵢ / wᵢ`,
/// `Eᵢ ~ Exp(1)` independent; the `k` smallest keys are a successive sample
/// (the smallest key is unit `i` with probability `wᵢ / Σw`, and by the
/// memoryless property the rest is again a race among the others). Instead of
/// storing all `n` keys and selecting, a threshold `t` is chosen with
/// `E #{i : Kᵢ ≤ t} = Σᵢ (1 − e^{−wᵢ t}) ≈ k + 3√k + 16` (plus three standard
/// errors of its estimate: `t` is solved on a stride subsample of at most
/// 1024 weights); a draw keeps only the keys `< t` (about `k` of them) and
/// selects the `k` smallest in O(k).
///
/// The pass over the units draws one 53-bit uniform `U` per unit (its
/// first 32 bits, and the other 21 only when those do not already reject
/// the unit); unit `i`'s
/// key is below `t` iff `U < pᵢ = 1 − e^{−xᵢ}`, `xᵢ = wᵢ t`. That test needs
/// no `exp` for almost every unit: `x − x²/2 ≤ 1 − e^{−x} ≤ x − x²/2 + x³/6`
/// for `x ≥ 0`, so `U` above the upper bound rejects and `U` below the lower
/// one accepts (both widened by 16 ulp, so every decision is the one the
/// floating-point `pᵢ` would give); only `U` inside the gap (width about
/// `x³/6`) or `x > 1` computes `pᵢ`. A kept unit's `E = −ln(1 − U)` (exactly
/// `Exp(1)` given `E < xᵢ`) costs one logarithm. When fewer than `k` keys
/// fall below `t` (probability about 0.1%), every other positive unit gets
/// the key `tᵢ + E′ᵢ / wᵢ` with a fresh `E′ᵢ ~ Exp(1)` and
/// `tᵢ = −ln(1 − pᵢ)/wᵢ` — by memorylessness exactly the law of `Kᵢ` given
/// `Kᵢ ≥ tᵢ` — and the `k` smallest of all keys are taken, so `t` changes
/// the speed, never the law of the draw. Per draw O(n) (one uniform per
/// unit, exact up to its 53-bit resolution, like every floating-point
/// sampler), set-up O(n) (one validating pass and a copy) plus O(1) for the
/// threshold.
///
/// [`Successive::new`] pays the set-up once for many draws;
/// [`Successive::sample_once`] makes one draw straight from a borrowed slice
/// without copying it (what `numpy.random.Generator.choice` does per call).
///
/// Weights are handled relative to a power of two near the largest one
/// (exact: the design depends only on ratios). Weights whose ratio to the
/// largest is below 10⁻³⁰⁰ (where `E / w` can overflow), a largest weight
/// outside `[2⁻¹⁰⁰⁰, 2¹⁰⁰⁰]`, and n ≥ 2³², use the untruncated keys instead
/// (`mlcore::sampling::sample_without_replacement`, O(n + k log k)).
#[derive(Debug, Clone)]
pub struct Successive {
    weights: Vec<f64>,
    k: usize,
    /// The key threshold `t` for `weights` (scaled so that the largest is in
    /// `[1, 2)`), or `None` for the untruncated keys.
    fast: Option<f64>,
}

/// Smallest ratio `wᵢ / max w` the thresholded keys accept.
const MIN_RATIO: f64 = 1e-300;

/// Largest stride subsample the threshold is solved on.
const SUBSAMPLE: usize = 1024;

/// What one validating pass over the weights finds.
struct Scan {
    positive: usize,
    top: f64,
    min_positive: f64,
}

/// The running state of a validating pass, one weight at a time.
struct Tally {
    bad: bool,
    positive: usize,
    top: f64,
    min_positive: f64,
}

impl Tally {
    fn new() -> Self {
        Tally {
            bad: false,
            positive: 0,
            top: 0.0,
            min_positive: f64::INFINITY,
        }
    }

    /// Branch-free, so it adds little to a pass; the exact error is found
    /// again by [`Tally::finish`].
    #[inline(always)]
    fn push(&mut self, w: f64) {
        self.bad |= !(0.0..=f64::MAX).contains(&w);
        self.positive += usize::from(w > 0.0);
        self.top = if w > self.top { w } else { self.top };
        let m = if w > 0.0 { w } else { f64::INFINITY };
        self.min_positive = if m < self.min_positive {
            m
        } else {
            self.min_positive
        };
    }

    /// [`Tally::push`] for every weight, in four independent lanes (so the
    /// loop vectorises), then merged.
    fn push_all(&mut self, weights: &[f64]) {
        const L: usize = 4;
        let mut lanes: [Tally; L] = std::array::from_fn(|_| Tally::new());
        let chunks = weights.chunks_exact(L);
        for &w in chunks.remainder() {
            self.push(w);
        }
        for c in chunks {
            for (lane, &w) in lanes.iter_mut().zip(c) {
                lane.push(w);
            }
        }
        for lane in lanes {
            self.bad |= lane.bad;
            self.positive += lane.positive;
            self.top = self.top.max(lane.top);
            self.min_positive = self.min_positive.min(lane.min_positive);
        }
    }

    /// The errors of [`check_claims`], [`check_k`] and
    /// [`Error::TooFewPositiveClaims`], in that order.
    fn finish(self, weights: &[f64], k: usize) -> Result<Scan> {
        if weights.is_empty() {
            return Err(Error::EmptyInput { what: "claims" });
        }
        if self.bad {
            check_claims(weights)?;
        }
        check_k(k, weights.len())?;
        if self.positive < k {
            return Err(Error::TooFewPositiveClaims {
                positive: self.positive,
                k,
            });
        }
        Ok(Scan {
            positive: self.positive,
            top: self.top,
            min_positive: self.min_positive,
        })
    }
}

/// Checks the claims and `k` (as [`check_claims`], [`check_k`] and
/// [`Error::TooFewPositiveClaims`]) in one pass, returning the count of
/// positive weights, the largest and the smallest positive one.
fn scan(weights: &[f64], k: usize) -> Result<Scan> {
    let mut tally = Tally::new();
    tally.push_all(weights);
    tally.finish(weights, k)
}

/// The power of two `s` with `top·s ∈ [1, 2)`, when `top ∈ [2⁻¹⁰⁰⁰, 2¹⁰⁰⁰]`.
fn pow2_scale(top: f64) -> Option<f64> {
    if !(top >= f64::powi(2.0, -1000) && top <= f64::powi(2.0, 1000)) {
        return None;
    }
    // Biased exponent of a normal `top`; `s = 2^(−e)` is exact.
    let e = ((top.to_bits() >> 52) & 0x7ff) as i64 - 1023;
    let s = f64::from_bits(((1023 - e) as u64) << 52);
    debug_assert!((1.0..2.0).contains(&(top * s)));
    Some(s)
}

impl Successive {
    /// Validates the weights (claims) and `k`, and sets up the key
    /// threshold. The design depends on the weights only through their
    /// ratios, so they are stored multiplied by a power of two that puts
    /// the largest in `[1, 2)` (exact; when the largest is outside
    /// `[2⁻¹⁰⁰⁰, 2¹⁰⁰⁰]` they are divided by it instead, and weights below
    /// 2⁻¹⁰⁷⁴ of the largest then count as zero). O(n): one validating
    /// pass and one copy; the threshold costs O(1) (a subsample).
    ///
    /// # Errors
    /// As [`check_claims`] and [`check_k`]; [`Error::TooFewPositiveClaims`]
    /// when fewer than `k` weights are positive.
    pub fn new(weights: &[f64], k: usize) -> Result<Self> {
        let sc = scan(weights, k)?;
        let Some(s) = pow2_scale(sc.top) else {
            let weights: Vec<f64> = weights.iter().map(|&w| w / sc.top).collect();
            let positive = weights.iter().filter(|&&w| w > 0.0).count();
            if positive < k {
                return Err(Error::TooFewPositiveClaims { positive, k });
            }
            return Ok(Successive {
                weights,
                k,
                fast: None,
            });
        };
        let scaled: Vec<f64> = weights.iter().map(|&w| w * s).collect();
        let fast = fast_threshold(&scaled, 1.0, &sc, k);
        Ok(Successive {
            weights: scaled,
            k,
            fast,
        })
    }

    /// One successive sample of `k` units from `weights`, without building
    /// a [`Successive`]: validation, threshold and draw in two passes over
    /// the borrowed slice, no copy of it. The same law as
    /// `Successive::new(weights, k)?.sample(rng)` (and as
    /// `numpy.random.Generator.choice(n, k, replace=False, p=w/Σw)`, which
    /// redoes its set-up on every call). O(n).
    ///
    /// # Errors
    /// As [`Successive::new`].
    pub fn sample_once<R: Rng + ?Sized>(
        weights: &[f64],
        k: usize,
        rng: &mut R,
    ) -> Result<Vec<usize>> {
        let n = weights.len();
        let kf = k as f64;
        let target = kf + 3.0 * kf.sqrt() + 16.0;
        // The threshold comes from the subsample alone, so that one pass
        // can validate and draw at once (the weights are read from memory
        // once). Anything unusual takes the two-pass route, which reports
        // the errors: a bad value, k, a zero or extreme largest weight.
        let stride = n.div_ceil(SUBSAMPLE).max(1);
        let mut sub = Tally::new();
        weights.iter().step_by(stride).for_each(|&w| sub.push(w));
        let fused = (!sub.bad && u32::try_from(n).is_ok() && (1..=n).contains(&k))
            .then(|| pow2_scale(sub.top))
            .flatten()
            .filter(|_| target < sub.positive as f64 * n as f64 / n.div_ceil(stride) as f64);
        let Some(s) = fused else {
            return Successive::new(weights, k).map(|d| d.sample(rng));
        };
        let scaled: Vec<f64> = weights.iter().step_by(stride).map(|&w| w * s).collect();
        let t = threshold(&scaled, n, n, target);
        let st = if t.is_finite() && t > 0.0 {
            t * s
        } else {
            f64::INFINITY
        };
        let (cand, tally) = keys_below::<true, R>(weights, s, st, k, rng);
        let sc = tally.finish(weights, k)?;
        // The keys E/(w·s) must be finite and positive for every unit.
        if !(sc.min_positive * s >= MIN_RATIO && sc.top * s <= f64::powi(2.0, 1000)) {
            return Ok(Successive::new(weights, k)?.sample(rng));
        }
        Ok(select(weights, s, st, k, cand, rng))
    }

    /// As [`FixedSizeSampler::sample`] with the key threshold `t` in place of
    /// the one chosen at set-up (for tests: `t` must not change the law).
    #[cfg(test)]
    fn sample_with_threshold<R: Rng + ?Sized>(&self, t: f64, rng: &mut R) -> Vec<usize> {
        assert!(self.fast.is_some(), "thresholded");
        draw(&self.weights, 1.0, t, self.k, rng)
    }
}

/// The key threshold for the weights `w·s` (largest in `[1, 2)`), or `None`
/// when their range or `n` is outside what the thresholded keys handle.
fn fast_threshold(weights: &[f64], s: f64, sc: &Scan, k: usize) -> Option<f64> {
    if u32::try_from(weights.len()).is_err() || sc.min_positive * s < MIN_RATIO {
        return None;
    }
    let kf = k as f64;
    let target = kf + 3.0 * kf.sqrt() + 16.0;
    if target >= sc.positive as f64 {
        return Some(f64::INFINITY);
    }
    let stride = weights.len().div_ceil(SUBSAMPLE).max(1);
    let sub: Vec<f64> = weights.iter().step_by(stride).map(|&w| w * s).collect();
    let t = threshold(&sub, weights.len(), sc.positive, target);
    Some(if t.is_finite() && t > 0.0 {
        t
    } else {
        f64::INFINITY
    })
}

/// `f(t) = Σᵢ (1 − e^{−wᵢ t})` (the expected number of keys `≤ t`) and `f′(t)`.
fn expected_count(w: &[f64], t: f64) -> (f64, f64) {
    w.iter().fold((0.0, 0.0), |(f, d), &wi| {
        let e = (-wi * t).exp();
        (f + (1.0 - e), d + wi * e)
    })
}

/// Newton's method for `f(t) = target` on the concave increasing `f` of
/// `w`, from `t` (it approaches the root monotonically from below).
fn newton(w: &[f64], target: f64, mut t: f64) -> f64 {
    for _ in 0..200 {
        let (f, d) = expected_count(w, t);
        if d <= 0.0 || !d.is_finite() {
            break;
        }
        let next = (t + (target - f) / d).max(0.0);
        if (next - t).abs() <= 1e-6 * t.abs() {
            return next;
        }
        t = next;
    }
    t
}

/// A `t` with `f(t) ≈ target` on all `n` weights, solved on the stride
/// subsample `sub` (the target scaled by `#sub / n`), then moved up by three
/// standard errors of the subsample's estimate of `f(t)` (finite-population
/// corrected; zero when `sub` is every weight). Only the speed of a draw
/// depends on how close it is: a `t` too low makes the fallback pass more
/// frequent, one too high keeps more keys.
fn threshold(sub: &[f64], n: usize, positive: usize, target: f64) -> f64 {
    let m = sub.len() as f64;
    let scale = n as f64 / m;
    let room = sub.iter().filter(|&&w| w > 0.0).count() as f64 - 0.5;
    let t0 = newton(sub, (target / scale).min(room), 0.0);
    let mut moments = mlcore::stats::Welford::new();
    for &w in sub {
        moments.push(-(-w * t0).exp_m1());
    }
    let var = moments.population_variance();
    let fpc = (1.0 - m / n as f64).max(0.0);
    let se = n as f64 * (var * fpc / m).sqrt();
    let goal = (target + 3.0 * se).min(positive as f64 - 0.5);
    if goal >= room * scale {
        return f64::INFINITY;
    }
    newton(sub, goal / scale, t0)
}

/// 2⁻³², 2⁻³¹ and 2⁻⁵³: a 53-bit uniform `U = hi·2⁻³² + lo·2⁻⁵³` from a 32-bit
/// `hi` and a 21-bit `lo`.
const TWO_M32: f64 = 1.0 / 4_294_967_296.0;
const TWO_M31: f64 = 1.0 / 2_147_483_648.0;
const TWO_M53: f64 = 1.0 / 9_007_199_254_740_992.0;

/// 16 ulp of widening on each bound of [`below`].
const WIDE: f64 = 16.0 * f64::EPSILON;

/// Whether a unit with `x = w·t` is kept by the uniform `u`: exactly
/// `u < 1 − e^{−x}` as computed in floating point, mostly without the
/// `exp` (see [`Successive`]).
#[inline]
fn below(u: f64, x: f64) -> bool {
    if x <= 1.0 {
        // No cancellation: 1 − x/2 ∈ [½, 1] and 1 − x/2 + x²/6 ∈ [⅔, 1].
        let a = 1.0 - 0.5 * x;
        if u >= x * (a + x * x * (1.0 / 6.0)) * (1.0 + WIDE) {
            return false;
        }
        if u < x * a * (1.0 - WIDE) {
            return true;
        }
    }
    u < -(-x).exp_m1()
}

/// [`below`] after the cheapest test, `1 − e^{−x} ≤ x` (widened), which
/// rejects most units (and every zero weight) with one multiply.
#[inline(always)]
fn kept(u: f64, x: f64) -> bool {
    u < x * (1.0 + WIDE) && below(u, x)
}

/// One draw from the thresholded keys of the weights `w·s` (largest in
/// `[1, 2)`, ratios ≥ [`MIN_RATIO`]) at threshold `t`, given `st = s·t`
/// (see [`Successive`]): unit `i`'s test uses `xᵢ = wᵢ·st`.
fn draw<R: Rng + ?Sized>(weights: &[f64], s: f64, st: f64, k: usize, rng: &mut R) -> Vec<usize> {
    let (cand, _) = keys_below::<false, R>(weights, s, st, k, rng);
    select(weights, s, st, k, cand, rng)
}

/// The pass of a draw: the keys below their threshold, in unit order, and
/// (when `TALLY`) the validating tally of every weight.
///
/// It goes block by block, so the weights are read from memory once: the
/// tally first (a loop that vectorises, while the block is in L1), then the
/// first 32 bits `hi` of every unit's uniform in one bulk fill, then a
/// branch-free pass that lists the units `hi` does not already reject
/// (`U ≥ ⌊hi/2⌋·2⁻³¹ ≥ x(1 + 16ε)`, about a tenth of them at `k = n/10`),
/// and only for those the other 21 bits of `U` and the exact test.
#[inline(always)]
fn keys_below<const TALLY: bool, R: Rng + ?Sized>(
    weights: &[f64],
    s: f64,
    st: f64,
    k: usize,
    rng: &mut R,
) -> (Vec<(f64, u32)>, Tally) {
    const BLOCK: usize = 2048;
    let mut cand: Vec<(f64, u32)> = Vec::with_capacity(k + k / 16 + 64);
    let mut tally = Tally::new();
    let mut hi = vec![0u32; BLOCK.min(weights.len())];
    let mut live = vec![0u16; BLOCK.min(weights.len())];
    let st_wide = st * (1.0 + WIDE);
    for (b, block) in weights.chunks(BLOCK).enumerate() {
        if TALLY {
            tally.push_all(block);
        }
        let hi = &mut hi[..block.len()];
        rng.fill(hi);
        let mut m = 0;
        for (j, (&w, &h)) in block.iter().zip(hi.iter()).enumerate() {
            // (hi/2) fits i32, whose conversion to f64 is one instruction.
            live[m] = j as u16;
            m += usize::from(f64::from((h >> 1) as i32) * TWO_M31 < w * st_wide);
        }
        let base = b * BLOCK;
        for &j in &live[..m] {
            let j = usize::from(j);
            let w = block[j];
            let x = w * st;
            let u = f64::from(hi[j]) * TWO_M32 + f64::from(rng.next_u32() >> 11) * TWO_M53;
            if kept(u, x) {
                cand.push((-(-u).ln_1p() / (w * s), (base + j) as u32));
            }
        }
    }
    (cand, tally)
}

/// The `k` smallest keys: of `cand` when it holds at least `k`, otherwise
/// after giving every other positive unit its key above its threshold.
fn select<R: Rng + ?Sized>(
    weights: &[f64],
    s: f64,
    st: f64,
    k: usize,
    mut cand: Vec<(f64, u32)>,
    rng: &mut R,
) -> Vec<usize> {
    if cand.len() < k {
        // Memorylessness: Kᵢ given Kᵢ ≥ tᵢ is tᵢ + E′ᵢ/wᵢ, with tᵢ the
        // threshold unit i's test used. `cand` is in unit order, so a merge
        // walk finds the units above their threshold.
        let mut rest = Vec::with_capacity(weights.len() - cand.len());
        let mut c = 0;
        for (i, &w) in weights.iter().enumerate() {
            if c < cand.len() && cand[c].1 as usize == i {
                c += 1;
                continue;
            }
            if w <= 0.0 {
                continue;
            }
            let p = -(-(w * st)).exp_m1();
            let e: f64 = rng.sample(Exp1);
            rest.push(((-(-p).ln_1p() + e) / (w * s), i as u32));
        }
        cand.extend(rest);
    }
    let by_key = |a: &(f64, u32), b: &(f64, u32)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    if k > 0 && k < cand.len() {
        cand.select_nth_unstable_by(k - 1, by_key);
    }
    cand[..k].iter().map(|&(_, u)| u as usize).collect()
}

impl FixedSizeSampler for Successive {
    fn n(&self) -> usize {
        self.weights.len()
    }
    fn k(&self) -> usize {
        self.k
    }
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<usize> {
        match self.fast {
            Some(t) => draw(&self.weights, 1.0, t, self.k, rng),
            None => mlcore::sampling::sample_without_replacement(&self.weights, self.k, rng)
                .expect("weights and k validated in Successive::new"),
        }
    }
}

#[cfg(test)]
mod tests {
    //! The thresholded draw is a successive sample whatever the threshold:
    //! its law over k-subsets equals the sequential draw's, enumerated
    //! (P5), at a threshold that keeps every key, the one set-up picks, and
    //! one so low that every draw takes the memoryless fallback.

    use super::*;
    use mlcore::sampling::seeded;
    use mlcore::stats::{Alternative, binomial_test};
    use rand::RngExt;

    /// P(S) for every k-subset S of the sequential draw (sum over orders).
    fn sequential_law(w: &[f64], k: usize) -> Vec<(u32, f64)> {
        fn rec(w: &[f64], k: usize, mask: u32, rest: f64, p: f64, out: &mut Vec<f64>) {
            if mask.count_ones() as usize == k {
                out[mask as usize] += p;
                return;
            }
            for (i, &wi) in w.iter().enumerate() {
                if mask & (1 << i) == 0 && wi > 0.0 {
                    rec(w, k, mask | (1 << i), rest - wi, p * wi / rest, out);
                }
            }
        }
        let mut out = vec![0.0; 1 << w.len()];
        rec(w, k, 0, w.iter().sum(), 1.0, &mut out);
        out.into_iter()
            .enumerate()
            .filter(|&(m, p)| p > 0.0 && (m as u32).count_ones() as usize == k)
            .map(|(m, p)| (m as u32, p))
            .collect()
    }

    /// Every subset's count over `draws` draws passes an exact two-sided
    /// binomial test at a Bonferroni level, so a correct sampler fails with
    /// probability < 1e-7 per call.
    fn assert_same_law(w: &[f64], k: usize, draws: usize, mut draw: impl FnMut() -> Vec<usize>) {
        let law = sequential_law(w, k);
        let mut counts = vec![0usize; 1 << w.len()];
        for _ in 0..draws {
            let s = draw();
            assert_eq!(s.len(), k);
            let mask = s.iter().fold(0u32, |m, &i| m | (1 << i));
            assert_eq!(mask.count_ones() as usize, k, "distinct winners");
            counts[mask as usize] += 1;
        }
        let level = 1e-7 / law.len() as f64;
        let mut total = 0.0;
        for &(m, p) in &law {
            total += p;
            let pv = binomial_test(
                counts[m as usize] as u64,
                draws as u64,
                p,
                Alternative::TwoSided,
            )
            .unwrap();
            assert!(
                pv > level,
                "subset {m:b}: {} of {draws} vs p = {p}",
                counts[m as usize]
            );
        }
        assert!((total - 1.0).abs() < 1e-12);
        let impossible: usize = (0..counts.len())
            .filter(|m| !law.iter().any(|&(l, _)| l as usize == *m))
            .map(|m| counts[m])
            .sum();
        assert_eq!(impossible, 0, "draws outside the design's support");
    }

    #[test]
    fn thresholded_draw_has_the_sequential_law_at_any_threshold() {
        let w = [0.9, 0.8, 0.5, 0.3, 0.2, 0.1, 0.0, 0.05];
        for k in [1, 3, 5] {
            let s = Successive::new(&w, k).unwrap();
            let chosen = s.fast.unwrap();
            for t in [f64::INFINITY, chosen, 1e-3] {
                let mut rng = seeded(11 + k as u64);
                assert_same_law(&w, k, 40_000, || s.sample_with_threshold(t, &mut rng));
            }
        }
    }

    #[test]
    fn one_shot_draw_has_the_sequential_law_at_any_scale() {
        // The same ratios at three scales (the power-of-two scaling path and
        // the divided one for a largest claim beyond 2¹⁰⁰⁰).
        let base = [0.9, 0.8, 0.5, 0.3, 0.2, 0.1, 0.0, 0.05];
        for (j, scale) in [1.0, 1e-250, 1e305].into_iter().enumerate() {
            let w: Vec<f64> = base.iter().map(|&b| b * scale).collect();
            let k = 3;
            let mut rng = seeded(40 + j as u64);
            assert_same_law(&base, k, 40_000, || {
                Successive::sample_once(&w, k, &mut rng).unwrap()
            });
        }
    }

    /// Positive weights in several blocks of the pass (2048 units each),
    /// the rest zero: the law of the 8 positive units, at every threshold,
    /// with the winners' positions mapped back.
    #[test]
    fn draws_across_blocks_keep_positions_and_law() {
        let pos = [0usize, 1, 2047, 2048, 2049, 4095, 4096, 4999];
        let base = [0.9, 0.8, 0.5, 0.3, 0.2, 0.1, 0.05, 0.6];
        let mut w = vec![0.0; 5000];
        for (&p, &b) in pos.iter().zip(&base) {
            w[p] = b;
        }
        let back = |d: Vec<usize>| -> Vec<usize> {
            d.iter()
                .map(|i| pos.iter().position(|p| p == i).expect("a positive unit"))
                .collect()
        };
        let k = 3;
        let s = Successive::new(&w, k).unwrap();
        for (j, t) in [f64::INFINITY, 0.5, 1e-3].into_iter().enumerate() {
            let mut rng = seeded(60 + j as u64);
            assert_same_law(&base, k, 40_000, || {
                back(s.sample_with_threshold(t, &mut rng))
            });
        }
        let mut rng = seeded(70);
        assert_same_law(&base, k, 40_000, || {
            back(Successive::sample_once(&w, k, &mut rng).unwrap())
        });
    }

    /// Each outcome's count passes an exact two-sided binomial test at a
    /// Bonferroni level (1e-7 in all) against its closed-form probability.
    fn assert_outcome_law(
        law: &[(Vec<usize>, f64)],
        draws: usize,
        mut draw: impl FnMut() -> Vec<usize>,
    ) {
        let mut counts = std::collections::HashMap::new();
        for _ in 0..draws {
            let mut d = draw();
            d.sort_unstable();
            *counts.entry(d).or_insert(0u64) += 1;
        }
        let level = 1e-7 / law.len() as f64;
        let mut seen = 0;
        for (outcome, p) in law {
            let c = counts.get(outcome).copied().unwrap_or(0);
            seen += c;
            let pv = binomial_test(c, draws as u64, *p, Alternative::TwoSided).unwrap();
            assert!(pv > level, "{outcome:?}: {c} of {draws} vs p = {p}");
        }
        assert_eq!(seen, draws as u64, "draws outside the support");
    }

    /// The one-pass route (n large against k + 3√k + 16, threshold from a
    /// subsample, validation fused into the draw) against closed forms:
    /// k = 1 over 2100 units in two blocks of the pass, grouped by weight
    /// class and block (P(group) = Σ_group w / S), and k = 2 over 30 units
    /// (P{i, j} = wᵢwⱼ/S · (1/(S − wᵢ) + 1/(S − wⱼ))).
    #[test]
    fn one_pass_route_has_the_closed_form_laws() {
        let w: Vec<f64> = (0..2100).map(|i| 1.0 + (i % 3) as f64).collect();
        let total: f64 = w.iter().sum();
        let group = |i: usize| (i % 3) * 2 + usize::from(i >= 2048);
        let mut mass = [0.0; 6];
        for (i, &wi) in w.iter().enumerate() {
            mass[group(i)] += wi / total;
        }
        let law: Vec<(Vec<usize>, f64)> = (0..6).map(|g| (vec![g], mass[g])).collect();
        let mut rng = seeded(80);
        assert_outcome_law(&law, 20_000, || {
            vec![group(Successive::sample_once(&w, 1, &mut rng).unwrap()[0])]
        });

        let w: Vec<f64> = (0..30)
            .map(|i| 0.5 + (i as f64 * 0.7).sin().abs())
            .collect();
        let total: f64 = w.iter().sum();
        let mut law = Vec::new();
        for i in 0..30 {
            for j in i + 1..30 {
                let p = w[i] * w[j] / total * (1.0 / (total - w[i]) + 1.0 / (total - w[j]));
                law.push((vec![i, j], p));
            }
        }
        let mut rng = seeded(81);
        assert_outcome_law(&law, 100_000, || {
            Successive::sample_once(&w, 2, &mut rng).unwrap()
        });
    }

    #[test]
    fn one_shot_errors_are_those_of_new() {
        let mut rng = seeded(1);
        for (w, k) in [
            (vec![], 1),
            (vec![1.0, f64::NAN], 1),
            (vec![1.0, -1.0], 1),
            (vec![1.0, 0.0], 2),
            (vec![1.0, 2.0], 0),
            (vec![1.0, 2.0], 3),
            (vec![f64::INFINITY, 2.0], 1),
        ] {
            let a = Successive::sample_once(&w, k, &mut rng).unwrap_err();
            let b = Successive::new(&w, k).unwrap_err();
            assert_eq!(format!("{a:?}"), format!("{b:?}"));
        }
    }

    /// The bounds-first test decides every case as the floating-point
    /// `u < 1 − e^{−x}` does, on both sides of the boundary and far from it.
    #[test]
    fn kept_equals_the_direct_comparison() {
        let mut rng = seeded(9);
        let mut checked = 0;
        for _ in 0..200_000 {
            let x = match rng.next_u64() % 4 {
                0 => 10f64.powf(-12.0 + 12.0 * rng.random::<f64>()),
                1 => rng.random::<f64>(),
                2 => 3.0 * rng.random::<f64>(),
                _ => 40.0 * rng.random::<f64>(),
            };
            let p = -(-x).exp_m1();
            for u in [
                rng.random::<f64>(),
                p,
                f64::from_bits(p.to_bits() - 1),
                f64::from_bits(p.to_bits() + 1),
                f64::from_bits(p.to_bits().saturating_sub(40)),
                f64::from_bits(p.to_bits() + 40),
                x * (1.0 - 0.5 * x),
                x * (1.0 - 0.5 * x + x * x / 6.0),
            ] {
                if (0.0..1.0).contains(&u) {
                    assert_eq!(kept(u, x), u < p, "u = {u:e}, x = {x:e}, p = {p:e}");
                    checked += 1;
                }
            }
        }
        assert!(checked > 1_000_000);
        assert!(kept(0.5, f64::INFINITY) && !kept(0.0, 0.0) && !kept(0.0, f64::NAN));
    }

    /// The chosen threshold keeps at least k + 3√k keys in expectation
    /// (so the fallback pass is rare) and not many more than the target,
    /// also when it is solved on a subsample (n > 1024). The three-standard-
    /// error margin is largest for two-valued weights (the last case),
    /// hence the 25% allowance.
    #[test]
    fn chosen_threshold_keeps_about_k_plus_margin_keys() {
        let mut rng = seeded(5);
        let cases: Vec<(Vec<f64>, usize)> = vec![
            ((1..=10_000).map(|i| (i as f64).sqrt()).collect(), 1000),
            (
                (0..100_000).map(|_| 1.0 - rng.random::<f64>()).collect(),
                10_000,
            ),
            ((1..=50_000).map(|i| i as f64).collect(), 500),
            (
                (0..60_000)
                    .map(|i| if i % 7 == 0 { 50.0 } else { 1e-3 })
                    .collect(),
                2_000,
            ),
        ];
        for (w, k) in cases {
            let s = Successive::new(&w, k).unwrap();
            let t = s.fast.unwrap();
            let (count, _) = expected_count(&s.weights, t);
            let kf = k as f64;
            let target = kf + 3.0 * kf.sqrt() + 16.0;
            assert!(
                count >= kf + 3.0 * kf.sqrt() && count <= 1.25 * target,
                "n = {}, k = {k}: {count} vs {target}",
                w.len()
            );
        }
    }

    #[test]
    fn extreme_ratios_use_untruncated_keys() {
        let s = Successive::new(&[1.0, 1e-305, 0.5], 2).unwrap();
        assert!(s.fast.is_none());
        let mut rng = seeded(3);
        let d = s.sample(&mut rng);
        assert_eq!(d.len(), 2);
    }
}
