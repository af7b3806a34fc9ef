//! The generic MLMC engine: level samplers with fine/coarse coupling, the
//! paper's Giles-style allocation, fixed-allocation and adaptive estimators,
//! the rates diagnostic and the nested-MC baseline.
//!
//! Notation (Giles 2008; the paper's defaults): level `ℓ` uses `M_ℓ = 2^ℓ`
//! inner samples, levels run from `dl` (start level, default 3) to `L`;
//! `P_ℓ` is the level-ℓ approximation of `P`, `ΔP_dl = P_dl` and
//! `ΔP_ℓ = P_ℓ^f − P_{ℓ−1}^c` for `ℓ > dl`, so that `E[P_L] = Σ_ℓ E[ΔP_ℓ]`.
//! Assumed rates: `|E[P_ℓ − P]| ≤ c_α 2^{−αℓ}`, `Var ΔP_ℓ ≤ c_v 2^{−βℓ}`,
//! cost `∝ 2^{γℓ}`.

use crate::error::{Error, Result};
use mlcore::stats::Welford;
use rand::Rng;

/// The deepest level allowed: `2^20` inner samples.
pub const MAX_LEVEL: u32 = 20;

/// The inner sample count `M = 2^ℓ` of level `ℓ`, for [`LevelSampler`]
/// implementations.
///
/// # Errors
/// [`Error::LevelTooDeep`] for `ℓ > MAX_LEVEL`.
pub fn inner_samples(level: u32) -> Result<usize> {
    if level > MAX_LEVEL {
        return Err(Error::LevelTooDeep {
            level,
            max: MAX_LEVEL,
        });
    }
    Ok(1usize << level)
}

/// How the coarse approximation `P_{ℓ−1}^c` reuses the fine level's inner samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coupling {
    /// Antithetic (the paper's): the `2^ℓ` inner samples are split into the
    /// even- and odd-indexed halves, the inner value is computed on each half
    /// and the two are averaged. `β ≈ 1.5` for a max-type kink.
    Antithetic,
    /// Standard: the coarse value uses the first half of the inner samples. `β ≈ 1`.
    Standard,
}

/// The MLMC model of the paper's `optimize_mlmc`; `Default` is the paper's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MlmcConfig {
    /// Bias rate `α` (default 1).
    pub alpha: f64,
    /// Variance rate `β` (default 1.5).
    pub beta: f64,
    /// Cost rate `γ` (default 1).
    pub gamma: f64,
    /// Bias constant `c_α` (default 1).
    pub c_bias: f64,
    /// Variance constant `c_v` of the increments (default 1).
    pub c_var: f64,
    /// Variance `v₀` of the single-level estimator (default 1).
    pub var0: f64,
    /// Start level `dl` (default 3, i.e. 8 inner samples).
    pub start_level: u32,
}

impl Default for MlmcConfig {
    fn default() -> Self {
        MlmcConfig {
            alpha: 1.0,
            beta: 1.5,
            gamma: 1.0,
            c_bias: 1.0,
            c_var: 1.0,
            var0: 1.0,
            start_level: 3,
        }
    }
}

impl MlmcConfig {
    /// Validates the rates and constants.
    ///
    /// # Errors
    /// [`Error::InvalidRate`] for a non-finite or non-positive rate or constant;
    /// [`Error::LevelTooDeep`] for `dl ≥ MAX_LEVEL`.
    pub fn check(&self) -> Result<()> {
        for (name, value) in [
            ("alpha", self.alpha),
            ("beta", self.beta),
            ("gamma", self.gamma),
            ("c_bias", self.c_bias),
            ("c_var", self.c_var),
            ("var0", self.var0),
        ] {
            if !(value.is_finite() && value > 0.0) {
                return Err(Error::InvalidRate { name, value });
            }
        }
        if self.start_level >= MAX_LEVEL {
            return Err(Error::LevelTooDeep {
                level: self.start_level + 1,
                max: MAX_LEVEL,
            });
        }
        Ok(())
    }
}

