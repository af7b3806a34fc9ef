//! The position-wise MLP `y_k = W₂ σ(W₁ z_k + b₁) + b₂` applied to every
//! step `k`, and the stack recurrence → MLP → recurrence → … of the
//! paper's architecture (§2): each recurrence hands `[Re x_k, Im x_k]` on.

use crate::error::{Error, Result};
use crate::rnn::{DiagLinearRnn, real_features};
use ndarray::{Array1, Array2, ArrayView2, Axis};
use rand::{Rng, RngExt};
use rand_distr::StandardNormal;

/// The non-linearity `σ` of a hidden layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Activation {
    /// `max(0, x)`.
    #[default]
    Relu,
    /// `tanh x`.
    Tanh,
}

impl Activation {
    /// `σ(x)`.
    pub fn apply(self, x: f64) -> f64 {
        match self {
            Activation::Relu => x.max(0.0),
            Activation::Tanh => x.tanh(),
        }
    }
}

/// A one-hidden-layer MLP applied position-wise: `P` inputs, `H` hidden, `Q` outputs.
#[derive(Debug, Clone, PartialEq)]
pub struct PositionwiseMlp {
    w1: Array2<f64>,
    b1: Array1<f64>,
    w2: Array2<f64>,
    b2: Array1<f64>,
    activation: Activation,
}

fn finite(a: impl IntoIterator<Item = f64>, what: &'static str) -> Result<()> {
    if a.into_iter().all(f64::is_finite) {
        Ok(())
    } else {
        Err(Error::NonFinite { what })
    }
}

impl PositionwiseMlp {
    /// An MLP with `W₁ ∈ ℝ^{H×P}`, `b₁ ∈ ℝ^H`, `W₂ ∈ ℝ^{Q×H}`, `b₂ ∈ ℝ^Q`.
    ///
    /// # Errors
    /// [`Error::ZeroWidth`] for an empty dimension, [`Error::DimensionMismatch`],
    /// [`Error::NonFinite`].
    pub fn new(
        w1: Array2<f64>,
        b1: Array1<f64>,
        w2: Array2<f64>,
        b2: Array1<f64>,
        activation: Activation,
    ) -> Result<Self> {
        if w1.is_empty() || w2.is_empty() {
            return Err(Error::ZeroWidth { what: "MLP layer" });
        }
        for (what, expected, got) in [
            ("b1 length (H)", w1.nrows(), b1.len()),
            ("W2 columns (H)", w1.nrows(), w2.ncols()),
            ("b2 length (Q)", w2.nrows(), b2.len()),
        ] {
            if expected != got {
                return Err(Error::DimensionMismatch {
                    what,
                    expected,
                    got,
                });
            }
        }
        finite(w1.iter().copied(), "W1")?;
        finite(b1.iter().copied(), "b1")?;
        finite(w2.iter().copied(), "W2")?;
        finite(b2.iter().copied(), "b2")?;
        Ok(PositionwiseMlp {
            w1,
            b1,
            w2,
            b2,
            activation,
        })
    }

    /// A random MLP: `W₁ ~ N(0, 1/P)`, `b₁ ~ N(0, 1)`, `W₂ ~ N(0, 1/H)`, `b₂ = 0`. O(H(P + Q)).
    ///
    /// # Errors
    /// [`Error::ZeroWidth`] for a zero dimension; allocation limits.
    pub fn random(
        p: usize,
        h: usize,
        q: usize,
        activation: Activation,
        rng: &mut impl Rng,
    ) -> Result<Self> {
        if p == 0 || h == 0 || q == 0 {
            return Err(Error::ZeroWidth {
                what: "MLP dimension",
            });
        }
        mlcore::check::alloc_len(&[h, p.saturating_add(q)], 8, "MLP weights")?;
        let s1 = (p as f64).sqrt().recip();
        let s2 = (h as f64).sqrt().recip();
        let w1 = Array2::from_shape_simple_fn((h, p), || s1 * rng.sample::<f64, _>(StandardNormal));
        let b1 = Array1::from_shape_simple_fn(h, || rng.sample::<f64, _>(StandardNormal));
        let w2 = Array2::from_shape_simple_fn((q, h), || s2 * rng.sample::<f64, _>(StandardNormal));
        Self::new(w1, b1, w2, Array1::zeros(q), activation)
    }

