//! The asymmetric attention kernel and its kernel SVD (paper §3; Suykens,
//! 2016; Chen et al., NeurIPS 2023).
//!
//! Per head, queries and keys are L2-normalised, `φ_q(x) = q(x)/‖q(x)‖`,
//! `φ_k(x) = k(x)/‖k(x)‖`, and the kernel `κ(x_i, x_j) = ⟨φ_q(x_i), φ_k(x_j)⟩`
//! fills the `N × N` matrix `K = Φ_q Φ_kᵀ`, asymmetric because `W_q ≠ W_k`.
//!
//! KSVD (primal): with `W_e, W_r ∈ R^{p×s}` and `Λ = diag(λ_1..λ_s) ≻ 0`,
//!
//! `J = ½ Σ_i e_iᵀΛ⁻¹e_i + ½ Σ_j r_jᵀΛ⁻¹r_j − Tr(W_eᵀW_r)`, `e_i = W_eᵀφ_q(x_i)`, `r_j = W_rᵀφ_k(x_j)`.
//!
//! Its stationarity conditions give `W_e = Φ_kᵀH_r`, `W_r = Φ_qᵀH_e` and the
//! dual `K H_r = H_e Λ`, `Kᵀ H_e = H_r Λ`: `H_e`, `H_r` are the left and right
//! singular vectors of `K` and `Λ` its singular values ([`KernelSvd`]); at
//! that solution `J = 0`. Training adds the penalty `η_ksvd·J²`
//! ([`ksvd_penalty`]) instead of computing an SVD, with data-dependent
//! primal weights `W_e = X̃ᵀW̃_e` built from `rank_multi·s` evenly spaced
//! tokens ([`landmark_indices`], [`landmark_weights`]).
//!
//! The left kernel `κ_e(x, x') = Σ_j κ(x, x_j) κ(x', x_j)` (Gram `K Kᵀ`,
//! eigenvalues `Λ²`) is this crate's choice for the kernel of the SVGP on the
//! `e`-branch, which the paper leaves undefined: its eigenfunctions are the
//! left singular vectors, so `e(x) = W_eᵀφ_q(x) = H_rᵀk_x` (`k_x` the row of
//! kernel values of `x` against the `N` keys) is its Nyström feature, and the
//! residual `κ_e(x, x) − ‖e(x)‖² = ‖(I − H_rH_rᵀ)k_x‖² ≥ 0`
//! ([`KernelSvd::residual`]). The attention kernel `⟨φ_q, φ_k⟩` itself would
//! not do: `κ(x, x)` can be negative, so it is no covariance.

use crate::error::{Error, Result, alloc, finite, non_negative, shape};
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis, s};

/// The smallest norm [`normalize_rows`] divides by: `x/max(‖x‖, 1e-12)`, as
/// PyTorch's `F.normalize` (a zero row stays zero).
pub const NORMALIZE_EPS: f64 = 1e-12;

fn check_matrix(a: ArrayView2<'_, f64>, what: &'static str) -> Result<()> {
    if a.is_empty() {
        return Err(Error::EmptyInput { what });
    }
    finite(a.iter(), what)
}

/// L2-normalises every row: `x_i / max(‖x_i‖₂, 1e-12)` (the code's
/// `F.normalize(x, p=2, dim=-1)`). O(Np).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`].
pub fn normalize_rows(x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
    check_matrix(x, "features")?;
    let mut out = x.to_owned();
    for mut row in out.rows_mut() {
        // Scale first so that huge finite rows do not overflow the norm.
        let big = row.iter().fold(0.0f64, |a, &b| a.max(b.abs()));
        if big == 0.0 {
            continue;
        }
        let norm = big * row.iter().map(|v| (v / big).powi(2)).sum::<f64>().sqrt();
        row.mapv_inplace(|v| v / norm.max(NORMALIZE_EPS));
    }
    Ok(out)
}

/// The attention kernel matrix `K_ij = ⟨φ_q(x_i), φ_k(x_j)⟩` of raw queries
/// `q` (`N × p`) and keys `k` (`M × p`), each row L2-normalised first
/// ([`normalize_rows`]); `|K_ij| ≤ 1`. O(NMp).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`], [`Error::ShapeMismatch`]
/// when `q` and `k` differ in width, [`Error::TooLarge`].
pub fn attention_kernel(q: ArrayView2<'_, f64>, k: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
    let (pq, pk) = (normalize_rows(q)?, normalize_rows(k)?);
    if pq.ncols() != pk.ncols() {
        return Err(shape("keys", &[pk.nrows(), pq.ncols()], pk.shape()));
    }
    alloc(&[pq.nrows(), pk.nrows()], "kernel matrix")?;
    Ok(pq.dot(&pk.t()))
}

