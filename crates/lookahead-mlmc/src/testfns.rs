//! The paper's test functions, in maximisation form (`f` is maximised).

use crate::error::{Error, Result};
use crate::optim::Bounds;
use std::f64::consts::PI;

/// A test function to maximise on a box, with its known maximum.
#[derive(Debug, Clone)]
pub struct TestFunction {
    /// Name, e.g. `"branin"`.
    pub name: &'static str,
    /// The search box.
    pub bounds: Bounds,
    /// The known maximum value `f*`.
    pub optimum: f64,
    f: fn(&[f64]) -> f64,
}

impl TestFunction {
    /// `f(x)`.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when `x` has not the box's dimension;
    /// [`Error::NonFinite`] for a NaN or infinite coordinate.
    pub fn eval(&self, x: &[f64]) -> Result<f64> {
        if x.len() != self.bounds.dim() {
            return Err(Error::DimensionMismatch {
                what: "x",
                expected: self.bounds.dim(),
                got: x.len(),
            });
        }
        if x.iter().any(|v| !v.is_finite()) {
            return Err(Error::NonFinite { what: "x" });
        }
        Ok((self.f)(x))
    }

    /// The dimension `d`.
    pub fn dim(&self) -> usize {
        self.bounds.dim()
    }

    /// The spec's 1-D toy `f(x) = e^{−(x−2)²} + e^{−(x−6)²/10} + 1/(x²+1)` on
    /// `[−10, 10]`; maximum 1.401897 at x ≈ 2.000874 (the spec's "x = 2.0087"
    /// drops a zero; its value 1.4019 is right).
    pub fn toy1d() -> Self {
        TestFunction {
            name: "toy1d",
            bounds: Bounds::new(vec![-10.0], vec![10.0]).expect("valid"),
            optimum: toy1d(&[2.000_874_357_198_692]),
            f: toy1d,
        }
    }

    /// Negated Branin on `[−5, 10] × [0, 15]`; maximum `−0.397887`.
    pub fn branin() -> Self {
        TestFunction {
            name: "branin",
            bounds: Bounds::new(vec![-5.0, 0.0], vec![10.0, 15.0]).expect("valid"),
            optimum: -0.397_887_357_729_738,
            f: branin,
        }
    }

    /// Negated Hartmann-6 on `[0, 1]⁶`; maximum `3.32237`.
    pub fn hartmann6() -> Self {
        TestFunction {
            name: "hartmann6",
            bounds: Bounds::unit(6).expect("valid"),
            optimum: 3.322_368_011_415_51,
            f: hartmann6,
        }
    }

    /// Negated Ackley in `d` dimensions on `[−half, half]ᵈ` (BoTorch: 32.768;
    /// the paper's Ackley-5 uses 1); maximum 0 at the origin.
    ///
    /// # Errors
    /// [`Error::InvalidBatchSize`] for `d = 0`, [`Error::InvalidBounds`] for `half ≤ 0`.
    pub fn ackley(d: usize, half: f64) -> Result<Self> {
        Ok(TestFunction {
            name: "ackley",
            bounds: Bounds::new(vec![-half; d], vec![half; d])?,
            optimum: 0.0,
            f: ackley,
        })
    }
}

/// The 1-D toy (maximised).
pub fn toy1d(x: &[f64]) -> f64 {
    let x = x[0];
    (-(x - 2.0).powi(2)).exp() + (-(x - 6.0).powi(2) / 10.0).exp() + 1.0 / (x * x + 1.0)
}

/// Negated Branin `−(a(x₂ − b x₁² + c x₁ − r)² + s(1 − t) cos x₁ + s)`.
pub fn branin(x: &[f64]) -> f64 {
    let (a, b, c, r, s, t) = (
        1.0,
        5.1 / (4.0 * PI * PI),
        5.0 / PI,
        6.0,
        10.0,
        1.0 / (8.0 * PI),
    );
    -(a * (x[1] - b * x[0] * x[0] + c * x[0] - r).powi(2) + s * (1.0 - t) * x[0].cos() + s)
}

/// Negated Hartmann-6 `Σᵢ αᵢ exp(−Σⱼ Aᵢⱼ (xⱼ − Pᵢⱼ)²)`.
pub fn hartmann6(x: &[f64]) -> f64 {
    const ALPHA: [f64; 4] = [1.0, 1.2, 3.0, 3.2];
    const A: [[f64; 6]; 4] = [
        [10.0, 3.0, 17.0, 3.5, 1.7, 8.0],
        [0.05, 10.0, 17.0, 0.1, 8.0, 14.0],
        [3.0, 3.5, 1.7, 10.0, 17.0, 8.0],
        [17.0, 8.0, 0.05, 10.0, 0.1, 14.0],
    ];
    const P: [[f64; 6]; 4] = [
        [0.1312, 0.1696, 0.5569, 0.0124, 0.8283, 0.5886],
        [0.2329, 0.4135, 0.8307, 0.3736, 0.1004, 0.9991],
        [0.2348, 0.1451, 0.3522, 0.2883, 0.3047, 0.6650],
        [0.4047, 0.8828, 0.8732, 0.5743, 0.1091, 0.0381],
    ];
    (0..4)
        .map(|i| {
            let s: f64 = (0..6).map(|j| A[i][j] * (x[j] - P[i][j]).powi(2)).sum();
            ALPHA[i] * (-s).exp()
        })
        .sum()
}

/// Negated Ackley `20 exp(−0.2 √(Σx²/d)) + exp(Σ cos(2πx)/d) − 20 − e`.
pub fn ackley(x: &[f64]) -> f64 {
    let d = x.len() as f64;
    let s1 = x.iter().map(|v| v * v).sum::<f64>() / d;
    let s2 = x.iter().map(|v| (2.0 * PI * v).cos()).sum::<f64>() / d;
    20.0 * (-0.2 * s1.sqrt()).exp() + s2.exp() - 20.0 - std::f64::consts::E
}