fn check_eps(eps: f64) -> Result<()> {
    if eps.is_finite() && eps > 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidTolerance { epsilon: eps })
    }
}

/// Levels and outer sample sizes from [`allocate`].
#[derive(Debug, Clone, PartialEq)]
pub struct Allocation {
    /// Levels `dl, dl+1, …, L`.
    pub levels: Vec<u32>,
    /// Outer samples `N_ℓ` per level.
    pub n: Vec<usize>,
    /// The constant `K` of the allocation.
    pub k: f64,
    /// The model variance `Σ_ℓ c_v 2^{−βℓ}/N_ℓ` of the estimator.
    pub model_variance: f64,
}

impl Allocation {
    /// The finest level `L`.
    pub fn max_level(&self) -> u32 {
        *self.levels.last().expect("non-empty")
    }
    /// Model cost `Σ_ℓ N_ℓ 2^{γℓ}`.
    pub fn model_cost(&self, gamma: f64) -> f64 {
        self.levels
            .iter()
            .zip(&self.n)
            .map(|(&l, &n)| n as f64 * 2f64.powf(gamma * l as f64))
            .sum()
    }
}

/// The paper's sample allocation (official `optimize_mlmc`, spec formula):
///
/// - `L = max(⌈log₂(√2 c_α / (ε(2^α − 1)))/α⌉, dl + 1)`;
/// - `K = (Σ_{ℓ=dl}^{L} √(c_v 2^{−ℓ(β−γ)}) + √(v₀ 2^γ)) / ε²`;
/// - `N_ℓ = ⌈max(K √(c_v 2^{−ℓ(β+γ)}), 2)⌉`.
///
/// Deviation: the official code writes the `√(v₀2^γ)` term *inside* the
/// `np.sum` (so it is added once per level); the spec's table (reproduced
/// exactly here, e.g. ε = 0.05 → `N = [88, 37, 16]`) has it once, which is
/// what this function does. With this `K`,
/// `Σ_ℓ c_v 2^{−βℓ}/N_ℓ ≤ ε²·S/(S + √(v₀2^γ))` with `S` the sum above; that
/// is `≤ ε²` always, but `≤ ε²/2` only when `S ≤ √(v₀2^γ)` (Giles's
/// classical `2ε⁻²` factor is not in the paper's formula). O(L).
///
/// # Errors
/// [`Error::InvalidTolerance`] for ε ≤ 0 or non-finite; the errors of
/// [`MlmcConfig::check`]; [`Error::LevelTooDeep`] when `L > MAX_LEVEL`;
/// [`Error::Core`] (`TooLarge`) when some `N_ℓ` (saturating at `usize::MAX`
/// for huge variance constants) could not be held in memory.
pub fn allocate(eps: f64, cfg: &MlmcConfig) -> Result<Allocation> {
    check_eps(eps)?;
    cfg.check()?;
    let dl = cfg.start_level;
    let raw = ((2f64.sqrt() * cfg.c_bias / (eps * (2f64.powf(cfg.alpha) - 1.0))).log2()
        / cfg.alpha)
        .ceil();
    if raw > MAX_LEVEL as f64 {
        return Err(Error::LevelTooDeep {
            level: raw.min(u32::MAX as f64) as u32,
            max: MAX_LEVEL,
        });
    }
    let l_max = (raw.max(0.0) as u32).max(dl + 1);
    if l_max > MAX_LEVEL {
        return Err(Error::LevelTooDeep {
            level: l_max,
            max: MAX_LEVEL,
        });
    }
    let levels: Vec<u32> = (dl..=l_max).collect();
    let s: f64 = levels
        .iter()
        .map(|&l| (cfg.c_var * 2f64.powf(-(l as f64) * (cfg.beta - cfg.gamma))).sqrt())
        .sum();
    let k = (s + (cfg.var0 * 2f64.powf(cfg.gamma)).sqrt()) / (eps * eps);
    let n: Vec<usize> = levels
        .iter()
        .map(|&l| {
            (k * (cfg.c_var * 2f64.powf(-(l as f64) * (cfg.beta + cfg.gamma))).sqrt())
                .max(2.0)
                .ceil() as usize
        })
        .collect();
    // Each level's N_ℓ outer samples are held in memory (fine, coarse and
    // increments): a plan beyond the allocation cap cannot run.
    for &nl in &n {
        mlcore::check::alloc_len(
            &[nl, 3],
            8,
            "MLMC level samples (N_l × fine, coarse, increment)",
        )?;
    }
    let model_variance = levels
        .iter()
        .zip(&n)
        .map(|(&l, &nl)| cfg.c_var * 2f64.powf(-cfg.beta * l as f64) / nl as f64)
        .sum();
    Ok(Allocation {
        levels,
        n,
        k,
        model_variance,
    })
}

