//! Discrete Ricci flow (GraphRicciCurvature's `compute_ricci_flow`) with
//! weight bounds, curvature history and a typed error on collapse.

use crate::curvature::{EdgeCurvature, OllivierConfig, ollivier};
use crate::error::{Error, Result};
use crate::graph::{NodeLabel, WeightedGraph, show};
use mlcore::check::require;

/// Hyper-parameters of the flow. `Default` is GRC's function defaults
/// (`step = 1`, `delta = 1e-4`, 20 iterations) with the default
/// [`OllivierConfig`], no weight bounds.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RicciFlow {
    /// Step size `s > 0` of `w ← w − s κ w`.
    pub step: f64,
    /// Maximum number of iterations.
    pub iterations: usize,
    /// Stop when `max κ − min κ < delta`.
    pub delta: f64,
    /// Curvature used at every iteration.
    pub curvature: OllivierConfig,
    /// Clamp weights from below after normalisation (GRC has none; see
    /// GRC issue #43). Without it a weight `≤ 0` is an error.
    pub min_weight: Option<f64>,
    /// Clamp weights from above after normalisation.
    pub max_weight: Option<f64>,
}

impl Default for RicciFlow {
    fn default() -> Self {
        RicciFlow {
            step: 1.0,
            iterations: 20,
            delta: 1e-4,
            curvature: OllivierConfig::default(),
            min_weight: None,
            max_weight: None,
        }
    }
}

/// What [`RicciFlow::run`] returns.
#[derive(Debug, Clone)]
pub struct FlowResult<N: NodeLabel> {
    /// The largest component with the final weights.
    pub graph: WeightedGraph<N>,
    /// `edge_map[e]` = id in the input graph of edge `e` of `graph`.
    pub edge_map: Vec<usize>,
    /// `node_map[i]` = index in the input graph of node `i` of `graph`.
    pub node_map: Vec<usize>,
    /// Curvature before the flow (index 0) and after each iteration.
    pub curvature_history: Vec<Vec<f64>>,
    /// Weights before the flow (index 0, the input weights) and after each iteration.
    pub weight_history: Vec<Vec<f64>>,
    /// Whether `max κ − min κ < delta` was reached.
    pub converged: bool,
    /// The final curvature (with solver report).
    pub curvature: EdgeCurvature,
}

impl RicciFlow {
    /// Validates the parameters.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `step ≤ 0`, `delta < 0`, bounds not
    /// `0 < min ≤ max`; the curvature config's errors.
    pub fn check(&self) -> Result<()> {
        require(
            self.step.is_finite() && self.step > 0.0,
            "step",
            self.step,
            "a finite step > 0",
        )?;
        require(self.delta >= 0.0, "delta", self.delta, "delta ≥ 0")?;
        if let Some(lo) = self.min_weight {
            require(
                lo.is_finite() && lo > 0.0,
                "min_weight",
                lo,
                "a finite floor > 0",
            )?;
        }
        if let Some(hi) = self.max_weight {
            require(
                hi.is_finite() && hi >= self.min_weight.unwrap_or(0.0) && hi > 0.0,
                "max_weight",
                hi,
                "a finite ceiling ≥ min_weight",
            )?;
        }
        self.curvature.check()
    }

