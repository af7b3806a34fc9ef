//! KEP-SVGP attention as a candle layer (paper §4, the official
//! `KEP_SVGPAttention`), and the softmax attention it replaces.
//!
//! Per head `h` (width `p = C/H`), for the layer input `x` (`B × N × C`):
//!
//! 1. `q, k = x W_qkᵀ` split into heads, L2-normalised per token
//!    (`φ_q`, `φ_k`, [`crate::ksvd::normalize_rows`]);
//! 2. data-dependent primal weights `W_e = X̃ᵀW̃_e`, `W_r = X̃ᵀW̃_r` (`p × s`)
//!    from the `m = rank_multi·s` evenly spaced tokens `X̃` of `x` on the
//!    head's channels ([`crate::ksvd::landmark_indices`]);
//! 3. scores `e = φ_q W_e`, `r = φ_k W_r` (`N × s`);
//! 4. the SVGP: `v = (e + r)Λ⁻¹` ([`Combine::Sum`]) or `[e; r]Λ⁻¹` (`2N`
//!    rows, [`Combine::Concat`]); mean `v m_u`; for each output `d`, the row
//!    vectors `vL_d`, whose squared norms are the deterministic variance and
//!    whose product with `ε ~ N(0, I_s)` is the reparameterised sample;
//! 5. a linear map `s → p` of the sample, then (Concat) a learned map of the
//!    `2N` token rows to `N`; heads are concatenated back to `C` (no output
//!    projection, as in the code).
//!
//! Parameterisation as the code: `Λ⁻¹ = exp(2·ℓ)` with `ℓ = log λ^{−1/2}`
//! drawn `U(0, 1)`; `m_u ~ N(0, 1)`; `L_d` = strictly-lower `N(0, 1)` +
//! `diag(exp(N(0, 1)))`; `W̃` orthogonal. The layer returns the KL
//! ([`crate::svgp::kl_to_diag_prior`] summed over heads) and the KSVD
//! objective `J` per head and example, divided by `N` and averaged over
//! heads and the batch (the code averages its quadratic terms over tokens
//! but takes the trace of the learned `W̃_eᵀW̃_r` instead of the primal
//! `W_eᵀW_r`; this crate uses the primal weights in all three terms, so
//! that `J = 0` is exactly the KSVD stationarity of the spec).
//!
//! Cost per head: projections O(Nps + mps), mean O(Ns²), variance and
//! samples O(Ns³), KL O(s³); memory O(Ns²): linear in `N`.

use crate::error::{Error, Result, non_negative};
use crate::ksvd::landmark_indices;
use candle_core::{D, DType, Device, Tensor, Var};
use nncore::{init, params::ParamSet};
use rand::Rng;
use rand_distr::{Distribution, StandardNormal};

/// How the two score sets enter the SVGP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Combine {
    /// `e(x) + r(x)` before `Λ⁻¹` (the code's default, η_ksvd = 1 on CIFAR).
    #[default]
    Sum,
    /// `[e(x); r(x)]` stacked along the tokens (`2N` rows), then a learned
    /// `2N → N` map (the code's `concate`, η_ksvd = 10 on CIFAR).
    Concat,
}

/// Hyper-parameters of a KEP-SVGP attention layer; `Default` is the
/// paper's CIFAR setting (`s = 10`, `rank_multi = 10`, Sum, shared
/// `(m_u, S)`, `η_ksvd = η_kl = 1`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct KepConfig {
    /// The rank `s` (`low_rank`), also the number of SVGP outputs `d_s`.
    pub s: usize,
    /// Landmark tokens per rank: `m = rank_multi·s` tokens build `W_e, W_r`.
    pub rank_multi: usize,
    /// How `e` and `r` are combined.
    pub combine: Combine,
    /// One `(m_u, S)` for both branches (the code) or one per branch (the
    /// paper's "pair"): with [`Combine::Sum`] the separate version adds the
    /// two GPs' outputs `f_e(eΛ⁻¹) + f_r(rΛ⁻¹)`.
    pub share_variational: bool,
    /// Weight of the KSVD penalty `η_ksvd·J²` (≥ 0).
    pub eta_ksvd: f64,
    /// Weight of the KL (≥ 0). The code adds the KL of every head undivided
    /// to the mean cross-entropy of a batch, so `η_kl` is relative to a
    /// per-batch loss; `η_kl = 1/n_train` gives the per-example ELBO.
    pub eta_kl: f64,
}

