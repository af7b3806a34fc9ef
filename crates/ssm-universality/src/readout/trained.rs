//! A gradient-trained one-hidden-layer MLP readout (feature `candle`).
//!
//! The paper's finite-width statement is about an MLP of width `D` acting on
//! the recurrence's state; [`super::RandomFeatureMlp`] fixes the first layer
//! at random and fits only the output layer in closed form. [`TrainedMlp`]
//! trains *both* layers by gradient descent, as the paper's experiments do:
//!
//! `ŷ(x) = σ_y ⊙ (W₂ ReLU(W₁ z + b₁) + b₂) + μ_y`, `z = (x − μ_x) ⊘ σ_x`,
//!
//! with `W₁ ∈ ℝ^{D×P}`, `W₂ ∈ ℝ^{Q×D}`, the training means `μ` and standard
//! deviations `σ` of the inputs and of the targets (a constant column keeps
//! scale 1), minimising the mean squared error on the standardised targets
//! `(1/(T·Q)) Σ ‖W₂ ReLU(W₁ zₜ + b₁) + b₂ − (yₜ − μ_y) ⊘ σ_y‖²`.
//!
//! Training is `nncore`'s loop ([`nncore::train::fit`]): the weights are
//! drawn on the host from the caller's RNG like PyTorch's `nn.Linear`
//! ([`nncore::models::Mlp`]), mini-batches are shuffled with the same RNG,
//! and the optimiser is the one in the [`TrainConfig`] (AdamW by default).
//! The network runs in `f32` on candle's CPU backend; inputs and outputs are
//! `f64`. The same seed gives bit-for-bit the same predictions.
//!
//! ```
//! use ssm_universality::readout::{mse, trained::{TrainConfig, TrainedMlp}};
//! use rand::SeedableRng;
//! # fn main() -> ssm_universality::Result<()> {
//! let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
//! // y = sin(x) on [−3, 3]: 128 points, a width-32 network.
//! let x = ndarray::Array2::from_shape_fn((128, 1), |(i, _)| i as f64 * 6.0 / 127.0 - 3.0);
//! let y = x.mapv(f64::sin);
//! let config = TrainConfig { epochs: 300, batch_size: 32, learning_rate: 1e-2, progress: false, ..Default::default() };
//! let model = TrainedMlp::fit(x.view(), y.view(), 32, &config, &mut rng)?;
//! assert!(mse(model.predict(x.view())?.view(), y.view())? < 0.05); // var(y) ≈ 0.5
//! # Ok(())
//! # }
//! ```

use super::{check_xy, mean_rows, std_rows};
use crate::error::{Error, Result};
use candle_core::{DType, Device, Tensor};
use ndarray::{Array1, Array2, ArrayView2, Axis};
use nncore::models::Mlp;
use nncore::params::ParamSet;
use rand::Rng;

pub use nncore::train::{History, TrainConfig};

impl From<nncore::Error> for Error {
    fn from(e: nncore::Error) -> Self {
        match e {
            nncore::Error::NonFiniteLoss {
                step, epoch, loss, ..
            } => Error::NonFiniteLoss { step, epoch, loss },
            other => Error::Training {
                reason: other.to_string(),
            },
        }
    }
}

impl From<candle_core::Error> for Error {
    fn from(e: candle_core::Error) -> Self {
        Error::from(nncore::Error::from(e))
    }
}

/// A one-hidden-layer ReLU MLP trained on MSE, on standardised inputs and targets.
#[derive(Debug, Clone)]
pub struct TrainedMlp {
    x_mean: Array1<f64>,
    x_scale: Array1<f64>,
    y_mean: Array1<f64>,
    y_scale: Array1<f64>,
    mlp: Mlp,
    width: usize,
    history: History,
}

/// `(x − μ) ⊘ σ` as an `f32` tensor, refusing values that overflow `f32`.
fn standardised(
    x: &ArrayView2<'_, f64>,
    mean: &Array1<f64>,
    scale: &Array1<f64>,
    what: &'static str,
) -> Result<Tensor> {
    let (t, p) = x.dim();
    mlcore::check::alloc_len(&[t, p], 4, what)?;
    let z: Vec<f32> = x
        .rows()
        .into_iter()
        .flat_map(|r| {
            r.into_iter()
                .zip(mean.iter().zip(scale))
                .map(|(&v, (&m, &s))| ((v - m) / s) as f32)
                .collect::<Vec<_>>()
        })
        .collect();
    if z.iter().any(|v| !v.is_finite()) {
        return Err(Error::NonFinite { what });
    }
    Ok(Tensor::from_vec(z, (t, p), &Device::Cpu)?)
}

