//! Backward-error analysis of gradient descent (Barrett & Dherin, 2021,
//! *Implicit Gradient Regularization*; the paper's framework for growth
//! mid-training).
//!
//! One GD step `θ₁ = θ₀ − h∇L(θ₀)` follows the gradient flow of the
//! **modified loss** `L̃ = L + (h/4)‖∇L‖²` to `O(h³)` per step (the plain flow
//! of `L` only to `O(h²)`). `∇L̃ = ∇L + (h/2)·H∇L`, with the Hessian-vector
//! product `H v` computed here by central differences of candle gradients:
//! `Hv ≈ (∇L(θ + εv) − ∇L(θ − εv))/(2ε)` (error `O(ε²)`, f64).
//!
//! Ordering: a step on `L₁` then `L₂` versus `L₂` then `L₁` differ by
//! `θ₁₂ − θ₂₁ = h²(H₂∇L₁ − H₁∇L₂) + O(h³)`, the Lie bracket
//! `[∇L₁, ∇L₂]` of the two gradient fields ([`lie_bracket`]).
//!
//! The objective is the mean squared error of an [`Mlp`] on a fixed batch,
//! as a function of the flat parameter vector `θ` (layer by layer: `W`
//! row-major, then `b`).

use crate::error::{Error, Result};
use crate::mlp::{Dense, Mlp, check_dtype, tensor2};
use candle_core::{DType, Device, Tensor, Var};
use ndarray::ArrayView2;

/// `L(θ) = mean((f_θ(x) − y)²)` of an MLP architecture on a fixed batch.
#[derive(Debug, Clone)]
pub struct Objective {
    net: Mlp,
    x: Tensor,
    y: Tensor,
}

fn check_vec(v: &[f64], n: usize, what: &'static str) -> Result<()> {
    if v.len() != n {
        return Err(Error::Shape {
            what,
            expected: vec![n],
            got: vec![v.len()],
        });
    }
    if v.iter().any(|a| !a.is_finite()) {
        return Err(Error::NonFinite { what });
    }
    Ok(())
}

fn positive(v: f64, name: &'static str) -> Result<()> {
    if v.is_finite() && v > 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidParameter {
            name,
            value: v,
            expected: "a finite value > 0",
        })
    }
}

impl Objective {
    /// The MSE objective of `net`'s architecture (and activation) on
    /// `(x: [n, d_in], y: [n, d_out])`, computed in f64.
    ///
    /// # Errors
    /// [`Error::EmptyNetwork`] for no rows; [`Error::Shape`] for mismatched
    /// widths or row counts; [`Error::NonFinite`] for NaN/∞ data.
    pub fn new(net: &Mlp, x: ArrayView2<'_, f64>, y: ArrayView2<'_, f64>) -> Result<Self> {
        let s = net.sizes();
        if x.nrows() == 0 {
            return Err(Error::EmptyNetwork {
                what: "empty batch",
            });
        }
        if x.ncols() != s[0] || y.ncols() != s[s.len() - 1] || y.nrows() != x.nrows() {
            return Err(Error::Shape {
                what: "batch (x, y) vs network",
                expected: vec![x.nrows(), s[0], s[s.len() - 1]],
                got: vec![y.nrows(), x.ncols(), y.ncols()],
            });
        }
        if x.iter().chain(y.iter()).any(|v| !v.is_finite()) {
            return Err(Error::NonFinite { what: "batch" });
        }
        check_dtype(DType::F64)?;
        Ok(Self {
            net: net.to_dtype(DType::F64)?,
            x: tensor2(x, DType::F64)?,
            y: tensor2(y, DType::F64)?,
        })
    }

    /// The number of parameters `|θ|`.
    pub fn dim(&self) -> usize {
        self.net.num_params()
    }

    /// The network's current parameters as a flat vector.
    ///
    /// # Errors
    /// [`Error::Candle`].
    pub fn theta(&self) -> Result<Vec<f64>> {
        let mut out = Vec::with_capacity(self.dim());
        for l in self.net.layers() {
            out.extend(l.weight().flatten_all()?.to_vec1::<f64>()?);
            out.extend(l.bias().to_vec1::<f64>()?);
        }
        Ok(out)
    }

    fn vars(&self, theta: &[f64]) -> Result<Vec<(Var, Var)>> {
        let mut off = 0;
        let mut out = Vec::with_capacity(self.net.depth());
        for l in self.net.layers() {
            let (o, i) = (l.out_dim(), l.in_dim());
            let w = Tensor::from_slice(&theta[off..off + o * i], (o, i), &Device::Cpu)?;
            off += o * i;
            let b = Tensor::from_slice(&theta[off..off + o], o, &Device::Cpu)?;
            off += o;
            out.push((Var::from_tensor(&w)?, Var::from_tensor(&b)?));
        }
        Ok(out)
    }

