//! Transformer fusion: a small decoder-only (causal, pre-norm) transformer
//! and the fusion of two of them into one whose residual stream is the
//! concatenation of theirs.
//!
//! [`TinyTransformer`]: token and learned position embeddings, `L` blocks of
//! `h ← h + Wo·MHA(N₁(h))`, `h ← h + W₂ σ(W₁ N₂(h) + b₁) + b₂`, a final norm
//! and an LM head `W h + b`. Attention has `H` heads of dimension `d_h`
//! (`d = H·d_h`), scale `1/√d_h`, a causal mask, and no projection biases.
//!
//! [`fuse_transformer`] (spec, "Transformer", reconstructed):
//! * embeddings concatenated along the model dimension: `E = [E_f, E_g]`,
//!   `P = [P_f, P_g]`, so the residual stream is `[h_f; h_g]`;
//! * heads concatenated (`H = H_f + H_g`, same `d_h`, scale `1/√d_h`
//!   unchanged): `Wq, Wk, Wv, Wo` block-diagonal, so head i of the fused
//!   model is head i of f (i < H_f) or head i − H_f of g;
//! * FFN block-diagonal (`W₁`, `W₂`), biases stacked;
//! * LM head combined like the MLP output: `[c_f W_f, c_g W_g]`,
//!   `c_f b_f + c_g b_g` (logits averaged for [`Combine::Average`]);
//! * normalisation by [`NormMode`]: `Joint` normalises the whole
//!   concatenated vector with gains `[γ_f; γ_g]`, exact only when the
//!   statistics of the halves agree (self-fusion of a single-group model);
//!   `Grouped` keeps each model's groups (per-half statistics), exact for
//!   any pair. Both LayerNorm and RMSNorm are supported.

use crate::error::{Error, Result};
use crate::fuse::Combine;
use crate::mlp::{Activation, alloc_check, check_dtype};
use candle_core::{D, DType, Device, Tensor};
use rand::Rng;
use rand_distr::{Distribution, Normal};

/// The normalisation layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NormKind {
    /// `γ ⊙ (x − μ)/√(σ² + ε) + β` per group.
    LayerNorm,
    /// T5's `γ ⊙ x/√(mean(x²) + ε)` per group.
    RmsNorm,
}

impl NormKind {
    fn name(self) -> &'static str {
        match self {
            NormKind::LayerNorm => "LayerNorm",
            NormKind::RmsNorm => "RMSNorm",
        }
    }
}

/// How the fused model normalises its concatenated stream.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NormMode {
    /// One group over the whole vector (exact for self-fusion only).
    Joint,
    /// Each part keeps its own groups (exact for any pair).
    Grouped,
}

/// The architecture of a [`TinyTransformer`].
#[derive(Debug, Clone, PartialEq)]
pub struct TransformerConfig {
    /// Vocabulary size `V`.
    pub vocab: usize,
    /// Attention heads `H`.
    pub heads: usize,
    /// Head dimension `d_h` (model width `d = H·d_h`).
    pub head_dim: usize,
    /// FFN hidden width.
    pub d_ff: usize,
    /// Number of blocks `L`.
    pub layers: usize,
    /// Longest sequence (rows of the position embedding).
    pub max_len: usize,
    /// Normalisation layer.
    pub norm: NormKind,
    /// FFN activation.
    pub activation: Activation,
    /// Norm ε > 0.
    pub eps: f64,
}

impl TransformerConfig {
    /// `d = H·d_h`.
    pub fn d_model(&self) -> usize {
        self.heads * self.head_dim
    }

    /// Checks the sizes.
    ///
    /// # Errors
    /// [`Error::EmptyNetwork`] for a zero size; [`Error::InvalidParameter`]
    /// for ε ≤ 0; [`Error::TooLarge`].
    pub fn check(&self) -> Result<()> {
        if [
            self.vocab,
            self.heads,
            self.head_dim,
            self.d_ff,
            self.layers,
            self.max_len,
        ]
        .contains(&0)
        {
            return Err(Error::EmptyNetwork {
                what: "a transformer size is zero",
            });
        }
        if !(self.eps.is_finite() && self.eps > 0.0) {
            return Err(Error::InvalidParameter {
                name: "norm eps",
                value: self.eps,
                expected: "a finite value > 0",
            });
        }
        let d = self
            .heads
            .checked_mul(self.head_dim)
            .ok_or(Error::TooLarge { what: "d_model" })?;
        alloc_check(
            self.vocab.max(self.max_len).max(self.d_ff),
            d,
            "transformer matrix",
        )?;
        Ok(())
    }
}

/// One normalisation layer: gains `γ`, shifts `β` (LayerNorm only) and the
/// group widths (summing to `d`).
#[derive(Debug, Clone)]
pub struct Norm {
    gamma: Tensor,
    beta: Option<Tensor>,
    groups: Vec<usize>,
}

