//! Successive sampling: what the official code does (marginals not `∝` weights).

use super::FixedSizeSampler;
use crate::error::{Error, Result};
use crate::probs::{check_claims, check_k};
use rand::Rng;

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
/// n ≤ 20). Drawn with Efraimidis–Spirakis exponential keys
/// (`mlcore::sampling::sample_without_replacement`), O(n + k log k).
#[derive(Debug, Clone)]
pub struct Successive {
    weights: Vec<f64>,
    k: usize,
}

impl Successive {
    /// Validates the weights (claims) and `k`. The design depends on the
    /// weights only through their ratios, so when their sum overflows f64
    /// they are stored divided by the largest one (weights below 2⁻¹⁰⁷⁴ of
    /// the largest then count as zero).
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
        Ok(Successive { weights, k })
    }
}

impl FixedSizeSampler for Successive {
    fn n(&self) -> usize {
        self.weights.len()
    }
    fn k(&self) -> usize {
        self.k
    }
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<usize> {
        mlcore::sampling::sample_without_replacement(&self.weights, self.k, rng)
            .expect("weights and k validated in Successive::new")
    }
}
