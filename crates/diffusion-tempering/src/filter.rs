//! The square-root ODE filter (EK0/EK1) on a fixed grid, and its smoother.

use crate::data::Grid;
use crate::error::{Error, Result};
use crate::model::{MAX_TAYLOR_ORDER, OdeModel, Scalar, rhs_and_jacobian, taylor_init};
use crate::prior::Iwp;
use crate::sqrt::{Mat, kalman_update, qr_in_place, solve_upper};
use ndarray::{Array2, Array3};

/// How the ODE measurement `z = E₁X − f(E₀X, θ, t)` is linearised.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Linearization {
    /// Zeroth order: `H = E₁` (the Jacobian of `f` is ignored).
    Ek0,
    /// First order (the paper's choice): `H = E₁ − J_f(E₀m⁻) E₀`, with the
    /// exact Jacobian from dual numbers.
    #[default]
    Ek1,
}

/// Settings of the ODE filter: the order `q` of the IWP prior and the
/// linearisation. Default: `q = 3`, EK1 (the paper's).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FilterConfig {
    /// Order `q` of the integrated Wiener process prior (1 to 3).
    pub order: usize,
    /// Linearisation of the ODE measurement.
    pub linearization: Linearization,
}

impl Default for FilterConfig {
    fn default() -> Self {
        FilterConfig {
            order: 3,
            linearization: Linearization::Ek1,
        }
    }
}

impl FilterConfig {
    /// Validates the settings and builds the prior.
    ///
    /// # Errors
    /// [`Error::InvalidOrder`] unless `1 ≤ q ≤ 7` ([`MAX_TAYLOR_ORDER`]): the
    /// exact Taylor-mode initialisation uses `Dual3` numbers (q ≤ 3) and
    /// nested `Dual3<Dual3>` numbers (q ≤ 7); the paper uses `q = 3`.
    pub fn prior(&self) -> Result<Iwp> {
        if self.order == 0 || self.order > MAX_TAYLOR_ORDER {
            return Err(Error::InvalidOrder {
                q: self.order,
                max: MAX_TAYLOR_ORDER,
            });
        }
        Iwp::new(self.order)
    }
}

/// One backward kernel `X_n | X_{n+1} ~ N(G X_{n+1} + b, Λ)`, `Λ = R_ΛᵀR_Λ`.
#[derive(Debug, Clone)]
pub(crate) struct Kernel<T> {
    pub g: Mat<T>,
    pub b: Vec<T>,
    pub r_lambda: Mat<T>,
}

/// What the forward pass returns.
pub(crate) struct Forward<T> {
    /// Backward kernels, `kernels[n]` links `n` and `n + 1`.
    pub kernels: Vec<Kernel<T>>,
    /// Filter means and factors at every grid point (when kept).
    pub means: Vec<Vec<T>>,
    /// Filter right factors (when kept).
    pub factors: Vec<Mat<T>>,
    /// Last filter mean.
    pub m_last: Vec<T>,
    /// Last filter factor.
    pub r_last: Mat<T>,
}

