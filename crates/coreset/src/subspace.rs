//! ℓp subspace approximation, and row subsets that span a good subspace.
//!
//! For points `a₁, …, aₙ ∈ ℝᵈ` (the rows of `A`), a `k`-dimensional subspace
//! `V` through the origin costs
//!
//! ```text
//! cost_p(V) = Σᵢ wᵢ dist(aᵢ, V)ᵖ = Σᵢ wᵢ ‖aᵢ − V Vᵀ aᵢ‖₂ᵖ   (V orthonormal, d × k).
//! ```
//!
//! The paper's second application: for `1 < p < 2` every matrix has Õ(k/ε)
//! rows whose span contains a `k`-dimensional subspace with cost at most
//! `(1 + ε)` times the optimum. The paper proves existence; this module
//! gives a working construction and a checker, both **reconstructed**:
//!
//! - [`fit_subspace`] minimises `cost_p` for `1 ≤ p ≤ 2` by iteratively
//!   reweighted PCA: with `cᵢ = wᵢ (dist(aᵢ, V)² + δ²)^{(p−2)/2}`, the next
//!   `V` spans the top `k` eigenvectors of `Σ cᵢ aᵢ aᵢᵀ`. Because
//!   `t ↦ (t + δ²)^{p/2}` is concave for `p ≤ 2`, each step minimises a
//!   majoriser of the smoothed cost, so the cost never increases. The
//!   problem is not convex (and NP-hard in general for `p ≠ 2`), so the
//!   result is a local optimum started at the `p = 2` solution (the SVD);
//!   it is never worse than the SVD subspace.
//! - [`row_subset`] selects rows by adaptive sampling (Deshpande and
//!   Varadarajan, "Sampling-based dimension reduction for subspace
//!   approximation", STOC 2007): in each round, draw `k` rows with
//!   probability proportional to `dist(aᵢ, span S)ᵖ` and add them to `S`;
//!   after `⌈c · k / ε⌉` rows, fit the best subspace inside `span S`.
//! - [`check_row_subset`] compares the subset's cost with [`fit_subspace`]
//!   on all rows (and with the SVD subspace), the empirical form of the
//!   `(1 + ε)` claim.

use crate::checks;
use crate::error::{Error, Result};
use mlcore::linalg;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis, CowArray, Ix2, s};
use rand::{Rng, RngExt};

/// Options of [`fit_subspace`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubspaceOptions {
    /// Iteration cap (default 300).
    pub max_iter: usize,
    /// Stop when one iteration lowers the smoothed cost by at most `tol`
    /// relatively (default `1e-10`).
    pub tol: f64,
    /// Smoothing `δ` relative to the root-mean-square norm of the rows
    /// (default `1e-9`).
    pub smoothing: f64,
}

impl Default for SubspaceOptions {
    fn default() -> Self {
        SubspaceOptions {
            max_iter: 300,
            tol: 1e-10,
            smoothing: 1e-9,
        }
    }
}

