//! Schatten-p tools: the quasi-norm, balanced factorisations, the variational
//! identity, effective rank, and soft-impute (the convex `L = 2` reference).
//!
//! The identity behind the paper (its equivalence "Schatten-p quasi-norm
//! constraint ⇔ deep matrix factorisation with Frobenius constraints"): for
//! depth `L ≥ 1` and `Z` with singular values `σ`,
//!
//! `min_{Z = A₁A₂⋯A_L} (1/L) Σ_l ‖A_l‖_F² = Σₖ σₖ^{2/L} = ‖Z‖_{S_{2/L}}^{2/L}`,
//!
//! reached by the balanced factorisation `A₁ = UΣ^{1/L}`, `A_l = Σ^{1/L}`,
//! `A_L = Σ^{1/L}Vᵀ`. The weighted analogue (reconstructed) penalises
//! `‖D_r^{1/2}A₁‖_F²` and `‖A_L D_c^{1/2}‖_F²` instead, and its minimum is
//! `‖D_r^{1/2} Z D_c^{1/2}‖_{S_{2/L}}^{2/L}` (substitute `B₁ = D_r^{1/2}A₁`,
//! `B_L = A_L D_c^{1/2}`).

use crate::data::Observations;
use crate::error::{Error, Result, check_finite_matrix, check_lambda, check_p};
use mlcore::linalg::svd;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis};

/// The power of two nearest above `max |zᵢⱼ|` (1 for the zero matrix): an
/// exact scale to divide out before an SVD or a sum of squares, so that
/// extreme but finite entries (|z| near 1e200 or 1e308) never overflow.
fn pow2_scale(z: &ArrayView2<'_, f64>) -> f64 {
    let m = crate::error::max_abs(z.iter());
    if m == 0.0 {
        1.0
    } else {
        // 2^⌈log2 m⌉, clamped to the finite powers of two.
        let e = m.log2().ceil().clamp(-1022.0, 1023.0);
        2f64.powi(e as i32)
    }
}

/// Singular values of `z / c` above the numerical-rank tolerance, with the
/// exact power-of-two scale `c` ([`pow2_scale`]).
fn scaled_singular_values(z: &ArrayView2<'_, f64>) -> Result<(f64, Vec<f64>)> {
    let c = pow2_scale(z);
    let zs = z.mapv(|v| v / c);
    let s = svd(zs.view())?.s;
    let tol = s.first().copied().unwrap_or(0.0) * (z.nrows().max(z.ncols()) as f64) * f64::EPSILON;
    Ok((c, s.iter().copied().filter(|&x| x > tol).collect()))
}

/// `Σₖ σₖ(Z)^p`, the p-th power of the Schatten quasi-norm. One thin SVD,
/// O(m n min(m, n)).
///
/// Singular values below the numerical-rank tolerance `σ₁·max(m, n)·ε`
/// (numpy's `matrix_rank` default) count as zero: they are round-off of the
/// SVD, and for `p < 1` their `σ^p` (≈ 1e-8 for σ ≈ 1e-16, p = 1/2) would
/// otherwise pollute the sum.
///
/// Scaled first: the SVD runs on `Z / c` (`c` the power of two above
/// `max |Zᵢⱼ|`, exact) and the sum is `c^p Σₖ (σₖ/c)^p`, so entries near
/// 1e200 or 1e308 neither overflow the SVD nor the powers. The result is
/// `+∞` only when the true value exceeds `f64::MAX` (e.g. `p = 2` with
/// `σ₁ = 1e200`); [`quasi_norm`] and [`effective_rank`] stay finite there.
///
/// # Errors
/// [`Error::InvalidSchattenP`] unless `p > 0` is finite; [`Error::EmptyObservations`]
/// / [`Error::NonFiniteValue`] for an empty or non-finite `z`.
pub fn schatten_pow(z: ArrayView2<'_, f64>, p: f64) -> Result<f64> {
    check_p(p)?;
    check_finite_matrix(&z, "z")?;
    let (c, s) = scaled_singular_values(&z)?;
    Ok(c.powf(p) * s.iter().map(|&x| x.powf(p)).sum::<f64>())
}

