//! Multiple-response ℓp regression by iteratively reweighted least squares.
//!
//! Minimises the separable objective
//!
//! ```text
//! F(X) = Σᵢ sᵢ Σⱼ |(AX − B)ᵢⱼ|ᵖ = Σⱼ Σᵢ sᵢ |aᵢᵀxⱼ − bᵢⱼ|ᵖ
//! ```
//!
//! over `X ∈ ℝ^{d×m}` (row weights `s ≥ 0`, all 1 by default), one column at
//! a time. Each column starts at the weighted least-squares solution; for
//! `p ≠ 2` each step solves the reweighted least-squares problem with
//! weights `sᵢ cᵢ`, `cᵢ = (rᵢ² + δ²)^{(p−2)/2}`, and then takes an exact line
//! search along the step on the smoothed objective `Σ sᵢ (rᵢ² + δ²)^{p/2}`.
//! The line search makes plain IRLS convergent for `p > 2` (where the full
//! IRLS step overshoots the Newton step by a factor `p − 1`) and speeds it up
//! for `p < 2` (where the full step is a majorise–minimise step). The
//! smoothing `δ = smoothing · maxᵢ |rᵢ⁽⁰⁾|` (relative to the least-squares
//! residual) keeps the weights finite at zero residuals; the reported cost is
//! the unsmoothed `F`.
//!
//! Rank-deficient `A` is handled in an orthonormal basis of its column span;
//! the returned `X` is then one minimiser (the one in the row span of `A`).
//!
//! Columns are independent: with the `parallel` feature (on by default) they
//! are solved on rayon's pool, each by the same sequential arithmetic, so the
//! result is bit-for-bit the same on any number of threads.
//!
//! Cost: O(n d²) once (thin SVD), then O(n r² + n·L) per IRLS iteration and
//! column, where `L` is the number of line-search evaluations (≤ 60).

use crate::checks;
use crate::error::{Error, Result};
use crate::line_search::convex_argmin_newton;
use crate::power::{self, Power};
use mlcore::linalg;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis, s};

/// Options of the IRLS solver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct IrlsOptions {
    /// Iteration cap per column (default 100).
    pub max_iter: usize,
    /// Stop a column when the relative decrease of the smoothed objective in
    /// one iteration is at most `tol` (default `1e-9`).
    pub tol: f64,
    /// Relative smoothing `δ / maxᵢ|rᵢ⁽⁰⁾|` (default `1e-8`).
    pub smoothing: f64,
}

impl Default for IrlsOptions {
    fn default() -> Self {
        IrlsOptions {
            max_iter: 100,
            tol: 1e-9,
            smoothing: 1e-8,
        }
    }
}

impl IrlsOptions {
    /// Validates the options.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `max_iter = 0` or a `tol` or
    /// `smoothing` that is not finite and positive.
    pub fn check(&self) -> Result<()> {
        checks::iteration(self.max_iter, self.tol)?;
        checks::positive(self.smoothing, "smoothing")
    }
}

/// A solution of the multiple-response problem.
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// `X`, `d × m`.
    pub x: Array2<f64>,
    /// `F(X) = Σⱼ costⱼ`.
    pub cost: f64,
    /// `costⱼ = Σᵢ sᵢ |aᵢᵀxⱼ − bᵢⱼ|ᵖ`, one per column.
    pub column_costs: Array1<f64>,
    /// IRLS iterations per column (0 for `p = 2` and exact fits).
    pub iterations: Vec<usize>,
}

/// The checks shared by [`cost`] and [`ln_cost`].
fn check_cost_inputs(
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    x: ArrayView2<'_, f64>,
    p: f64,
    weights: Option<ArrayView1<'_, f64>>,
) -> Result<()> {
    checks::p(p)?;
    checks::pair(a, b)?;
    checks::matrix(x, "X")?;
    if x.dim() != (a.ncols(), b.ncols()) {
        return Err(Error::ShapeMismatch {
            what: "X",
            expected: format!("[{}, {}]", a.ncols(), b.ncols()),
            got: format!("{:?}", x.shape()),
        });
    }
    if let Some(s) = weights {
        checks::weights(s, a.nrows())?;
    }
    Ok(())
}

