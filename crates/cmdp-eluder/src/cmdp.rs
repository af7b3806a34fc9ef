//! Tabular layered contextual MDPs: the layered state space, the context
//! distribution 𝒟, the true CMDP (f*, P*), episodes, and exact values via the
//! shared `tabular-mdp` core.
//!
//! Setting (paper): episodic, layered, loop-free MDPs with horizon H; layer
//! h ∈ {0, …, H−1} holds its own states, the start state s₀ is the first state
//! of layer 0, and every transition from layer h < H−1 lands in layer h+1;
//! the episode ends after the action in layer H−1. Each episode draws
//! c ~ 𝒟 i.i.d.; the mean reward is f*(c, s, a) ∈ [0, 1] and the observed
//! reward is Bernoulli(f*(c, s, a)) (a choice: the paper only needs rewards in
//! [0, 1]; Bernoulli is the hardest such noise for a given mean).
//!
//! Tables: a reward table is C × S × A, a dynamics table C × S × A × S with
//! rows of last-layer states all zero. States are indexed globally
//! (layer 0 first).

use crate::error::{Error, Result, mismatch};
use crate::metric::PROB_TOL;
use ndarray::{Array1, Array3, Array4, ArrayView3, ArrayView4};
use rand::{Rng, RngExt};
use tabular_mdp::{FiniteMdp, Outcome, evaluate_finite_horizon, finite_horizon_plain};

/// The layered state space: `layer_sizes[h]` states in layer h, indexed
/// globally in layer order; H = number of layers; s₀ = 0.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayeredSpace {
    offsets: Vec<usize>,
    layer: Vec<usize>,
}

impl LayeredSpace {
    /// A space with the given layer sizes.
    ///
    /// # Errors
    /// [`Error::EmptyClass`] for no layers or an empty layer;
    /// [`Error::Core`] (`TooLarge`) when the total number of states overflows
    /// or its tables (8 bytes a state here, S² per context and action in a
    /// dynamics table) would exceed the allocation cap.
    pub fn new(layer_sizes: &[usize]) -> Result<Self> {
        if layer_sizes.is_empty() || layer_sizes.contains(&0) {
            return Err(Error::EmptyClass { what: "layer" });
        }
        let total = layer_sizes
            .iter()
            .try_fold(0usize, |acc, &n| acc.checked_add(n))
            .ok_or_else(|| mlcore::Error::TooLarge {
                what: "layered state space",
                size: format!("layers {layer_sizes:?} (the sum overflows usize)"),
            })?;
        // A dynamics table holds S × S entries per context and action.
        mlcore::check::alloc_len(
            &[total, total],
            8,
            "layered state space (S × S transitions)",
        )?;
        let mut offsets = vec![0];
        let mut layer = Vec::new();
        for (h, &n) in layer_sizes.iter().enumerate() {
            offsets.push(offsets[h] + n);
            layer.extend(std::iter::repeat_n(h, n));
        }
        Ok(LayeredSpace { offsets, layer })
    }

    /// The horizon H (number of layers).
    pub fn horizon(&self) -> usize {
        self.offsets.len() - 1
    }

    /// The number of states S = Σ_h |layer h|.
    pub fn n_states(&self) -> usize {
        self.layer.len()
    }

    /// The layer of state `s`. O(1).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] unless `s < S`.
    pub fn layer_of(&self, s: usize) -> Result<usize> {
        self.layer
            .get(s)
            .copied()
            .ok_or_else(|| mismatch("state", format!("< {}", self.layer.len()), s))
    }

    /// The global indices of layer h's states.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] unless `h < H`.
    pub fn layer_range(&self, h: usize) -> Result<std::ops::Range<usize>> {
        if h < self.horizon() {
            Ok(self.range_unchecked(h))
        } else {
            Err(mismatch("layer", format!("< {}", self.horizon()), h))
        }
    }

    /// [`LayeredSpace::layer_of`] for a valid state (crate internal).
    pub(crate) fn layer_unchecked(&self, s: usize) -> usize {
        self.layer[s]
    }

    /// [`LayeredSpace::layer_range`] for a valid layer (crate internal).
    pub(crate) fn range_unchecked(&self, h: usize) -> std::ops::Range<usize> {
        self.offsets[h]..self.offsets[h + 1]
    }

