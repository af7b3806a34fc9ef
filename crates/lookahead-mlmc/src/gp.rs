//! Exact Gaussian-process regression: Matérn-5/2 or RBF kernels with ARD,
//! fixed Gaussian noise, MAP hyper-parameters, posterior, joint sampling and
//! fantasies by Cholesky bordering.
//!
//! Follows the paper's surrogate (BoTorch 0.9.2 `FixedNoiseGP`: constant
//! mean, `ScaleKernel(Matérn-5/2, ARD)`, lengthscale prior Γ(3, 6),
//! outputscale prior Γ(2, 0.15), noise fixed at 1e-4, MAP fit).

use crate::error::{Error, Result, check_finite};
use crate::optim::{Bounds, FnObjective, LbfgsConfig, best_of, maximize_multistart};
use mlcore::check;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2};

/// Which stationary correlation `g(r)` the kernel uses, with
/// `r = √(Σₖ ((xₖ − x'ₖ)/ℓₖ)²)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelKind {
    /// Matérn-5/2: `g(r) = (1 + √5 r + 5r²/3)·exp(−√5 r)` (the paper's default).
    Matern52,
    /// Squared exponential: `g(r) = exp(−r²/2)`.
    Rbf,
}

/// `k(x, x') = s·g(r)`: outputscale `s` times an ARD correlation.
#[derive(Debug, Clone, PartialEq)]
pub struct Kernel {
    kind: KernelKind,
    lengthscales: Vec<f64>,
    outputscale: f64,
}

impl Kernel {
    /// A kernel with lengthscales `ℓ` (one per input dimension) and outputscale `s`.
    ///
    /// # Errors
    /// [`Error::InvalidBatchSize`] without lengthscales; [`Error::InvalidParameter`]
    /// for a non-positive or non-finite `ℓₖ` or `s`.
    pub fn new(kind: KernelKind, lengthscales: Vec<f64>, outputscale: f64) -> Result<Self> {
        if lengthscales.is_empty() {
            return Err(Error::InvalidBatchSize {
                what: "lengthscales",
            });
        }
        for &l in &lengthscales {
            check::positive(l, "lengthscale")?;
        }
        check::positive(outputscale, "outputscale")?;
        Ok(Kernel {
            kind,
            lengthscales,
            outputscale,
        })
    }

    /// The correlation family.
    pub fn kind(&self) -> KernelKind {
        self.kind
    }
    /// The lengthscales `ℓ`.
    pub fn lengthscales(&self) -> &[f64] {
        &self.lengthscales
    }
    /// The outputscale `s`.
    pub fn outputscale(&self) -> f64 {
        self.outputscale
    }
    /// The input dimension `d`.
    pub fn dim(&self) -> usize {
        self.lengthscales.len()
    }

    /// `k(a, b)`, O(d). The slices must have length `d` (not checked).
    pub fn eval(&self, a: &[f64], b: &[f64]) -> f64 {
        let mut r2 = 0.0;
        for k in 0..self.lengthscales.len() {
            let t = (a[k] - b[k]) / self.lengthscales[k];
            r2 += t * t;
        }
        self.outputscale
            * match self.kind {
                KernelKind::Matern52 => {
                    let r = (5.0 * r2).sqrt();
                    // Far-apart points (r² overflowing to ∞): the limit 0,
                    // not ∞·0 = NaN.
                    if r.is_finite() {
                        (1.0 + r + r * r / 3.0) * (-r).exp()
                    } else {
                        0.0
                    }
                }
                KernelKind::Rbf => (-0.5 * r2).exp(),
            }
    }
}

/// Appends a row to a lower Cholesky factor (`n × n`, row-major): given
/// `A = LLᵀ`, the factor of `[[A, b], [bᵀ, c]]` is `[[L, 0], [ℓᵀ, δ]]` with
/// `ℓ = L⁻¹b` and `δ = √(c − ℓᵀℓ)`. O(n²). Returns `(L', ℓ, δ)`, or `None`
/// when `c − ℓᵀℓ ≤ rel_tol·c` (the bordered matrix is numerically singular).
///
/// This "rank-1" bordering is what a GP fantasy needs (one new training
/// point); it is generic and could move to `mlcore::linalg`.
pub fn cholesky_append(
    l: &[f64],
    n: usize,
    b: &[f64],
    c: f64,
    rel_tol: f64,
) -> Option<(Vec<f64>, Vec<f64>, f64)> {
    let ell = forward_subst(l, n, b);
    let d2 = c - ell.iter().map(|v| v * v).sum::<f64>();
    if d2.is_nan() || d2 <= rel_tol * c.abs() || !d2.is_finite() {
        return None;
    }
    let delta = d2.sqrt();
    let m = n + 1;
    let mut out = vec![0.0; m * m];
    for i in 0..n {
        out[i * m..i * m + i + 1].copy_from_slice(&l[i * n..i * n + i + 1]);
    }
    out[n * m..n * m + n].copy_from_slice(&ell);
    out[n * m + n] = delta;
    Some((out, ell, delta))
}

