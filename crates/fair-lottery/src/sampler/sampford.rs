//! Sampford's rejective πps design.

use super::{ExactMarginals, FixedSizeSampler};
use crate::error::{Error, Result};
use crate::pbtree::PbTree;
use crate::probs::{Selection, Split};
use mlcore::check;
use mlcore::sampling::AliasTable;
use rand::distr::Distribution;
use rand::{Rng, RngExt};

/// Settings of [`Sampford`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampfordParams {
    /// Refuse designs whose expected number of rejection trials per draw,
    /// `1/P(accept)`, exceeds this. Default 1e4.
    pub max_expected_trials: f64,
}

impl Default for SampfordParams {
    fn default() -> Self {
        SampfordParams {
            max_expected_trials: 1e4,
        }
    }
}

/// Sampford's (1967) rejective πps design.
///
/// `P(S = s) ∝ (Σ_{a∈s} (1 − πₐ))·Π_{j∈s} πⱼ/(1 − πⱼ)` on `|s| = k`
/// (lottery units), whose inclusion probabilities are exactly `π`. Drawn by
/// rejection: pick `a` with probability `πₐ/k`, draw a Poisson sample `T`
/// with inclusion probabilities `π` (independent coins), accept `T ∪ {a}`
/// iff `a ∉ T` and `|T| = k − 1` (coins stop early on either failure).
/// Summing over `a ∈ s` gives the design above.
///
/// **Acceptance rate.** `P(accept) = (1/k)·Σₐ πₐ(1 − πₐ)·P(K₋ₐ = k − 1)`
/// (computed exactly at construction with the windowed Poisson-binomial tree
/// of [`ConditionalPoisson`](super::ConditionalPoisson)); roughly `√d/(k√(2π))` with `d = Σπ(1−π)`,
/// i.e. ≈ `1/√(2πk)` when every `π` is small. A draw costs O(n) per trial,
/// so ≈ O(n·√k): fine for moderate `k` (n = 10⁵, k = 10³: ~80 trials), slow
/// for n = 10⁶, k = 10⁵ (~800 trials of 10⁶ coins). The number of trials is
/// geometric with mean `1/P(accept)`; the constructor returns
/// [`Error::SampfordTooSlow`] when that mean exceeds
/// [`SampfordParams::max_expected_trials`] (then use [`ConditionalPoisson`](super::ConditionalPoisson)
/// or [`Pipage`](super::Pipage)), so a draw terminates after at most 50× the limit trials
/// except with probability below e⁻⁵⁰.
#[derive(Debug, Clone)]
pub struct Sampford {
    sel: Selection,
    split: Split,
    first: Option<AliasTable>,
    accept: f64,
}

impl Sampford {
    /// Builds the sampler with [`SampfordParams::default`].
    ///
    /// # Errors
    /// [`Error::SampfordTooSlow`].
    pub fn new(sel: &Selection) -> Result<Self> {
        Self::with_params(sel, SampfordParams::default())
    }

    /// Builds the sampler. O(n·T·log n) for the acceptance rate.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a limit that is not ≥ 1;
    /// [`Error::SampfordTooSlow`] when `1/P(accept)` exceeds it.
    pub fn with_params(sel: &Selection, params: SampfordParams) -> Result<Self> {
        check::closed_interval(
            params.max_expected_trials,
            1.0,
            f64::INFINITY,
            "max_expected_trials",
            ">= 1",
        )?;
        let split = Split::of(sel);
        let k = split.k_frac;
        if k == 0 {
            return Ok(Sampford {
                sel: sel.clone(),
                split,
                first: None,
                accept: 1.0,
            });
        }
        let tree = PbTree::new(&split.frac_pi);
        let outs = tree.outside(k);
        let accept = split
            .frac_pi
            .iter()
            .zip(&outs)
            .map(|(&p, o)| p * (1.0 - p) * o[0])
            .sum::<f64>()
            / k as f64;
        let expected = 1.0 / accept;
        if expected.is_nan() || expected > params.max_expected_trials {
            return Err(Error::SampfordTooSlow {
                expected_trials: expected,
                limit: params.max_expected_trials,
            });
        }
        let first = AliasTable::new(&split.frac_pi)?;
        Ok(Sampford {
            sel: sel.clone(),
            split,
            first: Some(first),
            accept,
        })
    }

    /// `P(accept)` of one rejection trial.
    pub fn acceptance_rate(&self) -> f64 {
        self.accept
    }
}

impl FixedSizeSampler for Sampford {
    fn n(&self) -> usize {
        self.sel.n()
    }
    fn k(&self) -> usize {
        self.sel.k()
    }
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<usize> {
        let mut out = self.split.certain.clone();
        let Some(first) = &self.first else {
            return out;
        };
        let k = self.split.k_frac;
        let pis = &self.split.frac_pi;
        let mut t: Vec<usize> = Vec::with_capacity(k);
        loop {
            let a = first.sample(rng);
            t.clear();
            let mut ok = true;
            for (j, &p) in pis.iter().enumerate() {
                if rng.random::<f64>() < p {
                    if j == a || t.len() + 1 > k - 1 {
                        ok = false;
                        break;
                    }
                    t.push(j);
                }
            }
            if ok && t.len() == k - 1 {
                t.push(a);
                break;
            }
        }
        out.extend(t.iter().map(|&p| self.split.frac[p]));
        out
    }
}

impl ExactMarginals for Sampford {
    fn marginals(&self) -> &[f64] {
        self.sel.pi()
    }
}
