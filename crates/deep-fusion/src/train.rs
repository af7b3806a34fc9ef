//! Training after fusion: a block-structured network whose blocks are candle
//! `Var`s, trained with nncore's optimisers (AdamW, SGD with momentum), with
//! frozen or free cross blocks, block-diagonal execution while the cross
//! blocks are frozen at zero, FLOP accounting, and the per-layer
//! learning-rate rule after fusion ([`lr_after_fusion`]).
//!
//! ## The learning-rate rule after fusion (derived here)
//!
//! Let `F = Σ cᵢ fᵢ` with `Σ cᵢ = 1`, every part `fᵢ = f` (self-fusion),
//! cross blocks frozen at zero, loss `ℓ(F(x))`. Since `F = f` at the fused
//! point, with `g = ∇_θ ℓ(f(x))` the small network's gradient:
//!
//! * an input or hidden parameter `θᵢ` of part i (weights and biases) gets
//!   `∂ℓ/∂θᵢ = ℓ'(F)·cᵢ ∂f/∂θ = cᵢ g`;
//! * the output weights of part i are `Vᵢ = cᵢ W_L` and get
//!   `∂ℓ/∂Vᵢ = δ hᵢᵀ = g_{W_L}` (the full gradient);
//! * the output bias `b_L` is shared and gets `g_{b_L}`.
//!
//! For the fused network to stay at `self_fuse(f_t)` while `f` trains at
//! rate `η`, part i needs `θᵢ ← θᵢ − η g` and `Vᵢ ← Vᵢ − cᵢ η g`. Hence:
//!
//! | parameter | SGD (`θ ← θ − η'(∇ + λ'θ)`, momentum linear) | AdamW (`θ ← θ(1 − η'λ') − η' m̂/(√v̂ + ε')`) |
//! |---|---|---|
//! | input/hidden of part i | `η' = η/cᵢ`, `λ' = cᵢλ` | `η' = η`, `ε' = cᵢε`, `λ' = λ` |
//! | output weights of part i | `η' = cᵢη`, `λ' = λ/cᵢ` | `η' = cᵢη`, `ε' = ε`, `λ' = λ/cᵢ` |
//! | output bias | `η`, `λ` | `η`, `ε`, `λ` |
//!
//! For the average of two (`cᵢ = ½`): SGD `2η` on input and hidden layers,
//! `η/2` on the output weights, `η` on the output bias; Adam keeps `η` on the
//! hidden layers (Adam is invariant to the gradient scale `cᵢ` except through
//! ε, which is rescaled to `cᵢε` so the rule is exact, not only up to ε) and
//! `η/2` on the output weights. A uniform `2η` (the spec's reconstructed rule)
//! is wrong on the output layer: it moves `Vᵢ` by `2η g` where `cᵢη g = η g/2`
//! is needed (4× too far), so the fused network drifts off `self_fuse(f_t)`
//! (tested). Free cross blocks of row part i use part i's
//! hidden rate (a choice: the rule says nothing about parameters the small
//! network does not have).

use crate::error::{Error, Result};
use crate::fuse::Fused;
use crate::mlp::{Activation, Dense, Mlp, check_finite};
use candle_core::{DType, Tensor, Var};
use ndarray::Array2;
use nncore::optim::{Optimizer, OptimizerKind};

/// One learning-rate group: `η'`, and multipliers of the optimiser's ε and
/// weight decay λ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rate {
    /// Learning rate `η'`.
    pub lr: f64,
    /// `ε' = eps_scale·ε` (AdamW; ignored by SGD).
    pub eps_scale: f64,
    /// `λ' = decay_scale·λ`.
    pub decay_scale: f64,
}

impl Rate {
    /// `η` with ε and λ unchanged.
    pub fn plain(lr: f64) -> Self {
        Self {
            lr,
            eps_scale: 1.0,
            decay_scale: 1.0,
        }
    }
}

