//! Multi-layer perceptrons on candle: `x ↦ W_L σ(… σ(W₁x + b₁) …) + b_L`.
//!
//! An [`Mlp`] holds its weights as candle tensors (`f32` or `f64`, CPU),
//! `W_i` of shape `[out, in]` (PyTorch's `nn.Linear` layout) and `b_i` of
//! shape `[out]`; the activation σ is applied after every layer but the last.
//! Weights come in and go out as `ndarray` arrays ([`Mlp::from_arrays`],
//! [`Mlp::to_arrays`]).

use crate::error::{Error, Result};
use candle_core::{DType, Device, Tensor};
use ndarray::{Array1, Array2, ArrayView2};
use rand::{Rng, RngExt};

/// The element-wise activation σ of the hidden layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Activation {
    /// `max(0, z)`.
    Relu,
    /// `tanh z`.
    Tanh,
    /// The exact GELU `z·Φ(z) = ½z(1 + erf(z/√2))` (PyTorch's default
    /// `nn.GELU()`, candle's `gelu_erf`), not the tanh approximation.
    Gelu,
}

impl Activation {
    /// The activation's name (for errors and reports).
    pub fn name(self) -> &'static str {
        match self {
            Activation::Relu => "relu",
            Activation::Tanh => "tanh",
            Activation::Gelu => "gelu",
        }
    }

    /// σ applied element-wise to a tensor. O(numel).
    ///
    /// # Errors
    /// [`Error::Candle`] from the backend.
    pub fn apply(self, z: &Tensor) -> Result<Tensor> {
        Ok(match self {
            Activation::Relu => z.relu()?,
            Activation::Tanh => z.tanh()?,
            Activation::Gelu => z.gelu_erf()?,
        })
    }
}

/// Errors with [`Error::NonFinite`] when `t` holds NaN or an infinity
/// (`t − t` is 0 exactly for every finite entry and NaN otherwise). O(numel).
pub(crate) fn check_finite(t: &Tensor, what: &'static str) -> Result<()> {
    let s = t
        .sub(t)?
        .sum_all()?
        .to_dtype(DType::F64)?
        .to_scalar::<f64>()?;
    if s == 0.0 {
        Ok(())
    } else {
        Err(Error::NonFinite { what })
    }
}

/// Checks that a dtype is a floating-point type this crate computes in.
pub(crate) fn check_dtype(dtype: DType) -> Result<()> {
    match dtype {
        DType::F32 | DType::F64 => Ok(()),
        _ => Err(Error::Unsupported("dtypes other than f32 and f64")),
    }
}

/// `r·c` elements of 8 bytes, checked against [`mlcore::check::MAX_ALLOC_BYTES`].
pub(crate) fn alloc_check(r: usize, c: usize, what: &'static str) -> Result<usize> {
    let n = r.checked_mul(c).ok_or(Error::TooLarge { what })?;
    if n.checked_mul(8)
        .is_none_or(|b| b > mlcore::check::MAX_ALLOC_BYTES)
    {
        return Err(Error::TooLarge { what });
    }
    Ok(n)
}

/// A tensor from an `f64` matrix, in `dtype`.
pub(crate) fn tensor2(a: ArrayView2<'_, f64>, dtype: DType) -> Result<Tensor> {
    let (r, c) = a.dim();
    let v: Vec<f64> = a.iter().copied().collect();
    Ok(Tensor::from_vec(v, (r, c), &Device::Cpu)?.to_dtype(dtype)?)
}

/// A tensor from an `f64` vector, in `dtype`.
pub(crate) fn tensor1(a: &Array1<f64>, dtype: DType) -> Result<Tensor> {
    let v: Vec<f64> = a.iter().copied().collect();
    Ok(Tensor::from_vec(v, a.len(), &Device::Cpu)?.to_dtype(dtype)?)
}

/// A rank-2 tensor back to an `f64` array.
pub(crate) fn array2(t: &Tensor) -> Result<Array2<f64>> {
    let v = t.to_dtype(DType::F64)?.to_vec2::<f64>()?;
    let (r, c) = (v.len(), v.first().map_or(0, Vec::len));
    Array2::from_shape_vec((r, c), v.into_iter().flatten().collect()).map_err(|_| Error::Shape {
        what: "tensor to array",
        expected: vec![r, c],
        got: t.dims().to_vec(),
    })
}

