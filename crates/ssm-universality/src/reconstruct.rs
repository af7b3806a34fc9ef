//! Lossless encoding (paper §3): recovering `v_1 … v_k` from the state
//! `x_k` through an SVD pseudo-inverse of the linear map `v_{1:k} ↦ x_k`.
//!
//! For real inputs the map is real-linear from `ℝ^{kM}` to `ℂ^N ≅ ℝ^{2N}`:
//! `A_k = [Re; Im] of (Λ^{k−t} B̃)` column `(t−1)·M + m` for input `v_t[m]`.
//! Since `vᵀ Re(V^H V) v = v^H (V^H V) v` for real `v`, the singular values
//! of `A_k` lie within those of the complex map, so `κ₂(A_k) ≤ κ₂(V)` for
//! `M = 1`. The LRU normalisation is undone because `A_k` is built from
//! `B̃ = diag(γ)B`, the matrix the recurrence used. An explicit inverse is
//! unstable; singular values below `rcond·σ₁` are cut (NumPy's `lstsq` rule).

use crate::C64;
use crate::error::{Error, Result};
use crate::rnn::DiagLinearRnn;
use ndarray::{Array1, Array2, ArrayView1};

/// Whether a rank-deficient map is an error or a compressed encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// All `k·M` inputs must be recoverable: rank `< k·M` is an error.
    Exact,
    /// `N < k·M` (or a lower rank) is allowed: the pseudo-inverse returns the
    /// minimum-norm input, and [`Reconstructor::recoverable_lags`] says which
    /// lags it recovers.
    Compressed,
}

/// The pseudo-inverse of the state map at step `k`.
#[derive(Debug, Clone, PartialEq)]
pub struct Reconstructor {
    k: usize,
    m: usize,
    n: usize,
    /// `A_k⁺`, `kM × 2N`.
    pinv: Array2<f64>,
    /// Singular values of `A_k`, non-increasing.
    singular_values: Array1<f64>,
    rank: usize,
    /// `P_ii` of the projection `A_k⁺ A_k` onto the recoverable inputs.
    projection_diag: Array1<f64>,
}

/// How well one input coordinate is recovered (from [`Reconstructor::recoverable_lags`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LagRecovery {
    /// The lag `τ = k − t` of input `v_t` (0 = the newest input `v_k`).
    pub lag: usize,
    /// The channel `m`.
    pub channel: usize,
    /// `1 − P_ii`: the squared error on this coordinate of the minimum-norm
    /// reconstruction, per unit of input variance, for iid inputs
    /// (`‖(I − P)e_i‖² = 1 − P_ii` for the orthogonal projection `P`).
    pub residual: f64,
    /// Whether `residual ≤ tol`.
    pub recoverable: bool,
}

/// The real `2N × kM` matrix `A_k` of the map `v_{1:k} ↦ [Re x_k; Im x_k]`. O(NkM).
///
/// # Errors
/// [`Error::ZeroWidth`] for `k = 0`; allocation limits.
pub fn state_map(rnn: &DiagLinearRnn, k: usize) -> Result<Array2<f64>> {
    if k == 0 {
        return Err(Error::ZeroWidth { what: "k (steps)" });
    }
    let (n, m) = (rnn.n(), rnn.m());
    let cols = k.checked_mul(m).ok_or(Error::InvalidParameter {
        name: "k·M",
        value: f64::INFINITY,
        expected: "k·M fits in usize",
    })?;
    mlcore::check::alloc_len(&[2, n, cols], 8, "state map")?;
    let bt = rnn.b_effective();
    let mut a = Array2::zeros((2 * n, cols));
    for (i, &l) in rnn.lambda().iter().enumerate() {
        // λ^{k−t} for t = k, k−1, …, 1.
        let mut pw = C64::new(1.0, 0.0);
        for t in (1..=k).rev() {
            for c in 0..m {
                let z = pw * bt[[i, c]];
                a[[i, (t - 1) * m + c]] = z.re;
                a[[n + i, (t - 1) * m + c]] = z.im;
            }
            pw *= l;
        }
    }
    if a.iter().any(|x| !x.is_finite()) {
        return Err(Error::NonFinite {
            what: "state map (|λ|^k overflows)",
        });
    }
    Ok(a)
}

impl Reconstructor {
    /// Fits the pseudo-inverse of the state map at step `k` with the relative
    /// cut-off `rcond` (singular values `σ ≤ rcond·σ₁` are dropped).
    /// O(N·(kM)²) for the SVD of the `2N × kM` map.
    ///
    /// # Errors
    /// [`Error::InvalidRcond`] unless `0 < rcond < 1`; [`Error::ZeroWidth`] for
    /// `k = 0`; in [`Mode::Exact`], [`Error::DuplicateEigenvalues`] (single
    /// channel, rank lost and two equal eigenvalues are the cause) or
    /// [`Error::Underdetermined`] when the numerical rank is below `k·M`;
    /// linear-algebra errors from `mlcore`.
    pub fn fit(rnn: &DiagLinearRnn, k: usize, rcond: f64, mode: Mode) -> Result<Self> {
        if !(rcond.is_finite() && rcond > 0.0 && rcond < 1.0) {
            return Err(Error::InvalidRcond { rcond });
        }
        let a = state_map(rnn, k)?;
        let (n, m) = (rnn.n(), rnn.m());
        let needed = k * m;
        let svd = mlcore::linalg::svd(a.view())?;
        let s1 = svd.s.first().copied().unwrap_or(0.0);
        let rank = svd.s.iter().filter(|&&s| s > rcond * s1 && s > 0.0).count();
        if mode == Mode::Exact && rank < needed {
            if m == 1
                && let Some((i, j)) = duplicate_pair(rnn.lambda())
            {
                return Err(Error::DuplicateEigenvalues { i, j });
            }
            return Err(Error::Underdetermined {
                states: rank,
                needed,
            });
        }
        // A⁺ = V_r diag(1/σ) U_rᵀ.
        let mut vt = svd.vt.slice(ndarray::s![..rank, ..]).to_owned();
        for (r, mut row) in vt.rows_mut().into_iter().enumerate() {
            let w = 1.0 / svd.s[r];
            row.mapv_inplace(|x| x * w);
        }
        let pinv = vt.t().dot(&svd.u.slice(ndarray::s![.., ..rank]).t());
        let projection_diag = Array1::from_shape_fn(needed, |c| {
            (0..rank).map(|r| svd.vt[[r, c]] * svd.vt[[r, c]]).sum()
        });
        Ok(Reconstructor {
            k,
            m,
            n,
            pinv,
            singular_values: svd.s,
            rank,
            projection_diag,
        })
    }

