//! Distances between distributions: Hellinger, squared Hellinger and total
//! variation.
//!
//! **Convention (fixed here; the paper's normalisation is not confirmed).**
//! H²(p, q) = ½ Σᵢ (√pᵢ − √qᵢ)², so that H ∈ [0, 1], and
//! TV(p, q) = ½ Σᵢ |pᵢ − qᵢ| ∈ [0, 1]. With this convention
//! H² ≤ TV ≤ √2 · H (Le Cam's inequalities), which the property tests check.
//! A user with the other convention (no ½) multiplies H² by 2.

use crate::error::{Error, Result, mismatch};
use ndarray::ArrayView1;

/// Tolerance on |Σ p − 1| for a probability vector.
pub const PROB_TOL: f64 = 1e-9;

/// Checks that `p` is a probability vector (entries finite, ≥ 0, Σ = 1 ± 1e-9).
///
/// # Errors
/// [`Error::InvalidDistribution`] naming `what`.
pub fn check_distribution(what: &'static str, p: ArrayView1<'_, f64>) -> Result<()> {
    if p.is_empty() {
        return Err(Error::InvalidDistribution {
            what,
            detail: "empty vector".into(),
        });
    }
    let mut sum = 0.0;
    for (i, &x) in p.iter().enumerate() {
        if !x.is_finite() || x < 0.0 {
            return Err(Error::InvalidDistribution {
                what,
                detail: format!("entry {i} = {x}"),
            });
        }
        sum += x;
    }
    if (sum - 1.0).abs() > PROB_TOL {
        return Err(Error::InvalidDistribution {
            what,
            detail: format!("entries sum to {sum}"),
        });
    }
    Ok(())
}

fn check_pair(p: ArrayView1<'_, f64>, q: ArrayView1<'_, f64>) -> Result<()> {
    if p.len() != q.len() {
        return Err(mismatch(
            "q",
            format!("length {}", p.len()),
            format!("length {}", q.len()),
        ));
    }
    check_distribution("p", p)?;
    check_distribution("q", q)
}

/// H²(p, q) without validation (for inner loops on validated tables).
pub(crate) fn hellinger_sq_raw(p: &[f64], q: &[f64]) -> f64 {
    let s: f64 = p
        .iter()
        .zip(q)
        .map(|(&a, &b)| {
            let d = a.sqrt() - b.sqrt();
            d * d
        })
        .sum();
    (0.5 * s).min(1.0)
}

/// Squared Hellinger distance H²(p, q) = ½ Σᵢ (√pᵢ − √qᵢ)² ∈ [0, 1]. O(n).
///
/// # Errors
/// [`Error::DimensionMismatch`] for different lengths;
/// [`Error::InvalidDistribution`] unless both are probability vectors.
pub fn hellinger_sq(p: ArrayView1<'_, f64>, q: ArrayView1<'_, f64>) -> Result<f64> {
    check_pair(p, q)?;
    Ok(hellinger_sq_raw(&p.to_vec(), &q.to_vec()))
}

/// Hellinger distance H(p, q) = √(½ Σᵢ (√pᵢ − √qᵢ)²) ∈ [0, 1], a metric. O(n).
///
/// # Errors
/// As [`hellinger_sq`].
pub fn hellinger(p: ArrayView1<'_, f64>, q: ArrayView1<'_, f64>) -> Result<f64> {
    hellinger_sq(p, q).map(f64::sqrt)
}

/// Total variation TV(p, q) = ½ Σᵢ |pᵢ − qᵢ| ∈ [0, 1]. O(n).
///
/// # Errors
/// As [`hellinger_sq`].
pub fn total_variation(p: ArrayView1<'_, f64>, q: ArrayView1<'_, f64>) -> Result<f64> {
    check_pair(p, q)?;
    Ok((0.5
        * p.iter()
            .zip(q.iter())
            .map(|(a, b)| (a - b).abs())
            .sum::<f64>())
    .min(1.0))
}

/// The Hellinger distance as a plain metric on vectors, for
/// [`crate::eluder::eluder_dimension`]: returns NaN (which the Eluder
/// routine reports as [`Error::InvalidMetric`]) on invalid input.
pub fn hellinger_metric(p: ArrayView1<'_, f64>, q: ArrayView1<'_, f64>) -> f64 {
    hellinger(p, q).unwrap_or(f64::NAN)
}

/// Total variation as a plain metric (NaN on invalid input), see
/// [`hellinger_metric`].
pub fn tv_metric(p: ArrayView1<'_, f64>, q: ArrayView1<'_, f64>) -> f64 {
    total_variation(p, q).unwrap_or(f64::NAN)
}

/// |p₀ − q₀|: the absolute difference of the first coordinates, the metric
/// for real-valued (reward) classes, each output being a length-1 vector.
pub fn abs_metric(p: ArrayView1<'_, f64>, q: ArrayView1<'_, f64>) -> f64 {
    match (p.first(), q.first()) {
        (Some(a), Some(b)) => (a - b).abs(),
        _ => f64::NAN,
    }
}