/// The Schatten quasi-norm `‖Z‖_{S_p} = (Σₖ σₖ^p)^{1/p}` (a norm for `p ≥ 1`,
/// the nuclear norm at `p = 1`). O(m n min(m, n)).
///
/// Scaled first (`c·(Σₖ (σₖ/c)^p)^{1/p}`, see [`schatten_pow`]): finite
/// whenever the true value is (up to the last rounding: a true value within
/// a few ulps of `f64::MAX` may round to `+∞`).
///
/// # Errors
/// As [`schatten_pow`].
pub fn quasi_norm(z: ArrayView2<'_, f64>, p: f64) -> Result<f64> {
    check_p(p)?;
    check_finite_matrix(&z, "z")?;
    let (c, s) = scaled_singular_values(&z)?;
    Ok(c * s.iter().map(|&x| x.powf(p)).sum::<f64>().powf(1.0 / p))
}

/// Effective rank `r_eff(Z, p) = (‖Z‖_{S_p}^p / ‖Z‖_F^p)^{2/(2−p)}`, equal to
/// `r` for an isotropic rank-`r` matrix (all non-zero σ equal), and at most
/// `rank Z` in general (for `0 < p < 2`). O(m n min(m, n)).
///
/// Scale-invariant, so computed on `Z / c` (see [`schatten_pow`]): finite
/// for any finite `Z`.
///
/// # Errors
/// As [`schatten_pow`], and [`Error::InvalidSchattenP`] for `p ≥ 2`;
/// [`Error::InvalidParameter`] for the zero matrix.
pub fn effective_rank(z: ArrayView2<'_, f64>, p: f64) -> Result<f64> {
    if !(p.is_finite() && p > 0.0 && p < 2.0) {
        return Err(Error::InvalidSchattenP { p });
    }
    check_finite_matrix(&z, "z")?;
    let c = pow2_scale(&z);
    let fro2: f64 = z.iter().map(|v| (v / c) * (v / c)).sum();
    if fro2 == 0.0 {
        return Err(Error::InvalidParameter {
            name: "‖Z‖_F",
            value: 0.0,
            expected: "a non-zero matrix",
        });
    }
    let (c2, s) = scaled_singular_values(&z)?;
    debug_assert_eq!(c, c2);
    let sp: f64 = s.iter().map(|&x| x.powf(p)).sum();
    let ratio = sp / fro2.powf(p / 2.0);
    Ok(ratio.powf(2.0 / (2.0 - p)))
}

fn check_depth(depth: usize) -> Result<()> {
    if depth == 0 {
        Err(Error::InvalidDepth { depth })
    } else {
        Ok(())
    }
}

/// The balanced factorisation of `Z = U Σ Vᵀ` (thin SVD, rank `k = min(m, n)`)
/// at depth `L`: `A₁ = UΣ^{1/L}` (m×k), `A_l = Σ^{1/L}` (k×k), `A_L = Σ^{1/L}Vᵀ` (k×n);
/// at `L = 1` the single factor is `Z`. It attains the minimum of the
/// variational identity. Singular values below the numerical-rank tolerance
/// are set to zero, as in [`schatten_pow`]. O(m n min(m, n) + L k²).
///
/// # Errors
/// [`Error::InvalidDepth`] for `L = 0`; empty or non-finite `z`;
/// [`Error::TooLarge`] when the `L − 2` middle `k × k` factors would exceed
/// [`mlcore::check::MAX_ALLOC_BYTES`].
pub fn balanced_factors(z: ArrayView2<'_, f64>, depth: usize) -> Result<Vec<Array2<f64>>> {
    check_depth(depth)?;
    check_finite_matrix(&z, "z")?;
    let k = z.nrows().min(z.ncols());
    crate::error::check_alloc(
        &[depth.saturating_sub(2), k, k],
        "middle factors (L − 2) × k × k",
    )?;
    if depth == 1 {
        return Ok(vec![z.to_owned()]);
    }
    // Scaled first (as schatten_pow): σₖ^{1/L} = c^{1/L}·(σₖ/c)^{1/L}.
    let c = pow2_scale(&z);
    let f = svd(z.mapv(|v| v / c).view())?;
    let tol =
        f.s.first().copied().unwrap_or(0.0) * (z.nrows().max(z.ncols()) as f64) * f64::EPSILON;
    let croot = c.powf(1.0 / depth as f64);
    let root = f.s.mapv(|s| {
        if s > tol {
            croot * s.powf(1.0 / depth as f64)
        } else {
            0.0
        }
    });
    let mut a1 = f.u.clone();
    a1 *= &root.view().insert_axis(Axis(0));
    let mut al = f.vt.clone();
    al *= &root.view().insert_axis(Axis(1));
    let mut out = vec![a1];
    for _ in 1..depth - 1 {
        out.push(Array2::from_diag(&root));
    }
    out.push(al);
    Ok(out)
}