/// A rank-`s` kernel SVD `K ≈ H_e Λ H_rᵀ`: the `s` largest singular
/// triplets of the (asymmetric) kernel matrix.
#[derive(Debug, Clone, PartialEq)]
pub struct KernelSvd {
    /// `N × s` left singular vectors `H_e` (orthonormal columns).
    pub h_e: Array2<f64>,
    /// `M × s` right singular vectors `H_r` (orthonormal columns).
    pub h_r: Array2<f64>,
    /// The singular values `λ_1 ≥ … ≥ λ_s > 0`.
    pub lambda: Array1<f64>,
}

impl KernelSvd {
    /// The dual KSVD of a kernel matrix `K` (`N × M`): the top `s` singular
    /// triplets from `mlcore::linalg::svd` (faer's thin SVD), so that
    /// `K H_r = H_e Λ` and `Kᵀ H_e = H_r Λ`. O(NM·min(N, M)).
    ///
    /// # Errors
    /// [`Error::EmptyInput`], [`Error::NonFinite`];
    /// [`Error::InvalidParameter`] for `s = 0`; [`Error::RankTooLarge`] for
    /// `s > min(N, M)`; [`Error::NonPositiveSingularValue`] when `λ_s` is
    /// numerically zero (below numpy's rank tolerance
    /// `σ₁·max(N, M)·ε`), i.e. `s` exceeds the numerical rank of `K`, so
    /// that `Λ⁻¹` would not exist.
    pub fn from_kernel(k: ArrayView2<'_, f64>, s: usize) -> Result<Self> {
        check_matrix(k, "kernel matrix")?;
        if s == 0 {
            return Err(Error::InvalidParameter {
                name: "rank s",
                value: 0.0,
                expected: "at least 1",
            });
        }
        let max = k.nrows().min(k.ncols());
        if s > max {
            return Err(Error::RankTooLarge { s, max });
        }
        let svd = mlcore::linalg::svd(k)?;
        let tol = svd.s[0] * (k.nrows().max(k.ncols()) as f64) * f64::EPSILON;
        for (index, &value) in svd.s.iter().take(s).enumerate() {
            if !(value > tol && value.is_finite()) {
                return Err(Error::NonPositiveSingularValue { index, value });
            }
        }
        Ok(Self {
            h_e: svd.u.slice(s![.., ..s]).to_owned(),
            h_r: svd.vt.slice(s![..s, ..]).t().to_owned(),
            lambda: svd.s.slice(s![..s]).to_owned(),
        })
    }

    /// The dual KSVD of `K = Φ_q Φ_kᵀ` for feature maps given as rows
    /// (`Φ_q`: `N × p`, `Φ_k`: `M × p`, used as given, not normalised).
    /// O(NMp + NM·min(N, M)).
    ///
    /// # Errors
    /// As [`KernelSvd::from_kernel`], with [`Error::RankTooLarge`] for
    /// `s > min(N, M, p)` (the rank of `K` is at most `p`), and
    /// [`Error::ShapeMismatch`] when the widths differ.
    pub fn from_features(
        phi_q: ArrayView2<'_, f64>,
        phi_k: ArrayView2<'_, f64>,
        s: usize,
    ) -> Result<Self> {
        check_matrix(phi_q, "phi_q")?;
        check_matrix(phi_k, "phi_k")?;
        if phi_q.ncols() != phi_k.ncols() {
            return Err(shape(
                "phi_k",
                &[phi_k.nrows(), phi_q.ncols()],
                phi_k.shape(),
            ));
        }
        let max = phi_q.nrows().min(phi_k.nrows()).min(phi_q.ncols());
        if s > max {
            return Err(Error::RankTooLarge { s, max });
        }
        alloc(&[phi_q.nrows(), phi_k.nrows()], "kernel matrix")?;
        Self::from_kernel(phi_q.dot(&phi_k.t()).view(), s)
    }

    /// The rank `s`.
    pub fn rank(&self) -> usize {
        self.lambda.len()
    }

