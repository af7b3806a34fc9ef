//! The Vandermonde matrix `(V)_{ij} = λ_i^j` of the recurrence, its
//! spectral condition number `κ₂(V) = σ_max / σ_min` (paper §4: the MLP's
//! Barron constant, hence the width it needs, grows with `‖V⁺‖`), and a
//! prediction of κ from the spectrum's expected Gram matrix.
//!
//! `mlcore::linalg` decomposes real matrices only; the complex SVD here is
//! faer's (`faer::c64` is `num_complex::Complex<f64>`, so no conversion).

use crate::C64;
use crate::error::{Error, Result};
use crate::spectrum::{Spectrum, check_lambda};
use faer::MatRef;
use ndarray::{Array1, Array2, ArrayView2};

/// The `N × L` Vandermonde matrix `V_{ij} = λ_i^j`, `j = 0 … L−1` (NumPy's
/// `np.vander(λ, L, increasing=True)`), by repeated multiplication. O(NL).
///
/// # Errors
/// [`Error::EmptySequence`], [`Error::NonFinite`] (also when `|λ|^{L−1}`
/// overflows), [`Error::ZeroWidth`] when `L = 0`; allocation limits.
pub fn vandermonde(lambda: &[C64], l: usize) -> Result<Array2<C64>> {
    check_lambda(lambda, false)?;
    if l == 0 {
        return Err(Error::ZeroWidth { what: "L" });
    }
    mlcore::check::alloc_len(&[lambda.len(), l], 16, "Vandermonde matrix")?;
    let mut v = Array2::from_elem((lambda.len(), l), C64::new(1.0, 0.0));
    for (i, &z) in lambda.iter().enumerate() {
        for j in 1..l {
            v[[i, j]] = v[[i, j - 1]] * z;
        }
    }
    if v.iter().any(|z| !z.re.is_finite() || !z.im.is_finite()) {
        return Err(Error::NonFinite {
            what: "Vandermonde matrix (|λ|^(L−1) overflows)",
        });
    }
    Ok(v)
}

/// Singular values of a complex matrix, non-increasing (faer's SVD). O(mn·min(m, n)).
///
/// # Errors
/// [`Error::EmptySequence`], [`Error::NonFinite`]; a faer convergence failure
/// as [`mlcore::Error::NoConvergence`].
pub fn singular_values(a: ArrayView2<'_, C64>) -> Result<Array1<f64>> {
    if a.is_empty() {
        return Err(Error::EmptySequence { what: "matrix" });
    }
    if a.iter().any(|z| !z.re.is_finite() || !z.im.is_finite()) {
        return Err(Error::NonFinite { what: "matrix" });
    }
    let owned = a.as_standard_layout();
    let s = owned
        .as_slice()
        .ok_or(Error::EmptySequence { what: "matrix" })?;
    let m = MatRef::from_row_major_slice(s, a.nrows(), a.ncols());
    let sv = m
        .singular_values()
        .map_err(|_| mlcore::Error::NoConvergence {
            algorithm: "complex svd",
        })?;
    Ok(Array1::from(sv))
}

/// The spectral condition number `κ₂ = σ₁/σ_{min(m,n)}` of a complex matrix
/// (NumPy's `np.linalg.cond`): `+∞` when the smallest singular value is 0.
/// O(mn·min(m, n)).
///
/// # Errors
/// As [`singular_values`].
pub fn cond2_matrix(a: ArrayView2<'_, C64>) -> Result<f64> {
    let s = singular_values(a)?;
    let (hi, lo) = (s[0], s[s.len() - 1]);
    Ok(if lo > 0.0 { hi / lo } else { f64::INFINITY })
}

