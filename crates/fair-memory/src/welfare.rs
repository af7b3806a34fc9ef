//! Ex-post welfare functions W(u) of the stakeholders' utilities u ∈ ℝᴺ
//! (paper §3; the official code and its reproduction).

use crate::error::{Error, Result, check_finite};
use mlcore::check;

/// λ of the Nash social welfare in the official code (1e-4).
pub const NSW_LAMBDA: f64 = 1e-4;

/// A welfare function W: ℝᴺ → ℝ (larger is fairer / better).
///
/// | variant | W(u) | shift-invariant |
/// |---|---|---|
/// | [`Welfare::Nsw`] | Σᵢ log(uᵢ + 1 + λ) | no |
/// | [`Welfare::Utilitarian`] | Σᵢ uᵢ | no |
/// | [`Welfare::Rawlsian`] | minᵢ uᵢ | no |
/// | [`Welfare::Egalitarian`] | −Σᵢ \|uᵢ − ū\| | yes |
/// | [`Welfare::Gini`] | 1 − G(u), G = Σᵢⱼ\|uᵢ − uⱼ\| / (2N²ū) (G = 0 when ū = 0) | no |
/// | [`Welfare::DemographicParity`] | −\|u₀ − u₁\| (two groups) | yes |
///
/// "Shift-invariant" means W(u + c·1) = W(u) for every c; exactly these
/// welfares are determined by the min-shifted and reset memories
/// ([`crate::MemoryKind::is_sufficient_for`]). Every evaluation is O(N),
/// except Gini, O(N²).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Welfare {
    /// Nash social welfare Σᵢ log(uᵢ + 1 + λ), λ ≥ 0 (official λ = 1e-4, [`NSW_LAMBDA`]).
    Nsw {
        /// The smoothing λ.
        lambda: f64,
    },
    /// Utilitarian welfare Σᵢ uᵢ.
    Utilitarian,
    /// Rawlsian (max-min) welfare minᵢ uᵢ.
    Rawlsian,
    /// Egalitarian welfare −Σᵢ |uᵢ − ū|, ū the mean.
    Egalitarian,
    /// One minus the Gini coefficient, for u ≥ 0.
    Gini,
    /// Two-group (reward) demographic parity −|u₀ − u₁|; needs N = 2.
    DemographicParity,
}

impl Default for Welfare {
    /// The paper's Donut welfare: NSW with λ = 1e-4.
    fn default() -> Self {
        Welfare::nsw()
    }
}

impl Welfare {
    /// NSW with the official λ = 1e-4.
    pub fn nsw() -> Self {
        Welfare::Nsw { lambda: NSW_LAMBDA }
    }

