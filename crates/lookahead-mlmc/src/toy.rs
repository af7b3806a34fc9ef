//! The closed-form nested toy of the spec: `P = E_X[(E[Y|X])⁺]`,
//! `X ~ N(0, 1)`, `Y | X ~ N(X, 1)`.
//!
//! With `M` inner samples `P_M = (Ȳ_M)⁺` and `Ȳ_M ~ N(0, 1 + 1/M)`, so
//! `E[P_M] = √(1 + 1/M)/√(2π)` exactly: the bias `E[P_M] − P ≈ 1/(2M√(2π))`
//! (`α = 1`), and the kink of `(·)⁺` gives `β = 1.5` (antithetic) or `β = 1`
//! (standard coupling).

use crate::error::Result;
use crate::mlmc::{Coupling, LevelSampler, LevelSamples};
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;

/// `E[P_M] = √(1 + 1/M)/√(2π)` (`M = ∞` gives the exact `P = 1/√(2π)`).
pub fn toy_expected_value(m: f64) -> f64 {
    (1.0 + 1.0 / m).sqrt() / (2.0 * std::f64::consts::PI).sqrt()
}

/// The toy as a [`LevelSampler`]; cost unit: one inner sample (`2^ℓ` per outer sample).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NestedToy {
    /// Coupling of the coarse level.
    pub coupling: Coupling,
}

impl LevelSampler for NestedToy {
    fn sample<R: Rng + ?Sized>(
        &mut self,
        level: u32,
        n: usize,
        with_coarse: bool,
        rng: &mut R,
    ) -> Result<LevelSamples> {
        let m = crate::mlmc::inner_samples(level)?;
        crate::cost::inner_samples(n.saturating_mul(m));
        let mut fine = Vec::with_capacity(n);
        let mut coarse = Vec::with_capacity(if with_coarse { n } else { 0 });
        for _ in 0..n {
            let x: f64 = rng.sample(StandardNormal);
            let (mut s_even, mut s_odd) = (0.0, 0.0);
            for j in 0..m {
                let y = x + rng.sample::<f64, _>(StandardNormal);
                if j % 2 == 0 {
                    s_even += y;
                } else {
                    s_odd += y;
                }
            }
            fine.push(((s_even + s_odd) / m as f64).max(0.0));
            if with_coarse {
                let h = (m / 2).max(1) as f64;
                coarse.push(match self.coupling {
                    Coupling::Antithetic => 0.5 * ((s_even / h).max(0.0) + (s_odd / h).max(0.0)),
                    // Standard coupling uses one half of the i.i.d. inner
                    // samples; the even-indexed half has the law of the
                    // first half and saves a second pass.
                    Coupling::Standard => (s_even / h).max(0.0),
                });
            }
        }
        Ok(LevelSamples {
            fine,
            coarse: with_coarse.then_some(coarse),
            cost: (n * m) as f64,
        })
    }
}
