//! The parameter box with this crate's errors, over
//! [`mlcore::optim::Bounds`].

use crate::error::{Error, Result};
use rand::Rng;

/// A box `lo ≤ θ ≤ hi` (the support of the uniform prior on θ).
#[derive(Debug, Clone, PartialEq)]
pub struct Bounds {
    core: mlcore::optim::Bounds,
}

/// How far (as a fraction of the box width) a start on or near a bound is
/// moved inside, as in the official scripts.
pub const NUDGE: f64 = 1e-4;

impl Bounds {
    /// The box `[lo, hi]`.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for different lengths,
    /// [`Error::ParamOutOfBounds`] unless `lo < hi` (finite) in every
    /// coordinate, [`Error::EmptyData`] for an empty box.
    pub fn new(lo: Vec<f64>, hi: Vec<f64>) -> Result<Self> {
        if lo.len() != hi.len() {
            return Err(Error::DimensionMismatch {
                what: "length of upper bounds vs lower bounds",
                expected: lo.len(),
                got: hi.len(),
            });
        }
        if lo.is_empty() {
            return Err(Error::EmptyData);
        }
        for i in 0..lo.len() {
            if !(lo[i].is_finite() && hi[i].is_finite() && lo[i] < hi[i]) {
                return Err(Error::ParamOutOfBounds {
                    index: i,
                    value: hi[i],
                    lo: lo[i],
                    hi: hi[i],
                });
            }
        }
        Ok(Bounds {
            core: mlcore::optim::Bounds::new(lo, hi)?,
        })
    }
    /// Lower bounds.
    pub fn lo(&self) -> &[f64] {
        self.core.lower()
    }
    /// Upper bounds.
    pub fn hi(&self) -> &[f64] {
        self.core.upper()
    }
    /// Number of coordinates.
    pub fn len(&self) -> usize {
        self.core.dim()
    }
    /// Never true for a constructed box.
    pub fn is_empty(&self) -> bool {
        self.core.dim() == 0
    }
    /// The same box as [`mlcore::optim::Bounds`] (what the optimiser takes).
    pub fn as_core(&self) -> &mlcore::optim::Bounds {
        &self.core
    }

    /// Fails with [`Error::ParamOutOfBounds`] / [`Error::DimensionMismatch`]
    /// unless `θ` lies in the box.
    pub fn check(&self, theta: &[f64]) -> Result<()> {
        if theta.len() != self.len() {
            return Err(Error::DimensionMismatch {
                what: "number of parameters vs bounds",
                expected: self.len(),
                got: theta.len(),
            });
        }
        let (lo, hi) = (self.lo(), self.hi());
        for (i, &v) in theta.iter().enumerate() {
            if !(v >= lo[i] && v <= hi[i]) {
                return Err(Error::ParamOutOfBounds {
                    index: i,
                    value: v,
                    lo: lo[i],
                    hi: hi[i],
                });
            }
        }
        Ok(())
    }

    /// The unconstrained coordinates `u = logit(s)`, `s = (θ − lo)/(hi − lo)`
    /// clipped to `[10⁻⁴, 1 − 10⁻⁴]`.
    pub fn to_unconstrained(&self, theta: &[f64]) -> Vec<f64> {
        self.core.to_logit(theta, NUDGE)
    }

    /// `θ = lo + (hi − lo)·σ(u)` and `dθ/du = (hi − lo)·σ(u)(1 − σ(u))`.
    pub fn from_unconstrained(&self, u: &[f64]) -> (Vec<f64>, Vec<f64>) {
        self.core.logistic(u)
    }

    /// `θ` with every coordinate closer than [`NUDGE`] of the width to a
    /// bound moved inside by that amount (the official
    /// `bump_if_near_bounds`, applied at the start of every tempering
    /// stage).
    pub fn bump(&self, theta: &[f64]) -> Vec<f64> {
        self.core.bump(theta, NUDGE)
    }

    /// `n` starts drawn uniformly from the box (the paper's prior).
    pub fn sample<R: Rng + ?Sized>(&self, n: usize, rng: &mut R) -> Vec<Vec<f64>> {
        self.core.sample_n(n, rng)
    }
}