    /// A short name.
    pub fn name(&self) -> &'static str {
        match self {
            Welfare::Nsw { .. } => "nsw",
            Welfare::Utilitarian => "utilitarian",
            Welfare::Rawlsian => "rawlsian",
            Welfare::Egalitarian => "egalitarian",
            Welfare::Gini => "gini",
            Welfare::DemographicParity => "demographic-parity",
        }
    }

    /// Whether W(u + c·1) = W(u) for all c ∈ ℝ (egalitarian, demographic parity).
    pub fn is_shift_invariant(&self) -> bool {
        matches!(self, Welfare::Egalitarian | Welfare::DemographicParity)
    }

    /// Validates the welfare's own parameter and the number of stakeholders.
    ///
    /// # Errors
    /// [`Error::NoStakeholders`] for N = 0; [`Error::DimensionMismatch`] for
    /// demographic parity with N ≠ 2; [`Error::InvalidParameter`] for a
    /// negative or non-finite λ.
    pub fn check(&self, n_stakeholders: usize) -> Result<()> {
        if n_stakeholders == 0 {
            return Err(Error::NoStakeholders);
        }
        match *self {
            Welfare::Nsw { lambda } => Ok(check::non_negative(lambda, "lambda")?),
            Welfare::DemographicParity if n_stakeholders != 2 => Err(Error::DimensionMismatch {
                what: "utilities (demographic parity has two groups)",
                expected: 2,
                got: n_stakeholders,
            }),
            _ => Ok(()),
        }
    }

    /// W(u), validated.
    ///
    /// Scaled first: the positively homogeneous welfares (utilitarian,
    /// Rawlsian, egalitarian, demographic parity: W(c·u) = c·W(u) for c > 0)
    /// are computed as c·W(u/c) with c = maxᵢ |uᵢ|, and Gini (scale-invariant)
    /// as W(u/c), so extreme but finite utilities (1e308) give the exact
    /// value instead of NaN or ∞ from an overflowing intermediate sum
    /// (Gini of [1e308, 0] is 0.5). NSW (Σ log) never overflows.
    ///
    /// # Errors
    /// As [`Welfare::check`] with N = u.len(); [`Error::NonFinite`] for a
    /// NaN/infinite utility; [`Error::InvalidUtility`] for NSW with
    /// uᵢ ≤ −1 − λ or Gini with uᵢ < 0; [`Error::WelfareOverflow`] when the
    /// welfare itself exceeds f64's range (e.g. the utilitarian sum of
    /// [1e308, 1e308]).
    pub fn eval(&self, u: &[f64]) -> Result<f64> {
        self.check(u.len())?;
        for (i, &x) in u.iter().enumerate() {
            check_finite(x, "utility", i)?;
            match *self {
                Welfare::Nsw { lambda } if x + 1.0 + lambda <= 0.0 => {
                    return Err(Error::InvalidUtility {
                        welfare: self.name(),
                        index: i,
                        value: x,
                        expected: "u > −1 − λ",
                    });
                }
                Welfare::Gini if x < 0.0 => {
                    return Err(Error::InvalidUtility {
                        welfare: self.name(),
                        index: i,
                        value: x,
                        expected: "u ≥ 0",
                    });
                }
                _ => {}
            }
        }
        let c = u.iter().fold(0.0f64, |m, x| m.max(x.abs()));
        let w = match *self {
            Welfare::Nsw { .. } => self.eval_iter(u.iter().copied()),
            _ if c == 0.0 => self.eval_iter(u.iter().copied()),
            Welfare::Gini => self.eval_iter(u.iter().map(|x| x / c)),
            _ => c * self.eval_iter(u.iter().map(|x| x / c)),
        };
        if w.is_finite() {
            Ok(w)
        } else {
            Err(Error::WelfareOverflow {
                welfare: self.name(),
            })
        }
    }

    /// W(c) for non-negative integer counts (the memories' utilities), no
    /// validation beyond [`Welfare::check`] having passed for N = c.len().
    /// Used on the learners' hot path; O(N) (Gini O(N²)).
    #[inline]
    pub fn eval_counts(&self, c: &[u32]) -> f64 {
        self.eval_iter(c.iter().map(|&x| f64::from(x)))
    }

    /// The formula of the table above, unchecked.
    fn eval_iter<I: Iterator<Item = f64> + Clone>(&self, u: I) -> f64 {
        match *self {
            Welfare::Nsw { lambda } => u.map(|x| (x + 1.0 + lambda).ln()).sum(),
            Welfare::Utilitarian => u.sum(),
            Welfare::Rawlsian => u.fold(f64::INFINITY, f64::min),
            Welfare::Egalitarian => {
                let n = u.clone().count() as f64;
                let mean = u.clone().sum::<f64>() / n;
                -u.map(|x| (x - mean).abs()).sum::<f64>()
            }
            Welfare::Gini => {
                let n = u.clone().count() as f64;
                let mean = u.clone().sum::<f64>() / n;
                if mean == 0.0 {
                    return 1.0;
                }
                let mut s = 0.0;
                for x in u.clone() {
                    for y in u.clone() {
                        s += (x - y).abs();
                    }
                }
                1.0 - s / (2.0 * n * n * mean)
            }
            Welfare::DemographicParity => {
                let mut it = u;
                let a = it.next().unwrap_or(0.0);
                let b = it.next().unwrap_or(0.0);
                -(a - b).abs()
            }
        }
    }
}
