//! Certificates of a coreset's quality.
//!
//! - [`exact_distortion_p2`]: at `p = 2` the exact range of `F_S(X)/F(X)`
//!   over all `X`, from a symmetric-definite generalised eigenproblem.
//! - [`probe_distortion`]: for any `p`, the range of `F_S/F` over probes and
//!   a local search. It is an inner bound: the true range is at least as wide
//!   (the exact range maximises a ratio of convex functions, NP-hard in
//!   general).
//! - [`weak_ratio`]: `F(X̂_S)/F(X*)`, the weak-coreset guarantee.

use crate::checks;
use crate::coreset::Coreset;
use crate::error::{Error, Result};
use crate::regression::{self, IrlsOptions};
use mlcore::linalg;
use ndarray::{Array1, Array2, ArrayView2, Axis};
use rand::Rng;

/// The range `[lo, hi]` of `F_S(X)/F(X)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Distortion {
    /// `inf_X F_S(X)/F(X)` (over `X` with `F(X) > 0`).
    pub lo: f64,
    /// `sup_X F_S(X)/F(X)`.
    pub hi: f64,
}

impl Distortion {
    /// The `ε` the coreset achieves: `max(hi − 1, 1 − lo)`.
    pub fn epsilon(&self) -> f64 {
        (self.hi - 1.0).max(1.0 - self.lo)
    }
}

/// Largest `d·m + 1` accepted by [`exact_distortion_p2`] (a dense
/// eigenproblem of that order is solved).
pub const MAX_EXACT_ORDER: usize = 4000;

fn check_coreset_data(
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    coreset: &Coreset,
) -> Result<()> {
    checks::pair(a, b)?;
    if a.nrows() != coreset.n {
        return Err(Error::ShapeMismatch {
            what: "A",
            expected: format!("{} rows (the data the coreset was built on)", coreset.n),
            got: format!("{} rows", a.nrows()),
        });
    }
    if coreset.is_empty() {
        return Err(Error::EmptyInput { what: "coreset" });
    }
    Ok(())
}

/// The quadratic form `Q` of `F(X) = ‖AX − tB‖_F²` (weighted rows) in
/// `z = (vec X, t)`: `Q = [[I_m ⊗ AᵀSA, −vec(AᵀSB)], [·ᵀ, ‖S^{1/2}B‖_F²]]`.
fn quadratic_form(
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    s: Option<&Array1<f64>>,
) -> Array2<f64> {
    let (d, m) = (a.ncols(), b.ncols());
    let sa = match s {
        Some(s) => {
            let mut sa = a.to_owned();
            for (mut row, &w) in sa.axis_iter_mut(Axis(0)).zip(s) {
                row.mapv_inplace(|v| v * w);
            }
            sa
        }
        None => a.to_owned(),
    };
    let g = sa.t().dot(&a);
    let c = sa.t().dot(&b);
    let bb: f64 = match s {
        Some(s) => b
            .axis_iter(Axis(0))
            .zip(s)
            .map(|(row, w)| w * row.dot(&row))
            .sum(),
        None => b.iter().map(|v| v * v).sum(),
    };
    let n = d * m + 1;
    let mut q = Array2::zeros((n, n));
    for j in 0..m {
        for k in 0..d {
            for l in 0..d {
                q[[j * d + k, j * d + l]] = g[[k, l]];
            }
            q[[j * d + k, n - 1]] = -c[[k, j]];
            q[[n - 1, j * d + k]] = -c[[k, j]];
        }
    }
    q[[n - 1, n - 1]] = bb;
    q
}