/// The forward ODE filter: Taylor-mode initialisation (`P₀ = 0`), then per
/// step a preconditioned square-root prediction that also yields the
/// backward kernel, and a noise-free square-root update on
/// `z = E₁X − f(E₀X, θ, t) = 0`.
///
/// Prediction pre-array, in Nordsieck coordinates `X̃ = T(h)⁻¹X`:
/// `[[R̃Āᵀ, R̃], [κR̄, 0]]` (`2D × 2D`, `D = d(q+1)`); one QR gives
/// `[[R̃⁻, Ỹ], [0, R̃_Λ]]` with `P̃⁻ = R̃⁻ᵀR̃⁻`, `G̃ = Ỹᵀ R̃⁻⁻ᵀ` and
/// `Λ̃ = R̃_ΛᵀR̃_Λ`. Cost per step `O(D³)`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn forward<M: OdeModel, T: Scalar>(
    model: &M,
    prior: &Iwp,
    lin: Linearization,
    times: &[f64],
    p: &[T],
    sqrt_k: T,
    keep: bool,
) -> Result<Forward<T>> {
    let d = model.dim();
    let q = prior.order();
    let nd = (q + 1) * d;
    let zero = T::from(0.0);
    let init = taylor_init(model, times[0], p, q);
    let mut m = vec![zero; nd];
    for (k, ck) in init.iter().enumerate().take(q + 1) {
        for i in 0..d {
            m[k * d + i] = ck[i];
        }
    }
    if m.iter().any(|v| !v.re().is_finite()) {
        return Err(Error::NonFinite {
            step: 0,
            t: times[0],
        });
    }
    let mut r = Mat::zeros(nd, nd);
    let mut kernels = Vec::with_capacity(times.len() - 1);
    let mut means = Vec::new();
    let mut factors = Vec::new();
    if keep {
        means.push(m.clone());
        factors.push(r.clone());
    }
    let mut pre = Mat::zeros(2 * nd, 2 * nd);
    let mut h_mat = Mat::zeros(d, nd);
    let mut last_h = f64::NAN;
    let mut tfull = vec![0.0; nd];
    for n in 0..times.len() - 1 {
        let h = times[n + 1] - times[n];
        if h != last_h {
            let tq = prior.preconditioner(h);
            for k in 0..=q {
                for i in 0..d {
                    tfull[k * d + i] = tq[k];
                }
            }
            last_h = h;
        }
        // --- prediction and backward kernel, preconditioned ---
        for v in pre.data.iter_mut() {
            *v = zero;
        }
        for row in 0..nd {
            for k in 0..=q {
                for i in 0..d {
                    let mut acc = zero;
                    for l in k..=q {
                        let a = prior.a_bar(k, l);
                        acc += r.at(row, l * d + i) * (a / tfull[l * d + i]);
                    }
                    *pre.at_mut(row, k * d + i) = acc;
                }
            }
            for c in 0..nd {
                *pre.at_mut(row, nd + c) = r.at(row, c) / tfull[c];
            }
        }
        for k in 0..=q {
            for l in k..=q {
                let v = sqrt_k * prior.r_bar(k, l);
                for i in 0..d {
                    *pre.at_mut(nd + k * d + i, l * d + i) = v;
                }
            }
        }
        qr_in_place(&mut pre);
        // m̃⁻ = Ā m̃
        let mut m_pred = vec![zero; nd];
        for k in 0..=q {
            for i in 0..d {
                let mut acc = zero;
                for l in k..=q {
                    acc += m[l * d + i] * (prior.a_bar(k, l) / tfull[l * d + i]);
                }
                m_pred[k * d + i] = acc * tfull[k * d + i];
            }
        }
        // G̃ᵀ = R̃⁻⁻¹ Ỹ, column by column; G = T G̃ T⁻¹.
        let mut g = Mat::zeros(nd, nd);
        let mut col = vec![zero; nd];
        for c in 0..nd {
            for a in 0..nd {
                col[a] = pre.at(a, nd + c);
            }
            solve_upper(&pre, nd, &mut col).ok_or(Error::NotPositiveDefinite { step: n + 1 })?;
            for a in 0..nd {
                *g.at_mut(c, a) = col[a] * (tfull[c] / tfull[a]);
            }
        }
        let mut b = m.clone();
        for c in 0..nd {
            let mut acc = zero;
            for a in 0..nd {
                acc += g.at(c, a) * m_pred[a];
            }
            b[c] -= acc;
        }
        let mut r_lambda = Mat::zeros(nd, nd);
        let mut r_pred = Mat::zeros(nd, nd);
        for row in 0..nd {
            for c in 0..nd {
                *r_lambda.at_mut(row, c) = pre.at(nd + row, nd + c) * tfull[c];
                *r_pred.at_mut(row, c) = pre.at(row, c) * tfull[c];
            }
        }
        kernels.push(Kernel { g, b, r_lambda });
        // --- noise-free ODE update at t_{n+1} ---
        let t1 = times[n + 1];
        let x: Vec<T> = m_pred[..d].to_vec();
        for v in h_mat.data.iter_mut() {
            *v = zero;
        }
        let f = match lin {
            Linearization::Ek1 => {
                let (f, jac) = rhs_and_jacobian(model, T::from(t1), &x, p);
                if jac.iter().any(|v| !v.re().is_finite()) {
                    return Err(Error::NonFinite { step: n + 1, t: t1 });
                }
                for i in 0..d {
                    for j in 0..d {
                        *h_mat.at_mut(i, j) = -jac[i * d + j];
                    }
                }
                f
            }
            Linearization::Ek0 => {
                let mut f = vec![zero; d];
                model.rhs(T::from(t1), &x, p, &mut f);
                f
            }
        };
        for i in 0..d {
            *h_mat.at_mut(i, d + i) = T::from(1.0);
        }
        let e: Vec<T> = (0..d).map(|i| f[i] - m_pred[d + i]).collect();
        if e.iter().any(|v| !v.re().is_finite()) {
            return Err(Error::NonFinite { step: n + 1, t: t1 });
        }
        let mut r_new = r_pred;
        kalman_update(&mut m_pred, &mut r_new, &h_mat, zero, &e)
            .ok_or(Error::NotPositiveDefinite { step: n + 1 })?;
        if m_pred.iter().any(|v| !v.re().is_finite()) {
            return Err(Error::NonFinite { step: n + 1, t: t1 });
        }
        m = m_pred;
        r = r_new;
        if keep {
            means.push(m.clone());
            factors.push(r.clone());
        }
    }
    Ok(Forward {
        kernels,
        means,
        factors,
        m_last: m,
        r_last: r,
    })
}

