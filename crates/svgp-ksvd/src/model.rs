//! A small vision transformer whose last block uses softmax or KEP-SVGP
//! attention (the paper replaces only the last encoder layer,
//! `ksvd_layers = 1`), its ELBO loss, training on nncore's loop and
//! inference averaging sampled logits.
//!
//! Tokens: patches linearly embedded, a learned CLS token in front, a
//! learned position embedding (`N(0, 1)` as the code); blocks are pre-norm,
//! `h ← h + Attn(LN(h))`, `h ← h + W₂ GELU(W₁ LN(h) + b₁) + b₂`; the head
//! reads the CLS token through a LayerNorm and a linear map. No dropout.
//!
//! Loss (the code's `compute_loss`): `CE(one sample) + η_ksvd·J² + η_kl·KL`
//! with `J` and `KL` of the KEP-SVGP layer ([`crate::attention::KepOutput`]).

use crate::attention::{KepConfig, KepSvgpAttention, SoftmaxAttention};
use crate::error::{Error, Result};
use crate::ops::{layer_norm, linear_vars as linear, rows_of};
use candle_core::{DType, Device, Tensor, Var};
use ndarray::{Array1, Array2};
use nncore::{data::ClassificationData, init, params::ParamSet, train};
use rand::Rng;

/// The attention of the last block.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LastAttention {
    /// Softmax attention (the baseline).
    Softmax,
    /// KEP-SVGP attention.
    Kep(KepConfig),
}

/// The architecture; `Default` is the digits setting of the runner (2×2
/// patches of 8×8 images: 16 tokens of 4 values + CLS, depth 2, width 64,
/// 4 heads, MLP 64, 10 classes, softmax everywhere).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct VitConfig {
    /// Values per patch.
    pub patch_dim: usize,
    /// Patches per input (tokens without CLS).
    pub patches: usize,
    /// Model width `C`.
    pub width: usize,
    /// Heads `H` (`C` divisible by `H`).
    pub heads: usize,
    /// Blocks.
    pub depth: usize,
    /// MLP hidden width.
    pub mlp_hidden: usize,
    /// Classes.
    pub classes: usize,
    /// The last block's attention.
    pub last: LastAttention,
}

impl Default for VitConfig {
    fn default() -> Self {
        Self {
            patch_dim: 4,
            patches: 16,
            width: 64,
            heads: 4,
            depth: 2,
            mlp_hidden: 64,
            classes: 10,
            last: LastAttention::Softmax,
        }
    }
}

#[derive(Debug, Clone)]
enum Attn {
    Softmax(SoftmaxAttention),
    Kep(KepSvgpAttention),
}

#[derive(Debug, Clone)]
struct Block {
    ln1: (Var, Var),
    attn: Attn,
    ln2: (Var, Var),
    fc1: (Var, Var),
    fc2: (Var, Var),
}

/// The model and its parameters.
#[derive(Debug)]
pub struct Vit {
    config: VitConfig,
    params: ParamSet,
    embed: (Var, Var),
    cls: Var,
    pos: Var,
    blocks: Vec<Block>,
    head_ln: (Var, Var),
    head: (Var, Var),
}

/// One forward pass.
#[derive(Debug, Clone)]
pub struct VitOutput {
    /// `B × classes` logits.
    pub logits: Tensor,
    /// The KEP-SVGP layer's KL (scalar; zero for softmax).
    pub kl: Tensor,
    /// The KEP-SVGP layer's `J/N` (scalar; zero for softmax).
    pub j: Tensor,
    /// `B`-vector: mean deterministic SVGP variance of the example's tokens
    /// (zeros for softmax).
    pub variance: Tensor,
}