    fn loss_tensor(&self, vars: &[(Var, Var)]) -> Result<Tensor> {
        let layers = vars
            .iter()
            .map(|(w, b)| Dense {
                w: w.as_tensor().clone(),
                b: b.as_tensor().clone(),
            })
            .collect();
        let net = Mlp::from_dense(layers, self.net.activation());
        Ok(candle_nn::loss::mse(
            &net.forward_unchecked(&self.x)?,
            &self.y,
        )?)
    }

    /// `L(θ)`. O(n·#params).
    ///
    /// # Errors
    /// [`Error::Shape`] / [`Error::NonFinite`] for a bad `θ`.
    pub fn loss(&self, theta: &[f64]) -> Result<f64> {
        check_vec(theta, self.dim(), "theta")?;
        Ok(self.loss_tensor(&self.vars(theta)?)?.to_scalar::<f64>()?)
    }

    /// `∇L(θ)` by candle's reverse mode. O(n·#params).
    ///
    /// # Errors
    /// As [`loss`](Self::loss).
    pub fn grad(&self, theta: &[f64]) -> Result<Vec<f64>> {
        check_vec(theta, self.dim(), "theta")?;
        let vars = self.vars(theta)?;
        let grads = self.loss_tensor(&vars)?.backward()?;
        let mut out = Vec::with_capacity(theta.len());
        for (w, b) in &vars {
            for v in [w, b] {
                match grads.get(v) {
                    Some(g) => out.extend(g.flatten_all()?.to_vec1::<f64>()?),
                    None => out.extend(std::iter::repeat_n(0.0, v.elem_count())),
                }
            }
        }
        Ok(out)
    }

    /// Hessian-vector product `H(θ)v ≈ (∇L(θ + εv) − ∇L(θ − εv))/(2ε)`.
    /// Two gradients.
    ///
    /// # Errors
    /// As [`loss`](Self::loss); [`Error::InvalidParameter`] for ε ≤ 0.
    pub fn hvp_fd(&self, theta: &[f64], v: &[f64], eps: f64) -> Result<Vec<f64>> {
        check_vec(theta, self.dim(), "theta")?;
        check_vec(v, self.dim(), "direction v")?;
        positive(eps, "finite-difference eps")?;
        let plus: Vec<f64> = theta.iter().zip(v).map(|(t, d)| t + eps * d).collect();
        let minus: Vec<f64> = theta.iter().zip(v).map(|(t, d)| t - eps * d).collect();
        let (gp, gm) = (self.grad(&plus)?, self.grad(&minus)?);
        Ok(gp
            .iter()
            .zip(&gm)
            .map(|(a, b)| (a - b) / (2.0 * eps))
            .collect())
    }

    /// The implicit-gradient-regularisation penalty `(h/4)‖∇L(θ)‖²`.
    ///
    /// # Errors
    /// As [`loss`](Self::loss); [`Error::InvalidParameter`] for h ≤ 0.
    pub fn igr_penalty(&self, theta: &[f64], h: f64) -> Result<f64> {
        positive(h, "step size h")?;
        let g = self.grad(theta)?;
        Ok(h / 4.0 * g.iter().map(|v| v * v).sum::<f64>())
    }

    /// The modified loss `L̃ = L + (h/4)‖∇L‖²`.
    ///
    /// # Errors
    /// As [`igr_penalty`](Self::igr_penalty).
    pub fn modified_loss(&self, theta: &[f64], h: f64) -> Result<f64> {
        Ok(self.loss(theta)? + self.igr_penalty(theta, h)?)
    }

    /// `∇L̃ = ∇L + (h/2)·H∇L`, the Hessian-vector product taken by central
    /// differences along the unit direction `∇L/‖∇L‖` with step `eps` and
    /// scaled back by `‖∇L‖` (so `eps` is a distance in parameter space).
    /// Three gradients.
    ///
    /// # Errors
    /// As [`hvp_fd`](Self::hvp_fd); [`Error::InvalidParameter`] for h ≤ 0.
    pub fn modified_grad(&self, theta: &[f64], h: f64, eps: f64) -> Result<Vec<f64>> {
        positive(h, "step size h")?;
        let g = self.grad(theta)?;
        let norm = g.iter().map(|v| v * v).sum::<f64>().sqrt();
        if norm == 0.0 {
            return Ok(g);
        }
        let unit: Vec<f64> = g.iter().map(|v| v / norm).collect();
        let hu = self.hvp_fd(theta, &unit, eps)?;
        Ok(g.iter()
            .zip(&hu)
            .map(|(a, b)| a + 0.5 * h * norm * b)
            .collect())
    }
}