/// Solves `L v = b` for lower-triangular `L` (`n × n`, row-major). O(n²).
/// Counted as one GP solve by [`crate::cost`].
pub(crate) fn forward_subst(l: &[f64], n: usize, b: &[f64]) -> Vec<f64> {
    crate::cost::gp_solve();
    let mut v = b.to_vec();
    for i in 0..n {
        let row = &l[i * n..i * n + i];
        let s: f64 = row.iter().zip(&v[..i]).map(|(a, b)| a * b).sum();
        v[i] = (v[i] - s) / l[i * n + i];
    }
    v
}

/// Cholesky of a small PSD matrix (`q × q`, row-major) with non-positive
/// pivots set to zero (their column is dropped): `Σ ≈ LLᵀ` for PSD `Σ`
/// whose rank may be deficient (two identical batch points). O(q³).
pub(crate) fn chol_psd_small(a: &[f64], q: usize) -> Vec<f64> {
    let mut l = vec![0.0; q * q];
    let scale = (0..q).map(|i| a[i * q + i].abs()).fold(0.0, f64::max);
    for j in 0..q {
        let mut d = a[j * q + j];
        for k in 0..j {
            d -= l[j * q + k] * l[j * q + k];
        }
        if d <= 1e-12 * scale.max(1e-300) {
            continue;
        }
        let dj = d.sqrt();
        l[j * q + j] = dj;
        for i in j + 1..q {
            let mut s = a[i * q + j];
            for k in 0..j {
                s -= l[i * q + k] * l[j * q + k];
            }
            l[i * q + j] = s / dj;
        }
    }
    l
}

/// An exact GP posterior `f | D` with `D = {(xᵢ, yᵢ)}ᵢ₌₁ⁿ`, prior
/// `f ~ GP(m, k)` and `yᵢ = f(xᵢ) + N(0, η)`:
///
/// `μ(x) = m + k(x, X)(K + ηI)⁻¹(y − m)`, `σ²(x) = k(x, x) − k(x, X)(K + ηI)⁻¹k(X, x)`.
///
/// Stores the lower Cholesky factor `L` of `K + ηI` and `w = L⁻¹(y − m)`.
#[derive(Debug, Clone, PartialEq)]
pub struct ExactGp {
    d: usize,
    x: Vec<f64>,
    y: Vec<f64>,
    mean: f64,
    noise: f64,
    kernel: Kernel,
    l: Vec<f64>,
    w: Vec<f64>,
}

/// Relative pivot below which a kernel matrix counts as singular.
const PIVOT_TOL: f64 = 1e-12;

impl ExactGp {
    /// The posterior given training inputs `x` (`n × d`), targets `y` (`n`),
    /// a kernel, a constant prior mean `m` and the noise variance `η ≥ 0`.
    /// O(n³) (one Cholesky, `mlcore::linalg::cholesky`).
    ///
    /// # Errors
    /// [`Error::EmptyTrainingSet`] for `n = 0`; [`Error::DimensionMismatch`]
    /// when `y` has not `n` entries or `x` not `d` columns; [`Error::NonFinite`];
    /// [`Error::InvalidParameter`] for `η < 0`; [`Error::NotPositiveDefinite`]
    /// when `K + ηI` is singular (duplicate inputs with `η = 0`): a pivot below
    /// `1e-12·max diag`.
    ///
    /// Overflow: finite targets near `f64::MAX` (beyond ~1e300) can overflow
    /// the posterior mean to ±∞; standardise such targets first (as
    /// [`fit_map`] requires and the BO loop does).
    pub fn new(
        x: ArrayView2<'_, f64>,
        y: ArrayView1<'_, f64>,
        kernel: Kernel,
        mean: f64,
        noise: f64,
    ) -> Result<Self> {
        let (n, d) = x.dim();
        if n == 0 {
            return Err(Error::EmptyTrainingSet);
        }
        if y.len() != n {
            return Err(Error::DimensionMismatch {
                what: "y",
                expected: n,
                got: y.len(),
            });
        }
        if d != kernel.dim() {
            return Err(Error::DimensionMismatch {
                what: "columns of x",
                expected: kernel.dim(),
                got: d,
            });
        }
        let xs: Vec<f64> = x.iter().copied().collect();
        let ys: Vec<f64> = y.to_vec();
        check_finite("x", &xs)?;
        check_finite("y", &ys)?;
        check::non_negative(noise, "noise")?;
        if !mean.is_finite() {
            return Err(Error::NonFinite { what: "mean" });
        }
        Self::from_flat(xs, d, ys, kernel, mean, noise)
    }

