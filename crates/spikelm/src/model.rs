//! Spike-driven character transformers: a BERT-style masked-LM encoder and
//! a causal LM, both pre-LayerNorm, each with an `ann` switch.
//!
//! ```text
//! e = Embed(ids) + P                          [B, L, d]
//! x = repeat_T(e)                             [T, B, L, d]   (the input repeated T times)
//! x ← x + SpikeAttn(LN(x));  x ← x + SpikeLinear₂(GELU(SpikeLinear₁(LN(x))))   (per block)
//! logits = LN(mean_t x)·Eᵀ                    (mean over T; output tied to the embedding)
//! ```
//!
//! In ANN mode `T = 1` and the layers are plain. Cost per batch
//! O(T·B·layers·(L·d·d_ff + L²·d)) plus one host copy per neuron and step.
//! Training is nncore's loop (AdamW) on windows of the token stream; the
//! amplitudes are set by the explicit first-batch step [`SpikeLm::initialize`].

use crate::corpus::{Vocab, check_mask_prob, mask_tokens};
use crate::error::{Error, Result};
use crate::layers::{SpikeLinear, SpikeSelfAttention, SpikeSettings};
use crate::stats::SpikeStats;
use candle_core::{D, DType, Device, Tensor, Var};
use nncore::params::ParamSet;
use nncore::train::{History, TrainConfig, fit};
use rand::{Rng, RngExt, SeedableRng};

/// What the model predicts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Objective {
    /// BERT masked LM: bidirectional attention, predict the selected
    /// characters (selection probability `mask_prob`, 0.15; 80/10/10 corruption).
    MaskedLm {
        /// Selection probability in (0, 1).
        mask_prob: f64,
    },
    /// Next-character prediction with a causal mask.
    Causal,
}

/// The model's shape and mode.
#[derive(Debug, Clone, PartialEq)]
pub struct LmConfig {
    /// Token ids (characters and `[MASK]`), ≥ 2.
    pub vocab: usize,
    /// Width `d`, a multiple of `heads`.
    pub d_model: usize,
    /// Blocks ≥ 1.
    pub layers: usize,
    /// Heads ≥ 1.
    pub heads: usize,
    /// FFN width ≥ 1.
    pub d_ff: usize,
    /// Context length ≥ 2.
    pub context: usize,
    /// Masked or causal.
    pub objective: Objective,
    /// Spiking settings, or `None` for the ANN.
    pub spiking: Option<SpikeSettings>,
}

impl LmConfig {
    /// The issue's encoder: `d = 64`, 2 layers, 4 heads, FFN 256, context 64, masked LM at 0.15, ANN.
    pub fn small(vocab: usize) -> Self {
        LmConfig {
            vocab,
            d_model: 64,
            layers: 2,
            heads: 4,
            d_ff: 256,
            context: 64,
            objective: Objective::MaskedLm { mask_prob: 0.15 },
            spiking: None,
        }
    }

    /// Checks every field.
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] naming the first bad field; the neuron's errors.
    pub fn check(&self) -> Result<()> {
        let bad = |name, v: usize, expected| {
            Err(Error::InvalidParameter {
                name,
                value: v.to_string(),
                expected,
            })
        };
        if self.vocab < 2 {
            return bad("vocab", self.vocab, "at least 2");
        }
        if self.heads == 0 || self.d_model == 0 || !self.d_model.is_multiple_of(self.heads) {
            return bad("d_model", self.d_model, "a positive multiple of the heads");
        }
        if self.layers == 0 {
            return bad("layers", 0, "at least 1");
        }
        if self.d_ff == 0 {
            return bad("d_ff", 0, "at least 1");
        }
        if self.context < 2 {
            return bad("context", self.context, "at least 2");
        }
        if let Objective::MaskedLm { mask_prob } = self.objective {
            check_mask_prob(mask_prob)?;
        }
        if let Some(s) = &self.spiking {
            crate::spike::ElasticBiSpike::new(s.neuron, s.alpha.clone())?;
        }
        mlcore::check::alloc_len(
            &[
                self.d_model,
                self.d_ff.max(self.vocab).max(self.context),
                self.layers,
            ],
            4,
            "model weights",
        )?;
        Ok(())
    }

    fn t_steps(&self) -> usize {
        self.spiking.as_ref().map_or(1, |s| s.neuron.t_steps)
    }
}