/// `F(X) = Σᵢ sᵢ Σⱼ |(AX − B)ᵢⱼ|ᵖ`. O(n d m).
///
/// Overflow: the direct sum is used when it is finite; otherwise (residuals
/// near `1e200` at `p = 3`, or `AX` itself overflowing) the residuals and
/// terms are scaled by their largest ([`ln_cost`]), so a finite `F` is
/// returned whenever `F ≤ f64::MAX`. A value below the smallest positive
/// `f64` underflows to 0 (its logarithm is [`ln_cost`]).
///
/// # Errors
/// [`Error::InvalidP`], [`Error::EmptyInput`], [`Error::NonFinite`],
/// [`Error::DimensionMismatch`], [`Error::ShapeMismatch`] when `X` is not
/// `d × m` or the weights are not `n` long, [`Error::InvalidWeights`];
/// [`Error::Overflow`] (with `ln F`) when `F` exceeds `f64::MAX`.
pub fn cost(
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    x: ArrayView2<'_, f64>,
    p: f64,
    weights: Option<ArrayView1<'_, f64>>,
) -> Result<f64> {
    check_cost_inputs(a, b, x, p, weights)?;
    let (r, ln_sigma) = scaled_residuals(a, b, x);
    let n = a.nrows();
    let m = b.ncols();
    let items = r
        .iter()
        .enumerate()
        .map(|(k, &v)| (weights.map_or(1.0, |s| s[k / m]), v));
    debug_assert_eq!(r.len(), n * m);
    if ln_sigma == 0.0 {
        return power::weighted_power_sum(items, p).map_err(|ln_value| Error::Overflow {
            what: "F(X)",
            ln_value,
        });
    }
    let ln_value = p * ln_sigma + power::ln_weighted_power_sum(items, p);
    let value = ln_value.exp();
    if value.is_finite() {
        Ok(value)
    } else {
        Err(Error::Overflow {
            what: "F(X)",
            ln_value,
        })
    }
}

/// `ln F(X)`, with `F` as in [`cost`], computed without overflow or
/// underflow for any finite inputs: `R = AX − B` is formed as `σ R'` with
/// `A`, `X`, `B` each divided by its largest entry (`ln σ` kept apart), and
/// `Σ sᵢ |R'ᵢⱼ|ᵖ` with every term divided by the largest. `−∞` when
/// `F = 0`. O(n d m).
///
/// # Errors
/// As [`cost`], except [`Error::Overflow`].
pub fn ln_cost(
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    x: ArrayView2<'_, f64>,
    p: f64,
    weights: Option<ArrayView1<'_, f64>>,
) -> Result<f64> {
    check_cost_inputs(a, b, x, p, weights)?;
    let (r, ln_sigma) = scaled_residuals(a, b, x);
    let m = b.ncols();
    let items = r
        .iter()
        .enumerate()
        .map(|(k, &v)| (weights.map_or(1.0, |s| s[k / m]), v));
    Ok(p * ln_sigma + power::ln_weighted_power_sum(items, p))
}

/// `(R', ln σ)` with `AX − B = σ R'` and `R'` finite: `σ = 1` when the
/// direct residuals are finite; otherwise `A`, `X`, `B` are divided by
/// their largest absolute entries and `σ = max(‖A‖_max ‖X‖_max, ‖B‖_max)`
/// is kept as a logarithm. Inputs finite (checked by the callers).
pub(crate) fn scaled_residuals(
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    x: ArrayView2<'_, f64>,
) -> (Array2<f64>, f64) {
    let r = a.dot(&x) - b;
    if r.iter().all(|v| v.is_finite()) {
        return (r, 0.0);
    }
    let max = |m: ArrayView2<'_, f64>| m.iter().fold(0.0f64, |acc, v| acc.max(v.abs()));
    let (sa, sx, sb) = (max(a), max(x), max(b));
    // AX overflowed, so sa and sx are positive.
    let l_ax = sa.ln() + sx.ln();
    let l_b = if sb > 0.0 { sb.ln() } else { f64::NEG_INFINITY };
    let l = l_ax.max(l_b);
    let a1 = a.mapv(|v| v / sa);
    let x1 = x.mapv(|v| v / sx);
    let mut r = a1.dot(&x1) * (l_ax - l).exp();
    if sb > 0.0 {
        let fb = (l_b - l).exp();
        r.zip_mut_with(&b, |ri, bi| *ri -= (bi / sb) * fb);
    }
    (r, l)
}

