//! Exact designs by enumeration, for audits and tests on small `n`.
//!
//! A [`DesignTable`] lists every possible winner set with its probability;
//! its marginals and joint inclusion probabilities are exact sums. Each
//! function enumerates what its sampler does (systematic: exact integration
//! over the start `U`; pipage: the tree of coin flips; conditional Poisson
//! and Sampford: their closed-form `P(S = s)` over all `k`-subsets), so a
//! test comparing the table's marginals with `π` checks the sampler's
//! construction, not a re-statement of it.

use crate::error::{Error, Result};
use crate::probs::{Selection, Split, check_claims, check_k};
use crate::sampler::{
    ConditionalPoisson, check_permutation, pipage_step, snap, systematic_positions,
};
use ndarray::Array2;

/// Largest `n` the subset enumerations accept (2ⁿ subsets).
pub const EXACT_MAX: usize = 20;

/// Largest number of lottery units for [`systematic_random_order_design`] (m! orders).
pub const SYSTEMATIC_ORDERS_MAX: usize = 8;

/// A sampling design written out: every winner set (sorted unit indices)
/// with its probability.
#[derive(Debug, Clone, PartialEq)]
pub struct DesignTable {
    /// Number of units.
    pub n: usize,
    /// `(winner set, probability)`; sets may repeat (their probabilities add).
    pub samples: Vec<(Vec<usize>, f64)>,
}

impl DesignTable {
    /// `Σ_s P(s)` (1 up to rounding).
    pub fn total(&self) -> f64 {
        self.samples.iter().map(|(_, p)| p).sum()
    }

    /// `πᵢ = Σ_{s ∋ i} P(s)`.
    pub fn marginals(&self) -> Vec<f64> {
        let mut pi = vec![0.0; self.n];
        for (s, p) in &self.samples {
            for &i in s {
                pi[i] += p;
            }
        }
        pi
    }

    /// `πᵢⱼ = Σ_{s ∋ i, j} P(s)` (diagonal `πᵢ`).
    pub fn joint(&self) -> Array2<f64> {
        let mut m = Array2::zeros((self.n, self.n));
        for (s, p) in &self.samples {
            for &i in s {
                for &j in s {
                    m[[i, j]] += p;
                }
            }
        }
        m
    }

    /// Every listed set has exactly `k` distinct units.
    pub fn all_of_size(&self, k: usize) -> bool {
        self.samples.iter().all(|(s, _)| {
            let mut t = s.clone();
            t.sort_unstable();
            t.dedup();
            t.len() == k && s.len() == k
        })
    }
}

fn too_large(n: usize, max: usize) -> Result<()> {
    if n > max {
        return Err(Error::TooLargeForExact { n, max });
    }
    Ok(())
}

fn lift(split: &Split, pos: &[usize]) -> Vec<usize> {
    let mut s: Vec<usize> = split.certain.clone();
    s.extend(pos.iter().map(|&p| split.frac[p]));
    s.sort_unstable();
    s
}

/// The systematic design for one fixed order of the lottery units (positions
/// into [`Selection::lottery`]), by exact integration over `U ∈ [0, 1)`: the
/// draw is constant between consecutive breakpoints `frac(Sⱼ)`, so each
/// segment contributes its length. O(m log m + m²).
///
/// # Errors
/// [`Error::LengthMismatch`] / [`Error::InvalidParameter`] when `order` is
/// not a permutation of the lottery positions.
pub fn systematic_design(sel: &Selection, order: &[usize]) -> Result<DesignTable> {
    let split = Split::of(sel);
    check_permutation(order, split.frac.len())?;
    let total: f64 = order.iter().map(|&j| split.frac_pi[j]).sum();
    let scale = split.k_frac as f64 / total.max(f64::MIN_POSITIVE);
    let mut cuts = vec![0.0, 1.0];
    let mut s = 0.0;
    for &j in order {
        s += split.frac_pi[j] * scale;
        cuts.push(s - s.floor());
    }
    cuts.sort_by(f64::total_cmp);
    cuts.dedup();
    let mut samples = Vec::new();
    for w in cuts.windows(2) {
        let len = w[1] - w[0];
        if len <= 0.0 {
            continue;
        }
        let u = 0.5 * (w[0] + w[1]);
        let pos = systematic_positions(&split.frac_pi, order, split.k_frac, u);
        samples.push((lift(&split, &pos), len));
    }
    Ok(DesignTable {
        n: sel.n(),
        samples,
    })
}