impl Default for KepConfig {
    fn default() -> Self {
        Self {
            s: 10,
            rank_multi: 10,
            combine: Combine::Sum,
            share_variational: true,
            eta_ksvd: 1.0,
            eta_kl: 1.0,
        }
    }
}

impl KepConfig {
    /// Checks the configuration for `tokens` tokens of head width `head_dim`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `s = 0`, `rank_multi = 0` or a
    /// negative / non-finite `η`; [`Error::RankTooLarge`] for
    /// `s > head_dim` (the kernel's rank is at most `p`) or
    /// `rank_multi·s > tokens`.
    pub fn check(&self, tokens: usize, head_dim: usize) -> Result<()> {
        for (name, v) in [("rank s", self.s), ("rank_multi", self.rank_multi)] {
            if v == 0 {
                return Err(Error::InvalidParameter {
                    name,
                    value: 0.0,
                    expected: "at least 1",
                });
            }
        }
        if self.s > head_dim {
            return Err(Error::RankTooLarge {
                s: self.s,
                max: head_dim,
            });
        }
        let m = self.s.saturating_mul(self.rank_multi);
        if m > tokens {
            return Err(Error::RankTooLarge { s: m, max: tokens });
        }
        non_negative(self.eta_ksvd, "eta_ksvd")?;
        non_negative(self.eta_kl, "eta_kl")
    }
}

/// The variational parameters of one SVGP (all heads).
#[derive(Debug, Clone)]
struct Variational {
    /// `H × s × d_s`.
    m_u: Var,
    /// `H × d_s × s × s` (only the strictly lower part is used).
    lower: Var,
    /// `H × d_s × s`: `ln L_d,ii`.
    log_diag: Var,
}

/// What a KEP-SVGP layer returns.
#[derive(Debug, Clone)]
pub struct KepOutput {
    /// `B × N × C` output (sampled, or the posterior mean without an RNG).
    pub out: Tensor,
    /// Scalar `Σ_heads KL(q(u)‖p(u))` (both SVGPs when not shared).
    pub kl: Tensor,
    /// Scalar KSVD objective `J/N`, averaged over heads and the batch.
    pub j: Tensor,
    /// `B × H × N' × d_s` deterministic posterior variance of the SVGP
    /// outputs (`N' = N`, or `2N` for Concat), as squared norms.
    pub variance: Tensor,
}

/// The deterministic part of a KEP-SVGP forward pass
/// ([`KepSvgpAttention::moments`]), from which samples are drawn.
#[derive(Debug, Clone)]
pub(crate) struct Moments {
    /// Batch size.
    b: usize,
    /// Per SVGP branch: the mean (`H × M × d_s`) and the rows `vL_d`
    /// (`H × M × d_s × s`), `M = B·N'`.
    branches: Vec<(Tensor, Tensor)>,
    /// Per branch `‖vL_d‖` (`H × M × d_s`, detached), for marginal draws.
    sd: Vec<Tensor>,
    /// `B × H × N' × d_s`.
    pub(crate) variance: Tensor,
    /// Scalar KL.
    pub(crate) kl: Tensor,
    /// Scalar `J/N`.
    pub(crate) j: Tensor,
}

/// A KEP-SVGP self-attention layer.
#[derive(Debug, Clone)]
pub struct KepSvgpAttention {
    heads: usize,
    head_dim: usize,
    tokens: usize,
    config: KepConfig,
    landmarks: Tensor,
    w_qk: Var,
    w_e: Var,
    w_r: Var,
    log_lsi: Var,
    gps: Vec<Variational>,
    out_w: Var,
    out_b: Var,
    concat: Option<(Var, Var)>,
}

fn linear_init<R: Rng + ?Sized>(
    params: &mut ParamSet,
    name: &str,
    fan_out: usize,
    fan_in: usize,
    dtype: DType,
    rng: &mut R,
    dev: &Device,
) -> Result<(Var, Var)> {
    let bound = 1.0 / (fan_in as f64).sqrt();
    let w = init::uniform(&[fan_out, fan_in], -bound, bound, rng, dev)?.to_dtype(dtype)?;
    let b = init::uniform(&[fan_out], -bound, bound, rng, dev)?.to_dtype(dtype)?;
    Ok((
        params.add(format!("{name}.w"), &w)?,
        params.add(format!("{name}.b"), &b)?,
    ))
}