/// Each row's share `ρᵢ / Σₗ ρₗ` of `ρᵢ = Σⱼ |(AX − B)ᵢⱼ|ᵖ` (no checks; all
/// zero when `AX = B`). Scaled by the largest residual, so it is finite for
/// any finite inputs and any `p` (no `∞/∞`).
pub(crate) fn row_cost_shares(
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    x: ArrayView2<'_, f64>,
    p: f64,
) -> Array1<f64> {
    let (r, _) = scaled_residuals(a, b, x);
    let top = r.iter().fold(0.0f64, |acc, v| acc.max(v.abs()));
    if top == 0.0 {
        return Array1::zeros(a.nrows());
    }
    let pw = Power::new(p);
    let rho: Array1<f64> = r
        .axis_iter(Axis(0))
        .map(|row| row.iter().map(|v| pw.apply(v.abs() / top)).sum())
        .collect();
    let total: f64 = rho.sum();
    rho / total
}

/// Minimises `F(X) = Σᵢ sᵢ Σⱼ |(AX − B)ᵢⱼ|ᵖ` column by column (see the
/// module docs for the method).
///
/// # Errors
/// [`Error::InvalidP`], [`Error::EmptyInput`], [`Error::NonFinite`] (row and
/// column), [`Error::DimensionMismatch`], [`Error::ShapeMismatch`] and
/// [`Error::InvalidWeights`] for the weights, [`Error::ZeroMatrix`] when `A`
/// (restricted to rows of positive weight) is zero, [`Error::InvalidParameter`]
/// for bad options, [`Error::NotConverged`] when a column reaches
/// `max_iter` (the residual is its last relative decrease), and
/// [`Error::Overflow`] when an entry of the minimiser `X` exceeds `f64::MAX`.
///
/// Overflow: `B` is divided by a power of two near its largest entry before
/// the iteration (exact), so residuals near `1e200` at `p = 3` do not
/// overflow the IRLS weights. `Solution::cost` and `column_costs` are
/// `+∞` only when the value exceeds `f64::MAX` (then [`ln_cost`] at
/// `Solution::x` gives its logarithm).
pub fn solve(
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    p: f64,
    weights: Option<ArrayView1<'_, f64>>,
    opts: &IrlsOptions,
) -> Result<Solution> {
    checks::p(p)?;
    checks::pair(a, b)?;
    if let Some(s) = weights {
        checks::weights(s, a.nrows())?;
    }
    opts.check()?;
    let s: Vec<f64> = match weights {
        Some(s) => s.to_vec(),
        None => vec![1.0; a.nrows()],
    };
    let (sol, converged) = solve_unchecked(a, b, p, &s, opts)?;
    if let Some((iterations, residual)) = converged {
        return Err(Error::NotConverged {
            algorithm: "IRLS",
            iterations,
            residual,
        });
    }
    Ok(sol)
}

