//! The spec's XOR-context instance (and its |𝒫|-scaled variants for timing).
//!
//! C contexts (uniform), H = 3 layers of 2 states (the first state of a
//! layer is "good"), A = 2, s₀ = 0.
//!
//! **Dynamics class 𝒫** (|𝒫| = 8·L models, θ = 8ℓ + (θ₀, θ₁, θ₂) bits,
//! level ℓ < L): at layer h ∈ {0, 1} from state s the *good action* is
//! (c mod 2) ⊕ θ_h ⊕ (θ₂ ∧ [s is the second state of its layer]); it leads to
//! the good state of layer h+1 w.p. p_ℓ = 0.9 − 0.4·ℓ/L, the other action
//! w.p. 1 − p_ℓ. With L = 1 this is the spec's "8 models, good action =
//! (c mod 2) XOR θ-bit".
//!
//! **Reward class ℱ** (|ℱ| = 4, φ ∈ {0, 1, 2, 3}): in layers 0 and 1 the mean
//! reward is 0.6 in the good state and 0.3 in the other; in the last layer
//! the *safe* action 0 pays 0.5 / 0.3 (good / other state) and the *risky*
//! action 1 pays that plus Δ_φ(c), where Δ_φ(c) = +0.4 if c mod 2 = φ mod 2
//! and φ ≥ 2, −0.3 if c mod 2 = φ mod 2 and φ < 2, and −0.1 otherwise.
//!
//! Truth: θ* = 5, φ* = 3 (realizable by construction). Every model agrees on
//! the safe action, so an agent that never tries the risky action on odd
//! contexts never learns that it pays +0.4 there: the greedy plug-in agent,
//! starting from φ̂ = 0 (all losses tie at 0, ties → index 0), is stuck and
//! pays 0.4 regret on every odd context, while optimism explores.
//! (The instance's exact numbers are a choice: the spec fixes only its shape.)

use crate::class::{DynamicsClass, RewardClass};
use crate::cmdp::{ContextDist, LayeredSpace, TabularCmdp};
use crate::error::{Error, Result};

/// An instance: the true CMDP and realizable classes, with the indices of
/// the truth.
#[derive(Debug, Clone)]
pub struct Instance {
    /// The true CMDP (f*, P*).
    pub cmdp: TabularCmdp,
    /// ℱ.
    pub rewards: RewardClass,
    /// 𝒫.
    pub dynamics: DynamicsClass,
    /// Index of f* in ℱ.
    pub true_reward: usize,
    /// Index of P* in 𝒫.
    pub true_dynamics: usize,
}

/// The XOR instance with `n_contexts` contexts and |𝒫| = `n_dynamics`
/// (a multiple of 8; 8 is the spec's instance).
///
/// # Errors
/// [`Error::EmptyClass`] for no contexts; [`Error::InvalidParameter`] unless
/// `n_dynamics` is a positive multiple of 8.
pub fn xor_instance(n_contexts: usize, n_dynamics: usize) -> Result<Instance> {
    if n_dynamics == 0 || !n_dynamics.is_multiple_of(8) {
        return Err(Error::InvalidParameter {
            name: "n_dynamics",
            value: n_dynamics as f64,
            expected: "a positive multiple of 8",
        });
    }
    let contexts = ContextDist::uniform(n_contexts)?;
    let space = LayeredSpace::new(&[2, 2, 2])?;
    let levels = n_dynamics / 8;
    let sp = space.clone();
    let dynamics = DynamicsClass::from_fn(
        space.clone(),
        2,
        n_contexts,
        n_dynamics,
        move |k, c, s, a, s2| {
            let h = sp.layer_unchecked(s);
            if h + 1 >= sp.horizon() || sp.layer_unchecked(s2) != h + 1 {
                return 0.0;
            }
            let bits = k % 8;
            let level = k / 8;
            let p_good = 0.9 - 0.4 * level as f64 / levels as f64;
            let second = s != sp.range_unchecked(h).start;
            let good = (c % 2) ^ ((bits >> h) & 1) ^ (((bits >> 2) & 1) & usize::from(second));
            let to_good = if a == good { p_good } else { 1.0 - p_good };
            if s2 == sp.range_unchecked(h + 1).start {
                to_good
            } else {
                1.0 - to_good
            }
        },
    )?;
    let sp = space.clone();
    let rewards = RewardClass::from_fn(4, (n_contexts, 6, 2), move |phi, c, s, a| {
        let h = sp.layer_unchecked(s);
        let good = s == sp.range_unchecked(h).start;
        if h + 1 < sp.horizon() {
            return if good { 0.6 } else { 0.3 };
        }
        let base = if good { 0.5 } else { 0.3 };
        if a == 0 {
            return base;
        }
        let delta = if c % 2 == phi % 2 {
            if phi >= 2 { 0.4 } else { -0.3 }
        } else {
            -0.1
        };
        base + delta
    })?;
    let (true_reward, true_dynamics) = (3, 5);
    let cmdp = TabularCmdp::new(
        space,
        2,
        contexts,
        rewards.models()[true_reward].clone(),
        dynamics.models()[true_dynamics].clone(),
    )?;
    Ok(Instance {
        cmdp,
        rewards,
        dynamics,
        true_reward,
        true_dynamics,
    })
}
