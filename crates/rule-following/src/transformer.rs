//! A small char-level decoder-only transformer on candle, trained through
//! nncore's loop with AdamW, with greedy decoding.
//!
//! Architecture (GPT-2 style, pre-LayerNorm): token embedding + positions
//! (learned, or fixed sinusoidal `PE(p, 2i) = sin(p / 10000^{2i/d})`,
//! `PE(p, 2i+1) = cos(·)`), `L` blocks `x ← x + Attn(LN(x))`,
//! `x ← x + W₂·GELU(W₁·LN(x))` with causal multi-head attention
//! `softmax(QKᵀ/√d_h + M)·V`, a final LayerNorm and an output layer tied to
//! the token embedding. Weights `N(0, 0.02²)`, biases 0, LayerNorm (1, 0).
//! Cost per sequence of length `T`: O(L·(T·d² + T²·d)).
//!
//! Training: the loss is the cross-entropy of the *target* characters and the
//! end token only (the official script trains on the whole padded string
//! with pad = EOS and no mask; the question's characters are unpredictable
//! and the padding carries nothing, so they are masked here: a stated deviation).

use crate::error::{Error, Result};
use crate::format::Rendered;
use candle_core::{D, DType, Device, Tensor, Var};
use nncore::params::ParamSet;
use nncore::train::{History, TrainConfig, fit};
use rand::Rng;

/// Position encodings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Positions {
    /// A learned table.
    Learned,
    /// Fixed sinusoids.
    Sinusoidal,
}

/// Shape of the model.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TransformerConfig {
    /// Width `d` (a multiple of `heads`).
    pub d_model: usize,
    /// Blocks `L ≥ 1`.
    pub layers: usize,
    /// Heads `≥ 1`.
    pub heads: usize,
    /// Hidden width of the MLP (GPT-2: `4d`).
    pub d_ff: usize,
    /// Longest sequence (prompt + target + end token) in characters.
    pub max_len: usize,
    /// Position encodings.
    pub positions: Positions,
}

impl Default for TransformerConfig {
    /// The quick model: `d = 64`, 2 layers, 4 heads, MLP 256, 32 positions, learned.
    fn default() -> Self {
        TransformerConfig {
            d_model: 64,
            layers: 2,
            heads: 4,
            d_ff: 256,
            max_len: 32,
            positions: Positions::Learned,
        }
    }
}

impl TransformerConfig {
    /// Checks the shape.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for a zero size or `d` not divisible by the heads.
    pub fn check(&self) -> Result<()> {
        let bad = |name, v: usize, expected| {
            Err(Error::InvalidParameter {
                name,
                value: v.to_string(),
                expected,
            })
        };
        if self.heads == 0 || self.d_model == 0 || !self.d_model.is_multiple_of(self.heads) {
            return bad("d_model", self.d_model, "a positive multiple of the heads");
        }
        if self.layers == 0 {
            return bad("layers", 0, "at least 1");
        }
        if self.d_ff == 0 {
            return bad("d_ff", 0, "at least 1");
        }
        if self.max_len < 2 {
            return bad("max_len", self.max_len, "at least 2");
        }
        if self.positions == Positions::Sinusoidal && !self.d_model.is_multiple_of(2) {
            return bad("d_model", self.d_model, "even for sinusoidal positions");
        }
        mlcore::check::alloc_len(
            &[self.d_model, self.d_ff.max(self.max_len), self.layers],
            4,
            "transformer weights",
        )?;
        Ok(())
    }
}

/// Characters of the model: `0`–`9 + = ( ) , : C # space` newline, and the end token.
pub const ALPHABET: &str = "0123456789+=(),:C# \n";

/// The end-of-text token id (after the alphabet's characters).
pub const EOS: u32 = ALPHABET.len() as u32;