    /// Recovers `v_1 … v_k` (a `k × M` array, row `t−1` = `v_t`) from `x_k`:
    /// `A_k⁺ [Re x_k; Im x_k]`. O(N·k·M).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when `x_k` does not have `N` entries;
    /// [`Error::NonFinite`].
    pub fn reconstruct(&self, x_k: ArrayView1<'_, C64>) -> Result<Array2<f64>> {
        if x_k.len() != self.n {
            return Err(Error::DimensionMismatch {
                what: "state length (N)",
                expected: self.n,
                got: x_k.len(),
            });
        }
        if x_k.iter().any(|z| !z.re.is_finite() || !z.im.is_finite()) {
            return Err(Error::NonFinite { what: "state" });
        }
        let y = Array1::from_shape_fn(2 * self.n, |i| {
            if i < self.n {
                x_k[i].re
            } else {
                x_k[i - self.n].im
            }
        });
        let u = self.pinv.dot(&y);
        Array2::from_shape_vec((self.k, self.m), u.to_vec()).map_err(|_| Error::DimensionMismatch {
            what: "reconstruction",
            expected: self.k * self.m,
            got: u.len(),
        })
    }

    /// Per input coordinate (lag and channel), whether the reconstruction
    /// recovers it: `1 − P_ii ≤ tol` with `P = A_k⁺ A_k`. Sorted by lag, then
    /// channel. O(k·M).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] unless `0 ≤ tol ≤ 1`.
    pub fn recoverable_lags(&self, tol: f64) -> Result<Vec<LagRecovery>> {
        if !(0.0..=1.0).contains(&tol) {
            return Err(Error::InvalidParameter {
                name: "tol",
                value: tol,
                expected: "0 <= tol <= 1",
            });
        }
        let mut out = Vec::with_capacity(self.k * self.m);
        for lag in 0..self.k {
            let t = self.k - lag; // 1-based time of the input
            for channel in 0..self.m {
                let residual = (1.0 - self.projection_diag[(t - 1) * self.m + channel]).max(0.0);
                out.push(LagRecovery {
                    lag,
                    channel,
                    residual,
                    recoverable: residual <= tol,
                });
            }
        }
        Ok(out)
    }

    /// The step `k` this reconstructor inverts.
    pub fn k(&self) -> usize {
        self.k
    }

    /// The numerical rank kept (singular values above `rcond·σ₁`).
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Singular values of the state map, non-increasing.
    pub fn singular_values(&self) -> &Array1<f64> {
        &self.singular_values
    }

    /// `κ₂(A_k) = σ₁/σ_min` over all `min(2N, kM)` singular values (`+∞` if one is 0).
    pub fn condition_number(&self) -> f64 {
        let s = &self.singular_values;
        match (s.first(), s.last()) {
            (Some(&hi), Some(&lo)) if lo > 0.0 => hi / lo,
            _ => f64::INFINITY,
        }
    }
}

/// The first pair of exactly equal eigenvalues, if any. O(N log N).
fn duplicate_pair(lambda: &[C64]) -> Option<(usize, usize)> {
    let mut idx: Vec<usize> = (0..lambda.len()).collect();
    idx.sort_by(|&a, &b| {
        lambda[a]
            .re
            .total_cmp(&lambda[b].re)
            .then(lambda[a].im.total_cmp(&lambda[b].im))
    });
    idx.windows(2)
        .find(|w| lambda[w[0]] == lambda[w[1]])
        .map(|w| (w[0].min(w[1]), w[0].max(w[1])))
}

/// Relative error `‖v̂ − v‖_F / ‖v‖_F` (absolute when `v = 0`).
///
/// # Errors
/// [`Error::DimensionMismatch`] when the shapes differ.
pub fn relative_error(v_hat: &Array2<f64>, v: &Array2<f64>) -> Result<f64> {
    if v_hat.dim() != v.dim() {
        return Err(Error::DimensionMismatch {
            what: "reconstruction entries",
            expected: v.len(),
            got: v_hat.len(),
        });
    }
    let num = (v_hat - v).iter().map(|x| x * x).sum::<f64>().sqrt();
    let den = v.iter().map(|x| x * x).sum::<f64>().sqrt();
    Ok(if den > 0.0 { num / den } else { num })
}