fn check_chain(factors: &[Array2<f64>]) -> Result<()> {
    if factors.is_empty() {
        return Err(Error::InvalidDepth { depth: 0 });
    }
    for w in factors.windows(2) {
        if w[0].ncols() != w[1].nrows() {
            return Err(Error::ShapeMismatch {
                what: "factors",
                expected: format!("a chain (next factor with {} rows)", w[0].ncols()),
                got: format!("{:?} then {:?}", w[0].dim(), w[1].dim()),
            });
        }
    }
    for a in factors {
        check_finite_matrix(&a.view(), "factor")?;
    }
    Ok(())
}

/// The product `A₁A₂⋯A_L`. O(Σ dims).
///
/// # Errors
/// [`Error::InvalidDepth`] for no factor, [`Error::ShapeMismatch`] when they
/// do not chain, non-finite entries.
pub fn product(factors: &[Array2<f64>]) -> Result<Array2<f64>> {
    check_chain(factors)?;
    let mut z = factors[0].clone();
    for a in &factors[1..] {
        z = z.dot(a);
    }
    Ok(z)
}

/// The variational value `(1/L) Σ_l ‖A_l‖_F²` of a factorisation (≥
/// `‖A₁⋯A_L‖_{S_{2/L}}^{2/L}`, with equality at the balanced one). O(Σ sizes).
///
/// A sum of squares: `+∞` when the true value exceeds `f64::MAX` (entries
/// above about 1e154), which no scaling can avoid.
///
/// # Errors
/// As [`product`].
pub fn variational_value(factors: &[Array2<f64>]) -> Result<f64> {
    check_chain(factors)?;
    let l = factors.len() as f64;
    Ok(factors
        .iter()
        .map(|a| a.iter().map(|v| v * v).sum::<f64>())
        .sum::<f64>()
        / l)
}

fn check_weights(w: ArrayView1<'_, f64>, len: usize, what: &'static str) -> Result<()> {
    if w.len() != len {
        return Err(Error::ShapeMismatch {
            what,
            expected: format!("length {len}"),
            got: format!("length {}", w.len()),
        });
    }
    if let Some(&v) = w.iter().find(|v| !(v.is_finite() && **v > 0.0)) {
        return Err(Error::InvalidParameter {
            name: what,
            value: v,
            expected: "every weight finite and > 0",
        });
    }
    Ok(())
}

/// The weighted variational value `(1/L)(‖D_r^{1/2}A₁‖_F² + Σ_{1<l<L} ‖A_l‖_F² +
/// ‖A_L D_c^{1/2}‖_F²)` for diagonal weights `d_r` (length m) and `d_c`
/// (length n); at `L = 1`, `‖D_r^{1/2} A₁ D_c^{1/2}‖_F²`. Its minimum over
/// factorisations of `Z` is `‖D_r^{1/2} Z D_c^{1/2}‖_{S_{2/L}}^{2/L}`.
///
/// # Errors
/// As [`product`], and [`Error::ShapeMismatch`] / [`Error::InvalidParameter`]
/// for weights of the wrong length or not positive.
pub fn weighted_variational_value(
    factors: &[Array2<f64>],
    d_r: ArrayView1<'_, f64>,
    d_c: ArrayView1<'_, f64>,
) -> Result<f64> {
    check_chain(factors)?;
    let l = factors.len();
    check_weights(d_r, factors[0].nrows(), "d_r")?;
    check_weights(d_c, factors[l - 1].ncols(), "d_c")?;
    let mut total = 0.0;
    for (t, a) in factors.iter().enumerate() {
        for ((i, j), &v) in a.indexed_iter() {
            let mut w = 1.0;
            if t == 0 {
                w *= d_r[i];
            }
            if t == l - 1 {
                w *= d_c[j];
            }
            total += w * v * v;
        }
    }
    Ok(total / l as f64)
}