/// A rank-1 tensor back to an `f64` array.
pub(crate) fn array1(t: &Tensor) -> Result<Array1<f64>> {
    Ok(Array1::from(t.to_dtype(DType::F64)?.to_vec1::<f64>()?))
}

/// One affine layer `z = W h + b` (`W: [out, in]`, `b: [out]`).
#[derive(Debug, Clone)]
pub struct Dense {
    pub(crate) w: Tensor,
    pub(crate) b: Tensor,
}

impl Dense {
    /// The weight matrix `W`, shape `[out, in]`.
    pub fn weight(&self) -> &Tensor {
        &self.w
    }
    /// The bias `b`, shape `[out]`.
    pub fn bias(&self) -> &Tensor {
        &self.b
    }
    /// `out` (rows of `W`).
    pub fn out_dim(&self) -> usize {
        self.w.dims()[0]
    }
    /// `in` (columns of `W`).
    pub fn in_dim(&self) -> usize {
        self.w.dims()[1]
    }
}

/// A multi-layer perceptron `f(x) = W_L σ(… σ(W₁x + b₁) …) + b_L` with
/// `L ≥ 1` affine layers and activation σ between them.
#[derive(Debug, Clone)]
pub struct Mlp {
    layers: Vec<Dense>,
    act: Activation,
}

impl Mlp {
    /// An MLP from `(W_i, b_i)` pairs (`W_i: [out, in]`), stored in `dtype`
    /// (`F32` or `F64`). O(Σ out·in).
    ///
    /// # Errors
    /// [`Error::EmptyNetwork`] for no layer or a zero width;
    /// [`Error::Shape`] when a bias length differs from its weight's rows or
    /// a layer's input differs from the previous layer's output;
    /// [`Error::NonFinite`] for NaN/∞ weights; [`Error::Unsupported`] for
    /// another dtype.
    pub fn from_arrays(
        layers: &[(Array2<f64>, Array1<f64>)],
        act: Activation,
        dtype: DType,
    ) -> Result<Self> {
        check_dtype(dtype)?;
        if layers.is_empty() {
            return Err(Error::EmptyNetwork { what: "no layers" });
        }
        let mut out = Vec::with_capacity(layers.len());
        for (i, (w, b)) in layers.iter().enumerate() {
            if w.is_empty() {
                return Err(Error::EmptyNetwork {
                    what: "a layer of width 0",
                });
            }
            if b.len() != w.nrows() {
                return Err(Error::Shape {
                    what: "bias length vs weight rows",
                    expected: vec![w.nrows()],
                    got: vec![b.len()],
                });
            }
            if i > 0 && w.ncols() != layers[i - 1].0.nrows() {
                return Err(Error::Shape {
                    what: "layer input vs previous layer output",
                    expected: vec![layers[i - 1].0.nrows()],
                    got: vec![w.ncols()],
                });
            }
            if w.iter().chain(b.iter()).any(|v| !v.is_finite()) {
                return Err(Error::NonFinite { what: "weights" });
            }
            out.push(Dense {
                w: tensor2(w.view(), dtype)?,
                b: tensor1(b, dtype)?,
            });
        }
        Ok(Self { layers: out, act })
    }

    /// An MLP with layer sizes `sizes = [d_in, h₁, …, d_out]` initialised
    /// like PyTorch's `nn.Linear`: `W, b ~ U[−1/√fan_in, 1/√fan_in)`, drawn on
    /// the host from `rng` in layer order (`W` row-major, then `b`). O(Σ out·in).
    ///
    /// # Errors
    /// [`Error::EmptyNetwork`] for fewer than two sizes or a zero size;
    /// [`Error::TooLarge`]; as [`from_arrays`](Self::from_arrays).
    pub fn random<R: Rng + ?Sized>(
        sizes: &[usize],
        act: Activation,
        dtype: DType,
        rng: &mut R,
    ) -> Result<Self> {
        if sizes.len() < 2 || sizes.contains(&0) {
            return Err(Error::EmptyNetwork {
                what: "sizes need at least two positive entries",
            });
        }
        let mut layers = Vec::with_capacity(sizes.len() - 1);
        for pair in sizes.windows(2) {
            alloc_check(pair[1], pair[0], "weight matrix")?;
            let bound = 1.0 / (pair[0] as f64).sqrt();
            let w = Array2::from_shape_fn((pair[1], pair[0]), |_| rng.random_range(-bound..bound));
            let b = Array1::from_shape_fn(pair[1], |_| rng.random_range(-bound..bound));
            layers.push((w, b));
        }
        Self::from_arrays(&layers, act, dtype)
    }