/// Per-layer rates of a k-part network.
#[derive(Debug, Clone, PartialEq)]
pub struct LayerRates {
    /// Input and hidden layers of part i (weights, biases, and the free cross
    /// blocks of row part i).
    pub hidden: Vec<Rate>,
    /// Output weights of part i.
    pub output_weight: Vec<Rate>,
    /// The shared output bias.
    pub output_bias: Rate,
}

impl LayerRates {
    /// The same plain rate `η` everywhere, for `k` parts.
    pub fn uniform(k: usize, lr: f64) -> Self {
        Self {
            hidden: vec![Rate::plain(lr); k],
            output_weight: vec![Rate::plain(lr); k],
            output_bias: Rate::plain(lr),
        }
    }
}

fn check_lr(lr: f64) -> Result<()> {
    if lr.is_finite() && lr > 0.0 {
        Ok(())
    } else {
        Err(Error::InvalidParameter {
            name: "learning rate",
            value: lr,
            expected: "a finite value > 0",
        })
    }
}

/// The per-layer rates after fusion with combination weights `c` (see the
/// module docs for the derivation) for an optimiser of `kind` at base rate
/// `η = lr`. O(k).
///
/// # Errors
/// [`Error::EmptyNetwork`] for no weights; [`Error::InvalidCombineWeight`]
/// for a weight that is not finite and positive or weights whose sum is not
/// 1 (within 1e-12: the rule reproduces `f` only if `F = f`, so `Sum` is
/// refused); [`Error::InvalidParameter`] for `lr ≤ 0`.
pub fn lr_after_fusion(c: &[f64], kind: &OptimizerKind, lr: f64) -> Result<LayerRates> {
    check_lr(lr)?;
    if c.is_empty() {
        return Err(Error::EmptyNetwork {
            what: "no combination weights",
        });
    }
    if let Some(&bad) = c.iter().find(|v| !(v.is_finite() && **v > 0.0)) {
        return Err(Error::InvalidCombineWeight(bad));
    }
    let sum: f64 = c.iter().sum();
    if (sum - 1.0).abs() > 1e-12 {
        return Err(Error::InvalidCombineWeight(sum));
    }
    let adam = matches!(kind, OptimizerKind::AdamW { .. });
    let hidden = c
        .iter()
        .map(|&ci| {
            if adam {
                Rate {
                    lr,
                    eps_scale: ci,
                    decay_scale: 1.0,
                }
            } else {
                Rate {
                    lr: lr / ci,
                    eps_scale: 1.0,
                    decay_scale: ci,
                }
            }
        })
        .collect();
    let output_weight = c
        .iter()
        .map(|&ci| Rate {
            lr: ci * lr,
            eps_scale: 1.0,
            decay_scale: 1.0 / ci,
        })
        .collect();
    Ok(LayerRates {
        hidden,
        output_weight,
        output_bias: Rate::plain(lr),
    })
}

/// How a hidden layer is executed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Execution {
    /// Block-diagonal where the cross blocks are frozen and zero, dense
    /// elsewhere (the default).
    Auto,
    /// Always the dense `[Σw × Σw]` matrix (2× the FLOPs of block-diagonal
    /// for two equal parts).
    Dense,
}

/// One layer as a grid of blocks `W_{ij}` (`rows[i] × cols[j]`) and stacked
/// biases `b_i`.
#[derive(Debug, Clone)]
struct BlockLayer {
    rows: Vec<usize>,
    cols: Vec<usize>,
    w: Vec<Vec<Var>>,
    b: Vec<Var>,
    /// `trainable[i][j]` for weight blocks.
    trainable: Vec<Vec<bool>>,
    /// Whether every off-diagonal block is known to be exactly zero.
    cross_zero: bool,
}

impl BlockLayer {
    fn is_square_grid(&self) -> bool {
        self.rows.len() == self.cols.len() && self.rows.len() > 1
    }
    fn cross_frozen(&self) -> bool {
        (0..self.rows.len()).all(|i| (0..self.cols.len()).all(|j| i == j || !self.trainable[i][j]))
    }
    fn block_diagonal(&self, exec: Execution) -> bool {
        exec == Execution::Auto && self.is_square_grid() && self.cross_zero && self.cross_frozen()
    }
}

