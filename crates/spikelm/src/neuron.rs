//! The elastic bi-spiking neuron's definition and its plain-slice reference.
//!
//! For an input `x_t` (`t = 0 … T−1`) and one amplitude `α_t` per step:
//!
//! ```text
//! u₀ = x₀
//! u_t = (u_{t−1}·λ)·r_{t−1} + x_t                       (λ = decay, 0.25 in the paper)
//! q_t = Q(u_t / α_t)          s_t = α_t·q_t
//! ```
//!
//! with the levels `Q` ([`Levels`]) and the reset factor `r` ([`ResetMode`]).
//! The functions here compute the same numbers as the candle neuron
//! ([`crate::ElasticBiSpike`]) on plain `f32` slices, element by element, in
//! the same operation order as the official PyTorch code, so the two agree
//! bit for bit; the tests check the candle version against them. Inputs are
//! stored step-major: `x[t·n + i]` is element `i` at step `t`.

use crate::error::{Error, Result};

/// The amplitude floor of the official code: `α ← max(α, 10⁻⁵)` before use.
pub const ALPHA_EPS: f32 = 1e-5;

/// The spike levels `Q(v)` of `v = u/α`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Levels {
    /// `{−1, 0, 1}`: `Q(v) = round_ties_even(clip(v, −1, 1))` (the paper's
    /// bi-spike, `input_bits = 2`). Ties go to even as in torch's `round`:
    /// `v = 0.5` gives 0.
    #[default]
    Ternary,
    /// `±1`: `Q(v) = sign(v)` (`input_bits = 1`); as torch's `sign`, `sign(0) = 0`,
    /// so an exactly zero membrane gives no spike.
    Binary,
    /// `{0, 1}`: `Q(v) = round_ties_even(clip(v, 0, 1))`, the unipolar spike of
    /// previous SNNs (fires when `u > α/2`), the paper's LIF-style baseline.
    Unipolar,
}

/// `round_ties_even(v)` for `|v| ≤ 1` (and NaN), except that a zero result
/// is `+0.0`: adding and subtracting `1.5·2²³` rounds to an integer in the
/// default round-to-nearest-even mode (the unit in the last place there is
/// 1), exactly `round_ties_even` for `|v| < 2²²`. Without SSE4.1 `f32::round_ties_even`
/// is a library call, the hottest instruction of the neuron.
#[inline]
fn round_unit(v: f32) -> f32 {
    const MAGIC: f32 = 12_582_912.0;
    (v + MAGIC) - MAGIC
}

impl Levels {
    /// `Q(v)`. A zero result is `+0.0`.
    #[inline]
    pub fn quantize(self, v: f32) -> f32 {
        let q = match self {
            Levels::Ternary => round_unit(v.clamp(-1.0, 1.0)),
            Levels::Binary => {
                if v > 0.0 {
                    1.0
                } else if v < 0.0 {
                    -1.0
                } else {
                    0.0
                }
            }
            Levels::Unipolar => round_unit(v.clamp(0.0, 1.0)),
        };
        // −0.0 + 0.0 = +0.0: one bit pattern for "no spike".
        q + 0.0
    }

    /// The clip range `[Q_n, Q_p]` of the surrogate `α·clip(v, Q_n, Q_p)`.
    pub fn range(self) -> (f32, f32) {
        match self {
            Levels::Ternary | Levels::Binary => (-1.0, 1.0),
            Levels::Unipolar => (0.0, 1.0),
        }
    }

    /// The straight-through derivative `∂s/∂u = 1[Q_n ≤ v ≤ Q_p]` (LSQ; inclusive as in the official backward).
    pub fn ste_mask(self, v: f32) -> f32 {
        let (lo, hi) = self.range();
        if (lo..=hi).contains(&v) { 1.0 } else { 0.0 }
    }

    /// The LSQ amplitude derivative `∂s/∂α` before the gradient scale: `Q_n`
    /// below the range, `Q_p` above, `Q(v) − v` inside (the official
    /// backward; for [`Levels::Binary`] the official code uses `sign(v)`).
    pub fn alpha_coefficient(self, v: f32) -> f32 {
        if self == Levels::Binary {
            return self.quantize(v);
        }
        let (lo, hi) = self.range();
        if v < lo {
            lo
        } else if v > hi {
            hi
        } else {
            self.quantize(v) - v
        }
    }
}

