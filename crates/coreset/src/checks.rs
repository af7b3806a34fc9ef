//! Input checks shared by the entry points (crate-private).

use crate::error::{Error, Result};
use mlcore::check;
use ndarray::{Array1, ArrayView1, ArrayView2};

/// `p` must be finite and at least 1.
pub(crate) fn p(p: f64) -> Result<()> {
    if p.is_finite() && p >= 1.0 {
        Ok(())
    } else {
        Err(Error::InvalidP { p })
    }
}

/// Non-empty, finite matrix; names the first non-finite entry by row and column.
pub(crate) fn matrix(m: ArrayView2<'_, f64>, what: &'static str) -> Result<()> {
    if m.nrows() == 0 || m.ncols() == 0 {
        return Err(Error::EmptyInput { what });
    }
    // Fast path: one pass without index bookkeeping; locate only on failure.
    if m.iter().all(|v| v.is_finite()) {
        return Ok(());
    }
    for ((row, col), v) in m.indexed_iter() {
        if !v.is_finite() {
            return Err(Error::NonFinite {
                matrix: what,
                row,
                col,
            });
        }
    }
    Ok(())
}

/// `A` and `B` checked, with the same number of rows.
pub(crate) fn pair(a: ArrayView2<'_, f64>, b: ArrayView2<'_, f64>) -> Result<()> {
    matrix(a, "A")?;
    matrix(b, "B")?;
    if a.nrows() != b.nrows() {
        return Err(Error::DimensionMismatch {
            a_rows: a.nrows(),
            b_rows: b.nrows(),
        });
    }
    Ok(())
}

/// Row weights: length `n`, finite, non-negative.
pub(crate) fn weights(s: ArrayView1<'_, f64>, n: usize) -> Result<()> {
    check::len(s.len(), n, "weights")?;
    match s.iter().position(|v| !(v.is_finite() && *v >= 0.0)) {
        Some(index) => Err(Error::InvalidWeights {
            index,
            value: s[index],
        }),
        None => Ok(()),
    }
}

/// Checked row weights as an owned vector, all ones when absent.
pub(crate) fn weights_or_ones(s: Option<ArrayView1<'_, f64>>, n: usize) -> Result<Array1<f64>> {
    match s {
        Some(s) => {
            weights(s, n)?;
            Ok(s.to_owned())
        }
        None => Ok(Array1::ones(n)),
    }
}

/// A count-like or tolerance-like parameter that must be finite and > 0.
pub(crate) fn positive(value: f64, name: &'static str) -> Result<()> {
    Ok(check::positive(value, name)?)
}

/// The iteration options shared by the Lewis and IRLS solvers: at least one
/// iteration and a finite, positive tolerance.
pub(crate) fn iteration(max_iter: usize, tol: f64) -> Result<()> {
    check::at_least(max_iter, 1, "max_iter", "at least 1")?;
    positive(tol, "tol")
}

/// `ε ∈ (0, 1)`.
pub(crate) fn epsilon(epsilon: f64) -> Result<()> {
    if epsilon > 0.0 && epsilon < 1.0 {
        Ok(())
    } else {
        Err(Error::InvalidEpsilon { epsilon })
    }
}

/// `δ ∈ (0, 1)`.
pub(crate) fn delta(delta: f64) -> Result<()> {
    if delta > 0.0 && delta < 1.0 {
        Ok(())
    } else {
        Err(Error::InvalidDelta { delta })
    }
}
