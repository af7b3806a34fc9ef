//! Exact regret accounting: R_T = Σ_t V*_{c_t}(s₀) − V^{π_t}_{c_t}(s₀), with
//! both values computed exactly per context by `tabular-mdp` DP (no Monte
//! Carlo), while the agent learns from sampled trajectories.

use crate::agent::Agent;
use crate::cmdp::TabularCmdp;
use crate::error::{Error, Result};
use rand::Rng;

/// The per-episode record of a run.
#[derive(Debug, Clone, PartialEq)]
pub struct RegretTrace {
    /// c_t.
    pub contexts: Vec<usize>,
    /// V^cmp_{c_t}(s₀) − V^{π_t}_{c_t}(s₀), as computed: ≥ 0 up to rounding
    /// against the optimum ([`run_regret`]), of either sign against another
    /// comparator ([`run_regret_against`]). Never clamped.
    pub instant: Vec<f64>,
    /// R_t = Σ_{τ ≤ t} instant regret (R after t + 1 episodes at index t).
    pub cumulative: Vec<f64>,
}

impl RegretTrace {
    /// R_T, the cumulative regret after the first T episodes (0 for T = 0;
    /// clamped to the run's length).
    pub fn at(&self, episodes: usize) -> f64 {
        match episodes.min(self.cumulative.len()) {
            0 => 0.0,
            t => self.cumulative[t - 1],
        }
    }
}

/// Runs `agent` for `episodes` episodes on `cmdp`: c_t ~ 𝒟, π_t = agent.act(c_t),
/// a trajectory of π_t is sampled and observed; the instant regret against
/// the optimal values V*_c(s₀) is exact (DP), and reported as computed
/// (differences of order 1e-16 below zero are rounding, not clamped away).
/// O(T·(agent cost + H·S²)).
///
/// # Errors
/// [`Error::EmptyClass`] for `episodes = 0`; the agent's errors.
pub fn run_regret<A: Agent + ?Sized, R: Rng + ?Sized>(
    cmdp: &TabularCmdp,
    agent: &mut A,
    episodes: usize,
    rng: &mut R,
) -> Result<RegretTrace> {
    let vstar = cmdp.optimal_values()?;
    run_regret_against(cmdp, agent, &vstar.to_vec(), episodes, rng)
}

/// [`run_regret`] against any comparator: `comparator[c]` is the value the
/// agent is measured against in context c (e.g. a fixed policy's
/// [`TabularCmdp::policy_value`]); an agent better than the comparator gets
/// negative regret.
///
/// # Errors
/// [`Error::EmptyClass`] for `episodes = 0`; [`Error::DimensionMismatch`]
/// when `comparator` has not one value per context; [`Error::InvalidParameter`]
/// for a non-finite comparator value; the agent's errors.
pub fn run_regret_against<A: Agent + ?Sized, R: Rng + ?Sized>(
    cmdp: &TabularCmdp,
    agent: &mut A,
    comparator: &[f64],
    episodes: usize,
    rng: &mut R,
) -> Result<RegretTrace> {
    if episodes == 0 {
        return Err(Error::EmptyClass {
            what: "episode list",
        });
    }
    let nc = cmdp.contexts().n_contexts();
    if comparator.len() != nc {
        return Err(crate::error::mismatch(
            "comparator values",
            format!("{nc} (one per context)"),
            comparator.len(),
        ));
    }
    if let Some(&v) = comparator.iter().find(|v| !v.is_finite()) {
        return Err(Error::InvalidParameter {
            name: "comparator value",
            value: v,
            expected: "finite",
        });
    }
    let vstar = comparator;
    let mut trace = RegretTrace {
        contexts: Vec::with_capacity(episodes),
        instant: Vec::with_capacity(episodes),
        cumulative: Vec::with_capacity(episodes),
    };
    let mut total = 0.0;
    for _ in 0..episodes {
        let c = cmdp.contexts().sample(rng);
        let pi = agent.act(c)?;
        let v = cmdp.policy_value(c, &pi)?;
        let traj = cmdp.run_episode(c, &pi, rng)?;
        agent.observe(&traj)?;
        let r = vstar[c] - v;
        total += r;
        trace.contexts.push(c);
        trace.instant.push(r);
        trace.cumulative.push(total);
    }
    Ok(trace)
}

/// Least-squares slope of ln R_T on ln T over the points (T, R_T) with
/// T > 0 and R_T > 0 ([`mlcore::stats::power_law_exponent`]): the fitted growth
/// exponent (R_T ∝ T^slope). Points with zero regret are skipped (their
/// logarithm is undefined); NaN with fewer than two distinct usable T.
pub fn growth_exponent(points: &[(f64, f64)]) -> f64 {
    let pts: Vec<(f64, f64)> = points
        .iter()
        .copied()
        .filter(|&(t, r)| t > 0.0 && r > 0.0)
        .collect();
    mlcore::stats::power_law_exponent(&pts).unwrap_or(f64::NAN)
}
