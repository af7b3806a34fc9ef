//! A multi-layer perceptron on [`ParamSet`] variables.
//!
//! `Mlp` is the network most crates of the workspace start from: affine
//! layers `hₗ = ReLU(hₗ₋₁ Wₗᵀ + bₗ)` and a linear last layer (logits). Its
//! weights are initialised on the host like PyTorch's `nn.Linear`
//! (`W, b ~ U[−1/√fan_in, 1/√fan_in)`, [`crate::init::uniform`]), in the order
//! `W₁, b₁, W₂, b₂, …`, each row-major, so the same seed gives the same
//! network on every machine and a PyTorch script can load it.

use crate::error::{Error, Result};
use crate::init;
use crate::params::ParamSet;
use candle_core::{Device, Tensor, Var};
use rand::Rng;

/// A ReLU multi-layer perceptron: `sizes = [d_in, h₁, …, d_out]`.
#[derive(Debug, Clone)]
pub struct Mlp {
    layers: Vec<(Var, Var)>,
}

impl Mlp {
    /// Creates the layers as parameters `"{prefix}{l}.weight"` (`[out, in]`)
    /// and `"{prefix}{l}.bias"` (`[out]`), `l = 0, 1, …`, in `params`. O(#weights).
    ///
    /// # Errors
    /// [`Error::InvalidParameter`] for fewer than two sizes, [`Error::Empty`]
    /// for a zero size, [`Error::Parameter`] for a name already taken.
    pub fn new<R: Rng + ?Sized>(
        sizes: &[usize],
        prefix: &str,
        params: &mut ParamSet,
        rng: &mut R,
        device: &Device,
    ) -> Result<Self> {
        if sizes.len() < 2 {
            return Err(Error::InvalidParameter {
                name: "number of layer sizes",
                value: sizes.len() as f64,
                expected: "at least 2 (input and output)",
            });
        }
        if sizes.contains(&0) {
            return Err(Error::Empty {
                what: "a layer (size 0)",
            });
        }
        let mut layers = Vec::with_capacity(sizes.len() - 1);
        for (l, pair) in sizes.windows(2).enumerate() {
            let (fan_in, fan_out) = (pair[0], pair[1]);
            let bound = 1.0 / (fan_in as f64).sqrt();
            let w = init::uniform(&[fan_out, fan_in], -bound, bound, rng, device)?;
            let b = init::uniform(&[fan_out], -bound, bound, rng, device)?;
            layers.push((
                params.add(format!("{prefix}{l}.weight"), &w)?,
                params.add(format!("{prefix}{l}.bias"), &b)?,
            ));
        }
        Ok(Self { layers })
    }

    /// The logits `[b, d_out]` of a batch `[b, d_in]`. O(b·Σ dₗdₗ₊₁).
    ///
    /// # Errors
    /// candle's shape error when `x` is not `[b, d_in]`.
    pub fn forward(&self, x: &Tensor) -> candle_core::Result<Tensor> {
        let mut h = x.clone();
        let last = self.layers.len() - 1;
        for (l, (w, b)) in self.layers.iter().enumerate() {
            h = h.matmul(&w.t()?)?.broadcast_add(b)?;
            if l < last {
                h = h.relu()?;
            }
        }
        Ok(h)
    }

    /// The layers' `(weight, bias)` variables.
    pub fn layers(&self) -> &[(Var, Var)] {
        &self.layers
    }
}