impl Vit {
    /// A seeded model in `dtype` (`F32` for training, `F64` for checks).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a zero size or a width not divisible
    /// by the heads; [`KepConfig::check`]'s errors (with `N = patches + 1`
    /// and `p = width/heads`); [`Error::Nn`], [`Error::Candle`].
    pub fn new<R: Rng + ?Sized>(
        config: VitConfig,
        dtype: DType,
        rng: &mut R,
        dev: &Device,
    ) -> Result<Self> {
        let c = config;
        if [
            c.patch_dim,
            c.patches,
            c.width,
            c.heads,
            c.depth,
            c.mlp_hidden,
            c.classes,
        ]
        .contains(&0)
            || !c.width.is_multiple_of(c.heads)
        {
            return Err(Error::InvalidParameter {
                name: "architecture",
                value: 0.0,
                expected: "non-zero sizes and a width divisible by the heads",
            });
        }
        crate::error::alloc(
            &[c.width, c.width.max(c.mlp_hidden), 4 * c.depth],
            "weights",
        )?;
        let tokens = c.patches + 1;
        let mut params = ParamSet::new();
        let lin = |params: &mut ParamSet,
                   name: &str,
                   o: usize,
                   i: usize,
                   rng: &mut R|
         -> Result<(Var, Var)> {
            let bound = 1.0 / (i as f64).sqrt();
            let w = init::uniform(&[o, i], -bound, bound, rng, dev)?.to_dtype(dtype)?;
            let b = init::uniform(&[o], -bound, bound, rng, dev)?.to_dtype(dtype)?;
            Ok((
                params.add(format!("{name}.w"), &w)?,
                params.add(format!("{name}.b"), &b)?,
            ))
        };
        let ln = |params: &mut ParamSet, name: &str| -> Result<(Var, Var)> {
            let g = Tensor::ones(c.width, dtype, dev)?;
            let b = Tensor::zeros(c.width, dtype, dev)?;
            Ok((
                params.add(format!("{name}.g"), &g)?,
                params.add(format!("{name}.b"), &b)?,
            ))
        };
        let embed = lin(&mut params, "embed", c.width, c.patch_dim, rng)?;
        let cls = init::normal(&[1, 1, c.width], 0.0, 1.0, rng, dev)?.to_dtype(dtype)?;
        let cls = params.add("cls", &cls)?;
        let pos = init::normal(&[1, tokens, c.width], 0.0, 1.0, rng, dev)?.to_dtype(dtype)?;
        let pos = params.add("pos", &pos)?;
        let mut blocks = Vec::with_capacity(c.depth);
        for l in 0..c.depth {
            let name = format!("block{l}");
            let ln1 = ln(&mut params, &format!("{name}.ln1"))?;
            let attn = match (l + 1 == c.depth, c.last) {
                (true, LastAttention::Kep(kep)) => Attn::Kep(KepSvgpAttention::new(
                    &mut params,
                    &format!("{name}.kep"),
                    (c.width, c.heads, tokens),
                    kep,
                    dtype,
                    rng,
                    dev,
                )?),
                _ => Attn::Softmax(SoftmaxAttention::new(
                    &mut params,
                    &format!("{name}.attn"),
                    c.width,
                    c.heads,
                    dtype,
                    rng,
                    dev,
                )?),
            };
            let ln2 = ln(&mut params, &format!("{name}.ln2"))?;
            let fc1 = lin(
                &mut params,
                &format!("{name}.fc1"),
                c.mlp_hidden,
                c.width,
                rng,
            )?;
            let fc2 = lin(
                &mut params,
                &format!("{name}.fc2"),
                c.width,
                c.mlp_hidden,
                rng,
            )?;
            blocks.push(Block {
                ln1,
                attn,
                ln2,
                fc1,
                fc2,
            });
        }
        let head_ln = ln(&mut params, "head.ln")?;
        let head = lin(&mut params, "head", c.classes, c.width, rng)?;
        Ok(Self {
            config,
            params,
            embed,
            cls,
            pos,
            blocks,
            head_ln,
            head,
        })
    }

    /// The architecture.
    pub fn config(&self) -> &VitConfig {
        &self.config
    }

    /// The parameters (for nncore's training loop).
    pub fn params(&self) -> &ParamSet {
        &self.params
    }

