//! Evaluation of prediction sets, and the exact finite-sample coverage law.

use crate::calibrate::{check_alpha, min_calibration_size};
use crate::error::{Error, Result};
use crate::score::PredictionSet;
use statrs::distribution::{Beta, ContinuousCDF};
use statrs::statistics::Distribution;

fn check_pairs(sets: &[PredictionSet], labels: &[usize]) -> Result<()> {
    if sets.is_empty() {
        return Err(Error::EmptyInput { what: "sets" });
    }
    if sets.len() != labels.len() {
        return Err(Error::ShapeMismatch {
            what: "labels vs sets",
            expected: sets.len(),
            got: labels.len(),
        });
    }
    Ok(())
}

/// Empirical coverage `#{i : yᵢ ∈ Cᵢ} / n`. O(n log |C|).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::ShapeMismatch`].
pub fn coverage(sets: &[PredictionSet], labels: &[usize]) -> Result<f64> {
    check_pairs(sets, labels)?;
    Ok(sets
        .iter()
        .zip(labels)
        .filter(|(s, y)| s.contains(**y))
        .count() as f64
        / sets.len() as f64)
}

/// Mean set size. O(n).
///
/// # Errors
/// [`Error::EmptyInput`].
pub fn mean_size(sets: &[PredictionSet]) -> Result<f64> {
    if sets.is_empty() {
        return Err(Error::EmptyInput { what: "sets" });
    }
    Ok(sets.iter().map(PredictionSet::len).sum::<usize>() as f64 / sets.len() as f64)
}

/// The size strata of the RAPS paper: 0–1, 2–3, 4–6, 7–10, 11–100, 101–1000.
pub const RAPS_STRATA: [(usize, usize); 6] =
    [(0, 1), (2, 3), (4, 6), (7, 10), (11, 100), (101, 1000)];

/// Coverage among the sets whose size lies in one stratum.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stratum {
    /// Smallest size in the stratum.
    pub lo: usize,
    /// Largest size in the stratum.
    pub hi: usize,
    /// Number of sets in it.
    pub count: usize,
    /// Their coverage (`None` when the stratum is empty).
    pub coverage: Option<f64>,
}

/// Size-stratified coverage: an adaptive method keeps coverage near `1 − α`
/// in every stratum, a fixed-size one cannot. O(n · strata).
///
/// # Errors
/// As [`coverage`].
pub fn size_stratified_coverage(
    sets: &[PredictionSet],
    labels: &[usize],
    strata: &[(usize, usize)],
) -> Result<Vec<Stratum>> {
    check_pairs(sets, labels)?;
    Ok(strata
        .iter()
        .map(|&(lo, hi)| {
            let (count, hit) = sets
                .iter()
                .zip(labels)
                .filter(|(s, _)| (lo..=hi).contains(&s.len()))
                .fold((0, 0), |(c, h), (s, y)| {
                    (c + 1, h + usize::from(s.contains(*y)))
                });
            Stratum {
                lo,
                hi,
                count,
                coverage: (count > 0).then(|| hit as f64 / count as f64),
            }
        })
        .collect())
}

/// Coverage within each true class `0..classes` (`None` for a class absent from `labels`). O(n).
///
/// # Errors
/// As [`coverage`]; [`Error::LabelOutOfRange`].
pub fn class_conditional_coverage(
    sets: &[PredictionSet],
    labels: &[usize],
    classes: usize,
) -> Result<Vec<Option<f64>>> {
    check_pairs(sets, labels)?;
    let mut count = vec![0usize; classes];
    let mut hit = vec![0usize; classes];
    for (index, (s, &y)) in sets.iter().zip(labels).enumerate() {
        if y >= classes {
            return Err(Error::LabelOutOfRange {
                index,
                label: y,
                classes,
            });
        }
        count[y] += 1;
        hit[y] += usize::from(s.contains(y));
    }
    Ok(count
        .iter()
        .zip(&hit)
        .map(|(&c, &h)| (c > 0).then(|| h as f64 / c as f64))
        .collect())
}

/// The law of the coverage conditional on the calibration set, for the
/// finite-sample rule with tie-free scores (Vovk 2012; Angelopoulos & Bates
/// 2021, §3.2): `P(Y ∈ C(X) | calibration) ~ Beta(n + 1 − l, l)` with
/// `l = ⌊(n+1)α⌋`. Its mean `1 − l/(n+1)` lies in `[1−α, 1−α+1/(n+1))`.
#[derive(Debug, Clone, PartialEq)]
pub struct CoverageDistribution {
    /// Calibration size `n`.
    pub n: usize,
    /// `a = n + 1 − l`.
    pub a: f64,
    /// `b = l`.
    pub b: f64,
    beta: Beta,
}

impl CoverageDistribution {
    /// # Errors
    /// [`Error::AlphaOutOfRange`], [`Error::TooFewCalibration`] when `l = 0`
    /// (then `n < 1/α − 1` and the threshold is infinite).
    pub fn new(n: usize, alpha: f64) -> Result<Self> {
        check_alpha(alpha)?;
        let l = ((n as f64 + 1.0) * alpha + 1e-9).floor() as usize;
        if l == 0 || l > n {
            return Err(Error::TooFewCalibration {
                n,
                alpha,
                min_n: min_calibration_size(alpha).unwrap_or(usize::MAX),
            });
        }
        let (a, b) = ((n - l) as f64 + 1.0, l as f64);
        let beta = Beta::new(a, b).map_err(|_| Error::InvalidParameter {
            name: "beta",
            value: a,
            expected: "a, b > 0",
        })?;
        Ok(CoverageDistribution { n, a, b, beta })
    }

    /// Mean coverage `a / (a + b)`.
    pub fn mean(&self) -> f64 {
        self.beta.mean().unwrap_or(f64::NAN)
    }

    /// `P(coverage ≤ c)` (0 below 0, 1 above 1).
    ///
    /// # Errors
    /// [`Error::NonFinite`] for a NaN `c`.
    pub fn cdf(&self, c: f64) -> Result<f64> {
        if c.is_nan() {
            return Err(Error::NonFinite {
                what: "coverage",
                index: 0,
            });
        }
        Ok(self.beta.cdf(c.clamp(0.0, 1.0)))
    }

    /// The `p`-quantile of the coverage, e.g. `p = 0.05` for a value the
    /// coverage exceeds with probability 0.95 over calibration draws: the
    /// smallest `c` with `cdf(c) ≥ p`, by bisection on [`Self::cdf`] to
    /// adjacent doubles (≤ 1100 evaluations; statrs' own inverse panicked
    /// at n = usize::MAX, p = 5e-324, found by a hostile-input run).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `0 ≤ p ≤ 1`.
    pub fn quantile(&self, p: f64) -> Result<f64> {
        if !(0.0..=1.0).contains(&p) {
            return Err(Error::InvalidParameter {
                name: "p",
                value: p,
                expected: "a probability in [0, 1]",
            });
        }
        let (mut lo, mut hi) = (0.0f64, 1.0f64);
        if self.beta.cdf(0.0) >= p {
            return Ok(0.0);
        }
        loop {
            let mid = lo + (hi - lo) / 2.0;
            if mid <= lo || mid >= hi {
                return Ok(hi);
            }
            if self.beta.cdf(mid) >= p {
                hi = mid;
            } else {
                lo = mid;
            }
        }
    }
}