/// What a [`LevelSampler`] returns for `n` outer samples at one level.
#[derive(Debug, Clone, PartialEq)]
pub struct LevelSamples {
    /// `P_ℓ^f` per outer sample.
    pub fine: Vec<f64>,
    /// `P_{ℓ−1}^c` per outer sample (same base samples), when asked for.
    pub coarse: Option<Vec<f64>>,
    /// The cost spent (the sampler's unit: e.g. inner samples drawn).
    pub cost: f64,
}

impl LevelSamples {
    /// `ΔP = P^f − P^c` per outer sample (`P^f` alone without a coarse part).
    pub fn increments(&self) -> Vec<f64> {
        match &self.coarse {
            Some(c) => self.fine.iter().zip(c).map(|(f, c)| f - c).collect(),
            None => self.fine.clone(),
        }
    }
}

/// A nested-expectation problem with an inner sample size `2^ℓ` per level.
pub trait LevelSampler {
    /// Draws `n` independent outer samples at level `ℓ`; for each, `P_ℓ^f`
    /// and, when `with_coarse`, the coupled `P_{ℓ−1}^c` computed from the
    /// **same** base samples.
    ///
    /// # Errors
    /// The sampler's own (for example a singular fantasy model).
    fn sample<R: Rng + ?Sized>(
        &mut self,
        level: u32,
        n: usize,
        with_coarse: bool,
        rng: &mut R,
    ) -> Result<LevelSamples>;
}

/// Running moments of one level (Welford: one stable pass, no `Σx² − n x̄²`
/// cancellation).
#[derive(Debug, Clone, PartialEq)]
pub struct LevelStats {
    /// The level `ℓ`.
    pub level: u32,
    /// Outer samples drawn `N_ℓ`.
    pub n: usize,
    /// Mean of `ΔP_ℓ`.
    pub mean: f64,
    /// Sample variance of `ΔP_ℓ`.
    pub var: f64,
    /// Mean of `P_ℓ^f`.
    pub mean_fine: f64,
    /// Sample variance of `P_ℓ^f` (the nested-MC variance at this level).
    pub var_fine: f64,
    /// Cost per outer sample.
    pub cost: f64,
    delta: Welford,
    fine: Welford,
    cost_total: f64,
}

impl LevelStats {
    fn new(level: u32) -> Self {
        LevelStats {
            level,
            n: 0,
            mean: 0.0,
            var: 0.0,
            mean_fine: 0.0,
            var_fine: 0.0,
            cost: 0.0,
            delta: Welford::new(),
            fine: Welford::new(),
            cost_total: 0.0,
        }
    }