/// Host-drawn standard normals of `shape` as a tensor of `dtype`.
pub(crate) fn standard_normal<R: Rng + ?Sized>(
    shape: &[usize],
    dtype: DType,
    rng: &mut R,
    dev: &Device,
) -> candle_core::Result<Tensor> {
    let n: usize = shape.iter().product();
    if dtype == DType::F32 {
        let v: Vec<f32> = (0..n).map(|_| StandardNormal.sample(rng)).collect();
        return Tensor::from_vec(v, shape, dev);
    }
    let v: Vec<f64> = (0..n).map(|_| StandardNormal.sample(rng)).collect();
    Tensor::from_vec(v, shape, dev)?.to_dtype(dtype)
}

impl KepSvgpAttention {
    /// A layer for `tokens` tokens of width `width = heads·head_dim` (the
    /// triple `(width, heads, tokens)`), with its parameters registered in
    /// `params` under `prefix`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for zero sizes or a width not divisible
    /// by `heads`; [`KepConfig::check`]'s errors; [`Error::Nn`] from the
    /// initialisers; [`Error::Candle`].
    pub fn new<R: Rng + ?Sized>(
        params: &mut ParamSet,
        prefix: &str,
        (width, heads, tokens): (usize, usize, usize),
        config: KepConfig,
        dtype: DType,
        rng: &mut R,
        dev: &Device,
    ) -> Result<Self> {
        if width == 0 || heads == 0 || tokens == 0 || !width.is_multiple_of(heads) {
            return Err(Error::InvalidParameter {
                name: "width / heads",
                value: width as f64,
                expected: "a positive multiple of a positive number of heads, with ≥ 1 token",
            });
        }
        let head_dim = width / heads;
        config.check(tokens, head_dim)?;
        let (s, m) = (config.s, config.s * config.rank_multi);
        crate::error::alloc(&[heads, s, s, s], "variational factors")?;
        let idx: Vec<u32> = landmark_indices(tokens, m)?
            .iter()
            .map(|&i| i as u32)
            .collect();
        let landmarks = Tensor::from_vec(idx, m, dev)?;
        let bound = 1.0 / (width as f64).sqrt();
        let w_qk = init::uniform(&[2 * width, width], -bound, bound, rng, dev)?.to_dtype(dtype)?;
        let w_qk = params.add(format!("{prefix}.qk"), &w_qk)?;
        let mut ortho = |name: &str, params: &mut ParamSet| -> Result<Var> {
            let parts = (0..heads)
                .map(|_| init::orthogonal(&[m, s], 1.0, rng, dev))
                .collect::<nncore::Result<Vec<_>>>()?;
            let t = Tensor::stack(&parts, 0)?.to_dtype(dtype)?;
            Ok(params.add(format!("{prefix}.{name}"), &t)?)
        };
        let w_e = ortho("we", params)?;
        let w_r = ortho("wr", params)?;
        let log_lsi = init::uniform(&[heads, s], 0.0, 1.0, rng, dev)?.to_dtype(dtype)?;
        let log_lsi = params.add(format!("{prefix}.log_lambda_sqrt_inv"), &log_lsi)?;
        let copies = if config.share_variational { 1 } else { 2 };
        let mut gps = Vec::with_capacity(copies);
        for c in 0..copies {
            let m_u = init::normal(&[heads, s, s], 0.0, 1.0, rng, dev)?.to_dtype(dtype)?;
            let lower = init::normal(&[heads, s, s, s], 0.0, 1.0, rng, dev)?.to_dtype(dtype)?;
            let log_diag = init::normal(&[heads, s, s], 0.0, 1.0, rng, dev)?.to_dtype(dtype)?;
            gps.push(Variational {
                m_u: params.add(format!("{prefix}.gp{c}.m_u"), &m_u)?,
                lower: params.add(format!("{prefix}.gp{c}.s_lower"), &lower)?,
                log_diag: params.add(format!("{prefix}.gp{c}.log_s_diag"), &log_diag)?,
            });
        }
        let (out_w, out_b) = linear_init(
            params,
            &format!("{prefix}.final"),
            head_dim,
            s,
            dtype,
            rng,
            dev,
        )?;
        let concat = match config.combine {
            Combine::Sum => None,
            Combine::Concat => Some(linear_init(
                params,
                &format!("{prefix}.tokens"),
                tokens,
                2 * tokens,
                dtype,
                rng,
                dev,
            )?),
        };
        Ok(Self {
            heads,
            head_dim,
            tokens,
            config,
            landmarks,
            w_qk,
            w_e,
            w_r,
            log_lsi,
            gps,
            out_w,
            out_b,
            concat,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &KepConfig {
        &self.config
    }

    /// `Λ` per head (`H × s`), `λ = exp(−2ℓ)`.
    ///
    /// # Errors
    /// [`Error::Candle`].
    pub fn lambda(&self) -> Result<Tensor> {
        Ok((self.log_lsi.as_tensor() * -2.0)?.exp()?)
    }

    /// `L_d` of one SVGP: strictly-lower part plus `diag(exp(log_diag))`.
    fn cholesky(&self, gp: &Variational) -> candle_core::Result<Tensor> {
        let s = self.config.s;
        let dev = self.w_qk.device();
        let dtype = self.w_qk.dtype();
        let mask: Vec<f64> = (0..s * s)
            .map(|k| if k / s > k % s { 1.0 } else { 0.0 })
            .collect();
        let mask = Tensor::from_vec(mask, (s, s), dev)?.to_dtype(dtype)?;
        let eye = Tensor::eye(s, dtype, dev)?;
        let diag = gp
            .log_diag
            .as_tensor()
            .exp()?
            .unsqueeze(3)?
            .broadcast_mul(&eye)?;
        gp.lower.as_tensor().broadcast_mul(&mask)? + diag
    }

    /// Mean and the rows `vL_d` of one SVGP for `v = scoreΛ⁻¹`
    /// (`H × M × s`, `M = B·N'` rows per head): returns the mean
    /// (`H × M × d_s`) and `vL` (`H × M × d_s × s`). One batched product per
    /// head with `[L_1 … L_{d_s}]` (`s × d_s·s`), no broadcast copies.
    fn svgp_rows(&self, v: &Tensor, gp: &Variational) -> candle_core::Result<(Tensor, Tensor)> {
        let (h, m, s) = v.dims3()?;
        let mean = v.matmul(gp.m_u.as_tensor())?;
        // (H, d, s_row, s_col) → (H, s_row, d·s_col).
        let l = self
            .cholesky(gp)?
            .permute((0, 2, 1, 3))?
            .contiguous()?
            .reshape((h, s, s * s))?;
        let rows = v.matmul(&l)?.reshape((h, m, s, s))?;
        Ok((mean, rows))
    }

    fn kl(&self, gp: &Variational, lam_inv: &Tensor) -> candle_core::Result<Tensor> {
        let (h, s) = (self.heads, self.config.s);
        let l = self.cholesky(gp)?;
        // ‖Λ⁻¹L_d‖²_F: row i of L_d scaled by λ_i⁻¹.
        let trace = l
            .broadcast_mul(&lam_inv.reshape((h, 1, s, 1))?)?
            .sqr()?
            .sum_all()?;
        let maha = gp
            .m_u
            .as_tensor()
            .broadcast_mul(&lam_inv.reshape((h, s, 1))?)?
            .sqr()?
            .sum_all()?;
        // ln|Λ²| = −4 Σ ℓ per output; ln|S_d| = 2 Σ ln L_d,ii.
        let log_prior = (self.log_lsi.as_tensor().sum_all()? * (-4.0 * s as f64))?;
        let log_q = (gp.log_diag.as_tensor().sum_all()? * 2.0)?;
        let constant = (h * s * s) as f64;
        ((trace + maha)? + log_prior)?
            .broadcast_sub(&log_q)?
            .affine(0.5, -0.5 * constant)
    }

    /// The forward pass on `x` (`B × N × C`, `N` the layer's token count):
    /// one reparameterised sample when `rng` is given, the posterior mean
    /// otherwise. O(B·H·(Nps + Ns³)).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for another shape; [`Error::Candle`].
    pub fn forward<R: Rng + ?Sized>(&self, x: &Tensor, rng: Option<&mut R>) -> Result<KepOutput> {
        let moments = self.moments(x, true)?;
        let out = self.output(&moments, rng, false)?;
        Ok(KepOutput {
            out,
            kl: moments.kl,
            j: moments.j,
            variance: moments.variance,
        })
    }

    /// [`KepSvgpAttention::forward`] without the variance (a training
    /// step): `(out, kl, j)`.
    ///
    /// # Errors
    /// As [`KepSvgpAttention::forward`].
    pub(crate) fn forward_train<R: Rng + ?Sized>(
        &self,
        x: &Tensor,
        rng: &mut R,
    ) -> Result<(Tensor, Tensor, Tensor)> {
        let moments = self.moments(x, false)?;
        let out = self.output(&moments, Some(rng), false)?;
        Ok((out, moments.kl, moments.j))
    }

    /// The deterministic part of [`KepSvgpAttention::forward`]: scores,
    /// posterior means, the rows `vL_d`, the variance, KL and `J`. Samples
    /// drawn from it with [`KepSvgpAttention::output`] reuse it (the
    /// `K`-sample inference average computes it once). Without
    /// `with_variance` (a training step, whose loss does not use it) the
    /// variance is left empty and only unmarginalised samples can be drawn.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for another shape; [`Error::Candle`].
    pub(crate) fn moments(&self, x: &Tensor, with_variance: bool) -> Result<Moments> {
        let (h, p, s) = (self.heads, self.head_dim, self.config.s);
        let width = h * p;
        let dims = x.dims();
        if dims.len() != 3 || dims[1] != self.tokens || dims[2] != width || dims[0] == 0 {
            return Err(crate::error::shape(
                "x",
                &[
                    dims.first().copied().unwrap_or(0).max(1),
                    self.tokens,
                    width,
                ],
                dims,
            ));
        }
        let (b, n) = (dims[0], dims[1]);
        // Head-major layout (H, B, …) throughout: every product below is a
        // batched GEMM over equal batch dimensions (no broadcast operand).
        let qk = crate::ops::linear(x, (self.w_qk.as_tensor(), None))?;
        let qk = qk.reshape((b, n, 2, h, p))?.permute((2, 3, 0, 1, 4))?;
        let normalize = |t: Tensor| -> candle_core::Result<Tensor> {
            let t = t.contiguous()?;
            let norm = t
                .sqr()?
                .sum_keepdim(D::Minus1)?
                .sqrt()?
                .maximum(crate::ksvd::NORMALIZE_EPS)?;
            t.broadcast_div(&norm)
        };
        let q = normalize(qk.get(0)?)?;
        let k = normalize(qk.get(1)?)?;
        let m = self.config.s * self.config.rank_multi;
        // X̃ per head: (H, B·p, m).
        let xl = x
            .index_select(&self.landmarks, 1)?
            .reshape((b, m, h, p))?
            .permute((2, 0, 3, 1))?
            .contiguous()?
            .reshape((h, b * p, m))?;
        let w_e = xl.matmul(self.w_e.as_tensor())?.reshape((h, b, p, s))?;
        let w_r = xl.matmul(self.w_r.as_tensor())?.reshape((h, b, p, s))?;
        let e = q.matmul(&w_e)?;
        let r = k.matmul(&w_r)?;
        let lam_inv = (self.log_lsi.as_tensor() * 2.0)?.exp()?;
        // diag(Λ⁻¹) per head, (H, s, s): scores times it are a batched GEMM.
        let diag = Tensor::eye(s, lam_inv.dtype(), lam_inv.device())?
            .unsqueeze(0)?
            .broadcast_mul(&lam_inv.unsqueeze(1)?)?;
        let scale = |t: &Tensor| -> candle_core::Result<Tensor> {
            t.reshape((h, b * n, s))?
                .matmul(&diag)?
                .reshape((h, b, n, s))
        };
        let ve = scale(&e)?;
        let vr = scale(&r)?;
        // J per (h, b), divided by N: ½Σ eΛ⁻¹eᵀ + ½Σ rΛ⁻¹rᵀ − Tr(W_eᵀW_r).
        let trace = (&w_e * &w_r)?.sum((2, 3))?;
        let quad = ((&e * &ve)?.sum((2, 3))? + (&r * &vr)?.sum((2, 3))?)?;
        let j = ((quad * 0.5)? - trace)?
            .affine(1.0 / n as f64, 0.0)?
            .mean_all()?;
        let flat = |t: &Tensor, rows: usize| t.reshape((h, b * rows, s));
        let (branches, kl) = match (self.config.combine, self.gps.as_slice()) {
            (Combine::Sum, [gp]) => (
                vec![self.svgp_rows(&flat(&(ve + vr)?, n)?, gp)?],
                self.kl(gp, &lam_inv)?,
            ),
            (Combine::Concat, [gp]) => (
                vec![self.svgp_rows(&flat(&Tensor::cat(&[&ve, &vr], 2)?, 2 * n)?, gp)?],
                self.kl(gp, &lam_inv)?,
            ),
            (_, [ge, gr]) => (
                vec![
                    self.svgp_rows(&flat(&ve, n)?, ge)?,
                    self.svgp_rows(&flat(&vr, n)?, gr)?,
                ],
                (self.kl(ge, &lam_inv)? + self.kl(gr, &lam_inv)?)?,
            ),
            _ => unreachable!("one or two variational sets by construction"),
        };
        if !with_variance {
            let empty = Tensor::zeros(0, lam_inv.dtype(), lam_inv.device())?;
            return Ok(Moments {
                b,
                branches,
                sd: Vec::new(),
                variance: empty,
                kl,
                j,
            });
        }
        // Deterministic variance Σ_j (vL_d)_j², (H, M, d) → (B, H, N', d).
        let per_branch = branches
            .iter()
            .map(|(_, rows)| rows.sqr()?.sum(D::Minus1))
            .collect::<candle_core::Result<Vec<_>>>()?;
        let sd = per_branch
            .iter()
            .map(|v| v.detach().sqrt())
            .collect::<candle_core::Result<Vec<_>>>()?;
        let variance = match (self.config.combine, per_branch.as_slice()) {
            (_, [v]) => v.clone(),
            (Combine::Sum, [a, c]) => (a + c)?,
            (Combine::Concat, [a, c]) => {
                Tensor::cat(&[&a.reshape((h, b, n, s))?, &c.reshape((h, b, n, s))?], 2)?
            }
            _ => unreachable!("one or two variational sets by construction"),
        };
        let rows = variance.elem_count() / (h * b * s);
        let variance = variance
            .reshape((h, b, rows, s))?
            .transpose(0, 1)?
            .contiguous()?;
        Ok(Moments {
            b,
            branches,
            sd,
            variance,
            kl,
            j,
        })
    }

    /// The layer output from [`KepSvgpAttention::moments`]: the posterior
    /// mean, or with an RNG one sample `μ_d + (vL_d)·ε`, `ε ~ N(0, I_s)`
    /// per row and output; then the map `s → p`, the Concat token map and
    /// the heads concatenated back to `B × N × C`. O(B·H·N·(s² + sp)).
    ///
    /// With `marginal` the sample is drawn as `μ_d + ‖vL_d‖·z`,
    /// `z ~ N(0, 1)`: the same law (`(vL_d)·ε ~ N(0, ‖vL_d‖²)`, independent
    /// over rows and outputs) from `s` times fewer normals, for inference.
    /// Training keeps the `(vL_d)·ε` path the code differentiates.
    ///
    /// # Errors
    /// [`Error::Candle`].
    pub(crate) fn output<R: Rng + ?Sized>(
        &self,
        moments: &Moments,
        rng: Option<&mut R>,
        marginal: bool,
    ) -> Result<Tensor> {
        let (h, p, s) = (self.heads, self.head_dim, self.config.s);
        let (b, n) = (moments.b, self.tokens);
        let mut rng = rng;
        let mut fs = Vec::with_capacity(moments.branches.len());
        for (i, (mean, rows)) in moments.branches.iter().enumerate() {
            fs.push(match (rng.as_deref_mut(), moments.sd.get(i)) {
                (Some(rng), Some(sd)) if marginal => {
                    let z = standard_normal(sd.dims(), sd.dtype(), rng, sd.device())?;
                    (mean + (sd * z)?)?
                }
                (Some(rng), _) => {
                    let eps = standard_normal(rows.dims(), rows.dtype(), rng, rows.device())?;
                    (mean + (rows * eps)?.sum(D::Minus1)?)?
                }
                (None, _) => mean.clone(),
            });
        }
        let f = match (self.config.combine, fs.as_slice()) {
            (_, [f]) => f.clone(),
            (Combine::Sum, [fe, fr]) => (fe + fr)?,
            (Combine::Concat, [fe, fr]) => {
                Tensor::cat(&[&fe.reshape((h, b, n, s))?, &fr.reshape((h, b, n, s))?], 2)?
            }
            _ => unreachable!("one or two variational sets by construction"),
        };
        let rows = f.elem_count() / (h * b * s);
        // s → p, then (Concat) the 2N → N token map on (H·B·p) rows.
        let out = crate::ops::linear(
            &f.reshape((h, b, rows, s))?,
            (self.out_w.as_tensor(), Some(self.out_b.as_tensor())),
        )?;
        let out = match &self.concat {
            Some((w, bias)) => crate::ops::linear(
                &out.transpose(2, 3)?,
                (w.as_tensor(), Some(bias.as_tensor())),
            )?
            .transpose(2, 3)?,
            None => out,
        };
        // (H, B, N, p) → (B, N, H, p) → (B, N, C).
        Ok(out
            .permute((1, 2, 0, 3))?
            .contiguous()?
            .reshape((b, n, h * p))?)
    }
}

/// Multi-head softmax attention `softmax(QKᵀ/√p)V` with an output
/// projection (the baseline the paper compares with). O(B·(N²C + NC²)).
#[derive(Debug, Clone)]
pub struct SoftmaxAttention {
    heads: usize,
    qkv: (Var, Var),
    proj: (Var, Var),
}

impl SoftmaxAttention {
    /// A layer of width `width = heads·head_dim`, parameters in `params`.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for zero sizes or a width not divisible
    /// by `heads`; [`Error::Nn`], [`Error::Candle`].
    pub fn new<R: Rng + ?Sized>(
        params: &mut ParamSet,
        prefix: &str,
        width: usize,
        heads: usize,
        dtype: DType,
        rng: &mut R,
        dev: &Device,
    ) -> Result<Self> {
        if width == 0 || heads == 0 || !width.is_multiple_of(heads) {
            return Err(Error::InvalidParameter {
                name: "width / heads",
                value: width as f64,
                expected: "a positive multiple of a positive number of heads",
            });
        }
        let qkv = linear_init(
            params,
            &format!("{prefix}.qkv"),
            3 * width,
            width,
            dtype,
            rng,
            dev,
        )?;
        let proj = linear_init(
            params,
            &format!("{prefix}.proj"),
            width,
            width,
            dtype,
            rng,
            dev,
        )?;
        Ok(Self { heads, qkv, proj })
    }

    /// `B × N × C → B × N × C`.
    ///
    /// # Errors
    /// [`Error::Candle`] for a wrong shape.
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let (b, n, c) = x.dims3()?;
        let (h, p) = (self.heads, c / self.heads);
        let qkv = crate::ops::linear_vars(x, &self.qkv)?
            .reshape((b, n, 3, h, p))?
            .permute((2, 0, 3, 1, 4))?;
        let (q, k, v) = (
            qkv.get(0)?.contiguous()?,
            qkv.get(1)?.contiguous()?,
            qkv.get(2)?.contiguous()?,
        );
        let att = (q.matmul(&k.t()?)? / (p as f64).sqrt())?;
        let att = candle_nn::ops::softmax_last_dim(&att)?;
        let out = att
            .matmul(&v)?
            .transpose(1, 2)?
            .contiguous()?
            .reshape((b, n, c))?;
        Ok(crate::ops::linear_vars(&out, &self.proj)?)
    }
}

impl KepSvgpAttention {
    /// The ndarray (`f64`) view of head `head`'s SVGP number `branch` (0;
    /// 1 for the `r`-branch when not shared): `Λ`, `m_u` and the factors
    /// `L_d`, for the closed-form pieces of [`crate::svgp`]. O(s³).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a head or branch out of range;
    /// [`crate::svgp::EigenPairSvgp::new`]'s errors (a `λ` that over- or
    /// underflowed); [`Error::Candle`].
    pub fn head_svgp(&self, head: usize, branch: usize) -> Result<crate::svgp::EigenPairSvgp> {
        if head >= self.heads || branch >= self.gps.len() {
            return Err(Error::InvalidParameter {
                name: "head / branch",
                value: head.max(branch) as f64,
                expected: "a head < H and a branch < the number of SVGPs",
            });
        }
        let to2 = |t: Tensor| -> Result<ndarray::Array2<f64>> {
            let (r, c) = t.dims2()?;
            let v = t.to_dtype(DType::F64)?.flatten_all()?.to_vec1::<f64>()?;
            ndarray::Array2::from_shape_vec((r, c), v).map_err(|_| Error::TooLarge { what: "head" })
        };
        let lambda = self
            .lambda()?
            .get(head)?
            .to_dtype(DType::F64)?
            .to_vec1::<f64>()?;
        let gp = &self.gps[branch];
        let m_u = to2(gp.m_u.as_tensor().get(head)?)?;
        let l = self.cholesky(gp)?.get(head)?;
        let factors = (0..self.config.s)
            .map(|d| to2(l.get(d)?))
            .collect::<Result<Vec<_>>>()?;
        crate::svgp::EigenPairSvgp::new(ndarray::Array1::from(lambda), m_u, factors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// Both sampling forms (the training path `μ + (vL_d)ε` and the
    /// inference path `μ + ‖vL_d‖z`) give outputs whose mean and variance
    /// over 2,000 draws lie within 4 standard errors of the analytic
    /// `E[out] = out(μ)` and `Var(out_j) = Σ_d W_jd² var_d` (fixed seed).
    #[test]
    fn both_sampling_forms_match_analytic_moments() {
        let dev = Device::Cpu;
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let (n, width, s, draws) = (5, 4, 2, 2_000);
        for combine in [Combine::Sum, Combine::Concat] {
            let cfg = KepConfig {
                s,
                rank_multi: 2,
                combine,
                ..KepConfig::default()
            };
            let mut params = ParamSet::new();
            let layer = KepSvgpAttention::new(
                &mut params,
                "k",
                (width, 1, n),
                cfg,
                DType::F64,
                &mut rng,
                &dev,
            )
            .unwrap();
            let x = Tensor::randn(0.0f64, 1.0, (1, n, width), &dev).unwrap();
            let moments = layer.moments(&x, true).unwrap();
            let mean = layer
                .output(&moments, None::<&mut ChaCha8Rng>, false)
                .unwrap()
                .squeeze(0)
                .unwrap()
                .to_vec2::<f64>()
                .unwrap();
            if combine == Combine::Concat {
                // The 2N → N token map mixes the rows: Var(out_tj) =
                // Σ_u A_tu² Σ_d W_jd² var_ud over the 2N stacked rows u.
                continue_with_concat(&layer, &moments, &mean, draws, &mut rng);
                continue;
            }
            let w = layer.out_w.as_tensor().to_vec2::<f64>().unwrap();
            let var = moments.variance.squeeze(0).unwrap().squeeze(0).unwrap();
            let var = var.to_vec2::<f64>().unwrap();
            let analytic: Vec<Vec<f64>> = (0..n)
                .map(|t| {
                    (0..width)
                        .map(|j| (0..s).map(|d| w[j][d] * w[j][d] * var[t][d]).sum())
                        .collect()
                })
                .collect();
            check_draws(&layer, &moments, &mean, &analytic, draws, &mut rng);
        }
    }

    fn continue_with_concat(
        layer: &KepSvgpAttention,
        moments: &Moments,
        mean: &[Vec<f64>],
        draws: usize,
        rng: &mut ChaCha8Rng,
    ) {
        let (n, width, s) = (mean.len(), mean[0].len(), layer.config.s);
        let w = layer.out_w.as_tensor().to_vec2::<f64>().unwrap();
        let a = layer.concat.as_ref().unwrap().0.as_tensor();
        let a = a.to_vec2::<f64>().unwrap();
        let var = moments.variance.squeeze(0).unwrap().squeeze(0).unwrap();
        let var = var.to_vec2::<f64>().unwrap();
        let analytic: Vec<Vec<f64>> = (0..n)
            .map(|t| {
                (0..width)
                    .map(|j| {
                        (0..2 * n)
                            .map(|u| {
                                a[t][u]
                                    * a[t][u]
                                    * (0..s).map(|d| w[j][d] * w[j][d] * var[u][d]).sum::<f64>()
                            })
                            .sum()
                    })
                    .collect()
            })
            .collect();
        check_draws(layer, moments, mean, &analytic, draws, rng);
    }

    fn check_draws(
        layer: &KepSvgpAttention,
        moments: &Moments,
        mean: &[Vec<f64>],
        analytic: &[Vec<f64>],
        draws: usize,
        rng: &mut ChaCha8Rng,
    ) {
        for marginal in [false, true] {
            let (n, width) = (mean.len(), mean[0].len());
            let mut sum = vec![vec![0.0; width]; n];
            let mut sq = vec![vec![0.0; width]; n];
            for _ in 0..draws {
                let o = layer.output(moments, Some(&mut *rng), marginal).unwrap();
                let o = o.squeeze(0).unwrap().to_vec2::<f64>().unwrap();
                for t in 0..n {
                    for j in 0..width {
                        let d = o[t][j] - mean[t][j];
                        sum[t][j] += d;
                        sq[t][j] += d * d;
                    }
                }
            }
            let m = draws as f64;
            for t in 0..n {
                for j in 0..width {
                    let v = analytic[t][j];
                    let dm = sum[t][j] / m;
                    let dv = sq[t][j] / m - dm * dm;
                    assert!(
                        dm.abs() <= 4.0 * (v / m).sqrt(),
                        "mean t{t} j{j} marginal {marginal}: {dm} vs se {}",
                        (v / m).sqrt()
                    );
                    assert!(
                        (dv - v).abs() <= 4.0 * v * (2.0 / (m - 1.0)).sqrt(),
                        "variance t{t} j{j} marginal {marginal}: {dv} vs {v}"
                    );
                }
            }
        }
    }
}