impl Norm {
    fn new(kind: NormKind, d: usize, dtype: DType) -> Result<Self> {
        Ok(Self {
            gamma: Tensor::ones(d, dtype, &Device::Cpu)?,
            beta: match kind {
                NormKind::LayerNorm => Some(Tensor::zeros(d, dtype, &Device::Cpu)?),
                NormKind::RmsNorm => None,
            },
            groups: vec![d],
        })
    }

    /// The group widths.
    pub fn groups(&self) -> &[usize] {
        &self.groups
    }

    fn forward(&self, x: &Tensor, eps: f64) -> Result<Tensor> {
        let mut outs = Vec::with_capacity(self.groups.len());
        let mut off = 0;
        for &w in &self.groups {
            let g = x.narrow(D::Minus1, off, w)?;
            let g = match self.beta {
                Some(_) => {
                    let mu = g.mean_keepdim(D::Minus1)?;
                    let c = g.broadcast_sub(&mu)?;
                    let var = c.sqr()?.mean_keepdim(D::Minus1)?;
                    c.broadcast_div(&(var + eps)?.sqrt()?)?
                }
                None => {
                    let ms = g.sqr()?.mean_keepdim(D::Minus1)?;
                    g.broadcast_div(&(ms + eps)?.sqrt()?)?
                }
            };
            outs.push(g);
            off += w;
        }
        let y = Tensor::cat(&outs, D::Minus1)?.broadcast_mul(&self.gamma)?;
        Ok(match &self.beta {
            Some(b) => y.broadcast_add(b)?,
            None => y,
        })
    }

    fn fuse(a: &Norm, b: &Norm, mode: NormMode) -> Result<Norm> {
        let groups = match mode {
            NormMode::Grouped => a.groups.iter().chain(&b.groups).copied().collect(),
            NormMode::Joint => vec![a.groups.iter().chain(&b.groups).sum()],
        };
        Ok(Norm {
            gamma: Tensor::cat(&[&a.gamma, &b.gamma], 0)?,
            beta: match (&a.beta, &b.beta) {
                (Some(x), Some(y)) => Some(Tensor::cat(&[x, y], 0)?),
                _ => None,
            },
            groups,
        })
    }
}

/// One transformer block's weights (`[out, in]` layout).
#[derive(Debug, Clone)]
pub struct Block {
    n1: Norm,
    wq: Tensor,
    wk: Tensor,
    wv: Tensor,
    wo: Tensor,
    n2: Norm,
    w1: Tensor,
    b1: Tensor,
    w2: Tensor,
    b2: Tensor,
}

/// A small causal transformer language model (see the module docs).
#[derive(Debug, Clone)]
pub struct TinyTransformer {
    config: TransformerConfig,
    tok: Tensor,
    pos: Tensor,
    blocks: Vec<Block>,
    norm_f: Norm,
    head_w: Tensor,
    head_b: Tensor,
}

fn normal_t<R: Rng + ?Sized>(
    shape: (usize, usize),
    std: f64,
    dtype: DType,
    rng: &mut R,
) -> Result<Tensor> {
    let n = Normal::new(0.0, std).map_err(|_| Error::InvalidParameter {
        name: "init std",
        value: std,
        expected: "finite > 0",
    })?;
    let v: Vec<f64> = (0..shape.0 * shape.1).map(|_| n.sample(rng)).collect();
    Ok(Tensor::from_vec(v, shape, &Device::Cpu)?.to_dtype(dtype)?)
}

fn block_diag(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let (ra, ca) = a.dims2()?;
    let (rb, cb) = b.dims2()?;
    let top = Tensor::cat(&[a, &Tensor::zeros((ra, cb), a.dtype(), a.device())?], 1)?;
    let bot = Tensor::cat(&[&Tensor::zeros((rb, ca), b.dtype(), b.device())?, b], 1)?;
    Ok(Tensor::cat(&[&top, &bot], 0)?)
}

