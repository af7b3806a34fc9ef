//! Effect estimators under network interference: Hájek by exposure strata,
//! regression adjustment, and a simplified-GCN (SGC) estimator with a ridge
//! head. Each takes an optional per-edge **affinity**, so it runs on the
//! original graph (`None`: all affinities 1) or on the Ricci-flow graph
//! ([`crate::flow::to_affinity`] of the flow weights).

use crate::causal::{Estimand, check_affinity, exposure, finite_all, len_check, neighbour_mean};
use crate::error::{Error, Result};
use crate::graph::{NodeLabel, WeightedGraph};
use mlcore::check::require;
use mlcore::linalg::solve_spd;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, s};
use rand::{Rng, RngExt};

/// A fitted outcome model `μ̂ᵢ(t, z)` for every unit.
pub trait OutcomeModel {
    /// `μ̂ᵢ(t, z)` for all units.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a non-finite `t` or `z`;
    /// estimator-specific (an empty Hájek stratum).
    fn predict(&self, t: f64, z: f64) -> Result<Array1<f64>>;

    /// The estimated per-unit effect `μ̂ᵢ(t₁, z₁) − μ̂ᵢ(t₀, z₀)` of an estimand.
    ///
    /// # Errors
    /// As [`OutcomeModel::predict`].
    fn effect(&self, e: Estimand) -> Result<Array1<f64>> {
        let ((t1, z1), (t0, z0)) = e.contrast();
        Ok(self.predict(t1, z1)? - self.predict(t0, z0)?)
    }
}

fn check_data(n: usize, t: ArrayView1<'_, f64>, y: ArrayView1<'_, f64>) -> Result<()> {
    len_check("t", n, t.len())?;
    len_check("y", n, y.len())?;
    for (what, v) in [("t", t), ("y", y)] {
        if let Some(index) = v.iter().position(|x| !x.is_finite()) {
            return Err(Error::NonFinite { what, index });
        }
    }
    if let Some(index) = t.iter().position(|&x| x != 0.0 && x != 1.0) {
        return Err(Error::InvalidParameter {
            name: "t",
            value: t[index],
            expected: "a binary treatment (0 or 1)",
        });
    }
    Ok(())
}

/// Hájek estimator of the mean outcome in exposure strata `(t, z-bin)`
/// with known design probabilities:
///
/// `μ̂(t, b) = Σ_{i: Tᵢ=t, Zᵢ∈b} Yᵢ/πᵢ(t,b) / Σ_{i: Tᵢ=t, Zᵢ∈b} 1/πᵢ(t,b)`,
/// `πᵢ(t, b) = P(Tᵢ = t)·P(Zᵢ ∈ b)`.
///
/// On the original graph `P(Zᵢ ∈ b)` is exact: `|N(i)| Zᵢ` is
/// Poisson-binomial in the neighbours' propensities (`O(deg²)` per node).
/// With an affinity the exposure is the affinity-weighted fraction and
/// `P(Zᵢ ∈ b)` is estimated from `mc_draws` draws of the design (a
/// probability estimated as 0 for an observed stratum is floored at
/// `1/(2·mc_draws)`). The same `μ̂` serves every unit.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HajekExposure {
    /// Number of equal-width exposure bins on `[0, 1]`.
    pub bins: usize,
    /// Design draws for the weighted-exposure probabilities.
    pub mc_draws: usize,
}

impl Default for HajekExposure {
    /// 5 bins, 2000 draws.
    fn default() -> Self {
        HajekExposure {
            bins: 5,
            mc_draws: 2000,
        }
    }
}

/// A fitted [`HajekExposure`].
#[derive(Debug, Clone, PartialEq)]
pub struct HajekFit {
    /// `μ̂(t, b)`, `None` for an empty stratum; index `[t][b]`.
    pub means: [Vec<Option<f64>>; 2],
    n: usize,
    bins: usize,
}