/// Activations: whole, or split into parts.
enum Act {
    Full(Tensor),
    Parts(Vec<Tensor>),
}

impl Act {
    fn full(self) -> Result<Tensor> {
        Ok(match self {
            Act::Full(t) => t,
            Act::Parts(p) if p.len() == 1 => p.into_iter().next().expect("one part"),
            Act::Parts(p) => Tensor::cat(&p, 1)?,
        })
    }
    fn parts(self, widths: &[usize]) -> Result<Vec<Tensor>> {
        Ok(match self {
            Act::Parts(p) => p,
            Act::Full(t) => {
                let mut off = 0;
                let mut out = Vec::with_capacity(widths.len());
                for &w in widths {
                    out.push(t.narrow(1, off, w)?);
                    off += w;
                }
                out
            }
        })
    }
}

/// A network stored as blocks: the trainable form of a [`Fused`] network
/// (or of a plain [`Mlp`], one block per layer).
#[derive(Debug, Clone)]
pub struct BlockMlp {
    layers: Vec<BlockLayer>,
    act: Activation,
    dtype: DType,
}

impl BlockMlp {
    /// A plain network as one block per layer.
    ///
    /// # Errors
    /// [`Error::Candle`].
    pub fn from_mlp(net: &Mlp) -> Result<Self> {
        let layers = net
            .layers()
            .iter()
            .map(|l| {
                Ok(BlockLayer {
                    rows: vec![l.out_dim()],
                    cols: vec![l.in_dim()],
                    w: vec![vec![Var::from_tensor(l.weight())?]],
                    b: vec![Var::from_tensor(l.bias())?],
                    trainable: vec![vec![true]],
                    cross_zero: true,
                })
            })
            .collect::<Result<_>>()?;
        Ok(Self {
            layers,
            act: net.activation(),
            dtype: net.dtype(),
        })
    }

    /// The fused network cut into its blocks; cross blocks frozen iff
    /// `fused.freeze_cross`. O(#params).
    ///
    /// # Errors
    /// [`Error::Candle`].
    pub fn from_fused(fused: &Fused) -> Result<Self> {
        let net = &fused.mlp;
        let depth = net.depth();
        if depth == 1 {
            return Self::from_mlp(net);
        }
        let d_in = net.sizes()[0];
        let d_out = net.sizes()[depth];
        let mut layers = Vec::with_capacity(depth);
        for (l, dense) in net.layers().iter().enumerate() {
            let rows = if l + 1 == depth {
                vec![d_out]
            } else {
                fused.parts[l].clone()
            };
            let cols = if l == 0 {
                vec![d_in]
            } else {
                fused.parts[l - 1].clone()
            };
            let mut w = Vec::with_capacity(rows.len());
            let mut trainable = Vec::with_capacity(rows.len());
            let mut r0 = 0;
            for (i, &r) in rows.iter().enumerate() {
                let mut row = Vec::with_capacity(cols.len());
                let mut tr = Vec::with_capacity(cols.len());
                let mut c0 = 0;
                for (j, &c) in cols.iter().enumerate() {
                    let blk = dense
                        .weight()
                        .narrow(0, r0, r)?
                        .narrow(1, c0, c)?
                        .contiguous()?;
                    row.push(Var::from_tensor(&blk)?);
                    let cross = rows.len() > 1 && cols.len() > 1 && i != j;
                    tr.push(!(cross && fused.freeze_cross));
                    c0 += c;
                }
                w.push(row);
                trainable.push(tr);
                r0 += r;
            }
            let mut b = Vec::with_capacity(rows.len());
            let mut r0 = 0;
            for &r in &rows {
                b.push(Var::from_tensor(
                    &dense.bias().narrow(0, r0, r)?.contiguous()?,
                )?);
                r0 += r;
            }
            layers.push(BlockLayer {
                rows,
                cols,
                w,
                b,
                trainable,
                cross_zero: fused.cross_zero,
            });
        }
        Ok(Self {
            layers,
            act: net.activation(),
            dtype: net.dtype(),
        })
    }

