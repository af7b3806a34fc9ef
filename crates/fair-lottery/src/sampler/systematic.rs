//! Systematic (Madow) πps sampling in a random order.

use super::{ExactMarginals, FixedSizeSampler};
use crate::error::{Error, Result};
use crate::probs::{Selection, Split};
use rand::seq::SliceRandom;
use rand::{Rng, RngExt};

/// Systematic (Madow) sampling on `π` taken in a given order with start `u`:
/// with cumulative sums `S₀ = 0, Sⱼ = π₁ + … + πⱼ` (rescaled so that the last
/// one is exactly `k`), unit `j` is drawn iff some `u + ℓ ∈ [Sⱼ₋₁, Sⱼ)`.
/// Returns positions into `pis`.
pub(crate) fn systematic_positions(pis: &[f64], order: &[usize], k: usize, u: f64) -> Vec<usize> {
    let mut out = Vec::with_capacity(k);
    if k == 0 {
        return out;
    }
    let total: f64 = order.iter().map(|&j| pis[j]).sum();
    let scale = k as f64 / total;
    let mut s = 0.0;
    let mut next = u;
    let mut taken = vec![false; pis.len()];
    for &j in order {
        s += pis[j] * scale;
        if out.len() < k && next < s {
            out.push(j);
            taken[j] = true;
            next = u + out.len() as f64;
        }
    }
    // Rounding guard (only reachable when some π is within ~1e-9 of 1 and
    // the rescaling pushed its interval past length 1): fill with the
    // largest remaining π.
    while out.len() < k {
        let best = (0..pis.len())
            .filter(|&j| !taken[j])
            .max_by(|&a, &b| pis[a].total_cmp(&pis[b]))
            .expect("fewer winners than units");
        taken[best] = true;
        out.push(best);
    }
    out
}

/// Systematic πps sampling (Madow 1949) in a fresh uniformly random order
/// for every draw.
///
/// Shuffle the lottery units, cumulate `Sⱼ = Σ_{l ≤ j} π_(l)`, draw
/// `U ~ U[0, 1)` and take unit `j` iff some `U + ℓ ∈ [Sⱼ₋₁, Sⱼ)`,
/// `ℓ = 0, …, k − 1`. For any fixed order `P(j drawn) = Sⱼ − Sⱼ₋₁ = πⱼ`
/// exactly, so the random order keeps the marginals and only randomises the
/// joint structure (with one fixed order, units far apart in it are never
/// drawn together: `πᵢⱼ = 0`). O(n) per draw (Fisher–Yates shuffle + one
/// pass). The cumulative sums are rescaled so that the last equals the
/// integer number of lottery slots exactly (a relative change ≤ 1e-9, the
/// tolerance of [`Selection::new`]).
#[derive(Debug, Clone)]
pub struct Systematic {
    sel: Selection,
    split: Split,
}

impl Systematic {
    /// Builds the sampler. O(n).
    pub fn new(sel: &Selection) -> Self {
        Systematic {
            sel: sel.clone(),
            split: Split::of(sel),
        }
    }

    /// One draw with the lottery units taken in `order` (a permutation of
    /// `0..#lottery units`, positions into [`Selection::lottery`]) and start
    /// `u ∈ [0, 1)`: the deterministic map that [`FixedSizeSampler::sample`]
    /// randomises.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] when `u ∉ [0, 1)`, [`Error::LengthMismatch`]
    /// when `order` is not a permutation of the lottery positions.
    pub fn sample_with(&self, order: &[usize], u: f64) -> Result<Vec<usize>> {
        if !(0.0..1.0).contains(&u) {
            return Err(Error::InvalidParameter {
                name: "u",
                value: u,
                expected: "0 <= u < 1",
            });
        }
        check_permutation(order, self.split.frac.len())?;
        let pos = systematic_positions(&self.split.frac_pi, order, self.split.k_frac, u);
        Ok(self.assemble(&pos))
    }

    fn assemble(&self, pos: &[usize]) -> Vec<usize> {
        let mut out = self.split.certain.clone();
        out.extend(pos.iter().map(|&p| self.split.frac[p]));
        out
    }
}

pub(crate) fn check_permutation(order: &[usize], m: usize) -> Result<()> {
    if order.len() != m {
        return Err(Error::LengthMismatch {
            what: "order",
            expected: m,
            got: order.len(),
        });
    }
    let mut seen = vec![false; m];
    for &o in order {
        if o >= m || seen[o] {
            return Err(Error::InvalidParameter {
                name: "order",
                value: o as f64,
                expected: "a permutation of the lottery positions",
            });
        }
        seen[o] = true;
    }
    Ok(())
}

impl FixedSizeSampler for Systematic {
    fn n(&self) -> usize {
        self.sel.n()
    }
    fn k(&self) -> usize {
        self.sel.k()
    }
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<usize> {
        // Shuffle (unit, π) pairs so that the pass below reads memory in
        // order (the same permutation as shuffling positions).
        let mut pairs = self.split.pairs();
        pairs.shuffle(rng);
        let u = rng.random::<f64>();
        let k = self.split.k_frac;
        let mut out = self.split.certain.clone();
        if k == 0 {
            return out;
        }
        let scale = k as f64 / self.split.frac_sum;
        let (mut s, mut next, mut taken) = (0.0, u, 0usize);
        for &(unit, p) in &pairs {
            s += p * scale;
            if taken < k && next < s {
                out.push(unit);
                taken += 1;
                next = u + taken as f64;
            }
        }
        if taken < k {
            // Rounding guard, as in `systematic_positions`.
            let pos: Vec<usize> = pairs.iter().map(|&(unit, _)| unit).collect();
            let chosen: std::collections::HashSet<usize> = out.iter().copied().collect();
            let mut rest: Vec<usize> = pos.into_iter().filter(|u| !chosen.contains(u)).collect();
            rest.sort_by(|&a, &b| self.sel.pi()[b].total_cmp(&self.sel.pi()[a]));
            out.extend(rest.into_iter().take(k - taken));
        }
        out
    }
}

impl ExactMarginals for Systematic {
    fn marginals(&self) -> &[f64] {
        self.sel.pi()
    }
}