/// One step back through a kernel: `m ← G m + b`, `R ← qr([R Gᵀ; R_Λ])`.
pub(crate) fn backward_step<T: Scalar>(k: &Kernel<T>, m: &mut Vec<T>, r: &mut Mat<T>) {
    let nd = m.len();
    let zero = T::from(0.0);
    let mut m_new = k.b.clone();
    for (c, mc) in m_new.iter_mut().enumerate() {
        let mut acc = zero;
        for a in 0..nd {
            acc += k.g.at(c, a) * m[a];
        }
        *mc += acc;
    }
    let mut pre = Mat::zeros(2 * nd, nd);
    for row in 0..nd {
        for c in 0..nd {
            let mut acc = zero;
            for a in 0..nd {
                acc += r.at(row, a) * k.g.at(c, a);
            }
            *pre.at_mut(row, c) = acc;
            *pre.at_mut(nd + row, c) = k.r_lambda.at(row, c);
        }
    }
    qr_in_place(&mut pre);
    for row in 0..nd {
        for c in 0..nd {
            *r.at_mut(row, c) = pre.at(row, c);
        }
    }
    *m = m_new;
}

/// The ODE filter's output on its grid (state layout: derivative-major,
/// `X[k·d + i]` is the `k`-th derivative of component `i`).
#[derive(Debug, Clone, PartialEq)]
pub struct Solution {
    /// Grid times (`N + 1`).
    pub times: Vec<f64>,
    /// Filter means `E[X(t_n) | z_{1:n}]` (`(N+1) × D`).
    pub filter_means: Array2<f64>,
    /// Filter covariances (`(N+1) × D × D`).
    pub filter_covs: Array3<f64>,
    /// Smoother means `E[X(t_n) | z_{1:N}]` (`(N+1) × D`).
    pub smoother_means: Array2<f64>,
    /// Smoother covariances (`(N+1) × D × D`).
    pub smoother_covs: Array3<f64>,
}

/// The probabilistic ODE solver: IWP(q) prior with diffusion `κ²`, EK0 or
/// EK1, square-root form, fixed grid.
#[derive(Debug, Clone, PartialEq)]
pub struct OdeFilter {
    config: FilterConfig,
    prior: Iwp,
    kappa2: f64,
}

impl OdeFilter {
    /// A filter with the given settings and diffusion `κ²`.
    ///
    /// # Errors
    /// [`Error::InvalidOrder`], [`Error::InvalidDiffusion`].
    pub fn new(config: FilterConfig, kappa2: f64) -> Result<Self> {
        let prior = config.prior()?;
        check_kappa2(kappa2)?;
        Ok(OdeFilter {
            config,
            prior,
            kappa2,
        })
    }

    /// Filters and smooths the ODE on `grid` at parameters `p`. Cost
    /// `O(N D³)` time, `O(N D²)` memory.
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`] when `p` has the wrong length,
    /// [`Error::NonFiniteInput`] for a non-finite parameter,
    /// [`Error::NonFinite`] naming the step where `f` returned NaN/∞.
    pub fn solve<M: OdeModel>(&self, model: &M, p: &[f64], grid: &Grid) -> Result<Solution> {
        check_params(model, p)?;
        let times = grid.times();
        let fw = forward(
            model,
            &self.prior,
            self.config.linearization,
            times,
            p,
            self.kappa2.sqrt(),
            true,
        )?;
        let n = times.len();
        let nd = fw.m_last.len();
        let mut fm = Array2::zeros((n, nd));
        let mut fc = Array3::zeros((n, nd, nd));
        for (i, (mi, ri)) in fw.means.iter().zip(&fw.factors).enumerate() {
            let g = ri.gram();
            for a in 0..nd {
                fm[[i, a]] = mi[a];
                for b in 0..nd {
                    fc[[i, a, b]] = g.at(a, b);
                }
            }
        }
        let mut sm = fm.clone();
        let mut sc = fc.clone();
        let mut m = fw.m_last.clone();
        let mut r = fw.r_last.clone();
        for i in (0..n - 1).rev() {
            backward_step(&fw.kernels[i], &mut m, &mut r);
            let g = r.gram();
            for a in 0..nd {
                sm[[i, a]] = m[a];
                for b in 0..nd {
                    sc[[i, a, b]] = g.at(a, b);
                }
            }
        }
        Ok(Solution {
            times: times.to_vec(),
            filter_means: fm,
            filter_covs: fc,
            smoother_means: sm,
            smoother_covs: sc,
        })
    }
}

pub(crate) fn check_kappa2(kappa2: f64) -> Result<()> {
    if kappa2.is_finite() && kappa2 > 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidDiffusion(kappa2))
    }
}

pub(crate) fn check_params<M: OdeModel>(model: &M, p: &[f64]) -> Result<()> {
    if p.len() != model.n_params() {
        return Err(Error::DimensionMismatch {
            what: "number of parameters",
            expected: model.n_params(),
            got: p.len(),
        });
    }
    if let Some(i) = p.iter().position(|v| !v.is_finite()) {
        return Err(Error::NonFiniteInput {
            what: "parameters",
            index: i,
        });
    }
    Ok(())
}