impl TrainedMlp {
    /// Fits on `x` (`T × P` features, e.g. `[Re x_k, Im x_k]`) and `y` (`T × Q`
    /// regression targets): standardises the columns of `x` and `y` (training
    /// mean and population standard deviation, as [`super::RandomFeatureMlp::fit`]
    /// does for `x`), initialises a `P → D → Q` ReLU network from `rng`
    /// (`W, b ~ U[−1/√fan_in, 1/√fan_in)`), and trains all four parameters on
    /// the mean squared error with `config` (epochs, batch size, optimiser,
    /// schedule, clipping; `rng` also shuffles the batches). Set
    /// `config.progress = false` in library code. O(epochs·T·D·(P + Q)) time,
    /// O(T·(P + Q) + D·(P + Q)) memory.
    ///
    /// # Errors
    /// [`Error::EmptySequence`], [`Error::DimensionMismatch`] (rows of `y` ≠
    /// rows of `x`), [`Error::NonFinite`] (NaN/inf in `x` or `y`, or values
    /// that overflow `f32` after standardisation), [`Error::ZeroWidth`]
    /// (`D = 0`), [`Error::Core`] (sizes too large to allocate),
    /// [`Error::NonFiniteLoss`] (the loss diverged: lower the learning rate),
    /// [`Error::Training`] (an invalid `config`, or another training error).
    pub fn fit(
        x: ArrayView2<'_, f64>,
        y: ArrayView2<'_, f64>,
        width: usize,
        config: &TrainConfig,
        rng: &mut impl Rng,
    ) -> Result<Self> {
        check_xy(&x, &y)?;
        if width == 0 {
            return Err(Error::ZeroWidth { what: "width D" });
        }
        let (t, p) = x.dim();
        let q = y.ncols();
        mlcore::check::alloc_len(&[t, width], 4, "hidden activations")?;
        mlcore::check::alloc_len(&[width, p + q], 4, "weights")?;
        config.check()?;
        let x_mean = mean_rows(&x);
        let x_scale = std_rows(&x, &x_mean);
        let y_mean = mean_rows(&y);
        let y_scale = std_rows(&y, &y_mean);
        let xs = standardised(&x, &x_mean, &x_scale, "standardised features")?;
        let ys = standardised(&y, &y_mean, &y_scale, "standardised targets")?;
        let dev = Device::Cpu;
        let mut params = ParamSet::new();
        let mlp = Mlp::new(&[p, width, q], "readout", &mut params, rng, &dev)?;
        let history = nncore::train::fit(
            &params,
            t,
            config,
            rng,
            |idx| {
                let idx: Vec<u32> = idx.iter().map(|&i| i as u32).collect();
                let n = idx.len();
                let idx = Tensor::from_vec(idx, n, &dev)?;
                let xb = xs.index_select(&idx, 0)?;
                let yb = ys.index_select(&idx, 0)?;
                candle_nn::loss::mse(&mlp.forward(&xb)?, &yb)
            },
            None,
        )?;
        Ok(TrainedMlp {
            x_mean,
            x_scale,
            y_mean,
            y_scale,
            mlp,
            width,
            history,
        })
    }

    /// Predictions for the rows of `x` (`T × P` → `T × Q`): the network on
    /// standardised `x`, mapped back to the targets' scale.
    /// O(T·D·(P + Q)).
    ///
    /// # Errors
    /// [`Error::EmptySequence`], [`Error::DimensionMismatch`] (`P` differs
    /// from training), [`Error::NonFinite`] (in `x`, or predictions that
    /// overflow), [`Error::Core`] (too large to allocate).
    pub fn predict(&self, x: ArrayView2<'_, f64>) -> Result<Array2<f64>> {
        if x.nrows() == 0 {
            return Err(Error::EmptySequence { what: "features" });
        }
        if x.ncols() != self.x_mean.len() {
            return Err(Error::DimensionMismatch {
                what: "feature width (P)",
                expected: self.x_mean.len(),
                got: x.ncols(),
            });
        }
        if x.iter().any(|v| !v.is_finite()) {
            return Err(Error::NonFinite { what: "features" });
        }
        mlcore::check::alloc_len(&[x.nrows(), self.width], 4, "hidden activations")?;
        let z = standardised(&x, &self.x_mean, &self.x_scale, "standardised features")?;
        let out = self.mlp.forward(&z)?.to_dtype(DType::F64)?;
        let out = out.to_vec2::<f64>()?;
        let q = self.y_mean.len();
        let mut pred = Array2::zeros((x.nrows(), q));
        for (mut row, o) in pred.axis_iter_mut(Axis(0)).zip(out) {
            for (j, v) in row.iter_mut().enumerate() {
                *v = o[j] * self.y_scale[j] + self.y_mean[j];
            }
        }
        if pred.iter().any(|v| !v.is_finite()) {
            return Err(Error::NonFinite {
                what: "predictions (overflow)",
            });
        }
        Ok(pred)
    }

    /// The hidden width `D`.
    pub fn width(&self) -> usize {
        self.width
    }

    /// The training record (per-epoch losses on the standardised targets).
    pub fn history(&self) -> &History {
        &self.history
    }

    /// The trained network (acting on standardised inputs, producing
    /// standardised targets).
    pub fn mlp(&self) -> &Mlp {
        &self.mlp
    }
}