    /// Checks a dynamics table (C × S × A × S) for shape, probabilities and
    /// the layered structure; `model` names it in errors.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for a wrong shape;
    /// [`Error::InvalidDistribution`] for a NaN/negative entry or a row not
    /// summing to 1 (± 1e-9); [`Error::NotLayered`] for mass outside layer
    /// h+1 or any mass out of the last layer.
    pub fn check_dynamics(
        &self,
        p: ArrayView4<'_, f64>,
        n_actions: usize,
        model: usize,
    ) -> Result<()> {
        let (nc, ns, na, ns2) = p.dim();
        let s_count = self.n_states();
        if ns != s_count || ns2 != s_count || na != n_actions || nc == 0 {
            return Err(mismatch(
                "dynamics table",
                format!("C × {s_count} × {n_actions} × {s_count} with C ≥ 1"),
                format!("{nc} × {ns} × {na} × {ns2}"),
            ));
        }
        let last = self.horizon() - 1;
        for c in 0..nc {
            for s in 0..ns {
                let h = self.layer_unchecked(s);
                for a in 0..na {
                    let mut sum = 0.0;
                    for s2 in 0..ns {
                        let m = p[[c, s, a, s2]];
                        if !m.is_finite() || m < 0.0 {
                            return Err(Error::InvalidDistribution {
                                what: "dynamics row",
                                detail: format!(
                                    "model {model}, P({s2} | c={c}, s={s}, a={a}) = {m}"
                                ),
                            });
                        }
                        if m > 0.0 && (h == last || self.layer_unchecked(s2) != h + 1) {
                            return Err(Error::NotLayered {
                                model,
                                context: c,
                                state: s,
                                layer: h,
                                action: a,
                                next: s2,
                                mass: m,
                            });
                        }
                        sum += m;
                    }
                    if h < last && (sum - 1.0).abs() > PROB_TOL {
                        return Err(Error::InvalidDistribution {
                            what: "dynamics row",
                            detail: format!("model {model}, Σ P(· | c={c}, s={s}, a={a}) = {sum}"),
                        });
                    }
                }
            }
        }
        Ok(())
    }
}

/// Checks a reward table (C × S × A, entries in [0, 1]).
pub(crate) fn check_reward(
    f: ArrayView3<'_, f64>,
    n_states: usize,
    n_actions: usize,
    model: usize,
) -> Result<()> {
    let (nc, ns, na) = f.dim();
    if ns != n_states || na != n_actions || nc == 0 {
        return Err(mismatch(
            "reward table",
            format!("C × {n_states} × {n_actions} with C ≥ 1"),
            format!("{nc} × {ns} × {na}"),
        ));
    }
    if let Some(&v) = f
        .iter()
        .find(|v| !(v.is_finite() && (0.0..=1.0).contains(*v)))
    {
        return Err(Error::InvalidParameter {
            name: if model == usize::MAX {
                "reward"
            } else {
                "reward of a class model"
            },
            value: v,
            expected: "a mean reward in [0, 1]",
        });
    }
    Ok(())
}

/// The context distribution 𝒟 over contexts {0, …, C−1}.
#[derive(Debug, Clone, PartialEq)]
pub struct ContextDist {
    probs: Vec<f64>,
    cdf: Vec<f64>,
}

impl ContextDist {
    /// 𝒟 with P(c) = `probs[c]`.
    ///
    /// # Errors
    /// [`Error::EmptyClass`] for no contexts; [`Error::InvalidDistribution`]
    /// unless `probs` is a probability vector.
    pub fn new(probs: Vec<f64>) -> Result<Self> {
        if probs.is_empty() {
            return Err(Error::EmptyClass {
                what: "context set",
            });
        }
        crate::metric::check_distribution(
            "context distribution",
            ndarray::ArrayView1::from(&probs),
        )?;
        let mut acc = 0.0;
        let cdf = probs
            .iter()
            .map(|p| {
                acc += p;
                acc
            })
            .collect();
        Ok(ContextDist { probs, cdf })
    }

    /// The uniform distribution over `n` contexts.
    ///
    /// # Errors
    /// [`Error::EmptyClass`] for `n = 0`; [`Error::Core`] (`TooLarge`) when
    /// n probabilities and their CDF would exceed
    /// [`mlcore::check::MAX_ALLOC_BYTES`].
    pub fn uniform(n: usize) -> Result<Self> {
        mlcore::check::alloc_len(&[n, 2], std::mem::size_of::<f64>(), "context distribution")?;
        Self::new(vec![1.0 / n.max(1) as f64; n]).and_then(|d| {
            if n == 0 {
                Err(Error::EmptyClass {
                    what: "context set",
                })
            } else {
                Ok(d)
            }
        })
    }

