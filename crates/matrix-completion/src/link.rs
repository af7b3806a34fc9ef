//! FRMC's scalar links `f_θ: ℝ → ℝ`, applied to every entry of the latent matrix.
//!
//! The paper's FRMC predicts `ŷᵢⱼ = f_θ(Zᵢⱼ)` with one trainable function shared
//! by all entries, from a capacity-bounded (Lipschitz) class. Its exact
//! parametrisation is not published; the default here (reconstructed, see
//! the spec) is a monotone piecewise-linear function with slopes capped at
//! `ℓ_max`. An unconstrained link defeats the regulariser (it can rescale a
//! shrunken `Z` for free), which is why the cap is enforced after every step.

use crate::error::{Error, Result};

/// A trainable scalar function with closed-form derivatives.
///
/// The methods that take parameter buffers check their lengths against
/// [`ScalarLink::num_params`] and fail with [`Error::ShapeMismatch`] (and
/// [`Error::NonFiniteValue`] for non-finite parameters) instead of indexing
/// out of bounds.
pub trait ScalarLink {
    /// `f_θ(z)`.
    fn value(&self, z: f64) -> f64;
    /// `∂f_θ/∂z`.
    fn dvalue(&self, z: f64) -> f64;
    /// Number of trainable parameters `|θ|`.
    fn num_params(&self) -> usize;
    /// Adds `scale · ∂f_θ(z)/∂θ` to `out` (length [`ScalarLink::num_params`]).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `out` has the wrong length.
    fn add_grad_params(&self, z: f64, scale: f64, out: &mut [f64]) -> Result<()>;
    /// Adds `Σₑ scalesₑ · ∂f_θ(zsₑ)/∂θ` to `out`. The default loops over
    /// [`ScalarLink::add_grad_params`]; links may override it with a faster
    /// batch form.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `out` has the wrong length or `zs` and
    /// `scales` differ in length.
    fn add_grad_params_batch(&self, zs: &[f64], scales: &[f64], out: &mut [f64]) -> Result<()> {
        check_lengths(self.num_params(), zs, scales, out)?;
        for (&z, &s) in zs.iter().zip(scales) {
            self.add_grad_params(z, s, out)?;
        }
        Ok(())
    }
    /// The parameters θ.
    fn params(&self) -> Vec<f64>;
    /// Sets θ and projects it back onto the feasible set (monotone, Lipschitz-capped).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] when `theta` does not have
    /// [`ScalarLink::num_params`] entries; [`Error::NonFiniteValue`] for a NaN
    /// or infinite entry (the link is left unchanged).
    fn set_params_projected(&mut self, theta: &[f64]) -> Result<()>;
    /// The Lipschitz constant of `f_θ` (exact for these classes).
    fn lipschitz(&self) -> f64;
}

fn check_params_len(expected: usize, got: usize, what: &'static str) -> Result<()> {
    if expected == got {
        Ok(())
    } else {
        Err(Error::ShapeMismatch {
            what,
            expected: format!("length {expected} (the link's parameter count)"),
            got: format!("length {got}"),
        })
    }
}

fn check_lengths(n_params: usize, zs: &[f64], scales: &[f64], out: &[f64]) -> Result<()> {
    check_params_len(n_params, out.len(), "link gradient buffer")?;
    if zs.len() != scales.len() {
        return Err(Error::ShapeMismatch {
            what: "scales",
            expected: format!("length {} (as zs)", zs.len()),
            got: format!("length {}", scales.len()),
        });
    }
    Ok(())
}

fn check_theta(n_params: usize, theta: &[f64]) -> Result<()> {
    check_params_len(n_params, theta.len(), "link parameters")?;
    if let Some(index) = theta.iter().position(|v| !v.is_finite()) {
        return Err(Error::NonFiniteValue {
            what: "link parameters",
            index,
        });
    }
    Ok(())
}

/// `f(z) = z`: no parameters; FRMC with it is the plain deep factorisation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Identity;

impl ScalarLink for Identity {
    fn value(&self, z: f64) -> f64 {
        z
    }
    fn dvalue(&self, _z: f64) -> f64 {
        1.0
    }
    fn num_params(&self) -> usize {
        0
    }
    fn add_grad_params(&self, _z: f64, _scale: f64, out: &mut [f64]) -> Result<()> {
        check_params_len(0, out.len(), "link gradient buffer")
    }
    fn params(&self) -> Vec<f64> {
        Vec::new()
    }
    fn set_params_projected(&mut self, theta: &[f64]) -> Result<()> {
        check_theta(0, theta)
    }
    fn lipschitz(&self) -> f64 {
        1.0
    }
}

/// The most knots a [`MonotonePiecewiseLinear`] link may have (2²⁰: its
/// parameters and per-step gradient buffers stay within a few tens of MiB).
pub const MAX_KNOTS: usize = 1 << 20;