    /// Adds a sampler's output after checking it: `n` fine values, `n`
    /// coarse values exactly when they were asked for, every value finite,
    /// a finite non-negative cost. A user's sampler that returns NaN or
    /// omits the coarse part would otherwise give a NaN or a silently
    /// uncoupled (biased) estimate.
    fn add(&mut self, s: &LevelSamples, n: usize, with_coarse: bool) -> Result<()> {
        if s.fine.len() != n {
            return Err(Error::DimensionMismatch {
                what: "fine samples returned by the sampler",
                expected: n,
                got: s.fine.len(),
            });
        }
        match (&s.coarse, with_coarse) {
            (Some(c), true) if c.len() != n => {
                return Err(Error::DimensionMismatch {
                    what: "coarse samples returned by the sampler",
                    expected: n,
                    got: c.len(),
                });
            }
            (None, true) => {
                return Err(Error::DimensionMismatch {
                    what: "coarse samples returned by the sampler (asked for, none given)",
                    expected: n,
                    got: 0,
                });
            }
            (Some(_), false) => {
                return Err(Error::DimensionMismatch {
                    what: "coarse samples returned by the sampler (not asked for)",
                    expected: 0,
                    got: n,
                });
            }
            _ => {}
        }
        if s.fine
            .iter()
            .chain(s.coarse.iter().flatten())
            .any(|v| !v.is_finite())
        {
            return Err(Error::NonFinite {
                what: "a level sample returned by the sampler",
            });
        }
        if !(s.cost.is_finite() && s.cost >= 0.0) {
            return Err(Error::InvalidParameter {
                name: "sampler cost",
                value: s.cost,
                expected: "finite and >= 0",
            });
        }
        let inc = s.increments();
        for (&d, &f) in inc.iter().zip(&s.fine) {
            self.delta.push(d);
            self.fine.push(f);
        }
        self.n += inc.len();
        self.cost_total += s.cost;
        let n = self.n.max(1) as f64;
        let or_zero = |v: f64| if self.n > 1 { v } else { 0.0 };
        self.mean = if self.n > 0 { self.delta.mean() } else { 0.0 };
        self.mean_fine = if self.n > 0 { self.fine.mean() } else { 0.0 };
        self.var = or_zero(self.delta.variance());
        self.var_fine = or_zero(self.fine.variance());
        self.cost = self.cost_total / n;
        Ok(())
    }
}

/// An MLMC estimate `P̂ = Σ_ℓ (1/N_ℓ) Σᵢ ΔP_ℓ⁽ⁱ⁾`.
#[derive(Debug, Clone, PartialEq)]
pub struct MlmcEstimate {
    /// `P̂`.
    pub value: f64,
    /// Its estimated variance `Σ_ℓ V_ℓ / N_ℓ`.
    pub variance: f64,
    /// Total cost spent.
    pub cost: f64,
    /// Per-level statistics.
    pub levels: Vec<LevelStats>,
}

/// The estimate from the level statistics; its sums of finite level means
/// can still overflow (values near `f64::MAX`): an error, never `±∞`.
fn summarise(levels: Vec<LevelStats>) -> Result<MlmcEstimate> {
    let e = MlmcEstimate {
        value: levels.iter().map(|s| s.mean).sum(),
        variance: levels.iter().map(|s| s.var / s.n.max(1) as f64).sum(),
        cost: levels.iter().map(|s| s.cost_total).sum(),
        levels,
    };
    if !(e.value.is_finite() && e.variance.is_finite() && e.cost.is_finite()) {
        return Err(Error::NonFinite {
            what: "the MLMC estimate (the sum over levels overflows)",
        });
    }
    Ok(e)
}

fn check_level(level: u32) -> Result<()> {
    if level > MAX_LEVEL {
        Err(Error::LevelTooDeep {
            level,
            max: MAX_LEVEL,
        })
    } else {
        Ok(())
    }
}

