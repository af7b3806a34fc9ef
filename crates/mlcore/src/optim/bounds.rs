//! The box `lower ≤ x ≤ upper` and the maps in and out of it.

use crate::error::{Error, Result};
use crate::sampling::seeded;
use rand::{Rng, RngExt};

/// A box `∏ᵢ [lowerᵢ, upperᵢ]` with finite `lowerᵢ < upperᵢ` and at least
/// one coordinate.
#[derive(Debug, Clone, PartialEq)]
pub struct Bounds {
    lower: Vec<f64>,
    upper: Vec<f64>,
}

impl Bounds {
    /// The box `∏ᵢ [lowerᵢ, upperᵢ]`.
    ///
    /// # Errors
    /// [`Error::Empty`] for no coordinate, [`Error::ShapeMismatch`] for
    /// different lengths, [`Error::NonFinite`] for a NaN or infinite bound,
    /// [`Error::InvalidParameter`] where `lowerᵢ ≥ upperᵢ` (checked
    /// coordinate by coordinate, the first offence reported).
    pub fn new(lower: Vec<f64>, upper: Vec<f64>) -> Result<Self> {
        if lower.is_empty() {
            return Err(Error::Empty { what: "bounds" });
        }
        crate::check::len(upper.len(), lower.len(), "upper bounds")?;
        for (i, (&l, &u)) in lower.iter().zip(&upper).enumerate() {
            if !l.is_finite() {
                return Err(Error::NonFinite {
                    what: "lower bounds",
                    index: i,
                });
            }
            if !u.is_finite() {
                return Err(Error::NonFinite {
                    what: "upper bounds",
                    index: i,
                });
            }
            if l >= u {
                return Err(Error::InvalidParameter {
                    name: "upper bound",
                    value: u,
                    expected: "greater than the lower bound of its coordinate",
                });
            }
        }
        Ok(Bounds { lower, upper })
    }

    /// The unit cube `[0, 1]ᵈ`.
    ///
    /// # Errors
    /// [`Error::Empty`] for `d = 0`.
    pub fn unit(d: usize) -> Result<Self> {
        Self::new(vec![0.0; d], vec![1.0; d])
    }

    /// The same box repeated `times` times (the box of a batch of points).
    pub fn repeat(&self, times: usize) -> Bounds {
        Bounds {
            lower: self.lower.repeat(times),
            upper: self.upper.repeat(times),
        }
    }

    /// Lower bounds.
    pub fn lower(&self) -> &[f64] {
        &self.lower
    }

    /// Upper bounds.
    pub fn upper(&self) -> &[f64] {
        &self.upper
    }

    /// The dimension `d` (never 0).
    pub fn dim(&self) -> usize {
        self.lower.len()
    }

    /// The widths `upperᵢ − lowerᵢ`.
    pub fn widths(&self) -> Vec<f64> {
        self.lower
            .iter()
            .zip(&self.upper)
            .map(|(l, u)| u - l)
            .collect()
    }

    /// Whether `x` has dimension `d` and lies in the box (NaN never does).
    pub fn contains(&self, x: &[f64]) -> bool {
        x.len() == self.dim()
            && x.iter()
                .zip(self.lower.iter().zip(&self.upper))
                .all(|(&v, (&l, &u))| v >= l && v <= u)
    }

    /// Checks a point `what` (for example a start) against the box.
    ///
    /// # Errors
    /// [`Error::Empty`] for an empty `x`, [`Error::ShapeMismatch`] for the
    /// wrong dimension, [`Error::NonFinite`] for a NaN or infinite
    /// coordinate, [`Error::InvalidParameter`] for one outside the box.
    pub fn check(&self, x: &[f64], what: &'static str) -> Result<()> {
        if x.is_empty() {
            return Err(Error::Empty { what });
        }
        crate::check::len(x.len(), self.dim(), what)?;
        for (i, &v) in x.iter().enumerate() {
            if !v.is_finite() {
                return Err(Error::NonFinite { what, index: i });
            }
            if !(v >= self.lower[i] && v <= self.upper[i]) {
                return Err(Error::InvalidParameter {
                    name: what,
                    value: v,
                    expected: "inside the bounds",
                });
            }
        }
        Ok(())
    }

