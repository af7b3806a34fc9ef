//! The eigen-pair sparse variational GP (paper §3–4; Titsias, 2009;
//! Hensman et al., 2015), with inducing variables the projections of `f`
//! onto the `s` eigenfunctions of the KSVD.
//!
//! Prior `p(u) = N(0, Λ²)` per output, so `K_uu = Λ²`, `cov(f(x), u) = Λe(x)`
//! and `K_fu K_uu⁻¹ = e(x)ᵀΛ⁻¹`: only the diagonal `Λ` is inverted (O(s)).
//! With `q(u_d) = N(m_d, L_dL_dᵀ)` for each of `d_s` outputs:
//!
//! * mean `μ_d(x) = e(x)ᵀΛ⁻¹m_d`;
//! * variance `σ_d²(x) = ‖L_dᵀΛ⁻¹e(x)‖² [+ κ_e(x, x) − ‖e(x)‖²]`, the bracket
//!   only with [`Posterior::WithResidual`]; every term is a squared norm, so
//!   the variance is ≥ 0 by construction;
//! * `KL(q‖p) = ½ Σ_d [tr(Λ⁻²S_d) + m_dᵀΛ⁻²m_d − s + log|Λ²| − log|S_d|]`.
//!
//! Cost for `N` tokens: mean O(Nsd_s), variance and samples O(Ns²d_s), KL
//! O(s²d_s); memory O(Nd_s + s²d_s).

use crate::error::{Error, Result, alloc, finite, shape};
use crate::ksvd::check_lambda;
use ndarray::{Array1, Array2, ArrayView1, ArrayView2, Axis};
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};

/// Which posterior variance to report.
#[derive(Debug, Clone, PartialEq, Default)]
pub enum Posterior {
    /// `‖L_dᵀΛ⁻¹e(x)‖²` only, as the official code (which assumes the rank-`s`
    /// KSVD captures the kernel). The default.
    #[default]
    Truncated,
    /// Adds the residual `κ_e(x, x) − ‖e(x)‖² ≥ 0` of each token (one entry
    /// per token, e.g. from [`crate::ksvd::KernelSvd::residual`]): the exact
    /// SVGP variance for the left kernel `κ_e`.
    WithResidual(Array1<f64>),
}

/// Posterior mean and variance per token and output, from [`EigenPairSvgp::predict`].
#[derive(Debug, Clone, PartialEq)]
pub struct Prediction {
    /// `N × d_s` means `μ_d(x_i)`.
    pub mean: Array2<f64>,
    /// `N × d_s` variances `σ_d²(x_i) ≥ 0`.
    pub var: Array2<f64>,
}

/// An eigen-pair SVGP: `Λ` (`s`), `m_u` (`s × d_s`, column `d` is `m_d`) and
/// the Cholesky factors `L_d` (`d_s` lower-triangular `s × s` with positive
/// diagonals).
#[derive(Debug, Clone, PartialEq)]
pub struct EigenPairSvgp {
    lambda: Array1<f64>,
    m_u: Array2<f64>,
    s_chol: Vec<Array2<f64>>,
}

fn check_chol(s_chol: &[Array2<f64>], s: usize, what: &'static str) -> Result<()> {
    for (factor, l) in s_chol.iter().enumerate() {
        if l.dim() != (s, s) {
            return Err(shape(what, &[s, s], l.shape()));
        }
        finite(l.iter(), what)?;
        for ((row, col), &v) in l.indexed_iter() {
            if (col > row && v != 0.0) || (col == row && v <= 0.0) {
                return Err(Error::NotLowerTriangular {
                    what,
                    factor,
                    row,
                    col,
                });
            }
        }
    }
    Ok(())
}

fn check_variational(
    m_u: ArrayView2<'_, f64>,
    s_chol: &[Array2<f64>],
    lambda: ArrayView1<'_, f64>,
) -> Result<()> {
    check_lambda(lambda)?;
    let s = lambda.len();
    if m_u.ncols() == 0 || s_chol.is_empty() {
        return Err(Error::EmptyInput { what: "outputs" });
    }
    if m_u.nrows() != s {
        return Err(shape("m_u", &[s, m_u.ncols()], m_u.shape()));
    }
    finite(m_u.iter(), "m_u")?;
    if s_chol.len() != m_u.ncols() {
        return Err(shape("s_chol (factors)", &[m_u.ncols()], &[s_chol.len()]));
    }
    check_chol(s_chol, s, "s_chol")
}

