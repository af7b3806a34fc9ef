//! Building blocks on candle: linear maps, layer norm, MLPs, multi-head
//! softmax attention and the pre-LN transformer layer. Parameters live in
//! an [`nncore::params::ParamSet`] under dotted names, so that
//! [`nncore::train::fit`] trains them and weights can be imported by name.

use crate::error::{Error, Result};
use candle_core::{D, DType, Device, Tensor, Var};
use nncore::params::ParamSet;
use rand::Rng;

/// Where new parameters go: the set, the dtype (f32 for training, f64 for
/// exact-equality audits) and the device.
pub struct Builder<'a, R: Rng + ?Sized> {
    /// The parameter set.
    pub params: &'a mut ParamSet,
    /// The RNG for initial values.
    pub rng: &'a mut R,
    /// Parameter dtype.
    pub dtype: DType,
    /// Device.
    pub device: Device,
}

impl<R: Rng + ?Sized> Builder<'_, R> {
    /// A parameter drawn `U(−b, b)`.
    pub(crate) fn uniform(&mut self, name: &str, shape: &[usize], b: f64) -> Result<Var> {
        let t =
            nncore::init::uniform(shape, -b, b, self.rng, &self.device)?.to_dtype(self.dtype)?;
        Ok(self.params.add(name, &t)?)
    }

    /// A parameter drawn `N(0, std²)`.
    pub(crate) fn normal(&mut self, name: &str, shape: &[usize], std: f64) -> Result<Var> {
        let t =
            nncore::init::normal(shape, 0.0, std, self.rng, &self.device)?.to_dtype(self.dtype)?;
        Ok(self.params.add(name, &t)?)
    }

    /// A constant parameter.
    pub(crate) fn constant(&mut self, name: &str, shape: &[usize], value: f64) -> Result<Var> {
        let t = (Tensor::ones(shape, self.dtype, &self.device)? * value)?;
        Ok(self.params.add(name, &t)?)
    }
}

/// `y = x Wᵀ + b`, initialised like PyTorch's `nn.Linear` (`U(±1/√fan_in)`).
#[derive(Debug, Clone)]
pub struct Linear {
    w: Var,
    b: Option<Var>,
}

impl Linear {
    /// A `d_in → d_out` map named `{name}.weight`, `{name}.bias`.
    pub(crate) fn new<R: Rng + ?Sized>(
        bld: &mut Builder<'_, R>,
        name: &str,
        d_in: usize,
        d_out: usize,
        bias: bool,
    ) -> Result<Linear> {
        let bound = 1.0 / (d_in.max(1) as f64).sqrt();
        let w = bld.uniform(&format!("{name}.weight"), &[d_out, d_in], bound)?;
        let b = if bias {
            Some(bld.uniform(&format!("{name}.bias"), &[d_out], bound)?)
        } else {
            None
        };
        Ok(Linear { w, b })
    }

    /// Applies the map to the last dimension of `x` (any rank ≥ 1). O(numel·d_out).
    pub fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let dims = x.dims().to_vec();
        let d_in = *dims.last().unwrap_or(&0);
        let rows = x.elem_count() / d_in.max(1);
        let y = x.reshape((rows, d_in))?.matmul(&self.w.t()?)?;
        let y = match &self.b {
            Some(b) => y.broadcast_add(b)?,
            None => y,
        };
        let mut out = dims;
        if let Some(last) = out.last_mut() {
            *last = self.w.dims()[0];
        }
        y.reshape(out)
    }

    /// The weight `[d_out, d_in]`.
    pub fn weight(&self) -> &Var {
        &self.w
    }

    /// The bias `[d_out]`, if any.
    pub fn bias(&self) -> Option<&Var> {
        self.b.as_ref()
    }
}

/// Layer normalisation over the last dimension: `γ ⊙ (x − μ)/√(σ² + 1e-5) + β`.
#[derive(Debug, Clone)]
pub struct LayerNorm {
    gamma: Var,
    beta: Var,
}

impl LayerNorm {
    pub(crate) fn new<R: Rng + ?Sized>(
        bld: &mut Builder<'_, R>,
        name: &str,
        d: usize,
    ) -> Result<LayerNorm> {
        Ok(LayerNorm {
            gamma: bld.constant(&format!("{name}.weight"), &[d], 1.0)?,
            beta: bld.constant(&format!("{name}.bias"), &[d], 0.0)?,
        })
    }