impl TinyTransformer {
    /// A model with GPT-2-style initialisation: matrices `N(0, 0.02²)`,
    /// norms `γ = 1`, `β = 0`, biases 0; then the norm gains and shifts are
    /// perturbed by `N(0, 0.1²)` so that tests exercise them. O(#params).
    ///
    /// # Errors
    /// [`TransformerConfig::check`]'s errors; [`Error::Unsupported`] for a
    /// dtype other than f32/f64.
    pub fn random<R: Rng + ?Sized>(
        config: &TransformerConfig,
        dtype: DType,
        rng: &mut R,
    ) -> Result<Self> {
        config.check()?;
        check_dtype(dtype)?;
        let d = config.d_model();
        let s = 0.02;
        let perturb = |n: &mut Norm, rng: &mut R| -> Result<()> {
            n.gamma = (&n.gamma + normal_t((1, d), 0.1, dtype, rng)?.reshape(d)?)?;
            if let Some(b) = &n.beta {
                n.beta = Some((b + normal_t((1, d), 0.1, dtype, rng)?.reshape(d)?)?);
            }
            Ok(())
        };
        let tok = normal_t((config.vocab, d), s, dtype, rng)?;
        let pos = normal_t((config.max_len, d), s, dtype, rng)?;
        let mut blocks = Vec::with_capacity(config.layers);
        for _ in 0..config.layers {
            let mut n1 = Norm::new(config.norm, d, dtype)?;
            perturb(&mut n1, rng)?;
            let mut n2 = Norm::new(config.norm, d, dtype)?;
            perturb(&mut n2, rng)?;
            blocks.push(Block {
                n1,
                wq: normal_t((d, d), s * 10.0, dtype, rng)?,
                wk: normal_t((d, d), s * 10.0, dtype, rng)?,
                wv: normal_t((d, d), s * 10.0, dtype, rng)?,
                wo: normal_t((d, d), s * 10.0, dtype, rng)?,
                n2,
                w1: normal_t((config.d_ff, d), s * 10.0, dtype, rng)?,
                b1: normal_t((1, config.d_ff), s, dtype, rng)?.reshape(config.d_ff)?,
                w2: normal_t((d, config.d_ff), s * 10.0, dtype, rng)?,
                b2: normal_t((1, d), s, dtype, rng)?.reshape(d)?,
            });
        }
        let mut norm_f = Norm::new(config.norm, d, dtype)?;
        perturb(&mut norm_f, rng)?;
        Ok(Self {
            config: config.clone(),
            tok,
            pos,
            blocks,
            norm_f,
            head_w: normal_t((config.vocab, d), s * 10.0, dtype, rng)?,
            head_b: normal_t((1, config.vocab), s, dtype, rng)?.reshape(config.vocab)?,
        })
    }

    /// The architecture.
    pub fn config(&self) -> &TransformerConfig {
        &self.config
    }

    /// The final norm's groups (one per fused part under `Grouped`).
    pub fn norm_groups(&self) -> &[usize] {
        self.norm_f.groups()
    }

    /// The storage dtype.
    pub fn dtype(&self) -> DType {
        self.tok.dtype()
    }

    /// Logits `[B, T, V]` for token ids `[B, T]` (`u32`, `T ≤ max_len`).
    /// O(B·L·(T²·d + T·d·(d + d_ff)) + B·T·d·V).
    ///
    /// # Errors
    /// [`Error::Shape`] for a wrong rank, an empty batch or `T > max_len`;
    /// [`Error::InvalidParameter`] for a token id `≥ V`; [`Error::Candle`].
    pub fn forward(&self, ids: &Tensor) -> Result<Tensor> {
        let (b, t) = ids.dims2().map_err(|_| Error::Shape {
            what: "token ids [B, T]",
            expected: vec![1, self.config.max_len],
            got: ids.dims().to_vec(),
        })?;
        if b == 0 || t == 0 || t > self.config.max_len {
            return Err(Error::Shape {
                what: "token ids [B, T] with 0 < T ≤ max_len",
                expected: vec![b.max(1), self.config.max_len],
                got: vec![b, t],
            });
        }
        let ids = ids.to_dtype(DType::U32)?;
        let max = ids.flatten_all()?.max(0)?.to_scalar::<u32>()? as usize;
        if max >= self.config.vocab {
            return Err(Error::InvalidParameter {
                name: "token id",
                value: max as f64,
                expected: "below the vocabulary size",
            });
        }
        let (hds, dh, d) = (
            self.config.heads,
            self.config.head_dim,
            self.config.d_model(),
        );
        let eps = self.config.eps;
        let emb = self
            .tok
            .embedding(&ids.flatten_all()?)?
            .reshape((b, t, d))?;
        let mut h = emb.broadcast_add(&self.pos.narrow(0, 0, t)?)?;
        let mask: Vec<f64> = (0..t * t)
            .map(|k| {
                if k % t > k / t {
                    f64::NEG_INFINITY
                } else {
                    0.0
                }
            })
            .collect();
        let mask = Tensor::from_vec(mask, (t, t), &Device::Cpu)?.to_dtype(self.dtype())?;
        let scale = 1.0 / (dh as f64).sqrt();
        for blk in &self.blocks {
            let x = blk.n1.forward(&h, eps)?;
            let proj = |w: &Tensor| -> Result<Tensor> {
                Ok(x.broadcast_matmul(&w.t()?)?
                    .reshape((b, t, hds, dh))?
                    .transpose(1, 2)?
                    .contiguous()?)
            };
            let (q, k, v) = (proj(&blk.wq)?, proj(&blk.wk)?, proj(&blk.wv)?);
            let att = (q.matmul(&k.t()?.contiguous()?)? * scale)?.broadcast_add(&mask)?;
            let att = candle_nn::ops::softmax_last_dim(&att)?;
            let a = att
                .matmul(&v)?
                .transpose(1, 2)?
                .contiguous()?
                .reshape((b, t, d))?
                .broadcast_matmul(&blk.wo.t()?)?;
            h = (h + a)?;
            let x = blk.n2.forward(&h, eps)?;
            let m = x.broadcast_matmul(&blk.w1.t()?)?.broadcast_add(&blk.b1)?;
            let m = self.config.activation.apply(&m)?;
            let m = m.broadcast_matmul(&blk.w2.t()?)?.broadcast_add(&blk.b2)?;
            h = (h + m)?;
        }
        let x = self.norm_f.forward(&h, eps)?;
        Ok(x.broadcast_matmul(&self.head_w.t()?)?
            .broadcast_add(&self.head_b)?)
    }
}

