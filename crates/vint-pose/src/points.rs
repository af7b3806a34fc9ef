//! Conversions between `n × 3` ndarray point clouds (the public boundary) and
//! nalgebra points (the internal representation), with validation.

use crate::error::{Error, Result};
use nalgebra::{Point3, Vector3};
use ndarray::{Array2, ArrayView1, ArrayView2};

/// Validates an `n × 3` array (non-empty, finite) and converts it to points.
///
/// # Errors
/// [`Error::BadShape`] unless it has 3 columns, [`Error::EmptyCloud`] when
/// `n = 0`, [`Error::NonFinite`] at the first NaN/inf.
pub fn to_points(a: ArrayView2<'_, f64>, what: &'static str) -> Result<Vec<Point3<f64>>> {
    if a.ncols() != 3 {
        return Err(Error::BadShape {
            what,
            got: a.shape().to_vec(),
            expected: "n × 3",
        });
    }
    if a.nrows() == 0 {
        return Err(Error::EmptyCloud { what });
    }
    let mut out = Vec::with_capacity(a.nrows());
    for (i, row) in a.rows().into_iter().enumerate() {
        for (j, &v) in row.iter().enumerate() {
            if !v.is_finite() {
                return Err(Error::NonFinite {
                    what,
                    index: 3 * i + j,
                });
            }
        }
        out.push(Point3::new(row[0], row[1], row[2]));
    }
    Ok(out)
}

/// Validates an `n × 3` array of vectors (e.g. normals) and converts it.
///
/// # Errors
/// As [`to_points`].
pub fn to_vectors(a: ArrayView2<'_, f64>, what: &'static str) -> Result<Vec<Vector3<f64>>> {
    Ok(to_points(a, what)?.into_iter().map(|p| p.coords).collect())
}

/// Converts points to an owned `n × 3` array.
pub fn from_points(p: &[Point3<f64>]) -> Array2<f64> {
    Array2::from_shape_fn((p.len(), 3), |(i, j)| p[i][j])
}

/// Converts vectors to an owned `n × 3` array.
pub fn from_vectors(v: &[Vector3<f64>]) -> Array2<f64> {
    Array2::from_shape_fn((v.len(), 3), |(i, j)| v[i][j])
}

/// Validates a weight vector: length `n`, finite, `≥ 0`, positive sum.
pub(crate) fn weights(w: ArrayView1<'_, f64>, n: usize, what: &'static str) -> Result<Vec<f64>> {
    if w.len() != n {
        return Err(Error::LengthMismatch {
            what,
            got: w.len(),
            expected: n,
        });
    }
    let mut total = 0.0;
    for (i, &x) in w.iter().enumerate() {
        if !x.is_finite() {
            return Err(Error::NonFinite { what, index: i });
        }
        if x < 0.0 {
            return Err(Error::BadParameter {
                name: what,
                value: x,
                reason: "weights must be ≥ 0",
            });
        }
        total += x;
    }
    if total <= 0.0 || !total.is_finite() {
        return Err(Error::DegenerateCorrespondences {
            reason: format!("{what}: total weight {total} is not positive and finite"),
        });
    }
    Ok(w.to_vec())
}