    /// The input width `P`.
    pub fn input_dim(&self) -> usize {
        self.w1.ncols()
    }

    /// Copies of the first layer `(W₁, b₁)`.
    pub fn first_layer(&self) -> (Array2<f64>, Array1<f64>) {
        (self.w1.clone(), self.b1.clone())
    }

    /// The output width `Q`.
    pub fn output_dim(&self) -> usize {
        self.w2.nrows()
    }

    /// The hidden activations `σ(Z W₁ᵀ + b₁)` of the rows of `z` (`T × P` → `T × H`). O(TPH).
    ///
    /// # Errors
    /// [`Error::DimensionMismatch`], [`Error::EmptySequence`], [`Error::NonFinite`].
    pub fn hidden(&self, z: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        if z.nrows() == 0 {
            return Err(Error::EmptySequence { what: "MLP input" });
        }
        if z.ncols() != self.input_dim() {
            return Err(Error::DimensionMismatch {
                what: "MLP input width (P)",
                expected: self.input_dim(),
                got: z.ncols(),
            });
        }
        finite(z.iter().copied(), "MLP input")?;
        let mut h = z.dot(&self.w1.t());
        h += &self.b1.view().insert_axis(Axis(0));
        h.mapv_inplace(|x| self.activation.apply(x));
        Ok(h)
    }

    /// `y_k = W₂ σ(W₁ z_k + b₁) + b₂` for every row `z_k` of `z` (`T × P` → `T × Q`). O(TH(P + Q)).
    ///
    /// # Errors
    /// As [`PositionwiseMlp::hidden`]; [`Error::NonFinite`] on overflow.
    pub fn forward(&self, z: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        let mut y = self.hidden(z)?.dot(&self.w2.t());
        y += &self.b2.view().insert_axis(Axis(0));
        finite(y.iter().copied(), "MLP output (overflow)")?;
        Ok(y)
    }
}

/// One layer of a [`Stack`].
#[derive(Debug, Clone, PartialEq)]
pub enum Layer {
    /// A recurrence: `M` real channels in, `[Re x_k, Im x_k]` (`2N`) out.
    Recurrence(DiagLinearRnn),
    /// A position-wise MLP: `P` in, `Q` out.
    Mlp(PositionwiseMlp),
}

impl Layer {
    fn dims(&self) -> (usize, usize) {
        match self {
            Layer::Recurrence(r) => (r.m(), 2 * r.n()),
            Layer::Mlp(m) => (m.input_dim(), m.output_dim()),
        }
    }
}

/// A sequence-to-sequence map made of layers applied in order, e.g.
/// recurrence → position-wise MLP → recurrence (→ MLP): causal, since every
/// layer is.
#[derive(Debug, Clone, PartialEq)]
pub struct Stack {
    layers: Vec<Layer>,
}

impl Stack {
    /// Chains `layers`, checking that each output width is the next input width.
    ///
    /// # Errors
    /// [`Error::EmptySequence`] for no layer; [`Error::DimensionMismatch`].
    pub fn new(layers: Vec<Layer>) -> Result<Self> {
        if layers.is_empty() {
            return Err(Error::EmptySequence {
                what: "stack layers",
            });
        }
        for w in layers.windows(2) {
            let (out, inp) = (w[0].dims().1, w[1].dims().0);
            if out != inp {
                return Err(Error::DimensionMismatch {
                    what: "layer input width",
                    expected: out,
                    got: inp,
                });
            }
        }
        Ok(Stack { layers })
    }

    /// The layers.
    pub fn layers(&self) -> &[Layer] {
        &self.layers
    }

    /// Applies the layers to `v` (`L × M`), returning `L × Q` real outputs.
    /// O(Σ per-layer cost): `N·L·M` per recurrence, `L·H·(P + Q)` per MLP.
    ///
    /// # Errors
    /// The errors of [`DiagLinearRnn::states`] and [`PositionwiseMlp::forward`].
    pub fn forward(&self, v: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        let mut cur = v.to_owned();
        for layer in &self.layers {
            cur = match layer {
                Layer::Recurrence(r) => real_features(r.states(cur.view())?.view()),
                Layer::Mlp(m) => m.forward(cur.view())?,
            };
        }
        Ok(cur)
    }
}