/// `KL(q(u)‖p(u))` for `q(u_d) = N(m_d, L_dL_dᵀ)` and the diagonal prior
/// `p(u_d) = N(0, Λ²)`, summed over the `d_s` outputs:
/// `½ Σ_d [‖Λ⁻¹L_d‖²_F + ‖Λ⁻¹m_d‖² − s + 2Σ_i ln λ_i − 2Σ_i ln L_d,ii]`.
/// No matrix is inverted or factorised. O(s²d_s).
///
/// # Errors
/// [`Error::NonPositiveSingularValue`], [`Error::EmptyInput`],
/// [`Error::NonFinite`], [`Error::ShapeMismatch`],
/// [`Error::NotLowerTriangular`].
pub fn kl_to_diag_prior(
    m_u: ArrayView2<'_, f64>,
    s_chol: &[Array2<f64>],
    lambda: ArrayView1<'_, f64>,
) -> Result<f64> {
    check_variational(m_u, s_chol, lambda)?;
    Ok(kl_unchecked(m_u, s_chol, lambda))
}

fn kl_unchecked(
    m_u: ArrayView2<'_, f64>,
    s_chol: &[Array2<f64>],
    lambda: ArrayView1<'_, f64>,
) -> f64 {
    let s = lambda.len() as f64;
    let log_det_prior: f64 = lambda.iter().map(|l| 2.0 * l.ln()).sum();
    let mut total = 0.0;
    for (d, l) in s_chol.iter().enumerate() {
        let mut trace = 0.0;
        let mut log_det_q = 0.0;
        for ((i, j), &v) in l.indexed_iter() {
            trace += (v / lambda[i]).powi(2);
            if i == j {
                log_det_q += 2.0 * v.ln();
            }
        }
        let maha: f64 = m_u
            .column(d)
            .iter()
            .zip(lambda)
            .map(|(m, l)| (m / l).powi(2))
            .sum();
        total += 0.5 * (trace + maha - s + log_det_prior - log_det_q);
    }
    total
}

impl EigenPairSvgp {
    /// A variational posterior from its parts.
    ///
    /// # Errors
    /// As [`kl_to_diag_prior`].
    pub fn new(lambda: Array1<f64>, m_u: Array2<f64>, s_chol: Vec<Array2<f64>>) -> Result<Self> {
        check_variational(m_u.view(), &s_chol, lambda.view())?;
        Ok(Self {
            lambda,
            m_u,
            s_chol,
        })
    }

    /// `q = p`: `m_d = 0` and `L_d = Λ` for `outputs` outputs (KL = 0). O(s²d_s).
    ///
    /// # Errors
    /// [`Error::NonPositiveSingularValue`], [`Error::EmptyInput`] for
    /// `outputs = 0`, [`Error::TooLarge`].
    pub fn prior(lambda: Array1<f64>, outputs: usize) -> Result<Self> {
        check_lambda(lambda.view())?;
        if outputs == 0 {
            return Err(Error::EmptyInput { what: "outputs" });
        }
        let s = lambda.len();
        alloc(&[s, s, outputs], "s_chol")?;
        let l = Array2::from_diag(&lambda);
        Ok(Self {
            m_u: Array2::zeros((s, outputs)),
            s_chol: vec![l; outputs],
            lambda,
        })
    }