/// The systematic design with a uniformly random order: the average of
/// [`systematic_design`] over all `m!` orders of the `m` lottery units.
///
/// # Errors
/// [`Error::TooLargeForExact`] when `m` > [`SYSTEMATIC_ORDERS_MAX`].
pub fn systematic_random_order_design(sel: &Selection) -> Result<DesignTable> {
    let m = sel.lottery().len();
    too_large(m, SYSTEMATIC_ORDERS_MAX)?;
    let mut perm: Vec<usize> = (0..m).collect();
    let mut all = Vec::new();
    let mut count = 0usize;
    // Heap's algorithm (iterative).
    let mut c = vec![0usize; m];
    let push = |perm: &[usize], all: &mut Vec<(Vec<usize>, f64)>| -> Result<()> {
        let d = systematic_design(sel, perm)?;
        all.extend(d.samples);
        Ok(())
    };
    push(&perm, &mut all)?;
    count += 1;
    let mut i = 0;
    while i < m {
        if c[i] < i {
            if i % 2 == 0 {
                perm.swap(0, i);
            } else {
                perm.swap(c[i], i);
            }
            push(&perm, &mut all)?;
            count += 1;
            c[i] += 1;
            i = 0;
        } else {
            c[i] = 0;
            i += 1;
        }
    }
    let w = 1.0 / count as f64;
    for s in &mut all {
        s.1 *= w;
    }
    Ok(DesignTable {
        n: sel.n(),
        samples: all,
    })
}

/// The pipage design for one fixed pairing order, by following both branches
/// of every coin flip (at most 2^(m−1) leaves).
///
/// # Errors
/// [`Error::TooLargeForExact`] for more than [`EXACT_MAX`] lottery units;
/// [`Error::LengthMismatch`] / [`Error::InvalidParameter`] for a bad order.
pub fn pipage_design(sel: &Selection, order: &[usize]) -> Result<DesignTable> {
    let split = Split::of(sel);
    too_large(split.frac.len(), EXACT_MAX)?;
    check_permutation(order, split.frac.len())?;
    let mut samples = Vec::new();
    fn rec(
        split: &Split,
        order: &[usize],
        idx: usize,
        open: Option<(usize, f64)>,
        chosen: &mut Vec<usize>,
        prob: f64,
        out: &mut Vec<(Vec<usize>, f64)>,
    ) {
        if idx == order.len() {
            let mut pos = chosen.clone();
            if let Some((a, v)) = open
                && v >= 0.5
            {
                pos.push(a);
            }
            out.push((lift(split, &pos), prob));
            return;
        }
        let j = order[idx];
        let Some((a, va)) = open else {
            rec(
                split,
                order,
                idx + 1,
                Some((j, split.frac_pi[j])),
                chosen,
                prob,
                out,
            );
            return;
        };
        let (up, down, p_up) = pipage_step(va, split.frac_pi[j]);
        for (vals, p) in [(up, p_up), (down, 1.0 - p_up)] {
            if p <= 0.0 {
                continue;
            }
            let before = chosen.len();
            let mut next_open = None;
            for (unit, v) in [(a, snap(vals[0])), (j, snap(vals[1]))] {
                if v == 1.0 {
                    chosen.push(unit);
                } else if v > 0.0 {
                    next_open = Some((unit, v));
                }
            }
            rec(split, order, idx + 1, next_open, chosen, prob * p, out);
            chosen.truncate(before);
        }
    }
    rec(&split, order, 0, None, &mut Vec::new(), 1.0, &mut samples);
    Ok(DesignTable {
        n: sel.n(),
        samples,
    })
}

/// Calls `f` on every `k`-subset of `0..m` (as a bitmask).
fn for_each_subset(m: usize, k: usize, mut f: impl FnMut(u32)) {
    for mask in 0u32..(1u32 << m) {
        if mask.count_ones() as usize == k {
            f(mask);
        }
    }
}

fn mask_positions(mask: u32, m: usize) -> Vec<usize> {
    (0..m).filter(|&j| mask >> j & 1 == 1).collect()
}