    /// The KEP-SVGP layer, if the last block has one.
    pub fn kep_layer(&self) -> Option<&KepSvgpAttention> {
        match self.blocks.last().map(|b| &b.attn) {
            Some(Attn::Kep(k)) => Some(k),
            _ => None,
        }
    }

    /// The forward pass on `x` (`B × patches × patch_dim`): the KEP-SVGP
    /// layer samples once when `rng` is given, else uses its posterior
    /// mean. O(B·depth·(N²C + NC²)).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for another input shape; [`Error::Candle`].
    pub fn forward<R: Rng + ?Sized>(&self, x: &Tensor, rng: Option<&mut R>) -> Result<VitOutput> {
        self.check_input(x)?;
        let b = x.dim(0)?;
        let mut h = self.embed(x)?;
        let zero = Tensor::zeros((), x.dtype(), x.device())?;
        let (mut kl, mut j, mut variance) =
            (zero.clone(), zero, Tensor::zeros(b, x.dtype(), x.device())?);
        let (last, rest) = self.blocks.split_last().ok_or(Error::InvalidParameter {
            name: "depth",
            value: 0.0,
            expected: "at least 1",
        })?;
        for block in rest {
            h = self.block(block, &h)?;
        }
        let n1 = layer_norm(&h, &last.ln1)?;
        let a = match &last.attn {
            Attn::Softmax(att) => att.forward(&n1)?,
            Attn::Kep(att) => {
                let o = att.forward(&n1, rng)?;
                kl = o.kl;
                j = o.j;
                variance = o.variance.flatten_from(1)?.mean(1)?;
                o.out
            }
        };
        let logits = self.finish(last, &h, &a)?;
        Ok(VitOutput {
            logits,
            kl,
            j,
            variance,
        })
    }

    /// `x` must be `B × patches × patch_dim` with `B ≥ 1`.
    fn check_input(&self, x: &Tensor) -> Result<()> {
        let c = &self.config;
        let dims = x.dims();
        if dims.len() != 3 || dims[0] == 0 || dims[1] != c.patches || dims[2] != c.patch_dim {
            return Err(crate::error::shape(
                "x",
                &[
                    dims.first().copied().unwrap_or(0).max(1),
                    c.patches,
                    c.patch_dim,
                ],
                dims,
            ));
        }
        Ok(())
    }

    /// Patch embedding, CLS token and position embedding: `B × (P+1) × C`.
    fn embed(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let c = &self.config;
        let b = x.dim(0)?;
        let tokens = linear(x, &self.embed)?;
        let cls = self.cls.as_tensor().broadcast_as((b, 1, c.width))?;
        let pos = rows_of(self.pos.as_tensor(), b)?.reshape((b, c.patches + 1, c.width))?;
        Tensor::cat(&[&cls, &tokens], 1)? + pos
    }

    /// A softmax block `h ← h + Attn(LN(h))`, `h ← h + MLP(LN(h))`.
    fn block(&self, block: &Block, h: &Tensor) -> Result<Tensor> {
        let a = match &block.attn {
            Attn::Softmax(att) => att.forward(&layer_norm(h, &block.ln1)?)?,
            Attn::Kep(_) => {
                return Err(Error::InvalidParameter {
                    name: "block",
                    value: 0.0,
                    expected: "KEP-SVGP attention only in the last block",
                });
            }
        };
        let h = (h + a)?;
        let n2 = layer_norm(&h, &block.ln2)?;
        Ok((&h + linear(&linear(&n2, &block.fc1)?.gelu_erf()?, &block.fc2)?)?)
    }

    /// The rest of the last block given its attention output `a`, and the
    /// head. The head reads only the CLS token and every step after the
    /// attention acts token-wise, so only the CLS row is carried on (the
    /// logits are those of the full block).
    fn finish(&self, block: &Block, h: &Tensor, a: &Tensor) -> candle_core::Result<Tensor> {
        let hc = (h.narrow(1, 0, 1)? + a.narrow(1, 0, 1)?)?.squeeze(1)?;
        let n2 = layer_norm(&hc, &block.ln2)?;
        let hc = (&hc + linear(&linear(&n2, &block.fc1)?.gelu_erf()?, &block.fc2)?)?;
        linear(&layer_norm(&hc, &self.head_ln)?, &self.head)
    }