/// Fuses two transformers (see the module docs): `d = d_f + d_g`,
/// `H = H_f + H_g`, `d_ff = d_ff,f + d_ff,g`; logits `c_f·f + c_g·g` when
/// exact. O(#params of the fused model).
///
/// # Errors
/// [`Error::HeadDimMismatch`]; [`Error::NormKindMismatch`];
/// [`Error::ArchitectureMismatch`] for different depths (`layer` = the
/// smaller), vocabularies (`layer` = 0) or `max_len` (`layer` = 0);
/// [`Error::ActivationMismatch`]; [`Error::InvalidParameter`] for different
/// ε; [`Error::Unsupported`] for mixed dtypes; [`Combine::weights`]' errors.
pub fn fuse_transformer(
    f: &TinyTransformer,
    g: &TinyTransformer,
    mode: NormMode,
    combine: Combine,
) -> Result<TinyTransformer> {
    let (a, b) = (&f.config, &g.config);
    if a.head_dim != b.head_dim {
        return Err(Error::HeadDimMismatch {
            left: a.head_dim,
            right: b.head_dim,
        });
    }
    if a.norm != b.norm {
        return Err(Error::NormKindMismatch {
            left: a.norm.name(),
            right: b.norm.name(),
        });
    }
    if a.layers != b.layers {
        return Err(Error::ArchitectureMismatch {
            layer: a.layers.min(b.layers),
            left: a.layers,
            right: b.layers,
        });
    }
    for (l, r) in [(a.vocab, b.vocab), (a.max_len, b.max_len)] {
        if l != r {
            return Err(Error::ArchitectureMismatch {
                layer: 0,
                left: l,
                right: r,
            });
        }
    }
    if a.activation != b.activation {
        return Err(Error::ActivationMismatch {
            left: a.activation.name(),
            right: b.activation.name(),
        });
    }
    if a.eps != b.eps {
        return Err(Error::InvalidParameter {
            name: "norm eps of the right model",
            value: b.eps,
            expected: "the left model's eps",
        });
    }
    if f.dtype() != g.dtype() {
        return Err(Error::Unsupported(
            "fusing transformers of different dtypes",
        ));
    }
    let c = combine.weights(2)?;
    let config = TransformerConfig {
        heads: a.heads + b.heads,
        d_ff: a.d_ff + b.d_ff,
        ..a.clone()
    };
    config.check()?;
    let blocks = f
        .blocks
        .iter()
        .zip(&g.blocks)
        .map(|(x, y)| {
            Ok(Block {
                n1: Norm::fuse(&x.n1, &y.n1, mode)?,
                wq: block_diag(&x.wq, &y.wq)?,
                wk: block_diag(&x.wk, &y.wk)?,
                wv: block_diag(&x.wv, &y.wv)?,
                wo: block_diag(&x.wo, &y.wo)?,
                n2: Norm::fuse(&x.n2, &y.n2, mode)?,
                w1: block_diag(&x.w1, &y.w1)?,
                b1: Tensor::cat(&[&x.b1, &y.b1], 0)?,
                w2: block_diag(&x.w2, &y.w2)?,
                b2: Tensor::cat(&[&x.b2, &y.b2], 0)?,
            })
        })
        .collect::<Result<_>>()?;
    Ok(TinyTransformer {
        config,
        tok: Tensor::cat(&[&f.tok, &g.tok], 1)?,
        pos: Tensor::cat(&[&f.pos, &g.pos], 1)?,
        blocks,
        norm_f: Norm::fuse(&f.norm_f, &g.norm_f, mode)?,
        head_w: Tensor::cat(&[(&f.head_w * c[0])?, (&g.head_w * c[1])?], 1)?,
        head_b: ((&f.head_b * c[0])? + (&g.head_b * c[1])?)?,
    })
}
