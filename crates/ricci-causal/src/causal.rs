//! A network data-generating process with interference through exposure,
//! and the estimands (individual, peer, total effect; √PEHE).
//!
//! **Reconstructed setting** (the paper's exact simulation is not public;
//! this follows the NetEst setting the paper builds on). Unit `i` has latent
//! covariates `Uᵢ ∈ ℝᵖ` with signal `sᵢ = mean_k Uᵢₖ`, observed covariates
//! `Xᵢ = Uᵢ + σ_x·N(0, I)`, treatment `Tᵢ ~ Bernoulli(πᵢ)` with
//! `logit πᵢ = logit p + c·sᵢ`, exposure `Zᵢ = (1/|N(i)|) Σ_{j∈N(i)} Tⱼ`,
//! and potential outcomes
//!
//! `Yᵢ(t, z) = β₀ + β_x sᵢ + β_nx s̄_{N(i)} + t (β_t + h sᵢ) + β_z z + β_tz t z + εᵢ`,
//!
//! `εᵢ ~ N(0, σ²)` fixed per unit. Estimands: individual `Y(1,0) − Y(0,0)`,
//! peer `Y(0, 0.7) − Y(0, 0.2)`, total `Y(1,1) − Y(0,0)` (NetEst's).

use crate::error::{Error, Result};
use crate::graph::{NodeLabel, WeightedGraph};
use mlcore::check::require;
use mlcore::sampling::standard_normal;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2};
use rand::{Rng, RngExt};

/// Parameters of the data-generating process. `Default`: `β₀ = 0`,
/// `β_x = 1`, `β_nx = 0.5`, `β_t = 1`, `h = 1`, `β_z = 1`, `β_tz = 0`,
/// `c = 0` (randomised), `p = 0.5`, `σ = 0.5`, `σ_x = 1`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NetworkDgp {
    /// Intercept `β₀`.
    pub beta0: f64,
    /// Own-signal effect `β_x`.
    pub beta_x: f64,
    /// Neighbours' mean signal effect `β_nx`.
    pub beta_nx: f64,
    /// Average direct treatment effect `β_t`.
    pub beta_t: f64,
    /// Effect heterogeneity `h`: the individual effect is `β_t + h sᵢ`.
    pub hetero: f64,
    /// Peer (exposure) effect `β_z`; 0 means no interference.
    pub beta_z: f64,
    /// Treatment × exposure interaction `β_tz`.
    pub beta_tz: f64,
    /// Confounding `c` of the treatment by the signal.
    pub confounding: f64,
    /// Base treatment probability `p ∈ (0, 1)`.
    pub p_treat: f64,
    /// Outcome noise sd `σ`.
    pub noise_sd: f64,
    /// Covariate measurement noise `σ_x`.
    pub covariate_noise: f64,
}

impl Default for NetworkDgp {
    fn default() -> Self {
        NetworkDgp {
            beta0: 0.0,
            beta_x: 1.0,
            beta_nx: 0.5,
            beta_t: 1.0,
            hetero: 1.0,
            beta_z: 1.0,
            beta_tz: 0.0,
            confounding: 0.0,
            p_treat: 0.5,
            noise_sd: 0.5,
            covariate_noise: 1.0,
        }
    }
}

/// One draw of the process on a graph.
#[derive(Debug, Clone)]
pub struct NetworkSample {
    /// Observed covariates `X` (`n × p`).
    pub x: Array2<f64>,
    /// Treatments `T ∈ {0, 1}`.
    pub t: Array1<f64>,
    /// Exposures `Z` (fraction of treated neighbours).
    pub z: Array1<f64>,
    /// Observed outcomes `Y = Y(T, Z)`.
    pub y: Array1<f64>,
    /// Design probabilities `πᵢ = P(Tᵢ = 1)`.
    pub propensity: Array1<f64>,
    /// Latent signal `sᵢ`.
    pub signal: Array1<f64>,
    /// Neighbours' mean signal `s̄_{N(i)}`.
    pub neighbour_signal: Array1<f64>,
    /// Outcome noise `εᵢ`.
    pub noise: Array1<f64>,
    /// The process that drew it.
    pub dgp: NetworkDgp,
}

impl NetworkSample {
    /// Number of units.
    pub fn len(&self) -> usize {
        self.y.len()
    }

    /// Whether there are no units.
    pub fn is_empty(&self) -> bool {
        self.y.is_empty()
    }