    /// The number of parts k (blocks per side of a hidden layer).
    pub fn num_parts(&self) -> usize {
        self.layers[0].rows.len()
    }

    /// Sets which weight blocks of each hidden layer train: `mask[h][(i, j)]`
    /// for hidden-to-hidden layer `h` (layer `h + 1`), `true` = trainable.
    ///
    /// # Errors
    /// [`Error::MaskShape`] for a wrong number of layers (reported with
    /// `layer` = the count given) or a block grid of the wrong size.
    pub fn set_trainable(&mut self, mask: &[Array2<bool>]) -> Result<()> {
        let hidden = self.layers.len().saturating_sub(2);
        let k = self.num_parts();
        if mask.len() != hidden {
            return Err(Error::MaskShape {
                layer: mask.len(),
                expected: k,
                rows: mask.len(),
                cols: hidden,
            });
        }
        for (h, m) in mask.iter().enumerate() {
            if m.dim() != (k, k) {
                return Err(Error::MaskShape {
                    layer: h,
                    expected: k,
                    rows: m.nrows(),
                    cols: m.ncols(),
                });
            }
        }
        for (h, m) in mask.iter().enumerate() {
            let layer = &mut self.layers[h + 1];
            for ((i, j), &t) in m.indexed_iter() {
                layer.trainable[i][j] = t;
            }
        }
        Ok(())
    }

    /// Whether hidden layer `h` (layer `h + 1`) currently runs block-diagonal.
    pub fn is_block_diagonal(&self, h: usize) -> bool {
        self.layers
            .get(h + 1)
            .is_some_and(|l| h + 2 < self.layers.len() && l.block_diagonal(Execution::Auto))
    }

    /// The forward pass `[n, d_in] → [n, d_out]`. O(n·(FLOPs of the executed blocks)).
    ///
    /// # Errors
    /// [`Error::Shape`], [`Error::Unsupported`] (dtype), [`Error::NonFinite`]
    /// for bad input; [`Error::Candle`].
    pub fn forward(&self, x: &Tensor, exec: Execution) -> Result<Tensor> {
        let d_in = self.layers[0].cols[0];
        if x.rank() != 2 || x.dims()[1] != d_in {
            return Err(Error::Shape {
                what: "input batch",
                expected: vec![x.dims().first().copied().unwrap_or(0), d_in],
                got: x.dims().to_vec(),
            });
        }
        if x.dtype() != self.dtype {
            return Err(Error::Unsupported("input dtype differs from the network's"));
        }
        check_finite(x, "input")?;
        self.forward_unchecked(x, exec)
    }

    fn forward_unchecked(&self, x: &Tensor, exec: Execution) -> Result<Tensor> {
        let mut h = Act::Full(x.clone());
        let last = self.layers.len() - 1;
        for (l, layer) in self.layers.iter().enumerate() {
            let z = if layer.block_diagonal(exec) {
                let parts = h.parts(&layer.cols)?;
                let mut out = Vec::with_capacity(parts.len());
                for (i, p) in parts.iter().enumerate() {
                    out.push(
                        p.matmul(&layer.w[i][i].as_tensor().t()?)?
                            .broadcast_add(layer.b[i].as_tensor())?,
                    );
                }
                Act::Parts(out)
            } else {
                let rows: Vec<Tensor> = layer
                    .w
                    .iter()
                    .map(|row| {
                        let ts: Vec<&Tensor> = row.iter().map(|v| v.as_tensor()).collect();
                        Tensor::cat(&ts, 1)
                    })
                    .collect::<candle_core::Result<_>>()?;
                let w = Tensor::cat(&rows, 0)?;
                let bs: Vec<&Tensor> = layer.b.iter().map(|v| v.as_tensor()).collect();
                let b = Tensor::cat(&bs, 0)?;
                Act::Full(h.full()?.matmul(&w.t()?)?.broadcast_add(&b)?)
            };
            h = if l < last {
                match z {
                    Act::Full(t) => Act::Full(self.act.apply(&t)?),
                    Act::Parts(p) => {
                        Act::Parts(p.iter().map(|t| self.act.apply(t)).collect::<Result<_>>()?)
                    }
                }
            } else {
                z
            };
        }
        h.full()
    }