/// The weighted balanced factorisation: the balanced factors `B_l` of
/// `W = D_r^{1/2} Z D_c^{1/2}`, with `A₁ = D_r^{−1/2}B₁` and `A_L = B_L D_c^{−1/2}`
/// (at `L = 1`, `Z` itself). It attains `‖W‖_{S_{2/L}}^{2/L}` in
/// [`weighted_variational_value`]. O(m n min(m, n)).
///
/// # Errors
/// As [`balanced_factors`] and the weight checks of [`weighted_variational_value`].
pub fn weighted_balanced_factors(
    z: ArrayView2<'_, f64>,
    d_r: ArrayView1<'_, f64>,
    d_c: ArrayView1<'_, f64>,
    depth: usize,
) -> Result<Vec<Array2<f64>>> {
    check_depth(depth)?;
    check_finite_matrix(&z, "z")?;
    check_weights(d_r, z.nrows(), "d_r")?;
    check_weights(d_c, z.ncols(), "d_c")?;
    let sr = d_r.mapv(f64::sqrt);
    let sc = d_c.mapv(f64::sqrt);
    let w = weight_matrix(z, sr.view(), sc.view());
    let mut f = balanced_factors(w.view(), depth)?;
    let l = f.len();
    f[0] /= &sr.view().insert_axis(Axis(1));
    f[l - 1] /= &sc.view().insert_axis(Axis(0));
    Ok(f)
}

/// `diag(a) Z diag(b)`.
pub(crate) fn weight_matrix(
    z: ArrayView2<'_, f64>,
    a: ArrayView1<'_, f64>,
    b: ArrayView1<'_, f64>,
) -> Array2<f64> {
    let mut w = z.to_owned();
    w *= &a.insert_axis(Axis(1));
    w *= &b.insert_axis(Axis(0));
    w
}

/// Options of [`soft_impute`].
#[derive(Debug, Clone, PartialEq)]
pub struct SoftImputeOptions {
    /// Iteration cap (default 1000).
    pub max_iters: usize,
    /// Stop when `‖Z_{t+1} − Z_t‖_F² / ‖Z_t‖_F² < tol` (fancyimpute's rule; default 1e-9).
    pub tol: f64,
    /// Keep at most this many singular values after shrinking (default: no cap).
    pub max_rank: Option<usize>,
}

impl Default for SoftImputeOptions {
    fn default() -> Self {
        SoftImputeOptions {
            max_iters: 1000,
            tol: 1e-9,
            max_rank: None,
        }
    }
}

/// The result of [`soft_impute`].
#[derive(Debug, Clone, PartialEq)]
pub struct SoftImputeResult {
    /// The completed matrix `Z` (m×n, dense).
    pub z: Array2<f64>,
    /// Its objective `½‖P_Ω(Y − Z)‖² + λ‖Z‖_*`.
    pub objective: f64,
    /// Its rank (number of singular values kept at the last step).
    pub rank: usize,
    /// Iterations run.
    pub iterations: usize,
    /// Whether the tolerance was reached before the cap.
    pub converged: bool,
}