impl SubspaceOptions {
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

/// A fitted subspace.
#[derive(Debug, Clone, PartialEq)]
pub struct Subspace {
    /// Orthonormal basis `V`, `d × k'` with `k' = min(k, rank)`.
    pub basis: Array2<f64>,
    /// `cost_p(V)` (unsmoothed, with the row weights).
    pub cost: f64,
    /// Reweighting iterations run (0 at `p = 2`).
    pub iterations: usize,
}

fn check_p_range(p: f64) -> Result<()> {
    checks::p(p)?;
    if p > 2.0 {
        return Err(Error::InvalidParameter {
            name: "p",
            value: p,
            expected: "1 <= p <= 2 (the reweighting is a majorise-minimise step only there)",
        });
    }
    Ok(())
}

fn check_k(k: usize, points: ArrayView2<'_, f64>) -> Result<()> {
    if k == 0 || k > points.ncols() {
        return Err(Error::InvalidParameter {
            name: "k",
            value: k as f64,
            expected: "1 <= k <= d (the number of columns)",
        });
    }
    Ok(())
}

/// Squared distances `‖aᵢ − V Vᵀ aᵢ‖²` of the rows to the span of the
/// orthonormal columns of `v`. O(n d k).
fn squared_distances(points: ArrayView2<'_, f64>, v: &Array2<f64>) -> Array1<f64> {
    let proj = points.dot(v).dot(&v.t());
    (&points - &proj)
        .axis_iter(Axis(0))
        .map(|r| r.dot(&r))
        .collect()
}

fn cost_from_sq(d2: &Array1<f64>, w: &Array1<f64>, p: f64) -> f64 {
    d2.iter().zip(w).map(|(d, wi)| wi * d.powf(p / 2.0)).sum()
}

/// `(A / σ, σ)` with `σ` the power of two at or below `max |aᵢⱼ|` when
/// that maximum lies outside `[2⁻⁴⁰⁰, 2⁴⁰⁰]` (squared norms of rows with
/// entries near `1e155` would overflow, entries near `1e-160` underflow),
/// else `(A, 1)`. Dividing by a power of two is exact, and subspaces are
/// scale-invariant (`cost_p(V; A) = σᵖ cost_p(V; A/σ)`), so nothing else
/// changes. Inputs finite (checked by the callers).
fn scaled_points(points: ArrayView2<'_, f64>) -> (CowArray<'_, f64, Ix2>, f64) {
    let limit = 2f64.powi(400);
    let max = points.iter().fold(0.0f64, |acc, v| acc.max(v.abs()));
    if max == 0.0 || (max <= limit && max >= 1.0 / limit) {
        return (CowArray::from(points), 1.0);
    }
    let sigma = 2f64.powi(max.log2().floor() as i32);
    (CowArray::from(points.mapv(|v| v / sigma)), sigma)
}

/// `σᵖ · c` for a cost `c` of the scaled points; [`Error::Overflow`] (with
/// `ln(σᵖ c)`) when it exceeds `f64::MAX`.
fn unscale_cost(c: f64, sigma: f64, p: f64) -> Result<f64> {
    if sigma == 1.0 || c == 0.0 {
        return Ok(c);
    }
    let direct = c * sigma.powf(p);
    if direct.is_finite() && direct > 0.0 {
        return Ok(direct);
    }
    let ln_value = c.ln() + p * sigma.ln();
    let value = ln_value.exp();
    if value.is_finite() {
        Ok(value)
    } else {
        Err(Error::Overflow {
            what: "cost_p(V)",
            ln_value,
        })
    }
}

/// An orthonormal basis of the column span of `m` (`d × t`), from its thin SVD.
fn orthonormal_span(m: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
    let f = linalg::svd(m)?;
    let r = f.rank();
    Ok(f.u.slice(s![.., ..r]).to_owned())
}

/// `cost_p(V) = Σᵢ wᵢ dist(aᵢ, span V)ᵖ` for any `d × k` matrix `V` of full
/// column rank (it is orthonormalised first). O(n d k + d k²).
///
/// Extreme entries (beyond `2^±400`, e.g. near `1e155`, whose squared row
/// norms would overflow) are handled by scaling `A` by a power of two
/// first; the cost is then `σᵖ` times the scaled cost.
///
/// # Errors
/// [`Error::InvalidP`], [`Error::EmptyInput`], [`Error::NonFinite`],
/// [`Error::ShapeMismatch`] when `V` does not have `d` rows or the weights
/// are not `n` long, [`Error::InvalidWeights`]; [`Error::Overflow`] (with
/// `ln cost`) when the cost itself exceeds `f64::MAX`.
pub fn subspace_cost(
    points: ArrayView2<'_, f64>,
    basis: ArrayView2<'_, f64>,
    p: f64,
    weights: Option<ArrayView1<'_, f64>>,
) -> Result<f64> {
    checks::p(p)?;
    checks::matrix(points, "points")?;
    checks::matrix(basis, "basis")?;
    if basis.nrows() != points.ncols() {
        return Err(Error::ShapeMismatch {
            what: "basis",
            expected: format!("{} rows", points.ncols()),
            got: format!("{} rows", basis.nrows()),
        });
    }
    let w = checks::weights_or_ones(weights, points.nrows())?;
    let q = orthonormal_span(basis)?;
    let (scaled, sigma) = scaled_points(points);
    unscale_cost(
        cost_from_sq(&squared_distances(scaled.view(), &q), &w, p),
        sigma,
        p,
    )
}

/// The best `k`-dimensional subspace for `cost_p`, `1 ≤ p ≤ 2`, by
/// iteratively reweighted PCA from the SVD subspace (see the module docs:
/// monotone, a local optimum). O(n d² + d³) per iteration. Entries beyond
/// `2^±400` are scaled by a power of two first (as [`subspace_cost`]).
///
/// # Errors
/// [`Error::InvalidP`] / [`Error::InvalidParameter`] for `p` outside
/// `[1, 2]`, `k = 0` or `k > d`, or bad options; [`Error::EmptyInput`],
/// [`Error::NonFinite`], [`Error::ShapeMismatch`] / [`Error::InvalidWeights`]
/// for the weights; [`Error::ZeroMatrix`] when every weighted row is zero;
/// [`Error::NotConverged`] at the iteration cap (residual: the last relative
/// decrease); [`Error::Overflow`] when the optimal cost exceeds `f64::MAX`.
pub fn fit_subspace(
    points: ArrayView2<'_, f64>,
    k: usize,
    p: f64,
    weights: Option<ArrayView1<'_, f64>>,
    opts: &SubspaceOptions,
) -> Result<Subspace> {
    check_p_range(p)?;
    checks::matrix(points, "points")?;
    check_k(k, points)?;
    let w = checks::weights_or_ones(weights, points.nrows())?;
    opts.check()?;
    let d = points.ncols();
    let identity = Array2::eye(d);
    let (scaled, sigma) = scaled_points(points);
    let mut fit = fit_in_span(scaled.view(), &identity, k, p, &w, opts)?;
    fit.cost = unscale_cost(fit.cost, sigma, p)?;
    Ok(fit)
}

/// [`fit_subspace`] restricted to subspaces of `span Q` (`Q` orthonormal,
/// `d × t`): `V = Q W` with `W` the top eigenvectors of `Σ cᵢ (Qᵀaᵢ)(Qᵀaᵢ)ᵀ`.
fn fit_in_span(
    points: ArrayView2<'_, f64>,
    q: &Array2<f64>,
    k: usize,
    p: f64,
    w: &Array1<f64>,
    opts: &SubspaceOptions,
) -> Result<Subspace> {
    let y = points.dot(q);
    let n = points.nrows();
    let mean_sq = points
        .axis_iter(Axis(0))
        .zip(w)
        .map(|(a, wi)| wi * a.dot(&a))
        .sum::<f64>()
        / w.sum().max(f64::MIN_POSITIVE);
    if mean_sq == 0.0 {
        return Err(Error::ZeroMatrix { what: "points" });
    }
    let delta2 = opts.smoothing * opts.smoothing * mean_sq;
    let k = k.min(q.ncols());
    let top = |c: &[f64]| -> Result<Array2<f64>> {
        let mut scaled = y.clone();
        for (mut row, ci) in scaled.axis_iter_mut(Axis(0)).zip(c) {
            row.mapv_inplace(|v| v * ci.sqrt());
        }
        let gram = scaled.t().dot(&scaled);
        let e = linalg::eigh(gram.view())?;
        let t = e.values.len();
        let wk = e.vectors.slice(s![.., t - k..]).to_owned();
        Ok(q.dot(&wk))
    };
    let mut v = top(w.as_slice().expect("owned weights are contiguous"))?;
    let mut d2 = squared_distances(points, &v);
    if p == 2.0 {
        return Ok(Subspace {
            cost: cost_from_sq(&d2, w, p),
            basis: v,
            iterations: 0,
        });
    }
    let smoothed = |d2: &Array1<f64>| -> f64 {
        d2.iter()
            .zip(w)
            .map(|(d, wi)| wi * (d + delta2).powf(p / 2.0))
            .sum()
    };
    let mut phi = smoothed(&d2);
    let mut last = f64::INFINITY;
    for it in 1..=opts.max_iter {
        let c: Vec<f64> = (0..n)
            .map(|i| w[i] * (d2[i] + delta2).powf(p / 2.0 - 1.0))
            .collect();
        let next = top(&c)?;
        let next_d2 = squared_distances(points, &next);
        let next_phi = smoothed(&next_d2);
        // A majorise–minimise step cannot increase φ; keep the old V if
        // round-off says otherwise, and stop.
        if next_phi > phi {
            return Ok(Subspace {
                cost: cost_from_sq(&d2, w, p),
                basis: v,
                iterations: it,
            });
        }
        last = (phi - next_phi) / phi;
        v = next;
        d2 = next_d2;
        phi = next_phi;
        if last <= opts.tol {
            return Ok(Subspace {
                cost: cost_from_sq(&d2, w, p),
                basis: v,
                iterations: it,
            });
        }
    }
    Err(Error::NotConverged {
        algorithm: "reweighted PCA",
        iterations: opts.max_iter,
        residual: last,
    })
}

/// Options of [`row_subset`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RowSubsetOptions {
    /// Target accuracy `ε ∈ (0, 1)` (default 0.2).
    pub epsilon: f64,
    /// Constant `c` of the row budget `⌈c · k / ε⌉` (default 1; the paper's
    /// Õ hides polylogarithmic factors and states no constant).
    pub c: f64,
    /// Options of the final fit inside the span of the rows.
    pub fit: SubspaceOptions,
}

