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
    ///
    /// Overflow: points are not required to lie in the box; far outside it
    /// a polynomial function can overflow to −∞ (Branin at `x = 1e300`).
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
            optimum: toy1d(2.000_874_357_198_692),
            f: |x| toy1d(x[0]),
        }
    }

    /// Negated Branin on `[−5, 10] × [0, 15]`; maximum `−0.397887`.
    pub fn branin() -> Self {
        TestFunction {
            name: "branin",
            bounds: Bounds::new(vec![-5.0, 0.0], vec![10.0, 15.0]).expect("valid"),
            optimum: -0.397_887_357_729_738,
            f: |x| branin([x[0], x[1]]),
        }
    }

    /// Negated Hartmann-6 on `[0, 1]⁶`; maximum `3.32237`.
    pub fn hartmann6() -> Self {
        TestFunction {
            name: "hartmann6",
            bounds: Bounds::unit(6).expect("valid"),
            optimum: 3.322_368_011_415_51,
            f: |x| hartmann6([x[0], x[1], x[2], x[3], x[4], x[5]]),
        }
    }

    /// Negated Ackley in `d` dimensions on `[−half, half]ᵈ` (BoTorch: 32.768;
    /// the paper's Ackley-5 uses 1); maximum 0 at the origin.
    ///
    /// # Errors
    /// [`Error::InvalidBatchSize`] for `d = 0`, [`Error::InvalidBounds`] for
    /// `half ≤ 0`; [`Error::Core`] (`TooLarge`) for a d whose bounds cannot
    /// be allocated.
    pub fn ackley(d: usize, half: f64) -> Result<Self> {
        mlcore::check::alloc_len(&[d, 2], std::mem::size_of::<f64>(), "Ackley bounds")?;
        Ok(TestFunction {
            name: "ackley",
            bounds: Bounds::new(vec![-half; d], vec![half; d])?,
            optimum: 0.0,
            f: ackley_unchecked,
        })
    }
}

impl TestFunction {
    /// Negated six-hump camel on `[−3, 3] × [−2, 2]`; maximum `1.0316285` at
    /// `±(0.0898, −0.7126)`.
    pub fn six_hump_camel() -> Self {
        TestFunction {
            name: "six_hump_camel",
            bounds: Bounds::new(vec![-3.0, -2.0], vec![3.0, 2.0]).expect("valid"),
            optimum: 1.031_628_453_489_877,
            f: |x| six_hump_camel([x[0], x[1]]),
        }
    }

    /// Negated Goldstein–Price on `[−2, 2]²`; maximum `−3` at `(0, −1)`.
    pub fn goldstein_price() -> Self {
        TestFunction {
            name: "goldstein_price",
            bounds: Bounds::new(vec![-2.0, -2.0], vec![2.0, 2.0]).expect("valid"),
            optimum: -3.0,
            f: |x| goldstein_price([x[0], x[1]]),
        }
    }

    /// BoTorch's Cosine-8 `0.1 Σ cos(5πxᵢ) − Σ xᵢ²` on `[−1, 1]⁸` (already a
    /// maximisation problem); maximum `0.8` at the origin.
    pub fn cosine8() -> Self {
        TestFunction {
            name: "cosine8",
            bounds: Bounds::new(vec![-1.0; 8], vec![1.0; 8]).expect("valid"),
            optimum: 0.8,
            f: |x| cosine8([x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7]]),
        }
    }

    /// Negated Levy in `d` dimensions on `[−half, half]ᵈ` (the paper's
    /// Levy-10 uses `half = 1`); maximum 0 at `(1, …, 1)`, inside the box
    /// for `half ≥ 1`.
    ///
    /// # Errors
    /// [`Error::InvalidBatchSize`] for `d = 0`, [`Error::InvalidBounds`] for
    /// `half < 1` (the optimum would leave the box) or non-finite;
    /// [`Error::Core`] (`TooLarge`) for a d whose bounds cannot be allocated.
    pub fn levy(d: usize, half: f64) -> Result<Self> {
        mlcore::check::alloc_len(&[d, 2], std::mem::size_of::<f64>(), "Levy bounds")?;
        if !(half.is_finite() && half >= 1.0) {
            return Err(Error::InvalidBounds {
                dim: 0,
                lower: -half,
                upper: half,
            });
        }
        Ok(TestFunction {
            name: "levy",
            bounds: Bounds::new(vec![-half; d], vec![half; d])?,
            optimum: 0.0,
            f: levy_unchecked,
        })
    }
}

/// Negated six-hump camel `−((4 − 2.1x₁² + x₁⁴/3)x₁² + x₁x₂ + (−4 + 4x₂²)x₂²)`.
pub fn six_hump_camel(x: [f64; 2]) -> f64 {
    let (a, b) = (x[0], x[1]);
    -((4.0 - 2.1 * a * a + a.powi(4) / 3.0) * a * a + a * b + (-4.0 + 4.0 * b * b) * b * b)
}