/// The Lie bracket of the gradient fields of `l1` and `l2` at `θ`:
/// `[∇L₁, ∇L₂] = H₂∇L₁ − H₁∇L₂` (Hessian-vector products by central
/// differences). Six gradients.
///
/// # Errors
/// [`Error::Shape`] when the objectives have different parameter counts;
/// as [`Objective::hvp_fd`].
pub fn lie_bracket(l1: &Objective, l2: &Objective, theta: &[f64], eps: f64) -> Result<Vec<f64>> {
    if l1.dim() != l2.dim() {
        return Err(Error::Shape {
            what: "parameter counts of the two objectives",
            expected: vec![l1.dim()],
            got: vec![l2.dim()],
        });
    }
    let (g1, g2) = (l1.grad(theta)?, l2.grad(theta)?);
    let a = l2.hvp_fd(theta, &g1, eps)?;
    let b = l1.hvp_fd(theta, &g2, eps)?;
    Ok(a.iter().zip(&b).map(|(x, y)| x - y).collect())
}

/// `steps` classical Runge–Kutta (RK4) steps of `dθ/dt = field(θ)` over time
/// `t`, from `theta0`. Local error `O((t/steps)⁵)`; 4 field evaluations per step.
///
/// # Errors
/// [`Error::InvalidParameter`] for `t ≤ 0` or `steps = 0`;
/// [`Error::NonFinite`] for a non-finite state; the field's errors.
pub fn rk4<F>(mut field: F, theta0: &[f64], t: f64, steps: usize) -> Result<Vec<f64>>
where
    F: FnMut(&[f64]) -> Result<Vec<f64>>,
{
    positive(t, "flow time t")?;
    if steps == 0 {
        return Err(Error::InvalidParameter {
            name: "RK4 steps",
            value: 0.0,
            expected: "at least 1",
        });
    }
    let n = theta0.len();
    check_vec(theta0, n, "theta0")?;
    let dt = t / steps as f64;
    let mut th = theta0.to_vec();
    let axpy = |a: &[f64], s: f64, b: &[f64]| -> Vec<f64> {
        a.iter().zip(b).map(|(x, y)| x + s * y).collect()
    };
    for _ in 0..steps {
        let k1 = field(&th)?;
        let k2 = field(&axpy(&th, dt / 2.0, &k1))?;
        let k3 = field(&axpy(&th, dt / 2.0, &k2))?;
        let k4 = field(&axpy(&th, dt, &k3))?;
        for i in 0..n {
            th[i] += dt / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
        }
        check_vec(&th, n, "flow state")?;
    }
    Ok(th)
}

/// One-step errors of GD with step `h` from `θ`: against the RK4 flow of the
/// modified loss `L̃` (expected `O(h³)`) and of the plain loss (expected
/// `O(h²)`), as Euclidean norms `(e_modified, e_plain)`.
///
/// # Errors
/// As [`Objective::modified_grad`] and [`rk4`].
pub fn gd_step_errors(
    obj: &Objective,
    theta: &[f64],
    h: f64,
    rk4_steps: usize,
    eps: f64,
) -> Result<(f64, f64)> {
    positive(h, "step size h")?;
    let g = obj.grad(theta)?;
    let gd: Vec<f64> = theta.iter().zip(&g).map(|(t, d)| t - h * d).collect();
    let modified = rk4(
        |th| {
            Ok(obj
                .modified_grad(th, h, eps)?
                .into_iter()
                .map(|v| -v)
                .collect())
        },
        theta,
        h,
        rk4_steps,
    )?;
    let plain = rk4(
        |th| Ok(obj.grad(th)?.into_iter().map(|v| -v).collect()),
        theta,
        h,
        rk4_steps,
    )?;
    let dist = |a: &[f64]| {
        a.iter()
            .zip(&gd)
            .map(|(x, y)| (x - y).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    Ok((dist(&modified), dist(&plain)))
}

/// `(θ₁₂ − θ₂₁)` for one GD step of size `h` on `l1` then `l2` versus the
/// reverse order (both from `θ`).
///
/// # Errors
/// As [`Objective::grad`]; [`Error::InvalidParameter`] for h ≤ 0.
pub fn ordering_difference(
    l1: &Objective,
    l2: &Objective,
    theta: &[f64],
    h: f64,
) -> Result<Vec<f64>> {
    positive(h, "step size h")?;
    let step = |o: &Objective, th: &[f64]| -> Result<Vec<f64>> {
        let g = o.grad(th)?;
        Ok(th.iter().zip(&g).map(|(t, d)| t - h * d).collect())
    };
    let a = step(l2, &step(l1, theta)?)?;
    let b = step(l1, &step(l2, theta)?)?;
    Ok(a.iter().zip(&b).map(|(x, y)| x - y).collect())
}