#[derive(Debug)]
struct Block {
    ln1: (Var, Var),
    attn: SpikeSelfAttention,
    ln2: (Var, Var),
    fc1: SpikeLinear,
    fc2: SpikeLinear,
}

/// A spike-driven (or ANN) character transformer.
#[derive(Debug)]
pub struct SpikeLm {
    config: LmConfig,
    params: ParamSet,
    tok: Var,
    pos: Var,
    blocks: Vec<Block>,
    ln_f: (Var, Var),
    initialized: bool,
}

/// Validation figures of [`SpikeLm::evaluate`].
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Evaluation {
    /// Mean cross-entropy in bits per predicted character.
    pub bits_per_char: f64,
    /// Predicted characters.
    pub predicted: usize,
    /// Spike and operation counts over the evaluation.
    pub stats: SpikeStats,
}

fn layer_norm(x: &Tensor, (g, b): &(Var, Var)) -> candle_core::Result<Tensor> {
    candle_nn::ops::layer_norm_slow(x, g, b, 1e-5)
}

impl SpikeLm {
    /// A freshly initialised model (weights `N(0, 0.02²)` from `rng`). O(#parameters).
    ///
    /// # Errors
    /// [`LmConfig::check`]'s errors.
    pub fn new<R: Rng + ?Sized>(config: LmConfig, rng: &mut R) -> Result<Self> {
        config.check()?;
        let dev = Device::Cpu;
        let (d, v) = (config.d_model, config.vocab);
        let mut params = ParamSet::new();
        let tok = params.add("tok", &nncore::init::normal(&[v, d], 0.0, 0.02, rng, &dev)?)?;
        let pos = params.add(
            "pos",
            &nncore::init::normal(&[config.context, d], 0.0, 0.02, rng, &dev)?,
        )?;
        let ln = |params: &mut ParamSet, name: String| -> Result<(Var, Var)> {
            Ok((
                params.add(format!("{name}.g"), &Tensor::ones(d, DType::F32, &dev)?)?,
                params.add(format!("{name}.b"), &Tensor::zeros(d, DType::F32, &dev)?)?,
            ))
        };
        let causal = config.objective == Objective::Causal;
        let s = config.spiking.as_ref();
        let mut blocks = Vec::with_capacity(config.layers);
        for l in 0..config.layers {
            let ln1 = ln(&mut params, format!("h{l}.ln1"))?;
            let attn = SpikeSelfAttention::new(
                &mut params,
                &format!("h{l}.attn"),
                d,
                config.heads,
                causal,
                s,
                rng,
            )?;
            let ln2 = ln(&mut params, format!("h{l}.ln2"))?;
            let fc1 = SpikeLinear::new(&mut params, &format!("h{l}.fc1"), d, config.d_ff, s, rng)?;
            let fc2 = SpikeLinear::new(&mut params, &format!("h{l}.fc2"), config.d_ff, d, s, rng)?;
            blocks.push(Block {
                ln1,
                attn,
                ln2,
                fc1,
                fc2,
            });
        }
        let ln_f = ln(&mut params, "ln_f".into())?;
        let initialized = config.spiking.is_none()
            || matches!(
                config.spiking.as_ref().map(|s| &s.alpha),
                Some(crate::spike::AlphaPolicy::Fixed(_))
                    | Some(crate::spike::AlphaPolicy::MeanAbs {
                        freeze_after_first: false,
                        ..
                    })
            );
        Ok(SpikeLm {
            config,
            params,
            tok,
            pos,
            blocks,
            ln_f,
            initialized,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &LmConfig {
        &self.config
    }

    /// The parameters (weights, and learnable amplitudes after [`Self::initialize`]).
    pub fn params(&self) -> &ParamSet {
        &self.params
    }

    /// Whether the amplitudes are set (always, for the ANN and fixed or per-batch policies).
    pub fn is_initialized(&self) -> bool {
        self.initialized
    }

    /// Checks a `[B, L]` batch of ids (row-major) and makes a tensor of it.
    fn ids_tensor(&self, ids: &[u32], batch: usize) -> Result<Tensor> {
        if batch == 0 || ids.is_empty() || !ids.len().is_multiple_of(batch) {
            return Err(Error::ShapeMismatch {
                what: "token ids",
                expected: format!("a positive multiple of the batch {batch}"),
                got: ids.len().to_string(),
            });
        }
        let l = ids.len() / batch;
        if l > self.config.context {
            return Err(Error::ShapeMismatch {
                what: "token ids",
                expected: format!("sequences of at most {} ids", self.config.context),
                got: l.to_string(),
            });
        }
        if let Some(&id) = ids.iter().find(|&&i| i as usize >= self.config.vocab) {
            return Err(Error::TokenOutOfRange {
                id,
                vocab: self.config.vocab,
            });
        }
        Ok(Tensor::from_vec(ids.to_vec(), (batch, l), &Device::Cpu)?)
    }

    /// The final hidden states `LN(mean_t x)` `[B, L, d]` and the counts.
    fn hidden(&self, ids: &Tensor, init: bool) -> Result<(Tensor, SpikeStats)> {
        let (b, l) = ids.dims2()?;
        let (d, t) = (self.config.d_model, self.config.t_steps());
        let e = self
            .tok
            .as_tensor()
            .embedding(&ids.flatten_all()?)?
            .reshape((b, l, d))?
            .broadcast_add(&self.pos.as_tensor().narrow(0, 0, l)?)?;
        let mut x = e.unsqueeze(0)?.broadcast_as((t, b, l, d))?.contiguous()?;
        let mut stats = SpikeStats::default();
        for blk in &self.blocks {
            let (a, s) = blk.attn.run(&layer_norm(&x, &blk.ln1)?, init)?;
            stats += s;
            x = (x + a)?;
            let (h, s1) = blk.fc1.run(&layer_norm(&x, &blk.ln2)?, init)?;
            let (f, s2) = blk.fc2.run(&h.gelu_erf()?, init)?;
            stats += s1 + s2;
            x = (x + f)?;
        }
        Ok((layer_norm(&x.mean(0)?, &self.ln_f)?, stats))
    }

    fn run(&self, ids: &Tensor, init: bool) -> Result<(Tensor, SpikeStats)> {
        let (x, mut stats) = self.hidden(ids, init)?;
        let (b, l, d) = x.dims3()?;
        stats.mac_ops += (b * l * d * self.config.vocab) as u64;
        let logits = x.broadcast_matmul(&self.tok.as_tensor().t()?)?;
        Ok((logits, stats))
    }

    /// The final hidden states `[B, L, d]` of a batch (the encoder's output
    /// before the tied output layer: LayerNorm of the mean over `T`) and the
    /// counts. Needs [`Self::initialize`] first.
    pub(crate) fn encode(&self, ids: &[u32], batch: usize) -> Result<(Tensor, SpikeStats)> {
        if !self.initialized {
            return Err(Error::Uninitialized);
        }
        self.hidden(&self.ids_tensor(ids, batch)?, false)
    }

    /// Mutable parameters (a fine-tuning head registers its weights here).
    pub(crate) fn params_mut(&mut self) -> &mut ParamSet {
        &mut self.params
    }

    /// Logits `[B, L, V]` of a batch of `batch` sequences (`ids` row-major,
    /// `L ≤ context`) and the spike and operation counts.
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`], [`Error::TokenOutOfRange`]; [`Error::Uninitialized`]
    /// before [`Self::initialize`] for a first-batch amplitude policy.
    pub fn forward(&self, ids: &[u32], batch: usize) -> Result<(Tensor, SpikeStats)> {
        if !self.initialized {
            return Err(Error::Uninitialized);
        }
        self.run(&self.ids_tensor(ids, batch)?, false)
    }

    /// The explicit first-batch step: sets every neuron's amplitudes
    /// `α_t = k·mean|u_t|` from this batch, layer by layer in forward order,
    /// and registers learnable amplitudes as parameters. O(one forward pass).
    ///
    /// # Errors
    /// As [`Self::forward`].
    pub fn initialize(&mut self, ids: &[u32], batch: usize) -> Result<()> {
        let t = self.ids_tensor(ids, batch)?;
        self.run(&t, true)?;
        if !self.initialized {
            for (l, blk) in self.blocks.iter().enumerate() {
                blk.attn
                    .register_alpha(&mut self.params, &format!("h{l}.attn"))?;
                blk.fc1
                    .register_alpha(&mut self.params, &format!("h{l}.fc1"))?;
                blk.fc2
                    .register_alpha(&mut self.params, &format!("h{l}.fc2"))?;
            }
        }
        self.initialized = true;
        Ok(())
    }

    /// One example: model input and (target, weight) per position.
    fn example<R: Rng + ?Sized>(
        &self,
        window: &[u32],
        vocab: &Vocab,
        rng: &mut R,
    ) -> Result<(Vec<u32>, Vec<u32>, Vec<f32>)> {
        match self.config.objective {
            Objective::MaskedLm { mask_prob } => {
                let (inp, sel) = mask_tokens(window, mask_prob, vocab, rng)?;
                let w = sel.iter().map(|&s| f32::from(u8::from(s))).collect();
                Ok((inp, window.to_vec(), w))
            }
            Objective::Causal => {
                let n = window.len() - 1;
                Ok((window[..n].to_vec(), window[1..].to_vec(), vec![1.0; n]))
            }
        }
    }

    fn window_len(&self) -> usize {
        match self.config.objective {
            Objective::MaskedLm { .. } => self.config.context,
            Objective::Causal => self.config.context + 1,
        }
    }

    fn check_tokens(&self, tokens: &[u32], vocab: &Vocab) -> Result<()> {
        if vocab.len() != self.config.vocab {
            return Err(Error::ShapeMismatch {
                what: "vocabulary",
                expected: self.config.vocab.to_string(),
                got: vocab.len().to_string(),
            });
        }
        if tokens.len() < self.window_len() {
            return Err(Error::Empty("token stream shorter than one window"));
        }
        if let Some(&id) = tokens.iter().find(|&&i| i >= vocab.mask_id()) {
            return Err(Error::TokenOutOfRange {
                id,
                vocab: vocab.len(),
            });
        }
        Ok(())
    }

    /// Cross-entropy (nats) of a batch, weighted by `w`, and its counts.
    fn batch_loss(
        &self,
        batch: &[(Vec<u32>, Vec<u32>, Vec<f32>)],
        init: bool,
    ) -> Result<(Tensor, Tensor, SpikeStats)> {
        let n = batch.len();
        let l = batch[0].0.len();
        let dev = Device::Cpu;
        let inp: Vec<u32> = batch.iter().flat_map(|e| e.0.iter().copied()).collect();
        let tgt: Vec<u32> = batch.iter().flat_map(|e| e.1.iter().copied()).collect();
        let w: Vec<f32> = batch.iter().flat_map(|e| e.2.iter().copied()).collect();
        let (logits, stats) = self.run(&Tensor::from_vec(inp, (n, l), &dev)?, init)?;
        let logp =
            candle_nn::ops::log_softmax(&logits.reshape((n * l, self.config.vocab))?, D::Minus1)?;
        let picked = logp
            .gather(&Tensor::from_vec(tgt, (n * l, 1), &dev)?, 1)?
            .squeeze(1)?;
        let w = Tensor::from_vec(w, n * l, &dev)?;
        let nll_sum = (picked * &w)?.sum_all()?.neg()?;
        Ok((nll_sum, w.sum_all()?, stats))
    }

    /// Trains on `windows` random windows of the token stream (one epoch of
    /// `config`; masks redrawn per batch), after the first-batch amplitude
    /// step when still needed. Returns nncore's history. O(windows · forward).
    ///
    /// # Errors
    /// [`Error::ShapeMismatch`] for a vocabulary of another size;
    /// [`Error::Empty`] for a stream shorter than one window or `windows = 0`;
    /// [`Error::TokenOutOfRange`] (including `[MASK]` in the stream); nncore's errors.
    pub fn train<R: Rng + ?Sized>(
        &mut self,
        tokens: &[u32],
        vocab: &Vocab,
        windows: usize,
        config: &TrainConfig,
        rng: &mut R,
    ) -> Result<History> {
        self.check_tokens(tokens, vocab)?;
        config.check()?;
        if windows == 0 {
            return Err(Error::Empty("training windows"));
        }
        let wl = self.window_len();
        let starts: Vec<usize> = (0..windows)
            .map(|_| rng.random_range(0..=tokens.len() - wl))
            .collect();
        let mut mask_rng = rand_chacha::ChaCha8Rng::seed_from_u64(rng.random());
        if !self.initialized {
            let first: Vec<_> = starts
                .iter()
                .take(config.batch_size)
                .map(|&s| self.example(&tokens[s..s + wl], vocab, &mut mask_rng))
                .collect::<Result<_>>()?;
            let ids: Vec<u32> = first.iter().flat_map(|e| e.0.iter().copied()).collect();
            self.initialize(&ids, first.len())?;
        }
        let this = &*self;
        let history = fit(
            &this.params,
            windows,
            config,
            rng,
            |idx| {
                let batch: Vec<_> = idx
                    .iter()
                    .map(|&i| {
                        this.example(&tokens[starts[i]..starts[i] + wl], vocab, &mut mask_rng)
                    })
                    .collect::<Result<_>>()
                    .map_err(candle_core::Error::wrap)?;
                let (nll, count, _) = this
                    .batch_loss(&batch, false)
                    .map_err(candle_core::Error::wrap)?;
                nll.broadcast_div(&count.clamp(1.0, f64::INFINITY)?)
            },
            None,
        )?;
        Ok(history)
    }

    /// Bits per predicted character on consecutive, non-overlapping windows
    /// of the stream (at most `max_windows`), masks drawn from `seed` (the
    /// same 80/10/10 corruption as training) for the masked LM; and the
    /// spike and operation counts. O(windows · forward).
    ///
    /// # Errors
    /// As [`Self::train`]; [`Error::Uninitialized`]; [`Error::Empty`] when nothing is predicted.
    pub fn evaluate(
        &self,
        tokens: &[u32],
        vocab: &Vocab,
        max_windows: usize,
        seed: u64,
    ) -> Result<Evaluation> {
        self.check_tokens(tokens, vocab)?;
        if !self.initialized {
            return Err(Error::Uninitialized);
        }
        let wl = self.window_len();
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let examples: Vec<_> = tokens
            .chunks_exact(wl)
            .take(max_windows)
            .map(|w| self.example(w, vocab, &mut rng))
            .collect::<Result<_>>()?;
        let (mut nll, mut count, mut stats) = (0f64, 0f64, SpikeStats::default());
        for chunk in examples.chunks(32) {
            let (s, c, st) = self.batch_loss(chunk, false)?;
            nll += f64::from(s.to_scalar::<f32>()?);
            count += f64::from(c.to_scalar::<f32>()?);
            stats += st;
        }
        if count == 0.0 {
            return Err(Error::Empty("predicted characters"));
        }
        Ok(Evaluation {
            bits_per_char: nll / count / std::f64::consts::LN_2,
            predicted: count as usize,
            stats,
        })
    }
}