/// `P(Zᵢ ∈ b)` for every node and each of `nb` equal-width bins of the
/// fraction-of-treated-neighbours exposure, exact: `|N(i)| Zᵢ` is
/// Poisson-binomial in the neighbours' propensities. `O(Σᵢ deg²)`.
pub(crate) fn exposure_bin_probabilities<N: NodeLabel>(
    g: &WeightedGraph<N>,
    propensity: ArrayView1<'_, f64>,
    nb: usize,
) -> Vec<Vec<f64>> {
    let mut pz = vec![vec![0.0; nb]; g.n_nodes()];
    for (i, row) in pz.iter_mut().enumerate() {
        let mut dist = vec![1.0];
        for &(j, _) in g.nbrs(i) {
            let p = propensity[j];
            let mut next = vec![0.0; dist.len() + 1];
            for (k, &q) in dist.iter().enumerate() {
                next[k] += q * (1.0 - p);
                next[k + 1] += q * p;
            }
            dist = next;
        }
        let d = g.deg(i) as f64;
        for (k, &q) in dist.iter().enumerate() {
            row[bin_of(k as f64 / d, nb)] += q;
        }
    }
    pz
}

pub(crate) fn bin_of(z: f64, bins: usize) -> usize {
    ((z * bins as f64).floor() as usize).min(bins - 1)
}

impl HajekExposure {
    /// Fits the stratum means.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `bins = 0` or `mc_draws = 0`, or a
    /// non-binary `t`; [`Error::LengthMismatch`]; [`Error::NonFinite`];
    /// [`Error::PropensityOutOfBounds`] for `πᵢ ∉ (0, 1)`;
    /// [`Error::NoNeighbours`]; [`Error::TooLarge`] when `n × bins`
    /// overflows or exceeds [`mlcore::check::MAX_ALLOC_BYTES`].
    #[allow(clippy::too_many_arguments)]
    pub fn fit<N: NodeLabel, R: Rng + ?Sized>(
        &self,
        g: &WeightedGraph<N>,
        affinity: Option<&[f64]>,
        t: ArrayView1<'_, f64>,
        y: ArrayView1<'_, f64>,
        propensity: ArrayView1<'_, f64>,
        rng: &mut R,
    ) -> Result<HajekFit> {
        require(self.bins >= 1, "bins", self.bins as f64, "at least 1")?;
        require(
            self.mc_draws >= 1,
            "mc_draws",
            self.mc_draws as f64,
            "at least 1",
        )?;
        let n = g.n_nodes();
        mlcore::check::alloc_len(&[n, self.bins], 8, "exposure-bin probabilities")?;
        check_data(n, t, y)?;
        len_check("propensity", n, propensity.len())?;
        if let Some(&p) = propensity.iter().find(|p| !(**p > 0.0 && **p < 1.0)) {
            return Err(Error::PropensityOutOfBounds(p));
        }
        let z = exposure(g, t, affinity)?;
        let nb = self.bins;
        // P(Zᵢ ∈ b) for every node.
        let mut pz = vec![vec![0.0; nb]; n];
        match affinity {
            None => pz = exposure_bin_probabilities(g, propensity, nb),
            Some(_) => {
                let mut tt = Array1::zeros(n);
                for _ in 0..self.mc_draws {
                    for j in 0..n {
                        tt[j] = if rng.random::<f64>() < propensity[j] {
                            1.0
                        } else {
                            0.0
                        };
                    }
                    let zz = exposure(g, tt.view(), affinity)?;
                    for i in 0..n {
                        pz[i][bin_of(zz[i], nb)] += 1.0 / self.mc_draws as f64;
                    }
                }
                let floor = 0.5 / self.mc_draws as f64;
                for row in pz.iter_mut() {
                    row.iter_mut().for_each(|q| *q = q.max(floor));
                }
            }
        }
        let mut num = [vec![0.0; nb], vec![0.0; nb]];
        let mut den = [vec![0.0; nb], vec![0.0; nb]];
        for i in 0..n {
            let ti = t[i] as usize;
            let b = bin_of(z[i], nb);
            let pt = if ti == 1 {
                propensity[i]
            } else {
                1.0 - propensity[i]
            };
            let w = 1.0 / (pt * pz[i][b]);
            num[ti][b] += w * y[i];
            den[ti][b] += w;
        }
        let means = [0, 1].map(|ti| {
            (0..nb)
                .map(|b| (den[ti][b] > 0.0).then(|| num[ti][b] / den[ti][b]))
                .collect()
        });
        Ok(HajekFit { means, n, bins: nb })
    }
}

/// A contrast level `(t, z)` must be finite.
fn check_level(t: f64, z: f64) -> Result<()> {
    require(t.is_finite(), "t", t, "a finite treatment level")?;
    require(z.is_finite(), "z", z, "a finite exposure")?;
    Ok(())
}