/// MLMC with a given allocation (for example [`allocate`]'s): level
/// `alloc.levels[0]` is sampled alone, the others as coupled increments.
/// Cost: `Σ_ℓ N_ℓ` sampler draws.
///
/// # Errors
/// [`Error::InvalidBatchSize`] for an empty allocation or `N_ℓ = 0`,
/// [`Error::DimensionMismatch`] when levels and sizes differ in length or
/// the sampler returns the wrong number of fine or coarse samples (or omits
/// the coarse ones), [`Error::NonFinite`] for a non-finite sample or an
/// estimate whose sum overflows, [`Error::LevelTooDeep`], and the sampler's errors.
pub fn estimate<S: LevelSampler, R: Rng + ?Sized>(
    sampler: &mut S,
    alloc: &Allocation,
    rng: &mut R,
) -> Result<MlmcEstimate> {
    if alloc.levels.is_empty() {
        return Err(Error::InvalidBatchSize { what: "levels" });
    }
    if alloc.levels.len() != alloc.n.len() {
        return Err(Error::DimensionMismatch {
            what: "sample sizes",
            expected: alloc.levels.len(),
            got: alloc.n.len(),
        });
    }
    let mut out = Vec::new();
    for (i, (&l, &n)) in alloc.levels.iter().zip(&alloc.n).enumerate() {
        check_level(l)?;
        if n == 0 {
            return Err(Error::InvalidBatchSize { what: "N_l" });
        }
        let mut st = LevelStats::new(l);
        st.add(&sampler.sample(l, n, i > 0, rng)?, n, i > 0)?;
        out.push(st);
    }
    summarise(out)
}

/// Settings of [`estimate_adaptive`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct AdaptiveConfig {
    /// Pilot outer samples per new level (default 64).
    pub pilot: usize,
    /// Levels used before the bias test (default 3: `dl, dl+1, dl+2`).
    pub initial_levels: u32,
    /// Largest level allowed (default [`MAX_LEVEL`]).
    pub max_level: u32,
}

impl Default for AdaptiveConfig {
    fn default() -> Self {
        AdaptiveConfig {
            pilot: 64,
            initial_levels: 3,
            max_level: MAX_LEVEL,
        }
    }
}

/// Giles's adaptive MLMC for RMSE `ε` (Giles 2015, Algorithm 1; the paper
/// fixes its rates instead, see [`allocate`]): estimate `V_ℓ`, `C_ℓ` from
/// the samples, set `N_ℓ = ⌈2ε⁻² √(V_ℓ/C_ℓ) Σ_k √(V_k C_k)⌉` (variance
/// `≤ ε²/2`), and add a level while the bias estimate
/// `max(|Ŷ_L|, |Ŷ_{L−1}|/2^α)/(2^α − 1)` exceeds `ε/√2`. Uses `cfg.alpha`
/// (bias rate) and `cfg.start_level`. Expected cost `O(ε⁻²)` when `β > γ`.
///
/// # Errors
/// [`Error::InvalidTolerance`], [`MlmcConfig::check`]'s errors,
/// [`Error::InvalidBatchSize`] for `pilot < 2`, [`Error::LevelTooDeep`] when
/// the bias test still fails at `max_level`, and the sampler's errors.
pub fn estimate_adaptive<S: LevelSampler, R: Rng + ?Sized>(
    sampler: &mut S,
    eps: f64,
    cfg: &MlmcConfig,
    acfg: &AdaptiveConfig,
    rng: &mut R,
) -> Result<MlmcEstimate> {
    check_eps(eps)?;
    cfg.check()?;
    if acfg.pilot < 2 {
        return Err(Error::InvalidBatchSize { what: "pilot" });
    }
    let dl = cfg.start_level;
    let mut levels: Vec<LevelStats> = Vec::new();
    let mut top = dl + acfg.initial_levels.max(2) - 1;
    check_level(top.min(acfg.max_level + 1))?;
    if top > acfg.max_level {
        return Err(Error::LevelTooDeep {
            level: top,
            max: acfg.max_level,
        });
    }
    loop {
        // Pilot for new levels.
        while levels.len() < (top - dl + 1) as usize {
            let l = dl + levels.len() as u32;
            let mut st = LevelStats::new(l);
            st.add(
                &sampler.sample(l, acfg.pilot, l > dl, rng)?,
                acfg.pilot,
                l > dl,
            )?;
            levels.push(st);
        }
        // Optimal N_ℓ, then top up.
        loop {
            let vc: Vec<(f64, f64)> = levels
                .iter()
                .map(|s| (s.var.max(1e-300), s.cost.max(1e-300)))
                .collect();
            let sum: f64 = vc.iter().map(|(v, c)| (v * c).sqrt()).sum();
            let mut added = false;
            for (st, &(v, c)) in levels.iter_mut().zip(&vc) {
                let target = (2.0 / (eps * eps) * (v / c).sqrt() * sum).ceil() as usize;
                if target > st.n {
                    let extra = target - st.n;
                    let l = st.level;
                    st.add(&sampler.sample(l, extra, l > dl, rng)?, extra, l > dl)?;
                    added = true;
                }
            }
            if !added {
                break;
            }
        }
        let a = 2f64.powf(cfg.alpha);
        let k = levels.len();
        let bias = (levels[k - 1].mean.abs()).max(levels[k - 2].mean.abs() / a) / (a - 1.0);
        if bias <= eps / 2f64.sqrt() {
            return summarise(levels);
        }
        top += 1;
        if top > acfg.max_level.min(MAX_LEVEL) {
            return Err(Error::LevelTooDeep {
                level: top,
                max: acfg.max_level.min(MAX_LEVEL),
            });
        }
    }
}