/// The solver without checks. The second value is `Some((iterations,
/// last relative decrease))` for the first column that hit the cap.
#[allow(clippy::type_complexity)]
pub(crate) fn solve_unchecked(
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    p: f64,
    s: &[f64],
    opts: &IrlsOptions,
) -> Result<(Solution, Option<(usize, f64)>)> {
    // Solve for B/β, β a power of two near max|B| (exact scaling): the
    // IRLS weights (r² + δ²)^{p/2−1} and the costs stay finite for any
    // finite B; X = β X', F = βᵖ F'.
    let top = b.iter().fold(0.0f64, |acc, v| acc.max(v.abs()));
    let beta = if top > 0.0 {
        2f64.powi(top.log2().floor() as i32)
    } else {
        1.0
    };
    let b_scaled = b.mapv(|v| v / beta);
    let b = b_scaled.view();
    let keep: Vec<usize> = (0..a.nrows()).filter(|&i| s[i] > 0.0).collect();
    let sub = a.select(Axis(0), &keep);
    if sub.iter().all(|&v| v == 0.0) {
        return Err(Error::ZeroMatrix { what: "A" });
    }
    let f = linalg::svd(sub.view())?;
    let r = f.rank();
    let q = f.u.slice(s![.., ..r]).to_owned();
    // x = V_r Σ_r⁻¹ y.
    let mut back = f.vt.slice(s![..r, ..]).t().to_owned();
    for (mut col, &sig) in back.axis_iter_mut(Axis(1)).zip(f.s.iter()) {
        col.mapv_inplace(|v| v / sig);
    }
    let sw: Vec<f64> = keep.iter().map(|&i| s[i]).collect();
    let m = b.ncols();
    let column = |j: usize| -> Result<(Array1<f64>, usize, Option<f64>)> {
        let bj: Array1<f64> = keep.iter().map(|&i| b[[i, j]]).collect();
        solve_column(&q, bj.view(), &sw, p, opts)
    };
    #[cfg(feature = "parallel")]
    let columns: Vec<_> = {
        use rayon::prelude::*;
        (0..m).into_par_iter().map(column).collect()
    };
    #[cfg(not(feature = "parallel"))]
    let columns: Vec<_> = (0..m).map(column).collect();
    let mut x = Array2::zeros((a.ncols(), m));
    let mut iterations = vec![0; m];
    let mut failed = None;
    for (j, col) in columns.into_iter().enumerate() {
        let (y, it, conv) = col?;
        x.column_mut(j).assign(&back.dot(&y));
        iterations[j] = it;
        if failed.is_none()
            && let Some(res) = conv
        {
            failed = Some((it, res));
        }
    }
    // |AX − B|ᵖ once, then row sums (F) and weighted column sums.
    let pw = Power::new(p);
    let powers = (a.dot(&x) - b).mapv_into(|v| pw.apply(v.abs()));
    let rc = powers.sum_axis(Axis(1));
    let column_costs: Array1<f64> = powers
        .axis_iter(Axis(1))
        .map(|c| c.iter().zip(s).map(|(v, w)| w * v).sum())
        .collect();
    let cost: f64 = rc.iter().zip(s).map(|(c, w)| c * w).sum();
    let scale_p = pw.apply(beta);
    let x_top = x.iter().fold(0.0f64, |acc, v| acc.max(v.abs()));
    if !(x_top * beta).is_finite() {
        return Err(Error::Overflow {
            what: "X",
            ln_value: x_top.ln() + beta.ln(),
        });
    }
    let (x, cost, column_costs) = if beta == 1.0 {
        (x, cost, column_costs)
    } else {
        (x * beta, cost * scale_p, column_costs * scale_p)
    };
    Ok((
        Solution {
            x,
            cost,
            column_costs,
            iterations,
        },
        failed,
    ))
}

/// Weighted least-squares step: `argmin_Δ Σ Dᵢ (qᵢᵀΔ + rᵢ)²`, i.e.
/// `Δ = −(QᵀDQ)⁻¹ QᵀD r`, by Cholesky with a least-squares fallback.
fn wls_step(q: &Array2<f64>, d: &[f64], r: &[f64]) -> Result<Array1<f64>> {
    let sd: Array1<f64> = d.iter().map(|di| di.sqrt()).collect();
    let scaled = q * &sd.view().insert_axis(Axis(1));
    let rhs: Array1<f64> = r.iter().zip(&sd).map(|(ri, si)| -ri * si).collect();
    let gram = scaled.t().dot(&scaled);
    let g = scaled.t().dot(&rhs);
    match linalg::solve_spd(gram.view(), g.view()) {
        Ok(step) if step.iter().all(|v| v.is_finite()) => Ok(step),
        _ => Ok(linalg::lstsq(scaled.view(), rhs.view())?.x),
    }
}