impl OutcomeModel for HajekFit {
    fn predict(&self, t: f64, z: f64) -> Result<Array1<f64>> {
        check_level(t, z)?;
        let ti = if t >= 0.5 { 1 } else { 0 };
        let b = bin_of(z.clamp(0.0, 1.0), self.bins);
        self.means[ti][b]
            .map(|m| Array1::from_elem(self.n, m))
            .ok_or(Error::EmptyStratum {
                t: ti as u8,
                z_bin: b,
            })
    }
}

/// Hájek estimate of the average treatment effect with known propensities
/// (valid without interference):
/// `Σ Tᵢ Yᵢ/πᵢ / Σ Tᵢ/πᵢ − Σ (1−Tᵢ) Yᵢ/(1−πᵢ) / Σ (1−Tᵢ)/(1−πᵢ)`. `O(n)`.
///
/// # Errors
/// [`Error::LengthMismatch`]; [`Error::NonFinite`];
/// [`Error::PropensityOutOfBounds`]; [`Error::EmptyStratum`] when an arm is empty.
pub fn hajek_ate(
    t: ArrayView1<'_, f64>,
    y: ArrayView1<'_, f64>,
    propensity: ArrayView1<'_, f64>,
) -> Result<f64> {
    check_data(t.len(), t, y)?;
    len_check("propensity", t.len(), propensity.len())?;
    if let Some(&p) = propensity.iter().find(|p| !(**p > 0.0 && **p < 1.0)) {
        return Err(Error::PropensityOutOfBounds(p));
    }
    let (mut n1, mut d1, mut n0, mut d0) = (0.0, 0.0, 0.0, 0.0);
    for i in 0..t.len() {
        if t[i] == 1.0 {
            n1 += y[i] / propensity[i];
            d1 += 1.0 / propensity[i];
        } else {
            n0 += y[i] / (1.0 - propensity[i]);
            d0 += 1.0 / (1.0 - propensity[i]);
        }
    }
    if d1 == 0.0 {
        return Err(Error::EmptyStratum { t: 1, z_bin: 0 });
    }
    if d0 == 0.0 {
        return Err(Error::EmptyStratum { t: 0, z_bin: 0 });
    }
    Ok(n1 / d1 - n0 / d0)
}

/// Ridge regression `β = (AᵀA + λ D)⁻¹ Aᵀy`, `D = diag(0, 1, …, 1)` (the
/// intercept, column 0, is not penalised), plus a `1e-10·tr` jitter.
fn ridge(a: ArrayView2<'_, f64>, y: ArrayView1<'_, f64>, lambda: f64) -> Result<Array1<f64>> {
    let mut g = a.t().dot(&a);
    let tr = g.diag().sum() / g.nrows() as f64;
    for k in 0..g.nrows() {
        g[[k, k]] += if k == 0 { 0.0 } else { lambda } + 1e-10 * tr.max(1.0);
    }
    let b = a.t().dot(&y);
    let beta = solve_spd(g.view(), b.view())?;
    // Finite data near f64::MAX can overflow the normal equations.
    finite_all("regression coefficients (overflow)", beta.iter())?;
    Ok(beta)
}

/// A linear outcome model `μ̂ᵢ(t, z) = φ(i, t, z)ᵀ β` over node features.
#[derive(Debug, Clone, PartialEq)]
pub struct LinearFit {
    /// Node features `Fᵢ` (without `t`, `z`).
    pub features: Array2<f64>,
    /// Coefficients, in the order `[1, t, (z, t z), F, t F]`.
    pub beta: Array1<f64>,
    exposure_aware: bool,
}

impl LinearFit {
    fn design(
        f: ArrayView2<'_, f64>,
        t: ArrayView1<'_, f64>,
        z: ArrayView1<'_, f64>,
        aware: bool,
    ) -> Array2<f64> {
        let (n, p) = f.dim();
        let extra = if aware { 4 } else { 2 };
        let mut a = Array2::zeros((n, extra + 2 * p));
        for i in 0..n {
            a[[i, 0]] = 1.0;
            a[[i, 1]] = t[i];
            if aware {
                a[[i, 2]] = z[i];
                a[[i, 3]] = t[i] * z[i];
            }
            for k in 0..p {
                a[[i, extra + k]] = f[[i, k]];
                a[[i, extra + p + k]] = t[i] * f[[i, k]];
            }
        }
        a
    }