/// A monotone piecewise-linear link with slopes in `[0, ℓ_max]` (reconstructed
/// FRMC default).
///
/// Knots `t₀ < t₁ < … < t_{K−1}` equally spaced on `[lo, hi]`; parameters
/// `θ = (c, s₀, …, s_K)`:
///
/// `f(z) = c + s₀·min(z − t₀, 0) + Σ_{k=1}^{K−1} s_k·clamp(z − t_{k−1}, 0, t_k − t_{k−1}) + s_K·max(z − t_{K−1}, 0)`,
///
/// so `f(t₀) = c`, `s_k` is the slope on the k-th piece (`s₀` left of `t₀`,
/// `s_K` right of `t_{K−1}`), `f` is non-decreasing iff every `s_k ≥ 0` and its
/// Lipschitz constant is `max_k s_k`. Projection clamps every slope to
/// `[0, ℓ_max]`. Initialised to the identity (`c = t₀`, `s = 1`). Evaluation
/// O(1) (uniform knots); the parameter gradient touches O(K) entries.
#[derive(Debug, Clone, PartialEq)]
pub struct MonotonePiecewiseLinear {
    lo: f64,
    hi: f64,
    knots: usize,
    cap: f64,
    c: f64,
    slopes: Vec<f64>,
    /// `f(t_k)` for every knot, kept in sync with `c` and `slopes`.
    at_knots: Vec<f64>,
}

impl MonotonePiecewiseLinear {
    /// The spec's default: 24 knots on `[−4, 4]`, `ℓ_max = 3`, identity start.
    pub fn paper_default() -> Self {
        Self::identity(24, -4.0, 4.0, 3.0).expect("valid defaults")
    }

    /// `knots` knots on `[lo, hi]`, slopes capped at `cap`, initialised to the identity.
    ///
    /// # Errors
    /// [`Error::InvalidLink`] for fewer than 2 knots, `lo ≥ hi` or not finite,
    /// `cap` not finite or `< 1` (the identity start needs slope 1; a cap of 1
    /// still allows any link with slopes in [0, 1]), more than
    /// [`MAX_KNOTS`] knots, or knots so close that their spacing
    /// `(hi − lo)/(K − 1)` is not a positive finite number.
    pub fn identity(knots: usize, lo: f64, hi: f64, cap: f64) -> Result<Self> {
        if !(2..=MAX_KNOTS).contains(&knots) {
            return Err(Error::InvalidLink {
                reason: format!("{knots} knot(s); need 2 to {MAX_KNOTS}"),
            });
        }
        if !(lo.is_finite() && hi.is_finite() && lo < hi) {
            return Err(Error::InvalidLink {
                reason: format!("knot range [{lo}, {hi}] is empty or not finite"),
            });
        }
        // hi − lo overflows for lo, hi near ±f64::MAX; the spacing must be usable.
        let h = (hi - lo) / (knots - 1) as f64;
        if !(h.is_finite() && h > 0.0) {
            return Err(Error::InvalidLink {
                reason: format!(
                    "knot spacing (hi − lo)/(K − 1) = {h} on [{lo}, {hi}] is not a positive finite number"
                ),
            });
        }
        if !(cap.is_finite() && cap >= 1.0) {
            return Err(Error::InvalidLink {
                reason: format!("Lipschitz cap {cap}; need a finite cap >= 1"),
            });
        }
        let mut l = MonotonePiecewiseLinear {
            lo,
            hi,
            knots,
            cap,
            c: lo,
            slopes: vec![1.0; knots + 1],
            at_knots: Vec::new(),
        };
        l.refresh();
        Ok(l)
    }

    /// The knots `t_k`.
    pub fn knot_positions(&self) -> Vec<f64> {
        (0..self.knots).map(|k| self.knot(k)).collect()
    }

    fn h(&self) -> f64 {
        (self.hi - self.lo) / (self.knots - 1) as f64
    }

    fn knot(&self, k: usize) -> f64 {
        self.lo + k as f64 * self.h()
    }

    /// The slopes `s₀ … s_K`.
    pub fn slopes(&self) -> &[f64] {
        &self.slopes
    }

    /// The offset `c = f(t₀)`.
    pub fn offset(&self) -> f64 {
        self.c
    }

    /// The cap `ℓ_max`.
    pub fn cap(&self) -> f64 {
        self.cap
    }

    fn refresh(&mut self) {
        let h = self.h();
        let mut v = self.c;
        self.at_knots.clear();
        self.at_knots.push(v);
        for k in 1..self.knots {
            v += self.slopes[k] * h;
            self.at_knots.push(v);
        }
    }