    /// C, the number of contexts.
    pub fn n_contexts(&self) -> usize {
        self.probs.len()
    }

    /// P(c) for every c.
    pub fn probs(&self) -> &[f64] {
        &self.probs
    }

    /// Draws c ~ 𝒟 (inverse CDF, O(C)).
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let u: f64 = rng.random();
        self.cdf
            .iter()
            .position(|&x| u < x)
            .unwrap_or(self.probs.len() - 1)
    }
}

/// One step of an episode: in state `state` the agent played `action`,
/// received `reward` and moved to `next` (`None` after the last layer).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Step {
    /// s_h.
    pub state: usize,
    /// a_h.
    pub action: usize,
    /// r_h ∈ {0, 1} (Bernoulli(f*(c, s, a))).
    pub reward: f64,
    /// s_{h+1}, or `None` in the last layer.
    pub next: Option<usize>,
}

/// An episode: its context and its H steps.
#[derive(Debug, Clone, PartialEq)]
pub struct Trajectory {
    /// The context c_t.
    pub context: usize,
    /// The steps h = 0, …, H−1.
    pub steps: Vec<Step>,
}

/// A policy for one episode: π(s) for every state (a layered MDP needs no
/// explicit step index: the layer of s is the step).
pub type Policy = Vec<usize>;

/// A tabular layered contextual MDP: space, A actions, 𝒟, true mean reward
/// f* (C × S × A) and dynamics P* (C × S × A × S).
#[derive(Debug, Clone)]
pub struct TabularCmdp {
    space: LayeredSpace,
    n_actions: usize,
    contexts: ContextDist,
    reward: Array3<f64>,
    dynamics: Array4<f64>,
    per_context: Vec<FiniteMdp>,
}

impl TabularCmdp {
    /// Builds and validates the CMDP.
    ///
    /// # Errors
    /// [`Error::EmptyClass`] for A = 0; [`Error::DimensionMismatch`] when
    /// the tables disagree with the space, A or C;
    /// [`Error::InvalidParameter`] for a mean reward outside [0, 1];
    /// [`Error::InvalidDistribution`] / [`Error::NotLayered`] from
    /// [`LayeredSpace::check_dynamics`].
    pub fn new(
        space: LayeredSpace,
        n_actions: usize,
        contexts: ContextDist,
        reward: Array3<f64>,
        dynamics: Array4<f64>,
    ) -> Result<Self> {
        if n_actions == 0 {
            return Err(Error::EmptyClass { what: "action set" });
        }
        let nc = contexts.n_contexts();
        if reward.dim().0 != nc || dynamics.dim().0 != nc {
            return Err(mismatch(
                "number of contexts in the tables",
                nc,
                format!(
                    "{} (reward), {} (dynamics)",
                    reward.dim().0,
                    dynamics.dim().0
                ),
            ));
        }
        check_reward(reward.view(), space.n_states(), n_actions, usize::MAX)?;
        space.check_dynamics(dynamics.view(), n_actions, 0)?;
        let per_context = (0..nc)
            .map(|c| to_finite_mdp(&space, n_actions, &reward, &dynamics, c))
            .collect::<Result<Vec<_>>>()?;
        Ok(TabularCmdp {
            space,
            n_actions,
            contexts,
            reward,
            dynamics,
            per_context,
        })
    }

    /// The layered state space.
    pub fn space(&self) -> &LayeredSpace {
        &self.space
    }
    /// A.
    pub fn n_actions(&self) -> usize {
        self.n_actions
    }
    /// 𝒟.
    pub fn contexts(&self) -> &ContextDist {
        &self.contexts
    }
    /// f* (C × S × A).
    pub fn reward(&self) -> &Array3<f64> {
        &self.reward
    }
    /// P* (C × S × A × S).
    pub fn dynamics(&self) -> &Array4<f64> {
        &self.dynamics
    }
    /// The `tabular-mdp` model of context c (see [`to_finite_mdp`]).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for c ≥ C.
    pub fn context_mdp(&self, c: usize) -> Result<&FiniteMdp> {
        self.per_context
            .get(c)
            .ok_or_else(|| mismatch("context", format!("< {}", self.per_context.len()), c))
    }