    /// `Λ`.
    pub fn lambda(&self) -> ArrayView1<'_, f64> {
        self.lambda.view()
    }

    /// `m_u` (`s × d_s`).
    pub fn m_u(&self) -> ArrayView2<'_, f64> {
        self.m_u.view()
    }

    /// The factors `L_d`.
    pub fn s_chol(&self) -> &[Array2<f64>] {
        &self.s_chol
    }

    /// The rank `s`.
    pub fn rank(&self) -> usize {
        self.lambda.len()
    }

    /// The number of outputs `d_s`.
    pub fn outputs(&self) -> usize {
        self.m_u.ncols()
    }

    /// `KL(q(u)‖p(u))` ([`kl_to_diag_prior`]). O(s²d_s).
    pub fn kl(&self) -> f64 {
        kl_unchecked(self.m_u.view(), &self.s_chol, self.lambda.view())
    }

    /// `Ẽ = EΛ⁻¹` after checking `scores` (`N × s`) and the posterior.
    fn whitened(&self, scores: ArrayView2<'_, f64>, posterior: &Posterior) -> Result<Array2<f64>> {
        if scores.nrows() == 0 {
            return Err(Error::EmptyInput { what: "scores" });
        }
        if scores.ncols() != self.rank() {
            return Err(shape(
                "scores",
                &[scores.nrows(), self.rank()],
                scores.shape(),
            ));
        }
        finite(scores.iter(), "scores")?;
        if let Posterior::WithResidual(res) = posterior {
            if res.len() != scores.nrows() {
                return Err(shape("residual", &[scores.nrows()], res.shape()));
            }
            finite(res.iter(), "residual")?;
            if let Some(&value) = res.iter().find(|&&r| r < 0.0) {
                return Err(Error::InvalidParameter {
                    name: "residual",
                    value,
                    expected: "≥ 0 (a squared norm)",
                });
            }
        }
        alloc(
            &[scores.nrows(), self.outputs().max(self.rank())],
            "prediction",
        )?;
        let inv = self.lambda.mapv(|l| 1.0 / l);
        Ok(&scores * &inv.view().insert_axis(Axis(0)))
    }

    /// Posterior mean `μ = EΛ⁻¹m_u` and variance
    /// `σ_d²(x_i) = ‖L_dᵀΛ⁻¹e_i‖² (+ residual_i)` for the scores `E`
    /// (`N × s`, rows `e(x_i)`). O(Ns²d_s).
    ///
    /// # Errors
    /// [`Error::EmptyInput`], [`Error::ShapeMismatch`], [`Error::NonFinite`]
    /// for the scores or the residual; [`Error::InvalidParameter`] for a
    /// negative residual; [`Error::TooLarge`].
    pub fn predict(
        &self,
        scores: ArrayView2<'_, f64>,
        posterior: &Posterior,
    ) -> Result<Prediction> {
        let et = self.whitened(scores, posterior)?;
        let mean = et.dot(&self.m_u);
        let mut var = Array2::zeros(mean.dim());
        for (d, l) in self.s_chol.iter().enumerate() {
            let v = et.dot(l);
            var.column_mut(d)
                .assign(&v.map_axis(Axis(1), |r| r.dot(&r)));
        }
        if let Posterior::WithResidual(res) = posterior {
            var += &res.view().insert_axis(Axis(1));
        }
        Ok(Prediction { mean, var })
    }

    /// One reparameterised draw per token and output,
    /// `f_d(x_i) = μ_d(x_i) + (Λ⁻¹e_i)ᵀL_d ε_{i,d} (+ √residual_i ξ_{i,d})`,
    /// `ε_{i,d} ~ N(0, I_s)`, `ξ_{i,d} ~ N(0, 1)` independent (the code's
    /// sampling). O(Ns²d_s).
    ///
    /// # Errors
    /// As [`EigenPairSvgp::predict`].
    pub fn sample(
        &self,
        scores: ArrayView2<'_, f64>,
        posterior: &Posterior,
        rng: &mut impl Rng,
    ) -> Result<Array2<f64>> {
        let et = self.whitened(scores, posterior)?;
        let mut out = et.dot(&self.m_u);
        let s = self.rank();
        let mut eps = vec![0.0; s];
        for (d, l) in self.s_chol.iter().enumerate() {
            let v = et.dot(l);
            for (i, row) in v.rows().into_iter().enumerate() {
                eps.iter_mut().for_each(|e| *e = StandardNormal.sample(rng));
                let mut draw: f64 = row.iter().zip(&eps).map(|(a, b)| a * b).sum();
                if let Posterior::WithResidual(res) = posterior {
                    let xi: f64 = StandardNormal.sample(rng);
                    draw += res[i].sqrt() * xi;
                }
                out[[i, d]] += draw;
            }
        }
        Ok(out)
    }

    /// The closed-form optimal `q(u)` for Gaussian regression
    /// `y_d = f_d(X) + ε`, `ε ~ N(0, σ²I)` (Titsias, 2009, collapsed bound),
    /// given the training scores `E` (`N × s`) and targets `Y` (`N × d_s`):
    /// with `A = I + σ⁻²EᵀE`, `S = ΛA⁻¹Λ` (shared by all outputs) and
    /// `m_u = σ⁻²ΛA⁻¹EᵀY`. The mean is then Bayesian linear regression on
    /// the features `e(x)` with a unit prior, and for `s = rank(K)` it equals
    /// the exact GP with kernel `κ_e`. O(Ns² + s³ + Nsd_s).
    ///
    /// # Errors
    /// [`Error::NonPositiveSingularValue`]; [`Error::EmptyInput`],
    /// [`Error::NonFinite`], [`Error::ShapeMismatch`] for `scores` and `y`;
    /// [`Error::InvalidParameter`] for a noise variance that is not finite
    /// and > 0; [`Error::Core`] if `S` is numerically not positive definite.
    pub fn optimal_gaussian(
        lambda: Array1<f64>,
        scores: ArrayView2<'_, f64>,
        y: ArrayView2<'_, f64>,
        noise: f64,
    ) -> Result<Self> {
        check_lambda(lambda.view())?;
        let s = lambda.len();
        check_regression(scores, y, noise, s)?;
        let prec = 1.0 / noise;
        let a = Array2::eye(s) + scores.t().dot(&scores) * prec;
        // A is SPD with eigenvalues ≥ 1: its inverse is well conditioned.
        let a_inv = mlcore::linalg::solve_spd(a.view(), Array2::<f64>::eye(s).view())?;
        let lam = Array2::from_diag(&lambda);
        let mut cov = lam.dot(&a_inv).dot(&lam);
        // Exact symmetry before the factorisation.
        let sym = (&cov + &cov.t()) * 0.5;
        cov.assign(&sym);
        let l = mlcore::linalg::cholesky(cov.view())?;
        let m_u = lam.dot(&a_inv).dot(&scores.t().dot(&y)) * prec;
        Self::new(lambda, m_u, vec![l; y.ncols()])
    }

    /// The uncollapsed ELBO of Gaussian regression (Hensman et al., 2013),
    /// `Σ_{i,d} [ln N(y_id | μ_d(x_i), σ²) − σ_d²(x_i)/(2σ²)] − KL(q‖p)`,
    /// with [`EigenPairSvgp::predict`]'s mean and variance. At
    /// [`EigenPairSvgp::optimal_gaussian`] it equals Titsias' collapsed
    /// bound `ln N(Y | 0, EEᵀ + σ²I) − tr(residual)/(2σ²)` per output.
    /// O(Ns²d_s).
    ///
    /// # Errors
    /// As [`EigenPairSvgp::predict`]; [`Error::ShapeMismatch`],
    /// [`Error::NonFinite`] for `y`; [`Error::InvalidParameter`] for the noise.
    pub fn elbo_gaussian(
        &self,
        scores: ArrayView2<'_, f64>,
        y: ArrayView2<'_, f64>,
        noise: f64,
        posterior: &Posterior,
    ) -> Result<f64> {
        check_regression(scores, y, noise, self.rank())?;
        if y.ncols() != self.outputs() {
            return Err(shape("y", &[y.nrows(), self.outputs()], y.shape()));
        }
        let pred = self.predict(scores, posterior)?;
        let c = -0.5 * (2.0 * std::f64::consts::PI * noise).ln();
        let mut sum = 0.0;
        for ((yv, m), v) in y.iter().zip(&pred.mean).zip(&pred.var) {
            sum += c - (yv - m).powi(2) / (2.0 * noise) - v / (2.0 * noise);
        }
        Ok(sum - self.kl())
    }

    /// The gradient of [`EigenPairSvgp::elbo_gaussian`] with respect to
    /// `m_u` and each `L_d` (lower triangle; zeros above), in closed form:
    /// with `Ẽ = EΛ⁻¹` and `R = Y − ẼM`,
    /// `∂/∂M = ẼᵀR/σ² − Λ⁻²M` and
    /// `∂/∂L_d = tril(−ẼᵀẼL_d/σ² − Λ⁻²L_d + diag(1/L_d,ii))`. It vanishes at
    /// [`EigenPairSvgp::optimal_gaussian`]. O(Ns² + s³d_s).
    ///
    /// # Errors
    /// As [`EigenPairSvgp::elbo_gaussian`].
    pub fn elbo_gaussian_gradient(
        &self,
        scores: ArrayView2<'_, f64>,
        y: ArrayView2<'_, f64>,
        noise: f64,
    ) -> Result<(Array2<f64>, Vec<Array2<f64>>)> {
        check_regression(scores, y, noise, self.rank())?;
        if y.ncols() != self.outputs() {
            return Err(shape("y", &[y.nrows(), self.outputs()], y.shape()));
        }
        let et = self.whitened(scores, &Posterior::Truncated)?;
        let inv2 = self.lambda.mapv(|l| l.powi(-2)).insert_axis(Axis(1));
        let r = &y - &et.dot(&self.m_u);
        let g_m = et.t().dot(&r) / noise - &self.m_u * &inv2;
        let gram = et.t().dot(&et);
        let g_l = self
            .s_chol
            .iter()
            .map(|l| {
                let mut g = -gram.dot(l) / noise - l * &inv2;
                for ((i, j), v) in g.indexed_iter_mut() {
                    if j > i {
                        *v = 0.0;
                    } else if i == j {
                        *v += 1.0 / l[[i, i]];
                    }
                }
                g
            })
            .collect();
        Ok((g_m, g_l))
    }
}

fn check_regression(
    scores: ArrayView2<'_, f64>,
    y: ArrayView2<'_, f64>,
    noise: f64,
    s: usize,
) -> Result<()> {
    if scores.nrows() == 0 || y.is_empty() {
        return Err(Error::EmptyInput {
            what: "training data",
        });
    }
    if scores.ncols() != s {
        return Err(shape("scores", &[scores.nrows(), s], scores.shape()));
    }
    if y.nrows() != scores.nrows() {
        return Err(shape("y", &[scores.nrows(), y.ncols()], y.shape()));
    }
    finite(scores.iter(), "scores")?;
    finite(y.iter(), "y")?;
    if !(noise.is_finite() && noise > 0.0) {
        return Err(Error::InvalidParameter {
            name: "noise variance",
            value: noise,
            expected: "a finite value > 0",
        });
    }
    Ok(())
}