    /// The training loss `CE + η_ksvd·J² + η_kl·KL` of one sampled pass
    /// (plain CE for softmax); `y` holds `u32` labels.
    ///
    /// # Errors
    /// As [`Vit::forward`].
    pub fn loss<R: Rng + ?Sized>(&self, x: &Tensor, y: &Tensor, rng: &mut R) -> Result<Tensor> {
        let (Some((last, rest)), LastAttention::Kep(k)) =
            (self.blocks.split_last(), self.config.last)
        else {
            let out = self.forward(x, Some(rng))?;
            return Ok(candle_nn::loss::cross_entropy(&out.logits, y)?);
        };
        let Attn::Kep(att) = &last.attn else {
            return Err(Error::InvalidParameter {
                name: "last block",
                value: 0.0,
                expected: "KEP-SVGP attention under a KEP-SVGP configuration",
            });
        };
        // As `forward`, without the variance the loss does not use.
        self.check_input(x)?;
        let mut h = self.embed(x)?;
        for block in rest {
            h = self.block(block, &h)?;
        }
        let (a, kl, j) = att.forward_train(&layer_norm(&h, &last.ln1)?, rng)?;
        let ce = candle_nn::loss::cross_entropy(&self.finish(last, &h, &a)?, y)?;
        Ok(((ce + (j.sqr()? * k.eta_ksvd)?)? + (kl * k.eta_kl)?)?)
    }

    /// Class probabilities of `x` (`n × patches·patch_dim`, row-major
    /// patches) as the code evaluates: the softmax of the mean logits of
    /// `samples` sampled passes (one deterministic pass for softmax), in
    /// batches of `batch`; with the mean deterministic variance per example.
    /// O(samples·n·cost(forward)).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for `samples = 0` or `batch = 0`;
    /// [`Error::EmptyInput`], [`Error::NonFinite`], [`Error::ShapeMismatch`]
    /// for `x`; [`Error::Candle`].
    pub fn predict<R: Rng + ?Sized>(
        &self,
        x: ndarray::ArrayView2<'_, f32>,
        samples: usize,
        batch: usize,
        rng: &mut R,
    ) -> Result<(Array2<f64>, Array1<f64>)> {
        if samples == 0 || batch == 0 {
            return Err(Error::InvalidParameter {
                name: "samples / batch",
                value: 0.0,
                expected: "at least 1",
            });
        }
        let c = &self.config;
        if x.nrows() == 0 {
            return Err(Error::EmptyInput { what: "x" });
        }
        if x.ncols() != c.patches * c.patch_dim {
            return Err(crate::error::shape(
                "x",
                &[x.nrows(), c.patches * c.patch_dim],
                x.shape(),
            ));
        }
        if let Some(index) = x.iter().position(|v| !v.is_finite()) {
            return Err(Error::NonFinite { what: "x", index });
        }
        let dev = self.pos.device();
        let dtype = self.pos.dtype();
        let mut probs = Array2::zeros((x.nrows(), c.classes));
        let mut var = Array1::zeros(x.nrows());
        let passes = if matches!(c.last, LastAttention::Kep(_)) {
            samples
        } else {
            1
        };
        for start in (0..x.nrows()).step_by(batch) {
            let end = (start + batch).min(x.nrows());
            let chunk: Vec<f32> = x
                .slice(ndarray::s![start..end, ..])
                .iter()
                .copied()
                .collect();
            let xb = Tensor::from_vec(chunk, (end - start, c.patches, c.patch_dim), dev)?
                .to_dtype(dtype)?;
            // Everything before the last block's SVGP sample is
            // deterministic: computed once, then `passes` samples drawn.
            let (mean, det) = self.sampled_mean_logits(&xb, passes, rng)?;
            let p =
                candle_nn::ops::softmax_last_dim(&mean.to_dtype(DType::F64)?)?.to_vec2::<f64>()?;
            for (i, row) in p.iter().enumerate() {
                for (k, v) in row.iter().enumerate() {
                    probs[[start + i, k]] = *v;
                }
            }
            let det = det.to_dtype(DType::F64)?.to_vec1::<f64>()?;
            for (i, v) in det.into_iter().enumerate() {
                var[start + i] = v;
            }
        }
        Ok((probs, var))
    }