/// The conditional Poisson design of a calibrated sampler, written out:
/// `P(s) = Π_{i∈s} wᵢ / Σ_{|t|=k} Π_{i∈t} wᵢ` with the sampler's working
/// weights `wᵢ = pᵢ/(1 − pᵢ)` over all `k`-subsets of the lottery units.
///
/// # Errors
/// [`Error::TooLargeForExact`] for more than [`EXACT_MAX`] lottery units.
pub fn cps_design(cps: &ConditionalPoisson, sel: &Selection) -> Result<DesignTable> {
    let split = Split::of(sel);
    let m = split.frac.len();
    too_large(m, EXACT_MAX)?;
    let p = cps.working_probs();
    let w: Vec<f64> = split.frac.iter().map(|&i| p[i] / (1.0 - p[i])).collect();
    let mut samples = Vec::new();
    for_each_subset(m, split.k_frac, |mask| {
        let pos = mask_positions(mask, m);
        let weight: f64 = pos.iter().map(|&j| w[j]).product();
        samples.push((lift(&split, &pos), weight));
    });
    let z: f64 = samples.iter().map(|s| s.1).sum();
    for s in &mut samples {
        s.1 /= z;
    }
    Ok(DesignTable {
        n: sel.n(),
        samples,
    })
}

/// Sampford's design written out:
/// `P(s) ∝ (Σ_{a∈s}(1 − πₐ))·Π_{j∈s} πⱼ/(1 − πⱼ)` over all `k`-subsets of
/// the lottery units (normalised by its sum).
///
/// # Errors
/// [`Error::TooLargeForExact`] for more than [`EXACT_MAX`] lottery units.
pub fn sampford_design(sel: &Selection) -> Result<DesignTable> {
    let split = Split::of(sel);
    let m = split.frac.len();
    too_large(m, EXACT_MAX)?;
    let pi = &split.frac_pi;
    let mut samples = Vec::new();
    for_each_subset(m, split.k_frac, |mask| {
        let pos = mask_positions(mask, m);
        let prod: f64 = pos.iter().map(|&j| pi[j] / (1.0 - pi[j])).product();
        let sum: f64 = pos.iter().map(|&j| 1.0 - pi[j]).sum();
        samples.push((lift(&split, &pos), prod * sum));
    });
    if split.k_frac == 0 {
        samples = vec![(lift(&split, &[]), 1.0)];
    }
    let z: f64 = samples.iter().map(|s| s.1).sum();
    for s in &mut samples {
        s.1 /= z;
    }
    Ok(DesignTable {
        n: sel.n(),
        samples,
    })
}

/// Exact inclusion probabilities of successive sampling (`k` draws without
/// replacement, each `∝` the weights of the units left), by dynamic
/// programming over subsets: `f(S) = Σ_{i∈S} f(S∖i)·wᵢ/(W − w(S∖i))` is the
/// probability that the first `|S|` draws are the set `S`, and
/// `πᵢ = Σ_{|S| = k, S ∋ i} f(S)`. O(2ⁿ·n) time, O(2ⁿ) memory.
///
/// # Errors
/// As [`check_claims`] and [`check_k`]; [`Error::TooFewPositiveClaims`];
/// [`Error::TooLargeForExact`] for n > [`EXACT_MAX`].
pub fn successive_marginals(weights: &[f64], k: usize) -> Result<Vec<f64>> {
    check_claims(weights)?;
    let n = weights.len();
    check_k(k, n)?;
    too_large(n, EXACT_MAX)?;
    let positive = weights.iter().filter(|&&w| w > 0.0).count();
    if positive < k {
        return Err(Error::TooFewPositiveClaims { positive, k });
    }
    let total: f64 = weights.iter().sum();
    let size = 1usize << n;
    let mut wsum = vec![0.0; size];
    let mut f = vec![0.0; size];
    f[0] = 1.0;
    let mut pi = vec![0.0; n];
    for mask in 1..size {
        let low = mask.trailing_zeros() as usize;
        wsum[mask] = wsum[mask & (mask - 1)] + weights[low];
        let c = mask.count_ones() as usize;
        if c > k {
            continue;
        }
        let mut acc = 0.0;
        let mut rest = mask;
        while rest != 0 {
            let i = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            let prev = mask & !(1 << i);
            let left = total - wsum[prev];
            if f[prev] > 0.0 && left > 0.0 {
                acc += f[prev] * weights[i] / left;
            }
        }
        f[mask] = acc;
        if c == k {
            let mut rest = mask;
            while rest != 0 {
                let i = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                pi[i] += acc;
            }
        }
    }
    Ok(pi)
}