/// Negated Goldstein–Price
/// `−[1 + (x₁+x₂+1)²(19 − 14x₁ + 3x₁² − 14x₂ + 6x₁x₂ + 3x₂²)]·[30 + (2x₁−3x₂)²(18 − 32x₁ + 12x₁² + 48x₂ − 36x₁x₂ + 27x₂²)]`.
pub fn goldstein_price(x: [f64; 2]) -> f64 {
    let (a, b) = (x[0], x[1]);
    let p = 1.0
        + (a + b + 1.0).powi(2)
            * (19.0 - 14.0 * a + 3.0 * a * a - 14.0 * b + 6.0 * a * b + 3.0 * b * b);
    let q = 30.0
        + (2.0 * a - 3.0 * b).powi(2)
            * (18.0 - 32.0 * a + 12.0 * a * a + 48.0 * b - 36.0 * a * b + 27.0 * b * b);
    -(p * q)
}

/// Cosine-8 `0.1 Σ cos(5πxᵢ) − Σ xᵢ²` (maximised).
pub fn cosine8(x: [f64; 8]) -> f64 {
    x.iter().map(|v| 0.1 * (5.0 * PI * v).cos() - v * v).sum()
}

/// Negated Levy `−(sin²(πw₁) + Σ_{i<d} (wᵢ−1)²(1 + 10 sin²(πwᵢ + 1)) + (w_d−1)²(1 + sin²(2πw_d)))`,
/// `wᵢ = 1 + (xᵢ − 1)/4`, in d = `x.len()` dimensions.
///
/// # Errors
/// [`Error::InvalidParameter`] for d = 0; [`Error::NonFinite`] for a NaN or
/// infinite coordinate.
pub fn levy(x: &[f64]) -> Result<f64> {
    if x.is_empty() {
        return Err(Error::InvalidParameter {
            name: "dimension d = x.len()",
            value: 0.0,
            expected: "≥ 1",
        });
    }
    if x.iter().any(|v| !v.is_finite()) {
        return Err(Error::NonFinite { what: "x" });
    }
    Ok(levy_unchecked(x))
}

fn levy_unchecked(x: &[f64]) -> f64 {
    let w: Vec<f64> = x.iter().map(|v| 1.0 + (v - 1.0) / 4.0).collect();
    let d = w.len();
    let s2 = |t: f64| t.sin().powi(2);
    let mid: f64 = w[..d - 1]
        .iter()
        .map(|wi| (wi - 1.0).powi(2) * (1.0 + 10.0 * s2(PI * wi + 1.0)))
        .sum();
    let last = (w[d - 1] - 1.0).powi(2) * (1.0 + s2(2.0 * PI * w[d - 1]));
    -(s2(PI * w[0]) + mid + last)
}

/// The 1-D toy (maximised). NaN for NaN x; finite for every other x.
pub fn toy1d(x: f64) -> f64 {
    (-(x - 2.0).powi(2)).exp() + (-(x - 6.0).powi(2) / 10.0).exp() + 1.0 / (x * x + 1.0)
}

/// Negated Branin `−(a(x₂ − b x₁² + c x₁ − r)² + s(1 − t) cos x₁ + s)`.
///
/// The point is a `[x₁, x₂]` array, so a wrong dimension cannot be passed;
/// [`TestFunction::eval`] checks slices.
pub fn branin(x: [f64; 2]) -> f64 {
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
///
/// The point is a 6-array; [`TestFunction::eval`] checks slices.
pub fn hartmann6(x: [f64; 6]) -> f64 {
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

/// Negated Ackley `20 exp(−0.2 √(Σx²/d)) + exp(Σ cos(2πx)/d) − 20 − e` in
/// d = `x.len()` dimensions. When Σx² overflows the squares are summed
/// after scaling by the largest |xᵢ|, so finite coordinates up to f64's
/// limit give a finite value.
///
/// # Errors
/// [`Error::InvalidParameter`] for d = 0; [`Error::NonFinite`] for a NaN or
/// infinite coordinate.
pub fn ackley(x: &[f64]) -> Result<f64> {
    if x.is_empty() {
        return Err(Error::InvalidParameter {
            name: "dimension d = x.len()",
            value: 0.0,
            expected: "≥ 1",
        });
    }
    if x.iter().any(|v| !v.is_finite()) {
        return Err(Error::NonFinite { what: "x" });
    }
    Ok(ackley_unchecked(x))
}

/// [`ackley`] after its checks (non-empty, finite).
fn ackley_unchecked(x: &[f64]) -> f64 {
    let d = x.len() as f64;
    // √(Σx²/d), rescaled by m = max |xᵢ| only when Σx² overflows (the
    // ordinary path keeps its rounding, so recorded optimiser traces hold).
    let direct = (x.iter().map(|v| v * v).sum::<f64>() / d).sqrt();
    let rms = if direct.is_finite() {
        direct
    } else {
        let m = x.iter().fold(0.0f64, |a, v| a.max(v.abs()));
        m * (x.iter().map(|v| (v / m).powi(2)).sum::<f64>() / d).sqrt()
    };
    // cos(2πv) has period 1 in v: reduce v mod 1 where 2πv overflows.
    let cos2pi = |v: f64| {
        let t = 2.0 * PI * v;
        if t.is_finite() {
            t.cos()
        } else {
            (2.0 * PI * (v % 1.0)).cos()
        }
    };
    let s2 = x.iter().map(|&v| cos2pi(v)).sum::<f64>() / d;
    20.0 * (-0.2 * rms).exp() + s2.exp() - 20.0 - std::f64::consts::E
}