    /// The potential outcomes `Yᵢ(t, z)` of every unit (noise included).
    /// `O(n)`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a non-finite `t` or `z`;
    /// [`Error::NonFinite`] when an outcome overflows.
    pub fn potential(&self, t: f64, z: f64) -> Result<Array1<f64>> {
        require(t.is_finite(), "t", t, "a finite treatment level")?;
        require(z.is_finite(), "z", z, "a finite exposure")?;
        let p = &self.dgp;
        let y = Array1::from_shape_fn(self.len(), |i| {
            let s = self.signal[i];
            p.beta0
                + p.beta_x * s
                + p.beta_nx * self.neighbour_signal[i]
                + t * (p.beta_t + p.hetero * s)
                + p.beta_z * z
                + p.beta_tz * t * z
                + self.noise[i]
        });
        finite_all("potential outcome (overflow)", y.iter())?;
        Ok(y)
    }

    /// The true per-unit effect of an estimand. `O(n)`.
    ///
    /// # Errors
    /// [`Error::NonFinite`] when an outcome overflows.
    pub fn true_effect(&self, e: Estimand) -> Result<Array1<f64>> {
        let ((t1, z1), (t0, z0)) = e.contrast();
        Ok(self.potential(t1, z1)? - self.potential(t0, z0)?)
    }
}

/// The causal contrasts of NetEst.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Estimand {
    /// `Y(1, 0) − Y(0, 0)`.
    Individual,
    /// `Y(0, 0.7) − Y(0, 0.2)`.
    Peer,
    /// `Y(1, 1) − Y(0, 0)`.
    Total,
}

impl Estimand {
    /// `((t₁, z₁), (t₀, z₀))` of the contrast `Y(t₁, z₁) − Y(t₀, z₀)`.
    pub fn contrast(self) -> ((f64, f64), (f64, f64)) {
        match self {
            Estimand::Individual => ((1.0, 0.0), (0.0, 0.0)),
            Estimand::Peer => ((0.0, 0.7), (0.0, 0.2)),
            Estimand::Total => ((1.0, 1.0), (0.0, 0.0)),
        }
    }
}

/// Exposure `zᵢ = Σ_j a_ij tⱼ / Σ_j a_ij` over neighbours (affinity `a`
/// per edge, 1 when `None`: the fraction of treated neighbours). `O(m)`.
///
/// # Errors
/// [`Error::LengthMismatch`] for `t` or the affinity; [`Error::NonFinite`]
/// for a NaN/∞ treatment; [`Error::InvalidParameter`] for a negative or
/// non-finite affinity; [`Error::NoNeighbours`] for a node with no
/// neighbour (or zero total affinity).
pub fn exposure<N: NodeLabel>(
    g: &WeightedGraph<N>,
    t: ArrayView1<'_, f64>,
    affinity: Option<&[f64]>,
) -> Result<Array1<f64>> {
    len_check("t", g.n_nodes(), t.len())?;
    finite_all("t", t.iter())?;
    check_affinity(g, affinity)?;
    let mut z = Array1::zeros(g.n_nodes());
    for i in 0..g.n_nodes() {
        let (mut num, mut den) = (0.0, 0.0);
        for &(j, e) in g.nbrs(i) {
            let a = affinity.map_or(1.0, |a| a[e]);
            num += a * t[j];
            den += a;
        }
        if den <= 0.0 {
            return Err(Error::NoNeighbours(i));
        }
        z[i] = num / den;
    }
    Ok(z)
}

/// Neighbour average `x̄ᵢ = Σ_j a_ij xⱼ / Σ_j a_ij` of the rows of `x`
/// (zero row for a node without neighbours). `O(m p)`. Finite inputs
/// above ~1e307 in magnitude can overflow the sum: the result is checked.
///
/// # Errors
/// [`Error::LengthMismatch`]; [`Error::NonFinite`] for a NaN/∞ covariate or
/// an overflowed mean; [`Error::InvalidParameter`] for a negative or
/// non-finite affinity.
pub fn neighbour_mean<N: NodeLabel>(
    g: &WeightedGraph<N>,
    x: ArrayView2<'_, f64>,
    affinity: Option<&[f64]>,
) -> Result<Array2<f64>> {
    len_check("x rows", g.n_nodes(), x.nrows())?;
    finite_all("x", x.iter())?;
    check_affinity(g, affinity)?;
    let mut out = Array2::zeros(x.raw_dim());
    for i in 0..g.n_nodes() {
        let mut den = 0.0;
        for &(j, e) in g.nbrs(i) {
            let a = affinity.map_or(1.0, |a| a[e]);
            den += a;
            out.row_mut(i).scaled_add(a, &x.row(j));
        }
        if den > 0.0 {
            out.row_mut(i).mapv_inplace(|v| v / den);
        }
    }
    finite_all("neighbour mean (overflow)", out.iter())?;
    Ok(out)
}