/// The exact range of `F_S(X)/F(X)` over all `X ∈ ℝ^{d×m}` at `p = 2`.
///
/// With `z = (vec X, t)`, `F(X) = zᵀQz` at `t = 1` for
/// `Q = [[I_m ⊗ AᵀA, −vec(AᵀB)], [−vec(AᵀB)ᵀ, ‖B‖_F²]]`, and `F_S` likewise
/// with the coreset's rows and weights (`Q_S`). Both forms are homogeneous,
/// so the infimum and supremum of the ratio over `X` (the closure includes
/// `t = 0`, i.e. `‖X‖ → ∞`) are the extreme eigenvalues of the pencil
/// `(Q_S, Q)`. They are computed as the eigenvalues of `Pᵀ Q_S P` with
/// `P = V₊ Λ₊^{−1/2}` from `Q = V Λ Vᵀ`, restricted to eigenvalues above
/// `1e-12 · λ_max`: directions where `F` vanishes (B in the span of A,
/// rank-deficient A) have `F_S = 0` too and carry no ratio.
///
/// Cost O(n d² m + (d m)³); the order `d m + 1` is capped at
/// [`MAX_EXACT_ORDER`].
///
/// # Errors
/// [`Error::InvalidParameter`] when the coreset was not built for `p = 2`
/// or the order exceeds the cap; shape and finiteness errors;
/// [`Error::EmptyInput`] for an empty coreset; [`Error::ZeroMatrix`] when
/// `F ≡ 0` (A and B both zero).
pub fn exact_distortion_p2(
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    coreset: &Coreset,
) -> Result<Distortion> {
    if coreset.p != 2.0 {
        return Err(Error::InvalidParameter {
            name: "coreset.p",
            value: coreset.p,
            expected: "2 (use probe_distortion for other p)",
        });
    }
    check_coreset_data(a, b, coreset)?;
    let order = a.ncols() * b.ncols() + 1;
    if order > MAX_EXACT_ORDER {
        return Err(Error::InvalidParameter {
            name: "d*m + 1",
            value: order as f64,
            expected: "at most MAX_EXACT_ORDER (4000)",
        });
    }
    let q = quadratic_form(a, b, None);
    let a_s = a.select(Axis(0), &coreset.indices);
    let b_s = b.select(Axis(0), &coreset.indices);
    let q_s = quadratic_form(a_s.view(), b_s.view(), Some(&coreset.weights));
    let e = linalg::eigh(q.view())?;
    let lmax = e.values.iter().fold(0.0f64, |acc, v| acc.max(*v));
    if lmax <= 0.0 {
        return Err(Error::ZeroMatrix { what: "[A B]" });
    }
    let keep: Vec<usize> = (0..order).filter(|&i| e.values[i] > 1e-12 * lmax).collect();
    let mut p = e.vectors.select(Axis(1), &keep);
    for (mut col, &i) in p.axis_iter_mut(Axis(1)).zip(&keep) {
        let f = 1.0 / e.values[i].sqrt();
        col.mapv_inplace(|v| v * f);
    }
    let mut m = p.t().dot(&q_s).dot(&p);
    // Symmetrise against round-off before the symmetric solver.
    let mt = m.t().to_owned();
    m = (&m + &mt) * 0.5;
    let ev = linalg::eigh(m.view())?.values;
    Ok(Distortion {
        lo: ev[0],
        hi: ev[ev.len() - 1],
    })
}

/// Probes of [`probe_distortion`].
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeOptions {
    /// Scales `t` of the probes `X_c ± t·‖X_c‖·G` (default `10^{−2}, 10^{−1.5}, …, 10²`).
    pub scales: Vec<f64>,
    /// Number of random Gaussian directions `G` (default 4).
    pub directions: usize,
    /// Steps of the local search on `log(F_S/F)` from the two extreme
    /// probes, in each direction (default 20; 0 turns it off).
    pub local_steps: usize,
}

impl Default for ProbeOptions {
    fn default() -> Self {
        ProbeOptions {
            scales: (0..9).map(|k| 10f64.powf(-2.0 + 0.5 * k as f64)).collect(),
            directions: 4,
            local_steps: 20,
        }
    }
}

