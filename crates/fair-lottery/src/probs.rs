//! Claims → inclusion probabilities, and the validated [`Selection`] every
//! sampler draws from.
//!
//! The Broome-fair ideal (reconstructed; the paper states it in words): each
//! person's chance is proportional to their claim, `πᵢ = min(1, κ·cᵢ)` with
//! `κ` chosen so that `Σ πᵢ = k` ("iterative capping": a claim so large that
//! `κ·cᵢ > 1` is capped at certainty and the others are rescaled).

use crate::error::{Error, Result};

/// Checks claims: non-empty, finite, non-negative.
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`], [`Error::NegativeClaim`].
pub fn check_claims(claims: &[f64]) -> Result<()> {
    if claims.is_empty() {
        return Err(Error::EmptyInput { what: "claims" });
    }
    for (i, &c) in claims.iter().enumerate() {
        if !c.is_finite() {
            return Err(Error::NonFinite {
                what: "claims",
                i,
                value: c,
            });
        }
        if c < 0.0 {
            return Err(Error::NegativeClaim { i, value: c });
        }
    }
    Ok(())
}

/// Checks `1 ≤ k ≤ n`.
///
/// # Errors
/// [`Error::InvalidK`].
pub fn check_k(k: usize, n: usize) -> Result<()> {
    if k == 0 || k > n {
        return Err(Error::InvalidK { k, n });
    }
    Ok(())
}

/// The claims as they are, or divided by the largest one when their sum
/// overflows f64 (claims below 2⁻¹⁰⁷⁴ of the largest then become 0).
/// Inclusion probabilities and successive sampling depend only on ratios
/// of claims, so the result is the same design. O(n).
pub(crate) fn scale_if_overflowing(claims: &[f64]) -> Vec<f64> {
    if claims.iter().sum::<f64>().is_finite() {
        return claims.to_vec();
    }
    let top = claims.iter().copied().fold(0.0, f64::max);
    claims.iter().map(|&c| c / top).collect()
}

/// Indices sorted by decreasing claim, ties broken by the smaller index
/// (the deterministic tie rule used by every policy in this crate).
/// O(n log n).
pub fn rank_by_claim(claims: &[f64]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..claims.len()).collect();
    order.sort_by(|&a, &b| claims[b].total_cmp(&claims[a]).then(a.cmp(&b)));
    order
}

/// Broome-fair inclusion probabilities with iterative capping:
/// `πᵢ = min(1, κ·cᵢ)` with `κ > 0` such that `Σᵢ πᵢ = k`.
///
/// Sort the claims in decreasing order `c₍₁₎ ≥ c₍₂₎ ≥ …`; for `m = 0, 1, …`
/// let `κₘ = (k − m) / Σ_{j>m} c₍ⱼ₎`; the first `m` with `c₍ₘ₊₁₎·κₘ ≤ 1` gives
/// `π₍ⱼ₎ = 1` for `j ≤ m` and `π₍ⱼ₎ = κₘ·c₍ⱼ₎` otherwise. The result is
/// monotone in `c`, lies in `[0, 1]`, sums to `k` (up to rounding, ~n·ε·k),
/// and `πᵢ / cᵢ = κ` on every uncapped unit. Units with a zero claim get
/// `π = 0`. O(n log n) (one sort; suffix sums keep the rescaling accurate).
///
/// # Errors
/// As [`check_claims`] and [`check_k`], and [`Error::TooFewPositiveClaims`]
/// when fewer than `k` claims are positive (no `κ` then reaches `Σπ = k`;
/// when the claims' sum overflows, after dividing by the largest).
pub fn inclusion_probs(claims: &[f64], k: usize) -> Result<Vec<f64>> {
    check_claims(claims)?;
    let n = claims.len();
    check_k(k, n)?;
    let positive = claims.iter().filter(|&&c| c > 0.0).count();
    if positive < k {
        return Err(Error::TooFewPositiveClaims { positive, k });
    }
    // π is invariant to scaling the claims: when their sum overflows, divide
    // by the largest (claims near f64::MAX gave κ = 0, π = 0).
    let claims = scale_if_overflowing(claims);
    let positive = claims.iter().filter(|&&c| c > 0.0).count();
    if positive < k {
        return Err(Error::TooFewPositiveClaims { positive, k });
    }
    let claims = claims.as_slice();
    let order = rank_by_claim(claims);
    // suffix[m] = Σ_{j ≥ m} c_(j) (0-based order), summed from the small end.
    let mut suffix = vec![0.0; n + 1];
    for m in (0..n).rev() {
        suffix[m] = suffix[m + 1] + claims[order[m]];
    }
    let mut m = 0;
    let kappa = loop {
        let kappa = (k - m) as f64 / suffix[m];
        if m + 1 < k && claims[order[m]] * kappa > 1.0 {
            m += 1;
        } else if m + 1 == k && claims[order[m]] * kappa > 1.0 {
            // Only one slot left and the largest remaining claim would exceed
            // certainty: cap it too (then κ for the rest is 0/…: nothing left).
            m += 1;
            break 0.0;
        } else {
            break kappa;
        }
    };
    let mut pi = vec![0.0; n];
    for (rank, &i) in order.iter().enumerate() {
        pi[i] = if rank < m {
            1.0
        } else {
            (claims[i] * kappa).min(1.0)
        };
    }
    Ok(pi)
}

/// Tolerance on `|Σπ − k|` accepted by [`Selection::new`]: `max(1e-9, 4nε)·max(1, k)`.
pub fn sum_tolerance(n: usize, k: f64) -> f64 {
    (1e-9f64).max(4.0 * n as f64 * f64::EPSILON) * k.max(1.0)
}

/// A validated vector of first-order inclusion probabilities `π` of a
/// fixed-size lottery: every `πᵢ ∈ [0, 1]` and `Σπᵢ = k` an integer with
/// `1 ≤ k ≤ n`. Every policy returns one, every sampler draws from one.
#[derive(Debug, Clone, PartialEq)]
pub struct Selection {
    pi: Vec<f64>,
    k: usize,
}

impl Selection {
    /// Validates `π`. O(n).
    ///
    /// # Errors
    /// [`Error::EmptyInput`]; [`Error::NonFinite`] (`"pi"`);
    /// [`Error::ProbOutOfRange`] for `πᵢ ∉ [0, 1]`; [`Error::NonIntegerSum`]
    /// when `|Σπ − round(Σπ)|` exceeds [`sum_tolerance`]; [`Error::InvalidK`]
    /// when the sum rounds to 0.
    pub fn new(pi: Vec<f64>) -> Result<Self> {
        if pi.is_empty() {
            return Err(Error::EmptyInput { what: "pi" });
        }
        for (i, &p) in pi.iter().enumerate() {
            if !p.is_finite() {
                return Err(Error::NonFinite {
                    what: "pi",
                    i,
                    value: p,
                });
            }
            if !(0.0..=1.0).contains(&p) {
                return Err(Error::ProbOutOfRange { i, value: p });
            }
        }
        let sum: f64 = pi.iter().sum();
        let k = sum.round();
        let tol = sum_tolerance(pi.len(), k);
        if (sum - k).abs() > tol {
            return Err(Error::NonIntegerSum { sum, tol });
        }
        let k = k as usize;
        check_k(k, pi.len())?;
        Ok(Selection { pi, k })
    }

    /// The Broome-fair selection of [`inclusion_probs`].
    ///
    /// # Errors
    /// As [`inclusion_probs`].
    pub fn proportional(claims: &[f64], k: usize) -> Result<Self> {
        let pi = inclusion_probs(claims, k)?;
        Ok(Selection { pi, k })
    }

    /// The inclusion probabilities `π`.
    pub fn pi(&self) -> &[f64] {
        &self.pi
    }

    /// The number of winners `k = Σπ`.
    pub fn k(&self) -> usize {
        self.k
    }

    /// The number of units `n`.
    pub fn n(&self) -> usize {
        self.pi.len()
    }

    /// Units selected with certainty (`πᵢ = 1`).
    pub fn certain(&self) -> Vec<usize> {
        (0..self.n()).filter(|&i| self.pi[i] >= 1.0).collect()
    }

    /// Units never selected (`πᵢ = 0`).
    pub fn excluded(&self) -> Vec<usize> {
        (0..self.n()).filter(|&i| self.pi[i] <= 0.0).collect()
    }

    /// Units in the lottery (`0 < πᵢ < 1`).
    pub fn lottery(&self) -> Vec<usize> {
        (0..self.n())
            .filter(|&i| self.pi[i] > 0.0 && self.pi[i] < 1.0)
            .collect()
    }

    /// The number of slots filled by lottery, `k − #certain` (an integer up to
    /// the tolerance of [`Selection::new`]).
    pub fn lottery_slots(&self) -> usize {
        self.k - self.certain().len()
    }

    /// Consumes the selection, returning `π`.
    pub fn into_pi(self) -> Vec<f64> {
        self.pi
    }
}

/// The units split into certain, fractional (in the lottery) and the number
/// of lottery slots; shared by the samplers.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Split {
    pub certain: Vec<usize>,
    pub frac: Vec<usize>,
    pub frac_pi: Vec<f64>,
    pub frac_sum: f64,
    pub k_frac: usize,
}

impl Split {
    pub fn of(sel: &Selection) -> Split {
        let pi = sel.pi();
        let certain = sel.certain();
        let frac = sel.lottery();
        let frac_pi: Vec<f64> = frac.iter().map(|&i| pi[i]).collect();
        let k_frac = sel.k() - certain.len();
        let frac_sum = frac_pi.iter().sum();
        Split {
            certain,
            frac,
            frac_pi,
            frac_sum,
            k_frac,
        }
    }

    /// `(unit, π)` for the lottery units.
    pub fn pairs(&self) -> Vec<(usize, f64)> {
        self.frac
            .iter()
            .copied()
            .zip(self.frac_pi.iter().copied())
            .collect()
    }
}
