//! Exact fixed-size samplers that hit prescribed first-order inclusion
//! probabilities `π`, and the paper-faithful successive sampler that does not.
//!
//! Every exact sampler is built from a validated [`Selection`] (`πᵢ ∈ [0,1]`,
//! `Σπ = k`), puts the units with `πᵢ = 1` in every draw, never draws units
//! with `πᵢ = 0`, and runs its design on the lottery units `0 < πᵢ < 1` for
//! the remaining `k − #certain` slots. Every draw has exactly `k` distinct
//! winners.
//!
//! | sampler | set-up | per draw | joint structure |
//! |---|---|---|---|
//! | [`Systematic`] (Madow, random order) | O(n) | O(n) | many `πᵢⱼ = 0` for one order |
//! | [`Pipage`] (Srinivasan's dependent rounding, random order) | O(n) | O(n) | negatively correlated |
//! | [`ConditionalPoisson`] (maximum entropy) | O(n·T·log n) per calibration sweep | O(n) | `πᵢⱼ` exact ([`ExactMarginals::joint`]) |
//! | [`Sampford`] (rejective) | O(n·T·log n) | O(n) × expected trials | — |
//! | [`Successive`] (what the official code does) | O(n) | O(n + k log k) | marginals **not** `∝` weights |

//!
//! One private module per design (systematic, pipage, cps, sampford,
//! successive), each re-exported here; [`Sampler`] picks one at run time.

mod cps;
mod pipage;
mod sampford;
mod successive;
mod systematic;

pub use cps::{CPS_JOINT_MAX, ConditionalPoisson, CpsParams};
pub use pipage::Pipage;
pub(crate) use pipage::{pipage_step, snap};
pub use sampford::{Sampford, SampfordParams};
pub use successive::Successive;
pub use systematic::Systematic;
pub(crate) use systematic::{check_permutation, systematic_positions};

use crate::error::Result;
use crate::probs::Selection;
use ndarray::Array2;
use rand::Rng;

/// A lottery that draws exactly `k` distinct winners out of `n` units.
pub trait FixedSizeSampler {
    /// Number of units `n`.
    fn n(&self) -> usize;
    /// Number of winners `k` of every draw.
    fn k(&self) -> usize;
    /// One draw: `k` distinct unit indices, in no particular order.
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<usize>;
}

/// A sampler whose design has known first-order (and possibly second-order)
/// inclusion probabilities.
pub trait ExactMarginals: FixedSizeSampler {
    /// `πᵢ = P(i is drawn)`, exactly the prescribed marginals.
    fn marginals(&self) -> &[f64];
    /// `πᵢⱼ = P(i and j are drawn)` (`n × n`, diagonal `πᵢ`) where the design
    /// makes it available in closed form; `None` otherwise.
    fn joint(&self) -> Option<Array2<f64>> {
        None
    }
}

/// Values within this distance of 0 or 1 are treated as 0 or 1 by the
/// rounding samplers (an error of at most 1e-12 in any marginal).
pub(crate) const SNAP: f64 = 1e-12;

/// Which exact design to draw a [`Selection`] with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Design {
    /// [`Systematic`].
    Systematic,
    /// [`Pipage`] (the default: O(n), exact, negatively correlated).
    #[default]
    Pipage,
    /// [`ConditionalPoisson`].
    ConditionalPoisson,
    /// [`Sampford`].
    Sampford,
}

/// One of the exact samplers, chosen at run time.
#[derive(Debug, Clone)]
pub enum Sampler {
    /// See [`Systematic`].
    Systematic(Systematic),
    /// See [`Pipage`].
    Pipage(Pipage),
    /// See [`ConditionalPoisson`].
    ConditionalPoisson(Box<ConditionalPoisson>),
    /// See [`Sampford`].
    Sampford(Sampford),
}

impl Sampler {
    /// Builds the sampler of `design` for `sel`.
    ///
    /// # Errors
    /// As the chosen sampler's constructor.
    pub fn build(design: Design, sel: &Selection) -> Result<Self> {
        Ok(match design {
            Design::Systematic => Sampler::Systematic(Systematic::new(sel)),
            Design::Pipage => Sampler::Pipage(Pipage::new(sel)),
            Design::ConditionalPoisson => {
                Sampler::ConditionalPoisson(Box::new(ConditionalPoisson::new(sel)?))
            }
            Design::Sampford => Sampler::Sampford(Sampford::new(sel)?),
        })
    }
}

impl FixedSizeSampler for Sampler {
    fn n(&self) -> usize {
        match self {
            Sampler::Systematic(s) => s.n(),
            Sampler::Pipage(s) => s.n(),
            Sampler::ConditionalPoisson(s) => s.n(),
            Sampler::Sampford(s) => s.n(),
        }
    }
    fn k(&self) -> usize {
        match self {
            Sampler::Systematic(s) => s.k(),
            Sampler::Pipage(s) => s.k(),
            Sampler::ConditionalPoisson(s) => s.k(),
            Sampler::Sampford(s) => s.k(),
        }
    }
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> Vec<usize> {
        match self {
            Sampler::Systematic(s) => s.sample(rng),
            Sampler::Pipage(s) => s.sample(rng),
            Sampler::ConditionalPoisson(s) => s.sample(rng),
            Sampler::Sampford(s) => s.sample(rng),
        }
    }
}

impl ExactMarginals for Sampler {
    fn marginals(&self) -> &[f64] {
        match self {
            Sampler::Systematic(s) => s.marginals(),
            Sampler::Pipage(s) => s.marginals(),
            Sampler::ConditionalPoisson(s) => s.marginals(),
            Sampler::Sampford(s) => s.marginals(),
        }
    }
    fn joint(&self) -> Option<Array2<f64>> {
        match self {
            Sampler::ConditionalPoisson(s) => s.joint(),
            _ => None,
        }
    }
}