/// The range of `F_S/F` seen by [`probe_distortion`], and where its worst end was met.
#[derive(Debug, Clone, PartialEq)]
pub struct DistortionReport {
    /// Smallest ratio seen.
    pub min_ratio: f64,
    /// Largest ratio seen.
    pub max_ratio: f64,
    /// The `X` at the end of the range farther from 1.
    pub worst: Array2<f64>,
    /// Ratios evaluated.
    pub evaluations: usize,
}

impl DistortionReport {
    /// `max(max_ratio − 1, 1 − min_ratio)`, a lower bound on the coreset's `ε`.
    pub fn epsilon(&self) -> f64 {
        (self.max_ratio - 1.0).max(1.0 - self.min_ratio)
    }
}

struct RatioEval<'a> {
    a: ArrayView2<'a, f64>,
    b: ArrayView2<'a, f64>,
    a_s: Array2<f64>,
    b_s: Array2<f64>,
    s: Array1<f64>,
    p: f64,
    count: usize,
}

impl RatioEval<'_> {
    /// `(F, F_S)` and, when asked, the gradient of `log F_S − log F`.
    fn eval(&mut self, x: &Array2<f64>, grad: bool) -> (f64, Option<Array2<f64>>) {
        self.count += 1;
        let p = self.p;
        let r = self.a.dot(x) - self.b;
        let rs = self.a_s.dot(x) - &self.b_s;
        let f: f64 = r.iter().map(|v| v.abs().powf(p)).sum();
        let mut fs = 0.0;
        for (row, w) in rs.axis_iter(Axis(0)).zip(&self.s) {
            fs += w * row.iter().map(|v| v.abs().powf(p)).sum::<f64>();
        }
        let ratio = fs / f;
        if !grad || f <= 0.0 || fs <= 0.0 {
            return (ratio, None);
        }
        let dpow = |v: f64| v.signum() * v.abs().powf(p - 1.0);
        let gr = r.mapv(dpow);
        let mut grs = rs.mapv(dpow);
        for (mut row, w) in grs.axis_iter_mut(Axis(0)).zip(&self.s) {
            row.mapv_inplace(|v| v * w);
        }
        let g = self.a_s.t().dot(&grs) * (p / fs) - self.a.t().dot(&gr) * (p / f);
        (ratio, Some(g))
    }
}