    /// The primal weights at the KSVD solution, `W_e = Φ_kᵀH_r` and
    /// `W_r = Φ_qᵀH_e` (both `p × s`), for the features `K` was built from. O((N + M)ps).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `Φ_q` has not `N` rows or `Φ_k` not `M`
    /// rows or their widths differ; [`Error::EmptyInput`], [`Error::NonFinite`].
    pub fn primal_weights(
        &self,
        phi_q: ArrayView2<'_, f64>,
        phi_k: ArrayView2<'_, f64>,
    ) -> Result<(Array2<f64>, Array2<f64>)> {
        check_matrix(phi_q, "phi_q")?;
        check_matrix(phi_k, "phi_k")?;
        if phi_q.nrows() != self.h_e.nrows() {
            return Err(shape(
                "phi_q",
                &[self.h_e.nrows(), phi_q.ncols()],
                phi_q.shape(),
            ));
        }
        if phi_k.nrows() != self.h_r.nrows() || phi_k.ncols() != phi_q.ncols() {
            return Err(shape(
                "phi_k",
                &[self.h_r.nrows(), phi_q.ncols()],
                phi_k.shape(),
            ));
        }
        Ok((phi_k.t().dot(&self.h_r), phi_q.t().dot(&self.h_e)))
    }

    /// The `e`-branch scores `e(x) = H_rᵀk_x` of query rows given by their
    /// kernel rows `k_rows` (`m × M`, `k_x = (κ(x, x_j))_j`): the Nyström
    /// features of the left kernel `κ_e`, equal to `W_eᵀφ_q(x)`. O(mMs).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `k_rows` has not `M` columns;
    /// [`Error::EmptyInput`], [`Error::NonFinite`].
    pub fn left_scores(&self, k_rows: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        self.check_rows(k_rows)?;
        Ok(k_rows.dot(&self.h_r))
    }

    fn check_rows(&self, k_rows: ArrayView2<'_, f64>) -> Result<()> {
        check_matrix(k_rows, "kernel rows")?;
        if k_rows.ncols() != self.h_r.nrows() {
            return Err(shape(
                "kernel rows",
                &[k_rows.nrows(), self.h_r.nrows()],
                k_rows.shape(),
            ));
        }
        Ok(())
    }

    /// The residual of the left kernel not captured at rank `s`,
    /// `κ_e(x, x) − ‖e(x)‖² = ‖(I − H_rH_rᵀ)k_x‖²`, one per row of
    /// `k_rows`, computed as a squared norm so it is ≥ 0 by construction
    /// (`H_r` has orthonormal columns). Zero (to rounding) for rows of `K`
    /// when `s = rank(K)`. Feed it to `Posterior::WithResidual`. O(mMs).
    ///
    /// # Errors
    /// As [`KernelSvd::left_scores`].
    pub fn residual(&self, k_rows: ArrayView2<'_, f64>) -> Result<Array1<f64>> {
        self.check_rows(k_rows)?;
        let proj = k_rows.dot(&self.h_r).dot(&self.h_r.t());
        let diff = &k_rows - &proj;
        Ok(diff.map_axis(Axis(1), |r| r.dot(&r)))
    }
}

/// The left kernel's diagonal `κ_e(x, x) = Σ_j κ(x, x_j)² = ‖k_x‖²`, one per
/// row of `k_rows`. O(mM).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`].
pub fn left_kernel_diag(k_rows: ArrayView2<'_, f64>) -> Result<Array1<f64>> {
    check_matrix(k_rows, "kernel rows")?;
    Ok(k_rows.map_axis(Axis(1), |r| r.dot(&r)))
}

