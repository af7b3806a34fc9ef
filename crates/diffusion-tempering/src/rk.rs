//! The classical baseline: an adaptive Dormand–Prince 5(4) solver, generic
//! over the scalar, and the Gaussian L2 loss of its solution.

use crate::data::Observations;
use crate::error::{Error, Result};
use crate::filter::check_params;
use crate::model::{OdeModel, Scalar};
use num_dual::Dual64;

/// Tolerances and step cap of [`dopri5`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RkConfig {
    /// Relative tolerance.
    pub rtol: f64,
    /// Absolute tolerance.
    pub atol: f64,
    /// Largest number of attempted steps before giving up.
    pub max_steps: usize,
}

impl Default for RkConfig {
    fn default() -> Self {
        RkConfig {
            rtol: 1e-8,
            atol: 1e-8,
            max_steps: 200_000,
        }
    }
}

impl RkConfig {
    /// Checks the tolerances and the step budget.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming `rtol` or `atol` unless each is
    /// finite and ≥ 0 with `rtol + atol > 0` (an infinite tolerance accepts
    /// every step, whatever its error), or naming `max_steps` when it is 0.
    pub fn check(&self) -> Result<()> {
        for (name, value) in [("rtol", self.rtol), ("atol", self.atol)] {
            if !(value.is_finite() && value >= 0.0) {
                return Err(Error::InvalidParameter {
                    name,
                    value,
                    expected: "finite and >= 0",
                });
            }
        }
        if self.rtol + self.atol <= 0.0 {
            return Err(Error::InvalidParameter {
                name: "rtol",
                value: self.rtol,
                expected: "rtol + atol > 0",
            });
        }
        if self.max_steps == 0 {
            return Err(Error::InvalidParameter {
                name: "max_steps",
                value: 0.0,
                expected: ">= 1",
            });
        }
        Ok(())
    }
}

const C: [f64; 7] = [0.0, 0.2, 0.3, 0.8, 8.0 / 9.0, 1.0, 1.0];
const A: [[f64; 6]; 7] = [
    [0.0; 6],
    [0.2, 0.0, 0.0, 0.0, 0.0, 0.0],
    [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0],
    [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0],
    [
        19372.0 / 6561.0,
        -25360.0 / 2187.0,
        64448.0 / 6561.0,
        -212.0 / 729.0,
        0.0,
        0.0,
    ],
    [
        9017.0 / 3168.0,
        -355.0 / 33.0,
        46732.0 / 5247.0,
        49.0 / 176.0,
        -5103.0 / 18656.0,
        0.0,
    ],
    [
        35.0 / 384.0,
        0.0,
        500.0 / 1113.0,
        125.0 / 192.0,
        -2187.0 / 6784.0,
        11.0 / 84.0,
    ],
];
const E: [f64; 7] = [
    71.0 / 57600.0,
    0.0,
    -71.0 / 16695.0,
    71.0 / 1920.0,
    -17253.0 / 339200.0,
    22.0 / 525.0,
    -1.0 / 40.0,
];

