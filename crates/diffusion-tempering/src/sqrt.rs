//! Square-root (QR) Gaussian algebra on small dense matrices, generic over
//! the scalar so that forward-mode dual numbers flow through it.
//!
//! Covariances are stored as *right factors*: `P = RᵀR` with `R` square
//! (not necessarily triangular). Every covariance operation is one
//! Householder QR of a stacked "pre-array", so `P` stays positive
//! semi-definite by construction.

use crate::Scalar;

/// A dense row-major matrix over a [`Scalar`].
#[derive(Debug, Clone, PartialEq)]
pub struct Mat<T> {
    /// Rows.
    pub rows: usize,
    /// Columns.
    pub cols: usize,
    /// Row-major entries.
    pub data: Vec<T>,
}

impl<T: Scalar> Mat<T> {
    /// The `rows × cols` zero matrix.
    pub fn zeros(rows: usize, cols: usize) -> Self {
        Mat {
            rows,
            cols,
            data: vec![T::from(0.0); rows * cols],
        }
    }

    /// Entry `(i, j)`.
    #[inline]
    pub fn at(&self, i: usize, j: usize) -> T {
        self.data[i * self.cols + j]
    }

    /// Mutable entry `(i, j)`.
    #[inline]
    pub fn at_mut(&mut self, i: usize, j: usize) -> &mut T {
        &mut self.data[i * self.cols + j]
    }

    /// `PᵀP`-preserving copy of a block `[r0..r0+nr) × [c0..c0+nc)`.
    pub fn block(&self, r0: usize, c0: usize, nr: usize, nc: usize) -> Mat<T> {
        let mut out = Mat::zeros(nr, nc);
        for i in 0..nr {
            for j in 0..nc {
                *out.at_mut(i, j) = self.at(r0 + i, c0 + j);
            }
        }
        out
    }

    /// `RᵀR`, the covariance of the right factor `R`.
    pub fn gram(&self) -> Mat<T> {
        let n = self.cols;
        let mut out = Mat::zeros(n, n);
        for k in 0..self.rows {
            for i in 0..n {
                let a = self.at(k, i);
                for j in 0..n {
                    let v = out.at(i, j) + a * self.at(k, j);
                    *out.at_mut(i, j) = v;
                }
            }
        }
        out
    }
}

/// Householder QR of `m` in place, keeping only the triangular factor: on
/// return `m` holds `Qᵀm`, whose first `min(rows, cols)` rows are the upper
/// triangular `R` with `mᵀm = RᵀR` (rows below are zero up to rounding).
///
/// A column whose remaining part is zero to rounding (norm below `1e-14` of
/// the largest column norm) is left as it is instead of being reflected:
/// this happens for rank-deficient pre-arrays (noise-free ODE measurements),
/// and reflecting a rounding-level vector would give dual parts of order
/// one divided by rounding. The skipped column keeps `mᵀm` exact; only the
/// strict triangularity of that column is lost, which no caller relies on
/// beyond the leading full-rank block.
///
/// Cost: `2·rows·cols² − ⅔cols³` scalar operations.
pub fn qr_in_place<T: Scalar>(m: &mut Mat<T>) {
    let (r, c) = (m.rows, m.cols);
    let mut col_norms = vec![0.0f64; c];
    for row in m.data.chunks_exact(c) {
        for (acc, v) in col_norms.iter_mut().zip(row) {
            let x = v.re();
            *acc += x * x;
        }
    }
    let scale = col_norms.iter().fold(0.0f64, |a, &b| a.max(b)).sqrt();
    if scale == 0.0 || !scale.is_finite() {
        return;
    }
    let tiny = 1e-14 * scale;
    let zero = T::from(0.0);
    let mut v: Vec<T> = vec![zero; r];
    let mut w: Vec<T> = vec![zero; c];
    for j in 0..c.min(r) {
        let mut nrm2 = zero;
        for i in j..r {
            let x = m.data[i * c + j];
            nrm2 += x * x;
        }
        if nrm2.re().sqrt() <= tiny {
            continue;
        }
        let nrm = nrm2.sqrt();
        let x0 = m.data[j * c + j];
        let alpha = if x0.re() >= 0.0 { -nrm } else { nrm };
        // v = x − α e₁, vᵀv = 2(‖x‖² − α x₀)
        for i in j..r {
            v[i] = m.data[i * c + j];
        }
        v[j] -= alpha;
        let beta = T::from(2.0) / ((nrm2 - alpha * x0) * 2.0);
        // w = β vᵀ M[j.., j+1..], row by row (contiguous)
        for wk in w[j + 1..].iter_mut() {
            *wk = zero;
        }
        for i in j..r {
            let vi = v[i];
            let row = &m.data[i * c + j + 1..(i + 1) * c];
            for (wk, &x) in w[j + 1..].iter_mut().zip(row) {
                *wk += vi * x;
            }
        }
        for wk in w[j + 1..].iter_mut() {
            *wk *= beta;
        }
        for i in j..r {
            let vi = v[i];
            let row = &mut m.data[i * c + j + 1..(i + 1) * c];
            for (x, &wk) in row.iter_mut().zip(&w[j + 1..]) {
                *x -= wk * vi;
            }
        }
        m.data[j * c + j] = alpha;
        for i in j + 1..r {
            m.data[i * c + j] = zero;
        }
    }
}