    pub(crate) fn fit(
        f: Array2<f64>,
        t: ArrayView1<'_, f64>,
        z: ArrayView1<'_, f64>,
        y: ArrayView1<'_, f64>,
        aware: bool,
        lambda: f64,
    ) -> Result<Self> {
        let a = Self::design(f.view(), t, z, aware);
        let beta = ridge(a.view(), y, lambda)?;
        Ok(LinearFit {
            features: f,
            beta,
            exposure_aware: aware,
        })
    }
}

impl OutcomeModel for LinearFit {
    fn predict(&self, t: f64, z: f64) -> Result<Array1<f64>> {
        check_level(t, z)?;
        let n = self.features.nrows();
        let a = Self::design(
            self.features.view(),
            Array1::from_elem(n, t).view(),
            Array1::from_elem(n, z).view(),
            self.exposure_aware,
        );
        Ok(a.dot(&self.beta))
    }
}

/// Regression adjustment: least squares (tiny ridge) on
/// `[1, t, z, t z, X, X̄, t X, t X̄]` with `X̄` the (affinity-weighted)
/// neighbour mean of the covariates; the exposure-blind variant drops
/// `z, t z`. `O(n p² + p³)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RegressionAdjustment {
    /// Include the exposure terms.
    pub exposure_aware: bool,
    /// Include the neighbour-mean covariates `X̄`.
    pub neighbour_covariates: bool,
    /// Ridge `λ ≥ 0` (default `1e-6`, for conditioning only).
    pub ridge: f64,
}

impl Default for RegressionAdjustment {
    fn default() -> Self {
        RegressionAdjustment {
            exposure_aware: true,
            neighbour_covariates: true,
            ridge: 1e-6,
        }
    }
}

fn check_x(n: usize, x: ArrayView2<'_, f64>, z: ArrayView1<'_, f64>) -> Result<()> {
    len_check("x rows", n, x.nrows())?;
    len_check("z", n, z.len())?;
    if let Some(index) = x.iter().position(|v| !v.is_finite()) {
        return Err(Error::NonFinite { what: "x", index });
    }
    if let Some(index) = z.iter().position(|v| !v.is_finite()) {
        return Err(Error::NonFinite { what: "z", index });
    }
    Ok(())
}

/// The checks shared by the fitted estimators: a ridge `λ ≥ 0`, and data of
/// one length per node.
fn check_fit(
    ridge: f64,
    n: usize,
    x: ArrayView2<'_, f64>,
    t: ArrayView1<'_, f64>,
    z: ArrayView1<'_, f64>,
    y: ArrayView1<'_, f64>,
) -> Result<()> {
    require(ridge >= 0.0 && ridge.is_finite(), "ridge", ridge, "λ ≥ 0")?;
    check_data(n, t, y)?;
    check_x(n, x, z)
}

impl RegressionAdjustment {
    /// Fits the outcome model. `z` is the observed exposure.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`]; [`Error::NonFinite`];
    /// [`Error::InvalidParameter`] for `λ < 0` or a non-binary `t`;
    /// a singular design ([`Error::Core`]).
    pub fn fit<N: NodeLabel>(
        &self,
        g: &WeightedGraph<N>,
        affinity: Option<&[f64]>,
        x: ArrayView2<'_, f64>,
        t: ArrayView1<'_, f64>,
        z: ArrayView1<'_, f64>,
        y: ArrayView1<'_, f64>,
    ) -> Result<LinearFit> {
        check_fit(self.ridge, g.n_nodes(), x, t, z, y)?;
        let f = if self.neighbour_covariates {
            let xb = neighbour_mean(g, x, affinity)?;
            ndarray::concatenate(ndarray::Axis(1), &[x, xb.view()]).expect("same rows")
        } else {
            x.to_owned()
        };
        LinearFit::fit(f, t, z, y, self.exposure_aware, self.ridge)
    }
}