/// Fitted rates and per-level statistics from [`rates`] (an `mlmc.test`-style diagnostic).
#[derive(Debug, Clone, PartialEq)]
pub struct FittedRates {
    /// Per-level statistics (the first level is `P_dl` alone).
    pub levels: Vec<LevelStats>,
    /// Least-squares slope `α` of `−log₂|E ΔP_ℓ|` over the increment levels.
    pub alpha: f64,
    /// Slope `β` of `−log₂ Var ΔP_ℓ`.
    pub beta: f64,
    /// Slope `γ` of `log₂ C_ℓ`.
    pub gamma: f64,
    /// Intercept constants: `c_α ≈ 2^{a}` where `|E ΔP_ℓ| ≈ c_α 2^{−αℓ}`, same for `c_v`.
    pub c_bias: f64,
    /// `c_v` of `Var ΔP_ℓ ≈ c_v 2^{−βℓ}`.
    pub c_var: f64,
}

/// Least-squares line of `ys` on `xs` ([`mlcore::stats::linear_fit`]).
fn slope(xs: &[f64], ys: &[f64]) -> Result<(f64, f64)> {
    Ok(mlcore::stats::linear_fit(
        ndarray::ArrayView1::from(xs),
        ndarray::ArrayView1::from(ys),
    )?)
}

/// The rates diagnostic: `n` outer samples at each level `first..=last`
/// (the first alone, the others as increments), and least-squares fits of
/// `log₂|E ΔP_ℓ| ≈ log₂ c_α − αℓ`, `log₂ Var ΔP_ℓ ≈ log₂ c_v − βℓ`,
/// `log₂ C_ℓ ≈ c + γℓ` over the increment levels `first+1..=last`.
///
/// # Errors
/// [`Error::InvalidParameter`] unless `last ≥ first + 2` (two increment levels
/// to fit), [`Error::InvalidBatchSize`] for `n < 2`, [`Error::LevelTooDeep`],
/// and the sampler's errors.
pub fn rates<S: LevelSampler, R: Rng + ?Sized>(
    sampler: &mut S,
    first: u32,
    last: u32,
    n: usize,
    rng: &mut R,
) -> Result<FittedRates> {
    if last < first + 2 {
        return Err(Error::InvalidParameter {
            name: "last level",
            value: last as f64,
            expected: "last >= first + 2",
        });
    }
    if n < 2 {
        return Err(Error::InvalidBatchSize { what: "n" });
    }
    check_level(last)?;
    let mut levels = Vec::new();
    for l in first..=last {
        let mut st = LevelStats::new(l);
        st.add(&sampler.sample(l, n, l > first, rng)?, n, l > first)?;
        levels.push(st);
    }
    let inc = &levels[1..];
    let xs: Vec<f64> = inc.iter().map(|s| s.level as f64).collect();
    let (a, ca) = slope(
        &xs,
        &inc.iter()
            .map(|s| s.mean.abs().max(1e-300).log2())
            .collect::<Vec<_>>(),
    )?;
    let (b, cv) = slope(
        &xs,
        &inc.iter()
            .map(|s| s.var.max(1e-300).log2())
            .collect::<Vec<_>>(),
    )?;
    let (g, _) = slope(
        &xs,
        &inc.iter()
            .map(|s| s.cost.max(1e-300).log2())
            .collect::<Vec<_>>(),
    )?;
    Ok(FittedRates {
        levels,
        alpha: -a,
        beta: -b,
        gamma: g,
        c_bias: 2f64.powf(ca),
        c_var: 2f64.powf(cv),
    })
}