/// Soft-impute (Mazumder, Hastie & Tibshirani 2010): the convex `L = 2`
/// reference, minimising `½‖P_Ω(Y − Z)‖_F² + λ‖Z‖_*` by
/// `Z ← S_λ(P_Ω(Y) + P_Ω⊥(Z))`, with `S_λ` soft-thresholding of the singular
/// values, from `Z = 0` (fancyimpute's `init_fill_method="zero"`).
///
/// Relation to the deep model: [`crate::train`]'s objective
/// `(1/2N) Σ_Ω r² + λ_d Σ_l ‖A_l‖_F²` at `L = 2` has the same minimiser as
/// this one with `λ = 2 N λ_d`, and `N ×` its minimum equals this minimum.
///
/// Cost per iteration: one dense thin SVD, O(m n min(m, n)) (dense; meant as
/// a reference for small and medium matrices).
///
/// # Errors
/// [`Error::InvalidLambda`]; [`Error::InvalidParameter`] for `max_iters = 0`,
/// a non-positive `tol` or `max_rank = 0`; [`Error::TooLarge`] when the two
/// dense `m × n` iterates would exceed [`mlcore::check::MAX_ALLOC_BYTES`];
/// SVD failure (observed values whose singular values exceed `f64::MAX`:
/// `Error::Core(Overflow)`).
pub fn soft_impute(
    obs: &Observations,
    lambda: f64,
    opts: &SoftImputeOptions,
) -> Result<SoftImputeResult> {
    check_lambda(lambda)?;
    mlcore::check::at_least(opts.max_iters, 1, "max_iters", ">= 1")?;
    mlcore::check::positive(opts.tol, "tol")?;
    if opts.max_rank == Some(0) {
        return Err(Error::InvalidParameter {
            name: "max_rank",
            value: 0.0,
            expected: ">= 1",
        });
    }
    let (m, n) = (obs.rows(), obs.cols());
    crate::error::check_alloc(&[m, n, 2], "soft-impute's dense iterates (2 × m × n)")?;
    let mut z = Array2::<f64>::zeros((m, n));
    let mut x = Array2::<f64>::zeros((m, n));
    let mut rank = 0;
    let mut iterations = 0;
    let mut converged = false;
    let mut nuclear = 0.0;
    for it in 0..opts.max_iters {
        iterations = it + 1;
        x.assign(&z);
        for (i, j, y) in obs.iter() {
            x[[i, j]] = y;
        }
        let f = svd(x.view())?;
        let mut s: Array1<f64> = f.s.mapv(|v| (v - lambda).max(0.0));
        if let Some(r) = opts.max_rank {
            s.iter_mut().skip(r).for_each(|v| *v = 0.0);
        }
        rank = s.iter().filter(|&&v| v > 0.0).count();
        nuclear = s.sum();
        let k = rank.max(1);
        let us = &f.u.slice(ndarray::s![.., ..k]) * &s.slice(ndarray::s![..k]).insert_axis(Axis(0));
        let z_new = us.dot(&f.vt.slice(ndarray::s![..k, ..]));
        let diff: f64 = z_new
            .iter()
            .zip(z.iter())
            .map(|(a, b)| (a - b) * (a - b))
            .sum();
        let old: f64 = z.iter().map(|v| v * v).sum();
        z = z_new;
        if old > 0.0 && diff / old < opts.tol {
            converged = true;
            break;
        }
        if old == 0.0 && diff == 0.0 {
            converged = true;
            break;
        }
    }
    let fit: f64 = obs
        .iter()
        .map(|(i, j, y)| (y - z[[i, j]]).powi(2))
        .sum::<f64>()
        * 0.5;
    Ok(SoftImputeResult {
        objective: fit + lambda * nuclear,
        z,
        rank,
        iterations,
        converged,
    })
}

/// `½‖P_Ω(Y − Z)‖_F² + λ‖Z‖_*` of a dense `Z` (one SVD).
///
/// # Errors
/// [`Error::ShapeMismatch`] when `Z` is not `rows × cols`; as [`schatten_pow`].
pub fn soft_impute_objective(
    obs: &Observations,
    z: ArrayView2<'_, f64>,
    lambda: f64,
) -> Result<f64> {
    check_lambda(lambda)?;
    if z.dim() != (obs.rows(), obs.cols()) {
        return Err(Error::ShapeMismatch {
            what: "z",
            expected: format!("({}, {})", obs.rows(), obs.cols()),
            got: format!("{:?}", z.dim()),
        });
    }
    let fit: f64 = obs
        .iter()
        .map(|(i, j, y)| (y - z[[i, j]]).powi(2))
        .sum::<f64>()
        * 0.5;
    Ok(fit + lambda * schatten_pow(z, 1.0)?)
}