    /// Runs the flow on the largest component of `g` (as GRC):
    /// `κ⁰ = κ(w⁰)`; for `t = 1, 2, …`: `wₑ ← wₑ − step·κₑ·wₑ`, rescale so
    /// `Σ w = |E|`, recompute distances and `κ`; stop when
    /// `max κ − min κ < delta`. Each iteration costs one curvature pass.
    /// With a floor, updated weights are raised to it before and after the
    /// rescaling; with a ceiling, lowered to it after (then `Σ w` may differ
    /// from `|E|`).
    ///
    /// # Errors
    /// [`RicciFlow::check`]'s errors; [`Error::WeightCollapsed`] when, with
    /// no floor, an updated weight is `≤ 0` (e.g. `step·κₑ ≥ 1`; a single
    /// edge has `κ = 1` and always collapses), or a weight is not finite;
    /// curvature errors.
    pub fn run<N: NodeLabel>(&self, g: &WeightedGraph<N>) -> Result<FlowResult<N>> {
        self.check()?;
        let comp = g.largest_component();
        let mut graph = comp.graph;
        let m = graph.n_edges() as f64;
        let mut curv = ollivier(&graph, &self.curvature)?;
        let mut curvature_history = vec![curv.kappa.clone()];
        let mut weight_history = vec![graph.weights().to_vec()];
        let mut converged = false;
        for it in 1..=self.iterations {
            let mut w: Vec<f64> = graph
                .weights()
                .iter()
                .zip(&curv.kappa)
                .map(|(&w, &k)| w - self.step * k * w)
                .collect();
            let collapse = |e: usize, x: f64| {
                let (u, v) = graph.edge_labels_at(e);
                Error::WeightCollapsed {
                    u: show(u),
                    v: show(v),
                    w: x,
                    iteration: it,
                }
            };
            for (e, x) in w.iter_mut().enumerate() {
                if !x.is_finite() {
                    return Err(collapse(e, *x));
                }
                match self.min_weight {
                    Some(lo) => *x = x.max(lo),
                    None if *x <= 0.0 => return Err(collapse(e, *x)),
                    None => {}
                }
            }
            let sum: f64 = w.iter().sum();
            w.iter_mut().for_each(|x| *x *= m / sum);
            for (e, x) in w.iter_mut().enumerate() {
                if !(x.is_finite() && *x > 0.0) {
                    return Err(collapse(e, *x));
                }
                if let Some(lo) = self.min_weight {
                    *x = x.max(lo);
                }
                if let Some(hi) = self.max_weight {
                    *x = x.min(hi);
                }
            }
            graph = graph.with_weights(&w).map_err(|_| {
                let e = w
                    .iter()
                    .position(|x| !(x.is_finite() && *x > 0.0))
                    .unwrap_or(0);
                let (u, v) = graph.edge_labels_at(e);
                Error::WeightCollapsed {
                    u: show(u),
                    v: show(v),
                    w: w[e],
                    iteration: it,
                }
            })?;
            curv = ollivier(&graph, &self.curvature)?;
            curvature_history.push(curv.kappa.clone());
            weight_history.push(w);
            let (lo, hi) = curv
                .kappa
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), &k| {
                    (a.min(k), b.max(k))
                });
            if hi - lo < self.delta {
                converged = true;
                break;
            }
        }
        Ok(FlowResult {
            graph,
            edge_map: comp.edge_map,
            node_map: comp.node_map,
            curvature_history,
            weight_history,
            converged,
            curvature: curv,
        })
    }
}

/// How flow weights (lengths) become edge affinities for message passing.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Affinity {
    /// `a = 1/w`.
    Inverse,
    /// `a = exp(−β w)`.
    Exp {
        /// `β > 0`.
        beta: f64,
    },
    /// `a = 1` if `w ≤ threshold`, else 0 (cuts stretched bridges).
    Cut {
        /// Length above which the edge is dropped.
        threshold: f64,
    },
}

/// Edge affinities from flow weights (lengths). `O(m)`.
///
/// # Errors
/// [`Error::NonPositiveWeight`]-like [`Error::NonFinite`] for a non-finite
/// or non-positive weight; [`Error::InvalidParameter`] for `β ≤ 0` or a NaN
/// cut threshold.
pub fn to_affinity(weights: &[f64], kind: Affinity) -> Result<Vec<f64>> {
    if let Some(index) = weights.iter().position(|w| !(w.is_finite() && *w > 0.0)) {
        return Err(Error::NonFinite {
            what: "weights",
            index,
        });
    }
    match kind {
        Affinity::Exp { beta } => require(
            beta.is_finite() && beta > 0.0,
            "beta",
            beta,
            "a finite β > 0",
        )?,
        Affinity::Cut { threshold } => require(
            !threshold.is_nan(),
            "threshold",
            threshold,
            "a threshold that is not NaN",
        )?,
        Affinity::Inverse => {}
    }
    Ok(weights
        .iter()
        .map(|&w| match kind {
            Affinity::Inverse => 1.0 / w,
            Affinity::Exp { beta } => (-beta * w).exp(),
            Affinity::Cut { threshold } => {
                if w <= threshold {
                    1.0
                } else {
                    0.0
                }
            }
        })
        .collect())
}