    pub(crate) fn from_flat(
        x: Vec<f64>,
        d: usize,
        y: Vec<f64>,
        kernel: Kernel,
        mean: f64,
        noise: f64,
    ) -> Result<Self> {
        let n = y.len();
        let mut k = Array2::<f64>::zeros((n, n));
        for i in 0..n {
            for j in 0..=i {
                let v = kernel.eval(&x[i * d..(i + 1) * d], &x[j * d..(j + 1) * d]);
                k[[i, j]] = v;
                k[[j, i]] = v;
            }
            k[[i, i]] += noise;
        }
        let max_diag = (0..n).map(|i| k[[i, i]]).fold(0.0, f64::max);
        let lm = mlcore::linalg::cholesky(k.view())
            .map_err(|_| Error::NotPositiveDefinite { what: "K + ηI" })?;
        let mut l = vec![0.0; n * n];
        for i in 0..n {
            let p = lm[[i, i]];
            if !p.is_finite() || p * p <= PIVOT_TOL * max_diag {
                return Err(Error::NotPositiveDefinite { what: "K + ηI" });
            }
            for j in 0..=i {
                l[i * n + j] = lm[[i, j]];
            }
        }
        let r: Vec<f64> = y.iter().map(|v| v - mean).collect();
        let w = forward_subst(&l, n, &r);
        Ok(ExactGp {
            d,
            x,
            y,
            mean,
            noise,
            kernel,
            l,
            w,
        })
    }

    /// Number of training points `n`.
    pub fn n(&self) -> usize {
        self.y.len()
    }
    /// Input dimension `d`.
    pub fn dim(&self) -> usize {
        self.d
    }
    /// The kernel.
    pub fn kernel(&self) -> &Kernel {
        &self.kernel
    }
    /// The constant prior mean `m`.
    pub fn mean_constant(&self) -> f64 {
        self.mean
    }
    /// The noise variance `η`.
    pub fn noise(&self) -> f64 {
        self.noise
    }
    /// Training targets.
    pub fn targets(&self) -> &[f64] {
        &self.y
    }
    /// The incumbent `f* = maxᵢ yᵢ` (BoTorch's `make_best_f`).
    pub fn best_observed(&self) -> f64 {
        self.y.iter().copied().fold(f64::NEG_INFINITY, f64::max)
    }

    fn check_x(&self, what: &'static str, x: &[f64]) -> Result<()> {
        if x.len() != self.d {
            return Err(Error::DimensionMismatch {
                what,
                expected: self.d,
                got: x.len(),
            });
        }
        check_finite(what, x)
    }

    fn kvec(&self, p: &[f64]) -> Vec<f64> {
        let d = self.d;
        (0..self.n())
            .map(|i| self.kernel.eval(&self.x[i * d..(i + 1) * d], p))
            .collect()
    }

    /// `(μ(x), σ²(x))` of the latent `f` (noise excluded). O(n²).
    pub(crate) fn post(&self, p: &[f64]) -> (f64, f64) {
        let v = forward_subst(&self.l, self.n(), &self.kvec(p));
        let mu = self.mean + v.iter().zip(&self.w).map(|(a, b)| a * b).sum::<f64>();
        let var = self.kernel.eval(p, p) - v.iter().map(|a| a * a).sum::<f64>();
        (mu, var.max(0.0))
    }

