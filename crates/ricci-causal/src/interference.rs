//! The experiment where the paper's claims can fail (issue 32): covariates
//! that vary *within* communities, a stated exposure mapping, randomised
//! treatment, and three estimators of the average direct effect side by
//! side, each using the partition of the original graph and the partition of
//! the Ricci-flow graph, on the same draws.
//!
//! **Setting (reconstructed; the paper's simulation is not public).** Nodes
//! carry latent covariates `Uᵢ = √ρ·μ_{c(i)} + √(1 − ρ)·ηᵢ` (`p` dims,
//! `μ_c, ηᵢ ~ N(0, I)`): the **mixing ratio** `ρ ∈ [0, 1]` is the share of
//! latent variance between the true communities `c`. Observed
//! `Xᵢ = Uᵢ + σ_x N(0, I)`. Treatment `Tᵢ ~ Bernoulli(p)` independently
//! (randomised). **Exposure mapping:** `Zᵢ = (1/|N(i)|) Σ_{j∈N(i)} Tⱼ`, the
//! share of treated neighbours on the observed graph. Outcomes follow
//! [`NetworkDgp`]: `Yᵢ = β_x sᵢ + β_nx s̄_{N(i)} + Tᵢ(β_t + h sᵢ) + β_z Zᵢ + εᵢ`
//! with `sᵢ = mean_k Uᵢₖ`. Estimand: the average direct effect
//! `τ = (1/n) Σᵢ τᵢ`, `τᵢ = Yᵢ(1, z) − Yᵢ(0, z) = β_t + h sᵢ`.
//!
//! **Partitions.** Original graph: the modularity-best cut of its negatively
//! curved edges ([`threshold_partition`] on `−κ`). Ricci-flow graph: the
//! modularity-best cut of the flow weights (GraphRicciCurvature's
//! `ricci_community`). The same cut rule on both sides isolates what the
//! flow adds.
//!
//! **Estimators** (each with either partition `B`):
//! - difference in means, exposure-blind, post-stratified by block:
//!   `τ̂ = Σ_B n_B (ȳ_{B,1} − ȳ_{B,0}) / Σ_B n_B` over blocks with both arms;
//! - Hájek with exposure: strata (block, exposure bin `Z < ½` / `Z ≥ ½`),
//!   Hájek means with weights `1/(P(Tᵢ = t)·P(Zᵢ ∈ bin))` (exact
//!   Poisson-binomial), combined by stratum size over strata with both arms;
//! - regression adjustment: least squares on `[1, t, z, t z, X, X̄_B, t X,
//!   t X̄_B]` with `X̄_B` the block mean of `X`; `τ̂ᵢ = β̂_t + β̂_{tF}ᵀFᵢ`,
//!   `τ̂ = mean τ̂ᵢ` (also the per-node estimates).

use crate::causal::{Estimand, NetworkDgp, community_latents};
use crate::curvature::{Aggregate, OllivierConfig, node_curvature, ollivier};
use crate::error::{Error, Result};
use crate::estimators::{LinearFit, OutcomeModel, bin_of, exposure_bin_probabilities};
use crate::flow::RicciFlow;
use crate::graph::{NodeLabel, WeightedGraph};
use crate::partition::{Partition, threshold_partition};
use mlcore::check::require;
use ndarray::{Array2, ArrayView1, ArrayView2};
use rand::Rng;

/// Names of the estimators, in the order of [`Replicate::ate_error`].
pub const ESTIMATORS: [&str; 3] = [
    "difference in means (exposure-blind)",
    "Hájek with exposure",
    "regression adjustment",
];

/// Names of the partitions, in the order of [`Replicate::ate_error`]'s
/// inner index.
pub const PARTITIONS: [&str; 2] = ["original graph", "Ricci-flow graph"];

/// Settings of the experiment. `Default`: `ρ = 0.5`, 5 covariates observed
/// with noise `σ_x = 1`, the default [`NetworkDgp`] (randomised,
/// `p = 0.5`, `β_z = 1`), 10 flow iterations (GRC step and tolerance), 50
/// candidate cuts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct InterferenceExperiment {
    /// Mixing ratio `ρ ∈ [0, 1]`: share of latent variance between communities.
    pub mixing: f64,
    /// Covariate dimension `p ≥ 1`.
    pub covariates: usize,
    /// The outcome model (its `covariate_noise` is `σ_x`; `confounding`
    /// must be 0: the design is randomised).
    pub dgp: NetworkDgp,
    /// Ricci-flow iterations.
    pub flow_iterations: usize,
    /// Candidate cutoffs of [`threshold_partition`].
    pub cut_candidates: usize,
}

