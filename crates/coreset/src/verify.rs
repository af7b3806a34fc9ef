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
use crate::power::Power;
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
    if a.nrows() != coreset.n() {
        return Err(Error::ShapeMismatch {
            what: "A",
            expected: format!("{} rows (the data the coreset was built on)", coreset.n()),
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
    if coreset.p() != 2.0 {
        return Err(Error::InvalidParameter {
            name: "coreset.p",
            value: coreset.p(),
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
    let a_s = a.select(Axis(0), coreset.indices());
    let b_s = b.select(Axis(0), coreset.indices());
    let q_s = quadratic_form(a_s.view(), b_s.view(), Some(&coreset.weights().to_owned()));
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
        let pw = Power::new(p);
        let f: f64 = r.iter().map(|v| pw.apply(v.abs())).sum();
        let mut fs = 0.0;
        for (row, w) in rs.axis_iter(Axis(0)).zip(&self.s) {
            fs += w * row.iter().map(|v| pw.apply(v.abs())).sum::<f64>();
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
    let p = coreset.p();
    let ones = vec![1.0; a.nrows()];
    let loose = IrlsOptions {
        tol: 1e-6,
        ..IrlsOptions::default()
    };
    let x_c = regression::solve_unchecked(a, b, p, &ones, &loose)?.0.x;
    probe_around(a, b, coreset, x_c, probes, rng)
}

/// [`probe_distortion`] around a centre `X_c` the caller already has (for
/// example one solve reused for many coresets of the same data): the same
/// probes and local search, without the IRLS solve. Any `X_c` gives an inner
/// bound on the range; a near-optimal one puts probes where `F` is smallest.
/// O((probes + local steps) · n d m).
///
/// # Errors
/// As [`probe_distortion`]; [`Error::ShapeMismatch`] when `X_c` is not
/// `d × m`, [`Error::NonFinite`] for a non-finite `X_c`.
pub fn probe_distortion_at<R: Rng + ?Sized>(
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    coreset: &Coreset,
    x_c: ArrayView2<'_, f64>,
    probes: &ProbeOptions,
    rng: &mut R,
) -> Result<DistortionReport> {
    check_coreset_data(a, b, coreset)?;
    for &t in &probes.scales {
        checks::positive(t, "probes.scales")?;
    }
    checks::matrix(x_c, "X_c")?;
    if x_c.dim() != (a.ncols(), b.ncols()) {
        return Err(Error::ShapeMismatch {
            what: "X_c",
            expected: format!("[{}, {}]", a.ncols(), b.ncols()),
            got: format!("{:?}", x_c.shape()),
        });
    }
    probe_around(a, b, coreset, x_c.to_owned(), probes, rng)
}

/// The probes and local search of [`probe_distortion`] around `x_c` (inputs checked).
fn probe_around<R: Rng + ?Sized>(
    a: ArrayView2<'_, f64>,
    b: ArrayView2<'_, f64>,
    coreset: &Coreset,
    x_c: Array2<f64>,
    probes: &ProbeOptions,
    rng: &mut R,
) -> Result<DistortionReport> {
    let p = coreset.p();
    let (d, m) = (a.ncols(), b.ncols());
    let mut ev = RatioEval {
        a,
        b,
        a_s: a.select(Axis(0), coreset.indices()),
        b_s: b.select(Axis(0), coreset.indices()),
        s: coreset.weights().to_owned(),
        p,
        count: 0,
    };
    let candidates = candidates(x_c, probes, rng)?;
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

/// A fixed probe set with the full objective at each probe, computed once:
/// the probes of [`probe_distortion`] around a centre `X_c` (`X = 0`, `X_c`,
/// `X_c ± t‖X_c‖_F G` for every scale `t` and Gaussian direction `G`,
/// `‖G‖_F = 1`, and `10⁶(‖X_c‖_F + 1) G`), without the local search. The
/// probes do not depend on the coreset, so many coresets of the same data
/// are compared on the same set at O(|S| d m) per probe instead of
/// O(n d m) ([`ProbeSet::distortion`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeSet {
    probes: Vec<Array2<f64>>,
    full: Vec<f64>,
    p: f64,
    rows: usize,
}

impl ProbeSet {
    /// Draws the probes around `x_c` and evaluates `F` at each. O(probes · n d m).
    ///
    /// # Errors
    /// [`Error::InvalidP`]; shape and finiteness errors on `A`, `B`, `X_c`
    /// (`d × m`); [`Error::InvalidParameter`] for non-positive or non-finite
    /// scales; [`Error::TooLarge`] when the probes would not fit in memory;
    /// [`Error::ZeroMatrix`] when `F` is zero at every probe.
    pub fn new<R: Rng + ?Sized>(
        a: ArrayView2<'_, f64>,
        b: ArrayView2<'_, f64>,
        x_c: ArrayView2<'_, f64>,
        p: f64,
        probes: &ProbeOptions,
        rng: &mut R,
    ) -> Result<ProbeSet> {
        checks::p(p)?;
        checks::pair(a, b)?;
        for &t in &probes.scales {
            checks::positive(t, "probes.scales")?;
        }
        checks::matrix(x_c, "X_c")?;
        if x_c.dim() != (a.ncols(), b.ncols()) {
            return Err(Error::ShapeMismatch {
                what: "X_c",
                expected: format!("[{}, {}]", a.ncols(), b.ncols()),
                got: format!("{:?}", x_c.shape()),
            });
        }
        let candidates = candidates(x_c.to_owned(), probes, rng)?;
        let pw = Power::new(p);
        let mut kept = Vec::with_capacity(candidates.len());
        let mut full = Vec::with_capacity(candidates.len());
        for x in candidates {
            let f: f64 = (a.dot(&x) - b).iter().map(|v| pw.apply(v.abs())).sum();
            if f.is_finite() && f > 0.0 {
                kept.push(x);
                full.push(f);
            }
        }
        if kept.is_empty() {
            return Err(Error::ZeroMatrix { what: "[A B]" });
        }
        Ok(ProbeSet {
            probes: kept,
            full,
            p,
            rows: a.nrows(),
        })
    }

    /// Number of probes (those where `F` is finite and positive).
    pub fn len(&self) -> usize {
        self.probes.len()
    }

    /// Whether the set is empty (never, for a set [`ProbeSet::new`] returned).
    pub fn is_empty(&self) -> bool {
        self.probes.is_empty()
    }

    /// The range of `F_S/F` over the probes (an inner bound on the true
    /// range). O(probes · |S| d m).
    ///
    /// # Errors
    /// Shape and finiteness errors when `A`, `B` are not the data of the
    /// set, [`Error::InvalidParameter`] when the coreset was built for
    /// another `p`, [`Error::EmptyInput`] for an empty coreset.
    pub fn distortion(
        &self,
        a: ArrayView2<'_, f64>,
        b: ArrayView2<'_, f64>,
        coreset: &Coreset,
    ) -> Result<DistortionReport> {
        check_coreset_data(a, b, coreset)?;
        if a.nrows() != self.rows || b.ncols() != self.probes[0].ncols() {
            return Err(Error::ShapeMismatch {
                what: "[A B]",
                expected: format!(
                    "{} rows and {} columns of B (the probe set's data)",
                    self.rows,
                    self.probes[0].ncols()
                ),
                got: format!("{} rows and {} columns", a.nrows(), b.ncols()),
            });
        }
        if coreset.p() != self.p {
            return Err(Error::InvalidParameter {
                name: "coreset.p",
                value: coreset.p(),
                expected: "the p of the probe set",
            });
        }
        let a_s = a.select(Axis(0), coreset.indices());
        let b_s = b.select(Axis(0), coreset.indices());
        let s = coreset.weights();
        let pw = Power::new(self.p);
        let (mut lo, mut hi) = ((f64::INFINITY, 0usize), (f64::NEG_INFINITY, 0usize));
        for (k, (x, &f)) in self.probes.iter().zip(&self.full).enumerate() {
            let r = a_s.dot(x) - &b_s;
            let fs: f64 = r
                .axis_iter(Axis(0))
                .zip(s.iter())
                .map(|(row, w)| w * row.iter().map(|v| pw.apply(v.abs())).sum::<f64>())
                .sum();
            let ratio = fs / f;
            if !ratio.is_finite() {
                continue;
            }
            if ratio < lo.0 {
                lo = (ratio, k);
            }
            if ratio > hi.0 {
                hi = (ratio, k);
            }
        }
        if !lo.0.is_finite() {
            return Err(Error::ZeroMatrix { what: "[A B]" });
        }
        let worst = if hi.0 - 1.0 >= 1.0 - lo.0 { hi.1 } else { lo.1 };
        Ok(DistortionReport {
            min_ratio: lo.0,
            max_ratio: hi.0,
            worst: self.probes[worst].clone(),
            evaluations: self.probes.len(),
        })
    }
}

/// The probe candidates around `x_c`, sized-checked before allocating.
fn candidates<R: Rng + ?Sized>(
    x_c: Array2<f64>,
    probes: &ProbeOptions,
    rng: &mut R,
) -> Result<Vec<Array2<f64>>> {
    let (d, m) = x_c.dim();
    let count = probes
        .directions
        .checked_mul(2 * probes.scales.len() + 1)
        .and_then(|c| c.checked_add(2))
        .ok_or_else(|| Error::TooLarge {
            what: "probes (directions × scales)",
            size: format!(
                "{} directions × {} scales",
                probes.directions,
                probes.scales.len()
            ),
        })?;
    mlcore::check::alloc_len(&[count, d, m], 8, "probes (directions × scales × d × m)")?;
    let norm_c = x_c.iter().map(|v| v * v).sum::<f64>().sqrt();
    let mut out = Vec::with_capacity(count);
    out.push(Array2::zeros((d, m)));
    out.push(x_c.clone());
    for _ in 0..probes.directions {
        let mut g: Array2<f64> = mlcore::sampling::standard_normal((d, m), rng);
        let gn = g.iter().map(|v| v * v).sum::<f64>().sqrt();
        g /= gn;
        for &t in &probes.scales {
            let step = &g * (t * norm_c.max(f64::MIN_POSITIVE));
            out.push(&x_c + &step);
            out.push(&x_c - &step);
        }
        out.push(&g * (1e6 * (norm_c + 1.0)));
    }
    Ok(out)
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
    let full = regression::solve(a, b, coreset.p(), None, opts)?;
    let xs = coreset.solve(a, b, opts)?.x;
    let cs = regression::cost(a, b, xs.view(), coreset.p(), None)?;
    Ok(WeakRatio {
        ratio: cs / full.cost,
        coreset_solution_cost: cs,
        optimal_cost: full.cost,
    })
}