/// Solves `ẋ = f(x, θ, t)` from `x₀(θ)` at `t₀` with the adaptive
/// Dormand–Prince 5(4) pair and returns the solution at `out_times`
/// (`≥ t₀`, increasing; steps are shortened to land on them exactly).
///
/// Step control on the real parts only (error norm: RMS of
/// `err / (atol + rtol·max|x|)`), so a dual-number run differentiates the
/// discrete solution the step sequence defines, as forward-mode AD through
/// any adaptive solver does.
///
/// # Errors
/// [`Error::NonFinite`] when `f` or the state goes NaN/∞ (step = attempted
/// step count), [`Error::InvalidParameter`] when the step budget runs out,
/// for a non-finite `t0` or an output time before `t0`;
/// [`Error::NonMonotoneTimes`] unless the output times are finite and
/// strictly increasing.
pub fn dopri5<M: OdeModel, T: Scalar>(
    model: &M,
    p: &[T],
    t0: f64,
    out_times: &[f64],
    cfg: &RkConfig,
) -> Result<Vec<Vec<T>>> {
    cfg.check()?;
    if !t0.is_finite() {
        return Err(Error::InvalidParameter {
            name: "t0",
            value: t0,
            expected: "finite",
        });
    }
    for (i, &t) in out_times.iter().enumerate() {
        if !t.is_finite() || (i > 0 && t <= out_times[i - 1]) {
            return Err(Error::NonMonotoneTimes { index: i });
        }
    }
    if let Some(&first) = out_times.first()
        && first < t0
    {
        return Err(Error::InvalidParameter {
            name: "first output time",
            value: first,
            expected: ">= t0 (the solver integrates forward)",
        });
    }
    let d = model.dim();
    let zero = T::from(0.0);
    let mut x = model.x0(p);
    let mut t = t0;
    let mut out = Vec::with_capacity(out_times.len());
    let t_end = out_times.last().copied().unwrap_or(t0);
    let mut h = ((t_end - t0) * 1e-3).max(1e-6);
    let mut k: Vec<Vec<T>> = vec![vec![zero; d]; 7];
    model.rhs(T::from(t), &x, p, &mut k[0]);
    let mut steps = 0usize;
    let mut xs = vec![zero; d];
    for &target in out_times {
        while t < target - 1e-12 * target.abs().max(1.0) {
            steps += 1;
            if steps > cfg.max_steps {
                return Err(Error::InvalidParameter {
                    name: "RK step budget exhausted at t",
                    value: t,
                    expected: "a non-stiff problem within max_steps",
                });
            }
            let hs = h.min(target - t);
            for s in 1..7 {
                for i in 0..d {
                    let mut acc = x[i];
                    for (j, kj) in k.iter().enumerate().take(s) {
                        if A[s][j] != 0.0 {
                            acc += kj[i] * (A[s][j] * hs);
                        }
                    }
                    xs[i] = acc;
                }
                model.rhs(T::from(t + C[s] * hs), &xs, p, &mut k[s]);
            }
            // xs holds the 5th-order solution (stage 7 is FSAL).
            let mut err = 0.0;
            for i in 0..d {
                let mut e = 0.0;
                for (s, ks) in k.iter().enumerate() {
                    e += E[s] * ks[i].re();
                }
                let sc = cfg.atol + cfg.rtol * x[i].re().abs().max(xs[i].re().abs());
                err += (e * hs / sc).powi(2);
            }
            let err = (err / d.max(1) as f64).sqrt();
            if !err.is_finite() || xs.iter().any(|v| !v.re().is_finite()) {
                if hs < 1e-12 {
                    return Err(Error::NonFinite { step: steps, t });
                }
                h = hs * 0.1;
                continue;
            }
            if err <= 1.0 {
                t += hs;
                x.copy_from_slice(&xs);
                let last = k[6].clone();
                k[0] = last;
            }
            let fac = if err == 0.0 {
                5.0
            } else {
                (0.9 * err.powf(-0.2)).clamp(0.2, 5.0)
            };
            if err <= 1.0 && hs < h {
                // a step shortened to hit an output time: keep the old h
            } else {
                h = hs * fac;
            }
        }
        out.push(x.clone());
    }
    Ok(out)
}

/// The L2 baseline loss: the Gaussian negative log-likelihood of the data
/// given the RK solution,
/// `ℓ₂(θ) = ½ Σ_k ‖y_k − H_obs x(t_k; θ)‖² / σ² + (K k/2) log(2πσ²)`.
///
/// The paper's "RK" baseline calls RadauIIA5 in the official code; here an
/// explicit adaptive Dormand–Prince 5(4) at `rtol = atol = 10⁻⁸` is used
/// (the benchmark systems are not stiff at the prior's parameters).
#[derive(Debug, Clone)]
pub struct L2Loss<M> {
    model: M,
    obs: Observations,
    t0: f64,
    cfg: RkConfig,
    form: L2Form,
}

/// The scale of [`L2Loss`]. The minimiser is the same; a scale-dependent
/// optimiser (unit first step, as Optim.jl's) behaves differently.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum L2Form {
    /// `½ Σ‖r‖²/σ² + (K k/2) log(2πσ²)` (default).
    #[default]
    GaussianNll,
    /// `Σ‖r‖² / K` over the `K` data times: the official scripts'
    /// `sum(abs2, u_data − u_est) / length(sol)`.
    MeanSquared,
}