impl Default for InterferenceExperiment {
    fn default() -> Self {
        InterferenceExperiment {
            mixing: 0.5,
            covariates: 5,
            dgp: NetworkDgp::default(),
            flow_iterations: 10,
            cut_candidates: 50,
        }
    }
}

/// What is computed once per graph: curvature, flow, both partitions.
#[derive(Debug, Clone, PartialEq)]
pub struct Geometry {
    /// Node Ollivier–Ricci curvature (α = 0.5, exact, mean over incident edges).
    pub node_curvature: Vec<f64>,
    /// Edge curvature of the original graph.
    pub edge_curvature: Vec<f64>,
    /// Ricci-flow weights (edge order of the input graph).
    pub flow_weights: Vec<f64>,
    /// `[original, flow]` partitions.
    pub partitions: [Partition; 2],
}

/// One replicate: covariates, design and outcomes drawn once, every
/// estimator and partition on the same draw.
#[derive(Debug, Clone, PartialEq)]
pub struct Replicate {
    /// The true average direct effect `τ`.
    pub ate: f64,
    /// `|τ̂ − τ|` per estimator ([`ESTIMATORS`]) and partition ([`PARTITIONS`]).
    pub ate_error: [[f64; 2]; 3],
    /// Per-node `|τ̂ᵢ − τᵢ|` of regression adjustment, per partition.
    pub node_error: [Vec<f64>; 2],
}

impl InterferenceExperiment {
    /// Validates the settings.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `ρ ∉ [0, 1]`, `p = 0`, a non-zero
    /// confounding, or `cut_candidates = 0`; the DGP's errors.
    pub fn check(&self) -> Result<()> {
        require(
            (0.0..=1.0).contains(&self.mixing),
            "mixing",
            self.mixing,
            "a mixing ratio in [0, 1]",
        )?;
        require(
            self.covariates >= 1,
            "covariates",
            self.covariates as f64,
            "at least 1",
        )?;
        require(
            self.dgp.confounding == 0.0,
            "confounding",
            self.dgp.confounding,
            "0 (randomised treatment)",
        )?;
        require(
            self.cut_candidates >= 1,
            "cut_candidates",
            self.cut_candidates as f64,
            "at least 1",
        )?;
        self.dgp.check()
    }

    /// Curvature, Ricci flow and both partitions of a connected graph.
    /// Cost: `flow_iterations + 1` curvature passes.
    ///
    /// # Errors
    /// [`InterferenceExperiment::check`]'s; [`Error::Disconnected`] for a
    /// disconnected graph; curvature and flow errors.
    pub fn geometry<N: NodeLabel>(&self, g: &WeightedGraph<N>) -> Result<Geometry> {
        self.check()?;
        if !g.is_connected() {
            return Err(Error::Disconnected {
                u: "the graph".into(),
                v: "itself (more than one component)".into(),
            });
        }
        let curv = ollivier(g, &OllivierConfig::default())?;
        let nc = node_curvature(g, &curv.kappa, Aggregate::Mean)?;
        let flow = RicciFlow {
            iterations: self.flow_iterations,
            ..Default::default()
        }
        .run(g)?;
        let neg: Vec<f64> = curv.kappa.iter().map(|k| -k).collect();
        let original = threshold_partition(g, &neg, self.cut_candidates)?;
        let flowed = threshold_partition(g, flow.graph.weights(), self.cut_candidates)?;
        Ok(Geometry {
            node_curvature: nc,
            edge_curvature: curv.kappa,
            flow_weights: flow.graph.weights().to_vec(),
            partitions: [original, flowed],
        })
    }