    /// Joint posterior of `q` points (flat `q·d`): mean (`q`) and covariance
    /// (`q × q`, row-major). O(q n² + q² n).
    pub(crate) fn joint(&self, pts: &[f64], q: usize) -> (Vec<f64>, Vec<f64>) {
        let d = self.d;
        let n = self.n();
        let vs: Vec<Vec<f64>> = (0..q)
            .map(|a| forward_subst(&self.l, n, &self.kvec(&pts[a * d..(a + 1) * d])))
            .collect();
        let mean = vs
            .iter()
            .map(|v| self.mean + v.iter().zip(&self.w).map(|(a, b)| a * b).sum::<f64>())
            .collect();
        let mut cov = vec![0.0; q * q];
        for a in 0..q {
            for b in 0..=a {
                let c = self
                    .kernel
                    .eval(&pts[a * d..(a + 1) * d], &pts[b * d..(b + 1) * d])
                    - vs[a].iter().zip(&vs[b]).map(|(x, y)| x * y).sum::<f64>();
                cov[a * q + b] = c;
                cov[b * q + a] = c;
            }
        }
        (mean, cov)
    }

    /// Posterior mean and variance of the latent `f` at `x`:
    /// `(μ(x), σ²(x))` as in the type's docs. O(n²).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`], [`Error::NonFinite`].
    pub fn posterior(&self, x: ArrayView1<'_, f64>) -> Result<(f64, f64)> {
        let p = x.to_vec();
        self.check_x("x", &p)?;
        Ok(self.post(&p))
    }

    /// Joint posterior of the rows of `xs` (`q × d`): mean `μ ∈ ℝ^q` and
    /// covariance `Σ ∈ ℝ^{q×q}`, `Σ_ab = k(a, b) − k(a, X)(K + ηI)⁻¹k(X, b)`.
    /// O(q n² + q² n).
    ///
    /// # Errors
    /// [`Error::InvalidBatchSize`] for `q = 0`, [`Error::DimensionMismatch`], [`Error::NonFinite`].
    pub fn joint_posterior(&self, xs: ArrayView2<'_, f64>) -> Result<(Array1<f64>, Array2<f64>)> {
        let (q, d) = xs.dim();
        if q == 0 {
            return Err(Error::InvalidBatchSize { what: "q" });
        }
        if d != self.d {
            return Err(Error::DimensionMismatch {
                what: "columns of xs",
                expected: self.d,
                got: d,
            });
        }
        let pts: Vec<f64> = xs.iter().copied().collect();
        check_finite("xs", &pts)?;
        let (m, c) = self.joint(&pts, q);
        Ok((
            Array1::from_vec(m),
            Array2::from_shape_vec((q, q), c).expect("q × q"),
        ))
    }

    /// A joint posterior draw `f(xs) = μ + L_Σ z` from standard-normal base
    /// samples `z ∈ ℝ^q`, with `L_Σ` a (rank-revealing, zero-pivot-dropping)
    /// Cholesky factor of `Σ`. The caller owns `z`, so fine and coarse MLMC
    /// problems can share it. O(q n² + q³).
    ///
    /// # Errors
    /// As [`ExactGp::joint_posterior`], [`Error::DimensionMismatch`] if `z`
    /// has not `q` entries, [`Error::NonFinite`] for a NaN or infinite `z`
    /// or a draw that overflows (a finite `z` near `f64::MAX`).
    pub fn joint_sample(
        &self,
        xs: ArrayView2<'_, f64>,
        z: ArrayView1<'_, f64>,
    ) -> Result<Array1<f64>> {
        let (mu, cov) = self.joint_posterior(xs)?;
        let q = mu.len();
        if z.len() != q {
            return Err(Error::DimensionMismatch {
                what: "z",
                expected: q,
                got: z.len(),
            });
        }
        check_finite("z", &z.to_vec())?;
        let l = chol_psd_small(cov.as_slice().expect("standard layout"), q);
        let f = Array1::from_shape_fn(q, |a| {
            mu[a] + (0..=a).map(|b| l[a * q + b] * z[b]).sum::<f64>()
        });
        // Finite but huge base samples can overflow the draw.
        check_finite("joint draw (z too large)", &f.to_vec())?;
        Ok(f)
    }

    /// The posterior after observing `y` at `x` (a fantasy): the factor of
    /// `K + ηI` is bordered by one row ([`cholesky_append`]) and
    /// `w' = [w; (y − m − ℓᵀw)/δ]`. O(n²), against O(n³) for refitting;
    /// hyper-parameters are kept (as in BoTorch's `fantasize`).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`], [`Error::NonFinite`];
    /// [`Error::NotPositiveDefinite`] when `x` duplicates a training input and `η = 0`.
    pub fn fantasize(&self, x: ArrayView1<'_, f64>, y: f64) -> Result<ExactGp> {
        let p = x.to_vec();
        self.check_x("x", &p)?;
        if !y.is_finite() {
            return Err(Error::NonFinite { what: "y" });
        }
        self.fantasize_slice(&p, y)
            .ok_or(Error::NotPositiveDefinite { what: "fantasy" })
    }