/// An inner bound on the range of `F_S(X)/F(X)` for any `p`.
///
/// Probes `X = 0`, `X_c` (a solution of the full problem by IRLS), `X_c ±
/// t‖X_c‖_F G` for the given scales and Gaussian directions `G` (`‖G‖_F = 1`),
/// and `10⁶ (‖X_c‖_F + 1) G` (the ratio as `‖X‖ → ∞`); then, from the probes
/// with the smallest and the largest ratio, a normalised gradient ascent
/// (descent) on `log F_S − log F` with backtracking. The true range contains
/// `[min_ratio, max_ratio]`.
///
/// Cost O((probes + local steps) · n d m) plus one IRLS solve.
///
/// # Errors
/// Shape and finiteness errors, [`Error::EmptyInput`] for an empty coreset,
/// [`Error::InvalidParameter`] for non-positive or non-finite scales,
/// [`Error::ZeroMatrix`] when `A` is zero.
pub fn probe_distortion<R: Rng + ?Sized>(
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    coreset: &Coreset,
    probes: &ProbeOptions,
    rng: &mut R,
) -> Result<DistortionReport> {
    check_coreset_data(a, b, coreset)?;
    for &t in &probes.scales {
        checks::positive(t, "probes.scales")?;
    }
    let p = coreset.p;
    let ones = vec![1.0; a.nrows()];
    let loose = IrlsOptions {
        tol: 1e-6,
        ..IrlsOptions::default()
    };
    let x_c = regression::solve_unchecked(a, b, p, &ones, &loose)?.0.x;
    let mut ev = RatioEval {
        a,
        b,
        a_s: a.select(Axis(0), &coreset.indices),
        b_s: b.select(Axis(0), &coreset.indices),
        s: coreset.weights.clone(),
        p,
        count: 0,
    };
    let (d, m) = (a.ncols(), b.ncols());
    let norm_c = x_c.iter().map(|v| v * v).sum::<f64>().sqrt();
    let mut candidates = vec![Array2::zeros((d, m)), x_c.clone()];
    for _ in 0..probes.directions {
        let mut g: Array2<f64> = mlcore::sampling::standard_normal((d, m), rng);
        let gn = g.iter().map(|v| v * v).sum::<f64>().sqrt();
        g /= gn;
        for &t in &probes.scales {
            let step = &g * (t * norm_c.max(f64::MIN_POSITIVE));
            candidates.push(&x_c + &step);
            candidates.push(&x_c - &step);
        }
        candidates.push(&g * (1e6 * (norm_c + 1.0)));
    }
    let mut lo = (f64::INFINITY, Array2::zeros((d, m)));
    let mut hi = (f64::NEG_INFINITY, Array2::zeros((d, m)));
    for x in candidates {
        let (ratio, _) = ev.eval(&x, false);
        if !ratio.is_finite() {
            continue;
        }
        if ratio < lo.0 {
            lo = (ratio, x.clone());
        }
        if ratio > hi.0 {
            hi = (ratio, x);
        }
    }
    if !lo.0.is_finite() {
        return Err(Error::ZeroMatrix { what: "[A B]" });
    }
    for sign in [1.0, -1.0] {
        let start = if sign > 0.0 { &hi } else { &lo };
        let mut x = start.1.clone();
        let (mut best, mut g) = ev.eval(&x, true);
        let mut step = 0.1 * (x.iter().map(|v| v * v).sum::<f64>().sqrt() + 1e-300);
        for _ in 0..probes.local_steps {
            let Some(gr) = g.take() else { break };
            let gn = gr.iter().map(|v| v * v).sum::<f64>().sqrt();
            if !(gn > 0.0 && gn.is_finite()) {
                break;
            }
            let mut improved = false;
            for _ in 0..8 {
                let cand = &x + &(&gr * (sign * step / gn));
                let (r, gc) = ev.eval(&cand, true);
                if r.is_finite() && sign * (r - best) > 0.0 {
                    x = cand;
                    best = r;
                    g = gc;
                    improved = true;
                    step *= 1.5;
                    break;
                }
                step *= 0.5;
            }
            if !improved {
                break;
            }
        }
        if sign > 0.0 && best > hi.0 {
            hi = (best, x);
        } else if sign < 0.0 && best < lo.0 {
            lo = (best, x);
        }
    }
    let worst = if hi.0 - 1.0 >= 1.0 - lo.0 { hi.1 } else { lo.1 };
    Ok(DistortionReport {
        min_ratio: lo.0,
        max_ratio: hi.0,
        worst,
        evaluations: ev.count,
    })
}

/// The weak-coreset ratio `F(X̂_S)/F(X*)`, with `X̂_S` the minimiser on the coreset.
#[derive(Debug, Clone, PartialEq)]
pub struct WeakRatio {
    /// `F(X̂_S)/F(X*)` (≥ 1 up to the solver's accuracy).
    pub ratio: f64,
    /// `F(X̂_S)`.
    pub coreset_solution_cost: f64,
    /// `F(X*)`.
    pub optimal_cost: f64,
}

/// `F(X̂_S)/F(X*)`, where both minimisers are found by
/// [`regression::solve`] with `opts`. O(IRLS on the full data).
///
/// # Errors
/// As [`regression::solve`], [`Error::EmptyInput`] for an empty coreset.
pub fn weak_ratio(
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    coreset: &Coreset,
    opts: &IrlsOptions,
) -> Result<WeakRatio> {
    check_coreset_data(a, b, coreset)?;
    let full = regression::solve(a, b, coreset.p, None, opts)?;
    let xs = coreset.solve(a, b, opts)?.x;
    let cs = regression::cost(a, b, xs.view(), coreset.p, None)?;
    Ok(WeakRatio {
        ratio: cs / full.cost,
        coreset_solution_cost: cs,
        optimal_cost: full.cost,
    })
}