/// A plain nested-MC estimate `(1/N) Σᵢ P_L⁽ⁱ⁾` with `M = 2^L` inner samples.
#[derive(Debug, Clone, PartialEq)]
pub struct NestedEstimate {
    /// The estimate.
    pub value: f64,
    /// Its estimated variance `Var P_L / N`.
    pub variance: f64,
    /// Total cost.
    pub cost: f64,
    /// Inner level `L`.
    pub level: u32,
    /// Outer samples `N`.
    pub n: usize,
}

/// Plain nested MC at level `L` (`M = 2^L`) with `N` outer samples. Cost `N·2^L`.
///
/// # Errors
/// [`Error::InvalidBatchSize`] for `n < 2`, [`Error::LevelTooDeep`], the sampler's errors.
pub fn nested_mc<S: LevelSampler, R: Rng + ?Sized>(
    sampler: &mut S,
    level: u32,
    n: usize,
    rng: &mut R,
) -> Result<NestedEstimate> {
    check_level(level)?;
    if n < 2 {
        return Err(Error::InvalidBatchSize { what: "n" });
    }
    let mut st = LevelStats::new(level);
    st.add(&sampler.sample(level, n, false, rng)?, n, false)?;
    Ok(NestedEstimate {
        value: st.mean_fine,
        variance: st.var_fine / n as f64,
        cost: st.cost_total,
        level,
        n,
    })
}

/// The nested-MC plan for RMSE `ε` given a bias model `|E P_L − P| ≤ c_α 2^{−αL}`
/// and the outer variance `v` of `P_L`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NestedRule {
    /// Tuned: `L = ⌈log₂(√2 c_α/ε)/α⌉` (bias `≤ ε/√2`), `N = ⌈2v/ε²⌉`: cost `∝ ε^{−2−γ/α}` (= ε⁻³ by default).
    Tuned,
    /// The official code's baseline: `N = M = round(ε⁻²)` (cost ∝ ε⁻⁴).
    PaperBaseline,
}

/// `(L, N)` of a nested-MC run for RMSE `ε` (see [`NestedRule`]); the
/// paper's baseline rounds `M = ε⁻²` up to a power of two `2^L`.
///
/// # Errors
/// [`Error::InvalidTolerance`], [`MlmcConfig::check`]'s errors,
/// [`Error::InvalidParameter`] for a negative or non-finite `v`, [`Error::LevelTooDeep`].
pub fn nested_plan(eps: f64, v: f64, cfg: &MlmcConfig, rule: NestedRule) -> Result<(u32, usize)> {
    check_eps(eps)?;
    cfg.check()?;
    if !(v.is_finite() && v >= 0.0) {
        return Err(Error::InvalidParameter {
            name: "variance",
            value: v,
            expected: "finite and >= 0",
        });
    }
    let (l, n) = match rule {
        NestedRule::Tuned => (
            ((2f64.sqrt() * cfg.c_bias / eps).log2() / cfg.alpha)
                .ceil()
                .max(0.0),
            (2.0 * v / (eps * eps)).ceil().max(2.0),
        ),
        NestedRule::PaperBaseline => {
            let m = (1.0 / (eps * eps)).round().max(1.0);
            (m.log2().ceil(), m.max(2.0))
        }
    };
    if l > MAX_LEVEL as f64 {
        return Err(Error::LevelTooDeep {
            level: l.min(u32::MAX as f64) as u32,
            max: MAX_LEVEL,
        });
    }
    Ok((l as u32, n as usize))
}