    /// Matrix-multiply FLOPs of one forward pass on `n` examples:
    /// `Σ_{executed blocks} 2·n·rows·cols` (bias adds and activations are
    /// `O(n·width)` and not counted). A training step costs 3× this (the
    /// backward pass computes gradients of inputs and weights: 2× the
    /// forward). O(#blocks).
    pub fn forward_flops(&self, n: usize, exec: Execution) -> u64 {
        let n = n as u64;
        self.layers
            .iter()
            .map(|layer| {
                let diag = layer.block_diagonal(exec);
                let mut f = 0u64;
                for (i, &r) in layer.rows.iter().enumerate() {
                    for (j, &c) in layer.cols.iter().enumerate() {
                        if !diag || i == j {
                            f = f.saturating_add(2 * n * r as u64 * c as u64);
                        }
                    }
                }
                f
            })
            .sum()
    }

    /// The dense network (blocks concatenated). O(#params).
    ///
    /// # Errors
    /// [`Error::Candle`].
    pub fn to_mlp(&self) -> Result<Mlp> {
        let layers = self
            .layers
            .iter()
            .map(|layer| {
                let rows: Vec<Tensor> = layer
                    .w
                    .iter()
                    .map(|row| {
                        let ts: Vec<&Tensor> = row.iter().map(|v| v.as_tensor()).collect();
                        Tensor::cat(&ts, 1)
                    })
                    .collect::<candle_core::Result<_>>()?;
                let bs: Vec<&Tensor> = layer.b.iter().map(|v| v.as_tensor()).collect();
                Ok(Dense {
                    w: Tensor::cat(&rows, 0)?,
                    b: Tensor::cat(&bs, 0)?,
                })
            })
            .collect::<Result<_>>()?;
        Ok(Mlp::from_dense(layers, self.act))
    }
}

/// The training loss.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loss {
    /// Mean over examples and outputs of `(F(x) − y)²`; `y: [n, d_out]`.
    Mse,
    /// Mean cross-entropy of the logits `F(x)`; `y: [n]` `u32` class labels.
    CrossEntropy,
}

impl Loss {
    /// The loss of `out` against `y`.
    ///
    /// # Errors
    /// [`Error::Candle`] on shape or dtype mismatch.
    pub fn eval(self, out: &Tensor, y: &Tensor) -> Result<Tensor> {
        Ok(match self {
            Loss::Mse => candle_nn::loss::mse(out, y)?,
            Loss::CrossEntropy => candle_nn::loss::cross_entropy(out, y)?,
        })
    }
}

/// Trains a [`BlockMlp`] with per-layer rates through nncore's optimisers
/// (one optimiser per block, so each has its own `η'`, `ε'`, `λ'`), counting
/// FLOPs.
#[derive(Debug)]
pub struct Trainer {
    net: BlockMlp,
    groups: Vec<(Var, Optimizer)>,
    exec: Execution,
    flops: u64,
    steps: usize,
}