/// Simplified GCN (Wu et al. 2019) estimator, no autodiff: the
/// representation `H = Sᴷ X` with `S = D̃^{-1/2} Ã D̃^{-1/2}` (GCN's
/// symmetric normalisation, the default) or `S = D̃^{-1} Ã` (mean
/// aggregation), `Ã = A_a + I` (`A_a` the affinity-weighted adjacency), then a
/// ridge head on `[1, t, z, t z, H, t H]`. This stands in for NetEst's GCN
/// encoder (the adversarial balancing heads are not reproduced).
/// `O(K m p + n p² + p³)`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SgcEstimator {
    /// Propagation steps `K`.
    pub hops: usize,
    /// Ridge `λ ≥ 0` of the head.
    pub ridge: f64,
    /// Propagation normalisation.
    pub normalization: Normalization,
}

/// The propagation matrix of [`SgcEstimator`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Normalization {
    /// `D̃^{-1/2} Ã D̃^{-1/2}` (GCN, SGC). Its row sums vary with degree,
    /// which scales `H` node by node.
    Symmetric,
    /// `D̃^{-1} Ã` (mean aggregation, rows sum to 1).
    RandomWalk,
}

impl Default for SgcEstimator {
    /// `K = 2`, `λ = 1`, symmetric normalisation.
    fn default() -> Self {
        SgcEstimator {
            hops: 2,
            ridge: 1.0,
            normalization: Normalization::Symmetric,
        }
    }
}

/// `Sᴷ X` with `S = D̃^{-1/2}(A_a + I)D̃^{-1/2}` or `D̃^{-1}(A_a + I)`.
///
/// # Errors
/// [`Error::LengthMismatch`]; [`Error::NonFinite`] for a NaN/∞ feature (or
/// one whose propagation overflows); [`Error::InvalidParameter`] for a
/// negative or non-finite affinity.
pub fn sgc_propagate<N: NodeLabel>(
    g: &WeightedGraph<N>,
    affinity: Option<&[f64]>,
    x: ArrayView2<'_, f64>,
    hops: usize,
    normalization: Normalization,
) -> Result<Array2<f64>> {
    let n = g.n_nodes();
    len_check("x rows", n, x.nrows())?;
    finite_all("x", x.iter())?;
    check_affinity(g, affinity)?;
    let aff = |e: usize| affinity.map_or(1.0, |a| a[e]);
    let deg: Vec<f64> = (0..n)
        .map(|i| 1.0 + g.nbrs(i).iter().map(|&(_, e)| aff(e)).sum::<f64>())
        .collect();
    let mut h = x.to_owned();
    for _ in 0..hops {
        let mut next = Array2::zeros(h.raw_dim());
        for i in 0..n {
            let di = deg[i].sqrt();
            next.row_mut(i).scaled_add(1.0 / deg[i], &h.row(i));
            for &(j, e) in g.nbrs(i) {
                let c = match normalization {
                    Normalization::Symmetric => aff(e) / (di * deg[j].sqrt()),
                    Normalization::RandomWalk => aff(e) / deg[i],
                };
                next.row_mut(i).scaled_add(c, &h.row(j));
            }
        }
        h = next;
    }
    finite_all("propagated features (overflow)", h.iter())?;
    Ok(h)
}

impl SgcEstimator {
    /// Fits the representation and the ridge head.
    ///
    /// # Errors
    /// As [`RegressionAdjustment::fit`], plus [`sgc_propagate`]'s.
    pub fn fit<N: NodeLabel>(
        &self,
        g: &WeightedGraph<N>,
        affinity: Option<&[f64]>,
        x: ArrayView2<'_, f64>,
        t: ArrayView1<'_, f64>,
        z: ArrayView1<'_, f64>,
        y: ArrayView1<'_, f64>,
    ) -> Result<LinearFit> {
        check_fit(self.ridge, g.n_nodes(), x, t, z, y)?;
        let h = sgc_propagate(g, affinity, x, self.hops, self.normalization)?;
        LinearFit::fit(h, t, z, y, true, self.ridge)
    }
}

/// The slice of a [`LinearFit`]'s coefficients on the treatment, for
/// inspection: `(β_t, β_{tF})`.
pub fn treatment_coefficients(fit: &LinearFit) -> (f64, Array1<f64>) {
    let extra = if fit.exposure_aware { 4 } else { 2 };
    let p = fit.features.ncols();
    (
        fit.beta[1],
        fit.beta.slice(s![extra + p..extra + 2 * p]).to_owned(),
    )
}