/// The KSVD primal objective
/// `J = ½ Σ_i e_iᵀΛ⁻¹e_i + ½ Σ_j r_jᵀΛ⁻¹r_j − Tr(W_eᵀW_r)` with
/// `e_i = W_eᵀφ_q(x_i)`, `r_j = W_rᵀφ_k(x_j)`; zero at the KSVD solution.
/// `W_e, W_r`: `p × s`; `Φ_q`: `N × p`; `Φ_k`: `M × p`. O((N + M)ps).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`], [`Error::ShapeMismatch`],
/// [`Error::NonPositiveSingularValue`] for a `λ_i` that is not finite and > 0.
pub fn primal_objective(
    w_e: ArrayView2<'_, f64>,
    w_r: ArrayView2<'_, f64>,
    lambda: ArrayView1<'_, f64>,
    phi_q: ArrayView2<'_, f64>,
    phi_k: ArrayView2<'_, f64>,
) -> Result<f64> {
    for (a, what) in [
        (w_e, "w_e"),
        (w_r, "w_r"),
        (phi_q, "phi_q"),
        (phi_k, "phi_k"),
    ] {
        check_matrix(a, what)?;
    }
    check_lambda(lambda)?;
    let (p, s) = (phi_q.ncols(), lambda.len());
    for (a, what) in [(w_e, "w_e"), (w_r, "w_r")] {
        if a.dim() != (p, s) {
            return Err(shape(what, &[p, s], a.shape()));
        }
    }
    if phi_k.ncols() != p {
        return Err(shape("phi_k", &[phi_k.nrows(), p], phi_k.shape()));
    }
    let inv = lambda.mapv(|l| 1.0 / l);
    let quad = |scores: Array2<f64>| -> f64 {
        scores
            .rows()
            .into_iter()
            .map(|r| r.iter().zip(&inv).map(|(v, i)| v * v * i).sum::<f64>())
            .sum()
    };
    let e = quad(phi_q.dot(&w_e));
    let r = quad(phi_k.dot(&w_r));
    let trace: f64 = w_e.iter().zip(w_r.iter()).map(|(a, b)| a * b).sum();
    Ok(0.5 * e + 0.5 * r - trace)
}

/// The KSVD penalty `η_ksvd·J²` added to the training loss. O(1).
///
/// # Errors
/// [`Error::InvalidParameter`] for a negative or non-finite `η_ksvd`;
/// [`Error::NonFinite`] for a non-finite `J`.
pub fn ksvd_penalty(j: f64, eta_ksvd: f64) -> Result<f64> {
    non_negative(eta_ksvd, "eta_ksvd")?;
    finite([j].iter(), "J")?;
    Ok(eta_ksvd * j * j)
}

/// Checks `Λ`: non-empty, every `λ_i` finite and > 0.
pub(crate) fn check_lambda(lambda: ArrayView1<'_, f64>) -> Result<()> {
    if lambda.is_empty() {
        return Err(Error::EmptyInput { what: "lambda" });
    }
    match lambda.iter().position(|l| !(l.is_finite() && *l > 0.0)) {
        Some(index) => Err(Error::NonPositiveSingularValue {
            index,
            value: lambda[index],
        }),
        None => Ok(()),
    }
}

/// The `count` evenly spaced token indices of `0..n` the code's
/// `torch.linspace(0, n − 1, count, dtype=int)` selects, computed exactly
/// as `⌊k(n − 1)/(count − 1)⌋` (`[0]` for `count = 1`; the float linspace
/// can round one index down where this does not). O(count).
///
/// # Errors
/// [`Error::EmptyInput`] for `n = 0`; [`Error::InvalidParameter`] for
/// `count = 0`; [`Error::RankTooLarge`] for `count > n`.
pub fn landmark_indices(n: usize, count: usize) -> Result<Vec<usize>> {
    if n == 0 {
        return Err(Error::EmptyInput { what: "tokens" });
    }
    if count == 0 {
        return Err(Error::InvalidParameter {
            name: "landmark count",
            value: 0.0,
            expected: "at least 1",
        });
    }
    if count > n {
        return Err(Error::RankTooLarge { s: count, max: n });
    }
    if count == 1 {
        return Ok(vec![0]);
    }
    Ok((0..count)
        .map(|k| ((k as u128 * (n - 1) as u128) / (count - 1) as u128) as usize)
        .collect())
}

/// The data-dependent primal weights of the code, `W = X̃ᵀW̃` (`p × s`),
/// with `X̃` the `m = w_tilde.nrows()` evenly spaced rows
/// ([`landmark_indices`]) of the layer input `x` (`N × p`, the head's
/// channels) and `W̃` (`m × s`) learned. O(mps).
///
/// # Errors
/// [`Error::EmptyInput`], [`Error::NonFinite`]; [`Error::RankTooLarge`]
/// when `m > N`.
pub fn landmark_weights(
    x: ArrayView2<'_, f64>,
    w_tilde: ArrayView2<'_, f64>,
) -> Result<Array2<f64>> {
    check_matrix(x, "x")?;
    check_matrix(w_tilde, "w_tilde")?;
    let idx = landmark_indices(x.nrows(), w_tilde.nrows())?;
    let xt = x.select(Axis(0), &idx);
    Ok(xt.t().dot(&w_tilde))
}