/// The first non-finite value of `v` as [`Error::NonFinite`].
pub(crate) fn finite_all<'a>(
    what: &'static str,
    v: impl IntoIterator<Item = &'a f64>,
) -> Result<()> {
    match v.into_iter().position(|x| !x.is_finite()) {
        Some(index) => Err(Error::NonFinite { what, index }),
        None => Ok(()),
    }
}

/// An affinity vector: one finite value `≥ 0` per edge.
pub(crate) fn check_affinity<N: NodeLabel>(
    g: &WeightedGraph<N>,
    affinity: Option<&[f64]>,
) -> Result<()> {
    if let Some(a) = affinity {
        len_check("affinity", g.n_edges(), a.len())?;
        if let Some(&v) = a.iter().find(|v| !(v.is_finite() && **v >= 0.0)) {
            return Err(Error::InvalidParameter {
                name: "affinity",
                value: v,
                expected: "a finite affinity ≥ 0 per edge",
            });
        }
    }
    Ok(())
}

pub(crate) fn len_check(what: &'static str, expected: usize, got: usize) -> Result<()> {
    if expected == got {
        Ok(())
    } else {
        Err(Error::LengthMismatch {
            what,
            expected,
            got,
        })
    }
}

/// Community latent covariates: `Uᵢ = μ_{c(i)} + within·N(0, I)`, with
/// community means `μ_c ~ N(0, spread²·I)` (`p` columns).
///
/// # Errors
/// [`Error::InvalidParameter`] for `p = 0` or negative spreads;
/// [`Error::TooLarge`] when `(max label + 1) × p` or `n × p` overflows or
/// exceeds [`mlcore::check::MAX_ALLOC_BYTES`].
pub fn community_latents<R: Rng + ?Sized>(
    labels: &[usize],
    p: usize,
    spread: f64,
    within: f64,
    rng: &mut R,
) -> Result<Array2<f64>> {
    require(p >= 1, "p", p as f64, "p ≥ 1")?;
    require(
        spread >= 0.0 && spread.is_finite(),
        "spread",
        spread,
        "spread ≥ 0",
    )?;
    require(
        within >= 0.0 && within.is_finite(),
        "within",
        within,
        "within ≥ 0",
    )?;
    let k = match labels.iter().copied().max() {
        None => 0,
        Some(m) => m.checked_add(1).ok_or_else(|| Error::TooLarge {
            what: "community means",
            size: "the largest label + 1 overflows usize".into(),
        })?,
    };
    mlcore::check::alloc_len(&[k, p], 8, "community means")?;
    mlcore::check::alloc_len(&[labels.len(), p], 8, "latent covariates")?;
    let mu: Array2<f64> = standard_normal((k, p), rng) * spread;
    let eps: Array2<f64> = standard_normal((labels.len(), p), rng) * within;
    Ok(Array2::from_shape_fn((labels.len(), p), |(i, j)| {
        mu[[labels[i], j]] + eps[[i, j]]
    }))
}

impl NetworkDgp {
    /// Validates the parameters.
    ///
    /// # Errors
    /// [`Error::PropensityOutOfBounds`] for `p ∉ (0, 1)`;
    /// [`Error::InvalidParameter`] for a non-finite coefficient or negative sd.
    pub fn check(&self) -> Result<()> {
        if !(self.p_treat > 0.0 && self.p_treat < 1.0) {
            return Err(Error::PropensityOutOfBounds(self.p_treat));
        }
        for (name, v) in [
            ("beta0", self.beta0),
            ("beta_x", self.beta_x),
            ("beta_nx", self.beta_nx),
            ("beta_t", self.beta_t),
            ("hetero", self.hetero),
            ("beta_z", self.beta_z),
            ("beta_tz", self.beta_tz),
            ("confounding", self.confounding),
        ] {
            require(v.is_finite(), name, v, "a finite value")?;
        }
        require(
            self.noise_sd >= 0.0 && self.noise_sd.is_finite(),
            "noise_sd",
            self.noise_sd,
            "≥ 0",
        )?;
        require(
            self.covariate_noise >= 0.0 && self.covariate_noise.is_finite(),
            "covariate_noise",
            self.covariate_noise,
            "≥ 0",
        )?;
        Ok(())
    }

