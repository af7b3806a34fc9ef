//! The q-times integrated Wiener process prior, IWP(q), and its exact
//! discretisation with Nordsieck preconditioning.

use crate::error::{Error, Result};
use ndarray::Array2;

/// Largest order accepted by [`Iwp`].
pub const MAX_ORDER: usize = 10;

/// The q-times integrated Wiener process prior of one scalar coordinate,
/// state `[x, ẋ, …, x⁽ᵠ⁾]` and diffusion `κ²`.
///
/// Exact discretisation over a step `h` (indices `i, j = 0..q`):
/// `A(h)ᵢⱼ = h^{j−i}/(j−i)!` for `j ≥ i`, and
/// `Q(h)ᵢⱼ = κ² h^{2q+1−i−j} / ((2q+1−i−j)(q−i)!(q−j)!)`.
///
/// Nordsieck preconditioning writes both with the diagonal
/// `T(h)ᵢᵢ = √h · h^{q−i}/(q−i)!` and step-independent matrices:
/// `A(h) = T Ā T⁻¹` with `Āᵢⱼ = C(q−i, q−j)` and `Q(h) = κ² T Q̄ Tᵀ` with
/// `Q̄ᵢⱼ = 1/(2q+1−i−j)`. The filter works with the Cholesky factor of the
/// constant `Q̄` (computed once), so the process noise factor is exact for
/// every `h` instead of a Cholesky of the badly scaled `Q(h)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Iwp {
    q: usize,
    a_bar: Vec<f64>,
    /// Upper triangular right factor of `Q̄` (`Q̄ = R̄ᵀR̄`), row-major.
    r_bar: Vec<f64>,
}

fn factorial(n: usize) -> f64 {
    (1..=n).map(|k| k as f64).product()
}

fn binom(n: usize, k: usize) -> f64 {
    factorial(n) / (factorial(k) * factorial(n - k))
}

impl Iwp {
    /// The IWP(q) prior.
    ///
    /// # Errors
    /// [`Error::InvalidOrder`] unless `1 ≤ q ≤ 10`.
    pub fn new(q: usize) -> Result<Self> {
        if q == 0 || q > MAX_ORDER {
            return Err(Error::InvalidOrder { q, max: MAX_ORDER });
        }
        let n = q + 1;
        let mut a_bar = vec![0.0; n * n];
        let mut qb = Array2::<f64>::zeros((n, n));
        for i in 0..n {
            for j in 0..n {
                if j >= i {
                    a_bar[i * n + j] = binom(q - i, q - j);
                }
                qb[[i, j]] = 1.0 / (2 * q + 1 - i - j) as f64;
            }
        }
        // Q̄ is a Hilbert-like matrix, positive definite for every q.
        let l = mlcore::linalg::cholesky(qb.view())?;
        let mut r_bar = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                r_bar[i * n + j] = l[[j, i]];
            }
        }
        Ok(Iwp { q, a_bar, r_bar })
    }

    /// The order q.
    pub fn order(&self) -> usize {
        self.q
    }

    /// `Āᵢⱼ = C(q−i, q−j)` (`j ≥ i`), the preconditioned transition.
    pub fn a_bar(&self, i: usize, j: usize) -> f64 {
        self.a_bar[i * (self.q + 1) + j]
    }

    /// `R̄ᵢⱼ`, the upper right factor of `Q̄` (`Q̄ = R̄ᵀR̄`).
    pub fn r_bar(&self, i: usize, j: usize) -> f64 {
        self.r_bar[i * (self.q + 1) + j]
    }

    /// The diagonal of the Nordsieck preconditioner,
    /// `T(h)ᵢᵢ = √h · h^{q−i}/(q−i)!`.
    pub fn preconditioner(&self, h: f64) -> Vec<f64> {
        (0..=self.q)
            .map(|i| h.sqrt() * h.powi((self.q - i) as i32) / factorial(self.q - i))
            .collect()
    }

    /// The transition matrix `A(h)` and process noise `Q(h)` for `κ² = 1`,
    /// from the closed forms (not through the preconditioner).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `h` is finite and positive and
    /// small enough that `h^{2q+1}` is finite.
    pub fn transition(&self, h: f64) -> Result<(Array2<f64>, Array2<f64>)> {
        mlcore::check::positive(h, "step h")?;
        let q = self.q;
        let n = q + 1;
        let mut a = Array2::zeros((n, n));
        let mut qm = Array2::zeros((n, n));
        for i in 0..n {
            for j in 0..n {
                if j >= i {
                    a[[i, j]] = h.powi((j - i) as i32) / factorial(j - i);
                }
                let e = 2 * q + 1 - i - j;
                qm[[i, j]] = h.powi(e as i32) / (e as f64 * factorial(q - i) * factorial(q - j));
            }
        }
        if qm.iter().chain(a.iter()).any(|v| !v.is_finite()) {
            return Err(Error::InvalidParameter {
                name: "step h",
                value: h,
                expected: "small enough that h^(2q+1) is finite",
            });
        }
        Ok((a, qm))
    }
}