    /// The mean logits of `passes` sampled passes on `xb` and the mean
    /// deterministic variance per example: the layers before the SVGP
    /// sample run once, and each sample is drawn in the marginal form
    /// `μ + ‖vL_d‖z` (the law of [`Vit::forward`]'s `μ + (vL_d)ε`, from `s`
    /// times fewer normals). O(cost(forward) + passes·B·N·s).
    fn sampled_mean_logits<R: Rng + ?Sized>(
        &self,
        xb: &Tensor,
        passes: usize,
        rng: &mut R,
    ) -> Result<(Tensor, Tensor)> {
        let Some((last, rest)) = self.blocks.split_last() else {
            return Err(Error::InvalidParameter {
                name: "depth",
                value: 0.0,
                expected: "at least 1",
            });
        };
        let Attn::Kep(att) = &last.attn else {
            let out = self.forward(xb, Some(rng))?;
            return Ok((out.logits, out.variance));
        };
        let mut h = self.embed(xb)?;
        for block in rest {
            h = self.block(block, &h)?;
        }
        let moments = att.moments(&layer_norm(&h, &last.ln1)?, true)?;
        let mut sum: Option<Tensor> = None;
        for _ in 0..passes {
            let a = att.output(&moments, Some(&mut *rng), true)?;
            let logits = self.finish(last, &h, &a)?;
            sum = Some(match sum {
                Some(s) => (s + logits)?,
                None => logits,
            });
        }
        let sum = sum.ok_or(Error::InvalidParameter {
            name: "samples",
            value: 0.0,
            expected: "at least 1",
        })?;
        Ok((
            (sum / passes as f64)?,
            moments.variance.flatten_from(1)?.mean(1)?,
        ))
    }

    /// Trains on `data` (features `patches·patch_dim` per row) with nncore's
    /// loop ([`train::fit`]) and this model's [`Vit::loss`].
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for another feature count; nncore's
    /// errors (bad hyper-parameters, a NaN loss naming its step).
    pub fn fit<R: Rng + ?Sized>(
        &self,
        data: &ClassificationData,
        config: &train::TrainConfig,
        rng: &mut R,
    ) -> Result<train::History> {
        let c = &self.config;
        if data.features() != c.patches * c.patch_dim || data.classes() != c.classes {
            return Err(crate::error::shape(
                "data (features, classes)",
                &[c.patches * c.patch_dim, c.classes],
                &[data.features(), data.classes()],
            ));
        }
        let dev = self.pos.device().clone();
        let dtype = self.pos.dtype();
        // The loss closure needs its own RNG for the samples: seeded from the caller's.
        let mut noise = rand_chacha_like(rng);
        let history = train::fit(
            &self.params,
            data.len(),
            config,
            rng,
            |idx| {
                let (xb, yb) = data.batch(idx, &dev).map_err(candle_core::Error::wrap)?;
                let xb = xb
                    .reshape((idx.len(), c.patches, c.patch_dim))?
                    .to_dtype(dtype)?;
                self.loss(&xb, &yb, &mut noise)
                    .map_err(candle_core::Error::wrap)
            },
            None,
        )?;
        Ok(history)
    }
}

/// A second RNG for the sampling noise during training, seeded from the
/// caller's (the batch order keeps using the caller's RNG).
fn rand_chacha_like<R: Rng + ?Sized>(rng: &mut R) -> rand_chacha::ChaCha8Rng {
    use rand::SeedableRng;
    rand_chacha::ChaCha8Rng::seed_from_u64(rng.next_u64())
}