    pub(crate) fn fantasize_slice(&self, p: &[f64], y: f64) -> Option<ExactGp> {
        let n = self.n();
        let b = self.kvec(p);
        let c = self.kernel.eval(p, p) + self.noise;
        let (l, ell, delta) = cholesky_append(&self.l, n, &b, c, PIVOT_TOL)?;
        let mut w = self.w.clone();
        w.push((y - self.mean - ell.iter().zip(&self.w).map(|(a, b)| a * b).sum::<f64>()) / delta);
        let mut x = self.x.clone();
        x.extend_from_slice(p);
        let mut ys = self.y.clone();
        ys.push(y);
        Some(ExactGp {
            d: self.d,
            x,
            y: ys,
            mean: self.mean,
            noise: self.noise,
            kernel: self.kernel.clone(),
            l,
            w,
        })
    }

    /// The log marginal likelihood
    /// `log p(y) = −½ (y − m)ᵀ(K + ηI)⁻¹(y − m) − ½ log|K + ηI| − (n/2) log 2π`. O(n).
    pub fn log_marginal_likelihood(&self) -> f64 {
        let n = self.n();
        let quad: f64 = self.w.iter().map(|v| v * v).sum();
        let logdet: f64 = (0..n).map(|i| self.l[i * n + i].ln()).sum::<f64>() * 2.0;
        -0.5 * quad - 0.5 * logdet - 0.5 * n as f64 * (2.0 * std::f64::consts::PI).ln()
    }
}

/// Gamma prior `Γ(shape, rate)`: `log p(t) = (a − 1) log t − b t + const`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct GammaPrior {
    /// Concentration `a > 0`.
    pub shape: f64,
    /// Rate `b > 0`.
    pub rate: f64,
}

impl GammaPrior {
    fn log_density(&self, t: f64) -> f64 {
        (self.shape - 1.0) * t.ln() - self.rate * t
    }
}

/// Settings of the MAP fit [`fit_map`].
#[derive(Debug, Clone, PartialEq)]
pub struct FitConfig {
    /// Correlation family (default Matérn-5/2, as BoTorch 0.9).
    pub kind: KernelKind,
    /// Fixed noise variance `η` (default 1e-4, the paper's).
    pub noise: f64,
    /// Prior on each lengthscale (default Γ(3, 6)); `None` for maximum likelihood.
    pub lengthscale_prior: Option<GammaPrior>,
    /// Prior on the outputscale (default Γ(2, 0.15)).
    pub outputscale_prior: Option<GammaPrior>,
    /// L-BFGS settings of each restart.
    pub lbfgs: LbfgsConfig,
}

impl Default for FitConfig {
    fn default() -> Self {
        FitConfig {
            kind: KernelKind::Matern52,
            noise: 1e-4,
            lengthscale_prior: Some(GammaPrior {
                shape: 3.0,
                rate: 6.0,
            }),
            outputscale_prior: Some(GammaPrior {
                shape: 2.0,
                rate: 0.15,
            }),
            lbfgs: LbfgsConfig {
                max_iters: 100,
                ..LbfgsConfig::default()
            },
        }
    }
}