impl Default for RowSubsetOptions {
    fn default() -> Self {
        RowSubsetOptions {
            epsilon: 0.2,
            c: 1.0,
            fit: SubspaceOptions::default(),
        }
    }
}

/// A row subset and the subspace fitted inside its span.
#[derive(Debug, Clone, PartialEq)]
pub struct RowSubset {
    /// The selected rows, sorted, without repeats.
    pub indices: Vec<usize>,
    /// Rounds of adaptive sampling run.
    pub rounds: usize,
    /// The best `k`-dimensional subspace found inside `span{aᵢ : i ∈ S}`,
    /// with its cost on all rows.
    pub subspace: Subspace,
}

/// Selects `⌈c·k/ε⌉` rows by adaptive `dist^p` sampling and fits the best
/// `k`-dimensional subspace inside their span (module docs; reconstructed).
/// Sampling stops early once every row lies in the span. O(n d · rows +
/// fit). Entries beyond `2^±400` are scaled by a power of two first (as
/// [`subspace_cost`]).
///
/// # Errors
/// As [`fit_subspace`], plus [`Error::InvalidEpsilon`] and
/// [`Error::InvalidParameter`] for `c`.
pub fn row_subset<R: Rng + ?Sized>(
    points: ArrayView2<'_, f64>,
    k: usize,
    p: f64,
    opts: &RowSubsetOptions,
    rng: &mut R,
) -> Result<RowSubset> {
    check_p_range(p)?;
    checks::matrix(points, "points")?;
    check_k(k, points)?;
    checks::epsilon(opts.epsilon)?;
    checks::positive(opts.c, "c")?;
    opts.fit.check()?;
    let (scaled, sigma) = scaled_points(points);
    let points = scaled.view();
    let n = points.nrows();
    let target = ((opts.c * k as f64 / opts.epsilon).ceil() as usize).min(n);
    let mut chosen = vec![false; n];
    let mut indices = Vec::new();
    let mut q = Array2::<f64>::zeros((points.ncols(), 0));
    let mut rounds = 0;
    while indices.len() < target {
        let d2 = if q.ncols() == 0 {
            points.axis_iter(Axis(0)).map(|a| a.dot(&a)).collect()
        } else {
            squared_distances(points, &q)
        };
        let sens: Vec<f64> = d2
            .iter()
            .zip(&chosen)
            .map(|(d, &c)| if c { 0.0 } else { d.powf(p / 2.0) })
            .collect();
        let total: f64 = sens.iter().sum();
        if total <= 0.0 {
            break;
        }
        rounds += 1;
        let table = mlcore::sampling::AliasTable::new(&sens)?;
        for _ in 0..k.min(target - indices.len()) {
            let i = rng.sample(&table);
            if !chosen[i] {
                chosen[i] = true;
                indices.push(i);
            }
        }
        let rows = points.select(Axis(0), &indices);
        q = orthonormal_span(rows.t())?;
    }
    if indices.is_empty() {
        return Err(Error::ZeroMatrix { what: "points" });
    }
    indices.sort_unstable();
    let w = Array1::ones(n);
    let mut subspace = fit_in_span(points, &q, k, p, &w, &opts.fit)?;
    subspace.cost = unscale_cost(subspace.cost, sigma, p)?;
    Ok(RowSubset {
        indices,
        rounds,
        subspace,
    })
}