    /// V*_c(s₀) for every context, by plain finite-horizon DP of
    /// `tabular-mdp` (exact; O(C·H·S·A·S)).
    ///
    /// # Errors
    /// Only on internal inconsistency (propagated [`Error::Mdp`]).
    pub fn optimal_values(&self) -> Result<Array1<f64>> {
        let h = self.space.horizon();
        self.per_context
            .iter()
            .map(|m| Ok(finite_horizon_plain(m, h, 1.0)?.v[[0, 0]]))
            .collect::<Result<Vec<_>>>()
            .map(Array1::from)
    }

    /// V^π_c(s₀), the exact value of `policy` in context c (`tabular-mdp`
    /// policy evaluation, O(H·S·S)).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for c ≥ C or a policy of the wrong
    /// length; [`Error::Mdp`] for an action ≥ A.
    pub fn policy_value(&self, c: usize, policy: &[usize]) -> Result<f64> {
        let m = self.context_mdp(c)?;
        if policy.len() != self.space.n_states() {
            return Err(mismatch(
                "policy length",
                self.space.n_states(),
                policy.len(),
            ));
        }
        Ok(evaluate_finite_horizon(m, self.space.horizon(), 1.0, |_, s| policy[s])?[[0, 0]])
    }

    /// Plays one episode of `policy` in context c: rewards Bernoulli(f*),
    /// next states ~ P*.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] for c ≥ C, a policy of the wrong length
    /// or an action ≥ A.
    pub fn run_episode<R: Rng + ?Sized>(
        &self,
        c: usize,
        policy: &[usize],
        rng: &mut R,
    ) -> Result<Trajectory> {
        let ns = self.space.n_states();
        if c >= self.contexts.n_contexts() {
            return Err(mismatch(
                "context",
                format!("< {}", self.contexts.n_contexts()),
                c,
            ));
        }
        if policy.len() != ns {
            return Err(mismatch("policy length", ns, policy.len()));
        }
        let mut s = 0;
        let mut steps = Vec::with_capacity(self.space.horizon());
        for h in 0..self.space.horizon() {
            let a = policy[s];
            if a >= self.n_actions {
                return Err(mismatch("action", format!("< {}", self.n_actions), a));
            }
            let reward = if rng.random::<f64>() < self.reward[[c, s, a]] {
                1.0
            } else {
                0.0
            };
            let next = if h + 1 < self.space.horizon() {
                let u: f64 = rng.random();
                let range = self.space.range_unchecked(h + 1);
                let mut acc = 0.0;
                let mut chosen = None;
                for s2 in range.clone() {
                    acc += self.dynamics[[c, s, a, s2]];
                    if self.dynamics[[c, s, a, s2]] > 0.0 {
                        chosen = Some(s2);
                        if u < acc {
                            break;
                        }
                    }
                }
                chosen
            } else {
                None
            };
            steps.push(Step {
                state: s,
                action: a,
                reward,
                next,
            });
            if let Some(n) = next {
                s = n;
            }
        }
        Ok(Trajectory { context: c, steps })
    }
}

/// The `tabular-mdp` view of context c: a [`FiniteMdp`] on the S states with
/// outcomes (s', P(s'|c,s,a), f(c,s,a)) and, in the last layer, one terminal
/// outcome (s, 1, f(c,s,a)). Its H-step finite-horizon values at step
/// h = layer(s) are the layered values.
///
/// # Errors
/// [`Error::DimensionMismatch`] for c out of range; [`Error::Mdp`] if the
/// tables are not a valid MDP.
pub fn to_finite_mdp(
    space: &LayeredSpace,
    n_actions: usize,
    reward: &Array3<f64>,
    dynamics: &Array4<f64>,
    c: usize,
) -> Result<FiniteMdp> {
    if c >= reward.dim().0 || c >= dynamics.dim().0 {
        return Err(mismatch("context", format!("< {}", reward.dim().0), c));
    }
    let last = space.horizon() - 1;
    let table = (0..space.n_states())
        .map(|s| {
            (0..n_actions)
                .map(|a| {
                    let r = reward[[c, s, a]];
                    if space.layer_unchecked(s) == last {
                        vec![Outcome::terminal(s, 1.0, r)]
                    } else {
                        space
                            .range_unchecked(space.layer_unchecked(s) + 1)
                            .filter(|&s2| dynamics[[c, s, a, s2]] > 0.0)
                            .map(|s2| Outcome::new(s2, dynamics[[c, s, a, s2]], r))
                            .collect()
                    }
                })
                .collect()
        })
        .collect();
    Ok(FiniteMdp::new(table)?)
}