/// How the membrane carries over after a step: `u_t = (u_{t−1}·λ)·r_{t−1} + x_t`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ResetMode {
    /// `r = α − s` (official code). Resets after a `+α` spike, **doubles** the
    /// carry after a `−α` spike (not odd: `x = −0.45` gives `0, −1, −1, −1`),
    /// and leaks by `λ·α` without a spike (not scale-equivariant).
    #[default]
    Official,
    /// `r = 1 − s/α`: the official rule divided by α (identical at α = 1), scale-equivariant.
    Normalized,
    /// `r = 1 − |s|/α`: resets after a spike of either sign; odd and scale-equivariant.
    Symmetric,
}

impl ResetMode {
    /// The reset factor `r` after a step with amplitude `alpha`, level `q` and spike `s = α·q`.
    #[inline]
    pub fn factor(self, alpha: f32, q: f32, s: f32) -> f32 {
        match self {
            ResetMode::Official => alpha - s,
            ResetMode::Normalized => 1.0 - q,
            ResetMode::Symmetric => 1.0 - q.abs(),
        }
    }
}

/// The deterministic part of a neuron: steps, decay, reset and levels.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NeuronConfig {
    /// Time steps `T ≥ 1` (4 in the paper).
    pub t_steps: usize,
    /// Membrane decay `λ ∈ [0, 1]` (0.25 in the paper).
    pub decay: f32,
    /// The reset rule.
    pub reset: ResetMode,
    /// The spike levels.
    pub levels: Levels,
}

impl Default for NeuronConfig {
    /// The paper's neuron: `T = 4`, `λ = 0.25`, official reset, ternary levels.
    fn default() -> Self {
        NeuronConfig {
            t_steps: 4,
            decay: 0.25,
            reset: ResetMode::Official,
            levels: Levels::Ternary,
        }
    }
}

impl NeuronConfig {
    /// Checks `T ≥ 1` and `λ ∈ [0, 1]`.
    ///
    /// # Errors
    /// [`Error::ZeroTimeSteps`], [`Error::DecayOutOfRange`].
    pub fn check(&self) -> Result<()> {
        if self.t_steps == 0 {
            return Err(Error::ZeroTimeSteps);
        }
        if !(self.decay.is_finite() && (0.0..=1.0).contains(&self.decay)) {
            return Err(Error::DecayOutOfRange(self.decay));
        }
        Ok(())
    }
}

/// What one element does at one step: the spike, the reset factor and the two derivatives.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct StepOut {
    pub q: f32,
    pub s: f32,
    pub factor: f32,
    pub mask: f32,
    pub gamma: f32,
}

/// One element at one step given the membrane `u` and the amplitude in use `a = max(α, 10⁻⁵)`.
#[inline]
pub(crate) fn step(cfg: &NeuronConfig, a: f32, u: f32) -> StepOut {
    let v = u / a;
    let q = cfg.levels.quantize(v);
    let s = q * a;
    StepOut {
        q,
        s,
        factor: cfg.reset.factor(a, q, s),
        mask: cfg.levels.ste_mask(v),
        gamma: cfg.levels.alpha_coefficient(v),
    }
}

/// Checks `x.len() = T·n` with `n ≥ 1` and finite values; returns `n`.
pub(crate) fn check_input(cfg: &NeuronConfig, x: &[f32]) -> Result<usize> {
    cfg.check()?;
    if x.is_empty() {
        return Err(Error::Empty("neuron input"));
    }
    if !x.len().is_multiple_of(cfg.t_steps) {
        return Err(Error::ShapeMismatch {
            what: "neuron input",
            expected: format!("a multiple of T = {}", cfg.t_steps),
            got: x.len().to_string(),
        });
    }
    if x.iter().any(|v| !v.is_finite()) {
        return Err(Error::NonFinite("neuron input"));
    }
    Ok(x.len() / cfg.t_steps)
}

/// Checks one finite `α_t > 0` per step.
///
/// # Errors
/// [`Error::ShapeMismatch`] for `alphas.len() ≠ T`, [`Error::NonPositiveAlpha`].
pub fn check_alphas(t_steps: usize, alphas: &[f32]) -> Result<()> {
    if alphas.len() != t_steps {
        return Err(Error::ShapeMismatch {
            what: "amplitudes",
            expected: format!("{t_steps} values (one per time step)"),
            got: alphas.len().to_string(),
        });
    }
    if let Some(t) = alphas.iter().position(|a| !(a.is_finite() && *a > 0.0)) {
        return Err(Error::NonPositiveAlpha { t });
    }
    Ok(())
}