    /// Draws treatments, exposures, noise and outcomes on `g` given the
    /// latent covariates `u` (`n × p`). `O(n p + m)`.
    ///
    /// # Errors
    /// [`NetworkDgp::check`]'s; [`Error::LengthMismatch`] when `u` has not
    /// `n` rows; [`Error::NonFinite`] for non-finite `u` or when extreme
    /// finite values overflow an outcome; [`Error::NoNeighbours`].
    pub fn sample<N: NodeLabel, R: Rng + ?Sized>(
        &self,
        g: &WeightedGraph<N>,
        u: ArrayView2<'_, f64>,
        rng: &mut R,
    ) -> Result<NetworkSample> {
        self.check()?;
        let n = g.n_nodes();
        len_check("u rows", n, u.nrows())?;
        if u.ncols() == 0 {
            return Err(Error::LengthMismatch {
                what: "u columns",
                expected: 1,
                got: 0,
            });
        }
        if let Some(index) = u.iter().position(|v| !v.is_finite()) {
            return Err(Error::NonFinite { what: "u", index });
        }
        let signal: Array1<f64> = mlcore::stats::mean_axis(u, ndarray::Axis(1))?;
        let s2 = signal.clone().insert_axis(ndarray::Axis(1));
        let neighbour_signal = neighbour_mean(g, s2.view(), None)?.column(0).to_owned();
        let x = &u + &(standard_normal::<_, _>(u.raw_dim(), rng) * self.covariate_noise);
        let logit_p = (self.p_treat / (1.0 - self.p_treat)).ln();
        let propensity = signal.mapv(|s| 1.0 / (1.0 + (-(logit_p + self.confounding * s)).exp()));
        let t = propensity.mapv(|p| if rng.random::<f64>() < p { 1.0 } else { 0.0 });
        let z = exposure(g, t.view(), None)?;
        let noise: Array1<f64> = standard_normal(n, rng) * self.noise_sd;
        let mut s = NetworkSample {
            x,
            t,
            z,
            y: Array1::zeros(n),
            propensity,
            signal,
            neighbour_signal,
            noise,
            dgp: *self,
        };
        s.y = Array1::from_shape_fn(n, |i| {
            let p = &s.dgp;
            let (t, z, sg) = (s.t[i], s.z[i], s.signal[i]);
            p.beta0
                + p.beta_x * sg
                + p.beta_nx * s.neighbour_signal[i]
                + t * (p.beta_t + p.hetero * sg)
                + p.beta_z * z
                + p.beta_tz * t * z
                + s.noise[i]
        });
        // Extreme (finite) coefficients or covariates can overflow.
        finite_all("x (overflow)", s.x.iter())?;
        finite_all("y (overflow)", s.y.iter())?;
        Ok(s)
    }
}

/// `√PEHE = √(mean (τ̂ᵢ − τᵢ)²)`.
///
/// Computed as `s·√(mean ((τ̂ᵢ − τᵢ)/s)²)` with `s = max |τ̂ᵢ − τᵢ|`, so finite
/// inputs never overflow to ∞. `O(n)`.
///
/// # Errors
/// [`Error::LengthMismatch`]; [`Error::LengthMismatch`] with 0 for empty
/// input; [`Error::NonFinite`] for a NaN/∞ estimate or truth, or a
/// difference that overflows (`|τ̂ᵢ − τᵢ| > f64::MAX`).
pub fn sqrt_pehe(estimate: ArrayView1<'_, f64>, truth: ArrayView1<'_, f64>) -> Result<f64> {
    len_check("estimate", truth.len(), estimate.len())?;
    finite_all("estimate", estimate.iter())?;
    finite_all("truth", truth.iter())?;
    if truth.is_empty() {
        return Err(Error::LengthMismatch {
            what: "truth",
            expected: 1,
            got: 0,
        });
    }
    let d: Vec<f64> = estimate.iter().zip(truth).map(|(a, b)| a - b).collect();
    finite_all("estimate − truth (overflow)", d.iter())?;
    let scale = d.iter().fold(0.0f64, |m, x| m.max(x.abs()));
    if scale == 0.0 {
        return Ok(0.0);
    }
    let ms = d.iter().map(|x| (x / scale).powi(2)).sum::<f64>() / d.len() as f64;
    Ok(scale * ms.sqrt())
}