/// The subset's cost against full-data fits.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SubsetCheck {
    /// `cost_p` of the subspace inside the subset's span.
    pub subset_cost: f64,
    /// `cost_p` of [`fit_subspace`] on all rows (a local optimum; never
    /// above the SVD subspace).
    pub reference_cost: f64,
    /// `cost_p` of the top-`k` SVD subspace (the `p = 2` optimum).
    pub svd_cost: f64,
}

impl SubsetCheck {
    /// `subset_cost / reference_cost`; the claim is `≤ 1 + ε`. Below 1 when
    /// the subset's span led to a better local optimum than the full fit.
    pub fn ratio(&self) -> f64 {
        self.subset_cost / self.reference_cost
    }
}

/// Checks a [`RowSubset`]: its cost against [`fit_subspace`] on all rows
/// and the SVD subspace. O(cost of [`fit_subspace`]).
///
/// # Errors
/// As [`fit_subspace`]; [`Error::ShapeMismatch`] when the subset's basis
/// does not have `d` rows.
pub fn check_row_subset(
    points: ArrayView2<'_, f64>,
    subset: &RowSubset,
    k: usize,
    p: f64,
    opts: &SubspaceOptions,
) -> Result<SubsetCheck> {
    let reference = fit_subspace(points, k, p, None, opts)?;
    let svd = fit_subspace(points, k, 2.0, None, opts)?;
    let subset_cost = subspace_cost(points, subset.subspace.basis.view(), p, None)?;
    let svd_cost = subspace_cost(points, svd.basis.view(), p, None)?;
    Ok(SubsetCheck {
        subset_cost,
        reference_cost: reference.cost,
        svd_cost,
    })
}