    /// Normalises the last dimension. O(numel).
    pub fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let mu = x.mean_keepdim(D::Minus1)?;
        let xc = x.broadcast_sub(&mu)?;
        let var = xc.sqr()?.mean_keepdim(D::Minus1)?;
        let xn = xc.broadcast_div(&(var + 1e-5)?.sqrt()?)?;
        xn.broadcast_mul(&self.gamma)?.broadcast_add(&self.beta)
    }
}

/// Activation of an [`Mlp`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Act {
    /// max(0, x).
    Relu,
    /// GELU with the exact erf (PyTorch's default).
    Gelu,
}

fn act(a: Act, x: &Tensor) -> candle_core::Result<Tensor> {
    match a {
        Act::Relu => x.relu(),
        Act::Gelu => x.gelu_erf(),
    }
}

/// Linear layers with an activation between them (none after the last).
#[derive(Debug, Clone)]
pub struct Mlp {
    layers: Vec<Linear>,
    act: Act,
}

impl Mlp {
    pub(crate) fn new<R: Rng + ?Sized>(
        bld: &mut Builder<'_, R>,
        name: &str,
        sizes: &[usize],
        act: Act,
    ) -> Result<Mlp> {
        if sizes.len() < 2 || sizes.contains(&0) {
            return Err(Error::BadParameter {
                name: "mlp sizes",
                value: format!("{sizes:?}"),
                reason: "at least two positive sizes",
            });
        }
        let layers = sizes
            .windows(2)
            .enumerate()
            .map(|(l, p)| Linear::new(bld, &format!("{name}.{l}"), p[0], p[1], true))
            .collect::<Result<Vec<_>>>()?;
        Ok(Mlp { layers, act })
    }

    /// Applies the layers to the last dimension.
    pub fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let mut h = x.clone();
        let last = self.layers.len() - 1;
        for (l, lin) in self.layers.iter().enumerate() {
            h = lin.forward(&h)?;
            if l < last {
                h = act(self.act, &h)?;
            }
        }
        Ok(h)
    }
}

/// Multi-head softmax self-attention over the `T` tokens of one graph:
/// `softmax(Q Kᵀ/√d_h) V` per head, heads concatenated, then `W_O`.
/// O(T²·d) time, O(H·T²) memory.
#[derive(Debug, Clone)]
pub struct MultiHeadAttention {
    q: Linear,
    k: Linear,
    v: Linear,
    o: Linear,
    heads: usize,
}

impl MultiHeadAttention {
    pub(crate) fn new<R: Rng + ?Sized>(
        bld: &mut Builder<'_, R>,
        name: &str,
        d: usize,
        heads: usize,
    ) -> Result<MultiHeadAttention> {
        if heads == 0 || !d.is_multiple_of(heads) {
            return Err(Error::HeadsDoNotDivide { dim: d, heads });
        }
        Ok(MultiHeadAttention {
            q: Linear::new(bld, &format!("{name}.q"), d, d, true)?,
            k: Linear::new(bld, &format!("{name}.k"), d, d, true)?,
            v: Linear::new(bld, &format!("{name}.v"), d, d, true)?,
            o: Linear::new(bld, &format!("{name}.o"), d, d, true)?,
            heads,
        })
    }

    /// Attention over `x: [T, d]`; `attn_mask`, if given, multiplies the
    /// attention weights (attention dropout in training).
    pub fn forward(&self, x: &Tensor, attn_mask: Option<&Tensor>) -> candle_core::Result<Tensor> {
        let (t, d) = x.dims2()?;
        let dh = d / self.heads;
        let split = |y: Tensor| {
            y.reshape((t, self.heads, dh))?
                .transpose(0, 1)?
                .contiguous()
        };
        let q = split(self.q.forward(x)?)?;
        let k = split(self.k.forward(x)?)?;
        let v = split(self.v.forward(x)?)?;
        let scores = (q.matmul(&k.transpose(1, 2)?.contiguous()?)? / (dh as f64).sqrt())?;
        let mut a = candle_nn::ops::softmax(&scores, D::Minus1)?;
        if let Some(m) = attn_mask {
            a = a.mul(m)?;
        }
        let out = a
            .matmul(&v)?
            .transpose(0, 1)?
            .contiguous()?
            .reshape((t, d))?;
        self.o.forward(&out)
    }
}