impl<M: OdeModel> L2Loss<M> {
    /// Binds a model, its data and the initial time `t₀ ≤` the first data
    /// time.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when `H_obs` does not have `d` columns;
    /// [`Error::InvalidParameter`] for a non-finite `t₀` (named `t0`) or a
    /// first data time before it (named `first data time`), and the
    /// tolerance errors of [`RkConfig::check`].
    pub fn new(model: M, obs: Observations, t0: f64, cfg: RkConfig) -> Result<Self> {
        cfg.check()?;
        if obs.proj().ncols() != model.dim() {
            return Err(Error::DimensionMismatch {
                what: "columns of the observation projection vs ODE dimension",
                expected: model.dim(),
                got: obs.proj().ncols(),
            });
        }
        if !t0.is_finite() {
            return Err(Error::InvalidParameter {
                name: "t0",
                value: t0,
                expected: "finite",
            });
        }
        if obs.times()[0] < t0 {
            return Err(Error::InvalidParameter {
                name: "first data time",
                value: obs.times()[0],
                expected: ">= t0 (the solver integrates forward)",
            });
        }
        Ok(L2Loss {
            model,
            obs,
            t0,
            cfg,
            form: L2Form::GaussianNll,
        })
    }

    /// This loss with scale `form`.
    pub fn with_form(self, form: L2Form) -> Self {
        L2Loss { form, ..self }
    }

    fn generic<T: Scalar>(&self, p: &[T]) -> Result<T> {
        let xs = dopri5(&self.model, p, self.t0, self.obs.times(), &self.cfg)?;
        let proj = self.obs.proj();
        let y = self.obs.values();
        let s2 = self.obs.noise_var();
        let mut acc = T::from(0.0);
        for (row, x) in xs.iter().enumerate() {
            for o in 0..proj.nrows() {
                let mut r = T::from(y[[row, o]]);
                for j in 0..x.len() {
                    r -= x[j] * proj[[o, j]];
                }
                acc += r * r;
            }
        }
        let n = (xs.len() * proj.nrows()) as f64;
        Ok(match self.form {
            L2Form::GaussianNll => {
                acc * (0.5 / s2) + 0.5 * n * (2.0 * std::f64::consts::PI * s2).ln()
            }
            L2Form::MeanSquared => acc * (1.0 / xs.len() as f64),
        })
    }

    /// `ℓ₂(θ)`.
    ///
    /// # Errors
    /// Bad θ as in [`crate::FenrirLikelihood::nll`]; solver failures.
    /// A solution far from the data can make the sum of squares overflow:
    /// that is [`Error::NonFinite`] at the last data time, never `+∞`.
    pub fn nll(&self, p: &[f64]) -> Result<f64> {
        check_params(&self.model, p)?;
        let v = self.generic(p)?;
        self.finite(v)
    }

    fn finite(&self, v: f64) -> Result<f64> {
        if v.is_finite() {
            Ok(v)
        } else {
            let times = self.obs.times();
            Err(Error::NonFinite {
                step: times.len().saturating_sub(1),
                t: times.last().copied().unwrap_or(self.t0),
            })
        }
    }

    /// `(ℓ₂, ∇ℓ₂)` by forward sensitivities in `Dual64` (one solve per
    /// parameter).
    ///
    /// # Errors
    /// As [`L2Loss::nll`].
    pub fn nll_grad(&self, p: &[f64]) -> Result<(f64, Vec<f64>)> {
        check_params(&self.model, p)?;
        let mut g = Vec::with_capacity(p.len());
        let mut v = f64::NAN;
        for j in 0..p.len() {
            let pd: Vec<Dual64> = p
                .iter()
                .enumerate()
                .map(|(i, &x)| Dual64::new(x, if i == j { 1.0 } else { 0.0 }))
                .collect();
            let l = self.generic(&pd)?;
            v = l.re;
            g.push(l.eps);
        }
        if p.is_empty() {
            v = self.generic(p)?;
        }
        let v = self.finite(v)?;
        if g.iter().any(|x| !x.is_finite()) {
            return self.finite(f64::NAN).map(|_| (v, g));
        }
        Ok((v, g))
    }
}