    /// Index of the slope active at `z` (right-continuous at knots).
    fn piece(&self, z: f64) -> usize {
        if z < self.lo {
            0
        } else if z >= self.hi {
            self.knots
        } else {
            (((z - self.lo) / self.h()).floor() as usize).min(self.knots - 2) + 1
        }
    }
}

impl ScalarLink for MonotonePiecewiseLinear {
    fn value(&self, z: f64) -> f64 {
        if z < self.lo {
            return self.c + self.slopes[0] * (z - self.lo);
        }
        // f(t_{p−1}) plus the partial piece p.
        let p = self.piece(z);
        self.at_knots[p - 1] + self.slopes[p] * (z - self.knot(p - 1))
    }
    fn dvalue(&self, z: f64) -> f64 {
        self.slopes[self.piece(z)]
    }
    fn num_params(&self) -> usize {
        self.knots + 2
    }
    fn add_grad_params(&self, z: f64, scale: f64, out: &mut [f64]) -> Result<()> {
        check_params_len(self.num_params(), out.len(), "link gradient buffer")?;
        out[0] += scale;
        let h = self.h();
        if z < self.lo {
            out[1] += scale * (z - self.lo);
            return Ok(());
        }
        let p = self.piece(z);
        for o in &mut out[2..p + 1] {
            *o += scale * h;
        }
        if p == self.knots {
            out[p + 1] += scale * (z - self.hi);
        } else {
            out[p + 1] += scale * (z - self.knot(p - 1));
        }
        Ok(())
    }
    /// O(N + K): counts per piece, then suffix sums for the full pieces.
    fn add_grad_params_batch(&self, zs: &[f64], scales: &[f64], out: &mut [f64]) -> Result<()> {
        check_lengths(self.num_params(), zs, scales, out)?;
        let k = self.knots;
        let h = self.h();
        // beyond[p] = Σ scale over entries in piece p; partial[p] = Σ scale·(z − left end).
        let mut beyond = vec![0.0; k + 1];
        let mut partial = vec![0.0; k + 1];
        for (&z, &s) in zs.iter().zip(scales) {
            out[0] += s;
            let p = self.piece(z);
            beyond[p] += s;
            partial[p] += s * if p == 0 {
                z - self.lo
            } else {
                z - self.knot(p - 1)
            };
        }
        let mut tail = 0.0; // Σ scale over entries in pieces > q
        for q in (0..=k).rev() {
            out[q + 1] += partial[q] + if (1..k).contains(&q) { h * tail } else { 0.0 };
            tail += beyond[q];
        }
        Ok(())
    }
    fn params(&self) -> Vec<f64> {
        let mut t = vec![self.c];
        t.extend_from_slice(&self.slopes);
        t
    }
    fn set_params_projected(&mut self, theta: &[f64]) -> Result<()> {
        check_theta(self.num_params(), theta)?;
        self.c = theta[0];
        for (s, &t) in self.slopes.iter_mut().zip(&theta[1..]) {
            *s = t.clamp(0.0, self.cap);
        }
        self.refresh();
        Ok(())
    }
    fn lipschitz(&self) -> f64 {
        self.slopes.iter().cloned().fold(0.0, f64::max)
    }
}

/// The link of a model: [`Identity`] (the plain Schatten model) or FRMC's
/// [`MonotonePiecewiseLinear`].
#[derive(Debug, Clone, PartialEq)]
pub enum Link {
    /// `f(z) = z`.
    Identity(Identity),
    /// Monotone, Lipschitz-capped, piecewise linear.
    Monotone(MonotonePiecewiseLinear),
}

macro_rules! dispatch {
    ($self:ident, $l:ident => $e:expr) => {
        match $self {
            Link::Identity($l) => $e,
            Link::Monotone($l) => $e,
        }
    };
}

impl ScalarLink for Link {
    fn value(&self, z: f64) -> f64 {
        dispatch!(self, l => l.value(z))
    }
    fn dvalue(&self, z: f64) -> f64 {
        dispatch!(self, l => l.dvalue(z))
    }
    fn num_params(&self) -> usize {
        dispatch!(self, l => l.num_params())
    }
    fn add_grad_params(&self, z: f64, scale: f64, out: &mut [f64]) -> Result<()> {
        dispatch!(self, l => l.add_grad_params(z, scale, out))
    }
    fn add_grad_params_batch(&self, zs: &[f64], scales: &[f64], out: &mut [f64]) -> Result<()> {
        dispatch!(self, l => l.add_grad_params_batch(zs, scales, out))
    }
    fn params(&self) -> Vec<f64> {
        dispatch!(self, l => l.params())
    }
    fn set_params_projected(&mut self, theta: &[f64]) -> Result<()> {
        dispatch!(self, l => l.set_params_projected(theta))
    }
    fn lipschitz(&self) -> f64 {
        dispatch!(self, l => l.lipschitz())
    }
}
