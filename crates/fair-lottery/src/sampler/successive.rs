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
/// storing all `n` keys and selecting, [`Successive::new`] solves once for a
/// threshold `t` with `E #{i : Kᵢ ≤ t} = Σᵢ (1 − e^{−wᵢ t}) ≈ k + 3√k + 16`;
/// a draw keeps only the keys `< t` (about `k` of them, in one pass over the
/// units that draws one uniform each and takes a logarithm only for the
/// units kept) and selects the `k` smallest in O(k). When fewer than `k` keys
/// fall below `t` (probability about 0.1%), every other unit gets the key
/// `t + E′ᵢ / wᵢ` with a fresh `E′ᵢ ~ Exp(1)` — by memorylessness exactly the
/// law of `Kᵢ` given `Kᵢ ≥ t` — and the `k` smallest of all keys are taken,
/// so `t` changes the speed, never the law of the draw. Per draw O(n) (one
/// 53-bit uniform per positive unit; exact up to that resolution, like every
/// floating-point sampler), set-up O(n) (a few passes of `exp`).
///
/// Weights whose ratio to the largest one is below 10⁻³⁰⁰ (where `E / w` can
/// overflow), and n ≥ 2³², use the untruncated keys instead
/// (`mlcore::sampling::sample_without_replacement`, O(n + k log k)).
#[derive(Debug, Clone)]
pub struct Successive {
    weights: Vec<f64>,
    k: usize,
    fast: Option<Thresholded>,
}

/// The truncated-key representation of the positive-weight units.
#[derive(Debug, Clone)]
struct Thresholded {
    /// Positions of the positive weights.
    units: Vec<u32>,
    /// `max w / wᵢ` per positive unit (finite, ≤ 10³⁰⁰).
    inv: Vec<f64>,
    /// The key threshold `t` (`+∞`: keep every key).
    t: f64,
    /// `pᵢ = 1 − e^{−wᵢ t}` per positive unit (w relative to the largest).
    p: Vec<f64>,
}

/// Smallest ratio `wᵢ / max w` the thresholded keys accept.
const MIN_RATIO: f64 = 1e-300;

impl Successive {
    /// Validates the weights (claims) and `k`. The design depends on the
    /// weights only through their ratios, so when their sum overflows f64
    /// they are stored divided by the largest one (weights below 2⁻¹⁰⁷⁴ of
    /// the largest then count as zero). O(n) plus a few passes of `exp` to
    /// set the key threshold.
    ///
    /// # Errors
    /// As [`check_claims`] and [`check_k`]; [`Error::TooFewPositiveClaims`]
    /// when fewer than `k` weights are positive.
    pub fn new(weights: &[f64], k: usize) -> Result<Self> {
        check_claims(weights)?;
        check_k(k, weights.len())?;
        let positive = weights.iter().filter(|&&w| w > 0.0).count();
        if positive < k {
            return Err(Error::TooFewPositiveClaims { positive, k });
        }
        let weights = crate::probs::scale_if_overflowing(weights);
        let positive = weights.iter().filter(|&&w| w > 0.0).count();
        if positive < k {
            return Err(Error::TooFewPositiveClaims { positive, k });
        }
        let target = k as f64 + 3.0 * (k as f64).sqrt() + 16.0;
        let fast = thresholded(&weights, target);
        Ok(Successive { weights, k, fast })
    }

    /// As [`FixedSizeSampler::sample`] with the key threshold `t` in place of
    /// the one chosen at set-up (for tests: `t` must not change the law).
    #[cfg(test)]
    fn sample_with_threshold<R: Rng + ?Sized>(&self, t: f64, rng: &mut R) -> Vec<usize> {
        draw(self.fast.as_ref().expect("thresholded"), t, self.k, rng)
    }
}

/// The thresholded representation, or `None` when the weights' range or `n`
/// is outside what it handles.
fn thresholded(weights: &[f64], target: f64) -> Option<Thresholded> {
    if u32::try_from(weights.len()).is_err() {
        return None;
    }
    let top = weights.iter().copied().fold(0.0, f64::max);
    let mut units = Vec::new();
    let mut rel = Vec::new();
    for (i, &w) in weights.iter().enumerate() {
        if w > 0.0 {
            let r = w / top;
            if r < MIN_RATIO {
                return None;
            }
            units.push(i as u32);
            rel.push(r);
        }
    }
    let t = if target >= rel.len() as f64 {
        f64::INFINITY
    } else {
        threshold(&rel, target)
    };
    let inv: Vec<f64> = rel.iter().map(|r| 1.0 / r).collect();
    let p = below_probs(&inv, t);
    Some(Thresholded { units, inv, t, p })
}

/// `f(t) = Σᵢ (1 − e^{−wᵢ t})` (the expected number of keys `≤ t`) and `f′(t)`.
fn expected_count(w: &[f64], t: f64) -> (f64, f64) {
    w.iter().fold((0.0, 0.0), |(f, d), &wi| {
        let e = (-wi * t).exp();
        (f + (1.0 - e), d + wi * e)
    })
}