/// MAP fit of the lengthscales `ℓ`, outputscale `s` and constant mean `m`:
/// maximises `log p(y | ℓ, s, m) + Σₖ log p(ℓₖ) + log p(s)` with the noise
/// fixed, over `log ℓₖ ∈ [log 1e-3, log 1e2]`, `log s ∈ [log 1e-4, log 1e4]`
/// and `m` within the range of `y` widened by its span, by multi-start L-BFGS
/// (three starts: `ℓ ∈ {prior mode or 0.5, 1, 0.1}`, `s = max(var y, 1e-2)`,
/// `m = mean y`) with central-difference gradients (BoTorch uses autograd;
/// the optimum is the same). Inputs are expected on a unit-scale box (the
/// priors assume so, as in BoTorch 0.9 without an input transform).
/// Cost: O(restarts · iterations · d · n³).
///
/// # Errors
/// As [`ExactGp::new`], and [`Error::InvalidParameter`] for a bad prior or
/// targets spread over more than 1e150 (whose log-likelihood overflows at
/// every admissible outputscale).
pub fn fit_map(x: ArrayView2<'_, f64>, y: ArrayView1<'_, f64>, cfg: &FitConfig) -> Result<ExactGp> {
    let (n, d) = x.dim();
    if n == 0 {
        return Err(Error::EmptyTrainingSet);
    }
    if d == 0 {
        return Err(Error::InvalidBatchSize { what: "dimension" });
    }
    for p in [cfg.lengthscale_prior, cfg.outputscale_prior]
        .into_iter()
        .flatten()
    {
        if !(p.shape > 0.0 && p.rate > 0.0 && p.shape.is_finite() && p.rate.is_finite()) {
            return Err(Error::InvalidParameter {
                name: "gamma prior",
                value: p.shape.min(p.rate),
                expected: "shape > 0 and rate > 0",
            });
        }
    }
    // Validate shapes and values once with a trial kernel.
    let trial = Kernel::new(cfg.kind, vec![1.0; d], 1.0)?;
    let probe = ExactGp::new(x, y, trial, 0.0, cfg.noise.max(1e-6))?;
    let xs = probe.x.clone();
    let ys = probe.y.clone();
    // Kept sequential on purpose (not mlcore::stats::mean / variance): the
    // multistart pins of tests/optim.rs, recorded bit for bit on the
    // pre-move optimiser (c326e1a), start from these exact roundings; a
    // pairwise sum moves the d = 2 MAP fit by ~1e-8 (within the optimiser's
    // tolerance, but no longer bit for bit). Both are moderate O(n) sums of
    // validated, finite y.
    let mean_y = ys.iter().sum::<f64>() / n as f64;
    let var_y = ys.iter().map(|v| (v - mean_y).powi(2)).sum::<f64>() / n as f64;
    let (ymin, ymax) = ys
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &v| {
            (a.min(v), b.max(v))
        });
    // The outputscale is bounded to [1e-4, 1e4], so the log-likelihood's
    // (y − m)²/s term overflows for targets spread beyond ~1e150: refuse
    // them rather than return a fit whose log-likelihood is −∞.
    if ymax - ymin > 1e150 {
        return Err(Error::InvalidParameter {
            name: "target spread max y − min y",
            value: ymax - ymin,
            expected: "at most 1e150 (standardise the targets first)",
        });
    }
    let span = (ymax - ymin).max(1.0);
    let mut lower = vec![(1e-3f64).ln(); d];
    let mut upper = vec![(1e2f64).ln(); d];
    lower.push((1e-4f64).ln());
    upper.push((1e4f64).ln());
    lower.push(ymin - span);
    upper.push(ymax + span);
    let bounds = Bounds::new(lower, upper)?;
    let build = |th: &[f64]| -> Option<ExactGp> {
        let ls: Vec<f64> = th[..d].iter().map(|v| v.exp()).collect();
        let k = Kernel::new(cfg.kind, ls, th[d].exp()).ok()?;
        ExactGp::from_flat(xs.clone(), d, ys.clone(), k, th[d + 1], cfg.noise).ok()
    };
    let objective = |th: &[f64]| -> f64 {
        let Some(gp) = build(th) else {
            return -1e10;
        };
        let mut v = gp.log_marginal_likelihood();
        if let Some(p) = cfg.lengthscale_prior {
            v += th[..d].iter().map(|t| p.log_density(t.exp())).sum::<f64>();
        }
        if let Some(p) = cfg.outputscale_prior {
            v += p.log_density(th[d].exp());
        }
        v
    };
    let mode = cfg
        .lengthscale_prior
        .filter(|p| p.shape > 1.0)
        .map(|p| (p.shape - 1.0) / p.rate)
        .unwrap_or(0.5);
    let s0 = var_y.max(1e-2).ln();
    let starts: Vec<Vec<f64>> = [mode, 1.0, 0.1]
        .iter()
        .map(|&l| {
            let mut s = vec![l.ln(); d];
            s.push(s0);
            s.push(mean_y);
            bounds.clamp(&s)
        })
        .collect();
    let opts = maximize_multistart(&FnObjective(objective), &bounds, &starts, &cfg.lbfgs)?;
    let best = best_of(&opts).expect("at least one start");
    build(&best.x).ok_or(Error::NotPositiveDefinite { what: "K + ηI" })
}