/// The mean `mean|u|` of a slice, accumulated in `f64`.
pub(crate) fn mean_abs(u: &[f32]) -> f32 {
    (u.iter().map(|v| f64::from(v.abs())).sum::<f64>() / u.len() as f64) as f32
}

/// Runs the neuron over `x` (`T·n` values, step-major) and returns the
/// membranes `u` and spikes `s`; `alphas` gives `α_t` when known, or `None`
/// to set each `α_t = k·mean|u_t|` on the fly (the first-batch rule, step by
/// step, since `u_t` depends on `α_{t−1}`). Returns the `α_t` used too.
fn run(
    cfg: &NeuronConfig,
    x: &[f32],
    alphas: Option<&[f32]>,
    k: f32,
) -> Result<(Vec<f32>, Vec<StepOut>, Vec<f32>)> {
    let n = check_input(cfg, x)?;
    if let Some(a) = alphas {
        check_alphas(cfg.t_steps, a)?;
    }
    let mut u = vec![0f32; x.len()];
    let mut out = Vec::with_capacity(x.len());
    let mut used = Vec::with_capacity(cfg.t_steps);
    for t in 0..cfg.t_steps {
        for i in 0..n {
            u[t * n + i] = if t == 0 {
                x[i]
            } else {
                let p: &StepOut = &out[(t - 1) * n + i];
                (u[(t - 1) * n + i] * cfg.decay) * p.factor + x[t * n + i]
            };
        }
        let alpha = match alphas {
            Some(a) => a[t],
            None => k * mean_abs(&u[t * n..(t + 1) * n]),
        };
        used.push(alpha);
        let a = alpha.max(ALPHA_EPS);
        for i in 0..n {
            out.push(step(cfg, a, u[t * n + i]));
        }
    }
    Ok((u, out, used))
}

/// The spikes `s_t = α_t·Q(u_t/α_t)` of the neuron for input `x` (`T·n`
/// values, step-major) with fixed amplitudes. O(T·n).
///
/// # Errors
/// [`NeuronConfig::check`]'s errors; [`Error::Empty`], [`Error::ShapeMismatch`]
/// (length not a multiple of `T`), [`Error::NonFinite`]; [`check_alphas`]'s errors.
pub fn reference_forward(cfg: &NeuronConfig, alphas: &[f32], x: &[f32]) -> Result<Vec<f32>> {
    Ok(run(cfg, x, Some(alphas), 0.0)?
        .1
        .iter()
        .map(|o| o.s)
        .collect())
}

/// The first-batch amplitudes `α_t = k·mean_i |u_{t,i}|` (the LSQ init
/// `2·E|u|/√Q_p` at `k = 2`), computed step by step because `u_t` depends on
/// `α_{t−1}`. O(T·n).
///
/// # Errors
/// As [`reference_forward`], and [`Error::InvalidParameter`] for `k` not finite and positive.
pub fn reference_init_alphas(cfg: &NeuronConfig, k: f32, x: &[f32]) -> Result<Vec<f32>> {
    check_k(k)?;
    Ok(run(cfg, x, None, k)?.2)
}

/// Checks a mean-abs multiplier `k` (finite, > 0).
pub(crate) fn check_k(k: f32) -> Result<()> {
    if !(k.is_finite() && k > 0.0) {
        return Err(Error::InvalidParameter {
            name: "k",
            value: k.to_string(),
            expected: "a finite value > 0",
        });
    }
    Ok(())
}