fn encode(text: &str) -> Result<Vec<u32>> {
    text.chars()
        .map(|c| {
            ALPHABET
                .find(c)
                .map(|i| i as u32)
                .ok_or(Error::UnknownToken(c))
        })
        .collect()
}

struct Block {
    ln1: (Var, Var),
    qkv: (Var, Var),
    proj: (Var, Var),
    ln2: (Var, Var),
    fc1: (Var, Var),
    fc2: (Var, Var),
}

/// The model and its parameters.
pub struct TinyTransformer {
    config: TransformerConfig,
    params: ParamSet,
    tok: Var,
    pos: Tensor,
    blocks: Vec<Block>,
    ln_f: (Var, Var),
    device: Device,
}

fn sinusoids(t: usize, d: usize, dev: &Device) -> Result<Tensor> {
    let mut v = vec![0f32; t * d];
    for p in 0..t {
        for i in 0..d / 2 {
            let angle = p as f64 / 10000f64.powf(2.0 * i as f64 / d as f64);
            v[p * d + 2 * i] = angle.sin() as f32;
            v[p * d + 2 * i + 1] = angle.cos() as f32;
        }
    }
    Ok(Tensor::from_vec(v, (t, d), dev)?)
}

impl TinyTransformer {
    /// A freshly initialised model (weights drawn from `rng`). O(#parameters).
    ///
    /// # Errors
    /// [`TransformerConfig::check`]'s errors.
    pub fn new<R: Rng + ?Sized>(config: TransformerConfig, rng: &mut R) -> Result<Self> {
        config.check()?;
        let dev = Device::Cpu;
        let (d, f, v) = (config.d_model, config.d_ff, EOS as usize + 1);
        let mut params = ParamSet::new();
        let normal =
            |params: &mut ParamSet, name: String, shape: &[usize], rng: &mut R| -> Result<Var> {
                let t = nncore::init::normal(shape, 0.0, 0.02, rng, &dev)?;
                Ok(params.add(name, &t)?)
            };
        let tok = normal(&mut params, "tok".into(), &[v, d], rng)?;
        let pos = match config.positions {
            Positions::Learned => normal(&mut params, "pos".into(), &[config.max_len, d], rng)?
                .as_tensor()
                .clone(),
            Positions::Sinusoidal => sinusoids(config.max_len, d, &dev)?,
        };
        let ln = |params: &mut ParamSet, name: String| -> Result<(Var, Var)> {
            Ok((
                params.add(format!("{name}.g"), &Tensor::ones(d, DType::F32, &dev)?)?,
                params.add(format!("{name}.b"), &Tensor::zeros(d, DType::F32, &dev)?)?,
            ))
        };
        let mut blocks = Vec::with_capacity(config.layers);
        for l in 0..config.layers {
            let ln1 = ln(&mut params, format!("h{l}.ln1"))?;
            let ln2 = ln(&mut params, format!("h{l}.ln2"))?;
            let mut lin =
                |params: &mut ParamSet, name: &str, i: usize, o: usize| -> Result<(Var, Var)> {
                    let w = normal(params, format!("h{l}.{name}.w"), &[i, o], rng)?;
                    let b = params.add(
                        format!("h{l}.{name}.b"),
                        &Tensor::zeros(o, DType::F32, &dev)?,
                    )?;
                    Ok((w, b))
                };
            let qkv = lin(&mut params, "qkv", d, 3 * d)?;
            let proj = lin(&mut params, "proj", d, d)?;
            let fc1 = lin(&mut params, "fc1", d, f)?;
            let fc2 = lin(&mut params, "fc2", f, d)?;
            blocks.push(Block {
                ln1,
                qkv,
                proj,
                ln2,
                fc1,
                fc2,
            });
        }
        let ln_f = ln(&mut params, "ln_f".into())?;
        Ok(TinyTransformer {
            config,
            params,
            tok,
            pos,
            blocks,
            ln_f,
            device: dev,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &TransformerConfig {
        &self.config
    }

    /// Number of trainable scalars.
    pub fn num_parameters(&self) -> usize {
        self.params.trainable().iter().map(|v| v.elem_count()).sum()
    }

    /// Logits `[B, T, V]` of a batch of token ids `[B, T]`.
    fn forward(&self, ids: &Tensor) -> candle_core::Result<Tensor> {
        let (b, t) = ids.dims2()?;
        let (d, h) = (self.config.d_model, self.config.heads);
        let dh = d / h;
        let lin = |x: &Tensor, (w, bias): &(Var, Var)| {
            x.broadcast_matmul(w.as_tensor())?
                .broadcast_add(bias.as_tensor())
        };
        let ln =
            |x: &Tensor, (g, bias): &(Var, Var)| candle_nn::ops::layer_norm_slow(x, g, bias, 1e-5);
        let mut x = self
            .tok
            .as_tensor()
            .embedding(&ids.flatten_all()?)?
            .reshape((b, t, d))?
            .broadcast_add(&self.pos.narrow(0, 0, t)?)?;
        let mask: Vec<f32> = (0..t * t)
            .map(|k| {
                if k % t > k / t {
                    f32::NEG_INFINITY
                } else {
                    0.0
                }
            })
            .collect();
        let mask = Tensor::from_vec(mask, (t, t), &self.device)?;
        for blk in &self.blocks {
            let qkv = lin(&ln(&x, &blk.ln1)?, &blk.qkv)?;
            let split = |i: usize| -> candle_core::Result<Tensor> {
                qkv.narrow(2, i * d, d)?
                    .reshape((b, t, h, dh))?
                    .transpose(1, 2)?
                    .contiguous()
            };
            let (q, k, v) = (split(0)?, split(1)?, split(2)?);
            let scores = (q.matmul(&k.t()?)? / (dh as f64).sqrt())?.broadcast_add(&mask)?;
            let att = candle_nn::ops::softmax(&scores, D::Minus1)?.matmul(&v)?;
            let att = att.transpose(1, 2)?.contiguous()?.reshape((b, t, d))?;
            x = (x + lin(&att, &blk.proj)?)?;
            let m = lin(&lin(&ln(&x, &blk.ln2)?, &blk.fc1)?.gelu_erf()?, &blk.fc2)?;
            x = (x + m)?;
        }
        ln(&x, &self.ln_f)?.broadcast_matmul(&self.tok.as_tensor().t()?)
    }

    /// Token ids of prompt + target + end token, and the loss mask (1 on
    /// the positions that predict a target character or the end token).
    fn encode_example(&self, r: &Rendered) -> Result<(Vec<u32>, Vec<f32>)> {
        let p = encode(&r.prompt)?;
        let t = encode(&r.target)?;
        let len = p.len() + t.len() + 1;
        if p.is_empty() || len > self.config.max_len {
            return Err(Error::PromptBudget {
                len,
                budget: self.config.max_len,
            });
        }
        let mut ids = p.clone();
        ids.extend(&t);
        ids.push(EOS);
        let mut mask = vec![0f32; len - 1];
        for m in mask.iter_mut().skip(p.len() - 1) {
            *m = 1.0;
        }
        Ok((ids, mask))
    }

    /// Trains on rendered examples with nncore's loop (AdamW, the config's
    /// schedule); returns nncore's history. Cost O(steps · batch · L·(T d² + T² d)).
    ///
    /// # Errors
    /// [`Error::Empty`] for no example; [`Error::PromptBudget`] for an
    /// example longer than `max_len`; [`Error::UnknownToken`]; nncore's errors.
    pub fn train<R: Rng + ?Sized>(
        &mut self,
        data: &[Rendered],
        config: &TrainConfig,
        rng: &mut R,
    ) -> Result<History> {
        if data.is_empty() {
            return Err(Error::Empty("training examples"));
        }
        let encoded = data
            .iter()
            .map(|r| self.encode_example(r))
            .collect::<Result<Vec<_>>>()?;
        let dev = self.device.clone();
        let history = fit(
            &self.params,
            encoded.len(),
            config,
            rng,
            |idx| {
                let t = idx.iter().map(|&i| encoded[i].0.len()).max().unwrap_or(2);
                let (mut inp, mut tgt, mut msk) = (Vec::new(), Vec::new(), Vec::new());
                for &i in idx {
                    let (ids, mask) = &encoded[i];
                    for k in 0..t - 1 {
                        inp.push(ids.get(k).copied().unwrap_or(EOS));
                        tgt.push(ids.get(k + 1).copied().unwrap_or(EOS));
                        msk.push(mask.get(k).copied().unwrap_or(0.0));
                    }
                }
                let n = idx.len();
                let inp = Tensor::from_vec(inp, (n, t - 1), &dev)?;
                let tgt = Tensor::from_vec(tgt, n * (t - 1), &dev)?;
                let msk = Tensor::from_vec(msk, n * (t - 1), &dev)?;
                let logits = self
                    .forward(&inp)?
                    .reshape((n * (t - 1), EOS as usize + 1))?;
                let logp = candle_nn::ops::log_softmax(&logits, D::Minus1)?;
                let picked = logp.gather(&tgt.unsqueeze(1)?, 1)?.squeeze(1)?;
                let total = msk.sum_all()?;
                (picked * &msk)?.sum_all()?.neg()?.broadcast_div(&total)
            },
            None,
        )?;
        Ok(history)
    }

    /// Greedy decoding of a batch of prompts: appends the arg-max character
    /// until the end token or `max_len`. Prompts are grouped by length and
    /// decoded together. O(#prompts · max_len · forward).
    ///
    /// # Errors
    /// [`Error::PromptBudget`] for an empty prompt or one of `max_len` or
    /// more characters; [`Error::UnknownToken`].
    pub fn generate(&self, prompts: &[String]) -> Result<Vec<String>> {
        let mut out = vec![String::new(); prompts.len()];
        let mut groups: std::collections::BTreeMap<usize, Vec<(usize, Vec<u32>)>> =
            Default::default();
        for (i, p) in prompts.iter().enumerate() {
            let ids = encode(p)?;
            if ids.is_empty() || ids.len() >= self.config.max_len {
                return Err(Error::PromptBudget {
                    len: ids.len(),
                    budget: self.config.max_len - 1,
                });
            }
            groups.entry(ids.len()).or_default().push((i, ids));
        }
        let alphabet: Vec<char> = ALPHABET.chars().collect();
        for (_, group) in groups {
            let mut seqs: Vec<Vec<u32>> = group.iter().map(|g| g.1.clone()).collect();
            let mut done = vec![false; seqs.len()];
            while seqs[0].len() < self.config.max_len && done.iter().any(|d| !d) {
                let t = seqs[0].len();
                let flat: Vec<u32> = seqs.iter().flatten().copied().collect();
                let ids = Tensor::from_vec(flat, (seqs.len(), t), &self.device)?;
                let last = self.forward(&ids)?.narrow(1, t - 1, 1)?.squeeze(1)?;
                let next: Vec<u32> = last.argmax(D::Minus1)?.to_vec1()?;
                for ((s, d), &nx) in seqs.iter_mut().zip(done.iter_mut()).zip(&next) {
                    s.push(nx);
                    *d |= nx == EOS;
                }
            }
            for ((i, p), s) in group.iter().zip(&seqs) {
                out[*i] = s[p.len()..]
                    .iter()
                    .take_while(|&&c| c != EOS)
                    .map(|&c| alphabet[c as usize])
                    .collect();
            }
        }
        Ok(out)
    }
}

impl crate::Solver for TinyTransformer {
    fn answer(&mut self, prompt: &str) -> Result<String> {
        Ok(self.generate(&[prompt.to_string()])?.remove(0))
    }
}