impl Trainer {
    /// A trainer for `net` with optimiser `kind` and `rates` (one entry per
    /// part; [`LayerRates::uniform`] for a plain network).
    ///
    /// # Errors
    /// [`Error::CombineArity`] when `rates` has another number of parts;
    /// [`Error::InvalidParameter`] for a non-positive rate or scale;
    /// nncore's optimiser checks ([`Error::Nn`]).
    pub fn new(
        net: BlockMlp,
        kind: OptimizerKind,
        rates: &LayerRates,
        exec: Execution,
    ) -> Result<Self> {
        let k = net.num_parts();
        if rates.hidden.len() != k || rates.output_weight.len() != k {
            return Err(Error::CombineArity {
                combine: "per-layer rates",
                needed: k,
                got: rates.hidden.len(),
            });
        }
        let depth = net.layers.len();
        let mut groups = Vec::new();
        for (l, layer) in net.layers.iter().enumerate() {
            let out = l + 1 == depth;
            for (i, row) in layer.w.iter().enumerate() {
                for (j, v) in row.iter().enumerate() {
                    if !layer.trainable[i][j] {
                        continue;
                    }
                    let r = if out {
                        rates.output_weight[j]
                    } else {
                        rates.hidden[i]
                    };
                    groups.push((v.clone(), build(&kind, v, r)?));
                }
            }
            for (i, v) in layer.b.iter().enumerate() {
                let r = if out {
                    rates.output_bias
                } else {
                    rates.hidden[i]
                };
                groups.push((v.clone(), build(&kind, v, r)?));
            }
        }
        Ok(Self {
            net,
            groups,
            exec,
            flops: 0,
            steps: 0,
        })
    }

    /// One optimiser step on the batch `(x, y)`; returns the loss before the
    /// step. Adds `3 × forward_flops` to the FLOP count. The cross blocks of a
    /// layer stop counting as zero once one of them has trained.
    ///
    /// # Errors
    /// [`Error::NonFinite`] for a NaN/∞ loss (parameters unchanged); as
    /// [`BlockMlp::forward`]; [`Error::Candle`] for a `y` of the wrong shape.
    pub fn step(&mut self, x: &Tensor, y: &Tensor, loss: Loss) -> Result<f64> {
        let out = self.net.forward(x, self.exec)?;
        let l = loss.eval(&out, y)?;
        let value = l.to_dtype(DType::F64)?.to_scalar::<f64>()?;
        if !value.is_finite() {
            return Err(Error::NonFinite { what: "loss" });
        }
        self.flops = self
            .flops
            .saturating_add(3 * self.net.forward_flops(x.dims()[0], self.exec));
        let grads = l.backward()?;
        for (_, opt) in &mut self.groups {
            opt.step(&grads)?;
        }
        for layer in &mut self.net.layers {
            let moved = (0..layer.rows.len())
                .any(|i| (0..layer.cols.len()).any(|j| i != j && layer.trainable[i][j]));
            if moved && layer.is_square_grid() {
                layer.cross_zero = false;
            }
        }
        self.steps += 1;
        Ok(value)
    }

    /// The loss on `(x, y)` without training (not counted in FLOPs).
    ///
    /// # Errors
    /// As [`step`](Self::step).
    pub fn loss(&self, x: &Tensor, y: &Tensor, loss: Loss) -> Result<f64> {
        let out = self.net.forward(x, self.exec)?;
        Ok(loss
            .eval(&out, y)?
            .to_dtype(DType::F64)?
            .to_scalar::<f64>()?)
    }

    /// Cumulative training FLOPs.
    pub fn flops(&self) -> u64 {
        self.flops
    }
    /// Steps taken.
    pub fn steps(&self) -> usize {
        self.steps
    }
    /// The network being trained.
    pub fn net(&self) -> &BlockMlp {
        &self.net
    }
}

fn build(kind: &OptimizerKind, v: &Var, r: Rate) -> Result<Optimizer> {
    check_lr(r.lr)?;
    for (name, s) in [("eps scale", r.eps_scale), ("decay scale", r.decay_scale)] {
        if !(s.is_finite() && s > 0.0) {
            return Err(Error::InvalidParameter {
                name,
                value: s,
                expected: "a finite value > 0",
            });
        }
    }
    let k = match *kind {
        OptimizerKind::AdamW {
            beta1,
            beta2,
            eps,
            weight_decay,
        } => OptimizerKind::AdamW {
            beta1,
            beta2,
            eps: eps * r.eps_scale,
            weight_decay: weight_decay * r.decay_scale,
        },
        OptimizerKind::Sgd {
            momentum,
            weight_decay,
            nesterov,
        } => OptimizerKind::Sgd {
            momentum,
            weight_decay: weight_decay * r.decay_scale,
            nesterov,
        },
    };
    Ok(k.build(vec![v.clone()], r.lr)?)
}
