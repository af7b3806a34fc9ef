//! The reliability report: per-node errors binned by node curvature, and
//! their rank correlation (the paper's "negative curvature ⇒ larger error").

use crate::causal::len_check;
use crate::error::{Error, Result};
use mlcore::check::require;
use mlcore::stats::{pearson, spearman};
use ndarray::Array1;

/// Errors binned by curvature.
#[derive(Debug, Clone, PartialEq)]
pub struct ReliabilityReport {
    /// Bin edges `[lo₀, hi₀ = lo₁, …]` (`bins + 1` values, quantiles of
    /// the curvature).
    pub edges: Vec<f64>,
    /// Mean curvature in each bin.
    pub bin_curvature: Vec<f64>,
    /// Mean error in each bin (NaN for an empty bin).
    pub bin_error: Vec<f64>,
    /// Units per bin.
    pub bin_count: Vec<usize>,
    /// Spearman correlation of (curvature, error): negative when error grows
    /// as curvature falls.
    pub spearman: f64,
    /// Pearson correlation of (curvature, error).
    pub pearson: f64,
}

/// Bins units into `bins` equal-count bins of node curvature (ties kept
/// together: a unit goes to the first bin whose upper edge is `≥` its
/// curvature) and reports mean error per bin and the Spearman and Pearson
/// correlations. `O(n log n)`.
///
/// # Errors
/// [`Error::LengthMismatch`]; [`Error::NonFinite`]; [`Error::InvalidParameter`]
/// for `bins = 0`; [`Error::TooLarge`] when `bins` would exceed the
/// allocation cap; [`Error::Core`] for a constant input (correlation undefined).
pub fn curvature_error_report(
    node_curvature: &[f64],
    per_node_error: &[f64],
    bins: usize,
) -> Result<ReliabilityReport> {
    require(bins >= 1, "bins", bins as f64, "at least 1")?;
    mlcore::check::alloc_len(&[bins, 4], 8, "curvature bins")?;
    len_check("per_node_error", node_curvature.len(), per_node_error.len())?;
    if node_curvature.is_empty() {
        return Err(Error::LengthMismatch {
            what: "node_curvature",
            expected: 1,
            got: 0,
        });
    }
    for (what, v) in [
        ("node_curvature", node_curvature),
        ("per_node_error", per_node_error),
    ] {
        if let Some(index) = v.iter().position(|x| !x.is_finite()) {
            return Err(Error::NonFinite { what, index });
        }
    }
    let n = node_curvature.len();
    let mut sorted = node_curvature.to_vec();
    sorted.sort_by(f64::total_cmp);
    let edges: Vec<f64> = (0..=bins)
        .map(|k| {
            if k == 0 {
                sorted[0]
            } else {
                // In u128: k·n overflows usize for huge bin counts.
                sorted[((k as u128 * n as u128).div_ceil(bins as u128) - 1) as usize]
            }
        })
        .collect();
    let mut sum_c = vec![0.0; bins];
    let mut sum_e = vec![0.0; bins];
    let mut cnt = vec![0usize; bins];
    for (&c, &e) in node_curvature.iter().zip(per_node_error) {
        let b = (1..=bins)
            .find(|&k| c <= edges[k])
            .map_or(bins - 1, |k| k - 1);
        sum_c[b] += c;
        sum_e[b] += e;
        cnt[b] += 1;
    }
    let div = |s: &[f64]| -> Vec<f64> {
        s.iter()
            .zip(&cnt)
            .map(|(&v, &k)| if k > 0 { v / k as f64 } else { f64::NAN })
            .collect()
    };
    let x = Array1::from_vec(node_curvature.to_vec());
    let y = Array1::from_vec(per_node_error.to_vec());
    Ok(ReliabilityReport {
        edges,
        bin_curvature: div(&sum_c),
        bin_error: div(&sum_e),
        bin_count: cnt,
        spearman: spearman(x.view(), y.view())?,
        pearson: pearson(x.view(), y.view())?,
    })
}
