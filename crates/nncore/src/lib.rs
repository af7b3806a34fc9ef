//! # nncore — the shared neural-training core of the icml24 workspace
//!
//! Not a paper: the common ground of the crates that train networks
//! (Loshchilov & Hutter, *Decoupled Weight Decay Regularization*, ICLR 2019,
//! for AdamW; Guo et al., *On Calibration of Modern Neural Networks*, ICML
//! 2017, for the ECE; Geifman et al., *Bias-Reduced Uncertainty Estimation
//! for Deep Neural Classifiers*, ICLR 2019, for AURC). Autodiff and kernels
//! are candle's (`candle-core`, `candle-nn`, CPU); this crate adds what
//! candle leaves to the user, in one place:
//!
//! | module | what |
//! |---|---|
//! | [`init`] | seeded initialisers (normal, uniform, Xavier, Kaiming, orthogonal) and dropout masks, drawn on the host from the caller's RNG (candle's CPU RNG cannot be seeded) |
//! | [`data`], [`readers`] | in-memory data sets, Fisher–Yates shuffling, mini-batches with a stated last-batch policy, seeded splits; the vendored digits CSV and gzipped text corpora |
//! | [`params`], [`models`] | named parameters with frozen-parameter masks; a ReLU MLP initialised like PyTorch's `nn.Linear` |
//! | [`optim`] | AdamW (candle-nn's), SGD with momentum, warm-up + cosine schedule |
//! | [`train`] | one loop for any loss closure: clipping, early stopping, per-epoch history, progress bar, typed error naming the step of a NaN loss |
//! | [`alloc`] | [`alloc::retain_freed_memory`]: glibc keeps freed tensor buffers (3–4× faster steps at width 512) |
//! | [`metrics`] | accuracy, NLL, ECE (15 bins, with the bin table), Brier, AURC/E-AURC, AUROC, AUPR, FPR@95%TPR, perplexity, bits per character, on plain `ndarray` probabilities |
//!
//! Training runs in `f32`; metrics are computed in `f64`. Every function
//! that takes user data returns [`Result`] with a typed [`Error`].
//!
//! ```
//! use candle_core::{Device, Tensor};
//! use nncore::{data::ClassificationData, init, params::ParamSet, train};
//! use rand::SeedableRng;
//! # fn main() -> nncore::Result<()> {
//! // Two linearly separable classes on a line: x < 0 is class 0, x ≥ 0 class 1.
//! let x = ndarray::Array2::from_shape_fn((64, 1), |(i, _)| i as f32 / 32.0 - 1.0);
//! let y: Vec<usize> = (0..64).map(|i| usize::from(i >= 32)).collect();
//! let data = ClassificationData::new(x, y, 2)?;
//! let dev = Device::Cpu;
//! let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(0);
//! let mut params = ParamSet::new();
//! let w = params.add("w", &init::xavier_uniform(&[2, 1], 1.0, &mut rng, &dev)?)?;
//! let b = params.add("b", &Tensor::zeros(2, candle_core::DType::F32, &dev)?)?;
//! let config = train::TrainConfig { epochs: 30, batch_size: 16, learning_rate: 0.1, progress: false, ..Default::default() };
//! let history = train::fit(&params, data.len(), &config, &mut rng, |idx| {
//!     let (xb, yb) = data.batch(idx, &dev).map_err(candle_core::Error::wrap)?;
//!     let logits = xb.matmul(&w.t()?)?.broadcast_add(&b)?;
//!     candle_nn::loss::cross_entropy(&logits, &yb)
//! }, None)?;
//! let first = history.epochs[0].train_loss;
//! let last = history.epochs.last().unwrap().train_loss;
//! assert!(last < 0.5 * first);
//! # Ok(())
//! # }
//! ```

#![deny(missing_docs)]

pub mod alloc;
pub mod data;
mod error;
pub mod init;
pub mod metrics;
pub mod models;
pub mod optim;
pub mod params;
pub mod readers;
pub mod train;

pub use error::{Error, Result};

#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