    /// Draws covariates (from the true `communities`), treatment and
    /// outcomes once, and runs every estimator with both partitions.
    /// `O(n p² + p³ + Σ deg²)`.
    ///
    /// # Errors
    /// [`InterferenceExperiment::check`]'s; [`Error::LengthMismatch`] when
    /// `communities` or the geometry does not match `g`;
    /// [`Error::IndexOutOfRange`] for a partition label `≥ n` (a caller-built
    /// [`Geometry`]); [`Error::NonFinite`] for a non-finite node curvature;
    /// DGP and estimator errors ([`Error::EmptyStratum`] when no block has
    /// both arms).
    pub fn replicate<N: NodeLabel, R: Rng + ?Sized>(
        &self,
        g: &WeightedGraph<N>,
        geometry: &Geometry,
        communities: &[usize],
        rng: &mut R,
    ) -> Result<Replicate> {
        self.check()?;
        let n = g.n_nodes();
        crate::causal::len_check("communities", n, communities.len())?;
        crate::causal::len_check("geometry", n, geometry.node_curvature.len())?;
        crate::causal::finite_all("node curvature", geometry.node_curvature.iter())?;
        for part in &geometry.partitions {
            crate::causal::len_check("partition", n, part.labels.len())?;
            if let Some(&index) = part.labels.iter().find(|&&b| b >= n) {
                return Err(Error::IndexOutOfRange {
                    what: "partition label",
                    index,
                    len: n,
                });
            }
        }
        let u = community_latents(
            communities,
            self.covariates,
            self.mixing.sqrt(),
            (1.0 - self.mixing).sqrt(),
            rng,
        )?;
        let s = self.dgp.sample(g, u.view(), rng)?;
        let truth = s.true_effect(Estimand::Individual)?;
        let ate = truth.mean().unwrap_or(0.0);
        let pz = exposure_bin_probabilities(g, s.propensity.view(), 2);
        let mut ate_error = [[0.0; 2]; 3];
        let mut node_error: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
        for (side, part) in geometry.partitions.iter().enumerate() {
            crate::causal::len_check("partition", n, part.labels.len())?;
            let b = &part.labels;
            let dim = difference_in_means(b, s.t.view(), s.y.view())?;
            let strata: Vec<usize> = (0..n).map(|i| 2 * b[i] + bin_of(s.z[i], 2)).collect();
            let w: Vec<f64> = (0..n)
                .map(|i| {
                    let pt = if s.t[i] == 1.0 {
                        s.propensity[i]
                    } else {
                        1.0 - s.propensity[i]
                    };
                    1.0 / (pt * pz[i][bin_of(s.z[i], 2)])
                })
                .collect();
            let hajek = stratified_hajek(&strata, &w, s.t.view(), s.y.view())?;
            let f = block_features(b, s.x.view());
            let fit = LinearFit::fit(f, s.t.view(), s.z.view(), s.y.view(), true, 1e-6)?;
            let tau_i = fit.effect(Estimand::Individual)?;
            let reg = tau_i.mean().unwrap_or(0.0);
            for (e, est) in [dim, hajek, reg].into_iter().enumerate() {
                ate_error[e][side] = (est - ate).abs();
            }
            node_error[side] = (&tau_i - &truth).mapv(f64::abs).to_vec();
        }
        Ok(Replicate {
            ate,
            ate_error,
            node_error,
        })
    }
}

/// `[X, X̄_B]`: the covariates and their block means.
fn block_features(blocks: &[usize], x: ArrayView2<'_, f64>) -> Array2<f64> {
    let (n, p) = x.dim();
    let k = blocks.iter().max().map_or(0, |&b| b + 1);
    let mut sum = Array2::<f64>::zeros((k, p));
    let mut cnt = vec![0.0; k];
    for i in 0..n {
        sum.row_mut(blocks[i]).scaled_add(1.0, &x.row(i));
        cnt[blocks[i]] += 1.0;
    }
    Array2::from_shape_fn((n, 2 * p), |(i, j)| {
        if j < p {
            x[[i, j]]
        } else {
            sum[[blocks[i], j - p]] / cnt[blocks[i]]
        }
    })
}

/// Post-stratified difference in means: `Σ_B n_B (ȳ_{B,1} − ȳ_{B,0}) / Σ_B n_B`
/// over blocks holding both arms.
fn difference_in_means(
    blocks: &[usize],
    t: ArrayView1<'_, f64>,
    y: ArrayView1<'_, f64>,
) -> Result<f64> {
    let w = vec![1.0; blocks.len()];
    stratified_hajek(blocks, &w, t, y)
}

/// `Σ_s n_s (μ̂_{s,1} − μ̂_{s,0}) / Σ_s n_s` over strata holding both arms,
/// `μ̂_{s,t} = Σ wᵢ yᵢ / Σ wᵢ` over the stratum's units with `Tᵢ = t`.
fn stratified_hajek(
    strata: &[usize],
    w: &[f64],
    t: ArrayView1<'_, f64>,
    y: ArrayView1<'_, f64>,
) -> Result<f64> {
    let k = strata.iter().max().map_or(0, |&b| b + 1);
    let mut num = vec![[0.0; 2]; k];
    let mut den = vec![[0.0; 2]; k];
    let mut cnt = vec![0.0; k];
    for i in 0..strata.len() {
        let a = usize::from(t[i] == 1.0);
        num[strata[i]][a] += w[i] * y[i];
        den[strata[i]][a] += w[i];
        cnt[strata[i]] += 1.0;
    }
    let (mut total, mut weight) = (0.0, 0.0);
    for s in 0..k {
        if den[s][0] > 0.0 && den[s][1] > 0.0 {
            total += cnt[s] * (num[s][1] / den[s][1] - num[s][0] / den[s][0]);
            weight += cnt[s];
        }
    }
    if weight == 0.0 {
        return Err(Error::EmptyStratum { t: 0, z_bin: 0 });
    }
    Ok(total / weight)
}