/// Solves `U x = b` for upper triangular `U` (`n × n`, the leading block of
/// `u`), overwriting `b`. `None` when a pivot is zero. Cost `n²`.
pub fn solve_upper<T: Scalar>(u: &Mat<T>, n: usize, b: &mut [T]) -> Option<()> {
    for i in (0..n).rev() {
        let mut s = b[i];
        for j in i + 1..n {
            s -= u.at(i, j) * b[j];
        }
        let d = u.at(i, i);
        if d.re() == 0.0 {
            return None;
        }
        b[i] = s / d;
    }
    Some(())
}

/// Solves `Uᵀ x = b` for upper triangular `U` (forward substitution),
/// overwriting `b`. `None` when a pivot is zero. Cost `n²`.
pub fn solve_upper_transposed<T: Scalar>(u: &Mat<T>, n: usize, b: &mut [T]) -> Option<()> {
    for i in 0..n {
        let mut s = b[i];
        for j in 0..i {
            s -= u.at(j, i) * b[j];
        }
        let d = u.at(i, i);
        if d.re() == 0.0 {
            return None;
        }
        b[i] = s / d;
    }
    Some(())
}

/// One square-root Kalman update of `x ~ N(m, RᵀR)` with a linear
/// measurement `y = C x + v`, `v ~ N(0, σ²I)` (`σ = 0` for a noise-free
/// constraint), given the residual `e = y − C m`.
///
/// Pre-array `[[σI, 0], [R Cᵀ, R]]` (`(k+n) × (k+n)`), one QR gives
/// `[[R_S, X], [0, R⁺]]` with `S = C P Cᵀ + σ²I = R_SᵀR_S`, gain
/// `K = Xᵀ R_S⁻ᵀ` and `P⁺ = R⁺ᵀR⁺`. The mean is updated in place to
/// `m + Xᵀ w`, `w = R_S⁻ᵀ e`, and the factor replaced by `R⁺`.
///
/// Returns `(½‖w‖², Σᵢ log|R_S,ᵢᵢ|)`, the two terms of `−log N(y; C m, S)`
/// without the `k/2 · log 2π`. `None` when `S` is singular.
///
/// Cost: one QR of a `(k+n)²` array, `O((k+n)³)`.
pub fn kalman_update<T: Scalar>(
    m: &mut [T],
    r: &mut Mat<T>,
    c: &Mat<T>,
    sigma: T,
    e: &[T],
) -> Option<(T, T)> {
    let n = m.len();
    let k = c.rows;
    let s = k + n;
    let mut pre = Mat::zeros(s, s);
    if sigma.re() != 0.0 {
        for i in 0..k {
            *pre.at_mut(i, i) = sigma;
        }
    }
    // R Cᵀ
    for a in 0..n {
        for o in 0..k {
            let mut acc = T::from(0.0);
            for b in 0..n {
                acc += r.at(a, b) * c.at(o, b);
            }
            *pre.at_mut(k + a, o) = acc;
        }
        for b in 0..n {
            *pre.at_mut(k + a, k + b) = r.at(a, b);
        }
    }
    qr_in_place(&mut pre);
    let mut w = e.to_vec();
    solve_upper_transposed(&pre, k, &mut w)?;
    let mut half_quad = T::from(0.0);
    let mut logdet = T::from(0.0);
    for i in 0..k {
        half_quad += w[i] * w[i] * 0.5;
        logdet += pre.at(i, i).abs().ln();
    }
    for (a, ma) in m.iter_mut().enumerate() {
        let mut acc = T::from(0.0);
        for i in 0..k {
            acc += pre.at(i, k + a) * w[i];
        }
        *ma += acc;
    }
    for a in 0..n {
        for b in 0..n {
            *r.at_mut(a, b) = pre.at(k + a, k + b);
        }
    }
    Some((half_quad, logdet))
}
