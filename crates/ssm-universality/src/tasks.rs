//! Target maps for the experiments: the lag-copy task (memory) and an
//! input-driven non-linear ODE (universality, paper §5): a forced damped
//! pendulum `θ'' = −c θ' − ω² sin θ + g u(t)` integrated with RK4.

use crate::error::{Error, Result};
use ndarray::{Array1, Array2, ArrayView1, ArrayView2};

/// The lag-copy target `y_k = v_{k−τ}` (zero for `k ≤ τ`), `L × M` → `L × M`. O(LM).
///
/// # Errors
/// [`Error::EmptySequence`], [`Error::NonFinite`], [`Error::IndexOutOfRange`] when `τ ≥ L`.
pub fn lag_copy(v: ArrayView2<'_, f64>, tau: usize) -> Result<Array2<f64>> {
    if v.is_empty() {
        return Err(Error::EmptySequence {
            what: "input sequence",
        });
    }
    if v.iter().any(|x| !x.is_finite()) {
        return Err(Error::NonFinite {
            what: "input sequence",
        });
    }
    let l = v.nrows();
    if tau >= l {
        return Err(Error::IndexOutOfRange {
            what: "lag tau",
            index: tau,
            len: l,
        });
    }
    let mut y = Array2::zeros(v.dim());
    y.slice_mut(ndarray::s![tau.., ..])
        .assign(&v.slice(ndarray::s![..l - tau, ..]));
    Ok(y)
}

/// The forced damped pendulum `θ'' = −c θ' − ω² sin θ + g u(t)`, `θ(0) = θ'(0) = 0`,
/// with `u` held constant over each step of length `dt`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ForcedPendulum {
    /// Damping `c ≥ 0`.
    pub damping: f64,
    /// Natural frequency `ω > 0`.
    pub omega: f64,
    /// Input gain `g`.
    pub gain: f64,
    /// Step between inputs, `dt > 0`.
    pub dt: f64,
    /// RK4 sub-steps per input step (≥ 1).
    pub substeps: usize,
}

impl Default for ForcedPendulum {
    /// `c = 0.5`, `ω = 2`, `g = 2`, `dt = 0.1`, 4 RK4 sub-steps: a lightly
    /// damped swing whose memory spans ~40 steps, non-linear at |θ| ~ 1.
    fn default() -> Self {
        ForcedPendulum {
            damping: 0.5,
            omega: 2.0,
            gain: 2.0,
            dt: 0.1,
            substeps: 4,
        }
    }
}

impl ForcedPendulum {
    fn check(&self) -> Result<()> {
        let bad = |name, value, expected| {
            Err(Error::InvalidParameter {
                name,
                value,
                expected,
            })
        };
        if !(self.damping.is_finite() && self.damping >= 0.0) {
            return bad("damping", self.damping, "finite and >= 0");
        }
        if !(self.omega.is_finite() && self.omega > 0.0) {
            return bad("omega", self.omega, "finite and > 0");
        }
        if !self.gain.is_finite() {
            return bad("gain", self.gain, "finite");
        }
        if !(self.dt.is_finite() && self.dt > 0.0) {
            return bad("dt", self.dt, "finite and > 0");
        }
        if self.substeps == 0 {
            return Err(Error::ZeroWidth { what: "substeps" });
        }
        Ok(())
    }

    /// The angle `θ(k·dt)` after each input `u_k`, `k = 1 … L`: a causal
    /// non-linear sequence-to-sequence map of `u`. Classical RK4 with
    /// `substeps` steps of `dt/substeps` per input. O(L·substeps).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] / [`Error::ZeroWidth`] for bad parameters;
    /// [`Error::EmptySequence`], [`Error::NonFinite`] (input, or a trajectory that overflows).
    pub fn drive(&self, u: ArrayView1<'_, f64>) -> Result<Array1<f64>> {
        self.check()?;
        if u.is_empty() {
            return Err(Error::EmptySequence {
                what: "input sequence",
            });
        }
        if u.iter().any(|x| !x.is_finite()) {
            return Err(Error::NonFinite {
                what: "input sequence",
            });
        }
        let h = self.dt / self.substeps as f64;
        let (c, w2, g) = (self.damping, self.omega * self.omega, self.gain);
        let f = |th: f64, om: f64, uk: f64| (om, -c * om - w2 * th.sin() + g * uk);
        let (mut th, mut om) = (0.0f64, 0.0f64);
        let mut out = Array1::zeros(u.len());
        for (k, &uk) in u.iter().enumerate() {
            for _ in 0..self.substeps {
                let k1 = f(th, om, uk);
                let k2 = f(th + 0.5 * h * k1.0, om + 0.5 * h * k1.1, uk);
                let k3 = f(th + 0.5 * h * k2.0, om + 0.5 * h * k2.1, uk);
                let k4 = f(th + h * k3.0, om + h * k3.1, uk);
                th += h / 6.0 * (k1.0 + 2.0 * k2.0 + 2.0 * k3.0 + k4.0);
                om += h / 6.0 * (k1.1 + 2.0 * k2.1 + 2.0 * k3.1 + k4.1);
            }
            if !(th.is_finite() && om.is_finite()) {
                return Err(Error::NonFinite {
                    what: "pendulum trajectory (overflow)",
                });
            }
            out[k] = th;
        }
        Ok(out)
    }
}