    /// Wraps tensors already checked by the caller.
    pub(crate) fn from_dense(layers: Vec<Dense>, act: Activation) -> Self {
        Self { layers, act }
    }

    /// The weights as `f64` arrays `(W_i, b_i)`. O(Σ out·in).
    ///
    /// # Errors
    /// [`Error::Candle`] from the backend.
    pub fn to_arrays(&self) -> Result<Vec<(Array2<f64>, Array1<f64>)>> {
        self.layers
            .iter()
            .map(|l| Ok((array2(&l.w)?, array1(&l.b)?)))
            .collect()
    }

    /// The same network in another dtype (`F32` or `F64`).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for another dtype; [`Error::Candle`].
    pub fn to_dtype(&self, dtype: DType) -> Result<Self> {
        check_dtype(dtype)?;
        let layers = self
            .layers
            .iter()
            .map(|l| {
                Ok(Dense {
                    w: l.w.to_dtype(dtype)?,
                    b: l.b.to_dtype(dtype)?,
                })
            })
            .collect::<Result<_>>()?;
        Ok(Self {
            layers,
            act: self.act,
        })
    }

    /// The layers.
    pub fn layers(&self) -> &[Dense] {
        &self.layers
    }
    /// The activation σ.
    pub fn activation(&self) -> Activation {
        self.act
    }
    /// The number of affine layers `L` (hidden layers: `L − 1`).
    pub fn depth(&self) -> usize {
        self.layers.len()
    }
    /// The storage dtype.
    pub fn dtype(&self) -> DType {
        self.layers[0].w.dtype()
    }
    /// `[d_in, h₁, …, h_{L−1}, d_out]`.
    pub fn sizes(&self) -> Vec<usize> {
        let mut s = vec![self.layers[0].in_dim()];
        s.extend(self.layers.iter().map(Dense::out_dim));
        s
    }
    /// The number of scalar parameters `Σ out·(in + 1)`.
    pub fn num_params(&self) -> usize {
        self.layers
            .iter()
            .map(|l| l.out_dim() * (l.in_dim() + 1))
            .sum()
    }

    /// The forward pass on a batch `x: [n, d_in]` (same dtype), returning
    /// `[n, d_out]`. O(n·Σ out·in).
    ///
    /// # Errors
    /// [`Error::Shape`] for a wrong rank or width; [`Error::Unsupported`]
    /// for a dtype other than the network's; [`Error::NonFinite`] for NaN/∞
    /// input; [`Error::Candle`].
    pub fn forward(&self, x: &Tensor) -> Result<Tensor> {
        let d_in = self.layers[0].in_dim();
        if x.rank() != 2 || x.dims()[1] != d_in {
            return Err(Error::Shape {
                what: "input batch",
                expected: vec![x.dims().first().copied().unwrap_or(0), d_in],
                got: x.dims().to_vec(),
            });
        }
        if x.dtype() != self.dtype() {
            return Err(Error::Unsupported("input dtype differs from the network's"));
        }
        check_finite(x, "input")?;
        self.forward_unchecked(x)
    }

    /// The forward pass without input checks (internal use).
    pub(crate) fn forward_unchecked(&self, x: &Tensor) -> Result<Tensor> {
        let mut h = x.clone();
        let last = self.layers.len() - 1;
        for (i, l) in self.layers.iter().enumerate() {
            h = h.matmul(&l.w.t()?)?.broadcast_add(&l.b)?;
            if i < last {
                h = self.act.apply(&h)?;
            }
        }
        Ok(h)
    }

    /// The forward pass on an `f64` array (converted to the network's dtype
    /// and back). O(n·Σ out·in).
    ///
    /// # Errors
    /// [`Error::EmptyNetwork`] for no rows; as [`forward`](Self::forward).
    pub fn forward_array(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        if x.nrows() == 0 {
            return Err(Error::EmptyNetwork {
                what: "empty input batch",
            });
        }
        if x.iter().any(|v| !v.is_finite()) {
            return Err(Error::NonFinite { what: "input" });
        }
        let t = tensor2(x, self.dtype())?;
        array2(&self.forward(&t)?)
    }
}