/// A `t` with `f(t) ≈ target` (`0 < target < #w`) by Newton's method, which
/// approaches the root of the concave increasing `f` monotonically: first on
/// a stride subsample of at most 4096 weights (target scaled), then three
/// steps on all of them. Only the speed of a draw depends on how close it is.
fn threshold(w: &[f64], target: f64) -> f64 {
    let newton = |w: &[f64], target: f64, mut t: f64, steps: usize| {
        for _ in 0..steps {
            let (f, d) = expected_count(w, t);
            if d <= 0.0 || !d.is_finite() {
                break;
            }
            let next = (t + (target - f) / d).max(0.0);
            if (next - t).abs() <= 1e-9 * t.abs() {
                return next;
            }
            t = next;
        }
        t
    };
    let stride = w.len().div_ceil(4096).max(1);
    let sub: Vec<f64> = w.iter().step_by(stride).copied().collect();
    let sub_target = (target * sub.len() as f64 / w.len() as f64).min(sub.len() as f64 - 0.5);
    let t0 = newton(&sub, sub_target, 0.0, 200);
    let t = newton(w, target, t0, 3);
    if t.is_finite() && t > 0.0 {
        t
    } else {
        f64::INFINITY
    }
}

/// One draw from the thresholded keys (see [`Successive`]).
///
/// A unit's key is below the threshold iff its uniform `U = 1 − e^{−E}` is
/// below `pᵢ = 1 − e^{−wᵢ t}`, so the pass draws one 53-bit uniform per unit
/// and computes `E = −ln(1 − U)` (exactly `Exp(1)` given `E < wᵢ t`) only for
/// the about `k` units below; the others, when needed, get `tᵢ + E′/wᵢ` with
/// `tᵢ = −ln(1 − pᵢ)/wᵢ` (the threshold their test used).
fn draw<R: Rng + ?Sized>(fast: &Thresholded, t: f64, k: usize, rng: &mut R) -> Vec<usize> {
    let own;
    let p: &[f64] = if t == fast.t {
        &fast.p
    } else {
        own = below_probs(&fast.inv, t);
        &own
    };
    let mut cand: Vec<(f64, u32)> = Vec::with_capacity(k + k / 16 + 64);
    for ((&unit, &iv), &pi) in fast.units.iter().zip(&fast.inv).zip(p) {
        let u = (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64);
        if u < pi {
            cand.push((-(-u).ln_1p() * iv, unit));
        }
    }
    if cand.len() < k {
        // Memorylessness: Kᵢ given Kᵢ ≥ tᵢ is tᵢ + E′ᵢ/wᵢ. `cand` is in unit
        // order, so a merge walk finds the units above their threshold.
        let mut rest = Vec::with_capacity(fast.units.len() - cand.len());
        let mut c = 0;
        for ((&unit, &iv), &pi) in fast.units.iter().zip(&fast.inv).zip(p) {
            if c < cand.len() && cand[c].1 == unit {
                c += 1;
                continue;
            }
            let e: f64 = rng.sample(Exp1);
            rest.push((-(-pi).ln_1p() * iv + e * iv, unit));
        }
        cand.extend(rest);
    }
    let by_key = |a: &(f64, u32), b: &(f64, u32)| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1));
    if k > 0 && k < cand.len() {
        cand.select_nth_unstable_by(k - 1, by_key);
    }
    cand[..k].iter().map(|&(_, u)| u as usize).collect()
}

/// `pᵢ = P(Eᵢ/wᵢ < t) = 1 − e^{−wᵢ t}` from `1/wᵢ` (1 when `t = ∞`).
fn below_probs(inv: &[f64], t: f64) -> Vec<f64> {
    inv.iter().map(|&iv| -(-t / iv).exp_m1()).collect()
}

impl FixedSizeSampler for Successive {
    fn n(&self) -> usize {
        self.weights.len()
    }
    fn k(&self) -> usize {
        self.k
    }
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<usize> {
        match &self.fast {
            Some(f) => draw(f, f.t, self.k, rng),
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
            let chosen = s.fast.as_ref().unwrap().t;
            for t in [f64::INFINITY, chosen, 1e-3] {
                let mut rng = seeded(11 + k as u64);
                assert_same_law(&w, k, 40_000, || s.sample_with_threshold(t, &mut rng));
            }
        }
    }

    #[test]
    fn chosen_threshold_keeps_about_k_plus_margin_keys() {
        let w: Vec<f64> = (1..=10_000).map(|i| (i as f64).sqrt()).collect();
        let s = Successive::new(&w, 1000).unwrap();
        let f = s.fast.as_ref().unwrap();
        let rel: Vec<f64> = f.inv.iter().map(|v| 1.0 / v).collect();
        let (count, _) = expected_count(&rel, f.t);
        let target = 1000.0 + 3.0 * 1000f64.sqrt() + 16.0;
        assert!(
            (count - target).abs() < 0.01 * target,
            "{count} vs {target}"
        );
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