/// `κ₂(V)` of the `N × L` Vandermonde matrix of `λ` ([`vandermonde`],
/// [`cond2_matrix`]). Roots of unity `r·e^{2πij/L}` with `N = L` give
/// `r^{−(L−1)}` exactly; real spectra grow exponentially in `L` and saturate
/// near `1e17 … 1e20` in `f64`, or give `+∞` when the SVD returns σ_min = 0
/// (numerically singular; NumPy reports a noise-level σ_min there instead).
/// O(NL·min(N, L)).
///
/// # Errors
/// As [`vandermonde`] and [`singular_values`].
pub fn cond2(lambda: &[C64], l: usize) -> Result<f64> {
    cond2_matrix(vandermonde(lambda, l)?.view())
}

/// The prediction of [`memory_budget`].
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryBudget {
    /// `κ∞ = √(λ_max(G)/λ_min(G))` of the expected Gram matrix
    /// `G = E[V^H V]/N`: the limit of `κ₂(V)` as `N → ∞` (`+∞` if G is singular).
    pub predicted_kappa: f64,
    /// Whether `predicted_kappa ≤ tol`.
    pub feasible: bool,
    /// A width at which `V^H V / N` is within `λ_min(G)/2` of `G` in spectral
    /// norm with probability ≥ 1 − δ, `δ = 10⁻³`, so that `κ₂(V) ≤ √3·κ∞`:
    /// entries of `V^H V / N` are means of N iid terms of modulus ≤ 1
    /// (`|λ| ≤ 1`), so Hoeffding on real and imaginary parts with a union
    /// bound over the 2L² of them gives `|E_{jl}| ≤ 2√(ln(4L²/δ)/N)`, and
    /// `‖E‖₂ ≤ L·max|E_{jl}|`; hence `N = (4L√(ln(4L²/δ))/λ_min(G))²`. A
    /// conservative size (it ignores the phases' cancellations); `None` when
    /// infeasible or `G` singular.
    pub suggested_n: Option<usize>,
}

/// Predicts how well `spectrum` encodes `L` steps: κ₂ of the expected Gram
/// matrix ([`Spectrum::gram_expectation_matrix`]) and a width `N` at which a
/// draw attains it up to `√3` (see [`MemoryBudget::suggested_n`]). The
/// Hermitian eigenvalues come from the real symmetric embedding
/// `[[Re G, −Im G], [Im G, Re G]]` (each eigenvalue twice) through
/// `mlcore::linalg::eigh`. O(L³).
///
/// # Errors
/// The errors of [`Spectrum::gram_expectation_matrix`];
/// [`Error::InvalidParameter`] when `tol` is not finite and `≥ 1`.
pub fn memory_budget(spectrum: &Spectrum, l: usize, tol: f64) -> Result<MemoryBudget> {
    if !(tol.is_finite() && tol >= 1.0) {
        return Err(Error::InvalidParameter {
            name: "tol",
            value: tol,
            expected: "finite and >= 1 (a condition number)",
        });
    }
    let g = spectrum.gram_expectation_matrix(l)?;
    let mut emb = Array2::zeros((2 * l, 2 * l));
    for j in 0..l {
        for k in 0..l {
            let z = g[[j, k]];
            emb[[j, k]] = z.re;
            emb[[j + l, k + l]] = z.re;
            emb[[j + l, k]] = z.im;
            emb[[j, k + l]] = -z.im;
        }
    }
    let ev = mlcore::linalg::eigh(emb.view())?.values;
    let (lo, hi) = (ev[0], ev[ev.len() - 1]);
    let predicted_kappa = if lo > hi * 1e-300 && lo > 0.0 {
        (hi / lo).sqrt()
    } else {
        f64::INFINITY
    };
    let feasible = predicted_kappa <= tol;
    let suggested_n = (feasible && predicted_kappa.is_finite()).then(|| {
        let lf = l as f64;
        let n = (4.0 * lf * (4.0 * lf * lf / 1e-3).ln().sqrt() / lo)
            .powi(2)
            .ceil();
        if n.is_finite() && n < usize::MAX as f64 {
            (n as usize).max(l)
        } else {
            usize::MAX
        }
    });
    Ok(MemoryBudget {
        predicted_kappa,
        feasible,
        suggested_n,
    })
}