/// The straight-through gradients of `L` given `g = ∂L/∂s` (`T·n` values):
///
/// ```text
/// ∂L/∂u_t = g_t·1[Q_n ≤ u_t/α_t ≤ Q_p] + λ·r_t·∂L/∂u_{t+1}     (r_t, s_t detached)
/// ∂L/∂x_t = ∂L/∂u_t
/// ∂L/∂α_t = (1/√n)·Σ_i g_{t,i}·γ(u_{t,i}/α_t)                  (γ: Levels::alpha_coefficient)
/// ```
///
/// in closed form by a reverse sweep, O(T·n); returns `(∂L/∂x, ∂L/∂α)`. The
/// α gradient is zero at a step whose amplitude is floored at 10⁻⁵ (as
/// torch's `where` in the official code).
///
/// # Errors
/// As [`reference_forward`], and [`Error::ShapeMismatch`] when `g` and `x` differ in length, [`Error::NonFinite`] for `g`.
pub fn reference_backward(
    cfg: &NeuronConfig,
    alphas: &[f32],
    x: &[f32],
    g: &[f32],
) -> Result<(Vec<f32>, Vec<f32>)> {
    let (_, out, _) = run(cfg, x, Some(alphas), 0.0)?;
    if g.len() != x.len() {
        return Err(Error::ShapeMismatch {
            what: "output gradient",
            expected: x.len().to_string(),
            got: g.len().to_string(),
        });
    }
    if g.iter().any(|v| !v.is_finite()) {
        return Err(Error::NonFinite("output gradient"));
    }
    let n = x.len() / cfg.t_steps;
    let scale = 1.0 / (n as f64).sqrt();
    let mut gx = vec![0f32; x.len()];
    let mut ga = vec![0f32; cfg.t_steps];
    for t in (0..cfg.t_steps).rev() {
        let mut acc = 0f64;
        for i in 0..n {
            let j = t * n + i;
            let o = &out[j];
            let mut gu = g[j] * o.mask;
            if t + 1 < cfg.t_steps {
                gu += gx[j + n] * cfg.decay * o.factor;
            }
            gx[j] = gu;
            acc += f64::from(g[j]) * f64::from(o.gamma);
        }
        if alphas[t] > ALPHA_EPS {
            ga[t] = (acc * scale) as f32;
        }
    }
    Ok((gx, ga))
}

/// The clip surrogate `Σ_{t,i} g_{t,i}·α_t·clip(u_{t,i}/α_t, Q_n, Q_p)` with
/// the reset factors frozen at `frozen` (`T·n` values, those of the real
/// forward pass): the function whose derivative the straight-through
/// gradient is. Used to check [`reference_backward`] by finite differences. O(T·n).
///
/// # Errors
/// As [`reference_backward`].
pub fn clip_surrogate(
    cfg: &NeuronConfig,
    alphas: &[f32],
    x: &[f32],
    g: &[f32],
    frozen: &[f32],
) -> Result<f64> {
    let n = check_input(cfg, x)?;
    check_alphas(cfg.t_steps, alphas)?;
    if g.len() != x.len() || frozen.len() != x.len() {
        return Err(Error::ShapeMismatch {
            what: "surrogate inputs",
            expected: x.len().to_string(),
            got: format!("{} and {}", g.len(), frozen.len()),
        });
    }
    let (lo, hi) = cfg.levels.range();
    let mut u = x[..n].to_vec();
    let mut total = 0f64;
    for t in 0..cfg.t_steps {
        if t > 0 {
            for i in 0..n {
                u[i] = (u[i] * cfg.decay) * frozen[(t - 1) * n + i] + x[t * n + i];
            }
        }
        let a = alphas[t].max(ALPHA_EPS);
        for i in 0..n {
            let c = f64::from(a) * f64::from((u[i] / a).clamp(lo, hi));
            total += f64::from(g[t * n + i]) * c;
        }
    }
    Ok(total)
}

/// The reset factors `r_{t,i}` of the real forward pass (`T·n` values), for [`clip_surrogate`]. O(T·n).
///
/// # Errors
/// As [`reference_forward`].
pub fn reference_reset_factors(cfg: &NeuronConfig, alphas: &[f32], x: &[f32]) -> Result<Vec<f32>> {
    Ok(run(cfg, x, Some(alphas), 0.0)?
        .1
        .iter()
        .map(|o| o.factor)
        .collect())
}

/// The membranes `u_{t,i}` of the forward pass (`T·n` values). O(T·n).
///
/// # Errors
/// As [`reference_forward`].
pub fn reference_membranes(cfg: &NeuronConfig, alphas: &[f32], x: &[f32]) -> Result<Vec<f32>> {
    Ok(run(cfg, x, Some(alphas), 0.0)?.0)
}

#[cfg(test)]
mod round_tests {
    use super::round_unit;

    #[test]
    fn round_unit_is_round_ties_even_on_the_unit_interval() {
        // Every f32 in [−1, 1] with 2¹⁶ steps per unit, plus the ties and their neighbours.
        let mut vs: Vec<f32> = (-65_536..=65_536).map(|i| i as f32 / 65_536.0).collect();
        for t in [-1.0f32, -0.5, 0.0, 0.5, 1.0] {
            vs.extend([t, t.next_down(), t.next_up()]);
        }
        for v in vs {
            let want = v.round_ties_even() + 0.0;
            assert_eq!(round_unit(v).to_bits(), want.to_bits(), "v = {v}");
        }
        assert!(round_unit(f32::NAN).is_nan());
    }
}