/// One column: returns `y`, the iterations, and `Some(last decrease)` if the cap was hit.
fn solve_column(
    q: &Array2<f64>,
    b: ArrayView1<'_, f64>,
    s: &[f64],
    p: f64,
    opts: &IrlsOptions,
) -> Result<(Array1<f64>, usize, Option<f64>)> {
    let r0: Vec<f64> = b.iter().map(|v| -v).collect();
    let mut y = wls_step(q, s, &r0)?;
    let mut r: Vec<f64> = (q.dot(&y) - b).to_vec();
    let scale = r.iter().fold(0.0f64, |acc, v| acc.max(v.abs()));
    if p == 2.0 || scale == 0.0 {
        return Ok((y, 0, None));
    }
    let delta2 = (opts.smoothing * scale).powi(2);
    let weight_power = Power::new(p / 2.0 - 1.0);
    // IRLS weights cᵢ = sᵢ (rᵢ² + δ²)^{p/2−1} and the smoothed objective
    // φ = Σ (rᵢ² + δ²) cᵢ, from one power per row.
    let weights_and_objective = |r: &[f64]| -> (Vec<f64>, f64) {
        let mut phi = 0.0;
        let c = r
            .iter()
            .zip(s)
            .map(|(v, w)| {
                let q = v * v + delta2;
                let c = w * weight_power.apply(q);
                phi += q * c;
                c
            })
            .collect();
        (c, phi)
    };
    let (mut c, mut phi) = weights_and_objective(&r);
    let mut last = f64::INFINITY;
    for it in 1..=opts.max_iter {
        let step = wls_step(q, &c, &r)?;
        let u = q.dot(&step).to_vec();
        let t = line_search(&r, &u, s, p, delta2, weight_power);
        if t > 0.0 {
            y.scaled_add(t, &step);
            for (ri, ui) in r.iter_mut().zip(&u) {
                *ri += t * ui;
            }
        }
        let (new_c, new_phi) = weights_and_objective(&r);
        last = (phi - new_phi) / phi;
        c = new_c;
        phi = new_phi;
        if last <= opts.tol || phi == 0.0 {
            return Ok((y, it, None));
        }
    }
    Ok((y, opts.max_iter, Some(last)))
}

/// Minimiser `t ≥ 0` of the convex `φ(t) = Σ sᵢ ((rᵢ + t uᵢ)² + δ²)^{p/2}`,
/// by safeguarded Newton steps from `t = 1/(p − 1)`: the IRLS direction is
/// `(p − 1)` times the Newton direction of the smoothed objective, so near
/// the solution that is where the minimiser lies. One power per row and
/// evaluation: with `c = (v² + δ²)^{p/2−1}`, `v = rᵢ + t uᵢ`,
/// `φ'/p = Σ sᵢ c v uᵢ` and `φ''/p = Σ sᵢ c uᵢ² (1 + (p − 2) v²/(v² + δ²))`.
fn line_search(r: &[f64], u: &[f64], s: &[f64], p: f64, delta2: f64, weight_power: Power) -> f64 {
    let d12 = |t: f64| -> (f64, f64) {
        let (mut g, mut h) = (0.0, 0.0);
        for ((ri, ui), w) in r.iter().zip(u).zip(s) {
            let v = ri + t * ui;
            let q = v * v + delta2;
            let c = w * weight_power.apply(q);
            g += c * v * ui;
            h += c * ui * ui * (1.0 + (p - 2.0) * v * v / q);
        }
        (g, h)
    };
    convex_argmin_newton(d12, 1.0 / (p - 1.0).max(0.05))
}