    /// `x` projected onto the box (coordinate-wise clamp).
    pub fn clamp(&self, x: &[f64]) -> Vec<f64> {
        x.iter()
            .zip(self.lower.iter().zip(&self.upper))
            .map(|(&v, (&l, &u))| v.clamp(l, u))
            .collect()
    }

    /// A point drawn uniformly from the box.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<f64> {
        self.lower
            .iter()
            .zip(&self.upper)
            .map(|(&l, &u)| l + (u - l) * rng.random::<f64>())
            .collect()
    }

    /// `n` points drawn uniformly from the box, one after the other.
    pub fn sample_n<R: Rng + ?Sized>(&self, n: usize, rng: &mut R) -> Vec<Vec<f64>> {
        (0..n).map(|_| self.sample(rng)).collect()
    }

    /// `n` uniform starts drawn with [`seeded`]`(seed)`: the same starts on
    /// every machine.
    pub fn seeded_starts(&self, n: usize, seed: u64) -> Vec<Vec<f64>> {
        self.sample_n(n, &mut seeded(seed))
    }

    /// `x` with every coordinate closer than `nudge` (a fraction of the
    /// width) to a bound moved inside by that amount (the official
    /// `bump_if_near_bounds` of the diffusion-tempering scripts).
    pub fn bump(&self, x: &[f64], nudge: f64) -> Vec<f64> {
        x.iter()
            .enumerate()
            .map(|(i, &v)| {
                let w = self.upper[i] - self.lower[i];
                let t = (v - self.lower[i]) / w;
                let t = if t < nudge {
                    t + nudge
                } else if 1.0 - t < nudge {
                    t - nudge
                } else {
                    t
                };
                self.lower[i] + w * t
            })
            .collect()
    }

    /// `x` with every coordinate within `rel` (a fraction of the width) of a
    /// bound moved onto it.
    pub fn snap(&self, x: &[f64], rel: f64) -> Vec<f64> {
        x.iter()
            .zip(self.lower.iter().zip(&self.upper))
            .map(|(&x, (&l, &u))| {
                let t = (x - l) / (u - l);
                if t < rel {
                    l
                } else if t > 1.0 - rel {
                    u
                } else {
                    x
                }
            })
            .collect()
    }

    /// The unconstrained coordinates `uᵢ = logit(tᵢ)` of `x`, `tᵢ = (xᵢ −
    /// lowerᵢ)/(upperᵢ − lowerᵢ)` clamped to `[clip, 1 − clip]` (so a point
    /// outside the box is projected onto it first).
    pub fn to_logit(&self, x: &[f64], clip: f64) -> Vec<f64> {
        x.iter()
            .enumerate()
            .map(|(i, &v)| {
                let t =
                    ((v - self.lower[i]) / (self.upper[i] - self.lower[i])).clamp(clip, 1.0 - clip);
                (t / (1.0 - t)).ln()
            })
            .collect()
    }

    /// `xᵢ = lowerᵢ + (upperᵢ − lowerᵢ)·σ(uᵢ)` clamped into the box, and the
    /// Jacobian diagonal `dxᵢ/duᵢ = (upperᵢ − lowerᵢ)·σ(uᵢ)(1 − σ(uᵢ))`.
    pub fn logistic(&self, u: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let mut x = Vec::with_capacity(u.len());
        let mut jac = Vec::with_capacity(u.len());
        for (i, &ui) in u.iter().enumerate() {
            let s = sigmoid(ui);
            let w = self.upper[i] - self.lower[i];
            x.push((self.lower[i] + w * s).clamp(self.lower[i], self.upper[i]));
            jac.push(w * s * (1.0 - s));
        }
        (x, jac)
    }

    /// `xᵢ = lowerᵢ + (upperᵢ − lowerᵢ)·σ(uᵢ)` without the final clamp
    /// ([`Pullback::Chained`](super::Pullback::Chained)).
    pub(crate) fn logistic_unclamped(&self, u: &[f64]) -> Vec<f64> {
        u.iter()
            .zip(self.lower.iter().zip(&self.upper))
            .map(|(&u, (&l, &h))| l + (h - l) * sigmoid(u))
            .collect()
    }
}

/// `σ(u) = 1/(1 + e^{−u})`.
pub(crate) fn sigmoid(u: f64) -> f64 {
    1.0 / (1.0 + (-u).exp())
}
